/*
 * slave_ready.c - readiness checks (slave_ready.h).
 *
 * Files: one inotify descriptor watches, for each open file check, the
 * nearest directory of its path that exists; any event there makes every
 * file check look again (and watch a directory made meanwhile deeper down
 * the path).  The watch is added before the first look, so nothing made
 * between the two is missed.  TCP: the listening sockets (state 0A) of
 * /proc/PID/net/tcp and tcp6 are read every READY_TCP_MS while a TCP
 * check is open; the kernel offers no event for "someone listens".
 */
#include "slave_ready.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#define READY_TCP_MS 10

enum watch_kind { W_TCP, W_FILE };

struct watch {
    int id;
    enum watch_kind kind;
    unsigned port;
    char *path;
    pid_t pid;
    int64_t deadline, timeout_ms; /* mono ns */
    bool ended;
};

struct slave_ready {
    int fd;
    struct watch *v;
    int n, cap;
    int64_t next_tcp; /* mono ns of the next look at the TCP tables */
};

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

struct slave_ready *slave_ready_new(char *err, size_t errsize)
{
    struct slave_ready *w = calloc(1, sizeof *w);
    if (w == NULL) {
        snprintf(err, errsize, "out of memory");
        return NULL;
    }
    w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (w->fd < 0) {
        snprintf(err, errsize, "inotify: %s", strerror(errno));
        free(w);
        return NULL;
    }
    return w;
}

void slave_ready_free(struct slave_ready *w)
{
    if (w == NULL)
        return;
    for (int i = 0; i < w->n; i++)
        free(w->v[i].path);
    free(w->v);
    close(w->fd);
    free(w);
}

/* Watches the nearest directory of path that exists. */
static void watch_dir(struct slave_ready *w, const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    for (;;) {
        char *slash = strrchr(dir, '/');
        if (slash == NULL)
            return;
        if (slash == dir)
            slash[1] = '\0';
        else
            *slash = '\0';
        if (inotify_add_watch(w->fd, dir,
                              IN_CREATE | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF |
                                  IN_ONLYDIR) >= 0 ||
            strcmp(dir, "/") == 0)
            return;
    }
}

int slave_ready_add(struct slave_ready *w, int id, const char *kind, const char *arg, pid_t pid,
                    int64_t timeout_ms, char *err, size_t errsize)
{
    struct watch c = {.id = id, .pid = pid, .timeout_ms = timeout_ms};
    if (strcmp(kind, "tcp") == 0) {
        char *end = NULL;
        unsigned long port = strtoul(arg, &end, 10);
        if (end == arg || *end != '\0' || port < 1 || port > 65535) {
            snprintf(err, errsize, "-ready {tcp %s}: not a port", arg);
            return -1;
        }
        c.kind = W_TCP;
        c.port = (unsigned)port;
        w->next_tcp = mono_ns();
    } else if (strcmp(kind, "file") == 0 && arg[0] == '/' && strlen(arg) < PATH_MAX) {
        c.kind = W_FILE;
        if ((c.path = strdup(arg)) == NULL) {
            snprintf(err, errsize, "out of memory");
            return -1;
        }
        watch_dir(w, arg);
    } else {
        snprintf(err, errsize, "-ready {%s %s}: expected {tcp PORT} or {file ABSOLUTE-PATH}", kind,
                 arg);
        return -1;
    }
    if (w->n == w->cap) {
        int cap = w->cap ? 2 * w->cap : 8;
        struct watch *v = realloc(w->v, (size_t)cap * sizeof *v);
        if (v == NULL) {
            free(c.path);
            snprintf(err, errsize, "out of memory");
            return -1;
        }
        w->v = v;
        w->cap = cap;
    }
    c.deadline = mono_ns() + timeout_ms * 1000000;
    w->v[w->n++] = c;
    return 0;
}

void slave_ready_ended(struct slave_ready *w, int id)
{
    for (int i = 0; i < w->n; i++)
        if (w->v[i].id == id)
            w->v[i].ended = true;
}

int slave_ready_fd(const struct slave_ready *w)
{
    return w->fd;
}

int slave_ready_open(const struct slave_ready *w)
{
    return w->n;
}

int slave_ready_wait_ms(const struct slave_ready *w)
{
    int64_t now = mono_ns(), next = -1;
    for (int i = 0; i < w->n; i++) {
        const struct watch *c = &w->v[i];
        int64_t t = c->ended ? now : c->deadline;
        if (c->kind == W_TCP && w->next_tcp < t)
            t = w->next_tcp;
        if (next < 0 || t < next)
            next = t;
    }
    if (next < 0)
        return -1;
    if (next <= now)
        return 0;
    int64_t ms = (next - now + 999999) / 1000000;
    return ms > INT_MAX ? INT_MAX : (int)ms;
}

/* Whether a socket listens on port in one of /proc/PID/net/tcp{,6}. */
static bool tcp_listens(pid_t pid, unsigned port)
{
    static const char *const tables[] = {"tcp", "tcp6"};
    for (size_t t = 0; t < 2; t++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/net/%s", (int)pid, tables[t]);
        FILE *f = pid > 0 ? fopen(path, "re") : NULL;
        if (f == NULL) {
            snprintf(path, sizeof path, "/proc/net/%s", tables[t]);
            f = fopen(path, "re");
        }
        if (f == NULL)
            continue;
        char line[512];
        bool found = false;
        while (!found && fgets(line, sizeof line, f) != NULL) {
            unsigned lport = 0, state = 0;
            if (sscanf(line, " %*u: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x %x", &lport, &state) == 2)
                found = state == 0x0A && lport == port;
        }
        fclose(f);
        if (found)
            return true;
    }
    return false;
}

void slave_ready_step(struct slave_ready *w, slave_ready_fn *fn, void *arg)
{
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    while (read(w->fd, buf, sizeof buf) > 0)
        continue; /* any change: every file check looks again */
    int64_t now = mono_ns();
    bool tcp_due = now >= w->next_tcp, any_tcp = false;
    for (int i = 0; i < w->n;) {
        struct watch *c = &w->v[i];
        int ok = -1;
        char text[PATH_MAX + 128] = "";
        if (c->kind == W_FILE) {
            if (access(c->path, F_OK) == 0)
                ok = 1;
            else
                watch_dir(w, c->path); /* a directory of the path may have come */
        } else if (tcp_due) {
            if (tcp_listens(c->pid, c->port))
                ok = 1;
        }
        if (ok < 0 && c->ended) {
            ok = 0;
            snprintf(text, sizeof text, "it ended before it was ready");
        } else if (ok < 0 && now >= c->deadline) {
            ok = 0;
            if (c->kind == W_FILE)
                snprintf(text, sizeof text, "not ready after %.3g s: no file %s",
                         (double)c->timeout_ms / 1000.0, c->path);
            else
                snprintf(text, sizeof text,
                         "not ready after %.3g s: nothing listens on TCP port %u",
                         (double)c->timeout_ms / 1000.0, c->port);
        }
        if (ok < 0) {
            any_tcp |= c->kind == W_TCP;
            i++;
            continue;
        }
        int id = c->id;
        free(c->path);
        w->v[i] = w->v[--w->n];
        fn(arg, id, ok, text);
    }
    if (tcp_due && any_tcp)
        w->next_tcp = now + READY_TCP_MS * 1000000;
}
