/*
 * test_cpa_random.c - the critical-path engine on thousands of seeded
 * random PAGs (cpa/pag_random.c: 1..6 parts, 1..4 applications, chains of
 * threads, cross-thread, cross-part and cross-application arcs): for every
 * graph and every mode (global; intra and inter of each application) the
 * in-process distributed run, with batches delivered in a seeded random
 * order, equals the oracle exactly (length, terminal, every segment and
 * share); the path is a chain from a start node to the terminal whose
 * segments sum to its length; the length never exceeds the elapsed wall
 * time of the mode's threads; profiles at every level sum to 100%; and
 * paths, batches, walks and metadata survive their wire formats.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ips2_cpa.h"

static char err[512];

static int seg_equal(const struct ips2_cpa_segment *x, const struct ips2_cpa_segment *y)
{
    return x->kind == y->kind && x->src_part == y->src_part && x->src_thread == y->src_thread &&
           x->dst_part == y->dst_part && x->dst_thread == y->dst_thread &&
           x->first_share == y->first_share && x->nshares == y->nshares && x->from == y->from &&
           x->to == y->to && x->begin == y->begin && x->end == y->end && x->length == y->length;
}

static void same_path(const struct ips2_cpa_path *a, const struct ips2_cpa_path *b,
                      const char *what)
{
    if (a->length != b->length || a->found != b->found || a->terminal != b->terminal ||
        a->nsegs != b->nsegs || a->nshares != b->nshares)
        fail_msg("%s: oracle length %lld found %d terminal %llx segs %zu shares %zu, "
                 "distributed %lld %d %llx %zu %zu",
                 what, (long long)a->length, a->found, (unsigned long long)a->terminal, a->nsegs,
                 a->nshares, (long long)b->length, b->found, (unsigned long long)b->terminal,
                 b->nsegs, b->nshares);
    for (size_t i = 0; i < a->nsegs; i++)
        if (!seg_equal(&a->segs[i], &b->segs[i])) {
            const struct ips2_cpa_segment *x = &a->segs[i], *y = &b->segs[i];
            fail_msg("%s: segment %zu differs: kind %u/%u src %u.%u/%u.%u dst %u.%u/%u.%u "
                     "from %llx/%llx to %llx/%llx len %lld/%lld shares %u+%u/%u+%u",
                     what, i, x->kind, y->kind, x->src_part, x->src_thread, y->src_part,
                     y->src_thread, x->dst_part, x->dst_thread, y->dst_part, y->dst_thread,
                     (unsigned long long)x->from, (unsigned long long)y->from,
                     (unsigned long long)x->to, (unsigned long long)y->to, (long long)x->length,
                     (long long)y->length, x->first_share, x->nshares, y->first_share, y->nshares);
        }
    for (size_t i = 0; i < a->nshares; i++)
        if (a->shares[i].proc != b->shares[i].proc || a->shares[i].cpu != b->shares[i].cpu)
            fail_msg("%s: share %zu differs", what, i);
}

/* A chain ending at the terminal, summing to the length, shares summing
 * to their CPU segment, within the elapsed time. */
static void check_chain(const struct ips2_cpa_path *p, int64_t elapsed, const char *what)
{
    int64_t sum = 0;
    for (size_t i = 0; i < p->nsegs; i++) {
        const struct ips2_cpa_segment *s = &p->segs[i];
        if (i > 0 && p->segs[i - 1].to != s->from)
            fail_msg("%s: segment %zu does not start where %zu ends", what, i, i - 1);
        if (s->length < 0 || s->end < s->begin)
            fail_msg("%s: segment %zu: length %lld, %lld..%lld", what, i, (long long)s->length,
                     (long long)s->begin, (long long)s->end);
        if (s->kind == IPS2_CPA_SEG_CPU) {
            int64_t sh = 0;
            for (uint32_t j = 0; j < s->nshares; j++)
                sh += p->shares[s->first_share + j].cpu;
            if (sh != s->length)
                fail_msg("%s: segment %zu: shares %lld, length %lld", what, i, (long long)sh,
                         (long long)s->length);
        }
        sum += s->length;
    }
    if (sum != p->length)
        fail_msg("%s: segments sum to %lld, path %lld", what, (long long)sum, (long long)p->length);
    if (p->nsegs && p->segs[p->nsegs - 1].to != p->terminal)
        fail_msg("%s: the last segment does not end at the terminal", what);
    if (p->length > elapsed)
        fail_msg("%s: length %lld > elapsed %lld", what, (long long)p->length, (long long)elapsed);
}

static void check_profiles(const struct ips2_cpa_path *p, struct ips2_cpa_meta **metas, size_t n,
                           const struct ips2_cpa_query *q, const char *what)
{
    for (int lv = 0; lv < 4; lv++) {
        struct ips2_cpa_profile prof;
        assert_int_equal(ips2_cpa_profile(p, metas, n, q, (enum ips2_cpa_level)lv, NULL,
                                          IPS2_CPA_RUN_START, IPS2_CPA_RUN_END, &prof, err,
                                          sizeof err),
                         0);
        double pct = 0;
        int64_t ns = 0;
        for (size_t i = 0; i < prof.n; i++) {
            pct += prof.entries[i].percent;
            ns += prof.entries[i].ns;
            if (i && prof.entries[i].ns > prof.entries[i - 1].ns)
                fail_msg("%s: level %d not sorted", what, lv);
        }
        if (prof.length != p->length || ns != p->length ||
            (p->length > 0 && fabs(pct - 100.0) > 1e-6))
            fail_msg("%s: level %d: entries %lld ns %.9f%%, path %lld", what, lv, (long long)ns,
                     pct, (long long)p->length);
        if (prof.length > prof.elapsed)
            fail_msg("%s: profile length > elapsed", what);
        ips2_cpa_profile_free(&prof);
    }
}

static void roundtrip_path(const struct ips2_cpa_path *p)
{
    void *data;
    size_t size;
    struct ips2_cpa_path q;
    assert_int_equal(ips2_cpa_path_encode(p, &data, &size, err, sizeof err), 0);
    assert_int_equal(ips2_cpa_path_decode(data, size, "path", &q, err, sizeof err), 0);
    same_path(p, &q, "path round trip");
    /* Every truncation is refused with a byte offset. */
    for (size_t cut = 0; cut < size; cut += 1 + size / 7) {
        struct ips2_cpa_path r;
        assert_int_equal(ips2_cpa_path_decode(data, cut, "cut", &r, err, sizeof err), -1);
        assert_non_null(strstr(err, "cut: byte "));
    }
    free(data);
    ips2_cpa_path_free(&q);
}

static void run_graph(uint64_t seed, int wire)
{
    struct ips2_cpa_random_opts o;
    uint64_t r = seed * 2654435761u + 1;
    ips2_cpa_random_defaults(&o, seed, 20 + (r >> 3) % 300);
    o.parts = 1 + seed % 6;
    o.apps = 1 + (seed / 6) % 4;
    o.processes = 1 + (r >> 12) % 3;
    o.threads = 1 + (r >> 16) % 3;
    o.cross = 0.05 + (double)((r >> 20) % 50) / 100.0;
    o.cross_part = (double)((r >> 28) % 100) / 100.0;
    o.cross_app = (double)((r >> 36) % 100) / 100.0;
    struct ips2_pag **parts;
    size_t n;
    if (ips2_cpa_random(&o, &parts, &n, err, sizeof err))
        fail_msg("seed %llu: %s", (unsigned long long)seed, err);
    struct ips2_cpa_meta **metas = calloc(n, sizeof *metas);
    assert_non_null(metas);
    for (size_t k = 0; k < n; k++) {
        if (ips2_cpa_meta_from_pag(parts[k], &metas[k], err, sizeof err))
            fail_msg("meta: %s", err);
        if (wire) {
            void *data;
            size_t size;
            struct ips2_cpa_meta *m2;
            assert_int_equal(ips2_cpa_meta_encode(metas[k], &data, &size, err, sizeof err), 0);
            assert_int_equal(ips2_cpa_meta_decode(data, size, "meta", &m2, err, sizeof err), 0);
            void *d2;
            size_t s2;
            assert_int_equal(ips2_cpa_meta_encode(m2, &d2, &s2, err, sizeof err), 0);
            assert_int_equal(size, s2);
            assert_memory_equal(data, d2, size);
            free(data);
            free(d2);
            ips2_cpa_meta_free(metas[k]);
            metas[k] = m2;
        }
    }
    for (int qi = -1; qi < (int)(2 * o.apps); qi++) {
        char app[16], what[96];
        struct ips2_cpa_query q = {0};
        if (qi >= 0) {
            snprintf(app, sizeof app, "a%d", qi / 2);
            q.mode = qi % 2 ? IPS2_CPA_INTER : IPS2_CPA_INTRA;
            q.app = app;
        }
        snprintf(what, sizeof what, "seed %llu %s %s", (unsigned long long)seed,
                 ips2_cpa_mode_name(q.mode), q.app ? q.app : "");
        struct ips2_cpa_path a, b;
        if (ips2_cpa_oracle(parts, n, &q, &a, err, sizeof err))
            fail_msg("%s: oracle: %s", what, err);
        if (ips2_cpa_inproc(parts, n, &q, seed * 7 + (uint64_t)qi, &b, err, sizeof err))
            fail_msg("%s: inproc: %s", what, err);
        same_path(&a, &b, what);
        struct ips2_cpa_profile prof;
        assert_int_equal(ips2_cpa_profile(&a, metas, n, &q, IPS2_CPA_LEVEL_MACHINE, NULL,
                                          IPS2_CPA_RUN_START, IPS2_CPA_RUN_END, &prof, err,
                                          sizeof err),
                         0);
        check_chain(&a, prof.elapsed, what);
        ips2_cpa_profile_free(&prof);
        if (seed % 5 == 0)
            check_profiles(&a, metas, n, &q, what);
        if (wire && qi == -1)
            roundtrip_path(&a);
        ips2_cpa_path_free(&a);
        ips2_cpa_path_free(&b);
    }
    for (size_t k = 0; k < n; k++)
        ips2_cpa_meta_free(metas[k]);
    free(metas);
    ips2_cpa_parts_free(parts, n);
}

static void test_random_dags(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 2000; seed++)
        run_graph(seed, seed % 50 == 0);
}

/* Zeroing every procedure's time by name never lengthens the path, and the
 * distributed run agrees with the oracle on it too. */
static void test_random_zeroing(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        struct ips2_cpa_random_opts o;
        ips2_cpa_random_defaults(&o, seed, 200);
        o.parts = 1 + seed % 4;
        struct ips2_pag **parts;
        size_t n;
        assert_int_equal(ips2_cpa_random(&o, &parts, &n, err, sizeof err), 0);
        struct ips2_cpa_query q = {0};
        struct ips2_cpa_path base, a, b;
        assert_int_equal(ips2_cpa_oracle(parts, n, &q, &base, err, sizeof err), 0);
        q.zero_procedure = "f1";
        if (seed % 2) {
            q.zero_process = 1;
            q.zero_part = 0;
            q.zero_pid = 1000;
        }
        assert_int_equal(ips2_cpa_oracle(parts, n, &q, &a, err, sizeof err), 0);
        assert_int_equal(ips2_cpa_inproc(parts, n, &q, seed, &b, err, sizeof err), 0);
        same_path(&a, &b, "zeroed");
        assert_true(a.length <= base.length);
        for (size_t i = 0; i < a.nshares; i++)
            assert_true(a.shares[i].proc != parts[0]->apps[0] + o.apps + 1 || a.shares[i].cpu == 0);
        ips2_cpa_path_free(&base);
        ips2_cpa_path_free(&a);
        ips2_cpa_path_free(&b);
        ips2_cpa_parts_free(parts, n);
    }
}

/* Parts given in another order than they were numbered (as a directory
 * listing orders m10 before m2) keep their cross arcs: ips2_pag_number
 * maps every global id, and the path is the same. */
static void test_renumbered_parts(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 50; seed++) {
        struct ips2_cpa_random_opts o;
        ips2_cpa_random_defaults(&o, seed, 400);
        o.parts = 2 + seed % 11;
        struct ips2_pag **parts;
        size_t n;
        assert_int_equal(ips2_cpa_random(&o, &parts, &n, err, sizeof err), 0);
        struct ips2_cpa_query q = {0};
        struct ips2_cpa_path a, b;
        assert_int_equal(ips2_cpa_oracle(parts, n, &q, &a, err, sizeof err), 0);
        struct ips2_pag *shuffled[16];
        for (size_t i = 0; i < n; i++) /* reversed, then rotated by the seed */
            shuffled[i] = parts[(n - 1 - i + seed) % n];
        assert_int_equal(ips2_pag_number(shuffled, n, err, sizeof err), 0);
        assert_int_equal(ips2_cpa_oracle(shuffled, n, &q, &b, err, sizeof err), 0);
        assert_int_equal(a.length, b.length);
        assert_int_equal(a.nsegs, b.nsegs);
        ips2_cpa_path_free(&a);
        ips2_cpa_path_free(&b);
        /* a part that names one missing from the set is refused */
        if (n > 2) {
            size_t k = 0;
            while (k < n && shuffled[k]->nouts == 0)
                k++;
            if (k < n) {
                struct ips2_pag *one = shuffled[k];
                one->part = 99;
                assert_int_equal(ips2_pag_number(&one, 1, err, sizeof err), -1);
                assert_non_null(strstr(err, "not among the 1 given"));
            }
        }
        ips2_cpa_parts_free(parts, n);
    }
}

/* Batches and walks through their wire formats; bad bytes are named. */
static void test_wire_batch_walk(void **state)
{
    (void)state;
    struct ips2_cpa_value v[3] = {{IPS2_PAG_GID(1, 5), 7, 1, 100},
                                  {IPS2_PAG_GID(1, 6), 8, 0, 0},
                                  {IPS2_PAG_GID(1, 9), 2, 1, 3}};
    struct ips2_cpa_batch b = {1, 0, v, 3, 3}, c;
    void *data;
    size_t size;
    assert_int_equal(ips2_cpa_batch_encode(&b, &data, &size, err, sizeof err), 0);
    assert_int_equal(size, 16 + 3 * 24);
    assert_int_equal(ips2_cpa_batch_decode(data, size, "b", &c, err, sizeof err), 0);
    assert_int_equal(c.n, 3);
    assert_memory_equal(c.v, v, sizeof v);
    ips2_cpa_batch_free(&c);
    ((unsigned char *)data)[16 + 24 + 12] = 5; /* flags of value 1 */
    assert_int_equal(ips2_cpa_batch_decode(data, size, "b", &c, err, sizeof err), -1);
    assert_string_equal(err, "b: byte 52: expected flags 0 or 1, found 5");
    ((unsigned char *)data)[12] = 200; /* count */
    assert_int_equal(ips2_cpa_batch_decode(data, size, "b", &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "b: byte 12: expected a count of values"));
    free(data);

    struct ips2_cpa_walk w = {0, IPS2_PAG_GID(2, 3), 1, {0}}, w2;
    w.arc.kind = IPS2_PAG_ARC_MESSAGE;
    w.arc.from = w.gid;
    w.arc.to = IPS2_PAG_GID(0, 4);
    w.arc.end = 50;
    w.arc.length = 10;
    assert_int_equal(ips2_cpa_walk_encode(&w, &data, &size, err, sizeof err), 0);
    assert_int_equal(ips2_cpa_walk_decode(data, size, "w", &w2, err, sizeof err), 0);
    assert_int_equal(w2.gid, w.gid);
    assert_int_equal(w2.has_arc, 1);
    assert_true(seg_equal(&w2.arc, &w.arc));
    assert_int_equal(ips2_cpa_walk_decode(data, size - 1, "w", &w2, err, sizeof err), -1);
    assert_non_null(strstr(err, "w: byte "));
    free(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_dags),
        cmocka_unit_test(test_random_zeroing),
        cmocka_unit_test(test_renumbered_parts),
        cmocka_unit_test(test_wire_batch_walk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
