/*
 * tables.c - the table container and the metric, multi-application,
 * profile, NPT and synchronisation object tables (definitions in
 * tables.h).
 *
 * Every table reads the aggregates that ips2_model_index() put on the
 * nodes; only NPT goes back to the histograms (histograms.c).  Profiles
 * walk the subtree of the chosen node down to the chosen level; rows are
 * sorted by value, largest first, ties by path, so the order is the same
 * on every run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tables.h"

/* ---------------------------------------------------------------- table --- */

struct ips2_table *ips2_table_new(size_t ncols)
{
    struct ips2_table *t = calloc(1, sizeof(*t));

    if (t == NULL)
        return NULL;
    t->ncols = ncols;
    t->col_name = calloc(ncols ? ncols : 1, sizeof(char *));
    t->col_unit = calloc(ncols ? ncols : 1, sizeof(char *));
    if (t->col_name == NULL || t->col_unit == NULL) {
        ips2_table_free(t);
        return NULL;
    }
    return t;
}

void ips2_table_free(struct ips2_table *t)
{
    if (t == NULL)
        return;
    for (size_t c = 0; c < t->ncols; c++) {
        free(t->col_name[c]);
        free(t->col_unit[c]);
    }
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        if (t->cell[i].type == IPS2_CELL_STR)
            free(t->cell[i].u.s);
    free(t->col_name);
    free(t->col_unit);
    free(t->cell);
    free(t);
}

int ips2_table_column(struct ips2_table *t, size_t c, const char *name, const char *unit)
{
    free(t->col_name[c]);
    free(t->col_unit[c]);
    t->col_name[c] = strdup(name);
    t->col_unit[c] = strdup(unit ? unit : "");
    return t->col_name[c] && t->col_unit[c] ? 0 : -1;
}

long ips2_table_row(struct ips2_table *t)
{
    if (t->nrows == t->caprows) {
        size_t ncap = t->caprows ? 2 * t->caprows : 16;
        void *p = realloc(t->cell, ncap * (t->ncols ? t->ncols : 1) * sizeof(*t->cell));
        if (p == NULL)
            return -1;
        t->cell = p;
        t->caprows = ncap;
    }
    for (size_t c = 0; c < t->ncols; c++) {
        struct ips2_cell *cell = &t->cell[t->nrows * t->ncols + c];
        cell->type = IPS2_CELL_INT;
        cell->u.i = 0;
    }
    return (long)t->nrows++;
}

int ips2_table_str(struct ips2_table *t, size_t row, size_t c, const char *s)
{
    struct ips2_cell *cell = &t->cell[row * t->ncols + c];
    char *d = strdup(s ? s : "");

    if (d == NULL)
        return -1;
    if (cell->type == IPS2_CELL_STR)
        free(cell->u.s);
    cell->type = IPS2_CELL_STR;
    cell->u.s = d;
    return 0;
}

void ips2_table_int(struct ips2_table *t, size_t row, size_t c, int64_t v)
{
    struct ips2_cell *cell = &t->cell[row * t->ncols + c];

    if (cell->type == IPS2_CELL_STR)
        free(cell->u.s);
    cell->type = IPS2_CELL_INT;
    cell->u.i = v;
}

void ips2_table_real(struct ips2_table *t, size_t row, size_t c, double v)
{
    struct ips2_cell *cell = &t->cell[row * t->ncols + c];

    if (cell->type == IPS2_CELL_STR)
        free(cell->u.s);
    cell->type = IPS2_CELL_REAL;
    cell->u.d = v;
}

const struct ips2_cell *ips2_table_at(const struct ips2_table *t, size_t row, size_t c)
{
    return &t->cell[row * t->ncols + c];
}

int ips2_table_find_column(const struct ips2_table *t, const char *name)
{
    for (size_t c = 0; c < t->ncols; c++)
        if (strcmp(t->col_name[c], name) == 0)
            return (int)c;
    return -1;
}

/* -------------------------------------------------------------- metrics --- */

static const char *const derived_name[] = {"incl_cpu", "incl_wall", "elapsed",
                                           "npt",      "processes", "threads"};
static const char *const derived_unit[] = {"ns", "ns", "ns", "ns", "", ""};
static const char *const derived_description[] = {
    "procedure nodes: CPU time including the procedures called",
    "procedure nodes: elapsed time including the procedures called",
    "last end minus first start",
    "normalized processor time: CPU time divided by the concurrency",
    "processes under the node",
    "threads under the node"};

int ips2_metric_lookup(const char *name)
{
    for (int k = 0; k < IPS2_X_COUNT; k++)
        if (strcmp(ips2_any_metric_name(k), name) == 0)
            return k;
    return -1;
}

const char *ips2_any_metric_name(int metric)
{
    if (metric >= 0 && metric < IPS2_M_COUNT)
        return ips2_metric_name((unsigned)metric);
    if (metric >= IPS2_M_COUNT && metric < IPS2_X_COUNT)
        return derived_name[metric - IPS2_M_COUNT];
    return "?";
}

const char *ips2_any_metric_unit(int metric)
{
    if (metric >= 0 && metric < IPS2_M_COUNT)
        return ips2_metric_unit((unsigned)metric);
    if (metric >= IPS2_M_COUNT && metric < IPS2_X_COUNT)
        return derived_unit[metric - IPS2_M_COUNT];
    return "";
}

const char *ips2_any_metric_description(int metric)
{
    if (metric >= 0 && metric < IPS2_M_COUNT)
        return ips2_metric_description((unsigned)metric);
    if (metric >= IPS2_M_COUNT && metric < IPS2_X_COUNT)
        return derived_description[metric - IPS2_M_COUNT];
    return "";
}

int ips2_metric_applies(int metric, enum ips2_node_kind kind)
{
    /* collectors measure processes and machines, never threads */
    if (kind == IPS2_NODE_COLLECTOR)
        return ips2_metric_is_external(metric);
    if (ips2_metric_is_external(metric))
        return kind != IPS2_NODE_THREAD && kind != IPS2_NODE_PROC;
    switch (metric) {
    case IPS2_X_INCL_CPU:
    case IPS2_X_INCL_WALL:
        return kind == IPS2_NODE_PROC;
    case IPS2_X_ELAPSED:
    case IPS2_X_PROCESSES:
    case IPS2_X_THREADS:
        return kind != IPS2_NODE_PROC;
    default:
        return metric >= 0 && metric < IPS2_X_COUNT;
    }
}

int ips2_node_value(struct ips2_model *m, const struct ips2_node *n, int metric, double *value,
                    char *err)
{
    if (metric >= 0 && metric < IPS2_M_COUNT) {
        *value = (double)n->m[metric];
        return 0;
    }
    switch (metric) {
    case IPS2_X_INCL_CPU:
        *value = (double)n->incl_cpu;
        return 0;
    case IPS2_X_INCL_WALL:
        *value = (double)n->incl_wall;
        return 0;
    case IPS2_X_ELAPSED:
        *value = n->end_ns > n->start_ns ? (double)(n->end_ns - n->start_ns) : 0;
        return 0;
    case IPS2_X_PROCESSES:
        *value = n->nprocesses;
        return 0;
    case IPS2_X_THREADS:
        *value = n->nthreads;
        return 0;
    case IPS2_X_NPT:
        return ips2_node_npt(m, n, value, err);
    }
    ips2_set_error(err, "no metric %d", metric);
    return -1;
}

/* Whether a collector measured the external metric anywhere under n (a
 * machine's collector nodes apart, as its value leaves them out): a metric
 * never collected has no value, which is not 0. */
static int collected(const struct ips2_model *m, const struct ips2_node *n, int metric)
{
    for (size_t i = 0; i < n->next; i++)
        if ((int)m->slots[n->ext[i].slot].r->exts[n->ext[i].row].metric == metric)
            return 1;
    for (size_t i = 0; i < n->nchild; i++)
        if (n->child[i]->kind != IPS2_NODE_COLLECTOR && collected(m, n->child[i], metric))
            return 1;
    return 0;
}

/* Stores a value as an integer cell (times, counts, NPT rounded). */
static void put_value(struct ips2_table *t, size_t row, size_t c, double v)
{
    ips2_table_int(t, row, c, (int64_t)llround(v));
}

static struct ips2_table *oom(struct ips2_table *t, char *err)
{
    ips2_table_free(t);
    ips2_set_error(err, "out of memory");
    return NULL;
}

struct ips2_table *ips2_metric_list_table(char *err)
{
    static const enum ips2_node_kind kinds[] = {IPS2_NODE_APP,     IPS2_NODE_MACHINE,
                                                IPS2_NODE_PROCESS, IPS2_NODE_THREAD,
                                                IPS2_NODE_PROC,    IPS2_NODE_COLLECTOR};
    static const char *const cols[] = {"metric", "unit", "levels", "histogram", "description"};
    struct ips2_table *t = ips2_table_new(5);

    if (t == NULL)
        return oom(t, err);
    for (size_t c = 0; c < 5; c++)
        if (ips2_table_column(t, c, cols[c], ""))
            return oom(t, err);
    for (int k = 0; k < IPS2_X_COUNT; k++) {
        char levels[128] = "";
        long row = ips2_table_row(t);
        for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
            if (ips2_metric_applies(k, kinds[i]))
                snprintf(levels + strlen(levels), sizeof(levels) - strlen(levels), "%s%s",
                         levels[0] ? " " : "", ips2_node_kind_name(kinds[i]));
        if (row < 0 || ips2_table_str(t, (size_t)row, 0, ips2_any_metric_name(k)) ||
            ips2_table_str(t, (size_t)row, 1, ips2_any_metric_unit(k)) ||
            ips2_table_str(t, (size_t)row, 2, levels) ||
            ips2_table_str(t, (size_t)row, 3, k < IPS2_M_COUNT || k == IPS2_X_NPT ? "yes" : "no") ||
            ips2_table_str(t, (size_t)row, 4, ips2_any_metric_description(k)))
            return oom(t, err);
    }
    return t;
}

struct ips2_table *ips2_metric_table(struct ips2_model *m, const struct ips2_node *n, char *err)
{
    struct ips2_table *t = ips2_table_new(3);

    if (t == NULL || ips2_table_column(t, 0, "metric", "") ||
        ips2_table_column(t, 1, "value", "") || ips2_table_column(t, 2, "unit", ""))
        return oom(t, err);
    for (int k = 0; k < IPS2_X_COUNT; k++) {
        double v;
        long row;
        if (!ips2_metric_applies(k, n->kind))
            continue;
        if (ips2_node_value(m, n, k, &v, err) != 0) {
            ips2_table_free(t);
            return NULL;
        }
        if ((row = ips2_table_row(t)) < 0 ||
            ips2_table_str(t, (size_t)row, 0, ips2_any_metric_name(k)) ||
            ips2_table_str(t, (size_t)row, 2, ips2_any_metric_unit(k)))
            return oom(t, err);
        if (ips2_metric_is_external(k) && !collected(m, n, k)) {
            if (ips2_table_str(t, (size_t)row, 1, ""))
                return oom(t, err);
        } else
            put_value(t, (size_t)row, 1, v);
    }
    return t;
}

struct ips2_table *ips2_multi_app_table(struct ips2_model *m, const char *const *apps, size_t napps,
                                        char *err)
{
    const struct ips2_node **roots = calloc(napps ? napps : 1, sizeof(*roots));
    struct ips2_table *t = NULL;

    if (roots == NULL)
        return oom(NULL, err);
    for (size_t a = 0; a < napps; a++)
        if ((roots[a] = ips2_model_app_root(m, apps[a])) == NULL) {
            ips2_set_error(err, "no application \"%s\"", apps[a]);
            goto fail;
        }
    t = ips2_table_new(2 + napps);
    if (t == NULL || ips2_table_column(t, 0, "metric", "") || ips2_table_column(t, 1, "unit", ""))
        goto nomem;
    for (size_t a = 0; a < napps; a++)
        if (ips2_table_column(t, 2 + a, apps[a], ""))
            goto nomem;
    for (int k = 0; k < IPS2_X_COUNT; k++) {
        long row;
        if (!ips2_metric_applies(k, IPS2_NODE_APP))
            continue;
        if ((row = ips2_table_row(t)) < 0 ||
            ips2_table_str(t, (size_t)row, 0, ips2_any_metric_name(k)) ||
            ips2_table_str(t, (size_t)row, 1, ips2_any_metric_unit(k)))
            goto nomem;
        for (size_t a = 0; a < napps; a++) {
            double v;
            if (ips2_node_value(m, roots[a], k, &v, err) != 0)
                goto fail;
            if (ips2_metric_is_external(k) && !collected(m, roots[a], k)) {
                if (ips2_table_str(t, (size_t)row, 2 + a, ""))
                    goto nomem;
            } else
                put_value(t, (size_t)row, 2 + a, v);
        }
    }
    free(roots);
    return t;
nomem:
    ips2_set_error(err, "out of memory");
fail:
    ips2_table_free(t);
    free(roots);
    return NULL;
}

/* ------------------------------------------------------------- profiles --- */

struct prow {
    const struct ips2_node *node;
    const char *name;
    double value, cpu;
    size_t nodes;
    uint64_t calls, counted; /* procedure rows: calls, and those counted only */
};

struct plist {
    struct prow *r;
    size_t n, cap;
};

static int plist_add(struct plist *l, const struct ips2_node *n)
{
    if (l->n == l->cap) {
        size_t ncap = l->cap ? 2 * l->cap : 32;
        void *p = realloc(l->r, ncap * sizeof(*l->r));
        if (p == NULL)
            return -1;
        l->r = p;
        l->cap = ncap;
    }
    memset(&l->r[l->n], 0, sizeof(l->r[0]));
    l->r[l->n].node = n;
    l->r[l->n].name = n->name;
    l->r[l->n].nodes = 1;
    if (n->kind == IPS2_NODE_PROC) {
        l->r[l->n].calls = n->m[IPS2_M_CALLS];
        l->r[l->n].counted = n->m[IPS2_M_COUNTED];
    }
    l->n++;
    return 0;
}

/* The nodes of kind level under n, in tree order. */
static int level_nodes(const struct ips2_node *n, enum ips2_node_kind level, struct plist *l)
{
    if (n->kind == level)
        return plist_add(l, n);
    for (size_t i = 0; i < n->nchild; i++)
        if (level_nodes(n->child[i], level, l) != 0)
            return -1;
    return 0;
}

static int cmp_prow(const void *a, const void *b)
{
    const struct prow *x = a, *y = b;

    if (x->value != y->value)
        return x->value > y->value ? -1 : 1;
    if (x->node && y->node)
        return strcmp(x->node->path, y->node->path);
    return strcmp(x->name, y->name);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(((const struct prow *)a)->name, ((const struct prow *)b)->name);
}

/* Merges rows of equal name (value, cpu and node counts added). */
static void merge_by_name(struct plist *l)
{
    size_t out = 0;

    if (l->n == 0)
        return;
    qsort(l->r, l->n, sizeof(*l->r), cmp_name);
    for (size_t i = 0; i < l->n; i++) {
        if (out && strcmp(l->r[out - 1].name, l->r[i].name) == 0) {
            l->r[out - 1].value += l->r[i].value;
            l->r[out - 1].cpu += l->r[i].cpu;
            l->r[out - 1].nodes += l->r[i].nodes;
            l->r[out - 1].calls += l->r[i].calls;
            l->r[out - 1].counted += l->r[i].counted;
            continue;
        }
        l->r[out] = l->r[i];
        l->r[out].node = NULL;
        out++;
    }
    l->n = out;
}

static int check_level(const struct ips2_node *n, enum ips2_node_kind level, char *err)
{
    int ok;

    switch (n->kind) {
    case IPS2_NODE_ROOT:
        ok = level >= IPS2_NODE_MACHINE;
        break;
    case IPS2_NODE_PROC:
        ok = 0;
        break;
    default:
        ok = level > n->kind && level <= IPS2_NODE_PROC;
    }
    if (!ok)
        ips2_set_error(err, "no %s level under %s", ips2_node_kind_name(level), n->path);
    return ok ? 0 : -1;
}

/* How a row's calls were recorded: "only" (every call counted by a
 * filter, no times: they are in its callers'), "part", or "". */
static const char *counted_mark(const struct prow *p)
{
    return p->counted == 0 ? "" : p->counted >= p->calls ? "only" : "part";
}

/* Fills the table's rows: name, path|nodes, values..., percent of whole,
 * or if whole < 0 of the total of column vcol, and when a filter counted
 * some procedures only, a last column "counted" saying which
 * (counted_mark). */
static struct ips2_table *profile_rows(struct plist *l, int by_name, int with_cpu, int metric,
                                       double whole, char *err)
{
    size_t ncols = with_cpu ? 5 : 4, vcol = with_cpu ? 3 : 2;
    int marks = 0;
    for (size_t i = 0; i < l->n; i++)
        marks |= l->r[i].counted != 0;
    struct ips2_table *t = ips2_table_new(ncols + (size_t)marks);
    double total = 0;

    if (by_name)
        merge_by_name(l);
    if (l->n > 0)
        qsort(l->r, l->n, sizeof(*l->r), cmp_prow);
    for (size_t i = 0; i < l->n; i++)
        total += l->r[i].value;
    if (whole >= 0)
        total = whole;
    if (t == NULL || ips2_table_column(t, 0, "name", "") ||
        ips2_table_column(t, 1, by_name ? "nodes" : "path", "") ||
        (with_cpu && ips2_table_column(t, 2, "cpu", "ns")) ||
        ips2_table_column(t, vcol, ips2_any_metric_name(metric), ips2_any_metric_unit(metric)) ||
        ips2_table_column(t, vcol + 1, "percent", "%") ||
        (marks && ips2_table_column(t, vcol + 2, "counted", "")))
        return oom(t, err);
    for (size_t i = 0; i < l->n; i++) {
        const struct prow *p = &l->r[i];
        long row = ips2_table_row(t);
        if (row < 0 || ips2_table_str(t, (size_t)row, 0, p->name))
            return oom(t, err);
        if (by_name)
            ips2_table_int(t, (size_t)row, 1, (int64_t)p->nodes);
        else if (ips2_table_str(t, (size_t)row, 1, p->node->path))
            return oom(t, err);
        if (with_cpu)
            put_value(t, (size_t)row, 2, p->cpu);
        put_value(t, (size_t)row, vcol, p->value);
        ips2_table_real(t, (size_t)row, vcol + 1, total > 0 ? 100.0 * p->value / total : 0.0);
        if (marks && ips2_table_str(t, (size_t)row, vcol + 2, counted_mark(p)))
            return oom(t, err);
    }
    return t;
}

struct ips2_table *ips2_profile_table(struct ips2_model *m, const struct ips2_node *n,
                                      enum ips2_node_kind level, int metric, int by_name, char *err)
{
    struct plist l = {0};
    struct ips2_table *t = NULL;
    double whole = -1;

    if (check_level(n, level, err) != 0)
        return NULL;
    if (!ips2_metric_applies(metric, level)) {
        ips2_set_error(err, "metric %s has no value at the %s level", ips2_any_metric_name(metric),
                       ips2_node_kind_name(level));
        return NULL;
    }
    if (level_nodes(n, level, &l) != 0) {
        free(l.r);
        return oom(NULL, err);
    }
    for (size_t i = 0; i < l.n; i++)
        if (ips2_node_value(m, l.r[i].node, metric, &l.r[i].value, err) != 0)
            goto out;
    /* inclusive times nest (main holds everything it calls): their sum
     * means nothing, so a row's percent is of the node's CPU, or elapsed
     * time (a thread's procedure: the share of the run spent inside it) */
    if (metric == IPS2_X_INCL_CPU)
        whole = (double)n->m[IPS2_M_CPU];
    else if (metric == IPS2_X_INCL_WALL)
        whole = n->end_ns > n->start_ns ? (double)(n->end_ns - n->start_ns) : 0;
    t = profile_rows(&l, by_name, 0, metric, whole, err);
out:
    free(l.r);
    return t;
}

struct ips2_table *ips2_npt_table(struct ips2_model *m, const struct ips2_node *n,
                                  enum ips2_node_kind level, int by_name, char *err)
{
    struct plist l = {0};
    struct ips2_table *t = NULL;

    if (check_level(n, level, err) != 0)
        return NULL;
    if (level_nodes(n, level, &l) != 0) {
        free(l.r);
        return oom(NULL, err);
    }
    for (size_t i = 0; i < l.n; i++) {
        l.r[i].cpu = (double)l.r[i].node->m[IPS2_M_CPU];
        if (ips2_node_npt(m, l.r[i].node, &l.r[i].value, err) != 0)
            goto out;
    }
    t = profile_rows(&l, by_name, 1, IPS2_X_NPT, -1, err);
out:
    free(l.r);
    return t;
}

/* -------------------------------------------------------------- objects --- */

struct orow {
    uint32_t kind, pid;
    uint64_t id, waits, wait_ns, spin_ns;
    const char *name; /* the first name its rows give, or NULL */
};

struct olist {
    struct ips2_model *m;
    struct orow *r;
    size_t n, cap;
    int oom;
};

static void objects_of_thread(void *arg, const struct ips2_node *thread, const struct ips2_ref *ref)
{
    struct olist *l = arg;
    const struct ips2_reductions *r = l->m->slots[ref->slot].r;
    uint32_t pid = r->processes[r->threads[ref->row].process].pid;

    (void)thread;
    for (size_t i = 0; i < r->nobjects; i++) {
        const struct ips2_red_object *o = &r->objects[i];
        uint32_t opid = (o->id & IPS2_SYNC_KEY_SHARED) ? 0 : pid;
        size_t k;
        if (o->thread != ref->row || o->waits == 0) /* waits 0: a row only held */
            continue;
        for (k = 0; k < l->n; k++)
            if (l->r[k].kind == o->kind && l->r[k].id == o->id && l->r[k].pid == opid)
                break;
        if (k == l->n) {
            if (l->n == l->cap) {
                size_t ncap = l->cap ? 2 * l->cap : 16;
                void *p = realloc(l->r, ncap * sizeof(*l->r));
                if (p == NULL) {
                    l->oom = 1;
                    return;
                }
                l->r = p;
                l->cap = ncap;
            }
            memset(&l->r[l->n++], 0, sizeof(l->r[0]));
            l->r[k].kind = o->kind;
            l->r[k].id = o->id;
            l->r[k].pid = opid;
        }
        l->r[k].waits += o->waits;
        l->r[k].wait_ns += o->wait_ns;
        l->r[k].spin_ns += o->spin_ns;
        if (!l->r[k].name && o->name < r->nstrings)
            l->r[k].name = r->strings[o->name];
    }
}

static int cmp_orow(const void *a, const void *b)
{
    const struct orow *x = a, *y = b;

    if (x->wait_ns != y->wait_ns)
        return x->wait_ns > y->wait_ns ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

struct ips2_table *ips2_objects_table(struct ips2_model *m, const struct ips2_node *n, char *err)
{
    static const char *const kinds[] = {"any",       "mutex",       "rwlock",  "rwlock_write",
                                        "spin",      "cond",        "barrier", "sem",
                                        "user_lock", "user_barrier"};
    static const char *const names[] = {"kind",  "object", "name", "pid",
                                        "waits", "wait",   "spin", "percent"};
    static const char *const units[] = {"", "", "", "", "", "ns", "ns", "%"};
    enum { NCOLS = sizeof(names) / sizeof(names[0]) };
    struct olist l = {.m = m};
    struct ips2_table *t;
    double total = 0;

    if (n->kind == IPS2_NODE_PROC) {
        ips2_set_error(err, "no synchronisation objects of a procedure node (%s)", n->path);
        return NULL;
    }
    ips2_node_threads(n, objects_of_thread, &l);
    t = ips2_table_new(NCOLS);
    for (size_t c = 0; t && c < NCOLS; c++)
        if (ips2_table_column(t, c, names[c], units[c]))
            goto nomem;
    if (t == NULL || l.oom)
        goto nomem;
    if (l.n > 0)
        qsort(l.r, l.n, sizeof(*l.r), cmp_orow);
    for (size_t i = 0; i < l.n; i++)
        total += (double)l.r[i].wait_ns;
    for (size_t i = 0; i < l.n; i++) {
        const struct orow *o = &l.r[i];
        char kind[32], id[32], name[80];
        long row = ips2_table_row(t);
        if (o->kind < sizeof(kinds) / sizeof(kinds[0]))
            snprintf(kind, sizeof(kind), "%s", kinds[o->kind]);
        else
            snprintf(kind, sizeof(kind), "%u", o->kind);
        snprintf(id, sizeof(id), "0x%llx", (unsigned long long)o->id);
        snprintf(name, sizeof(name), "%s:%s", kind, id); /* reductions without names */
        if (row < 0 || ips2_table_str(t, (size_t)row, 0, kind) ||
            ips2_table_str(t, (size_t)row, 1, id) ||
            ips2_table_str(t, (size_t)row, 2, o->name ? o->name : name))
            goto nomem;
        ips2_table_int(t, (size_t)row, 3, o->pid);
        ips2_table_int(t, (size_t)row, 4, (int64_t)o->waits);
        ips2_table_int(t, (size_t)row, 5, (int64_t)o->wait_ns);
        ips2_table_int(t, (size_t)row, 6, (int64_t)o->spin_ns);
        ips2_table_real(t, (size_t)row, 7, total > 0 ? 100.0 * (double)o->wait_ns / total : 0.0);
    }
    free(l.r);
    return t;
nomem:
    free(l.r);
    return oom(t, err);
}

/* -------------------------------------------------------------- holders --- */

struct hrow {
    uint32_t kind, pid;
    uint64_t id, acquisitions, hold_ns;
    uint64_t counted;        /* of acquisitions: counted holds, without times */
    const char *name, *proc; /* the object's name (or NULL), the procedure's */
};

struct hlist {
    struct ips2_model *m;
    struct hrow *r;
    size_t n, cap;
    int oom;
};

static void holders_of_thread(void *arg, const struct ips2_node *thread, const struct ips2_ref *ref)
{
    struct hlist *l = arg;
    const struct ips2_reductions *r = l->m->slots[ref->slot].r;
    uint32_t pid = r->processes[r->threads[ref->row].process].pid;

    (void)thread;
    for (size_t i = 0; i < r->nholds; i++) {
        const struct ips2_red_hold *h = &r->holds[i];
        const struct ips2_red_object *o = &r->objects[h->object];
        uint32_t opid = (o->id & IPS2_SYNC_KEY_SHARED) ? 0 : pid;
        const char *proc = h->proc == IPS2_RED_NONE ? "<none>" : r->strings[r->procs[h->proc].name];
        size_t k;
        if (o->thread != ref->row)
            continue;
        for (k = 0; k < l->n; k++)
            if (l->r[k].kind == o->kind && l->r[k].id == o->id && l->r[k].pid == opid &&
                strcmp(l->r[k].proc, proc) == 0)
                break;
        if (k == l->n) {
            if (l->n == l->cap) {
                size_t ncap = l->cap ? 2 * l->cap : 16;
                void *p = realloc(l->r, ncap * sizeof(*l->r));
                if (p == NULL) {
                    l->oom = 1;
                    return;
                }
                l->r = p;
                l->cap = ncap;
            }
            memset(&l->r[l->n++], 0, sizeof(l->r[0]));
            l->r[k].kind = o->kind;
            l->r[k].id = o->id;
            l->r[k].pid = opid;
            l->r[k].proc = proc;
        }
        l->r[k].acquisitions += h->acquisitions;
        l->r[k].hold_ns += h->hold_ns;
        l->r[k].counted += h->counted;
        if (!l->r[k].name && o->name < r->nstrings)
            l->r[k].name = r->strings[o->name];
    }
}

static int cmp_hrow(const void *a, const void *b)
{
    const struct hrow *x = a, *y = b;

    if (x->hold_ns != y->hold_ns)
        return x->hold_ns > y->hold_ns ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return strcmp(x->proc, y->proc);
}

struct ips2_table *ips2_holders_table(struct ips2_model *m, const struct ips2_node *n, char *err)
{
    static const char *const kinds[] = {"any",       "mutex",       "rwlock",  "rwlock_write",
                                        "spin",      "cond",        "barrier", "sem",
                                        "user_lock", "user_barrier"};
    static const char *const names[] = {"kind",         "object", "name", "pid",     "procedure",
                                        "acquisitions", "hold",   "mean", "percent", "counted"};
    static const char *const units[] = {"", "", "", "", "", "", "ns", "ns", "%", ""};
    enum { NCOLS = sizeof(names) / sizeof(names[0]) };
    struct hlist l = {.m = m};
    struct ips2_table *t;
    size_t ncols = NCOLS - 1; /* counted: only when some holds were counted */

    if (n->kind == IPS2_NODE_PROC) {
        ips2_set_error(err, "no synchronisation objects of a procedure node (%s)", n->path);
        return NULL;
    }
    ips2_node_threads(n, holders_of_thread, &l);
    for (size_t i = 0; i < l.n; i++)
        if (l.r[i].counted)
            ncols = NCOLS;
    t = ips2_table_new(ncols);
    for (size_t c = 0; t && c < ncols; c++)
        if (ips2_table_column(t, c, names[c], units[c]))
            goto nomem;
    if (t == NULL || l.oom)
        goto nomem;
    qsort(l.r, l.n, sizeof(*l.r), cmp_hrow);
    for (size_t i = 0; i < l.n; i++) {
        const struct hrow *o = &l.r[i];
        char kind[32], id[32], name[80];
        double total = 0;
        long row = ips2_table_row(t);
        for (size_t k = 0; k < l.n; k++)
            if (l.r[k].kind == o->kind && l.r[k].id == o->id && l.r[k].pid == o->pid)
                total += (double)l.r[k].hold_ns;
        if (o->kind < sizeof(kinds) / sizeof(kinds[0]))
            snprintf(kind, sizeof(kind), "%s", kinds[o->kind]);
        else
            snprintf(kind, sizeof(kind), "%u", o->kind);
        snprintf(id, sizeof(id), "0x%llx", (unsigned long long)o->id);
        snprintf(name, sizeof(name), "%s:%s", kind, id);
        if (row < 0 || ips2_table_str(t, (size_t)row, 0, kind) ||
            ips2_table_str(t, (size_t)row, 1, id) ||
            ips2_table_str(t, (size_t)row, 2, o->name ? o->name : name) ||
            ips2_table_str(t, (size_t)row, 4, o->proc))
            goto nomem;
        ips2_table_int(t, (size_t)row, 3, o->pid);
        ips2_table_int(t, (size_t)row, 5, (int64_t)o->acquisitions);
        /* hold times are those of the timed holds: none known (an empty
         * cell, not 0) when every hold was counted; the mean is theirs */
        uint64_t timed = o->acquisitions - o->counted;
        if (timed || !o->counted) {
            ips2_table_int(t, (size_t)row, 6, (int64_t)o->hold_ns);
            ips2_table_int(t, (size_t)row, 7, timed ? (int64_t)(o->hold_ns / timed) : 0);
            ips2_table_real(t, (size_t)row, 8,
                            total > 0 ? 100.0 * (double)o->hold_ns / total : 0.0);
        }
        if (ncols == NCOLS)
            ips2_table_int(t, (size_t)row, 9, (int64_t)o->counted);
    }
    free(l.r);
    return t;
nomem:
    free(l.r);
    return oom(t, err);
}
