/*
 * test_format.c - the trace format end to end: varints, the raw writer,
 * the reader of both encodings, the packer, and the reader's clocks
 * (TSC wall time through SYNC events, exact / interpolated / tick CPU).
 *
 * Every stream is written with ips2_writer, read back raw, packed, and
 * read back packed; the two readings must agree event for event, and both
 * must give the exact values the test constructed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "scratch.h"

#include <dirent.h>
#include <errno.h>
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
#include "varint.h"

static int setup_dir(void **state)
{
    (void)state;
    return scratch_make("format");
}

static const char *tpath(char *buf, const char *name)
{
    snprintf(buf, 512, "%s/%s", scratch_dir, name);
    return buf;
}

/* One event to write, and what reading it back must give. */
struct spec {
    unsigned kind;
    uint64_t timer;
    int has_cpu;
    uint64_t cpu;
    uint64_t payload;
    unsigned nextra;
    uint64_t extra[8];
    const char *str; /* appended as NUL-padded words after extra[] */
};

static void header_for(struct ips2_file_header *h, unsigned timer, unsigned cpu_method)
{
    ips2_header_init(h, IPS2_ENC_RAW, IPS2_STREAM_THREAD);
    h->timer = timer;
    h->cpu_method = (uint8_t)cpu_method;
    h->tsc_hz = timer == IPS2_TIMER_TSC ? 2500000000ull : 1000000000ull;
    h->pid = 4242;
    h->tid = 4243;
    h->ppid = 1;
    h->image = 2;
    h->features = IPS2_FEAT_PROC_EVENTS | IPS2_FEAT_TRUNCATED;
    h->ref_tsc = 1000;
    h->ref_mono_ns = 5000000000ull;
    h->ref_real_ns = 1700000000000000000ull;
    h->sync_records = 4;
    h->cpu_param = 100;
    h->cost_ns[IPS2_COST_PROC] = 11;
    h->cost_ns[IPS2_COST_SYNC] = 22;
    strcpy(h->host, "host-a");
    strcpy(h->app, "app-b");
    strcpy(h->exe, "/usr/local/bin/workload");
}

static unsigned spec_words(const struct spec *s, uint64_t *words)
{
    unsigned n = s->nextra;

    memcpy(words, s->extra, n * sizeof(uint64_t));
    if (s->str)
        n += ips2_string_words(words + n, 32, s->str);
    return n;
}

static void write_specs(const char *path, const struct ips2_file_header *h, const struct spec *s,
                        size_t n)
{
    char err[IPS2_ERR_MAX];
    struct ips2_writer *w = ips2_writer_create(path, h, err);
    uint64_t words[64];

    assert_non_null(w);
    for (size_t i = 0; i < n; i++) {
        unsigned nw = spec_words(&s[i], words);
        assert_int_equal(ips2_writer_emit(w, s[i].kind, s[i].timer, s[i].has_cpu, s[i].cpu,
                                          s[i].payload, words, nw),
                         0);
    }
    assert_int_equal(ips2_writer_close(w, err), 0);
}

/* A copy of an event that outlives the reader's next call. */
struct got {
    struct ips2_event ev;
    uint64_t extra[IPS2_RAW_MAX_EXTRA];
};

/* Reads every event of path; returns the count (asserts a clean end). */
static size_t read_all(const char *path, struct got *out, size_t max)
{
    char err[IPS2_ERR_MAX];
    struct ips2_reader *r = ips2_reader_open(path, err);
    const struct ips2_event *ev;
    size_t n = 0;
    int rc;

    if (!r)
        fail_msg("%s", err);
    while ((rc = ips2_reader_next(r, &ev)) == 1) {
        assert_true(n < max);
        out[n].ev = *ev;
        memcpy(out[n].extra, ev->extra, ev->nextra * sizeof(uint64_t));
        out[n].ev.extra = out[n].extra;
        n++;
    }
    if (rc != 0)
        fail_msg("%s", ips2_reader_error(r));
    assert_int_equal(ips2_reader_next(r, &ev), 0);
    ips2_reader_close(r);
    return n;
}

static void assert_same_event(const struct ips2_event *a, const struct ips2_event *b)
{
    assert_int_equal(a->kind, b->kind);
    assert_int_equal(a->cpu_exact, b->cpu_exact);
    assert_int_equal(a->timer, b->timer);
    assert_int_equal(a->wall_ns, b->wall_ns);
    assert_int_equal(a->cpu_ns, b->cpu_ns);
    assert_int_equal(a->payload, b->payload);
    assert_int_equal(a->nextra, b->nextra);
    if (a->nextra)
        assert_memory_equal(a->extra, b->extra, a->nextra * sizeof(uint64_t));
}

/* Packs raw_path and checks, reading both in lockstep, that the packed
 * stream reads back to the same events as the raw one.  Returns the count;
 * fills the packed events' offsets and timers if asked. */
static size_t pack_and_compare(const char *raw_path, const char *packed_path, uint64_t *offsets,
                               uint64_t *timers)
{
    char err[IPS2_ERR_MAX];
    char tmp[600];
    const struct ips2_event *a, *b;
    size_t n = 0;
    int ra, rb;

    if (ips2_pack_file(raw_path, packed_path, err) != 0)
        fail_msg("%s", err);
    snprintf(tmp, sizeof(tmp), "%s.tmp", packed_path);
    assert_int_equal(access(tmp, F_OK), -1);

    struct ips2_reader *r = ips2_reader_open(raw_path, err);
    assert_non_null(r);
    struct ips2_reader *p = ips2_reader_open(packed_path, err);
    assert_non_null(p);
    for (;;) {
        ra = ips2_reader_next(r, &a);
        rb = ips2_reader_next(p, &b);
        assert_int_equal(ra, rb);
        if (ra != 1)
            break;
        assert_same_event(a, b);
        if (offsets)
            offsets[n] = b->offset;
        if (timers)
            timers[n] = b->timer;
        n++;
    }
    assert_int_equal(ra, 0);
    ips2_reader_close(r);
    ips2_reader_close(p);
    return n;
}

/* ---- varints --------------------------------------------------------- */

/* ips2_event_string(ev, skip) into a buffer of size bytes is want. */
static void assert_event_string(const struct ips2_event *ev, unsigned skip, size_t size,
                                const char *want)
{
    char s[64];

    assert_true(size <= sizeof(s));
    ips2_event_string(ev, skip, s, size);
    assert_string_equal(s, want);
}

static void test_varint(void **state)
{
    /* clang-format off */
    static const uint64_t vals[] = {0, 1, 127, 128, 300, 16383, 16384, 1ull << 32, 1ull << 48,
                                    1ull << 62, (1ull << 63) - 1, 1ull << 63, UINT64_MAX};
    /* clang-format on */
    static const size_t lens[] = {1, 1, 1, 2, 2, 2, 3, 5, 7, 9, 9, 10, 10};
    uint8_t buf[16];
    uint64_t v;

    (void)state;
    for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
        size_t n = ips2_varint_put(buf, vals[i]);
        assert_int_equal(n, lens[i]);
        assert_int_equal(ips2_varint_len(vals[i]), lens[i]);
        assert_int_equal(ips2_varint_get(buf, n, &v), (int)n);
        assert_int_equal(v, vals[i]);
        assert_int_equal(ips2_varint_get(buf, n - 1, &v), 0); /* truncated */
    }
    assert_int_equal(ips2_varint_put(buf, 300), 2);
    assert_int_equal(buf[0], 0xac);
    assert_int_equal(buf[1], 0x02);

    /* Eleven bytes, or a tenth byte above 1: refused. */
    memset(buf, 0x80, 10);
    buf[10] = 0x00;
    assert_int_equal(ips2_varint_get(buf, 11, &v), -1);
    memset(buf, 0xff, 9);
    buf[9] = 0x02;
    assert_int_equal(ips2_varint_get(buf, 10, &v), -1);
    buf[9] = 0x01;
    assert_int_equal(ips2_varint_get(buf, 10, &v), 10);
    assert_int_equal(v, UINT64_MAX);
    /* Non-minimal but within 10 bytes: accepted. */
    buf[0] = 0x80;
    buf[1] = 0x00;
    assert_int_equal(ips2_varint_get(buf, 2, &v), 2);
    assert_int_equal(v, 0);
    assert_int_equal(ips2_varint_get(buf, 0, &v), 0);

    assert_int_equal(ips2_zigzag(0), 0);
    assert_int_equal(ips2_zigzag(-1), 1);
    assert_int_equal(ips2_zigzag(1), 2);
    assert_int_equal(ips2_zigzag(-2), 3);
    assert_int_equal(ips2_zigzag(INT64_MAX), UINT64_MAX - 1);
    assert_int_equal(ips2_zigzag(INT64_MIN), UINT64_MAX);
    assert_int_equal(ips2_unzigzag(UINT64_MAX), INT64_MIN);
    assert_int_equal(ips2_unzigzag(3), -2);
    assert_int_equal(ips2_zigzag_u((uint64_t)-300), 599);
    assert_int_equal(ips2_unzigzag_u(599), (uint64_t)-300);
}

/* ---- every kind, raw and packed -------------------------------------- */

static const struct spec every_kind[] = {
    {IPS2_EV_PROC_START, 900, 1, 10, IPS2_START_FORK, 1, {4000}, NULL},
    {IPS2_EV_SYNC, 1000, 1, 50, 0, 1, {5000000000ull}, NULL},
    {IPS2_EV_MODULE,
     1010,
     0,
     0,
     0x555500000000ull,
     2,
     {0x555500001000ull, 0x555500009000ull},
     "/usr/local/bin/workload"},
    {IPS2_EV_MODULE,
     1020,
     0,
     0,
     0x7f0000000000ull,
     2,
     {0x7f0000028000ull, 0x7f00001bd000ull},
     "/lib/x86_64-linux-gnu/libc.so.6"},
    {IPS2_EV_ENTER, 1100, 1, 60, 0x401000, 0, {0}, NULL},
    {IPS2_EV_ENTER, 1150, 0, 0, 0x401200, 0, {0}, NULL},
    {IPS2_EV_EXIT, 1200, 0, 0, 0x401200, 0, {0}, NULL},
    {IPS2_EV_THREAD_CREATE, 1300, 1, 70, 1, 0, {0}, NULL},
    {IPS2_EV_THREAD_START, 1310, 1, 0, 4242, 1, {1}, NULL},
    {IPS2_EV_JOIN_BEGIN, 1400, 1, 80, 1, 0, {0}, NULL},
    {IPS2_EV_JOIN_END, 1500, 1, 81, 4244, 1, {0}, NULL},
    {IPS2_EV_FORK, 1600, 1, 90, 4300, 0, {0}, NULL},
    {IPS2_EV_EXEC_FAILED, 1700, 1, 95, ENOENT, 0, {0}, NULL},
    {IPS2_EV_EXEC, 1800, 1, 99, 0, 0, {0}, "/bin/echo"},
    {IPS2_EV_LOST, 1900, 0, 0, 12345, 0, {0}, NULL},
    {IPS2_EV_EXIT, 1950, 1, 120, 0x401000, 0, {0}, NULL},
    /* Extremes: the largest payload and words, a timer going backwards. */
    {IPS2_EV_ENTER, 1940, 1, UINT64_MAX, IPS2_PAYLOAD_MASK, 0, {0}, NULL},
    {IPS2_EV_THREAD_EXIT,
     UINT64_MAX,
     1,
     0,
     IPS2_EXIT_CALL,
     3,
     {UINT64_MAX, 0, 0x8000000000000000ull},
     NULL},
    {IPS2_EV_PROC_EXIT, 0, 1, 130, IPS2_EXIT_SIGNAL, 1, {9}, NULL},
    /* counted lock holds: the counts as written in place */
    {IPS2_EV_LOCK_COUNTED, 2000, 0, 0, 0x7fff12345678ull, 2, {1000000, 999999}, NULL},
};
#define N_EVERY (sizeof(every_kind) / sizeof(every_kind[0]))

static void test_every_kind(void **state)
{
    char raw[512], packed[512], err[IPS2_ERR_MAX];
    struct ips2_file_header h;
    static struct got a[N_EVERY + 1];
    uint64_t words[64];

    (void)state;
    header_for(&h, IPS2_TIMER_MONOTONIC, IPS2_CPU_EXACT);
    tpath(raw, "every.raw");
    tpath(packed, "every.ips2");

    /* Interleave pad records of 8, 16, 24 and 40 bytes. */
    struct ips2_writer *w = ips2_writer_create(raw, &h, err);
    assert_non_null(w);
    uint64_t offsets[N_EVERY], off = IPS2_RAW_HEADER_SIZE;
    for (size_t i = 0; i < N_EVERY; i++) {
        if (i == 3) {
            uint64_t junk[3] = {1, 2, 3};
            assert_int_equal(ips2_writer_emit_word(w, IPS2_RAW_WORD0(IPS2_EV_PAD, 0, 0, 8)), 0);
            assert_int_equal(ips2_writer_emit(w, IPS2_EV_PAD, 77, 0, 0, 16, NULL, 0), 0);
            assert_int_equal(ips2_writer_emit_word(w, IPS2_RAW_WORD0(IPS2_EV_PAD, 0, 0, 24)), 0);
            assert_int_equal(ips2_writer_emit_word(w, ~0ull), 0);
            assert_int_equal(ips2_writer_emit_word(w, 0), 0);
            assert_int_equal(ips2_writer_emit(w, IPS2_EV_PAD, 77, 0, 0, 40, junk, 3), 0);
            off += 8 + 16 + 24 + 40;
        }
        unsigned nw = spec_words(&every_kind[i], words);
        offsets[i] = off;
        off += 8 * (2 + (every_kind[i].has_cpu ? 1 : 0) + nw);
        assert_int_equal(ips2_writer_emit(w, every_kind[i].kind, every_kind[i].timer,
                                          every_kind[i].has_cpu, every_kind[i].cpu,
                                          every_kind[i].payload, words, nw),
                         0);
    }
    assert_int_equal(ips2_writer_data_bytes(w), off - IPS2_RAW_HEADER_SIZE);
    assert_int_equal(ips2_writer_close(w, err), 0);

    struct stat st;
    assert_int_equal(stat(raw, &st), 0);
    assert_int_equal(st.st_size, off);

    /* The header, raw. */
    struct ips2_reader *r = ips2_reader_open(raw, err);
    assert_non_null(r);
    const struct ips2_file_header *rh = ips2_reader_header(r);
    assert_int_equal(rh->version, IPS2_VERSION);
    assert_int_equal(rh->header_size, IPS2_RAW_HEADER_SIZE);
    assert_int_equal(rh->encoding, IPS2_ENC_RAW);
    assert_int_equal(rh->state, IPS2_STATE_CLOSED);
    assert_int_equal(rh->data_bytes, off - IPS2_RAW_HEADER_SIZE);
    assert_int_equal(rh->pid, 4242);
    assert_int_equal(rh->tid, 4243);
    assert_int_equal(rh->image, 2);
    assert_int_equal(rh->features, IPS2_FEAT_PROC_EVENTS | IPS2_FEAT_TRUNCATED);
    assert_int_equal(rh->cost_ns[IPS2_COST_SYNC], 22);
    assert_string_equal(rh->host, "host-a");
    assert_string_equal(rh->app, "app-b");
    assert_string_equal(rh->exe, "/usr/local/bin/workload");
    assert_false(ips2_reader_unclosed(r));
    ips2_reader_close(r);

    size_t n = read_all(raw, a, N_EVERY + 1);
    assert_int_equal(n, N_EVERY);
    uint64_t last_cpu = 0;
    for (size_t i = 0; i < n; i++) {
        const struct spec *s = &every_kind[i];
        const struct ips2_event *ev = &a[i].ev;
        unsigned nw = spec_words(s, words);
        assert_int_equal(ev->kind, s->kind);
        assert_int_equal(ev->timer, s->timer);
        assert_int_equal(ev->wall_ns, s->timer); /* monotonic timer */
        assert_int_equal(ev->cpu_exact, s->has_cpu);
        if (s->has_cpu)
            last_cpu = s->cpu;
        assert_int_equal(ev->cpu_ns, last_cpu); /* exact method: carried over */
        assert_int_equal(ev->payload, s->payload);
        assert_int_equal(ev->nextra, nw);
        if (nw)
            assert_memory_equal(ev->extra, words, nw * sizeof(uint64_t));
        assert_int_equal(ev->offset, offsets[i]);
    }

    assert_event_string(&a[2].ev, 2, 64, "/usr/local/bin/workload");
    assert_event_string(&a[3].ev, 2, 64, "/lib/x86_64-linux-gnu/libc.so.6");
    assert_event_string(&a[3].ev, 2, 5, "/lib");
    assert_event_string(&a[13].ev, 0, 64, "/bin/echo");
    assert_event_string(&a[13].ev, 2, 64, "");
    assert_event_string(&a[13].ev, 0, 1, "");

    /* Packed: same events; offsets are the block's (the first one). */
    uint64_t poff[N_EVERY];
    assert_int_equal(pack_and_compare(raw, packed, poff, NULL), N_EVERY);
    for (size_t i = 0; i < N_EVERY; i++)
        assert_int_equal(poff[i], sizeof(struct ips2_file_header));

    r = ips2_reader_open(packed, err);
    assert_non_null(r);
    rh = ips2_reader_header(r);
    assert_int_equal(rh->encoding, IPS2_ENC_PACKED);
    assert_int_equal(rh->header_size, sizeof(struct ips2_file_header));
    assert_int_equal(rh->state, IPS2_STATE_CLOSED);
    assert_int_equal(rh->data_bytes, 0);
    assert_int_equal(rh->pid, 4242);
    assert_int_equal(rh->ref_real_ns, 1700000000000000000ull);
    assert_string_equal(rh->exe, "/usr/local/bin/workload");
    assert_false(ips2_reader_unclosed(r));
    ips2_reader_close(r);
}

static void test_string_without_nul(void **state)
{
    struct ips2_event ev;
    uint64_t w[2];

    (void)state;
    memcpy(w, "ABCDEFGHIJKLMNOP", 16);
    memset(&ev, 0, sizeof(ev));
    ev.extra = w;
    ev.nextra = 2;
    assert_event_string(&ev, 0, 32, "ABCDEFGHIJKLMNOP");
    assert_event_string(&ev, 1, 32, "IJKLMNOP");
    ev.nextra = 1;
    assert_event_string(&ev, 0, 32, "ABCDEFGH");
}

static void test_kind_names(void **state)
{
    static const char *const names[] = {
        "none",       "pad",       "sync",         "enter",       "exit",
        "proc-start", "proc-exit", "thread-start", "thread-exit", "thread-create",
        "join-begin", "join-end",  "fork",         "exec",        "exec-failed",
        "module",     "lost",      "enter-short",  "exit-short"};
    static const char *const lock_names[] = {"lock-acquired-short", "lock-release-short",
                                             "lock-held-short"};

    (void)state;
    for (unsigned k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
        assert_true(ips2_kind_known(k));
        assert_string_equal(ips2_kind_name(k), names[k]);
    }
    for (unsigned k = 0; k < 3; k++)
        assert_string_equal(ips2_kind_name(IPS2_EV_LOCK_ACQUIRED_SHORT + k), lock_names[k]);
    assert_int_equal(IPS2_EV_LOCK_ACQUIRED_SHORT, 34);
    assert_int_equal(IPS2_EV_LOCK_HELD_SHORT, 36);
    assert_false(ips2_kind_known(127));
    assert_string_equal(ips2_kind_name(127), "unknown");
    assert_false(ips2_kind_known(128));
    assert_string_equal(ips2_kind_name(128), "unknown");
}

/* ---- wall clock ------------------------------------------------------ */

static void test_wall_tsc(void **state)
{
    const uint64_t big = 1ull << 62;
    const struct spec s[] = {
        /* Before any SYNC: header ref_tsc 1000 <-> ref_mono 5 s, 2.5 GHz. */
        {IPS2_EV_ENTER, 3500, 0, 0, 0x10, 0, {0}, NULL},
        {IPS2_EV_ENTER, 500, 0, 0, 0x10, 0, {0}, NULL},
        {IPS2_EV_SYNC, 1000000, 1, 10, 0, 1, {7000000000ull}, NULL},
        {IPS2_EV_EXIT, 1000025, 0, 0, 0x10, 0, {0}, NULL},
        {IPS2_EV_EXIT, 999750, 0, 0, 0x10, 0, {0}, NULL},
        {IPS2_EV_EXIT, 1000001, 0, 0, 0x10, 0, {0}, NULL},
        {IPS2_EV_EXIT, 999999, 0, 0, 0x10, 0, {0}, NULL},
        /* A far-away SYNC: no overflow in the conversion. */
        {IPS2_EV_SYNC, big, 1, 20, 0, 1, {9000000000ull}, NULL},
        {IPS2_EV_ENTER, big + 7500000000ull, 0, 0, 0x10, 0, {0}, NULL},
        {IPS2_EV_ENTER, big + INT64_MAX, 0, 0, 0x10, 0, {0}, NULL},
        {IPS2_EV_ENTER, UINT64_MAX, 0, 0, 0x10, 0, {0}, NULL}, /* a negative delta */
        {IPS2_EV_ENTER, 0, 0, 0, 0x10, 0, {0}, NULL},
    };
    const uint64_t want[] = {
        5000001000ull,
        4999999800ull,
        7000000000ull,
        7000000010ull,
        6999999900ull,
        7000000000ull, /* 0.4 ns truncates */
        7000000000ull, /* -0.4 ns truncates toward zero */
        9000000000ull,
        12000000000ull,
        /* (2^63 - 1) ticks / 2.5 GHz = 3689348814.7419103228 s */
        9000000000ull + 3689348814741910322ull,
        /* UINT64_MAX - 2^62 is a delta of -(2^62 + 1) ticks, which would be
         * clamped at 0; but the timer went forward, so the wall stays */
        9000000000ull + 3689348814741910322ull,
        /* the timer went back: converted as it is (clamped at 0) */
        0,
    };
    const size_t n = sizeof(s) / sizeof(s[0]);
    char raw[512], packed[512];
    struct ips2_file_header h;
    static struct got a[16];

    (void)state;
    header_for(&h, IPS2_TIMER_TSC, IPS2_CPU_EXACT);
    write_specs(tpath(raw, "tsc.raw"), &h, s, n);
    assert_int_equal(read_all(raw, a, 16), n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(a[i].ev.wall_ns, want[i]);
    assert_int_equal(pack_and_compare(raw, tpath(packed, "tsc.ips2"), NULL, NULL), n);

    /* 3 GHz: one tick is a third of a nanosecond. */
    h.tsc_hz = 3000000000ull;
    const struct spec t[] = {
        {IPS2_EV_ENTER, 1000 + 10, 0, 0, 0x10, 0, {0}, NULL},
        {IPS2_EV_ENTER, 1000 + 3000000000ull, 0, 0, 0x10, 0, {0}, NULL},
        {IPS2_EV_ENTER, 1000 + 3000000002ull, 0, 0, 0x10, 0, {0}, NULL},
    };
    write_specs(raw, &h, t, 3);
    assert_int_equal(read_all(raw, a, 16), 3);
    assert_int_equal(a[0].ev.wall_ns, 5000000003ull);
    assert_int_equal(a[1].ev.wall_ns, 6000000000ull);
    assert_int_equal(a[2].ev.wall_ns, 6000000000ull);

    /* 1 Hz: the wall time clamps at UINT64_MAX rather than wrapping. */
    h.tsc_hz = 1;
    h.ref_tsc = 0;
    h.ref_mono_ns = 0;
    const struct spec u[] = {
        {IPS2_EV_ENTER, 18446744073ull, 0, 0, 0x10, 0, {0}, NULL},
        {IPS2_EV_ENTER, 18446744074ull, 0, 0, 0x10, 0, {0}, NULL},
    };
    write_specs(raw, &h, u, 2);
    assert_int_equal(read_all(raw, a, 16), 2);
    assert_int_equal(a[0].ev.wall_ns, 18446744073000000000ull);
    assert_int_equal(a[1].ev.wall_ns, UINT64_MAX);

    /* Monotonic timer: the wall time is the timer, SYNC or not. */
    header_for(&h, IPS2_TIMER_MONOTONIC, IPS2_CPU_EXACT);
    write_specs(raw, &h, s, n);
    assert_int_equal(read_all(raw, a, 16), n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(a[i].ev.wall_ns, s[i].timer);
}

/* ---- CPU time -------------------------------------------------------- */

static void test_cpu_interp(void **state)
{
    const struct spec s[] = {
        {IPS2_EV_ENTER, 100, 0, 0, 0x10, 0, {0}, NULL},          /* before any reading */
        {IPS2_EV_SYNC, 1000, 1, 5000, 0, 1, {1000}, NULL},       /* exact */
        {IPS2_EV_ENTER, 1250, 0, 0, 0x20, 0, {0}, NULL},         /* 5250: ran since */
        {IPS2_EV_ENTER, 1500, 0, 0, 0x30, 0, {0}, NULL},         /* 5500 */
        {IPS2_EV_MODULE, 1999, 0, 0, 1, 2, {2, 3}, "x"},         /* 5999, extras kept */
        {IPS2_EV_SYNC, 2000, 1, 9000, 0, 1, {2000}, NULL},       /* exact */
        {IPS2_EV_EXIT, 2000, 0, 0, 0x30, 0, {0}, NULL},          /* 9000: no CPU progress */
        {IPS2_EV_THREAD_CREATE, 3000, 1, 9000, 1, 0, {0}, NULL}, /* any kind is a reading */
        {IPS2_EV_EXIT, 3100, 0, 0, 0x20, 0, {0}, NULL},          /* 9000: next goes back */
        {IPS2_EV_FORK, 3200, 1, 8000, 77, 0, {0}, NULL},         /* exact, backwards */
        {IPS2_EV_ENTER, 3100, 0, 0, 0x20, 0, {0}, NULL},         /* 8000: before prev */
        {IPS2_EV_ENTER, 3300, 0, 0, 0x20, 0, {0}, NULL},         /* 8100 */
        {IPS2_EV_ENTER, 3500, 0, 0, 0x20, 0, {0}, NULL},         /* 10000: after next */
        {IPS2_EV_SYNC, 3400, 1, 10000, 0, 1, {3400}, NULL},      /* exact */
        {IPS2_EV_EXIT, 3500, 0, 0, 0x20, 0, {0}, NULL},          /* 10000: no next reading */
        {IPS2_EV_EXIT, 3600, 0, 0, 0x20, 0, {0}, NULL},          /* 10000 */
    };
    const uint64_t want[] = {0,    5000, 5250, 5500, 5999,  9000,  9000,  9000,
                             9000, 8000, 8000, 8100, 10000, 10000, 10000, 10000};
    const bool exact[] = {0, 1, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 1, 0, 0};
    const size_t n = sizeof(s) / sizeof(s[0]);
    char raw[512], packed[512];
    struct ips2_file_header h;
    static struct got a[20];
    uint64_t words[64];

    (void)state;
    header_for(&h, IPS2_TIMER_MONOTONIC, IPS2_CPU_INTERP);
    write_specs(tpath(raw, "interp.raw"), &h, s, n);
    assert_int_equal(read_all(raw, a, 20), n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(a[i].ev.kind, s[i].kind);
        assert_int_equal(a[i].ev.timer, s[i].timer);
        assert_int_equal(a[i].ev.payload, s[i].payload);
        assert_int_equal(a[i].ev.cpu_ns, want[i]);
        assert_int_equal(a[i].ev.cpu_exact, exact[i]);
        unsigned nw = spec_words(&s[i], words);
        assert_int_equal(a[i].ev.nextra, nw);
        if (nw)
            assert_memory_equal(a[i].ev.extra, words, nw * sizeof(uint64_t));
    }
    assert_int_equal(pack_and_compare(raw, tpath(packed, "interp.ips2"), NULL, NULL), n);
}

/* More events between two readings than the queue holds: the first 65536
 * get the previous reading, the rest are derived (ran since the reading). */
static void test_cpu_interp_cap(void **state)
{
    const unsigned gap = 70000, cap = 65536;
    char raw[512], packed[512], err[IPS2_ERR_MAX];
    struct ips2_file_header h;
    uint64_t mono = 1;

    (void)state;
    header_for(&h, IPS2_TIMER_MONOTONIC, IPS2_CPU_INTERP);
    struct ips2_writer *w = ips2_writer_create(tpath(raw, "cap.raw"), &h, err);
    assert_non_null(w);
    assert_int_equal(ips2_writer_emit(w, IPS2_EV_SYNC, 1000, 1, 1000, 0, &mono, 1), 0);
    for (unsigned i = 1; i <= gap; i++) {
        uint64_t x = i;
        assert_int_equal(ips2_writer_emit(w, i % 2 ? IPS2_EV_ENTER : IPS2_EV_LOST, 1000 + i, 0, 0,
                                          i, &x, i % 2 ? 0 : 1),
                         0);
    }
    assert_int_equal(
        ips2_writer_emit(w, IPS2_EV_SYNC, 1000 + gap + 1, 1, 1000 + 2 * (gap + 1), 0, &mono, 1), 0);
    assert_int_equal(ips2_writer_close(w, err), 0);
    assert_int_equal(ips2_pack_file(raw, tpath(packed, "cap.ips2"), err), 0);

    for (int pass = 0; pass < 2; pass++) {
        struct ips2_reader *r = ips2_reader_open(pass ? packed : raw, err);
        const struct ips2_event *ev;
        assert_non_null(r);
        assert_int_equal(ips2_reader_next(r, &ev), 1);
        assert_int_equal(ev->kind, IPS2_EV_SYNC);
        assert_int_equal(ev->cpu_ns, 1000);
        for (unsigned i = 1; i <= gap; i++) {
            assert_int_equal(ips2_reader_next(r, &ev), 1);
            assert_int_equal(ev->payload, i);
            assert_int_equal(ev->timer, 1000 + i);
            assert_false(ev->cpu_exact);
            assert_int_equal(ev->cpu_ns, i <= cap ? 1000 : 1000 + i);
            assert_int_equal(ev->nextra, i % 2 ? 0 : 1);
            if (i % 2 == 0)
                assert_int_equal(ev->extra[0], i);
        }
        assert_int_equal(ips2_reader_next(r, &ev), 1);
        assert_true(ev->cpu_exact);
        assert_int_equal(ev->cpu_ns, 1000 + 2 * (gap + 1));
        assert_int_equal(ips2_reader_next(r, &ev), 0);
        ips2_reader_close(r);
    }
}

static void test_cpu_exact_and_tick(void **state)
{
    const struct spec s[] = {
        {IPS2_EV_ENTER, 100, 0, 0, 0x10, 0, {0}, NULL},
        {IPS2_EV_ENTER, 200, 1, 30000000, 0x20, 0, {0}, NULL},
        {IPS2_EV_EXIT, 300, 1, 30000000, 0x20, 0, {0}, NULL},
        {IPS2_EV_EXIT, 400, 0, 0, 0x10, 0, {0}, NULL}, /* missing: carried over */
        {IPS2_EV_SYNC, 500, 1, 40000000, 0, 1, {500}, NULL},
        {IPS2_EV_ENTER, 600, 1, 50000000, 0x10, 0, {0}, NULL},
    };
    const uint64_t want[] = {0, 30000000, 30000000, 30000000, 40000000, 50000000};
    const size_t n = sizeof(s) / sizeof(s[0]);
    static const unsigned methods[] = {IPS2_CPU_EXACT, IPS2_CPU_TICK};
    char raw[512], packed[512];
    struct ips2_file_header h;
    static struct got a[8];

    (void)state;
    for (int m = 0; m < 2; m++) {
        header_for(&h, IPS2_TIMER_MONOTONIC, methods[m]);
        h.cpu_param = 10; /* tick: 10 ms */
        write_specs(tpath(raw, "exact.raw"), &h, s, n);
        assert_int_equal(read_all(raw, a, 8), n);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(a[i].ev.cpu_ns, want[i]);
            assert_int_equal(a[i].ev.cpu_exact, s[i].has_cpu);
        }
        assert_int_equal(pack_and_compare(raw, tpath(packed, "exact.ips2"), NULL, NULL), n);
    }
}

/* ---- packed: many blocks, address table overflow --------------------- */

static void test_packed_many_blocks(void **state)
{
    const size_t n = 300000;
    char raw[512], packed[512], err[IPS2_ERR_MAX];
    struct ips2_file_header h;
    uint64_t *timers = calloc(n, sizeof(uint64_t)), *addrs = calloc(n, sizeof(uint64_t));
    uint64_t *poff = calloc(n, sizeof(uint64_t)), *ptimer = calloc(n, sizeof(uint64_t));
    unsigned char *kinds = calloc(n, 1), *cpus = calloc(n, 1);
    uint64_t t = 1ull << 40, cpu = 0, x[3];

    (void)state;
    assert_true(timers && addrs && poff && ptimer && kinds && cpus);
    header_for(&h, IPS2_TIMER_TSC, IPS2_CPU_INTERP);
    struct ips2_writer *w = ips2_writer_create(tpath(raw, "many.raw"), &h, err);
    assert_non_null(w);
    srand(7);
    for (size_t i = 0; i < n; i++) {
        int d = 100 + rand() % 201;
        if (i % 1000 == 999)
            d = -5000; /* the timer may go backwards (another CPU's TSC) */
        t += (uint64_t)(int64_t)d;
        timers[i] = t;
        /* 5000 distinct addresses: more than a block's table holds. */
        addrs[i] = 0x400000 + (uint64_t)(rand() % 5000) * 0x40;
        if (i % 97 == 0) {
            cpu += 1000 + (uint64_t)(rand() % 1000);
            x[0] = t / 2;
            kinds[i] = IPS2_EV_SYNC;
            cpus[i] = 1;
            addrs[i] = 0;
            assert_int_equal(ips2_writer_emit(w, IPS2_EV_SYNC, t, 1, cpu, 0, x, 1), 0);
        } else if (i % 89 == 0) {
            x[0] = (uint64_t)rand() << 33;
            x[1] = i;
            x[2] = UINT64_MAX - i;
            kinds[i] = IPS2_EV_JOIN_END;
            cpus[i] = i % 2;
            addrs[i] = i;
            assert_int_equal(ips2_writer_emit(w, IPS2_EV_JOIN_END, t, i % 2, cpu, i, x, 3), 0);
        } else {
            kinds[i] = i % 2 ? IPS2_EV_EXIT : IPS2_EV_ENTER;
            cpus[i] = i % 13 == 0;
            assert_int_equal(ips2_writer_emit(w, kinds[i], t, cpus[i], cpu, addrs[i], NULL, 0), 0);
        }
    }
    assert_int_equal(ips2_writer_close(w, err), 0);

    /* The raw stream as written. */
    struct ips2_reader *r = ips2_reader_open(raw, err);
    const struct ips2_event *ev;
    assert_non_null(r);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(ips2_reader_next(r, &ev), 1);
        assert_int_equal(ev->kind, kinds[i]);
        assert_int_equal(ev->timer, timers[i]);
        assert_int_equal(ev->payload, addrs[i]);
        assert_int_equal(ev->cpu_exact, cpus[i]);
        assert_int_equal(ev->nextra, kinds[i] == IPS2_EV_JOIN_END ? 3 : kinds[i] == IPS2_EV_SYNC);
        if (kinds[i] == IPS2_EV_JOIN_END)
            assert_int_equal(ev->extra[2], UINT64_MAX - i);
    }
    assert_int_equal(ips2_reader_next(r, &ev), 0);
    ips2_reader_close(r);

    assert_int_equal(pack_and_compare(raw, tpath(packed, "many.ips2"), poff, ptimer), n);

    /* Walk the blocks: several, each full but the last, events' offsets
     * are their block's, first_timer is right, and the total is n. */
    FILE *f = fopen(packed, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, sizeof(struct ips2_file_header), SEEK_SET), 0);
    struct ips2_block_header bh;
    size_t blocks = 0, events = 0;
    long off = (long)sizeof(struct ips2_file_header);
    while (events < n && fread(&bh, sizeof(bh), 1, f) == 1) {
        assert_int_equal(bh.magic, IPS2_BLOCK_MAGIC_COLS);
        assert_true(bh.raw_len <= IPS2_BLOCK_RAW_MAX);
        if (events + bh.nevents < n)
            assert_true(bh.raw_len > IPS2_BLOCK_RAW_MAX - 3000);
        assert_int_equal(bh.reserved, 0);
        assert_true(events + bh.nevents <= n);
        assert_int_equal(bh.first_timer, ptimer[events]);
        for (size_t i = events; i < events + bh.nevents; i++)
            assert_int_equal(poff[i], (uint64_t)off);
        events += bh.nevents;
        blocks++;
        off += (long)(sizeof(bh) + bh.comp_len);
        assert_int_equal(fseek(f, off, SEEK_SET), 0);
    }
    fclose(f);
    assert_int_equal(events, n);
    assert_true(blocks >= 3);

    struct stat st;
    assert_int_equal(stat(packed, &st), 0);
    assert_int_equal(st.st_size, off);
    free(timers);
    free(addrs);
    free(poff);
    free(ptimer);
    free(kinds);
    free(cpus);
}

/* One-word short records: timer from the latest SYNC, address from the
 * latest long ENTER/EXIT (0 before any). */
static void test_short_records(void **state)
{
    char raw[512], packed[512], err[IPS2_ERR_MAX];
    struct ips2_file_header h;
    static struct got a[16];
    uint64_t mono = 77;
    const uint64_t dmax = (1u << IPS2_SHORT_DELTA_BITS) - 1;

    (void)state;
    header_for(&h, IPS2_TIMER_MONOTONIC, IPS2_CPU_INTERP);
    struct ips2_writer *w = ips2_writer_create(tpath(raw, "short.raw"), &h, err);
    assert_non_null(w);
    assert_int_equal(ips2_writer_emit(w, IPS2_EV_SYNC, 1000000, 1, 100, 0, &mono, 1), 0);
    assert_int_equal(ips2_writer_emit_word(w, IPS2_SHORT_WORD(IPS2_EV_ENTER_SHORT, 5, 0x401000)),
                     0);
    assert_int_equal(ips2_writer_emit(w, IPS2_EV_ENTER, 1000100, 0, 0, 0x7f1234567890ull, NULL, 0),
                     0);
    assert_int_equal(ips2_writer_emit_word(w, IPS2_SHORT_WORD(IPS2_EV_ENTER_SHORT, 200, 0x10)), 0);
    assert_int_equal(
        ips2_writer_emit_word(w, IPS2_SHORT_WORD(IPS2_EV_EXIT_SHORT, dmax, 0xffffffffull)), 0);
    assert_int_equal(ips2_writer_emit(w, IPS2_EV_SYNC, 50000000, 1, 200, 0, &mono, 1), 0);
    assert_int_equal(ips2_writer_emit_word(w, IPS2_SHORT_WORD(IPS2_EV_EXIT_SHORT, 7, 0x34567890)),
                     0);
    assert_int_equal(ips2_writer_emit(w, IPS2_EV_EXIT, 50000100, 0, 0, 0x401000, NULL, 0), 0);
    assert_int_equal(ips2_writer_emit_word(w, IPS2_SHORT_WORD(IPS2_EV_EXIT_SHORT, 9, 0x402000)), 0);
    assert_int_equal(ips2_writer_close(w, err), 0);

    static const struct {
        unsigned kind;
        uint64_t timer, payload, cpu, offset;
    } want[] = {
        {IPS2_EV_SYNC, 1000000, 0, 100, 4096},
        {IPS2_EV_ENTER, 1000005, 0x401000, 105, 4128},
        {IPS2_EV_ENTER, 1000100, 0x7f1234567890ull, 200, 4136},
        {IPS2_EV_ENTER, 1000200, 0x7f1200000010ull, 200, 4152},
        {IPS2_EV_EXIT, 1000000 + 33554431, 0x7f12ffffffffull, 200, 4160},
        {IPS2_EV_SYNC, 50000000, 0, 200, 4168},
        {IPS2_EV_EXIT, 50000007, 0x7f1234567890ull, 200, 4200},
        {IPS2_EV_EXIT, 50000100, 0x401000, 200, 4208},
        {IPS2_EV_EXIT, 50000009, 0x402000, 200, 4224},
    };
    const size_t n = sizeof(want) / sizeof(want[0]);
    assert_int_equal(read_all(raw, a, 16), n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(a[i].ev.kind, want[i].kind);
        assert_int_equal(a[i].ev.timer, want[i].timer);
        assert_int_equal(a[i].ev.payload, want[i].payload);
        assert_int_equal(a[i].ev.cpu_ns, want[i].cpu);
        assert_int_equal(a[i].ev.cpu_exact, want[i].kind == IPS2_EV_SYNC);
        assert_int_equal(a[i].ev.offset, want[i].offset);
        assert_int_equal(a[i].ev.nextra, want[i].kind == IPS2_EV_SYNC ? 1 : 0);
    }
    assert_int_equal(pack_and_compare(raw, tpath(packed, "short.ips2"), NULL, NULL), n);
}

/* Short lock records (FORMAT.md section 3): a stream written with them
 * reads back to exactly the events of the same stream written with long
 * records only, raw and packed; the packed header drops SHORT_LOCKS. */
static void test_short_locks(void **state)
{
    char rs[512], rl[512], packed[512], err[IPS2_ERR_MAX];
    struct ips2_file_header h;
    static struct got a[64], b[64];
    const uint64_t A = 0x7f00000010c0ull, C = IPS2_SYNC_KEY_SHARED | 17, D = 0x5555000000a8ull;
    const uint64_t dmax = (1u << IPS2_SHORT_DELTA_BITS) - 1;
    const uint64_t smax = (1ull << IPS2_LOCK_SEQ_BITS) - 1;
    const uint64_t hmax = (1ull << IPS2_LOCK_HELD_HOLD_BITS) - 1;
    uint64_t B = A + 8;
    uint64_t m1 = 5000000000ull, m2 = 5001000000ull;

    (void)state;
    while (IPS2_LOCK_SLOT(B) != IPS2_LOCK_SLOT(A)) /* B shares A's slot */
        B += 8;
    assert_true(IPS2_LOCK_SLOT(C) != IPS2_LOCK_SLOT(A));
    assert_true(IPS2_LOCK_SLOT(D) != IPS2_LOCK_SLOT(A) && IPS2_LOCK_SLOT(D) != IPS2_LOCK_SLOT(C));
    const unsigned sa = IPS2_LOCK_SLOT(A), sc = IPS2_LOCK_SLOT(C);

    header_for(&h, IPS2_TIMER_TSC, IPS2_CPU_INTERP);
    h.features |= IPS2_FEAT_SHORT_LOCKS;
    struct ips2_writer *ws = ips2_writer_create(tpath(rs, "slock.raw"), &h, err);
    assert_non_null(ws);
    h.features &= ~IPS2_FEAT_SHORT_LOCKS;
    struct ips2_writer *wl = ips2_writer_create(tpath(rl, "llock.raw"), &h, err);
    assert_non_null(wl);

    /* both: a long record */
#define BOTH(kind, timer, cpu, key, n, ...)                                                        \
    do {                                                                                           \
        const uint64_t x_[] = {__VA_ARGS__};                                                       \
        assert_int_equal(ips2_writer_emit(ws, kind, timer, cpu != 0, cpu, key, x_, n), 0);         \
        assert_int_equal(ips2_writer_emit(wl, kind, timer, cpu != 0, cpu, key, x_, n), 0);         \
    } while (0)
    /* a short word here, the long record(s) it stands for there */
#define SHORT(word, kind, timer, key, seq)                                                         \
    do {                                                                                           \
        const uint64_t x_ = (seq);                                                                 \
        if ((word) != 0)                                                                           \
            assert_int_equal(ips2_writer_emit_word(ws, word), 0);                                  \
        assert_int_equal(ips2_writer_emit(wl, kind, timer, 0, 0, key, &x_, 1), 0);                 \
    } while (0)

    BOTH(IPS2_EV_SYNC, 1000, 100, 0, 1, m1);
    BOTH(IPS2_EV_LOCK_ACQUIRED, 1010, 0, A, 1, 5);
    SHORT(IPS2_LOCK_WORD(IPS2_EV_LOCK_RELEASE_SHORT, 20, sa, 1), IPS2_EV_LOCK_RELEASE, 1020, A, 6);
    SHORT(IPS2_LOCK_HELD_WORD(30, sa, 2, 7), IPS2_EV_LOCK_ACQUIRED, 1030, A, 8);
    SHORT(0, IPS2_EV_LOCK_RELEASE, 1037, A, 9);
    BOTH(IPS2_EV_LOCK_RELEASE, 1040, 0, B, 1, 100);
    SHORT(IPS2_LOCK_WORD(IPS2_EV_LOCK_ACQUIRED_SHORT, 50, sa, 0), IPS2_EV_LOCK_ACQUIRED, 1050, B,
          100);
    BOTH(IPS2_EV_LOCK_ACQUIRED, 1060, 150, C, 2, 3, 999);
    BOTH(IPS2_EV_LOCK_ACQUIRED_SHARED, 1070, 0, D, 1, 7);
    SHORT(IPS2_LOCK_WORD(IPS2_EV_LOCK_RELEASE_SHORT, 80, sc, 1), IPS2_EV_LOCK_RELEASE, 1080, C, 4);
    assert_int_equal(ips2_writer_emit_word(ws, IPS2_SHORT_WORD(IPS2_EV_ENTER_SHORT, 85, 0x1000)),
                     0);
    assert_int_equal(ips2_writer_emit(wl, IPS2_EV_ENTER, 1085, 0, 0, 0x1000, NULL, 0), 0);
    SHORT(IPS2_LOCK_HELD_WORD(90, sa, 63, hmax), IPS2_EV_LOCK_ACQUIRED, 1090, B, 163);
    SHORT(0, IPS2_EV_LOCK_RELEASE, 1090 + hmax, B, 164);
    BOTH(IPS2_EV_SYNC, 2000000, 300, 0, 1, m2);
    /* the largest deltas, and a seq that wraps */
    SHORT(IPS2_LOCK_WORD(IPS2_EV_LOCK_ACQUIRED_SHORT, dmax, sc, smax), IPS2_EV_LOCK_ACQUIRED,
          2000000 + dmax, C, 4 + smax);
    BOTH(IPS2_EV_LOCK_RELEASE, 2000100, 0, C, 1, UINT64_MAX);
    SHORT(IPS2_LOCK_WORD(IPS2_EV_LOCK_RELEASE_SHORT, 200, sc, 2), IPS2_EV_LOCK_RELEASE, 2000200, C,
          1);
    BOTH(IPS2_EV_SYNC, 3000000, 400, 0, 1, m2 + 1000000);
#undef BOTH
#undef SHORT
    assert_int_equal(ips2_writer_close(ws, err), 0);
    assert_int_equal(ips2_writer_close(wl, err), 0);

    size_t n = read_all(rl, b, 64);
    assert_int_equal(read_all(rs, a, 64), n);
    assert_int_equal(n, 18);
    for (size_t i = 0; i < n; i++)
        assert_same_event(&a[i].ev, &b[i].ev);
    /* a few by value: the hold's two events share its word's offset */
    assert_int_equal(a[3].ev.kind, IPS2_EV_LOCK_ACQUIRED);
    assert_int_equal(a[3].ev.timer, 1030);
    assert_int_equal(a[3].ev.extra[0], 8);
    assert_int_equal(a[4].ev.kind, IPS2_EV_LOCK_RELEASE);
    assert_int_equal(a[4].ev.timer, 1037);
    assert_int_equal(a[4].ev.extra[0], 9);
    assert_int_equal(a[4].ev.offset, a[3].ev.offset);
    assert_int_equal(a[6].ev.payload, B);
    assert_int_equal(a[16].ev.extra[0], 1);
    assert_int_equal(a[16].ev.payload, C);
    assert_int_equal(a[14].ev.extra[0], 4 + smax);

    /* packed: the same events, and no SHORT_LOCKS bit */
    assert_int_equal(pack_and_compare(rs, tpath(packed, "slock.ips2"), NULL, NULL), n);
    struct ips2_reader *r = ips2_reader_open(packed, err);
    assert_non_null(r);
    assert_int_equal(ips2_reader_header(r)->features & IPS2_FEAT_SHORT_LOCKS, 0);
    ips2_reader_close(r);
    assert_int_equal(read_all(packed, b, 64), n);
    for (size_t i = 0; i < n; i++)
        assert_same_event(&a[i].ev, &b[i].ev);
}

/* A stream whose writer died: state OPEN, zero-filled tail. */
static void test_unclosed_raw(void **state)
{
    const struct spec s[] = {
        {IPS2_EV_SYNC, 1000, 1, 5, 0, 1, {1000}, NULL},
        {IPS2_EV_ENTER, 1100, 0, 0, 0x10, 0, {0}, NULL},
        {IPS2_EV_EXIT, 1200, 0, 0, 0x10, 0, {0}, NULL},
    };
    char raw[512], packed[512], err[IPS2_ERR_MAX];
    struct ips2_file_header h;
    static struct got a[8];
    static const unsigned char zeros[8192];
    uint32_t open_state = IPS2_STATE_OPEN;
    uint64_t zero = 0;

    (void)state;
    header_for(&h, IPS2_TIMER_MONOTONIC, IPS2_CPU_EXACT);
    write_specs(tpath(raw, "unclosed.raw"), &h, s, 3);
    int fd = open(raw, O_RDWR);
    assert_true(fd >= 0);
    assert_int_equal(pwrite(fd, &open_state, 4, offsetof(struct ips2_file_header, state)), 4);
    assert_int_equal(pwrite(fd, &zero, 8, offsetof(struct ips2_file_header, data_bytes)), 8);
    /* The rest of the writer's window: zeros, then stale junk. */
    off_t end = lseek(fd, 0, SEEK_END);
    assert_int_equal(pwrite(fd, zeros, sizeof(zeros), end), (ssize_t)sizeof(zeros));
    assert_int_equal(pwrite(fd, "junkjunk", 8, end + 16), 8);
    close(fd);

    struct ips2_reader *r = ips2_reader_open(raw, err);
    assert_non_null(r);
    assert_true(ips2_reader_unclosed(r));
    ips2_reader_close(r);
    assert_int_equal(read_all(raw, a, 8), 3);
    assert_int_equal(a[2].ev.timer, 1200);
    assert_int_equal(pack_and_compare(raw, tpath(packed, "unclosed.ips2"), NULL, NULL), 3);
}

/* A closed stream: data_bytes bounds the records even if more follow. */
static void test_closed_bounds(void **state)
{
    const struct spec s[] = {
        {IPS2_EV_ENTER, 1100, 0, 0, 0x10, 0, {0}, NULL},
        {IPS2_EV_EXIT, 1200, 0, 0, 0x10, 0, {0}, NULL},
    };
    char raw[512];
    struct ips2_file_header h;
    static struct got a[8];
    uint64_t rec[2];

    (void)state;
    header_for(&h, IPS2_TIMER_MONOTONIC, IPS2_CPU_EXACT);
    write_specs(tpath(raw, "bounds.raw"), &h, s, 2);
    ips2_record_put(rec, IPS2_EV_ENTER, 1300, 0, 0, 0x20, NULL, 0);
    int fd = open(raw, O_WRONLY | O_APPEND);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, rec, sizeof(rec)), (ssize_t)sizeof(rec));
    close(fd);
    assert_int_equal(read_all(raw, a, 8), 2);
    assert_int_equal(a[1].ev.timer, 1200);
}

/* An empty closed stream, raw and packed. */
static void test_empty_stream(void **state)
{
    char raw[512], packed[512];
    struct ips2_file_header h;
    static struct got a[2];
    struct stat st;

    (void)state;
    header_for(&h, IPS2_TIMER_TSC, IPS2_CPU_INTERP);
    write_specs(tpath(raw, "empty.raw"), &h, NULL, 0);
    assert_int_equal(read_all(raw, a, 2), 0);
    assert_int_equal(pack_and_compare(raw, tpath(packed, "empty.ips2"), NULL, NULL), 0);
    assert_int_equal(stat(packed, &st), 0);
    assert_int_equal(st.st_size, sizeof(struct ips2_file_header));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_varint),
        cmocka_unit_test(test_every_kind),
        cmocka_unit_test(test_string_without_nul),
        cmocka_unit_test(test_kind_names),
        cmocka_unit_test(test_wall_tsc),
        cmocka_unit_test(test_cpu_interp),
        cmocka_unit_test(test_cpu_interp_cap),
        cmocka_unit_test(test_cpu_exact_and_tick),
        cmocka_unit_test(test_packed_many_blocks),
        cmocka_unit_test(test_short_records),
        cmocka_unit_test(test_short_locks),
        cmocka_unit_test(test_unclosed_raw),
        cmocka_unit_test(test_closed_bounds),
        cmocka_unit_test(test_empty_stream),
    };
    return cmocka_run_group_tests(tests, setup_dir, scratch_remove);
}
