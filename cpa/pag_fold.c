/*
 * pag_fold.c - folding a built part (cpa/PAG.md §5): a node that no arc,
 * out or end names and that is neither its thread's first nor its last
 * node only cuts its thread's CPU arc in two.  It is folded into the
 * thread's next node: the two CPU arcs become one whose weight is their
 * sum and whose shares are both arcs' shares (time that no share named,
 * given by the engine to the procedure on top at an arc's start, is named
 * explicitly when the arcs are merged), the next node keeps its own `proc`.
 *
 * A node with in-degree one and out-degree one contracts without changing
 * any path's length, so longest paths, their CPU per procedure and per
 * thread and every arc's weight stay what they were; only the path's list
 * of CPU segments gets shorter.  An arc whose shares do not add up to its
 * weight (the engine would scale them) is never merged: both its nodes stay.
 *
 * Folding streams the shares: the builder keeps them compressed as they
 * were made (node order, each thread's procedures as its local indices),
 * and folding reads them once, names them, merges the arcs of the nodes
 * that go and compresses what stays into the part's shares.  A merged
 * arc's shares are consecutive ranges of its thread's, so no more than one
 * arc's and the pending merge's are ever in memory.
 */
#include <stdlib.h>
#include <string.h>

#include "pag_build.h"
#include "pag_internal.h"

#define KEEP     1u
#define FOLDED   UINT32_MAX
#define PEND_MAX 32 /* procedures in one merged arc: past this the node stays */

/* The CPU arcs merged so far into the next kept node of one thread. */
struct pending {
    size_t narcs;
    int64_t cpu;
    struct ips2_pag_share *f; /* the first arc's shares (put as they are if it stays alone) */
    size_t nf, capf;
    uint32_t impl;            /* the first arc's procedure on top at its start */
    int64_t first_w;          /* the first arc's weight */
    struct ips2_pag_share *v; /* the merged arcs' shares, one per procedure */
    size_t n, cap;
};

/* Where folding stands in its input and output. */
struct fold_io {
    const struct pag_fold_in *in;
    struct pag_zbuf *out;
    uint64_t in_at;  /* input shares read */
    uint64_t out_at; /* output shares written */
};

static uint32_t proc_or_none(const struct ips2_pag *p, uint32_t proc)
{
    return proc < p->nstrings ? proc : IPS2_PAG_NONE;
}

static bool pend_add(struct pending *pd, uint32_t proc, int64_t cpu)
{
    struct ips2_pag_share *s;

    for (size_t i = 0; i < pd->n; i++)
        if (pd->v[i].proc == proc) {
            pd->v[i].cpu += cpu;
            return true;
        }
    if (!(s = PAG_PUSH(pd->v, pd->n, pd->cap)))
        return false;
    s->proc = proc;
    s->reserved = 0;
    s->cpu = cpu;
    return true;
}

/* Adds an arc's shares as the engine reads them (impl: the procedure on
 * top at the arc's start, which gets the time no share names). */
static bool pend_expand(struct pending *pd, const struct ips2_pag_share *sh, size_t n, int64_t w,
                        uint32_t impl)
{
    bool named = false;

    if (w <= 0)
        return true;
    for (size_t i = 0; i < n; i++)
        if (sh[i].cpu > 0) {
            if (!pend_add(pd, sh[i].proc, sh[i].cpu))
                return false;
            named = true;
        }
    return named || pend_add(pd, impl, w);
}

/* Marks what must stay; false if the part is not as the builder makes it
 * (then it is left alone). */
static bool mark(const struct ips2_pag *p, bool keep_messages, const uint8_t *inexact,
                 uint32_t *map)
{
    size_t next = 0;

    for (size_t t = 0; t < p->nthreads; t++) {
        const struct ips2_pag_thread *th = &p->threads[t];
        if (th->first != next || th->count > p->nnodes - next)
            return false;
        next += th->count;
        if (th->count) {
            map[th->first] = map[th->first + th->count - 1] = KEEP;
            for (uint32_t i = th->first + 1; i < th->first + th->count; i++)
                if (p->nodes[i].shares < p->nodes[i - 1].shares || p->nodes[i].shares > p->nshares)
                    return false;
        }
        /* an arc whose shares the engine would scale */
        for (uint32_t i = th->first + 1; i < th->first + th->count; i++)
            if (inexact && inexact[i / 8] >> (i % 8) & 1)
                map[i - 1] = map[i] = KEEP;
    }
    if (next != p->nnodes)
        return false;
    for (size_t i = 0; i < p->narcs; i++) {
        const struct ips2_pag_arc *a = &p->arcs[i];
        if (a->to >= p->nnodes)
            return false;
        map[a->to] = KEEP;
        if (IPS2_PAG_GID_PART(a->from) == p->part) {
            if (IPS2_PAG_GID_NODE(a->from) >= p->nnodes)
                return false;
            map[IPS2_PAG_GID_NODE(a->from)] = KEEP;
        }
    }
    for (size_t i = 0; i < p->nouts; i++) {
        if (p->outs[i].from >= p->nnodes)
            return false;
        map[p->outs[i].from] = KEEP;
    }
    for (size_t i = 0; i < p->nends; i++) {
        const struct ips2_pag_end *e = &p->ends[i];
        if (e->node >= p->nnodes)
            return false;
        map[e->node] = KEEP;
        if (e->role == IPS2_PAG_ROLE_PVM_BARRIER && e->key[2] < p->nnodes)
            map[e->key[2]] = KEEP; /* the node its release will leave from */
    }
    for (size_t i = 0; keep_messages && i < p->nnodes; i++)
        if (pag_message_kind(p->nodes[i].kind))
            map[i] = KEEP;
    return true;
}

/* The next n input shares (node order) of thread t, named as the part
 * names them; NULL on error (err is the reader's). */
static struct ips2_pag_share *input(struct fold_io *io, uint32_t t, size_t n)
{
    const struct pag_fold_in *in = io->in;
    struct ips2_pag_share *sh = pag_zread_next(in->shares, n);

    if (!sh)
        return NULL;
    io->in_at += n;
    if (in->names) {
        const uint32_t *m = in->names + in->name_at[t];
        uint32_t mn = in->name_n[t];
        for (size_t i = 0; i < n; i++)
            sh[i].proc = sh[i].proc < mn ? m[sh[i].proc] : IPS2_PAG_NONE;
    }
    return sh;
}

static bool output(struct fold_io *io, const struct ips2_pag_share *s, size_t n)
{
    io->out_at += n;
    return pag_zbuf_put(io->out, s, n);
}

/* Folds one thread's nodes (in place: new indices are never above old
 * ones) and writes its shares; next: the next new node index. */
static bool fold_thread(struct ips2_pag *p, uint32_t t, uint32_t *map, struct fold_io *io,
                        struct pending *pd_, uint32_t *next)
{
    struct ips2_pag_thread *th = &p->threads[t];
    struct pending pd = *pd_;
    bool ok = false;
    uint32_t first = th->first, count = th->count, j = *next;
    uint32_t prev_proc = IPS2_PAG_NONE, kept_proc = IPS2_PAG_NONE;

    th->first = j;
    pd.narcs = 0;
    for (uint32_t i = first; i < first + count; i++) {
        struct ips2_pag_node nd = p->nodes[i];
        size_t cnt = nd.shares - io->in_at;
        struct ips2_pag_share *cur = NULL;

        if (nd.shares < io->in_at || (cnt && !(cur = input(io, t, cnt))))
            goto out;
        if (i == first) { /* no CPU arc into it (the builder gives it no shares) */
            if (cnt && !output(io, cur, cnt))
                goto out;
            nd.shares = (uint32_t)io->out_at;
            p->nodes[j] = nd;
            map[i] = j++;
            prev_proc = kept_proc = nd.proc;
            continue;
        }
        uint32_t impl = proc_or_none(p, prev_proc);
        prev_proc = nd.proc;
        if (pd.narcs == 0) {
            pd.narcs = 1;
            pd.cpu = nd.cpu;
            pd.nf = 0;
            if (cnt > pd.capf) {
                size_t cap = cnt > 64 ? cnt : 64;
                struct ips2_pag_share *f = realloc(pd.f, cap * sizeof *f);
                if (!f)
                    goto out;
                pd.f = f;
                pd.capf = cap;
            }
            if (cnt)
                memcpy(pd.f, cur, cnt * sizeof *cur);
            pd.nf = cnt;
            pd.impl = impl;
            pd.first_w = nd.cpu;
            pd.n = 0;
        } else {
            if ((pd.narcs == 1 && !pend_expand(&pd, pd.f, pd.nf, pd.first_w, pd.impl)) ||
                !pend_expand(&pd, cur, cnt, nd.cpu, impl))
                goto out;
            pd.narcs++;
            pd.cpu += nd.cpu;
        }
        if (map[i] != KEEP && pd.n < PEND_MAX && i + 1 < first + count) {
            map[i] = FOLDED;
            continue;
        }
        /* the node stays: its CPU arc is what was pending */
        if (pd.narcs == 1) {
            if (pd.nf && !output(io, pd.f, pd.nf))
                goto out;
        } else {
            uint32_t start = proc_or_none(p, kept_proc);
            size_t m = 0;
            for (size_t s = 0; s < pd.n; s++)
                if (pd.v[s].cpu > 0)
                    pd.v[m++] = pd.v[s];
            /* the engine gives unnamed time to the procedure on top at the
             * arc's start: one share that is all of it and names that one
             * is left out, as the builder does */
            if (m == 1 && pd.v[0].proc == start && pd.v[0].cpu == pd.cpu)
                m = 0;
            if (m && !output(io, pd.v, m))
                goto out;
        }
        if (io->out_at > UINT32_MAX)
            goto out;
        nd.cpu = pd.cpu;
        nd.shares = (uint32_t)io->out_at;
        p->nodes[j] = nd;
        map[i] = j++;
        kept_proc = nd.proc;
        pd.narcs = 0;
    }
    th->count = j - th->first;
    *next = j;
    ok = true;
out:
    *pd_ = pd; /* its buffers, for the next thread */
    return ok;
}

static void renumber(struct ips2_pag *p, const uint32_t *map)
{
    for (size_t i = 0; i < p->narcs; i++) {
        struct ips2_pag_arc *a = &p->arcs[i];
        a->to = map[a->to];
        if (IPS2_PAG_GID_PART(a->from) == p->part)
            a->from = IPS2_PAG_GID(p->part, map[IPS2_PAG_GID_NODE(a->from)]);
    }
    for (size_t i = 0; i < p->nouts; i++)
        p->outs[i].from = map[p->outs[i].from];
    for (size_t i = 0; i < p->nends; i++) {
        struct ips2_pag_end *e = &p->ends[i];
        if (e->role == IPS2_PAG_ROLE_PVM_BARRIER && e->key[2] < p->nnodes)
            e->key[2] = map[e->key[2]];
        e->node = map[e->node];
    }
}

bool pag_fold(struct ips2_pag *p, bool fold, bool keep_messages, const struct pag_fold_in *in,
              struct pag_zbuf *out, size_t *folded)
{
    struct fold_io io = {in, out, 0, 0};
    struct pending pd = {0};
    uint32_t *map;
    uint32_t next = 0;
    size_t before = p->nnodes;
    bool ok = true;

    *folded = 0;
    if (!(map = calloc(p->nnodes ? p->nnodes : 1, sizeof(*map))))
        return false;
    if (!fold || !mark(p, keep_messages, in->inexact, map))
        for (size_t i = 0; i < p->nnodes; i++) /* every node stays: shares as they are */
            map[i] = KEEP;
    for (uint32_t t = 0; ok && t < p->nthreads; t++)
        ok = fold_thread(p, t, map, &io, &pd, &next);
    /* out of memory half way: the nodes are already moved, the caller
     * throws the part away */
    if (ok && io.in_at != p->nshares)
        ok = false;
    if (ok) {
        renumber(p, map);
        p->nshares = io.out_at;
        p->nnodes = next;
        struct ips2_pag_node *v = realloc(p->nodes, (next ? next : 1) * sizeof(*v));
        if (v)
            p->nodes = v;
        *folded = before - next;
    }
    free(map);
    free(pd.v);
    free(pd.f);
    return ok;
}
