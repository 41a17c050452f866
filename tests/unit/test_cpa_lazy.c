/*
 * test_cpa_lazy.c - the engine over parts read without their shares
 * (ips2_pag_read_lazy, cpa/lazy.c) gives what it gives with the parts in
 * memory: random parts written as part files and read back both ways;
 * paths (with zeroed procedures and processes), their shares once added
 * or streamed, and the parts' CPU per procedure must be equal.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ips2_cpa.h"
#include "scratch.h"

static char err[1024];

/* Segments equal, and each segment's shares (the lazy path numbers them
 * in another order). */
static void same_path(const struct ips2_cpa_path *a, const struct ips2_cpa_path *b)
{
    assert_int_equal(a->length, b->length);
    assert_int_equal(a->nsegs, b->nsegs);
    assert_int_equal(a->nshares, b->nshares);
    for (size_t i = 0; i < a->nsegs; i++) {
        const struct ips2_cpa_segment *x = &a->segs[i], *y = &b->segs[i];
        assert_int_equal(x->kind, y->kind);
        assert_int_equal(x->from, y->from);
        assert_int_equal(x->to, y->to);
        assert_int_equal(x->length, y->length);
        assert_int_equal(x->nshares, y->nshares);
        if (x->nshares)
            assert_memory_equal(a->shares + x->first_share, b->shares + y->first_share,
                                x->nshares * sizeof(*a->shares));
    }
}

struct count {
    const struct ips2_cpa_path *full;
    size_t segs, shares;
};

static int count_one(void *arg, size_t seg, const struct ips2_cpa_share *sh, size_t n)
{
    struct count *c = arg;
    const struct ips2_cpa_segment *g = &c->full->segs[seg];
    assert_int_equal(n, g->nshares);
    if (n)
        assert_memory_equal(sh, c->full->shares + g->first_share, n * sizeof(*sh));
    c->segs++;
    c->shares += n;
    return 0;
}

static void read_parts(struct ips2_pag **src, size_t n, struct ips2_pag **full,
                       struct ips2_pag **lazy)
{
    for (size_t k = 0; k < n; k++) {
        char path[512], name[32];
        snprintf(name, sizeof name, "m%zu.pag", k);
        scratch_path(path, name);
        if (ips2_pag_write(src[k], path, err, sizeof err) ||
            ips2_pag_read(path, &full[k], err, sizeof err) ||
            ips2_pag_read_lazy(path, &lazy[k], err, sizeof err))
            fail_msg("%s", err);
        assert_null(full[k]->lazy);
        assert_non_null(lazy[k]->lazy);
    }
}

static void test_lazy_paths(void **state)
{
    (void)state;
    int shorter = 0; /* zeroings that shortened the path: the test tests them */
    for (uint64_t seed = 1; seed <= 60; seed++) {
        struct ips2_cpa_random_opts o;
        ips2_cpa_random_defaults(&o, seed, 300);
        o.parts = 1 + seed % 3;
        struct ips2_pag **src, *full[4], *lazy[4];
        size_t n;
        assert_int_equal(ips2_cpa_random(&o, &src, &n, err, sizeof err), 0);
        read_parts(src, n, full, lazy);
        int64_t base = 0;
        for (int kind = 0; kind < 4; kind++) {
            struct ips2_cpa_query q = {0};
            if (kind == 1)
                q.zero_procedure = "f1";
            if (kind == 2)
                q.zero_procedure = "f1\nf2\nno such procedure";
            if (kind == 3) {
                q.zero_process = 1;
                q.zero_pid = 1000;
                q.mode = IPS2_CPA_INTRA;
                q.app = "a0";
            }
            struct ips2_cpa_path a, b, c;
            if (ips2_cpa_oracle(full, n, &q, &a, err, sizeof err) ||
                ips2_cpa_inproc(lazy, n, &q, seed, &b, err, sizeof err) ||
                ips2_cpa_oracle(lazy, n, &q, &c, err, sizeof err))
                fail_msg("seed %llu: %s", (unsigned long long)seed, err);
            assert_int_equal(a.length, b.length);
            if (kind == 0)
                base = a.length;
            else
                shorter += a.length < base;
            assert_int_equal(b.nshares, 0); /* none yet */
            struct count cnt = {&a, 0, 0};
            if (ips2_cpa_path_each_shares(&b, lazy, n, &q, count_one, &cnt, err, sizeof err))
                fail_msg("%s", err);
            assert_int_equal(cnt.shares, a.nshares);
            if (ips2_cpa_path_add_shares(&b, lazy, n, &q, err, sizeof err) ||
                ips2_cpa_path_add_shares(&c, lazy, n, &q, err, sizeof err))
                fail_msg("%s", err);
            same_path(&a, &b);
            same_path(&a, &c);
            ips2_cpa_path_free(&a);
            ips2_cpa_path_free(&b);
            ips2_cpa_path_free(&c);
        }
        for (size_t k = 0; k < n; k++) {
            struct ips2_cpa_meta *mf, *ml;
            if (ips2_cpa_meta_from_pag(full[k], &mf, err, sizeof err) ||
                ips2_cpa_meta_from_pag(lazy[k], &ml, err, sizeof err))
                fail_msg("%s", err);
            assert_int_equal(mf->cpu_later, 0);
            assert_int_equal(ml->cpu_later, 1);
            if (ips2_cpa_meta_add_cpu(ml, lazy[k], err, sizeof err))
                fail_msg("%s", err);
            assert_int_equal(ml->ncpu, mf->ncpu);
            assert_memory_equal(ml->cpu, mf->cpu, mf->ncpu * sizeof(*mf->cpu));
            assert_memory_equal(ml->spans, mf->spans, mf->nthreads * sizeof(*mf->spans));
            ips2_cpa_meta_free(mf);
            ips2_cpa_meta_free(ml);
            ips2_pag_free(full[k]);
            ips2_pag_free(lazy[k]);
        }
        ips2_cpa_parts_free(src, n);
    }
    print_message("%d zeroings shortened a path\n", shorter);
    assert_true(shorter > 30);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lazy_paths),
    };
    if (scratch_make("cpalazy") != 0)
        return 1;
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    scratch_remove(NULL);
    return rc;
}
