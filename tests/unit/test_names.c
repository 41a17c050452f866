/*
 * test_names.c - master/names.c: the names that may become file names in a
 * session, and the ones refused (a path, "..", a leading "-", too long).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "names.h"

static void test_names_taken(void **state)
{
    (void)state;
    assert_true(ips2_is_name("alpha"));
    assert_true(ips2_is_name("node-2.example_1"));
    assert_true(ips2_is_name("_"));
    assert_true(ips2_is_name("s1-old-server"));
    assert_true(ips2_is_name("a.."));
}

static void test_paths_refused(void **state)
{
    (void)state;
    assert_false(ips2_is_name(NULL));
    assert_false(ips2_is_name(""));
    assert_false(ips2_is_name("."));
    assert_false(ips2_is_name(".."));
    assert_false(ips2_is_name("../../esc-alpha"));
    assert_false(ips2_is_name("a/b"));
    assert_false(ips2_is_name("/etc"));
    assert_false(ips2_is_name(".hidden"));
    assert_false(ips2_is_name("-rf"));
    assert_false(ips2_is_name("a b"));
    assert_false(ips2_is_name("a\nb"));
    assert_false(ips2_is_name("caf\xc3\xa9"));
}

static void test_length(void **state)
{
    char name[IPS2_NAME_MAX + 2];
    (void)state;
    memset(name, 'x', sizeof name);
    name[IPS2_NAME_MAX] = '\0';
    assert_true(ips2_is_name(name));
    name[IPS2_NAME_MAX] = 'x';
    name[IPS2_NAME_MAX + 1] = '\0';
    assert_false(ips2_is_name(name));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_taken),
        cmocka_unit_test(test_paths_refused),
        cmocka_unit_test(test_length),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
