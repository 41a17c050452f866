/*
 * seq.c - (a) sequential, a very high call rate of tiny procedures.
 *
 * work() calls tiny() N times (default 1.5 M); tiny() does about as much
 * as a traced call costs, so raw times are off by 2x or more.  Reports
 * work()'s CPU time ("ref work") and the program's from main's start to
 * its end ("ref cp": a sequential program's critical path is its CPU).
 *
 *   seq [N]
 */
#include "perturb.h"

uint64_t perturb_sink;

__attribute__((noinline)) static uint64_t work(long n)
{
    uint64_t x = 1;
    for (long i = 0; i < n; i++)
        x = tiny(x + (uint64_t)i);
    return x;
}

int main(int argc, char **argv)
{
    uint64_t c0 = cpu_ns();
    long n = arg(argc, argv, 1, 1500000);
    uint64_t w0 = cpu_ns();
    perturb_sink = work(n);
    uint64_t w1 = cpu_ns();
    ref("work", w1 - w0);
    ref("cp", cpu_ns() - c0);
    return perturb_sink == 42;
}
