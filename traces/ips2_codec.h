/*
 * ips2_codec.h - the one little-endian buffer codec of ips2's binary
 * files and messages (the reductions file, the PAG part file, the
 * critical-path wire messages, the external data file).
 *
 * Two halves, in the spirit of Redis's rio and Lua's ZIO:
 *
 *   struct ips2_out  a growable output buffer.  In memory it grows by
 *                    doubling and hands its bytes over at the end; bound
 *                    to a file descriptor it keeps a fixed buffer, flushes
 *                    it when full and writes big byte ranges straight
 *                    through (no copy of the whole output is ever made).
 *                    It can keep a running crc32 of what passes through.
 *   struct ips2_in   a bounded input cursor over bytes held in memory.
 *
 * Both have a sticky error state.  The output remembers the first errno
 * (ENOMEM, or a failed write) and ignores everything after it, so a writer
 * checks once at the end.  The input remembers the byte offset of the
 * first failure and its message, "NAME: byte OFFSET: WHAT", and every get
 * after a failure returns 0 without moving; a reader checks once per
 * decision it takes on a value.  The formats word their own messages with
 * ips2_in_fail(); a get that runs past the end fails with a generic one.
 *
 * Numbers are fixed-width little-endian (u8 to u64, i32, i64, f64 as its
 * IEEE bits) or LEB128 varints (traces/varint.h); strings and byte ranges
 * are length-prefixed by the format's choice of width.  The fast paths are
 * inline; growing, flushing and failing are not.
 */
#ifndef IPS2_CODEC_H
#define IPS2_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- little-endian loads and stores on raw bytes ------------------------ */

static inline void ips2_le16_store(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void ips2_le32_store(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline void ips2_le64_store(uint8_t *p, uint64_t v)
{
    ips2_le32_store(p, (uint32_t)v);
    ips2_le32_store(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t ips2_le16_load(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t ips2_le32_load(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t ips2_le64_load(const uint8_t *p)
{
    return (uint64_t)ips2_le32_load(p) | (uint64_t)ips2_le32_load(p + 4) << 32;
}

/* ---- output ------------------------------------------------------------- */

struct ips2_out {
    uint8_t *p;    /* the buffer */
    size_t n, cap; /* bytes in it, its room (cap == n after an error) */
    size_t alloc;  /* its size */
    int fd;        /* -1: in memory; else flushed to this descriptor */
    /* Instead of a descriptor, a sink that takes each flushed range (a
     * compressor in front of a file): returns 0, or an errno. */
    int (*sink)(void *ctx, const void *bytes, size_t len);
    void *sink_ctx;
    uint64_t flushed; /* bytes already written to fd */
    int err;          /* 0, or the first errno (ENOMEM, a write's) */
    bool crc_on;      /* a running crc32 is kept (ips2_out_crc_begin) */
    uint32_t crc;     /* of the bytes before p + crc_from */
    size_t crc_from;  /* first byte of p not yet in crc */
};

/* An empty output in memory. */
void ips2_out_init(struct ips2_out *o);

/* An output to fd through a buffer of cap bytes (0: 64 KiB).  On OOM the
 * output is in error (o->err == ENOMEM). */
void ips2_out_init_fd(struct ips2_out *o, int fd, size_t cap);

/* An output to sink(ctx, ...) through a buffer of cap bytes (0: 64 KiB),
 * as ips2_out_init_fd() does to a descriptor. */
void ips2_out_init_sink(struct ips2_out *o, int (*sink)(void *ctx, const void *bytes, size_t len),
                        void *ctx, size_t cap);

/* Frees the buffer (not the descriptor). */
void ips2_out_free(struct ips2_out *o);

/* Writes the buffered bytes to fd (in memory: nothing).  0, or -1 with
 * o->err set. */
int ips2_out_flush(struct ips2_out *o);

/* Drops the buffered bytes and forgets the error: for an append-only log
 * whose writer may try again after a failed flush (the file then lacks
 * whole records, never holds half of one more). */
void ips2_out_discard(struct ips2_out *o);

/* In memory: hands the bytes over (*size of them; the caller frees them)
 * and leaves the output empty.  NULL if the output is in error (it is then
 * freed). */
void *ips2_out_take(struct ips2_out *o, size_t *size);

/* Bytes written so far, flushed or not: the offset of the next one. */
static inline uint64_t ips2_out_offset(const struct ips2_out *o)
{
    return o->flushed + o->n;
}

/* Starts a running crc32 (zlib's) at the next byte. */
void ips2_out_crc_begin(struct ips2_out *o);

/* The crc32 of every byte since ips2_out_crc_begin; stops it. */
uint32_t ips2_out_crc_end(struct ips2_out *o);

/* Overwrites 4 bytes at offset at, which must still be in the buffer (an
 * output in memory). */
void ips2_out_patch_u32(struct ips2_out *o, uint64_t at, uint32_t v);

/* Room for k more bytes (growing or flushing): where they go, or NULL if
 * the output is in error. */
uint8_t *ips2_out_room_slow(struct ips2_out *o, size_t k);

static inline uint8_t *ips2_out_room(struct ips2_out *o, size_t k)
{
    if (o->cap - o->n >= k)
        return o->p + o->n;
    return ips2_out_room_slow(o, k);
}

/* n bytes as they are (to a descriptor, a range larger than the buffer
 * goes straight through). */
void ips2_put_bytes(struct ips2_out *o, const void *data, size_t n);

/* The low k bytes of v, little-endian (k a constant: the compiler makes
 * one store of it). */
static inline void ips2_put_le(struct ips2_out *o, uint64_t v, size_t k)
{
    uint8_t *q = ips2_out_room(o, k);
    if (q) {
        for (size_t i = 0; i < k; i++)
            q[i] = (uint8_t)(v >> 8 * i);
        o->n += k;
    }
}

static inline void ips2_put_u8(struct ips2_out *o, uint8_t v)
{
    ips2_put_le(o, v, 1);
}

static inline void ips2_put_u16(struct ips2_out *o, uint16_t v)
{
    ips2_put_le(o, v, 2);
}

static inline void ips2_put_u32(struct ips2_out *o, uint32_t v)
{
    ips2_put_le(o, v, 4);
}

static inline void ips2_put_u64(struct ips2_out *o, uint64_t v)
{
    ips2_put_le(o, v, 8);
}

static inline void ips2_put_i32(struct ips2_out *o, int32_t v)
{
    ips2_put_u32(o, (uint32_t)v);
}

static inline void ips2_put_i64(struct ips2_out *o, int64_t v)
{
    ips2_put_u64(o, (uint64_t)v);
}

static inline void ips2_put_f64(struct ips2_out *o, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, 8);
    ips2_put_u64(o, bits);
}

/* n values of 8 bytes each (a row's metrics, a histogram's buckets; v
 * holds uint64_t or double): one room check, one copy on a little-endian
 * host. */
static inline void ips2_put_8s(struct ips2_out *o, const void *v, size_t n)
{
    uint8_t *q = ips2_out_room(o, 8 * n);
    if (q && n > 0) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(q, v, 8 * n);
#else
        for (size_t i = 0; i < n; i++) {
            uint64_t bits;
            memcpy(&bits, (const uint8_t *)v + 8 * i, 8);
            ips2_le64_store(q + 8 * i, bits);
        }
#endif
        o->n += 8 * n;
    }
}

static inline void ips2_put_u64s(struct ips2_out *o, const uint64_t *v, size_t n)
{
    ips2_put_8s(o, v, n);
}

static inline void ips2_put_f64s(struct ips2_out *o, const double *v, size_t n)
{
    ips2_put_8s(o, v, n);
}

/* An unsigned LEB128 varint (1 to 10 bytes). */
void ips2_put_varint(struct ips2_out *o, uint64_t v);

/* A string (NULL: empty) as a u32 length and its bytes, no NUL. */
void ips2_put_str32(struct ips2_out *o, const char *s);

/* ---- input -------------------------------------------------------------- */

struct ips2_in {
    const uint8_t *p;
    size_t size, pos; /* the bytes, the cursor */
    const char *name; /* for messages: the file or message */
    char *err;        /* errlen bytes for the message, or NULL */
    size_t errlen;
    bool failed;    /* sticky: every get returns 0 and stays put */
    size_t fail_at; /* the byte offset of the first failure */
};

void ips2_in_init(struct ips2_in *in, const void *data, size_t size, const char *name, char *err,
                  size_t errlen);

/* Fails at byte at with "NAME: byte AT: " and the message; only the first
 * failure counts.  Returns -1 (for `return ips2_in_fail(...)`). */
int ips2_in_fail(struct ips2_in *in, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static inline size_t ips2_in_left(const struct ips2_in *in)
{
    return in->size - in->pos;
}

/* Whether count items of at least each bytes can still follow (the cap on
 * what a reader allocates for a count it read). */
static inline bool ips2_in_fits(const struct ips2_in *in, uint64_t count, size_t each)
{
    return count <= ips2_in_left(in) / each;
}

/* Fails at the cursor: "expected K bytes, found only L bytes left". */
void ips2_in_short(struct ips2_in *in, size_t k);

/* The next k bytes (the cursor moves past them), or NULL (failing at the
 * cursor if they are not all there). */
static inline const uint8_t *ips2_get_bytes(struct ips2_in *in, size_t k)
{
    if (!in->failed && in->size - in->pos >= k) {
        const uint8_t *q = in->p + in->pos;
        in->pos += k;
        return q;
    }
    ips2_in_short(in, k);
    return NULL;
}

static inline uint8_t ips2_get_u8(struct ips2_in *in)
{
    const uint8_t *q = ips2_get_bytes(in, 1);
    return q ? *q : 0;
}

static inline uint16_t ips2_get_u16(struct ips2_in *in)
{
    const uint8_t *q = ips2_get_bytes(in, 2);
    return q ? ips2_le16_load(q) : 0;
}

static inline uint32_t ips2_get_u32(struct ips2_in *in)
{
    const uint8_t *q = ips2_get_bytes(in, 4);
    return q ? ips2_le32_load(q) : 0;
}

static inline uint64_t ips2_get_u64(struct ips2_in *in)
{
    const uint8_t *q = ips2_get_bytes(in, 8);
    return q ? ips2_le64_load(q) : 0;
}

static inline int32_t ips2_get_i32(struct ips2_in *in)
{
    return (int32_t)ips2_get_u32(in);
}

static inline int64_t ips2_get_i64(struct ips2_in *in)
{
    return (int64_t)ips2_get_u64(in);
}

static inline double ips2_get_f64(struct ips2_in *in)
{
    uint64_t bits = ips2_get_u64(in);
    double v;
    memcpy(&v, &bits, 8);
    return v;
}

/* n values of 8 bytes each into v (uint64_t or double); false (v
 * untouched) if they are not all there. */
static inline bool ips2_get_8s(struct ips2_in *in, void *v, size_t n)
{
    const uint8_t *q = ips2_get_bytes(in, n <= SIZE_MAX / 8 ? 8 * n : SIZE_MAX);
    if (!q)
        return false;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n > 0)
        memcpy(v, q, 8 * n);
#else
    for (size_t i = 0; i < n; i++) {
        uint64_t bits = ips2_le64_load(q + 8 * i);
        memcpy((uint8_t *)v + 8 * i, &bits, 8);
    }
#endif
    return true;
}

static inline bool ips2_get_u64s(struct ips2_in *in, uint64_t *v, size_t n)
{
    return ips2_get_8s(in, v, n);
}

static inline bool ips2_get_f64s(struct ips2_in *in, double *v, size_t n)
{
    return ips2_get_8s(in, v, n);
}

/* An unsigned LEB128 varint; 0 on failure (truncated, or longer than 10
 * bytes or 64 bits: "expected a varint ..."). */
uint64_t ips2_get_varint(struct ips2_in *in);

/* A u32-length-prefixed string, as ips2_put_str32 writes it.  The format
 * words the message, so this one does not fail the cursor; it says what
 * was wrong, and *len holds the length read (if any). */
enum ips2_str_status {
    IPS2_STR_OK,        /* *s: a malloc'd copy, NUL-terminated */
    IPS2_STR_NO_LENGTH, /* fewer than 4 bytes left: the cursor stays */
    IPS2_STR_SHORT,     /* the length runs past the end: the cursor is past the length */
    IPS2_STR_NUL,       /* the bytes hold a NUL: likewise */
    IPS2_STR_NOMEM,     /* likewise */
};
enum ips2_str_status ips2_get_str32(struct ips2_in *in, char **s, uint32_t *len);

/* A malloc'd NUL-terminated copy of n bytes (NULL on OOM). */
char *ips2_dup_bytes(const uint8_t *p, size_t n);

#endif /* IPS2_CODEC_H */
