/*
 * pag_zstd.c - zstd frames in memory, for the PAG's shares: a builder's
 * shares compressed as they come (pag_zbuf: the part file's shares frame,
 * PAG.md §4-5), a path's shares for its message (wire.c's CPP2), and a
 * frame inflated within a bound (part files and messages alike).  Apart
 * from pag_file.c so that the engine's wire decoders (and their fuzz
 * target) need zstd and nothing of the part file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "pag_internal.h"

/* The level of a part file's compression: IPS2_PAG_ZSTD, else PAG_ZLEVEL;
 * 0: none. */
int pag_zstd_level(void)
{
    const char *v = getenv("IPS2_PAG_ZSTD");
    char *end;
    long l = v && *v ? strtol(v, &end, 10) : PAG_ZLEVEL;

    return v && *v && (*end || l < 0 || l > ZSTD_maxCLevel()) ? PAG_ZLEVEL : (int)l;
}

#define ZSTAGE 4096 /* shares handed to zstd at a time */

struct pag_zbuf {
    ZSTD_CCtx *cctx;
    uint8_t *buf; /* the frame so far */
    size_t n, cap;
    struct ips2_pag_share stage[ZSTAGE];
    size_t nstage;
    bool failed;
};

/* Gives zstd the input (or ends the frame); false on OOM. */
static bool zbuf_push(struct pag_zbuf *z, const void *bytes, size_t len, ZSTD_EndDirective mode)
{
    ZSTD_inBuffer in = {bytes, len, 0};
    size_t left, room = ZSTD_CStreamOutSize();

    do {
        if (z->cap - z->n < room) {
            size_t cap = z->cap * 2 > z->n + room ? z->cap * 2 : z->n + room;
            uint8_t *b = realloc(z->buf, cap);
            if (!b)
                return false;
            z->buf = b;
            z->cap = cap;
        }
        ZSTD_outBuffer out = {z->buf, z->cap, z->n};
        left = ZSTD_compressStream2(z->cctx, &out, &in, mode);
        if (ZSTD_isError(left))
            return false;
        z->n = out.pos;
    } while (mode == ZSTD_e_end ? left != 0 : in.pos < in.size);
    return true;
}

struct pag_zbuf *pag_zbuf_new(bool file_level)
{
    struct pag_zbuf *z = calloc(1, sizeof *z);
    /* zstd's level 3 (dfast) finds the arcs' repeats that level 1 misses:
     * a server's shares come to 16 bytes in 270 at 3, 1 in 7 at 1, in
     * less time */
    int level = file_level ? pag_zstd_level() : PAG_ZLEVEL;

    if (!z)
        return NULL;
    if (!(z->cctx = ZSTD_createCCtx()) ||
        ZSTD_isError(
            ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_compressionLevel, level ? level : PAG_ZLEVEL)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_checksumFlag, 1))) {
        pag_zbuf_free(z);
        return NULL;
    }
    return z;
}

bool pag_zbuf_put(struct pag_zbuf *z, const struct ips2_pag_share *s, size_t n)
{
    while (n && !z->failed) {
        size_t k = ZSTAGE - z->nstage < n ? ZSTAGE - z->nstage : n;
        memcpy(z->stage + z->nstage, s, k * sizeof *s);
        z->nstage += k;
        s += k;
        n -= k;
        if (z->nstage == ZSTAGE) {
            z->failed = !zbuf_push(z, z->stage, sizeof z->stage, ZSTD_e_continue);
            z->nstage = 0;
        }
    }
    return !z->failed;
}

bool pag_zbuf_take(struct pag_zbuf *z, uint8_t **frame, size_t *size)
{
    if (z->failed || !zbuf_push(z, z->stage, z->nstage * sizeof *z->stage, ZSTD_e_end)) {
        z->failed = true;
        return false;
    }
    uint8_t *b = realloc(z->buf, z->n ? z->n : 1); /* the growth's slack back */
    *frame = b ? b : z->buf;
    *size = z->n;
    z->buf = NULL;
    z->n = z->cap = 0;
    return true;
}

bool pag_shares_compress(const struct ips2_pag_share *s, size_t n, uint8_t **frame, size_t *size)
{
    struct pag_zbuf *z = pag_zbuf_new(false);
    bool ok = z && pag_zbuf_put(z, s, n) && pag_zbuf_take(z, frame, size);

    pag_zbuf_free(z);
    return ok;
}

size_t pag_zbuf_size(const struct pag_zbuf *z)
{
    return z->n;
}

void pag_zbuf_free(struct pag_zbuf *z)
{
    if (!z)
        return;
    ZSTD_freeCCtx(z->cctx);
    free(z->buf);
    free(z);
}

int pag_inflate(const uint8_t *src, size_t size, uint64_t expect, size_t at, const char *name,
                uint8_t **plain, size_t *plain_size, char *err, size_t errlen)
{
    /* No real part compresses 1000 times: beyond that, the frame is not
     * one of ours (and would only exhaust the memory). */
    uint64_t limit = expect ? expect : (uint64_t)size * 1000 + (64u << 20);
    size_t cap = size * 4 + (64u << 10);
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    ZSTD_inBuffer in = {src, size, 0};
    uint8_t *buf = NULL;
    size_t n = 0, rc = 1;

    *plain = NULL;
    while (dctx && in.pos < in.size && rc != 0) {
        if (n == cap || !buf) {
            size_t want = buf ? cap * 2 : cap;
            if (want > limit)
                want = (size_t)limit; /* the last step up to the bound */
            uint8_t *q = want > n || !buf ? realloc(buf, want ? want : 1) : NULL;
            if (!q) {
                snprintf(err, errlen,
                         "%s: byte %zu: expected what fits in memory, found "
                         "more than %zu bytes",
                         name, at + in.pos, n);
                goto fail;
            }
            buf = q;
            cap = want;
        }
        ZSTD_outBuffer out = {buf, cap, n};
        rc = ZSTD_decompressStream(dctx, &out, &in);
        n = out.pos;
        if (ZSTD_isError(rc)) {
            snprintf(err, errlen, "%s: byte %zu: expected a zstd frame, found %s", name,
                     at + in.pos, ZSTD_getErrorName(rc));
            goto fail;
        }
    }
    if (!dctx || rc != 0 || in.pos != in.size) {
        snprintf(err, errlen, "%s: byte %zu: expected %s", name, at + in.pos,
                 !dctx ? "memory for zstd"
                 : rc  ? "the rest of the zstd frame, found the end of the file"
                       : "the end of the file after the zstd frame, found more bytes");
        goto fail;
    }
    ZSTD_freeDCtx(dctx);
    *plain = buf ? buf : malloc(1);
    *plain_size = n;
    return *plain ? 0 : -1;
fail:
    ZSTD_freeDCtx(dctx);
    free(buf);
    return -1;
}
