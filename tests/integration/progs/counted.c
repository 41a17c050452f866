/* counted.c - known call counts for filters: tiny hot leaves, recursion
 * and threads, each procedure counting its own calls; prints the counts.
 *   counted [-threads N] [-loops N]
 * Every thread runs work(loops): per loop leaf() 10 times, mid() once
 * (which calls leaf twice) and rec(5) (6 calls of rec, the deepest
 * calling leaf once). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static atomic_long n_leaf, n_mid, n_rec, n_work;
static volatile unsigned sink;

__attribute__((noipa)) unsigned leaf(unsigned x)
{
    atomic_fetch_add_explicit(&n_leaf, 1, memory_order_relaxed);
    for (int i = 0; i < 20; i++) /* some CPU of its own */
        x = x * 1103515245u + 12345u;
    return x;
}

__attribute__((noipa)) unsigned mid(unsigned x)
{
    atomic_fetch_add_explicit(&n_mid, 1, memory_order_relaxed);
    return leaf(x) + leaf(x + 1);
}

__attribute__((noipa)) unsigned rec(int n, unsigned x)
{
    atomic_fetch_add_explicit(&n_rec, 1, memory_order_relaxed);
    return n == 0 ? leaf(x) : rec(n - 1, x + 1) + 1;
}

static long loops = 20000;

__attribute__((noipa)) void *work(void *arg)
{
    unsigned s = (unsigned)(size_t)arg;
    atomic_fetch_add_explicit(&n_work, 1, memory_order_relaxed);
    for (long i = 0; i < loops; i++) {
        for (int k = 0; k < 10; k++)
            s += leaf(s + (unsigned)k);
        s += mid(s);
        s += rec(5, s);
    }
    sink = s;
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = 2;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "-threads") == 0)
            threads = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-loops") == 0)
            loops = atol(argv[i + 1]);
    }
    pthread_t t[64];
    if (threads > 64)
        threads = 64;
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], NULL, work, (void *)(size_t)i);
    work(NULL);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    printf("leaf %ld\nmid %ld\nrec %ld\nwork %ld\n", atomic_load(&n_leaf), atomic_load(&n_mid),
           atomic_load(&n_rec), atomic_load(&n_work));
    return 0;
}
