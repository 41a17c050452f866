/*
 * zero.c - a query resolved against one part: which threads are in the
 * mode's graph, which may start or end its path, and what the CPU arcs
 * weigh once a procedure or a process is zeroed (CPA.md §2, §5); the CPU
 * segments of a path, with their procedure shares scaled to the weight.
 * Also the part's sanity check every engine entry point runs first.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpa_internal.h"

uint32_t cpa_app_index(char *const *strings, size_t nstrings, const uint32_t *apps, size_t napps,
                       const char *app)
{
    if (!app)
        return IPS2_PAG_NONE;
    for (size_t i = 0; i < napps; i++)
        if (apps[i] < nstrings && strings[apps[i]] && strcmp(strings[apps[i]], app) == 0)
            return (uint32_t)i;
    return IPS2_PAG_NONE;
}

/* "thread T (process PID, thread TID)" of a part whose thread t and its
 * process are in range. */
static const char *who(const struct ips2_pag *pag, uint32_t t, char *buf, size_t len)
{
    const struct ips2_pag_thread *th = &pag->threads[t];
    snprintf(buf, len, "thread %u (process %d, thread %d)", t, (int)pag->processes[th->process].pid,
             (int)th->tid);
    return buf;
}

/* The CPU arc into node n (not its thread's first; the thread and its
 * nodes are in range): time order, and a weight no larger than the wall
 * time between the two nodes; its shares add up within int64. */
static int check_cpu_arc(const struct ips2_pag *pag, uint32_t t, uint32_t n, char *err,
                         size_t errlen)
{
    const char *m = pag->machine ? pag->machine : "?";
    const struct ips2_pag_node *nd = &pag->nodes[n], *pv = &pag->nodes[n - 1];
    char whob[96];
    if (nd->wall < pv->wall)
        return cpa_err(err, errlen,
                       "part %s: %s: node %u: wall %lld before the previous node's %lld", m,
                       who(pag, t, whob, sizeof whob), n, (long long)nd->wall, (long long)pv->wall);
    uint64_t span = (uint64_t)nd->wall - (uint64_t)pv->wall; /* exact: nd->wall >= pv->wall */
    if ((uint64_t)nd->cpu > span)
        return cpa_err(err, errlen,
                       "part %s: %s: node %u: CPU weight %lld, more than the %llu ns of wall "
                       "time since the thread's previous node",
                       m, who(pag, t, whob, sizeof whob), n, (long long)nd->cpu,
                       (unsigned long long)span);
    __int128 named = 0; /* a lazy part's: checked as they are streamed */
    for (uint32_t i = pv->shares; pag->shares && i < nd->shares; i++)
        named += pag->shares[i].cpu > 0 ? pag->shares[i].cpu : 0;
    if (named > INT64_MAX)
        return cpa_err(err, errlen, "part %s: %s: node %u: its CPU shares add up past %lld ns", m,
                       who(pag, t, whob, sizeof whob), n, (long long)INT64_MAX);
    return 0;
}

int cpa_pag_check(const struct ips2_pag *pag, size_t nparts, char *err, size_t errlen)
{
    const char *m = pag->machine ? pag->machine : "?";
    char whob[96];
    if (pag->part >= nparts)
        return cpa_err(err, errlen, "part %s: number %u, but the query has %zu parts", m, pag->part,
                       nparts);
    for (size_t i = 0; i < pag->napps; i++)
        if (pag->apps[i] >= pag->nstrings)
            return cpa_err(err, errlen, "part %s: application %zu: string %u out of range", m, i,
                           pag->apps[i]);
    for (size_t i = 0; i < pag->nprocesses; i++)
        if (pag->processes[i].app >= pag->napps)
            return cpa_err(err, errlen, "part %s: process %zu: application %u out of range", m, i,
                           pag->processes[i].app);
    if (pag->nnodes >= CPA_REM_MASK || pag->narcs >= UINT32_MAX - CPA_PRED_ARC ||
        pag->nouts >= UINT32_MAX)
        return cpa_err(err, errlen, "part %s: too many nodes or arcs", m);
    for (size_t t = 0; t < pag->nthreads; t++) {
        const struct ips2_pag_thread *th = &pag->threads[t];
        if (th->process >= pag->nprocesses || (uint64_t)th->first + th->count > pag->nnodes)
            return cpa_err(err, errlen, "part %s: thread %zu: process or nodes out of range", m, t);
        uint32_t prev = 0;
        for (uint32_t k = 0; k < th->count; k++) {
            const struct ips2_pag_node *nd = &pag->nodes[th->first + k];
            if (nd->thread != t)
                return cpa_err(err, errlen, "part %s: node %u: thread %u, expected %zu", m,
                               th->first + k, nd->thread, t);
            if (nd->shares > pag->nshares || (k > 0 && nd->shares < prev))
                return cpa_err(err, errlen, "part %s: node %u: shares %u out of order or range", m,
                               th->first + k, nd->shares);
            if (nd->proc != IPS2_PAG_NONE && nd->proc >= pag->nstrings)
                return cpa_err(err, errlen, "part %s: node %u: procedure string out of range", m,
                               th->first + k);
            if (nd->cpu < 0)
                return cpa_err(err, errlen, "part %s: node %u: negative CPU weight", m,
                               th->first + k);
            if (k > 0 && check_cpu_arc(pag, t, th->first + k, err, errlen))
                return -1;
            prev = nd->shares;
        }
        if (th->count > 1 &&
            (__int128)pag->nodes[th->first + th->count - 1].wall - pag->nodes[th->first].wall >
                INT64_MAX)
            return cpa_err(err, errlen, "part %s: %s: spans more than %lld ns of wall time", m,
                           who(pag, t, whob, sizeof whob), (long long)INT64_MAX);
    }
    for (size_t i = 0; i < pag->nnodes; i++)
        if (pag->nodes[i].thread >= pag->nthreads)
            return cpa_err(err, errlen, "part %s: node %zu: thread %u out of range", m, i,
                           pag->nodes[i].thread);
    for (size_t i = 0; i < pag->narcs; i++) {
        const struct ips2_pag_arc *a = &pag->arcs[i];
        uint32_t fp = IPS2_PAG_GID_PART(a->from);
        if (a->to >= pag->nnodes || (i > 0 && a->to < pag->arcs[i - 1].to))
            return cpa_err(err, errlen, "part %s: arc %zu: destination %u out of order or range", m,
                           i, a->to);
        if (fp >= nparts || (fp == pag->part && IPS2_PAG_GID_NODE(a->from) >= pag->nnodes))
            return cpa_err(err, errlen, "part %s: arc %zu: source %u:%u out of range", m, i, fp,
                           IPS2_PAG_GID_NODE(a->from));
        if (a->weight < 0)
            return cpa_err(err, errlen, "part %s: arc %zu: negative weight", m, i);
    }
    /* every source is in range now: local arcs weigh no more than the
     * wall time between their ends (0 when the source ended later) */
    for (size_t i = 0; i < pag->narcs; i++) {
        const struct ips2_pag_arc *a = &pag->arcs[i];
        if (IPS2_PAG_GID_PART(a->from) != pag->part || a->weight == 0)
            continue;
        const struct ips2_pag_node *src = &pag->nodes[IPS2_PAG_GID_NODE(a->from)];
        const struct ips2_pag_node *dst = &pag->nodes[a->to];
        if ((__int128)a->weight > (__int128)dst->wall - src->wall)
            return cpa_err(err, errlen,
                           "part %s: arc %zu from node %u (%s) to node %u: weight %lld, more "
                           "than the %lld ns of wall time between its ends",
                           m, i, IPS2_PAG_GID_NODE(a->from),
                           who(pag, src->thread, whob, sizeof whob), a->to, (long long)a->weight,
                           (long long)(dst->wall > src->wall ? dst->wall - src->wall : 0));
    }
    for (size_t i = 0; i < pag->nouts; i++) {
        const struct ips2_pag_out *o = &pag->outs[i];
        uint32_t tp = IPS2_PAG_GID_PART(o->to);
        if (o->from >= pag->nnodes || tp >= nparts || tp == pag->part)
            return cpa_err(err, errlen, "part %s: out %zu: source %u or destination part %u", m, i,
                           o->from, tp);
    }
    for (size_t i = 0; pag->shares && i < pag->nshares; i++)
        if (pag->shares[i].proc != IPS2_PAG_NONE && pag->shares[i].proc >= pag->nstrings)
            return cpa_err(err, errlen, "part %s: share %zu: string out of range", m, i);
    return 0;
}

int cpa_scope_init(struct cpa_scope *s, const struct ips2_pag *pag, const struct ips2_cpa_query *q,
                   char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (q->mode != IPS2_CPA_GLOBAL && !q->app)
        return cpa_err(err, errlen, "%s critical path: no application given",
                       ips2_cpa_mode_name(q->mode));
    s->tflags = calloc(pag->nthreads ? pag->nthreads : 1, 1);
    if (!s->tflags)
        return cpa_err(err, errlen, "out of memory");
    uint32_t app = cpa_app_index(pag->strings, pag->nstrings, pag->apps, pag->napps, q->app);
    uint32_t zapp =
        q->zero_app ? cpa_app_index(pag->strings, pag->nstrings, pag->apps, pag->napps, q->zero_app)
                    : IPS2_PAG_NONE;
    for (size_t t = 0; t < pag->nthreads; t++) {
        const struct ips2_pag_process *pr = &pag->processes[pag->threads[t].process];
        int in_app = app != IPS2_PAG_NONE && pr->app == app;
        uint8_t f = 0;
        switch (q->mode) {
        case IPS2_CPA_GLOBAL:
            f = CPA_SCOPE | CPA_START | CPA_TERM;
            break;
        case IPS2_CPA_INTRA:
            f = in_app ? CPA_SCOPE | CPA_START | CPA_TERM : 0;
            break;
        case IPS2_CPA_INTER:
            f = CPA_SCOPE | (in_app ? CPA_START | CPA_TERM : 0);
            break;
        }
        if (q->zero_process && q->zero_part == pag->part && pr->pid == q->zero_pid &&
            (!q->zero_app || (zapp != IPS2_PAG_NONE && pr->app == zapp)))
            f |= CPA_ZERO;
        s->tflags[t] = f;
    }
    if (q->zero_procedure) {
        s->zero_str = calloc(pag->nstrings ? pag->nstrings : 1, 1);
        if (!s->zero_str) {
            cpa_scope_free(s);
            return cpa_err(err, errlen, "out of memory");
        }
        /* one name, or several one a line (inclusive zeroing) */
        int any = 0;
        for (const char *name = q->zero_procedure; *name != '\0';) {
            const char *nl = strchr(name, '\n');
            size_t len = nl != NULL ? (size_t)(nl - name) : strlen(name);
            for (size_t i = 0; len > 0 && i < pag->nstrings; i++)
                if (pag->strings[i] && strncmp(pag->strings[i], name, len) == 0 &&
                    pag->strings[i][len] == '\0')
                    s->zero_str[i] = 1, any = 1;
            name += len + (nl != NULL);
        }
        if (!any) { /* no procedure of the part is zeroed: its weights are the nodes' */
            free(s->zero_str);
            s->zero_str = NULL;
        }
    }
    return 0;
}

void cpa_scope_free(struct cpa_scope *s)
{
    free(s->tflags);
    free(s->zero_str);
    free(s->zero_w);
    memset(s, 0, sizeof *s);
}

/* Whether string k names a zeroed procedure. */
static int zeroed_proc(const struct cpa_scope *s, const struct ips2_pag *pag, uint32_t k)
{
    return s->zero_str && k != IPS2_PAG_NONE && k < pag->nstrings && s->zero_str[k];
}

/* CPU of the arc into node n that its shares sh[0, nsh) do not name: the
 * time of the procedure on top of the stack at the arc's start, which the
 * builder leaves out (cpa/PAG.md). */
static int64_t unnamed_cpu(const struct ips2_pag *pag, uint32_t n, const struct ips2_pag_share *sh,
                           size_t nsh)
{
    int64_t named = 0;
    for (size_t i = 0; i < nsh; i++)
        named += sh[i].cpu > 0 ? sh[i].cpu : 0;
    return pag->nodes[n].cpu > named ? pag->nodes[n].cpu - named : 0;
}

/* The shares of the CPU arc into node n, in memory (n is not a first node). */
static const struct ips2_pag_share *arc_shares(const struct ips2_pag *pag, uint32_t n, size_t *nsh)
{
    uint32_t a = pag->nodes[n - 1].shares, b = pag->nodes[n].shares;
    *nsh = pag->shares && b > a ? b - a : 0;
    return *nsh ? pag->shares + a : NULL;
}

int64_t cpa_zero_weight(const struct cpa_scope *s, const struct ips2_pag *pag, uint32_t n,
                        const struct ips2_pag_share *sh, size_t nsh)
{
    const struct ips2_pag_node *nd = &pag->nodes[n];
    /* the zeroed procedures' part of the arc, the shares scaled to its
     * weight as the path's segments are (cpa_emit_cpu) */
    int64_t all = unnamed_cpu(pag, n, sh, nsh), zeroed = 0;
    if (zeroed_proc(s, pag, pag->nodes[n - 1].proc))
        zeroed = all;
    for (size_t i = 0; i < nsh; i++) {
        if (sh[i].cpu <= 0)
            continue;
        all += sh[i].cpu;
        if (zeroed_proc(s, pag, sh[i].proc))
            zeroed += sh[i].cpu;
    }
    if (all == 0 || zeroed == 0)
        return nd->cpu;
    return nd->cpu - (int64_t)((__int128)nd->cpu * zeroed / all);
}

int64_t cpa_cpu_weight(const struct cpa_scope *s, const struct ips2_pag *pag, uint32_t n)
{
    const struct ips2_pag_node *nd = &pag->nodes[n];
    if (n == pag->threads[nd->thread].first || (s->tflags[nd->thread] & CPA_ZERO))
        return 0;
    if (!s->zero_str)
        return nd->cpu;
    if (s->zero_w)
        return s->zero_w[n];
    size_t nsh;
    const struct ips2_pag_share *sh = arc_shares(pag, n, &nsh);
    return cpa_zero_weight(s, pag, n, sh, nsh);
}

int cpa_extend(const struct ips2_pag *pag, uint32_t n, int64_t len, int64_t weight, int64_t *out,
               char *err, size_t errlen)
{
    if (weight > INT64_MAX - len) {
        const struct ips2_pag_thread *th = &pag->threads[pag->nodes[n].thread];
        return cpa_err(err, errlen,
                       "part %s: node %u (process %d, thread %d): the path length overflows "
                       "(%lld ns + an arc of %lld ns)",
                       pag->machine ? pag->machine : "?", n, (int)pag->processes[th->process].pid,
                       (int)th->tid, (long long)len, (long long)weight);
    }
    *out = len + weight;
    return 0;
}

void cpa_split(int64_t total, const int64_t *w, int64_t *out, size_t n)
{
    if (n == 0)
        return;
    __int128 sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += w[i] > 0 ? w[i] : 0;
    if (sum == 0) {
        out[0] = total;
        for (size_t i = 1; i < n; i++)
            out[i] = 0;
        return;
    }
    int64_t given = 0;
    size_t best = 0;
    __int128 bestrem = -1;
    for (size_t i = 0; i < n; i++) {
        __int128 num = (__int128)total * (w[i] > 0 ? w[i] : 0);
        out[i] = (int64_t)(num / sum);
        __int128 rem = num % sum;
        given += out[i];
        if (rem > bestrem) {
            bestrem = rem;
            best = i;
        }
    }
    /* Less than n ns are left by the rounding down: they go to the entry
     * with the largest remainder, so the sum is exact. */
    out[best] += total - given;
}

long cpa_arc_shares(const struct cpa_scope *s, const struct ips2_pag *pag, uint32_t n, int64_t w,
                    const struct ips2_pag_share *sh, size_t nsh, struct ips2_cpa_share *dst)
{
    const struct ips2_pag_node *pv = &pag->nodes[n - 1];
    long k = 0;
    if (w <= 0)
        return 0;
    for (size_t i = 0; i < nsh; i++) {
        if (sh[i].cpu <= 0 || zeroed_proc(s, pag, sh[i].proc))
            continue;
        dst[k++] = (struct ips2_cpa_share){sh[i].proc, 0, sh[i].cpu};
    }
    /* time no share names: the procedure running at the arc's start */
    int64_t unnamed = unnamed_cpu(pag, n, sh, nsh);
    if (unnamed > 0 && !zeroed_proc(s, pag, pv->proc))
        dst[k++] = (struct ips2_cpa_share){pv->proc < pag->nstrings ? pv->proc : IPS2_PAG_NONE, 0,
                                           unnamed};
    if (k == 0) /* everything rounded away but a few ns */
        dst[k++] = (struct ips2_cpa_share){IPS2_PAG_NONE, 0, w};
    int64_t sum = 0;
    for (long i = 0; i < k; i++)
        sum += dst[i].cpu;
    if (sum != w) {
        int64_t *wv = malloc(2 * (size_t)k * sizeof *wv);
        if (!wv)
            return -1;
        for (long i = 0; i < k; i++)
            wv[i] = dst[i].cpu;
        cpa_split(w, wv, wv + k, (size_t)k);
        long j = 0;
        for (long i = 0; i < k; i++)
            if (wv[k + i] > 0)
                dst[j++] = (struct ips2_cpa_share){dst[i].proc, 0, wv[k + i]};
        free(wv);
        k = j;
    }
    return k;
}

int cpa_emit_cpu(struct ips2_cpa_path *p, const struct cpa_scope *s, const struct ips2_pag *pag,
                 uint32_t n, char *err, size_t errlen)
{
    const struct ips2_pag_node *nd = &pag->nodes[n];
    const struct ips2_pag_node *pv = &pag->nodes[n - 1];
    int64_t w = cpa_cpu_weight(s, pag, n);
    struct ips2_cpa_segment seg = {
        .kind = IPS2_CPA_SEG_CPU,
        .src_part = pag->part,
        .src_thread = nd->thread,
        .dst_part = pag->part,
        .dst_thread = nd->thread,
        .from = IPS2_PAG_GID(pag->part, n - 1),
        .to = IPS2_PAG_GID(pag->part, n),
        .begin = pv->wall < nd->wall ? pv->wall : nd->wall,
        .end = nd->wall,
        .length = w,
    };
    size_t nsh;
    const struct ips2_pag_share *sh = arc_shares(pag, n, &nsh);
    long k = 0;
    if (!pag->lazy) { /* a lazy part's come later, for the paths that show them */
        size_t need = p->nshares + nsh + 1;
        if (need > p->sharecap) {
            size_t cap = p->sharecap ? p->sharecap * 2 : 64;
            while (cap < need)
                cap *= 2;
            struct ips2_cpa_share *ns = realloc(p->shares, cap * sizeof *ns);
            if (!ns)
                return cpa_err(err, errlen, "out of memory");
            p->shares = ns;
            p->sharecap = cap;
        }
        if ((k = cpa_arc_shares(s, pag, n, w, sh, nsh, p->shares + p->nshares)) < 0)
            return cpa_err(err, errlen, "out of memory");
    }
    seg.first_share = k ? (uint32_t)p->nshares : 0;
    seg.nshares = (uint32_t)k;
    p->nshares += (size_t)k;
    return cpa_emit(p, &seg, err, errlen);
}
