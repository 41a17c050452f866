/*
 * pvm_ring.c - an SPMD ring of siblings, the way PVM's spmd example
 * passes its token (pvm_patterns.test).
 *
 *   pvm_ring [NPROC [ROUNDS]]
 *
 * Started by hand (no parent), it spawns NPROC copies of itself at once
 * (default 4, argv[0], an absolute path), waits for one "done" (tag 9)
 * from each, prints "ring NPROC ROUNDS" and exits.  The copies find each
 * other with pvm_siblings(); the first starts a token (tag 7), and each
 * passes it on to the next, ROUNDS times round the ring (default 10);
 * every copy adds its index to the token in pass(); the first checks the
 * sum each round.  Then each copy sends "done" to the spawner and leaves.
 */
#include <stdio.h>
#include <stdlib.h>

#include <pvm3.h>

static int pass(int token, int me, int to)
{
    token += me;
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&token, 1, 1);
    pvm_send(to, 7);
    return token;
}

static int sibling(int parent, int rounds)
{
    int *tids = NULL, ntids = pvm_siblings(&tids), me = -1, mytid = pvm_mytid(), bad = 0;
    for (int i = 0; i < ntids; i++)
        if (tids[i] == mytid)
            me = i;
    if (me < 0 || ntids < 2)
        return 1;
    int next = tids[(me + 1) % ntids], prev = tids[(me + ntids - 1) % ntids];
    int full = ntids * (ntids - 1) / 2;
    for (int r = 0; r < rounds; r++) {
        int token = 0;
        if (me == 0) {
            pass(r * full, me, next);
            if (pvm_recv(prev, 7) < 0 || pvm_upkint(&token, 1, 1) < 0)
                return 2;
            bad += token != (r + 1) * full;
        } else {
            if (pvm_recv(prev, 7) < 0 || pvm_upkint(&token, 1, 1) < 0)
                return 2;
            pass(token, me, next);
        }
    }
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&bad, 1, 1);
    pvm_send(parent, 9);
    pvm_exit();
    return 0;
}

int main(int argc, char **argv)
{
    int nproc = argc > 1 ? atoi(argv[1]) : 4, rounds = argc > 2 ? atoi(argv[2]) : 10;

    if (pvm_mytid() < 0)
        return 1;
    int parent = pvm_parent();
    if (parent > 0)
        return sibling(parent, rounds);
    if (nproc < 2 || nproc > 64)
        return 2;
    int *tids = calloc((size_t)nproc, sizeof *tids);
    char r[16];
    snprintf(r, sizeof r, "%d", rounds);
    char *args[] = {argv[1] != NULL ? argv[1] : "4", r, NULL};
    if (tids == NULL || pvm_spawn(argv[0], args, PvmTaskDefault, "", nproc, tids) != nproc)
        return 3;
    int bad = 0;
    for (int i = 0; i < nproc; i++) {
        int b;
        if (pvm_recv(-1, 9) < 0 || pvm_upkint(&b, 1, 1) < 0)
            return 4;
        bad += b;
    }
    printf("ring %d %d%s\n", nproc, rounds, bad ? " wrong" : "");
    pvm_exit();
    return bad != 0;
}
