/*
 * reductions.c - the reductions file: written and read (checking
 * everything) through the buffer codec (traces/ips2_codec.h), freed.
 *
 * Layout (little-endian, fixed-width fields):
 *
 *   0   magic "IPS2RED\0"
 *   8   u32 version (7; 6 when no procedure has a latency distribution
 *       (reductions made from an older file), 5 when moreover no process
 *       row says its clock, 4 when moreover no thread held a lock, 3 when
 *       moreover no
 *       object has a name and no histogram an object, so that such a file is
 *       the same bytes as before; 2, whose
 *       external rows name no process row, and 1, without the external
 *       data, are read too)
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
 *   then (version 4) the links of objects and histograms:
 *       u32 name[objects]    per object row, a string or none
 *       u32 object[hists]    per histogram row, an object row or none;
 *                            the object is the histogram's thread's, the
 *                            histogram a SYNC_WAIT one of no procedure
 *       (older versions: every name and every object none)
 *   then (version 5) the holds of locks: u32 count, and per row
 *       hold    u32 object proc, u64 acquisitions hold_ns
 *       (the procedure, if any, of the object's thread; older: none)
 *   then (version 6) the process-time clock of each process row:
 *       clock   u32 method (0 exact, 1 interp, 2 tick), u32 param,
 *               u64 resolution ns (0: not known; older: every one 0)
 *   then (version 7) the latency distributions: u32 count, and per row
 *       latency u32 proc nbins, u64 count max_ns,
 *               nbins x (u32 bucket, u64 count)
 *       (procedure rows strictly ascending; buckets strictly ascending,
 *       below IPS2_LAT_BUCKETS, counts > 0 adding up to count; max_ns in
 *       the last bucket; older versions: latency not recorded)
 *   then (version 8) which times the reductions hold: u32 times (1 raw,
 *       2 compensated), u32 call_cost_ps, u64 probe_ns (older: raw,
 *       costs unknown; written only when one of them says something)
 *   then (version 9) per hold row, u64 counted: of its acquisitions, the
 *       ones libips2 counted without times (older: none; written only
 *       when a hold has some)
 *
 * The writer and the reader mirror each other as Lua's ldump.c and
 * lundump.c do: a write_X for every read_X, called in the same order, one
 * per part of the layout above.  The reader trusts nothing: every count is
 * checked against the bytes left before anything is allocated, every index
 * against its table, every row against its owner's range; the first
 * failure is reported as "NAME: byte OFFSET: expected WHAT, found WHAT".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "ips2_codec.h"
#include "ips2_reader.h"
#include "ips2_reductions.h"

#define RED_MAGIC              "IPS2RED"
#define RED_VERSION            9
#define RED_VERSION_NO_COUNTED 8
#define RED_VERSION_NO_TIME    7
#define RED_VERSION_NO_LAT     6
#define RED_VERSION_NO_CLOCK   5
#define RED_VERSION_NO_HOLD    4
#define RED_VERSION_NO_LINK    3
#define RED_VERSION_NO_PROC    2
#define RED_VERSION_NO_EXT     1
#define CRC_AT                 12
#define CRC_FROM               16
#define NCOUNTS                8

/* Bytes of a row, without its metrics or buckets. */
#define PROCESS_SIZE (6 * 4 + 16 + 8 + 12)
#define ARC_SIZE     (12 + 16)
#define HIST_SIZE    (12 + 16 + 4)
#define OBJECT_SIZE  (8 + 32)
#define EXT_SIZE     (20 + 8 + 16 + 4)
#define EXT_SIZE_V2  (EXT_SIZE - 4)
#define HOLD_SIZE    (8 + 16)
#define CLOCK_SIZE   (8 + 8)
#define LAT_SIZE     (8 + 16)
#define LAT_BIN_SIZE (4 + 8)
#define HEAD_SIZE    100

/* ---- writing --------------------------------------------------------- */

/* Whether r needs version 6: a process row that says its clock. */
static bool has_clocks(const struct ips2_reductions *r)
{
    for (size_t i = 0; i < r->nprocesses; i++)
        if (r->processes[i].cpu_res_ns != 0)
            return true;
    return false;
}

/* Whether r needs version 4: an object with a name or a histogram of an
 * object. */
static bool has_links(const struct ips2_reductions *r)
{
    for (size_t i = 0; i < r->nobjects; i++)
        if (r->objects[i].name != IPS2_RED_NONE)
            return true;
    for (size_t i = 0; i < r->nhists; i++)
        if (r->hists[i].object != IPS2_RED_NONE)
            return true;
    return false;
}

static void write_header(struct ips2_out *o, const struct ips2_reductions *r, uint32_t version)
{
    size_t counts[NCOUNTS] = {r->nstrings, r->nprocesses, r->nthreads, r->nprocs,
                              r->narcs,    r->nhists,     r->nobjects, r->nproblems};

    ips2_put_bytes(o, RED_MAGIC, 8);
    ips2_put_u32(o, version);
    ips2_put_u32(o, 0); /* the crc: write_crc */
    ips2_out_crc_begin(o);
    ips2_put_u32(o, IPS2_M_COUNT);
    for (unsigned i = 0; i < NCOUNTS; i++)
        ips2_put_u32(o, (uint32_t)counts[i]);
    ips2_put_u32(o, r->machine);
    ips2_put_u32(o, r->host);
    ips2_put_i64(o, r->phase_start_ns);
    ips2_put_i64(o, r->phase_end_ns);
    ips2_put_u64(o, r->interval_ns);
    ips2_put_u64(o, r->events);
    ips2_put_u64(o, r->trace_bytes);
}

static void write_strings(struct ips2_out *o, const struct ips2_reductions *r)
{
    for (size_t i = 0; i < r->nstrings; i++)
        ips2_put_str32(o, r->strings[i]);
}

static void write_processes(struct ips2_out *o, const struct ips2_reductions *r)
{
    for (size_t i = 0; i < r->nprocesses; i++) {
        const struct ips2_red_process *p = &r->processes[i];
        ips2_put_u32(o, p->app);
        ips2_put_u32(o, p->exe);
        ips2_put_u32(o, p->command);
        ips2_put_u32(o, p->pid);
        ips2_put_u32(o, p->ppid);
        ips2_put_u32(o, p->image);
        ips2_put_i64(o, p->start_ns);
        ips2_put_i64(o, p->end_ns);
        ips2_put_i32(o, p->exit_how);
        ips2_put_i32(o, p->exit_status);
        ips2_put_u32(o, p->problem);
        ips2_put_u32(o, p->first_thread);
        ips2_put_u32(o, p->nthreads);
    }
}

static void write_metrics(struct ips2_out *o, const uint64_t *m)
{
    ips2_put_u64s(o, m, IPS2_M_COUNT);
}

static void write_threads(struct ips2_out *o, const struct ips2_reductions *r)
{
    for (size_t i = 0; i < r->nthreads; i++) {
        const struct ips2_red_thread *t = &r->threads[i];
        ips2_put_u32(o, t->process);
        ips2_put_u32(o, t->tid);
        ips2_put_u64(o, t->create_seq);
        ips2_put_i64(o, t->start_ns);
        ips2_put_i64(o, t->end_ns);
        write_metrics(o, t->m);
        ips2_put_u32(o, t->first_proc);
        ips2_put_u32(o, t->nprocs);
    }
}

static void write_procs(struct ips2_out *o, const struct ips2_reductions *r)
{
    for (size_t i = 0; i < r->nprocs; i++) {
        const struct ips2_red_proc *p = &r->procs[i];
        ips2_put_u32(o, p->thread);
        ips2_put_u32(o, p->name);
        ips2_put_u64(o, p->incl_cpu);
        ips2_put_u64(o, p->incl_wall);
        write_metrics(o, p->m);
    }
}

static void write_arcs(struct ips2_out *o, const struct ips2_reductions *r)
{
    for (size_t i = 0; i < r->narcs; i++) {
        const struct ips2_red_arc *a = &r->arcs[i];
        ips2_put_u32(o, a->thread);
        ips2_put_u32(o, a->caller);
        ips2_put_u32(o, a->callee);
        ips2_put_u64(o, a->count);
        ips2_put_u64(o, a->child_cpu);
    }
}

/* A histogram's or an external row's width, count and values. */
static void write_buckets(struct ips2_out *o, uint64_t width, uint32_t nbuckets, const double *v)
{
    ips2_put_u64(o, width);
    ips2_put_u32(o, nbuckets);
    ips2_put_f64s(o, v, nbuckets);
}

static void write_hists(struct ips2_out *o, const struct ips2_reductions *r)
{
    for (size_t i = 0; i < r->nhists; i++) {
        const struct ips2_red_hist *h = &r->hists[i];
        ips2_put_u32(o, h->thread);
        ips2_put_u32(o, h->proc);
        ips2_put_u32(o, h->metric);
        ips2_put_i64(o, h->start_ns);
        write_buckets(o, h->width_ns, h->nbuckets, h->v);
    }
}

static void write_objects(struct ips2_out *o, const struct ips2_reductions *r)
{
    for (size_t i = 0; i < r->nobjects; i++) {
        const struct ips2_red_object *ob = &r->objects[i];
        ips2_put_u32(o, ob->thread);
        ips2_put_u32(o, ob->kind);
        ips2_put_u64(o, ob->id);
        ips2_put_u64(o, ob->waits);
        ips2_put_u64(o, ob->wait_ns);
        ips2_put_u64(o, ob->spin_ns);
    }
}

static void write_problems(struct ips2_out *o, const struct ips2_reductions *r)
{
    for (size_t i = 0; i < r->nproblems; i++)
        ips2_put_u32(o, r->problems[i]);
}

static void write_exts(struct ips2_out *o, const struct ips2_reductions *r)
{
    ips2_put_u32(o, (uint32_t)r->nexts);
    for (size_t i = 0; i < r->nexts; i++) {
        const struct ips2_red_ext *x = &r->exts[i];
        ips2_put_u32(o, x->collector);
        ips2_put_u32(o, x->pid);
        ips2_put_u32(o, x->process);
        ips2_put_u32(o, x->metric);
        ips2_put_u32(o, x->gauge);
        ips2_put_u64(o, x->value);
        ips2_put_i64(o, x->start_ns);
        write_buckets(o, x->width_ns, x->nbuckets, x->v);
    }
}

static void write_links(struct ips2_out *o, const struct ips2_reductions *r)
{
    for (size_t i = 0; i < r->nobjects; i++)
        ips2_put_u32(o, r->objects[i].name);
    for (size_t i = 0; i < r->nhists; i++)
        ips2_put_u32(o, r->hists[i].object);
}

static void write_holds(struct ips2_out *o, const struct ips2_reductions *r)
{
    ips2_put_u32(o, (uint32_t)r->nholds);
    for (size_t i = 0; i < r->nholds; i++) {
        const struct ips2_red_hold *h = &r->holds[i];
        ips2_put_u32(o, h->object);
        ips2_put_u32(o, h->proc);
        ips2_put_u64(o, h->acquisitions);
        ips2_put_u64(o, h->hold_ns);
    }
}

/* Whether r needs version 9: a hold with counted acquisitions. */
static bool has_counted(const struct ips2_reductions *r)
{
    for (size_t i = 0; i < r->nholds; i++)
        if (r->holds[i].counted)
            return true;
    return false;
}

static void write_counted(struct ips2_out *o, const struct ips2_reductions *r)
{
    for (size_t i = 0; i < r->nholds; i++)
        ips2_put_u64(o, r->holds[i].counted);
}

static void write_clocks(struct ips2_out *o, const struct ips2_reductions *r)
{
    for (size_t i = 0; i < r->nprocesses; i++) {
        const struct ips2_red_process *p = &r->processes[i];
        ips2_put_u32(o, p->cpu_method);
        ips2_put_u32(o, p->cpu_param);
        ips2_put_u64(o, p->cpu_res_ns);
    }
}

static void write_lats(struct ips2_out *o, const struct ips2_reductions *r)
{
    ips2_put_u32(o, (uint32_t)r->nlats);
    for (size_t i = 0; i < r->nlats; i++) {
        const struct ips2_red_latency *l = &r->lats[i];
        ips2_put_u32(o, l->proc);
        ips2_put_u32(o, l->nbins);
        ips2_put_u64(o, l->count);
        ips2_put_u64(o, l->max_ns);
        for (uint32_t k = 0; k < l->nbins; k++) {
            ips2_put_u32(o, l->bins[k].bucket);
            ips2_put_u64(o, l->bins[k].count);
        }
    }
}

/* The crc of bytes 16 to the end, into the header. */
static void write_crc(struct ips2_out *o)
{
    ips2_out_patch_u32(o, CRC_AT, ips2_out_crc_end(o));
}

void *ips2_reductions_encode(const struct ips2_reductions *r, size_t *size)
{
    struct ips2_out o;
    bool timed = r->times == IPS2_TIMES_COMPENSATED || r->call_cost_ps || r->probe_ns;
    uint32_t version = has_counted(r)  ? RED_VERSION
                       : timed         ? RED_VERSION_NO_COUNTED
                       : r->latency    ? RED_VERSION_NO_TIME
                       : has_clocks(r) ? RED_VERSION_NO_LAT
                       : r->nholds     ? RED_VERSION_NO_CLOCK
                       : has_links(r)  ? RED_VERSION_NO_HOLD
                                       : RED_VERSION_NO_LINK;

    ips2_out_init(&o);
    write_header(&o, r, version);
    write_strings(&o, r);
    write_processes(&o, r);
    write_threads(&o, r);
    write_procs(&o, r);
    write_arcs(&o, r);
    write_hists(&o, r);
    write_objects(&o, r);
    write_problems(&o, r);
    write_exts(&o, r);
    if (version >= RED_VERSION_NO_HOLD)
        write_links(&o, r);
    if (version >= RED_VERSION_NO_CLOCK)
        write_holds(&o, r);
    if (version >= RED_VERSION_NO_LAT)
        write_clocks(&o, r);
    if (version >= RED_VERSION_NO_TIME)
        write_lats(&o, r);
    if (version >= RED_VERSION_NO_COUNTED) {
        /* a version 9 file of raw times says so (times 0: not set, raw) */
        ips2_put_u32(&o, r->times ? r->times : IPS2_TIMES_RAW);
        ips2_put_u32(&o, r->call_cost_ps);
        ips2_put_u64(&o, r->probe_ns);
    }
    if (version >= RED_VERSION)
        write_counted(&o, r);
    write_crc(&o);
    return ips2_out_take(&o, size);
}

/* ---- reading --------------------------------------------------------- */

struct reader {
    struct ips2_in in;
    struct ips2_reductions *r;
    uint32_t counts[NCOUNTS];
    uint32_t mcount;
    uint32_t version;
};

#define bad(rd, off, ...) ips2_in_fail(&(rd)->in, (off), __VA_ARGS__)

static size_t left(const struct reader *rd)
{
    return ips2_in_left(&rd->in);
}

static size_t pos(const struct reader *rd)
{
    return rd->in.pos;
}

/* Checks that count records of at least `each` bytes can follow. */
static int room(struct reader *rd, uint64_t count, size_t each, const char *what)
{
    if (!ips2_in_fits(&rd->in, count, each))
        return bad(rd, pos(rd),
                   "expected %llu %s of at least %zu bytes each, found only %zu bytes left",
                   (unsigned long long)count, what, each, left(rd));
    return 0;
}

/* Reads a string index at the cursor: < nstrings, or NONE if allowed. */
static int read_str(struct reader *rd, uint32_t *out, bool none_ok, const char *what)
{
    size_t at = pos(rd);
    uint32_t v = ips2_get_u32(&rd->in);

    if (rd->in.failed)
        return -1;
    if ((v == IPS2_RED_NONE && none_ok) || v < rd->r->nstrings) {
        *out = v;
        return 0;
    }
    return bad(rd, at, "expected %s: a string index below %zu%s, found %u", what, rd->r->nstrings,
               none_ok ? " or none" : "", v);
}

/* Reads an index at the cursor that must be below n. */
static int read_idx(struct reader *rd, uint32_t *out, size_t n, bool none_ok, const char *what)
{
    size_t at = pos(rd);
    uint32_t v = ips2_get_u32(&rd->in);

    if (rd->in.failed)
        return -1;
    if ((v == IPS2_RED_NONE && none_ok) || v < n) {
        *out = v;
        return 0;
    }
    return bad(rd, at, "expected %s below %zu%s, found %u", what, n, none_ok ? " or none" : "", v);
}

static int read_range(struct reader *rd, uint32_t *first, uint32_t *n, size_t total,
                      const char *what)
{
    size_t at = pos(rd);

    *first = ips2_get_u32(&rd->in);
    *n = ips2_get_u32(&rd->in);
    if (rd->in.failed)
        return -1;
    if (*first > total || *n > total - *first)
        return bad(rd, at, "expected a range of %s within the %zu there are, found %u + %u", what,
                   total, *first, *n);
    return 0;
}

static int read_header(struct reader *rd)
{
    struct ips2_reductions *r = rd->r;
    struct ips2_in *in = &rd->in;

    if (in->size < 8 || memcmp(in->p, RED_MAGIC, 8) != 0)
        return bad(rd, 0, "expected magic \"%s\", found %s", RED_MAGIC,
                   in->size < 8 ? "a file shorter than it" : "other bytes");
    if (in->size < HEAD_SIZE)
        return bad(rd, in->size, "expected a %d-byte header, found end of data", HEAD_SIZE);
    ips2_get_bytes(in, 8);
    uint32_t version = ips2_get_u32(in);
    if (version < RED_VERSION_NO_EXT || version > RED_VERSION)
        return bad(rd, 8, "expected version %d to %d, found %u", RED_VERSION_NO_EXT, RED_VERSION,
                   version);
    rd->version = version;
    ips2_get_u32(in); /* the crc: read_crc */
    rd->mcount = ips2_get_u32(in);
    if (rd->mcount == 0 || rd->mcount > IPS2_M_COUNT)
        return bad(rd, 16, "expected 1 to %d metrics per row, found %u", IPS2_M_COUNT, rd->mcount);
    for (unsigned i = 0; i < NCOUNTS; i++)
        rd->counts[i] = ips2_get_u32(in);
    r->nstrings = 0; /* grows as strings are read */
    size_t at = pos(rd);
    r->machine = ips2_get_u32(in);
    r->host = ips2_get_u32(in);
    r->phase_start_ns = ips2_get_i64(in);
    r->phase_end_ns = ips2_get_i64(in);
    r->interval_ns = ips2_get_u64(in);
    r->events = ips2_get_u64(in);
    r->trace_bytes = ips2_get_u64(in);
    if (r->phase_start_ns > r->phase_end_ns)
        return bad(rd, at + 8, "expected phase start <= phase end, found %lld > %lld",
                   (long long)r->phase_start_ns, (long long)r->phase_end_ns);
    if (r->interval_ns == 0)
        return bad(rd, at + 24, "expected a sample interval > 0, found 0");
    return 0;
}

static int read_strings(struct reader *rd)
{
    struct ips2_reductions *r = rd->r;
    uint32_t n = rd->counts[0];

    if (room(rd, n, 4, "strings") < 0)
        return -1;
    if (n && !(r->strings = calloc(n, sizeof(*r->strings))))
        return bad(rd, pos(rd), "expected memory for %u strings, out of memory", n);
    for (uint32_t i = 0; i < n; i++) {
        size_t at = pos(rd);
        uint32_t len;
        switch (ips2_get_str32(&rd->in, &r->strings[i], &len)) {
        case IPS2_STR_OK:
            break;
        case IPS2_STR_NO_LENGTH:
            return bad(rd, at, "expected string %u's length, found end of data", i);
        case IPS2_STR_SHORT:
            return bad(rd, at, "expected string %u of %u bytes, found only %zu bytes left", i, len,
                       left(rd));
        case IPS2_STR_NUL:
            return bad(rd, at, "expected string %u without NUL bytes, found one", i);
        case IPS2_STR_NOMEM:
            return bad(rd, at, "expected memory for string %u, out of memory", i);
        }
        r->nstrings = i + 1;
    }
    if (r->machine != IPS2_RED_NONE && r->machine >= n)
        return bad(rd, 52, "expected the machine: a string index below %u, found %u", n,
                   r->machine);
    if (r->host != IPS2_RED_NONE && r->host >= n)
        return bad(rd, 56, "expected the host: a string index below %u, found %u", n, r->host);
    return 0;
}

#define ALLOC(field, count)                                                                        \
    do {                                                                                           \
        if ((count) && !(r->field = calloc((count), sizeof(*r->field))))                           \
            return bad(rd, pos(rd), "expected memory for %u " #field ", out of memory", (count));  \
        r->n##field = (count);                                                                     \
    } while (0)

static int read_processes(struct reader *rd)
{
    struct ips2_reductions *r = rd->r;
    struct ips2_in *in = &rd->in;
    uint32_t n = rd->counts[1], nthreads = rd->counts[2];

    if (room(rd, n, PROCESS_SIZE, "processes") < 0)
        return -1;
    ALLOC(processes, n);
    for (uint32_t i = 0; i < n; i++) {
        struct ips2_red_process *p = &r->processes[i];
        if (read_str(rd, &p->app, false, "the application") < 0 ||
            read_str(rd, &p->exe, false, "the executable") < 0 ||
            read_str(rd, &p->command, true, "the command") < 0)
            return -1;
        p->pid = ips2_get_u32(in);
        p->ppid = ips2_get_u32(in);
        p->image = ips2_get_u32(in);
        size_t at = pos(rd);
        p->start_ns = ips2_get_i64(in);
        p->end_ns = ips2_get_i64(in);
        if (p->start_ns > p->end_ns)
            return bad(rd, at, "expected process %u's start <= end, found %lld > %lld", i,
                       (long long)p->start_ns, (long long)p->end_ns);
        at = pos(rd);
        p->exit_how = ips2_get_i32(in);
        p->exit_status = ips2_get_i32(in);
        if (p->exit_how < -1 || p->exit_how > IPS2_EXIT_CANCEL)
            return bad(rd, at, "expected an exit how of -1 to %d, found %d", IPS2_EXIT_CANCEL,
                       p->exit_how);
        if (read_str(rd, &p->problem, true, "the problem") < 0 ||
            read_range(rd, &p->first_thread, &p->nthreads, nthreads, "threads") < 0)
            return -1;
    }
    return 0;
}

/* The row's metrics (mcount of them; the rest stay zero). */
static void read_metrics(struct reader *rd, uint64_t *m)
{
    ips2_get_u64s(&rd->in, m, rd->mcount);
}

static int read_threads(struct reader *rd)
{
    struct ips2_reductions *r = rd->r;
    struct ips2_in *in = &rd->in;
    uint32_t n = rd->counts[2], nprocs = rd->counts[3];

    if (room(rd, n, 32 + 8 * (size_t)rd->mcount + 8, "threads") < 0)
        return -1;
    ALLOC(threads, n);
    for (uint32_t i = 0; i < n; i++) {
        struct ips2_red_thread *t = &r->threads[i];
        size_t at = pos(rd);
        if (read_idx(rd, &t->process, r->nprocesses, false, "a process index") < 0)
            return -1;
        const struct ips2_red_process *p = &r->processes[t->process];
        if (i < p->first_thread || i - p->first_thread >= p->nthreads)
            return bad(rd, at, "expected thread %u to be in its process's threads %u + %u", i,
                       p->first_thread, p->nthreads);
        t->tid = ips2_get_u32(in);
        t->create_seq = ips2_get_u64(in);
        at = pos(rd);
        t->start_ns = ips2_get_i64(in);
        t->end_ns = ips2_get_i64(in);
        if (t->start_ns > t->end_ns)
            return bad(rd, at, "expected thread %u's start <= end, found %lld > %lld", i,
                       (long long)t->start_ns, (long long)t->end_ns);
        read_metrics(rd, t->m);
        if (read_range(rd, &t->first_proc, &t->nprocs, nprocs, "procedures") < 0)
            return -1;
    }
    return 0;
}

/* Checks that row i of procs[] lies in its thread's range. */
static int owned(struct reader *rd, size_t at, uint32_t thread, uint32_t i)
{
    const struct ips2_red_thread *t = &rd->r->threads[thread];

    if (i < t->first_proc || i - t->first_proc >= t->nprocs)
        return bad(rd, at, "expected procedure %u to be in thread %u's procedures %u + %u", i,
                   thread, t->first_proc, t->nprocs);
    return 0;
}

static int read_procs(struct reader *rd)
{
    struct ips2_reductions *r = rd->r;
    uint32_t n = rd->counts[3];

    if (room(rd, n, 24 + 8 * (size_t)rd->mcount, "procedures") < 0)
        return -1;
    ALLOC(procs, n);
    for (uint32_t i = 0; i < n; i++) {
        struct ips2_red_proc *p = &r->procs[i];
        size_t at = pos(rd);
        if (read_idx(rd, &p->thread, r->nthreads, false, "a thread index") < 0 ||
            owned(rd, at, p->thread, i) < 0 || read_str(rd, &p->name, false, "the name") < 0)
            return -1;
        p->incl_cpu = ips2_get_u64(&rd->in);
        p->incl_wall = ips2_get_u64(&rd->in);
        read_metrics(rd, p->m);
    }
    return 0;
}

static int read_arcs(struct reader *rd)
{
    struct ips2_reductions *r = rd->r;
    uint32_t n = rd->counts[4];

    if (room(rd, n, ARC_SIZE, "arcs") < 0)
        return -1;
    ALLOC(arcs, n);
    for (uint32_t i = 0; i < n; i++) {
        struct ips2_red_arc *a = &r->arcs[i];
        if (read_idx(rd, &a->thread, r->nthreads, false, "a thread index") < 0 ||
            read_str(rd, &a->caller, true, "the caller") < 0 ||
            read_str(rd, &a->callee, false, "the callee") < 0)
            return -1;
        a->count = ips2_get_u64(&rd->in);
        a->child_cpu = ips2_get_u64(&rd->in);
    }
    return 0;
}

/* Buckets of a histogram or an external row: the width, the count and
 * the values at the cursor. */
static int read_buckets(struct reader *rd, uint64_t *width, uint32_t *nbuckets, double **v)
{
    struct ips2_in *in = &rd->in;
    size_t at = pos(rd);

    *width = ips2_get_u64(in);
    if (*width == 0 || *width > (uint64_t)INT64_MAX / IPS2_HIST_MAX_BUCKETS)
        return bad(rd, at, "expected a bucket width of 1 to %lld ns, found %llu",
                   (long long)(INT64_MAX / IPS2_HIST_MAX_BUCKETS), (unsigned long long)*width);
    at = pos(rd);
    *nbuckets = ips2_get_u32(in);
    if (*nbuckets > IPS2_HIST_MAX_BUCKETS)
        return bad(rd, at, "expected at most %d buckets, found %u", IPS2_HIST_MAX_BUCKETS,
                   *nbuckets);
    if (room(rd, *nbuckets, 8, "bucket values") < 0)
        return -1;
    if (*nbuckets && !(*v = malloc((size_t)*nbuckets * sizeof(double))))
        return bad(rd, pos(rd), "expected memory for %u buckets, out of memory", *nbuckets);
    at = pos(rd);
    ips2_get_f64s(in, *v, *nbuckets);
    for (uint32_t k = 0; k < *nbuckets; k++)
        if (!isfinite((*v)[k]))
            return bad(rd, at + 8 * (size_t)k, "expected a finite bucket value, found %g", (*v)[k]);
    return 0;
}

static int read_hists(struct reader *rd)
{
    struct ips2_reductions *r = rd->r;
    uint32_t n = rd->counts[5];

    if (room(rd, n, HIST_SIZE, "histograms") < 0)
        return -1;
    ALLOC(hists, n);
    for (uint32_t i = 0; i < n; i++) {
        struct ips2_red_hist *h = &r->hists[i];
        /* rows have buckets: the count check above covered only their heads */
        if (left(rd) < HIST_SIZE)
            return bad(rd, pos(rd),
                       "expected histogram %u of at least %d bytes, found only %zu "
                       "bytes left",
                       i, HIST_SIZE, left(rd));
        if (read_idx(rd, &h->thread, r->nthreads, false, "a thread index") < 0)
            return -1;
        size_t at = pos(rd);
        if (read_idx(rd, &h->proc, r->nprocs, true, "a procedure index") < 0 ||
            (h->proc != IPS2_RED_NONE && r->procs[h->proc].thread != h->thread &&
             bad(rd, at, "expected histogram %u's procedure %u to belong to thread %u, found %u", i,
                 h->proc, h->thread, r->procs[h->proc].thread) < 0) ||
            read_idx(rd, &h->metric, rd->mcount, false, "a metric") < 0)
            return -1;
        h->start_ns = ips2_get_i64(&rd->in);
        h->object = IPS2_RED_NONE; /* read_links */
        if (read_buckets(rd, &h->width_ns, &h->nbuckets, &h->v) < 0)
            return -1;
    }
    return 0;
}

static int read_objects(struct reader *rd)
{
    struct ips2_reductions *r = rd->r;
    struct ips2_in *in = &rd->in;
    uint32_t n = rd->counts[6];

    if (room(rd, n, OBJECT_SIZE, "objects") < 0)
        return -1;
    ALLOC(objects, n);
    for (uint32_t i = 0; i < n; i++) {
        struct ips2_red_object *o = &r->objects[i];
        if (read_idx(rd, &o->thread, r->nthreads, false, "a thread index") < 0)
            return -1;
        o->kind = ips2_get_u32(in);
        o->id = ips2_get_u64(in);
        o->waits = ips2_get_u64(in);
        o->wait_ns = ips2_get_u64(in);
        o->spin_ns = ips2_get_u64(in);
        o->name = IPS2_RED_NONE; /* read_links */
    }
    return 0;
}

static int read_problems(struct reader *rd)
{
    struct ips2_reductions *r = rd->r;
    uint32_t n = rd->counts[7];

    if (room(rd, n, 4, "problems") < 0)
        return -1;
    ALLOC(problems, n);
    for (uint32_t i = 0; i < n; i++)
        if (read_str(rd, &r->problems[i], false, "a problem") < 0)
            return -1;
    return 0;
}

/* The process row of an external row (at offset at: its process field,
 * or for version 2 its pid): pid 0 has none; otherwise the row must be
 * pid's (version 2: the first of pid's, or none). */
static int read_ext_process(struct reader *rd, struct ips2_red_ext *x, size_t at)
{
    const struct ips2_reductions *r = rd->r;

    if (rd->version == RED_VERSION_NO_PROC) {
        x->process = IPS2_RED_NONE;
        for (size_t p = 0; x->pid != 0 && p < r->nprocesses && x->process == IPS2_RED_NONE; p++)
            if (r->processes[p].pid == x->pid)
                x->process = (uint32_t)p;
        return 0;
    }
    if (read_idx(rd, &x->process, r->nprocesses, true, "a process") < 0)
        return -1;
    if (x->pid == 0 && x->process != IPS2_RED_NONE)
        return bad(rd, at, "expected none (the machine's row), found process %u", x->process);
    if (x->process != IPS2_RED_NONE && r->processes[x->process].pid != x->pid)
        return bad(rd, at, "expected a process of pid %u, found process %u of pid %u", x->pid,
                   x->process, r->processes[x->process].pid);
    return 0;
}

static int read_exts(struct reader *rd)
{
    struct ips2_reductions *r = rd->r;
    struct ips2_in *in = &rd->in;
    int size = rd->version == RED_VERSION_NO_PROC ? EXT_SIZE_V2 : EXT_SIZE;

    if (rd->version == RED_VERSION_NO_EXT)
        return 0;
    if (left(rd) < 4)
        return bad(rd, pos(rd), "expected the count of external data rows, found end of data");
    uint32_t n = ips2_get_u32(in);
    if (room(rd, n, (size_t)size, "external data rows") < 0)
        return -1;
    ALLOC(exts, n);
    for (uint32_t i = 0; i < n; i++) {
        struct ips2_red_ext *x = &r->exts[i];
        if (left(rd) < (size_t)size)
            return bad(rd, pos(rd),
                       "expected external data row %u of at least %d bytes, found only %zu "
                       "bytes left",
                       i, size, left(rd));
        if (read_str(rd, &x->collector, false, "the collector") < 0)
            return -1;
        x->pid = ips2_get_u32(in);
        if (read_ext_process(rd, x, pos(rd)) < 0)
            return -1;
        if (read_idx(rd, &x->metric, rd->mcount, false, "a metric") < 0)
            return -1;
        size_t at = pos(rd);
        x->gauge = ips2_get_u32(in);
        if (x->gauge > 1)
            return bad(rd, at, "expected 0 (counter) or 1 (gauge), found %u", x->gauge);
        x->value = ips2_get_u64(in);
        x->start_ns = ips2_get_i64(in);
        if (read_buckets(rd, &x->width_ns, &x->nbuckets, &x->v) < 0)
            return -1;
    }
    return 0;
}

/* Versions 4, 5: the objects' names, then the histograms' objects. */
static int read_links(struct reader *rd)
{
    struct ips2_reductions *r = rd->r;

    if (rd->version < RED_VERSION_NO_HOLD)
        return 0;
    if (room(rd, r->nobjects + r->nhists, 4, "object names and histogram objects") < 0)
        return -1;
    for (size_t i = 0; i < r->nobjects; i++)
        if (read_str(rd, &r->objects[i].name, true, "an object's name") < 0)
            return -1;
    for (size_t i = 0; i < r->nhists; i++) {
        struct ips2_red_hist *h = &r->hists[i];
        size_t at = pos(rd);
        if (read_idx(rd, &h->object, r->nobjects, true, "an object index") < 0)
            return -1;
        if (h->object == IPS2_RED_NONE)
            continue;
        if (r->objects[h->object].thread != h->thread)
            return bad(rd, at,
                       "expected histogram %zu's object %u to belong to thread %u, found %u", i,
                       h->object, h->thread, r->objects[h->object].thread);
        if (h->proc != IPS2_RED_NONE || h->metric != IPS2_M_SYNC_WAIT)
            return bad(rd, at,
                       "expected histogram %zu of object %u to be a sync_wait one of no "
                       "procedure, found metric %u of procedure %u",
                       i, h->object, h->metric, h->proc);
    }
    return 0;
}

/* Version 5: the holds, each of an object row and a procedure of the
 * object's thread (or none). */
static int read_holds(struct reader *rd)
{
    struct ips2_reductions *r = rd->r;
    struct ips2_in *in = &rd->in;

    if (rd->version < RED_VERSION_NO_CLOCK)
        return 0;
    if (room(rd, 1, 4, "the holds' count") < 0)
        return -1;
    uint32_t n = ips2_get_u32(in);
    if (room(rd, n, HOLD_SIZE, "holds") < 0)
        return -1;
    ALLOC(holds, n);
    for (uint32_t i = 0; i < n; i++) {
        struct ips2_red_hold *h = &r->holds[i];
        size_t at = pos(rd);
        if (read_idx(rd, &h->object, r->nobjects, false, "an object index") < 0 ||
            read_idx(rd, &h->proc, r->nprocs, true, "a procedure index") < 0)
            return -1;
        if (h->proc != IPS2_RED_NONE && r->procs[h->proc].thread != r->objects[h->object].thread)
            return bad(rd, at, "expected hold %u's procedure %u to belong to thread %u, found %u",
                       i, h->proc, r->objects[h->object].thread, r->procs[h->proc].thread);
        h->acquisitions = ips2_get_u64(in);
        h->hold_ns = ips2_get_u64(in);
    }
    return 0;
}

/* Version 6: each process row's clock. */
static int read_clocks(struct reader *rd)
{
    struct ips2_reductions *r = rd->r;
    struct ips2_in *in = &rd->in;

    if (rd->version < RED_VERSION_NO_LAT)
        return 0;
    if (room(rd, r->nprocesses, CLOCK_SIZE, "process clocks") < 0)
        return -1;
    for (size_t i = 0; i < r->nprocesses; i++) {
        struct ips2_red_process *p = &r->processes[i];
        size_t at = pos(rd);
        p->cpu_method = ips2_get_u32(in);
        p->cpu_param = ips2_get_u32(in);
        p->cpu_res_ns = ips2_get_u64(in);
        if (p->cpu_method > IPS2_CPU_TICK)
            return bad(rd, at, "expected process %zu's clock method 0, 1 or 2, found %u", i,
                       p->cpu_method);
    }
    return 0;
}

/* Version 7: the latency distributions, of procedure rows in ascending
 * order, each consistent with itself. */
static int read_lats(struct reader *rd)
{
    struct ips2_reductions *r = rd->r;
    struct ips2_in *in = &rd->in;

    if (rd->version < RED_VERSION_NO_TIME)
        return 0;
    r->latency = true;
    if (room(rd, 1, 4, "the latency rows' count") < 0)
        return -1;
    uint32_t n = ips2_get_u32(in);
    if (room(rd, n, LAT_SIZE, "latency rows") < 0)
        return -1;
    ALLOC(lats, n);
    for (uint32_t i = 0; i < n; i++) {
        struct ips2_red_latency *l = &r->lats[i];
        size_t at = pos(rd);
        if (read_idx(rd, &l->proc, r->nprocs, false, "a procedure index") < 0)
            return -1;
        if (i > 0 && l->proc <= r->lats[i - 1].proc)
            return bad(rd, at, "expected latency row %u's procedure above %u, found %u", i,
                       r->lats[i - 1].proc, l->proc);
        uint32_t nbins = ips2_get_u32(in);
        l->count = ips2_get_u64(in);
        l->max_ns = ips2_get_u64(in);
        if (room(rd, nbins, LAT_BIN_SIZE, "latency buckets") < 0)
            return -1;
        if (nbins == 0 || l->count == 0)
            return bad(
                rd, at + 4,
                "expected a latency row of some activations, found %u buckets, %llu activations",
                nbins, (unsigned long long)l->count);
        if (!(l->bins = calloc(nbins, sizeof(*l->bins))))
            return bad(rd, pos(rd), "expected memory for %u latency buckets, out of memory", nbins);
        l->nbins = nbins;
        uint64_t sum = 0;
        for (uint32_t k = 0; k < nbins; k++) {
            size_t bat = pos(rd);
            struct ips2_lat_bin *b = &l->bins[k];
            b->bucket = ips2_get_u32(in);
            b->count = ips2_get_u64(in);
            if (b->bucket >= IPS2_LAT_BUCKETS || (k > 0 && b->bucket <= l->bins[k - 1].bucket))
                return bad(rd, bat, "expected a latency bucket above %d and below %d, found %u",
                           k > 0 ? (int)l->bins[k - 1].bucket : -1, IPS2_LAT_BUCKETS, b->bucket);
            if (b->count == 0 || b->count > l->count - sum)
                return bad(rd, bat + 4, "expected a bucket's count from 1 to %llu, found %llu",
                           (unsigned long long)(l->count - sum), (unsigned long long)b->count);
            sum += b->count;
        }
        if (sum != l->count)
            return bad(rd, at + 8, "expected %llu activations, as the buckets hold, found %llu",
                       (unsigned long long)sum, (unsigned long long)l->count);
        uint32_t last = l->bins[nbins - 1].bucket;
        if (l->max_ns < ips2_lat_low(last) || l->max_ns > ips2_lat_high(last))
            return bad(rd, at + 16, "expected a longest activation in bucket %u, found %llu ns",
                       last, (unsigned long long)l->max_ns);
    }
    return 0;
}

/* Version 8: which times (older: raw, as they were made), the costs. */
static int read_times(struct reader *rd)
{
    struct ips2_reductions *r = rd->r;
    struct ips2_in *in = &rd->in;

    r->times = IPS2_TIMES_RAW;
    if (rd->version < RED_VERSION_NO_COUNTED)
        return 0;
    if (room(rd, 1, 16, "the times and probe costs") < 0)
        return -1;
    size_t at = pos(rd);
    uint32_t t = ips2_get_u32(in);
    if (t != IPS2_TIMES_RAW && t != IPS2_TIMES_COMPENSATED)
        return bad(rd, at, "expected times 1 (raw) or 2 (compensated), found %u", t);
    r->times = t;
    r->call_cost_ps = ips2_get_u32(in);
    r->probe_ns = ips2_get_u64(in);
    return 0;
}

/* Version 9: each hold row's counted acquisitions, at most its acquisitions. */
static int read_counted(struct reader *rd)
{
    struct ips2_reductions *r = rd->r;
    struct ips2_in *in = &rd->in;

    if (rd->version < RED_VERSION)
        return 0;
    if (room(rd, r->nholds, 8, "the holds' counted acquisitions") < 0)
        return -1;
    for (size_t i = 0; i < r->nholds; i++) {
        size_t at = pos(rd);
        uint64_t n = ips2_get_u64(in);
        if (n > r->holds[i].acquisitions)
            return bad(rd, at,
                       "expected hold %zu's counted acquisitions at most its %llu, found %llu", i,
                       (unsigned long long)r->holds[i].acquisitions, (unsigned long long)n);
        r->holds[i].counted = n;
    }
    return 0;
}

/* Everything is well-formed: the end of the data is where the structure
 * ends, and the crc tells whether values were altered. */
static int read_crc(struct reader *rd)
{
    const struct ips2_in *in = &rd->in;

    if (in->pos != in->size)
        return bad(rd, in->pos, "expected the end of the data, found %zu more bytes",
                   in->size - in->pos);
    uint32_t have = (uint32_t)crc32_z(0L, in->p + CRC_FROM, in->size - CRC_FROM);
    uint32_t crc = ips2_le32_load(in->p + CRC_AT);
    if (crc != have)
        return bad(rd, CRC_AT,
                   "expected crc32 0x%08x of bytes 16 to %zu (the data was altered), found 0x%08x",
                   have, in->size, crc);
    return 0;
}

struct ips2_reductions *ips2_reductions_decode(const void *data, size_t size, const char *name,
                                               char *err)
{
    struct reader rd = {0};

    ips2_in_init(&rd.in, data, size, name ? name : "reductions", err, err ? IPS2_ERR_MAX : 0);
    if (!(rd.r = calloc(1, sizeof(*rd.r)))) {
        bad(&rd, 0, "expected memory, out of memory");
        return NULL;
    }
    if (read_header(&rd) < 0 || read_strings(&rd) < 0 || read_processes(&rd) < 0 ||
        read_threads(&rd) < 0 || read_procs(&rd) < 0 || read_arcs(&rd) < 0 || read_hists(&rd) < 0 ||
        read_objects(&rd) < 0 || read_problems(&rd) < 0 || read_exts(&rd) < 0 ||
        read_links(&rd) < 0 || read_holds(&rd) < 0 || read_clocks(&rd) < 0 || read_lats(&rd) < 0 ||
        read_times(&rd) < 0 || read_counted(&rd) < 0 || read_crc(&rd) < 0) {
        ips2_reductions_free(rd.r);
        return NULL;
    }
    return rd.r;
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
    free(r->holds);
    if (r->lats)
        for (size_t i = 0; i < r->nlats; i++)
            free(r->lats[i].bins);
    free(r->lats);
    free(r->problems);
    if (r->exts)
        for (size_t i = 0; i < r->nexts; i++)
            free(r->exts[i].v);
    free(r->exts);
    free(r);
}
