/*
 * slave_cpa.c - the slave's side of the critical path (ips2_proto.h,
 * tags 300-399; the conversation is drawn there).  A slave spawned for
 * the critical path holds one PAG part (LOAD), gets its cross-machine arcs
 * from the master (CROSS), then runs one worker per query (QUERY): it
 * steps the worker, sends the path lengths for other parts straight to
 * their slaves (BATCH, one message per destination per step), applies the
 * ones that come in, and tells the master its state (STATUS) when it is
 * done, when it failed and when the master probes it.  The backward walk comes as WALK: the slave
 * walks while the path stays in its part, sends the segments to the
 * master and hands the walk on to the next part's slave.
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

struct slave_cpa {
    int master;
    struct ips2_pag *pag;
    uint32_t part, nparts;
    int *tids; /* nparts: the slave of each part */
    struct ips2_cpa_worker *w;
    struct ips2_cpa_query q;
    char *app, *zero_proc, *zero_app;
    int32_t query;
    int64_t sent, received;
    bool failed;
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
    ips2_cpa_worker_free(c->w);
    c->w = NULL;
    free(c->app);
    free(c->zero_proc);
    free(c->zero_app);
    c->app = c->zero_proc = c->zero_app = NULL;
    c->failed = false;
    c->said_done = false;
    c->why[0] = '\0';
}

void slave_cpa_free(struct slave_cpa *c)
{
    if (c == NULL)
        return;
    drop_query(c);
    ips2_pag_free(c->pag);
    free(c->tids);
    for (size_t i = 0; i < c->npend; i++)
        free(c->pend[i].data);
    free(c->pend);
    free(c);
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

static void send_loaded(struct slave_cpa *c, int32_t id, const char *err, const void *ends,
                        size_t nends, const void *meta, size_t nmeta)
{
    pvm_initsend(PvmDataDefault);
    ips2_pk_i32(id);
    ips2_pk_i32(err == NULL);
    ips2_pk_str(err);
    ips2_pk_blob(ends, ends ? nends : 0);
    ips2_pk_blob(meta, meta ? nmeta : 0);
    uint32_t nw = 0;
    if (err == NULL && c->pag != NULL)
        nw =
            c->pag->nwarnings < IPS2_CPA_WARN_MAX ? (uint32_t)c->pag->nwarnings : IPS2_CPA_WARN_MAX;
    ips2_pk_u32(nw);
    for (uint32_t i = 0; i < nw; i++)
        ips2_pk_str(c->pag->warnings[i]);
    pvm_send(c->master, IPS2_TAG_CPA_LOADED);
}

static void send_ready(struct slave_cpa *c, int32_t id, const char *err)
{
    pvm_initsend(PvmDataDefault);
    ips2_pk_i32(id);
    ips2_pk_i32(err == NULL);
    ips2_pk_str(err);
    pvm_send(c->master, IPS2_TAG_CPA_READY);
}

static void send_status(struct slave_cpa *c, uint32_t probe)
{
    struct ips2_cpa_candidate cand = {0, 0, 0};
    uint32_t state = IPS2_CPA_STATE_IDLE;
    char text[2 * ERR_LEN] = "";
    if (c->failed || c->w == NULL) {
        state = IPS2_CPA_STATE_FAILED;
        snprintf(text, sizeof text, "%s", c->why[0] ? c->why : "no worker for the query");
    } else if (ips2_cpa_worker_done(c->w)) {
        state = IPS2_CPA_STATE_DONE;
        ips2_cpa_worker_candidate(c->w, &cand);
    } else {
        ips2_cpa_worker_stuck(c->w, text, sizeof text);
    }
    pvm_initsend(PvmDataDefault);
    ips2_pk_i32(c->query);
    ips2_pk_u32(state);
    ips2_pk_i64(c->sent);
    ips2_pk_i64(c->received);
    ips2_pk_u32(cand.found ? 1 : 0);
    ips2_pk_i64((int64_t)cand.gid);
    ips2_pk_i64(cand.length);
    ips2_pk_str(text);
    ips2_pk_u32(probe);
    pvm_send(c->master, IPS2_TAG_CPA_STATUS);
}

static void fail(struct slave_cpa *c, const char *what, const char *err)
{
    c->failed = true;
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
        send_loaded(c, id, "bad CPA_LOAD message", NULL, 0, NULL, 0);
        return;
    }
    drop_query(c);
    ips2_pag_free(c->pag);
    c->pag = NULL;
    free(c->tids);
    c->tids = NULL;
    c->part = part;
    c->nparts = nparts;
    if (ips2_pag_read(path, &c->pag, err, sizeof err) == 0) {
        ips2_pag_set_part(c->pag, part);
        ends = ips2_pag_ends_encode(c->pag, &nends);
        if (ends == NULL)
            snprintf(err, sizeof err, "out of memory encoding the part's ends");
        else if (ips2_cpa_meta_from_pag(c->pag, &m, err, sizeof err) == 0)
            ips2_cpa_meta_encode(m, &meta, &nmeta, err, sizeof err);
    }
    send_loaded(c, id,
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
    void *data = NULL;
    size_t size = 0;
    uint32_t n = 0;
    char err[ERR_LEN] = "";
    if (ips2_upk_i32(&id) < 0 || ips2_upk_blob(&data, &size, BLOB_MAX) < 0 ||
        ips2_upk_u32(&n) < 0 || n != c->nparts || c->pag == NULL) {
        free(data);
        send_ready(c, id, c->pag == NULL ? "no part loaded" : "bad CPA_CROSS message");
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
        send_ready(c, id, "bad CPA_CROSS message");
        return;
    }
    free(c->tids);
    c->tids = tids;
    drop_query(c);
    int rc = ips2_pag_cross_apply(c->pag, data, size, "CPA_CROSS", err, sizeof err);
    free(data);
    send_ready(c, id, rc == 0 ? NULL : err);
}

/* --- the forward diffusion ------------------------------------------------- */

/* Steps the worker and sends every batch it has for other parts, until
 * it has nothing more to send; then STATUS if the worker failed or has
 * just become done (an idle worker says so only when probed: one STATUS
 * per step was most of the master's work on graphs whose parts wait for
 * each other at every few nodes). */
static void run(struct slave_cpa *c)
{
    char err[ERR_LEN];
    c->dirty = false;
    while (c->w != NULL && !c->failed) {
        if (ips2_cpa_worker_step(c->w, err, sizeof err) != 0) {
            fail(c, "step", err);
            break;
        }
        struct ips2_cpa_batch b = {0};
        int any = 0;
        while (!c->failed && ips2_cpa_worker_take_batch(c->w, &b) == 1) {
            void *data = NULL;
            size_t size = 0;
            any = 1;
            if (b.to_part >= c->nparts || c->tids == NULL) {
                fail(c, "batch", "for a part the query does not have");
            } else if (ips2_cpa_batch_encode(&b, &data, &size, err, sizeof err) != 0) {
                fail(c, "batch", err);
            } else {
                pvm_initsend(PvmDataDefault);
                ips2_pk_i32(c->query);
                ips2_pk_blob(data, size);
                if (pvm_send(c->tids[b.to_part], IPS2_TAG_CPA_BATCH) < 0)
                    fail(c, "batch", "cannot send to the slave of another part");
                else
                    c->sent++;
            }
            free(data);
            ips2_cpa_batch_free(&b);
            memset(&b, 0, sizeof b);
        }
        if (!any)
            break;
    }
    if (c->failed || (c->w != NULL && !c->said_done && ips2_cpa_worker_done(c->w))) {
        c->said_done = !c->failed;
        send_status(c, 0);
    }
}

static void deliver(struct slave_cpa *c, const void *data, size_t size)
{
    char err[ERR_LEN];
    struct ips2_cpa_batch b = {0};
    c->received++;
    if (c->failed || c->w == NULL)
        return;
    if (ips2_cpa_batch_decode(data, size, "CPA_BATCH", &b, err, sizeof err) != 0)
        fail(c, "batch from a peer", err);
    else if (b.to_part != c->part)
        fail(c, "batch from a peer", "addressed to another part");
    else if (ips2_cpa_worker_deliver(c->w, &b, err, sizeof err) != 0)
        fail(c, "deliver", err);
    ips2_cpa_batch_free(&b);
}

static void query(struct slave_cpa *c)
{
    int32_t q = 0, zproc = 0, zpid = 0;
    uint32_t mode = 0, zpart = 0;
    char *app = NULL, *zp = NULL, *za = NULL, err[ERR_LEN] = "";
    int rc = ips2_upk_i32(&q);
    if (rc >= 0)
        rc = ips2_upk_u32(&mode);
    if (rc >= 0)
        rc = ips2_upk_str(&app);
    if (rc >= 0)
        rc = ips2_upk_str(&zp);
    if (rc >= 0)
        rc = ips2_upk_i32(&zproc);
    if (rc >= 0)
        rc = ips2_upk_u32(&zpart);
    if (rc >= 0)
        rc = ips2_upk_i32(&zpid);
    if (rc >= 0)
        rc = ips2_upk_str(&za);
    drop_query(c);
    c->query = q;
    c->sent = c->received = 0;
    c->app = nonempty(app);
    c->zero_proc = nonempty(zp);
    c->zero_app = nonempty(za);
    if (rc < 0 || mode > IPS2_CPA_INTER) {
        fail(c, "query", "bad CPA_QUERY message");
    } else if (c->pag == NULL || c->tids == NULL) {
        fail(c, "query", "no part loaded and connected");
    } else {
        c->q = (struct ips2_cpa_query){
            .mode = (enum ips2_cpa_mode)mode,
            .app = c->app,
            .zero_procedure = c->zero_proc,
            .zero_process = zproc,
            .zero_part = zpart,
            .zero_pid = zpid,
            .zero_app = c->zero_app,
        };
        if (ips2_cpa_worker_new(c->pag, c->nparts, &c->q, &c->w, err, sizeof err) != 0)
            fail(c, "query", err);
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
        if (c->w != NULL)
            fail(c, "batch from a peer", "bad CPA_BATCH message");
        send_status(c, 0);
        return;
    }
    if (q == c->query && (c->w != NULL || c->failed)) {
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

static void send_segments(struct slave_cpa *c, int32_t q, uint32_t seq, int done,
                          const struct ips2_cpa_path *chunk, const char *err)
{
    void *data = NULL;
    size_t size = 0;
    char e[ERR_LEN] = "";
    if (err == NULL && ips2_cpa_path_encode(chunk, &data, &size, e, sizeof e) != 0)
        err = e;
    pvm_initsend(PvmDataDefault);
    ips2_pk_i32(q);
    ips2_pk_u32(seq);
    ips2_pk_u32(done || err != NULL);
    ips2_pk_blob(data, err == NULL ? size : 0);
    ips2_pk_str(err);
    pvm_send(c->master, IPS2_TAG_CPA_SEGMENTS);
    free(data);
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
    if (rc == 0 && (q != c->query || c->w == NULL)) {
        snprintf(err, sizeof err, "a walk of query %d, but the worker is of query %d", (int)q,
                 (int)c->query);
        rc = -1;
    }
    /* walk while the path stays in this part */
    while (rc == 0) {
        rc = ips2_cpa_worker_walk(c->w, &in, &chunk, &next, err, sizeof err);
        if (rc != 0 || next.done || IPS2_PAG_GID_PART(next.gid) != c->part)
            break;
        in = next;
    }
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
