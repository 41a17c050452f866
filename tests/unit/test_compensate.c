/*
 * test_compensate.c - per-thread perturbation compensation
 * (slave/compensate.h) against the paper's formulas: eq. 7 on its
 * footnote's example (t_m = 854, the 11th event, alpha = 10.9: 745), a
 * sequential trace's total T_m - alpha N (IV-B1), a call's start keeping
 * its distance less the probe's inside part, times that never go back
 * while the accumulated cost goes on, per-probe costs, the end block's
 * cheap probes, the pages per byte and the sampled probe, older streams'
 * cost_ns, a tick clock's CPU readings kept as read, counted calls
 * charged at the sync points by their running count, and raw mode
 * counting without moving anything.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "compensate.h"
#include "ips2_fields.h"

static struct ips2_cost_ext block(uint32_t enter_ps, uint32_t exit_ps)
{
    struct ips2_cost_ext x;
    memset(&x, 0, sizeof(x));
    memcpy(x.magic, IPS2_COST_EXT_MAGIC, 4);
    x.size = sizeof(x);
    x.nprobes = IPS2_PROBES;
    for (unsigned p = 0; p < IPS2_PROBE_PAGE; p++) /* the pages: their own test */
        x.wall_ps[p] = x.cpu_ps[p] = enter_ps;
    x.wall_ps[IPS2_PROBE_EXIT] = x.cpu_ps[IPS2_PROBE_EXIT] = exit_ps;
    return x;
}

/* Eq. 7: t_a(e_i) = t_m(e_i) - (i - 1) alpha; the footnote's e_11. */
static void test_eq7(void **state)
{
    struct ips2_file_header h = {0};
    struct ips2_cost_ext x = block(10900, 10900); /* alpha 10.9 (ns here, us there) */
    struct red_comp c;
    red_comp_init(&c, true, &h, &x, NULL);
    int64_t t = 0;
    uint64_t cpu = 0;
    for (int i = 1; i <= 10; i++) { /* e_1 .. e_10, 20 apart */
        int64_t ti = i * 20;
        uint64_t ci = (uint64_t)ti;
        red_comp_proc(&c, i % 2 ? IPS2_PROBE_ENTER : IPS2_PROBE_EXIT, &ti, &ci);
        assert_int_equal(ti, i * 20 - (int64_t)((i - 1) * 10900) / 1000);
    }
    t = 854;
    cpu = 854;
    red_comp_proc(&c, IPS2_PROBE_EXIT, &t, &cpu);
    assert_int_equal(t, 745);
    assert_int_equal(cpu, 745);
    /* IV-B1: alpha N removed in all (N = 11 events) */
    assert_int_equal(red_comp_shift(&c), 11 * 10900 / 1000);
}

/* Times never go back (the paper's simultaneity), the accumulator goes on. */
static void test_clamp(void **state)
{
    struct ips2_file_header h = {0};
    struct ips2_cost_ext x = block(30000, 30000);
    struct red_comp c;
    red_comp_init(&c, true, &h, &x, NULL);
    int64_t t[] = {1000, 1010, 1020, 1200};
    int64_t want[] = {1000, 1000, 1000, 1200 - 90};
    for (int i = 0; i < 4; i++) {
        uint64_t cpu = (uint64_t)t[i];
        red_comp_proc(&c, IPS2_PROBE_ENTER, &t[i], &cpu);
        assert_int_equal(t[i], want[i]);
        assert_int_equal(cpu, (uint64_t)want[i]);
    }
}

/* A call that waited: its own probe's inside part comes off its time, not
 * off its start; the probe is the "wait" one. */
static void test_wait(void **state)
{
    struct ips2_file_header h = {0};
    struct ips2_cost_ext x = block(20000, 20000);
    x.wall_ps[IPS2_PROBE_WAIT] = 500000;
    x.wall_in_ps[IPS2_PROBE_WAIT] = 100000;
    struct red_comp c;
    red_comp_init(&c, true, &h, &x, NULL);
    int64_t t = 10000;
    uint64_t cpu = 10000;
    red_comp_proc(&c, IPS2_PROBE_ENTER, &t, &cpu); /* 20 ns so far */
    uint64_t extra[3] = {7, 0, 1};                 /* sem-acquired: wait, initial, start */
    struct ips2_event ev = {.kind = IPS2_EV_SEM_ACQUIRED, .nextra = 3, .extra = extra};
    assert_int_equal(ips2_field_word(ev.kind, IPS2_ROLE_START), 2);
    t = 20000;
    cpu = 20000;
    int64_t in = red_comp_event(&c, &ev, &t, &cpu);
    assert_int_equal(in, 100);
    assert_int_equal(t, 20000 - 20 - 100);
    /* after it: its whole cost (outside and inside) */
    assert_int_equal(red_comp_shift(&c), 20 + 500 + 100);
    /* without a start it was a cheap record: the "event" probe */
    extra[2] = 0;
    t = 30000;
    cpu = 30000;
    assert_int_equal(red_comp_event(&c, &ev, &t, &cpu), 0);
    assert_int_equal(t, 30000 - 620);
    assert_int_equal(red_comp_shift(&c), 620 + 20);
}

/* The end block's cheap probes; older streams: cost_ns; raw: counted. */
/* The pages: per byte of record, the end block's (in situ) over the
 * start-up estimate, a short record's 8 bytes with each procedure probe
 * and the event's own bytes with any other; the sampled procedure probe
 * scales the end block's cheap probes. */
static void test_pages(void **state)
{
    struct ips2_file_header h = {0};
    struct ips2_cost_ext x = block(10000, 10000), end = block(4000, 6000);
    x.wall_ps[IPS2_PROBE_PAGE] = x.cpu_ps[IPS2_PROBE_PAGE] = 100;
    end.wall_ps[IPS2_PROBE_PAGE] = end.cpu_ps[IPS2_PROBE_PAGE] = 1500; /* 1.5 ns a byte */
    struct red_comp c;
    red_comp_init(&c, true, &h, &x, &end);
    assert_int_equal(c.out_w[IPS2_PROBE_ENTER], 4000 + 8 * 1500);
    assert_int_equal(c.out_c[IPS2_PROBE_EXIT], 6000 + 8 * 1500);
    int64_t t = 1000;
    uint64_t cpu = 1000;
    uint64_t extra[2] = {1, 2}; /* a post: no start, two words */
    struct ips2_event ev = {.kind = IPS2_EV_SEM_POST, .nextra = 2, .extra = extra};
    red_comp_event(&c, &ev, &t, &cpu);
    assert_int_equal(red_comp_shift(&c), (4000 + 32 * 1500) / 1000); /* 4 words */

    end.wall_ps[IPS2_PROBE_SAMPLED] = end.cpu_ps[IPS2_PROBE_SAMPLED] = 2500; /* half of 5000 */
    red_comp_init(&c, true, &h, &x, &end);
    assert_int_equal(c.out_w[IPS2_PROBE_ENTER], 2000 + 8 * 1500);
    assert_int_equal(c.out_c[IPS2_PROBE_EXIT], 3000 + 8 * 1500);
    assert_int_equal(c.out_w[IPS2_PROBE_LOCK], 2000 + 8 * 1500);

    red_comp_init(&c, true, &h, &x, NULL); /* no end block: the start-up estimate */
    assert_int_equal(c.out_w[IPS2_PROBE_ENTER], 10000 + 8 * 100);
}

/* Counted calls: each SYNC's running count less the previous one's, at
 * the end block's sampled counted call (slot 7 inside), before the sync's
 * own time; without a sample, a traced call's code (interp only); older
 * SYNCs (one word) charge nothing. */
static void test_counted(void **state)
{
    struct ips2_file_header h = {
        .stream_kind = IPS2_STREAM_THREAD, .tid = 2, .pid = 1, .cpu_method = IPS2_CPU_INTERP};
    struct ips2_cost_ext x = block(0, 0), end = block(0, 0);
    end.wall_in_ps[IPS2_PROBE_SAMPLED] = end.cpu_in_ps[IPS2_PROBE_SAMPLED] = 8000; /* 8 ns */
    struct red_comp c;
    red_comp_init(&c, true, &h, &x, &end);
    uint64_t w0[2] = {0, 0}, w1[2] = {0, 4096}, w2[2] = {0, 8192}, old[1] = {0};
    struct ips2_event s0 = {.kind = IPS2_EV_SYNC, .nextra = 2, .extra = w0};
    struct ips2_event s1 = {.kind = IPS2_EV_SYNC, .nextra = 2, .extra = w1};
    struct ips2_event s2 = {.kind = IPS2_EV_SYNC, .nextra = 2, .extra = w2};
    struct ips2_event s3 = {.kind = IPS2_EV_SYNC, .nextra = 1, .extra = old};
    int64_t t = 1000;
    uint64_t cpu = 1000;
    red_comp_event(&c, &s0, &t, &cpu);
    assert_int_equal(t, 1000);
    t = 100000, cpu = 100000; /* 4096 counted calls before it: 32768 ns */
    red_comp_event(&c, &s1, &t, &cpu);
    assert_int_equal(t, 100000 - 32768);
    assert_int_equal(cpu, 100000 - 32768);
    t = 200000, cpu = 200000;
    red_comp_event(&c, &s2, &t, &cpu);
    assert_int_equal(t, 200000 - 2 * 32768);
    t = 300000, cpu = 300000;
    red_comp_event(&c, &s3, &t, &cpu);
    assert_int_equal(t, 300000 - 2 * 32768);

    /* no sample: a traced call's entry and exit code */
    x = block(3000, 4000);
    end = block(3000, 4000);
    red_comp_init(&c, true, &h, &x, &end);
    assert_int_equal(c.count_w, 7000);
    t = 1000, cpu = 1000;
    red_comp_event(&c, &s0, &t, &cpu);
    t = 100000, cpu = 100000;
    red_comp_event(&c, &s1, &t, &cpu);
    assert_int_equal(t, 100000 - 3 - (4096 * 7000) / 1000); /* and s0's own probe */
    h.cpu_method = IPS2_CPU_EXACT; /* its procedure probes read the CPU clock: not a guess */
    red_comp_init(&c, true, &h, &x, &end);
    assert_int_equal(c.count_w, 0);
    h.cpu_method = IPS2_CPU_INTERP;

    /* raw times: counted, not removed */
    red_comp_init(&c, false, &h, &x, &end);
    t = 1000, cpu = 1000;
    red_comp_event(&c, &s0, &t, &cpu);
    t = 100000, cpu = 100000;
    red_comp_event(&c, &s1, &t, &cpu);
    assert_int_equal(t, 100000);
    assert_true(red_comp_shift(&c) >= 4096 * 7);
}

/* A main thread's stream: its sync points and PROC_START, the runtime
 * starting, stay at the stream's first time; other threads' do not. */
static void test_pre_start(void **state)
{
    struct ips2_file_header h = {0};
    h.stream_kind = IPS2_STREAM_THREAD;
    h.pid = h.tid = 7;
    struct ips2_cost_ext x = block(0, 0);
    struct red_comp c;
    uint64_t mono = 1;
    struct ips2_event sync = {.kind = IPS2_EV_SYNC, .nextra = 1, .extra = &mono};
    struct ips2_event start = {.kind = IPS2_EV_PROC_START, .nextra = 1, .extra = &mono};
    for (int main_thread = 1; main_thread >= 0; main_thread--) {
        h.tid = main_thread ? 7 : 8;
        red_comp_init(&c, true, &h, &x, NULL);
        int64_t t = 5000;
        uint64_t cpu = 4000;
        red_comp_event(&c, &sync, &t, &cpu);
        t = 6000; /* the module map */
        cpu = 5000;
        red_comp_event(&c, &sync, &t, &cpu);
        assert_int_equal(t, main_thread ? 5000 : 6000);
        t = 6010;
        cpu = 5010;
        red_comp_event(&c, &start, &t, &cpu);
        assert_int_equal(t, main_thread ? 5000 : 6010);
        assert_int_equal(cpu, main_thread ? 4000 : 5010);
        t = 6110;
        cpu = 5110;
        red_comp_proc(&c, IPS2_PROBE_ENTER, &t, &cpu);
        assert_int_equal(t, main_thread ? 5100 : 6110);
        assert_int_equal(cpu, main_thread ? 4100 : 5110);
        t = 7000; /* a sync point after the program began: as any */
        cpu = 6000;
        red_comp_event(&c, &sync, &t, &cpu);
        assert_int_equal(t, main_thread ? 5990 : 7000);
    }
}

static void test_sources(void **state)
{
    struct ips2_file_header h = {0};
    struct ips2_cost_ext x = block(10000, 20000), end = block(30000, 40000);
    struct red_comp c;
    red_comp_init(&c, true, &h, &x, &end);
    assert_int_equal(c.out_w[IPS2_PROBE_ENTER], 30000); /* the end block's, not the mean */
    assert_int_equal(c.out_w[IPS2_PROBE_EXIT], 40000);
    assert_int_equal(c.out_w[IPS2_PROBE_WAIT], 10000); /* the slow ones: the start-up's */

    h.cost_ns[IPS2_COST_PROC] = 15;
    h.cost_ns[IPS2_COST_SYNC] = 700;
    red_comp_init(&c, true, &h, NULL, NULL);
    assert_int_equal(c.out_w[IPS2_PROBE_ENTER], 15000);
    assert_int_equal(c.out_c[IPS2_PROBE_LOCK], 15000);
    assert_int_equal(c.out_w[IPS2_PROBE_SYNC], 700000);

    /* a coarse (tick) CPU clock: its readings stay as read */
    h.cpu_method = IPS2_CPU_TICK;
    red_comp_init(&c, true, &h, &x, NULL);
    int64_t tt = 5000;
    uint64_t tc = 4000;
    red_comp_proc(&c, IPS2_PROBE_ENTER, &tt, &tc);
    tt = 5100;
    tc = 4100;
    red_comp_proc(&c, IPS2_PROBE_EXIT, &tt, &tc);
    assert_int_equal(tt, 5100 - 10); /* the entry's 10 ns */
    assert_int_equal(tc, 4100);
    h.cpu_method = IPS2_CPU_INTERP;

    red_comp_init(&c, false, &h, NULL, NULL);
    int64_t t = 5000;
    uint64_t cpu = 4000;
    red_comp_proc(&c, IPS2_PROBE_ENTER, &t, &cpu);
    red_comp_proc(&c, IPS2_PROBE_EXIT, &t, &cpu);
    assert_int_equal(t, 5000);
    assert_int_equal(cpu, 4000);
    assert_int_equal(red_comp_shift(&c), 30);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eq7),       cmocka_unit_test(test_clamp),
        cmocka_unit_test(test_wait),      cmocka_unit_test(test_pages),
        cmocka_unit_test(test_pre_start), cmocka_unit_test(test_sources),
        cmocka_unit_test(test_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
