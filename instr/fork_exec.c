/*
 * fork_exec.c - fork and the exec family.
 *
 * fork: the parent records FORK with the child's pid; the child (set up
 * again by process.c's atfork handler) starts its own streams with a
 * PROC_START naming its parent.  exec: EXEC with the path, then every
 * stream is sealed; if exec returns, the streams are unsealed and
 * EXEC_FAILED records errno.  The new image traces again if it is
 * instrumented, as image n+1 of the same pid.
 *
 * The libc exec functions are looked up through one accessor each, which
 * ips2_exec_prepare() calls ahead of a vfork (vfork.c): the vfork child
 * shares the parent's memory and must not run dlsym.
 */
#include <errno.h>
#include <stdarg.h>
#include <unistd.h>

#include "children.h"
#include "runtime.h"

IPS2_EXPORT pid_t fork(void)
{
    pid_t pid = IPS2_REAL(fork)();

    if (pid != 0 && ips2_proc.initialized) {
        int saved_errno = errno;
        ips2_emit_slow(&ips2_self, IPS2_EV_FORK, pid > 0 ? (uint64_t)pid : 0, NULL, 0,
                       IPS2_CPU_READ);
        errno = saved_errno;
    }
    return pid;
}

/* True in the process libips2 set up (not in a vfork child sharing it). */
static int own_process(void)
{
    return ips2_proc.initialized && getpid() == ips2_proc.pid;
}

/* The path is read through a copy: it may be bad (exec then fails with
 * EFAULT, as untraced). */
static void exec_begin(const char *path)
{
    char copy[8 * IPS2_RAW_MAX_EXTRA];

    if (!own_process())
        return;
    ips2_emit_string(&ips2_self, IPS2_EV_EXEC, 0, NULL, 0,
                     ips2_caller_string(copy, sizeof(copy), path));
    ips2_streams_seal();
}

static int exec_failed(int result)
{
    int saved_errno = errno;

    if (own_process()) {
        ips2_streams_unseal();
        ips2_emit_slow(&ips2_self, IPS2_EV_EXEC_FAILED, (uint64_t)saved_errno, NULL, 0,
                       IPS2_CPU_READ);
    }
    errno = saved_errno;
    return result;
}

static __typeof__(execve) *real_execve(void)
{
    return IPS2_REAL(execve);
}

static __typeof__(execv) *real_execv(void)
{
    return IPS2_REAL(execv);
}

static __typeof__(execvp) *real_execvp(void)
{
    return IPS2_REAL(execvp);
}

static __typeof__(execvpe) *real_execvpe(void)
{
    return IPS2_REAL(execvpe);
}

static __typeof__(fexecve) *real_fexecve(void)
{
    return IPS2_REAL(fexecve);
}

void ips2_exec_prepare(void)
{
    real_execve();
    real_execv();
    real_execvp();
    real_execvpe();
    real_fexecve();
}

IPS2_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    exec_begin(path);
    return exec_failed(real_execve()(path, argv, envp));
}

IPS2_EXPORT int execv(const char *path, char *const argv[])
{
    exec_begin(path);
    return exec_failed(real_execv()(path, argv));
}

IPS2_EXPORT int execvp(const char *file, char *const argv[])
{
    exec_begin(file);
    return exec_failed(real_execvp()(file, argv));
}

IPS2_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    exec_begin(file);
    return exec_failed(real_execvpe()(file, argv, envp));
}

IPS2_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    exec_begin("(fexecve)");
    return exec_failed(real_fexecve()(fd, argv, envp));
}

/* The execl* family, as glibc does them: count the arguments, then pass
 * them on in an array of exactly that size on the stack. */
#define COUNT_ARGS(arg0, count)                                                                    \
    do {                                                                                           \
        va_list c_;                                                                                \
        va_start(c_, arg0);                                                                        \
        (count) = 1;                                                                               \
        for (const char *a_ = (arg0); a_ != NULL; a_ = va_arg(c_, const char *))                   \
            (count)++;                                                                             \
        va_end(c_);                                                                                \
    } while (0)

/* Fills argv with arg0 and the rest up to the NULL; ap is left after it. */
static void collect_args(char **argv, const char *arg0, va_list *ap)
{
    size_t n = 0;

    argv[n] = (char *)arg0;
    while (argv[n] != NULL) {
        n++;
        argv[n] = va_arg(*ap, char *);
    }
}

/* Declares argv: arg and the arguments after it up to the NULL, in an
 * array of exactly that size on the stack; ap is started and left after
 * the NULL (the caller va_ends it). */
#define ARGV_FROM_LIST(argv, arg, ap)                                                              \
    size_t argc_;                                                                                  \
    COUNT_ARGS(arg, argc_);                                                                        \
    char *argv[argc_];                                                                             \
    va_start(ap, arg);                                                                             \
    collect_args(argv, arg, &ap)

IPS2_EXPORT int execl(const char *path, const char *arg, ...)
{
    va_list ap;

    ARGV_FROM_LIST(argv, arg, ap);
    va_end(ap);
    return execv(path, argv);
}

IPS2_EXPORT int execlp(const char *file, const char *arg, ...)
{
    va_list ap;

    ARGV_FROM_LIST(argv, arg, ap);
    va_end(ap);
    return execvp(file, argv);
}

IPS2_EXPORT int execle(const char *path, const char *arg, ...)
{
    va_list ap;

    ARGV_FROM_LIST(argv, arg, ap);
    char *const *envp = va_arg(ap, char *const *);
    va_end(ap);
    return execve(path, argv, envp);
}
