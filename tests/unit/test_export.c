/*
 * test_export.c - the exporter's own pieces (export/): its string table
 * and map (every key once, its id stable while the table grows), and the
 * JSON strings made of names read from untrusted traces (quotes,
 * backslashes, controls, bytes that are no UTF-8: the JSON stays valid,
 * valid UTF-8 stays as it is).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "export_internal.h"

static char *json_of(const char *s)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);

    assert_non_null(f);
    ex_json_string(f, s);
    fclose(f);
    return buf;
}

static void check_json(const char *in, const char *want)
{
    char *got = json_of(in);
    assert_string_equal(got, want);
    free(got);
}

static void test_json_strings(void **state)
{
    (void)state;
    check_json("main", "\"main\"");
    check_json("a\"b\\c", "\"a\\\"b\\\\c\"");
    check_json("tab\tnl\n\x01\x7f", "\"tab\\u0009nl\\u000a\\u0001\\u007f\"");
    check_json("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
               "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
    /* a lone continuation byte, a cut sequence, an overlong form, a surrogate */
    check_json("\x80x", "\"\\u0080x\"");
    check_json("\xe2\x82", "\"\\u00e2\\u0082\"");
    check_json("\xc0\xaf", "\"\\u00c0\\u00af\"");
    check_json("\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\"");
}

static void test_strings(void **state)
{
    (void)state;
    struct ex_strings t = {0};
    char buf[32];

    for (int round = 0; round < 2; round++)
        for (uint32_t i = 0; i < 5000; i++) {
            snprintf(buf, sizeof(buf), "name%u", i);
            assert_int_equal(ex_string(&t, buf), i);
        }
    assert_int_equal(t.n, 5000);
    assert_string_equal(t.v[4321], "name4321");
    assert_int_equal(ex_string(&t, ""), 5000);
    ex_strings_free(&t);
}

static void test_map(void **state)
{
    (void)state;
    struct ex_map m = {0};
    bool fresh;

    for (uint32_t i = 0; i < 20000; i++) {
        uint32_t *v = ex_map_get(&m, i % 7, i, UINT64_MAX - i, i * 3, &fresh);
        assert_non_null(v);
        assert_true(fresh);
    }
    for (uint32_t i = 0; i < 20000; i++) {
        uint32_t *v = ex_map_get(&m, i % 7, i, UINT64_MAX - i, 0, &fresh);
        assert_non_null(v);
        assert_false(fresh);
        assert_int_equal(*v, i * 3);
    }
    assert_int_equal(m.n, 20000);
    ex_map_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_strings),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_map),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
