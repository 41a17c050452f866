/*
 * calibrate.c - what each probe of libips2 costs on this machine: at
 * start-up for the streams' calibration block (ips2_format.h, struct
 * ips2_cost_ext) and the header's cost_ns[], and again at each stream's
 * end with what the run itself measured.  Perturbation compensation
 * (slave/compensate.c) subtracts these costs.
 *
 * A traced call costs three things (docs/PERTURBATION.md §1 has the
 * figures): the probes' code, 1 to 8 ns a probe here by what the core's
 * other hardware thread does; the pages of the trace file that the
 * writer maps and populates, 1.3 to 1.9 ns a byte of record by the load,
 * more than the code; and now and then a sync point.
 *
 * The code (Malony, Reed and Wijshoff's in vitro measurement): each probe
 * back to back REPS times with a tiny procedure's worth of dependent work
 * between (BODY_STEPS: an out-of-order core overlaps a probe with the
 * work around it), into populated memory, less the same loop without the
 * probe; BATCHES batches, the median.  A preemption on a loaded machine
 * does not count.  Both clocks are read around each batch.  That is one
 * moment of the run's load, so the procedure probes are also sampled in
 * situ through the run (ips2_sample_probes, at sync points), and the end
 * block carries the samples' mean.
 *
 * The pages are not measured by a loop: the writer times every mapping
 * and population it does itself (stream.c) and the end block carries
 * their time per byte of record.
 *
 * The procedure hooks and the lock and event fast paths run for real on
 * the calling thread's writer state, pointed at scratch memory (at
 * start-up no stream is open yet).  A wait's record (a CPU reading then a
 * long record, after the real call) and a sync point are their code's
 * steps in order; for a wait, what lies between the call's start reading
 * and the record's own is "inside" the timed interval: the
 * instrumentation's share of a measured wait.
 *
 * Cost: about 1 ms per process at start-up (the block's calib_ns says),
 * most of it the CPU clock's readings (~0.65 us each on our virtual
 * machines), 1-2 ms per thread at its end, and about 0.5 us a sync point
 * sampled (one in four).
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "runtime.h"

#define REPS        256         /* probes per batch: the cheap ones */
#define REPS_SLOW   32          /* those that read the CPU clock (a system call here) */
#define BATCHES     7           /* at start-up */
#define BATCHES_END 11          /* at a thread's end, where it delays nothing traced */
#define PER_BATCH   (REPS * 32) /* bytes: the longest record of a cheap probe is 32 */

struct sample {
    uint64_t wall, cpu; /* ns of one batch */
};

/* The thread's CPU time exactly (ips2_thread_cpu_ns() is what records
 * carry: a tick clock's readings are truncated). */
static uint64_t exact_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t timer_ns(uint64_t ticks)
{
    return (uint64_t)((double)ticks * 1e9 / (double)ips2_proc.tsc_hz);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, unsigned n)
{
    qsort(v, n, sizeof(*v), cmp_u64);
    return v[n / 2];
}

#define BODY_STEPS 8
static uint64_t body_sink;

/* What runs between two probes: a few steps of dependent work, as in a
 * tiny procedure, which an out-of-order core overlaps with the probes. */
__attribute__((noinline)) static uint64_t calib_body(uint64_t x)
{
    for (unsigned i = 0; i < BODY_STEPS; i++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x;
}

/* A procedure whose address the procedure records carry. */
__attribute__((noinline)) static void calib_fn(void)
{
    __asm__ volatile("");
}

IPS2_EXPORT void __cyg_profile_func_enter(void *fn, void *call_site);
IPS2_EXPORT void __cyg_profile_func_exit(void *fn, void *call_site);

enum what { W_NOP, W_ENTER, W_EXIT, W_LOCK, W_EVENT, W_WAIT, W_SYNC, W_LONGPROC };

static uint64_t inside_ticks; /* W_WAIT: start reading to record reading, summed */
static _Atomic uint64_t calib_seq;

/* Points the thread's writer at p .. p + bytes, as a fresh window. */
static void scratch_window(struct ips2_thread *t, uintptr_t p, size_t bytes)
{
    t->cur = p;
    t->limit = p + bytes;
    t->last_sync = ips2_timer_now();
    t->addr_base = IPS2_SHORT_BASE((uintptr_t)calib_fn);
    t->held_at = 0;
}

static uint64_t i_seed(enum what w)
{
    return (uint64_t)w + body_sink;
}

/* One batch of reps probes of one kind into fresh memory at p. */
static struct sample batch(enum what w, unsigned reps, uintptr_t p, size_t bytes)
{
    struct ips2_thread *t = &ips2_self;
    uint64_t extra[4] = {0, 0, 0, 0};
    uint64_t key = ((uintptr_t)&calib_seq) & IPS2_PAYLOAD_MASK;

    scratch_window(t, p, bytes);
    if (w == W_LOCK) {
        struct ips2_lock_slot *s = &t->lock_slot[IPS2_LOCK_SLOT(key)];
        s->key = IPS2_LOCK_BOUND | key;
        s->seq = 0;
    }
    uint64_t c0 = exact_cpu_ns(), t0 = ips2_timer_now();
    uint64_t x = i_seed(w);
    for (unsigned i = 0; i < reps; i++) {
        x = calib_body(x);
        switch (w) {
        case W_NOP: /* the loop alone: a probe's call and return are its cost */
            __asm__ volatile("" : : "r"(t), "r"(i) : "memory");
            break;
        case W_ENTER:
            __cyg_profile_func_enter((void *)calib_fn, NULL);
            break;
        case W_EXIT:
            __cyg_profile_func_exit((void *)calib_fn, NULL);
            break;
        case W_LOCK: /* an acquisition or a release: the seq bump and a short record */
            if (i & 1)
                ips2_emit_release(key, atomic_fetch_add(&calib_seq, 1) + 1);
            else
                ips2_emit_acquired(key, atomic_load(&calib_seq));
            break;
        case W_EVENT:
            extra[0] = i;
            ips2_emit(IPS2_EV_SEM_POST, key, extra, 2, IPS2_CPU_DERIVED);
            break;
        case W_WAIT: {
            uint64_t start = ips2_timer_now();
            /* the real call would be here */
            uint64_t now = ips2_timer_now();
            uint64_t cpu = ips2_thread_cpu_ns();
            extra[2] = start;
            ips2_record_put((uint64_t *)t->cur, IPS2_EV_SEM_ACQUIRED, now, 1, cpu, key, extra, 3);
            t->cur += 8 * ips2_record_words(1, 3);
            inside_ticks += now - start;
            break;
        }
        case W_SYNC: {
            uint64_t now = ips2_timer_now();
            uint64_t cpu = ips2_thread_cpu_ns();
            extra[0] = ips2_mono_ns();
            extra[1] = t->counted;
            ips2_record_put((uint64_t *)t->cur, IPS2_EV_SYNC, now, 1, cpu, 0, extra, 2);
            t->cur += 8 * ips2_record_words(1, 2);
            break;
        }
        case W_LONGPROC: { /* exact and tick: every procedure record reads the CPU clock */
            uint64_t now = ips2_timer_now();
            uint64_t cpu = ips2_thread_cpu_ns();
            ips2_record_put((uint64_t *)t->cur, IPS2_EV_ENTER, now, 1, cpu, (uintptr_t)calib_fn,
                            NULL, 0);
            t->cur += 8 * ips2_record_words(1, 0);
            break;
        }
        }
    }
    uint64_t t1 = ips2_timer_now(), c1 = exact_cpu_ns();
    body_sink += x;
    return (struct sample){timer_ns(t1 - t0), c1 - c0};
}

/* Median cost per probe in ps (wall, cpu) of kind w beyond the loop's,
 * each batch writing into memory not touched before (as a trace window's
 * is: its page faults are part of the cost). */
static void measure(enum what w, unsigned batches, uint32_t *wall_ps, uint32_t *cpu_ps,
                    uint64_t *inside)
{
    uint64_t dw[BATCHES_END], dc[BATCHES_END];
    unsigned reps = w == W_WAIT || w == W_SYNC || w == W_LONGPROC ? REPS_SLOW : REPS;
    size_t bytes = (size_t)batches * PER_BATCH;
    static char nop_area[4096];

    /* populated: the pages are IPS2_PROBE_PAGE's, measured where they are paid */
    void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (mem == MAP_FAILED)
        return;
    inside_ticks = 0;
    for (unsigned b = 0; b < batches; b++) {
        struct sample base = batch(W_NOP, reps, (uintptr_t)nop_area, sizeof(nop_area));
        struct sample s = batch(w, reps, (uintptr_t)mem + b * PER_BATCH, PER_BATCH);
        dw[b] = s.wall > base.wall ? s.wall - base.wall : 0;
        dc[b] = s.cpu > base.cpu ? s.cpu - base.cpu : 0;
    }
    munmap(mem, bytes);
    *wall_ps = (uint32_t)(median(dw, batches) * 1000 / reps);
    *cpu_ps = (uint32_t)(median(dc, batches) * 1000 / reps);
    if (inside)
        *inside = timer_ns(inside_ticks) * 1000 / ((uint64_t)reps * batches);
}

/* In situ: at one sync point in SAMPLE_EVERY of a thread that traces by
 * the hot path without a filter (stream.c; a filter would watch, count or
 * drop the sample's procedure), SAMPLE_PAIRS procedure entries and exits through the real
 * hooks, each after a tiny body, into a scratch window, timed by the
 * timer, less the same bodies alone, after an untimed warm-up (the sync
 * point's system call leaves the predictors cold).  A probe's code costs
 * what the other hardware thread of the core leaves it, and the load
 * changes within a run: samples spread over the run see what the
 * program's probes saw, a loop at start-up or at the end one moment of
 * it.  A sample longer than SAMPLE_MAX_NS (preempted) is not counted;
 * every sample's whole time is the writer's own, counted with its pages. */
#define SAMPLE_PAIRS     32
#define SAMPLE_WARM      16
#define SAMPLE_MAX_NS    50000
#define SAMPLE_EVERY     4   /* sync points: 1 in 4 samples (about 3 us each here) */
#define MIN_SAMPLE_PAIRS 256 /* fewer: the end block's loop is the estimate */

/* SAMPLE_WARM untimed entry/exit pairs of fn through the real hooks, each
 * after a tiny body, then SAMPLE_PAIRS timed, less the same bodies alone:
 * *ticks, the pairs' own ticks (noise may make them negative); false when
 * a loop took bound ticks or more (the thread was preempted). */
static bool time_pairs(void *fn, uint64_t *xp, uint64_t bound, int64_t *ticks)
{
    uint64_t x = *xp;

    for (unsigned i = 0; i < SAMPLE_WARM; i++) {
        x = calib_body(x);
        __cyg_profile_func_enter(fn, NULL);
        x = calib_body(x);
        __cyg_profile_func_exit(fn, NULL);
    }
    uint64_t t0 = ips2_timer_now();
    for (unsigned i = 0; i < SAMPLE_PAIRS; i++) {
        x = calib_body(x);
        x = calib_body(x);
        __asm__ volatile("" : "+r"(x) : : "memory");
    }
    uint64_t t1 = ips2_timer_now();
    for (unsigned i = 0; i < SAMPLE_PAIRS; i++) {
        x = calib_body(x);
        __cyg_profile_func_enter(fn, NULL);
        x = calib_body(x);
        __cyg_profile_func_exit(fn, NULL);
    }
    uint64_t t2 = ips2_timer_now();
    *xp = x;
    *ticks = (int64_t)(t2 - t1) - (int64_t)(t1 - t0);
    return t2 - t1 < bound && t1 - t0 < bound;
}

/* The procedure whose calls a filtered thread's samples count (filter.c
 * keeps its row counted, into a word that no CALLS record holds). */
__attribute__((noinline)) static void count_fn(void)
{
    __asm__ volatile("");
}

/* Under a filter, SAMPLE_PAIRS counted calls of count_fn through the real
 * hooks (the hook's slow side, the filter's table, the count bumped in
 * place), less the same bodies alone: what a counted call costs its
 * caller at this moment of the run.  A counted call's in-place bump is
 * the path of a thread outside the slow path, so the sample runs with
 * busy off and the thread's signals blocked (a handler's record would
 * otherwise find the slow path free in the middle of a sync point); the
 * thread's running count of counted calls is given back. */
#define COUNT_KEPT        IPS2_COUNT_KEPT
#define MIN_COUNT_SAMPLES 8 /* fewer at a thread's end: made up there */
static uint32_t ps_u32(uint64_t ps);

static void sample_counted(struct ips2_thread *t, uint64_t bound)
{
    sigset_t all, old;
    uint64_t x = (uint64_t)(uintptr_t)t ^ t->counted;
    int busy = t->busy;
    uintptr_t limit = t->limit;
    uint64_t counted = t->counted;

    sigfillset(&all);
    if (pthread_sigmask(SIG_BLOCK, &all, &old) != 0)
        return;
    t->busy = 0;
    t->limit = 0;
    int64_t ticks;
    bool timed = time_pairs((void *)count_fn, &x, bound, &ticks);
    t->counted = counted;
    t->busy = busy;
    t->limit = limit;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    __asm__ volatile("" : : "r"(x));
    if (timed) {
        uint64_t net = ticks > 0 ? timer_ns((uint64_t)ticks) : 0;
        t->count_ps[t->count_n++ % COUNT_KEPT] = ps_u32(net * 1000 / SAMPLE_PAIRS);
    }
}

/* times samples of counted calls, if the thread's filter has room. */
static void sample_counts(struct ips2_thread *t, unsigned times)
{
    uint64_t scratch = 0, bound = ips2_proc.tsc_hz / (1000000000u / SAMPLE_MAX_NS);
    long depth = ips2_filter_sample_begin((uintptr_t)calib_fn, (uintptr_t)count_fn, &scratch);

    if (depth < 0)
        return;
    for (unsigned i = 0; i < times; i++)
        sample_counted(t, bound);
    ips2_filter_sample_end(depth, (uintptr_t)count_fn);
}

/* stream.c, at one counted call in IPS2_COUNT_SAMPLE_EVERY: a thread that
 * counts its calls writes few records and so has few sync points, and
 * its counted calls are where their cost is paid.  The sample's whole
 * time is the counted calls' too (count_over), spread over them. */
void ips2_sample_counts(struct ips2_thread *t)
{
    uint64_t w0 = ips2_timer_now();
    sample_counts(t, 1);
    t->count_over += ips2_timer_now() - w0;
}

void ips2_sample_probes(struct ips2_thread *t)
{
    uint64_t scratch = 0;
    long depth = 0;

    if (++t->sample_turn % SAMPLE_EVERY != 0)
        return;
    uint64_t w0 = ips2_timer_now();
    if (ips2_filtering &&
        (depth = ips2_filter_sample_begin((uintptr_t)calib_fn, (uintptr_t)count_fn, &scratch)) < 0)
        return;
    /* No signal handler runs inside: its events would land in the scratch
     * window.  The sample's own events that take the slow path (a thread
     * preempted past the hot path's delta) are not the program's losses. */
    sigset_t none, old;
    sigfillset(&none);
    pthread_sigmask(SIG_SETMASK, &none, &old);
    uint64_t lost = t->lost;
    uintptr_t cur = t->cur, limit = t->limit;
    uint64_t base = t->addr_base, x = (uint64_t)(uintptr_t)t;
    /* on the stack: static TLS is scarce for a libips2 that is dlopen'ed */
    uint64_t sample_area[2 * (SAMPLE_PAIRS + SAMPLE_WARM)];

    t->cur = (uintptr_t)sample_area;
    t->limit = t->cur + sizeof(sample_area);
    t->addr_base = IPS2_SHORT_BASE((uintptr_t)calib_fn);
    uint64_t bound = ips2_proc.tsc_hz / (1000000000u / SAMPLE_MAX_NS);
    int64_t ticks;
    bool timed = time_pairs((void *)calib_fn, &x, bound, &ticks);
    t->cur = cur;
    t->limit = limit;
    t->addr_base = base;
    t->lost = lost;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    __asm__ volatile("" : : "r"(x));
    if (timed) {
        t->sample_ticks += ticks;
        t->sample_pairs += SAMPLE_PAIRS;
    }
    if (ips2_filtering)
        ips2_filter_sample_end(depth, (uintptr_t)count_fn);
    uint64_t all = ips2_timer_now() - w0;
    t->page_ticks += all;
    t->page_cpu_ns += all * 1000000u / (ips2_proc.tsc_hz / 1000u);
}

/* A byte of record's page cost (ps, wall and CPU) estimated at start-up,
 * for a stream that ends without its end block: anonymous pages populated
 * as a window's are, PAGE_REPS times, the median.  The end block has the
 * writer's own, measured where it paid them. */
#define PAGE_BYTES (64u << 10)
#define PAGE_REPS  3
static void measure_pages(uint32_t *wall_ps, uint32_t *cpu_ps)
{
    uint64_t dw[PAGE_REPS], dc[PAGE_REPS];

    for (unsigned r = 0; r < PAGE_REPS; r++) {
        void *mem =
            mmap(NULL, PAGE_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mem == MAP_FAILED)
            return;
        uint64_t c0 = exact_cpu_ns(), t0 = ips2_timer_now();
        if (madvise(mem, PAGE_BYTES, MADV_POPULATE_WRITE) != 0)
            for (size_t o = 0; o < PAGE_BYTES; o += 4096)
                ((volatile char *)mem)[o] = 0;
        uint64_t t1 = ips2_timer_now(), c1 = exact_cpu_ns();
        munmap(mem, PAGE_BYTES);
        dw[r] = timer_ns(t1 - t0);
        dc[r] = c1 - c0;
    }
    *wall_ps = (uint32_t)(median(dw, PAGE_REPS) * 1000 / PAGE_BYTES);
    *cpu_ps = (uint32_t)(median(dc, PAGE_REPS) * 1000 / PAGE_BYTES);
}

static uint32_t ps_u32(uint64_t ps) /* a few bytes after a long population */
{
    return ps > UINT32_MAX ? UINT32_MAX : (uint32_t)ps;
}

/* At the end of a thread's stream: the cheap probes again when the thread
 * closes its own (the machine's load may have changed since start-up), the
 * others as at start-up; and the page cost per byte that this stream's
 * writer paid, in situ: every mapping and population it did itself, timed
 * (stream.c), over the bytes it wrote.  That total is exact wherever the
 * pages cost what they cost (the file system, the kernel's page cache, the
 * load); spread per byte of record, it lands on the records that caused it
 * within one populated chunk.  The writer's state is kept busy meanwhile,
 * so that a signal handler's event is counted lost rather than written
 * (the hot paths write into the scratch memory). */
void ips2_measure_costs_end(struct ips2_cost_ext *c, const struct ips2_thread *w, uint64_t bytes)
{
    struct ips2_thread *t = &ips2_self;
    uint64_t start = ips2_mono_ns();

    *c = ips2_proc.cost_ext;
    if (c->size == 0)
        return;
    if (w == t && ips2_proc.cpu_method == IPS2_CPU_INTERP) {
        struct ips2_thread saved = *t;
        t->busy = 1;
        t->short_locks = 1;
        measure(W_ENTER, BATCHES_END, &c->wall_ps[IPS2_PROBE_ENTER], &c->cpu_ps[IPS2_PROBE_ENTER],
                NULL);
        measure(W_EXIT, BATCHES_END, &c->wall_ps[IPS2_PROBE_EXIT], &c->cpu_ps[IPS2_PROBE_EXIT],
                NULL);
        measure(W_LOCK, BATCHES_END, &c->wall_ps[IPS2_PROBE_LOCK], &c->cpu_ps[IPS2_PROBE_LOCK],
                NULL);
        measure(W_EVENT, BATCHES_END, &c->wall_ps[IPS2_PROBE_EVENT], &c->cpu_ps[IPS2_PROBE_EVENT],
                NULL);
        *t = saved;
        c->reps = REPS * BATCHES_END;
    }
    /* a thread that counted few calls: its samples made up here */
    if (w == t && ips2_filtering && t->counted && t->count_n < MIN_COUNT_SAMPLES)
        sample_counts(t, MIN_COUNT_SAMPLES - t->count_n);
    if (w->sample_pairs >= MIN_SAMPLE_PAIRS && w->sample_ticks > 0) {
        /* the in-situ samples' mean, a probe's (half an entry and exit) */
        uint64_t probe = timer_ns((uint64_t)w->sample_ticks) * 1000 / w->sample_pairs / 2;
        c->wall_ps[IPS2_PROBE_SAMPLED] = c->cpu_ps[IPS2_PROBE_SAMPLED] = (uint32_t)probe;
    }
    if (w->count_n > 0) {
        /* a counted call's (entry and exit), in the slot's inside columns:
         * the median sample (one of a few dozen, preempted or not, can be
         * off by tens of ns a call and would move a mean) */
        uint64_t v[COUNT_KEPT];
        unsigned n = w->count_n < COUNT_KEPT ? w->count_n : COUNT_KEPT;
        for (unsigned i = 0; i < n; i++)
            v[i] = w->count_ps[i];
        uint64_t call = median(v, n);
        if (w->counted)
            call += timer_ns(w->count_over) * 1000 / w->counted;
        c->wall_in_ps[IPS2_PROBE_SAMPLED] = c->cpu_in_ps[IPS2_PROBE_SAMPLED] = ps_u32(call);
    }
    if (bytes > 0) {
        c->wall_ps[IPS2_PROBE_PAGE] = ps_u32(timer_ns(w->page_ticks) * 1000 / bytes);
        c->cpu_ps[IPS2_PROBE_PAGE] = ps_u32(w->page_cpu_ns * 1000 / bytes);
    }
    memcpy(c->magic, IPS2_COST_END_MAGIC, 4);
    c->calib_ns = (uint32_t)(ips2_mono_ns() - start);
}

void ips2_measure_costs(void)
{
    struct ips2_cost_ext *c = &ips2_proc.cost_ext;
    struct ips2_thread *t = &ips2_self;
    struct ips2_thread saved = *t;
    uint64_t start = ips2_mono_ns(), in_ps = 0;

    memset(c, 0, sizeof(*c));
    t->short_locks = 1;
    t->state = IPS2_THREAD_NEW;
    if (ips2_proc.cpu_method == IPS2_CPU_INTERP) {
        measure(W_ENTER, BATCHES, &c->wall_ps[IPS2_PROBE_ENTER], &c->cpu_ps[IPS2_PROBE_ENTER],
                NULL);
        measure(W_EXIT, BATCHES, &c->wall_ps[IPS2_PROBE_EXIT], &c->cpu_ps[IPS2_PROBE_EXIT], NULL);
        measure(W_LOCK, BATCHES, &c->wall_ps[IPS2_PROBE_LOCK], &c->cpu_ps[IPS2_PROBE_LOCK], NULL);
        measure(W_EVENT, BATCHES, &c->wall_ps[IPS2_PROBE_EVENT], &c->cpu_ps[IPS2_PROBE_EVENT],
                NULL);
    } else {
        /* exact and tick: every record goes the slow way, with a CPU reading */
        measure(W_LONGPROC, BATCHES, &c->wall_ps[IPS2_PROBE_ENTER], &c->cpu_ps[IPS2_PROBE_ENTER],
                NULL);
        for (unsigned p = IPS2_PROBE_EXIT; p <= IPS2_PROBE_EVENT; p++) {
            c->wall_ps[p] = c->wall_ps[IPS2_PROBE_ENTER];
            c->cpu_ps[p] = c->cpu_ps[IPS2_PROBE_ENTER];
        }
    }
    measure(W_WAIT, BATCHES, &c->wall_ps[IPS2_PROBE_WAIT], &c->cpu_ps[IPS2_PROBE_WAIT], &in_ps);
    measure(W_SYNC, BATCHES, &c->wall_ps[IPS2_PROBE_SYNC], &c->cpu_ps[IPS2_PROBE_SYNC], NULL);
    measure_pages(&c->wall_ps[IPS2_PROBE_PAGE], &c->cpu_ps[IPS2_PROBE_PAGE]);
    *t = saved;

    /* a wait's record: what lies between its start reading and its own is
     * inside the interval (the CPU clock likewise: nothing blocks there) */
    uint32_t in =
        (uint32_t)(in_ps < c->wall_ps[IPS2_PROBE_WAIT] ? in_ps : c->wall_ps[IPS2_PROBE_WAIT]);
    c->wall_in_ps[IPS2_PROBE_WAIT] = in;
    c->wall_ps[IPS2_PROBE_WAIT] -= in;
    c->cpu_in_ps[IPS2_PROBE_WAIT] = in < c->cpu_ps[IPS2_PROBE_WAIT] ? in : 0;
    c->cpu_ps[IPS2_PROBE_WAIT] -= c->cpu_in_ps[IPS2_PROBE_WAIT];

    memcpy(c->magic, IPS2_COST_EXT_MAGIC, 4);
    c->size = sizeof(*c);
    c->nprobes = IPS2_PROBES;
    c->reps = REPS * BATCHES; /* the cheap probes'; REPS_SLOW * BATCHES for the others */
    c->calib_ns = (uint32_t)(ips2_mono_ns() - start);
    /* the header's two groups, as before: a procedure record, a sync point */
    ips2_proc.cost_ns[IPS2_COST_PROC] =
        (c->wall_ps[IPS2_PROBE_ENTER] + c->wall_ps[IPS2_PROBE_EXIT] + 1000) / 2000;
    ips2_proc.cost_ns[IPS2_COST_SYNC] = (c->wall_ps[IPS2_PROBE_SYNC] + 500) / 1000;
}
