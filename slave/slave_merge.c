/*
 * slave_merge.c - merging reductions of several trace directories into
 * one machine's (see slave_merge.h).
 *
 * The string table of the result is every source's table, one after the
 * other (so a source's string i becomes offset + i), followed by the
 * strings made here (machine, host, renamed applications, extra problems).
 * Processes are taken in source order; a process's threads, a thread's
 * procedure rows stay contiguous as ips2_reductions.h requires, and every
 * thread and procedure index of arcs, histograms and objects is mapped
 * through the tables built while copying them, and so is the process row
 * of an external data row (a row of a process not kept goes with it).
 * Rows that point outside their source (which a decoded source never
 * does) are dropped.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slave_merge.h"

struct merged {
    struct ips2_reductions r; /* first: the pointer handed out */
    char **owned;             /* strings made here */
    size_t nowned;
};

/* Growable arrays of the result. */
#define GROW(arr, n, cap)                                                                          \
    do {                                                                                           \
        if ((n) == (cap)) {                                                                        \
            size_t c_ = (cap) ? 2 * (cap) : 16;                                                    \
            void *p_ = realloc((arr), c_ * sizeof *(arr));                                         \
            if (p_ == NULL)                                                                        \
                goto oom;                                                                          \
            (arr) = p_;                                                                            \
            (cap) = c_;                                                                            \
        }                                                                                          \
    } while (0)

struct build {
    struct merged *m;
    size_t cap_strings, cap_owned, cap_processes, cap_threads, cap_procs, cap_arcs, cap_hists,
        cap_objects, cap_holds, cap_lats, cap_problems, cap_exts;
};

/* Appends a copy of s as a new string; returns its index or IPS2_RED_NONE. */
static uint32_t new_string(struct build *b, const char *s1, const char *s2)
{
    struct merged *m = b->m;
    size_t n1 = strlen(s1), n2 = s2 ? strlen(s2) : 0;
    char *s = malloc(n1 + n2 + 1);
    if (s == NULL)
        return IPS2_RED_NONE;
    memcpy(s, s1, n1);
    if (n2)
        memcpy(s + n1, s2, n2);
    s[n1 + n2] = '\0';
    GROW(m->owned, m->nowned, b->cap_owned);
    m->owned[m->nowned++] = s;
    GROW(m->r.strings, m->r.nstrings, b->cap_strings);
    m->r.strings[m->r.nstrings] = s;
    return (uint32_t)m->r.nstrings++;
oom:
    if (m->nowned == 0 || m->owned[m->nowned - 1] != s)
        free(s);
    return IPS2_RED_NONE;
}

static uint32_t map_string(uint32_t s, uint32_t offset, size_t nstrings)
{
    return s == IPS2_RED_NONE || s >= nstrings ? IPS2_RED_NONE : s + offset;
}

static bool wanted(const struct slave_merge_src *src, const char *app)
{
    if (src->napps == 0)
        return true;
    for (size_t i = 0; i < src->napps; i++)
        if (strcmp(src->apps[i], app) == 0)
            return true;
    return false;
}

/* Copies the kept part of one source.  Returns 0 or -1 (out of memory). */
static int add_source(struct build *b, const struct slave_merge_src *src)
{
    struct ips2_reductions *out = &b->m->r;
    const struct ips2_reductions *in = src->r;
    uint32_t *tmap = NULL, *pmap = NULL, *apps = NULL, *prmap = NULL, *omap = NULL;
    uint32_t offset = (uint32_t)out->nstrings;

    for (size_t i = 0; i < in->nstrings; i++) {
        GROW(out->strings, out->nstrings, b->cap_strings);
        out->strings[out->nstrings++] = in->strings[i];
    }
    tmap = malloc((in->nthreads + 1) * sizeof *tmap);
    pmap = malloc((in->nprocs + 1) * sizeof *pmap);
    apps = malloc((in->nstrings + 1) * sizeof *apps); /* renamed application strings */
    prmap = malloc((in->nprocesses + 1) * sizeof *prmap);
    omap = malloc((in->nobjects + 1) * sizeof *omap);
    if (tmap == NULL || pmap == NULL || apps == NULL || prmap == NULL || omap == NULL)
        goto oom;
    for (size_t i = 0; i < in->nprocesses; i++)
        prmap[i] = IPS2_RED_NONE;
    for (size_t i = 0; i < in->nthreads; i++)
        tmap[i] = IPS2_RED_NONE;
    for (size_t i = 0; i < in->nprocs; i++)
        pmap[i] = IPS2_RED_NONE;
    for (size_t i = 0; i < in->nstrings; i++)
        apps[i] = IPS2_RED_NONE;

    for (size_t pi = 0; pi < in->nprocesses; pi++) {
        const struct ips2_red_process *p = &in->processes[pi];
        if (p->app >= in->nstrings || !wanted(src, in->strings[p->app]))
            continue;
        if (p->first_thread > in->nthreads || p->nthreads > in->nthreads - p->first_thread)
            continue;
        struct ips2_red_process np = *p;
        if (src->prefix != NULL && src->prefix[0] != '\0') {
            if (apps[p->app] == IPS2_RED_NONE &&
                (apps[p->app] = new_string(b, src->prefix, in->strings[p->app])) == IPS2_RED_NONE)
                goto oom;
            np.app = apps[p->app];
        } else {
            np.app = p->app + offset;
        }
        np.exe = map_string(p->exe, offset, in->nstrings);
        np.command = map_string(p->command, offset, in->nstrings);
        np.problem = map_string(p->problem, offset, in->nstrings);
        np.first_thread = (uint32_t)out->nthreads;
        uint32_t newp = (uint32_t)out->nprocesses;
        prmap[pi] = newp;
        GROW(out->processes, out->nprocesses, b->cap_processes);
        out->processes[out->nprocesses++] = np;

        for (uint32_t ti = p->first_thread; ti < p->first_thread + p->nthreads; ti++) {
            const struct ips2_red_thread *t = &in->threads[ti];
            struct ips2_red_thread nt = *t;
            nt.process = newp;
            nt.first_proc = (uint32_t)out->nprocs;
            nt.nprocs = 0;
            tmap[ti] = (uint32_t)out->nthreads;
            if (t->first_proc <= in->nprocs && t->nprocs <= in->nprocs - t->first_proc) {
                for (uint32_t k = t->first_proc; k < t->first_proc + t->nprocs; k++) {
                    struct ips2_red_proc np2 = in->procs[k];
                    np2.thread = tmap[ti];
                    np2.name = map_string(np2.name, offset, in->nstrings);
                    pmap[k] = (uint32_t)out->nprocs;
                    GROW(out->procs, out->nprocs, b->cap_procs);
                    out->procs[out->nprocs++] = np2;
                    nt.nprocs++;
                }
            }
            GROW(out->threads, out->nthreads, b->cap_threads);
            out->threads[out->nthreads++] = nt;
        }
    }

    for (size_t i = 0; i < in->narcs; i++) {
        struct ips2_red_arc a = in->arcs[i];
        if (a.thread >= in->nthreads || tmap[a.thread] == IPS2_RED_NONE)
            continue;
        a.thread = tmap[a.thread];
        a.caller = map_string(a.caller, offset, in->nstrings);
        a.callee = map_string(a.callee, offset, in->nstrings);
        GROW(out->arcs, out->narcs, b->cap_arcs);
        out->arcs[out->narcs++] = a;
    }
    for (size_t i = 0; i < in->nobjects; i++) {
        struct ips2_red_object o = in->objects[i];
        omap[i] = IPS2_RED_NONE;
        if (o.thread >= in->nthreads || tmap[o.thread] == IPS2_RED_NONE)
            continue;
        o.thread = tmap[o.thread];
        o.name = map_string(o.name, offset, in->nstrings);
        omap[i] = (uint32_t)out->nobjects;
        GROW(out->objects, out->nobjects, b->cap_objects);
        out->objects[out->nobjects++] = o;
    }
    for (size_t i = 0; i < in->nholds; i++) {
        struct ips2_red_hold h = in->holds[i];
        if (h.object >= in->nobjects || omap[h.object] == IPS2_RED_NONE)
            continue;
        h.object = omap[h.object];
        if (h.proc != IPS2_RED_NONE)
            h.proc = h.proc < in->nprocs ? pmap[h.proc] : IPS2_RED_NONE;
        GROW(out->holds, out->nholds, b->cap_holds);
        out->holds[out->nholds++] = h;
    }
    for (size_t i = 0; i < in->nlats; i++) {
        struct ips2_red_latency l = in->lats[i];
        if (l.proc >= in->nprocs || pmap[l.proc] == IPS2_RED_NONE)
            continue;
        l.proc = pmap[l.proc];
        GROW(out->lats, out->nlats, b->cap_lats);
        out->lats[out->nlats++] = l; /* bins borrowed */
    }
    for (size_t i = 0; i < in->nhists; i++) {
        struct ips2_red_hist h = in->hists[i];
        if (h.thread >= in->nthreads || tmap[h.thread] == IPS2_RED_NONE)
            continue;
        if (h.proc != IPS2_RED_NONE) {
            if (h.proc >= in->nprocs || pmap[h.proc] == IPS2_RED_NONE)
                continue;
            h.proc = pmap[h.proc];
        }
        if (h.object != IPS2_RED_NONE) {
            if (h.object >= in->nobjects || omap[h.object] == IPS2_RED_NONE)
                continue;
            h.object = omap[h.object];
        }
        h.thread = tmap[h.thread];
        GROW(out->hists, out->nhists, b->cap_hists);
        out->hists[out->nhists++] = h; /* v borrowed */
    }
    for (size_t i = 0; i < in->nproblems; i++) {
        uint32_t s = map_string(in->problems[i], offset, in->nstrings);
        if (s == IPS2_RED_NONE)
            continue;
        GROW(out->problems, out->nproblems, b->cap_problems);
        out->problems[out->nproblems++] = s;
    }
    for (size_t i = 0; i < in->nexts; i++) {
        struct ips2_red_ext x = in->exts[i];
        bool keep = x.pid == 0 ? src->machine
                               : x.process < in->nprocesses && prmap[x.process] != IPS2_RED_NONE;
        if (!keep || x.collector >= in->nstrings)
            continue;
        if (x.pid != 0)
            x.process = prmap[x.process];
        x.collector += offset;
        GROW(out->exts, out->nexts, b->cap_exts);
        out->exts[out->nexts++] = x; /* v borrowed */
    }
    /* the times and the probes' costs (REDUCTION.md "Compensated times") */
    if (in->call_cost_ps && in->events)
        out->call_cost_ps = (uint32_t)(((double)out->call_cost_ps * (double)out->events +
                                        (double)in->call_cost_ps * (double)in->events) /
                                           (double)(out->events + in->events) +
                                       0.5);
    out->probe_ns += in->probe_ns;
    out->events += in->events;
    out->trace_bytes += in->trace_bytes;
    free(tmap);
    free(pmap);
    free(apps);
    free(prmap);
    free(omap);
    return 0;
oom:
    free(tmap);
    free(pmap);
    free(apps);
    free(prmap);
    free(omap);
    return -1;
}

struct ips2_reductions *slave_merge(const struct slave_merge_src *src, size_t nsrc,
                                    const char *machine, const char *host, const char *const *extra,
                                    size_t nextra)
{
    struct build b = {0};
    b.m = calloc(1, sizeof *b.m);
    if (b.m == NULL)
        return NULL;
    struct ips2_reductions *out = &b.m->r;
    out->phase_start_ns = INT64_MIN;
    out->phase_end_ns = INT64_MAX;
    if (nsrc > 0) {
        out->phase_start_ns = src[0].r->phase_start_ns;
        out->phase_end_ns = src[0].r->phase_end_ns;
        out->interval_ns = src[0].r->interval_ns;
        out->times = src[0].r->times;
    }
    /* latency distributions when every source has them */
    out->latency = nsrc > 0;
    for (size_t i = 0; i < nsrc; i++)
        out->latency = out->latency && src[i].r->latency;
    for (size_t i = 0; i < nsrc; i++)
        if (add_source(&b, &src[i]) != 0)
            goto oom;
    if (!out->latency)
        out->nlats = 0;
    if ((out->machine = new_string(&b, machine ? machine : "", NULL)) == IPS2_RED_NONE ||
        (out->host = new_string(&b, host ? host : "", NULL)) == IPS2_RED_NONE)
        goto oom;
    for (size_t i = 0; i < nextra; i++) {
        uint32_t s = new_string(&b, extra[i], NULL);
        if (s == IPS2_RED_NONE)
            goto oom;
        GROW(out->problems, out->nproblems, b.cap_problems);
        out->problems[out->nproblems++] = s;
    }
    return out;
oom:
    slave_merge_free(out);
    return NULL;
}

void slave_merge_free(struct ips2_reductions *r)
{
    if (r == NULL)
        return;
    struct merged *m = (struct merged *)r; /* r is its first member */
    for (size_t i = 0; i < m->nowned; i++)
        free(m->owned[i]);
    free(m->owned);
    free(r->strings);
    free(r->processes);
    free(r->threads);
    free(r->procs);
    free(r->arcs);
    free(r->hists);
    free(r->objects);
    free(r->holds);
    free(r->lats);
    free(r->problems);
    free(r->exts);
    free(m);
}
