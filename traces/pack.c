/*
 * pack.c - compress a raw ips2 stream into the packed encoding.
 *
 * The raw stream is read with the reader in "as recorded" mode (no derived
 * CPU times), so every event is copied exactly: kind, timer, CPU reading if
 * any, payload and extra words.  PAD records never reach us (the reader
 * skips them), short records reach us as the events they stand for (so the
 * packed header drops the SHORT_LOCKS feature bit) and NONE only ends a
 * raw stream.  Events are varint-coded per
 * the grammar in ips2_format.h into blocks of at most IPS2_BLOCK_RAW_MAX
 * bytes, in columns (tags, timer deltas, CPU deltas, address indexes, the
 * rest), each block compressed on its own with zstd (level 1, a "BLC1"
 * block; the columns are coded straight into, no copy per event),
 * written to "<packed>.tmp" and renamed into place once complete, so a
 * packed file is never partial.  Readers take the interleaved blocks of
 * the packers before, zstd ("BLZ1") and zlib ("BLK1"), too.
 *
 * Columns (issue 13 item 3), on a redis stream of 9.4 M events (31.4 MB
 * coded), zstd's CPU and output over all blocks: interleaved, level 4
 * 0.47 s 7.30 MB (level 1 0.19 s 8.95 MB); in columns, level 1 0.06 s
 * 4.02 MB, level 3 0.07 s 3.82 MB, level 4 0.12 s 3.82 MB.  The packer as
 * a whole went from 0.76 s to 0.34 s of CPU (28 M events/s per core: the
 * reading and the coding are most of it now) for 43% fewer bytes; level 1
 * keeps it fastest, level 3 would save 5% more for a quarter more zstd
 * time.  Before columns:
 *
 * zstd against zlib, on a real stream (a redis-server run: 19.5 M events,
 * 245 blocks, 64 MB varint-coded), compressing every block on its own, CPU
 * time on one core:
 *
 *   zlib level 6 (the codec until now): 16.6 MB, 2.96 s
 *   zlib level 1: 24.5 MB, 1.02 s
 *   zstd level 2: 17.7 MB, 0.33 s;  level 3: 17.4 MB, 0.42 s
 *   zstd level 4: 15.5 MB, 0.86 s;  level 6: 14.7 MB, 1.23 s
 *   zstd level 9: 14.0 MB, 2.12 s
 *
 * (Interleaved) level 4 was the cheapest with a ratio no worse than zlib's, and 3.4 times
 * faster; it inflates faster too.  The zlib figures that chose level 6
 * before, measured on a synthetic loop stream: 2M enter/exit
 * pairs of a fixed 20-call loop body over 60 procedures, timer deltas of
 * 100-300 random ticks, no CPU words: 64 MB raw, 16.0 MB varint-coded
 * (4 bytes per event), compress2 time per level (best of 5, one core):
 *
 *   level 1: 9.03 MB = 4.52 bytes/pair, 0.22 s (71 MB/s of coded events)
 *   level 6: 7.93 MB = 3.96 bytes/pair, 1.06 s (15 MB/s)
 *   level 9: 7.90 MB = 3.95 bytes/pair, 1.20 s (13 MB/s)
 *
 * (A random call walk instead of a loop: 5.18 / 5.07 / 5.07 bytes/pair,
 * 0.26 / 0.88 / 0.88 s.)  The random timer deltas alone carry ~1.9 bytes
 * per pair, so level 6 gets within 2 bytes/pair of that; level 9 buys
 * 0.4% for 13% more time.  Level 6 costs ~4x level 1's time for 12% fewer
 * bytes, but still packs ~3.8M events/s per core (streams pack in
 * parallel) while the bytes are kept for as long as the session is, so
 * level 6.  Inflating is equally fast at every level.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "ips2_pack.h"
#include "error.h"
#include "ips2_record.h"
#include "reader_internal.h"
#include "varint.h"

#ifndef IPS2_PACK_LEVEL
#define IPS2_PACK_LEVEL 1 /* zstd's, on the columns */
#endif

#define DICT_SLOTS 8192u /* open-addressing table, at most half full */
/* The longest coded event: tag, two deltas, payload, count, extra words. */
#define EVENT_MAX (1 + 4 * IPS2_VARINT_MAX + IPS2_RAW_MAX_EXTRA * IPS2_VARINT_MAX)

struct packer {
    const char *tmp;
    int fd;
    uint64_t off; /* bytes written */
    char *err;

    /* the block being built: its columns (FORMAT.md section 4) */
    size_t used; /* bytes in all columns */
    size_t clen[IPS2_BLOCK_COLUMNS];
    uint32_t nevents;
    uint64_t first_timer;
    uint64_t ptimer, pcpu; /* delta bases */
    unsigned ndict;
    uint64_t keys[DICT_SLOTS];
    uint32_t slot[DICT_SLOTS]; /* table index + 1, or 0 if free */

    unsigned char raw[IPS2_BLOCK_RAW_MAX]; /* the column lengths, then the columns */
    unsigned char col[IPS2_BLOCK_COLUMNS][IPS2_BLOCK_RAW_MAX];
    unsigned char *comp;
    size_t comp_cap;
    ZSTD_CCtx *zstd;
};

static int write_out(struct packer *p, const void *data, size_t len)
{
    const unsigned char *c = data;

    while (len > 0) {
        ssize_t n = write(p->fd, c, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            ips2_set_error(p->err, "%s: byte %llu: cannot write: %s", p->tmp,
                           (unsigned long long)p->off, n < 0 ? strerror(errno) : "short write");
            return -1;
        }
        c += n;
        len -= (size_t)n;
        p->off += (uint64_t)n;
    }
    return 0;
}

static void block_reset(struct packer *p)
{
    p->used = 0;
    memset(p->clen, 0, sizeof(p->clen));
    p->nevents = 0;
    p->ptimer = 0;
    p->pcpu = 0;
    p->ndict = 0;
    memset(p->slot, 0, sizeof(p->slot));
}

static int flush_block(struct packer *p)
{
    struct ips2_block_header bh;

    if (p->nevents == 0)
        return 0;
    size_t len = IPS2_BLOCK_COLUMN_HDR;
    for (unsigned c = 0; c < IPS2_BLOCK_COLUMNS; c++) {
        if (c + 1 < IPS2_BLOCK_COLUMNS) {
            uint32_t n = (uint32_t)p->clen[c];
            memcpy(p->raw + 4 * c, &n, 4);
        }
        memcpy(p->raw + len, p->col[c], p->clen[c]);
        len += p->clen[c];
    }
    size_t clen = ZSTD_compressCCtx(p->zstd, p->comp, p->comp_cap, p->raw, len, IPS2_PACK_LEVEL);
    if (ZSTD_isError(clen)) {
        ips2_set_error(p->err, "%s: byte %llu: cannot compress a block: %s", p->tmp,
                       (unsigned long long)p->off, ZSTD_getErrorName(clen));
        return -1;
    }
    memset(&bh, 0, sizeof(bh));
    bh.magic = IPS2_BLOCK_MAGIC_COLS;
    bh.raw_len = (uint32_t)len;
    bh.comp_len = (uint32_t)clen;
    bh.crc32 = (uint32_t)crc32(0L, p->comp, (uInt)clen);
    bh.nevents = p->nevents;
    bh.first_timer = p->first_timer;
    if (write_out(p, &bh, sizeof(bh)) < 0 || write_out(p, p->comp, clen) < 0)
        return -1;
    block_reset(p);
    return 0;
}

static uint32_t dict_hash(uint64_t addr)
{
    return (uint32_t)((addr * 0x9e3779b97f4a7c15ull) >> 51) & (DICT_SLOTS - 1);
}

/* Slot of addr in the block's address table, or of the free slot where it
 * would go. */
static uint32_t dict_slot(const struct packer *p, uint64_t addr)
{
    uint32_t h = dict_hash(addr);

    while (p->slot[h] && p->keys[h] != addr)
        h = (h + 1) & (DICT_SLOTS - 1);
    return h;
}

/* Codes ev into the block's columns: the tag, the timer delta, the CPU
 * delta, the address index, the rest (FORMAT.md section 4). */
static void add_coded(struct packer *p, const struct ips2_event *ev)
{
    size_t *n = p->clen, before = n[0] + n[1] + n[2] + n[3] + n[4];
    unsigned char *tags = p->col[0], *timers = p->col[1], *cpus = p->col[2], *indexes = p->col[3],
                  *rest = p->col[4];

    tags[n[0]++] = (unsigned char)(ev->kind | (ev->cpu_exact ? 0x80u : 0u));
    n[1] += ips2_varint_put(timers + n[1], ips2_zigzag_u(ev->timer - p->ptimer));
    if (ev->cpu_exact)
        n[2] += ips2_varint_put(cpus + n[2], ips2_zigzag_u(ev->cpu_ns - p->pcpu));
    if (ev->kind == IPS2_EV_ENTER || ev->kind == IPS2_EV_EXIT) {
        uint32_t h = dict_slot(p, ev->payload);
        if (p->slot[h]) {
            n[3] += ips2_varint_put(indexes + n[3], p->slot[h] - 1);
        } else {
            n[3] += ips2_varint_put(indexes + n[3], p->ndict);
            n[4] += ips2_varint_put(rest + n[4], ev->payload);
            if (p->ndict < IPS2_PACK_DICT_MAX) {
                p->keys[h] = ev->payload;
                p->slot[h] = ++p->ndict;
            }
        }
    } else {
        n[4] += ips2_varint_put(rest + n[4], ev->payload);
        n[4] += ips2_varint_put(rest + n[4], ev->nextra);
        for (unsigned i = 0; i < ev->nextra; i++)
            n[4] += ips2_varint_put(rest + n[4], ev->extra[i]);
    }
    p->used += n[0] + n[1] + n[2] + n[3] + n[4] - before;
}

/* A block is cut before an event that might not fit (the longest one
 * does not): a few KiB short of IPS2_BLOCK_RAW_MAX at worst. */
static int add_event(struct packer *p, const struct ips2_event *ev)
{
    if (IPS2_BLOCK_COLUMN_HDR + p->used + EVENT_MAX > IPS2_BLOCK_RAW_MAX && flush_block(p) < 0)
        return -1;
    if (p->nevents == 0)
        p->first_timer = ev->timer;
    add_coded(p, ev);
    p->nevents++;
    p->ptimer = ev->timer;
    if (ev->cpu_exact)
        p->pcpu = ev->cpu_ns;
    return 0;
}

int ips2_pack_file(const char *raw_path, const char *packed_path, char *err)
{
    struct ips2_reader *r =
        ips2_reader_open_flags(raw_path, IPS2_READER_AS_RECORDED | IPS2_READER_EXACT_PATH, err);
    struct packer *p = NULL;
    char *tmp = NULL;
    int rc = -1;

    if (!r)
        return -1;
    p = calloc(1, sizeof(*p));
    tmp = malloc(strlen(packed_path) + 5);
    if (p) {
        p->fd = -1;
        p->comp_cap = ZSTD_compressBound(IPS2_BLOCK_RAW_MAX);
    }
    if (!p || !tmp || !(p->comp = malloc(p->comp_cap)) || !(p->zstd = ZSTD_createCCtx())) {
        ips2_set_error(err, "%s: byte 0: cannot pack it: out of memory", raw_path);
        goto out;
    }
    strcpy(tmp, packed_path);
    strcat(tmp, ".tmp");
    p->tmp = tmp;
    p->err = err;
    p->fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (p->fd < 0) {
        ips2_set_error(err, "%s: byte 0: cannot create: %s", tmp, strerror(errno));
        goto out;
    }

    struct ips2_file_header h = *ips2_reader_header(r);
    memcpy(h.magic, IPS2_MAGIC, IPS2_MAGIC_LEN);
    h.version = IPS2_VERSION;
    const struct ips2_cost_ext *costs = ips2_reader_costs(r), *end = ips2_reader_costs_end(r);
    h.header_size = (uint16_t)(sizeof(h) + (costs ? sizeof(*costs) : 0) + (end ? sizeof(*end) : 0));
    h.encoding = IPS2_ENC_PACKED;
    h.state = IPS2_STATE_CLOSED;
    h.data_bytes = 0;
    h.features &= ~IPS2_FEAT_SHORT_LOCKS; /* the reader expanded them: raw only */
    block_reset(p);
    if (write_out(p, &h, sizeof(h)) < 0 || (costs && write_out(p, costs, sizeof(*costs)) < 0) ||
        (end && write_out(p, end, sizeof(*end)) < 0))
        goto fail;

    const struct ips2_event *ev;
    int rrc;
    while ((rrc = ips2_reader_next(r, &ev)) > 0)
        if (add_event(p, ev) < 0)
            goto fail;
    if (flush_block(p) < 0)
        goto fail;
    if (close(p->fd) < 0) {
        p->fd = -1;
        ips2_set_error(err, "%s: byte %llu: cannot close: %s", tmp, (unsigned long long)p->off,
                       strerror(errno));
        goto fail;
    }
    p->fd = -1;
    if (rename(tmp, packed_path) < 0) {
        ips2_set_error(err, "%s: byte 0: cannot rename to %s: %s", tmp, packed_path,
                       strerror(errno));
        goto fail;
    }
    if (rrc < 0) {
        /* Packed up to the corrupt record; still report it. */
        ips2_set_error(err, "%s", ips2_reader_error(r));
        goto out;
    }
    rc = 0;
    goto out;
fail:
    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
    unlink(tmp);
out:
    if (p) {
        if (p->fd >= 0)
            close(p->fd);
        free(p->comp);
        ZSTD_freeCCtx(p->zstd);
    }
    free(p);
    free(tmp);
    ips2_reader_close(r);
    return rc;
}
