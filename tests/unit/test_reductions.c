/*
 * test_reductions.c - the reductions file (slave/reductions.c): a round
 * trip keeps every field and re-encodes to the same bytes; a buffer cut at
 * any length, or with a bad magic, version, count, index, range, bucket
 * value, trailing bytes or an altered value, is refused with a message
 * that names the byte offset and what was expected there; version 4's
 * object names and histograms of objects; version 6's latency rows;
 * metric names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "ips2_reader.h"
#include "ips2_reductions.h"

/* Layout constants of the version 3 file (slave/reductions.c). */
#define HEAD         100
#define PROCESS_SIZE 60
#define THREAD_SIZE  (40 + 8 * IPS2_M_COUNT)
#define PROC_SIZE    (24 + 8 * IPS2_M_COUNT)
#define EXT_SIZE     48
#define EXTS_BYTES   (4 + 2 * EXT_SIZE + 3 * 8) /* the count, two rows, their buckets */

static char *strs[] = {"m1", "host", "app", "/bin/app", "main", "work", "no exit recorded"};
enum { S_M1, S_HOST, S_APP, S_EXE, S_MAIN, S_WORK, S_PROBLEM, NSTR };

static size_t strings_size(void)
{
    size_t n = 0;

    for (unsigned i = 0; i < NSTR; i++)
        n += 4 + strlen(strs[i]);
    return n;
}

/* A small but complete set of reductions: two processes, three threads,
 * procedures, arcs, histograms, an object, a problem. */
static struct ips2_reductions *sample(void)
{
    static struct ips2_red_process processes[2];
    static struct ips2_red_thread threads[3];
    static struct ips2_red_proc procs[4];
    static struct ips2_red_arc arcs[3];
    static struct ips2_red_hist hists[2];
    static struct ips2_red_object objects[1];
    static uint32_t problems[1] = {S_PROBLEM};
    static struct ips2_red_ext exts[2];
    static double v0[3] = {1.5, 0, 42}, v1[1] = {7}, x0[2] = {3000, 1000}, x1[1] = {77};
    static struct ips2_reductions r;

    memset(&r, 0, sizeof(r));
    r.machine = S_M1;
    r.host = S_HOST;
    r.phase_start_ns = INT64_MIN;
    r.phase_end_ns = INT64_MAX;
    r.interval_ns = 100000000;
    r.events = 123456;
    r.trace_bytes = 987654;
    r.strings = strs;
    r.nstrings = NSTR;

    processes[0] = (struct ips2_red_process){S_APP,
                                             S_EXE,
                                             IPS2_RED_NONE,
                                             10,
                                             1,
                                             0,
                                             100,
                                             900,
                                             IPS2_EXIT_RETURN,
                                             0,
                                             IPS2_RED_NONE,
                                             0,
                                             2,
                                             0,
                                             0,
                                             0};
    processes[1] = (struct ips2_red_process){S_APP, S_EXE, S_MAIN,    11, 10, 1, -50, 500,
                                             -1,    0,     S_PROBLEM, 2,  1,  0, 0,   0};
    r.processes = processes;
    r.nprocesses = 2;
    for (unsigned i = 0; i < 3; i++) {
        memset(&threads[i], 0, sizeof(threads[i]));
        threads[i].process = i < 2 ? 0 : 1;
        threads[i].tid = 10 + i;
        threads[i].create_seq = i;
        threads[i].start_ns = 100 + i;
        threads[i].end_ns = 800 + i;
        for (unsigned m = 0; m < IPS2_M_COUNT; m++)
            threads[i].m[m] = 1000 * i + m;
    }
    threads[0].first_proc = 0, threads[0].nprocs = 2;
    threads[1].first_proc = 2, threads[1].nprocs = 1;
    threads[2].first_proc = 3, threads[2].nprocs = 1;
    r.threads = threads;
    r.nthreads = 3;
    for (unsigned i = 0; i < 4; i++) {
        memset(&procs[i], 0, sizeof(procs[i]));
        procs[i].thread = i < 2 ? 0 : i - 1;
        procs[i].name = i % 2 ? S_WORK : S_MAIN;
        procs[i].incl_cpu = 500 + i;
        procs[i].incl_wall = 600 + i;
        for (unsigned m = 0; m < IPS2_M_COUNT; m++)
            procs[i].m[m] = UINT64_MAX - m - i;
    }
    r.procs = procs;
    r.nprocs = 4;
    arcs[0] = (struct ips2_red_arc){0, IPS2_RED_NONE, S_MAIN, 1, 501};
    arcs[1] = (struct ips2_red_arc){0, S_MAIN, S_WORK, 99, 300};
    arcs[2] = (struct ips2_red_arc){2, IPS2_RED_NONE, S_WORK, 1, 5};
    r.arcs = arcs;
    r.narcs = 3;
    hists[0] =
        (struct ips2_red_hist){0, IPS2_RED_NONE, IPS2_M_CPU, -100, 100, 3, v0, IPS2_RED_NONE};
    hists[1] = (struct ips2_red_hist){1, 2, IPS2_M_SYNC_WAIT, 0, 200, 1, v1, IPS2_RED_NONE};
    r.hists = hists;
    r.nhists = 2;
    objects[0] = (struct ips2_red_object){1, 3, 0xdeadbeef, 4, 4000, 10, IPS2_RED_NONE};
    r.objects = objects;
    r.nobjects = 1;
    r.problems = problems;
    r.nproblems = 1;
    exts[0] = (struct ips2_red_ext){S_WORK, 10, 0, IPS2_M_MINOR_FAULTS, 0, 4000, 0, 100, 2, x0};
    exts[1] = (struct ips2_red_ext){S_MAIN, 0, IPS2_RED_NONE, IPS2_M_CTX_SWITCHES, 1, 77, -100, 100,
                                    1,      x1};
    r.exts = exts;
    r.nexts = 2;
    return &r;
}

static unsigned char *encoded(size_t *size)
{
    unsigned char *buf = ips2_reductions_encode(sample(), size);

    assert_non_null(buf);
    return buf;
}

static void test_round_trip(void **state)
{
    const struct ips2_reductions *a = sample();
    char err[IPS2_ERR_MAX] = "";
    size_t size, size2;
    unsigned char *buf = encoded(&size);

    assert_int_equal(size, HEAD + strings_size() + 2 * PROCESS_SIZE + 3 * THREAD_SIZE +
                               4 * PROC_SIZE + 3 * 28 + 2 * 32 + 4 * 8 + 40 + 4 + EXTS_BYTES);
    struct ips2_reductions *b = ips2_reductions_decode(buf, size, "x.red", err);
    if (!b)
        fail_msg("%s", err);
    assert_int_equal(b->machine, a->machine);
    assert_int_equal(b->host, a->host);
    assert_int_equal(b->phase_start_ns, INT64_MIN);
    assert_int_equal(b->phase_end_ns, INT64_MAX);
    assert_int_equal(b->interval_ns, a->interval_ns);
    assert_int_equal(b->events, a->events);
    assert_int_equal(b->trace_bytes, a->trace_bytes);
    assert_int_equal(b->nstrings, NSTR);
    for (unsigned i = 0; i < NSTR; i++)
        assert_string_equal(b->strings[i], strs[i]);
    assert_int_equal(b->nprocesses, 2);
    assert_memory_equal(b->processes, a->processes, 2 * sizeof(*a->processes));
    assert_int_equal(b->nthreads, 3);
    assert_memory_equal(b->threads, a->threads, 3 * sizeof(*a->threads));
    assert_int_equal(b->nprocs, 4);
    assert_memory_equal(b->procs, a->procs, 4 * sizeof(*a->procs));
    assert_int_equal(b->narcs, 3);
    assert_memory_equal(b->arcs, a->arcs, 3 * sizeof(*a->arcs));
    assert_int_equal(b->nhists, 2);
    for (unsigned i = 0; i < 2; i++) {
        assert_int_equal(b->hists[i].thread, a->hists[i].thread);
        assert_int_equal(b->hists[i].proc, a->hists[i].proc);
        assert_int_equal(b->hists[i].metric, a->hists[i].metric);
        assert_int_equal(b->hists[i].start_ns, a->hists[i].start_ns);
        assert_int_equal(b->hists[i].width_ns, a->hists[i].width_ns);
        assert_int_equal(b->hists[i].nbuckets, a->hists[i].nbuckets);
        assert_memory_equal(b->hists[i].v, a->hists[i].v, a->hists[i].nbuckets * sizeof(double));
    }
    assert_int_equal(b->nobjects, 1);
    assert_memory_equal(b->objects, a->objects, sizeof(*a->objects));
    assert_int_equal(b->nproblems, 1);
    assert_int_equal(b->problems[0], S_PROBLEM);
    assert_int_equal(b->nexts, 2);
    for (unsigned i = 0; i < 2; i++) {
        const struct ips2_red_ext *x = &a->exts[i], *y = &b->exts[i];
        assert_int_equal(y->collector, x->collector);
        assert_int_equal(y->pid, x->pid);
        assert_int_equal(y->process, x->process);
        assert_int_equal(y->metric, x->metric);
        assert_int_equal(y->gauge, x->gauge);
        assert_int_equal(y->value, x->value);
        assert_int_equal(y->start_ns, x->start_ns);
        assert_int_equal(y->width_ns, x->width_ns);
        assert_int_equal(y->nbuckets, x->nbuckets);
        assert_memory_equal(y->v, x->v, x->nbuckets * sizeof(double));
    }

    unsigned char *again = ips2_reductions_encode(b, &size2);
    assert_int_equal(size2, size);
    assert_memory_equal(again, buf, size);
    free(again);
    ips2_reductions_free(b);
    free(buf);
}

static void test_empty(void **state)
{
    struct ips2_reductions r;
    char err[IPS2_ERR_MAX];
    size_t size;

    memset(&r, 0, sizeof(r));
    r.machine = r.host = IPS2_RED_NONE;
    r.interval_ns = 1;
    void *buf = ips2_reductions_encode(&r, &size);
    assert_int_equal(size, HEAD + 4);
    struct ips2_reductions *b = ips2_reductions_decode(buf, size, "e.red", err);
    assert_non_null(b);
    assert_int_equal(b->nstrings, 0);
    assert_int_equal(b->machine, IPS2_RED_NONE);
    ips2_reductions_free(b);
    free(buf);
}

/* Decoding must fail with "NAME: byte OFF: expected ..." containing want. */
static void refused(const unsigned char *buf, size_t size, size_t off, const char *want)
{
    char err[IPS2_ERR_MAX] = "", prefix[64];

    struct ips2_reductions *r = ips2_reductions_decode(buf, size, "t.red", err);
    if (r)
        fail_msg("decoded, expected an error at byte %zu: %s", off, want);
    snprintf(prefix, sizeof(prefix), "t.red: byte %zu: expected ", off);
    if (strncmp(err, prefix, strlen(prefix)) != 0 || !strstr(err, want))
        fail_msg("error \"%s\", expected \"%s...%s\"", err, prefix, want);
}

static void test_truncated_everywhere(void **state)
{
    size_t size;
    unsigned char *buf = encoded(&size);
    char err[IPS2_ERR_MAX];

    for (size_t n = 0; n < size; n++) {
        unsigned char *copy = malloc(n ? n : 1); /* exact size: ASan sees overreads */
        memcpy(copy, buf, n);
        err[0] = '\0';
        assert_null(ips2_reductions_decode(copy, n, "t.red", err));
        const char *p = strstr(err, "t.red: byte ");
        assert_non_null(p);
        unsigned long long off = strtoull(p + strlen("t.red: byte "), NULL, 10);
        if (off > n)
            fail_msg("cut at %zu: %s", n, err);
        assert_non_null(strstr(err, "expected"));
        free(copy);
    }
    refused(buf, 4, 0, "magic \"IPS2RED\", found a file shorter than it");
    refused(buf, 50, 50, "a 100-byte header, found end of data");
    refused(buf, HEAD + 3, HEAD, "7 strings of at least 4 bytes each, found only 3 bytes left");
    size_t at_proc = HEAD + strings_size();
    refused(buf, at_proc + 10, at_proc, "2 processes of at least 60 bytes each, found only 10");
    free(buf);
}

static void put32(unsigned char *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

static void put64(unsigned char *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

static void test_corrupt_fields(void **state)
{
    size_t size;
    unsigned char *buf = encoded(&size);
    unsigned char *c = malloc(size);
    const size_t at_proc = HEAD + strings_size();
    const size_t at_thread = at_proc + 2 * PROCESS_SIZE;
    const size_t at_procs = at_thread + 3 * THREAD_SIZE;
    const size_t at_arcs = at_procs + 4 * PROC_SIZE;
    const size_t at_hists = at_arcs + 3 * 28;

#define FRESH() memcpy(c, buf, size)
    FRESH();
    c[0] = 'X';
    refused(c, size, 0, "magic \"IPS2RED\", found other bytes");
    FRESH();
    put32(c + 8, 10);
    refused(c, size, 8, "version 1 to 9, found 10");
    FRESH();
    put32(c + 16, IPS2_M_COUNT + 1);
    refused(c, size, 16, "metrics per row");
    FRESH();
    put32(c + 20, 1000000); /* strings */
    refused(c, size, HEAD, "1000000 strings of at least 4 bytes each");
    FRESH();
    put32(c + 52, NSTR); /* machine */
    refused(c, size, 52, "the machine: a string index below 7, found 7");
    FRESH();
    put32(c + HEAD, 100000); /* first string's length */
    refused(c, size, HEAD, "string 0 of 100000 bytes");
    FRESH();
    c[HEAD + 4] = '\0'; /* "m1" -> "\0" "1" */
    refused(c, size, HEAD, "string 0 without NUL bytes");
    FRESH();
    put32(c + at_proc, 99); /* process 0's app */
    refused(c, size, at_proc, "the application: a string index below 7, found 99");
    FRESH();
    put32(c + at_proc + 52, 3); /* process 0's first_thread = 3, nthreads 2 */
    refused(c, size, at_proc + 52, "a range of threads within the 3 there are, found 3 + 2");
    FRESH();
    put32(c + at_proc + 40, 9); /* exit how */
    refused(c, size, at_proc + 40, "an exit how of -1 to 5, found 9");
    FRESH();
    put32(c + at_thread, 1); /* thread 0 claims process 1 */
    refused(c, size, at_thread, "thread 0 to be in its process's threads 2 + 1");
    FRESH();
    put32(c + at_thread, 5);
    refused(c, size, at_thread, "a process index below 2, found 5");
    FRESH();
    put32(c + at_procs + PROC_SIZE, 2); /* procedure 1 claims thread 2 */
    refused(c, size, at_procs + PROC_SIZE, "procedure 1 to be in thread 2's procedures 3 + 1");
    FRESH();
    put32(c + at_arcs + 4, 12345); /* arc 0's caller */
    refused(c, size, at_arcs + 4, "the caller: a string index below 7 or none, found 12345");
    FRESH();
    put32(c + at_hists + 4, 0); /* histogram 0: procedure 0 belongs to thread 0: fine; 1 -> 0 */
    put32(c + at_hists + 32 + 24 + 4, 0);
    refused(c, size, at_hists + 32 + 24 + 4,
            "histogram 1's procedure 0 to belong to thread 1, found 0");
    FRESH();
    put32(c + at_hists + 28, IPS2_HIST_MAX_BUCKETS + 1);
    refused(c, size, at_hists + 28, "at most 1024 buckets, found 1025");
    FRESH();
    memset(c + at_hists + 20, 0, 8); /* width 0 */
    refused(c, size, at_hists + 20, "a bucket width of 1 to");
    FRESH();
    double nan_v = NAN;
    memcpy(c + at_hists + 32 + 8, &nan_v, 8);
    refused(c, size, at_hists + 32 + 8, "a finite bucket value");
    FRESH();
    const size_t at_exts = size - EXTS_BYTES;
    put32(c + at_exts - 4, NSTR); /* the problem */
    refused(c, size, at_exts - 4, "a problem: a string index below 7, found 7");
    FRESH();
    put32(c + at_exts, 1000); /* external data rows */
    refused(c, size, at_exts + 4, "1000 external data rows of at least 48 bytes each");
    FRESH();
    put32(c + at_exts + 4, 99); /* row 0's collector */
    refused(c, size, at_exts + 4, "the collector: a string index below 7, found 99");
    FRESH();
    put32(c + at_exts + 4 + 8, 2); /* row 0's process */
    refused(c, size, at_exts + 4 + 8, "a process below 2 or none, found 2");
    FRESH();
    put32(c + at_exts + 4 + 8, 1); /* row 0 (pid 10) given process 1 (pid 11) */
    refused(c, size, at_exts + 4 + 8, "a process of pid 10, found process 1 of pid 11");
    FRESH();
    put32(c + at_exts + 4 + EXT_SIZE + 2 * 8 + 8, 0); /* row 1 (the machine) given process 0 */
    refused(c, size, at_exts + 4 + EXT_SIZE + 2 * 8 + 8,
            "none (the machine's row), found process 0");
    FRESH();
    put32(c + at_exts + 4 + 12, IPS2_M_COUNT); /* row 0's metric */
    refused(c, size, at_exts + 4 + 12, "a metric below");
    FRESH();
    put32(c + at_exts + 4 + 16, 2); /* row 0: neither counter nor gauge */
    refused(c, size, at_exts + 4 + 16, "0 (counter) or 1 (gauge), found 2");
    FRESH();
    memset(c + at_exts + 4 + 36, 0, 8); /* row 0's width */
    refused(c, size, at_exts + 4 + 36, "a bucket width of 1 to");
    FRESH();
    c[at_procs + 12] ^= 1; /* an inclusive time: well-formed but altered */
    refused(c, size, 12, "crc32");

    unsigned char *longer = malloc(size + 1);
    memcpy(longer, buf, size);
    longer[size] = 0;
    refused(longer, size + 1, size, "the end of the data, found 1 more bytes");
    free(longer);
    free(c);
    free(buf);
}

/* Decodes the first size bytes of buf (an encoding cut down to an older
 * layout) as a file of that version, its crc made right; fails the test
 * if they do not decode. */
static struct ips2_reductions *decode_as(unsigned char *buf, size_t size, uint32_t version,
                                         const char *name)
{
    char err[IPS2_ERR_MAX] = "";

    put32(buf + 8, version);
    uint32_t crc = (uint32_t)crc32_z(0L, buf + 16, size - 16);
    memcpy(buf + 12, &crc, 4);
    struct ips2_reductions *b = ips2_reductions_decode(buf, size, name, err);
    if (!b)
        fail_msg("%s", err);
    return b;
}

/* A version 1 file (no external data) still reads: the same bytes
 * without the external data's count, version 1, its own crc. */
static void test_version_1(void **state)
{
    struct ips2_reductions r = *sample();
    size_t size;

    r.exts = NULL;
    r.nexts = 0;
    unsigned char *buf = ips2_reductions_encode(&r, &size);
    assert_non_null(buf);
    size -= 4;
    struct ips2_reductions *b = decode_as(buf, size, 1, "v1.red");
    assert_int_equal(b->nexts, 0);
    assert_int_equal(b->nprocs, 4);
    ips2_reductions_free(b);
    free(buf);
}

/* A version 2 file (external rows without their process) still reads:
 * a process's row is its pid's first process row, the machine's none. */
static void test_version_2(void **state)
{
    struct ips2_reductions r = *sample();
    size_t size;

    r.exts[0].process = IPS2_RED_NONE; /* whatever is written is cut out */
    unsigned char *buf = ips2_reductions_encode(&r, &size);
    assert_non_null(buf);
    r.exts[0].process = 0;
    /* drop each row's process field: rows start after the count */
    const size_t at = size - EXTS_BYTES + 4, row1 = at + EXT_SIZE + 2 * 8;
    memmove(buf + row1 + 8, buf + row1 + 12, size - (row1 + 12));
    memmove(buf + at + 8, buf + at + 12, size - 4 - (at + 12));
    size -= 8;
    struct ips2_reductions *b = decode_as(buf, size, 2, "v2.red");
    assert_int_equal(b->nexts, 2);
    assert_int_equal(b->exts[0].pid, 10);
    assert_int_equal(b->exts[0].process, 0);
    assert_int_equal(b->exts[0].metric, IPS2_M_MINOR_FAULTS);
    assert_int_equal(b->exts[0].value, 4000);
    assert_int_equal(b->exts[1].process, IPS2_RED_NONE);
    assert_int_equal(b->exts[1].value, 77);
    ips2_reductions_free(b);
    free(buf);
}

/* Version 4: objects' names and histograms of one object travel in a
 * section after the external data (one u32 per object row, then one per
 * histogram row); an object that is no row of the histogram's thread, or
 * a histogram of an object that is not a thread's sync_wait, is refused. */
static void test_links(void **state)
{
    struct ips2_reductions r = *sample();
    struct ips2_red_object object = r.objects[0];
    struct ips2_red_hist hists[3] = {r.hists[0], r.hists[1], r.hists[1]};
    char err[IPS2_ERR_MAX] = "";
    size_t size, plain;

    free(ips2_reductions_encode(&r, &plain));
    object.name = S_WORK;
    hists[2].proc = IPS2_RED_NONE;
    hists[2].object = 0; /* thread 1's sync_wait at object 0 (thread 1's) */
    r.objects = &object;
    r.hists = hists;
    r.nhists = 3;
    unsigned char *buf = ips2_reductions_encode(&r, &size);
    assert_non_null(buf);
    assert_int_equal(size, plain + (32 + 8) + 4 * (1 + 3));
    assert_int_equal(buf[8], 4);
    struct ips2_reductions *b = ips2_reductions_decode(buf, size, "l.red", err);
    if (!b)
        fail_msg("%s", err);
    assert_int_equal(b->objects[0].name, S_WORK);
    assert_int_equal(b->hists[0].object, IPS2_RED_NONE);
    assert_int_equal(b->hists[1].object, IPS2_RED_NONE);
    assert_int_equal(b->hists[2].object, 0);
    ips2_reductions_free(b);

    const size_t at_names = size - 4 * (1 + 3), at_objects = at_names + 4;
    unsigned char *c = malloc(size);
    memcpy(c, buf, size);
    put32(c + at_names, NSTR);
    refused(c, size, at_names, "an object's name: a string index below 7 or none, found 7");
    memcpy(c, buf, size);
    put32(c + at_objects + 8, 1);
    refused(c, size, at_objects + 8, "an object index below 1 or none, found 1");
    memcpy(c, buf, size);
    put32(c + at_objects, 0); /* histogram 0 is thread 0's */
    refused(c, size, at_objects, "histogram 0's object 0 to belong to thread 0, found 1");
    memcpy(c, buf, size);
    put32(c + at_objects + 4, 0); /* histogram 1 is a procedure's */
    refused(c, size, at_objects + 4,
            "a sync_wait one of no procedure, found metric 3 of procedure 2");
    refused(buf, size - 1, at_names, "4 object names and histogram objects of at least 4 bytes");
    free(c);
    free(buf);

    /* an older version reads every link as none */
    r = *sample();
    buf = ips2_reductions_encode(&r, &size);
    b = ips2_reductions_decode(buf, size, "v3.red", err);
    assert_non_null(b);
    assert_int_equal(buf[8], 3);
    assert_int_equal(b->objects[0].name, IPS2_RED_NONE);
    assert_int_equal(b->hists[0].object, IPS2_RED_NONE);
    ips2_reductions_free(b);
    free(buf);
}

/* Version 5: the holds of locks by procedure, each checked against the
 * objects and the procedures of the object's thread; a file without holds
 * is written as version 4 or 3, as before. */
static void test_holds(void **state)
{
    struct ips2_reductions r = *sample();
    /* object 0 is thread 1's; procedure 2 is thread 1's */
    struct ips2_red_hold holds[2] = {{0, 2, 7, 7000, 0}, {0, IPS2_RED_NONE, 1, 50, 0}};
    char err[IPS2_ERR_MAX] = "";
    size_t size, plain;

    free(ips2_reductions_encode(&r, &plain));
    r.holds = holds;
    r.nholds = 2;
    unsigned char *buf = ips2_reductions_encode(&r, &size);
    assert_non_null(buf);
    assert_int_equal(buf[8], 5);
    assert_int_equal(size, plain + 4 * (1 + 2) + 4 + 2 * 24);
    struct ips2_reductions *b = ips2_reductions_decode(buf, size, "h.red", err);
    if (!b)
        fail_msg("%s", err);
    assert_int_equal(b->nholds, 2);
    assert_int_equal(b->holds[0].object, 0);
    assert_int_equal(b->holds[0].proc, 2);
    assert_int_equal(b->holds[0].acquisitions, 7);
    assert_int_equal(b->holds[0].hold_ns, 7000);
    assert_int_equal(b->holds[1].proc, IPS2_RED_NONE);
    assert_int_equal(b->holds[1].hold_ns, 50);
    ips2_reductions_free(b);

    const size_t at_holds = size - 4 - 2 * 24;
    unsigned char *c = malloc(size);
    memcpy(c, buf, size);
    put32(c + at_holds + 4, 1);
    refused(c, size, at_holds + 4, "an object index below 1, found 1");
    memcpy(c, buf, size);
    put32(c + at_holds + 8, 4);
    refused(c, size, at_holds + 8, "a procedure index below 4 or none, found 4");
    memcpy(c, buf, size);
    put32(c + at_holds + 8, 0); /* procedure 0 is thread 0's */
    refused(c, size, at_holds + 4, "hold 0's procedure 0 to belong to thread 1, found 0");
    memcpy(c, buf, size);
    put32(c + at_holds, 3);
    refused(c, size, at_holds + 4, "3 holds of at least 24 bytes");
    free(c);
    free(buf);
}

/* Version 9: the acquisitions of each hold that libips2 counted without
 * times (LOCK_COUNTED), at most the hold's acquisitions; a file whose holds
 * have none is written as before. */
static void test_counted_holds(void **state)
{
    struct ips2_reductions r = *sample();
    struct ips2_red_hold holds[2] = {{0, 2, 7000, 300, 6990}, {0, IPS2_RED_NONE, 1, 50, 0}};
    char err[IPS2_ERR_MAX] = "";
    size_t size;

    (void)state;
    r.holds = holds;
    r.nholds = 2;
    unsigned char *buf = ips2_reductions_encode(&r, &size);
    assert_non_null(buf);
    assert_int_equal(buf[8], 9);
    struct ips2_reductions *b = ips2_reductions_decode(buf, size, "c.red", err);
    if (!b)
        fail_msg("%s", err);
    assert_int_equal(b->nholds, 2);
    assert_int_equal(b->holds[0].acquisitions, 7000);
    assert_int_equal(b->holds[0].counted, 6990);
    assert_int_equal(b->holds[0].hold_ns, 300);
    assert_int_equal(b->holds[1].counted, 0);
    ips2_reductions_free(b);

    unsigned char *c = malloc(size);
    memcpy(c, buf, size);
    put32(c + size - 16, 7001); /* hold 0's counted: more than its acquisitions */
    refused(c, size, size - 16, "hold 0's counted acquisitions at most its 7000, found 7001");
    free(c);
    free(buf);
}

/* Version 6: each process's clock (method, param, resolution); a file
 * whose processes do not say theirs is written as before. */
static void test_clocks(void **state)
{
    struct ips2_reductions r = *sample();
    struct ips2_red_process procs[2];
    char err[IPS2_ERR_MAX] = "";
    size_t size, plain;

    free(ips2_reductions_encode(&r, &plain));
    memcpy(procs, r.processes, sizeof(procs));
    procs[0].cpu_method = IPS2_CPU_TICK;
    procs[0].cpu_param = 10;
    procs[0].cpu_res_ns = 10000000;
    procs[1].cpu_method = IPS2_CPU_EXACT;
    procs[1].cpu_res_ns = 1;
    r.processes = procs;
    unsigned char *buf = ips2_reductions_encode(&r, &size);
    assert_non_null(buf);
    assert_int_equal(buf[8], 6);
    assert_int_equal(size, plain + 4 * (1 + 2) + 4 + 2 * 16); /* links, no holds, the clocks */
    struct ips2_reductions *b = ips2_reductions_decode(buf, size, "c.red", err);
    if (!b)
        fail_msg("%s", err);
    assert_int_equal(b->processes[0].cpu_method, IPS2_CPU_TICK);
    assert_int_equal(b->processes[0].cpu_param, 10);
    assert_int_equal(b->processes[0].cpu_res_ns, 10000000);
    assert_int_equal(b->processes[1].cpu_method, IPS2_CPU_EXACT);
    assert_int_equal(b->processes[1].cpu_res_ns, 1);
    ips2_reductions_free(b);

    unsigned char *c = malloc(size);
    memcpy(c, buf, size);
    put32(c + size - 16, 3);
    refused(c, size, size - 16, "process 1's clock method 0, 1 or 2, found 3");
    memcpy(c, buf, size);
    refused(c, size - 8, size - 32, "2 process clocks of at least 16 bytes");
    free(c);
    free(buf);
}

/* Version 7: latency distributions of procedure rows, each consistent
 * with itself; reductions without them (latency false) are written as
 * before and read back as not recorded. */
static void test_latency_rows(void **state)
{
    struct ips2_reductions r = *sample();
    struct ips2_lat_bin b0[2] = {{ips2_lat_bucket(1000), 3}, {ips2_lat_bucket(90000), 1}};
    struct ips2_lat_bin b2[1] = {{ips2_lat_bucket(5), 2}};
    struct ips2_red_latency lats[2] = {{0, 2, 4, 90001, b0}, {2, 1, 2, 5, b2}};
    char err[IPS2_ERR_MAX] = "";
    size_t size, plain;

    unsigned char *old = ips2_reductions_encode(&r, &plain);
    struct ips2_reductions *o = ips2_reductions_decode(old, plain, "o.red", err);
    assert_non_null(o);
    assert_false(o->latency);
    assert_int_equal(o->nlats, 0);
    ips2_reductions_free(o);
    free(old);

    r.latency = true;
    r.lats = lats;
    r.nlats = 2;
    unsigned char *buf = ips2_reductions_encode(&r, &size);
    assert_non_null(buf);
    assert_int_equal(buf[8], 7);
    /* links, no holds, the two processes' clocks (not said), the latency rows */
    assert_int_equal(size, plain + 4 * (1 + 2) + 4 + 2 * 16 + 4 + 2 * 24 + 3 * 12);
    struct ips2_reductions *b = ips2_reductions_decode(buf, size, "l.red", err);
    if (!b)
        fail_msg("%s", err);
    assert_true(b->latency);
    assert_int_equal(b->nlats, 2);
    for (unsigned i = 0; i < 2; i++) {
        assert_int_equal(b->lats[i].proc, lats[i].proc);
        assert_int_equal(b->lats[i].count, lats[i].count);
        assert_int_equal(b->lats[i].max_ns, lats[i].max_ns);
        assert_int_equal(b->lats[i].nbins, lats[i].nbins);
        assert_memory_equal(b->lats[i].bins, lats[i].bins, lats[i].nbins * sizeof(*lats[i].bins));
    }
    size_t size2;
    unsigned char *again = ips2_reductions_encode(b, &size2);
    assert_int_equal(size2, size);
    assert_memory_equal(again, buf, size);
    free(again);
    ips2_reductions_free(b);

    const size_t at = size - 2 * 24 - 3 * 12; /* the first row */
    unsigned char *c = malloc(size);
    memcpy(c, buf, size);
    put32(c + at, 4);
    refused(c, size, at, "a procedure index below 4, found 4");
    memcpy(c, buf, size);
    put32(c + at + 24 + 2 * 12, 0);
    refused(c, size, at + 24 + 2 * 12, "row 1's procedure above 0, found 0");
    memcpy(c, buf, size);
    put32(c + at + 24 + 12, ips2_lat_bucket(999)); /* below the first bucket */
    refused(c, size, at + 24 + 12, "a latency bucket above");
    memcpy(c, buf, size);
    put32(c + at + 24 + 12, IPS2_LAT_BUCKETS);
    refused(c, size, at + 24 + 12, "below 3776");
    memcpy(c, buf, size);
    put64(c + at + 8, 5); /* count 5, buckets 3 + 1 */
    refused(c, size, at + 8, "expected 4 activations, as the buckets hold, found 5");
    memcpy(c, buf, size);
    put64(c + at + 16, 2000); /* max outside the last bucket */
    refused(c, size, at + 16, "a longest activation in bucket");
    free(c);
    free(buf);
}

static void test_metric_names(void **state)
{
    assert_string_equal(ips2_metric_name(IPS2_M_CPU), "cpu");
    assert_string_equal(ips2_metric_unit(IPS2_M_CPU), "ns");
    assert_string_equal(ips2_metric_name(IPS2_M_CALLS), "calls");
    assert_string_equal(ips2_metric_unit(IPS2_M_CALLS), "");
    assert_string_equal(ips2_metric_unit(IPS2_M_BYTES_SENT), "bytes");
    assert_null(ips2_metric_name(IPS2_M_COUNT));
    for (unsigned m = 0; m < IPS2_M_COUNT; m++) {
        assert_non_null(ips2_metric_name(m));
        assert_int_equal(ips2_metric_by_name(ips2_metric_name(m)), m);
    }
    assert_int_equal(ips2_metric_by_name("nonsense"), -1);
    assert_int_equal(ips2_metric_by_name(NULL), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_truncated_everywhere),
        cmocka_unit_test(test_corrupt_fields),
        cmocka_unit_test(test_metric_names),
        cmocka_unit_test(test_clocks),
        cmocka_unit_test(test_version_1),
        cmocka_unit_test(test_version_2),
        cmocka_unit_test(test_links),
        cmocka_unit_test(test_holds),
        cmocka_unit_test(test_counted_holds),
        cmocka_unit_test(test_latency_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
