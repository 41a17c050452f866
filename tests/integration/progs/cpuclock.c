/*
 * cpuclock.c - spin() burns argv[1] ms of CPU and nap() sleeps as long, 10
 * rounds each.  Both measure their own CPU time with the exact thread
 * clock and main prints the totals, the truth against which a test checks
 * the process time that the trace gives them (nap's is the sleep's
 * system-call time, well under a millisecond a call).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noipa)) double spin(double ms)
{
    double start = cpu_ms(), now;
    while ((now = cpu_ms()) < start + ms)
        ;
    return now - start;
}

__attribute__((noipa)) double nap(double ms)
{
    struct timespec ts = {0, (long)(ms * 1e6)};
    double start = cpu_ms();
    nanosleep(&ts, NULL);
    return cpu_ms() - start;
}

int main(int argc, char **argv)
{
    double ms = argc > 1 ? atof(argv[1]) : 20, spent = 0, napped = 0;
    for (int i = 0; i < 10; i++) {
        spent += spin(ms);
        napped += nap(ms);
    }
    printf("spin_cpu_ms %.3f\nnap_cpu_ms %.3f\n", spent, napped);
    return 0;
}
