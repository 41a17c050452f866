/*
 * test_pag_file.c - the part file and the matching messages (cpa/
 * pag_file.c): a part written and read back is the same part; the ends
 * and cross messages carry what they should; every kind of damage gives
 * one error naming the file and the byte offset, never a crash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include <cmocka.h>

#include "ips2_pag.h"
#include "scratch.h"

static char *sdup(const char *s)
{
    char *d = strdup(s);
    assert_non_null(d);
    return d;
}

/* Two threads of one process, 3 nodes each, two shares, one local arc,
 * one arc from part 1, one out, one end, one warning. */
static struct ips2_pag *sample(void)
{
    struct ips2_pag *g = calloc(1, sizeof(*g));
    assert_non_null(g);
    g->part = 0;
    g->machine = sdup("m1");
    g->trace_dir = sdup("/s/traces/m1");
    g->nstrings = 3;
    g->strings = calloc(3, sizeof(char *));
    g->strings[0] = sdup("app");
    g->strings[1] = sdup("/bin/app");
    g->strings[2] = sdup("main");
    g->napps = 1;
    g->apps = calloc(1, sizeof(*g->apps));
    g->nprocesses = 1;
    g->processes = calloc(1, sizeof(*g->processes));
    g->processes[0] = (struct ips2_pag_process){0, 42, 0, 1};
    g->nthreads = 2;
    g->threads = calloc(2, sizeof(*g->threads));
    g->threads[0] = (struct ips2_pag_thread){0, 42, 0, 3};
    g->threads[1] = (struct ips2_pag_thread){0, 43, 3, 3};
    g->nnodes = 6;
    g->nodes = calloc(6, sizeof(*g->nodes));
    for (uint32_t i = 0; i < 6; i++) {
        g->nodes[i].wall = 100 * (i % 3) + 10 * (i / 3);
        g->nodes[i].cpu = i % 3 ? 50 : 0;
        g->nodes[i].thread = i / 3;
        g->nodes[i].shares = i < 1 ? 0 : i < 3 ? (uint32_t)i - 0 : 2;
        g->nodes[i].kind = i % 3 == 0 ? IPS2_PAG_BEGIN : i % 3 == 2 ? IPS2_PAG_END : 41;
        g->nodes[i].proc = i % 3 == 1 ? 2 : IPS2_PAG_NONE;
    }
    g->nshares = 2;
    g->shares = calloc(2, sizeof(*g->shares));
    g->shares[0] = (struct ips2_pag_share){2, 0, 50};
    g->shares[1] = (struct ips2_pag_share){IPS2_PAG_NONE, 0, 50};
    g->narcs = 2;
    g->arcs = calloc(2, sizeof(*g->arcs));
    g->arcs[0] = (struct ips2_pag_arc){IPS2_PAG_GID(1, 7), 4, IPS2_PAG_ARC_MESSAGE, 0, 5};
    g->arcs[1] = (struct ips2_pag_arc){IPS2_PAG_GID(0, 1), 5, IPS2_PAG_ARC_SYNC, 0, 90};
    g->nouts = 1;
    g->outs = calloc(1, sizeof(*g->outs));
    g->outs[0] = (struct ips2_pag_out){2, 0, IPS2_PAG_GID(1, 3)};
    g->nends = 1;
    g->ends = calloc(1, sizeof(*g->ends));
    g->ends[0] = (struct ips2_pag_end){1, IPS2_PAG_ROLE_PVM_SEND, 74, {1, 2, 3}, 100, INT64_MIN};
    g->nwarnings = 1;
    g->warnings = calloc(1, sizeof(char *));
    g->warnings[0] = sdup("process 42 (app): something");
    return g;
}

static void same(const struct ips2_pag *a, const struct ips2_pag *b)
{
    assert_int_equal(a->part, b->part);
    assert_string_equal(a->machine, b->machine);
    assert_string_equal(a->trace_dir, b->trace_dir);
    assert_int_equal(a->nstrings, b->nstrings);
    for (size_t i = 0; i < a->nstrings; i++)
        assert_string_equal(a->strings[i], b->strings[i]);
#define SAME(f)                                                                                    \
    assert_int_equal(a->n##f, b->n##f);                                                            \
    if (a->n##f)                                                                                   \
        assert_memory_equal(a->f, b->f, a->n##f * sizeof(*a->f));
    SAME(apps)
    SAME(processes)
    SAME(threads)
    SAME(nodes)
    SAME(shares)
    SAME(arcs)
    SAME(outs)
    SAME(ends)
#undef SAME
    assert_int_equal(a->nwarnings, b->nwarnings);
    for (size_t i = 0; i < a->nwarnings; i++)
        assert_string_equal(a->warnings[i], b->warnings[i]);
}

static void test_round_trip(void **state)
{
    (void)state;
    struct ips2_pag *g = sample(), *r;
    char path[300], err[512];

    snprintf(path, sizeof(path), "%s/m1.pag", scratch_dir);
    assert_int_equal(ips2_pag_write(g, path, err, sizeof(err)), 0);
    if (ips2_pag_read(path, &r, err, sizeof(err)) != 0)
        fail_msg("%s", err);
    same(g, r);
    ips2_pag_free(r);
    ips2_pag_free(g);
}

static void fix_crc(unsigned char *p, size_t n)
{
    uint32_t c = (uint32_t)crc32(0L, p, (uInt)(n - 4));
    memcpy(p + n - 4, &c, 4);
}

/* Damage at a known place gives an error naming that byte. */
static void expect(const unsigned char *data, size_t n, const char *want)
{
    struct ips2_pag *r = NULL;
    char err[512] = "";

    assert_int_equal(ips2_pag_decode(data, n, "x.pag", &r, err, sizeof(err)), -1);
    assert_null(r);
    if (!strstr(err, want))
        fail_msg("expected \"%s\" in \"%s\"", want, err);
}

static void test_damage(void **state)
{
    (void)state;
    struct ips2_pag *g = sample();
    size_t n;
    unsigned char *p = ips2_pag_encode(g, &n), *q = malloc(n);
    assert_non_null(p);

    expect(p, 10, "x.pag: byte 0: expected a PAG of at least");
    memcpy(q, p, n);
    q[0] = 'X';
    expect(q, n, "x.pag: byte 0: expected magic");
    memcpy(q, p, n);
    q[50] ^= 1;
    expect(q, n, "x.pag: byte ");
    expect(q, n, "expected crc32");
    /* a huge count with a good crc: refused before allocating */
    memcpy(q, p, n);
    uint64_t huge = UINT64_MAX / 2;
    memcpy(q + 16 + 8 * 4, &huge, 8); /* nodes */
    fix_crc(q, n);
    expect(q, n, "nodes (32 bytes each), found");
    /* an application index out of range */
    memcpy(q, p, n);
    size_t apps = 96 + 4 + 2 + 4 + 12 + 4 + 3 + 4 + 8 + 4 + 4; /* after the strings */
    uint32_t bad = 7;
    memcpy(q + apps, &bad, 4);
    fix_crc(q, n);
    char want[64];
    snprintf(want, sizeof(want), "byte %zu: expected an application name", apps);
    expect(q, n, want);
    /* a node's thread, and an arc out of order */
    struct ips2_pag *h = sample();
    h->nodes[4].thread = 0;
    unsigned char *e = ips2_pag_encode(h, &n);
    expect(e, n, "expected a node of thread 1, found 0");
    free(e);
    h->nodes[4].thread = 1;
    h->arcs[1].to = 1;
    e = ips2_pag_encode(h, &n);
    expect(e, n, "expected an arc to a node < 6, in order");
    free(e);
    ips2_pag_free(h);
    /* every truncation fails cleanly */
    size_t full;
    unsigned char *f = ips2_pag_encode(g, &full);
    for (size_t cut = 0; cut < full; cut++) {
        struct ips2_pag *r = NULL;
        char err[512];
        assert_int_equal(ips2_pag_decode(f, cut, "x.pag", &r, err, sizeof(err)), -1);
    }
    free(f);
    free(p);
    free(q);
    ips2_pag_free(g);
}

/* The whole bytes of a file. */
static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    unsigned char *p = malloc((size_t)len + 1);
    assert_non_null(p);
    assert_int_equal(fread(p, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return p;
}

/* A part file is compressed (version 4: a zstd frame of the plain layout
 * without the shares' bytes, then one of the shares) unless
 * IPS2_PAG_ZSTD=0; both read back as the part, and so does version 3 (one
 * frame of the plain layout); a damaged frame gives one error naming the
 * byte, never a crash. */
static void test_compressed_file(void **state)
{
    (void)state;
    struct ips2_pag *g = sample(), *r;
    char path[300], err[512];
    size_t n, plain_n;

    /* many shares, as a server's CPU arcs have */
    free(g->shares);
    g->nshares = 20000;
    g->shares = calloc(g->nshares, sizeof(*g->shares));
    for (size_t i = 0; i < g->nshares; i++)
        g->shares[i] = (struct ips2_pag_share){2, 0, (int64_t)(i % 97)};
    g->nodes[1].shares = 10000;
    g->nodes[2].shares = 20000;
    g->nodes[3].shares = g->nodes[4].shares = g->nodes[5].shares = 20000;
    unsigned char *plain = ips2_pag_encode(g, &plain_n);
    assert_non_null(plain);
    snprintf(path, sizeof(path), "%s/z.pag", scratch_dir);
    assert_int_equal(ips2_pag_write(g, path, err, sizeof(err)), 0);
    unsigned char *z = slurp(path, &n);
    assert_memory_equal(z, "IPS2PAG\0\4\0\1\0\0\0\0\0", 16);
    assert_true(n * 10 < plain_n);
    if (ips2_pag_read(path, &r, err, sizeof(err)) != 0)
        fail_msg("%s", err);
    same(g, r);
    ips2_pag_free(r);

    /* version 3, as older writers made it: read whole */
    size_t bound = ZSTD_compressBound(plain_n);
    unsigned char *v3 = malloc(16 + bound);
    memcpy(v3, "IPS2PAG\0\3\0\1\0\0\0\0\0", 16);
    size_t zn = ZSTD_compress(v3 + 16, bound, plain, plain_n, 3);
    assert_false(ZSTD_isError(zn));
    assert_int_equal(ips2_pag_decode(v3, 16 + zn, "v3.pag", &r, err, sizeof(err)), 0);
    same(g, r);
    ips2_pag_free(r);
    free(v3);

    /* damage: cut anywhere, bytes after the frame, a bad frame */
    for (size_t cut = 0; cut < n; cut += 1 + cut / 8) {
        r = NULL;
        assert_int_equal(ips2_pag_decode(z, cut, "z.pag", &r, err, sizeof(err)), -1);
        assert_null(r);
    }
    assert_int_equal(ips2_pag_decode(z, n - 1, "z.pag", &r, err, sizeof(err)), -1);
    if (!strstr(err, "z.pag: byte ") || !strstr(err, "the rest of the zstd frame"))
        fail_msg("%s", err);
    unsigned char *more = malloc(n + 3);
    memcpy(more, z, n);
    memcpy(more + n, "abc", 3);
    assert_int_equal(ips2_pag_decode(more, n + 3, "z.pag", &r, err, sizeof(err)), -1);
    if (!strstr(err, "after the zstd frame"))
        fail_msg("%s", err);
    memcpy(more, z, n);
    more[17] ^= 0x55; /* inside zstd's frame header */
    assert_int_equal(ips2_pag_decode(more, n, "z.pag", &r, err, sizeof(err)), -1);
    if (!strstr(err, "z.pag"))
        fail_msg("%s", err);
    free(more);

    /* plain on request: the same bytes as the encoder's */
    setenv("IPS2_PAG_ZSTD", "0", 1);
    assert_int_equal(ips2_pag_write(g, path, err, sizeof(err)), 0);
    unsetenv("IPS2_PAG_ZSTD");
    free(z);
    z = slurp(path, &n);
    assert_int_equal(n, plain_n);
    assert_memory_equal(z, plain, n);
    if (ips2_pag_read(path, &r, err, sizeof(err)) != 0)
        fail_msg("%s", err);
    same(g, r);
    ips2_pag_free(r);
    free(z);
    free(plain);
    ips2_pag_free(g);
}

struct collect {
    struct ips2_pag_share *v;
    size_t n;
    uint32_t next; /* the node expected next */
};

static int collect(void *arg, uint32_t node, const struct ips2_pag_share *sh, size_t n)
{
    struct collect *c = arg;
    assert_int_equal(node, c->next++);
    if (n) {
        assert_non_null(sh);
        memcpy(c->v + c->n, sh, n * sizeof(*sh));
    }
    c->n += n;
    return 0;
}

/* A part read lazily has everything but its shares, which
 * ips2_pag_shares_each gives arc by arc as the file holds them; a damaged
 * or cut shares frame fails with the file's name, never a crash; a plain
 * file is read whole. */
static void test_lazy_shares(void **state)
{
    (void)state;
    struct ips2_pag *g = sample(), *r;
    char path[300], err[512];
    size_t n;

    free(g->shares);
    g->nshares = 300000; /* more than the stream's window */
    g->shares = calloc(g->nshares, sizeof(*g->shares));
    for (size_t i = 0; i < g->nshares; i++)
        g->shares[i] = (struct ips2_pag_share){(uint32_t)(i % 3), 0, (int64_t)(i * 7919 % 1009)};
    g->nodes[1].shares = 1000;
    /* one arc larger than the stream's window */
    g->nodes[2].shares = g->nodes[3].shares = g->nodes[4].shares = g->nodes[5].shares = 300000;
    snprintf(path, sizeof(path), "%s/lazy.pag", scratch_dir);
    assert_int_equal(ips2_pag_write(g, path, err, sizeof(err)), 0);
    if (ips2_pag_read_lazy(path, &r, err, sizeof(err)) != 0)
        fail_msg("%s", err);
    assert_non_null(r->lazy);
    assert_null(r->shares);
    assert_int_equal(r->nshares, g->nshares);
    assert_int_equal(r->nnodes, g->nnodes);
    assert_memory_equal(r->nodes, g->nodes, g->nnodes * sizeof(*g->nodes));
    assert_memory_equal(r->arcs, g->arcs, g->narcs * sizeof(*g->arcs));
    struct collect c = {calloc(g->nshares, sizeof(*c.v)), 0, 0};
    for (int pass = 0; pass < 2; pass++) { /* a part streams as often as asked */
        c.n = c.next = 0;
        if (ips2_pag_shares_each(r, collect, &c, err, sizeof(err)) != 0)
            fail_msg("%s", err);
        assert_int_equal(c.next, g->nnodes);
        assert_int_equal(c.n, g->nshares);
        assert_memory_equal(c.v, g->shares, g->nshares * sizeof(*g->shares));
    }
    char out[300];
    snprintf(out, sizeof(out), "%s/lazy2.pag", scratch_dir);
    /* its ends travel without shares, as a whole part's do */
    size_t ne;
    void *ends = ips2_pag_ends_encode(r, &ne);
    struct ips2_pag *e;
    assert_non_null(ends);
    if (ips2_pag_ends_decode(ends, ne, "ends", &e, err, sizeof(err)) != 0)
        fail_msg("%s", err);
    assert_int_equal(e->nends, g->nends);
    assert_int_equal(e->nshares, 0);
    ips2_pag_free(e);
    free(ends);
    /* a lazy part is written with its shares' frame copied as it is, and
     * plain (IPS2_PAG_ZSTD=0) with them inflated as they are written */
    for (int plain = 0; plain < 2; plain++) {
        struct ips2_pag *w;
        if (plain)
            setenv("IPS2_PAG_ZSTD", "0", 1);
        assert_int_equal(ips2_pag_write(r, out, err, sizeof(err)), 0);
        unsetenv("IPS2_PAG_ZSTD");
        if (ips2_pag_read(out, &w, err, sizeof(err)) != 0)
            fail_msg("%s", err);
        assert_null(w->lazy);
        assert_int_equal(w->nshares, g->nshares);
        assert_memory_equal(w->shares, g->shares, g->nshares * sizeof(*g->shares));
        assert_memory_equal(w->nodes, g->nodes, g->nnodes * sizeof(*g->nodes));
        ips2_pag_free(w);
    }
    ips2_pag_free(r);

    /* damage in the shares' frame: cut, or a byte changed */
    unsigned char *z = slurp(path, &n);
    size_t first = 24;
    for (int i = 0; i < 8; i++)
        first += (size_t)z[16 + i] << (8 * i);
    assert_true(first < n);
    FILE *f;
    for (size_t at = first; at <= n; at += 1 + (n - first) / 23) {
        for (int kind = 0; kind < 2; kind++) {
            f = fopen(out, "wb");
            assert_non_null(f);
            if (kind == 0) {
                assert_int_equal(fwrite(z, 1, at, f), at); /* cut */
            } else if (at < n) {
                z[at] ^= 0x5a;
                assert_int_equal(fwrite(z, 1, n, f), n);
                z[at] ^= 0x5a;
            } else {
                assert_int_equal(fwrite(z, 1, n, f), n);
                assert_int_equal(fwrite("x", 1, 1, f), 1); /* one byte more */
            }
            fclose(f);
            if (ips2_pag_read_lazy(out, &r, err, sizeof(err)) != 0) {
                if (!strstr(err, "lazy2.pag"))
                    fail_msg("%s", err);
                continue;
            }
            c.n = c.next = 0;
            int rc = ips2_pag_shares_each(r, collect, &c, err, sizeof(err));
            if (kind == 0 && at == n)
                assert_int_equal(rc, 0);
            else if (rc == 0) /* a change that alters nothing zstd gives (a spare bit) */
                assert_memory_equal(c.v, g->shares, g->nshares * sizeof(*g->shares));
            else if (!strstr(err, "lazy2.pag"))
                fail_msg("%s", err);
            ips2_pag_free(r);
        }
    }
    free(z);
    free(c.v);

    /* a plain file: read whole */
    setenv("IPS2_PAG_ZSTD", "0", 1);
    assert_int_equal(ips2_pag_write(g, path, err, sizeof(err)), 0);
    unsetenv("IPS2_PAG_ZSTD");
    if (ips2_pag_read_lazy(path, &r, err, sizeof(err)) != 0)
        fail_msg("%s", err);
    assert_null(r->lazy);
    same(g, r);
    ips2_pag_free(r);
    ips2_pag_free(g);
}

/* The ends message gives an end-only part; matching it gives a cross
 * message whose arcs, outs and warnings the live part takes. */
static void test_ends_and_cross(void **state)
{
    (void)state;
    struct ips2_pag *a = sample(), *b = sample(), *ea, *eb;
    char err[512];
    size_t n;

    ips2_pag_set_part(b, 1);
    assert_int_equal(b->arcs[1].from, IPS2_PAG_GID(1, 1));
    a->ends[0] = (struct ips2_pag_end){
        1, IPS2_PAG_ROLE_PVM_SEND, 74, {1ull << 32 | 2, 5, 1}, 100, INT64_MIN};
    b->ends[0] =
        (struct ips2_pag_end){4, IPS2_PAG_ROLE_PVM_RECV, 75, {1ull << 32 | 2, 5, 1}, 150, 120};
    void *da = ips2_pag_ends_encode(a, &n);
    assert_int_equal(ips2_pag_ends_decode(da, n, "a", &ea, err, sizeof(err)), 0);
    free(da);
    void *db = ips2_pag_ends_encode(b, &n);
    assert_int_equal(ips2_pag_ends_decode(db, n, "b", &eb, err, sizeof(err)), 0);
    free(db);
    assert_int_equal(ea->nnodes, 0);
    assert_int_equal(ea->nends, 1);
    assert_int_equal(ea->narcs, 0);
    struct ips2_pag *parts[2] = {ea, eb};
    assert_int_equal(ips2_pag_match_ends(parts, 2, err, sizeof(err)), 0);
    assert_int_equal(eb->narcs, 1);
    assert_int_equal(eb->arcs[0].from, IPS2_PAG_GID(0, 1));
    assert_int_equal(eb->arcs[0].to, 4);
    assert_int_equal(eb->arcs[0].weight, 150 - 120);
    assert_int_equal(eb->arcs[0].label, 5 + 1); /* the message's tag + 1 */
    assert_int_equal(ea->nouts, 1);
    /* back to the live parts */
    void *ca = ips2_pag_cross_encode(ea, &n);
    assert_int_equal(ips2_pag_cross_apply(a, ca, n, "ca", err, sizeof(err)), 0);
    free(ca);
    void *cb = ips2_pag_cross_encode(eb, &n);
    assert_int_equal(ips2_pag_cross_apply(b, cb, n, "cb", err, sizeof(err)), 0);
    assert_int_equal(b->narcs, 3);
    for (size_t i = 1; i < b->narcs; i++)
        assert_true(b->arcs[i - 1].to <= b->arcs[i].to);
    size_t labelled = 0;
    for (size_t i = 0; i < b->narcs; i++)
        if (b->arcs[i].from == IPS2_PAG_GID(0, 1))
            labelled += b->arcs[i].label == 5 + 1;
    assert_int_equal(labelled, 1);
    assert_int_equal(a->nouts, 2);
    assert_int_equal(a->nends, 0);
    assert_int_equal(b->nends, 0);
    /* a cross message for another part is refused */
    assert_int_equal(ips2_pag_cross_apply(a, cb, n, "cb", err, sizeof(err)), -1);
    assert_non_null(strstr(err, "cb: byte 12: expected part 0, found 1"));
    free(cb);
    ips2_pag_free(ea);
    ips2_pag_free(eb);
    ips2_pag_free(a);
    ips2_pag_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),     cmocka_unit_test(test_damage),
        cmocka_unit_test(test_ends_and_cross), cmocka_unit_test(test_compressed_file),
        cmocka_unit_test(test_lazy_shares),
    };
    if (scratch_make("pagfile") != 0)
        return 1;
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    scratch_remove(NULL);
    return rc;
}
