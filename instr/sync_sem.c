/*
 * sync_sem.c - POSIX semaphores, unnamed (sem_init, process-shared or not)
 * and named (sem_open): init, open, close, destroy, post, wait, trywait,
 * timedwait, clockwait.
 *
 * Each semaphore counts its posts and its successful waits (decrements),
 * from 0 at sem_init (or at the sem_open that created it).  SEM_POST
 * records the post's number p, taken before the real post; SEM_ACQUIRED
 * records the wait's number k, taken after the real wait, and the initial
 * value v.  Tokens are paired first in, first out: the k-th wait consumed
 * an initial token if k <= v, otherwise the token of post k - v.  Post
 * k - v was counted (and recorded) before the k-th wait completed, though
 * with several posters it need not be the very post whose token the
 * kernel handed over (see FORMAT.md).
 *
 * sem_post is async-signal-safe, so everything here is too: lock-free
 * tables, no allocation (ips2_emit counts a record it cannot write in a
 * nested signal handler as lost).  errno is as the real calls leave it:
 * trying first must not leave a trywait's EAGAIN behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <semaphore.h>
#include <stdarg.h>
#include <time.h>

#include "sync.h"

/* glibc's struct new_sem (64-bit): value and waiters, then the futex
 * private flag, non-zero for a process-shared semaphore. */
struct glibc_sem {
    uint64_t data;
    int shared;
    int pad;
};

static inline unsigned sem_hint(const sem_t *s)
{
    const struct glibc_sem *g = (const struct glibc_sem *)(const void *)s;
    return __atomic_load_n(&g->shared, __ATOMIC_RELAXED) ? SYNC_SHARED : SYNC_PRIVATE;
}

static inline struct sync_ref sem_ref(const sem_t *s)
{
    return sync_ref(s, IPS2_SYNC_SEM, sem_hint(s));
}

static void acquired(const sem_t *s, uint64_t wait_start)
{
    struct sync_ref r = sem_ref(s);
    uint64_t extra[3] = {0, 0, wait_start};

    if (r.c) {
        extra[0] = sync_next(r.c, &r.c->seq2);
        extra[1] = sync_load(&r.c->param);
    }
    if (likely(wait_start == 0))
        ips2_emit(IPS2_EV_SEM_ACQUIRED, r.key, extra, 2, IPS2_CPU_DERIVED);
    else
        ips2_emit(IPS2_EV_SEM_ACQUIRED, r.key, extra, 3, IPS2_CPU_READ);
}

/* Records the outcome of a wait that may have blocked since wait_start;
 * returns rc with errno as the real call left it. */
static int outcome(const sem_t *s, int rc, int error, uint64_t wait_start)
{
    if (rc == 0)
        acquired(s, wait_start);
    else
        sync_failed(sem_ref(s), IPS2_SYNC_SEM, error, wait_start);
    errno = error;
    return rc;
}

IPS2_EXPORT int sem_post(sem_t *s)
{
    if (ips2_passthrough())
        return IPS2_REAL(sem_post)(s);
    int saved_errno = errno;
    struct sync_ref r = sem_ref(s);
    uint64_t seq = sync_next(r.c, r.c ? &r.c->seq : NULL);
    ips2_emit(IPS2_EV_SEM_POST, r.key, &seq, 1, IPS2_CPU_DERIVED);
    errno = saved_errno;
    int rc = IPS2_REAL(sem_post)(s);
    if (rc != 0) {
        int error = errno;
        sync_failed(r, IPS2_SYNC_SEM, error, 0);
        errno = error;
    }
    return rc;
}

IPS2_EXPORT int sem_wait(sem_t *s)
{
    if (ips2_passthrough())
        return IPS2_REAL(sem_wait)(s);
    int saved_errno = errno;
    if (likely(IPS2_REAL(sem_trywait)(s) == 0))
        return outcome(s, 0, saved_errno, 0);
    errno = saved_errno;
    uint64_t start = ips2_timer_now();
    int rc = IPS2_REAL(sem_wait)(s);
    return outcome(s, rc, rc == 0 ? saved_errno : errno, start);
}

IPS2_EXPORT int sem_trywait(sem_t *s)
{
    if (ips2_passthrough())
        return IPS2_REAL(sem_trywait)(s);
    int saved_errno = errno;
    int rc = IPS2_REAL(sem_trywait)(s);
    return outcome(s, rc, rc == 0 ? saved_errno : errno, 0);
}

IPS2_EXPORT int sem_timedwait(sem_t *s, const struct timespec *abstime)
{
    if (ips2_passthrough())
        return IPS2_REAL(sem_timedwait)(s, abstime);
    int saved_errno = errno;
    if (sync_valid_deadline(CLOCK_REALTIME, abstime) && IPS2_REAL(sem_trywait)(s) == 0)
        return outcome(s, 0, saved_errno, 0);
    errno = saved_errno;
    uint64_t start = ips2_timer_now();
    int rc = IPS2_REAL(sem_timedwait)(s, abstime);
    return outcome(s, rc, rc == 0 ? saved_errno : errno, start);
}

IPS2_EXPORT int sem_clockwait(sem_t *s, clockid_t clock, const struct timespec *abstime)
{
    if (ips2_passthrough())
        return IPS2_REAL(sem_clockwait)(s, clock, abstime);
    int saved_errno = errno;
    if (sync_valid_deadline(clock, abstime) && IPS2_REAL(sem_trywait)(s) == 0)
        return outcome(s, 0, saved_errno, 0);
    errno = saved_errno;
    uint64_t start = ips2_timer_now();
    int rc = IPS2_REAL(sem_clockwait)(s, clock, abstime);
    return outcome(s, rc, rc == 0 ? saved_errno : errno, start);
}

IPS2_EXPORT int sem_init(sem_t *s, int pshared, unsigned value)
{
    int rc = IPS2_REAL(sem_init)(s, pshared, value);

    if (ips2_passthrough())
        return rc;
    int error = errno;
    unsigned hint = rc == 0 ? sem_hint(s) : SYNC_PRIVATE;
    struct sync_ref r = ips2_sync_refresh(s, IPS2_SYNC_SEM, hint);
    if (rc == 0)
        sync_reset(r, value);
    ips2_sync_init_event(r, IPS2_SYNC_SEM, value, hint == SYNC_SHARED, rc == 0 ? 0 : error);
    errno = error;
    return rc;
}

IPS2_EXPORT int sem_destroy(sem_t *s)
{
    if (ips2_passthrough())
        return IPS2_REAL(sem_destroy)(s);
    struct sync_ref r = sem_ref(s);
    int rc = IPS2_REAL(sem_destroy)(s);
    int error = errno;
    ips2_sync_destroy_event(r, IPS2_SYNC_SEM, rc == 0 ? 0 : error);
    errno = error;
    return rc;
}

/* A named semaphore lives in a shared mapping of /dev/shm/sem.<name>: its
 * identity is that file's.  The sem_open that creates it (O_CREAT, and no
 * process of the session counted it before) starts its counts. */
IPS2_EXPORT sem_t *sem_open(const char *name, int oflag, ...)
{
    mode_t mode = 0;
    unsigned value = 0;

    if (oflag & O_CREAT) {
        va_list ap;
        va_start(ap, oflag);
        mode = (mode_t)va_arg(ap, unsigned);
        value = va_arg(ap, unsigned);
        va_end(ap);
    }
    sem_t *s = IPS2_REAL(sem_open)(name, oflag, mode, value);
    if (s == SEM_FAILED || ips2_passthrough())
        return s;
    int error = errno;
    struct sync_ref r = ips2_sync_refresh(s, IPS2_SYNC_SEM, SYNC_SHARED);
    uint64_t counted = r.c ? sync_load(&r.c->seq) + sync_load(&r.c->seq2) : 0;
    ips2_sync_announce(s, IPS2_SYNC_SEM, r, name);
    if ((oflag & O_CREAT) && counted == 0 && r.c && sync_load(&r.c->param) == 0) {
        sync_reset(r, value);
        ips2_sync_init_event(r, IPS2_SYNC_SEM, value, 1, 0);
    }
    errno = error;
    return s;
}

IPS2_EXPORT int sem_close(sem_t *s)
{
    if (ips2_passthrough())
        return IPS2_REAL(sem_close)(s);
    struct sync_ref r = sem_ref(s);
    struct sync_entry *e = sync_find(s);
    if (e != NULL) /* the address may hold another semaphore next time */
        atomic_store(&e->state, 0);
    int rc = IPS2_REAL(sem_close)(s);
    int error = errno;
    ips2_sync_destroy_event(r, IPS2_SYNC_SEM, rc == 0 ? 0 : error);
    errno = error;
    return rc;
}
