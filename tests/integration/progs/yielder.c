/*
 * yielder.c - blocks a known number of times: K sleeps of 200 us, each a
 * voluntary context switch.  Usage: yielder K.  For collectors.test: the
 * os collector must count at least K voluntary context switches.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void nap(void)
{
    struct timespec ts = {0, 200000};
    while (nanosleep(&ts, &ts) != 0)
        continue;
}

int main(int argc, char **argv)
{
    long k = argc > 1 ? atol(argv[1]) : 0;
    for (long i = 0; i < k; i++)
        nap();
    printf("slept %ld times\n", k);
    return 0;
}
