/*
 * sync_gate.h - helpers for the sync_*.c test programs: make a wait happen
 * for certain, without sleeps.  A holder keeps a lock until the contender
 * is provably waiting for it: asleep in the kernel (a blocking lock), or
 * burning CPU time after it said it would lock (a spin lock).
 */
#ifndef SYNC_GATE_H
#define SYNC_GATE_H

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pid_t gate_tid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

/* The scheduler state of thread tid of process pid ('R', 'S', ...). */
static char gate_state(pid_t pid, pid_t tid)
{
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return '?';
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return '?';
    buf[n] = '\0';
    char *paren = strrchr(buf, ')');
    return paren && paren[1] == ' ' ? paren[2] : '?';
}

/* Returns once thread tid of process pid sleeps (blocked in the kernel). */
static void gate_wait_asleep(pid_t pid, pid_t tid)
{
    while (gate_state(pid, tid) != 'S')
        sched_yield();
}

/* Returns once thread th has used `ns` more CPU time (it is spinning). */
static void gate_wait_spun(pthread_t th, long ns)
{
    clockid_t clock;
    struct timespec a, b;

    if (pthread_getcpuclockid(th, &clock) != 0)
        return;
    clock_gettime(clock, &a);
    do {
        sched_yield();
        clock_gettime(clock, &b);
    } while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < ns);
}

#endif /* SYNC_GATE_H */
