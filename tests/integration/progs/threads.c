/* threads.c - 8 threads; thread i calls work() 100 * (i + 1) times. */
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 8

__attribute__((noipa)) long work(long x)
{
    return x * 7 + 1;
}

static void *run(void *arg)
{
    long id = (long)arg, s = 0;
    for (long i = 0; i < 100 * (id + 1); i++)
        s += work(i);
    return (void *)s;
}

int main(void)
{
    pthread_t t[NTHREADS];
    for (long i = 0; i < NTHREADS; i++)
        pthread_create(&t[i], NULL, run, (void *)i);
    long total = 0;
    for (int i = 0; i < NTHREADS; i++) {
        void *r;
        pthread_join(t[i], &r);
        total += (long)r;
    }
    printf("%ld\n", total);
    return 0;
}
