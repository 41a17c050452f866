/*
 * ips2.h - mark home-made synchronisation for ips2.
 *
 * Programs built with ips2cc have their pthread mutexes, rwlocks, spin
 * locks, barriers, condition variables and semaphores traced for them.  A
 * program that synchronises in its own way - a lock or a barrier that spins
 * on shared memory, as simulators do - marks it with these calls, and its
 * waits, releases and barrier episodes then show up exactly like pthread
 * ones (object type "user lock" / "user barrier"), pairable by the same
 * rules, with spin time measured.
 *
 *   #include <ips2.h>          ips2cc finds it (make install puts it in
 *                              PREFIX/include/ips2/; <ips2/ips2.h> works too
 *                              where PREFIX/include is searched)
 *
 *   lock:     if (!try_lock(l)) {              barrier:  ips2_barrier_arrive(b, n);
 *                 ips2_lock_wait_begin(l);               ... spin until all n arrived ...
 *                 spin_until_locked(l);                  ips2_barrier_depart(b);
 *             }
 *             ips2_lock_acquired(l);
 *             ...
 *             ips2_lock_release(l);     (while still holding it)
 *             unlock(l);
 *
 * An object is named by its address; one in a shared mapping (MAP_SHARED,
 * shm_open) is the same object in every process that maps it.  The calls
 * are safe from any thread, cost a few nanoseconds when nothing waits, and
 * cost nothing but a test when the program is not linked with libips2: it
 * builds with a plain compiler too, and then they do nothing.
 */
#ifndef IPS2_PUBLIC_H
#define IPS2_PUBLIC_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define IPS2_API_WEAK_   __attribute__((weak))
#define IPS2_API_INLINE_ static inline __attribute__((no_instrument_function, unused))
#else
#error "ips2.h needs GCC or Clang (weak symbols)"
#endif

/* The entry points in libips2; call them through the functions below. */
void ips2_rt_lock_wait_begin(const void *lock) IPS2_API_WEAK_;
void ips2_rt_lock_acquired(const void *lock) IPS2_API_WEAK_;
void ips2_rt_lock_release(const void *lock) IPS2_API_WEAK_;
void ips2_rt_barrier_arrive(const void *barrier, unsigned parties) IPS2_API_WEAK_;
void ips2_rt_barrier_depart(const void *barrier) IPS2_API_WEAK_;
void ips2_rt_object_name(const void *object, const char *name) IPS2_API_WEAK_;

/* The calling thread starts to wait (spin or block) for lock.  Call it only
 * when the first attempt failed: it reads the thread's CPU clock, so that
 * ips2_lock_acquired can tell the time spent spinning. */
IPS2_API_INLINE_ void ips2_lock_wait_begin(const void *lock)
{
    if (ips2_rt_lock_wait_begin)
        ips2_rt_lock_wait_begin(lock);
}

/* The calling thread holds lock now: at once, or after ips2_lock_wait_begin
 * (then the event carries the wait and the spin time). */
IPS2_API_INLINE_ void ips2_lock_acquired(const void *lock)
{
    if (ips2_rt_lock_acquired)
        ips2_rt_lock_acquired(lock);
}

/* The calling thread is about to release lock: call it while it still holds
 * it, so that the next holder sees this release as the one that let it in. */
IPS2_API_INLINE_ void ips2_lock_release(const void *lock)
{
    if (ips2_rt_lock_release)
        ips2_rt_lock_release(lock);
}

/* The calling thread arrives at a barrier of `parties` participants (the
 * same number every time); call it before the arrival becomes visible to
 * the others (before incrementing the shared arrival counter). */
IPS2_API_INLINE_ void ips2_barrier_arrive(const void *barrier, unsigned parties)
{
    if (ips2_rt_barrier_arrive)
        ips2_rt_barrier_arrive(barrier, parties);
}

/* The calling thread leaves the barrier it arrived at (all have arrived). */
IPS2_API_INLINE_ void ips2_barrier_depart(const void *barrier)
{
    if (ips2_rt_barrier_depart)
        ips2_rt_barrier_depart(barrier);
}

/* Gives any synchronisation object (a pthread one too) a name for the
 * analyst's tables. */
IPS2_API_INLINE_ void ips2_object_name(const void *object, const char *name)
{
    if (ips2_rt_object_name)
        ips2_rt_object_name(object, name);
}

#ifdef __cplusplus
}
#endif

#endif /* IPS2_PUBLIC_H */
