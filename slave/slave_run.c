/*
 * slave_run.c - ips2slave's process runner (see slave_run.h).
 *
 * Each process runs in its own process group (so a timeout reaches its
 * children too) with stdin from /dev/null, stdout and stderr into
 * OUTPUT/APP.INDEX.stdout|stderr, and IPS2_SESSION / IPS2_APP set on top
 * of the slave's environment and the workload's variables.  A failed
 * chdir or exec is reported by the child through a close-on-exec pipe
 * (errno and which step failed), so "cannot start" is told apart from "ran
 * and exited 127".  SIGCHLD is read from a signalfd; timeouts are absolute
 * CLOCK_MONOTONIC deadlines, so the slave's main loop needs no timers of
 * its own beyond slave_runner_wait_ms().  The collectors (slave_collect.c)
 * start before the first process, hear of each one started, take their
 * last sample of each ended one before it is reaped (waitid WNOWAIT), and
 * stop once none runs.
 *
 * The end of a run: the slave is a child subreaper (PR_SET_CHILD_SUBREAPER),
 * so a process that a workload process left behind (a server that
 * daemonized with fork + setsid, a child its parent did not wait for) is
 * re-parented to the slave when its parent ends.  Those descendants are
 * found among the slave's children (/proc/self/task/T/children, less the
 * workload's processes and the collectors) and the run waits for them as
 * for its own processes: they count as running, they are reaped here, and
 * the run's latest timeout applies to them (SIGTERM to the descendant and
 * its process group, SIGKILL after the grace time, named through the note
 * callback).  So the traces are reduced only once every writer has ended.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <linux/close_range.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "slave_collect.h"
#include "slave_end.h"
#include "slave_run.h"

extern char **environ;

enum proc_state {
    P_RUNNING,     /* started, not reaped */
    P_TERMINATING, /* timed out: SIGTERM sent, SIGKILL at kill_at */
    P_ENDED,       /* reaped or failed; end not yet reported */
    P_REPORTED,
};

struct proc {
    char *app;
    int index;
    pid_t pid;
    enum proc_state state;
    int64_t timeout_ms;
    int64_t deadline; /* mono ns of the timeout; 0: none */
    int64_t kill_at;  /* mono ns of the SIGKILL after a timeout */
    bool timed_out;
    struct slave_proc_end end;
};

/* A descendant re-parented to the slave (see the top). */
struct adopted {
    pid_t pid;
    int64_t kill_at; /* mono ns of the SIGKILL once its timeout came; 0: not yet */
};

struct slave_runner {
    char *trace_dir;
    char *output_dir;
    int64_t grace_ms;
    int sigfd;
    sigset_t old_mask;
    struct proc *procs;
    int nprocs, cap;
    struct slave_collectors *col; /* run beside the processes (slave_collect.c) */
    struct adopted *adopted;      /* descendants left running by the processes */
    int nadopted, cap_adopted;
    slave_note_fn *note;
    void *note_arg;
};

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* mkdir -p; returns 0 or -1 with errno. */
static int make_dirs(const char *path)
{
    char buf[PATH_MAX];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, n + 1);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

struct slave_runner *slave_runner_new(const char *trace_dir, const char *output_dir,
                                      int64_t grace_ms, char *err, size_t errsize)
{
    const char *bad = NULL;
    if (make_dirs(trace_dir) != 0)
        bad = trace_dir;
    else if (make_dirs(output_dir) != 0)
        bad = output_dir;
    if (bad != NULL) {
        snprintf(err, errsize, "cannot make directory %s: %s", bad, strerror(errno));
        return NULL;
    }
    struct slave_runner *r = calloc(1, sizeof *r);
    if (r == NULL || (r->trace_dir = strdup(trace_dir)) == NULL ||
        (r->output_dir = strdup(output_dir)) == NULL) {
        if (r != NULL)
            free(r->trace_dir);
        free(r);
        snprintf(err, errsize, "out of memory");
        return NULL;
    }
    r->grace_ms = grace_ms;
    /* orphaned descendants of the processes become the slave's children */
    prctl(PR_SET_CHILD_SUBREAPER, 1L, 0L, 0L, 0L);
    if ((r->col = slave_collectors_new(trace_dir, output_dir)) == NULL) {
        free(r->output_dir);
        free(r->trace_dir);
        free(r);
        snprintf(err, errsize, "out of memory");
        return NULL;
    }
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set, &r->old_mask);
    r->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (r->sigfd < 0) {
        snprintf(err, errsize, "signalfd: %s", strerror(errno));
        sigprocmask(SIG_SETMASK, &r->old_mask, NULL);
        slave_collectors_free(r->col);
        free(r->output_dir);
        free(r->trace_dir);
        free(r);
        return NULL;
    }
    return r;
}

static void find_descendants(struct slave_runner *r);

void slave_runner_free(struct slave_runner *r)
{
    if (r == NULL)
        return;
    find_descendants(r); /* those re-parented since the last step go too */
    slave_runner_kill_all(r);
    for (int i = 0; i < r->nprocs; i++) {
        struct proc *p = &r->procs[i];
        if (p->state == P_RUNNING || p->state == P_TERMINATING)
            waitpid(p->pid, NULL, 0);
        free(p->app);
    }
    for (int i = 0; i < r->nadopted; i++)
        waitpid(r->adopted[i].pid, NULL, 0);
    free(r->adopted);
    slave_collectors_free(r->col);
    free(r->procs);
    close(r->sigfd);
    sigprocmask(SIG_SETMASK, &r->old_mask, NULL);
    free(r->trace_dir);
    free(r->output_dir);
    free(r);
}

int slave_runner_add_collector(struct slave_runner *r, const char *kind, int64_t interval_ms,
                               char *err, size_t errsize)
{
    return slave_collectors_add(r->col, kind, interval_ms, err, errsize);
}

int slave_runner_fd(const struct slave_runner *r)
{
    return r->sigfd;
}

int slave_runner_count(const struct slave_runner *r)
{
    return r->nprocs;
}

void slave_runner_on_note(struct slave_runner *r, slave_note_fn *fn, void *arg)
{
    r->note = fn;
    r->note_arg = arg;
}

int slave_runner_descendants(const struct slave_runner *r)
{
    return r->nadopted;
}

int slave_runner_running(const struct slave_runner *r)
{
    int n = r->nadopted;
    for (int i = 0; i < r->nprocs; i++)
        n += r->procs[i].state == P_RUNNING || r->procs[i].state == P_TERMINATING;
    return n;
}

/* A file name for an application: '/' would make a path of it. */
static void output_path(char *buf, size_t size, const char *dir, const char *app, int index,
                        const char *suffix)
{
    int n = snprintf(buf, size, "%s/", dir);
    for (const char *a = app; *a && n + 1 < (int)size; a++)
        buf[n++] = *a == '/' ? '_' : *a;
    buf[n < (int)size ? n : (int)size - 1] = '\0';
    size_t len = strlen(buf);
    snprintf(buf + len, size - len, ".%d.%s", index, suffix);
}

/* Whether env entry e ("NAME=...") sets the variable of override o ("NAME=..."). */
static bool same_name(const char *e, const char *o)
{
    const char *eq = strchr(o, '=');
    size_t n = eq ? (size_t)(eq - o) : strlen(o);
    return strncmp(e, o, n) == 0 && e[n] == '=';
}

/* The child's environment: the slave's, minus what is overridden, plus
 * the overrides (of two overrides of one name, the later wins).  Pointers
 * into environ and over; only the array is new. */
static char **child_env(char **over, int nover)
{
    size_t n = 0;
    while (environ[n] != NULL)
        n++;
    char **env = malloc((n + (size_t)nover + 1) * sizeof *env);
    if (env == NULL)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        bool keep = true;
        for (int j = 0; j < nover && keep; j++)
            keep = !same_name(environ[i], over[j]);
        if (keep)
            env[k++] = environ[i];
    }
    for (int j = 0; j < nover; j++) {
        bool keep = true;
        for (int l = j + 1; l < nover && keep; l++)
            keep = !same_name(over[j], over[l]);
        if (keep)
            env[k++] = over[j];
    }
    env[k] = NULL;
    return env;
}

static struct proc *add_proc(struct slave_runner *r, const struct slave_proc_spec *spec)
{
    if (r->nprocs == r->cap) {
        int cap = r->cap ? 2 * r->cap : 16;
        struct proc *np = realloc(r->procs, (size_t)cap * sizeof *np);
        if (np == NULL)
            return NULL;
        r->procs = np;
        r->cap = cap;
    }
    struct proc *p = &r->procs[r->nprocs];
    memset(p, 0, sizeof *p);
    p->app = strdup(spec->app ? spec->app : "");
    if (p->app == NULL)
        return NULL;
    r->nprocs++;
    p->index = spec->index;
    p->timeout_ms = spec->timeout_ms;
    p->end.app = p->app;
    p->end.index = spec->index;
    return p;
}

/* Marks p as failed to start; the text may be cut to SLAVE_TEXT_MAX. */
__attribute__((format(printf, 3, 4))) static void fail(struct proc *p, int code, const char *fmt,
                                                       ...)
{
    p->state = P_ENDED;
    p->pid = 0;
    p->end.pid = 0;
    p->end.how = IPS2_PROC_FAILED;
    p->end.code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->end.text, sizeof p->end.text, fmt, ap);
    va_end(ap);
}

/* What the child reports through the pipe when it cannot start. */
struct start_error {
    int step; /* 1 chdir, 2 exec */
    int err;
};

/* In the child, after fork: only async-signal-safe calls. */
static void child(const struct slave_proc_spec *spec, char **env, int out, int errfd, int pipefd)
{
    setpgid(0, 0);
    static const int sigs[] = {SIGPIPE, SIGINT,  SIGQUIT, SIGTERM, SIGCHLD,
                               SIGHUP,  SIGUSR1, SIGUSR2, SIGALRM};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    int in = open("/dev/null", O_RDONLY);
    if (in >= 0 && in != 0) {
        dup2(in, 0);
        close(in);
    }
    dup2(out, 1);
    dup2(errfd, 2);
    if (out > 2)
        close(out);
    if (errfd > 2)
        close(errfd);
    /* nothing of the slave's (its pvmd socket above all) goes past exec:
     * a process holding it would hide the slave's death from the pvmd */
    close_range(3, ~0u, CLOSE_RANGE_CLOEXEC);

    struct start_error se = {0, 0};
    if (spec->cwd != NULL && spec->cwd[0] != '\0' && chdir(spec->cwd) != 0) {
        se.step = 1;
        se.err = errno;
    } else {
        execvpe(spec->argv[0], spec->argv, env);
        se.step = 2;
        se.err = errno;
    }
    ssize_t w = write(pipefd, &se, sizeof se);
    (void)w;
    _exit(127);
}

pid_t slave_runner_start(struct slave_runner *r, const struct slave_proc_spec *spec)
{
    struct proc *p = add_proc(r, spec);
    if (p == NULL)
        return 0;                   /* out of memory: nothing we could even report */
    slave_collectors_start(r->col); /* before the first process, once */
    if (spec->argv == NULL || spec->argv[0] == NULL || spec->argv[0][0] == '\0') {
        fail(p, EINVAL, "no command");
        return 0;
    }

    char opath[PATH_MAX], epath[PATH_MAX];
    output_path(opath, sizeof opath, r->output_dir, spec->app ? spec->app : "", spec->index,
                "stdout");
    output_path(epath, sizeof epath, r->output_dir, spec->app ? spec->app : "", spec->index,
                "stderr");
    int out = open(opath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (out < 0) {
        fail(p, errno, "cannot create %s: %s", opath, strerror(errno));
        return 0;
    }
    int errfd = open(epath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (errfd < 0) {
        fail(p, errno, "cannot create %s: %s", epath, strerror(errno));
        close(out);
        return 0;
    }

    /* The workload's variables, then IPS2_SESSION and IPS2_APP, which win. */
    int nenv = 0;
    while (spec->env != NULL && spec->env[nenv] != NULL)
        nenv++;
    char **over = calloc((size_t)nenv + 2, sizeof *over);
    size_t slen = strlen(r->trace_dir) + sizeof "IPS2_SESSION=";
    size_t alen = strlen(p->app) + sizeof "IPS2_APP=";
    char *sess = malloc(slen), *appv = malloc(alen);
    char **env = NULL;
    if (over != NULL && sess != NULL && appv != NULL) {
        snprintf(sess, slen, "IPS2_SESSION=%s", r->trace_dir);
        snprintf(appv, alen, "IPS2_APP=%s", p->app);
        for (int i = 0; i < nenv; i++)
            over[i] = spec->env[i];
        over[nenv] = sess;
        over[nenv + 1] = appv;
        env = child_env(over, nenv + 2);
    }
    int pipefd[2] = {-1, -1};
    pid_t pid = -1;
    int fork_errno = ENOMEM;
    if (env != NULL && pipe2(pipefd, O_CLOEXEC) == 0) {
        pid = fork();
        fork_errno = errno;
        if (pid == 0)
            child(spec, env, out, errfd, pipefd[1]);
    } else if (env != NULL) {
        fork_errno = errno;
    }
    close(out);
    close(errfd);
    free(env);
    free(over);
    free(sess);
    free(appv);
    if (pipefd[1] >= 0)
        close(pipefd[1]);
    if (pid < 0) {
        if (pipefd[0] >= 0)
            close(pipefd[0]);
        fail(p, fork_errno, "cannot start %s: %s", spec->argv[0], strerror(fork_errno));
        return 0;
    }
    setpgid(pid, pid); /* also in the child: whichever runs first */

    struct start_error se;
    ssize_t n;
    do {
        n = read(pipefd[0], &se, sizeof se);
    } while (n < 0 && errno == EINTR);
    close(pipefd[0]);
    if (n == (ssize_t)sizeof se) {
        waitpid(pid, NULL, 0);
        if (se.step == 1)
            fail(p, se.err, "cannot change to directory %s: %s", spec->cwd, strerror(se.err));
        else
            fail(p, se.err, "cannot execute %s: %s", spec->argv[0], strerror(se.err));
        return 0;
    }

    p->pid = pid;
    p->end.pid = pid;
    p->state = P_RUNNING;
    slave_collectors_pid(r->col, pid);
    if (spec->timeout_ms > 0)
        p->deadline = mono_ns() + spec->timeout_ms * 1000000;
    return pid;
}

/* The workload's processes still running (the descendants not counted). */
static int procs_running(const struct slave_runner *r)
{
    int n = 0;
    for (int i = 0; i < r->nprocs; i++)
        n += r->procs[i].state == P_RUNNING || r->procs[i].state == P_TERMINATING;
    return n;
}

/* The run's latest timeout (mono ns), which its descendants get; 0: none. */
static int64_t run_deadline(const struct slave_runner *r)
{
    int64_t last = 0;
    for (int i = 0; i < r->nprocs; i++)
        if (r->procs[i].deadline > last)
            last = r->procs[i].deadline;
    return last;
}

__attribute__((format(printf, 2, 3))) static void note(struct slave_runner *r, const char *fmt, ...)
{
    char text[SLAVE_TEXT_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (r->note != NULL)
        r->note(r->note_arg, text);
}

static bool known_child(const struct slave_runner *r, pid_t pid)
{
    for (int i = 0; i < r->nprocs; i++) /* an ended one's pid may be another's now */
        if (r->procs[i].pid == pid &&
            (r->procs[i].state == P_RUNNING || r->procs[i].state == P_TERMINATING))
            return true;
    for (int i = 0; i < r->nadopted; i++)
        if (r->adopted[i].pid == pid)
            return true;
    return slave_collectors_owns(r->col, pid);
}

static void adopt(struct slave_runner *r, pid_t pid)
{
    if (r->nadopted == r->cap_adopted) {
        int cap = r->cap_adopted ? 2 * r->cap_adopted : 8;
        struct adopted *v = realloc(r->adopted, (size_t)cap * sizeof *v);
        if (v == NULL)
            return; /* it stays a zombie until the runner ends */
        r->adopted = v;
        r->cap_adopted = cap;
    }
    r->adopted[r->nadopted++] = (struct adopted){pid, 0};
}

/* Takes in the slave's children that are neither its processes nor its
 * collectors: descendants re-parented to it.  A child forked by any
 * thread of the slave (or re-parented to any of them) is listed in that
 * thread's children file. */
static void find_descendants(struct slave_runner *r)
{
    DIR *d = opendir("/proc/self/task");
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "/proc/self/task/%s/children", e->d_name);
        FILE *f = fopen(path, "re");
        if (f == NULL)
            continue;
        int pid;
        while (fscanf(f, "%d", &pid) == 1)
            if (pid > 0 && !known_child(r, (pid_t)pid))
                adopt(r, (pid_t)pid);
        fclose(f);
    }
    closedir(d);
}

/* Reaps the descendants that ended; applies the run's timeout to those
 * left once the workload's processes have all ended. */
static void step_descendants(struct slave_runner *r, int64_t now)
{
    find_descendants(r);
    int64_t last = procs_running(r) == 0 ? run_deadline(r) : 0;
    for (int i = 0; i < r->nadopted;) {
        struct adopted *a = &r->adopted[i];
        int status;
        pid_t w = waitpid(a->pid, &status, WNOHANG);
        if (w == a->pid || (w < 0 && errno == ECHILD)) {
            r->adopted[i] = r->adopted[--r->nadopted];
            continue;
        }
        if (a->kill_at == 0 && last > 0 && now >= last) {
            char comm[64];
            slave_end_command_of(a->pid, comm, sizeof comm);
            note(r,
                 "process %d (%s), left running by the workload's processes, still ran at "
                 "the run's timeout: stopped with SIGTERM",
                 (int)a->pid, comm);
            a->kill_at = now + r->grace_ms * 1000000;
            if (getpgid(a->pid) == a->pid)
                kill(-a->pid, SIGTERM);
            kill(a->pid, SIGTERM);
        } else if (a->kill_at > 0 && now >= a->kill_at) {
            if (getpgid(a->pid) == a->pid)
                kill(-a->pid, SIGKILL);
            kill(a->pid, SIGKILL);
            a->kill_at = now + 1000000000;
        }
        i++;
    }
}

int slave_runner_wait_ms(const struct slave_runner *r)
{
    int64_t now = mono_ns(), next = -1;
    for (int i = 0; i < r->nprocs; i++) {
        const struct proc *p = &r->procs[i];
        int64_t t = -1;
        if (p->state == P_ENDED)
            return 0;
        if (p->state == P_RUNNING && p->deadline > 0)
            t = p->deadline;
        else if (p->state == P_TERMINATING)
            t = p->kill_at;
        if (t >= 0 && (next < 0 || t < next))
            next = t;
    }
    int64_t last = procs_running(r) == 0 ? run_deadline(r) : 0;
    for (int i = 0; i < r->nadopted; i++) {
        int64_t t = r->adopted[i].kill_at > 0 ? r->adopted[i].kill_at : last;
        if (t > 0 && (next < 0 || t < next))
            next = t;
    }
    if (next < 0)
        return -1;
    if (next <= now)
        return 0;
    int64_t ms = (next - now + 999999) / 1000000;
    return ms > INT_MAX ? INT_MAX : (int)ms;
}

static void reaped(struct proc *p, int status)
{
    p->state = P_ENDED;
    if (p->timed_out) {
        p->end.how = IPS2_PROC_TIMEOUT;
        p->end.code = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        snprintf(p->end.text, sizeof p->end.text, "timeout after %.3g s",
                 (double)p->timeout_ms / 1000.0);
        /* it ended on the SIGTERM by itself (a server's clean stop): the
         * text says how, as there is no signal to name */
        if (WIFEXITED(status))
            snprintf(p->end.text + strlen(p->end.text), sizeof p->end.text - strlen(p->end.text),
                     ": stopped with SIGTERM, exited %d", WEXITSTATUS(status));
    } else if (WIFSIGNALED(status)) {
        p->end.how = IPS2_PROC_SIGNALED;
        p->end.code = WTERMSIG(status);
    } else {
        p->end.how = IPS2_PROC_EXITED;
        p->end.code = WEXITSTATUS(status);
    }
}

int slave_runner_step(struct slave_runner *r, slave_end_fn *fn, void *arg)
{
    struct signalfd_siginfo si;
    while (read(r->sigfd, &si, sizeof si) == (ssize_t)sizeof si)
        continue;

    int64_t now = mono_ns();
    for (int i = 0; i < r->nprocs; i++) {
        struct proc *p = &r->procs[i];
        if (p->state != P_RUNNING && p->state != P_TERMINATING)
            continue;
        int status;
        siginfo_t info = {0};
        /* an exited process stays a zombie until the collectors' last sample of it */
        if (slave_collectors_running(r->col) &&
            waitid(P_PID, (id_t)p->pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
            info.si_pid == p->pid)
            slave_collectors_final(r->col, p->pid);
        pid_t w = waitpid(p->pid, &status, WNOHANG);
        if (w == p->pid) {
            reaped(p, status);
            continue;
        }
        if (w < 0 && errno == ECHILD) { /* reaped elsewhere: nothing to tell */
            p->state = P_ENDED;
            p->end.how = IPS2_PROC_EXITED;
            p->end.code = 0;
            snprintf(p->end.text, sizeof p->end.text, "exit status lost");
            continue;
        }
        if (p->state == P_RUNNING && p->deadline > 0 && now >= p->deadline) {
            p->timed_out = true;
            p->state = P_TERMINATING;
            p->kill_at = now + r->grace_ms * 1000000;
            kill(-p->pid, SIGTERM);
        } else if (p->state == P_TERMINATING && now >= p->kill_at) {
            kill(-p->pid, SIGKILL);
            p->kill_at = now + 1000000000; /* again in a second if it still lingers */
        }
    }

    step_descendants(r, now);

    for (int i = 0; i < r->nprocs; i++) {
        struct proc *p = &r->procs[i];
        if (p->state != P_ENDED)
            continue;
        p->state = P_REPORTED;
        if (fn != NULL)
            fn(arg, &p->end);
    }
    int running = slave_runner_running(r);
    if (running == 0)
        slave_collectors_stop(r->col); /* their files are complete before the reduction */
    return running;
}

void slave_runner_kill_all(struct slave_runner *r)
{
    for (int i = 0; i < r->nprocs; i++) {
        struct proc *p = &r->procs[i];
        if (p->state == P_RUNNING || p->state == P_TERMINATING)
            kill(-p->pid, SIGKILL);
    }
    for (int i = 0; i < r->nadopted; i++) {
        if (getpgid(r->adopted[i].pid) == r->adopted[i].pid)
            kill(-r->adopted[i].pid, SIGKILL);
        kill(r->adopted[i].pid, SIGKILL);
    }
}

void slave_runner_refuse(struct slave_runner *r, const struct slave_proc_spec *spec,
                         const char *why)
{
    struct proc *p = add_proc(r, spec);
    if (p != NULL)
        fail(p, 0, "%s", why);
}

int slave_runner_stop(struct slave_runner *r, const char *app, int index, int sig, int64_t grace_ms)
{
    for (int i = 0; i < r->nprocs; i++) {
        struct proc *p = &r->procs[i];
        if (p->index != index || strcmp(p->app, app) != 0 || p->state != P_RUNNING)
            continue;
        if (kill(-p->pid, sig) != 0)
            return -1;
        p->state = P_TERMINATING;
        p->kill_at = mono_ns() + (grace_ms > 0 ? grace_ms : 0) * 1000000;
        return 0;
    }
    return -1;
}
