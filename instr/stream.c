/*
 * stream.c - stream files and the slow path of record emission.
 *
 * A stream file is a 4 KiB header followed by records.  The writer maps one
 * IPS2_WINDOW_BYTES window of the file at a time (MAP_SHARED, space reserved
 * with posix_fallocate so that a full disk is an error here and never a
 * SIGBUS later).  Records that do not fit the rest of a window are preceded
 * by a PAD record and go to the next window.  Everything that is not a plain
 * append - opening, sync points, window switches, lost records - is done
 * here, with errno saved and a per-thread guard against re-entry from
 * signal handlers: a nested event that finds the slow path busy is counted
 * as lost and reported by a LOST record later.
 *
 * Events a thread drops because it has no stream to write are counted too,
 * where the slave finds them, by one LOST record whose payload the thread
 * increments in place (so a killed process keeps the count it reached):
 *
 * - a stream that can grow no more (the disk is full) gets the TRUNCATED
 *   feature bit and ends with LOST, extra [0] = the error (ENOSPC ...);
 *   every window keeps room for that record at its end;
 * - a thread that got no stream at all (full disk, no descriptors) has
 *   LOST in its process stream, extra [0] = the error, [1] = its tid.
 *
 * A stream holding such a record is pinned: its windows stay mapped until
 * the process ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "runtime.h"

static uintptr_t window_end(const struct ips2_stream *s)
{
    return (uintptr_t)s->window + IPS2_WINDOW_BYTES;
}

/* Bytes kept free at the end of every window for the LOST record that ends
 * a stream which cannot get its next window. */
#define LOST_TAIL_BYTES (8 * 3)

/* Records may be appended below this; the rest is the LOST tail. */
static uintptr_t window_room_end(const struct ips2_stream *s)
{
    return window_end(s) - LOST_TAIL_BYTES;
}

static off_t stream_offset(const struct ips2_stream *s, uintptr_t cur)
{
    return s->window_offset + (off_t)(cur - (uintptr_t)s->window);
}

static int window_map(struct ips2_stream *s, off_t offset)
{
    int err = posix_fallocate(s->fd, offset, IPS2_WINDOW_BYTES);

    if (err != 0) {
        errno = err; /* posix_fallocate returns it and leaves errno alone */
        return -1;
    }
    void *w = mmap(NULL, IPS2_WINDOW_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, offset);
    if (w == MAP_FAILED)
        return -1;
    while (atomic_exchange(&s->populating, 1))
        sched_yield(); /* the prefaulter is in the old window */
    if (s->window && !s->pinned)
        munmap(s->window, IPS2_WINDOW_BYTES);
    s->window = w;
    s->window_offset = offset;
    atomic_store(&s->populated, (uintptr_t)w);
    atomic_store(&s->wanted, (uintptr_t)w);
    atomic_store(&s->populating, 0);
    return 0;
}

/* Prefaults a thread stream's window up to `upto`, IPS2_POPULATE_BYTES at
 * a time: one batch of write faults instead of one fault per page (3x
 * faster here), so that the writer's stores find their pages present.
 * The writer calls it when it runs into unpopulated pages (wait = 1); the
 * prefaulter thread (prefault.c) calls it ahead of the writer (wait = 0:
 * it leaves a stream that someone else is populating or remapping).
 * Kernels without MADV_POPULATE_WRITE just fault page by page. */
void ips2_stream_populate(struct ips2_stream *s, uintptr_t upto, int wait)
{
    while (atomic_exchange(&s->populating, 1)) {
        if (!wait)
            return;
        sched_yield();
    }
    /* whole chunks from the window's start: madvise wants page alignment */
    uintptr_t base = (uintptr_t)s->window, chunk = IPS2_POPULATE_BYTES;
    uintptr_t end = base + (upto - base + chunk - 1) / chunk * chunk;
    if (end > window_end(s))
        end = window_end(s);
    for (uintptr_t p = atomic_load(&s->populated); p < end; p = atomic_load(&s->populated)) {
        size_t n = end - p < IPS2_POPULATE_BYTES ? end - p : IPS2_POPULATE_BYTES;
        madvise((void *)p, n, MADV_POPULATE_WRITE);
        atomic_store(&s->populated, p + n);
    }
    atomic_store(&s->populating, 0);
}

static void header_fill(struct ips2_file_header *h, unsigned kind, pid_t tid)
{
    ips2_header_init(h, IPS2_ENC_RAW, kind);
    h->cpu_method = (uint8_t)ips2_proc.cpu_method;
    h->cpu_param = ips2_proc.cpu_param;
    h->timer = ips2_proc.timer;
    h->features = 0; /* PROC_EVENTS is set at the first procedure event */
    h->pid = (uint32_t)ips2_proc.pid;
    h->tid = (uint32_t)tid;
    h->ppid = (uint32_t)ips2_proc.ppid;
    h->image = ips2_proc.image;
    h->tsc_hz = ips2_proc.tsc_hz;
    h->ref_tsc = ips2_proc.ref_tsc;
    h->ref_mono_ns = ips2_proc.ref_mono_ns;
    h->ref_real_ns = ips2_proc.ref_real_ns;
    h->state = IPS2_STATE_OPEN;
    h->sync_records = ips2_proc.sync_records;
    memcpy(h->cost_ns, ips2_proc.cost_ns, sizeof(h->cost_ns));
    memcpy(h->host, ips2_proc.host, sizeof(h->host));
    memcpy(h->app, ips2_proc.app, sizeof(h->app));
    memcpy(h->exe, ips2_proc.exe, sizeof(h->exe));
}

/* Moves a runtime descriptor out of the way, near the top of the process's
 * limit: a program's first open() still gets 3, and a daemon that closes
 * 3..N or dup2()s onto low numbers does not hit the trace files. */
static int move_high(int fd)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur < 256)
        return fd;
    int high = fcntl(fd, F_DUPFD_CLOEXEC, (int)(rl.rlim_cur - 64));
    if (high < 0)
        return fd;
    close(fd);
    return high;
}

/* Creates the file at path (exclusively) with its header and first window.
 * The file is made unnamed (O_TMPFILE) and linked to its name once the
 * header is in it, so that a process killed meanwhile leaves no empty or
 * headless stream behind; file systems without O_TMPFILE get it by name. */
static int stream_create(struct ips2_stream *s, const char *path, unsigned kind, pid_t tid)
{
    static char page[IPS2_RAW_HEADER_SIZE];
    struct ips2_file_header h;
    char self[64];
    int named = 0;

    s->fd = open(ips2_proc.dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
    if (s->fd < 0) {
        named = 1;
        s->fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (s->fd < 0)
            return -1;
    }
    s->fd = move_high(s->fd);
    header_fill(&h, kind, tid);
    snprintf(self, sizeof(self), "/proc/self/fd/%d", s->fd);
    if (pwrite(s->fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
        pwrite(s->fd, page, sizeof(page) - sizeof(h), sizeof(h)) !=
            (ssize_t)(sizeof(page) - sizeof(h)) ||
        (ips2_proc.cost_ext.size && pwrite(s->fd, &ips2_proc.cost_ext, sizeof(ips2_proc.cost_ext),
                                           sizeof(h)) != (ssize_t)sizeof(ips2_proc.cost_ext)) ||
        window_map(s, IPS2_RAW_HEADER_SIZE) < 0 ||
        (!named && linkat(AT_FDCWD, self, AT_FDCWD, path, AT_SYMLINK_FOLLOW) != 0)) {
        int saved_errno = errno; /* EEXIST sends the caller to the next name */
        if (s->window)
            munmap(s->window, IPS2_WINDOW_BYTES);
        s->window = NULL;
        close(s->fd);
        if (named)
            unlink(path);
        s->fd = -1;
        errno = saved_errno;
        return -1;
    }
    return 0;
}

/* Ends a stream: its exact length in the header, the file cut to it. */
static void stream_finish(struct ips2_stream *s, uintptr_t cur, int truncate)
{
    uint64_t data = (uint64_t)(stream_offset(s, cur) - IPS2_RAW_HEADER_SIZE);
    uint32_t state = IPS2_STATE_CLOSED;

    pwrite(s->fd, &data, sizeof(data), offsetof(struct ips2_file_header, data_bytes));
    pwrite(s->fd, &state, sizeof(state), offsetof(struct ips2_file_header, state));
    if (truncate) {
        if (!s->pinned)
            munmap(s->window, IPS2_WINDOW_BYTES);
        s->window = NULL;
        if (ftruncate(s->fd, IPS2_RAW_HEADER_SIZE + (off_t)data) != 0)
            (void)0; /* the reader stops at data_bytes anyway */
        close(s->fd);
        s->fd = -1;
    }
}

/* Adds a feature bit to a stream's header (rare: the first procedure
 * event, lost records). */
static void set_feature(struct ips2_stream *s, uint64_t bit)
{
    uint64_t features = 0;
    off_t at = offsetof(struct ips2_file_header, features);

    if (pread(s->fd, &features, sizeof(features), at) == (ssize_t)sizeof(features)) {
        features |= bit;
        pwrite(s->fd, &features, sizeof(features), at);
    }
}

/* One more event dropped by t: counted in place by its LOST record once
 * it has one, else reported by the next LOST record written. */
static void count_lost(struct ips2_thread *t)
{
    if (t->lost_word)
        __atomic_fetch_add(t->lost_word, 1ull << 16, __ATOMIC_RELAXED); /* payload += 1 */
    else
        t->lost++;
}

/* t's stream can grow no more (err says why): it ends with a LOST record
 * at `at`, in the room the window kept for it, which counts every event
 * the thread drops from now on. */
static void stream_cut(struct ips2_thread *t, uintptr_t at, int err)
{
    struct ips2_stream *s = t->stream;
    uint64_t why = (uint64_t)err;

    ips2_record_put((uint64_t *)at, IPS2_EV_LOST, ips2_timer_now(), 0, 0, t->lost, &why, 1);
    t->lost = 0;
    t->cur = at + LOST_TAIL_BYTES;
    t->lost_word = (uint64_t *)at;
    t->lost_errno = err;
    s->pinned = 1;
    set_feature(s, IPS2_FEAT_TRUNCATED);
    t->state = IPS2_THREAD_DONE;
}

/* What the writer spends mapping and populating its pages, timed where it
 * is spent (a chunk of IPS2_POPULATE_BYTES at a time, a window at a time):
 * the stream's end calibration block turns it into a cost per byte of
 * record (calibrate.c), which no start-up measurement can know, as it
 * depends on the file system and the machine's load during the run. */
struct page_timing {
    uint64_t timer, cpu;
};

static uint64_t cpu_exact_ns(void) /* a tick clock's readings would be truncated */
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct page_timing page_begin(void)
{
    return (struct page_timing){ips2_timer_now(), cpu_exact_ns()};
}

static void page_end(struct ips2_thread *t, struct page_timing pt)
{
    uint64_t cpu = cpu_exact_ns();

    t->page_ticks += ips2_timer_now() - pt.timer;
    t->page_cpu_ns += cpu > pt.cpu ? cpu - pt.cpu : 0;
}

/* Reserves room for `bytes` at t->cur, moving to the next window if need be. */
static uint64_t *reserve(struct ips2_thread *t, size_t bytes)
{
    struct ips2_stream *s = t->stream;

    if (t->cur + bytes > window_room_end(s)) {
        uintptr_t at = t->cur;
        size_t rest = window_end(s) - at;
        uint64_t *pad = (uint64_t *)at;
        *pad = IPS2_RAW_WORD0(IPS2_EV_PAD, 0, 0, rest);
        struct page_timing pt = page_begin();
        int mapped = window_map(s, s->window_offset + IPS2_WINDOW_BYTES);
        page_end(t, pt);
        if (mapped < 0) {
            stream_cut(t, at, errno);
            return NULL;
        }
        t->cur = (uintptr_t)s->window;
        if (t->sync_limit)
            t->sync_limit = t->cur;
        t->calls_gen++; /* the previous window's CALLS records are unmapped */
    }
    if (s->owner != NULL) {
        uintptr_t populated = atomic_load(&s->populated);
        if (t->cur + bytes > populated) {
            struct page_timing pt = page_begin();
            ips2_stream_populate(s, t->cur + bytes, 1);
            page_end(t, pt);
        } else if (populated - t->cur < IPS2_PREFAULT_AHEAD && populated < window_end(s)) {
            atomic_store(&s->wanted, t->cur + 2 * IPS2_PREFAULT_AHEAD);
            ips2_prefault_wake();
        }
    }
    uint64_t *p = (uint64_t *)t->cur;
    t->cur += bytes;
    return p;
}

/* Appends a record; returns where it went, or NULL if it was lost. */
static uint64_t *put(struct ips2_thread *t, unsigned kind, uint64_t timer, int has_cpu,
                     uint64_t cpu, uint64_t payload, const uint64_t *extra, unsigned nextra)
{
    uint64_t *p = reserve(t, 8 * ips2_record_words(has_cpu ? 1 : 0, nextra));
    if (p == NULL) {
        count_lost(t);
        return NULL;
    }
    ips2_record_put(p, kind, timer, has_cpu, cpu, payload, extra, nextra);
    return p;
}

/* Tries at a sync point to read the clock with the timer on both sides
 * at most this far apart (us); a thread preempted between the two readings
 * would otherwise shift every wall time up to its next sync point. */
#define SYNC_BRACKET_US    2
#define SYNC_BRACKET_TRIES 4

static void set_limit(struct ips2_thread *t);

/* The counts of counted-only procedures that moved, as CALLS records. */
static void calls_feature(struct ips2_thread *t)
{
    if (!t->stream->calls) {
        t->stream->calls = 1;
        set_feature(t->stream, IPS2_FEAT_CALLS);
    }
}

/* The counts of counted-only procedures not yet in a CALLS record (those
 * the hooks could not write), as CALLS records. */
static void put_counts(struct ips2_thread *t, uint64_t timer)
{
    uint64_t addr, calls;

    while (ips2_filter_take(&addr, &calls)) {
        calls_feature(t);
        put(t, IPS2_EV_CALLS, timer, 0, 0, addr & IPS2_PAYLOAD_MASK, &calls, 1);
    }
}

void ips2_thread_flush_counts(struct ips2_thread *t)
{
    if (!ips2_filtering || t->state != IPS2_THREAD_TRACING || t->busy)
        return;
    t->busy = 1;
    t->limit = 0;
    put_counts(t, ips2_timer_now());
    set_limit(t);
    t->busy = 0;
}

static void sync_point(struct ips2_thread *t)
{
    uint64_t cpu = ips2_thread_cpu_ns();
    uint64_t bound = ips2_proc.tsc_hz / (1000000 / SYNC_BRACKET_US);
    uint64_t before, after, mono;
    int tries = 0;

    do {
        before = ips2_timer_now();
        mono = ips2_mono_ns();
        after = ips2_timer_now();
    } while (after - before > bound && ++tries < SYNC_BRACKET_TRIES);
    uint64_t timer = before + (after - before) / 2;

    uint64_t words[2] = {mono, t->counted}; /* FORMAT.md section 5: sync */
    put(t, IPS2_EV_SYNC, timer, 1, cpu, 0, words, 2);
    t->last_sync = timer;
    if (timer - t->calls_at >= ips2_proc.tsc_hz / 10) {
        /* counts go to new CALLS records at the first sync point 100 ms
         * after the last ones began, so that a count's time is known
         * within about the sample interval: not at every sync point, as
         * the new records would fall inside the callers of counted
         * procedures and keep them from being counted in turn */
        t->calls_gen++;
        t->calls_at = timer;
    }
    if (ips2_filtering)
        put_counts(t, timer);
    if (t == &ips2_self && ips2_proc.cpu_method == IPS2_CPU_INTERP)
        ips2_sample_probes(t); /* the hooks as the program runs them */
    if (ips2_proc.sync_records)
        t->sync_limit = t->cur + 8u * ips2_proc.sync_records;
}

/* Where the hot path may append without asking: interp only. */
static void set_limit(struct ips2_thread *t)
{
    if (t->state != IPS2_THREAD_TRACING || ips2_proc.cpu_method != IPS2_CPU_INTERP) {
        t->limit = 0;
        return;
    }
    uintptr_t end = atomic_load(&t->stream->populated);
    if (end > window_room_end(t->stream))
        end = window_room_end(t->stream);
    t->limit = t->sync_limit && t->sync_limit < end ? t->sync_limit : end;
}

static uint64_t *write_event(struct ips2_thread *t, unsigned kind, uint64_t payload,
                             const uint64_t *extra, unsigned nextra, unsigned flags)
{
    uint64_t now = ips2_timer_now(), cpu = 0;
    int has_cpu = 0;

    if (now - t->last_sync >= ips2_proc.sync_ticks || (t->sync_limit && t->cur >= t->sync_limit)) {
        sync_point(t);
        now = ips2_timer_now();
    }
    if (t->lost) {
        uint64_t lost = t->lost;
        t->lost = 0;
        put(t, IPS2_EV_LOST, now, 0, 0, lost, NULL, 0);
    }
    if (ips2_proc.cpu_method != IPS2_CPU_INTERP || (flags & IPS2_CPU_READ)) {
        has_cpu = 1;
        cpu = ips2_thread_cpu_ns();
    }
    if (kind == IPS2_EV_CALLS)
        calls_feature(t);
    if (kind == IPS2_EV_LOCK_COUNTED && !t->stream->lock_counts) {
        t->stream->lock_counts = 1;
        set_feature(t->stream, IPS2_FEAT_LOCK_COUNTS);
    }
    if (ips2_lock_kind(kind) && !t->short_locks) {
        set_feature(t->stream, IPS2_FEAT_SHORT_LOCKS); /* before the first short lock record */
        t->short_locks = 1;
    }
    uint64_t *at = put(t, kind, now, has_cpu, cpu, payload, extra, nextra);
    if (kind == IPS2_EV_ENTER || kind == IPS2_EV_EXIT) {
        t->addr_base = IPS2_SHORT_BASE(payload);
        if (!t->stream->proc_events) {
            t->stream->proc_events = 1;
            set_feature(t->stream, IPS2_FEAT_PROC_EVENTS);
        }
    }
    return at;
}

/* The slow path of every event; returns where its record went (NULL if it
 * was not written). */
static uint64_t *emit(struct ips2_thread *t, unsigned kind, uint64_t payload, const uint64_t *extra,
                      unsigned nextra, unsigned flags)
{
    int saved_errno = errno;
    uint64_t *at = NULL;

    if (t->busy) {
        t->lost++;
        errno = saved_errno;
        return NULL;
    }
    t->busy = 1;
    t->limit = 0; /* nested events from signal handlers come here and are counted */
    t->held_at = 0;
    if (ips2_lock_kind(kind)) /* written here or lost: the fast path binds it again */
        t->lock_slot[IPS2_LOCK_SLOT(payload & IPS2_PAYLOAD_MASK)].key = 0;
    if (t->state == IPS2_THREAD_NEW && ips2_proc.initialized)
        ips2_thread_open(t);
    if (unlikely(t->modules_changed)) {
        t->modules_changed = 0;
        ips2_record_modules();
    }
    if (t->state == IPS2_THREAD_TRACING)
        at = write_event(t, kind, payload, extra, nextra, flags);
    else if (t->lost_errno)
        count_lost(t);
    set_limit(t);
    t->busy = 0;
    errno = saved_errno;
    return at;
}

void ips2_emit_slow(struct ips2_thread *t, unsigned kind, uint64_t payload, const uint64_t *extra,
                    unsigned nextra, unsigned flags)
{
    emit(t, kind, payload, extra, nextra, flags);
}

uint64_t *ips2_emit_calls(struct ips2_thread *t, uint64_t addr, uint64_t n)
{
    uint64_t *at = emit(t, IPS2_EV_CALLS, addr & IPS2_PAYLOAD_MASK, &n, 1, IPS2_CPU_DERIVED);

    return at == NULL ? NULL : at + 2 + ((at[0] >> 7) & 1); /* after the timer and CPU words */
}

uint64_t *ips2_emit_lock_counted(struct ips2_thread *t, uint64_t key)
{
    uint64_t n[2] = {1, 0};
    uint64_t *at = emit(t, IPS2_EV_LOCK_COUNTED, key & IPS2_PAYLOAD_MASK, n, 2, IPS2_CPU_DERIVED);

    return at == NULL ? NULL : at + 2 + ((at[0] >> 7) & 1);
}

void ips2_emit_placed(unsigned kind, uint64_t payload, const uint64_t *extra, unsigned nextra,
                      struct ips2_placed *where)
{
    struct ips2_thread *t = &ips2_self;
    uint64_t *at = emit(t, kind, payload, extra, nextra, IPS2_CPU_DERIVED);

    where->fd = -1;
    if (at != NULL && t->stream != NULL) {
        where->fd = t->stream->fd;
        where->offset = stream_offset(t->stream, (uintptr_t)at);
        where->word0 = *at;
    }
}

uint64_t ips2_emit_begin(unsigned kind, uint64_t payload, uint64_t *extra, unsigned nextra,
                         unsigned start_word, struct ips2_begun *b)
{
    struct ips2_thread *t = &ips2_self;
    uint64_t now = ips2_timer_now();
    size_t bytes = 8 * ips2_record_words(0, nextra);
    uintptr_t p = t->cur;
    uint64_t *at;

    extra[start_word] = now;
    if (likely(p + bytes <= t->limit && now - t->last_sync < ips2_proc.hot_ticks)) {
        t->cur = p + bytes;
        ips2_compiler_barrier();
        ips2_record_put((uint64_t *)p, kind, now, 0, 0, payload, extra, nextra);
        at = (uint64_t *)p;
    } else {
        at = emit(t, kind, payload, extra, nextra, IPS2_CPU_DERIVED);
    }
    b->at = NULL;
    if (at == NULL || t->stream == NULL)
        return now;
    b->at = at;
    b->window = t->stream->window;
    b->offset = stream_offset(t->stream, (uintptr_t)at);
    b->word0 = at[0];
    b->fd = t->stream->fd;
    if (at[1] != now) /* the slow path took its own time (after a sync point) */
        at[2 + IPS2_RAW_HAS_CPU(at[0]) + start_word] = at[1];
    return at[1];
}

/* A sync point after a call that may have blocked: the exact CPU reading
 * that a record of the call's end would have carried. */
static void cpu_reading(struct ips2_thread *t)
{
    int saved_errno = errno;

    if (t->busy || t->state != IPS2_THREAD_TRACING)
        return;
    t->busy = 1;
    t->limit = 0;
    sync_point(t);
    set_limit(t);
    t->busy = 0;
    errno = saved_errno;
}

/* At one counted call in IPS2_COUNT_SYNC_EVERY (filter.c): a sync point
 * now, as the records of traced calls would have brought one.  Its exact
 * CPU reading keeps the interpolated clock as close as a traced run's
 * (the caller of counted calls writes few records, and a preemption
 * between two far readings would be spread over its calls), and its
 * running count places the counted calls' cost within so many of them
 * (slave/compensate.c); at one in IPS2_COUNT_SAMPLE_EVERY, a sample of
 * what they cost.  The sync point in interp only: the other methods read
 * the CPU clock at every record. */
void ips2_counted_sync(struct ips2_thread *t)
{
    if (t->busy || t->state != IPS2_THREAD_TRACING || t != &ips2_self)
        return;
    if ((t->counted & (IPS2_COUNT_SAMPLE_EVERY - 1)) == 0) {
        int saved_errno = errno;
        ips2_sample_counts(t);
        errno = saved_errno;
    }
    if (ips2_proc.cpu_method == IPS2_CPU_INTERP)
        cpu_reading(t);
}

/* Whether the begun record is still in the thread's mapped window. */
static int begun_mapped(const struct ips2_thread *t, const struct ips2_begun *b)
{
    const struct ips2_stream *s = t->stream;

    return s != NULL && s->fd == b->fd && s->window == b->window &&
           stream_offset(s, (uintptr_t)b->at) == b->offset;
}

void ips2_emit_cancel(const struct ips2_begun *b)
{
    uint64_t pad = IPS2_RAW_WORD0(IPS2_EV_PAD, 0, 0, 8 * (2 + (uint64_t)IPS2_RAW_NEXTRA(b->word0)));
    int saved_errno = errno;

    if (b->at == NULL)
        return;
    if (begun_mapped(&ips2_self, b))
        b->at[0] = pad;
    else if (pwrite(b->fd, &pad, sizeof(pad), b->offset) < 0)
        (void)0; /* the record stays pending */
    errno = saved_errno;
}

void ips2_emit_complete(const struct ips2_begun *b, const uint64_t *extra, unsigned nextra,
                        unsigned flags)
{
    struct ips2_thread *t = &ips2_self;
    unsigned has_cpu = IPS2_RAW_HAS_CPU(b->word0);

    if (b->at == NULL)
        return;
    if (begun_mapped(t, b)) {
        uint64_t *x = b->at + 2 + has_cpu;
        for (unsigned i = 0; i < nextra; i++)
            x[i] = extra[i];
        if ((uintptr_t)(x + nextra) == t->cur) { /* the stream's last record: now ends it */
            ips2_compiler_barrier();
            if (has_cpu) {
                b->at[2] = ips2_thread_cpu_ns();
                flags &= ~(unsigned)IPS2_CPU_READ;
            }
            b->at[1] = ips2_timer_now();
        }
    } else {
        int saved_errno = errno;
        off_t at = b->offset + 8 * (off_t)(2 + has_cpu);
        if (pwrite(b->fd, extra, 8 * (size_t)nextra, at) < 0)
            (void)0; /* the record keeps what it said when the call began */
        errno = saved_errno;
    }
    if (flags & IPS2_CPU_READ)
        cpu_reading(t);
}

static void placed_write(const struct ips2_placed *where, unsigned word, uint64_t value)
{
    int saved_errno = errno;

    if (where->fd >= 0 &&
        pwrite(where->fd, &value, sizeof(value), where->offset + 8 * (off_t)word) < 0)
        (void)0; /* the record keeps what it said */
    errno = saved_errno;
}

void ips2_placed_patch(const struct ips2_placed *where, unsigned i, uint64_t value)
{
    placed_write(where, 2 + IPS2_RAW_HAS_CPU(where->word0) + i, value);
}

void ips2_placed_payload(const struct ips2_placed *where, uint64_t payload)
{
    uint64_t w = where->word0;

    placed_write(where, 0,
                 IPS2_RAW_WORD0(IPS2_RAW_KIND(w), IPS2_RAW_HAS_CPU(w), IPS2_RAW_NEXTRA(w),
                                payload & IPS2_PAYLOAD_MASK));
}

/* Readers skip a PAD record's payload bytes, wherever it stands. */
void ips2_placed_erase(const struct ips2_placed *where)
{
    uint64_t bytes = 8 * (2 + (uint64_t)IPS2_RAW_NEXTRA(where->word0));

    placed_write(where, 0, IPS2_RAW_WORD0(IPS2_EV_PAD, 0, 0, bytes));
}

/* A lock record that is not one word (see ips2_emit_acquired): the first
 * of a stream goes through the slow path, which sets the header's
 * SHORT_LOCKS bit; the next ones bind their slots when appended. */
void ips2_emit_lock_long(struct ips2_thread *t, unsigned kind, uint64_t key, uint64_t seq)
{
    if (unlikely(!t->short_locks))
        ips2_emit_slow(t, kind, key, &seq, 1, IPS2_CPU_DERIVED);
    else
        ips2_emit(kind, key, &seq, 1, IPS2_CPU_DERIVED);
}

void ips2_emit_string(struct ips2_thread *t, unsigned kind, uint64_t payload, const uint64_t *pre,
                      unsigned npre, const char *s)
{
    uint64_t words[IPS2_RAW_MAX_EXTRA - 1];
    unsigned max = (unsigned)(sizeof(words) / sizeof(words[0]));

    if (npre > 0)
        memcpy(words, pre, npre * sizeof(uint64_t));
    unsigned n = ips2_string_words(words + npre, max - npre, s);
    ips2_emit_slow(t, kind, payload, words, npre + n, IPS2_CPU_READ);
}

/* <pid>.<image>.<tid>[.<k>].raw for a thread, <pid>.<k>.proc.raw for the
 * process stream of image k. */
static void stream_path(char *buf, size_t size, unsigned kind, pid_t tid, unsigned k)
{
    const char *dir = ips2_proc.dir;
    int pid = (int)ips2_proc.pid;

    if (kind == IPS2_STREAM_PROCESS)
        snprintf(buf, size, "%s/%d.%u.proc.raw", dir, pid, k);
    else if (k == 0)
        snprintf(buf, size, "%s/%d.%u.%d.raw", dir, pid, ips2_proc.image, (int)tid);
    else
        snprintf(buf, size, "%s/%d.%u.%d.%u.raw", dir, pid, ips2_proc.image, (int)tid, k);
}

/* Creates a stream file under the first name not taken, counting *k up
 * from 0 (a thread's suffix, or the process image number). */
static struct ips2_stream *stream_new(unsigned kind, pid_t tid, unsigned *k)
{
    char path[PATH_MAX + 64];
    struct ips2_stream *s = calloc(1, sizeof(*s));

    if (s == NULL)
        return NULL;
    s->tid = tid;
    for (*k = 0; *k < 1000; (*k)++) {
        stream_path(path, sizeof(path), kind, tid, *k);
        if (stream_create(s, path, kind, tid) == 0)
            return s;
        if (errno != EEXIST)
            break;
    }
    int saved_errno = errno; /* why, for the caller */
    free(s);
    errno = saved_errno;
    return NULL;
}

/* A LOST record in the process stream, counted on in place (the stream is
 * pinned); NULL if the process stream has no room either. */
uint64_t *ips2_process_stream_lost(uint64_t lost, const uint64_t *extra, unsigned nextra)
{
    struct ips2_thread *w = &ips2_proc.proc_writer;
    uint64_t *p = NULL;

    if (ips2_proc.proc_stream == NULL)
        return NULL;
    ips2_lock(&ips2_proc.lock);
    if (w->state == IPS2_THREAD_TRACING) {
        p = reserve(w, 8 * ips2_record_words(0, nextra));
        if (p != NULL) {
            ips2_record_put(p, IPS2_EV_LOST, ips2_timer_now(), 0, 0, lost, extra, nextra);
            ips2_proc.proc_stream->pinned = 1;
        } else {
            count_lost(w);
        }
    }
    ips2_unlock(&ips2_proc.lock);
    return p;
}

int ips2_thread_open(struct ips2_thread *t)
{
    unsigned k;
    pid_t tid = gettid();
    struct ips2_stream *s = stream_new(IPS2_STREAM_THREAD, tid, &k);

    t->state = IPS2_THREAD_DONE;
    if (s == NULL) {
        int err = errno ? errno : EIO;
        uint64_t x[2] = {(uint64_t)err, (uint64_t)tid};
        t->lost_errno = err;
        t->lost_word = ips2_process_stream_lost(t->lost, x, 2);
        if (t->lost_word)
            t->lost = 0;
        return -1;
    }
    s->owner = t;
    ips2_lock(&ips2_proc.lock);
    s->next = ips2_proc.streams;
    ips2_proc.streams = s;
    ips2_unlock(&ips2_proc.lock);

    t->stream = s;
    t->cur = (uintptr_t)s->window;
    t->sync_limit = 0;
    t->addr_base = 0;
    t->page_ticks = t->page_cpu_ns = 0; /* a forked child's thread starts its own */
    t->sample_ticks = 0;
    t->sample_pairs = 0;
    t->sample_turn = 0;
    t->counted = 0;
    t->count_n = 0;
    t->count_over = 0;
    t->short_locks = 0;
    memset(t->lock_slot, 0, sizeof(t->lock_slot));
    t->held_at = 0;
    t->state = IPS2_THREAD_TRACING;
    t->calls_gen++;
    ips2_threads_watch(t);
    sync_point(t);
    return 0;
}

static void unlink_stream(struct ips2_stream *s)
{
    for (struct ips2_stream **pp = &ips2_proc.streams; *pp; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            return;
        }
    }
}

void ips2_thread_close(struct ips2_thread *t)
{
    struct ips2_stream *s = t->stream;

    if (s == NULL) /* never opened, or closed already */
        return;
    ips2_quiet_begin();
    ips2_thread_flush_counts(t);
    { /* the probes' cost again, now, and the pages' as this writer paid them (calibrate.c) */
        struct ips2_cost_ext end;
        uint64_t bytes = (uint64_t)stream_offset(s, t->cur) - IPS2_RAW_HEADER_SIZE;
        ips2_measure_costs_end(&end, t, bytes);
        if (end.size)
            pwrite(s->fd, &end, sizeof(end), IPS2_COST_END_OFFSET);
    }
    t->state = IPS2_THREAD_DONE;
    t->calls_gen++; /* the window goes */
    t->limit = 0;
    t->lost_word = NULL; /* a cut stream's LOST record ends with it */
    t->lost_errno = 0;
    ips2_lock(&ips2_proc.lock);
    unlink_stream(s);
    ips2_unlock(&ips2_proc.lock);
    stream_finish(s, t->cur, 1);
    free(s);
    t->stream = NULL;
    t->cur = 0;
    ips2_quiet_end();
}

int ips2_process_stream_open(void)
{
    struct ips2_stream *s = stream_new(IPS2_STREAM_PROCESS, 0, &ips2_proc.image);

    if (s == NULL)
        return -1;
    ips2_proc.proc_stream = s;
    memset(&ips2_proc.proc_writer, 0, sizeof(ips2_proc.proc_writer));
    ips2_proc.proc_writer.stream = s;
    ips2_proc.proc_writer.cur = (uintptr_t)s->window;
    ips2_proc.proc_writer.state = IPS2_THREAD_TRACING;
    return 0;
}

/* Module map and other process-wide events.  With wait == 0 (in a signal
 * handler) it gives up rather than wait for the lock. */
void ips2_process_stream_emit(unsigned kind, uint64_t payload, const uint64_t *extra,
                              unsigned nextra, int wait)
{
    struct ips2_thread *w = &ips2_proc.proc_writer;

    if (ips2_proc.proc_stream == NULL)
        return;
    if (!wait && ips2_trylock(&ips2_proc.lock))
        return;
    if (wait)
        ips2_lock(&ips2_proc.lock);
    if (w->state == IPS2_THREAD_TRACING)
        put(w, kind, ips2_timer_now(), 0, 0, payload, extra, nextra);
    ips2_unlock(&ips2_proc.lock);
}

/* Seals every stream at the length it has now, without unmapping or
 * cutting anything: safe in a signal handler, before exec and in _exit. */
void ips2_streams_seal(void)
{
    ips2_quiet_begin();
    if (ips2_trylock(&ips2_proc.lock) == 0) {
        for (struct ips2_stream *s = ips2_proc.streams; s; s = s->next)
            stream_finish(s, __atomic_load_n(&s->owner->cur, __ATOMIC_RELAXED), 0);
        if (ips2_proc.proc_stream)
            stream_finish(ips2_proc.proc_stream, ips2_proc.proc_writer.cur, 0);
        ips2_unlock(&ips2_proc.lock);
    }
    ips2_quiet_end();
}

/* Undoes ips2_streams_seal (after an exec that failed). */
void ips2_streams_unseal(void)
{
    uint64_t data = 0;
    uint32_t state = IPS2_STATE_OPEN;

    ips2_quiet_begin();
    ips2_lock(&ips2_proc.lock);
    for (struct ips2_stream *s = ips2_proc.streams; s; s = s->next) {
        pwrite(s->fd, &data, sizeof(data), offsetof(struct ips2_file_header, data_bytes));
        pwrite(s->fd, &state, sizeof(state), offsetof(struct ips2_file_header, state));
    }
    if (ips2_proc.proc_stream) {
        int fd = ips2_proc.proc_stream->fd;
        pwrite(fd, &data, sizeof(data), offsetof(struct ips2_file_header, data_bytes));
        pwrite(fd, &state, sizeof(state), offsetof(struct ips2_file_header, state));
    }
    ips2_unlock(&ips2_proc.lock);
    ips2_quiet_end();
}

/* At a normal process end: the calling thread's stream and the process
 * stream are finished and cut; other threads may still be running, so
 * their streams are sealed at the length they have now and stay mapped. */
void ips2_streams_close_all(void)
{
    ips2_quiet_begin();
    ips2_thread_close(&ips2_self);
    ips2_streams_seal();
    ips2_lock(&ips2_proc.lock);
    if (ips2_proc.proc_stream) {
        stream_finish(ips2_proc.proc_stream, ips2_proc.proc_writer.cur, 1);
        free(ips2_proc.proc_stream);
        ips2_proc.proc_stream = NULL;
        ips2_proc.proc_writer.state = IPS2_THREAD_DONE;
    }
    ips2_unlock(&ips2_proc.lock);
    ips2_quiet_end();
}

/* Populates every thread stream up to what its writer asked for; the
 * prefaulter's work.  The registry lock keeps the streams alive. */
void ips2_streams_populate_wanted(void)
{
    ips2_lock(&ips2_proc.lock);
    for (struct ips2_stream *s = ips2_proc.streams; s; s = s->next)
        if (atomic_load(&s->wanted) > atomic_load(&s->populated))
            ips2_stream_populate(s, atomic_load(&s->wanted), 0);
    ips2_unlock(&ips2_proc.lock);
}

/* In a forked child: the inherited streams are the parent's; let go of
 * them without touching the files. */
void ips2_streams_forget(void)
{
    struct ips2_stream *s = ips2_proc.streams, *next;

    ips2_quiet_begin(); /* runtime work: wrappers pass it through; the memset below ends it */
    for (; s; s = next) {
        next = s->next;
        munmap(s->window, IPS2_WINDOW_BYTES);
        close(s->fd);
        free(s);
    }
    ips2_proc.streams = NULL;
    if (ips2_proc.proc_stream) {
        munmap(ips2_proc.proc_stream->window, IPS2_WINDOW_BYTES);
        close(ips2_proc.proc_stream->fd);
        free(ips2_proc.proc_stream);
        ips2_proc.proc_stream = NULL;
    }
    memset(&ips2_self, 0, sizeof(ips2_self));
}
