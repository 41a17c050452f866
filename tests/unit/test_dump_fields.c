/*
 * test_dump_fields.c - the readable decoding of events (traces/dump_fields.c)
 * that ips2-dump prints: events built by hand, word by word as FORMAT.md
 * sections 9.1-9.3 define them, must print exactly the expected text:
 * endpoints (IPv4-mapped, IPv6, Unix, pipes), keys, byte ranges, waits
 * through both timers, errno and PVM error names, strings escaped, and
 * events cut short.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump_fields.h"
#include "ips2_format.h"
#include "ips2_reader.h"
#include "ips2_record.h"

#define MAXW 16

/* An IPv4 endpoint written IPv4-mapped: a.b.c.d:port. */
#define V4(a, b, c, d, port)                                                                       \
    (10ULL | ((uint64_t)(port) << 32)), 0,                                                         \
        (0xffff00000000ULL | ((uint64_t)(a) << 24) | ((b) << 16) | ((c) << 8) | (d))

/* Decodes an event of kind with payload and the given words; returns the
 * text (static, valid until the next call) or NULL when the kind has no
 * table. */
static const char *decode(const struct ips2_file_header *h, unsigned kind, uint64_t timer,
                          uint64_t cpu_ns, uint64_t payload, unsigned n, const uint64_t *words)
{
    static char text[4096];
    struct ips2_event ev = {.kind = kind,
                            .timer = timer,
                            .cpu_ns = cpu_ns,
                            .payload = payload,
                            .nextra = n,
                            .extra = words};
    char *buf = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buf, &size);

    assert_non_null(out);
    bool known = ips2_dump_fields(out, &ev, h);
    assert_int_equal(fclose(out), 0);
    snprintf(text, sizeof(text), "%s", buf);
    free(buf);
    if (!known) {
        assert_string_equal(text, "");
        return NULL;
    }
    return text;
}

#define DECODE(h, kind, timer, cpu, payload, ...)                                                  \
    decode(h, kind, timer, cpu, payload, sizeof((uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t),     \
           (uint64_t[]){__VA_ARGS__})

static struct ips2_file_header mono_header(void)
{
    struct ips2_file_header h;
    ips2_header_init(&h, IPS2_ENC_RAW, IPS2_STREAM_THREAD);
    h.timer = IPS2_TIMER_MONOTONIC;
    return h;
}

static struct ips2_file_header tsc_header(void)
{
    struct ips2_file_header h;
    ips2_header_init(&h, IPS2_ENC_RAW, IPS2_STREAM_THREAD);
    h.timer = IPS2_TIMER_TSC;
    h.tsc_hz = 2000000000; /* 2 ticks per ns */
    return h;
}

static void test_streams(void **state)
{
    (void)state;
    struct ips2_file_header m = mono_header(), t = tsc_header();

    /* recv: key, [offset, offset+bytes), waited = timer - start, call */
    assert_string_equal(
        DECODE(&m, IPS2_EV_RECV, 1014900, 0, 4, 0xc92a15ef8f44944dULL, 0, 64, 0, 1000000, 1),
        "fd 4 key c92a15ef8f44944d bytes [0,64) waited 14.9 us call read");
    /* send failed with EPIPE, through send() with the peek flag set */
    assert_string_equal(
        DECODE(&t, IPS2_EV_SEND, 1000, 0, 7, 1, 100, 0, 32, 0, IPS2_IO_SEND | IPS2_IO_PEEK),
        "fd 7 key 0000000000000001 bytes [100,100) waited 500 ns call send peek error EPIPE "
        "(32)");
    /* accept: the client (peer) to the server (self); TSC 4e6 ticks = 2 ms */
    assert_string_equal(DECODE(&t, IPS2_EV_ACCEPT, 5000000, 0, 4, 0xabcdefULL, 0, 1000000,
                               V4(127, 0, 0, 1, 39171), V4(127, 0, 0, 1, 36003), 3),
                        "fd 4 listener 3 from 127.0.0.1:36003 to 127.0.0.1:39171 key "
                        "0000000000abcdef waited 2.0 ms");
    /* a failed accept: fd 2^48-1 */
    assert_string_equal(
        DECODE(&m, IPS2_EV_ACCEPT, 10, 0, IPS2_PAYLOAD_MASK, 0, 11, 10, 0, 0, 0, 0, 0, 0, 3),
        "fd -1 listener 3 from unknown to unknown key none waited 0 ns error "
        "EAGAIN (11)");
    /* connect over IPv6 (::1 and 2001:db8::5), non-blocking */
    assert_string_equal(DECODE(&m, IPS2_EV_CONNECT, 2500, 0, 3, 0, 115, 1000, 10 | (40000ULL << 32),
                               0, 1, 10 | (8080ULL << 32), 0x20010db800000000ULL, 5),
                        "fd 3 from [::1]:40000 to [2001:db8::5]:8080 key none waited 1.5 us error "
                        "EINPROGRESS (115)");
    /* datagrams between Unix sockets: by inode, by name hash, unnamed */
    assert_string_equal(
        DECODE(&m, IPS2_EV_DGRAM_SEND, 10, 0, 5, 9, 2, 100, 0, 10, 11, 1 | (1 << 16), 0x1234, 0),
        "fd 5 to unix name 0000000000001234 key 0000000000000009 seq 2 bytes 100 "
        "waited 0 ns call sendto");
    assert_string_equal(
        DECODE(&m, IPS2_EV_DGRAM_RECV, 10, 0, 5, 0, 0, 1, 0, 10, 12, 1 | (1 << 16), 0, 0),
        "fd 5 from unix unnamed key none seq 0 bytes 1 waited 0 ns call recvfrom");
    /* chan of a pipe: the endpoint is (st_dev, st_ino); of a Unix stream */
    assert_string_equal(
        DECODE(&m, IPS2_EV_CHAN, 0, 0, 3, IPS2_CHAN_PIPE, 0, 0x28b4, 15, 878436, 0, 0, 0, 0),
        "fd 3 type pipe in 00000000000028b4 self pipe dev 0:15 ino 878436");
    assert_string_equal(DECODE(&m, IPS2_EV_CHAN, 0, 0, 4, IPS2_CHAN_UNIX_STREAM, 1, 2, 1, 880795, 0,
                               1 | (2 << 16), 880794, 0),
                        "fd 4 type unix-stream out 0000000000000001 in 0000000000000002 self unix "
                        "inode 880795 peer unix accepted for inode 880794");
    /* io-wait without a timeout */
    assert_string_equal(
        DECODE(&m, IPS2_EV_IO_WAIT, 100, 0, 1, IPS2_IO_EPOLL_WAIT, 0, 50, 8, UINT64_MAX),
        "ready 1 nfds 8 timeout none waited 50 ns call epoll_wait");
}

static void test_files(void **state)
{
    (void)state;
    struct ips2_file_header m = mono_header();
    uint64_t w[MAXW] = {0, O_RDONLY, 1000, IPS2_CHAN_FILE};

    ips2_string_words(w + 4, MAXW - 4, "/etc/passwd");
    assert_string_equal(decode(&m, IPS2_EV_OPEN, 3000, 0, 5, 6, w),
                        "fd 5 \"/etc/passwd\" flags O_RDONLY type file waited 2.0 us");
    /* a hostile path: quotes, controls and bytes beyond ASCII escaped */
    w[0] = 2;
    w[1] = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | 0x40000000;
    ips2_string_words(w + 4, MAXW - 4, "a\"b\n\t\x1b\xff");
    assert_string_equal(decode(&m, IPS2_EV_OPEN, 3000, 0, IPS2_PAYLOAD_MASK, 6, w),
                        "fd -1 \"a\\\"b\\n\\t\\x1b\\xff\" flags "
                        "O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC|0x40000000 type file waited 2.0 us "
                        "error ENOENT (2)");
    assert_string_equal(
        DECODE(&m, IPS2_EV_FILE_READ, 10, 0, 3, UINT64_MAX, 7, 0, 5, IPS2_IO_PREAD, 1),
        "fd 3 at unknown bytes 7 waited 5 ns call pread type file");
    assert_string_equal(DECODE(&m, IPS2_EV_FILE_SEEK, 10, 0, 3, (uint64_t)-5, 2, 100, 0, 10),
                        "fd 3 offset -5 whence SEEK_END to 100 waited 0 ns");
    assert_string_equal(DECODE(&m, IPS2_EV_CLOSE, 10, 0, 3, 9, 4, IPS2_CHAN_OTHER + 30, 0),
                        "fd 3 type 39 waited 6 ns error EBADF (9)");
}

static void test_sync(void **state)
{
    (void)state;
    struct ips2_file_header m = mono_header();

    /* an acquisition that waited; one that did not (one extra word) */
    assert_string_equal(DECODE(&m, IPS2_EV_LOCK_ACQUIRED, 20000, 0, 0x5000, 3, 8000),
                        "object 0x5000 seq 3 waited 12.0 us");
    assert_string_equal(
        DECODE(&m, IPS2_EV_LOCK_ACQUIRED_SHARED, 20000, 0, IPS2_SYNC_KEY_SHARED | 3, 7),
        "object shared#3 seq 7");
    /* a spin lock: spun = the event's CPU time - the CPU word */
    assert_string_equal(DECODE(&m, IPS2_EV_LOCK_ACQUIRED, 20000, 5000000, 0x5000, 3, 8000, 3000000),
                        "object 0x5000 seq 3 waited 12.0 us spun 2.0 ms");
    assert_string_equal(DECODE(&m, IPS2_EV_SYNC_FAILED, 10, 0, 0x5000, IPS2_SYNC_MUTEX, 16, 0),
                        "object 0x5000 type mutex error EBUSY (16)");
    assert_string_equal(DECODE(&m, IPS2_EV_COND_WAKE, 5000, 0, 0x6000, 0x5000, 4, 5, 4000, 110),
                        "object 0x6000 mutex 0x5000 seq at start 4 seq seen 5 waited 1.0 us "
                        "result ETIMEDOUT (110)");
    assert_string_equal(DECODE(&m, IPS2_EV_BARRIER_DEPART, 10, 0, 0x7000, 2, 1, 4),
                        "object 0x7000 episode 2 serial last waited 6 ns");
    /* a named semaphore's sync-object; a private mutex's (no file) */
    uint64_t w[MAXW] = {IPS2_SYNC_SEM, 0x7f00, (8ULL << 32) | 3, 42, 128};
    ips2_string_words(w + 5, MAXW - 5, "/sem.x");
    assert_string_equal(decode(&m, IPS2_EV_SYNC_OBJECT, 0, 0, IPS2_SYNC_KEY_SHARED | 1, 7, w),
                        "object shared#1 type sem address 0x7f00 dev 8:3 inode 42 offset 128 "
                        "name \"/sem.x\"");
    assert_string_equal(
        DECODE(&m, IPS2_EV_SYNC_OBJECT, 0, 0, 0x5000, IPS2_SYNC_MUTEX, 0x5000, 0, 0, 0),
        "object 0x5000 type mutex address 0x5000");
}

static void test_processes_pvm(void **state)
{
    (void)state;
    struct ips2_file_header m = mono_header(), t = tsc_header();

    /* waitpid: status exited 0; 1.2 ms through the TSC */
    assert_string_equal(DECODE(&t, IPS2_EV_WAIT, 2400000, 0, 123, 0, 0, IPS2_WAIT_WAITPID, 0, 0),
                        "pid 123 exited 0 waited 1.2 ms call waitpid");
    /* killed by SIGTERM; a wait that found no child (no status) */
    assert_string_equal(DECODE(&m, IPS2_EV_WAIT, 10, 0, 124, 15, 0, IPS2_WAIT_WAIT, 0, 0),
                        "pid 124 killed SIGTERM (15) waited 10 ns call wait");
    assert_string_equal(DECODE(&m, IPS2_EV_WAIT, 10, 0, 0, 0, 0, IPS2_WAIT_WAITID, 5, 10),
                        "pid 0 waited 10 ns call waitid options WNOHANG|WEXITED error ECHILD (10)");
    uint64_t w[MAXW] = {IPS2_SPAWN_SYSTEM, 0, 0};
    ips2_string_words(w + 3, MAXW - 3, "exit 20");
    assert_string_equal(decode(&m, IPS2_EV_SPAWN, 1500000, 0, 99, 5, w),
                        "pid 99 \"exit 20\" call system waited 1.5 ms");

    assert_string_equal(
        DECODE(&m, IPS2_EV_PVM_SEND, 0, 0, 0x40002, 7, 0, 1, 64, 0x40001, IPS2_PVM_SEND, 0),
        "to t40002 tag 7 ctx 0 seq 1 bytes 64 from t40001 call pvm_send");
    assert_string_equal(DECODE(&m, IPS2_EV_PVM_RECV, 100, 0, 0, 0xffffffffULL, 0, 0, 0, 0x40001,
                               IPS2_PVM_TRECV, 14, 40),
                        "from none tag -1 ctx 0 seq 0 bytes 0 to t40001 waited 60 ns call "
                        "pvm_trecv error PvmSysErr (-14)");
    uint64_t g[MAXW] = {0x40001, 3, 0, 0};
    ips2_string_words(g + 4, MAXW - 4, "workers");
    assert_string_equal(decode(&m, IPS2_EV_PVM_BARRIER, 0, 0, 0, 6, g),
                        "group \"workers\" count all episode 3 tid t40001 waited 0 ns");
    assert_string_equal(DECODE(&m, IPS2_EV_PVM_EXIT, 0, 0, 0x40001, 99), "tid t40001 error -99");
}

static void test_odd_events(void **state)
{
    (void)state;
    struct ips2_file_header m = mono_header();

    /* cut short: the fields without their words print "?" */
    assert_string_equal(DECODE(&m, IPS2_EV_RECV, 10, 0, 4, 5, 0),
                        "fd 4 key 0000000000000005 bytes ? waited ? call ? error ?");
    /* a start timer after the event */
    assert_string_equal(DECODE(&m, IPS2_EV_VFORK, 10, 0, 77, 0, 20),
                        "pid 77 waited ? (start timer 20 after the event's 10)");
    /* kinds without a table print nothing */
    assert_null(DECODE(&m, IPS2_EV_ENTER, 0, 0, 0x401000, 0));
    assert_null(DECODE(&m, 100, 0, 0, 1, 2));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_streams),    cmocka_unit_test(test_files),
        cmocka_unit_test(test_sync),       cmocka_unit_test(test_processes_pvm),
        cmocka_unit_test(test_odd_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
