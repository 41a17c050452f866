/*
 * demo.c - the program `make demo` traces: a parent with three worker
 * threads of unequal work and a forked child, so that the trace shows
 * procedures, threads, a fork and two processes' exits.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) static double leaf(double x)
{
    return x * 1.000001 + 0.5;
}

__attribute__((noinline)) static double work(int units)
{
    double acc = 0;
    for (int i = 0; i < units; i++)
        acc = leaf(acc);
    return acc;
}

__attribute__((noinline)) static long fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static void *worker(void *arg)
{
    int id = (int)(long)arg;
    double acc = 0;
    for (int round = 0; round < 10 * (id + 1); round++)
        acc += work(1000);
    return (void *)(long)(acc > 0);
}

int main(void)
{
    pthread_t threads[3];
    pid_t child = fork();

    if (child == 0) {
        printf("child: fib(20) = %ld\n", fib(20));
        return 7;
    }
    for (long i = 0; i < 3; i++)
        pthread_create(&threads[i], NULL, worker, (void *)i);
    for (int i = 0; i < 3; i++)
        pthread_join(threads[i], NULL);
    int status = 0;
    waitpid(child, &status, 0);
    printf("parent: child exited with %d\n", WEXITSTATUS(status));
    return 0;
}
