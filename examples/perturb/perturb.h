/*
 * perturb.h - what the perturbation validation programs share
 * (examples/perturb/README.md): the tiny procedure whose calls dominate
 * them, a coarse loop of the same work without calls, the clocks, and
 * the "ref" lines in which each program reports its own timing.
 *
 * Each program is built twice, with plain cc (the untraced reference:
 * no probes at all) and with ips2cc (traced), from the same source; the
 * reference times come from the plain build's own clock readings.
 */
#ifndef PERTURB_H
#define PERTURB_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef GRAIN
#define GRAIN 16 /* steps of tiny(): ~25 ns here, less than a traced call costs */
#endif

/* One step of dependent integer work (an LCG): 4 cycles of latency. */
#define STEP(x) ((x)*6364136223846793005ull + 1442695040888963407ull)

/* The tiny procedure: GRAIN steps.  noinline in both builds, so that the
 * only difference between them is the probes. */
__attribute__((noinline)) static uint64_t tiny(uint64_t x)
{
    for (int i = 0; i < GRAIN; i++)
        x = STEP(x);
    return x;
}

/* The same work as n calls of tiny(), without calls (the loop is kept
 * from being vectorised or folded by the dependence chain). */
static inline uint64_t coarse(uint64_t x, long n)
{
    for (long i = 0; i < n * GRAIN; i++)
        x = STEP(x);
    return x;
}

static inline uint64_t clock_of(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t cpu_ns(void)
{
    return clock_of(CLOCK_THREAD_CPUTIME_ID);
}

static inline uint64_t wall_ns(void)
{
    return clock_of(CLOCK_MONOTONIC);
}

/* A reference time (ns) the validation compares with the traced run's. */
static inline void ref(const char *key, uint64_t ns)
{
    printf("ref %s %llu\n", key, (unsigned long long)ns);
    fflush(stdout);
}

static inline long arg(int argc, char **argv, int i, long dflt)
{
    return argc > i ? atol(argv[i]) : dflt;
}

extern uint64_t perturb_sink; /* results, so that no work is dropped */

#endif /* PERTURB_H */
