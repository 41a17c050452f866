/*
 * sync_cond.c - condition variables: wait, timedwait, clockwait, signal,
 * broadcast, init, destroy.
 *
 * Each condition variable has a signal seq, bumped by every signal and
 * broadcast before the real call and recorded in COND_SIGNAL or
 * COND_BROADCAST.  A wait reads it when it begins, records the release of
 * its mutex (the real wait releases it inside), waits, and records
 * COND_WAKE with the seq it began with and the seq it finds on waking: a
 * larger seq names the signal or broadcast that came during the wait (the
 * latest one before the wake-up); an equal one means it woke without one
 * (timeout, spurious wake-up).  Then LOCK_ACQUIRED for the mutex it holds
 * again, naming the release that let it back in.
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "sync.h"

/* glibc: bit 0 of __wrefs says process-shared. */
static inline unsigned cond_hint(const pthread_cond_t *c)
{
    return (__atomic_load_n(&c->__data.__wrefs, __ATOMIC_RELAXED) & 1) ? SYNC_SHARED : SYNC_PRIVATE;
}

static inline struct sync_ref cond_ref(const pthread_cond_t *c)
{
    return sync_ref(c, IPS2_SYNC_COND, cond_hint(c));
}

struct wait_state {
    struct sync_ref r;
    uint64_t seq_at_start;
    uint64_t start;
};

static struct wait_state wait_begin(pthread_cond_t *c, pthread_mutex_t *m)
{
    struct wait_state w;

    w.r = cond_ref(c);
    w.seq_at_start = w.r.c ? sync_load(&w.r.c->seq) : 0;
    ips2_sync_mutex_release(m);
    w.start = ips2_timer_now();
    return w;
}

static int wait_end(struct wait_state *w, pthread_mutex_t *m, int rc)
{
    uint64_t extra[5] = {ips2_sync_mutex_key(m), w->seq_at_start,
                         w->r.c ? sync_load(&w->r.c->seq) : 0, w->start, (uint64_t)rc};

    ips2_emit(IPS2_EV_COND_WAKE, w->r.key, extra, 5, IPS2_CPU_READ);
    if (rc == 0 || rc == ETIMEDOUT || rc == EOWNERDEAD)
        ips2_sync_mutex_reacquired(m);
    return rc;
}

IPS2_EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    if (ips2_passthrough())
        return IPS2_REAL(pthread_cond_wait)(c, m);
    struct wait_state w = wait_begin(c, m);
    return wait_end(&w, m, IPS2_REAL(pthread_cond_wait)(c, m));
}

IPS2_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                       const struct timespec *abstime)
{
    if (ips2_passthrough())
        return IPS2_REAL(pthread_cond_timedwait)(c, m, abstime);
    struct wait_state w = wait_begin(c, m);
    return wait_end(&w, m, IPS2_REAL(pthread_cond_timedwait)(c, m, abstime));
}

IPS2_EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock,
                                       const struct timespec *abstime)
{
    if (ips2_passthrough())
        return IPS2_REAL(pthread_cond_clockwait)(c, m, clock, abstime);
    struct wait_state w = wait_begin(c, m);
    return wait_end(&w, m, IPS2_REAL(pthread_cond_clockwait)(c, m, clock, abstime));
}

static void record_signal(pthread_cond_t *c, unsigned kind)
{
    struct sync_ref r = cond_ref(c);
    uint64_t seq = r.c ? sync_next(r.c, &r.c->seq) : 0;

    ips2_emit(kind, r.key, &seq, 1, IPS2_CPU_DERIVED);
}

IPS2_EXPORT int pthread_cond_signal(pthread_cond_t *c)
{
    if (!ips2_passthrough())
        record_signal(c, IPS2_EV_COND_SIGNAL);
    return IPS2_REAL(pthread_cond_signal)(c);
}

IPS2_EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
    if (!ips2_passthrough())
        record_signal(c, IPS2_EV_COND_BROADCAST);
    return IPS2_REAL(pthread_cond_broadcast)(c);
}

IPS2_EXPORT int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr)
{
    int rc = IPS2_REAL(pthread_cond_init)(c, attr);

    if (ips2_passthrough())
        return rc;
    unsigned hint = rc == 0 ? cond_hint(c) : SYNC_PRIVATE;
    struct sync_ref r = ips2_sync_refresh(c, IPS2_SYNC_COND, hint);
    ips2_sync_init_event(r, IPS2_SYNC_COND, 0, hint == SYNC_SHARED, rc);
    return rc;
}

IPS2_EXPORT int pthread_cond_destroy(pthread_cond_t *c)
{
    if (ips2_passthrough())
        return IPS2_REAL(pthread_cond_destroy)(c);
    struct sync_ref r = cond_ref(c);
    int rc = IPS2_REAL(pthread_cond_destroy)(c);
    ips2_sync_destroy_event(r, IPS2_SYNC_COND, rc);
    return rc;
}
