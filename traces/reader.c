/*
 * reader.c - the decoder of raw and packed ips2 streams.
 *
 * Layers, bottom up:
 *   input    a 1 MiB window over the file, refilled with pread();
 *   decode   raw records (raw_next) or packed blocks (packed_next) into
 *            one "current record", every field checked against the file;
 *   clocks   wall time from the timer (TSC through the latest SYNC), and
 *            CPU time: exact where recorded, otherwise interpolated
 *            (cpu_method INTERP) or carried over from the last reading;
 *   queue    for INTERP, the events between two exact readings wait in a
 *            bounded queue until the next reading arrives;
 *   batch    the events ready to be returned, BATCH_EVENTS at a time,
 *            which the inline ips2_reader_next() hands out one by one
 *            before it calls ips2_reader_refill() for the next batch.
 *
 * Procedure entries and exits, most of a trace, are one-word short records
 * in a raw stream; between two CPU readings they go from the window into
 * the queue in a tight loop (short_run), and both clocks of a queued event
 * come from one conversion of its timer (ticks.h: a multiplication by the
 * reciprocal of the timer's rate, not a division).
 *
 * Memory is bounded whatever the input: the input window, one inflated
 * block (packed), the queue (QUEUE_MAX_EVENTS events and QUEUE_MAX_WORDS
 * extra words) and the batch.  Errors name the file, the byte offset of
 * the offending header field, record (raw) or block (packed), and what was
 * expected there.  Every event before an error is still returned (queued
 * ones too); then ips2_reader_next() returns -1 on every call.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "ips2_file.h"
#include "ips2_reader.h"
#include "reader_internal.h"
#include "ticks.h"
#include "varint.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "ips2 streams are little-endian");
_Static_assert(sizeof(struct ips2_block_header) == 32, "block header is 32 bytes");

#define READ_BUF (1u << 20) /* input window; holds any header, record or block */
#define READ_BUF_MIN                                                                               \
    (64u << 10)                         /* ... or the whole file, if smaller (a raw record         \
                                           of a live file is at most 2 KiB) */
#define WINDOW_ALIGN     4096u          /* the window's address */
#define QUEUE_MAX_EVENTS 65536u         /* events waiting for the next exact CPU reading */
#define QUEUE_MAX_WORDS  (256u * 1024u) /* their extra words (2 MiB) */
#define BATCH_EVENTS     256u           /* events returned per refill */
#define BATCH_WORDS      1024u          /* extra words of a batch's events not queued */
#define BLOCK_HDR        sizeof(struct ips2_block_header)
#define LOCK_BOUND       (1ull << 63) /* a bound lock slot (keys are 48 bits) */

_Static_assert(BATCH_WORDS >= IPS2_RAW_MAX_EXTRA, "a batch holds any one event");

/* One decoded record before the clocks are applied; extras in r->words. */
struct rec {
    unsigned kind;
    bool has_cpu;
    unsigned nextra; /* CPU word not included */
    uint64_t timer, cpu, payload, offset;
};

/* A short ENTER or EXIT record's kind minus this is the event's kind. */
#define SHORT_TO_LONG (IPS2_EV_ENTER_SHORT - IPS2_EV_ENTER)
_Static_assert(IPS2_EV_EXIT_SHORT - IPS2_EV_EXIT == SHORT_TO_LONG, "short kinds in order");

struct ips2_reader {
    struct ips2_reader_head head; /* first: ips2_reader_next() reads it */
    char *path;
    int fd;
    unsigned flags;
    struct ips2_file_header hdr;
    struct ips2_cost_ext costs, costs_end; /* the calibration blocks, if has_* */
    bool has_costs, has_costs_end;

    /* input window: buf[0 .. len) holds file bytes [base, base + len) */
    unsigned char *buf;
    size_t len;
    size_t cap; /* bytes of buf */
    uint64_t base;
    uint64_t pos;      /* next byte to decode */
    bool closed;       /* header state CLOSED */
    uint64_t data_end; /* raw + closed: header_size + data_bytes */

    /* raw: the bases of short records */
    bool raw_synced;
    uint64_t raw_sync_timer; /* timer of the latest SYNC record */
    uint64_t raw_addr_base;  /* latest long ENTER/EXIT address, low 32 bits clear */
    struct {
        uint64_t key; /* LOCK_BOUND | key; 0: unbound */
        uint64_t seq;
    } lock_slot[IPS2_LOCK_SLOTS]; /* short lock records' objects */
    bool held_release;            /* a LOCK_HELD_SHORT's release comes next ... */
    uint64_t held_timer, held_seq, held_key, held_off; /* ... with these */

    /* packed: the current block, inflated */
    unsigned char *block;
    unsigned char *cols; /* a BLC1 block inflated, before it is interleaved into block */
    ZSTD_DCtx *zstd;     /* for zstd blocks, made at the first */
    uint64_t boff;       /* byte offset of its header */
    uint32_t braw_len, bnevents, bdone;
    size_t bpos;
    uint64_t btimer, bcpu; /* delta bases */
    unsigned ndict;
    uint64_t dict[IPS2_PACK_DICT_MAX];
    bool packed_kind[128]; /* the kinds a block may hold (not none, pad or short) */

    /* clocks */
    bool mono;                      /* timer MONOTONIC: ticks are ns */
    struct ips2_ticks ticks;        /* TSC ticks to ns */
    struct ips2_ticks ns_ticks;     /* ns to ns, exactly (queue_deliver()) */
    uint64_t sync_timer, sync_mono; /* TSC conversion base */
    uint64_t last_timer, last_wall; /* the latest event's: walls follow timers */
    bool have_exact;
    uint64_t exact_timer, exact_cpu; /* latest exact CPU reading */

    /* the current record; held = decoded but not yet delivered or queued */
    struct rec cur;
    bool held;
    uint64_t words[IPS2_RAW_MAX_EXTRA];

    /* interpolation queue: q[0 .. qn) waiting, their clocks not yet set;
     * q[qpos .. qready) resolved, towards the reading (q_t1, q_c1) if
     * q_next, else the previous one, and returned from the queue itself;
     * their extra words in pool */
    struct ips2_event *q;
    size_t qcap, qn, qready, qpos;
    bool q_next;
    uint64_t q_t1, q_c1;
    uint64_t *pool;
    size_t pool_used;

    /* the batch being returned (head points into out); words: the extras
     * of its events that are not in the pool */
    struct ips2_event *out;
    uint64_t *out_words;
    size_t out_words_used;

    /* end of input: src_rc is 0 (clean) or -1 (error) */
    bool src_done;
    int src_rc;
    char err[IPS2_ERR_MAX];
};

/* ---- errors ---------------------------------------------------------- */

static int fail(struct ips2_reader *r, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Records "<path>: byte <off>: <message>"; the first error wins. */
static int fail(struct ips2_reader *r, uint64_t off, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (r->err[0])
        return -1;
    n = snprintf(r->err, sizeof(r->err), "%s: byte %llu: ", r->path, (unsigned long long)off);
    if (n < 0 || (size_t)n >= sizeof(r->err))
        return -1;
    va_start(ap, fmt);
    vsnprintf(r->err + n, sizeof(r->err) - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* Quotes up to n bytes for a message: printable ASCII as is, else \xHH. */
static void quote(char *out, size_t size, const unsigned char *p, size_t n)
{
    size_t o = 0;

    for (size_t i = 0; i < n && o + 5 < size; i++) {
        if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\')
            out[o++] = (char)p[i];
        else
            o += (size_t)snprintf(out + o, size - o, "\\x%02x", p[i]);
    }
    out[o] = '\0';
}

/* ---- input window ---------------------------------------------------- */

/* Makes up to n bytes at r->pos available at in(r).  Returns the bytes
 * available there (fewer than n only at end of file), or -1 on a read
 * error. */
static ssize_t ensure(struct ips2_reader *r, size_t n)
{
    if (r->pos >= r->base && r->pos - r->base <= r->len) {
        size_t idx = (size_t)(r->pos - r->base);
        if (r->len - idx >= n)
            return (ssize_t)(r->len - idx);
        memmove(r->buf, r->buf + idx, r->len - idx);
        r->len -= idx;
    } else {
        r->len = 0;
    }
    r->base = r->pos;
    while (r->len < n) {
        ssize_t got = pread(r->fd, r->buf + r->len, r->cap - r->len, (off_t)(r->base + r->len));
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return fail(r, r->base + r->len, "expected readable data, read failed: %s",
                        strerror(errno));
        }
        if (got == 0)
            break;
        r->len += (size_t)got;
    }
    return (ssize_t)r->len;
}

static const unsigned char *in(const struct ips2_reader *r)
{
    return r->buf + (r->pos - r->base);
}

static uint64_t load64(const unsigned char *p)
{
    uint64_t v;

    memcpy(&v, p, sizeof(v));
    return v;
}

/* ---- header ---------------------------------------------------------- */

#define HOFF(field) ((uint64_t)offsetof(struct ips2_file_header, field))

static int read_header(struct ips2_reader *r)
{
    struct ips2_file_header *h = &r->hdr;
    const size_t hsize = sizeof(*h);
    ssize_t n = ensure(r, hsize);
    char q[64];

    if (n < 0)
        return -1;
    if (n == 0)
        return fail(r, 0, "expected magic %s, found end of file (empty file)", IPS2_MAGIC);
    size_t m = (size_t)n < IPS2_MAGIC_LEN ? (size_t)n : IPS2_MAGIC_LEN;
    if (memcmp(in(r), IPS2_MAGIC, m) != 0) {
        quote(q, sizeof(q), in(r), m);
        return fail(r, 0, "expected magic %s, found \"%s\"", IPS2_MAGIC, q);
    }
    if ((size_t)n < hsize)
        return fail(r, (uint64_t)n, "expected a %zu-byte header, found end of file", hsize);
    memcpy(h, in(r), hsize);
    h->host[IPS2_HOST_MAX - 1] = '\0';
    h->app[IPS2_APP_MAX - 1] = '\0';
    h->exe[IPS2_PATH_MAX - 1] = '\0';

    if (h->version < IPS2_VERSION_MIN || h->version > IPS2_VERSION)
        return fail(r, HOFF(version), "expected version %u to %u, found %u", IPS2_VERSION_MIN,
                    IPS2_VERSION, h->version);
    if (h->endian != 1)
        return fail(r, HOFF(endian), "expected endian 1 (little), found %u", h->endian);
    if (h->encoding != IPS2_ENC_RAW && h->encoding != IPS2_ENC_PACKED)
        return fail(r, HOFF(encoding), "expected encoding 0 (raw) or 1 (packed), found %u",
                    h->encoding);
    if (h->encoding == IPS2_ENC_RAW && (h->header_size < hsize || h->header_size % 8 != 0))
        return fail(r, HOFF(header_size),
                    "expected a raw header_size >= %zu and a multiple of 8, found %u", hsize,
                    h->header_size);
    if (h->encoding == IPS2_ENC_PACKED && h->header_size < hsize)
        return fail(r, HOFF(header_size), "expected a packed header_size >= %zu, found %u", hsize,
                    h->header_size);
    if (h->stream_kind != IPS2_STREAM_THREAD && h->stream_kind != IPS2_STREAM_PROCESS)
        return fail(r, HOFF(stream_kind),
                    "expected stream kind 0 (thread) or 1 (process), found %u", h->stream_kind);
    if (h->cpu_method > IPS2_CPU_TICK)
        return fail(r, HOFF(cpu_method),
                    "expected CPU method 0 (exact), 1 (interp) or 2 (tick), found %u",
                    h->cpu_method);
    if (h->timer != IPS2_TIMER_TSC && h->timer != IPS2_TIMER_MONOTONIC)
        return fail(r, HOFF(timer), "expected timer 0 (tsc) or 1 (monotonic), found %u", h->timer);
    uint64_t unknown = h->features & IPS2_FEAT_REQUIRED_MASK & ~IPS2_FEAT_KNOWN;
    if (unknown)
        return fail(r, HOFF(features),
                    "expected only known required feature bits (mask 0x%llx), found 0x%llx",
                    (unsigned long long)(IPS2_FEAT_KNOWN & IPS2_FEAT_REQUIRED_MASK),
                    (unsigned long long)unknown);
    if (h->timer == IPS2_TIMER_TSC && h->tsc_hz == 0)
        return fail(r, HOFF(tsc_hz), "expected a nonzero tsc_hz with the TSC timer, found 0");
    if (h->state != IPS2_STATE_OPEN && h->state != IPS2_STATE_CLOSED)
        return fail(r, HOFF(state), "expected state 0 (open) or 1 (closed), found %u", h->state);
    if (h->encoding == IPS2_ENC_RAW && h->state == IPS2_STATE_CLOSED &&
        h->data_bytes > (UINT64_MAX >> 2))
        return fail(r, HOFF(data_bytes), "expected data_bytes < 2^62, found %llu",
                    (unsigned long long)h->data_bytes);

    if ((size_t)n < h->header_size)
        return fail(r, (uint64_t)n,
                    "expected a header of %u bytes (header_size), found end of file",
                    h->header_size);
    /* the calibration block, inside header_size (older streams have none) */
    if (h->header_size >= IPS2_COST_EXT_OFFSET + sizeof(r->costs)) {
        memcpy(&r->costs, in(r) + IPS2_COST_EXT_OFFSET, sizeof(r->costs));
        r->has_costs = memcmp(r->costs.magic, IPS2_COST_EXT_MAGIC, 4) == 0 &&
                       r->costs.size >= sizeof(r->costs) && r->costs.nprobes == IPS2_PROBES;
    }
    if (r->has_costs && h->header_size >= IPS2_COST_END_OFFSET + sizeof(r->costs_end)) {
        memcpy(&r->costs_end, in(r) + IPS2_COST_END_OFFSET, sizeof(r->costs_end));
        r->has_costs_end = memcmp(r->costs_end.magic, IPS2_COST_END_MAGIC, 4) == 0 &&
                           r->costs_end.size >= sizeof(r->costs_end) &&
                           r->costs_end.nprobes == IPS2_PROBES;
    }
    r->closed = h->state == IPS2_STATE_CLOSED;
    r->data_end = h->header_size + h->data_bytes;
    r->pos = h->header_size;
    return 0;
}

/* ---- record shape, shared by both encodings -------------------------- */

static bool shape_ok(const struct rec *c)
{
    if (c->kind == IPS2_EV_SYNC)
        return c->has_cpu && c->nextra >= 1;
    return (c->kind != IPS2_EV_ENTER && c->kind != IPS2_EV_EXIT) || c->nextra == 0;
}

static int check_shape(struct ips2_reader *r, const struct rec *c, uint64_t off, const char *where)
{
    if (c->kind == IPS2_EV_SYNC && (!c->has_cpu || c->nextra < 1))
        return fail(r, off,
                    "%sexpected a sync event with a CPU time and mono_ns, found has_cpu %u "
                    "and %u extra words",
                    where, c->has_cpu ? 1u : 0u, c->nextra);
    if ((c->kind == IPS2_EV_ENTER || c->kind == IPS2_EV_EXIT) && c->nextra != 0)
        return fail(r, off, "%sexpected an %s event without extra words, found %u", where,
                    ips2_kind_name(c->kind), c->nextra);
    return 0;
}

/* ---- raw records ----------------------------------------------------- */

/* Turns the short lock record w0 at off into r->cur (FORMAT.md section 3):
 * 0, or -1 on error.  A LOCK_HELD_SHORT gives its acquisition now and
 * leaves its release for the next call of raw_next(). */
static int raw_short_lock(struct ips2_reader *r, uint64_t w0, uint64_t off)
{
    struct rec *c = &r->cur;
    unsigned kind = IPS2_RAW_KIND(w0), slot = IPS2_LOCK_WORD_SLOT(w0);

    if (!r->raw_synced)
        return fail(r, off, "expected a sync record before the first short record");
    if (!(r->hdr.features & IPS2_FEAT_SHORT_LOCKS))
        return fail(r, off, "expected no %s record (feature bit short-locks is clear), found one",
                    ips2_kind_name(kind));
    if (!(r->lock_slot[slot].key & LOCK_BOUND))
        return fail(r, off,
                    "expected a %s record naming a bound object slot, found slot %u unbound",
                    ips2_kind_name(kind), slot);
    c->kind = kind == IPS2_EV_LOCK_RELEASE_SHORT ? IPS2_EV_LOCK_RELEASE : IPS2_EV_LOCK_ACQUIRED;
    c->has_cpu = false;
    c->nextra = 1;
    c->timer = r->raw_sync_timer + IPS2_SHORT_DELTA(w0);
    c->cpu = 0;
    c->payload = r->lock_slot[slot].key & IPS2_PAYLOAD_MASK;
    c->offset = off;
    if (kind != IPS2_EV_LOCK_HELD_SHORT) {
        r->words[0] = r->lock_slot[slot].seq + IPS2_LOCK_WORD_SEQ_DELTA(w0);
        r->lock_slot[slot].seq = r->words[0];
        return 0;
    }
    r->words[0] = r->lock_slot[slot].seq + IPS2_LOCK_HELD_SEQ_DELTA(w0);
    r->lock_slot[slot].seq = r->words[0] + 1;
    r->held_release = true;
    r->held_timer = c->timer + IPS2_LOCK_HELD_HOLD(w0);
    r->held_seq = r->words[0] + 1;
    r->held_key = c->payload;
    r->held_off = off;
    return 0;
}

/* Decodes the next raw record into r->cur: 1, 0 at end, -1 on error. */
static int raw_next(struct ips2_reader *r)
{
    if (r->held_release) { /* the second half of a LOCK_HELD_SHORT */
        struct rec *c = &r->cur;
        c->kind = IPS2_EV_LOCK_RELEASE;
        c->has_cpu = false;
        c->nextra = 1;
        c->timer = r->held_timer;
        c->cpu = 0;
        c->payload = r->held_key;
        c->offset = r->held_off;
        r->words[0] = r->held_seq;
        r->held_release = false;
        return 1;
    }
    for (;;) {
        uint64_t off = r->pos;

        if (r->closed && off >= r->data_end)
            return 0;
        ssize_t n = ensure(r, 8);
        if (n < 0)
            return -1;
        if (n < 8) {
            if (!r->closed)
                return 0; /* the writer died or is still running */
            return fail(
                r, off, "expected %llu more bytes of records (data_bytes %llu), found end of file",
                (unsigned long long)(r->data_end - off), (unsigned long long)r->hdr.data_bytes);
        }
        uint64_t w0 = load64(in(r));
        if (w0 == 0)
            return 0; /* end of the written records */
        unsigned kind = IPS2_RAW_KIND(w0);
        struct rec *c = &r->cur;

        if (kind == IPS2_EV_PAD) {
            uint64_t skip = IPS2_RAW_PAYLOAD(w0);
            if (skip < 8 || skip % 8 != 0)
                return fail(r, off, "expected a pad length >= 8 and a multiple of 8, found %llu",
                            (unsigned long long)skip);
            if (r->closed && skip > r->data_end - off)
                return fail(r, off,
                            "expected a pad ending within data_bytes (at byte %llu), found one "
                            "ending at byte %llu",
                            (unsigned long long)r->data_end, (unsigned long long)(off + skip));
            r->pos = off + skip; /* past end of file: the next read finds it */
            continue;
        }
        if (kind == IPS2_EV_ENTER_SHORT || kind == IPS2_EV_EXIT_SHORT) {
            if (!r->raw_synced)
                return fail(r, off, "expected a sync record before the first short record");
            c->kind = kind == IPS2_EV_ENTER_SHORT ? IPS2_EV_ENTER : IPS2_EV_EXIT;
            c->has_cpu = false;
            c->nextra = 0;
            c->timer = r->raw_sync_timer + IPS2_SHORT_DELTA(w0);
            c->cpu = 0;
            c->payload = r->raw_addr_base + IPS2_SHORT_OFFSET(w0);
            c->offset = off; /* the base is < 2^48 with 32 low bits clear: no overflow */
            r->pos = off + 8;
            return 1;
        }
        if (kind == IPS2_EV_LOCK_ACQUIRED_SHORT || kind == IPS2_EV_LOCK_RELEASE_SHORT ||
            kind == IPS2_EV_LOCK_HELD_SHORT) {
            if (raw_short_lock(r, w0, off) < 0)
                return -1;
            r->pos = off + 8;
            return 1;
        }
        if (kind == IPS2_EV_NONE || !ips2_kind_known(kind))
            return fail(r, off, "expected a known record kind, found kind %u", kind);

        unsigned has_cpu = IPS2_RAW_HAS_CPU(w0);
        unsigned nextra = IPS2_RAW_NEXTRA(w0);
        if (has_cpu && nextra == 0)
            return fail(r, off, "expected nextra >= 1 to count the CPU word, found 0");
        size_t size = (2 + (size_t)nextra) * 8;
        if (r->closed && size > r->data_end - off)
            return fail(r, off,
                        "expected a %zu-byte record ending within data_bytes (at byte %llu), "
                        "found it ending at byte %llu",
                        size, (unsigned long long)r->data_end, (unsigned long long)(off + size));
        n = ensure(r, size);
        if (n < 0)
            return -1;
        if ((size_t)n < size) {
            if (!r->closed)
                return 0;
            return fail(r, off, "expected a %zu-byte record, found end of file after %zd bytes",
                        size, n);
        }

        const unsigned char *p = in(r);
        c->kind = kind;
        c->has_cpu = has_cpu;
        c->nextra = nextra - has_cpu;
        c->timer = load64(p + 8);
        c->cpu = has_cpu ? load64(p + 16) : 0;
        c->payload = IPS2_RAW_PAYLOAD(w0);
        c->offset = off;
        memcpy(r->words, p + 16 + 8 * has_cpu, (size_t)c->nextra * 8);
        r->pos = off + size;
        if (check_shape(r, c, off, "") < 0)
            return -1;
        if (kind == IPS2_EV_SYNC) {
            r->raw_synced = true;
            r->raw_sync_timer = c->timer;
        } else if (kind == IPS2_EV_ENTER || kind == IPS2_EV_EXIT) {
            r->raw_addr_base = IPS2_SHORT_BASE(c->payload);
        } else if ((kind == IPS2_EV_LOCK_ACQUIRED || kind == IPS2_EV_LOCK_RELEASE) &&
                   c->nextra >= 1) {
            unsigned slot = IPS2_LOCK_SLOT(c->payload);
            r->lock_slot[slot].key = LOCK_BOUND | c->payload;
            r->lock_slot[slot].seq = r->words[0];
        }
        return 1;
    }
}

/* ---- packed blocks --------------------------------------------------- */

/* Reads one varint of the current block; 0 or -1 (error set).  Most are
 * one byte (small deltas, dictionary indexes, counts): those take no call. */
static inline int bget(struct ips2_reader *r, uint64_t *v, const char *what)
{
    if (r->bpos < r->braw_len && r->block[r->bpos] < 0x80) {
        *v = r->block[r->bpos++];
        return 0;
    }
    int n = ips2_varint_get(r->block + r->bpos, r->braw_len - r->bpos, v);

    if (n > 0) {
        r->bpos += (size_t)n;
        return 0;
    }
    return fail(r, r->boff, "block event %u at decoded byte %zu: expected a varint %s, found %s",
                r->bdone, r->bpos, what,
                n == 0 ? "end of the block data" : "one longer than 10 bytes or above 2^64");
}

/* bget of a value that must fit the 48 bits of a payload (an address or
 * a payload: a_what is what the message calls it). */
static inline int bget_48(struct ips2_reader *r, uint64_t *v, const char *what, const char *a_what)
{
    size_t at = r->bpos;

    if (bget(r, v, what) < 0)
        return -1;
    if (*v > IPS2_PAYLOAD_MASK)
        return fail(r, r->boff,
                    "block event %u at decoded byte %zu: expected %s below 2^48, found 0x%llx",
                    r->bdone, at, a_what, (unsigned long long)*v);
    return 0;
}

/* Decodes the next event of the inflated block into r->cur. */
static int block_event(struct ips2_reader *r)
{
    struct rec *c = &r->cur;
    uint64_t u, v;

    if (r->bpos >= r->braw_len)
        return fail(r, r->boff,
                    "block event %u at decoded byte %zu: expected an event tag, found the end "
                    "of the block data",
                    r->bdone, r->bpos);
    unsigned tag = r->block[r->bpos];
    c->kind = tag & 0x7f;
    c->has_cpu = tag >> 7;
    c->offset = r->boff;
    if (!r->packed_kind[c->kind])
        return fail(r, r->boff,
                    "block event %u at decoded byte %zu: expected a packed event kind (not "
                    "none, pad or short), found kind %u",
                    r->bdone, r->bpos, c->kind);
    r->bpos++;
    if (bget(r, &u, "timer delta") < 0)
        return -1;
    r->btimer += ips2_unzigzag_u(u);
    c->timer = r->btimer;
    c->cpu = 0;
    if (c->has_cpu) {
        if (bget(r, &u, "CPU time delta") < 0)
            return -1;
        r->bcpu += ips2_unzigzag_u(u);
        c->cpu = r->bcpu;
    }
    if (c->kind == IPS2_EV_ENTER || c->kind == IPS2_EV_EXIT) {
        size_t at = r->bpos;
        if (bget(r, &u, "address index") < 0)
            return -1;
        if (u < r->ndict) {
            v = r->dict[u];
        } else if (u == r->ndict) {
            if (bget_48(r, &v, "address", "an address") < 0)
                return -1;
            if (r->ndict < IPS2_PACK_DICT_MAX)
                r->dict[r->ndict++] = v;
        } else {
            return fail(r, r->boff,
                        "block event %u at decoded byte %zu: expected an address index <= %u, "
                        "found %llu",
                        r->bdone, at, r->ndict, (unsigned long long)u);
        }
        c->payload = v;
        c->nextra = 0;
        return 0;
    }
    if (bget_48(r, &v, "payload", "a payload") < 0)
        return -1;
    c->payload = v;
    size_t at = r->bpos;
    if (bget(r, &u, "extra word count") < 0)
        return -1;
    unsigned max = IPS2_RAW_MAX_EXTRA - (c->has_cpu ? 1u : 0u);
    if (u > max)
        return fail(r, r->boff,
                    "block event %u at decoded byte %zu: expected at most %u extra words, found "
                    "%llu",
                    r->bdone, at, max, (unsigned long long)u);
    c->nextra = (unsigned)u;
    for (unsigned i = 0; i < c->nextra; i++)
        if (bget(r, &r->words[i], "extra word") < 0)
            return -1;
    return 0;
}

static void block_rewind(struct ips2_reader *r)
{
    r->bpos = 0;
    r->bdone = 0;
    r->btimer = 0;
    r->bcpu = 0;
    r->ndict = 0;
}

/* Inflates a block's comp_len bytes at z into r->block: exactly raw_len
 * bytes from exactly comp_len (one zlib stream, or one zstd frame); 0, or
 * -1 naming what is wrong at the block's offset. */
static int inflate_block(struct ips2_reader *r, uint64_t off, const struct ips2_block_header *bh,
                         const unsigned char *z, bool zstd)
{
    if (zstd) {
        size_t frame = ZSTD_findFrameCompressedSize(z, bh->comp_len);
        if (ZSTD_isError(frame))
            return fail(r, off, "expected one zstd frame filling comp_len %u bytes, found %s",
                        bh->comp_len, ZSTD_getErrorName(frame));
        if (frame != bh->comp_len)
            return fail(r, off,
                        "expected one zstd frame filling comp_len %u bytes, found a frame of %zu",
                        bh->comp_len, frame);
        if (!r->zstd && !(r->zstd = ZSTD_createDCtx()))
            return fail(r, off, "expected memory to inflate a zstd block, found none");
        size_t d = ZSTD_decompressDCtx(r->zstd, r->block, IPS2_BLOCK_RAW_MAX, z, bh->comp_len);
        if (ZSTD_isError(d))
            return fail(r, off, "expected zstd data inflating to %u bytes, zstd says: %s",
                        bh->raw_len, ZSTD_getErrorName(d));
        if (d != bh->raw_len)
            return fail(r, off, "expected zstd data inflating to raw_len %u bytes, found %zu",
                        bh->raw_len, d);
        return 0;
    }
    uLongf dlen = IPS2_BLOCK_RAW_MAX;
    uLong slen = bh->comp_len;
    int zrc = uncompress2(r->block, &dlen, z, &slen);
    if (zrc != Z_OK)
        return fail(r, off, "expected zlib data inflating to %u bytes, zlib says: %s", bh->raw_len,
                    zrc == Z_BUF_ERROR ? "truncated data or more than 256 KiB" : zError(zrc));
    if (dlen != bh->raw_len)
        return fail(r, off, "expected zlib data inflating to raw_len %u bytes, found %lu",
                    bh->raw_len, (unsigned long)dlen);
    if (slen != bh->comp_len)
        return fail(r, off,
                    "expected the zlib stream to fill comp_len %u bytes, found it ends "
                    "after %lu",
                    bh->comp_len, (unsigned long)slen);
    return 0;
}

/* Copies one varint from column c (at *at, ending at end) to *o; with v,
 * its value too.  0, or -1 naming the field. */
static int col_varint(struct ips2_reader *r, uint64_t off, unsigned c, const unsigned char **at,
                      const unsigned char *end, unsigned char **o, uint64_t *v, const char *what)
{
    size_t n = 0;
    while (*at + n < end && n < IPS2_VARINT_MAX && ((*at)[n] & 0x80))
        n++;
    if (*at + n >= end || n >= IPS2_VARINT_MAX)
        return fail(r, off, "expected %s in column %u, found %s", what, c,
                    *at + n >= end ? "the column's end" : "a varint longer than 10 bytes");
    n++;
    if (v != NULL) {
        uint64_t x = 0;
        for (size_t i = 0; i < n; i++)
            x |= (uint64_t)((*at)[i] & 0x7f) << (7 * i);
        *v = x;
    }
    memcpy(*o, *at, n);
    *o += n;
    *at += n;
    return 0;
}

/* A BLC1 block's columns (in r->cols, raw_len bytes) interleaved into
 * r->block as a BLZ1 block's bytes, which the checks and the decoder then
 * read: *len set to their length.  Every column must be used exactly. */
static int interleave_block(struct ips2_reader *r, uint64_t off, uint32_t raw_len, uint32_t nevents,
                            size_t *len)
{
    const unsigned char *at[IPS2_BLOCK_COLUMNS], *end[IPS2_BLOCK_COLUMNS];
    if (raw_len < IPS2_BLOCK_COLUMN_HDR)
        return fail(r, off, "expected a columnar block of at least %u bytes, found %u",
                    IPS2_BLOCK_COLUMN_HDR, raw_len);
    size_t pos = IPS2_BLOCK_COLUMN_HDR;
    for (unsigned c = 0; c < IPS2_BLOCK_COLUMNS; c++) {
        uint32_t n = (uint32_t)(raw_len - pos);
        if (c + 1 < IPS2_BLOCK_COLUMNS)
            memcpy(&n, r->cols + 4 * c, 4);
        if (n > raw_len - pos)
            return fail(r, off, "expected column %u's length %u to fit the block's %u bytes", c, n,
                        raw_len);
        at[c] = r->cols + pos;
        pos += n;
        end[c] = r->cols + pos;
    }
    unsigned char *o = r->block;
    unsigned ndict = 0;
    for (uint32_t e = 0; e < nevents; e++) {
        if (at[0] >= end[0])
            return fail(r, off, "expected the tag of block event %u in column 0, found its end", e);
        unsigned tag = *at[0]++, kind = tag & 0x7f;
        *o++ = (unsigned char)tag;
        uint64_t v;
        if (col_varint(r, off, 1, &at[1], end[1], &o, NULL, "a timer delta") < 0 ||
            ((tag & 0x80) && col_varint(r, off, 2, &at[2], end[2], &o, NULL, "a CPU delta") < 0))
            return -1;
        if (kind == IPS2_EV_ENTER || kind == IPS2_EV_EXIT) {
            if (col_varint(r, off, 3, &at[3], end[3], &o, &v, "an address index") < 0)
                return -1;
            if (v == ndict) {
                if (col_varint(r, off, 4, &at[4], end[4], &o, NULL, "an address") < 0)
                    return -1;
                if (ndict < IPS2_PACK_DICT_MAX)
                    ndict++;
            }
            continue;
        }
        if (col_varint(r, off, 4, &at[4], end[4], &o, NULL, "a payload") < 0 ||
            col_varint(r, off, 4, &at[4], end[4], &o, &v, "an extra word count") < 0)
            return -1;
        if (v > IPS2_RAW_MAX_EXTRA)
            return fail(r, off, "expected at most %u extra words, found %llu", IPS2_RAW_MAX_EXTRA,
                        (unsigned long long)v);
        for (uint64_t i = 0; i < v; i++)
            if (col_varint(r, off, 4, &at[4], end[4], &o, NULL, "an extra word") < 0)
                return -1;
    }
    for (unsigned c = 0; c < IPS2_BLOCK_COLUMNS; c++)
        if (at[c] != end[c])
            return fail(r, off, "expected nevents %u to use all of column %u, found %zu bytes left",
                        nevents, c, (size_t)(end[c] - at[c]));
    *len = (size_t)(o - r->block);
    return 0;
}

/* Reads, checks and inflates the next block: 1, 0 at end of file, -1. */
static int load_block(struct ips2_reader *r)
{
    const uint64_t off = r->pos;
    struct ips2_block_header bh;
    ssize_t n = ensure(r, BLOCK_HDR);

    if (n < 0)
        return -1;
    if (n == 0)
        return 0;
    if ((size_t)n < BLOCK_HDR)
        return fail(r, off, "expected a %zu-byte block header, found end of file after %zd bytes",
                    BLOCK_HDR, n);
    memcpy(&bh, in(r), BLOCK_HDR);
    bool cols = bh.magic == IPS2_BLOCK_MAGIC_COLS;
    bool zstd = bh.magic == IPS2_BLOCK_MAGIC_ZSTD || cols;
    const char *codec = zstd ? "zstd" : "zlib";
    if (bh.magic != IPS2_BLOCK_MAGIC && !zstd) {
        char q[64];
        quote(q, sizeof(q), in(r), 4);
        return fail(r, off, "expected block magic BLK1, BLZ1 or BLC1, found \"%s\"", q);
    }
    if (bh.raw_len > IPS2_BLOCK_RAW_MAX)
        return fail(r, off, "expected a block raw_len <= %u, found %u", IPS2_BLOCK_RAW_MAX,
                    bh.raw_len);
    size_t bound =
        zstd ? ZSTD_compressBound(IPS2_BLOCK_RAW_MAX) : compressBound(IPS2_BLOCK_RAW_MAX);
    if (bh.comp_len == 0 || bh.comp_len > bound)
        return fail(r, off, "expected a block comp_len of 1 to %zu, found %u", bound, bh.comp_len);
    if (bh.nevents > bh.raw_len)
        return fail(r, off, "expected a block nevents <= raw_len %u, found %u", bh.raw_len,
                    bh.nevents);
    size_t total = BLOCK_HDR + bh.comp_len;
    n = ensure(r, total);
    if (n < 0)
        return -1;
    if ((size_t)n < total)
        return fail(r, off,
                    "expected %u bytes of %s data after the block header, found end of file "
                    "after %zu",
                    bh.comp_len, codec, (size_t)n - BLOCK_HDR);
    const unsigned char *z = in(r) + BLOCK_HDR;
    uint32_t crc = (uint32_t)crc32(0L, z, bh.comp_len);
    if (crc != bh.crc32)
        return fail(r, off, "expected the block's %s data to have crc32 0x%08x, found 0x%08x",
                    codec, bh.crc32, crc);
    size_t len = bh.raw_len;
    if (cols) {
        if (!r->cols && !(r->cols = malloc(IPS2_BLOCK_RAW_MAX)))
            return fail(r, off, "expected memory to read a columnar block, found none");
        unsigned char *block = r->block;
        r->block = r->cols; /* inflated there, then interleaved into the block */
        int rc = inflate_block(r, off, &bh, z, zstd);
        r->block = block;
        if (rc < 0 || interleave_block(r, off, bh.raw_len, bh.nevents, &len) < 0)
            return -1;
    } else if (inflate_block(r, off, &bh, z, zstd) < 0) {
        return -1;
    }
    r->pos = off + total;
    r->boff = off;
    r->braw_len = len;
    r->bnevents = bh.nevents;

    /* Check the whole block before handing out any of its events. */
    block_rewind(r);
    for (; r->bdone < bh.nevents; r->bdone++) {
        size_t at = r->bpos;
        if (block_event(r) < 0)
            return -1;
        if (!shape_ok(&r->cur)) {
            char where[64];
            snprintf(where, sizeof(where), "block event %u at decoded byte %zu: ", r->bdone, at);
            return check_shape(r, &r->cur, off, where);
        }
        if (r->bdone == 0 && r->cur.timer != bh.first_timer)
            return fail(r, off, "expected first_timer %llu to be the first event's timer %llu",
                        (unsigned long long)bh.first_timer, (unsigned long long)r->cur.timer);
    }
    if (r->bpos != len)
        return fail(r, off,
                    "expected nevents %u to fill raw_len %u decoded bytes, found %zu bytes left "
                    "over",
                    bh.nevents, bh.raw_len, len - r->bpos);
    block_rewind(r);
    return 1;
}

/* Decodes the next packed event into r->cur: 1, 0 at end, -1 on error. */
static int packed_next(struct ips2_reader *r)
{
    while (r->bdone >= r->bnevents) {
        int rc = load_block(r);
        if (rc <= 0)
            return rc;
    }
    if (block_event(r) < 0)
        return -1;
    r->bdone++;
    return 1;
}

/* ---- clocks ---------------------------------------------------------- */

static uint64_t wall_of(const struct ips2_reader *r, uint64_t timer)
{
    if (r->mono)
        return timer;
    uint64_t ud = timer - r->sync_timer;
    if (__builtin_expect(ud < IPS2_TICKS_FAST_MAX, 1)) {
        uint64_t w = r->sync_mono + ips2_ticks_ns(&r->ticks, ud);
        return w < r->sync_mono ? UINT64_MAX : w;
    }
    int64_t d;
    memcpy(&d, &ud, sizeof(d));
    __int128 w = (__int128)r->sync_mono + (__int128)d * 1000000000 / (__int128)r->hdr.tsc_hz;
    if (w < 0)
        return 0;
    if (w > (__int128)UINT64_MAX)
        return UINT64_MAX;
    return (uint64_t)w;
}

/* A TSC reading converted at the last sync point's rate can land up to a
 * microsecond past the next sync point's own clock reading: a wall is kept
 * from going back while the timer does not, so a stream's events stay in
 * order in time.  Applied to every event in the stream's order. */
static inline uint64_t wall_forward(struct ips2_reader *r, uint64_t timer, uint64_t wall)
{
    if (timer >= r->last_timer && wall < r->last_wall)
        wall = r->last_wall;
    r->last_timer = timer;
    r->last_wall = wall;
    return wall;
}

/* CPU time at timer t, between the readings (t0, c0) and (t1, c1).  The
 * writer takes a reading whenever an event comes more than one sync
 * period after the last one, so t is within that period of t0; the thread
 * is taken to have run from t0 until it blocked: c0 plus the wall time
 * since t0, at most c1.  This is exact unless the thread blocked between
 * t0 and t, while spreading c1 - c0 evenly over [t0, t1] would charge a
 * procedure for the sleep of the one after it. */
static uint64_t derive_cpu(const struct ips2_reader *r, uint64_t t0, uint64_t c0, uint64_t t1,
                           uint64_t c1, uint64_t t)
{
    if (c1 <= c0 || t <= t0)
        return c0;
    if (t >= t1)
        return c1;
    uint64_t ran = r->mono ? t - t0 : ips2_ticks_ns(&r->ticks, t - t0);
    return ran < c1 - c0 ? c0 + ran : c1;
}

/* ---- the interpolation queue ----------------------------------------- */

/* Resolves every queued event: against the reading (t1, c1) if next, else
 * with the previous reading. */
static void queue_resolve(struct ips2_reader *r, bool next, uint64_t t1, uint64_t c1)
{
    r->q_next = next;
    r->q_t1 = t1;
    r->q_c1 = c1;
    r->qready = r->qn;
    r->qpos = 0;
}

/* Empties the queue once its events were all returned. */
static void queue_reset(struct ips2_reader *r)
{
    r->qn = r->qready = r->qpos = 0;
    r->pool_used = 0;
}

/* Allocates the queue at its largest on first use: only the pages used
 * take memory, and events and words never move. */
static bool queue_alloc(struct ips2_reader *r)
{
    if (!r->q && !(r->q = malloc(QUEUE_MAX_EVENTS * sizeof(*r->q))))
        return false;
    if (!r->pool && !(r->pool = malloc(QUEUE_MAX_WORDS * sizeof(*r->pool))))
        return false;
    r->qcap = QUEUE_MAX_EVENTS;
    return true;
}

/* Copies the current record into the queue; false if it is full. */
static bool queue_push(struct ips2_reader *r)
{
    const struct rec *c = &r->cur;

    if (r->qn == r->qcap && (r->qcap || !queue_alloc(r)))
        return false;
    if (QUEUE_MAX_WORDS - r->pool_used < c->nextra)
        return false;
    struct ips2_event *e = &r->q[r->qn++];
    e->kind = c->kind;
    e->cpu_exact = false;
    e->timer = c->timer;
    e->payload = c->payload;
    e->nextra = c->nextra;
    e->extra = r->pool + r->pool_used;
    e->offset = c->offset;
    memcpy(r->pool + r->pool_used, r->words, (size_t)c->nextra * sizeof(uint64_t));
    r->pool_used += c->nextra;
    return true;
}

/* A queued event's clocks, the general way. */
static void queued_clocks(struct ips2_reader *r, uint64_t t, uint64_t *wall, uint64_t *cpu)
{
    *wall = wall_of(r, t);
    *cpu =
        r->q_next ? derive_cpu(r, r->exact_timer, r->exact_cpu, r->q_t1, r->q_c1, t) : r->exact_cpu;
}

/* Gives the next BATCH_EVENTS resolved events their clocks, in place, and
 * makes them the head.  Every queued event was decoded under the current
 * sync base (a SYNC has a CPU reading, so it ends the queue), and after
 * the latest reading (t0, c0): when that reading is the sync point itself,
 * or the timer counts ns, one conversion of the ticks since t0 gives both
 * the wall (base + ran) and the CPU time (as derive_cpu(): c0 at t0, c1
 * from t1 on, else c0 + ran, at most c1; c0 throughout when flat). */
static void queue_deliver(struct ips2_reader *r)
{
    const uint64_t t0 = r->exact_timer, c0 = r->exact_cpu;
    const bool mono = r->mono, flat = !r->q_next || r->q_c1 <= c0;
    const uint64_t t1 = flat ? 0 : r->q_t1, c1 = flat ? c0 : r->q_c1;
    const uint64_t base = mono ? t0 : r->sync_mono;
    uint64_t last_timer = r->last_timer, last_wall = r->last_wall; /* wall_forward()'s */
    struct ips2_event *first = r->q + r->qpos, *end = first + (r->qready - r->qpos);
    const struct ips2_ticks ticks = mono ? r->ns_ticks : r->ticks;

    if (end - first > BATCH_EVENTS)
        end = first + BATCH_EVENTS;
    if ((mono || t0 == r->sync_timer) && ticks.hz > 1) {
        for (struct ips2_event *ev = first; ev < end; ev++) {
            const uint64_t t = ev->timer, since = t - t0;
            uint64_t wall, cpu;
            if (t >= t0 && since < IPS2_TICKS_FAST_MAX) {
                uint64_t ran = ips2_ticks_divide(ticks, since * 1000000000ull);
                wall = base + ran < base ? UINT64_MAX : base + ran;
                cpu = t > t0 && t >= t1 ? c1 : ran < c1 - c0 ? c0 + ran : c1;
            } else {
                queued_clocks(r, t, &wall, &cpu);
            }
            if (t >= last_timer && wall < last_wall)
                wall = last_wall;
            last_timer = t;
            last_wall = wall;
            ev->wall_ns = wall;
            ev->cpu_ns = cpu;
        }
    } else {
        for (struct ips2_event *ev = first; ev < end; ev++) {
            uint64_t wall, cpu;
            queued_clocks(r, ev->timer, &wall, &cpu);
            if (ev->timer >= last_timer && wall < last_wall)
                wall = last_wall;
            last_timer = ev->timer;
            last_wall = wall;
            ev->wall_ns = wall;
            ev->cpu_ns = cpu;
        }
    }
    r->last_timer = last_timer;
    r->last_wall = last_wall;
    r->qpos += (size_t)(end - first);
    r->head.next = first;
    r->head.end = end;
}

/* ---- the batch of other events --------------------------------------- */

/* True if the batch has room for the current record's extra words. */
static bool batch_room(const struct ips2_reader *r)
{
    return BATCH_WORDS - r->out_words_used >= r->cur.nextra;
}

/* Puts the current record into the batch at out[n] with its clocks; a
 * SYNC becomes the conversion base from here on. */
static void deliver_cur(struct ips2_reader *r, size_t n, bool exact, uint64_t cpu)
{
    struct ips2_event *ev = &r->out[n];
    const struct rec *c = &r->cur;
    uint64_t *words = r->out_words + r->out_words_used;

    if (c->kind == IPS2_EV_SYNC) {
        r->sync_timer = c->timer;
        r->sync_mono = r->words[0];
    }
    memcpy(words, r->words, (size_t)c->nextra * sizeof(uint64_t));
    r->out_words_used += c->nextra;
    ev->kind = c->kind;
    ev->cpu_exact = exact;
    ev->timer = c->timer;
    ev->wall_ns = wall_forward(r, c->timer, wall_of(r, c->timer));
    ev->cpu_ns = cpu;
    ev->payload = c->payload;
    ev->nextra = c->nextra;
    ev->extra = words;
    ev->offset = c->offset;
    r->held = false;
}

/* Short ENTER and EXIT records, from r->pos on while they last in the
 * window: the same events as raw_next() gives, decoded in a tight loop.
 * Between two CPU readings they are queued (their clocks come when the
 * queue is resolved); otherwise they go into the batch from out[n] on.
 * Returns the batch's new count. */
static size_t short_run(struct ips2_reader *r, size_t n)
{
    uint64_t limit = r->base + r->len;

    if (r->closed && r->data_end < limit)
        limit = r->data_end;
    if (r->pos < r->base || r->pos + 8 > limit)
        return n;
    const unsigned char *p = r->buf + (r->pos - r->base);
    const uint64_t sync_timer = r->raw_sync_timer, addr_base = r->raw_addr_base;
    uint64_t pos = r->pos;

    if (r->hdr.cpu_method == IPS2_CPU_INTERP && !(r->flags & IPS2_READER_AS_RECORDED) &&
        r->have_exact) {
        if (!r->qcap && !queue_alloc(r))
            return n;
        struct ips2_event *e = r->q + r->qn, *qend = r->q + r->qcap;
        const uint64_t *no_words = r->pool + r->pool_used;
        while (pos + 8 <= limit && e < qend) {
            uint64_t w = load64(p);
            unsigned kind = IPS2_RAW_KIND(w);
            if (kind != IPS2_EV_ENTER_SHORT && kind != IPS2_EV_EXIT_SHORT)
                break;
            e->kind = kind - SHORT_TO_LONG;
            e->cpu_exact = false;
            e->timer = sync_timer + IPS2_SHORT_DELTA(w);
            e->payload = addr_base + IPS2_SHORT_OFFSET(w);
            e->nextra = 0;
            e->extra = no_words;
            e->offset = pos;
            e++;
            p += 8;
            pos += 8;
        }
        r->qn = (size_t)(e - r->q);
        r->pos = pos;
        return n;
    }
    const bool derive = !(r->flags & IPS2_READER_AS_RECORDED) && r->have_exact;
    const uint64_t cpu = derive ? r->exact_cpu : 0;
    struct ips2_event *ev = r->out + n;
    while (pos + 8 <= limit && n < BATCH_EVENTS) {
        uint64_t w = load64(p);
        unsigned kind = IPS2_RAW_KIND(w);
        if (kind != IPS2_EV_ENTER_SHORT && kind != IPS2_EV_EXIT_SHORT)
            break;
        uint64_t timer = sync_timer + IPS2_SHORT_DELTA(w);
        ev->kind = kind - SHORT_TO_LONG;
        ev->cpu_exact = false;
        ev->timer = timer;
        ev->wall_ns = wall_forward(r, timer, wall_of(r, timer));
        ev->cpu_ns = cpu;
        ev->payload = addr_base + IPS2_SHORT_OFFSET(w);
        ev->nextra = 0;
        ev->extra = r->out_words;
        ev->offset = pos;
        ev++;
        n++;
        p += 8;
        pos += 8;
    }
    r->pos = pos;
    return n;
}

/* Decodes the next record into r->cur. */
static int decode(struct ips2_reader *r)
{
    return r->hdr.encoding == IPS2_ENC_RAW ? raw_next(r) : packed_next(r);
}

/* Decodes events into the batch until it is full, the queue is resolved
 * (its events come after the batch's), or the stream ends.  Returns the
 * number of events in r->out. */
static size_t fill(struct ips2_reader *r)
{
    const bool as_recorded = (r->flags & IPS2_READER_AS_RECORDED) != 0;
    const bool interp = !as_recorded && r->hdr.cpu_method == IPS2_CPU_INTERP;
    size_t n = 0;

    r->out_words_used = 0;
    while (n < BATCH_EVENTS && r->qready == 0) {
        if (!r->held) {
            if (r->src_done) {
                if (r->qn)
                    queue_resolve(r, false, 0, 0);
                break;
            }
            if (r->hdr.encoding == IPS2_ENC_RAW && r->raw_synced && !r->held_release) {
                n = short_run(r, n);
                if (n == BATCH_EVENTS)
                    break;
            }
            int rc = decode(r);
            if (rc <= 0) {
                r->src_done = true;
                r->src_rc = rc;
                continue;
            }
            r->held = true;
        }

        const struct rec *c = &r->cur;
        if (!interp) {
            if (!batch_room(r))
                break;
            if (c->has_cpu) {
                r->have_exact = true;
                r->exact_timer = c->timer;
                r->exact_cpu = c->cpu;
                deliver_cur(r, n++, true, c->cpu);
            } else {
                bool derive = !as_recorded && r->have_exact;
                deliver_cur(r, n++, false, derive ? r->exact_cpu : 0);
            }
            continue;
        }
        if (c->has_cpu) {
            if (r->qn) {
                queue_resolve(r, true, c->timer, c->cpu);
                continue; /* the reading itself follows the queue */
            }
            if (!batch_room(r))
                break;
            r->have_exact = true;
            r->exact_timer = c->timer;
            r->exact_cpu = c->cpu;
            deliver_cur(r, n++, true, c->cpu);
            continue;
        }
        if (!r->have_exact) {
            if (!batch_room(r))
                break;
            deliver_cur(r, n++, false, 0);
            continue;
        }
        if (queue_push(r)) {
            r->held = false;
            continue;
        }
        if (r->qn) {
            queue_resolve(r, false, 0, 0); /* queue full: previous reading */
            continue;
        }
        if (!batch_room(r))
            break;
        deliver_cur(r, n++, false, r->exact_cpu); /* out of memory for even one */
    }
    return n;
}

int ips2_reader_refill(struct ips2_reader *r)
{
    if (r->qready && r->qpos == r->qready)
        queue_reset(r);
    if (r->qpos < r->qready) {
        queue_deliver(r);
        return 1;
    }
    size_t n = fill(r);
    if (n) {
        r->head.next = r->out;
        r->head.end = r->out + n;
        return 1;
    }
    if (r->qpos < r->qready) {
        queue_deliver(r);
        return 1;
    }
    return r->src_rc;
}

/* ---- open, close, accessors ------------------------------------------ */

struct ips2_reader *ips2_reader_open_flags(const char *path, unsigned flags, char *err)
{
    struct ips2_reader *r = calloc(1, sizeof(*r));
    struct stat st;

    if (!r || !(r->path = strdup(path))) {
        if (err)
            snprintf(err, IPS2_ERR_MAX, "%s: byte 0: expected to open it, out of memory", path);
        if (r)
            free(r->path);
        free(r);
        return NULL;
    }
    r->flags = flags;
    /* a FIFO or a device is refused, never read; a raw stream packed
     * since it was listed is read packed */
    r->fd = (flags & IPS2_READER_EXACT_PATH) ? ips2_file_open(path, &st)
                                             : ips2_file_open_stream(path, &st);
    if (r->fd < 0) {
        if (err && r->fd == -2)
            snprintf(err, IPS2_ERR_MAX, "%s: byte 0: expected a regular file, found %s", path,
                     ips2_file_kind(st.st_mode));
        else if (err)
            snprintf(err, IPS2_ERR_MAX, "%s: byte 0: expected a readable file, cannot open: %s",
                     path, strerror(errno));
        free(r->path);
        free(r);
        return NULL;
    }
    /* A small file gets a small window: many small streams are common (one
     * per thread) and a fuzzer opens thousands a second. */
    r->cap = READ_BUF;
    if (st.st_size < (off_t)READ_BUF)
        r->cap = st.st_size > (off_t)READ_BUF_MIN ? (size_t)st.st_size : READ_BUF_MIN;
    /* Page-aligned: the kernel copies into a misaligned window (a large
     * malloc() is 16 bytes into its pages) at a third of the speed. */
    void *window;
    if (posix_memalign(&window, WINDOW_ALIGN, r->cap) != 0) {
        fail(r, 0, "expected to open it, out of memory");
        goto bad;
    }
    r->buf = window;
    if (read_header(r) < 0)
        goto bad;
    r->out = malloc(BATCH_EVENTS * sizeof(*r->out));
    r->out_words = malloc(BATCH_WORDS * sizeof(*r->out_words));
    if (!r->out || !r->out_words ||
        (r->hdr.encoding == IPS2_ENC_PACKED && !(r->block = malloc(IPS2_BLOCK_RAW_MAX)))) {
        fail(r, 0, "expected to open it, out of memory");
        goto bad;
    }
    r->head.next = r->head.end = r->out;
    for (unsigned k = 0; k < 128; k++)
        r->packed_kind[k] = k >= IPS2_EV_SYNC && ips2_kind_known(k) && k != IPS2_EV_ENTER_SHORT &&
                            k != IPS2_EV_EXIT_SHORT && k != IPS2_EV_LOCK_ACQUIRED_SHORT &&
                            k != IPS2_EV_LOCK_RELEASE_SHORT;
    r->mono = r->hdr.timer == IPS2_TIMER_MONOTONIC;
    ips2_ticks_init(&r->ticks, r->mono ? 0 : r->hdr.tsc_hz);
    ips2_ticks_init(&r->ns_ticks, 1000000000u);
    r->sync_timer = r->hdr.ref_tsc;
    r->sync_mono = r->hdr.ref_mono_ns;
    return r;
bad:
    if (err)
        memcpy(err, r->err, IPS2_ERR_MAX);
    ips2_reader_close(r);
    return NULL;
}

struct ips2_reader *ips2_reader_open(const char *path, char *err)
{
    return ips2_reader_open_flags(path, 0, err);
}

void ips2_reader_close(struct ips2_reader *r)
{
    if (!r)
        return;
    if (r->fd >= 0)
        close(r->fd);
    free(r->buf);
    free(r->block);
    free(r->cols);
    ZSTD_freeDCtx(r->zstd);
    free(r->out);
    free(r->out_words);
    free(r->q);
    free(r->pool);
    free(r->path);
    free(r);
}

const struct ips2_file_header *ips2_reader_header(const struct ips2_reader *r)
{
    return &r->hdr;
}

const struct ips2_cost_ext *ips2_reader_costs(const struct ips2_reader *r)
{
    return r->has_costs ? &r->costs : NULL;
}

const struct ips2_cost_ext *ips2_reader_costs_end(const struct ips2_reader *r)
{
    return r->has_costs_end ? &r->costs_end : NULL;
}

const char *ips2_reader_error(const struct ips2_reader *r)
{
    return r->err;
}

bool ips2_reader_unclosed(const struct ips2_reader *r)
{
    return r->hdr.state != IPS2_STATE_CLOSED;
}

void ips2_event_string(const struct ips2_event *ev, unsigned skip, char *buf, size_t size)
{
    size_t n = 0;

    if (size == 0)
        return;
    if (ev->extra && skip < ev->nextra) {
        const unsigned char *p = (const unsigned char *)(ev->extra + skip);
        size_t max = (size_t)(ev->nextra - skip) * sizeof(uint64_t);
        while (n < max && n + 1 < size && p[n] != '\0')
            n++;
        memcpy(buf, p, n);
    }
    buf[n] = '\0';
}
