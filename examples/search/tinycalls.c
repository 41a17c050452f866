/*
 * tinycalls.c - planted: tiny procedures at a very high call rate (search
 * workload tinycalls.tcl).  checksum() calls mix(), a procedure of a few
 * instructions, N times in a tight loop: millions of calls a second, so
 * that tracing each entry and exit costs more than the work itself.  The
 * decoy: load_words() computes for 150 ms once at the start (a procedure
 * with moderate CPU and one call).
 *
 *   tinycalls -calls N
 *
 * Truth: instBottleneck, the procedure that costs most to trace being mix;
 * load_words never reported.  Exit status 0, 2 for bad usage.
 */
#include <stdio.h>

#include "../workloads/cpuwork.h"
#include "../workloads/options.h"

__attribute__((noinline)) static unsigned mix(unsigned h, unsigned v)
{
    return (h ^ v) * 16777619u;
}

__attribute__((noinline)) static unsigned checksum(long calls)
{
    unsigned h = 2166136261u;
    for (long i = 0; i < calls; i++)
        h = mix(h, (unsigned)i);
    return h;
}

__attribute__((noinline)) static void load_words(void)
{
    burn_cpu(150.0);
}

int main(int argc, char **argv)
{
    int calls = 8000000;
    const struct opt opts[] = {{"-calls", OPT_INT, &calls}};
    if (READ_OPTIONS(argc, argv, opts) != 0 || calls < 1) {
        fprintf(stderr, "usage: tinycalls -calls N\n");
        return 2;
    }
    load_words();
    printf("tinycalls: %d calls, checksum %08x\n", calls, checksum(calls));
    return 0;
}
