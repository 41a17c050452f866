/*
 * test_search.c - the W3 search core (master/search.c, search_space.c,
 * search_explain.c) on models built in memory with known sample streams:
 * the accounting's arithmetic on a model whose counters can be counted by
 * hand, the search history graph's shape, hysteresis, re-verification,
 * minimum and sufficient observation times, when intervals, thresholds
 * and intervals as options, and hypotheses true and false on constructed
 * data (CPU, a hot lock among quiet ones, small I/O, a burst of page
 * faults, a very high call rate, a late sender, an application limited by
 * another).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "msg_waits.h"
#include "red_build.h"
#include "search.h"
#include "tables.h"

#define W      100000000LL /* one bucket: 100 ms */
#define NB     50          /* buckets of the constructed runs: 5 s */
#define END_NS (NB * W)

static char err[IPS2_ERR_MAX];

static struct ips2_model *model_of(struct ips2_reductions *r)
{
    struct ips2_model *m = ips2_model_new();
    assert_non_null(m);
    assert_int_equal(ips2_model_add_reductions(m, r, err), 0);
    assert_int_equal(ips2_model_index(m, err), 0);
    return m;
}

/* A histogram of the last thread (or its procedure row proc, or object
 * row object) from an array. */
static void hist_of(struct ips2_reductions *r, uint32_t proc, uint32_t object, unsigned metric,
                    const double *v, uint32_t n)
{
    rb_hist(r, proc, metric, 0, W, 0);
    struct ips2_red_hist *h = &r->hists[r->nhists - 1];
    free(h->v);
    h->v = malloc(n * sizeof(double));
    assert_non_null(h->v);
    memcpy(h->v, v, n * sizeof(double));
    h->nbuckets = n;
    h->object = object;
}

static void fill(double *v, size_t from, size_t to, double x)
{
    for (size_t i = from; i < to; i++)
        v[i] = x;
}

static double sum(const double *v, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    return s;
}

/* One process of app A with nthreads threads, each with the CPU series
 * cpu[] (fractions of a bucket), 90% of it in "compute" and the rest in
 * "main". */
static struct ips2_reductions *cpu_run(int nthreads, const double *cpu)
{
    struct ips2_reductions *r = rb_new("m", W);
    double v[NB], c[NB];
    rb_process(r, "A", 100, 0, END_NS);
    for (int t = 0; t < nthreads; t++) {
        for (int i = 0; i < NB; i++)
            v[i] = cpu[i] * W;
        uint32_t th = rb_thread(r, 100 + (uint32_t)t, 0, END_NS, (uint64_t)sum(v, NB));
        (void)th;
        hist_of(r, IPS2_RED_NONE, IPS2_RED_NONE, IPS2_M_CPU, v, NB);
        for (int i = 0; i < NB; i++)
            c[i] = 0.9 * v[i];
        uint32_t p = rb_proc(r, "compute", (uint64_t)sum(c, NB), 0, (uint64_t)sum(c, NB));
        hist_of(r, p, IPS2_RED_NONE, IPS2_M_CPU, c, NB);
        for (int i = 0; i < NB; i++)
            c[i] = 0.1 * v[i];
        p = rb_proc(r, "main", (uint64_t)sum(c, NB), 0, (uint64_t)sum(v, NB));
        hist_of(r, p, IPS2_RED_NONE, IPS2_M_CPU, c, NB);
    }
    return r;
}

static struct ips2_search_result *search(struct ips2_model *m, const struct ips2_search_options *o)
{
    struct ips2_search_result *res = NULL;
    int rc = ips2_search_run(m, o, &res, err);
    if (rc != 0)
        fail_msg("search: %s", err);
    return res;
}

static struct ips2_search_result *search_default(struct ips2_model *m)
{
    struct ips2_search_options o;
    ips2_search_options_init(&o);
    return search(m, &o);
}

static const struct ips2_bottleneck *find_bottleneck(const struct ips2_search_result *r,
                                                     const char *hyp)
{
    for (size_t i = 0; i < r->nbottlenecks; i++)
        if (strcmp(r->bottlenecks[i].hypothesis, hyp) == 0)
            return &r->bottlenecks[i];
    return NULL;
}

static const struct ips2_shg_node *find_node(const struct ips2_search_result *r, const char *hyp,
                                             const char *code)
{
    for (size_t i = 0; i < r->nshg; i++) {
        const struct ips2_shg_node *n = &r->shg[i];
        if (strcmp(n->hypothesis, hyp) != 0)
            continue;
        bool root = true;
        for (int h = 0; h < IPS2_H_COUNT; h++)
            if (h != IPS2_H_CODE && n->focus.at[h] != NULL)
                root = false;
        if (!root)
            continue;
        if (code == NULL ? n->focus.at[IPS2_H_CODE] == NULL
                         : n->focus.at[IPS2_H_CODE] && strcmp(n->focus.at[IPS2_H_CODE], code) == 0)
            if (n->start_ns == 0 && n->end_ns == END_NS)
                return n;
    }
    return NULL;
}

/* ------------------------------------------------------------ accounting --- */

/* One thread, one procedure, CPU only: 7 places (the process chain's
 * three nodes, the root, the machine, the application, machine x
 * application) x 2 codes (root, main) for cpu, 7 for active: 21
 * counters.  The search uses cpu and active at the root for 50 samples
 * and cpu of main from bucket 5 (after cpuBound was true at bucket 4). */
static void test_accounting_exact(void **state)
{
    struct ips2_reductions *r = rb_new("m", W);
    double v[NB];
    rb_process(r, "A", 100, 0, END_NS);
    fill(v, 0, NB, 0.9 * W);
    rb_thread(r, 100, 0, END_NS, (uint64_t)sum(v, NB));
    hist_of(r, IPS2_RED_NONE, IPS2_RED_NONE, IPS2_M_CPU, v, NB);
    uint32_t p = rb_proc(r, "main", (uint64_t)sum(v, NB), 0, (uint64_t)sum(v, NB));
    hist_of(r, p, IPS2_RED_NONE, IPS2_M_CPU, v, NB);
    r->trace_bytes = 174000;
    struct ips2_model *m = model_of(r);
    struct ips2_search_result *res = search_default(m);
    const struct ips2_search_accounting *a = &res->accounting;

    assert_int_equal(res->nbuckets, NB);
    assert_int_equal(a->total_counters, 21);
    assert_int_equal(a->total_samples, 21 * NB);
    assert_int_equal(a->counters_used, 3);
    assert_int_equal(a->samples_used, 50 + 50 + 45);
    assert_int_equal(a->bytes_per_sample, 12);
    assert_int_equal(a->di_bytes, 145 * 12);
    assert_int_equal(a->trace_bytes, 174000);
    assert_true(fabs(a->ratio - 100.0) < 1e-9);
    const struct ips2_bottleneck *b = find_bottleneck(res, "cpuBound");
    assert_non_null(b);
    assert_string_equal(b->focus.at[IPS2_H_CODE], "main");
    assert_int_equal(res->nbottlenecks, 1);
    ips2_search_result_free(res);
    ips2_model_free(m);
}

/* Total samples = total counters x buckets at any interval; 200 ms
 * halves the buckets; finer than the histograms is refused. */
static void test_interval(void **state)
{
    double cpu[NB];
    fill(cpu, 0, NB, 0.9);
    struct ips2_model *m = model_of(cpu_run(2, cpu));
    struct ips2_search_options o;
    ips2_search_options_init(&o);
    o.interval_ns = 2 * W;
    o.interval_given = true;
    struct ips2_search_result *res = search(m, &o);
    assert_int_equal(res->nbuckets, NB / 2);
    assert_int_equal(res->interval_ns, 2 * W);
    assert_int_equal(res->accounting.total_samples, res->accounting.total_counters * (NB / 2));
    assert_true(res->accounting.samples_used <= res->accounting.total_samples);
    assert_true(res->accounting.counters_used <= res->accounting.total_counters);
    ips2_search_result_free(res);

    o.interval_ns = W / 5;
    assert_int_equal(ips2_search_run(m, &o, &res, err), -1);
    assert_non_null(strstr(err, "finer than the histograms"));
    ips2_model_free(m);
}

/* ------------------------------------------------------------------- SHG --- */

static void test_shg_shape(void **state)
{
    double cpu[NB];
    fill(cpu, 0, NB, 0.95);
    struct ips2_model *m = model_of(cpu_run(2, cpu));
    struct ips2_search_result *res = search_default(m);
    const char *top[] = {"syncBottleneck", "ioBottleneck",      "cpuBottleneck",
                         "vmBottleneck",   "messageBottleneck", "limitedByApplication",
                         "instBottleneck"};
    size_t ntop = 0;

    assert_true(res->nshg > 10);
    assert_string_equal(res->shg[0].hypothesis, "topLevelHypothesis");
    assert_int_equal(res->shg[0].parent, -1);
    assert_int_equal(res->shg[0].state, IPS2_SHG_TRUE);
    for (size_t i = 0; i < res->nshg; i++) {
        const struct ips2_shg_node *n = &res->shg[i];
        assert_int_equal(n->id, (int)i);
        if (i > 0) {
            assert_true(n->parent >= 0 && n->parent < n->id);
            assert_non_null(n->why);
            assert_true(n->why[0] != 0);
        }
        if (n->parent == 0) {
            bool known = false;
            for (size_t k = 0; k < sizeof(top) / sizeof(top[0]); k++)
                known = known || strcmp(n->hypothesis, top[k]) == 0;
            assert_true(known);
            ntop++;
        }
    }
    assert_int_equal(ntop, sizeof(top) / sizeof(top[0]));
    /* cpuBound true at the root, refined on code (compute: 85%, main: 9.5%) */
    const struct ips2_shg_node *root = find_node(res, "cpuBound", NULL);
    const struct ips2_shg_node *compute = find_node(res, "cpuBound", "compute");
    const struct ips2_shg_node *mainp = find_node(res, "cpuBound", "main");
    assert_non_null(root);
    assert_non_null(compute);
    assert_non_null(mainp);
    assert_int_equal(root->state, IPS2_SHG_TRUE);
    assert_int_equal(compute->state, IPS2_SHG_TRUE);
    assert_int_equal(mainp->state, IPS2_SHG_FALSE);
    assert_int_equal(res->shg[compute->id].parent, root->id);
    assert_true(fabs(compute->value - 0.855) < 1e-6);
    /* the processes' and threads' shares of the attempted parallelism: none dominates */
    const struct ips2_bottleneck *b = find_bottleneck(res, "cpuBound");
    assert_non_null(b);
    assert_string_equal(b->focus.at[IPS2_H_CODE], "compute");
    assert_null(b->focus.at[IPS2_H_PROCESS]);
    assert_int_equal(res->nbottlenecks, 1);
    assert_int_equal(b->npath, 3); /* cpuBound twice (root, compute) is named once */
    assert_string_equal(b->path[0], "topLevelHypothesis");
    assert_string_equal(b->path[1], "cpuBottleneck");
    assert_string_equal(b->path[2], "cpuBound");
    assert_non_null(strstr(b->explanation, "CPU bound"));
    assert_non_null(b->evidence);
    assert_true(b->evidence->nrows >= 2); /* the gprof flat profile */
    ips2_search_result_free(res);
    ips2_model_free(m);
}

/* --------------------------------------------------- observation times --- */

static void test_min_and_sufficient(void **state)
{
    double cpu[NB];
    fill(cpu, 0, NB, 0.95);
    struct ips2_model *m = model_of(cpu_run(1, cpu));
    struct ips2_search_options o;
    ips2_search_options_init(&o);
    struct ips2_search_result *res = search(m, &o);
    const struct ips2_shg_node *n = find_node(res, "cpuBound", NULL);
    assert_non_null(strstr(n->why, "after 5 samples"));
    ips2_search_result_free(res);
    o.min_samples = 8;
    res = search(m, &o);
    n = find_node(res, "cpuBound", NULL);
    assert_non_null(strstr(n->why, "after 8 samples"));
    ips2_search_result_free(res);
    ips2_model_free(m);

    /* false: given up after the sufficient time */
    fill(cpu, 0, NB, 0.3);
    m = model_of(cpu_run(1, cpu));
    ips2_search_options_init(&o);
    res = search(m, &o);
    n = find_node(res, "cpuBound", NULL);
    assert_int_equal(n->state, IPS2_SHG_FALSE);
    assert_non_null(strstr(n->why, "after 10 samples"));
    assert_null(find_bottleneck(res, "cpuBound"));
    ips2_search_result_free(res);
    o.sufficient_samples = 20;
    res = search(m, &o);
    n = find_node(res, "cpuBound", NULL);
    assert_non_null(strstr(n->why, "after 20 samples"));
    ips2_search_result_free(res);
    ips2_model_free(m);
}

/* -------------------------------------------------------------- hysteresis --- */

/* 0.70 for 10 buckets, then 0.57: the cumulative average falls below
 * 0.60 but stays above 0.9 x 0.60 = 0.54: true with the hysteresis, false
 * without it (hysteresis 1). */
static void test_hysteresis(void **state)
{
    double cpu[NB];
    fill(cpu, 0, 10, 0.70);
    fill(cpu, 10, NB, 0.57);
    struct ips2_model *m = model_of(cpu_run(1, cpu));
    struct ips2_search_options o;
    ips2_search_options_init(&o);
    struct ips2_search_result *res = search(m, &o);
    const struct ips2_shg_node *n = find_node(res, "cpuBound", NULL);
    assert_int_equal(n->state, IPS2_SHG_TRUE);
    assert_true(n->value < 0.60 && n->value > 0.54);
    ips2_search_result_free(res);

    o.hysteresis = 1.0;
    res = search(m, &o);
    n = find_node(res, "cpuBound", NULL);
    assert_int_equal(n->state, IPS2_SHG_FALSE);
    ips2_search_result_free(res);
    ips2_model_free(m);
}

/* --------------------------------------------------------- re-verification --- */

/* CPU-bound in compute for 2 s, then idle: cpuBound at the root becomes
 * false when re-verified; its refinement below goes false with it; the
 * when-axis finds the first 2 s. */
static void test_reverification_and_when(void **state)
{
    double cpu[NB];
    fill(cpu, 0, 20, 1.0);
    fill(cpu, 20, NB, 0.02);
    struct ips2_model *m = model_of(cpu_run(1, cpu));
    struct ips2_search_result *res = search_default(m);
    const struct ips2_shg_node *compute = find_node(res, "cpuBound", "compute");
    assert_non_null(compute);
    assert_true(compute->state != IPS2_SHG_TRUE);
    assert_non_null(strstr(compute->why, "above it became false"));
    const struct ips2_shg_node *root = find_node(res, "cpuBound", NULL);
    assert_true(root->state != IPS2_SHG_TRUE);
    const struct ips2_bottleneck *b = find_bottleneck(res, "cpuBound");
    assert_non_null(b);
    assert_int_equal(b->start_ns, 0);
    assert_int_equal(b->end_ns, 20 * W);
    ips2_search_result_free(res);
    ips2_model_free(m);
}

/* ------------------------------------------------------- the hypotheses --- */

static void test_thresholds(void **state)
{
    double cpu[NB];
    fill(cpu, 0, NB, 0.95);
    struct ips2_model *m = model_of(cpu_run(1, cpu));
    struct ips2_search_threshold t[] = {{"cpuBound", 0.99}};
    struct ips2_search_options o;
    ips2_search_options_init(&o);
    o.thresholds = t;
    o.nthresholds = 1;
    struct ips2_search_result *res = search(m, &o);
    assert_null(find_bottleneck(res, "cpuBound"));
    assert_true(fabs(find_node(res, "cpuBound", NULL)->threshold - 0.99) < 1e-12);
    ips2_search_result_free(res);
    t[0].name = "highCPUtoSyncRatioThreshold";
    t[0].value = 0.5;
    res = search(m, &o);
    assert_non_null(find_bottleneck(res, "cpuBound"));
    ips2_search_result_free(res);
    t[0].name = "noSuchThing";
    assert_int_equal(ips2_search_run(m, &o, &res, err), -1);
    assert_non_null(strstr(err, "noSuchThing"));
    assert_true(isnan(ips2_search_constant_default("noSuchThing")));
    assert_true(ips2_search_constant_default("highSyncThreshold") == 0.20);
    assert_true(ips2_search_constant_default("cpuBound") == 0.60);
    ips2_model_free(m);
}

/* Four threads waiting half their time, 90% of it on one mutex among
 * four: hotSync names it; the quiet ones are not reported. */
/* Four threads, each half waiting, 91% of it on hot_lock and 3% on each
 * of three quiet locks, for nb buckets. */
/* hot_lock_run with holds: procedure update_shared of thread t holds
 * mutex:hot_lock 100 times for (t + 1) ms in all, worker 10 times for
 * 0.1 ms; a quiet lock is held by worker only. */
static bool with_holds;

static void add_hold(struct ips2_reductions *r, uint32_t object, uint32_t proc, uint64_t n,
                     uint64_t ns)
{
    r->holds = rb_grow(r->holds, r->nholds, sizeof(*r->holds));
    r->holds[r->nholds++] = (struct ips2_red_hold){object, proc, n, ns, 0};
}

static struct ips2_reductions *hot_lock_run(int nb)
{
    struct ips2_reductions *r = rb_new("m", W);
    double cpu[NB], wait[NB], ow[NB];
    const char *names[] = {"mutex:hot_lock", "mutex:quiet1", "mutex:quiet2", "mutex:quiet3"};
    const double share[] = {0.91, 0.03, 0.03, 0.03};
    const int64_t end = nb * W;
    rb_process(r, "A", 100, 0, end);
    for (int t = 0; t < 4; t++) {
        fill(cpu, 0, (size_t)nb, 0.45 * W);
        fill(wait, 0, (size_t)nb, 0.5 * W);
        rb_thread(r, 100 + (uint32_t)t, 0, end, (uint64_t)sum(cpu, (size_t)nb));
        r->threads[r->nthreads - 1].m[IPS2_M_SYNC_WAIT] = (uint64_t)sum(wait, (size_t)nb);
        hist_of(r, IPS2_RED_NONE, IPS2_RED_NONE, IPS2_M_CPU, cpu, (uint32_t)nb);
        hist_of(r, IPS2_RED_NONE, IPS2_RED_NONE, IPS2_M_SYNC_WAIT, wait, (uint32_t)nb);
        uint32_t p =
            rb_proc(r, "worker", (uint64_t)sum(cpu, (size_t)nb), 0, (uint64_t)sum(cpu, (size_t)nb));
        r->procs[p].m[IPS2_M_SYNC_WAIT] = (uint64_t)sum(wait, (size_t)nb);
        uint32_t u = with_holds ? rb_proc(r, "update_shared", 0, 100, 0) : 0;
        uint32_t first = (uint32_t)r->nobjects;
        for (int k = 0; k < 4; k++) {
            r->objects = rb_grow(r->objects, r->nobjects, sizeof(*r->objects));
            struct ips2_red_object *o = &r->objects[r->nobjects];
            o->thread = (uint32_t)r->nthreads - 1;
            o->kind = 1; /* mutex */
            o->id = 0x1000 + (uint64_t)k;
            o->waits = 100;
            o->wait_ns = (uint64_t)(sum(wait, (size_t)nb) * share[k]);
            o->name = rb_str(r, names[k]);
            for (int i = 0; i < nb; i++)
                ow[i] = wait[i] * share[k];
            hist_of(r, IPS2_RED_NONE, (uint32_t)r->nobjects, IPS2_M_SYNC_WAIT, ow, (uint32_t)nb);
            r->nobjects++;
        }
        if (with_holds) {
            add_hold(r, first, u, 100, 1000000 * (uint64_t)(t + 1));
            add_hold(r, first, p, 10, 100000);
            add_hold(r, first + 1, p, 50, 5000000);
        }
    }
    return r;
}

static void test_hot_lock(void **state)
{
    struct ips2_reductions *r = hot_lock_run(NB);
    struct ips2_model *m = model_of(r);
    struct ips2_search_result *res = search_default(m);
    const struct ips2_bottleneck *b = find_bottleneck(res, "hotSync");
    assert_non_null(b);
    assert_string_equal(b->focus.at[IPS2_H_SYNC], "mutex:hot_lock");
    assert_true(b->value > 0.85);
    assert_non_null(b->evidence);
    assert_true(b->evidence->nrows >= 4); /* its waits in each thread's worker */
    for (size_t i = 0; i < res->nbottlenecks; i++) {
        const char *s = res->bottlenecks[i].focus.at[IPS2_H_SYNC];
        assert_true(s == NULL || strstr(s, "quiet") == NULL);
    }
    assert_null(find_bottleneck(res, "cpuBound"));
    ips2_search_result_free(res);
    ips2_model_free(m);
}

/* The column of a table by name. */
static size_t column(const struct ips2_table *t, const char *name)
{
    for (size_t c = 0; c < t->ncols; c++)
        if (strcmp(t->col_name[c], name) == 0)
            return c;
    fail_msg("no column %s", name);
    return 0;
}

/* hotSync's evidence: the hot lock's holds by procedure beside its waits
 * (only that lock's), and the sentence names the procedure that held it
 * longest and the one that waited for it most. */
static void test_hot_lock_holders(void **state)
{
    with_holds = true;
    struct ips2_reductions *r = hot_lock_run(NB);
    with_holds = false;
    struct ips2_model *m = model_of(r);
    struct ips2_search_result *res = search_default(m);
    const struct ips2_bottleneck *b = find_bottleneck(res, "hotSync");
    assert_non_null(b);
    assert_string_equal(b->focus.at[IPS2_H_SYNC], "mutex:hot_lock");
    const struct ips2_table *t = b->evidence;
    assert_non_null(t);
    size_t co = column(t, "object"), cp = column(t, "procedure"), ca = column(t, "acquisitions"),
           ch = column(t, "hold"), cw = column(t, "wait");
    int64_t acq[2] = {0}, hold[2] = {0}, wait[2] = {0};
    for (size_t i = 0; i < t->nrows; i++) {
        const struct ips2_cell *row = &t->cell[i * t->ncols];
        assert_string_equal(row[co].u.s, "mutex:hot_lock");
        int k = strcmp(row[cp].u.s, "update_shared") == 0 ? 0 : 1;
        if (k == 1)
            assert_string_equal(row[cp].u.s, "worker");
        acq[k] += row[ca].u.i;
        hold[k] += row[ch].u.i;
        wait[k] += row[cw].u.i;
    }
    assert_int_equal(acq[0], 400);
    assert_int_equal(hold[0], 10000000); /* 1 + 2 + 3 + 4 ms */
    assert_int_equal(acq[1], 40);
    assert_int_equal(hold[1], 400000);
    assert_int_equal(wait[0], 0);
    assert_true(wait[1] > 0);
    assert_non_null(strstr(b->explanation, "held longest in update_shared (96% of its hold time, "
                                           "25.0 us a hold over 400 acquisitions)"));
    assert_non_null(strstr(b->explanation, "waited for most in worker"));
    ips2_search_result_free(res);
    ips2_model_free(m);
}

/* A run too short for the refinements to reach the minimum observation
 * time before the data ends (8 buckets: excessiveBlockingTime true at the
 * 5th, hotSync enabled after it): the lock holds over its whole interval,
 * so post mortem it is true, not false for want of samples. */
static void test_short_run_post_mortem(void **state)
{
    struct ips2_model *m = model_of(hot_lock_run(8));
    struct ips2_search_result *res = search_default(m);
    const struct ips2_bottleneck *b = find_bottleneck(res, "hotSync");
    assert_non_null(b);
    assert_string_equal(b->focus.at[IPS2_H_SYNC], "mutex:hot_lock");
    bool hot_true = false;
    for (size_t i = 0; i < res->nshg; i++) {
        const struct ips2_shg_node *n = &res->shg[i];
        const char *sync = n->focus.at[IPS2_H_SYNC];
        if (strcmp(n->hypothesis, "hotSync") != 0 || sync == NULL)
            continue;
        if (strcmp(sync, "mutex:hot_lock") == 0 && n->state == IPS2_SHG_TRUE)
            hot_true = true;
        if (strstr(sync, "quiet") != NULL)
            assert_int_equal(n->state, IPS2_SHG_FALSE);
    }
    assert_true(hot_true);
    ips2_search_result_free(res);
    ips2_model_free(m);
}

/* Many small writes: excessiveIOBlockingTime, then excessiveSmallIOops. */
static void test_small_io(void **state)
{
    struct ips2_reductions *r = rb_new("m", W);
    double cpu[NB], io[NB], ops[NB];
    rb_process(r, "A", 100, 0, END_NS);
    fill(cpu, 0, NB, 0.3 * W);
    fill(io, 0, NB, 0.6 * W);
    fill(ops, 0, NB, 2000);
    rb_thread(r, 100, 0, END_NS, (uint64_t)sum(cpu, NB));
    struct ips2_red_thread *t = &r->threads[r->nthreads - 1];
    t->m[IPS2_M_IO_TIME] = (uint64_t)sum(io, NB);
    t->m[IPS2_M_IO_OPS] = (uint64_t)sum(ops, NB);
    t->m[IPS2_M_IO_BYTES] = 64 * (uint64_t)sum(ops, NB);
    hist_of(r, IPS2_RED_NONE, IPS2_RED_NONE, IPS2_M_CPU, cpu, NB);
    hist_of(r, IPS2_RED_NONE, IPS2_RED_NONE, IPS2_M_IO_TIME, io, NB);
    hist_of(r, IPS2_RED_NONE, IPS2_RED_NONE, IPS2_M_IO_OPS, ops, NB);
    for (int i = 0; i < NB; i++)
        ops[i] *= 64;
    hist_of(r, IPS2_RED_NONE, IPS2_RED_NONE, IPS2_M_IO_BYTES, ops, NB);
    uint32_t p = rb_proc(r, "write_record", (uint64_t)sum(cpu, NB), 0, (uint64_t)sum(cpu, NB));
    memcpy(r->procs[p].m, t->m, sizeof(t->m));
    struct ips2_model *m = model_of(r);
    struct ips2_search_result *res = search_default(m);
    const struct ips2_bottleneck *b = find_bottleneck(res, "excessiveSmallIOops");
    assert_non_null(b);
    assert_true(fabs(b->value - 64) < 1e-6);
    assert_null(find_bottleneck(res, "cpuBound"));
    assert_null(find_bottleneck(res, "tooManySeeks"));
    ips2_search_result_free(res);
    ips2_model_free(m);
}

/* A burst of page faults between 1 and 3 s (5000/s): the test started at
 * 0 is given up, the when-axis finds the burst. */
static void test_page_fault_burst(void **state)
{
    struct ips2_reductions *r = rb_new("m", W);
    double cpu[NB];
    rb_process(r, "A", 100, 0, END_NS);
    fill(cpu, 0, NB, 0.3 * W);
    rb_thread(r, 100, 0, END_NS, (uint64_t)sum(cpu, NB));
    hist_of(r, IPS2_RED_NONE, IPS2_RED_NONE, IPS2_M_CPU, cpu, NB);
    rb_proc(r, "main", (uint64_t)sum(cpu, NB), 0, (uint64_t)sum(cpu, NB));
    r->exts = rb_grow(r->exts, r->nexts, sizeof(*r->exts));
    struct ips2_red_ext *x = &r->exts[r->nexts++];
    x->collector = rb_str(r, "os");
    x->pid = 100;
    x->process = 0;
    x->metric = IPS2_M_PAGE_FAULTS;
    x->start_ns = 0;
    x->width_ns = W;
    x->nbuckets = NB;
    x->v = calloc(NB, sizeof(double));
    fill(x->v, 10, 30, 500);
    x->value = (uint64_t)sum(x->v, NB);
    struct ips2_model *m = model_of(r);
    struct ips2_search_result *res = search_default(m);
    const struct ips2_bottleneck *b = find_bottleneck(res, "tooManyPageFaults");
    assert_non_null(b);
    assert_int_equal(b->start_ns, 10 * W);
    assert_int_equal(b->end_ns, 30 * W);
    assert_int_equal(res->nbottlenecks, 1);
    assert_non_null(b->evidence);
    assert_int_equal(b->evidence->nrows, 20);
    ips2_search_result_free(res);

    /* restricted to [2 s, 5 s): the burst's end, and nothing before 2 s */
    struct ips2_search_options o;
    ips2_search_options_init(&o);
    o.from_ns = 20 * W;
    o.to_ns = END_NS;
    res = search(m, &o);
    assert_int_equal(res->nbuckets, 30);
    assert_int_equal(res->start_ns, 20 * W);
    b = find_bottleneck(res, "tooManyPageFaults");
    assert_non_null(b);
    assert_int_equal(b->start_ns, 20 * W);
    assert_int_equal(b->end_ns, 30 * W);
    for (size_t i = 0; i < res->nshg; i++)
        assert_true(res->shg[i].start_ns >= 20 * W && res->shg[i].end_ns <= END_NS);
    ips2_search_result_free(res);
    ips2_model_free(m);
}

/* 6 M calls per second of tiny(): instBottleneck refined to it. */
static void test_high_call_rate(void **state)
{
    struct ips2_reductions *r = rb_new("m", W);
    double cpu[NB], c[NB];
    rb_process(r, "A", 100, 0, END_NS);
    fill(cpu, 0, NB, 0.95 * W);
    rb_thread(r, 100, 0, END_NS, (uint64_t)sum(cpu, NB));
    hist_of(r, IPS2_RED_NONE, IPS2_RED_NONE, IPS2_M_CPU, cpu, NB);
    fill(c, 0, NB, 0.5 * W);
    uint32_t p = rb_proc(r, "tiny", (uint64_t)sum(c, NB), 30000000, (uint64_t)sum(c, NB));
    hist_of(r, p, IPS2_RED_NONE, IPS2_M_CPU, c, NB);
    p = rb_proc(r, "main", (uint64_t)sum(c, NB) * 9 / 10, 1, (uint64_t)sum(cpu, NB));
    fill(c, 0, NB, 0.45 * W);
    hist_of(r, p, IPS2_RED_NONE, IPS2_M_CPU, c, NB);
    struct ips2_model *m = model_of(r);
    struct ips2_search_result *res = search_default(m);
    const struct ips2_bottleneck *b = find_bottleneck(res, "instBottleneck");
    assert_non_null(b);
    assert_string_equal(b->focus.at[IPS2_H_CODE], "tiny");
    assert_true(fabs(b->value - 0.2) < 0.01);
    ips2_search_result_free(res);
    ips2_model_free(m);
}

/* The same 6 M calls per second, with the probes' calibrated cost in the
 * reductions: instBottleneck weighs the calls by it.  At 10 ns a call the
 * probes are 6% of the time (no bottleneck, though the rate is as above);
 * at 50 ns, 30% (a bottleneck of that value). */
static void test_measured_call_cost(void **state)
{
    const uint32_t cost_ps[] = {10000, 50000};
    for (int k = 0; k < 2; k++) {
        struct ips2_reductions *r = rb_new("m", W);
        double cpu[NB], c[NB];
        rb_process(r, "A", 100, 0, END_NS);
        fill(cpu, 0, NB, 0.95 * W);
        rb_thread(r, 100, 0, END_NS, (uint64_t)sum(cpu, NB));
        hist_of(r, IPS2_RED_NONE, IPS2_RED_NONE, IPS2_M_CPU, cpu, NB);
        fill(c, 0, NB, 0.5 * W);
        uint32_t p = rb_proc(r, "tiny", (uint64_t)sum(c, NB), 30000000, (uint64_t)sum(c, NB));
        hist_of(r, p, IPS2_RED_NONE, IPS2_M_CPU, c, NB);
        p = rb_proc(r, "main", (uint64_t)sum(c, NB) * 9 / 10, 1, (uint64_t)sum(cpu, NB));
        fill(c, 0, NB, 0.45 * W);
        hist_of(r, p, IPS2_RED_NONE, IPS2_M_CPU, c, NB);
        r->times = IPS2_TIMES_COMPENSATED;
        r->call_cost_ps = cost_ps[k];
        r->events = 60000000;
        struct ips2_model *m = model_of(r);
        struct ips2_search_result *res = search_default(m);
        const struct ips2_bottleneck *b = find_bottleneck(res, "instBottleneck");
        if (k == 0) {
            assert_null(b);
        } else {
            assert_non_null(b);
            assert_string_equal(b->focus.at[IPS2_H_CODE], "tiny");
            assert_true(fabs(b->value - 0.3) < 0.015);
        }
        ips2_search_result_free(res);
        ips2_model_free(m);
    }
}

/* Two applications: client (pid 1) and server (pid 2); the client's
 * inter-application critical path is 70% in the server's process. */
static void test_limited_by_application(void **state)
{
    struct ips2_reductions *r = rb_new("m", W);
    double cpu[NB];
    fill(cpu, 0, NB, 0.2 * W);
    rb_process(r, "client", 1, 0, END_NS);
    rb_thread(r, 1, 0, END_NS, (uint64_t)sum(cpu, NB));
    hist_of(r, IPS2_RED_NONE, IPS2_RED_NONE, IPS2_M_CPU, cpu, NB);
    rb_proc(r, "main", (uint64_t)sum(cpu, NB), 0, (uint64_t)sum(cpu, NB));
    rb_process(r, "server", 2, 0, END_NS);
    rb_thread(r, 2, 0, END_NS, (uint64_t)sum(cpu, NB));
    hist_of(r, IPS2_RED_NONE, IPS2_RED_NONE, IPS2_M_CPU, cpu, NB);
    rb_proc(r, "handle_request", (uint64_t)sum(cpu, NB), 0, (uint64_t)sum(cpu, NB));
    struct ips2_model *m = model_of(r);
    const struct ips2_search_cp_row prow[] = {
        {"process:2", "app:server/machine:m/process:2", 3500000000, 70.0},
        {"process:1", "app:client/machine:m/process:1", 1500000000, 30.0}};
    const struct ips2_search_cp_row frow[] = {
        {"handle_request", "app:server/machine:m/process:2/thread:2/procedure:handle_request",
         3000000000, 60.0},
        {"main", "app:client/machine:m/process:1/thread:1/procedure:main", 1500000000, 30.0}};
    const struct ips2_search_cp cp[] = {{"client", true, false, 5000000000, prow, 2},
                                        {"client", true, true, 5000000000, frow, 2}};
    struct ips2_search_options o;
    ips2_search_options_init(&o);
    o.cp = cp;
    o.ncp = 2;
    struct ips2_search_result *res = search(m, &o);
    size_t n = 0;
    for (size_t i = 0; i < res->nbottlenecks; i++) {
        const struct ips2_bottleneck *b = &res->bottlenecks[i];
        if (strcmp(b->hypothesis, "limitedByApplication") != 0)
            continue;
        n++;
        assert_non_null(strstr(b->explanation, "client"));
        assert_non_null(b->evidence);
        assert_int_equal(b->evidence->nrows, 2);
        if (b->focus.at[IPS2_H_PROCESS])
            assert_string_equal(b->focus.at[IPS2_H_PROCESS], "app:server/machine:m/process:2");
        else
            assert_string_equal(b->focus.at[IPS2_H_CODE], "handle_request");
    }
    assert_int_equal(n, 2);
    ips2_search_result_free(res);

    /* without the critical path: nothing */
    o.ncp = 0;
    res = search(m, &o);
    assert_null(find_bottleneck(res, "limitedByApplication"));
    ips2_search_result_free(res);
    ips2_model_free(m);
}

/* A consumer waiting 60% of its time for a late producer's messages. */
static void test_late_sender(void **state)
{
    struct ips2_reductions *r = rb_new("m", W);
    double cpu[NB], mw[NB];
    fill(cpu, 0, NB, 0.8 * W);
    rb_process(r, "pipe", 1, 0, END_NS);
    rb_thread(r, 1, 0, END_NS, (uint64_t)sum(cpu, NB));
    hist_of(r, IPS2_RED_NONE, IPS2_RED_NONE, IPS2_M_CPU, cpu, NB);
    rb_proc(r, "produce", (uint64_t)sum(cpu, NB), 0, (uint64_t)sum(cpu, NB));
    fill(cpu, 0, NB, 0.3 * W);
    fill(mw, 0, NB, 0.6 * W);
    rb_process(r, "pipe", 2, 0, END_NS);
    rb_thread(r, 2, 0, END_NS, (uint64_t)sum(cpu, NB));
    r->threads[r->nthreads - 1].m[IPS2_M_MSG_WAIT] = (uint64_t)sum(mw, NB);
    hist_of(r, IPS2_RED_NONE, IPS2_RED_NONE, IPS2_M_CPU, cpu, NB);
    hist_of(r, IPS2_RED_NONE, IPS2_RED_NONE, IPS2_M_MSG_WAIT, mw, NB);
    uint32_t p = rb_proc(r, "consume", (uint64_t)sum(cpu, NB), 0, (uint64_t)sum(cpu, NB));
    r->procs[p].m[IPS2_M_MSG_WAIT] = (uint64_t)sum(mw, NB);
    struct ips2_model *m = model_of(r);

    struct msg_channel ch = {0};
    ch.name = "channel:m/1->m/2 pvm";
    ch.transport = "pvm";
    ch.sender_process = "app:pipe/machine:m/process:1";
    ch.receiver_process = "app:pipe/machine:m/process:2";
    ch.sender_thread = "app:pipe/machine:m/process:1/thread:1";
    ch.receiver_thread = "app:pipe/machine:m/process:2/thread:2";
    ch.messages = 100;
    ch.bytes = 1000;
    ch.wait[MSG_WAIT_RECEIVE] = (int64_t)sum(mw, NB);
    ch.wait[MSG_WAIT_LATE_SENDER] = (int64_t)sum(mw, NB);
    ch.first = 0;
    ch.last = END_NS;
    struct msg_waits w = {0};
    w.channels = &ch;
    w.nchannels = 1;
    struct ips2_search_options o;
    ips2_search_options_init(&o);
    o.msgs = &w;
    struct ips2_search_result *res = search(m, &o);
    const struct ips2_bottleneck *b = find_bottleneck(res, "lateSender");
    assert_non_null(b);
    /* 60% of one of two threads: 30% of the attempted parallelism */
    assert_true(fabs(b->value - 0.3) < 0.01);
    assert_non_null(strstr(b->explanation, "late sender"));
    assert_null(find_bottleneck(res, "lateReceiver"));
    ips2_search_result_free(res);

    /* without the message waits lateSender stays untested */
    o.msgs = NULL;
    res = search(m, &o);
    assert_null(find_bottleneck(res, "lateSender"));
    bool untested = false;
    for (size_t i = 0; i < res->nshg; i++)
        if (strcmp(res->shg[i].hypothesis, "lateSender") == 0)
            untested = res->shg[i].state == IPS2_SHG_UNTESTED;
    assert_true(untested);
    ips2_search_result_free(res);
    ips2_model_free(m);
}

/* A balanced, modest program: nothing above its thresholds. */
static void test_nothing_found(void **state)
{
    double cpu[NB];
    fill(cpu, 0, NB, 0.4);
    struct ips2_model *m = model_of(cpu_run(4, cpu));
    struct ips2_search_result *res = search_default(m);
    assert_int_equal(res->nbottlenecks, 0);
    assert_int_equal(res->shg[0].state, IPS2_SHG_FALSE);
    ips2_search_result_free(res);
    ips2_model_free(m);
}

/* An object row of the last thread: kind, id, waits, wait (ns), name;
 * its wait histogram spread evenly. */
static void object_of(struct ips2_reductions *r, uint32_t kind, uint64_t id, uint64_t waits,
                      double wait, const char *name)
{
    double v[NB];
    r->objects = rb_grow(r->objects, r->nobjects, sizeof(*r->objects));
    struct ips2_red_object *o = &r->objects[r->nobjects];
    o->thread = (uint32_t)r->nthreads - 1;
    o->kind = kind;
    o->id = id;
    o->waits = waits;
    o->wait_ns = (uint64_t)wait;
    o->name = rb_str(r, name);
    fill(v, 0, NB, wait / NB);
    hist_of(r, IPS2_RED_NONE, (uint32_t)r->nobjects, IPS2_M_SYNC_WAIT, v, NB);
    r->nobjects++;
    r->threads[r->nthreads - 1].m[IPS2_M_SYNC_WAIT] += (uint64_t)wait;
}

/* A thread of the last process alive 0..END with CPU cpu (fraction) in
 * procedure "work". */
static void busy_thread(struct ips2_reductions *r, uint32_t tid, double cpu)
{
    double v[NB];
    fill(v, 0, NB, cpu * W);
    rb_thread(r, tid, 0, END_NS, (uint64_t)sum(v, NB));
    hist_of(r, IPS2_RED_NONE, IPS2_RED_NONE, IPS2_M_CPU, v, NB);
    uint32_t p = rb_proc(r, "work", (uint64_t)sum(v, NB), 0, (uint64_t)sum(v, NB));
    hist_of(r, p, IPS2_RED_NONE, IPS2_M_CPU, v, NB);
}

/* Four threads at a barrier, waiting 0, 20, 40, 60% of the time (the
 * first is the slowest): barrierImbalance 1.2 / 4 = 0.3; waiting alike,
 * none. */
static void test_barrier_imbalance(void **state)
{
    for (int balanced = 0; balanced < 2; balanced++) {
        struct ips2_reductions *r = rb_new("m", W);
        rb_process(r, "A", 100, 0, END_NS);
        for (int t = 0; t < 4; t++) {
            double share = balanced ? 0.3 : 0.2 * t;
            busy_thread(r, 100 + (uint32_t)t, 1 - share);
            object_of(r, 6, IPS2_SYNC_KEY_SHARED | 1, 100, share * END_NS, "barrier:step");
        }
        struct ips2_model *m = model_of(r);
        struct ips2_search_result *res = search_default(m);
        const struct ips2_bottleneck *b = find_bottleneck(res, "barrierImbalance");
        if (balanced) {
            assert_null(b);
        } else {
            assert_non_null(b);
            assert_true(fabs(b->value - 0.3) < 1e-6);
            assert_string_equal(b->focus.at[IPS2_H_SYNC], "barrier:step");
        }
        ips2_search_result_free(res);
        ips2_model_free(m);
    }
}

/* 5 M lock operations in 5 s on one thread (1 M/s > 600000/s), 500 ns
 * of CPU each (< 4 x 1 µs): excessiveSyncRates, then
 * SyncRegionTooSmall; at 100000 operations, neither. */
static void test_sync_rates(void **state)
{
    for (int few = 0; few < 2; few++) {
        struct ips2_reductions *r = rb_new("m", W);
        rb_process(r, "A", 100, 0, END_NS);
        busy_thread(r, 100, 0.5);
        object_of(r, 1, 0x1000, few ? 100000 : 5000000, 0.05 * END_NS, "mutex:counter_lock");
        struct ips2_model *m = model_of(r);
        struct ips2_search_result *res = search_default(m);
        const struct ips2_bottleneck *rates = find_bottleneck(res, "excessiveSyncRates");
        const struct ips2_bottleneck *small = find_bottleneck(res, "SyncRegionTooSmall");
        if (few) {
            assert_null(rates);
            assert_null(small);
        } else {
            assert_null(rates); /* refined by SyncRegionTooSmall below it */
            assert_non_null(small);
            assert_true(fabs(small->value - 0.5) < 1e-6);
            const struct ips2_shg_node *n = find_node(res, "excessiveSyncRates", NULL);
            assert_int_equal(n->state, IPS2_SHG_TRUE);
            assert_true(fabs(n->value - 1e6 / 600000) < 1e-6);
        }
        assert_null(find_bottleneck(res, "excessiveBlockingTime"));
        ips2_search_result_free(res);
        ips2_model_free(m);
    }
}

/* I/O 20% of the time and seeks 40%: tooManySeeks (0.4 / 0.6); seeks
 * 5%: not. */
static void test_seeks(void **state)
{
    for (int rare = 0; rare < 2; rare++) {
        struct ips2_reductions *r = rb_new("m", W);
        double io[NB], seek[NB];
        rb_process(r, "A", 100, 0, END_NS);
        busy_thread(r, 100, 0.3);
        fill(io, 0, NB, 0.2 * W);
        fill(seek, 0, NB, (rare ? 0.05 : 0.4) * W);
        struct ips2_red_thread *t = &r->threads[r->nthreads - 1];
        t->m[IPS2_M_IO_TIME] = (uint64_t)sum(io, NB);
        t->m[IPS2_M_SEEK_TIME] = (uint64_t)sum(seek, NB);
        t->m[IPS2_M_IO_OPS] = 1000;
        t->m[IPS2_M_IO_BYTES] = 1000 * 65536;
        hist_of(r, IPS2_RED_NONE, IPS2_RED_NONE, IPS2_M_IO_TIME, io, NB);
        hist_of(r, IPS2_RED_NONE, IPS2_RED_NONE, IPS2_M_SEEK_TIME, seek, NB);
        struct ips2_model *m = model_of(r);
        struct ips2_search_result *res = search_default(m);
        const struct ips2_bottleneck *b = find_bottleneck(res, "tooManySeeks");
        if (rare) {
            assert_null(b);
            assert_non_null(find_bottleneck(res, "excessiveIOBlockingTime"));
        } else {
            assert_non_null(b);
            assert_true(fabs(b->value - 0.4 / 0.6) < 1e-6);
        }
        assert_null(find_bottleneck(res, "excessiveSmallIOops")); /* 64 KiB a write */
        ips2_search_result_free(res);
        ips2_model_free(m);
    }
}

/* A master (pid 1) and three workers busy 1, 1 and 4 s of 5: the
 * workers idle 3 + 3 s for want of work, of 20 s of attempted
 * parallelism: masterWorkerImbalance 0.3 at the master; busy alike,
 * none. */
static void test_master_worker(void **state)
{
    for (int even = 0; even < 2; even++) {
        struct ips2_reductions *r = rb_new("m", W);
        for (uint32_t pid = 1; pid <= 4; pid++) {
            rb_process(r, "mw", pid, 0, END_NS);
            busy_thread(r, pid, 0.2);
        }
        struct ips2_model *m = model_of(r);
        struct msg_worker workers[3] = {
            {"app:mw/machine:m/process:2", even ? 4000000000 : 1000000000, 0, 1, 1},
            {"app:mw/machine:m/process:3", even ? 4000000000 : 1000000000, 0, 1, 1},
            {"app:mw/machine:m/process:4", 4000000000, 0, 1, 1}};
        struct msg_group g = {"app:mw/machine:m/process:1", 0, 0, workers, 3, 4000000000, 0, 0};
        struct msg_waits w = {0};
        w.groups = &g;
        w.ngroups = 1;
        struct ips2_search_options o;
        ips2_search_options_init(&o);
        o.msgs = &w;
        struct ips2_search_result *res = search(m, &o);
        const struct ips2_bottleneck *b = find_bottleneck(res, "masterWorkerImbalance");
        if (even) {
            assert_null(b);
        } else {
            assert_non_null(b);
            assert_string_equal(b->focus.at[IPS2_H_PROCESS], "app:mw/machine:m/process:1");
            assert_true(fabs(b->value - 0.3) < 1e-6);
        }
        ips2_search_result_free(res);
        ips2_model_free(m);
    }
}

/* A sender blocked 40% of its time until its receiver takes the
 * messages: lateReceiver at the sender's side. */
static void test_late_receiver(void **state)
{
    struct ips2_reductions *r = rb_new("m", W);
    double mw[NB];
    rb_process(r, "pipe", 1, 0, END_NS);
    busy_thread(r, 1, 0.5);
    rb_process(r, "pipe", 2, 0, END_NS);
    busy_thread(r, 2, 0.5);
    fill(mw, 0, NB, 0.8 * W);
    r->threads[r->nthreads - 1].m[IPS2_M_MSG_WAIT] = (uint64_t)sum(mw, NB);
    hist_of(r, IPS2_RED_NONE, IPS2_RED_NONE, IPS2_M_MSG_WAIT, mw, NB);
    struct ips2_model *m = model_of(r);
    struct msg_channel ch = {0};
    ch.name = "channel:m/1->m/2 stream";
    ch.transport = "stream";
    ch.sender_process = "app:pipe/machine:m/process:1";
    ch.receiver_process = "app:pipe/machine:m/process:2";
    ch.sender_thread = "app:pipe/machine:m/process:1/thread:1";
    ch.receiver_thread = "app:pipe/machine:m/process:2/thread:2";
    ch.messages = 10;
    ch.wait[MSG_WAIT_RECEIVE] = (int64_t)sum(mw, NB);
    ch.wait[MSG_WAIT_LATE_RECEIVER] = (int64_t)(0.8 * END_NS);
    ch.last = END_NS;
    struct msg_waits w = {0};
    w.channels = &ch;
    w.nchannels = 1;
    struct ips2_search_options o;
    ips2_search_options_init(&o);
    o.msgs = &w;
    struct ips2_search_result *res = search(m, &o);
    const struct ips2_bottleneck *b = find_bottleneck(res, "lateReceiver");
    assert_non_null(b);
    assert_true(fabs(b->value - 0.4) < 0.01);
    assert_null(find_bottleneck(res, "lateSender"));
    ips2_search_result_free(res);
    ips2_model_free(m);
}

/* A thread alive 5 s that used 1.5 s of CPU in compute(), which waited
 * for nothing: preempted the rest of compute's wall time (a loaded
 * machine), cpuBound with load compensation (CPU / (alive - preempted)
 * = 1), not without (0.3).  The same CPU with the rest of the time
 * asleep in a procedure of no CPU: not compensated, not CPU bound. */
static void test_load_compensation(void **state)
{
    for (int sleeping = 0; sleeping < 2; sleeping++) {
        struct ips2_reductions *r = rb_new("m", W);
        double v[NB];
        rb_process(r, "A", 100, 0, END_NS);
        fill(v, 0, NB, 0.3 * W);
        rb_thread(r, 100, 0, END_NS, (uint64_t)sum(v, NB));
        hist_of(r, IPS2_RED_NONE, IPS2_RED_NONE, IPS2_M_CPU, v, NB);
        uint32_t p = rb_proc(r, "compute", (uint64_t)sum(v, NB), 0, (uint64_t)sum(v, NB));
        hist_of(r, p, IPS2_RED_NONE, IPS2_M_CPU, v, NB);
        r->procs[p].m[IPS2_M_WALL] = sleeping ? (uint64_t)sum(v, NB) : END_NS;
        if (sleeping) {
            p = rb_proc(r, "nap", 1000, 0, 1000);
            r->procs[p].m[IPS2_M_WALL] = END_NS - (uint64_t)sum(v, NB);
        }
        struct ips2_model *m = model_of(r);
        struct ips2_search_result *res = search_default(m);
        const struct ips2_shg_node *n = find_node(res, "cpuBound", NULL);
        if (sleeping) {
            assert_null(find_bottleneck(res, "cpuBound"));
            assert_true(fabs(n->value - 0.3) < 1e-3);
        } else {
            assert_non_null(find_bottleneck(res, "cpuBound"));
            assert_true(fabs(n->value - 1.0) < 1e-3);
        }
        ips2_search_result_free(res);
        struct ips2_search_threshold off[] = {{"loadCompensation", 0}};
        struct ips2_search_options o;
        ips2_search_options_init(&o);
        o.thresholds = off;
        o.nthresholds = 1;
        res = search(m, &o);
        assert_null(find_bottleneck(res, "cpuBound"));
        assert_true(fabs(find_node(res, "cpuBound", NULL)->value - 0.3) < 1e-3);
        ips2_search_result_free(res);
        ips2_model_free(m);
    }
}

/* Ordering: one test at a time, one sample each.  cpuBound at the root is
 * true at the first sample; of its refinements compute (hinted: Code,
 * then by name) is tested first, at the second sample; ignored, after
 * main, at the third. */
static void test_ignore_order(void **state)
{
    double cpu[NB];
    fill(cpu, 0, NB, 0.95);
    struct ips2_model *m = model_of(cpu_run(1, cpu));
    const char *ignore[] = {"compute"};
    for (int ignored = 0; ignored < 2; ignored++) {
        struct ips2_search_options o;
        ips2_search_options_init(&o);
        o.max_eval = 1;
        o.min_samples = 1;
        o.sufficient_samples = 1;
        o.ignore = ignore;
        o.nignore = ignored ? 1 : 0;
        struct ips2_search_result *res = search(m, &o);
        const struct ips2_shg_node *n = find_node(res, "cpuBound", "compute");
        assert_non_null(n);
        assert_non_null(strstr(n->why, ignored ? "true at 0.300 s" : "true at 0.200 s"));
        ips2_search_result_free(res);
    }
    ips2_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accounting_exact),
        cmocka_unit_test(test_interval),
        cmocka_unit_test(test_shg_shape),
        cmocka_unit_test(test_min_and_sufficient),
        cmocka_unit_test(test_hysteresis),
        cmocka_unit_test(test_reverification_and_when),
        cmocka_unit_test(test_thresholds),
        cmocka_unit_test(test_hot_lock),
        cmocka_unit_test(test_hot_lock_holders),
        cmocka_unit_test(test_short_run_post_mortem),
        cmocka_unit_test(test_small_io),
        cmocka_unit_test(test_page_fault_burst),
        cmocka_unit_test(test_high_call_rate),
        cmocka_unit_test(test_measured_call_cost),
        cmocka_unit_test(test_limited_by_application),
        cmocka_unit_test(test_late_sender),
        cmocka_unit_test(test_nothing_found),
        cmocka_unit_test(test_barrier_imbalance),
        cmocka_unit_test(test_sync_rates),
        cmocka_unit_test(test_seeks),
        cmocka_unit_test(test_master_worker),
        cmocka_unit_test(test_late_receiver),
        cmocka_unit_test(test_load_compensation),
        cmocka_unit_test(test_ignore_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
