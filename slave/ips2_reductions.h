/*
 * ips2_reductions.h - what a slave analyst makes of one machine's traces,
 * and all that the master ever sees of them (DESIGN.md §2: data stays on
 * its machine; only reductions travel).
 *
 * A reduction covers one machine of one session, optionally restricted to a
 * phase.  It is written to <session>/reductions/<machine>.red, travels to
 * the master as the bytes of that file, and is loaded there into the arrays
 * below.  Strings are indices into a string table; times are nanoseconds
 * on the session's time base (0 = the session's start; see ANALYSTS.md
 * "Time base"), so reductions of different machines line up.
 *
 * The file layout is private to slave/reductions.c; it is versioned and
 * its reader checks every count and index (a reductions file is as
 * untrusted as a trace).
 */
#ifndef IPS2_REDUCTIONS_H
#define IPS2_REDUCTIONS_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "ips2_latency.h"

#define IPS2_RED_NONE UINT32_MAX /* "no string", "no procedure" */

struct ips2_pag; /* cpa/ips2_pag.h */

/* Per-procedure (and per-thread) metrics.  Values are counts, bytes or ns.
 * Interaction metrics are charged to the procedure active when the
 * interaction happened (its exclusive share), like CPU self time. */
enum ips2_metric {
    IPS2_M_CPU = 0,      /* process (CPU) time, ns */
    IPS2_M_WALL,         /* elapsed time, ns */
    IPS2_M_CALLS,        /* procedure calls */
    IPS2_M_SYNC_WAIT,    /* waiting for locks, barriers, semaphores, conditions, joins, ns */
    IPS2_M_SPIN,         /* CPU spent while waiting (spinning), ns */
    IPS2_M_MSGS_SENT,    /* messages (sends) */
    IPS2_M_MSGS_RECV,    /* messages (receives) */
    IPS2_M_BYTES_SENT,   /* message bytes */
    IPS2_M_BYTES_RECV,   /* message bytes */
    IPS2_M_MSG_WAIT,     /* blocked in receives, accepts, connects, poll/select, ns */
    IPS2_M_IO_TIME,      /* file I/O time, ns */
    IPS2_M_IO_OPS,       /* file I/O operations */
    IPS2_M_IO_BYTES,     /* file I/O bytes */
    IPS2_M_SEEK_TIME,    /* lseek time, ns */
    IPS2_M_PAGE_FAULTS,  /* from collectors: all page faults (minor + major) */
    IPS2_M_CTX_SWITCHES, /* from collectors: all context switches (voluntary + involuntary) */
    /* from collectors (collectors/README.md): on process rows of exts[] only */
    IPS2_M_MINOR_FAULTS, /* page faults served without I/O */
    IPS2_M_MAJOR_FAULTS, /* page faults that read from disk */
    IPS2_M_CTX_VOL,      /* context switches waiting for something (blocking) */
    IPS2_M_CTX_INVOL,    /* context switches by preemption */
    IPS2_M_INSTRUCTIONS, /* instructions retired, user mode */
    IPS2_M_CYCLES,       /* CPU cycles, user mode */
    IPS2_M_COUNTED,      /* calls counted only (filters): in CALLS, without times */
    IPS2_M_COUNT,
};

struct ips2_red_process {
    uint32_t app;              /* string: application id */
    uint32_t exe;              /* string: executable path */
    uint32_t command;          /* string: command line as run, or IPS2_RED_NONE */
    uint32_t pid, ppid, image; /* image: exec generation */
    int64_t start_ns, end_ns;  /* first and last event */
    int32_t exit_how;          /* enum ips2_exit_how, or -1 if no exit was recorded */
    int32_t exit_status;       /* status, or the signal for IPS2_EXIT_SIGNAL */
    uint32_t problem;          /* string naming what went wrong, or IPS2_RED_NONE */
    uint32_t first_thread, nthreads;
    /* its process-time clock (stream header, traces/FORMAT.md §6): method
     * (enum ips2_cpu_method) and param, and the resolution in ns: exact,
     * clock_getres(CLOCK_THREAD_CPUTIME_ID); interp, the sync period;
     * tick, the tick.  cpu_res_ns 0: not known (older reductions). */
    uint32_t cpu_method, cpu_param;
    uint64_t cpu_res_ns;
};

struct ips2_red_thread {
    uint32_t process; /* index */
    uint32_t tid;
    uint64_t create_seq; /* 0 for a process's first thread */
    int64_t start_ns, end_ns;
    uint64_t m[IPS2_M_COUNT];    /* totals of the thread (CALLS: all calls) */
    uint32_t first_proc, nprocs; /* its rows of procs[] */
};

/* One procedure in one thread. */
struct ips2_red_proc {
    uint32_t thread;              /* index */
    uint32_t name;                /* string: procedure name (or "0x..." if unresolved) */
    uint64_t incl_cpu, incl_wall; /* inclusive times, ns (recursion counted once) */
    uint64_t m[IPS2_M_COUNT];     /* exclusive (self) values; CALLS = calls */
};

/* A call-graph arc in one thread, as gprof has them. */
struct ips2_red_arc {
    uint32_t thread;
    uint32_t caller; /* string, or IPS2_RED_NONE for <spontaneous> */
    uint32_t callee; /* string */
    uint64_t count;
    uint64_t child_cpu; /* callee's inclusive CPU over these calls, ns */
};

/* A time histogram: one metric of one thread, of one procedure in it, or
 * (SYNC_WAIT only) of one synchronisation object in it: object is then
 * the objects[] row of that thread and object, and proc is IPS2_RED_NONE.
 * A thread's histogram is the row with proc and object both none.
 * Bucket i covers [start_ns + i * width_ns, start_ns + (i + 1) * width_ns).
 * A slave starts with the session's sample interval and, when a histogram
 * would need more than IPS2_HIST_MAX_BUCKETS, doubles the width and folds
 * pairs of buckets together. */
#define IPS2_HIST_MAX_BUCKETS 1024
struct ips2_red_hist {
    uint32_t thread; /* index */
    uint32_t proc;   /* index into procs[], or IPS2_RED_NONE for the thread */
    uint32_t metric; /* enum ips2_metric */
    int64_t start_ns;
    uint64_t width_ns;
    uint32_t nbuckets;
    double *v;
    uint32_t object; /* index into objects[], or IPS2_RED_NONE */
};

/* Waiting per synchronisation object, per thread. */
struct ips2_red_object {
    uint32_t thread;
    uint32_t kind; /* an object kind of FORMAT.md §9.1 */
    uint64_t id;   /* object id as in the trace */
    uint64_t waits, wait_ns, spin_ns;
    uint32_t name; /* string: "mutex:hot_lock", "mutex:heap@init_table", ...,
                      or IPS2_RED_NONE */
};

/* Holding a lock (mutex, spin lock, user lock, rwlock in either mode), per
 * thread, object and procedure: the procedure on top of the stack when the
 * thread acquired it; hold_ns runs from the acquisition to its release,
 * clipped to the phase (a hold still open at the thread's end ends at its
 * last event).  object is the objects[] row (its thread is the holder; a
 * row that only held has waits 0), proc the procs[] row of that thread, or
 * IPS2_RED_NONE when no procedure was active.  counted: of acquisitions,
 * the holds libips2 counted without recording them (LOCK_COUNTED, FORMAT.md
 * section 3): hold_ns is over the others only. */
struct ips2_red_hold {
    uint32_t object; /* index into objects[] */
    uint32_t proc;   /* index into procs[], or IPS2_RED_NONE */
    uint64_t acquisitions, hold_ns;
    uint64_t counted;
};

/* The latency distribution of one procedure row: the inclusive wall
 * times of its outermost activations (with recursion, only the
 * activation not already on the stack counts, as for incl_wall), each
 * clipped to the phase as incl_wall is; an activation counts when some
 * of it lies in the phase.  Its count activations add up to the row's
 * incl_wall (the exact sum); max_ns is exact, the buckets are
 * ips2_latency.h's (non-empty ones, ascending).  At most one row per
 * procedure row, in procs[] order; a procedure row without one had no
 * activation. */
struct ips2_red_latency {
    uint32_t proc; /* index into procs[] */
    uint32_t nbins;
    uint64_t count, max_ns;
    struct ips2_lat_bin *bins;
};

/* External data (collectors/ips2_external.h): what one collector measured
 * of one focus, one metric.  value: for a counter its increase within the
 * reduction's time span (a process counts from its start, the machine from
 * the collector's first sample), for a gauge its last value; the histogram
 * (on the session's grid: start a multiple of width, like the threads')
 * holds, per bucket, the increase whose sample fell in it (a gauge: the
 * mean of its samples), so the buckets of a counter add up to value.
 * process says whose row it is when a pid was reused (by another
 * application's process, or the same one's): the reduction gives each
 * process the collector watched the process row of that pid whose
 * [start_ns, end_ns] its samples' span overlaps most (or lies nearest
 * to), no row to two of them (slave/reduce_ext.c). */
struct ips2_red_ext {
    uint32_t collector; /* string: the collector's name ("os", "hw", ...) */
    uint32_t pid;       /* the process, or 0 for the machine as a whole */
    uint32_t process;   /* index into processes[] (its pid is pid), or IPS2_RED_NONE: the
                           machine (pid 0), or a process without a row (not traced) */
    uint32_t metric;    /* enum ips2_metric */
    uint32_t gauge;     /* 0 counter, 1 gauge */
    uint64_t value;
    int64_t start_ns;
    uint64_t width_ns;
    uint32_t nbuckets;
    double *v;
};

/* Which times the reductions hold (REDUCTION.md "Compensated times"). */
enum ips2_times {
    IPS2_TIMES_DEFAULT = 0,     /* options: IPS2_TIMES in the environment, else raw */
    IPS2_TIMES_RAW = 1,         /* as recorded (also: files written before the choice) */
    IPS2_TIMES_COMPENSATED = 2, /* the probes' calibrated cost removed */
};

/* "raw", "compensated"; the value of a name, or -1 (NULL or "": default). */
const char *ips2_times_name(unsigned times);
int ips2_times_by_name(const char *name);

struct ips2_reductions {
    uint32_t machine;       /* string: the machine's name in the workload */
    uint32_t host;          /* string: the host it ran on */
    int64_t phase_start_ns; /* the phase reduced, or INT64_MIN..INT64_MAX */
    int64_t phase_end_ns;
    uint64_t interval_ns;  /* histograms' initial sample interval */
    uint64_t events;       /* events read */
    uint64_t trace_bytes;  /* bytes of trace read */
    uint32_t times;        /* enum ips2_times: RAW or COMPENSATED */
    uint32_t call_cost_ps; /* a traced call's probes (entry + exit), mean over the streams */
    uint64_t probe_ns;     /* the probes' time in the streams (calibrated cost x events) */

    char **strings;
    size_t nstrings;
    struct ips2_red_process *processes;
    size_t nprocesses;
    struct ips2_red_thread *threads;
    size_t nthreads;
    struct ips2_red_proc *procs;
    size_t nprocs;
    struct ips2_red_arc *arcs;
    size_t narcs;
    struct ips2_red_hist *hists;
    size_t nhists;
    struct ips2_red_object *objects;
    size_t nobjects;
    struct ips2_red_hold *holds; /* by object row, then procedure */
    size_t nholds;
    uint32_t *problems; /* strings: what went wrong on this machine */
    size_t nproblems;
    struct ips2_red_ext *exts; /* external data, by collector, pid, process, metric */
    size_t nexts;
    /* latency distributions (reductions of version 6 and reductions made
     * here); latency false: not recorded (an older file), not zero */
    bool latency;
    struct ips2_red_latency *lats;
    size_t nlats;
};

/* What to reduce and how. */
struct ips2_reduce_options {
    const char *machine;        /* its name in the workload */
    int64_t session_start_real; /* CLOCK_REALTIME ns of the session's time 0 */
    int64_t phase_start_ns;     /* session time; INT64_MIN for "from the start" */
    int64_t phase_end_ns;       /* INT64_MAX for "to the end" */
    uint64_t interval_ns;       /* histogram sample interval, 0 = 100 ms */
    /* Procedures are named by their source names (ips2_symtab_lookup: a
     * compiler's clones "f.constprop.0", "f.lto_priv.1", "f.part.0" count
     * under "f"); true: as the ELF symbols are written, each clone a
     * procedure of its own (the clone shown on request). */
    bool clones;
    /* enum ips2_times: raw or compensated times (DEFAULT: IPS2_TIMES in
     * the environment, else raw) */
    unsigned times;
    /* called now and then with events read so far and an estimate of all */
    void (*progress)(void *arg, uint64_t done, uint64_t total);
    void *progress_arg;
    /* If not NULL: also build the machine's part of the Program Activity
     * Graph (cpa/ips2_pag.h, cpa/PAG.md) in the same pass and give it here
     * (free it with ips2_pag_free), or NULL with a problem saying why.
     * Build it without a phase: the CPU shares of its arcs follow the
     * phase's clipping, its arcs do not. */
    struct ips2_pag **pag_out;
    /* With pag_out: give the part with its shares compressed in memory
     * (pag->lazy), for a caller that only writes it (ips2_pag_write copies
     * them) or streams them (ips2_pag_shares_each): the build then never
     * holds them inflated (cpa/PAG.md §5). */
    bool pag_lazy;
};

/* Reduces every stream (raw or packed) of a machine's trace directory in
 * one streaming pass per thread.  A stream that cannot be read is reduced
 * up to the damage and named in problems[]; the rest goes on.  Returns the
 * reductions, or NULL with err (IPS2_ERR_MAX bytes) set if nothing at all
 * could be done (no such directory). */
struct ips2_reductions *ips2_reduce_dir(const char *trace_dir,
                                        const struct ips2_reduce_options *options, char *err);

/* Serialises reductions into a malloc'd buffer (*size bytes); NULL on OOM. */
void *ips2_reductions_encode(const struct ips2_reductions *r, size_t *size);

/* Loads reductions from bytes (a file's contents or a PVM message); NULL
 * with err naming the byte offset and what was expected on bad input. */
struct ips2_reductions *ips2_reductions_decode(const void *data, size_t size, const char *name,
                                               char *err);

void ips2_reductions_free(struct ips2_reductions *r);

/* Name of a metric ("cpu", "wall", "calls", ...), its unit ("ns", "", "bytes")
 * and what it counts, in a few words; NULL for a number that is no metric. */
const char *ips2_metric_name(unsigned metric);
const char *ips2_metric_unit(unsigned metric);
const char *ips2_metric_description(unsigned metric);

/* The metric of a name, or -1. */
int ips2_metric_by_name(const char *name);

#endif /* IPS2_REDUCTIONS_H */
