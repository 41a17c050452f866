/*
 * cpa_pvm.c - critical-path queries on PVM slaves (cpa.h): the master's
 * side of ips2_proto.h's 300-399 conversation.
 *
 * Opening a set spawns one ips2slave per part file on the host of the
 * part's machine, in the VM this process is connected to (a live
 * session's: ips2::run's) or in a private one started here.  Each slave
 * reads its part (LOAD) and sends back only what the master needs: the
 * ends that may pair with another machine's, its metadata for profiles,
 * its warnings (LOADED).  The master pairs the ends of all parts
 * (ips2_pag_match_ends over end-only parts) and gives each slave its cross
 * arcs and the tids of its peers (CROSS).  A query (QUERY) then runs on
 * the slaves: they exchange path lengths directly (BATCH) and say when
 * they are done (STATUS).  Every slave done: the terminal is the best
 * candidate.  The master probes the slaves when it has heard nothing for
 * CPA_PROBE_MS; two probe rounds that find every slave idle with as many
 * batches received as sent, and the same totals: the graph is stuck (a
 * cycle, an arc without its source), an error naming the first waiting
 * node.  The walk (WALK) goes from slave to
 * slave; the master orders the segment chunks by their sequence number.
 *
 * The master waits with pvm_trecv under a matching function that takes
 * only this conversation's tags, so the messages of a live run's slaves
 * stay queued for its own event-loop handler.  It blocks while it waits
 * (queries take milliseconds to seconds); a slave's task exit ends the
 * wait with an error, and so does silence for CPA_PVM_TIMEOUT_S (or
 * $IPS2_CPA_TIMEOUT_S, read when a set opens and when a query starts): the
 * error names the machines whose slaves did not answer (those that have
 * not answered the request or the probe round in flight; during the walk,
 * a probe finds them), they are killed (SIGKILL through their pvmd, so a
 * stopped one ends too) and the set is broken, so the next query opens a
 * new one.  Freeing a set tells its slaves to quit, waits a few seconds
 * for their exits, and takes the hosts it added out of the VM again.
 */
#include <pvm3.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpa.h"
#include "ips2_proto.h"
#include "pvm_vm.h"

/* libpvm 3.4's own task id, -1 when not connected (exported by
 * libpvm3.so; asking pvm_mytid() would connect). */
extern int pvmmytid;

#define CPA_PVM_TIMEOUT_S 120
#define CPA_PROBE_MS      20         /* quiet this long during a diffusion: probe the slaves */
#define CPA_FIND_MS       1000       /* a walk timed out: how long slaves have to answer a probe */
#define CPA_QUIT_MS       5000       /* freeing a set: how long its slaves have to exit */
#define CPA_WALK_MAX      (1u << 24) /* chunks of one walk (a part crossing each) */
#define BLOB_MAX          ((size_t)1 << 40)

struct cpa_pvm {
    struct ips2_vm *vm; /* a private VM started here, or NULL */
    int mytid;          /* this process's tid in the VM the slaves run in */
    int *tids;
    size_t n;
    int32_t next_id;
    bool broken;   /* a slave died or hung: the set cannot run queries */
    int timeout_s; /* silence this long: the silent slaves are hung */
    char **added;  /* hosts this set added to the VM (deleted again on free) */
    size_t nadded;
};

/* CPA_PVM_TIMEOUT_S, or $IPS2_CPA_TIMEOUT_S when it is a positive number. */
static int timeout_of_env(void)
{
    const char *v = getenv("IPS2_CPA_TIMEOUT_S");
    char *end = NULL;
    long t = v != NULL ? strtol(v, &end, 10) : 0;
    return v != NULL && end != v && *end == '\0' && t > 0 && t <= 86400 ? (int)t
                                                                        : CPA_PVM_TIMEOUT_S;
}

struct status {
    int32_t query; /* 0: none of this query yet */
    uint32_t state;
    int64_t sent, received;
    uint32_t found;
    int64_t gid, length;
    char text[512];
};

bool cpa_pvm_connected(void)
{
    return pvmmytid > 0;
}

bool cpa_set_stale(const struct cpa_set *s)
{
    return s->pvm != NULL && (s->pvm->broken || pvmmytid != s->pvm->mytid);
}

static int cpa_tags(int bufid, int tid, int tag)
{
    int len = 0, t = 0, src = 0;
    (void)tid;
    (void)tag;
    if (pvm_bufinfo(bufid, &len, &t, &src) < 0)
        return 0;
    return t >= IPS2_TAG_CPA_FIRST && t <= IPS2_TAG_CPA_LAST;
}

/* Receives the next message of the conversation within ms milliseconds:
 * 0 with *tag and *src, 1 if none came, -1 with err on a lost pvmd. */
static int recv_cpa_within(int ms, int *tag, int *src, char *err, size_t errlen)
{
    struct timeval tmout = {ms / 1000, (ms % 1000) * 1000};
    typedef int (*match_fn)(int, int, int);
    /* pvm3.h declares the result as a function of the matcher: it is the old matcher */
    match_fn old = (match_fn)(void (*)(void))pvm_recvf(cpa_tags);
    int buf = pvm_trecv(-1, -1, &tmout);
    pvm_recvf(old);
    if (buf == 0)
        return 1;
    if (buf < 0) {
        snprintf(err, errlen, "lost the pvmd: %s", ips2_vm_strerror(buf));
        return -1;
    }
    int len = 0;
    pvm_bufinfo(buf, &len, tag, src);
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int slave_of(const struct cpa_pvm *p, int tid)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->tids[i] == tid)
            return (int)i;
    return -1;
}

/* A CPA_TASK_EXIT message: which part's slave died (-1: not ours). */
static int died(struct cpa_pvm *p)
{
    int32_t tid = 0;
    if (ips2_upk_i32(&tid) < 0)
        return -1;
    int k = slave_of(p, tid);
    if (k >= 0) {
        p->tids[k] = 0;
        p->broken = true;
    }
    return k;
}

/* The part's machine (from its metadata once loaded) and file, for
 * messages. */
static void name_part(const struct cpa_set *s, size_t k, char *buf, size_t len)
{
    const char *m = s->metas != NULL && s->metas[k] != NULL ? s->metas[k]->machine : NULL;
    if (m != NULL && m[0] != '\0')
        snprintf(buf, len, "%s (%s)", m, s->files[k]);
    else
        snprintf(buf, len, "%s", s->files[k]);
}

/* The slaves marked in silent[] did not answer within the timeout while
 * the master was `doing` something: err names their machines; they are
 * killed and the set is broken (the next query opens a new one). */
static void hung(struct cpa_set *s, const bool *silent, const char *doing, char *err, size_t errlen)
{
    struct cpa_pvm *p = s->pvm;
    size_t at = (size_t)snprintf(err, errlen, "no answer in %d s from the critical-path slave of",
                                 p->timeout_s);
    size_t named = 0;
    for (size_t k = 0; k < s->n; k++) {
        if (!silent[k] || p->tids[k] <= 0)
            continue;
        char who[1024];
        name_part(s, k, who, sizeof who);
        if (at < errlen)
            at += (size_t)snprintf(err + at, errlen - at, "%s %s", named ? "," : "", who);
        pvm_sendsig(p->tids[k], SIGKILL); /* a stopped slave too */
        p->tids[k] = 0;
        named++;
    }
    if (named == 0 && at < errlen)
        at += (size_t)snprintf(err + at, errlen - at, " any part (all answered a probe)");
    if (at < errlen)
        snprintf(err + at, errlen - at, " %s; %s", doing,
                 named ? "killed it; the next query starts new slaves"
                       : "the next query starts new slaves");
    p->broken = true;
}

void cpa_pvm_free(struct cpa_pvm *p)
{
    if (p == NULL)
        return;
    if (cpa_pvm_connected() && pvmmytid == p->mytid) { /* not another VM's tasks */
        size_t left = 0;
        for (size_t i = 0; i < p->n; i++)
            if (p->tids[i] > 0) {
                pvm_initsend(PvmDataDefault);
                pvm_send(p->tids[i], IPS2_TAG_QUIT);
                left++;
            }
        /* their exits (pvm_vm.c's close expects them gone), a few seconds
         * at most: a slave that does not quit is killed */
        double until = now_s() + CPA_QUIT_MS / 1000.0;
        while (left > 0) {
            int ms = (int)((until - now_s()) * 1000);
            int tag = 0, src = 0;
            char err[256];
            if (ms <= 0 || recv_cpa_within(ms, &tag, &src, err, sizeof err) != 0)
                break;
            if (tag == IPS2_TAG_CPA_TASK_EXIT && died(p) >= 0)
                left--;
        }
        for (size_t i = 0; i < p->n; i++)
            if (p->tids[i] > 0)
                pvm_sendsig(p->tids[i], SIGKILL);
        if (p->nadded > 0 && p->vm == NULL) {
            int *info = calloc(p->nadded, sizeof *info);
            if (info != NULL)
                pvm_delhosts(p->added, (int)p->nadded, info);
            free(info);
        }
    }
    if (p->vm != NULL)
        ips2_vm_close(p->vm, NULL);
    for (size_t i = 0; i < p->nadded; i++)
        free(p->added[i]);
    free(p->added);
    free(p->tids);
    free(p);
}

static bool is_local(const char *host)
{
    char me[256] = "";
    gethostname(me, sizeof me - 1);
    return host == NULL || host[0] == '\0' || strcmp(host, "localhost") == 0 ||
           strcmp(host, ".") == 0 || strcmp(host, me) == 0;
}

static int spawn(struct cpa_pvm *p, size_t k, const char *slave_path, const char *file,
                 const char *host, char *err, size_t errlen)
{
    const char *base = strrchr(file, '/');
    char *argv[] = {"-m", (char *)(base ? base + 1 : file), NULL};
    const char *where = ".";
    if (!is_local(host)) {
        char *hosts[] = {(char *)host};
        int info = 0;
        /* PvmDupHost if it is there already; one added here is deleted
         * again when the set is freed */
        if (pvm_addhosts(hosts, 1, &info) == 1 && info > 0) {
            char **a = realloc(p->added, (p->nadded + 1) * sizeof *a);
            if (a != NULL) {
                p->added = a;
                if ((a[p->nadded] = strdup(host)) != NULL)
                    p->nadded++;
            }
        }
        where = host;
    }
    int tid = 0;
    int rc = pvm_spawn((char *)slave_path, argv, PvmTaskHost, (char *)where, 1, &tid);
    if (rc != 1 || tid <= 0) {
        snprintf(err, errlen, "cannot start %s on %s for %s: %s", slave_path,
                 where[0] == '.' ? "this host" : where, file, ips2_vm_strerror(rc < 0 ? rc : tid));
        return -1;
    }
    p->tids[k] = tid;
    pvm_notify(PvmTaskExit, IPS2_TAG_CPA_TASK_EXIT, 1, &tid);
    return 0;
}

/* One answer (tag `want`) from slave k, its body not yet unpacked: 1 an
 * answer to this request, 0 another (an older request's), -1 err. */
typedef int answer_fn(struct cpa_set *s, size_t k, int32_t id, void *arg, char *err, size_t errlen);

/* Receives the answer of every slave to the request `id` (sent to all):
 * 0, or -1 with err when one fails, dies or (with the others named) keeps
 * silent for the timeout. */
static int gather(struct cpa_set *s, int want, int32_t id, const char *doing, answer_fn *fn,
                  void *arg, char *err, size_t errlen)
{
    struct cpa_pvm *p = s->pvm;
    bool *answered = calloc(s->n ? s->n : 1, sizeof *answered);
    size_t left = s->n;
    int rc = 0;
    if (answered == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    while (rc == 0 && left > 0) {
        int tag = 0, src = 0;
        int got = recv_cpa_within(p->timeout_s * 1000, &tag, &src, err, errlen);
        if (got < 0) {
            rc = -1;
        } else if (got == 1) {
            bool *silent = answered; /* the complement, in place */
            for (size_t k = 0; k < s->n; k++)
                silent[k] = !answered[k];
            hung(s, silent, doing, err, errlen);
            rc = -1;
        } else if (tag == IPS2_TAG_CPA_TASK_EXIT) {
            int k = died(p);
            if (k >= 0) {
                snprintf(err, errlen, "the slave of %s died %s", s->files[k], doing);
                rc = -1;
            }
        } else {
            int k = slave_of(p, src);
            if (tag != want || k < 0)
                continue;
            int r = fn(s, (size_t)k, id, arg, err, errlen);
            if (r < 0)
                rc = -1;
            else if (r == 1 && !answered[k]) {
                answered[k] = true;
                left--;
            }
        }
    }
    free(answered);
    return rc;
}

struct load_arg {
    struct ips2_pag **ends;
    cpa_view_fn *view;
    void *view_arg;
};

/* A LOADED: part k's ends and metadata, seen through the view. */
static int loaded(struct cpa_set *s, size_t k, int32_t id, void *arg, char *err, size_t errlen)
{
    struct load_arg *la = arg;
    int32_t rid = 0, ok = 0;
    char *why = NULL;
    void *eb = NULL, *mb = NULL;
    size_t en = 0, mn = 0;
    uint32_t nw = 0;
    int rc = ips2_upk_i32(&rid);
    if (rc >= 0)
        rc = ips2_upk_i32(&ok);
    if (rc >= 0)
        rc = ips2_upk_str(&why);
    if (rc >= 0)
        rc = ips2_upk_blob(&eb, &en, BLOB_MAX);
    if (rc >= 0)
        rc = ips2_upk_blob(&mb, &mn, BLOB_MAX);
    if (rc >= 0)
        rc = ips2_upk_u32(&nw);
    for (uint32_t w = 0; rc >= 0 && w < nw && w < IPS2_CPA_WARN_MAX; w++) {
        char *line = NULL;
        if ((rc = ips2_upk_str(&line)) >= 0)
            cpa_set_warn(s, line);
        free(line);
    }
    if (rid != id) { /* an older load's */
        free(why);
        free(eb);
        free(mb);
        return 0;
    }
    int bad = 0;
    if (rc < 0) {
        snprintf(err, errlen, "%s: a bad CPA_LOADED message from its slave", s->files[k]);
        bad = 1;
    } else if (!ok) {
        snprintf(err, errlen, "%s", why && why[0] ? why : "cannot load the part");
        bad = 1;
    } else if (ips2_pag_ends_decode(eb, en, s->files[k], &la->ends[k], err, errlen) != 0 ||
               ips2_cpa_meta_decode(mb, mn, s->files[k], &s->metas[k], err, errlen) != 0) {
        bad = 1;
    }
    free(why);
    free(eb);
    free(mb);
    if (bad)
        return -1;
    ips2_pag_set_part(la->ends[k], (uint32_t)k);
    if (la->view != NULL &&
        (la->view(la->view_arg, s->files[k], la->ends[k], &s->views[k], err, errlen) != 0 ||
         cpa_view_pag(la->ends[k], &s->views[k], err, errlen) != 0 ||
         cpa_view_meta(s->metas[k], &s->views[k], err, errlen) != 0))
        return -1;
    return 1;
}

/* LOAD on every slave, LOADED from every one: ends parts and metas, seen
 * through view (the slaves keep their parts as read). */
static int load_all(struct cpa_set *s, struct ips2_pag **ends, cpa_view_fn *view, void *view_arg,
                    char *err, size_t errlen)
{
    struct cpa_pvm *p = s->pvm;
    int32_t id = ++p->next_id;
    for (size_t k = 0; k < s->n; k++) {
        pvm_initsend(PvmDataDefault);
        ips2_pk_i32(id);
        ips2_pk_str(s->files[k]);
        ips2_pk_u32((uint32_t)k);
        ips2_pk_u32((uint32_t)s->n);
        if (pvm_send(p->tids[k], IPS2_TAG_CPA_LOAD) < 0) {
            snprintf(err, errlen, "cannot send to the slave of %s", s->files[k]);
            return -1;
        }
    }
    struct load_arg la = {ends, view, view_arg};
    return gather(s, IPS2_TAG_CPA_LOADED, id, "while loading its part", loaded, &la, err, errlen);
}

/* A READY: part k's slave took its cross arcs. */
static int ready(struct cpa_set *s, size_t k, int32_t id, void *arg, char *err, size_t errlen)
{
    (void)arg;
    int32_t rid = 0, ok = 0;
    char *why = NULL;
    if (ips2_upk_i32(&rid) < 0 || ips2_upk_i32(&ok) < 0 || ips2_upk_str(&why) < 0) {
        free(why);
        snprintf(err, errlen, "%s: a bad CPA_READY message from its slave", s->files[k]);
        return -1;
    }
    if (rid == id && !ok) {
        snprintf(err, errlen, "%s: %s", s->files[k], why ? why : "cross arcs refused");
        free(why);
        return -1;
    }
    free(why);
    return rid == id;
}

/* Matching, then CROSS on every slave and READY from every one. */
static int connect_all(struct cpa_set *s, struct ips2_pag **ends, char *err, size_t errlen)
{
    struct cpa_pvm *p = s->pvm;
    if (cpa_match_groups(ends, s->n, s->views, err, errlen) != 0)
        return -1;
    int32_t id = ++p->next_id;
    for (size_t k = 0; k < s->n; k++) {
        for (size_t w = 0; w < ends[k]->nwarnings; w++)
            cpa_set_warn(s, ends[k]->warnings[w]);
        void *data = NULL;
        size_t size = 0;
        if ((data = ips2_pag_cross_encode(ends[k], &size)) == NULL) {
            snprintf(err, errlen, "out of memory encoding cross arcs");
            return -1;
        }
        pvm_initsend(PvmDataDefault);
        ips2_pk_i32(id);
        ips2_pk_blob(data, size);
        free(data);
        ips2_pk_u32((uint32_t)s->n);
        for (size_t j = 0; j < s->n; j++)
            ips2_pk_i32(p->tids[j]);
        if (pvm_send(p->tids[k], IPS2_TAG_CPA_CROSS) < 0) {
            snprintf(err, errlen, "cannot send to the slave of %s", s->files[k]);
            return -1;
        }
    }
    return gather(s, IPS2_TAG_CPA_READY, id, "while taking its cross arcs", ready, NULL, err,
                  errlen);
}

int cpa_pvm_open(char *const *files, char *const *hosts, size_t n, const char *slave_path,
                 bool private_vm, cpa_view_fn *view, void *view_arg, struct cpa_set **out,
                 char *err, size_t errlen)
{
    *out = NULL;
    struct cpa_set *s = cpa_set_new(files, n);
    struct ips2_pag **ends = calloc(n ? n : 1, sizeof *ends);
    if (s == NULL || ends == NULL || (s->pvm = calloc(1, sizeof *s->pvm)) == NULL ||
        (s->pvm->tids = calloc(n ? n : 1, sizeof *s->pvm->tids)) == NULL) {
        snprintf(err, errlen, "out of memory");
        free(ends);
        cpa_set_free(s);
        return -1;
    }
    struct cpa_pvm *p = s->pvm;
    p->n = n;
    p->timeout_s = timeout_of_env();
    int rc = 0;
    if (!cpa_pvm_connected()) {
        if (!private_vm) {
            snprintf(err, errlen, "not connected to a PVM virtual machine");
            rc = -1;
        } else if ((p->vm = ips2_vm_open(IPS2_VM_PRIVATE, err, errlen)) == NULL) {
            rc = -1;
        }
    }
    p->mytid = rc == 0 ? pvm_mytid() : -1;
    for (size_t k = 0; rc == 0 && k < n; k++)
        rc = spawn(p, k, slave_path, files[k], hosts ? hosts[k] : NULL, err, errlen);
    if (rc == 0)
        rc = load_all(s, ends, view, view_arg, err, errlen);
    if (rc == 0)
        rc = connect_all(s, ends, err, errlen);
    for (size_t k = 0; k < n; k++)
        ips2_pag_free(ends[k]);
    free(ends);
    if (rc != 0) {
        cpa_set_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

/* --- one query ------------------------------------------------------------ */

/* The query, its applications named as each slave's part names them. */
static int send_query(struct cpa_set *s, int32_t q, const struct ips2_cpa_query *query)
{
    for (size_t k = 0; k < s->n; k++) {
        pvm_initsend(PvmDataDefault);
        ips2_pk_i32(q);
        ips2_pk_u32((uint32_t)query->mode);
        ips2_pk_str(cpa_view_app(&s->views[k], query->app));
        ips2_pk_str(query->zero_procedure);
        ips2_pk_i32(query->zero_process);
        ips2_pk_u32(query->zero_part);
        ips2_pk_i32(query->zero_pid);
        ips2_pk_str(cpa_view_app(&s->views[k], query->zero_app));
        if (pvm_send(s->pvm->tids[k], IPS2_TAG_CPA_QUERY) < 0)
            return -1;
    }
    return 0;
}

static void end_query(struct cpa_set *s, int32_t q)
{
    for (size_t k = 0; k < s->n; k++)
        if (s->pvm->tids[k] > 0) {
            pvm_initsend(PvmDataDefault);
            ips2_pk_i32(q);
            pvm_send(s->pvm->tids[k], IPS2_TAG_CPA_END);
        }
}

static void send_probe(struct cpa_set *s, int32_t q, uint32_t round)
{
    for (size_t k = 0; k < s->n; k++) {
        pvm_initsend(PvmDataDefault);
        ips2_pk_i32(q);
        ips2_pk_u32(round);
        pvm_send(s->pvm->tids[k], IPS2_TAG_CPA_PROBE);
    }
}

/* Totals of sent and received batches over st[0..n) of query q; how many
 * reported, how many are done. */
static void totals(const struct status *st, size_t n, int32_t q, size_t *reported, size_t *done,
                   int64_t *sent, int64_t *received)
{
    *reported = *done = 0;
    *sent = *received = 0;
    for (size_t i = 0; i < n; i++) {
        if (st[i].query != q)
            continue;
        (*reported)++;
        *done += st[i].state == IPS2_CPA_STATE_DONE;
        *sent += st[i].sent;
        *received += st[i].received;
    }
}

/* A STATUS message's body into *m; *answer: its probe round (0: none). */
static int unpack_status(struct status *m, uint32_t *answer)
{
    char *text = NULL;
    int urc = ips2_upk_i32(&m->query);
    if (urc >= 0)
        urc = ips2_upk_u32(&m->state);
    if (urc >= 0)
        urc = ips2_upk_i64(&m->sent);
    if (urc >= 0)
        urc = ips2_upk_i64(&m->received);
    if (urc >= 0)
        urc = ips2_upk_u32(&m->found);
    if (urc >= 0)
        urc = ips2_upk_i64(&m->gid);
    if (urc >= 0)
        urc = ips2_upk_i64(&m->length);
    if (urc >= 0)
        urc = ips2_upk_str(&text);
    if (urc >= 0)
        urc = ips2_upk_u32(answer);
    snprintf(m->text, sizeof m->text, "%s", text ? text : "");
    free(text);
    return urc < 0 ? -1 : 0;
}

/* Which slaves do not answer a probe of query q within CPA_FIND_MS
 * (silent[k]); other messages that come meanwhile are dropped (the query
 * is failing). */
static void find_silent(struct cpa_set *s, int32_t q, uint32_t round, bool *silent)
{
    struct cpa_pvm *p = s->pvm;
    size_t left = 0;
    for (size_t k = 0; k < s->n; k++)
        left += silent[k] = p->tids[k] > 0;
    send_probe(s, q, round);
    double until = now_s() + CPA_FIND_MS / 1000.0;
    while (left > 0) {
        int ms = (int)((until - now_s()) * 1000), tag = 0, src = 0;
        char err[256];
        if (ms <= 0 || recv_cpa_within(ms, &tag, &src, err, sizeof err) != 0)
            break;
        int k = slave_of(p, src);
        struct status m = {0};
        uint32_t answer = 0;
        if (tag == IPS2_TAG_CPA_STATUS && k >= 0 && silent[k] && unpack_status(&m, &answer) == 0 &&
            m.query == q && answer == round) {
            silent[k] = false;
            left--;
        }
    }
}

/* The forward diffusion: 1 all done (terminal in *best), 0 stuck or
 * failed (err), -1 lost.  st: the latest STATUS of each slave; probe: the
 * answers to the probe round in flight (ips2_proto.h's termination rule). */
static int forward(struct cpa_set *s, int32_t q, struct status *st, struct status **best, char *err,
                   size_t errlen)
{
    struct cpa_pvm *p = s->pvm;
    struct status *probe = calloc(s->n ? s->n : 1, sizeof *probe);
    bool *silent = calloc(s->n ? s->n : 1, sizeof *silent);
    uint32_t round = 0, rounds = 0; /* the probe round in flight (0: none), rounds sent */
    int64_t last_total = -1;        /* sent == received of the last round that found all idle */
    int rc = -1;
    if (probe == NULL || silent == NULL) {
        free(probe);
        free(silent);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    double heard = now_s();
    for (;;) {
        int tag = 0, src = 0;
        int got = recv_cpa_within(CPA_PROBE_MS, &tag, &src, err, errlen);
        if (got < 0)
            break;
        if (got == 1) { /* quiet for a while: probe, unless a round is in flight */
            if (now_s() - heard > p->timeout_s) {
                /* those that have not answered the round in flight */
                for (size_t i = 0; i < s->n; i++)
                    silent[i] = round != 0 && probe[i].query != q;
                if (round == 0)
                    find_silent(s, q, ++rounds, silent);
                hung(s, silent, "during the diffusion", err, errlen);
                break;
            }
            if (round == 0) {
                round = ++rounds;
                for (size_t i = 0; i < s->n; i++)
                    probe[i].query = 0;
                send_probe(s, q, round);
            }
            continue;
        }
        heard = now_s();
        if (tag == IPS2_TAG_CPA_TASK_EXIT) {
            int k = died(p);
            if (k >= 0) {
                snprintf(err, errlen, "the slave of %s died during the diffusion", s->files[k]);
                break;
            }
            continue;
        }
        int k = slave_of(p, src);
        if (tag != IPS2_TAG_CPA_STATUS || k < 0)
            continue;
        struct status m = {0};
        uint32_t answer = 0;
        if (unpack_status(&m, &answer) < 0) {
            snprintf(err, errlen, "%s: a bad CPA_STATUS message from its slave", s->files[k]);
            rc = 0;
            break;
        }
        if (m.query != q)
            continue;
        st[k] = m;
        if (answer != 0 && answer == round)
            probe[k] = m;
        if (m.state == IPS2_CPA_STATE_FAILED) {
            snprintf(err, errlen, "%s: %s", s->files[k], m.text);
            rc = 0;
            break;
        }
        size_t reported, done;
        int64_t sent, received;
        totals(st, s->n, q, &reported, &done, &sent, &received);
        if (done == s->n) {
            *best = NULL;
            for (size_t i = 0; i < s->n; i++)
                if (st[i].found && (*best == NULL || st[i].length > (*best)->length ||
                                    (st[i].length == (*best)->length &&
                                     (uint64_t)st[i].gid < (uint64_t)(*best)->gid)))
                    *best = &st[i];
            rc = 1;
            break;
        }
        if (round != 0 && answer == round) {
            size_t answered, pdone;
            int64_t psent, preceived;
            totals(probe, s->n, q, &answered, &pdone, &psent, &preceived);
            if (answered < s->n)
                continue;
            /* a whole round answered: every slave idle (none failed) */
            round = 0;
            if (psent == preceived && psent == last_total) {
                for (size_t i = 0; i < s->n; i++)
                    if (probe[i].state != IPS2_CPA_STATE_DONE) {
                        snprintf(err, errlen,
                                 "the critical path cannot be computed: %s: nodes wait for "
                                 "path lengths that never come (a cycle, or an arc without "
                                 "its source): %s",
                                 s->files[i], probe[i].text);
                        break;
                    }
                rc = 0;
                break;
            }
            last_total = psent == preceived ? psent : -1;
            if (last_total < 0)
                continue; /* busy: the next quiet spell probes again */
            /* every slave idle and the totals agree: probe again at once */
            round = ++rounds;
            for (size_t i = 0; i < s->n; i++)
                probe[i].query = 0;
            send_probe(s, q, round);
        }
    }
    free(probe);
    free(silent);
    return rc;
}

/* The walk from the terminal: chunks in sequence order into out. */
static int walk(struct cpa_set *s, int32_t q, uint64_t terminal, struct ips2_cpa_path *out,
                char *err, size_t errlen)
{
    struct cpa_pvm *p = s->pvm;
    struct ips2_cpa_walk w = {.done = 0, .gid = terminal, .has_arc = 0};
    void *data = NULL;
    size_t size = 0;
    uint32_t part = IPS2_PAG_GID_PART(terminal);
    if (part >= s->n) {
        snprintf(err, errlen, "the terminal node is in part %u of %zu", part, s->n);
        return 0;
    }
    if (ips2_cpa_walk_encode(&w, &data, &size, err, errlen) != 0)
        return 0;
    pvm_initsend(PvmDataDefault);
    ips2_pk_i32(q);
    ips2_pk_u32(0);
    ips2_pk_blob(data, size);
    free(data);
    pvm_send(p->tids[part], IPS2_TAG_CPA_WALK);

    struct ips2_cpa_path *chunks = NULL;
    size_t nchunks = 0, got = 0;
    int64_t last = -1; /* seq of the chunk that ended the walk */
    int rc = 1;
    while (rc == 1 && (last < 0 || got < (size_t)last + 1)) {
        int tag = 0, src = 0;
        int r = recv_cpa_within(p->timeout_s * 1000, &tag, &src, err, errlen);
        if (r == 1) {
            bool *silent = calloc(s->n ? s->n : 1, sizeof *silent);
            if (silent == NULL) {
                snprintf(err, errlen, "out of memory");
            } else {
                find_silent(s, q, UINT32_MAX, silent);
                hung(s, silent, "during the walk back", err, errlen);
            }
            free(silent);
        }
        if (r != 0) {
            rc = -1;
            break;
        }
        if (tag == IPS2_TAG_CPA_TASK_EXIT) {
            int k = died(p);
            if (k >= 0) {
                snprintf(err, errlen, "the slave of %s died during the walk", s->files[k]);
                rc = -1;
            }
            continue;
        }
        if (tag != IPS2_TAG_CPA_SEGMENTS || slave_of(p, src) < 0)
            continue;
        int32_t mq = 0;
        uint32_t seq = 0, done = 0;
        char *why = NULL;
        data = NULL;
        int urc = ips2_upk_i32(&mq);
        if (urc >= 0)
            urc = ips2_upk_u32(&seq);
        if (urc >= 0)
            urc = ips2_upk_u32(&done);
        if (urc >= 0)
            urc = ips2_upk_blob(&data, &size, BLOB_MAX);
        if (urc >= 0)
            urc = ips2_upk_str(&why);
        if (urc < 0 || mq != q || seq >= CPA_WALK_MAX) {
            free(data);
            free(why);
            if (urc < 0) {
                snprintf(err, errlen, "a bad CPA_SEGMENTS message");
                rc = 0;
            } else if (mq == q) {
                snprintf(err, errlen,
                         "the critical path crosses parts more than %u times: not walked back",
                         CPA_WALK_MAX);
                rc = 0;
            }
            continue;
        }
        if (why != NULL && why[0] != '\0') {
            snprintf(err, errlen, "the walk back: %s", why);
            free(data);
            free(why);
            rc = 0;
            break;
        }
        free(why);
        if (seq >= nchunks) { /* grows geometrically: a chunk per crossing */
            size_t cap = nchunks ? nchunks * 2 : 64;
            while (cap <= seq)
                cap *= 2;
            struct ips2_cpa_path *v = realloc(chunks, cap * sizeof *v);
            if (v == NULL) {
                free(data);
                snprintf(err, errlen, "out of memory");
                rc = 0;
                break;
            }
            for (size_t i = nchunks; i < cap; i++)
                ips2_cpa_path_init(&v[i]);
            chunks = v;
            nchunks = cap;
        }
        if (ips2_cpa_path_decode(data, size, "CPA_SEGMENTS", &chunks[seq], err, errlen) != 0)
            rc = 0;
        free(data);
        got++;
        if (done)
            last = seq;
    }
    for (size_t i = 0; i < nchunks; i++) {
        if (rc == 1 && (int64_t)i <= last &&
            ips2_cpa_path_append(out, &chunks[i], err, errlen) != 0)
            rc = 0;
        ips2_cpa_path_free(&chunks[i]);
    }
    free(chunks);
    if (rc == 1) {
        ips2_cpa_path_finish(out);
        cpa_view_path(out, s->views, s->n);
    }
    return rc;
}

int cpa_pvm_run(struct cpa_set *s, const struct ips2_cpa_query *query, struct ips2_cpa_path *out,
                char *err, size_t errlen)
{
    struct cpa_pvm *p = s->pvm;
    if (cpa_set_stale(s)) {
        snprintf(err, errlen, "the critical-path slaves are gone");
        return -1;
    }
    int32_t q = ++p->next_id;
    p->timeout_s = timeout_of_env();
    struct status *st = calloc(s->n ? s->n : 1, sizeof *st), *best = NULL;
    if (st == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = send_query(s, q, query) == 0 ? 1 : -1;
    if (rc < 0)
        snprintf(err, errlen, "cannot send the query to the slaves");
    if (rc == 1)
        rc = forward(s, q, st, &best, err, errlen);
    if (rc == 1) {
        out->found = best != NULL;
        out->length = best ? best->length : 0;
        out->terminal = best ? (uint64_t)best->gid : 0;
        if (best != NULL)
            rc = walk(s, q, (uint64_t)best->gid, out, err, errlen);
        if (rc == 1) {
            out->length = best ? best->length : 0;
            out->found = best != NULL;
            out->terminal = best ? (uint64_t)best->gid : 0;
        }
    }
    end_query(s, q);
    free(st);
    return rc == 1 ? 0 : -1;
}
