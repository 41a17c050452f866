/*
 * smallio.c - planted: small synchronous writes (search workload
 * smallio.tcl).  append_record() writes records of 32 bytes, each with
 * one write(2) made durable with fsync(2), 16 records a call, again and
 * again for S seconds of wall time, into a scratch file under $TMPDIR (default /tmp,
 * removed at the end).  The decoys: load_table() reads this program's own
 * executable once at the start in 64 KiB reads (a short I/O of large
 * operations), and summarise() computes for 20 ms at the end.
 *
 *   smallio -seconds S
 *
 * Truth: ioBottleneck / excessiveIOBlockingTime / excessiveSmallIOops, code
 * focus append_record (16 bytes per operation on average: a write of 32
 * and an fsync of 0); load_table and summarise never reported.  Exit
 * status 0, 1 when the scratch file cannot be written, 2 for bad usage.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../workloads/cpuwork.h"
#include "../workloads/options.h"

/* Records per call of append_record: its calls stay a few hundred a
 * second, far from a call rate that costs much to trace. */
#define BATCH 16

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

__attribute__((noinline)) static long load_table(const char *path)
{
    static char buf[65536];
    long total = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;)
        total += n;
    close(fd);
    return total;
}

/* count records of 32 bytes from serial on, each written with one write(2)
 * and made durable with fsync(2); 0, or -1 when one fails. */
__attribute__((noinline)) static int append_record(int fd, long serial, int count)
{
    char record[32];
    for (int i = 0; i < count; i++) {
        memset(record, ' ', sizeof record);
        snprintf(record, sizeof record, "record %ld", serial + i);
        record[sizeof record - 1] = '\n';
        if (write(fd, record, sizeof record) != (ssize_t)sizeof record || fsync(fd) != 0)
            return -1;
    }
    return 0;
}

__attribute__((noinline)) static void summarise(void)
{
    burn_cpu(20.0);
}

int main(int argc, char **argv)
{
    double seconds = 1.5;
    const struct opt opts[] = {{"-seconds", OPT_DOUBLE, &seconds}};
    if (READ_OPTIONS(argc, argv, opts) != 0 || seconds <= 0) {
        fprintf(stderr, "usage: smallio -seconds S\n");
        return 2;
    }
    long table = load_table("/proc/self/exe");
    const char *tmp = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/ips2-smallio.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("smallio: mkstemp");
        return 1;
    }
    unlink(path);
    long records = 0;
    double end = now_s() + seconds;
    while (now_s() < end) {
        if (append_record(fd, records, BATCH) != 0) {
            perror("smallio: append_record");
            return 1;
        }
        records += BATCH;
    }
    close(fd);
    summarise();
    printf("smallio: %ld records of 32 bytes, table of %ld bytes\n", records, table);
    return 0;
}
