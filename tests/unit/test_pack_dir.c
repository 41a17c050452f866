/*
 * test_pack_dir.c - packing raw streams where they lie (traces/pack_dir.c),
 * as ips2-pack and the slave do: good streams become <name>.ips2 and their
 * raw files go (or stay, keep); a stream that fails stays raw and leaves
 * no packed copy behind, while an older packed file that the failure did
 * not replace is left alone; links, directories and other files named
 * *.raw are not streams; the caller hears of each stream and each failure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ips2_format.h"
#include "ips2_pack.h"
#include "ips2_reader.h"
#include "ips2_record.h"
#include "ips2_writer.h"
#include "scratch.h"

static int setup_dir(void **state)
{
    (void)state;
    return scratch_make("pack-dir");
}

static bool exists(const char *name)
{
    char p[512];
    struct stat st;
    return lstat(scratch_path(p, name), &st) == 0;
}

/* A closed raw thread stream of three events, then `junk` as one more
 * word unless it is 0. */
static void write_stream_then(const char *name, uint64_t junk)
{
    char p[512], err[IPS2_ERR_MAX];
    struct ips2_file_header h;
    ips2_header_init(&h, IPS2_ENC_RAW, IPS2_STREAM_THREAD);
    h.timer = IPS2_TIMER_MONOTONIC;
    h.tsc_hz = 1000000000ull;
    h.pid = 7;
    h.tid = 7;
    h.ref_mono_ns = 1000;
    h.ref_real_ns = 2000;
    strcpy(h.host, "h");
    strcpy(h.app, "a");
    struct ips2_writer *w = ips2_writer_create(scratch_path(p, name), &h, err);
    assert_non_null(w);
    uint64_t mono = 1000;
    assert_int_equal(ips2_writer_emit(w, IPS2_EV_SYNC, 1000, 1, 5, 0, &mono, 1), 0);
    assert_int_equal(ips2_writer_emit(w, IPS2_EV_ENTER, 1100, 0, 0, 0x10, NULL, 0), 0);
    assert_int_equal(ips2_writer_emit(w, IPS2_EV_EXIT, 1200, 0, 0, 0x10, NULL, 0), 0);
    if (junk != 0)
        assert_int_equal(ips2_writer_emit_word(w, junk), 0);
    assert_int_equal(ips2_writer_close(w, err), 0);
}

static void write_stream(const char *name)
{
    write_stream_then(name, 0);
}

static void write_file(const char *name, const char *text)
{
    char p[512];
    FILE *f = fopen(scratch_path(p, name), "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* What the report heard. */
struct heard {
    uint64_t progress[8][2];
    int nprogress;
    char failed[4][600];
    int nfailed;
};

static void on_progress(void *arg, uint64_t done, uint64_t total)
{
    struct heard *h = arg;
    assert_true(h->nprogress < 8);
    h->progress[h->nprogress][0] = done;
    h->progress[h->nprogress][1] = total;
    h->nprogress++;
}

static void on_failed(void *arg, const char *stream, const char *message)
{
    struct heard *h = arg;
    assert_true(h->nfailed < 4);
    snprintf(h->failed[h->nfailed++], 600, "%s | %s", stream ? stream : "-", message);
}

static void test_directory(void **state)
{
    char p[512], q[512], err[IPS2_ERR_MAX];
    write_stream("1.0.1.raw");
    write_stream("1.0.proc.raw");
    write_file("2.0.2.raw", "not a trace\n");
    write_file("notes.txt", "x\n");
    assert_int_equal(mkdir(scratch_path(p, "sub.raw"), 0700), 0);
    assert_int_equal(symlink(scratch_path(q, "1.0.1.raw"), scratch_path(p, "link.raw")), 0);

    struct heard h = {0};
    const struct ips2_pack_report report = {on_progress, on_failed, &h};
    assert_int_equal(ips2_pack_dir(scratch_dir, false, &report, err), 1);

    assert_true(exists("1.0.1.ips2") && !exists("1.0.1.raw"));
    assert_true(exists("1.0.proc.ips2") && !exists("1.0.proc.raw"));
    assert_true(exists("2.0.2.raw") && !exists("2.0.2.ips2"));
    assert_true(exists("sub.raw") && exists("link.raw") && !exists("link.ips2"));
    assert_true(exists("notes.txt"));

    /* three streams, in name order, then the end */
    assert_int_equal(h.nprogress, 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(h.progress[i][0], (uint64_t)i);
        assert_int_equal(h.progress[i][1], 3);
    }
    assert_int_equal(h.nfailed, 1);
    char want[600];
    snprintf(want, sizeof want, "%s/2.0.2.raw | %s/2.0.2.raw", scratch_dir, scratch_dir);
    assert_memory_equal(h.failed[0], want, strlen(want));

    /* what was packed reads back */
    struct ips2_reader *r = ips2_reader_open(scratch_path(p, "1.0.1.ips2"), err);
    assert_non_null(r);
    const struct ips2_event *ev;
    int n = 0;
    while (ips2_reader_next(r, &ev) == 1)
        n++;
    assert_int_equal(n, 3);
    ips2_reader_close(r);
}

static void test_keep(void **state)
{
    char err[IPS2_ERR_MAX];
    write_stream("3.0.3.raw");
    assert_int_equal(ips2_pack_dir(scratch_dir, true, NULL, err), 0);
    assert_true(exists("3.0.3.raw") && exists("3.0.3.ips2"));
}

/* A failure before anything was written at the packed name leaves the
 * file that was there; a failed stream's own partial copy goes. */
static void test_older_packed_file_kept(void **state)
{
    char p[512], err[IPS2_ERR_MAX];
    write_file("4.0.4.raw", "not a trace\n");
    write_file("4.0.4.ips2", "older\n");
    assert_int_equal(ips2_pack_stream(scratch_path(p, "4.0.4.raw"), false, err), -1);
    assert_true(exists("4.0.4.raw") && exists("4.0.4.ips2"));
    assert_non_null(strstr(err, "4.0.4.raw"));
}

static void test_partial_copy_removed(void **state)
{
    char p[512], err[IPS2_ERR_MAX];
    write_stream("5.0.5.raw");
    /* a record that is no record after the good ones: the stream packs up
     * to it, then fails */
    write_stream_then("5.0.5.raw", 0xffffffffffffff7eull);
    scratch_path(p, "5.0.5.raw");
    assert_int_equal(ips2_pack_stream(p, false, err), -1);
    assert_true(exists("5.0.5.raw"));
    assert_false(exists("5.0.5.ips2"));
}

static void test_not_a_raw_name(void **state)
{
    char p[512], err[IPS2_ERR_MAX];
    write_file("6.0.6.ips2", "x\n");
    assert_int_equal(ips2_pack_stream(scratch_path(p, "6.0.6.ips2"), false, err), -1);
    assert_non_null(strstr(err, "not a raw stream"));
}

static void test_no_directory(void **state)
{
    char p[512], err[IPS2_ERR_MAX] = "";
    assert_int_equal(ips2_pack_dir(scratch_path(p, "missing"), false, NULL, err), -1);
    assert_non_null(strstr(err, "missing"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_directory, scratch_empty),
        cmocka_unit_test_teardown(test_keep, scratch_empty),
        cmocka_unit_test_teardown(test_older_packed_file_kept, scratch_empty),
        cmocka_unit_test_teardown(test_partial_copy_removed, scratch_empty),
        cmocka_unit_test_teardown(test_not_a_raw_name, scratch_empty),
        cmocka_unit_test_teardown(test_no_directory, scratch_empty),
    };
    return cmocka_run_group_tests(tests, setup_dir, scratch_remove);
}
