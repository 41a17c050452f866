/*
 * tables.h - the master's tables over a session model (model.h): metric
 * table of a node, multi-application metric table (paper Fig. 8), profile
 * table, NPT profile, gprof tables and time histograms.
 *
 * A table is columns (name, unit) and rows of cells; tcl_tables.c turns it
 * into the dict {columns {{NAME UNIT} ...} rows {{...} ...}} of ANALYSTS.md
 * §6.  Times are integer ns; NPT is rounded to the ns.
 *
 * Metrics by name: the reductions' metrics (ips2_metric_name(): cpu, wall,
 * calls, ...; a node's value is the sum over its threads, or over its
 * procedure rows for a procedure node, where they are exclusive/self
 * values) and these derived ones:
 *     incl_cpu, incl_wall   procedure nodes: inclusive times, ns
 *     elapsed               other nodes: last end - first start, ns
 *     npt                   normalized processor time, ns (below)
 *     processes, threads    other nodes: how many under it
 *
 * NPT (Anderson and Lazowska's Quartz normalized processor time).  Each
 * thread's CPU histogram is cut into buckets of a common width W (the
 * widest of the histograms involved).  The concurrency of bucket b is
 *     c(b) = max(1, sum over threads of cpu(b) / W),
 * the number of threads running at once on average in it, counted over the
 * threads of the node's tree (its application, or for the physical tree the
 * whole workload) that belong to the same run as the thread (the active
 * session, or one replayed session).  The NPT of a thread is
 *     sum over b of cpu_thread(b) / c(b),
 * of a procedure row the same over its own CPU histogram, of a node the sum
 * over its threads (rows).  Over any interval in which at least one thread
 * runs, the NPTs of all threads add up to its length.  A thread without a
 * CPU histogram counts with c = 1; a procedure row without one gets its
 * thread's ratio npt/cpu.
 */
#ifndef IPS2_MASTER_TABLES_H
#define IPS2_MASTER_TABLES_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

enum ips2_cell_type { IPS2_CELL_STR = 0, IPS2_CELL_INT, IPS2_CELL_REAL };

struct ips2_cell {
    enum ips2_cell_type type;
    union {
        char *s;
        int64_t i;
        double d;
    } u;
};

struct ips2_table {
    size_t ncols, nrows, caprows;
    char **col_name, **col_unit;
    struct ips2_cell *cell; /* row r, column c at [r * ncols + c] */
};

struct ips2_table *ips2_table_new(size_t ncols);
void ips2_table_free(struct ips2_table *t);
/* Sets column c's name and unit; 0 or -1 (OOM). */
int ips2_table_column(struct ips2_table *t, size_t c, const char *name, const char *unit);
/* Appends an empty row; its index, or -1 (OOM). */
long ips2_table_row(struct ips2_table *t);
int ips2_table_str(struct ips2_table *t, size_t row, size_t c, const char *s);
void ips2_table_int(struct ips2_table *t, size_t row, size_t c, int64_t v);
void ips2_table_real(struct ips2_table *t, size_t row, size_t c, double v);
const struct ips2_cell *ips2_table_at(const struct ips2_table *t, size_t row, size_t c);
/* Column index by name, or -1. */
int ips2_table_find_column(const struct ips2_table *t, const char *name);

/* ------------------------------------------------------------- metrics --- */

enum ips2_derived_metric {
    IPS2_X_INCL_CPU = IPS2_M_COUNT,
    IPS2_X_INCL_WALL,
    IPS2_X_ELAPSED,
    IPS2_X_NPT,
    IPS2_X_PROCESSES,
    IPS2_X_THREADS,
    IPS2_X_COUNT,
};

/* Metric index (IPS2_M_* or IPS2_X_*) by name, or -1. */
int ips2_metric_lookup(const char *name);
const char *ips2_any_metric_name(int metric);
const char *ips2_any_metric_unit(int metric);
const char *ips2_any_metric_description(int metric);
/* Whether the metric has a value for this kind of node. */
int ips2_metric_applies(int metric, enum ips2_node_kind kind);
/* A node's value of a metric; 0 or -1 with err (NPT can fail on OOM). */
int ips2_node_value(struct ips2_model *m, const struct ips2_node *n, int metric, double *value,
                    char *err);

/* Every metric a table or histogram can show: columns metric, unit, levels
 * (the node kinds it has a value for), histogram (yes if it has time
 * histograms) and description. */
struct ips2_table *ips2_metric_list_table(char *err);
/* The metric table of a node: columns metric, value, unit.  An external
 * metric that no collector measured under the node has no value: its cell
 * is the empty string (n/a), in the multi-application table too. */
struct ips2_table *ips2_metric_table(struct ips2_model *m, const struct ips2_node *n, char *err);

/* One column per application (paper Fig. 8): metric, unit, then one per
 * application (its app:A node).  Unknown names give an error. */
struct ips2_table *ips2_multi_app_table(struct ips2_model *m, const char *const *apps, size_t napps,
                                        char *err);

/* Profile: metric of every node of level under n, sorted by value
 * (largest first, then by path), with % of their total; of an inclusive
 * time, as inclusive times nest and their total means nothing, % of n's
 * cpu (incl_cpu) or elapsed time (incl_wall): main ~100%.  Columns: name,
 * path, METRIC, percent.  by_name merges the rows of equal name (columns
 * name, nodes, METRIC, percent). */
struct ips2_table *ips2_profile_table(struct ips2_model *m, const struct ips2_node *n,
                                      enum ips2_node_kind level, int metric, int by_name,
                                      char *err);

/* NPT profile: columns name, path (or nodes), cpu, npt, percent (of the
 * rows' NPT total), sorted by NPT. */
struct ips2_table *ips2_npt_table(struct ips2_model *m, const struct ips2_node *n,
                                  enum ips2_node_kind level, int by_name, char *err);

/* Synchronisation objects waited for under n (not a procedure): one row
 * per object (kind, and id in hex; a process-private object also by its
 * process), columns kind, object, name (as the reduction named it:
 * "mutex:hot_lock", "mutex:heap@init_table", ...; KIND:ID if it did not),
 * pid (0 for a process-shared one), waits, wait, spin, percent (of the
 * rows' wait), sorted by wait.  Kinds are
 * ips2_sync_type's (mutex, rwlock, rwlock_write, spin, cond, barrier, sem,
 * user_lock, user_barrier). */
struct ips2_table *ips2_objects_table(struct ips2_model *m, const struct ips2_node *n, char *err);

/* Who held the locks under n (not a procedure): one row per lock (as in
 * the objects table) and procedure that acquired it, columns kind, object,
 * name, pid, procedure ("<none>" outside every procedure), acquisitions,
 * hold (ns from acquisition to release), mean (hold per acquisition, ns),
 * percent (of that lock's hold time), sorted by hold. */
struct ips2_table *ips2_holders_table(struct ips2_model *m, const struct ips2_node *n, char *err);

/* ----------------------------------------------------------- histograms --- */

/* Bucket i covers [origin + i * width, origin + (i + 1) * width). */
struct ips2_hist {
    int64_t origin;
    uint64_t width;
    size_t n;
    double *v;
};

void ips2_hist_free(struct ips2_hist *h);

/* Adds a series (origin, width, n, v) times scale into dst, each bucket
 * spread over dst's buckets in proportion to their overlap (exact when
 * the grids line up).  Parts outside dst are dropped. */
void ips2_hist_rebin(struct ips2_hist *dst, int64_t origin, uint64_t width, size_t n,
                     const double *v, double scale);

/* The histogram of a metric (IPS2_M_* or IPS2_X_NPT) of a node: the sum of
 * its threads' (procedure rows') histograms on a common grid whose width
 * is the widest of theirs, at least min_width; comparison-mode data
 * shifted.  *missing gets the threads (rows) that had no histogram of it.
 * 0, or -1 with err set. */
int ips2_node_histogram(struct ips2_model *m, const struct ips2_node *n, int metric,
                        uint64_t min_width, struct ips2_hist *out, size_t *missing, char *err);

/* The NPT of a node (see above), ns.  0, or -1 with err set (OOM). */
int ips2_node_npt(struct ips2_model *m, const struct ips2_node *n, double *npt, char *err);

/* A histogram as a table: columns start, end, METRIC; rows restricted to
 * [from, to) (bucket bounds clipped to it). */
struct ips2_table *ips2_histogram_table(const struct ips2_hist *h, int metric, int64_t from,
                                        int64_t to, char *err);

/* ----------------------------------------------------------------- gprof --- */

/* The gprof tables of a node (not a procedure): the flat profile
 *     percent, cumulative, self, calls, self_per_call, total_per_call, name
 * (calls: from other procedures, as gprof counts them; blank cells are "")
 * and the call graph, one row per line of GNU gprof's layout:
 *     index, percent, self, children, called, name, kind
 * (kind: parent, primary, child, or for gprof's cycles of mutually
 * recursive procedures cycle and member; index is the entry's [N] on its
 * row and the referenced entry's N on the others; called is gprof's text:
 * "N", "N+R", "N/M"; blank cells are "").  Procedures of all the node's
 * threads are merged by name.  0, or -1 with err set. */
int ips2_gprof_tables(struct ips2_model *m, const struct ips2_node *n, struct ips2_table **flat,
                      struct ips2_table **graph, char *err);

/* Both tables in GNU gprof's text layout (gprof -b), malloc'd.  clock:
 * NULL when the times come from the exact CPU clock, else how the
 * clock's header text says it ("tick:10 (resolution 10 ms)"), which the
 * text then names instead of calling the times exact. */
char *ips2_gprof_text(const struct ips2_table *flat, const struct ips2_table *graph,
                      const char *clock);

#endif /* IPS2_MASTER_TABLES_H */
