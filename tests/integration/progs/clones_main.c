/*
 * clones_main.c - a program whose procedures GCC clones (names.test):
 * with -O2 -flto the two static helper()s (here and in clones_lib.c)
 * become helper.lto_priv.0 and helper.lto_priv.1; with -O3 work() gets a
 * work.constprop.N (always called with k = 7), split() a split.part.N
 * (its hot early exit inlined into callers) and coldy() a coldy.cold (its
 * unlikely branch moved away).  Prints its own call counters, which the
 * traced counts must equal: "helper H lib L work W split S coldy C".
 */
#include <stdio.h>
#include <stdlib.h>

extern unsigned long n_lib;
unsigned long lib_run(unsigned long x);

static unsigned long n_helper, n_work, n_split, n_coldy;
volatile unsigned long sink;

static __attribute__((noinline)) unsigned long helper(unsigned long x)
{
    n_helper++;
    for (int i = 0; i < 20; i++)
        x = x * 33 + 1;
    return x;
}

static __attribute__((noinline)) unsigned long work(unsigned long x, int k)
{
    n_work++;
    for (int i = 0; i < k; i++)
        x = x * 31 + (unsigned long)i;
    return x;
}

static unsigned long split(unsigned long x)
{
    n_split++;
    if (__builtin_expect(x % 64 != 0, 1))
        return x + 1;
    unsigned long s = 0;
    for (unsigned long i = 0; i < x % 1000; i++) {
        s += i * x;
        sink = s;
    }
    if (s == 12345) {
        fprintf(stderr, "rare %lu\n", s);
        abort();
    }
    return s;
}

__attribute__((noinline, cold)) static void complain(unsigned long x)
{
    fprintf(stderr, "odd %lu\n", x);
}

static __attribute__((noinline)) unsigned long coldy(unsigned long x)
{
    n_coldy++;
    unsigned long s = 0;
    for (unsigned long i = 0; i < 10; i++) {
        if (__builtin_expect((x + i) % 1000003 == 999999, 0)) {
            complain(x);
            s += x * 3;
        }
        s += i * x;
    }
    return s;
}

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;

    for (unsigned long i = 0; i < n; i++) {
        sink = helper(i);
        sink = lib_run(i);
        sink = work(i, 7);
        sink = work(i + 1, 7);
        sink = split(i);
        sink = coldy(i);
    }
    printf("helper %lu lib %lu work %lu split %lu coldy %lu\n", n_helper, n_lib, n_work, n_split,
           n_coldy);
    return 0;
}
