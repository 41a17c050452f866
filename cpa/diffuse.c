/*
 * diffuse.c - the forward diffusion of one part (a worker): every node
 * learns the longest path of the mode to itself and its predecessor on it
 * (CPA.md §3).
 *
 * Kahn's algorithm over threads: a thread is ready when its next node has
 * heard from every incoming arc (its CPU arc is implicit: the previous node
 * of the thread is done by construction).  A ready thread runs until a node
 * still waits, so the whole run costs O(nodes + arcs).  Values for arcs
 * into other parts wait in one batch per part until the driver takes them;
 * values from other parts arrive with ips2_cpa_worker_deliver.  The node
 * state is 16 bytes (length, predecessor, arcs left + reached bit), so a
 * part with its 32-byte nodes stays within 48 bytes a node plus arcs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpa_internal.h"

/* Sorts idx[0..n) by key[idx[i]] (stable, LSD radix on 2 x 16 bits). */
static int sort_by_key(uint32_t *idx, size_t n, const uint32_t *key)
{
    if (n < 2)
        return 0;
    uint32_t *tmp = malloc(n * sizeof *tmp);
    size_t *cnt = malloc(65537 * sizeof *cnt);
    if (!tmp || !cnt) {
        free(tmp);
        free(cnt);
        return -1;
    }
    for (int shift = 0; shift < 32; shift += 16) {
        memset(cnt, 0, 65537 * sizeof *cnt);
        for (size_t i = 0; i < n; i++)
            cnt[((key[idx[i]] >> shift) & 0xffff) + 1]++;
        for (size_t i = 1; i <= 65536; i++)
            cnt[i] += cnt[i - 1];
        for (size_t i = 0; i < n; i++)
            tmp[cnt[(key[idx[i]] >> shift) & 0xffff]++] = idx[i];
        memcpy(idx, tmp, n * sizeof *idx);
    }
    free(tmp);
    free(cnt);
    return 0;
}

static size_t lower_bound(const uint32_t *idx, size_t n, const uint32_t *key, uint32_t v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (key[idx[mid]] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void ips2_cpa_worker_free(struct ips2_cpa_worker *w)
{
    if (!w)
        return;
    cpa_scope_free(&w->scope);
    free(w->st);
    free(w->cursor);
    free(w->lout);
    free(w->lout_cur);
    free(w->xout);
    free(w->xout_cur);
    free(w->given);
    free(w->queue);
    free(w->inq);
    if (w->pending)
        for (size_t i = 0; i < w->nparts; i++)
            ips2_cpa_batch_free(&w->pending[i]);
    free(w->pending);
    free(w);
}

static void push(struct ips2_cpa_worker *w, uint32_t t)
{
    w->inq[t] = 1;
    w->queue[(w->qhead + w->qlen) % w->pag->nthreads] = t;
    w->qlen++;
}

/* The arcs' sources (local ones) and the outs' sources, as sort keys. */
static int build_outs(struct ips2_cpa_worker *w)
{
    const struct ips2_pag *pag = w->pag;
    size_t nthreads = pag->nthreads;
    size_t nl = 0;
    for (size_t i = 0; i < pag->narcs; i++)
        nl += IPS2_PAG_GID_PART(pag->arcs[i].from) == w->part;
    size_t nk = pag->narcs > pag->nouts ? pag->narcs : pag->nouts;
    uint32_t *key = malloc((nk ? nk : 1) * sizeof *key);
    w->lout = malloc((nl ? nl : 1) * sizeof *w->lout);
    w->xout = malloc((pag->nouts ? pag->nouts : 1) * sizeof *w->xout);
    w->lout_cur = malloc((nthreads ? nthreads : 1) * sizeof *w->lout_cur);
    w->xout_cur = malloc((nthreads ? nthreads : 1) * sizeof *w->xout_cur);
    if (!key || !w->lout || !w->xout || !w->lout_cur || !w->xout_cur) {
        free(key);
        return -1;
    }
    nl = 0;
    for (size_t i = 0; i < pag->narcs; i++) {
        key[i] = IPS2_PAG_GID_NODE(pag->arcs[i].from);
        if (IPS2_PAG_GID_PART(pag->arcs[i].from) == w->part)
            w->lout[nl++] = (uint32_t)i;
    }
    w->nlout = nl;
    if (sort_by_key(w->lout, nl, key)) {
        free(key);
        return -1;
    }
    for (size_t t = 0; t < nthreads; t++)
        w->lout_cur[t] = (uint32_t)lower_bound(w->lout, nl, key, pag->threads[t].first);
    for (size_t i = 0; i < pag->nouts; i++) {
        key[i] = pag->outs[i].from;
        w->xout[i] = (uint32_t)i;
    }
    if (sort_by_key(w->xout, pag->nouts, key)) {
        free(key);
        return -1;
    }
    for (size_t t = 0; t < nthreads; t++)
        w->xout_cur[t] = (uint32_t)lower_bound(w->xout, pag->nouts, key, pag->threads[t].first);
    free(key);
    return 0;
}

int ips2_cpa_worker_new(const struct ips2_pag *pag, size_t nparts, const struct ips2_cpa_query *q,
                        struct ips2_cpa_worker **out, char *err, size_t errlen)
{
    *out = NULL;
    if (cpa_pag_check(pag, nparts, err, errlen))
        return -1;
    struct ips2_cpa_worker *w = calloc(1, sizeof *w);
    if (!w)
        return cpa_err(err, errlen, "out of memory");
    w->pag = pag;
    w->part = pag->part;
    w->nparts = nparts;
    if (cpa_scope_init(&w->scope, pag, q, err, errlen) ||
        cpa_scope_weights(&w->scope, pag, err, errlen)) {
        cpa_scope_free(&w->scope);
        free(w);
        return -1;
    }
    size_t nt = pag->nthreads ? pag->nthreads : 1;
    w->st = calloc(pag->nnodes ? pag->nnodes : 1, sizeof *w->st);
    w->cursor = malloc(nt * sizeof *w->cursor);
    w->given = calloc(pag->narcs / 8 + 1, 1);
    w->queue = malloc(nt * sizeof *w->queue);
    w->inq = calloc(nt, 1);
    w->pending = calloc(nparts, sizeof *w->pending);
    if (!w->st || !w->cursor || !w->given || !w->queue || !w->inq || !w->pending || build_outs(w)) {
        ips2_cpa_worker_free(w);
        return cpa_err(err, errlen, "out of memory");
    }
    for (size_t i = 0; i < pag->narcs; i++)
        if (++w->st[pag->arcs[i].to].rem > CPA_REM_MASK) {
            ips2_cpa_worker_free(w);
            return cpa_err(err, errlen, "part %s: node %u: too many arcs", pag->machine,
                           pag->arcs[i].to);
        }
    for (size_t i = 0; i < nparts; i++) {
        w->pending[i].from_part = w->part;
        w->pending[i].to_part = (uint32_t)i;
    }
    w->left = pag->nnodes;
    for (size_t t = 0; t < pag->nthreads; t++) {
        const struct ips2_pag_thread *th = &pag->threads[t];
        w->cursor[t] = th->first;
        if (th->count && w->st[th->first].rem == 0)
            push(w, (uint32_t)t);
    }
    *out = w;
    return 0;
}

/* A candidate predecessor for node m; the caller knows its source is on a
 * path of the mode. */
static void fold(struct ips2_cpa_worker *w, uint32_t m, int64_t len, int is_thread, uint64_t gid,
                 uint32_t arc)
{
    struct cpa_state *s = &w->st[m];
    if (s->pred != CPA_PRED_NONE) {
        int cur_thread = s->pred == CPA_PRED_THREAD;
        uint32_t cur_arc = cur_thread ? 0 : s->pred - CPA_PRED_ARC;
        uint64_t cur_gid = cur_thread ? IPS2_PAG_GID(w->part, m - 1) : w->pag->arcs[cur_arc].from;
        if (!cpa_better(len, is_thread, gid, arc, s->len, cur_thread, cur_gid, cur_arc))
            return;
    }
    s->len = len;
    s->pred = is_thread ? CPA_PRED_THREAD : CPA_PRED_ARC + arc;
}

/* One arc into m has been heard from. */
static void heard(struct ips2_cpa_worker *w, uint32_t m)
{
    struct cpa_state *s = &w->st[m];
    s->rem--;
    if (s->rem == 0) {
        uint32_t t = w->pag->nodes[m].thread;
        if (w->cursor[t] == m && !w->inq[t])
            push(w, t);
    }
}

static int add_value(struct ips2_cpa_batch *b, const struct ips2_cpa_value *v)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        struct ips2_cpa_value *nv = realloc(b->v, cap * sizeof *nv);
        if (!nv)
            return -1;
        b->v = nv;
        b->cap = cap;
    }
    b->v[b->n++] = *v;
    return 0;
}

static int process(struct ips2_cpa_worker *w, uint32_t n, char *err, size_t errlen)
{
    const struct ips2_pag *pag = w->pag;
    uint32_t t = pag->nodes[n].thread;
    uint8_t f = w->scope.tflags[t];
    struct cpa_state *s = &w->st[n];
    int reached = 0;
    int64_t len = 0;
    if (f & CPA_SCOPE) {
        if (n != pag->threads[t].first && (w->st[n - 1].rem & CPA_REACHED_BIT)) {
            if (cpa_extend(pag, n, w->st[n - 1].len, cpa_cpu_weight(&w->scope, pag, n), &len, err,
                           errlen))
                return -1;
            fold(w, n, len, 1, IPS2_PAG_GID(w->part, n - 1), 0);
        }
        if (s->pred != CPA_PRED_NONE) {
            reached = 1;
        } else if (f & CPA_START) {
            reached = 1;
            s->len = 0;
        }
    } else {
        s->pred = CPA_PRED_NONE;
        s->len = 0;
    }
    uint64_t gid = IPS2_PAG_GID(w->part, n);
    if (reached) {
        s->rem |= CPA_REACHED_BIT;
        if ((f & CPA_TERM) && (!w->cand.found || s->len > w->cand.length ||
                               (s->len == w->cand.length && gid < w->cand.gid))) {
            w->cand.found = 1;
            w->cand.length = s->len;
            w->cand.gid = gid;
        }
    }
    for (uint32_t c = w->lout_cur[t]; c < w->nlout; c++) {
        const struct ips2_pag_arc *a = &pag->arcs[w->lout[c]];
        if (IPS2_PAG_GID_NODE(a->from) != n)
            break;
        if (reached && (w->scope.tflags[pag->nodes[a->to].thread] & CPA_SCOPE)) {
            if (cpa_extend(pag, a->to, s->len, a->weight, &len, err, errlen))
                return -1;
            fold(w, a->to, len, 0, gid, w->lout[c]);
        }
        heard(w, a->to);
        w->lout_cur[t] = c + 1;
    }
    for (uint32_t c = w->xout_cur[t]; c < pag->nouts; c++) {
        const struct ips2_pag_out *o = &pag->outs[w->xout[c]];
        if (o->from != n)
            break;
        struct ips2_cpa_value v = {
            .from = gid,
            .to = IPS2_PAG_GID_NODE(o->to),
            .flags = reached ? IPS2_CPA_REACHED : 0,
            .length = reached ? s->len : 0,
        };
        struct ips2_cpa_batch *b = &w->pending[IPS2_PAG_GID_PART(o->to)];
        if (b->n == 0)
            w->npending++;
        if (add_value(b, &v))
            return cpa_err(err, errlen, "out of memory");
        w->xout_cur[t] = c + 1;
    }
    w->cursor[t] = n + 1;
    w->left--;
    return 0;
}

int ips2_cpa_worker_step(struct ips2_cpa_worker *w, char *err, size_t errlen)
{
    const struct ips2_pag *pag = w->pag;
    while (w->qlen) {
        uint32_t t = w->queue[w->qhead];
        w->qhead = (w->qhead + 1) % pag->nthreads;
        w->qlen--;
        uint32_t end = pag->threads[t].first + pag->threads[t].count;
        while (w->cursor[t] < end && w->st[w->cursor[t]].rem == 0)
            if (process(w, w->cursor[t], err, errlen))
                return -1;
        w->inq[t] = 0;
    }
    return 0;
}

int ips2_cpa_worker_take_batch(struct ips2_cpa_worker *w, struct ips2_cpa_batch *b)
{
    if (!w->npending)
        return 0;
    for (size_t i = 0; i < w->nparts; i++)
        if (w->pending[i].n) {
            *b = w->pending[i];
            w->pending[i].v = NULL;
            w->pending[i].n = w->pending[i].cap = 0;
            w->npending--;
            return 1;
        }
    return 0;
}

int ips2_cpa_worker_deliver(struct ips2_cpa_worker *w, const struct ips2_cpa_batch *b, char *err,
                            size_t errlen)
{
    const struct ips2_pag *pag = w->pag;
    const char *m = pag->machine ? pag->machine : "?";
    if (b->to_part != w->part || b->from_part >= w->nparts || b->from_part == w->part)
        return cpa_err(err, errlen, "part %s: a batch from part %u to part %u", m, b->from_part,
                       b->to_part);
    for (size_t k = 0; k < b->n; k++) {
        const struct ips2_cpa_value *v = &b->v[k];
        if (IPS2_PAG_GID_PART(v->from) != b->from_part || v->to >= pag->nnodes)
            return cpa_err(err, errlen, "part %s: batch from part %u: value %zu names %u:%u -> %u",
                           m, b->from_part, k, IPS2_PAG_GID_PART(v->from),
                           IPS2_PAG_GID_NODE(v->from), v->to);
        size_t lo = 0, hi = pag->narcs;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (pag->arcs[mid].to < v->to)
                lo = mid + 1;
            else
                hi = mid;
        }
        size_t i = lo;
        for (; i < pag->narcs && pag->arcs[i].to == v->to; i++)
            if (pag->arcs[i].from == v->from && !(w->given[i / 8] & (1u << (i % 8))))
                break;
        if (i >= pag->narcs || pag->arcs[i].to != v->to)
            return cpa_err(err, errlen,
                           "part %s: batch from part %u: value %zu for an arc %u:%u -> %u that "
                           "the part does not have (or had already)",
                           m, b->from_part, k, IPS2_PAG_GID_PART(v->from),
                           IPS2_PAG_GID_NODE(v->from), v->to);
        const struct ips2_pag_arc *a = &pag->arcs[i];
        if ((v->flags & IPS2_CPA_REACHED) && (v->length < 0 || v->length > INT64_MAX - a->weight))
            return cpa_err(err, errlen, "part %s: batch from part %u: value %zu: length %lld", m,
                           b->from_part, k, (long long)v->length);
        w->given[i / 8] |= (uint8_t)(1u << (i % 8));
        if ((v->flags & IPS2_CPA_REACHED) &&
            (w->scope.tflags[pag->nodes[v->to].thread] & CPA_SCOPE))
            fold(w, v->to, v->length + a->weight, 0, v->from, (uint32_t)i);
        heard(w, v->to);
    }
    return 0;
}

int ips2_cpa_worker_done(const struct ips2_cpa_worker *w)
{
    return w->left == 0;
}

void ips2_cpa_worker_stuck(const struct ips2_cpa_worker *w, char *buf, size_t len)
{
    const struct ips2_pag *pag = w->pag;
    const char *m = pag->machine ? pag->machine : "?";
    for (size_t t = 0; t < pag->nthreads; t++) {
        const struct ips2_pag_thread *th = &pag->threads[t];
        if (w->cursor[t] < th->first + th->count) {
            uint32_t n = w->cursor[t];
            const struct ips2_pag_process *pr = &pag->processes[th->process];
            snprintf(buf, len,
                     "part %s: %zu nodes never got all their predecessors (a cycle, or an arc "
                     "whose source never came); first: process %d thread %d node %u (kind %#x, "
                     "wall %lld) waits for %u arcs",
                     m, w->left, (int)pr->pid, (int)th->tid, n, pag->nodes[n].kind,
                     (long long)pag->nodes[n].wall, w->st[n].rem & CPA_REM_MASK);
            return;
        }
    }
    snprintf(buf, len, "part %s: done", m);
}

void ips2_cpa_worker_candidate(const struct ips2_cpa_worker *w, struct ips2_cpa_candidate *c)
{
    *c = w->cand;
}
