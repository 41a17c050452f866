/*
 * test_external.c - the external data interface (collectors/external.c):
 * what a monitor writes reads back the same; the bound holds and says so;
 * a file cut in the middle of a record (a crash) loses only that record;
 * a bad byte is named by its offset and what came before it stays; times
 * that would not fit on the session's clock are such bad bytes; a FIFO
 * named *.ext is refused, not waited for; a pid reused by a new process
 * (process records) reduces to a row per process, each naming its own
 * process row of the reductions (or none); a counter past 2^64 is
 * clamped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ips2_external.h"
#include "ips2_reader.h"
#include "ips2_record.h"
#include "ips2_reductions.h"
#include "ips2_writer.h"

#define SAMPLE 28 /* bytes of a sample record */

static char dir[] = "/tmp/ips2-test-external.XXXXXX";

static int setup(void **state)
{
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[512];
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.') {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
    return rmdir(dir);
}

/* Writes a file: 2 metrics, n samples of metric 0 for pid 42 (value i at
 * time 1000 + i), one machine sample of metric 1, one note.  Returns its
 * malloc'd path. */
static char *write_file(int n, uint64_t bound)
{
    char err[IPS2_EXT_ERR_MAX] = "", *path = NULL;
    struct ips2_ext_writer *w = ips2_ext_create(dir, "test", 5000000, bound, &path, err);
    if (w == NULL)
        fail_msg("%s", err);
    assert_int_equal(ips2_ext_metric(w, "page_faults", "", IPS2_EXT_COUNTER, err), 0);
    assert_int_equal(ips2_ext_metric(w, "cycles", "", IPS2_EXT_GAUGE, err), 1);
    for (int i = 0; i < n; i++)
        assert_int_equal(ips2_ext_sample(w, 1000 + i, 0, 42, i, err), 0);
    assert_int_equal(ips2_ext_sample(w, 5000, 1, 0, 2.5, err), 0);
    assert_int_equal(ips2_ext_note(w, 6000, 42, "hello", err), 0);
    assert_int_equal(ips2_ext_close(w, err), 0);
    return path;
}

static void test_round_trip(void **state)
{
    char err[IPS2_EXT_ERR_MAX] = "x";
    char *path = write_file(3, 0);
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    assert_int_equal(access(tmp, F_OK), -1); /* renamed, not left behind */
    assert_true(ips2_ext_is_file(path));
    struct ips2_ext_data *d = ips2_ext_read(path, err);
    assert_non_null(d);
    assert_string_equal(err, "");
    assert_string_equal(d->collector, "test");
    assert_int_equal(d->interval_ns, 5000000);
    assert_int_equal(d->writer_pid, getpid());
    assert_int_equal(d->nmetrics, 2);
    assert_string_equal(d->metrics[0].name, "page_faults");
    assert_int_equal(d->metrics[1].kind, IPS2_EXT_GAUGE);
    assert_int_equal(d->nsamples, 4);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(d->samples[i].metric, 0);
        assert_int_equal(d->samples[i].pid, 42);
        assert_int_equal(d->samples[i].mono_ns, 1000 + i);
        assert_true(d->samples[i].value == i);
    }
    assert_int_equal(d->samples[3].pid, 0);
    assert_true(d->samples[3].value == 2.5);
    assert_int_equal(d->nnotes, 1);
    assert_string_equal(d->notes[0].text, "hello");
    assert_int_equal(d->notes[0].pid, 42);
    assert_false(d->torn);
    ips2_ext_free(d);
    unlink(path);
    free(path);
}

static void test_bound(void **state)
{
    char err[IPS2_EXT_ERR_MAX] = "";
    char *path = write_file(1000, 2048);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_true(st.st_size <= 2048);
    struct ips2_ext_data *d = ips2_ext_read(path, err);
    assert_non_null(d);
    assert_string_equal(err, "");
    assert_true(d->nsamples > 10 && d->nsamples < 1000);
    assert_int_equal(d->nnotes, 1); /* the bound's, not "hello" */
    assert_non_null(strstr(d->notes[0].text, "bound of 2048 bytes"));
    ips2_ext_free(d);
    unlink(path);
    free(path);
}

static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char *b = malloc(1 << 16);
    *size = fread(b, 1, 1 << 16, f);
    fclose(f);
    return b;
}

static void test_torn(void **state)
{
    char err[IPS2_EXT_ERR_MAX] = "";
    char *path = write_file(3, 0);
    size_t size;
    unsigned char *b = slurp(path, &size);
    /* the note (16 + 5 bytes) is last: cut it in the middle */
    struct ips2_ext_data *d = ips2_ext_decode(b, size - 10, "t.ext", err);
    assert_non_null(d);
    assert_string_equal(err, "");
    assert_true(d->torn);
    assert_int_equal(d->nsamples, 4);
    assert_int_equal(d->nnotes, 0);
    ips2_ext_free(d);
    free(b);
    unlink(path);
    free(path);
}

static void test_corrupt(void **state)
{
    char err[IPS2_EXT_ERR_MAX] = "";
    char *path = write_file(3, 0);
    size_t size, note = 0;
    unsigned char *b = slurp(path, &size);
    note = size - 21;                  /* the note record */
    size_t second = note - 2 * SAMPLE; /* the second-last sample: pid 42's third */
    b[second] = 9;                     /* its type */
    struct ips2_ext_data *d = ips2_ext_decode(b, size, "t.ext", err);
    assert_non_null(d);
    char want[128];
    snprintf(want, sizeof want,
             "t.ext: byte %zu: expected a record type 1 (metric), 2 (sample), "
             "3 (note) or 4 (process), found 9",
             second);
    assert_string_equal(err, want);
    assert_int_equal(d->nsamples, 2); /* those before it */
    ips2_ext_free(d);

    b[second] = 2;
    b[second + 4] = 7; /* the sample's metric: not declared */
    d = ips2_ext_decode(b, size, "t.ext", err);
    assert_non_null(d);
    snprintf(want, sizeof want, "t.ext: byte %zu: expected a metric declared before", second + 4);
    assert_memory_equal(err, want, strlen(want));
    ips2_ext_free(d);

    b[0] = 'X';
    assert_null(ips2_ext_decode(b, size, "t.ext", err));
    assert_string_equal(err, "t.ext: byte 0: expected magic \"IPS2EXT\", found other bytes");
    b[0] = 'I';
    b[8] = 5;
    assert_null(ips2_ext_decode(b, size, "t.ext", err));
    assert_string_equal(err, "t.ext: byte 8: expected version 1, found 5");
    assert_null(ips2_ext_decode(b, 20, "t.ext", err));
    assert_string_equal(err,
                        "t.ext: byte 20: expected a 48-byte header, found the end of the file");
    free(b);
    unlink(path);
    free(path);
}

static void test_bad_names(void **state)
{
    char err[IPS2_EXT_ERR_MAX] = "";
    assert_null(ips2_ext_create(dir, "a/b", 1, 0, NULL, err));
    assert_non_null(strstr(err, "without '/'"));
    struct ips2_ext_writer *w = ips2_ext_create(dir, "names", 1, 0, NULL, err);
    assert_non_null(w);
    assert_int_equal(ips2_ext_metric(w, "", "", IPS2_EXT_COUNTER, err), -1);
    assert_int_equal(ips2_ext_sample(w, 0, 3, 0, 1, err), -1); /* no such metric */
    assert_int_equal(ips2_ext_close(w, err), 0);
}

/* Times past what the session's clock can hold: one error at the field. */
static void test_huge_times(void **state)
{
    char err[IPS2_EXT_ERR_MAX] = "", want[256];
    char *path = NULL;
    struct ips2_ext_writer *w = ips2_ext_create(dir, "huge", 1000, 0, &path, err);
    assert_non_null(w);
    assert_int_equal(ips2_ext_metric(w, "page_faults", "", IPS2_EXT_COUNTER, err), 0);
    assert_int_equal(ips2_ext_sample(w, 1000, 0, 42, 1, err), 0);
    assert_int_equal(ips2_ext_sample(w, INT64_MAX - 10, 0, 42, 2, err), 0);
    assert_int_equal(ips2_ext_close(w, err), 0);
    size_t size;
    unsigned char *b = slurp(path, &size);
    struct ips2_ext_data *d = ips2_ext_decode(b, size, "t.ext", err);
    assert_non_null(d);
    assert_int_equal(d->nsamples, 1); /* the one before it */
    snprintf(want, sizeof want,
             "t.ext: byte %zu: expected a time >= 0 that is >= 0 on the header's real-time "
             "clock too, found %lld",
             size - SAMPLE + 12, (long long)(INT64_MAX - 10));
    assert_string_equal(err, want);
    ips2_ext_free(d);
    /* a negative time, and a header whose clock reading is negative */
    for (int i = 0; i < 8; i++)
        b[size - SAMPLE + 12 + i] = 0xff;
    d = ips2_ext_decode(b, size, "t.ext", err);
    assert_non_null(d);
    assert_non_null(strstr(err, "expected a time >= 0 that is >= 0 on the header's real-time clock "
                                "too, found -1"));
    ips2_ext_free(d);
    b[16 + 7] = 0x80;
    assert_null(ips2_ext_decode(b, size, "t.ext", err));
    assert_memory_equal(err, "t.ext: byte 16: expected clock readings >= 0, found -",
                        strlen("t.ext: byte 16: expected clock readings >= 0, found -"));
    free(b);
    unlink(path);
    free(path);
}

/* A FIFO named *.ext: refused at once, not waited for (the alarm fails the
 * test if the reader blocks). */
static void test_fifo(void **state)
{
    char err[IPS2_EXT_ERR_MAX] = "", path[600];
    snprintf(path, sizeof path, "%s/fifo.ext", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    alarm(30);
    assert_null(ips2_ext_read(path, err));
    alarm(0);
    char want[700];
    snprintf(want, sizeof want,
             "%s: expected a regular file of at most 1073741824 bytes, found a FIFO", path);
    assert_string_equal(err, want);
    unlink(path);
}

static const struct ips2_red_ext *find_row(const struct ips2_reductions *r, uint32_t pid,
                                           size_t nth)
{
    for (size_t i = 0; i < r->nexts; i++)
        if (r->exts[i].pid == pid && nth-- == 0)
            return &r->exts[i];
    return NULL;
}

/* A pid reused by a new process: the process records split its samples
 * into a row per process, each counting from 0.  A counter past 2^64 is
 * clamped.  A FIFO among the files is a problem; the rest is reduced. */
static void test_reduce_reused_pid(void **state)
{
    char err[IPS2_EXT_ERR_MAX] = "", sub[600], fifo[700], *path = NULL;
    snprintf(sub, sizeof sub, "%s/reuse", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    struct ips2_ext_writer *w = ips2_ext_create(sub, "os", 1000, 0, &path, err);
    assert_non_null(w);
    assert_int_equal(ips2_ext_metric(w, "page_faults", "", IPS2_EXT_COUNTER, err), 0);
    assert_int_equal(ips2_ext_process(w, 100, 42, err), 0);
    assert_int_equal(ips2_ext_sample(w, 1000, 0, 42, 10, err), 0);
    assert_int_equal(ips2_ext_sample(w, 2000, 0, 42, 20, err), 0);
    assert_int_equal(ips2_ext_sample(w, 3000, 0, 42, 30, err), 0);
    assert_int_equal(ips2_ext_process(w, 3500, 42, err), 0); /* pid 42 again: a new process */
    assert_int_equal(ips2_ext_sample(w, 4000, 0, 42, 5, err), 0);
    assert_int_equal(ips2_ext_sample(w, 5000, 0, 42, 7, err), 0);
    assert_int_equal(ips2_ext_sample(w, 1000, 0, 43, 3, err), 0); /* no process record */
    assert_int_equal(ips2_ext_sample(w, 1000, 0, 44, 0, err), 0);
    assert_int_equal(ips2_ext_sample(w, 2000, 0, 44, 1e30, err), 0);
    assert_int_equal(ips2_ext_process(w, 0, 0, err), -1); /* the machine is no process */
    assert_int_equal(ips2_ext_close(w, err), 0);

    struct ips2_ext_data *d = ips2_ext_read(path, err);
    assert_non_null(d);
    assert_string_equal(err, "");
    assert_int_equal(d->nsamples, 8);
    static const uint32_t procs[] = {1, 1, 1, 2, 2, 0, 0, 0};
    for (size_t i = 0; i < 8; i++)
        assert_int_equal(d->samples[i].proc, procs[i]);
    int64_t shift = d->ref_real_ns - d->ref_mono_ns; /* session time = monotonic time */
    ips2_ext_free(d);

    struct ips2_reduce_options o = {.machine = "m",
                                    .session_start_real = shift,
                                    .phase_start_ns = INT64_MIN,
                                    .phase_end_ns = INT64_MAX,
                                    .interval_ns = 1000};
    for (int round = 0; round < 2; round++) {
        struct ips2_reductions *r = ips2_reduce_dir(sub, &o, err);
        assert_non_null(r);
        const struct ips2_red_ext *a = find_row(r, 42, 0), *b = find_row(r, 42, 1);
        assert_non_null(a);
        assert_non_null(b);
        assert_null(find_row(r, 42, 2));
        assert_int_equal(a->value, 30); /* the first process: 10 + 10 + 10 */
        assert_int_equal(b->value, 7);  /* the second counts from 0, not on from 30 */
        assert_int_equal(find_row(r, 43, 0)->value, 3);
        assert_true(find_row(r, 44, 0)->value == UINT64_MAX);
        bool named = false;
        for (size_t i = 0; i < r->nproblems; i++)
            named |=
                strstr(r->strings[r->problems[i]], "fifo.ext: expected a regular file") != NULL;
        assert_int_equal(named, round == 1);
        ips2_reductions_free(r);
        /* round 2: a FIFO named *.ext beside it */
        snprintf(fifo, sizeof fifo, "%s/fifo.ext", sub);
        if (round == 0) {
            assert_int_equal(mkfifo(fifo, 0600), 0);
            alarm(30);
        }
    }
    alarm(0);
    unlink(fifo);
    unlink(path);
    free(path);
    assert_int_equal(rmdir(sub), 0);
}

/* A traced process pid (one thread) whose events are at session times
 * t0..t1 (timer: CLOCK_MONOTONIC, real - monotonic = shift). */
static void write_process(const char *d, uint32_t pid, int64_t t0, int64_t t1, int64_t shift)
{
    struct ips2_file_header h;
    char path[700], err[IPS2_ERR_MAX];
    uint64_t x = (uint64_t)t0;

    ips2_header_init(&h, IPS2_ENC_RAW, IPS2_STREAM_THREAD);
    h.cpu_method = IPS2_CPU_EXACT;
    h.cpu_param = 1000;
    h.timer = IPS2_TIMER_MONOTONIC;
    h.features = IPS2_FEAT_PROC_EVENTS;
    h.pid = h.tid = pid;
    h.ppid = 1;
    h.tsc_hz = 1000000000;
    h.ref_real_ns = shift;
    h.sync_records = 4096;
    snprintf(h.host, sizeof h.host, "testhost");
    snprintf(h.app, sizeof h.app, "app");
    snprintf(h.exe, sizeof h.exe, "/bin/app");
    snprintf(path, sizeof path, "%s/%u.0.%u.raw", d, pid, pid);
    struct ips2_writer *w = ips2_writer_create(path, &h, err);
    if (w == NULL)
        fail_msg("%s", err);
    assert_int_equal(ips2_writer_emit(w, IPS2_EV_SYNC, (uint64_t)t0, 1, 0, 0, &x, 1), 0);
    x = 1;
    assert_int_equal(
        ips2_writer_emit(w, IPS2_EV_PROC_START, (uint64_t)t0, 1, 0, IPS2_START_INITIAL, &x, 1), 0);
    assert_int_equal(ips2_writer_emit(w, IPS2_EV_ENTER, (uint64_t)t0, 1, 0, 0x1000, NULL, 0), 0);
    assert_int_equal(ips2_writer_emit(w, IPS2_EV_EXIT, (uint64_t)t1, 1, 10, 0x1000, NULL, 0), 0);
    x = 0;
    assert_int_equal(
        ips2_writer_emit(w, IPS2_EV_PROC_EXIT, (uint64_t)t1, 1, 10, IPS2_EXIT_RETURN, &x, 1), 0);
    if (ips2_writer_close(w, err) != 0)
        fail_msg("%s", err);
}

/* The row of a process of the collector names the process row of the
 * reductions its samples' span falls on: pid 42 was traced (events at
 * 1000..3000); the collector saw it from 500 (before its first event) to
 * 3100 (its zombie), then a new untraced process under pid 42 (no row of
 * its own: none, not the traced one's).  Pid 43 was sampled only after its
 * last event (a short process): still its row, the nearest.  The rows say
 * so through a reductions file too. */
static void test_reduce_rows_name_their_process(void **state)
{
    char err[IPS2_EXT_ERR_MAX] = "", sub[600], *path = NULL;
    snprintf(sub, sizeof sub, "%s/owner", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    struct ips2_ext_writer *w = ips2_ext_create(sub, "os", 1000, 0, &path, err);
    assert_non_null(w);
    assert_int_equal(ips2_ext_metric(w, "page_faults", "", IPS2_EXT_COUNTER, err), 0);
    assert_int_equal(ips2_ext_metric(w, "ctx_switches", "", IPS2_EXT_COUNTER, err), 1);
    assert_int_equal(ips2_ext_process(w, 400, 42, err), 0);
    assert_int_equal(ips2_ext_sample(w, 500, 0, 42, 1, err), 0);
    assert_int_equal(ips2_ext_sample(w, 2000, 0, 42, 4, err), 0);
    assert_int_equal(ips2_ext_sample(w, 3100, 1, 42, 2, err), 0);
    assert_int_equal(ips2_ext_process(w, 9000, 42, err), 0);
    assert_int_equal(ips2_ext_sample(w, 9000, 0, 42, 50, err), 0);
    assert_int_equal(ips2_ext_sample(w, 9500, 0, 42, 70, err), 0);
    assert_int_equal(ips2_ext_process(w, 6000, 43, err), 0);
    assert_int_equal(ips2_ext_sample(w, 6000, 0, 43, 8, err), 0);
    assert_int_equal(ips2_ext_sample(w, 7000, 0, 0, 100, err), 0);
    assert_int_equal(ips2_ext_close(w, err), 0);
    struct ips2_ext_data *d = ips2_ext_read(path, err);
    assert_non_null(d);
    int64_t shift = d->ref_real_ns - d->ref_mono_ns; /* session time = monotonic time */
    ips2_ext_free(d);
    write_process(sub, 42, 1000, 3000, shift);
    write_process(sub, 43, 4000, 5000, shift);

    struct ips2_reduce_options o = {.machine = "m",
                                    .session_start_real = shift,
                                    .phase_start_ns = INT64_MIN,
                                    .phase_end_ns = INT64_MAX,
                                    .interval_ns = 1000};
    struct ips2_reductions *r = ips2_reduce_dir(sub, &o, err);
    assert_non_null(r);
    assert_int_equal(r->nprocesses, 2);
    uint32_t p42 = r->processes[0].pid == 42 ? 0 : 1, p43 = 1 - p42;
    assert_int_equal(r->processes[p42].start_ns, 1000);
    assert_int_equal(r->processes[p42].end_ns, 3000);
    size_t bytes;
    void *enc = ips2_reductions_encode(r, &bytes);
    assert_non_null(enc);
    struct ips2_reductions *back = ips2_reductions_decode(enc, bytes, "owner.red", err);
    if (back == NULL)
        fail_msg("%s", err);
    for (int round = 0; round < 2; round++) {
        const struct ips2_reductions *x = round ? back : r;
        assert_int_equal(x->nexts, 5);
        for (size_t i = 0; i < x->nexts; i++) {
            const struct ips2_red_ext *e = &x->exts[i];
            uint32_t want = e->pid == 43                                       ? p43
                            : e->pid == 42 && (e->value == 4 || e->value == 2) ? p42
                                                                               : IPS2_RED_NONE;
            if (e->process != want)
                fail_msg("row %zu (pid %u, value %llu): process %u, expected %u", i, e->pid,
                         (unsigned long long)e->value, e->process, want);
        }
    }
    ips2_reductions_free(back);
    free(enc);
    ips2_reductions_free(r);
    DIR *dd = opendir(sub);
    struct dirent *e;
    char p[1400];
    while (dd && (e = readdir(dd)))
        if (e->d_name[0] != '.') {
            snprintf(p, sizeof p, "%s/%s", sub, e->d_name);
            unlink(p);
        }
    if (dd)
        closedir(dd);
    free(path);
    assert_int_equal(rmdir(sub), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_bound),
        cmocka_unit_test(test_torn),
        cmocka_unit_test(test_corrupt),
        cmocka_unit_test(test_bad_names),
        cmocka_unit_test(test_huge_times),
        cmocka_unit_test(test_fifo),
        cmocka_unit_test(test_reduce_reused_pid),
        cmocka_unit_test(test_reduce_rows_name_their_process),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
