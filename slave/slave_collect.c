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
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/close_range.h>
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
};

struct slave_collectors {
    char *trace_dir, *output_dir;
    struct collector *v;
    size_t n;
    bool started, stopped;
};

static void await_answer(struct collector *x, const char *want, int64_t deadline);

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
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
    c->n++;
    return 0;
}

/* The collector could not start: its file says why. */
static void note_failure(const struct slave_collectors *c, const struct collector *x,
                         const char *why)
{
    char err[IPS2_EXT_ERR_MAX], text[PATH_MAX + 128];
    struct ips2_ext_writer *w =
        ips2_ext_create(c->trace_dir, x->kind, (uint64_t)x->interval_ms * 1000000, 0, NULL, err);
    if (w == NULL) {
        fprintf(stderr, "ips2slave: collector %s: %s; and %s\n", x->kind, why, err);
        return;
    }
    snprintf(text, sizeof text, "unavailable: %s", why);
    ips2_ext_note(w, ips2_ext_now(), 0, text, err);
    ips2_ext_close(w, err);
}

static void start_one(struct slave_collectors *c, struct collector *x)
{
    char self[PATH_MAX], prog[PATH_MAX + 64], why[PATH_MAX + 128], interval[32],
        errpath[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        note_failure(c, x, "cannot find the slave's own executable");
        return;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash != NULL)
        *slash = '\0';
    snprintf(prog, sizeof prog, "%s/ips2-collect-%s", self, x->kind);
    if (access(prog, X_OK) != 0) {
        snprintf(why, sizeof why, "cannot run %s: %s", prog, strerror(errno));
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
    int64_t deadline = mono_ms() + ANSWER_MS;
    for (size_t i = 0; i < c->n; i++)
        await_answer(&c->v[i], "ready\n", deadline);
}

bool slave_collectors_running(const struct slave_collectors *c)
{
    return c != NULL && c->started && !c->stopped;
}

/* Writes a line to a collector; one that is gone is closed. */
static bool tell(struct collector *x, const char *line)
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
    close(x->in);
    x->in = -1;
    return false;
}

void slave_collectors_pid(struct slave_collectors *c, pid_t pid)
{
    char line[32];
    snprintf(line, sizeof line, "%d\n", (int)pid);
    for (size_t i = 0; slave_collectors_running(c) && i < c->n; i++)
        tell(&c->v[i], line);
}

/* Reads a collector's answers until the line want ("PID\n", "ready\n")
 * comes, the deadline passes or the collector is gone. */
static void await_answer(struct collector *x, const char *want, int64_t deadline)
{
    char buf[256];
    size_t used = 0;
    while (x->out >= 0) {
        int64_t left = deadline - mono_ms();
        if (left <= 0)
            return;
        struct pollfd p = {x->out, POLLIN, 0};
        if (poll(&p, 1, (int)left) <= 0)
            continue;
        ssize_t n = read(x->out, buf + used, sizeof buf - 1 - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            close(x->out);
            x->out = -1;
            return;
        }
        used += (size_t)n;
        buf[used] = '\0';
        char *nl;
        while ((nl = strchr(buf, '\n')) != NULL) {
            bool match = strncmp(buf, want, (size_t)(nl - buf) + 1) == 0;
            used -= (size_t)(nl + 1 - buf);
            memmove(buf, nl + 1, used + 1);
            if (match)
                return;
        }
        if (used == sizeof buf - 1)
            used = 0;
    }
}

void slave_collectors_final(struct slave_collectors *c, pid_t pid)
{
    char line[40], want[32];
    snprintf(line, sizeof line, "end %d\n", (int)pid);
    snprintf(want, sizeof want, "%d\n", (int)pid);
    if (!slave_collectors_running(c))
        return;
    int64_t deadline = mono_ms() + ANSWER_MS;
    for (size_t i = 0; i < c->n; i++)
        if (tell(&c->v[i], line))
            await_answer(&c->v[i], want, deadline);
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
    int64_t deadline = mono_ms() + STOP_MS;
    for (size_t i = 0; i < c->n; i++) {
        struct collector *x = &c->v[i];
        if (x->pid <= 0)
            continue;
        /* its stdout closes when it exits */
        while (x->out >= 0) {
            int64_t left = deadline - mono_ms();
            struct pollfd p = {x->out, POLLIN, 0};
            if (left <= 0 || poll(&p, 1, (int)left) == 0)
                break;
            char buf[256];
            ssize_t n = read(x->out, buf, sizeof buf);
            if (n == 0 || (n < 0 && errno != EINTR)) {
                close(x->out);
                x->out = -1;
            }
        }
        if (x->out >= 0) {
            fprintf(stderr, "ips2slave: collector %s did not end in %d ms: killed\n", x->kind,
                    STOP_MS);
            kill(-x->pid, SIGKILL);
            close(x->out);
            x->out = -1;
        }
        int status = 0;
        pid_t w;
        while ((w = waitpid(x->pid, &status, 0)) < 0 && errno == EINTR)
            continue;
        if (w == x->pid && WIFEXITED(status) && WEXITSTATUS(status) != 0)
            fprintf(stderr, "ips2slave: collector %s exited %d\n", x->kind, WEXITSTATUS(status));
        x->pid = 0;
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
