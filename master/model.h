/*
 * model.h - the master's model of one session: what the manifest says
 * (machines, applications, processes, phases, problems) and the loaded
 * reductions of every machine, indexed into trees.
 *
 * Trees (ANALYSTS.md §6).  One logical tree per application,
 *     app:A / machine:M / process:PID / thread:TID / procedure:NAME
 * and the physical tree, whose root "physical" is the whole workload:
 *     machine:M / process:PID / thread:TID / procedure:NAME
 * A node's path is the chain of its "kind:name" labels joined by "/"
 * ("app:A/machine:M/process:17/thread:17/procedure:main").  A process node
 * gathers every image of its pid (exec keeps the pid), a thread node every
 * stream of its tid in them; a process the manifest names but that left
 * no data (it could not start) is a node without threads, named by its pid
 * or, without one, "#INDEX" (its index in the application).
 *
 * Time.  Reductions are on the session's time base (ns since its time 0).
 * An application replayed in comparison mode is shifted by its SHIFT-NS
 * (manifest "replayed"), so that every start, end and histogram of the
 * model lies on the active session's time base (paper §4.2); the
 * reductions themselves are never changed.
 *
 * External data (collectors) goes onto process nodes (a process's own
 * counts, summed upwards like everything else) and onto a collector node
 * under each machine ("machine:M/collector:os": the machine as a whole,
 * also in the logical trees, not summed into the machine).
 *
 * Aggregates (m[], start/end, counts) are computed once by
 * ips2_model_index(); the tables (tables.h) read them.  Adding anything
 * after indexing makes the next lookup index again.
 *
 * A model owns its reductions and frees them with ips2_reductions_free().
 * Nothing here prints or uses Tcl; errors come back as IPS2_ERR_MAX-byte
 * messages.
 */
#ifndef IPS2_MASTER_MODEL_H
#define IPS2_MASTER_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ips2_error.h" /* ips2_set_error(), the trace library's error formatter */
#include "ips2_reader.h"
#include "ips2_master.h" /* ips2_reduce_fn */
#include "ips2_reductions.h"

enum ips2_mode {
    IPS2_MODE_ACTIVE = 0, /* ran in this session */
    IPS2_MODE_REPLAY,     /* old traces, times as recorded */
    IPS2_MODE_COMPARISON, /* old traces shifted onto the active time base */
};

enum ips2_node_kind {
    IPS2_NODE_ROOT = 0, /* the physical tree's root: the whole workload */
    IPS2_NODE_APP,
    IPS2_NODE_MACHINE,
    IPS2_NODE_PROCESS,
    IPS2_NODE_THREAD,
    IPS2_NODE_PROC,      /* a procedure in a thread */
    IPS2_NODE_COLLECTOR, /* an external data collector of a machine (no level of profiles) */
};

/* Whether a metric comes from the external data collectors (exts[] of the
 * reductions: process and machine values, never a thread's). */
static inline bool ips2_metric_is_external(int metric)
{
    return metric == IPS2_M_PAGE_FAULTS || metric == IPS2_M_CTX_SWITCHES ||
           (metric >= IPS2_M_MINOR_FAULTS && metric <= IPS2_M_CYCLES);
}

struct ips2_machine_info {
    char *name, *host;
    int64_t offset_ns; /* CLOCK_REALTIME minus CLOCK_MONOTONIC on it */
};

struct ips2_app_info {
    char *name;
    enum ips2_mode mode;
    char *source;     /* "" or the replayed session directory */
    int64_t shift_ns; /* added to its times (comparison mode only) */
};

/* A process as the manifest describes it. */
struct ips2_proc_info {
    char *app, *machine;
    int index;     /* in its application */
    uint32_t pid;  /* 0 if it never started */
    char *command; /* Tcl list */
    char *status;  /* "exited N", "signal N", "failed TEXT", "timeout" */
};

/* One loaded reductions object and the indices built over it. */
struct ips2_red_slot {
    struct ips2_reductions *r;
    char *source;      /* NULL: applications by name; else only those replayed from it */
    int *app_of;       /* per process: model application, or -1 to leave out */
    uint32_t *arc_at;  /* per thread: first of its arcs in arc_ix (nthreads + 1) */
    uint32_t *arc_ix;  /* arc indices grouped by thread */
    uint32_t *hist_at; /* per thread: first of its histograms in hist_ix */
    uint32_t *hist_ix; /* histogram indices grouped by thread */
    struct ips2_red_hist *ext_hist; /* per exts[] row: its buckets as a histogram (borrowed) */
};

/* A reference to a thread (or a procedure row) of a slot. */
struct ips2_ref {
    uint32_t slot;
    uint32_t row; /* threads[] for a thread node, procs[] for a procedure node */
};

struct ips2_node {
    enum ips2_node_kind kind;
    char *name; /* label without its kind: "A", "M", "1234", "main" */
    char *path;
    struct ips2_node *parent;
    struct ips2_node **child;
    size_t nchild, capchild;
    int app;               /* application index; -1 in the physical tree (but see below) */
    int owner;             /* PROCESS and below: the application the data belongs to */
    struct ips2_ref *refs; /* THREAD: its threads; PROC: its procedure rows */
    size_t nrefs, caprefs;
    struct ips2_ref *ext; /* PROCESS, COLLECTOR: its rows of exts[] (external data) */
    size_t next, capext;
    const struct ips2_proc_info *info; /* PROCESS: the manifest's entry, or NULL */
    /* aggregates, shifted onto the active time base */
    uint64_t m[IPS2_M_COUNT];
    uint64_t incl_cpu, incl_wall; /* PROC */
    int64_t start_ns, end_ns;     /* first start, last end; start > end without data */
    uint32_t nprocesses, nthreads;
    /* PROCESS: from the reductions when the manifest does not say */
    const char *command, *exe;
    char status[64];
};

struct ips2_phase {
    char *name;
    int64_t start_ns, end_ns; /* [start, end) on the active time base */
    struct ips2_model *view;  /* the model restricted to it, once asked for */
};

struct ips2_reducer {
    ips2_reduce_fn *reduce; /* NULL: ips2_reduce_dir in this process */
    void *arg;
    void (*release)(void *arg); /* called when the model is freed, or NULL */
};

/* The NPT concurrency a model keeps between queries (histograms.c);
 * the model frees it with itself. */
struct ips2_npt_cache;
void ips2_npt_cache_free(struct ips2_npt_cache *c);

struct ips2_model {
    char *dir;             /* session directory, or NULL for a model built in memory */
    int64_t start_real_ns; /* CLOCK_REALTIME of time 0 */
    uint64_t interval_ns;  /* sample interval (from the reductions), 0 if unknown */

    struct ips2_machine_info *machines;
    size_t nmachines;
    struct ips2_app_info *apps;
    size_t napps;
    struct ips2_proc_info *pinfo;
    size_t npinfo;
    struct ips2_phase *phases;
    size_t nphases;
    char **problems;
    size_t nproblems;

    struct ips2_red_slot *slots;
    size_t nslots;

    struct ips2_reducer reducer;
    bool phase_view;                      /* a model restricted to a phase (phases.c) ... */
    int64_t phase_start_ns, phase_end_ns; /* ... to this interval */

    /* built by ips2_model_index() */
    bool indexed;
    struct ips2_node *physical;
    struct ips2_node **app_root; /* napps */
    struct ips2_node_table *paths;
    struct ips2_npt_cache *npt;
};

/* Builds an empty model; NULL on OOM. */
struct ips2_model *ips2_model_new(void);
void ips2_model_free(struct ips2_model *m);

/* Session facts (the manifest).  All return 0, or -1 with err set. */
int ips2_model_set_session(struct ips2_model *m, const char *dir, int64_t start_real_ns, char *err);
int ips2_model_add_machine(struct ips2_model *m, const char *name, const char *host,
                           int64_t offset_ns, char *err);
/* Adds an application, or updates its mode and source if it exists. */
int ips2_model_add_app(struct ips2_model *m, const char *name, enum ips2_mode mode,
                       const char *source, char *err);
/* The time shift of a replayed application (its mode decides whether it applies). */
int ips2_model_set_shift(struct ips2_model *m, const char *app, const char *source,
                         int64_t shift_ns, char *err);
int ips2_model_add_process(struct ips2_model *m, const char *app, const char *machine, int index,
                           uint32_t pid, const char *command, const char *status, char *err);
/* Records a problem (printf-style), once per distinct text. */
void ips2_model_problem(struct ips2_model *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Takes r (also on failure, when it is freed): a machine's reductions,
 * every application in it by name (unknown ones are added, active).
 * Checks every index of r; returns 0, or -1 with err set when r is
 * unusable. */
int ips2_model_add_reductions(struct ips2_model *m, struct ips2_reductions *r, char *err);

/* The same for the reductions of one run's traces (a phase reduction):
 * only the applications whose source is source ("" = the active session)
 * and whose time shift is shift take part, each found by its name in that
 * run, or as the application whose name ends with it (replayed with a
 * -prefix). */
int ips2_model_add_run_reductions(struct ips2_model *m, struct ips2_reductions *r,
                                  const char *source, int64_t shift, char *err);

/* Builds the trees and the aggregates.  0, or -1 with err set (OOM). */
int ips2_model_index(struct ips2_model *m, char *err);

/* Looks a node up by its path; indexes first if needed.  NULL if none. */
struct ips2_node *ips2_model_find(struct ips2_model *m, const char *path);

/* The root of an application's logical tree, or NULL. */
struct ips2_node *ips2_model_app_root(struct ips2_model *m, const char *app);
int ips2_model_app_index(const struct ips2_model *m, const char *app);
int ips2_model_machine_index(const struct ips2_model *m, const char *name);

/* The root of a node's tree (the application, or the physical root). */
const struct ips2_node *ips2_node_root(const struct ips2_node *n);
/* "app", "machine", "process", "thread", "procedure", "physical" */
const char *ips2_node_kind_name(enum ips2_node_kind kind);
/* Level name to kind; -1 if not a level name. */
int ips2_node_kind_parse(const char *level);

/* The application a node's data belongs to (-1 above the process level in
 * the physical tree), and its time shift. */
int64_t ips2_model_shift_of(const struct ips2_model *m, int app);

/* Calls fn for every thread reference under n (procedure nodes: none). */
void ips2_node_threads(const struct ips2_node *n,
                       void (*fn)(void *arg, const struct ips2_node *thread,
                                  const struct ips2_ref *ref),
                       void *arg);

/* Accessors for a reference. */
static inline const struct ips2_reductions *ips2_ref_red(const struct ips2_model *m,
                                                         const struct ips2_ref *ref)
{
    return m->slots[ref->slot].r;
}

/* ---------------------------------------------------------- phases.c --- */

/* Defines (or redefines) a phase [start, end) on the active time base. */
int ips2_phase_define(struct ips2_model *m, const char *name, int64_t start_ns, int64_t end_ns,
                      char *err);
const struct ips2_phase *ips2_phase_find(const struct ips2_model *m, const char *name);

/* The model restricted to a phase, from phase reductions of every
 * machine's traces (asked of m->reducer, or made in this process), built on
 * first use and kept.  Machines that cannot be reduced are named in the
 * problems of both models; NULL with err set if none could be. */
struct ips2_model *ips2_phase_view(struct ips2_model *m, const char *name, char *err);

/* ips2_phase_view in three steps, so that the reductions can run on
 * another thread: a job made on the model's thread from a copy of what it
 * needs (NULL with err: no such phase, out of memory), run on any thread
 * (it touches only itself; but a reducer other than this process's, the
 * PVM part's, is for the model's thread only: ips2_phase_job_in_process),
 * and finished on the model's thread: the view is kept in the phase if the
 * phase is still as it was, the machines not reduced are the model's
 * problems; 0, or -1 with err; the job is freed. */
struct ips2_phase_job;
bool ips2_phase_pending(const struct ips2_model *m, const char *name); /* defined, no view yet */
struct ips2_phase_job *ips2_phase_job_new(const struct ips2_model *m, const char *name, char *err);
bool ips2_phase_job_in_process(const struct ips2_phase_job *j);
void ips2_phase_job_run(struct ips2_phase_job *j);
int ips2_phase_job_finish(struct ips2_model *m, struct ips2_phase_job *j, char *err);
void ips2_phase_job_free(struct ips2_phase_job *j);

/* The trace directory of machine in run source ("" = this session),
 * into out (size bytes). */
void ips2_trace_dir(const struct ips2_model *m, const char *source, const char *machine, char *out,
                    size_t size);

#endif /* IPS2_MASTER_MODEL_H */
