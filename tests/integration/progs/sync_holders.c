/*
 * sync_holders.c - who holds a hot lock (holders.test): hold_work() holds
 * the static mutex hot_lock N times for MS ms of its own CPU each
 * (burn_cpu, examples/workloads/cpuwork.h), and wait_for_it(), in another
 * thread, takes it M times for nothing.  The first hold keeps the lock
 * until the other thread sleeps waiting for it, so wait_for_it waits at
 * least once for certain.
 *
 *   sync_holders [N [M [MS]]]     prints "holds N takes M"
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../../examples/workloads/cpuwork.h"
#include "sync_gate.h"

static pthread_mutex_t hot_lock = PTHREAD_MUTEX_INITIALIZER;
static long holds, takes;
static int takes_wanted = 200;
static pthread_t waiter;
static atomic_int waiter_tid;

__attribute__((noinline)) static void wait_for_it(void)
{
    pthread_mutex_lock(&hot_lock);
    takes++;
    pthread_mutex_unlock(&hot_lock);
}

static void *waiter_main(void *arg)
{
    (void)arg;
    atomic_store(&waiter_tid, gate_tid());
    for (int i = 0; i < takes_wanted; i++)
        wait_for_it();
    return NULL;
}

__attribute__((noinline)) static void hold_work(double ms, int first)
{
    pthread_mutex_lock(&hot_lock);
    if (first) { /* the waiter starts now and sleeps on the lock */
        pthread_create(&waiter, NULL, waiter_main, NULL);
        while (atomic_load(&waiter_tid) == 0)
            sched_yield();
        gate_wait_asleep(getpid(), (pid_t)atomic_load(&waiter_tid));
    }
    burn_cpu(ms);
    holds++;
    pthread_mutex_unlock(&hot_lock);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20;
    double ms = argc > 3 ? atof(argv[3]) : 2.0;

    if (argc > 2)
        takes_wanted = atoi(argv[2]);
    if (n < 1 || takes_wanted < 1 || ms <= 0) {
        fprintf(stderr, "usage: sync_holders [N [M [MS]]]\n");
        return 2;
    }
    for (int i = 0; i < n; i++)
        hold_work(ms, i == 0);
    pthread_join(waiter, NULL);
    printf("holds %ld takes %ld\n", holds, takes);
    return 0;
}
