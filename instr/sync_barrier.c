/*
 * sync_barrier.c - pthread barriers: init, wait, destroy.
 *
 * pthread_barrier_init records SYNC_INIT with the number of parties and
 * starts the barrier's arrival count at 0.  Each wait takes the next
 * arrival number n (counted from 1 since the init), records
 * BARRIER_ARRIVE with n, the parties p and its episode e = (n - 1) / p + 1,
 * waits, and records BARRIER_DEPART with e, whether glibc made it the
 * serial thread (PTHREAD_BARRIER_SERIAL_THREAD: the thread whose arrival
 * completed the round) and the wait's start time.  The last arriver of
 * episode e is the arrival numbered e * p.
 */
#include <errno.h>
#include <pthread.h>

#include "sync.h"

/* glibc's struct pthread_barrier: in, current_round, count, shared, out. */
struct glibc_barrier {
    unsigned in, current_round, count;
    int shared;
    unsigned out;
};

static inline const struct glibc_barrier *layout(const pthread_barrier_t *b)
{
    return (const struct glibc_barrier *)(const void *)b;
}

static inline unsigned barrier_hint(const pthread_barrier_t *b)
{
    return __atomic_load_n(&layout(b)->shared, __ATOMIC_RELAXED) ? SYNC_SHARED : SYNC_PRIVATE;
}

IPS2_EXPORT int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *attr,
                                     unsigned count)
{
    int rc = IPS2_REAL(pthread_barrier_init)(b, attr, count);

    if (ips2_passthrough())
        return rc;
    unsigned hint = rc == 0 ? barrier_hint(b) : SYNC_PRIVATE;
    struct sync_ref r = ips2_sync_refresh(b, IPS2_SYNC_BARRIER, hint);
    if (rc == 0)
        sync_reset(r, count);
    ips2_sync_init_event(r, IPS2_SYNC_BARRIER, count, hint == SYNC_SHARED, rc);
    return rc;
}

IPS2_EXPORT int pthread_barrier_wait(pthread_barrier_t *b)
{
    if (ips2_passthrough())
        return IPS2_REAL(pthread_barrier_wait)(b);
    struct sync_ref r = sync_ref(b, IPS2_SYNC_BARRIER, barrier_hint(b));
    uint64_t parties = r.c ? sync_load(&r.c->param) : 0;
    if (parties == 0) /* initialised where we did not see it */
        parties = layout(b)->count;
    uint64_t n = r.c ? sync_next(r.c, &r.c->seq) : 0;
    uint64_t episode = n && parties ? (n - 1) / parties + 1 : 0;
    uint64_t arrive[3] = {n, parties, episode};
    ips2_emit(IPS2_EV_BARRIER_ARRIVE, r.key, arrive, 3, IPS2_CPU_DERIVED);

    uint64_t start = ips2_timer_now();
    int rc = IPS2_REAL(pthread_barrier_wait)(b);
    if (rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD) {
        uint64_t depart[3] = {episode, rc == PTHREAD_BARRIER_SERIAL_THREAD, start};
        ips2_emit(IPS2_EV_BARRIER_DEPART, r.key, depart, 3, IPS2_CPU_READ);
    } else {
        sync_failed(r, IPS2_SYNC_BARRIER, rc, start);
    }
    return rc;
}

IPS2_EXPORT int pthread_barrier_destroy(pthread_barrier_t *b)
{
    if (ips2_passthrough())
        return IPS2_REAL(pthread_barrier_destroy)(b);
    struct sync_ref r = sync_ref(b, IPS2_SYNC_BARRIER, barrier_hint(b));
    int rc = IPS2_REAL(pthread_barrier_destroy)(b);
    ips2_sync_destroy_event(r, IPS2_SYNC_BARRIER, rc);
    return rc;
}
