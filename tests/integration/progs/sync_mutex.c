/*
 * sync_mutex.c - threads contend for one mutex (and each uses a private
 * one of its own, never contended).
 *
 *   sync_mutex [threads] [rounds]     (default 4 threads, 2000 rounds)
 *
 * First a hand-over that certainly waits: main holds the shared mutex until
 * a contender sleeps in pthread_mutex_lock.  Then each thread locks the
 * shared mutex `rounds` times and does a little work inside, so that the
 * others wait; then locks its own mutex `rounds` times.  Prints
 * "shared <n> own <n>": the lock counts, known in advance (the hand-over
 * adds 2 to shared).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "sync_gate.h"

static pthread_mutex_t shared = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static int rounds = 2000;
static int nthreads = 4;
static atomic_int started; /* a start gate that records nothing */

static void take(void)
{
    pthread_mutex_lock(&shared);
    counter++;
}

static void give(void)
{
    pthread_mutex_unlock(&shared);
}

/* main holds the mutex until the contender sleeps waiting for it. */
static const struct gate_lock hand_over = {take, give, 1};

static void *worker(void *arg)
{
    pthread_mutex_t own;
    long own_count = 0;

    pthread_mutex_init(&own, NULL);
    gate_start(&started, nthreads);
    for (int i = 0; i < rounds; i++) {
        take();
        work(200);
        give();
        work(50);
    }
    for (int i = 0; i < rounds; i++) {
        pthread_mutex_lock(&own);
        own_count++;
        pthread_mutex_unlock(&own);
    }
    pthread_mutex_destroy(&own);
    return (void *)own_count;
}

int main(int argc, char **argv)
{
    pthread_t th[64];
    long own = 0;

    if (gate_args(argc, argv, &nthreads, &rounds) != 0)
        return 2;
    gate_hand_over(&hand_over);
    for (int i = 0; i < nthreads; i++)
        pthread_create(&th[i], NULL, worker, NULL);
    for (int i = 0; i < nthreads; i++) {
        void *r;
        pthread_join(th[i], &r);
        own += (long)r;
    }
    printf("shared %ld own %ld\n", counter, own);
    return 0;
}
