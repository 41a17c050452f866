/*
 * sync_names.c - locks a person names by where they live: a static hot
 * lock, an array of locks that init_locks initialises, and two locks in a
 * table on the heap that init_table initialises.
 *
 *   sync_names [threads] [rounds]     (default 4 threads, 500 rounds)
 *
 * Each of hot_lock, locks[1], the table's lock and its other lock is
 * waited for once for certain (sync_gate.h's hand-over: main holds it
 * until a contender sleeps on it); then the workers contend for the hot
 * lock `rounds` times each.  Prints "hot <n> mutex_size <bytes>": the hot
 * lock's acquisitions (known in advance: 2 + threads * rounds) and
 * sizeof(pthread_mutex_t), the offset of locks[1] in locks.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "sync_gate.h"

static pthread_mutex_t hot_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t locks[4];
static long hot_count;
static int rounds = 500;
static int nthreads = 4;
static atomic_int started;

struct table {
    long entries;
    pthread_mutex_t lock;
    pthread_mutex_t other;
};

__attribute__((noinline)) static void init_locks(void)
{
    for (int i = 0; i < 4; i++)
        pthread_mutex_init(&locks[i], NULL);
}

__attribute__((noinline)) static struct table *init_table(void)
{
    struct table *t = calloc(1, sizeof(*t));

    if (t == NULL)
        exit(1);
    pthread_mutex_init(&t->lock, NULL);
    pthread_mutex_init(&t->other, NULL);
    return t;
}

/* The lock of the current hand-over. */
static pthread_mutex_t *current;

static void take(void)
{
    pthread_mutex_lock(current);
    if (current == &hot_lock)
        hot_count++;
}

static void give(void)
{
    pthread_mutex_unlock(current);
}

static const struct gate_lock hand_over = {take, give, 1};

static void *worker(void *arg)
{
    gate_start(&started, nthreads);
    for (int i = 0; i < rounds; i++) {
        pthread_mutex_lock(&hot_lock);
        hot_count++;
        work(300);
        pthread_mutex_unlock(&hot_lock);
        work(30);
    }
    return arg;
}

int main(int argc, char **argv)
{
    pthread_t th[64];

    if (gate_args(argc, argv, &nthreads, &rounds) != 0)
        return 2;
    init_locks();
    struct table *t = init_table();
    pthread_mutex_t *handed[] = {&hot_lock, &locks[1], &t->lock, &t->other};
    for (size_t i = 0; i < sizeof(handed) / sizeof(handed[0]); i++) {
        current = handed[i];
        atomic_store(&gate_contender_tid, 0); /* a new contender each time */
        gate_hand_over(&hand_over);
    }
    for (int i = 0; i < nthreads; i++)
        pthread_create(&th[i], NULL, worker, NULL);
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    printf("hot %ld mutex_size %zu\n", hot_count, sizeof(pthread_mutex_t));
    free(t);
    return 0;
}
