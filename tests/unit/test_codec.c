/*
 * test_codec.c - the buffer codec (traces/ips2_codec.h): every put has
 * the get that reads it back, in little-endian byte order; an output to a
 * descriptor writes the same bytes and crc as one in memory; the input's
 * error is sticky and names the byte offset of the first failure; counts
 * are capped by the bytes left; a failed write is remembered.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "ips2_codec.h"
#include "scratch.h"

/* One of each kind of value, in the order read_all reads them. */
static void write_all_kinds(struct ips2_out *o)
{
    ips2_put_u8(o, 0xab);
    ips2_put_u16(o, 0x1234);
    ips2_put_u32(o, 0xdeadbeef);
    ips2_put_u64(o, 0x0102030405060708ull);
    ips2_put_i32(o, -2);
    ips2_put_i64(o, INT64_MIN);
    ips2_put_f64(o, -0.25);
    ips2_put_varint(o, 300);
    ips2_put_varint(o, UINT64_MAX);
    ips2_put_str32(o, "hello");
    ips2_put_str32(o, NULL);
    ips2_put_bytes(o, "xyz", 3);
}

static void read_all_kinds(struct ips2_in *in)
{
    char *s;
    uint32_t len;

    assert_int_equal(ips2_get_u8(in), 0xab);
    assert_int_equal(ips2_get_u16(in), 0x1234);
    assert_int_equal(ips2_get_u32(in), 0xdeadbeef);
    assert_true(ips2_get_u64(in) == 0x0102030405060708ull);
    assert_int_equal(ips2_get_i32(in), -2);
    assert_true(ips2_get_i64(in) == INT64_MIN);
    assert_true(ips2_get_f64(in) == -0.25);
    assert_int_equal(ips2_get_varint(in), 300);
    assert_true(ips2_get_varint(in) == UINT64_MAX);
    assert_int_equal(ips2_get_str32(in, &s, &len), IPS2_STR_OK);
    assert_string_equal(s, "hello");
    free(s);
    assert_int_equal(ips2_get_str32(in, &s, &len), IPS2_STR_OK);
    assert_string_equal(s, "");
    free(s);
    assert_memory_equal(ips2_get_bytes(in, 3), "xyz", 3);
    assert_false(in->failed);
    assert_int_equal(ips2_in_left(in), 0);
}

static void test_round_trip_little_endian(void **state)
{
    struct ips2_out o;
    struct ips2_in in;
    size_t size;
    char err[256];

    ips2_out_init(&o);
    write_all_kinds(&o);
    assert_int_equal(ips2_out_offset(&o), 1 + 2 + 4 + 8 + 4 + 8 + 8 + 2 + 10 + 9 + 4 + 3);
    uint8_t *b = ips2_out_take(&o, &size);
    assert_non_null(b);
    static const uint8_t head[] = {0xab, 0x34, 0x12, 0xef, 0xbe, 0xad, 0xde, 8,    7,   6,
                                   5,    4,    3,    2,    1,    0xfe, 0xff, 0xff, 0xff};
    assert_memory_equal(b, head, sizeof(head));
    ips2_in_init(&in, b, size, "t", err, sizeof(err));
    read_all_kinds(&in);
    free(b);
}

/* Through a descriptor with a small buffer: the same bytes, the same crc
 * as in memory, and big ranges go straight through. */
static void test_fd_same_bytes_and_crc(void **state)
{
    struct ips2_out mem, file;
    char path[600], big[5000];
    size_t size;

    memset(big, 'b', sizeof(big));
    snprintf(path, sizeof(path), "%s/out", scratch_dir);
    FILE *f = fopen(path, "w+");
    assert_non_null(f);
    ips2_out_init(&mem);
    ips2_out_init_fd(&file, fileno(f), 16);
    struct ips2_out *outs[] = {&mem, &file};
    uint32_t crcs[2];
    for (int k = 0; k < 2; k++) {
        ips2_put_u32(outs[k], 7); /* not summed */
        ips2_out_crc_begin(outs[k]);
        for (int i = 0; i < 3; i++)
            write_all_kinds(outs[k]);
        ips2_put_bytes(outs[k], big, sizeof(big));
        ips2_put_u64(outs[k], 9);
        crcs[k] = ips2_out_crc_end(outs[k]);
        ips2_put_u32(outs[k], crcs[k]);
    }
    assert_int_equal(ips2_out_flush(&file), 0);
    assert_true(ips2_out_offset(&file) == ips2_out_offset(&mem));
    ips2_out_free(&file);
    uint8_t *b = ips2_out_take(&mem, &size);
    assert_int_equal(crcs[0], crcs[1]);
    assert_int_equal(crcs[0], (uint32_t)crc32(0L, b + 4, (uInt)(size - 8)));
    uint8_t *back = malloc(size);
    rewind(f);
    assert_int_equal(fread(back, 1, size, f), size);
    assert_int_equal(fgetc(f), EOF);
    assert_memory_equal(back, b, size);
    fclose(f);
    free(back);
    free(b);
}

static void test_patch(void **state)
{
    struct ips2_out o;
    size_t size;

    ips2_out_init(&o);
    ips2_put_u64(&o, 0);
    ips2_out_patch_u32(&o, 2, 0x11223344);
    uint8_t *b = ips2_out_take(&o, &size);
    static const uint8_t want[] = {0, 0, 0x44, 0x33, 0x22, 0x11, 0, 0};
    assert_memory_equal(b, want, 8);
    free(b);
}

static void test_sticky_error_offset(void **state)
{
    static const uint8_t bytes[] = {1, 0, 0, 0, 2, 0};
    struct ips2_in in;
    char err[256];

    ips2_in_init(&in, bytes, sizeof(bytes), "file.x", err, sizeof(err));
    assert_int_equal(ips2_get_u32(&in), 1);
    assert_int_equal(ips2_get_u32(&in), 0); /* 2 bytes left */
    assert_true(in.failed);
    assert_int_equal(in.fail_at, 4);
    assert_string_equal(err, "file.x: byte 4: expected 4 bytes, found only 2 bytes left");
    assert_int_equal(ips2_get_u16(&in), 0); /* there, but the cursor failed */
    assert_int_equal(in.pos, 4);
    assert_int_equal(ips2_in_fail(&in, 0, "expected more"), -1);
    assert_int_equal(in.fail_at, 4); /* the first failure stays */
    assert_string_equal(err, "file.x: byte 4: expected 4 bytes, found only 2 bytes left");
}

static void test_formats_own_message(void **state)
{
    struct ips2_in in;
    char err[256];

    ips2_in_init(&in, "abcd", 4, "m", err, sizeof(err));
    assert_int_equal(ips2_in_fail(&in, 3, "expected %s, found %d", "a thing", 5), -1);
    assert_string_equal(err, "m: byte 3: expected a thing, found 5");
    ips2_in_init(&in, "abcd", 4, "m", NULL, 0); /* no buffer: still fails */
    assert_int_equal(ips2_in_fail(&in, 1, "x"), -1);
    assert_true(in.failed);
}

static void test_counts_capped_by_bytes_left(void **state)
{
    struct ips2_in in;
    uint8_t bytes[40] = {0};

    ips2_in_init(&in, bytes, sizeof(bytes), "c", NULL, 0);
    ips2_get_u32(&in);
    assert_true(ips2_in_fits(&in, 4, 9));
    assert_false(ips2_in_fits(&in, 5, 8));
    assert_false(ips2_in_fits(&in, UINT64_MAX, 1));
}

static void test_bad_varints_and_strings(void **state)
{
    static const uint8_t eleven[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
    static const uint8_t cut[] = {0x80};
    static const uint8_t long_str[] = {9, 0, 0, 0, 'a'};
    static const uint8_t nul_str[] = {2, 0, 0, 0, 'a', 0};
    struct ips2_in in;
    char err[256], *s;
    uint32_t len;

    ips2_in_init(&in, eleven, sizeof(eleven), "v", err, sizeof(err));
    assert_int_equal(ips2_get_varint(&in), 0);
    assert_string_equal(err, "v: byte 0: expected a varint of at most 10 bytes and 64 bits, "
                             "found a longer one");
    ips2_in_init(&in, cut, sizeof(cut), "v", err, sizeof(err));
    assert_int_equal(ips2_get_varint(&in), 0);
    assert_true(in.failed);
    ips2_in_init(&in, long_str, 3, "s", NULL, 0);
    assert_int_equal(ips2_get_str32(&in, &s, &len), IPS2_STR_NO_LENGTH);
    assert_int_equal(in.pos, 0);
    ips2_in_init(&in, long_str, sizeof(long_str), "s", NULL, 0);
    assert_int_equal(ips2_get_str32(&in, &s, &len), IPS2_STR_SHORT);
    assert_int_equal(len, 9);
    assert_int_equal(in.pos, 4);
    assert_null(s);
    ips2_in_init(&in, nul_str, sizeof(nul_str), "s", NULL, 0);
    assert_int_equal(ips2_get_str32(&in, &s, &len), IPS2_STR_NUL);
    assert_false(in.failed);
}

/* A descriptor that cannot be written: the error is kept, later puts are
 * dropped, and the flush says so. */
static void test_write_error_sticky(void **state)
{
    struct ips2_out o;
    int fds[2];

    assert_int_equal(pipe(fds), 0);
    close(fds[0]);
    signal(SIGPIPE, SIG_IGN);
    ips2_out_init_fd(&o, fds[1], 8);
    for (int i = 0; i < 10; i++)
        ips2_put_u32(&o, (uint32_t)i);
    assert_int_equal(ips2_out_flush(&o), -1);
    assert_int_equal(o.err, EPIPE);
    size_t n = o.n;
    ips2_put_u64(&o, 1);
    assert_int_equal(o.n, n);
    ips2_out_free(&o);
    close(fds[1]);
}

/* An append-only log drops what a failed flush could not write and goes
 * on: the next records reach the file whole. */
static void test_discard_after_failed_flush(void **state)
{
    struct ips2_out o;
    char path[600];

    snprintf(path, sizeof(path), "%s/log", scratch_dir);
    FILE *f = fopen(path, "w+");
    assert_non_null(f);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    close(fds[0]);
    signal(SIGPIPE, SIG_IGN);
    ips2_out_init_fd(&o, fds[1], 8); /* nobody reads: the flush fails */
    ips2_put_u32(&o, 1);
    assert_int_equal(ips2_out_flush(&o), -1);
    assert_int_equal(o.err, EPIPE);
    close(fds[1]);
    ips2_out_discard(&o);
    assert_int_equal(o.err, 0);
    o.fd = fileno(f);
    ips2_put_u32(&o, 2);
    ips2_put_u32(&o, 3);
    assert_int_equal(ips2_out_flush(&o), 0);
    uint8_t back[16];
    rewind(f);
    assert_int_equal(fread(back, 1, sizeof(back), f), 8);
    static const uint8_t want[] = {2, 0, 0, 0, 3, 0, 0, 0};
    assert_memory_equal(back, want, 8);
    ips2_out_free(&o);
    fclose(f);
}

static int group_setup(void **state)
{
    return scratch_make("codec");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_little_endian),
        cmocka_unit_test(test_fd_same_bytes_and_crc),
        cmocka_unit_test(test_patch),
        cmocka_unit_test(test_sticky_error_offset),
        cmocka_unit_test(test_formats_own_message),
        cmocka_unit_test(test_counts_capped_by_bytes_left),
        cmocka_unit_test(test_bad_varints_and_strings),
        cmocka_unit_test(test_write_error_sticky),
        cmocka_unit_test(test_discard_after_failed_flush),
    };
    return cmocka_run_group_tests(tests, group_setup, scratch_remove);
}
