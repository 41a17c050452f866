/*
 * sync_user.c - the entry points behind the public ips2.h: home-made locks
 * and barriers marked by the program, recorded with the same events as
 * pthread objects (types IPS2_SYNC_USER_LOCK and IPS2_SYNC_USER_BARRIER).
 *
 * A thread waits for one thing at a time, so a wait's start (time and CPU
 * reading) is kept per thread between ips2_lock_wait_begin and
 * ips2_lock_acquired, and between ips2_barrier_arrive and
 * ips2_barrier_depart.  A user object's identity comes from its mapping
 * (a shared mapping makes it the same object in every process); its
 * arrival count starts at the first arrival the session sees.
 */
#include "sync.h"

struct pending_wait {
    const void *obj;
    uint64_t start, cpu_start;
    uint64_t arrival, parties, episode; /* barriers */
};

static __thread struct pending_wait lock_wait __attribute__((tls_model("initial-exec")));
static __thread struct pending_wait barrier_wait __attribute__((tls_model("initial-exec")));

static inline struct sync_ref user_ref(const void *obj, unsigned type)
{
    return sync_ref(obj, type, SYNC_MAPPING);
}

IPS2_EXPORT void ips2_rt_lock_wait_begin(const void *lock)
{
    if (ips2_passthrough())
        return;
    lock_wait.obj = lock;
    lock_wait.start = ips2_timer_now();
    lock_wait.cpu_start = ips2_thread_cpu_ns();
}

IPS2_EXPORT void ips2_rt_lock_acquired(const void *lock)
{
    if (ips2_passthrough())
        return;
    struct sync_ref r = user_ref(lock, IPS2_SYNC_USER_LOCK);
    if (lock_wait.obj == lock && lock != NULL) {
        lock_wait.obj = NULL;
        sync_acquired_spin(r, lock_wait.start, lock_wait.cpu_start);
    } else {
        sync_acquired(r, IPS2_EV_LOCK_ACQUIRED, 0);
    }
}

IPS2_EXPORT void ips2_rt_lock_release(const void *lock)
{
    if (ips2_passthrough())
        return;
    struct sync_ref r = user_ref(lock, IPS2_SYNC_USER_LOCK);
    sync_release(r, IPS2_EV_LOCK_RELEASE, r.c ? sync_next(r.c, &r.c->seq) : 0);
}

IPS2_EXPORT void ips2_rt_barrier_arrive(const void *barrier, unsigned parties)
{
    if (ips2_passthrough())
        return;
    struct sync_ref r = user_ref(barrier, IPS2_SYNC_USER_BARRIER);
    struct pending_wait *w = &barrier_wait;

    w->obj = barrier;
    w->parties = parties;
    w->arrival = r.c ? sync_next(r.c, &r.c->seq) : 0;
    w->episode = w->arrival && parties ? (w->arrival - 1) / parties + 1 : 0;
    if (r.c)
        atomic_store_explicit(&r.c->param, parties, memory_order_relaxed);
    uint64_t extra[3] = {w->arrival, parties, w->episode};
    ips2_emit(IPS2_EV_BARRIER_ARRIVE, r.key, extra, 3, IPS2_CPU_DERIVED);
    w->start = ips2_timer_now();
    w->cpu_start = ips2_thread_cpu_ns();
}

IPS2_EXPORT void ips2_rt_barrier_depart(const void *barrier)
{
    if (ips2_passthrough())
        return;
    struct sync_ref r = user_ref(barrier, IPS2_SYNC_USER_BARRIER);
    struct pending_wait *w = &barrier_wait;
    uint64_t extra[4] = {0, 0, 0, 0};

    if (w->obj == barrier && barrier != NULL) {
        extra[0] = w->episode;
        extra[1] = w->arrival != 0 && w->arrival == w->episode * w->parties;
        extra[2] = w->start;
        extra[3] = w->cpu_start;
        w->obj = NULL;
    }
    ips2_emit(IPS2_EV_BARRIER_DEPART, r.key, extra, 4, IPS2_CPU_READ);
}

IPS2_EXPORT void ips2_rt_object_name(const void *object, const char *name)
{
    if (ips2_passthrough() || object == NULL || name == NULL)
        return;
    struct sync_entry *e = sync_find(object);
    uintptr_t st = e ? atomic_load_explicit(&e->state, memory_order_acquire) : 0;
    struct sync_ref r = {(uintptr_t)object & IPS2_PAYLOAD_MASK, NULL};

    if (e != NULL && st == 0) /* not met yet: a home-made object */
        st = ips2_sync_classify(e, object, IPS2_SYNC_ANY, SYNC_MAPPING);
    if (st & SYNC_STATE_SHARED)
        r.key = ips2_sync_shared_key(st);
    r.c = (struct ips2_sync_counters *)(st & SYNC_STATE_PTR);
    ips2_sync_announce(object, IPS2_SYNC_ANY, r, name);
}
