/*
 * reduce_thread.c - the rare paths of one thread's reduction: set-up, the
 * first event, intervals that cross a histogram bucket or a phase
 * boundary, growing the tables, unmatched exits, interactions, and the
 * end of the stream.  The hot path is inline in reduce_thread.h.
 */
#include <stdlib.h>
#include <string.h>

#include "ips2_format.h"
#include "pag_build.h"
#include "reduce_thread.h"

#define DEFAULT_INTERVAL_NS 100000000ull /* 100 ms */

const uint8_t rt_proc_hist_metrics[RT_PROC_HISTS] = {
    IPS2_M_SYNC_WAIT, IPS2_M_MSG_WAIT,  IPS2_M_IO_TIME, IPS2_M_IO_OPS,
    IPS2_M_IO_BYTES,  IPS2_M_SEEK_TIME, IPS2_M_CALLS,
};

/* The slot of a metric in rt_proc.mhist, or -1. */
static int proc_hist_slot(unsigned metric)
{
    for (int i = 0; i < RT_PROC_HISTS; i++)
        if (rt_proc_hist_metrics[i] == metric)
            return i;
    return -1;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static bool in_phase(const struct rt *r, int64_t t)
{
    return t >= r->ps && t < r->pe;
}

void rt_init(struct rt *r, int64_t ps, int64_t pe, uint64_t interval_ns)
{
    memset(r, 0, sizeof(*r));
    r->ps = ps;
    r->pe = pe;
    r->interval_ns = interval_ns ? interval_ns : DEFAULT_INTERVAL_NS;
    red_hgeom_init(&r->geom, 0, r->interval_ns); /* until the first event */
    r->h.fast_end = INT64_MIN;                   /* the first event takes the slow path */
    r->exit_how = -1;
    r->thread_exit_how = -1;
    r->proc_start_how = -1;

    r->cap_procs = 64;
    r->procs = calloc(r->cap_procs, sizeof(*r->procs));
    r->lat = calloc(r->cap_procs, sizeof(*r->lat));
    r->map_mask = 255;
    r->map_key = calloc(r->map_mask + 1, sizeof(*r->map_key));
    r->map_val = calloc(r->map_mask + 1, sizeof(*r->map_val));
    r->amap_mask = 255;
    r->amap_key = calloc(r->amap_mask + 1, sizeof(*r->amap_key));
    r->amap_val = calloc(r->amap_mask + 1, sizeof(*r->amap_val));
    r->cap_stack = 256;
    r->stack = malloc(r->cap_stack * sizeof(*r->stack));
    if (!r->procs || !r->lat || !r->map_key || !r->map_val || !r->amap_key || !r->amap_val ||
        !r->stack) {
        r->oom = true;
        r->cap_stack = 0; /* rt_push_grow() fails from now on */
        r->cap_procs = 0;
        r->nprocs = 0;
        return;
    }
    r->nprocs = 1; /* procs[0]: no procedure */
    r->procs[0].last_caller = UINT32_MAX;
}

void rt_free(struct rt *r)
{
    if (r->procs)
        for (uint32_t i = 0; i < r->nprocs; i++) {
            struct rt_proc *p = &r->procs[i];
            red_hist_free(&p->hist);
            for (unsigned k = 0; p->mhist && k < RT_PROC_HISTS; k++)
                red_hist_free(&p->mhist[k]);
            free(p->mhist);
        }
    if (r->lat)
        for (uint32_t i = 0; i < r->nprocs; i++)
            free(r->lat[i].n);
    free(r->lat);
    for (uint32_t i = 0; i < r->nobjects; i++) {
        red_hist_free(&r->objects[i].hist);
        free(r->objects[i].holds);
    }
    red_hist_free(&r->cpu_hist);
    for (unsigned m = 0; m < IPS2_M_COUNT; m++)
        red_hist_free(&r->mhist[m]);
    free(r->procs);
    free(r->map_key);
    free(r->map_val);
    free(r->arcs);
    free(r->amap_key);
    free(r->amap_val);
    free(r->stack);
    free(r->objects);
    free(r->omap_key);
    free(r->omap_val);
    free(r->types);
    for (uint32_t i = 0; i < r->nfacts; i++)
        free(r->facts[i].name);
    free(r->facts);
    free(r->fact_key);
    free(r->fact_val);
    free(r->pag_dirty);
    memset(r, 0, sizeof(*r));
}

/* ---- histograms ------------------------------------------------------ */

static void hist_add(struct rt *r, struct red_hist *h, uint32_t i, double x)
{
    if (!red_hist_add(h, i, x))
        r->oom = true;
}

/* The histogram of an interaction metric of procedure p, or NULL if the
 * metric has none per procedure (or memory ran out). */
static struct red_hist *proc_hist(struct rt *r, struct rt_proc *p, unsigned metric)
{
    int slot = proc_hist_slot(metric);

    if (slot < 0)
        return NULL;
    if (!p->mhist && !(p->mhist = calloc(RT_PROC_HISTS, sizeof(*p->mhist)))) {
        r->oom = true;
        return NULL;
    }
    return &p->mhist[slot];
}

void rt_counted(struct rt *r, uint64_t addr, uint64_t n, int64_t t)
{
    if (n == 0 || !r->started || !in_phase(r, t))
        return;
    uint32_t i = rt_proc_of(r, addr);
    if (i == 0)
        return;
    struct rt_proc *p = &r->procs[i];
    p->m[IPS2_M_COUNTED] += n;
    struct red_hist *h = proc_hist(r, p, IPS2_M_CALLS);
    if (h)
        hist_add(r, h, r->bucket, (double)n);
}

/* Puts the current bucket's unflushed CPU and calls into the histograms. */
static void flush_bucket(struct rt *r)
{
    for (uint32_t i = 0; i < r->narcs; i++) {
        struct rt_arc *a = &r->arcs[i];
        if (a->count != a->snap_count) {
            struct red_hist *h = proc_hist(r, &r->procs[a->callee], IPS2_M_CALLS);
            if (h)
                hist_add(r, h, r->bucket, (double)(a->count - a->snap_count));
            a->snap_count = a->count;
        }
    }
    for (uint32_t i = 1; i < r->nprocs; i++) {
        struct rt_proc *p = &r->procs[i];
        if (p->m[IPS2_M_CPU] != p->snap_cpu) {
            hist_add(r, &p->hist, r->bucket, (double)(p->m[IPS2_M_CPU] - p->snap_cpu));
            p->snap_cpu = p->m[IPS2_M_CPU];
        }
    }
    if (r->h.cum_cpu != r->snap_cum_cpu) {
        hist_add(r, &r->cpu_hist, r->bucket, (double)(r->h.cum_cpu - r->snap_cum_cpu));
        r->snap_cum_cpu = r->h.cum_cpu;
    }
}

static void fold_all(struct rt *r)
{
    unsigned off = red_hgeom_fold(&r->geom);

    red_hist_fold(&r->cpu_hist, off);
    for (unsigned m = 0; m < IPS2_M_COUNT; m++)
        red_hist_fold(&r->mhist[m], off);
    for (uint32_t i = 1; i < r->nprocs; i++) {
        struct rt_proc *p = &r->procs[i];
        red_hist_fold(&p->hist, off);
        for (unsigned k = 0; p->mhist && k < RT_PROC_HISTS; k++)
            red_hist_fold(&p->mhist[k], off);
    }
    for (uint32_t i = 0; i < r->nobjects; i++)
        red_hist_fold(&r->objects[i].hist, off);
    r->bucket = (r->bucket + off) / 2;
}

/* Bucket of t, folding until it fits. */
static uint32_t bucket_of(struct rt *r, int64_t t)
{
    uint64_t i = red_hgeom_index(&r->geom, t);

    while (i >= IPS2_HIST_MAX_BUCKETS) {
        fold_all(r);
        i = red_hgeom_index(&r->geom, t);
    }
    return (uint32_t)i;
}

/* Makes the current bucket the one holding t (t >= the current one's start). */
static void goto_bucket(struct rt *r, int64_t t)
{
    if (t < r->bucket_end)
        return;
    flush_bucket(r);
    r->bucket = bucket_of(r, t);
    r->bucket_end = r->geom.start + (int64_t)((r->bucket + 1) * r->geom.width);
}

static void set_fast_end(struct rt *r)
{
    if (r->h.last_t >= r->ps && r->h.last_t < r->pe)
        r->h.fast_end = min64(r->bucket_end, r->pe);
    else
        r->h.fast_end = INT64_MIN;
}

/* ---- the clock ------------------------------------------------------- */

void rt_first(struct rt *r, int64_t t, uint64_t c)
{
    r->started = true;
    r->first_t = r->h.last_t = t;
    r->h.last_c = c;
    red_hgeom_init(&r->geom, max64(t, r->ps), r->interval_ns);
    r->bucket = 0;
    r->bucket_end = r->geom.start + (int64_t)r->geom.width;
    set_fast_end(r);
}

/* floor(dc * x / dt) for x <= dt, without overflow. */
static uint64_t share(uint64_t dc, uint64_t x, uint64_t dt)
{
    return (uint64_t)((unsigned __int128)dc * x / dt);
}

/* Charges cpu and wall to the top procedure and the thread's totals. */
static void charge(struct rt *r, uint64_t cpu, uint64_t wall)
{
    struct rt_proc *p = &r->procs[r->h.top];

    p->m[IPS2_M_CPU] += cpu;
    p->m[IPS2_M_WALL] += wall;
    r->h.cum_cpu += cpu;
    r->h.cum_wall += wall;
}

void rt_advance_slow(struct rt *r, int64_t t, uint64_t c)
{
    if (!r->started) {
        rt_first(r, t, c);
        return;
    }
    if (t < r->h.last_t) /* time never runs backwards for us */
        t = r->h.last_t;
    if (c < r->h.last_c)
        c = r->h.last_c;

    const int64_t t0 = r->h.last_t;
    const uint64_t dt = (uint64_t)(t - t0), dc = c - r->h.last_c;
    if (dt == 0) {
        if (dc && in_phase(r, t0)) {
            goto_bucket(r, t0);
            charge(r, dc, 0);
        }
    } else {
        int64_t a = max64(t0, r->ps), b = min64(t, r->pe);
        /* [a, b) is the part inside the phase; cut it at bucket ends */
        for (int64_t s = a; s < b;) {
            goto_bucket(r, s);
            int64_t e = min64(b, r->bucket_end);
            uint64_t cpu = share(dc, (uint64_t)(e - t0), dt) - share(dc, (uint64_t)(s - t0), dt);
            charge(r, cpu, (uint64_t)(e - s));
            s = e;
        }
    }
    r->h.last_t = t;
    r->h.last_c = c;
    set_fast_end(r);
}

/* ---- tables ---------------------------------------------------------- */

static bool grow(void **p, uint32_t *cap, size_t elem)
{
    uint32_t n = *cap ? *cap * 2 : 16;
    void *q;

    if (n < *cap || (size_t)n > SIZE_MAX / elem)
        return false;
    q = realloc(*p, (size_t)n * elem);
    if (!q)
        return false;
    *p = q;
    *cap = n;
    return true;
}

/* Rebuilds the address table with twice the slots. */
static bool map_grow(struct rt *r)
{
    uint32_t mask = r->map_mask * 2 + 1;
    uint64_t *key = calloc((size_t)mask + 1, sizeof(*key));
    uint32_t *val = calloc((size_t)mask + 1, sizeof(*val));

    if (!key || !val || mask < r->map_mask) {
        free(key);
        free(val);
        return false;
    }
    for (uint32_t i = 0; i <= r->map_mask; i++) {
        if (!r->map_key[i])
            continue;
        uint64_t addr = r->map_key[i] - 1;
        uint32_t j = (uint32_t)((addr * 0x9e3779b97f4a7c15ull) >> 40) & mask;
        while (key[j])
            j = (j + 1) & mask;
        key[j] = r->map_key[i];
        val[j] = r->map_val[i];
    }
    free(r->map_key);
    free(r->map_val);
    r->map_key = key;
    r->map_val = val;
    r->map_mask = mask;
    return true;
}

uint32_t rt_proc_insert(struct rt *r, uint64_t addr)
{
    if (r->oom && r->nprocs == 0)
        return 0;
    if ((r->nprocs + 1) * 2 > r->map_mask + 1 && !map_grow(r))
        goto oom;
    if (r->nprocs == r->cap_procs) {
        uint32_t cap = r->cap_procs;
        struct rt_lat *lat = realloc(r->lat, (size_t)cap * 2 * sizeof(*lat));
        if (!lat)
            goto oom;
        r->lat = lat;
        if (!grow((void **)&r->procs, &r->cap_procs, sizeof(*r->procs)))
            goto oom;
    }
    uint32_t i = (uint32_t)((addr * 0x9e3779b97f4a7c15ull) >> 40) & r->map_mask;
    while (r->map_key[i])
        i = (i + 1) & r->map_mask;
    uint32_t idx = r->nprocs++;
    struct rt_proc *p = &r->procs[idx];
    memset(p, 0, sizeof(*p));
    memset(&r->lat[idx], 0, sizeof(r->lat[idx]));
    p->addr = addr;
    p->last_caller = UINT32_MAX;
    r->map_key[i] = addr + 1;
    r->map_val[i] = idx;
    return idx;
oom:
    r->oom = true;
    return 0;
}

static bool amap_grow(struct rt *r)
{
    uint32_t mask = r->amap_mask * 2 + 1;
    uint64_t *key = calloc((size_t)mask + 1, sizeof(*key));
    uint32_t *val = calloc((size_t)mask + 1, sizeof(*val));

    if (!key || !val || mask < r->amap_mask) {
        free(key);
        free(val);
        return false;
    }
    for (uint32_t i = 0; i <= r->amap_mask; i++) {
        if (!r->amap_key[i])
            continue;
        uint32_t j = (uint32_t)(((r->amap_key[i] - 1) * 0x9e3779b97f4a7c15ull) >> 40) & mask;
        while (key[j])
            j = (j + 1) & mask;
        key[j] = r->amap_key[i];
        val[j] = r->amap_val[i];
    }
    free(r->amap_key);
    free(r->amap_val);
    r->amap_key = key;
    r->amap_val = val;
    r->amap_mask = mask;
    return true;
}

uint32_t rt_arc_find(struct rt *r, uint32_t caller, uint32_t callee)
{
    uint64_t k = ((uint64_t)caller << 32 | callee) + 1;
    uint32_t i = (uint32_t)(((k - 1) * 0x9e3779b97f4a7c15ull) >> 40) & r->amap_mask;

    for (; r->amap_key[i]; i = (i + 1) & r->amap_mask)
        if (r->amap_key[i] == k)
            return r->amap_val[i];
    if ((r->narcs + 1) * 2 > r->amap_mask + 1) {
        if (!amap_grow(r))
            goto oom;
        i = (uint32_t)(((k - 1) * 0x9e3779b97f4a7c15ull) >> 40) & r->amap_mask;
        while (r->amap_key[i])
            i = (i + 1) & r->amap_mask;
    }
    if (r->narcs == r->cap_arcs && !grow((void **)&r->arcs, &r->cap_arcs, sizeof(*r->arcs)))
        goto oom;
    struct rt_arc *a = &r->arcs[r->narcs];
    a->caller = caller;
    a->callee = callee;
    a->count = 0;
    a->child_cpu = 0;
    a->snap_count = 0;
    r->amap_key[i] = k;
    r->amap_val[i] = r->narcs;
    return r->narcs++;
oom:
    r->oom = true;
    return UINT32_MAX;
}

bool rt_push_grow(struct rt *r)
{
    if (r->cap_stack == 0 || !grow((void **)&r->stack, &r->cap_stack, sizeof(*r->stack))) {
        r->oom = true;
        return false;
    }
    return true;
}

/* An exit that is not the top frame's: if a frame below has this address,
 * the frames above it were left without their exits (longjmp, an
 * exception, a tail call out of an uninstrumented function): they are
 * closed now.  Otherwise the exit has no entry in this stream (a forked
 * child inherits its parent's stack) and is ignored. */
void rt_exit_slow(struct rt *r, uint64_t addr)
{
    uint32_t d = r->h.depth;

    while (d > 0 && r->stack[d - 1].addr != addr)
        d--;
    if (d == 0) {
        r->unmatched_exits++;
        return;
    }
    while (r->h.depth > d) {
        rt_pop(r, &r->h);
        r->unwound++;
    }
    rt_pop(r, &r->h);
}

/* ---- latency ----------------------------------------------------------- */

/* The window becomes whole powers of two around v's and the old window,
 * with two more on each side of v's, so that it rarely grows again. */
void rt_lat_grow(struct rt *r, struct rt_lat *l, uint64_t v)
{
    const uint32_t groups = IPS2_LAT_BUCKETS / IPS2_LAT_SUB;
    uint32_t b = ips2_lat_bucket(v), g = b / IPS2_LAT_SUB;
    uint32_t lo = g >= 2 ? g - 2 : 0, hi = g + 2 < groups ? g + 2 : groups - 1;

    if (l->len) {
        uint32_t olo = l->lo / IPS2_LAT_SUB, ohi = (l->lo + l->len) / IPS2_LAT_SUB - 1;
        lo = lo < olo ? lo : olo;
        hi = hi > ohi ? hi : ohi;
    }
    uint32_t nlo = lo * IPS2_LAT_SUB, nn = (hi - lo + 1) * IPS2_LAT_SUB;
    uint64_t *lat = calloc(nn, sizeof(*lat));
    if (!lat) {
        r->oom = true;
        return;
    }
    if (l->len)
        memcpy(lat + (l->lo - nlo), l->n, l->len * sizeof(*lat));
    free(l->n);
    l->n = lat;
    l->lo = nlo;
    l->len = nn;
    l->n[b - nlo]++;
}

/* ---- interactions ---------------------------------------------------- */

void rt_count(struct rt *r, unsigned metric, int64_t t, uint64_t v)
{
    if (metric >= IPS2_M_COUNT || !r->started || !in_phase(r, t))
        return;
    struct rt_proc *p = &r->procs[r->h.top];
    p->m[metric] += v;
    r->m[metric] += v;
    uint32_t i = bucket_of(r, t < r->geom.start ? r->geom.start : t);
    hist_add(r, &r->mhist[metric], i, (double)v);
    struct red_hist *ph = r->h.top ? proc_hist(r, p, metric) : NULL;
    if (ph)
        hist_add(r, ph, i, (double)v);
}

/* Spreads v over [t0, t1) of histogram h in proportion to time. */
static void spread(struct rt *r, struct red_hist *h, int64_t t0, int64_t t1, uint64_t v)
{
    uint64_t dt = (uint64_t)(t1 - t0);
    int64_t s = max64(t0, r->geom.start);

    if (v == 0)
        return;
    if (dt == 0) {
        hist_add(r, h, bucket_of(r, s), (double)v);
        return;
    }
    while (s < t1) {
        uint32_t i = bucket_of(r, s);
        int64_t end = r->geom.start + (int64_t)((i + 1) * r->geom.width);
        int64_t e = min64(end, t1);
        hist_add(r, h, i, (double)v * (double)(e - s) / (double)dt);
        s = e;
    }
}

/* The part of v (spread evenly over [t0, t1)) that falls in [a, b). */
static uint64_t clip_share(uint64_t v, int64_t t0, int64_t t1, int64_t a, int64_t b)
{
    if (t1 <= t0)
        return v;
    return share(v, (uint64_t)(b - a), (uint64_t)(t1 - t0));
}

void rt_spread(struct rt *r, unsigned metric, int64_t t0, int64_t t1, uint64_t v)
{
    if (metric >= IPS2_M_COUNT || !r->started || v == 0)
        return;
    int64_t a = max64(t0, r->ps), b = min64(t1, r->pe);
    if (b < a || (b == a && !in_phase(r, t1)))
        return;
    uint64_t part = clip_share(v, t0, t1, a, b);
    struct rt_proc *p = &r->procs[r->h.top];
    p->m[metric] += part;
    r->m[metric] += part;
    spread(r, &r->mhist[metric], a, b, part);
    struct red_hist *ph = r->h.top ? proc_hist(r, p, metric) : NULL;
    if (ph)
        spread(r, ph, a, b, part);
}

/* Adds the ns of [a, b) to the buckets of h they fall in, exactly (whole
 * ns); time before the first bucket counts in it. */
static void spread_ns(struct rt *r, struct red_hist *h, int64_t a, int64_t b)
{
    if (b <= a)
        return;
    if (a < r->geom.start) {
        int64_t e = min64(b, r->geom.start);
        hist_add(r, h, bucket_of(r, r->geom.start), (double)(e - a));
        a = e;
    }
    while (a < b) {
        uint32_t i = bucket_of(r, a);
        int64_t e = min64(b, r->geom.start + (int64_t)((i + 1) * r->geom.width));
        hist_add(r, h, i, (double)(e - a));
        a = e;
    }
}

void rt_wait(struct rt *r, unsigned metric, int64_t t0, int64_t t1)
{
    if (t1 > t0)
        rt_spread(r, metric, t0, t1, (uint64_t)(t1 - t0));
}

/* Objects by (kind, key): an open-addressing table of (key << 4 | kind)
 * + 1 -> objects[] index (0 = an empty slot); keys are 48 bits, kinds
 * below 16.  A thread may lock thousands of objects (a hash table's
 * bucket locks): every lock event looks its object up here. */
static uint64_t omap_k(uint32_t kind, uint64_t id)
{
    return (id << 4 | (kind & 15)) + 1;
}

static uint32_t omap_slot(uint64_t k, uint32_t mask)
{
    return (uint32_t)((k * 0x9e3779b97f4a7c15ull) >> 40) & mask;
}

/* Rebuilds the table with twice the slots (64 at first). */
static bool omap_grow(struct rt *r)
{
    uint32_t mask = r->omap_mask ? r->omap_mask * 2 + 1 : 63;
    uint64_t *key = calloc((size_t)mask + 1, sizeof(*key));
    uint32_t *val = calloc((size_t)mask + 1, sizeof(*val));

    if (!key || !val || mask < r->omap_mask) {
        free(key);
        free(val);
        return false;
    }
    for (uint32_t i = 0; i < r->nobjects; i++) {
        uint64_t k = omap_k(r->objects[i].kind, r->objects[i].id);
        uint32_t j = omap_slot(k, mask);
        while (key[j])
            j = (j + 1) & mask;
        key[j] = k;
        val[j] = i;
    }
    free(r->omap_key);
    free(r->omap_val);
    r->omap_key = key;
    r->omap_val = val;
    r->omap_mask = mask;
    return true;
}

/* The thread's row of an object; made if it has none and make is set
 * (NULL: none, or OOM with r->oom set). */
static struct rt_object *object_find(struct rt *r, uint32_t kind, uint64_t id, bool make)
{
    uint64_t k = omap_k(kind, id);
    uint32_t j = 0;

    if (r->omap_mask) {
        for (j = omap_slot(k, r->omap_mask); r->omap_key[j]; j = (j + 1) & r->omap_mask)
            if (r->omap_key[j] == k)
                return &r->objects[r->omap_val[j]];
    }
    if (!make)
        return NULL;
    if (2 * ((size_t)r->nobjects + 1) > (size_t)r->omap_mask + 1) {
        if (!omap_grow(r)) {
            r->oom = true;
            return NULL;
        }
        for (j = omap_slot(k, r->omap_mask); r->omap_key[j]; j = (j + 1) & r->omap_mask)
            ;
    }
    if (r->nobjects == r->cap_objects &&
        !grow((void **)&r->objects, &r->cap_objects, sizeof(*r->objects))) {
        r->oom = true;
        return NULL;
    }
    struct rt_object *o = &r->objects[r->nobjects];
    memset(o, 0, sizeof(*o));
    o->kind = kind;
    o->id = id;
    r->omap_key[j] = k;
    r->omap_val[j] = r->nobjects++;
    return o;
}

static struct rt_object *object_row(struct rt *r, uint32_t kind, uint64_t id)
{
    return object_find(r, kind, id, true);
}

void rt_object_wait(struct rt *r, uint32_t kind, uint64_t id, int64_t t0, int64_t t1,
                    uint64_t spin_ns)
{
    int64_t a = max64(t0, r->ps), b = min64(t1, r->pe);

    if (b < a || (b == a && !in_phase(r, t1)))
        return;
    struct rt_object *o = object_row(r, kind, id);
    if (!o)
        return;
    o->waits++;
    o->wait_ns += (uint64_t)(b - a);
    o->spin_ns += clip_share(spin_ns, t0, t1, a, b);
    spread_ns(r, &o->hist, a, b);
}

/* Exclusive holds are a mutex's row (the type fixed later from the
 * image's sync-object, as for waits), shared ones an rwlock's. */
static uint32_t lock_kind(bool shared)
{
    return shared ? IPS2_SYNC_RWLOCK : IPS2_SYNC_MUTEX;
}

/* The hold row of o for the procedure on top of the stack; UINT32_MAX on
 * OOM (r->oom set). */
static uint32_t hold_row(struct rt *r, struct rt_object *o)
{
    uint32_t proc = r->h.top, h = o->nholds;

    while (h-- > 0 && o->holds[h].proc != proc)
        ;
    if (h == UINT32_MAX) {
        if (o->nholds == o->cap_holds &&
            !grow((void **)&o->holds, &o->cap_holds, sizeof(*o->holds))) {
            r->oom = true;
            return UINT32_MAX;
        }
        h = o->nholds++;
        o->holds[h] = (struct rt_hold){.proc = proc};
    }
    return h;
}

void rt_lock_acquired(struct rt *r, bool shared, uint64_t id, int64_t t)
{
    struct rt_object *o = object_row(r, lock_kind(shared), id);

    if (!o || o->open++ > 0)
        return; /* an inner hold (an rwlock read again) is part of the outer one */
    uint32_t h = hold_row(r, o);
    if (h == UINT32_MAX) {
        o->open = 0;
        return;
    }
    o->open_h = h;
    o->open_t = t;
    if (in_phase(r, t))
        o->holds[h].acquisitions++;
}

/* Ends the open hold of o at t. */
static void hold_end(struct rt *r, struct rt_object *o, int64_t t)
{
    int64_t a = max64(o->open_t, r->ps), b = min64(t, r->pe);

    if (b > a)
        o->holds[o->open_h].hold_ns += (uint64_t)(b - a);
    o->open = 0;
}

void rt_lock_released(struct rt *r, bool shared, uint64_t id, int64_t t)
{
    struct rt_object *o = object_find(r, lock_kind(shared), id, false);

    if (!o)
        return; /* a release of a hold acquired before the stream: nothing known */
    if (o->open > 1)
        o->open--;
    else if (o->open == 1)
        hold_end(r, o, t);
}

/* A LOCK_COUNTED record: acquisitions of a mutex without events (FORMAT.md
 * section 3), charged to the procedure on top of the stack at the record
 * (the first of them since the previous record); they count in the phase
 * the record lies in, and have no hold time. */
void rt_lock_counted(struct rt *r, uint64_t id, uint64_t acquired, int64_t t)
{
    if (acquired == 0 || !in_phase(r, t))
        return;
    struct rt_object *o = object_row(r, IPS2_SYNC_MUTEX, id);
    if (!o)
        return;
    uint32_t h = hold_row(r, o);
    if (h == UINT32_MAX)
        return;
    o->holds[h].acquisitions += acquired;
    o->holds[h].counted += acquired;
}

void rt_note_type(struct rt *r, uint64_t key, uint32_t type)
{
    for (uint32_t i = r->ntypes; i-- > 0;)
        if (r->types[i].key == key)
            return; /* the first type an image gives an object stands */
    if (r->ntypes == r->cap_types && !grow((void **)&r->types, &r->cap_types, sizeof(*r->types))) {
        r->oom = true;
        return;
    }
    r->types[r->ntypes].key = key;
    r->types[r->ntypes].type = type;
    r->ntypes++;
}

static uint32_t fact_slot(uint64_t k, uint32_t mask)
{
    return (uint32_t)((k * 0x9e3779b97f4a7c15ull) >> 40) & mask;
}

/* Rebuilds the fact table with twice the slots (256 at first). */
static bool fact_map_grow(struct rt *r)
{
    uint32_t mask = r->fact_mask ? r->fact_mask * 2 + 1 : 255;
    uint64_t *key = calloc((size_t)mask + 1, sizeof(*key));
    uint32_t *val = calloc((size_t)mask + 1, sizeof(*val));

    if (!key || !val || mask < r->fact_mask) {
        free(key);
        free(val);
        return false;
    }
    for (uint32_t i = 0; r->fact_key && i <= r->fact_mask; i++) {
        if (!r->fact_key[i])
            continue;
        uint32_t j = fact_slot(r->fact_key[i], mask);
        while (key[j])
            j = (j + 1) & mask;
        key[j] = r->fact_key[i];
        val[j] = r->fact_val[i];
    }
    free(r->fact_key);
    free(r->fact_val);
    r->fact_key = key;
    r->fact_val = val;
    r->fact_mask = mask;
    return true;
}

void rt_note_fact(struct rt *r, const struct rt_fact *f)
{
    uint64_t k = (f->key << 1 | f->init) + 1;

    if ((r->nfacts + 1) * 2 > r->fact_mask + 1 && !fact_map_grow(r))
        goto oom;
    uint32_t i = fact_slot(k, r->fact_mask);
    for (; r->fact_key[i]; i = (i + 1) & r->fact_mask)
        if (r->fact_key[i] == k) {
            struct rt_fact *had = &r->facts[r->fact_val[i]];
            if (f->name) {
                free(had->name);
                had->name = f->name;
            }
            if (!had->address)
                had->address = f->address;
            return;
        }
    if (r->nfacts == r->cap_facts && !grow((void **)&r->facts, &r->cap_facts, sizeof(*r->facts)))
        goto oom;
    r->facts[r->nfacts] = *f;
    r->fact_key[i] = k;
    r->fact_val[i] = r->nfacts++;
    return;
oom:
    free(f->name);
    r->oom = true;
}

/* ---- the end --------------------------------------------------------- */

void rt_finish(struct rt *r)
{
    if (!r->started)
        return;
    r->open_at_end = r->h.depth;
    for (uint32_t i = 0; i < r->nobjects; i++)
        if (r->objects[i].open)
            hold_end(r, &r->objects[i], r->h.last_t);
    while (r->h.depth)
        rt_pop(r, &r->h);
    flush_bucket(r);
    r->calls = 0;
    for (uint32_t i = 0; i < r->narcs; i++) {
        r->procs[r->arcs[i].callee].m[IPS2_M_CALLS] += r->arcs[i].count;
        r->calls += r->arcs[i].count;
    }
    for (uint32_t i = 1; i < r->nprocs; i++) { /* counted-only calls (CALLS records) */
        r->procs[i].m[IPS2_M_CALLS] += r->procs[i].m[IPS2_M_COUNTED];
        r->calls += r->procs[i].m[IPS2_M_COUNTED];
        r->m[IPS2_M_COUNTED] += r->procs[i].m[IPS2_M_COUNTED];
    }
}

/* ---- the PAG ----------------------------------------------------------- */

void rt_pag_attach(struct rt *r, struct pag_builder *pag)
{
    if (r->nprocs == 0)
        return; /* out of memory already */
    r->pag = pag;
    rt_pag_touch(r, r->h.top);
}

void rt_pag_touch(struct rt *r, uint32_t proc)
{
    if (proc >= r->nprocs || r->procs[proc].pag_mark)
        return;
    if (r->npag_dirty == r->cap_pag_dirty &&
        !grow((void **)&r->pag_dirty, &r->cap_pag_dirty, sizeof(*r->pag_dirty))) {
        r->oom = true;
        return;
    }
    r->pag_dirty[r->npag_dirty++] = proc;
    r->procs[proc].pag_mark = true;
}

/* A node is made: the CPU of each procedure since the previous one. */
static void pag_shares(void *arg, struct pag_builder *b)
{
    struct rt *r = arg;

    for (uint32_t i = 0; i < r->npag_dirty; i++) {
        struct rt_proc *p = &r->procs[r->pag_dirty[i]];
        pag_share(b, r->pag_dirty[i], p->m[IPS2_M_CPU] - p->pag_snap);
        p->pag_snap = p->m[IPS2_M_CPU];
        p->pag_mark = false;
    }
    r->npag_dirty = 0;
    rt_pag_touch(r, r->h.top);
}

void rt_pag_event(struct rt *r, const struct ips2_event *ev, int64_t t, int64_t ws)
{
    pag_event(r->pag, ev, t, r->h.last_c, ws, r->h.top, pag_shares, r);
}

void rt_pag_end(struct rt *r, const char *(*name)(void *arg, uint32_t proc), void *arg)
{
    if (!r->pag)
        return;
    pag_thread_end(r->pag, r->raw_last_t, r->h.last_c, r->h.top, pag_shares, r, name, arg);
}
