/* cpuclock.c - spin() burns about argv[1] ms of CPU, nap() sleeps as long,
 * 10 rounds each, so exact CPU time per procedure is known up to the
 * clock: spin ~ 10 x ms, nap ~ 0. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) void spin(double ms)
{
    double end = cpu_ms() + ms;
    while (cpu_ms() < end)
        ;
}

__attribute__((noinline)) void nap(double ms)
{
    struct timespec ts = {0, (long)(ms * 1e6)};
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    double ms = argc > 1 ? atof(argv[1]) : 20;
    for (int i = 0; i < 10; i++) {
        spin(ms);
        nap(ms);
    }
    printf("done\n");
    return 0;
}
