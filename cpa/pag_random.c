/*
 * pag_random.c - seeded random PAG parts for tests and benchmarks: several
 * machines, applications, processes and threads; each thread a chain of
 * nodes in increasing wall time with CPU weights no larger than the wall
 * between them and a few procedure shares; cross-thread arcs (same part,
 * other parts, other applications) always forward in wall time with
 * weights no larger than the wall they span.  So the graph is a valid PAG:
 * acyclic, and its longest path is never longer than the elapsed time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpa_internal.h"

void ips2_cpa_random_defaults(struct ips2_cpa_random_opts *o, uint64_t seed, uint64_t nodes)
{
    memset(o, 0, sizeof *o);
    o->seed = seed;
    o->parts = 2;
    o->apps = 2;
    o->processes = 2;
    o->threads = 2;
    o->nodes = nodes;
    o->cross = 0.2;
    o->cross_part = 0.3;
    o->cross_app = 0.3;
    o->procs = 5;
}

void ips2_cpa_parts_free(struct ips2_pag **parts, size_t n)
{
    if (!parts)
        return;
    for (size_t i = 0; i < n; i++)
        ips2_pag_free(parts[i]);
    free(parts);
}

static char *xstrdup(const char *s, int *bad)
{
    char *d = strdup(s);
    if (!d)
        *bad = 1;
    return d;
}

static int push_out(struct ips2_pag *p, size_t *cap, uint32_t from, uint64_t to)
{
    if (p->nouts == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        struct ips2_pag_out *n = realloc(p->outs, c * sizeof *n);
        if (!n)
            return -1;
        p->outs = n;
        *cap = c;
    }
    p->outs[p->nouts++] = (struct ips2_pag_out){from, 0, to};
    return 0;
}

/* Strings: 0..apps-1 application names, then procedure names, then the
 * executables (one per application). */
static int make_part(const struct ips2_cpa_random_opts *o, uint32_t k, uint64_t *seed,
                     uint64_t per_thread, struct ips2_pag **out)
{
    struct ips2_pag *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    *out = p;
    int bad = 0;
    char buf[64];
    p->part = k;
    snprintf(buf, sizeof buf, "m%u", k);
    p->machine = xstrdup(buf, &bad);
    p->trace_dir = xstrdup("random", &bad);
    p->nstrings = o->apps + o->procs + o->apps;
    p->strings = calloc(p->nstrings, sizeof *p->strings);
    p->napps = o->apps;
    p->apps = calloc(o->apps, sizeof *p->apps);
    p->nprocesses = o->processes;
    p->processes = calloc(o->processes, sizeof *p->processes);
    p->nthreads = (size_t)o->processes * o->threads;
    p->threads = calloc(p->nthreads, sizeof *p->threads);
    if (bad || !p->strings || !p->apps || !p->processes || !p->threads)
        return -1;
    for (uint32_t a = 0; a < o->apps; a++) {
        snprintf(buf, sizeof buf, "a%u", a);
        p->strings[a] = xstrdup(buf, &bad);
        snprintf(buf, sizeof buf, "/bin/a%u", a);
        p->strings[o->apps + o->procs + a] = xstrdup(buf, &bad);
        p->apps[a] = a;
    }
    for (uint32_t f = 0; f < o->procs; f++) {
        snprintf(buf, sizeof buf, "f%u", f);
        p->strings[o->apps + f] = xstrdup(buf, &bad);
    }
    if (bad)
        return -1;
    /* Thread sizes: per_thread +- 50%, at least 1. */
    uint64_t total = 0;
    for (uint32_t i = 0; i < o->processes; i++) {
        uint32_t app = (k * o->processes + i) % o->apps;
        p->processes[i] =
            (struct ips2_pag_process){app, (int32_t)(1000 + i), 0, o->apps + o->procs + app};
        for (uint32_t j = 0; j < o->threads; j++) {
            struct ips2_pag_thread *t = &p->threads[i * o->threads + j];
            t->process = i;
            t->tid = (int32_t)(1000 + i + j * 100000);
            uint64_t c = per_thread / 2 + 1 + cpa_rnd(seed) % (per_thread + 1);
            if (total + c >= UINT32_MAX / 2)
                return -1;
            t->first = (uint32_t)total;
            t->count = (uint32_t)c;
            total += c;
        }
    }
    p->nnodes = total;
    p->nodes = malloc((total ? total : 1) * sizeof *p->nodes);
    size_t sharecap = total + 16;
    p->shares = malloc(sharecap * sizeof *p->shares);
    if (!p->nodes || !p->shares)
        return -1;
    for (size_t t = 0; t < p->nthreads; t++) {
        const struct ips2_pag_thread *th = &p->threads[t];
        int64_t wall = (int64_t)(cpa_rnd(seed) % 5000);
        for (uint32_t j = 0; j < th->count; j++) {
            struct ips2_pag_node *nd = &p->nodes[th->first + j];
            uint64_t r = cpa_rnd(seed);
            int64_t dt = j ? (int64_t)(1 + r % 1000) : 0;
            wall += dt;
            int64_t cpu = j ? (int64_t)((r >> 16) % (uint64_t)(dt + 1)) : 0;
            /* 0..2 shares; their sum is cpu, or (1 in 8) a little off. */
            uint32_t ns = j ? (uint32_t)((r >> 40) % 3) : 0;
            if (p->nshares + ns + 1 > sharecap) {
                sharecap *= 2;
                struct ips2_pag_share *s2 = realloc(p->shares, sharecap * sizeof *s2);
                if (!s2)
                    return -1;
                p->shares = s2;
            }
            int64_t left = cpu;
            for (uint32_t s = 0; s < ns; s++) {
                uint64_t r2 = cpa_rnd(seed);
                int64_t c = s + 1 == ns ? left : (int64_t)(r2 % (uint64_t)(left + 1));
                if (s + 1 == ns && (r2 >> 20) % 8 == 0)
                    c += (int64_t)((r2 >> 24) % 50);
                left -= c < left ? c : left;
                uint32_t proc = (r2 >> 32) % 7 == 0 ? IPS2_PAG_NONE
                                                    : o->apps + (uint32_t)((r2 >> 8) % o->procs);
                p->shares[p->nshares++] = (struct ips2_pag_share){proc, 0, c};
            }
            *nd = (struct ips2_pag_node){
                .wall = wall,
                .cpu = cpu,
                .thread = (uint32_t)t,
                .shares = (uint32_t)p->nshares,
                .kind = j == 0               ? IPS2_PAG_BEGIN
                        : j + 1 == th->count ? IPS2_PAG_END
                                             : 1,
                .proc = o->apps + (uint32_t)((r >> 48) % o->procs),
            };
        }
    }
    return 0;
}

/* The latest node of thread t (of part p) before wall w, a few nodes back
 * at random; UINT32_MAX if none. */
static uint32_t source_before(const struct ips2_pag *p, uint32_t t, int64_t w, uint64_t r)
{
    const struct ips2_pag_thread *th = &p->threads[t];
    size_t lo = 0, hi = th->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->nodes[th->first + mid].wall < w)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return UINT32_MAX;
    size_t back = r % 4 == 0 ? r % lo : (r >> 8) % 3;
    if (back >= lo)
        back = lo - 1;
    return th->first + (uint32_t)(lo - 1 - back);
}

int ips2_cpa_random(const struct ips2_cpa_random_opts *o, struct ips2_pag ***parts, size_t *n,
                    char *err, size_t errlen)
{
    *parts = NULL;
    *n = 0;
    if (!o->parts || !o->apps || !o->processes || !o->threads || !o->procs || o->parts > 1000)
        return cpa_err(err, errlen, "random PAG: parts, apps, processes, threads, procs >= 1");
    uint64_t seed = o->seed;
    uint64_t nthreads = (uint64_t)o->parts * o->processes * o->threads;
    uint64_t per_thread = o->nodes / nthreads;
    if (per_thread < 2)
        per_thread = 2;
    struct ips2_pag **ps = calloc(o->parts, sizeof *ps);
    size_t *outcap = calloc(o->parts, sizeof *outcap);
    if (!ps || !outcap) {
        free(ps);
        free(outcap);
        return cpa_err(err, errlen, "out of memory");
    }
    for (uint32_t k = 0; k < o->parts; k++)
        if (make_part(o, k, &seed, per_thread, &ps[k]))
            goto oom;
    uint64_t cross_t = (uint64_t)(o->cross * 65536.0);
    uint64_t part_t = (uint64_t)(o->cross_part * 65536.0);
    uint64_t app_t = (uint64_t)(o->cross_app * 65536.0);
    for (uint32_t k = 0; k < o->parts; k++) {
        struct ips2_pag *p = ps[k];
        size_t cap = (size_t)((double)p->nnodes * o->cross) + 16;
        p->arcs = malloc(cap * sizeof *p->arcs);
        if (!p->arcs)
            goto oom;
        for (uint32_t m = 0; m < p->nnodes; m++) {
            uint64_t r = cpa_rnd(&seed);
            if ((r & 0xffff) >= cross_t)
                continue;
            uint32_t sk = ((r >> 16) & 0xffff) < part_t ? (uint32_t)((r >> 32) % o->parts) : k;
            const struct ips2_pag *sp = ps[sk];
            uint32_t dt = p->nodes[m].thread;
            uint32_t dapp = p->processes[p->threads[dt].process].app;
            uint64_t r2 = cpa_rnd(&seed);
            uint32_t st = (uint32_t)(r2 % sp->nthreads);
            /* Keep to the destination's application unless cross_app says
             * otherwise: try a few threads. */
            int other_app = ((r2 >> 40) & 0xffff) < app_t;
            for (int tries = 0;
                 tries < 8 && !other_app && sp->processes[sp->threads[st].process].app != dapp;
                 tries++)
                st = (uint32_t)((st + 1 + (r2 >> 16) % sp->nthreads) % sp->nthreads);
            if (sk == k && st == dt)
                continue;
            uint32_t src = source_before(sp, st, p->nodes[m].wall, cpa_rnd(&seed));
            if (src == UINT32_MAX)
                continue;
            int64_t span = p->nodes[m].wall - sp->nodes[src].wall;
            uint64_t r3 = cpa_rnd(&seed);
            int64_t wgt = r3 % 4 == 0 ? 0 : (int64_t)((r3 >> 8) % (uint64_t)(span + 1));
            if (p->narcs == cap) {
                cap *= 2;
                struct ips2_pag_arc *na = realloc(p->arcs, cap * sizeof *na);
                if (!na)
                    goto oom;
                p->arcs = na;
            }
            p->arcs[p->narcs++] = (struct ips2_pag_arc){IPS2_PAG_GID(sk, src), m,
                                                        (uint16_t)(1 + (r3 >> 40) % 4), 0, wgt};
            if (sk != k && push_out(ps[sk], &outcap[sk], src, IPS2_PAG_GID(k, m)))
                goto oom;
        }
    }
    free(outcap);
    *parts = ps;
    *n = o->parts;
    return 0;
oom:
    free(outcap);
    ips2_cpa_parts_free(ps, o->parts);
    return cpa_err(err, errlen, "random PAG: out of memory (or too many nodes for a part)");
}
