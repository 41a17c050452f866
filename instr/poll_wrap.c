/*
 * poll_wrap.c - readiness waits: poll, ppoll, select, pselect, epoll_wait,
 * epoll_pwait, epoll_pwait2 (and the fortified __poll_chk/__ppoll_chk).
 *
 * Each call is one IO_WAIT event at its end, with the timer value taken
 * before it: the interval is the wait (FORMAT.md section 9.2).  The data
 * the wait was for is paired where it is read, by the RECV that follows;
 * the wait itself carries what the program asked (how many descriptors,
 * the timeout) and what it got (how many are ready, or the error).
 *
 * A timeout is read directly only after a call that succeeded (the kernel
 * read it); select's, which the kernel rewrites, is read before the call,
 * and a failed call's after it, through caller_mem.c: a bad pointer gives
 * EFAULT as untraced, never a fault in the wrapper.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>

#include "fds.h"

int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t fdslen);
int __ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *timeout, const sigset_t *mask,
                size_t fdslen);

static uint64_t ms_of_timespec(const struct timespec *ts)
{
    if (ts == NULL)
        return UINT64_MAX; /* forever */
    return (uint64_t)ts->tv_sec * 1000u + (uint64_t)ts->tv_nsec / 1000000u;
}

/* The timeout of a call that returned r: as is once the kernel has read
 * it, else through a copy (0 if it cannot be read). */
static uint64_t ms_after(int r, const struct timespec *ts)
{
    struct timespec copy;

    if (ts == NULL || r >= 0)
        return ms_of_timespec(ts);
    return ips2_caller_read(&copy, ts, sizeof(copy)) == 0 ? ms_of_timespec(&copy) : 0;
}

/* select's timeout, before the call rewrites it (0 if it cannot be read). */
static uint64_t ms_of_timeval(const struct timeval *tv)
{
    struct timeval copy;

    if (tv == NULL)
        return UINT64_MAX;
    if (ips2_caller_read(&copy, tv, sizeof(copy)) != 0)
        return 0;
    return (uint64_t)copy.tv_sec * 1000u + (uint64_t)copy.tv_usec / 1000u;
}

static uint64_t ms_of_int(int ms)
{
    return ms < 0 ? UINT64_MAX : (uint64_t)ms;
}

static void record_wait(unsigned call, int result, int err, uint64_t start, uint64_t nfds,
                        uint64_t timeout_ms)
{
    uint64_t x[5];

    x[0] = call;
    x[1] = result < 0 ? (uint64_t)err : 0;
    x[2] = start;
    x[3] = nfds;
    x[4] = timeout_ms;
    ips2_emit(IPS2_EV_IO_WAIT, result > 0 ? (uint64_t)result : 0, x, 5, ips2_io_flags(start));
}

/* timeout_ms is evaluated after the call, where r is its result. */
#define WAIT_WRAPPER(call, callid, nfds, timeout_ms)                                               \
    do {                                                                                           \
        if (ips2_passthrough())                                                                    \
            return call;                                                                           \
        uint64_t start = ips2_io_start();                                                          \
        int r = call;                                                                              \
        int err = errno;                                                                           \
        record_wait(callid, r, err, start, (uint64_t)(nfds), timeout_ms);                          \
        errno = err;                                                                               \
        return r;                                                                                  \
    } while (0)

IPS2_EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
    WAIT_WRAPPER(IPS2_REAL(poll)(fds, n, timeout), IPS2_IO_POLL, n, ms_of_int(timeout));
}

IPS2_EXPORT int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t fdslen)
{
    if (fdslen / sizeof(*fds) < n)
        return IPS2_REAL(__poll_chk)(fds, n, timeout, fdslen);
    WAIT_WRAPPER(IPS2_REAL(poll)(fds, n, timeout), IPS2_IO_POLL, n, ms_of_int(timeout));
}

IPS2_EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *timeout,
                      const sigset_t *mask)
{
    WAIT_WRAPPER(IPS2_REAL(ppoll)(fds, n, timeout, mask), IPS2_IO_PPOLL, n, ms_after(r, timeout));
}

IPS2_EXPORT int __ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *timeout,
                            const sigset_t *mask, size_t fdslen)
{
    if (fdslen / sizeof(*fds) < n)
        return IPS2_REAL(__ppoll_chk)(fds, n, timeout, mask, fdslen);
    WAIT_WRAPPER(IPS2_REAL(ppoll)(fds, n, timeout, mask), IPS2_IO_PPOLL, n, ms_after(r, timeout));
}

IPS2_EXPORT int select(int n, fd_set *rd, fd_set *wr, fd_set *ex, struct timeval *timeout)
{
    uint64_t ms = ms_of_timeval(timeout); /* before: select updates it */
    WAIT_WRAPPER(IPS2_REAL(select)(n, rd, wr, ex, timeout), IPS2_IO_SELECT, n, ms);
}

IPS2_EXPORT int pselect(int n, fd_set *rd, fd_set *wr, fd_set *ex, const struct timespec *timeout,
                        const sigset_t *mask)
{
    WAIT_WRAPPER(IPS2_REAL(pselect)(n, rd, wr, ex, timeout, mask), IPS2_IO_PSELECT, n,
                 ms_after(r, timeout));
}

IPS2_EXPORT int epoll_wait(int epfd, struct epoll_event *ev, int max, int timeout)
{
    WAIT_WRAPPER(IPS2_REAL(epoll_wait)(epfd, ev, max, timeout), IPS2_IO_EPOLL_WAIT, max,
                 ms_of_int(timeout));
}

IPS2_EXPORT int epoll_pwait(int epfd, struct epoll_event *ev, int max, int timeout,
                            const sigset_t *mask)
{
    WAIT_WRAPPER(IPS2_REAL(epoll_pwait)(epfd, ev, max, timeout, mask), IPS2_IO_EPOLL_PWAIT, max,
                 ms_of_int(timeout));
}

IPS2_EXPORT int epoll_pwait2(int epfd, struct epoll_event *ev, int max,
                             const struct timespec *timeout, const sigset_t *mask)
{
    WAIT_WRAPPER(IPS2_REAL(epoll_pwait2)(epfd, ev, max, timeout, mask), IPS2_IO_EPOLL_PWAIT2, max,
                 ms_after(r, timeout));
}
