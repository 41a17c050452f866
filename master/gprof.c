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
 * Not done: gprof's cycles.  Procedures calling each other recursively are
 * listed as ordinary entries (each one's calls are then all its calls, as
 * gprof's member lines show them), without a "<cycle N as a whole>" entry.
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
    int index; /* [N] in the call graph, 0 if not listed */
};

struct gprof {
    struct ips2_model *m;
    struct gfn *fn;
    size_t nfn, capfn;
    struct garc *arc;
    size_t narc, caparc;
    int *map; /* name hash: fn index + 1, 0 = empty */
    size_t capmap;
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

/* --------------------------------------------------------------- order --- */

static int cmp_flat(const void *a, const void *b, void *ctx)
{
    const struct gfn *fn = ctx, *x = &fn[*(const int *)a], *y = &fn[*(const int *)b];

    if (x->self != y->self)
        return x->self > y->self ? -1 : 1;
    if (x->calls - x->self_calls != y->calls - y->self_calls)
        return x->calls - x->self_calls > y->calls - y->self_calls ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int cmp_total(const void *a, const void *b, void *ctx)
{
    const struct gfn *fn = ctx, *x = &fn[*(const int *)a], *y = &fn[*(const int *)b];
    uint64_t tx = x->self > x->incl ? x->self : x->incl;
    uint64_t ty = y->self > y->incl ? y->self : y->incl;

    if (tx != ty)
        return tx > ty ? -1 : 1;
    if ((x->name[0] == '_') != (y->name[0] == '_'))
        return x->name[0] == '_' ? 1 : -1;
    if (x->calls - x->self_calls != y->calls - y->self_calls)
        return x->calls - x->self_calls > y->calls - y->self_calls ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* gprof's cmp_arc: self calls least, then arc time, then count. */
static int cmp_arc(const struct garc *x, const struct garc *y)
{
    int xs = x->caller == x->callee, ys = y->caller == y->callee;

    if (xs != ys)
        return xs ? -1 : 1;
    if (x->child_cpu != y->child_cpu)
        return x->child_cpu < y->child_cpu ? -1 : 1;
    if (x->count != y->count)
        return x->count < y->count ? -1 : 1;
    return 0;
}

static int cmp_arc_up(const void *a, const void *b, void *ctx)
{
    const struct garc *arcs = ctx;
    return cmp_arc(&arcs[*(const int *)a], &arcs[*(const int *)b]);
}

static int cmp_arc_down(const void *a, const void *b, void *ctx)
{
    return -cmp_arc_up(a, b, ctx);
}

/* -------------------------------------------------------------- tables --- */

static int put_row_ints(struct ips2_table *t, const int64_t *v, const int *isblank, size_t n,
                        long row)
{
    for (size_t c = 0; c < n; c++) {
        if (isblank && isblank[c]) {
            if (ips2_table_str(t, (size_t)row, c, "") != 0)
                return -1;
        } else {
            ips2_table_int(t, (size_t)row, c, v[c]);
        }
    }
    return 0;
}

/* The part of an arc's time that is the callee's own (gprof's arc->time). */
static uint64_t arc_self(const struct gfn *callee, const struct garc *a)
{
    uint64_t incl = callee->incl > callee->self ? callee->incl : callee->self;

    if (incl == 0)
        return 0;
    return (uint64_t)llround((double)a->child_cpu * (double)callee->self / (double)incl);
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
        uint64_t children = f->incl > f->self ? f->incl - f->self : 0;
        uint64_t ncalls = f->calls - f->self_calls;
        long row;
        if (f->self == 0 && f->calls == 0)
            continue;
        cum += f->self;
        if ((row = ips2_table_row(t)) < 0)
            goto oom;
        ips2_table_real(t, (size_t)row, 0, total ? 100.0 * (double)f->self / (double)total : 0.0);
        ips2_table_int(t, (size_t)row, 1, (int64_t)cum);
        ips2_table_int(t, (size_t)row, 2, (int64_t)f->self);
        if (ncalls) {
            ips2_table_int(t, (size_t)row, 3, (int64_t)ncalls);
            ips2_table_int(t, (size_t)row, 4, (int64_t)llround((double)f->self / (double)ncalls));
            ips2_table_int(t, (size_t)row, 5,
                           (int64_t)llround((double)(f->self + children) / (double)ncalls));
        } else if (ips2_table_str(t, (size_t)row, 3, "") || ips2_table_str(t, (size_t)row, 4, "") ||
                   ips2_table_str(t, (size_t)row, 5, "")) {
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

/* One line of the call graph. */
static int graph_line(struct ips2_table *t, const char *kind, int index, double percent,
                      int64_t self, int64_t children, int blank_times, const char *called,
                      const char *name)
{
    long row = ips2_table_row(t);
    int64_t v[4] = {index, 0, self, children};
    int blank[4] = {index == 0, 1, blank_times, blank_times};

    if (row < 0 || put_row_ints(t, v, blank, 4, row) != 0 ||
        ips2_table_str(t, (size_t)row, 4, called) || ips2_table_str(t, (size_t)row, 5, name) ||
        ips2_table_str(t, (size_t)row, 6, kind))
        return -1;
    if (percent >= 0)
        ips2_table_real(t, (size_t)row, 1, percent);
    return 0;
}

static struct ips2_table *graph_table(struct gprof *g, const int *order, size_t n, uint64_t total)
{
    static const char *const names[] = {"index",  "percent", "self", "children",
                                        "called", "name",    "kind"};
    static const char *const units[] = {"", "%", "ns", "ns", "", "", ""};
    struct ips2_table *t = ips2_table_new(7);
    int *list = malloc((g->narc ? g->narc : 1) * sizeof(int));
    char called[64];

    for (size_t c = 0; t && c < 7; c++)
        if (ips2_table_column(t, c, names[c], units[c]) != 0)
            goto oom;
    if (t == NULL || list == NULL)
        goto oom;
    for (size_t i = 0; i < n; i++) {
        int f = order[i];
        const struct gfn *fn = &g->fn[f];
        uint64_t children = fn->incl > fn->self ? fn->incl - fn->self : 0;
        uint64_t ncalls = fn->calls - fn->self_calls;
        size_t np = 0, nc = 0;
        /* parents */
        for (size_t k = 0; k < g->narc; k++)
            if (g->arc[k].callee == f)
                list[np++] = (int)k;
        qsort_r(list, np, sizeof(int), cmp_arc_up, g->arc);
        for (size_t k = 0; k < np; k++) {
            const struct garc *a = &g->arc[list[k]];
            if (a->caller < 0) {
                if (graph_line(t, "parent", 0, -1, 0, 0, 1, "", "<spontaneous>"))
                    goto oom;
                continue;
            }
            if (a->caller == f) {
                snprintf(called, sizeof(called), "%" PRIu64, a->count);
                if (graph_line(t, "parent", fn->index, -1, 0, 0, 1, called, fn->name))
                    goto oom;
                continue;
            }
            snprintf(called, sizeof(called), "%" PRIu64 "/%" PRIu64, a->count, ncalls);
            {
                uint64_t s = arc_self(fn, a);
                if (graph_line(t, "parent", g->fn[a->caller].index, -1, (int64_t)s,
                               (int64_t)(a->child_cpu - (s < a->child_cpu ? s : a->child_cpu)), 0,
                               called, g->fn[a->caller].name))
                    goto oom;
            }
        }
        /* the entry itself */
        if (fn->self_calls)
            snprintf(called, sizeof(called), "%" PRIu64 "+%" PRIu64, ncalls, fn->self_calls);
        else if (ncalls)
            snprintf(called, sizeof(called), "%" PRIu64, ncalls);
        else
            called[0] = 0;
        if (graph_line(t, "primary", fn->index,
                       total ? 100.0 * (double)(fn->self + children) / (double)total : 0.0,
                       (int64_t)fn->self, (int64_t)children, 0, called, fn->name))
            goto oom;
        /* children */
        for (size_t k = 0; k < g->narc; k++)
            if (g->arc[k].caller == f)
                list[nc++] = (int)k;
        qsort_r(list, nc, sizeof(int), cmp_arc_down, g->arc);
        for (size_t k = 0; k < nc; k++) {
            const struct garc *a = &g->arc[list[k]];
            const struct gfn *c = &g->fn[a->callee];
            if (a->callee == f) {
                snprintf(called, sizeof(called), "%" PRIu64, a->count);
                if (graph_line(t, "child", fn->index, -1, 0, 0, 1, called, fn->name))
                    goto oom;
                continue;
            }
            snprintf(called, sizeof(called), "%" PRIu64 "/%" PRIu64, a->count,
                     c->calls - c->self_calls);
            {
                uint64_t s = arc_self(c, a);
                if (graph_line(t, "child", c->index, -1, (int64_t)s,
                               (int64_t)(a->child_cpu - (s < a->child_cpu ? s : a->child_cpu)), 0,
                               called, c->name))
                    goto oom;
            }
        }
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
    size_t nlisted = 0;
    int rc = -1;

    *flat = *graph = NULL;
    if (n->kind == IPS2_NODE_PROC) {
        ips2_master_error(err, "no gprof table of a procedure node (%s)", n->path);
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
    order = malloc((g.nfn ? g.nfn : 1) * sizeof(int));
    if (order == NULL)
        goto oom;
    for (size_t f = 0; f < g.nfn; f++)
        order[f] = (int)f;
    qsort_r(order, g.nfn, sizeof(int), cmp_total, g.fn);
    for (size_t i = 0; i < g.nfn; i++) {
        const struct gfn *f = &g.fn[order[i]];
        if (f->self || f->calls || f->incl)
            order[nlisted++] = order[i];
    }
    for (size_t i = 0; i < nlisted; i++)
        g.fn[order[i]].index = (int)i + 1;
    if ((*graph = graph_table(&g, order, nlisted, total)) == NULL)
        goto oom;
    qsort_r(order, nlisted, sizeof(int), cmp_flat, g.fn);
    if ((*flat = flat_table(&g, order, nlisted, total)) == NULL)
        goto oom;
    rc = 0;
    goto out;
oom:
    ips2_table_free(*graph);
    *flat = *graph = NULL;
    ips2_master_error(err, "out of memory making the gprof tables of %s", n->path);
out:
    free(order);
    free(g.fn);
    free(g.arc);
    free(g.map);
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
 * largest total per call lies in [1, 1000). */
static double per_call_scale(const struct ips2_table *flat, char *unit)
{
    static const struct {
        char prefix;
        double scale;
    } si[] = {{'T', 1e-12}, {'G', 1e-09}, {'M', 1e-06}, {'K', 1e-03}, {' ', 1},    {'m', 1e+03},
              {'u', 1e+06}, {'n', 1e+09}, {'p', 1e+12}, {'f', 1e+15}, {'a', 1e+18}};
    double top = 0;

    for (size_t r = 0; r < flat->nrows; r++) {
        const struct ips2_cell *c = ips2_table_at(flat, r, 5);
        if (!blank(c) && num(c) / 1e9 > top)
            top = num(c) / 1e9;
    }
    for (size_t i = 0; i < sizeof(si) / sizeof(si[0]); i++)
        if (si[i].scale * top >= 1.0 && si[i].scale * top < 1000.0) {
            sprintf(unit, "%cs/call", si[i].prefix);
            return si[i].scale;
        }
    sprintf(unit, "Ts/call");
    return 1e-12;
}

char *ips2_gprof_text(const struct ips2_table *flat, const struct ips2_table *graph)
{
    struct buf b = {0};
    char unit[16];
    double scale = per_call_scale(flat, unit), total = 0;

    for (size_t r = 0; r < flat->nrows; r++)
        total += num(ips2_table_at(flat, r, 2));
    bprintf(&b, "Flat profile:\n\nEach procedure's times are exact (from its traces), not "
                "sampled.\n");
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
    bprintf(&b, "\f\n\t\t\tCall graph\n\n\ngranularity: exact times; %.2f seconds in all\n\n",
            total / 1e9);
    bprintf(&b, "index %% time    self  children    called     name\n");
    for (size_t r = 0; r < graph->nrows; r++) {
        const struct ips2_cell *c = ips2_table_at(graph, r, 0);
        const char *kind = str(&c[6]), *called = str(&c[4]), *name = str(&c[5]);
        char ref[32] = "";
        if (!blank(&c[0]))
            snprintf(ref, sizeof(ref), " [%" PRId64 "]", c[0].u.i);
        if (strcmp(kind, "primary") == 0) {
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
        if (r + 1 == graph->nrows || strcmp(str(ips2_table_at(graph, r + 1, 6)), "child") != 0) {
            /* an entry ends before the next parent or primary line */
            if (strcmp(kind, "child") == 0 || strcmp(kind, "primary") == 0)
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
