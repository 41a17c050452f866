/*
 * pag_file.c - a part's bytes: the part file (SESSION/pag/MACHINE.pag),
 * and the two messages of cross-part matching (a part's ends, and the
 * arcs, outs and warnings matching gave it).  One layout for all three:
 *
 *   offset  size
 *   0       8    magic "IPS2PAG\0"
 *   8       2    version (1)
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
 *   end-4   4    crc32 (zlib) of every byte before it
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

#define MAGIC   "IPS2PAG"
#define VERSION 1
#define HEAD    96

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

/* ---- encoding ------------------------------------------------------------ */

/* Where the bytes go: a growing buffer (fd < 0), or a file through a
 * small buffer, big arrays written as they are (the part's arrays are
 * most of it: no copy of the whole part is ever made).  The crc follows
 * the bytes. */
#define WBUF (64u << 10)

struct enc {
    unsigned char *p;
    size_t n, cap;
    int fd;
    uint32_t crc;
    bool oom; /* out of memory, or the file could not be written (err) */
    int err;
};

static uint32_t crc_of(uint32_t crc, const void *data, size_t len)
{
    const unsigned char *b = data;

    while (len) { /* crc32's length is an uInt */
        uInt n = len > (1u << 30) ? (1u << 30) : (uInt)len;
        crc = (uint32_t)crc32(crc, b, n);
        b += n;
        len -= n;
    }
    return crc;
}

static void write_all(struct enc *e, const void *data, size_t len)
{
    const char *b = data;

    while (len && !e->oom) {
        ssize_t w = write(e->fd, b, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            e->err = w < 0 ? errno : ENOSPC;
            e->oom = true;
            return;
        }
        b += w;
        len -= (size_t)w;
    }
}

static void flush(struct enc *e)
{
    if (e->fd >= 0 && e->n) {
        write_all(e, e->p, e->n);
        e->n = 0;
    }
}

/* The bytes, without the crc (raw: the crc itself). */
static void put_bytes(struct enc *e, const void *data, size_t len, bool raw)
{
    if (e->oom || len == 0)
        return;
    if (!raw)
        e->crc = crc_of(e->crc, data, len);
    if (e->fd >= 0 && e->n + len > e->cap) {
        flush(e);
        if (len >= e->cap) {
            write_all(e, data, len);
            return;
        }
    }
    if (e->n + len > e->cap) {
        size_t cap = e->cap ? e->cap : 4096;
        while (cap < e->n + len)
            cap *= 2;
        unsigned char *q = realloc(e->p, cap);
        if (!q) {
            e->oom = true;
            return;
        }
        e->p = q;
        e->cap = cap;
    }
    memcpy(e->p + e->n, data, len);
    e->n += len;
}

static void put(struct enc *e, const void *data, size_t len)
{
    put_bytes(e, data, len, false);
}

static void put32(struct enc *e, uint32_t v)
{
    put(e, &v, 4);
}

static void put_str(struct enc *e, const char *s)
{
    size_t len = s ? strlen(s) : 0;

    put32(e, (uint32_t)len);
    put(e, s, len);
}

static void emit(struct enc *e, const struct ips2_pag *g, enum what w)
{
    uint64_t c[C_N] = {0};
    uint16_t v16[2] = {VERSION, (uint16_t)w};

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
    e->crc = (uint32_t)crc32(0L, Z_NULL, 0);
    put(e, MAGIC, 8);
    put(e, v16, 4);
    put32(e, g->part);
    put(e, c, sizeof(c));
    put_str(e, w == W_CROSS ? "" : g->machine);
    put_str(e, w == W_CROSS ? "" : g->trace_dir);
    for (size_t i = 0; i < c[C_STRINGS]; i++)
        put_str(e, g->strings[i]);
    put(e, g->apps, c[C_APPS] * sizeof(*g->apps));
    put(e, g->processes, c[C_PROCESSES] * sizeof(*g->processes));
    put(e, g->threads, c[C_THREADS] * sizeof(*g->threads));
    put(e, g->nodes, c[C_NODES] * sizeof(*g->nodes));
    put(e, g->shares, c[C_SHARES] * sizeof(*g->shares));
    put(e, g->arcs, c[C_ARCS] * sizeof(*g->arcs));
    put(e, g->outs, c[C_OUTS] * sizeof(*g->outs));
    put(e, g->ends, c[C_ENDS] * sizeof(*g->ends));
    for (size_t i = 0; i < c[C_WARNINGS]; i++)
        put_str(e, g->warnings[i]);
    uint32_t crc = e->crc;
    put_bytes(e, &crc, 4, true);
    flush(e);
}

static void *encode(const struct ips2_pag *g, enum what w, size_t *size)
{
    struct enc e = {.fd = -1};

    emit(&e, g, w);
    if (e.oom) {
        free(e.p);
        return NULL;
    }
    *size = e.n;
    return e.p;
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

int ips2_pag_write(const struct ips2_pag *pag, const char *path, char *err, size_t errlen)
{
    struct enc e = {.fd = -1};
    char tmp[4096];

    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    if (!(e.p = malloc(WBUF))) {
        snprintf(err, errlen, "%s: out of memory encoding the PAG", path);
        return -1;
    }
    e.cap = WBUF;
    if ((e.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
        snprintf(err, errlen, "%s: cannot create: %s", tmp, strerror(errno));
        free(e.p);
        return -1;
    }
    emit(&e, pag, W_PART);
    free(e.p);
    if (e.oom) {
        snprintf(err, errlen, "%s: cannot write: %s", tmp, strerror(e.err ? e.err : ENOMEM));
        close(e.fd);
        unlink(tmp);
        return -1;
    }
    if (close(e.fd) != 0 || rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* ---- decoding ------------------------------------------------------------ */

struct dec {
    const unsigned char *p;
    size_t n, off;
    const char *name;
    char *err;
    size_t errlen;
    bool failed;
};

__attribute__((format(printf, 3, 4))) static bool bad(struct dec *d, size_t off, const char *fmt,
                                                      ...)
{
    char what[300];
    va_list ap;

    if (d->failed)
        return false;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    snprintf(d->err, d->errlen, "%s: byte %zu: expected %s", d->name, off, what);
    d->failed = true;
    return false;
}

static bool get(struct dec *d, void *out, size_t len, const char *what)
{
    if (d->failed)
        return false;
    if (len > d->n - d->off)
        return bad(d, d->off, "%s (%zu bytes), found %zu bytes left", what, len, d->n - d->off);
    memcpy(out, d->p + d->off, len);
    d->off += len;
    return true;
}

static char *get_str(struct dec *d, const char *what)
{
    uint32_t len = 0;
    size_t at = d->off;

    if (!get(d, &len, 4, what))
        return NULL;
    if (len > d->n - d->off) {
        bad(d, at, "%s of %u bytes, found %zu bytes left", what, len, d->n - d->off);
        return NULL;
    }
    if (memchr(d->p + d->off, 0, len)) {
        bad(d, at, "%s without NUL bytes, found one", what);
        return NULL;
    }
    char *s = malloc((size_t)len + 1);
    if (!s) {
        bad(d, at, "memory for %s", what);
        return NULL;
    }
    memcpy(s, d->p + d->off, len);
    s[len] = '\0';
    d->off += len;
    return s;
}

/* An array of n elements of size elem, after checking they fit. */
static void *get_array(struct dec *d, uint64_t n, size_t elem, const char *what)
{
    size_t at = d->off;

    if (d->failed)
        return NULL;
    if (n > (d->n - d->off) / elem) {
        bad(d, at, "%llu %s (%zu bytes each), found %zu bytes left", (unsigned long long)n, what,
            elem, d->n - d->off);
        return NULL;
    }
    if (n == 0)
        return NULL;
    void *v = malloc((size_t)n * elem);
    if (!v) {
        bad(d, at, "memory for %llu %s", (unsigned long long)n, what);
        return NULL;
    }
    memcpy(v, d->p + d->off, (size_t)n * elem);
    d->off += (size_t)n * elem;
    return v;
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
    for (size_t i = 0; i < g->nshares; i++)
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

static int decode(const void *data, size_t size, const char *name, enum what w,
                  struct ips2_pag **out, char *err, size_t errlen)
{
    struct dec d = {data, size, 0, name ? name : "PAG", err, errlen, false};
    struct ips2_pag *g = calloc(1, sizeof(*g));
    uint64_t c[C_N];
    size_t at[C_N] = {0};
    char magic[8];
    uint16_t v16[2];
    uint32_t crc, want;

    *out = NULL;
    if (!g) {
        snprintf(err, errlen, "%s: out of memory", d.name);
        return -1;
    }
    if (size < HEAD + 12) {
        bad(&d, 0, "a PAG of at least %d bytes, found %zu", HEAD + 12, size);
        goto fail;
    }
    get(&d, magic, 8, "the magic");
    if (memcmp(magic, MAGIC, 8) != 0) {
        bad(&d, 0, "magic \"IPS2PAG\", found something else");
        goto fail;
    }
    get(&d, v16, 4, "version");
    if (v16[0] != VERSION || v16[1] != w) {
        bad(&d, 8, "version %d of a %s, found version %u of kind %u", VERSION,
            w == W_PART   ? "part"
            : w == W_ENDS ? "part's ends"
                          : "matching's arcs",
            v16[0], v16[1]);
        goto fail;
    }
    memcpy(&want, (const unsigned char *)data + size - 4, 4);
    crc = (uint32_t)crc32(0L, Z_NULL, 0);
    for (size_t off = 0; off < size - 4;) {
        size_t len = size - 4 - off > (1u << 30) ? (1u << 30) : size - 4 - off;
        crc = (uint32_t)crc32(crc, (const unsigned char *)data + off, (uInt)len);
        off += len;
    }
    if (crc != want) {
        bad(&d, size - 4, "crc32 %08x, found %08x", crc, want);
        goto fail;
    }
    d.n = size - 4; /* the crc is not data */
    get(&d, &g->part, 4, "the part number");
    get(&d, c, sizeof(c), "the counts");
    if (!(g->machine = get_str(&d, "the machine")) ||
        !(g->trace_dir = get_str(&d, "the trace dir")))
        goto fail;
    at[C_STRINGS] = d.off;
    if (c[C_STRINGS] > (d.n - d.off) / 4) {
        bad(&d, d.off, "%llu strings, found %zu bytes left", (unsigned long long)c[C_STRINGS],
            d.n - d.off);
        goto fail;
    }
    if (c[C_STRINGS] && !(g->strings = calloc((size_t)c[C_STRINGS], sizeof(char *)))) {
        bad(&d, d.off, "memory for the strings");
        goto fail;
    }
    for (; g->nstrings < c[C_STRINGS]; g->nstrings++)
        if (!(g->strings[g->nstrings] = get_str(&d, "a string")))
            goto fail;
#define ARRAY(field, idx, what)                                                                    \
    at[idx] = d.off;                                                                               \
    g->field = get_array(&d, c[idx], sizeof(*g->field), what);                                     \
    if (d.failed)                                                                                  \
        goto fail;                                                                                 \
    g->n##field = (size_t)c[idx];
    ARRAY(apps, C_APPS, "applications")
    ARRAY(processes, C_PROCESSES, "processes")
    ARRAY(threads, C_THREADS, "threads")
    ARRAY(nodes, C_NODES, "nodes")
    ARRAY(shares, C_SHARES, "shares")
    ARRAY(arcs, C_ARCS, "arcs")
    ARRAY(outs, C_OUTS, "outs")
    ARRAY(ends, C_ENDS, "ends")
#undef ARRAY
    at[C_WARNINGS] = d.off;
    if (c[C_WARNINGS] > (d.n - d.off) / 4) {
        bad(&d, d.off, "%llu warnings, found %zu bytes left", (unsigned long long)c[C_WARNINGS],
            d.n - d.off);
        goto fail;
    }
    if (c[C_WARNINGS] && !(g->warnings = calloc((size_t)c[C_WARNINGS], sizeof(char *)))) {
        bad(&d, d.off, "memory for the warnings");
        goto fail;
    }
    for (; g->nwarnings < c[C_WARNINGS]; g->nwarnings++)
        if (!(g->warnings[g->nwarnings] = get_str(&d, "a warning")))
            goto fail;
    if (d.off != d.n) {
        bad(&d, d.off, "the crc32 at byte %zu, found %zu more bytes", d.n, d.n - d.off);
        goto fail;
    }
    if (!check(&d, g, w, at))
        goto fail;
    *out = g;
    return 0;
fail:
    ips2_pag_free(g);
    return -1;
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

int ips2_pag_read(const char *path, struct ips2_pag **out, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    unsigned char *buf;
    size_t got = 0;

    *out = NULL;
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !(buf = malloc(st.st_size ? (size_t)st.st_size : 1))) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno ? errno : ENOMEM));
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
