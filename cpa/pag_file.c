/*
 * pag_file.c - a part's bytes: the part file (SESSION/pag/MACHINE.pag),
 * and the two messages of cross-part matching (a part's ends, and the
 * arcs, outs and warnings matching gave it).  One layout for all three:
 *
 *   offset  size
 *   0       8    magic "IPS2PAG\0"
 *   8       2    version (2 for a part with ports; 1: a part without,
 *                its ends and the matching's arcs, as before)
 *   10      2    what: 1 part, 2 ends, 3 cross
 *   12      4    part number
 *   16      80   counts (u64): strings, apps, processes, threads, nodes,
 *                shares, arcs, outs, ends, warnings
 *   96           machine, trace_dir: u32 length + bytes each
 *                strings: u32 length + bytes each (no NUL inside)
 *                apps u32, processes 16 B, threads 16 B, nodes 32 B,
 *                shares 16 B, arcs 24 B, outs 16 B, ends 48 B: the
 *                structs of ips2_pag.h, little-endian, no padding
 *                warnings: u32 length + bytes each
 *                (version 2, a part only) ports: u64 count, 16 B each
 *                (struct ips2_pag_port: the TCP connections' ports)
 *   end-4   4    crc32 (zlib) of every byte before it
 *
 * The writer and the reader go through the buffer codec (traces/
 * ips2_codec.h) and mirror each other as Lua's ldump.c and lundump.c do:
 * write_header, write_names, write_strings, write_tables, write_warnings
 * and write_crc, and a read_X for each, in the same order (read_header
 * checks the crc at the end first, as this reader always has: nothing
 * is decoded from bytes that were altered).  The tables are the structs
 * as they are in memory, copied whole: a little-endian host is assumed.
 *
 * A part FILE is that layout compressed (version 3): the 8-byte magic, u16
 * version 3, u16 what (1), u32 0, then one zstd frame whose content is the
 * layout above (its own magic, version 1 or 2, and crc).  The shares of a
 * server's CPU arcs (dozens of procedures an arc, 16 bytes each) make
 * most of a part, and compress about 14 times (a redis run: 107 MB of
 * part, 7.6 MB written, against 25 MB of packed traces); zstd level 3 does
 * it at about 200 MB/s and decompresses at 700 MB/s.  IPS2_PAG_ZSTD=0 in
 * the environment writes the plain layout (and 1-19 another level).  The
 * messages over PVM stay plain.
 *
 * Version 4 (what the writer makes now) keeps the shares apart, after the
 * rest, so that a query that never reads them never inflates them:
 *
 *   0   8  magic;  8 u16 4;  10 u16 what (1);  12 u32 0
 *   16  8  u64: the compressed size A of the first frame
 *   24  A  zstd frame: the layout above without the shares' bytes (their
 *          count stays in the counts; the crc covers the bytes written)
 *   24+A   zstd frame (with zstd's checksum): the shares, 16 B each, in
 *          node order, up to the end of the file
 *
 * ips2_pag_read reads both; ips2_pag_read_lazy reads the first and keeps
 * the file open, and ips2_pag_shares_each streams the second through a
 * small window, each CPU arc's shares at once, checked as they come.
 *
 * The decoder trusts nothing: it checks the crc, every count against the
 * bytes left before it allocates, every index against its table, the
 * threads' node ranges (they tile the nodes in order), the nodes' time
 * order and share ranges, the arcs' order, and names the byte offset of
 * the first thing wrong.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "ips2_codec.h"
#include "ips2_file.h"
#include "pag_internal.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "pag_file.c copies its little-endian arrays as they are: a big-endian port needs swaps"
#endif

_Static_assert(sizeof(struct ips2_pag_process) == 16, "process layout");
_Static_assert(sizeof(struct ips2_pag_thread) == 16, "thread layout");
_Static_assert(sizeof(struct ips2_pag_node) == 32, "node layout");
_Static_assert(sizeof(struct ips2_pag_share) == 16, "share layout");
_Static_assert(sizeof(struct ips2_pag_arc) == 24, "arc layout");
_Static_assert(sizeof(struct ips2_pag_out) == 16, "out layout");
_Static_assert(sizeof(struct ips2_pag_end) == 48, "end layout");
_Static_assert(sizeof(struct ips2_pag_port) == 16, "port layout");

#define MAGIC            "IPS2PAG"
#define VERSION          2
#define VERSION_NO_PORTS 1
#define HEAD             96
#define VERSION_ZSTD     3            /* a part file: a zstd frame of the above */
#define VERSION_APART    4            /* a part file: two frames, the shares apart */
#define ZHEAD            16           /* magic, version, what, u32 0 */
#define AHEAD            24           /* version 4: ZHEAD and the first frame's size */
#define WBUF             (64u << 10)  /* the write buffer of a part file */
#define SIN              (128u << 10) /* compressed bytes read at a time */

enum what { W_PART = 1, W_ENDS = 2, W_CROSS = 3 };
enum {
    C_STRINGS,
    C_APPS,
    C_PROCESSES,
    C_THREADS,
    C_NODES,
    C_SHARES,
    C_ARCS,
    C_OUTS,
    C_ENDS,
    C_WARNINGS,
    C_N
};

/* Where a lazy part's shares are: one zstd frame (with zstd's checksum)
 * of the shares, 16 bytes each, in node order: in its file, kept open
 * (ips2_pag_read_lazy), or in memory (a part just built, pag_zbuf). */
struct ips2_pag_lazy {
    int fd;            /* -1: in memory */
    uint64_t at, size; /* the frame: offset in the file (0 in memory), compressed bytes */
    uint8_t *mem;      /* the frame in memory, or NULL */
    char *name;
};

/* Reads len bytes at off of fd; 0, or an errno (EIO: the file is
 * shorter). */
static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
    for (size_t got = 0; got < len;) {
        ssize_t r = pread(fd, (uint8_t *)buf + got, len - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r < 0 ? errno : EIO;
        got += (size_t)r;
    }
    return 0;
}

/* ---- encoding ------------------------------------------------------------ */

/* What a message of kind w holds of the part: its counts. */
static void counts_of(const struct ips2_pag *g, enum what w, uint64_t c[C_N])
{
    memset(c, 0, C_N * sizeof(*c));
    if (w != W_CROSS) {
        c[C_STRINGS] = g->nstrings;
        c[C_APPS] = g->napps;
        c[C_PROCESSES] = g->nprocesses;
        c[C_THREADS] = g->nthreads;
        c[C_ENDS] = g->nends;
    }
    if (w == W_PART) {
        c[C_NODES] = g->nnodes;
        c[C_SHARES] = g->nshares;
    }
    if (w != W_ENDS) {
        c[C_ARCS] = g->narcs;
        c[C_OUTS] = g->nouts;
        c[C_WARNINGS] = g->nwarnings;
    }
}

static void write_header(struct ips2_out *o, const struct ips2_pag *g, enum what w,
                         const uint64_t c[C_N])
{
    ips2_out_crc_begin(o);
    ips2_put_bytes(o, MAGIC, 8);
    ips2_put_u16(o, w == W_PART && g->nports ? VERSION : VERSION_NO_PORTS);
    ips2_put_u16(o, (uint16_t)w);
    ips2_put_u32(o, g->part);
    for (unsigned i = 0; i < C_N; i++)
        ips2_put_u64(o, c[i]);
}

static void write_names(struct ips2_out *o, const struct ips2_pag *g, enum what w)
{
    ips2_put_str32(o, w == W_CROSS ? "" : g->machine);
    ips2_put_str32(o, w == W_CROSS ? "" : g->trace_dir);
}

static void write_strings(struct ips2_out *o, const struct ips2_pag *g, const uint64_t c[C_N])
{
    for (size_t i = 0; i < c[C_STRINGS]; i++)
        ips2_put_str32(o, g->strings[i]);
}

static void put_lazy_shares(struct ips2_out *o, const struct ips2_pag *g);

/* The tables, each as the bytes of its structs (written straight to a
 * file: no copy of a whole part is ever made). */
static void write_tables(struct ips2_out *o, const struct ips2_pag *g, const uint64_t c[C_N],
                         bool apart)
{
    ips2_put_bytes(o, g->apps, c[C_APPS] * sizeof(*g->apps));
    ips2_put_bytes(o, g->processes, c[C_PROCESSES] * sizeof(*g->processes));
    ips2_put_bytes(o, g->threads, c[C_THREADS] * sizeof(*g->threads));
    ips2_put_bytes(o, g->nodes, c[C_NODES] * sizeof(*g->nodes));
    if (!apart && g->lazy && c[C_SHARES])
        put_lazy_shares(o, g); /* inflated as they are written */
    else if (!apart)
        ips2_put_bytes(o, g->shares, c[C_SHARES] * sizeof(*g->shares));
    ips2_put_bytes(o, g->arcs, c[C_ARCS] * sizeof(*g->arcs));
    ips2_put_bytes(o, g->outs, c[C_OUTS] * sizeof(*g->outs));
    ips2_put_bytes(o, g->ends, c[C_ENDS] * sizeof(*g->ends));
}

static void write_warnings(struct ips2_out *o, const struct ips2_pag *g, const uint64_t c[C_N])
{
    for (size_t i = 0; i < c[C_WARNINGS]; i++)
        ips2_put_str32(o, g->warnings[i]);
}

/* A part's ports (after the warnings: older readers never see them). */
static void write_ports(struct ips2_out *o, const struct ips2_pag *g, enum what w)
{
    if (w != W_PART || g->nports == 0)
        return; /* version 1: the same bytes as before */
    ips2_put_u64(o, g->nports);
    ips2_put_bytes(o, g->ports, g->nports * sizeof(*g->ports));
}

/* The crc32 of every byte before it. */
static void write_crc(struct ips2_out *o)
{
    ips2_put_u32(o, ips2_out_crc_end(o));
}

/* The layout; apart: without the shares' bytes (version 4's first frame). */
static void write_pag(struct ips2_out *o, const struct ips2_pag *g, enum what w, bool apart)
{
    uint64_t c[C_N];

    counts_of(g, w, c);
    write_header(o, g, w, c);
    write_names(o, g, w);
    write_strings(o, g, c);
    write_tables(o, g, c, apart);
    write_warnings(o, g, c);
    write_ports(o, g, w);
    write_crc(o);
}

static void *encode(const struct ips2_pag *g, enum what w, size_t *size)
{
    struct ips2_out o;

    ips2_out_init(&o);
    write_pag(&o, g, w, false);
    return ips2_out_take(&o, size);
}

void *ips2_pag_encode(const struct ips2_pag *pag, size_t *size)
{
    return encode(pag, W_PART, size);
}

void *ips2_pag_ends_encode(const struct ips2_pag *pag, size_t *size)
{
    return encode(pag, W_ENDS, size);
}

void *ips2_pag_cross_encode(const struct ips2_pag *pag, size_t *size)
{
    return encode(pag, W_CROSS, size);
}

/* A part file's compressor: ips2_out's sink in front of the file. */
struct zsink {
    ZSTD_CCtx *cctx;
    int fd;
    size_t cap;
    uint8_t *buf;     /* ZSTD_CStreamOutSize() bytes */
    uint64_t written; /* compressed bytes written */
};

static int write_fd(int fd, const uint8_t *b, size_t len)
{
    while (len) {
        ssize_t w = write(fd, b, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : ENOSPC;
        b += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Compresses len bytes (mode ZSTD_e_continue) or ends the frame
 * (ZSTD_e_end, len 0), writing what zstd gives; 0 or an errno. */
static int zsink_push(struct zsink *z, const void *bytes, size_t len, ZSTD_EndDirective mode)
{
    ZSTD_inBuffer in = {bytes, len, 0};
    size_t left;

    do {
        ZSTD_outBuffer out = {z->buf, z->cap, 0};
        left = ZSTD_compressStream2(z->cctx, &out, &in, mode);
        if (ZSTD_isError(left))
            return ENOMEM; /* zstd fails only for memory here */
        int e = write_fd(z->fd, z->buf, out.pos);
        if (e)
            return e;
        z->written += out.pos;
    } while (mode == ZSTD_e_end ? left != 0 : in.pos < in.size);
    return 0;
}

static int zsink_write(void *ctx, const void *bytes, size_t len)
{
    return zsink_push(ctx, bytes, len, ZSTD_e_continue);
}

/* A lazy part's shares inflated into o as they come (the plain layout of
 * a part built with them compressed, or read lazily). */
static void put_lazy_shares(struct ips2_out *o, const struct ips2_pag *g)
{
    char err[256];
    struct pag_zread *t = pag_zread_open(g->lazy, g->nshares, g->nstrings, err, sizeof err);
    const size_t step = 4096;
    bool ok = t != NULL;

    for (size_t i = 0; ok && !o->err && i < g->nshares; i += step) {
        size_t n = g->nshares - i < step ? g->nshares - i : step;
        const struct ips2_pag_share *sh = pag_zread_next(t, n);
        if (!(ok = sh != NULL))
            break;
        ips2_put_bytes(o, sh, n * sizeof *sh);
    }
    if (ok && !o->err)
        ok = pag_zread_end(t) == 0;
    pag_zread_free(t);
    if (!ok && !o->err) {
        o->err = EIO; /* damaged shares: the codec refuses every put from now on */
        o->cap = o->n;
    }
}

/* Copies a lazy part's shares' frame (compressed, as it is) to fd; 0 or
 * an errno. */
static int copy_frame(int fd, const struct ips2_pag_lazy *z)
{
    if (z->mem)
        return write_fd(fd, z->mem, (size_t)z->size);
    uint8_t *buf = malloc(SIN);
    int e = buf ? 0 : ENOMEM;
    for (uint64_t at = 0; !e && at < z->size; at += SIN) {
        size_t n = z->size - at < SIN ? (size_t)(z->size - at) : SIN;
        if (!(e = read_at(z->fd, buf, n, z->at + at)))
            e = write_fd(fd, buf, n);
    }
    free(buf);
    return e;
}

/* Writes the part to fd, compressed at level (0: plain); 0 or an errno.
 * Compressed: version 4, the layout without the shares in one frame, the
 * shares in a second one, the first frame's size patched in at the end. */
static int write_part(const struct ips2_pag *pag, int fd, int level)
{
    struct ips2_out o;
    struct zsink z = {NULL, fd, 0, NULL, 0};
    int e = 0;

    if (level == 0) {
        ips2_out_init_fd(&o, fd, WBUF);
    } else {
        uint8_t head[AHEAD] = {0};
        memcpy(head, MAGIC, 8);
        ips2_le16_store(head + 8, VERSION_APART);
        ips2_le16_store(head + 10, W_PART);
        z.cap = ZSTD_CStreamOutSize();
        if (!(z.cctx = ZSTD_createCCtx()) || !(z.buf = malloc(z.cap)) ||
            ZSTD_isError(ZSTD_CCtx_setParameter(z.cctx, ZSTD_c_compressionLevel, level)) ||
            ZSTD_isError(ZSTD_CCtx_setParameter(z.cctx, ZSTD_c_checksumFlag, 0)))
            e = ENOMEM;
        else
            e = write_fd(fd, head, sizeof head);
        ips2_out_init_sink(&o, zsink_write, &z, WBUF);
    }
    if (!e && !o.err) {
        write_pag(&o, pag, W_PART, level != 0);
        ips2_out_flush(&o);
    }
    e = e ? e : o.err;
    ips2_out_free(&o);
    if (!e && level) {
        uint8_t size[8];
        uint64_t first;
        e = zsink_push(&z, NULL, 0, ZSTD_e_end);
        first = z.written;
        /* the shares: a frame of their own, checked by zstd's checksum */
        if (!e && pag->lazy) /* compressed already: the same frame */
            e = copy_frame(fd, pag->lazy);
        else if (!e && ZSTD_isError(ZSTD_CCtx_setParameter(z.cctx, ZSTD_c_checksumFlag, 1)))
            e = ENOMEM;
        for (size_t i = 0; !e && !pag->lazy && i < pag->nshares; i += WBUF / sizeof(*pag->shares)) {
            size_t n = pag->nshares - i < WBUF / sizeof(*pag->shares) ? pag->nshares - i
                                                                      : WBUF / sizeof(*pag->shares);
            e = zsink_push(&z, pag->shares + i, n * sizeof(*pag->shares), ZSTD_e_continue);
        }
        if (!e && !pag->lazy)
            e = zsink_push(&z, NULL, 0, ZSTD_e_end);
        ips2_le64_store(size, first);
        if (!e && pwrite(fd, size, 8, ZHEAD) != 8)
            e = errno ? errno : EIO;
    }
    ZSTD_freeCCtx(z.cctx);
    free(z.buf);
    return e;
}

int ips2_pag_write(const struct ips2_pag *pag, const char *path, char *err, size_t errlen)
{
    char tmp[4096];
    int fd;

    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
        snprintf(err, errlen, "%s: cannot create: %s", tmp, strerror(errno));
        return -1;
    }
    int e = write_part(pag, fd, pag_zstd_level());
    if (e) {
        snprintf(err, errlen, "%s: cannot write: %s", tmp, strerror(e));
        close(fd);
        unlink(tmp);
        return -1;
    }
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* ---- decoding ------------------------------------------------------------ */

struct dec {
    struct ips2_in in;
    struct ips2_pag *g;
    enum what w;
    bool apart; /* version 4's first frame: the shares' bytes are not in it */
    uint16_t version;
    uint64_t c[C_N];
    size_t at[C_N]; /* where each table starts, for check() */
};

/* Fails with "NAME: byte OFF: expected WHAT"; false. */
__attribute__((format(printf, 3, 4))) static bool bad(struct dec *d, size_t off, const char *fmt,
                                                      ...)
{
    char what[300];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    ips2_in_fail(&d->in, off, "expected %s", what);
    return false;
}

static size_t left(const struct dec *d)
{
    return ips2_in_left(&d->in);
}

/* len more bytes of what: there, or a failure. */
static bool need(struct dec *d, size_t len, const char *what)
{
    if (d->in.failed)
        return false;
    if (len > left(d))
        return bad(d, d->in.pos, "%s (%zu bytes), found %zu bytes left", what, len, left(d));
    return true;
}

static char *read_str(struct dec *d, const char *what)
{
    size_t at = d->in.pos;
    uint32_t len;
    char *s;

    if (!need(d, 4, what))
        return NULL;
    switch (ips2_get_str32(&d->in, &s, &len)) {
    case IPS2_STR_OK:
        return s;
    case IPS2_STR_NO_LENGTH:
        break;
    case IPS2_STR_SHORT:
        bad(d, at, "%s of %u bytes, found %zu bytes left", what, len, left(d));
        break;
    case IPS2_STR_NUL:
        bad(d, at, "%s without NUL bytes, found one", what);
        break;
    case IPS2_STR_NOMEM:
        bad(d, at, "memory for %s", what);
        break;
    }
    return NULL;
}

/* An array of n elements of size elem, after checking they fit. */
static void *read_array(struct dec *d, uint64_t n, size_t elem, const char *what)
{
    size_t at = d->in.pos;

    if (d->in.failed)
        return NULL;
    if (!ips2_in_fits(&d->in, n, elem)) {
        bad(d, at, "%llu %s (%zu bytes each), found %zu bytes left", (unsigned long long)n, what,
            elem, left(d));
        return NULL;
    }
    if (n == 0)
        return NULL;
    void *v = malloc((size_t)n * elem);
    if (!v) {
        bad(d, at, "memory for %llu %s", (unsigned long long)n, what);
        return NULL;
    }
    memcpy(v, ips2_get_bytes(&d->in, (size_t)n * elem), (size_t)n * elem);
    return v;
}

/* The crc32 of every byte before the last four (write_crc); the bytes
 * decoded from then on stop before it. */
static bool read_crc(struct dec *d)
{
    const uint8_t *p = d->in.p;
    size_t size = d->in.size;
    uint32_t want = ips2_le32_load(p + size - 4);
    uint32_t crc = (uint32_t)crc32(0L, Z_NULL, 0);

    for (size_t off = 0; off < size - 4;) {
        size_t len = size - 4 - off > (1u << 30) ? (1u << 30) : size - 4 - off;
        crc = (uint32_t)crc32(crc, p + off, (uInt)len);
        off += len;
    }
    if (crc != want)
        return bad(d, size - 4, "crc32 %08x, found %08x", crc, want);
    d->in.size = size - 4; /* the crc is not data */
    return true;
}

static bool read_header(struct dec *d)
{
    struct ips2_in *in = &d->in;

    if (in->size < HEAD + 12)
        return bad(d, 0, "a PAG of at least %d bytes, found %zu", HEAD + 12, in->size);
    if (!need(d, 8, "the magic") || memcmp(ips2_get_bytes(in, 8), MAGIC, 8) != 0)
        return bad(d, 0, "magic \"IPS2PAG\", found something else");
    if (!need(d, 4, "version"))
        return false;
    uint16_t version = ips2_get_u16(in), what = ips2_get_u16(in);
    if ((version != VERSION && version != VERSION_NO_PORTS) || what != d->w)
        return bad(d, 8, "version %d of a %s, found version %u of kind %u", VERSION,
                   d->w == W_PART   ? "part"
                   : d->w == W_ENDS ? "part's ends"
                                    : "matching's arcs",
                   version, what);
    d->version = version;
    if (!read_crc(d) || !need(d, 4, "the part number"))
        return false;
    d->g->part = ips2_get_u32(in);
    if (!need(d, sizeof(d->c), "the counts"))
        return false;
    for (unsigned i = 0; i < C_N; i++)
        d->c[i] = ips2_get_u64(in);
    return true;
}

static bool read_names(struct dec *d)
{
    return (d->g->machine = read_str(d, "the machine")) &&
           (d->g->trace_dir = read_str(d, "the trace dir"));
}

static bool read_strings(struct dec *d)
{
    struct ips2_pag *g = d->g;
    uint64_t n = d->c[C_STRINGS];

    d->at[C_STRINGS] = d->in.pos;
    if (!ips2_in_fits(&d->in, n, 4))
        return bad(d, d->in.pos, "%llu strings, found %zu bytes left", (unsigned long long)n,
                   left(d));
    if (n && !(g->strings = calloc((size_t)n, sizeof(char *))))
        return bad(d, d->in.pos, "memory for the strings");
    for (; g->nstrings < n; g->nstrings++)
        if (!(g->strings[g->nstrings] = read_str(d, "a string")))
            return false;
    return true;
}

static bool read_tables(struct dec *d)
{
    struct ips2_pag *g = d->g;

#define TABLE(field, idx, what)                                                                    \
    d->at[idx] = d->in.pos;                                                                        \
    g->field = read_array(d, d->c[idx], sizeof(*g->field), what);                                  \
    if (d->in.failed)                                                                              \
        return false;                                                                              \
    g->n##field = (size_t)d->c[idx];
    TABLE(apps, C_APPS, "applications")
    TABLE(processes, C_PROCESSES, "processes")
    TABLE(threads, C_THREADS, "threads")
    TABLE(nodes, C_NODES, "nodes")
    if (d->apart) { /* their count, not their bytes: they follow in a frame of their own */
        d->at[C_SHARES] = d->in.pos;
        g->nshares = (size_t)d->c[C_SHARES];
    } else {
        TABLE(shares, C_SHARES, "shares")
    }
    TABLE(arcs, C_ARCS, "arcs")
    TABLE(outs, C_OUTS, "outs")
    TABLE(ends, C_ENDS, "ends")
#undef TABLE
    return true;
}

static bool read_warnings(struct dec *d)
{
    struct ips2_pag *g = d->g;
    uint64_t n = d->c[C_WARNINGS];

    d->at[C_WARNINGS] = d->in.pos;
    if (!ips2_in_fits(&d->in, n, 4))
        return bad(d, d->in.pos, "%llu warnings, found %zu bytes left", (unsigned long long)n,
                   left(d));
    if (n && !(g->warnings = calloc((size_t)n, sizeof(char *))))
        return bad(d, d->in.pos, "memory for the warnings");
    for (; g->nwarnings < n; g->nwarnings++)
        if (!(g->warnings[g->nwarnings] = read_str(d, "a warning")))
            return false;
    return true;
}

/* Nothing but the crc after the data. */
static bool read_end(struct dec *d)
{
    if (left(d))
        return bad(d, d->in.pos, "the crc32 at byte %zu, found %zu more bytes", d->in.size,
                   left(d));
    return true;
}

static bool role_known(uint16_t role)
{
    switch (role) {
    case IPS2_PAG_ROLE_BYTES_SEND:
    case IPS2_PAG_ROLE_BYTES_RECV:
    case IPS2_PAG_ROLE_CONNECT:
    case IPS2_PAG_ROLE_ACCEPT:
    case IPS2_PAG_ROLE_DGRAM_SEND:
    case IPS2_PAG_ROLE_DGRAM_RECV:
    case IPS2_PAG_ROLE_PVM_SEND:
    case IPS2_PAG_ROLE_PVM_RECV:
    case IPS2_PAG_ROLE_PVM_SPAWN:
    case IPS2_PAG_ROLE_PVM_TASK:
    case IPS2_PAG_ROLE_PVM_BARRIER:
    case IPS2_PAG_ROLE_PVM_TID:
        return true;
    default:
        return false;
    }
}

/* Version 2, a part: the ports, each of a process of the part, with a
 * port and a known role. */
static bool read_ports(struct dec *d)
{
    struct ips2_pag *g = d->g;

    if (d->version == VERSION_NO_PORTS)
        return true;
    if (d->w != W_PART)
        return bad(d, 8, "version %d of a part only, found it in a message", VERSION);
    if (!need(d, 8, "the ports' count"))
        return false;
    uint64_t n = ips2_get_u64(&d->in);
    size_t at = d->in.pos;
    if (n == 0) /* a part without ports is written as version 1 */
        return bad(d, at - 8, "at least one port in a version %d part, found 0", VERSION);
    g->ports = read_array(d, n, sizeof(*g->ports), "ports");
    if (d->in.failed)
        return false;
    g->nports = (size_t)n;
    for (size_t i = 0; i < g->nports; i++) {
        const struct ips2_pag_port *r = &g->ports[i];
        if (r->process >= g->nprocesses || r->port == 0 ||
            (r->role != IPS2_PAG_PORT_SERVER && r->role != IPS2_PAG_PORT_CLIENT))
            return bad(d, at + 16 * i,
                       "a port of a process < %zu, not 0, role 1 or 2, found process %u port %u "
                       "role %u",
                       g->nprocesses, r->process, r->port, r->role);
    }
    return true;
}

#define STR_OK(i) ((i) < g->nstrings || (i) == IPS2_PAG_NONE)

/* Checks everything that refers to something; offsets are the arrays'. */
static bool check(struct dec *d, struct ips2_pag *g, enum what w, const size_t *at)
{
    uint64_t total = 0; /* nodes the threads cover */

    for (size_t i = 0; i < g->napps; i++)
        if (g->apps[i] >= g->nstrings)
            return bad(d, at[C_APPS] + 4 * i, "an application name (string < %zu), found %u",
                       g->nstrings, g->apps[i]);
    for (size_t i = 0; i < g->nprocesses; i++) {
        const struct ips2_pag_process *p = &g->processes[i];
        if (p->app >= g->napps || !STR_OK(p->name))
            return bad(d, at[C_PROCESSES] + 16 * i,
                       "a process with application < %zu and a name string, found %u, %u", g->napps,
                       p->app, p->name);
    }
    for (size_t i = 0; i < g->nthreads; i++) {
        const struct ips2_pag_thread *t = &g->threads[i];
        if (t->process >= g->nprocesses || t->first != total)
            return bad(d, at[C_THREADS] + 16 * i,
                       "a thread of a process < %zu whose nodes start at %llu, found %u, %u",
                       g->nprocesses, (unsigned long long)total, t->process, t->first);
        total += t->count;
        if (total > UINT32_MAX)
            return bad(d, at[C_THREADS] + 16 * i, "fewer than 2^32 nodes in all");
    }
    if (w == W_PART && total != g->nnodes)
        return bad(d, at[C_THREADS], "threads covering the %zu nodes, found %llu", g->nnodes,
                   (unsigned long long)total);
    for (size_t t = 0; w == W_PART && t < g->nthreads; t++) {
        const struct ips2_pag_thread *th = &g->threads[t];
        for (uint32_t k = 0; k < th->count; k++) {
            size_t i = (size_t)th->first + k;
            const struct ips2_pag_node *n = &g->nodes[i];
            uint32_t lo = i ? g->nodes[i - 1].shares : 0;
            if (n->thread != t)
                return bad(d, at[C_NODES] + 32 * i, "a node of thread %zu, found %u", t, n->thread);
            if (n->shares < lo || n->shares > g->nshares || (k == 0 && n->shares != lo))
                return bad(d, at[C_NODES] + 32 * i,
                           "shares ending in [%u, %zu] (none for a first node), found %u", lo,
                           g->nshares, n->shares);
            if (n->cpu < 0 || !STR_OK(n->proc))
                return bad(d, at[C_NODES] + 32 * i,
                           "CPU >= 0 and a procedure string, found %lld, %u", (long long)n->cpu,
                           n->proc);
            if (k && n->wall < g->nodes[i - 1].wall)
                return bad(d, at[C_NODES] + 32 * i,
                           "a time >= %lld (the thread's previous node), "
                           "found %lld",
                           (long long)g->nodes[i - 1].wall, (long long)n->wall);
        }
    }
    if (w == W_PART && (g->nnodes ? g->nodes[g->nnodes - 1].shares : 0) != g->nshares)
        return bad(d, at[C_SHARES], "%zu shares, all of them on CPU arcs", g->nshares);
    for (size_t i = 0; g->shares && i < g->nshares; i++)
        if (!STR_OK(g->shares[i].proc) || g->shares[i].cpu < 0)
            return bad(d, at[C_SHARES] + 16 * i, "a share with a procedure string and CPU >= 0");
    for (size_t i = 0; i < g->narcs; i++) {
        const struct ips2_pag_arc *a = &g->arcs[i];
        bool own = IPS2_PAG_GID_PART(a->from) == g->part;
        if ((w == W_PART && a->to >= g->nnodes) || (i && a->to < g->arcs[i - 1].to))
            return bad(d, at[C_ARCS] + 24 * i, "an arc to a node < %zu, in order, found %u",
                       g->nnodes, a->to);
        if (a->type < IPS2_PAG_ARC_MESSAGE || a->type > IPS2_PAG_ARC_EXIT || a->weight < 0)
            return bad(d, at[C_ARCS] + 24 * i, "an arc type 1-4 and a weight >= 0, found %u, %lld",
                       a->type, (long long)a->weight);
        if (w == W_PART && own && IPS2_PAG_GID_NODE(a->from) >= g->nnodes)
            return bad(d, at[C_ARCS] + 24 * i, "an arc from a node < %zu, found %u", g->nnodes,
                       IPS2_PAG_GID_NODE(a->from));
    }
    for (size_t i = 0; w == W_PART && i < g->nouts; i++)
        if (g->outs[i].from >= g->nnodes || IPS2_PAG_GID_PART(g->outs[i].to) == g->part)
            return bad(d, at[C_OUTS] + 16 * i, "an out from a node < %zu to another part",
                       g->nnodes);
    for (size_t i = 0; i < g->nends; i++)
        if (g->ends[i].node >= total || !role_known(g->ends[i].role))
            return bad(d, at[C_ENDS] + 48 * i,
                       "an end on a node < %llu with a known role, "
                       "found %u, %u",
                       (unsigned long long)total, g->ends[i].node, g->ends[i].role);
    return true;
}

/* The version of a compressed part file (3 or 4), or 0. */
static unsigned compressed(const uint8_t *data, size_t size)
{
    unsigned v = size >= ZHEAD && memcmp(data, MAGIC, 8) == 0 ? ips2_le16_load(data + 8) : 0;
    return v == VERSION_ZSTD || (v == VERSION_APART && size >= AHEAD) ? v : 0;
}

/* The kind (a part) and the reserved word of a compressed file's head. */
static int check_zhead(const uint8_t *data, const char *name, char *err, size_t errlen)
{
    if (ips2_le16_load(data + 10) != W_PART || ips2_le32_load(data + 12) != 0) {
        snprintf(err, errlen, "%s: byte 10: expected a compressed part (kind 1, then 0)", name);
        return -1;
    }
    return 0;
}

static int decode_plain(const void *data, size_t size, const char *name, enum what w, bool apart,
                        struct ips2_pag **out, char *err, size_t errlen);

/* Version 4: the first frame's size, checked against the file's; -1 with
 * err. */
static int first_frame(const uint8_t *head, uint64_t file_size, const char *name, uint64_t *size,
                       char *err, size_t errlen)
{
    *size = ips2_le64_load(head + ZHEAD);
    if (*size > file_size - AHEAD) {
        snprintf(err, errlen,
                 "%s: byte %d: expected a first frame of at most %llu bytes, found %llu", name,
                 ZHEAD, (unsigned long long)(file_size - AHEAD), (unsigned long long)*size);
        return -1;
    }
    return 0;
}

/* Checks the shares a version 4 file gave a decoded part; -1 with err. */
static int check_shares(const struct ips2_pag *g, const char *name, char *err, size_t errlen)
{
    for (size_t i = 0; i < g->nshares; i++)
        if (!STR_OK(g->shares[i].proc) || g->shares[i].cpu < 0) {
            snprintf(err, errlen,
                     "%s (shares): byte %zu: expected a share with a procedure string and CPU "
                     ">= 0",
                     name, 16 * i);
            return -1;
        }
    return 0;
}

/* The first frame of a compressed part decoded into *out (version 4:
 * without its shares); -1 with err. */
static int decode_first(const uint8_t *data, size_t size, unsigned version, const char *nm,
                        struct ips2_pag **out, char *err, size_t errlen)
{
    uint64_t first = size - ZHEAD;
    size_t at = version == VERSION_APART ? AHEAD : ZHEAD;
    uint8_t *plain;
    size_t plain_size;
    char inner[4200];

    if (check_zhead(data, nm, err, errlen) < 0 ||
        (version == VERSION_APART && first_frame(data, size, nm, &first, err, errlen) < 0) ||
        pag_inflate(data + at, (size_t)first, 0, at, nm, &plain, &plain_size, err, errlen) < 0)
        return -1;
    snprintf(inner, sizeof inner, "%s (decompressed)", nm);
    int rc =
        decode_plain(plain, plain_size, inner, W_PART, version == VERSION_APART, out, err, errlen);
    free(plain);
    return rc;
}

/* A part file's bytes (compressed or plain), or a message's. */
static int decode(const void *data, size_t size, const char *name, enum what w,
                  struct ips2_pag **out, char *err, size_t errlen)
{
    const char *nm = name ? name : "PAG";
    unsigned version = w == W_PART ? compressed(data, size) : 0;

    *out = NULL;
    if (!version)
        return decode_plain(data, size, name, w, false, out, err, errlen);
    if (decode_first(data, size, version, nm, out, err, errlen) < 0)
        return -1;
    if (version == VERSION_ZSTD)
        return 0;
    /* version 4: the shares, the rest of the file */
    struct ips2_pag *g = *out;
    size_t at = AHEAD + (size_t)ips2_le64_load((const uint8_t *)data + ZHEAD);
    uint8_t *shares;
    size_t bytes;
    if (pag_inflate((const uint8_t *)data + at, size - at, g->nshares * sizeof *g->shares, at, nm,
                    &shares, &bytes, err, errlen) < 0)
        goto fail;
    g->shares = (struct ips2_pag_share *)shares;
    if (bytes != g->nshares * sizeof(*g->shares)) {
        snprintf(err, errlen, "%s: byte %zu: expected %zu shares (%zu bytes), found %zu bytes", nm,
                 at, g->nshares, g->nshares * sizeof(*g->shares), bytes);
        goto fail;
    }
    if (check_shares(g, nm, err, errlen) < 0)
        goto fail;
    return 0;
fail:
    ips2_pag_free(g);
    *out = NULL;
    return -1;
}

static int decode_plain(const void *data, size_t size, const char *name, enum what w, bool apart,
                        struct ips2_pag **out, char *err, size_t errlen)
{
    struct dec d = {.w = w, .apart = apart};

    *out = NULL;
    ips2_in_init(&d.in, data, size, name ? name : "PAG", err, errlen);
    if (!(d.g = calloc(1, sizeof(*d.g)))) {
        snprintf(err, errlen, "%s: out of memory", d.in.name);
        return -1;
    }
    if (!read_header(&d) || !read_names(&d) || !read_strings(&d) || !read_tables(&d) ||
        !read_warnings(&d) || !read_ports(&d) || !read_end(&d) || !check(&d, d.g, w, d.at)) {
        ips2_pag_free(d.g);
        return -1;
    }
    *out = d.g;
    return 0;
}

int ips2_pag_decode(const void *data, size_t size, const char *name, struct ips2_pag **out,
                    char *err, size_t errlen)
{
    return decode(data, size, name, W_PART, out, err, errlen);
}

int ips2_pag_ends_decode(const void *data, size_t size, const char *name, struct ips2_pag **out,
                         char *err, size_t errlen)
{
    return decode(data, size, name, W_ENDS, out, err, errlen);
}

int ips2_pag_cross_apply(struct ips2_pag *pag, const void *data, size_t size, const char *name,
                         char *err, size_t errlen)
{
    struct ips2_pag *x;
    int rc = -1;

    if (decode(data, size, name, W_CROSS, &x, err, errlen) < 0)
        return -1;
    const char *nm = name ? name : "PAG";
    if (x->part != pag->part) {
        snprintf(err, errlen, "%s: byte 12: expected part %u, found %u", nm, pag->part, x->part);
        goto out;
    }
    for (size_t i = 0; i < x->narcs; i++)
        if (x->arcs[i].to >= pag->nnodes || (IPS2_PAG_GID_PART(x->arcs[i].from) == pag->part &&
                                             IPS2_PAG_GID_NODE(x->arcs[i].from) >= pag->nnodes)) {
            snprintf(err, errlen, "%s: arc %zu: expected nodes < %zu, found %u <- %llu", nm, i,
                     pag->nnodes, x->arcs[i].to, (unsigned long long)x->arcs[i].from);
            goto out;
        }
    for (size_t i = 0; i < x->nouts; i++)
        if (x->outs[i].from >= pag->nnodes) {
            snprintf(err, errlen, "%s: out %zu: expected a node < %zu, found %u", nm, i,
                     pag->nnodes, x->outs[i].from);
            goto out;
        }
    if (!pag_add_arcs(pag, x->arcs, x->narcs))
        goto oom;
    if (x->nouts) {
        struct ips2_pag_out *o = realloc(pag->outs, (pag->nouts + x->nouts) * sizeof(*o));
        if (!o)
            goto oom;
        memcpy(o + pag->nouts, x->outs, x->nouts * sizeof(*o));
        pag->outs = o;
        pag->nouts += x->nouts;
    }
    for (size_t i = 0; i < x->nwarnings; i++) {
        char *line = x->warnings[i];
        x->warnings[i] = NULL;
        if (!pag_add_warning(pag, line))
            goto oom;
    }
    pag->nends = 0;
    rc = 0;
    goto out;
oom:
    snprintf(err, errlen, "%s: out of memory adding the matched arcs", nm);
out:
    for (size_t i = 0; i < x->nwarnings; i++)
        free(x->warnings[i]);
    x->nwarnings = 0;
    ips2_pag_free(x);
    return rc;
}

void pag_lazy_free(struct ips2_pag_lazy *z)
{
    if (!z)
        return;
    if (z->fd >= 0)
        close(z->fd);
    free(z->mem);
    free(z->name);
    free(z);
}

/* Opens path as a part file: fd and its size, or -1 with err. */
static int open_part(const char *path, struct stat *st, char *err, size_t errlen)
{
    int fd = ips2_file_open(path, st); /* never a FIFO or a device */

    if (fd == -2)
        snprintf(err, errlen, "%s: expected a regular file, found %s", path,
                 ips2_file_kind(st->st_mode));
    else if (fd < 0)
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return fd < 0 ? -1 : fd;
}

int ips2_pag_read_lazy(const char *path, struct ips2_pag **out, char *err, size_t errlen)
{
    struct stat st;
    uint8_t head[AHEAD];
    uint64_t first;
    int fd = open_part(path, &st, err, errlen), e;

    *out = NULL;
    if (fd < 0)
        return -1;
    if ((uint64_t)st.st_size < AHEAD || read_at(fd, head, AHEAD, 0) != 0 ||
        compressed(head, AHEAD) != VERSION_APART) {
        close(fd);
        return ips2_pag_read(path, out, err, errlen); /* versions 1-3: whole */
    }
    if (first_frame(head, (uint64_t)st.st_size, path, &first, err, errlen) < 0) {
        close(fd);
        return -1;
    }
    uint8_t *buf = malloc(AHEAD + (size_t)first);
    struct ips2_pag_lazy *z = calloc(1, sizeof *z);
    if (!buf || !z || !(z->name = strdup(path))) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(ENOMEM));
        goto fail;
    }
    if ((e = read_at(fd, buf, AHEAD + (size_t)first, 0)) != 0) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(e));
        goto fail;
    }
    if (decode_first(buf, AHEAD + (size_t)first, VERSION_APART, path, out, err, errlen) < 0)
        goto fail;
    free(buf);
    z->fd = fd;
    z->at = AHEAD + first;
    z->size = (uint64_t)st.st_size - z->at;
    (*out)->lazy = z;
    return 0;
fail:
    free(buf);
    if (z)
        free(z->name);
    free(z);
    close(fd);
    return -1;
}

/* A lazy part's shares as they are inflated: a window of whole shares
 * [base, base + len / 16) and the frame's input. */
struct pag_zread {
    const struct ips2_pag_lazy *z;
    uint64_t nshares; /* in the frame */
    size_t nstrings;  /* a share names a string < nstrings or none; SIZE_MAX: unchecked */
    ZSTD_DCtx *dctx;
    uint8_t *in; /* a file's: read SIN bytes at a time */
    ZSTD_inBuffer zin;
    uint64_t read; /* compressed bytes read so far */
    size_t last;   /* zstd's last hint: 0 once the frame ended */
    uint8_t *buf;
    size_t len, cap; /* bytes */
    uint64_t base;   /* the share at buf[0] */
    uint64_t pos;    /* the next share to give */
    char *err;
    size_t errlen;
};

/* Reads more of the frame when zstd has used what it had; 0, or -1 with
 * err. */
static int stream_fill(struct pag_zread *t)
{
    if (t->zin.pos < t->zin.size || t->read == t->z->size)
        return 0;
    if (t->z->mem) { /* all of it at once */
        t->zin = (ZSTD_inBuffer){t->z->mem, (size_t)t->z->size, 0};
        t->read = t->z->size;
        return 0;
    }
    size_t n = t->z->size - t->read < SIN ? (size_t)(t->z->size - t->read) : SIN;
    int e = read_at(t->z->fd, t->in, n, t->z->at + t->read);
    if (e) {
        snprintf(t->err, t->errlen, "%s: cannot read the shares: %s", t->z->name, strerror(e));
        return -1;
    }
    t->zin = (ZSTD_inBuffer){t->in, n, 0};
    t->read += n;
    return 0;
}

/* Where the frame's input stands, as a byte of the file. */
static unsigned long long stream_at(const struct pag_zread *t)
{
    return (unsigned long long)(t->z->at + t->read - (t->zin.size - t->zin.pos));
}

/* One step of zstd into buf[*pos, cap): 1 when it made progress, 0 when
 * it could not (the frame ended, or the file did), -1 with err. */
static int stream_step(struct pag_zread *t, uint8_t *buf, size_t cap, size_t *pos)
{
    if (t->last == 0 || stream_fill(t) < 0)
        return t->last == 0 ? 0 : -1;
    size_t in0 = t->zin.pos, out0 = *pos;
    ZSTD_outBuffer o = {buf, cap, *pos};
    size_t rc = ZSTD_decompressStream(t->dctx, &o, &t->zin);
    if (ZSTD_isError(rc)) {
        snprintf(t->err, t->errlen, "%s: byte %llu: expected the shares' zstd frame, found %s",
                 t->z->name, stream_at(t), ZSTD_getErrorName(rc));
        return -1;
    }
    t->last = rc;
    *pos = o.pos;
    return o.pos > out0 || t->zin.pos > in0 || rc == 0;
}

/* Inflates more shares into the window (which has room); 0, or -1 with
 * err (damage, a short frame). */
static int stream_more(struct pag_zread *t)
{
    for (;;) {
        size_t before = t->len;
        int r = stream_step(t, t->buf, t->cap, &t->len);
        if (r < 0)
            return -1;
        if (t->len > before)
            return 0;
        if (r == 0 || t->last == 0) {
            snprintf(t->err, t->errlen, "%s: byte %llu: expected the rest of the %llu shares",
                     t->z->name, stream_at(t), (unsigned long long)t->nshares);
            return -1;
        }
    }
}

/* The window holds shares [lo, hi); 0, or -1 with err. */
static int stream_need(struct pag_zread *t, uint64_t lo, uint64_t hi)
{
    size_t want = (size_t)(hi - t->base) * sizeof(struct ips2_pag_share);

    while (t->len < want) {
        if (want > t->cap) { /* keep what is still needed, at the front */
            size_t drop = (size_t)(lo - t->base) * sizeof(struct ips2_pag_share);
            memmove(t->buf, t->buf + drop, t->len - drop);
            t->len -= drop;
            t->base = lo;
            want -= drop;
            if (want > t->cap) {
                uint8_t *b = realloc(t->buf, want * 2);
                if (!b) {
                    snprintf(t->err, t->errlen, "%s: out of memory for %llu shares", t->z->name,
                             (unsigned long long)(hi - lo));
                    return -1;
                }
                t->buf = b;
                t->cap = want * 2;
            }
        }
        if (stream_more(t) < 0)
            return -1;
    }
    return 0;
}

/* After the last share: the frame ends, with nothing more in it or after
 * it (zstd checks its checksum there). */
static int stream_end(struct pag_zread *t)
{
    size_t used = (size_t)(t->nshares - t->base) * sizeof(struct ips2_pag_share);

    while (t->len <= used) {
        if (t->last == 0)
            break;
        t->len = 0; /* the window is done with: zstd's flush goes there */
        used = 0;
        int r = stream_step(t, t->buf, t->cap, &t->len);
        if (r < 0)
            return -1;
        if (r == 0 && t->last != 0) {
            snprintf(t->err, t->errlen, "%s: byte %llu: expected the rest of the shares' frame",
                     t->z->name, stream_at(t));
            return -1;
        }
    }
    if (t->len > used) {
        snprintf(t->err, t->errlen, "%s: expected %llu shares, found more", t->z->name,
                 (unsigned long long)t->nshares);
        return -1;
    }
    if (t->zin.pos != t->zin.size || t->read != t->z->size) {
        snprintf(t->err, t->errlen, "%s: byte %llu: expected the end of the file after the shares",
                 t->z->name, stream_at(t));
        return -1;
    }
    return 0;
}

/* Checks one arc's shares (as the decoder checks a part's); -1 with err. */
static int stream_check(struct pag_zread *t, const struct ips2_pag_share *sh, size_t n, uint64_t lo)
{
    __int128 sum = 0;

    for (size_t i = 0; i < n; i++) {
        if ((t->nstrings != SIZE_MAX && sh[i].proc >= t->nstrings && sh[i].proc != IPS2_PAG_NONE) ||
            sh[i].cpu < 0) {
            snprintf(t->err, t->errlen,
                     "%s (shares): byte %llu: expected a share with a procedure string and CPU "
                     ">= 0",
                     t->z->name, (unsigned long long)(16 * (lo + i)));
            return -1;
        }
        sum += sh[i].cpu;
    }
    if (sum > INT64_MAX) {
        snprintf(t->err, t->errlen,
                 "%s (shares): byte %llu: expected shares adding up within int64", t->z->name,
                 (unsigned long long)(16 * lo));
        return -1;
    }
    return 0;
}

struct pag_zread *pag_zread_open(const struct ips2_pag_lazy *z, uint64_t nshares, size_t nstrings,
                                 char *err, size_t errlen)
{
    struct pag_zread *t = calloc(1, sizeof *t);

    if (t) {
        *t = (struct pag_zread){.z = z,
                                .nshares = nshares,
                                .nstrings = nstrings,
                                .last = 1,
                                .err = err,
                                .errlen = errlen,
                                .cap = 1u << 20};
        if ((t->dctx = ZSTD_createDCtx()) && (z->mem || (t->in = malloc(SIN))) &&
            (t->buf = malloc(t->cap)))
            return t;
        pag_zread_free(t);
    }
    snprintf(err, errlen, "%s: out of memory for the shares", z->name);
    return NULL;
}

struct ips2_pag_share *pag_zread_next(struct pag_zread *t, size_t n)
{
    if (n > t->nshares - t->pos) {
        snprintf(t->err, t->errlen, "%s: expected %zu more shares, found %llu", t->z->name, n,
                 (unsigned long long)(t->nshares - t->pos));
        return NULL;
    }
    if (stream_need(t, t->pos, t->pos + n) < 0)
        return NULL;
    struct ips2_pag_share *sh = (struct ips2_pag_share *)(t->buf + (t->pos - t->base) * 16);
    if (stream_check(t, sh, n, t->pos) < 0)
        return NULL;
    t->pos += n;
    return sh;
}

int pag_zread_end(struct pag_zread *t)
{
    if (t->pos != t->nshares) {
        snprintf(t->err, t->errlen, "%s: %llu shares left unread", t->z->name,
                 (unsigned long long)(t->nshares - t->pos));
        return -1;
    }
    return stream_end(t);
}

void pag_zread_free(struct pag_zread *t)
{
    if (!t)
        return;
    ZSTD_freeDCtx(t->dctx);
    free(t->in);
    free(t->buf);
    free(t);
}

int ips2_pag_shares_each(const struct ips2_pag *pag, ips2_pag_shares_fn *fn, void *arg, char *err,
                         size_t errlen)
{
    if (!pag->lazy) {
        for (size_t n = 0; n < pag->nnodes; n++) {
            uint32_t lo = n ? pag->nodes[n - 1].shares : 0, hi = pag->nodes[n].shares;
            if (fn(arg, (uint32_t)n, hi > lo ? pag->shares + lo : NULL, hi > lo ? hi - lo : 0))
                return -1;
        }
        return 0;
    }
    struct pag_zread *t = pag_zread_open(pag->lazy, pag->nshares, pag->nstrings, err, errlen);
    int rc = -1;

    if (!t)
        return -1;
    for (size_t n = 0; n < pag->nnodes; n++) {
        uint32_t lo = n ? pag->nodes[n - 1].shares : 0, hi = pag->nodes[n].shares;
        const struct ips2_pag_share *sh = NULL;
        if (hi > lo && !(sh = pag_zread_next(t, hi - lo)))
            goto out;
        if (fn(arg, (uint32_t)n, sh, hi > lo ? hi - lo : 0))
            goto out;
    }
    rc = pag_zread_end(t);
out:
    pag_zread_free(t);
    return rc;
}

int pag_shares_load(struct ips2_pag *pag, char *err, size_t errlen)
{
    if (!pag->lazy)
        return 0;
    struct ips2_pag_share *v = malloc((pag->nshares ? pag->nshares : 1) * sizeof *v);
    struct pag_zread *t =
        v ? pag_zread_open(pag->lazy, pag->nshares, pag->nstrings, err, errlen) : NULL;
    const size_t step = 1u << 16;

    for (size_t i = 0; t && i < pag->nshares; i += step) {
        size_t n = pag->nshares - i < step ? pag->nshares - i : step;
        const struct ips2_pag_share *sh = pag_zread_next(t, n);
        if (!sh)
            goto fail;
        memcpy(v + i, sh, n * sizeof *v);
    }
    if (!t || pag_zread_end(t) < 0)
        goto fail;
    pag_zread_free(t);
    pag_lazy_free(pag->lazy);
    pag->lazy = NULL;
    free(pag->shares);
    pag->shares = v;
    return 0;
fail:
    if (!v)
        snprintf(err, errlen, "%s: out of memory for %zu shares", pag->lazy->name, pag->nshares);
    pag_zread_free(t);
    free(v);
    return -1;
}

/* ---- shares compressed in memory ------------------------------------------ */

struct ips2_pag_lazy *pag_zbuf_end(struct pag_zbuf *z, const char *name)
{
    struct ips2_pag_lazy *l = calloc(1, sizeof *l);

    if (!l)
        return NULL;
    l->fd = -1;
    if ((l->name = strdup(name ? name : "PAG")) && pag_zbuf_take(z, &l->mem, &l->size))
        return l;
    pag_lazy_free(l);
    return NULL;
}

int ips2_pag_read(const char *path, struct ips2_pag **out, char *err, size_t errlen)
{
    struct stat st;
    int fd = ips2_file_open(path, &st); /* never a FIFO or a device */
    unsigned char *buf;
    size_t got = 0;

    *out = NULL;
    if (fd == -2) {
        snprintf(err, errlen, "%s: expected a regular file, found %s", path,
                 ips2_file_kind(st.st_mode));
        return -1;
    }
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    if (!(buf = malloc(st.st_size ? (size_t)st.st_size : 1))) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(ENOMEM));
        close(fd);
        return -1;
    }
    while (got < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    int rc = decode(buf, got, path, W_PART, out, err, errlen);
    free(buf);
    return rc;
}
