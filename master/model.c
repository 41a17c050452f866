/*
 * model.c - the session model: session facts, loaded reductions, and the
 * trees indexed over them (see model.h for the trees and the time base).
 *
 * Indexing walks every process of every slot once: each process lands in
 * its application's logical tree and in the physical tree, each of its
 * threads becomes (or joins) a thread node, each procedure row a procedure
 * node under it.  Nodes are found by path in one hash table, so lookups
 * from Tcl and the building itself are O(1) per node.  Aggregates are then
 * summed bottom-up: a thread node from its threads' totals, a procedure
 * node from its rows, every other node from its children.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

static char *dupstr(const char *s)
{
    return strdup(s ? s : "");
}

/* Grows *array (of *cap elements of size each) to hold n + 1; 0 or -1. */
static int grow(void *array, size_t *cap, size_t n, size_t size)
{
    void **a = array;
    size_t ncap;
    void *p;

    if (n < *cap)
        return 0;
    ncap = *cap ? 2 * *cap : 8;
    p = realloc(*a, ncap * size);
    if (p == NULL)
        return -1;
    *a = p;
    *cap = ncap;
    return 0;
}

/* ---------------------------------------------------------------- paths --- */

struct ips2_node_table {
    struct ips2_node **slot;
    size_t cap, n; /* cap is a power of two */
};

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */

    while (*s) {
        h ^= (unsigned char)*s++;
        h *= 1099511628211ULL;
    }
    return h;
}

static struct ips2_node *table_get(const struct ips2_node_table *t, const char *path)
{
    size_t i;

    if (t == NULL || t->cap == 0)
        return NULL;
    for (i = hash_str(path) & (t->cap - 1); t->slot[i]; i = (i + 1) & (t->cap - 1))
        if (strcmp(t->slot[i]->path, path) == 0)
            return t->slot[i];
    return NULL;
}

static int table_put(struct ips2_node_table *t, struct ips2_node *n)
{
    size_t i;

    if (2 * (t->n + 1) > t->cap) {
        size_t ncap = t->cap ? 2 * t->cap : 256;
        struct ips2_node **ns = calloc(ncap, sizeof(*ns));
        if (ns == NULL)
            return -1;
        for (size_t k = 0; k < t->cap; k++) {
            if (t->slot[k] == NULL)
                continue;
            for (i = hash_str(t->slot[k]->path) & (ncap - 1); ns[i]; i = (i + 1) & (ncap - 1))
                ;
            ns[i] = t->slot[k];
        }
        free(t->slot);
        t->slot = ns;
        t->cap = ncap;
    }
    for (i = hash_str(n->path) & (t->cap - 1); t->slot[i]; i = (i + 1) & (t->cap - 1))
        ;
    t->slot[i] = n;
    t->n++;
    return 0;
}

/* ---------------------------------------------------------------- nodes --- */

static const char *const kind_names[] = {"physical", "app",       "machine",  "process",
                                         "thread",   "procedure", "collector"};

const char *ips2_node_kind_name(enum ips2_node_kind kind)
{
    return (unsigned)kind < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[kind] : "?";
}

int ips2_node_kind_parse(const char *level)
{
    for (size_t i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
        if (strcmp(level, kind_names[i]) == 0)
            return (int)i;
    return -1;
}

static void node_free(struct ips2_node *n)
{
    if (n == NULL)
        return;
    for (size_t i = 0; i < n->nchild; i++)
        node_free(n->child[i]);
    free(n->child);
    free(n->refs);
    free(n->ext);
    free(n->name);
    free(n->path);
    free(n);
}

static struct ips2_node *node_new(enum ips2_node_kind kind, const char *name, const char *path,
                                  int app)
{
    struct ips2_node *n = calloc(1, sizeof(*n));

    if (n == NULL)
        return NULL;
    n->kind = kind;
    n->name = strdup(name);
    n->path = strdup(path);
    n->app = app;
    n->owner = app;
    n->start_ns = INT64_MAX;
    n->end_ns = INT64_MIN;
    if (n->name == NULL || n->path == NULL) {
        node_free(n);
        return NULL;
    }
    return n;
}

/* The child of parent with this kind and name, made if missing. */
static struct ips2_node *node_child(struct ips2_model *m, struct ips2_node *parent,
                                    enum ips2_node_kind kind, const char *name)
{
    size_t len = strlen(parent->path) + strlen(name) + 16;
    char *path = malloc(len);
    struct ips2_node *n;

    if (path == NULL)
        return NULL;
    if (parent->kind == IPS2_NODE_ROOT)
        snprintf(path, len, "%s:%s", kind_names[kind], name);
    else
        snprintf(path, len, "%s/%s:%s", parent->path, kind_names[kind], name);
    n = table_get(m->paths, path);
    if (n == NULL) {
        n = node_new(kind, name, path, parent->app);
        if (n == NULL || table_put(m->paths, n) != 0 ||
            grow(&parent->child, &parent->capchild, parent->nchild, sizeof(*parent->child))) {
            node_free(n);
            n = NULL;
        } else {
            n->parent = parent;
            n->owner = parent->owner;
            parent->child[parent->nchild++] = n;
        }
    }
    free(path);
    return n;
}

static int node_ref(struct ips2_node *n, uint32_t slot, uint32_t row)
{
    if (grow(&n->refs, &n->caprefs, n->nrefs, sizeof(*n->refs)))
        return -1;
    n->refs[n->nrefs].slot = slot;
    n->refs[n->nrefs].row = row;
    n->nrefs++;
    return 0;
}

const struct ips2_node *ips2_node_root(const struct ips2_node *n)
{
    while (n->parent)
        n = n->parent;
    return n;
}

static void threads_walk(const struct ips2_node *n,
                         void (*fn)(void *, const struct ips2_node *, const struct ips2_ref *),
                         void *arg)
{
    if (n->kind == IPS2_NODE_THREAD) {
        for (size_t i = 0; i < n->nrefs; i++)
            fn(arg, n, &n->refs[i]);
        return;
    }
    if (n->kind == IPS2_NODE_PROC)
        return;
    for (size_t i = 0; i < n->nchild; i++)
        threads_walk(n->child[i], fn, arg);
}

void ips2_node_threads(const struct ips2_node *n,
                       void (*fn)(void *arg, const struct ips2_node *thread,
                                  const struct ips2_ref *ref),
                       void *arg)
{
    threads_walk(n, fn, arg);
}

/* ---------------------------------------------------------------- model --- */

struct ips2_model *ips2_model_new(void)
{
    return calloc(1, sizeof(struct ips2_model));
}

static void trees_free(struct ips2_model *m)
{
    node_free(m->physical);
    m->physical = NULL;
    if (m->app_root)
        for (size_t i = 0; i < m->napps; i++)
            node_free(m->app_root[i]);
    free(m->app_root);
    m->app_root = NULL;
    if (m->paths)
        free(m->paths->slot);
    free(m->paths);
    m->paths = NULL;
    ips2_npt_cache_free(m->npt);
    m->npt = NULL;
    m->indexed = false;
}

void ips2_model_free(struct ips2_model *m)
{
    if (m == NULL)
        return;
    trees_free(m);
    for (size_t i = 0; i < m->nslots; i++) {
        struct ips2_red_slot *s = &m->slots[i];
        ips2_reductions_free(s->r);
        free(s->source);
        free(s->app_of);
        free(s->arc_at);
        free(s->arc_ix);
        free(s->hist_at);
        free(s->hist_ix);
        free(s->ext_hist);
    }
    free(m->slots);
    for (size_t i = 0; i < m->nmachines; i++) {
        free(m->machines[i].name);
        free(m->machines[i].host);
    }
    free(m->machines);
    for (size_t i = 0; i < m->napps; i++) {
        free(m->apps[i].name);
        free(m->apps[i].source);
    }
    free(m->apps);
    for (size_t i = 0; i < m->npinfo; i++) {
        free(m->pinfo[i].app);
        free(m->pinfo[i].machine);
        free(m->pinfo[i].command);
        free(m->pinfo[i].status);
    }
    free(m->pinfo);
    for (size_t i = 0; i < m->nphases; i++) {
        free(m->phases[i].name);
        ips2_model_free(m->phases[i].view);
    }
    free(m->phases);
    for (size_t i = 0; i < m->nproblems; i++)
        free(m->problems[i]);
    free(m->problems);
    if (m->reducer.release)
        m->reducer.release(m->reducer.arg);
    free(m->dir);
    free(m);
}

int ips2_model_set_session(struct ips2_model *m, const char *dir, int64_t start_real_ns, char *err)
{
    char *d = dir ? strdup(dir) : NULL;

    if (dir && d == NULL) {
        ips2_set_error(err, "out of memory");
        return -1;
    }
    free(m->dir);
    m->dir = d;
    m->start_real_ns = start_real_ns;
    return 0;
}

int ips2_model_machine_index(const struct ips2_model *m, const char *name)
{
    for (size_t i = 0; i < m->nmachines; i++)
        if (strcmp(m->machines[i].name, name) == 0)
            return (int)i;
    return -1;
}

int ips2_model_add_machine(struct ips2_model *m, const char *name, const char *host,
                           int64_t offset_ns, char *err)
{
    int i = ips2_model_machine_index(m, name);
    struct ips2_machine_info *mi;
    void *p;

    if (i >= 0) {
        mi = &m->machines[i];
        free(mi->host);
        mi->host = dupstr(host);
        mi->offset_ns = offset_ns;
        return mi->host ? 0 : (ips2_set_error(err, "out of memory"), -1);
    }
    p = realloc(m->machines, (m->nmachines + 1) * sizeof(*m->machines));
    if (p == NULL) {
        ips2_set_error(err, "out of memory");
        return -1;
    }
    m->machines = p;
    mi = &m->machines[m->nmachines];
    mi->name = dupstr(name);
    mi->host = dupstr(host ? host : name);
    mi->offset_ns = offset_ns;
    if (mi->name == NULL || mi->host == NULL) {
        free(mi->name);
        free(mi->host);
        ips2_set_error(err, "out of memory");
        return -1;
    }
    m->nmachines++;
    m->indexed = false;
    return 0;
}

int ips2_model_app_index(const struct ips2_model *m, const char *app)
{
    for (size_t i = 0; i < m->napps; i++)
        if (strcmp(m->apps[i].name, app) == 0)
            return (int)i;
    return -1;
}

int ips2_model_add_app(struct ips2_model *m, const char *name, enum ips2_mode mode,
                       const char *source, char *err)
{
    int i = ips2_model_app_index(m, name);
    struct ips2_app_info *a;
    char *src = dupstr(source);
    void *p;

    if (src == NULL) {
        ips2_set_error(err, "out of memory");
        return -1;
    }
    m->indexed = false;
    if (i >= 0) {
        a = &m->apps[i];
        a->mode = mode;
        free(a->source);
        a->source = src;
        return 0;
    }
    /* app_root follows apps: drop the trees before the array moves */
    trees_free(m);
    p = realloc(m->apps, (m->napps + 1) * sizeof(*m->apps));
    if (p != NULL)
        m->apps = p;
    a = p ? &m->apps[m->napps] : NULL;
    if (a == NULL || (a->name = strdup(name)) == NULL) {
        free(src);
        ips2_set_error(err, "out of memory");
        return -1;
    }
    m->napps++;
    a->mode = mode;
    a->source = src;
    a->shift_ns = 0;
    return 0;
}

int ips2_model_set_shift(struct ips2_model *m, const char *app, const char *source,
                         int64_t shift_ns, char *err)
{
    int i = ips2_model_app_index(m, app);

    if (i < 0) {
        ips2_set_error(err, "no application \"%s\"", app);
        return -1;
    }
    if (source && *source && strcmp(m->apps[i].source, source) != 0) {
        char *s = strdup(source);
        if (s == NULL) {
            ips2_set_error(err, "out of memory");
            return -1;
        }
        free(m->apps[i].source);
        m->apps[i].source = s;
    }
    m->apps[i].shift_ns = shift_ns;
    m->indexed = false;
    return 0;
}

int64_t ips2_model_shift_of(const struct ips2_model *m, int app)
{
    if (app < 0 || (size_t)app >= m->napps || m->apps[app].mode != IPS2_MODE_COMPARISON)
        return 0;
    return m->apps[app].shift_ns;
}

int ips2_model_add_process(struct ips2_model *m, const char *app, const char *machine, int index,
                           uint32_t pid, const char *command, const char *status, char *err)
{
    struct ips2_proc_info *pi;
    void *p = realloc(m->pinfo, (m->npinfo + 1) * sizeof(*m->pinfo));

    if (p == NULL) {
        ips2_set_error(err, "out of memory");
        return -1;
    }
    m->pinfo = p;
    pi = &m->pinfo[m->npinfo];
    pi->app = dupstr(app);
    pi->machine = dupstr(machine);
    pi->index = index;
    pi->pid = pid;
    pi->command = dupstr(command);
    pi->status = dupstr(status);
    if (!pi->app || !pi->machine || !pi->command || !pi->status) {
        free(pi->app);
        free(pi->machine);
        free(pi->command);
        free(pi->status);
        ips2_set_error(err, "out of memory");
        return -1;
    }
    m->npinfo++;
    m->indexed = false;
    return 0;
}

void ips2_model_problem(struct ips2_model *m, const char *fmt, ...)
{
    char buf[IPS2_ERR_MAX + 256];
    va_list ap;
    void *p;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    for (size_t i = 0; i < m->nproblems; i++)
        if (strcmp(m->problems[i], buf) == 0)
            return;
    p = realloc(m->problems, (m->nproblems + 1) * sizeof(*m->problems));
    if (p == NULL)
        return;
    m->problems = p;
    if ((m->problems[m->nproblems] = strdup(buf)) != NULL)
        m->nproblems++;
}

/* ----------------------------------------------------------- reductions --- */

#define STR_OK(r, s)              ((s) < (r)->nstrings)
#define OPT_OK(r, s)              ((s) == IPS2_RED_NONE || STR_OK(r, s))
#define RANGE_OK(first, n, total) ((uint64_t)(first) + (uint64_t)(n) <= (uint64_t)(total))

/* Checks every count and index of r: reductions from another process (or a
 * test) are as untrusted as a file. */
static int validate(const struct ips2_reductions *r, char *err)
{
    if (r->nstrings && r->strings == NULL)
        goto bad_arrays;
    for (size_t i = 0; i < r->nstrings; i++)
        if (r->strings[i] == NULL) {
            ips2_set_error(err, "string %zu is missing", i);
            return -1;
        }
    if ((r->nprocesses && !r->processes) || (r->nthreads && !r->threads) ||
        (r->nprocs && !r->procs) || (r->narcs && !r->arcs) || (r->nhists && !r->hists) ||
        (r->nobjects && !r->objects) || (r->nproblems && !r->problems))
        goto bad_arrays;
    if (!STR_OK(r, r->machine) || !OPT_OK(r, r->host)) {
        ips2_set_error(err, "machine or host name is not a string of the table");
        return -1;
    }
    for (size_t i = 0; i < r->nprocesses; i++) {
        const struct ips2_red_process *p = &r->processes[i];
        if (!STR_OK(r, p->app) || !OPT_OK(r, p->exe) || !OPT_OK(r, p->command) ||
            !OPT_OK(r, p->problem) || !RANGE_OK(p->first_thread, p->nthreads, r->nthreads)) {
            ips2_set_error(err, "process %zu: bad string or thread range", i);
            return -1;
        }
        for (uint32_t k = 0; k < p->nthreads; k++)
            if (r->threads[p->first_thread + k].process != i) {
                ips2_set_error(err, "process %zu: thread %u belongs to process %u", i,
                               p->first_thread + k, r->threads[p->first_thread + k].process);
                return -1;
            }
    }
    for (size_t i = 0; i < r->nthreads; i++) {
        const struct ips2_red_thread *t = &r->threads[i];
        if (t->process >= r->nprocesses || !RANGE_OK(t->first_proc, t->nprocs, r->nprocs)) {
            ips2_set_error(err, "thread %zu: bad process or procedure range", i);
            return -1;
        }
        for (uint32_t k = 0; k < t->nprocs; k++)
            if (r->procs[t->first_proc + k].thread != i) {
                ips2_set_error(err, "thread %zu: procedure row %u belongs to thread %u", i,
                               t->first_proc + k, r->procs[t->first_proc + k].thread);
                return -1;
            }
    }
    for (size_t i = 0; i < r->nprocs; i++)
        if (r->procs[i].thread >= r->nthreads || !STR_OK(r, r->procs[i].name)) {
            ips2_set_error(err, "procedure row %zu: bad thread or name", i);
            return -1;
        }
    for (size_t i = 0; i < r->narcs; i++) {
        const struct ips2_red_arc *a = &r->arcs[i];
        if (a->thread >= r->nthreads || !OPT_OK(r, a->caller) || !STR_OK(r, a->callee)) {
            ips2_set_error(err, "arc %zu: bad thread, caller or callee", i);
            return -1;
        }
    }
    for (size_t i = 0; i < r->nhists; i++) {
        const struct ips2_red_hist *h = &r->hists[i];
        if (h->thread >= r->nthreads || h->metric >= IPS2_M_COUNT || h->width_ns == 0 ||
            (h->nbuckets && h->v == NULL) ||
            (h->proc != IPS2_RED_NONE &&
             (h->proc >= r->nprocs || r->procs[h->proc].thread != h->thread))) {
            ips2_set_error(err, "histogram %zu: bad thread, procedure, metric or width", i);
            return -1;
        }
    }
    for (size_t i = 0; i < r->nobjects; i++)
        if (r->objects[i].thread >= r->nthreads || !OPT_OK(r, r->objects[i].name)) {
            ips2_set_error(err, "object %zu: bad thread or name", i);
            return -1;
        }
    for (size_t i = 0; i < r->nhists; i++) {
        const struct ips2_red_hist *h = &r->hists[i];
        if (h->object != IPS2_RED_NONE &&
            (h->object >= r->nobjects || r->objects[h->object].thread != h->thread ||
             h->proc != IPS2_RED_NONE || h->metric != IPS2_M_SYNC_WAIT)) {
            ips2_set_error(err, "histogram %zu: bad object", i);
            return -1;
        }
    }
    if (r->nholds && !r->holds)
        goto bad_arrays;
    for (size_t i = 0; i < r->nholds; i++) {
        const struct ips2_red_hold *h = &r->holds[i];
        if (h->object >= r->nobjects ||
            (h->proc != IPS2_RED_NONE &&
             (h->proc >= r->nprocs || r->procs[h->proc].thread != r->objects[h->object].thread))) {
            ips2_set_error(err, "hold %zu: bad object or procedure", i);
            return -1;
        }
    }
    for (size_t i = 0; i < r->nproblems; i++)
        if (!STR_OK(r, r->problems[i])) {
            ips2_set_error(err, "problem %zu: not a string of the table", i);
            return -1;
        }
    if (r->nexts && !r->exts)
        goto bad_arrays;
    for (size_t i = 0; i < r->nexts; i++) {
        const struct ips2_red_ext *x = &r->exts[i];
        if (!STR_OK(r, x->collector) || x->metric >= IPS2_M_COUNT || x->width_ns == 0 ||
            (x->nbuckets && x->v == NULL)) {
            ips2_set_error(err, "external data row %zu: bad collector, metric or width", i);
            return -1;
        }
        if (x->process != IPS2_RED_NONE && (x->pid == 0 || x->process >= r->nprocesses ||
                                            r->processes[x->process].pid != x->pid)) {
            ips2_set_error(err, "external data row %zu: bad process", i);
            return -1;
        }
    }
    return 0;
bad_arrays:
    ips2_set_error(err, "counts without arrays");
    return -1;
}

/* Groups the indices of items (n of them, thread of item i at
 * thread_of(i)) by thread: at[t]..at[t+1] in ix.  0 or -1. */
static int group_by_thread(size_t nthreads, size_t n, const void *items, size_t size,
                           size_t thread_off, uint32_t **atp, uint32_t **ixp)
{
    uint32_t *at = calloc(nthreads + 1, sizeof(*at));
    uint32_t *ix = malloc((n ? n : 1) * sizeof(*ix));
    uint32_t *fill = calloc(nthreads + 1, sizeof(*fill));
    const char *base = items;

    if (!at || !ix || !fill) {
        free(at);
        free(ix);
        free(fill);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t t;
        memcpy(&t, base + i * size + thread_off, sizeof(t));
        at[t + 1]++;
    }
    for (size_t t = 0; t < nthreads; t++)
        at[t + 1] += at[t];
    for (size_t i = 0; i < n; i++) {
        uint32_t t;
        memcpy(&t, base + i * size + thread_off, sizeof(t));
        ix[at[t] + fill[t]++] = (uint32_t)i;
    }
    free(fill);
    *atp = at;
    *ixp = ix;
    return 0;
}

/* The model application a process of a filtered slot belongs to: among the
 * applications replayed from the slot's source, the one named as in the
 * old session, or else the one whose name ends with it (a -prefix). */
static int app_from_source(const struct ips2_model *m, const char *source, int64_t shift,
                           const char *name)
{
    int best = -1;
    size_t len = strlen(name), bestlen = SIZE_MAX;

    for (size_t i = 0; i < m->napps; i++) {
        const struct ips2_app_info *a = &m->apps[i];
        size_t alen = strlen(a->name);
        if (strcmp(a->source, source) != 0 || ips2_model_shift_of(m, (int)i) != shift)
            continue;
        if (alen == len && strcmp(a->name, name) == 0)
            return (int)i;
        if (alen > len && strcmp(a->name + alen - len, name) == 0 && alen < bestlen) {
            best = (int)i;
            bestlen = alen;
        }
    }
    return best;
}

static int add_reductions(struct ips2_model *m, struct ips2_reductions *r, const char *source,
                          int64_t shift, char *err)
{
    struct ips2_red_slot s = {.r = r};
    void *p;

    if (r == NULL) {
        ips2_set_error(err, "no reductions");
        return -1;
    }
    if (validate(r, err) != 0)
        goto fail;
    s.app_of = malloc((r->nprocesses ? r->nprocesses : 1) * sizeof(*s.app_of));
    if (s.app_of == NULL || (source && (s.source = strdup(source)) == NULL))
        goto oom;
    for (size_t i = 0; i < r->nprocesses; i++) {
        const char *app = r->strings[r->processes[i].app];
        int a;
        if (source) {
            a = app_from_source(m, source, shift, app);
        } else {
            a = ips2_model_app_index(m, app);
            if (a < 0) {
                if (ips2_model_add_app(m, app, IPS2_MODE_ACTIVE, "", err) != 0)
                    goto fail;
                a = (int)m->napps - 1;
            }
        }
        s.app_of[i] = a;
    }
    s.ext_hist = calloc(r->nexts ? r->nexts : 1, sizeof(*s.ext_hist));
    if (s.ext_hist == NULL)
        goto oom;
    for (size_t i = 0; i < r->nexts; i++)
        s.ext_hist[i] = (struct ips2_red_hist){
            IPS2_RED_NONE,       IPS2_RED_NONE,       r->exts[i].metric, r->exts[i].start_ns,
            r->exts[i].width_ns, r->exts[i].nbuckets, r->exts[i].v,      IPS2_RED_NONE};
    if (group_by_thread(r->nthreads, r->narcs, r->arcs, sizeof(*r->arcs),
                        offsetof(struct ips2_red_arc, thread), &s.arc_at, &s.arc_ix) ||
        group_by_thread(r->nthreads, r->nhists, r->hists, sizeof(*r->hists),
                        offsetof(struct ips2_red_hist, thread), &s.hist_at, &s.hist_ix))
        goto oom;
    p = realloc(m->slots, (m->nslots + 1) * sizeof(*m->slots));
    if (p == NULL)
        goto oom;
    m->slots = p;
    m->slots[m->nslots++] = s;
    if (m->interval_ns == 0)
        m->interval_ns = r->interval_ns;
    for (size_t i = 0; i < r->nproblems; i++)
        ips2_model_problem(m, "%s: %s", r->strings[r->machine], r->strings[r->problems[i]]);
    m->indexed = false;
    return 0;
oom:
    ips2_set_error(err, "out of memory");
fail:
    free(s.source);
    free(s.app_of);
    free(s.arc_at);
    free(s.arc_ix);
    free(s.hist_at);
    free(s.hist_ix);
    free(s.ext_hist);
    ips2_reductions_free(r);
    return -1;
}

int ips2_model_add_reductions(struct ips2_model *m, struct ips2_reductions *r, char *err)
{
    return add_reductions(m, r, NULL, 0, err);
}

int ips2_model_add_run_reductions(struct ips2_model *m, struct ips2_reductions *r,
                                  const char *source, int64_t shift, char *err)
{
    return add_reductions(m, r, source ? source : "", shift, err);
}

/* ------------------------------------------------------------- indexing --- */

/* A process node: PID in the logical tree.  In the physical tree a pid
 * already taken by another application's process (an old session's pid
 * reused) is told apart as PID@APP. */
static struct ips2_node *process_node(struct ips2_model *m, struct ips2_node *machine, int app,
                                      const char *name)
{
    struct ips2_node *n = node_child(m, machine, IPS2_NODE_PROCESS, name);
    char alt[256];

    if (n == NULL || machine->app >= 0 || n->nchild == 0 || n->owner == app)
        goto done;
    snprintf(alt, sizeof(alt), "%s@%s", name, m->apps[app].name);
    n = node_child(m, machine, IPS2_NODE_PROCESS, alt);
done:
    if (n)
        n->owner = app;
    return n;
}

/* Adds one process of a slot to one tree (logical: root is its app). */
static int index_process(struct ips2_model *m, struct ips2_node *root, uint32_t slot, uint32_t pidx,
                         const char *machine)
{
    const struct ips2_reductions *r = m->slots[slot].r;
    const struct ips2_red_process *p = &r->processes[pidx];
    int app = m->slots[slot].app_of[pidx];
    struct ips2_node *mn, *pn;
    char name[32];

    mn = node_child(m, root, IPS2_NODE_MACHINE, machine);
    snprintf(name, sizeof(name), "%" PRIu32, p->pid);
    pn = mn ? process_node(m, mn, app, name) : NULL;
    if (pn == NULL)
        return -1;
    if (pn->command == NULL && p->command != IPS2_RED_NONE)
        pn->command = r->strings[p->command];
    if (pn->exe == NULL && p->exe != IPS2_RED_NONE)
        pn->exe = r->strings[p->exe];
    /* the last image's end decides the status */
    if (p->problem != IPS2_RED_NONE)
        snprintf(pn->status, sizeof(pn->status), "%s", r->strings[p->problem]);
    else if (p->exit_how == IPS2_EXIT_SIGNAL)
        snprintf(pn->status, sizeof(pn->status), "signal %d", p->exit_status);
    else if (p->exit_how == IPS2_EXIT_EXEC)
        ; /* the next image says */
    else if (p->exit_how >= 0)
        snprintf(pn->status, sizeof(pn->status), "exited %d", p->exit_status);
    else if (pn->status[0] == 0)
        snprintf(pn->status, sizeof(pn->status), "no exit recorded");
    for (uint32_t k = 0; k < p->nthreads; k++) {
        uint32_t ti = p->first_thread + k;
        const struct ips2_red_thread *t = &r->threads[ti];
        struct ips2_node *tn;
        snprintf(name, sizeof(name), "%" PRIu32, t->tid);
        tn = node_child(m, pn, IPS2_NODE_THREAD, name);
        if (tn == NULL || node_ref(tn, slot, ti) != 0)
            return -1;
        tn->owner = app;
        for (uint32_t j = 0; j < t->nprocs; j++) {
            uint32_t row = t->first_proc + j;
            struct ips2_node *fn =
                node_child(m, tn, IPS2_NODE_PROC, r->strings[r->procs[row].name]);
            if (fn == NULL || node_ref(fn, slot, row) != 0)
                return -1;
            fn->owner = app;
        }
    }
    return 0;
}

/* A manifest process: its node gets the manifest's entry; one that left
 * no data gets a node of its own. */
static int index_pinfo(struct ips2_model *m, struct ips2_node *root,
                       const struct ips2_proc_info *pi, int app)
{
    struct ips2_node *mn = node_child(m, root, IPS2_NODE_MACHINE, pi->machine);
    struct ips2_node *pn = NULL;
    char name[64];

    if (mn == NULL)
        return -1;
    if (pi->pid) {
        snprintf(name, sizeof(name), "%" PRIu32, pi->pid);
        pn = process_node(m, mn, app, name);
    } else {
        snprintf(name, sizeof(name), "#%d", pi->index);
        pn = node_child(m, mn, IPS2_NODE_PROCESS, name);
    }
    if (pn == NULL)
        return -1;
    pn->owner = app;
    pn->info = pi;
    return 0;
}

static int node_ext(struct ips2_node *n, uint32_t slot, uint32_t row)
{
    if (grow(&n->ext, &n->capext, n->next, sizeof(*n->ext)))
        return -1;
    n->ext[n->next].slot = slot;
    n->ext[n->next].row = row;
    n->next++;
    return 0;
}

/* The application of a process's external row: that of the process row
 * the reduction gave it (a pid reused by another application's process
 * is two rows, each its own process's), or, for a pid no process row has,
 * in the active run the manifest's; -1 if none. */
static int ext_app(const struct ips2_model *m, uint32_t slot, const struct ips2_red_ext *x,
                   const char *machine)
{
    const struct ips2_red_slot *s = &m->slots[slot];
    if (x->process != IPS2_RED_NONE)
        return s->app_of[x->process];
    if (s->source != NULL && s->source[0] != 0)
        return -1;
    for (size_t i = 0; i < m->npinfo; i++)
        if (m->pinfo[i].pid == x->pid && strcmp(m->pinfo[i].machine, machine) == 0)
            return ips2_model_app_index(m, m->pinfo[i].app);
    return -1;
}

/* The external data rows of every slot onto the trees: a process's onto
 * its process nodes, the machine's onto collector nodes under the machine
 * (the active run's only: an old run's machine is not this one). */
static int index_exts(struct ips2_model *m)
{
    char path[512];
    for (uint32_t s = 0; s < m->nslots; s++) {
        const struct ips2_reductions *r = m->slots[s].r;
        const char *machine = r->strings[r->machine];
        bool active = m->slots[s].source == NULL || m->slots[s].source[0] == 0;
        for (uint32_t i = 0; i < r->nexts; i++) {
            const struct ips2_red_ext *x = &r->exts[i];
            if (x->pid == 0) {
                if (!active)
                    continue;
                const char *name = r->strings[x->collector];
                struct ips2_node *mn = node_child(m, m->physical, IPS2_NODE_MACHINE, machine);
                struct ips2_node *cn = mn ? node_child(m, mn, IPS2_NODE_COLLECTOR, name) : NULL;
                if (cn == NULL || node_ext(cn, s, i))
                    return -1;
                for (size_t a = 0; a < m->napps; a++) {
                    snprintf(path, sizeof(path), "app:%s/machine:%s", m->apps[a].name, machine);
                    mn = table_get(m->paths, path);
                    if (mn == NULL)
                        continue;
                    cn = node_child(m, mn, IPS2_NODE_COLLECTOR, name);
                    if (cn == NULL || node_ext(cn, s, i))
                        return -1;
                }
                continue;
            }
            int app = ext_app(m, s, x, machine);
            if (app < 0)
                continue;
            struct ips2_node *pn;
            snprintf(path, sizeof(path), "app:%s/machine:%s/process:%" PRIu32, m->apps[app].name,
                     machine, x->pid);
            if ((pn = table_get(m->paths, path)) != NULL && node_ext(pn, s, i))
                return -1;
            snprintf(path, sizeof(path), "machine:%s/process:%" PRIu32, machine, x->pid);
            pn = table_get(m->paths, path);
            if (pn != NULL && pn->owner != app) {
                snprintf(path, sizeof(path), "machine:%s/process:%" PRIu32 "@%s", machine, x->pid,
                         m->apps[app].name);
                pn = table_get(m->paths, path);
            }
            if (pn != NULL && node_ext(pn, s, i))
                return -1;
        }
    }
    return 0;
}

static void aggregate(struct ips2_model *m, struct ips2_node *n)
{
    memset(n->m, 0, sizeof(n->m));
    n->incl_cpu = n->incl_wall = 0;
    n->start_ns = INT64_MAX;
    n->end_ns = INT64_MIN;
    n->nprocesses = n->nthreads = 0;
    for (size_t i = 0; i < n->nchild; i++)
        aggregate(m, n->child[i]);
    if (n->kind == IPS2_NODE_PROC) {
        for (size_t i = 0; i < n->nrefs; i++) {
            const struct ips2_red_proc *p = &m->slots[n->refs[i].slot].r->procs[n->refs[i].row];
            for (int k = 0; k < IPS2_M_COUNT; k++)
                n->m[k] += p->m[k];
            n->incl_cpu += p->incl_cpu;
            n->incl_wall += p->incl_wall;
        }
        return;
    }
    if (n->kind == IPS2_NODE_THREAD) {
        int64_t shift = ips2_model_shift_of(m, n->owner);
        for (size_t i = 0; i < n->nrefs; i++) {
            const struct ips2_red_thread *t = &m->slots[n->refs[i].slot].r->threads[n->refs[i].row];
            for (int k = 0; k < IPS2_M_COUNT; k++)
                n->m[k] += t->m[k];
            if (t->start_ns + shift < n->start_ns)
                n->start_ns = t->start_ns + shift;
            if (t->end_ns + shift > n->end_ns)
                n->end_ns = t->end_ns + shift;
        }
        n->nthreads = 1;
        return;
    }
    for (size_t i = 0; i < n->nchild; i++) {
        const struct ips2_node *c = n->child[i];
        if (c->kind == IPS2_NODE_COLLECTOR)
            continue; /* the machine as a whole: not a sum of what is under it */
        for (int k = 0; k < IPS2_M_COUNT; k++)
            n->m[k] += c->m[k];
        if (c->start_ns < n->start_ns)
            n->start_ns = c->start_ns;
        if (c->end_ns > n->end_ns)
            n->end_ns = c->end_ns;
        n->nthreads += c->nthreads;
        n->nprocesses += c->nprocesses;
    }
    for (size_t i = 0; i < n->next; i++) {
        const struct ips2_red_ext *x = &m->slots[n->ext[i].slot].r->exts[n->ext[i].row];
        n->m[x->metric] += x->value;
    }
    if (n->kind == IPS2_NODE_PROCESS)
        n->nprocesses = 1;
}

static int cmp_node(const void *a, const void *b)
{
    const struct ips2_node *x = *(struct ips2_node *const *)a, *y = *(struct ips2_node *const *)b;

    if (x->kind != y->kind) /* a machine's processes, then its collectors */
        return x->kind < y->kind ? -1 : 1;

    /* numbers (pids, tids) in numeric order, names in byte order */
    if (x->kind == IPS2_NODE_PROCESS || x->kind == IPS2_NODE_THREAD) {
        unsigned long long u = strtoull(x->name, NULL, 10), v = strtoull(y->name, NULL, 10);
        if (u != v)
            return u < v ? -1 : 1;
    }
    return strcmp(x->name, y->name);
}

static void sort_tree(struct ips2_node *n)
{
    if (n->nchild > 0)
        qsort(n->child, n->nchild, sizeof(*n->child), cmp_node);
    for (size_t i = 0; i < n->nchild; i++)
        sort_tree(n->child[i]);
}

int ips2_model_index(struct ips2_model *m, char *err)
{
    trees_free(m);
    m->paths = calloc(1, sizeof(*m->paths));
    m->app_root = calloc(m->napps ? m->napps : 1, sizeof(*m->app_root));
    m->physical = node_new(IPS2_NODE_ROOT, "physical", "physical", -1);
    if (!m->paths || !m->app_root || !m->physical || table_put(m->paths, m->physical))
        goto oom;
    for (size_t a = 0; a < m->napps; a++) {
        size_t len = strlen(m->apps[a].name) + 8;
        char *path = malloc(len);
        if (path == NULL)
            goto oom;
        snprintf(path, len, "app:%s", m->apps[a].name);
        m->app_root[a] = node_new(IPS2_NODE_APP, m->apps[a].name, path, (int)a);
        free(path);
        if (m->app_root[a] == NULL || table_put(m->paths, m->app_root[a]))
            goto oom;
    }
    /* machines the manifest names, with or without data */
    for (size_t i = 0; i < m->nmachines; i++)
        if (node_child(m, m->physical, IPS2_NODE_MACHINE, m->machines[i].name) == NULL)
            goto oom;
    for (uint32_t s = 0; s < m->nslots; s++) {
        const struct ips2_reductions *r = m->slots[s].r;
        const char *machine = r->strings[r->machine];
        for (uint32_t p = 0; p < r->nprocesses; p++) {
            int app = m->slots[s].app_of[p];
            if (app < 0)
                continue;
            if (index_process(m, m->app_root[app], s, p, machine) ||
                index_process(m, m->physical, s, p, machine))
                goto oom;
        }
    }
    for (size_t i = 0; i < m->npinfo; i++) {
        int app = ips2_model_app_index(m, m->pinfo[i].app);
        if (app < 0)
            continue;
        if (index_pinfo(m, m->app_root[app], &m->pinfo[i], app) ||
            index_pinfo(m, m->physical, &m->pinfo[i], app))
            goto oom;
    }
    if (index_exts(m))
        goto oom;
    sort_tree(m->physical);
    aggregate(m, m->physical);
    for (size_t a = 0; a < m->napps; a++) {
        sort_tree(m->app_root[a]);
        aggregate(m, m->app_root[a]);
    }
    m->indexed = true;
    return 0;
oom:
    trees_free(m);
    ips2_set_error(err, "out of memory while indexing");
    return -1;
}

struct ips2_node *ips2_model_find(struct ips2_model *m, const char *path)
{
    if (!m->indexed && ips2_model_index(m, NULL) != 0)
        return NULL;
    if (*path == 0)
        path = "physical";
    return table_get(m->paths, path);
}

struct ips2_node *ips2_model_app_root(struct ips2_model *m, const char *app)
{
    int a;

    if (!m->indexed && ips2_model_index(m, NULL) != 0)
        return NULL;
    a = ips2_model_app_index(m, app);
    return a < 0 ? NULL : m->app_root[a];
}
