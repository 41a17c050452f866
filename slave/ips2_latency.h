/*
 * ips2_latency.h - latency distributions: a log-linear bucket histogram
 * of durations (ns) that merges exactly, and percentiles from it.
 *
 * Buckets (log-linear, as HdrHistogram's).  Durations below 2^7 ns have
 * a bucket each (exact).  Above, every power of two [2^e, 2^(e+1)) is cut
 * into IPS2_LAT_SUB (64) buckets of equal width 2^(e-6): a bucket's width
 * is at most 1/64 of its lower bound.
 * A bucket is represented by its midpoint, so the value given for any
 * duration in it is within 1/128 (0.78 %) of that duration, and a
 * percentile is within 0.78 % of the true order statistic of the same
 * rank (and exact below 128 ns).  IPS2_LAT_BUCKETS indexes cover every
 * uint64 duration.
 *
 * Merging is adding counts bucket by bucket, so the histograms of a
 * procedure's threads, processes and machines add up exactly; count,
 * sum and max travel beside the buckets and merge exactly too.
 *
 * Percentile q (0 < q <= 1): the value of rank ceil(q * count) (1-based)
 * in ascending order, i.e. the smallest duration with at least q of the
 * activations at or below it; read as the midpoint of the bucket holding
 * that rank, clamped to the exact max (which the last rank is).
 */
#ifndef IPS2_LATENCY_H
#define IPS2_LATENCY_H

#include <stddef.h>
#include <stdint.h>

#define IPS2_LAT_SUB_BITS 6
#define IPS2_LAT_SUB      (1u << IPS2_LAT_SUB_BITS)                 /* buckets per power of two */
#define IPS2_LAT_BUCKETS  ((65 - IPS2_LAT_SUB_BITS) * IPS2_LAT_SUB) /* 3776 */

/* One non-empty bucket. */
struct ips2_lat_bin {
    uint32_t bucket; /* < IPS2_LAT_BUCKETS */
    uint64_t count;
};

/* The bucket of a duration (ns). */
static inline uint32_t ips2_lat_bucket(uint64_t v)
{
    /* without a branch: below 2^7, e is 6 and the bucket v itself */
    unsigned e = 63u - (unsigned)__builtin_clzll(v | IPS2_LAT_SUB); /* >= IPS2_LAT_SUB_BITS */
    unsigned s = e - IPS2_LAT_SUB_BITS;
    return (uint32_t)((s << IPS2_LAT_SUB_BITS) + (v >> s));
}

/* A bucket's bounds: [low, high], both included; and the value that
 * stands for it (its midpoint, rounded down). */
uint64_t ips2_lat_low(uint32_t bucket);
uint64_t ips2_lat_high(uint32_t bucket);
uint64_t ips2_lat_mid(uint32_t bucket);

/* A distribution being merged (the master's): non-empty buckets in
 * ascending order, exact count, sum and max. */
struct ips2_lat {
    uint64_t count, sum_ns, max_ns;
    struct ips2_lat_bin *bins;
    size_t nbins, cap;
};

/* Adds n bins (ascending buckets) of count activations, sum and max
 * into l; 0, or -1 on OOM (l unchanged). */
int ips2_lat_merge(struct ips2_lat *l, const struct ips2_lat_bin *bins, size_t n, uint64_t count,
                   uint64_t sum_ns, uint64_t max_ns);
/* Adds one duration (for tests and small tools); 0 or -1 on OOM. */
int ips2_lat_add(struct ips2_lat *l, uint64_t v);
void ips2_lat_free(struct ips2_lat *l);

/* The q-percentile (0 < q <= 1) as above; 0 for an empty distribution. */
uint64_t ips2_lat_percentile(const struct ips2_lat *l, double q);

#endif /* IPS2_LATENCY_H */
