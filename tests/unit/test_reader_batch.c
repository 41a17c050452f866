/*
 * test_reader_batch.c - the reader's two ways of handing out events
 * (ips2_reader.h): ips2_reader_next(), one at a time, and
 * ips2_reader_next_batch(), several at a time, must give the same events
 * field by field, with every event of a batch (its extra words too) valid
 * until the next call, across batch boundaries, interpolation queues that
 * fill up, CPU methods, short lock records, and a damaged record (the
 * events before it, then -1 on every call).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "scratch.h"
#include "xorshift.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ips2_format.h"
#include "ips2_reader.h"
#include "ips2_record.h"
#include "ips2_writer.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t rnd(void)
{
    return xorshift64(&rng);
}

/* The events written, as the reader must give them back. */
struct want {
    unsigned kind, nextra;
    bool has_cpu;
    uint64_t timer, cpu, payload, extra[3];
};
static struct want *wants;
static size_t nwants;

static void want(unsigned kind, uint64_t timer, bool has_cpu, uint64_t cpu, uint64_t payload,
                 const uint64_t *extra, unsigned nextra)
{
    struct want *x = &wants[nwants++];

    x->kind = kind;
    x->timer = timer;
    x->has_cpu = has_cpu;
    x->cpu = cpu;
    x->payload = payload;
    x->nextra = nextra;
    if (nextra)
        memcpy(x->extra, extra, nextra * sizeof(uint64_t));
}

/* A random stream: short and long procedure records, other events with
 * and without CPU readings and with extra words, short lock records,
 * sync points every `sync_every` records; a record of an unknown kind
 * after `bad_after` records (0: none), where the reading stops.  The
 * events the reader must give are in wants[]. */
static void write_stream(const char *path, unsigned cpu_method, unsigned timer, unsigned nrec,
                         unsigned sync_every, unsigned bad_after)
{
    struct ips2_file_header h;
    char err[IPS2_ERR_MAX];

    ips2_header_init(&h, IPS2_ENC_RAW, IPS2_STREAM_THREAD);
    h.cpu_method = (uint8_t)cpu_method;
    h.cpu_param = 1000;
    h.timer = timer;
    h.tsc_hz = timer == IPS2_TIMER_TSC ? 2594176815ull : 0;
    h.features = IPS2_FEAT_PROC_EVENTS | IPS2_FEAT_SHORT_LOCKS;
    h.ref_tsc = 1000;
    h.ref_mono_ns = 5000;
    h.pid = h.tid = 1;
    struct ips2_writer *w = ips2_writer_create(path, &h, err);
    if (!w)
        fail_msg("%s", err);
    uint64_t t = 1000, cpu = 100, sync_t = 0, seq = 0, addr_base = 0;
    const uint64_t base = 0x7f0000000000ull, lock = 0x601040;
    bool reading = true; /* before the damage */

    wants = realloc(wants, (size_t)nrec * 2 * sizeof(*wants));
    nwants = 0;
    for (unsigned i = 0; i < nrec; i++) {
        t += rnd() % 100;
        cpu += rnd() % 50;
        if (bad_after && i == bad_after) {
            assert_int_equal(ips2_writer_emit_word(w, 0x7e), 0); /* kind 126: unknown */
            reading = false;
        }
        if (i % sync_every == 0) {
            uint64_t mono = 5000 + t;
            assert_int_equal(ips2_writer_emit(w, IPS2_EV_SYNC, t, 1, cpu, 0, &mono, 1), 0);
            if (reading)
                want(IPS2_EV_SYNC, t, true, cpu, 0, &mono, 1);
            sync_t = t;
            if (i == 0) { /* bind the lock's slot */
                assert_int_equal(ips2_writer_emit(w, IPS2_EV_LOCK_ACQUIRED, t, 0, 0, lock, &seq, 1),
                                 0);
                want(IPS2_EV_LOCK_ACQUIRED, t, false, 0, lock, &seq, 1);
            }
            continue;
        }
        unsigned x = (unsigned)(rnd() % 100);
        unsigned kind = x & 1 ? IPS2_EV_ENTER : IPS2_EV_EXIT;
        if (x < 5) {
            uint64_t words[3] = {rnd(), rnd(), rnd()};
            assert_int_equal(ips2_writer_emit(w, IPS2_EV_THREAD_CREATE, t, (int)(x & 1), cpu, x,
                                              words, 1 + x % 3),
                             0);
            if (reading)
                want(IPS2_EV_THREAD_CREATE, t, x & 1, cpu, x, words, 1 + x % 3);
        } else if (x < 8) { /* the next release of the lock */
            assert_int_equal(
                ips2_writer_emit_word(w, IPS2_LOCK_WORD(IPS2_EV_LOCK_RELEASE_SHORT, t - sync_t,
                                                        IPS2_LOCK_SLOT(lock), 1)),
                0);
            seq++;
            if (reading)
                want(IPS2_EV_LOCK_RELEASE, t, false, 0, lock, &seq, 1);
        } else if (x < 10) {
            assert_int_equal(ips2_writer_emit(w, kind, t, 0, 0, base + 0x40 * (x & 7), NULL, 0), 0);
            addr_base = IPS2_SHORT_BASE(base);
            if (reading)
                want(kind, t, false, 0, base + 0x40 * (x & 7), NULL, 0);
        } else {
            assert_int_equal(ips2_writer_emit_word(w, IPS2_SHORT_WORD(x & 1 ? IPS2_EV_ENTER_SHORT
                                                                            : IPS2_EV_EXIT_SHORT,
                                                                      t - sync_t, 0x40 * (x & 7))),
                             0);
            if (reading)
                want(kind, t, false, 0, addr_base + 0x40 * (x & 7), NULL, 0);
        }
    }
    if (ips2_writer_close(w, err) != 0)
        fail_msg("%s", err);
}

/* The events read are the events written, each once, in order: kinds,
 * timers, payloads, extra words, recorded CPU readings; walls and CPU
 * times never go back (the timers and readings written do not), offsets
 * grow. */
static void check_written(const struct ips2_event *evs, size_t n)
{
    assert_int_equal(n, nwants);
    for (size_t i = 0; i < n; i++) {
        const struct ips2_event *e = &evs[i];
        const struct want *x = &wants[i];
        if (e->kind != x->kind || e->timer != x->timer || e->payload != x->payload ||
            e->nextra != x->nextra || e->cpu_exact != x->has_cpu ||
            (x->has_cpu && e->cpu_ns != x->cpu) ||
            (x->nextra && memcmp(e->extra, x->extra, x->nextra * sizeof(uint64_t))))
            fail_msg("event %zu: kind %u timer %llu payload 0x%llx, expected kind %u timer %llu "
                     "payload 0x%llx",
                     i, e->kind, (unsigned long long)e->timer, (unsigned long long)e->payload,
                     x->kind, (unsigned long long)x->timer, (unsigned long long)x->payload);
        if (i > 0) {
            assert_true(e->wall_ns >= evs[i - 1].wall_ns);
            assert_true(e->cpu_ns >= evs[i - 1].cpu_ns);
            assert_true(e->offset > evs[i - 1].offset ||
                        (e->offset == evs[i - 1].offset && e->kind == IPS2_EV_LOCK_RELEASE));
        }
    }
}

static void same_event(const struct ips2_event *a, const struct ips2_event *b, size_t i)
{
    if (a->kind != b->kind || a->cpu_exact != b->cpu_exact || a->timer != b->timer ||
        a->wall_ns != b->wall_ns || a->cpu_ns != b->cpu_ns || a->payload != b->payload ||
        a->nextra != b->nextra || a->offset != b->offset ||
        (a->nextra && memcmp(a->extra, b->extra, a->nextra * sizeof(uint64_t))))
        fail_msg("event %zu differs: kind %u/%u wall %llu/%llu cpu %llu/%llu", i, a->kind, b->kind,
                 (unsigned long long)a->wall_ns, (unsigned long long)b->wall_ns,
                 (unsigned long long)a->cpu_ns, (unsigned long long)b->cpu_ns);
}

/* Reads path one event at a time into a copy (extra words too); returns
 * the count, and the final return code in *rc. */
static size_t read_one_by_one(const char *path, struct ips2_event **evs, uint64_t **words, int *rc,
                              char *error)
{
    char err[IPS2_ERR_MAX];
    struct ips2_reader *r = ips2_reader_open(path, err);
    const struct ips2_event *ev;
    size_t n = 0, cap = 1024, nw = 0, capw = 4096;

    assert_non_null(r);
    *evs = malloc(cap * sizeof(**evs));
    *words = malloc(capw * sizeof(**words));
    while ((*rc = ips2_reader_next(r, &ev)) == 1) {
        if (n == cap)
            *evs = realloc(*evs, (cap *= 2) * sizeof(**evs));
        while (nw + ev->nextra > capw)
            *words = realloc(*words, (capw *= 2) * sizeof(**words));
        (*evs)[n] = *ev;
        memcpy(*words + nw, ev->extra, ev->nextra * sizeof(uint64_t));
        (*evs)[n++].extra = (const uint64_t *)(uintptr_t)nw; /* an index until the end */
        nw += ev->nextra;
    }
    assert_null(ev);
    snprintf(error, IPS2_ERR_MAX, "%s", ips2_reader_error(r));
    assert_int_equal(ips2_reader_next(r, &ev), *rc); /* it stays at the end */
    ips2_reader_close(r);
    for (size_t i = 0; i < n; i++)
        (*evs)[i].extra = *words + (uintptr_t)(*evs)[i].extra;
    return n;
}

/* Reads path in batches and compares with the events one by one. */
static void compare(const char *path, size_t min_events, int want_rc)
{
    struct ips2_event *one;
    uint64_t *words;
    char err[IPS2_ERR_MAX], error1[IPS2_ERR_MAX];
    int rc1, rc;
    size_t n1 = read_one_by_one(path, &one, &words, &rc1, error1);
    check_written(one, n1);
    struct ips2_reader *r = ips2_reader_open(path, err);
    const struct ips2_event *evs;
    size_t n, total = 0, batches = 0;

    assert_non_null(r);
    while ((rc = ips2_reader_next_batch(r, &evs, &n)) == 1) {
        assert_true(n >= 1);
        assert_true(total + n <= n1);
        /* every event of the batch is valid until the next call */
        for (size_t i = 0; i < n; i++)
            same_event(&one[total + i], &evs[i], total + i);
        total += n;
        batches++;
    }
    assert_null(evs);
    assert_int_equal(n, 0);
    assert_int_equal(rc, rc1);
    assert_int_equal(rc, want_rc);
    assert_int_equal(total, n1);
    assert_true(total >= min_events);
    assert_true(batches > 1);
    assert_string_equal(ips2_reader_error(r), error1);
    assert_int_equal(ips2_reader_next_batch(r, &evs, &n), rc); /* it stays at the end */
    ips2_reader_close(r);
    free(one);
    free(words);
}

static int setup(void **state)
{
    (void)state;
    return scratch_make("batch");
}

static int teardown(void **state)
{
    scratch_empty(state);
    return rmdir(scratch_dir);
}

static void test_interp(void **state)
{
    char path[600];

    (void)state;
    snprintf(path, sizeof(path), "%s/interp.raw", scratch_dir);
    write_stream(path, IPS2_CPU_INTERP, IPS2_TIMER_TSC, 100000, 4096, 0);
    compare(path, 90000, 0);
}

/* More events between two readings than the queue holds. */
static void test_queue_full(void **state)
{
    char path[600];

    (void)state;
    snprintf(path, sizeof(path), "%s/full.raw", scratch_dir);
    write_stream(path, IPS2_CPU_INTERP, IPS2_TIMER_MONOTONIC, 200000, 150000, 0);
    compare(path, 190000, 0);
}

static void test_exact_and_tick(void **state)
{
    char path[600];

    (void)state;
    snprintf(path, sizeof(path), "%s/exact.raw", scratch_dir);
    write_stream(path, IPS2_CPU_EXACT, IPS2_TIMER_TSC, 20000, 500, 0);
    compare(path, 19000, 0);
    snprintf(path, sizeof(path), "%s/tick.raw", scratch_dir);
    write_stream(path, IPS2_CPU_TICK, IPS2_TIMER_MONOTONIC, 20000, 500, 0);
    compare(path, 19000, 0);
}

static void test_damaged(void **state)
{
    char path[600];

    (void)state;
    snprintf(path, sizeof(path), "%s/damaged.raw", scratch_dir);
    write_stream(path, IPS2_CPU_INTERP, IPS2_TIMER_TSC, 30000, 4096, 20000);
    compare(path, 19000, -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interp),
        cmocka_unit_test(test_queue_full),
        cmocka_unit_test(test_exact_and_tick),
        cmocka_unit_test(test_damaged),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
