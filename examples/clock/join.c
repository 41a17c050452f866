/*
 * join.c - the clock-precision study's program (paper §5.1): a parallel
 * "join" with a phase of many short procedures between frequent
 * synchronisations and a phase of a few long ones.
 *
 *   join -threads K -episodes E -scan MS -io MS -short MS -long MS -calls C
 *
 * K threads (default 6).  Thread i first scans its input: scan() for
 * i/K of -scan ms of CPU (default 10), so that the threads' CPU clocks
 * are not in step.  partition phase: E episodes (default 100); in each,
 * every thread runs partition(), which waits for its next block (-io,
 * default 12 ms: a sleep that stands for a disk read) and partitions it
 * (-short, default 2 ms of its CPU time), then meets the others
 * (exchange(): a semaphore token to each, one from each).  join phase: C
 * rounds (default 2) of effect_join(), -long ms of CPU each (default
 * 150), and a meeting.  main makes the threads, joins them and prints one
 * line.
 *
 * Exactly measured, a critical path crosses each meeting through one
 * thread's CPU since the last one, so it holds about E x short of
 * partition (200 ms) and C x long of effect_join (300 ms): effect_join
 * first.  With a process clock that advances in 10 ms ticks, a thread's
 * time between meetings weighs 10 ms when a tick fell in it, else 0, and
 * the path takes, at each meeting, a thread that got a tick: in most
 * episodes one of the six did (K x short / 10 of them, all when that is
 * 1 or more), so partition
 * comes first, by far, as it did on the Sequent's 10 ms clock.  The work
 * is CPU time (cpuwork.h) and the waits are longer than the tick, so
 * neither ranking depends on the machine's load; a token taken without
 * waiting adds nothing to the path.  A plain profile ranks effect_join
 * first with both clocks: a coarse clock's ticks fall on procedures in
 * proportion to their CPU time.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../workloads/cpuwork.h"
#include "../workloads/options.h"

#define MAX_THREADS 64

struct shared {
    sem_t sem[MAX_THREADS]; /* thread i's tokens */
    int threads, episodes, calls;
    double scan_ms, io_ms, short_ms, long_ms;
};

__attribute__((noinline)) static void partition(double io_ms, double ms)
{
    struct timespec io = {(time_t)(io_ms / 1e3),
                          (long)((io_ms - 1e3 * (time_t)(io_ms / 1e3)) * 1e6)};
    nanosleep(&io, NULL);
    burn_cpu(ms);
}

__attribute__((noinline)) static void scan(double ms)
{
    burn_cpu(ms);
}

__attribute__((noinline)) static void effect_join(double ms)
{
    burn_cpu(ms);
}

struct worker_arg {
    struct shared *shared;
    int index;
};

/* The meeting of all threads: a token to each of the others, then one
 * from each of them.  Nobody takes a token of the next meeting before
 * everyone has given those of this one. */
__attribute__((noinline)) static void exchange(struct shared *s, int self)
{
    for (int i = 0; i < s->threads; i++)
        if (i != self)
            sem_post(&s->sem[i]);
    for (int i = 1; i < s->threads; i++)
        while (sem_wait(&s->sem[self]) != 0)
            ;
}

__attribute__((noinline)) static void *worker(void *p)
{
    struct worker_arg *a = p;
    struct shared *s = a->shared;

    scan(s->scan_ms * a->index / s->threads);
    for (int e = 0; e < s->episodes; e++) {
        partition(s->io_ms, s->short_ms);
        exchange(s, a->index);
    }
    for (int c = 0; c < s->calls; c++) {
        effect_join(s->long_ms);
        exchange(s, a->index);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = 6;
    static struct shared s = {
        .episodes = 100, .calls = 2, .scan_ms = 10, .io_ms = 12, .short_ms = 2, .long_ms = 150};
    const struct opt opts[] = {
        {"-threads", OPT_INT, &threads},     {"-episodes", OPT_INT, &s.episodes},
        {"-scan", OPT_DOUBLE, &s.scan_ms},   {"-io", OPT_DOUBLE, &s.io_ms},
        {"-short", OPT_DOUBLE, &s.short_ms}, {"-long", OPT_DOUBLE, &s.long_ms},
        {"-calls", OPT_INT, &s.calls},
    };
    if (READ_OPTIONS(argc, argv, opts) != 0 || threads <= 0 || threads > MAX_THREADS ||
        s.episodes < 0 || s.calls < 0 || s.scan_ms < 0 || s.io_ms < 0 || s.short_ms < 0 ||
        s.long_ms < 0) {
        fprintf(stderr,
                "usage: join -threads K -episodes E -scan MS -io MS -short MS -long MS -calls C\n");
        return 2;
    }
    pthread_t tids[MAX_THREADS];
    struct worker_arg args[MAX_THREADS];
    s.threads = threads;
    for (int i = 0; i < threads; i++)
        sem_init(&s.sem[i], 0, 0);
    for (int i = 0; i < threads; i++) {
        args[i] = (struct worker_arg){&s, i};
        pthread_create(&tids[i], NULL, worker, &args[i]);
    }
    for (int i = 0; i < threads; i++)
        pthread_join(tids[i], NULL);
    for (int i = 0; i < threads; i++)
        sem_destroy(&s.sem[i]);
    printf("join: %d threads, %d episodes, %d long calls\n", threads, s.episodes, s.calls);
    return 0;
}
