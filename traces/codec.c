/*
 * codec.c - the slow paths of ips2_codec.h: growing and flushing the
 * output, its running crc, failing the input, varints and strings.
 *
 * The running crc is computed lazily, over the buffer's bytes just before
 * they leave it (a flush) or when asked for, and over a byte range written
 * straight through before it is written: each byte is summed once, in big
 * spans, whatever the sizes of the puts were.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "ips2_codec.h"
#include "varint.h"

#define FD_BUFFER (64u << 10)

/* ---- output ------------------------------------------------------------- */

void ips2_out_init(struct ips2_out *o)
{
    *o = (struct ips2_out){.fd = -1};
}

static void out_error(struct ips2_out *o, int err)
{
    if (!o->err)
        o->err = err;
    o->cap = o->n; /* every put now takes the slow path, which refuses */
}

void ips2_out_init_fd(struct ips2_out *o, int fd, size_t cap)
{
    ips2_out_init(o);
    o->fd = fd;
    cap = cap ? cap : FD_BUFFER;
    if (!(o->p = malloc(cap)))
        out_error(o, ENOMEM);
    else
        o->cap = o->alloc = cap;
}

void ips2_out_init_sink(struct ips2_out *o, int (*sink)(void *ctx, const void *bytes, size_t len),
                        void *ctx, size_t cap)
{
    ips2_out_init_fd(o, -1, cap);
    o->sink = sink;
    o->sink_ctx = ctx;
}

/* True when the output goes somewhere (a descriptor or a sink) through a
 * fixed buffer, false when it grows in memory. */
static bool bound(const struct ips2_out *o)
{
    return o->fd >= 0 || o->sink != NULL;
}

void ips2_out_free(struct ips2_out *o)
{
    free(o->p);
    o->p = NULL;
    o->n = o->cap = o->alloc = 0;
}

static uint32_t crc_add(uint32_t crc, const uint8_t *b, size_t len)
{
    while (len) { /* crc32's length is an uInt */
        uInt k = len > (1u << 30) ? (1u << 30) : (uInt)len;
        crc = (uint32_t)crc32(crc, b, k);
        b += k;
        len -= k;
    }
    return crc;
}

/* Sums the buffered bytes not yet in the crc. */
static void crc_catch_up(struct ips2_out *o)
{
    if (o->crc_on && o->n > o->crc_from) {
        o->crc = crc_add(o->crc, o->p + o->crc_from, o->n - o->crc_from);
        o->crc_from = o->n;
    }
}

void ips2_out_crc_begin(struct ips2_out *o)
{
    o->crc_on = true;
    o->crc = (uint32_t)crc32(0L, Z_NULL, 0);
    o->crc_from = o->n;
}

uint32_t ips2_out_crc_end(struct ips2_out *o)
{
    crc_catch_up(o);
    o->crc_on = false;
    return o->crc;
}

static void write_all(struct ips2_out *o, const uint8_t *b, size_t len)
{
    if (o->sink) {
        int e = len && !o->err ? o->sink(o->sink_ctx, b, len) : 0;
        if (e)
            out_error(o, e);
        else
            o->flushed += len;
        return;
    }
    while (len && !o->err) {
        ssize_t w = write(o->fd, b, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            out_error(o, w < 0 ? errno : ENOSPC);
            return;
        }
        b += w;
        len -= (size_t)w;
        o->flushed += (uint64_t)w;
    }
}

int ips2_out_flush(struct ips2_out *o)
{
    if (bound(o) && o->n && !o->err) {
        crc_catch_up(o);
        write_all(o, o->p, o->n);
        if (o->err)
            return -1; /* the buffer stays full: nothing more goes in */
        o->n = 0;
        o->crc_from = 0;
    }
    return o->err ? -1 : 0;
}

void ips2_out_discard(struct ips2_out *o)
{
    o->n = 0;
    o->crc_from = 0;
    if (o->err && bound(o) && o->p) {
        o->err = 0;
        o->cap = o->alloc;
    }
}

uint8_t *ips2_out_room_slow(struct ips2_out *o, size_t k)
{
    if (o->err)
        return NULL;
    if (bound(o)) {
        if (ips2_out_flush(o) < 0)
            return NULL;
        if (o->cap >= k)
            return o->p;
    }
    if (k > SIZE_MAX / 2 - o->n) {
        out_error(o, ENOMEM);
        return NULL;
    }
    size_t cap = o->cap ? o->cap : 256;
    while (cap - o->n < k)
        cap *= 2;
    uint8_t *q = realloc(o->p, cap);
    if (!q) {
        out_error(o, ENOMEM);
        return NULL;
    }
    o->p = q;
    o->cap = o->alloc = cap;
    return o->p + o->n;
}

void ips2_put_bytes(struct ips2_out *o, const void *data, size_t n)
{
    if (n == 0 || o->err)
        return;
    if (bound(o) && n >= o->cap) { /* straight through, summed first */
        if (ips2_out_flush(o) < 0)
            return;
        if (o->crc_on)
            o->crc = crc_add(o->crc, data, n);
        write_all(o, data, n);
        return;
    }
    uint8_t *q = ips2_out_room(o, n);
    if (q) {
        memcpy(q, data, n);
        o->n += n;
    }
}

void *ips2_out_take(struct ips2_out *o, size_t *size)
{
    void *p = o->p;

    if (o->err || bound(o)) {
        ips2_out_free(o);
        return NULL;
    }
    if (!p && !(p = malloc(1))) /* nothing written: still a buffer to free */
        return NULL;
    *size = o->n;
    ips2_out_init(o);
    return p;
}

void ips2_out_patch_u32(struct ips2_out *o, uint64_t at, uint32_t v)
{
    if (o->err || at < o->flushed || at - o->flushed + 4 > o->n)
        return;
    ips2_le32_store(o->p + (at - o->flushed), v);
}

void ips2_put_varint(struct ips2_out *o, uint64_t v)
{
    uint8_t *q = ips2_out_room(o, IPS2_VARINT_MAX);
    if (q)
        o->n += ips2_varint_put(q, v);
}

void ips2_put_str32(struct ips2_out *o, const char *s)
{
    size_t len = s ? strlen(s) : 0;

    ips2_put_u32(o, (uint32_t)len);
    ips2_put_bytes(o, s, len);
}

/* ---- input -------------------------------------------------------------- */

void ips2_in_init(struct ips2_in *in, const void *data, size_t size, const char *name, char *err,
                  size_t errlen)
{
    *in = (struct ips2_in){.p = data, .size = size, .name = name, .err = err, .errlen = errlen};
}

int ips2_in_fail(struct ips2_in *in, size_t at, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (in->failed)
        return -1;
    in->failed = true;
    in->fail_at = at;
    if (!in->err || !in->errlen)
        return -1;
    n = snprintf(in->err, in->errlen, "%s: byte %zu: ", in->name, at);
    if (n < 0 || (size_t)n >= in->errlen)
        return -1;
    va_start(ap, fmt);
    vsnprintf(in->err + n, in->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

void ips2_in_short(struct ips2_in *in, size_t k)
{
    ips2_in_fail(in, in->pos, "expected %zu bytes, found only %zu bytes left", k, ips2_in_left(in));
}

uint64_t ips2_get_varint(struct ips2_in *in)
{
    uint64_t v = 0;
    int k;

    if (in->failed)
        return 0;
    k = ips2_varint_get(in->p + in->pos, ips2_in_left(in), &v);
    if (k <= 0) {
        ips2_in_fail(in, in->pos, "expected a varint of at most 10 bytes and 64 bits, found %s",
                     k == 0 ? "the end of the data" : "a longer one");
        return 0;
    }
    in->pos += (size_t)k;
    return v;
}

char *ips2_dup_bytes(const uint8_t *p, size_t n)
{
    char *s = malloc(n + 1);

    if (s) {
        memcpy(s, p, n);
        s[n] = '\0';
    }
    return s;
}

enum ips2_str_status ips2_get_str32(struct ips2_in *in, char **s, uint32_t *len)
{
    *s = NULL;
    *len = 0;
    if (in->failed || ips2_in_left(in) < 4)
        return IPS2_STR_NO_LENGTH;
    *len = ips2_get_u32(in);
    if (*len > ips2_in_left(in))
        return IPS2_STR_SHORT;
    if (memchr(in->p + in->pos, '\0', *len))
        return IPS2_STR_NUL;
    if (!(*s = ips2_dup_bytes(in->p + in->pos, *len)))
        return IPS2_STR_NOMEM;
    in->pos += *len;
    return IPS2_STR_OK;
}
