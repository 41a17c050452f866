/*
 * ips2_cpa.h - the critical-path engine over PAG parts (ips2_pag.h):
 * intra-application, inter-application and global critical paths, their
 * profiles, critical-path zeroing and imbalance (DESIGN.md §4, CPA.md).
 *
 * Three ways to run a query over parts 0..n-1 (part k's .part == k):
 *
 *  - ips2_cpa_oracle: one process, all parts in memory, longest path in
 *    topological order.  The reference the tests hold the others to.
 *  - ips2_cpa_inproc: one worker per part in one process, batches delivered
 *    in a seeded random order.  Same answer as the oracle, exactly.
 *  - a distributed driver (the slaves over PVM): one ips2_cpa_worker per
 *    part where the part lives; the driver moves batches and walk messages
 *    (encode/decode below) and reads candidates.  The protocol:
 *
 *      forward:  repeat { ips2_cpa_worker_step; send every batch of
 *                ips2_cpa_worker_take_batch to its .to part; deliver what
 *                arrives with ips2_cpa_worker_deliver } until every
 *                worker's ips2_cpa_worker_done.  All workers blocked, none
 *                done and nothing in flight: the graph has a cycle or an
 *                arc without its source (an error, never a hang: the
 *                driver stops and says so, ips2_cpa_worker_stuck names it).
 *      terminal: the candidate (ips2_cpa_worker_candidate) with the
 *                largest length, ties to the smallest gid.  None found:
 *                empty path of length 0 (an application with no nodes).
 *      walk:     w = {terminal gid, no arc}; repeat { the worker of
 *                IPS2_PAG_GID_PART(w.gid) runs ips2_cpa_worker_walk(w),
 *                its segments go to the master, w = its .next } until
 *                .next.done.  Segments come last-first; the master appends
 *                the chunks to one ips2_cpa_path in arrival order and
 *                calls ips2_cpa_path_finish, which puts them first-first.
 *
 * Profiles need no nodes: the master has each part's ips2_cpa_meta (its
 * machine, strings, apps, processes, threads, their time spans and CPU per
 * procedure) and the path's segments.
 *
 * All functions return 0, or -1 with a message in err (errlen bytes).
 * Decoders never trust their input and name the byte offset of the first
 * thing wrong.  Times and lengths are ns.
 */
#ifndef IPS2_CPA_H
#define IPS2_CPA_H

#include <stddef.h>
#include <stdint.h>

#include "ips2_pag.h"

/* ---- queries ------------------------------------------------------------ */

enum ips2_cpa_mode {
    IPS2_CPA_GLOBAL = 0, /* every node and arc */
    IPS2_CPA_INTRA = 1,  /* the nodes of app's processes and the arcs between them */
    IPS2_CPA_INTER = 2,  /* primary diffusion from app, secondary from the rest */
};

struct ips2_cpa_query {
    enum ips2_cpa_mode mode;
    const char *app; /* application name (intra, inter); NULL for global */
    /* Zeroing (what-if), both optional: */
    const char *zero_procedure; /* this procedure's CPU shares weigh 0; several
                                   names one a line ("P\nQ"): each one's */
    int zero_process;           /* nonzero: the CPU arcs of this process weigh 0: */
    uint32_t zero_part;         /*   the part it ran on (machine) */
    int32_t zero_pid;           /*   its pid */
    const char *zero_app;       /*   and its application (NULL: any with that pid) */
};

/* Parses "global", "intra", "inter"; -1 if none of them. */
int ips2_cpa_mode_parse(const char *name, enum ips2_cpa_mode *mode);
const char *ips2_cpa_mode_name(enum ips2_cpa_mode mode);
/* The modes' names indexed by enum ips2_cpa_mode, then NULL (a table for
 * option parsers, e.g. Tcl_GetIndexFromObj). */
extern const char *const ips2_cpa_mode_names[];

/* ---- the path ----------------------------------------------------------- */

enum ips2_cpa_seg_kind {
    IPS2_CPA_SEG_CPU = 0, /* a CPU arc of one thread; arc types are enum ips2_pag_arc_type */
};

/* "cpu", "message", "sync", "create", "exit", or "other". */
const char *ips2_cpa_seg_kind_name(uint16_t kind);

/* One arc of the critical path.  A CPU segment has src == dst (its thread).
 * A dependence segment (kind = IPS2_PAG_ARC_*) goes from src's event at
 * begin to dst's event at end (a source that ended after its destination,
 * ips2_pag.h allows it with weight 0: begin = end).  length is the arc's weight on the path (a
 * zeroed CPU arc's is what is left of it).  A CPU segment's shares are
 * path->shares[first_share, first_share + nshares), their cpu summing to
 * length exactly (the part's shares scaled to the arc's weight; time that no
 * share names goes to the procedure on top of the stack at the arc's start). */
struct ips2_cpa_segment {
    uint16_t kind;
    uint16_t reserved;
    uint32_t src_part, src_thread; /* thread index in that part */
    uint32_t dst_part, dst_thread;
    uint32_t first_share, nshares;
    uint64_t from, to;  /* global ids of the arc's ends */
    int64_t begin, end; /* wall times of the arc's ends */
    int64_t length;
};

struct ips2_cpa_share {
    uint32_t proc; /* string index in the segment's part; IPS2_PAG_NONE: no procedure */
    uint32_t reserved;
    int64_t cpu;
};

struct ips2_cpa_path {
    int64_t length;                /* the critical path's length */
    int found;                     /* 0: no node in scope (empty path) */
    uint64_t terminal;             /* gid of its last node */
    struct ips2_cpa_segment *segs; /* first-first after ips2_cpa_path_finish */
    size_t nsegs, segcap;
    struct ips2_cpa_share *shares;
    size_t nshares, sharecap;
    char **warnings; /* notes of the run (stuck nodes ...), one line each */
    size_t nwarnings;
};

void ips2_cpa_path_init(struct ips2_cpa_path *p);
void ips2_cpa_path_free(struct ips2_cpa_path *p);
/* Appends chunk's segments and shares (as a worker's walk emits them);
 * into a path still without any it moves chunk's arrays (a path of a
 * server's run holds millions of shares: no copy), leaving chunk's
 * empty. */
int ips2_cpa_path_append(struct ips2_cpa_path *p, struct ips2_cpa_path *chunk, char *err,
                         size_t errlen);
/* Reverses the segment order (walk order is last-first) and gives back
 * what the arrays' growth left unused. */
void ips2_cpa_path_finish(struct ips2_cpa_path *p);
/* A path computed on parts read without their shares (ips2_pag_read_lazy)
 * has CPU segments without shares; this gives them theirs, the ones the
 * walk gives with the shares in memory, reading each such part's shares
 * once and keeping only the path's.  parts[0..n) and q: what the path was
 * computed on (parts[k] NULL: a part held elsewhere, a slave's, left
 * alone).  0, or -1 with err. */
int ips2_cpa_path_add_shares(struct ips2_cpa_path *p, struct ips2_pag *const *parts, size_t n,
                             const struct ips2_cpa_query *q, char *err, size_t errlen);
/* The same shares without keeping them: fn(arg, segment index, shares,
 * count) for each such segment, part by part in node order (shares live
 * until fn returns; fn returns nonzero to stop, leaving err to it: -1).
 * Memory: one arc's shares and a word per segment. */
typedef int ips2_cpa_seg_shares_fn(void *arg, size_t seg, const struct ips2_cpa_share *shares,
                                   size_t count);
int ips2_cpa_path_each_shares(const struct ips2_cpa_path *p, struct ips2_pag *const *parts,
                              size_t n, const struct ips2_cpa_query *q, ips2_cpa_seg_shares_fn *fn,
                              void *arg, char *err, size_t errlen);

/* ---- oracle and in-process run ------------------------------------------ */

int ips2_cpa_oracle(struct ips2_pag *const *parts, size_t n, const struct ips2_cpa_query *q,
                    struct ips2_cpa_path *out, char *err, size_t errlen);

/* Workers of every part in this process; batches are delivered in an order
 * shuffled with seed (and a worker steps at random points), so that a test
 * can check that the order does not matter. */
int ips2_cpa_inproc(struct ips2_pag *const *parts, size_t n, const struct ips2_cpa_query *q,
                    uint64_t seed, struct ips2_cpa_path *out, char *err, size_t errlen);

/* ---- the worker (one per part) ------------------------------------------ */

struct ips2_cpa_worker;

/* One path length crossing to another part: the value of node `from` (a gid
 * of the sending part) for its arc into node `to` of the receiving part. */
struct ips2_cpa_value {
    uint64_t from;
    uint32_t to;
    uint32_t flags; /* IPS2_CPA_REACHED: from is on a path of the mode (primary) */
    int64_t length; /* the longest path to `from` (meaningless if not reached) */
};
#define IPS2_CPA_REACHED 1u

struct ips2_cpa_batch {
    uint32_t from_part, to_part;
    struct ips2_cpa_value *v;
    size_t n, cap;
};
void ips2_cpa_batch_free(struct ips2_cpa_batch *b);

/* nparts: how many parts the query has (gids naming others are errors).
 * The worker keeps a pointer to pag (not a copy): keep it alive. */
int ips2_cpa_worker_new(const struct ips2_pag *pag, size_t nparts, const struct ips2_cpa_query *q,
                        struct ips2_cpa_worker **out, char *err, size_t errlen);
void ips2_cpa_worker_free(struct ips2_cpa_worker *w);

/* Processes every node that is ready (O(nodes + arcs) over the whole run). */
int ips2_cpa_worker_step(struct ips2_cpa_worker *w, char *err, size_t errlen);
/* Moves the values waiting for one part into *b (returns 1), or returns 0
 * if none wait.  *b is the caller's (ips2_cpa_batch_free). */
int ips2_cpa_worker_take_batch(struct ips2_cpa_worker *w, struct ips2_cpa_batch *b);
/* Applies a batch from another part (then step again). */
int ips2_cpa_worker_deliver(struct ips2_cpa_worker *w, const struct ips2_cpa_batch *b, char *err,
                            size_t errlen);
/* 1 when every node of the part has its length. */
int ips2_cpa_worker_done(const struct ips2_cpa_worker *w);
/* A blocked worker's description: how many nodes wait and the first one
 * (process, thread, event), for the driver's error. */
void ips2_cpa_worker_stuck(const struct ips2_cpa_worker *w, char *buf, size_t len);

struct ips2_cpa_candidate {
    int found; /* 0: no node of the mode's terminal set in this part */
    uint64_t gid;
    int64_t length;
};
void ips2_cpa_worker_candidate(const struct ips2_cpa_worker *w, struct ips2_cpa_candidate *c);

/* Where the walk goes on: node gid (in the part that owns it); if has_arc,
 * arc is a dependence segment whose destination side the previous part
 * filled in and whose source side (src_part, src_thread, begin) the owner of
 * gid completes and emits first. */
struct ips2_cpa_walk {
    int done; /* 1: the walk reached a root, nothing follows */
    uint64_t gid;
    int has_arc;
    struct ips2_cpa_segment arc;
};

/* Walks back from in->gid (a node of this part) while the predecessors are
 * in this part; appends the segments to chunk (last-first) and says in next
 * where the walk goes on. */
int ips2_cpa_worker_walk(struct ips2_cpa_worker *w, const struct ips2_cpa_walk *in,
                         struct ips2_cpa_path *chunk, struct ips2_cpa_walk *next, char *err,
                         size_t errlen);

/* ---- wire formats (for PVM: byte strings, little-endian, versioned) ---- */

/* Encoders return a malloc'd buffer in *data, its size in *size. */
int ips2_cpa_batch_encode(const struct ips2_cpa_batch *b, void **data, size_t *size, char *err,
                          size_t errlen);
int ips2_cpa_batch_decode(const void *data, size_t size, const char *name,
                          struct ips2_cpa_batch *out, char *err, size_t errlen);
int ips2_cpa_walk_encode(const struct ips2_cpa_walk *w, void **data, size_t *size, char *err,
                         size_t errlen);
int ips2_cpa_walk_decode(const void *data, size_t size, const char *name, struct ips2_cpa_walk *out,
                         char *err, size_t errlen);
/* A path chunk: segments, shares (and length, found, terminal, warnings). */
int ips2_cpa_path_encode(const struct ips2_cpa_path *p, void **data, size_t *size, char *err,
                         size_t errlen);
int ips2_cpa_path_decode(const void *data, size_t size, const char *name, struct ips2_cpa_path *out,
                         char *err, size_t errlen);

/* ---- part metadata: what the master needs of a part for profiles -------- */

struct ips2_cpa_span {
    int64_t begin, end; /* wall of the thread's first and last node (0, 0: no nodes) */
};

struct ips2_cpa_proc_cpu { /* a thread's CPU in one procedure, over all its CPU arcs */
    uint32_t thread;
    uint32_t proc; /* string index; IPS2_PAG_NONE: no procedure */
    int64_t cpu;
};

struct ips2_cpa_meta {
    uint32_t part;
    char *machine;
    char **strings;
    size_t nstrings;
    uint32_t *apps; /* string indices */
    size_t napps;
    struct ips2_pag_process *processes;
    size_t nprocesses;
    struct ips2_pag_thread *threads;
    struct ips2_cpa_span *spans; /* one per thread */
    size_t nthreads;
    struct ips2_cpa_proc_cpu *cpu; /* sorted by thread, then proc */
    size_t ncpu;
    int cpu_later; /* 1: cpu not made yet (a part read without its shares: they are
                      read when asked, ips2_cpa_meta_add_cpu); never encoded */
};

int ips2_cpa_meta_from_pag(const struct ips2_pag *pag, struct ips2_cpa_meta **out, char *err,
                           size_t errlen);
void ips2_cpa_meta_free(struct ips2_cpa_meta *m);
/* A meta of a part read without its shares: its CPU per procedure, from
 * one pass over them (nothing when cpu_later is 0).  0, or -1 with err. */
int ips2_cpa_meta_add_cpu(struct ips2_cpa_meta *m, const struct ips2_pag *pag, char *err,
                          size_t errlen);
int ips2_cpa_meta_encode(const struct ips2_cpa_meta *m, void **data, size_t *size, char *err,
                         size_t errlen);
int ips2_cpa_meta_decode(const void *data, size_t size, const char *name,
                         struct ips2_cpa_meta **out, char *err, size_t errlen);

/* ---- profiles ----------------------------------------------------------- */

enum ips2_cpa_level {
    IPS2_CPA_LEVEL_MACHINE = 0,
    IPS2_CPA_LEVEL_PROCESS = 1,
    IPS2_CPA_LEVEL_THREAD = 2,
    IPS2_CPA_LEVEL_PROCEDURE = 3,
};
int ips2_cpa_level_parse(const char *name, enum ips2_cpa_level *level);
/* "machine", "process", "thread", "procedure"; "?" for another value. */
const char *ips2_cpa_level_name(enum ips2_cpa_level level);
/* The levels' names indexed by enum ips2_cpa_level, then NULL. */
extern const char *const ips2_cpa_level_names[];

/* Which part of the path a profile shows (a tree node): NULL / 0 = any.
 * A CPU segment is in it if its thread is; a dependence segment if its
 * source or its destination thread is. */
struct ips2_cpa_filter {
    const char *app;
    const char *machine;
    int has_pid;
    int32_t pid;
    int has_tid;
    int32_t tid;
    const char *procedure; /* procedure level only: just this procedure */
    int by_node;           /* procedure level: one entry per procedure of each thread (its
                              part and thread say which), not merged by name */
};

enum ips2_cpa_entry_kind {
    IPS2_CPA_ENTRY_WORK = 0,  /* CPU of a machine / process / thread / procedure */
    IPS2_CPA_ENTRY_DELAY = 1, /* dependence arcs between two machines / processes / threads */
};

struct ips2_cpa_entry {
    char *name; /* "m1", "app:pid", "app:pid[tid]", "proc"; delays: "messages m1->m2",
                   "messages app:pid->app:pid", "sync ...", "create ...", "exit ..." */
    enum ips2_cpa_entry_kind kind;
    uint16_t arc_type;             /* delays: enum ips2_pag_arc_type */
    uint32_t part, thread;         /* work: where (the first such segment); delays: destination */
    uint32_t src_part, src_thread; /* delays: source */
    int64_t ns;                    /* contribution */
    double percent;                /* of the path's length (in the phase) */
    char *program; /* procedure level: the executable (file name) whose procedure this is:
                      rows group by (program, procedure), never by a bare name across
                      programs; NULL at the other levels */
};

struct ips2_cpa_profile {
    struct ips2_cpa_entry *entries; /* sorted by ns descending, then name */
    size_t n;
    int64_t length;     /* the path's length (clipped to the phase) */
    int64_t elapsed;    /* max end - min begin of the mode's threads (clipped to the phase) */
    double ratio;       /* length / elapsed (0 if elapsed is 0) */
    int64_t begin, end; /* the interval elapsed measures */
};

/* The whole run, as a phase: t0 = IPS2_CPA_RUN_START, t1 = IPS2_CPA_RUN_END. */
#define IPS2_CPA_RUN_START INT64_MIN
#define IPS2_CPA_RUN_END   INT64_MAX

/* Phase [t0, t1): each segment counts in proportion to its wall overlap
 * with it (a zero-width segment: whole if t0 <= begin < t1); the whole run:
 * IPS2_CPA_RUN_START, IPS2_CPA_RUN_END (any other pair is a phase, [0, 0)
 * an empty one).  metas[k] is part k's.  A path that the engine could not
 * have made (a negative length, begin after end, lengths adding up past
 * int64, threads or shares out of range) is refused with an error. */
int ips2_cpa_profile(const struct ips2_cpa_path *path, struct ips2_cpa_meta *const *metas,
                     size_t nmetas, const struct ips2_cpa_query *q, enum ips2_cpa_level level,
                     const struct ips2_cpa_filter *f, int64_t t0, int64_t t1,
                     struct ips2_cpa_profile *out, char *err, size_t errlen);
void ips2_cpa_profile_free(struct ips2_cpa_profile *p);

/* Critical-path imbalance per procedure (Scalasca): for each procedure on
 * the path within the filter (a procedure of one program: two programs'
 * procedures of one name are two rows), cp = its CP time, avg = its CPU
 * time averaged over the threads of the scope (the filter's, within the
 * mode's applications) of that program that ran it, imbalance = max(cp - avg, 0).  Sorted by
 * imbalance. */
struct ips2_cpa_imbalance {
    char *proc;
    char *program; /* the executable (file name): one row per (program, procedure) */
    int64_t cp, avg, imbalance;
    double percent; /* imbalance / path length */
};
int ips2_cpa_imbalance(const struct ips2_cpa_path *path, struct ips2_cpa_meta *const *metas,
                       size_t nmetas, const struct ips2_cpa_query *q,
                       const struct ips2_cpa_filter *f, int64_t t0, int64_t t1,
                       struct ips2_cpa_imbalance **out, size_t *n, char *err, size_t errlen);
void ips2_cpa_imbalance_free(struct ips2_cpa_imbalance *v, size_t n);

/* ---- random PAGs for tests and benchmarks ------------------------------- */

struct ips2_cpa_random_opts {
    uint64_t seed;
    uint32_t parts;     /* machines, >= 1 */
    uint32_t apps;      /* >= 1 */
    uint32_t processes; /* per part (total threads ~ processes * threads) */
    uint32_t threads;   /* per process */
    uint64_t nodes;     /* total, spread over the threads */
    double cross;       /* fraction of nodes that get an incoming cross-thread arc */
    double cross_part;  /* of those, fraction whose source is in another part */
    double cross_app;   /* of those, fraction whose source may be in another app */
    uint32_t procs;     /* distinct procedure names */
};
/* Sensible defaults for a seed and a size. */
void ips2_cpa_random_defaults(struct ips2_cpa_random_opts *o, uint64_t seed, uint64_t nodes);
/* A valid PAG: parts[k].part == k, arcs sorted by to, outs matching the
 * other parts' cross arcs, every arc forward in wall time. */
int ips2_cpa_random(const struct ips2_cpa_random_opts *o, struct ips2_pag ***parts, size_t *n,
                    char *err, size_t errlen);
void ips2_cpa_parts_free(struct ips2_pag **parts, size_t n);

#endif /* IPS2_CPA_H */
