/*
 * pagefault.c - planted: a burst of page faults in one phase (search
 * workload pagefault.tcl, run with the os collector).  Phase one,
 * build_index(), touches fresh memory for F seconds of the process's CPU
 * time: it maps 32 MiB, writes one word in every page (a zero-fill fault
 * each), unmaps it and starts over, so it faults tens of thousands of
 * times a second.  Phase two, compute_scores(), computes for C seconds of
 * CPU in the memory it already has: next to no faults.
 *
 *   pagefault -faulting F -compute C
 *
 * Truth: tooManyPageFaults with an interval that covers build_index's
 * phase (the first F seconds or so) and not compute_scores's.  The decoy
 * is the compute phase: CPU work after the burst, which must not stretch
 * the interval.  Exit status 0, 1 when mmap fails, 2 for bad usage.
 */
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../workloads/cpuwork.h"
#include "../workloads/options.h"

#define REGION (32UL << 20)

static double process_cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

__attribute__((noinline)) static long build_index(double seconds)
{
    long page = sysconf(_SC_PAGESIZE), touched = 0;
    double end = process_cpu_s() + seconds;
    while (process_cpu_s() < end) {
        char *mem = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mem == MAP_FAILED)
            return -1;
        for (unsigned long off = 0; off < REGION; off += (unsigned long)page) {
            mem[off] = (char)touched;
            touched++;
        }
        munmap(mem, REGION);
    }
    return touched;
}

__attribute__((noinline)) static void compute_scores(double seconds)
{
    burn_cpu(seconds * 1e3);
}

int main(int argc, char **argv)
{
    double faulting = 1.0, compute = 1.5;
    const struct opt opts[] = {
        {"-faulting", OPT_DOUBLE, &faulting},
        {"-compute", OPT_DOUBLE, &compute},
    };
    if (READ_OPTIONS(argc, argv, opts) != 0 || faulting <= 0 || compute < 0) {
        fprintf(stderr, "usage: pagefault -faulting F -compute C\n");
        return 2;
    }
    long touched = build_index(faulting);
    if (touched < 0) {
        perror("pagefault: mmap");
        return 1;
    }
    compute_scores(compute);
    printf("pagefault: %ld pages touched\n", touched);
    return 0;
}
