/*
 * test_reduce.c - the reduction library (slave/) on streams written with
 * the trace writer (traces/ips2_writer.h), where every value is known:
 * exclusive and inclusive CPU and wall times, calls, gprof arcs, recursion,
 * phases, histograms (splitting, folding, alignment), the session time
 * base, procedure names from a module map, process and thread life, a
 * forked child, a killed process, a damaged stream, joins, latency
 * distributions (outermost activations, phases, unwound frames), and the raw
 * decoding against the packed one on random streams (the same stream
 * reduced raw and packed must give identical reductions).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "image.h"
#include "scratch.h"
#include "xorshift.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ips2_format.h"
#include "ips2_pack.h"
#include "ips2_reader.h"
#include "ips2_record.h"
#include "ips2_reductions.h"
#include "ips2_writer.h"
#include "reduce_internal.h" /* red_stream_reader(), to reduce one stream */
#include "reduce_names.h"    /* red_object_name() */

/* Procedures with real names in this executable. */
volatile int sink;
__attribute__((noinline)) void proc_main(void)
{
    sink++;
}
__attribute__((noinline)) void proc_a(void)
{
    sink += 2;
}
__attribute__((noinline)) void proc_b(void)
{
    sink += 3;
}

#define A_MAIN ((uint64_t)(uintptr_t)proc_main)
#define A_A    ((uint64_t)(uintptr_t)proc_a)
#define A_B    ((uint64_t)(uintptr_t)proc_b)

#define SESSION 5000000000ll /* session start, CLOCK_REALTIME ns */

/* ---- writing streams ------------------------------------------------- */

static char dir[600];

/* A new empty trace directory under the scratch directory. */
static const char *new_dir(const char *name)
{
    snprintf(dir, sizeof(dir), "%s/%s", scratch_dir, name);
    mkdir(dir, 0755);
    return dir;
}

struct hopts {
    unsigned timer, cpu_method;
    uint64_t tsc_hz, ref_tsc, ref_mono, ref_real;
    uint32_t ppid;
    const char *app;
};

static const struct hopts MONO_EXACT = {
    IPS2_TIMER_MONOTONIC, IPS2_CPU_EXACT, 1000000000, 0, 0, SESSION, 1, "app"};

static struct ips2_writer *stream(const char *d, const char *name, unsigned kind, uint32_t pid,
                                  uint32_t tid, const struct hopts *o)
{
    struct ips2_file_header h;
    char path[1200], err[IPS2_ERR_MAX];

    ips2_header_init(&h, IPS2_ENC_RAW, kind);
    h.cpu_method = (uint8_t)o->cpu_method;
    h.cpu_param = 1000;
    h.timer = o->timer;
    h.features = IPS2_FEAT_PROC_EVENTS | IPS2_FEAT_SHORT_LOCKS;
    h.pid = pid;
    h.tid = tid;
    h.ppid = o->ppid;
    h.tsc_hz = o->tsc_hz;
    h.ref_tsc = o->ref_tsc;
    h.ref_mono_ns = o->ref_mono;
    h.ref_real_ns = o->ref_real;
    h.sync_records = 4096;
    snprintf(h.host, sizeof(h.host), "testhost");
    snprintf(h.app, sizeof(h.app), "%s", o->app);
    snprintf(h.exe, sizeof(h.exe), "/bin/%s", o->app);
    snprintf(path, sizeof(path), "%s/%s", d, name);
    struct ips2_writer *w = ips2_writer_create(path, &h, err);
    if (!w)
        fail_msg("%s", err);
    return w;
}

static void ev(struct ips2_writer *w, unsigned kind, uint64_t t, uint64_t cpu, uint64_t payload)
{
    assert_int_equal(ips2_writer_emit(w, kind, t, 1, cpu, payload, NULL, 0), 0);
}

static void ev1(struct ips2_writer *w, unsigned kind, uint64_t t, uint64_t cpu, uint64_t payload,
                uint64_t x)
{
    assert_int_equal(ips2_writer_emit(w, kind, t, 1, cpu, payload, &x, 1), 0);
}

static void done(struct ips2_writer *w)
{
    char err[IPS2_ERR_MAX];

    if (ips2_writer_close(w, err) != 0)
        fail_msg("%s", err);
}

/* The module map of this executable, as libips2 would write it. */
static void module_map(const char *d, uint32_t pid, const struct hopts *o)
{
    struct image img;
    uint64_t words[2 + 64];
    char name[64];

    find_image(0, &img);
    assert_non_null(realpath("/proc/self/exe", img.path));
    snprintf(name, sizeof(name), "%u.0.proc.raw", pid);
    struct ips2_writer *w = stream(d, name, IPS2_STREAM_PROCESS, pid, 0, o);
    words[0] = img.start;
    words[1] = img.end;
    unsigned n = ips2_string_words(words + 2, 64, img.path);
    assert_int_equal(ips2_writer_emit(w, IPS2_EV_MODULE, 0, 0, 0, img.bias, words, 2 + n), 0);
    done(w);
}

/* ---- reducing and looking things up ---------------------------------- */

static struct ips2_reductions *reduce_opts(const char *d, int64_t ps, int64_t pe, uint64_t iv)
{
    struct ips2_reduce_options o = {0};
    char err[IPS2_ERR_MAX];

    o.machine = "m1";
    o.session_start_real = SESSION;
    o.phase_start_ns = ps;
    o.phase_end_ns = pe;
    o.interval_ns = iv;
    struct ips2_reductions *r = ips2_reduce_dir(d, &o, err);
    if (!r)
        fail_msg("ips2_reduce_dir: %s", err);
    /* whatever the reduction made, the reductions file takes it */
    size_t size;
    void *bytes = ips2_reductions_encode(r, &size);
    assert_non_null(bytes);
    struct ips2_reductions *back = ips2_reductions_decode(bytes, size, "x.red", err);
    if (!back)
        fail_msg("decoding the reductions of %s: %s", d, err);
    ips2_reductions_free(back);
    free(bytes);
    return r;
}

static struct ips2_reductions *reduce(const char *d)
{
    return reduce_opts(d, INT64_MIN, INT64_MAX, 0);
}

static const char *S(const struct ips2_reductions *r, uint32_t i)
{
    return i == IPS2_RED_NONE ? "<none>" : r->strings[i];
}

static const struct ips2_red_thread *thread_of(const struct ips2_reductions *r, uint32_t tid)
{
    for (size_t i = 0; i < r->nthreads; i++)
        if (r->threads[i].tid == tid)
            return &r->threads[i];
    fail_msg("no thread %u", tid);
    return NULL;
}

static uint32_t tindex(const struct ips2_reductions *r, const struct ips2_red_thread *t)
{
    return (uint32_t)(t - r->threads);
}

static const struct ips2_red_proc *proc_of(const struct ips2_reductions *r, uint32_t tid,
                                           const char *name)
{
    const struct ips2_red_thread *t = thread_of(r, tid);

    for (uint32_t i = t->first_proc; i < t->first_proc + t->nprocs; i++)
        if (!strcmp(S(r, r->procs[i].name), name))
            return &r->procs[i];
    fail_msg("thread %u has no procedure %s", tid, name);
    return NULL;
}

static const struct ips2_red_arc *arc_of(const struct ips2_reductions *r, uint32_t tid,
                                         const char *caller, const char *callee)
{
    uint32_t t = tindex(r, thread_of(r, tid));

    for (size_t i = 0; i < r->narcs; i++) {
        const struct ips2_red_arc *a = &r->arcs[i];
        if (a->thread == t && !strcmp(S(r, a->caller), caller) && !strcmp(S(r, a->callee), callee))
            return a;
    }
    fail_msg("thread %u has no arc %s -> %s", tid, caller, callee);
    return NULL;
}

static const struct ips2_red_hist *hist_of(const struct ips2_reductions *r, uint32_t tid,
                                           const char *proc, unsigned metric)
{
    uint32_t t = tindex(r, thread_of(r, tid));
    uint32_t p = proc ? (uint32_t)(proc_of(r, tid, proc) - r->procs) : IPS2_RED_NONE;

    for (size_t i = 0; i < r->nhists; i++)
        if (r->hists[i].thread == t && r->hists[i].proc == p && r->hists[i].metric == metric)
            return &r->hists[i];
    fail_msg("thread %u has no histogram of %s", tid, proc ? proc : "the thread");
    return NULL;
}

static double hist_sum(const struct ips2_red_hist *h)
{
    double s = 0;

    for (uint32_t i = 0; i < h->nbuckets; i++)
        s += h->v[i];
    return s;
}

/* Procedure name's latency row in thread tid: count activations, the
 * longest max, and (want_sum) their sum the row's incl_wall; each of the
 * durations in want[n] in its bucket, nothing else. */
static void check_latency(const struct ips2_reductions *r, uint32_t tid, const char *name,
                          uint64_t max, const uint64_t *want, size_t n)
{
    const struct ips2_red_proc *p = proc_of(r, tid, name);
    const struct ips2_red_latency *l = NULL;

    assert_true(r->latency);
    for (size_t i = 0; i < r->nlats; i++)
        if (r->lats[i].proc == (uint32_t)(p - r->procs))
            l = &r->lats[i];
    if (n == 0) {
        assert_null(l);
        return;
    }
    assert_non_null(l);
    assert_int_equal(l->count, n);
    assert_int_equal(l->max_ns, max);
    uint64_t sum = 0, seen = 0;
    for (size_t i = 0; i < n; i++) {
        sum += want[i];
        bool found = false;
        for (uint32_t k = 0; k < l->nbins; k++)
            found = found || l->bins[k].bucket == ips2_lat_bucket(want[i]);
        assert_true(found);
    }
    for (uint32_t k = 0; k < l->nbins; k++)
        seen += l->bins[k].count;
    assert_int_equal(seen, n);
    assert_int_equal(p->incl_wall, sum);
}

static bool has_problem(const struct ips2_reductions *r, const char *needle)
{
    for (size_t i = 0; i < r->nproblems; i++)
        if (strstr(S(r, r->problems[i]), needle))
            return true;
    return false;
}

static void print_problems(const struct ips2_reductions *r)
{
    for (size_t i = 0; i < r->nproblems; i++)
        print_message("problem: %s\n", S(r, r->problems[i]));
}

/* True if the one decoder reduces the raw stream without an error (the
 * fast raw decoder this once checked is gone: the reader is the decoder). */
static bool fast_takes(const char *path)
{
    char err[IPS2_ERR_MAX];
    struct rt r;

    rt_init(&r, INT64_MIN, INT64_MAX, 0);
    int rc = red_stream_reader(path, &r, 0, NULL, err);
    rt_free(&r);
    return rc == 0;
}

/* ---- the basic program ----------------------------------------------- */

/* main calls a, which calls b; then main calls b.  Times in ns of session
 * time (the monotonic clock equals session time: ref_real - ref_mono =
 * SESSION). */
static void write_basic(const char *d, uint32_t pid, const struct hopts *o)
{
    char name[64];

    snprintf(name, sizeof(name), "%u.0.%u.raw", pid, pid);
    struct ips2_writer *w = stream(d, name, IPS2_STREAM_THREAD, pid, pid, o);
    ev1(w, IPS2_EV_SYNC, 1000, 0, 0, 1000);
    ev1(w, IPS2_EV_PROC_START, 1000, 0, IPS2_START_INITIAL, 1);
    ev(w, IPS2_EV_ENTER, 1100, 50, A_MAIN);
    ev(w, IPS2_EV_ENTER, 1300, 150, A_A);
    ev(w, IPS2_EV_ENTER, 1600, 300, A_B);
    ev(w, IPS2_EV_EXIT, 1700, 380, A_B);
    ev(w, IPS2_EV_EXIT, 1800, 420, A_A);
    ev(w, IPS2_EV_ENTER, 2000, 500, A_B);
    ev(w, IPS2_EV_EXIT, 2100, 560, A_B);
    ev(w, IPS2_EV_EXIT, 2500, 700, A_MAIN);
    ev1(w, IPS2_EV_PROC_EXIT, 2600, 720, IPS2_EXIT_RETURN, 3);
    done(w);
}

static void test_basic(void **state)
{
    const char *d = new_dir("basic");

    write_basic(d, 100, &MONO_EXACT);
    module_map(d, 100, &MONO_EXACT);
    struct ips2_reductions *r = reduce(d);
    print_problems(r);
    assert_int_equal(r->nproblems, 0);
    assert_string_equal(S(r, r->machine), "m1");
    assert_string_equal(S(r, r->host), "testhost");
    assert_int_equal(r->events, 11 + 1);

    assert_int_equal(r->nprocesses, 1);
    const struct ips2_red_process *p = &r->processes[0];
    assert_int_equal(p->pid, 100);
    assert_int_equal(p->ppid, 1);
    assert_string_equal(S(r, p->app), "app");
    assert_string_equal(S(r, p->exe), "/bin/app");
    assert_int_equal(p->exit_how, IPS2_EXIT_RETURN);
    assert_int_equal(p->exit_status, 3);
    assert_int_equal(p->problem, IPS2_RED_NONE);
    assert_int_equal(p->start_ns, 1000);
    assert_int_equal(p->end_ns, 2600);
    assert_int_equal(p->nthreads, 1);

    const struct ips2_red_thread *t = thread_of(r, 100);
    assert_int_equal(t->m[IPS2_M_CPU], 720);
    assert_int_equal(t->m[IPS2_M_WALL], 1600);
    assert_int_equal(t->m[IPS2_M_CALLS], 4);
    assert_int_equal(t->create_seq, 0);
    assert_int_equal(t->nprocs, 3);

    const struct ips2_red_proc *m = proc_of(r, 100, "proc_main");
    const struct ips2_red_proc *a = proc_of(r, 100, "proc_a");
    const struct ips2_red_proc *b = proc_of(r, 100, "proc_b");
    assert_int_equal(m->m[IPS2_M_CALLS], 1);
    assert_int_equal(m->m[IPS2_M_CPU], 100 + 80 + 140);
    assert_int_equal(m->m[IPS2_M_WALL], 200 + 200 + 400);
    assert_int_equal(m->incl_cpu, 650);
    assert_int_equal(m->incl_wall, 1400);
    assert_int_equal(a->m[IPS2_M_CALLS], 1);
    assert_int_equal(a->m[IPS2_M_CPU], 150 + 40);
    assert_int_equal(a->m[IPS2_M_WALL], 300 + 100);
    assert_int_equal(a->incl_cpu, 270);
    assert_int_equal(a->incl_wall, 500);
    assert_int_equal(b->m[IPS2_M_CALLS], 2);
    assert_int_equal(b->m[IPS2_M_CPU], 80 + 60);
    assert_int_equal(b->m[IPS2_M_WALL], 200);
    assert_int_equal(b->incl_cpu, 140);

    assert_int_equal(r->narcs, 4);
    const struct ips2_red_arc *x = arc_of(r, 100, "<none>", "proc_main");
    assert_int_equal(x->count, 1);
    assert_int_equal(x->child_cpu, 650);
    x = arc_of(r, 100, "proc_main", "proc_a");
    assert_int_equal(x->count, 1);
    assert_int_equal(x->child_cpu, 270);
    x = arc_of(r, 100, "proc_a", "proc_b");
    assert_int_equal(x->count, 1);
    assert_int_equal(x->child_cpu, 80);
    x = arc_of(r, 100, "proc_main", "proc_b");
    assert_int_equal(x->count, 1);
    assert_int_equal(x->child_cpu, 60);

    /* one 100 ms bucket holds it all, starting at 0 (aligned) */
    const struct ips2_red_hist *h = hist_of(r, 100, NULL, IPS2_M_CPU);
    assert_int_equal(h->width_ns, 100000000);
    assert_int_equal(h->start_ns, 0);
    assert_int_equal(h->nbuckets, 1);
    assert_true(h->v[0] == 720.0);
    h = hist_of(r, 100, "proc_a", IPS2_M_CPU);
    assert_true(h->v[0] == 190.0);
    ips2_reductions_free(r);
}

/* The session time base: monotonic + (real - mono) - session start. */
static void test_time_base(void **state)
{
    const char *d = new_dir("timebase");
    struct hopts o = MONO_EXACT;

    o.ref_mono = 777;
    o.ref_real = SESSION + 777 + 1000000; /* this machine's clock is 1 ms ahead */
    write_basic(d, 100, &o);
    struct ips2_reductions *r = reduce(d);
    const struct ips2_red_thread *t = thread_of(r, 100);
    assert_int_equal(t->start_ns, 1000000 + 1000);
    assert_int_equal(t->end_ns, 1000000 + 2600);
    assert_int_equal(r->processes[0].start_ns, 1001000);
    /* names are unresolved without a module map: addresses in hex */
    char hex[32];
    snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)A_MAIN);
    assert_int_equal(proc_of(r, 100, hex)->m[IPS2_M_CALLS], 1);
    ips2_reductions_free(r);
}

/* A phase clips every interval; calls count when they start inside. */
static void test_phase(void **state)
{
    const char *d = new_dir("phase");

    write_basic(d, 100, &MONO_EXACT);
    module_map(d, 100, &MONO_EXACT);
    struct ips2_reductions *r = reduce_opts(d, 1250, 2050, 0);
    assert_int_equal(r->phase_start_ns, 1250);
    assert_int_equal(r->phase_end_ns, 2050);
    const struct ips2_red_thread *t = thread_of(r, 100);
    assert_int_equal(t->m[IPS2_M_CPU], 25 + 80 + 190 + 110);
    assert_int_equal(t->m[IPS2_M_WALL], 800);
    assert_int_equal(t->m[IPS2_M_CALLS], 3);
    assert_int_equal(t->start_ns, 1000); /* the thread's life is not clipped */

    const struct ips2_red_proc *m = proc_of(r, 100, "proc_main");
    assert_int_equal(m->m[IPS2_M_CALLS], 0);
    assert_int_equal(m->m[IPS2_M_CPU], 25 + 80);
    assert_int_equal(m->m[IPS2_M_WALL], 50 + 200);
    assert_int_equal(m->incl_cpu, 405);
    assert_int_equal(m->incl_wall, 800);
    const struct ips2_red_proc *a = proc_of(r, 100, "proc_a");
    assert_int_equal(a->m[IPS2_M_CALLS], 1);
    assert_int_equal(a->m[IPS2_M_CPU], 190);
    assert_int_equal(a->incl_cpu, 270);
    const struct ips2_red_proc *b = proc_of(r, 100, "proc_b");
    assert_int_equal(b->m[IPS2_M_CALLS], 2);
    assert_int_equal(b->m[IPS2_M_CPU], 80 + 30);
    assert_int_equal(b->m[IPS2_M_WALL], 100 + 50);

    const struct ips2_red_arc *x = arc_of(r, 100, "<none>", "proc_main");
    assert_int_equal(x->count, 0);
    assert_int_equal(x->child_cpu, 405);
    /* latency: each activation clipped to the phase, as incl_wall */
    check_latency(r, 100, "proc_main", 800, (const uint64_t[]){800}, 1);
    check_latency(r, 100, "proc_a", 500, (const uint64_t[]){500}, 1);
    check_latency(r, 100, "proc_b", 100, (const uint64_t[]){100, 50}, 2);
    x = arc_of(r, 100, "proc_main", "proc_b");
    assert_int_equal(x->count, 1);
    assert_int_equal(x->child_cpu, 30);

    /* the histogram starts at the phase (aligned down) */
    const struct ips2_red_hist *h = hist_of(r, 100, NULL, IPS2_M_CPU);
    assert_int_equal(h->start_ns, 0);
    assert_true(hist_sum(h) == 405.0);
    ips2_reductions_free(r);

    /* a phase after the end: nothing counts, the rows stay */
    r = reduce_opts(d, 10000, 20000, 0);
    t = thread_of(r, 100);
    assert_int_equal(t->m[IPS2_M_CPU], 0);
    assert_int_equal(t->m[IPS2_M_CALLS], 0);
    assert_int_equal(proc_of(r, 100, "proc_main")->incl_cpu, 0);
    check_latency(r, 100, "proc_main", 0, NULL, 0); /* no activation in the phase */
    assert_int_equal(r->nlats, 0);
    ips2_reductions_free(r);
}

/* Buckets of 100 ns: intervals split in proportion to their time. */
static void test_histogram_split(void **state)
{
    const char *d = new_dir("hsplit");

    write_basic(d, 100, &MONO_EXACT);
    module_map(d, 100, &MONO_EXACT);
    struct ips2_reductions *r = reduce_opts(d, INT64_MIN, INT64_MAX, 100);
    const struct ips2_red_hist *h = hist_of(r, 100, "proc_main", IPS2_M_CPU);
    assert_int_equal(h->start_ns, 1000);
    assert_int_equal(h->width_ns, 100);
    /* main on top over [1100, 1300): 100 ns of CPU, half in each bucket */
    assert_int_equal(h->nbuckets, 15);
    assert_true(h->v[0] == 0.0);
    assert_true(h->v[1] == 50.0);
    assert_true(h->v[2] == 50.0);
    /* [1800, 2000): 80; [2100, 2500): 140 over four buckets */
    assert_true(h->v[8] == 40.0 && h->v[9] == 40.0);
    assert_true(h->v[11] == 35.0 && h->v[14] == 35.0);
    assert_true(hist_sum(h) == 320.0);
    h = hist_of(r, 100, NULL, IPS2_M_CPU);
    assert_int_equal(h->nbuckets, 16);
    assert_true(h->v[0] == 50.0);  /* [1000, 1100): no procedure */
    assert_true(h->v[15] == 20.0); /* [2500, 2600) */
    assert_true(hist_sum(h) == 720.0);
    ips2_reductions_free(r);
}

/* 1 ns buckets over 1600 ns need one fold: width 2, start still aligned. */
static void test_histogram_fold(void **state)
{
    const char *d = new_dir("hfold");
    struct hopts o = MONO_EXACT;

    o.ref_real = SESSION + 1; /* session time = mono + 1: starts at an odd time */
    write_basic(d, 100, &o);
    struct ips2_reductions *r = reduce_opts(d, INT64_MIN, INT64_MAX, 1);
    assert_int_equal(r->interval_ns, 1);
    for (size_t i = 0; i < r->nhists; i++) {
        const struct ips2_red_hist *h = &r->hists[i];
        assert_int_equal(h->width_ns, 2);
        assert_int_equal(h->start_ns % 2, 0);
        assert_true(h->nbuckets <= IPS2_HIST_MAX_BUCKETS);
        assert_int_equal(h->start_ns, 1000);
    }
    const struct ips2_red_hist *h = hist_of(r, 100, NULL, IPS2_M_CPU);
    assert_true(hist_sum(h) == 720.0);
    assert_int_equal(h->nbuckets, 801); /* [1000, 2602) in 2 ns buckets */
    /* [1001, 1101): 50 ns of CPU on 100 ns, charged in whole ns: 0 in
     * [1001, 1002), 1 in [1002, 1003), ...; bucket 0 = [1000, 1002) */
    assert_true(h->v[0] == 0.0);
    assert_true(h->v[1] == 1.0);
    assert_true(h->v[50] == 1.0);
    ips2_reductions_free(r);
}

/* Threads starting at different times share bucket boundaries. */
static void test_histogram_alignment(void **state)
{
    const char *d = new_dir("halign");

    write_basic(d, 100, &MONO_EXACT);
    struct ips2_writer *w = stream(d, "100.0.101.raw", IPS2_STREAM_THREAD, 100, 101, &MONO_EXACT);
    ev1(w, IPS2_EV_SYNC, 1234, 0, 0, 1234);
    ev1(w, IPS2_EV_THREAD_START, 1234, 0, 100, 7);
    ev(w, IPS2_EV_ENTER, 1300, 10, A_A);
    ev(w, IPS2_EV_EXIT, 1500, 210, A_A);
    ev(w, IPS2_EV_THREAD_EXIT, 1510, 220, IPS2_EXIT_RETURN);
    done(w);
    struct ips2_reductions *r = reduce_opts(d, INT64_MIN, INT64_MAX, 100);
    const struct ips2_red_hist *h0 = hist_of(r, 100, NULL, IPS2_M_CPU);
    const struct ips2_red_hist *h1 = hist_of(r, 101, NULL, IPS2_M_CPU);
    assert_int_equal(h0->start_ns, 1000);
    assert_int_equal(h1->start_ns, 1200);
    assert_int_equal(h1->width_ns, h0->width_ns);
    assert_true(h1->v[0] == 10.0);  /* [1234, 1300) */
    assert_true(h1->v[1] == 100.0); /* [1300, 1400) */
    assert_true(h1->v[2] == 100.0);
    assert_true(h1->v[3] == 10.0);
    const struct ips2_red_thread *t = thread_of(r, 101);
    assert_int_equal(t->create_seq, 7);
    assert_int_equal(r->processes[0].nthreads, 2);
    assert_int_equal(r->processes[0].start_ns, 1000);
    ips2_reductions_free(r);
}

/* Recursion: inclusive time counted once, f->f arcs carry no time. */
static void test_recursion(void **state)
{
    const char *d = new_dir("recursion");
    struct ips2_writer *w = stream(d, "300.0.300.raw", IPS2_STREAM_THREAD, 300, 300, &MONO_EXACT);

    ev1(w, IPS2_EV_SYNC, 0, 0, 0, 0);
    ev(w, IPS2_EV_ENTER, 0, 0, A_A);     /* f */
    ev(w, IPS2_EV_ENTER, 100, 100, A_A); /* f */
    ev(w, IPS2_EV_ENTER, 200, 200, A_A); /* f */
    ev(w, IPS2_EV_ENTER, 250, 250, A_B); /* g */
    ev(w, IPS2_EV_EXIT, 300, 300, A_B);
    ev(w, IPS2_EV_EXIT, 400, 400, A_A);
    ev(w, IPS2_EV_EXIT, 500, 500, A_A);
    ev(w, IPS2_EV_EXIT, 600, 600, A_A);
    ev1(w, IPS2_EV_PROC_EXIT, 600, 600, IPS2_EXIT_CALL, 0);
    done(w);
    module_map(d, 300, &MONO_EXACT);
    struct ips2_reductions *r = reduce(d);
    const struct ips2_red_proc *f = proc_of(r, 300, "proc_a");
    assert_int_equal(f->m[IPS2_M_CALLS], 3);
    assert_int_equal(f->m[IPS2_M_CPU], 550);
    assert_int_equal(f->incl_cpu, 600);
    assert_int_equal(f->incl_wall, 600);
    const struct ips2_red_arc *x = arc_of(r, 300, "proc_a", "proc_a");
    assert_int_equal(x->count, 2);
    assert_int_equal(x->child_cpu, 0);
    x = arc_of(r, 300, "<none>", "proc_a");
    assert_int_equal(x->count, 1);
    assert_int_equal(x->child_cpu, 600);
    x = arc_of(r, 300, "proc_a", "proc_b");
    assert_int_equal(x->child_cpu, 50);
    /* latency: the outermost activation of f only */
    check_latency(r, 300, "proc_a", 600, (const uint64_t[]){600}, 1);
    check_latency(r, 300, "proc_b", 50, (const uint64_t[]){50}, 1);
    assert_int_equal(r->processes[0].exit_how, IPS2_EXIT_CALL);
    ips2_reductions_free(r);
}

/* An exit of a frame below the top closes the frames above it (longjmp). */
static void test_unwind(void **state)
{
    const char *d = new_dir("unwind");
    struct ips2_writer *w = stream(d, "310.0.310.raw", IPS2_STREAM_THREAD, 310, 310, &MONO_EXACT);

    ev1(w, IPS2_EV_SYNC, 0, 0, 0, 0);
    ev(w, IPS2_EV_ENTER, 0, 0, A_MAIN);
    ev(w, IPS2_EV_ENTER, 100, 100, A_A);
    ev(w, IPS2_EV_ENTER, 200, 200, A_B);
    ev(w, IPS2_EV_EXIT, 300, 300, A_A); /* b never returned */
    ev(w, IPS2_EV_EXIT, 400, 400, A_MAIN);
    ev1(w, IPS2_EV_PROC_EXIT, 400, 400, IPS2_EXIT_RETURN, 0);
    done(w);
    module_map(d, 310, &MONO_EXACT);
    struct ips2_reductions *r = reduce(d);
    assert_int_equal(proc_of(r, 310, "proc_b")->incl_cpu, 100);
    assert_int_equal(proc_of(r, 310, "proc_a")->incl_cpu, 200);
    assert_int_equal(proc_of(r, 310, "proc_main")->incl_cpu, 400);
    assert_int_equal(proc_of(r, 310, "proc_main")->m[IPS2_M_CPU], 200);
    /* b, left by a longjmp, ends when a returns */
    check_latency(r, 310, "proc_b", 100, (const uint64_t[]){100}, 1);
    check_latency(r, 310, "proc_a", 200, (const uint64_t[]){200}, 1);
    check_latency(r, 310, "proc_main", 400, (const uint64_t[]){400}, 1);
}

/* A forked child starts inside its parent's frames (exits without
 * entries) and is killed with frames open; the process is marked. */
static void test_fork_child_killed(void **state)
{
    const char *d = new_dir("killed");
    char path[1200];
    struct ips2_writer *w = stream(d, "400.0.400.raw", IPS2_STREAM_THREAD, 400, 400, &MONO_EXACT);

    ev1(w, IPS2_EV_SYNC, 0, 0, 0, 0);
    ev1(w, IPS2_EV_PROC_START, 0, 0, IPS2_START_FORK, 99);
    ev(w, IPS2_EV_EXIT, 50, 50, A_A); /* returns from fork()'s caller */
    ev(w, IPS2_EV_ENTER, 100, 100, A_B);
    ev(w, IPS2_EV_ENTER, 200, 150, A_MAIN);
    ev1(w, IPS2_EV_SYNC, 300, 250, 0, 300); /* last event: killed after it */
    done(w);
    /* make it look like a killed writer's: state open, data_bytes 0 */
    snprintf(path, sizeof(path), "%s/400.0.400.raw", d);
    int fd = open(path, O_WRONLY);
    uint32_t state32 = IPS2_STATE_OPEN;
    uint64_t zero = 0;
    assert_true(pwrite(fd, &state32, 4, offsetof(struct ips2_file_header, state)) == 4);
    assert_true(pwrite(fd, &zero, 8, offsetof(struct ips2_file_header, data_bytes)) == 8);
    close(fd);
    module_map(d, 400, &MONO_EXACT);

    struct ips2_reductions *r = reduce(d);
    print_problems(r);
    const struct ips2_red_process *p = &r->processes[0];
    assert_int_equal(p->exit_how, -1);
    assert_int_equal(p->ppid, 99);
    assert_string_equal(S(r, p->problem), "no exit recorded: killed?");
    assert_true(has_problem(r, "process 400 (app): no exit recorded: killed?"));
    assert_false(has_problem(r, "without an entry")); /* normal for a fork child */
    /* open frames closed at the last event */
    assert_int_equal(proc_of(r, 400, "proc_b")->incl_cpu, 150);
    assert_int_equal(proc_of(r, 400, "proc_b")->incl_wall, 200);
    assert_int_equal(proc_of(r, 400, "proc_main")->incl_cpu, 100);
    assert_int_equal(proc_of(r, 400, "proc_b")->m[IPS2_M_CALLS], 1);
    assert_int_equal(thread_of(r, 400)->m[IPS2_M_CPU], 250);
    ips2_reductions_free(r);
}

/* ---- what the writer lost ---------------------------------------------- */

/* Sets bits of a written stream's feature mask. */
static void add_features(const char *d, const char *name, uint64_t bits)
{
    char path[1200];
    uint64_t features;

    snprintf(path, sizeof(path), "%s/%s", d, name);
    int fd = open(path, O_RDWR);
    assert_true(fd >= 0);
    off_t at = offsetof(struct ips2_file_header, features);
    assert_true(pread(fd, &features, 8, at) == 8);
    features |= bits;
    assert_true(pwrite(fd, &features, 8, at) == 8);
    close(fd);
}

static void lost(struct ips2_writer *w, uint64_t t, uint64_t records, const uint64_t *x,
                 unsigned nx)
{
    assert_int_equal(ips2_writer_emit(w, IPS2_EV_LOST, t, 0, 0, records, x, nx), 0);
}

/* Process 500: thread 500's stream was cut (ENOSPC, TRUNCATED), thread 501
 * lost events of signal handlers, thread 502 got no stream (EMFILE, in
 * two LOST records of the process stream), thread 503's stream has only
 * the TRUNCATED bit, and the process has no channel table. */
static void write_losses(const char *d)
{
    const uint64_t cut[1] = {28}, nostream[2] = {24, 502}, table[2] = {28, 0};

    struct ips2_writer *w = stream(d, "500.0.500.raw", IPS2_STREAM_THREAD, 500, 500, &MONO_EXACT);
    ev1(w, IPS2_EV_SYNC, 1000, 0, 0, 1000);
    ev1(w, IPS2_EV_PROC_START, 1000, 0, IPS2_START_INITIAL, 1);
    ev(w, IPS2_EV_ENTER, 1100, 50, A_MAIN);
    ev(w, IPS2_EV_EXIT, 1500, 300, A_MAIN);
    lost(w, 1600, 2, NULL, 0);
    ev(w, IPS2_EV_ENTER, 1700, 350, A_A);
    lost(w, 1800, 1234, cut, 1);
    done(w);
    add_features(d, "500.0.500.raw", IPS2_FEAT_TRUNCATED);

    w = stream(d, "500.0.501.raw", IPS2_STREAM_THREAD, 500, 501, &MONO_EXACT);
    ev1(w, IPS2_EV_SYNC, 1000, 0, 0, 1000);
    ev(w, IPS2_EV_ENTER, 1100, 50, A_B);
    lost(w, 1200, 3, NULL, 0);
    ev(w, IPS2_EV_EXIT, 1300, 100, A_B);
    ev1(w, IPS2_EV_PROC_EXIT, 2000, 120, IPS2_EXIT_RETURN, 0);
    done(w);

    w = stream(d, "500.0.503.raw", IPS2_STREAM_THREAD, 500, 503, &MONO_EXACT);
    ev1(w, IPS2_EV_SYNC, 1000, 0, 0, 1000);
    done(w);
    add_features(d, "500.0.503.raw", IPS2_FEAT_TRUNCATED);

    w = stream(d, "500.0.proc.raw", IPS2_STREAM_PROCESS, 500, 0, &MONO_EXACT);
    lost(w, 1000, 0, table, 2);
    lost(w, 1050, 40, nostream, 2);
    lost(w, 1900, 2, nostream, 2);
    done(w);
}

static const char *const LOSSES[] = {
    "process 500 (app): thread 500: trace stream cut: 1236 events lost: No space left on device",
    "process 500 (app): thread 501: 3 events lost while tracing (events of signal handlers)",
    "process 500 (app): thread 503: trace stream truncated: events lost, how many not recorded",
    "process 500 (app): no channel table (No space left on device): byte offsets of channels "
    "shared with other processes may not pair",
    "process 500 (app): thread 502: no trace stream: 42 events lost: Too many open files",
};

static void check_losses(const struct ips2_reductions *r)
{
    print_problems(r);
    assert_int_equal(r->nproblems, sizeof(LOSSES) / sizeof(*LOSSES));
    for (size_t i = 0; i < r->nproblems; i++)
        assert_string_equal(S(r, r->problems[i]), LOSSES[i]);
}

/* Every loss is one problem naming the process, the thread, how many
 * events and why; a phase (which re-reduces) names the same. */
static void test_losses(void **state)
{
    const char *d = new_dir("losses");

    write_losses(d);
    struct ips2_reductions *r = reduce(d);
    check_losses(r);
    assert_int_equal(r->processes[0].exit_how, IPS2_EXIT_RETURN);
    ips2_reductions_free(r);
    r = reduce_opts(d, 1250, 1300, 0);
    check_losses(r);
    ips2_reductions_free(r);
}

/* A join's wait is synchronisation waiting of the procedure that joins. */
static void test_join_wait(void **state)
{
    const char *d = new_dir("join");
    struct ips2_writer *w = stream(d, "500.0.500.raw", IPS2_STREAM_THREAD, 500, 500, &MONO_EXACT);

    ev1(w, IPS2_EV_SYNC, 0, 0, 0, 0);
    ev(w, IPS2_EV_ENTER, 0, 0, A_MAIN);
    ev(w, IPS2_EV_THREAD_CREATE, 10, 10, 1);
    ev(w, IPS2_EV_JOIN_BEGIN, 20, 20, 1);
    ev1(w, IPS2_EV_JOIN_END, 1020, 25, 1, 0);
    ev(w, IPS2_EV_EXIT, 1100, 100, A_MAIN);
    ev1(w, IPS2_EV_PROC_EXIT, 1100, 100, IPS2_EXIT_RETURN, 0);
    done(w);
    module_map(d, 500, &MONO_EXACT);
    struct ips2_reductions *r = reduce_opts(d, INT64_MIN, INT64_MAX, 500);
    assert_int_equal(proc_of(r, 500, "proc_main")->m[IPS2_M_SYNC_WAIT], 1000);
    assert_int_equal(thread_of(r, 500)->m[IPS2_M_SYNC_WAIT], 1000);
    const struct ips2_red_hist *h = hist_of(r, 500, NULL, IPS2_M_SYNC_WAIT);
    assert_int_equal(h->start_ns, 0);
    assert_true(h->v[0] == 480.0 && h->v[1] == 500.0 && h->v[2] == 20.0);
    ips2_reductions_free(r);
}

static void evx(struct ips2_writer *w, unsigned kind, uint64_t t, uint64_t cpu, uint64_t payload,
                const uint64_t *x, unsigned n)
{
    assert_int_equal(ips2_writer_emit(w, kind, t, 1, cpu, payload, x, n), 0);
}

/* Interaction events: their time (from the start timer they carry to the
 * event) is a wait of the procedure on top; messages, operations and
 * bytes count at the end; errors, peeks and empty reads move nothing. */
static void test_interactions(void **state)
{
    const char *d = new_dir("interact");
    struct ips2_writer *w = stream(d, "900.0.900.raw", IPS2_STREAM_THREAD, 900, 900, &MONO_EXACT);

    ev1(w, IPS2_EV_SYNC, 0, 0, 0, 0);
    ev(w, IPS2_EV_ENTER, 0, 0, A_MAIN);
    /* RECV: key, offset, bytes, errno, start, call */
    evx(w, IPS2_EV_RECV, 1000, 10, 3, (uint64_t[]){7, 0, 100, 0, 400, IPS2_IO_READ}, 6);
    evx(w, IPS2_EV_RECV, 1100, 10, 3, (uint64_t[]){7, 100, 0, 0, 1050, IPS2_IO_READ}, 6);
    evx(w, IPS2_EV_RECV, 1200, 10, 3,
        (uint64_t[]){7, 100, 50, 0, 1200, IPS2_IO_RECV | IPS2_IO_PEEK}, 6);
    ev(w, IPS2_EV_ENTER, 1300, 20, A_A);
    /* SEND: key, offset, bytes, errno, start, call */
    evx(w, IPS2_EV_SEND, 1400, 30, 4, (uint64_t[]){8, 0, 64, 0, 1390, IPS2_IO_WRITE}, 6);
    evx(w, IPS2_EV_SEND, 1410, 30, 4, (uint64_t[]){8, 64, 0, 32, 1405, IPS2_IO_WRITE}, 6);
    /* FILE_WRITE: offset, bytes, errno, start, call, type */
    evx(w, IPS2_EV_FILE_WRITE, 1600, 40, 5,
        (uint64_t[]){0, 4096, 0, 1500, IPS2_IO_WRITE, IPS2_CHAN_FILE}, 6);
    /* FILE_SEEK: offset, whence, result, errno, start */
    evx(w, IPS2_EV_FILE_SEEK, 1700, 40, 5, (uint64_t[]){0, 0, 0, 0, 1680}, 5);
    ev(w, IPS2_EV_EXIT, 1800, 50, A_A);
    /* IO_WAIT: call, errno, start, nfds, timeout */
    evx(w, IPS2_EV_IO_WAIT, 2800, 60, 1, (uint64_t[]){IPS2_IO_POLL, 0, 1800, 1, 5000}, 5);
    /* PVM_RECV: tag, context, seq, bytes, dst tid, how, error, start */
    evx(w, IPS2_EV_PVM_RECV, 3000, 70, 0x40001, (uint64_t[]){1, 0, 1, 256, 0x40002, 0, 0, 2900}, 8);
    /* PVM_SEND: tag, context, seq, bytes, src tid, how, error */
    evx(w, IPS2_EV_PVM_SEND, 3100, 80, 0x40001, (uint64_t[]){1, 0, 1, 128, 0x40002, 0, 0}, 7);
    ev(w, IPS2_EV_EXIT, 3200, 90, A_MAIN);
    ev1(w, IPS2_EV_PROC_EXIT, 3200, 90, IPS2_EXIT_RETURN, 0);
    done(w);
    module_map(d, 900, &MONO_EXACT);

    struct ips2_reductions *r = reduce_opts(d, INT64_MIN, INT64_MAX, 1000);
    const struct ips2_red_proc *m = proc_of(r, 900, "proc_main");
    const struct ips2_red_proc *a = proc_of(r, 900, "proc_a");
    assert_int_equal(m->m[IPS2_M_MSGS_RECV], 2);    /* the empty read and the peek: none */
    assert_int_equal(m->m[IPS2_M_BYTES_RECV], 356); /* 100 + the PVM message's 256 */
    assert_int_equal(m->m[IPS2_M_MSG_WAIT], 600 + 50 + 0 + 1000 + 100);
    assert_int_equal(m->m[IPS2_M_MSGS_SENT], 1);
    assert_int_equal(m->m[IPS2_M_BYTES_SENT], 128);
    assert_int_equal(a->m[IPS2_M_MSGS_SENT], 1); /* the failed send moved nothing */
    assert_int_equal(a->m[IPS2_M_BYTES_SENT], 64);
    assert_int_equal(a->m[IPS2_M_MSG_WAIT], 0);
    assert_int_equal(a->m[IPS2_M_IO_OPS], 1);
    assert_int_equal(a->m[IPS2_M_IO_BYTES], 4096);
    assert_int_equal(a->m[IPS2_M_IO_TIME], 100);
    assert_int_equal(a->m[IPS2_M_SEEK_TIME], 20);
    const struct ips2_red_thread *t = thread_of(r, 900);
    assert_int_equal(t->m[IPS2_M_MSG_WAIT], 1750);
    assert_int_equal(t->m[IPS2_M_BYTES_RECV], 356);
    assert_int_equal(t->m[IPS2_M_IO_BYTES], 4096);
    /* the poll waited over [1800, 2800): buckets of 1000 ns from 0 */
    const struct ips2_red_hist *h = hist_of(r, 900, NULL, IPS2_M_MSG_WAIT);
    assert_int_equal(h->width_ns, 1000);
    assert_true(h->v[0] == 600.0);         /* [400, 1000) */
    assert_true(h->v[1] == 50.0 + 200.0);  /* [1050, 1100) and [1800, 2000) */
    assert_true(h->v[2] == 800.0 + 100.0); /* [2000, 2800) and [2900, 3000) */
    h = hist_of(r, 900, NULL, IPS2_M_MSGS_RECV);
    assert_true(h->v[0] == 0.0 && h->v[1] == 1.0 && h->v[3] == 1.0);
    ips2_reductions_free(r);

    /* a phase clips the waits */
    r = reduce_opts(d, 2000, 2900, 0);
    assert_int_equal(proc_of(r, 900, "proc_main")->m[IPS2_M_MSG_WAIT], 800);
    assert_int_equal(proc_of(r, 900, "proc_main")->m[IPS2_M_MSGS_RECV], 0);
    ips2_reductions_free(r);
}

static const struct ips2_red_object *object_of(const struct ips2_reductions *r, uint32_t tid,
                                               uint64_t id)
{
    uint32_t t = tindex(r, thread_of(r, tid));

    for (size_t i = 0; i < r->nobjects; i++)
        if (r->objects[i].thread == t && r->objects[i].id == id)
            return &r->objects[i];
    fail_msg("thread %u has no object 0x%llx", tid, (unsigned long long)id);
    return NULL;
}

/* Synchronisation: waits (from the wait start the events carry) go to
 * sync_wait and to the object; a spinning wait's CPU to spin; the object's
 * type comes from the sync-object event, in whichever thread of the image
 * it is. */
static void test_sync(void **state)
{
    const char *d = new_dir("sync");
    const uint64_t spin = 0x1000, bar = 0x2000, sem = 0x3000, cond = 0x4000, mtx = 0x5000;

    /* thread 961 meets the spin lock first (sync-object), waits on nothing */
    struct ips2_writer *w = stream(d, "960.0.961.raw", IPS2_STREAM_THREAD, 960, 961, &MONO_EXACT);
    ev1(w, IPS2_EV_SYNC, 0, 0, 0, 0);
    ev1(w, IPS2_EV_THREAD_START, 0, 0, 960, 1);
    evx(w, IPS2_EV_SYNC_OBJECT, 10, 0, spin, (uint64_t[]){IPS2_SYNC_SPIN, spin, 0, 0, 0}, 5);
    ev1(w, IPS2_EV_LOCK_ACQUIRED, 20, 0, spin, 0);
    ev1(w, IPS2_EV_LOCK_RELEASE, 500, 400, spin, 1);
    ev(w, IPS2_EV_THREAD_EXIT, 600, 500, IPS2_EXIT_RETURN);
    done(w);
    /* thread 960: waits on everything */
    w = stream(d, "960.0.960.raw", IPS2_STREAM_THREAD, 960, 960, &MONO_EXACT);
    ev1(w, IPS2_EV_SYNC, 0, 0, 0, 0);
    ev(w, IPS2_EV_ENTER, 0, 0, A_MAIN);
    /* lock-acquired: release seq seen, wait start, CPU at start: spun 300 of 400 ns */
    evx(w, IPS2_EV_LOCK_ACQUIRED, 500, 310, spin, (uint64_t[]){1, 100, 10}, 3);
    /* barrier-depart: episode, serial, wait start */
    evx(w, IPS2_EV_BARRIER_DEPART, 1500, 320, bar, (uint64_t[]){1, 0, 1000}, 3);
    evx(w, IPS2_EV_BARRIER_DEPART, 2500, 330, bar, (uint64_t[]){2, 1, 2400}, 3);
    /* sem-acquired without a wait, then with one */
    evx(w, IPS2_EV_SEM_ACQUIRED, 2600, 340, sem, (uint64_t[]){1, 0}, 2);
    evx(w, IPS2_EV_SEM_ACQUIRED, 3000, 350, sem, (uint64_t[]){2, 0, 2700}, 3);
    /* cond-wake: mutex key, seq at start, seq at wake, wait start, result */
    evx(w, IPS2_EV_COND_WAKE, 4000, 360, cond, (uint64_t[]){mtx, 0, 1, 3500, 0}, 5);
    /* sync-failed: a trylock that did not wait, a timed lock that did */
    evx(w, IPS2_EV_SYNC_FAILED, 4100, 370, mtx, (uint64_t[]){IPS2_SYNC_MUTEX, 16, 0}, 3);
    evx(w, IPS2_EV_SYNC_FAILED, 5000, 380, mtx, (uint64_t[]){IPS2_SYNC_MUTEX, 110, 4200}, 3);
    ev(w, IPS2_EV_EXIT, 5100, 390, A_MAIN);
    ev1(w, IPS2_EV_PROC_EXIT, 5100, 390, IPS2_EXIT_RETURN, 0);
    done(w);
    module_map(d, 960, &MONO_EXACT);

    struct ips2_reductions *r = reduce(d);
    const struct ips2_red_proc *m = proc_of(r, 960, "proc_main");
    assert_int_equal(m->m[IPS2_M_SYNC_WAIT], 400 + 500 + 100 + 300 + 500 + 800);
    assert_int_equal(m->m[IPS2_M_SPIN], 300);
    assert_int_equal(thread_of(r, 960)->m[IPS2_M_SPIN], 300);
    assert_int_equal(thread_of(r, 961)->m[IPS2_M_SYNC_WAIT], 0);

    const struct ips2_red_object *o = object_of(r, 960, spin);
    assert_int_equal(o->kind, IPS2_SYNC_SPIN); /* from thread 961's sync-object */
    assert_int_equal(o->waits, 1);
    assert_int_equal(o->wait_ns, 400);
    assert_int_equal(o->spin_ns, 300);
    o = object_of(r, 960, bar);
    assert_int_equal(o->kind, IPS2_SYNC_BARRIER);
    assert_int_equal(o->waits, 2);
    assert_int_equal(o->wait_ns, 600);
    o = object_of(r, 960, sem);
    assert_int_equal(o->kind, IPS2_SYNC_SEM);
    assert_int_equal(o->waits, 1);
    assert_int_equal(o->wait_ns, 300);
    o = object_of(r, 960, cond);
    assert_int_equal(o->kind, IPS2_SYNC_COND);
    assert_int_equal(o->wait_ns, 500);
    o = object_of(r, 960, mtx);
    assert_int_equal(o->kind, IPS2_SYNC_MUTEX);
    assert_int_equal(o->waits, 1);
    assert_int_equal(o->wait_ns, 800);
    /* thread 961 held the spin lock (20 to 500, in no procedure): a row of
     * its own that waited for nothing */
    o = object_of(r, 961, spin);
    assert_int_equal(o->waits, 0);
    assert_int_equal(r->nobjects, 6);
    ips2_reductions_free(r);

    /* a phase clips waits and spin alike */
    r = reduce_opts(d, 300, 1200, 0);
    m = proc_of(r, 960, "proc_main");
    assert_int_equal(m->m[IPS2_M_SYNC_WAIT], 200 + 200);
    assert_int_equal(m->m[IPS2_M_SPIN], 150);
    assert_int_equal(object_of(r, 960, spin)->spin_ns, 150);
    ips2_reductions_free(r);
}

/* The hold of object id by procedure proc (NULL: none) of thread tid, or
 * NULL if there is none. */
static const struct ips2_red_hold *hold_of(const struct ips2_reductions *r, uint32_t tid,
                                           uint64_t id, const char *proc)
{
    uint32_t t = tindex(r, thread_of(r, tid));
    uint32_t p = proc ? (uint32_t)(proc_of(r, tid, proc) - r->procs) : IPS2_RED_NONE;

    for (size_t i = 0; i < r->nholds; i++) {
        const struct ips2_red_object *o = &r->objects[r->holds[i].object];
        if (o->thread == t && o->id == id && r->holds[i].proc == p)
            return &r->holds[i];
    }
    return NULL;
}

/* Holds: from each acquisition to its release, charged to the procedure on
 * top at the acquisition (not the one at the release); an rwlock read
 * twice is one hold; a hold still open ends with the thread; a phase clips
 * hold times and counts the acquisitions inside it. */
static void test_holds(void **state)
{
    const char *d = new_dir("holds");
    const uint64_t x = 0x9000, rw = 0xa000;
    struct ips2_writer *w = stream(d, "980.0.980.raw", IPS2_STREAM_THREAD, 980, 980, &MONO_EXACT);

    ev1(w, IPS2_EV_SYNC, 0, 0, 0, 0);
    ev(w, IPS2_EV_ENTER, 0, 0, A_MAIN);
    ev1(w, IPS2_EV_LOCK_ACQUIRED, 100, 10, x, 0);
    ev(w, IPS2_EV_ENTER, 200, 20, A_A);
    ev1(w, IPS2_EV_LOCK_RELEASE, 300, 30, x, 1); /* main held it 200 */
    evx(w, IPS2_EV_LOCK_ACQUIRED, 400, 40, x, (uint64_t[]){1, 350, 40}, 3);
    ev1(w, IPS2_EV_LOCK_RELEASE, 1000, 50, x, 2); /* proc_a: 600 */
    ev1(w, IPS2_EV_LOCK_ACQUIRED, 1100, 60, x, 2);
    ev1(w, IPS2_EV_LOCK_RELEASE, 1200, 70, x, 3); /* proc_a: 100 */
    ev1(w, IPS2_EV_LOCK_ACQUIRED_SHARED, 1300, 80, rw, 0);
    ev1(w, IPS2_EV_LOCK_ACQUIRED_SHARED, 1350, 90, rw, 0);
    ev1(w, IPS2_EV_LOCK_RELEASE_SHARED, 1400, 100, rw, 1);
    ev1(w, IPS2_EV_LOCK_RELEASE_SHARED, 1500, 110, rw, 2); /* proc_a: 200, once */
    ev(w, IPS2_EV_EXIT, 1600, 120, A_A);
    ev1(w, IPS2_EV_LOCK_ACQUIRED, 1700, 130, x, 3); /* main: open to 2000 */
    ev(w, IPS2_EV_EXIT, 2000, 140, A_MAIN);
    ev1(w, IPS2_EV_PROC_EXIT, 2000, 140, IPS2_EXIT_RETURN, 0);
    done(w);
    module_map(d, 980, &MONO_EXACT);

    struct ips2_reductions *r = reduce(d);
    const struct ips2_red_hold *h = hold_of(r, 980, x, "proc_main");
    assert_non_null(h);
    assert_int_equal(h->acquisitions, 2);
    assert_int_equal(h->hold_ns, 200 + 300);
    h = hold_of(r, 980, x, "proc_a");
    assert_non_null(h);
    assert_int_equal(h->acquisitions, 2);
    assert_int_equal(h->hold_ns, 600 + 100);
    h = hold_of(r, 980, rw, "proc_a");
    assert_non_null(h);
    assert_int_equal(h->acquisitions, 1);
    assert_int_equal(h->hold_ns, 200);
    assert_int_equal(r->objects[h->object].kind, IPS2_SYNC_RWLOCK);
    assert_null(hold_of(r, 980, rw, "proc_main"));
    assert_int_equal(r->nholds, 3);
    const struct ips2_red_object *o = object_of(r, 980, x);
    assert_int_equal(o->waits, 1);
    assert_int_equal(o->wait_ns, 50);

    /* the holds survive the file */
    size_t size;
    char err[IPS2_ERR_MAX] = "";
    void *buf = ips2_reductions_encode(r, &size);
    struct ips2_reductions *b = ips2_reductions_decode(buf, size, "holds.red", err);
    if (!b)
        fail_msg("%s", err);
    assert_int_equal(b->nholds, 3);
    assert_int_equal(hold_of(b, 980, x, "proc_a")->hold_ns, 700);
    ips2_reductions_free(b);
    free(buf);
    ips2_reductions_free(r);

    /* phase [250, 1150): main 250..300, proc_a 400..1000 and 1100..1150 */
    r = reduce_opts(d, 250, 1150, 0);
    h = hold_of(r, 980, x, "proc_main");
    assert_int_equal(h->acquisitions, 0);
    assert_int_equal(h->hold_ns, 50);
    h = hold_of(r, 980, x, "proc_a");
    assert_int_equal(h->acquisitions, 2);
    assert_int_equal(h->hold_ns, 650);
    ips2_reductions_free(r);
}

/* The histogram of one metric of a procedure of a thread, or NULL. */
static const struct ips2_red_hist *proc_hist_of(const struct ips2_reductions *r, uint32_t tid,
                                                const char *proc, unsigned metric)
{
    uint32_t t = tindex(r, thread_of(r, tid));
    uint32_t p = (uint32_t)(proc_of(r, tid, proc) - r->procs);

    for (size_t i = 0; i < r->nhists; i++)
        if (r->hists[i].thread == t && r->hists[i].proc == p && r->hists[i].metric == metric)
            return &r->hists[i];
    return NULL;
}

/* The histogram of an object row, which must be the only one. */
static const struct ips2_red_hist *object_hist_of(const struct ips2_reductions *r,
                                                  const struct ips2_red_object *o)
{
    const struct ips2_red_hist *found = NULL;
    uint32_t row = (uint32_t)(o - r->objects);

    for (size_t i = 0; i < r->nhists; i++)
        if (r->hists[i].object == row) {
            assert_null(found);
            found = &r->hists[i];
        }
    assert_non_null(found);
    assert_int_equal(found->thread, o->thread);
    assert_int_equal(found->proc, IPS2_RED_NONE);
    assert_int_equal(found->metric, IPS2_M_SYNC_WAIT);
    return found;
}

static void check_buckets(const struct ips2_red_hist *h, const double *want, uint32_t n)
{
    assert_non_null(h);
    assert_int_equal(h->nbuckets, n);
    for (uint32_t i = 0; i < n; i++)
        if (h->v[i] != want[i])
            fail_msg("bucket %u: %g, expected %g", i, h->v[i], want[i]);
}

/* Histograms per procedure of the interaction metrics (and calls) that
 * occurred, per object of its waits, on the thread's grid: buckets of
 * 1000 ns from 0; the thread's own histograms are as before. */
static void test_proc_object_histograms(void **state)
{
    const char *d = new_dir("prochist");
    const uint64_t x = 0x7000, y = 0x8000;
    struct ips2_writer *w = stream(d, "970.0.970.raw", IPS2_STREAM_THREAD, 970, 970, &MONO_EXACT);

    ev1(w, IPS2_EV_SYNC, 0, 0, 0, 0);
    ev(w, IPS2_EV_ENTER, 0, 0, A_MAIN);
    /* lock-acquired: release seq seen, wait start, CPU at start (no spin) */
    evx(w, IPS2_EV_LOCK_ACQUIRED, 1500, 10, x, (uint64_t[]){1, 500, 10}, 3);
    ev(w, IPS2_EV_ENTER, 1600, 20, A_A);
    evx(w, IPS2_EV_LOCK_ACQUIRED, 2600, 30, y, (uint64_t[]){1, 1700, 30}, 3);
    /* FILE_WRITE: offset, bytes, errno, start, call, type */
    evx(w, IPS2_EV_FILE_WRITE, 2800, 40, 5,
        (uint64_t[]){0, 4096, 0, 2700, IPS2_IO_WRITE, IPS2_CHAN_FILE}, 6);
    ev(w, IPS2_EV_EXIT, 2900, 50, A_A);
    ev(w, IPS2_EV_ENTER, 3100, 60, A_A);
    ev(w, IPS2_EV_EXIT, 3200, 70, A_A);
    evx(w, IPS2_EV_LOCK_ACQUIRED, 3500, 80, x, (uint64_t[]){2, 3300, 80}, 3);
    ev(w, IPS2_EV_EXIT, 4000, 90, A_MAIN);
    ev1(w, IPS2_EV_PROC_EXIT, 4000, 90, IPS2_EXIT_RETURN, 0);
    done(w);
    module_map(d, 970, &MONO_EXACT);

    struct ips2_reductions *r = reduce_opts(d, INT64_MIN, INT64_MAX, 1000);
    check_buckets(hist_of(r, 970, NULL, IPS2_M_SYNC_WAIT), (double[]){500, 800, 600, 200}, 4);
    check_buckets(proc_hist_of(r, 970, "proc_main", IPS2_M_SYNC_WAIT), (double[]){500, 500, 0, 200},
                  4);
    check_buckets(proc_hist_of(r, 970, "proc_a", IPS2_M_SYNC_WAIT), (double[]){0, 300, 600}, 3);
    check_buckets(proc_hist_of(r, 970, "proc_a", IPS2_M_IO_TIME), (double[]){0, 0, 100}, 3);
    check_buckets(proc_hist_of(r, 970, "proc_a", IPS2_M_IO_OPS), (double[]){0, 0, 1}, 3);
    check_buckets(proc_hist_of(r, 970, "proc_a", IPS2_M_IO_BYTES), (double[]){0, 0, 4096}, 3);
    check_buckets(proc_hist_of(r, 970, "proc_a", IPS2_M_CALLS), (double[]){0, 1, 0, 1}, 4);
    check_buckets(proc_hist_of(r, 970, "proc_main", IPS2_M_CALLS), (double[]){1}, 1);
    /* only what occurred */
    assert_null(proc_hist_of(r, 970, "proc_a", IPS2_M_MSG_WAIT));
    assert_null(proc_hist_of(r, 970, "proc_a", IPS2_M_SEEK_TIME));
    assert_null(proc_hist_of(r, 970, "proc_main", IPS2_M_IO_OPS));

    const struct ips2_red_object *ox = object_of(r, 970, x), *oy = object_of(r, 970, y);
    assert_int_equal(ox->wait_ns, 1200);
    check_buckets(object_hist_of(r, ox), (double[]){500, 500, 0, 200}, 4);
    check_buckets(object_hist_of(r, oy), (double[]){0, 300, 600}, 3);
    assert_int_equal(object_hist_of(r, ox)->start_ns, 0);
    assert_int_equal(object_hist_of(r, ox)->width_ns, 1000);
    ips2_reductions_free(r);

    /* a phase clips them like the rest: [1000, 3000) */
    r = reduce_opts(d, 1000, 3000, 1000);
    ox = object_of(r, 970, x);
    assert_int_equal(ox->wait_ns, 500);
    check_buckets(object_hist_of(r, ox), (double[]){500}, 1);
    check_buckets(proc_hist_of(r, 970, "proc_a", IPS2_M_SYNC_WAIT), (double[]){300, 600}, 2);
    check_buckets(proc_hist_of(r, 970, "proc_a", IPS2_M_CALLS), (double[]){1}, 1);
    ips2_reductions_free(r);
}

/* Variables of this program standing for locks: the module map of the
 * test streams is this program's, so their names are found as a traced
 * program's would be. */
static char names_hot[40];
static char names_locks[4][40];

/* The name of the object row of key in thread tid. */
static const char *object_name(const struct ips2_reductions *r, uint32_t tid, uint64_t key)
{
    const struct ips2_red_object *o = object_of(r, tid, key);

    assert_int_not_equal(o->name, IPS2_RED_NONE);
    return S(r, o->name);
}

/* A wait of thread 980 on key at t (100 ns). */
static void waited(struct ips2_writer *w, uint64_t t, uint64_t key)
{
    evx(w, IPS2_EV_LOCK_ACQUIRED, t, t, key, (uint64_t[]){1, t - 100, t}, 3);
}

static void init_event(struct ips2_writer *w, uint64_t t, uint64_t key, uint64_t result)
{
    evx(w, IPS2_EV_SYNC_INIT, t, t, key, (uint64_t[]){IPS2_SYNC_MUTEX, 0, 0, result}, 4);
}

/* Names of objects: a variable's (with an offset into an array), the
 * procedure that initialised a heap object (numbered when it initialised
 * several, a re-initialisation not counted, nor objects it initialised
 * that have a variable of their own), a name given by the program, else
 * the address. */
static void test_object_names(void **state)
{
    const char *d = new_dir("names");
    char *heap = malloc(4 * 40);
    const uint64_t hot = (uintptr_t)names_hot, lock1 = (uintptr_t)names_locks[1];
    const uint64_t h0 = (uintptr_t)heap, h1 = h0 + 40, h2 = h0 + 80, h3 = h0 + 120;
    const uint64_t shared = IPS2_SYNC_KEY_SHARED | 5;
    uint64_t words[5 + 8] = {IPS2_SYNC_SEM, 0x7000, 1, 2, 0};
    unsigned nw = 5 + ips2_string_words(words + 5, 8, "/work");

    assert_non_null(heap);
    struct ips2_writer *w = stream(d, "980.0.980.raw", IPS2_STREAM_THREAD, 980, 980, &MONO_EXACT);
    ev1(w, IPS2_EV_SYNC, 0, 0, 0, 0);
    ev(w, IPS2_EV_ENTER, 0, 0, A_MAIN);
    ev(w, IPS2_EV_ENTER, 10, 10, A_A);
    init_event(w, 20, lock1, 0); /* a variable's: not proc_a's first */
    init_event(w, 30, h1, 0);
    init_event(w, 40, h2, 0);
    init_event(w, 50, h1, 0);  /* again: still the first */
    init_event(w, 60, h3, 22); /* failed: no initialisation */
    ev(w, IPS2_EV_EXIT, 70, 70, A_A);
    ev(w, IPS2_EV_ENTER, 80, 80, A_B);
    init_event(w, 90, h0, 0);
    ev(w, IPS2_EV_EXIT, 100, 100, A_B);
    evx(w, IPS2_EV_SYNC_OBJECT, 110, 110, shared, words, nw);
    waited(w, 1000, hot);
    waited(w, 1200, lock1);
    waited(w, 1400, h0);
    waited(w, 1600, h1);
    waited(w, 1800, h2);
    waited(w, 2000, h3);
    evx(w, IPS2_EV_SEM_ACQUIRED, 2200, 2200, shared, (uint64_t[]){1, 0, 2100}, 3);
    ev(w, IPS2_EV_EXIT, 3000, 3000, A_MAIN);
    ev1(w, IPS2_EV_PROC_EXIT, 3000, 3000, IPS2_EXIT_RETURN, 0);
    done(w);
    module_map(d, 980, &MONO_EXACT);

    struct ips2_reductions *r = reduce(d);
    char want[64];
    assert_string_equal(object_name(r, 980, hot), "mutex:names_hot");
    assert_string_equal(object_name(r, 980, lock1), "mutex:names_locks+40");
    assert_string_equal(object_name(r, 980, h0), "mutex:heap@proc_b");
    assert_string_equal(object_name(r, 980, h1), "mutex:heap@proc_a");
    assert_string_equal(object_name(r, 980, h2), "mutex:heap@proc_a#2");
    snprintf(want, sizeof(want), "mutex:0x%llx", (unsigned long long)h3);
    assert_string_equal(object_name(r, 980, h3), want);
    assert_string_equal(object_name(r, 980, shared), "sem:/work");
    ips2_reductions_free(r);
    free(heap);

    /* the rules in order, without a trace */
    char buf[128];
    red_object_name(buf, sizeof(buf), IPS2_SYNC_SPIN,
                    &(struct red_object_facts){.given = "g", .symbol = "s", .address = 1});
    assert_string_equal(buf, "spin:g");
    red_object_name(buf, sizeof(buf), IPS2_SYNC_BARRIER,
                    &(struct red_object_facts){.symbol = "s", .init_proc = "p", .address = 1});
    assert_string_equal(buf, "barrier:s");
    red_object_name(buf, sizeof(buf), IPS2_SYNC_USER_LOCK,
                    &(struct red_object_facts){.init_proc = "p", .init_nth = 3});
    assert_string_equal(buf, "user_lock:heap@p#3");
    red_object_name(buf, sizeof(buf), 77, &(struct red_object_facts){.address = 0xab});
    assert_string_equal(buf, "object:0xab");
}

/* A damaged stream is reduced up to the damage; the error names the file
 * and byte offset; other streams are complete. */
static void test_damaged(void **state)
{
    const char *d = new_dir("damaged");
    char path[1200];

    write_basic(d, 100, &MONO_EXACT);
    struct ips2_writer *w = stream(d, "600.0.600.raw", IPS2_STREAM_THREAD, 600, 600, &MONO_EXACT);
    ev1(w, IPS2_EV_SYNC, 0, 0, 0, 0);
    ev(w, IPS2_EV_ENTER, 100, 100, A_A);
    ev(w, IPS2_EV_EXIT, 200, 200, A_A);
    assert_int_equal(ips2_writer_emit_word(w, 0x7e), 0); /* kind 126: unknown */
    ev(w, IPS2_EV_ENTER, 300, 300, A_B);
    done(w);
    snprintf(path, sizeof(path), "%s/600.0.600.raw", d);
    assert_false(fast_takes(path)); /* it declines; the reader names the error */
    struct ips2_reductions *r = reduce(d);
    snprintf(path, sizeof(path), "%s/600.0.600.raw: byte %d: expected a known record kind", d,
             IPS2_RAW_HEADER_SIZE + 4 * 8 + 2 * 3 * 8);
    if (!has_problem(r, path)) {
        print_problems(r);
        fail_msg("no problem naming %s", path);
    }
    assert_int_equal(thread_of(r, 600)->m[IPS2_M_CALLS], 1);
    assert_int_equal(thread_of(r, 600)->m[IPS2_M_CPU], 200);
    assert_string_equal(S(r, r->processes[1].problem), "no exit recorded: trace damaged");
    assert_int_equal(thread_of(r, 100)->m[IPS2_M_CPU], 720); /* the other one is whole */
    assert_int_equal(r->processes[0].problem, IPS2_RED_NONE);
    ips2_reductions_free(r);
}

/* A thread stream without events (its process died at once, or its
 * first block is damaged) still makes a thread row, and valid reductions. */
static void test_empty_stream(void **state)
{
    const char *d = new_dir("emptystream");

    done(stream(d, "950.0.950.raw", IPS2_STREAM_THREAD, 950, 950, &MONO_EXACT));
    struct ips2_reductions *r = reduce(d);
    const struct ips2_red_thread *t = thread_of(r, 950);
    assert_int_equal(t->m[IPS2_M_CPU], 0);
    assert_int_equal(t->nprocs, 0);
    const struct ips2_red_hist *h = hist_of(r, 950, NULL, IPS2_M_CPU);
    assert_int_equal(h->nbuckets, 0);
    assert_true(h->width_ns > 0);
    assert_string_equal(S(r, r->processes[0].problem), "no exit recorded: killed?");
    ips2_reductions_free(r);
}

static void test_no_dir(void **state)
{
    char err[IPS2_ERR_MAX] = "";
    struct ips2_reduce_options o = {.phase_start_ns = INT64_MIN, .phase_end_ns = INT64_MAX};

    assert_null(ips2_reduce_dir("/nonexistent/ips2", &o, err));
    assert_non_null(strstr(err, "/nonexistent/ips2"));

    /* an empty directory is no error: nothing ran there */
    struct ips2_reductions *r = reduce(new_dir("empty"));
    assert_int_equal(r->nprocesses, 0);
    assert_int_equal(r->nthreads, 0);
    ips2_reductions_free(r);
}

/* ---- raw decoding against packed decoding ---------------------------- */

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
    return xorshift64(&rng);
}

/* A random stream as libips2 writes it: short records between sync
 * points, long ENTER/EXIT that move the address base, lock records of a
 * few objects (long ones bind their slots, short and held ones use them),
 * other events with and without CPU readings, pads, lost records. */
static void write_random(const char *d, uint32_t pid, unsigned timer, unsigned cpu_method,
                         unsigned nevents, unsigned sync_every)
{
    struct hopts o = MONO_EXACT;
    char name[64];

    o.timer = timer;
    o.cpu_method = cpu_method;
    o.tsc_hz = timer == IPS2_TIMER_TSC ? 2594176815ull : 1000000000ull;
    o.ref_tsc = 123456789;
    o.ref_mono = 1000000;
    o.ref_real = SESSION + o.ref_mono;
    snprintf(name, sizeof(name), "%u.0.%u.raw", pid, pid);
    struct ips2_writer *w = stream(d, name, IPS2_STREAM_THREAD, pid, pid, &o);
    uint64_t timer_v = o.ref_tsc + 1000, mono = 1000000 + 500, cpu = 1000, sync_t = 0;
    uint64_t base = 0x7f0000000000ull, addrs[8];
    unsigned depth = 0, stack[64], since_sync = sync_every;
    bool exact = cpu_method != IPS2_CPU_INTERP;

    for (unsigned i = 0; i < 8; i++)
        addrs[i] = base + 0x1000 + i * 0x40;
    /* lock objects: keys 0 and 1 share a slot */
    uint64_t lkeys[3] = {0x601040, 0x601048, 0x601100}, lseq[3] = {0, 0, 0};
    uint64_t slot_key[IPS2_LOCK_SLOTS] = {0}, slot_seq[IPS2_LOCK_SLOTS] = {0};
    while (IPS2_LOCK_SLOT(lkeys[1]) != IPS2_LOCK_SLOT(lkeys[0]))
        lkeys[1] += 8;
    for (unsigned i = 0; i < nevents; i++) {
        uint64_t step = rnd() % 300;
        timer_v += step;
        cpu += rnd() % 2 ? step * 1000000000 / o.tsc_hz : 0;
        uint64_t x = rnd() % 1000;
        if (since_sync >= sync_every || timer_v - sync_t > (1u << 24)) {
            mono += (timer_v - sync_t) * 1000000000 / o.tsc_hz + rnd() % 3;
            sync_t = timer_v;
            ev1(w, IPS2_EV_SYNC, timer_v, cpu, 0, mono);
            since_sync = 0;
            continue;
        }
        since_sync++;
        if (x < 5) {
            uint64_t words[2] = {rnd() % 100, rnd()};
            /* readings only where sync points are frequent: else the queue overflows */
            int has_cpu = sync_every < 100000 && (x & 1);
            assert_int_equal(
                ips2_writer_emit(w, IPS2_EV_THREAD_CREATE, timer_v, has_cpu, cpu, x, words, x % 3),
                0);
        } else if (x < 7) {
            assert_int_equal(ips2_writer_emit_word(w, IPS2_RAW_WORD0(IPS2_EV_PAD, 0, 0, 16)), 0);
            assert_int_equal(ips2_writer_emit_word(w, 0xdeadbeef), 0);
        } else if (x < 8) {
            assert_int_equal(ips2_writer_emit(w, IPS2_EV_LOST, timer_v, 0, 0, 1, NULL, 0), 0);
        } else if (x < 14) {
            unsigned lo = (unsigned)(rnd() % 3), sl = IPS2_LOCK_SLOT(lkeys[lo]);
            bool rel = rnd() % 2;
            uint64_t seq = lseq[lo] += rnd() % 3, sd = seq - slot_seq[sl], delta = timer_v - sync_t;
            if (slot_key[sl] != lkeys[lo] || exact || x < 10) {
                assert_int_equal(
                    ips2_writer_emit(w, rel ? IPS2_EV_LOCK_RELEASE : IPS2_EV_LOCK_ACQUIRED, timer_v,
                                     0, 0, lkeys[lo], &seq, 1),
                    0);
                slot_key[sl] = lkeys[lo];
            } else if (x < 12) {
                assert_int_equal(
                    ips2_writer_emit_word(w, IPS2_LOCK_WORD(rel ? IPS2_EV_LOCK_RELEASE_SHORT
                                                                : IPS2_EV_LOCK_ACQUIRED_SHORT,
                                                            delta, sl, sd)),
                    0);
            } else { /* a hold: acquired at seq, released at seq + 1 */
                uint64_t hold = rnd() % 50;
                assert_int_equal(
                    ips2_writer_emit_word(w, IPS2_LOCK_HELD_WORD(delta, sl, sd % 64, hold)), 0);
                seq = lseq[lo] = slot_seq[sl] + sd % 64 + 1;
                timer_v += hold;
            }
            slot_seq[sl] = seq;
        } else {
            bool enter = depth == 0 || (depth < 64 && rnd() % 2);
            unsigned a = enter ? (unsigned)(rnd() % 8) : stack[depth - 1];
            if (x < 20 || exact) {
                assert_int_equal(ips2_writer_emit(w, enter ? IPS2_EV_ENTER : IPS2_EV_EXIT, timer_v,
                                                  exact, cpu, addrs[a], NULL, 0),
                                 0);
            } else {
                uint64_t delta = timer_v - sync_t;
                assert_int_equal(
                    ips2_writer_emit_word(
                        w, IPS2_SHORT_WORD(enter ? IPS2_EV_ENTER_SHORT : IPS2_EV_EXIT_SHORT, delta,
                                           addrs[a] - base)),
                    0);
            }
            if (enter)
                stack[depth++] = a;
            else
                depth--;
        }
    }
    ev1(w, IPS2_EV_PROC_EXIT, timer_v, cpu, IPS2_EXIT_RETURN, 0);
    done(w);
}

static void same_reductions(const struct ips2_reductions *a, const struct ips2_reductions *b)
{
    assert_int_equal(a->events, b->events);
    assert_int_equal(a->nthreads, b->nthreads);
    assert_int_equal(a->nprocs, b->nprocs);
    assert_int_equal(a->narcs, b->narcs);
    assert_int_equal(a->nhists, b->nhists);
    for (size_t i = 0; i < a->nthreads; i++) {
        assert_int_equal(a->threads[i].start_ns, b->threads[i].start_ns);
        assert_int_equal(a->threads[i].end_ns, b->threads[i].end_ns);
        assert_memory_equal(a->threads[i].m, b->threads[i].m, sizeof(a->threads[i].m));
    }
    for (size_t i = 0; i < a->nprocs; i++) {
        assert_string_equal(S(a, a->procs[i].name), S(b, b->procs[i].name));
        assert_memory_equal(a->procs[i].m, b->procs[i].m, sizeof(a->procs[i].m));
        assert_int_equal(a->procs[i].incl_cpu, b->procs[i].incl_cpu);
        assert_int_equal(a->procs[i].incl_wall, b->procs[i].incl_wall);
    }
    for (size_t i = 0; i < a->narcs; i++) {
        assert_string_equal(S(a, a->arcs[i].caller), S(b, b->arcs[i].caller));
        assert_string_equal(S(a, a->arcs[i].callee), S(b, b->arcs[i].callee));
        assert_int_equal(a->arcs[i].count, b->arcs[i].count);
        assert_int_equal(a->arcs[i].child_cpu, b->arcs[i].child_cpu);
    }
    for (size_t i = 0; i < a->nhists; i++) {
        assert_int_equal(a->hists[i].start_ns, b->hists[i].start_ns);
        assert_int_equal(a->hists[i].width_ns, b->hists[i].width_ns);
        assert_int_equal(a->hists[i].nbuckets, b->hists[i].nbuckets);
        assert_memory_equal(a->hists[i].v, b->hists[i].v, a->hists[i].nbuckets * sizeof(double));
    }
}

/* Reduces d raw, then packed, and compares. */
static void raw_vs_packed(const char *d, uint32_t pid, uint64_t interval)
{
    char raw[1200], packed[1200], err[IPS2_ERR_MAX];

    snprintf(raw, sizeof(raw), "%s/%u.0.%u.raw", d, pid, pid);
    snprintf(packed, sizeof(packed), "%s/%u.0.%u.ips2", d, pid, pid);
    assert_true(fast_takes(raw));
    struct ips2_reductions *a = reduce_opts(d, INT64_MIN, INT64_MAX, interval);
    if (ips2_pack_file(raw, packed, err) != 0)
        fail_msg("pack: %s", err);
    unlink(raw);
    struct ips2_reductions *b = reduce_opts(d, INT64_MIN, INT64_MAX, interval);
    print_problems(a);
    assert_int_equal(a->nproblems, b->nproblems);
    same_reductions(a, b);
    assert_true(a->events > 0);
    ips2_reductions_free(a);
    ips2_reductions_free(b);
}

static void test_fast_vs_reader(void **state)
{
    static const struct {
        unsigned timer, method, n, sync;
    } cases[] = {
        {IPS2_TIMER_TSC, IPS2_CPU_INTERP, 200000, 4096},
        {IPS2_TIMER_TSC, IPS2_CPU_INTERP, 150000, 100000}, /* queue overflows */
        {IPS2_TIMER_MONOTONIC, IPS2_CPU_INTERP, 50000, 300},
        {IPS2_TIMER_TSC, IPS2_CPU_EXACT, 50000, 500},
        {IPS2_TIMER_MONOTONIC, IPS2_CPU_TICK, 50000, 500},
    };
    char name[32];

    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(name, sizeof(name), "fast%u", i);
        const char *d = new_dir(name);
        write_random(d, 700 + i, cases[i].timer, cases[i].method, cases[i].n, cases[i].sync);
        raw_vs_packed(d, 700 + i, 100000);
    }
}

/* ---- progress -------------------------------------------------------- */

static uint64_t progress_calls, progress_last;
static void on_progress(void *arg, uint64_t done_events, uint64_t total)
{
    (void)arg;
    progress_calls++;
    assert_true(done_events >= progress_last);
    assert_true(total >= done_events);
    progress_last = done_events;
}

static void test_progress(void **state)
{
    const char *d = new_dir("progress");
    struct ips2_reduce_options o = {0};
    char err[IPS2_ERR_MAX];

    write_random(d, 800, IPS2_TIMER_TSC, IPS2_CPU_INTERP, 3000000, 4096);
    o.phase_start_ns = INT64_MIN;
    o.phase_end_ns = INT64_MAX;
    o.progress = on_progress;
    struct ips2_reductions *r = ips2_reduce_dir(d, &o, err);
    assert_non_null(r);
    assert_true(progress_calls >= 3); /* every 2^20 events, and at the end */
    assert_int_equal(progress_last, r->events);
    ips2_reductions_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic),
        cmocka_unit_test(test_time_base),
        cmocka_unit_test(test_phase),
        cmocka_unit_test(test_histogram_split),
        cmocka_unit_test(test_histogram_fold),
        cmocka_unit_test(test_histogram_alignment),
        cmocka_unit_test(test_recursion),
        cmocka_unit_test(test_unwind),
        cmocka_unit_test(test_fork_child_killed),
        cmocka_unit_test(test_losses),
        cmocka_unit_test(test_join_wait),
        cmocka_unit_test(test_interactions),
        cmocka_unit_test(test_sync),
        cmocka_unit_test(test_proc_object_histograms),
        cmocka_unit_test(test_object_names),
        cmocka_unit_test(test_holds),
        cmocka_unit_test(test_damaged),
        cmocka_unit_test(test_empty_stream),
        cmocka_unit_test(test_no_dir),
        cmocka_unit_test(test_fast_vs_reader),
        cmocka_unit_test(test_progress),
    };
    if (scratch_make("reduce") != 0)
        return 1;
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    scratch_remove(NULL);
    return rc;
}
