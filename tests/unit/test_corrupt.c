/*
 * test_corrupt.c - the reader against broken, truncated and hostile input.
 *
 * Every case checks the exact error message ("<path>: byte <offset>: what
 * was expected"), that the events before the damage are still returned,
 * and that the reader stays at its error.  Packed blocks are built by hand
 * here (varints, zlib, crc32) so that each field can be made to lie on its
 * own.  A last test mutates valid streams at random and only asks that the
 * reader ends.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "scratch.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "ips2_format.h"
#include "ips2_pack.h"
#include "ips2_reader.h"
#include "ips2_record.h"
#include "ips2_writer.h"
#include "varint.h"
#include "xorshift.h"

static char P[512];  /* the file of the current case */
static char P2[512]; /* a second one */

static int setup_dir(void **state)
{
    (void)state;
    if (scratch_make("corrupt") < 0)
        return -1;
    snprintf(P, sizeof(P), "%s/t.raw", scratch_dir);
    snprintf(P2, sizeof(P2), "%s/t.ips2", scratch_dir);
    return 0;
}

/* ---- file helpers ---------------------------------------------------- */

static void put_bytes(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    close(fd);
}

static void patch(const char *path, uint64_t off, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY);
    assert_true(fd >= 0);
    assert_int_equal(pwrite(fd, data, len, (off_t)off), (ssize_t)len);
    close(fd);
}

static void patch32(const char *path, uint64_t off, uint32_t v)
{
    patch(path, off, &v, sizeof(v));
}

static void patch64(const char *path, uint64_t off, uint64_t v)
{
    patch(path, off, &v, sizeof(v));
}

static void append(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_APPEND);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    close(fd);
}

static off_t file_size(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return st.st_size;
}

static void cut(const char *path, off_t size)
{
    assert_int_equal(truncate(path, size), 0);
}

static void header(struct ips2_file_header *h, unsigned cpu_method)
{
    ips2_header_init(h, IPS2_ENC_RAW, IPS2_STREAM_THREAD);
    h->timer = IPS2_TIMER_MONOTONIC;
    h->cpu_method = (uint8_t)cpu_method;
    h->tsc_hz = 1000000000ull;
    h->pid = 10;
    h->tid = 11;
    strcpy(h->host, "h");
    strcpy(h->exe, "/bin/x");
}

/* A closed raw stream of n ENTER/EXIT records of 16 bytes each: event i
 * has timer 1000 + 10 i and payload 0x1000 + i.  Returns the writer for
 * more records if keep_open, else closes it. */
static struct ips2_writer *make_raw(const char *path, unsigned n, unsigned cpu_method,
                                    int keep_open)
{
    char err[IPS2_ERR_MAX];
    struct ips2_file_header h;

    header(&h, cpu_method);
    struct ips2_writer *w = ips2_writer_create(path, &h, err);
    assert_non_null(w);
    for (unsigned i = 0; i < n; i++)
        assert_int_equal(ips2_writer_emit(w, i % 2 ? IPS2_EV_EXIT : IPS2_EV_ENTER, 1000 + 10 * i, 0,
                                          0, 0x1000 + i, NULL, 0),
                         0);
    if (keep_open)
        return w;
    assert_int_equal(ips2_writer_close(w, err), 0);
    return NULL;
}

static void close_writer(struct ips2_writer *w)
{
    char err[IPS2_ERR_MAX];
    assert_int_equal(ips2_writer_close(w, err), 0);
}

static void set_unclosed(const char *path)
{
    patch32(path, offsetof(struct ips2_file_header, state), IPS2_STATE_OPEN);
    patch64(path, offsetof(struct ips2_file_header, data_bytes), 0);
}

static const char *msg(const char *path, const char *fmt, ...)
{
    static char buf[IPS2_ERR_MAX + 64];
    va_list ap;
    int n = snprintf(buf, sizeof(buf), "%s: ", path);

    va_start(ap, fmt);
    vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
    va_end(ap);
    return buf;
}

static void expect_open_error(const char *path, const char *want)
{
    char err[IPS2_ERR_MAX];
    struct ips2_reader *r = ips2_reader_open(path, err);

    if (r)
        ips2_reader_close(r);
    assert_null(r);
    assert_string_equal(err, want);
}

/* Reads nev events (those of make_raw(), when check_payloads), then
 * expects the end: clean if want is NULL, else -1 with message want, and
 * -1 again on the next call. */
static void expect_events_then(const char *path, unsigned nev, int check_payloads, const char *want)
{
    char err[IPS2_ERR_MAX];
    struct ips2_reader *r = ips2_reader_open(path, err);
    const struct ips2_event *ev;

    if (!r)
        fail_msg("%s", err);
    for (unsigned i = 0; i < nev; i++) {
        int rc = ips2_reader_next(r, &ev);
        if (rc != 1)
            fail_msg("event %u: rc %d: %s", i, rc, ips2_reader_error(r));
        if (check_payloads) {
            assert_int_equal(ev->payload, 0x1000 + i);
            assert_int_equal(ev->timer, 1000 + 10 * i);
        }
    }
    if (!want) {
        assert_int_equal(ips2_reader_next(r, &ev), 0);
        assert_string_equal(ips2_reader_error(r), "");
        assert_int_equal(ips2_reader_next(r, &ev), 0);
    } else {
        int rc = ips2_reader_next(r, &ev);
        if (rc == 1)
            fail_msg("unexpected event kind %u at byte %llu", ev->kind,
                     (unsigned long long)ev->offset);
        assert_int_equal(rc, -1);
        assert_string_equal(ips2_reader_error(r), want);
        assert_int_equal(ips2_reader_next(r, &ev), -1);
        assert_string_equal(ips2_reader_error(r), want);
    }
    ips2_reader_close(r);
}

#define HOFF(f) offsetof(struct ips2_file_header, f)
#define REC0    IPS2_RAW_HEADER_SIZE

/* ---- files that are not streams ------------------------------------- */

static void test_not_a_stream(void **state)
{
    char path[600];
    char err[IPS2_ERR_MAX];

    (void)state;
    snprintf(path, sizeof(path), "%s/missing.raw", scratch_dir);
    assert_null(ips2_reader_open(path, err));
    assert_string_equal(err,
                        msg(path, "byte 0: expected a readable file, cannot open: No such file "
                                  "or directory"));

    put_bytes(P, "", 0);
    expect_open_error(P, msg(P, "byte 0: expected magic IPS2TRC, found end of file (empty file)"));

    char text[4000];
    for (size_t i = 0; i < sizeof(text); i++)
        text[i] = "hello, world\n"[i % 13];
    put_bytes(P, text, sizeof(text));
    expect_open_error(P, msg(P, "byte 0: expected magic IPS2TRC, found \"hello, w\""));

    put_bytes(P,
              "\x7f"
              "ELF\x02\x01\x01\x00\x00\x00",
              10);
    expect_open_error(P, msg(P, "byte 0: expected magic IPS2TRC, found "
                                "\"\\x7fELF\\x02\\x01\\x01\\x00\""));

    put_bytes(P, "IPX", 3);
    expect_open_error(P, msg(P, "byte 0: expected magic IPS2TRC, found \"IPX\""));

    /* A magic prefix, then nothing. */
    put_bytes(P, "IPS", 3);
    expect_open_error(P, msg(P, "byte 3: expected a 1280-byte header, found end of file"));
}

static void test_truncated_header(void **state)
{
    (void)state;
    make_raw(P, 4, IPS2_CPU_EXACT, 0);
    cut(P, 100);
    expect_open_error(P, msg(P, "byte 100: expected a 1280-byte header, found end of file"));

    make_raw(P, 4, IPS2_CPU_EXACT, 0);
    cut(P, 2000); /* the header, but not all of header_size */
    expect_open_error(P, msg(P, "byte 2000: expected a header of 4096 bytes (header_size), "
                                "found end of file"));
}

static void test_bad_header_fields(void **state)
{
    (void)state;
    static const struct {
        size_t off, len;
        uint64_t value;
        const char *want;
    } cases[] = {
        {HOFF(version), 2, 7, "byte 8: expected version 1 to 1, found 7"},
        {HOFF(version), 2, 0, "byte 8: expected version 1 to 1, found 0"},
        {HOFF(header_size), 2, 1000,
         "byte 10: expected a raw header_size >= 1280 and a multiple of 8, found 1000"},
        {HOFF(header_size), 2, 1284,
         "byte 10: expected a raw header_size >= 1280 and a multiple of 8, found 1284"},
        {HOFF(endian), 1, 2, "byte 12: expected endian 1 (little), found 2"},
        {HOFF(encoding), 1, 2, "byte 13: expected encoding 0 (raw) or 1 (packed), found 2"},
        {HOFF(stream_kind), 1, 9,
         "byte 14: expected stream kind 0 (thread) or 1 (process), found 9"},
        {HOFF(cpu_method), 1, 3,
         "byte 15: expected CPU method 0 (exact), 1 (interp) or 2 (tick), found 3"},
        {HOFF(timer), 4, 2, "byte 20: expected timer 0 (tsc) or 1 (monotonic), found 2"},
        {HOFF(features), 8, (1ull << 5) | IPS2_FEAT_PROC_EVENTS,
         "byte 24: expected only known required feature bits (mask 0xf), found 0x20"},
        {HOFF(state), 4, 2, "byte 80: expected state 0 (open) or 1 (closed), found 2"},
        {HOFF(data_bytes), 8, 1ull << 63,
         "byte 88: expected data_bytes < 2^62, found "
         "9223372036854775808"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        make_raw(P, 2, IPS2_CPU_EXACT, 0);
        patch(P, cases[i].off, &cases[i].value, cases[i].len);
        expect_open_error(P, msg(P, "%s", cases[i].want));
    }

    /* TSC timer without its frequency. */
    make_raw(P, 2, IPS2_CPU_EXACT, 0);
    patch32(P, HOFF(timer), IPS2_TIMER_TSC);
    patch64(P, HOFF(tsc_hz), 0);
    expect_open_error(P, msg(P, "byte 48: expected a nonzero tsc_hz with the TSC timer, found 0"));
}

/* What a reader must tolerate: unknown optional feature bits, strings that
 * fill their arrays, a longer header (fields from a newer minor layout). */
static void test_tolerated_header(void **state)
{
    char err[IPS2_ERR_MAX], fill[IPS2_PATH_MAX];

    (void)state;
    make_raw(P, 2, IPS2_CPU_EXACT, 0);
    patch64(P, HOFF(features), (1ull << 40) | IPS2_FEAT_TRUNCATED);
    memset(fill, 'A', sizeof(fill));
    patch(P, HOFF(host), fill, IPS2_HOST_MAX);
    patch(P, HOFF(app), fill, IPS2_APP_MAX);
    patch(P, HOFF(exe), fill, IPS2_PATH_MAX);
    struct ips2_reader *r = ips2_reader_open(P, err);
    assert_non_null(r);
    const struct ips2_file_header *h = ips2_reader_header(r);
    assert_int_equal(strlen(h->host), IPS2_HOST_MAX - 1);
    assert_int_equal(strlen(h->app), IPS2_APP_MAX - 1);
    assert_int_equal(strlen(h->exe), IPS2_PATH_MAX - 1);
    assert_int_equal(h->features, (1ull << 40) | IPS2_FEAT_TRUNCATED);
    ips2_reader_close(r);
    expect_events_then(P, 2, 1, NULL);

    /* A packed stream with a 1296-byte header: the reader skips the 16
     * bytes it does not know. */
    make_raw(P, 6, IPS2_CPU_EXACT, 0);
    assert_int_equal(ips2_pack_file(P, P2, err), 0);
    off_t size = file_size(P2);
    unsigned char *buf = malloc((size_t)size + 16);
    assert_non_null(buf);
    int fd = open(P2, O_RDONLY);
    assert_int_equal(read(fd, buf, (size_t)size), size);
    close(fd);
    memmove(buf + 1296, buf + 1280, (size_t)size - 1280);
    memset(buf + 1280, 0xee, 16);
    uint16_t hs = 1296;
    memcpy(buf + HOFF(header_size), &hs, 2);
    put_bytes(P2, buf, (size_t)size + 16);
    free(buf);
    expect_events_then(P2, 6, 1, NULL);
}

/* ---- raw records ----------------------------------------------------- */

static void test_raw_unknown_kind(void **state)
{
    (void)state;
    struct ips2_writer *w = make_raw(P, 3, IPS2_CPU_EXACT, 1);
    assert_int_equal(ips2_writer_emit(w, 99, 5000, 0, 0, 1, NULL, 0), 0);
    assert_int_equal(ips2_writer_emit(w, IPS2_EV_ENTER, 5000, 0, 0, 1, NULL, 0), 0);
    close_writer(w);
    expect_events_then(P, 3, 1, msg(P, "byte 4144: expected a known record kind, found kind 99"));

    /* Kind 0 (NONE) in a nonzero word is not an end marker. */
    w = make_raw(P, 1, IPS2_CPU_EXACT, 1);
    assert_int_equal(ips2_writer_emit_word(w, IPS2_RAW_WORD0(0, 0, 0, 5)), 0);
    close_writer(w);
    expect_events_then(P, 1, 1, msg(P, "byte 4112: expected a known record kind, found kind 0"));
}

static void test_raw_bad_records(void **state)
{
    (void)state;
    /* has_cpu, but nextra does not count the CPU word. */
    struct ips2_writer *w = make_raw(P, 2, IPS2_CPU_EXACT, 1);
    assert_int_equal(ips2_writer_emit_word(w, IPS2_RAW_WORD0(IPS2_EV_FORK, 1, 0, 5)), 0);
    assert_int_equal(ips2_writer_emit_word(w, 1), 0);
    close_writer(w);
    expect_events_then(P, 2, 1,
                       msg(P, "byte 4128: expected nextra >= 1 to count the CPU word, found 0"));

    /* Pads: too short, not a multiple of 8, past data_bytes. */
    static const uint64_t pads[] = {0, 12};
    for (int i = 0; i < 2; i++) {
        w = make_raw(P, 2, IPS2_CPU_EXACT, 1);
        assert_int_equal(ips2_writer_emit_word(w, IPS2_RAW_WORD0(IPS2_EV_PAD, 0, 0, pads[i])), 0);
        close_writer(w);
        expect_events_then(P, 2, 1,
                           msg(P,
                               "byte 4128: expected a pad length >= 8 and a multiple of 8, "
                               "found %llu",
                               (unsigned long long)pads[i]));
    }
    w = make_raw(P, 2, IPS2_CPU_EXACT, 1);
    assert_int_equal(ips2_writer_emit_word(w, IPS2_RAW_WORD0(IPS2_EV_PAD, 0, 0, 16)), 0);
    close_writer(w);
    expect_events_then(P, 2, 1,
                       msg(P, "byte 4128: expected a pad ending within data_bytes (at byte "
                              "4136), found one ending at byte 4144"));

    /* SYNC without CPU time; ENTER with extra words. */
    uint64_t x[2] = {1, 2};
    w = make_raw(P, 2, IPS2_CPU_EXACT, 1);
    assert_int_equal(ips2_writer_emit(w, IPS2_EV_SYNC, 5000, 0, 0, 0, x, 1), 0);
    close_writer(w);
    expect_events_then(P, 2, 1,
                       msg(P, "byte 4128: expected a sync event with a CPU time and mono_ns, "
                              "found has_cpu 0 and 1 extra words"));
    w = make_raw(P, 2, IPS2_CPU_EXACT, 1);
    assert_int_equal(ips2_writer_emit(w, IPS2_EV_ENTER, 5000, 1, 7, 0x10, x, 2), 0);
    close_writer(w);
    expect_events_then(P, 2, 1,
                       msg(P, "byte 4128: expected an enter event without extra words, found 2"));

    /* A short record before any SYNC has no timer base. */
    w = make_raw(P, 2, IPS2_CPU_EXACT, 1);
    assert_int_equal(ips2_writer_emit_word(w, IPS2_SHORT_WORD(IPS2_EV_ENTER_SHORT, 1, 2)), 0);
    close_writer(w);
    expect_events_then(P, 2, 1,
                       msg(P, "byte 4128: expected a sync record before the first short record"));
}

/* Short lock records: only after a SYNC, in a stream that says it has
 * them, naming a slot that a LOCK_ACQUIRED or LOCK_RELEASE bound. */
static void test_raw_bad_short_locks(void **state)
{
    char err[IPS2_ERR_MAX];
    struct ips2_file_header h;
    uint64_t mono = 5, key = 0x601040, seq = 9;
    unsigned slot = IPS2_LOCK_SLOT(key), other = (slot + 1) % IPS2_LOCK_SLOTS;
    const uint64_t acq = IPS2_LOCK_WORD(IPS2_EV_LOCK_ACQUIRED_SHORT, 3, slot, 0);

    (void)state;
    header(&h, IPS2_CPU_EXACT);
    h.features = IPS2_FEAT_SHORT_LOCKS;
    /* before any SYNC */
    struct ips2_writer *w = ips2_writer_create(P, &h, err);
    assert_non_null(w);
    assert_int_equal(ips2_writer_emit(w, IPS2_EV_LOCK_RELEASE, 1000, 0, 0, key, &seq, 1), 0);
    assert_int_equal(ips2_writer_emit_word(w, acq), 0);
    close_writer(w);
    expect_events_then(P, 1, 0,
                       msg(P, "byte 4120: expected a sync record before the first short record"));

    /* a slot never bound, or bound only by a shared-mode release */
    for (int shared = 0; shared < 2; shared++) {
        w = ips2_writer_create(P, &h, err);
        assert_non_null(w);
        assert_int_equal(ips2_writer_emit(w, IPS2_EV_SYNC, 1000, 1, 1, 0, &mono, 1), 0);
        assert_int_equal(
            ips2_writer_emit(w, shared ? IPS2_EV_LOCK_RELEASE_SHARED : IPS2_EV_LOCK_RELEASE, 1001,
                             0, 0, key, &seq, 1),
            0);
        assert_int_equal(
            ips2_writer_emit_word(w, IPS2_LOCK_HELD_WORD(4, shared ? slot : other, 0, 1)), 0);
        close_writer(w);
        expect_events_then(P, 2, 0,
                           msg(P,
                               "byte 4152: expected a lock-held-short record naming a bound "
                               "object slot, found slot %u unbound",
                               shared ? slot : other));
    }

    /* a release without an extra word binds nothing */
    w = ips2_writer_create(P, &h, err);
    assert_non_null(w);
    assert_int_equal(ips2_writer_emit(w, IPS2_EV_SYNC, 1000, 1, 1, 0, &mono, 1), 0);
    assert_int_equal(ips2_writer_emit(w, IPS2_EV_LOCK_RELEASE, 1001, 0, 0, key, NULL, 0), 0);
    assert_int_equal(ips2_writer_emit_word(w, acq), 0);
    close_writer(w);
    expect_events_then(P, 2, 0,
                       msg(P,
                           "byte 4144: expected a lock-acquired-short record naming a bound "
                           "object slot, found slot %u unbound",
                           slot));

    /* the header does not announce them */
    h.features = 0;
    w = ips2_writer_create(P, &h, err);
    assert_non_null(w);
    assert_int_equal(ips2_writer_emit(w, IPS2_EV_SYNC, 1000, 1, 1, 0, &mono, 1), 0);
    assert_int_equal(ips2_writer_emit(w, IPS2_EV_LOCK_RELEASE, 1001, 0, 0, key, &seq, 1), 0);
    assert_int_equal(
        ips2_writer_emit_word(w, IPS2_LOCK_WORD(IPS2_EV_LOCK_RELEASE_SHORT, 5, slot, 1)), 0);
    close_writer(w);
    expect_events_then(P, 2, 0,
                       msg(P, "byte 4152: expected no lock-release-short record (feature bit "
                              "short-locks is clear), found one"));

    /* and when it does: the events, then the end */
    h.features = IPS2_FEAT_SHORT_LOCKS;
    w = ips2_writer_create(P, &h, err);
    assert_non_null(w);
    assert_int_equal(ips2_writer_emit(w, IPS2_EV_SYNC, 1000, 1, 1, 0, &mono, 1), 0);
    assert_int_equal(ips2_writer_emit(w, IPS2_EV_LOCK_RELEASE, 1001, 0, 0, key, &seq, 1), 0);
    assert_int_equal(ips2_writer_emit_word(w, IPS2_LOCK_HELD_WORD(4, slot, 0, 1)), 0);
    close_writer(w);
    expect_events_then(P, 4, 0, NULL);
}

/* A record cut by the end of the file: an error in a closed stream, the
 * end of the data in an unclosed one (its writer died). */
static void test_raw_past_eof(void **state)
{
    uint64_t x[3] = {1, 2, 3};
    char err[IPS2_ERR_MAX];

    (void)state;
    struct ips2_writer *w = make_raw(P, 3, IPS2_CPU_EXACT, 1);
    assert_int_equal(ips2_writer_emit(w, IPS2_EV_MODULE, 5000, 0, 0, 0, x, 3), 0); /* 40 bytes */
    close_writer(w);
    cut(P, REC0 + 48 + 20);
    expect_events_then(P, 3, 1,
                       msg(P, "byte 4144: expected a 40-byte record, found end of file after "
                              "20 bytes"));
    set_unclosed(P);
    expect_events_then(P, 3, 1, NULL);
    struct ips2_reader *r = ips2_reader_open(P, err);
    assert_non_null(r);
    assert_true(ips2_reader_unclosed(r));
    ips2_reader_close(r);

    /* Cut between records: closed streams still miss data_bytes. */
    w = make_raw(P, 3, IPS2_CPU_EXACT, 1);
    assert_int_equal(ips2_writer_emit(w, IPS2_EV_MODULE, 5000, 0, 0, 0, x, 3), 0);
    close_writer(w);
    cut(P, REC0 + 48);
    expect_events_then(P, 3, 1,
                       msg(P, "byte 4144: expected 40 more bytes of records (data_bytes 88), "
                              "found end of file"));
    set_unclosed(P);
    expect_events_then(P, 3, 1, NULL);

    /* Cut inside word 0. */
    make_raw(P, 3, IPS2_CPU_EXACT, 0);
    cut(P, REC0 + 16 * 2 + 5);
    expect_events_then(P, 2, 1,
                       msg(P, "byte 4128: expected 16 more bytes of records (data_bytes 48), "
                              "found end of file"));
    set_unclosed(P);
    expect_events_then(P, 2, 1, NULL);

    /* An unclosed stream's pad pointing past the end of the file. */
    w = make_raw(P, 2, IPS2_CPU_EXACT, 1);
    assert_int_equal(ips2_writer_emit_word(w, IPS2_RAW_WORD0(IPS2_EV_PAD, 0, 0, 1 << 20)), 0);
    close_writer(w);
    set_unclosed(P);
    expect_events_then(P, 2, 1, NULL);

    /* A record that data_bytes cuts in two. */
    make_raw(P, 3, IPS2_CPU_EXACT, 0);
    patch64(P, HOFF(data_bytes), 40);
    expect_events_then(P, 2, 1,
                       msg(P, "byte 4128: expected a 16-byte record ending within data_bytes "
                              "(at byte 4136), found it ending at byte 4144"));
}

/* Events waiting for interpolation when the error comes are returned
 * first, with the previous CPU reading. */
static void test_error_after_queued_events(void **state)
{
    char err[IPS2_ERR_MAX];
    struct ips2_file_header h;
    const struct ips2_event *ev;
    uint64_t mono = 1;

    (void)state;
    header(&h, IPS2_CPU_INTERP);
    struct ips2_writer *w = ips2_writer_create(P, &h, err);
    assert_non_null(w);
    assert_int_equal(ips2_writer_emit(w, IPS2_EV_SYNC, 100, 1, 500, 0, &mono, 1), 0);
    for (unsigned i = 0; i < 3; i++)
        assert_int_equal(ips2_writer_emit(w, IPS2_EV_ENTER, 200 + i, 0, 0, i, NULL, 0), 0);
    assert_int_equal(ips2_writer_emit(w, 120, 300, 0, 0, 0, NULL, 0), 0);
    assert_int_equal(ips2_writer_close(w, err), 0);

    struct ips2_reader *r = ips2_reader_open(P, err);
    assert_non_null(r);
    assert_int_equal(ips2_reader_next(r, &ev), 1);
    assert_int_equal(ev->cpu_ns, 500);
    for (unsigned i = 0; i < 3; i++) {
        assert_int_equal(ips2_reader_next(r, &ev), 1);
        assert_int_equal(ev->payload, i);
        assert_int_equal(ev->cpu_ns, 500);
        assert_false(ev->cpu_exact);
    }
    assert_int_equal(ips2_reader_next(r, &ev), -1);
    assert_string_equal(ips2_reader_error(r),
                        msg(P, "byte 4176: expected a known record kind, found kind "
                               "120"));
    assert_int_equal(ips2_reader_next(r, &ev), -1);
    ips2_reader_close(r);
}

/* Packing a stream that ends in a corrupt record packs what came before
 * and still reports the error. */
static void test_pack_corrupt_raw(void **state)
{
    char err[IPS2_ERR_MAX], tmp[600];

    (void)state;
    struct ips2_writer *w = make_raw(P, 5, IPS2_CPU_EXACT, 1);
    assert_int_equal(ips2_writer_emit(w, 121, 5000, 0, 0, 1, NULL, 0), 0);
    close_writer(w);
    assert_int_equal(ips2_pack_file(P, P2, err), -1);
    assert_string_equal(err, msg(P, "byte 4176: expected a known record kind, found kind 121"));
    snprintf(tmp, sizeof(tmp), "%s.tmp", P2);
    assert_int_equal(access(tmp, F_OK), -1);
    expect_events_then(P2, 5, 1, NULL);

    /* Unreadable input: nothing is written. */
    unlink(P2);
    put_bytes(P, "nope", 4);
    assert_int_equal(ips2_pack_file(P, P2, err), -1);
    assert_string_equal(err, msg(P, "byte 0: expected magic IPS2TRC, found \"nope\""));
    assert_int_equal(access(P2, F_OK), -1);
}

/* ---- packed blocks, built by hand ------------------------------------ */

/* Coded events: ENTER t=100 of new address 0x1000, then EXIT t=150 of
 * table entry 0. */
static const unsigned char two_events[] = {3, 0xc8, 0x01, 0x00, 0x80, 0x20, 4, 0x64, 0x00};
#define TWO_LEN sizeof(two_events)

/* A block of the given coded events into out (header + zlib data);
 * returns its size. */
static size_t make_block(unsigned char *out, const void *raw, size_t len, uint32_t nevents,
                         uint64_t first_timer)
{
    struct ips2_block_header bh;
    uLongf clen = compressBound(IPS2_BLOCK_RAW_MAX);

    assert_int_equal(compress2(out + sizeof(bh), &clen, raw, len, 6), Z_OK);
    memset(&bh, 0, sizeof(bh));
    bh.magic = IPS2_BLOCK_MAGIC;
    bh.raw_len = (uint32_t)len;
    bh.comp_len = (uint32_t)clen;
    bh.crc32 = (uint32_t)crc32(0L, out + sizeof(bh), (uInt)clen);
    bh.nevents = nevents;
    bh.first_timer = first_timer;
    memcpy(out, &bh, sizeof(bh));
    return sizeof(bh) + clen;
}

/* The same as a zstd block ("BLZ1"), as the packer writes them now. */
static size_t make_zstd_block(unsigned char *out, const void *raw, size_t len, uint32_t nevents,
                              uint64_t first_timer)
{
    struct ips2_block_header bh;
    size_t clen =
        ZSTD_compress(out + sizeof(bh), ZSTD_compressBound(IPS2_BLOCK_RAW_MAX), raw, len, 4);

    assert_false(ZSTD_isError(clen));
    memset(&bh, 0, sizeof(bh));
    bh.magic = IPS2_BLOCK_MAGIC_ZSTD;
    bh.raw_len = (uint32_t)len;
    bh.comp_len = (uint32_t)clen;
    bh.crc32 = (uint32_t)crc32(0L, out + sizeof(bh), (uInt)clen);
    bh.nevents = nevents;
    bh.first_timer = first_timer;
    memcpy(out, &bh, sizeof(bh));
    return sizeof(bh) + clen;
}

/* two_events in columns ("BLC1", as the packer writes them since issue
 * 13): lengths 2, 3, 0, 2, then the tags, the timer deltas, no CPU
 * deltas, the address indexes, the rest (the new address). */
static const unsigned char two_columns[] = {2, 0, 0, 0, 3, 0,    0,    0,    0, 0, 0,    0,   2,
                                            0, 0, 0, 3, 4, 0xc8, 0x01, 0x64, 0, 0, 0x80, 0x20};

static size_t make_cols_block(unsigned char *out, const void *raw, size_t len, uint32_t nevents,
                              uint64_t first_timer)
{
    size_t n = make_zstd_block(out, raw, len, nevents, first_timer);
    ((struct ips2_block_header *)(void *)out)->magic = IPS2_BLOCK_MAGIC_COLS;
    return n;
}

static struct ips2_block_header *bhdr(unsigned char *block)
{
    return (struct ips2_block_header *)(void *)block;
}

static void fix_crc(unsigned char *block)
{
    struct ips2_block_header *bh = bhdr(block);
    bh->crc32 = (uint32_t)crc32(0L, block + sizeof(*bh), bh->comp_len);
}

/* Writes a packed stream: a valid first block (two_events), then `second`
 * (second_len bytes, written as is). */
static void write_packed(const void *second, size_t second_len)
{
    struct ips2_file_header h;
    unsigned char first[512];

    header(&h, IPS2_CPU_EXACT);
    h.encoding = IPS2_ENC_PACKED;
    h.header_size = sizeof(h);
    h.state = IPS2_STATE_CLOSED;
    size_t n = make_block(first, two_events, TWO_LEN, 2, 100);
    put_bytes(P2, &h, sizeof(h));
    append(P2, first, n);
    if (second_len)
        append(P2, second, second_len);
}

/* Offset of the second block in write_packed()'s stream. */
static uint64_t second_block(void)
{
    unsigned char first[512];
    return sizeof(struct ips2_file_header) + make_block(first, two_events, TWO_LEN, 2, 100);
}

static void expect_packed(unsigned nev, const char *fmt, ...)
{
    char want[IPS2_ERR_MAX + 64];
    va_list ap;
    int n = snprintf(want, sizeof(want), "%s: byte %llu: ", P2, (unsigned long long)second_block());

    va_start(ap, fmt);
    vsnprintf(want + n, sizeof(want) - (size_t)n, fmt, ap);
    va_end(ap);
    expect_events_then(P2, nev, 0, want);
}

static void test_packed_good_by_hand(void **state)
{
    char err[IPS2_ERR_MAX];
    const struct ips2_event *ev;
    unsigned char b[512];

    (void)state;
    size_t n = make_block(b, two_events, TWO_LEN, 2, 100);
    write_packed(b, n);
    struct ips2_reader *r = ips2_reader_open(P2, err);
    assert_non_null(r);
    for (int blk = 0; blk < 2; blk++) {
        assert_int_equal(ips2_reader_next(r, &ev), 1);
        assert_int_equal(ev->kind, IPS2_EV_ENTER);
        assert_int_equal(ev->timer, 100); /* deltas restart in every block */
        assert_int_equal(ev->payload, 0x1000);
        assert_int_equal(ips2_reader_next(r, &ev), 1);
        assert_int_equal(ev->kind, IPS2_EV_EXIT);
        assert_int_equal(ev->timer, 150);
        assert_int_equal(ev->payload, 0x1000);
        assert_int_equal(ev->offset, blk ? second_block() : sizeof(struct ips2_file_header));
    }
    assert_int_equal(ips2_reader_next(r, &ev), 0);
    ips2_reader_close(r);
}

static void test_packed_bad_blocks(void **state)
{
    unsigned char b[4096];
    size_t n;
    uLong bound = compressBound(IPS2_BLOCK_RAW_MAX);

    (void)state;
    /* Corrupt crc: a flipped bit in the zlib data. */
    n = make_block(b, two_events, TWO_LEN, 2, 100);
    uint32_t good = bhdr(b)->crc32;
    b[sizeof(struct ips2_block_header) + 3] ^= 0x10;
    uint32_t bad = (uint32_t)crc32(0L, b + 32, bhdr(b)->comp_len);
    write_packed(b, n);
    expect_packed(2, "expected the block's zlib data to have crc32 0x%08x, found 0x%08x", good,
                  bad);

    /* Not zlib data, with a matching crc. */
    n = make_block(b, two_events, TWO_LEN, 2, 100);
    memset(b + 32, 0xff, bhdr(b)->comp_len);
    fix_crc(b);
    write_packed(b, n);
    expect_packed(2, "expected zlib data inflating to 9 bytes, zlib says: data error");

    /* zlib data that ends before comp_len does. */
    n = make_block(b, two_events, TWO_LEN, 2, 100);
    uint32_t clen = bhdr(b)->comp_len;
    memset(b + n, 0, 3);
    bhdr(b)->comp_len = clen + 3;
    fix_crc(b);
    write_packed(b, n + 3);
    expect_packed(2, "expected the zlib stream to fill comp_len %u bytes, found it ends after %u",
                  clen + 3, clen);

    /* zlib data cut by the end of the file. */
    n = make_block(b, two_events, TWO_LEN, 2, 100);
    write_packed(b, n - 4);
    expect_packed(2,
                  "expected %u bytes of zlib data after the block header, found end of file "
                  "after %u",
                  bhdr(b)->comp_len, bhdr(b)->comp_len - 4);

    /* Lying raw_len, both ways. */
    n = make_block(b, two_events, TWO_LEN, 2, 100);
    bhdr(b)->raw_len = TWO_LEN + 1;
    write_packed(b, n);
    expect_packed(2, "expected zlib data inflating to raw_len 10 bytes, found 9");
    bhdr(b)->raw_len = TWO_LEN - 1;
    write_packed(b, n);
    expect_packed(2, "expected zlib data inflating to raw_len 8 bytes, found 9");
    bhdr(b)->raw_len = IPS2_BLOCK_RAW_MAX + 1;
    write_packed(b, n);
    expect_packed(2, "expected a block raw_len <= 262144, found 262145");

    /* Lying nevents, both ways. */
    n = make_block(b, two_events, TWO_LEN, 3, 100);
    write_packed(b, n);
    expect_packed(2, "block event 2 at decoded byte 9: expected an event tag, found the end of "
                     "the block data");
    n = make_block(b, two_events, TWO_LEN, 1, 100);
    write_packed(b, n);
    expect_packed(2, "expected nevents 1 to fill raw_len 9 decoded bytes, found 3 bytes left over");
    n = make_block(b, two_events, TWO_LEN, 10, 100);
    write_packed(b, n);
    expect_packed(2, "expected a block nevents <= raw_len 9, found 10");

    /* Lying comp_len. */
    n = make_block(b, two_events, TWO_LEN, 2, 100);
    bhdr(b)->comp_len = 0;
    write_packed(b, n);
    expect_packed(2, "expected a block comp_len of 1 to %lu, found 0", bound);
    bhdr(b)->comp_len = (uint32_t)bound + 1;
    write_packed(b, n);
    expect_packed(2, "expected a block comp_len of 1 to %lu, found %lu", bound, bound + 1);

    /* Wrong first_timer, wrong magic, a cut block header. */
    n = make_block(b, two_events, TWO_LEN, 2, 99);
    write_packed(b, n);
    expect_packed(2, "expected first_timer 99 to be the first event's timer 100");
    n = make_block(b, two_events, TWO_LEN, 2, 100);
    memcpy(b, "BLK2", 4);
    write_packed(b, n);
    expect_packed(2, "expected block magic BLK1, BLZ1 or BLC1, found \"BLK2\"");
    write_packed("garbage!!!", 10);
    expect_packed(2, "expected a 32-byte block header, found end of file after 10 bytes");
}

/* zstd blocks: read as zlib blocks are, and damaged ones named. */
/* P2 as written from two_events in one block of 2 events, twice: four
 * events, timers 100 and 150, the payload 0x1000. */
static void expect_two_events_twice(void)
{
    char err[IPS2_ERR_MAX];
    const struct ips2_event *ev;
    struct ips2_reader *r = ips2_reader_open(P2, err);

    assert_non_null(r);
    for (int k = 0; k < 4; k++) {
        assert_int_equal(ips2_reader_next(r, &ev), 1);
        assert_int_equal(ev->timer, k % 2 ? 150 : 100);
        assert_int_equal(ev->payload, 0x1000);
    }
    assert_int_equal(ips2_reader_next(r, &ev), 0);
    ips2_reader_close(r);
}

/* Columnar blocks: read as their interleaved twin; a column that does not
 * fit, one left with bytes, or one that ends early is an error. */
static void test_packed_column_blocks(void **state)
{
    unsigned char b[4096], cols[64];
    size_t n, len = sizeof two_columns;

    (void)state;
    n = make_cols_block(b, two_columns, len, 2, 100);
    write_packed(b, n);
    expect_two_events_twice();

    memcpy(cols, two_columns, len);
    cols[4] = 200; /* the timer column's length */
    n = make_cols_block(b, cols, len, 2, 100);
    write_packed(b, n);
    expect_packed(2, "expected column 1's length 200 to fit the block's %zu bytes", len);

    memcpy(cols, two_columns, len);
    cols[len] = 0; /* a byte more in the last column */
    n = make_cols_block(b, cols, len + 1, 2, 100);
    write_packed(b, n);
    expect_packed(2, "expected nevents 2 to use all of column 4, found 1 bytes left");

    n = make_cols_block(b, two_columns, len, 3, 100); /* an event more than the tags */
    write_packed(b, n);
    expect_packed(2, "expected the tag of block event 2 in column 0, found its end");

    memcpy(cols, two_columns, len);
    cols[len - 1] = 0xa0; /* the address's last byte: a varint running off the column */
    n = make_cols_block(b, cols, len, 2, 100);
    write_packed(b, n);
    expect_packed(2, "expected an address in column 4, found the column's end");
}

static void test_packed_zstd_blocks(void **state)
{
    unsigned char b[4096];
    size_t n;

    (void)state;
    n = make_zstd_block(b, two_events, TWO_LEN, 2, 100);
    write_packed(b, n);
    expect_two_events_twice();

    /* a flipped bit: the crc */
    uint32_t good = bhdr(b)->crc32;
    b[sizeof(struct ips2_block_header) + 5] ^= 0x10;
    uint32_t bad = (uint32_t)crc32(0L, b + 32, bhdr(b)->comp_len);
    write_packed(b, n);
    expect_packed(2, "expected the block's zstd data to have crc32 0x%08x, found 0x%08x", good,
                  bad);
    /* not a zstd frame, with a matching crc */
    n = make_zstd_block(b, two_events, TWO_LEN, 2, 100);
    memset(b + 32, 0xff, bhdr(b)->comp_len);
    fix_crc(b);
    write_packed(b, n);
    expect_packed(2,
                  "expected one zstd frame filling comp_len %u bytes, found Unknown frame "
                  "descriptor",
                  bhdr(b)->comp_len);
    /* a frame that ends before comp_len does */
    n = make_zstd_block(b, two_events, TWO_LEN, 2, 100);
    uint32_t clen = bhdr(b)->comp_len;
    memset(b + n, 0, 3);
    bhdr(b)->comp_len = clen + 3;
    fix_crc(b);
    write_packed(b, n + 3);
    expect_packed(2, "expected one zstd frame filling comp_len %u bytes, found a frame of %u",
                  clen + 3, clen);
    /* a lying raw_len */
    n = make_zstd_block(b, two_events, TWO_LEN, 2, 100);
    bhdr(b)->raw_len = TWO_LEN + 1;
    write_packed(b, n);
    expect_packed(2, "expected zstd data inflating to raw_len 10 bytes, found 9");
    /* cut by the end of the file */
    n = make_zstd_block(b, two_events, TWO_LEN, 2, 100);
    write_packed(b, n - 4);
    expect_packed(
        2, "expected %u bytes of zstd data after the block header, found end of file after %u",
        bhdr(b)->comp_len, bhdr(b)->comp_len - 4);
}

static void test_packed_bad_events(void **state)
{
    unsigned char b[4096], e[64];
    size_t n, k;

    (void)state;
    /* An overlong varint: 11 bytes. */
    e[0] = IPS2_EV_ENTER;
    memset(e + 1, 0x80, 10);
    e[11] = 0;
    n = make_block(b, e, 12, 1, 0);
    write_packed(b, n);
    expect_packed(2, "block event 0 at decoded byte 1: expected a varint timer delta, found one "
                     "longer than 10 bytes or above 2^64");

    /* A varint cut by the end of the block data. */
    e[0] = IPS2_EV_ENTER;
    e[1] = 0x80;
    n = make_block(b, e, 2, 1, 0);
    write_packed(b, n);
    expect_packed(2, "block event 0 at decoded byte 1: expected a varint timer delta, found end "
                     "of the block data");

    /* An address index beyond the table. */
    const unsigned char idx[] = {IPS2_EV_EXIT, 0x02, 0x05};
    n = make_block(b, idx, sizeof(idx), 1, 1);
    write_packed(b, n);
    expect_packed(2, "block event 0 at decoded byte 2: expected an address index <= 0, found 5");

    /* Kinds that have no packed form. */
    static const unsigned kinds[] = {IPS2_EV_NONE, IPS2_EV_PAD, IPS2_EV_ENTER_SHORT, 99};
    for (int i = 0; i < 4; i++) {
        const unsigned char ev[] = {(unsigned char)kinds[i], 0x02, 0x00, 0x00};
        n = make_block(b, ev, sizeof(ev), 1, 1);
        write_packed(b, n);
        expect_packed(2,
                      "block event 0 at decoded byte 0: expected a packed event kind (not "
                      "none, pad or short), found kind %u",
                      kinds[i]);
    }

    /* A payload above 48 bits. */
    k = 0;
    e[k++] = IPS2_EV_FORK;
    e[k++] = 0x02;
    k += ips2_varint_put(e + k, 1ull << 48);
    e[k++] = 0;
    n = make_block(b, e, k, 1, 1);
    write_packed(b, n);
    expect_packed(2, "block event 0 at decoded byte 2: expected a payload below 2^48, found "
                     "0x1000000000000");

    /* Too many extra words: 255 without CPU time, 254 with. */
    k = 0;
    e[k++] = IPS2_EV_FORK | 0x80;
    e[k++] = 0x02;
    e[k++] = 0x02;
    e[k++] = 0x00;
    k += ips2_varint_put(e + k, 255);
    n = make_block(b, e, k, 1, 1);
    write_packed(b, n);
    expect_packed(2, "block event 0 at decoded byte 4: expected at most 254 extra words, found "
                     "255");

    /* A SYNC without CPU time, an ENTER with an address above 48 bits. */
    const unsigned char sync[] = {IPS2_EV_SYNC, 0x02, 0x00, 0x01, 0x05};
    n = make_block(b, sync, sizeof(sync), 1, 1);
    write_packed(b, n);
    expect_packed(2, "block event 0 at decoded byte 0: expected a sync event with a CPU time "
                     "and mono_ns, found has_cpu 0 and 1 extra words");
    k = 0;
    e[k++] = IPS2_EV_ENTER;
    e[k++] = 0x02;
    e[k++] = 0x00;
    k += ips2_varint_put(e + k, UINT64_MAX);
    n = make_block(b, e, k, 1, 1);
    write_packed(b, n);
    expect_packed(2, "block event 0 at decoded byte 3: expected an address below 2^48, found "
                     "0xffffffffffffffff");

    /* A good event, then a bad one (a kind outside every reserved range):
     * the block is refused whole. */
    k = 0;
    memcpy(e, two_events, TWO_LEN);
    k = TWO_LEN;
    e[k++] = 100;
    n = make_block(b, e, k, 3, 100);
    write_packed(b, n);
    expect_packed(2, "block event 2 at decoded byte 9: expected a packed event kind (not none, "
                     "pad or short), found kind 100");
}

/* ---- hostile input: random damage ------------------------------------ */

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void)
{
    return xorshift64(&rnd_state);
}

/* Reads a stream to its end; returns the events (bounded by a limit that
 * a hang would hit). */
static unsigned drain(const char *path)
{
    char err[IPS2_ERR_MAX];
    struct ips2_reader *r = ips2_reader_open(path, err);
    const struct ips2_event *ev;
    unsigned n = 0;
    int rc;

    if (!r) {
        assert_true(strncmp(err, path, strlen(path)) == 0);
        return 0;
    }
    while ((rc = ips2_reader_next(r, &ev)) == 1) {
        char s[32];
        ips2_event_string(ev, 0, s, sizeof(s));
        assert_true(++n < 1000000);
    }
    if (rc < 0)
        assert_true(strncmp(ips2_reader_error(r), path, strlen(path)) == 0);
    ips2_reader_close(r);
    return n;
}

static void test_random_damage(void **state)
{
    char err[IPS2_ERR_MAX];
    uint64_t x[4] = {1, 2, 3, 4};

    (void)state;
    for (int enc = 0; enc < 2; enc++) {
        const char *path = enc ? P2 : P;
        for (int round = 0; round < 300; round++) {
            struct ips2_writer *w = make_raw(P, 40, round % 3, 1);
            assert_int_equal(ips2_writer_emit(w, IPS2_EV_SYNC, 1500, 1, 9, 0, x, 1), 0);
            assert_int_equal(ips2_writer_emit(w, IPS2_EV_MODULE, 1600, 0, 0, 5, x, 4), 0);
            assert_int_equal(
                ips2_writer_emit_word(w, IPS2_SHORT_WORD(IPS2_EV_EXIT_SHORT, 3, 0x1000)), 0);
            close_writer(w);
            if (enc)
                assert_int_equal(ips2_pack_file(P, P2, err), 0);
            off_t size = file_size(path);
            unsigned hits = 1 + (unsigned)(rnd() % 8);
            for (unsigned i = 0; i < hits; i++) {
                uint64_t off = rnd() % (uint64_t)size;
                /* Aim at the interesting part more often than the strings. */
                if (rnd() % 2)
                    off = (enc ? 1280 : 4096) + rnd() % (uint64_t)(size - (enc ? 1280 : 4096));
                else if (rnd() % 2)
                    off = rnd() % 100;
                unsigned char v = (unsigned char)rnd();
                patch(path, off, &v, 1);
            }
            if (rnd() % 4 == 0)
                cut(path, (off_t)(rnd() % (uint64_t)size));
            drain(path);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_not_a_stream),
        cmocka_unit_test(test_truncated_header),
        cmocka_unit_test(test_bad_header_fields),
        cmocka_unit_test(test_tolerated_header),
        cmocka_unit_test(test_raw_unknown_kind),
        cmocka_unit_test(test_raw_bad_records),
        cmocka_unit_test(test_raw_past_eof),
        cmocka_unit_test(test_error_after_queued_events),
        cmocka_unit_test(test_pack_corrupt_raw),
        cmocka_unit_test(test_packed_good_by_hand),
        cmocka_unit_test(test_packed_bad_blocks),
        cmocka_unit_test(test_packed_zstd_blocks),
        cmocka_unit_test(test_packed_column_blocks),
        cmocka_unit_test(test_packed_bad_events),
        cmocka_unit_test(test_random_damage),
        cmocka_unit_test(test_raw_bad_short_locks),
    };
    return cmocka_run_group_tests(tests, setup_dir, scratch_remove);
}
