/*
 * test_clock_note.c - the process-time clock a table's header states
 * (master/clock_note.c), on models built in memory: the clocks of the
 * processes under a node, counted per process; the procedures whose mean
 * inclusive CPU per call is below ten times their clock's resolution,
 * merged by name across threads and processes (the coarsest resolution
 * wins), shortest first; the header text; older reductions (resolution 0)
 * as "not known", without warnings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "clock_note.h"
#include "red_build.h"

static char err[IPS2_ERR_MAX];

static void set_clock(struct ips2_reductions *r, uint32_t method, uint32_t param, uint64_t res)
{
    struct ips2_red_process *p = &r->processes[r->nprocesses - 1];
    p->cpu_method = method;
    p->cpu_param = param;
    p->cpu_res_ns = res;
}

/* app a: an exact process (1 ns) and a tick:10 one; app b: interp:1000. */
static struct ips2_model *sample(void)
{
    struct ips2_reductions *r = rb_new("m1", 100000000);
    struct ips2_model *m = ips2_model_new();

    rb_process(r, "a", 10, 0, 1000);
    set_clock(r, IPS2_CPU_EXACT, 0, 1);
    rb_thread(r, 10, 0, 1000, 0);
    rb_proc(r, "main", 0, 1, 900000000);
    rb_proc(r, "tiny", 0, 1000, 5000);     /* 5 ns a call: under 10 ns */
    rb_proc(r, "short", 0, 100, 30000000); /* 0.3 ms */
    rb_process(r, "a", 11, 0, 1000);
    set_clock(r, IPS2_CPU_TICK, 10, 10000000);
    rb_thread(r, 11, 0, 1000, 0);
    rb_proc(r, "main", 0, 1, 900000000);   /* 900 ms: not short */
    rb_proc(r, "short", 0, 100, 10000000); /* 0.1 ms */
    rb_proc(r, "long", 0, 2, 200000000);   /* 100 ms: exactly 10 ticks, not short */
    rb_proc(r, "never", 0, 0, 0);          /* no calls: no mean */
    rb_process(r, "b", 12, 0, 1000);
    set_clock(r, IPS2_CPU_INTERP, 1000, 1000000);
    rb_thread(r, 12, 0, 1000, 0);
    rb_proc(r, "poll", 0, 4, 8000000); /* 2 ms under 10 ms */
    assert_non_null(m);
    assert_int_equal(ips2_model_add_reductions(m, r, err), 0);
    assert_int_equal(ips2_model_index(m, err), 0);
    return m;
}

static void test_app_clocks_and_shorts(void **state)
{
    struct ips2_model *m = sample();
    struct ips2_clock_note note;

    assert_int_equal(ips2_clock_note(m, ips2_model_find(m, "app:a"), &note, err), 0);
    assert_int_equal(note.nuses, 2);
    assert_int_equal(note.uses[0].method, IPS2_CPU_EXACT);
    assert_int_equal(note.uses[0].processes, 1);
    assert_int_equal(note.uses[1].method, IPS2_CPU_TICK);
    assert_int_equal(note.uses[1].res_ns, 10000000);
    assert_false(ips2_clock_note_exact(&note));
    /* tiny: 5 ns < 10 x 1 ns; short merged: 40 ms / 200 calls = 0.2 ms,
     * resolution 10 ms (its coarsest) */
    assert_int_equal(note.nshorts, 2);
    assert_string_equal(note.shorts[0].name, "tiny");
    assert_int_equal(note.shorts[0].mean_ns, 5);
    assert_int_equal(note.shorts[0].res_ns, 1);
    assert_string_equal(note.shorts[1].name, "short");
    assert_int_equal(note.shorts[1].mean_ns, 200000);
    assert_int_equal(note.shorts[1].calls, 200);
    assert_int_equal(note.shorts[1].res_ns, 10000000);
    char *text = ips2_clock_note_text(&note);
    assert_string_equal(text, "exact (resolution 1 ns) for 1 process; tick:10 (resolution 10 ms) "
                              "for 1 process");
    free(text);
    ips2_clock_note_free(&note);

    assert_int_equal(ips2_clock_note(m, ips2_model_find(m, "app:b"), &note, err), 0);
    text = ips2_clock_note_text(&note);
    assert_string_equal(text, "interp:1000 (resolution 1 ms)");
    assert_int_equal(note.nshorts, 1);
    assert_string_equal(note.shorts[0].name, "poll");
    free(text);
    ips2_clock_note_free(&note);
    ips2_model_free(m);
}

static void test_exact_and_unknown(void **state)
{
    struct ips2_reductions *r = rb_new("m1", 100000000);
    struct ips2_model *m = ips2_model_new();
    struct ips2_clock_note note;

    rb_process(r, "old", 20, 0, 1000); /* reductions older than version 6 */
    rb_thread(r, 20, 0, 1000, 0);
    rb_proc(r, "tiny", 0, 1000, 10);
    rb_process(r, "new", 21, 0, 1000);
    set_clock(r, IPS2_CPU_EXACT, 0, 1);
    rb_thread(r, 21, 0, 1000, 0);
    rb_proc(r, "main", 0, 1, 1000);
    assert_int_equal(ips2_model_add_reductions(m, r, err), 0);
    assert_int_equal(ips2_model_index(m, err), 0);

    assert_int_equal(ips2_clock_note(m, ips2_model_find(m, "app:old"), &note, err), 0);
    char *text = ips2_clock_note_text(&note);
    assert_string_equal(text, "not known");
    assert_true(ips2_clock_note_exact(&note));
    assert_int_equal(note.nshorts, 0);
    free(text);
    ips2_clock_note_free(&note);

    /* the physical tree: one known clock, named without a process count */
    assert_int_equal(ips2_clock_note(m, ips2_model_find(m, "physical"), &note, err), 0);
    text = ips2_clock_note_text(&note);
    assert_string_equal(text, "exact (resolution 1 ns)");
    assert_true(ips2_clock_note_exact(&note));
    free(text);
    ips2_clock_note_free(&note);
    ips2_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_app_clocks_and_shorts),
        cmocka_unit_test(test_exact_and_unknown),
    };
    return cmocka_run_group_tests_name("clock note", tests, NULL, NULL);
}
