/*
 * search_space.c - the W3 search's space over a session model: the
 * threads searched, the resource hierarchies, the sample grid and the
 * series of counters (notes/w3-search.md §3.4).
 *
 * Hierarchies.  Code: procedures (the reductions name no modules).
 * Process: app:A/machine:M -> process -> thread, the logical trees'
 * node paths.  SyncObject: kind -> object, message channels under the
 * kind "channel".  Machine: machine:M.  Application: app:A.
 *
 * Grid.  One bucket is one delivered sample: the session's histograms
 * re-bucketed (ips2_hist_rebin) to the sample interval, never finer than
 * the widest histogram of the threads searched.
 *
 * Series.  A counter (metric, focus) sums, over the threads of the
 * focus's place (process, machine, application), the thread's histogram
 * of the metric, or its procedure's, or its object's share.  Where the
 * reductions have a total but no histogram (a procedure's waits, an
 * object's waits) the total is spread like the thread's histogram of the
 * same metric ([DERIVED]: a procedure's share of a thread's waits, at the
 * times the thread waited), or evenly over the thread's life without one.
 * A focus refined on both code and an object (lock x procedure) gets the
 * object's series times the procedure's share of the thread's waits.
 *
 * Counter space (thesis Ch. 4: "one counter per procedure, one per lock,
 * one per (lock, procedure)").  Every (metric, focus) that the search
 * could enable and that selects data: places (a Process node, or else a
 * Machine and/or Application node, or the root) x code (root or a
 * procedure of a thread there) x sync (root, a kind or an object waited
 * on there), each metric refined only along the hierarchies it has
 * (CPU not by object, page faults by neither code nor object, ...), and
 * only metrics with data in the session.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search_int.h"

const char *const sm_names[SM_COUNT] = {"cpu",         "active",       "sync_wait",   "sync_ops",
                                        "io_time",     "io_ops",       "io_bytes",    "seek_time",
                                        "msg_wait",    "calls",        "page_faults", "recv_wait",
                                        "late_sender", "late_receiver"};

static const int sm_red_metric[SM_COUNT] = {IPS2_M_CPU,
                                            IPS2_M_WALL,
                                            IPS2_M_SYNC_WAIT,
                                            IPS2_M_SYNC_WAIT,
                                            IPS2_M_IO_TIME,
                                            IPS2_M_IO_OPS,
                                            IPS2_M_IO_BYTES,
                                            IPS2_M_SEEK_TIME,
                                            IPS2_M_MSG_WAIT,
                                            IPS2_M_CALLS,
                                            IPS2_M_PAGE_FAULTS,
                                            -1,
                                            -1,
                                            -1};

bool sm_refines_code(int metric)
{
    return metric != SM_ACTIVE && metric != SM_FAULTS && metric < SM_RECV_WAIT;
}

bool sm_refines_sync(int metric)
{
    return metric == SM_SYNC_WAIT || metric == SM_SYNC_OPS || metric >= SM_RECV_WAIT;
}

static bool is_channel_metric(int metric)
{
    return metric >= SM_RECV_WAIT;
}

/* ------------------------------------------------------------ string map --- */

static size_t str_hash(const char *s)
{
    size_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

int smap_get(const struct smap *m, const char *key)
{
    if (m->cap == 0)
        return -1;
    for (size_t i = str_hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->key[i] == NULL)
            return -1;
        if (strcmp(m->key[i], key) == 0)
            return m->val[i];
    }
}

int smap_put(struct smap *m, const char *key, int val)
{
    if (2 * (m->n + 1) > m->cap) {
        size_t ncap = m->cap ? 2 * m->cap : 64;
        char **k = calloc(ncap, sizeof(*k));
        int *v = calloc(ncap, sizeof(*v));
        if (k == NULL || v == NULL) {
            free(k);
            free(v);
            return -1;
        }
        for (size_t i = 0; i < m->cap; i++) {
            if (m->key[i] == NULL)
                continue;
            size_t j = str_hash(m->key[i]) & (ncap - 1);
            while (k[j] != NULL)
                j = (j + 1) & (ncap - 1);
            k[j] = m->key[i];
            v[j] = m->val[i];
        }
        free(m->key);
        free(m->val);
        m->key = k;
        m->val = v;
        m->cap = ncap;
    }
    size_t i = str_hash(key) & (m->cap - 1);
    while (m->key[i] != NULL && strcmp(m->key[i], key) != 0)
        i = (i + 1) & (m->cap - 1);
    if (m->key[i] == NULL) {
        if ((m->key[i] = strdup(key)) == NULL)
            return -1;
        m->n++;
    }
    m->val[i] = val;
    return 0;
}

void smap_free(struct smap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->key[i]);
    free(m->key);
    free(m->val);
    memset(m, 0, sizeof(*m));
}

/* ------------------------------------------------------------- resources --- */

int sp_resource(struct sp_space *sp, int hier, const char *name, int parent)
{
    char key[1200];
    int r;

    snprintf(key, sizeof(key), "%d|%s", hier, name);
    if ((r = smap_get(&sp->resmap, key)) >= 0)
        return r;
    if (sp->nres == sp->capres) {
        size_t ncap = sp->capres ? 2 * sp->capres : 64;
        void *p = realloc(sp->res, ncap * sizeof(*sp->res));
        if (p == NULL)
            return -1;
        sp->res = p;
        sp->capres = ncap;
    }
    struct sp_resource *x = &sp->res[sp->nres];
    memset(x, 0, sizeof(*x));
    x->hier = hier;
    x->parent = parent;
    x->depth = parent < 0 ? 1 : sp->res[parent].depth + 1;
    x->kind = -1;
    if ((x->name = strdup(name)) == NULL || smap_put(&sp->resmap, key, (int)sp->nres) != 0) {
        free(x->name);
        return -1;
    }
    if (parent >= 0)
        sp->res[parent].nchild++;
    return (int)sp->nres++;
}

bool sp_within(const struct sp_space *sp, int r, int a)
{
    if (a < 0)
        return true;
    for (; r >= 0; r = sp->res[r].parent)
        if (r == a)
            return true;
    return false;
}

bool sp_thread_in(const struct sp_space *sp, const struct sp_thread *t, const struct sp_focus *f)
{
    int p = f->at[IPS2_H_PROCESS];
    if (p >= 0 && t->chain[sp->res[p].depth - 1] != p)
        return false;
    if (f->at[IPS2_H_MACHINE] >= 0 && t->machine != f->at[IPS2_H_MACHINE])
        return false;
    if (f->at[IPS2_H_APP] >= 0 && t->appres != f->at[IPS2_H_APP])
        return false;
    return true;
}

void sp_threads_of(const struct sp_space *sp, const struct sp_focus *f, uint64_t *bits)
{
    memset(bits, 0, sp->words * sizeof(*bits));
    for (size_t i = 0; i < sp->nthreads; i++)
        if (sp_thread_in(sp, &sp->threads[i], f))
            bits[i / 64] |= 1ULL << (i % 64);
}

static int cmp_hist(const void *a, const void *b)
{
    const struct sp_hist *x = a, *y = b;
    if (x->proc != y->proc)
        return x->proc < y->proc ? -1 : 1;
    if (x->object != y->object)
        return x->object < y->object ? -1 : 1;
    return x->metric < y->metric ? -1 : x->metric > y->metric;
}

static int cmp_proc(const void *a, const void *b)
{
    const struct sp_proc *x = a, *y = b;
    return x->res < y->res ? -1 : x->res > y->res;
}

/* The thread's row of procedure resource res (procs sorted by resource). */
static const struct sp_proc *thread_proc(const struct sp_thread *t, int res)
{
    struct sp_proc key = {res, 0};
    return t->nprocs ? bsearch(&key, t->procs, t->nprocs, sizeof(key), cmp_proc) : NULL;
}

static bool thread_has_sync(const struct sp_space *sp, const struct sp_thread *t, int sync)
{
    for (size_t i = 0; i < t->nobjs; i++)
        if (sp_within(sp, t->objs[i].res, sync))
            return true;
    for (size_t i = 0; i < t->nchans; i++)
        if (sp_within(sp, sp->chan_res[t->chans[i]], sync))
            return true;
    return false;
}

bool sp_has_data(const struct sp_space *sp, const struct sp_focus *f)
{
    for (size_t i = 0; i < sp->nthreads; i++) {
        const struct sp_thread *t = &sp->threads[i];
        if (!sp_thread_in(sp, t, f))
            continue;
        if (f->at[IPS2_H_CODE] >= 0 && thread_proc(t, f->at[IPS2_H_CODE]) == NULL)
            continue;
        if (f->at[IPS2_H_SYNC] >= 0 && !thread_has_sync(sp, t, f->at[IPS2_H_SYNC]))
            continue;
        return true;
    }
    return false;
}

int sp_focus_app(const struct sp_space *sp, const struct sp_focus *f)
{
    if (f->at[IPS2_H_APP] >= 0)
        return f->at[IPS2_H_APP];
    if (f->at[IPS2_H_PROCESS] < 0)
        return -1;
    for (size_t i = 0; i < sp->nthreads; i++)
        if (sp_thread_in(sp, &sp->threads[i], f))
            return sp->threads[i].appres;
    return -1;
}

void sp_focus_key(const struct sp_focus *f, char *buf, size_t size)
{
    snprintf(buf, size, "%d|%d|%d|%d|%d", f->at[0], f->at[1], f->at[2], f->at[3], f->at[4]);
}

int sp_focus_names(const struct sp_space *sp, const struct sp_focus *f, struct ips2_focus *out)
{
    memset(out, 0, sizeof(*out));
    for (int h = 0; h < IPS2_H_COUNT; h++)
        if (f->at[h] >= 0 && (out->at[h] = strdup(sp->res[f->at[h]].name)) == NULL)
            return -1;
    return 0;
}

/* ----------------------------------------------------------------- build --- */

static const char *const sync_kinds[] = {"any",       "mutex",       "rwlock",  "rwlock_write",
                                         "spin",      "cond",        "barrier", "sem",
                                         "user_lock", "user_barrier"};

static const char *kind_name(uint32_t kind, char *buf, size_t size)
{
    if (kind < sizeof(sync_kinds) / sizeof(sync_kinds[0]))
        return sync_kinds[kind];
    snprintf(buf, size, "kind%u", kind);
    return buf;
}

static void shared_key(const struct ips2_reductions *r, const struct ips2_red_object *o, char *buf,
                       size_t size)
{
    snprintf(buf, size, "%s|%u|%llx", r->strings[r->machine], o->kind, (unsigned long long)o->id);
}

/* The names of the process-shared objects, from the rows that have one. */
static int shared_names(struct sp_space *sp)
{
    for (size_t s = 0; s < sp->m->nslots; s++) {
        const struct ips2_reductions *r = sp->m->slots[s].r;
        for (size_t i = 0; i < r->nobjects; i++) {
            const struct ips2_red_object *o = &r->objects[i];
            char key[600];
            if (!(o->id & IPS2_SYNC_KEY_SHARED) || o->name == IPS2_RED_NONE ||
                o->name >= r->nstrings)
                continue;
            shared_key(r, o, key, sizeof(key));
            if (smap_get(&sp->shared, key) >= 0)
                continue;
            void *p = realloc(sp->names, (sp->nnames + 1) * sizeof(char *));
            if (p == NULL)
                return -1;
            sp->names = p;
            if ((sp->names[sp->nnames] = strdup(r->strings[o->name])) == NULL ||
                smap_put(&sp->shared, key, (int)sp->nnames) != 0)
                return -1;
            sp->nnames++;
        }
    }
    return 0;
}

static int shared_name(const struct sp_space *sp, const struct ips2_reductions *r,
                       const struct ips2_red_object *o)
{
    char key[600];
    shared_key(r, o, key, sizeof(key));
    return smap_get(&sp->shared, key);
}

void sp_object_name(const struct sp_space *sp, const struct ips2_reductions *r,
                    const struct ips2_red_object *o, char *name, size_t size)
{
    char kb[32];
    const char *kind = kind_name(o->kind, kb, sizeof(kb));
    int named = (o->id & IPS2_SYNC_KEY_SHARED) ? shared_name(sp, r, o) : -1;

    if (named >= 0) /* named in the process that made it: that name in all */
        snprintf(name, size, "%s", sp->names[named]);
    else if (o->name != IPS2_RED_NONE && o->name < r->nstrings)
        snprintf(name, size, "%s", r->strings[o->name]);
    else if (o->id & IPS2_SYNC_KEY_SHARED)
        snprintf(name, size, "%s:0x%llx", kind, (unsigned long long)o->id);
    else
        snprintf(name, size, "%s:0x%llx@%u", kind, (unsigned long long)o->id,
                 r->processes[r->threads[o->thread].process].pid);
}

static int add_thread(struct sp_space *sp, const struct ips2_node *tn, const struct ips2_ref *ref,
                      char *err)
{
    struct ips2_model *m = sp->m;
    const struct ips2_reductions *r = m->slots[ref->slot].r;
    const struct ips2_red_thread *rt = &r->threads[ref->row];
    const struct ips2_node *pn = tn->parent, *mn = pn->parent, *an = mn->parent;
    struct sp_thread *t;
    char buf[64];

    void *p = realloc(sp->threads, (sp->nthreads + 1) * sizeof(*sp->threads));
    if (p == NULL)
        goto oom;
    sp->threads = p;
    t = &sp->threads[sp->nthreads];
    memset(t, 0, sizeof(*t));
    t->slot = ref->slot;
    t->row = ref->row;
    t->node = tn;
    t->app = tn->owner;
    t->process_index = (int)rt->process;
    t->shift = ips2_model_shift_of(m, tn->owner);
    t->start = rt->start_ns + t->shift;
    t->end = rt->end_ns + t->shift;
    t->appres = sp_resource(sp, IPS2_H_APP, an->path, -1);
    snprintf(buf, sizeof(buf), "machine:%s", mn->name);
    t->machine = sp_resource(sp, IPS2_H_MACHINE, buf, -1);
    t->chain[0] = sp_resource(sp, IPS2_H_PROCESS, mn->path, -1);
    t->chain[1] = t->chain[0] < 0 ? -1 : sp_resource(sp, IPS2_H_PROCESS, pn->path, t->chain[0]);
    t->chain[2] = t->chain[1] < 0 ? -1 : sp_resource(sp, IPS2_H_PROCESS, tn->path, t->chain[1]);
    if (t->appres < 0 || t->machine < 0 || t->chain[2] < 0)
        goto oom;
    sp->nthreads++;
    if (rt->nprocs && (t->procs = calloc(rt->nprocs, sizeof(*t->procs))) == NULL)
        goto oom;
    for (uint32_t i = 0; i < rt->nprocs; i++) {
        uint32_t row = rt->first_proc + i;
        int res = sp_resource(sp, IPS2_H_CODE, r->strings[r->procs[row].name], -1);
        if (res < 0)
            goto oom;
        t->procs[t->nprocs++] = (struct sp_proc){res, row};
    }
    if (t->nprocs > 1)
        qsort(t->procs, t->nprocs, sizeof(*t->procs), cmp_proc);
    const struct ips2_red_slot *slot = &m->slots[ref->slot];
    size_t nh = slot->hist_at[ref->row + 1] - slot->hist_at[ref->row];
    if (nh && (t->hists = calloc(nh, sizeof(*t->hists))) == NULL)
        goto oom;
    for (uint32_t k = slot->hist_at[ref->row]; k < slot->hist_at[ref->row + 1]; k++) {
        const struct ips2_red_hist *h = &r->hists[slot->hist_ix[k]];
        t->hists[t->nhists++] = (struct sp_hist){h->proc, h->object, h->metric, h};
    }
    if (t->nhists > 1)
        qsort(t->hists, t->nhists, sizeof(*t->hists), cmp_hist);
    for (size_t i = 0; i < r->nobjects; i++) {
        const struct ips2_red_object *o = &r->objects[i];
        char name[128], kb[32];
        const char *kind = kind_name(o->kind, kb, sizeof(kb));
        if (o->thread != ref->row || o->waits == 0) /* waits 0: a row only held */
            continue;
        sp_object_name(sp, r, o, name, sizeof(name));
        int kr = sp_resource(sp, IPS2_H_SYNC, kind, -1);
        int orr = kr < 0 ? -1 : sp_resource(sp, IPS2_H_SYNC, name, kr);
        if (orr < 0)
            goto oom;
        sp->res[orr].kind = kr;
        p = realloc(t->objs, (t->nobjs + 1) * sizeof(*t->objs));
        if (p == NULL)
            goto oom;
        t->objs = p;
        t->objs[t->nobjs++] = (struct sp_object){orr, (uint32_t)i};
    }
    return 0;
oom:
    ips2_set_error(err, "out of memory building the search space");
    return -1;
}

static int add_channels(struct sp_space *sp, char *err)
{
    const struct msg_waits *w = sp->msgs;
    if (w == NULL || w->nchannels == 0)
        return 0;
    if ((sp->chan_res = calloc(w->nchannels, sizeof(int))) == NULL)
        goto oom;
    int kr = sp_resource(sp, IPS2_H_SYNC, "channel", -1);
    if (kr < 0)
        goto oom;
    for (size_t c = 0; c < w->nchannels; c++) {
        const struct msg_channel *ch = &w->channels[c];
        int res = sp_resource(sp, IPS2_H_SYNC, ch->name, kr);
        if (res < 0)
            goto oom;
        sp->res[res].kind = kr;
        sp->chan_res[c] = res;
        for (size_t i = 0; i < sp->nthreads; i++) {
            struct sp_thread *t = &sp->threads[i];
            const char *path = t->node->path;
            if (strcmp(path, ch->receiver_thread ? ch->receiver_thread : "") != 0 &&
                strcmp(path, ch->sender_thread ? ch->sender_thread : "") != 0)
                continue;
            void *p = realloc(t->chans, (t->nchans + 1) * sizeof(int));
            if (p == NULL)
                goto oom;
            t->chans = p;
            t->chans[t->nchans++] = (int)c;
        }
    }
    return 0;
oom:
    ips2_set_error(err, "out of memory building the search space");
    return -1;
}

static void widest(const struct sp_space *sp, uint64_t *w)
{
    for (size_t i = 0; i < sp->nthreads; i++) {
        const struct sp_thread *t = &sp->threads[i];
        const struct ips2_red_slot *s = &sp->m->slots[t->slot];
        for (uint32_t k = s->hist_at[t->row]; k < s->hist_at[t->row + 1]; k++) {
            const struct ips2_red_hist *h = &s->r->hists[s->hist_ix[k]];
            if (h->nbuckets && h->width_ns > *w)
                *w = h->width_ns;
        }
    }
}

static int64_t floor_to(int64_t x, int64_t w)
{
    int64_t q = x / w;
    if (x % w != 0 && x < 0)
        q--;
    return q * w;
}

int sp_build(struct sp_space *sp, struct ips2_model *m, const struct ips2_search_options *o,
             char *err)
{
    memset(sp, 0, sizeof(*sp));
    sp->m = m;
    sp->msgs = o->msgs;
    if (!m->indexed && ips2_model_index(m, err) != 0)
        return -1;
    if (o->app != NULL && o->app[0] && ips2_model_app_index(m, o->app) < 0) {
        ips2_set_error(err, "no application \"%s\"", o->app);
        return -1;
    }
    if (shared_names(sp) != 0) {
        ips2_set_error(err, "out of memory building the search space");
        return -1;
    }
    for (size_t a = 0; a < m->napps; a++) {
        const struct ips2_node *an = m->app_root[a];
        if (o->app != NULL && o->app[0] && strcmp(m->apps[a].name, o->app) != 0)
            continue;
        for (size_t i = 0; i < an->nchild; i++)
            for (size_t j = 0; j < an->child[i]->nchild; j++) {
                const struct ips2_node *pn = an->child[i]->child[j];
                for (size_t k = 0; k < pn->nchild; k++) {
                    const struct ips2_node *tn = pn->child[k];
                    if (tn->kind != IPS2_NODE_THREAD)
                        continue;
                    for (size_t x = 0; x < tn->nrefs; x++)
                        if (add_thread(sp, tn, &tn->refs[x], err) != 0)
                            return -1;
                }
            }
    }
    if (sp->nthreads == 0) {
        ips2_set_error(err, "nothing to search: no thread left data%s%s",
                       o->app && o->app[0] ? " in application " : "", o->app ? o->app : "");
        return -1;
    }
    if (add_channels(sp, err) != 0)
        return -1;
    sp->words = (sp->nthreads + 63) / 64;

    /* what a traced call's probes cost, as the traces' calibration says
     * (REDUCTION.md "Compensated times"), over the machines by events */
    double cost = 0, events = 0;
    for (size_t i = 0; i < m->nslots; i++) {
        const struct ips2_reductions *r = m->slots[i].r;
        if (r->call_cost_ps && r->events) {
            cost += (double)r->call_cost_ps / 1e3 * (double)r->events;
            events += (double)r->events;
        }
    }
    sp->call_cost_ns = events > 0 ? cost / events : 0;

    uint64_t want = o->interval_ns ? o->interval_ns : 100000000ULL;
    sp->hist_width = m->interval_ns;
    widest(sp, &sp->hist_width);
    if (o->interval_given && o->interval_ns && o->interval_ns < sp->hist_width) {
        ips2_set_error(err,
                       "a sample interval of %.3g ms is finer than the histograms' buckets "
                       "(%.3g ms): give at least %.3g ms",
                       (double)o->interval_ns / 1e6, (double)sp->hist_width / 1e6,
                       (double)sp->hist_width / 1e6);
        return -1;
    }
    sp->width = want > sp->hist_width ? want : sp->hist_width;

    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < sp->nthreads; i++) {
        if (sp->threads[i].start < lo)
            lo = sp->threads[i].start;
        if (sp->threads[i].end > hi)
            hi = sp->threads[i].end;
    }
    sp->from = o->from_ns > lo ? o->from_ns : lo;
    sp->to = o->to_ns < hi ? o->to_ns : hi;
    if (sp->to <= sp->from)
        sp->to = sp->from + 1;
    sp->origin = floor_to(sp->from, (int64_t)sp->width);
    sp->nb = (size_t)((sp->to - sp->origin + (int64_t)sp->width - 1) / (int64_t)sp->width);

    /* which metrics have data at all */
    sp->has[SM_CPU] = sp->has[SM_ACTIVE] = true;
    for (size_t i = 0; i < sp->nthreads; i++) {
        const struct sp_thread *t = &sp->threads[i];
        const struct ips2_reductions *r = m->slots[t->slot].r;
        for (int k = 0; k < SM_COUNT; k++)
            if (sm_red_metric[k] >= 0 && k != SM_FAULTS && k != SM_SYNC_WAIT &&
                r->threads[t->row].m[sm_red_metric[k]] > 0)
                sp->has[k] = true;
        sp->has[SM_SYNC_WAIT] = sp->has[SM_SYNC_WAIT] || t->nobjs; /* joins are not counted */
        if (t->nobjs)
            sp->has[SM_SYNC_OPS] = true;
    }
    for (size_t s = 0; s < m->nslots; s++)
        for (size_t e = 0; e < m->slots[s].r->nexts; e++)
            if (m->slots[s].r->exts[e].metric == IPS2_M_PAGE_FAULTS && m->slots[s].r->exts[e].value)
                sp->has[SM_FAULTS] = true;
    if (sp->msgs && sp->msgs->nchannels)
        sp->has[SM_RECV_WAIT] = sp->has[SM_LATE_SENDER] = sp->has[SM_LATE_RECEIVER] = true;
    return 0;
}

void sp_free(struct sp_space *sp)
{
    for (size_t i = 0; i < sp->nthreads; i++) {
        free(sp->threads[i].procs);
        free(sp->threads[i].objs);
        free(sp->threads[i].chans);
        free(sp->threads[i].hists);
    }
    free(sp->threads);
    for (size_t i = 0; i < sp->nres; i++)
        free(sp->res[i].name);
    free(sp->res);
    free(sp->chan_res);
    smap_free(&sp->resmap);
    smap_free(&sp->shared);
    for (size_t i = 0; i < sp->nnames; i++)
        free(sp->names[i]);
    free(sp->names);
    memset(sp, 0, sizeof(*sp));
}

/* ---------------------------------------------------------------- series --- */

/* Adds total spread evenly over [start, end) (clipped to the phase). */
static void add_even(const struct sp_space *sp, double *v, int64_t start, int64_t end, double total)
{
    int64_t s = start > sp->from ? start : sp->from, e = end < sp->to ? end : sp->to;
    if (total == 0)
        return;
    if (e <= s) { /* an instant, or outside: its bucket, if any */
        int64_t at = s < sp->to ? s : sp->to - 1;
        int64_t b = (at - sp->origin) / (int64_t)sp->width;
        if (b >= 0 && (size_t)b < sp->nb)
            v[b] += total;
        return;
    }
    struct ips2_hist g = {sp->origin, sp->width, sp->nb, v};
    double one = total;
    ips2_hist_rebin(&g, s, (uint64_t)(e - s), 1, &one, 1.0);
}

static void add_hist(const struct sp_space *sp, double *v, int64_t start, uint64_t width, size_t n,
                     const double *values, double scale)
{
    struct ips2_hist g = {sp->origin, sp->width, sp->nb, v};
    if (scale == 0)
        return;
    if (width == sp->width && (start - sp->origin) % (int64_t)width == 0) { /* the same grid */
        int64_t off = (start - sp->origin) / (int64_t)width;
        for (size_t i = 0; i < n; i++) {
            int64_t b = off + (int64_t)i;
            if (b >= 0 && (size_t)b < sp->nb)
                v[b] += values[i] * scale;
        }
        return;
    }
    ips2_hist_rebin(&g, start, width, n, values, scale);
}

/* The thread's histogram of metric (proc and object IPS2_RED_NONE), its
 * procedure row's, or its object row's. */
static const struct ips2_red_hist *find_hist_of(const struct sp_space *sp,
                                                const struct sp_thread *t, uint32_t proc,
                                                uint32_t object, int metric)
{
    struct sp_hist key = {proc, object, (uint32_t)metric, NULL};
    const struct sp_hist *h;
    (void)sp;
    if (t->nhists == 0)
        return NULL;
    h = bsearch(&key, t->hists, t->nhists, sizeof(key), cmp_hist);
    return h ? h->h : NULL;
}

static const struct ips2_red_hist *find_hist(const struct sp_space *sp, const struct sp_thread *t,
                                             uint32_t proc, int metric)
{
    return find_hist_of(sp, t, proc, IPS2_RED_NONE, metric);
}

static double hist_sum(const struct ips2_red_hist *h)
{
    double s = 0;
    for (uint32_t i = 0; i < h->nbuckets; i++)
        s += h->v[i];
    return s;
}

/* Adds amount shaped like the thread's histogram of metric (evenly over
 * its life without one). */
static void add_shaped(const struct sp_space *sp, const struct sp_thread *t, int metric,
                       double amount, double *v)
{
    const struct ips2_red_hist *h = find_hist(sp, t, IPS2_RED_NONE, metric);
    double sum = h ? hist_sum(h) : 0;
    if (amount == 0)
        return;
    if (sum > 0)
        add_hist(sp, v, h->start_ns + t->shift, h->width_ns, h->nbuckets, h->v, amount / sum);
    else
        add_even(sp, v, t->start, t->end, amount);
}

/* A procedure row's series of a reductions metric. */
static void add_proc(const struct sp_space *sp, const struct sp_thread *t, const struct sp_proc *p,
                     int metric, double *v)
{
    const struct ips2_reductions *r = sp->m->slots[t->slot].r;
    const struct ips2_red_hist *h = find_hist(sp, t, p->row, metric);
    const struct ips2_red_proc *row = &r->procs[p->row];

    if (h != NULL) {
        add_hist(sp, v, h->start_ns + t->shift, h->width_ns, h->nbuckets, h->v, 1.0);
        return;
    }
    if (metric == IPS2_M_CALLS) { /* calls at the times the procedure ran */
        const struct ips2_red_hist *c = find_hist(sp, t, p->row, IPS2_M_CPU);
        double sum = c ? hist_sum(c) : 0;
        if (sum > 0) {
            add_hist(sp, v, c->start_ns + t->shift, c->width_ns, c->nbuckets, c->v,
                     (double)row->m[metric] / sum);
            return;
        }
    }
    add_shaped(sp, t, metric, (double)row->m[metric], v);
}

static void add_thread_metric(const struct sp_space *sp, const struct sp_thread *t, int metric,
                              double *v)
{
    const struct ips2_reductions *r = sp->m->slots[t->slot].r;
    const struct ips2_red_hist *h = find_hist(sp, t, IPS2_RED_NONE, metric);
    if (h != NULL) {
        add_hist(sp, v, h->start_ns + t->shift, h->width_ns, h->nbuckets, h->v, 1.0);
        return;
    }
    if (metric == IPS2_M_CALLS) { /* calls happen while the thread runs */
        add_shaped(sp, t, IPS2_M_CPU, (double)r->threads[t->row].m[metric], v);
        return;
    }
    add_even(sp, v, t->start, t->end, (double)r->threads[t->row].m[metric]);
}

/* The thread's synchronisation waits (or operations) on the objects within sync. */
static void add_sync(const struct sp_space *sp, const struct sp_thread *t, int metric, int sync,
                     int code, double *v)
{
    const struct ips2_reductions *r = sp->m->slots[t->slot].r;
    double thread_wait = (double)r->threads[t->row].m[IPS2_M_SYNC_WAIT];
    double share = 1.0;

    if (code >= 0) {
        const struct sp_proc *p = thread_proc(t, code);
        if (p == NULL || thread_wait <= 0)
            return;
        share = (double)r->procs[p->row].m[IPS2_M_SYNC_WAIT] / thread_wait;
    }
    for (size_t i = 0; i < t->nobjs; i++) {
        const struct ips2_red_object *o = &r->objects[t->objs[i].row];
        if (!sp_within(sp, t->objs[i].res, sync))
            continue;
        double amount = metric == SM_SYNC_WAIT ? (double)o->wait_ns : (double)o->waits;
        const struct ips2_red_hist *h =
            find_hist_of(sp, t, IPS2_RED_NONE, t->objs[i].row, IPS2_M_SYNC_WAIT);
        double sum = h ? hist_sum(h) : 0;
        if (sum > 0) /* the object's own waits over time */
            add_hist(sp, v, h->start_ns + t->shift, h->width_ns, h->nbuckets, h->v,
                     amount * share / sum);
        else
            add_shaped(sp, t, IPS2_M_SYNC_WAIT, amount * share, v);
    }
}

static void add_channel(const struct sp_space *sp, int c, int kind, double *v)
{
    const struct msg_channel *ch = &sp->msgs->channels[c];
    if (ch->hist[kind] != NULL && sp->msgs->nbuckets) {
        size_t n = sp->msgs->nbuckets;
        double *d = malloc(n * sizeof(double));
        if (d == NULL) {
            add_even(sp, v, ch->first, ch->last, (double)ch->wait[kind]);
            return;
        }
        for (size_t i = 0; i < n; i++)
            d[i] = (double)ch->hist[kind][i];
        add_hist(sp, v, sp->msgs->hist_start, (uint64_t)sp->msgs->hist_width, n, d, 1.0);
        free(d);
        return;
    }
    add_even(sp, v, ch->first, ch->last, (double)ch->wait[kind]);
}

static void add_faults(const struct sp_space *sp, const struct sp_focus *f, double *v)
{
    const struct ips2_model *m = sp->m;
    bool any = false;
    /* the processes' own rows */
    for (size_t s = 0; s < m->nslots; s++) {
        const struct ips2_reductions *r = m->slots[s].r;
        for (size_t e = 0; e < r->nexts; e++) {
            const struct ips2_red_ext *x = &r->exts[e];
            if (x->metric != IPS2_M_PAGE_FAULTS || x->process == IPS2_RED_NONE)
                continue;
            for (size_t i = 0; i < sp->nthreads; i++) {
                const struct sp_thread *t = &sp->threads[i];
                if (t->slot != s || t->process_index != (int)x->process)
                    continue;
                if (sp_thread_in(sp, t, f)) {
                    add_hist(sp, v, x->start_ns + t->shift, x->width_ns, x->nbuckets, x->v, 1.0);
                    any = any || x->value > 0;
                }
                break; /* one row per process */
            }
        }
    }
    if (any || (f->at[IPS2_H_PROCESS] >= 0 && sp->res[f->at[IPS2_H_PROCESS]].depth > 1))
        return;
    /* else the machines' (machine-wide collectors) */
    for (size_t s = 0; s < m->nslots; s++) {
        const struct ips2_reductions *r = m->slots[s].r;
        bool in = false;
        for (size_t i = 0; i < sp->nthreads && !in; i++)
            in = sp->threads[i].slot == s && sp_thread_in(sp, &sp->threads[i], f);
        if (!in)
            continue;
        for (size_t e = 0; e < r->nexts; e++) {
            const struct ips2_red_ext *x = &r->exts[e];
            if (x->metric == IPS2_M_PAGE_FAULTS && x->pid == 0)
                add_hist(sp, v, x->start_ns, x->width_ns, x->nbuckets, x->v, 1.0);
        }
    }
}

/* Load compensation (thesis §8.1: thresholds scaled by the fraction of
 * the time the application ran; notes §2.5's normalize).  The traces do
 * not say when a thread was runnable but not running, so it is
 * estimated, [DERIVED], from the procedures that compute: in one whose
 * own CPU is at least SP_COMPUTE_SHARE of its own wall time, the rest of
 * that wall time less its traced waits was preemption (a procedure that
 * sleeps or blocks in an untraced call has next to no CPU of its own).
 * That time, spread like the thread's CPU, is not part of its attempted
 * parallelism. */
#define SP_COMPUTE_SHARE 0.05
static double preempted(const struct sp_space *sp, const struct sp_thread *t)
{
    const struct ips2_reductions *r = sp->m->slots[t->slot].r;
    double sum = 0;
    for (size_t i = 0; i < t->nprocs; i++) {
        const struct ips2_red_proc *p = &r->procs[t->procs[i].row];
        double wall = (double)p->m[IPS2_M_WALL], cpu = (double)p->m[IPS2_M_CPU];
        double waits = (double)(p->m[IPS2_M_SYNC_WAIT] + p->m[IPS2_M_MSG_WAIT] +
                                p->m[IPS2_M_IO_TIME] + p->m[IPS2_M_SEEK_TIME]);
        if (wall > 0 && cpu >= SP_COMPUTE_SHARE * wall && wall > cpu + waits)
            sum += wall - cpu - waits;
    }
    return sum;
}

/* The thread's attempted parallelism: its life, less the time it waited
 * for other threads or processes to end (joins, waitpid: the waits of
 * SYNC_WAIT that are on no object). */
static int add_active(const struct sp_space *sp, const struct sp_thread *t, double *v)
{
    int64_t s = t->start, e = t->end;
    double *all = calloc(4 * sp->nb, sizeof(double)), *objs = all + sp->nb, *alive = objs + sp->nb,
           *cpu = alive + sp->nb;

    if (all == NULL)
        return -1;
    if (e > s) {
        add_thread_metric(sp, t, IPS2_M_SYNC_WAIT, all);
        add_sync(sp, t, SM_SYNC_WAIT, -1, -1, objs);
        add_even(sp, alive, s, e,
                 (double)((e < sp->to ? e : sp->to) - (s > sp->from ? s : sp->from)));
        double pre = sp->load_compensation ? preempted(sp, t) : 0, total = 0;
        if (pre > 0) {
            add_thread_metric(sp, t, IPS2_M_CPU, cpu);
            for (size_t b = 0; b < sp->nb; b++)
                total += cpu[b];
        }
        for (size_t b = 0; b < sp->nb; b++) {
            double a = alive[b] - (all[b] > objs[b] ? all[b] - objs[b] : 0);
            if (total > 0) {
                a -= pre * cpu[b] / total;
                if (a < cpu[b])
                    a = cpu[b];
            }
            v[b] += a > 0 ? a : 0;
        }
    }
    free(all);
    return 0;
}

int sp_series(const struct sp_space *sp, int metric, const struct sp_focus *f, double *v)
{
    int code = f->at[IPS2_H_CODE], sync = f->at[IPS2_H_SYNC];

    memset(v, 0, sp->nb * sizeof(double));
    if (metric == SM_FAULTS) {
        if (code < 0 && sync < 0)
            add_faults(sp, f, v);
        return 0;
    }
    if (is_channel_metric(metric)) {
        int kind = metric == SM_RECV_WAIT     ? MSG_WAIT_RECEIVE
                   : metric == SM_LATE_SENDER ? MSG_WAIT_LATE_SENDER
                                              : MSG_WAIT_LATE_RECEIVER;
        if (code >= 0 || sp->msgs == NULL)
            return 0;
        for (size_t c = 0; c < sp->msgs->nchannels; c++) {
            const struct msg_channel *ch = &sp->msgs->channels[c];
            const char *end = metric == SM_LATE_RECEIVER ? ch->sender_thread : ch->receiver_thread;
            if (!sp_within(sp, sp->chan_res[c], sync))
                continue;
            for (size_t i = 0; i < sp->nthreads; i++) {
                const struct sp_thread *t = &sp->threads[i];
                if (end && strcmp(t->node->path, end) == 0) {
                    if (sp_thread_in(sp, t, f))
                        add_channel(sp, (int)c, kind, v);
                    break;
                }
            }
        }
        return 0;
    }
    for (size_t i = 0; i < sp->nthreads; i++) {
        const struct sp_thread *t = &sp->threads[i];
        if (!sp_thread_in(sp, t, f))
            continue;
        if (metric == SM_ACTIVE) {
            if (add_active(sp, t, v) != 0)
                return -1;
            continue;
        }
        if (metric == SM_SYNC_WAIT || metric == SM_SYNC_OPS) { /* waits on objects */
            add_sync(sp, t, metric, sync, code, v);
            continue;
        } else if (sync >= 0) {
            continue;
        }
        if (code >= 0) {
            const struct sp_proc *p = thread_proc(t, code);
            if (p != NULL)
                add_proc(sp, t, p, sm_red_metric[metric], v);
            continue;
        }
        add_thread_metric(sp, t, sm_red_metric[metric], v);
    }
    return 0;
}

/* ------------------------------------------------------ the counter space --- */

struct ckey {
    int place, mach, app, code, sync; /* resource ids, -1 for roots */
};

static int cmp_ckey(const void *a, const void *b)
{
    return memcmp(a, b, sizeof(struct ckey));
}

static bool is_channel_res(const struct sp_space *sp, int sync)
{
    int k = sp->res[sync].kind >= 0 ? sp->res[sync].kind : sync;
    return strcmp(sp->res[k].name, "channel") == 0;
}

uint64_t sp_total_counters(const struct sp_space *sp)
{
    struct ckey *all = NULL;
    uint64_t total = 0;
    size_t n = 0, cap = 0;

    for (size_t i = 0; i < sp->nthreads; i++) {
        const struct sp_thread *t = &sp->threads[i];
        /* places: a node of the process chain, or machine x application below the root */
        const int places[7][3] = {
            {t->chain[0], -1, -1}, {t->chain[1], -1, -1}, {t->chain[2], -1, -1},      {-1, -1, -1},
            {-1, t->machine, -1},  {-1, -1, t->appres},   {-1, t->machine, t->appres}};
        size_t ncode = 1 + t->nprocs, nsync = 1 + 2 * (t->nobjs + t->nchans);
        int *syncs = malloc(nsync * sizeof(int));
        size_t ns = 0;
        if (syncs == NULL)
            goto oom;
        syncs[ns++] = -1;
        for (size_t k = 0; k < t->nobjs; k++) {
            syncs[ns++] = t->objs[k].res;
            syncs[ns++] = sp->res[t->objs[k].res].parent;
        }
        for (size_t k = 0; k < t->nchans; k++) {
            syncs[ns++] = sp->chan_res[t->chans[k]];
            syncs[ns++] = sp->res[sp->chan_res[t->chans[k]]].parent;
        }
        size_t need = n + 7 * ncode * ns;
        if (need > cap) {
            size_t ncap = need * 2;
            void *p = realloc(all, ncap * sizeof(*all));
            if (p == NULL) {
                free(syncs);
                goto oom;
            }
            all = p;
            cap = ncap;
        }
        for (int pl = 0; pl < 7; pl++)
            for (size_t c = 0; c < ncode; c++)
                for (size_t s = 0; s < ns; s++)
                    all[n++] = (struct ckey){places[pl][0], places[pl][1], places[pl][2],
                                             c == 0 ? -1 : t->procs[c - 1].res, syncs[s]};
        free(syncs);
    }
    if (n)
        qsort(all, n, sizeof(*all), cmp_ckey);
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && cmp_ckey(&all[i], &all[i - 1]) == 0)
            continue;
        int code = all[i].code, sync = all[i].sync;
        bool chan = sync >= 0 && is_channel_res(sp, sync);
        for (int m = 0; m < SM_COUNT; m++) {
            if (!sp->has[m])
                continue;
            if (code >= 0 && !sm_refines_code(m))
                continue;
            if (sync >= 0 && (!sm_refines_sync(m) || chan != is_channel_metric(m)))
                continue;
            total++;
        }
    }
    free(all);
    return total;
oom:
    free(all);
    return 0;
}
