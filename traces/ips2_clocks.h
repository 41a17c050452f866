/*
 * ips2_clocks.h - the clocks of several machines (docs/CLOCKS.md).
 *
 * Every machine's wall times are its own CLOCK_REALTIME; the master's is
 * the session's time base.  When a slave starts, it measures its machine's
 * offset from the master's clock with a few round trips through PVM, as
 * NTP does (ips2_clock_estimate), and keeps the estimate beside the
 * machine's traces (TRACE_DIR/clock, ips2_clock_write/read), where every
 * reader of that directory finds it: the reduction shifts every wall time
 * of the directory into the master's time base with it (the one hook is in
 * ips2_reduce_dir).
 *
 * The test knob: IPS2_TEST_CLOCK_OFFSET_NS=N makes libips2, the collectors
 * and ips2slave read CLOCK_REALTIME + N, a machine whose clock is off by N
 * ns; IPS2_TEST_CLOCK_OFFSETS="MACHINE=N ..." in the master's environment
 * gives each slave its machine's N (the slave sets IPS2_TEST_CLOCK_OFFSET_NS
 * for itself and what it starts).  For tests only: real clocks disagree on
 * their own.
 */
#ifndef IPS2_CLOCKS_H
#define IPS2_CLOCKS_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define IPS2_TEST_CLOCK_ENV  "IPS2_TEST_CLOCK_OFFSET_NS"
#define IPS2_TEST_CLOCKS_ENV "IPS2_TEST_CLOCK_OFFSETS"
#define IPS2_CLOCK_FILE      "clock"
/* An offset or bound beyond a day is no clock's error: refused. */
#define IPS2_CLOCK_MAX_NS INT64_C(86400000000000)

/* The test knob's offset in ns: IPS2_TEST_CLOCK_OFFSET_NS if it is an
 * integer within +-IPS2_CLOCK_MAX_NS, else 0.  Inline, so that libips2
 * and the collectors need no library for it. */
static inline int64_t ips2_test_clock_offset(void)
{
    const char *v = getenv(IPS2_TEST_CLOCK_ENV);
    char *end;
    if (v == NULL || *v == '\0')
        return 0;
    long long n = strtoll(v, &end, 10);
    if (*end != '\0' || n > IPS2_CLOCK_MAX_NS || n < -IPS2_CLOCK_MAX_NS)
        return 0;
    return (int64_t)n;
}

/* One exchange: t0 the machine sent, t1 the reference (master) received,
 * t2 it answered, t3 the machine received; t0, t3 on the machine's clock,
 * t1, t2 on the reference's. */
struct ips2_clock_sample {
    int64_t t0, t1, t2, t3;
};

struct ips2_clock_est {
    int64_t offset;   /* machine's clock minus the reference's, ns */
    int64_t error;    /* the true offset is within offset +- error: half the round trip */
    int64_t rtt;      /* the round trip of the exchange used, the reference's time excluded */
    uint32_t samples; /* exchanges made */
};

/* The estimate of the exchange with the least round trip:
 * offset = ((t0 - t1) + (t3 - t2)) / 2, error = rtt / 2 rounded up, where
 * rtt = (t3 - t0) - (t2 - t1).  Exchanges with a negative time on either
 * side are left out.  0, or -1 if no exchange is usable. */
int ips2_clock_estimate(const struct ips2_clock_sample *s, size_t n, struct ips2_clock_est *e);

/* DIR/clock: "ips2-clock 1" and one "offset N", "error N", "rtt N",
 * "samples N" line each.  write: 0, or -1 with err.  read: 1 with *e
 * filled, 0 if there is no such file (*e zeroed), -1 with err if there is
 * one that is not that (never trusted). */
int ips2_clock_write(const char *dir, const struct ips2_clock_est *e, char *err, size_t errlen);
int ips2_clock_read(const char *dir, struct ips2_clock_est *e, char *err, size_t errlen);

#endif /* IPS2_CLOCKS_H */
