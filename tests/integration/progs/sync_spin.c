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

static void work(int n)
{
    volatile unsigned x = 1;
    for (int i = 0; i < n; i++)
        x = x * 1103515245u + 12345u;
}

static void *worker(void *arg)
{
    atomic_fetch_add(&started, 1);
    while (atomic_load(&started) < nthreads)
        ;
    for (int i = 0; i < rounds; i++) {
        pthread_spin_lock(&lock);
        counter++;
        work(300);
        pthread_spin_unlock(&lock);
        work(100);
    }
    return NULL;
}

static atomic_int contending;

static void *contender(void *arg)
{
    atomic_store(&contending, 1);
    pthread_spin_lock(&lock); /* held by main: spins */
    counter++;
    pthread_spin_unlock(&lock);
    return NULL;
}

static void hand_over(void)
{
    pthread_t th;

    pthread_spin_lock(&lock);
    counter++;
    pthread_create(&th, NULL, contender, NULL);
    while (atomic_load(&contending) == 0)
        ;
    gate_wait_spun(th, 2000000);
    pthread_spin_unlock(&lock);
    pthread_join(th, NULL);
}

int main(int argc, char **argv)
{
    pthread_t th[64];

    if (argc > 1)
        nthreads = atoi(argv[1]);
    if (argc > 2)
        rounds = atoi(argv[2]);
    if (nthreads < 1 || nthreads > 64)
        return 2;
    pthread_spin_init(&lock, PTHREAD_PROCESS_PRIVATE);
    hand_over();
    for (int i = 0; i < nthreads; i++)
        pthread_create(&th[i], NULL, worker, NULL);
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    pthread_spin_destroy(&lock);
    printf("locks %ld\n", counter);
    return 0;
}
