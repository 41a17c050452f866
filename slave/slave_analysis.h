/*
 * slave_analysis.h - what ips2slave does with a machine's traces once its
 * processes have ended: reduce the active session's trace directory and
 * every replayed one (slave_analysis.c), merge them into the machine's
 * reductions.  (The raw streams are packed by the trace library's
 * ips2_pack_dir(), as ips2-pack does.)
 */
#ifndef IPS2_SLAVE_ANALYSIS_H
#define IPS2_SLAVE_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slave_proto.h"

/* Called with a problem's text; also called for problems that end up in
 * the reductions, so the caller may log them as they happen. */
typedef void slave_problem_fn(void *arg, const char *text);
typedef void slave_progress_fn(void *arg, uint64_t done, uint64_t total);

struct slave_analysis {
    const char *machine, *host;
    const char *trace_dir; /* the active session's, SESSION/traces/MACHINE */
    int64_t session_start; /* CLOCK_REALTIME ns */
    int64_t interval_ns;
    bool clones; /* procedures named as their symbols are written (ips2_reduce_options) */
    const struct slave_replay *replays;
    size_t nreplays;
    slave_progress_fn *progress;
    void *progress_arg;
    void (*part)(void *arg, const char *path); /* each PAG part written, or NULL */
    void *part_arg;
};

/* Reduces everything (the whole run), merges and encodes.
 * Problems (a directory that cannot be read, an expected process of a
 * replay without a trace) go into the reductions and are counted in
 * *nproblems.  Returns the encoded bytes (malloc'd, *size set), or NULL
 * with err set when not even empty reductions could be made. */
void *slave_analyse(const struct slave_analysis *a, size_t *size, char *err, size_t errsize);

#endif /* IPS2_SLAVE_ANALYSIS_H */
