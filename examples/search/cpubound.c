/*
 * cpubound.c - planted: a CPU-bound parallel program (search workload
 * cpubound.tcl).  T threads each spend S seconds of their own CPU time in
 * rounds of 10 ms: 9 ms in integrate() (the planted bottleneck) and 1 ms in
 * checkpoint() (the decoy: a procedure with moderate CPU, a tenth of it).
 * No locks, no I/O, about 200 calls a second per thread.
 * The main thread is one of the T threads, so that no thread only waits
 * in pthread_join (a join is a synchronisation wait in the tables).
 *
 *   cpubound -threads T -seconds S
 *
 * Truth: cpuBound, its code focus refined to integrate; checkpoint (10% of
 * the CPU) never reported.  Exit status 0, 2 for bad usage.
 */
#include <pthread.h>
#include <stdio.h>

#include "../workloads/cpuwork.h"
#include "../workloads/options.h"

__attribute__((noinline)) static void integrate(void)
{
    burn_cpu(9.0);
}

__attribute__((noinline)) static void checkpoint(void)
{
    burn_cpu(1.0);
}

static void *worker(void *arg)
{
    int rounds = *(int *)arg;
    for (int r = 0; r < rounds; r++) {
        integrate();
        checkpoint();
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = 2;
    double seconds = 1.5;
    const struct opt opts[] = {
        {"-threads", OPT_INT, &threads},
        {"-seconds", OPT_DOUBLE, &seconds},
    };
    if (READ_OPTIONS(argc, argv, opts) != 0 || threads < 1 || threads > 64 || seconds <= 0) {
        fprintf(stderr, "usage: cpubound -threads T (1-64) -seconds S\n");
        return 2;
    }
    int rounds = (int)(seconds * 100.0 + 0.5);
    pthread_t tids[64];
    for (int i = 1; i < threads; i++)
        pthread_create(&tids[i], NULL, worker, &rounds);
    worker(&rounds);
    for (int i = 1; i < threads; i++)
        pthread_join(tids[i], NULL);
    printf("cpubound: %d threads x %d rounds\n", threads, rounds);
    return 0;
}
