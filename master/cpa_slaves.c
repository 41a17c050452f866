/*
 * cpa_slaves.c - critical-path queries on PVM slaves (cpa.h): the master's
 * side of ips2_proto.h's 300-399 conversation, over the slave set of
 * pvm_slaves.c and driven from the Tcl event loop.
 *
 * Opening a set claims, for each part file, the slave of its machine: a
 * live run's slave (which then answers reductions and critical-path
 * requests alike), or one spawned into the set for the critical path only
 * (in a private VM and slave set started here when there is no live run).
 * Each slave reads the parts it holds (LOAD) and sends back only what the
 * master needs: the ends that may pair with another machine's, the part's
 * metadata for profiles, its warnings (LOADED).  The master pairs the ends
 * of all parts (ips2_pag_match_ends over end-only parts) and gives each
 * part its cross arcs and the tids of the slaves holding the others
 * (CROSS).  A query (QUERY, one message per slave for its parts) then runs
 * on the slaves: they exchange path lengths directly (BATCH) and say when
 * their parts are done (STATUS).  Every slave done: the terminal is the
 * best candidate.  The master probes the slaves when it has heard nothing
 * for CPA_PROBE_MS; two probe rounds that find every slave idle with as
 * many batches received as sent, and the same totals: the graph is stuck
 * (a cycle, an arc without its source), an error naming the first waiting
 * node.  The walk (WALK) goes from slave to slave; the master orders the
 * segment chunks by their sequence number.
 *
 * Nothing here waits: each step is a reaction to a slave's message (the
 * callbacks pvm_slaves.c calls from its event-loop handler) or to the
 * set's Tcl timer, and a completed query's callback is called from an
 * idle handler.  Queries queue and run one after the other.  A slave's
 * task exit fails the query in flight, and so does silence for
 * CPA_PVM_TIMEOUT_S (or $IPS2_CPA_TIMEOUT_S, read when a set opens and
 * when a query starts): the error names the machines whose slaves did not
 * answer (those that have not answered the request or the probe round in
 * flight; otherwise a last probe round finds them), they are killed
 * (SIGKILL through their pvmd, so a stopped one ends too) and the set is
 * broken, so the next query opens a new one.  cpa_pvm_start returns
 * while the slaves load (queries started meanwhile run once the set is
 * ready, or fail with the reason it could not open); the blocking calls
 * (cpa_pvm_open, cpa_pvm_run) serve the event loop until theirs is done.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tcl.h>
#include <time.h>

#include "cpa.h"
#include "ips2_proto.h"
#include "model.h"
#include "pvm_slaves.h"
#include "pvm_vm.h"

#define CPA_PVM_TIMEOUT_S 120
#define CPA_PROBE_MS      20         /* quiet this long during a diffusion: probe the slaves */
#define CPA_FIND_MS       1000       /* a query timed out: how long slaves have to answer a probe */
#define CPA_WALK_MAX      (1u << 24) /* chunks of one walk (a part crossing each) */
#define ERR_LEN           1024

enum stage {
    S_LOADING,    /* LOAD sent, gathering LOADED */
    S_CONNECTING, /* CROSS sent, gathering READY */
    S_READY,      /* running queries */
    S_BROKEN,     /* a slave died or hung: no more queries */
};

enum step {
    Q_NONE,    /* no query in flight */
    Q_FORWARD, /* the forward diffusion */
    Q_WALK,    /* the walk back */
    Q_FINDING, /* timed out: a last probe round finds the silent slaves */
};

struct status {
    int32_t query; /* 0: none of this query yet */
    uint32_t state;
    int64_t sent, received;
    uint32_t found;
    int64_t gid, length;
    uint32_t part;
    char text[512];
};

/* A query started and not yet delivered. */
struct job {
    int id; /* cpa_set_cancel's number */
    struct ips2_cpa_query q;
    char *app, *zero_procedure, *zero_app;
    cpa_done_fn *done;
    void *arg;
    struct ips2_cpa_path path; /* the result, once complete */
    char *err;                 /* or why not */
    struct job *next;
};

/* One slave the set claimed. */
struct member {
    int slave;    /* index in the slave set */
    bool spawned; /* for this set: told to quit when it is freed */
    bool gone;
    uint32_t *parts; /* the parts it holds */
    size_t nparts;
    struct status st, probe; /* its latest STATUS; its answer to the probe round in flight */
    bool silent;             /* Q_FINDING: has not answered */
};

struct cpa_pvm {
    struct cpa_set *set;
    struct ips2_slaves *slaves; /* Tcl_Preserve'd */
    struct ips2_vm *vm;         /* a private VM started for the set, or NULL */
    bool own_slaves;            /* slaves is the set's own (freed with it) */
    bool reuse;                 /* the set's slaves of the parts' machines may hold them */
    bool freed;
    struct member *m;
    size_t nm;
    size_t *holder; /* n: the member holding each part */
    int timeout_s;  /* silence this long: the silent slaves are hung */
    enum stage stage;
    char why[ERR_LEN]; /* S_BROKEN, or a failed open: why */
    Tcl_TimerToken timer;
    double heard; /* monotonic s of the last message of the conversation */

    /* opening */
    int32_t load_id;
    struct ips2_pag **ends;
    bool *answered; /* n */
    size_t left;
    cpa_view_fn *view;
    void *view_arg;

    /* queries */
    struct job *queue, *queue_tail; /* started, not yet run or running (the head) */
    struct job *finished;           /* complete, to deliver */
    bool deliver_pending;
    int next_job;
    int32_t q; /* the slaves' number of the query in flight */
    enum step step;
    const char *finding; /* Q_FINDING: what the query was doing */
    uint32_t round, rounds;
    int64_t last_total;
    struct ips2_cpa_path *chunks;
    size_t nchunks, got;
    int64_t last;
};

static const struct ips2_slave_cpa_events Events;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPA_PVM_TIMEOUT_S, or $IPS2_CPA_TIMEOUT_S when it is a positive number. */
static int timeout_of_env(void)
{
    const char *v = getenv("IPS2_CPA_TIMEOUT_S");
    char *end = NULL;
    long t = v != NULL ? strtol(v, &end, 10) : 0;
    return v != NULL && end != v && *end == '\0' && t > 0 && t <= 86400 ? (int)t
                                                                        : CPA_PVM_TIMEOUT_S;
}

bool cpa_pvm_connected(void)
{
    return ips2_slaves_connected();
}

bool cpa_set_stale(const struct cpa_set *s)
{
    const struct cpa_pvm *p = s->pvm;
    return p != NULL &&
           (p->stage == S_BROKEN || ips2_slaves_closed(p->slaves) || !ips2_slaves_connected());
}

static struct member *member_of(struct cpa_pvm *p, int slave)
{
    for (size_t u = 0; u < p->nm; u++)
        if (p->m[u].slave == slave)
            return &p->m[u];
    return NULL;
}

/* The machine of member u and its part files, for messages:
 * "MACHINE (FILE)" or "MACHINE (FILE, FILE)". */
static void name_member(const struct cpa_pvm *p, const struct member *mb, char *buf, size_t len)
{
    const struct cpa_set *s = p->set;
    const char *mach = NULL;
    for (size_t i = 0; i < mb->nparts && mach == NULL; i++) {
        const struct ips2_cpa_meta *meta = s->metas ? s->metas[mb->parts[i]] : NULL;
        if (meta != NULL && meta->machine != NULL && meta->machine[0] != '\0')
            mach = meta->machine;
    }
    size_t at = 0;
    if (mach != NULL)
        at = (size_t)snprintf(buf, len, "%s (", mach);
    for (size_t i = 0; i < mb->nparts && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "", s->files[mb->parts[i]]);
    if (mach != NULL && at < len)
        snprintf(buf + at, len - at, ")");
    if (mb->nparts == 0)
        snprintf(buf, len, "%s", ips2_slaves_machine(p->slaves, mb->slave));
}

static void arm(struct cpa_pvm *p, int ms);

/* --- delivering completed queries ------------------------------------------ */

static void free_job(struct job *j)
{
    free(j->app);
    free(j->zero_procedure);
    free(j->zero_app);
    free(j->err);
    ips2_cpa_path_free(&j->path);
    free(j);
}

static void deliver_proc(ClientData cd)
{
    struct cpa_pvm *p = cd;
    p->deliver_pending = false;
    Tcl_Preserve(p);
    while (p->finished != NULL && !p->freed) {
        struct job *j = p->finished;
        p->finished = j->next;
        if (j->err == NULL)
            j->done(j->arg, &j->path, NULL);
        else
            j->done(j->arg, NULL, j->err);
        free_job(j);
    }
    Tcl_Release(p);
}

/* The job is over: onto the finished list, delivered when idle. */
static void finish_job(struct cpa_pvm *p, struct job *j)
{
    j->next = NULL;
    struct job **tail = &p->finished;
    while (*tail != NULL)
        tail = &(*tail)->next;
    *tail = j;
    if (!p->deliver_pending && !p->freed) {
        p->deliver_pending = true;
        Tcl_DoWhenIdle(deliver_proc, p);
    }
}

static void fail_job(struct cpa_pvm *p, struct job *j, const char *err)
{
    free(j->err);
    j->err = strdup(err && err[0] ? err : "the query failed");
    ips2_cpa_path_free(&j->path);
    ips2_cpa_path_init(&j->path);
    finish_job(p, j);
}

static void start_next(struct cpa_pvm *p);

static void drop_chunks(struct cpa_pvm *p)
{
    for (size_t i = 0; i < p->nchunks; i++)
        ips2_cpa_path_free(&p->chunks[i]);
    free(p->chunks);
    p->chunks = NULL;
    p->nchunks = p->got = 0;
    p->last = -1;
}

/* The query in flight is over (err NULL: its path is in the job): END on
 * the slaves, deliver it, start the next one. */
static void end_query(struct cpa_pvm *p, const char *err)
{
    struct job *j = p->queue;
    if (j == NULL || p->step == Q_NONE)
        return;
    p->queue = j->next;
    if (p->queue == NULL)
        p->queue_tail = NULL;
    for (size_t u = 0; u < p->nm; u++)
        if (!p->m[u].gone)
            ips2_slaves_cpa_end(p->slaves, p->m[u].slave, p->q);
    p->step = Q_NONE;
    drop_chunks(p);
    if (err != NULL)
        fail_job(p, j, err);
    else
        finish_job(p, j);
    start_next(p);
}

/* The set cannot run queries any more: the one in flight and those
 * queued fail with err, later ones with "gone". */
static void broken(struct cpa_pvm *p, const char *err)
{
    /* queries started while the set was opening learn why it failed */
    bool opening = p->stage == S_LOADING || p->stage == S_CONNECTING;
    if (p->stage != S_BROKEN)
        snprintf(p->why, sizeof p->why, "%s", err);
    p->stage = S_BROKEN;
    if (p->timer != NULL)
        Tcl_DeleteTimerHandler(p->timer);
    p->timer = NULL;
    if (p->step != Q_NONE)
        end_query(p, err); /* starts nothing: broken */
    while (p->queue != NULL) {
        struct job *j = p->queue;
        p->queue = j->next;
        fail_job(p, j, opening ? p->why : "the critical-path slaves are gone");
    }
    p->queue_tail = NULL;
}

/* The members marked silent did not answer within the timeout while the
 * set was `doing` something: the error names their machines; they are
 * killed and the set is broken (the next query opens a new one). */
static void hung(struct cpa_pvm *p, const char *doing)
{
    char err[ERR_LEN];
    size_t at = (size_t)snprintf(err, sizeof err,
                                 "no answer in %d s from the critical-path slave of", p->timeout_s);
    size_t named = 0;
    for (size_t u = 0; u < p->nm; u++) {
        struct member *mb = &p->m[u];
        if (!mb->silent || mb->gone)
            continue;
        char who[ERR_LEN];
        name_member(p, mb, who, sizeof who);
        if (at < sizeof err)
            at += (size_t)snprintf(err + at, sizeof err - at, "%s %s", named ? "," : "", who);
        ips2_slaves_kill(p->slaves, mb->slave); /* a stopped slave too */
        named++;
    }
    if (named == 0 && at < sizeof err)
        at += (size_t)snprintf(err + at, sizeof err - at, " any part (all answered a probe)");
    if (at < sizeof err)
        snprintf(err + at, sizeof err - at, " %s; %s", doing,
                 named ? "killed it; the next query starts new slaves"
                       : "the next query starts new slaves");
    broken(p, err);
}

/* --- opening: LOAD, LOADED, CROSS, READY ------------------------------------- */

static void open_failed(struct cpa_pvm *p, const char *err)
{
    broken(p, err);
}

static void connect_all(struct cpa_pvm *p);

static void on_loaded(void *arg, int slave, int32_t id, uint32_t part, const char *err, void *ends,
                      size_t nends, void *meta, size_t nmeta, char *const *warnings,
                      size_t nwarnings)
{
    struct cpa_pvm *p = arg;
    struct cpa_set *s = p->set;
    struct member *mb = member_of(p, slave);
    char e[ERR_LEN] = "";
    p->heard = now_s();
    if (p->stage != S_LOADING || id != p->load_id || mb == NULL || part >= s->n ||
        p->holder[part] != (size_t)(mb - p->m) || p->answered[part]) {
        free(ends); /* an older load's */
        free(meta);
        return;
    }
    for (size_t w = 0; w < nwarnings; w++)
        cpa_set_warn(s, warnings[w]);
    int bad = 0;
    if (err != NULL) {
        snprintf(e, sizeof e, "%s", err[0] ? err : "cannot load the part");
        bad = 1;
    } else if (ips2_pag_ends_decode(ends, nends, s->files[part], &p->ends[part], e, sizeof e) !=
                   0 ||
               ips2_cpa_meta_decode(meta, nmeta, s->files[part], &s->metas[part], e, sizeof e) !=
                   0) {
        bad = 1;
    }
    free(ends);
    free(meta);
    if (!bad) {
        ips2_pag_set_part(p->ends[part], part);
        if (p->view != NULL && (p->view(p->view_arg, s->files[part], p->ends[part], &s->views[part],
                                        e, sizeof e) != 0 ||
                                cpa_view_pag(p->ends[part], &s->views[part], e, sizeof e) != 0 ||
                                cpa_view_meta(s->metas[part], &s->views[part], e, sizeof e) != 0))
            bad = 1;
    }
    if (bad) {
        open_failed(p, e);
        return;
    }
    p->answered[part] = true;
    if (--p->left == 0)
        connect_all(p);
}

/* Matching, then CROSS for every part. */
static void connect_all(struct cpa_pvm *p)
{
    struct cpa_set *s = p->set;
    char err[ERR_LEN];
    if (cpa_match_groups(p->ends, s->n, s->views, err, sizeof err) != 0) {
        open_failed(p, err);
        return;
    }
    int *holders = calloc(s->n ? s->n : 1, sizeof *holders);
    if (holders == NULL) {
        open_failed(p, "out of memory");
        return;
    }
    for (size_t k = 0; k < s->n; k++)
        holders[k] = p->m[p->holder[k]].slave;
    p->stage = S_CONNECTING; /* the same id: the part set loaded */
    p->left = s->n;
    for (size_t k = 0; k < s->n; k++) {
        p->answered[k] = false;
        for (size_t w = 0; w < p->ends[k]->nwarnings; w++)
            cpa_set_warn(s, p->ends[k]->warnings[w]);
        size_t size = 0;
        void *data = ips2_pag_cross_encode(p->ends[k], &size);
        if (data == NULL) {
            free(holders);
            open_failed(p, "out of memory encoding cross arcs");
            return;
        }
        int rc = ips2_slaves_cpa_cross(p->slaves, holders[k], p->load_id, (uint32_t)k, data, size,
                                       (uint32_t)s->n, holders);
        free(data);
        if (rc < 0) {
            snprintf(err, sizeof err, "cannot send to the slave of %s", s->files[k]);
            free(holders);
            open_failed(p, err);
            return;
        }
    }
    free(holders);
    arm(p, p->timeout_s * 1000);
}

static void on_ready(void *arg, int slave, int32_t id, uint32_t part, const char *err)
{
    struct cpa_pvm *p = arg;
    struct cpa_set *s = p->set;
    struct member *mb = member_of(p, slave);
    p->heard = now_s();
    if (p->stage != S_CONNECTING || id != p->load_id || mb == NULL || part >= s->n ||
        p->holder[part] != (size_t)(mb - p->m) || p->answered[part])
        return;
    if (err != NULL) {
        char e[ERR_LEN];
        snprintf(e, sizeof e, "%s: %s", s->files[part], err[0] ? err : "cross arcs refused");
        open_failed(p, e);
        return;
    }
    p->answered[part] = true;
    if (--p->left > 0)
        return;
    for (size_t k = 0; k < s->n; k++)
        ips2_pag_free(p->ends[k]);
    free(p->ends);
    p->ends = NULL;
    p->stage = S_READY;
    if (p->timer != NULL)
        Tcl_DeleteTimerHandler(p->timer);
    p->timer = NULL;
    start_next(p);
}

/* --- one query ------------------------------------------------------------ */

/* QUERY to every member, its parts' applications named as they name them. */
static int send_query(struct cpa_pvm *p, const struct ips2_cpa_query *query)
{
    struct cpa_set *s = p->set;
    for (size_t u = 0; u < p->nm; u++) {
        struct member *mb = &p->m[u];
        const char **apps = calloc(mb->nparts + 1, sizeof *apps);
        const char **zapps = calloc(mb->nparts + 1, sizeof *zapps);
        int rc = apps != NULL && zapps != NULL ? 0 : -1;
        for (size_t i = 0; rc == 0 && i < mb->nparts; i++) {
            apps[i] = cpa_view_app(&s->views[mb->parts[i]], query->app);
            zapps[i] = cpa_view_app(&s->views[mb->parts[i]], query->zero_app);
        }
        if (rc == 0)
            rc = ips2_slaves_cpa_query(p->slaves, mb->slave, p->q, (uint32_t)query->mode,
                                       query->zero_procedure, query->zero_process, query->zero_part,
                                       query->zero_pid, (uint32_t)mb->nparts, mb->parts, apps,
                                       zapps);
        free(apps);
        free(zapps);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static void send_probe(struct cpa_pvm *p, uint32_t round)
{
    for (size_t u = 0; u < p->nm; u++)
        if (!p->m[u].gone)
            ips2_slaves_cpa_probe(p->slaves, p->m[u].slave, p->q, round);
}

/* A new probe round of the forward pass. */
static void probe_round(struct cpa_pvm *p)
{
    p->round = ++p->rounds;
    for (size_t u = 0; u < p->nm; u++)
        p->m[u].probe.query = 0;
    send_probe(p, p->round);
}

/* Timed out while `doing`: a last probe round (CPA_FIND_MS) finds the
 * silent slaves, then hung() names them. */
static void find_silent(struct cpa_pvm *p, const char *doing)
{
    p->step = Q_FINDING;
    p->finding = doing;
    for (size_t u = 0; u < p->nm; u++)
        p->m[u].silent = !p->m[u].gone;
    p->round = UINT32_MAX;
    send_probe(p, p->round);
    arm(p, CPA_FIND_MS);
}

static void start_walk(struct cpa_pvm *p, uint64_t terminal);

static void start_next(struct cpa_pvm *p)
{
    struct job *j = p->queue;
    if (p->stage != S_READY || p->step != Q_NONE || j == NULL || p->freed)
        return;
    p->timeout_s = timeout_of_env();
    p->q = ips2_slaves_next_id(p->slaves);
    p->round = p->rounds = 0;
    p->last_total = -1;
    for (size_t u = 0; u < p->nm; u++)
        p->m[u].st.query = p->m[u].probe.query = 0;
    p->step = Q_FORWARD;
    p->heard = now_s();
    if (send_query(p, &j->q) != 0) {
        end_query(p, "cannot send the query to the slaves");
        return;
    }
    arm(p, CPA_PROBE_MS);
}

/* Totals of sent and received batches over the members' statuses of the
 * query in flight (probe: their answers to the round); how many
 * reported, how many are done. */
static void totals(const struct cpa_pvm *p, bool probe, size_t *reported, size_t *done,
                   int64_t *sent, int64_t *received)
{
    *reported = *done = 0;
    *sent = *received = 0;
    for (size_t u = 0; u < p->nm; u++) {
        const struct status *st = probe ? &p->m[u].probe : &p->m[u].st;
        if (st->query != p->q)
            continue;
        (*reported)++;
        *done += st->state == IPS2_CPA_STATE_DONE;
        *sent += st->sent;
        *received += st->received;
    }
}

static const char *file_of(const struct cpa_pvm *p, const struct member *mb, uint32_t part)
{
    if (part < p->set->n && p->holder[part] == (size_t)(mb - p->m))
        return p->set->files[part];
    return mb->nparts ? p->set->files[mb->parts[0]] : "?";
}

static void on_status(void *arg, int slave, const struct ips2_slave_cpa_status *in)
{
    struct cpa_pvm *p = arg;
    struct member *mb = member_of(p, slave);
    char err[ERR_LEN];
    p->heard = now_s();
    if (mb == NULL || p->step == Q_NONE || in->query != p->q)
        return;
    struct status m = {.query = in->query,
                       .state = in->state,
                       .sent = in->sent,
                       .received = in->received,
                       .found = in->found,
                       .gid = in->gid,
                       .length = in->length,
                       .part = in->part};
    snprintf(m.text, sizeof m.text, "%s", in->text);
    if (p->step == Q_FINDING) {
        if (in->probe == p->round)
            mb->silent = false;
        for (size_t u = 0; u < p->nm; u++)
            if (p->m[u].silent)
                return;
        hung(p, p->finding); /* all answered: "any part" */
        return;
    }
    if (p->step != Q_FORWARD)
        return;
    mb->st = m;
    if (in->probe != 0 && in->probe == p->round)
        mb->probe = m;
    if (m.state == IPS2_CPA_STATE_FAILED) {
        snprintf(err, sizeof err, "%s: %s", file_of(p, mb, m.part), m.text);
        end_query(p, err);
        return;
    }
    size_t reported, done;
    int64_t sent, received;
    totals(p, false, &reported, &done, &sent, &received);
    if (done == p->nm) {
        const struct status *best = NULL;
        for (size_t u = 0; u < p->nm; u++) {
            const struct status *st = &p->m[u].st;
            if (st->found &&
                (best == NULL || st->length > best->length ||
                 (st->length == best->length && (uint64_t)st->gid < (uint64_t)best->gid)))
                best = st;
        }
        struct job *j = p->queue;
        j->path.found = best != NULL;
        j->path.length = best ? best->length : 0;
        j->path.terminal = best ? (uint64_t)best->gid : 0;
        if (best == NULL)
            end_query(p, NULL);
        else
            start_walk(p, (uint64_t)best->gid);
        return;
    }
    if (p->round == 0 || in->probe != p->round)
        return;
    size_t answered, pdone;
    int64_t psent, preceived;
    totals(p, true, &answered, &pdone, &psent, &preceived);
    if (answered < p->nm)
        return;
    /* a whole round answered: every slave idle (none failed) */
    p->round = 0;
    if (psent == preceived && psent == p->last_total) {
        for (size_t u = 0; u < p->nm; u++)
            if (p->m[u].probe.state != IPS2_CPA_STATE_DONE) {
                snprintf(err, sizeof err,
                         "the critical path cannot be computed: %s: nodes wait for path lengths "
                         "that never come (a cycle, or an arc without its source): %s",
                         file_of(p, &p->m[u], p->m[u].probe.part), p->m[u].probe.text);
                break;
            }
        end_query(p, err);
        return;
    }
    p->last_total = psent == preceived ? psent : -1;
    if (p->last_total >= 0) /* every slave idle and the totals agree: probe again at once */
        probe_round(p);
    /* else busy: the next quiet spell probes again */
}

/* The walk from the terminal: WALK to its part's slave. */
static void start_walk(struct cpa_pvm *p, uint64_t terminal)
{
    struct cpa_set *s = p->set;
    struct ips2_cpa_walk w = {.done = 0, .gid = terminal, .has_arc = 0};
    char err[ERR_LEN];
    void *data = NULL;
    size_t size = 0;
    uint32_t part = IPS2_PAG_GID_PART(terminal);
    if (part >= s->n) {
        snprintf(err, sizeof err, "the terminal node is in part %u of %zu", part, s->n);
        end_query(p, err);
        return;
    }
    if (ips2_cpa_walk_encode(&w, &data, &size, err, sizeof err) != 0) {
        end_query(p, err);
        return;
    }
    p->step = Q_WALK;
    drop_chunks(p);
    p->heard = now_s();
    ips2_slaves_cpa_walk(p->slaves, p->m[p->holder[part]].slave, p->q, 0, data, size);
    free(data);
    arm(p, p->timeout_s * 1000);
}

/* The chunks in sequence order into the job's path. */
static void walk_done(struct cpa_pvm *p)
{
    struct job *j = p->queue;
    char err[ERR_LEN];
    int rc = 0;
    for (size_t i = 0; rc == 0 && (int64_t)i <= p->last; i++)
        rc = ips2_cpa_path_append(&j->path, &p->chunks[i], err, sizeof err);
    if (rc != 0) {
        end_query(p, err);
        return;
    }
    ips2_cpa_path_finish(&j->path);
    cpa_view_path(&j->path, p->set->views, p->set->n);
    end_query(p, NULL);
}

static void on_segments(void *arg, int slave, int32_t query, uint32_t seq, int done, void *data,
                        size_t size, const char *why)
{
    struct cpa_pvm *p = arg;
    char err[ERR_LEN];
    p->heard = now_s();
    if (member_of(p, slave) == NULL || p->step != Q_WALK || query != p->q) {
        free(data);
        return;
    }
    if (seq >= CPA_WALK_MAX) {
        free(data);
        snprintf(err, sizeof err,
                 "the critical path crosses parts more than %u times: not walked back",
                 CPA_WALK_MAX);
        end_query(p, err);
        return;
    }
    if (why != NULL) {
        free(data);
        snprintf(err, sizeof err, "the walk back: %s", why);
        end_query(p, err);
        return;
    }
    if (seq >= p->nchunks) { /* grows geometrically: a chunk per crossing */
        size_t cap = p->nchunks ? p->nchunks * 2 : 64;
        while (cap <= seq)
            cap *= 2;
        struct ips2_cpa_path *v = realloc(p->chunks, cap * sizeof *v);
        if (v == NULL) {
            free(data);
            end_query(p, "out of memory");
            return;
        }
        for (size_t i = p->nchunks; i < cap; i++)
            ips2_cpa_path_init(&v[i]);
        p->chunks = v;
        p->nchunks = cap;
    }
    int rc = ips2_cpa_path_decode(data, size, "CPA_SEGMENTS", &p->chunks[seq], err, sizeof err);
    free(data);
    if (rc != 0) {
        end_query(p, err);
        return;
    }
    p->got++;
    if (done)
        p->last = seq;
    if (p->last >= 0 && p->got >= (size_t)p->last + 1)
        walk_done(p);
}

/* --- silence and deaths ------------------------------------------------------ */

static void timer_proc(ClientData cd)
{
    struct cpa_pvm *p = cd;
    p->timer = NULL;
    double quiet = now_s() - p->heard;
    switch (p->stage == S_READY ? (int)p->step : -1) {
    case -1: /* opening: the slaves that have not answered */
        if (p->stage != S_LOADING && p->stage != S_CONNECTING)
            return;
        if (quiet < p->timeout_s) {
            arm(p, (int)((p->timeout_s - quiet) * 1000) + 1);
            return;
        }
        for (size_t u = 0; u < p->nm; u++)
            p->m[u].silent = false;
        for (size_t k = 0; k < p->set->n; k++)
            if (!p->answered[k])
                p->m[p->holder[k]].silent = true;
        hung(p, p->stage == S_LOADING ? "while loading its part" : "while taking its cross arcs");
        return;
    case Q_FORWARD:
        if (quiet > p->timeout_s) {
            /* those that have not answered the round in flight */
            if (p->round == 0) {
                find_silent(p, "during the diffusion");
                return;
            }
            for (size_t u = 0; u < p->nm; u++)
                p->m[u].silent = p->m[u].probe.query != p->q;
            hung(p, "during the diffusion");
            return;
        }
        if (quiet * 1000 < CPA_PROBE_MS) {
            arm(p, CPA_PROBE_MS - (int)(quiet * 1000));
            return;
        }
        if (p->round == 0) /* quiet for a while: probe, unless a round is in flight */
            probe_round(p);
        arm(p, CPA_PROBE_MS);
        return;
    case Q_WALK:
        if (quiet < p->timeout_s) {
            arm(p, (int)((p->timeout_s - quiet) * 1000) + 1);
            return;
        }
        find_silent(p, "during the walk back");
        return;
    case Q_FINDING:
        hung(p, p->finding);
        return;
    default:
        return;
    }
}

static void arm(struct cpa_pvm *p, int ms)
{
    if (p->timer != NULL)
        Tcl_DeleteTimerHandler(p->timer);
    p->timer = Tcl_CreateTimerHandler(ms > 0 ? ms : 1, timer_proc, p);
}

static void on_gone(void *arg, int slave, const char *why)
{
    struct cpa_pvm *p = arg;
    struct member *mb = member_of(p, slave);
    if (mb == NULL || mb->gone)
        return;
    mb->gone = true;
    if (p->stage == S_BROKEN)
        return;
    const char *doing = p->stage == S_LOADING      ? "while loading its part"
                        : p->stage == S_CONNECTING ? "while taking its cross arcs"
                        : p->step == Q_WALK        ? "during the walk"
                        : p->step != Q_NONE        ? "during the diffusion"
                                                   : "between queries";
    char err[ERR_LEN];
    snprintf(err, sizeof err, "the slave of %s died %s: %s", file_of(p, mb, UINT32_MAX), doing,
             why != NULL ? why : "?");
    broken(p, err);
}

static void on_bad(void *arg, int slave, int tag)
{
    struct cpa_pvm *p = arg;
    struct member *mb = member_of(p, slave);
    if (mb == NULL || p->stage == S_BROKEN)
        return;
    const char *name = tag == IPS2_TAG_CPA_LOADED   ? "CPA_LOADED"
                       : tag == IPS2_TAG_CPA_READY  ? "CPA_READY"
                       : tag == IPS2_TAG_CPA_STATUS ? "CPA_STATUS"
                                                    : "CPA_SEGMENTS";
    char err[ERR_LEN];
    snprintf(err, sizeof err, "%s: a bad %s message from its slave", file_of(p, mb, UINT32_MAX),
             name);
    if (p->stage == S_READY && tag != IPS2_TAG_CPA_LOADED && tag != IPS2_TAG_CPA_READY)
        end_query(p, err);
    else
        open_failed(p, err);
}

static const struct ips2_slave_cpa_events Events = {
    .loaded = on_loaded,
    .ready = on_ready,
    .status = on_status,
    .segments = on_segments,
    .bad = on_bad,
    .gone = on_gone,
};

/* --- opening and freeing ----------------------------------------------------- */

/* The machine of part file `file`: the longest of machines that is its
 * stem or its stem's prefix before a dot; NULL if none. */
static const struct ips2_machine_info *
machine_of(const char *file, const struct ips2_machine_info *machines, size_t n)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    size_t stem = strlen(base);
    if (stem > 4 && strcmp(base + stem - 4, ".pag") == 0)
        stem -= 4;
    const struct ips2_machine_info *best = NULL;
    for (size_t i = 0; i < n; i++) {
        size_t len = machines[i].name ? strlen(machines[i].name) : 0;
        if (len == 0 || len > stem || strncmp(base, machines[i].name, len) != 0 ||
            (len < stem && base[len] != '.'))
            continue;
        if (best == NULL || len > strlen(best->name))
            best = &machines[i];
    }
    return best;
}

/* The member for machine `name` on host: one the set has, a live
 * unclaimed slave of the set (with reuse), or one spawned.  Its index, or
 * -1 with err. */
static int member_for(struct cpa_pvm *p, const char *name, const char *host, char *err,
                      size_t errlen)
{
    for (size_t u = 0; u < p->nm; u++)
        if (strcmp(ips2_slaves_machine(p->slaves, p->m[u].slave), name) == 0)
            return (int)u;
    int slave = p->reuse ? ips2_slaves_find(p->slaves, name) : -1;
    bool spawned = false;
    if (slave < 0 || ips2_slaves_claimed(p->slaves, slave)) {
        slave = ips2_slaves_spawn(p->slaves, name, host, err, errlen);
        spawned = true;
        if (slave < 0)
            return -1;
    }
    struct member *v = realloc(p->m, (p->nm + 1) * sizeof *v);
    if (v == NULL) {
        snprintf(err, errlen, "out of memory");
        if (spawned)
            ips2_slaves_quit(p->slaves, slave);
        return -1;
    }
    p->m = v;
    memset(&p->m[p->nm], 0, sizeof p->m[p->nm]);
    p->m[p->nm].slave = slave;
    p->m[p->nm].spawned = spawned;
    ips2_slaves_claim(p->slaves, slave, &Events, p);
    return (int)p->nm++;
}

static int add_part(struct member *mb, uint32_t part)
{
    uint32_t *v = realloc(mb->parts, (mb->nparts + 1) * sizeof *v);
    if (v == NULL)
        return -1;
    mb->parts = v;
    mb->parts[mb->nparts++] = part;
    return 0;
}

static void free_proc(char *cd)
{
    struct cpa_pvm *p = (struct cpa_pvm *)cd;
    for (size_t u = 0; u < p->nm; u++)
        free(p->m[u].parts);
    free(p->m);
    free(p->holder);
    free(p->answered);
    Tcl_Release(p->slaves);
    free(p);
}

void cpa_pvm_free(struct cpa_pvm *p)
{
    if (p == NULL || p->freed)
        return;
    /* the query in flight ends (END: the slaves drop it), the others fail */
    broken(p, "cancelled: the critical-path set was freed");
    p->freed = true;
    if (p->deliver_pending)
        Tcl_CancelIdleCall(deliver_proc, p);
    p->deliver_pending = false;
    while (p->finished != NULL) { /* their callers learn it now */
        struct job *j = p->finished;
        p->finished = j->next;
        if (j->err == NULL)
            j->done(j->arg, &j->path, NULL);
        else
            j->done(j->arg, NULL, j->err);
        free_job(j);
    }
    for (size_t k = 0; p->ends != NULL && k < p->set->n; k++)
        ips2_pag_free(p->ends[k]);
    free(p->ends);
    p->ends = NULL;
    drop_chunks(p);
    if (!ips2_slaves_closed(p->slaves))
        for (size_t u = 0; u < p->nm; u++) {
            ips2_slaves_unclaim(p->slaves, p->m[u].slave);
            if (p->m[u].spawned && !p->own_slaves)
                ips2_slaves_quit(p->slaves, p->m[u].slave);
        }
    if (p->own_slaves)
        ips2_slaves_free(p->slaves); /* quits them, waits a few seconds for their exits */
    if (p->vm != NULL)
        ips2_vm_close(p->vm, NULL);
    p->vm = NULL;
    Tcl_EventuallyFree(p, free_proc);
}

/* Claims or spawns the slaves and sends the LOADs. */
static int start_open(struct cpa_pvm *p, const struct ips2_machine_info *machines, size_t nmachines,
                      char *err, size_t errlen)
{
    struct cpa_set *s = p->set;
    p->load_id = ips2_slaves_next_id(p->slaves);
    for (size_t k = 0; k < s->n; k++) {
        const struct ips2_machine_info *mi = machine_of(s->files[k], machines, nmachines);
        char stem[256];
        const char *base = strrchr(s->files[k], '/');
        snprintf(stem, sizeof stem, "%s", base ? base + 1 : s->files[k]);
        int u = member_for(p, mi ? mi->name : stem, mi && mi->host ? mi->host : "localhost", err,
                           errlen);
        if (u < 0)
            return -1;
        if (add_part(&p->m[u], (uint32_t)k) != 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        p->holder[k] = (size_t)u;
    }
    p->stage = S_LOADING;
    p->left = s->n;
    p->heard = now_s();
    for (size_t k = 0; k < s->n; k++)
        if (ips2_slaves_cpa_load(p->slaves, p->m[p->holder[k]].slave, p->load_id, s->files[k],
                                 (uint32_t)k, (uint32_t)s->n) < 0) {
            snprintf(err, errlen, "cannot send to the slave of %s", s->files[k]);
            return -1;
        }
    arm(p, p->timeout_s * 1000);
    return 0;
}

/* Frees a set whose slaves were never reached (s may be NULL): its
 * half-made PVM state (cpa_pvm_free expects slaves), then the set. */
static void drop_unstarted(struct cpa_set *s)
{
    struct cpa_pvm *p = s != NULL ? s->pvm : NULL;
    if (p != NULL) {
        if (p->vm != NULL)
            ips2_vm_close(p->vm, NULL);
        free(p->holder);
        free(p->answered);
        free(p->ends);
        free(p);
        s->pvm = NULL;
    }
    cpa_set_free(s);
}

int cpa_pvm_start(char *const *files, size_t n, const struct ips2_machine_info *machines,
                  size_t nmachines, struct ips2_slaves *slaves, bool reuse, const char *slave_path,
                  cpa_view_fn *view, void *view_arg, struct cpa_set **out, char *err, size_t errlen)
{
    *out = NULL;
    struct cpa_set *s = cpa_set_new(files, n);
    struct cpa_pvm *p = NULL;
    if (s == NULL || (p = s->pvm = calloc(1, sizeof *s->pvm)) == NULL ||
        (p->holder = calloc(n ? n : 1, sizeof *p->holder)) == NULL ||
        (p->answered = calloc(n ? n : 1, sizeof *p->answered)) == NULL ||
        (p->ends = calloc(n ? n : 1, sizeof *p->ends)) == NULL) {
        snprintf(err, errlen, "out of memory");
        drop_unstarted(s);
        return -1;
    }
    p->set = s;
    p->view = view;
    p->view_arg = view_arg;
    p->reuse = reuse;
    p->timeout_s = timeout_of_env();
    p->last = -1;
    p->stage = S_LOADING;
    static const struct ips2_slave_events none = {0};
    if (slaves == NULL && ips2_slaves_connected()) {
        snprintf(err, errlen,
                 "this process is in a PVM virtual machine without a slave set "
                 "(one run at a time)");
    } else if (slaves == NULL) {
        bool others = false; /* a machine on another host: a pvmd that adds hosts */
        for (size_t i = 0; i < nmachines; i++)
            others =
                others || (machines[i].host != NULL && !ips2_vm_host_is_here(machines[i].host));
        ips2_vm_for_hosts(others);
        p->vm = ips2_vm_open(IPS2_VM_PRIVATE, err, errlen);
        ips2_vm_for_hosts(false);
        if (p->vm != NULL) {
            slaves = ips2_slaves_new(p->vm, slave_path, &none, NULL, err, errlen);
            p->own_slaves = slaves != NULL;
        }
    }
    if (slaves == NULL) {
        drop_unstarted(s);
        return -1;
    }
    p->slaves = slaves;
    Tcl_Preserve(slaves);
    if (start_open(p, machines, nmachines, err, errlen) != 0) {
        cpa_set_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

int cpa_pvm_open(char *const *files, size_t n, const struct ips2_machine_info *machines,
                 size_t nmachines, struct ips2_slaves *slaves, bool reuse, const char *slave_path,
                 cpa_view_fn *view, void *view_arg, struct cpa_set **out, char *err, size_t errlen)
{
    struct cpa_set *s = NULL;
    if (cpa_pvm_start(files, n, machines, nmachines, slaves, reuse, slave_path, view, view_arg, &s,
                      err, errlen) != 0)
        return -1;
    struct cpa_pvm *p = s->pvm;
    Tcl_Preserve(p);
    while (p->stage == S_LOADING || p->stage == S_CONNECTING)
        Tcl_DoOneEvent(TCL_ALL_EVENTS);
    int rc = 0;
    if (p->stage == S_BROKEN) {
        snprintf(err, errlen, "%s", p->why);
        rc = -1;
    }
    Tcl_Release(p);
    if (rc != 0) {
        cpa_set_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

void cpa_serve_until(const bool *done)
{
    while (!*done)
        Tcl_DoOneEvent(TCL_ALL_EVENTS);
}

/* --- starting queries ----------------------------------------------------------- */

static char *dup_or_null(const char *v)
{
    return v != NULL ? strdup(v) : NULL;
}

/* An in-process set's result, delivered when idle. */
struct local_result {
    cpa_done_fn *done;
    void *arg;
    struct ips2_cpa_path path;
    char err[ERR_LEN];
    int rc;
};

static void local_deliver(ClientData cd)
{
    struct local_result *r = cd;
    if (r->rc == 0)
        r->done(r->arg, &r->path, NULL);
    else
        r->done(r->arg, NULL, r->err);
    ips2_cpa_path_free(&r->path);
    free(r);
}

int cpa_set_run_async(struct cpa_set *s, const struct ips2_cpa_query *q, cpa_done_fn *done,
                      void *arg, char *err, size_t errlen)
{
    struct cpa_pvm *p = s->pvm;
    if (p == NULL) {
        struct local_result *r = calloc(1, sizeof *r);
        if (r == NULL) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        r->done = done;
        r->arg = arg;
        ips2_cpa_path_init(&r->path);
        r->rc = ips2_cpa_inproc(s->parts, s->n, q, 1, &r->path, r->err, sizeof r->err);
        Tcl_DoWhenIdle(local_deliver, r);
        return 1;
    }
    if (cpa_set_stale(s)) {
        snprintf(err, errlen, "the critical-path slaves are gone");
        return -1;
    }
    struct job *j = calloc(1, sizeof *j);
    if (j == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    j->q = *q;
    j->q.app = j->app = dup_or_null(q->app);
    j->q.zero_procedure = j->zero_procedure = dup_or_null(q->zero_procedure);
    j->q.zero_app = j->zero_app = dup_or_null(q->zero_app);
    if ((q->app && !j->app) || (q->zero_procedure && !j->zero_procedure) ||
        (q->zero_app && !j->zero_app)) {
        free_job(j);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    ips2_cpa_path_init(&j->path);
    j->done = done;
    j->arg = arg;
    j->id = ++p->next_job;
    if (p->queue_tail != NULL)
        p->queue_tail->next = j;
    else
        p->queue = j;
    p->queue_tail = j;
    start_next(p);
    return j->id;
}

void cpa_set_cancel(struct cpa_set *s, int query)
{
    struct cpa_pvm *p = s->pvm;
    if (p == NULL)
        return;
    if (p->queue != NULL && p->queue->id == query && p->step != Q_NONE) {
        end_query(p, "cancelled");
        return;
    }
    for (struct job **at = &p->queue; *at != NULL; at = &(*at)->next)
        if ((*at)->id == query) {
            struct job *j = *at;
            *at = j->next;
            if (p->queue_tail == j) {
                p->queue_tail = NULL;
                for (struct job *t = p->queue; t != NULL; t = t->next)
                    p->queue_tail = t;
            }
            fail_job(p, j, "cancelled");
            return;
        }
}

/* The blocking form: serves the event loop until the query's done. */
struct waiting {
    bool done;
    int rc;
    struct ips2_cpa_path *out;
    char *err;
    size_t errlen;
};

static void wait_done(void *arg, struct ips2_cpa_path *path, const char *err)
{
    struct waiting *w = arg;
    w->done = true;
    if (path != NULL) {
        ips2_cpa_path_free(w->out);
        *w->out = *path; /* moved */
        ips2_cpa_path_init(path);
        w->rc = 0;
    } else {
        snprintf(w->err, w->errlen, "%s", err);
        w->rc = -1;
    }
}

int cpa_pvm_run(struct cpa_set *s, const struct ips2_cpa_query *q, struct ips2_cpa_path *out,
                char *err, size_t errlen)
{
    struct waiting w = {false, -1, out, err, errlen};
    if (cpa_set_run_async(s, q, wait_done, &w, err, errlen) < 0)
        return -1;
    while (!w.done)
        Tcl_DoOneEvent(TCL_ALL_EVENTS);
    return w.rc;
}
