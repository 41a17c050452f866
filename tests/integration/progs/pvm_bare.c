/*
 * pvm_bare.c - a PVM master that spawns its workers by bare name, as PVM's
 * own examples do (workload_pvm.test): the pvmd must find "pvm_bare_worker"
 * on its executable path (ep=), which ips2 sets to the workload's
 * directories.  Built twice from this file: pvm_bare (the master) and
 * pvm_bare_worker (a task with a parent is a worker).
 *
 *   pvm_bare N R
 *
 * The master spawns N workers and sends each R requests (tag 1, an int),
 * each answered (tag 2) after work_on() doubles it; then tag 3 ends the
 * worker.  It prints "spawned N replies N*R" and exits 0, or 1 on a fault.
 */
#include <stdio.h>
#include <stdlib.h>

#include <pvm3.h>

__attribute__((noinline)) static int work_on(int x)
{
    return 2 * x;
}

static int worker(int parent)
{
    for (;;) {
        int x = 0;
        pvm_recv(parent, -1);
        int len = 0, tag = 0, src = 0;
        pvm_bufinfo(pvm_getrbuf(), &len, &tag, &src);
        if (tag == 3)
            break;
        pvm_upkint(&x, 1, 1);
        int y = work_on(x);
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&y, 1, 1);
        pvm_send(parent, 2);
    }
    pvm_exit();
    return 0;
}

int main(int argc, char **argv)
{
    int parent = pvm_parent();
    if (parent > 0)
        return worker(parent);
    int n = argc > 1 ? atoi(argv[1]) : 2, r = argc > 2 ? atoi(argv[2]) : 5;
    int tids[64];
    if (n < 1 || n > 64 || pvm_mytid() < 0)
        return 1;
    int started = pvm_spawn("pvm_bare_worker", NULL, PvmTaskDefault, NULL, n, tids);
    if (started != n) {
        fprintf(stderr, "pvm_bare: spawned %d of %d (%d)\n", started, n, started > 0 ? 0 : tids[0]);
        pvm_exit();
        return 1;
    }
    int replies = 0;
    for (int k = 0; k < r; k++) {
        for (int i = 0; i < n; i++) {
            int x = k * 100 + i;
            pvm_initsend(PvmDataDefault);
            pvm_pkint(&x, 1, 1);
            pvm_send(tids[i], 1);
        }
        for (int i = 0; i < n; i++) {
            int y = 0;
            pvm_recv(tids[i], 2);
            pvm_upkint(&y, 1, 1);
            replies += y == 2 * (k * 100 + i);
        }
    }
    for (int i = 0; i < n; i++) {
        pvm_initsend(PvmDataDefault);
        pvm_send(tids[i], 3);
    }
    printf("spawned %d replies %d\n", started, replies);
    pvm_exit();
    return replies == n * r ? 0 : 1;
}
