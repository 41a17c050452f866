/* pvm_master.c - a PVM master and its workers (the same program: a task
 * with a parent is a worker), exchanging messages every way the
 * wrappers record.  The master, run with NWORKERS (default 3):
 *
 *   spawns NWORKERS workers (argv[0], an absolute path) and catches their
 *   output;
 *   per worker: pvm_send tag 1 (the worker's index and NWORKERS), then
 *   pvm_psend tag 2 (4 ints);
 *   pvm_mcast tag 3 to all workers, its list naming worker 0 twice and
 *   itself once (PVM sends once to each other task);
 *   receives: NWORKERS replies tag 10 with pvm_recv(-1, 10); NWORKERS
 *   replies tag 11 with a pvm_nrecv loop (pvm_probe first); NWORKERS
 *   replies tag 12 with pvm_trecv (10 s timeout) per worker; NWORKERS
 *   replies tag 13 with pvm_precv; then one pvm_trecv with a 1 ms timeout
 *   that finds nothing;
 *   sends a bad pvm_send (tid 0: PvmBadParam) and prints the error;
 *   then every worker joins group "ips2" and all meet at pvm_barrier
 *   twice (count NWORKERS + 1: the master joins too), and everyone leaves
 *   PVM.
 *
 * A worker receives tag 1 (pvm_recv), 2 (pvm_precv) and 3 (pvm_recv),
 * replies tags 10, 11, 12 (pvm_send) and 13 (pvm_psend), joins the group,
 * meets the barriers and exits.  Messages carry payloads that the receivers
 * check; the master prints one line per stage and "done". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <pvm3.h>

#define GROUP "ips2"

__attribute__((noipa)) int compute(int x)
{
    return x * 7 + 1;
}

static void fail(const char *what, int cc)
{
    printf("FAILED: %s (%d)\n", what, cc);
    fflush(stdout);
    pvm_exit();
    exit(1);
}

static int worker(int parent)
{
    int index, n, vals[4], rtid, rtag, rlen, mc;

    if (pvm_recv(parent, 1) < 0 || pvm_upkint(&index, 1, 1) < 0 || pvm_upkint(&n, 1, 1) < 0)
        fail("worker recv 1", 0);
    if (pvm_precv(parent, 2, vals, 4, PVM_INT, &rtid, &rtag, &rlen) < 0 || vals[0] != index)
        fail("worker precv 2", 0);
    if (pvm_recv(parent, 3) < 0 || pvm_upkint(&mc, 1, 1) < 0 || mc != 33)
        fail("worker recv 3", 0);
    for (int tag = 10; tag <= 12; tag++) {
        int v = compute(index + tag);
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&index, 1, 1);
        pvm_pkint(&v, 1, 1);
        if (pvm_send(parent, tag) < 0)
            fail("worker send", tag);
    }
    int reply[2] = {index, compute(index + 13)};
    if (pvm_psend(parent, 13, reply, 2, PVM_INT) < 0)
        fail("worker psend", 13);
    int inst = pvm_joingroup(GROUP);
    if (inst < 0)
        fail("worker joingroup", inst);
    for (int round = 0; round < 2; round++)
        if (pvm_barrier(GROUP, n + 1) < 0)
            fail("worker barrier", round);
    pvm_lvgroup(GROUP);
    pvm_exit();
    return 0;
}

/* Checks one reply: (index, compute(index + tag)); marks index seen. */
static void check_reply(int tag, int index, int v, int *seen, int n)
{
    if (index < 0 || index >= n || seen[index] || v != compute(index + tag))
        fail("bad reply", tag);
    seen[index] = 1;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 3;
    int tids[16], seen[16];
    int parent = pvm_parent();

    if (pvm_mytid() < 0)
        return 2;
    if (parent > 0)
        return worker(parent);
    if (n < 1 || n > 16)
        fail("bad NWORKERS", n);
    pvm_catchout(stdout);
    int started = pvm_spawn(argv[0], NULL, PvmTaskDefault, NULL, n, tids);
    if (started != n)
        fail("spawn", started);
    printf("spawned %d workers\n", started);

    for (int i = 0; i < n; i++) {
        int vals[4] = {i, i + 1, i + 2, i + 3};
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&i, 1, 1);
        pvm_pkint(&n, 1, 1);
        if (pvm_send(tids[i], 1) < 0)
            fail("send 1", i);
        if (pvm_psend(tids[i], 2, vals, 4, PVM_INT) < 0)
            fail("psend 2", i);
    }
    int list[18];
    int m = 0;
    for (int i = 0; i < n; i++)
        list[m++] = tids[i];
    list[m++] = tids[0];
    list[m++] = pvm_mytid();
    int magic = 33;
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&magic, 1, 1);
    if (pvm_mcast(list, m, 3) < 0)
        fail("mcast", 3);
    printf("sent\n");

    int index, v, cc;
    memset(seen, 0, sizeof(seen));
    for (int i = 0; i < n; i++) {
        if (pvm_recv(-1, 10) <= 0)
            fail("recv 10", i);
        pvm_upkint(&index, 1, 1);
        pvm_upkint(&v, 1, 1);
        check_reply(10, index, v, seen, n);
    }
    memset(seen, 0, sizeof(seen));
    for (int i = 0; i < n;) {
        if (pvm_probe(-1, 11) > 0 && (cc = pvm_nrecv(-1, 11)) > 0) {
            pvm_upkint(&index, 1, 1);
            pvm_upkint(&v, 1, 1);
            check_reply(11, index, v, seen, n);
            i++;
        }
    }
    memset(seen, 0, sizeof(seen));
    struct timeval ten = {10, 0};
    for (int i = 0; i < n; i++) {
        if (pvm_trecv(tids[i], 12, &ten) <= 0)
            fail("trecv 12", i);
        pvm_upkint(&index, 1, 1);
        pvm_upkint(&v, 1, 1);
        check_reply(12, index, v, seen, n);
    }
    memset(seen, 0, sizeof(seen));
    for (int i = 0; i < n; i++) {
        int reply[2], rtid, rtag, rlen;
        if (pvm_precv(-1, 13, reply, 2, PVM_INT, &rtid, &rtag, &rlen) < 0)
            fail("precv 13", i);
        check_reply(13, reply[0], reply[1], seen, n);
    }
    printf("received\n");
    struct timeval brief = {0, 1000};
    printf("trecv with nothing to receive: %d\n", pvm_trecv(-1, 99, &brief));
    pvm_setopt(PvmAutoErr, 0);
    pvm_initsend(PvmDataDefault);
    printf("send to tid 0: %s\n", pvm_send(0, 1) == PvmBadParam ? "PvmBadParam" : "?");
    pvm_setopt(PvmAutoErr, 1);

    if (pvm_joingroup(GROUP) < 0)
        fail("joingroup", 0);
    for (int round = 0; round < 2; round++)
        if ((cc = pvm_barrier(GROUP, n + 1)) < 0)
            fail("barrier", cc);
    printf("barriers passed\n");
    pvm_lvgroup(GROUP);
    printf("done\n");
    fflush(stdout);
    pvm_exit();
    return 0;
}
