/*
 * pvm_stuck.c - a PVM master whose worker never exits (run_end.test).
 *
 *   pvm_stuck [WORKER]
 *
 * The master (a task with no parent) spawns one worker, WORKER (an
 * absolute path; default argv[0], itself), receives its greeting (tag 1),
 * prints "greeted", leaves PVM and exits 0.  The worker sends the greeting
 * and then waits in pvm_recv for a message (tag 2) that nobody sends: it
 * is still in the virtual machine when its master has ended.
 */
#include <stdio.h>

#include <pvm3.h>

static void wait_forever(int parent)
{
    for (;;)
        if (pvm_recv(parent, 2) < 0)
            return;
}

int main(int argc, char **argv)
{
    int tid, parent;

    if (pvm_mytid() < 0)
        return 1;
    parent = pvm_parent();
    if (parent > 0) {
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&parent, 1, 1);
        pvm_send(parent, 1);
        wait_forever(parent);
        return 0;
    }
    char *worker = argc > 1 ? argv[1] : argv[0];
    if (pvm_spawn(worker, NULL, PvmTaskDefault, "", 1, &tid) != 1)
        return 2;
    if (pvm_recv(tid, 1) < 0)
        return 3;
    printf("greeted\n");
    pvm_exit();
    return 0;
}
