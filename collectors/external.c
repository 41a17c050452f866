/*
 * external.c - the external data file: writer and checking reader (see
 * ips2_external.h; the layout is traces/FORMAT.md §10).
 *
 * The writer keeps whole records in a buffer and appends them with one
 * write() per flush, so a crash leaves at most one torn record; the header
 * is written under a temporary name and renamed, so no file ever lacks
 * it.  The reader walks the records with explicit little-endian reads and
 * stops at the first one it cannot trust.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ips2_external.h"

#define EXT_MAGIC     "IPS2EXT"
#define EXT_VERSION   1
#define EXT_HEAD      48
#define REC_METRIC    1
#define REC_SAMPLE    2
#define REC_NOTE      3
#define REC_PROCESS   4
#define PROCESS_SIZE  16
#define SAMPLE_SIZE   28
#define BUF_SIZE      65536
#define NOTE_RESERVE  (16 + 160) /* room kept for the "bound reached" note */
#define READ_MAX_SIZE (1024u * 1024 * 1024)

static void set_err(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_err(char *err, const char *fmt, ...)
{
    if (err == NULL)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, IPS2_EXT_ERR_MAX, fmt, ap);
    va_end(ap);
}

int64_t ips2_ext_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

bool ips2_ext_is_file(const char *name)
{
    size_t n = strlen(name), s = strlen(IPS2_EXT_SUFFIX);
    return n > s && strcmp(name + n - s, IPS2_EXT_SUFFIX) == 0;
}

/* ---- little-endian bytes ---------------------------------------------- */

static void le16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static void le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint16_t rd16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* ---- writer ----------------------------------------------------------- */

struct ips2_ext_writer {
    int fd;
    char *path;
    uint64_t max_bytes;
    uint64_t written; /* bytes in the file */
    unsigned char buf[BUF_SIZE];
    size_t used;
    uint32_t nmetrics;
    bool full; /* the bound was reached: everything else is dropped */
};

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static bool good_name(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > IPS2_EXT_NAME_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '/' || (unsigned char)s[i] < ' ')
            return false;
    return true;
}

struct ips2_ext_writer *ips2_ext_create(const char *dir, const char *collector,
                                        uint64_t interval_ns, uint64_t max_bytes, char **path_out,
                                        char *err)
{
    if (!good_name(collector)) {
        set_err(err, "collector name \"%s\": expected 1 to %d characters without '/'",
                collector ? collector : "", IPS2_EXT_NAME_MAX);
        return NULL;
    }
    struct ips2_ext_writer *w = calloc(1, sizeof *w);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    size_t clen = strlen(collector), hlen = strlen(host);
    char tmp[PATH_MAX];
    size_t plen = strlen(dir) + clen + 40;
    if (w == NULL || (w->path = malloc(plen)) == NULL) {
        free(w);
        set_err(err, "out of memory");
        return NULL;
    }
    snprintf(w->path, plen, "%s/%s.%d%s", dir, collector, (int)getpid(), IPS2_EXT_SUFFIX);
    snprintf(tmp, sizeof tmp, "%s.tmp", w->path);
    w->max_bytes = max_bytes ? max_bytes : IPS2_EXT_MAX_BYTES;
    w->fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0666);
    if (w->fd < 0) {
        set_err(err, "cannot create %s: %s", tmp, strerror(errno));
        free(w->path);
        free(w);
        return NULL;
    }
    unsigned char h[EXT_HEAD + IPS2_EXT_NAME_MAX + 256];
    struct timespec r, m;
    clock_gettime(CLOCK_REALTIME, &r);
    clock_gettime(CLOCK_MONOTONIC, &m);
    memcpy(h, EXT_MAGIC, 8);
    le32(h + 8, EXT_VERSION);
    le32(h + 12, (uint32_t)(EXT_HEAD + clen + hlen));
    le64(h + 16, (uint64_t)((int64_t)r.tv_sec * 1000000000 + r.tv_nsec));
    le64(h + 24, (uint64_t)((int64_t)m.tv_sec * 1000000000 + m.tv_nsec));
    le64(h + 32, interval_ns);
    le32(h + 40, (uint32_t)getpid());
    le16(h + 44, (uint16_t)clen);
    le16(h + 46, (uint16_t)hlen);
    memcpy(h + EXT_HEAD, collector, clen);
    memcpy(h + EXT_HEAD + clen, host, hlen);
    w->written = EXT_HEAD + clen + hlen;
    if (write_all(w->fd, h, w->written) != 0 || rename(tmp, w->path) != 0) {
        set_err(err, "cannot write %s: %s", tmp, strerror(errno));
        close(w->fd);
        unlink(tmp);
        free(w->path);
        free(w);
        return NULL;
    }
    if (path_out != NULL)
        *path_out = strdup(w->path);
    return w;
}

int ips2_ext_flush(struct ips2_ext_writer *w, char *err)
{
    if (w->used == 0)
        return 0;
    if (write_all(w->fd, w->buf, w->used) != 0) {
        set_err(err, "cannot write %s: %s", w->path, strerror(errno));
        w->used = 0;
        return -1;
    }
    w->written += w->used;
    w->used = 0;
    return 0;
}

/* Room for a record of n bytes in the buffer and under the bound
 * (reserve: bytes kept free for the bound's own note).  1 yes, 0 no (the
 * bound), -1 a flush failed. */
static int room_for(struct ips2_ext_writer *w, size_t n, size_t reserve, char *err)
{
    if (w->full)
        return 0;
    if (w->written + w->used + n + reserve > w->max_bytes)
        return 0;
    if (w->used + n > BUF_SIZE && ips2_ext_flush(w, err) != 0)
        return -1;
    return 1;
}

static void put_note(struct ips2_ext_writer *w, int64_t mono_ns, uint32_t pid, const char *text,
                     size_t len)
{
    unsigned char *p = w->buf + w->used;
    le16(p, REC_NOTE);
    le16(p + 2, (uint16_t)(16 + len));
    le32(p + 4, pid);
    le64(p + 8, (uint64_t)mono_ns);
    memcpy(p + 16, text, len);
    w->used += 16 + len;
}

/* The bound is reached: one note says so; nothing else goes in. */
static int bound_reached(struct ips2_ext_writer *w, char *err)
{
    if (w->full)
        return 0;
    char text[160];
    int n = snprintf(text, sizeof text,
                     "the file reached its bound of %llu bytes: later samples were dropped",
                     (unsigned long long)w->max_bytes);
    if (w->used + 16 + (size_t)n > BUF_SIZE && ips2_ext_flush(w, err) != 0)
        return -1;
    put_note(w, ips2_ext_now(), 0, text, (size_t)n);
    w->full = true;
    return ips2_ext_flush(w, err);
}

int ips2_ext_metric(struct ips2_ext_writer *w, const char *name, const char *unit,
                    enum ips2_ext_kind kind, char *err)
{
    unit = unit ? unit : "";
    if (!good_name(name) || strlen(unit) > IPS2_EXT_NAME_MAX ||
        (kind != IPS2_EXT_COUNTER && kind != IPS2_EXT_GAUGE)) {
        set_err(err,
                "metric \"%s\": expected a name of 1 to %d characters, a unit of at most "
                "%d and a kind counter or gauge",
                name ? name : "", IPS2_EXT_NAME_MAX, IPS2_EXT_NAME_MAX);
        return -1;
    }
    if (w->nmetrics >= IPS2_EXT_METRICS) {
        set_err(err, "metric \"%s\": at most %d metrics per file", name, IPS2_EXT_METRICS);
        return -1;
    }
    size_t nl = strlen(name), ul = strlen(unit), n = 16 + nl + ul;
    int ok = room_for(w, n, NOTE_RESERVE, err);
    if (ok < 0)
        return -1;
    if (ok == 0) {
        bound_reached(w, NULL);
        set_err(err, "%s: the file reached its bound", w->path);
        return -1;
    }
    unsigned char *p = w->buf + w->used;
    le16(p, REC_METRIC);
    le16(p + 2, (uint16_t)n);
    le32(p + 4, w->nmetrics);
    le32(p + 8, (uint32_t)kind);
    le16(p + 12, (uint16_t)nl);
    le16(p + 14, (uint16_t)ul);
    memcpy(p + 16, name, nl);
    memcpy(p + 16 + nl, unit, ul);
    w->used += n;
    return (int)w->nmetrics++;
}

int ips2_ext_sample(struct ips2_ext_writer *w, int64_t mono_ns, int metric, uint32_t pid,
                    double value, char *err)
{
    if (metric < 0 || (uint32_t)metric >= w->nmetrics || !isfinite(value)) {
        set_err(err, "sample: expected a declared metric and a finite value");
        return -1;
    }
    int ok = room_for(w, SAMPLE_SIZE, NOTE_RESERVE, err);
    if (ok <= 0)
        return ok < 0 ? -1 : bound_reached(w, err);
    unsigned char *p = w->buf + w->used;
    uint64_t bits;
    memcpy(&bits, &value, 8);
    le16(p, REC_SAMPLE);
    le16(p + 2, SAMPLE_SIZE);
    le32(p + 4, (uint32_t)metric);
    le32(p + 8, pid);
    le64(p + 12, (uint64_t)mono_ns);
    le64(p + 20, bits);
    w->used += SAMPLE_SIZE;
    return 0;
}

int ips2_ext_process(struct ips2_ext_writer *w, int64_t mono_ns, uint32_t pid, char *err)
{
    if (pid == 0) {
        set_err(err, "process: expected a pid > 0");
        return -1;
    }
    int ok = room_for(w, PROCESS_SIZE, NOTE_RESERVE, err);
    if (ok <= 0)
        return ok < 0 ? -1 : bound_reached(w, err);
    unsigned char *p = w->buf + w->used;
    le16(p, REC_PROCESS);
    le16(p + 2, PROCESS_SIZE);
    le32(p + 4, pid);
    le64(p + 8, (uint64_t)mono_ns);
    w->used += PROCESS_SIZE;
    return 0;
}

int ips2_ext_note(struct ips2_ext_writer *w, int64_t mono_ns, uint32_t pid, const char *text,
                  char *err)
{
    size_t len = strnlen(text, IPS2_EXT_NOTE_MAX);
    int ok = room_for(w, 16 + len, NOTE_RESERVE, err);
    if (ok <= 0)
        return ok < 0 ? -1 : bound_reached(w, err);
    put_note(w, mono_ns, pid, text, len);
    return 0;
}

int ips2_ext_close(struct ips2_ext_writer *w, char *err)
{
    if (w == NULL)
        return 0;
    int rc = ips2_ext_flush(w, err);
    if (close(w->fd) != 0 && rc == 0) {
        set_err(err, "cannot close %s: %s", w->path, strerror(errno));
        rc = -1;
    }
    free(w->path);
    free(w);
    return rc;
}

/* ---- reader ----------------------------------------------------------- */

struct in {
    const unsigned char *b;
    size_t size;
    const char *name;
    char *err;
};

static int bad(const struct in *in, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad(const struct in *in, size_t off, const char *fmt, ...)
{
    if (in->err == NULL)
        return -1;
    int n = snprintf(in->err, IPS2_EXT_ERR_MAX, "%s: byte %zu: ", in->name, off);
    if (n < 0 || n >= IPS2_EXT_ERR_MAX)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(in->err + n, IPS2_EXT_ERR_MAX - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static char *dup_bytes(const unsigned char *p, size_t n)
{
    char *s = malloc(n + 1);
    if (s != NULL) {
        memcpy(s, p, n);
        s[n] = '\0';
    }
    return s;
}

/* Printable text without NUL bytes. */
static bool text_ok(const unsigned char *p, size_t n)
{
    return memchr(p, '\0', n) == NULL;
}

static void *grow(void *v, size_t *cap, size_t n, size_t each)
{
    if (n < *cap)
        return v;
    size_t c = *cap ? *cap * 2 : 64;
    void *nv = realloc(v, c * each);
    if (nv != NULL)
        *cap = c;
    return nv;
}

/* Process records seen per pid (open addressing; pid 0 never a key). */
struct procs {
    struct {
        uint32_t pid, n;
    } * v;
    size_t n, cap; /* cap: 0 or a power of 2 */
};

static size_t procs_slot(const struct procs *t, uint32_t pid)
{
    size_t i = (pid * 2654435761u) & (t->cap - 1);
    while (t->v[i].pid != 0 && t->v[i].pid != pid)
        i = (i + 1) & (t->cap - 1);
    return i;
}

static uint32_t procs_get(const struct procs *t, uint32_t pid)
{
    if (t->cap == 0 || pid == 0)
        return 0;
    size_t i = procs_slot(t, pid);
    return t->v[i].pid == pid ? t->v[i].n : 0;
}

/* One more process record for pid; false on OOM. */
static bool procs_add(struct procs *t, uint32_t pid)
{
    if (2 * (t->n + 1) > t->cap) {
        struct procs bigger = {NULL, 0, t->cap ? 2 * t->cap : 64};
        bigger.v = calloc(bigger.cap, sizeof *bigger.v);
        if (bigger.v == NULL)
            return false;
        for (size_t i = 0; i < t->cap; i++)
            if (t->v[i].pid != 0)
                bigger.v[procs_slot(&bigger, t->v[i].pid)] = t->v[i];
        bigger.n = t->n;
        free(t->v);
        *t = bigger;
    }
    size_t i = procs_slot(t, pid);
    if (t->v[i].pid == 0) {
        t->v[i].pid = pid;
        t->n++;
    }
    t->v[i].n++;
    return true;
}

/* A sample's or note's time: >= 0 and on the real-time clock too. */
static bool time_ok(const struct ips2_ext_data *d, int64_t mono)
{
    int64_t real;
    return mono >= 0 && !__builtin_add_overflow(mono, d->ref_real_ns - d->ref_mono_ns, &real) &&
           real >= 0;
}

static int read_record(const struct in *in, size_t at, struct ips2_ext_data *d, size_t *cap_s,
                       size_t *cap_n, struct procs *procs)
{
    const unsigned char *p = in->b + at;
    uint16_t type = rd16(p), size = rd16(p + 2);
    if (type == REC_SAMPLE) {
        if (size != SAMPLE_SIZE)
            return bad(in, at + 2, "expected a sample record of %d bytes, found %u", SAMPLE_SIZE,
                       size);
        uint32_t metric = rd32(p + 4);
        if (metric >= d->nmetrics)
            return bad(in, at + 4, "expected a metric declared before (below %zu), found %u",
                       d->nmetrics, metric);
        int64_t mono = (int64_t)rd64(p + 12);
        if (!time_ok(d, mono))
            return bad(in, at + 12,
                       "expected a time >= 0 that is >= 0 on the header's real-time clock too, "
                       "found %lld",
                       (long long)mono);
        uint64_t bits = rd64(p + 20);
        double v;
        memcpy(&v, &bits, 8);
        if (!isfinite(v))
            return bad(in, at + 20, "expected a finite value, found %g", v);
        struct ips2_ext_sample *s = grow(d->samples, cap_s, d->nsamples, sizeof *s);
        if (s == NULL)
            return bad(in, at, "expected memory for samples, out of memory");
        d->samples = s;
        uint32_t pid = rd32(p + 8);
        s[d->nsamples++] = (struct ips2_ext_sample){.metric = metric,
                                                    .pid = pid,
                                                    .proc = procs_get(procs, pid),
                                                    .mono_ns = mono,
                                                    .value = v};
        return 0;
    }
    if (type == REC_PROCESS) {
        if (size != PROCESS_SIZE)
            return bad(in, at + 2, "expected a process record of %d bytes, found %u", PROCESS_SIZE,
                       size);
        uint32_t pid = rd32(p + 4);
        if (pid == 0)
            return bad(in, at + 4, "expected a pid > 0, found 0");
        int64_t mono = (int64_t)rd64(p + 8);
        if (!time_ok(d, mono))
            return bad(in, at + 8,
                       "expected a time >= 0 that is >= 0 on the header's real-time clock too, "
                       "found %lld",
                       (long long)mono);
        if (!procs_add(procs, pid))
            return bad(in, at, "expected memory for processes, out of memory");
        return 0;
    }
    if (type == REC_METRIC) {
        if (size < 16)
            return bad(in, at + 2, "expected a metric record of at least 16 bytes, found %u", size);
        uint32_t id = rd32(p + 4), kind = rd32(p + 8);
        uint16_t nl = rd16(p + 12), ul = rd16(p + 14);
        if (id != d->nmetrics || d->nmetrics >= IPS2_EXT_METRICS)
            return bad(in, at + 4, "expected metric id %zu (ids in order, at most %d), found %u",
                       d->nmetrics, IPS2_EXT_METRICS, id);
        if (kind != IPS2_EXT_COUNTER && kind != IPS2_EXT_GAUGE)
            return bad(in, at + 8, "expected kind 0 (counter) or 1 (gauge), found %u", kind);
        if (nl == 0 || nl > IPS2_EXT_NAME_MAX || ul > IPS2_EXT_NAME_MAX ||
            (size_t)16 + nl + ul != size)
            return bad(in, at + 12,
                       "expected a name of 1 to %d bytes and a unit of at most %d filling the "
                       "record's %u bytes, found %u and %u",
                       IPS2_EXT_NAME_MAX, IPS2_EXT_NAME_MAX, size, nl, ul);
        if (!text_ok(p + 16, (size_t)nl + ul))
            return bad(in, at + 16, "expected names without NUL bytes, found one");
        struct ips2_ext_metric_def *m = realloc(d->metrics, (d->nmetrics + 1) * sizeof *d->metrics);
        if (m == NULL)
            return bad(in, at, "expected memory for a metric, out of memory");
        d->metrics = m;
        m += d->nmetrics;
        m->kind = (enum ips2_ext_kind)kind;
        m->name = dup_bytes(p + 16, nl);
        m->unit = dup_bytes(p + 16 + nl, ul);
        if (m->name == NULL || m->unit == NULL) {
            free(m->name);
            free(m->unit);
            return bad(in, at, "expected memory for a metric, out of memory");
        }
        d->nmetrics++;
        return 0;
    }
    if (type == REC_NOTE) {
        if (size < 16 || size - 16 > IPS2_EXT_NOTE_MAX)
            return bad(in, at + 2, "expected a note record of 16 to %d bytes, found %u",
                       16 + IPS2_EXT_NOTE_MAX, size);
        if (!text_ok(p + 16, (size_t)size - 16))
            return bad(in, at + 16, "expected a note without NUL bytes, found one");
        struct ips2_ext_note *n = grow(d->notes, cap_n, d->nnotes, sizeof *n);
        if (n == NULL)
            return bad(in, at, "expected memory for notes, out of memory");
        d->notes = n;
        n += d->nnotes;
        n->pid = rd32(p + 4);
        n->mono_ns = (int64_t)rd64(p + 8);
        if (!time_ok(d, n->mono_ns))
            return bad(in, at + 8,
                       "expected a time >= 0 that is >= 0 on the header's real-time clock too, "
                       "found %lld",
                       (long long)n->mono_ns);
        if ((n->text = dup_bytes(p + 16, (size_t)size - 16)) == NULL)
            return bad(in, at, "expected memory for a note, out of memory");
        d->nnotes++;
        return 0;
    }
    return bad(in, at,
               "expected a record type 1 (metric), 2 (sample), 3 (note) or 4 (process), found %u",
               type);
}

struct ips2_ext_data *ips2_ext_decode(const void *bytes, size_t size, const char *name, char *err)
{
    struct in in = {bytes, size, name ? name : "external data", err};
    if (err != NULL)
        err[0] = '\0';
    if (size < 8 || memcmp(in.b, EXT_MAGIC, 8) != 0) {
        bad(&in, 0, "expected magic \"%s\", found %s", EXT_MAGIC,
            size < 8 ? "a file shorter than it" : "other bytes");
        return NULL;
    }
    if (size < EXT_HEAD) {
        bad(&in, size, "expected a %d-byte header, found the end of the file", EXT_HEAD);
        return NULL;
    }
    uint32_t version = rd32(in.b + 8), hsize = rd32(in.b + 12);
    if (version != EXT_VERSION) {
        bad(&in, 8, "expected version %d, found %u", EXT_VERSION, version);
        return NULL;
    }
    uint16_t cl = rd16(in.b + 44), hl = rd16(in.b + 46);
    if (cl == 0 || cl > IPS2_EXT_NAME_MAX || hl > 255 || hsize != (uint32_t)EXT_HEAD + cl + hl) {
        bad(&in, 12,
            "expected a header size of %d + a collector name of 1 to %d bytes + a host name of "
            "at most 255, found %u with %u and %u",
            EXT_HEAD, IPS2_EXT_NAME_MAX, hsize, cl, hl);
        return NULL;
    }
    if (hsize > size) {
        bad(&in, size, "expected a %u-byte header, found the end of the file", hsize);
        return NULL;
    }
    if (!text_ok(in.b + EXT_HEAD, (size_t)cl + hl)) {
        bad(&in, EXT_HEAD, "expected names without NUL bytes, found one");
        return NULL;
    }
    uint64_t interval = rd64(in.b + 32);
    if (interval == 0) {
        bad(&in, 32, "expected a sample interval > 0, found 0");
        return NULL;
    }
    struct ips2_ext_data *d = calloc(1, sizeof *d);
    if (d == NULL || (d->collector = dup_bytes(in.b + EXT_HEAD, cl)) == NULL ||
        (d->host = dup_bytes(in.b + EXT_HEAD + cl, hl)) == NULL) {
        ips2_ext_free(d);
        bad(&in, 0, "expected memory, out of memory");
        return NULL;
    }
    d->ref_real_ns = (int64_t)rd64(in.b + 16);
    d->ref_mono_ns = (int64_t)rd64(in.b + 24);
    if (d->ref_real_ns < 0 || d->ref_mono_ns < 0) {
        bad(&in, d->ref_real_ns < 0 ? 16 : 24, "expected clock readings >= 0, found %lld",
            (long long)(d->ref_real_ns < 0 ? d->ref_real_ns : d->ref_mono_ns));
        ips2_ext_free(d);
        return NULL;
    }
    d->interval_ns = interval;
    d->writer_pid = rd32(in.b + 40);

    size_t at = hsize, cap_s = 0, cap_n = 0;
    struct procs procs = {NULL, 0, 0};
    while (at < size) {
        if (size - at < 4) {
            d->torn = true;
            break;
        }
        uint16_t rsize = rd16(in.b + at + 2);
        if (rsize < 4) {
            bad(&in, at + 2, "expected a record size of at least 4, found %u", rsize);
            break;
        }
        if (rsize > size - at) {
            d->torn = true; /* a write cut short by the writer's death */
            break;
        }
        if (read_record(&in, at, d, &cap_s, &cap_n, &procs) < 0)
            break;
        at += rsize;
    }
    free(procs.v);
    return d;
}

struct ips2_ext_data *ips2_ext_read(const char *path, char *err)
{
    /* O_NONBLOCK: a FIFO named *.ext must not hold the reader up in open()
     * (its type is checked next; regular files ignore the flag) */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        set_err(err, "%s: cannot read: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > READ_MAX_SIZE) {
        const char *found = S_ISFIFO(st.st_mode)  ? "a FIFO"
                            : S_ISDIR(st.st_mode) ? "a directory"
                            : S_ISREG(st.st_mode) ? "a larger file"
                                                  : "another kind of file";
        set_err(err, "%s: expected a regular file of at most %u bytes, found %s", path,
                READ_MAX_SIZE, found);
        close(fd);
        return NULL;
    }
    size_t size = (size_t)st.st_size, got = 0;
    unsigned char *buf = malloc(size ? size : 1);
    while (buf != NULL && got < size) {
        ssize_t n = read(fd, buf + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (buf == NULL) {
        set_err(err, "%s: out of memory", path);
        return NULL;
    }
    struct ips2_ext_data *d = ips2_ext_decode(buf, got, path, err);
    free(buf);
    return d;
}

void ips2_ext_free(struct ips2_ext_data *d)
{
    if (d == NULL)
        return;
    for (size_t i = 0; i < d->nmetrics; i++) {
        free(d->metrics[i].name);
        free(d->metrics[i].unit);
    }
    for (size_t i = 0; i < d->nnotes; i++)
        free(d->notes[i].text);
    free(d->metrics);
    free(d->samples);
    free(d->notes);
    free(d->collector);
    free(d->host);
    free(d);
}
