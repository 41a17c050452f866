/*
 * sync.h - private declarations of libips2's synchronisation wrappers
 * (instr/sync_*.c): the table of synchronisation objects and the helpers
 * that record their events.
 *
 * Every object the program synchronises on gets an entry in a per-process,
 * lock-free, open-addressing table keyed by its address (sync_objects.c).
 * The entry points at the object's counters: the per-object sequences that
 * let an analyst pair both ends (the release seq of a lock, the signal seq
 * of a condition variable, the arrival count of a barrier, the post and
 * wait counts of a semaphore).  A process-private object keeps them in its
 * entry; a process-shared one keeps them in a slot of the session's shared
 * table (a file in the session directory mapped by every traced process),
 * found by the object's stable identity - the device, inode and offset of
 * the shared mapping that holds it - so that every process names the same
 * object with the same key and counts with the same counters.
 *
 * The recorded path of an uncontended lock is: one hashed probe, one load
 * of the entry's state word, the counter, and one append of a one-word
 * short lock record (ips2_emit_acquired / ips2_emit_release in runtime.h);
 * an unlock right after its lock turns the lock's word into a one-word
 * hold.  A mutex whose holds keep being short and uncontended is counted
 * instead (below): the thread's counting slot, the counter, two counts.
 */
#ifndef IPS2_SYNC_H
#define IPS2_SYNC_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "runtime.h"

/* The per-object sequences.  What each counts depends on the object type:
 *   locks (mutex, rwlock, spin, user lock)  seq: releases
 *   condition variables                     seq: signals and broadcasts
 *   barriers                                seq: arrivals; param: parties
 *   semaphores                              seq: posts; seq2: successful waits;
 *                                           param: initial value */
struct ips2_sync_counters {
    _Atomic uint64_t seq;
    _Atomic uint64_t seq2;
    _Atomic uint64_t param;
};

/* How a wrapper knows whether an object is process-shared. */
enum sync_hint {
    SYNC_PRIVATE = 0, /* the object says it is process-private */
    SYNC_SHARED = 1,  /* it says it is process-shared: look at its mapping */
    SYNC_MAPPING = 2, /* it does not say (spin locks, user objects): look at its
                         mapping the first time, then keep the answer */
};

/* State word of an entry: the counters' address | SYNC_STATE_SHARED |
 * SYNC_STATE_HINT (the hint it was classified under); 0 = not classified. */
#define SYNC_STATE_HINT   1u
#define SYNC_STATE_SHARED 2u
#define SYNC_STATE_PTR    (~(uintptr_t)7)

struct sync_entry {
    _Atomic uintptr_t addr;  /* object address; 0 = free slot */
    _Atomic uintptr_t state; /* see SYNC_STATE_* */
    struct ips2_sync_counters own;
    _Atomic uint32_t type; /* type last announced (SYNC_OBJECT) */
    uint32_t pad[5];       /* one cache line per object: no false sharing */
};

#define SYNC_TABLE_BITS  15
#define SYNC_TABLE_SLOTS (1u << SYNC_TABLE_BITS)
extern struct sync_entry ips2_sync_table[SYNC_TABLE_SLOTS];

/* A resolved object: the key its events carry, and its counters (NULL
 * when the table is full: the object's events then carry seq 0). */
struct sync_ref {
    uint64_t key;
    struct ips2_sync_counters *c;
};

static inline size_t sync_hash(uintptr_t addr)
{
    return (size_t)((addr * 0x9e3779b97f4a7c15ull) >> (64 - SYNC_TABLE_BITS));
}

/* sync_objects.c */
struct sync_entry *ips2_sync_find_slow(uintptr_t addr, size_t slot);
uintptr_t ips2_sync_classify(struct sync_entry *e, const void *obj, unsigned type, unsigned hint);
void ips2_sync_retype(struct sync_entry *e, const void *obj, unsigned type, uintptr_t state);
uint64_t ips2_sync_shared_key(uintptr_t state);
struct sync_ref ips2_sync_refresh(const void *obj, unsigned type, unsigned hint);
void ips2_sync_announce(const void *obj, unsigned type, struct sync_ref ref, const char *name);
pid_t ips2_sync_tid_slow(void);

extern __thread pid_t ips2_sync_tid;

/* The calling thread's kernel id, cached (cleared in a forked child). */
static inline pid_t sync_tid(void)
{
    pid_t tid = ips2_sync_tid;
    return likely(tid != 0) ? tid : ips2_sync_tid_slow();
}

/* The entry of obj, created on first use; NULL if the table is full. */
static inline struct sync_entry *sync_find(const void *obj)
{
    uintptr_t addr = (uintptr_t)obj;
    size_t slot = sync_hash(addr);
    struct sync_entry *e = &ips2_sync_table[slot];

    if (likely(atomic_load_explicit(&e->addr, memory_order_acquire) == addr))
        return e;
    return ips2_sync_find_slow(addr, slot);
}

/* The key and counters of obj of the given type; hint as enum sync_hint. */
static inline struct sync_ref sync_ref(const void *obj, unsigned type, unsigned hint)
{
    struct sync_entry *e = sync_find(obj);
    struct sync_ref r = {(uintptr_t)obj & IPS2_PAYLOAD_MASK, NULL};

    if (unlikely(e == NULL))
        return r;
    uintptr_t st = atomic_load_explicit(&e->state, memory_order_acquire);
    if (unlikely(st == 0 || (hint != SYNC_MAPPING && (st & SYNC_STATE_HINT) != hint)))
        st = ips2_sync_classify(e, obj, type, hint);
    else if (unlikely(atomic_load_explicit(&e->type, memory_order_relaxed) != type))
        ips2_sync_retype(e, obj, type, st);
    if (unlikely(st & SYNC_STATE_SHARED))
        r.key = ips2_sync_shared_key(st);
    r.c = (struct ips2_sync_counters *)(st & SYNC_STATE_PTR);
    return r;
}

/* The current value of a counter (0 when unknown). */
static inline uint64_t sync_load(_Atomic uint64_t *counter)
{
    return atomic_load_explicit(counter, memory_order_acquire);
}

/* Adds one to a counter that others may bump at the same time; returns the
 * new value (0 when unknown). */
static inline uint64_t sync_next(struct ips2_sync_counters *c, _Atomic uint64_t *counter)
{
    return c ? atomic_fetch_add_explicit(counter, 1, memory_order_acq_rel) + 1 : 0;
}

/* Adds one to the release seq of a lock held exclusively (only the holder
 * writes it, so no atomic read-modify-write is needed); returns it. */
static inline uint64_t sync_next_exclusive(struct ips2_sync_counters *c)
{
    if (c == NULL)
        return 0;
    uint64_t seq = atomic_load_explicit(&c->seq, memory_order_relaxed) + 1;
    atomic_store_explicit(&c->seq, seq, memory_order_release);
    return seq;
}

/* True when a deadline is one that the real timed call accepts; with any
 * other, wrappers call it straight away (without trying first), so that it
 * fails as it would untraced. */
static inline int sync_valid_deadline(clockid_t clock, const struct timespec *abstime)
{
    return abstime != NULL && abstime->tv_nsec >= 0 && abstime->tv_nsec < 1000000000 &&
           (clock == CLOCK_REALTIME || clock == CLOCK_MONOTONIC);
}

/* sync_mutex.c, for pthread_cond_wait, which releases and re-acquires the
 * mutex inside: the release before the wait, the acquisition after it. */
void ips2_sync_mutex_release(pthread_mutex_t *m);
void ips2_sync_mutex_reacquired(pthread_mutex_t *m);
uint64_t ips2_sync_mutex_key(pthread_mutex_t *m);

/* --- events ---------------------------------------------------------------- */

/* LOCK_ACQUIRED or LOCK_ACQUIRED_SHARED (kind): the release seq seen, and
 * the wait's start when it waited (wait_start 0: taken at once). */
static inline void sync_acquired(struct sync_ref r, unsigned kind, uint64_t wait_start)
{
    uint64_t extra[2] = {r.c ? sync_load(&r.c->seq) : 0, wait_start};

    if (likely(wait_start == 0)) {
        if (kind == IPS2_EV_LOCK_ACQUIRED)
            ips2_emit_acquired(r.key, extra[0]);
        else
            ips2_emit(kind, r.key, extra, 1, IPS2_CPU_DERIVED);
    } else
        ips2_emit(kind, r.key, extra, 2, IPS2_CPU_READ);
}

/* LOCK_ACQUIRED after a spin: also the CPU time at the wait's start. */
static inline void sync_acquired_spin(struct sync_ref r, uint64_t wait_start, uint64_t cpu_start)
{
    uint64_t extra[3] = {r.c ? sync_load(&r.c->seq) : 0, wait_start, cpu_start};

    ips2_emit(IPS2_EV_LOCK_ACQUIRED, r.key, extra, 3, IPS2_CPU_READ);
}

/* LOCK_RELEASE or LOCK_RELEASE_SHARED (kind) with its release seq. */
static inline void sync_release(struct sync_ref r, unsigned kind, uint64_t seq)
{
    if (kind == IPS2_EV_LOCK_RELEASE)
        ips2_emit_release(r.key, seq);
    else
        ips2_emit(kind, r.key, &seq, 1, IPS2_CPU_DERIVED);
}

/* --- counted holds (sync_count.c, FORMAT.md section 3) -------------------
 *
 * A thread watches each mutex it locks through one of IPS2_LOCK_SLOTS
 * counting slots (IPS2_LOCK_SLOT of its address).  Once SYNC_COUNT_AFTER
 * consecutive holds of the same mutex in one generation of the stream
 * (t->calls_gen: one window, at most ~100 ms) took their trylock at once,
 * had nothing recorded inside them (one LOCK_HELD_SHORT word each) and
 * were short on average, the thread's next acquisitions without a wait
 * write nothing and read no clock: they increment the `acquired` word of
 * a LOCK_COUNTED record, and their releases its `released` word, until
 * the generation moves on (then the holds are watched again).
 *
 * A release is counted only when no thread waits for the mutex: waiters
 * announce themselves in the object's counters (seq2: waits begun, param:
 * waits ended, both only ever incremented) before they block, and the
 * releaser looks before its real unlock and again after it.  An
 * acquisition that waited and names a release it may not have been seen
 * by (one numbered before it announced itself) is recorded without a wait
 * (sync_mutex.c): so every acquisition recorded as having waited names a
 * release recorded with its time, and the PAG's lock arcs are as before. */
struct sync_count {
    uintptr_t obj;                /* the mutex this slot watches (its address); 0: none */
    uint64_t *word;               /* its LOCK_COUNTED record's count words, or NULL */
    uint32_t gen;                 /* t->calls_gen the streak or the record belongs to */
    int held;                     /* the thread holds obj by a counted acquisition */
    struct ips2_sync_counters *c; /* its counters */
    uint64_t key;                 /* its key */
    uint64_t hold;                /* timer ticks of the watched holds of the streak */
    uint32_t streak;
} __attribute__((aligned(64))); /* one cache line: the hot path reads one */

/* The thread's IPS2_LOCK_SLOTS counting slots (one page, mapped when it
 * first watches a mutex: static TLS is too scarce for libips2 to stay
 * dlopen-able with them), or NULL. */
extern __thread struct sync_count *ips2_sync_counts;
struct sync_count *ips2_sync_counts_make(void);
extern uint32_t ips2_sync_count_after; /* SYNC_COUNT_AFTER; 0: never count */
int ips2_sync_count_begin(struct ips2_thread *t, struct sync_count *k);
void ips2_sync_count_recorded(uint64_t key, uint64_t seq);
void ips2_sync_count_streak(struct sync_count *k, uint64_t hold);

/* obj's slot, or NULL when the thread has no slots yet. */
static inline __attribute__((always_inline)) struct sync_count *sync_count_slot(const void *obj)
{
    struct sync_count *base = ips2_sync_counts;

    return likely(base != NULL) ? &base[IPS2_LOCK_SLOT((uintptr_t)obj)] : NULL;
}

/* The calling thread stops watching obj (its init or destroy: the next
 * life of the memory may have another identity).  Other threads' slots
 * follow at the end of their generation. */
static inline void sync_count_forget(const void *obj)
{
    struct sync_count *k = sync_count_slot(obj);

    if (k != NULL && k->obj == (uintptr_t)obj)
        memset(k, 0, sizeof(*k));
}

/* The counted acquisition of obj's fast path: 1 when it was counted. */
static inline __attribute__((always_inline)) int sync_count_acquired(const void *obj)
{
    struct sync_count *k = sync_count_slot(obj);

    if (likely(k != NULL && k->obj == (uintptr_t)obj && k->word != NULL &&
               k->gen == ips2_self.calls_gen)) {
        ++k->word[0];
        k->held = 1;
        return 1;
    }
    return 0;
}

/* An exclusive acquisition of obj that did not wait, when the fast path
 * did not count it: counted if its slot's streak says so and the object
 * may be (countable: never re-locked while held, so that the fast path
 * need not tell a re-lock apart), else LOCK_ACQUIRED as before. */
static inline void sync_acquired_or_count(const void *obj, struct sync_ref r, int countable)
{
    struct ips2_thread *t = &ips2_self;
    struct sync_count *k = sync_count_slot(obj);

    if (k != NULL && k->obj == (uintptr_t)obj) {
        if (countable && k->gen == t->calls_gen && k->key == r.key && k->c == r.c && r.c != NULL &&
            k->streak >= ips2_sync_count_after && ips2_sync_count_after != 0 &&
            ips2_sync_count_begin(t, k)) {
            k->held = 1;
            return;
        }
        k->held = 0;
    }
    sync_acquired(r, IPS2_EV_LOCK_ACQUIRED, 0);
}

/* A counted release between its two halves: what the second needs, taken
 * before the real unlock (a signal handler that locks another mutex of
 * the same slot meanwhile may reuse the slot). */
struct sync_counted_release {
    uint64_t *word;
    struct ips2_sync_counters *c;
    uint64_t key, seq, begun;
    uint32_t gen;
};

/* The counted release of obj's fast path, before the real unlock: for a
 * hold the fast path counted, it takes the release seq and, when no thread
 * waits (waiters announce themselves, below), returns 1 with *x filled in:
 * the caller unlocks, then calls sync_count_released().  0: not a counted
 * hold (x->seq 0: the slow path), or a waiter (x->seq set: the release was
 * recorded, and the caller just unlocks). */
static inline __attribute__((always_inline)) int sync_count_release(const void *obj,
                                                                    struct sync_counted_release *x)
{
    struct sync_count *k = sync_count_slot(obj);

    x->seq = 0;
    if (likely(k != NULL && k->obj == (uintptr_t)obj && k->held && k->word != NULL &&
               k->gen == ips2_self.calls_gen)) {
        struct ips2_sync_counters *c = k->c;
        uint64_t n = atomic_load_explicit(&c->seq, memory_order_relaxed) + 1;
        atomic_store_explicit(&c->seq, n, memory_order_release);
        x->seq = n;
        x->begun = atomic_load_explicit(&c->seq2, memory_order_acquire);
        x->word = k->word;
        x->c = c;
        x->key = k->key;
        x->gen = k->gen;
        k->held = 0;
        if (likely(x->begun == atomic_load_explicit(&c->param, memory_order_acquire)))
            return 1;
        ips2_sync_count_recorded(x->key, n); /* a waiter: recorded before the unlock */
    }
    return 0;
}

/* After the real unlock of a release sync_count_release() let through: a
 * waiter that announced itself meanwhile may name it, so it is recorded
 * after all (later than the unlock: its time is then an upper bound). */
static inline __attribute__((always_inline)) void
sync_count_released(const struct sync_counted_release *x)
{
    if (likely(atomic_load_explicit(&x->c->seq2, memory_order_acquire) == x->begun &&
               x->gen == ips2_self.calls_gen))
        ++x->word[1];
    else
        ips2_sync_count_recorded(x->key, x->seq);
}

/* A recorded release of an exclusive hold of obj: LOCK_RELEASE, and the
 * watch of its hold (a LOCK_HELD_SHORT word when nothing was recorded
 * inside). */
static inline void sync_release_watched(const void *obj, struct sync_ref r, uint64_t seq)
{
    struct ips2_thread *t = &ips2_self;
    uintptr_t h = t->held_at;

    ips2_emit_release(r.key, seq);
    if (ips2_sync_count_after == 0)
        return;
    struct sync_count *k = sync_count_slot(obj);
    if (unlikely(k == NULL)) {
        if ((k = ips2_sync_counts_make()) == NULL)
            return;
        k += IPS2_LOCK_SLOT((uintptr_t)obj);
    }
    if (unlikely(k->obj != (uintptr_t)obj || k->gen != t->calls_gen || k->key != r.key ||
                 k->c != r.c)) {
        k->obj = (uintptr_t)obj;
        k->key = r.key;
        k->c = r.c;
        k->gen = t->calls_gen;
        k->word = NULL;
        k->streak = 0;
        k->hold = 0;
    }
    k->held = 0;
    uint64_t w;
    if (h != 0 && h + 8 == t->cur && IPS2_RAW_KIND(w = *(uint64_t *)h) == IPS2_EV_LOCK_HELD_SHORT)
        ips2_sync_count_streak(k, IPS2_LOCK_HELD_HOLD(w));
    else
        k->streak = 0, k->hold = 0;
}

/* A waiter announces itself (before it may block) and ends its wait. */
static inline uint64_t sync_wait_begins(struct ips2_sync_counters *c)
{
    if (c == NULL)
        return 0;
    atomic_fetch_add_explicit(&c->seq2, 1, memory_order_seq_cst);
    return atomic_load_explicit(&c->seq, memory_order_seq_cst);
}

static inline void sync_wait_ends(struct ips2_sync_counters *c)
{
    if (c != NULL)
        atomic_fetch_add_explicit(&c->param, 1, memory_order_release);
}

/* SYNC_FAILED: a failed attempt (EBUSY, ETIMEDOUT, EDEADLK, EAGAIN, ...). */
static inline void sync_failed(struct sync_ref r, unsigned type, int error, uint64_t wait_start)
{
    uint64_t extra[3] = {type, (uint64_t)error, wait_start};

    ips2_emit(IPS2_EV_SYNC_FAILED, r.key, extra, 3, wait_start ? IPS2_CPU_READ : IPS2_CPU_DERIVED);
}

/* SYNC_INIT and SYNC_DESTROY (rare: always with an exact CPU reading). */
void ips2_sync_init_event(struct sync_ref r, unsigned type, uint64_t value, uint64_t attributes,
                          int result);
void ips2_sync_destroy_event(struct sync_ref r, unsigned type, int result);

/* Resets the counters of an object that starts a new life (sem_init,
 * pthread_barrier_init): param = value, seq = seq2 = 0. */
static inline void sync_reset(struct sync_ref r, uint64_t value)
{
    if (r.c == NULL)
        return;
    atomic_store(&r.c->param, value);
    atomic_store(&r.c->seq2, 0);
    atomic_store(&r.c->seq, 0);
}

#endif /* IPS2_SYNC_H */
