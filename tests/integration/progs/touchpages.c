/*
 * touchpages.c - faults a known number of pages: maps N fresh anonymous
 * pages (no huge pages, so each page is its own fault), writes one byte
 * in each, unmaps them.  Usage: touchpages N.  For collectors.test: the
 * os collector must count at least N minor faults more than touchpages 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static long touch(long n)
{
    long page = sysconf(_SC_PAGESIZE), sum = 0;
    if (n <= 0)
        return 0;
    char *p =
        mmap(NULL, (size_t)(n * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    madvise(p, (size_t)(n * page), MADV_NOHUGEPAGE);
    for (long i = 0; i < n; i++) {
        p[i * page] = (char)i;
        sum += p[i * page];
    }
    munmap(p, (size_t)(n * page));
    return sum;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 0;
    printf("touched %ld pages (%ld)\n", n, touch(n));
    return 0;
}
