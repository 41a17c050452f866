/*
 * latency.h - latency distributions of procedures over a session model
 * (the reductions' lats[], slave/REDUCTION.md §3): the inclusive wall
 * times of a procedure's outermost activations, merged over every thread,
 * process and machine under a node, with count, mean, percentiles and max.
 *
 * A procedure row whose reductions did not record latency (a file older
 * than version 6) makes its name's distribution not available: its cells
 * are "n/a", never zeros.
 */
#ifndef IPS2_MASTER_LATENCY_H
#define IPS2_MASTER_LATENCY_H

#include <stdbool.h>

#include "ips2_latency.h"
#include "model.h"
#include "tables.h"

/* The latency table of node n: one row per procedure name under it (of a
 * procedure node, its own), columns procedure, count, mean, p50, p90,
 * p99, max, total (ns; total = the inclusive wall time, the sum), sorted
 * by the column sort (largest first; "procedure": by name; NULL: total,
 * as the profiles: a server's loop and handlers come first, a one-off
 * start-up call does not hide them as a p99 order would), rows not
 * available last.  NULL with err on a bad sort column or OOM. */
struct ips2_table *ips2_latency_table(struct ips2_model *m, const struct ips2_node *n,
                                      const char *sort, char *err);

/* The merged distribution of procedure name under n into out (zeroed
 * first; free it with ips2_lat_free); *available false if some of its
 * rows had no latency recorded.  0; -1 with err if no procedure of that
 * name is under n, or on OOM. */
int ips2_latency_of(struct ips2_model *m, const struct ips2_node *n, const char *name,
                    struct ips2_lat *out, bool *available, char *err);

/* A distribution's histogram for a plot: log-linear display buckets,
 * per_octave (1 to 64, a power of two) per power of two, from the first
 * non-empty one to the last, empty ones between included; columns low,
 * high (ns, both included), count, percent (of the activations). */
struct ips2_table *ips2_latency_histogram(const struct ips2_lat *l, unsigned per_octave, char *err);

#endif /* IPS2_MASTER_LATENCY_H */
