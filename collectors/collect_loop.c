/*
 * collect_loop.c - the sampling loop every collector program shares (see
 * collect.h): arguments, the processes to watch (command line, stdin,
 * the trace directory through inotify), one sampling round per interval
 * with one write, the final round at the end.
 *
 * One thread; poll() on stdin, the inotify descriptor and a signalfd for
 * SIGTERM/SIGINT, with the next round's deadline as its timeout.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "collect.h"
#include "ips2_external.h"

struct watched {
    uint32_t pid;
    bool open;    /* being sampled (false: gone, or refused) */
    bool written; /* a first sample was written */
    void *priv;
    double *last;
};

struct loop {
    const struct collect_ops *ops;
    void *state;
    struct ips2_ext_writer *w;
    struct watched *v;
    size_t n, cap;
    double *cur;
    char err[IPS2_EXT_ERR_MAX];
    bool write_failed;
};

static void writer_failed(struct loop *l)
{
    if (!l->write_failed)
        fprintf(stderr, "ips2-collect-%s: %s\n", l->ops->kind, l->err);
    l->write_failed = true;
}

static struct watched *find(struct loop *l, uint32_t pid)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].pid == pid)
            return &l->v[i];
    return NULL;
}

/* Writes the values of one focus that changed since its last sample. */
static void record(struct loop *l, struct watched *x, int64_t now)
{
    for (int k = 0; k < l->ops->nmetrics; k++) {
        if (!isfinite(l->cur[k]) || (x->written && x->last[k] == l->cur[k]))
            continue; /* not measured here, or no change */
        if (ips2_ext_sample(l->w, now, k, x->pid, l->cur[k], l->err) != 0)
            writer_failed(l);
        x->last[k] = l->cur[k];
    }
    x->written = true;
}

static void close_one(struct loop *l, struct watched *x)
{
    if (x->open && x->pid != 0 && l->ops->close_pid != NULL)
        l->ops->close_pid(l->state, x->priv);
    x->open = false;
    x->priv = NULL;
}

/* Samples one focus; a process that is gone is closed (its last sample stands). */
static void sample(struct loop *l, struct watched *x, int64_t now)
{
    if (!x->open)
        return;
    if (l->ops->read(l->state, x->pid, x->priv, l->cur) != 0) {
        close_one(l, x);
        return;
    }
    record(l, x, now);
}

/* Starts watching pid (a process record says so, before its samples).
 * again: the slave started a process under this pid.  If the pid's entry
 * is closed (its process ended: "end PID", or it could no longer be read),
 * the system reused the pid for a new process, whose counters start from
 * 0: a new entry.  An open entry is the same process (its streams in the
 * trace directory were seen before the slave's line came); a pid only seen
 * again in the trace directory is the old process's. */
static void add(struct loop *l, uint32_t pid, bool again)
{
    struct watched *old = find(l, pid);
    if (old != NULL && (!again || pid == 0 || old->open))
        return;
    if (old != NULL) {
        close_one(l, old);
        old->pid = UINT32_MAX; /* forgotten: pid is the new process's now */
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 32;
        struct watched *v = realloc(l->v, cap * sizeof *v);
        if (v == NULL)
            return;
        l->v = v;
        l->cap = cap;
    }
    struct watched *x = &l->v[l->n];
    memset(x, 0, sizeof *x);
    x->pid = pid;
    x->last = calloc((size_t)l->ops->nmetrics, sizeof *x->last);
    if (x->last == NULL)
        return;
    l->n++;
    if (pid != 0 && ips2_ext_process(l->w, ips2_ext_now(), pid, l->err) != 0)
        writer_failed(l);
    char why[COLLECT_WHY_MAX] = "";
    if (pid == 0 || l->ops->open_pid == NULL || l->ops->open_pid(l->state, pid, &x->priv, why) == 0)
        x->open = true;
    else if (why[0] != '\0') {
        char text[COLLECT_WHY_MAX + 64];
        snprintf(text, sizeof text, "process %u not watched: %s", pid, why);
        if (ips2_ext_note(l->w, ips2_ext_now(), pid, text, l->err) != 0)
            writer_failed(l);
    }
    /* the first sample now: a short process may be gone by the next round */
    sample(l, x, ips2_ext_now());
}

static void round_all(struct loop *l)
{
    int64_t now = ips2_ext_now();
    for (size_t i = 0; i < l->n; i++)
        sample(l, &l->v[i], now);
    if (ips2_ext_flush(l->w, l->err) != 0)
        writer_failed(l);
}

/* A pid from a stream name "PID.IMAGE.TID.raw" (0 if it is none). */
static uint32_t pid_of_name(const char *name)
{
    char *end;
    if (name[0] < '1' || name[0] > '9' || ips2_ext_is_file(name))
        return 0;
    unsigned long v = strtoul(name, &end, 10);
    return *end == '.' && v <= UINT32_MAX ? (uint32_t)v : 0;
}

static void scan_dir(struct loop *l, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        uint32_t pid = pid_of_name(e->d_name);
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/%u", pid);
        if (pid != 0 && find(l, pid) == NULL && access(proc, F_OK) == 0)
            add(l, pid, false);
    }
    closedir(d);
}

static void on_inotify(struct loop *l, int fd)
{
    char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
    ssize_t n = read(fd, buf, sizeof buf);
    for (char *p = buf; n > 0 && p < buf + n;) {
        struct inotify_event *ev = (struct inotify_event *)p;
        if (ev->len > 0) {
            uint32_t pid = pid_of_name(ev->name);
            if (pid != 0 && find(l, pid) == NULL)
                add(l, pid, false);
        }
        p += sizeof *ev + ev->len;
    }
}

/* One control line from the slave: "PID" or "end PID". */
static void on_line(struct loop *l, const char *line)
{
    char *end;
    bool is_end = strncmp(line, "end ", 4) == 0;
    unsigned long pid = strtoul(is_end ? line + 4 : line, &end, 10);
    if (*end != '\0' || pid == 0 || pid > UINT32_MAX)
        return;
    if (!is_end) {
        add(l, (uint32_t)pid, true);
        return;
    }
    struct watched *x = find(l, (uint32_t)pid);
    if (x != NULL) {
        sample(l, x, ips2_ext_now());
        close_one(l, x);
        if (ips2_ext_flush(l->w, l->err) != 0)
            writer_failed(l);
    }
    printf("%lu\n", pid);
    fflush(stdout);
}

static int usage(const char *kind, int status)
{
    fprintf(status ? stderr : stdout,
            "usage: ips2-collect-%s -d TRACE-DIR ?-i INTERVAL-MS? ?-p PID ...?\n"
            "  Samples the processes it is given (-p, PID lines on stdin, and every process\n"
            "  that makes a trace stream in TRACE-DIR) into TRACE-DIR/%s.PID.ext until the\n"
            "  end of stdin or SIGTERM.  The ips2 slave runs it; see collectors/README.md.\n",
            kind, kind);
    return status;
}

int collect_main(int argc, char **argv, const struct collect_ops *ops)
{
    const char *dir = NULL;
    long interval_ms = 100;
    struct loop l = {.ops = ops};
    uint32_t pids[256];
    int npids = 0;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return usage(ops->kind, 0);
        if (i + 1 >= argc)
            return usage(ops->kind, 2);
        char *end;
        if (strcmp(argv[i], "-d") == 0) {
            dir = argv[++i];
        } else if (strcmp(argv[i], "-i") == 0) {
            interval_ms = strtol(argv[++i], &end, 10);
            if (*end != '\0' || interval_ms <= 0 || interval_ms > 3600000)
                return usage(ops->kind, 2);
        } else if (strcmp(argv[i], "-p") == 0 && npids < 256) {
            unsigned long p = strtoul(argv[++i], &end, 10);
            if (*end != '\0' || p == 0 || p > UINT32_MAX)
                return usage(ops->kind, 2);
            pids[npids++] = (uint32_t)p;
        } else {
            return usage(ops->kind, 2);
        }
    }
    if (dir == NULL)
        return usage(ops->kind, 2);

    char err[IPS2_EXT_ERR_MAX];
    uint64_t interval_ns = (uint64_t)interval_ms * 1000000;
    l.w = ips2_ext_create(dir, ops->kind, interval_ns, 0, NULL, err);
    if (l.w == NULL) {
        fprintf(stderr, "ips2-collect-%s: %s\n", ops->kind, err);
        return 1;
    }
    for (int k = 0; k < ops->nmetrics; k++)
        if (ips2_ext_metric(l.w, ops->metrics[k], ops->units[k], IPS2_EXT_COUNTER, err) != k) {
            fprintf(stderr, "ips2-collect-%s: %s\n", ops->kind, err);
            ips2_ext_close(l.w, NULL);
            return 1;
        }
    char why[COLLECT_WHY_MAX] = "";
    if (ops->init(&l.state, why) != 0) {
        char text[COLLECT_WHY_MAX + 32];
        snprintf(text, sizeof text, "unavailable: %s", why);
        ips2_ext_note(l.w, ips2_ext_now(), 0, text, err);
        int rc = ips2_ext_close(l.w, err);
        if (rc != 0)
            fprintf(stderr, "ips2-collect-%s: %s\n", ops->kind, err);
        return rc != 0;
    }
    l.cur = calloc((size_t)ops->nmetrics, sizeof *l.cur);

    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    sigprocmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);
    int sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
    int ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (ifd >= 0)
        inotify_add_watch(ifd, dir, IN_CREATE | IN_MOVED_TO);

    if (ops->machine)
        add(&l, 0, false);
    for (int i = 0; i < npids; i++)
        add(&l, pids[i], false);
    scan_dir(&l, dir);
    if (ips2_ext_flush(l.w, l.err) != 0)
        writer_failed(&l);
    printf("ready\n"); /* the first samples are taken: the slave may start its processes */
    fflush(stdout);

    char line[256];
    size_t used = 0;
    bool stdin_open = true, stop = false;
    int64_t next = ips2_ext_now() + (int64_t)interval_ns;
    while (!stop) {
        int64_t now = ips2_ext_now();
        if (now >= next) {
            round_all(&l);
            next += (int64_t)interval_ns;
            if (next <= now)
                next = now + (int64_t)interval_ns;
            continue;
        }
        struct pollfd pfd[3] = {
            {stdin_open ? 0 : -1, POLLIN, 0}, {ifd, POLLIN, 0}, {sfd, POLLIN, 0}};
        int64_t wait = (next - now + 999999) / 1000000;
        if (poll(pfd, 3, (int)wait) < 0 && errno != EINTR)
            break;
        if (pfd[2].revents & POLLIN)
            stop = true;
        if (pfd[1].revents & POLLIN)
            on_inotify(&l, ifd);
        if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = read(0, line + used, sizeof line - 1 - used);
            if (n <= 0 && !(n < 0 && errno == EINTR)) {
                stdin_open = false;
                stop = true; /* the slave closed it: its processes have ended */
            } else if (n > 0) {
                used += (size_t)n;
                char *nl;
                while ((nl = memchr(line, '\n', used)) != NULL) {
                    *nl = '\0';
                    on_line(&l, line);
                    used -= (size_t)(nl + 1 - line);
                    memmove(line, nl + 1, used);
                }
                if (used == sizeof line - 1)
                    used = 0; /* an overlong line: not ours */
            }
        }
    }
    round_all(&l);
    for (size_t i = 0; i < l.n; i++) {
        close_one(&l, &l.v[i]);
        free(l.v[i].last);
    }
    free(l.v);
    free(l.cur);
    if (ops->fini != NULL)
        ops->fini(l.state);
    int rc = ips2_ext_close(l.w, err);
    if (rc != 0)
        fprintf(stderr, "ips2-collect-%s: %s\n", ops->kind, err);
    if (ifd >= 0)
        close(ifd);
    if (sfd >= 0)
        close(sfd);
    return rc != 0 || l.write_failed;
}
