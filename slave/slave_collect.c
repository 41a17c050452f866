/*
 * slave_collect.c - the collectors a slave runs beside its processes (see
 * slave_collect.h).
 *
 * Each collector is a child in its own process group (a timeout's signal
 * to a workload process group never reaches it) with a pipe on its stdin
 * (the slave writes "PID" and "end PID" lines; closing it ends the
 * collector) and one on its stdout (its answer to "end PID"), stderr into
 * OUTPUT/collector-KIND.stderr.  The program is ips2-collect-KIND in the
 * directory of the slave's own executable.  A collector that cannot be
 * started gets a file of its own, written here, with one note saying why.
 *
 * A collector never holds the slave up for long: its stdin is
 * non-blocking (one that stops reading is unresponsive and its stdin
 * closed, not a slave blocked in write()); one that misses a deadline
 * ("ready", an answer to "end PID") is unresponsive: never waited for
 * again (what it samples by itself still counts).  Either is named in
 * that same file of the slave's (KIND.SLAVEPID.ext, one note per
 * problem), which the reduction lists among the session's problems.  At
 * the end each gets the stop deadline from the end of its input to exit
 * (a pidfd says when), then its process group is killed and it is reaped.
 * Deadlines: IPS2_COLLECTOR_ANSWER_MS and IPS2_COLLECTOR_STOP_MS override
 * the defaults (tests).  Programs are looked up in the directories of
 * IPS2_COLLECTOR_PATH (tests' fake collectors), then beside the slave.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/close_range.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ips2_external.h"
#include "slave_collect.h"

#define ANSWER_MS 2000 /* how long a collector may take for a last sample */
#define STOP_MS   5000 /* how long it may take to end */

struct collector {
    char *kind;
    int64_t interval_ms;
    pid_t pid; /* 0: not running */
    int in, out;
    bool unresponsive;             /* never waited for again (a deadline missed, ...) */
    struct ips2_ext_writer *notes; /* the slave's notes about it; opened on the first */
};

struct slave_collectors {
    char *trace_dir, *output_dir;
    struct collector *v;
    size_t n;
    bool started, stopped;
    int64_t answer_ms, stop_ms;
};

enum answer { ANSWERED, LATE, CLOSED };
static enum answer await_answer(struct collector *x, const char *want, int64_t deadline);

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A deadline in ms from the environment (a positive number), else def. */
static int64_t env_ms(const char *name, int64_t def)
{
    const char *v = getenv(name);
    char *end;
    long long ms = v != NULL ? strtoll(v, &end, 10) : 0;
    return v != NULL && *v != '\0' && *end == '\0' && ms > 0 && ms <= 3600000 ? ms : def;
}

struct slave_collectors *slave_collectors_new(const char *trace_dir, const char *output_dir)
{
    struct slave_collectors *c = calloc(1, sizeof *c);
    if (c == NULL || (c->trace_dir = strdup(trace_dir)) == NULL ||
        (c->output_dir = strdup(output_dir)) == NULL) {
        if (c != NULL)
            free(c->trace_dir);
        free(c);
        return NULL;
    }
    c->answer_ms = env_ms("IPS2_COLLECTOR_ANSWER_MS", ANSWER_MS);
    c->stop_ms = env_ms("IPS2_COLLECTOR_STOP_MS", STOP_MS);
    return c;
}

int slave_collectors_add(struct slave_collectors *c, const char *kind, int64_t interval_ms,
                         char *err, size_t errsize)
{
    size_t len = kind ? strlen(kind) : 0;
    bool ok = len > 0 && len <= 32;
    for (size_t i = 0; ok && i < len; i++)
        ok = (kind[i] >= 'a' && kind[i] <= 'z') || (kind[i] >= '0' && kind[i] <= '9');
    if (!ok) {
        snprintf(err, errsize, "collector kind \"%s\": expected a lower-case name",
                 kind ? kind : "");
        return -1;
    }
    struct collector *v = realloc(c->v, (c->n + 1) * sizeof *v);
    if (v == NULL || (v[c->n].kind = strdup(kind)) == NULL) {
        if (v != NULL)
            c->v = v;
        snprintf(err, errsize, "out of memory");
        return -1;
    }
    c->v = v;
    v[c->n].interval_ms = interval_ms > 0 ? interval_ms : 100;
    v[c->n].pid = 0;
    v[c->n].in = v[c->n].out = -1;
    v[c->n].unresponsive = false;
    v[c->n].notes = NULL;
    c->n++;
    return 0;
}

/* A problem with a collector, for the session's problems: a note in the
 * slave's own file for it (opened on the first note, closed by stop). */
static void note(const struct slave_collectors *c, struct collector *x, const char *text)
{
    char err[IPS2_EXT_ERR_MAX];
    if (x->notes == NULL)
        x->notes = ips2_ext_create(c->trace_dir, x->kind, (uint64_t)x->interval_ms * 1000000, 0,
                                   NULL, err);
    if (x->notes == NULL || ips2_ext_note(x->notes, ips2_ext_now(), 0, text, err) != 0 ||
        ips2_ext_flush(x->notes, err) != 0)
        fprintf(stderr, "ips2slave: collector %s: %s; and %s\n", x->kind, text, err);
}

/* The collector could not start: its file says why. */
static void note_failure(const struct slave_collectors *c, struct collector *x, const char *why)
{
    char text[PATH_MAX + 200];
    snprintf(text, sizeof text, "unavailable: %s", why);
    note(c, x, text);
}

/* The collector missed a deadline or stopped reading: no more waiting for
 * it (it is not asked "end PID" again; what it samples by itself still
 * counts); the note says what happened. */
__attribute__((format(printf, 3, 4))) static void
unresponsive(const struct slave_collectors *c, struct collector *x, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (!x->unresponsive)
        note(c, x, text);
    x->unresponsive = true;
}

static void close_input(struct collector *x)
{
    if (x->in >= 0) {
        close(x->in);
        x->in = -1;
    }
}

/* The program of a kind: in a directory of IPS2_COLLECTOR_PATH (tests put
 * fake collectors there), else beside the slave's own executable.  0, or
 * -1 with why set. */
static int find_program(const char *kind, char *prog, size_t size, char *why, size_t whysize)
{
    const char *path = getenv("IPS2_COLLECTOR_PATH");
    while (path != NULL && *path != '\0') {
        const char *colon = strchr(path, ':');
        size_t len = colon ? (size_t)(colon - path) : strlen(path);
        if (len > 0 && len < PATH_MAX) {
            snprintf(prog, size, "%.*s/ips2-collect-%s", (int)len, path, kind);
            if (access(prog, X_OK) == 0)
                return 0;
        }
        path = colon ? colon + 1 : NULL;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        snprintf(why, whysize, "cannot find the slave's own executable");
        return -1;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash != NULL)
        *slash = '\0';
    snprintf(prog, size, "%s/ips2-collect-%s", self, kind);
    if (access(prog, X_OK) == 0)
        return 0;
    snprintf(why, whysize, "cannot run %s: %s", prog, strerror(errno));
    return -1;
}

static void start_one(struct slave_collectors *c, struct collector *x)
{
    char prog[PATH_MAX + 64], why[PATH_MAX + 160], interval[32], errpath[PATH_MAX + 64];
    if (find_program(x->kind, prog, sizeof prog, why, sizeof why) != 0) {
        note_failure(c, x, why);
        return;
    }
    snprintf(interval, sizeof interval, "%lld", (long long)x->interval_ms);
    snprintf(errpath, sizeof errpath, "%s/collector-%s.stderr", c->output_dir, x->kind);
    int to[2], from[2];
    if (pipe2(to, O_CLOEXEC) != 0) {
        snprintf(why, sizeof why, "pipe: %s", strerror(errno));
        note_failure(c, x, why);
        return;
    }
    if (pipe2(from, O_CLOEXEC) != 0) {
        snprintf(why, sizeof why, "pipe: %s", strerror(errno));
        close(to[0]);
        close(to[1]);
        note_failure(c, x, why);
        return;
    }
    int errfd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);
        dup2(to[0], 0);
        dup2(from[1], 1);
        if (errfd >= 0)
            dup2(errfd, 2);
        close_range(3, ~0u, CLOSE_RANGE_CLOEXEC); /* nothing of the slave's goes past exec */
        char *argv[] = {prog, "-d", c->trace_dir, "-i", interval, NULL};
        execv(prog, argv);
        _exit(127);
    }
    close(to[0]);
    close(from[1]);
    if (errfd >= 0)
        close(errfd);
    if (pid < 0) {
        snprintf(why, sizeof why, "fork: %s", strerror(errno));
        close(to[1]);
        close(from[0]);
        note_failure(c, x, why);
        return;
    }
    setpgid(pid, pid);
    /* a collector that stops reading must not block the slave in write() */
    int fl = fcntl(to[1], F_GETFL);
    if (fl >= 0)
        fcntl(to[1], F_SETFL, fl | O_NONBLOCK);
    x->pid = pid;
    x->in = to[1];
    x->out = from[0];
}

void slave_collectors_start(struct slave_collectors *c)
{
    if (c == NULL || c->started)
        return;
    c->started = true;
    for (size_t i = 0; i < c->n; i++)
        start_one(c, &c->v[i]);
    /* their first sample of the machine comes before the first process */
    int64_t deadline = mono_ms() + c->answer_ms;
    for (size_t i = 0; i < c->n; i++) {
        struct collector *x = &c->v[i];
        if (x->pid <= 0)
            continue;
        enum answer a = await_answer(x, "ready\n", deadline);
        if (a == LATE)
            unresponsive(c, x, "not responding: no \"ready\" within %lld ms of its start",
                         (long long)c->answer_ms);
        else if (a == CLOSED) { /* it ended (why: its own note, or its exit status) */
            x->unresponsive = true;
            close_input(x);
        }
    }
}

bool slave_collectors_running(const struct slave_collectors *c)
{
    return c != NULL && c->started && !c->stopped;
}

/* Writes a line to a collector.  Its stdin is non-blocking: one that is
 * gone, or has stopped reading (the pipe is full), is unresponsive and its
 * stdin closed (a line cut short is no line). */
static bool tell(const struct slave_collectors *c, struct collector *x, const char *line)
{
    size_t len = strlen(line);
    if (x->in < 0)
        return false;
    ssize_t w;
    do {
        w = write(x->in, line, len);
    } while (w < 0 && errno == EINTR);
    if (w == (ssize_t)len)
        return true;
    if (w >= 0 || errno == EAGAIN)
        unresponsive(c, x, "not responding: stopped reading its input (the pipe is full)");
    else
        unresponsive(c, x, "not responding: its input is closed (%s)", strerror(errno));
    close_input(x);
    return false;
}

bool slave_collectors_owns(const struct slave_collectors *c, pid_t pid)
{
    for (size_t i = 0; i < c->n; i++)
        if (pid > 0 && c->v[i].pid == pid)
            return true;
    return false;
}

void slave_collectors_pid(struct slave_collectors *c, pid_t pid)
{
    char line[32];
    snprintf(line, sizeof line, "%d\n", (int)pid);
    for (size_t i = 0; slave_collectors_running(c) && i < c->n; i++)
        tell(c, &c->v[i], line);
}

/* Reads a collector's answers until the line want ("PID\n", "ready\n")
 * comes (ANSWERED), the deadline passes (LATE) or its output ends (CLOSED). */
static enum answer await_answer(struct collector *x, const char *want, int64_t deadline)
{
    char buf[256];
    size_t used = 0;
    while (x->out >= 0) {
        /* past the deadline, what is there already still counts */
        int64_t left = deadline - mono_ms();
        struct pollfd p = {x->out, POLLIN, 0};
        int ready = poll(&p, 1, left > 0 ? (int)left : 0);
        if (ready == 0 && left <= 0)
            return LATE;
        if (ready <= 0)
            continue;
        ssize_t n = read(x->out, buf + used, sizeof buf - 1 - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            close(x->out);
            x->out = -1;
            return CLOSED;
        }
        used += (size_t)n;
        buf[used] = '\0';
        char *nl;
        while ((nl = strchr(buf, '\n')) != NULL) {
            bool match = strncmp(buf, want, (size_t)(nl - buf) + 1) == 0;
            used -= (size_t)(nl + 1 - buf);
            memmove(buf, nl + 1, used + 1);
            if (match)
                return ANSWERED;
        }
        if (used == sizeof buf - 1)
            used = 0;
    }
    return CLOSED;
}

void slave_collectors_final(struct slave_collectors *c, pid_t pid)
{
    char line[40], want[32];
    snprintf(line, sizeof line, "end %d\n", (int)pid);
    snprintf(want, sizeof want, "%d\n", (int)pid);
    if (!slave_collectors_running(c))
        return;
    /* one deadline for all: a late one is not asked again, so a hung
     * collector costs the slave one wait, not one per process */
    int64_t deadline = mono_ms() + c->answer_ms;
    for (size_t i = 0; i < c->n; i++) {
        struct collector *x = &c->v[i];
        if (x->unresponsive || !tell(c, x, line))
            continue;
        enum answer a = await_answer(x, want, deadline);
        if (a == LATE)
            unresponsive(c, x,
                         "not responding: no answer to \"end %d\" within %lld ms (the last "
                         "samples of this and later processes may be missing)",
                         (int)pid, (long long)c->answer_ms);
        else if (a == CLOSED)
            unresponsive(c, x,
                         "ended or closed its output before answering \"end %d\" (the last "
                         "samples of this and later processes may be missing)",
                         (int)pid);
    }
}

static int pidfd_of(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

/* Waits until x's process has exited (not reaped) or the deadline passed,
 * reading and dropping what it writes meanwhile.  Whether it exited. */
static bool await_exit(struct collector *x, int64_t deadline)
{
    int pfd = pidfd_of(x->pid);
    for (;;) {
        siginfo_t info = {0};
        if (waitid(P_PID, (id_t)x->pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
            info.si_pid == x->pid)
            break;
        int64_t left = deadline - mono_ms();
        if (left <= 0) {
            if (pfd >= 0)
                close(pfd);
            return false;
        }
        /* without a pidfd (an old kernel), look again every 10 ms */
        struct pollfd p[2] = {{x->out, POLLIN, 0}, {pfd, POLLIN, 0}};
        int wait = pfd >= 0 ? (int)left : (int)(left < 10 ? left : 10);
        if (poll(p, 2, wait) > 0 && x->out >= 0 && (p[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            char buf[256];
            ssize_t n = read(x->out, buf, sizeof buf);
            if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
                close(x->out);
                x->out = -1;
            }
        }
    }
    if (pfd >= 0)
        close(pfd);
    return true;
}

void slave_collectors_stop(struct slave_collectors *c)
{
    if (!slave_collectors_running(c))
        return;
    c->stopped = true;
    for (size_t i = 0; i < c->n; i++)
        if (c->v[i].in >= 0) {
            close(c->v[i].in);
            c->v[i].in = -1;
        }
    int64_t deadline = mono_ms() + c->stop_ms;
    for (size_t i = 0; i < c->n; i++) {
        struct collector *x = &c->v[i];
        if (x->pid > 0) {
            if (!await_exit(x, deadline)) {
                char text[128];
                snprintf(text, sizeof text,
                         "did not end within %lld ms of the end of its input: killed",
                         (long long)c->stop_ms);
                note(c, x, text);
            }
            /* what it left in its process group goes too (the zombie keeps
             * the group's id from being reused until it is reaped) */
            kill(-x->pid, SIGKILL);
            int status = 0;
            pid_t w;
            while ((w = waitpid(x->pid, &status, 0)) < 0 && errno == EINTR)
                continue;
            if (w == x->pid && WIFEXITED(status) && WEXITSTATUS(status) != 0)
                fprintf(stderr, "ips2slave: collector %s exited %d\n", x->kind,
                        WEXITSTATUS(status));
            x->pid = 0;
        }
        if (x->out >= 0) {
            close(x->out);
            x->out = -1;
        }
        if (x->notes != NULL) {
            char err[IPS2_EXT_ERR_MAX];
            if (ips2_ext_close(x->notes, err) != 0)
                fprintf(stderr, "ips2slave: collector %s: %s\n", x->kind, err);
            x->notes = NULL;
        }
    }
}

void slave_collectors_free(struct slave_collectors *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; i < c->n; i++)
        if (c->v[i].pid > 0)
            kill(-c->v[i].pid, SIGTERM);
    slave_collectors_stop(c);
    for (size_t i = 0; i < c->n; i++) {
        if (c->v[i].in >= 0)
            close(c->v[i].in);
        if (c->v[i].out >= 0)
            close(c->v[i].out);
        free(c->v[i].kind);
    }
    free(c->v);
    free(c->trace_dir);
    free(c->output_dir);
    free(c);
}
