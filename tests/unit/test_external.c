/*
 * test_external.c - the external data interface (collectors/external.c):
 * what a monitor writes reads back the same; the bound holds and says so;
 * a file cut in the middle of a record (a crash) loses only that record;
 * a bad byte is named by its offset and what came before it stays.
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
#include <sys/stat.h>
#include <unistd.h>

#include "ips2_external.h"

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
             "t.ext: byte %zu: expected a record type 1 (metric), 2 (sample) "
             "or 3 (note), found 9",
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip), cmocka_unit_test(test_bound),
        cmocka_unit_test(test_torn),       cmocka_unit_test(test_corrupt),
        cmocka_unit_test(test_bad_names),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
