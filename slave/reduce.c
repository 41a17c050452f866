/*
 * reduce.c - ips2_reduce_dir(): reduces every stream of one machine's trace
 * directory.
 *
 * The directory is listed by the trace library (ips2_trace_dir.h): streams
 * grouped by process image (<pid>.<image>.*, see FORMAT.md section 1),
 * external data files, misnamed special files (problems), and the
 * machine's clock offset.  For each image its process stream is read once,
 * for the module map (procedure names) and a process exit recorded there;
 * then each of its thread streams gets one streaming pass through the
 * trace reader (reduce_stream.c) and is turned into rows (reduce_emit.c)
 * before the next one starts, so memory holds the results and one
 * thread's tables, never a trace.
 *
 * All streams of the machine use one clock offset (CLOCK_REALTIME minus
 * CLOCK_MONOTONIC from the header with the earliest calibration), so that
 * their times stay exactly comparable, as DESIGN.md section 3 promises
 * for one machine.  A stream that cannot be read is reduced up to the
 * damage and its error goes into problems[]; the rest goes on.
 *
 * What the writer lost is a problem naming the process, the thread, how
 * many events and why (FORMAT.md section 5, `lost`): a thread stream that
 * was cut (its last LOST record's errno, or only the TRUNCATED bit), a
 * thread that got no stream (a LOST record in the process stream with its
 * tid), a process without the session's channel table (tid 0).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ips2_fields.h"
#include "ips2_symbols.h"
#include "ips2_trace_dir.h"
#include "pag_build.h"
#include "reduce_ext.h"
#include "reduce_internal.h"
#include "reduce_names.h"

/* ---- one process image ----------------------------------------------- */

/* A LOST record of a process stream (FORMAT.md section 5). */
struct image_loss {
    uint64_t records;
    uint64_t err; /* 0: none given */
    uint64_t tid; /* 0: the process's own (its stream, the channel table) */
    bool has_tid;
};

struct image {
    struct red_build *b;
    struct ips2_symtab *symtab;
    bool clones; /* name procedures as their symbols are written */
    /* address -> string + 1, for names already looked up */
    uint64_t *key;
    uint32_t *val;
    size_t n, mask;
    /* object key -> type, from the sync-object events of all its threads */
    struct rt_type *types;
    size_t ntypes, cap_types;
    /* what its threads' events said for naming its objects */
    struct red_names names;
    /* from the process stream */
    struct image_loss *losses; /* its LOST records, in order */
    size_t nlosses, cap_losses;
    bool exit_seen;
    int32_t exit_how, exit_status;
    int64_t exit_t;
};

static uint32_t name_of(void *arg, uint64_t addr)
{
    struct image *im = arg;
    char buf[32];
    size_t i;

    if (im->mask) {
        i = (size_t)((addr * 0x9e3779b97f4a7c15ull) >> 32) & im->mask;
        for (; im->key[i]; i = (i + 1) & im->mask)
            if (im->key[i] == addr + 1)
                return im->val[i];
    }
    uint64_t off;
    /* The one place procedures get their names: source names, clones
     * under them, unless the clones were asked for. */
    const char *name = !im->symtab  ? NULL
                       : im->clones ? ips2_symtab_lookup_symbol(im->symtab, addr, &off)
                                    : ips2_symtab_lookup(im->symtab, addr, &off);
    if (!name) {
        snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)addr);
        name = buf;
    }
    uint32_t s = ips2_strtab_intern(&im->b->strings, name);
    if (s == IPS2_RED_NONE)
        im->b->oom = true;
    if ((im->n + 1) * 2 > im->mask + 1) { /* grow the cache; on OOM just don't cache */
        size_t mask = im->mask ? im->mask * 2 + 1 : 255;
        uint64_t *key = calloc(mask + 1, sizeof(*key));
        uint32_t *val = calloc(mask + 1, sizeof(*val));
        if (!key || !val) {
            free(key);
            free(val);
            return s;
        }
        for (size_t j = 0; j <= im->mask && im->mask; j++) {
            if (!im->key[j])
                continue;
            size_t k = (size_t)(((im->key[j] - 1) * 0x9e3779b97f4a7c15ull) >> 32) & mask;
            while (key[k])
                k = (k + 1) & mask;
            key[k] = im->key[j];
            val[k] = im->val[j];
        }
        free(im->key);
        free(im->val);
        im->key = key;
        im->val = val;
        im->mask = mask;
    }
    i = (size_t)((addr * 0x9e3779b97f4a7c15ull) >> 32) & im->mask;
    while (im->key[i])
        i = (i + 1) & im->mask;
    im->key[i] = addr + 1;
    im->val[i] = s;
    im->n++;
    return s;
}

/* Keeps a LOST record of the process stream, for loss_problems(). */
static void keep_loss(struct image *im, const struct ips2_event *ev)
{
    if (im->nlosses == im->cap_losses) {
        size_t cap = im->cap_losses ? 2 * im->cap_losses : 8;
        struct image_loss *v = realloc(im->losses, cap * sizeof(*v));
        if (!v) {
            im->b->oom = true;
            return;
        }
        im->losses = v;
        im->cap_losses = cap;
    }
    struct image_loss *l = &im->losses[im->nlosses++];
    l->records = ev->payload;
    l->err = ev->nextra > IPS2_F_LOST_ERRNO ? ev->extra[IPS2_F_LOST_ERRNO] : 0;
    l->has_tid = ev->nextra > IPS2_F_LOST_TID;
    l->tid = l->has_tid ? ev->extra[IPS2_F_LOST_TID] : 0;
}

static const char *why_lost(uint64_t err)
{
    return err == 0 || err > INT32_MAX ? "cause not recorded" : strerror((int)err);
}

/* The problems of a process stream's LOST records: threads that got no
 * stream, each once with its records summed; the channel table; records
 * of the process stream itself. */
static void loss_problems(struct red_build *b, const struct image *im, uint32_t pid,
                          const char *app)
{
    uint64_t own = 0, own_err = 0;

    for (size_t i = 0; i < im->nlosses; i++) {
        const struct image_loss *l = &im->losses[i];
        if (!l->has_tid) {
            own += l->records;
            own_err = l->err ? l->err : own_err;
            continue;
        }
        if (l->tid == 0) {
            red_build_problem(b,
                              "process %u (%s): no channel table (%s): byte offsets of channels "
                              "shared with other processes may not pair",
                              pid, app, why_lost(l->err));
            continue;
        }
        bool first = true;
        uint64_t records = 0;
        for (size_t j = 0; j < im->nlosses; j++) {
            const struct image_loss *o = &im->losses[j];
            if (o->has_tid && o->tid == l->tid) {
                first = first && j >= i;
                records += o->records;
            }
        }
        if (first)
            red_build_problem(
                b, "process %u (%s): thread %llu: no trace stream: %llu events lost: %s", pid, app,
                (unsigned long long)l->tid, (unsigned long long)records, why_lost(l->err));
    }
    if (own || own_err)
        red_build_problem(b, "process %u (%s): process stream: %llu records lost: %s", pid, app,
                          (unsigned long long)own, why_lost(own_err));
}

/* The problem of a thread stream that lost events (r: its reduction). */
static void thread_loss_problem(struct red_build *b, const struct rt *r, uint32_t pid,
                                const char *app, uint32_t tid)
{
    if (r->lost_errno)
        red_build_problem(b, "process %u (%s): thread %u: trace stream cut: %llu events lost: %s",
                          pid, app, tid, (unsigned long long)r->lost,
                          why_lost((uint64_t)r->lost_errno));
    else if (r->lost)
        red_build_problem(b,
                          "process %u (%s): thread %u: %llu events lost while tracing (events of "
                          "signal handlers)",
                          pid, app, tid, (unsigned long long)r->lost);
    else if (r->truncated)
        red_build_problem(b,
                          "process %u (%s): thread %u: trace stream truncated: events lost, how "
                          "many not recorded",
                          pid, app, tid);
}

/* Reads a process stream: the module map and a process exit. */
static void load_process_stream(struct image *im, const struct ips2_trace_stream *s, int64_t offset,
                                uint64_t *events)
{
    char err[IPS2_ERR_MAX], merr[IPS2_ERR_MAX];
    struct ips2_reader *rd = ips2_reader_open(s->path, err);
    const struct ips2_event *ev;
    int rc;

    if (!rd) {
        red_build_problem(im->b, "%s", err);
        return;
    }
    while ((rc = ips2_reader_next(rd, &ev)) == 1) {
        (*events)++;
        if (ev->kind == IPS2_EV_LOST) {
            keep_loss(im, ev);
            continue;
        }
        if (ev->kind == IPS2_EV_PROC_EXIT) {
            im->exit_seen = true;
            im->exit_how = (int32_t)ev->payload;
            im->exit_status = ev->nextra > IPS2_F_PROC_EXIT_STATUS
                                  ? (int32_t)ev->extra[IPS2_F_PROC_EXIT_STATUS]
                                  : 0;
            im->exit_t = (int64_t)ev->wall_ns + offset;
        }
        if (ev->kind != IPS2_EV_MODULE || !im->symtab)
            continue;
        if (ev->nextra <= IPS2_F_MODULE_END) {
            red_build_problem(im->b,
                              "%s: byte %llu: expected a module event with 2 extra words, "
                              "found %u",
                              s->path, (unsigned long long)ev->offset, ev->nextra);
            continue;
        }
        char path[IPS2_PATH_MAX];
        ips2_event_string(ev, IPS2_F_MODULE_PATH, path, sizeof(path));
        if (ips2_symtab_add_module(im->symtab, ev->payload, ev->extra[IPS2_F_MODULE_START],
                                   ev->extra[IPS2_F_MODULE_END], path, merr) != 0)
            red_build_problem(im->b, "names unresolved: %s", merr);
    }
    if (rc < 0)
        red_build_problem(im->b, "%s", ips2_reader_error(rd));
    ips2_reader_close(rd);
}

/* Keeps the object types a thread's stream gave. */
static void add_types(struct image *im, const struct rt *r)
{
    if (im->ntypes + r->ntypes > im->cap_types) {
        size_t cap = im->cap_types ? im->cap_types : 64;
        while (cap < im->ntypes + r->ntypes)
            cap *= 2;
        struct rt_type *v = realloc(im->types, cap * sizeof(*v));
        if (!v) {
            im->b->oom = true;
            return;
        }
        im->types = v;
        im->cap_types = cap;
    }
    if (r->ntypes > 0)
        memcpy(im->types + im->ntypes, r->types, r->ntypes * sizeof(*r->types));
    im->ntypes += r->ntypes;
}

static int cmp_type(const void *a, const void *b)
{
    const struct rt_type *x = a, *y = b;

    return x->key < y->key ? -1 : x->key > y->key;
}

/* An object's type is what its image's sync-object said, where the event
 * that waited could not tell (a lock-acquired: mutex, spin lock, user
 * lock or rwlock; a barrier-depart: pthread or user barrier).  The sync-
 * object is in whichever thread met the object first, so this waits
 * until every thread of the image is reduced. */
static void fix_object_types(struct image *im, uint32_t first_thread)
{
    struct ips2_reductions *r = im->b->r;

    if (!im->ntypes)
        return;
    qsort(im->types, im->ntypes, sizeof(*im->types), cmp_type);
    for (size_t i = r->nobjects; i-- > 0 && r->objects[i].thread >= first_thread;) {
        struct rt_type key = {r->objects[i].id, 0};
        const struct rt_type *t =
            bsearch(&key, im->types, im->ntypes, sizeof(*im->types), cmp_type);
        if (t)
            r->objects[i].kind = t->type;
    }
}

static void image_free(struct image *im)
{
    free(im->losses);
    free(im->types);
    red_names_free(&im->names);
    ips2_symtab_free(im->symtab);
    free(im->key);
    free(im->val);
}

/* Reduces one thread stream into a fresh rt; the reader's error, if any,
 * becomes a problem. */
static void reduce_one(struct red_build *b, const struct ips2_trace_stream *s, struct rt *r,
                       const struct ips2_reduce_options *o, uint64_t interval, int64_t offset,
                       struct red_progress *prog, struct pag_builder *pag)
{
    char err[IPS2_ERR_MAX];

    rt_init(r, o->phase_start_ns, o->phase_end_ns, interval);
    r->compensate = o->times == IPS2_TIMES_COMPENSATED;
    if (pag)
        rt_pag_attach(r, pag);
    if (red_stream_reader(s->path, r, offset, prog, err) < 0)
        red_build_problem(b, "%s", err);
    /* what the probes cost: the reductions keep it whether they removed it or not */
    b->r->probe_ns += r->probe_ns;
    b->cost_sum += (double)r->call_cost_ps * (double)r->events;
    b->cost_events += (double)r->events;
}

static const char *app_or(const struct ips2_file_header *h, bool ok)
{
    return ok ? h->app : "";
}

/* Names a thread's procedure for the PAG builder. */
struct pag_names {
    struct red_build *b;
    struct image *im;
    const struct rt *r;
};

static const char *pag_name(void *arg, uint32_t proc)
{
    struct pag_names *n = arg;

    if (proc == 0 || proc >= n->r->nprocs)
        return NULL;
    uint32_t s = name_of(n->im, n->r->procs[proc].addr);
    return s < n->b->strings.n ? n->b->strings.v[s] : NULL;
}

/* The resolution of a stream's process-time clock, in ns: the reducing
 * machine's CLOCK_THREAD_CPUTIME_ID's for exact (the machine that wrote
 * the traces, unless they were moved) and for interp, whose readings are
 * exact ones every param us with the wall clock's ns between them (a
 * short call is measured as finely as with exact; only a thread that
 * blocks between two readings is charged its CPU a little off: that is
 * not a granularity, and a table warning on every procedure of the
 * default method would say nothing); tick's the tick. */
static uint64_t cpu_resolution_ns(unsigned method, unsigned param)
{
    struct timespec ts;

    switch (method) {
    case IPS2_CPU_EXACT:
    case IPS2_CPU_INTERP:
        if (clock_getres(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
            return 1;
        uint64_t ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
        return ns ? ns : 1;
    default:
        return param ? (uint64_t)param * 1000000u : 1;
    }
}

/* Reduces the streams [first, end) of one process image. */
static void reduce_image(struct red_build *b, const struct ips2_trace_dir *td, size_t first,
                         size_t end, const struct ips2_reduce_options *o, uint64_t interval,
                         int64_t offset, struct red_progress *prog, struct pag_builder *pag)
{
    struct image im;
    struct ips2_file_header h;
    bool have_h = false;
    uint64_t proc_events = 0;

    memset(&im, 0, sizeof(im));
    im.b = b;
    im.clones = o->clones;
    im.symtab = ips2_symtab_new();
    if (!im.symtab)
        b->oom = true;
    for (size_t i = first; i < end; i++) {
        if (td->streams[i].tid == IPS2_TRACE_PROC_TID) {
            load_process_stream(&im, &td->streams[i], offset, &proc_events);
            b->r->trace_bytes += td->streams[i].size;
        }
        if (!have_h)
            have_h = ips2_trace_stream_header(td->streams[i].path, &h);
    }

    uint32_t pidx = (uint32_t)b->r->nprocesses;
    struct ips2_red_process *p = RED_PUSH(b, processes);
    if (!p) {
        image_free(&im);
        return;
    }
    p->app = ips2_strtab_intern(&b->strings, app_or(&h, have_h));
    p->exe = ips2_strtab_intern(&b->strings, have_h ? h.exe : "");
    if (p->app == IPS2_RED_NONE || p->exe == IPS2_RED_NONE)
        b->oom = true; /* both are given: NONE here is out of memory */
    p->command = IPS2_RED_NONE;
    p->pid = td->streams[first].pid;
    p->ppid = have_h ? h.ppid : 0;
    p->image = td->streams[first].image;
    p->start_ns = INT64_MAX;
    p->end_ns = INT64_MIN;
    p->exit_how = -1;
    p->problem = IPS2_RED_NONE;
    p->first_thread = (uint32_t)b->r->nthreads;
    if (have_h) {
        p->cpu_method = h.cpu_method;
        p->cpu_param = h.cpu_param;
        p->cpu_res_ns = cpu_resolution_ns(h.cpu_method, h.cpu_param);
    }
    b->r->events += proc_events;
    if (pag)
        pag_image_begin(pag, app_or(&h, have_h), have_h ? h.exe : "", (int32_t)p->pid, p->image,
                        p->ppid);

    bool exit_seen = im.exit_seen, damaged = false, have_thread_stream = false;
    bool exec_pending = false; /* its last act an exec that did not fail */
    int32_t how = im.exit_how, status = im.exit_status;
    for (size_t i = first; i < end; i++) {
        const struct ips2_trace_stream *s = &td->streams[i];
        struct rt r;
        if (s->tid == IPS2_TRACE_PROC_TID)
            continue;
        have_thread_stream = true;
        size_t nproblems = b->r->nproblems;
        if (pag)
            pag_thread_begin(pag, (int32_t)s->tid);
        reduce_one(b, s, &r, o, interval, offset, prog, pag);
        if (pag && r.started) {
            struct pag_names names = {b, &im, &r};
            rt_pag_end(&r, pag_name, &names);
        } else if (pag) {
            pag_thread_drop(pag); /* no events */
        }
        rt_finish(&r);
        if (b->r->nproblems != nproblems)
            damaged = true;
        if (r.proc_start_seen)
            b->r->processes[pidx].ppid = r.ppid;
        if (r.proc_exit_seen) {
            exit_seen = true;
            how = r.exit_how;
            status = r.exit_status;
        }
        exec_pending |= r.exec_pending;
        thread_loss_problem(b, &r, b->r->processes[pidx].pid, app_or(&h, have_h), s->tid);
        if (r.unmatched_exits && r.proc_start_how != IPS2_START_FORK)
            red_build_problem(b, "%s: %llu procedure exits without an entry were ignored", s->path,
                              (unsigned long long)r.unmatched_exits);
        if (r.oom)
            red_build_problem(b, "%s: out of memory: results incomplete", s->path);
        p = &b->r->processes[pidx];
        if (r.started) {
            if (r.first_t < p->start_ns)
                p->start_ns = r.first_t;
            if (r.h.last_t > p->end_ns)
                p->end_ns = r.h.last_t;
        }
        b->r->events += r.events;
        b->r->trace_bytes += s->size;
        prog->done += r.events;
        prog->bytes_done += s->size;
        red_emit_thread(b, &r, pidx, s->tid, name_of, &im);
        add_types(&im, &r);
        if (!red_names_add(&im.names, &r))
            b->oom = true;
        rt_free(&r);
    }
    loss_problems(b, &im, b->r->processes[pidx].pid, app_or(&h, have_h));
    fix_object_types(&im, b->r->processes[pidx].first_thread);
    red_names_apply(&im.names, b, im.symtab, b->r->processes[pidx].first_thread, name_of, &im);
    if (pag)
        pag_image_end(pag, im.exit_seen, im.exit_how, im.exit_t);

    p = &b->r->processes[pidx];
    p->nthreads = (uint32_t)b->r->nthreads - p->first_thread;
    if (p->start_ns > p->end_ns)
        p->start_ns = p->end_ns = 0;
    /* an image whose pid has a later image in the directory, or whose last
     * act was an exec that did not fail (into a program that does not
     * trace), was replaced by exec (a helper shell's `exec prog`): nobody
     * records that exit */
    bool replaced = exec_pending;
    for (size_t i = end; i < td->nstreams && td->streams[i].pid == p->pid && !replaced; i++)
        replaced = td->streams[i].image > p->image;
    if (exit_seen) {
        p->exit_how = how;
        p->exit_status = status;
    } else if (replaced) {
        p->exit_how = IPS2_EXIT_EXEC;
        p->exit_status = 0;
    } else if (have_thread_stream) {
        const char *why = damaged ? "no exit recorded: trace damaged" : "no exit recorded: killed?";
        p->problem = ips2_strtab_intern(&b->strings, why);
        red_build_problem(b, "process %u (%s): %s", p->pid, app_or(&h, have_h), why);
    } else {
        p->problem = ips2_strtab_intern(&b->strings, "no thread streams");
        red_build_problem(b, "process %u (%s): no thread streams", p->pid, app_or(&h, have_h));
    }
    image_free(&im);
}

struct ips2_reductions *ips2_reduce_dir(const char *trace_dir,
                                        const struct ips2_reduce_options *options, char *err)
{
    struct ips2_reduce_options o = {0};
    struct red_build b;
    struct ips2_trace_dir *td;
    char host[IPS2_HOST_MAX];

    if (options)
        o = *options;
    if (!options) {
        o.phase_start_ns = INT64_MIN;
        o.phase_end_ns = INT64_MAX;
    }
    if (!(td = ips2_trace_dir_open(trace_dir, err)))
        return NULL;
    memset(&b, 0, sizeof(b));
    if (!(b.r = calloc(1, sizeof(*b.r)))) {
        ips2_trace_dir_free(td);
        snprintf(err, IPS2_ERR_MAX, "%s: out of memory", trace_dir);
        return NULL;
    }
    uint64_t interval = o.interval_ns ? o.interval_ns : 100000000ull;
    o.session_start_real = red_clock_start(&b, trace_dir, o.session_start_real);
    int64_t offset = ips2_trace_dir_clock_offset(td, host, sizeof(host)) - o.session_start_real;
    b.r->machine = ips2_strtab_intern(&b.strings, o.machine ? o.machine : "");
    b.r->host = ips2_strtab_intern(&b.strings, host);
    b.r->phase_start_ns = o.phase_start_ns;
    b.r->phase_end_ns = o.phase_end_ns;
    b.r->interval_ns = interval;
    if (o.times != IPS2_TIMES_RAW && o.times != IPS2_TIMES_COMPENSATED) {
        int t = ips2_times_by_name(getenv("IPS2_TIMES"));
        o.times = t > 0 ? (unsigned)t : IPS2_TIMES_RAW; /* docs/PERTURBATION.md: why */
    }
    b.r->times = o.times;
    b.r->latency = true;
    for (size_t i = 0; i < td->nproblems; i++)
        red_build_problem(&b, "%s", td->problems[i]);

    struct pag_builder *pag = NULL;
    if (o.pag_out) {
        *o.pag_out = NULL;
        if (!(pag = pag_builder_new()))
            red_build_problem(&b, "%s: out of memory: no PAG", trace_dir);
        else
            pag_builder_set_lazy(pag, o.pag_lazy);
    }

    struct red_progress prog = {o.progress, o.progress_arg, 0, RED_PROGRESS_EVERY, 0, 0};
    for (size_t i = 0; i < td->nstreams; i++)
        prog.bytes_all += td->streams[i].size;
    for (size_t i = 0; i < td->nstreams;) {
        size_t j = ips2_trace_dir_image_end(td, i);
        reduce_image(&b, td, i, j, &o, interval, offset, &prog, pag);
        i = j;
    }
    if (o.progress)
        o.progress(o.progress_arg, prog.done, prog.done);
    if (b.cost_events > 0)
        b.r->call_cost_ps = (uint32_t)(b.cost_sum / b.cost_events + 0.5);
    if (pag) {
        char perr[IPS2_ERR_MAX];
        if (pag_builder_finish(pag, o.machine, trace_dir, o.pag_out, perr, sizeof(perr)) < 0)
            red_build_problem(&b, "%s", perr);
        pag_builder_free(pag);
    }
    red_reduce_ext(&b, td->ext_files, td->next_files, o.session_start_real, o.phase_start_ns,
                   o.phase_end_ns, interval);
    ips2_trace_dir_free(td);
    if (!red_build_finish(&b)) {
        ips2_reductions_free(b.r);
        snprintf(err, IPS2_ERR_MAX, "%s: out of memory reducing the traces", trace_dir);
        return NULL;
    }
    return b.r;
}
