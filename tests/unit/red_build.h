/*
 * red_build.h - reductions built in memory with known values, for the
 * master's unit tests (test_model.c, test_tables.c).  Allocation matches
 * ips2_reductions_free(): every array and string malloc'd on its own.
 *
 * Add a process, then its threads, then each thread's procedure rows, arcs
 * and histograms (rows must follow their thread, threads their process).
 * Out of memory aborts: these are tests.
 */
#ifndef IPS2_TEST_RED_BUILD_H
#define IPS2_TEST_RED_BUILD_H

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ips2_reductions.h"

static inline void *rb_grow(void *p, size_t n, size_t size)
{
    p = realloc(p, (n + 1) * size);
    if (p == NULL)
        abort();
    memset((char *)p + n * size, 0, size);
    return p;
}

static inline uint32_t rb_str(struct ips2_reductions *r, const char *s)
{
    for (size_t i = 0; i < r->nstrings; i++)
        if (strcmp(r->strings[i], s) == 0)
            return (uint32_t)i;
    r->strings = rb_grow(r->strings, r->nstrings, sizeof(char *));
    r->strings[r->nstrings] = strdup(s);
    return (uint32_t)r->nstrings++;
}

static inline struct ips2_reductions *rb_new(const char *machine, uint64_t interval_ns)
{
    struct ips2_reductions *r = calloc(1, sizeof(*r));

    if (r == NULL)
        abort();
    r->machine = rb_str(r, machine);
    r->host = rb_str(r, "localhost");
    r->phase_start_ns = INT64_MIN;
    r->phase_end_ns = INT64_MAX;
    r->interval_ns = interval_ns;
    return r;
}

static inline uint32_t rb_process(struct ips2_reductions *r, const char *app, uint32_t pid,
                                  int64_t start, int64_t end)
{
    struct ips2_red_process *p;

    r->processes = rb_grow(r->processes, r->nprocesses, sizeof(*p));
    p = &r->processes[r->nprocesses];
    p->app = rb_str(r, app);
    p->exe = rb_str(r, "/bin/prog");
    p->command = IPS2_RED_NONE;
    p->problem = IPS2_RED_NONE;
    p->pid = pid;
    p->start_ns = start;
    p->end_ns = end;
    p->exit_how = 0;
    p->exit_status = 0;
    p->first_thread = (uint32_t)r->nthreads;
    return (uint32_t)r->nprocesses++;
}

/* A thread of the last process, with its cpu and wall totals. */
static inline uint32_t rb_thread(struct ips2_reductions *r, uint32_t tid, int64_t start,
                                 int64_t end, uint64_t cpu)
{
    struct ips2_red_thread *t;

    r->threads = rb_grow(r->threads, r->nthreads, sizeof(*t));
    t = &r->threads[r->nthreads];
    t->process = (uint32_t)r->nprocesses - 1;
    t->tid = tid;
    t->start_ns = start;
    t->end_ns = end;
    t->m[IPS2_M_CPU] = cpu;
    t->m[IPS2_M_WALL] = (uint64_t)(end - start);
    t->first_proc = (uint32_t)r->nprocs;
    r->processes[r->nprocesses - 1].nthreads++;
    return (uint32_t)r->nthreads++;
}

/* A procedure row of the last thread: self cpu, calls, inclusive cpu;
 * the thread's call total grows by calls. */
static inline uint32_t rb_proc(struct ips2_reductions *r, const char *name, uint64_t self,
                               uint64_t calls, uint64_t incl)
{
    struct ips2_red_proc *p;

    r->procs = rb_grow(r->procs, r->nprocs, sizeof(*p));
    p = &r->procs[r->nprocs];
    p->thread = (uint32_t)r->nthreads - 1;
    p->name = rb_str(r, name);
    p->m[IPS2_M_CPU] = self;
    p->m[IPS2_M_CALLS] = calls;
    p->incl_cpu = incl;
    r->threads[r->nthreads - 1].nprocs++;
    r->threads[r->nthreads - 1].m[IPS2_M_CALLS] += calls;
    return (uint32_t)r->nprocs++;
}

/* An arc of the last thread; caller NULL: <spontaneous>. */
static inline void rb_arc(struct ips2_reductions *r, const char *caller, const char *callee,
                          uint64_t count, uint64_t child_cpu)
{
    struct ips2_red_arc *a;

    r->arcs = rb_grow(r->arcs, r->narcs, sizeof(*a));
    a = &r->arcs[r->narcs++];
    a->thread = (uint32_t)r->nthreads - 1;
    a->caller = caller ? rb_str(r, caller) : IPS2_RED_NONE;
    a->callee = rb_str(r, callee);
    a->count = count;
    a->child_cpu = child_cpu;
}

/* A histogram of the last thread (proc IPS2_RED_NONE) or of one of its
 * procedure rows: n buckets of width from start, values as doubles. */
static inline void rb_hist(struct ips2_reductions *r, uint32_t proc, unsigned metric, int64_t start,
                           uint64_t width, uint32_t n, ...)
{
    struct ips2_red_hist *h;
    va_list ap;

    r->hists = rb_grow(r->hists, r->nhists, sizeof(*h));
    h = &r->hists[r->nhists++];
    h->thread = (uint32_t)r->nthreads - 1;
    h->proc = proc;
    h->object = IPS2_RED_NONE;
    h->metric = metric;
    h->start_ns = start;
    h->width_ns = width;
    h->nbuckets = n;
    h->v = calloc(n ? n : 1, sizeof(double));
    if (h->v == NULL)
        abort();
    va_start(ap, n);
    for (uint32_t i = 0; i < n; i++)
        h->v[i] = va_arg(ap, double);
    va_end(ap);
}

#endif /* IPS2_TEST_RED_BUILD_H */
