/*
 * pvm_mw.c - a master and its workers written the way PVM's master1 /
 * slave1 example is (pvm_patterns.test).
 *
 *   pvm_mw [NPROC [N]]
 *
 * The master (a task with no parent) spawns NPROC workers (default 4,
 * argv[0], an absolute path), multicasts them (tag 1) their task ids and N
 * data values (default 100: 1..N), then takes one result per worker (tag
 * 5, pvm_recv from anyone), each the worker's index and the sum of the
 * data times (index + 1), prints "result I S" per index in order and
 * "done", leaves PVM and exits at once: its workers may still be leaving.
 * A worker receives the data, finds its index in the tids, computes in
 * work() and sends its result to the master, then leaves PVM.
 */
#include <stdio.h>
#include <stdlib.h>

#include <pvm3.h>

#define MAXPROC 32

static double work(int me, const float *data, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += data[i] * (me + 1);
    return s;
}

static int worker(int master)
{
    int nproc, n, tids[MAXPROC], me = -1, mytid = pvm_mytid();
    float data[1000];
    if (pvm_recv(master, 1) < 0 || pvm_upkint(&nproc, 1, 1) < 0 || nproc > MAXPROC ||
        pvm_upkint(tids, nproc, 1) < 0 || pvm_upkint(&n, 1, 1) < 0 || n > 1000 ||
        pvm_upkfloat(data, n, 1) < 0)
        return 1;
    for (int i = 0; i < nproc; i++)
        if (tids[i] == mytid)
            me = i;
    double result = work(me, data, n);
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&me, 1, 1);
    pvm_pkdouble(&result, 1, 1);
    pvm_send(master, 5);
    pvm_exit();
    return 0;
}

int main(int argc, char **argv)
{
    int nproc = argc > 1 ? atoi(argv[1]) : 4, n = argc > 2 ? atoi(argv[2]) : 100;
    int tids[MAXPROC];
    float data[1000];
    double results[MAXPROC];

    if (pvm_mytid() < 0)
        return 1;
    int parent = pvm_parent();
    if (parent > 0)
        return worker(parent);
    if (nproc < 1 || nproc > MAXPROC || n < 1 || n > 1000)
        return 2;
    if (pvm_spawn(argv[0], NULL, PvmTaskDefault, "", nproc, tids) != nproc)
        return 3;
    for (int i = 0; i < n; i++)
        data[i] = (float)(i + 1);
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&nproc, 1, 1);
    pvm_pkint(tids, nproc, 1);
    pvm_pkint(&n, 1, 1);
    pvm_pkfloat(data, n, 1);
    pvm_mcast(tids, nproc, 1);
    for (int i = 0; i < nproc; i++) {
        int who;
        double r;
        if (pvm_recv(-1, 5) < 0 || pvm_upkint(&who, 1, 1) < 0 || pvm_upkdouble(&r, 1, 1) < 0 ||
            who < 0 || who >= nproc)
            return 4;
        results[who] = r;
    }
    for (int i = 0; i < nproc; i++)
        printf("result %d %.0f\n", i, results[i]);
    printf("done\n");
    pvm_exit();
    return 0;
}
