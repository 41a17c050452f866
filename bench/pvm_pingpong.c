/* pvm_pingpong.c - PVM round trips for bench/run-pvm: the master spawns
 * itself once (an absolute path) and bounces a one-int message N times
 * (pvm_send + pvm_recv at both ends), then prints "round trips N".  The
 * worker is the task with a parent. */
#include <stdio.h>
#include <stdlib.h>

#include <pvm3.h>

int main(int argc, char **argv)
{
    int parent = pvm_parent();
    int n = argc > 1 ? atoi(argv[1]) : 10000;
    int v = 0, peer;

    if (pvm_mytid() < 0)
        return 2;
    if (parent > 0) {
        for (;;) {
            pvm_recv(parent, 1);
            pvm_upkint(&v, 1, 1);
            pvm_initsend(PvmDataDefault);
            pvm_pkint(&v, 1, 1);
            pvm_send(parent, 2);
            if (v < 0)
                break;
        }
        pvm_exit();
        return 0;
    }
    if (pvm_spawn(argv[0], NULL, PvmTaskDefault, NULL, 1, &peer) != 1)
        return 3;
    for (int i = 0; i <= n; i++) {
        v = i < n ? i : -1; /* the last one tells the worker to stop */
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&v, 1, 1);
        pvm_send(peer, 1);
        pvm_recv(peer, 2);
        pvm_upkint(&v, 1, 1);
    }
    printf("round trips %d\n", n);
    pvm_exit();
    return 0;
}
