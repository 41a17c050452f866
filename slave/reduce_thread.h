/*
 * reduce_thread.h - the reduction of one thread stream (private to slave/).
 *
 * A struct rt is fed the stream's events in order, with times already on
 * the session's time base, and keeps only what the results need: a shadow
 * stack of active procedures, one row per procedure (found by address
 * through an open-addressing table on ENTER; EXIT only looks at the top of
 * the stack), one row per call-graph arc (cached in the callee's row), and
 * the current histogram bucket.  Memory is bounded by the numbers of
 * procedures and arcs and the stack depth, never by the stream's length.
 *
 * Time between two consecutive events belongs to the procedure on top of
 * the stack (exclusive time); procedure 0 stands for "no procedure" (time
 * before the first entry or after the last exit) and is not reported.
 * With a phase, only the part of each interval inside [phase_start,
 * phase_end) counts, CPU time in proportion to the wall time inside.
 * Inclusive times are differences of the thread's running (phase-clipped)
 * totals at entry and exit, so they are clipped too.  REDUCTION.md has the
 * rules for recursion, unmatched exits and open frames.
 *
 * The hot path (rt_enter, rt_exit, rt_advance) is inline here, so that
 * the stream's loop (reduce_stream.c) gets it without a call, with the
 * state that changes at every event in registers (struct rt_hot);
 * everything rare is in reduce_thread.c.
 */
#ifndef IPS2_SLAVE_REDUCE_THREAD_H
#define IPS2_SLAVE_REDUCE_THREAD_H

#include <stdbool.h>
#include <stdint.h>

#include "histogram.h"
#include "ips2_latency.h"
#include "ips2_reductions.h"

#define RT_LIKELY(x)   __builtin_expect(!!(x), 1)
#define RT_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* The interaction metrics each procedure has a histogram of, beside its
 * CPU: rt_proc_hist_metrics[slot] is the metric of procs[i].mhist[slot]. */
enum { RT_PROC_HISTS = 7 };
extern const uint8_t rt_proc_hist_metrics[RT_PROC_HISTS];

struct rt_proc {
    uint64_t addr;
    uint64_t m[IPS2_M_COUNT]; /* exclusive values; CALLS = calls */
    uint64_t incl_cpu, incl_wall;
    uint64_t snap_cpu; /* m[CPU] at the start of the current bucket */
    uint32_t active;   /* activations on the stack */
    uint32_t last_caller, last_arc;
    bool pag_mark;          /* in pag_dirty */
    struct red_hist hist;   /* exclusive CPU per bucket */
    struct red_hist *mhist; /* NULL, or RT_PROC_HISTS: interaction metrics */
    uint64_t pag_snap;      /* m[CPU] at the PAG's latest node */
};

/* A procedure's latency (beside its rt_proc, which stays 256 bytes, a
 * shift from its index): counts of buckets lo .. lo + len - 1 of its
 * outermost activations' inclusive wall times (ips2_latency.h), a window
 * that rt_lat_grow() widens; and the longest. */
struct rt_lat {
    uint64_t *n;
    uint64_t max;
    uint32_t lo, len;
};

struct rt_arc {
    uint32_t caller, callee; /* proc indexes; caller 0 = <spontaneous> */
    uint64_t count, child_cpu;
    uint64_t snap_count; /* count at the start of the current bucket */
};

struct rt_frame {
    uint64_t addr;
    uint64_t cum_cpu, cum_wall; /* the thread's totals at entry */
    uint32_t proc, arc;
    uint32_t outer; /* first activation of proc on the stack */
};

/* Holding a lock, by the procedure that acquired it. */
struct rt_hold {
    uint32_t proc; /* proc index (0: none) */
    uint64_t acquisitions, hold_ns;
    uint64_t counted; /* of acquisitions: counted holds (LOCK_COUNTED), without times */
};

/* Waiting per synchronisation object, and holding it. */
struct rt_object {
    uint32_t kind;
    uint64_t id;
    uint64_t waits, wait_ns, spin_ns;
    struct red_hist hist; /* wait_ns per bucket */
    struct rt_hold *holds;
    uint32_t nholds, cap_holds;
    uint32_t open;   /* acquisitions not yet released (an rwlock read twice: 2) */
    uint32_t open_h; /* holds[] row of the outermost open one */
    int64_t open_t;  /* its time */
};

/* What type a sync-object or sync-init event gave an object key. */
struct rt_type {
    uint64_t key;
    uint32_t type;
};

/* What a sync-init or a sync-object event told of an object key, kept to
 * name the object (reduce_names.c): one fact per key and kind of event,
 * the first (a sync-object's name: the latest). */
struct rt_fact {
    uint64_t key;
    int64_t t;        /* the event's session time */
    uint64_t proc;    /* sync-init: address of the procedure on top, 0 if none */
    uint64_t address; /* sync-object: the object's address in the process, or 0 */
    char *name;       /* sync-object: the name it was given (malloc'd), or NULL */
    bool init;        /* a sync-init's fact, else a sync-object's */
};

/* What changes at every event.  A decoder keeps a copy in a local
 * variable, which the compiler keeps in registers, passes it to the inline
 * functions below, and stores it back into r->h around anything else (the
 * rare paths work on r->h); rt_enter() and friends do that themselves. */
struct rt_hot {
    int64_t last_t;             /* the latest event's time */
    int64_t fast_end;           /* events before it take the fast path */
    uint64_t last_c;            /* its CPU time */
    uint64_t cum_cpu, cum_wall; /* running totals inside the phase */
    uint32_t top;               /* proc index on top of the stack, 0 when empty */
    uint32_t depth;             /* frames on the stack */
};

struct rt {
    /* configuration */
    int64_t ps, pe; /* phase [ps, pe) */
    uint64_t interval_ns;
    bool compensate; /* compensated times (compensate.h) */

    /* what compensation did: wall removed (ns), the stream's cost of a
     * call (entry and exit, ps), the latest event's time as recorded (the
     * PAG's nodes keep the recorded wall) */
    uint64_t probe_ns;
    uint32_t call_cost_ps;
    int64_t raw_last_t;

    /* clock: the first event; the hot state (see struct rt_hot) */
    bool started;
    int64_t first_t;
    struct rt_hot h;

    /* histograms: one geometry for the thread */
    struct red_hgeom geom;
    uint32_t bucket;    /* current bucket */
    int64_t bucket_end; /* its end */
    uint64_t snap_cum_cpu;
    struct red_hist cpu_hist;
    struct red_hist mhist[IPS2_M_COUNT]; /* interaction metrics */

    /* procedures: procs[0] = no procedure; lat[i] is procs[i]'s */
    struct rt_proc *procs;
    struct rt_lat *lat;
    uint32_t nprocs, cap_procs;
    uint64_t *map_key; /* address -> proc index + 1 (0 = empty slot) */
    uint32_t *map_val;
    uint32_t map_mask;

    /* arcs */
    struct rt_arc *arcs;
    uint32_t narcs, cap_arcs;
    uint64_t *amap_key; /* (caller << 32 | callee) + 1 -> arc index */
    uint32_t *amap_val;
    uint32_t amap_mask;

    /* shadow stack (its depth and top are in h) */
    struct rt_frame *stack;
    uint32_t cap_stack;

    /* objects, and the types this stream gave object keys */
    struct rt_object *objects;
    uint32_t nobjects, cap_objects;
    uint64_t *omap_key; /* (key << 4 | kind) + 1 -> objects[] index (0 = empty slot) */
    uint32_t *omap_val;
    uint32_t omap_mask;
    struct rt_type *types;
    uint32_t ntypes, cap_types;
    /* facts for naming objects, found by (key, init) through fact_map */
    struct rt_fact *facts;
    uint32_t nfacts, cap_facts;
    uint64_t *fact_key; /* (key << 1 | init) + 1 -> fact index (0 = empty slot) */
    uint32_t *fact_val;
    uint32_t fact_mask;

    /* thread-level totals of the interaction metrics (CPU, WALL from cum_*) */
    uint64_t m[IPS2_M_COUNT];
    uint64_t calls; /* set by rt_finish() */

    /* what the events said about the thread and its process */
    uint64_t events;
    uint64_t create_seq;
    uint32_t creator;
    bool thread_start_seen, thread_exit_seen;
    int32_t thread_exit_how;
    bool proc_start_seen;
    int32_t proc_start_how;
    uint32_t ppid;
    bool proc_exit_seen;
    int32_t exit_how, exit_status;
    int64_t exit_t;
    bool exec_pending; /* an exec began and did not fail: the image was replaced */

    /* oddities, for the problems list */
    uint64_t unmatched_exits; /* EXIT with no matching frame */
    uint64_t unwound;         /* frames closed by the exit of a frame below them */
    uint32_t open_at_end;     /* frames still open at the end */
    uint64_t lost;            /* records the writer lost */
    int lost_errno;           /* why the writer lost every later record (stream cut), or 0 */
    bool truncated;           /* the header's TRUNCATED bit */
    bool oom;

    /* the PAG part being built (cpa/pag_build.h), or NULL; the procedures
     * that were on top since its latest node (their CPU since then is the
     * next node's shares) */
    struct pag_builder *pag;
    uint32_t *pag_dirty;
    uint32_t npag_dirty, cap_pag_dirty;
};

/* Sets up r for a phase [ps, pe) (INT64_MIN/INT64_MAX: everything) and a
 * histogram interval (0 = 100 ms). */
void rt_init(struct rt *r, int64_t ps, int64_t pe, uint64_t interval_ns);
void rt_free(struct rt *r);

/* Ends the stream: closes open frames at the last event's time, flushes
 * the current histogram bucket, and counts calls (procedures' and the
 * thread's) from the arcs. */
void rt_finish(struct rt *r);

/* Rare paths, in reduce_thread.c; they work on r->h. */
void rt_first(struct rt *r, int64_t t, uint64_t c);
void rt_advance_slow(struct rt *r, int64_t t, uint64_t c);
uint32_t rt_proc_insert(struct rt *r, uint64_t addr);
uint32_t rt_arc_find(struct rt *r, uint32_t caller, uint32_t callee);
bool rt_push_grow(struct rt *r);
void rt_exit_slow(struct rt *r, uint64_t addr);
/* Counts an activation of wall time v outside its bucket window l. */
void rt_lat_grow(struct rt *r, struct rt_lat *l, uint64_t v);

/* An interaction: a count at time t, a wait over [t0, t1], or an amount v
 * spread evenly over [t0, t1] (spin CPU), charged to the procedure on top
 * of the stack and the thread's histogram of that metric, clipped to the
 * phase.  Call after rt_advance() to t (or t1). */
void rt_count(struct rt *r, unsigned metric, int64_t t, uint64_t v);
void rt_wait(struct rt *r, unsigned metric, int64_t t0, int64_t t1);
void rt_spread(struct rt *r, unsigned metric, int64_t t0, int64_t t1, uint64_t v);
/* Charges a wait (and the spin CPU within it) to a synchronisation object. */
void rt_object_wait(struct rt *r, uint32_t kind, uint64_t id, int64_t t0, int64_t t1,
                    uint64_t spin_ns);
/* A lock acquired (or released) at t, exclusively or shared: the hold
 * from the acquisition to the release goes to the procedure on top of the
 * stack at the acquisition. */
void rt_lock_acquired(struct rt *r, bool shared, uint64_t id, int64_t t);
void rt_lock_released(struct rt *r, bool shared, uint64_t id, int64_t t);
void rt_lock_counted(struct rt *r, uint64_t id, uint64_t acquired, int64_t t);
/* Calls of a counted-only procedure (a CALLS record at t, after
 * rt_advance() to t): its calls and its calls histogram. */
void rt_counted(struct rt *r, uint64_t addr, uint64_t n, int64_t t);
/* Notes the type an event gave an object key. */
void rt_note_type(struct rt *r, uint64_t key, uint32_t type);
/* Notes a fact for naming an object (f->name becomes r's): the first of
 * its key and kind stays, but a later sync-object's name replaces the
 * earlier one's, and fills in an address that was missing. */
void rt_note_fact(struct rt *r, const struct rt_fact *f);

/* The PAG: builds the thread's part of it with pag (after rt_init); a
 * procedure became the top of the stack; an event (other than procedure
 * entry and exit) at t whose call began at ws (INT64_MIN: unknown); the
 * end of the stream (before rt_finish), naming the procedures. */
struct ips2_event;
void rt_pag_attach(struct rt *r, struct pag_builder *pag);
void rt_pag_touch(struct rt *r, uint32_t proc);
void rt_pag_event(struct rt *r, const struct ips2_event *ev, int64_t t, int64_t ws);
void rt_pag_end(struct rt *r, const char *(*name)(void *arg, uint32_t proc), void *arg);

/* Moves the clock to (t, c), charging the interval to the top procedure. */
static inline __attribute__((always_inline)) void rt_advance(struct rt *r, struct rt_hot *k,
                                                             int64_t t, uint64_t c)
{
    if (RT_LIKELY(t < k->fast_end && t >= k->last_t && c >= k->last_c)) {
        uint64_t dc = c - k->last_c, dt = (uint64_t)(t - k->last_t);
        struct rt_proc *p = &r->procs[k->top];
        p->m[IPS2_M_CPU] += dc;
        p->m[IPS2_M_WALL] += dt;
        k->cum_cpu += dc;
        k->cum_wall += dt;
        k->last_t = t;
        k->last_c = c;
        return;
    }
    r->h = *k;
    rt_advance_slow(r, t, c);
    *k = r->h;
}

static inline __attribute__((always_inline)) uint32_t rt_proc_of(struct rt *r, uint64_t addr)
{
    uint32_t i = (uint32_t)((addr * 0x9e3779b97f4a7c15ull) >> 40) & r->map_mask;

    for (;;) {
        uint64_t key = r->map_key[i];
        if (RT_LIKELY(key == addr + 1))
            return r->map_val[i];
        if (key == 0)
            return rt_proc_insert(r, addr);
        i = (i + 1) & r->map_mask;
    }
}

static inline __attribute__((always_inline)) void rt_enter(struct rt *r, struct rt_hot *k,
                                                           int64_t t, uint64_t c, uint64_t addr)
{
    rt_advance(r, k, t, c);
    uint32_t callee = rt_proc_of(r, addr);
    if (RT_UNLIKELY(callee == 0))
        return; /* out of memory: r->oom is set */
    if (RT_UNLIKELY(k->depth == r->cap_stack) && !rt_push_grow(r))
        return;
    struct rt_proc *p = &r->procs[callee];
    uint32_t caller = k->top, arc;
    if (RT_LIKELY(p->last_caller == caller)) {
        arc = p->last_arc;
    } else {
        arc = rt_arc_find(r, caller, callee);
        if (RT_UNLIKELY(arc == UINT32_MAX))
            return;
        p = &r->procs[callee];
        p->last_caller = caller;
        p->last_arc = arc;
    }
    /* after rt_advance(), t < fast_end means t is inside the phase; the
     * procedure's and the thread's calls are the arcs' (rt_finish) */
    if (RT_LIKELY(t < k->fast_end) || (t >= r->ps && t < r->pe))
        r->arcs[arc].count++;
    struct rt_frame *f = &r->stack[k->depth++];
    f->addr = addr;
    f->cum_cpu = k->cum_cpu;
    f->cum_wall = k->cum_wall;
    f->proc = callee;
    f->arc = arc;
    f->outer = p->active++ == 0;
    k->top = callee;
    if (RT_UNLIKELY(r->pag != NULL) && !p->pag_mark)
        rt_pag_touch(r, callee);
}

/* Pops the top frame. */
static inline __attribute__((always_inline)) void rt_pop(struct rt *r, struct rt_hot *k)
{
    struct rt_frame *f = &r->stack[--k->depth];
    struct rt_proc *p = &r->procs[f->proc];

    p->active--;
    if (f->outer) {
        uint64_t dc = k->cum_cpu - f->cum_cpu, dw = k->cum_wall - f->cum_wall;
        p->incl_cpu += dc;
        p->incl_wall += dw;
        r->arcs[f->arc].child_cpu += dc;
        /* its latency, if some of it was in the phase (dw is clipped) */
        if (RT_LIKELY(dw != 0) || (k->last_t >= r->ps && k->last_t < r->pe)) {
            struct rt_lat *l = &r->lat[f->proc];
            uint32_t b = ips2_lat_bucket(dw) - l->lo;
            if (RT_LIKELY(b < l->len))
                l->n[b]++;
            else
                rt_lat_grow(r, l, dw);
            if (dw > l->max)
                l->max = dw;
        }
    }
    k->top = k->depth ? r->stack[k->depth - 1].proc : 0;
    if (RT_UNLIKELY(r->pag != NULL))
        rt_pag_touch(r, k->top);
}

static inline __attribute__((always_inline)) void rt_exit(struct rt *r, struct rt_hot *k, int64_t t,
                                                          uint64_t c, uint64_t addr)
{
    rt_advance(r, k, t, c);
    if (RT_LIKELY(k->depth && r->stack[k->depth - 1].addr == addr)) {
        rt_pop(r, k);
    } else {
        r->h = *k;
        rt_exit_slow(r, addr);
        *k = r->h;
    }
}

#endif /* IPS2_SLAVE_REDUCE_THREAD_H */
