/*
 * search.c - the W3 search engine (notes/w3-search.md §2, §3; thesis
 * Ch. 3, 4): hypotheses, the search history graph, the evaluation of
 * tests over delivered samples, ordering, when, and the accounting.
 *
 * The run.  Buckets of the sample grid (search_space.c) are delivered in
 * time order.  Before each, tests are started from the ordered candidate
 * queue while fewer than max_eval run; a started test enables its
 * counters (reference counted: a counter two tests share is collected
 * once).  At each delivery every running test adds the bucket to its
 * sums; its value is the cumulative average since its enable time
 * (sum of numerators / sum of denominators, thesis §3.5), evaluated
 * once it has min_samples.  A test that comes out true is refined: its
 * why-children and its one-step where-magnifications along the
 * hierarchies its metric has are queued.  A test still not true after
 * sufficient_samples is given up and its counters disabled; notes §2.4's
 * [DERIVED] post-mortem rule says whether that concludes false (even at
 * the largest value its metric can take, the rest of the interval could
 * not make it true) or only gives up.  A true test keeps its counters and
 * is re-verified at every sample with the hysteresis (true -> false at
 * hysteresis x threshold, for a "<" test at threshold / hysteresis):
 * when it fails, everything below it is reset (running tests stopped,
 * queued ones dropped, true ones false), so the search goes on from the
 * deepest prefix of the path still true, and the node is queued again.
 * A hypothesis without a test is true when a child is true (PCauto.C's
 * checkIfTrue).
 *
 * Ordering (PCauto.C): ignored candidates last (those refining a
 * resource the user ignores, and everything below them), hinted ones first (a hint of the test that
 * made the parent true, e.g. cpuBound -> Code, hotSync -> its object, or
 * a procedure or process high on the critical path), then why before
 * where, then those that have been true before, then by critical-path
 * share, then by name.
 *
 * Where.  A magnification that selects the same data as its parent (an
 * application on one machine, a process of one thread, a kind with one
 * object) is no magnification: the search goes one level further down.
 * A process focus stands for its application and machine too (its path
 * names them), so a focus refines either the process hierarchy or the
 * machine and application ones.  Values are shares of the attempted
 * parallelism of the focus's application (all threads of it, as the
 * thesis's SyncTime / ActiveProcesses), so a process or procedure is
 * found only when it dominates (Water: "none dominated").
 *
 * When.  Each true bottleneck is tested over intervals of the data it
 * collected: the interval where it holds is the one of largest excess
 * sum(numerator - threshold x denominator) (a maximum-sum interval),
 * reported with the bottleneck.  A test given up without concluding
 * false is tested over intervals of the whole histogram the same way;
 * an interval of at least sufficient_samples where it holds makes a
 * when-refinement (a node of its own), true, searched further within its
 * interval only (no nested intervals: thesis §2.3).
 *
 * Reported: every true node with a test that no other true node refines
 * (a more specific hypothesis, focus or interval).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search_int.h"

/* ------------------------------------------------------------ constants --- */

const char *const ips2_hierarchy_names[IPS2_H_COUNT] = {"code", "process", "sync", "machine",
                                                        "application"};
const char *const ips2_shg_state_names[4] = {"untested", "testing", "true", "false"};

enum constant {
    K_HIGH_SYNC,
    K_HOT_SYNC,
    K_SYNC_RATE,
    K_MAX_LOCK_RATE,
    K_MAX_BARRIER_RATE,
    K_MAX_SEM_RATE,
    K_MIN_LOCK_SIZE,
    K_LOCK_OVERHEAD,
    K_BARRIER,
    K_HIGH_IO,
    K_DISK_BLOCK,
    K_SEEK_BOUND,
    K_CONTEXT_SWITCH,
    K_HIGH_IO_OPS,
    K_HIGH_CPU,
    K_PAGE_FAULT_LIMIT,
    K_HIGH_PAGE_FAULT,
    K_MAX_CALL_RATE,
    K_HIGH_INST,
    K_HIGH_MSG,
    K_LATE_SENDER,
    K_LATE_RECEIVER,
    K_MASTER_WORKER,
    K_LIMITED,
    K_LOAD,
    K_COUNT,
};

const char *const ips2_search_constant_names[K_COUNT + 1] = {
    "highSyncThreshold",
    "hotSyncThreshold",
    "syncRateThreshold",
    "maxLockRate",
    "maxBarrierRate",
    "maxSemaphoreRate",
    "minLockSize",
    "lockOverhead",
    "barrierImbalanceThreshold",
    "highIOthreshold",
    "diskBlockSize",
    "seekBoundThreshold",
    "contextSwitchLimit",
    "highIOopsThreshold",
    "highCPUtoSyncRatioThreshold",
    "pageFaultLimit",
    "highPageFaultThreshold",
    "maxIPSprocedureCallRate",
    "highInstOverheadThreshold",
    "highMsgThreshold",
    "lateSenderThreshold",
    "lateReceiverThreshold",
    "masterWorkerThreshold",
    "limitedByApplicationThreshold",
    "loadCompensation",
    NULL,
};

/* The thesis's (notes §2.9) and, for what it does not have, ours:
 * syncRateThreshold 1 (a rate test's value is rate / its limit);
 * lockOverhead 1 µs (a lock or unlock through libips2's wrappers);
 * barrierImbalanceThreshold 0.10 (10% of the attempted parallelism
 * waiting at barriers for the slowest thread); maxIPSprocedureCallRate
 * 30 M/s per thread (a traced call, entry and exit, costs ips2 about
 * 30 ns: bench/, so 15% of the time is 4.5 M calls/s), used only for
 * traces without the probes' calibration: instBottleneck otherwise
 * weighs each call by its measured cost (highInstOverheadThreshold 0.15:
 * the probes' time is 15% of the active time); highMsgThreshold
 * 0.20 (as the synchronisation one); late sender and late receiver 0.10
 * of the attempted parallelism; masterWorkerThreshold 0.10 (workers idle
 * for 10% of the attempted parallelism because the master shares the
 * work unevenly); limitedByApplicationThreshold 0.30 (30% of A's
 * inter-application critical path in B); loadCompensation 1 (0: off):
 * the time a thread was preempted is left out of its attempted
 * parallelism (thesis §8.1; search_space.c says how it is estimated). */
static const double constant_default[K_COUNT] = {
    0.20, 0.20, 1.0,  600000, 60000, 6000, 4.0,  1000, 0.10, 0.10, 4096, 0.50, 7000,
    0.10, 0.60, 1000, 0.10,   30e6,  0.15, 0.20, 0.10, 0.10, 0.10, 0.30, 1,
};

/* ----------------------------------------------------------- hypotheses --- */

enum test {
    T_NONE,
    T_BLOCKING,
    T_HOTSYNC,
    T_SYNCRATE,
    T_SMALLREGION,
    T_BARRIER,
    T_IOWAIT,
    T_SMALLIO,
    T_SEEKS,
    T_IOOPS,
    T_CPU,
    T_FAULTS,
    T_INST,
    T_MSGWAIT,
    T_LATESENDER,
    T_LATERECEIVER,
    T_MASTERWORKER,
    T_LIMITED,
};

enum hyp_id {
    H_TOP,
    H_SYNC,
    H_BLOCKING,
    H_HOTSYNC,
    H_RATES,
    H_REGION,
    H_BARRIER,
    H_IO,
    H_IOWAIT,
    H_SMALLIO,
    H_SEEKS,
    H_IOOPS,
    H_CPU,
    H_CPUBOUND,
    H_VM,
    H_FAULTS,
    H_MSG,
    H_MSGWAIT,
    H_LATESENDER,
    H_LATERECEIVER,
    H_MASTERWORKER,
    H_LIMITED,
    H_INST,
    H_COUNT,
};

#define W(h)    (1u << (h))
#define W_PLACE (W(IPS2_H_PROCESS) | W(IPS2_H_MACHINE) | W(IPS2_H_APP))

static const struct hyp {
    const char *name;
    int parent;
    enum test test;
    int constant; /* its main threshold; -1 without a test */
    bool less;    /* true when value < threshold */
    bool bounded; /* the value is a share: at most 1 */
    unsigned where;
    int hint; /* the hierarchy it hints to refine first, or -1 */
} hyps[H_COUNT] = {
    [H_TOP] = {"topLevelHypothesis", -1, T_NONE, -1, false, false, 0, -1},
    [H_SYNC] = {"syncBottleneck", H_TOP, T_NONE, -1, false, false, 0, -1},
    [H_BLOCKING] = {"excessiveBlockingTime", H_SYNC, T_BLOCKING, K_HIGH_SYNC, false, true,
                    W_PLACE | W(IPS2_H_CODE) | W(IPS2_H_SYNC), IPS2_H_SYNC},
    [H_HOTSYNC] = {"hotSync", H_BLOCKING, T_HOTSYNC, K_HOT_SYNC, false, true,
                   W(IPS2_H_SYNC) | W(IPS2_H_CODE), IPS2_H_SYNC},
    [H_RATES] = {"excessiveSyncRates", H_SYNC, T_SYNCRATE, K_SYNC_RATE, false, false,
                 W_PLACE | W(IPS2_H_CODE) | W(IPS2_H_SYNC), IPS2_H_SYNC},
    [H_REGION] = {"SyncRegionTooSmall", H_RATES, T_SMALLREGION, K_MIN_LOCK_SIZE, true, false,
                  W_PLACE | W(IPS2_H_CODE) | W(IPS2_H_SYNC), IPS2_H_CODE},
    [H_BARRIER] = {"barrierImbalance", H_SYNC, T_BARRIER, K_BARRIER, false, true,
                   W(IPS2_H_SYNC) | W(IPS2_H_APP), IPS2_H_SYNC},
    [H_IO] = {"ioBottleneck", H_TOP, T_NONE, -1, false, false, 0, -1},
    [H_IOWAIT] = {"excessiveIOBlockingTime", H_IO, T_IOWAIT, K_HIGH_IO, false, true,
                  W_PLACE | W(IPS2_H_CODE), IPS2_H_CODE},
    [H_SMALLIO] = {"excessiveSmallIOops", H_IOWAIT, T_SMALLIO, K_DISK_BLOCK, true, false,
                   W_PLACE | W(IPS2_H_CODE), IPS2_H_CODE},
    [H_SEEKS] = {"tooManySeeks", H_IOWAIT, T_SEEKS, K_SEEK_BOUND, false, true,
                 W_PLACE | W(IPS2_H_CODE), IPS2_H_CODE},
    [H_IOOPS] = {"excessiveIOoperations", H_IO, T_IOOPS, K_HIGH_IO_OPS, false, false,
                 W_PLACE | W(IPS2_H_CODE), IPS2_H_CODE},
    [H_CPU] = {"cpuBottleneck", H_TOP, T_NONE, -1, false, false, 0, -1},
    [H_CPUBOUND] = {"cpuBound", H_CPU, T_CPU, K_HIGH_CPU, false, true, W_PLACE | W(IPS2_H_CODE),
                    IPS2_H_CODE},
    [H_VM] = {"vmBottleneck", H_TOP, T_NONE, -1, false, false, 0, -1},
    [H_FAULTS] = {"tooManyPageFaults", H_VM, T_FAULTS, K_HIGH_PAGE_FAULT, false, false, W_PLACE,
                  -1},
    [H_MSG] = {"messageBottleneck", H_TOP, T_NONE, -1, false, false, 0, -1},
    [H_MSGWAIT] = {"excessiveMessageWaiting", H_MSG, T_MSGWAIT, K_HIGH_MSG, false, true,
                   W_PLACE | W(IPS2_H_CODE), IPS2_H_PROCESS},
    [H_LATESENDER] = {"lateSender", H_MSGWAIT, T_LATESENDER, K_LATE_SENDER, false, true,
                      W_PLACE | W(IPS2_H_SYNC), IPS2_H_SYNC},
    [H_LATERECEIVER] = {"lateReceiver", H_MSGWAIT, T_LATERECEIVER, K_LATE_RECEIVER, false, true,
                        W_PLACE | W(IPS2_H_SYNC), IPS2_H_SYNC},
    [H_MASTERWORKER] = {"masterWorkerImbalance", H_MSG, T_MASTERWORKER, K_MASTER_WORKER, false,
                        true, 0, IPS2_H_PROCESS},
    [H_LIMITED] = {"limitedByApplication", H_TOP, T_LIMITED, K_LIMITED, false, true, 0, IPS2_H_APP},
    [H_INST] = {"instBottleneck", H_TOP, T_INST, K_HIGH_INST, false, false,
                W_PLACE | W(IPS2_H_CODE), IPS2_H_CODE},
};

const char *const ips2_search_hypothesis_names[H_COUNT + 1] = {
    "topLevelHypothesis",
    "syncBottleneck",
    "excessiveBlockingTime",
    "hotSync",
    "excessiveSyncRates",
    "SyncRegionTooSmall",
    "barrierImbalance",
    "ioBottleneck",
    "excessiveIOBlockingTime",
    "excessiveSmallIOops",
    "tooManySeeks",
    "excessiveIOoperations",
    "cpuBottleneck",
    "cpuBound",
    "vmBottleneck",
    "tooManyPageFaults",
    "messageBottleneck",
    "excessiveMessageWaiting",
    "lateSender",
    "lateReceiver",
    "masterWorkerImbalance",
    "limitedByApplication",
    "instBottleneck",
    NULL,
};

static bool is_static(enum test t)
{
    return t == T_MASTERWORKER || t == T_LIMITED;
}

double ips2_search_constant_default(const char *name)
{
    for (int k = 0; k < K_COUNT; k++)
        if (strcmp(ips2_search_constant_names[k], name) == 0)
            return constant_default[k];
    for (int h = 0; h < H_COUNT; h++)
        if (strcmp(hyps[h].name, name) == 0 && hyps[h].constant >= 0)
            return constant_default[hyps[h].constant];
    return NAN;
}

void ips2_search_options_init(struct ips2_search_options *o)
{
    memset(o, 0, sizeof(*o));
    o->from_ns = INT64_MIN;
    o->to_ns = INT64_MAX;
    o->hysteresis = -1;
}

/* --------------------------------------------------------------- engine --- */

struct counter {
    int metric;
    struct sp_focus f;
    double *v; /* its series, made when first enabled */
    int refs;
    size_t since;
    uint64_t samples;
};

/* One term of a test: value = sum(num) / sum(den) over the samples. */
struct comp {
    int c[3]; /* counters (-1: none) */
    int res;  /* the object, kind or process it is about, or -1 */
    double k; /* a factor of its denominator (alone, with no counter for it) */
    double num, den;
};

struct node {
    int hyp;
    struct sp_focus f;
    size_t b0, b1; /* when */
    int parent;
    enum ips2_shg_state state;
    double value, threshold;
    char *why;
    char *detail; /* what the test found */
    int *ctr;     /* its counters */
    size_t nctr;
    struct comp *comp;
    size_t ncomp;
    int pick;     /* the component of the value */
    int hint_res; /* a resource its truth hints */
    size_t enable_b, true_b;
    int samples;
    bool queued, running, given_up_open, when_node, setup;
    int nodata;    /* a metric it needs that the session has no data of, or -1 */
    size_t seen_b; /* the last bucket it added (SIZE_MAX: none) */
    int kind;      /* 0: why, 1: where, 2: when */
    bool hinted, been_true, ignored;
    double share; /* critical-path share of what it refines */
    long seq;
    char *sortname;
    size_t hold_b0, hold_b1; /* where it holds */
};

struct engine {
    struct sp_space sp;
    const struct ips2_search_options *o;
    double k[K_COUNT];
    double hyst;
    int min, suff, maxeval;
    struct node *n;
    size_t nn, capn;
    struct smap nodemap, truemap, ctrmap;
    struct counter *c;
    size_t nc, capc;
    int *q; /* queued node ids */
    size_t nq, capq;
    int *run; /* running node ids (testing, or true and re-verified) */
    size_t nrun, caprun;
    int ntesting;
    double *cp_share; /* per resource known at start: its critical-path share */
    size_t ncp_share;
    double active_total; /* ns of the attempted parallelism of the whole space */
    long seq;
    bool oom;
    char *err;
};

static double threshold_of(const struct engine *e, int h)
{
    return hyps[h].constant >= 0 ? e->k[hyps[h].constant] : 0;
}

/* ----- counters ----- */

static int counter(struct engine *e, int metric, const struct sp_focus *f)
{
    char key[160], fk[128];
    int id;

    sp_focus_key(f, fk, sizeof(fk));
    snprintf(key, sizeof(key), "%d|%s", metric, fk);
    if ((id = smap_get(&e->ctrmap, key)) >= 0)
        return id;
    if (e->nc == e->capc) {
        size_t ncap = e->capc ? 2 * e->capc : 64;
        void *p = realloc(e->c, ncap * sizeof(*e->c));
        if (p == NULL)
            goto oom;
        e->c = p;
        e->capc = ncap;
    }
    struct counter *c = &e->c[e->nc];
    memset(c, 0, sizeof(*c));
    c->metric = metric;
    c->f = *f;
    if (smap_put(&e->ctrmap, key, (int)e->nc) != 0)
        goto oom;
    return (int)e->nc++;
oom:
    e->oom = true;
    return -1;
}

static const double *series(struct engine *e, int id)
{
    struct counter *c = &e->c[id];
    if (c->v == NULL) {
        if ((c->v = malloc((e->sp.nb ? e->sp.nb : 1) * sizeof(double))) == NULL) {
            e->oom = true;
            return NULL;
        }
        sp_series(&e->sp, c->metric, &c->f, c->v);
    }
    return c->v;
}

static void enable(struct engine *e, struct node *x, size_t b)
{
    for (size_t i = 0; i < x->nctr; i++) {
        struct counter *c = &e->c[x->ctr[i]];
        if (c->refs++ == 0)
            c->since = b;
        series(e, x->ctr[i]);
    }
}

static void disable(struct engine *e, struct node *x, size_t b)
{
    for (size_t i = 0; i < x->nctr; i++) {
        struct counter *c = &e->c[x->ctr[i]];
        if (c->refs > 0 && --c->refs == 0)
            c->samples += b > c->since ? b - c->since : 0;
    }
}

/* ----- tests ----- */

static struct sp_focus app_scope(const struct engine *e, const struct sp_focus *f)
{
    struct sp_focus a = {{-1, -1, -1, -1, -1}};
    a.at[IPS2_H_APP] = sp_focus_app(&e->sp, f);
    return a;
}

static int add_ctr(struct engine *e, struct node *x, int metric, const struct sp_focus *f)
{
    if (!e->sp.has[metric]) {
        x->nodata = metric;
        return -1;
    }
    int id = counter(e, metric, f);
    if (id < 0)
        return -1;
    for (size_t i = 0; i < x->nctr; i++)
        if (x->ctr[i] == id)
            return id;
    void *p = realloc(x->ctr, (x->nctr + 1) * sizeof(int));
    if (p == NULL) {
        e->oom = true;
        return -1;
    }
    x->ctr = p;
    x->ctr[x->nctr++] = id;
    return id;
}

static struct comp *add_comp(struct engine *e, struct node *x, int c0, int c1, int c2, int res,
                             double k)
{
    void *p = realloc(x->comp, (x->ncomp + 1) * sizeof(*x->comp));
    if (p == NULL) {
        e->oom = true;
        return NULL;
    }
    x->comp = p;
    struct comp *c = &x->comp[x->ncomp++];
    *c = (struct comp){{c0, c1, c2}, res, k, 0, 0};
    return c;
}

static bool is_channel(const struct sp_space *sp, int r)
{
    int k = sp->res[r].kind >= 0 ? sp->res[r].kind : r;
    return strcmp(sp->res[k].name, "channel") == 0;
}

static double rate_limit(const struct engine *e, const char *kind)
{
    if (strcmp(kind, "barrier") == 0 || strcmp(kind, "user_barrier") == 0)
        return e->k[K_MAX_BARRIER_RATE] * 0.20;
    if (strcmp(kind, "sem") == 0)
        return e->k[K_MAX_SEM_RATE];
    if (strcmp(kind, "cond") == 0 || strcmp(kind, "any") == 0)
        return 0;
    return e->k[K_MAX_LOCK_RATE];
}

/* The objects (or kinds) below sync with data in f, not channels. */
static void sync_children(struct engine *e, const struct sp_focus *f, int sync, bool kinds,
                          int **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    for (size_t r = 0; r < e->sp.nres; r++) {
        const struct sp_resource *x = &e->sp.res[r];
        if (x->hier != IPS2_H_SYNC || is_channel(&e->sp, (int)r))
            continue;
        if (kinds ? x->parent != -1 : x->parent == -1)
            continue;
        if (!sp_within(&e->sp, (int)r, sync))
            continue;
        struct sp_focus g = *f;
        g.at[IPS2_H_SYNC] = (int)r;
        if (!sp_has_data(&e->sp, &g))
            continue;
        void *p = realloc(*out, (*n + 1) * sizeof(int));
        if (p == NULL) {
            e->oom = true;
            return;
        }
        *out = p;
        (*out)[(*n)++] = (int)r;
    }
}

static double static_value(struct engine *e, struct node *x);

/* Makes the node's counters and components. */
static void setup_test(struct engine *e, struct node *x)
{
    struct sp_focus f = x->f, a = app_scope(e, &x->f), root = f;
    root.at[IPS2_H_SYNC] = -1;
    int act = -1;

    x->setup = true;
    switch (hyps[x->hyp].test) {
    case T_NONE:
        return;
    case T_MASTERWORKER:
    case T_LIMITED:
        x->value = static_value(e, x);
        return;
    case T_BLOCKING:
        add_comp(e, x, add_ctr(e, x, SM_SYNC_WAIT, &f), add_ctr(e, x, SM_ACTIVE, &a), -1, -1, 1);
        return;
    case T_HOTSYNC: {
        /* the object's share of all the waiting of the focus's application */
        struct sp_focus all = a;
        int total = add_ctr(e, x, SM_SYNC_WAIT, &all);
        if (f.at[IPS2_H_SYNC] >= 0 && e->sp.res[f.at[IPS2_H_SYNC]].parent >= 0) {
            add_comp(e, x, add_ctr(e, x, SM_SYNC_WAIT, &f), total, -1, f.at[IPS2_H_SYNC], 1);
            return;
        }
        int *objs;
        size_t n;
        sync_children(e, &f, f.at[IPS2_H_SYNC], false, &objs, &n);
        for (size_t i = 0; i < n; i++) {
            struct sp_focus g = f;
            g.at[IPS2_H_SYNC] = objs[i];
            add_comp(e, x, add_ctr(e, x, SM_SYNC_WAIT, &g), total, -1, objs[i], 1);
        }
        free(objs);
        return;
    }
    case T_SYNCRATE: {
        act = add_ctr(e, x, SM_ACTIVE, &a);
        int s = f.at[IPS2_H_SYNC];
        if (s >= 0) {
            int kind = e->sp.res[s].kind >= 0 ? e->sp.res[s].kind : s;
            double lim = rate_limit(e, e->sp.res[kind].name);
            if (lim > 0)
                add_comp(e, x, add_ctr(e, x, SM_SYNC_OPS, &f), act, -1, s, lim / 1e9);
            return;
        }
        int *kinds;
        size_t n;
        sync_children(e, &f, -1, true, &kinds, &n);
        for (size_t i = 0; i < n; i++) {
            double lim = rate_limit(e, e->sp.res[kinds[i]].name);
            struct sp_focus g = f;
            g.at[IPS2_H_SYNC] = kinds[i];
            if (lim > 0)
                add_comp(e, x, add_ctr(e, x, SM_SYNC_OPS, &g), act, -1, kinds[i], lim / 1e9);
        }
        free(kinds);
        return;
    }
    case T_SMALLREGION:
        add_comp(e, x, add_ctr(e, x, SM_CPU, &root), add_ctr(e, x, SM_SYNC_OPS, &f), -1, -1,
                 e->k[K_LOCK_OVERHEAD]);
        return;
    case T_BARRIER: {
        /* one counter per thread of the place and barrier kind (or the focus's object) */
        act = add_ctr(e, x, SM_ACTIVE, &a);
        int *targets = NULL;
        size_t nt = 0;
        if (f.at[IPS2_H_SYNC] >= 0) {
            if ((targets = malloc(sizeof(int))) != NULL)
                targets[nt++] = f.at[IPS2_H_SYNC];
        } else {
            int *kinds;
            size_t n;
            sync_children(e, &f, -1, true, &kinds, &n);
            for (size_t i = 0; i < n; i++)
                if (strstr(e->sp.res[kinds[i]].name, "barrier") != NULL)
                    kinds[nt++] = kinds[i];
            targets = kinds;
        }
        struct comp *c = add_comp(e, x, -1, act, -1, -1, 1);
        if (c == NULL)
            break;
        for (size_t i = 0; i < e->sp.nthreads; i++) {
            const struct sp_thread *t = &e->sp.threads[i];
            if (!sp_thread_in(&e->sp, t, &f))
                continue;
            for (size_t k = 0; k < nt; k++) {
                struct sp_focus g = {{-1, t->chain[2], targets[k], -1, -1}};
                if (sp_has_data(&e->sp, &g))
                    add_ctr(e, x, SM_SYNC_WAIT, &g);
            }
        }
        free(targets);
        return;
    }
    case T_IOWAIT:
        add_comp(e, x, add_ctr(e, x, SM_IO_TIME, &f), add_ctr(e, x, SM_ACTIVE, &a), -1, -1, 1);
        return;
    case T_SMALLIO:
        add_comp(e, x, add_ctr(e, x, SM_IO_BYTES, &f), add_ctr(e, x, SM_IO_OPS, &f), -1, -1, 1);
        return;
    case T_SEEKS:
        add_comp(e, x, add_ctr(e, x, SM_SEEK, &f), add_ctr(e, x, SM_SEEK, &f),
                 add_ctr(e, x, SM_IO_TIME, &f), -1, 1);
        return;
    case T_IOOPS:
        add_comp(e, x, add_ctr(e, x, SM_IO_OPS, &f), add_ctr(e, x, SM_ACTIVE, &a), -1, -1,
                 e->k[K_CONTEXT_SWITCH] / 1e9);
        return;
    case T_CPU:
        add_comp(e, x, add_ctr(e, x, SM_CPU, &f), add_ctr(e, x, SM_ACTIVE, &a), -1, -1, 1);
        return;
    case T_FAULTS:
        add_comp(e, x, add_ctr(e, x, SM_FAULTS, &f), -1, -1, -1,
                 (double)e->sp.width / 1e9 * e->k[K_PAGE_FAULT_LIMIT]);
        return;
    case T_INST:
        /* the probes' time (calls x a call's calibrated cost) as a share of
         * the active time; traces without calibration: the calls against
         * maxIPSprocedureCallRate, as if a call cost 1 / that rate */
        add_comp(e, x, add_ctr(e, x, SM_CALLS, &f), add_ctr(e, x, SM_ACTIVE, &a), -1, -1,
                 e->sp.call_cost_ns > 0 ? 1.0 / e->sp.call_cost_ns : e->k[K_MAX_CALL_RATE] / 1e9);
        return;
    case T_MSGWAIT:
        add_comp(e, x, add_ctr(e, x, SM_MSG_WAIT, &f), add_ctr(e, x, SM_ACTIVE, &a), -1, -1, 1);
        return;
    case T_LATESENDER:
    case T_LATERECEIVER: {
        if (e->sp.msgs == NULL)
            return; /* untestable: no message waits */
        int m = hyps[x->hyp].test == T_LATESENDER ? SM_LATE_SENDER : SM_LATE_RECEIVER;
        add_comp(e, x, add_ctr(e, x, m, &f), add_ctr(e, x, SM_ACTIVE, &a), -1, f.at[IPS2_H_SYNC],
                 1);
        return;
    }
    }
}

/* A component's numerator and denominator at bucket b. */
static void comp_at(struct engine *e, struct node *x, struct comp *c, size_t b, double *num,
                    double *den)
{
    const double *v0 = c->c[0] >= 0 ? e->c[c->c[0]].v : NULL;
    const double *v1 = c->c[1] >= 0 ? e->c[c->c[1]].v : NULL;
    const double *v2 = c->c[2] >= 0 ? e->c[c->c[2]].v : NULL;

    if (hyps[x->hyp].test == T_BARRIER) {
        /* the waits of each thread above the least waiting one's */
        double sum = 0, least = INFINITY;
        size_t n = 0;
        for (size_t i = 0; i < x->nctr; i++) {
            const struct counter *k = &e->c[x->ctr[i]];
            if (k->metric != SM_SYNC_WAIT || k->v == NULL)
                continue;
            sum += k->v[b];
            least = k->v[b] < least ? k->v[b] : least;
            n++;
        }
        *num = n >= 2 ? sum - (double)n * least : 0;
        *den = v1 ? v1[b] : 0;
        return;
    }
    *num = v0 ? v0[b] : 0;
    *den = c->c[1] < 0 ? c->k : ((v1 ? v1[b] : 0) + (v2 ? v2[b] : 0)) * c->k;
}

/* The value from the sums; pick gets the component. */
static double value_of(const struct node *x, int *pick)
{
    bool less = hyps[x->hyp].less;
    double best = NAN;
    *pick = -1;
    for (size_t i = 0; i < x->ncomp; i++) {
        const struct comp *c = &x->comp[i];
        if (c->den <= 0)
            continue;
        double v = c->num / c->den;
        if (isnan(best) || (less ? v < best : v > best)) {
            best = v;
            *pick = (int)i;
        }
    }
    if (isnan(best))
        return less ? NAN : 0;
    return best;
}

static bool holds(const struct node *x, double v, double t)
{
    if (isnan(v))
        return false;
    return hyps[x->hyp].less ? v < t : v > t;
}

/* ----- the critical path and the messages (static tests) ----- */

static bool path_in_app(const char *path, const char *app)
{
    size_t n = strlen(app);
    return strncmp(path, app, n) == 0 && path[n] == '/';
}

/* The share of application A's inter-application path in what focus f
 * selects of another application (its processes, its procedures), the
 * largest over A; *limited gets that A. */
static double limited_share(struct engine *e, const struct sp_focus *f, const char **limited)
{
    const struct sp_space *sp = &e->sp;
    double best = 0;
    int code = f->at[IPS2_H_CODE], proc = f->at[IPS2_H_PROCESS], app = f->at[IPS2_H_APP];
    *limited = NULL;
    for (size_t i = 0; i < e->o->ncp; i++) {
        const struct ips2_search_cp *cp = &e->o->cp[i];
        char self[512];
        if (!cp->inter || cp->procedure_level != (code >= 0))
            continue;
        snprintf(self, sizeof(self), "app:%s", cp->app);
        /* each other application's share, in what f selects */
        for (size_t r = 0; r < cp->nrows; r++) {
            const char *slash, *path = cp->rows[r].path;
            if (path == NULL || strncmp(path, "app:", 4) != 0 || path_in_app(path, self) ||
                (slash = strchr(path, '/')) == NULL)
                continue;
            size_t alen = (size_t)(slash - path);
            bool first = true;
            for (size_t k = 0; k < r; k++) /* once per application */
                if (cp->rows[k].path && strncmp(cp->rows[k].path, path, alen + 1) == 0)
                    first = false;
            if (!first)
                continue;
            if (app >= 0 &&
                (strlen(sp->res[app].name) != alen || strncmp(sp->res[app].name, path, alen) != 0))
                continue;
            double share = 0;
            for (size_t k = r; k < cp->nrows; k++) {
                const struct ips2_search_cp_row *row = &cp->rows[k];
                if (row->path == NULL || strncmp(row->path, path, alen + 1) != 0)
                    continue;
                if (proc >= 0 && !(strcmp(row->path, sp->res[proc].name) == 0 ||
                                   path_in_app(row->path, sp->res[proc].name)))
                    continue;
                if (code >= 0 && strcmp(row->name, sp->res[code].name) != 0)
                    continue;
                share += row->percent / 100.0;
            }
            if (share > best) {
                best = share;
                *limited = cp->app;
            }
        }
    }
    return best;
}

/* The attempted parallelism (ns) of the application of a process path,
 * or of the whole space. */
static double app_active(struct engine *e, const char *path)
{
    const struct sp_space *sp = &e->sp;
    struct sp_focus f = {{-1, -1, -1, -1, -1}};
    for (size_t r = 0; r < sp->nres; r++)
        if (sp->res[r].hier == IPS2_H_APP && path_in_app(path, sp->res[r].name))
            f.at[IPS2_H_APP] = (int)r;
    if (f.at[IPS2_H_APP] < 0)
        return e->active_total;
    double *v = malloc((sp->nb ? sp->nb : 1) * sizeof(double)), sum = 0;
    if (v == NULL)
        return e->active_total;
    sp_series(sp, SM_ACTIVE, &f, v);
    for (size_t b = 0; b < sp->nb; b++)
        sum += v[b];
    free(v);
    return sum;
}

static double static_value(struct engine *e, struct node *x)
{
    const struct sp_space *sp = &e->sp;
    if (hyps[x->hyp].test == T_LIMITED) {
        const char *a = NULL;
        double v = limited_share(e, &x->f, &a);
        free(x->detail);
        x->detail = a ? strdup(a) : NULL;
        return v;
    }
    /* masterWorkerImbalance: the workers' idle time for want of work */
    double best = 0;
    if (sp->msgs == NULL || e->active_total <= 0)
        return 0;
    for (size_t g = 0; g < sp->msgs->ngroups; g++) {
        const struct msg_group *grp = &sp->msgs->groups[g];
        int p = x->f.at[IPS2_H_PROCESS];
        if (p >= 0 && strcmp(sp->res[p].name, grp->master) != 0)
            continue;
        double idle = 0, active = app_active(e, grp->master);
        for (size_t w = 0; w < grp->nworkers; w++)
            idle += (double)(grp->max_busy - grp->workers[w].busy);
        double v = active > 0 ? idle / active : 0;
        if (v > best) {
            best = v;
            free(x->detail);
            x->detail = strdup(grp->master);
        }
    }
    return best;
}

/* ----- nodes and the queue ----- */

static char *node_sortname(const struct engine *e, int hyp, const struct sp_focus *f)
{
    size_t len = strlen(hyps[hyp].name) + 2;
    for (int h = 0; h < IPS2_H_COUNT; h++)
        if (f->at[h] >= 0)
            len += strlen(e->sp.res[f->at[h]].name) + 1;
    char *s = malloc(len);
    if (s == NULL)
        return NULL;
    strcpy(s, hyps[hyp].name);
    for (int h = 0; h < IPS2_H_COUNT; h++)
        if (f->at[h] >= 0) {
            strcat(s, " ");
            strcat(s, e->sp.res[f->at[h]].name);
        }
    return s;
}

static int cmp_queue_ctx(const struct engine *e, int a, int b)
{
    const struct node *x = &e->n[a], *y = &e->n[b];
    if (x->ignored != y->ignored)
        return x->ignored ? 1 : -1;
    if (x->hinted != y->hinted)
        return x->hinted ? -1 : 1;
    if ((x->kind == 0) != (y->kind == 0))
        return x->kind == 0 ? -1 : 1;
    if (x->been_true != y->been_true)
        return x->been_true ? -1 : 1;
    if (x->share != y->share)
        return x->share > y->share ? -1 : 1;
    int c = strcmp(x->sortname ? x->sortname : "", y->sortname ? y->sortname : "");
    if (c != 0)
        return c;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_queue(const void *a, const void *b, void *ctx)
{
    return cmp_queue_ctx(ctx, *(const int *)a, *(const int *)b);
}

static void sort_queue(struct engine *e)
{
    if (e->nq > 1)
        qsort_r(e->q, e->nq, sizeof(int), cmp_queue, e);
}

static int push(struct engine *e, int **a, size_t *n, size_t *cap, int v)
{
    if (*n == *cap) {
        size_t ncap = *cap ? 2 * *cap : 64;
        void *p = realloc(*a, ncap * sizeof(int));
        if (p == NULL) {
            e->oom = true;
            return -1;
        }
        *a = p;
        *cap = ncap;
    }
    (*a)[(*n)++] = v;
    return 0;
}

static void set_why(struct engine *e, struct node *x, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_why(struct engine *e, struct node *x, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    free(x->why);
    if ((x->why = strdup(buf)) == NULL)
        e->oom = true;
}

static double seconds(const struct engine *e, size_t b)
{
    return (double)(e->sp.origin + (int64_t)(b * e->sp.width)) / 1e9;
}

static double cp_share_of(const struct engine *e, int r)
{
    return r >= 0 && (size_t)r < e->ncp_share ? e->cp_share[r] : 0;
}

static int expand(struct engine *e, int id, size_t b);

/* A node for (hyp, f) under parent in [b0, b1), unless there is one:
 * queued, or expanded at once for a hypothesis without a test. */
static int add_node(struct engine *e, int hyp, const struct sp_focus *f, int parent, int kind,
                    size_t b0, size_t b1, int refined)
{
    char key[256], fk[128];
    const struct sp_focus focus = *f; /* f may be a node's: e->n moves below */
    f = &focus;
    sp_focus_key(f, fk, sizeof(fk));
    snprintf(key, sizeof(key), "%d|%s|%zu|%zu", hyp, fk, b0, b1);
    if (smap_get(&e->nodemap, key) >= 0)
        return 0;
    if (e->nn == e->capn) {
        size_t ncap = e->capn ? 2 * e->capn : 128;
        void *p = realloc(e->n, ncap * sizeof(*e->n));
        if (p == NULL)
            goto oom;
        e->n = p;
        e->capn = ncap;
    }
    int id = (int)e->nn;
    struct node *x = &e->n[id];
    memset(x, 0, sizeof(*x));
    x->hyp = hyp;
    x->f = *f;
    x->b0 = b0;
    x->b1 = b1;
    x->parent = parent;
    x->kind = kind;
    x->pick = -1;
    x->hint_res = -1;
    x->nodata = -1;
    x->seen_b = SIZE_MAX;
    x->seq = e->seq++;
    x->threshold = threshold_of(e, hyp);
    x->sortname = node_sortname(e, hyp, f);
    x->share = cp_share_of(e, refined);
    for (size_t i = 0; refined >= 0 && i < e->o->nignore; i++)
        x->ignored = x->ignored || strcmp(e->sp.res[refined].name, e->o->ignore[i]) == 0;
    if (parent >= 0 && e->n[parent].ignored)
        x->ignored = true;
    if (parent >= 0) {
        const struct node *p = &e->n[parent];
        int hint = hyps[p->hyp].hint;
        x->hinted = (kind == 1 && refined >= 0 &&
                     (refined == p->hint_res || (hint >= 0 && e->sp.res[refined].hier == hint))) ||
                    x->share >= 0.10;
    }
    char tk[200];
    snprintf(tk, sizeof(tk), "%d|%s", hyp, fk);
    x->been_true = smap_get(&e->truemap, tk) >= 0;
    e->nn++;
    if (smap_put(&e->nodemap, key, id) != 0)
        goto oom;
    if (hyps[hyp].test == T_NONE) {
        x->state = IPS2_SHG_TESTING;
        set_why(e, x, "no test of its own: true when one of its refinements is");
        return expand(e, id, b0);
    }
    x->queued = true;
    set_why(e, x, "not tried yet");
    return push(e, &e->q, &e->nq, &e->capq, id);
oom:
    e->oom = true;
    return -1;
}

static bool same_threads(const struct engine *e, const struct sp_focus *a, const struct sp_focus *b,
                         uint64_t *bits)
{
    uint64_t *x = bits, *y = bits + e->sp.words;
    sp_threads_of(&e->sp, a, x);
    sp_threads_of(&e->sp, b, y);
    return memcmp(x, y, e->sp.words * sizeof(uint64_t)) == 0;
}

/* Where-magnifications of node id along hierarchy h from resource cur
 * (descending through those that select the same data). */
static void magnify(struct engine *e, int id, int h, int cur, uint64_t *bits, int depth)
{
    bool chan_hyp =
        hyps[e->n[id].hyp].test == T_LATESENDER || hyps[e->n[id].hyp].test == T_LATERECEIVER;
    if (depth > 4)
        return;
    for (size_t r = 0; r < e->sp.nres && !e->oom; r++) {
        const struct sp_resource *res = &e->sp.res[r];
        if (res->hier != h || res->parent != cur)
            continue;
        if (h == IPS2_H_SYNC && is_channel(&e->sp, (int)r) != chan_hyp)
            continue;
        struct sp_focus g = e->n[id].f;
        g.at[h] = (int)r;
        if (!sp_has_data(&e->sp, &g))
            continue;
        bool same = false;
        if (h == IPS2_H_PROCESS || h == IPS2_H_MACHINE || h == IPS2_H_APP) {
            struct sp_focus from = e->n[id].f;
            from.at[h] = cur;
            same = same_threads(e, &from, &g, bits);
        } else if (h == IPS2_H_SYNC && res->parent < 0) {
            int *objs;
            size_t n;
            sync_children(e, &g, (int)r, false, &objs, &n);
            same = n == 1 && !chan_hyp;
            free(objs);
        }
        if (same) {
            magnify(e, id, h, (int)r, bits, depth + 1);
            continue;
        }
        if (h == IPS2_H_PROCESS)
            g.at[IPS2_H_MACHINE] = g.at[IPS2_H_APP] = -1;
        add_node(e, e->n[id].hyp, &g, id, 1, e->n[id].b0, e->n[id].b1, (int)r);
    }
}

/* The static hypotheses' where: the masters; the limiting applications,
 * then their processes and procedures (from the critical path's rows). */
static void magnify_static(struct engine *e, int id)
{
    struct node *x = &e->n[id];
    struct sp_focus f = x->f;
    int hyp = x->hyp;
    size_t b0 = x->b0, b1 = x->b1;

    if (hyps[hyp].test == T_MASTERWORKER) {
        if (e->sp.msgs == NULL || f.at[IPS2_H_PROCESS] >= 0)
            return;
        for (size_t g = 0; g < e->sp.msgs->ngroups; g++) {
            struct sp_focus m = f;
            m.at[IPS2_H_PROCESS] =
                sp_resource(&e->sp, IPS2_H_PROCESS, e->sp.msgs->groups[g].master, -1);
            if (m.at[IPS2_H_PROCESS] >= 0)
                add_node(e, hyp, &m, id, 1, b0, b1, m.at[IPS2_H_PROCESS]);
        }
        return;
    }
    for (size_t i = 0; i < e->o->ncp; i++) {
        const struct ips2_search_cp *cp = &e->o->cp[i];
        char self[512];
        if (!cp->inter)
            continue;
        snprintf(self, sizeof(self), "app:%s", cp->app);
        for (size_t r = 0; r < cp->nrows; r++) {
            const struct ips2_search_cp_row *row = &cp->rows[r];
            char app[512];
            const char *slash;
            if (row->path == NULL || strncmp(row->path, "app:", 4) != 0 ||
                path_in_app(row->path, self) || (slash = strchr(row->path, '/')) == NULL)
                continue;
            snprintf(app, sizeof(app), "%.*s", (int)(slash - row->path), row->path);
            int ar = sp_resource(&e->sp, IPS2_H_APP, app, -1);
            struct sp_focus g = {{-1, -1, -1, -1, -1}};
            if (ar < 0)
                continue;
            if (f.at[IPS2_H_APP] < 0 && f.at[IPS2_H_PROCESS] < 0) { /* root: the application */
                g.at[IPS2_H_APP] = ar;
                add_node(e, hyp, &g, id, 1, b0, b1, ar);
            } else if (f.at[IPS2_H_APP] == ar && f.at[IPS2_H_CODE] < 0) {
                if (!cp->procedure_level) { /* its processes */
                    g.at[IPS2_H_PROCESS] = sp_resource(&e->sp, IPS2_H_PROCESS, row->path, -1);
                    if (g.at[IPS2_H_PROCESS] >= 0)
                        add_node(e, hyp, &g, id, 1, b0, b1, g.at[IPS2_H_PROCESS]);
                } else { /* its procedures */
                    g.at[IPS2_H_APP] = ar;
                    g.at[IPS2_H_CODE] = sp_resource(&e->sp, IPS2_H_CODE, row->name, -1);
                    if (g.at[IPS2_H_CODE] >= 0)
                        add_node(e, hyp, &g, id, 1, b0, b1, g.at[IPS2_H_CODE]);
                }
            }
        }
    }
}

/* Queues the refinements of a true node (or of one without a test). */
static int expand(struct engine *e, int id, size_t b)
{
    int hyp = e->n[id].hyp;
    (void)b;
    for (int h = 0; h < H_COUNT; h++)
        if (hyps[h].parent == hyp)
            add_node(e, h, &e->n[id].f, id, 0, e->n[id].b0, e->n[id].b1, -1);
    if (hyps[hyp].test == T_NONE)
        return e->oom ? -1 : 0;
    if (is_static(hyps[hyp].test)) {
        magnify_static(e, id);
    } else {
        uint64_t *bits = malloc(2 * e->sp.words * sizeof(uint64_t));
        if (bits == NULL) {
            e->oom = true;
            return -1;
        }
        for (int h = 0; h < IPS2_H_COUNT; h++) {
            const struct sp_focus *f = &e->n[id].f;
            if (!(hyps[hyp].where & W(h)))
                continue;
            if ((h == IPS2_H_MACHINE || h == IPS2_H_APP) && f->at[IPS2_H_PROCESS] >= 0)
                continue;
            if (h == IPS2_H_SYNC && f->at[IPS2_H_SYNC] >= 0 &&
                e->sp.res[f->at[IPS2_H_SYNC]].parent >= 0)
                continue;
            magnify(e, id, h, f->at[h], bits, 0);
        }
        free(bits);
    }
    sort_queue(e);
    return e->oom ? -1 : 0;
}

/* ----- the run ----- */

static void stop(struct engine *e, int id, size_t b)
{
    struct node *x = &e->n[id];
    if (!x->running)
        return;
    disable(e, x, b);
    x->running = false;
    if (x->state == IPS2_SHG_TESTING)
        e->ntesting--;
    for (size_t i = 0; i < e->nrun; i++)
        if (e->run[i] == id) {
            e->run[i] = e->run[--e->nrun];
            break;
        }
}

static void dequeue(struct engine *e, int id);

/* A test on the critical path or the message waits: its value does not
 * change with time, so it is decided at once, and so are its
 * refinements. */
static void decide_static(struct engine *e, int id, size_t b)
{
    struct node *x = &e->n[id];
    if (!holds(x, x->value, x->threshold)) {
        x->state = IPS2_SHG_FALSE;
        set_why(e, x, "false: %.4g not beyond %.4g (from the %s, whole interval)", x->value,
                x->threshold,
                hyps[x->hyp].test == T_LIMITED ? "inter-application critical path"
                                               : "message waits");
        return;
    }
    char tk[200], fk[128];
    x->state = IPS2_SHG_TRUE;
    x->true_b = b;
    x->enable_b = x->b0;
    set_why(e, x, "true: %.4g > %.4g (from the %s, whole interval); refined", x->value,
            x->threshold,
            hyps[x->hyp].test == T_LIMITED ? "inter-application critical path" : "message waits");
    sp_focus_key(&x->f, fk, sizeof(fk));
    snprintf(tk, sizeof(tk), "%d|%s", x->hyp, fk);
    smap_put(&e->truemap, tk, 1);
    size_t before = e->nn;
    expand(e, id, b);
    for (size_t c = before; c < e->nn; c++)
        if (e->n[c].queued && e->n[c].parent == id && is_static(hyps[e->n[c].hyp].test)) {
            dequeue(e, (int)c);
            e->n[c].setup = true;
            e->n[c].value = static_value(e, &e->n[c]);
            decide_static(e, (int)c, b);
        }
}

static void start(struct engine *e, int id, size_t b)
{
    struct node *x = &e->n[id];
    x->queued = false;
    if (!x->setup)
        setup_test(e, x);
    x = &e->n[id];
    if (is_static(hyps[x->hyp].test)) {
        decide_static(e, id, b);
        return;
    }
    x->state = IPS2_SHG_TESTING;
    x->enable_b = b;
    x->samples = 0;
    for (size_t i = 0; i < x->ncomp; i++)
        x->comp[i].num = x->comp[i].den = 0;
    if ((hyps[x->hyp].test == T_LATESENDER || hyps[x->hyp].test == T_LATERECEIVER) &&
        e->sp.msgs == NULL) {
        x->state = IPS2_SHG_UNTESTED;
        set_why(e, x, "cannot be tested: no message waits (the critical-path parts)");
        return;
    }
    if (!is_static(hyps[x->hyp].test) &&
        (x->ncomp == 0 || x->nodata >= 0 || (hyps[x->hyp].test == T_BARRIER && x->nctr < 3))) {
        x->state = IPS2_SHG_FALSE;
        set_why(e, x, "false: nothing to measure: %s%s",
                x->nodata >= 0 ? "the session has no data of " : "no objects of its kind",
                x->nodata >= 0 ? sm_names[x->nodata] : "");
        return;
    }
    enable(e, x, b);
    x->running = true;
    e->ntesting++;
    set_why(e, x, "being tested since %.3f s", seconds(e, b));
    push(e, &e->run, &e->nrun, &e->caprun, id);
}

static bool ancestor(const struct engine *e, int anc, int id)
{
    for (int p = e->n[id].parent; p >= 0; p = e->n[p].parent)
        if (p == anc)
            return true;
    return false;
}

static void dequeue(struct engine *e, int id)
{
    for (size_t i = 0; i < e->nq; i++)
        if (e->q[i] == id) {
            memmove(&e->q[i], &e->q[i + 1], (e->nq - i - 1) * sizeof(int));
            e->nq--;
            break;
        }
    e->n[id].queued = false;
}

/* Re-verification failed at bucket b: reset below x, queue x again. */
static void became_false(struct engine *e, int id, size_t b)
{
    const char *name = hyps[e->n[id].hyp].name;
    stop(e, id, b + 1);
    e->n[id].state = IPS2_SHG_FALSE;
    set_why(e, &e->n[id], "re-verified false at %.3f s: %.4g no longer beyond %.4g x %.3g",
            seconds(e, b + 1), e->n[id].value, e->hyst, e->n[id].threshold);
    for (size_t y = 0; y < e->nn; y++) {
        if (!ancestor(e, id, (int)y))
            continue;
        struct node *z = &e->n[y];
        if (z->queued) {
            dequeue(e, (int)y);
            set_why(e, z, "not tried: %s above it became false at %.3f s", name, seconds(e, b + 1));
        } else if (z->running && z->state == IPS2_SHG_TESTING) {
            stop(e, (int)y, b + 1);
            z->state = IPS2_SHG_UNTESTED;
            set_why(e, z, "stopped: %s above it became false at %.3f s", name, seconds(e, b + 1));
        } else if (z->state == IPS2_SHG_TRUE || z->state == IPS2_SHG_TESTING) {
            stop(e, (int)y, b + 1);
            z->state = IPS2_SHG_FALSE;
            set_why(e, z, "false: %s above it became false at %.3f s", name, seconds(e, b + 1));
        }
    }
    struct node *x = &e->n[id];
    if (x->parent < 0 || e->n[x->parent].state != IPS2_SHG_FALSE) {
        x->state = IPS2_SHG_UNTESTED;
        x->been_true = true;
        x->queued = true;
        push(e, &e->q, &e->nq, &e->capq, id);
        sort_queue(e);
    }
}

static void give_up(struct engine *e, int id, size_t b)
{
    struct node *x = &e->n[id];
    double num = 0, den = 0;
    if (x->pick >= 0) {
        num = x->comp[x->pick].num;
        den = x->comp[x->pick].den;
    } else if (x->ncomp) {
        num = x->comp[0].num;
        den = x->comp[0].den;
    }
    /* notes §2.4 [DERIVED]: could what was not observed of its interval make it true? */
    size_t span = x->b1 - x->b0, seen = (size_t)x->samples;
    size_t rest = span > seen ? span - seen : 0; /* not observed: before it or after */
    double rest_den = x->samples > 0 ? den / x->samples * (double)rest : 0;
    bool concluded;
    if (is_static(hyps[x->hyp].test))
        concluded = true; /* its value does not change with time */
    else if (hyps[x->hyp].less)
        concluded = rest == 0;
    else if (hyps[x->hyp].bounded)
        concluded = rest == 0 ||
                    (den + rest_den > 0 && (num + rest_den) / (den + rest_den) <= x->threshold);
    else
        concluded = rest == 0;
    stop(e, id, b + 1);
    x = &e->n[id];
    x->state = IPS2_SHG_FALSE;
    x->given_up_open = !concluded;
    if (concluded)
        set_why(e, x,
                "false: %.4g not beyond %.4g after %d samples, and the rest of the "
                "interval could not make it so",
                x->value, x->threshold, x->samples);
    else
        set_why(e, x,
                "given up after %d samples (sufficient observation time): %.4g not beyond "
                "%.4g, not concluded false",
                x->samples, x->value, x->threshold);
}

static void evaluate(struct engine *e, int id, size_t b)
{
    struct node *x = &e->n[id];
    int pick;

    if (is_static(hyps[x->hyp].test)) {
        /* value known from the critical path or the message waits */
    } else {
        for (size_t i = 0; i < x->ncomp; i++) {
            double num, den;
            comp_at(e, x, &x->comp[i], b, &num, &den);
            x->comp[i].num += num;
            x->comp[i].den += den;
        }
        x->value = value_of(x, &pick);
        x->pick = pick;
        if (pick >= 0)
            x->hint_res = x->comp[pick].res;
        if (isnan(x->value))
            x->value = 0;
    }
    x->samples++;
    if (x->samples < e->min)
        return;
    double v = x->value;
    if (x->state == IPS2_SHG_TESTING) {
        bool now_true = hyps[x->hyp].less ? holds(x, value_of(x, &pick), x->threshold)
                                          : holds(x, v, x->threshold);
        if (now_true) {
            char tk[200], fk[128];
            x->state = IPS2_SHG_TRUE;
            x->true_b = b;
            e->ntesting--;
            set_why(e, x, "true at %.3f s after %d samples: %.4g %s %.4g; refined",
                    seconds(e, b + 1), x->samples, v, hyps[x->hyp].less ? "<" : ">", x->threshold);
            sp_focus_key(&x->f, fk, sizeof(fk));
            snprintf(tk, sizeof(tk), "%d|%s", x->hyp, fk);
            smap_put(&e->truemap, tk, 1);
            expand(e, id, b);
        } else if (x->samples >= e->suff) {
            give_up(e, id, b);
        }
        return;
    }
    if (x->state == IPS2_SHG_TRUE && !x->when_node) {
        double t = hyps[x->hyp].less ? x->threshold / e->hyst : x->threshold * e->hyst;
        bool still = hyps[x->hyp].less ? holds(x, value_of(x, &pick), t) : holds(x, v, t);
        if (!still)
            became_false(e, id, b);
    }
}

/* The states of the nodes without a test, from their children. */
static void settle(struct engine *e)
{
    unsigned char *any = calloc(e->nn ? e->nn : 1, 1); /* 1: a child true, 2: one open */
    if (any == NULL) {
        e->oom = true;
        return;
    }
    for (size_t i = e->nn; i-- > 0;) {
        struct node *x = &e->n[i];
        if (hyps[x->hyp].test == T_NONE && x->state != IPS2_SHG_UNTESTED) {
            enum ips2_shg_state s = (any[i] & 1)   ? IPS2_SHG_TRUE
                                    : (any[i] & 2) ? IPS2_SHG_TESTING
                                                   : IPS2_SHG_FALSE;
            if (s != x->state) {
                x->state = s;
                set_why(e, x,
                        s == IPS2_SHG_TRUE      ? "true: one of its refinements is"
                        : s == IPS2_SHG_TESTING ? "its refinements are being tested"
                                                : "false: none of its refinements is true");
            }
        }
        if (x->parent < 0)
            continue;
        if (x->state == IPS2_SHG_TRUE || (any[i] & 1)) /* or true within an interval */
            any[x->parent] |= 1;
        else if (x->state == IPS2_SHG_TESTING || x->queued)
            any[x->parent] |= 2;
    }
    free(any);
}

static int run_pass(struct engine *e, size_t b0, size_t b1)
{
    for (size_t b = b0; b < b1; b++) {
        if (e->o->cancel && *e->o->cancel) {
            ips2_set_error(e->err, "the search was cancelled");
            return -1;
        }
        while (e->ntesting < e->maxeval && e->nq > 0) {
            int id = e->q[0];
            dequeue(e, id);
            if (e->n[id].parent >= 0 && e->n[e->n[id].parent].state == IPS2_SHG_FALSE) {
                set_why(e, &e->n[id], "not tried: its parent is false");
                continue;
            }
            start(e, id, b);
        }
        /* evaluating one may stop others: each once, if still running */
        for (size_t i = 0; i < e->nrun; i++) {
            int id = e->run[i];
            if (e->n[id].seen_b == b)
                continue;
            e->n[id].seen_b = b;
            evaluate(e, id, b);
            if (i < e->nrun && e->run[i] != id)
                i = (size_t)-1; /* the list changed: from the start, skipping those seen */
        }
        settle(e);
        if (e->oom)
            goto oom;
    }
    /* the end of the data */
    while (e->nrun > 0) {
        int id = e->run[e->nrun - 1];
        struct node *x = &e->n[id];
        bool testing = x->state == IPS2_SHG_TESTING;
        stop(e, id, b1);
        if (testing) {
            x->state = IPS2_SHG_FALSE;
            x->given_up_open = x->samples < e->min;
            set_why(e, x, "false: %.4g not beyond %.4g when the data ended (%d samples)", x->value,
                    x->threshold, x->samples);
        }
    }
    while (e->nq > 0) {
        int id = e->q[0];
        dequeue(e, id);
        set_why(e, &e->n[id], "possible, not tried: the data ended first");
    }
    e->ntesting = 0;
    settle(e);
    return e->oom ? -1 : 0;
oom:
    ips2_set_error(e->err, "out of memory in the search");
    return -1;
}

/* ----- when ----- */

/* The interval [*i, *j) within [lo, hi) of largest excess of the
 * node's picked component over its threshold; false if none. */
static bool hold_interval(struct engine *e, struct node *x, size_t lo, size_t hi, size_t *i,
                          size_t *j, double *value)
{
    int pick = x->pick >= 0 ? x->pick : 0;
    if (x->ncomp == 0 || hi <= lo)
        return false;
    struct comp *c = &x->comp[pick];
    double best = 0, run = 0, sign = hyps[x->hyp].less ? -1 : 1;
    size_t start = lo;
    bool found = false;
    for (size_t b = lo; b < hi; b++) {
        double num, den;
        comp_at(e, x, c, b, &num, &den);
        double ex = sign * (num - x->threshold * den);
        if (run <= 0) {
            run = 0;
            start = b;
        }
        run += ex;
        if (run > best) {
            best = run;
            *i = start;
            *j = b + 1;
            found = true;
        }
    }
    if (!found)
        return false;
    double sn = 0, sd = 0;
    for (size_t b = *i; b < *j; b++) {
        double num, den;
        comp_at(e, x, c, b, &num, &den);
        sn += num;
        sd += den;
    }
    *value = sd > 0 ? sn / sd : 0;
    return true;
}

static int when_pass(struct engine *e)
{
    size_t subs = 0;
    /* nodes added by the pass are looked at too: a refinement started by a
     * conclusion post mortem may itself end short of samples */
    for (size_t id = 0; id < e->nn; id++) {
        struct node *x = &e->n[id];
        size_t i, j;
        double v;
        if (!x->given_up_open || x->when_node || x->kind == 2 || is_static(hyps[x->hyp].test) ||
            x->ncomp == 0)
            continue;
        if (x->parent >= 0 && hyps[e->n[x->parent].hyp].test != T_NONE &&
            e->n[x->parent].state == IPS2_SHG_FALSE)
            continue;
        for (size_t k = 0; k < x->nctr; k++)
            if (series(e, x->ctr[k]) == NULL)
                return -1;
        if (!hold_interval(e, x, x->b0, x->b1, &i, &j, &v) || !holds(x, v, x->threshold))
            continue;
        bool whole = i == x->b0 && j == x->b1;
        if (j - i < (size_t)(whole ? e->min : e->suff) || (!whole && subs >= 16))
            continue;
        if (whole) {
            /* It holds over its whole interval: it was given up (or the
             * data ended) before enough of it was seen as it ran, but post
             * mortem the interval is all there, so it is true (notes
             * §2.4: F/L > H), and refined over it. */
            for (size_t k = 0; k < x->nctr && (size_t)x->samples < j - i; k++)
                e->c[x->ctr[k]].samples += (j - i) - (size_t)x->samples;
            x->state = IPS2_SHG_TRUE;
            x->when_node = true;
            x->given_up_open = false;
            x->value = v;
            x->samples = (int)(j - i);
            x->hold_b0 = i;
            x->hold_b1 = j;
            set_why(e, x, "true over its whole interval, post mortem: %.4g %s %.4g; refined", v,
                    hyps[x->hyp].less ? "<" : ">", x->threshold);
            if (expand(e, (int)id, i) != 0 || run_pass(e, i, j) != 0)
                return -1;
            continue;
        }
        int before = (int)e->nn;
        struct sp_focus f = x->f;
        int hyp = x->hyp;
        if (add_node(e, hyp, &f, (int)id, 2, i, j, -1) != 0 || (int)e->nn == before)
            continue;
        subs++;
        /* tested post mortem over its interval: its counters for those samples */
        int w = before;
        dequeue(e, w);
        setup_test(e, &e->n[w]);
        struct node *y = &e->n[w];
        for (size_t k = 0; k < y->nctr; k++) {
            series(e, y->ctr[k]);
            e->c[y->ctr[k]].samples += j - i;
        }
        y->when_node = true;
        y->state = IPS2_SHG_TRUE;
        y->value = v;
        y->enable_b = i;
        y->pick = e->n[id].pick;
        y->samples = (int)(j - i);
        y->hold_b0 = i;
        y->hold_b1 = j;
        set_why(e, y, "true over %.3f-%.3f s (when): %.4g %s %.4g; refined within it",
                seconds(e, i), seconds(e, j), v, hyps[hyp].less ? "<" : ">", y->threshold);
        if (expand(e, w, i) != 0 || run_pass(e, i, j) != 0)
            return -1;
    }
    return 0;
}

/* ----- results ----- */

static bool place_within(const struct engine *e, const struct sp_focus *y, const struct sp_focus *x)
{
    const struct sp_space *sp = &e->sp;
    int yp = y->at[IPS2_H_PROCESS];
    if (x->at[IPS2_H_PROCESS] >= 0 && !(yp >= 0 && sp_within(sp, yp, x->at[IPS2_H_PROCESS])) &&
        !(yp >= 0 && strncmp(sp->res[yp].name, sp->res[x->at[IPS2_H_PROCESS]].name,
                             strlen(sp->res[x->at[IPS2_H_PROCESS]].name)) == 0))
        return false;
    if (x->at[IPS2_H_APP] >= 0 && y->at[IPS2_H_APP] != x->at[IPS2_H_APP] &&
        !(yp >= 0 && path_in_app(sp->res[yp].name, sp->res[x->at[IPS2_H_APP]].name)))
        return false;
    if (x->at[IPS2_H_MACHINE] >= 0 && y->at[IPS2_H_MACHINE] != x->at[IPS2_H_MACHINE]) {
        char m[300];
        snprintf(m, sizeof(m), "/%s", sp->res[x->at[IPS2_H_MACHINE]].name);
        const char *s = yp >= 0 ? strstr(sp->res[yp].name, m) : NULL;
        if (s == NULL || (s[strlen(m)] != '/' && s[strlen(m)] != 0))
            return false;
    }
    return true;
}

static bool hyp_within(int h, int anc)
{
    for (; h >= 0; h = hyps[h].parent)
        if (h == anc)
            return true;
    return false;
}

/* Whether y refines x (and is not x). */
static bool refines(const struct engine *e, const struct node *y, const struct node *x)
{
    if (y == x || !hyp_within(y->hyp, x->hyp))
        return false;
    if (y->b0 < x->b0 || y->b1 > x->b1)
        return false;
    for (int h = 0; h < IPS2_H_COUNT; h++)
        if (h == IPS2_H_CODE || h == IPS2_H_SYNC)
            if (x->f.at[h] >= 0 && !sp_within(&e->sp, y->f.at[h], x->f.at[h]))
                return false;
    if (!place_within(e, &y->f, &x->f))
        return false;
    return true;
}

static int make_results(struct engine *e, struct ips2_search_result *res)
{
    const struct sp_space *sp = &e->sp;

    res->start_ns = sp->origin;
    res->interval_ns = sp->width;
    res->nbuckets = sp->nb;
    if ((res->shg = calloc(e->nn ? e->nn : 1, sizeof(*res->shg))) == NULL)
        return -1;
    for (size_t i = 0; i < e->nn; i++) {
        const struct node *x = &e->n[i];
        struct ips2_shg_node *s = &res->shg[res->nshg++];
        s->id = (int)i;
        s->parent = x->parent;
        s->hypothesis = hyps[x->hyp].name;
        s->start_ns = sp->origin + (int64_t)(x->b0 * sp->width);
        s->end_ns = sp->origin + (int64_t)(x->b1 * sp->width);
        if (s->start_ns < sp->from)
            s->start_ns = sp->from;
        if (s->end_ns > sp->to)
            s->end_ns = sp->to;
        s->state = x->state;
        s->value = x->value;
        s->threshold = x->threshold;
        if (sp_focus_names(sp, &x->f, &s->focus) != 0 ||
            (s->why = strdup(x->why ? x->why : "")) == NULL)
            return -1;
    }
    /* the bottlenecks: true tested nodes nothing true refines */
    for (size_t i = 0; i < e->nn; i++) {
        struct node *x = &e->n[i];
        bool reported = x->state == IPS2_SHG_TRUE && hyps[x->hyp].test != T_NONE;
        for (size_t k = 0; reported && k < e->nn; k++)
            if (e->n[k].state == IPS2_SHG_TRUE && hyps[e->n[k].hyp].test != T_NONE &&
                refines(e, &e->n[k], x))
                reported = false;
        if (!reported)
            continue;
        void *p = realloc(res->bottlenecks, (res->nbottlenecks + 1) * sizeof(*res->bottlenecks));
        if (p == NULL)
            return -1;
        res->bottlenecks = p;
        struct ips2_bottleneck *bn = &res->bottlenecks[res->nbottlenecks++];
        memset(bn, 0, sizeof(*bn));
        bn->node = (int)i;
        bn->hypothesis = hyps[x->hyp].name;
        bn->value = x->value;
        bn->threshold = x->threshold;
        size_t hb0 = x->b0, hb1 = x->b1;
        double v;
        if (x->when_node) {
            hb0 = x->hold_b0;
            hb1 = x->hold_b1;
        } else if (!is_static(hyps[x->hyp].test) &&
                   hold_interval(e, x, x->enable_b, x->b1, &hb0, &hb1, &v)) {
            /* where it holds within what it collected */
        } else {
            hb0 = x->b0;
            hb1 = x->b1;
        }
        bn->start_ns = sp->origin + (int64_t)(hb0 * sp->width);
        bn->end_ns = sp->origin + (int64_t)(hb1 * sp->width);
        if (bn->start_ns < sp->from)
            bn->start_ns = sp->from;
        if (bn->end_ns > sp->to)
            bn->end_ns = sp->to;
        size_t depth = 0;
        for (int p2 = (int)i; p2 >= 0; p2 = e->n[p2].parent)
            depth++;
        if ((bn->path = calloc(depth, sizeof(char *))) == NULL)
            return -1;
        const char **rev = calloc(depth, sizeof(char *));
        if (rev == NULL)
            return -1;
        size_t nr = 0;
        for (int p2 = (int)i; p2 >= 0; p2 = e->n[p2].parent)
            rev[nr++] = hyps[e->n[p2].hyp].name;
        for (size_t k = nr; k-- > 0;)
            if (bn->npath == 0 || strcmp(bn->path[bn->npath - 1], rev[k]) != 0)
                bn->path[bn->npath++] = rev[k];
        free(rev);
        if (sp_focus_names(sp, &x->f, &bn->focus) != 0)
            return -1;
        struct ex_context ec = {&e->sp,
                                e->o,
                                hyps[x->hyp].name,
                                &x->f,
                                x->value,
                                x->threshold,
                                bn->start_ns,
                                bn->end_ns,
                                x->detail          ? x->detail
                                : x->hint_res >= 0 ? sp->res[x->hint_res].name
                                                   : NULL};
        if (ex_explain(&ec, &bn->explanation, &bn->evidence) != 0)
            return -1;
    }
    /* accounting (thesis Figs 4.2-4.7) */
    struct ips2_search_accounting *a = &res->accounting;
    a->total_counters = sp_total_counters(sp);
    a->total_samples = a->total_counters * (uint64_t)sp->nb;
    for (size_t i = 0; i < e->nc; i++)
        if (e->c[i].v != NULL) {
            a->counters_used++;
            a->samples_used += e->c[i].samples;
        }
    a->bytes_per_sample = 12;
    a->di_bytes = a->samples_used * 12;
    for (size_t s = 0; s < sp->m->nslots; s++)
        a->trace_bytes += sp->m->slots[s].r->trace_bytes;
    a->ratio = a->di_bytes ? (double)a->trace_bytes / (double)a->di_bytes : 0;
    return 0;
}

static void cp_hints(struct engine *e)
{
    const struct sp_space *sp = &e->sp;
    e->ncp_share = sp->nres;
    if ((e->cp_share = calloc(sp->nres ? sp->nres : 1, sizeof(double))) == NULL) {
        e->oom = true;
        return;
    }
    for (size_t i = 0; i < e->o->ncp; i++) {
        const struct ips2_search_cp *cp = &e->o->cp[i];
        if (cp->inter)
            continue;
        for (size_t r = 0; r < sp->nres; r++) {
            const struct sp_resource *x = &sp->res[r];
            double share = 0;
            if (x->hier != (cp->procedure_level ? IPS2_H_CODE : IPS2_H_PROCESS))
                continue;
            for (size_t k = 0; k < cp->nrows; k++) {
                const struct ips2_search_cp_row *row = &cp->rows[k];
                if (cp->procedure_level ? strcmp(row->name, x->name) == 0
                                        : (row->path && (strcmp(row->path, x->name) == 0 ||
                                                         path_in_app(row->path, x->name) ||
                                                         path_in_app(x->name, row->path))))
                    share += row->percent / 100.0;
            }
            if (share > e->cp_share[r])
                e->cp_share[r] = share;
        }
    }
}

static int set_constants(struct engine *e, char *err)
{
    const struct ips2_search_options *o = e->o;
    memcpy(e->k, constant_default, sizeof(e->k));
    for (size_t i = 0; i < o->nthresholds; i++) {
        const char *name = o->thresholds[i].name;
        int k = -1;
        for (int c = 0; c < K_COUNT && k < 0; c++)
            if (strcmp(ips2_search_constant_names[c], name) == 0)
                k = c;
        for (int h = 0; h < H_COUNT && k < 0; h++)
            if (strcmp(hyps[h].name, name) == 0)
                k = hyps[h].constant;
        if (k < 0) {
            ips2_set_error(err,
                           "unknown threshold \"%s\": a constant (highSyncThreshold, ...) "
                           "or a hypothesis with a test (cpuBound, ...)",
                           name);
            return -1;
        }
        if (!isfinite(o->thresholds[i].value) || o->thresholds[i].value < 0) {
            ips2_set_error(err, "threshold %s: expected a number >= 0", name);
            return -1;
        }
        e->k[k] = o->thresholds[i].value;
    }
    e->hyst = o->hysteresis >= 0 ? o->hysteresis : 0.9;
    if (e->hyst > 1) {
        ips2_set_error(err, "hysteresis %g: expected a number in [0, 1]", e->hyst);
        return -1;
    }
    if (e->hyst <= 0)
        e->hyst = 1e-9; /* 0: once true, never false */
    e->min = o->min_samples > 0 ? o->min_samples : 5;
    e->suff = o->sufficient_samples > 0 ? o->sufficient_samples : 10;
    if (e->suff < e->min)
        e->suff = e->min;
    e->maxeval = o->max_eval > 0 ? o->max_eval : 25;
    return 0;
}

static void engine_free(struct engine *e)
{
    for (size_t i = 0; i < e->nn; i++) {
        free(e->n[i].why);
        free(e->n[i].detail);
        free(e->n[i].ctr);
        free(e->n[i].comp);
        free(e->n[i].sortname);
    }
    free(e->n);
    for (size_t i = 0; i < e->nc; i++)
        free(e->c[i].v);
    free(e->c);
    free(e->q);
    free(e->run);
    free(e->cp_share);
    smap_free(&e->nodemap);
    smap_free(&e->truemap);
    smap_free(&e->ctrmap);
    sp_free(&e->sp);
}

void ips2_search_result_free(struct ips2_search_result *r)
{
    if (r == NULL)
        return;
    for (size_t i = 0; i < r->nshg; i++) {
        for (int h = 0; h < IPS2_H_COUNT; h++)
            free(r->shg[i].focus.at[h]);
        free(r->shg[i].why);
    }
    free(r->shg);
    for (size_t i = 0; i < r->nbottlenecks; i++) {
        struct ips2_bottleneck *b = &r->bottlenecks[i];
        for (int h = 0; h < IPS2_H_COUNT; h++)
            free(b->focus.at[h]);
        free(b->path);
        free(b->explanation);
        ips2_table_free(b->evidence);
    }
    free(r->bottlenecks);
    free(r);
}

int ips2_search_run(struct ips2_model *m, const struct ips2_search_options *o,
                    struct ips2_search_result **out, char *err)
{
    struct engine e;
    struct ips2_search_result *res = NULL;
    struct sp_focus root = {{-1, -1, -1, -1, -1}};

    memset(&e, 0, sizeof(e));
    e.o = o;
    e.err = err;
    *out = NULL;
    if (set_constants(&e, err) != 0)
        return -1;
    if (sp_build(&e.sp, m, o, err) != 0) {
        engine_free(&e);
        return -1;
    }
    e.sp.load_compensation = e.k[K_LOAD] != 0;
    cp_hints(&e);
    double *act = malloc(e.sp.nb * sizeof(double));
    if (act == NULL)
        goto oom;
    sp_series(&e.sp, SM_ACTIVE, &root, act);
    for (size_t b = 0; b < e.sp.nb; b++)
        e.active_total += act[b];
    free(act);
    if (add_node(&e, H_TOP, &root, -1, 0, 0, e.sp.nb, -1) != 0 || e.oom)
        goto oom;
    if (run_pass(&e, 0, e.sp.nb) != 0 || when_pass(&e) != 0)
        goto fail;
    if (e.oom || (res = calloc(1, sizeof(*res))) == NULL || make_results(&e, res) != 0)
        goto oom;
    engine_free(&e);
    *out = res;
    return 0;
oom:
    ips2_set_error(err, "out of memory in the search");
fail:
    ips2_search_result_free(res);
    engine_free(&e);
    return -1;
}
