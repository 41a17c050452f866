/*
 * mutex.c - (c) two threads contend for one mutex.
 *
 * Each thread takes the lock K times and, holding it, calls tiny() CALLS
 * times (cs_work); nothing runs outside the lock, so the threads are
 * serialised and the critical path is all the critical sections one
 * after the other.  Each thread reads its CPU clock around its loop;
 * main reports cs_work's CPU ("ref work": the sum of the loops, whose
 * time is nearly all cs_work's) and the critical path ("ref cp", the
 * same sum: nothing overlaps).
 *
 *   mutex [K [CALLS]]
 */
#include <pthread.h>

#include "perturb.h"

uint64_t perturb_sink;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long k_times, calls;
static uint64_t took[2];
static uint64_t shared_x = 1;

__attribute__((noinline)) static void cs_work(void)
{
    uint64_t x = shared_x;
    for (long i = 0; i < calls; i++)
        x = tiny(x + (uint64_t)i);
    shared_x = x;
}

static void *thread_main(void *arg)
{
    int which = (int)(intptr_t)arg;
    uint64_t c0 = cpu_ns();

    for (long k = 0; k < k_times; k++) {
        pthread_mutex_lock(&lock);
        cs_work();
        pthread_mutex_unlock(&lock);
    }
    took[which] = cpu_ns() - c0;
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t[2];

    k_times = arg(argc, argv, 1, 100);
    calls = arg(argc, argv, 2, 8000);
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, thread_main, (void *)(intptr_t)i);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    perturb_sink = shared_x;
    ref("work", took[0] + took[1]);
    ref("cp", took[0] + took[1]);
    return perturb_sink == 42;
}
