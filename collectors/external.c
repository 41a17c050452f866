/*
 * external.c - the external data file: writer and checking reader (see
 * ips2_external.h; the layout is traces/FORMAT.md §10).
 *
 * The writer keeps whole records in a buffer and appends them with one
 * write() per flush, so a crash leaves at most one torn record; the header
 * is written under a temporary name and renamed, so no file ever lacks
 * it.  The reader walks the records with the codec's bounded cursor and
 * stops at the first one it cannot trust.
 *
 * Both go through the buffer codec (traces/ips2_codec.h) and mirror each
 * other as Lua's ldump.c and lundump.c do: write_header, write_metric,
 * write_sample, write_note and write_process each have their read_X.
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

#include "ips2_clocks.h"
#include "ips2_codec.h"
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

/* ---- writing: one write_X per record kind ---------------------------- */

struct ext_header {
    const char *collector, *host;
    int64_t real_ns, mono_ns; /* one instant on both clocks */
    uint64_t interval_ns;
    uint32_t pid;
};

static void write_header(struct ips2_out *o, const struct ext_header *h)
{
    size_t clen = strlen(h->collector), hlen = strlen(h->host);

    ips2_put_bytes(o, EXT_MAGIC, 8);
    ips2_put_u32(o, EXT_VERSION);
    ips2_put_u32(o, (uint32_t)(EXT_HEAD + clen + hlen));
    ips2_put_i64(o, h->real_ns);
    ips2_put_i64(o, h->mono_ns);
    ips2_put_u64(o, h->interval_ns);
    ips2_put_u32(o, h->pid);
    ips2_put_u16(o, (uint16_t)clen);
    ips2_put_u16(o, (uint16_t)hlen);
    ips2_put_bytes(o, h->collector, clen);
    ips2_put_bytes(o, h->host, hlen);
}

static void write_record_head(struct ips2_out *o, uint16_t type, size_t size)
{
    ips2_put_u16(o, type);
    ips2_put_u16(o, (uint16_t)size);
}

static void write_metric(struct ips2_out *o, uint32_t id, enum ips2_ext_kind kind, const char *name,
                         const char *unit)
{
    size_t nl = strlen(name), ul = strlen(unit);

    write_record_head(o, REC_METRIC, 16 + nl + ul);
    ips2_put_u32(o, id);
    ips2_put_u32(o, (uint32_t)kind);
    ips2_put_u16(o, (uint16_t)nl);
    ips2_put_u16(o, (uint16_t)ul);
    ips2_put_bytes(o, name, nl);
    ips2_put_bytes(o, unit, ul);
}

static void write_sample(struct ips2_out *o, uint32_t metric, uint32_t pid, int64_t mono_ns,
                         double value)
{
    write_record_head(o, REC_SAMPLE, SAMPLE_SIZE);
    ips2_put_u32(o, metric);
    ips2_put_u32(o, pid);
    ips2_put_i64(o, mono_ns);
    ips2_put_f64(o, value);
}

static void write_note(struct ips2_out *o, uint32_t pid, int64_t mono_ns, const char *text,
                       size_t len)
{
    write_record_head(o, REC_NOTE, 16 + len);
    ips2_put_u32(o, pid);
    ips2_put_i64(o, mono_ns);
    ips2_put_bytes(o, text, len);
}

static void write_process(struct ips2_out *o, uint32_t pid, int64_t mono_ns)
{
    write_record_head(o, REC_PROCESS, PROCESS_SIZE);
    ips2_put_u32(o, pid);
    ips2_put_i64(o, mono_ns);
}

/* ---- the writer ------------------------------------------------------- */

struct ips2_ext_writer {
    struct ips2_out out; /* to the file; its offset: the bytes in the file */
    char *path;
    uint64_t max_bytes;
    uint32_t nmetrics;
    bool full; /* the bound was reached: everything else is dropped */
};

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

static int64_t ns_of(const struct timespec *t)
{
    return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
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
    size_t clen = strlen(collector);
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
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0666);
    if (fd < 0) {
        set_err(err, "cannot create %s: %s", tmp, strerror(errno));
        free(w->path);
        free(w);
        return NULL;
    }
    ips2_out_init_fd(&w->out, fd, BUF_SIZE);
    struct timespec r, m;
    clock_gettime(CLOCK_REALTIME, &r);
    clock_gettime(CLOCK_MONOTONIC, &m);
    /* the test knob of ips2_clocks.h, as libips2 takes it */
    int64_t real = ns_of(&r) + ips2_test_clock_offset();
    struct ext_header h = {collector, host, real, ns_of(&m), interval_ns, (uint32_t)getpid()};
    write_header(&w->out, &h);
    if (ips2_out_flush(&w->out) != 0 || rename(tmp, w->path) != 0) {
        set_err(err, "cannot write %s: %s", tmp, strerror(w->out.err ? w->out.err : errno));
        close(fd);
        unlink(tmp);
        ips2_out_free(&w->out);
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
    if (ips2_out_flush(&w->out) != 0) {
        set_err(err, "cannot write %s: %s", w->path, strerror(w->out.err));
        ips2_out_discard(&w->out); /* the next flush tries again */
        return -1;
    }
    return 0;
}

/* Room for a record of n bytes in the buffer and under the bound
 * (reserve: bytes kept free for the bound's own note).  1 yes, 0 no (the
 * bound), -1 a flush failed. */
static int room_for(struct ips2_ext_writer *w, size_t n, size_t reserve, char *err)
{
    if (w->full)
        return 0;
    if (ips2_out_offset(&w->out) + n + reserve > w->max_bytes)
        return 0;
    if (w->out.n + n > BUF_SIZE && ips2_ext_flush(w, err) != 0)
        return -1;
    return 1;
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
    if (w->out.n + 16 + (size_t)n > BUF_SIZE && ips2_ext_flush(w, err) != 0)
        return -1;
    write_note(&w->out, 0, ips2_ext_now(), text, (size_t)n);
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
    int ok = room_for(w, 16 + strlen(name) + strlen(unit), NOTE_RESERVE, err);
    if (ok < 0)
        return -1;
    if (ok == 0) {
        bound_reached(w, NULL);
        set_err(err, "%s: the file reached its bound", w->path);
        return -1;
    }
    write_metric(&w->out, w->nmetrics, kind, name, unit);
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
    write_sample(&w->out, (uint32_t)metric, pid, mono_ns, value);
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
    write_process(&w->out, pid, mono_ns);
    return 0;
}

int ips2_ext_note(struct ips2_ext_writer *w, int64_t mono_ns, uint32_t pid, const char *text,
                  char *err)
{
    size_t len = strnlen(text, IPS2_EXT_NOTE_MAX);
    int ok = room_for(w, 16 + len, NOTE_RESERVE, err);
    if (ok <= 0)
        return ok < 0 ? -1 : bound_reached(w, err);
    write_note(&w->out, pid, mono_ns, text, len);
    return 0;
}

int ips2_ext_close(struct ips2_ext_writer *w, char *err)
{
    if (w == NULL)
        return 0;
    int rc = ips2_ext_flush(w, err);
    if (close(w->out.fd) != 0 && rc == 0) {
        set_err(err, "cannot close %s: %s", w->path, strerror(errno));
        rc = -1;
    }
    ips2_out_free(&w->out);
    free(w->path);
    free(w);
    return rc;
}

/* ---- reading: one read_X per write_X ------------------------------------ */

#define bad(in, off, ...) ips2_in_fail((in), (off), __VA_ARGS__)

/* Text without NUL bytes. */
static bool text_ok(const uint8_t *p, size_t n)
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

/* What reading the records needs beside the data. */
struct records {
    size_t cap_samples, cap_notes;
    struct procs procs;
};

static int bad_time(struct ips2_in *in, size_t at, int64_t mono)
{
    return bad(in, at,
               "expected a time >= 0 that is >= 0 on the header's real-time clock too, "
               "found %lld",
               (long long)mono);
}

/* The header (at least EXT_HEAD bytes are there); NULL and the error if it
 * cannot be trusted. */
static struct ips2_ext_data *read_header(struct ips2_in *in)
{
    size_t size = in->size;

    if (size < 8 || memcmp(in->p, EXT_MAGIC, 8) != 0) {
        bad(in, 0, "expected magic \"%s\", found %s", EXT_MAGIC,
            size < 8 ? "a file shorter than it" : "other bytes");
        return NULL;
    }
    if (size < EXT_HEAD) {
        bad(in, size, "expected a %d-byte header, found the end of the file", EXT_HEAD);
        return NULL;
    }
    ips2_get_bytes(in, 8);
    uint32_t version = ips2_get_u32(in), hsize = ips2_get_u32(in);
    int64_t real = ips2_get_i64(in), mono = ips2_get_i64(in);
    uint64_t interval = ips2_get_u64(in);
    uint32_t pid = ips2_get_u32(in);
    uint16_t cl = ips2_get_u16(in), hl = ips2_get_u16(in);
    if (version != EXT_VERSION) {
        bad(in, 8, "expected version %d, found %u", EXT_VERSION, version);
        return NULL;
    }
    if (cl == 0 || cl > IPS2_EXT_NAME_MAX || hl > 255 || hsize != (uint32_t)EXT_HEAD + cl + hl) {
        bad(in, 12,
            "expected a header size of %d + a collector name of 1 to %d bytes + a host name of "
            "at most 255, found %u with %u and %u",
            EXT_HEAD, IPS2_EXT_NAME_MAX, hsize, cl, hl);
        return NULL;
    }
    if (hsize > size) {
        bad(in, size, "expected a %u-byte header, found the end of the file", hsize);
        return NULL;
    }
    const uint8_t *names = ips2_get_bytes(in, (size_t)cl + hl);
    if (!text_ok(names, (size_t)cl + hl)) {
        bad(in, EXT_HEAD, "expected names without NUL bytes, found one");
        return NULL;
    }
    if (interval == 0) {
        bad(in, 32, "expected a sample interval > 0, found 0");
        return NULL;
    }
    struct ips2_ext_data *d = calloc(1, sizeof *d);
    if (d == NULL || (d->collector = ips2_dup_bytes(names, cl)) == NULL ||
        (d->host = ips2_dup_bytes(names + cl, hl)) == NULL) {
        ips2_ext_free(d);
        bad(in, 0, "expected memory, out of memory");
        return NULL;
    }
    d->ref_real_ns = real;
    d->ref_mono_ns = mono;
    if (real < 0 || mono < 0) {
        bad(in, real < 0 ? 16 : 24, "expected clock readings >= 0, found %lld",
            (long long)(real < 0 ? real : mono));
        ips2_ext_free(d);
        return NULL;
    }
    d->interval_ns = interval;
    d->writer_pid = pid;
    return d;
}

/* The fields of each record after its type and size (the cursor holds
 * the record's bytes and no more; offsets are the file's). */
static int read_metric(struct ips2_in *in, size_t at, uint16_t size, struct ips2_ext_data *d)
{
    if (size < 16)
        return bad(in, at + 2, "expected a metric record of at least 16 bytes, found %u", size);
    uint32_t id = ips2_get_u32(in), kind = ips2_get_u32(in);
    uint16_t nl = ips2_get_u16(in), ul = ips2_get_u16(in);
    if (id != d->nmetrics || d->nmetrics >= IPS2_EXT_METRICS)
        return bad(in, at + 4, "expected metric id %zu (ids in order, at most %d), found %u",
                   d->nmetrics, IPS2_EXT_METRICS, id);
    if (kind != IPS2_EXT_COUNTER && kind != IPS2_EXT_GAUGE)
        return bad(in, at + 8, "expected kind 0 (counter) or 1 (gauge), found %u", kind);
    if (nl == 0 || nl > IPS2_EXT_NAME_MAX || ul > IPS2_EXT_NAME_MAX || (size_t)16 + nl + ul != size)
        return bad(in, at + 12,
                   "expected a name of 1 to %d bytes and a unit of at most %d filling the "
                   "record's %u bytes, found %u and %u",
                   IPS2_EXT_NAME_MAX, IPS2_EXT_NAME_MAX, size, nl, ul);
    const uint8_t *text = ips2_get_bytes(in, (size_t)nl + ul);
    if (!text_ok(text, (size_t)nl + ul))
        return bad(in, at + 16, "expected names without NUL bytes, found one");
    struct ips2_ext_metric_def *m = realloc(d->metrics, (d->nmetrics + 1) * sizeof *d->metrics);
    if (m == NULL)
        return bad(in, at, "expected memory for a metric, out of memory");
    d->metrics = m;
    m += d->nmetrics;
    m->kind = (enum ips2_ext_kind)kind;
    m->name = ips2_dup_bytes(text, nl);
    m->unit = ips2_dup_bytes(text + nl, ul);
    if (m->name == NULL || m->unit == NULL) {
        free(m->name);
        free(m->unit);
        return bad(in, at, "expected memory for a metric, out of memory");
    }
    d->nmetrics++;
    return 0;
}

static int read_sample(struct ips2_in *in, size_t at, uint16_t size, struct ips2_ext_data *d,
                       struct records *rs)
{
    if (size != SAMPLE_SIZE)
        return bad(in, at + 2, "expected a sample record of %d bytes, found %u", SAMPLE_SIZE, size);
    uint32_t metric = ips2_get_u32(in), pid = ips2_get_u32(in);
    int64_t mono = ips2_get_i64(in);
    double v = ips2_get_f64(in);
    if (metric >= d->nmetrics)
        return bad(in, at + 4, "expected a metric declared before (below %zu), found %u",
                   d->nmetrics, metric);
    if (!time_ok(d, mono))
        return bad_time(in, at + 12, mono);
    if (!isfinite(v))
        return bad(in, at + 20, "expected a finite value, found %g", v);
    struct ips2_ext_sample *s = grow(d->samples, &rs->cap_samples, d->nsamples, sizeof *s);
    if (s == NULL)
        return bad(in, at, "expected memory for samples, out of memory");
    d->samples = s;
    s[d->nsamples++] = (struct ips2_ext_sample){.metric = metric,
                                                .pid = pid,
                                                .proc = procs_get(&rs->procs, pid),
                                                .mono_ns = mono,
                                                .value = v};
    return 0;
}

static int read_note(struct ips2_in *in, size_t at, uint16_t size, struct ips2_ext_data *d,
                     struct records *rs)
{
    if (size < 16 || size - 16 > IPS2_EXT_NOTE_MAX)
        return bad(in, at + 2, "expected a note record of 16 to %d bytes, found %u",
                   16 + IPS2_EXT_NOTE_MAX, size);
    uint32_t pid = ips2_get_u32(in);
    int64_t mono = ips2_get_i64(in);
    const uint8_t *text = ips2_get_bytes(in, (size_t)size - 16);
    if (!text_ok(text, (size_t)size - 16))
        return bad(in, at + 16, "expected a note without NUL bytes, found one");
    struct ips2_ext_note *n = grow(d->notes, &rs->cap_notes, d->nnotes, sizeof *n);
    if (n == NULL)
        return bad(in, at, "expected memory for notes, out of memory");
    d->notes = n;
    n += d->nnotes;
    n->pid = pid;
    n->mono_ns = mono;
    if (!time_ok(d, n->mono_ns))
        return bad_time(in, at + 8, n->mono_ns);
    if ((n->text = ips2_dup_bytes(text, (size_t)size - 16)) == NULL)
        return bad(in, at, "expected memory for a note, out of memory");
    d->nnotes++;
    return 0;
}

static int read_process(struct ips2_in *in, size_t at, uint16_t size, struct records *rs,
                        const struct ips2_ext_data *d)
{
    if (size != PROCESS_SIZE)
        return bad(in, at + 2, "expected a process record of %d bytes, found %u", PROCESS_SIZE,
                   size);
    uint32_t pid = ips2_get_u32(in);
    int64_t mono = ips2_get_i64(in);
    if (pid == 0)
        return bad(in, at + 4, "expected a pid > 0, found 0");
    if (!time_ok(d, mono))
        return bad_time(in, at + 8, mono);
    if (!procs_add(&rs->procs, pid))
        return bad(in, at, "expected memory for processes, out of memory");
    return 0;
}

/* One whole record at in's cursor (in holds exactly its bytes). */
static int read_record(struct ips2_in *in, struct ips2_ext_data *d, struct records *rs)
{
    size_t at = in->pos;
    uint16_t type = ips2_get_u16(in), size = ips2_get_u16(in);

    switch (type) {
    case REC_SAMPLE:
        return read_sample(in, at, size, d, rs);
    case REC_PROCESS:
        return read_process(in, at, size, rs, d);
    case REC_METRIC:
        return read_metric(in, at, size, d);
    case REC_NOTE:
        return read_note(in, at, size, d, rs);
    }
    return bad(in, at,
               "expected a record type 1 (metric), 2 (sample), 3 (note) or 4 (process), found %u",
               type);
}

struct ips2_ext_data *ips2_ext_decode(const void *bytes, size_t size, const char *name, char *err)
{
    struct ips2_in in;

    if (err != NULL)
        err[0] = '\0';
    ips2_in_init(&in, bytes, size, name ? name : "external data", err, err ? IPS2_EXT_ERR_MAX : 0);
    struct ips2_ext_data *d = read_header(&in);
    if (d == NULL)
        return NULL;

    struct records rs = {0};
    while (!in.failed && ips2_in_left(&in) > 0) {
        size_t at = in.pos;
        if (ips2_in_left(&in) < 4) {
            d->torn = true;
            break;
        }
        uint16_t rsize = ips2_le16_load(in.p + at + 2);
        if (rsize < 4) {
            bad(&in, at + 2, "expected a record size of at least 4, found %u", rsize);
            break;
        }
        if (rsize > ips2_in_left(&in)) {
            d->torn = true; /* a write cut short by the writer's death */
            break;
        }
        struct ips2_in record = in; /* bounded by the record */
        record.size = at + rsize;
        if (read_record(&record, d, &rs) < 0)
            break;
        in.pos = at + rsize;
    }
    free(rs.procs.v);
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
