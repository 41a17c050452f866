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
 *          or, from PATH_PACK shares on, "CPP2": the same with the shares
 *          as u64 size and one zstd frame of them (the part file's shares
 *          frame, pag_shares_compress): a server's path carries millions
 *          of shares, 16 bytes each, that compress a hundred times and
 *          more, and a slave's message was a second copy of them
 *   meta   "CPM1" u32 part, string machine, u32 nstrings, strings, u32 napps,
 *          u32 apps[], u32 nprocesses, {u32 app, i32 pid, u32 image name},
 *          u32 nthreads, {u32 process, i32 tid, u32 first count, i64 begin
 *          end}, u32 ncpu, {u32 thread proc, i64 cpu}
 *   segment: u16 kind reserved, u32 src_part src_thread dst_part dst_thread
 *          first_share nshares, u64 from to, i64 begin end length (68 bytes)
 *
 * Each message's encoder and decoder mirror each other field by field,
 * over the buffer codec (traces/ips2_codec.h).  Decoders trust nothing: every count is checked
 * against the bytes left before anything is allocated, every index against its table; the first
 * thing wrong is reported as "NAME: byte OFFSET: expected WHAT".
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpa_internal.h"
#include "ips2_codec.h"
#include "pag_internal.h"

#define SEG_BYTES 68
#define PATH_PACK 4096 /* shares from which a path's travel compressed */

_Static_assert(sizeof(struct ips2_cpa_share) == sizeof(struct ips2_pag_share) &&
                   offsetof(struct ips2_cpa_share, cpu) == offsetof(struct ips2_pag_share, cpu),
               "a path's shares are a part's, as the compressed frame carries them");

/* ---- writing (traces/ips2_codec.h) --------------------------------------- */

static void write_magic(struct ips2_out *o, const char *magic)
{
    ips2_put_bytes(o, magic, 4);
}

static int write_done(struct ips2_out *o, void **data, size_t *size, char *err, size_t errlen)
{
    if (!(*data = ips2_out_take(o, size)))
        return cpa_err(err, errlen, "out of memory");
    return 0;
}

static void write_segment(struct ips2_out *o, const struct ips2_cpa_segment *s)
{
    ips2_put_u16(o, s->kind);
    ips2_put_u16(o, 0);
    ips2_put_u32(o, s->src_part);
    ips2_put_u32(o, s->src_thread);
    ips2_put_u32(o, s->dst_part);
    ips2_put_u32(o, s->dst_thread);
    ips2_put_u32(o, s->first_share);
    ips2_put_u32(o, s->nshares);
    ips2_put_u64(o, s->from);
    ips2_put_u64(o, s->to);
    ips2_put_i64(o, s->begin);
    ips2_put_i64(o, s->end);
    ips2_put_i64(o, s->length);
}

/* ---- reading (traces/ips2_codec.h) --------------------------------------- */

/* Fails with "NAME: byte OFF: expected WHAT" (the first failure only). */
static void rfail(struct ips2_in *in, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void rfail(struct ips2_in *in, size_t off, const char *fmt, ...)
{
    char what[1024];
    va_list ap;

    if (in->failed)
        return;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    ips2_in_fail(in, off, "expected %s", what);
}

static void reader_init(struct ips2_in *in, const void *data, size_t size, const char *name,
                        char *err, size_t errlen)
{
    ips2_in_init(in, data, size, name ? name : "message", err, errlen);
}

static int rhave(struct ips2_in *in, size_t n, const char *what)
{
    if (in->failed)
        return 0;
    if (ips2_in_left(in) < n) {
        rfail(in, in->pos, "%s (%zu bytes), found the end (%zu bytes left)", what, n,
              ips2_in_left(in));
        return 0;
    }
    return 1;
}

static uint16_t r16(struct ips2_in *in, const char *what)
{
    return rhave(in, 2, what) ? ips2_get_u16(in) : 0;
}

static uint32_t r32(struct ips2_in *in, const char *what)
{
    return rhave(in, 4, what) ? ips2_get_u32(in) : 0;
}

static uint64_t r64(struct ips2_in *in, const char *what)
{
    return rhave(in, 8, what) ? ips2_get_u64(in) : 0;
}

/* A count of items of at least `each` bytes: no more than the bytes left. */
static size_t rcount(struct ips2_in *in, size_t each, const char *what)
{
    size_t at = in->pos;
    uint32_t n = r32(in, what);
    if (in->failed)
        return 0;
    if (each && !ips2_in_fits(in, n, each)) {
        rfail(in, at, "a count of %s that fits in the %zu bytes left, found %u", what,
              ips2_in_left(in), n);
        return 0;
    }
    return n;
}

static char *rstr(struct ips2_in *in, const char *what)
{
    size_t at = in->pos;
    uint32_t n;
    char *s;

    if (!rhave(in, 4, what))
        return NULL;
    switch (ips2_get_str32(in, &s, &n)) {
    case IPS2_STR_OK:
        return s;
    case IPS2_STR_NO_LENGTH:
        break;
    case IPS2_STR_SHORT:
        rhave(in, n, what);
        break;
    case IPS2_STR_NUL:
        rfail(in, at, "%s without NUL bytes", what);
        break;
    case IPS2_STR_NOMEM:
        rfail(in, at, "memory for %s", what);
        break;
    }
    return NULL;
}

static void read_magic(struct ips2_in *in, const char *magic)
{
    if (rhave(in, 4, magic) && memcmp(ips2_get_bytes(in, 4), magic, 4) != 0)
        rfail(in, 0, "magic \"%s\"", magic);
}

static void read_end(struct ips2_in *in)
{
    if (!in->failed && ips2_in_left(in))
        rfail(in, in->pos, "the end, found %zu more bytes", ips2_in_left(in));
}

static void read_segment(struct ips2_in *in, struct ips2_cpa_segment *s)
{
    size_t at = in->pos;
    s->kind = r16(in, "segment kind");
    s->reserved = r16(in, "segment reserved");
    s->src_part = r32(in, "source part");
    s->src_thread = r32(in, "source thread");
    s->dst_part = r32(in, "destination part");
    s->dst_thread = r32(in, "destination thread");
    s->first_share = r32(in, "first share");
    s->nshares = r32(in, "share count");
    s->from = r64(in, "source gid");
    s->to = r64(in, "destination gid");
    s->begin = (int64_t)r64(in, "begin");
    s->end = (int64_t)r64(in, "end");
    s->length = (int64_t)r64(in, "length");
    if (in->failed)
        return;
    if (s->kind > IPS2_PAG_ARC_EXIT)
        rfail(in, at, "a segment kind 0..4, found %u", s->kind);
    else if (s->length < 0 || s->end < s->begin)
        rfail(in, at, "a segment with length >= 0 and begin <= end");
    else if (s->kind != IPS2_CPA_SEG_CPU && s->nshares)
        rfail(in, at, "no shares on a dependence segment");
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
    struct ips2_out w;
    ips2_out_init(&w);
    write_magic(&w, "CPB1");
    ips2_put_u32(&w, b->from_part);
    ips2_put_u32(&w, b->to_part);
    ips2_put_u32(&w, (uint32_t)b->n);
    for (size_t i = 0; i < b->n; i++) {
        ips2_put_u64(&w, b->v[i].from);
        ips2_put_u32(&w, b->v[i].to);
        ips2_put_u32(&w, b->v[i].flags);
        ips2_put_u64(&w, (uint64_t)b->v[i].length);
    }
    return write_done(&w, data, size, err, errlen);
}

int ips2_cpa_batch_decode(const void *data, size_t size, const char *name,
                          struct ips2_cpa_batch *out, char *err, size_t errlen)
{
    struct ips2_in r;
    reader_init(&r, data, size, name, err, errlen);
    memset(out, 0, sizeof *out);
    read_magic(&r, "CPB1");
    out->from_part = r32(&r, "source part");
    out->to_part = r32(&r, "destination part");
    size_t n = rcount(&r, 24, "values");
    if (r.failed)
        return -1;
    out->v = malloc((n ? n : 1) * sizeof *out->v);
    if (!out->v)
        return cpa_err(err, errlen, "%s: out of memory", name);
    out->cap = n;
    for (size_t i = 0; i < n && !r.failed; i++) {
        size_t at = r.pos;
        struct ips2_cpa_value *v = &out->v[i];
        v->from = r64(&r, "source gid");
        v->to = r32(&r, "destination node");
        v->flags = r32(&r, "flags");
        v->length = (int64_t)r64(&r, "length");
        if (!r.failed && (v->flags & ~IPS2_CPA_REACHED))
            rfail(&r, at + 12, "flags 0 or 1, found %u", v->flags);
        else if (!r.failed && v->length < 0)
            rfail(&r, at + 16, "a length >= 0");
        out->n = i + 1;
    }
    read_end(&r);
    if (r.failed) {
        ips2_cpa_batch_free(out);
        return -1;
    }
    return 0;
}

/* ---- walk --------------------------------------------------------------- */

int ips2_cpa_walk_encode(const struct ips2_cpa_walk *wk, void **data, size_t *size, char *err,
                         size_t errlen)
{
    struct ips2_out w;
    ips2_out_init(&w);
    struct ips2_cpa_segment none = {0};
    write_magic(&w, "CPW1");
    ips2_put_u32(&w, (uint32_t)(wk->done != 0));
    ips2_put_u64(&w, wk->gid);
    ips2_put_u32(&w, (uint32_t)(wk->has_arc != 0));
    write_segment(&w, wk->has_arc ? &wk->arc : &none);
    return write_done(&w, data, size, err, errlen);
}

int ips2_cpa_walk_decode(const void *data, size_t size, const char *name, struct ips2_cpa_walk *out,
                         char *err, size_t errlen)
{
    struct ips2_in r;
    reader_init(&r, data, size, name, err, errlen);
    memset(out, 0, sizeof *out);
    read_magic(&r, "CPW1");
    size_t at = r.pos;
    uint32_t done = r32(&r, "done");
    out->gid = r64(&r, "gid");
    uint32_t has = r32(&r, "has_arc");
    if (!r.failed && (done > 1 || has > 1))
        rfail(&r, at, "done and has_arc 0 or 1");
    out->done = (int)done;
    out->has_arc = (int)has;
    read_segment(&r, &out->arc);
    if (!r.failed && has && (out->arc.kind == IPS2_CPA_SEG_CPU || out->arc.from != out->gid))
        rfail(&r, at + 16, "a dependence arc from the walk's node");
    read_end(&r);
    return r.failed ? -1 : 0;
}

/* ---- path --------------------------------------------------------------- */

int ips2_cpa_path_encode(const struct ips2_cpa_path *p, void **data, size_t *size, char *err,
                         size_t errlen)
{
    struct ips2_out w;
    uint8_t *frame = NULL;
    size_t zsize = 0;
    bool packed = p->nshares >= PATH_PACK;
    if (packed &&
        !pag_shares_compress((const struct ips2_pag_share *)p->shares, p->nshares, &frame, &zsize))
        return cpa_err(err, errlen, "out of memory");
    ips2_out_init(&w);
    write_magic(&w, packed ? "CPP2" : "CPP1");
    ips2_put_u64(&w, (uint64_t)p->length);
    ips2_put_u32(&w, (uint32_t)(p->found != 0));
    ips2_put_u64(&w, p->terminal);
    ips2_put_u32(&w, (uint32_t)p->nsegs);
    ips2_put_u32(&w, (uint32_t)p->nshares);
    ips2_put_u32(&w, (uint32_t)p->nwarnings);
    for (size_t i = 0; i < p->nsegs; i++)
        write_segment(&w, &p->segs[i]);
    if (packed) {
        ips2_put_u64(&w, zsize);
        ips2_put_bytes(&w, frame, zsize);
        free(frame);
    }
    for (size_t i = 0; !packed && i < p->nshares; i++) {
        ips2_put_u32(&w, p->shares[i].proc);
        ips2_put_u32(&w, 0);
        ips2_put_u64(&w, (uint64_t)p->shares[i].cpu);
    }
    for (size_t i = 0; i < p->nwarnings; i++)
        ips2_put_str32(&w, p->warnings[i]);
    return write_done(&w, data, size, err, errlen);
}

/* A CPP2 path's shares: u64 size, then a zstd frame of nsh shares. */
static void read_packed_shares(struct ips2_in *r, struct ips2_cpa_path *out, uint32_t nsh)
{
    size_t at = r->pos;
    uint64_t zsize = r64(r, "shares frame size");
    if (!r->failed && zsize > ips2_in_left(r))
        rfail(r, at, "a shares frame within the %zu bytes left", ips2_in_left(r));
    if (r->failed)
        return;
    uint8_t *plain = NULL;
    size_t n = 0;
    const uint8_t *frame = ips2_get_bytes(r, (size_t)zsize);
    if (pag_inflate(frame, (size_t)zsize, (uint64_t)nsh * sizeof *out->shares, at + 8, r->name,
                    &plain, &n, r->err, r->errlen) != 0) {
        r->failed = true;
        r->fail_at = at + 8;
        return;
    }
    if (n != (size_t)nsh * sizeof *out->shares) {
        free(plain);
        rfail(r, at + 8, "%u shares (%zu bytes) in the frame, found %zu bytes", nsh,
              (size_t)nsh * sizeof *out->shares, n);
        return;
    }
    out->shares = (struct ips2_cpa_share *)plain;
    out->nshares = out->sharecap = nsh;
}

int ips2_cpa_path_decode(const void *data, size_t size, const char *name, struct ips2_cpa_path *out,
                         char *err, size_t errlen)
{
    struct ips2_in r;
    reader_init(&r, data, size, name, err, errlen);
    ips2_cpa_path_init(out);
    bool packed = size >= 4 && memcmp(data, "CPP2", 4) == 0;
    read_magic(&r, packed ? "CPP2" : "CPP1");
    out->length = (int64_t)r64(&r, "length");
    size_t at = r.pos;
    uint32_t found = r32(&r, "found");
    if (!r.failed && found > 1)
        rfail(&r, at, "found 0 or 1, found %u", found);
    out->found = (int)found;
    out->terminal = r64(&r, "terminal");
    uint32_t ns = r32(&r, "segment count");
    uint32_t nsh = r32(&r, "share count");
    size_t nw_at = r.pos;
    uint32_t nw = r32(&r, "warning count");
    uint64_t share_bytes = packed ? 8 : (uint64_t)nsh * 16;
    if (!r.failed && ((uint64_t)ns * SEG_BYTES + share_bytes + (uint64_t)nw * 4 > ips2_in_left(&r)))
        rfail(&r, nw_at - 8, "counts that fit in the %zu bytes left", ips2_in_left(&r));
    if (r.failed)
        return -1;
    out->segs = malloc((ns ? ns : 1) * sizeof *out->segs);
    out->shares = packed ? NULL : malloc((nsh ? nsh : 1) * sizeof *out->shares);
    out->warnings = calloc(nw ? nw : 1, sizeof *out->warnings);
    if (!out->segs || (!packed && !out->shares) || !out->warnings) {
        ips2_cpa_path_free(out);
        return cpa_err(err, errlen, "%s: out of memory", name);
    }
    out->segcap = ns;
    out->sharecap = packed ? 0 : nsh;
    for (uint32_t i = 0; i < ns && !r.failed; i++) {
        size_t sat = r.pos;
        read_segment(&r, &out->segs[i]);
        if (!r.failed && (uint64_t)out->segs[i].first_share + out->segs[i].nshares > nsh)
            rfail(&r, sat + 20, "shares within the %u of the path", nsh);
        out->nsegs = i + 1;
    }
    if (packed && !r.failed)
        read_packed_shares(&r, out, nsh);
    for (uint32_t i = 0; !packed && i < nsh && !r.failed; i++) {
        out->shares[i].proc = r32(&r, "share procedure");
        out->shares[i].reserved = r32(&r, "share reserved");
        out->shares[i].cpu = (int64_t)r64(&r, "share cpu");
        out->nshares = i + 1;
    }
    for (uint32_t i = 0; i < nw && !r.failed; i++) {
        out->warnings[i] = rstr(&r, "warning");
        if (out->warnings[i])
            out->nwarnings = i + 1;
    }
    read_end(&r);
    if (r.failed) {
        ips2_cpa_path_free(out);
        return -1;
    }
    return 0;
}

/* ---- meta --------------------------------------------------------------- */

int ips2_cpa_meta_encode(const struct ips2_cpa_meta *m, void **data, size_t *size, char *err,
                         size_t errlen)
{
    struct ips2_out w;
    ips2_out_init(&w);
    write_magic(&w, "CPM1");
    ips2_put_u32(&w, m->part);
    ips2_put_str32(&w, m->machine);
    ips2_put_u32(&w, (uint32_t)m->nstrings);
    for (size_t i = 0; i < m->nstrings; i++)
        ips2_put_str32(&w, m->strings[i]);
    ips2_put_u32(&w, (uint32_t)m->napps);
    for (size_t i = 0; i < m->napps; i++)
        ips2_put_u32(&w, m->apps[i]);
    ips2_put_u32(&w, (uint32_t)m->nprocesses);
    for (size_t i = 0; i < m->nprocesses; i++) {
        ips2_put_u32(&w, m->processes[i].app);
        ips2_put_u32(&w, (uint32_t)m->processes[i].pid);
        ips2_put_u32(&w, m->processes[i].image);
        ips2_put_u32(&w, m->processes[i].name);
    }
    ips2_put_u32(&w, (uint32_t)m->nthreads);
    for (size_t i = 0; i < m->nthreads; i++) {
        ips2_put_u32(&w, m->threads[i].process);
        ips2_put_u32(&w, (uint32_t)m->threads[i].tid);
        ips2_put_u32(&w, m->threads[i].first);
        ips2_put_u32(&w, m->threads[i].count);
        ips2_put_u64(&w, (uint64_t)m->spans[i].begin);
        ips2_put_u64(&w, (uint64_t)m->spans[i].end);
    }
    ips2_put_u32(&w, (uint32_t)m->ncpu);
    for (size_t i = 0; i < m->ncpu; i++) {
        ips2_put_u32(&w, m->cpu[i].thread);
        ips2_put_u32(&w, m->cpu[i].proc);
        ips2_put_u64(&w, (uint64_t)m->cpu[i].cpu);
    }
    return write_done(&w, data, size, err, errlen);
}

int ips2_cpa_meta_decode(const void *data, size_t size, const char *name,
                         struct ips2_cpa_meta **out, char *err, size_t errlen)
{
    struct ips2_in r;
    reader_init(&r, data, size, name, err, errlen);
    *out = NULL;
    struct ips2_cpa_meta *m = calloc(1, sizeof *m);
    if (!m)
        return cpa_err(err, errlen, "%s: out of memory", name);
    read_magic(&r, "CPM1");
    m->part = r32(&r, "part");
    m->machine = rstr(&r, "machine");
    size_t n = rcount(&r, 4, "strings");
    if (!r.failed && !(m->strings = calloc(n ? n : 1, sizeof *m->strings)))
        rfail(&r, r.pos, "memory");
    for (size_t i = 0; i < n && !r.failed; i++) {
        m->strings[i] = rstr(&r, "string");
        m->nstrings = i + 1;
    }
    n = rcount(&r, 4, "applications");
    if (!r.failed && !(m->apps = calloc(n ? n : 1, sizeof *m->apps)))
        rfail(&r, r.pos, "memory");
    for (size_t i = 0; i < n && !r.failed; i++) {
        size_t at = r.pos;
        m->apps[i] = r32(&r, "application string");
        if (!r.failed && m->apps[i] >= m->nstrings)
            rfail(&r, at, "a string index < %zu", m->nstrings);
        m->napps = i + 1;
    }
    n = rcount(&r, 16, "processes");
    if (!r.failed && !(m->processes = calloc(n ? n : 1, sizeof *m->processes)))
        rfail(&r, r.pos, "memory");
    for (size_t i = 0; i < n && !r.failed; i++) {
        size_t at = r.pos;
        struct ips2_pag_process *p = &m->processes[i];
        p->app = r32(&r, "process application");
        p->pid = (int32_t)r32(&r, "pid");
        p->image = r32(&r, "image");
        p->name = r32(&r, "process name");
        if (!r.failed &&
            (p->app >= m->napps || (p->name != IPS2_PAG_NONE && p->name >= m->nstrings)))
            rfail(&r, at, "an application < %zu and a string < %zu", m->napps, m->nstrings);
        m->nprocesses = i + 1;
    }
    n = rcount(&r, 32, "threads");
    if (!r.failed && (!(m->threads = calloc(n ? n : 1, sizeof *m->threads)) ||
                      !(m->spans = calloc(n ? n : 1, sizeof *m->spans))))
        rfail(&r, r.pos, "memory");
    for (size_t i = 0; i < n && !r.failed; i++) {
        size_t at = r.pos;
        struct ips2_pag_thread *t = &m->threads[i];
        t->process = r32(&r, "thread process");
        t->tid = (int32_t)r32(&r, "tid");
        t->first = r32(&r, "first node");
        t->count = r32(&r, "node count");
        m->spans[i].begin = (int64_t)r64(&r, "begin");
        m->spans[i].end = (int64_t)r64(&r, "end");
        if (!r.failed && (t->process >= m->nprocesses || m->spans[i].end < m->spans[i].begin))
            rfail(&r, at, "a process < %zu and begin <= end", m->nprocesses);
        m->nthreads = i + 1;
    }
    n = rcount(&r, 16, "CPU entries");
    if (!r.failed && !(m->cpu = calloc(n ? n : 1, sizeof *m->cpu)))
        rfail(&r, r.pos, "memory");
    for (size_t i = 0; i < n && !r.failed; i++) {
        size_t at = r.pos;
        struct ips2_cpa_proc_cpu *c = &m->cpu[i];
        c->thread = r32(&r, "CPU thread");
        c->proc = r32(&r, "CPU procedure");
        c->cpu = (int64_t)r64(&r, "CPU");
        if (!r.failed && (c->thread >= m->nthreads ||
                          (c->proc != IPS2_PAG_NONE && c->proc >= m->nstrings) || c->cpu < 0))
            rfail(&r, at, "a thread < %zu, a string < %zu and CPU >= 0", m->nthreads, m->nstrings);
        m->ncpu = i + 1;
    }
    read_end(&r);
    if (r.failed) {
        ips2_cpa_meta_free(m);
        return -1;
    }
    *out = m;
    return 0;
}
