/*
 * reduce_work.c - known procedure calls and CPU work, for the reduction
 * tests (reduce.test).  Each procedure is kept out of line (noipa).
 *
 *   main:    both() twice, light() three times, rec(5), joins worker
 *   both:    heavy() then light()
 *   heavy:   spin(30)          light: spin(10)
 *   rec(n):  rec(n - 1) down to rec(0): 6 activations
 *   worker:  (a second thread) heavy()
 *
 * Calls: main 1, both 2, heavy 3, light 5, spin 8, rec 6, worker 1.
 * spin(ms) busy-loops until the thread has used ms of CPU time, so spin's
 * own CPU time is 3 * 30 + 5 * 10 = 140 ms, heavy's inclusive 30 ms a call
 * and light's 10 ms.  Prints "rec 5".
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#if defined(__GNUC__) && !defined(__clang__)
#define KEEP __attribute__((noinline, noipa))
#else
#define KEEP __attribute__((noinline))
#endif

/* Not a procedure of its own: inlined, and not instrumented anyway. */
static inline __attribute__((always_inline, no_instrument_function)) double cpu_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

KEEP void spin(int ms)
{
    double end = cpu_ms() + ms;
    volatile unsigned long x = 0;

    while (cpu_ms() < end)
        x++;
}

KEEP void heavy(void)
{
    spin(30);
}

KEEP void light(void)
{
    spin(10);
}

KEEP void both(void)
{
    heavy();
    light();
}

KEEP int rec(int n)
{
    return n > 0 ? rec(n - 1) + 1 : 0;
}

KEEP void *worker(void *arg)
{
    heavy();
    return arg;
}

int main(void)
{
    pthread_t t;

    if (pthread_create(&t, NULL, worker, NULL) != 0)
        return 1;
    both();
    both();
    light();
    light();
    light();
    printf("rec %d\n", rec(5));
    pthread_join(t, NULL);
    return 0;
}
