/*
 * latency_work.c - requests of known durations (latency.test): T threads
 * each call handle_request() N times; a call burns 10 ms of its thread's
 * CPU (burn_cpu, examples/workloads/cpuwork.h) every tenth time and 1 ms
 * otherwise, so its wall time is at least that.  Each thread also calls
 * nest(3) twice, a recursion whose innermost activation burns 2 ms: its
 * latency counts the outermost activations only (2 per thread, each at
 * least 2 ms), as its inclusive time does.  The program times every
 * call of handle_request itself (CLOCK_MONOTONIC around it) and prints the
 * durations, the truth the test compares ips2's percentiles with.
 *
 *   latency_work [T [N]]      prints "requests R long L nests S" and
 *                             "durations D ..." (ns, every call)
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../../examples/workloads/cpuwork.h"

static atomic_long requests, longs, nests;
static int per_thread = 50;
static long long *durations; /* per_thread per thread */
static atomic_int next_thread;

__attribute__((noinline)) static void handle_request(int i)
{
    if (i % 10 == 9) {
        burn_cpu(10.0);
        atomic_fetch_add(&longs, 1);
    } else {
        burn_cpu(1.0);
    }
    atomic_fetch_add(&requests, 1);
}

__attribute__((noinline)) static void nest(int depth)
{
    if (depth > 0)
        nest(depth - 1);
    else
        burn_cpu(2.0);
}

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void *worker(void *arg)
{
    long long *mine = durations + (long)atomic_fetch_add(&next_thread, 1) * per_thread;

    (void)arg;
    for (int i = 0; i < per_thread; i++) {
        long long t0 = now_ns();
        handle_request(i);
        mine[i] = now_ns() - t0;
    }
    for (int k = 0; k < 2; k++) {
        nest(3);
        atomic_fetch_add(&nests, 1);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 2;
    pthread_t t[16];

    if (argc > 2)
        per_thread = atoi(argv[2]);
    if (threads < 1 || threads > 16 || per_thread < 1)
        return 2;
    if (!(durations = calloc((size_t)threads * (size_t)per_thread, sizeof(*durations))))
        return 1;
    for (int i = 0; i < threads; i++)
        if (pthread_create(&t[i], NULL, worker, NULL) != 0)
            return 1;
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    printf("requests %ld long %ld nests %ld\n", (long)requests, (long)longs, (long)nests);
    printf("durations");
    for (long i = 0; i < (long)threads * per_thread; i++)
        printf(" %lld", durations[i]);
    printf("\n");
    free(durations);
    return 0;
}
