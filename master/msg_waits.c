/*
 * msg_waits.c - message patterns over the global PAG (msg_waits.h): per
 * channel waits (late sender, late receiver) and master-worker groups.
 *
 * One pass over every part's message arcs (sorted by destination, so the
 * arcs into one receive are adjacent) finds each receive's channel and
 * times: the call starts the PAG does not keep are found from the arc's
 * weight or from the thread's previous node and the CPU it used since
 * (msg_waits.h says how).  Channels are looked up in an open-addressing
 * table by (sender thread, receiver thread, transport, PVM tag).  Then each
 * process's partners (a channel each way) give the master-worker groups:
 * a process with >= 2 partners, each of which has fewer partners than it
 * (a star's centre, not a member of an all-to-all exchange).
 */
#include "msg_waits.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpa.h"
#include "ips2_format.h"
#include "tables.h"

/* A receive that ended within this of its start found its message
 * waiting (a copy, a wake-up), as it does from a sender blocked for it. */
#define FOUND_WAITING_NS 1000000

void msg_waits_request_init(struct msg_waits_request *r)
{
    *r = (struct msg_waits_request){.from = INT64_MIN, .to = INT64_MAX};
}

/* ---- the parts' things ------------------------------------------------------ */

static const char *part_string(const struct ips2_pag *p, uint32_t i)
{
    return i < p->nstrings && p->strings[i] != NULL ? p->strings[i] : "?";
}

static const char *app_name(const struct ips2_pag *p, uint32_t process)
{
    uint32_t app = p->processes[process].app;
    return app < p->napps ? part_string(p, p->apps[app]) : "?";
}

static const char *transport_of(uint16_t recv_kind)
{
    switch (recv_kind) {
    case IPS2_EV_RECV:
        return "stream";
    case IPS2_EV_DGRAM_RECV:
        return "datagram";
    case IPS2_EV_PVM_RECV:
        return "pvm";
    default:
        return NULL; /* accept, or not a message's receive */
    }
}

static bool is_send(uint16_t kind)
{
    return kind == IPS2_EV_SEND || kind == IPS2_EV_DGRAM_SEND || kind == IPS2_EV_PVM_SEND;
}

/* The node before node i in its thread, or NULL for a thread's first. */
static const struct ips2_pag_node *previous_node(const struct ips2_pag *p, uint32_t i)
{
    const struct ips2_pag_thread *t = &p->threads[p->nodes[i].thread];
    return i > t->first ? &p->nodes[i - 1] : NULL;
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* When the call that ended at node i began, if its thread ran from its
 * previous node up to the call: the previous node's time plus the CPU it
 * used since, within [that time, limit]. */
static int64_t call_start(const struct ips2_pag *p, uint32_t i, int64_t limit)
{
    const struct ips2_pag_node *prev = previous_node(p, i);
    if (prev == NULL)
        return limit;
    int64_t lo = prev->wall, hi = limit > lo ? limit : lo;
    return clamp(prev->wall + p->nodes[i].cpu, lo, hi);
}

/* ---- the computation's state ------------------------------------------------ */

struct channel_key {
    uint32_t send_part, send_thread, recv_part, recv_thread;
    const char *transport;
    uint16_t label; /* the arcs' (a PVM tag + 1) */
};

struct process_ref {
    uint32_t part, process;
};

struct scan {
    struct ips2_pag *const *parts;
    size_t nparts;
    const struct msg_waits_request *r;
    struct msg_waits *w;
    size_t capchannels;
    struct channel_key *keys; /* by channel */
    struct process_ref *ends; /* by channel: sender's, receiver's process */
    size_t *slots;            /* hash: channel index + 1, 0 empty */
    size_t nslots;
};

static uint64_t key_hash(const struct channel_key *k)
{
    uint64_t h = 1469598103934665603u;
    const uint32_t v[4] = {k->send_part, k->send_thread, k->recv_part, k->recv_thread};
    for (int i = 0; i < 4; i++)
        h = (h ^ v[i]) * 1099511628211u;
    h = (h ^ k->label) * 1099511628211u;
    return (h ^ (uintptr_t)k->transport) * 1099511628211u;
}

static bool key_equal(const struct channel_key *a, const struct channel_key *b)
{
    return a->send_part == b->send_part && a->send_thread == b->send_thread &&
           a->recv_part == b->recv_part && a->recv_thread == b->recv_thread &&
           a->transport == b->transport && a->label == b->label;
}

static int rehash(struct scan *sc)
{
    size_t n = sc->nslots ? 2 * sc->nslots : 64;
    size_t *slots = calloc(n, sizeof *slots);
    if (slots == NULL)
        return -1;
    for (size_t c = 0; c < sc->w->nchannels; c++) {
        size_t i = key_hash(&sc->keys[c]) & (n - 1);
        while (slots[i] != 0)
            i = (i + 1) & (n - 1);
        slots[i] = c + 1;
    }
    free(sc->slots);
    sc->slots = slots;
    sc->nslots = n;
    return 0;
}

/* "alpha/1234", or "alpha/1234.1240" for a thread that is not the
 * process's first. */
static char *end_name(const struct ips2_pag *p, uint32_t thread)
{
    const struct ips2_pag_thread *t = &p->threads[thread];
    const struct ips2_pag_process *pr = &p->processes[t->process];
    char *s = NULL;
    int rc = t->tid == pr->pid ? asprintf(&s, "%s/%d", p->machine ? p->machine : "?", (int)pr->pid)
                               : asprintf(&s, "%s/%d.%d", p->machine ? p->machine : "?",
                                          (int)pr->pid, (int)t->tid);
    return rc < 0 ? NULL : s;
}

static char *process_path(const struct ips2_pag *p, uint32_t process)
{
    char *s = NULL;
    int rc = asprintf(&s, "app:%s/machine:%s/process:%d", app_name(p, process),
                      p->machine ? p->machine : "?", (int)p->processes[process].pid);
    return rc < 0 ? NULL : s;
}

static char *thread_path(const struct ips2_pag *p, uint32_t thread)
{
    const struct ips2_pag_thread *t = &p->threads[thread];
    char *s = NULL;
    int rc =
        asprintf(&s, "app:%s/machine:%s/process:%d/thread:%d", app_name(p, t->process),
                 p->machine ? p->machine : "?", (int)p->processes[t->process].pid, (int)t->tid);
    return rc < 0 ? NULL : s;
}

/* The TCP port of a connection between process a of part pa and process
 * b of part pb: a connection key one of them accepted and the other made
 * (cpa/ips2_pag.h's ports), the listening port; 0 if none is known. */
static unsigned tcp_port(const struct ips2_pag *pa, uint32_t a, const struct ips2_pag *pb,
                         uint32_t b)
{
    for (size_t i = 0; i < pa->nports; i++) {
        const struct ips2_pag_port *x = &pa->ports[i];
        if (x->process != a)
            continue;
        for (size_t j = 0; j < pb->nports; j++) {
            const struct ips2_pag_port *y = &pb->ports[j];
            if (y->process == b && y->key == x->key && y->role != x->role)
                return x->port;
        }
    }
    return 0;
}

static int name_channel(struct scan *sc, struct msg_channel *c, const struct channel_key *k)
{
    const struct ips2_pag *sp = sc->parts[k->send_part], *rp = sc->parts[k->recv_part];
    char *from = end_name(sp, k->send_thread), *to = end_name(rp, k->recv_thread);
    unsigned port = strcmp(k->transport, "stream") == 0
                        ? tcp_port(sp, sp->threads[k->send_thread].process, rp,
                                   rp->threads[k->recv_thread].process)
                        : 0;
    int rc = from == NULL || to == NULL ? -1
             : k->label > 0 ? asprintf(&c->name, "channel:%s->%s %s tag %d", from, to, k->transport,
                                       k->label - 1)
             : port > 0     ? asprintf(&c->name, "channel:%s->%s tcp port %u", from, to, port)
                            : asprintf(&c->name, "channel:%s->%s %s", from, to, k->transport);
    if (rc < 0)
        c->name = NULL;
    free(from);
    free(to);
    c->transport = k->transport;
    c->sender_process = process_path(sp, sp->threads[k->send_thread].process);
    c->receiver_process = process_path(rp, rp->threads[k->recv_thread].process);
    c->sender_thread = thread_path(sp, k->send_thread);
    c->receiver_thread = thread_path(rp, k->recv_thread);
    c->bytes = -1;
    c->first = INT64_MAX;
    c->last = INT64_MIN;
    for (int i = 0; i < MSG_WAIT_KINDS && sc->r->nbuckets > 0; i++)
        if ((c->hist[i] = calloc(sc->r->nbuckets, sizeof *c->hist[i])) == NULL)
            return -1;
    return c->name && c->sender_process && c->receiver_process && c->sender_thread &&
                   c->receiver_thread
               ? 0
               : -1;
}

/* The channel of key k, made if new; NULL when out of memory. */
static struct msg_channel *channel_of(struct scan *sc, const struct channel_key *k)
{
    struct msg_waits *w = sc->w;
    if (4 * (w->nchannels + 1) > 3 * sc->nslots && rehash(sc) != 0)
        return NULL;
    size_t i = key_hash(k) & (sc->nslots - 1);
    for (; sc->slots[i] != 0; i = (i + 1) & (sc->nslots - 1))
        if (key_equal(&sc->keys[sc->slots[i] - 1], k))
            return &w->channels[sc->slots[i] - 1];
    if (w->nchannels == sc->capchannels) {
        size_t n = sc->capchannels ? 2 * sc->capchannels : 16;
        struct msg_channel *c = realloc(w->channels, n * sizeof *c);
        if (c != NULL)
            w->channels = c;
        struct channel_key *kk = realloc(sc->keys, n * sizeof *kk);
        if (kk != NULL)
            sc->keys = kk;
        struct process_ref *e = realloc(sc->ends, 2 * n * sizeof *e);
        if (e != NULL)
            sc->ends = e;
        if (c == NULL || kk == NULL || e == NULL)
            return NULL;
        sc->capchannels = n;
    }
    struct msg_channel *c = &w->channels[w->nchannels];
    *c = (struct msg_channel){0};
    sc->keys[w->nchannels] = *k;
    sc->ends[2 * w->nchannels] = (struct process_ref){
        k->send_part, sc->parts[k->send_part]->threads[k->send_thread].process};
    sc->ends[2 * w->nchannels + 1] = (struct process_ref){
        k->recv_part, sc->parts[k->recv_part]->threads[k->recv_thread].process};
    sc->slots[i] = ++w->nchannels;
    return name_channel(sc, c, k) == 0 ? c : NULL;
}

/* Adds the wait [a, b), clipped to the request's window, to a channel's
 * total and histogram of kind. */
static void add_wait(struct scan *sc, struct msg_channel *c, int kind, int64_t a, int64_t b)
{
    const struct msg_waits_request *r = sc->r;
    if (a < r->from)
        a = r->from;
    if (b > r->to)
        b = r->to;
    if (b <= a)
        return;
    c->wait[kind] += b - a;
    if (c->hist[kind] == NULL || r->hist_width <= 0)
        return;
    int64_t start = r->hist_start, width = r->hist_width;
    int64_t end = start + (int64_t)r->nbuckets * width;
    if (a < start)
        a = start;
    if (b > end)
        b = end;
    for (int64_t t = a; t < b;) {
        size_t i = (size_t)((t - start) / width);
        int64_t bucket_end = start + (int64_t)(i + 1) * width;
        int64_t upto = b < bucket_end ? b : bucket_end;
        c->hist[kind][i] += upto - t;
        t = upto;
    }
}

static bool app_matches(struct scan *sc, const struct ips2_pag *p, uint32_t thread)
{
    const char *app = sc->r->app;
    return app == NULL || *app == '\0' || strcmp(app, app_name(p, p->threads[thread].process)) == 0;
}

/* The receive at node `to` of part k and the message arcs into it,
 * arcs[0..n). */
static int one_receive(struct scan *sc, uint32_t k, const struct ips2_pag_arc *arcs, size_t n)
{
    const struct ips2_pag *rp = sc->parts[k];
    const struct ips2_pag_node *recv = &rp->nodes[arcs[0].to];
    const char *transport = transport_of(recv->kind);
    if (transport == NULL || recv->wall < sc->r->from || recv->wall >= sc->r->to)
        return 0;
    const struct ips2_pag_arc *last = NULL; /* the arc whose send ended last */
    const struct ips2_pag *last_part = NULL;
    struct msg_channel *last_channel = NULL;
    for (size_t i = 0; i < n; i++) {
        uint32_t spn = IPS2_PAG_GID_PART(arcs[i].from), sn = IPS2_PAG_GID_NODE(arcs[i].from);
        if (spn >= sc->nparts || sn >= sc->parts[spn]->nnodes)
            continue;
        const struct ips2_pag *sp = sc->parts[spn];
        const struct ips2_pag_node *send = &sp->nodes[sn];
        if (!is_send(send->kind) ||
            (!app_matches(sc, sp, send->thread) && !app_matches(sc, rp, recv->thread)))
            continue;
        struct channel_key key = {spn, send->thread, k, recv->thread, transport, arcs[i].label};
        struct msg_channel *c = channel_of(sc, &key);
        if (c == NULL)
            return -1;
        c->messages++;
        if (send->wall < c->first)
            c->first = send->wall;
        if (recv->wall > c->last)
            c->last = recv->wall;
        if (last == NULL || send->wall > last_part->nodes[IPS2_PAG_GID_NODE(last->from)].wall) {
            last = &arcs[i];
            last_part = sp;
            last_channel = c;
        }
    }
    if (last == NULL)
        return 0;
    uint32_t sn = IPS2_PAG_GID_NODE(last->from);
    int64_t sw = last_part->nodes[sn].wall, rw = recv->wall;
    int64_t ws; /* the receive's start */
    if (last->weight < rw - sw)
        ws = rw - last->weight; /* it began after the send ended: the weight says when */
    else
        ws = call_start(rp, arcs[0].to, sw < rw ? sw : rw);
    /* the sender was ready to send once it had used its CPU */
    int64_t ready = call_start(last_part, sn, sw);
    add_wait(sc, last_channel, MSG_WAIT_RECEIVE, ws, rw);
    if (rw - ws > last_channel->longest_wait || last_channel->receiver_procedure == NULL) {
        char *rproc = strdup(recv->proc != IPS2_PAG_NONE ? part_string(rp, recv->proc) : "");
        const struct ips2_pag_node *send = &last_part->nodes[sn];
        char *sproc = strdup(send->proc != IPS2_PAG_NONE ? part_string(last_part, send->proc) : "");
        if (rproc == NULL || sproc == NULL) {
            free(rproc);
            free(sproc);
            return -1;
        }
        free(last_channel->receiver_procedure);
        free(last_channel->sender_procedure);
        last_channel->receiver_procedure = rproc;
        last_channel->sender_procedure = sproc;
        last_channel->longest_wait = rw - ws;
    }
    if (ws > ready && ws <= sw && sw - ws <= ws - ready && rw - ws <= FOUND_WAITING_NS)
        add_wait(sc, last_channel, MSG_WAIT_LATE_RECEIVER, ready, ws);
    else
        add_wait(sc, last_channel, MSG_WAIT_LATE_SENDER, ws, sw < rw ? sw : rw);
    return 0;
}

static int scan_channels(struct scan *sc)
{
    for (uint32_t k = 0; k < sc->nparts; k++) {
        const struct ips2_pag *p = sc->parts[k];
        for (size_t i = 0; i < p->narcs;) {
            size_t j = i;
            while (j < p->narcs && p->arcs[j].to == p->arcs[i].to)
                j++;
            /* the message arcs into node arcs[i].to, among its other arcs
             * (arcs into one node are sorted by source, types mixed) */
            size_t nmsg = 0;
            for (size_t a = i; a < j; a++)
                nmsg += p->arcs[a].type == IPS2_PAG_ARC_MESSAGE;
            if (nmsg > 0 && p->arcs[i].to < p->nnodes) {
                struct ips2_pag_arc *msgs = malloc(nmsg * sizeof *msgs);
                if (msgs == NULL)
                    return -1;
                size_t m = 0;
                for (size_t a = i; a < j; a++)
                    if (p->arcs[a].type == IPS2_PAG_ARC_MESSAGE)
                        msgs[m++] = p->arcs[a];
                int rc = one_receive(sc, k, msgs, nmsg);
                free(msgs);
                if (rc != 0)
                    return -1;
            }
            i = j;
        }
    }
    return 0;
}

/* ---- master-worker groups --------------------------------------------------- */

/* CPU of a process's threads within the request's window (a CPU arc cut by
 * the window counts in proportion). */
static int64_t process_cpu(const struct scan *sc, struct process_ref pr)
{
    const struct ips2_pag *p = sc->parts[pr.part];
    int64_t from = sc->r->from, to = sc->r->to, sum = 0;
    for (uint32_t t = 0; t < p->nthreads; t++) {
        const struct ips2_pag_thread *th = &p->threads[t];
        if (th->process != pr.process)
            continue;
        for (uint32_t i = th->first + 1; i < th->first + th->count && i < p->nnodes; i++) {
            int64_t a = p->nodes[i - 1].wall, b = p->nodes[i].wall, cpu = p->nodes[i].cpu;
            if (a >= from && b <= to) {
                sum += cpu;
                continue;
            }
            int64_t lo = a > from ? a : from, hi = b < to ? b : to;
            if (hi > lo && b > a)
                sum += (int64_t)((double)cpu * (double)(hi - lo) / (double)(b - a));
        }
    }
    return sum;
}

/* Process-level traffic: one edge per (sender, receiver) process pair. */
struct edge {
    size_t from, to; /* indices in the process list */
    int64_t messages, wait;
};

struct graph {
    struct process_ref *procs;
    size_t nprocs;
    struct edge *edges;
    size_t nedges;
};

static size_t process_index(struct graph *g, struct process_ref pr)
{
    for (size_t i = 0; i < g->nprocs; i++)
        if (g->procs[i].part == pr.part && g->procs[i].process == pr.process)
            return i;
    g->procs[g->nprocs] = pr;
    return g->nprocs++;
}

static struct edge *edge_between(const struct graph *g, size_t from, size_t to)
{
    for (size_t i = 0; i < g->nedges; i++)
        if (g->edges[i].from == from && g->edges[i].to == to)
            return &g->edges[i];
    return NULL;
}

static int build_graph(const struct scan *sc, struct graph *g)
{
    size_t n = sc->w->nchannels;
    g->procs = malloc((2 * n + 1) * sizeof *g->procs);
    g->edges = malloc((n + 1) * sizeof *g->edges);
    if (g->procs == NULL || g->edges == NULL)
        return -1;
    for (size_t c = 0; c < n; c++) {
        size_t from = process_index(g, sc->ends[2 * c]), to = process_index(g, sc->ends[2 * c + 1]);
        if (from == to)
            continue;
        struct edge *e = edge_between(g, from, to);
        if (e == NULL) {
            e = &g->edges[g->nedges++];
            *e = (struct edge){.from = from, .to = to};
        }
        e->messages += sc->w->channels[c].messages;
        e->wait += sc->w->channels[c].wait[MSG_WAIT_RECEIVE];
    }
    return 0;
}

/* Process i's partners (a channel each way) into out (nprocs room). */
static size_t partners(const struct graph *g, size_t i, size_t *out)
{
    size_t n = 0;
    for (size_t e = 0; e < g->nedges; e++)
        if (g->edges[e].from == i && edge_between(g, g->edges[e].to, i) != NULL)
            out[n++] = g->edges[e].to;
    return n;
}

static int cmp_worker(const void *a, const void *b)
{
    return strcmp(((const struct msg_worker *)a)->process, ((const struct msg_worker *)b)->process);
}

static int add_group(struct scan *sc, const struct graph *g, size_t m, const size_t *ws, size_t nw)
{
    struct msg_waits *w = sc->w;
    struct msg_group *grown = realloc(w->groups, (w->ngroups + 1) * sizeof *grown);
    if (grown == NULL)
        return -1;
    w->groups = grown;
    struct msg_group *grp = &w->groups[w->ngroups++];
    *grp = (struct msg_group){0};
    struct process_ref mp = g->procs[m];
    grp->master = process_path(sc->parts[mp.part], mp.process);
    grp->master_busy = process_cpu(sc, mp);
    if (grp->master == NULL || (grp->workers = calloc(nw, sizeof *grp->workers)) == NULL)
        return -1;
    grp->nworkers = nw;
    int64_t sum = 0;
    for (size_t i = 0; i < nw; i++) {
        struct msg_worker *wk = &grp->workers[i];
        struct process_ref wp = g->procs[ws[i]];
        const struct edge *task = edge_between(g, m, ws[i]), *result = edge_between(g, ws[i], m);
        if ((wk->process = process_path(sc->parts[wp.part], wp.process)) == NULL)
            return -1;
        wk->busy = process_cpu(sc, wp);
        wk->wait_for_master = task->wait;
        wk->tasks = task->messages;
        wk->results = result->messages;
        grp->master_wait += result->wait;
        sum += wk->busy;
        if (wk->busy > grp->max_busy)
            grp->max_busy = wk->busy;
    }
    grp->mean_busy = sum / (int64_t)nw;
    grp->imbalance =
        grp->max_busy > 0 ? (double)(grp->max_busy - grp->mean_busy) / (double)grp->max_busy : 0;
    qsort(grp->workers, nw, sizeof *grp->workers, cmp_worker);
    return 0;
}

static int find_groups(struct scan *sc)
{
    struct graph g = {0};
    size_t *mine = NULL, *theirs = NULL;
    int rc = build_graph(sc, &g);
    if (rc == 0 && ((mine = malloc((g.nprocs + 1) * sizeof *mine)) == NULL ||
                    (theirs = malloc((g.nprocs + 1) * sizeof *theirs)) == NULL))
        rc = -1;
    for (size_t m = 0; rc == 0 && m < g.nprocs; m++) {
        size_t n = partners(&g, m, mine);
        bool centre = n >= 2;
        for (size_t i = 0; centre && i < n; i++)
            centre = partners(&g, mine[i], theirs) < n;
        if (centre)
            rc = add_group(sc, &g, m, mine, n);
    }
    free(mine);
    free(theirs);
    free(g.procs);
    free(g.edges);
    return rc;
}

/* ---- the answer --------------------------------------------------------------- */

static int cmp_channel(const void *a, const void *b)
{
    const struct msg_channel *x = a, *y = b;
    if (x->wait[MSG_WAIT_RECEIVE] != y->wait[MSG_WAIT_RECEIVE])
        return x->wait[MSG_WAIT_RECEIVE] > y->wait[MSG_WAIT_RECEIVE] ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int cmp_group(const void *a, const void *b)
{
    const struct msg_group *x = a, *y = b;
    if (x->imbalance != y->imbalance)
        return x->imbalance > y->imbalance ? -1 : 1;
    return strcmp(x->master, y->master);
}

static bool valid_request(const struct msg_waits_request *r, char *err, size_t errlen)
{
    if (r->from > r->to) {
        snprintf(err, errlen, "the window ends before it begins");
        return false;
    }
    if (r->nbuckets > 0 && r->hist_width <= 0) {
        snprintf(err, errlen, "a histogram needs a bucket width > 0");
        return false;
    }
    if (r->nbuckets > ((size_t)1 << 24)) {
        snprintf(err, errlen, "too many buckets (%zu)", r->nbuckets);
        return false;
    }
    return true;
}

/* The parts must be well formed (ips2_pag_read checked every index). */
static int compute(struct ips2_pag *const *parts, size_t n, const struct msg_waits_request *r,
                   struct msg_waits **out)
{
    struct msg_waits *w = calloc(1, sizeof *w);
    *out = NULL;
    if (w == NULL)
        return -1;
    w->hist_start = r->hist_start;
    w->hist_width = r->hist_width;
    w->nbuckets = r->nbuckets;
    struct scan sc = {.parts = parts, .nparts = n, .r = r, .w = w};
    int rc = scan_channels(&sc);
    if (rc == 0)
        rc = find_groups(&sc);
    free(sc.keys);
    free(sc.ends);
    free(sc.slots);
    if (rc != 0) {
        msg_waits_free(w);
        return -1;
    }
    for (size_t i = 0; i < w->nchannels; i++)
        if (w->channels[i].messages == 0)
            w->channels[i].first = w->channels[i].last = 0;
    if (w->nchannels > 1)
        qsort(w->channels, w->nchannels, sizeof *w->channels, cmp_channel);
    if (w->ngroups > 1)
        qsort(w->groups, w->ngroups, sizeof *w->groups, cmp_group);
    *out = w;
    return 0;
}

int msg_waits_from_parts(struct ips2_pag *const *parts, size_t n, const struct msg_waits_request *r,
                         struct msg_waits **out, char *err, size_t errlen)
{
    *out = NULL;
    if (!valid_request(r, err, errlen))
        return -1;
    if (compute(parts, n, r, out) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

struct session_call {
    const struct msg_waits_request *r;
    struct msg_waits *out;
};

static int on_parts(void *arg, const struct cpa_set *set, struct cpa_error *e)
{
    struct session_call *call = arg;
    if (compute(set->parts, set->n, call->r, &call->out) != 0)
        goto out_of_memory;
    struct msg_waits *w = call->out;
    if (set->nwarnings > 0 && (w->warnings = calloc(set->nwarnings, sizeof *w->warnings)) == NULL)
        goto out_of_memory;
    for (size_t i = 0; i < set->nwarnings; i++) {
        if ((w->warnings[i] = strdup(set->warnings[i])) == NULL)
            goto out_of_memory;
        w->nwarnings++;
    }
    return 0;
out_of_memory:
    msg_waits_free(call->out);
    call->out = NULL;
    snprintf(e->code, sizeof e->code, "MEMORY");
    snprintf(e->message, sizeof e->message, "out of memory");
    return -1;
}

int msg_waits_compute(struct cpa_session *s, const struct msg_waits_request *r,
                      struct msg_waits **out, struct cpa_error *e)
{
    *out = NULL;
    if (!valid_request(r, e->message, sizeof e->message)) {
        snprintf(e->code, sizeof e->code, "USAGE");
        return -1;
    }
    struct session_call call = {.r = r};
    if (cpa_session_with_parts(s, on_parts, &call, e) != 0)
        return -1;
    *out = call.out;
    return 0;
}

void msg_waits_free(struct msg_waits *w)
{
    if (w == NULL)
        return;
    for (size_t i = 0; i < w->nchannels; i++) {
        struct msg_channel *c = &w->channels[i];
        free(c->name);
        free(c->sender_process);
        free(c->receiver_process);
        free(c->sender_thread);
        free(c->receiver_thread);
        free(c->receiver_procedure);
        free(c->sender_procedure);
        for (int k = 0; k < MSG_WAIT_KINDS; k++)
            free(c->hist[k]);
    }
    free(w->channels);
    for (size_t i = 0; i < w->ngroups; i++) {
        struct msg_group *g = &w->groups[i];
        free(g->master);
        for (size_t j = 0; g->workers != NULL && j < g->nworkers; j++)
            free(g->workers[j].process);
        free(g->workers);
    }
    free(w->groups);
    for (size_t i = 0; i < w->nwarnings; i++)
        free(w->warnings[i]);
    free(w->warnings);
    free(w);
}

/* ---- tables ---------------------------------------------------------------- */

static struct ips2_table *new_table(const char *const *names, const char *const *units,
                                    size_t ncols)
{
    struct ips2_table *t = ips2_table_new(ncols);
    for (size_t c = 0; t != NULL && c < ncols; c++)
        if (ips2_table_column(t, c, names[c], units[c]) != 0) {
            ips2_table_free(t);
            return NULL;
        }
    return t;
}

struct ips2_table *msg_waits_channel_table(const struct msg_waits *w, char *err)
{
    static const char *const names[] = {
        "channel",           "transport", "sender",       "receiver",
        "messages",          "bytes",     "receive_wait", "late_sender",
        "late_receiver",     "first",     "last",         "sender_procedure",
        "receiver_procedure"};
    static const char *const units[] = {"",   "",   "",   "",   "", "", "ns",
                                        "ns", "ns", "ns", "ns", "", ""};
    struct ips2_table *t = new_table(names, units, 13);
    for (size_t i = 0; t != NULL && i < w->nchannels; i++) {
        const struct msg_channel *c = &w->channels[i];
        long row = ips2_table_row(t);
        if (row < 0 || ips2_table_str(t, (size_t)row, 0, c->name) ||
            ips2_table_str(t, (size_t)row, 1, c->transport) ||
            ips2_table_str(t, (size_t)row, 2, c->sender_thread) ||
            ips2_table_str(t, (size_t)row, 3, c->receiver_thread) ||
            ips2_table_str(t, (size_t)row, 11, c->sender_procedure ? c->sender_procedure : "") ||
            ips2_table_str(t, (size_t)row, 12,
                           c->receiver_procedure ? c->receiver_procedure : "")) {
            ips2_table_free(t);
            t = NULL;
            break;
        }
        const int64_t v[] = {c->messages,
                             c->bytes,
                             c->wait[MSG_WAIT_RECEIVE],
                             c->wait[MSG_WAIT_LATE_SENDER],
                             c->wait[MSG_WAIT_LATE_RECEIVER],
                             c->first,
                             c->last};
        for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
            ips2_table_int(t, (size_t)row, 4 + k, v[k]);
    }
    if (t == NULL)
        snprintf(err, IPS2_ERR_MAX, "out of memory");
    return t;
}

struct ips2_table *msg_waits_group_table(const struct msg_waits *w, char *err)
{
    static const char *const names[] = {"master", "worker",  "busy",        "wait_for_master",
                                        "tasks",  "results", "master_wait", "imbalance"};
    static const char *const units[] = {"", "", "ns", "ns", "", "", "ns", "ratio"};
    struct ips2_table *t = new_table(names, units, 8);
    for (size_t i = 0; t != NULL && i < w->ngroups; i++) {
        const struct msg_group *g = &w->groups[i];
        for (size_t j = 0; t != NULL && j < g->nworkers; j++) {
            const struct msg_worker *wk = &g->workers[j];
            long row = ips2_table_row(t);
            if (row < 0 || ips2_table_str(t, (size_t)row, 0, g->master) ||
                ips2_table_str(t, (size_t)row, 1, wk->process)) {
                ips2_table_free(t);
                t = NULL;
                break;
            }
            ips2_table_int(t, (size_t)row, 2, wk->busy);
            ips2_table_int(t, (size_t)row, 3, wk->wait_for_master);
            ips2_table_int(t, (size_t)row, 4, wk->tasks);
            ips2_table_int(t, (size_t)row, 5, wk->results);
            ips2_table_int(t, (size_t)row, 6, g->master_wait);
            ips2_table_real(t, (size_t)row, 7, g->imbalance);
        }
    }
    if (t == NULL)
        snprintf(err, IPS2_ERR_MAX, "out of memory");
    return t;
}
