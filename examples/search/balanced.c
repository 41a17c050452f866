/*
 * balanced.c - planted: nothing (search workload balanced.tcl).  T threads
 * each serve ticks for S seconds: a tick computes 3 ms of CPU in
 * serve_tick(), counts itself under the thread's own mutex (never waited
 * for: no other thread takes it) and sleeps 7 ms.  So each thread uses
 * about 30% of a CPU, waits for no lock, does no file I/O, faults no
 * pages once started, and makes about 100 calls a second.
 * The main thread is one of the T threads, so that no thread only waits
 * in pthread_join (a join is a synchronisation wait in the tables).
 *
 *   balanced -threads T -seconds S
 *
 * Truth: no hypothesis is above its threshold; the search reports no
 * bottleneck.  Exit status 0, 2 for bad usage.
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "../workloads/cpuwork.h"
#include "../workloads/options.h"

struct ticker {
    pthread_t tid;
    pthread_mutex_t lock;
    long ticks;
    int rounds;
};

__attribute__((noinline)) static void serve_tick(struct ticker *t)
{
    burn_cpu(3.0);
    pthread_mutex_lock(&t->lock);
    t->ticks++;
    pthread_mutex_unlock(&t->lock);
}

static void *worker(void *arg)
{
    struct ticker *t = arg;
    const struct timespec pause = {0, 7 * 1000 * 1000};
    for (int r = 0; r < t->rounds; r++) {
        serve_tick(t);
        nanosleep(&pause, NULL);
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
        fprintf(stderr, "usage: balanced -threads T (1-64) -seconds S\n");
        return 2;
    }
    struct ticker tickers[64];
    long total = 0;
    for (int i = 0; i < threads; i++) {
        tickers[i].ticks = 0;
        tickers[i].rounds = (int)(seconds * 100.0 + 0.5);
        pthread_mutex_init(&tickers[i].lock, NULL);
        if (i > 0)
            pthread_create(&tickers[i].tid, NULL, worker, &tickers[i]);
    }
    worker(&tickers[0]);
    for (int i = 0; i < threads; i++) {
        if (i > 0)
            pthread_join(tickers[i].tid, NULL);
        total += tickers[i].ticks;
    }
    printf("balanced: %d threads, %ld ticks\n", threads, total);
    return 0;
}
