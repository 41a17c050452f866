/*
 * sync_spin.c - spin locks: pthread_spin_lock, trylock, unlock, init,
 * destroy.
 *
 * Like a mutex (sync_mutex.c), but the wait is spent spinning on the CPU:
 * a lock that has to wait reads the thread's CPU time before it spins, and
 * its LOCK_ACQUIRED carries that reading besides the wait's start time
 * (spin time = the event's exact CPU time - that reading).  A spin lock is
 * a bare int that cannot say whether it is process-shared: its identity is
 * taken from the mapping that holds it (pthread_spin_init, or first use).
 */
#include <errno.h>
#include <pthread.h>

#include "sync.h"

static inline struct sync_ref spin_ref(pthread_spinlock_t *s)
{
    return sync_ref((const void *)s, IPS2_SYNC_SPIN, SYNC_MAPPING);
}

IPS2_EXPORT int pthread_spin_lock(pthread_spinlock_t *s)
{
    if (ips2_passthrough())
        return IPS2_REAL(pthread_spin_lock)(s);
    int rc = IPS2_REAL(pthread_spin_trylock)(s);
    if (likely(rc == 0)) {
        sync_acquired(spin_ref(s), IPS2_EV_LOCK_ACQUIRED, 0);
        return 0;
    }
    uint64_t start = ips2_timer_now();
    uint64_t cpu_start = ips2_thread_cpu_ns();
    rc = IPS2_REAL(pthread_spin_lock)(s);
    if (rc == 0)
        sync_acquired_spin(spin_ref(s), start, cpu_start);
    else
        sync_failed(spin_ref(s), IPS2_SYNC_SPIN, rc, start);
    return rc;
}

IPS2_EXPORT int pthread_spin_trylock(pthread_spinlock_t *s)
{
    if (ips2_passthrough())
        return IPS2_REAL(pthread_spin_trylock)(s);
    int rc = IPS2_REAL(pthread_spin_trylock)(s);
    if (rc == 0)
        sync_acquired(spin_ref(s), IPS2_EV_LOCK_ACQUIRED, 0);
    else
        sync_failed(spin_ref(s), IPS2_SYNC_SPIN, rc, 0);
    return rc;
}

IPS2_EXPORT int pthread_spin_unlock(pthread_spinlock_t *s)
{
    if (ips2_passthrough())
        return IPS2_REAL(pthread_spin_unlock)(s);
    struct sync_ref r = spin_ref(s);
    sync_release(r, IPS2_EV_LOCK_RELEASE, sync_next_exclusive(r.c));
    return IPS2_REAL(pthread_spin_unlock)(s);
}

IPS2_EXPORT int pthread_spin_init(pthread_spinlock_t *s, int pshared)
{
    int rc = IPS2_REAL(pthread_spin_init)(s, pshared);

    if (ips2_passthrough())
        return rc;
    unsigned hint = pshared == PTHREAD_PROCESS_SHARED ? SYNC_MAPPING : SYNC_PRIVATE;
    struct sync_ref r = ips2_sync_refresh((const void *)s, IPS2_SYNC_SPIN, hint);
    ips2_sync_init_event(r, IPS2_SYNC_SPIN, 0, pshared == PTHREAD_PROCESS_SHARED, rc);
    return rc;
}

IPS2_EXPORT int pthread_spin_destroy(pthread_spinlock_t *s)
{
    if (ips2_passthrough())
        return IPS2_REAL(pthread_spin_destroy)(s);
    struct sync_ref r = spin_ref(s);
    int rc = IPS2_REAL(pthread_spin_destroy)(s);
    ips2_sync_destroy_event(r, IPS2_SYNC_SPIN, rc);
    return rc;
}
