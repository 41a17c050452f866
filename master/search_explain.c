/*
 * search_explain.c - the W3 search's explanations (issue 11 item 6;
 * thesis §3.8, notes §2.8): one per hypothesis, a sentence naming the
 * cause, where and when, and what to try, with its evidence table (the
 * session's tables, as `$s table` returns them): cpuBound a gprof-style
 * flat profile of the focus; hotSync the object's waits and holds by
 * thread and procedure (the sentence names the procedure that held it
 * longest and the one that waited most); lateSender and lateReceiver the message channels;
 * limitedByApplication the inter-application critical-path profile at the
 * process level; instBottleneck the procedures by calls; the others a
 * profile of their metric by procedure, or the objects table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search_int.h"

/* The model node of a focus's place (a process path, app:A, machine:M,
 * or the whole workload). */
static const struct ips2_node *place_node(const struct ex_context *c)
{
    const struct sp_space *sp = c->sp;
    const struct sp_focus *f = c->focus;
    if (f->at[IPS2_H_PROCESS] >= 0)
        return ips2_model_find(sp->m, sp->res[f->at[IPS2_H_PROCESS]].name);
    if (f->at[IPS2_H_APP] >= 0)
        return ips2_model_find(sp->m, sp->res[f->at[IPS2_H_APP]].name);
    if (f->at[IPS2_H_MACHINE] >= 0)
        return ips2_model_find(sp->m, sp->res[f->at[IPS2_H_MACHINE]].name);
    if (c->o->app && c->o->app[0])
        return ips2_model_app_root(sp->m, c->o->app);
    return sp->m->physical;
}

static void focus_text(const struct ex_context *c, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = 0;
    for (int h = 0; h < IPS2_H_COUNT; h++) {
        int r = c->focus->at[h];
        if (r < 0)
            continue;
        n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%s %s", n ? ", " : "",
                              ips2_hierarchy_names[h], c->sp->res[r].name);
    }
    if (n == 0)
        snprintf(buf, size, "the whole %s", c->o->app && c->o->app[0] ? "application" : "workload");
}

static struct ips2_table *profile_by_procedure(const struct ex_context *c, int metric)
{
    const struct ips2_node *n = place_node(c);
    char err[IPS2_ERR_MAX];
    if (n == NULL)
        return NULL;
    return ips2_profile_table(c->sp->m, n, IPS2_NODE_PROC, metric, 1, err);
}

static struct ips2_table *gprof_flat(const struct ex_context *c)
{
    const struct ips2_node *n = place_node(c);
    struct ips2_table *flat = NULL, *graph = NULL;
    char err[IPS2_ERR_MAX];
    if (n == NULL || ips2_gprof_tables(c->sp->m, n, &flat, &graph, err) != 0)
        return NULL;
    ips2_table_free(graph);
    return flat;
}

static struct ips2_table *objects(const struct ex_context *c)
{
    const struct ips2_node *n = place_node(c);
    char err[IPS2_ERR_MAX];
    return n ? ips2_objects_table(c->sp->m, n, err) : NULL;
}

/* hotSync: the object's waits and holds by thread and procedure. */
struct ow_row {
    const char *object, *thread, *proc;
    int64_t waits, wait, acquisitions, hold;
    int64_t counted; /* of acquisitions: counted holds, without hold times */
};

struct ow_list {
    struct ow_row *r;
    size_t n, cap;
};

/* The row of (object, thread, procedure), made if new; NULL on OOM. */
static struct ow_row *ow_row(struct ow_list *l, const char *object, const char *thread,
                             const char *proc)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->r[i].object, object) == 0 && l->r[i].thread == thread &&
            strcmp(l->r[i].proc, proc) == 0)
            return &l->r[i];
    if (l->n == l->cap) {
        size_t ncap = l->cap ? 2 * l->cap : 16;
        void *p = realloc(l->r, ncap * sizeof(*l->r));
        if (p == NULL)
            return NULL;
        l->r = p;
        l->cap = ncap;
    }
    l->r[l->n] = (struct ow_row){object, thread, proc, 0, 0, 0, 0, 0};
    return &l->r[l->n++];
}

/* The object resource the explanation is about: the focus's, or (a kind
 * or none) the object the test found. */
static int focus_object(const struct ex_context *c)
{
    const struct sp_space *sp = c->sp;
    int obj = c->focus->at[IPS2_H_SYNC];
    if (obj < 0 || sp->res[obj].parent < 0)
        for (size_t r = 0; r < sp->nres && c->detail; r++)
            if (sp->res[r].hier == IPS2_H_SYNC && strcmp(sp->res[r].name, c->detail) == 0)
                obj = (int)r;
    return obj;
}

/* The waits (a procedure's share of its thread's waits on the object,
 * [DERIVED] as the series) and the holds (as the reductions have them:
 * from each acquisition to its release, by the procedure that acquired
 * it) of the focus's object by thread and procedure, in l. */
static int object_rows(const struct ex_context *c, struct ow_list *l)
{
    const struct sp_space *sp = c->sp;
    int obj = focus_object(c);
    bool is_object = obj >= 0 && sp->res[obj].parent >= 0;
    for (size_t i = 0; i < sp->nthreads; i++) {
        const struct sp_thread *th = &sp->threads[i];
        const struct ips2_reductions *r = sp->m->slots[th->slot].r;
        double tw = (double)r->threads[th->row].m[IPS2_M_SYNC_WAIT];
        for (size_t k = 0; k < th->nobjs; k++) {
            const struct ips2_red_object *o = &r->objects[th->objs[k].row];
            if (obj >= 0 && !sp_within(sp, th->objs[k].res, obj))
                continue;
            for (size_t p = 0; p < th->nprocs; p++) {
                double pw = (double)r->procs[th->procs[p].row].m[IPS2_M_SYNC_WAIT];
                if (pw <= 0 || tw <= 0)
                    continue;
                struct ow_row *w = ow_row(l, sp->res[th->objs[k].res].name, th->node->path,
                                          sp->res[th->procs[p].res].name);
                if (w == NULL)
                    return -1;
                w->waits += (int64_t)((double)o->waits * pw / tw + 0.5);
                w->wait += (int64_t)((double)o->wait_ns * pw / tw + 0.5);
            }
        }
        if (!is_object)
            continue; /* holds only of one lock */
        for (size_t k = 0; k < r->nholds; k++) {
            const struct ips2_red_hold *h = &r->holds[k];
            const struct ips2_red_object *o = &r->objects[h->object];
            char name[128];
            if (o->thread != th->row || (h->acquisitions == 0 && h->hold_ns == 0))
                continue;
            sp_object_name(sp, r, o, name, sizeof(name));
            if (strcmp(name, sp->res[obj].name) != 0)
                continue;
            const char *proc = "<none>";
            for (size_t p = 0; p < th->nprocs && h->proc != IPS2_RED_NONE; p++)
                if (th->procs[p].row == h->proc)
                    proc = sp->res[th->procs[p].res].name;
            if (h->proc != IPS2_RED_NONE && strcmp(proc, "<none>") == 0)
                proc = r->strings[r->procs[h->proc].name];
            struct ow_row *w = ow_row(l, sp->res[obj].name, th->node->path, proc);
            if (w == NULL)
                return -1;
            w->acquisitions += (int64_t)h->acquisitions;
            w->hold += (int64_t)h->hold_ns;
            w->counted += (int64_t)h->counted;
        }
    }
    return 0;
}

static struct ips2_table *object_waits(const struct ex_context *c)
{
    static const char *const names[] = {"object", "thread",       "procedure", "waits",
                                        "wait",   "acquisitions", "hold"};
    static const char *const units[] = {"", "", "", "", "ns", "", "ns"};
    struct ow_list l = {0};
    struct ips2_table *t = ips2_table_new(7);
    if (t == NULL)
        return NULL;
    for (size_t k = 0; k < 7; k++)
        if (ips2_table_column(t, k, names[k], units[k]))
            goto oom;
    if (object_rows(c, &l) != 0)
        goto oom;
    for (size_t i = 0; i < l.n; i++) {
        const struct ow_row *w = &l.r[i];
        long row = ips2_table_row(t);
        if (row < 0 || ips2_table_str(t, (size_t)row, 0, w->object) ||
            ips2_table_str(t, (size_t)row, 1, w->thread) ||
            ips2_table_str(t, (size_t)row, 2, w->proc))
            goto oom;
        ips2_table_int(t, (size_t)row, 3, w->waits);
        ips2_table_int(t, (size_t)row, 4, w->wait);
        ips2_table_int(t, (size_t)row, 5, w->acquisitions);
        ips2_table_int(t, (size_t)row, 6, w->hold);
    }
    free(l.r);
    return t;
oom:
    free(l.r);
    ips2_table_free(t);
    return NULL;
}

/* hotSync's sentence about the lock's holders and waiters: the procedure
 * that held it longest (summed over threads) and the one that waited for
 * it longest, into buf (empty when the reductions have neither). */
static void holders_text(const struct ex_context *c, char *buf, size_t size)
{
    struct ow_list l = {0};
    const char *holder = NULL, *waiter = NULL;
    int64_t hold = 0, all_hold = 0, acq = 0, wait = 0;

    buf[0] = 0;
    if (object_rows(c, &l) != 0) {
        free(l.r);
        return;
    }
    for (size_t i = 0; i < l.n; i++) {
        int64_t h = 0, a = 0, w = 0;
        all_hold += l.r[i].hold;
        for (size_t k = 0; k < l.n; k++)
            if (strcmp(l.r[k].proc, l.r[i].proc) == 0) {
                h += l.r[k].hold;
                a += l.r[k].acquisitions - l.r[k].counted; /* the timed holds */
                w += l.r[k].wait;
            }
        if (h > hold) {
            hold = h, acq = a;
            holder = l.r[i].proc;
        }
        if (w > wait) {
            wait = w;
            waiter = l.r[i].proc;
        }
    }
    size_t n = 0;
    if (holder)
        n += (size_t)snprintf(buf, size,
                              " It is held longest in %s (%.0f%% of its hold time, %.1f us a "
                              "hold over %lld acquisitions)",
                              holder, all_hold > 0 ? 100.0 * (double)hold / (double)all_hold : 0,
                              acq > 0 ? (double)hold / (double)acq / 1e3 : 0, (long long)acq);
    if (waiter && n < size)
        snprintf(buf + n, size - n, "%s waited for most in %s", holder ? " and" : " It is", waiter);
    if (holder || waiter) {
        n = strlen(buf);
        if (n < size)
            snprintf(buf + n, size - n, ".");
    }
    free(l.r);
}

static struct ips2_table *cp_profile(const struct ex_context *c)
{
    struct ips2_table *t = ips2_table_new(4);
    if (t == NULL)
        return NULL;
    if (ips2_table_column(t, 0, "name", "") || ips2_table_column(t, 1, "path", "") ||
        ips2_table_column(t, 2, "cp", "ns") || ips2_table_column(t, 3, "percent", "%"))
        goto oom;
    for (size_t i = 0; i < c->o->ncp; i++) {
        const struct ips2_search_cp *cp = &c->o->cp[i];
        if (!cp->inter || cp->procedure_level || (c->detail && strcmp(cp->app, c->detail) != 0))
            continue;
        for (size_t r = 0; r < cp->nrows; r++) {
            long row = ips2_table_row(t);
            if (row < 0 || ips2_table_str(t, (size_t)row, 0, cp->rows[r].name) ||
                ips2_table_str(t, (size_t)row, 1, cp->rows[r].path))
                goto oom;
            ips2_table_int(t, (size_t)row, 2, cp->rows[r].ns);
            ips2_table_real(t, (size_t)row, 3, cp->rows[r].percent);
        }
        break;
    }
    return t;
oom:
    ips2_table_free(t);
    return NULL;
}

/* instBottleneck: the procedures by calls, with their rate per second of
 * their threads' lives. */
static struct ips2_table *calls_table(const struct ex_context *c)
{
    return profile_by_procedure(c, IPS2_M_CALLS);
}

static struct ips2_table *faults_table(const struct ex_context *c)
{
    const struct sp_space *sp = c->sp;
    struct ips2_table *t = ips2_table_new(3);
    double *v = malloc((sp->nb ? sp->nb : 1) * sizeof(double));
    if (t == NULL || v == NULL)
        goto oom;
    if (ips2_table_column(t, 0, "start", "ns") || ips2_table_column(t, 1, "end", "ns") ||
        ips2_table_column(t, 2, "page_faults", ""))
        goto oom;
    sp_series(sp, SM_FAULTS, c->focus, v);
    for (size_t b = 0; b < sp->nb; b++) {
        int64_t s = sp->origin + (int64_t)(b * sp->width), e = s + (int64_t)sp->width;
        if (e <= c->start_ns || s >= c->end_ns)
            continue;
        long row = ips2_table_row(t);
        if (row < 0)
            goto oom;
        ips2_table_int(t, (size_t)row, 0, s);
        ips2_table_int(t, (size_t)row, 1, e);
        ips2_table_real(t, (size_t)row, 2, v[b]);
    }
    free(v);
    return t;
oom:
    free(v);
    ips2_table_free(t);
    return NULL;
}

int ex_explain(const struct ex_context *c, char **text, struct ips2_table **evidence)
{
    char where[1024], buf[2400];
    const char *h = c->hypothesis, *d = c->detail ? c->detail : "";
    double pct = 100 * c->value, tpct = 100 * c->threshold;
    double from = (double)c->start_ns / 1e9, to = (double)c->end_ns / 1e9;
    const struct msg_waits *w = c->sp->msgs;
    char err[IPS2_ERR_MAX];

    focus_text(c, where, sizeof(where));
    *evidence = NULL;
    if (strcmp(h, "cpuBound") == 0) {
        snprintf(buf, sizeof(buf),
                 "CPU bound at %s from %.2f to %.2f s: CPU time is %.0f%% of the attempted "
                 "parallelism (threshold %.0f%%). Make the procedures at the top of the profile "
                 "cheaper, or spread the work over more processors.",
                 where, from, to, pct, tpct);
        *evidence = gprof_flat(c);
    } else if (strcmp(h, "excessiveBlockingTime") == 0) {
        snprintf(buf, sizeof(buf),
                 "Synchronisation bound at %s from %.2f to %.2f s: waiting for locks, barriers "
                 "and other synchronisation is %.0f%% of the attempted parallelism (threshold "
                 "%.0f%%). Hold locks for less time, use finer locks, or balance the work "
                 "between barriers.",
                 where, from, to, pct, tpct);
        *evidence = objects(c);
    } else if (strcmp(h, "hotSync") == 0) {
        char who[600];
        holders_text(c, who, sizeof(who));
        snprintf(buf, sizeof(buf),
                 "A hot synchronisation object at %s%s%s from %.2f to %.2f s: it has %.0f%% of "
                 "the synchronisation waiting there (threshold %.0f%%).%s Split it into finer "
                 "locks, shorten its critical sections (in the procedures that hold it), or "
                 "give each thread its own copy.",
                 where, *d ? ": " : "", d, from, to, pct, tpct, who);
        *evidence = object_waits(c);
    } else if (strcmp(h, "excessiveSyncRates") == 0) {
        snprintf(buf, sizeof(buf),
                 "Synchronisation operations at %s%s%s are too frequent from %.2f to %.2f s: "
                 "%.2f times the rate they can sustain (threshold %.2f). Synchronise less "
                 "often: batch the work done under one lock or between two barriers.",
                 where, *d ? ", " : "", d, from, to, c->value, c->threshold);
        *evidence = objects(c);
    } else if (strcmp(h, "SyncRegionTooSmall") == 0) {
        snprintf(buf, sizeof(buf),
                 "Synchronised regions at %s are too small from %.2f to %.2f s: %.2f lock costs "
                 "of work per operation (threshold %.2f). Do more work per lock.",
                 where, from, to, c->value, c->threshold);
        *evidence = objects(c);
    } else if (strcmp(h, "barrierImbalance") == 0) {
        snprintf(buf, sizeof(buf),
                 "Load imbalance at barriers at %s from %.2f to %.2f s: threads wait %.0f%% of "
                 "the attempted parallelism for the slowest one (threshold %.0f%%). Balance the "
                 "work between barriers.",
                 where, from, to, pct, tpct);
        *evidence = objects(c);
    } else if (strcmp(h, "excessiveIOBlockingTime") == 0) {
        snprintf(buf, sizeof(buf),
                 "I/O bound at %s from %.2f to %.2f s: file I/O takes %.0f%% of the attempted "
                 "parallelism (threshold %.0f%%). Do less I/O, buffer it, or overlap it with "
                 "computation.",
                 where, from, to, pct, tpct);
        *evidence = profile_by_procedure(c, IPS2_M_IO_TIME);
    } else if (strcmp(h, "excessiveSmallIOops") == 0) {
        snprintf(buf, sizeof(buf),
                 "Small I/O operations at %s from %.2f to %.2f s: %.0f bytes per operation "
                 "(threshold %.0f). Buffer the I/O into blocks of at least %.0f bytes.",
                 where, from, to, c->value, c->threshold, c->threshold);
        *evidence = profile_by_procedure(c, IPS2_M_IO_OPS);
    } else if (strcmp(h, "tooManySeeks") == 0) {
        snprintf(buf, sizeof(buf),
                 "Seeks dominate the I/O at %s from %.2f to %.2f s: %.0f%% of the I/O time "
                 "(threshold %.0f%%). Read and write sequentially, or sort the accesses.",
                 where, from, to, pct, tpct);
        *evidence = profile_by_procedure(c, IPS2_M_SEEK_TIME);
    } else if (strcmp(h, "excessiveIOoperations") == 0) {
        snprintf(buf, sizeof(buf),
                 "Too many I/O operations at %s from %.2f to %.2f s: %.2f of the context-switch "
                 "limit's rate (threshold %.2f). Make fewer, larger operations.",
                 where, from, to, c->value, c->threshold);
        *evidence = profile_by_procedure(c, IPS2_M_IO_OPS);
    } else if (strcmp(h, "tooManyPageFaults") == 0) {
        snprintf(buf, sizeof(buf),
                 "Too many page faults at %s from %.2f to %.2f s: %.2f of the page-fault "
                 "limit's rate, at which faulting would take the whole time (threshold %.2f). "
                 "Touch new memory less (reuse buffers, allocate once), or prefault it before "
                 "the time-critical phase.",
                 where, from, to, c->value, c->threshold);
        *evidence = faults_table(c);
    } else if (strcmp(h, "instBottleneck") == 0) {
        snprintf(buf, sizeof(buf),
                 "Tracing costs much at %s from %.2f to %.2f s: procedures are called so often "
                 "that recording their calls takes about %.0f%% of the time (threshold %.0f%%). "
                 "Leave the tiny procedures at the top of this table out of the tracing "
                 "(compile them without ips2cc, or inline them), then measure again.",
                 where, from, to, pct, tpct);
        *evidence = calls_table(c);
    } else if (strcmp(h, "excessiveMessageWaiting") == 0) {
        snprintf(buf, sizeof(buf),
                 "Waiting for messages at %s from %.2f to %.2f s takes %.0f%% of the attempted "
                 "parallelism (threshold %.0f%%). See whether the senders are late or the "
                 "receivers are.",
                 where, from, to, pct, tpct);
        *evidence = profile_by_procedure(c, IPS2_M_MSG_WAIT);
    } else if (strcmp(h, "lateSender") == 0 || strcmp(h, "lateReceiver") == 0) {
        bool sender = strcmp(h, "lateSender") == 0;
        snprintf(buf, sizeof(buf),
                 "%s at %s from %.2f to %.2f s: %s %.0f%% of the attempted parallelism "
                 "(threshold %.0f%%). %s",
                 sender ? "A late sender" : "A late receiver", where, from, to,
                 sender ? "receivers wait for messages not yet sent for"
                        : "senders wait for the receiver to take their messages for",
                 pct, tpct,
                 sender ? "Send earlier: produce the data sooner, or split the sender's work so "
                          "that its first messages go out before the rest is done."
                        : "Receive sooner: post the receives earlier, or give the receiver "
                          "less other work.");
        if (w != NULL)
            *evidence = msg_waits_channel_table(w, err);
    } else if (strcmp(h, "masterWorkerImbalance") == 0) {
        snprintf(buf, sizeof(buf),
                 "Master-worker imbalance%s%s: workers wait idle for %.0f%% of the attempted "
                 "parallelism because the work is shared unevenly (threshold %.0f%%). Hand "
                 "out smaller tasks, or more of them, on demand.",
                 *d ? " around master " : "", d, pct, tpct);
        if (w != NULL)
            *evidence = msg_waits_group_table(w, err);
    } else if (strcmp(h, "limitedByApplication") == 0) {
        snprintf(buf, sizeof(buf),
                 "Application %s is limited by %s: %.0f%% of its inter-application critical "
                 "path is spent there (threshold %.0f%%). Make that part faster, or have %s "
                 "wait for it less (pipelining, asynchronous requests).",
                 *d ? d : "?", where, pct, tpct, *d ? d : "the application");
        *evidence = cp_profile(c);
    } else {
        snprintf(buf, sizeof(buf), "%s true for %s from %.2f to %.2f s: %.4g (threshold %.4g).", h,
                 where, from, to, c->value, c->threshold);
    }
    if ((*text = strdup(buf)) == NULL) {
        ips2_table_free(*evidence);
        *evidence = NULL;
        return -1;
    }
    return 0;
}
