/*
 * collect_hw.c - ips2-collect-hw: hardware counters (instructions, cycles)
 * of the traced processes through perf_event_open(2), user mode only, one
 * counter pair per process, inherited by the threads it starts (a
 * thread's counts join its process's when the thread ends).  See collect.h
 * for how it runs.
 *
 * Where the kernel or the container forbids perf_event_open (the
 * perf_event_paranoid setting, a seccomp filter, no PMU in a virtual
 * machine), init() finds out by opening a counter on itself and the
 * program writes one note "unavailable: WHY" and exits 0.  The counters
 * of a process stay readable after it exits, so its final sample (the
 * slave's "end PID") is exact.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collect.h"

enum { M_INSTR, M_CYCLES, M_N };

static const char *const names[M_N] = {"instructions", "cycles"};
static const char *const units[M_N] = {"", ""};
static const unsigned long long configs[M_N] = {PERF_COUNT_HW_INSTRUCTIONS,
                                                PERF_COUNT_HW_CPU_CYCLES};

struct counters {
    int fd[M_N];
};

static int open_counter(pid_t pid, unsigned long long config)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_HARDWARE;
    a.config = config;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.inherit = 1;
    return (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static int paranoid(void)
{
    int v = -100;
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    if (f != NULL) {
        if (fscanf(f, "%d", &v) != 1)
            v = -100;
        fclose(f);
    }
    return v;
}

static int init(void **state, char *why)
{
    *state = NULL;
    for (int k = 0; k < M_N; k++) {
        int fd = open_counter(0, configs[k]);
        if (fd < 0) {
            int e = errno, p = paranoid();
            char level[64] = "unknown";
            if (p != -100)
                snprintf(level, sizeof level, "%d", p);
            snprintf(why, COLLECT_WHY_MAX,
                     "perf_event_open(%s) failed: %s (kernel.perf_event_paranoid = %s%s)", names[k],
                     strerror(e), level,
                     e == ENOENT || e == EOPNOTSUPP ? "; no hardware counters here"
                     : e == EPERM || e == EACCES    ? "; forbidden by the kernel or the container"
                                                    : "");
            return -1;
        }
        close(fd);
    }
    return 0;
}

static int open_pid(void *state, uint32_t pid, void **priv, char *why)
{
    struct counters *c = malloc(sizeof *c);
    if (c == NULL) {
        snprintf(why, COLLECT_WHY_MAX, "out of memory");
        return -1;
    }
    for (int k = 0; k < M_N; k++) {
        c->fd[k] = open_counter((pid_t)pid, configs[k]);
        if (c->fd[k] < 0) {
            int e = errno;
            for (int j = 0; j < k; j++)
                close(c->fd[j]);
            free(c);
            /* a process that has already ended is no news */
            if (e != ESRCH)
                snprintf(why, COLLECT_WHY_MAX, "perf_event_open(%s): %s", names[k], strerror(e));
            return -1;
        }
    }
    *priv = c;
    return 0;
}

static int read_counts(void *state, uint32_t pid, void *priv, double *v)
{
    struct counters *c = priv;
    for (int k = 0; k < M_N; k++) {
        unsigned long long x;
        if (read(c->fd[k], &x, sizeof x) != (ssize_t)sizeof x)
            return -1;
        v[k] = (double)x;
    }
    return 0;
}

static void close_pid(void *state, void *priv)
{
    struct counters *c = priv;
    for (int k = 0; c != NULL && k < M_N; k++)
        close(c->fd[k]);
    free(c);
}

int main(int argc, char **argv)
{
    static const struct collect_ops ops = {
        .kind = "hw",
        .metrics = names,
        .units = units,
        .nmetrics = M_N,
        .machine = false,
        .init = init,
        .open_pid = open_pid,
        .read = read_counts,
        .close_pid = close_pid,
    };
    return collect_main(argc, argv, &ops);
}
