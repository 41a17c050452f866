/*
 * slave_merge.h - one machine's reductions out of several trace
 * directories: the active session's and those of old sessions replayed
 * beside it, each keeping only some applications (replay -apps) and
 * renaming them (replay -prefix).  The slave encodes the result and sends
 * it as the machine's reductions.
 */
#ifndef IPS2_SLAVE_MERGE_H
#define IPS2_SLAVE_MERGE_H

#include <stdbool.h>
#include <stddef.h>

#include "ips2_reductions.h"

struct slave_merge_src {
    const struct ips2_reductions *r;
    const char *const *apps; /* keep processes of these applications; NULL/0: all */
    size_t napps;
    const char *prefix; /* application names become prefix + name; NULL: unchanged */
    bool machine;       /* keep its external data of the machine as a whole (the active run's) */
};

/* Builds reductions holding every kept process of the sources, with their
 * threads, procedures, arcs, histograms, objects, latency distributions
 * (when every source has them), external data (its
 * processes', and the machine's of sources marked so) and all problems, plus
 * `extra` problems, for machine `machine` on `host`.  The phase and sample
 * interval are the first source's; events and bytes are summed.  The
 * result borrows strings, histogram values and latency buckets from the sources: encode it
 * before they are freed, and free it with slave_merge_free() (never with
 * ips2_reductions_free()).  NULL when out of memory. */
struct ips2_reductions *slave_merge(const struct slave_merge_src *src, size_t nsrc,
                                    const char *machine, const char *host, const char *const *extra,
                                    size_t nextra);
void slave_merge_free(struct ips2_reductions *merged);

#endif /* IPS2_SLAVE_MERGE_H */
