/*
 * pag_clocks.c - the message pass of ips2_pag_clocks.h.
 *
 * Constraints: a message from part a to part b whose send began at s (a's
 * clock) and whose receive ended at r (b's clock) asks c_b - c_a >= s - r
 * of the shifts c.  Per ordered pair of parts only the largest bound
 * matters.  These are difference constraints: relaxing them from c = 0
 * (Bellman-Ford, at most one round per part) gives the least non-negative
 * solution, which moves nothing when nothing runs backwards and moves a
 * part only as far as its worst pairing asks.  When they admit no
 * solution (a cycle of pairings that cannot all run forwards: a send's
 * time recorded at its call's return, as PVM's is, later than a quick
 * receive), every bound is eased by the least slack that makes them
 * feasible, found by bisection, and the pairings still backwards are
 * counted.  The shifts are then centred on their lower median, so that
 * most machines keep their times.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ips2_pag_clocks.h"
#include "pag_internal.h"

/* bounds beyond this (about 13 days) are clamped, and sets of more parts
 * are left alone, so that sums along the relaxation never overflow */
#define BOUND_MAX (INT64_C(1) << 50)
#define PARTS_MAX 4096

struct ref {
    uint64_t gid;
    uint16_t side, cls;
    int64_t wall, ws;
};

struct bound {
    uint32_t a, b;
    int64_t need;
};

static int cmp_ref(const void *x, const void *y)
{
    const struct ref *p = x, *q = y;
    if (p->gid != q->gid)
        return p->gid < q->gid ? -1 : 1;
    return (p->side > q->side) - (p->side < q->side);
}

static int cmp_bound(const void *x, const void *y)
{
    const struct bound *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    if (p->b != q->b)
        return p->b < q->b ? -1 : 1;
    return (p->need < q->need) - (p->need > q->need); /* largest first */
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t p = *(const int64_t *)x, q = *(const int64_t *)y;
    return (p > q) - (p < q);
}

static bool message_class(unsigned cls)
{
    return cls == PC_BYTES || cls == PC_DGRAM || cls == PC_PVM;
}

/* The item of node gid on side; a message's if the node has several. */
static const struct ref *find(const struct ref *v, size_t n, uint64_t gid, uint16_t side)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].gid < gid || (v[mid].gid == gid && v[mid].side < side))
            lo = mid + 1;
        else
            hi = mid;
    }
    const struct ref *got = NULL;
    for (size_t i = lo; i < n && v[i].gid == gid && v[i].side == side; i++)
        if (got == NULL || message_class(v[i].cls))
            got = &v[i];
    return got;
}

static int64_t clamp(int64_t x)
{
    return x > BOUND_MAX ? BOUND_MAX : x < -BOUND_MAX ? -BOUND_MAX : x;
}

/* Relaxes c_b >= c_a + need - slack from c = 0; true if it settles within
 * one round per part (no cycle that the slack leaves positive). */
static bool solve(const struct bound *v, size_t n, size_t nparts, int64_t slack, int64_t *c)
{
    memset(c, 0, nparts * sizeof *c);
    for (size_t round = 0; round <= nparts; round++) {
        bool changed = false;
        for (size_t i = 0; i < n; i++) {
            int64_t want = c[v[i].a] + v[i].need - slack;
            want = want > (INT64_C(1) << 61) ? INT64_C(1) << 61 : want; /* a cycle that grows */
            if (want > c[v[i].b]) {
                c[v[i].b] = want;
                changed = true;
            }
        }
        if (!changed)
            return true;
    }
    return false;
}

static uint32_t find_root(uint32_t *root, uint32_t p)
{
    while (root[p] != p)
        p = root[p] = root[root[p]];
    return p;
}

/* The least shifts that satisfy one connected set's bounds, or, when
 * none does, those of the least slack that makes them feasible. */
static void component(const struct bound *v, size_t n, size_t nparts, int64_t *c)
{
    if (solve(v, n, nparts, 0, c))
        return;
    int64_t lo = 0, hi = 0; /* the slack (ns): lo fails, hi holds */
    for (size_t i = 0; i < n; i++)
        hi = v[i].need > hi ? v[i].need : hi;
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (solve(v, n, nparts, mid, c))
            hi = mid;
        else
            lo = mid;
    }
    solve(v, n, nparts, hi, c);
}

bool pag_clock_pass(const struct pag_item *items, size_t nitems, struct pag_pairs *pairs,
                    size_t nparts, struct ips2_pag_clock *out)
{
    if (out != NULL)
        memset(out, 0, nparts * sizeof *out);
    size_t ncross = 0;
    for (size_t i = 0; i < pairs->n; i++)
        ncross += IPS2_PAG_GID_PART(pairs->v[i].from) != IPS2_PAG_GID_PART(pairs->v[i].to);
    if (ncross == 0 || nparts < 2 || nparts > PARTS_MAX)
        return true;

    struct ref *refs = malloc((nitems ? nitems : 1) * sizeof *refs);
    struct bound *bounds = malloc(ncross * sizeof *bounds);
    int64_t *c = calloc(nparts, sizeof *c), *used = calloc(nparts, sizeof *used);
    bool ok = refs != NULL && bounds != NULL && c != NULL && used != NULL;
    size_t nrefs = 0, nb = 0;
    for (size_t i = 0; ok && i < nitems; i++) {
        if (items[i].cls == PC_PVMTID)
            continue;
        refs[nrefs++] =
            (struct ref){items[i].gid, items[i].side, items[i].cls, items[i].wall, items[i].ws};
    }
    if (ok)
        qsort(refs, nrefs, sizeof *refs, cmp_ref);

    /* the bounds the message pairings between parts set */
    for (size_t i = 0; ok && i < pairs->n; i++) {
        const struct pag_pair *q = &pairs->v[i];
        uint32_t a = IPS2_PAG_GID_PART(q->from), b = IPS2_PAG_GID_PART(q->to);
        const struct ref *s = a != b ? find(refs, nrefs, q->from, PAG_SRC) : NULL;
        const struct ref *d = s != NULL ? find(refs, nrefs, q->to, PAG_DST) : NULL;
        if (d == NULL || s->cls != d->cls || !message_class(s->cls) || a >= nparts || b >= nparts)
            continue;
        bounds[nb++] = (struct bound){a, b, clamp(s->wall - d->wall)};
    }
    size_t nall = nb; /* every pairing's bound, for the counts */
    struct bound *all = ok && nb ? malloc(nb * sizeof *all) : NULL;
    ok = ok && (nb == 0 || all != NULL);
    if (ok && nb) {
        memcpy(all, bounds, nb * sizeof *all);
        qsort(bounds, nb, sizeof *bounds, cmp_bound);
        size_t k = 0;
        for (size_t i = 0; i < nb; i++)
            if (k == 0 || bounds[k - 1].a != bounds[i].a || bounds[k - 1].b != bounds[i].b)
                bounds[k++] = bounds[i];
        nb = k;
    }

    /* each set of parts that messages connect on its own: another set's
     * pairings neither move nor centre it (a replayed session's parts
     * keep the shifts they had in their own session) */
    uint32_t *root = ok && nb ? malloc(nparts * sizeof *root) : NULL;
    struct bound *sub = ok && nb ? malloc(nb * sizeof *sub) : NULL;
    int64_t *cc = ok && nb ? malloc(nparts * sizeof *cc) : NULL;
    ok = ok && (nb == 0 || (root != NULL && sub != NULL && cc != NULL));
    for (size_t p = 0; ok && nb && p < nparts; p++)
        root[p] = (uint32_t)p;
    for (size_t i = 0; ok && i < nb; i++) {
        uint32_t x = find_root(root, bounds[i].a), y = find_root(root, bounds[i].b);
        root[x > y ? x : y] = x > y ? y : x;
    }
    for (size_t r = 0; ok && nb && r < nparts; r++) {
        size_t ns = 0, nu = 0;
        for (size_t i = 0; i < nb; i++)
            if (find_root(root, bounds[i].a) == r)
                sub[ns++] = bounds[i];
        if (ns == 0)
            continue;
        component(sub, ns, nparts, cc);
        /* centred on the lower median of the set's parts */
        for (size_t p = 0; p < nparts; p++)
            if (find_root(root, (uint32_t)p) == r)
                used[nu++] = cc[p];
        qsort(used, nu, sizeof *used, cmp_i64);
        int64_t mid = used[(nu - 1) / 2];
        for (size_t p = 0; p < nparts; p++)
            if (find_root(root, (uint32_t)p) == r)
                c[p] = cc[p] - mid;
    }
    free(root);
    free(sub);
    free(cc);

    /* the cross arcs' weights with the shifts */
    bool moved = false;
    for (size_t p = 0; ok && p < nparts; p++)
        moved = moved || c[p] != 0;
    for (size_t i = 0; ok && moved && i < pairs->n; i++) {
        struct pag_pair *q = &pairs->v[i];
        uint32_t a = IPS2_PAG_GID_PART(q->from), b = IPS2_PAG_GID_PART(q->to);
        if (a == b || a >= nparts || b >= nparts)
            continue;
        const struct ref *s = find(refs, nrefs, q->from, PAG_SRC);
        const struct ref *d = s != NULL ? find(refs, nrefs, q->to, PAG_DST) : NULL;
        if (d == NULL || s->cls != d->cls)
            continue;
        q->weight = pag_weight(s->wall + c[a], d->wall + c[b],
                               d->ws == INT64_MIN ? INT64_MIN : d->ws + c[b]);
    }

    if (ok && out != NULL) {
        for (size_t p = 0; p < nparts; p++)
            out[p].shift = c[p];
        for (size_t i = 0; i < nall; i++) {
            const struct bound *x = &all[i];
            uint32_t ends[2] = {x->a, x->b};
            for (int e = 0; e < 2; e++) {
                struct ips2_pag_clock *o = &out[ends[e]];
                o->pairs++;
                if (x->need > 0) {
                    o->backwards++;
                    o->worst = x->need > o->worst ? x->need : o->worst;
                }
                if (x->need - (c[x->b] - c[x->a]) > 0)
                    o->after++;
            }
        }
    }
    free(all);
    free(refs);
    free(bounds);
    free(c);
    free(used);
    return ok;
}

int ips2_pag_clocks(struct ips2_pag **parts, size_t n, struct ips2_pag_clock *out, char *err,
                    size_t errlen)
{
    size_t nitems = 0, ntids = 0;
    struct pag_item *items = NULL;
    uint64_t *tids = NULL;
    struct pag_pairs pairs = {0};

    memset(out, 0, n * sizeof *out);
    if (pag_end_items(parts, n, &items, &nitems, &tids, &ntids, err, errlen) < 0)
        return -1;
    bool ok = items == NULL || (pag_match_items(items, nitems, true, &pairs) &&
                                pag_clock_pass(items, nitems, &pairs, n, out));
    free(items);
    free(tids);
    free(pairs.v);
    if (!ok) {
        snprintf(err, errlen, "out of memory correcting the clocks");
        return -1;
    }
    return 0;
}
