/*
 * sync_rwlock.c - readers and writers share a read-write lock.
 *
 *   sync_rwlock [readers] [writers] [rounds]     (default 2, 2, 1000)
 *
 * First a hand-over that certainly waits: main holds the lock for reading
 * until a writer sleeps in pthread_rwlock_wrlock.  Then readers hold the
 * lock for reading while they sum a table, writers for writing while they
 * change it.  Prints "reads <n> writes <n>" (the hand-over adds 1 to each).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "sync_gate.h"

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static unsigned table[256];
static int rounds = 1000, nthreads;
static atomic_long reads, writes;
static atomic_int started;

static void *reader(void *arg)
{
    gate_start(&started, nthreads);
    for (int i = 0; i < rounds; i++) {
        pthread_rwlock_rdlock(&lock);
        volatile unsigned sum = 0;
        for (int k = 0; k < 256; k++)
            sum += table[k];
        pthread_rwlock_unlock(&lock);
        atomic_fetch_add(&reads, 1);
    }
    return NULL;
}

static void *writer(void *arg)
{
    gate_start(&started, nthreads);
    for (int i = 0; i < rounds; i++) {
        pthread_rwlock_wrlock(&lock);
        for (int k = 0; k < 256; k++)
            table[k] += (unsigned)k;
        pthread_rwlock_unlock(&lock);
        atomic_fetch_add(&writes, 1);
    }
    return NULL;
}

static atomic_int writer_tid;

static void *first_writer(void *arg)
{
    atomic_store(&writer_tid, gate_tid());
    pthread_rwlock_wrlock(&lock); /* main reads: sleeps */
    atomic_fetch_add(&writes, 1);
    pthread_rwlock_unlock(&lock);
    return NULL;
}

static void hand_over(void)
{
    pthread_t th;

    pthread_rwlock_rdlock(&lock);
    atomic_fetch_add(&reads, 1);
    pthread_create(&th, NULL, first_writer, NULL);
    while (atomic_load(&writer_tid) == 0)
        ;
    gate_wait_asleep(getpid(), atomic_load(&writer_tid));
    pthread_rwlock_unlock(&lock);
    pthread_join(th, NULL);
}

int main(int argc, char **argv)
{
    int nreaders = argc > 1 ? atoi(argv[1]) : 2;
    int nwriters = argc > 2 ? atoi(argv[2]) : 2;
    pthread_t th[64];

    if (argc > 3)
        rounds = atoi(argv[3]);
    nthreads = nreaders + nwriters;
    if (nthreads < 1 || nthreads > 64)
        return 2;
    hand_over();
    for (int i = 0; i < nthreads; i++)
        pthread_create(&th[i], NULL, i < nreaders ? reader : writer, NULL);
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    printf("reads %ld writes %ld\n", atomic_load(&reads), atomic_load(&writes));
    return 0;
}
