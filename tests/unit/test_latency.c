/*
 * test_latency.c - the latency histogram (slave/ips2_latency.h): every
 * duration lies in its bucket's bounds and the buckets tile the range;
 * percentiles of known values (uniform, log-uniform, a two-mode mix as a
 * server's requests, ties, small exact values) are within the stated
 * 1/128 of the order statistic of the same rank, found by sorting; merging
 * histograms of parts equals the histogram of the whole, bucket for
 * bucket, with exact count, sum and max.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "ips2_latency.h"
#include "xorshift.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The true order statistic of rank ceil(p * n / 1000) of sorted v. */
static uint64_t truth(const uint64_t *v, size_t n, unsigned permille)
{
    size_t rank = ((size_t)permille * n + 999) / 1000;
    return v[rank ? rank - 1 : 0];
}

/* Checks p50, p90, p99, p99.9 and max of v[n] against sorting. */
static void check_percentiles(uint64_t *v, size_t n)
{
    struct ips2_lat l = {0};
    static const unsigned ps[] = {1, 100, 500, 900, 990, 999, 1000};
    uint64_t sum = 0;

    for (size_t i = 0; i < n; i++) {
        assert_int_equal(ips2_lat_add(&l, v[i]), 0);
        sum += v[i];
    }
    qsort(v, n, sizeof(*v), cmp_u64);
    assert_int_equal(l.count, n);
    assert_int_equal(l.sum_ns, sum);
    assert_int_equal(l.max_ns, v[n - 1]);
    for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
        uint64_t want = truth(v, n, ps[i]);
        uint64_t got = ips2_lat_percentile(&l, ps[i] / 1000.0);
        uint64_t diff = got > want ? got - want : want - got;
        /* within 1/128 of the true value (exact below 128 ns) */
        if (diff * 128 > want) {
            print_error("p%.1f: got %llu, want %llu\n", ps[i] / 10.0, (unsigned long long)got,
                        (unsigned long long)want);
            fail();
        }
    }
    assert_int_equal(ips2_lat_percentile(&l, 1.0), v[n - 1]);
    ips2_lat_free(&l);
}

static void test_buckets_tile(void **state)
{
    (void)state;
    assert_int_equal(ips2_lat_low(0), 0);
    for (uint32_t b = 1; b < IPS2_LAT_BUCKETS; b++) {
        assert_int_equal(ips2_lat_high(b - 1) + 1, ips2_lat_low(b));
        /* width at most 1/64 of the lower bound */
        assert_true((ips2_lat_high(b) - ips2_lat_low(b) + 1) * 64 <= ips2_lat_low(b) ||
                    ips2_lat_high(b) == ips2_lat_low(b));
    }
    assert_int_equal(ips2_lat_high(IPS2_LAT_BUCKETS - 1), UINT64_MAX);
    assert_int_equal(ips2_lat_bucket(UINT64_MAX), IPS2_LAT_BUCKETS - 1);
    uint64_t x = 0x1234567;
    for (int i = 0; i < 200000; i++) {
        uint64_t v = xorshift64(&x) >> (xorshift64(&x) % 64);
        uint32_t b = ips2_lat_bucket(v);
        assert_true(b < IPS2_LAT_BUCKETS);
        assert_true(ips2_lat_low(b) <= v && v <= ips2_lat_high(b));
    }
    for (uint64_t v = 0; v < 128; v++)
        assert_int_equal(ips2_lat_mid(ips2_lat_bucket(v)), v);
}

static void test_uniform(void **state)
{
    enum { N = 100000 };
    uint64_t *v = malloc(N * sizeof(*v));
    uint64_t x = 42;

    (void)state;
    for (size_t i = 0; i < N; i++)
        v[i] = 1000 + xorshift64(&x) % 9000000; /* 1 us .. 9 ms */
    check_percentiles(v, N);
    free(v);
}

static void test_log_uniform(void **state)
{
    enum { N = 100000 };
    uint64_t *v = malloc(N * sizeof(*v));
    uint64_t x = 7;

    (void)state;
    for (size_t i = 0; i < N; i++) {
        unsigned e = (unsigned)(xorshift64(&x) % 40);
        v[i] = (UINT64_C(1) << e) + xorshift64(&x) % (UINT64_C(1) << e);
    }
    check_percentiles(v, N);
    free(v);
}

/* As the integration test's workload: 1 ms nine times in ten, 10 ms
 * otherwise, with some jitter. */
static void test_two_modes(void **state)
{
    enum { N = 1000 };
    uint64_t v[N];
    uint64_t x = 99;

    (void)state;
    for (size_t i = 0; i < N; i++)
        v[i] = (i % 10 == 9 ? 10000000 : 1000000) + xorshift64(&x) % 50000;
    check_percentiles(v, N);
    struct ips2_lat l = {0};
    for (size_t i = 0; i < N; i++)
        ips2_lat_add(&l, v[i]);
    /* the 90th percentile is still a 1 ms one; the 91st a 10 ms one */
    assert_true(ips2_lat_percentile(&l, 0.90) < 1100000);
    assert_true(ips2_lat_percentile(&l, 0.91) > 9900000);
    ips2_lat_free(&l);
}

static void test_small_and_ties(void **state)
{
    uint64_t small[300], ties[1000];

    (void)state;
    for (size_t i = 0; i < 300; i++)
        small[i] = (i * 37) % 128;
    check_percentiles(small, 300);
    for (size_t i = 0; i < 1000; i++)
        ties[i] = i < 500 ? 5000 : 123456789;
    check_percentiles(ties, 1000);
    uint64_t one = 777;
    check_percentiles(&one, 1);
    struct ips2_lat empty = {0};
    assert_int_equal(ips2_lat_percentile(&empty, 0.5), 0);
}

/* Parts merged give the whole's buckets, count, sum and max exactly. */
static void test_merge(void **state)
{
    struct ips2_lat whole = {0}, merged = {0}, part[4] = {{0}};
    uint64_t x = 2026;

    (void)state;
    for (int i = 0; i < 20000; i++) {
        uint64_t v = xorshift64(&x) % (UINT64_C(1) << (xorshift64(&x) % 34));
        ips2_lat_add(&whole, v);
        ips2_lat_add(&part[i % 4], v);
    }
    for (int k = 0; k < 4; k++)
        assert_int_equal(ips2_lat_merge(&merged, part[k].bins, part[k].nbins, part[k].count,
                                        part[k].sum_ns, part[k].max_ns),
                         0);
    assert_int_equal(merged.count, whole.count);
    assert_int_equal(merged.sum_ns, whole.sum_ns);
    assert_int_equal(merged.max_ns, whole.max_ns);
    assert_int_equal(merged.nbins, whole.nbins);
    for (size_t i = 0; i < whole.nbins; i++) {
        assert_int_equal(merged.bins[i].bucket, whole.bins[i].bucket);
        assert_int_equal(merged.bins[i].count, whole.bins[i].count);
        if (i > 0)
            assert_true(whole.bins[i - 1].bucket < whole.bins[i].bucket);
    }
    for (int q = 1; q <= 100; q++)
        assert_int_equal(ips2_lat_percentile(&merged, q / 100.0),
                         ips2_lat_percentile(&whole, q / 100.0));
    ips2_lat_free(&whole);
    ips2_lat_free(&merged);
    for (int k = 0; k < 4; k++)
        ips2_lat_free(&part[k]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_buckets_tile),   cmocka_unit_test(test_uniform),
        cmocka_unit_test(test_log_uniform),    cmocka_unit_test(test_two_modes),
        cmocka_unit_test(test_small_and_ties), cmocka_unit_test(test_merge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
