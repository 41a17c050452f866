/*
 * tickrank.c - a caller that blocks between the calls of its callee: the
 * case where a coarse process clock with exact readings mixed in ranks the
 * procedures wrongly (issue 15 item 3).
 *
 *   tickrank [calls] [ms]      (default 150 calls of 3 ms of CPU)
 *
 * main calls shortp() `calls` times; shortp burns `ms` of its own CPU time
 * (less than a 10 ms tick), and main sleeps 2 ms between the calls, so
 * that libips2's periodic sync point falls on the first event after each
 * sleep.  Halfway, a spin lock that another thread holds for 30 ms adds a
 * lock-acquired that keeps the CPU time at the wait's start.  Prints
 * "shortp_cpu_ms X" (its own exact clock) and "main_self_cpu_ms Y" (main's
 * CPU outside shortp and the hand-over, also by the exact clock).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define QUIET static inline __attribute__((always_inline, no_instrument_function))

QUIET double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

QUIET void burn(double ms)
{
    double end = cpu_ms() + ms;
    volatile unsigned long spin = 0;
    while (cpu_ms() < end)
        for (int i = 0; i < 1000; i++)
            spin++;
}

__attribute__((noipa)) double shortp(double ms)
{
    double start = cpu_ms();
    burn(ms);
    return cpu_ms() - start;
}

static pthread_spinlock_t lock;
static volatile int holding;

/* Holds the lock for 30 ms while main spins for it. */
static void *holder(void *arg)
{
    (void)arg;
    pthread_spin_lock(&lock);
    holding = 1;
    struct timespec ts = {0, 30 * 1000000L};
    nanosleep(&ts, NULL);
    pthread_spin_unlock(&lock);
    return NULL;
}

__attribute__((noipa)) void handover(void)
{
    pthread_t t;
    pthread_create(&t, NULL, holder, NULL);
    while (!holding)
        ;
    pthread_spin_lock(&lock);
    pthread_spin_unlock(&lock);
    pthread_join(t, NULL);
}

int main(int argc, char **argv)
{
    int calls = argc > 1 ? atoi(argv[1]) : 600;
    double ms = argc > 2 ? atof(argv[2]) : 0.5, in_shortp = 0, in_handover = 0;
    struct timespec nap = {0, 1000000L};
    double start = cpu_ms();

    pthread_spin_init(&lock, PTHREAD_PROCESS_PRIVATE);
    for (int i = 0; i < calls; i++) {
        in_shortp += shortp(ms);
        nanosleep(&nap, NULL);
        if (i == calls / 2) {
            double h0 = cpu_ms();
            handover();
            in_handover = cpu_ms() - h0;
        }
    }
    printf("shortp_cpu_ms %.3f\nmain_self_cpu_ms %.3f\n", in_shortp,
           cpu_ms() - start - in_shortp - in_handover);
    return 0;
}
