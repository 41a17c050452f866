/*
 * latency.c - the latency histogram's bucket bounds, merging and
 * percentiles (ips2_latency.h).  The reduction fills dense windows of
 * buckets itself (reduce_thread.h); what travels and what the master
 * merges are the non-empty buckets, kept sorted, so that a merge is one
 * pass over two sorted lists.
 */
#include <stdlib.h>
#include <string.h>

#include "ips2_latency.h"

uint64_t ips2_lat_low(uint32_t bucket)
{
    if (bucket < IPS2_LAT_SUB)
        return bucket;
    /* the inverse of ips2_lat_bucket(): bucket = (s << 6) + (v >> s) */
    unsigned s = (bucket >> IPS2_LAT_SUB_BITS) - 1;
    return (uint64_t)(bucket - (s << IPS2_LAT_SUB_BITS)) << s;
}

uint64_t ips2_lat_high(uint32_t bucket)
{
    if (bucket < IPS2_LAT_SUB)
        return bucket;
    unsigned s = (bucket >> IPS2_LAT_SUB_BITS) - 1;
    return ips2_lat_low(bucket) + ((UINT64_C(1) << s) - 1);
}

uint64_t ips2_lat_mid(uint32_t bucket)
{
    uint64_t low = ips2_lat_low(bucket);
    return low + (ips2_lat_high(bucket) - low) / 2;
}

int ips2_lat_merge(struct ips2_lat *l, const struct ips2_lat_bin *bins, size_t n, uint64_t count,
                   uint64_t sum_ns, uint64_t max_ns)
{
    size_t i = 0, j = 0, k = 0, cap = l->nbins + n;
    struct ips2_lat_bin *out;

    if (n > 0) {
        if (cap == 0 || !(out = malloc(cap * sizeof(*out))))
            return -1;
        while (i < l->nbins || j < n) {
            if (j == n || (i < l->nbins && l->bins[i].bucket < bins[j].bucket))
                out[k++] = l->bins[i++];
            else if (i == l->nbins || bins[j].bucket < l->bins[i].bucket)
                out[k++] = bins[j++];
            else {
                out[k] = l->bins[i++];
                out[k++].count += bins[j++].count;
            }
        }
        free(l->bins);
        l->bins = out;
        l->nbins = k;
        l->cap = cap;
    }
    l->count += count;
    l->sum_ns += sum_ns;
    if (max_ns > l->max_ns)
        l->max_ns = max_ns;
    return 0;
}

int ips2_lat_add(struct ips2_lat *l, uint64_t v)
{
    struct ips2_lat_bin b = {.bucket = ips2_lat_bucket(v), .count = 1};
    return ips2_lat_merge(l, &b, 1, 1, v, v);
}

void ips2_lat_free(struct ips2_lat *l)
{
    free(l->bins);
    memset(l, 0, sizeof(*l));
}

uint64_t ips2_lat_percentile(const struct ips2_lat *l, double q)
{
    uint64_t seen = 0, rank;

    if (l->count == 0 || l->nbins == 0)
        return 0;
    if (!(q > 0))
        q = 0;
    /* ceil(q * count), a product a rounding error above a whole number
     * (0.29 * 100) taken as that number */
    double x = q >= 1 ? (double)l->count : q * (double)l->count;
    rank = (uint64_t)x;
    if ((double)rank < x * (1 - 1e-12))
        rank++;
    if (rank == 0)
        rank = 1;
    if (rank >= l->count)
        return l->max_ns; /* the longest is known exactly */
    for (size_t i = 0; i < l->nbins; i++) {
        seen += l->bins[i].count;
        if (seen >= rank) {
            uint64_t v = ips2_lat_mid(l->bins[i].bucket);
            return v < l->max_ns ? v : l->max_ns;
        }
    }
    return l->max_ns; /* bins that add up to less than count */
}
