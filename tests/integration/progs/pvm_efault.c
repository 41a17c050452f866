/*
 * pvm_efault.c - PVM calls given bad pointers where libpvm refuses them
 * with an error code (here: there is no pvmd to talk to) and never reads
 * them.  Each line names the call and its result; a traced build must
 * print exactly what the untraced build prints.  Each call runs in a child
 * of its own, so that a crash is one line ("killed by SIGSEGV").
 */
#define _GNU_SOURCE
#include <pvm3.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "in_child.h"

#define CALL(name, expr) IN_CHILD(name, 18, printf("%-18s cc=%d\n", name, (int)(expr)))

int main(void)
{
    void *bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    setvbuf(stdout, NULL, _IOLBF, 0);
    pvm_setopt(PvmAutoErr, 0); /* no messages on stderr */
    CALL("pvm_mcast bad tids", pvm_mcast(bad, 4, 1));
    CALL("pvm_spawn bad file", pvm_spawn(bad, NULL, PvmTaskDefault, NULL, 1, NULL));
    CALL("pvm_spawn no tasks", pvm_spawn(bad, NULL, PvmTaskDefault, NULL, 0, NULL));
    return 0;
}
