/*
 * hashjoin.c - a small Shmjoin (the thesis's Ch. 4 shared-memory hash
 * join) for the search workload hashjoin.tcl.  build_tables() builds a
 * chained hash table of R tuples in memory fresh from the allocator (a
 * large malloc is a fresh mmap: every page is zero-filled on its first
 * touch), partition by partition, so the build phase page-faults over and
 * over, as Shmjoin's first touches did.  Then probe_tables() joins S
 * probes against the tables, again and again until P seconds of CPU are
 * used, in memory already touched: next to no faults.
 *
 *   hashjoin -tuples R -partitions K -probe P
 *
 * Truth: tooManyPageFaults (with the os collector), refined on "when" to
 * the build phase, not to a procedure; the probe phase's CPU work is not a
 * page-fault interval.  Exit status 0, 1 when memory runs out, 2 for bad
 * usage.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../workloads/options.h"

struct tuple {
    uint32_t key, payload;
    struct tuple *next;
};

struct partition {
    struct tuple **buckets, *tuples;
    size_t nbuckets, ntuples;
};

__attribute__((no_instrument_function)) static double thread_cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

__attribute__((no_instrument_function)) static uint32_t hash(uint32_t k)
{
    k ^= k >> 16;
    k *= 0x45d9f3bu;
    return k ^ (k >> 16);
}

/* One partition's table: fresh memory, every page touched first here. */
__attribute__((noinline)) static int build_partition(struct partition *p, uint32_t first, size_t n)
{
    p->nbuckets = n * 2;
    p->ntuples = n;
    p->buckets = calloc(p->nbuckets, sizeof *p->buckets);
    p->tuples = malloc(n * sizeof *p->tuples);
    if (p->buckets == NULL || p->tuples == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        struct tuple *t = &p->tuples[i];
        t->key = first + (uint32_t)i * 3u;
        t->payload = (uint32_t)i;
        size_t b = hash(t->key) % p->nbuckets;
        t->next = p->buckets[b];
        p->buckets[b] = t;
    }
    return 0;
}

__attribute__((noinline)) static int build_tables(struct partition *parts, int k, size_t tuples)
{
    for (int i = 0; i < k; i++)
        if (build_partition(&parts[i], (uint32_t)(i * tuples * 3), tuples) != 0)
            return -1;
    return 0;
}

__attribute__((noinline)) static long probe_partition(const struct partition *p, uint32_t first,
                                                      size_t n)
{
    long matches = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t key = first + (uint32_t)i;
        for (const struct tuple *t = p->buckets[hash(key) % p->nbuckets]; t; t = t->next)
            matches += t->key == key;
    }
    return matches;
}

__attribute__((noinline)) static long probe_tables(struct partition *parts, int k, size_t tuples,
                                                   double seconds)
{
    long matches = 0;
    double end = thread_cpu_s() + seconds;
    do {
        for (int i = 0; i < k; i++)
            matches += probe_partition(&parts[i], (uint32_t)(i * tuples * 3), tuples);
    } while (thread_cpu_s() < end);
    return matches;
}

int main(int argc, char **argv)
{
    int tuples = 4000000, k = 8;
    double probe = 1.0;
    const struct opt opts[] = {
        {"-tuples", OPT_INT, &tuples},
        {"-partitions", OPT_INT, &k},
        {"-probe", OPT_DOUBLE, &probe},
    };
    if (READ_OPTIONS(argc, argv, opts) != 0 || tuples < 1 || k < 1 || k > 1024 || probe < 0) {
        fprintf(stderr, "usage: hashjoin -tuples R -partitions K -probe P\n");
        return 2;
    }
    struct partition parts[1024];
    size_t per = (size_t)tuples / (size_t)k;
    if (build_tables(parts, k, per) != 0) {
        fprintf(stderr, "hashjoin: out of memory\n");
        return 1;
    }
    long matches = probe_tables(parts, k, per, probe);
    printf("hashjoin: %d partitions of %zu tuples, %ld matches\n", k, per, matches);
    return 0;
}
