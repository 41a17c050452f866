/*
 * wait.c - waiting for children: wait, waitpid, waitid, wait3, wait4.
 *
 * Each call that reports a child records one WAIT event at its end: the
 * child's pid and status (waitpid's encoding; waitid's siginfo is encoded
 * the same way), the timer when the wait began, the call and its options.
 * A call that fails (EINTR, ECHILD, ...) records WAIT with pid 0 and the
 * error.  A WNOHANG call that finds no child ready records nothing: it
 * polled, it did not wait.  The reaped child's last image ended with
 * PROC_EXIT; that pair is the exit->waiter dependence (FORMAT.md 9.3).
 * Waits inside library calls (a quiet section) are recorded too: see
 * ips2_children_untraced() in children.h.
 *
 * These calls are async-signal-safe and often run in SIGCHLD handlers: the
 * wrappers use no lock and no memory but the stack, and pass the caller's
 * status and siginfo pointers to the kernel unchanged (a local one only
 * where the caller gave NULL), so that errors such as EFAULT stay the same.
 */
#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "children.h"
#include "runtime.h"

void ips2_wait_record(pid_t pid, int status, uint64_t start, unsigned call, int options, int err)
{
    uint64_t extra[5] = {(uint32_t)status, start, call, (uint32_t)options, (uint64_t)err};

    ips2_emit_slow(&ips2_self, IPS2_EV_WAIT, pid > 0 ? (uint64_t)pid : 0, extra, 5, IPS2_CPU_READ);
}

/* Records the end of a wait*() call that returned r; returns r with errno
 * as the call left it. */
static pid_t waited(pid_t r, const int *status, uint64_t start, unsigned call, int options)
{
    int saved_errno = errno;

    if (r > 0)
        ips2_wait_record(r, *status, start, call, options, 0);
    else if (r < 0)
        ips2_wait_record(0, 0, start, call, options, saved_errno);
    errno = saved_errno;
    return r;
}

IPS2_EXPORT pid_t wait(int *wstatus)
{
    int local;

    if (ips2_children_untraced())
        return IPS2_REAL(wait)(wstatus);
    int *st = wstatus ? wstatus : &local;
    uint64_t start = ips2_timer_now();
    return waited(IPS2_REAL(wait)(st), st, start, IPS2_WAIT_WAIT, 0);
}

IPS2_EXPORT pid_t waitpid(pid_t pid, int *wstatus, int options)
{
    int local;

    if (ips2_children_untraced())
        return IPS2_REAL(waitpid)(pid, wstatus, options);
    int *st = wstatus ? wstatus : &local;
    uint64_t start = ips2_timer_now();
    return waited(IPS2_REAL(waitpid)(pid, st, options), st, start, IPS2_WAIT_WAITPID, options);
}

IPS2_EXPORT pid_t wait3(int *wstatus, int options, struct rusage *usage)
{
    int local;

    if (ips2_children_untraced())
        return IPS2_REAL(wait3)(wstatus, options, usage);
    int *st = wstatus ? wstatus : &local;
    uint64_t start = ips2_timer_now();
    return waited(IPS2_REAL(wait3)(st, options, usage), st, start, IPS2_WAIT_WAIT3, options);
}

IPS2_EXPORT pid_t wait4(pid_t pid, int *wstatus, int options, struct rusage *usage)
{
    int local;

    if (ips2_children_untraced())
        return IPS2_REAL(wait4)(pid, wstatus, options, usage);
    int *st = wstatus ? wstatus : &local;
    uint64_t start = ips2_timer_now();
    return waited(IPS2_REAL(wait4)(pid, st, options, usage), st, start, IPS2_WAIT_WAIT4, options);
}

/* waitid's report as the status waitpid() would have given. */
static int status_of(const siginfo_t *si)
{
    int code = si->si_status;

    switch (si->si_code) {
    case CLD_EXITED:
        return (code & 0xff) << 8;
    case CLD_KILLED:
        return code & 0x7f;
    case CLD_DUMPED:
        return (code & 0x7f) | 0x80;
    case CLD_STOPPED:
    case CLD_TRAPPED:
        return ((code & 0xff) << 8) | 0x7f;
    case CLD_CONTINUED:
        return 0xffff;
    default:
        return 0;
    }
}

IPS2_EXPORT int waitid(idtype_t idtype, id_t id, siginfo_t *info, int options)
{
    siginfo_t local;

    if (ips2_children_untraced())
        return IPS2_REAL(waitid)(idtype, id, info, options);
    siginfo_t *si = info ? info : &local;
    uint64_t start = ips2_timer_now();
    int r = IPS2_REAL(waitid)(idtype, id, si, options);
    int saved_errno = errno;
    if (r == 0 && si->si_pid > 0)
        ips2_wait_record(si->si_pid, status_of(si), start, IPS2_WAIT_WAITID, options, 0);
    else if (r < 0)
        ips2_wait_record(0, 0, start, IPS2_WAIT_WAITID, options, saved_errno);
    errno = saved_errno;
    return r;
}
