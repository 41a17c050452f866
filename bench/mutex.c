/*
 * mutex.c - uncontended pthread mutex lock+unlock, for bench/run-mutex.
 *
 *   mutex N [single|contended]
 *
 * Makes the process multi-threaded first (a thread that returns at once,
 * joined), as any program whose mutexes protect something is, unless
 * "single" is given; then times N lock+unlock pairs of one mutex by one
 * thread, around the loop only ("contended": by two threads at once, N
 * pairs each, the time per pair over both), and prints
 *   "pairs <N> ns_per_pair <x> user_ns_per_pair <u> sys_ns_per_pair <s>"
 * (the thread's user and system CPU time over the loop, from getrusage:
 * tracing's own instructions, and the kernel's work for the trace file's
 * pages).
 */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *nothing(void *arg)
{
    return arg;
}

static void *pairs(void *arg)
{
    long n = *(long *)arg;

    for (long i = 0; i < n; i++) {
        pthread_mutex_lock(&lock);
        counter++;
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

static double tv_ns(struct timeval tv)
{
    return tv.tv_sec * 1e9 + tv.tv_usec * 1e3;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;

    if (n <= 0)
        return 2;
    if (argc > 2 && strcmp(argv[2], "contended") == 0) {
        pthread_t th[2];
        struct rusage u0, u1;
        getrusage(RUSAGE_SELF, &u0);
        double t0 = now_ns();
        for (int i = 0; i < 2; i++)
            pthread_create(&th[i], NULL, pairs, &n);
        for (int i = 0; i < 2; i++)
            pthread_join(th[i], NULL);
        double t1 = now_ns();
        getrusage(RUSAGE_SELF, &u1);
        printf("pairs %ld ns_per_pair %.2f user_ns_per_pair %.2f sys_ns_per_pair %.2f\n", 2 * n,
               (t1 - t0) / (double)(2 * n),
               (tv_ns(u1.ru_utime) - tv_ns(u0.ru_utime)) / (double)(2 * n),
               (tv_ns(u1.ru_stime) - tv_ns(u0.ru_stime)) / (double)(2 * n));
        return counter == 2 * n ? 0 : 1;
    }
    if (argc <= 2 || strcmp(argv[2], "single") != 0) {
        pthread_t th;
        pthread_create(&th, NULL, nothing, NULL);
        pthread_join(th, NULL);
    }
    /* warm up: the first events open the thread's stream */
    for (int i = 0; i < 1000; i++) {
        pthread_mutex_lock(&lock);
        counter++;
        pthread_mutex_unlock(&lock);
    }
    struct rusage u0, u1;
    getrusage(RUSAGE_THREAD, &u0);
    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
        pthread_mutex_lock(&lock);
        counter++;
        pthread_mutex_unlock(&lock);
    }
    double t1 = now_ns();
    getrusage(RUSAGE_THREAD, &u1);
    printf("pairs %ld ns_per_pair %.2f user_ns_per_pair %.2f sys_ns_per_pair %.2f\n", n,
           (t1 - t0) / (double)n, (tv_ns(u1.ru_utime) - tv_ns(u0.ru_utime)) / (double)n,
           (tv_ns(u1.ru_stime) - tv_ns(u0.ru_stime)) / (double)n);
    return counter == n + 1000 ? 0 : 1;
}
