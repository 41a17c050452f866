/*
 * calls.c - the call-overhead benchmark program (bench/run-calls).
 *
 *   calls [N]        N even, default 10000000
 *
 * Makes exactly N procedure calls in its loop: N/2 iterations, each calling
 * mid(), which calls one of two leaves - a two-level call, as in real code.
 * Counting main() the program makes N + 1 calls, the number it prints
 * ("calls N+1") and the bench divides by.  Every procedure is kept out of
 * line and out of interprocedural optimisation (noipa), so that -O2 keeps
 * every call in every variant (plain, -finstrument-functions, -pg).
 *
 * The leaf and its amount of work (0-7 rounds of a multiply) are chosen by
 * a pseudo-random number (xorshift64, fixed seed), so that the trace is not one pattern
 * repeated: a perfectly regular loop gives identical time deltas and
 * addresses, which any compressor squeezes to almost nothing and which
 * would flatter the packed size.  The work is the same in every variant,
 * so it cancels out of the per-call cost.
 */
#include <stdio.h>
#include <stdlib.h>

#if defined(__GNUC__) && !defined(__clang__)
#define KEEP __attribute__((noinline, noipa))
#else
#define KEEP __attribute__((noinline))
#endif

static volatile unsigned long sink;

KEEP static unsigned long leaf_a(unsigned long h)
{
    unsigned long acc = h;
    for (unsigned long j = 0; j < ((h >> 1) & 7); j++)
        acc = (acc ^ j) * 2654435761u;
    return acc;
}

KEEP static unsigned long leaf_b(unsigned long h)
{
    unsigned long acc = ~h;
    for (unsigned long j = 0; j < ((h >> 1) & 7); j++)
        acc = (acc + j) * 40503u;
    return acc;
}

KEEP static unsigned long mid(unsigned long r)
{
    unsigned long h = r >> 58;
    /* not a tail call: mid's exit follows the leaf's */
    return 1 + (h & 1 ? leaf_a(h) : leaf_b(h));
}

int main(int argc, char **argv)
{
    unsigned long n = 10000000, acc = 0, r = 88172645463325252ul;

    if (argc > 1) {
        char *end;
        n = strtoul(argv[1], &end, 10);
        if (*end != '\0' || n == 0 || n % 2 != 0) {
            fprintf(stderr, "usage: calls [N]  (N even, > 0)\n");
            return 2;
        }
    }
    for (unsigned long i = 0; i < n / 2; i++) {
        r ^= r << 13; /* xorshift64: the same sequence in every run */
        r ^= r >> 7;
        r ^= r << 17;
        acc += mid(r);
    }
    sink = acc;
    printf("calls %lu\n", n + 1);
    return 0;
}
