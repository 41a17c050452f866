/*
 * reductions.c - the reductions file: encode, decode (checking everything),
 * free.
 *
 * Layout (little-endian, fixed-width fields):
 *
 *   0   magic "IPS2RED\0"
 *   8   u32 version (3; 2, whose external rows name no process row, and 1,
 *       without the external data, are read too)
 *   12  u32 crc32 (zlib) of every byte from offset 16 to the end, checked
 *       after the structure, so that a truncation is named where it is
 *   16  u32 metrics per row (IPS2_M_COUNT when written; fewer are read
 *       as zeros for the rest, more are refused)
 *   20  u32 counts: strings processes threads procs arcs hists objects problems
 *   52  u32 machine, u32 host, i64 phase_start, i64 phase_end,
 *       u64 interval, u64 events, u64 trace_bytes
 *   100 the sections, in the order of the counts:
 *       string  u32 length, bytes (no NUL)
 *       process u32 app exe command pid ppid image, i64 start end,
 *               i32 exit_how exit_status, u32 problem first_thread nthreads
 *       thread  u32 process tid, u64 create_seq, i64 start end, u64 m[],
 *               u32 first_proc nprocs
 *       proc    u32 thread name, u64 incl_cpu incl_wall, u64 m[]
 *       arc     u32 thread caller callee, u64 count child_cpu
 *       hist    u32 thread proc metric, i64 start, u64 width, u32 nbuckets,
 *               f64 v[nbuckets]
 *       object  u32 thread kind, u64 id waits wait_ns spin_ns
 *       problem u32 string
 *   then (versions 2, 3) the external data: u32 count, and per row
 *       ext     u32 collector pid process metric gauge, u64 value,
 *               i64 start, u64 width, u32 nbuckets, f64 v[nbuckets]
 *       (version 2 has no process: a row of pid P > 0 is read as the
 *       first process row of pid P's, as the master took it then)
 *
 * The decoder trusts nothing: every count is checked against the bytes
 * left before anything is allocated, every index against its table, every
 * row against its owner's range; the first failure is reported as
 * "NAME: byte OFFSET: expected WHAT, found WHAT".
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "ips2_reader.h"
#include "ips2_reductions.h"

#define RED_MAGIC           "IPS2RED"
#define RED_VERSION         3
#define RED_VERSION_NO_PROC 2
#define RED_VERSION_NO_EXT  1
#define CRC_FROM            16
#define NCOUNTS             8

/* ---- encoding -------------------------------------------------------- */

struct out {
    unsigned char *p;
};

static void put32(struct out *o, uint32_t v)
{
    memcpy(o->p, &v, 4);
    o->p += 4;
}

static void put64(struct out *o, uint64_t v)
{
    memcpy(o->p, &v, 8);
    o->p += 8;
}

static void puti64(struct out *o, int64_t v)
{
    memcpy(o->p, &v, 8);
    o->p += 8;
}

static void putf64(struct out *o, double v)
{
    memcpy(o->p, &v, 8);
    o->p += 8;
}

#define PROCESS_SIZE (6 * 4 + 16 + 8 + 12)
#define THREAD_SIZE  (8 + 8 + 16 + 8 * IPS2_M_COUNT + 8)
#define PROC_SIZE    (8 + 16 + 8 * IPS2_M_COUNT)
#define ARC_SIZE     (12 + 16)
#define HIST_SIZE    (12 + 16 + 4)
#define OBJECT_SIZE  (8 + 32)
#define EXT_SIZE     (20 + 8 + 16 + 4)
#define EXT_SIZE_V2  (EXT_SIZE - 4)
#define HEAD_SIZE    100

void *ips2_reductions_encode(const struct ips2_reductions *r, size_t *size)
{
    size_t n = HEAD_SIZE;

    for (size_t i = 0; i < r->nstrings; i++)
        n += 4 + strlen(r->strings[i]);
    n += r->nprocesses * PROCESS_SIZE + r->nthreads * THREAD_SIZE + r->nprocs * PROC_SIZE +
         r->narcs * ARC_SIZE + r->nobjects * OBJECT_SIZE + r->nproblems * 4;
    for (size_t i = 0; i < r->nhists; i++)
        n += HIST_SIZE + (size_t)r->hists[i].nbuckets * 8;
    n += 4;
    for (size_t i = 0; i < r->nexts; i++)
        n += EXT_SIZE + (size_t)r->exts[i].nbuckets * 8;

    unsigned char *buf = malloc(n);
    if (!buf)
        return NULL;
    struct out o = {buf};
    memcpy(o.p, RED_MAGIC, 8);
    o.p += 8;
    put32(&o, RED_VERSION);
    put32(&o, 0); /* crc, below */
    put32(&o, IPS2_M_COUNT);
    size_t counts[NCOUNTS] = {r->nstrings, r->nprocesses, r->nthreads, r->nprocs,
                              r->narcs,    r->nhists,     r->nobjects, r->nproblems};
    for (unsigned i = 0; i < NCOUNTS; i++)
        put32(&o, (uint32_t)counts[i]);
    put32(&o, r->machine);
    put32(&o, r->host);
    puti64(&o, r->phase_start_ns);
    puti64(&o, r->phase_end_ns);
    put64(&o, r->interval_ns);
    put64(&o, r->events);
    put64(&o, r->trace_bytes);

    for (size_t i = 0; i < r->nstrings; i++) {
        size_t len = strlen(r->strings[i]);
        put32(&o, (uint32_t)len);
        memcpy(o.p, r->strings[i], len);
        o.p += len;
    }
    for (size_t i = 0; i < r->nprocesses; i++) {
        const struct ips2_red_process *p = &r->processes[i];
        put32(&o, p->app);
        put32(&o, p->exe);
        put32(&o, p->command);
        put32(&o, p->pid);
        put32(&o, p->ppid);
        put32(&o, p->image);
        puti64(&o, p->start_ns);
        puti64(&o, p->end_ns);
        put32(&o, (uint32_t)p->exit_how);
        put32(&o, (uint32_t)p->exit_status);
        put32(&o, p->problem);
        put32(&o, p->first_thread);
        put32(&o, p->nthreads);
    }
    for (size_t i = 0; i < r->nthreads; i++) {
        const struct ips2_red_thread *t = &r->threads[i];
        put32(&o, t->process);
        put32(&o, t->tid);
        put64(&o, t->create_seq);
        puti64(&o, t->start_ns);
        puti64(&o, t->end_ns);
        for (unsigned m = 0; m < IPS2_M_COUNT; m++)
            put64(&o, t->m[m]);
        put32(&o, t->first_proc);
        put32(&o, t->nprocs);
    }
    for (size_t i = 0; i < r->nprocs; i++) {
        const struct ips2_red_proc *p = &r->procs[i];
        put32(&o, p->thread);
        put32(&o, p->name);
        put64(&o, p->incl_cpu);
        put64(&o, p->incl_wall);
        for (unsigned m = 0; m < IPS2_M_COUNT; m++)
            put64(&o, p->m[m]);
    }
    for (size_t i = 0; i < r->narcs; i++) {
        const struct ips2_red_arc *a = &r->arcs[i];
        put32(&o, a->thread);
        put32(&o, a->caller);
        put32(&o, a->callee);
        put64(&o, a->count);
        put64(&o, a->child_cpu);
    }
    for (size_t i = 0; i < r->nhists; i++) {
        const struct ips2_red_hist *h = &r->hists[i];
        put32(&o, h->thread);
        put32(&o, h->proc);
        put32(&o, h->metric);
        puti64(&o, h->start_ns);
        put64(&o, h->width_ns);
        put32(&o, h->nbuckets);
        for (uint32_t k = 0; k < h->nbuckets; k++)
            putf64(&o, h->v[k]);
    }
    for (size_t i = 0; i < r->nobjects; i++) {
        const struct ips2_red_object *ob = &r->objects[i];
        put32(&o, ob->thread);
        put32(&o, ob->kind);
        put64(&o, ob->id);
        put64(&o, ob->waits);
        put64(&o, ob->wait_ns);
        put64(&o, ob->spin_ns);
    }
    for (size_t i = 0; i < r->nproblems; i++)
        put32(&o, r->problems[i]);
    put32(&o, (uint32_t)r->nexts);
    for (size_t i = 0; i < r->nexts; i++) {
        const struct ips2_red_ext *x = &r->exts[i];
        put32(&o, x->collector);
        put32(&o, x->pid);
        put32(&o, x->process);
        put32(&o, x->metric);
        put32(&o, x->gauge);
        put64(&o, x->value);
        puti64(&o, x->start_ns);
        put64(&o, x->width_ns);
        put32(&o, x->nbuckets);
        for (uint32_t k = 0; k < x->nbuckets; k++)
            putf64(&o, x->v[k]);
    }

    uint32_t crc = (uint32_t)crc32_z(0L, buf + CRC_FROM, n - CRC_FROM);
    memcpy(buf + 12, &crc, 4);
    *size = n;
    return buf;
}

/* ---- decoding -------------------------------------------------------- */

struct in {
    const unsigned char *base;
    size_t size, pos;
    const char *name;
    char *err;
    struct ips2_reductions *r;
    uint32_t mcount;
    uint32_t version;
};

static int bad(struct in *in, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int bad(struct in *in, size_t off, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (!in->err)
        return -1;
    n = snprintf(in->err, IPS2_ERR_MAX, "%s: byte %zu: ", in->name, off);
    if (n < 0 || n >= IPS2_ERR_MAX)
        return -1;
    va_start(ap, fmt);
    vsnprintf(in->err + n, IPS2_ERR_MAX - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static size_t left(const struct in *in)
{
    return in->size - in->pos;
}

static uint32_t get32(struct in *in)
{
    uint32_t v;

    memcpy(&v, in->base + in->pos, 4);
    in->pos += 4;
    return v;
}

static uint64_t get64(struct in *in)
{
    uint64_t v;

    memcpy(&v, in->base + in->pos, 8);
    in->pos += 8;
    return v;
}

static int64_t geti64(struct in *in)
{
    int64_t v;

    memcpy(&v, in->base + in->pos, 8);
    in->pos += 8;
    return v;
}

/* Checks that count records of at least `each` bytes can follow. */
static int room(struct in *in, uint64_t count, size_t each, const char *what)
{
    if (count > left(in) / each)
        return bad(in, in->pos,
                   "expected %llu %s of at least %zu bytes each, found only %zu bytes left",
                   (unsigned long long)count, what, each, left(in));
    return 0;
}

/* Reads a string index at the cursor: < nstrings, or NONE if allowed. */
static int get_str(struct in *in, uint32_t *out, bool none_ok, const char *what)
{
    size_t at = in->pos;
    uint32_t v = get32(in);

    if ((v == IPS2_RED_NONE && none_ok) || v < in->r->nstrings) {
        *out = v;
        return 0;
    }
    return bad(in, at, "expected %s: a string index below %zu%s, found %u", what, in->r->nstrings,
               none_ok ? " or none" : "", v);
}

/* Reads an index at the cursor that must be below n. */
static int get_idx(struct in *in, uint32_t *out, size_t n, bool none_ok, const char *what)
{
    size_t at = in->pos;
    uint32_t v = get32(in);

    if ((v == IPS2_RED_NONE && none_ok) || v < n) {
        *out = v;
        return 0;
    }
    return bad(in, at, "expected %s below %zu%s, found %u", what, n, none_ok ? " or none" : "", v);
}

static void get_metrics(struct in *in, uint64_t *m)
{
    for (uint32_t i = 0; i < in->mcount; i++)
        m[i] = get64(in);
}

static int get_range(struct in *in, uint32_t *first, uint32_t *n, size_t total, const char *what)
{
    size_t at = in->pos;

    *first = get32(in);
    *n = get32(in);
    if (*first > total || *n > total - *first)
        return bad(in, at, "expected a range of %s within the %zu there are, found %u + %u", what,
                   total, *first, *n);
    return 0;
}

static int decode_head(struct in *in, uint32_t counts[NCOUNTS])
{
    struct ips2_reductions *r = in->r;

    if (in->size < 8 || memcmp(in->base, RED_MAGIC, 8) != 0)
        return bad(in, 0, "expected magic \"%s\", found %s", RED_MAGIC,
                   in->size < 8 ? "a file shorter than it" : "other bytes");
    if (in->size < HEAD_SIZE)
        return bad(in, in->size, "expected a %d-byte header, found end of data", HEAD_SIZE);
    in->pos = 8;
    uint32_t version = get32(in);
    if (version != RED_VERSION && version != RED_VERSION_NO_PROC && version != RED_VERSION_NO_EXT)
        return bad(in, 8, "expected version %d, %d or %d, found %u", RED_VERSION_NO_EXT,
                   RED_VERSION_NO_PROC, RED_VERSION, version);
    in->version = version;
    in->pos += 4; /* the crc, checked at the end */
    in->mcount = get32(in);
    if (in->mcount == 0 || in->mcount > IPS2_M_COUNT)
        return bad(in, 16, "expected 1 to %d metrics per row, found %u", IPS2_M_COUNT, in->mcount);
    for (unsigned i = 0; i < NCOUNTS; i++)
        counts[i] = get32(in);
    r->nstrings = 0; /* grows as strings are read */
    size_t at = in->pos;
    r->machine = get32(in);
    r->host = get32(in);
    r->phase_start_ns = geti64(in);
    r->phase_end_ns = geti64(in);
    r->interval_ns = get64(in);
    r->events = get64(in);
    r->trace_bytes = get64(in);
    if (r->phase_start_ns > r->phase_end_ns)
        return bad(in, at + 8, "expected phase start <= phase end, found %lld > %lld",
                   (long long)r->phase_start_ns, (long long)r->phase_end_ns);
    if (r->interval_ns == 0)
        return bad(in, at + 24, "expected a sample interval > 0, found 0");
    return 0;
}

static int decode_strings(struct in *in, uint32_t n)
{
    struct ips2_reductions *r = in->r;

    if (room(in, n, 4, "strings") < 0)
        return -1;
    if (n && !(r->strings = calloc(n, sizeof(*r->strings))))
        return bad(in, in->pos, "expected memory for %u strings, out of memory", n);
    for (uint32_t i = 0; i < n; i++) {
        size_t at = in->pos;
        if (left(in) < 4)
            return bad(in, at, "expected string %u's length, found end of data", i);
        uint32_t len = get32(in);
        if (len > left(in))
            return bad(in, at, "expected string %u of %u bytes, found only %zu bytes left", i, len,
                       left(in));
        if (memchr(in->base + in->pos, '\0', len))
            return bad(in, at, "expected string %u without NUL bytes, found one", i);
        if (!(r->strings[i] = malloc((size_t)len + 1)))
            return bad(in, at, "expected memory for string %u, out of memory", i);
        memcpy(r->strings[i], in->base + in->pos, len);
        r->strings[i][len] = '\0';
        in->pos += len;
        r->nstrings = i + 1;
    }
    if (r->machine != IPS2_RED_NONE && r->machine >= n)
        return bad(in, 52, "expected the machine: a string index below %u, found %u", n,
                   r->machine);
    if (r->host != IPS2_RED_NONE && r->host >= n)
        return bad(in, 56, "expected the host: a string index below %u, found %u", n, r->host);
    return 0;
}

#define ALLOC(field, count)                                                                        \
    do {                                                                                           \
        if ((count) && !(r->field = calloc((count), sizeof(*r->field))))                           \
            return bad(in, in->pos, "expected memory for %u " #field ", out of memory", (count));  \
        r->n##field = (count);                                                                     \
    } while (0)

static int decode_processes(struct in *in, uint32_t n, uint32_t nthreads)
{
    struct ips2_reductions *r = in->r;

    if (room(in, n, PROCESS_SIZE, "processes") < 0)
        return -1;
    ALLOC(processes, n);
    for (uint32_t i = 0; i < n; i++) {
        struct ips2_red_process *p = &r->processes[i];
        if (get_str(in, &p->app, false, "the application") < 0 ||
            get_str(in, &p->exe, false, "the executable") < 0 ||
            get_str(in, &p->command, true, "the command") < 0)
            return -1;
        p->pid = get32(in);
        p->ppid = get32(in);
        p->image = get32(in);
        size_t at = in->pos;
        p->start_ns = geti64(in);
        p->end_ns = geti64(in);
        if (p->start_ns > p->end_ns)
            return bad(in, at, "expected process %u's start <= end, found %lld > %lld", i,
                       (long long)p->start_ns, (long long)p->end_ns);
        at = in->pos;
        p->exit_how = (int32_t)get32(in);
        p->exit_status = (int32_t)get32(in);
        if (p->exit_how < -1 || p->exit_how > IPS2_EXIT_CANCEL)
            return bad(in, at, "expected an exit how of -1 to %d, found %d", IPS2_EXIT_CANCEL,
                       p->exit_how);
        if (get_str(in, &p->problem, true, "the problem") < 0 ||
            get_range(in, &p->first_thread, &p->nthreads, nthreads, "threads") < 0)
            return -1;
    }
    return 0;
}

static int decode_threads(struct in *in, uint32_t n, uint32_t nprocs)
{
    struct ips2_reductions *r = in->r;

    if (room(in, n, 32 + 8 * (size_t)in->mcount + 8, "threads") < 0)
        return -1;
    ALLOC(threads, n);
    for (uint32_t i = 0; i < n; i++) {
        struct ips2_red_thread *t = &r->threads[i];
        size_t at = in->pos;
        if (get_idx(in, &t->process, r->nprocesses, false, "a process index") < 0)
            return -1;
        const struct ips2_red_process *p = &r->processes[t->process];
        if (i < p->first_thread || i - p->first_thread >= p->nthreads)
            return bad(in, at, "expected thread %u to be in its process's threads %u + %u", i,
                       p->first_thread, p->nthreads);
        t->tid = get32(in);
        t->create_seq = get64(in);
        at = in->pos;
        t->start_ns = geti64(in);
        t->end_ns = geti64(in);
        if (t->start_ns > t->end_ns)
            return bad(in, at, "expected thread %u's start <= end, found %lld > %lld", i,
                       (long long)t->start_ns, (long long)t->end_ns);
        get_metrics(in, t->m);
        if (get_range(in, &t->first_proc, &t->nprocs, nprocs, "procedures") < 0)
            return -1;
    }
    return 0;
}

/* Checks that row i of procs[] etc. lies in its thread's range. */
static int owned(struct in *in, size_t at, uint32_t thread, uint32_t i)
{
    const struct ips2_red_thread *t = &in->r->threads[thread];

    if (i < t->first_proc || i - t->first_proc >= t->nprocs)
        return bad(in, at, "expected procedure %u to be in thread %u's procedures %u + %u", i,
                   thread, t->first_proc, t->nprocs);
    return 0;
}

static int decode_procs(struct in *in, uint32_t n)
{
    struct ips2_reductions *r = in->r;

    if (room(in, n, 24 + 8 * (size_t)in->mcount, "procedures") < 0)
        return -1;
    ALLOC(procs, n);
    for (uint32_t i = 0; i < n; i++) {
        struct ips2_red_proc *p = &r->procs[i];
        size_t at = in->pos;
        if (get_idx(in, &p->thread, r->nthreads, false, "a thread index") < 0 ||
            owned(in, at, p->thread, i) < 0 || get_str(in, &p->name, false, "the name") < 0)
            return -1;
        p->incl_cpu = get64(in);
        p->incl_wall = get64(in);
        get_metrics(in, p->m);
    }
    return 0;
}

static int decode_arcs(struct in *in, uint32_t n)
{
    struct ips2_reductions *r = in->r;

    if (room(in, n, ARC_SIZE, "arcs") < 0)
        return -1;
    ALLOC(arcs, n);
    for (uint32_t i = 0; i < n; i++) {
        struct ips2_red_arc *a = &r->arcs[i];
        if (get_idx(in, &a->thread, r->nthreads, false, "a thread index") < 0 ||
            get_str(in, &a->caller, true, "the caller") < 0 ||
            get_str(in, &a->callee, false, "the callee") < 0)
            return -1;
        a->count = get64(in);
        a->child_cpu = get64(in);
    }
    return 0;
}

static int decode_hists(struct in *in, uint32_t n)
{
    struct ips2_reductions *r = in->r;

    if (room(in, n, HIST_SIZE, "histograms") < 0)
        return -1;
    ALLOC(hists, n);
    for (uint32_t i = 0; i < n; i++) {
        struct ips2_red_hist *h = &r->hists[i];
        /* rows have buckets: the count check above covered only their heads */
        if (left(in) < HIST_SIZE)
            return bad(in, in->pos,
                       "expected histogram %u of at least %d bytes, found only %zu "
                       "bytes left",
                       i, HIST_SIZE, left(in));
        if (get_idx(in, &h->thread, r->nthreads, false, "a thread index") < 0)
            return -1;
        size_t at = in->pos;
        if (get_idx(in, &h->proc, r->nprocs, true, "a procedure index") < 0 ||
            (h->proc != IPS2_RED_NONE && r->procs[h->proc].thread != h->thread &&
             bad(in, at, "expected histogram %u's procedure %u to belong to thread %u, found %u", i,
                 h->proc, h->thread, r->procs[h->proc].thread) < 0) ||
            get_idx(in, &h->metric, in->mcount, false, "a metric") < 0)
            return -1;
        h->start_ns = geti64(in);
        at = in->pos;
        h->width_ns = get64(in);
        if (h->width_ns == 0 || h->width_ns > (uint64_t)INT64_MAX / IPS2_HIST_MAX_BUCKETS)
            return bad(in, at, "expected a bucket width of 1 to %lld ns, found %llu",
                       (long long)(INT64_MAX / IPS2_HIST_MAX_BUCKETS),
                       (unsigned long long)h->width_ns);
        at = in->pos;
        h->nbuckets = get32(in);
        if (h->nbuckets > IPS2_HIST_MAX_BUCKETS)
            return bad(in, at, "expected at most %d buckets, found %u", IPS2_HIST_MAX_BUCKETS,
                       h->nbuckets);
        if (room(in, h->nbuckets, 8, "bucket values") < 0)
            return -1;
        if (h->nbuckets && !(h->v = malloc((size_t)h->nbuckets * sizeof(double))))
            return bad(in, in->pos, "expected memory for %u buckets, out of memory", h->nbuckets);
        for (uint32_t k = 0; k < h->nbuckets; k++) {
            at = in->pos;
            memcpy(&h->v[k], in->base + in->pos, 8);
            in->pos += 8;
            if (!isfinite(h->v[k]))
                return bad(in, at, "expected a finite bucket value, found %g", h->v[k]);
        }
    }
    return 0;
}

static int decode_objects(struct in *in, uint32_t n)
{
    struct ips2_reductions *r = in->r;

    if (room(in, n, OBJECT_SIZE, "objects") < 0)
        return -1;
    ALLOC(objects, n);
    for (uint32_t i = 0; i < n; i++) {
        struct ips2_red_object *o = &r->objects[i];
        if (get_idx(in, &o->thread, r->nthreads, false, "a thread index") < 0)
            return -1;
        o->kind = get32(in);
        o->id = get64(in);
        o->waits = get64(in);
        o->wait_ns = get64(in);
        o->spin_ns = get64(in);
    }
    return 0;
}

static int decode_problems(struct in *in, uint32_t n)
{
    struct ips2_reductions *r = in->r;

    if (room(in, n, 4, "problems") < 0)
        return -1;
    ALLOC(problems, n);
    for (uint32_t i = 0; i < n; i++)
        if (get_str(in, &r->problems[i], false, "a problem") < 0)
            return -1;
    return 0;
}

/* Buckets of a histogram or an external row: the width, the count and
 * the values at the cursor. */
static int get_buckets(struct in *in, uint64_t *width, uint32_t *nbuckets, double **v)
{
    size_t at = in->pos;
    *width = get64(in);
    if (*width == 0 || *width > (uint64_t)INT64_MAX / IPS2_HIST_MAX_BUCKETS)
        return bad(in, at, "expected a bucket width of 1 to %lld ns, found %llu",
                   (long long)(INT64_MAX / IPS2_HIST_MAX_BUCKETS), (unsigned long long)*width);
    at = in->pos;
    *nbuckets = get32(in);
    if (*nbuckets > IPS2_HIST_MAX_BUCKETS)
        return bad(in, at, "expected at most %d buckets, found %u", IPS2_HIST_MAX_BUCKETS,
                   *nbuckets);
    if (room(in, *nbuckets, 8, "bucket values") < 0)
        return -1;
    if (*nbuckets && !(*v = malloc((size_t)*nbuckets * sizeof(double))))
        return bad(in, in->pos, "expected memory for %u buckets, out of memory", *nbuckets);
    for (uint32_t k = 0; k < *nbuckets; k++) {
        at = in->pos;
        memcpy(&(*v)[k], in->base + in->pos, 8);
        in->pos += 8;
        if (!isfinite((*v)[k]))
            return bad(in, at, "expected a finite bucket value, found %g", (*v)[k]);
    }
    return 0;
}

/* The process row of an external row (at offset at: its process field,
 * or for version 2 its pid): pid 0 has none; otherwise the row must be
 * pid's (version 2: the first of pid's, or none). */
static int ext_process(struct in *in, struct ips2_red_ext *x, size_t at)
{
    const struct ips2_reductions *r = in->r;

    if (in->version == RED_VERSION_NO_PROC) {
        x->process = IPS2_RED_NONE;
        for (size_t p = 0; x->pid != 0 && p < r->nprocesses && x->process == IPS2_RED_NONE; p++)
            if (r->processes[p].pid == x->pid)
                x->process = (uint32_t)p;
        return 0;
    }
    if (get_idx(in, &x->process, r->nprocesses, true, "a process") < 0)
        return -1;
    if (x->pid == 0 && x->process != IPS2_RED_NONE)
        return bad(in, at, "expected none (the machine's row), found process %u", x->process);
    if (x->process != IPS2_RED_NONE && r->processes[x->process].pid != x->pid)
        return bad(in, at, "expected a process of pid %u, found process %u of pid %u", x->pid,
                   x->process, r->processes[x->process].pid);
    return 0;
}

static int decode_exts(struct in *in)
{
    struct ips2_reductions *r = in->r;
    int size = in->version == RED_VERSION_NO_PROC ? EXT_SIZE_V2 : EXT_SIZE;

    if (in->version == RED_VERSION_NO_EXT)
        return 0;
    if (left(in) < 4)
        return bad(in, in->pos, "expected the count of external data rows, found end of data");
    uint32_t n = get32(in);
    if (room(in, n, (size_t)size, "external data rows") < 0)
        return -1;
    ALLOC(exts, n);
    for (uint32_t i = 0; i < n; i++) {
        struct ips2_red_ext *x = &r->exts[i];
        if (left(in) < (size_t)size)
            return bad(in, in->pos,
                       "expected external data row %u of at least %d bytes, found only %zu "
                       "bytes left",
                       i, size, left(in));
        if (get_str(in, &x->collector, false, "the collector") < 0)
            return -1;
        x->pid = get32(in);
        if (ext_process(in, x, in->pos) < 0)
            return -1;
        if (get_idx(in, &x->metric, in->mcount, false, "a metric") < 0)
            return -1;
        size_t at = in->pos;
        x->gauge = get32(in);
        if (x->gauge > 1)
            return bad(in, at, "expected 0 (counter) or 1 (gauge), found %u", x->gauge);
        x->value = get64(in);
        x->start_ns = geti64(in);
        if (get_buckets(in, &x->width_ns, &x->nbuckets, &x->v) < 0)
            return -1;
    }
    return 0;
}

struct ips2_reductions *ips2_reductions_decode(const void *data, size_t size, const char *name,
                                               char *err)
{
    struct in in = {data, size, 0, name ? name : "reductions", err, NULL, 0, 0};
    uint32_t c[NCOUNTS];

    if (!(in.r = calloc(1, sizeof(*in.r)))) {
        bad(&in, 0, "expected memory, out of memory");
        return NULL;
    }
    if (decode_head(&in, c) < 0 || decode_strings(&in, c[0]) < 0 ||
        decode_processes(&in, c[1], c[2]) < 0 || decode_threads(&in, c[2], c[3]) < 0 ||
        decode_procs(&in, c[3]) < 0 || decode_arcs(&in, c[4]) < 0 || decode_hists(&in, c[5]) < 0 ||
        decode_objects(&in, c[6]) < 0 || decode_problems(&in, c[7]) < 0 || decode_exts(&in) < 0)
        goto fail;
    if (in.pos != size) {
        bad(&in, in.pos, "expected the end of the data, found %zu more bytes", size - in.pos);
        goto fail;
    }
    /* Everything is well-formed; the crc tells whether values were altered. */
    uint32_t crc, have = (uint32_t)crc32_z(0L, in.base + CRC_FROM, size - CRC_FROM);
    memcpy(&crc, in.base + 12, 4);
    if (crc != have) {
        bad(&in, 12,
            "expected crc32 0x%08x of bytes 16 to %zu (the data was altered), found 0x%08x", have,
            size, crc);
        goto fail;
    }
    return in.r;
fail:
    ips2_reductions_free(in.r);
    return NULL;
}

void ips2_reductions_free(struct ips2_reductions *r)
{
    if (!r)
        return;
    if (r->strings)
        for (size_t i = 0; i < r->nstrings; i++)
            free(r->strings[i]);
    free(r->strings);
    free(r->processes);
    free(r->threads);
    free(r->procs);
    free(r->arcs);
    if (r->hists)
        for (size_t i = 0; i < r->nhists; i++)
            free(r->hists[i].v);
    free(r->hists);
    free(r->objects);
    free(r->problems);
    if (r->exts)
        for (size_t i = 0; i < r->nexts; i++)
            free(r->exts[i].v);
    free(r->exts);
    free(r);
}
