/*
 * test_trace_dir.c - listing a trace directory (traces/trace_dir.c): the
 * streams sorted by process image, thread and reuse, a stream there both
 * raw and packed listed once (raw), the process stream last of its image;
 * the .ext files sorted, whatever their type; files with a stream's name
 * that are no regular file named as problems; other names ignored; the
 * machine's clock offset from the earliest calibration.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ips2_format.h"
#include "ips2_reader.h"
#include "ips2_record.h"
#include "ips2_trace_dir.h"
#include "ips2_writer.h"
#include "scratch.h"

static int setup_dir(void **state)
{
    (void)state;
    return scratch_make("trace-dir");
}

/* An empty closed stream whose header has the given calibration and host. */
static void write_stream(const char *name, uint64_t ref_mono, uint64_t ref_real, const char *host)
{
    char p[512], err[IPS2_ERR_MAX];
    struct ips2_file_header h;
    ips2_header_init(&h, IPS2_ENC_RAW, IPS2_STREAM_THREAD);
    h.timer = IPS2_TIMER_MONOTONIC;
    h.tsc_hz = 1000000000ull;
    h.ref_mono_ns = ref_mono;
    h.ref_real_ns = ref_real;
    snprintf(h.host, sizeof h.host, "%s", host);
    /* a raw stream under a packed name serves: the listing goes by names */
    struct ips2_writer *w = ips2_writer_create(scratch_path(p, name), &h, err);
    assert_non_null(w);
    assert_int_equal(ips2_writer_close(w, err), 0);
}

static void write_file(const char *name)
{
    char p[512];
    FILE *f = fopen(scratch_path(p, name), "w");
    assert_non_null(f);
    fputs("x\n", f);
    fclose(f);
}

static void test_listing(void **state)
{
    char p[512], err[IPS2_ERR_MAX];
    write_stream("2.0.5.ips2", 300, 1300, "c");
    write_stream("1.1.1.raw", 200, 1200, "b");
    write_stream("1.0.proc.ips2", 100, 1100, "a");
    write_stream("1.0.2.1.raw", 500, 1500, "e");
    write_stream("1.0.1.ips2", 600, 1600, "f");
    write_stream("1.0.1.raw", 400, 1400, "d");
    write_file("b.ext");
    write_file("a.ext");
    assert_int_equal(mkfifo(scratch_path(p, "c.ext"), 0600), 0);
    assert_int_equal(mkfifo(scratch_path(p, "3.0.3.raw"), 0600), 0);
    assert_int_equal(mkdir(scratch_path(p, "4.0.4.ips2"), 0700), 0);
    write_file("notes.txt");
    write_file("1.0.x.raw");
    write_file("99999999999.0.1.raw");
    write_file("1.0.1.raw.tmp");

    struct ips2_trace_dir *td = ips2_trace_dir_open(scratch_dir, err);
    assert_non_null(td);
    struct {
        const char *name;
        uint32_t pid, image, tid, k;
        bool raw;
    } want[] = {
        {"1.0.1.raw", 1, 0, 1, 0, true},
        {"1.0.2.1.raw", 1, 0, 2, 1, true},
        {"1.0.proc.ips2", 1, 0, IPS2_TRACE_PROC_TID, 0, false},
        {"1.1.1.raw", 1, 1, 1, 0, true},
        {"2.0.5.ips2", 2, 0, 5, 0, false},
    };
    assert_int_equal(td->nstreams, 5);
    for (size_t i = 0; i < 5; i++) {
        const struct ips2_trace_stream *s = &td->streams[i];
        assert_string_equal(s->path, scratch_path(p, want[i].name));
        assert_int_equal(s->pid, want[i].pid);
        assert_int_equal(s->image, want[i].image);
        assert_int_equal(s->tid, want[i].tid);
        assert_int_equal(s->k, want[i].k);
        assert_int_equal(s->raw, want[i].raw);
        struct stat st;
        assert_int_equal(stat(s->path, &st), 0);
        assert_int_equal(s->size, (uint64_t)st.st_size);
    }
    assert_int_equal(ips2_trace_dir_image_end(td, 0), 3);
    assert_int_equal(ips2_trace_dir_image_end(td, 3), 4);
    assert_int_equal(ips2_trace_dir_image_end(td, 4), 5);

    assert_int_equal(td->next_files, 3);
    assert_string_equal(td->ext_files[0], scratch_path(p, "a.ext"));
    assert_string_equal(td->ext_files[1], scratch_path(p, "b.ext"));
    assert_string_equal(td->ext_files[2], scratch_path(p, "c.ext"));

    assert_int_equal(td->nproblems, 2);
    char problem[600];
    snprintf(problem, sizeof problem, "%s: expected a regular file, found a FIFO",
             scratch_path(p, "3.0.3.raw"));
    assert_string_equal(td->problems[0], problem);
    snprintf(problem, sizeof problem, "%s: expected a regular file, found a directory",
             scratch_path(p, "4.0.4.ips2"));
    assert_string_equal(td->problems[1], problem);

    /* the earliest calibration of the streams listed: 1.0.proc.ips2's
     * (1.0.1.ips2, a twin left out, is not read) */
    char host[IPS2_HOST_MAX];
    assert_int_equal(ips2_trace_dir_clock_offset(td, host, sizeof host), 1000);
    assert_string_equal(host, "a");
    ips2_trace_dir_free(td);
}

static void test_no_headers(void **state)
{
    char err[IPS2_ERR_MAX], host[IPS2_HOST_MAX] = "x";
    write_file("1.0.1.raw"); /* too short for a header */
    struct ips2_trace_dir *td = ips2_trace_dir_open(scratch_dir, err);
    assert_non_null(td);
    assert_int_equal(td->nstreams, 1);
    assert_int_equal(ips2_trace_dir_clock_offset(td, host, sizeof host), 0);
    assert_string_equal(host, "");
    ips2_trace_dir_free(td);
}

static void test_names(void **state)
{
    struct ips2_trace_stream s;
    assert_true(ips2_trace_stream_name("12.3.45.raw", &s));
    assert_true(s.pid == 12 && s.image == 3 && s.tid == 45 && s.k == 0 && s.raw);
    assert_true(ips2_trace_stream_name("12.3.45.2.ips2", &s));
    assert_true(s.tid == 45 && s.k == 2 && !s.raw);
    assert_true(ips2_trace_stream_name("12.0.proc.raw", &s));
    assert_true(s.tid == IPS2_TRACE_PROC_TID);
    assert_false(ips2_trace_stream_name("12.0.proc.1.raw", &s));
    assert_false(ips2_trace_stream_name("12.0.4294967295.raw", &s)); /* the proc tid */
    assert_false(ips2_trace_stream_name("12.0.1.ext", &s));
    assert_false(ips2_trace_stream_name("12.0.1.raw.tmp", &s));
    assert_false(ips2_trace_stream_name(".0.1.raw", &s));
    assert_false(ips2_trace_stream_name("12345678901.0.1.raw", &s));
}

static void test_missing_directory(void **state)
{
    char p[512], err[IPS2_ERR_MAX] = "";
    assert_null(ips2_trace_dir_open(scratch_path(p, "missing"), err));
    char want[600];
    snprintf(want, sizeof want, "%s: cannot open the trace directory: ", p);
    assert_memory_equal(err, want, strlen(want));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_listing, scratch_empty),
        cmocka_unit_test_teardown(test_no_headers, scratch_empty),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_missing_directory),
    };
    return cmocka_run_group_tests(tests, setup_dir, scratch_remove);
}
