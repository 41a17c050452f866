/*
 * reduce_ext.c - external data files into reductions (see reduce_ext.h).
 *
 * The samples of one (metric, focus, process: a pid reused by a new
 * process, as the file's process records say, is a new row) are taken in
 * time order.  A counter
 * of a process counts from the process's start (0), one of the machine
 * from the collector's first sample; each sample's increase over the one
 * before belongs to the sample's time: it goes into the row's value if that
 * time is in the phase, and into the histogram bucket of that time, so the
 * buckets add up to the value.  A counter that goes down (a reset) adds
 * nothing and starts again from there.  A gauge's value is its last sample
 * in the phase and a bucket holds the mean of its samples.  Histograms are
 * on the session's grid (start and width as the threads' have them: the
 * width the sample interval, doubled until at most IPS2_HIST_MAX_BUCKETS
 * buckets cover the samples; the start a multiple of it).
 *
 * A process's row names its process row of the same reductions (a pid can
 * be several processes: the file's process records tell them apart, the
 * times tell which is which).  The collector watches a process from just
 * after its fork to just after its exit, so the span of its samples (all
 * metrics) covers its own row's [first, last event] and none of the pid's
 * other processes (the pid is free again only once it was reaped).  Per
 * file, the (process of the file, process row) pairs of a pid are taken
 * best first (least gap between the spans, then most overlap): each
 * process of the file gets one row (with the other exec images of that
 * row's process), no row two processes of the file; one left without a row
 * has none (IPS2_RED_NONE).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "histogram.h"
#include "ips2_external.h"
#include "reduce_ext.h"
#include "reduce_internal.h"

struct ext_rows {
    struct ips2_red_ext *v;
    size_t n, cap;
};

static int cmp_sample(const void *a, const void *b)
{
    const struct ips2_ext_sample *x = a, *y = b;
    if (x->metric != y->metric)
        return x->metric < y->metric ? -1 : 1;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->proc != y->proc)
        return x->proc < y->proc ? -1 : 1;
    if (x->mono_ns != y->mono_ns)
        return x->mono_ns < y->mono_ns ? -1 : 1;
    return 0;
}

static struct ips2_red_ext *new_row(struct red_build *b, struct ext_rows *rows)
{
    if (rows->n == rows->cap) {
        size_t cap = rows->cap ? 2 * rows->cap : 16;
        struct ips2_red_ext *v = realloc(rows->v, cap * sizeof *v);
        if (v == NULL) {
            b->oom = true;
            return NULL;
        }
        rows->v = v;
        rows->cap = cap;
    }
    struct ips2_red_ext *x = &rows->v[rows->n++];
    memset(x, 0, sizeof *x);
    return x;
}

/* A sample's session time: its time on the header's real-time clock
 * (which the reader checked fits) - the session's start; false if that
 * does not fit either. */
static bool session_time(const struct ips2_ext_data *d, const struct ips2_ext_sample *s,
                         int64_t session_start_real, int64_t *t)
{
    int64_t real;
    return !__builtin_add_overflow(s->mono_ns, d->ref_real_ns - d->ref_mono_ns, &real) &&
           !__builtin_sub_overflow(real, session_start_real, t);
}

/* A process row of one process of the file: which row of rows[] it is
 * and the span of its samples (session times). */
struct ext_key {
    size_t row;
    uint32_t pid, proc;
    int64_t first, last;
};

struct ext_keys {
    struct ext_key *v;
    size_t n, cap;
};

/* A candidate: process u of the file (index into the merged keys) and
 * process row i of its pid, how far apart and how much overlapping. */
struct ext_pair {
    size_t u;
    uint32_t i;
    uint64_t gap, overlap;
};

static int cmp_key(const void *a, const void *b)
{
    const struct ext_key *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->proc != y->proc)
        return x->proc < y->proc ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

static int cmp_pair(const void *a, const void *b)
{
    const struct ext_pair *x = a, *y = b;
    if (x->gap != y->gap)
        return x->gap < y->gap ? -1 : 1;
    if (x->overlap != y->overlap)
        return x->overlap > y->overlap ? -1 : 1;
    if (x->u != y->u)
        return x->u < y->u ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Gives each process of one file (keys: its rows) a process row of the
 * reductions, as the file's comment says.  false: out of memory. */
static bool assign_processes(const struct ips2_reductions *r, struct ips2_red_ext *rows,
                             struct ext_key *k, size_t n)
{
    if (n == 0)
        return true;
    qsort(k, n, sizeof *k, cmp_key);
    /* merge the keys of one (pid, proc): u[] holds one per process */
    struct ext_key *u = malloc(n * sizeof *u);
    uint32_t *owner = malloc(n * sizeof *owner);
    bool *taken = calloc(r->nprocesses ? r->nprocesses : 1, sizeof *taken);
    struct ext_pair *pairs = NULL;
    size_t nu = 0, np = 0, cap = 0;
    bool ok = u != NULL && owner != NULL && taken != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        if (nu > 0 && u[nu - 1].pid == k[i].pid && u[nu - 1].proc == k[i].proc) {
            u[nu - 1].first = k[i].first < u[nu - 1].first ? k[i].first : u[nu - 1].first;
            u[nu - 1].last = k[i].last > u[nu - 1].last ? k[i].last : u[nu - 1].last;
        } else {
            u[nu] = k[i];
            owner[nu++] = IPS2_RED_NONE;
        }
    }
    for (size_t j = 0; ok && j < nu; j++) {
        for (size_t i = 0; i < r->nprocesses; i++) {
            const struct ips2_red_process *p = &r->processes[i];
            if (p->pid != u[j].pid)
                continue;
            if (np == cap) {
                cap = cap ? 2 * cap : 16;
                struct ext_pair *v = realloc(pairs, cap * sizeof *v);
                if (v == NULL) {
                    ok = false;
                    break;
                }
                pairs = v;
            }
            int64_t lo = u[j].first > p->start_ns ? u[j].first : p->start_ns;
            int64_t hi = u[j].last < p->end_ns ? u[j].last : p->end_ns;
            /* differences of two int64 as uint64: exact, no overflow */
            pairs[np++] =
                (struct ext_pair){j, (uint32_t)i, lo > hi ? (uint64_t)lo - (uint64_t)hi : 0,
                                  lo > hi ? 0 : (uint64_t)hi - (uint64_t)lo};
        }
    }
    if (ok) {
        if (np > 0)
            qsort(pairs, np, sizeof *pairs, cmp_pair);
        for (size_t q = 0; q < np; q++) {
            const struct ips2_red_process *p = &r->processes[pairs[q].i];
            if (owner[pairs[q].u] != IPS2_RED_NONE || taken[pairs[q].i])
                continue;
            owner[pairs[q].u] = pairs[q].i;
            for (size_t i = 0; i < r->nprocesses; i++) /* the process, all its images */
                if (i == pairs[q].i ||
                    (r->processes[i].pid == p->pid && r->processes[i].app == p->app &&
                     r->processes[i].image != p->image))
                    taken[i] = true;
        }
        for (size_t i = 0, j = 0; i < n; i++) {
            while (u[j].pid != k[i].pid || u[j].proc != k[i].proc)
                j++;
            rows[k[i].row].process = owner[j];
        }
    }
    free(u);
    free(owner);
    free(taken);
    free(pairs);
    return ok;
}

/* One (metric, focus, process of that pid): samples s[0..n) in time order. */
static void reduce_group(struct red_build *b, struct ext_rows *rows, uint32_t collector,
                         uint32_t metric, bool gauge, const struct ips2_ext_data *d,
                         const struct ips2_ext_sample *s, size_t n, int64_t session_start_real,
                         int64_t start, int64_t end, uint64_t interval, struct ext_keys *keys)
{
    /* the increase (counter) or value (gauge) each sample brings, and where */
    double prev = 0;
    bool have_prev = s[0].pid != 0; /* a process counts from 0; the machine from its first */
    int64_t tmin = INT64_MAX, tmax = INT64_MIN, first = INT64_MAX, last = INT64_MIN, t;
    for (size_t i = 0; i < n; i++) {
        if (!session_time(d, &s[i], session_start_real, &t))
            continue;
        first = t < first ? t : first;
        last = t > last ? t : last;
        if (t >= start && t < end) {
            tmin = t < tmin ? t : tmin;
            tmax = t > tmax ? t : tmax;
        }
    }
    if (tmin > tmax)
        return; /* nothing in the phase */
    struct ips2_red_ext *x = new_row(b, rows);
    if (x == NULL)
        return;
    x->collector = collector;
    x->pid = s[0].pid;
    x->process = IPS2_RED_NONE; /* a process's: assign_processes */
    if (x->pid != 0) {
        if (keys->n == keys->cap) {
            size_t cap = keys->cap ? 2 * keys->cap : 16;
            struct ext_key *v = realloc(keys->v, cap * sizeof *v);
            if (v == NULL) {
                b->oom = true;
                return;
            }
            keys->v = v;
            keys->cap = cap;
        }
        keys->v[keys->n++] = (struct ext_key){rows->n - 1, x->pid, s[0].proc, first, last};
    }
    x->metric = metric;
    x->gauge = gauge;
    struct red_hgeom g;
    red_hgeom_init(&g, tmin, interval);
    while (red_hgeom_index(&g, tmax) >= IPS2_HIST_MAX_BUCKETS)
        red_hgeom_fold(&g);
    x->start_ns = g.start;
    x->width_ns = g.width;
    x->nbuckets = (uint32_t)red_hgeom_index(&g, tmax) + 1;
    x->v = calloc(x->nbuckets, sizeof *x->v);
    double *count = gauge ? calloc(x->nbuckets, sizeof *count) : NULL;
    if (x->v == NULL || (gauge && count == NULL)) {
        free(count);
        b->oom = true;
        return;
    }
    double total = 0;
    for (size_t i = 0; i < n; i++) {
        double v = s[i].value, inc;
        if (gauge) {
            inc = v;
        } else {
            inc = have_prev && v >= prev ? v - prev : 0;
            have_prev = true;
            prev = v;
        }
        if (!session_time(d, &s[i], session_start_real, &t) || t < start || t >= end)
            continue;
        uint64_t k = red_hgeom_index(&g, t);
        x->v[k] += inc;
        if (gauge) {
            count[k] += 1;
            total = v;
        } else {
            total += inc;
        }
    }
    if (gauge)
        for (uint32_t k = 0; k < x->nbuckets; k++)
            if (count[k] > 0)
                x->v[k] /= count[k];
    free(count);
    /* a value past 2^64 (a damaged file) is clamped, not undefined; llround()
     * only reaches 2^63 - 1, and above 2^63 a double is an integer anyway */
    x->value = !(total > 0)      ? 0
               : total >= 0x1p64 ? UINT64_MAX
               : total >= 0x1p63 ? (uint64_t)total
                                 : (uint64_t)llround(total);
}

static void reduce_file(struct red_build *b, struct ext_rows *rows, const char *path,
                        int64_t session_start_real, int64_t start, int64_t end, uint64_t interval)
{
    char err[IPS2_EXT_ERR_MAX] = "";
    struct ips2_ext_data *d = ips2_ext_read(path, err);
    if (err[0] != '\0')
        red_build_problem(b, "%s", err);
    if (d == NULL)
        return;
    if (d->torn)
        red_build_problem(b,
                          "%s: the last record was cut short (the collector died while "
                          "writing it): dropped",
                          path);
    for (size_t i = 0; i < d->nnotes; i++) {
        if (d->notes[i].pid != 0)
            red_build_problem(b, "collector %s: process %u: %s", d->collector, d->notes[i].pid,
                              d->notes[i].text);
        else
            red_build_problem(b, "collector %s: %s", d->collector, d->notes[i].text);
    }
    int *metric = calloc(d->nmetrics ? d->nmetrics : 1, sizeof *metric);
    if (metric == NULL) {
        b->oom = true;
        ips2_ext_free(d);
        return;
    }
    for (size_t i = 0; i < d->nmetrics; i++) {
        metric[i] = ips2_metric_by_name(d->metrics[i].name);
        if (metric[i] < 0)
            red_build_problem(b, "%s: metric \"%s\" is not one ips2 knows: ignored", path,
                              d->metrics[i].name);
    }
    uint32_t collector = ips2_strtab_intern(&b->strings, d->collector);
    struct ext_keys keys = {0};
    if (d->nsamples > 0)
        qsort(d->samples, d->nsamples, sizeof *d->samples, cmp_sample);
    for (size_t i = 0; i < d->nsamples;) {
        size_t j = i + 1;
        while (j < d->nsamples && d->samples[j].metric == d->samples[i].metric &&
               d->samples[j].pid == d->samples[i].pid && d->samples[j].proc == d->samples[i].proc)
            j++;
        uint32_t m = d->samples[i].metric;
        if (metric[m] >= 0)
            reduce_group(b, rows, collector, (uint32_t)metric[m],
                         d->metrics[m].kind == IPS2_EXT_GAUGE, d, d->samples + i, j - i,
                         session_start_real, start, end, interval, &keys);
        i = j;
    }
    if (!assign_processes(b->r, rows->v, keys.v, keys.n))
        b->oom = true;
    free(keys.v);
    free(metric);
    ips2_ext_free(d);
}

void red_reduce_ext(struct red_build *b, char *const *paths, size_t npaths,
                    int64_t session_start_real, int64_t start_ns, int64_t end_ns,
                    uint64_t interval_ns)
{
    struct ext_rows rows = {0};
    for (size_t i = 0; i < npaths; i++) /* sorted: the same rows in the same order each time */
        reduce_file(b, &rows, paths[i], session_start_real, start_ns, end_ns, interval_ns);
    b->r->exts = rows.v;
    b->r->nexts = rows.n;
}
