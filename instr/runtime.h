/*
 * runtime.h - private declarations shared by the parts of libips2.
 *
 * libips2 keeps one stream per thread, written through a file-backed shared
 * mapping so that a killed process loses nothing it recorded.  The hot path
 * (profile.c) appends fixed two-word records to the calling thread's window
 * and leaves everything else - opening the stream, switching windows, sync
 * points with exact CPU readings, lost records - to ips2_emit_slow().
 *
 * Global state lives in one struct ips2_process, set up by the constructor
 * (process.c) before main and again in a forked child.  After start-up the
 * threads only read it, except for the stream registry, which a mutex guards.
 */
#ifndef IPS2_RUNTIME_H
#define IPS2_RUNTIME_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "ips2_format.h"
#include "ips2_record.h"

#define IPS2_EXPORT __attribute__((visibility("default")))
#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* Window of a stream mapped at once; records never straddle two windows.
 * Thread streams prefault it IPS2_POPULATE_BYTES at a time. */
#define IPS2_WINDOW_BYTES   (2u << 20)
#define IPS2_POPULATE_BYTES (128u << 10)
#define IPS2_PREFAULT_AHEAD (512u << 10) /* ask the prefaulter when closer */

/* One open stream file. */
struct ips2_stream {
    int fd;
    uint64_t *window;            /* mapped window, IPS2_WINDOW_BYTES */
    off_t window_offset;         /* file offset of the window */
    _Atomic uintptr_t populated; /* window prefaulted up to here */
    _Atomic uintptr_t wanted;    /* the writer would like it up to here */
    atomic_int populating;       /* a thread is populating or remapping it */
    int proc_events;             /* header says procedure events are present */
    int calls;                   /* header says CALLS records may be present */
    int lock_counts;             /* header says LOCK_COUNTED records may be present */
    int pinned;                  /* holds a record counted on in place: never unmapped */
    struct ips2_thread *owner;   /* thread writing it (NULL: process stream) */
    struct ips2_stream *next;    /* registry link */
    pid_t tid;
};

enum ips2_thread_state {
    IPS2_THREAD_NEW = 0, /* no stream yet: the first event opens one */
    IPS2_THREAD_TRACING, /* writing its stream */
    IPS2_THREAD_DONE,    /* exited, or tracing failed: events are dropped */
};

/* A lock object slot of a thread stream (FORMAT.md section 3, short lock
 * records): the key and release seq of the object's latest lock record in
 * the stream, as the reader will see them. */
#define IPS2_LOCK_BOUND (1ull << 63) /* key: the slot is bound (keys are 48 bits) */
struct ips2_lock_slot {
    uint64_t key; /* IPS2_LOCK_BOUND | key, or 0 */
    uint64_t seq;
};

/* Per-thread writer state, in initial-exec TLS. */
#define IPS2_COUNT_KEPT 32 /* samples of a counted call's cost kept (calibrate.c) */

struct ips2_thread {
    uintptr_t cur;        /* next free byte in the window */
    uintptr_t limit;      /* hot path may write below this */
    uint64_t last_sync;   /* timer value of the last sync point */
    uint64_t addr_base;   /* base of short records' address offsets */
    uintptr_t sync_limit; /* forced sync when cur reaches this (interp) */
    int busy;             /* inside the slow path */
    int quiet;            /* runtime work in progress: wrappers pass through */
    int nocancel;         /* depth of the runtime's own locks held (cancellation off) */
    int cancel_state;     /* the program's cancel state, to restore at depth 0 */
    int state;            /* enum ips2_thread_state */
    int exit_recorded;    /* THREAD_EXIT written */
    int modules_changed;  /* dlopen ran: record the module map */
    uint32_t calls_gen;   /* moves when CALLS records in the window stop taking counts */
    uint64_t calls_at;    /* timer value when it last moved at a sync point */
    uint64_t lost;        /* records dropped since the last LOST record */
    int lost_errno;       /* why every event is now dropped (no stream, stream cut), or 0 */
    uint64_t *lost_word;  /* word 0 of the LOST record that counts them, or NULL */
    uint64_t create_seq;  /* pthread_create sequence, 0 for the main thread */
    struct ips2_stream *stream;
    int short_locks;   /* the stream's header says SHORT_LOCKS: slots may be bound */
    uintptr_t held_at; /* a LOCK_ACQUIRED_SHORT that a release may make a hold, or 0 */
    /* Bound only by records written here (the fast paths below), unbound by
     * every lock record that takes the slow path, so that a bound slot
     * always says what the reader's slot will say. */
    struct ips2_lock_slot lock_slot[IPS2_LOCK_SLOTS];
    /* What the run measures of its own cost (calibrate.c, stream.c) */
    uint64_t page_ticks;   /* timer ticks this writer spent mapping and populating pages */
    uint64_t page_cpu_ns;  /* the same by its CPU clock */
    int64_t sample_ticks;  /* the probes' in-situ samples: timer ticks */
    uint64_t sample_pairs; /* ... of this many entry and exit pairs */
    uint32_t sample_turn;  /* sync points since the thread's stream opened */
    uint64_t counted;      /* the thread's counted procedure calls so far (SYNC's counted) */
    uint32_t count_ps[IPS2_COUNT_KEPT]; /* counted calls' samples: ps a call, the latest */
    uint32_t count_n;                   /* ... samples taken */
    uint64_t count_over;                /* ... and the samples' whole time (ticks) */
};

struct ips2_process {
    int initialized;
    pid_t pid, ppid;
    uint32_t image;     /* exec generation of this pid */
    char dir[PATH_MAX]; /* session directory (absolute) */
    char app[IPS2_APP_MAX];
    char host[IPS2_HOST_MAX];
    char exe[IPS2_PATH_MAX];
    unsigned cpu_method;   /* enum ips2_cpu_method */
    unsigned cpu_param;    /* interp: us between syncs; tick: ms */
    uint64_t sync_ticks;   /* timer ticks between sync points */
    uint64_t hot_ticks;    /* hot path: short records up to this delta */
    unsigned sync_records; /* interp: records between forced syncs; else 0 */
    uint64_t tsc_hz;
    unsigned timer;     /* enum ips2_timer */
    unsigned hook_slow; /* the procedure hooks' other path: not the TSC, or a filter */
    uint64_t ref_tsc, ref_mono_ns, ref_real_ns;
    uint32_t cost_ns[IPS2_COST_GROUPS];
    struct ips2_cost_ext cost_ext; /* calibrate.c: each probe's cost */
    int exit_how, exit_status;     /* as recorded by exit()/main return */
    int exit_seen;
    atomic_uint_fast64_t thread_seq;
    pthread_mutex_t lock;        /* guards the registry and the process stream */
    struct ips2_stream *streams; /* registry of open thread streams */
    struct ips2_stream *proc_stream;
    struct ips2_thread proc_writer; /* cursor of the process stream */
};

extern struct ips2_process ips2_proc;
extern __thread struct ips2_thread ips2_self;

/* clock.c */
uint64_t ips2_mono_ns(void);
uint64_t ips2_real_ns(void);
uint64_t ips2_thread_cpu_ns(void); /* as recorded: tick mode truncates */
void ips2_clock_setup(const char *cpuclock_env);

/* calibrate.c */
void ips2_measure_costs(void);
/* At a sync point: samples the procedure probes' cost in situ, into t. */
void ips2_sample_probes(struct ips2_thread *t);
/* Counted calls (filter.c): a sync point at one in IPS2_COUNT_SYNC_EVERY
 * (stream.c), and at one in IPS2_COUNT_SAMPLE_EVERY a sample of what a
 * counted call costs (calibrate.c) */
#define IPS2_COUNT_SYNC_EVERY   4096u
#define IPS2_COUNT_SAMPLE_EVERY 65536u
void ips2_counted_sync(struct ips2_thread *t);
void ips2_sample_counts(struct ips2_thread *t);
/* The end block of t's stream after `bytes` of records: the cheap probes
 * measured again when t is the calling thread, and the pages' cost per
 * byte as t's writer paid it (t->page_ticks, t->page_cpu_ns). */
void ips2_measure_costs_end(struct ips2_cost_ext *c, const struct ips2_thread *t, uint64_t bytes);

/* The wall timer: the TSC where invariant, else CLOCK_MONOTONIC. */
static inline uint64_t ips2_timer_now(void)
{
#if defined(__x86_64__) || defined(__i386__)
    if (likely(ips2_proc.timer == IPS2_TIMER_TSC))
        return __builtin_ia32_rdtsc();
#endif
    return ips2_mono_ns();
}

/* How an event gets its CPU time, beyond what IPS2_CPUCLOCK asks for:
 * IPS2_CPU_READ reads the thread's CPU clock (a system call, ~0.4 us) for
 * events after which the thread may have blocked, or that end a wait;
 * IPS2_CPU_DERIVED leaves it to readers (cheap events that never block). */
enum ips2_emit_flags {
    IPS2_CPU_DERIVED = 0,
    IPS2_CPU_READ = 1,
};

/* stream.c */

/* Where ips2_emit_placed() put a record: its stream's file and offset, so
 * that it can be rewritten once the call it describes has returned,
 * whatever window the thread writes by then. */
struct ips2_placed {
    int fd; /* -1: the record was not written */
    off_t offset;
    uint64_t word0;
};

void ips2_emit_placed(unsigned kind, uint64_t payload, const uint64_t *extra, unsigned nextra,
                      struct ips2_placed *where);
/* Rewrites extra word i; the payload; the whole record into padding. */
void ips2_placed_patch(const struct ips2_placed *where, unsigned i, uint64_t value);
void ips2_placed_payload(const struct ips2_placed *where, uint64_t payload);
void ips2_placed_erase(const struct ips2_placed *where);
/* A record written when a call began (ips2_emit_begin), to be completed
 * when it returns (ips2_emit_complete): in the thread's window while that
 * is still mapped, else in the file. */
struct ips2_begun {
    uint64_t *at; /* NULL: the record was not written */
    uint64_t *window;
    off_t offset; /* the record's file offset */
    uint64_t word0;
    int fd;
};

/* Returns the record's time (the timer now, if it was not written), which
 * also goes into extra word start_word (the call's start). */
uint64_t ips2_emit_begin(unsigned kind, uint64_t payload, uint64_t *extra, unsigned nextra,
                         unsigned start_word, struct ips2_begun *b);
/* Rewrites the begun record's nextra extra words (the same count), then
 * moves its time (and CPU reading) to now if nothing was written after it
 * in the stream; flags IPS2_CPU_READ: an exact CPU reading follows. */
void ips2_emit_complete(const struct ips2_begun *b, const uint64_t *extra, unsigned nextra,
                        unsigned flags);
/* Makes the begun record padding (the call turned out to send nothing). */
void ips2_emit_cancel(const struct ips2_begun *b);
void ips2_emit_slow(struct ips2_thread *t, unsigned kind, uint64_t payload, const uint64_t *extra,
                    unsigned nextra, unsigned flags);
void ips2_emit_string(struct ips2_thread *t, unsigned kind, uint64_t payload, const uint64_t *pre,
                      unsigned npre, const char *s);
int ips2_thread_open(struct ips2_thread *t);
void ips2_thread_close(struct ips2_thread *t);
int ips2_process_stream_open(void);
void ips2_process_stream_emit(unsigned kind, uint64_t payload, const uint64_t *extra,
                              unsigned nextra, int wait);
uint64_t *ips2_process_stream_lost(uint64_t lost, const uint64_t *extra, unsigned nextra);
void ips2_streams_seal(void);
void ips2_streams_unseal(void);
void ips2_streams_close_all(void);
void ips2_streams_forget(void);
void ips2_stream_populate(struct ips2_stream *s, uintptr_t upto, int wait);
void ips2_streams_populate_wanted(void);

/* prefault.c */
void ips2_prefault_wake(void);
void ips2_prefault_forget(void);

/* True when a wrapper must call straight through and record nothing: the
 * runtime is not set up, or the call comes from the runtime's own work (its
 * slow path, start-up, shutdown, fork and exec handling), or from inside a
 * call whose inner traffic is not the program's (PVM's own sockets). */
static inline int ips2_passthrough(void)
{
    return !ips2_proc.initialized || ips2_self.busy || ips2_self.quiet;
}

/* Brackets runtime work so that wrappers pass its calls through. */
static inline void ips2_quiet_begin(void)
{
    ips2_self.quiet++;
}

static inline void ips2_quiet_end(void)
{
    ips2_self.quiet--;
}

/* The runtime's own locks, taken quietly so that the mutex wrappers never
 * record them (ips2_trylock is quiet only while it holds the lock), and
 * with cancellation disabled while held: the system calls in their
 * sections (pwrite, ftruncate, open ...) are cancellation points, and a
 * thread cancelled there would unwind with the lock held. */
static inline void ips2_cancel_off(void)
{
    if (ips2_self.nocancel++ == 0)
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &ips2_self.cancel_state);
}

static inline void ips2_cancel_restore(void)
{
    if (--ips2_self.nocancel == 0)
        pthread_setcancelstate(ips2_self.cancel_state, NULL);
}

static inline void ips2_lock(pthread_mutex_t *m)
{
    ips2_quiet_begin();
    ips2_cancel_off();
    pthread_mutex_lock(m);
}

static inline int ips2_trylock(pthread_mutex_t *m)
{
    ips2_quiet_begin();
    int busy = pthread_mutex_trylock(m);
    if (busy)
        ips2_quiet_end();
    else
        ips2_cancel_off();
    return busy;
}

static inline void ips2_unlock(pthread_mutex_t *m)
{
    pthread_mutex_unlock(m);
    ips2_cancel_restore();
    ips2_quiet_end();
}

static inline int ips2_lock_kind(unsigned kind)
{
    return kind == IPS2_EV_LOCK_ACQUIRED || kind == IPS2_EV_LOCK_RELEASE;
}

/* Records an event of the calling thread.  With IPS2_CPU_DERIVED and room
 * in the window it is a plain append, like a procedure event: no errno, no
 * lock, no system call (wrappers of cheap calls such as an uncontended
 * mutex use it); everything else goes through ips2_emit_slow().  A lock
 * record appended here binds its object's slot (once the stream may hold
 * short lock records). */
static inline void ips2_emit(unsigned kind, uint64_t payload, const uint64_t *extra,
                             unsigned nextra, unsigned flags)
{
    struct ips2_thread *t = &ips2_self;
    uint64_t now = ips2_timer_now();
    size_t bytes = 8 * ips2_record_words(0, nextra);
    uintptr_t p = t->cur;

    if (likely(flags == IPS2_CPU_DERIVED && p + bytes <= t->limit &&
               now - t->last_sync < ips2_proc.hot_ticks)) {
        t->cur = p + bytes;
        ips2_compiler_barrier();
        ips2_record_put((uint64_t *)p, kind, now, 0, 0, payload, extra, nextra);
        if (ips2_lock_kind(kind) && nextra >= 1 && t->short_locks) {
            uint64_t key = payload & IPS2_PAYLOAD_MASK;
            struct ips2_lock_slot *s = &t->lock_slot[IPS2_LOCK_SLOT(key)];
            s->key = IPS2_LOCK_BOUND | key;
            s->seq = extra[0];
        }
        return;
    }
    ips2_emit_slow(t, kind, payload, extra, nextra, flags);
}

/* A procedure record at timer value now: the hot path's one-word record
 * when it fits, else the slow path (profile.c's hooks, filter.c). */
static inline __attribute__((always_inline)) void
ips2_record_proc(unsigned kind, unsigned short_kind, uintptr_t fn, uint64_t now)
{
    struct ips2_thread *t = &ips2_self;
    uint64_t delta = now - t->last_sync;
    uint64_t offset = fn - t->addr_base;
    uintptr_t p = t->cur;

    if (likely(p + 8 <= t->limit && delta < ips2_proc.hot_ticks && offset <= UINT32_MAX)) {
        t->cur = p + 8;
        ips2_compiler_barrier();
        *(uint64_t *)p = IPS2_SHORT_WORD(short_kind, delta, offset);
        return;
    }
    ips2_emit_slow(t, kind, fn, NULL, 0, IPS2_CPU_DERIVED);
}

/* Lock records without a wait (FORMAT.md section 3, short lock records):
 * one word when the object's slot is bound to it and the seq is close to
 * the slot's, appended like a procedure event; a release right after its
 * acquisition's short record, with nothing recorded in between, turns that
 * record into a LOCK_HELD_SHORT in place (one word per hold).  Otherwise
 * ips2_emit_lock_long() writes a long record. */
void ips2_emit_lock_long(struct ips2_thread *t, unsigned kind, uint64_t key, uint64_t seq);

static inline __attribute__((always_inline)) void ips2_emit_acquired(uint64_t key, uint64_t seq)
{
    struct ips2_thread *t = &ips2_self;
    uint64_t delta = ips2_timer_now() - t->last_sync;
    unsigned i = IPS2_LOCK_SLOT(key &= IPS2_PAYLOAD_MASK);
    struct ips2_lock_slot *s = &t->lock_slot[i];
    uint64_t d = seq - s->seq;
    uintptr_t p = t->cur;

    if (likely(p + 8 <= t->limit && delta < ips2_proc.hot_ticks &&
               s->key == (IPS2_LOCK_BOUND | key) && d < (1ull << IPS2_LOCK_SEQ_BITS))) {
        t->cur = p + 8;
        ips2_compiler_barrier();
        *(uint64_t *)p = IPS2_LOCK_WORD(IPS2_EV_LOCK_ACQUIRED_SHORT, delta, i, d);
        s->seq = seq;
        t->held_at = p;
        return;
    }
    ips2_emit_lock_long(t, IPS2_EV_LOCK_ACQUIRED, key, seq);
}

static inline __attribute__((always_inline)) void ips2_emit_release(uint64_t key, uint64_t seq)
{
    struct ips2_thread *t = &ips2_self;
    uint64_t delta = ips2_timer_now() - t->last_sync;
    unsigned i = IPS2_LOCK_SLOT(key &= IPS2_PAYLOAD_MASK);
    struct ips2_lock_slot *s = &t->lock_slot[i];
    uint64_t d = seq - s->seq;
    uintptr_t p = t->cur, h = t->held_at;

    if (likely(p + 8 <= t->limit && delta < ips2_proc.hot_ticks &&
               s->key == (IPS2_LOCK_BOUND | key) && d < (1ull << IPS2_LOCK_SEQ_BITS))) {
        s->seq = seq;
        t->held_at = 0;
        if (likely(h + 8 == p && d == 1)) {
            /* the acquisition of this object's slot is the latest record */
            uint64_t w = *(uint64_t *)h;
            uint64_t hold = delta - IPS2_SHORT_DELTA(w);
            if (likely(IPS2_RAW_KIND(w) == IPS2_EV_LOCK_ACQUIRED_SHORT &&
                       IPS2_LOCK_WORD_SLOT(w) == i &&
                       IPS2_LOCK_WORD_SEQ_DELTA(w) < (1u << IPS2_LOCK_HELD_SEQ_BITS) &&
                       hold < (1u << IPS2_LOCK_HELD_HOLD_BITS))) {
                *(uint64_t *)h =
                    IPS2_LOCK_HELD_WORD(IPS2_SHORT_DELTA(w), i, IPS2_LOCK_WORD_SEQ_DELTA(w), hold);
                return;
            }
        }
        t->cur = p + 8;
        ips2_compiler_barrier();
        *(uint64_t *)p = IPS2_LOCK_WORD(IPS2_EV_LOCK_RELEASE_SHORT, delta, i, d);
        return;
    }
    ips2_emit_lock_long(t, IPS2_EV_LOCK_RELEASE, key, seq);
}

/* process.c */
void ips2_process_end(int how, int status, int in_signal);

/* filter.c: counted-only procedures (IPS2_FILTER).  The hooks ask
 * ips2_filter_enter/exit first while ips2_filtering is set: 1 means the
 * call is counted (or excluded) and writes nothing.  ips2_filter_take
 * hands out the counts that moved since it last did (1) until none (0);
 * stream.c writes them as CALLS records. */
extern int ips2_filtering;
void ips2_filter_setup(const char *path, const char *autocount);
int ips2_filter_enter(uintptr_t fn);
int ips2_filter_exit(uintptr_t fn);
int ips2_filter_take(uint64_t *addr, uint64_t *calls);
void ips2_filter_after_fork(void);
long ips2_filter_sample_begin(uintptr_t traced, uintptr_t counted, uint64_t *scratch);
void ips2_filter_sample_end(long depth, uintptr_t counted);
/* At a thread's end, after its stream closed: lets its table go. */
void ips2_filter_thread_end(void);
/* stream.c: writes the calling thread's moved counts now, if it can. */
void ips2_thread_flush_counts(struct ips2_thread *t);
/* stream.c: appends a CALLS record of addr with count n; returns its
 * count word, which the thread may increment in place while its
 * calls_gen stays the same, or NULL if the record was not written. */
uint64_t *ips2_emit_calls(struct ips2_thread *t, uint64_t addr, uint64_t n);
/* sync_count.c: at a thread's end, after its stream closed: lets its
 * counting slots go. */
void ips2_sync_count_thread_end(void);
/* stream.c: appends a LOCK_COUNTED record of key (acquired 1, released 0);
 * returns its two count words, as ips2_emit_calls does (sync_count.c). */
uint64_t *ips2_emit_lock_counted(struct ips2_thread *t, uint64_t key);

/* modules.c */
void ips2_record_modules(void);
void ips2_modules_forget(void);

/* threads.c */
void ips2_threads_setup(void);
void ips2_threads_forget(void);
void ips2_threads_watch(struct ips2_thread *t);

/* spawn.c */
void ips2_spawn_forget(void);

/* signals.c */
void ips2_signals_install(void);

/* caller_mem.c: the caller's memory, read or written without faulting
 * (0, or -1 if any of it is not accessible); a string as far as it reads,
 * cut to fit buf ("" if unreadable). */
int ips2_caller_read(void *to, const void *from, size_t n);
int ips2_caller_write(void *to, const void *from, size_t n);
const char *ips2_caller_string(char *buf, size_t size, const char *s);

/* The libc definition of a function that libips2 interposes, looked up
 * once per call site. */
void *ips2_real(const char *name);
#define IPS2_REAL(name)                                                                            \
    ({                                                                                             \
        static __typeof__(name) *real_;                                                            \
        if (unlikely(real_ == NULL))                                                               \
            real_ = (__typeof__(name) *)ips2_real(#name);                                          \
        real_;                                                                                     \
    })

#endif /* IPS2_RUNTIME_H */
