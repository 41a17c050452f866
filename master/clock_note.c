/*
 * clock_note.c - the process-time clock a table's times come from
 * (clock_note.h).  The reductions say each process row's clock; the
 * procedures of every thread under the node are gathered by name (their
 * calls and inclusive CPU added up, the coarsest resolution kept), and
 * those whose mean CPU per call is below IPS2_CLOCK_MARGIN times that
 * resolution are the ones a table warns about.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock_note.h"

struct gather {
    const struct ips2_model *m;
    struct ips2_clock_use *uses;
    size_t nuses, capuses;
    struct ips2_clock_short *procs; /* every procedure row, by name later */
    size_t nprocs, capprocs;
    /* process rows already counted: (slot, row) pairs */
    uint64_t *seen;
    size_t nseen, capseen;
    bool oom;
};

static bool grow(void **p, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return true;
    size_t c = *cap ? *cap * 2 : 16;
    void *q = realloc(*p, c * elem);
    if (!q)
        return false;
    *p = q;
    *cap = c;
    return true;
}

static void add_use(struct gather *g, const struct ips2_red_process *p)
{
    for (size_t i = 0; i < g->nuses; i++) {
        struct ips2_clock_use *u = &g->uses[i];
        if (u->method == p->cpu_method && u->param == p->cpu_param && u->res_ns == p->cpu_res_ns) {
            u->processes++;
            return;
        }
    }
    if (!grow((void **)&g->uses, &g->capuses, g->nuses, sizeof(*g->uses))) {
        g->oom = true;
        return;
    }
    g->uses[g->nuses++] = (struct ips2_clock_use){p->cpu_method, p->cpu_param, p->cpu_res_ns, 1};
}

static void thread_fn(void *arg, const struct ips2_node *thread, const struct ips2_ref *ref)
{
    struct gather *g = arg;
    const struct ips2_reductions *r = ips2_ref_red(g->m, ref);
    const struct ips2_red_thread *t = &r->threads[ref->row];
    const struct ips2_red_process *p = &r->processes[t->process];
    uint64_t key = (uint64_t)ref->slot << 32 | t->process;
    bool seen = false;

    (void)thread;
    for (size_t i = 0; i < g->nseen && !seen; i++)
        seen = g->seen[i] == key;
    if (!seen) {
        if (!grow((void **)&g->seen, &g->capseen, g->nseen, sizeof(*g->seen))) {
            g->oom = true;
            return;
        }
        g->seen[g->nseen++] = key;
        add_use(g, p);
    }
    if (p->cpu_res_ns == 0)
        return;
    for (uint32_t i = t->first_proc; i < t->first_proc + t->nprocs; i++) {
        const struct ips2_red_proc *pr = &r->procs[i];
        if (!grow((void **)&g->procs, &g->capprocs, g->nprocs, sizeof(*g->procs))) {
            g->oom = true;
            return;
        }
        g->procs[g->nprocs++] = (struct ips2_clock_short){r->strings[pr->name], pr->incl_cpu,
                                                          pr->m[IPS2_M_CALLS], p->cpu_res_ns};
    }
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct ips2_clock_short *)a)->name,
                  ((const struct ips2_clock_short *)b)->name);
}

static int by_mean(const void *a, const void *b)
{
    const struct ips2_clock_short *x = a, *y = b;
    if (x->mean_ns != y->mean_ns)
        return x->mean_ns < y->mean_ns ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int by_use(const void *a, const void *b)
{
    const struct ips2_clock_use *x = a, *y = b;
    if (x->method != y->method)
        return x->method < y->method ? -1 : 1;
    if (x->param != y->param)
        return x->param < y->param ? -1 : 1;
    return x->res_ns < y->res_ns ? -1 : x->res_ns > y->res_ns;
}

/* Merges the rows of each name (mean_ns holds the CPU sum until then)
 * and keeps the short ones, their names copied. */
static int keep_short(struct gather *g, struct ips2_clock_note *out)
{
    qsort(g->procs, g->nprocs, sizeof(*g->procs), by_name);
    size_t n = 0;
    for (size_t i = 0; i < g->nprocs;) {
        struct ips2_clock_short s = g->procs[i++];
        while (i < g->nprocs && strcmp(g->procs[i].name, s.name) == 0) {
            s.mean_ns += g->procs[i].mean_ns;
            s.calls += g->procs[i].calls;
            if (g->procs[i].res_ns > s.res_ns)
                s.res_ns = g->procs[i].res_ns;
            i++;
        }
        if (s.calls == 0)
            continue;
        s.mean_ns /= s.calls;
        if (s.mean_ns >= IPS2_CLOCK_MARGIN * s.res_ns)
            continue;
        if (!(s.name = strdup(s.name)))
            return -1;
        g->procs[n++] = s;
    }
    qsort(g->procs, n, sizeof(*g->procs), by_mean);
    out->shorts = g->procs;
    out->nshorts = n;
    g->procs = NULL;
    return 0;
}

int ips2_clock_note(const struct ips2_model *m, const struct ips2_node *n,
                    struct ips2_clock_note *out, char *err)
{
    struct gather g = {.m = m};

    memset(out, 0, sizeof(*out));
    if (n->kind == IPS2_NODE_PROC && n->parent)
        n = n->parent;
    ips2_node_threads(n, thread_fn, &g);
    free(g.seen);
    if (g.oom || keep_short(&g, out) < 0) {
        free(g.uses);
        free(g.procs);
        ips2_clock_note_free(out);
        ips2_set_error(err, "out of memory");
        return -1;
    }
    qsort(g.uses, g.nuses, sizeof(*g.uses), by_use);
    out->uses = g.uses;
    out->nuses = g.nuses;
    return 0;
}

void ips2_clock_note_free(struct ips2_clock_note *note)
{
    for (size_t i = 0; i < note->nshorts; i++)
        free(note->shorts[i].name);
    free(note->shorts);
    free(note->uses);
    memset(note, 0, sizeof(*note));
}

void ips2_clock_method_text(uint32_t method, uint32_t param, char *buf, size_t size)
{
    switch (method) {
    case IPS2_CPU_EXACT:
        snprintf(buf, size, "exact");
        break;
    case IPS2_CPU_INTERP:
        snprintf(buf, size, "interp:%u", param);
        break;
    case IPS2_CPU_TICK:
        snprintf(buf, size, "tick:%u", param);
        break;
    default:
        snprintf(buf, size, "method-%u", method);
        break;
    }
}

bool ips2_clock_note_exact(const struct ips2_clock_note *note)
{
    for (size_t i = 0; i < note->nuses; i++)
        if (note->uses[i].method != IPS2_CPU_EXACT && note->uses[i].res_ns != 0)
            return false;
    return true;
}

/* A resolution in the largest unit that keeps it whole. */
static void res_text(uint64_t ns, char *buf, size_t size)
{
    if (ns >= 1000000 && ns % 1000000 == 0)
        snprintf(buf, size, "%llu ms", (unsigned long long)(ns / 1000000));
    else if (ns >= 1000 && ns % 1000 == 0)
        snprintf(buf, size, "%llu us", (unsigned long long)(ns / 1000));
    else
        snprintf(buf, size, "%llu ns", (unsigned long long)ns);
}

char *ips2_clock_note_text(const struct ips2_clock_note *note)
{
    size_t size = 32 + note->nuses * 96;
    char *out = malloc(size), method[32], res[32];
    size_t len = 0, known = 0;

    if (!out)
        return NULL;
    out[0] = '\0';
    for (size_t i = 0; i < note->nuses; i++)
        known += note->uses[i].res_ns != 0;
    for (size_t i = 0; i < note->nuses; i++) {
        const struct ips2_clock_use *u = &note->uses[i];
        if (u->res_ns == 0)
            continue;
        ips2_clock_method_text(u->method, u->param, method, sizeof(method));
        res_text(u->res_ns, res, sizeof(res));
        len += (size_t)snprintf(out + len, size - len, "%s%s (resolution %s)", len ? "; " : "",
                                method, res);
        if (known > 1)
            len += (size_t)snprintf(out + len, size - len, " for %u process%s", u->processes,
                                    u->processes == 1 ? "" : "es");
    }
    if (known == 0)
        snprintf(out, size, "not known");
    return out;
}
