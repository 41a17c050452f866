/*
 * test_tables.c - the master's tables (master/tables.c, histograms.c,
 * gprof.c, phases.c) on models built in memory with known values: metric
 * and multi-application tables, profile order and percentages, gprof's
 * layout and numbers, NPT on a two-process run of known concurrency,
 * histogram rebinning and comparison shifting, phases reduced through a
 * fake reducer (what is asked of it, clipping, caching, failures), and
 * the latency table (merging over threads and machines, n/a for
 * reductions that recorded no latency).
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

#include "latency.h"
#include "model.h"
#include "red_build.h"
#include "tables.h"

static char err[IPS2_ERR_MAX];

static struct ips2_model *model_of(struct ips2_reductions *r)
{
    struct ips2_model *m = ips2_model_new();

    assert_non_null(m);
    assert_int_equal(ips2_model_add_reductions(m, r, err), 0);
    assert_int_equal(ips2_model_index(m, err), 0);
    return m;
}

static int64_t cell_int(const struct ips2_table *t, size_t row, const char *col)
{
    int c = ips2_table_find_column(t, col);
    const struct ips2_cell *cell;

    assert_true(c >= 0);
    assert_true(row < t->nrows);
    cell = ips2_table_at(t, row, (size_t)c);
    assert_int_equal(cell->type, IPS2_CELL_INT);
    return cell->u.i;
}

static double cell_real(const struct ips2_table *t, size_t row, const char *col)
{
    int c = ips2_table_find_column(t, col);
    const struct ips2_cell *cell;

    assert_true(c >= 0);
    cell = ips2_table_at(t, row, (size_t)c);
    assert_int_equal(cell->type, IPS2_CELL_REAL);
    return cell->u.d;
}

static const char *cell_str(const struct ips2_table *t, size_t row, const char *col)
{
    int c = ips2_table_find_column(t, col);
    const struct ips2_cell *cell;

    assert_true(c >= 0);
    cell = ips2_table_at(t, row, (size_t)c);
    assert_int_equal(cell->type, IPS2_CELL_STR);
    return cell->u.s;
}

/* The value of metric in a metric table. */
static int64_t metric_of(const struct ips2_table *t, const char *metric)
{
    for (size_t r = 0; r < t->nrows; r++)
        if (strcmp(cell_str(t, r, "metric"), metric) == 0)
            return cell_int(t, r, "value");
    fail_msg("no metric %s", metric);
    return -1;
}

#define assert_close(a, b) assert_true(fabs((double)(a) - (double)(b)) < 1e-9)

/* ------------------------------------------------------------ programs --- */

/* Application A, process 10: thread 10 runs main (self 100), which calls
 * f twice, g once and fib once; f calls g 3 times; fib(…) recurses 9
 * times; thread 11 runs f once (self 200).  Application B, process 20:
 * main only (self 500). */
static struct ips2_model *gprof_program(void)
{
    struct ips2_reductions *r = rb_new("m1", 100);

    rb_process(r, "A", 10, 0, 5000);
    rb_thread(r, 10, 0, 5000, 1000);
    rb_proc(r, "main", 100, 1, 1000);
    rb_proc(r, "f", 500, 2, 600);
    rb_proc(r, "g", 300, 4, 300);
    rb_proc(r, "fib", 100, 10, 100);
    rb_arc(r, NULL, "main", 1, 1000);
    rb_arc(r, "main", "f", 2, 600);
    rb_arc(r, "main", "g", 1, 200);
    rb_arc(r, "main", "fib", 1, 100);
    rb_arc(r, "f", "g", 3, 100);
    rb_arc(r, "fib", "fib", 9, 90);
    rb_thread(r, 11, 1000, 2000, 200);
    rb_proc(r, "f", 200, 1, 200);
    rb_arc(r, NULL, "f", 1, 200);
    rb_process(r, "B", 20, 0, 8000);
    rb_thread(r, 20, 0, 8000, 500);
    rb_proc(r, "main", 500, 1, 500);
    rb_arc(r, NULL, "main", 1, 500);
    return model_of(r);
}

static void test_metric_table(void **state)
{
    struct ips2_model *m = gprof_program();
    struct ips2_table *t;

    (void)state;
    t = ips2_metric_table(m, ips2_model_find(m, "app:A"), err);
    assert_non_null(t);
    assert_string_equal(t->col_name[0], "metric");
    assert_int_equal(metric_of(t, "cpu"), 1200);
    assert_int_equal(metric_of(t, "wall"), 6000);
    assert_int_equal(metric_of(t, "calls"), 18);
    assert_int_equal(metric_of(t, "elapsed"), 5000);
    assert_int_equal(metric_of(t, "npt"), 1200); /* no histograms: concurrency 1 */
    assert_int_equal(metric_of(t, "processes"), 1);
    assert_int_equal(metric_of(t, "threads"), 2);
    assert_int_equal(ips2_table_find_column(t, "unit"), 2);
    ips2_table_free(t);

    /* a procedure: self and inclusive values, no counts of processes */
    t = ips2_metric_table(
        m, ips2_model_find(m, "app:A/machine:m1/process:10/thread:10/procedure:f"), err);
    assert_non_null(t);
    assert_int_equal(metric_of(t, "cpu"), 500);
    assert_int_equal(metric_of(t, "incl_cpu"), 600);
    assert_int_equal(metric_of(t, "calls"), 2);
    for (size_t r = 0; r < t->nrows; r++)
        assert_string_not_equal(cell_str(t, r, "metric"), "processes");
    ips2_table_free(t);
    ips2_model_free(m);
}

/* The metric list: every metric a table takes, each once, with a unit, the
 * levels it has values at, whether it has histograms and a description. */
static void test_metric_list(void **state)
{
    struct ips2_table *t = ips2_metric_list_table(err);
    size_t seen[IPS2_X_COUNT] = {0};

    (void)state;
    assert_non_null(t);
    assert_int_equal(t->nrows, IPS2_X_COUNT);
    assert_int_equal(ips2_table_find_column(t, "description"), 4);
    for (size_t r = 0; r < t->nrows; r++) {
        int k = ips2_metric_lookup(cell_str(t, r, "metric"));
        assert_true(k >= 0);
        seen[k]++;
        assert_string_equal(cell_str(t, r, "unit"), ips2_any_metric_unit(k));
        assert_true(strlen(cell_str(t, r, "description")) > 0);
        assert_true(strlen(cell_str(t, r, "levels")) > 0);
    }
    for (int k = 0; k < IPS2_X_COUNT; k++)
        assert_int_equal(seen[k], 1);
    /* the slave's measured metrics have histograms; NPT too; counts do not */
    assert_string_equal(cell_str(t, IPS2_M_SEEK_TIME, "histogram"), "yes");
    assert_string_equal(cell_str(t, IPS2_X_NPT, "histogram"), "yes");
    assert_string_equal(cell_str(t, IPS2_X_THREADS, "histogram"), "no");
    assert_string_equal(cell_str(t, IPS2_X_INCL_CPU, "levels"), "procedure");
    assert_string_equal(cell_str(t, IPS2_M_CYCLES, "levels"), "app machine process collector");
    ips2_table_free(t);
}

static void test_multi_app_table(void **state)
{
    struct ips2_model *m = gprof_program();
    const char *apps[] = {"B", "A"};
    const char *bad[] = {"A", "nope"};
    struct ips2_table *t;

    (void)state;
    t = ips2_multi_app_table(m, apps, 2, err);
    assert_non_null(t);
    assert_int_equal(t->ncols, 4);
    assert_string_equal(t->col_name[2], "B");
    assert_string_equal(t->col_name[3], "A");
    assert_string_equal(cell_str(t, 0, "metric"), "cpu");
    assert_string_equal(cell_str(t, 0, "unit"), "ns");
    assert_int_equal(cell_int(t, 0, "B"), 500);
    assert_int_equal(cell_int(t, 0, "A"), 1200);
    ips2_table_free(t);
    assert_null(ips2_multi_app_table(m, bad, 2, err));
    assert_string_equal(err, "no application \"nope\"");
    ips2_model_free(m);
}

static void test_profile_order_and_percent(void **state)
{
    struct ips2_model *m = gprof_program();
    const char *base = "app:A/machine:m1/process:10/thread:10/procedure:";
    struct ips2_table *t;
    char path[200];

    (void)state;
    t = ips2_profile_table(m, ips2_model_find(m, "app:A/machine:m1/process:10/thread:10"),
                           IPS2_NODE_PROC, IPS2_M_CPU, 0, err);
    assert_non_null(t);
    assert_int_equal(t->nrows, 4);
    /* f 500 (50%), g 300 (30%), then fib and main at 100: by path */
    assert_string_equal(cell_str(t, 0, "name"), "f");
    assert_int_equal(cell_int(t, 0, "cpu"), 500);
    assert_close(cell_real(t, 0, "percent"), 50.0);
    assert_string_equal(cell_str(t, 1, "name"), "g");
    assert_close(cell_real(t, 1, "percent"), 30.0);
    snprintf(path, sizeof(path), "%sfib", base);
    assert_string_equal(cell_str(t, 2, "path"), path);
    assert_string_equal(cell_str(t, 3, "name"), "main");
    assert_close(cell_real(t, 3, "percent"), 10.0);
    ips2_table_free(t);

    /* over the process: both threads' f apart, or merged by name */
    t = ips2_profile_table(m, ips2_model_find(m, "app:A"), IPS2_NODE_PROC, IPS2_M_CPU, 0, err);
    assert_int_equal(t->nrows, 5);
    ips2_table_free(t);
    t = ips2_profile_table(m, ips2_model_find(m, "app:A"), IPS2_NODE_PROC, IPS2_M_CPU, 1, err);
    assert_int_equal(t->nrows, 4);
    assert_string_equal(cell_str(t, 0, "name"), "f");
    assert_int_equal(cell_int(t, 0, "cpu"), 700);
    assert_int_equal(cell_int(t, 0, "nodes"), 2);
    assert_close(cell_real(t, 0, "percent"), 100.0 * 700 / 1200);
    ips2_table_free(t);

    /* the physical tree at the process level: both applications */
    t = ips2_profile_table(m, ips2_model_find(m, "physical"), IPS2_NODE_PROCESS, IPS2_M_CPU, 0,
                           err);
    assert_int_equal(t->nrows, 2);
    assert_string_equal(cell_str(t, 0, "path"), "machine:m1/process:10");
    assert_int_equal(cell_int(t, 1, "cpu"), 500);
    ips2_table_free(t);

    /* levels must lie under the node; metrics must apply to the level */
    assert_null(ips2_profile_table(m, ips2_model_find(m, "app:A/machine:m1/process:10"),
                                   IPS2_NODE_MACHINE, IPS2_M_CPU, 0, err));
    assert_string_equal(err, "no machine level under app:A/machine:m1/process:10");
    assert_null(ips2_profile_table(m, ips2_model_find(m, "app:A"), IPS2_NODE_PROCESS,
                                   IPS2_X_INCL_CPU, 0, err));
    ips2_model_free(m);
}

static void add_object(struct ips2_reductions *r, uint32_t kind, uint64_t id, uint64_t waits,
                       uint64_t wait_ns, uint64_t spin_ns)
{
    struct ips2_red_object *o;

    r->objects = rb_grow(r->objects, r->nobjects, sizeof(*o));
    o = &r->objects[r->nobjects++];
    o->thread = (uint32_t)r->nthreads - 1;
    o->kind = kind;
    o->id = id;
    o->waits = waits;
    o->wait_ns = wait_ns;
    o->spin_ns = spin_ns;
    o->name = IPS2_RED_NONE;
}

/* Two threads of process 1 wait for its mutex at 0x1000; process 2 has a
 * mutex at the same address (another object); both wait at a
 * process-shared barrier (slot 3). */
static void test_objects_table(void **state)
{
    struct ips2_reductions *r = rb_new("m1", 100);
    const uint64_t shared = IPS2_SYNC_KEY_SHARED | 3;
    struct ips2_model *m;
    struct ips2_table *t;

    (void)state;
    rb_process(r, "A", 1, 0, 100);
    rb_thread(r, 1, 0, 100, 10);
    add_object(r, IPS2_SYNC_MUTEX, 0x1000, 2, 300, 0);
    add_object(r, IPS2_SYNC_BARRIER, shared, 1, 100, 0);
    rb_thread(r, 2, 0, 100, 10);
    add_object(r, IPS2_SYNC_MUTEX, 0x1000, 3, 200, 50);
    rb_process(r, "A", 2, 0, 100);
    rb_thread(r, 3, 0, 100, 10);
    add_object(r, IPS2_SYNC_MUTEX, 0x1000, 1, 100, 0);
    add_object(r, IPS2_SYNC_BARRIER, shared, 1, 300, 0);
    m = model_of(r);
    t = ips2_objects_table(m, ips2_model_find(m, "app:A"), err);
    assert_non_null(t);
    assert_int_equal(t->nrows, 3);
    /* by wait: process 1's mutex 500, the barrier 400, process 2's mutex 100 */
    assert_string_equal(cell_str(t, 0, "kind"), "mutex");
    assert_string_equal(cell_str(t, 0, "object"), "0x1000");
    assert_int_equal(cell_int(t, 0, "pid"), 1);
    assert_int_equal(cell_int(t, 0, "waits"), 5);
    assert_int_equal(cell_int(t, 0, "wait"), 500);
    assert_int_equal(cell_int(t, 0, "spin"), 50);
    assert_close(cell_real(t, 0, "percent"), 50.0);
    assert_string_equal(cell_str(t, 1, "kind"), "barrier");
    assert_string_equal(cell_str(t, 1, "object"), "0x800000000003");
    assert_int_equal(cell_int(t, 1, "pid"), 0);
    assert_int_equal(cell_int(t, 1, "wait"), 400);
    assert_int_equal(cell_int(t, 2, "pid"), 2);
    ips2_table_free(t);
    /* one thread's */
    t = ips2_objects_table(m, ips2_model_find(m, "app:A/machine:m1/process:1/thread:2"), err);
    assert_int_equal(t->nrows, 1);
    assert_int_equal(cell_int(t, 0, "wait"), 200);
    ips2_table_free(t);
    ips2_model_free(m);
}

/* The name column: as the reduction named the object (the first of its
 * rows that has one), else KIND:ID. */
static void test_objects_table_names(void **state)
{
    struct ips2_reductions *r = rb_new("m1", 100);
    struct ips2_model *m;
    struct ips2_table *t;

    (void)state;
    rb_process(r, "A", 1, 0, 100);
    rb_thread(r, 1, 0, 100, 10);
    add_object(r, IPS2_SYNC_MUTEX, 0x1000, 2, 300, 0);
    add_object(r, IPS2_SYNC_MUTEX, 0x2000, 1, 100, 0);
    rb_thread(r, 2, 0, 100, 10);
    add_object(r, IPS2_SYNC_MUTEX, 0x1000, 3, 200, 50);
    r->objects[r->nobjects - 1].name = rb_str(r, "mutex:hot_lock");
    m = model_of(r);
    t = ips2_objects_table(m, ips2_model_find(m, "app:A"), err);
    assert_non_null(t);
    assert_int_equal(t->nrows, 2);
    assert_string_equal(cell_str(t, 0, "object"), "0x1000");
    assert_string_equal(cell_str(t, 0, "name"), "mutex:hot_lock");
    assert_int_equal(cell_int(t, 0, "wait"), 500);
    assert_string_equal(cell_str(t, 1, "name"), "mutex:0x2000");
    ips2_table_free(t);
    ips2_model_free(m);
}

/* ----------------------------------------------------------------- gprof --- */

struct gline {
    const char *kind;
    int64_t index;
    const char *called, *name;
    int64_t self, children; /* -1: blank */
};

static void check_graph(const struct ips2_table *g, const struct gline *want, size_t n)
{
    assert_int_equal(g->nrows, n);
    for (size_t r = 0; r < n; r++) {
        const struct ips2_cell *self = ips2_table_at(g, r, 2);
        assert_string_equal(cell_str(g, r, "kind"), want[r].kind);
        assert_string_equal(cell_str(g, r, "name"), want[r].name);
        assert_string_equal(cell_str(g, r, "called"), want[r].called);
        if (want[r].index)
            assert_int_equal(cell_int(g, r, "index"), want[r].index);
        if (want[r].self < 0) {
            assert_int_equal(self->type, IPS2_CELL_STR);
        } else {
            assert_int_equal(cell_int(g, r, "self"), want[r].self);
            assert_int_equal(cell_int(g, r, "children"), want[r].children);
        }
    }
}

static void test_gprof_numbers(void **state)
{
    struct ips2_model *m = gprof_program();
    struct ips2_table *flat, *graph;
    static const struct gline want[] = {
        {"parent", 0, "", "<spontaneous>", -1, 0}, {"primary", 1, "1", "main", 100, 900},
        {"child", 2, "2/3", "f", 525, 75},         {"child", 3, "1/4", "g", 200, 0},
        {"child", 4, "1/1", "fib", 100, 0},        {"parent", 0, "", "<spontaneous>", -1, 0},
        {"parent", 1, "2/3", "main", 525, 75},     {"primary", 2, "3", "f", 700, 100},
        {"child", 3, "3/4", "g", 100, 0},          {"parent", 2, "3/4", "f", 100, 0},
        {"parent", 1, "1/4", "main", 200, 0},      {"primary", 3, "4", "g", 300, 0},
        {"parent", 4, "9", "fib", -1, 0},          {"parent", 1, "1/1", "main", 100, 0},
        {"primary", 4, "1+9", "fib", 100, 0},      {"child", 4, "9", "fib", -1, 0},
    };

    (void)state;
    assert_int_equal(
        ips2_gprof_tables(m, ips2_model_find(m, "app:A/machine:m1/process:10"), &flat, &graph, err),
        0);
    /* flat: by self time, then calls (fib and main tie), then name */
    assert_int_equal(flat->nrows, 4);
    assert_string_equal(cell_str(flat, 0, "name"), "f");
    assert_close(cell_real(flat, 0, "percent"), 100.0 * 700 / 1200);
    assert_int_equal(cell_int(flat, 0, "cumulative"), 700);
    assert_int_equal(cell_int(flat, 0, "calls"), 3);
    assert_int_equal(cell_int(flat, 0, "self_per_call"), 233);
    assert_int_equal(cell_int(flat, 0, "total_per_call"), 267);
    assert_string_equal(cell_str(flat, 1, "name"), "g");
    assert_int_equal(cell_int(flat, 1, "cumulative"), 1000);
    assert_string_equal(cell_str(flat, 2, "name"), "fib");
    assert_int_equal(cell_int(flat, 2, "calls"), 1); /* gprof: not the 9 recursive ones */
    assert_string_equal(cell_str(flat, 3, "name"), "main");
    assert_int_equal(cell_int(flat, 3, "cumulative"), 1200);
    assert_int_equal(cell_int(flat, 3, "total_per_call"), 1000);
    check_graph(graph, want, sizeof(want) / sizeof(want[0]));
    assert_close(cell_real(graph, 1, "percent"), 100.0 * 1000 / 1200);
    ips2_table_free(flat);
    ips2_table_free(graph);

    assert_int_equal(ips2_gprof_tables(
                         m, ips2_model_find(m, "app:A/machine:m1/process:10/thread:10/procedure:f"),
                         &flat, &graph, err),
                     -1);
    ips2_model_free(m);
}

/* ev and od call each other: gprof's cycle, as GNU gprof lays it out. */
static void test_gprof_cycle(void **state)
{
    struct ips2_reductions *r = rb_new("m1", 100);
    struct ips2_model *m;
    struct ips2_table *flat, *graph;
    char *text;
    static const struct gline want[] = {
        {"parent", 0, "", "<spontaneous>", -1, 0},
        {"primary", 1, "1", "main", 50, 400},
        {"child", 3, "1/1", "ev <cycle 1>", 300, 100},
        {"cycle", 2, "1+5000", "<cycle 1 as a whole>", 300, 100},
        {"member", 3, "2501", "ev <cycle 1>", 300, 0},
        {"member", 4, "2500", "od <cycle 1>", 0, 100},
        {"parent", 4, "2500", "od <cycle 1>", -1, 0},
        {"parent", 1, "1/1", "main", 300, 100},
        {"primary", 3, "2501", "ev <cycle 1>", 300, 0},
        {"child", 4, "2500", "od <cycle 1>", -1, 0},
        {"parent", 3, "2500", "ev <cycle 1>", -1, 0},
        {"primary", 4, "2500", "od <cycle 1>", 0, 100},
        {"child", 5, "10/10", "leaf", 100, 0},
        {"child", 3, "2500", "ev <cycle 1>", -1, 0},
        {"parent", 4, "10/10", "od <cycle 1>", 100, 0},
        {"primary", 5, "10", "leaf", 100, 0},
    };

    (void)state;
    rb_process(r, "A", 1, 0, 1000);
    rb_thread(r, 1, 0, 1000, 450);
    rb_proc(r, "main", 50, 1, 450);
    rb_proc(r, "ev", 300, 2501, 400);
    rb_proc(r, "od", 0, 2500, 400);
    rb_proc(r, "leaf", 100, 10, 100);
    rb_arc(r, NULL, "main", 1, 450);
    rb_arc(r, "main", "ev", 1, 400);
    rb_arc(r, "ev", "od", 2500, 400);
    rb_arc(r, "od", "ev", 2500, 400);
    rb_arc(r, "od", "leaf", 10, 100);
    m = model_of(r);
    assert_int_equal(ips2_gprof_tables(m, ips2_model_find(m, "app:A"), &flat, &graph, err), 0);
    check_graph(graph, want, sizeof(want) / sizeof(want[0]));
    /* the flat profile knows no cycles */
    assert_int_equal(flat->nrows, 4);
    assert_string_equal(cell_str(flat, 0, "name"), "ev");
    assert_int_equal(cell_int(flat, 0, "calls"), 2501);
    text = ips2_gprof_text(flat, graph, NULL);
    assert_non_null(strstr(text,
                           "[2]     88.9    0.00    0.00       1+5000    <cycle 1 as a whole> [2]\n"
                           "                0.00    0.00    2501             ev <cycle 1> [3]\n"));
    free(text);
    ips2_table_free(flat);
    ips2_table_free(graph);
    ips2_model_free(m);
}

/* gprof's text layout on times large enough to print: two procedures. */
static void test_gprof_text(void **state)
{
    struct ips2_reductions *r = rb_new("m1", 100);
    struct ips2_model *m;
    struct ips2_table *flat, *graph;
    char *text;
    static const char want[] = "Flat profile:\n"
                               "\n"
                               "Each procedure's times are exact (from its traces), not sampled.\n"
                               "  %   cumulative   self              self     total           \n"
                               " time   seconds   seconds    calls  ms/call  ms/call  name    \n"
                               " 75.00      0.30     0.30      600     0.50     0.50  leaf\n"
                               " 25.00      0.40     0.10        1   100.00   400.00  main\n"
                               "\f\n"
                               "\t\t\tCall graph\n"
                               "\n"
                               "\n"
                               "granularity: exact times; 0.40 seconds in all\n"
                               "\n"
                               "index % time    self  children    called     name\n"
                               "                                                 <spontaneous>\n"
                               "[1]    100.0    0.10    0.30       1         main [1]\n"
                               "                0.30    0.00     600/600         leaf [2]\n"
                               "-----------------------------------------------\n"
                               "                0.30    0.00     600/600         main [1]\n"
                               "[2]     75.0    0.30    0.00     600         leaf [2]\n"
                               "-----------------------------------------------\n";

    (void)state;
    rb_process(r, "A", 1, 0, 1000000000);
    rb_thread(r, 1, 0, 1000000000, 400000000);
    rb_proc(r, "main", 100000000, 1, 400000000);
    rb_proc(r, "leaf", 300000000, 600, 300000000);
    rb_arc(r, NULL, "main", 1, 400000000);
    rb_arc(r, "main", "leaf", 600, 300000000);
    m = model_of(r);
    assert_int_equal(ips2_gprof_tables(m, ips2_model_find(m, "app:A"), &flat, &graph, err), 0);
    text = ips2_gprof_text(flat, graph, NULL);
    assert_non_null(text);
    assert_string_equal(text, want);
    free(text);
    ips2_table_free(flat);
    ips2_table_free(graph);
    ips2_model_free(m);
}

/* A server's run of short calls under a long main: gprof's unit for the
 * longest per-call time (s/call) would print every short one as 0.00; the
 * unit is the finest in which the longest still fits its column. */
static void test_gprof_text_short_calls(void **state)
{
    struct ips2_reductions *r = rb_new("m1", 100);
    struct ips2_model *m;
    struct ips2_table *flat, *graph;
    char *text;

    (void)state;
    rb_process(r, "A", 1, 0, 12000000000);
    rb_thread(r, 1, 0, 12000000000, 10000000000);
    rb_proc(r, "main", 5000000000, 1, 10000000000);       /* 10 s in one call */
    rb_proc(r, "handle", 5000000000, 100000, 5000000000); /* 50 us a call */
    rb_arc(r, NULL, "main", 1, 10000000000);
    rb_arc(r, "main", "handle", 100000, 5000000000);
    m = model_of(r);
    assert_int_equal(ips2_gprof_tables(m, ips2_model_find(m, "app:A"), &flat, &graph, err), 0);
    text = ips2_gprof_text(flat, graph, NULL);
    assert_non_null(text);
    assert_non_null(strstr(text, " time   seconds   seconds    calls  ms/call  ms/call  name    \n"
                                 " 50.00      5.00     5.00   100000     0.05     0.05  handle\n"
                                 " 50.00     10.00     5.00        1  5000.00 10000.00  main\n"));
    free(text);
    ips2_table_free(flat);
    ips2_table_free(graph);
    ips2_model_free(m);
}

/* ------------------------------------------------------------------ NPT --- */

/* Application N: process 1 runs in [0, 200) (procedure h, no histogram of
 * its own), process 2 in [0, 400) (f in [0, 200), g in [200, 400)), in
 * buckets of 100 ns: concurrency 2, 2, 1, 1.  Application "old", replayed
 * in comparison mode, ran at the same (shifted) time elsewhere. */
static struct ips2_model *npt_program(void)
{
    struct ips2_reductions *r = rb_new("m1", 100);
    struct ips2_model *m = ips2_model_new();
    uint32_t f, g;

    assert_int_equal(ips2_model_add_app(m, "N", IPS2_MODE_ACTIVE, "", err), 0);
    assert_int_equal(ips2_model_add_app(m, "old", IPS2_MODE_COMPARISON, "/s/old", err), 0);
    rb_process(r, "N", 1, 0, 200);
    rb_thread(r, 1, 0, 200, 200);
    rb_proc(r, "h", 200, 1, 200);
    rb_hist(r, IPS2_RED_NONE, IPS2_M_CPU, 0, 100, 2, 100.0, 100.0);
    rb_process(r, "N", 2, 0, 400);
    rb_thread(r, 2, 0, 400, 400);
    f = rb_proc(r, "f", 200, 1, 200);
    g = rb_proc(r, "g", 200, 1, 200);
    rb_hist(r, IPS2_RED_NONE, IPS2_M_CPU, 0, 100, 4, 100.0, 100.0, 100.0, 100.0);
    rb_hist(r, f, IPS2_M_CPU, 0, 100, 4, 100.0, 100.0, 0.0, 0.0);
    rb_hist(r, g, IPS2_M_CPU, 0, 100, 4, 0.0, 0.0, 100.0, 100.0);
    rb_process(r, "old", 3, 0, 400);
    rb_thread(r, 3, 0, 400, 400);
    rb_hist(r, IPS2_RED_NONE, IPS2_M_CPU, 0, 100, 4, 100.0, 100.0, 100.0, 100.0);
    assert_int_equal(ips2_model_add_reductions(m, r, err), 0);
    assert_int_equal(ips2_model_index(m, err), 0);
    return m;
}

static double npt_of(struct ips2_model *m, const char *path)
{
    double v = -1;
    const struct ips2_node *n = ips2_model_find(m, path);

    assert_non_null(n);
    assert_int_equal(ips2_node_npt(m, n, &v, err), 0);
    return v;
}

static void test_npt_known_concurrency(void **state)
{
    struct ips2_model *m = npt_program();
    struct ips2_table *t;

    (void)state;
    assert_close(npt_of(m, "app:N/machine:m1/process:1"), 100);
    assert_close(npt_of(m, "app:N/machine:m1/process:2"), 300);
    assert_close(npt_of(m, "app:N"), 400); /* = the elapsed time, all of it busy */
    assert_close(npt_of(m, "app:N/machine:m1/process:2/thread:2/procedure:f"), 100);
    assert_close(npt_of(m, "app:N/machine:m1/process:2/thread:2/procedure:g"), 200);
    /* no histogram of its own: its thread's ratio npt/cpu = 1/2 */
    assert_close(npt_of(m, "app:N/machine:m1/process:1/thread:1/procedure:h"), 100);
    /* the physical tree counts each run's threads apart */
    assert_close(npt_of(m, "machine:m1/process:1"), 100);
    assert_close(npt_of(m, "machine:m1/process:3"), 400);
    assert_close(npt_of(m, "app:old"), 400);

    t = ips2_npt_table(m, ips2_model_find(m, "app:N"), IPS2_NODE_PROCESS, 0, err);
    assert_non_null(t);
    assert_int_equal(t->nrows, 2);
    assert_string_equal(cell_str(t, 0, "path"), "app:N/machine:m1/process:2");
    assert_int_equal(cell_int(t, 0, "cpu"), 400);
    assert_int_equal(cell_int(t, 0, "npt"), 300);
    assert_close(cell_real(t, 0, "percent"), 75.0);
    assert_int_equal(cell_int(t, 1, "npt"), 100);
    ips2_table_free(t);

    t = ips2_npt_table(m, ips2_model_find(m, "app:N"), IPS2_NODE_PROC, 0, err);
    assert_int_equal(t->nrows, 3);
    assert_string_equal(cell_str(t, 0, "name"), "g");
    assert_close(cell_real(t, 0, "percent"), 50.0);
    assert_string_equal(cell_str(t, 1, "name"), "h"); /* ties by path: process 1 first */
    assert_string_equal(cell_str(t, 2, "name"), "f");
    assert_string_equal(t->col_unit[ips2_table_find_column(t, "npt")], "ns");
    ips2_table_free(t);
    ips2_model_free(m);
}

static void test_npt_histogram(void **state)
{
    struct ips2_model *m = npt_program();
    struct ips2_hist h;
    size_t missing;

    (void)state;
    assert_int_equal(ips2_node_histogram(m, ips2_model_find(m, "app:N/machine:m1/process:2"),
                                         IPS2_X_NPT, 0, &h, &missing, err),
                     0);
    assert_int_equal(h.n, 4);
    assert_close(h.v[0], 50);
    assert_close(h.v[1], 50);
    assert_close(h.v[2], 100);
    assert_close(h.v[3], 100);
    ips2_hist_free(&h);
    ips2_model_free(m);
}

/* ------------------------------------------------------------ histograms --- */

static void test_histogram_rebinning(void **state)
{
    struct ips2_reductions *r = rb_new("m1", 100);
    struct ips2_model *m;
    struct ips2_hist h;
    struct ips2_table *t;
    size_t missing;

    (void)state;
    rb_process(r, "H", 1, 0, 400);
    rb_thread(r, 1, 0, 400, 10);
    rb_hist(r, IPS2_RED_NONE, IPS2_M_CPU, 0, 100, 4, 1.0, 2.0, 3.0, 4.0);
    rb_process(r, "H", 2, 0, 400);
    rb_thread(r, 2, 0, 400, 30);
    rb_hist(r, IPS2_RED_NONE, IPS2_M_CPU, 0, 200, 2, 10.0, 20.0); /* folded once */
    rb_process(r, "H", 3, 150, 250);
    rb_thread(r, 3, 150, 250, 10);
    rb_hist(r, IPS2_RED_NONE, IPS2_M_CPU, 150, 100, 1, 10.0); /* straddles 200 */
    rb_process(r, "H", 4, 0, 10);
    rb_thread(r, 4, 0, 10, 0); /* no histogram */
    m = model_of(r);

    assert_int_equal(
        ips2_node_histogram(m, ips2_model_find(m, "app:H"), IPS2_M_CPU, 0, &h, &missing, err), 0);
    assert_int_equal(h.origin, 0);
    assert_int_equal(h.width, 200);
    assert_int_equal(h.n, 2);
    assert_close(h.v[0], 1 + 2 + 10 + 5);
    assert_close(h.v[1], 3 + 4 + 20 + 5);
    assert_int_equal(missing, 1);

    /* rows restricted to [100, 300), bounds clipped */
    t = ips2_histogram_table(&h, IPS2_M_CPU, 100, 300, err);
    assert_int_equal(t->nrows, 2);
    assert_int_equal(cell_int(t, 0, "start"), 100);
    assert_int_equal(cell_int(t, 0, "end"), 200);
    assert_int_equal(cell_int(t, 1, "start"), 200);
    assert_int_equal(cell_int(t, 1, "end"), 300);
    assert_close(cell_real(t, 1, "cpu"), 32);
    ips2_table_free(t);
    ips2_hist_free(&h);

    /* a wider grid asked for */
    assert_int_equal(
        ips2_node_histogram(m, ips2_model_find(m, "app:H"), IPS2_M_CPU, 400, &h, &missing, err), 0);
    assert_int_equal(h.n, 1);
    assert_close(h.v[0], 50);
    ips2_hist_free(&h);

    /* one thread alone keeps its own grid */
    assert_int_equal(ips2_node_histogram(m, ips2_model_find(m, "app:H/machine:m1/process:3"),
                                         IPS2_M_CPU, 0, &h, &missing, err),
                     0);
    assert_int_equal(h.origin, 150);
    assert_int_equal(h.width, 100);
    assert_close(h.v[0], 10);
    ips2_hist_free(&h);

    /* no histograms of a metric: empty */
    assert_int_equal(
        ips2_node_histogram(m, ips2_model_find(m, "app:H"), IPS2_M_IO_OPS, 0, &h, &missing, err),
        0);
    assert_int_equal(h.n, 0);
    assert_int_equal(missing, 4);
    ips2_model_free(m);
}

static void test_histogram_comparison_shift(void **state)
{
    struct ips2_reductions *r = rb_new("m1", 100);
    struct ips2_model *m = ips2_model_new();
    struct ips2_hist h;
    size_t missing;

    (void)state;
    assert_int_equal(ips2_model_add_app(m, "now", IPS2_MODE_ACTIVE, "", err), 0);
    assert_int_equal(ips2_model_add_app(m, "then", IPS2_MODE_COMPARISON, "/s/old", err), 0);
    assert_int_equal(ips2_model_set_shift(m, "then", NULL, 86400000000000LL, err), 0);
    rb_process(r, "now", 1, 0, 200);
    rb_thread(r, 1, 0, 200, 200);
    rb_hist(r, IPS2_RED_NONE, IPS2_M_CALLS, 0, 100, 2, 1.0, 2.0);
    /* a day earlier, on the active session's clock */
    rb_process(r, "then", 2, -86400000000000LL, -86400000000000LL + 200);
    rb_thread(r, 2, -86400000000000LL, -86400000000000LL + 200, 200);
    rb_hist(r, IPS2_RED_NONE, IPS2_M_CALLS, -86400000000000LL, 100, 2, 10.0, 20.0);
    assert_int_equal(ips2_model_add_reductions(m, r, err), 0);

    assert_int_equal(
        ips2_node_histogram(m, ips2_model_find(m, "app:then"), IPS2_M_CALLS, 0, &h, &missing, err),
        0);
    assert_int_equal(h.origin, 0);
    assert_close(h.v[1], 20);
    ips2_hist_free(&h);
    /* overlaid on the active run in the physical tree */
    assert_int_equal(ips2_node_histogram(m, ips2_model_find(m, "machine:m1"), IPS2_M_CALLS, 0, &h,
                                         &missing, err),
                     0);
    assert_int_equal(h.origin, 0);
    assert_int_equal(h.n, 2);
    assert_close(h.v[0], 11);
    assert_close(h.v[1], 22);
    ips2_hist_free(&h);
    ips2_model_free(m);
}

/* --------------------------------------------------------------- phases --- */

struct call {
    char machine[32], dir[64];
    int64_t start, end;
};

struct fake {
    struct call calls[16];
    int n;
    const char *fail_dir; /* the reducer fails for this one */
};

/* Reduces "traces" that ran one thread per application, busy all the
 * time: cpu = the interval asked for, on the run's own time base. */
static int fake_reduce(void *arg, const char *machine, const char *trace_dir,
                       int64_t session_start_real, int64_t start, int64_t end, uint64_t interval_ns,
                       struct ips2_reductions **out, char *why)
{
    struct fake *f = arg;
    struct ips2_reductions *r;

    (void)session_start_real;
    (void)interval_ns;
    assert_true(f->n < 16);
    snprintf(f->calls[f->n].machine, sizeof(f->calls[0].machine), "%s", machine);
    snprintf(f->calls[f->n].dir, sizeof(f->calls[0].dir), "%s", trace_dir);
    f->calls[f->n].start = start;
    f->calls[f->n].end = end;
    f->n++;
    if (f->fail_dir && strcmp(trace_dir, f->fail_dir) == 0) {
        snprintf(why, IPS2_ERR_MAX, "%s: no such directory", trace_dir);
        return -1;
    }
    r = rb_new(machine, 100);
    if (strcmp(trace_dir, "/sess/traces/m1") == 0) {
        rb_process(r, "A", 1, start, end);
        rb_thread(r, 1, start, end, (uint64_t)(end - start));
    } else {
        /* the old session's names, before -prefix */
        rb_process(r, "c", 2, start, end);
        rb_thread(r, 2, start, end, (uint64_t)(end - start));
        rb_process(r, "r", 3, start, end);
        rb_thread(r, 3, start, end, (uint64_t)(end - start) / 2);
    }
    *out = r;
    return 0;
}

/* Session /sess: A active; old.c (c replayed with -prefix old.) in
 * comparison mode, shifted by 1000; r replayed as recorded. */
static struct ips2_model *phase_program(struct fake *f)
{
    struct ips2_reductions *r = rb_new("m1", 100);
    struct ips2_model *m = ips2_model_new();

    assert_int_equal(ips2_model_set_session(m, "/sess", 1000000, err), 0);
    assert_int_equal(ips2_model_add_app(m, "A", IPS2_MODE_ACTIVE, "", err), 0);
    assert_int_equal(ips2_model_add_app(m, "old.c", IPS2_MODE_COMPARISON, "/old", err), 0);
    assert_int_equal(ips2_model_add_app(m, "r", IPS2_MODE_REPLAY, "/old", err), 0);
    assert_int_equal(ips2_model_set_shift(m, "old.c", NULL, 1000, err), 0);
    rb_process(r, "A", 1, 0, 1000);
    rb_thread(r, 1, 0, 1000, 1000);
    rb_process(r, "old.c", 2, -1000, 0);
    rb_thread(r, 2, -1000, 0, 1000);
    rb_process(r, "r", 3, -1000, 0);
    rb_thread(r, 3, -1000, 0, 500);
    assert_int_equal(ips2_model_add_reductions(m, r, err), 0);
    m->reducer.reduce = fake_reduce;
    m->reducer.arg = f;
    assert_int_equal(ips2_phase_define(m, "mid", 200, 400, err), 0);
    return m;
}

static int asked(const struct fake *f, const char *dir, int64_t start, int64_t end)
{
    int n = 0;
    for (int i = 0; i < f->n; i++)
        n += strcmp(f->calls[i].dir, dir) == 0 && f->calls[i].start == start &&
             f->calls[i].end == end && strcmp(f->calls[i].machine, "m1") == 0;
    return n;
}

static void test_phase_via_reducer(void **state)
{
    struct fake f = {0};
    struct ips2_model *m = phase_program(&f);
    struct ips2_model *v;
    struct ips2_node *n;

    (void)state;
    v = ips2_phase_view(m, "mid", err);
    assert_non_null(v);
    /* one question per run and shift, each on the run's own time base */
    assert_int_equal(f.n, 3);
    assert_int_equal(asked(&f, "/sess/traces/m1", 200, 400), 1);
    assert_int_equal(asked(&f, "/old/traces/m1", -800, -600), 1);
    assert_int_equal(asked(&f, "/old/traces/m1", 200, 400), 1);
    /* each application from its own answer */
    n = ips2_model_find(v, "app:A");
    assert_int_equal(n->m[IPS2_M_CPU], 200);
    n = ips2_model_find(v, "app:old.c");
    assert_int_equal(n->m[IPS2_M_CPU], 200);
    assert_int_equal(n->start_ns, 200); /* shifted again */
    assert_int_equal(n->end_ns, 400);
    n = ips2_model_find(v, "app:r");
    assert_int_equal(n->m[IPS2_M_CPU], 100);
    assert_int_equal(n->nprocesses, 1);
    assert_true(v->phase_view);
    assert_int_equal(v->phase_end_ns, 400);
    /* kept: not asked again; redefined: asked again */
    assert_ptr_equal(ips2_phase_view(m, "mid", err), v);
    assert_int_equal(f.n, 3);
    assert_int_equal(ips2_phase_define(m, "mid", 0, 100, err), 0);
    assert_non_null(ips2_phase_view(m, "mid", err));
    assert_int_equal(f.n, 6);
    assert_int_equal(asked(&f, "/sess/traces/m1", 0, 100), 1);
    assert_null(ips2_phase_view(m, "none", err));
    assert_string_equal(err, "no phase \"none\"");
    assert_int_equal(ips2_phase_define(m, "bad", 10, 10, err), -1);
    ips2_model_free(m);
}

static void test_phase_failures(void **state)
{
    struct fake f = {.fail_dir = "/old/traces/m1"};
    struct ips2_model *m = phase_program(&f);
    struct ips2_model *v;

    (void)state;
    v = ips2_phase_view(m, "mid", err);
    assert_non_null(v);
    /* the active run stands; the old one is named */
    assert_int_equal(ips2_model_find(v, "app:A")->m[IPS2_M_CPU], 200);
    assert_int_equal(ips2_model_find(v, "app:old.c")->m[IPS2_M_CPU], 0);
    assert_int_equal(m->nproblems, 1);
    assert_string_equal(m->problems[0], "phase mid: m1: /old/traces/m1: no such directory");
    ips2_model_free(m);

    f = (struct fake){.fail_dir = "/sess/traces/m1"};
    m = phase_program(&f);
    m->apps[1].mode = IPS2_MODE_ACTIVE; /* one run only */
    m->apps[1].source[0] = 0;
    m->apps[2].mode = IPS2_MODE_ACTIVE;
    m->apps[2].source[0] = 0;
    m->indexed = false;
    assert_null(ips2_phase_view(m, "mid", err));
    assert_non_null(strstr(err, "no machine could be reduced again"));
    ips2_model_free(m);
}

/* ------------------------------------------------------------- latency --- */

/* Gives procedure row proc of r the latency of n durations (its
 * incl_wall their sum); rows must come in procs[] order. */
static void add_latency(struct ips2_reductions *r, uint32_t proc, const uint64_t *v, size_t n)
{
    struct ips2_lat l = {0};

    for (size_t i = 0; i < n; i++)
        assert_int_equal(ips2_lat_add(&l, v[i]), 0);
    r->lats = rb_grow(r->lats, r->nlats, sizeof(*r->lats));
    r->lats[r->nlats++] = (struct ips2_red_latency){.proc = proc,
                                                    .nbins = (uint32_t)l.nbins,
                                                    .count = l.count,
                                                    .max_ns = l.max_ns,
                                                    .bins = l.bins};
    r->procs[proc].incl_wall = l.sum_ns;
}

/* Machine m1 (latency recorded): process 10 with two threads, f in both
 * (1 ms nine times, 10 ms once; then 2 ms twice), g in the first; machine
 * m2 (an older reduction: none recorded): f and h. */
static struct ips2_model *latency_program(void)
{
    static const uint64_t f1[10] = {1000000, 1000000, 1000000, 1000000, 1000000,
                                    1000000, 1000000, 1000000, 1000000, 10000000};
    static const uint64_t f2[2] = {2000000, 2000000}, g[3] = {50, 60, 70};
    struct ips2_reductions *r = rb_new("m1", 100000000);
    struct ips2_model *m = ips2_model_new();

    r->latency = true;
    rb_process(r, "A", 10, 0, 1000000000);
    rb_thread(r, 10, 0, 1000000000, 0);
    uint32_t pf = rb_proc(r, "f", 0, 10, 0), pg = rb_proc(r, "g", 0, 3, 0);
    add_latency(r, pf, f1, 10);
    add_latency(r, pg, g, 3);
    rb_thread(r, 11, 0, 1000000000, 0);
    add_latency(r, rb_proc(r, "f", 0, 2, 0), f2, 2);
    assert_int_equal(ips2_model_add_reductions(m, r, err), 0);
    r = rb_new("m2", 100000000);
    rb_process(r, "A", 20, 0, 1000000000);
    rb_thread(r, 20, 0, 1000000000, 0);
    rb_proc(r, "f", 0, 5, 0);
    rb_proc(r, "h", 0, 1, 0);
    assert_int_equal(ips2_model_add_reductions(m, r, err), 0);
    assert_int_equal(ips2_model_index(m, err), 0);
    return m;
}

static void test_latency_table(void **state)
{
    struct ips2_model *m = latency_program();
    struct ips2_table *t;
    struct ips2_lat l;
    bool available;

    (void)state;
    /* m1: f's twelve activations of both threads merged, sorted by total */
    t = ips2_latency_table(m, ips2_model_find(m, "machine:m1"), NULL, err);
    assert_non_null(t);
    assert_int_equal(t->nrows, 2);
    assert_string_equal(cell_str(t, 0, "procedure"), "f");
    assert_int_equal(cell_int(t, 0, "count"), 12);
    assert_int_equal(cell_int(t, 0, "total"), 23000000);
    assert_int_equal(cell_int(t, 0, "mean"), 23000000 / 12 + 1); /* rounded */
    assert_int_equal(cell_int(t, 0, "max"), 10000000);
    /* rank 6 of 12 (p50) and rank 11 (p90: ceil(10.8)) are 1 ms and 2 ms;
     * p99 is the max; each within the buckets' 1/128 */
    assert_true(llabs(cell_int(t, 0, "p50") - 1000000) * 128 <= 1000000);
    assert_true(llabs(cell_int(t, 0, "p90") - 2000000) * 128 <= 2000000);
    assert_int_equal(cell_int(t, 0, "p99"), 10000000);
    /* exact below 128 ns */
    assert_string_equal(cell_str(t, 1, "procedure"), "g");
    assert_int_equal(cell_int(t, 1, "p50"), 60);
    assert_int_equal(cell_int(t, 1, "max"), 70);
    ips2_table_free(t);

    /* the application: f's rows of m2 recorded nothing, so f is n/a, and
     * so is h; g stays; the rows not available come last */
    t = ips2_latency_table(m, ips2_model_find(m, "app:A"), "p99", err);
    assert_non_null(t);
    assert_int_equal(t->nrows, 3);
    assert_string_equal(cell_str(t, 0, "procedure"), "g");
    assert_int_equal(cell_int(t, 0, "count"), 3);
    assert_string_equal(cell_str(t, 1, "procedure"), "f");
    assert_string_equal(cell_str(t, 1, "count"), "n/a");
    assert_string_equal(cell_str(t, 1, "p99"), "n/a");
    assert_string_equal(cell_str(t, 2, "procedure"), "h");
    assert_string_equal(cell_str(t, 2, "max"), "n/a");
    ips2_table_free(t);

    /* one thread's f, and f's distribution with availability */
    assert_int_equal(ips2_latency_of(m, ips2_model_find(m, "machine:m1/process:10/thread:11"), "f",
                                     &l, &available, err),
                     0);
    assert_true(available);
    assert_int_equal(l.count, 2);
    ips2_lat_free(&l);
    assert_int_equal(ips2_latency_of(m, ips2_model_find(m, "app:A"), "f", &l, &available, err), 0);
    assert_false(available);
    ips2_lat_free(&l);
    assert_int_equal(ips2_latency_of(m, ips2_model_find(m, "app:A"), "nope", &l, &available, err),
                     -1);
    assert_non_null(strstr(err, "no procedure \"nope\""));

    /* the histogram: 8 buckets per power of two, every activation */
    assert_int_equal(ips2_latency_of(m, ips2_model_find(m, "machine:m1"), "f", &l, &available, err),
                     0);
    t = ips2_latency_histogram(&l, 8, err);
    assert_non_null(t);
    int64_t sum = 0;
    for (size_t i = 0; i < t->nrows; i++) {
        sum += cell_int(t, i, "count");
        if (i > 0)
            assert_int_equal(cell_int(t, i, "low"), cell_int(t, i - 1, "high") + 1);
    }
    assert_int_equal(sum, 12);
    assert_true(cell_int(t, 0, "low") <= 1000000 && 1000000 <= cell_int(t, 0, "high"));
    assert_true(cell_int(t, t->nrows - 1, "low") <= 10000000);
    assert_true(10000000 <= cell_int(t, t->nrows - 1, "high"));
    ips2_table_free(t);
    assert_null(ips2_latency_histogram(&l, 3, err));
    ips2_lat_free(&l);
    assert_null(ips2_latency_table(m, ips2_model_find(m, "app:A"), "colour", err));
    ips2_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_metric_table),
        cmocka_unit_test(test_metric_list),
        cmocka_unit_test(test_multi_app_table),
        cmocka_unit_test(test_profile_order_and_percent),
        cmocka_unit_test(test_objects_table),
        cmocka_unit_test(test_objects_table_names),
        cmocka_unit_test(test_latency_table),
        cmocka_unit_test(test_gprof_numbers),
        cmocka_unit_test(test_gprof_cycle),
        cmocka_unit_test(test_gprof_text),
        cmocka_unit_test(test_gprof_text_short_calls),
        cmocka_unit_test(test_npt_known_concurrency),
        cmocka_unit_test(test_npt_histogram),
        cmocka_unit_test(test_histogram_rebinning),
        cmocka_unit_test(test_histogram_comparison_shift),
        cmocka_unit_test(test_phase_via_reducer),
        cmocka_unit_test(test_phase_failures),
    };
    return cmocka_run_group_tests_name("master tables", tests, NULL, NULL);
}
