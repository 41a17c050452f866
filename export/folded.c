/*
 * folded.c - the folded-stacks writer (ips2_export.h), the input of
 * flame-graph tools (flamegraph.pl, speedscope, Perfetto's importer):
 *
 *   server;main;serve_producer;store_item 20412
 *
 * one line per call stack that used CPU, rooted at its application's
 * name, the count its self CPU time in microseconds: the thread CPU time
 * spent with that stack on top, summed over the session's threads.  The
 * stacks are a tree (one node per distinct path, its ns), kept as the
 * reduction keeps a thread's stack (a return below the top closes the
 * frames above it; a return to no frame is ignored), so a procedure's
 * self times add up to its exclusive CPU in the session's tables.  The
 * lines are written at the end, each count rounded so that the counts
 * written so far add up to the microseconds of the time written so far:
 * the total is the self CPU time of all stacks in whole microseconds.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"

struct fnode {
    uint32_t parent; /* EX_NONE: a root (an application) */
    uint32_t name;   /* string: procedure, or the application of a root */
    uint64_t ns;     /* self CPU */
};

struct foldedw {
    struct ex_session *s;
    const char *out;
    struct fnode *nodes;
    size_t nnodes, cap;
    struct ex_map index; /* (parent, name) -> node */
    uint32_t *stack;     /* nodes; stack[0] the thread's root */
    size_t depth, cap_stack;
    uint64_t last_cpu;
};

static int begin(void *p, struct ex_session *s, const char *out, char *err, size_t errlen)
{
    struct foldedw *w = p;

    w->s = s;
    w->out = out;
    return 0;
}

/* The child `name` of node parent, made if new. */
static uint32_t child(struct foldedw *w, uint32_t parent, uint32_t name)
{
    bool fresh;
    uint32_t *v = ex_map_get(&w->index, parent, name, 0, (uint32_t)w->nnodes, &fresh);

    if (!v)
        return EX_NONE;
    if (fresh) {
        if (w->nnodes == w->cap) {
            size_t cap = w->cap ? w->cap * 2 : 256;
            struct fnode *n = realloc(w->nodes, cap * sizeof(*n));
            if (!n)
                return EX_NONE;
            w->nodes = n;
            w->cap = cap;
        }
        w->nodes[w->nnodes++] = (struct fnode){parent, name, 0};
    }
    return *v;
}

static bool push(struct foldedw *w, uint32_t node)
{
    if (node == EX_NONE)
        return false;
    if (w->depth == w->cap_stack) {
        size_t cap = w->cap_stack ? w->cap_stack * 2 : 64;
        uint32_t *v = realloc(w->stack, cap * sizeof(*v));
        if (!v)
            return false;
        w->stack = v;
        w->cap_stack = cap;
    }
    w->stack[w->depth++] = node;
    return true;
}

static int thread_begin(void *p, uint32_t loc, char *err, size_t errlen)
{
    struct foldedw *w = p;
    const struct ex_session *s = w->s;

    w->depth = 0;
    w->last_cpu = 0;
    if (!push(w, child(w, EX_NONE, s->groups[s->threads[loc].group].app))) {
        ex_error(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

/* The CPU since the previous procedure event goes to the stack on top. */
static void charge(struct foldedw *w, uint64_t cpu)
{
    if (cpu > w->last_cpu && w->depth > 1)
        w->nodes[w->stack[w->depth - 1]].ns += cpu - w->last_cpu;
    if (cpu > w->last_cpu)
        w->last_cpu = cpu;
}

static int event(void *p, uint32_t loc, const struct ex_event *e, char *err, size_t errlen)
{
    struct foldedw *w = p;

    if (e->kind != EX_ENTER && e->kind != EX_LEAVE)
        return 0;
    charge(w, e->cpu);
    if (e->kind == EX_ENTER) {
        if (!push(w, child(w, w->stack[w->depth - 1], e->region))) {
            ex_error(err, errlen, "out of memory");
            return -1;
        }
        return 0;
    }
    size_t d = w->depth;
    while (d > 1 && w->nodes[w->stack[d - 1]].name != e->region)
        d--;
    if (d > 1)
        w->depth = d - 1;
    return 0;
}

static int thread_end(void *p, uint32_t loc, int64_t t, uint64_t cpu, char *err, size_t errlen)
{
    charge(p, cpu);
    return 0;
}

/* The path of node n, root first, into buf. */
static size_t path(const struct foldedw *w, uint32_t n, char *buf, size_t size)
{
    size_t len = 0;

    if (w->nodes[n].parent != EX_NONE)
        len = path(w, w->nodes[n].parent, buf, size);
    const char *name = w->s->strings.v[w->nodes[n].name];
    if (len && len + 1 < size)
        buf[len++] = ';';
    for (const char *c = name; *c && len + 1 < size; c++)
        buf[len++] = *c == ';' || *c == ' ' || *c == '\n' ? '_' : *c; /* the format's separators */
    buf[len < size ? len : size - 1] = '\0';
    return len;
}

static int finish(void *p, struct ips2_export_counts *c, char *err, size_t errlen)
{
    struct foldedw *w = p;
    FILE *f = strcmp(w->out, "-") == 0 ? stdout : fopen(w->out, "w");
    uint64_t ns = 0, us = 0;
    char *buf = malloc(65536);

    if (!f || !buf) {
        free(buf);
        if (f && f != stdout)
            fclose(f);
        ex_error(err, errlen, "%s: cannot write: %s", w->out,
                 f ? "out of memory" : strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < w->nnodes; i++) {
        if (!w->nodes[i].ns)
            continue;
        ns += w->nodes[i].ns;
        uint64_t count = ns / 1000 - us;
        if (!count)
            continue;
        us += count;
        path(w, (uint32_t)i, buf, 65536);
        fprintf(f, "%s %" PRIu64 "\n", buf, count);
        c->folded_lines++;
    }
    free(buf);
    c->folded_us = us;
    c->folded_ns = ns;
    bool bad = fflush(f) != 0 || ferror(f);
    if (f != stdout && fclose(f) != 0)
        bad = true;
    if (bad) {
        ex_error(err, errlen, "%s: writing: %s", w->out, strerror(errno));
        return -1;
    }
    return 0;
}

static void foldedw_free(void *p)
{
    struct foldedw *w = p;

    free(w->nodes);
    free(w->stack);
    ex_map_free(&w->index);
    free(w);
}

static const struct ex_writer ops = {begin, thread_begin, event, thread_end, finish, foldedw_free};

void *ex_folded_new(const struct ex_writer **o)
{
    *o = &ops;
    return calloc(1, sizeof(struct foldedw));
}
