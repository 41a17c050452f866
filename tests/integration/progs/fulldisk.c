/*
 * fulldisk.c - enough trace for a small disk to fill.  4 threads start
 * together (a barrier: each has tried to open its stream), each calls
 * work() `calls` times (argument 1, default 200000); when all are done
 * (a barrier: every stream is still open), each writes one byte into a
 * pipe, the first use of the session's channel table, and the main thread
 * reads them.  Prints the sum and the bytes, so that a traced run can be
 * compared with an untraced one.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NTHREADS 4

static long calls = 200000;
static pthread_barrier_t started, done;
static int fds[2];

__attribute__((noipa)) long work(long x)
{
    return x * 7 + 1;
}

static void *run(void *arg)
{
    long s = (long)arg;
    pthread_barrier_wait(&started);
    for (long i = 0; i < calls; i++)
        s += work(i);
    pthread_barrier_wait(&done);
    if (write(fds[1], "t", 1) != 1)
        return NULL;
    return (void *)s;
}

int main(int argc, char **argv)
{
    pthread_t t[NTHREADS];
    long total = 0;
    char got[NTHREADS + 1] = "";

    if (argc > 1)
        calls = atol(argv[1]);
    if (pipe(fds) != 0)
        return 2;
    pthread_barrier_init(&started, NULL, NTHREADS);
    pthread_barrier_init(&done, NULL, NTHREADS);
    for (long i = 0; i < NTHREADS; i++)
        pthread_create(&t[i], NULL, run, (void *)i);
    for (int i = 0; i < NTHREADS; i++) {
        void *r;
        pthread_join(t[i], &r);
        total += (long)r;
    }
    if (read(fds[0], got, NTHREADS) != NTHREADS)
        return 2;
    printf("%ld %s\n", total, got);
    return 0;
}
