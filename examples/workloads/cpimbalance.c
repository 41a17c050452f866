/*
 * cpimbalance.c - a critical-path imbalance known by construction (the
 * critical-path tests, cpimbalance.tcl): P processes (the first and P-1
 * forked children) share a process-shared pthread barrier and run R
 * rounds; in each round process i computes for MS ms of its CPU in work()
 * (process 1: SLOW times MS), then waits for the others in sync_round().
 *
 *   cpimbalance -procs P -rounds R -work MS -slow SLOW
 *
 * The slow process arrives last in every round, so the critical path runs
 * through its work: work's critical-path time is R*SLOW*MS; its CPU
 * averaged over the P processes is R*MS*(SLOW+P-1)/P; the imbalance
 * (Scalasca's max(CP time - average, 0)) is the difference.  With P = 4,
 * SLOW = 3: CP time 3*R*MS, average 1.5*R*MS, imbalance 1.5*R*MS.
 * The first process waits for its children.  Exit status 0, 1 if a fork or
 * the barrier failed, 2 for bad usage.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpuwork.h"
#include "options.h"

struct shared {
    pthread_barrier_t barrier;
};

__attribute__((noinline)) static void work(double ms)
{
    burn_cpu(ms);
}

__attribute__((noinline)) static int sync_round(struct shared *sh)
{
    int rc = pthread_barrier_wait(&sh->barrier);
    return rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD ? 0 : -1;
}

static int run(struct shared *sh, int index, int rounds, double ms, double slow)
{
    for (int r = 0; r < rounds; r++) {
        work(index == 1 ? ms * slow : ms);
        if (sync_round(sh) != 0)
            return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int procs = 4, rounds = 4;
    double ms = 10, slow = 3;
    const struct opt opts[] = {
        {"-procs", OPT_INT, &procs},
        {"-rounds", OPT_INT, &rounds},
        {"-work", OPT_DOUBLE, &ms},
        {"-slow", OPT_DOUBLE, &slow},
    };
    if (READ_OPTIONS(argc, argv, opts) != 0 || procs < 2 || procs > 64 || rounds < 1 || ms < 0 ||
        slow < 0) {
        fprintf(stderr, "usage: cpimbalance -procs P (2-64) -rounds R -work MS -slow SLOW\n");
        return 2;
    }
    struct shared *sh =
        mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pthread_barrierattr_t attr;
    if (sh == MAP_FAILED || pthread_barrierattr_init(&attr) != 0 ||
        pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED) != 0 ||
        pthread_barrier_init(&sh->barrier, &attr, (unsigned)procs) != 0) {
        perror("cpimbalance: shared barrier");
        return 1;
    }
    for (int i = 1; i < procs; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("cpimbalance: fork");
            return 1;
        }
        if (pid == 0)
            _exit(run(sh, i, rounds, ms, slow));
    }
    int status = run(sh, 0, rounds, ms, slow);
    for (int i = 1; i < procs; i++) {
        int st = 0;
        if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            status = 1;
    }
    return status;
}
