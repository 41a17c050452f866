/*
 * wire.c - the byte formats the engine's messages travel in over PVM
 * (little-endian, fixed-width, each starting with a 4-byte magic):
 *
 *   batch  "CPB1" u32 from_part to_part count, count x {u64 from, u32 to,
 *          u32 flags, i64 length}
 *   walk   "CPW1" u32 done, u64 gid, u32 has_arc, segment
 *   path   "CPP1" i64 length, u32 found, u64 terminal, u32 nsegs nshares
 *          nwarnings, segments, shares {u32 proc, u32 0, i64 cpu},
 *          warnings {u32 length, bytes}
 *   meta   "CPM1" u32 part, string machine, u32 nstrings, strings, u32 napps,
 *          u32 apps[], u32 nprocesses, {u32 app, i32 pid, u32 image name},
 *          u32 nthreads, {u32 process, i32 tid, u32 first count, i64 begin
 *          end}, u32 ncpu, {u32 thread proc, i64 cpu}
 *   segment: u16 kind reserved, u32 src_part src_thread dst_part dst_thread
 *          first_share nshares, u64 from to, i64 begin end length (68 bytes)
 *
 * Decoders trust nothing: every count is checked against the bytes left
 * before anything is allocated, every index against its table; the first
 * thing wrong is reported as "NAME: byte OFFSET: expected WHAT".
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpa_internal.h"

#define SEG_BYTES 68

/* ---- writing ------------------------------------------------------------ */

struct wbuf {
    unsigned char *p;
    size_t n, cap;
    int bad;
};

static void wraw(struct wbuf *b, const void *v, size_t n)
{
    if (b->bad)
        return;
    if (b->n + n > b->cap) {
        size_t c = b->cap ? b->cap : 256;
        while (c < b->n + n)
            c *= 2;
        unsigned char *np = realloc(b->p, c);
        if (!np) {
            b->bad = 1;
            return;
        }
        b->p = np;
        b->cap = c;
    }
    memcpy(b->p + b->n, v, n);
    b->n += n;
}

static void w16(struct wbuf *b, uint16_t v)
{
    unsigned char c[2] = {(unsigned char)v, (unsigned char)(v >> 8)};
    wraw(b, c, 2);
}

static void w32(struct wbuf *b, uint32_t v)
{
    unsigned char c[4];
    for (int i = 0; i < 4; i++)
        c[i] = (unsigned char)(v >> (8 * i));
    wraw(b, c, 4);
}

static void w64(struct wbuf *b, uint64_t v)
{
    unsigned char c[8];
    for (int i = 0; i < 8; i++)
        c[i] = (unsigned char)(v >> (8 * i));
    wraw(b, c, 8);
}

static void wstr(struct wbuf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    w32(b, (uint32_t)n);
    wraw(b, s ? s : "", n);
}

static int wdone(struct wbuf *b, void **data, size_t *size, char *err, size_t errlen)
{
    if (b->bad) {
        free(b->p);
        return cpa_err(err, errlen, "out of memory");
    }
    *data = b->p;
    *size = b->n;
    return 0;
}

static void wseg(struct wbuf *b, const struct ips2_cpa_segment *s)
{
    w16(b, s->kind);
    w16(b, 0);
    w32(b, s->src_part);
    w32(b, s->src_thread);
    w32(b, s->dst_part);
    w32(b, s->dst_thread);
    w32(b, s->first_share);
    w32(b, s->nshares);
    w64(b, s->from);
    w64(b, s->to);
    w64(b, (uint64_t)s->begin);
    w64(b, (uint64_t)s->end);
    w64(b, (uint64_t)s->length);
}

/* ---- reading ------------------------------------------------------------ */

struct rbuf {
    const unsigned char *p;
    size_t size, off;
    const char *name;
    char *err;
    size_t errlen;
    int bad;
};

static void rfail(struct rbuf *r, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void rfail(struct rbuf *r, size_t off, const char *fmt, ...)
{
    if (r->bad)
        return;
    r->bad = 1;
    if (!r->err || !r->errlen)
        return;
    int n =
        snprintf(r->err, r->errlen, "%s: byte %zu: expected ", r->name ? r->name : "message", off);
    if (n < 0 || (size_t)n >= r->errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
    va_end(ap);
}

static int rhave(struct rbuf *r, size_t n, const char *what)
{
    if (r->bad)
        return 0;
    if (r->size - r->off < n) {
        rfail(r, r->off, "%s (%zu bytes), found the end (%zu bytes left)", what, n,
              r->size - r->off);
        return 0;
    }
    return 1;
}

static uint64_t rle(struct rbuf *r, int n, const char *what)
{
    if (!rhave(r, (size_t)n, what))
        return 0;
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)r->p[r->off + (size_t)i] << (8 * i);
    r->off += (size_t)n;
    return v;
}
#define r16(r, w) ((uint16_t)rle(r, 2, w))
#define r32(r, w) ((uint32_t)rle(r, 4, w))
#define r64(r, w) (rle(r, 8, w))

/* A count of items of at least `each` bytes: no more than the bytes left. */
static size_t rcount(struct rbuf *r, size_t each, const char *what)
{
    size_t at = r->off;
    uint32_t n = r32(r, what);
    if (r->bad)
        return 0;
    if (each && n > (r->size - r->off) / each) {
        rfail(r, at, "a count of %s that fits in the %zu bytes left, found %u", what,
              r->size - r->off, n);
        return 0;
    }
    return n;
}

static char *rstr(struct rbuf *r, const char *what)
{
    size_t at = r->off;
    uint32_t n = r32(r, what);
    if (!rhave(r, n, what))
        return NULL;
    if (memchr(r->p + r->off, 0, n)) {
        rfail(r, at, "%s without NUL bytes", what);
        return NULL;
    }
    char *s = malloc((size_t)n + 1);
    if (!s) {
        rfail(r, at, "memory for %s", what);
        return NULL;
    }
    memcpy(s, r->p + r->off, n);
    s[n] = 0;
    r->off += n;
    return s;
}

static void rmagic(struct rbuf *r, const char *magic)
{
    if (rhave(r, 4, magic) && memcmp(r->p, magic, 4) != 0)
        rfail(r, 0, "magic \"%s\"", magic);
    else
        r->off = 4;
}

static void rend(struct rbuf *r)
{
    if (!r->bad && r->off != r->size)
        rfail(r, r->off, "the end, found %zu more bytes", r->size - r->off);
}

static void rseg(struct rbuf *r, struct ips2_cpa_segment *s)
{
    size_t at = r->off;
    s->kind = r16(r, "segment kind");
    s->reserved = r16(r, "segment reserved");
    s->src_part = r32(r, "source part");
    s->src_thread = r32(r, "source thread");
    s->dst_part = r32(r, "destination part");
    s->dst_thread = r32(r, "destination thread");
    s->first_share = r32(r, "first share");
    s->nshares = r32(r, "share count");
    s->from = r64(r, "source gid");
    s->to = r64(r, "destination gid");
    s->begin = (int64_t)r64(r, "begin");
    s->end = (int64_t)r64(r, "end");
    s->length = (int64_t)r64(r, "length");
    if (r->bad)
        return;
    if (s->kind > IPS2_PAG_ARC_EXIT)
        rfail(r, at, "a segment kind 0..4, found %u", s->kind);
    else if (s->length < 0 || s->end < s->begin)
        rfail(r, at, "a segment with length >= 0 and begin <= end");
    else if (s->kind != IPS2_CPA_SEG_CPU && s->nshares)
        rfail(r, at, "no shares on a dependence segment");
}

/* ---- batch -------------------------------------------------------------- */

void ips2_cpa_batch_free(struct ips2_cpa_batch *b)
{
    free(b->v);
    b->v = NULL;
    b->n = b->cap = 0;
}

int ips2_cpa_batch_encode(const struct ips2_cpa_batch *b, void **data, size_t *size, char *err,
                          size_t errlen)
{
    struct wbuf w = {0};
    wraw(&w, "CPB1", 4);
    w32(&w, b->from_part);
    w32(&w, b->to_part);
    w32(&w, (uint32_t)b->n);
    for (size_t i = 0; i < b->n; i++) {
        w64(&w, b->v[i].from);
        w32(&w, b->v[i].to);
        w32(&w, b->v[i].flags);
        w64(&w, (uint64_t)b->v[i].length);
    }
    return wdone(&w, data, size, err, errlen);
}

int ips2_cpa_batch_decode(const void *data, size_t size, const char *name,
                          struct ips2_cpa_batch *out, char *err, size_t errlen)
{
    struct rbuf r = {data, size, 0, name, err, errlen, 0};
    memset(out, 0, sizeof *out);
    rmagic(&r, "CPB1");
    out->from_part = r32(&r, "source part");
    out->to_part = r32(&r, "destination part");
    size_t n = rcount(&r, 24, "values");
    if (r.bad)
        return -1;
    out->v = malloc((n ? n : 1) * sizeof *out->v);
    if (!out->v)
        return cpa_err(err, errlen, "%s: out of memory", name);
    out->cap = n;
    for (size_t i = 0; i < n && !r.bad; i++) {
        size_t at = r.off;
        struct ips2_cpa_value *v = &out->v[i];
        v->from = r64(&r, "source gid");
        v->to = r32(&r, "destination node");
        v->flags = r32(&r, "flags");
        v->length = (int64_t)r64(&r, "length");
        if (!r.bad && (v->flags & ~IPS2_CPA_REACHED))
            rfail(&r, at + 12, "flags 0 or 1, found %u", v->flags);
        else if (!r.bad && v->length < 0)
            rfail(&r, at + 16, "a length >= 0");
        out->n = i + 1;
    }
    rend(&r);
    if (r.bad) {
        ips2_cpa_batch_free(out);
        return -1;
    }
    return 0;
}

/* ---- walk --------------------------------------------------------------- */

int ips2_cpa_walk_encode(const struct ips2_cpa_walk *wk, void **data, size_t *size, char *err,
                         size_t errlen)
{
    struct wbuf w = {0};
    struct ips2_cpa_segment none = {0};
    wraw(&w, "CPW1", 4);
    w32(&w, (uint32_t)(wk->done != 0));
    w64(&w, wk->gid);
    w32(&w, (uint32_t)(wk->has_arc != 0));
    wseg(&w, wk->has_arc ? &wk->arc : &none);
    return wdone(&w, data, size, err, errlen);
}

int ips2_cpa_walk_decode(const void *data, size_t size, const char *name, struct ips2_cpa_walk *out,
                         char *err, size_t errlen)
{
    struct rbuf r = {data, size, 0, name, err, errlen, 0};
    memset(out, 0, sizeof *out);
    rmagic(&r, "CPW1");
    size_t at = r.off;
    uint32_t done = r32(&r, "done");
    out->gid = r64(&r, "gid");
    uint32_t has = r32(&r, "has_arc");
    if (!r.bad && (done > 1 || has > 1))
        rfail(&r, at, "done and has_arc 0 or 1");
    out->done = (int)done;
    out->has_arc = (int)has;
    rseg(&r, &out->arc);
    if (!r.bad && has && (out->arc.kind == IPS2_CPA_SEG_CPU || out->arc.from != out->gid))
        rfail(&r, at + 16, "a dependence arc from the walk's node");
    rend(&r);
    return r.bad ? -1 : 0;
}

/* ---- path --------------------------------------------------------------- */

int ips2_cpa_path_encode(const struct ips2_cpa_path *p, void **data, size_t *size, char *err,
                         size_t errlen)
{
    struct wbuf w = {0};
    wraw(&w, "CPP1", 4);
    w64(&w, (uint64_t)p->length);
    w32(&w, (uint32_t)(p->found != 0));
    w64(&w, p->terminal);
    w32(&w, (uint32_t)p->nsegs);
    w32(&w, (uint32_t)p->nshares);
    w32(&w, (uint32_t)p->nwarnings);
    for (size_t i = 0; i < p->nsegs; i++)
        wseg(&w, &p->segs[i]);
    for (size_t i = 0; i < p->nshares; i++) {
        w32(&w, p->shares[i].proc);
        w32(&w, 0);
        w64(&w, (uint64_t)p->shares[i].cpu);
    }
    for (size_t i = 0; i < p->nwarnings; i++)
        wstr(&w, p->warnings[i]);
    return wdone(&w, data, size, err, errlen);
}

int ips2_cpa_path_decode(const void *data, size_t size, const char *name, struct ips2_cpa_path *out,
                         char *err, size_t errlen)
{
    struct rbuf r = {data, size, 0, name, err, errlen, 0};
    ips2_cpa_path_init(out);
    rmagic(&r, "CPP1");
    out->length = (int64_t)r64(&r, "length");
    size_t at = r.off;
    uint32_t found = r32(&r, "found");
    if (!r.bad && found > 1)
        rfail(&r, at, "found 0 or 1, found %u", found);
    out->found = (int)found;
    out->terminal = r64(&r, "terminal");
    uint32_t ns = r32(&r, "segment count");
    uint32_t nsh = r32(&r, "share count");
    size_t nw_at = r.off;
    uint32_t nw = r32(&r, "warning count");
    if (!r.bad &&
        ((uint64_t)ns * SEG_BYTES + (uint64_t)nsh * 16 + (uint64_t)nw * 4 > r.size - r.off))
        rfail(&r, nw_at - 8, "counts that fit in the %zu bytes left", r.size - r.off);
    if (r.bad)
        return -1;
    out->segs = malloc((ns ? ns : 1) * sizeof *out->segs);
    out->shares = malloc((nsh ? nsh : 1) * sizeof *out->shares);
    out->warnings = calloc(nw ? nw : 1, sizeof *out->warnings);
    if (!out->segs || !out->shares || !out->warnings) {
        ips2_cpa_path_free(out);
        return cpa_err(err, errlen, "%s: out of memory", name);
    }
    out->segcap = ns;
    out->sharecap = nsh;
    for (uint32_t i = 0; i < ns && !r.bad; i++) {
        size_t sat = r.off;
        rseg(&r, &out->segs[i]);
        if (!r.bad && (uint64_t)out->segs[i].first_share + out->segs[i].nshares > nsh)
            rfail(&r, sat + 20, "shares within the %u of the path", nsh);
        out->nsegs = i + 1;
    }
    for (uint32_t i = 0; i < nsh && !r.bad; i++) {
        out->shares[i].proc = r32(&r, "share procedure");
        out->shares[i].reserved = r32(&r, "share reserved");
        out->shares[i].cpu = (int64_t)r64(&r, "share cpu");
        out->nshares = i + 1;
    }
    for (uint32_t i = 0; i < nw && !r.bad; i++) {
        out->warnings[i] = rstr(&r, "warning");
        if (out->warnings[i])
            out->nwarnings = i + 1;
    }
    rend(&r);
    if (r.bad) {
        ips2_cpa_path_free(out);
        return -1;
    }
    return 0;
}

/* ---- meta --------------------------------------------------------------- */

int ips2_cpa_meta_encode(const struct ips2_cpa_meta *m, void **data, size_t *size, char *err,
                         size_t errlen)
{
    struct wbuf w = {0};
    wraw(&w, "CPM1", 4);
    w32(&w, m->part);
    wstr(&w, m->machine);
    w32(&w, (uint32_t)m->nstrings);
    for (size_t i = 0; i < m->nstrings; i++)
        wstr(&w, m->strings[i]);
    w32(&w, (uint32_t)m->napps);
    for (size_t i = 0; i < m->napps; i++)
        w32(&w, m->apps[i]);
    w32(&w, (uint32_t)m->nprocesses);
    for (size_t i = 0; i < m->nprocesses; i++) {
        w32(&w, m->processes[i].app);
        w32(&w, (uint32_t)m->processes[i].pid);
        w32(&w, m->processes[i].image);
        w32(&w, m->processes[i].name);
    }
    w32(&w, (uint32_t)m->nthreads);
    for (size_t i = 0; i < m->nthreads; i++) {
        w32(&w, m->threads[i].process);
        w32(&w, (uint32_t)m->threads[i].tid);
        w32(&w, m->threads[i].first);
        w32(&w, m->threads[i].count);
        w64(&w, (uint64_t)m->spans[i].begin);
        w64(&w, (uint64_t)m->spans[i].end);
    }
    w32(&w, (uint32_t)m->ncpu);
    for (size_t i = 0; i < m->ncpu; i++) {
        w32(&w, m->cpu[i].thread);
        w32(&w, m->cpu[i].proc);
        w64(&w, (uint64_t)m->cpu[i].cpu);
    }
    return wdone(&w, data, size, err, errlen);
}

int ips2_cpa_meta_decode(const void *data, size_t size, const char *name,
                         struct ips2_cpa_meta **out, char *err, size_t errlen)
{
    struct rbuf r = {data, size, 0, name, err, errlen, 0};
    *out = NULL;
    struct ips2_cpa_meta *m = calloc(1, sizeof *m);
    if (!m)
        return cpa_err(err, errlen, "%s: out of memory", name);
    rmagic(&r, "CPM1");
    m->part = r32(&r, "part");
    m->machine = rstr(&r, "machine");
    size_t n = rcount(&r, 4, "strings");
    if (!r.bad && !(m->strings = calloc(n ? n : 1, sizeof *m->strings)))
        rfail(&r, r.off, "memory");
    for (size_t i = 0; i < n && !r.bad; i++) {
        m->strings[i] = rstr(&r, "string");
        m->nstrings = i + 1;
    }
    n = rcount(&r, 4, "applications");
    if (!r.bad && !(m->apps = calloc(n ? n : 1, sizeof *m->apps)))
        rfail(&r, r.off, "memory");
    for (size_t i = 0; i < n && !r.bad; i++) {
        size_t at = r.off;
        m->apps[i] = r32(&r, "application string");
        if (!r.bad && m->apps[i] >= m->nstrings)
            rfail(&r, at, "a string index < %zu", m->nstrings);
        m->napps = i + 1;
    }
    n = rcount(&r, 16, "processes");
    if (!r.bad && !(m->processes = calloc(n ? n : 1, sizeof *m->processes)))
        rfail(&r, r.off, "memory");
    for (size_t i = 0; i < n && !r.bad; i++) {
        size_t at = r.off;
        struct ips2_pag_process *p = &m->processes[i];
        p->app = r32(&r, "process application");
        p->pid = (int32_t)r32(&r, "pid");
        p->image = r32(&r, "image");
        p->name = r32(&r, "process name");
        if (!r.bad && (p->app >= m->napps || (p->name != IPS2_PAG_NONE && p->name >= m->nstrings)))
            rfail(&r, at, "an application < %zu and a string < %zu", m->napps, m->nstrings);
        m->nprocesses = i + 1;
    }
    n = rcount(&r, 32, "threads");
    if (!r.bad && (!(m->threads = calloc(n ? n : 1, sizeof *m->threads)) ||
                   !(m->spans = calloc(n ? n : 1, sizeof *m->spans))))
        rfail(&r, r.off, "memory");
    for (size_t i = 0; i < n && !r.bad; i++) {
        size_t at = r.off;
        struct ips2_pag_thread *t = &m->threads[i];
        t->process = r32(&r, "thread process");
        t->tid = (int32_t)r32(&r, "tid");
        t->first = r32(&r, "first node");
        t->count = r32(&r, "node count");
        m->spans[i].begin = (int64_t)r64(&r, "begin");
        m->spans[i].end = (int64_t)r64(&r, "end");
        if (!r.bad && (t->process >= m->nprocesses || m->spans[i].end < m->spans[i].begin))
            rfail(&r, at, "a process < %zu and begin <= end", m->nprocesses);
        m->nthreads = i + 1;
    }
    n = rcount(&r, 16, "CPU entries");
    if (!r.bad && !(m->cpu = calloc(n ? n : 1, sizeof *m->cpu)))
        rfail(&r, r.off, "memory");
    for (size_t i = 0; i < n && !r.bad; i++) {
        size_t at = r.off;
        struct ips2_cpa_proc_cpu *c = &m->cpu[i];
        c->thread = r32(&r, "CPU thread");
        c->proc = r32(&r, "CPU procedure");
        c->cpu = (int64_t)r64(&r, "CPU");
        if (!r.bad && (c->thread >= m->nthreads ||
                       (c->proc != IPS2_PAG_NONE && c->proc >= m->nstrings) || c->cpu < 0))
            rfail(&r, at, "a thread < %zu, a string < %zu and CPU >= 0", m->nthreads, m->nstrings);
        m->ncpu = i + 1;
    }
    rend(&r);
    if (r.bad) {
        ips2_cpa_meta_free(m);
        return -1;
    }
    *out = m;
    return 0;
}
