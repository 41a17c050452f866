/*
 * oracle.c - the reference critical path: every part in this process, one
 * graph, Kahn's topological order over all nodes; each node, once all its
 * predecessors are done, pulls the best of them (the same mode rules and
 * tie rule as the workers, written independently of them: the workers push
 * values, this pulls), then a walk back from the terminal (CPA.md §3).
 */
#include <stdlib.h>
#include <string.h>

#include "cpa_internal.h"

struct onode {
    int64_t len;
    uint64_t pred; /* gid of the predecessor on the path */
    uint32_t arc;  /* its arc index in the node's part, or UINT32_MAX: the thread's CPU arc */
    uint8_t reached, haspred;
};

struct oracle {
    struct ips2_pag *const *parts;
    size_t n;
    size_t *off; /* global index of part k's node 0 */
    size_t total;
    struct cpa_scope *scope;
    struct onode *node;
    uint32_t *indeg;
    size_t *succ_first; /* CSR of arcs by source: (part, arc) */
    uint64_t *succ;     /* part << 32 | arc */
};

static size_t gidx(const struct oracle *o, uint64_t gid)
{
    return o->off[IPS2_PAG_GID_PART(gid)] + IPS2_PAG_GID_NODE(gid);
}

static void oracle_free(struct oracle *o)
{
    if (o->scope)
        for (size_t k = 0; k < o->n; k++)
            cpa_scope_free(&o->scope[k]);
    free(o->scope);
    free(o->off);
    free(o->node);
    free(o->indeg);
    free(o->succ_first);
    free(o->succ);
}

static int build(struct oracle *o, const struct ips2_cpa_query *q, char *err, size_t errlen)
{
    o->off = calloc(o->n + 1, sizeof *o->off);
    o->scope = calloc(o->n ? o->n : 1, sizeof *o->scope);
    if (!o->off || !o->scope)
        return cpa_err(err, errlen, "out of memory");
    size_t narcs = 0;
    for (size_t k = 0; k < o->n; k++) {
        const struct ips2_pag *p = o->parts[k];
        if (p->part != k)
            return cpa_err(err, errlen, "part %zu: numbered %u", k, p->part);
        if (cpa_pag_check(p, o->n, err, errlen) ||
            cpa_scope_init(&o->scope[k], p, q, err, errlen) ||
            cpa_scope_weights(&o->scope[k], p, err, errlen))
            return -1;
        o->off[k + 1] = o->off[k] + p->nnodes;
        narcs += p->narcs;
    }
    o->total = o->off[o->n];
    for (size_t k = 0; k < o->n; k++)
        for (size_t i = 0; i < o->parts[k]->narcs; i++) {
            uint64_t f = o->parts[k]->arcs[i].from;
            if (IPS2_PAG_GID_NODE(f) >= o->parts[IPS2_PAG_GID_PART(f)]->nnodes)
                return cpa_err(err, errlen, "part %zu: arc %zu: no source node %u:%u", k, i,
                               IPS2_PAG_GID_PART(f), IPS2_PAG_GID_NODE(f));
        }
    o->node = calloc(o->total + 1, sizeof *o->node);
    o->indeg = calloc(o->total + 1, sizeof *o->indeg);
    o->succ_first = calloc(o->total + 2, sizeof *o->succ_first);
    o->succ = malloc((narcs + 1) * sizeof *o->succ);
    if (!o->node || !o->indeg || !o->succ_first || !o->succ)
        return cpa_err(err, errlen, "out of memory");
    for (size_t k = 0; k < o->n; k++) {
        const struct ips2_pag *p = o->parts[k];
        for (size_t i = 0; i < p->narcs; i++) {
            o->indeg[o->off[k] + p->arcs[i].to]++;
            o->succ_first[gidx(o, p->arcs[i].from) + 1]++;
        }
        for (size_t t = 0; t < p->nthreads; t++)
            for (uint32_t j = 1; j < p->threads[t].count; j++)
                o->indeg[o->off[k] + p->threads[t].first + j]++;
    }
    for (size_t g = 0; g < o->total; g++)
        o->succ_first[g + 1] += o->succ_first[g];
    size_t *fill = malloc((o->total + 1) * sizeof *fill);
    if (!fill)
        return cpa_err(err, errlen, "out of memory");
    memcpy(fill, o->succ_first, (o->total + 1) * sizeof *fill);
    for (size_t k = 0; k < o->n; k++)
        for (size_t i = 0; i < o->parts[k]->narcs; i++)
            o->succ[fill[gidx(o, o->parts[k]->arcs[i].from)]++] = (uint64_t)k << 32 | i;
    free(fill);
    return 0;
}

/* Node n of part k is ready: pull its best predecessor. */
static int settle(struct oracle *o, size_t k, uint32_t n, char *err, size_t errlen)
{
    const struct ips2_pag *p = o->parts[k];
    uint32_t t = p->nodes[n].thread;
    uint8_t f = o->scope[k].tflags[t];
    struct onode *x = &o->node[o->off[k] + n];
    if (!(f & CPA_SCOPE))
        return 0;
    if (n != p->threads[t].first && o->node[o->off[k] + n - 1].reached) {
        x->haspred = 1;
        if (cpa_extend(p, n, o->node[o->off[k] + n - 1].len, cpa_cpu_weight(&o->scope[k], p, n),
                       &x->len, err, errlen))
            return -1;
        x->pred = IPS2_PAG_GID(k, n - 1);
        x->arc = UINT32_MAX;
    }
    size_t lo = 0, hi = p->narcs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->arcs[mid].to < n)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < p->narcs && p->arcs[i].to == n; i++) {
        const struct ips2_pag_arc *a = &p->arcs[i];
        const struct onode *s = &o->node[gidx(o, a->from)];
        if (!s->reached)
            continue;
        int64_t len = 0;
        if (cpa_extend(p, n, s->len, a->weight, &len, err, errlen))
            return -1;
        if (!x->haspred || cpa_better(len, 0, a->from, (uint32_t)i, x->len, x->arc == UINT32_MAX,
                                      x->pred, x->arc == UINT32_MAX ? 0 : x->arc)) {
            x->haspred = 1;
            x->len = len;
            x->pred = a->from;
            x->arc = (uint32_t)i;
        }
    }
    if (x->haspred || (f & CPA_START))
        x->reached = 1;
    return 0;
}

static int walk(struct oracle *o, uint64_t gid, struct ips2_cpa_path *out, char *err, size_t errlen)
{
    for (;;) {
        size_t k = IPS2_PAG_GID_PART(gid);
        uint32_t n = IPS2_PAG_GID_NODE(gid);
        const struct ips2_pag *p = o->parts[k];
        const struct onode *x = &o->node[o->off[k] + n];
        if (!x->haspred)
            return 0;
        if (x->arc == UINT32_MAX) {
            if (cpa_emit_cpu(out, &o->scope[k], p, n, err, errlen))
                return -1;
        } else {
            const struct ips2_pag_arc *a = &p->arcs[x->arc];
            const struct ips2_pag *sp = o->parts[IPS2_PAG_GID_PART(a->from)];
            const struct ips2_pag_node *src = &sp->nodes[IPS2_PAG_GID_NODE(a->from)];
            struct ips2_cpa_segment seg = {
                .kind = a->type,
                .src_part = sp->part,
                .src_thread = src->thread,
                .dst_part = p->part,
                .dst_thread = p->nodes[n].thread,
                .from = a->from,
                .to = gid,
                .begin = src->wall < p->nodes[n].wall ? src->wall : p->nodes[n].wall,
                .end = p->nodes[n].wall,
                .length = a->weight,
            };
            if (cpa_emit(out, &seg, err, errlen))
                return -1;
        }
        gid = x->pred;
    }
}

int ips2_cpa_oracle(struct ips2_pag *const *parts, size_t n, const struct ips2_cpa_query *q,
                    struct ips2_cpa_path *out, char *err, size_t errlen)
{
    struct oracle o = {.parts = parts, .n = n};
    ips2_cpa_path_init(out);
    int rc = -1;
    size_t *queue = NULL;
    if (build(&o, q, err, errlen))
        goto done;
    queue = malloc((o.total + 1) * sizeof *queue);
    if (!queue) {
        cpa_err(err, errlen, "out of memory");
        goto done;
    }
    size_t head = 0, tail = 0;
    for (size_t g = 0; g < o.total; g++)
        if (o.indeg[g] == 0)
            queue[tail++] = g;
    struct ips2_cpa_candidate best = {0};
    size_t k = 0;
    while (head < tail) {
        size_t g = queue[head++];
        while (g >= o.off[k + 1] || g < o.off[k])
            k = g >= o.off[k + 1] ? k + 1 : 0;
        const struct ips2_pag *p = parts[k];
        uint32_t nd = (uint32_t)(g - o.off[k]);
        if (settle(&o, k, nd, err, errlen))
            goto done;
        const struct onode *x = &o.node[g];
        uint64_t gid = IPS2_PAG_GID(k, nd);
        if (x->reached && (o.scope[k].tflags[p->nodes[nd].thread] & CPA_TERM) &&
            (!best.found || x->len > best.length || (x->len == best.length && gid < best.gid))) {
            best.found = 1;
            best.length = x->len;
            best.gid = gid;
        }
        uint32_t t = p->nodes[nd].thread;
        if (nd + 1 < p->threads[t].first + p->threads[t].count && --o.indeg[g + 1] == 0)
            queue[tail++] = g + 1;
        for (size_t s = o.succ_first[g]; s < o.succ_first[g + 1]; s++) {
            size_t dk = o.succ[s] >> 32;
            size_t dg = o.off[dk] + parts[dk]->arcs[o.succ[s] & 0xffffffffu].to;
            if (--o.indeg[dg] == 0)
                queue[tail++] = dg;
        }
    }
    if (tail < o.total) {
        cpa_err(err, errlen, "%zu nodes never got all their predecessors (a cycle)",
                o.total - tail);
        goto done;
    }
    out->found = best.found;
    out->length = best.found ? best.length : 0;
    out->terminal = best.gid;
    if (best.found && walk(&o, best.gid, out, err, errlen))
        goto done;
    ips2_cpa_path_finish(out);
    rc = 0;
done:
    free(queue);
    oracle_free(&o);
    return rc;
}
