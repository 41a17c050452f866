/*
 * pag_build.c - one part of the PAG, built while the reduction streams
 * through a machine's traces (pag_build.h; the rules are cpa/PAG.md).
 *
 * Nodes go straight into the part's arrays, thread after thread, in time
 * order: the thread's begin, every interaction event that can be an arc's
 * end, the thread's end.  A node's CPU arc (from the thread's previous
 * node) weighs min(CPU, wall) between them and its shares are the CPU per
 * procedure the reduction counted meanwhile, scaled down to that weight.
 * Each node that may pair gets an item (pag_internal.h) holding its key;
 * so do a few facts (a thread's end, a process's head and exit, a
 * sync-init, a PVM tid).  At the end, pag_match.c pairs the items into
 * arcs; what stays unpaired becomes an end (it may pair with another
 * machine's) or a warning.  Items are the only memory that does not stay
 * in the part, and they are freed with the builder.
 *
 * Lock releases and condition signals, most of which nobody waited for,
 * get a 24-byte `lite` record instead of an item: at the end only those
 * whose key a waiting acquisition or a wake names become items.  Then
 * pag_fold.c folds every node that paired with nothing into the next one
 * of its thread (PAG.md §5).
 *
 * The shares, most of a server's part, never stay in memory as they are:
 * each node's go into a zstd stream as soon as the node is made (the
 * thread's procedures as the reduction's local indices, with each thread's
 * names kept apart: they are known when the thread ends), with a bit per
 * node saying whether they add up to its CPU arc's weight.  Folding reads
 * that stream once and compresses the part's shares, which stay compressed
 * in the part (pag->lazy) for ips2_pag_write to copy into the file, or are
 * inflated for a caller that wants them in memory.
 */
#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ips2_fields.h"
#include "pag_build.h"
#include "pag_internal.h"

#define NO_GID UINT64_MAX

/* A lock release or a condition signal whose item would have its node's
 * wall and the node before it (the usual case): its class and key; the
 * scope comes from the node's process (PAG.md §2). */
struct pag_lite {
    uint64_t object; /* the sync key */
    uint64_t seq;    /* release or signal seq */
    uint32_t node;
    uint16_t cls, kind;
};

struct pag_builder {
    struct ips2_pag *p;
    size_t cap_apps, cap_processes, cap_threads, cap_nodes, cap_ports;
    struct ips2_strtab strings;
    struct pag_item *items;
    size_t nitems, cap_items;
    struct pag_lite *lites;
    size_t nlites, cap_lites;
    struct pag_bytes *bytes; /* sends and receives (pag_bytes.c) */
    uint64_t *ipkeys;        /* stream keys of TCP and UDP descriptors */
    size_t nipkeys, cap_ipkeys;
    bool oom;
    bool lost_shares; /* a dropped thread's shares were compressed already */
    bool lazy;        /* give the part with its shares compressed (pag->lazy) */
    bool fold;        /* fold the part when it is finished (PAG.md §5) */

    /* the shares: the current node's, then compressed (the part's count
     * in p->nshares) */
    struct ips2_pag_share *stage;
    size_t nstage, cap_stage;
    struct pag_zbuf *spool;
    uint8_t *inexact; /* a bit per node: its shares do not add up to its CPU arc */
    size_t cap_inexact;
    /* per thread: its procedures' names (pag_fold_in) */
    uint32_t *tnames;
    size_t ntnames, cap_tnames;
    size_t *name_at;
    uint32_t *name_n;
    size_t cap_name_threads;
    /* the current thread's local procedures that shares name, in the
     * order they first did */
    uint32_t *order;
    size_t norder, cap_order;
    uint8_t *seen;
    size_t nseen;
    bool keep_messages; /* ... keeping every message's node */

    /* the current image */
    bool in_image;
    uint32_t process;
    int32_t pid;
    uint32_t image, ppid;
    uint32_t first_thread;
    uint64_t head;     /* gid of its first thread's begin */
    uint64_t exit_end; /* gid of the end of the thread that recorded its exit */
    int64_t exit_end_wall;
    uint64_t last_end; /* gid of its latest-ending thread's end */
    int64_t last_end_wall;

    /* the current thread */
    bool in_thread;
    uint32_t thread;
    size_t node_mark, share_mark, item_mark, lite_mark, ipkey_mark, port_mark;
    bool begun;
    uint32_t last; /* its latest node */
    int64_t last_t;
    bool has_before; /* the node before it */
    uint32_t before;
    uint64_t last_c;
    uint64_t create_seq;
    bool proc_start, exec_exit;
    int32_t thread_exit_how;
    int64_t join_begin;
    bool in_join;
    uint64_t arrive_key, arrive_gid; /* its latest barrier arrival */
    uint32_t *names;                 /* local procedure -> string + 1 (0: not yet) */
    size_t nnames;
};

static uint32_t str(struct pag_builder *b, const char *s)
{
    uint32_t i = ips2_strtab_intern(&b->strings, s ? s : "");
    if (i == IPS2_STRTAB_NONE)
        b->oom = true;
    return i;
}

struct pag_builder *pag_builder_new(void)
{
    struct pag_builder *b = calloc(1, sizeof(*b));

    if (!b)
        return NULL;
    if (!(b->p = calloc(1, sizeof(*b->p))) || !(b->bytes = pag_bytes_new())) {
        free(b->p);
        free(b);
        return NULL;
    }
    const char *f = getenv("IPS2_PAG_FOLD");
    b->fold = !(f && !strcmp(f, "0"));
    b->keep_messages = f && !strcmp(f, "messages");
    return b;
}

void pag_builder_set_fold(struct pag_builder *b, bool fold)
{
    b->fold = fold;
}

void pag_builder_free(struct pag_builder *b)
{
    if (!b)
        return;
    ips2_pag_free(b->p);
    ips2_strtab_free(&b->strings);
    free(b->items);
    free(b->lites);
    pag_bytes_free(b->bytes);
    free(b->ipkeys);
    free(b->names);
    free(b->stage);
    pag_zbuf_free(b->spool);
    free(b->inexact);
    free(b->tnames);
    free(b->name_at);
    free(b->name_n);
    free(b->order);
    free(b->seen);
    free(b);
}

void pag_builder_set_lazy(struct pag_builder *b, bool lazy)
{
    b->lazy = lazy;
}

static uint64_t gid(uint32_t node)
{
    return IPS2_PAG_GID(0, node);
}

/* ---- images and threads -------------------------------------------------- */

void pag_image_begin(struct pag_builder *b, const char *app, const char *exe, int32_t pid,
                     uint32_t image, uint32_t ppid)
{
    struct ips2_pag *p = b->p;
    uint32_t a = str(b, app), app_idx = IPS2_PAG_NONE;

    for (size_t i = 0; i < p->napps; i++)
        if (p->apps[i] == a)
            app_idx = (uint32_t)i;
    if (app_idx == IPS2_PAG_NONE) {
        uint32_t *slot = PAG_PUSH(p->apps, p->napps, b->cap_apps);
        if (!slot) {
            b->oom = true;
            return;
        }
        *slot = a;
        app_idx = (uint32_t)p->napps - 1;
    }
    struct ips2_pag_process *pr = PAG_PUSH(p->processes, p->nprocesses, b->cap_processes);
    if (!pr) {
        b->oom = true;
        return;
    }
    pr->app = app_idx;
    pr->pid = pid;
    pr->image = image;
    pr->name = str(b, exe);
    b->in_image = true;
    b->process = (uint32_t)p->nprocesses - 1;
    b->pid = pid;
    b->image = image;
    b->ppid = ppid;
    b->first_thread = (uint32_t)p->nthreads;
    b->head = NO_GID;
    b->exit_end = b->last_end = NO_GID;
    b->last_end_wall = INT64_MIN;
}

static struct pag_item *item(struct pag_builder *b, unsigned cls, unsigned side, uint64_t g,
                             int64_t wall, unsigned kind)
{
    struct pag_item *it = PAG_PUSH(b->items, b->nitems, b->cap_items);

    if (!it) {
        b->oom = true;
        return NULL;
    }
    memset(it, 0, sizeof(*it));
    it->cls = (uint16_t)cls;
    it->side = (uint16_t)side;
    it->gid = g;
    it->ref = NO_GID;
    it->wall = wall;
    it->ws = INT64_MIN;
    it->ref_wall = it->ref_ws = INT64_MIN;
    it->prev = NO_GID;
    if (b->in_thread && b->begun && b->has_before && g == gid(b->last))
        it->prev = gid(b->before);
    it->thread = b->in_thread ? b->thread : IPS2_PAG_NONE;
    it->kind = (uint16_t)kind;
    return it;
}

void pag_image_end(struct pag_builder *b, int exit_seen, int32_t exit_how, int64_t exit_t)
{
    struct pag_item *it;

    (void)exit_t;
    if (!b->in_image)
        return;
    b->in_image = false;
    if (b->exit_end != NO_GID || b->last_end == NO_GID)
        return; /* a thread recorded the exit (pag_thread_end), or no thread stream */
    /* the exit is in the process stream, or none was recorded (killed):
     * the process ended with its last thread */
    bool exec = exit_seen && exit_how == IPS2_EXIT_EXEC;
    it = item(b, exec ? PC_EXEC : PC_EXIT, PAG_SRC, b->last_end, b->last_end_wall,
              IPS2_EV_PROC_EXIT);
    if (it) {
        it->k[0] = (uint64_t)(uint32_t)b->pid;
        it->k[1] = exec ? (uint64_t)b->image + 1 : 0;
        it->aux = exec ? 0 : b->ppid;
        it->thread = IPS2_PAG_NONE;
    }
}

void pag_thread_begin(struct pag_builder *b, int32_t tid)
{
    struct ips2_pag *p = b->p;
    struct ips2_pag_thread *t;

    if (!b->in_image || !(t = PAG_PUSH(p->threads, p->nthreads, b->cap_threads))) {
        b->oom = true;
        b->in_thread = false;
        return;
    }
    t->process = b->process;
    t->tid = tid;
    t->first = (uint32_t)p->nnodes;
    t->count = 0;
    b->in_thread = true;
    b->thread = (uint32_t)p->nthreads - 1;
    b->node_mark = p->nnodes;
    b->share_mark = p->nshares;
    b->item_mark = b->nitems;
    b->lite_mark = b->nlites;
    b->ipkey_mark = b->nipkeys;
    b->port_mark = p->nports;
    b->begun = false;
    b->has_before = false;
    b->create_seq = 0;
    b->proc_start = b->exec_exit = false;
    b->thread_exit_how = -1;
    b->in_join = false;
    b->arrive_key = 0;
    b->arrive_gid = NO_GID;
    b->nnames = 0;
    if (b->cap_name_threads < p->nthreads) {
        size_t cap = p->nthreads * 2;
        size_t *at = realloc(b->name_at, cap * sizeof(*at));
        if (at)
            b->name_at = at;
        uint32_t *nn = at ? realloc(b->name_n, cap * sizeof(*nn)) : NULL;
        if (nn)
            b->name_n = nn;
        if (!at || !nn) {
            b->oom = true;
            return;
        }
        b->cap_name_threads = cap;
    }
    b->name_at[b->thread] = 0;
    b->name_n[b->thread] = 0;
}

/* Forgets which local procedures the thread's shares named. */
static void forget_seen(struct pag_builder *b)
{
    for (size_t i = 0; i < b->norder; i++)
        b->seen[b->order[i]] = 0;
    b->norder = 0;
}

void pag_thread_drop(struct pag_builder *b)
{
    struct ips2_pag *p = b->p;

    if (!b->in_thread)
        return;
    p->nnodes = b->node_mark;
    if (p->nshares != b->share_mark)
        b->lost_shares = true; /* never: a stream without events made no CPU arc */
    p->nshares = b->share_mark;
    forget_seen(b);
    b->nitems = b->item_mark;
    b->nlites = b->lite_mark;
    b->nipkeys = b->ipkey_mark;
    p->nports = b->port_mark;
    pag_bytes_truncate(b->bytes, (uint32_t)b->node_mark);
    p->nthreads = b->thread;
    b->in_thread = false;
    if (b->head != NO_GID && IPS2_PAG_GID_NODE(b->head) >= p->nnodes)
        b->head = NO_GID;
}

/* ---- nodes --------------------------------------------------------------- */

void pag_share(struct pag_builder *b, uint32_t local_proc, uint64_t cpu)
{
    struct ips2_pag_share *s;

    if (cpu == 0 || cpu > INT64_MAX)
        return;
    if (!(s = PAG_PUSH(b->stage, b->nstage, b->cap_stage))) {
        b->oom = true;
        return;
    }
    s->proc = local_proc;
    s->reserved = 0;
    s->cpu = (int64_t)cpu;
}

/* Scales shares[first, end) down so that they add up to cpu. */
static void scale_shares(struct ips2_pag_share *s, size_t n, int64_t cpu)
{
    __int128 sum = 0;
    int64_t given = 0;
    size_t big = 0;

    for (size_t i = 0; i < n; i++)
        sum += s[i].cpu;
    if (sum <= cpu)
        return;
    for (size_t i = 0; i < n; i++) {
        if (sum <= UINT32_MAX && s[i].cpu >= 0 && cpu >= 0 && cpu <= UINT32_MAX)
            s[i].cpu = (int64_t)((uint64_t)s[i].cpu * (uint64_t)cpu / (uint64_t)sum); /* same */
        else
            s[i].cpu = (int64_t)((__int128)s[i].cpu * cpu / sum);
        given += s[i].cpu;
        if (s[i].cpu > s[big].cpu)
            big = i;
    }
    if (n)
        s[big].cpu += cpu - given;
}

/* Whether the engine takes an arc's shares as they are (cpa_emit_cpu): no
 * positive share, or positive shares adding up to its weight. */
static bool exact(const struct ips2_pag_share *s, size_t n, int64_t w)
{
    __int128 sum = 0;
    size_t k = 0;

    for (size_t i = 0; i < n; i++)
        if (s[i].cpu > 0) {
            sum += s[i].cpu;
            k++;
        }
    return k == 0 || w <= 0 || sum == w;
}

/* Makes byte i of the array *v (*n bytes) exist, new bytes zero. */
static bool grow_zeroed(uint8_t **v, size_t *n, size_t i)
{
    if (i < *n)
        return true;
    size_t cap = *n ? *n * 2 : 4096;
    if (cap <= i)
        cap = i + 4096;
    uint8_t *w = realloc(*v, cap);
    if (!w)
        return false;
    memset(w + *n, 0, cap - *n);
    *v = w;
    *n = cap;
    return true;
}

/* The node's shares (the stage) go to the compressed stream: their local
 * procedures noted, the node's bit set when they are not exact. */
static void keep_shares(struct pag_builder *b, uint32_t n, int64_t cpu)
{
    struct ips2_pag *p = b->p;

    if (!grow_zeroed(&b->inexact, &b->cap_inexact, (size_t)n / 8)) {
        b->oom = true;
        return;
    }
    if (exact(b->stage, b->nstage, cpu))
        b->inexact[n / 8] &= (uint8_t) ~(1u << (n % 8));
    else
        b->inexact[n / 8] |= (uint8_t)(1u << (n % 8));
    if (b->nstage == 0)
        return;
    for (size_t i = 0; i < b->nstage; i++) {
        uint32_t l = b->stage[i].proc;
        if (!grow_zeroed(&b->seen, &b->nseen, l)) {
            b->oom = true;
            return;
        }
        if (!b->seen[l]) {
            uint32_t *o = PAG_PUSH(b->order, b->norder, b->cap_order);
            if (!o) {
                b->oom = true;
                return;
            }
            *o = l;
            b->seen[l] = 1;
        }
    }
    if ((!b->spool && !(b->spool = pag_zbuf_new(false))) ||
        !pag_zbuf_put(b->spool, b->stage, b->nstage) || p->nshares + b->nstage > UINT32_MAX) {
        b->oom = true;
        return;
    }
    p->nshares += b->nstage;
}

/* Makes a node of the current thread at (t, c); its index. */
static uint32_t node(struct pag_builder *b, unsigned kind, int64_t t, uint64_t c, uint32_t top,
                     pag_shares_fn *shares, void *arg)
{
    struct ips2_pag *p = b->p;
    struct ips2_pag_node *n;

    if (b->begun && t < b->last_t)
        t = b->last_t; /* a thread's nodes are in time order */
    b->nstage = 0;
    if (shares)
        shares(arg, b);
    if (!b->begun)
        b->nstage = 0; /* a thread's first node has no CPU arc */
    if (!(n = PAG_PUSH(p->nodes, p->nnodes, b->cap_nodes))) {
        b->oom = true;
        return b->begun ? b->last : 0;
    }
    n->wall = t;
    n->cpu = 0;
    if (b->begun) {
        int64_t dc = c > b->last_c ? (int64_t)(c - b->last_c) : 0, dt = t - b->last_t;
        n->cpu = dc < dt ? dc : dt;
        scale_shares(b->stage, b->nstage, n->cpu);
    }
    if (b->begun && (n->cpu == 0 || (b->nstage == 1 && b->stage[0].proc == p->nodes[b->last].proc &&
                                     b->stage[0].cpu == n->cpu)))
        b->nstage = 0; /* the engine gives unnamed time to the procedure on top at the
                          arc's start */
    keep_shares(b, (uint32_t)p->nnodes - 1, n->cpu);
    n->thread = b->thread;
    n->shares = (uint32_t)p->nshares;
    n->kind = (uint16_t)kind;
    n->flags = 0;
    n->proc = top;
    b->has_before = b->begun;
    b->before = b->last;
    b->begun = true;
    b->last = (uint32_t)p->nnodes - 1;
    b->last_t = t;
    if (c > b->last_c || b->last == b->node_mark)
        b->last_c = c;
    return b->last;
}

/* ---- events -------------------------------------------------------------- */

static uint64_t x(const struct ips2_event *ev, unsigned i)
{
    return i < ev->nextra ? ev->extra[i] : 0;
}

static uint64_t scope_of(const struct pag_builder *b, uint64_t key)
{
    if (key & IPS2_SYNC_KEY_SHARED)
        return UINT64_MAX; /* the machine's (the session's table) */
    return (uint64_t)(uint32_t)b->pid << 32 | b->image;
}

/* FNV-1a of a string in extra words from `skip` on. */
static uint64_t string_hash(const struct ips2_event *ev, unsigned skip)
{
    char buf[256];
    uint64_t h = 14695981039346656037ull;

    ips2_event_string(ev, skip, buf, sizeof(buf));
    for (const char *s = buf; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static bool ip_family(uint64_t w0)
{
    return (w0 & 0xffff) == 10; /* AF_INET6: every IP endpoint */
}

/* The port of a TCP connection (key: client to server) the current
 * process made or accepted; endpoint word 0 has it in bits 32-47. */
static void port_of(struct pag_builder *b, uint64_t key, uint64_t w0, uint16_t role)
{
    struct ips2_pag *p = b->p;
    uint16_t port = (uint16_t)(w0 >> 32);
    struct ips2_pag_port *r;

    if (key == 0 || !ip_family(w0) || port == 0)
        return;
    for (size_t i = p->nports; i-- > 0;)
        if (p->ports[i].key == key && p->ports[i].process == b->process && p->ports[i].role == role)
            return;
    if (!(r = PAG_PUSH(p->ports, p->nports, b->cap_ports)))
        b->oom = true;
    else
        *r = (struct ips2_pag_port){key, b->process, port, role};
}

static void ipkey(struct pag_builder *b, uint64_t key)
{
    uint64_t *k;

    if (key == 0)
        return;
    for (size_t i = b->nipkeys; i-- > b->ipkey_mark && i + 8 > b->nipkeys;)
        if (b->ipkeys[i] == key)
            return; /* the usual repeat */
    if (!(k = PAG_PUSH(b->ipkeys, b->nipkeys, b->cap_ipkeys)))
        b->oom = true;
    else
        *k = key;
}

int pag_start_word(const struct ips2_event *ev)
{
    return ips2_field_word(ev->kind, IPS2_ROLE_START);
}

/* A lock release or a condition signal at node n (time t): a lite record
 * when its item would be plain, else an item (returned). */
static struct pag_item *source(struct pag_builder *b, unsigned cls, uint32_t n, int64_t t,
                               uint64_t key, uint64_t seq, unsigned kind)
{
    struct pag_lite *l;
    struct pag_item *it;

    if (b->p->nodes[n].wall == t && n == b->last) {
        if (!(l = PAG_PUSH(b->lites, b->nlites, b->cap_lites))) {
            b->oom = true;
            return NULL;
        }
        l->object = key;
        l->seq = seq;
        l->node = n;
        l->cls = (uint16_t)cls;
        l->kind = (uint16_t)kind;
        return NULL;
    }
    if ((it = item(b, cls, PAG_SRC, gid(n), t, kind)))
        it->k[2] = seq;
    return it;
}

#define NODE()             node(b, ev->kind, t, c, top, shares, arg)
#define ITEM(cls, side, n) item(b, (cls), (side), gid(n), t, ev->kind)

static void sync_event(struct pag_builder *b, const struct ips2_event *ev, int64_t t, uint64_t c,
                       int64_t ws, uint32_t top, pag_shares_fn *shares, void *arg)
{
    struct pag_item *it = NULL;
    uint64_t key = ev->payload, scope = scope_of(b, key);
    uint32_t n;

    switch (ev->kind) {
    case IPS2_EV_LOCK_RELEASE:
    case IPS2_EV_LOCK_RELEASE_SHARED:
        n = NODE();
        it = source(b, PC_LOCK, n, t, key, x(ev, IPS2_F_LOCK_RELEASE_SEQ), ev->kind);
        break;
    case IPS2_EV_LOCK_ACQUIRED:
    case IPS2_EV_LOCK_ACQUIRED_SHARED:
        if (ev->nextra <= IPS2_F_LOCK_ACQUIRED_START)
            return; /* it did not wait: no arc */
        n = NODE();
        if ((it = ITEM(PC_LOCK, PAG_DST, n))) {
            it->k[2] = x(ev, IPS2_F_LOCK_ACQUIRED_SEQ);
            it->ws = ws;
            it->flags |= PI_WAITED;
        }
        break;
    case IPS2_EV_COND_SIGNAL:
    case IPS2_EV_COND_BROADCAST:
        n = NODE();
        it = source(b, PC_COND, n, t, key, x(ev, IPS2_F_COND_SIGNAL_SEQ), ev->kind);
        break;
    case IPS2_EV_COND_WAKE:
        if (ev->nextra <= IPS2_F_COND_WAKE_SEQ_SEEN ||
            x(ev, IPS2_F_COND_WAKE_SEQ_SEEN) <= x(ev, IPS2_F_COND_WAKE_SEQ_AT_START))
            return; /* no signal came */
        n = NODE();
        if ((it = ITEM(PC_COND, PAG_DST, n))) {
            it->k[2] = x(ev, IPS2_F_COND_WAKE_SEQ_SEEN);
            it->ws = ws;
        }
        break;
    case IPS2_EV_BARRIER_ARRIVE:
        n = NODE();
        if ((it = ITEM(PC_BARRIER, PAG_SRC, n))) {
            it->k[3] = x(ev, IPS2_F_BARRIER_ARRIVE_EPISODE);
            it->aux = (uint32_t)x(ev, IPS2_F_BARRIER_ARRIVE_ARRIVAL);
            it->aux2 = (uint32_t)x(ev, IPS2_F_BARRIER_ARRIVE_PARTIES);
        }
        b->arrive_key = key;
        b->arrive_gid = gid(n);
        break;
    case IPS2_EV_BARRIER_DEPART:
        n = NODE();
        if ((it = ITEM(PC_BARRIER, PAG_DST, n))) {
            it->k[3] = x(ev, IPS2_F_BARRIER_DEPART_EPISODE);
            it->ws = ws;
            if (x(ev, IPS2_F_BARRIER_DEPART_SERIAL) == 1)
                it->flags |= PI_SERIAL;
            if (b->arrive_key == key)
                it->ref = b->arrive_gid;
        }
        break;
    case IPS2_EV_SEM_POST:
        n = NODE();
        if ((it = ITEM(PC_SEM, PAG_SRC, n)))
            it->k[3] = x(ev, IPS2_F_SEM_POST_POST);
        break;
    case IPS2_EV_SEM_ACQUIRED:
        if (x(ev, IPS2_F_SEM_ACQUIRED_WAIT) <= x(ev, IPS2_F_SEM_ACQUIRED_INITIAL))
            return; /* an initial token */
        n = NODE();
        if ((it = ITEM(PC_SEM, PAG_DST, n))) {
            it->k[3] = x(ev, IPS2_F_SEM_ACQUIRED_WAIT) - x(ev, IPS2_F_SEM_ACQUIRED_INITIAL);
            it->ws = ws != INT64_MIN ? ws : t; /* it did not wait: the arc weighs 0 */
        }
        break;
    case IPS2_EV_SYNC_INIT:
        if (ev->nextra > IPS2_F_SYNC_INIT_TYPE &&
            (x(ev, IPS2_F_SYNC_INIT_TYPE) == IPS2_SYNC_BARRIER ||
             x(ev, IPS2_F_SYNC_INIT_TYPE) == IPS2_SYNC_SEM ||
             x(ev, IPS2_F_SYNC_INIT_TYPE) == IPS2_SYNC_USER_BARRIER) &&
            x(ev, IPS2_F_SYNC_INIT_RESULT) == 0)
            it = item(b, PC_INIT, PAG_SRC, NO_GID, t, ev->kind);
        break;
    default:
        return;
    }
    if (it) {
        it->k[0] = scope;
        it->k[1] = key;
    }
}

/* A send's node: at the start of its call (ws), so that its message leaves
 * the sender when the send began and the call's own time follows on the
 * thread's next arc; the CPU there is the thread's CPU at its previous node
 * plus the wall time since (it ran up to the call), at most c. */
static uint32_t send_node(struct pag_builder *b, const struct ips2_event *ev, int64_t *t,
                          uint64_t c, int64_t ws, uint32_t top, pag_shares_fn *shares, void *arg)
{
    if (ws != INT64_MIN && ws < *t) {
        if (b->begun && ws > b->last_t) {
            uint64_t ran = (uint64_t)(ws - b->last_t), cw = b->last_c + ran;
            if (cw < c)
                c = cw;
        } else if (b->begun) {
            c = b->last_c;
        }
        *t = ws;
    }
    return node(b, ev->kind, *t, c, top, shares, arg);
}

bool pag_message_kind(unsigned kind)
{
    switch (kind) {
    case IPS2_EV_SEND:
    case IPS2_EV_RECV:
    case IPS2_EV_DGRAM_SEND:
    case IPS2_EV_DGRAM_RECV:
    case IPS2_EV_PVM_SEND:
    case IPS2_EV_PVM_RECV:
        return true;
    default:
        return false;
    }
}

bool pag_message_node(const struct ips2_event *ev)
{
    switch (ev->kind) {
    case IPS2_EV_SEND:
    case IPS2_EV_RECV:
        return x(ev, IPS2_F_SEND_KEY) != 0 && x(ev, IPS2_F_SEND_BYTES) != 0 &&
               x(ev, IPS2_F_SEND_ERRNO) == 0 && !(x(ev, IPS2_F_SEND_CALL) & IPS2_IO_PEEK);
    case IPS2_EV_DGRAM_SEND:
    case IPS2_EV_DGRAM_RECV:
        return x(ev, IPS2_F_DGRAM_SEND_KEY) != 0 && x(ev, IPS2_F_DGRAM_SEND_ERRNO) == 0 &&
               !(x(ev, IPS2_F_DGRAM_SEND_CALL) & IPS2_IO_PEEK);
    case IPS2_EV_PVM_SEND:
        return ev->payload != 0 && x(ev, IPS2_F_PVM_SEND_SEQ) != 0 &&
               x(ev, IPS2_F_PVM_SEND_ERROR) == 0;
    case IPS2_EV_PVM_RECV:
        return ev->payload != 0 && x(ev, IPS2_F_PVM_RECV_SEQ) != 0 &&
               x(ev, IPS2_F_PVM_RECV_ERROR) == 0;
    default:
        return false;
    }
}

static void message_event(struct pag_builder *b, const struct ips2_event *ev, int64_t t, uint64_t c,
                          int64_t ws, uint32_t top, pag_shares_fn *shares, void *arg)
{
    struct pag_item *it;
    uint32_t n;
    unsigned side;

    switch (ev->kind) {
    case IPS2_EV_CHAN:
        if (x(ev, IPS2_F_CHAN_TYPE) == IPS2_CHAN_TCP || x(ev, IPS2_F_CHAN_TYPE) == IPS2_CHAN_UDP) {
            ipkey(b, x(ev, IPS2_F_CHAN_OUT_KEY));
            ipkey(b, x(ev, IPS2_F_CHAN_IN_KEY));
        }
        break;
    case IPS2_EV_SEND:
    case IPS2_EV_RECV:
        if (!pag_message_node(ev))
            return;
        side = ev->kind == IPS2_EV_SEND ? PAG_SRC : PAG_DST;
        n = side == PAG_SRC ? send_node(b, ev, &t, c, ws, top, shares, arg) : NODE();
        if (b->oom)
            break;
        if (!pag_bytes_add(b->bytes, side, x(ev, IPS2_F_SEND_KEY), x(ev, IPS2_F_SEND_OFFSET),
                           x(ev, IPS2_F_SEND_BYTES), n, b->p->nodes[n].wall != t, t,
                           side == PAG_DST ? ws : INT64_MIN))
            b->oom = true;
        break;
    case IPS2_EV_DGRAM_SEND:
    case IPS2_EV_DGRAM_RECV:
        if (!pag_message_node(ev))
            return;
        side = ev->kind == IPS2_EV_DGRAM_SEND ? PAG_SRC : PAG_DST;
        n = side == PAG_SRC ? send_node(b, ev, &t, c, ws, top, shares, arg) : NODE();
        if ((it = ITEM(PC_DGRAM, side, n))) {
            it->k[0] = x(ev, IPS2_F_DGRAM_SEND_KEY);
            it->k[1] = x(ev, IPS2_F_DGRAM_SEND_SEQ);
            it->ws = side == PAG_DST ? ws : INT64_MIN;
            if (ip_family(x(ev, IPS2_F_DGRAM_SEND_PEER)))
                it->flags |= PI_IP;
        }
        break;
    case IPS2_EV_CONNECT:
        if (x(ev, IPS2_F_CONNECT_KEY) == 0 ||
            (x(ev, IPS2_F_CONNECT_ERRNO) != 0 && x(ev, IPS2_F_CONNECT_ERRNO) != EINPROGRESS))
            return;
        n = NODE();
        if ((it = ITEM(PC_CONN, PAG_SRC, n))) {
            it->k[0] = x(ev, IPS2_F_CONNECT_KEY);
            if (ip_family(x(ev, IPS2_F_CONNECT_SELF)))
                it->flags |= PI_IP;
        }
        port_of(b, x(ev, IPS2_F_CONNECT_KEY), x(ev, IPS2_F_CONNECT_PEER), IPS2_PAG_PORT_CLIENT);
        break;
    case IPS2_EV_ACCEPT:
        if (x(ev, IPS2_F_ACCEPT_KEY) == 0 || x(ev, IPS2_F_ACCEPT_ERRNO) != 0 ||
            ev->payload == (UINT64_C(1) << 48) - 1)
            return;
        n = NODE();
        if ((it = ITEM(PC_CONN, PAG_DST, n))) {
            it->k[0] = x(ev, IPS2_F_ACCEPT_KEY);
            it->ws = ws;
            if (ip_family(x(ev, IPS2_F_ACCEPT_SELF)))
                it->flags |= PI_IP;
        }
        port_of(b, x(ev, IPS2_F_ACCEPT_KEY), x(ev, IPS2_F_ACCEPT_SELF), IPS2_PAG_PORT_SERVER);
        break;
    default:
        break;
    }
}

static bool wait_reaped(const struct ips2_event *ev)
{
    uint32_t sig = (uint32_t)x(ev, IPS2_F_WAIT_STATUS) & 0x7f;
    bool exited = sig == 0, signalled = sig != 0 && sig != 0x7f; /* WIFEXITED, WIFSIGNALED */

    return ev->payload != 0 && x(ev, IPS2_F_WAIT_ERROR) == 0 && (exited || signalled) &&
           !(x(ev, IPS2_F_WAIT_OPTIONS) & 0x01000000); /* WNOWAIT */
}

static void process_event(struct pag_builder *b, const struct ips2_event *ev, int64_t t, uint64_t c,
                          int64_t ws, uint32_t top, pag_shares_fn *shares, void *arg)
{
    struct pag_item *it;
    uint32_t n, prev = b->last;
    int64_t prev_t = b->last_t;
    const uint64_t mask32 = 0xffffffffu;

    switch (ev->kind) {
    case IPS2_EV_PROC_START:
        b->proc_start = true;
        if (x(ev, IPS2_F_PROC_START_PPID))
            b->ppid = (uint32_t)x(ev, IPS2_F_PROC_START_PPID);
        if ((it = ITEM(PC_PROC, PAG_DST, b->last))) {
            it->k[0] = (uint64_t)(uint32_t)b->pid;
            it->aux = b->ppid;
            it->aux2 = b->image;
            it->wall = b->last_t;
        }
        if (b->image > 0 && (it = ITEM(PC_EXEC, PAG_DST, b->last))) {
            it->k[0] = (uint64_t)(uint32_t)b->pid;
            it->k[1] = b->image;
            it->wall = b->last_t;
        }
        break;
    case IPS2_EV_EXEC: /* the image ends here if the exec succeeds */
        b->exec_exit = true;
        b->thread_exit_how = IPS2_EXIT_EXEC;
        break;
    case IPS2_EV_EXEC_FAILED:
        b->exec_exit = false;
        b->thread_exit_how = -1;
        break;
    case IPS2_EV_PROC_EXIT:
        b->exec_exit = ev->payload == IPS2_EXIT_EXEC;
        b->thread_exit_how = (int32_t)ev->payload; /* the item comes at the thread's end */
        break;
    case IPS2_EV_THREAD_START:
        b->create_seq = x(ev, IPS2_F_THREAD_START_CREATE_SEQ);
        if ((it = ITEM(PC_THREAD, PAG_DST, b->last))) {
            it->k[0] = scope_of(b, 0);
            it->k[1] = x(ev, IPS2_F_THREAD_START_CREATE_SEQ);
            it->wall = b->last_t;
        }
        break;
    case IPS2_EV_THREAD_CREATE:
        n = NODE();
        if ((it = ITEM(PC_THREAD, PAG_SRC, n))) {
            it->k[0] = scope_of(b, 0);
            it->k[1] = ev->payload;
        }
        break;
    case IPS2_EV_JOIN_BEGIN:
        b->in_join = true;
        b->join_begin = t;
        break;
    case IPS2_EV_JOIN_END:
        if (x(ev, IPS2_F_JOIN_END_RESULT) != 0 || ev->payload == 0) {
            b->in_join = false;
            return;
        }
        n = NODE();
        if ((it = ITEM(PC_JOIN, PAG_DST, n))) {
            it->k[0] = scope_of(b, 0);
            it->k[1] = ev->payload;
            it->ws = b->in_join ? b->join_begin : INT64_MIN;
        }
        b->in_join = false;
        break;
    case IPS2_EV_FORK:
    case IPS2_EV_SPAWN:
    case IPS2_EV_VFORK:
        if (ev->payload == 0 ||
            (ev->kind != IPS2_EV_FORK &&
             x(ev, ev->kind == IPS2_EV_SPAWN ? IPS2_F_SPAWN_ERROR : IPS2_F_VFORK_ERROR)))
            return;
        n = ev->kind == IPS2_EV_VFORK ? NODE() : prev;
        /* the child may start before the call returns: the arc leaves the
         * parent's node before it */
        if ((it = item(b, PC_PROC, PAG_SRC, gid(prev), prev_t, ev->kind))) {
            it->k[0] = ev->payload;
            it->aux = (uint32_t)b->pid;
            if (ev->kind == IPS2_EV_VFORK) {
                it->flags |= PI_VFORK;
                it->ref = gid(n);
                it->ref_wall = b->p->nodes[n].wall;
                it->ref_ws = ws;
            }
        }
        break;
    case IPS2_EV_WAIT:
        if (!wait_reaped(ev))
            return;
        n = NODE();
        if ((it = ITEM(PC_EXIT, PAG_DST, n))) {
            it->k[0] = ev->payload;
            it->aux = (uint32_t)b->pid;
            it->ws = ws;
        }
        break;
    case IPS2_EV_PVM_TASK:
        /* a fact, kept as the end IPS2_PAG_ROLE_PVM_TID (class * 2 + 1) */
        if ((it = item(b, PC_PVMTID, PAG_DST, b->head != NO_GID ? b->head : gid(b->last), t,
                       ev->kind)))
            it->k[0] = ev->payload & mask32;
        if (x(ev, IPS2_F_PVM_TASK_PARENT) != 0 &&
            (it = item(b, PC_PVMTASK, PAG_DST, b->head != NO_GID ? b->head : gid(b->node_mark), t,
                       ev->kind))) {
            it->k[0] = ev->payload & mask32;
            it->k[1] = x(ev, IPS2_F_PVM_TASK_PARENT) & mask32;
            it->wall = b->p->nodes[IPS2_PAG_GID_NODE(it->gid)].wall;
        }
        break;
    case IPS2_EV_PVM_SEND:
    case IPS2_EV_PVM_RECV: {
        /* The same key on both ends, so that a send meets its receive:
         * from << 32 | to, context << 32 | tag, seq.  The payload is the
         * other end's tid, self this end's. */
        static const struct pvm_fields {
            unsigned self, context, tag, seq, error;
        } fields[2] = {
            {IPS2_F_PVM_SEND_SENDER, IPS2_F_PVM_SEND_CONTEXT, IPS2_F_PVM_SEND_TAG,
             IPS2_F_PVM_SEND_SEQ, IPS2_F_PVM_SEND_ERROR},
            {IPS2_F_PVM_RECV_RECEIVER, IPS2_F_PVM_RECV_CONTEXT, IPS2_F_PVM_RECV_TAG,
             IPS2_F_PVM_RECV_SEQ, IPS2_F_PVM_RECV_ERROR},
        };
        const bool send = ev->kind == IPS2_EV_PVM_SEND;
        const struct pvm_fields *f = &fields[!send];
        if (!pag_message_node(ev))
            return;
        n = NODE();
        if ((it = ITEM(PC_PVM, send ? PAG_SRC : PAG_DST, n))) {
            const uint64_t me = x(ev, f->self) & mask32, peer = ev->payload & mask32;
            it->k[0] = send ? me << 32 | peer : peer << 32 | me;
            it->k[1] = (x(ev, f->context) & mask32) << 32 | (x(ev, f->tag) & mask32);
            it->k[2] = x(ev, f->seq);
            if (!send)
                it->ws = ws;
        }
        break;
    }
    case IPS2_EV_PVM_SPAWN:
        if (ev->payload == 0)
            return;
        n = NODE();
        if ((it = ITEM(PC_PVMTASK, PAG_SRC, n))) {
            it->k[0] = ev->payload & mask32;
            it->k[1] = x(ev, IPS2_F_PVM_SPAWN_TID) & mask32;
        }
        break;
    case IPS2_EV_PVM_BARRIER:
        if (x(ev, IPS2_F_PVM_BARRIER_ERROR) != 0)
            return;
        n = NODE();
        if ((it = ITEM(PC_PVMBAR, PAG_DST, n))) {
            it->k[0] = string_hash(ev, IPS2_F_PVM_BARRIER_GROUP);
            it->k[1] = x(ev, IPS2_F_PVM_BARRIER_EPISODE);
            it->k[2] = IPS2_PAG_GID_NODE(it->prev != NO_GID ? it->prev : it->gid);
            it->ws = ws;
        }
        break;
    default:
        break;
    }
}

void pag_event(struct pag_builder *b, const struct ips2_event *ev, int64_t t, uint64_t c,
               int64_t ws, uint32_t top, pag_shares_fn *shares, void *arg)
{
    if (!b->in_thread)
        return;
    if (!b->begun) {
        node(b, IPS2_PAG_BEGIN, t, c, top, shares, arg);
        if (b->head == NO_GID)
            b->head = gid(b->last);
    }
    if (ev->kind >= IPS2_EV_SYNC_OBJECT && ev->kind < IPS2_EV_CHAN)
        sync_event(b, ev, t, c, ws, top, shares, arg);
    else if (ev->kind >= IPS2_EV_CHAN && ev->kind < IPS2_EV_SPAWN)
        message_event(b, ev, t, c, ws, top, shares, arg);
    else
        process_event(b, ev, t, c, ws, top, shares, arg);
}

/* A local procedure's string (IPS2_PAG_NONE: none), named once per thread. */
static uint32_t name_local(struct pag_builder *b, uint32_t l, pag_name_fn *name, void *name_arg)
{
    if (l == 0 || !name)
        return IPS2_PAG_NONE;
    if (l >= b->nnames) {
        size_t nn = (size_t)l + 64;
        uint32_t *v = realloc(b->names, nn * sizeof(*v));
        if (!v) {
            b->oom = true;
            return IPS2_PAG_NONE;
        }
        memset(v + b->nnames, 0, (nn - b->nnames) * sizeof(*v));
        b->names = v;
        b->nnames = nn;
    }
    if (!b->names[l]) {
        const char *s = name(name_arg, l);
        b->names[l] = s ? str(b, s) + 1 : IPS2_PAG_NONE;
    }
    return b->names[l] == IPS2_PAG_NONE ? IPS2_PAG_NONE : b->names[l] - 1;
}

/* Names the thread's procedures: local indices -> strings, the nodes' in
 * place, the shares' (compressed already) in the thread's table for
 * pag_fold, in the order the shares first named them (so the strings are
 * numbered as if the shares had been renamed one by one). */
static void name_thread(struct pag_builder *b, pag_name_fn *name, void *name_arg)
{
    struct ips2_pag *p = b->p;
    uint32_t len = 0;

    for (size_t i = b->node_mark; i < p->nnodes; i++)
        p->nodes[i].proc = name_local(b, p->nodes[i].proc, name, name_arg);
    for (size_t i = 0; i < b->norder; i++)
        if (b->order[i] >= len)
            len = b->order[i] + 1;
    while (b->cap_tnames - b->ntnames < len) {
        size_t cap = b->cap_tnames ? b->cap_tnames * 2 : 256;
        uint32_t *v = realloc(b->tnames, cap * sizeof(*v));
        if (!v) {
            b->oom = true;
            forget_seen(b);
            return;
        }
        b->tnames = v;
        b->cap_tnames = cap;
    }
    uint32_t *m = b->tnames + b->ntnames;
    for (uint32_t l = 0; l < len; l++)
        m[l] = IPS2_PAG_NONE;
    for (size_t i = 0; i < b->norder; i++)
        m[b->order[i]] = name_local(b, b->order[i], name, name_arg);
    b->name_at[b->thread] = b->ntnames;
    b->name_n[b->thread] = len;
    b->ntnames += len;
    forget_seen(b);
}

void pag_thread_end(struct pag_builder *b, int64_t t, uint64_t c, uint32_t top,
                    pag_shares_fn *shares, void *arg, pag_name_fn *name, void *name_arg)
{
    struct ips2_pag *p = b->p;
    struct pag_item *it;

    if (!b->in_thread)
        return;
    if (!b->begun) {
        node(b, IPS2_PAG_BEGIN, t, c, top, shares, arg);
        if (b->head == NO_GID)
            b->head = gid(b->last);
    }
    uint32_t end = node(b, IPS2_PAG_END, t, c, top, shares, arg);
    int64_t wall = p->nodes[end].wall;
    if (b->create_seq && (it = item(b, PC_JOIN, PAG_SRC, gid(end), wall, IPS2_PAG_END))) {
        it->k[0] = scope_of(b, 0);
        it->k[1] = b->create_seq;
    }
    if (b->thread_exit_how >= 0) { /* this thread recorded the process's exit */
        b->exit_end = gid(end);
        b->exit_end_wall = wall;
        it = item(b, b->exec_exit ? PC_EXEC : PC_EXIT, PAG_SRC, gid(end), wall, IPS2_EV_PROC_EXIT);
        if (it) {
            it->k[0] = (uint64_t)(uint32_t)b->pid;
            it->k[1] = b->exec_exit ? (uint64_t)b->image + 1 : 0;
            it->aux = b->exec_exit ? 0 : b->ppid;
        }
    }
    if (wall >= b->last_end_wall) {
        b->last_end = gid(end);
        b->last_end_wall = wall;
    }
    p->threads[b->thread].count = (uint32_t)(p->nnodes - b->node_mark);
    name_thread(b, name, name_arg);
    b->in_thread = false;
}

/* ---- the end: pairing inside the part ------------------------------------ */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x1 = *(const uint64_t *)a, y1 = *(const uint64_t *)b;

    return x1 < y1 ? -1 : x1 > y1;
}

static int cmp_init(const void *a, const void *b)
{
    const struct pag_item *x1 = a, *y1 = b;

    for (int i = 0; i < 2; i++)
        if (x1->k[i] != y1->k[i])
            return x1->k[i] < y1->k[i] ? -1 : 1;
    return x1->wall < y1->wall ? -1 : x1->wall > y1->wall;
}

/* Barriers' and semaphores' numbers restart at every sync-init: an item's
 * generation is the number of inits of its object at or before it. */
static bool generations(struct pag_builder *b)
{
    size_t ninit = 0;

    for (size_t i = 0; i < b->nitems; i++)
        ninit += b->items[i].cls == PC_INIT;
    if (!ninit)
        return true;
    struct pag_item *inits = malloc(ninit * sizeof(*inits));
    if (!inits)
        return false;
    ninit = 0;
    for (size_t i = 0; i < b->nitems; i++)
        if (b->items[i].cls == PC_INIT)
            inits[ninit++] = b->items[i];
    qsort(inits, ninit, sizeof(*inits), cmp_init);
    for (size_t i = 0; i < b->nitems; i++) {
        struct pag_item *it = &b->items[i];
        if (it->cls != PC_BARRIER && it->cls != PC_SEM)
            continue;
        /* inits of the object with wall <= it->wall */
        size_t lo = 0, hi = ninit;
        struct pag_item key = *it;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (cmp_init(&inits[mid], &key) <= 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        uint64_t g = 0;
        for (size_t j = lo; j-- > 0 && inits[j].k[0] == it->k[0] && inits[j].k[1] == it->k[1];)
            g++;
        it->k[2] = g;
    }
    free(inits);
    return true;
}

struct dst_key {
    uint64_t k[3];
    uint64_t cls;
};

static int cmp_dst_key(const void *a, const void *b)
{
    const struct dst_key *x1 = a, *y1 = b;

    if (x1->cls != y1->cls)
        return x1->cls < y1->cls ? -1 : 1;
    for (int i = 0; i < 3; i++)
        if (x1->k[i] != y1->k[i])
            return x1->k[i] < y1->k[i] ? -1 : 1;
    return 0;
}

/* Turns the lite records that a destination names into items (the rest
 * pair with nothing and never warn) and frees them. */
static bool expand_lites(struct pag_builder *b)
{
    struct ips2_pag *p = b->p;
    struct dst_key *keys = NULL, key;
    size_t nkeys = 0, cap = 0;
    bool ok = true;

    for (size_t i = 0; i < b->nitems && ok; i++) {
        const struct pag_item *it = &b->items[i];
        struct dst_key *d;
        if (it->side != PAG_DST || (it->cls != PC_LOCK && it->cls != PC_COND))
            continue;
        if (!(d = PAG_PUSH(keys, nkeys, cap))) {
            ok = false;
            break;
        }
        memcpy(d->k, it->k, sizeof(d->k));
        d->cls = it->cls;
    }
    if (ok && nkeys) {
        qsort(keys, nkeys, sizeof(*keys), cmp_dst_key);
        for (size_t i = 0; i < b->nlites; i++) {
            const struct pag_lite *l = &b->lites[i];
            const struct ips2_pag_node *nd = &p->nodes[l->node];
            const struct ips2_pag_process *pr = &p->processes[p->threads[nd->thread].process];
            key.cls = l->cls;
            key.k[0] = l->object & IPS2_SYNC_KEY_SHARED
                           ? UINT64_MAX
                           : (uint64_t)(uint32_t)pr->pid << 32 | pr->image;
            key.k[1] = l->object;
            key.k[2] = l->seq;
            if (!bsearch(&key, keys, nkeys, sizeof(*keys), cmp_dst_key))
                continue;
            struct pag_item *it = PAG_PUSH(b->items, b->nitems, b->cap_items);
            if (!it) {
                ok = false;
                break;
            }
            memset(it, 0, sizeof(*it));
            memcpy(it->k, key.k, sizeof(key.k));
            it->cls = l->cls;
            it->side = PAG_SRC;
            it->gid = gid(l->node);
            it->ref = NO_GID;
            it->wall = nd->wall;
            it->ws = it->ref_wall = it->ref_ws = INT64_MIN;
            it->prev = l->node > p->threads[nd->thread].first ? gid(l->node - 1) : NO_GID;
            it->thread = nd->thread;
            it->kind = l->kind;
        }
    }
    free(keys);
    free(b->lites);
    b->lites = NULL;
    b->nlites = b->cap_lites = 0;
    return ok;
}

static char *dupf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *dupf(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;

    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}

/* How far the wall times of two threads of a machine may disagree: each
 * thread converts its timer through its own sync points, and the TSCs of a
 * virtual machine's CPUs differ by up to a few hundred ns (a release seen
 * after the acquisition it let in, traces/FORMAT.md §6). */
#define CLOCK_SLACK_NS 2000

/* Whether an arc from -> to would close a cycle: a source that ended
 * after its destination must have begun its call before, so its thread's
 * previous node must not be later (beyond the clocks' disagreement). */
static bool backwards_arc(const struct ips2_pag *p, uint32_t from, uint32_t to)
{
    return p->nodes[from].wall > p->nodes[to].wall &&
           (from == 0 || p->nodes[from - 1].thread != p->nodes[from].thread ||
            p->nodes[from - 1].wall > p->nodes[to].wall + CLOCK_SLACK_NS);
}

/* The part's arcs (it has none yet), sorted by (to, from) and otherwise
 * in the order pairing made them (the byte ranges', then the items'): a
 * counting sort by to over two passes of the same arcs, then insertion
 * among arcs with the same to. */
struct arcs_build {
    const struct ips2_pag *p;
    uint16_t label; /* of the arc arc_cb is given */
    int pass;
    uint32_t *at; /* pass 0: arcs per to (at[to + 1]); pass 1: where the next goes */
    struct ips2_pag_arc *arcs;
    size_t n, backwards;
};

static void arc_cb(void *arg, uint64_t from, uint64_t to, int64_t weight, uint16_t type,
                   bool forward)
{
    struct arcs_build *ab = arg;
    const struct ips2_pag *p = ab->p;
    uint32_t f = IPS2_PAG_GID_NODE(from), t = IPS2_PAG_GID_NODE(to);

    if (IPS2_PAG_GID_PART(from) != 0 || IPS2_PAG_GID_PART(to) != 0 || f >= p->nnodes ||
        t >= p->nnodes)
        return; /* not an arc of this part */
    if (!forward && backwards_arc(p, f, t)) {
        ab->backwards += ab->pass == 0;
        return;
    }
    if (ab->pass == 0) {
        ab->at[t + 1]++;
        ab->n++;
        return;
    }
    /* the weight was taken from the events' times; a node moved forward
     * (its thread's timer went back) can leave less time between the
     * nodes: never more than that (ips2_pag.h) */
    int64_t gap = p->nodes[t].wall > p->nodes[f].wall ? p->nodes[t].wall - p->nodes[f].wall : 0;
    struct ips2_pag_arc *a = &ab->arcs[ab->at[t]++];
    a->from = from;
    a->to = t;
    a->type = type;
    a->label = ab->label;
    a->weight = weight < gap ? weight : gap;
}

static int cmp_arc_from(const void *x, const void *y)
{
    const struct ips2_pag_arc *a = x, *b = y;
    if (a->from != b->from)
        return a->from < b->from ? -1 : 1;
    if (a->type != b->type)
        return a->type < b->type ? -1 : 1;
    return a->weight < b->weight ? -1 : a->weight > b->weight;
}

/* Orders the arcs of each destination by source: insertion (stable) for
 * the usual few, qsort for a long run (one receive overlapping many
 * sends), where equal arcs are interchangeable. */
static void sort_by_source(struct ips2_pag_arc *arcs, size_t n)
{
    for (size_t s = 0, e; s < n; s = e) {
        for (e = s + 1; e < n && arcs[e].to == arcs[s].to;)
            e++;
        if (e - s > 32) {
            qsort(arcs + s, e - s, sizeof(*arcs), cmp_arc_from);
            continue;
        }
        for (size_t i = s + 1; i < e; i++) {
            struct ips2_pag_arc a = arcs[i];
            size_t j = i;
            for (; j > s && arcs[j - 1].from > a.from; j--)
                arcs[j] = arcs[j - 1];
            arcs[j] = a;
        }
    }
}

/* Byte streams and connections of TCP (their keys are a TCP or UDP
 * descriptor's): they may pair with another machine's. */
static void ip_flags(const struct pag_builder *b, struct pag_item *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((v[i].cls == PC_BYTES || v[i].cls == PC_CONN) && b->nipkeys > 0 &&
            bsearch(&v[i].k[0], b->ipkeys, b->nipkeys, sizeof(*b->ipkeys), cmp_u64))
            v[i].flags |= PI_IP;
}

struct unpaired {
    size_t want_ends; /* how many ends the part will have */
    size_t cap_ends, more;
};

/* An item that paired with nothing: an end of the part, a warning, or
 * nothing (PAG.md §3).  false on OOM. */
static bool unpaired(struct ips2_pag *p, const struct pag_item *it, struct unpaired *u)
{
    if (it->flags & PI_DONE)
        return true;
    if (pag_class_crosses(it->cls, it->flags)) {
        struct ips2_pag_end *e = PAG_PUSH(p->ends, p->nends, u->cap_ends);
        if (!e)
            return false;
        e->node = IPS2_PAG_GID_NODE(it->gid);
        e->role = (uint16_t)(it->cls * 2 + it->side);
        e->kind = it->kind;
        e->key[0] = it->k[0];
        e->key[1] = it->k[1];
        e->key[2] = it->k[2];
        e->wall = it->wall;
        e->wait_start = it->ws;
        return true;
    }
    if (!pag_item_warns(it))
        return true;
    if (p->nwarnings < PAG_MAX_WARNINGS)
        pag_add_warning(p, pag_item_warning(p, it));
    else
        u->more++;
    return true;
}

/* The byte ranges that paired with nothing, one at a time: pass 0 counts
 * the ends they make, pass 1 makes them (or warnings), while pag_bytes.c
 * frees the ranges. */
struct leftovers {
    struct pag_builder *b;
    struct unpaired *u;
    int pass;
};

static bool left_cb(void *arg, struct pag_item *it)
{
    struct leftovers *l = arg;

    ip_flags(l->b, it, 1);
    if (l->pass == 0) {
        l->u->want_ends += pag_class_crosses(it->cls, it->flags);
        return true;
    }
    return unpaired(l->b->p, it, l->u);
}

/* Pairs the byte ranges (what they leave: ends and warnings of the part,
 * into u) and makes the part's arcs of them and of the items' pairs;
 * between the passes the ends' array, sized for u->want_ends. */
static bool make_arcs(struct pag_builder *b, const struct pag_pairs *pairs, struct unpaired *u,
                      size_t *backwards)
{
    struct ips2_pag *p = b->p;
    struct arcs_build ab = {.p = p};
    struct leftovers l = {b, u, 0};

    if (!(ab.at = calloc(p->nnodes + 1, sizeof(*ab.at)))) {
        return false;
    }
    for (ab.pass = 0; ab.pass < 2; ab.pass++) {
        l.pass = ab.pass;
        if (!pag_bytes_match(b->bytes, p, ab.pass, arc_cb, &ab, left_cb, &l)) {
            free(ab.at);
            free(ab.arcs);
            return false;
        }
        for (size_t i = 0; i < pairs->n; i++) {
            ab.label = pairs->v[i].label;
            arc_cb(&ab, pairs->v[i].from, pairs->v[i].to, pairs->v[i].weight, pairs->v[i].type,
                   false);
        }
        ab.label = 0;
        if (ab.pass == 0) {
            for (size_t i = 1; i <= p->nnodes; i++)
                ab.at[i] += ab.at[i - 1];
            if ((ab.n && !(ab.arcs = malloc(ab.n * sizeof(*ab.arcs)))) ||
                (u->want_ends && !p->ends &&
                 !(p->ends = malloc(u->want_ends * sizeof(*p->ends))))) {
                free(ab.at);
                free(ab.arcs);
                return false;
            }
            if (p->ends)
                u->cap_ends = u->want_ends;
        }
    }
    free(ab.at);
    sort_by_source(ab.arcs, ab.n);
    free(p->arcs);
    p->arcs = ab.arcs;
    p->narcs = ab.n;
    *backwards = ab.backwards;
    return true;
}

/* The part's shares: the compressed stream read once by pag_fold (which
 * folds, or only names them), the result compressed again at the part
 * file's level into p->lazy, and inflated if the caller wants them whole.
 * 0, or -1 with err (b->oom for memory). */
static int finish_shares(struct pag_builder *b, const char *dir, char *err, size_t errlen)
{
    struct ips2_pag *p = b->p;
    struct ips2_pag_lazy *raw = NULL;
    struct pag_zread *rd = NULL;
    struct pag_zbuf *out = pag_zbuf_new(true);
    char name[4200];
    size_t folded = 0;
    int rc = -1;

    err[0] = '\0';
    snprintf(name, sizeof name, "%s (PAG shares)", dir);
    if (!b->spool)
        b->spool = pag_zbuf_new(false); /* no share at all: an empty frame */
    if (!out || !b->spool || !(raw = pag_zbuf_end(b->spool, name)) ||
        !(rd = pag_zread_open(raw, p->nshares, SIZE_MAX, err, errlen)))
        goto out;
    pag_zbuf_free(b->spool);
    b->spool = NULL;
    pag_lazy_read_once(raw); /* read by folding, then freed */
    /* Folding is the build's peak (PAG.md §5): what the reduction and the
     * pairing freed in the middle of the heap goes back to the system
     * first, not to be held beside the part. */
    malloc_trim(0);
    struct pag_fold_in in = {rd, b->inexact, b->tnames, b->name_at, b->name_n};
    if (!pag_fold(p, b->fold, b->keep_messages, &in, out, &folded) || pag_zread_end(rd) < 0)
        goto out;
    pag_zread_free(rd);
    rd = NULL;
    pag_lazy_free(raw);
    raw = NULL;
    if (!(p->lazy = pag_zbuf_end(out, name)))
        goto out;
    if (!b->lazy && pag_shares_load(p, err, errlen) < 0)
        goto out;
    rc = 0;
out:
    if (rc < 0 && !err[0])
        b->oom = true; /* the caller says it */
    pag_zread_free(rd);
    pag_lazy_free(raw);
    pag_zbuf_free(out);
    return rc;
}

int pag_builder_finish(struct pag_builder *b, const char *machine, const char *trace_dir,
                       struct ips2_pag **out, char *err, size_t errlen)
{
    struct ips2_pag *p = b->p;
    struct pag_pairs pairs = {0};
    size_t backwards = 0;
    struct unpaired u = {0};

    *out = NULL;
    if (b->in_thread)
        pag_thread_end(b, b->last_t, b->last_c, 0, NULL, NULL, NULL, NULL);
    if (b->in_image)
        pag_image_end(b, 0, -1, 0);
    /* the strings go to the part (warnings name applications) */
    p->strings = ips2_strtab_release(&b->strings, &p->nstrings);
    if (!expand_lites(b) || !generations(b))
        b->oom = true;
    if (b->nipkeys > 0)
        qsort(b->ipkeys, b->nipkeys, sizeof(*b->ipkeys), cmp_u64);
    ip_flags(b, b->items, b->nitems);
    if (!pag_match_items(b->items, b->nitems, false, &pairs))
        b->oom = true;
    /* what stays unpaired: an end, or a warning (byte ranges sort first);
     * the ends counted first, so that their array is no larger than they
     * (a server's unpaired messages: one end each) */
    for (size_t i = 0; i < b->nitems; i++)
        u.want_ends +=
            !(b->items[i].flags & PI_DONE) && pag_class_crosses(b->items[i].cls, b->items[i].flags);
    /* the byte ranges pair as byte items would have, before the others,
     * and make their ends and warnings as they go */
    if (!b->oom && !make_arcs(b, &pairs, &u, &backwards))
        b->oom = true;
    free(pairs.v);
    for (size_t i = 0; i < b->nitems && !b->oom; i++)
        if (!unpaired(p, &b->items[i], &u))
            b->oom = true;
    if (u.more)
        pag_add_warning(p, dupf("%zu more events without their partners", u.more));
    if (backwards)
        pag_add_warning(
            p, dupf("%zu pairings dropped: the source came after the destination", backwards));
    p->machine = strdup(machine ? machine : "");
    p->trace_dir = strdup(trace_dir ? trace_dir : "");
    if (!p->machine || !p->trace_dir)
        b->oom = true;
    if (!b->oom && finish_shares(b, trace_dir ? trace_dir : "", err, errlen) < 0 && !b->oom)
        return -1;
    if (b->oom || b->lost_shares) {
        snprintf(err, errlen, "%s: %s building the PAG", trace_dir ? trace_dir : "",
                 b->oom ? "out of memory" : "a dropped thread's CPU shares were lost");
        return -1;
    }
    *out = p;
    b->p = calloc(1, sizeof(*b->p));
    b->nitems = b->nipkeys = 0;
    b->cap_apps = b->cap_processes = b->cap_threads = b->cap_nodes = 0;
    if (!b->p)
        b->oom = true;
    return 0;
}
