/*
 * pvm_siblings.c - an SPMD ring of PVM siblings (workload_pvm.test): started
 * as one group by `process M -spawn N pvm_siblings R`, each task finds its
 * rank among pvm_siblings() and passes a token R times round the ring,
 * each hop through pass_token().  Rank 0 starts it and checks that it
 * came back with N*R hops; every task exits 0, or 1 on a fault.
 */
#include <stdio.h>
#include <stdlib.h>

#include <pvm3.h>

__attribute__((noinline)) static int pass_token(int to, int hops)
{
    pvm_initsend(PvmDataDefault);
    hops++;
    pvm_pkint(&hops, 1, 1);
    pvm_send(to, 1);
    return hops;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 3;
    int *sibs = NULL, me = pvm_mytid();
    int n = pvm_siblings(&sibs), rank = -1;
    for (int i = 0; i < n; i++)
        if (sibs[i] == me)
            rank = i;
    if (me < 0 || n < 2 || rank < 0) {
        pvm_exit();
        return 1;
    }
    int next = sibs[(rank + 1) % n], prev = sibs[(rank + n - 1) % n], hops = 0, ok = 1;
    if (rank == 0)
        pass_token(next, 0);
    for (int r = 0; r < rounds; r++) {
        pvm_recv(prev, 1);
        pvm_upkint(&hops, 1, 1);
        if (rank == 0 && r == rounds - 1)
            ok = hops == n * rounds;
        else
            pass_token(next, hops);
    }
    pvm_exit();
    return ok ? 0 : 1;
}
