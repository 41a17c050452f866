/*
 * mutex.c - uncontended pthread mutex lock+unlock, for bench/run-mutex.
 *
 *   mutex N [single|contended|paired]
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
 *
 * "paired": the same process times blocks of N / 20 pairs through the
 * program's own calls (libips2's wrappers when built with ips2cc) and
 * through libc's functions themselves (dlsym on libc.so.6: untraced),
 * alternating, 20 blocks each, and prints
 *   "paired <N> called_ns <x> libc_ns <y>"
 * the medians per pair: both see the same machine within milliseconds,
 * which a loaded machine's separate runs do not.
 */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static pthread_mutex_t lock_ = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *nothing(void *arg)
{
    return arg;
}

static void *pairs(void *arg)
{
    long n = *(long *)arg;

    for (long i = 0; i < n; i++) {
        pthread_mutex_lock(&lock_);
        counter++;
        pthread_mutex_unlock(&lock_);
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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define BLOCKS 20

static int paired(long n)
{
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    int (*lock)(pthread_mutex_t *) =
        libc ? (int (*)(pthread_mutex_t *))dlsym(libc, "pthread_mutex_lock") : NULL;
    int (*unlock)(pthread_mutex_t *) =
        libc ? (int (*)(pthread_mutex_t *))dlsym(libc, "pthread_mutex_unlock") : NULL;
    double called[BLOCKS], direct[BLOCKS];
    long per = n / BLOCKS > 0 ? n / BLOCKS : 1;

    if (!lock || !unlock) {
        fprintf(stderr, "mutex: libc's pthread_mutex_lock not found\n");
        return 1;
    }
    for (int b = 0; b < BLOCKS; b++) {
        double t0 = now_ns();
        for (long i = 0; i < per; i++) {
            pthread_mutex_lock(&lock_);
            counter++;
            pthread_mutex_unlock(&lock_);
        }
        double t1 = now_ns();
        for (long i = 0; i < per; i++) {
            lock(&lock_);
            counter++;
            unlock(&lock_);
        }
        double t2 = now_ns();
        called[b] = (t1 - t0) / (double)per;
        direct[b] = (t2 - t1) / (double)per;
    }
    qsort(called, BLOCKS, sizeof(double), cmp_double);
    qsort(direct, BLOCKS, sizeof(double), cmp_double);
    printf("paired %ld called_ns %.2f libc_ns %.2f\n", per * BLOCKS,
           (called[BLOCKS / 2 - 1] + called[BLOCKS / 2]) / 2,
           (direct[BLOCKS / 2 - 1] + direct[BLOCKS / 2]) / 2);
    return 0;
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
    if (argc > 2 && strcmp(argv[2], "paired") == 0) {
        pthread_t th;
        pthread_create(&th, NULL, nothing, NULL); /* multi-threaded, as below */
        pthread_join(th, NULL);
        for (int i = 0; i < 1000; i++) { /* warm up: the first events open the stream */
            pthread_mutex_lock(&lock_);
            counter++;
            pthread_mutex_unlock(&lock_);
        }
        return paired(n);
    }
    if (argc <= 2 || strcmp(argv[2], "single") != 0) {
        pthread_t th;
        pthread_create(&th, NULL, nothing, NULL);
        pthread_join(th, NULL);
    }
    /* warm up: the first events open the thread's stream */
    for (int i = 0; i < 1000; i++) {
        pthread_mutex_lock(&lock_);
        counter++;
        pthread_mutex_unlock(&lock_);
    }
    struct rusage u0, u1;
    getrusage(RUSAGE_THREAD, &u0);
    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
        pthread_mutex_lock(&lock_);
        counter++;
        pthread_mutex_unlock(&lock_);
    }
    double t1 = now_ns();
    getrusage(RUSAGE_THREAD, &u1);
    printf("pairs %ld ns_per_pair %.2f user_ns_per_pair %.2f sys_ns_per_pair %.2f\n", n,
           (t1 - t0) / (double)n, (tv_ns(u1.ru_utime) - tv_ns(u0.ru_utime)) / (double)n,
           (tv_ns(u1.ru_stime) - tv_ns(u0.ru_stime)) / (double)n);
    return counter == n + 1000 ? 0 : 1;
}
