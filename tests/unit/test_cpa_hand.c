/*
 * test_cpa_hand.c - the critical-path engine on hand-made graphs whose
 * answers are worked out by hand (the numbers are in the comments):
 * the paper's Figure 4 as three applications on two machines (A's intra
 * path crosses processes but never leaves A; C's inter path crosses into B
 * but not A; the global path crosses all), zeroing a process and a
 * procedure, profiles at each level with message delays as their own
 * entries and percentages summing to 100, phase clipping, imbalance, and
 * broken graphs (a cycle, an arc whose source never comes, a batch for an
 * arc that does not exist) refused with a message, never a hang.
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

/* ---- a tiny builder ----------------------------------------------------- */

static struct ips2_pag *part_new(uint32_t k, const char *machine)
{
    struct ips2_pag *p = calloc(1, sizeof *p);
    assert_non_null(p);
    p->part = k;
    p->machine = strdup(machine);
    p->trace_dir = strdup("hand");
    p->strings = calloc(32, sizeof *p->strings);
    p->apps = calloc(8, sizeof *p->apps);
    p->processes = calloc(8, sizeof *p->processes);
    p->threads = calloc(8, sizeof *p->threads);
    p->nodes = calloc(64, sizeof *p->nodes);
    p->shares = calloc(64, sizeof *p->shares);
    p->arcs = calloc(64, sizeof *p->arcs);
    p->outs = calloc(64, sizeof *p->outs);
    return p;
}

static uint32_t str(struct ips2_pag *p, const char *s)
{
    for (size_t i = 0; i < p->nstrings; i++)
        if (strcmp(p->strings[i], s) == 0)
            return (uint32_t)i;
    p->strings[p->nstrings] = strdup(s);
    return (uint32_t)p->nstrings++;
}

static uint32_t app(struct ips2_pag *p, const char *name)
{
    uint32_t s = str(p, name);
    for (size_t i = 0; i < p->napps; i++)
        if (p->apps[i] == s)
            return (uint32_t)i;
    p->apps[p->napps] = s;
    return (uint32_t)p->napps++;
}

/* A process of one thread with nodes at walls[] and CPU arcs cpus[]
 * (cpus[0] ignored); procs[i]: the procedure at node i (NULL: none);
 * share_proc/share: one share on the arc into node share_node. */
static uint32_t thread_of(struct ips2_pag *p, const char *exe, const char *appname, int32_t pid,
                          size_t n, const int64_t *walls, const int64_t *cpus,
                          const char *const *procs, int share_node, const char *share_proc)
{
    uint32_t a = app(p, appname);
    uint32_t pr = (uint32_t)p->nprocesses++;
    p->processes[pr] = (struct ips2_pag_process){a, pid, 0, str(p, exe)};
    uint32_t t = (uint32_t)p->nthreads++;
    p->threads[t] = (struct ips2_pag_thread){pr, pid, (uint32_t)p->nnodes, (uint32_t)n};
    uint32_t first = (uint32_t)p->nnodes;
    for (size_t i = 0; i < n; i++) {
        if ((int)i == share_node)
            p->shares[p->nshares++] = (struct ips2_pag_share){str(p, share_proc), 0, cpus[i]};
        p->nodes[p->nnodes++] = (struct ips2_pag_node){
            walls[i],
            i ? cpus[i] : 0,
            t,
            (uint32_t)p->nshares,
            (uint16_t)(i == 0       ? IPS2_PAG_BEGIN
                       : i + 1 == n ? IPS2_PAG_END
                                    : 1),
            0,
            procs && procs[i] ? str(p, procs[i]) : IPS2_PAG_NONE,
        };
    }
    return first;
}

/* The same, of the program /bin/x. */
static uint32_t thread(struct ips2_pag *p, const char *appname, int32_t pid, size_t n,
                       const int64_t *walls, const int64_t *cpus, const char *const *procs,
                       int share_node, const char *share_proc)
{
    return thread_of(p, "/bin/x", appname, pid, n, walls, cpus, procs, share_node, share_proc);
}

static int cmp_arc(const void *a, const void *b)
{
    const struct ips2_pag_arc *x = a, *y = b;
    return x->to < y->to ? -1 : x->to > y->to;
}

static void arc(struct ips2_pag **parts, uint32_t fk, uint32_t fn, uint32_t tk, uint32_t tn,
                int64_t w)
{
    struct ips2_pag *d = parts[tk];
    d->arcs[d->narcs++] =
        (struct ips2_pag_arc){IPS2_PAG_GID(fk, fn), tn, IPS2_PAG_ARC_MESSAGE, 0, w};
    qsort(d->arcs, d->narcs, sizeof *d->arcs, cmp_arc);
    if (fk != tk)
        parts[fk]->outs[parts[fk]->nouts++] = (struct ips2_pag_out){fn, 0, IPS2_PAG_GID(tk, tn)};
}

/* ---- Figure 4 ------------------------------------------------------------
 *
 * m0: A1 (A:101)  0  5  10  30            C1 (C:301) 0  6  18  45  55
 *          cpu       5   5  20                  cpu     1  12   0  10
 * m1: A2 (A:102)  0 15  52  60            B1 (B:201) 0 20  40  50  70
 *          cpu       2  30   8                  cpu    19  20  10  20
 * messages: A1@5 -> C1@6 (1), A1@10 -> A2@15 (5), C1@18 -> B1@20 (2),
 *           B1@40 -> C1@45 (5), B1@50 -> A2@52 (2)
 *
 * intra A = 5+5 +5 +30+8 = 53 (A1 -> A2, B's arc ignored)
 * inter C = 1+12 +2 +20 +5 +10 = 50 (C -> B -> C; A's arc unreached)
 * global  = 5 +1 +12 +2 +20+10+20 = 70 (A1 -> C1 -> B1)
 * intra B = 69, intra C = 23.
 */
static size_t fig4(struct ips2_pag ***out)
{
    struct ips2_pag **p = calloc(2, sizeof *p);
    assert_non_null(p);
    p[0] = part_new(0, "m0");
    p[1] = part_new(1, "m1");
    static const int64_t a1w[] = {0, 5, 10, 30}, a1c[] = {0, 5, 5, 20};
    static const int64_t c1w[] = {0, 6, 18, 45, 55}, c1c[] = {0, 1, 12, 0, 10};
    static const int64_t a2w[] = {0, 15, 52, 60}, a2c[] = {0, 2, 30, 8};
    static const int64_t b1w[] = {0, 20, 40, 50, 70}, b1c[] = {0, 19, 20, 10, 20};
    static const char *const bprocs[] = {NULL, "serve", "serve", NULL, NULL};
    assert_int_equal(thread(p[0], "A", 101, 4, a1w, a1c, NULL, -1, NULL), 0);
    assert_int_equal(thread(p[0], "C", 301, 5, c1w, c1c, NULL, -1, NULL), 4);
    assert_int_equal(thread(p[1], "A", 102, 4, a2w, a2c, NULL, -1, NULL), 0);
    assert_int_equal(thread(p[1], "B", 201, 5, b1w, b1c, bprocs, 2, "work"), 4);
    arc(p, 0, 1, 0, 5, 1);
    arc(p, 0, 2, 1, 1, 5);
    arc(p, 0, 6, 1, 5, 2);
    arc(p, 1, 6, 0, 7, 5);
    arc(p, 1, 7, 1, 2, 2);
    *out = p;
    return 2;
}

static void both(struct ips2_pag **p, size_t n, const struct ips2_cpa_query *q,
                 struct ips2_cpa_path *out)
{
    struct ips2_cpa_path other;
    if (ips2_cpa_oracle(p, n, q, out, err, sizeof err))
        fail_msg("oracle: %s", err);
    for (uint64_t seed = 1; seed <= 20; seed++) {
        if (ips2_cpa_inproc(p, n, q, seed, &other, err, sizeof err))
            fail_msg("inproc: %s", err);
        assert_int_equal(other.length, out->length);
        assert_int_equal(other.terminal, out->terminal);
        assert_int_equal(other.nsegs, out->nsegs);
        ips2_cpa_path_free(&other);
    }
}

/* The applications a path visits, as a string of their initials. */
static void apps_on(struct ips2_pag **p, const struct ips2_cpa_path *path, char *buf)
{
    size_t k = 0;
    buf[0] = 0;
    for (size_t i = 0; i < path->nsegs; i++) {
        const struct ips2_cpa_segment *s = &path->segs[i];
        const struct ips2_pag *pt = p[s->dst_part];
        const char *a =
            pt->strings[pt->apps[pt->processes[pt->threads[s->dst_thread].process].app]];
        if (!strchr(buf, a[0])) {
            buf[k++] = a[0];
            buf[k] = 0;
        }
    }
}

static void metas_of(struct ips2_pag **p, size_t n, struct ips2_cpa_meta **m)
{
    for (size_t k = 0; k < n; k++)
        assert_int_equal(ips2_cpa_meta_from_pag(p[k], &m[k], err, sizeof err), 0);
}

/* A chunk of n segments with k shares each, share i's cpu = base + i. */
static void chunk_of(struct ips2_cpa_path *c, size_t n, uint32_t k, int64_t base)
{
    ips2_cpa_path_init(c);
    c->segs = calloc(n, sizeof *c->segs);
    c->shares = calloc(n * k, sizeof *c->shares);
    assert_non_null(c->segs);
    assert_non_null(c->shares);
    c->segcap = n;
    c->sharecap = n * k;
    for (size_t i = 0; i < n; i++) {
        c->segs[i] = (struct ips2_cpa_segment){.kind = IPS2_CPA_SEG_CPU,
                                               .first_share = (uint32_t)(i * k),
                                               .nshares = k,
                                               .length = base + (int64_t)i};
        for (uint32_t j = 0; j < k; j++)
            c->shares[i * k + j] = (struct ips2_cpa_share){j, 0, base + (int64_t)(i * k + j)};
    }
    c->nsegs = n;
    c->nshares = n * k;
}

/* Appending into an empty path moves the chunk's arrays (no copy), into
 * a path with segments copies them, shares renumbered; finish reverses
 * and gives back the growth's slack. */
static void test_path_append_moves(void **state)
{
    (void)state;
    struct ips2_cpa_path p, a, b;
    ips2_cpa_path_init(&p);
    chunk_of(&a, 3, 2, 100);
    chunk_of(&b, 2, 3, 200);
    const struct ips2_cpa_share *moved = a.shares;
    assert_int_equal(ips2_cpa_path_append(&p, &a, err, sizeof(err)), 0);
    assert_ptr_equal(p.shares, moved);
    assert_int_equal(a.nshares, 0);
    assert_int_equal(a.nsegs, 0);
    assert_int_equal(ips2_cpa_path_append(&p, &b, err, sizeof(err)), 0);
    assert_int_equal(b.nshares, 6); /* copied: b keeps its own */
    assert_int_equal(p.nsegs, 5);
    assert_int_equal(p.nshares, 12);
    ips2_cpa_path_finish(&p);
    assert_int_equal(p.segcap, 5);
    assert_int_equal(p.sharecap, 12);
    /* last-first: b's second segment first; its shares where they were copied */
    assert_int_equal(p.segs[0].length, 201);
    assert_int_equal(p.segs[0].first_share, 6 + 3);
    assert_int_equal(p.shares[p.segs[0].first_share].cpu, 203);
    assert_int_equal(p.segs[4].length, 100);
    assert_int_equal(p.shares[p.segs[4].first_share + 1].cpu, 101);
    ips2_cpa_path_free(&a);
    ips2_cpa_path_free(&b);
    ips2_cpa_path_free(&p);
}

static void test_fig4_modes(void **state)
{
    (void)state;
    struct ips2_pag **p;
    size_t n = fig4(&p);
    struct ips2_cpa_path path;
    char visited[8];

    struct ips2_cpa_query q = {IPS2_CPA_INTRA, "A", NULL, 0, 0, 0, NULL};
    both(p, n, &q, &path);
    assert_int_equal(path.length, 53);
    assert_int_equal(path.terminal, IPS2_PAG_GID(1, 3));
    apps_on(p, &path, visited);
    assert_string_equal(visited, "A");
    /* It crosses processes: A1's CPU, the message, A2's CPU. */
    assert_int_equal(path.nsegs, 5);
    assert_int_equal(path.segs[2].kind, IPS2_PAG_ARC_MESSAGE);
    assert_int_equal(path.segs[2].src_part, 0);
    assert_int_equal(path.segs[2].dst_part, 1);
    ips2_cpa_path_free(&path);

    q = (struct ips2_cpa_query){IPS2_CPA_INTER, "C", NULL, 0, 0, 0, NULL};
    both(p, n, &q, &path);
    assert_int_equal(path.length, 50);
    assert_int_equal(path.terminal, IPS2_PAG_GID(0, 8));
    apps_on(p, &path, visited);
    assert_string_equal(visited, "CB");
    ips2_cpa_path_free(&path);

    q = (struct ips2_cpa_query){IPS2_CPA_GLOBAL, NULL, NULL, 0, 0, 0, NULL};
    both(p, n, &q, &path);
    assert_int_equal(path.length, 70);
    assert_int_equal(path.terminal, IPS2_PAG_GID(1, 8));
    apps_on(p, &path, visited);
    assert_string_equal(visited, "ACB");
    ips2_cpa_path_free(&path);

    q = (struct ips2_cpa_query){IPS2_CPA_INTRA, "B", NULL, 0, 0, 0, NULL};
    both(p, n, &q, &path);
    assert_int_equal(path.length, 69);
    ips2_cpa_path_free(&path);
    q.app = "C";
    both(p, n, &q, &path);
    assert_int_equal(path.length, 23);
    ips2_cpa_path_free(&path);
    /* An application with no nodes: an empty path. */
    q.app = "nobody";
    both(p, n, &q, &path);
    assert_int_equal(path.found, 0);
    assert_int_equal(path.length, 0);
    ips2_cpa_path_free(&path);
    ips2_cpa_parts_free(p, n);
}

/* Zeroing B's process: B n5..n8 = 20, A2 n3 = 53 is the longest: 70 -> 53.
 * Zeroing "work" (B's 20 ns between 20 and 40): B ends at 50, A2 at 53. */
static void test_fig4_zeroing(void **state)
{
    (void)state;
    struct ips2_pag **p;
    size_t n = fig4(&p);
    struct ips2_cpa_path path;
    struct ips2_cpa_query q = {IPS2_CPA_GLOBAL, NULL, NULL, 1, 1, 201, "B"};
    both(p, n, &q, &path);
    assert_int_equal(path.length, 53);
    ips2_cpa_path_free(&path);
    q.zero_app = "A"; /* pid 201 is not A's: nothing zeroed */
    both(p, n, &q, &path);
    assert_int_equal(path.length, 70);
    ips2_cpa_path_free(&path);
    q = (struct ips2_cpa_query){IPS2_CPA_GLOBAL, NULL, "work", 0, 0, 0, NULL};
    both(p, n, &q, &path);
    assert_int_equal(path.length, 53);
    ips2_cpa_path_free(&path);
    ips2_cpa_parts_free(p, n);
}

/* Zeroing a set of procedures (names one a line: what inclusive zeroing
 * asks for).  One thread, CPU arcs of 10, 20, 10 ns: build's share, then
 * assemble's, then time no share names with build on top at the arc's
 * start (node 2's procedure).  Zeroing build leaves 20, assemble 20,
 * both 0; a name of no procedure and an empty line zero nothing more. */
static void test_zero_set(void **state)
{
    (void)state;
    struct ips2_pag **p = calloc(1, sizeof *p);
    assert_non_null(p);
    p[0] = part_new(0, "m0");
    static const int64_t w[] = {0, 10, 30, 40}, c[] = {0, 10, 20, 10};
    static const char *const procs[] = {"main", "build", "build", NULL};
    thread(p[0], "A", 101, 4, w, c, procs, -1, NULL);
    struct ips2_pag *pt = p[0];
    pt->shares[0] = (struct ips2_pag_share){str(pt, "build"), 0, 10};
    pt->shares[1] = (struct ips2_pag_share){str(pt, "assemble"), 0, 20};
    pt->nshares = 2;
    pt->nodes[1].shares = 1;
    pt->nodes[2].shares = pt->nodes[3].shares = 2;
    static const struct {
        const char *zero;
        int64_t length;
    } cases[] = {
        {NULL, 40},
        {"build", 20},
        {"assemble", 20},
        {"build\nassemble", 0},
        {"assemble\nbuild", 0},
        {"assemble\nother", 20},
        {"build\n", 20},
        {"\nbuild\n\n", 20},
        {"buil", 40},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ips2_cpa_query q = {IPS2_CPA_GLOBAL, NULL, cases[i].zero, 0, 0, 0, NULL};
        struct ips2_cpa_path path;
        both(p, 1, &q, &path);
        if (path.length != cases[i].length)
            fail_msg("zeroing \"%s\": length %lld, expected %lld",
                     cases[i].zero ? cases[i].zero : "", (long long)path.length,
                     (long long)cases[i].length);
        ips2_cpa_path_free(&path);
    }
    ips2_cpa_parts_free(p, 1);
}

static int64_t entry(const struct ips2_cpa_profile *pr, const char *name)
{
    for (size_t i = 0; i < pr->n; i++)
        if (strcmp(pr->entries[i].name, name) == 0)
            return pr->entries[i].ns;
    return -1;
}

static void check_100(const struct ips2_cpa_profile *pr)
{
    double s = 0;
    for (size_t i = 0; i < pr->n; i++)
        s += pr->entries[i].percent;
    assert_true(fabs(s - 100.0) < 1e-9);
}

/* A server and its client share a procedure name (an event loop's
 * "poll"): server S:1 runs poll 50 ns, then sends to client C:2, which runs
 * poll 105 ns.  Global path 50 + 5 + 105 = 160.  At procedure level the
 * two polls are two rows, each named with its program, never 155 ns in
 * one row under the server; the imbalance too. */
static void test_shared_name_two_programs(void **state)
{
    (void)state;
    struct ips2_pag **p = calloc(1, sizeof *p);
    assert_non_null(p);
    p[0] = part_new(0, "m0");
    static const int64_t sw[] = {0, 50, 60}, sc[] = {0, 50, 10};
    static const int64_t cw[] = {0, 60, 165}, cc[] = {0, 0, 105};
    assert_int_equal(thread_of(p[0], "/usr/sbin/server", "S", 1, 3, sw, sc, NULL, 1, "poll"), 0);
    assert_int_equal(thread_of(p[0], "/usr/bin/client", "C", 2, 3, cw, cc, NULL, 2, "poll"), 3);
    arc(p, 0, 1, 0, 4, 5);
    struct ips2_cpa_meta *m[1];
    metas_of(p, 1, m);
    struct ips2_cpa_path path;
    struct ips2_cpa_query q = {IPS2_CPA_GLOBAL, NULL, NULL, 0, 0, 0, NULL};
    both(p, 1, &q, &path);
    assert_int_equal(path.length, 160);

    struct ips2_cpa_profile pr;
    assert_int_equal(ips2_cpa_profile(&path, m, 1, &q, IPS2_CPA_LEVEL_PROCEDURE, NULL,
                                      IPS2_CPA_RUN_START, IPS2_CPA_RUN_END, &pr, err, sizeof err),
                     0);
    int64_t server = -1, client = -1;
    size_t polls = 0;
    for (size_t i = 0; i < pr.n; i++) {
        if (strcmp(pr.entries[i].name, "poll") != 0)
            continue;
        polls++;
        assert_non_null(pr.entries[i].program);
        if (strcmp(pr.entries[i].program, "server") == 0)
            server = pr.entries[i].ns;
        else if (strcmp(pr.entries[i].program, "client") == 0)
            client = pr.entries[i].ns;
    }
    assert_int_equal(polls, 2);
    assert_int_equal(server, 50);
    assert_int_equal(client, 105);
    check_100(&pr);
    ips2_cpa_profile_free(&pr);

    struct ips2_cpa_imbalance *v;
    size_t nv;
    assert_int_equal(ips2_cpa_imbalance(&path, m, 1, &q, NULL, IPS2_CPA_RUN_START, IPS2_CPA_RUN_END,
                                        &v, &nv, err, sizeof err),
                     0);
    size_t seen = 0;
    for (size_t i = 0; i < nv; i++) {
        if (strcmp(v[i].proc, "poll") != 0)
            continue;
        seen++;
        /* one thread each: cp equals its own CPU, no imbalance */
        if (strcmp(v[i].program, "server") == 0)
            assert_true(v[i].cp == 50 && v[i].avg == 50);
        else
            assert_true(!strcmp(v[i].program, "client") && v[i].cp == 105 && v[i].avg == 105);
    }
    assert_int_equal(seen, 2);
    ips2_cpa_imbalance_free(v, nv);
    ips2_cpa_path_free(&path);
    ips2_cpa_meta_free(m[0]);
    ips2_pag_free(p[0]);
    free(p);
}

static void test_fig4_profiles(void **state)
{
    (void)state;
    struct ips2_pag **p;
    size_t n = fig4(&p);
    struct ips2_cpa_meta *m[2];
    metas_of(p, n, m);
    struct ips2_cpa_path path;
    struct ips2_cpa_query q = {IPS2_CPA_GLOBAL, NULL, NULL, 0, 0, 0, NULL};
    both(p, n, &q, &path);
    struct ips2_cpa_profile pr;

    assert_int_equal(ips2_cpa_profile(&path, m, n, &q, IPS2_CPA_LEVEL_PROCESS, NULL,
                                      IPS2_CPA_RUN_START, IPS2_CPA_RUN_END, &pr, err, sizeof err),
                     0);
    assert_int_equal(pr.n, 5);
    assert_string_equal(pr.entries[0].name, "B:201");
    assert_int_equal(pr.entries[0].ns, 50);
    assert_true(fabs(pr.entries[0].percent - 500.0 / 7.0) < 1e-9);
    assert_int_equal(entry(&pr, "C:301"), 12);
    assert_int_equal(entry(&pr, "A:101"), 5);
    assert_int_equal(entry(&pr, "messages C:301->B:201"), 2);
    assert_int_equal(entry(&pr, "messages A:101->C:301"), 1);
    assert_int_equal(pr.length, 70);
    assert_int_equal(pr.elapsed, 70);
    check_100(&pr);
    ips2_cpa_profile_free(&pr);

    assert_int_equal(ips2_cpa_profile(&path, m, n, &q, IPS2_CPA_LEVEL_MACHINE, NULL,
                                      IPS2_CPA_RUN_START, IPS2_CPA_RUN_END, &pr, err, sizeof err),
                     0);
    assert_int_equal(entry(&pr, "m1"), 50);
    assert_int_equal(entry(&pr, "m0"), 17);
    assert_int_equal(entry(&pr, "messages m0->m1"), 2);
    assert_int_equal(entry(&pr, "messages m0->m0"), 1);
    check_100(&pr);
    ips2_cpa_profile_free(&pr);

    assert_int_equal(ips2_cpa_profile(&path, m, n, &q, IPS2_CPA_LEVEL_PROCEDURE, NULL,
                                      IPS2_CPA_RUN_START, IPS2_CPA_RUN_END, &pr, err, sizeof err),
                     0);
    assert_int_equal(entry(&pr, "work"), 20);
    assert_int_equal(entry(&pr, "serve"), 10);
    assert_int_equal(entry(&pr, "(no procedure)"), 37);
    check_100(&pr);
    ips2_cpa_profile_free(&pr);

    /* By node: "(no procedure)" once per thread it ran on (A, C, B: 5,
     * 12, 20), each entry naming its own thread; still 100%. */
    struct ips2_cpa_filter byn = {.by_node = 1};
    assert_int_equal(ips2_cpa_profile(&path, m, n, &q, IPS2_CPA_LEVEL_PROCEDURE, &byn,
                                      IPS2_CPA_RUN_START, IPS2_CPA_RUN_END, &pr, err, sizeof err),
                     0);
    int64_t nop[3] = {0, 0, 0};
    size_t nnop = 0;
    for (size_t i = 0; i < pr.n; i++)
        if (strcmp(pr.entries[i].name, "(no procedure)") == 0) {
            assert_true(nnop < 3);
            for (size_t j = 0; j < nnop; j++)
                assert_false(pr.entries[i].part == pr.entries[j].part &&
                             pr.entries[i].thread == pr.entries[j].thread);
            nop[nnop++] = pr.entries[i].ns;
        }
    assert_int_equal(nnop, 3);
    assert_int_equal(nop[0] + nop[1] + nop[2], 37);
    assert_int_equal(nop[0], 20);
    assert_int_equal(nop[1], 12);
    assert_int_equal(nop[2], 5);
    assert_int_equal(entry(&pr, "work"), 20);
    check_100(&pr);
    ips2_cpa_profile_free(&pr);

    /* Under the node app:B: B's work and the messages into it. */
    struct ips2_cpa_filter f = {.app = "B"};
    assert_int_equal(ips2_cpa_profile(&path, m, n, &q, IPS2_CPA_LEVEL_THREAD, &f,
                                      IPS2_CPA_RUN_START, IPS2_CPA_RUN_END, &pr, err, sizeof err),
                     0);
    assert_int_equal(pr.n, 2);
    assert_int_equal(entry(&pr, "B:201[201]"), 50);
    assert_int_equal(entry(&pr, "messages C:301[301]->B:201[201]"), 2);
    ips2_cpa_profile_free(&pr);

    /* Phase [0, 20): everything up to B's receive = 20.  [30, 60): half
     * of B's 20..40, 40..50 whole, half of 50..70 = 30; elapsed 30. */
    assert_int_equal(ips2_cpa_profile(&path, m, n, &q, IPS2_CPA_LEVEL_PROCESS, NULL, 0, 20, &pr,
                                      err, sizeof err),
                     0);
    assert_int_equal(pr.length, 20);
    assert_int_equal(entry(&pr, "B:201"), -1);
    assert_int_equal(entry(&pr, "C:301"), 12);
    check_100(&pr);
    ips2_cpa_profile_free(&pr);
    assert_int_equal(ips2_cpa_profile(&path, m, n, &q, IPS2_CPA_LEVEL_PROCESS, NULL, 30, 60, &pr,
                                      err, sizeof err),
                     0);
    assert_int_equal(pr.length, 30);
    assert_int_equal(pr.elapsed, 30);
    assert_int_equal(entry(&pr, "B:201"), 30);
    ips2_cpa_profile_free(&pr);

    /* Imbalance, averaged over the threads that ran the procedure: no
     * procedure: 5 + 12 + 20 = 37 on the path, (30 + 23 + 40 + 39) / 4 = 33
     * on average: 4.  work (20) and serve (10) ran in one thread each, all
     * of it on the path: their average is their path time, no imbalance. */
    struct ips2_cpa_imbalance *im;
    size_t nim;
    assert_int_equal(ips2_cpa_imbalance(&path, m, n, &q, NULL, IPS2_CPA_RUN_START, IPS2_CPA_RUN_END,
                                        &im, &nim, err, sizeof err),
                     0);
    assert_int_equal(nim, 3);
    assert_string_equal(im[0].proc, "(no procedure)");
    assert_int_equal(im[0].cp, 37);
    assert_int_equal(im[0].avg, 33);
    assert_int_equal(im[0].imbalance, 4);
    assert_string_equal(im[1].proc, "serve");
    assert_int_equal(im[1].cp, 10);
    assert_int_equal(im[1].avg, 10);
    assert_int_equal(im[1].imbalance, 0);
    assert_string_equal(im[2].proc, "work");
    assert_int_equal(im[2].cp, 20);
    assert_int_equal(im[2].avg, 20);
    assert_int_equal(im[2].imbalance, 0);
    ips2_cpa_imbalance_free(im, nim);

    ips2_cpa_path_free(&path);
    ips2_cpa_meta_free(m[0]);
    ips2_cpa_meta_free(m[1]);
    ips2_cpa_parts_free(p, n);
}

/* Broken graphs: errors with a message, never a hang or a crash. */
static void test_broken(void **state)
{
    (void)state;
    struct ips2_pag **p;
    size_t n = fig4(&p);
    struct ips2_cpa_path path;
    struct ips2_cpa_query q = {0};
    /* A cycle: A1's node 1 waits for a message from its own later node 3. */
    arc(p, 0, 3, 0, 1, 0);
    assert_int_equal(ips2_cpa_oracle(p, n, &q, &path, err, sizeof err), -1);
    assert_non_null(strstr(err, "cycle"));
    assert_int_equal(ips2_cpa_inproc(p, n, &q, 3, &path, err, sizeof err), -1);
    assert_non_null(strstr(err, "part m0: "));
    assert_non_null(strstr(err, "process 101"));
    ips2_cpa_parts_free(p, n);

    /* An arc whose source part never sends (no out for it). */
    n = fig4(&p);
    p[1]->arcs[p[1]->narcs++] =
        (struct ips2_pag_arc){IPS2_PAG_GID(0, 8), 3, IPS2_PAG_ARC_MESSAGE, 0, 0};
    assert_int_equal(ips2_cpa_inproc(p, n, &q, 3, &path, err, sizeof err), -1);
    assert_non_null(strstr(err, "part m1: "));
    p[1]->narcs--;

    /* A batch for an arc the part does not have. */
    struct ips2_cpa_worker *w;
    assert_int_equal(ips2_cpa_worker_new(p[1], 2, &q, &w, err, sizeof err), 0);
    struct ips2_cpa_value v = {IPS2_PAG_GID(0, 3), 2, IPS2_CPA_REACHED, 5};
    struct ips2_cpa_batch b = {0, 1, &v, 1, 1};
    assert_int_equal(ips2_cpa_worker_deliver(w, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "does not have"));
    b.to_part = 0;
    assert_int_equal(ips2_cpa_worker_deliver(w, &b, err, sizeof err), -1);
    ips2_cpa_worker_free(w);
    /* A part whose arcs are out of order. */
    struct ips2_pag_arc t = p[1]->arcs[0];
    p[1]->arcs[0] = p[1]->arcs[p[1]->narcs - 1];
    p[1]->arcs[p[1]->narcs - 1] = t;
    assert_int_equal(ips2_cpa_oracle(p, n, &q, &path, err, sizeof err), -1);
    assert_non_null(strstr(err, "out of order"));
    ips2_cpa_parts_free(p, n);
}

/* An arc whose source ended after its destination (weight 0, ips2_pag.h
 * allows it): A2@60 -> C1@55.  inter C: B n7 = 45, A2 n2 = 47, n3 = 55,
 * C1 n8 = max(50, 55 + 0) = 55; its segment has begin = end = 55, and the
 * path survives its wire format. */
static void test_backward_arc(void **state)
{
    (void)state;
    struct ips2_pag **p;
    size_t n = fig4(&p);
    arc(p, 1, 3, 0, 8, 0);
    struct ips2_cpa_path path, back;
    struct ips2_cpa_query q = {IPS2_CPA_INTER, "C", NULL, 0, 0, 0, NULL};
    both(p, n, &q, &path);
    assert_int_equal(path.length, 55);
    const struct ips2_cpa_segment *last = &path.segs[path.nsegs - 1];
    assert_int_equal(last->from, IPS2_PAG_GID(1, 3));
    assert_int_equal(last->begin, 55);
    assert_int_equal(last->end, 55);
    /* the profile lists the crossing, at 0 ns; a phase before it does not */
    struct ips2_cpa_meta *m[2];
    metas_of(p, n, m);
    struct ips2_cpa_profile pr;
    const int64_t phases[4][2] = {
        {IPS2_CPA_RUN_START, IPS2_CPA_RUN_END}, {55, 60}, {0, 50}, {0, 55}};
    for (int ph = 0; ph < 4; ph++) {
        assert_int_equal(ips2_cpa_profile(&path, m, n, &q, IPS2_CPA_LEVEL_PROCESS, NULL,
                                          phases[ph][0], phases[ph][1], &pr, err, sizeof err),
                         0);
        int zero_delays = 0;
        for (size_t i = 0; i < pr.n; i++)
            zero_delays += pr.entries[i].kind == IPS2_CPA_ENTRY_DELAY && pr.entries[i].ns == 0 &&
                           strstr(pr.entries[i].name, "->C:") != NULL;
        assert_int_equal(zero_delays, ph < 2 ? 1 : 0); /* at 55: in [55, 60), not in [0, 55) */
        ips2_cpa_profile_free(&pr);
    }
    for (size_t k = 0; k < n; k++)
        ips2_cpa_meta_free(m[k]);
    void *data;
    size_t size;
    assert_int_equal(ips2_cpa_path_encode(&path, &data, &size, err, sizeof err), 0);
    assert_int_equal(ips2_cpa_path_decode(data, size, "p", &back, err, sizeof err), 0);
    assert_int_equal(back.nsegs, path.nsegs);
    free(data);
    ips2_cpa_path_free(&back);
    ips2_cpa_path_free(&path);
    ips2_cpa_parts_free(p, n);
}

/* Weights a damaged or crafted part may carry (B1): CPU and local arcs
 * longer than the wall time they span are refused by the part check,
 * naming part, thread and node; a cross arc (which no part alone can
 * bound) that would overflow a path length is a named error of the
 * diffusion, in the oracle and in the driver, never a wrapped length. */
static void test_overlong_weights(void **state)
{
    (void)state;
    struct ips2_cpa_path path;
    struct ips2_cpa_query q = {0};
    struct ips2_pag **p;

    /* CPU of INT64_MAX ns on arcs of 1 ns of wall time */
    p = calloc(2, sizeof *p);
    assert_non_null(p);
    p[0] = part_new(0, "m0");
    int64_t w1[] = {0, 1, 2}, c1[] = {0, INT64_MAX, INT64_MAX};
    thread(p[0], "A", 101, 3, w1, c1, NULL, -1, NULL);
    assert_int_equal(ips2_cpa_oracle(p, 1, &q, &path, err, sizeof err), -1);
    assert_non_null(strstr(err, "part m0: thread 0 (process 101, thread 101): node 1: CPU weight"));
    assert_int_equal(ips2_cpa_inproc(p, 1, &q, 2, &path, err, sizeof err), -1);
    assert_non_null(strstr(err, "node 1: CPU weight"));
    ips2_cpa_parts_free(p, 1);

    /* walls going back */
    p = calloc(2, sizeof *p);
    assert_non_null(p);
    p[0] = part_new(0, "m0");
    int64_t w2[] = {0, 10, 5}, c2[] = {0, 1, 1};
    thread(p[0], "A", 101, 3, w2, c2, NULL, -1, NULL);
    assert_int_equal(ips2_cpa_oracle(p, 1, &q, &path, err, sizeof err), -1);
    assert_non_null(strstr(err, "node 2: wall 5 before"));
    ips2_cpa_parts_free(p, 1);

    /* a thread from INT64_MIN to INT64_MAX: each arc fits, the span does not */
    p = calloc(2, sizeof *p);
    assert_non_null(p);
    p[0] = part_new(0, "m0");
    int64_t w3[] = {INT64_MIN, 0, INT64_MAX}, c3[] = {0, INT64_MAX, INT64_MAX};
    thread(p[0], "A", 101, 3, w3, c3, NULL, -1, NULL);
    assert_int_equal(ips2_cpa_oracle(p, 1, &q, &path, err, sizeof err), -1);
    assert_non_null(strstr(err, "spans more than"));
    ips2_cpa_parts_free(p, 1);

    /* a local arc longer than its wall span (and one running backwards
     * with a weight) */
    p = calloc(2, sizeof *p);
    assert_non_null(p);
    p[0] = part_new(0, "m0");
    int64_t w4[] = {0, 10, 20}, c4[] = {0, 5, 5}, w5[] = {0, 12, 30}, c5[] = {0, 2, 3};
    thread(p[0], "A", 101, 3, w4, c4, NULL, -1, NULL);
    thread(p[0], "A", 102, 3, w5, c5, NULL, -1, NULL);
    arc(p, 0, 1, 0, 4, 21); /* node 1 @10 -> node 4 @12: at most 2 */
    assert_int_equal(ips2_cpa_oracle(p, 1, &q, &path, err, sizeof err), -1);
    assert_non_null(strstr(err, "from node 1 (thread 0 (process 101, thread 101)) to node 4: "
                                "weight 21, more than the 2 ns"));
    p[0]->arcs[0].weight = 2;
    assert_int_equal(ips2_cpa_oracle(p, 1, &q, &path, err, sizeof err), 0);
    assert_int_equal(path.length, 10); /* 5 + 2 + 3 via the arc; 5 + 5 in thread 0 */
    ips2_cpa_path_free(&path);
    arc(p, 0, 5, 0, 1, 1); /* node 5 @30 -> node 1 @10 */
    assert_int_equal(ips2_cpa_oracle(p, 1, &q, &path, err, sizeof err), -1);
    assert_non_null(strstr(err, "weight 1, more than the 0 ns"));
    ips2_cpa_parts_free(p, 1);

    /* every weight within its wall span, the sum past int64: thread 0 from
     * INT64_MIN + 1 to -1, a 1 ns arc to thread 1 at 0, thread 1 to
     * INT64_MAX */
    p = calloc(2, sizeof *p);
    assert_non_null(p);
    p[0] = part_new(0, "m0");
    int64_t w8[] = {INT64_MIN + 1, -1}, c8[] = {0, INT64_MAX - 1}, w9[] = {0, INT64_MAX},
            c9[] = {0, INT64_MAX};
    thread(p[0], "A", 101, 2, w8, c8, NULL, -1, NULL);
    thread(p[0], "A", 102, 2, w9, c9, NULL, -1, NULL);
    arc(p, 0, 1, 0, 2, 1);
    assert_int_equal(ips2_cpa_oracle(p, 1, &q, &path, err, sizeof err), -1);
    assert_non_null(strstr(err, "part m0: node 3 (process 102, thread 102): the path length "
                                "overflows (9223372036854775807 ns + an arc of "
                                "9223372036854775807 ns)"));
    assert_int_equal(ips2_cpa_inproc(p, 1, &q, 1, &path, err, sizeof err), -1);
    assert_non_null(strstr(err, "part m0: node 3 (process 102, thread 102): the path length "
                                "overflows"));
    ips2_cpa_parts_free(p, 1);

    /* a cross arc of INT64_MAX ns: the check cannot bound it, the sum
     * overflows */
    p = calloc(2, sizeof *p);
    assert_non_null(p);
    p[0] = part_new(0, "m0");
    p[1] = part_new(1, "m1");
    int64_t w6[] = {0, 10}, c6[] = {0, 10}, w7[] = {0, 20, 30}, c7[] = {0, 5, 5};
    thread(p[0], "A", 101, 2, w6, c6, NULL, -1, NULL);
    thread(p[1], "A", 201, 3, w7, c7, NULL, -1, NULL);
    arc(p, 0, 1, 1, 1, INT64_MAX);
    assert_int_equal(ips2_cpa_oracle(p, 2, &q, &path, err, sizeof err), -1);
    assert_non_null(strstr(err, "part m1: node 1 (process 201, thread 201): the path length "
                                "overflows (10 ns + an arc of 9223372036854775807 ns)"));
    /* the driver's receiving worker refuses the value before adding */
    assert_int_equal(ips2_cpa_inproc(p, 2, &q, 2, &path, err, sizeof err), -1);
    assert_non_null(strstr(err, "part m1: batch from part 0: value 0: length 10"));
    ips2_cpa_parts_free(p, 2);
}

/* A path with many shares (a server's) travels with them compressed
 * ("CPP2"): the same path back, share for share, in far fewer bytes than
 * the plain layout's 16 a share; a damaged frame is a named error, not a
 * path. */
static void test_path_wire_packed(void **state)
{
    (void)state;
    enum { NSEG = 300, PER = 40 };
    struct ips2_cpa_path path, back;
    ips2_cpa_path_init(&path);
    path.segs = calloc(NSEG, sizeof *path.segs);
    path.shares = calloc(NSEG * PER, sizeof *path.shares);
    assert_non_null(path.segs);
    assert_non_null(path.shares);
    path.length = 12345;
    path.found = 1;
    for (uint32_t i = 0; i < NSEG; i++) {
        path.segs[i] = (struct ips2_cpa_segment){.kind = IPS2_CPA_SEG_CPU,
                                                 .first_share = i * PER,
                                                 .nshares = PER,
                                                 .begin = i,
                                                 .end = i + 1,
                                                 .length = 1};
        for (uint32_t j = 0; j < PER; j++)
            path.shares[i * PER + j] = (struct ips2_cpa_share){j * 3 + i % 7, 0, 1000 + i * j};
    }
    path.nsegs = path.segcap = NSEG;
    path.nshares = path.sharecap = NSEG * PER;
    void *data;
    size_t size;
    assert_int_equal(ips2_cpa_path_encode(&path, &data, &size, err, sizeof err), 0);
    assert_memory_equal(data, "CPP2", 4);
    assert_true(size < (size_t)NSEG * 68 + (size_t)NSEG * PER * 16 / 4);
    assert_int_equal(ips2_cpa_path_decode(data, size, "p", &back, err, sizeof err), 0);
    assert_int_equal(back.nshares, path.nshares);
    assert_int_equal(back.nsegs, path.nsegs);
    assert_int_equal(back.length, 12345);
    assert_memory_equal(back.shares, path.shares, path.nshares * sizeof *path.shares);
    for (size_t i = 0; i < NSEG; i++) {
        assert_int_equal(back.segs[i].first_share, path.segs[i].first_share);
        assert_int_equal(back.segs[i].nshares, PER);
        assert_int_equal(back.segs[i].end, path.segs[i].end);
    }
    ips2_cpa_path_free(&back);
    /* a byte inside the frame: zstd's checksum or its decoding says so */
    ((uint8_t *)data)[size - 20] ^= 0x5a;
    assert_int_equal(ips2_cpa_path_decode(data, size, "p", &back, err, sizeof err), -1);
    assert_non_null(strstr(err, "p: byte "));
    free(data);
    ips2_cpa_path_free(&path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fig4_modes),
        cmocka_unit_test(test_fig4_zeroing),
        cmocka_unit_test(test_fig4_profiles),
        cmocka_unit_test(test_shared_name_two_programs),
        cmocka_unit_test(test_broken),
        cmocka_unit_test(test_backward_arc),
        cmocka_unit_test(test_overlong_weights),
        cmocka_unit_test(test_zero_set),
        cmocka_unit_test(test_path_append_moves),
        cmocka_unit_test(test_path_wire_packed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
