/*
 * reduce_raw.c - the fast pass over a raw thread stream.
 *
 * Reducing is dominated by procedure entries and exits, which libips2
 * writes as one-word short records; decoding them through the general
 * reader (ips2_reader_next, one call and one event copy each, a 128-bit
 * division per time value) costs more than the whole reduction.  This
 * decoder gives exactly the reader's events (FORMAT.md sections 3 and 6:
 * the same records, wall times and derived CPU times, including the
 * interpolation queue and its limits; short lock records expanded as the
 * reader does) but decodes the records in a tight
 * loop, converts timer ticks to ns with a multiplication by a reciprocal
 * instead of a 128-bit division, and feeds the shadow stack directly.
 *
 * It decodes only what the reader accepts without complaint.  At anything
 * the reader would call an error, or a header it would not expect here,
 * it declines (returns 1) and the caller reduces the stream again through
 * the reader, which names the error and reduces up to it.
 * tests/unit/test_reduce.c checks both paths against each other.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reduce_internal.h"

#define WINDOW           (1u << 20)
#define QUEUE_MAX_EVENTS 65536u         /* as the reader's */
#define QUEUE_MAX_WORDS  (256u * 1024u) /* as the reader's */
#define FAST_CONV_MAX    (1ull << 34)   /* ticks * 1e9 fits in 64 bits */

/* An event waiting for the next exact CPU reading: 16 bytes, as the queue
 * is written and read once per event.  ENTER and EXIT keep their address
 * and kind in pk; other events keep the index of their record in pool
 * (kind, payload, offset, nextra, then the extra words). */
struct qent {
    uint64_t timer;
    uint64_t pk; /* address | kind << 56, or QE_LONG | pool index */
};
#define QE_LONG        (1ull << 63)
#define QE_PK(k, addr) ((addr) | (uint64_t)(k) << 56)
#define QE_KIND(pk)    ((unsigned)((pk) >> 56) & 0x7f)
#define QE_ADDR(pk)    ((pk)&IPS2_PAYLOAD_MASK)
#define POOL_HEAD      4            /* words before a long record's extra words */
#define LOCK_BOUND     (1ull << 63) /* a bound lock slot (keys are 48 bits) */

struct fr {
    int fd;
    struct ips2_file_header h;

    unsigned char *buf; /* buf[0 .. len) = file bytes [base, base + len) */
    size_t len;
    uint64_t base, pos;
    bool closed;
    uint64_t data_end;

    bool raw_synced;
    uint64_t raw_sync_timer, raw_addr_base;
    struct {
        uint64_t key; /* LOCK_BOUND | key; 0: unbound */
        uint64_t seq;
    } lock_slot[IPS2_LOCK_SLOTS]; /* short lock records' objects */
    uint64_t sync_timer, sync_mono;
    uint64_t last_timer, last_wall; /* the reader's: walls follow timers */
    bool interp, have_exact;
    uint64_t exact_timer, exact_cpu;

    /* ticks to ns */
    bool mono;
    uint64_t hz;
    uint64_t div_magic; /* divide() by hz */
    unsigned div_shift;
    bool div_add;

    struct qent *q;
    uint32_t qn;
    uint64_t *pool;
    size_t pool_used, pool_cap;
    size_t reader_words; /* what the reader's pool would hold */

    struct rt *r;
    int64_t offset;
    struct red_kstate ks;
    struct red_clock clock;
    struct red_progress *prog;
};

/* ---- time ------------------------------------------------------------ */

/* Division by the constant hz as a multiplication (Granlund and
 * Montgomery; the unsigned 64-bit scheme of libdivide): exact for every
 * 64-bit n. */
static void divider_init(struct fr *f, uint64_t d)
{
    unsigned l = 63u - (unsigned)__builtin_clzll(d);

    f->div_add = false;
    if ((d & (d - 1)) == 0) { /* a power of two: a shift */
        f->div_magic = 0;
        f->div_shift = l;
        return;
    }
    unsigned __int128 big = (unsigned __int128)1 << (64 + l);
    uint64_t m = (uint64_t)(big / d), rem = (uint64_t)(big % d);
    if (d - rem < (1ull << l)) {
        f->div_shift = l;
    } else {
        m += m;
        uint64_t twice = rem + rem;
        if (twice >= d || twice < rem)
            m += 1;
        f->div_shift = l;
        f->div_add = true;
    }
    f->div_magic = m + 1;
}

static inline uint64_t divide(const struct fr *f, uint64_t n)
{
    if (f->div_magic == 0)
        return n >> f->div_shift;
    uint64_t q = (uint64_t)(((unsigned __int128)f->div_magic * n) >> 64);
    if (f->div_add)
        return (((n - q) >> 1) + q) >> f->div_shift;
    return q >> f->div_shift;
}

/* floor(x * 1e9 / hz), exactly. */
static inline uint64_t conv(const struct fr *f, uint64_t x)
{
    if (f->mono)
        return x;
    if (RT_LIKELY(x < FAST_CONV_MAX))
        return divide(f, x * 1000000000ull);
    return (uint64_t)((unsigned __int128)x * 1000000000u / f->hz);
}

/* The reader's wall_of(). */
static inline uint64_t wall_of(const struct fr *f, uint64_t timer)
{
    if (f->mono)
        return timer;
    uint64_t ud = timer - f->sync_timer;
    if (RT_LIKELY(ud < FAST_CONV_MAX)) {
        uint64_t w = f->sync_mono + conv(f, ud);
        return w < f->sync_mono ? UINT64_MAX : w;
    }
    int64_t d;
    memcpy(&d, &ud, sizeof(d));
    __int128 w = (__int128)f->sync_mono + (__int128)d * 1000000000 / (__int128)f->hz;
    if (w < 0)
        return 0;
    if (w > (__int128)UINT64_MAX)
        return UINT64_MAX;
    return (uint64_t)w;
}

/* The reader's clamp: while the timer does not go back, neither does the
 * wall. */
static inline uint64_t forward(struct fr *f, uint64_t timer, uint64_t wall)
{
    if (timer >= f->last_timer && wall < f->last_wall)
        wall = f->last_wall;
    f->last_timer = timer;
    f->last_wall = wall;
    return wall;
}

/* The reader's derive_cpu(). */
static inline uint64_t derive(const struct fr *f, uint64_t t0, uint64_t c0, uint64_t t1,
                              uint64_t c1, uint64_t t)
{
    if (c1 <= c0 || t <= t0)
        return c0;
    if (t >= t1)
        return c1;
    uint64_t ran = conv(f, t - t0);
    return ran < c1 - c0 ? c0 + ran : c1;
}

/* ---- delivering events to the reduction ------------------------------ */

static inline void deliver(struct fr *f, unsigned kind, uint64_t timer, uint64_t wall, uint64_t cpu,
                           bool exact, uint64_t payload, const uint64_t *extra, unsigned nextra,
                           uint64_t offset)
{
    struct rt *r = f->r;
    struct rt_hot k = r->h;
    int64_t t = (int64_t)wall + f->offset;

    r->events++;
    if (kind == IPS2_EV_ENTER) {
        rt_enter(r, &k, t, cpu, payload);
        r->h = k;
    } else if (kind == IPS2_EV_EXIT) {
        rt_exit(r, &k, t, cpu, payload);
        r->h = k;
    } else {
        struct ips2_event ev = {kind, exact, timer, wall, cpu, payload, nextra, extra, offset};
        rt_advance(r, &k, t, cpu);
        r->h = k;
        red_kind_event(r, &f->ks, &f->clock, &ev, t);
    }
    if (RT_UNLIKELY((r->events & (RED_PROGRESS_EVERY - 1)) == 0))
        red_progress_tick(f->prog, r->events, offset);
}

/* Delivers the queue: with CPU derived towards the reading (t1, c1) if
 * `next`, else with the previous reading's CPU.  Queued events were all
 * decoded under the current sync base (a SYNC always has a CPU reading,
 * so it ends the queue). */
static void flush_queue(struct fr *f, bool next, uint64_t t1, uint64_t c1)
{
    const uint64_t t0 = f->exact_timer, c0 = f->exact_cpu;
    const bool same_base = t0 == f->sync_timer && !f->mono;
    struct rt *r = f->r;
    struct rt_hot k = r->h;
    uint64_t events = r->events; /* in a register, like k */

    for (uint32_t i = 0; i < f->qn; i++) {
        const struct qent *e = &f->q[i];
        uint64_t wall, cpu;
        if (same_base && e->timer >= t0 && e->timer - t0 < FAST_CONV_MAX) {
            /* one conversion for both clocks */
            uint64_t ran = conv(f, e->timer - t0);
            wall = f->sync_mono + ran;
            if (wall < f->sync_mono)
                wall = UINT64_MAX;
            if (!next || c1 <= c0 || e->timer == t0)
                cpu = c0;
            else if (e->timer >= t1)
                cpu = c1;
            else
                cpu = ran < c1 - c0 ? c0 + ran : c1;
        } else {
            wall = wall_of(f, e->timer);
            cpu = next ? derive(f, t0, c0, t1, c1, e->timer) : c0;
        }
        wall = forward(f, e->timer, wall);
        if (!(e->pk & QE_LONG)) {
            int64_t t = (int64_t)wall + f->offset;
            events++;
            if (QE_KIND(e->pk) == IPS2_EV_ENTER)
                rt_enter(r, &k, t, cpu, QE_ADDR(e->pk));
            else
                rt_exit(r, &k, t, cpu, QE_ADDR(e->pk));
            if (RT_UNLIKELY((events & (RED_PROGRESS_EVERY - 1)) == 0))
                red_progress_tick(f->prog, events, f->pos);
        } else {
            const uint64_t *w = f->pool + (e->pk & ~QE_LONG);
            r->h = k;
            r->events = events;
            deliver(f, (unsigned)w[0], e->timer, wall, cpu, false, w[1], w + POOL_HEAD,
                    (unsigned)w[3], w[2]);
            k = r->h;
            events = r->events;
        }
    }
    r->h = k;
    r->events = events;
    f->qn = 0;
    f->pool_used = 0;
    f->reader_words = 0;
}

/* Queues a long record without a CPU reading; false when the reader's
 * queue would be full (the caller flushes and retries). */
static bool queue_long(struct fr *f, unsigned kind, uint64_t timer, uint64_t payload,
                       const uint64_t *extra, unsigned nextra, uint64_t offset)
{
    if (f->qn == QUEUE_MAX_EVENTS || f->reader_words + nextra > QUEUE_MAX_WORDS)
        return false;
    if (f->pool_cap - f->pool_used < (size_t)nextra + POOL_HEAD) {
        size_t cap = f->pool_cap ? f->pool_cap : 1024;
        while (cap - f->pool_used < (size_t)nextra + POOL_HEAD)
            cap *= 2;
        uint64_t *p = realloc(f->pool, cap * sizeof(*p));
        if (!p)
            return false;
        f->pool = p;
        f->pool_cap = cap;
    }
    struct qent *e = &f->q[f->qn++];
    e->timer = timer;
    if (kind == IPS2_EV_ENTER || kind == IPS2_EV_EXIT) {
        e->pk = QE_PK(kind, payload);
        return true;
    }
    uint64_t *w = f->pool + f->pool_used;
    e->pk = QE_LONG | f->pool_used;
    w[0] = kind;
    w[1] = payload;
    w[2] = offset;
    w[3] = nextra;
    memcpy(w + POOL_HEAD, extra, (size_t)nextra * 8);
    f->pool_used += (size_t)nextra + POOL_HEAD;
    f->reader_words += nextra;
    return true;
}

/* One decoded event, through the CPU logic of the reader's
 * ips2_reader_next().  Returns false if it cannot go on (out of memory). */
static bool event(struct fr *f, unsigned kind, bool has_cpu, uint64_t timer, uint64_t cpu,
                  uint64_t payload, const uint64_t *extra, unsigned nextra, uint64_t offset)
{
    uint64_t wall;

    if (has_cpu) {
        if (f->qn)
            flush_queue(f, true, timer, cpu); /* before a SYNC moves the base */
        if (kind == IPS2_EV_SYNC) {
            f->sync_timer = timer;
            f->sync_mono = extra[0];
        }
        f->have_exact = true;
        f->exact_timer = timer;
        f->exact_cpu = cpu;
        deliver(f, kind, timer, forward(f, timer, wall_of(f, timer)), cpu, true, payload, extra,
                nextra, offset);
        return true;
    }
    if (!f->interp || !f->have_exact) {
        wall = forward(f, timer, wall_of(f, timer));
        deliver(f, kind, timer, wall, f->have_exact && !f->interp ? f->exact_cpu : 0, false,
                payload, extra, nextra, offset);
        return true;
    }
    if (queue_long(f, kind, timer, payload, extra, nextra, offset))
        return true;
    if (f->qn) {
        flush_queue(f, false, 0, 0);
        if (queue_long(f, kind, timer, payload, extra, nextra, offset))
            return true;
    }
    return false;
}

/* ---- the file -------------------------------------------------------- */

/* Makes n bytes at f->pos available; the bytes available (fewer only at
 * end of file), or -1 on a read error. */
static ssize_t ensure(struct fr *f, size_t n)
{
    size_t idx = (size_t)(f->pos - f->base);

    if (f->pos >= f->base && idx <= f->len) {
        if (f->len - idx >= n)
            return (ssize_t)(f->len - idx);
        memmove(f->buf, f->buf + idx, f->len - idx);
        f->len -= idx;
    } else {
        f->len = 0;
    }
    f->base = f->pos;
    while (f->len < n) {
        ssize_t got = pread(f->fd, f->buf + f->len, WINDOW - f->len, (off_t)(f->base + f->len));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return -1;
        if (got == 0)
            break;
        f->len += (size_t)got;
    }
    return (ssize_t)f->len;
}

static uint64_t load64(const unsigned char *p)
{
    uint64_t v;

    memcpy(&v, p, sizeof(v));
    return v;
}

/* Decodes the stream: 0 at its end, 1 to decline. */
static int run(struct fr *f)
{
    uint64_t extra[IPS2_RAW_MAX_EXTRA];

    for (;;) {
        if (f->closed && f->pos >= f->data_end)
            return 0;
        ssize_t n = ensure(f, 8);
        if (n < 0)
            return 1;
        if (n < 8)
            return f->closed ? 1 : 0;

        /* The hot loop: short records, all within the window and the data. */
        uint64_t limit = f->base + f->len;
        if (f->closed && f->data_end < limit)
            limit = f->data_end;
        const unsigned char *p = f->buf + (f->pos - f->base);
        uint64_t pos = f->pos;
        const uint64_t sync_timer = f->raw_sync_timer, addr_base = f->raw_addr_base;
        if (f->raw_synced && f->interp && f->have_exact) {
            uint32_t qn = f->qn, qmax = QUEUE_MAX_EVENTS;
            struct qent *q = f->q;
            while (pos + 8 <= limit && qn < qmax) {
                uint64_t w = load64(p);
                unsigned kind = IPS2_RAW_KIND(w);
                if (kind != IPS2_EV_ENTER_SHORT && kind != IPS2_EV_EXIT_SHORT)
                    break;
                struct qent *e = &q[qn++];
                e->timer = sync_timer + IPS2_SHORT_DELTA(w);
                e->pk = QE_PK(kind == IPS2_EV_ENTER_SHORT ? IPS2_EV_ENTER : IPS2_EV_EXIT,
                              addr_base + IPS2_SHORT_OFFSET(w));
                p += 8;
                pos += 8;
            }
            f->qn = qn;
        } else if (f->raw_synced) {
            while (pos + 8 <= limit) {
                uint64_t w = load64(p);
                unsigned kind = IPS2_RAW_KIND(w);
                if (kind != IPS2_EV_ENTER_SHORT && kind != IPS2_EV_EXIT_SHORT)
                    break;
                f->pos = pos + 8;
                if (!event(f, kind == IPS2_EV_ENTER_SHORT ? IPS2_EV_ENTER : IPS2_EV_EXIT, false,
                           sync_timer + IPS2_SHORT_DELTA(w), 0, addr_base + IPS2_SHORT_OFFSET(w),
                           NULL, 0, pos))
                    return 1;
                p += 8;
                pos += 8;
            }
        }
        f->pos = pos;
        if (f->closed && f->pos >= f->data_end)
            return 0;
        n = ensure(f, 8);
        if (n < 0)
            return 1;
        if (n < 8)
            return f->closed ? 1 : 0;

        /* One record of any other kind, or a short one the loop left. */
        const uint64_t off = f->pos;
        uint64_t w0 = load64(f->buf + (off - f->base));
        if (w0 == 0)
            return 0;
        unsigned kind = IPS2_RAW_KIND(w0);
        if (kind == IPS2_EV_ENTER_SHORT || kind == IPS2_EV_EXIT_SHORT) {
            if (!f->raw_synced)
                return 1;
            f->pos = off + 8;
            if (!event(f, kind == IPS2_EV_ENTER_SHORT ? IPS2_EV_ENTER : IPS2_EV_EXIT, false,
                       f->raw_sync_timer + IPS2_SHORT_DELTA(w0), 0,
                       f->raw_addr_base + IPS2_SHORT_OFFSET(w0), NULL, 0, off))
                return 1;
            continue;
        }
        if (kind == IPS2_EV_LOCK_ACQUIRED_SHORT || kind == IPS2_EV_LOCK_RELEASE_SHORT ||
            kind == IPS2_EV_LOCK_HELD_SHORT) {
            unsigned slot = IPS2_LOCK_WORD_SLOT(w0);
            if (!f->raw_synced || !(f->h.features & IPS2_FEAT_SHORT_LOCKS) ||
                !(f->lock_slot[slot].key & LOCK_BOUND))
                return 1;
            f->pos = off + 8;
            uint64_t key = f->lock_slot[slot].key & IPS2_PAYLOAD_MASK;
            uint64_t timer = f->raw_sync_timer + IPS2_SHORT_DELTA(w0);
            if (kind != IPS2_EV_LOCK_HELD_SHORT) {
                extra[0] = f->lock_slot[slot].seq + IPS2_LOCK_WORD_SEQ_DELTA(w0);
                f->lock_slot[slot].seq = extra[0];
                if (!event(f,
                           kind == IPS2_EV_LOCK_ACQUIRED_SHORT ? IPS2_EV_LOCK_ACQUIRED
                                                               : IPS2_EV_LOCK_RELEASE,
                           false, timer, 0, key, extra, 1, off))
                    return 1;
                continue;
            }
            /* a hold: the acquisition, then the release */
            extra[0] = f->lock_slot[slot].seq + IPS2_LOCK_HELD_SEQ_DELTA(w0);
            f->lock_slot[slot].seq = extra[0] + 1;
            if (!event(f, IPS2_EV_LOCK_ACQUIRED, false, timer, 0, key, extra, 1, off))
                return 1;
            extra[0]++;
            if (!event(f, IPS2_EV_LOCK_RELEASE, false, timer + IPS2_LOCK_HELD_HOLD(w0), 0, key,
                       extra, 1, off))
                return 1;
            continue;
        }
        if (kind == IPS2_EV_PAD) {
            uint64_t skip = IPS2_RAW_PAYLOAD(w0);
            if (skip < 8 || skip % 8 != 0 || (f->closed && skip > f->data_end - off))
                return 1;
            f->pos = off + skip;
            continue;
        }
        if (kind == IPS2_EV_NONE || !ips2_kind_known(kind))
            return 1;
        unsigned has_cpu = IPS2_RAW_HAS_CPU(w0), nextra = IPS2_RAW_NEXTRA(w0);
        if (has_cpu && nextra == 0)
            return 1;
        size_t size = (2 + (size_t)nextra) * 8;
        if (f->closed && size > f->data_end - off)
            return 1;
        n = ensure(f, size);
        if (n < 0)
            return 1;
        if ((size_t)n < size)
            return f->closed ? 1 : 0;
        const unsigned char *rec = f->buf + (off - f->base);
        unsigned nx = nextra - has_cpu;
        uint64_t timer = load64(rec + 8), cpu = has_cpu ? load64(rec + 16) : 0;
        if (kind == IPS2_EV_SYNC && (!has_cpu || nx < 1))
            return 1;
        if ((kind == IPS2_EV_ENTER || kind == IPS2_EV_EXIT) && nx != 0)
            return 1;
        memcpy(extra, rec + 16 + 8 * has_cpu, (size_t)nx * 8);
        f->pos = off + size;
        if (kind == IPS2_EV_SYNC) {
            f->raw_synced = true;
            f->raw_sync_timer = timer;
        } else if (kind == IPS2_EV_ENTER || kind == IPS2_EV_EXIT) {
            f->raw_addr_base = IPS2_SHORT_BASE(IPS2_RAW_PAYLOAD(w0));
        } else if ((kind == IPS2_EV_LOCK_ACQUIRED || kind == IPS2_EV_LOCK_RELEASE) && nx >= 1) {
            unsigned slot = IPS2_LOCK_SLOT(IPS2_RAW_PAYLOAD(w0));
            f->lock_slot[slot].key = LOCK_BOUND | IPS2_RAW_PAYLOAD(w0);
            f->lock_slot[slot].seq = extra[0];
        }
        if (!event(f, kind, has_cpu, timer, cpu, IPS2_RAW_PAYLOAD(w0), extra, nx, off))
            return 1;
    }
}

/* True for a header this decoder takes: a raw thread stream the reader
 * opened without complaint. */
static bool usable(const char *path, struct ips2_file_header *h)
{
    char err[IPS2_ERR_MAX];
    struct ips2_reader *rd = ips2_reader_open(path, err);

    if (!rd)
        return false;
    *h = *ips2_reader_header(rd);
    ips2_reader_close(rd);
    if (h->encoding != IPS2_ENC_RAW || h->stream_kind != IPS2_STREAM_THREAD)
        return false;
    if (h->state == IPS2_STATE_CLOSED && h->data_bytes % 8 != 0)
        return false;
    if (h->timer != IPS2_TIMER_MONOTONIC && h->tsc_hz < 1000000)
        return false; /* conv() needs a sane rate; the reader copes with any */
    return true;
}

int red_stream_raw(const char *path, struct rt *r, int64_t session_offset,
                   struct red_progress *prog)
{
    struct fr f;
    int rc = 1;

    memset(&f, 0, sizeof(f));
    if (!usable(path, &f.h))
        return 1;
    f.fd = open(path, O_RDONLY | O_CLOEXEC);
    f.buf = malloc(WINDOW);
    f.q = malloc(QUEUE_MAX_EVENTS * sizeof(*f.q));
    if (f.fd < 0 || !f.buf || !f.q)
        goto out;
    f.closed = f.h.state == IPS2_STATE_CLOSED;
    f.data_end = f.h.header_size + f.h.data_bytes;
    f.pos = f.base = f.h.header_size;
    f.sync_timer = f.h.ref_tsc;
    f.sync_mono = f.h.ref_mono_ns;
    f.interp = f.h.cpu_method == IPS2_CPU_INTERP;
    f.mono = f.h.timer == IPS2_TIMER_MONOTONIC;
    f.hz = f.h.tsc_hz;
    divider_init(&f, f.mono ? 1 : f.hz);
    f.r = r;
    f.offset = session_offset;
    f.clock = (struct red_clock){session_offset, f.h.timer, f.h.tsc_hz};
    f.prog = prog;

    uint64_t events0 = r->events;
    rc = run(&f);
    if (rc == 0 && f.qn)
        flush_queue(&f, false, 0, 0);
    if (rc != 0)
        r->events = events0;
out:
    if (f.fd >= 0)
        close(f.fd);
    free(f.buf);
    free(f.q);
    free(f.pool);
    return rc;
}
