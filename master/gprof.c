/*
 * gprof.c - gprof tables of a node: the flat profile and the call graph in
 * GNU gprof's layout, from exact trace times instead of samples.
 *
 * The procedure rows and call arcs of every thread under the node are
 * merged by procedure name.  For each procedure: self = its exclusive CPU
 * time, children = inclusive - self (recursion counted once, as the slaves
 * reduce it), calls = all calls, of which self_calls are calls to itself
 * (gprof's "N+R").  An arc's time is the callee's inclusive CPU over the
 * calls of that arc, exactly; gprof's parent/child lines split it into
 * self and children in the callee's own proportion, as gprof itself does
 * for the proportion it estimates from counts.
 *
 * As in gprof, the flat profile's calls (and the per-call times) count
 * the calls from other procedures; a procedure's calls to itself show in
 * the call graph as "N+R".
 *
 * Ordering follows GNU gprof (gprof/cg_print.c, cg_arcs.c): flat profile
 * by self time, then calls, then name; call graph entries by self +
 * children, then calls, then name, numbered [1], [2], ... in that order;
 * parents in increasing order of arc time (self calls first), children in
 * decreasing order (self calls last).
 *
 * Cycles (procedures that call each other recursively) are gprof's: the
 * strongly connected components of the call graph (self calls aside) each
 * get an entry "<cycle N as a whole>" (kind "cycle", its members listed
 * after it with kind "member") whose calls are "calls from outside + calls
 * within"; a member is named "f <cycle N>", its children are only the
 * time of its callees outside the cycle, calls within the cycle show as
 * counts without times, and "n/M" of an arc into a member has the calls
 * into the cycle as M.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tables.h"

struct garc {
    int caller; /* fn index, -1 for <spontaneous> */
    int callee;
    uint64_t count, child_cpu;
};

struct gfn {
    const char *name;
    uint64_t self, incl, calls, self_calls;
    uint64_t child; /* gprof's children: incl - self; a cycle member's: outside its cycle */
    int cycle;      /* its cycle's number (before renumbering), 0 if none */
    int index;      /* [N] in the call graph, 0 if not listed */
};

struct gcycle {
    uint64_t self, child;          /* its members' self times and outside children */
    uint64_t ext_calls, int_calls; /* calls into it from outside, and within it */
    int nmembers;
    int number; /* "<cycle N>", in call graph order */
    int index;  /* [N] of its entry */
};

struct gprof {
    struct ips2_model *m;
    struct gfn *fn;
    size_t nfn, capfn;
    struct garc *arc;
    size_t narc, caparc;
    int *map; /* name hash: fn index + 1, 0 = empty */
    size_t capmap;
    struct gcycle *cyc; /* [1 .. ncycles] */
    int ncycles;
    int oom;
};

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ULL;

    while (*s) {
        h ^= (unsigned char)*s++;
        h *= 1099511628211ULL;
    }
    return h;
}

/* The function named name, added if missing; -1 on OOM. */
static int fn_of(struct gprof *g, const char *name)
{
    size_t i;

    if (2 * (g->nfn + 1) > g->capmap) {
        size_t ncap = g->capmap ? 2 * g->capmap : 256;
        int *nm = calloc(ncap, sizeof(*nm));
        if (nm == NULL)
            return -1;
        for (size_t k = 0; k < g->nfn; k++) {
            for (i = hash_name(g->fn[k].name) & (ncap - 1); nm[i]; i = (i + 1) & (ncap - 1))
                ;
            nm[i] = (int)k + 1;
        }
        free(g->map);
        g->map = nm;
        g->capmap = ncap;
    }
    for (i = hash_name(name) & (g->capmap - 1); g->map[i]; i = (i + 1) & (g->capmap - 1))
        if (strcmp(g->fn[g->map[i] - 1].name, name) == 0)
            return g->map[i] - 1;
    if (g->nfn == g->capfn) {
        size_t ncap = g->capfn ? 2 * g->capfn : 64;
        void *p = realloc(g->fn, ncap * sizeof(*g->fn));
        if (p == NULL)
            return -1;
        g->fn = p;
        g->capfn = ncap;
    }
    memset(&g->fn[g->nfn], 0, sizeof(g->fn[0]));
    g->fn[g->nfn].name = name;
    g->map[i] = (int)g->nfn + 1;
    return (int)g->nfn++;
}

static void add_arc(struct gprof *g, int caller, int callee, uint64_t count, uint64_t child_cpu)
{
    for (size_t i = 0; i < g->narc; i++)
        if (g->arc[i].caller == caller && g->arc[i].callee == callee) {
            g->arc[i].count += count;
            g->arc[i].child_cpu += child_cpu;
            return;
        }
    if (g->narc == g->caparc) {
        size_t ncap = g->caparc ? 2 * g->caparc : 64;
        void *p = realloc(g->arc, ncap * sizeof(*g->arc));
        if (p == NULL) {
            g->oom = 1;
            return;
        }
        g->arc = p;
        g->caparc = ncap;
    }
    g->arc[g->narc++] = (struct garc){caller, callee, count, child_cpu};
}

static void gather_thread(void *arg, const struct ips2_node *thread, const struct ips2_ref *ref)
{
    struct gprof *g = arg;
    const struct ips2_red_slot *s = &g->m->slots[ref->slot];
    const struct ips2_reductions *r = s->r;
    const struct ips2_red_thread *t = &r->threads[ref->row];

    (void)thread;
    for (uint32_t k = 0; k < t->nprocs && !g->oom; k++) {
        const struct ips2_red_proc *p = &r->procs[t->first_proc + k];
        int f = fn_of(g, r->strings[p->name]);
        if (f < 0) {
            g->oom = 1;
            return;
        }
        g->fn[f].self += p->m[IPS2_M_CPU];
        g->fn[f].incl += p->incl_cpu;
        g->fn[f].calls += p->m[IPS2_M_CALLS];
    }
    for (uint32_t k = s->arc_at[ref->row]; k < s->arc_at[ref->row + 1] && !g->oom; k++) {
        const struct ips2_red_arc *a = &r->arcs[s->arc_ix[k]];
        int caller = a->caller == IPS2_RED_NONE ? -1 : fn_of(g, r->strings[a->caller]);
        int callee = fn_of(g, r->strings[a->callee]);
        if (callee < 0 || (a->caller != IPS2_RED_NONE && caller < 0)) {
            g->oom = 1;
            return;
        }
        add_arc(g, caller, callee, a->count, a->child_cpu);
    }
}

/* --------------------------------------------------------------- cycles --- */

/* Tarjan's strongly connected components over the arcs between different
 * procedures; every component of two or more is one of gprof's cycles. */
struct tarjan {
    struct gprof *g;
    uint32_t *at, *to; /* adjacency: callees of fn f are to[at[f] .. at[f + 1]) */
    int *idx, *low, *stack;
    char *on;
    int next, sp, ncycles;
    int *comp; /* component of each fn */
};

static void strong(struct tarjan *t, int v)
{
    t->idx[v] = t->low[v] = t->next++;
    t->stack[t->sp++] = v;
    t->on[v] = 1;
    for (uint32_t k = t->at[v]; k < t->at[v + 1]; k++) {
        int w = (int)t->to[k];
        if (t->idx[w] < 0) {
            strong(t, w);
            if (t->low[w] < t->low[v])
                t->low[v] = t->low[w];
        } else if (t->on[w] && t->idx[w] < t->low[v]) {
            t->low[v] = t->idx[w];
        }
    }
    if (t->low[v] == t->idx[v]) {
        int w, size = 0, first = t->sp;
        do {
            w = t->stack[--first];
            size++;
        } while (w != v);
        for (int i = first; i < t->sp; i++) {
            t->on[t->stack[i]] = 0;
            t->comp[t->stack[i]] = size > 1 ? t->ncycles + 1 : 0;
        }
        if (size > 1)
            t->ncycles++;
        t->sp = first;
    }
}

/* Sets fn[].cycle (1, 2, ... in no particular order yet) and g->ncycles. */
static int find_cycles(struct gprof *g)
{
    struct tarjan t = {.g = g};
    int rc = -1;
    size_t n = g->nfn;

    t.at = calloc(n + 1, sizeof(*t.at));
    t.to = malloc((g->narc ? g->narc : 1) * sizeof(*t.to));
    t.idx = malloc((n ? n : 1) * sizeof(int));
    t.low = malloc((n ? n : 1) * sizeof(int));
    t.stack = malloc((n ? n : 1) * sizeof(int));
    t.comp = calloc(n ? n : 1, sizeof(int));
    t.on = calloc(n ? n : 1, 1);
    if (!t.at || !t.to || !t.idx || !t.low || !t.stack || !t.comp || !t.on)
        goto out;
    for (size_t k = 0; k < g->narc; k++)
        if (g->arc[k].caller >= 0 && g->arc[k].caller != g->arc[k].callee)
            t.at[g->arc[k].caller + 1]++;
    for (size_t f = 0; f < n; f++)
        t.at[f + 1] += t.at[f];
    {
        uint32_t *fill = calloc(n ? n : 1, sizeof(*fill));
        if (fill == NULL)
            goto out;
        for (size_t k = 0; k < g->narc; k++) {
            int c = g->arc[k].caller;
            if (c >= 0 && c != g->arc[k].callee)
                t.to[t.at[c] + fill[c]++] = (uint32_t)g->arc[k].callee;
        }
        free(fill);
    }
    for (size_t f = 0; f < n; f++)
        t.idx[f] = -1;
    for (size_t f = 0; f < n; f++)
        if (t.idx[f] < 0)
            strong(&t, (int)f);
    for (size_t f = 0; f < n; f++)
        g->fn[f].cycle = t.comp[f];
    g->ncycles = t.ncycles;
    rc = 0;
out:
    free(t.at);
    free(t.to);
    free(t.idx);
    free(t.low);
    free(t.stack);
    free(t.comp);
    free(t.on);
    return rc;
}

static int same_cycle(const struct gprof *g, int a, int b)
{
    return a >= 0 && b >= 0 && g->fn[a].cycle && g->fn[a].cycle == g->fn[b].cycle;
}

/* What gprof propagates: a procedure's children (in a cycle: only those
 * outside it), and each cycle's self, children and calls. */
static int propagate(struct gprof *g)
{
    g->cyc = calloc(g->ncycles + 1, sizeof(*g->cyc));
    if (g->cyc == NULL)
        return -1;
    for (size_t f = 0; f < g->nfn; f++) {
        struct gfn *fn = &g->fn[f];
        fn->child = fn->incl > fn->self ? fn->incl - fn->self : 0;
        if (fn->cycle) {
            fn->child = 0;
            g->cyc[fn->cycle].self += fn->self;
            g->cyc[fn->cycle].nmembers++;
        }
    }
    for (size_t k = 0; k < g->narc; k++) {
        const struct garc *a = &g->arc[k];
        int cc = g->fn[a->callee].cycle;
        if (a->caller >= 0 && g->fn[a->caller].cycle && !same_cycle(g, a->caller, a->callee))
            g->fn[a->caller].child += a->child_cpu;
        if (cc == 0)
            continue;
        if (same_cycle(g, a->caller, a->callee) || a->caller == a->callee)
            g->cyc[cc].int_calls += a->count;
        else
            g->cyc[cc].ext_calls += a->count;
    }
    for (size_t f = 0; f < g->nfn; f++)
        if (g->fn[f].cycle)
            g->cyc[g->fn[f].cycle].child += g->fn[f].child;
    return 0;
}

/* ---------------------------------------------------------------- order --- */

/* An entry of the call graph: fn index >= 0, or -(cycle number). */
static uint64_t entry_total(const struct gprof *g, int e)
{
    return e >= 0 ? g->fn[e].self + g->fn[e].child : g->cyc[-e].self + g->cyc[-e].child;
}

static uint64_t ncalls(const struct gfn *f)
{
    return f->calls - f->self_calls;
}

static int cmp_flat(const void *a, const void *b, void *ctx)
{
    const struct gprof *g = ctx;
    const struct gfn *x = &g->fn[*(const int *)a], *y = &g->fn[*(const int *)b];

    if (x->self != y->self)
        return x->self > y->self ? -1 : 1;
    if (ncalls(x) != ncalls(y))
        return ncalls(x) > ncalls(y) ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* gprof's cmp_total: total time, cycles first, names not starting with
 * '_' first, calls, name. */
static int cmp_total(const void *a, const void *b, void *ctx)
{
    const struct gprof *g = ctx;
    int ea = *(const int *)a, eb = *(const int *)b;
    uint64_t ta = entry_total(g, ea), tb = entry_total(g, eb);
    const struct gfn *x, *y;

    if (ta != tb)
        return ta > tb ? -1 : 1;
    if ((ea < 0) != (eb < 0))
        return ea < 0 ? -1 : 1;
    if (ea < 0)
        return ea < eb ? 1 : -1;
    x = &g->fn[ea];
    y = &g->fn[eb];
    if ((x->name[0] == '_') != (y->name[0] == '_'))
        return x->name[0] == '_' ? 1 : -1;
    if (ncalls(x) != ncalls(y))
        return ncalls(x) > ncalls(y) ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int cmp_member(const void *a, const void *b, void *ctx)
{
    const struct gprof *g = ctx;
    int x = *(const int *)a, y = *(const int *)b;

    if (entry_total(g, x) != entry_total(g, y))
        return entry_total(g, x) > entry_total(g, y) ? -1 : 1;
    if (ncalls(&g->fn[x]) != ncalls(&g->fn[y]))
        return ncalls(&g->fn[x]) > ncalls(&g->fn[y]) ? -1 : 1;
    return strcmp(g->fn[x].name, g->fn[y].name);
}

/* gprof's cmp_arc: self calls least, then calls within a cycle (by count),
 * then by arc time, then count. */
static int cmp_arc(const struct gprof *g, const struct garc *x, const struct garc *y)
{
    int xs = x->caller == x->callee, ys = y->caller == y->callee;
    int xc = same_cycle(g, x->caller, x->callee), yc = same_cycle(g, y->caller, y->callee);

    if (xs != ys)
        return xs ? -1 : 1;
    if (xc != yc)
        return xc ? -1 : 1;
    if (!xc && x->child_cpu != y->child_cpu)
        return x->child_cpu < y->child_cpu ? -1 : 1;
    if (x->count != y->count)
        return x->count < y->count ? -1 : 1;
    return 0;
}

static int cmp_arc_up(const void *a, const void *b, void *ctx)
{
    const struct gprof *g = ctx;
    return cmp_arc(g, &g->arc[*(const int *)a], &g->arc[*(const int *)b]);
}

static int cmp_arc_down(const void *a, const void *b, void *ctx)
{
    return -cmp_arc_up(a, b, ctx);
}

/* -------------------------------------------------------------- tables --- */

/* A procedure's name as gprof prints it: "f", or "f <cycle N>". */
static const char *label(const struct gprof *g, int f, char *buf, size_t size)
{
    if (g->fn[f].cycle == 0)
        return g->fn[f].name;
    snprintf(buf, size, "%s <cycle %d>", g->fn[f].name, g->cyc[g->fn[f].cycle].number);
    return buf;
}

/* The calls into callee that "n/M" puts after the slash: its calls from
 * others, or, for a cycle member, the calls into the cycle. */
static uint64_t calls_into(const struct gprof *g, int callee)
{
    const struct gfn *f = &g->fn[callee];
    return f->cycle ? g->cyc[f->cycle].ext_calls : ncalls(f);
}

/* The part of an arc's time that is the callee's (or its cycle's) own. */
static uint64_t arc_self(const struct gprof *g, const struct garc *a)
{
    const struct gfn *f = &g->fn[a->callee];
    uint64_t self = f->cycle ? g->cyc[f->cycle].self : f->self;
    uint64_t total = f->cycle ? self + g->cyc[f->cycle].child : self + f->child;
    uint64_t s;

    if (total == 0)
        return 0;
    s = (uint64_t)llround((double)a->child_cpu * (double)self / (double)total);
    return s < a->child_cpu ? s : a->child_cpu;
}

static int put_blank(struct ips2_table *t, long row, size_t c)
{
    return ips2_table_str(t, (size_t)row, c, "");
}

static struct ips2_table *flat_table(struct gprof *g, const int *order, size_t n, uint64_t total)
{
    static const char *const names[] = {"percent",       "cumulative",     "self", "calls",
                                        "self_per_call", "total_per_call", "name"};
    static const char *const units[] = {"%", "ns", "ns", "", "ns", "ns", ""};
    struct ips2_table *t = ips2_table_new(7);
    uint64_t cum = 0;

    for (size_t c = 0; t && c < 7; c++)
        if (ips2_table_column(t, c, names[c], units[c]) != 0)
            goto oom;
    if (t == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const struct gfn *f = &g->fn[order[i]];
        uint64_t nc = ncalls(f);
        long row;
        if (f->self == 0 && f->calls == 0)
            continue;
        cum += f->self;
        if ((row = ips2_table_row(t)) < 0)
            goto oom;
        ips2_table_real(t, (size_t)row, 0, total ? 100.0 * (double)f->self / (double)total : 0.0);
        ips2_table_int(t, (size_t)row, 1, (int64_t)cum);
        ips2_table_int(t, (size_t)row, 2, (int64_t)f->self);
        if (nc) {
            ips2_table_int(t, (size_t)row, 3, (int64_t)nc);
            ips2_table_int(t, (size_t)row, 4, (int64_t)llround((double)f->self / (double)nc));
            ips2_table_int(t, (size_t)row, 5,
                           (int64_t)llround((double)(f->self + f->child) / (double)nc));
        } else if (put_blank(t, row, 3) || put_blank(t, row, 4) || put_blank(t, row, 5)) {
            goto oom;
        }
        if (ips2_table_str(t, (size_t)row, 6, f->name) != 0)
            goto oom;
    }
    return t;
oom:
    ips2_table_free(t);
    return NULL;
}

/* One line of the call graph; times < 0 leave self and children blank,
 * percent < 0 leaves percent blank, index 0 leaves index blank. */
static int graph_line(struct ips2_table *t, const char *kind, int index, double percent,
                      int64_t self, int64_t children, const char *called, const char *name)
{
    long row = ips2_table_row(t);

    if (row < 0)
        return -1;
    if (index)
        ips2_table_int(t, (size_t)row, 0, index);
    else if (put_blank(t, row, 0))
        return -1;
    if (percent >= 0)
        ips2_table_real(t, (size_t)row, 1, percent);
    else if (put_blank(t, row, 1))
        return -1;
    if (self >= 0) {
        ips2_table_int(t, (size_t)row, 2, self);
        ips2_table_int(t, (size_t)row, 3, children);
    } else if (put_blank(t, row, 2) || put_blank(t, row, 3)) {
        return -1;
    }
    return ips2_table_str(t, (size_t)row, 4, called) || ips2_table_str(t, (size_t)row, 5, name) ||
                   ips2_table_str(t, (size_t)row, 6, kind)
               ? -1
               : 0;
}

/* A parent or child line for arc a, naming other (its caller or callee). */
static int arc_line(struct gprof *g, struct ips2_table *t, const char *kind, const struct garc *a,
                    int other)
{
    char called[64], buf[512];
    const char *name = label(g, other, buf, sizeof(buf));

    if (a->caller == a->callee || same_cycle(g, a->caller, a->callee)) {
        snprintf(called, sizeof(called), "%" PRIu64, a->count);
        return graph_line(t, kind, g->fn[other].index, -1, -1, 0, called, name);
    }
    uint64_t s = arc_self(g, a);
    snprintf(called, sizeof(called), "%" PRIu64 "/%" PRIu64, a->count, calls_into(g, a->callee));
    return graph_line(t, kind, g->fn[other].index, -1, (int64_t)s, (int64_t)(a->child_cpu - s),
                      called, name);
}

static void calls_text(char *buf, size_t size, uint64_t n, uint64_t r)
{
    if (r)
        snprintf(buf, size, "%" PRIu64 "+%" PRIu64, n, r);
    else if (n)
        snprintf(buf, size, "%" PRIu64, n);
    else
        buf[0] = 0;
}

/* A cycle's entry: its header and its members. */
static int cycle_entry(struct gprof *g, struct ips2_table *t, int c, const int *members, size_t n,
                       uint64_t total)
{
    const struct gcycle *cy = &g->cyc[c];
    char called[64], name[64], buf[512];

    calls_text(called, sizeof(called), cy->ext_calls, cy->int_calls);
    snprintf(name, sizeof(name), "<cycle %d as a whole>", cy->number);
    if (graph_line(t, "cycle", cy->index,
                   total ? 100.0 * (double)(cy->self + cy->child) / (double)total : 0.0,
                   (int64_t)cy->self, (int64_t)cy->child, called, name))
        return -1;
    for (size_t i = 0; i < n; i++) {
        const struct gfn *f = &g->fn[members[i]];
        calls_text(called, sizeof(called), ncalls(f), f->self_calls);
        if (graph_line(t, "member", f->index, -1, (int64_t)f->self, (int64_t)f->child, called,
                       label(g, members[i], buf, sizeof(buf))))
            return -1;
    }
    return 0;
}

static int fn_entry(struct gprof *g, struct ips2_table *t, int f, int *list, uint64_t total)
{
    const struct gfn *fn = &g->fn[f];
    size_t np = 0, nc = 0;
    char called[64], buf[512];

    for (size_t k = 0; k < g->narc; k++)
        if (g->arc[k].callee == f)
            list[np++] = (int)k;
    qsort_r(list, np, sizeof(int), cmp_arc_up, g);
    for (size_t k = 0; k < np; k++) {
        const struct garc *a = &g->arc[list[k]];
        int rc = a->caller < 0 ? graph_line(t, "parent", 0, -1, -1, 0, "", "<spontaneous>")
                               : arc_line(g, t, "parent", a, a->caller);
        if (rc)
            return -1;
    }
    calls_text(called, sizeof(called), ncalls(fn), fn->self_calls);
    if (graph_line(t, "primary", fn->index,
                   total ? 100.0 * (double)(fn->self + fn->child) / (double)total : 0.0,
                   (int64_t)fn->self, (int64_t)fn->child, called, label(g, f, buf, sizeof(buf))))
        return -1;
    for (size_t k = 0; k < g->narc; k++)
        if (g->arc[k].caller == f)
            list[nc++] = (int)k;
    qsort_r(list, nc, sizeof(int), cmp_arc_down, g);
    for (size_t k = 0; k < nc; k++)
        if (arc_line(g, t, "child", &g->arc[list[k]], g->arc[list[k]].callee))
            return -1;
    return 0;
}

static struct ips2_table *graph_table(struct gprof *g, const int *entries, size_t n, uint64_t total)
{
    static const char *const names[] = {"index",  "percent", "self", "children",
                                        "called", "name",    "kind"};
    static const char *const units[] = {"", "%", "ns", "ns", "", "", ""};
    struct ips2_table *t = ips2_table_new(7);
    int *list = malloc((g->narc + g->nfn + 1) * sizeof(int));

    for (size_t c = 0; t && c < 7; c++)
        if (ips2_table_column(t, c, names[c], units[c]) != 0)
            goto oom;
    if (t == NULL || list == NULL)
        goto oom;
    for (size_t i = 0; i < n; i++) {
        int e = entries[i];
        if (e >= 0) {
            if (fn_entry(g, t, e, list, total))
                goto oom;
            continue;
        }
        size_t nm = 0;
        for (size_t f = 0; f < g->nfn; f++)
            if (g->fn[f].cycle == -e && g->fn[f].index)
                list[nm++] = (int)f;
        qsort_r(list, nm, sizeof(int), cmp_member, g);
        if (cycle_entry(g, t, -e, list, nm, total))
            goto oom;
    }
    free(list);
    return t;
oom:
    free(list);
    ips2_table_free(t);
    return NULL;
}

int ips2_gprof_tables(struct ips2_model *m, const struct ips2_node *n, struct ips2_table **flat,
                      struct ips2_table **graph, char *err)
{
    struct gprof g = {.m = m};
    int *order = NULL;
    uint64_t total = 0;
    size_t nlisted = 0, nflat = 0;
    int rc = -1, number = 0;

    *flat = *graph = NULL;
    if (n->kind == IPS2_NODE_PROC) {
        ips2_set_error(err, "no gprof table of a procedure node (%s)", n->path);
        return -1;
    }
    ips2_node_threads(n, gather_thread, &g);
    if (g.oom)
        goto oom;
    for (size_t k = 0; k < g.narc; k++)
        if (g.arc[k].caller == g.arc[k].callee)
            g.fn[g.arc[k].callee].self_calls += g.arc[k].count;
    for (size_t f = 0; f < g.nfn; f++) {
        if (g.fn[f].self_calls > g.fn[f].calls)
            g.fn[f].calls = g.fn[f].self_calls; /* arcs say more than the rows */
        total += g.fn[f].self;
    }
    if (find_cycles(&g) != 0 || propagate(&g) != 0)
        goto oom;
    order = malloc((g.nfn + (size_t)g.ncycles + 1) * sizeof(int));
    if (order == NULL)
        goto oom;
    /* the entries: every procedure with calls or time, and every cycle */
    for (size_t f = 0; f < g.nfn; f++)
        if (g.fn[f].self || g.fn[f].calls || g.fn[f].incl)
            order[nlisted++] = (int)f;
    for (int c = 1; c <= g.ncycles; c++)
        order[nlisted++] = -c;
    qsort_r(order, nlisted, sizeof(int), cmp_total, &g);
    for (size_t i = 0; i < nlisted; i++) {
        if (order[i] >= 0) {
            g.fn[order[i]].index = (int)i + 1;
        } else {
            g.cyc[-order[i]].index = (int)i + 1;
            g.cyc[-order[i]].number = ++number;
        }
    }
    if ((*graph = graph_table(&g, order, nlisted, total)) == NULL)
        goto oom;
    for (size_t i = 0; i < nlisted; i++)
        if (order[i] >= 0)
            order[nflat++] = order[i];
    qsort_r(order, nflat, sizeof(int), cmp_flat, &g);
    if ((*flat = flat_table(&g, order, nflat, total)) == NULL)
        goto oom;
    rc = 0;
    goto out;
oom:
    ips2_table_free(*graph);
    *flat = *graph = NULL;
    ips2_set_error(err, "out of memory making the gprof tables of %s", n->path);
out:
    free(order);
    free(g.fn);
    free(g.arc);
    free(g.map);
    free(g.cyc);
    return rc;
}

/* ---------------------------------------------------------------- text --- */

struct buf {
    char *s;
    size_t n, cap;
    int oom;
};

static void bprintf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bprintf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    int len;

    if (b->oom)
        return;
    va_start(ap, fmt);
    len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (b->n + (size_t)len + 1 > b->cap) {
        size_t ncap = (b->cap + (size_t)len + 1) * 2;
        char *p = realloc(b->s, ncap);
        if (p == NULL) {
            b->oom = 1;
            return;
        }
        b->s = p;
        b->cap = ncap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
    va_end(ap);
    b->n += (size_t)len;
}

static int blank(const struct ips2_cell *c)
{
    return c->type == IPS2_CELL_STR;
}

static double num(const struct ips2_cell *c)
{
    return c->type == IPS2_CELL_INT ? (double)c->u.i : c->type == IPS2_CELL_REAL ? c->u.d : 0;
}

static const char *str(const struct ips2_cell *c)
{
    return c->type == IPS2_CELL_STR ? c->u.s : "";
}

/* gprof's choice of unit for per-call times: the first scale at which the
 * largest total per call lies in [1, 1000); then, while a per-call time
 * that is not 0 would print as 0.00 (a server's short calls under a long
 * main), a finer one, as long as the largest still fits its %8.2f. */
static double per_call_scale(const struct ips2_table *flat, char *unit)
{
    static const struct {
        char prefix;
        double scale;
    } si[] = {{'T', 1e-12}, {'G', 1e-09}, {'M', 1e-06}, {'K', 1e-03}, {' ', 1},    {'m', 1e+03},
              {'u', 1e+06}, {'n', 1e+09}, {'p', 1e+12}, {'f', 1e+15}, {'a', 1e+18}};
    const size_t nsi = sizeof(si) / sizeof(si[0]);
    double top = 0, least = 0; /* the largest, and the smallest not 0, in s */
    size_t i;

    for (size_t r = 0; r < flat->nrows; r++)
        for (size_t col = 4; col <= 5; col++) {
            const struct ips2_cell *c = ips2_table_at(flat, r, col);
            double v = num(c) / 1e9;
            if (blank(c) || v <= 0)
                continue;
            if (v > top)
                top = v;
            if (least == 0 || v < least)
                least = v;
        }
    for (i = 0; i < nsi; i++)
        if (si[i].scale * top >= 1.0 && si[i].scale * top < 1000.0)
            break;
    if (i == nsi) {
        sprintf(unit, "Ts/call");
        return 1e-12;
    }
    while (i + 1 < nsi && si[i].scale * least < 0.005 && si[i + 1].scale * top < 99999.995)
        i++;
    sprintf(unit, "%cs/call", si[i].prefix);
    return si[i].scale;
}

char *ips2_gprof_text(const struct ips2_table *flat, const struct ips2_table *graph,
                      const char *clock)
{
    struct buf b = {0};
    char unit[16];
    double scale = per_call_scale(flat, unit), total = 0;

    for (size_t r = 0; r < flat->nrows; r++)
        total += num(ips2_table_at(flat, r, 2));
    if (clock == NULL)
        bprintf(&b, "Flat profile:\n\nEach procedure's times are exact (from its traces), not "
                    "sampled.\n");
    else
        bprintf(&b,
                "Flat profile:\n\nEach procedure's times are from its traces, not sampled, "
                "measured with the\nprocess-time clock %s.\n",
                clock);
    bprintf(&b, "  %%   cumulative   self              self     total           \n");
    bprintf(&b, " time   seconds   seconds    calls  %-7s  %-7s  name    \n", unit, unit);
    for (size_t r = 0; r < flat->nrows; r++) {
        const struct ips2_cell *c = ips2_table_at(flat, r, 0);
        bprintf(&b, "%6.2f %9.2f %8.2f", num(&c[0]), num(&c[1]) / 1e9, num(&c[2]) / 1e9);
        if (blank(&c[3]))
            bprintf(&b, " %8.8s %8.8s %8.8s  ", "", "", "");
        else
            bprintf(&b, " %8" PRId64 " %8.2f %8.2f  ", c[3].u.i, scale * num(&c[4]) / 1e9,
                    scale * num(&c[5]) / 1e9);
        bprintf(&b, "%s\n", str(&c[6]));
    }
    if (clock == NULL)
        bprintf(&b, "\f\n\t\t\tCall graph\n\n\ngranularity: exact times; %.2f seconds in all\n\n",
                total / 1e9);
    else
        bprintf(&b, "\f\n\t\t\tCall graph\n\n\ngranularity: %s; %.2f seconds in all\n\n", clock,
                total / 1e9);
    bprintf(&b, "index %% time    self  children    called     name\n");
    for (size_t r = 0; r < graph->nrows; r++) {
        const struct ips2_cell *c = ips2_table_at(graph, r, 0);
        const char *kind = str(&c[6]), *called = str(&c[4]), *name = str(&c[5]);
        char ref[32] = "";
        if (!blank(&c[0]))
            snprintf(ref, sizeof(ref), " [%" PRId64 "]", c[0].u.i);
        if (strcmp(kind, "primary") == 0 || strcmp(kind, "cycle") == 0) {
            char idx[32], n1[32] = "", n2[32] = "";
            const char *plus = strchr(called, '+');
            snprintf(idx, sizeof(idx), "[%" PRId64 "]", c[0].u.i);
            bprintf(&b, "%-6.6s %5.1f %7.2f %7.2f", idx, num(&c[1]), num(&c[2]) / 1e9,
                    num(&c[3]) / 1e9);
            if (plus) {
                snprintf(n1, sizeof(n1), "%.*s", (int)(plus - called), called);
                snprintf(n2, sizeof(n2), "%s", plus + 1);
                bprintf(&b, " %7s+%-7s ", n1, n2);
            } else {
                bprintf(&b, " %7s %7.7s ", called, "");
            }
            bprintf(&b, "%s%s\n", name, ref);
        } else if (strcmp(name, "<spontaneous>") == 0) {
            bprintf(&b, "%6.6s %5.5s %7.7s %7.7s %7.7s %7.7s     <spontaneous>\n", "", "", "", "",
                    "", "");
        } else if (strcmp(kind, "member") == 0) {
            bprintf(&b, "%6.6s %5.5s %7.2f %7.2f %7s %7.7s     %s%s\n", "", "", num(&c[2]) / 1e9,
                    num(&c[3]) / 1e9, called, "", name, ref);
        } else if (blank(&c[2])) {
            bprintf(&b, "%6.6s %5.5s %7.7s %7.7s %7s %7.7s     %s%s\n", "", "", "", "", called, "",
                    name, ref);
        } else {
            const char *slash = strchr(called, '/');
            char n1[32] = "";
            snprintf(n1, sizeof(n1), "%.*s", slash ? (int)(slash - called) : (int)strlen(called),
                     called);
            bprintf(&b, "%6.6s %5.5s %7.2f %7.2f %7s/%-7s     %s%s\n", "", "", num(&c[2]) / 1e9,
                    num(&c[3]) / 1e9, n1, slash ? slash + 1 : "", name, ref);
        }
        if (strcmp(kind, "parent") != 0) {
            /* an entry ends before the next parent, primary or cycle line */
            const char *next = r + 1 < graph->nrows ? str(ips2_table_at(graph, r + 1, 6)) : "";
            if (strcmp(next, "child") != 0 && strcmp(next, "member") != 0)
                bprintf(&b, "-----------------------------------------------\n");
        }
    }
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    if (b.s == NULL)
        return strdup("");
    return b.s;
}
