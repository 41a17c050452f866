/*
 * test_filter_rules.c - the filter language of instr/filter_rules.h: every
 * directive parsed, errors named by line, globs matched on names and on
 * a clone's source name, the last matching line deciding, include turning
 * the default to counted, durations and the auto setting.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "filter_rules.h"

static void test_directives(void **state)
{
    struct ips2_filter_rules r;
    char err[256] = "";
    const char *text = "# a filter\n"
                       "count  sds*   # tiny string helpers\n"
                       "\n"
                       "exclude debug_*\n"
                       "trace sdsnew\n"
                       "depth 12\n"
                       "time 1.5us\n"
                       "auto 1024:250ns";

    (void)state;
    assert_int_equal(ips2_filter_parse(&r, text, err, sizeof(err)), 0);
    assert_int_equal(r.nrules, 3);
    assert_int_equal(r.include, 0);
    assert_int_equal(r.depth, 12);
    assert_int_equal(r.time_ns, 1500);
    assert_int_equal(r.auto_set, 1);
    assert_int_equal(r.auto_calls, 1024);
    assert_int_equal(r.auto_ns, 250);
    assert_int_equal(ips2_filter_decide(&r, "sdslen"), IPS2_FILTER_COUNT);
    assert_int_equal(ips2_filter_decide(&r, "sdsnew"), IPS2_FILTER_TRACE); /* the later line */
    assert_int_equal(ips2_filter_decide(&r, "debug_dump"), IPS2_FILTER_EXCLUDE);
    assert_int_equal(ips2_filter_decide(&r, "main"), IPS2_FILTER_TRACE);
    assert_int_equal(ips2_filter_decide(&r, "sdslen.constprop.0"), IPS2_FILTER_COUNT);
    assert_int_equal(ips2_filter_decide(&r, "xsdslen"), IPS2_FILTER_TRACE);
    ips2_filter_rules_free(&r);
}

static void test_last_line_wins_plain_or_glob(void **state)
{
    struct ips2_filter_rules r;
    char err[256];

    (void)state;
    assert_int_equal(ips2_filter_parse(&r,
                                       "trace foo\ncount f*\nexclude bar\ntrace bar\n"
                                       "count baz.cold\n",
                                       err, sizeof(err)),
                     0);
    assert_int_equal(ips2_filter_decide(&r, "foo"), IPS2_FILTER_COUNT); /* the later glob */
    assert_int_equal(ips2_filter_decide(&r, "fib"), IPS2_FILTER_COUNT);
    assert_int_equal(ips2_filter_decide(&r, "bar"), IPS2_FILTER_TRACE); /* the later name */
    assert_int_equal(ips2_filter_decide(&r, "bar.part.0"), IPS2_FILTER_TRACE);
    assert_int_equal(ips2_filter_decide(&r, "baz.cold"), IPS2_FILTER_COUNT); /* a whole name */
    assert_int_equal(ips2_filter_decide(&r, "baz"), IPS2_FILTER_TRACE);
    assert_int_equal(ips2_filter_decide(&r, "ba"), IPS2_FILTER_TRACE);
    ips2_filter_rules_free(&r);
}

static void test_include_counts_the_rest(void **state)
{
    struct ips2_filter_rules r;
    char err[256];

    (void)state;
    assert_int_equal(ips2_filter_parse(&r, "include process*\ninclude main\n", err, sizeof(err)),
                     0);
    assert_int_equal(r.include, 1);
    assert_int_equal(ips2_filter_default(&r), IPS2_FILTER_COUNT);
    assert_int_equal(ips2_filter_decide(&r, "processCommand"), IPS2_FILTER_TRACE);
    assert_int_equal(ips2_filter_decide(&r, "main"), IPS2_FILTER_TRACE);
    assert_int_equal(ips2_filter_decide(&r, "dictFind"), IPS2_FILTER_COUNT);
    ips2_filter_rules_free(&r);
}

static void test_errors_name_the_line(void **state)
{
    static const struct {
        const char *text, *err;
    } bad[] = {
        {"count a\ncout b\n", "line 2: unknown directive 'cout'"},
        {"count\n", "line 1: 'count' needs an argument"},
        {"count a b\n", "line 1: one argument expected after 'count', found 'a b'"},
        {"\n\ndepth 0\n", "line 3: depth: expected a number from 1 to 1000000, found '0'"},
        {"depth -3\n", "line 1: depth: expected a number from 1 to 1000000, found '-3'"},
        {"time 3 weeks\n", "line 1: one argument expected after 'time', found '3 weeks'"},
        {"time 3h\n", "line 1: time: expected a duration such as 500ns or 2us, found '3h'"},
        {"auto 12\n", "line 1: auto: expected off or CALLS:DURATION"},
        {"auto 0:5us\n", "line 1: auto: expected off or CALLS:DURATION"},
    };
    struct ips2_filter_rules r;
    char err[256];

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        assert_int_equal(ips2_filter_parse(&r, bad[i].text, err, sizeof(err)), -1);
        if (strncmp(err, bad[i].err, strlen(bad[i].err)) != 0)
            fail_msg("%s: got \"%s\", expected \"%s\"", bad[i].text, err, bad[i].err);
        assert_int_equal(r.nrules, 0); /* freed */
    }
}

static void test_durations_and_auto(void **state)
{
    static const struct {
        const char *s;
        uint64_t ns;
    } good[] = {
        {"250", 250}, {"250ns", 250}, {"2us", 2000}, {"1.5ms", 1500000}, {"1s", 1000000000}};
    struct ips2_filter_rules r;
    char err[256], text[64];
    unsigned calls;
    uint64_t ns;

    (void)state;
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        snprintf(text, sizeof(text), "time %s\n", good[i].s);
        assert_int_equal(ips2_filter_parse(&r, text, err, sizeof(err)), 0);
        assert_int_equal(r.time_ns, good[i].ns);
        ips2_filter_rules_free(&r);
    }
    assert_int_equal(ips2_filter_parse_auto("off", &calls, &ns), 0);
    assert_int_equal(calls, 0);
    assert_int_equal(ips2_filter_parse_auto("0", &calls, &ns), 0);
    assert_int_equal(calls, 0);
    assert_int_equal(ips2_filter_parse_auto("4096:1us", &calls, &ns), 0);
    assert_int_equal(calls, 4096);
    assert_int_equal(ns, 1000);
    assert_int_equal(ips2_filter_parse_auto("4096", &calls, &ns), -1);
    assert_int_equal(ips2_filter_parse_auto("x:1us", &calls, &ns), -1);
    assert_int_equal(ips2_filter_parse_auto("-1:1us", &calls, &ns), -1);
    assert_int_equal(ips2_filter_parse_auto("16:0", &calls, &ns), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_directives),
        cmocka_unit_test(test_last_line_wins_plain_or_glob),
        cmocka_unit_test(test_include_counts_the_rest),
        cmocka_unit_test(test_errors_name_the_line),
        cmocka_unit_test(test_durations_and_auto),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
