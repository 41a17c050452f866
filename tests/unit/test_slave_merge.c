/*
 * test_slave_merge.c - merging the reductions of an active session and a
 * replayed one into one machine's (slave/slave_merge.c): two sources built
 * in memory with known rows; the result keeps the wanted applications,
 * renames them, and keeps every index pointing at the same row it did
 * (an external data row's process too).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "slave_merge.h"

/* A source with processes of the given applications, each with one
 * thread of two procedures ("main", "work"), one arc, one histogram per
 * procedure and one per thread, one object. */
struct src {
    char *strings[16];
    struct ips2_red_process processes[3];
    struct ips2_red_thread threads[3];
    struct ips2_red_proc procs[6];
    struct ips2_red_arc arcs[3];
    struct ips2_red_hist hists[9];
    double v[9][2];
    struct ips2_red_object objects[3];
    uint32_t problems[1];
    struct ips2_reductions r;
};

static void make_src(struct src *s, const char *const *apps, int n, int pid0)
{
    memset(s, 0, sizeof *s);
    struct ips2_reductions *r = &s->r;
    r->strings = s->strings;
    s->strings[0] = "main";
    s->strings[1] = "work";
    s->strings[2] = "/bin/x";
    s->strings[3] = "stream 9.0.9.raw: corrupt at byte 4096";
    r->nstrings = 4;
    r->machine = 0;
    r->host = 0;
    r->phase_start_ns = INT64_MIN;
    r->phase_end_ns = INT64_MAX;
    r->interval_ns = 100000000;
    r->events = 1000;
    r->trace_bytes = 8000;
    r->processes = s->processes;
    r->threads = s->threads;
    r->procs = s->procs;
    r->arcs = s->arcs;
    r->hists = s->hists;
    r->objects = s->objects;
    r->problems = s->problems;
    s->problems[0] = 3;
    r->nproblems = 1;
    for (int i = 0; i < n; i++) {
        s->strings[r->nstrings] = (char *)apps[i];
        s->processes[i] = (struct ips2_red_process){.app = (uint32_t)r->nstrings++,
                                                    .exe = 2,
                                                    .command = IPS2_RED_NONE,
                                                    .pid = (uint32_t)(pid0 + i),
                                                    .start_ns = 10 * i,
                                                    .end_ns = 100 + i,
                                                    .exit_how = 0,
                                                    .problem = IPS2_RED_NONE,
                                                    .first_thread = (uint32_t)i,
                                                    .nthreads = 1};
        s->threads[i] = (struct ips2_red_thread){.process = (uint32_t)i,
                                                 .tid = (uint32_t)(pid0 + i),
                                                 .first_proc = (uint32_t)(2 * i),
                                                 .nprocs = 2};
        s->threads[i].m[IPS2_M_CPU] = (uint64_t)(1000 * (pid0 + i));
        for (int k = 0; k < 2; k++) {
            s->procs[2 * i + k] =
                (struct ips2_red_proc){.thread = (uint32_t)i, .name = (uint32_t)k};
            s->procs[2 * i + k].m[IPS2_M_CALLS] = (uint64_t)(pid0 + i) * 10 + k;
        }
        s->arcs[i] = (struct ips2_red_arc){
            .thread = (uint32_t)i, .caller = 0, .callee = 1, .count = (uint64_t)(pid0 + i)};
        for (int k = 0; k < 3; k++) {
            struct ips2_red_hist *h = &s->hists[3 * i + k];
            h->thread = (uint32_t)i;
            h->proc = k < 2 ? (uint32_t)(2 * i + k) : IPS2_RED_NONE;
            h->metric = IPS2_M_CPU;
            h->object = IPS2_RED_NONE;
            h->nbuckets = 2;
            h->width_ns = 100000000;
            h->v = s->v[3 * i + k];
            h->v[0] = pid0 + i + k / 10.0;
        }
        s->objects[i] = (struct ips2_red_object){
            .thread = (uint32_t)i, .id = (uint64_t)(pid0 + i), .name = IPS2_RED_NONE};
    }
    r->nprocesses = r->nthreads = r->narcs = r->nobjects = (size_t)n;
    r->nprocs = 2 * (size_t)n;
    r->nhists = 3 * (size_t)n;
}

#define STR(r, i) ((r)->strings[(i)])

static void merge_filters_and_renames(void **state)
{
    (void)state;
    static const char *const active_apps[] = {"server", "client"};
    static const char *const old_apps[] = {"server", "client", "barrier"};
    static const char *const keep[] = {"client", "barrier"};
    struct src a, o;
    make_src(&a, active_apps, 2, 100);
    make_src(&o, old_apps, 3, 200);
    struct slave_merge_src srcs[] = {
        {.r = &a.r},
        {.r = &o.r, .apps = keep, .napps = 2, .prefix = "old-"},
    };
    static const char *const extra[] = {"replay x: server process 7: no trace"};
    struct ips2_reductions *m = slave_merge(srcs, 2, "alpha", "localhost", extra, 1);
    assert_non_null(m);

    assert_string_equal(STR(m, m->machine), "alpha");
    assert_string_equal(STR(m, m->host), "localhost");
    assert_int_equal(m->events, 2000);
    assert_int_equal(m->trace_bytes, 16000);
    assert_int_equal(m->interval_ns, 100000000);

    /* processes: server 100, client 101, old-client 201, old-barrier 202 */
    assert_int_equal(m->nprocesses, 4);
    static const char *const names[] = {"server", "client", "old-client", "old-barrier"};
    static const uint32_t pids[] = {100, 101, 201, 202};
    for (size_t i = 0; i < 4; i++) {
        const struct ips2_red_process *p = &m->processes[i];
        assert_string_equal(STR(m, p->app), names[i]);
        assert_int_equal(p->pid, pids[i]);
        assert_string_equal(STR(m, p->exe), "/bin/x");
        assert_int_equal(p->command, IPS2_RED_NONE);
        assert_int_equal(p->nthreads, 1);
        const struct ips2_red_thread *t = &m->threads[p->first_thread];
        assert_int_equal(t->process, i);
        assert_int_equal(t->tid, pids[i]);
        assert_int_equal(t->m[IPS2_M_CPU], 1000 * pids[i]);
        assert_int_equal(t->nprocs, 2);
        for (uint32_t k = 0; k < 2; k++) {
            const struct ips2_red_proc *pr = &m->procs[t->first_proc + k];
            assert_int_equal(pr->thread, p->first_thread);
            assert_string_equal(STR(m, pr->name), k ? "work" : "main");
            assert_int_equal(pr->m[IPS2_M_CALLS], pids[i] * 10 + k);
        }
    }
    assert_int_equal(m->narcs, 4);
    assert_int_equal(m->nobjects, 4);
    assert_int_equal(m->nhists, 12);
    for (size_t i = 0; i < m->narcs; i++) {
        const struct ips2_red_arc *arc = &m->arcs[i];
        uint32_t pid = m->processes[m->threads[arc->thread].process].pid;
        assert_int_equal(arc->count, pid);
        assert_string_equal(STR(m, arc->caller), "main");
        assert_string_equal(STR(m, arc->callee), "work");
        assert_int_equal(m->objects[i].id, m->threads[m->objects[i].thread].tid);
    }
    for (size_t i = 0; i < m->nhists; i++) {
        const struct ips2_red_hist *h = &m->hists[i];
        uint32_t pid = m->threads[h->thread].tid;
        if (h->proc == IPS2_RED_NONE) {
            assert_true(h->v[0] == pid + 0.2);
        } else {
            assert_int_equal(m->procs[h->proc].thread, h->thread);
            int k = strcmp(STR(m, m->procs[h->proc].name), "work") == 0;
            assert_true(h->v[0] == pid + k / 10.0);
        }
    }
    /* both sources' problems and the extra one */
    assert_int_equal(m->nproblems, 3);
    assert_string_equal(STR(m, m->problems[0]), "stream 9.0.9.raw: corrupt at byte 4096");
    assert_string_equal(STR(m, m->problems[2]), "replay x: server process 7: no trace");
    slave_merge_free(m);
}

/* External data rows follow their own process row: pid 100 is a process
 * of A in the active source and of B in the old one (not kept); the old
 * C's row points at C's new index; the machine's row stays the active
 * source's only. */
static void merge_ext_rows_follow_their_process(void **state)
{
    (void)state;
    static const char *const active_apps[] = {"A"};
    static const char *const old_apps[] = {"B", "C"};
    static const char *const keep[] = {"C"};
    struct src a, o;
    make_src(&a, active_apps, 1, 100);
    make_src(&o, old_apps, 2, 100);
    a.strings[a.r.nstrings++] = "os";
    o.strings[o.r.nstrings++] = "os";
    double v[4][1] = {{1}, {9}, {2}, {3}};
    struct ips2_red_ext ax[2] = {
        {5, 100, 0, IPS2_M_MINOR_FAULTS, 0, 1, 0, 100, 1, v[0]},
        {5, 0, IPS2_RED_NONE, IPS2_M_MINOR_FAULTS, 0, 9, 0, 100, 1, v[1]},
    };
    struct ips2_red_ext ox[3] = {
        {6, 100, 0, IPS2_M_MINOR_FAULTS, 0, 2, 0, 100, 1, v[2]},
        {6, 101, 1, IPS2_M_MINOR_FAULTS, 0, 3, 0, 100, 1, v[3]},
        {6, 0, IPS2_RED_NONE, IPS2_M_MINOR_FAULTS, 0, 99, 0, 100, 1, v[1]},
    };
    a.r.exts = ax;
    a.r.nexts = 2;
    o.r.exts = ox;
    o.r.nexts = 3;
    struct slave_merge_src srcs[] = {
        {.r = &a.r, .machine = true},
        {.r = &o.r, .apps = keep, .napps = 1, .prefix = "old-"},
    };
    struct ips2_reductions *m = slave_merge(srcs, 2, "alpha", "localhost", NULL, 0);
    assert_non_null(m);
    assert_int_equal(m->nprocesses, 2);
    assert_string_equal(STR(m, m->processes[1].app), "old-C");
    assert_int_equal(m->nexts, 3);
    assert_int_equal(m->exts[0].value, 1);
    assert_int_equal(m->exts[0].process, 0);
    assert_int_equal(m->exts[1].value, 9);
    assert_int_equal(m->exts[1].process, IPS2_RED_NONE);
    assert_int_equal(m->exts[2].value, 3);
    assert_int_equal(m->exts[2].pid, 101);
    assert_int_equal(m->exts[2].process, 1);
    for (size_t i = 0; i < m->nexts; i++)
        assert_string_equal(STR(m, m->exts[i].collector), "os");
    slave_merge_free(m);
}

static void merge_of_nothing(void **state)
{
    (void)state;
    struct ips2_reductions *m = slave_merge(NULL, 0, "beta", "h", NULL, 0);
    assert_non_null(m);
    assert_int_equal(m->nprocesses, 0);
    assert_int_equal(m->nstrings, 2);
    assert_int_equal(m->phase_start_ns, INT64_MIN);
    slave_merge_free(m);
}

/* An object's name and an object histogram's link follow their rows when
 * some applications are left out and strings and rows move. */
static void merge_object_names_and_links(void **state)
{
    (void)state;
    static const char *const active_apps[] = {"A"};
    static const char *const old_apps[] = {"B", "C", "D"};
    static const char *const keep[] = {"C", "D"};
    struct src a, o;
    make_src(&a, active_apps, 1, 100);
    make_src(&o, old_apps, 3, 200);
    for (int i = 0; i < 3; i++) {
        static char names[3][16];
        snprintf(names[i], sizeof(names[i]), "mutex:lock%d", i);
        o.strings[o.r.nstrings] = names[i];
        o.objects[i].name = (uint32_t)o.r.nstrings++;
        o.hists[3 * i + 2].metric = IPS2_M_SYNC_WAIT; /* the thread's row: now object i's */
        o.hists[3 * i + 2].object = (uint32_t)i;
    }
    struct slave_merge_src srcs[] = {{.r = &a.r}, {.r = &o.r, .apps = keep, .napps = 2}};
    struct ips2_reductions *m = slave_merge(srcs, 2, "alpha", "localhost", NULL, 0);
    assert_non_null(m);
    assert_int_equal(m->nobjects, 3);
    assert_int_equal(m->objects[0].name, IPS2_RED_NONE); /* A's */
    size_t linked = 0;
    for (size_t i = 0; i < m->nhists; i++) {
        const struct ips2_red_hist *h = &m->hists[i];
        if (h->object == IPS2_RED_NONE)
            continue;
        linked++;
        const struct ips2_red_object *ob = &m->objects[h->object];
        uint32_t tid = m->threads[h->thread].tid;
        char want[16];
        snprintf(want, sizeof(want), "mutex:lock%u", tid - 200);
        assert_int_equal(ob->thread, h->thread);
        assert_int_equal(ob->id, tid);
        assert_string_equal(STR(m, ob->name), want);
    }
    assert_int_equal(linked, 2); /* C's and D's; B's left out */
    slave_merge_free(m);
}

/* Holds follow their objects and procedures into the merge; those of an
 * application left out go with it. */
static void merge_holds(void **state)
{
    (void)state;
    static const char *const old_apps[] = {"B", "C", "D"};
    static const char *const keep[] = {"C", "D"};
    struct src a, o;
    static const char *const active_apps[] = {"A"};
    make_src(&a, active_apps, 1, 100);
    make_src(&o, old_apps, 3, 200);
    struct ips2_red_hold holds[3];
    for (uint32_t i = 0; i < 3; i++) /* thread i's "work" holds its object 10 * (i + 1) ns */
        holds[i] = (struct ips2_red_hold){i, 2 * i + 1, i + 1, 10 * (i + 1), 0};
    o.r.holds = holds;
    o.r.nholds = 3;
    struct slave_merge_src srcs[] = {{.r = &a.r}, {.r = &o.r, .apps = keep, .napps = 2}};
    struct ips2_reductions *m = slave_merge(srcs, 2, "alpha", "localhost", NULL, 0);
    assert_non_null(m);
    assert_int_equal(m->nholds, 2); /* C's and D's */
    for (size_t i = 0; i < m->nholds; i++) {
        const struct ips2_red_hold *h = &m->holds[i];
        const struct ips2_red_object *ob = &m->objects[h->object];
        uint32_t tid = m->threads[ob->thread].tid;
        assert_int_equal(ob->id, tid);
        assert_int_equal(m->procs[h->proc].thread, ob->thread);
        assert_string_equal(STR(m, m->procs[h->proc].name), "work");
        assert_int_equal(h->acquisitions, tid - 200 + 1);
        assert_int_equal(h->hold_ns, 10 * (tid - 200 + 1));
    }
    slave_merge_free(m);
}

/* Latency rows follow their procedures into the merge (those of an
 * application left out go with it); with a source that recorded none
 * (an older reductions file) the merge has none: not available. */
static void merge_latency(void **state)
{
    (void)state;
    static const char *const old_apps[] = {"B", "C", "D"};
    static const char *const keep[] = {"C", "D"};
    static const char *const active_apps[] = {"A"};
    struct src a, o;
    make_src(&a, active_apps, 1, 100);
    make_src(&o, old_apps, 3, 200);
    struct ips2_lat_bin bins[3][1];
    struct ips2_red_latency lats[3];
    for (uint32_t i = 0; i < 3; i++) { /* thread i's "work": i + 1 activations of 1000 ns */
        bins[i][0] = (struct ips2_lat_bin){ips2_lat_bucket(1000), i + 1};
        lats[i] = (struct ips2_red_latency){2 * i + 1, 1, i + 1, 1000, bins[i]};
    }
    o.r.lats = lats;
    o.r.nlats = 3;
    o.r.latency = a.r.latency = true;
    struct slave_merge_src srcs[] = {{.r = &a.r}, {.r = &o.r, .apps = keep, .napps = 2}};
    struct ips2_reductions *m = slave_merge(srcs, 2, "alpha", "localhost", NULL, 0);
    assert_non_null(m);
    assert_true(m->latency);
    assert_int_equal(m->nlats, 2); /* C's and D's */
    for (size_t i = 0; i < m->nlats; i++) {
        const struct ips2_red_latency *l = &m->lats[i];
        uint32_t tid = m->threads[m->procs[l->proc].thread].tid;
        assert_string_equal(STR(m, m->procs[l->proc].name), "work");
        assert_int_equal(l->count, tid - 200 + 1);
        assert_int_equal(l->bins[0].count, l->count);
        if (i > 0)
            assert_true(l->proc > m->lats[i - 1].proc);
    }
    slave_merge_free(m);

    a.r.latency = false; /* the active run's from an older file */
    m = slave_merge(srcs, 2, "alpha", "localhost", NULL, 0);
    assert_non_null(m);
    assert_false(m->latency);
    assert_int_equal(m->nlats, 0);
    slave_merge_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(merge_filters_and_renames),
        cmocka_unit_test(merge_ext_rows_follow_their_process),
        cmocka_unit_test(merge_object_names_and_links),
        cmocka_unit_test(merge_holds),
        cmocka_unit_test(merge_latency),
        cmocka_unit_test(merge_of_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
