/*
 * ticks.h - timer ticks to nanoseconds, exactly, without a division
 * (private to traces/: the reader's clocks).
 *
 * A stream's TSC timer runs at tsc_hz; the reader converts tick counts to
 * nanoseconds at every event, floor(ticks * 1e9 / hz).  A 128-bit division
 * per event costs more than the rest of the decoding, so the division by
 * the stream's constant hz is done as a multiplication by its reciprocal
 * (Granlund and Montgomery, "Division by invariant integers using
 * multiplication"; the branch-free unsigned 64-bit scheme of libdivide),
 * exact for every 64-bit dividend.  Tick counts of 2^34 and more, whose product
 * with 1e9 overflows 64 bits, take the 128-bit division.
 */
#ifndef IPS2_TICKS_H
#define IPS2_TICKS_H

#include <stdbool.h>
#include <stdint.h>

#define IPS2_TICKS_FAST_MAX (1ull << 34) /* ticks * 1e9 fits in 64 bits below this */

struct ips2_ticks {
    uint64_t hz;    /* divisor; 0: ticks are nanoseconds already */
    uint64_t magic; /* 0: hz is a power of two */
    unsigned shift;
};

/* Sets t up for ticks at hz per second; hz 0 means the ticks are ns.
 * The branch-free scheme: every divisor but 1 takes the same steps. */
static inline void ips2_ticks_init(struct ips2_ticks *t, uint64_t hz)
{
    t->hz = hz;
    t->magic = 0;
    t->shift = 0;
    if (hz <= 1)
        return;
    unsigned log2 = 63u - (unsigned)__builtin_clzll(hz);
    if ((hz & (hz - 1)) == 0) {
        t->shift = log2 - 1;
        return;
    }
    unsigned __int128 big = (unsigned __int128)1 << (64 + log2);
    uint64_t magic = (uint64_t)(big / hz), rem = (uint64_t)(big % hz);
    uint64_t twice = rem + rem;
    magic += magic;
    if (twice >= hz || twice < rem)
        magic += 1;
    t->magic = magic + 1;
    t->shift = log2;
}

/* floor(n / hz) for any 64-bit n (hz > 1).  Takes t by value, so that
 * a loop keeps its fields in registers. */
static inline uint64_t ips2_ticks_divide(struct ips2_ticks t, uint64_t n)
{
    uint64_t q = (uint64_t)(((unsigned __int128)t.magic * n) >> 64);
    return (((n - q) >> 1) + q) >> t.shift;
}

/* floor(ticks * 1e9 / hz): the nanoseconds of a tick count. */
static inline uint64_t ips2_ticks_ns(const struct ips2_ticks *t, uint64_t ticks)
{
    if (t->hz == 0)
        return ticks;
    if (__builtin_expect(ticks < IPS2_TICKS_FAST_MAX && t->hz > 1, 1))
        return ips2_ticks_divide(*t, ticks * 1000000000ull);
    return (uint64_t)((unsigned __int128)ticks * 1000000000u / t->hz);
}

#endif /* IPS2_TICKS_H */
