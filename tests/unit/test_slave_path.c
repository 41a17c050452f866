/*
 * test_slave_path.c - where the master finds ips2slave (master/slave_path.c):
 * $IPS2_SLAVE first, else bin/ips2slave beside the lib/ of the library that
 * holds the function.  Linked into this program, "the library" is the
 * program itself, build/tests/unit/test_slave_path, so the default is
 * build/bin/ips2slave, the slave that make builds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slave_path.h"

/* Each test starts without $IPS2_SLAVE. */
static int unset_slave(void **state)
{
    return unsetenv("IPS2_SLAVE");
}

/* $IPS2_SLAVE wins, unless it is empty. */
static void test_environment_first(void **state)
{
    char path[PATH_MAX];
    setenv("IPS2_SLAVE", "/opt/x/ips2slave", 1);
    ips2_slave_path(path, sizeof path);
    assert_string_equal(path, "/opt/x/ips2slave");
    setenv("IPS2_SLAVE", "", 1);
    ips2_slave_path(path, sizeof path);
    assert_string_not_equal(path, "");
    assert_string_not_equal(path, "/opt/x/ips2slave");
}

static void test_beside_the_library(void **state)
{
    char self[PATH_MAX], want[PATH_MAX + 32], path[PATH_MAX];
    assert_non_null(realpath("/proc/self/exe", self));
    for (int up = 0; up < 3; up++) /* test_slave_path, unit/, tests/ */
        *strrchr(self, '/') = '\0';
    snprintf(want, sizeof want, "%s/bin/ips2slave", self);
    ips2_slave_path(path, sizeof path);
    assert_string_equal(path, want);
    assert_int_equal(access(path, X_OK), 0);
}

static void test_short_buffer_truncates(void **state)
{
    char path[8];
    setenv("IPS2_SLAVE", "/a/long/path/to/ips2slave", 1);
    ips2_slave_path(path, sizeof path);
    assert_string_equal(path, "/a/long");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_environment_first, unset_slave),
        cmocka_unit_test_setup(test_beside_the_library, unset_slave),
        cmocka_unit_test_setup(test_short_buffer_truncates, unset_slave),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
