/*
 * cpuwork.h - known CPU work for the demo workload's programs: burn_cpu(ms)
 * keeps the calling thread on the CPU until it has used ms milliseconds of
 * its own CPU time (CLOCK_THREAD_CPUTIME_ID), so a procedure that calls it
 * has a known self time whatever else runs on the machine.
 *
 * It is always inlined and never instrumented: its time is the self time of
 * the procedure that calls it, which is the procedure the tables show.
 * wall_s() is the monotonic wall time in seconds, for programs that run
 * for a fixed wall time (the search's workloads).
 */
#ifndef IPS2_EXAMPLES_CPUWORK_H
#define IPS2_EXAMPLES_CPUWORK_H

#include <time.h>

static inline __attribute__((always_inline, no_instrument_function)) void burn_cpu(double ms)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    double end = (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6 + ms;
    volatile unsigned long spin = 0;
    for (;;) {
        for (int i = 0; i < 1000; i++)
            spin++;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        if ((double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6 >= end)
            break;
    }
}

static inline __attribute__((always_inline, no_instrument_function)) double wall_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

#endif /* IPS2_EXAMPLES_CPUWORK_H */
