/*
 * sync_rwlock.c - read-write locks: rdlock, wrlock and their try, timed
 * and clock variants, unlock, init, destroy.
 *
 * As for mutexes (sync_mutex.c): try first, record LOCK_ACQUIRED at once
 * when that succeeds, otherwise with the wait's start time after the real
 * blocking call; the type says the mode (IPS2_SYNC_RWLOCK / _WRITE).
 * Every unlock, by a writer or by any of the concurrent readers, takes the
 * next release seq atomically before the real unlock, so an acquisition
 * names the latest release before it got in (a writer: normally the last
 * reader out).  The unlock's mode is the lock's own record of its writer.
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "sync.h"

static inline unsigned rwlock_hint(const pthread_rwlock_t *rw)
{
    return __atomic_load_n(&rw->__data.__shared, __ATOMIC_RELAXED) ? SYNC_SHARED : SYNC_PRIVATE;
}

static inline struct sync_ref rwlock_ref(const pthread_rwlock_t *rw)
{
    return sync_ref(rw, IPS2_SYNC_RWLOCK, rwlock_hint(rw));
}

/* The two modes: their event kind, and their type in SYNC_FAILED. */
enum { READ, WRITE };
static const unsigned acquired_kind[2] = {IPS2_EV_LOCK_ACQUIRED_SHARED, IPS2_EV_LOCK_ACQUIRED};
static const unsigned failed_type[2] = {IPS2_SYNC_RWLOCK, IPS2_SYNC_RWLOCK_WRITE};

static inline int outcome(pthread_rwlock_t *rw, unsigned mode, int rc, uint64_t wait_start)
{
    if (rc == 0)
        sync_acquired(rwlock_ref(rw), acquired_kind[mode], wait_start);
    else
        sync_failed(rwlock_ref(rw), failed_type[mode], rc, wait_start);
    return rc;
}

IPS2_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *rw)
{
    if (ips2_passthrough())
        return IPS2_REAL(pthread_rwlock_rdlock)(rw);
    int rc = IPS2_REAL(pthread_rwlock_tryrdlock)(rw);
    if (likely(rc == 0))
        return outcome(rw, READ, rc, 0);
    uint64_t start = ips2_timer_now();
    return outcome(rw, READ, IPS2_REAL(pthread_rwlock_rdlock)(rw), start);
}

IPS2_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *rw)
{
    if (ips2_passthrough())
        return IPS2_REAL(pthread_rwlock_wrlock)(rw);
    int rc = IPS2_REAL(pthread_rwlock_trywrlock)(rw);
    if (likely(rc == 0))
        return outcome(rw, WRITE, rc, 0);
    uint64_t start = ips2_timer_now();
    return outcome(rw, WRITE, IPS2_REAL(pthread_rwlock_wrlock)(rw), start);
}

IPS2_EXPORT int pthread_rwlock_tryrdlock(pthread_rwlock_t *rw)
{
    if (ips2_passthrough())
        return IPS2_REAL(pthread_rwlock_tryrdlock)(rw);
    return outcome(rw, READ, IPS2_REAL(pthread_rwlock_tryrdlock)(rw), 0);
}

IPS2_EXPORT int pthread_rwlock_trywrlock(pthread_rwlock_t *rw)
{
    if (ips2_passthrough())
        return IPS2_REAL(pthread_rwlock_trywrlock)(rw);
    return outcome(rw, WRITE, IPS2_REAL(pthread_rwlock_trywrlock)(rw), 0);
}

IPS2_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *rw, const struct timespec *abstime)
{
    if (ips2_passthrough())
        return IPS2_REAL(pthread_rwlock_timedrdlock)(rw, abstime);
    if (sync_valid_deadline(CLOCK_REALTIME, abstime)) {
        int rc = IPS2_REAL(pthread_rwlock_tryrdlock)(rw);
        if (rc == 0)
            return outcome(rw, READ, rc, 0);
    }
    uint64_t start = ips2_timer_now();
    int rc = IPS2_REAL(pthread_rwlock_timedrdlock)(rw, abstime);
    return outcome(rw, READ, rc, start);
}

IPS2_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *rw, const struct timespec *abstime)
{
    if (ips2_passthrough())
        return IPS2_REAL(pthread_rwlock_timedwrlock)(rw, abstime);
    if (sync_valid_deadline(CLOCK_REALTIME, abstime)) {
        int rc = IPS2_REAL(pthread_rwlock_trywrlock)(rw);
        if (rc == 0)
            return outcome(rw, WRITE, rc, 0);
    }
    uint64_t start = ips2_timer_now();
    int rc = IPS2_REAL(pthread_rwlock_timedwrlock)(rw, abstime);
    return outcome(rw, WRITE, rc, start);
}

IPS2_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *rw, clockid_t clock,
                                           const struct timespec *abstime)
{
    if (ips2_passthrough())
        return IPS2_REAL(pthread_rwlock_clockrdlock)(rw, clock, abstime);
    if (sync_valid_deadline(clock, abstime)) {
        int rc = IPS2_REAL(pthread_rwlock_tryrdlock)(rw);
        if (rc == 0)
            return outcome(rw, READ, rc, 0);
    }
    uint64_t start = ips2_timer_now();
    int rc = IPS2_REAL(pthread_rwlock_clockrdlock)(rw, clock, abstime);
    return outcome(rw, READ, rc, start);
}

IPS2_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *rw, clockid_t clock,
                                           const struct timespec *abstime)
{
    if (ips2_passthrough())
        return IPS2_REAL(pthread_rwlock_clockwrlock)(rw, clock, abstime);
    if (sync_valid_deadline(clock, abstime)) {
        int rc = IPS2_REAL(pthread_rwlock_trywrlock)(rw);
        if (rc == 0)
            return outcome(rw, WRITE, rc, 0);
    }
    uint64_t start = ips2_timer_now();
    int rc = IPS2_REAL(pthread_rwlock_clockwrlock)(rw, clock, abstime);
    return outcome(rw, WRITE, rc, start);
}

IPS2_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *rw)
{
    if (ips2_passthrough())
        return IPS2_REAL(pthread_rwlock_unlock)(rw);
    int writer = __atomic_load_n(&rw->__data.__cur_writer, __ATOMIC_RELAXED) == sync_tid();
    unsigned kind = writer ? IPS2_EV_LOCK_RELEASE : IPS2_EV_LOCK_RELEASE_SHARED;
    struct sync_ref r = rwlock_ref(rw);
    sync_release(r, kind, r.c ? sync_next(r.c, &r.c->seq) : 0);
    return IPS2_REAL(pthread_rwlock_unlock)(rw);
}

IPS2_EXPORT int pthread_rwlock_init(pthread_rwlock_t *rw, const pthread_rwlockattr_t *attr)
{
    int rc = IPS2_REAL(pthread_rwlock_init)(rw, attr);

    if (ips2_passthrough())
        return rc;
    unsigned hint = rc == 0 ? rwlock_hint(rw) : SYNC_PRIVATE;
    struct sync_ref r = ips2_sync_refresh(rw, IPS2_SYNC_RWLOCK, hint);
    ips2_sync_init_event(r, IPS2_SYNC_RWLOCK, 0, hint == SYNC_SHARED, rc);
    return rc;
}

IPS2_EXPORT int pthread_rwlock_destroy(pthread_rwlock_t *rw)
{
    if (ips2_passthrough())
        return IPS2_REAL(pthread_rwlock_destroy)(rw);
    struct sync_ref r = rwlock_ref(rw);
    int rc = IPS2_REAL(pthread_rwlock_destroy)(rw);
    ips2_sync_destroy_event(r, IPS2_SYNC_RWLOCK, rc);
    return rc;
}
