/*
 * json.c - the trace-event JSON writer (ips2_export.h), the format of
 * chrome://tracing that Perfetto's UI opens:
 *
 *   {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}
 *
 *  - "M" metadata: process_name per process image ("APP pid P on M"),
 *    thread_name per thread ("thread T"); JSON pid = image + 1, tid =
 *    location + 1 (real pids of two machines may be equal);
 *  - "X" complete events, one per procedure call, written when the call
 *    returns (a call still open at the thread's end closes there), so the
 *    writer holds a thread's stack, never its events; the stack is kept as
 *    the reduction keeps it (a return to a frame below the top closes the
 *    frames above it, a return to no frame is ignored), so the slices are
 *    the calls of the session's tables;
 *  - "s"/"f" flow pairs, one per PAG arc between two threads (message,
 *    sync, create, exit: cat and name say which), from the source node's
 *    time to the destination's, bound to the enclosing slices;
 *  - the global critical path as a process of its own ("critical path"),
 *    one "X" per segment: a CPU segment named by the procedure with most
 *    of its time, a dependence by its kind.
 *
 * Times ("ts", "dur") are microseconds since the session's time 0, with
 * ns precision (three decimals).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ips2_cpa.h"

#include "export_internal.h"

struct frame {
    uint32_t region;
    int64_t t;
};

struct jsonw {
    struct ex_session *s;
    FILE *f;
    bool own; /* f is ours to close */
    bool first;
    struct frame *stack;
    size_t depth, cap;
    uint64_t slices;
};

/* The length of the valid UTF-8 sequence at p (2-4), or 0. */
static int utf8_len(const unsigned char *p)
{
    int n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;

    if (n == 0 || p[0] > 0xf4)
        return 0;
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    /* no overlong form, no surrogate, nothing past U+10FFFF */
    if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) ||
        (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
        return 0;
    return n;
}

/* Names come from traces, which are not trusted: quotes, backslashes and
 * controls are escaped, and a byte that is no valid UTF-8 is written as
 * the code point of its value (Latin-1), so the JSON stays valid. */
void ex_json_string(FILE *f, const char *s)
{
    putc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        int n;
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\u%04x", *p);
        else if (*p < 0x80)
            putc(*p, f);
        else if ((n = utf8_len(p)) > 0) {
            fwrite(p, 1, (size_t)n, f);
            p += n - 1;
        } else
            fprintf(f, "\\u%04x", *p);
    }
    putc('"', f);
}

/* ns as microseconds with three decimals. */
static void us(FILE *f, int64_t ns)
{
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

    fprintf(f, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", a / 1000, (unsigned)(a % 1000));
}

/* Starts the next record of the array. */
static FILE *next(struct jsonw *w)
{
    fputs(w->first ? "\n" : ",\n", w->f);
    w->first = false;
    return w->f;
}

static void meta(struct jsonw *w, const char *what, uint64_t pid, uint64_t tid, const char *name)
{
    fprintf(next(w),
            "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%" PRIu64 ",\"tid\":%" PRIu64
            ",\"args\":{\"name\":",
            what, pid, tid);
    ex_json_string(w->f, name);
    fputs("}}", w->f);
}

static int begin(void *p, struct ex_session *s, const char *out, char *err, size_t errlen)
{
    struct jsonw *w = p;
    char name[512];

    w->s = s;
    w->first = true;
    if (strcmp(out, "-") == 0) {
        w->f = stdout;
    } else if (!(w->f = fopen(out, "w"))) {
        ex_error(err, errlen, "%s: cannot write: %s", out, strerror(errno));
        return -1;
    } else {
        w->own = true;
    }
    fputs("{\"traceEvents\":[", w->f);
    for (size_t g = 0; g < s->ngroups; g++) {
        const struct ex_group *x = &s->groups[g];
        int n = snprintf(name, sizeof(name), "%s pid %d", s->strings.v[x->app], x->pid);
        if (x->image && n > 0 && (size_t)n < sizeof(name))
            n += snprintf(name + n, sizeof(name) - (size_t)n, " image %u", x->image);
        if (n > 0 && (size_t)n < sizeof(name))
            snprintf(name + n, sizeof(name) - (size_t)n, " on %s", s->machines[x->machine].name);
        meta(w, "process_name", g + 1, 0, name);
    }
    for (size_t i = 0; i < s->nthreads; i++) {
        const struct ex_thread *t = &s->threads[i];
        snprintf(name, sizeof(name), "thread %d", t->tid);
        meta(w, "thread_name", t->group + 1, i + 1, name);
    }
    return 0;
}

static int thread_begin(void *p, uint32_t loc, char *err, size_t errlen)
{
    ((struct jsonw *)p)->depth = 0;
    return 0;
}

static void slice(struct jsonw *w, uint32_t loc, const struct frame *fr, int64_t end)
{
    FILE *f = next(w);

    fprintf(f,
            "{\"ph\":\"X\",\"cat\":\"procedure\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"ts\":",
            w->s->threads[loc].group + 1, loc + 1);
    us(f, fr->t);
    fputs(",\"dur\":", f);
    us(f, end > fr->t ? end - fr->t : 0);
    fputs(",\"name\":", f);
    ex_json_string(f, w->s->strings.v[fr->region]);
    putc('}', f);
    w->slices++;
}

static int event(void *p, uint32_t loc, const struct ex_event *e, char *err, size_t errlen)
{
    struct jsonw *w = p;

    if (e->kind == EX_ENTER) {
        if (w->depth == w->cap) {
            size_t cap = w->cap ? w->cap * 2 : 64;
            struct frame *v = realloc(w->stack, cap * sizeof(*v));
            if (!v) {
                ex_error(err, errlen, "out of memory");
                return -1;
            }
            w->stack = v;
            w->cap = cap;
        }
        w->stack[w->depth++] = (struct frame){e->region, e->t};
    } else if (e->kind == EX_LEAVE) {
        /* as the reduction: a leave below the top closes the frames above
         * it (longjmp); one of no frame (a forked child's) is ignored */
        size_t d = w->depth;
        while (d > 0 && w->stack[d - 1].region != e->region)
            d--;
        while (d > 0 && w->depth >= d)
            slice(w, loc, &w->stack[--w->depth], e->t);
    }
    return 0;
}

static int thread_end(void *p, uint32_t loc, int64_t t, uint64_t cpu, char *err, size_t errlen)
{
    struct jsonw *w = p;

    while (w->depth > 0)
        slice(w, loc, &w->stack[--w->depth], t);
    return 0;
}

static void flow(struct jsonw *w, size_t id, const struct ex_flow *x)
{
    const char *name = ips2_cpa_seg_kind_name(x->type);
    FILE *f = next(w);

    fprintf(f,
            "{\"ph\":\"s\",\"cat\":\"%s\",\"name\":\"%s\",\"id\":%zu,\"pid\":%" PRIu32
            ",\"tid\":%" PRIu32 ",\"ts\":",
            name, name, id, w->s->threads[x->from].group + 1, x->from + 1);
    us(f, x->t_from);
    fputs("}", f);
    f = next(w);
    fprintf(f,
            "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"%s\",\"name\":\"%s\",\"id\":%zu,\"pid\":%" PRIu32
            ",\"tid\":%" PRIu32 ",\"ts\":",
            name, name, id, w->s->threads[x->to].group + 1, x->to + 1);
    us(f, x->t_to);
    fputs("}", f);
}

/* "APP pid P thread T" of a location, for a segment's args. */
static void where(struct jsonw *w, const char *key, uint32_t loc)
{
    const struct ex_session *s = w->s;

    fprintf(w->f, ",\"%s\":", key);
    if (loc == EX_NONE) {
        fputs("null", w->f);
        return;
    }
    char buf[512];
    const struct ex_group *g = &s->groups[s->threads[loc].group];
    snprintf(buf, sizeof(buf), "%s pid %d thread %d", s->strings.v[g->app], g->pid,
             s->threads[loc].tid);
    ex_json_string(w->f, buf);
}

static void critical_path(struct jsonw *w)
{
    const struct ex_session *s = w->s;
    uint64_t pid = s->ngroups + 1;
    char name[128];

    snprintf(name, sizeof(name), "critical path (global): %.3f ms", (double)s->cp_length / 1e6);
    meta(w, "process_name", pid, 0, name);
    meta(w, "thread_name", pid, 1, "critical path");
    for (size_t i = 0; i < s->nsegments; i++) {
        const struct ex_segment *g = &s->segments[i];
        FILE *f = next(w);
        fprintf(f, "{\"ph\":\"X\",\"cat\":\"critical path\",\"pid\":%" PRIu64 ",\"tid\":1,\"ts\":",
                pid);
        us(f, g->begin);
        fputs(",\"dur\":", f);
        us(f, g->end > g->begin ? g->end - g->begin : 0);
        fputs(",\"name\":", f);
        ex_json_string(f, s->strings.v[g->name]);
        fprintf(f, ",\"args\":{\"kind\":\"%s\",\"length_ns\":%" PRId64,
                ips2_cpa_seg_kind_name(g->kind), g->length);
        where(w, "from", g->src);
        where(w, "to", g->dst);
        fputs("}}", f);
    }
}

static int finish(void *p, struct ips2_export_counts *c, char *err, size_t errlen)
{
    struct jsonw *w = p;
    const struct ex_session *s = w->s;

    for (size_t i = 0; i < s->nflows; i++)
        flow(w, i + 1, &s->flows[i]);
    critical_path(w);
    fputs("\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"session\":", w->f);
    ex_json_string(w->f, s->dir);
    fprintf(
        w->f,
        ",\"time\":\"microseconds since the session's time 0\",\"session_start_real_ns\":%" PRId64
        ",\"critical_path_ns\":%" PRId64 "}}\n",
        s->start_real, s->cp_length);
    c->slices = w->slices;
    c->flows = s->nflows;
    c->cp_segments = s->nsegments;
    c->cp_length = s->cp_length;
    bool bad = fflush(w->f) != 0 || ferror(w->f);
    if (w->own && fclose(w->f) != 0)
        bad = true;
    w->f = NULL;
    if (bad) {
        ex_error(err, errlen, "writing the JSON: %s", strerror(errno));
        return -1;
    }
    return 0;
}

static void jsonw_free(void *p)
{
    struct jsonw *w = p;

    if (w->f && w->own)
        fclose(w->f);
    free(w->stack);
    free(w);
}

static const struct ex_writer ops = {begin, thread_begin, event, thread_end, finish, jsonw_free};

void *ex_json_new(const struct ex_writer **o)
{
    *o = &ops;
    return calloc(1, sizeof(struct jsonw));
}
