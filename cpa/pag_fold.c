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
    uint32_t a, b;            /* the first arc's shares (copied as they are if it stays alone) */
    uint32_t impl;            /* the first arc's procedure on top at its start */
    int64_t first_w;          /* the first arc's weight */
    struct ips2_pag_share *v; /* the merged arcs' shares, one per procedure */
    size_t n, cap;
};

static uint32_t proc_or_none(const struct ips2_pag *p, uint32_t proc)
{
    return proc < p->nstrings ? proc : IPS2_PAG_NONE;
}

/* Whether the engine takes the arc's shares as they are (cpa_emit_cpu): no
 * positive share, or positive shares adding up to its weight. */
static bool exact(const struct ips2_pag *p, uint32_t a, uint32_t b, int64_t w)
{
    __int128 sum = 0;
    size_t n = 0;

    for (uint32_t i = a; i < b; i++)
        if (p->shares[i].cpu > 0) {
            sum += p->shares[i].cpu;
            n++;
        }
    return n == 0 || w <= 0 || sum == w;
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
static bool pend_expand(struct pending *pd, const struct ips2_pag *p, uint32_t a, uint32_t b,
                        int64_t w, uint32_t impl)
{
    bool named = false;

    if (w <= 0)
        return true;
    for (uint32_t i = a; i < b; i++)
        if (p->shares[i].cpu > 0) {
            if (!pend_add(pd, p->shares[i].proc, p->shares[i].cpu))
                return false;
            named = true;
        }
    return named || pend_add(pd, impl, w);
}

/* The folded part's shares: written over the input (p->shares) while
 * they stay behind what is still to be read, which folding nearly always
 * keeps (a merged arc's shares are at most its arcs', but for the time
 * none named); a part whose output would overtake its input goes on in a
 * buffer of its own (v).  So folding a server's part, nearly all of it
 * shares, needs no second copy of them. */
struct out_shares {
    struct ips2_pag_share *in; /* the input, written over while v is NULL */
    struct ips2_pag_share *v;
    size_t n, cap;
};

/* Room for k more shares without overwriting the input before `unread`
 * (all of it before is read): in place while they fit, else from now on
 * in a buffer of its own. */
static bool out_room(struct out_shares *o, size_t k, size_t unread)
{
    if (o->v || o->n + k <= unread)
        return true;
    size_t cap = o->n + k + 1024;
    if (!(o->v = malloc(cap * sizeof(*o->v))))
        return false;
    if (o->n)
        memcpy(o->v, o->in, o->n * sizeof(*o->v));
    o->cap = cap;
    return true;
}

static bool put_share(struct out_shares *o, const struct ips2_pag_share *s)
{
    if (!o->v) { /* out_room made sure: never past what is still to be read */
        o->in[o->n++] = *s;
        return true;
    }
    struct ips2_pag_share *d = PAG_PUSH(o->v, o->n, o->cap);

    if (!d)
        return false;
    *d = *s;
    return true;
}

/* Marks what must stay; false if the part is not as the builder makes it
 * (then it is left alone). */
static bool mark(const struct ips2_pag *p, bool keep_messages, uint32_t *map)
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
        for (uint32_t i = th->first + 1; i < th->first + th->count; i++)
            if (!exact(p, p->nodes[i - 1].shares, p->nodes[i].shares, p->nodes[i].cpu))
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

/* Folds one thread's nodes (in place: new indices are never above old
 * ones) and writes its shares to o; next: the next new node index. */
static bool fold_thread(struct ips2_pag *p, struct ips2_pag_thread *th, uint32_t *map,
                        struct out_shares *o, struct pending *pd_, uint32_t *next)
{
    struct pending pd = *pd_;
    bool ok = false;
    uint32_t first = th->first, count = th->count, j = *next;
    uint32_t prev_end = 0, prev_proc = IPS2_PAG_NONE, kept_proc = IPS2_PAG_NONE;

    th->first = j;
    pd.narcs = 0;
    for (uint32_t i = first; i < first + count; i++) {
        struct ips2_pag_node nd = p->nodes[i];
        uint32_t a = prev_end, b = nd.shares;

        prev_end = nd.shares;
        if (i == first) {
            nd.shares = (uint32_t)o->n;
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
            pd.a = a;
            pd.b = b;
            pd.impl = impl;
            pd.first_w = nd.cpu;
            pd.n = 0;
        } else {
            if ((pd.narcs == 1 && !pend_expand(&pd, p, pd.a, pd.b, pd.first_w, pd.impl)) ||
                !pend_expand(&pd, p, a, b, nd.cpu, impl))
                goto out;
            pd.narcs++;
            pd.cpu += nd.cpu;
        }
        if (map[i] != KEEP && pd.n < PEND_MAX && i + 1 < first + count) {
            map[i] = FOLDED;
            continue;
        }
        /* the node stays: its CPU arc is what was pending (its input is
         * read, up to prev_end) */
        if (pd.narcs == 1) {
            if (!out_room(o, pd.b - pd.a, prev_end))
                goto out;
            for (uint32_t s = pd.a; s < pd.b; s++) /* forward: never ahead of s */
                if (!put_share(o, &p->shares[s]))
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
            if (!out_room(o, m, prev_end))
                goto out;
            for (size_t s = 0; s < m; s++)
                if (!put_share(o, &pd.v[s]))
                    goto out;
        }
        nd.cpu = pd.cpu;
        nd.shares = (uint32_t)o->n;
        p->nodes[j] = nd;
        map[i] = j++;
        kept_proc = nd.proc;
        pd.narcs = 0;
    }
    th->count = j - th->first;
    *next = j;
    ok = true;
out:
    *pd_ = pd; /* its buffer, for the next thread */
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

bool pag_fold(struct ips2_pag *p, bool keep_messages, size_t *folded)
{
    struct out_shares o = {p->shares, NULL, 0, 0};
    struct pending pd = {0};
    uint32_t *map;
    uint32_t next = 0;
    size_t before = p->nnodes;

    *folded = 0;
    if (p->nnodes == 0)
        return true;
    if (!(map = calloc(p->nnodes, sizeof(*map))))
        return false;
    if (!mark(p, keep_messages, map)) {
        free(map);
        return true; /* not a builder's part: nothing folded */
    }
    size_t keep = 0;
    while (keep < p->nnodes && map[keep] == KEEP)
        keep++;
    if (keep == p->nnodes) { /* every node stays (everything paired): as it is */
        free(map);
        return true;
    }
    for (size_t t = 0; t < p->nthreads; t++)
        if (!fold_thread(p, &p->threads[t], map, &o, &pd, &next)) {
            /* out of memory half way: the nodes are already moved, the
             * caller throws the part away */
            free(map);
            free(o.v);
            free(pd.v);
            return false;
        }
    renumber(p, map);
    free(map);
    free(pd.v);
    if (o.v) { /* the output left the input's place */
        free(p->shares);
        p->shares = o.v;
    }
    if (o.n && o.n < p->nshares) {
        struct ips2_pag_share *v = realloc(p->shares, o.n * sizeof(*v));
        if (v)
            p->shares = v;
    }
    p->nshares = o.n;
    p->nnodes = next;
    struct ips2_pag_node *v = realloc(p->nodes, (next ? next : 1) * sizeof(*v));
    if (v)
        p->nodes = v;
    *folded = before - next;
    return true;
}
