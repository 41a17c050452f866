/*
 * collect_os.c - ips2-collect-os: page faults and context switches of the
 * traced processes and of the machine, from /proc (see collect.h for how
 * it runs, collectors/README.md for what each number is).
 *
 * A process: minor and major faults from /proc/PID/stat (the kernel sums
 * them over the live threads and the dead ones); voluntary and involuntary
 * context switches from /proc/PID/task/TID/status, summed over the threads
 * seen (a thread that ended keeps the counts of its last sample: /proc
 * keeps no totals for dead threads).  The machine: pgfault and pgmajfault
 * of /proc/vmstat, ctxt of /proc/stat (no split into voluntary and
 * involuntary there).
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"

enum { M_FAULTS, M_MINOR, M_MAJOR, M_CTX, M_VOL, M_INVOL, M_N };

static const char *const names[M_N] = {"page_faults",  "minor_faults",     "major_faults",
                                       "ctx_switches", "ctx_switches_vol", "ctx_switches_invol"};
static const char *const units[M_N] = {"", "", "", "", "", ""};

struct tid_counts {
    uint32_t tid;
    double vol, invol;
};

struct proc_state {
    struct tid_counts *t;
    size_t n, cap;
};

static int init(void **state, char *why)
{
    *state = NULL;
    FILE *f = fopen("/proc/self/stat", "r");
    if (f == NULL) {
        snprintf(why, COLLECT_WHY_MAX, "cannot read /proc/self/stat (no /proc?)");
        return -1;
    }
    fclose(f);
    return 0;
}

static int open_pid(void *state, uint32_t pid, void **priv, char *why)
{
    *priv = calloc(1, sizeof(struct proc_state));
    if (*priv == NULL) {
        snprintf(why, COLLECT_WHY_MAX, "out of memory");
        return -1;
    }
    return 0;
}

static void close_pid(void *state, void *priv)
{
    struct proc_state *p = priv;
    if (p != NULL)
        free(p->t);
    free(p);
}

/* minflt and majflt: fields 10 and 12 of /proc/PID/stat, counted after
 * the command name's closing parenthesis (the name may hold anything). */
static int read_stat(uint32_t pid, double *minflt, double *majflt)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%u/stat", pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    if (p == NULL)
        return -1;
    unsigned long long min = 0, maj = 0;
    /* after ")": state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt */
    if (sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %llu %*u %llu", &min, &maj) != 2)
        return -1;
    *minflt = (double)min;
    *majflt = (double)maj;
    return 0;
}

static void read_switches(const char *path, double *vol, double *invol)
{
    char line[256];
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return;
    while (fgets(line, sizeof line, f) != NULL) {
        unsigned long long v;
        if (sscanf(line, "voluntary_ctxt_switches: %llu", &v) == 1)
            *vol = (double)v;
        else if (sscanf(line, "nonvoluntary_ctxt_switches: %llu", &v) == 1)
            *invol = (double)v;
    }
    fclose(f);
}

static struct tid_counts *tid_slot(struct proc_state *p, uint32_t tid)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->t[i].tid == tid)
            return &p->t[i];
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 8;
        struct tid_counts *t = realloc(p->t, cap * sizeof *t);
        if (t == NULL)
            return NULL;
        p->t = t;
        p->cap = cap;
    }
    p->t[p->n] = (struct tid_counts){tid, 0, 0};
    return &p->t[p->n++];
}

static int read_machine(double *v)
{
    char line[256];
    unsigned long long x;
    int got = 0;
    FILE *f = fopen("/proc/vmstat", "r");
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        if (sscanf(line, "pgfault %llu", &x) == 1) {
            v[M_FAULTS] = (double)x;
            got |= 1;
        } else if (sscanf(line, "pgmajfault %llu", &x) == 1) {
            v[M_MAJOR] = (double)x;
            got |= 2;
        }
    }
    if (f != NULL)
        fclose(f);
    f = fopen("/proc/stat", "r");
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "ctxt %llu", &x) == 1) {
            v[M_CTX] = (double)x;
            got |= 4;
        }
    if (f != NULL)
        fclose(f);
    if (!(got & 1))
        v[M_FAULTS] = NAN;
    if (!(got & 2))
        v[M_MAJOR] = NAN;
    v[M_MINOR] = (got & 3) == 3 ? v[M_FAULTS] - v[M_MAJOR] : NAN;
    if (!(got & 4))
        v[M_CTX] = NAN;
    v[M_VOL] = v[M_INVOL] = NAN; /* not kept per machine */
    return 0;
}

static int read_counts(void *state, uint32_t pid, void *priv, double *v)
{
    if (pid == 0)
        return read_machine(v);
    struct proc_state *p = priv;
    double minflt, majflt;
    if (read_stat(pid, &minflt, &majflt) != 0)
        return -1;
    char path[96];
    snprintf(path, sizeof path, "/proc/%u/task", pid);
    DIR *d = opendir(path);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        char *end;
        unsigned long tid = strtoul(e->d_name, &end, 10);
        if (*end != '\0' || tid == 0)
            continue;
        struct tid_counts *t = tid_slot(p, (uint32_t)tid);
        if (t == NULL)
            continue;
        snprintf(path, sizeof path, "/proc/%u/task/%lu/status", pid, tid);
        read_switches(path, &t->vol, &t->invol);
    }
    if (d != NULL)
        closedir(d);
    double vol = 0, invol = 0;
    for (size_t i = 0; i < p->n; i++) {
        vol += p->t[i].vol;
        invol += p->t[i].invol;
    }
    v[M_FAULTS] = minflt + majflt;
    v[M_MINOR] = minflt;
    v[M_MAJOR] = majflt;
    v[M_CTX] = vol + invol;
    v[M_VOL] = vol;
    v[M_INVOL] = invol;
    return 0;
}

int main(int argc, char **argv)
{
    static const struct collect_ops ops = {
        .kind = "os",
        .metrics = names,
        .units = units,
        .nmetrics = M_N,
        .machine = true,
        .init = init,
        .open_pid = open_pid,
        .read = read_counts,
        .close_pid = close_pid,
    };
    return collect_main(argc, argv, &ops);
}
