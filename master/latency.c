/*
 * latency.c - the latency table and a procedure's latency histogram
 * (latency.h).  The procedure rows under a node are gathered with the
 * latency row of each (found by binary search: lats[] is in procs[]
 * order), sorted by name, and each name's rows merged bucket by bucket
 * (ips2_lat_merge), so the percentiles are those of every activation
 * under the node, exactly as if one thread had made them all, within the
 * buckets' 1/128.
 */
#include <stdlib.h>
#include <string.h>

#include "latency.h"

/* One procedure row under the node. */
struct lrow {
    const char *name;
    const struct ips2_reductions *r;
    uint32_t proc;
};

struct llist {
    struct ips2_model *m;
    struct lrow *r;
    size_t n, cap;
    bool oom;
};

static void push(struct llist *l, const struct ips2_reductions *r, uint32_t proc)
{
    if (l->n == l->cap) {
        size_t ncap = l->cap ? 2 * l->cap : 64;
        void *p = realloc(l->r, ncap * sizeof(*l->r));
        if (!p) {
            l->oom = true;
            return;
        }
        l->r = p;
        l->cap = ncap;
    }
    l->r[l->n++] = (struct lrow){r->strings[r->procs[proc].name], r, proc};
}

static void procs_of_thread(void *arg, const struct ips2_node *thread, const struct ips2_ref *ref)
{
    struct llist *l = arg;
    const struct ips2_reductions *r = l->m->slots[ref->slot].r;
    const struct ips2_red_thread *t = &r->threads[ref->row];

    (void)thread;
    for (uint32_t k = t->first_proc; k < t->first_proc + t->nprocs && !l->oom; k++)
        push(l, r, k);
}

/* The rows under n: a procedure node's own, else its threads'. */
static void gather(struct ips2_model *m, const struct ips2_node *n, struct llist *l)
{
    l->m = m;
    if (n->kind == IPS2_NODE_PROC) {
        for (size_t i = 0; i < n->nrefs && !l->oom; i++)
            push(l, m->slots[n->refs[i].slot].r, n->refs[i].row);
    } else {
        ips2_node_threads(n, procs_of_thread, l);
    }
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(((const struct lrow *)a)->name, ((const struct lrow *)b)->name);
}

/* The latency row of procedure row proc, or NULL. */
static const struct ips2_red_latency *lat_of(const struct ips2_reductions *r, uint32_t proc)
{
    size_t lo = 0, hi = r->nlats;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->lats[mid].proc < proc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->nlats && r->lats[lo].proc == proc ? &r->lats[lo] : NULL;
}

/* Merges rows[0..n) into out; false on OOM. */
static bool merge_rows(const struct lrow *rows, size_t n, struct ips2_lat *out, bool *available)
{
    *available = true;
    for (size_t i = 0; i < n; i++) {
        const struct ips2_reductions *r = rows[i].r;
        if (!r->latency) {
            *available = false;
            continue;
        }
        const struct ips2_red_latency *x = lat_of(r, rows[i].proc);
        if (x && ips2_lat_merge(out, x->bins, x->nbins, x->count, r->procs[rows[i].proc].incl_wall,
                                x->max_ns) < 0)
            return false;
    }
    return true;
}

/* ---------------------------------------------------------------- table --- */

enum { C_PROC, C_COUNT, C_MEAN, C_P50, C_P90, C_P99, C_MAX, C_TOTAL, NCOLS };
static const char *const col_names[NCOLS] = {"procedure", "count", "mean", "p50",
                                             "p90",       "p99",   "max",  "total"};
static const char *const col_units[NCOLS] = {"", "", "ns", "ns", "ns", "ns", "ns", "ns"};

struct lstat {
    const char *name;
    bool available;
    uint64_t v[NCOLS]; /* by column; C_PROC unused */
};

static int cmp_stat(const void *a, const void *b, void *arg)
{
    const struct lstat *x = a, *y = b;
    const int sort_col = *(const int *)arg;

    if (x->available != y->available)
        return x->available ? -1 : 1;
    if (sort_col != C_PROC && x->v[sort_col] != y->v[sort_col])
        return x->v[sort_col] > y->v[sort_col] ? -1 : 1;
    if (x->v[C_TOTAL] != y->v[C_TOTAL] && sort_col != C_PROC)
        return x->v[C_TOTAL] > y->v[C_TOTAL] ? -1 : 1;
    return strcmp(x->name, y->name);
}

static struct ips2_table *nomem(struct ips2_table *t, char *err)
{
    ips2_table_free(t);
    ips2_set_error(err, "out of memory");
    return NULL;
}

struct ips2_table *ips2_latency_table(struct ips2_model *m, const struct ips2_node *n,
                                      const char *sort, char *err)
{
    struct llist l = {0};
    struct lstat *st = NULL;
    size_t nst = 0;
    struct ips2_table *t = NULL;
    int col = C_TOTAL;

    if (sort) {
        for (col = 0; col < NCOLS && strcmp(col_names[col], sort) != 0; col++)
            ;
        if (col == NCOLS) {
            ips2_set_error(err,
                           "unknown column \"%s\": expected procedure, count, mean, p50, p90, "
                           "p99, max or total",
                           sort);
            return NULL;
        }
    }
    gather(m, n, &l);
    if (l.oom || !(st = calloc(l.n ? l.n : 1, sizeof(*st))))
        goto oom;
    if (l.n)
        qsort(l.r, l.n, sizeof(*l.r), cmp_name);
    for (size_t i = 0; i < l.n;) {
        size_t j = i;
        while (j < l.n && strcmp(l.r[j].name, l.r[i].name) == 0)
            j++;
        struct ips2_lat d = {0};
        struct lstat *s = &st[nst];
        if (!merge_rows(l.r + i, j - i, &d, &s->available)) {
            ips2_lat_free(&d);
            goto oom;
        }
        s->name = l.r[i].name;
        if (!s->available || d.count > 0) {
            s->v[C_COUNT] = d.count;
            s->v[C_MEAN] = d.count ? (d.sum_ns + d.count / 2) / d.count : 0;
            s->v[C_P50] = ips2_lat_percentile(&d, 0.50);
            s->v[C_P90] = ips2_lat_percentile(&d, 0.90);
            s->v[C_P99] = ips2_lat_percentile(&d, 0.99);
            s->v[C_MAX] = d.max_ns;
            s->v[C_TOTAL] = d.sum_ns;
            nst++;
        }
        ips2_lat_free(&d);
        i = j;
    }
    if (nst)
        qsort_r(st, nst, sizeof(*st), cmp_stat, &col);
    if (!(t = ips2_table_new(NCOLS)))
        goto oom;
    for (int c = 0; c < NCOLS; c++)
        if (ips2_table_column(t, (size_t)c, col_names[c], col_units[c]))
            goto oom;
    for (size_t i = 0; i < nst; i++) {
        long row = ips2_table_row(t);
        if (row < 0 || ips2_table_str(t, (size_t)row, C_PROC, st[i].name))
            goto oom;
        for (int c = C_COUNT; c < NCOLS; c++) {
            if (!st[i].available) {
                if (ips2_table_str(t, (size_t)row, (size_t)c, "n/a"))
                    goto oom;
            } else {
                ips2_table_int(t, (size_t)row, (size_t)c, (int64_t)st[i].v[c]);
            }
        }
    }
    free(l.r);
    free(st);
    return t;
oom:
    free(l.r);
    free(st);
    return nomem(t, err);
}

int ips2_latency_of(struct ips2_model *m, const struct ips2_node *n, const char *name,
                    struct ips2_lat *out, bool *available, char *err)
{
    struct llist l = {0};
    size_t k = 0;

    memset(out, 0, sizeof(*out));
    gather(m, n, &l);
    if (l.oom)
        goto oom;
    for (size_t i = 0; i < l.n; i++)
        if (strcmp(l.r[i].name, name) == 0)
            l.r[k++] = l.r[i];
    if (k == 0) {
        free(l.r);
        ips2_set_error(err, "no procedure \"%s\" under %s", name, n->path);
        return -1;
    }
    if (!merge_rows(l.r, k, out, available))
        goto oom;
    free(l.r);
    return 0;
oom:
    free(l.r);
    ips2_lat_free(out);
    ips2_set_error(err, "out of memory");
    return -1;
}

/* ------------------------------------------------------------ histogram --- */

/* The display bucket of a duration with 2^k buckets per power of two (as
 * ips2_lat_bucket() with k bits), and its bounds. */
static uint32_t disp_bucket(uint64_t v, unsigned k)
{
    unsigned e = 63u - (unsigned)__builtin_clzll(v | (UINT64_C(1) << k));
    unsigned s = e - k;
    return (uint32_t)((s << k) + (v >> s));
}

static uint64_t disp_low(uint32_t b, unsigned k)
{
    if (b < (1u << k))
        return b;
    unsigned s = (b >> k) - 1;
    return (uint64_t)(b - (s << k)) << s;
}

static uint64_t disp_high(uint32_t b, unsigned k)
{
    if (b < (1u << k))
        return b;
    unsigned s = (b >> k) - 1;
    return disp_low(b, k) + ((UINT64_C(1) << s) - 1);
}

struct ips2_table *ips2_latency_histogram(const struct ips2_lat *l, unsigned per_octave, char *err)
{
    static const char *const names[] = {"low", "high", "count", "percent"};
    static const char *const units[] = {"ns", "ns", "", "%"};
    struct ips2_table *t;
    unsigned k = 0;

    if (per_octave < 1 || per_octave > IPS2_LAT_SUB || (per_octave & (per_octave - 1))) {
        ips2_set_error(err, "expected 1 to %u buckets per power of two, a power of two, found %u",
                       IPS2_LAT_SUB, per_octave);
        return NULL;
    }
    while ((1u << k) < per_octave)
        k++;
    if (!(t = ips2_table_new(4)))
        return nomem(NULL, err);
    for (size_t c = 0; c < 4; c++)
        if (ips2_table_column(t, c, names[c], units[c]))
            return nomem(t, err);
    if (l->nbins == 0)
        return t;
    uint32_t first = disp_bucket(ips2_lat_low(l->bins[0].bucket), k);
    uint32_t last = disp_bucket(ips2_lat_low(l->bins[l->nbins - 1].bucket), k);
    size_t i = 0;
    for (uint32_t b = first; b <= last; b++) {
        uint64_t count = 0;
        while (i < l->nbins && disp_bucket(ips2_lat_low(l->bins[i].bucket), k) == b)
            count += l->bins[i++].count;
        long row = ips2_table_row(t);
        if (row < 0)
            return nomem(t, err);
        ips2_table_int(t, (size_t)row, 0, (int64_t)disp_low(b, k));
        ips2_table_int(t, (size_t)row, 1, (int64_t)disp_high(b, k));
        ips2_table_int(t, (size_t)row, 2, (int64_t)count);
        ips2_table_real(t, (size_t)row, 3,
                        l->count ? 100.0 * (double)count / (double)l->count : 0.0);
    }
    return t;
}
