/*
 * pag_match.c - pairing: items of one class with equal keys become arcs
 * (traces/FORMAT.md §9 gives the rules, cpa/PAG.md how the keys are
 * laid out), once inside a part (pag_build.c) and once across parts
 * (ips2_pag_match_ends, over the ends every part left).
 *
 * Items are sorted by class and key; each group of equal keys is paired
 * by its class's rule: byte ranges by overlap, connections and process
 * creations by order in time, barriers through their last arriver, the
 * rest one source to its destinations.  What is left is marked undone: the
 * caller keeps it as an end or says it in a warning.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ips2_reader.h"
#include "pag_internal.h"

#define NO_GID UINT64_MAX

/* How many leading keys make a group, per class. */
static const unsigned group_keys[PC_COUNT] = {
    [PC_BYTES] = 1,  [PC_CONN] = 1,   [PC_DGRAM] = 2, [PC_PVM] = 3,  [PC_PVMTASK] = 2,
    [PC_PVMBAR] = 2, [PC_PVMTID] = 1, [PC_LOCK] = 3,  [PC_COND] = 3, [PC_BARRIER] = 4,
    [PC_SEM] = 4,    [PC_THREAD] = 2, [PC_JOIN] = 2,  [PC_PROC] = 1, [PC_EXEC] = 2,
    [PC_EXIT] = 1,   [PC_INIT] = 2,
};

static const uint16_t arc_type[PC_COUNT] = {
    [PC_BYTES] = IPS2_PAG_ARC_MESSAGE,  [PC_CONN] = IPS2_PAG_ARC_MESSAGE,
    [PC_DGRAM] = IPS2_PAG_ARC_MESSAGE,  [PC_PVM] = IPS2_PAG_ARC_MESSAGE,
    [PC_PVMTASK] = IPS2_PAG_ARC_CREATE, [PC_PVMBAR] = IPS2_PAG_ARC_SYNC,
    [PC_LOCK] = IPS2_PAG_ARC_SYNC,      [PC_COND] = IPS2_PAG_ARC_SYNC,
    [PC_BARRIER] = IPS2_PAG_ARC_SYNC,   [PC_SEM] = IPS2_PAG_ARC_SYNC,
    [PC_THREAD] = IPS2_PAG_ARC_CREATE,  [PC_JOIN] = IPS2_PAG_ARC_EXIT,
    [PC_PROC] = IPS2_PAG_ARC_CREATE,    [PC_EXEC] = IPS2_PAG_ARC_CREATE,
    [PC_EXIT] = IPS2_PAG_ARC_EXIT,
};

int64_t pag_weight(int64_t from_wall, int64_t to_wall, int64_t to_ws)
{
    int64_t start = from_wall > to_ws ? from_wall : to_ws;

    if (to_wall <= start)
        return 0;
    return to_wall - start;
}

bool pag_class_crosses(unsigned cls, uint16_t flags)
{
    switch (cls) {
    case PC_PVM:
    case PC_PVMTASK:
    case PC_PVMBAR:
    case PC_PVMTID:
        return true;
    case PC_BYTES:
    case PC_CONN:
    case PC_DGRAM:
        return (flags & PI_IP) != 0;
    default:
        return false;
    }
}

int pag_item_cmp(const void *a, const void *b)
{
    const struct pag_item *x = a, *y = b;

    if (x->cls != y->cls)
        return x->cls < y->cls ? -1 : 1;
    for (int i = 0; i < 4; i++)
        if (x->k[i] != y->k[i])
            return x->k[i] < y->k[i] ? -1 : 1;
    if (x->side != y->side)
        return x->side < y->side ? -1 : 1;
    if (x->wall != y->wall)
        return x->wall < y->wall ? -1 : 1;
    return x->gid < y->gid ? -1 : x->gid > y->gid;
}

static bool same_group(const struct pag_item *x, const struct pag_item *y)
{
    if (x->cls != y->cls)
        return false;
    for (unsigned i = 0; i < group_keys[x->cls]; i++)
        if (x->k[i] != y->k[i])
            return false;
    return true;
}

static bool pair(struct pag_pairs *out, uint64_t from, uint64_t to, int64_t weight, uint16_t type)
{
    struct pag_pair *q = PAG_PUSH(out->v, out->n, out->cap);

    if (!q)
        return false;
    q->from = from;
    q->to = to;
    q->weight = weight;
    q->type = type;
    q->label = 0;
    return true;
}

/* A PVM message's arc label: its tag (k[1]'s low word) + 1, 0 if it does
 * not fit (ips2_pag.h). */
static uint16_t pvm_tag_label(const struct pag_item *d)
{
    int32_t tag = (int32_t)(uint32_t)d->k[1];
    return tag >= 0 && tag < 0xffff ? (uint16_t)(tag + 1) : 0;
}

/* An arc s -> d.  A source recorded when its call returned may have ended
 * after the destination (a write returns after the reader got the bytes,
 * its writer preempted in the call): the arc still leaves the source's
 * node, so that the CPU the writer spent up to the call stays on any path
 * through the message, and weighs 0 (the bytes were there before the
 * source's node was).  Such arcs run backwards in wall time but make no
 * cycle: each leaves a call that started before its destination ended. */
static bool arc(struct pag_pairs *out, struct pag_item *s, struct pag_item *d)
{
    s->flags |= PI_DONE;
    d->flags |= PI_DONE;
    if (!pair(out, s->gid, d->gid, pag_weight(s->wall, d->wall, d->ws), arc_type[d->cls]))
        return false;
    if (d->cls == PC_PVM)
        out->v[out->n - 1].label = pvm_tag_label(d);
    return true;
}

/* Splits a group into its sources and destinations (in the group's sort
 * order), in scratch arrays of pointers. */
struct sides {
    struct pag_item **src, **dst;
    size_t ns, nd, cap;
};

static bool split(struct sides *sd, struct pag_item *g, size_t n)
{
    if (n > sd->cap) {
        struct pag_item **s = realloc(sd->src, n * sizeof(*s));
        if (!s)
            return false;
        sd->src = s;
        struct pag_item **d = realloc(sd->dst, n * sizeof(*d));
        if (!d)
            return false;
        sd->dst = d;
        sd->cap = n;
    }
    sd->ns = sd->nd = 0;
    for (size_t i = 0; i < n; i++) {
        if (g[i].side == PAG_SRC)
            sd->src[sd->ns++] = &g[i];
        else
            sd->dst[sd->nd++] = &g[i];
    }
    return true;
}

static int cmp_wall(const void *a, const void *b)
{
    const struct pag_item *x = *(struct pag_item *const *)a, *y = *(struct pag_item *const *)b;

    if (x->wall != y->wall)
        return x->wall < y->wall ? -1 : 1;
    return x->gid < y->gid ? -1 : x->gid > y->gid;
}

/* Byte ranges: each receive pairs with every send it overlaps (both
 * sides are in offset order: k[1] sorts right after the key). */
static bool bytes(struct sides *sd, struct pag_pairs *out)
{
    size_t j = 0;

    for (size_t i = 0; i < sd->nd; i++) {
        struct pag_item *d = sd->dst[i];
        uint64_t a = d->k[1], e = d->k[1] + d->k[2];
        while (j < sd->ns && sd->src[j]->k[1] + sd->src[j]->k[2] <= a)
            j++;
        for (size_t m = j; m < sd->ns && sd->src[m]->k[1] < e; m++)
            if (!arc(out, sd->src[m], d))
                return false;
    }
    return true;
}

/* The n-th source with the n-th destination, in time order. */
static bool in_order(struct sides *sd, struct pag_pairs *out)
{
    qsort(sd->src, sd->ns, sizeof(*sd->src), cmp_wall);
    qsort(sd->dst, sd->nd, sizeof(*sd->dst), cmp_wall);
    for (size_t i = 0; i < sd->ns && i < sd->nd; i++)
        if (!arc(out, sd->src[i], sd->dst[i]))
            return false;
    return true;
}

/* One source (the first) to every destination. */
static bool one_to_all(struct sides *sd, struct pag_pairs *out)
{
    if (!sd->ns)
        return true;
    for (size_t i = 0; i < sd->nd; i++)
        if (!arc(out, sd->src[0], sd->dst[i]))
            return false;
    if (sd->nd)
        for (size_t i = 1; i < sd->ns; i++)
            sd->src[i]->flags |= PI_DONE;
    return true;
}

/* A barrier episode: the last arriver's arrival to every other departure.
 * The last arriver is the serial departure's thread (its arrival is in
 * ref), else the arrival numbered episode * parties, else the latest. */
static bool barrier(struct sides *sd, struct pag_pairs *out)
{
    struct pag_item *last = NULL;
    uint64_t from = NO_GID;

    for (size_t i = 0; i < sd->nd && from == NO_GID; i++)
        if ((sd->dst[i]->flags & PI_SERIAL) && sd->dst[i]->ref != NO_GID)
            from = sd->dst[i]->ref;
    for (size_t i = 0; i < sd->ns; i++) {
        struct pag_item *s = sd->src[i];
        if (from != NO_GID ? s->gid == from : (uint64_t)s->aux == s->k[3] * s->aux2 && s->aux2 != 0)
            last = s;
    }
    if (!last)
        for (size_t i = 0; i < sd->ns; i++)
            if (!last || sd->src[i]->wall > last->wall)
                last = sd->src[i];
    if (!last)
        return true;
    for (size_t i = 0; i < sd->ns; i++)
        sd->src[i]->flags |= PI_DONE;
    for (size_t i = 0; i < sd->nd; i++) {
        struct pag_item *d = sd->dst[i];
        d->flags |= PI_DONE;
        if (d->ref == last->gid)
            continue; /* the last arriver's own departure */
        if (!arc(out, last, d))
            return false;
    }
    return true;
}

/* A PVM barrier episode (destinations only): the member that arrived last
 * (latest call start) released every other. */
static bool pvm_barrier(struct sides *sd, struct pag_pairs *out)
{
    struct pag_item *last = NULL;

    for (size_t i = 0; i < sd->nd; i++)
        if (!last || sd->dst[i]->ws > last->ws)
            last = sd->dst[i];
    if (!last)
        return true;
    /* it arrived at its call's start, leaving the node before the call */
    uint64_t from = last->prev != NO_GID ? last->prev : last->gid;
    int64_t wall = last->ws != INT64_MIN ? last->ws : last->wall;
    for (size_t i = 0; i < sd->nd; i++) {
        sd->dst[i]->flags |= PI_DONE;
        if (sd->dst[i] != last &&
            !pair(out, from, sd->dst[i]->gid, pag_weight(wall, sd->dst[i]->wall, sd->dst[i]->ws),
                  IPS2_PAG_ARC_SYNC))
            return false;
    }
    return true;
}

/* Process creation by pid: each creation takes the first head of that pid
 * at or after it and before the next creation (pids are reused). */
static bool creation(struct sides *sd, struct pag_pairs *out)
{
    qsort(sd->src, sd->ns, sizeof(*sd->src), cmp_wall);
    qsort(sd->dst, sd->nd, sizeof(*sd->dst), cmp_wall);
    size_t j = 0;
    for (size_t i = 0; i < sd->ns; i++) {
        struct pag_item *s = sd->src[i];
        int64_t next = i + 1 < sd->ns ? sd->src[i + 1]->wall : INT64_MAX;
        while (j < sd->nd && sd->dst[j]->wall < s->wall)
            j++;
        for (size_t m = j; m < sd->nd && sd->dst[m]->wall < next; m++) {
            struct pag_item *d = sd->dst[m];
            if ((d->flags & PI_DONE) || (d->aux && s->aux && d->aux != s->aux))
                continue;
            if (!arc(out, s, d))
                return false;
            if ((s->flags & PI_VFORK) && s->ref != NO_GID &&
                !pair(out, d->gid, s->ref, pag_weight(d->wall, s->ref_wall, s->ref_ws),
                      IPS2_PAG_ARC_CREATE))
                return false;
            break;
        }
    }
    return true;
}

/* A reaping wait takes the latest exit of that pid before it. */
static bool reaping(struct sides *sd, struct pag_pairs *out)
{
    qsort(sd->src, sd->ns, sizeof(*sd->src), cmp_wall);
    qsort(sd->dst, sd->nd, sizeof(*sd->dst), cmp_wall);
    for (size_t i = 0; i < sd->nd; i++) {
        struct pag_item *d = sd->dst[i];
        for (size_t m = sd->ns; m-- > 0;) {
            struct pag_item *s = sd->src[m];
            if (s->wall > d->wall || (s->flags & PI_DONE) || (s->aux && d->aux && s->aux != d->aux))
                continue;
            if (!arc(out, s, d))
                return false;
            break;
        }
    }
    return true;
}

bool pag_match_items(struct pag_item *items, size_t n, bool final, struct pag_pairs *out)
{
    struct sides sd = {0};
    bool ok = true;

    if (n > 0)
        qsort(items, n, sizeof(*items), pag_item_cmp);
    for (size_t i = 0; i < n && ok;) {
        size_t j = i + 1;
        while (j < n && same_group(&items[i], &items[j]))
            j++;
        unsigned cls = items[i].cls;
        if (!split(&sd, items + i, j - i)) {
            ok = false;
            break;
        }
        switch (cls) {
        case PC_BYTES:
            ok = bytes(&sd, out);
            break;
        case PC_CONN:
            ok = in_order(&sd, out);
            break;
        case PC_PVMBAR:
            if (final)
                ok = pvm_barrier(&sd, out);
            break;
        case PC_PVMTID:
        case PC_INIT:
            break;
        case PC_BARRIER:
            ok = barrier(&sd, out);
            break;
        case PC_PROC:
            ok = creation(&sd, out);
            break;
        case PC_EXIT:
            ok = reaping(&sd, out);
            break;
        default:
            if (cls < PC_COUNT && arc_type[cls])
                ok = one_to_all(&sd, out);
            break;
        }
        i = j;
    }
    free(sd.src);
    free(sd.dst);
    return ok;
}

/* ---- warnings ------------------------------------------------------------ */

bool pag_item_warns(const struct pag_item *it)
{
    switch (it->cls) {
    case PC_BYTES:
    case PC_CONN:
    case PC_DGRAM:
    case PC_PVM:
    case PC_PVMTASK:
    case PC_THREAD:
        return true;
    case PC_LOCK:
    case PC_COND:
    case PC_BARRIER:
    case PC_SEM:
    case PC_JOIN:
        return it->side == PAG_DST;
    default:
        return false;
    }
}

static const char *what_missing(const struct pag_item *it)
{
    static const char *const src[PC_COUNT] = {
        [PC_BYTES] = "no receive read these bytes",
        [PC_CONN] = "no accept of this connection",
        [PC_DGRAM] = "no receive of this datagram",
        [PC_PVM] = "no receive of this message",
        [PC_PVMTASK] = "no task with this tid",
        [PC_THREAD] = "no thread started with this create sequence",
    };
    static const char *const dst[PC_COUNT] = {
        [PC_BYTES] = "no send wrote these bytes",
        [PC_CONN] = "no connect with this key",
        [PC_DGRAM] = "no send of this datagram",
        [PC_PVM] = "no send of this message",
        [PC_PVMTASK] = "no spawn of this task",
        [PC_LOCK] = "no release with this sequence",
        [PC_COND] = "no signal with this sequence",
        [PC_BARRIER] = "no arrival in this episode",
        [PC_SEM] = "no post of this token",
        [PC_THREAD] = "no thread-create with this create sequence",
        [PC_JOIN] = "no end of the joined thread",
    };
    const char *s = it->cls < PC_COUNT ? (it->side == PAG_SRC ? src : dst)[it->cls] : NULL;
    return s ? s : "no partner";
}

char *pag_item_warning(const struct ips2_pag *pag, const struct pag_item *it)
{
    char who[200], key[160], *s = NULL;
    uint32_t th = it->thread;

    if (th == IPS2_PAG_NONE && it->gid != NO_GID)
        th = pag_thread_of(pag, IPS2_PAG_GID_NODE(it->gid));
    if (th < pag->nthreads && pag->threads[th].process < pag->nprocesses) {
        const struct ips2_pag_process *p = &pag->processes[pag->threads[th].process];
        const char *app = p->app < pag->napps && pag->apps[p->app] < pag->nstrings
                              ? pag->strings[pag->apps[p->app]]
                              : "?";
        snprintf(who, sizeof(who), "process %d (%s) thread %d", (int)p->pid, app,
                 (int)pag->threads[th].tid);
    } else {
        snprintf(who, sizeof(who), "an unknown thread");
    }
    switch (it->cls) {
    case PC_BYTES:
        snprintf(key, sizeof(key), "stream %#llx bytes [%llu, %llu)", (unsigned long long)it->k[0],
                 (unsigned long long)it->k[1], (unsigned long long)(it->k[1] + it->k[2]));
        break;
    case PC_PVM:
        snprintf(key, sizeof(key), "t%llx -> t%llx context %llu tag %llu seq %llu",
                 (unsigned long long)(it->k[0] >> 32), (unsigned long long)(it->k[0] & 0xffffffff),
                 (unsigned long long)(it->k[1] >> 32), (unsigned long long)(it->k[1] & 0xffffffff),
                 (unsigned long long)it->k[2]);
        break;
    default:
        snprintf(key, sizeof(key), "key %#llx %#llx %#llx", (unsigned long long)it->k[0],
                 (unsigned long long)it->k[1], (unsigned long long)it->k[2]);
        break;
    }
    const char *kind = it->kind == IPS2_PAG_BEGIN ? "begin"
                       : it->kind == IPS2_PAG_END ? "end"
                                                  : ips2_kind_name(it->kind);
    if (asprintf(&s, "%s: %s at %lld.%09lld s (%s): %s", who, kind,
                 (long long)(it->wall / 1000000000),
                 (long long)(it->wall % 1000000000 < 0 ? -(it->wall % 1000000000)
                                                       : it->wall % 1000000000),
                 key, what_missing(it)) < 0)
        s = NULL;
    return s;
}

/* ---- across parts -------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

static bool traced(const uint64_t *tids, size_t n, uint64_t tid)
{
    return bsearch(&tid, tids, n, sizeof(*tids), cmp_u64) != NULL;
}

/* Whether an unpaired PVM end only misses a partner nobody traced (the
 * pvmd, the slave, a task outside the session): no warning then. */
static bool untraced_partner(const struct pag_item *it, const uint64_t *tids, size_t n)
{
    switch (it->cls) {
    case PC_PVM:
        return !traced(tids, n, it->side == PAG_DST ? it->k[0] >> 32 : it->k[0] & 0xffffffff);
    case PC_PVMTASK:
        return it->side == PAG_DST && !traced(tids, n, it->k[1]);
    default:
        return false;
    }
}

int pag_end_items(struct ips2_pag **parts, size_t n, struct pag_item **items_out,
                  size_t *nitems_out, uint64_t **tids_out, size_t *ntids_out, char *err,
                  size_t errlen)
{
    size_t nitems = 0, ntids = 0;
    struct pag_item *items = NULL;
    uint64_t *tids = NULL;

    *items_out = NULL;
    *tids_out = NULL;
    *nitems_out = *ntids_out = 0;
    for (size_t p = 0; p < n; p++) {
        if (parts[p]->part != p) {
            snprintf(err, errlen, "part %zu (%s) says it is part %u", p,
                     parts[p]->machine ? parts[p]->machine : "?", parts[p]->part);
            return -1;
        }
        nitems += parts[p]->nends;
    }
    if (nitems == 0)
        return 0;
    if (!(items = calloc(nitems, sizeof(*items))) || !(tids = calloc(nitems, sizeof(*tids)))) {
        free(items);
        snprintf(err, errlen, "out of memory matching the PAG's ends");
        return -1;
    }
    nitems = 0;
    for (size_t p = 0; p < n; p++) {
        for (size_t i = 0; i < parts[p]->nends; i++) {
            const struct ips2_pag_end *e = &parts[p]->ends[i];
            struct pag_item *it = &items[nitems];
            unsigned cls = e->role / 2;
            if (cls == 0 || cls >= PC_COUNT || !pag_class_crosses(cls, PI_IP))
                continue; /* not a role that crosses: ignore it */
            memset(it, 0, sizeof(*it));
            it->cls = (uint16_t)cls;
            it->side = e->role & 1;
            memcpy(it->k, e->key, sizeof(e->key));
            it->gid = IPS2_PAG_GID(p, e->node);
            it->ref = NO_GID;
            it->wall = e->wall;
            it->ws = e->wait_start;
            it->ref_ws = INT64_MIN;
            it->prev = NO_GID;
            if (cls == PC_PVMBAR && e->key[2] <= UINT32_MAX &&
                pag_thread_of(parts[p], (uint32_t)e->key[2]) == pag_thread_of(parts[p], e->node))
                it->prev = IPS2_PAG_GID(p, e->key[2]);
            it->kind = e->kind;
            it->flags = PI_IP;
            it->thread = pag_thread_of(parts[p], e->node);
            if (cls == PC_PVMTID)
                tids[ntids++] = e->key[0];
            nitems++;
        }
    }
    qsort(tids, ntids, sizeof(*tids), cmp_u64);
    *items_out = items;
    *nitems_out = nitems;
    *tids_out = tids;
    *ntids_out = ntids;
    return 0;
}

int ips2_pag_match_ends(struct ips2_pag **parts, size_t n, char *err, size_t errlen)
{
    size_t nitems = 0, ntids = 0;
    struct pag_item *items = NULL;
    uint64_t *tids = NULL;
    struct pag_pairs pairs = {0};
    int rc = -1;

    if (pag_end_items(parts, n, &items, &nitems, &tids, &ntids, err, errlen) < 0)
        return -1;
    if (items == NULL)
        return 0; /* no part has an end */
    if (!pag_match_items(items, nitems, true, &pairs))
        goto oom;
    /* the machines' clocks, corrected by the messages (pag_clocks.c) */
    if (!pag_clock_pass(items, nitems, &pairs, n, NULL))
        goto oom;

    /* arcs into their destination parts, outs into their source parts */
    for (size_t p = 0; p < n; p++) {
        size_t cnt = 0, k = 0, nouts = 0;
        for (size_t i = 0; i < pairs.n; i++) {
            cnt += IPS2_PAG_GID_PART(pairs.v[i].to) == p;
            nouts +=
                IPS2_PAG_GID_PART(pairs.v[i].from) == p && IPS2_PAG_GID_PART(pairs.v[i].to) != p;
        }
        struct ips2_pag_arc *arcs = cnt ? malloc(cnt * sizeof(*arcs)) : NULL;
        if (cnt && !arcs)
            goto oom;
        for (size_t i = 0; i < pairs.n; i++) {
            const struct pag_pair *q = &pairs.v[i];
            if (IPS2_PAG_GID_PART(q->to) != p)
                continue;
            arcs[k].from = q->from;
            arcs[k].to = IPS2_PAG_GID_NODE(q->to);
            arcs[k].type = q->type;
            arcs[k].label = q->label;
            arcs[k].weight = q->weight;
            k++;
        }
        bool ok = pag_add_arcs(parts[p], arcs, k);
        free(arcs);
        if (!ok)
            goto oom;
        if (nouts) {
            struct ips2_pag_out *o =
                realloc(parts[p]->outs, (parts[p]->nouts + nouts) * sizeof(*o));
            if (!o)
                goto oom;
            parts[p]->outs = o;
            for (size_t i = 0; i < pairs.n; i++) {
                const struct pag_pair *q = &pairs.v[i];
                if (IPS2_PAG_GID_PART(q->from) != p || IPS2_PAG_GID_PART(q->to) == p)
                    continue;
                struct ips2_pag_out *out = &parts[p]->outs[parts[p]->nouts++];
                out->from = IPS2_PAG_GID_NODE(q->from);
                out->reserved = 0;
                out->to = q->to;
            }
        }
    }

    /* what stays unpaired: a warning of its part */
    size_t *more = calloc(n, sizeof(*more));
    if (!more)
        goto oom;
    for (size_t i = 0; i < nitems; i++) {
        const struct pag_item *it = &items[i];
        struct ips2_pag *pag = parts[IPS2_PAG_GID_PART(it->gid)];
        if ((it->flags & PI_DONE) || !pag_item_warns(it) || untraced_partner(it, tids, ntids))
            continue;
        if (pag->nwarnings < PAG_MAX_WARNINGS)
            pag_add_warning(pag, pag_item_warning(pag, it));
        else
            more[IPS2_PAG_GID_PART(it->gid)]++;
    }
    for (size_t p = 0; p < n; p++) {
        char *s = NULL;
        if (more[p] && asprintf(&s, "%zu more events without their partners", more[p]) >= 0)
            pag_add_warning(parts[p], s);
        parts[p]->nends = 0;
    }
    free(more);
    rc = 0;
    goto out;
oom:
    snprintf(err, errlen, "out of memory matching the PAG's ends");
out:
    free(items);
    free(tids);
    free(pairs.v);
    return rc;
}
