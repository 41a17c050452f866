/*
 * reduce_ext.h - the reduction of a trace directory's external data files
 * (collectors/ips2_external.h) into ips2_reductions.exts (private to
 * slave/; reduce.c calls it).
 */
#ifndef IPS2_SLAVE_REDUCE_EXT_H
#define IPS2_SLAVE_REDUCE_EXT_H

#include <stddef.h>
#include <stdint.h>

struct red_build;

/* Reduces the external data files paths[0..npaths) (sorted, the trace
 * directory's, ips2_trace_dir.h) into b->r->exts for the phase
 * [start, end) of session time (session_start_real: CLOCK_REALTIME of
 * time 0), with histograms of at least interval_ns buckets.  A bad file is
 * reported in b's problems (file, byte offset, what was expected) and what
 * was read before the damage is kept; so are the collectors' notes. */
void red_reduce_ext(struct red_build *b, char *const *paths, size_t npaths,
                    int64_t session_start_real, int64_t start_ns, int64_t end_ns,
                    uint64_t interval_ns);

#endif /* IPS2_SLAVE_REDUCE_EXT_H */
