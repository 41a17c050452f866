/*
 * pvm_killpp.c - a ping-pong whose master kills its worker as soon as the
 * last reply is in: the worker's last pvm_send must still be in its trace.
 * The master, run with ROUNDS (default 20), spawns one worker (argv[0], an
 * absolute path), sends ROUNDS pings (tag 1) and receives as many replies
 * (tag 2), then pvm_kill()s the worker at once and prints "rounds N".
 * First it makes a pvm_mcast that fails (tag 9, to the worker and to tid
 * 0, not a task: PvmBadParam) and prints its result.
 * A worker (a task with a parent) replies to each ping and waits for the
 * next one.
 */
#include <stdio.h>
#include <stdlib.h>

#include <pvm3.h>

static int worker(int parent)
{
    for (;;) {
        int i;
        if (pvm_recv(parent, 1) < 0 || pvm_upkint(&i, 1, 1) < 0)
            return 1;
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&i, 1, 1);
        if (pvm_send(parent, 2) < 0)
            return 1;
    }
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    int parent, tid, i;

    if (pvm_mytid() < 0)
        return 1;
    parent = pvm_parent();
    if (parent > 0)
        return worker(parent);
    char *args[] = {"worker", NULL};
    if (pvm_spawn(argv[0], args, PvmTaskDefault, "", 1, &tid) != 1)
        return 2;
    int bad[2] = {tid, 0};
    pvm_initsend(PvmDataDefault);
    printf("mcast %d\n", pvm_mcast(bad, 2, 9));
    for (i = 0; i < rounds; i++) {
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&i, 1, 1);
        int got = -1;
        if (pvm_send(tid, 1) < 0 || pvm_recv(tid, 2) < 0 || pvm_upkint(&got, 1, 1) < 0 || got != i)
            break;
    }
    pvm_kill(tid);
    printf("rounds %d\n", i);
    pvm_exit();
    return 0;
}
