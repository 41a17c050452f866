/*
 * test_ticks.c - the reader's conversion of timer ticks to nanoseconds
 * (traces/ticks.h): the multiplication by a reciprocal must give exactly
 * floor(ticks * 1e9 / hz), as a 128-bit division does, for every rate a
 * header may carry (powers of two, odd rates, rates needing the 65-bit
 * magic number, 1 Hz and the largest) and for tick counts on both sides
 * of the 2^34 boundary where the fast path ends.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ticks.h"
#include "xorshift.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    return xorshift64(&rng);
}

static uint64_t exact_ns(uint64_t ticks, uint64_t hz)
{
    return (uint64_t)((unsigned __int128)ticks * 1000000000u / hz);
}

static void check_rate(uint64_t hz)
{
    struct ips2_ticks t;
    static const uint64_t fixed[] = {0,
                                     1,
                                     2,
                                     999,
                                     1000000000ull,
                                     IPS2_TICKS_FAST_MAX - 1,
                                     IPS2_TICKS_FAST_MAX,
                                     IPS2_TICKS_FAST_MAX + 1,
                                     UINT64_MAX / 1000000000ull,
                                     UINT64_MAX};

    ips2_ticks_init(&t, hz);
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
        uint64_t x = fixed[i];
        if (ips2_ticks_ns(&t, x) != exact_ns(x, hz))
            fail_msg("hz %llu ticks %llu: %llu, expected %llu", (unsigned long long)hz,
                     (unsigned long long)x, (unsigned long long)ips2_ticks_ns(&t, x),
                     (unsigned long long)exact_ns(x, hz));
    }
    for (int i = 0; i < 20000; i++) {
        uint64_t x = rnd() >> (rnd() % 64);
        if (ips2_ticks_ns(&t, x) != exact_ns(x, hz))
            fail_msg("hz %llu ticks %llu: %llu, expected %llu", (unsigned long long)hz,
                     (unsigned long long)x, (unsigned long long)ips2_ticks_ns(&t, x),
                     (unsigned long long)exact_ns(x, hz));
        uint64_t n = rnd();
        if (hz > 1)
            assert_int_equal(ips2_ticks_divide(t, n), n / hz);
    }
}

static void test_rates(void **state)
{
    static const uint64_t rates[] = {
        1,           2,          3,          7,          1000,           1000000,
        1000000000,  1024,       1ull << 32, 1ull << 63, 2594176815ull,  3000000000ull,
        2400000000,  1999999999, 641,        UINT64_MAX, UINT64_MAX - 1, (1ull << 63) + 1,
        0x80000001u, 6700417ull};

    (void)state;
    for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
        check_rate(rates[i]);
    for (int i = 0; i < 200; i++)
        check_rate((rnd() >> (rnd() % 63)) | 1);
}

/* hz 0: the ticks are nanoseconds already (a MONOTONIC timer). */
static void test_identity(void **state)
{
    struct ips2_ticks t;

    (void)state;
    ips2_ticks_init(&t, 0);
    assert_int_equal(ips2_ticks_ns(&t, 0), 0);
    assert_int_equal(ips2_ticks_ns(&t, 123456789), 123456789);
    assert_int_equal(ips2_ticks_ns(&t, UINT64_MAX), UINT64_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rates),
        cmocka_unit_test(test_identity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
