/*
 * clock.c - the clocks of libips2.
 *
 * Wall time is the x86 time-stamp counter where it is invariant (10 ns a
 * read on our machines), else CLOCK_MONOTONIC.  The counter's rate is
 * calibrated once per process; sync records pair it with CLOCK_MONOTONIC so
 * that readers never extrapolate far.
 *
 * Process (CPU) time of a thread costs a system call (~400 ns), so the
 * default method, interp, reads it only at sync points: when an event comes
 * more than cpu_param microseconds after the previous sync, or after
 * sync_records records.  Readers interpolate between sync points; the
 * error bound is measured in tests/integration.  exact reads it at every
 * event; tick:<ms> does too but truncates to a coarse tick (paper §5.1).
 * Every CPU reading libips2 records comes from ips2_thread_cpu_ns(), so in
 * tick mode all of them (sync points and the CPU times that wait records
 * keep in their extra words included) are multiples of the tick: a coarse
 * clock with no exact readings mixed in.
 *
 * The header's CLOCK_REALTIME reading (which places the machine's streams
 * in the session) takes IPS2_TEST_CLOCK_OFFSET_NS, a test knob that plays
 * a machine whose clock is off (traces/ips2_clocks.h).
 */
#include <cpuid.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ips2_clocks.h"
#include "runtime.h"

#define DEFAULT_SYNC_US      1000
#define DEFAULT_SYNC_RECORDS 4096
#define CALIBRATE_NS         200000

static int invariant_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
        return 0;
    __get_cpuid(0x80000007, &a, &b, &c, &d);
    return (d >> 8) & 1;
#else
    return 0;
#endif
}

static uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t ips2_mono_ns(void)
{
    return clock_ns(CLOCK_MONOTONIC);
}

uint64_t ips2_real_ns(void)
{
    return clock_ns(CLOCK_REALTIME);
}

/* The thread's CPU time as the trace records it: truncated down to the
 * tick in tick mode, exact otherwise. */
uint64_t ips2_thread_cpu_ns(void)
{
    uint64_t cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);

    if (ips2_proc.cpu_method == IPS2_CPU_TICK) {
        uint64_t tick = (uint64_t)ips2_proc.cpu_param * 1000000u;
        cpu -= cpu % tick;
    }
    return cpu;
}

/* Pairs the counter with CLOCK_MONOTONIC twice, CALIBRATE_NS apart. */
static uint64_t calibrate_tsc(void)
{
    uint64_t m0 = ips2_mono_ns(), t0 = ips2_timer_now(), m1, t1;

    do {
        m1 = ips2_mono_ns();
        t1 = ips2_timer_now();
    } while (m1 - m0 < CALIBRATE_NS);
    return (uint64_t)((double)(t1 - t0) * 1e9 / (double)(m1 - m0));
}

/* Parses IPS2_CPUCLOCK: exact | interp[:us] | tick:<ms>.  Anything else
 * falls back to the default with a warning: never a failure. */
static void parse_cpuclock(const char *s)
{
    char *end;
    unsigned long v;

    ips2_proc.cpu_method = IPS2_CPU_INTERP;
    ips2_proc.cpu_param = DEFAULT_SYNC_US;
    if (s == NULL || *s == '\0')
        return;
    if (strcmp(s, "exact") == 0) {
        ips2_proc.cpu_method = IPS2_CPU_EXACT;
        ips2_proc.cpu_param = 0;
        return;
    }
    if (strncmp(s, "interp", 6) == 0 && (s[6] == '\0' || s[6] == ':')) {
        if (s[6] == '\0')
            return;
        v = strtoul(s + 7, &end, 10);
        if (*end == '\0' && v > 0 && v <= 1000000) {
            ips2_proc.cpu_param = (unsigned)v;
            return;
        }
    } else if (strncmp(s, "tick:", 5) == 0) {
        v = strtoul(s + 5, &end, 10);
        if (*end == '\0' && v > 0 && v <= 100000) {
            ips2_proc.cpu_method = IPS2_CPU_TICK;
            ips2_proc.cpu_param = (unsigned)v;
            return;
        }
    }
    fprintf(stderr,
            "ips2: IPS2_CPUCLOCK=%s not understood (expected exact, interp[:us] or "
            "tick:<ms>); using interp:%u\n",
            s, DEFAULT_SYNC_US);
}

void ips2_clock_setup(const char *cpuclock_env)
{
    ips2_proc.timer = invariant_tsc() ? IPS2_TIMER_TSC : IPS2_TIMER_MONOTONIC;
    ips2_proc.hook_slow = ips2_proc.timer != IPS2_TIMER_TSC; /* filter.c may add to it */
    ips2_proc.tsc_hz = ips2_proc.timer == IPS2_TIMER_TSC ? calibrate_tsc() : 1000000000u;
    ips2_proc.ref_tsc = ips2_timer_now();
    ips2_proc.ref_mono_ns = ips2_mono_ns();
    /* the test knob of ips2_clocks.h: this machine's clock is off by N ns */
    ips2_proc.ref_real_ns = ips2_real_ns() + (uint64_t)ips2_test_clock_offset();

    /* Sync points also pair the timer with CLOCK_MONOTONIC, so every
     * method has them at least every DEFAULT_SYNC_US; only interp has a
     * hot path (exact and tick read the CPU clock at every event). */
    parse_cpuclock(cpuclock_env);
    unsigned sync_us = DEFAULT_SYNC_US;
    ips2_proc.sync_records = 0;
    if (ips2_proc.cpu_method == IPS2_CPU_INTERP) {
        sync_us = ips2_proc.cpu_param;
        ips2_proc.sync_records = DEFAULT_SYNC_RECORDS;
    }
    ips2_proc.sync_ticks = (uint64_t)((double)ips2_proc.tsc_hz * sync_us / 1e6);
    ips2_proc.hot_ticks = ips2_proc.sync_ticks;
    if (ips2_proc.hot_ticks >= 1u << IPS2_SHORT_DELTA_BITS)
        ips2_proc.hot_ticks = (1u << IPS2_SHORT_DELTA_BITS) - 1;
}
