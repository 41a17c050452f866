/*
 * barrier.c - the demo workload's pthread barrier application: K threads
 * run R rounds; in each round thread i (0-based) computes for (i+1)*MS ms of
 * CPU in compute(), then waits for the others at a barrier in sync_round().
 *
 *   barrier -threads K -rounds R -work MS
 *
 * So, for thread i: compute R calls, R*(i+1)*MS ms of CPU (self);
 * sync_round R calls; worker 1 call.  The threads that finish a round
 * early wait for the slowest: thread K-1 never waits long, thread 0 waits
 * about R*(K-1)*MS ms in all.  main makes K threads, joins them, and
 * prints one line.  Exit status 0.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuwork.h"
#include "options.h"

struct shared {
    pthread_barrier_t barrier;
    int rounds;
    double work_ms;
};

struct worker_arg {
    struct shared *shared;
    int index;
};

__attribute__((noinline)) static void compute(double ms)
{
    burn_cpu(ms);
}

__attribute__((noinline)) static void sync_round(struct shared *s)
{
    pthread_barrier_wait(&s->barrier);
}

__attribute__((noinline)) static void *worker(void *p)
{
    struct worker_arg *a = p;
    for (int r = 0; r < a->shared->rounds; r++) {
        compute((a->index + 1) * a->shared->work_ms);
        sync_round(a->shared);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = 4;
    struct shared s = {.rounds = 10, .work_ms = 2.0};
    const struct opt opts[] = {
        {"-threads", OPT_INT, &threads},
        {"-rounds", OPT_INT, &s.rounds},
        {"-work", OPT_DOUBLE, &s.work_ms},
    };
    if (READ_OPTIONS(argc, argv, opts) != 0 || threads <= 0 || threads > 64 || s.rounds <= 0 ||
        s.work_ms < 0) {
        fprintf(stderr, "usage: barrier -threads K -rounds R -work MS\n");
        return 2;
    }
    pthread_t tids[64];
    struct worker_arg args[64];
    pthread_barrier_init(&s.barrier, NULL, (unsigned)threads);
    for (int i = 0; i < threads; i++) {
        args[i] = (struct worker_arg){&s, i};
        pthread_create(&tids[i], NULL, worker, &args[i]);
    }
    for (int i = 0; i < threads; i++)
        pthread_join(tids[i], NULL);
    pthread_barrier_destroy(&s.barrier);
    printf("barrier: %d threads, %d rounds\n", threads, s.rounds);
    return 0;
}
