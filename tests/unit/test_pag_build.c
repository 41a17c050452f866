/*
 * test_pag_build.c - the PAG part that the reduction builds (cpa/PAG.md)
 * from hand-written trace streams with known times: every pairing rule of
 * traces/FORMAT.md §9 gives exactly the arcs it should, with the weights
 * the header's formula gives; what cannot pair becomes an end (it may
 * pair on another machine) or a warning naming the process and the event.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ips2_cpa.h"
#include "ips2_pag.h"
#include "ips2_reader.h"
#include "ips2_record.h"
#include "ips2_reductions.h"
#include "ips2_writer.h"
#include "pag_build.h"
#include "pag_internal.h"
#include "scratch.h"
#include "xorshift.h"

#define NO_WORD UINT64_MAX

/* A thread stream of pid (image 0) whose first event, a SYNC, is at t0. */
static struct ips2_writer *stream(uint32_t pid, uint32_t tid, uint32_t ppid, const char *app,
                                  unsigned k, uint64_t t0)
{
    struct ips2_file_header h;
    char path[1200], err[IPS2_ERR_MAX];

    ips2_header_init(&h, IPS2_ENC_RAW, IPS2_STREAM_THREAD);
    h.cpu_method = IPS2_CPU_EXACT;
    h.timer = IPS2_TIMER_MONOTONIC;
    h.pid = pid;
    h.tid = tid;
    h.ppid = ppid;
    h.tsc_hz = 1000000000;
    h.sync_records = 4096;
    snprintf(h.host, sizeof(h.host), "testhost");
    snprintf(h.app, sizeof(h.app), "%s", app);
    snprintf(h.exe, sizeof(h.exe), "/bin/%s", app);
    if (k)
        snprintf(path, sizeof(path), "%s/%u.0.%u.%u.raw", scratch_dir, pid, tid, k);
    else
        snprintf(path, sizeof(path), "%s/%u.0.%u.raw", scratch_dir, pid, tid);
    struct ips2_writer *w = ips2_writer_create(path, &h, err);
    if (!w)
        fail_msg("%s", err);
    /* every stream starts with a SYNC (CPU t0/2) */
    assert_int_equal(ips2_writer_emit(w, IPS2_EV_SYNC, t0, 1, t0 / 2, 0, &t0, 1), 0);
    return w;
}

/* An event at time t with CPU t/2 and the given extra words (up to 10;
 * the list ends with NO_WORD). */
static void ev(struct ips2_writer *w, unsigned kind, uint64_t t, uint64_t payload, ...)
{
    uint64_t x[16];
    unsigned n = 0;
    va_list ap;

    va_start(ap, payload);
    for (uint64_t v; (v = va_arg(ap, uint64_t)) != NO_WORD;)
        x[n++] = v;
    va_end(ap);
    assert_int_equal(ips2_writer_emit(w, kind, t, 1, t / 2, payload, x, n), 0);
}
#define EV(w, kind, t, ...) ev((w), (kind), (t), __VA_ARGS__, NO_WORD)

static void done(struct ips2_writer *w)
{
    char err[IPS2_ERR_MAX];

    if (ips2_writer_close(w, err) != 0)
        fail_msg("%s", err);
}

/* The scratch directory's part with IPS2_PAG_FOLD=how (pag_builder_new
 * reads it): "1" folded, "0" not, "messages" folded keeping messages. */
static bool build_lazy; /* reduce_how gives the part's shares compressed (pag_lazy) */

static struct ips2_pag *reduce_how(const char *how)
{
    struct ips2_reduce_options o = {.pag_lazy = build_lazy};
    struct ips2_pag *pag = NULL;
    char err[IPS2_ERR_MAX];

    setenv("IPS2_PAG_FOLD", how, 1);

    o.machine = "m1";
    o.phase_start_ns = INT64_MIN;
    o.phase_end_ns = INT64_MAX;
    o.pag_out = &pag;
    struct ips2_reductions *r = ips2_reduce_dir(scratch_dir, &o, err);
    if (!r)
        fail_msg("%s", err);
    ips2_reductions_free(r);
    assert_non_null(pag);
    return pag;
}

/* The scratch directory's part, folded or not. */
static struct ips2_pag *reduce_fold(int fold)
{
    return reduce_how(fold ? "1" : "0");
}

/* The pairing rules are checked on parts that are not folded (every
 * interaction event is a node). */
static struct ips2_pag *reduce(void)
{
    return reduce_fold(0);
}

/* Index of the n-th node (from 0) of kind in the thread with tid; -1 if none. */
static long node_of(const struct ips2_pag *g, int32_t pid, int32_t tid, unsigned kind, unsigned n)
{
    for (size_t t = 0; t < g->nthreads; t++) {
        const struct ips2_pag_thread *th = &g->threads[t];
        if (th->tid != tid || g->processes[th->process].pid != pid)
            continue;
        for (uint32_t i = th->first; i < th->first + th->count; i++)
            if (g->nodes[i].kind == kind && n-- == 0)
                return (long)i;
    }
    return -1;
}

/* The weight of the arc from node `from` to node `to`, or -1 if none. */
static int64_t arc_weight(const struct ips2_pag *g, long from, long to, unsigned type)
{
    for (size_t i = 0; i < g->narcs; i++)
        if (g->arcs[i].to == (uint32_t)to && g->arcs[i].from == IPS2_PAG_GID(g->part, from) &&
            g->arcs[i].type == type)
            return g->arcs[i].weight;
    return -1;
}

static size_t arcs_of(const struct ips2_pag *g, unsigned type)
{
    size_t n = 0;

    for (size_t i = 0; i < g->narcs; i++)
        n += g->arcs[i].type == type;
    return n;
}

static void no_warnings(const struct ips2_pag *g)
{
    for (size_t i = 0; i < g->nwarnings; i++)
        print_message("warning: %s\n", g->warnings[i]);
    assert_int_equal(g->nwarnings, 0);
}

static int setup(void **state)
{
    (void)state;
    return scratch_make("pagbuild");
}

/* Empties the scratch directory between tests. */
static int clear(void **state)
{
    return scratch_empty(state);
}

#define PIPE_KEY 0x1234u
#define TCP_KEY  0x7777u

/* A byte stream: each receive range pairs with every send range it
 * overlaps; failed calls, peeks and end of stream pair with nothing. */
static void test_bytes(void **state)
{
    (void)state;
    struct ips2_writer *a = stream(10, 10, 1, "writer", 0, 10);
    EV(a, IPS2_EV_SEND, 1000, 3, PIPE_KEY, 0, 100, 0, 900, 2);
    EV(a, IPS2_EV_SEND, 2000, 3, PIPE_KEY, 100, 100, 0, 1900, 2);
    EV(a, IPS2_EV_SEND, 2100, 3, PIPE_KEY, 200, 0, 32, 2050, 2); /* EPIPE */
    EV(a, IPS2_EV_PROC_EXIT, 3000, 0, 0);
    done(a);
    struct ips2_writer *b = stream(20, 20, 1, "reader", 0, 10);
    EV(b, IPS2_EV_RECV, 1500, 4, PIPE_KEY, 0, 50, 0, 800, 1);
    EV(b, IPS2_EV_RECV, 1600, 4, PIPE_KEY, 50, 50, 0, 1550, 0x100 | 10); /* a peek */
    EV(b, IPS2_EV_RECV, 2500, 4, PIPE_KEY, 50, 100, 0, 1550, 1);
    EV(b, IPS2_EV_RECV, 2600, 4, PIPE_KEY, 150, 50, 0, 2550, 1);
    EV(b, IPS2_EV_RECV, 2700, 4, PIPE_KEY, 200, 0, 0, 2650, 1); /* end of stream */
    EV(b, IPS2_EV_PROC_EXIT, 3000, 0, 0);
    done(b);

    struct ips2_pag *g = reduce();
    no_warnings(g);
    assert_int_equal(g->nends, 0);
    assert_int_equal(arcs_of(g, IPS2_PAG_ARC_MESSAGE), 4);
    assert_int_equal(node_of(g, 10, 10, IPS2_EV_SEND, 2), -1);
    assert_int_equal(node_of(g, 20, 20, IPS2_EV_RECV, 3), -1);
    long s0 = node_of(g, 10, 10, IPS2_EV_SEND, 0), s1 = node_of(g, 10, 10, IPS2_EV_SEND, 1);
    long r0 = node_of(g, 20, 20, IPS2_EV_RECV, 0), r1 = node_of(g, 20, 20, IPS2_EV_RECV, 1),
         r2 = node_of(g, 20, 20, IPS2_EV_RECV, 2);
    /* wall(to) - max(wall(from), start of to's call); a send's node is at
     * its call's start */
    assert_int_equal(g->nodes[s0].wall, 900);
    assert_int_equal(g->nodes[s1].wall, 1900);
    assert_int_equal(arc_weight(g, s0, r0, IPS2_PAG_ARC_MESSAGE), 1500 - 900);
    assert_int_equal(arc_weight(g, s0, r1, IPS2_PAG_ARC_MESSAGE), 2500 - 1550);
    assert_int_equal(arc_weight(g, s1, r1, IPS2_PAG_ARC_MESSAGE), 2500 - 1900);
    assert_int_equal(arc_weight(g, s1, r2, IPS2_PAG_ARC_MESSAGE), 2600 - 2550);
    /* CPU arcs: min(CPU, wall) between a thread's nodes */
    assert_int_equal(g->nodes[r1].cpu, (2500 - 1500) / 2);
    ips2_pag_free(g);
}

/* Writer 10 releases a lock at `release`, then sends 100 bytes down the
 * pipe at `send` (its call began at send_ws); reader 20 receives them at
 * `recv` (its call began at recv_ws); both exit at 3000. */
static void one_message(uint64_t release, uint64_t send, uint64_t send_ws, uint64_t recv,
                        uint64_t recv_ws)
{
    struct ips2_writer *a = stream(10, 10, 1, "writer", 0, 10);
    EV(a, IPS2_EV_LOCK_RELEASE, release, 0x5000, 1);
    EV(a, IPS2_EV_SEND, send, 3, PIPE_KEY, 0, 100, 0, send_ws, 2);
    EV(a, IPS2_EV_PROC_EXIT, 3000, 0, 0);
    done(a);
    struct ips2_writer *b = stream(20, 20, 1, "reader", 0, 10);
    EV(b, IPS2_EV_RECV, recv, 4, PIPE_KEY, 0, 100, 0, recv_ws, 1);
    EV(b, IPS2_EV_PROC_EXIT, 3000, 0, 0);
    done(b);
}

/* A send that returned after its reader got the bytes (blocked on a full
 * buffer): the arc leaves the send's node at the call's start, before the
 * receive ended, and weighs the time from there (or from the receive's
 * start); the writer's CPU up to the call is on the arc to that node, and
 * the call's own time on the arc after it. */
static void test_send_ends_late(void **state)
{
    (void)state;
    one_message(500, 2000, 900, 1500, 800);

    struct ips2_pag *g = reduce();
    no_warnings(g);
    long s0 = node_of(g, 10, 10, IPS2_EV_SEND, 0), r0 = node_of(g, 20, 20, IPS2_EV_RECV, 0);
    assert_int_equal(g->nodes[s0].wall, 900);
    assert_true(g->nodes[s0].wall <= g->nodes[r0].wall);
    assert_int_equal(arc_weight(g, s0, r0, IPS2_PAG_ARC_MESSAGE), 1500 - 900);
    assert_int_equal(g->narcs, 1);
    ips2_pag_free(g);
}

/* A thread whose timer goes back: its node is moved forward to the
 * previous one's time, and an arc from it never weighs more than the time
 * between its nodes (the engine refuses a part where one does). */
static void test_timer_back(void **state)
{
    (void)state;
    one_message(1050, 1000, 990, 1100, 900); /* the send's timer went back */

    char err[256];
    struct ips2_pag *g = reduce();
    long s0 = node_of(g, 10, 10, IPS2_EV_SEND, 0), r0 = node_of(g, 20, 20, IPS2_EV_RECV, 0);
    int64_t w = arc_weight(g, s0, r0, IPS2_PAG_ARC_MESSAGE);
    assert_true(w >= 0);
    assert_true(w <= g->nodes[r0].wall - g->nodes[s0].wall);
    struct ips2_cpa_query q = {.mode = IPS2_CPA_GLOBAL};
    struct ips2_cpa_path path;
    if (ips2_cpa_oracle(&g, 1, &q, &path, err, sizeof(err)) != 0)
        fail_msg("oracle: %s", err);
    ips2_cpa_path_free(&path);
    ips2_pag_free(g);
}

/* Unpaired: a pipe's receive is a warning naming process and event; a TCP
 * stream's (its chan says TCP) and a PVM message's are ends. */
static void test_unpaired(void **state)
{
    (void)state;
    struct ips2_writer *b = stream(20, 20, 1, "reader", 0, 10);
    EV(b, IPS2_EV_RECV, 1500, 4, PIPE_KEY, 0, 50, 0, 800, 1);
    EV(b, IPS2_EV_CHAN, 1600, 5, IPS2_CHAN_TCP, 0x99, TCP_KEY, 10, 0, 0, 10, 0, 0);
    EV(b, IPS2_EV_RECV, 1700, 5, TCP_KEY, 0, 10, 0, 1650, 1);
    EV(b, IPS2_EV_PVM_RECV, 1800, 0x40001, 7, 0, 1, 64, 0x40002, 0, 0, 1750);
    EV(b, IPS2_EV_PROC_EXIT, 3000, 0, 0);
    done(b);

    struct ips2_pag *g = reduce();
    for (size_t i = 0; i < g->nwarnings; i++)
        print_message("warning: %s\n", g->warnings[i]);
    assert_int_equal(g->nwarnings, 1);
    assert_non_null(strstr(g->warnings[0], "process 20 (reader)"));
    assert_non_null(strstr(g->warnings[0], "recv at 0.000001500 s"));
    assert_int_equal(g->nends, 2);
    assert_int_equal(g->ends[0].role, IPS2_PAG_ROLE_BYTES_RECV);
    assert_int_equal(g->ends[0].key[0], TCP_KEY);
    assert_int_equal(g->ends[0].wait_start, 1650);
    assert_int_equal(g->ends[1].role, IPS2_PAG_ROLE_PVM_RECV);
    assert_int_equal(g->ends[1].key[0], (uint64_t)0x40001 << 32 | 0x40002);
    ips2_pag_free(g);
}

/* Locks: the release named by an acquisition that waited; condition
 * variables: the signal a wake-up names; semaphores: post k - v. */
static void test_sync(void **state)
{
    (void)state;
    const uint64_t mtx = 0x5000, cv = 0x6000, sem = 0x7000;
    struct ips2_writer *a = stream(10, 10, 1, "app", 0, 10);
    EV(a, IPS2_EV_THREAD_CREATE, 15, 1);
    EV(a, IPS2_EV_SYNC_INIT, 50, sem, IPS2_SYNC_SEM, 1, 0, 0);
    EV(a, IPS2_EV_LOCK_ACQUIRED, 100, mtx, 0); /* uncontended: no node */
    EV(a, IPS2_EV_LOCK_RELEASE, 200, mtx, 1);
    EV(a, IPS2_EV_COND_SIGNAL, 300, cv, 1);
    EV(a, IPS2_EV_SEM_POST, 400, sem, 1);
    EV(a, IPS2_EV_PROC_EXIT, 3000, 0, 0);
    done(a);
    struct ips2_writer *b = stream(10, 11, 1, "app", 0, 10);
    EV(b, IPS2_EV_THREAD_START, 20, 10, 1, 0);
    EV(b, IPS2_EV_LOCK_ACQUIRED, 250, mtx, 1, 150);         /* waited since 150 */
    EV(b, IPS2_EV_COND_WAKE, 350, cv, mtx, 0, 1, 280, 0);   /* woken by signal 1 */
    EV(b, IPS2_EV_COND_WAKE, 360, cv, mtx, 1, 1, 355, 110); /* timed out */
    EV(b, IPS2_EV_SEM_ACQUIRED, 380, sem, 1, 1);            /* the initial token */
    EV(b, IPS2_EV_SEM_ACQUIRED, 450, sem, 2, 1, 390);       /* post 1's token */
    EV(b, IPS2_EV_LOCK_ACQUIRED, 500, mtx, 9, 480);         /* names a release nobody made */
    EV(b, IPS2_EV_THREAD_EXIT, 600, 0);
    done(b);

    struct ips2_pag *g = reduce();
    assert_int_equal(arcs_of(g, IPS2_PAG_ARC_SYNC), 3);
    long rel = node_of(g, 10, 10, IPS2_EV_LOCK_RELEASE, 0),
         acq = node_of(g, 10, 11, IPS2_EV_LOCK_ACQUIRED, 0);
    assert_int_equal(node_of(g, 10, 10, IPS2_EV_LOCK_ACQUIRED, 0), -1);
    assert_int_equal(arc_weight(g, rel, acq, IPS2_PAG_ARC_SYNC), 250 - 200);
    assert_int_equal(arc_weight(g, node_of(g, 10, 10, IPS2_EV_COND_SIGNAL, 0),
                                node_of(g, 10, 11, IPS2_EV_COND_WAKE, 0), IPS2_PAG_ARC_SYNC),
                     350 - 300);
    assert_int_equal(node_of(g, 10, 11, IPS2_EV_COND_WAKE, 1), -1);
    assert_int_equal(node_of(g, 10, 11, IPS2_EV_SEM_ACQUIRED, 1), -1);
    assert_int_equal(arc_weight(g, node_of(g, 10, 10, IPS2_EV_SEM_POST, 0),
                                node_of(g, 10, 11, IPS2_EV_SEM_ACQUIRED, 0), IPS2_PAG_ARC_SYNC),
                     450 - 400);
    for (size_t i = 0; i < g->nwarnings; i++)
        print_message("warning: %s\n", g->warnings[i]);
    assert_int_equal(g->nwarnings, 1);
    assert_non_null(strstr(g->warnings[0], "process 10 (app) thread 11: lock-acquired"));
    ips2_pag_free(g);
}

/* A barrier of 3 threads, 2 episodes: the serial thread's arrival to the
 * other two departures, per episode; a sync-init restarts the numbers. */
static void test_barrier(void **state)
{
    (void)state;
    const uint64_t bar = 0x8000;
    struct ips2_writer *w[3];
    for (int i = 0; i < 3; i++) {
        w[i] = stream(10, 10 + (uint32_t)i, 1, "app", 0, 10);
        if (i == 0)
            EV(w[i], IPS2_EV_SYNC_INIT, 20, bar, IPS2_SYNC_BARRIER, 3, 0, 0);
    }
    /* episode 1: thread 12 arrives last; episode 2: thread 10 */
    for (int e = 1; e <= 2; e++)
        for (int i = 0; i < 3; i++) {
            int last = e == 1 ? 2 : 0;
            uint64_t base = (uint64_t)e * 1000, at = base + (i == last ? 300 : 100 + 10 * i);
            EV(w[i], IPS2_EV_BARRIER_ARRIVE, at, bar,
               (e - 1) * 3 + (i == last ? 3 : 1 + (i > last)), 3, e);
            EV(w[i], IPS2_EV_BARRIER_DEPART, base + 400 + i, bar, e, i == last, at);
        }
    for (int i = 0; i < 3; i++) {
        if (i == 0)
            EV(w[i], IPS2_EV_PROC_EXIT, 5000, 0, 0);
        done(w[i]);
    }
    struct ips2_pag *g = reduce();
    no_warnings(g);
    assert_int_equal(arcs_of(g, IPS2_PAG_ARC_SYNC), 2 * 2);
    long a12 = node_of(g, 10, 12, IPS2_EV_BARRIER_ARRIVE, 0);
    assert_int_equal(
        arc_weight(g, a12, node_of(g, 10, 10, IPS2_EV_BARRIER_DEPART, 0), IPS2_PAG_ARC_SYNC),
        1400 - 1300);
    assert_int_equal(
        arc_weight(g, a12, node_of(g, 10, 11, IPS2_EV_BARRIER_DEPART, 0), IPS2_PAG_ARC_SYNC),
        1401 - 1300);
    long a10 = node_of(g, 10, 10, IPS2_EV_BARRIER_ARRIVE, 1);
    assert_int_equal(
        arc_weight(g, a10, node_of(g, 10, 12, IPS2_EV_BARRIER_DEPART, 1), IPS2_PAG_ARC_SYNC),
        2402 - 2300);
    ips2_pag_free(g);
}

/* Threads: thread-create -> the thread's begin; its end -> join-end. */
static void test_threads(void **state)
{
    (void)state;
    struct ips2_writer *a = stream(10, 10, 1, "app", 0, 10);
    EV(a, IPS2_EV_THREAD_CREATE, 100, 1);
    EV(a, IPS2_EV_JOIN_BEGIN, 200, 1);
    EV(a, IPS2_EV_JOIN_END, 900, 1, 0);
    EV(a, IPS2_EV_PROC_EXIT, 1000, 0, 0);
    done(a);
    struct ips2_writer *b = stream(10, 11, 1, "app", 0, 120);
    EV(b, IPS2_EV_THREAD_START, 150, 10, 1, 0);
    EV(b, IPS2_EV_THREAD_EXIT, 800, 0);
    done(b);
    struct ips2_pag *g = reduce();
    no_warnings(g);
    long cr = node_of(g, 10, 10, IPS2_EV_THREAD_CREATE, 0),
         beg = node_of(g, 10, 11, IPS2_PAG_BEGIN, 0), end = node_of(g, 10, 11, IPS2_PAG_END, 0),
         join = node_of(g, 10, 10, IPS2_EV_JOIN_END, 0);
    /* the begin is at the stream's first event */
    assert_int_equal(arc_weight(g, cr, beg, IPS2_PAG_ARC_CREATE), 120 - 100);
    assert_int_equal(g->nodes[end].wall, 800);
    assert_int_equal(arc_weight(g, end, join, IPS2_PAG_ARC_EXIT), 900 - 800);
    ips2_pag_free(g);
}

/* fork -> the child's begin (from the parent's node before the fork);
 * the child's exit -> the wait that reaped it; a reused pid pairs by time. */
static void test_processes(void **state)
{
    (void)state;
    struct ips2_writer *a = stream(10, 10, 1, "app", 0, 10);
    EV(a, IPS2_EV_LOCK_RELEASE, 90, 0x5000, 1);
    EV(a, IPS2_EV_FORK, 100, 30);
    EV(a, IPS2_EV_WAIT, 400, 30, 0, 350, 1, 0, 0);
    EV(a, IPS2_EV_LOCK_RELEASE, 490, 0x5000, 2);
    EV(a, IPS2_EV_FORK, 500, 30);
    EV(a, IPS2_EV_WAIT, 900, 30, 9 << 8, 850, 1, 0, 0);
    EV(a, IPS2_EV_PROC_EXIT, 1000, 0, 0);
    done(a);
    struct ips2_writer *c1 = stream(30, 30, 10, "app", 0, 105);
    EV(c1, IPS2_EV_PROC_START, 110, 1, 10);
    EV(c1, IPS2_EV_PROC_EXIT, 300, 1, 0);
    done(c1);
    struct ips2_writer *c2 = stream(30, 30, 10, "app", 1, 505);
    EV(c2, IPS2_EV_PROC_START, 510, 1, 10);
    EV(c2, IPS2_EV_PROC_EXIT, 800, 1, 9);
    done(c2);
    struct ips2_pag *g = reduce();
    no_warnings(g);
    assert_int_equal(arcs_of(g, IPS2_PAG_ARC_CREATE), 2);
    assert_int_equal(arcs_of(g, IPS2_PAG_ARC_EXIT), 2);
    long rel0 = node_of(g, 10, 10, IPS2_EV_LOCK_RELEASE, 0),
         rel1 = node_of(g, 10, 10, IPS2_EV_LOCK_RELEASE, 1);
    long w0 = node_of(g, 10, 10, IPS2_EV_WAIT, 0), w1 = node_of(g, 10, 10, IPS2_EV_WAIT, 1);
    /* the two child threads (tid 30 twice) in stream order */
    long b0 = -1, b1 = -1, e0 = -1, e1 = -1;
    for (size_t t = 0; t < g->nthreads; t++)
        if (g->threads[t].tid == 30) {
            long first = g->threads[t].first, last = first + g->threads[t].count - 1;
            if (g->nodes[last].wall == 300)
                b0 = first, e0 = last;
            else
                b1 = first, e1 = last;
        }
    assert_true(b0 >= 0 && b1 >= 0);
    assert_int_equal(arc_weight(g, rel0, b0, IPS2_PAG_ARC_CREATE), 105 - 90);
    assert_int_equal(arc_weight(g, rel1, b1, IPS2_PAG_ARC_CREATE), 505 - 490);
    assert_int_equal(arc_weight(g, e0, w0, IPS2_PAG_ARC_EXIT), 400 - 350);
    assert_int_equal(arc_weight(g, e1, w1, IPS2_PAG_ARC_EXIT), 900 - 850);
    ips2_pag_free(g);
}

/* PVM: a message pairs inside the part; a barrier's members and a task's
 * spawn stay ends; matching the part's ends with each other pairs them,
 * and a receive from an untraced task (the pvmd) is no warning. */
static void test_pvm(void **state)
{
    (void)state;
    const uint64_t t1 = 0x40001, t2 = 0x40002;
    struct ips2_writer *a = stream(10, 10, 1, "master", 0, 10);
    EV(a, IPS2_EV_PVM_TASK, 50, t1, 0);
    EV(a, IPS2_EV_PVM_SPAWN, 100, t2, t1, 0, 60, 0, 1, 0);
    EV(a, IPS2_EV_PVM_SEND, 300, t2, 5, 0, 1, 64, t1, 0, 0);
    EV(a, IPS2_EV_PVM_BARRIER, 700, 2, t1, 1, 0, 400, 0x67 /* "g" */);
    EV(a, IPS2_EV_PVM_RECV, 800, 0x80000000, 9, 0, 1, 8, t1, 0, 0, 750); /* from the pvmd */
    EV(a, IPS2_EV_PROC_EXIT, 1000, 0, 0);
    done(a);
    struct ips2_writer *b = stream(20, 20, 9, "worker", 0, 120);
    EV(b, IPS2_EV_PROC_START, 150, 0, 9);
    EV(b, IPS2_EV_PVM_TASK, 160, t2, t1);
    EV(b, IPS2_EV_PVM_RECV, 350, t1, 5, 0, 1, 64, t2, 0, 0, 200);
    EV(b, IPS2_EV_LOCK_RELEASE, 590, 0x5000, 1);
    EV(b, IPS2_EV_PVM_BARRIER, 690, 2, t2, 1, 0, 600, 0x67);
    EV(b, IPS2_EV_PROC_EXIT, 900, 0, 0);
    done(b);
    struct ips2_pag *g = reduce();
    no_warnings(g);
    assert_int_equal(arcs_of(g, IPS2_PAG_ARC_MESSAGE), 1);
    for (size_t i = 0; i < g->narcs; i++) /* the message's tag 5 + 1; nothing else has one */
        assert_int_equal(g->arcs[i].label, g->arcs[i].type == IPS2_PAG_ARC_MESSAGE ? 6 : 0);
    assert_int_equal(arc_weight(g, node_of(g, 10, 10, IPS2_EV_PVM_SEND, 0),
                                node_of(g, 20, 20, IPS2_EV_PVM_RECV, 0), IPS2_PAG_ARC_MESSAGE),
                     50);
    char err[256];
    assert_int_equal(ips2_pag_match_ends(&g, 1, err, sizeof(err)), 0);
    no_warnings(g);
    assert_int_equal(g->nends, 0);
    /* the spawn -> the task's first node */
    assert_int_equal(arc_weight(g, node_of(g, 10, 10, IPS2_EV_PVM_SPAWN, 0),
                                node_of(g, 20, 20, IPS2_PAG_BEGIN, 0), IPS2_PAG_ARC_CREATE),
                     120 - 100);
    /* the barrier: the worker arrived last (call at 600), from its node before */
    assert_int_equal(arc_weight(g, node_of(g, 20, 20, IPS2_EV_LOCK_RELEASE, 0),
                                node_of(g, 10, 10, IPS2_EV_PVM_BARRIER, 0), IPS2_PAG_ARC_SYNC),
                     700 - 600);
    assert_int_equal(arcs_of(g, IPS2_PAG_ARC_SYNC), 1);
    for (size_t i = 0; i < g->narcs; i++)
        assert_int_equal(g->arcs[i].label, g->arcs[i].type == IPS2_PAG_ARC_MESSAGE ? 6 : 0);
    ips2_pag_free(g);
}

/* Shares: the CPU of each procedure between two nodes, named. */
static void test_shares(void **state)
{
    (void)state;
    struct ips2_writer *a = stream(10, 10, 1, "app", 0, 10);
    /* no module map: procedures are named 0x... */
    EV(a, IPS2_EV_ENTER, 100, 0x1000);
    EV(a, IPS2_EV_LOCK_RELEASE, 300, 0x5000, 1); /* f: 100 ns of CPU (CPU = t/2) */
    EV(a, IPS2_EV_ENTER, 400, 0x2000);
    EV(a, IPS2_EV_EXIT, 600, 0x2000);
    EV(a, IPS2_EV_LOCK_RELEASE, 700, 0x5000, 2); /* f 50 + 50, g 100 */
    EV(a, IPS2_EV_EXIT, 800, 0x1000);
    EV(a, IPS2_EV_PROC_EXIT, 1000, 0, 0);
    done(a);
    struct ips2_pag *g = reduce();
    long r0 = node_of(g, 10, 10, IPS2_EV_LOCK_RELEASE, 0),
         r1 = node_of(g, 10, 10, IPS2_EV_LOCK_RELEASE, 1);
    assert_string_equal(g->strings[g->nodes[r0].proc], "0x1000");
    assert_int_equal(g->nodes[r1].cpu, 200);
    int64_t f = 0, gg = 0;
    for (uint32_t i = g->nodes[r0].shares; i < g->nodes[r1].shares; i++) {
        const char *name = g->strings[g->shares[i].proc];
        if (!strcmp(name, "0x1000"))
            f += g->shares[i].cpu;
        else if (!strcmp(name, "0x2000"))
            gg += g->shares[i].cpu;
    }
    assert_int_equal(f, 100);
    assert_int_equal(gg, 100);
    ips2_pag_free(g);
}

/* ---- folding ------------------------------------------------------------- */

/* A thread's CPU per procedure as the engine reads its CPU arcs (time no
 * share names goes to the procedure on top at the arc's start), into
 * sums[proc + 1] (sums[0]: no procedure). */
static void cpu_per_proc(const struct ips2_pag *g, uint32_t t, int64_t *sums)
{
    const struct ips2_pag_thread *th = &g->threads[t];

    memset(sums, 0, (g->nstrings + 1) * sizeof(*sums));
    for (uint32_t i = th->first + 1; i < th->first + th->count; i++) {
        const struct ips2_pag_node *pv = &g->nodes[i - 1], *nd = &g->nodes[i];
        int64_t named = 0;
        for (uint32_t k = pv->shares; k < nd->shares; k++) {
            const struct ips2_pag_share *sh = &g->shares[k];
            if (sh->cpu > 0) {
                sums[sh->proc < g->nstrings ? sh->proc + 1 : 0] += sh->cpu;
                named += sh->cpu;
            }
        }
        if (named == 0 && nd->cpu > 0)
            sums[pv->proc < g->nstrings ? pv->proc + 1 : 0] += nd->cpu;
    }
}

static const struct ips2_pag_node *from_node(const struct ips2_pag *g, const struct ips2_pag_arc *a)
{
    assert_int_equal(IPS2_PAG_GID_PART(a->from), g->part);
    assert_true(IPS2_PAG_GID_NODE(a->from) < g->nnodes);
    return &g->nodes[IPS2_PAG_GID_NODE(a->from)];
}

static void same_node(const struct ips2_pag_node *x, const struct ips2_pag_node *y)
{
    assert_int_equal(x->wall, y->wall);
    assert_int_equal(x->kind, y->kind);
    assert_int_equal(x->thread, y->thread);
    assert_int_equal(x->proc, y->proc);
}

/* The same critical path in both parts for query q: its length, and the
 * profile at every level equal to the ns. */
static void same_path(struct ips2_pag *u, struct ips2_pag *f, const struct ips2_cpa_query *q)
{
    struct ips2_pag *parts[2] = {u, f};
    struct ips2_cpa_path path[2];
    struct ips2_cpa_meta *meta[2];
    char err[256];

    for (int k = 0; k < 2; k++) {
        ips2_cpa_path_init(&path[k]);
        if (ips2_cpa_oracle(&parts[k], 1, q, &path[k], err, sizeof(err)) != 0)
            fail_msg("oracle: %s", err);
        if (ips2_cpa_meta_from_pag(parts[k], &meta[k], err, sizeof(err)) != 0)
            fail_msg("meta: %s", err);
    }
    assert_int_equal(path[0].length, path[1].length);
    assert_int_equal(path[0].found, path[1].found);
    assert_true(path[1].nsegs <= path[0].nsegs);
    assert_int_equal(meta[0]->ncpu, meta[1]->ncpu);
    for (size_t i = 0; i < meta[0]->ncpu; i++) {
        assert_int_equal(meta[0]->cpu[i].thread, meta[1]->cpu[i].thread);
        assert_int_equal(meta[0]->cpu[i].proc, meta[1]->cpu[i].proc);
        assert_int_equal(meta[0]->cpu[i].cpu, meta[1]->cpu[i].cpu);
    }
    for (int level = IPS2_CPA_LEVEL_MACHINE; level <= IPS2_CPA_LEVEL_PROCEDURE; level++) {
        struct ips2_cpa_profile pr[2];
        for (int k = 0; k < 2; k++)
            if (ips2_cpa_profile(&path[k], &meta[k], 1, q, (enum ips2_cpa_level)level, NULL,
                                 IPS2_CPA_RUN_START, IPS2_CPA_RUN_END, &pr[k], err,
                                 sizeof(err)) != 0)
                fail_msg("profile: %s", err);
        assert_int_equal(pr[0].n, pr[1].n);
        assert_int_equal(pr[0].length, pr[1].length);
        assert_int_equal(pr[0].elapsed, pr[1].elapsed);
        for (size_t i = 0; i < pr[0].n; i++) {
            assert_string_equal(pr[0].entries[i].name, pr[1].entries[i].name);
            assert_int_equal(pr[0].entries[i].ns, pr[1].entries[i].ns);
            assert_int_equal(pr[0].entries[i].kind, pr[1].entries[i].kind);
        }
        for (int k = 0; k < 2; k++)
            ips2_cpa_profile_free(&pr[k]);
    }
    /* the workers of the folded part agree with the oracle */
    struct ips2_cpa_path run;
    ips2_cpa_path_init(&run);
    if (ips2_cpa_inproc(&f, 1, q, 7, &run, err, sizeof(err)) != 0)
        fail_msg("inproc: %s", err);
    assert_int_equal(run.length, path[1].length);
    ips2_cpa_path_free(&run);
    for (int k = 0; k < 2; k++) {
        ips2_cpa_path_free(&path[k]);
        ips2_cpa_meta_free(meta[k]);
    }
}

/* Reduces the scratch directory with and without folding and compares the
 * parts; returns how many nodes folding took away. */
static size_t check_fold(void)
{
    struct ips2_pag *u = reduce_fold(0), *f = reduce_fold(1);
    char err[256];

    assert_true(f->nnodes <= u->nnodes);
    assert_int_equal(f->nthreads, u->nthreads);
    assert_int_equal(f->nstrings, u->nstrings);
    assert_int_equal(f->narcs, u->narcs);
    assert_int_equal(f->nends, u->nends);
    assert_int_equal(f->nwarnings, u->nwarnings);
    for (size_t i = 0; i < u->narcs; i++) {
        const struct ips2_pag_arc *x = &u->arcs[i], *y = &f->arcs[i];
        assert_int_equal(x->type, y->type);
        assert_int_equal(x->weight, y->weight);
        same_node(&u->nodes[x->to], &f->nodes[y->to]);
        same_node(from_node(u, x), from_node(f, y));
    }
    for (size_t i = 0; i < u->nends; i++) {
        const struct ips2_pag_end *x = &u->ends[i], *y = &f->ends[i];
        assert_int_equal(x->role, y->role);
        assert_int_equal(x->wall, y->wall);
        assert_int_equal(x->wait_start, y->wait_start);
        assert_memory_equal(x->key, y->key, 2 * sizeof(x->key[0]));
        same_node(&u->nodes[x->node], &f->nodes[y->node]);
        if (x->role == IPS2_PAG_ROLE_PVM_BARRIER)
            same_node(&u->nodes[x->key[2]], &f->nodes[y->key[2]]);
        else
            assert_int_equal(x->key[2], y->key[2]);
    }
    int64_t *su = calloc(u->nstrings + 1, sizeof(*su)), *sf = calloc(u->nstrings + 1, sizeof(*sf));
    assert_non_null(su);
    assert_non_null(sf);
    for (uint32_t t = 0; t < u->nthreads; t++) {
        const struct ips2_pag_thread *x = &u->threads[t], *y = &f->threads[t];
        assert_true(y->count <= x->count);
        assert_int_equal(x->count == 0, y->count == 0);
        if (x->count) {
            same_node(&u->nodes[x->first], &f->nodes[y->first]);
            same_node(&u->nodes[x->first + x->count - 1], &f->nodes[y->first + y->count - 1]);
        }
        cpu_per_proc(u, t, su);
        cpu_per_proc(f, t, sf);
        assert_memory_equal(su, sf, (u->nstrings + 1) * sizeof(*su));
    }
    free(su);
    free(sf);
    /* what the file keeps, and the ends paired as the master does */
    size_t size = 0;
    void *bytes = ips2_pag_encode(f, &size);
    struct ips2_pag *back = NULL;
    assert_non_null(bytes);
    if (ips2_pag_decode(bytes, size, "folded", &back, err, sizeof(err)) != 0)
        fail_msg("decode: %s", err);
    free(bytes);
    ips2_pag_free(back);
    assert_int_equal(ips2_pag_match_ends(&u, 1, err, sizeof(err)), 0);
    assert_int_equal(ips2_pag_match_ends(&f, 1, err, sizeof(err)), 0);
    assert_int_equal(f->narcs, u->narcs);
    assert_int_equal(f->nwarnings, u->nwarnings);

    struct ips2_cpa_query q = {.mode = IPS2_CPA_GLOBAL};
    same_path(u, f, &q);
    for (size_t a = 0; a < u->napps; a++) {
        q.app = u->strings[u->apps[a]];
        q.mode = IPS2_CPA_INTRA;
        same_path(u, f, &q);
        q.mode = IPS2_CPA_INTER;
        same_path(u, f, &q);
    }
    if (u->nprocesses) { /* zeroing a process: its CPU arcs weigh 0 */
        struct ips2_cpa_query z = {
            .mode = IPS2_CPA_GLOBAL, .zero_process = 1, .zero_pid = u->processes[0].pid};
        same_path(u, f, &z);
    }
    for (size_t n = 0; n < u->nnodes; n++) /* zeroing each procedure that runs */
        if (u->nodes[n].proc != IPS2_PAG_NONE) {
            struct ips2_cpa_query z = {.mode = IPS2_CPA_GLOBAL,
                                       .zero_procedure = u->strings[u->nodes[n].proc]};
            same_path(u, f, &z);
        }
    size_t folded = u->nnodes - f->nnodes;
    ips2_pag_free(u);
    ips2_pag_free(f);
    return folded;
}

/* Every hand-written stream above, folded: nothing changes. */
static void test_fold_rules(void **state)
{
    static void (*const rules[])(void **) = {
        test_bytes,   test_send_ends_late, test_unpaired, test_sync,  test_barrier,
        test_threads, test_processes,      test_pvm,      test_shares};
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        clear(state);
        rules[i](state);
        check_fold();
    }
}

/* The message nodes of thread t (kind, wall), in order, into v (2 words
 * each); their count. */
static size_t messages_of(const struct ips2_pag *g, uint32_t t, int64_t *v)
{
    const struct ips2_pag_thread *th = &g->threads[t];
    size_t n = 0;

    for (uint32_t i = th->first; i < th->first + th->count; i++)
        if (pag_message_kind(g->nodes[i].kind)) {
            v[2 * n] = g->nodes[i].kind;
            v[2 * n + 1] = g->nodes[i].wall;
            n++;
        }
    return n;
}

/* IPS2_PAG_FOLD=messages: folded, but every message's node stays, in
 * order (the k-th message event of a thread is its k-th message node:
 * what an exporter reads the pairing by), with the folded part's paths.
 * Returns how many message nodes the plain folding dropped. */
static size_t check_keep_messages(void)
{
    struct ips2_pag *u = reduce_how("0"), *m = reduce_how("messages"), *f = reduce_how("1");
    size_t dropped = 0;

    assert_true(f->nnodes <= m->nnodes && m->nnodes <= u->nnodes);
    assert_int_equal(m->nthreads, u->nthreads);
    assert_int_equal(m->narcs, u->narcs);
    int64_t *a = calloc(2 * u->nnodes + 2, sizeof(*a)), *b = calloc(2 * u->nnodes + 2, sizeof(*b));
    assert_non_null(a);
    assert_non_null(b);
    for (uint32_t t = 0; t < u->nthreads; t++) {
        size_t n = messages_of(u, t, a);
        assert_int_equal(messages_of(m, t, b), n);
        assert_memory_equal(a, b, 2 * n * sizeof(*a));
        dropped += n - messages_of(f, t, b);
    }
    free(a);
    free(b);
    struct ips2_cpa_query q = {.mode = IPS2_CPA_GLOBAL};
    same_path(u, m, &q);
    ips2_pag_free(u);
    ips2_pag_free(m);
    ips2_pag_free(f);
    return dropped;
}

/* Every hand-written stream above, folded keeping messages: each thread's
 * message nodes as unfolded, in order; the plain folding drops some
 * (the unpaired ones), so the mode is not the plain one. */
static void test_fold_keep_messages(void **state)
{
    static void (*const rules[])(void **) = {
        test_bytes,   test_send_ends_late, test_unpaired, test_sync,  test_barrier,
        test_threads, test_processes,      test_pvm,      test_shares};
    size_t dropped = 0;
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        clear(state);
        rules[i](state);
        dropped += check_keep_messages();
    }
    assert_true(dropped > 0);
}

/* Shares: releases nobody waited for fold away; the thread's one CPU arc
 * names f and g with their CPU, as the two arcs did. */
static void test_fold_shares(void **state)
{
    test_shares(state);
    assert_int_equal(check_fold(), 2);
    struct ips2_pag *g = reduce_fold(1);
    assert_int_equal(g->nnodes, 2);
    assert_int_equal(g->nodes[1].kind, IPS2_PAG_END);
    ips2_pag_free(g);
}

/* Random streams on one time line: 2 or 3 processes of 1 to 3 threads
 * enter and leave procedures, take a private lock (waiting or not) and
 * release it, release a lock nobody waits for, and pass bytes through a
 * pipe to the next process. */
static void random_streams(uint64_t seed, unsigned steps)
{
    struct thr {
        struct ips2_writer *w;
        unsigned p;
        uint64_t cpu, last;
        unsigned depth;
        uint64_t stack[8];
    } th[9];
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1, seq[3] = {0}, seq2[3] = {0}, wr[3] = {0},
             rd[3] = {0}, t = 20;
    unsigned nproc = 2 + (unsigned)(xorshift64(&s) % 2), nth = 0;
#define RND(n) (xorshift64(&s) % (n))

    for (unsigned p = 0; p < nproc; p++) {
        unsigned nt = 1 + (unsigned)RND(3);
        for (unsigned k = 0; k < nt; k++) {
            uint32_t pid = 100 + p;
            th[nth] = (struct thr){.p = p, .cpu = 5, .last = 10};
            th[nth].w = stream(pid, k ? pid * 10 + k : pid, 1, p % 2 ? "odd" : "even", 0, 10);
            nth++;
        }
    }
    for (unsigned i = 0; i < steps; i++) {
        struct thr *h = &th[RND(nth)];
        uint64_t x[6];
        unsigned kind = 0, n = 0, p = h->p;
        uint64_t payload = 0;

        t += 1 + RND(40);
        h->cpu += RND(t - h->last + 1);
        h->last = t;
        switch (RND(10)) {
        case 0:
        case 1:
        case 2:
            if (h->depth == 8)
                continue;
            kind = IPS2_EV_ENTER;
            payload = h->stack[h->depth++] = 0x1000 + 0x100 * RND(5);
            break;
        case 3:
        case 4:
            if (h->depth == 0)
                continue;
            kind = IPS2_EV_EXIT;
            payload = h->stack[--h->depth];
            break;
        case 5:
            kind = IPS2_EV_LOCK_RELEASE;
            payload = 0x5000;
            x[n++] = ++seq[p];
            break;
        case 6:
            kind = IPS2_EV_LOCK_ACQUIRED;
            payload = 0x5000;
            x[n++] = seq[p];
            if (RND(2))
                x[n++] = t - RND(30);
            break;
        case 7: { /* bytes to the next process */
            uint64_t b = 1 + RND(100);
            kind = IPS2_EV_SEND;
            payload = 3;
            x[0] = 0x7000 + p, x[1] = wr[p], x[2] = b, x[3] = 0, x[4] = t - RND(10), x[5] = 2;
            n = 6;
            wr[p] += b;
            break;
        }
        case 8: { /* bytes from the previous process */
            unsigned q = (p + nproc - 1) % nproc;
            if (wr[q] == rd[q])
                continue;
            uint64_t b = 1 + RND(wr[q] - rd[q]);
            kind = IPS2_EV_RECV;
            payload = 4;
            x[0] = 0x7000 + q, x[1] = rd[q], x[2] = b, x[3] = 0, x[4] = t - RND(30), x[5] = 1;
            n = 6;
            rd[q] += b;
            break;
        }
        default:
            kind = IPS2_EV_LOCK_RELEASE;
            payload = 0x6000;
            x[n++] = ++seq2[p];
            break;
        }
        assert_int_equal(ips2_writer_emit(h->w, kind, t, 1, h->cpu, payload, x, n), 0);
    }
#undef RND
    t += 10;
    for (unsigned i = 0; i < nth; i++) {
        struct thr *h = &th[i];
        while (h->depth) {
            t += 3;
            h->cpu += 2;
            assert_int_equal(
                ips2_writer_emit(h->w, IPS2_EV_EXIT, t, 1, h->cpu, h->stack[--h->depth], NULL, 0),
                0);
        }
        if (i == 0 || th[i - 1].p != h->p) {
            uint64_t status = 0;
            assert_int_equal(
                ips2_writer_emit(h->w, IPS2_EV_PROC_EXIT, t + 1, 1, h->cpu, 0, &status, 1), 0);
        }
        done(h->w);
    }
}

/* Random streams: folding changes no critical path, and takes most nodes. */
static void test_fold_random(void **state)
{
    size_t folded = 0;

    for (uint64_t seed = 1; seed <= 40; seed++) {
        clear(state);
        random_streams(seed, 400 + (unsigned)(seed % 7) * 100);
        folded += check_fold();
    }
    assert_true(folded > 40 * 100); /* the second lock's releases at least */
}

struct share_list {
    struct ips2_pag_share *v;
    size_t n, cap;
    uint32_t next;
};

static int take_shares(void *arg, uint32_t node, const struct ips2_pag_share *sh, size_t n)
{
    struct share_list *l = arg;

    assert_int_equal(node, l->next++);
    if (l->n + n > l->cap) {
        l->cap = (l->n + n) * 2;
        l->v = realloc(l->v, l->cap * sizeof(*l->v));
        assert_non_null(l->v);
    }
    if (n)
        memcpy(l->v + l->n, sh, n * sizeof(*sh));
    l->n += n;
    return 0;
}

/* A part built with its shares kept compressed (pag_lazy: the slave and
 * ips2-reduce --pag) is the part built whole: the same nodes, arcs, ends
 * and strings, the same shares streamed, and written, the same part read
 * back; folded, not folded and keeping messages, on random streams. */
static void test_lazy_build(void **state)
{
    const char *hows[] = {"1", "0", "messages"};
    char err[512], pw[300], pl[300];
    size_t total = 0;

    snprintf(pw, sizeof(pw), "%s.whole.pag", scratch_dir);
    snprintf(pl, sizeof(pl), "%s.lazy.pag", scratch_dir);
    for (uint64_t seed = 1; seed <= 12; seed++) {
        clear(state);
        random_streams(seed, 300 + (unsigned)(seed % 5) * 100);
        for (size_t h = 0; h < 3; h++) {
            build_lazy = false;
            struct ips2_pag *w = reduce_how(hows[h]);
            build_lazy = true;
            struct ips2_pag *z = reduce_how(hows[h]);
            build_lazy = false;
            assert_null(w->lazy);
            assert_non_null(z->lazy);
            assert_null(z->shares);
            assert_int_equal(z->nnodes, w->nnodes);
            assert_int_equal(z->narcs, w->narcs);
            assert_int_equal(z->nends, w->nends);
            assert_int_equal(z->nstrings, w->nstrings);
            assert_int_equal(z->nshares, w->nshares);
            assert_memory_equal(z->nodes, w->nodes, w->nnodes * sizeof(*w->nodes));
            if (w->narcs)
                assert_memory_equal(z->arcs, w->arcs, w->narcs * sizeof(*w->arcs));
            for (size_t i = 0; i < w->nstrings; i++)
                assert_string_equal(z->strings[i], w->strings[i]);
            struct share_list l = {0};
            if (ips2_pag_shares_each(z, take_shares, &l, err, sizeof(err)) != 0)
                fail_msg("%s", err);
            assert_int_equal(l.n, w->nshares);
            total += l.n;
            if (l.n)
                assert_memory_equal(l.v, w->shares, l.n * sizeof(*l.v));
            free(l.v);
            assert_int_equal(ips2_pag_write(w, pw, err, sizeof(err)), 0);
            assert_int_equal(ips2_pag_write(z, pl, err, sizeof(err)), 0);
            struct ips2_pag *rw, *rz;
            if (ips2_pag_read(pw, &rw, err, sizeof(err)) ||
                ips2_pag_read(pl, &rz, err, sizeof(err)))
                fail_msg("%s", err);
            assert_int_equal(rz->nshares, rw->nshares);
            if (rw->nshares)
                assert_memory_equal(rz->shares, rw->shares, rw->nshares * sizeof(*rw->shares));
            assert_memory_equal(rz->nodes, rw->nodes, rw->nnodes * sizeof(*rw->nodes));
            ips2_pag_free(rw);
            ips2_pag_free(rz);
            ips2_pag_free(w);
            ips2_pag_free(z);
        }
    }
    assert_true(total > 1000);
    unlink(pw);
    unlink(pl);
}

/* The compact byte ranges (pag_bytes.c) pair exactly as byte items do in
 * pag_match.c, which the cross-part matching still uses: the same arcs in
 * the same order and the same leftovers, on random ranges of a few keys
 * that overlap, repeat, come out of order, share a thread's moved clock. */
static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

static void collect(void *arg, uint64_t from, uint64_t to, int64_t weight, uint16_t type,
                    bool forward)
{
    (void)forward;
    struct pag_pairs *out = arg;

    if (out->n == out->cap) {
        out->cap = out->cap ? out->cap * 2 : 64;
        out->v = realloc(out->v, out->cap * sizeof(*out->v));
        assert_non_null(out->v);
    }
    memset(&out->v[out->n], 0, sizeof(out->v[out->n]));
    out->v[out->n].from = from;
    out->v[out->n].to = to;
    out->v[out->n].weight = weight;
    out->v[out->n].type = type;
    out->n++;
}

static void test_bytes_vs_items(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        uint64_t s = seed;
        size_t n = 1 + lcg(&s) % 300, nthreads = 1 + lcg(&s) % 4;
        struct ips2_pag p = {0};
        struct ips2_pag_node *nodes = calloc(n, sizeof(*nodes));
        struct pag_item *items = calloc(n, sizeof(*items));
        struct pag_bytes *pb = pag_bytes_new();
        struct pag_pairs a = {0}, b = {0};
        struct pag_item *left = NULL;
        size_t nleft = 0, nitems = 0;
        assert_non_null(nodes);
        assert_non_null(items);
        assert_non_null(pb);
        p.nodes = nodes;
        p.nnodes = n;
        uint64_t off[2][3] = {{0}};
        for (size_t i = 0; i < n; i++) {
            nodes[i].thread = (uint32_t)(i * nthreads / n);
            /* seed % 3 == 1: coarse times, so that equal ranges tie on time too */
            nodes[i].wall = seed % 3 == 1 ? (int64_t)(i / 8 * 10) : (int64_t)(i * 10 - lcg(&s) % 4);
            nodes[i].kind = (uint16_t)(lcg(&s) % 2 ? IPS2_EV_SEND : IPS2_EV_RECV);
            unsigned side = nodes[i].kind == IPS2_EV_SEND ? PAG_SRC : PAG_DST, k = lcg(&s) % 3;
            uint64_t len = 1 + lcg(&s) % 20, o;
            switch (seed % 3) {
            case 0: /* regular streams: each side tiles its key */
                o = off[side][k];
                off[side][k] += len;
                break;
            case 1: /* small, overlapping, repeated */
                o = lcg(&s) % 40;
                break;
            default: /* mostly in order, some back */
                o = off[side][k] = lcg(&s) % 5 ? off[side][k] + len : lcg(&s) % 60;
                break;
            }
            bool own = lcg(&s) % 8 == 0;
            int64_t wall = own ? nodes[i].wall - 1 - (int64_t)(lcg(&s) % 30) : nodes[i].wall;
            int64_t ws =
                side == PAG_DST && lcg(&s) % 2 ? wall - (int64_t)(lcg(&s) % 25) : INT64_MIN;
            assert_true(pag_bytes_add(pb, side, 0x100 + k, o, len, (uint32_t)i, own, wall, ws));
            struct pag_item *it = &items[nitems++];
            it->cls = PC_BYTES;
            it->side = (uint16_t)side;
            it->k[0] = 0x100 + k;
            it->k[1] = o;
            it->k[2] = len;
            it->gid = i;
            it->ref = UINT64_MAX;
            it->wall = wall;
            it->ws = ws;
            it->ref_wall = it->ref_ws = INT64_MIN;
            it->thread = nodes[i].thread;
            it->prev = i > 0 && nodes[i - 1].thread == it->thread ? i - 1 : UINT64_MAX;
            it->kind = nodes[i].kind;
        }
        if (seed % 5 == 0) { /* a dropped thread's ranges */
            size_t cut = n / 2;
            pag_bytes_truncate(pb, (uint32_t)cut);
            nitems = cut;
        }
        assert_true(pag_bytes_match(pb, &p, 0, collect, &a, &left, &nleft));
        struct pag_pairs again = {0};
        assert_true(pag_bytes_match(pb, &p, 1, collect, &again, NULL, NULL));
        assert_int_equal(again.n, a.n);
        assert_memory_equal(again.v, a.v, a.n * sizeof(*a.v));
        free(again.v);
        assert_true(pag_match_items(items, nitems, false, &b));
        assert_int_equal(a.n, b.n);
        for (size_t i = 0; i < a.n; i++) {
            assert_int_equal(a.v[i].from, b.v[i].from);
            assert_int_equal(a.v[i].to, b.v[i].to);
            assert_int_equal(a.v[i].weight, b.v[i].weight);
            assert_int_equal(a.v[i].type, b.v[i].type);
        }
        size_t k = 0;
        for (size_t i = 0; i < nitems; i++) {
            if (items[i].flags & PI_DONE)
                continue;
            assert_true(k < nleft);
            assert_int_equal(pag_item_cmp(&items[i], &left[k]), 0);
            assert_int_equal(items[i].ws, left[k].ws);
            assert_int_equal(items[i].prev, left[k].prev);
            assert_int_equal(items[i].thread, left[k].thread);
            assert_int_equal(items[i].kind, left[k].kind);
            assert_int_equal(items[i].flags, left[k].flags);
            k++;
        }
        assert_int_equal(k, nleft);
        free(a.v);
        free(b.v);
        free(left);
        free(items);
        free(nodes);
        pag_bytes_free(pb);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_bytes, clear),
        cmocka_unit_test_setup(test_send_ends_late, clear),
        cmocka_unit_test_setup(test_timer_back, clear),
        cmocka_unit_test_setup(test_unpaired, clear),
        cmocka_unit_test_setup(test_sync, clear),
        cmocka_unit_test_setup(test_barrier, clear),
        cmocka_unit_test_setup(test_threads, clear),
        cmocka_unit_test_setup(test_processes, clear),
        cmocka_unit_test_setup(test_pvm, clear),
        cmocka_unit_test_setup(test_shares, clear),
        cmocka_unit_test_setup(test_fold_rules, clear),
        cmocka_unit_test_setup(test_fold_shares, clear),
        cmocka_unit_test_setup(test_fold_random, clear),
        cmocka_unit_test_setup(test_fold_keep_messages, clear),
        cmocka_unit_test_setup(test_lazy_build, clear),
        cmocka_unit_test(test_bytes_vs_items),
    };
    return cmocka_run_group_tests(tests, setup, scratch_remove);
}
