/*
 * test_msg_waits.c - message patterns over a constructed PAG
 * (master/msg_waits.c), every figure known by construction:
 *   - a PVM pipeline whose sender computes 30 ms before each of two
 *     messages while its receiver waits: late-sender wait 30 + 29.8 ms,
 *     receive wait 60 ms, no late-receiver wait, the waits' histogram;
 *   - a byte stream whose sender blocks 49 ms in its send until the
 *     receiver, busy, takes the bytes (late receiver 48 ms), the second
 *     receive's start given exactly by its arc's weight, its send
 *     waiting for nobody;
 *   - a sender preempted after its work while the receiver waits: a late
 *     sender, not a late receiver;
 *   - a master on one machine with 3 workers on another (cross-part arcs)
 *     computing 10, 20 and 40 ms: imbalance (40 - 70/3) / 40, the
 *     master's wait for results 40.5 ms, each worker's wait for its task;
 *   - pipelines and pairs are no master-worker groups, nor is an
 *     all-to-all exchange; the application filter and a time window.
 * And the session entry point on part files written into a scratch
 * session (a model built in memory), reading them as a reopened session
 * does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ips2_format.h"
#include "model.h"
#include "msg_waits.h"
#include "tables.h"

#define MS 1000000LL
#define US 1000LL

/* ---- building a part --------------------------------------------------------- */

static char *copy(const char *s)
{
    char *d = strdup(s);
    assert_non_null(d);
    return d;
}

static void *grow(void *v, size_t n, size_t size)
{
    void *g = realloc(v, (n + 1) * size);
    assert_non_null(g);
    return g;
}

static struct ips2_pag *part_new(uint32_t number, const char *machine)
{
    struct ips2_pag *p = calloc(1, sizeof *p);
    assert_non_null(p);
    p->part = number;
    p->machine = copy(machine);
    p->trace_dir = copy("/nowhere");
    return p;
}

static uint32_t string_of(struct ips2_pag *p, const char *s)
{
    for (size_t i = 0; i < p->nstrings; i++)
        if (strcmp(p->strings[i], s) == 0)
            return (uint32_t)i;
    p->strings = grow(p->strings, p->nstrings, sizeof *p->strings);
    p->strings[p->nstrings] = copy(s);
    return (uint32_t)p->nstrings++;
}

static uint32_t process_new(struct ips2_pag *p, const char *app, int32_t pid)
{
    uint32_t name = string_of(p, app), a = 0;
    while (a < p->napps && p->apps[a] != name)
        a++;
    if (a == p->napps) {
        p->apps = grow(p->apps, p->napps, sizeof *p->apps);
        p->apps[p->napps++] = name;
    }
    p->processes = grow(p->processes, p->nprocesses, sizeof *p->processes);
    p->processes[p->nprocesses] =
        (struct ips2_pag_process){.app = a, .pid = pid, .name = string_of(p, "/bin/prog")};
    return (uint32_t)p->nprocesses++;
}

/* A thread of process; its nodes are added next, with node(). */
static uint32_t thread_new(struct ips2_pag *p, uint32_t process, int32_t tid)
{
    p->threads = grow(p->threads, p->nthreads, sizeof *p->threads);
    p->threads[p->nthreads] =
        (struct ips2_pag_thread){.process = process, .tid = tid, .first = (uint32_t)p->nnodes};
    return (uint32_t)p->nthreads++;
}

/* A node of the last thread: its index. */
static uint32_t node(struct ips2_pag *p, uint16_t kind, int64_t wall, int64_t cpu)
{
    uint32_t t = (uint32_t)p->nthreads - 1;
    p->nodes = grow(p->nodes, p->nnodes, sizeof *p->nodes);
    p->nodes[p->nnodes] = (struct ips2_pag_node){
        .wall = wall, .cpu = cpu, .thread = t, .kind = kind, .proc = IPS2_PAG_NONE};
    p->threads[t].count++;
    return (uint32_t)p->nnodes++;
}

/* A message arc into p's node `to` from node `from` of part from_part,
 * weighed as the builder does: wall(to) - max(wall(from), ws). */
static void message(struct ips2_pag *p, uint32_t from_part, int64_t from_wall, uint32_t from,
                    uint32_t to, int64_t ws)
{
    int64_t start = from_wall > ws ? from_wall : ws, w = p->nodes[to].wall - start;
    p->arcs = grow(p->arcs, p->narcs, sizeof *p->arcs);
    p->arcs[p->narcs++] = (struct ips2_pag_arc){.from = IPS2_PAG_GID(from_part, from),
                                                .to = to,
                                                .type = IPS2_PAG_ARC_MESSAGE,
                                                .weight = w > 0 ? w : 0};
}

static int by_destination(const void *a, const void *b)
{
    const struct ips2_pag_arc *x = a, *y = b;
    if (x->to != y->to)
        return x->to < y->to ? -1 : 1;
    return x->from < y->from ? -1 : x->from > y->from;
}

static void part_done(struct ips2_pag *p)
{
    qsort(p->arcs, p->narcs, sizeof *p->arcs, by_destination);
}

/* ---- the planted patterns ------------------------------------------------------ */

/* Part 0 (alpha): app pipe, sender 100 -> receiver 200 (PVM), 2 messages,
 * the sender 30 ms late each time; app stream, sender 300 -> receiver 400
 * (a byte stream), the receiver late. */
static struct ips2_pag *alpha(void)
{
    struct ips2_pag *p = part_new(0, "alpha");
    uint32_t sender = process_new(p, "pipe", 100), receiver = process_new(p, "pipe", 200);
    thread_new(p, sender, 100);
    node(p, IPS2_PAG_BEGIN, 0, 0);
    uint32_t s1 = node(p, IPS2_EV_PVM_SEND, 30 * MS, 30 * MS);
    uint32_t s2 = node(p, IPS2_EV_PVM_SEND, 60 * MS, 30 * MS);
    node(p, IPS2_PAG_END, 61 * MS, 1 * MS);
    thread_new(p, receiver, 200);
    node(p, IPS2_PAG_BEGIN, 0, 0);
    uint32_t r1 = node(p, IPS2_EV_PVM_RECV, 30 * MS + 100 * US, 0);
    uint32_t r2 = node(p, IPS2_EV_PVM_RECV, 60 * MS + 100 * US, 100 * US);
    node(p, IPS2_PAG_END, 61 * MS, 0);
    p->nodes[s1].proc = string_of(p, "produce");
    p->nodes[r1].proc = string_of(p, "collect");
    message(p, 0, 30 * MS, s1, r1, 0);
    message(p, 0, 60 * MS, s2, r2, 30 * MS + 200 * US);
    p->arcs[0].label = p->arcs[1].label = 7 + 1; /* PVM tag 7 */

    uint32_t writer = process_new(p, "stream", 300), reader = process_new(p, "stream", 400);
    thread_new(p, writer, 300);
    node(p, IPS2_PAG_BEGIN, 0, 0);
    /* blocked from 1 ms until the reader took the bytes at 49 ms */
    uint32_t w1 = node(p, IPS2_EV_SEND, 49 * MS + 100 * US, 1 * MS);
    uint32_t w2 = node(p, IPS2_EV_SEND, 51 * MS, 500 * US);
    node(p, IPS2_PAG_END, 80 * MS, 0);
    thread_new(p, reader, 400);
    node(p, IPS2_PAG_BEGIN, 0, 0);
    uint32_t b1 = node(p, IPS2_EV_RECV, 49 * MS + 50 * US, 49 * MS); /* took it at 49 ms */
    /* its CPU says 68.05 ms, the arc says it began at 69.9 ms (it was preempted) */
    uint32_t b2 = node(p, IPS2_EV_RECV, 70 * MS, 19 * MS);
    node(p, IPS2_PAG_END, 80 * MS, 0);
    message(p, 0, 49 * MS + 100 * US, w1, b1, 49 * MS);
    message(p, 0, 51 * MS, w2, b2, 69 * MS + 900 * US);
    part_done(p);
    return p;
}

static const int64_t work[3] = {10 * MS, 20 * MS, 40 * MS};

/* Parts 1 (beta, the master 10 of app mw) and 2 (gamma, workers 21-23):
 * the master sends task i at i ms, worker i computes work[i-1] and sends
 * its result; the master takes the results 0.5 ms after each. */
static void master_workers(struct ips2_pag **master_out, struct ips2_pag **workers_out)
{
    struct ips2_pag *m = part_new(1, "beta"), *w = part_new(2, "gamma");
    thread_new(m, process_new(m, "mw", 10), 10);
    node(m, IPS2_PAG_BEGIN, 0, 0);
    uint32_t task[3], result[3], recv[3], send[3];
    for (int i = 0; i < 3; i++)
        task[i] = node(m, IPS2_EV_PVM_SEND, (i + 1) * MS, 1 * MS);
    int64_t sent[3];
    for (int i = 0; i < 3; i++) {
        sent[i] = (i + 1) * MS + work[i];
        result[i] = node(m, IPS2_EV_PVM_RECV, sent[i] + 500 * US, 0);
    }
    node(m, IPS2_PAG_END, 44 * MS, 0);
    for (int i = 0; i < 3; i++) {
        thread_new(w, process_new(w, "mw", 21 + i), 21 + i);
        node(w, IPS2_PAG_BEGIN, 0, 0);
        recv[i] = node(w, IPS2_EV_PVM_RECV, (i + 1) * MS, 0);
        send[i] = node(w, IPS2_EV_PVM_SEND, sent[i], work[i]);
        node(w, IPS2_PAG_END, sent[i], 0);
    }
    for (int i = 0; i < 3; i++) {
        message(w, 1, (i + 1) * MS, task[i], recv[i], 0);
        message(m, 2, sent[i], send[i], result[i], i == 0 ? 3 * MS : sent[i - 1] + 500 * US);
    }
    part_done(m);
    part_done(w);
    *master_out = m;
    *workers_out = w;
}

static struct ips2_pag *parts[3];

static int setup(void **state)
{
    (void)state;
    parts[0] = alpha();
    master_workers(&parts[1], &parts[2]);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++)
        ips2_pag_free(parts[i]);
    return 0;
}

static struct msg_waits *compute(const struct msg_waits_request *r)
{
    struct msg_waits *w = NULL;
    char err[256] = "";
    assert_int_equal(msg_waits_from_parts(parts, 3, r, &w, err, sizeof err), 0);
    assert_non_null(w);
    return w;
}

static const struct msg_channel *channel(const struct msg_waits *w, const char *name)
{
    for (size_t i = 0; i < w->nchannels; i++)
        if (strcmp(w->channels[i].name, name) == 0)
            return &w->channels[i];
    fail_msg("no channel %s", name);
    return NULL;
}

/* ---- tests ----------------------------------------------------------------------- */

static void test_late_sender(void **state)
{
    (void)state;
    struct msg_waits_request r;
    msg_waits_request_init(&r);
    struct msg_waits *w = compute(&r);
    assert_int_equal(w->nchannels, 1 + 1 + 6);
    const struct msg_channel *c = channel(w, "channel:alpha/100->alpha/200 pvm tag 7");
    assert_string_equal(c->transport, "pvm");
    assert_string_equal(c->sender_process, "app:pipe/machine:alpha/process:100");
    assert_string_equal(c->receiver_process, "app:pipe/machine:alpha/process:200");
    assert_string_equal(c->sender_thread, "app:pipe/machine:alpha/process:100/thread:100");
    assert_string_equal(c->receiver_thread, "app:pipe/machine:alpha/process:200/thread:200");
    assert_int_equal(c->messages, 2);
    assert_int_equal(c->bytes, -1);
    assert_int_equal(c->wait[MSG_WAIT_LATE_SENDER], 30 * MS + 29 * MS + 800 * US);
    assert_int_equal(c->wait[MSG_WAIT_RECEIVE], 30 * MS + 100 * US + 29 * MS + 900 * US);
    assert_int_equal(c->wait[MSG_WAIT_LATE_RECEIVER], 0);
    assert_int_equal(c->first, 30 * MS);
    assert_int_equal(c->last, 60 * MS + 100 * US);
    assert_null(c->hist[0]);
    /* the first receive waited longest (30.1 ms) */
    assert_string_equal(c->receiver_procedure, "collect");
    assert_string_equal(c->sender_procedure, "produce");
    assert_int_equal(c->longest_wait, 30 * MS + 100 * US);
    c = channel(w, "channel:alpha/300->alpha/400 stream");
    assert_string_equal(c->receiver_procedure, "");
    msg_waits_free(w);
}

static void test_late_receiver(void **state)
{
    (void)state;
    struct msg_waits_request r;
    msg_waits_request_init(&r);
    struct msg_waits *w = compute(&r);
    const struct msg_channel *c = channel(w, "channel:alpha/300->alpha/400 stream");
    assert_string_equal(c->transport, "stream");
    assert_int_equal(c->messages, 2);
    /* 49 - 1 ms blocked in the first send; the second ended before the
     * receive was posted: it waited for nobody */
    assert_int_equal(c->wait[MSG_WAIT_LATE_RECEIVER], 48 * MS);
    assert_int_equal(c->wait[MSG_WAIT_LATE_SENDER], 0);
    /* 49.05 - 49, and 70 - 69.9 (the weight's start, not the CPU's) */
    assert_int_equal(c->wait[MSG_WAIT_RECEIVE], 50 * US + 100 * US);
    msg_waits_free(w);
}

static void test_master_workers(void **state)
{
    (void)state;
    struct msg_waits_request r;
    msg_waits_request_init(&r);
    struct msg_waits *w = compute(&r);
    assert_int_equal(w->ngroups, 1); /* no pipeline, no pair */
    const struct msg_group *g = &w->groups[0];
    assert_string_equal(g->master, "app:mw/machine:beta/process:10");
    assert_int_equal(g->nworkers, 3);
    assert_int_equal(g->max_busy, 40 * MS);
    assert_int_equal(g->mean_busy, 70 * MS / 3);
    assert_float_equal(g->imbalance, (40.0 - 70.0 / 3) / 40.0, 1e-6);
    assert_int_equal(g->master_busy, 3 * MS);
    /* results: 11.5 - 3, 22.5 - 11.5, 43.5 - 22.5 ms */
    assert_int_equal(g->master_wait, 8 * MS + 500 * US + 11 * MS + 21 * MS);
    for (int i = 0; i < 3; i++) {
        char path[64];
        snprintf(path, sizeof path, "app:mw/machine:gamma/process:%d", 21 + i);
        assert_string_equal(g->workers[i].process, path);
        assert_int_equal(g->workers[i].busy, work[i]);
        assert_int_equal(g->workers[i].wait_for_master, (i + 1) * MS);
        assert_int_equal(g->workers[i].tasks, 1);
        assert_int_equal(g->workers[i].results, 1);
    }
    /* the channels' order: by receive wait */
    for (size_t i = 1; i < w->nchannels; i++)
        assert_true(w->channels[i - 1].wait[MSG_WAIT_RECEIVE] >=
                    w->channels[i].wait[MSG_WAIT_RECEIVE]);
    msg_waits_free(w);
}

static void test_histogram_and_window(void **state)
{
    (void)state;
    struct msg_waits_request r;
    msg_waits_request_init(&r);
    r.hist_start = 0;
    r.hist_width = 10 * MS;
    r.nbuckets = 7;
    struct msg_waits *w = compute(&r);
    const struct msg_channel *c = channel(w, "channel:alpha/100->alpha/200 pvm tag 7");
    /* late sender [0, 30) and [30.2, 60) ms */
    const int64_t want[7] = {10 * MS, 10 * MS, 10 * MS, 9 * MS + 800 * US, 10 * MS, 10 * MS, 0};
    int64_t sum = 0;
    for (int i = 0; i < 7; i++) {
        assert_int_equal(c->hist[MSG_WAIT_LATE_SENDER][i], want[i]);
        sum += c->hist[MSG_WAIT_RECEIVE][i];
        assert_int_equal(c->hist[MSG_WAIT_LATE_RECEIVER][i], 0);
    }
    assert_int_equal(sum, c->wait[MSG_WAIT_RECEIVE]);
    msg_waits_free(w);

    /* a window [35, 65) ms: the second message only, its waits clipped */
    r.nbuckets = 0;
    r.from = 35 * MS;
    r.to = 65 * MS;
    w = compute(&r);
    c = channel(w, "channel:alpha/100->alpha/200 pvm tag 7");
    assert_int_equal(c->messages, 1);
    assert_int_equal(c->wait[MSG_WAIT_LATE_SENDER], 25 * MS);
    assert_int_equal(c->first, 60 * MS);
    msg_waits_free(w);
}

static void test_app_filter(void **state)
{
    (void)state;
    struct msg_waits_request r;
    msg_waits_request_init(&r);
    r.app = "mw";
    struct msg_waits *w = compute(&r);
    assert_int_equal(w->nchannels, 6);
    assert_int_equal(w->ngroups, 1);
    msg_waits_free(w);
    r.app = "nothing";
    w = compute(&r);
    assert_int_equal(w->nchannels, 0);
    assert_int_equal(w->ngroups, 0);
    msg_waits_free(w);
}

/* Three processes each sending to and receiving from both others: no
 * centre, no group. */
static void test_all_to_all(void **state)
{
    (void)state;
    struct ips2_pag *p = part_new(0, "delta");
    uint32_t sends[3][3], recvs[3][3];
    for (int i = 0; i < 3; i++) {
        thread_new(p, process_new(p, "spmd", 50 + i), 50 + i);
        node(p, IPS2_PAG_BEGIN, 0, 0);
        for (int j = 0; j < 3; j++)
            if (j != i)
                sends[i][j] = node(p, IPS2_EV_PVM_SEND, (1 + j) * MS, 0);
        for (int j = 0; j < 3; j++)
            if (j != i)
                recvs[i][j] = node(p, IPS2_EV_PVM_RECV, (10 + j) * MS, 0);
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (i != j)
                message(p, 0, (1 + j) * MS, sends[i][j], recvs[j][i], 0);
    part_done(p);
    struct msg_waits *w = NULL;
    struct msg_waits_request r;
    msg_waits_request_init(&r);
    char err[256];
    assert_int_equal(msg_waits_from_parts(&p, 1, &r, &w, err, sizeof err), 0);
    assert_int_equal(w->nchannels, 6);
    assert_int_equal(w->ngroups, 0);
    msg_waits_free(w);
    ips2_pag_free(p);
}

/* The sender used its 20 ms of CPU by 133.5 ms but was preempted until
 * 194.3 ms; the receiver posted its receive at 153.4 ms.  Had the send
 * been blocked for the receiver it would have ended then: the receiver
 * waited for a late sender (41 ms), no receiver was late. */
static void test_preempted_sender(void **state)
{
    (void)state;
    struct ips2_pag *p = part_new(0, "epsilon");
    thread_new(p, process_new(p, "pre", 60), 60);
    node(p, IPS2_PAG_BEGIN, 113 * MS + 500 * US, 0);
    uint32_t send = node(p, IPS2_EV_SEND, 194 * MS + 300 * US, 20 * MS);
    thread_new(p, process_new(p, "pre", 61), 61);
    node(p, IPS2_PAG_BEGIN, 153 * MS + 400 * US, 0);
    uint32_t recv = node(p, IPS2_EV_RECV, 194 * MS + 500 * US, 0);
    message(p, 0, 194 * MS + 300 * US, send, recv, 153 * MS + 400 * US);
    part_done(p);
    struct msg_waits *w = NULL;
    struct msg_waits_request r;
    msg_waits_request_init(&r);
    char err[256];
    assert_int_equal(msg_waits_from_parts(&p, 1, &r, &w, err, sizeof err), 0);
    assert_int_equal(w->nchannels, 1);
    assert_string_equal(w->channels[0].name, "channel:epsilon/60->epsilon/61 stream");
    assert_int_equal(w->channels[0].wait[MSG_WAIT_LATE_SENDER], 40 * MS + 900 * US);
    assert_int_equal(w->channels[0].wait[MSG_WAIT_LATE_RECEIVER], 0);
    assert_int_equal(w->channels[0].wait[MSG_WAIT_RECEIVE], 41 * MS + 100 * US);
    msg_waits_free(w);
    ips2_pag_free(p);

    /* Ready at 218 ms, preempted until it sends at 388 ms (its send
     * returning at 390.5, after the receive ended at 388.4); the receive,
     * posted at 363.9 ms, waited 24.5 ms for the bytes: no sender blocked
     * for it would have kept them from it. */
    p = part_new(0, "zeta");
    thread_new(p, process_new(p, "pre", 70), 70);
    node(p, IPS2_PAG_BEGIN, 198 * MS, 0);
    send = node(p, IPS2_EV_SEND, 390 * MS + 500 * US, 20 * MS);
    thread_new(p, process_new(p, "pre", 71), 71);
    node(p, IPS2_PAG_BEGIN, 363 * MS + 900 * US, 0);
    recv = node(p, IPS2_EV_RECV, 388 * MS + 400 * US, 0);
    message(p, 0, 390 * MS + 500 * US, send, recv, 363 * MS + 900 * US);
    part_done(p);
    assert_int_equal(msg_waits_from_parts(&p, 1, &r, &w, err, sizeof err), 0);
    assert_int_equal(w->channels[0].wait[MSG_WAIT_LATE_SENDER], 24 * MS + 500 * US);
    assert_int_equal(w->channels[0].wait[MSG_WAIT_LATE_RECEIVER], 0);
    msg_waits_free(w);
    ips2_pag_free(p);
}

/* A port row of part p's process. */
static void port(struct ips2_pag *p, uint64_t key, uint32_t process, uint16_t number, uint16_t role)
{
    p->ports = grow(p->ports, p->nports, sizeof *p->ports);
    p->ports[p->nports++] = (struct ips2_pag_port){key, process, number, role};
}

/* A TCP stream from a client (part 0) to its server (part 1) is named by
 * the server's listening port when both parts saw the connection (the
 * connect's and the accept's key), also after the server's part went
 * through its file's bytes; a port of another connection, or one side
 * alone, names nothing. */
static void test_tcp_port_names(void **state)
{
    (void)state;
    struct ips2_pag *pp[2] = {part_new(0, "client"), part_new(1, "server")};
    uint32_t c = process_new(pp[0], "cs", 80), sv = process_new(pp[1], "cs", 90);
    thread_new(pp[0], c, 80);
    node(pp[0], IPS2_PAG_BEGIN, 0, 0);
    uint32_t send = node(pp[0], IPS2_EV_SEND, 10 * MS, 10 * MS);
    node(pp[0], IPS2_PAG_END, 11 * MS, 0);
    thread_new(pp[1], sv, 90);
    node(pp[1], IPS2_PAG_BEGIN, 0, 0);
    uint32_t recv = node(pp[1], IPS2_EV_RECV, 10 * MS + 100 * US, 0);
    node(pp[1], IPS2_PAG_END, 11 * MS, 0);
    message(pp[1], 0, 10 * MS, send, recv, 0);
    part_done(pp[0]);
    part_done(pp[1]);
    pp[0]->outs = grow(pp[0]->outs, 0, sizeof *pp[0]->outs);
    pp[0]->outs[pp[0]->nouts++] = (struct ips2_pag_out){.from = send, .to = IPS2_PAG_GID(1, recv)};

    struct msg_waits_request r;
    struct msg_waits *w = NULL;
    char err[256];
    msg_waits_request_init(&r);
    port(pp[1], 0xabc, sv, 9999, IPS2_PAG_PORT_SERVER); /* another client's */
    port(pp[0], 0x123, c, 8888, IPS2_PAG_PORT_CLIENT);  /* another server's */
    assert_int_equal(msg_waits_from_parts(pp, 2, &r, &w, err, sizeof err), 0);
    assert_int_equal(w->nchannels, 1);
    assert_string_equal(w->channels[0].name, "channel:client/80->server/90 stream");
    msg_waits_free(w);

    port(pp[1], 0x5eed, sv, 7350, IPS2_PAG_PORT_SERVER);
    port(pp[0], 0x5eed, c, 7350, IPS2_PAG_PORT_CLIENT);
    size_t size;
    void *bytes = ips2_pag_encode(pp[1], &size);
    assert_non_null(bytes);
    struct ips2_pag *copy = NULL;
    if (ips2_pag_decode(bytes, size, "server.pag", &copy, err, sizeof err) != 0)
        fail_msg("%s", err);
    free(bytes);
    assert_int_equal(copy->nports, 2);
    assert_int_equal(copy->ports[1].port, 7350);
    ips2_pag_free(pp[1]);
    pp[1] = copy;
    assert_int_equal(msg_waits_from_parts(pp, 2, &r, &w, err, sizeof err), 0);
    assert_int_equal(w->nchannels, 1);
    assert_string_equal(w->channels[0].name, "channel:client/80->server/90 tcp port 7350");
    assert_string_equal(w->channels[0].transport, "stream");
    msg_waits_free(w);
    ips2_pag_free(pp[0]);
    ips2_pag_free(pp[1]);
}

static void test_bad_requests(void **state)
{
    (void)state;
    struct msg_waits *w = (struct msg_waits *)1;
    struct msg_waits_request r;
    char err[256] = "";
    msg_waits_request_init(&r);
    r.nbuckets = 4;
    assert_int_equal(msg_waits_from_parts(parts, 3, &r, &w, err, sizeof err), -1);
    assert_null(w);
    assert_non_null(strstr(err, "width"));
    msg_waits_request_init(&r);
    r.from = 10;
    r.to = 5;
    assert_int_equal(msg_waits_from_parts(parts, 3, &r, &w, err, sizeof err), -1);
}

static void test_tables(void **state)
{
    (void)state;
    struct msg_waits_request r;
    msg_waits_request_init(&r);
    struct msg_waits *w = compute(&r);
    char err[IPS2_ERR_MAX];
    struct ips2_table *t = msg_waits_channel_table(w, err);
    assert_non_null(t);
    assert_int_equal(t->nrows, w->nchannels);
    int late = ips2_table_find_column(t, "late_sender");
    assert_true(late >= 0);
    assert_string_equal(t->col_unit[late], "ns");
    ips2_table_free(t);
    t = msg_waits_group_table(w, err);
    assert_non_null(t);
    assert_int_equal(t->nrows, 3);
    ips2_table_free(t);
    msg_waits_free(w);
}

/* The session entry: the parts written as a session's pag/ files, read
 * as a reopened session reads them. */
static void test_session(void **state)
{
    (void)state;
    char dir[64] = "/tmp/ips2-test-msg-waits-XXXXXX", path[256], err[IPS2_ERR_MAX];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/pag", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/pag/%s.pag", dir, parts[k]->machine);
        assert_int_equal(ips2_pag_write(parts[k], path, err, sizeof err), 0);
    }
    struct ips2_model *m = ips2_model_new();
    assert_non_null(m);
    assert_int_equal(ips2_model_set_session(m, dir, 0, err), 0);
    const char *machines[] = {"alpha", "beta", "gamma"};
    for (int k = 0; k < 3; k++)
        assert_int_equal(ips2_model_add_machine(m, machines[k], "localhost", 0, err), 0);
    const char *apps[] = {"pipe", "stream", "mw"};
    for (int a = 0; a < 3; a++)
        assert_int_equal(ips2_model_add_app(m, apps[a], IPS2_MODE_ACTIVE, "", err), 0);
    struct cpa_session *s = cpa_session_new(m, "/nowhere/ips2slave");
    assert_non_null(s);
    struct msg_waits_request r;
    msg_waits_request_init(&r);
    struct msg_waits *w = NULL;
    struct cpa_error e = {0};
    assert_int_equal(msg_waits_compute(s, &r, &w, &e), 0);
    const struct msg_channel *c = channel(w, "channel:alpha/100->alpha/200 pvm tag 7");
    assert_int_equal(c->wait[MSG_WAIT_LATE_SENDER], 59 * MS + 800 * US);
    assert_int_equal(w->ngroups, 1);
    assert_int_equal(w->groups[0].master_wait, 40 * MS + 500 * US);
    msg_waits_free(w);
    cpa_session_free(s);
    ips2_model_free(m);
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/pag/%s.pag", dir, machines[k]);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/pag", dir);
    rmdir(path);
    rmdir(dir);
}

/* A session reduced without PAG parts: the PARTS error, no answer. */
static void test_no_parts(void **state)
{
    (void)state;
    char dir[64] = "/tmp/ips2-test-msg-none-XXXXXX", err[IPS2_ERR_MAX];
    assert_non_null(mkdtemp(dir));
    struct ips2_model *m = ips2_model_new();
    assert_non_null(m);
    assert_int_equal(ips2_model_set_session(m, dir, 0, err), 0);
    assert_int_equal(ips2_model_add_machine(m, "alpha", "localhost", 0, err), 0);
    struct cpa_session *s = cpa_session_new(m, "/nowhere/ips2slave");
    assert_non_null(s);
    struct msg_waits_request r;
    msg_waits_request_init(&r);
    struct msg_waits *w = (struct msg_waits *)1;
    struct cpa_error e = {0};
    assert_int_equal(msg_waits_compute(s, &r, &w, &e), -1);
    assert_null(w);
    assert_string_equal(e.code, "PARTS");
    r.nbuckets = 3; /* and a request it cannot answer: USAGE before the parts */
    assert_int_equal(msg_waits_compute(s, &r, &w, &e), -1);
    assert_string_equal(e.code, "USAGE");
    cpa_session_free(s);
    ips2_model_free(m);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_late_sender),      cmocka_unit_test(test_late_receiver),
        cmocka_unit_test(test_master_workers),   cmocka_unit_test(test_histogram_and_window),
        cmocka_unit_test(test_app_filter),       cmocka_unit_test(test_all_to_all),
        cmocka_unit_test(test_preempted_sender), cmocka_unit_test(test_tcp_port_names),
        cmocka_unit_test(test_bad_requests),     cmocka_unit_test(test_tables),
        cmocka_unit_test(test_session),          cmocka_unit_test(test_no_parts),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
