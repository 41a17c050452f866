/*
 * sync_spin.c - threads contend for a pthread spin lock.
 *
 *   sync_spin [threads] [rounds]     (default 2 threads, 2000 rounds)
 *
 * First a hand-over that certainly spins: main holds the lock until a
 * contender has spun for 2 ms of CPU time.  Prints "locks <n>": the lock
 * acquisitions made (the hand-over adds 2).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "sync_gate.h"

static pthread_spinlock_t lock;
static long counter;
static int rounds = 2000, nthreads = 2;
static atomic_int started;

static void take(void)
{
    pthread_spin_lock(&lock);
    counter++;
}

static void give(void)
{
    pthread_spin_unlock(&lock);
}

/* main holds the lock until the contender has spun for 2 ms. */
static const struct gate_lock hand_over = {take, give, 0};

static void *worker(void *arg)
{
    gate_start(&started, nthreads);
    for (int i = 0; i < rounds; i++) {
        take();
        work(300);
        give();
        work(100);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t th[64];

    if (gate_args(argc, argv, &nthreads, &rounds) != 0)
        return 2;
    pthread_spin_init(&lock, PTHREAD_PROCESS_PRIVATE);
    gate_hand_over(&hand_over);
    for (int i = 0; i < nthreads; i++)
        pthread_create(&th[i], NULL, worker, NULL);
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    pthread_spin_destroy(&lock);
    printf("locks %ld\n", counter);
    return 0;
}
