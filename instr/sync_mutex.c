/*
 * sync_mutex.c - pthread mutexes: lock, trylock, timedlock, clocklock,
 * unlock, init, destroy.
 *
 * lock tries the mutex first: when that succeeds (the common, uncontended
 * case) it records one LOCK_ACQUIRED with no wait, a plain append.  Only
 * when it fails does it take the wait's start time, block in the real
 * call, and record LOCK_ACQUIRED with the start time and an exact CPU
 * reading.  unlock bumps the mutex's release seq while still holding it
 * and records LOCK_RELEASE with it; an acquisition records the release seq
 * it finds right after acquiring: the release that let it in.
 *
 * A thread whose holds of a mutex keep being short and uncontended counts
 * them instead (sync.h, sync_count.c): lock then writes nothing after its
 * successful trylock but a count, and unlock only bumps the seq and the
 * count, unless a waiter has announced itself (lock announces its wait
 * before it blocks).
 *
 * A failed trylock that the untraced program would have seen fail is a
 * SYNC_FAILED; trying first never changes what lock returns (a failed
 * trylock has no effect).  Recursive re-locks and inner unlocks of a
 * recursive mutex are no synchronisation and are not recorded; an unlock
 * that the real call will refuse (an error-checking or robust mutex not
 * held by the caller) does not bump the seq.
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "sync.h"

/* glibc's mutex kind word: the type in the low bits, then flags. */
#define KIND_TYPE_MASK 3   /* PTHREAD_MUTEX_{NORMAL,RECURSIVE,ERRORCHECK,ADAPTIVE}_NP */
#define KIND_ROBUST    16  /* PTHREAD_MUTEX_ROBUST_NORMAL_NP */
#define KIND_PI        32  /* PTHREAD_MUTEX_PRIO_INHERIT_NP */
#define KIND_PP        64  /* PTHREAD_MUTEX_PRIO_PROTECT_NP */
#define KIND_PSHARED   128 /* PTHREAD_MUTEX_PSHARED_BIT */
#define KIND_CHECKED   (KIND_ROBUST | KIND_PI | KIND_PP)

static inline unsigned mutex_kind(const pthread_mutex_t *m)
{
    return (unsigned)__atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED);
}

static inline unsigned mutex_hint(const pthread_mutex_t *m)
{
    return (mutex_kind(m) & KIND_PSHARED) ? SYNC_SHARED : SYNC_PRIVATE;
}

static inline struct sync_ref mutex_ref(const pthread_mutex_t *m)
{
    return sync_ref(m, IPS2_SYNC_MUTEX, mutex_hint(m));
}

/* True when a successful lock only deepened a recursive hold. */
static inline int relocked(const pthread_mutex_t *m)
{
    return (mutex_kind(m) & KIND_TYPE_MASK) == PTHREAD_MUTEX_RECURSIVE_NP && m->__data.__count > 1;
}

/* Records the outcome of a lock call that did not wait; returns rc.  A
 * plain success may be counted (sync.h, counted holds). */
static int lock_outcome(pthread_mutex_t *m, int rc)
{
    if (likely(rc == 0)) {
        /* a recursive mutex is never counted: its fast path would have to
         * tell re-locks apart */
        if (!relocked(m))
            sync_acquired_or_count(m, mutex_ref(m),
                                   (mutex_kind(m) & KIND_TYPE_MASK) != PTHREAD_MUTEX_RECURSIVE_NP);
    } else if (rc == EOWNERDEAD) {
        if (!relocked(m))
            sync_acquired(mutex_ref(m), IPS2_EV_LOCK_ACQUIRED, 0);
    } else {
        sync_failed(mutex_ref(m), IPS2_SYNC_MUTEX, rc, 0);
    }
    return rc;
}

/* A wait for the mutex: announced to its releasers (sync.h) from before
 * the real call until after it. */
struct mutex_wait {
    struct sync_ref r;
    uint64_t start; /* wait start */
    uint64_t seen;  /* the release seq when the wait was announced */
};

static inline struct mutex_wait wait_begin(pthread_mutex_t *m)
{
    struct mutex_wait w = {mutex_ref(m), ips2_timer_now(), 0};

    w.seen = sync_wait_begins(w.r.c);
    return w;
}

/* Records the outcome of a lock call that may have waited; returns rc.  An
 * acquisition naming the release seq seen when the wait was announced was
 * let in by a release that may not have known of it (and may be counted):
 * it is recorded as not having waited, so that every recorded wait names a
 * recorded release. */
static int wait_outcome(pthread_mutex_t *m, const struct mutex_wait *w, int rc)
{
    sync_wait_ends(w->r.c);
    if (rc == 0 || rc == EOWNERDEAD) {
        if (relocked(m))
            return rc;
        uint64_t start = w->start;
        if (w->r.c != NULL && sync_load(&w->r.c->seq) == w->seen)
            start = 0;
        sync_acquired(w->r, IPS2_EV_LOCK_ACQUIRED, start);
    } else {
        sync_failed(w->r, IPS2_SYNC_MUTEX, rc, w->start);
    }
    return rc;
}

/* Everything but a counted acquisition, out of the hot path's way. */
static __attribute__((noinline)) int lock_slow(pthread_mutex_t *m, int rc)
{
    if (likely(rc == 0 || rc == EOWNERDEAD))
        return lock_outcome(m, rc);
    struct mutex_wait w = wait_begin(m);
    return wait_outcome(m, &w, IPS2_REAL(pthread_mutex_lock)(m));
}

IPS2_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
    if (unlikely(ips2_passthrough()))
        return IPS2_REAL(pthread_mutex_lock)(m);
    int rc = IPS2_REAL(pthread_mutex_trylock)(m);
    if (likely(rc == 0) && likely(sync_count_acquired(m))) /* counted: not recursive */
        return 0;
    return lock_slow(m, rc);
}

IPS2_EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
    if (ips2_passthrough())
        return IPS2_REAL(pthread_mutex_trylock)(m);
    int rc = IPS2_REAL(pthread_mutex_trylock)(m);
    if (likely(rc == 0) && sync_count_acquired(m)) /* counted: not recursive */
        return 0;
    return lock_outcome(m, rc);
}

IPS2_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
    if (ips2_passthrough())
        return IPS2_REAL(pthread_mutex_timedlock)(m, abstime);
    if (sync_valid_deadline(CLOCK_REALTIME, abstime)) {
        int rc = IPS2_REAL(pthread_mutex_trylock)(m);
        if (rc == 0 || rc == EOWNERDEAD)
            return lock_outcome(m, rc);
    }
    struct mutex_wait w = wait_begin(m);
    return wait_outcome(m, &w, IPS2_REAL(pthread_mutex_timedlock)(m, abstime));
}

IPS2_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clock,
                                        const struct timespec *abstime)
{
    if (ips2_passthrough())
        return IPS2_REAL(pthread_mutex_clocklock)(m, clock, abstime);
    if (sync_valid_deadline(clock, abstime)) {
        int rc = IPS2_REAL(pthread_mutex_trylock)(m);
        if (rc == 0 || rc == EOWNERDEAD)
            return lock_outcome(m, rc);
    }
    struct mutex_wait w = wait_begin(m);
    return wait_outcome(m, &w, IPS2_REAL(pthread_mutex_clocklock)(m, clock, abstime));
}

/* What the real unlock will do: 1 release, 0 leave a recursive hold, -1
 * refuse (EPERM: the caller does not hold a mutex that checks). */
static inline int unlock_effect(const pthread_mutex_t *m)
{
    unsigned kind = mutex_kind(m);

    if (likely((kind & (KIND_TYPE_MASK | KIND_CHECKED)) == 0))
        return 1; /* a normal mutex: unlock never checks */
    unsigned type = kind & KIND_TYPE_MASK;
    if (type == PTHREAD_MUTEX_ADAPTIVE_NP && !(kind & KIND_CHECKED))
        return 1;
    int owner = __atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED) & 0x3fffffff;
    if (owner != sync_tid())
        return -1;
    if (type == PTHREAD_MUTEX_RECURSIVE_NP && m->__data.__count > 1)
        return 0;
    return 1;
}

/* A release that may be counted (effect 1): 1 when it unlocked (*rc: the
 * real unlock's result), the release counted or recorded; 0 when it is
 * the slow path's to record. */
static inline __attribute__((always_inline)) int unlock_counted(pthread_mutex_t *m, int *rc)
{
    struct sync_counted_release x;

    if (likely(sync_count_release(m, &x))) {
        *rc = IPS2_REAL(pthread_mutex_unlock)(m);
        sync_count_released(&x);
        return 1;
    }
    if (x.seq != 0) { /* recorded: a waiter */
        *rc = IPS2_REAL(pthread_mutex_unlock)(m);
        return 1;
    }
    return 0;
}

/* Everything but a counted release of a normal mutex (tried: the caller
 * found the release not counted). */
static __attribute__((noinline)) int unlock_slow(pthread_mutex_t *m, int tried)
{
    int effect = unlock_effect(m), rc;

    if (likely(effect > 0)) {
        if (!tried && unlock_counted(m, &rc))
            return rc;
        struct sync_ref r = mutex_ref(m);
        sync_release_watched(m, r, sync_next_exclusive(r.c));
        return IPS2_REAL(pthread_mutex_unlock)(m);
    }
    rc = IPS2_REAL(pthread_mutex_unlock)(m);
    if (rc != 0)
        sync_failed(mutex_ref(m), IPS2_SYNC_MUTEX, rc, 0);
    return rc;
}

IPS2_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
    int rc;

    if (unlikely(ips2_passthrough()))
        return IPS2_REAL(pthread_mutex_unlock)(m);
    if (likely((mutex_kind(m) & (KIND_TYPE_MASK | KIND_CHECKED)) == 0)) {
        /* a normal mutex, whose unlock never checks: unlock_effect() is 1 */
        if (likely(unlock_counted(m, &rc)))
            return rc;
        return unlock_slow(m, 1);
    }
    return unlock_slow(m, 0);
}

void ips2_sync_mutex_release(pthread_mutex_t *m)
{
    if (unlock_effect(m) != 1)
        return;
    struct sync_ref r = mutex_ref(m);
    sync_release_watched(m, r, sync_next_exclusive(r.c));
}

void ips2_sync_mutex_reacquired(pthread_mutex_t *m)
{
    sync_acquired(mutex_ref(m), IPS2_EV_LOCK_ACQUIRED, 0);
}

uint64_t ips2_sync_mutex_key(pthread_mutex_t *m)
{
    return mutex_ref(m).key;
}

IPS2_EXPORT int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr)
{
    int rc = IPS2_REAL(pthread_mutex_init)(m, attr);

    if (ips2_passthrough())
        return rc;
    unsigned kind = rc == 0 ? mutex_kind(m) : 0;
    sync_count_forget(m); /* a new life: its identity may change */
    struct sync_ref r =
        ips2_sync_refresh(m, IPS2_SYNC_MUTEX, (kind & KIND_PSHARED) ? SYNC_SHARED : SYNC_PRIVATE);
    ips2_sync_init_event(r, IPS2_SYNC_MUTEX, 0, kind, rc);
    return rc;
}

IPS2_EXPORT int pthread_mutex_destroy(pthread_mutex_t *m)
{
    if (ips2_passthrough())
        return IPS2_REAL(pthread_mutex_destroy)(m);
    struct sync_ref r = mutex_ref(m);
    int rc = IPS2_REAL(pthread_mutex_destroy)(m);
    sync_count_forget(m);
    ips2_sync_destroy_event(r, IPS2_SYNC_MUTEX, rc);
    return rc;
}
