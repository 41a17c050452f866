/*
 * reduce_emit.c - turns one finished thread reduction (struct rt) into
 * rows of the reductions: the thread, its procedures (rows of the same
 * name merged: two static functions of one name are one procedure to the
 * master, whose node paths use names), its arcs between named procedures,
 * its histograms and its objects.
 */
#include <stdlib.h>
#include <string.h>

#include "reduce_internal.h"

/* A small map from a 64-bit key to an index, for one thread's merging. */
struct imap {
    uint64_t *key; /* key + 1, 0 = empty */
    uint32_t *val;
    size_t mask;
};

static bool imap_init(struct imap *m, size_t n)
{
    size_t size = 16;

    while (size < n * 2)
        size *= 2;
    m->mask = size - 1;
    m->key = calloc(size, sizeof(*m->key));
    m->val = calloc(size, sizeof(*m->val));
    return m->key && m->val;
}

static void imap_free(struct imap *m)
{
    free(m->key);
    free(m->val);
}

/* The slot of key: *found says whether it holds key already. */
static size_t imap_slot(const struct imap *m, uint64_t key, bool *found)
{
    size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & m->mask;

    for (; m->key[i]; i = (i + 1) & m->mask)
        if (m->key[i] == key + 1) {
            *found = true;
            return i;
        }
    *found = false;
    return i;
}

/* Adds src's buckets into dst (same geometry). */
static bool hist_sum(struct ips2_red_hist *dst, const struct red_hist *src)
{
    if (src->n > dst->nbuckets) {
        double *v = realloc(dst->v, (size_t)src->n * sizeof(double));
        if (!v)
            return false;
        memset(v + dst->nbuckets, 0, (size_t)(src->n - dst->nbuckets) * sizeof(double));
        dst->v = v;
        dst->nbuckets = src->n;
    }
    for (uint32_t i = 0; i < src->n; i++)
        dst->v[i] += src->v[i];
    return true;
}

/* Appends a histogram row; its index, or IPS2_RED_NONE. */
static uint32_t emit_hist(struct red_build *b, const struct rt *r, uint32_t thread, uint32_t proc,
                          unsigned metric, const struct red_hist *h)
{
    struct ips2_red_hist *row = RED_PUSH(b, hists);

    if (!row)
        return IPS2_RED_NONE;
    row->thread = thread;
    row->proc = proc;
    row->object = IPS2_RED_NONE;
    row->metric = metric;
    row->start_ns = r->geom.start;
    row->width_ns = r->geom.width;
    if (!hist_sum(row, h))
        b->oom = true;
    return (uint32_t)(b->r->nhists - 1);
}

static void emit_procs(struct red_build *b, const struct rt *r, uint32_t thread, uint32_t *map,
                       red_name_fn name, void *name_arg)
{
    struct imap byname;

    if (!imap_init(&byname, r->nprocs)) {
        b->oom = true;
        return;
    }
    for (uint32_t i = 1; i < r->nprocs; i++) {
        const struct rt_proc *p = &r->procs[i];
        uint32_t s = name(name_arg, p->addr);
        bool found;
        size_t slot = imap_slot(&byname, s, &found);
        struct ips2_red_proc *row;
        if (found) {
            map[i] = byname.val[slot];
            row = &b->r->procs[map[i]];
        } else {
            row = RED_PUSH(b, procs);
            if (!row)
                break;
            row->thread = thread;
            row->name = s;
            map[i] = (uint32_t)(b->r->nprocs - 1);
            byname.key[slot] = (uint64_t)s + 1;
            byname.val[slot] = map[i];
        }
        for (unsigned m = 0; m < IPS2_M_COUNT; m++)
            row->m[m] += p->m[m];
        row->incl_cpu += p->incl_cpu;
        row->incl_wall += p->incl_wall;
    }
    imap_free(&byname);
}

static void emit_arcs(struct red_build *b, const struct rt *r, uint32_t thread, const uint32_t *map)
{
    struct imap byends;

    if (!imap_init(&byends, r->narcs)) {
        b->oom = true;
        return;
    }
    for (uint32_t i = 0; i < r->narcs; i++) {
        const struct rt_arc *a = &r->arcs[i];
        if (a->count == 0 && a->child_cpu == 0)
            continue;
        uint32_t caller = a->caller ? b->r->procs[map[a->caller]].name : IPS2_RED_NONE;
        uint32_t callee = b->r->procs[map[a->callee]].name;
        uint64_t key = (uint64_t)caller << 32 | callee;
        bool found;
        size_t slot = imap_slot(&byends, key, &found);
        struct ips2_red_arc *row;
        if (found) {
            row = &b->r->arcs[byends.val[slot]];
        } else {
            row = RED_PUSH(b, arcs);
            if (!row)
                break;
            row->thread = thread;
            row->caller = caller;
            row->callee = callee;
            byends.key[slot] = key + 1;
            byends.val[slot] = (uint32_t)(b->r->narcs - 1);
        }
        row->count += a->count;
        row->child_cpu += a->child_cpu;
    }
    imap_free(&byends);
}

/* The histogram of one metric of procedure i: CPU (slot -1) or one of
 * rt_proc_hist_metrics; NULL if it has none. */
static const struct red_hist *proc_hist_of(const struct rt *r, uint32_t i, int slot)
{
    const struct rt_proc *p = &r->procs[i];

    if (slot < 0)
        return &p->hist;
    return p->mhist ? &p->mhist[slot] : NULL;
}

/* One metric's histograms of the thread's procedures (rows of one name
 * summed into one), row_of[] (one per procedure row) left saying which
 * row each got, IPS2_RED_NONE for none. */
static void emit_proc_metric(struct red_build *b, const struct rt *r, uint32_t thread,
                             const uint32_t *map, uint32_t first_proc, uint32_t *row_of,
                             uint32_t nout, int slot)
{
    unsigned metric = slot < 0 ? IPS2_M_CPU : rt_proc_hist_metrics[slot];

    for (uint32_t j = 0; j < nout; j++)
        row_of[j] = IPS2_RED_NONE;
    for (uint32_t i = 1; i < r->nprocs; i++) {
        const struct red_hist *h = proc_hist_of(r, i, slot);
        if (!h || h->n == 0)
            continue;
        uint32_t j = map[i] - first_proc;
        if (row_of[j] == IPS2_RED_NONE)
            row_of[j] = emit_hist(b, r, thread, map[i], metric, h);
        else if (!hist_sum(&b->r->hists[row_of[j]], h))
            b->oom = true;
    }
}

/* The thread's histograms: its CPU, its procedures' CPU (every one, if
 * only an empty one), its interaction metrics that occurred, then its
 * procedures' interaction metrics that occurred. */
static void emit_hists(struct red_build *b, const struct rt *r, uint32_t thread,
                       const uint32_t *map, uint32_t first_proc)
{
    uint32_t nout = (uint32_t)(b->r->nprocs - first_proc);
    uint32_t *row_of = malloc(((size_t)nout + 1) * sizeof(*row_of));

    if (!row_of) {
        b->oom = true;
        return;
    }
    emit_hist(b, r, thread, IPS2_RED_NONE, IPS2_M_CPU, &r->cpu_hist);
    emit_proc_metric(b, r, thread, map, first_proc, row_of, nout, -1);
    const struct red_hist none = {0};
    for (uint32_t j = 0; j < nout; j++)
        if (row_of[j] == IPS2_RED_NONE)
            emit_hist(b, r, thread, first_proc + j, IPS2_M_CPU, &none);
    for (unsigned m = 0; m < IPS2_M_COUNT; m++)
        if (r->mhist[m].n)
            emit_hist(b, r, thread, IPS2_RED_NONE, m, &r->mhist[m]);
    for (int slot = 0; slot < RT_PROC_HISTS; slot++)
        emit_proc_metric(b, r, thread, map, first_proc, row_of, nout, slot);
    free(row_of);
}

/* The holds of object row `row` by procedure: rows of one procedure name
 * (map[] gives one row to several) summed into one. */
static void emit_holds(struct red_build *b, const struct rt_object *o, uint32_t row,
                       const uint32_t *map)
{
    size_t first = b->r->nholds;

    for (uint32_t i = 0; i < o->nholds && !b->oom; i++) {
        const struct rt_hold *h = &o->holds[i];
        uint32_t proc = h->proc ? map[h->proc] : IPS2_RED_NONE;
        struct ips2_red_hold *out = NULL;
        for (size_t j = first; j < b->r->nholds; j++)
            if (b->r->holds[j].proc == proc)
                out = &b->r->holds[j];
        if (!out) {
            if (!(out = RED_PUSH(b, holds)))
                return;
            *out = (struct ips2_red_hold){.object = row, .proc = proc};
        }
        out->acquisitions += h->acquisitions;
        out->hold_ns += h->hold_ns;
        out->counted += h->counted;
    }
}

/* The latency rows of the thread's procedure rows (from first_proc on):
 * the windows of the procedures of one name merged into their row's. */
static void emit_lats(struct red_build *b, const struct rt *r, const uint32_t *map,
                      uint32_t first_proc)
{
    size_t nrows = b->r->nprocs - first_proc, most = 0;
    struct ips2_lat *acc = calloc(nrows ? nrows : 1, sizeof(*acc));
    struct ips2_lat_bin *bins;

    for (uint32_t i = 1; i < r->nprocs; i++)
        most = r->lat[i].len > most ? r->lat[i].len : most;
    bins = malloc((most ? most : 1) * sizeof(*bins));
    if (!acc || !bins)
        goto oom;
    for (uint32_t i = 1; i < r->nprocs; i++) {
        const struct rt_lat *l = &r->lat[i];
        size_t n = 0;
        uint64_t count = 0;
        for (uint32_t k = 0; k < l->len; k++)
            if (l->n[k]) {
                bins[n++] = (struct ips2_lat_bin){.bucket = l->lo + k, .count = l->n[k]};
                count += l->n[k];
            }
        if (count && ips2_lat_merge(&acc[map[i] - first_proc], bins, n, count,
                                    r->procs[i].incl_wall, l->max) < 0)
            goto oom;
    }
    for (size_t k = 0; k < nrows; k++) {
        struct ips2_red_latency *row;
        if (acc[k].count == 0)
            continue;
        if (!(row = RED_PUSH(b, lats)))
            break;
        *row = (struct ips2_red_latency){.proc = first_proc + (uint32_t)k,
                                         .nbins = (uint32_t)acc[k].nbins,
                                         .count = acc[k].count,
                                         .max_ns = acc[k].max_ns,
                                         .bins = acc[k].bins};
        acc[k].bins = NULL;
    }
    goto done;
oom:
    b->oom = true;
done:
    for (size_t k = 0; acc && k < nrows; k++)
        ips2_lat_free(&acc[k]);
    free(acc);
    free(bins);
}

void red_emit_thread(struct red_build *b, const struct rt *r, uint32_t process, uint32_t tid,
                     red_name_fn name, void *name_arg)
{
    struct ips2_red_thread *th = RED_PUSH(b, threads);

    if (!th)
        return;
    uint32_t thread = (uint32_t)(b->r->nthreads - 1);
    th->process = process;
    th->tid = tid;
    th->create_seq = r->create_seq;
    th->start_ns = r->first_t;
    th->end_ns = r->h.last_t;
    memcpy(th->m, r->m, sizeof(th->m));
    th->m[IPS2_M_CPU] = r->h.cum_cpu;
    th->m[IPS2_M_WALL] = r->h.cum_wall;
    th->m[IPS2_M_CALLS] = r->calls;
    th->first_proc = (uint32_t)b->r->nprocs;

    uint32_t *map = calloc(r->nprocs ? r->nprocs : 1, sizeof(*map));
    if (!map) {
        b->oom = true;
        return;
    }
    emit_procs(b, r, thread, map, name, name_arg);
    th = &b->r->threads[thread];
    th->nprocs = (uint32_t)(b->r->nprocs - th->first_proc);
    if (!b->oom) {
        emit_arcs(b, r, thread, map);
        emit_hists(b, r, thread, map, th->first_proc);
        emit_lats(b, r, map, th->first_proc);
    }

    /* each object with its SYNC_WAIT histogram */
    for (uint32_t i = 0; i < r->nobjects; i++) {
        struct ips2_red_object *o = RED_PUSH(b, objects);
        if (!o)
            break;
        uint32_t row = (uint32_t)(b->r->nobjects - 1);
        o->thread = thread;
        o->kind = r->objects[i].kind;
        o->id = r->objects[i].id;
        o->waits = r->objects[i].waits;
        o->wait_ns = r->objects[i].wait_ns;
        o->spin_ns = r->objects[i].spin_ns;
        o->name = IPS2_RED_NONE;
        /* a row only held (no waits) has no histogram */
        uint32_t h =
            o->waits ? emit_hist(b, r, thread, IPS2_RED_NONE, IPS2_M_SYNC_WAIT, &r->objects[i].hist)
                     : IPS2_RED_NONE;
        if (h != IPS2_RED_NONE)
            b->r->hists[h].object = row;
        emit_holds(b, &r->objects[i], row, map);
    }
    free(map);
}
