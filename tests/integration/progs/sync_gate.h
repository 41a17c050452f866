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
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Known CPU work between the synchronisations: n rounds of a generator
 * the compiler cannot drop. */
static void work(unsigned n)
{
    volatile unsigned x = 1;
    for (unsigned i = 0; i < n; i++)
        x = x * 1103515245u + 12345u;
}

/* The start gate the workers pass together: each counts itself in, then
 * spins until all n are there (records nothing the tests count). */
static void gate_start(atomic_int *started, int n)
{
    atomic_fetch_add(started, 1);
    while (atomic_load(started) < n)
        ;
}

/* Reads "[threads] [rounds]" into *nthreads and *rounds (left at their
 * defaults when absent); returns 0, or -1 if threads is not 1..64. */
static int gate_args(int argc, char **argv, int *nthreads, int *rounds)
{
    if (argc > 1)
        *nthreads = atoi(argv[1]);
    if (argc > 2)
        *rounds = atoi(argv[2]);
    return *nthreads < 1 || *nthreads > 64 ? -1 : 0;
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

/* A lock for gate_hand_over(): take() locks it and counts the acquisition
 * as the program counts them; sleeps says how its contender waits. */
struct gate_lock {
    void (*take)(void);
    void (*give)(void);
    int sleeps; /* 1: asleep in the kernel (blocking); 0: spinning */
};

static atomic_int gate_contender_tid;

static void *gate_contender(void *arg)
{
    const struct gate_lock *g = arg;

    atomic_store(&gate_contender_tid, gate_tid());
    g->take(); /* held by main: sleeps or spins */
    g->give();
    return NULL;
}

/* The hand-over the lock programs begin with, so that one acquisition
 * certainly waited: the caller takes the lock, starts a contender that
 * takes it too, and gives it up only once the contender sleeps waiting for
 * it, or has spun for 2 ms of CPU time. */
static void gate_hand_over(const struct gate_lock *g)
{
    pthread_t th;

    g->take();
    pthread_create(&th, NULL, gate_contender, (void *)g);
    while (atomic_load(&gate_contender_tid) == 0)
        ;
    if (g->sleeps)
        gate_wait_asleep(getpid(), atomic_load(&gate_contender_tid));
    else
        gate_wait_spun(th, 2000000);
    g->give();
    pthread_join(th, NULL);
}

#endif /* SYNC_GATE_H */
