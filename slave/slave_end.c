/*
 * slave_end.c - the last writers of a run's traces (see slave_end.h).
 *
 * A writer is any process (other than the slave) with a descriptor open
 * for writing on a file of the trace directory (someone reading a trace
 * meanwhile is none): libips2 keeps each stream's descriptor open until
 * the stream is closed, so this finds every process still
 * writing, whatever its stream is called and whoever its parent is (a PVM
 * task is the pvmd's child, not the slave's).  /proc/PID/fd of every
 * process is read; the links name the files, a deleted one with
 * " (deleted)" after the path, which still starts with the directory.
 *
 * First the writers get the grace time to end by themselves (a PVM
 * worker whose master has just received its last reply is still on its
 * way out); they are waited for through pidfds, not polled.  Those left
 * are stopped the caller's way (pvm_kill for a PVM task) or with SIGTERM,
 * named as problems, given the grace time again, then SIGKILL and at most
 * a second more.  No stream is reduced or packed while its writer lives.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "slave_end.h"

struct writer {
    pid_t pid;
    int pidfd; /* -1: none (an old kernel, or it ended meanwhile) */
};

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Whether pid lives and is not a zombie (a zombie writes no more). */
static bool alive(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')'); /* the command may hold spaces and ')' */
    return paren != NULL && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

/* Whether descriptor fd (a name in /proc/PID/fd) of pid is open for
 * writing, from its fdinfo "flags:" line (octal). */
static bool open_for_writing(pid_t pid, const char *fd)
{
    char path[PATH_MAX], line[128];
    snprintf(path, sizeof path, "/proc/%d/fdinfo/%s", (int)pid, fd);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return false;
    bool w = false;
    while (fgets(line, sizeof line, f) != NULL) {
        unsigned long flags;
        if (sscanf(line, "flags: %lo", &flags) == 1) {
            w = (flags & O_ACCMODE) != O_RDONLY;
            break;
        }
    }
    fclose(f);
    return w;
}

/* Whether process pid has a descriptor open for writing on a file under dir/. */
static bool writes_into(pid_t pid, const char *dir, size_t dirlen)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(path);
    if (d == NULL)
        return false;
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char link[PATH_MAX + 64], target[PATH_MAX];
        snprintf(link, sizeof link, "%s/%s", path, e->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        found = (size_t)n > dirlen && strncmp(target, dir, dirlen) == 0 && target[dirlen] == '/' &&
                open_for_writing(pid, e->d_name);
    }
    closedir(d);
    return found;
}

/* The living writers of dir (its real path), at most max of them. */
static int find_writers(const char *dir, struct writer *v, int max)
{
    DIR *proc = opendir("/proc");
    if (proc == NULL)
        return 0;
    size_t dirlen = strlen(dir);
    pid_t self = getpid();
    int n = 0;
    struct dirent *e;
    while (n < max && (e = readdir(proc)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end != '\0' || pid <= 0 || pid == self)
            continue;
        if (writes_into((pid_t)pid, dir, dirlen) && alive((pid_t)pid))
            v[n++] = (struct writer){(pid_t)pid, (int)syscall(SYS_pidfd_open, (pid_t)pid, 0)};
    }
    closedir(proc);
    return n;
}

/* Waits until every writer has ended or ms have passed; returns how many
 * still live.  Without pidfds, looks again every 10 ms. */
static int wait_writers(struct writer *v, int n, int64_t ms)
{
    int64_t until = mono_ms() + ms;
    for (;;) {
        int left = 0;
        struct pollfd p[SLAVE_END_MAX];
        bool blind = false;
        for (int i = 0; i < n; i++) {
            if (v[i].pid <= 0)
                continue;
            if (!alive(v[i].pid)) {
                v[i].pid = 0;
                continue;
            }
            left++;
            if (v[i].pidfd >= 0)
                p[left - 1] = (struct pollfd){v[i].pidfd, POLLIN, 0};
            else {
                p[left - 1] = (struct pollfd){-1, 0, 0};
                blind = true;
            }
        }
        int64_t now = mono_ms();
        if (left == 0 || now >= until)
            return left;
        int64_t t = until - now;
        if (blind && t > 10)
            t = 10;
        /* a zombie's pidfd is readable at once: it no longer writes, and
         * alive() says so on the next round */
        if (poll(p, (nfds_t)left, (int)t) < 0 && errno != EINTR)
            return left;
        if (!blind) {
            bool any = false;
            for (int i = 0; i < left; i++)
                any |= p[i].revents != 0;
            if (!any && mono_ms() >= until)
                return left;
        }
    }
}

void slave_end_command_of(pid_t pid, char *buf, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
    snprintf(buf, size, "?");
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return;
    if (fgets(buf, (int)size, f) != NULL)
        buf[strcspn(buf, "\n")] = '\0';
    fclose(f);
}

int slave_end_writers(const char *trace_dir, int64_t grace_ms, const struct slave_end_ops *ops)
{
    char dir[PATH_MAX];
    if (realpath(trace_dir, dir) == NULL)
        return 0; /* nothing was traced */
    struct writer v[SLAVE_END_MAX];
    int n = find_writers(dir, v, SLAVE_END_MAX);
    int stopped = 0;
    if (n > 0 && wait_writers(v, n, grace_ms) > 0) {
        for (int i = 0; i < n; i++) {
            if (v[i].pid <= 0)
                continue;
            char comm[64], how[256] = "";
            slave_end_command_of(v[i].pid, comm, sizeof comm);
            if (ops == NULL || ops->stop == NULL ||
                !ops->stop(ops->arg, v[i].pid, how, sizeof how)) {
                kill(v[i].pid, SIGTERM);
                snprintf(how, sizeof how, "stopped with SIGTERM");
            }
            stopped++;
            if (ops != NULL && ops->problem != NULL) {
                char text[512];
                snprintf(text, sizeof text,
                         "process %d (%s) still wrote its trace when the run's processes had "
                         "ended: %s",
                         (int)v[i].pid, comm, how);
                ops->problem(ops->arg, text);
            }
        }
        if (wait_writers(v, n, grace_ms) > 0) {
            for (int i = 0; i < n; i++)
                if (v[i].pid > 0)
                    kill(v[i].pid, SIGKILL);
            wait_writers(v, n, 1000);
        }
    }
    for (int i = 0; i < n; i++)
        if (v[i].pidfd >= 0)
            close(v[i].pidfd);
    return stopped;
}
