/*
 * spawn.c - children started without fork: posix_spawn, posix_spawnp,
 * system and popen/pclose.
 *
 * The parent records SPAWN when the call returns (glibc returns once the
 * child has exec'd): the child's pid, how it was started, the error, the
 * timer taken before the call, and what was started (the path, or the
 * command line).  An instrumented child's first event is PROC_START naming
 * this process as its parent.
 *
 * glibc's system() and popen() start their shell through an internal
 * posix_spawn and reap it with an internal waitpid, which no wrapper sees.
 * So system() is done here the way glibc 2.36 does it (SIGINT and SIGQUIT
 * ignored while any system() runs, SIGCHLD blocked, the child's mask and
 * dispositions reset, /bin/sh -c, cancellation kills and reaps the child),
 * recording SPAWN and WAIT around it.  popen() and pclose() stay glibc's:
 * the child's pid is read from glibc's popen stream (struct _IO_proc_file:
 * the FILE, its jump table pointer, then the pid), used only if waitid()
 * confirms that it is a child of this process; pclose() records WAIT with
 * that pid and the status it returns.
 */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "children.h"
#include "runtime.h"

extern char **environ;

/* what is the caller's path or command line, read through a copy: it may
 * be bad (the call then fails with EFAULT, as untraced). */
static void record_spawn(pid_t pid, unsigned how, int err, uint64_t start, const char *what)
{
    uint64_t pre[3] = {how, (uint64_t)err, start};
    char copy[8 * IPS2_RAW_MAX_EXTRA];

    ips2_emit_string(&ips2_self, IPS2_EV_SPAWN, pid > 0 ? (uint64_t)pid : 0, pre, 3,
                     ips2_caller_string(copy, sizeof(copy), what));
}

typedef int spawn_fn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
                     const posix_spawnattr_t *attr, char *const argv[], char *const envp[]);

/* posix_spawn and posix_spawnp: the real one, timed and recorded as how. */
static int traced_spawn(spawn_fn *real, unsigned how, pid_t *pid, const char *path,
                        const posix_spawn_file_actions_t *actions, const posix_spawnattr_t *attr,
                        char *const argv[], char *const envp[])
{
    pid_t local = 0;

    if (ips2_children_untraced())
        return real(pid, path, actions, attr, argv, envp);
    pid_t *out = pid ? pid : &local;
    uint64_t start = ips2_timer_now();
    int rc = real(out, path, actions, attr, argv, envp);
    int saved_errno = errno;
    record_spawn(rc == 0 ? *out : 0, how, rc, start, path);
    errno = saved_errno;
    return rc;
}

IPS2_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
                            const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    return traced_spawn(IPS2_REAL(posix_spawn), IPS2_SPAWN_POSIX_SPAWN, pid, path, actions, attr,
                        argv, envp);
}

IPS2_EXPORT int posix_spawnp(pid_t *pid, const char *file,
                             const posix_spawn_file_actions_t *actions,
                             const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    return traced_spawn(IPS2_REAL(posix_spawnp), IPS2_SPAWN_POSIX_SPAWNP, pid, file, actions, attr,
                        argv, envp);
}

/* --- system() ------------------------------------------------------------ */

/* While any system() runs, SIGINT and SIGQUIT are ignored; the first one
 * in saves their dispositions and the last one out restores them. */
static pthread_mutex_t system_lock = PTHREAD_MUTEX_INITIALIZER;

/* In a forked child: another thread may have held the lock. */
void ips2_spawn_forget(void)
{
    pthread_mutex_t unlocked = PTHREAD_MUTEX_INITIALIZER;

    system_lock = unlocked;
}
static int system_users;
static struct sigaction saved_intr, saved_quit;

static int real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    return IPS2_REAL(sigaction)(sig, act, old);
}

static void system_enter(void)
{
    struct sigaction ignore = {.sa_handler = SIG_IGN};

    sigemptyset(&ignore.sa_mask);
    ips2_quiet_begin();
    ips2_lock(&system_lock);
    if (system_users++ == 0) {
        real_sigaction(SIGINT, &ignore, &saved_intr);
        real_sigaction(SIGQUIT, &ignore, &saved_quit);
    }
    ips2_unlock(&system_lock);
    ips2_quiet_end();
}

static void system_leave(void)
{
    ips2_quiet_begin();
    ips2_lock(&system_lock);
    if (--system_users == 0) {
        real_sigaction(SIGINT, &saved_intr, NULL);
        real_sigaction(SIGQUIT, &saved_quit, NULL);
    }
    ips2_unlock(&system_lock);
    ips2_quiet_end();
}

/* A thread cancelled while system() waits kills and reaps the shell. */
static void system_cancelled(void *arg)
{
    pid_t pid = *(pid_t *)arg;
    int state;

    kill(pid, SIGKILL);
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &state);
    while (IPS2_REAL(waitpid)(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    pthread_setcancelstate(state, NULL);
    system_leave();
}

static int run_shell(const char *line, const char *recorded_as)
{
    sigset_t chld, omask, reset;
    posix_spawnattr_t attr;
    pid_t pid = 0;
    int status = -1;

    system_enter();
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    if (sigprocmask(SIG_BLOCK, &chld, &omask) < 0) {
        int saved_errno = errno;
        system_leave();
        errno = saved_errno;
        return -1;
    }
    sigemptyset(&reset);
    if (saved_intr.sa_handler != SIG_IGN)
        sigaddset(&reset, SIGINT);
    if (saved_quit.sa_handler != SIG_IGN)
        sigaddset(&reset, SIGQUIT);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setsigmask(&attr, &omask);
    posix_spawnattr_setsigdefault(&attr, &reset);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    char *argv[] = {"sh", "-c", "--", (char *)line, NULL};
    uint64_t start = ips2_timer_now();
    int rc = IPS2_REAL(posix_spawn)(&pid, "/bin/sh", NULL, &attr, argv, environ);
    posix_spawnattr_destroy(&attr);
    record_spawn(rc == 0 ? pid : 0, IPS2_SPAWN_SYSTEM, rc, start, recorded_as);

    if (rc == 0) {
        pid_t r;
        pthread_cleanup_push(system_cancelled, &pid);
        start = ips2_timer_now();
        while ((r = IPS2_REAL(waitpid)(pid, &status, 0)) < 0 && errno == EINTR)
            ;
        pthread_cleanup_pop(0);
        if (r != pid)
            status = -1;
        ips2_wait_record(r == pid ? pid : 0, r == pid ? status : 0, start, IPS2_WAIT_SYSTEM, 0,
                         r == pid ? 0 : errno);
    } else {
        status = 127 << 8; /* as if the shell had exited 127 */
    }
    system_leave();
    sigprocmask(SIG_SETMASK, &omask, NULL);
    if (rc != 0)
        errno = rc;
    return status;
}

IPS2_EXPORT int system(const char *line)
{
    if (ips2_children_untraced())
        return IPS2_REAL(system)(line);
    if (line == NULL) /* is there a shell? */
        return run_shell("exit 0", "(system(NULL): exit 0)") == 0;
    return run_shell(line, line);
}

/* --- popen() / pclose() ------------------------------------------------- */

#ifdef __GLIBC__
struct glibc_proc_file { /* libio/iopopen.c */
    FILE file;
    const void *vtable;
    pid_t pid;
};

/* Set once waitid() confirmed a pid found there: the layout is right. */
static int layout_confirmed;

/* The child behind a popen stream, or 0 if it cannot be told for sure.
 * With confirm (or until the layout is confirmed), waitid() must report
 * it as a child of this process, without reaping it. */
static pid_t popen_child(FILE *f, int confirm)
{
    pid_t pid = ((struct glibc_proc_file *)f)->pid;

    if (pid <= 0)
        return 0;
    if (confirm || !layout_confirmed) {
        siginfo_t si;
        int saved_errno = errno;
        int ok = IPS2_REAL(waitid)(P_PID, (id_t)pid, &si,
                                   WEXITED | WSTOPPED | WCONTINUED | WNOHANG | WNOWAIT) == 0;
        errno = saved_errno;
        if (!ok)
            return 0;
        layout_confirmed = 1;
    }
    return pid;
}
#else
static pid_t popen_child(FILE *f, int confirm)
{
    return 0;
}
#endif

IPS2_EXPORT FILE *popen(const char *command, const char *mode)
{
    if (ips2_children_untraced())
        return IPS2_REAL(popen)(command, mode);
    uint64_t start = ips2_timer_now();
    FILE *f = IPS2_REAL(popen)(command, mode);
    int saved_errno = errno;
    record_spawn(f ? popen_child(f, 1) : 0, IPS2_SPAWN_POPEN, f ? 0 : saved_errno, start, command);
    errno = saved_errno;
    return f;
}

IPS2_EXPORT int pclose(FILE *f)
{
    if (ips2_children_untraced())
        return IPS2_REAL(pclose)(f);
    pid_t pid = f ? popen_child(f, 0) : 0;
    uint64_t start = ips2_timer_now();
    int status = IPS2_REAL(pclose)(f);
    int saved_errno = errno;
    if (status == -1)
        ips2_wait_record(0, 0, start, IPS2_WAIT_PCLOSE, 0, saved_errno);
    else
        ips2_wait_record(pid, status, start, IPS2_WAIT_PCLOSE, 0, 0);
    errno = saved_errno;
    return status;
}
