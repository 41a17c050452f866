/*
 * process.c - the life of a traced process: set-up before main, and every
 * way of ending (return from main, exit() from any thread, _exit(), a fatal
 * signal) recorded as one PROC_EXIT event with how and status.
 *
 * PROC_EXIT goes to the stream of the thread that ends the process, or to
 * the process stream when that thread has no open stream.  libips2 never
 * exits on its own errors: if set-up fails, the program runs untraced.
 *
 * Tracing is asked for: a program built with ips2cc traces only when
 * IPS2_SESSION names a session directory (ips2 run and ips2 record set
 * it), so that the configure checks and test programs of a real build
 * leave nothing behind; IPS2_TRACE=off (or 0, no) turns it off even then.
 * Untraced, nothing is measured, created or written.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime.h"

struct ips2_process ips2_proc = {.lock = PTHREAD_MUTEX_INITIALIZER};

static atomic_int process_ended;

/* mkdir -p */
static int make_dirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int r = mkdir(path, 0755);
        *p = '/';
        if (r != 0 && errno != EEXIST)
            return -1;
    }
    return mkdir(path, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

/* Whether this run is to be traced (see the top of the file). */
static bool tracing_asked(void)
{
    const char *session = getenv("IPS2_SESSION");
    const char *trace = getenv("IPS2_TRACE");

    if (session == NULL || session[0] == '\0')
        return false;
    return trace == NULL ||
           (strcmp(trace, "off") != 0 && strcmp(trace, "0") != 0 && strcmp(trace, "no") != 0);
}

/* IPS2_SESSION names the directory.  Relative paths are made absolute now,
 * so that a later chdir() of the program changes nothing. */
static int session_setup(void)
{
    const char *session = getenv("IPS2_SESSION");
    char cwd[PATH_MAX];
    int n;

    if (getcwd(cwd, sizeof(cwd)) == NULL)
        strcpy(cwd, "/tmp");
    if (session[0] == '/')
        n = snprintf(ips2_proc.dir, sizeof(ips2_proc.dir), "%s", session);
    else
        n = snprintf(ips2_proc.dir, sizeof(ips2_proc.dir), "%s/%s", cwd, session);
    if (n <= 0 || (size_t)n >= sizeof(ips2_proc.dir))
        return -1;
    return make_dirs(ips2_proc.dir);
}

static void identity_setup(void)
{
    const char *app = getenv("IPS2_APP");
    ssize_t n = readlink("/proc/self/exe", ips2_proc.exe, sizeof(ips2_proc.exe) - 1);

    ips2_proc.exe[n > 0 ? n : 0] = '\0';
    ips2_proc.pid = getpid();
    ips2_proc.ppid = getppid();
    if (gethostname(ips2_proc.host, sizeof(ips2_proc.host) - 1) != 0)
        strcpy(ips2_proc.host, "localhost");
    if (app == NULL || app[0] == '\0') {
        const char *slash = strrchr(ips2_proc.exe, '/');
        app = slash ? slash + 1 : ips2_proc.exe;
    }
    snprintf(ips2_proc.app, sizeof(ips2_proc.app), "%.*s", (int)sizeof(ips2_proc.app) - 1, app);
}

/* The first event of a process image (or of a forked child). */
static void process_begin(int how, pid_t parent)
{
    uint64_t ppid = (uint64_t)parent;

    if (ips2_process_stream_open() < 0) {
        fprintf(stderr, "ips2: cannot create trace files in %s: %s; running untraced\n",
                ips2_proc.dir, strerror(errno));
        return;
    }
    ips2_record_modules();
    ips2_proc.initialized = 1;
    ips2_emit_slow(&ips2_self, IPS2_EV_PROC_START, (uint64_t)how, &ppid, 1, IPS2_CPU_READ);
}

static void after_fork_in_child(void)
{
    int saved_errno = errno;
    pid_t parent = ips2_proc.pid;
    pthread_mutex_t unlocked = PTHREAD_MUTEX_INITIALIZER;

    if (!ips2_proc.initialized)
        return;
    ips2_proc.lock = unlocked; /* another thread may have held it at fork */
    ips2_streams_forget();
    ips2_prefault_forget();
    ips2_modules_forget();
    ips2_threads_forget();
    ips2_spawn_forget();
    ips2_filter_after_fork();
    ips2_proc.initialized = 0;
    ips2_proc.pid = getpid();
    ips2_proc.ppid = parent;
    ips2_proc.exit_seen = 0;
    atomic_store(&process_ended, 0);
    process_begin(IPS2_START_FORK, parent);
    errno = saved_errno;
}

__attribute__((constructor(101))) static void ips2_init(void)
{
    int saved_errno = errno;

    if (!tracing_asked())
        return;
    identity_setup();
    ips2_clock_setup(getenv("IPS2_CPUCLOCK"));
    ips2_measure_costs();
    if (session_setup() < 0) {
        fprintf(stderr, "ips2: cannot use session directory %s: %s; running untraced\n",
                ips2_proc.dir, strerror(errno));
        errno = saved_errno;
        return;
    }
    ips2_threads_setup();
    ips2_filter_setup(getenv("IPS2_FILTER"), getenv("IPS2_AUTOCOUNT"));
    pthread_atfork(NULL, NULL, after_fork_in_child);
    process_begin(IPS2_START_INITIAL, ips2_proc.ppid);
    if (ips2_proc.initialized)
        ips2_signals_install();
    errno = saved_errno;
}

/* Records the end of the process once, then seals or closes every stream.
 * in_signal: called from a signal handler or _exit(), where nothing may
 * block, allocate or unmap. */
void ips2_process_end(int how, int status, int in_signal)
{
    struct ips2_thread *t = &ips2_self;
    uint64_t st = (uint64_t)(int64_t)status;

    if (!ips2_proc.initialized || getpid() != ips2_proc.pid || atomic_exchange(&process_ended, 1))
        return;
    if (!in_signal)
        ips2_record_modules(); /* what dlopen brought in since the last event */
    if (t->state == IPS2_THREAD_TRACING)
        ips2_emit_slow(t, IPS2_EV_PROC_EXIT, (uint64_t)how, &st, 1, IPS2_CPU_READ);
    else
        ips2_process_stream_emit(IPS2_EV_PROC_EXIT, (uint64_t)how, &st, 1, !in_signal);
    if (in_signal) {
        ips2_thread_flush_counts(t);
        ips2_streams_seal();
    } else
        ips2_streams_close_all();
}

__attribute__((destructor(101))) static void ips2_fini(void)
{
    int saved_errno = errno;

    if (ips2_proc.exit_seen)
        ips2_process_end(ips2_proc.exit_how, ips2_proc.exit_status, 0);
    else
        ips2_process_end(IPS2_EXIT_CALL, -1, 0); /* status not known */
    errno = saved_errno;
}

/* The status as the parent sees it: exit(258) and a main returning 258
 * are both "exited 2" to waitpid. */
static int parent_sees(int status)
{
    return status & 0377;
}

static void note_exit(int how, int status)
{
    if (!ips2_proc.exit_seen) {
        ips2_proc.exit_how = how;
        ips2_proc.exit_status = parent_sees(status);
        ips2_proc.exit_seen = 1;
    }
}

typedef int (*main_fn)(int, char **, char **);
static main_fn real_main;

static int main_wrapper(int argc, char **argv, char **envp)
{
    int status = real_main(argc, argv, envp);
    note_exit(IPS2_EXIT_RETURN, status);
    return status;
}

/* Wraps main, so that a return from it is told apart from exit(). */
IPS2_EXPORT int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
                                  void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
    typedef int start_fn(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void),
                         void *);
    start_fn *real = (start_fn *)ips2_real("__libc_start_main");

    real_main = main;
    return real(main_wrapper, argc, argv, init, fini, rtld_fini, stack_end);
}

IPS2_EXPORT void exit(int status)
{
    note_exit(IPS2_EXIT_CALL, status);
    IPS2_REAL(exit)(status);
    __builtin_unreachable();
}

IPS2_EXPORT void _exit(int status)
{
    ips2_process_end(IPS2_EXIT_NOW, parent_sees(status), 1);
    IPS2_REAL(_exit)(status);
    __builtin_unreachable();
}

IPS2_EXPORT void _Exit(int status)
{
    ips2_process_end(IPS2_EXIT_NOW, parent_sees(status), 1);
    IPS2_REAL(_Exit)(status);
    __builtin_unreachable();
}
