/*
 * slave_cpa.c - the slave's side of the critical path (ips2_proto.h,
 * tags 300-399; the conversation is drawn there).  A slave holds the PAG
 * parts of its machine (LOAD: its run's part and those of the replays it
 * reduced; a slave spawned for ips2::cpa holds one), gets their
 * cross-machine arcs from the master (CROSS), then runs one worker per part
 * and query (QUERY): it steps the workers, passes the path lengths between
 * its own parts in place, sends those for other slaves' parts straight to
 * them (BATCH, one message per destination part per step), applies the
 * ones that come in, and tells the master the state of its parts together
 * (STATUS) when they are all done, when one failed and when the master
 * probes it.  The backward walk comes as WALK: the slave walks while the
 * path stays in parts it holds, sends the segments to the master and hands
 * the walk on to the next part's slave.
 *
 * Batches of a query not yet started (a faster peer) wait in a queue;
 * batches of an older query are dropped.  Everything that goes wrong is
 * said in the reply (LOADED, READY, STATUS, SEGMENTS); the slave goes on.
 */
#include <pvm3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ips2_cpa.h"
#include "ips2_pag.h"
#include "ips2_proto.h"
#include "slave_cpa.h"

#define ERR_LEN  512
#define BLOB_MAX ((size_t)1 << 40)

struct pending { /* a batch of a query not started yet */
    int32_t query;
    void *data;
    size_t size;
};

struct held { /* one part this slave holds */
    uint32_t part;
    struct ips2_pag *pag;
    struct ips2_cpa_worker *w; /* of the current query */
    struct ips2_cpa_query q;
    char *app, *zero_app;
};

struct slave_cpa {
    int master;
    int32_t id; /* the part set loaded */
    uint32_t nparts;
    int *tids; /* nparts: the slave of each part (CROSS) */
    struct held *held;
    size_t nheld;
    int32_t query;
    char *zero_proc;
    bool running; /* workers of `query` exist */
    int64_t sent, received;
    bool failed;
    uint32_t failed_part;
    bool dirty;     /* batches delivered since the last step */
    bool said_done; /* the master has this query's STATUS done */
    char why[2 * ERR_LEN];
    struct pending *pend;
    size_t npend, cap_pend;
};

struct slave_cpa *slave_cpa_new(int master)
{
    struct slave_cpa *c = calloc(1, sizeof *c);
    if (c != NULL)
        c->master = master;
    /* batches go task to task over TCP, not through the pvmds */
    pvm_setopt(PvmRoute, PvmRouteDirect);
    return c;
}

static void drop_query(struct slave_cpa *c)
{
    for (size_t i = 0; i < c->nheld; i++) {
        struct held *h = &c->held[i];
        ips2_cpa_worker_free(h->w);
        h->w = NULL;
        free(h->app);
        free(h->zero_app);
        h->app = h->zero_app = NULL;
    }
    free(c->zero_proc);
    c->zero_proc = NULL;
    c->running = false;
    c->failed = false;
    c->failed_part = 0;
    c->said_done = false;
    c->dirty = false;
    c->why[0] = '\0';
}

static void drop_parts(struct slave_cpa *c)
{
    drop_query(c);
    for (size_t i = 0; i < c->nheld; i++)
        ips2_pag_free(c->held[i].pag);
    free(c->held);
    c->held = NULL;
    c->nheld = 0;
    free(c->tids);
    c->tids = NULL;
}

void slave_cpa_free(struct slave_cpa *c)
{
    if (c == NULL)
        return;
    drop_parts(c);
    for (size_t i = 0; i < c->npend; i++)
        free(c->pend[i].data);
    free(c->pend);
    free(c);
}

static struct held *held_part(struct slave_cpa *c, uint32_t part)
{
    for (size_t i = 0; i < c->nheld; i++)
        if (c->held[i].part == part)
            return &c->held[i];
    return NULL;
}

static char *nonempty(char *s)
{
    if (s != NULL && s[0] == '\0') {
        free(s);
        return NULL;
    }
    return s;
}

/* --- replies ------------------------------------------------------------- */

static void send_loaded(struct slave_cpa *c, int32_t id, uint32_t part, const char *err,
                        const void *ends, size_t nends, const void *meta, size_t nmeta)
{
    const struct held *h = err == NULL ? held_part(c, part) : NULL;
    pvm_initsend(PvmDataDefault);
    ips2_pk_i32(id);
    ips2_pk_u32(part);
    ips2_pk_i32(err == NULL);
    ips2_pk_str(err);
    ips2_pk_blob(ends, ends ? nends : 0);
    ips2_pk_blob(meta, meta ? nmeta : 0);
    uint32_t nw = 0;
    if (h != NULL && h->pag != NULL)
        nw =
            h->pag->nwarnings < IPS2_CPA_WARN_MAX ? (uint32_t)h->pag->nwarnings : IPS2_CPA_WARN_MAX;
    ips2_pk_u32(nw);
    for (uint32_t i = 0; i < nw; i++)
        ips2_pk_str(h->pag->warnings[i]);
    pvm_send(c->master, IPS2_TAG_CPA_LOADED);
}

static void send_ready(struct slave_cpa *c, int32_t id, uint32_t part, const char *err)
{
    pvm_initsend(PvmDataDefault);
    ips2_pk_i32(id);
    ips2_pk_u32(part);
    ips2_pk_i32(err == NULL);
    ips2_pk_str(err);
    pvm_send(c->master, IPS2_TAG_CPA_READY);
}

/* Whether every part's worker has every length. */
static bool all_done(const struct slave_cpa *c)
{
    if (!c->running)
        return false;
    for (size_t i = 0; i < c->nheld; i++)
        if (c->held[i].w == NULL || !ips2_cpa_worker_done(c->held[i].w))
            return false;
    return true;
}

/* The state of the parts together: failed if one failed, done if all
 * are (the best candidate: the longest, ties to the smallest gid), else
 * idle with the first waiting node of the first part not done. */
static void send_status(struct slave_cpa *c, uint32_t probe)
{
    struct ips2_cpa_candidate best = {0, 0, 0};
    uint32_t state = IPS2_CPA_STATE_IDLE, about = c->nheld ? c->held[0].part : 0;
    char text[2 * ERR_LEN] = "";
    if (c->failed || !c->running) {
        state = IPS2_CPA_STATE_FAILED;
        about = c->failed_part;
        snprintf(text, sizeof text, "%s", c->why[0] ? c->why : "no worker for the query");
    } else if (all_done(c)) {
        state = IPS2_CPA_STATE_DONE;
        for (size_t i = 0; i < c->nheld; i++) {
            struct ips2_cpa_candidate cand;
            ips2_cpa_worker_candidate(c->held[i].w, &cand);
            if (cand.found && (!best.found || cand.length > best.length ||
                               (cand.length == best.length && cand.gid < best.gid)))
                best = cand;
        }
    } else {
        for (size_t i = 0; i < c->nheld; i++)
            if (!ips2_cpa_worker_done(c->held[i].w)) {
                about = c->held[i].part;
                ips2_cpa_worker_stuck(c->held[i].w, text, sizeof text);
                break;
            }
    }
    pvm_initsend(PvmDataDefault);
    ips2_pk_i32(c->query);
    ips2_pk_u32(state);
    ips2_pk_i64(c->sent);
    ips2_pk_i64(c->received);
    ips2_pk_u32(best.found ? 1 : 0);
    ips2_pk_i64((int64_t)best.gid);
    ips2_pk_i64(best.length);
    ips2_pk_str(text);
    ips2_pk_u32(probe);
    ips2_pk_u32(about);
    pvm_send(c->master, IPS2_TAG_CPA_STATUS);
}

static void fail(struct slave_cpa *c, uint32_t part, const char *what, const char *err)
{
    if (c->failed)
        return;
    c->failed = true;
    c->failed_part = part;
    snprintf(c->why, sizeof c->why, "%s: %s", what, err);
}

/* --- LOAD, CROSS ------------------------------------------------------- */

static void load(struct slave_cpa *c)
{
    int32_t id = 0;
    uint32_t part = 0, nparts = 0;
    char *path = NULL, err[ERR_LEN] = "";
    void *ends = NULL, *meta = NULL;
    size_t nends = 0, nmeta = 0;
    struct ips2_cpa_meta *m = NULL;
    if (ips2_upk_i32(&id) < 0 || ips2_upk_str(&path) < 0 || ips2_upk_u32(&part) < 0 ||
        ips2_upk_u32(&nparts) < 0 || part >= nparts) {
        free(path);
        send_loaded(c, id, part, "bad CPA_LOAD message", NULL, 0, NULL, 0);
        return;
    }
    if (id != c->id || nparts != c->nparts) { /* a new part set */
        drop_parts(c);
        c->id = id;
        c->nparts = nparts;
    }
    drop_query(c);
    struct held *h = held_part(c, part);
    if (h == NULL) {
        struct held *v = realloc(c->held, (c->nheld + 1) * sizeof *v);
        if (v == NULL) {
            free(path);
            send_loaded(c, id, part, "out of memory", NULL, 0, NULL, 0);
            return;
        }
        c->held = v;
        h = &c->held[c->nheld++];
        memset(h, 0, sizeof *h);
        h->part = part;
    }
    ips2_pag_free(h->pag);
    h->pag = NULL;
    /* without its shares: they stay in the file, and what needs them
     * streams them (the CPU per procedure below, a query's zeroed weights,
     * the shares of the path's segments in walk) */
    if (ips2_pag_read_lazy(path, &h->pag, err, sizeof err) == 0) {
        ips2_pag_set_part(h->pag, part);
        ends = ips2_pag_ends_encode(h->pag, &nends);
        if (ends == NULL)
            snprintf(err, sizeof err, "out of memory encoding the part's ends");
        else if (ips2_cpa_meta_from_pag(h->pag, &m, err, sizeof err) == 0 &&
                 ips2_cpa_meta_add_cpu(m, h->pag, err, sizeof err) == 0)
            ips2_cpa_meta_encode(m, &meta, &nmeta, err, sizeof err);
    }
    if (meta == NULL) { /* not held after all */
        ips2_pag_free(h->pag);
        *h = c->held[--c->nheld];
    }
    send_loaded(c, id, part,
                meta != NULL ? NULL
                : err[0]     ? err
                             : "cannot load the part",
                ends, nends, meta, nmeta);
    ips2_cpa_meta_free(m);
    free(ends);
    free(meta);
    free(path);
}

static void cross(struct slave_cpa *c)
{
    int32_t id = 0;
    uint32_t part = 0, n = 0;
    void *data = NULL;
    size_t size = 0;
    char err[ERR_LEN] = "";
    if (ips2_upk_i32(&id) < 0 || ips2_upk_u32(&part) < 0 ||
        ips2_upk_blob(&data, &size, BLOB_MAX) < 0 || ips2_upk_u32(&n) < 0) {
        free(data);
        send_ready(c, id, part, "bad CPA_CROSS message");
        return;
    }
    struct held *h = held_part(c, part);
    if (id != c->id || h == NULL || n != c->nparts) {
        free(data);
        send_ready(c, id, part,
                   h == NULL || id != c->id ? "no part loaded" : "bad CPA_CROSS message");
        return;
    }
    int *tids = calloc(n ? n : 1, sizeof *tids);
    bool ok = tids != NULL;
    for (uint32_t i = 0; ok && i < n; i++) {
        int32_t t = 0;
        ok = ips2_upk_i32(&t) >= 0;
        tids[i] = t;
    }
    if (!ok) {
        free(tids);
        free(data);
        send_ready(c, id, part, "bad CPA_CROSS message");
        return;
    }
    free(c->tids);
    c->tids = tids;
    drop_query(c);
    int rc = ips2_pag_cross_apply(h->pag, data, size, "CPA_CROSS", err, sizeof err);
    free(data);
    send_ready(c, id, part, rc == 0 ? NULL : err);
}

/* --- the forward diffusion ------------------------------------------------- */

/* Applies one batch (already decoded) to the part it is for. */
static void deliver_batch(struct slave_cpa *c, const struct ips2_cpa_batch *b, const char *from)
{
    char err[ERR_LEN];
    struct held *h = held_part(c, b->to_part);
    if (h == NULL || h->w == NULL)
        fail(c, b->to_part, from, "addressed to a part not held here");
    else if (ips2_cpa_worker_deliver(h->w, b, err, sizeof err) != 0)
        fail(c, h->part, "deliver", err);
    c->dirty = true;
}

/* Sends b to the slave of its part, or passes it to the part here. */
static void route_batch(struct slave_cpa *c, uint32_t from_part, const struct ips2_cpa_batch *b)
{
    char err[ERR_LEN];
    if (held_part(c, b->to_part) != NULL) {
        deliver_batch(c, b, "batch between parts here");
        return;
    }
    void *data = NULL;
    size_t size = 0;
    if (b->to_part >= c->nparts || c->tids == NULL) {
        fail(c, from_part, "batch", "for a part the query does not have");
    } else if (ips2_cpa_batch_encode(b, &data, &size, err, sizeof err) != 0) {
        fail(c, from_part, "batch", err);
    } else {
        pvm_initsend(PvmDataDefault);
        ips2_pk_i32(c->query);
        ips2_pk_blob(data, size);
        if (pvm_send(c->tids[b->to_part], IPS2_TAG_CPA_BATCH) < 0)
            fail(c, from_part, "batch", "cannot send to the slave of another part");
        else
            c->sent++;
    }
    free(data);
}

/* Steps the workers and routes every batch they have, until none has
 * anything more to send; then STATUS if a worker failed or all have just
 * become done (idle workers say so only when probed: one STATUS per step
 * was most of the master's work on graphs whose parts wait for each other
 * at every few nodes). */
static void run(struct slave_cpa *c)
{
    char err[ERR_LEN];
    bool again = c->running;
    c->dirty = false;
    while (again && !c->failed) {
        again = false;
        for (size_t i = 0; i < c->nheld && !c->failed; i++) {
            struct held *h = &c->held[i];
            if (ips2_cpa_worker_step(h->w, err, sizeof err) != 0) {
                fail(c, h->part, "step", err);
                break;
            }
            struct ips2_cpa_batch b = {0};
            while (!c->failed && ips2_cpa_worker_take_batch(h->w, &b) == 1) {
                again = true;
                route_batch(c, h->part, &b);
                ips2_cpa_batch_free(&b);
                memset(&b, 0, sizeof b);
            }
        }
    }
    c->dirty = false;
    if (c->failed || (!c->said_done && all_done(c))) {
        c->said_done = !c->failed;
        send_status(c, 0);
    }
}

/* A batch from a peer slave, as its bytes. */
static void deliver(struct slave_cpa *c, const void *data, size_t size)
{
    char err[ERR_LEN];
    struct ips2_cpa_batch b = {0};
    c->received++;
    if (c->failed || !c->running)
        return;
    if (ips2_cpa_batch_decode(data, size, "CPA_BATCH", &b, err, sizeof err) != 0)
        fail(c, c->nheld ? c->held[0].part : 0, "batch from a peer", err);
    else
        deliver_batch(c, &b, "batch from a peer");
    ips2_cpa_batch_free(&b);
}

/* The QUERY's entries for the parts held here: a worker each. */
static int start_workers(struct slave_cpa *c, uint32_t mode, int32_t zproc, uint32_t zpart,
                         int32_t zpid, char *err, size_t errlen)
{
    uint32_t count = 0;
    if (ips2_upk_u32(&count) < 0) {
        snprintf(err, errlen, "bad CPA_QUERY message");
        return -1;
    }
    for (uint32_t k = 0; k < count; k++) {
        uint32_t part = 0;
        char *app = NULL, *za = NULL;
        int rc = ips2_upk_u32(&part);
        if (rc >= 0)
            rc = ips2_upk_str(&app);
        if (rc >= 0)
            rc = ips2_upk_str(&za);
        struct held *h = rc >= 0 ? held_part(c, part) : NULL;
        if (h == NULL || h->w != NULL) {
            free(app);
            free(za);
            snprintf(err, errlen, rc < 0 ? "bad CPA_QUERY message" : "part %u: not held here",
                     part);
            return -1;
        }
        h->app = nonempty(app);
        h->zero_app = nonempty(za);
        h->q = (struct ips2_cpa_query){
            .mode = (enum ips2_cpa_mode)mode,
            .app = h->app,
            .zero_procedure = c->zero_proc,
            .zero_process = zproc,
            .zero_part = zpart,
            .zero_pid = zpid,
            .zero_app = h->zero_app,
        };
        if (ips2_cpa_worker_new(h->pag, c->nparts, &h->q, &h->w, err, errlen) != 0)
            return -1;
    }
    for (size_t i = 0; i < c->nheld; i++)
        if (c->held[i].w == NULL) {
            snprintf(err, errlen, "part %u: not in the query", c->held[i].part);
            return -1;
        }
    return 0;
}

static void query(struct slave_cpa *c)
{
    int32_t q = 0, zproc = 0, zpid = 0;
    uint32_t mode = 0, zpart = 0;
    char *zp = NULL, err[ERR_LEN] = "";
    int rc = ips2_upk_i32(&q);
    if (rc >= 0)
        rc = ips2_upk_u32(&mode);
    if (rc >= 0)
        rc = ips2_upk_str(&zp);
    if (rc >= 0)
        rc = ips2_upk_i32(&zproc);
    if (rc >= 0)
        rc = ips2_upk_u32(&zpart);
    if (rc >= 0)
        rc = ips2_upk_i32(&zpid);
    drop_query(c);
    c->query = q;
    c->sent = c->received = 0;
    c->zero_proc = nonempty(zp);
    c->running = true;
    if (rc < 0 || mode > IPS2_CPA_INTER) {
        fail(c, 0, "query", "bad CPA_QUERY message");
    } else if (c->nheld == 0 || c->tids == NULL) {
        fail(c, 0, "query", "no part loaded and connected");
    } else if (start_workers(c, mode, zproc, zpart, zpid, err, sizeof err) != 0) {
        fail(c, c->held[0].part, "query", err);
    }
    /* the batches that came early: this query's are delivered, older ones dropped */
    size_t keep = 0;
    for (size_t i = 0; i < c->npend; i++) {
        struct pending *p = &c->pend[i];
        if (p->query == q)
            deliver(c, p->data, p->size);
        if (p->query > q)
            c->pend[keep++] = *p;
        else
            free(p->data);
    }
    c->npend = keep;
    run(c);
}

static void batch(struct slave_cpa *c)
{
    int32_t q = 0;
    void *data = NULL;
    size_t size = 0;
    if (ips2_upk_i32(&q) < 0 || ips2_upk_blob(&data, &size, BLOB_MAX) < 0) {
        free(data);
        if (c->running)
            fail(c, 0, "batch from a peer", "bad CPA_BATCH message");
        send_status(c, 0);
        return;
    }
    if (q == c->query && c->running) {
        deliver(c, data, size);
        free(data);
        c->dirty = true; /* stepped below, once no more batches wait */
        return;
    }
    if (q > c->query) {
        if (c->npend == c->cap_pend) {
            size_t cap = c->cap_pend ? 2 * c->cap_pend : 16;
            struct pending *v = realloc(c->pend, cap * sizeof *v);
            if (v == NULL) {
                free(data);
                return;
            }
            c->pend = v;
            c->cap_pend = cap;
        }
        c->pend[c->npend++] = (struct pending){q, data, size};
        return;
    }
    free(data); /* an older query's */
}

/* --- the backward walk ---------------------------------------------------- */

/* Sends the chunk (emptied once encoded: a path's shares are most of a
 * slave's memory, and the message is a second copy of them). */
static void send_segments(struct slave_cpa *c, int32_t q, uint32_t seq, int done,
                          struct ips2_cpa_path *chunk, const char *err)
{
    void *data = NULL;
    size_t size = 0;
    char e[ERR_LEN] = "";
    if (err == NULL && ips2_cpa_path_encode(chunk, &data, &size, e, sizeof e) != 0)
        err = e;
    ips2_cpa_path_free(chunk);
    pvm_initsend(PvmDataDefault);
    ips2_pk_i32(q);
    ips2_pk_u32(seq);
    ips2_pk_u32(done || err != NULL);
    ips2_pk_blob(data, err == NULL ? size : 0);
    ips2_pk_str(err);
    pvm_send(c->master, IPS2_TAG_CPA_SEGMENTS);
    free(data);
}

/* The shares of the chunk's CPU segments in the parts held here, which
 * were read without them: one pass over each such part's shares (the
 * master shows them as a part read whole would have given them). */
static int add_shares(struct slave_cpa *c, struct ips2_cpa_path *chunk, char *err, size_t errlen)
{
    if (c->nheld == 0 || chunk->nsegs == 0)
        return 0;
    struct ips2_pag **parts = calloc(c->nparts ? c->nparts : 1, sizeof *parts);
    if (parts == NULL) {
        snprintf(err, errlen, "out of memory for the path's shares");
        return -1;
    }
    for (size_t i = 0; i < c->nheld; i++)
        if (c->held[i].part < c->nparts)
            parts[c->held[i].part] = c->held[i].pag; /* the others: NULL */
    int rc = ips2_cpa_path_add_shares(chunk, parts, c->nparts, &c->held[0].q, err, errlen);
    free(parts);
    return rc;
}

static void walk(struct slave_cpa *c)
{
    int32_t q = 0;
    uint32_t seq = 0;
    void *data = NULL;
    size_t size = 0;
    char err[ERR_LEN] = "";
    struct ips2_cpa_walk in, next;
    struct ips2_cpa_path chunk;
    ips2_cpa_path_init(&chunk);
    memset(&next, 0, sizeof next);
    if (ips2_upk_i32(&q) < 0 || ips2_upk_u32(&seq) < 0 ||
        ips2_upk_blob(&data, &size, BLOB_MAX) < 0) {
        free(data);
        send_segments(c, q, seq, 1, &chunk, "bad CPA_WALK message");
        return;
    }
    int rc = ips2_cpa_walk_decode(data, size, "CPA_WALK", &in, err, sizeof err);
    free(data);
    struct held *h = rc == 0 ? held_part(c, IPS2_PAG_GID_PART(in.gid)) : NULL;
    if (rc == 0 && (q != c->query || !c->running || h == NULL || h->w == NULL)) {
        if (h == NULL)
            snprintf(err, sizeof err, "a walk from node %llu, of a part not held here",
                     (unsigned long long)in.gid);
        else
            snprintf(err, sizeof err, "a walk of query %d, but the workers are of query %d", (int)q,
                     (int)c->query);
        rc = -1;
    }
    /* walk while the path stays in parts held here */
    while (rc == 0) {
        rc = ips2_cpa_worker_walk(h->w, &in, &chunk, &next, err, sizeof err);
        if (rc != 0 || next.done || (h = held_part(c, IPS2_PAG_GID_PART(next.gid))) == NULL)
            break;
        in = next;
    }
    if (rc == 0)
        rc = add_shares(c, &chunk, err, sizeof err);
    if (rc == 0 && !next.done && IPS2_PAG_GID_PART(next.gid) >= c->nparts) {
        snprintf(err, sizeof err, "the walk goes on in part %u of %u", IPS2_PAG_GID_PART(next.gid),
                 c->nparts);
        rc = -1;
    }
    /* A dependence arc's source event can end after its destination's
     * (a send returns after the receive did); its weight is 0 then.  The
     * path's wire format wants begin <= end: such an arc is sent as
     * starting when it ends (tcl_cpa.c shows local paths the same way). */
    for (size_t i = 0; i < chunk.nsegs; i++)
        if (chunk.segs[i].begin > chunk.segs[i].end)
            chunk.segs[i].begin = chunk.segs[i].end;
    send_segments(c, q, seq, next.done, &chunk, rc == 0 ? NULL : err);
    ips2_cpa_path_free(&chunk);
    if (rc != 0 || next.done)
        return;
    if (ips2_cpa_walk_encode(&next, &data, &size, err, sizeof err) != 0) {
        send_segments(c, q, seq + 1, 1, &chunk, err);
        return;
    }
    pvm_initsend(PvmDataDefault);
    ips2_pk_i32(q);
    ips2_pk_u32(seq + 1);
    ips2_pk_blob(data, size);
    free(data);
    if (pvm_send(c->tids[IPS2_PAG_GID_PART(next.gid)], IPS2_TAG_CPA_WALK) < 0)
        send_segments(c, q, seq + 1, 1, &chunk, "cannot hand the walk to the next part's slave");
}

void slave_cpa_handle(struct slave_cpa *c, int tag, int src)
{
    (void)src;
    if (c->dirty && tag == IPS2_TAG_CPA_PROBE)
        run(c);
    switch (tag) {
    case IPS2_TAG_CPA_LOAD:
        load(c);
        break;
    case IPS2_TAG_CPA_CROSS:
        cross(c);
        break;
    case IPS2_TAG_CPA_QUERY:
        query(c);
        break;
    case IPS2_TAG_CPA_PROBE: {
        int32_t q = 0;
        uint32_t round = 0;
        if (ips2_upk_i32(&q) >= 0 && ips2_upk_u32(&round) >= 0 && q == c->query)
            send_status(c, round);
        break;
    }
    case IPS2_TAG_CPA_END: {
        int32_t q = 0;
        if (ips2_upk_i32(&q) >= 0 && q == c->query)
            drop_query(c);
        break;
    }
    case IPS2_TAG_CPA_BATCH:
        batch(c);
        /* the batches that wait are taken first, then one step for all */
        if (c->dirty && pvm_probe(-1, IPS2_TAG_CPA_BATCH) <= 0)
            run(c);
        break;
    case IPS2_TAG_CPA_WALK:
        walk(c);
        break;
    default:
        break;
    }
}
