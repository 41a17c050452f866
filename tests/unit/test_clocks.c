/*
 * test_clocks.c - clocks across machines (docs/CLOCKS.md): the NTP-style
 * estimate of a machine's offset (traces/clocks.c) against offsets and
 * delays drawn at random, where the truth is known; its file beside the
 * traces; and the message pass (cpa/pag_clocks.c) on parts made by hand,
 * whose shifts, counts and arc weights follow from the constructed times.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ips2_clocks.h"
#include "ips2_pag.h"
#include "ips2_pag_clocks.h"
#include "scratch.h"
#include "xorshift.h"

/* ---- the estimate ---------------------------------------------------- */

/* One exchange with the machine's clock theta ahead of the reference:
 * out leg d1, the reference's answer after p, back leg d2 (true ns). */
static struct ips2_clock_sample exchange(int64_t tau, int64_t theta, int64_t d1, int64_t p,
                                         int64_t d2)
{
    return (struct ips2_clock_sample){tau + theta, tau + d1, tau + d1 + p,
                                      tau + d1 + p + d2 + theta};
}

static void test_estimate_exact(void **state)
{
    (void)state;
    struct ips2_clock_est e;
    /* symmetric legs: exact, error half the round trip */
    struct ips2_clock_sample s[3] = {
        exchange(1000000000, 50000000, 300, 40, 300),
        exchange(1000100000, 50000000, 90, 5000, 110), /* the least round trip: 200 */
        exchange(1000200000, 50000000, 5000, 10, 70),
    };
    assert_int_equal(ips2_clock_estimate(s, 3, &e), 0);
    assert_int_equal(e.rtt, 200);
    assert_int_equal(e.error, 100);
    assert_int_equal(e.offset, 50000000 + (110 - 90) / 2); /* half the legs' difference */
    assert_int_equal(e.samples, 3);
    /* a negative offset, an odd round trip: the bound rounds up */
    s[0] = exchange(5, -50000000, 51, 0, 50);
    assert_int_equal(ips2_clock_estimate(s, 1, &e), 0);
    assert_int_equal(e.rtt, 101);
    assert_int_equal(e.error, 51);
    assert_true(e.offset - e.error <= -50000000 && -50000000 <= e.offset + e.error);
    /* exchanges that cannot be (time going back on either side) are left out */
    s[0] = (struct ips2_clock_sample){100, 50, 40, 200};
    s[1] = (struct ips2_clock_sample){100, 50, 60, 90};
    assert_int_equal(ips2_clock_estimate(s, 2, &e), -1);
    assert_int_equal(e.samples, 2);
    s[2] = exchange(0, 7, 10, 1, 10);
    assert_int_equal(ips2_clock_estimate(s, 3, &e), 0);
    assert_int_equal(e.offset, 7);
    assert_int_equal(ips2_clock_estimate(s, 0, &e), -1);
}

/* Random offsets and legs: the truth is always within the bound, and
 * the bound is half the least round trip. */
static void test_estimate_random(void **state)
{
    (void)state;
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    for (int trial = 0; trial < 2000; trial++) {
        int64_t theta = (int64_t)(xorshift64(&rng) % 200000001) - 100000000;
        size_t n = 1 + xorshift64(&rng) % 16;
        struct ips2_clock_sample s[16];
        int64_t least = INT64_MAX;
        for (size_t i = 0; i < n; i++) {
            int64_t d1 = (int64_t)(xorshift64(&rng) % 500000),
                    d2 = (int64_t)(xorshift64(&rng) % 500000);
            int64_t p = (int64_t)(xorshift64(&rng) % 100000);
            s[i] = exchange(1700000000000000000 + (int64_t)i * 1000000, theta, d1, p, d2);
            least = d1 + d2 < least ? d1 + d2 : least;
        }
        struct ips2_clock_est e;
        assert_int_equal(ips2_clock_estimate(s, n, &e), 0);
        assert_int_equal(e.rtt, least);
        assert_true(e.offset - e.error <= theta && theta <= e.offset + e.error);
    }
}

static void test_clock_file(void **state)
{
    (void)state;
    char err[512], p[512];
    struct ips2_clock_est e = {-49989380, 39594, 79188, 16}, r;
    assert_int_equal(ips2_clock_read(scratch_dir, &r, err, sizeof err), 0);
    assert_int_equal(ips2_clock_write(scratch_dir, &e, err, sizeof err), 0);
    assert_int_equal(ips2_clock_read(scratch_dir, &r, err, sizeof err), 1);
    assert_int_equal(r.offset, e.offset);
    assert_int_equal(r.error, e.error);
    assert_int_equal(r.rtt, e.rtt);
    assert_int_equal(r.samples, e.samples);
    /* never trusted */
    const char *bad[] = {"",
                         "ips2-clock 2\noffset 1\nerror 1\nrtt 1\nsamples 1\n",
                         "ips2-clock 1\noffset 1\nerror -1\nrtt 1\nsamples 1\n",
                         "ips2-clock 1\noffset 99999999999999999\nerror 1\nrtt 1\nsamples 1\n",
                         "ips2-clock 1\noffset 1\nerror 1\nrtt 1\nsamples 1\nmore\n",
                         "ips2-clock 1\noffset 1\nerror 1\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        FILE *f = fopen(scratch_path(p, IPS2_CLOCK_FILE), "w");
        assert_non_null(f);
        fputs(bad[i], f);
        fclose(f);
        assert_int_equal(ips2_clock_read(scratch_dir, &r, err, sizeof err), -1);
        assert_non_null(strstr(err, "expected \"ips2-clock 1\""));
    }
}

/* ---- the message pass ------------------------------------------------- */

/* An end-only part (as ips2_pag_ends_decode gives): one process, one
 * thread owning node indices [0, 1000), and the ends added with end(). */
static struct ips2_pag *part(uint32_t number, const char *machine)
{
    struct ips2_pag *g = calloc(1, sizeof(*g));
    assert_non_null(g);
    g->part = number;
    g->machine = strdup(machine);
    g->trace_dir = strdup(machine);
    g->nstrings = 1;
    g->strings = calloc(1, sizeof(char *));
    g->strings[0] = strdup("app");
    g->napps = 1;
    g->apps = calloc(1, sizeof(*g->apps));
    g->nprocesses = 1;
    g->processes = calloc(1, sizeof(*g->processes));
    g->processes[0] = (struct ips2_pag_process){0, 100 + (int32_t)number, 0, 1};
    g->nthreads = 1;
    g->threads = calloc(1, sizeof(*g->threads));
    g->threads[0] = (struct ips2_pag_thread){0, 100 + (int32_t)number, 0, 1000};
    g->ends = calloc(64, sizeof(*g->ends));
    return g;
}

/* A TCP byte range of stream key from part s (send began at sent) to part
 * d (receive called at called, returned at got). */
static void message(struct ips2_pag *s, struct ips2_pag *d, uint64_t key, int64_t sent,
                    int64_t called, int64_t got)
{
    uint32_t ns = (uint32_t)s->nends, nd = (uint32_t)d->nends;
    s->ends[s->nends++] =
        (struct ips2_pag_end){ns, IPS2_PAG_ROLE_BYTES_SEND, 41, {key, 0, 64}, sent, INT64_MIN};
    d->ends[d->nends++] =
        (struct ips2_pag_end){nd, IPS2_PAG_ROLE_BYTES_RECV, 42, {key, 0, 64}, got, called};
}

/* The weight of the arc into part d's node n. */
static int64_t weight_into(const struct ips2_pag *d, uint32_t n)
{
    for (size_t i = 0; i < d->narcs; i++)
        if (d->arcs[i].to == n)
            return d->arcs[i].weight;
    fail_msg("no arc into node %u", n);
    return -1;
}

/* b's clock 30 us behind a's after the estimate: b's receives of a's
 * messages end before they were sent (by 20 us at most); b's messages to a
 * take 40 us as recorded.  The least shift that makes every pairing run
 * forwards moves b by +20 us; a stays. */
static void test_pass_two_parts(void **state)
{
    (void)state;
    struct ips2_pag *a = part(0, "a"), *b = part(1, "b");
    char err[256];
    for (int i = 0; i < 10; i++) {
        int64_t t = 1000000 * i;
        /* true delays 10 us (a->b, minus b's 30) and 10 us (b->a, plus 30), and
         * one a->b of 25 us true delay: recorded -5 us */
        message(a, b, 1000 + (uint64_t)i, t, t - 50000, t + 10000 - 30000);
        message(b, a, 2000 + (uint64_t)i, t + 500000 - 30000, t + 400000, t + 510000);
    }
    message(a, b, 99, 20000000, 19000000, 20000000 + 25000 - 30000);
    struct ips2_pag *parts[2] = {a, b};
    struct ips2_pag_clock c[2];
    assert_int_equal(ips2_pag_clocks(parts, 2, c, err, sizeof err), 0);
    assert_int_equal(c[0].shift, 0);
    assert_int_equal(c[1].shift, 20000);
    assert_int_equal(c[0].pairs, 21);
    assert_int_equal(c[1].pairs, 21);
    assert_int_equal(c[1].backwards, 11);
    assert_int_equal(c[1].worst, 20000);
    assert_int_equal(c[0].after, 0);
    assert_int_equal(c[1].after, 0);
    assert_int_equal(a->nends, 21); /* ips2_pag_clocks changes nothing */

    /* matching applies it to the weights: a->b 10 - 30 + 20 = 0 us, b->a
     * 10 + 30 - 20 = 20 us, the slow one 25 - 30 + 20 = 15 us */
    assert_int_equal(ips2_pag_match_ends(parts, 2, err, sizeof err), 0);
    assert_int_equal(b->narcs, 11);
    assert_int_equal(a->narcs, 10);
    for (uint32_t i = 0; i < 10; i++) {
        assert_int_equal(weight_into(b, 2 * i), 0);
        assert_int_equal(weight_into(a, 2 * i + 1), 20000);
    }
    assert_int_equal(weight_into(b, 20), 15000);
    ips2_pag_free(a);
    ips2_pag_free(b);
}

/* Nothing runs backwards: no shift, the weights as recorded. */
static void test_pass_nothing_to_do(void **state)
{
    (void)state;
    struct ips2_pag *a = part(0, "a"), *b = part(1, "b");
    char err[256];
    message(a, b, 1, 1000, 500, 1700);
    message(b, a, 2, 3000, 2000, 3100);
    struct ips2_pag *parts[2] = {a, b};
    struct ips2_pag_clock c[2];
    assert_int_equal(ips2_pag_clocks(parts, 2, c, err, sizeof err), 0);
    assert_int_equal(c[0].shift, 0);
    assert_int_equal(c[1].shift, 0);
    assert_int_equal(c[0].backwards + c[1].backwards, 0);
    assert_int_equal(ips2_pag_match_ends(parts, 2, err, sizeof err), 0);
    assert_int_equal(weight_into(b, 0), 700);
    assert_int_equal(weight_into(a, 1), 100);
    ips2_pag_free(a);
    ips2_pag_free(b);
}

/* Pairings that no shift can all turn forwards (b must be at least 20 us
 * later and at most 10 us later): the violation is shared, 5 us each way,
 * and both pairings are counted as still backwards. */
static void test_pass_inconsistent(void **state)
{
    (void)state;
    struct ips2_pag *a = part(0, "a"), *b = part(1, "b");
    char err[256];
    message(a, b, 1, 100000, 0, 80000);       /* asks c_b - c_a >= 20000 */
    message(b, a, 2, 200000, 150000, 190000); /* asks c_b - c_a <= -10000 + ... */
    struct ips2_pag *parts[2] = {a, b};
    struct ips2_pag_clock c[2];
    assert_int_equal(ips2_pag_clocks(parts, 2, c, err, sizeof err), 0);
    /* c_b - c_a >= 20000 - s and c_a - c_b >= 10000 - s: least s = 15000 */
    assert_int_equal(c[1].shift - c[0].shift, 5000);
    assert_int_equal(c[0].after, 2);
    assert_int_equal(c[1].after, 2);
    assert_int_equal(ips2_pag_match_ends(parts, 2, err, sizeof err), 0);
    for (size_t i = 0; i < a->narcs; i++)
        assert_true(a->arcs[i].weight >= 0);
    ips2_pag_free(a);
    ips2_pag_free(b);
}

/* Three machines in a chain: a->b asks b 20 us later, b->c asks c 30 us
 * later than b: the least solution (0, 20, 50) us, centred on its lower
 * median, 20: (-20, 0, 30). */
static void test_pass_chain(void **state)
{
    (void)state;
    struct ips2_pag *a = part(0, "a"), *b = part(1, "b"), *c3 = part(2, "c");
    char err[256];
    message(a, b, 1, 100000, 0, 80000);
    message(b, c3, 2, 300000, 0, 270000);
    message(c3, a, 3, 900000, 0, 990000); /* 90 us as recorded: room enough */
    struct ips2_pag *parts[3] = {a, b, c3};
    struct ips2_pag_clock c[3];
    assert_int_equal(ips2_pag_clocks(parts, 3, c, err, sizeof err), 0);
    assert_int_equal(c[0].shift, -20000);
    assert_int_equal(c[1].shift, 0);
    assert_int_equal(c[2].shift, 30000);
    assert_int_equal(c[0].after + c[1].after + c[2].after, 0);
    assert_int_equal(c[1].backwards, 2);
    assert_int_equal(c[1].worst, 30000);
    ips2_pag_free(a);
    ips2_pag_free(b);
    ips2_pag_free(c3);
}

/* Two sets of parts that no message connects (a run and a replayed
 * session): each is solved and centred on its own, as it would be alone,
 * and the conflict in one leaves the other exact. */
static void test_pass_components(void **state)
{
    (void)state;
    struct ips2_pag *p[4] = {part(0, "a"), part(1, "b"), part(2, "c"), part(3, "d")};
    char err[256];
    message(p[0], p[1], 1, 100000, 0, 80000);       /* b >= a + 20 us */
    message(p[1], p[0], 2, 200000, 150000, 290000); /* room */
    message(p[2], p[3], 3, 100000, 0, 80000);       /* d >= c + 20 us */
    message(p[3], p[2], 4, 200000, 150000, 190000); /* d <= c - 10 us: a conflict */
    struct ips2_pag_clock c[4];
    assert_int_equal(ips2_pag_clocks(p, 4, c, err, sizeof err), 0);
    assert_int_equal(c[0].shift, 0);
    assert_int_equal(c[1].shift, 20000);
    assert_int_equal(c[0].after + c[1].after, 0);
    assert_int_equal(c[3].shift - c[2].shift, 5000);
    assert_int_equal(c[2].after, 2);
    /* the same as the second set alone */
    struct ips2_pag *q[2] = {p[2], p[3]};
    struct ips2_pag_clock alone[2];
    ips2_pag_set_part(p[2], 0);
    ips2_pag_set_part(p[3], 1);
    assert_int_equal(ips2_pag_clocks(q, 2, alone, err, sizeof err), 0);
    assert_int_equal(alone[0].shift, c[2].shift);
    assert_int_equal(alone[1].shift, c[3].shift);
    for (int i = 0; i < 4; i++)
        ips2_pag_free(p[i]);
}

static int group_setup(void **state)
{
    (void)state;
    return scratch_make("clocks");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_estimate_exact),
        cmocka_unit_test(test_estimate_random),
        cmocka_unit_test_setup(test_clock_file, scratch_empty),
        cmocka_unit_test(test_pass_two_parts),
        cmocka_unit_test(test_pass_nothing_to_do),
        cmocka_unit_test(test_pass_inconsistent),
        cmocka_unit_test(test_pass_chain),
        cmocka_unit_test(test_pass_components),
    };
    return cmocka_run_group_tests(tests, group_setup, scratch_remove);
}
