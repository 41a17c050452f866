/*
 * test_model.c - the master's session model (master/model.c): trees built
 * from reductions made in memory with known values, node lookup by path,
 * sums over every level, processes known only from the manifest, exec
 * images and pid reuse, external data rows of a reused pid on their own
 * processes' nodes, comparison-mode shifts, and reductions that are
 * refused because an index is out of range.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "red_build.h"

/* Workload: application A with processes 10 (threads 10, 11) and 20 on m1
 * and 30 on m2; application B with process 40 on m1. */
static struct ips2_model *two_apps(void)
{
    struct ips2_model *m = ips2_model_new();
    struct ips2_reductions *r1 = rb_new("m1", 100), *r2 = rb_new("m2", 100);
    char err[IPS2_ERR_MAX];

    assert_non_null(m);
    assert_int_equal(ips2_model_add_machine(m, "m1", "host1", 0, err), 0);
    assert_int_equal(ips2_model_add_machine(m, "m2", "host2", 0, err), 0);
    assert_int_equal(ips2_model_add_app(m, "A", IPS2_MODE_ACTIVE, "", err), 0);
    assert_int_equal(ips2_model_add_app(m, "B", IPS2_MODE_ACTIVE, "", err), 0);

    rb_process(r1, "A", 10, 0, 1000);
    rb_thread(r1, 10, 0, 1000, 600);
    rb_proc(r1, "main", 100, 1, 600);
    rb_proc(r1, "work", 500, 5, 500);
    rb_thread(r1, 11, 100, 900, 300);
    rb_proc(r1, "work", 300, 3, 300);
    rb_process(r1, "A", 20, 50, 500);
    rb_thread(r1, 20, 50, 500, 40);
    rb_proc(r1, "main", 40, 1, 40);
    rb_process(r1, "B", 40, 0, 2000);
    rb_thread(r1, 40, 0, 2000, 2000);
    rb_proc(r1, "main", 2000, 1, 2000);
    rb_process(r2, "A", 30, 10, 3000);
    rb_thread(r2, 30, 10, 3000, 7);
    rb_proc(r2, "main", 7, 1, 7);

    assert_int_equal(ips2_model_add_reductions(m, r1, err), 0);
    assert_int_equal(ips2_model_add_reductions(m, r2, err), 0);
    assert_int_equal(ips2_model_index(m, err), 0);
    return m;
}

static const char *child_path(const struct ips2_node *n, size_t i)
{
    return i < n->nchild ? n->child[i]->path : "(none)";
}

static void test_logical_tree(void **state)
{
    struct ips2_model *m = two_apps();
    const struct ips2_node *a = ips2_model_app_root(m, "A");

    (void)state;
    assert_non_null(a);
    assert_string_equal(a->path, "app:A");
    assert_int_equal(a->nchild, 2);
    assert_string_equal(child_path(a, 0), "app:A/machine:m1");
    assert_string_equal(child_path(a, 1), "app:A/machine:m2");
    assert_int_equal(a->child[0]->nchild, 2);
    assert_string_equal(child_path(a->child[0], 0), "app:A/machine:m1/process:10");
    assert_string_equal(child_path(a->child[0], 1), "app:A/machine:m1/process:20");
    assert_string_equal(child_path(a->child[0]->child[0], 1),
                        "app:A/machine:m1/process:10/thread:11");
    assert_string_equal(child_path(a->child[0]->child[0]->child[0], 1),
                        "app:A/machine:m1/process:10/thread:10/procedure:work");
    assert_int_equal(a->nprocesses, 3);
    assert_int_equal(a->nthreads, 4);
    /* B's tree has only B */
    assert_int_equal(ips2_model_app_root(m, "B")->nprocesses, 1);
    assert_null(ips2_model_app_root(m, "C"));
    ips2_model_free(m);
}

static void test_physical_tree(void **state)
{
    struct ips2_model *m = two_apps();
    const struct ips2_node *root = ips2_model_find(m, "physical");
    const struct ips2_node *m1 = ips2_model_find(m, "machine:m1");

    (void)state;
    assert_non_null(root);
    assert_int_equal(root->kind, IPS2_NODE_ROOT);
    assert_int_equal(root->nchild, 2);
    assert_ptr_equal(root->child[0], m1);
    /* both applications' processes under m1, by pid */
    assert_int_equal(m1->nchild, 3);
    assert_string_equal(child_path(m1, 0), "machine:m1/process:10");
    assert_string_equal(child_path(m1, 2), "machine:m1/process:40");
    assert_non_null(ips2_model_find(m, "machine:m2/process:30/thread:30/procedure:main"));
    assert_ptr_equal(ips2_model_find(m, ""), root);
    assert_null(ips2_model_find(m, "machine:m3"));
    assert_null(ips2_model_find(m, "app:A/machine:m1/process:40"));
    ips2_model_free(m);
}

static void test_sums_over_levels(void **state)
{
    struct ips2_model *m = two_apps();

    (void)state;
    assert_int_equal(ips2_model_find(m, "app:A/machine:m1/process:10/thread:10")->m[IPS2_M_CPU],
                     600);
    assert_int_equal(ips2_model_find(m, "app:A/machine:m1/process:10")->m[IPS2_M_CPU], 900);
    assert_int_equal(ips2_model_find(m, "app:A/machine:m1")->m[IPS2_M_CPU], 940);
    assert_int_equal(ips2_model_find(m, "app:A")->m[IPS2_M_CPU], 947);
    assert_int_equal(ips2_model_find(m, "app:B")->m[IPS2_M_CPU], 2000);
    assert_int_equal(ips2_model_find(m, "machine:m1")->m[IPS2_M_CPU], 2940);
    assert_int_equal(ips2_model_find(m, "physical")->m[IPS2_M_CPU], 2947);
    assert_int_equal(ips2_model_find(m, "physical")->m[IPS2_M_CALLS], 12);
    /* a procedure node: its rows; spans: first start, last end */
    assert_int_equal(
        ips2_model_find(m, "app:A/machine:m1/process:10/thread:11/procedure:work")->m[IPS2_M_CPU],
        300);
    assert_int_equal(
        ips2_model_find(m, "app:A/machine:m1/process:10/thread:10/procedure:main")->incl_cpu, 600);
    assert_int_equal(ips2_model_find(m, "app:A")->start_ns, 0);
    assert_int_equal(ips2_model_find(m, "app:A")->end_ns, 3000);
    assert_int_equal(ips2_model_find(m, "app:A/machine:m1/process:10")->start_ns, 0);
    assert_int_equal(ips2_model_find(m, "app:A/machine:m1/process:10")->end_ns, 1000);
    ips2_model_free(m);
}

static void test_manifest_process_without_data(void **state)
{
    struct ips2_model *m = two_apps();
    char err[IPS2_ERR_MAX];
    const struct ips2_node *n;

    (void)state;
    /* one that ran (its entry is attached), one that never started */
    assert_int_equal(ips2_model_add_process(m, "A", "m1", 0, 10, "./a", "exited 0", err), 0);
    assert_int_equal(
        ips2_model_add_process(m, "A", "m2", 3, 0, "./nope", "failed no such file", err), 0);
    n = ips2_model_find(m, "app:A/machine:m1/process:10");
    assert_non_null(n);
    assert_non_null(n->info);
    assert_string_equal(n->info->status, "exited 0");
    n = ips2_model_find(m, "app:A/machine:m2/process:#3");
    assert_non_null(n);
    assert_int_equal(n->nchild, 0);
    assert_string_equal(n->info->status, "failed no such file");
    assert_non_null(ips2_model_find(m, "machine:m2/process:#3"));
    assert_int_equal(ips2_model_find(m, "app:A")->nprocesses, 4);
    ips2_model_free(m);
}

static void test_exec_images_and_pid_reuse(void **state)
{
    struct ips2_model *m = ips2_model_new();
    struct ips2_reductions *r = rb_new("m1", 100);
    char err[IPS2_ERR_MAX];
    const struct ips2_node *p;

    (void)state;
    /* pid 7 runs image 0 then execs image 1: one process node */
    rb_process(r, "A", 7, 0, 100);
    rb_thread(r, 7, 0, 100, 50);
    rb_process(r, "A", 7, 100, 300);
    r->processes[1].image = 1;
    rb_thread(r, 7, 100, 300, 150);
    /* an old session's process had pid 7 too */
    rb_process(r, "old", 7, 0, 10);
    rb_thread(r, 7, 0, 10, 10);
    assert_int_equal(ips2_model_add_reductions(m, r, err), 0);
    assert_int_equal(ips2_model_index(m, err), 0);
    p = ips2_model_find(m, "app:A/machine:m1/process:7");
    assert_non_null(p);
    assert_int_equal(p->nchild, 1);
    assert_int_equal(p->child[0]->nrefs, 2);
    assert_int_equal(p->m[IPS2_M_CPU], 200);
    assert_int_equal(ips2_model_find(m, "machine:m1/process:7")->m[IPS2_M_CPU], 200);
    assert_int_equal(ips2_model_find(m, "machine:m1/process:7@old")->m[IPS2_M_CPU], 10);
    assert_int_equal(ips2_model_find(m, "app:old/machine:m1/process:7")->m[IPS2_M_CPU], 10);
    ips2_model_free(m);
}

/* An external data row of the reductions (collector "os", one bucket). */
static void add_ext(struct ips2_reductions *r, uint32_t pid, uint32_t process, uint64_t value)
{
    struct ips2_red_ext *x;

    r->exts = rb_grow(r->exts, r->nexts, sizeof(*x));
    x = &r->exts[r->nexts++];
    x->collector = rb_str(r, "os");
    x->pid = pid;
    x->process = process;
    x->metric = IPS2_M_MINOR_FAULTS;
    x->value = value;
    x->width_ns = 100;
    x->nbuckets = 1;
    x->v = malloc(sizeof(double));
    assert_non_null(x->v);
    x->v[0] = (double)value;
}

/* A pid reused: process 7 of A, later process 7 of B (and of A again),
 * each with its own collector row: each process node shows its own
 * counters, the machine's row is on the collector node only. */
static void test_ext_rows_of_a_reused_pid(void **state)
{
    struct ips2_model *m = ips2_model_new();
    struct ips2_reductions *r = rb_new("m1", 100);
    char err[IPS2_ERR_MAX];

    (void)state;
    assert_int_equal(ips2_model_add_app(m, "A", IPS2_MODE_ACTIVE, "", err), 0);
    assert_int_equal(ips2_model_add_app(m, "B", IPS2_MODE_ACTIVE, "", err), 0);
    rb_process(r, "A", 7, 0, 100);
    rb_thread(r, 7, 0, 100, 50);
    rb_process(r, "B", 7, 200, 300);
    rb_thread(r, 7, 200, 300, 60);
    rb_process(r, "A", 7, 400, 500);
    rb_thread(r, 7, 400, 500, 70);
    add_ext(r, 7, 1, 30); /* B's first: a pid lookup would give it to A */
    add_ext(r, 7, 0, 10);
    add_ext(r, 7, 2, 5);
    add_ext(r, 0, IPS2_RED_NONE, 1000);
    assert_int_equal(ips2_model_add_reductions(m, r, err), 0);
    assert_int_equal(ips2_model_index(m, err), 0);
    assert_int_equal(ips2_model_find(m, "app:A/machine:m1/process:7")->m[IPS2_M_MINOR_FAULTS], 15);
    assert_int_equal(ips2_model_find(m, "app:B/machine:m1/process:7")->m[IPS2_M_MINOR_FAULTS], 30);
    assert_int_equal(ips2_model_find(m, "machine:m1/process:7")->m[IPS2_M_MINOR_FAULTS], 15);
    assert_int_equal(ips2_model_find(m, "machine:m1/process:7@B")->m[IPS2_M_MINOR_FAULTS], 30);
    assert_int_equal(ips2_model_find(m, "app:B")->m[IPS2_M_MINOR_FAULTS], 30);
    assert_int_equal(ips2_model_find(m, "machine:m1")->m[IPS2_M_MINOR_FAULTS], 45);
    assert_int_equal(ips2_model_find(m, "machine:m1/collector:os")->m[IPS2_M_MINOR_FAULTS], 1000);
    assert_int_equal(ips2_model_find(m, "app:B/machine:m1/collector:os")->m[IPS2_M_MINOR_FAULTS],
                     1000);
    ips2_model_free(m);

    /* a row naming a process of another pid is refused */
    m = ips2_model_new();
    r = rb_new("m1", 100);
    rb_process(r, "A", 7, 0, 100);
    rb_thread(r, 7, 0, 100, 50);
    add_ext(r, 8, 0, 1);
    assert_int_equal(ips2_model_add_reductions(m, r, err), -1);
    assert_non_null(strstr(err, "external data row 0: bad process"));
    ips2_model_free(m);
}

static void test_comparison_shift(void **state)
{
    struct ips2_model *m = ips2_model_new();
    struct ips2_reductions *r = rb_new("m1", 100);
    char err[IPS2_ERR_MAX];

    (void)state;
    assert_int_equal(ips2_model_add_app(m, "new", IPS2_MODE_ACTIVE, "", err), 0);
    assert_int_equal(ips2_model_add_app(m, "cmp", IPS2_MODE_COMPARISON, "/s/old", err), 0);
    assert_int_equal(ips2_model_add_app(m, "rep", IPS2_MODE_REPLAY, "/s/old", err), 0);
    assert_int_equal(ips2_model_set_shift(m, "cmp", NULL, 5000, err), 0);
    assert_int_equal(ips2_model_set_shift(m, "rep", NULL, 5000, err), 0);
    assert_int_equal(ips2_model_set_shift(m, "nope", NULL, 1, err), -1);
    rb_process(r, "new", 1, 100, 900);
    rb_thread(r, 1, 100, 900, 800);
    rb_process(r, "cmp", 2, -4900, -4000);
    rb_thread(r, 2, -4900, -4000, 900);
    rb_process(r, "rep", 3, -4900, -4000);
    rb_thread(r, 3, -4900, -4000, 900);
    assert_int_equal(ips2_model_add_reductions(m, r, err), 0);
    assert_int_equal(ips2_model_index(m, err), 0);
    /* comparison mode: on the active time base; replay mode: as recorded */
    assert_int_equal(ips2_model_find(m, "app:cmp")->start_ns, 100);
    assert_int_equal(ips2_model_find(m, "app:cmp")->end_ns, 1000);
    assert_int_equal(ips2_model_find(m, "app:rep")->start_ns, -4900);
    assert_int_equal(ips2_model_find(m, "machine:m1/process:2")->start_ns, 100);
    assert_int_equal(ips2_model_find(m, "physical")->start_ns, -4900);
    assert_int_equal(ips2_model_find(m, "physical")->end_ns, 1000);
    ips2_model_free(m);
}

static void test_bad_reductions_refused(void **state)
{
    struct ips2_model *m = ips2_model_new();
    struct ips2_reductions *r;
    char err[IPS2_ERR_MAX] = "";

    (void)state;
    r = rb_new("m1", 100);
    rb_process(r, "A", 1, 0, 10);
    rb_thread(r, 1, 0, 10, 5);
    r->threads[0].nprocs = 3; /* rows that are not there */
    assert_int_equal(ips2_model_add_reductions(m, r, err), -1);
    assert_non_null(strstr(err, "thread 0"));

    r = rb_new("m1", 100);
    rb_process(r, "A", 1, 0, 10);
    rb_thread(r, 1, 0, 10, 5);
    rb_proc(r, "f", 1, 1, 1);
    r->procs[0].name = 99; /* no such string */
    assert_int_equal(ips2_model_add_reductions(m, r, err), -1);
    assert_non_null(strstr(err, "procedure row 0"));

    r = rb_new("m1", 100);
    rb_process(r, "A", 1, 0, 10);
    rb_thread(r, 1, 0, 10, 5);
    rb_hist(r, IPS2_RED_NONE, IPS2_M_COUNT, 0, 100, 1, 1.0); /* no such metric */
    assert_int_equal(ips2_model_add_reductions(m, r, err), -1);
    assert_non_null(strstr(err, "histogram 0"));

    r = rb_new("m1", 100);
    rb_process(r, "A", 1, 0, 10);
    rb_thread(r, 1, 0, 10, 5);
    r->processes[0].nthreads = 2; /* threads of another process, or none */
    assert_int_equal(ips2_model_add_reductions(m, r, err), -1);
    assert_int_equal(m->nslots, 0);
    ips2_model_free(m);
}

static void test_problems_once(void **state)
{
    struct ips2_model *m = ips2_model_new();
    struct ips2_reductions *r = rb_new("m1", 100);
    char err[IPS2_ERR_MAX];

    (void)state;
    r->problems = malloc(sizeof(uint32_t));
    r->problems[0] = rb_str(r, "1.0.1.raw: truncated at byte 4096");
    r->nproblems = 1;
    assert_int_equal(ips2_model_add_reductions(m, r, err), 0);
    ips2_model_problem(m, "m1: 1.0.1.raw: truncated at byte %d", 4096);
    ips2_model_problem(m, "m2: slave died while reducing");
    assert_int_equal(m->nproblems, 2);
    assert_string_equal(m->problems[0], "m1: 1.0.1.raw: truncated at byte 4096");
    assert_string_equal(m->problems[1], "m2: slave died while reducing");
    ips2_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_logical_tree),
        cmocka_unit_test(test_physical_tree),
        cmocka_unit_test(test_sums_over_levels),
        cmocka_unit_test(test_manifest_process_without_data),
        cmocka_unit_test(test_exec_images_and_pid_reuse),
        cmocka_unit_test(test_ext_rows_of_a_reused_pid),
        cmocka_unit_test(test_comparison_shift),
        cmocka_unit_test(test_bad_reductions_refused),
        cmocka_unit_test(test_problems_once),
    };
    return cmocka_run_group_tests_name("master model", tests, NULL, NULL);
}
