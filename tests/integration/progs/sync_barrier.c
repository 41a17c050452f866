/*
 * sync_barrier.c - threads meet at a pthread barrier, episode after episode.
 *
 *   sync_barrier [threads] [episodes]     (default 4 threads, 50 episodes)
 *
 * Before each episode every thread works for a different, varying while, so
 * that the last to arrive changes from episode to episode.  Prints
 * "episodes <n> serial <n>": the episodes run and how many times a thread
 * was told it was the serial thread (one per episode).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "sync_gate.h"

static pthread_barrier_t barrier;
static int episodes = 50;
static atomic_int serial;

static void *worker(void *arg)
{
    unsigned id = (unsigned)(long)arg;
    unsigned seed = id * 7919u + 1;

    for (int e = 0; e < episodes; e++) {
        seed = seed * 1103515245u + 12345u;
        work(1000 + (seed >> 16) % 20000);
        if (pthread_barrier_wait(&barrier) == PTHREAD_BARRIER_SERIAL_THREAD)
            atomic_fetch_add(&serial, 1);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int nthreads = 4;
    pthread_t th[64];

    if (gate_args(argc, argv, &nthreads, &episodes) != 0)
        return 2;
    pthread_barrier_init(&barrier, NULL, (unsigned)nthreads);
    for (int i = 0; i < nthreads; i++)
        pthread_create(&th[i], NULL, worker, (void *)(long)i);
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&barrier);
    printf("episodes %d serial %d\n", episodes, atomic_load(&serial));
    return 0;
}
