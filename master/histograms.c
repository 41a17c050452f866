/*
 * histograms.c - time histograms of tree nodes and normalized processor
 * time (tables.h has the definitions).
 *
 * A node's histogram of a metric is the sum of its threads' histograms of
 * that metric (for a procedure node, of its rows' histograms), each shifted
 * by its application's comparison-mode shift and rebinned onto one grid:
 * width = the widest of them (slaves double widths as histograms fill, so
 * widths differ by powers of two), origin = the earliest start.  Rebinning
 * spreads a bucket over the target buckets in proportion to overlap; when
 * the grids line up (same origin, widths dividing) it is exact.
 *
 * NPT needs, per run and tree, the concurrency series c(b); it is built on
 * first use and cached in the model (model->npt) until the model is
 * indexed again.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tables.h"

struct npt_group {
    const struct ips2_node *root;
    char *source;
    struct ips2_hist c; /* concurrency per bucket; n = 0 if no thread had a CPU histogram */
};

struct ips2_npt_cache {
    struct npt_group *g;
    size_t n;
};

void ips2_hist_free(struct ips2_hist *h)
{
    if (h) {
        free(h->v);
        h->v = NULL;
        h->n = 0;
    }
}

void ips2_npt_cache_free(struct ips2_npt_cache *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->g[i].source);
        ips2_hist_free(&c->g[i].c);
    }
    free(c->g);
    free(c);
}

static int64_t floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

void ips2_hist_rebin(struct ips2_hist *dst, int64_t origin, uint64_t width, size_t n,
                     const double *v, double scale)
{
    int64_t w = (int64_t)dst->width, dend;

    if (dst->n == 0 || w <= 0 || width == 0)
        return;
    dend = dst->origin + (int64_t)dst->n * w;
    for (size_t i = 0; i < n; i++) {
        int64_t s = origin + (int64_t)(i * width), e = s + (int64_t)width, j;
        double x = v[i] * scale;
        if (x == 0 || e <= dst->origin || s >= dend)
            continue;
        j = floordiv(s - dst->origin, w);
        if (j < 0)
            j = 0;
        for (; (size_t)j < dst->n; j++) {
            int64_t bs = dst->origin + j * w, be = bs + w;
            int64_t lo = s > bs ? s : bs, hi = e < be ? e : be;
            if (bs >= e)
                break;
            if (hi > lo)
                dst->v[j] += hi - lo == (int64_t)width ? x : x * (double)(hi - lo) / (double)width;
        }
    }
}

/* ------------------------------------------------------------- sources --- */

struct source {
    const struct ips2_red_hist *h;
    int64_t shift;
    int owner; /* application */
};

struct collect {
    struct ips2_model *m;
    int metric;
    const char *source; /* only threads of this run (NULL: all) */
    struct source *s;
    size_t n, cap;
    size_t missing;
    int oom;
};

/* The histogram of metric for thread row t (proc == IPS2_RED_NONE) or for
 * procedure row proc of it, or NULL. */
static const struct ips2_red_hist *find_hist(const struct ips2_model *m, uint32_t slot, uint32_t t,
                                             uint32_t proc, int metric)
{
    const struct ips2_red_slot *s = &m->slots[slot];

    for (uint32_t k = s->hist_at[t]; k < s->hist_at[t + 1]; k++) {
        const struct ips2_red_hist *h = &s->r->hists[s->hist_ix[k]];
        if (h->proc == proc && h->object == IPS2_RED_NONE && (int)h->metric == metric)
            return h;
    }
    return NULL;
}

static void add_source(struct collect *c, const struct ips2_red_hist *h, int owner)
{
    if (h == NULL) {
        c->missing++;
        return;
    }
    if (c->n == c->cap) {
        size_t ncap = c->cap ? 2 * c->cap : 16;
        void *p = realloc(c->s, ncap * sizeof(*c->s));
        if (p == NULL) {
            c->oom = 1;
            return;
        }
        c->s = p;
        c->cap = ncap;
    }
    c->s[c->n].h = h;
    c->s[c->n].shift = ips2_model_shift_of(c->m, owner);
    c->s[c->n].owner = owner;
    c->n++;
}

static void collect_thread(void *arg, const struct ips2_node *thread, const struct ips2_ref *ref)
{
    struct collect *c = arg;

    if (c->source && strcmp(c->m->apps[thread->owner].source, c->source) != 0)
        return;
    add_source(c, find_hist(c->m, ref->slot, ref->row, IPS2_RED_NONE, c->metric), thread->owner);
}

/* The external data rows of metric on n and the process nodes under it;
 * a collector node's only when n is that node (the machine as a whole is
 * no part of a sum over processes). */
static void collect_ext(struct collect *c, const struct ips2_node *n, bool top)
{
    if (n->kind == IPS2_NODE_COLLECTOR && !top)
        return;
    for (size_t i = 0; i < n->next; i++) {
        const struct ips2_ref *ref = &n->ext[i];
        const struct ips2_red_hist *h = &c->m->slots[ref->slot].ext_hist[ref->row];
        if ((int)h->metric == c->metric)
            add_source(c, h, n->kind == IPS2_NODE_PROCESS ? n->owner : -1);
    }
    if (n->kind != IPS2_NODE_THREAD && n->kind != IPS2_NODE_PROC)
        for (size_t i = 0; i < n->nchild; i++)
            collect_ext(c, n->child[i], false);
}

/* The histograms of metric under n: a procedure node's rows', or every
 * thread's under any other node; for a collectors' metric, the external
 * data rows of the processes under n (or of n, a collector). */
static int collect(struct ips2_model *m, const struct ips2_node *n, int metric, const char *source,
                   struct collect *c)
{
    memset(c, 0, sizeof(*c));
    c->m = m;
    c->metric = metric;
    c->source = source;
    if (ips2_metric_is_external(metric)) {
        collect_ext(c, n, true);
    } else if (n->kind == IPS2_NODE_PROC) {
        for (size_t i = 0; i < n->nrefs; i++) {
            const struct ips2_ref *ref = &n->refs[i];
            uint32_t t = m->slots[ref->slot].r->procs[ref->row].thread;
            add_source(c, find_hist(m, ref->slot, t, ref->row, metric), n->owner);
        }
    } else {
        ips2_node_threads(n, collect_thread, c);
    }
    return c->oom ? -1 : 0;
}

/* A grid covering the sources (and grids g[0..ng)), width >= min_width.
 * Allocates out->v; 0 or -1 (OOM). */
static int make_grid(const struct source *s, size_t n, const struct ips2_hist *const *g, size_t ng,
                     uint64_t min_width, struct ips2_hist *out)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    uint64_t w = min_width;

    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < n; i++) {
        const struct ips2_red_hist *h = s[i].h;
        int64_t a = h->start_ns + s[i].shift, b = a + (int64_t)(h->nbuckets * h->width_ns);
        if (h->nbuckets == 0)
            continue;
        if (h->width_ns > w)
            w = h->width_ns;
        if (a < lo)
            lo = a;
        if (b > hi)
            hi = b;
    }
    for (size_t i = 0; i < ng; i++) {
        if (g[i]->n == 0)
            continue;
        if (g[i]->width > w)
            w = g[i]->width;
        if (g[i]->origin < lo)
            lo = g[i]->origin;
        if (g[i]->origin + (int64_t)(g[i]->n * g[i]->width) > hi)
            hi = g[i]->origin + (int64_t)(g[i]->n * g[i]->width);
    }
    if (lo >= hi || w == 0)
        return 0; /* empty */
    out->origin = lo;
    out->width = w;
    out->n = (size_t)((hi - lo + (int64_t)w - 1) / (int64_t)w);
    out->v = calloc(out->n, sizeof(double));
    return out->v ? 0 : -1;
}

static void add_all(struct ips2_hist *dst, const struct source *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ips2_hist_rebin(dst, s[i].h->start_ns + s[i].shift, s[i].h->width_ns, s[i].h->nbuckets,
                        s[i].h->v, 1.0);
}

/* ---------------------------------------------------------- concurrency --- */

/* The concurrency series of the threads of root's tree in run source. */
static const struct ips2_hist *group_get(struct ips2_model *m, const struct ips2_node *root,
                                         const char *source)
{
    struct ips2_npt_cache *cache = m->npt;
    struct npt_group *g;
    struct collect c;
    void *p;

    if (cache == NULL && (cache = m->npt = calloc(1, sizeof(*cache))) == NULL)
        return NULL;
    for (size_t i = 0; i < cache->n; i++)
        if (cache->g[i].root == root && strcmp(cache->g[i].source, source) == 0)
            return &cache->g[i].c;
    p = realloc(cache->g, (cache->n + 1) * sizeof(*cache->g));
    if (p == NULL)
        return NULL;
    cache->g = p;
    g = &cache->g[cache->n];
    memset(g, 0, sizeof(*g));
    g->root = root;
    if ((g->source = strdup(source)) == NULL)
        return NULL;
    if (collect(m, root, IPS2_M_CPU, source, &c) != 0 || make_grid(c.s, c.n, NULL, 0, 0, &g->c)) {
        free(c.s);
        free(g->source);
        return NULL;
    }
    add_all(&g->c, c.s, c.n);
    free(c.s);
    for (size_t b = 0; b < g->c.n; b++) {
        g->c.v[b] /= (double)g->c.width;
        if (g->c.v[b] < 1)
            g->c.v[b] = 1;
    }
    cache->n++;
    return &g->c;
}

/* The NPT series of one CPU histogram on its group's grid, into tmp (a
 * zeroed hist with the group's grid).  Returns the total. */
static double npt_series(const struct ips2_hist *conc, const struct source *s,
                         struct ips2_hist *tmp)
{
    double sum = 0;

    ips2_hist_rebin(tmp, s->h->start_ns + s->shift, s->h->width_ns, s->h->nbuckets, s->h->v, 1.0);
    for (size_t b = 0; b < tmp->n; b++) {
        tmp->v[b] /= conc->v[b];
        sum += tmp->v[b];
    }
    return sum;
}

static double plain_sum(const struct ips2_red_hist *h)
{
    double sum = 0;
    for (uint32_t b = 0; b < h->nbuckets; b++)
        sum += h->v[b];
    return sum;
}

/* NPT of one CPU histogram; scratch is reused between calls. */
static int npt_one(struct ips2_model *m, const struct ips2_node *root, const struct source *s,
                   double *npt, struct ips2_hist *scratch)
{
    const struct ips2_hist *conc = group_get(m, root, m->apps[s->owner].source);

    if (conc == NULL)
        return -1;
    if (conc->n == 0) {
        *npt = plain_sum(s->h);
        return 0;
    }
    if (scratch->n < conc->n) {
        void *p = realloc(scratch->v, conc->n * sizeof(double));
        if (p == NULL)
            return -1;
        scratch->v = p;
    }
    scratch->origin = conc->origin;
    scratch->width = conc->width;
    scratch->n = conc->n;
    memset(scratch->v, 0, conc->n * sizeof(double));
    *npt = npt_series(conc, s, scratch);
    return 0;
}

struct npt_walk {
    struct ips2_model *m;
    const struct ips2_node *root;
    struct ips2_hist scratch;
    double sum;
    int oom;
};

static void npt_thread(void *arg, const struct ips2_node *thread, const struct ips2_ref *ref)
{
    struct npt_walk *w = arg;
    const struct ips2_red_hist *h = find_hist(w->m, ref->slot, ref->row, IPS2_RED_NONE, IPS2_M_CPU);
    struct source s = {h, ips2_model_shift_of(w->m, thread->owner), thread->owner};
    double v;

    if (h == NULL) {
        w->sum += (double)w->m->slots[ref->slot].r->threads[ref->row].m[IPS2_M_CPU];
        return;
    }
    if (npt_one(w->m, w->root, &s, &v, &w->scratch) != 0)
        w->oom = 1;
    else
        w->sum += v;
}

int ips2_node_npt(struct ips2_model *m, const struct ips2_node *n, double *npt, char *err)
{
    struct npt_walk w = {.m = m, .root = ips2_node_root(n)};

    if (n->kind != IPS2_NODE_PROC) {
        ips2_node_threads(n, npt_thread, &w);
    } else {
        for (size_t i = 0; i < n->nrefs && !w.oom; i++) {
            const struct ips2_reductions *r = m->slots[n->refs[i].slot].r;
            const struct ips2_red_proc *row = &r->procs[n->refs[i].row];
            const struct ips2_red_hist *h =
                find_hist(m, n->refs[i].slot, row->thread, n->refs[i].row, IPS2_M_CPU);
            struct source s = {h, ips2_model_shift_of(m, n->owner), n->owner};
            double v = 0, tv, tcpu;
            if (h) {
                if (npt_one(m, w.root, &s, &v, &w.scratch) != 0)
                    w.oom = 1;
                w.sum += v;
                continue;
            }
            /* no histogram of its own: its thread's ratio */
            s.h = find_hist(m, n->refs[i].slot, row->thread, IPS2_RED_NONE, IPS2_M_CPU);
            tcpu = (double)r->threads[row->thread].m[IPS2_M_CPU];
            if (s.h == NULL || tcpu == 0) {
                w.sum += (double)row->m[IPS2_M_CPU];
            } else if (npt_one(m, w.root, &s, &tv, &w.scratch) != 0) {
                w.oom = 1;
            } else {
                w.sum += (double)row->m[IPS2_M_CPU] * tv / tcpu;
            }
        }
    }
    free(w.scratch.v);
    if (w.oom) {
        ips2_set_error(err, "out of memory computing NPT of %s", n->path);
        return -1;
    }
    *npt = w.sum;
    return 0;
}

/* ----------------------------------------------------------- histograms --- */

/* The NPT histogram: each CPU histogram's NPT series on its group's grid,
 * rebinned onto one grid covering all the groups. */
static int npt_histogram(struct ips2_model *m, const struct ips2_node *n, uint64_t min_width,
                         struct ips2_hist *out, size_t *missing, char *err)
{
    const struct ips2_node *root = ips2_node_root(n);
    const struct ips2_hist **groups = NULL;
    struct ips2_hist tmp = {0};
    struct collect c;
    int rc = -1;

    if (collect(m, n, IPS2_M_CPU, NULL, &c) != 0)
        goto out;
    groups = calloc(c.n ? c.n : 1, sizeof(*groups));
    if (groups == NULL)
        goto out;
    for (size_t i = 0; i < c.n; i++)
        if ((groups[i] = group_get(m, root, m->apps[c.s[i].owner].source)) == NULL)
            goto out;
    if (make_grid(c.s, c.n, groups, c.n, min_width, out) != 0)
        goto out;
    for (size_t i = 0; i < c.n; i++) {
        const struct ips2_hist *conc = groups[i];
        if (conc->n == 0) {
            ips2_hist_rebin(out, c.s[i].h->start_ns + c.s[i].shift, c.s[i].h->width_ns,
                            c.s[i].h->nbuckets, c.s[i].h->v, 1.0);
            continue;
        }
        free(tmp.v);
        tmp = *conc;
        tmp.v = calloc(conc->n, sizeof(double));
        if (tmp.v == NULL)
            goto out;
        npt_series(conc, &c.s[i], &tmp);
        ips2_hist_rebin(out, tmp.origin, tmp.width, tmp.n, tmp.v, 1.0);
    }
    *missing = c.missing;
    rc = 0;
out:
    if (rc != 0) {
        ips2_hist_free(out);
        ips2_set_error(err, "out of memory making the NPT histogram of %s", n->path);
    }
    free(tmp.v);
    free(groups);
    free(c.s);
    return rc;
}

int ips2_node_histogram(struct ips2_model *m, const struct ips2_node *n, int metric,
                        uint64_t min_width, struct ips2_hist *out, size_t *missing, char *err)
{
    struct collect c;

    memset(out, 0, sizeof(*out));
    *missing = 0;
    if (metric == IPS2_X_NPT)
        return npt_histogram(m, n, min_width, out, missing, err);
    if (metric < 0 || metric >= IPS2_M_COUNT) {
        ips2_set_error(err, "no histograms of metric \"%s\"", ips2_any_metric_name(metric));
        return -1;
    }
    if (collect(m, n, metric, NULL, &c) != 0 || make_grid(c.s, c.n, NULL, 0, min_width, out)) {
        free(c.s);
        ips2_set_error(err, "out of memory making the histogram of %s", n->path);
        return -1;
    }
    add_all(out, c.s, c.n);
    *missing = c.missing;
    free(c.s);
    return 0;
}

struct ips2_table *ips2_histogram_table(const struct ips2_hist *h, int metric, int64_t from,
                                        int64_t to, char *err)
{
    struct ips2_table *t = ips2_table_new(3);

    if (t == NULL || ips2_table_column(t, 0, "start", "ns") ||
        ips2_table_column(t, 1, "end", "ns") ||
        ips2_table_column(t, 2, ips2_any_metric_name(metric), ips2_any_metric_unit(metric)))
        goto oom;
    for (size_t b = 0; b < h->n; b++) {
        int64_t s = h->origin + (int64_t)(b * h->width), e = s + (int64_t)h->width;
        long row;
        if (e <= from || s >= to)
            continue;
        if ((row = ips2_table_row(t)) < 0)
            goto oom;
        ips2_table_int(t, (size_t)row, 0, s < from ? from : s);
        ips2_table_int(t, (size_t)row, 1, e > to ? to : e);
        ips2_table_real(t, (size_t)row, 2, h->v[b]);
    }
    return t;
oom:
    ips2_table_free(t);
    ips2_set_error(err, "out of memory");
    return NULL;
}
