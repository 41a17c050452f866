/*
 * lazy.c - the engine over parts read without their shares
 * (ips2_pag_read_lazy, cpa/PAG.md §4): what needs the CPU arcs' procedure
 * shares gets them from one pass over the part file's shares
 * (ips2_pag_shares_each) and keeps only what it asked for: the weights of
 * the CPU arcs when a query zeroes procedures (one number per node), the
 * shares of a path's CPU segments (once the path is known), and a part's
 * CPU per procedure and thread (the imbalance's averages).  The numbers
 * are the ones the engine gives with the shares in memory (zero.c's
 * cpa_zero_weight and cpa_arc_shares on the same slices).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cpa_internal.h"

/* ---- zeroed procedures: the CPU arcs' weights ----------------------------- */

struct weights {
    struct cpa_scope *s;
    const struct ips2_pag *pag;
};

static int weight_of(void *arg, uint32_t n, const struct ips2_pag_share *sh, size_t nsh)
{
    struct weights *a = arg;
    const struct ips2_pag_node *nd = &a->pag->nodes[n];
    /* a first node and a zeroed process's are cpa_cpu_weight's own */
    a->s->zero_w[n] =
        n == a->pag->threads[nd->thread].first ? 0 : cpa_zero_weight(a->s, a->pag, n, sh, nsh);
    return 0;
}

int cpa_scope_weights(struct cpa_scope *s, const struct ips2_pag *pag, char *err, size_t errlen)
{
    if (!s->zero_str || !pag->lazy)
        return 0;
    if (!(s->zero_w = malloc((pag->nnodes ? pag->nnodes : 1) * sizeof *s->zero_w)))
        return cpa_err(err, errlen, "out of memory");
    struct weights a = {s, pag};
    if (ips2_pag_shares_each(pag, weight_of, &a, err, errlen)) {
        free(s->zero_w);
        s->zero_w = NULL;
        return -1;
    }
    return 0;
}

/* ---- a path's shares -------------------------------------------------------- */

struct want {
    uint32_t node;
    uint32_t seg; /* index in the path */
};

static int by_node(const void *a, const void *b)
{
    const struct want *x = a, *y = b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return (x->seg > y->seg) - (x->seg < y->seg);
}

struct each {
    const struct ips2_cpa_path *p;
    const struct ips2_pag *pag;
    struct cpa_scope scope;
    const struct want *w;
    size_t nw, at;
    struct ips2_cpa_share *tmp;
    size_t tmpcap;
    ips2_cpa_seg_shares_fn *fn;
    void *arg;
    int oom;
};

static int each_one(void *arg, uint32_t n, const struct ips2_pag_share *sh, size_t nsh)
{
    struct each *e = arg;
    for (; e->at < e->nw && e->w[e->at].node == n; e->at++) {
        const struct ips2_cpa_segment *g = &e->p->segs[e->w[e->at].seg];
        if (nsh + 1 > e->tmpcap) {
            struct ips2_cpa_share *v = realloc(e->tmp, (nsh + 1) * 2 * sizeof *v);
            if (!v)
                return e->oom = 1;
            e->tmp = v;
            e->tmpcap = (nsh + 1) * 2;
        }
        long k = cpa_arc_shares(&e->scope, e->pag, n, g->length, sh, nsh, e->tmp);
        if (k < 0)
            return e->oom = 1;
        if (e->fn(e->arg, e->w[e->at].seg, e->tmp, (size_t)k))
            return 1;
    }
    return 0;
}

/* The CPU segment g's node in part k if it needs shares from it (a lazy
 * part's node with a CPU arc into it); else UINT32_MAX. */
static uint32_t lazy_node(const struct ips2_cpa_segment *g, const struct ips2_pag *pag, uint32_t k)
{
    if (g->kind != IPS2_CPA_SEG_CPU || g->nshares || g->dst_part != k ||
        IPS2_PAG_GID_PART(g->to) != k)
        return UINT32_MAX;
    uint32_t n = IPS2_PAG_GID_NODE(g->to);
    if (n == 0 || n >= pag->nnodes || pag->nodes[n].thread != pag->nodes[n - 1].thread ||
        n == pag->threads[pag->nodes[n].thread].first)
        return UINT32_MAX;
    return n;
}

int ips2_cpa_path_each_shares(const struct ips2_cpa_path *p, struct ips2_pag *const *parts,
                              size_t nparts, const struct ips2_cpa_query *q,
                              ips2_cpa_seg_shares_fn *fn, void *arg, char *err, size_t errlen)
{
    struct each e = {.p = p, .fn = fn, .arg = arg};
    struct want *w = NULL;
    int rc = -1;
    if (p->nsegs > UINT32_MAX)
        return cpa_err(err, errlen, "a path of too many segments");
    for (uint32_t k = 0; k < nparts; k++) {
        if (!parts[k] || !parts[k]->lazy)
            continue; /* NULL: a part held elsewhere (a slave's) */
        size_t nw = 0;
        for (size_t i = 0; i < p->nsegs; i++) {
            uint32_t n = lazy_node(&p->segs[i], parts[k], k);
            if (n == UINT32_MAX)
                continue;
            if (!w && !(w = malloc(p->nsegs * sizeof *w))) {
                cpa_err(err, errlen, "out of memory");
                goto out;
            }
            w[nw++] = (struct want){n, (uint32_t)i};
        }
        if (nw == 0)
            continue;
        qsort(w, nw, sizeof *w, by_node);
        e.pag = parts[k];
        e.w = w;
        e.nw = nw;
        e.at = 0;
        if (cpa_scope_init(&e.scope, parts[k], q, err, errlen))
            goto out;
        int r = ips2_pag_shares_each(parts[k], each_one, &e, err, errlen);
        cpa_scope_free(&e.scope);
        if (r) {
            if (e.oom)
                cpa_err(err, errlen, "out of memory");
            goto out;
        }
    }
    rc = 0;
out:
    free(e.tmp);
    free(w);
    return rc;
}

struct fill {
    struct ips2_cpa_share *got; /* the shares found, segment after segment */
    size_t ngot, capgot, base;
    uint32_t *first, *count; /* per segment of the path: in got */
};

static int fill_one(void *arg, size_t seg, const struct ips2_cpa_share *sh, size_t n)
{
    struct fill *f = arg;
    size_t need = f->ngot + n;
    if (need > UINT32_MAX - f->base)
        return 1; /* a path's shares are numbered in 32 bits */
    if (need > f->capgot) {
        size_t cap = f->capgot ? f->capgot * 2 : 1024;
        while (cap < need)
            cap *= 2;
        struct ips2_cpa_share *v = realloc(f->got, cap * sizeof *v);
        if (!v)
            return 1;
        f->got = v;
        f->capgot = cap;
    }
    if (n)
        memcpy(f->got + f->ngot, sh, n * sizeof *sh);
    f->first[seg] = (uint32_t)f->ngot;
    f->count[seg] = (uint32_t)n;
    f->ngot += n;
    return 0;
}

int ips2_cpa_path_add_shares(struct ips2_cpa_path *p, struct ips2_pag *const *parts, size_t nparts,
                             const struct ips2_cpa_query *q, char *err, size_t errlen)
{
    struct fill f = {.base = p->nshares};
    int rc = -1;
    f.first = calloc(p->nsegs ? p->nsegs : 1, sizeof *f.first);
    f.count = calloc(p->nsegs ? p->nsegs : 1, sizeof *f.count);
    if (!f.first || !f.count) {
        cpa_err(err, errlen, "out of memory");
        goto out;
    }
    err[0] = '\0';
    if (ips2_cpa_path_each_shares(p, parts, nparts, q, fill_one, &f, err, errlen)) {
        if (!err[0])
            cpa_err(err, errlen, "out of memory for the path's shares");
        goto out;
    }
    /* the ones found after the path's own (a part read whole gave its
     * segments theirs): segments name their range, in any order */
    size_t base = p->nshares;
    if (base == 0) {
        free(p->shares);
        p->shares = f.got; /* moved: no copy of the path's shares */
        p->sharecap = f.capgot;
        f.got = NULL;
    } else if (f.ngot) {
        struct ips2_cpa_share *sh = realloc(p->shares, (base + f.ngot) * sizeof *sh);
        if (!sh) {
            cpa_err(err, errlen, "out of memory");
            goto out;
        }
        memcpy(sh + base, f.got, f.ngot * sizeof *sh);
        p->shares = sh;
        p->sharecap = base + f.ngot;
    }
    for (size_t i = 0; i < p->nsegs; i++)
        if (f.count[i]) {
            p->segs[i].first_share = (uint32_t)(base + f.first[i]);
            p->segs[i].nshares = f.count[i];
        }
    p->nshares = base + f.ngot;
    if (p->nshares && p->nshares < p->sharecap) { /* the growth's slack back */
        struct ips2_cpa_share *sh = realloc(p->shares, p->nshares * sizeof *sh);
        if (sh) {
            p->shares = sh;
            p->sharecap = p->nshares;
        }
    }
    rc = 0;
out:
    free(f.got);
    free(f.first);
    free(f.count);
    return rc;
}

/* ---- a part's CPU per procedure ------------------------------------------- */

struct cpu {
    struct ips2_cpa_meta *m;
    const struct ips2_pag *pag;
    struct cpa_scope scope; /* nothing zeroed */
    int64_t *sum;           /* per string, then no procedure */
    uint32_t *touched;
    size_t ntouched, cap;
    uint32_t thread; /* whose sums these are */
    struct ips2_cpa_share *tmp;
    size_t tmpcap;
    int oom;
};

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The thread's sums into the meta, in string order then no procedure. */
static int cpu_flush(struct cpu *c)
{
    struct ips2_cpa_meta *m = c->m;
    size_t none = c->pag->nstrings;
    qsort(c->touched, c->ntouched, sizeof *c->touched, cmp_u32);
    for (size_t i = 0; i < c->ntouched; i++) {
        uint32_t slot = c->touched[i];
        if (m->ncpu == c->cap) {
            size_t cap = c->cap ? c->cap * 2 : 64;
            struct ips2_cpa_proc_cpu *v = realloc(m->cpu, cap * sizeof *v);
            if (!v)
                return c->oom = 1;
            m->cpu = v;
            c->cap = cap;
        }
        m->cpu[m->ncpu++] = (struct ips2_cpa_proc_cpu){
            c->thread, slot == none ? IPS2_PAG_NONE : slot, c->sum[slot]};
        c->sum[slot] = 0;
    }
    c->ntouched = 0;
    return 0;
}

static int cpu_one(void *arg, uint32_t n, const struct ips2_pag_share *sh, size_t nsh)
{
    struct cpu *c = arg;
    const struct ips2_pag *pag = c->pag;
    uint32_t t = pag->nodes[n].thread;
    if (t != c->thread) {
        if (cpu_flush(c))
            return 1;
        c->thread = t;
    }
    if (n == pag->threads[t].first)
        return 0;
    if (nsh + 1 > c->tmpcap) {
        struct ips2_cpa_share *v = realloc(c->tmp, (nsh + 1) * 2 * sizeof *v);
        if (!v)
            return c->oom = 1;
        c->tmp = v;
        c->tmpcap = (nsh + 1) * 2;
    }
    long k = cpa_arc_shares(&c->scope, pag, n, pag->nodes[n].cpu, sh, nsh, c->tmp);
    if (k < 0)
        return c->oom = 1;
    for (long i = 0; i < k; i++) {
        uint32_t p = c->tmp[i].proc;
        size_t slot = p == IPS2_PAG_NONE || p >= pag->nstrings ? pag->nstrings : p;
        if (c->sum[slot] == 0)
            c->touched[c->ntouched++] = (uint32_t)slot;
        c->sum[slot] += c->tmp[i].cpu;
    }
    return 0;
}

int ips2_cpa_meta_add_cpu(struct ips2_cpa_meta *m, const struct ips2_pag *pag, char *err,
                          size_t errlen)
{
    if (!m->cpu_later)
        return 0;
    struct cpu c = {.m = m, .pag = pag, .thread = 0};
    int rc = -1;
    c.scope.tflags = calloc(pag->nthreads ? pag->nthreads : 1, 1);
    c.sum = calloc(pag->nstrings + 1, sizeof *c.sum);
    c.touched = malloc((pag->nstrings + 1) * sizeof *c.touched);
    if (!c.scope.tflags || !c.sum || !c.touched) {
        cpa_err(err, errlen, "out of memory");
        goto out;
    }
    free(m->cpu);
    m->cpu = NULL;
    m->ncpu = 0;
    if (ips2_pag_shares_each(pag, cpu_one, &c, err, errlen) || cpu_flush(&c)) {
        if (c.oom)
            cpa_err(err, errlen, "out of memory");
        goto out;
    }
    m->cpu_later = 0;
    rc = 0;
out:
    free(c.scope.tflags);
    free(c.sum);
    free(c.touched);
    free(c.tmp);
    return rc;
}
