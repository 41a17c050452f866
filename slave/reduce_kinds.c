/*
 * reduce_kinds.c - what each event kind other than procedure entry and
 * exit means to the reduction: process and thread life (start, exit,
 * create sequence), lost records, and the interaction events, mapped onto
 * enum ips2_metric in one table (FORMAT.md section 9; REDUCTION.md lists
 * the mapping).
 *
 * An interaction event is recorded when its call returns and carries the
 * timer value of the call's start, so one event is one interval: its
 * time goes to a wait metric (message wait, synchronisation wait, file
 * I/O time ...), charged like CPU time to the procedure on top of the
 * stack, clipped to the phase and spread over the histogram buckets it
 * covers; its message or operation and its bytes count at its end.
 *
 * The critical-path analysis builds its part of the Program Activity Graph
 * from these same events (cpa/pag_build.h): this is the one place that
 * sees every interaction of a thread in order, with its time and CPU time
 * on the session's base, so every event goes to the PAG builder too when
 * the reduction builds one (struct rt's pag).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "ips2_fields.h"
#include "pag_build.h"
#include "reduce_internal.h"

/* sync-object and sync-init name an object's type in the same word */
static_assert(IPS2_F_SYNC_OBJECT_TYPE == IPS2_F_SYNC_INIT_TYPE, "one type word");

#define NONE 0xff /* no metric */
#define NOX  -1   /* no extra word */

/* When an event counts as a message or operation (and its bytes count). */
enum when {
    IF_OK = 0,      /* the error word is 0 */
    IF_BYTES = 1,   /* it moved bytes (a byte stream: an empty read is no message) */
    IF_PAYLOAD = 2, /* and the payload is not 0 (a PVM receive got a message) */
};

struct kind_map {
    uint8_t used;   /* the entry is filled in */
    uint8_t wait;   /* metric of the call's time [start, end], or NONE */
    uint8_t count;  /* metric counted once (messages, operations), or NONE */
    uint8_t bytes;  /* metric of the bytes moved, or NONE */
    int8_t start_x; /* extra word: start timer (absent or, with zero_x, 0: no wait) */
    int8_t bytes_x; /* extra word: bytes */
    int8_t err_x;   /* extra word: error (0 = none) */
    int8_t call_x;  /* extra word: call, whose IPS2_IO_PEEK flag means nothing moved */
    uint8_t when;   /* enum when */
    /* synchronisation: the wait is one on the object named by the payload */
    uint8_t object; /* its type, as far as the kind tells it (0: not an object wait) */
    int8_t type_x;  /* extra word: its type (sync-failed) */
    int8_t cpu_x;   /* extra word: CPU time when the wait began (spinning waits) */
    uint8_t zero_x; /* a start timer of 0 means "did not wait" */
};

#define MSG(k, wait, count, bytes, start_x, bytes_x, err_x, call_x, when)                          \
    [k] = {1,        (wait), (count), (bytes), (start_x), (bytes_x), (err_x),                      \
           (call_x), (when), 0,       NOX,     NOX,       0}
#define SYNC(k, type, start_x, type_x, cpu_x, zero_x)                                              \
    [k] = {1,     IPS2_M_SYNC_WAIT, NONE,     NONE,    (start_x), NOX, NOX, NOX,                   \
           IF_OK, (type),           (type_x), (cpu_x), (zero_x)}

/* The one table: kinds of FORMAT.md section 9 onto metrics. */
static const struct kind_map kinds[IPS2_EV_KIND_MAX + 1] = {
    /* synchronisation (9.1): the wait of a lock, condition, barrier or
     * semaphore; lock-acquired's type comes from the object's sync-object */
    SYNC(IPS2_EV_LOCK_ACQUIRED, IPS2_SYNC_MUTEX, IPS2_F_LOCK_ACQUIRED_START, NOX,
         IPS2_F_LOCK_ACQUIRED_CPU_START, 0),
    SYNC(IPS2_EV_LOCK_ACQUIRED_SHARED, IPS2_SYNC_RWLOCK, IPS2_F_LOCK_ACQUIRED_SHARED_START, NOX,
         IPS2_F_LOCK_ACQUIRED_SHARED_CPU_START, 0),
    SYNC(IPS2_EV_SYNC_FAILED, IPS2_SYNC_MUTEX, IPS2_F_SYNC_FAILED_START, IPS2_F_SYNC_FAILED_TYPE,
         NOX, 1),
    SYNC(IPS2_EV_COND_WAKE, IPS2_SYNC_COND, IPS2_F_COND_WAKE_START, NOX, NOX, 0),
    SYNC(IPS2_EV_BARRIER_DEPART, IPS2_SYNC_BARRIER, IPS2_F_BARRIER_DEPART_START, NOX,
         IPS2_F_BARRIER_DEPART_CPU_START, 0),
    SYNC(IPS2_EV_SEM_ACQUIRED, IPS2_SYNC_SEM, IPS2_F_SEM_ACQUIRED_START, NOX, NOX, 0),
    /* messages and files (9.2) */
    MSG(IPS2_EV_SEND, NONE, IPS2_M_MSGS_SENT, IPS2_M_BYTES_SENT, IPS2_F_SEND_START,
        IPS2_F_SEND_BYTES, IPS2_F_SEND_ERRNO, IPS2_F_SEND_CALL, IF_BYTES),
    MSG(IPS2_EV_RECV, IPS2_M_MSG_WAIT, IPS2_M_MSGS_RECV, IPS2_M_BYTES_RECV, IPS2_F_RECV_START,
        IPS2_F_RECV_BYTES, IPS2_F_RECV_ERRNO, IPS2_F_RECV_CALL, IF_BYTES),
    MSG(IPS2_EV_DGRAM_SEND, NONE, IPS2_M_MSGS_SENT, IPS2_M_BYTES_SENT, IPS2_F_DGRAM_SEND_START,
        IPS2_F_DGRAM_SEND_BYTES, IPS2_F_DGRAM_SEND_ERRNO, IPS2_F_DGRAM_SEND_CALL, IF_OK),
    MSG(IPS2_EV_DGRAM_RECV, IPS2_M_MSG_WAIT, IPS2_M_MSGS_RECV, IPS2_M_BYTES_RECV,
        IPS2_F_DGRAM_RECV_START, IPS2_F_DGRAM_RECV_BYTES, IPS2_F_DGRAM_RECV_ERRNO,
        IPS2_F_DGRAM_RECV_CALL, IF_OK),
    MSG(IPS2_EV_CONNECT, IPS2_M_MSG_WAIT, NONE, NONE, IPS2_F_CONNECT_START, NOX, NOX, NOX, IF_OK),
    MSG(IPS2_EV_ACCEPT, IPS2_M_MSG_WAIT, NONE, NONE, IPS2_F_ACCEPT_START, NOX, NOX, NOX, IF_OK),
    MSG(IPS2_EV_IO_WAIT, IPS2_M_MSG_WAIT, NONE, NONE, IPS2_F_IO_WAIT_START, NOX, NOX, NOX, IF_OK),
    MSG(IPS2_EV_FILE_READ, IPS2_M_IO_TIME, IPS2_M_IO_OPS, IPS2_M_IO_BYTES, IPS2_F_FILE_READ_START,
        IPS2_F_FILE_READ_BYTES, IPS2_F_FILE_READ_ERRNO, NOX, IF_OK),
    MSG(IPS2_EV_FILE_WRITE, IPS2_M_IO_TIME, IPS2_M_IO_OPS, IPS2_M_IO_BYTES, IPS2_F_FILE_WRITE_START,
        IPS2_F_FILE_WRITE_BYTES, IPS2_F_FILE_WRITE_ERRNO, NOX, IF_OK),
    MSG(IPS2_EV_FILE_SEEK, IPS2_M_SEEK_TIME, NONE, NONE, IPS2_F_FILE_SEEK_START, NOX, NOX, NOX,
        IF_OK),
    MSG(IPS2_EV_FILE_SYNC, IPS2_M_IO_TIME, IPS2_M_IO_OPS, NONE, IPS2_F_FILE_SYNC_START, NOX,
        IPS2_F_FILE_SYNC_ERRNO, NOX, IF_OK),
    /* processes and PVM (9.3) */
    MSG(IPS2_EV_VFORK, IPS2_M_SYNC_WAIT, NONE, NONE, IPS2_F_VFORK_START, NOX, NOX, NOX, IF_OK),
    MSG(IPS2_EV_WAIT, IPS2_M_SYNC_WAIT, NONE, NONE, IPS2_F_WAIT_START, NOX, NOX, NOX, IF_OK),
    MSG(IPS2_EV_PVM_SEND, NONE, IPS2_M_MSGS_SENT, IPS2_M_BYTES_SENT, NOX, IPS2_F_PVM_SEND_BYTES,
        IPS2_F_PVM_SEND_ERROR, NOX, IF_OK),
    MSG(IPS2_EV_PVM_RECV, IPS2_M_MSG_WAIT, IPS2_M_MSGS_RECV, IPS2_M_BYTES_RECV,
        IPS2_F_PVM_RECV_START, IPS2_F_PVM_RECV_BYTES, IPS2_F_PVM_RECV_ERROR, NOX, IF_PAYLOAD),
    MSG(IPS2_EV_PVM_BARRIER, IPS2_M_SYNC_WAIT, NONE, NONE, IPS2_F_PVM_BARRIER_START, NOX, NOX, NOX,
        IF_OK),
};

static uint64_t word(const struct ips2_event *ev, int i)
{
    return i >= 0 && (unsigned)i < ev->nextra ? ev->extra[i] : 0;
}

/* A wait on a synchronisation object: the object's row, and the CPU the
 * thread spent spinning through the wait. */
static void object_wait(struct rt *r, const struct kind_map *km, const struct ips2_event *ev,
                        int64_t t0, int64_t t)
{
    uint64_t spin = 0;
    uint32_t type = km->object;

    if (km->cpu_x != NOX && (unsigned)km->cpu_x < ev->nextra && ev->cpu_exact &&
        ev->cpu_ns > ev->extra[km->cpu_x]) {
        spin = ev->cpu_ns - ev->extra[km->cpu_x];
        rt_spread(r, IPS2_M_SPIN, t0, t, spin);
    }
    if (km->type_x != NOX && (unsigned)km->type_x < ev->nextra) {
        type = (uint32_t)ev->extra[km->type_x];
        if (type == IPS2_SYNC_RWLOCK_WRITE)
            type = IPS2_SYNC_RWLOCK; /* an attempt to write: the object is an rwlock */
    }
    rt_object_wait(r, type, ev->payload, t0, t, spin);
}

/* An interaction event through the table. */
static void interaction(struct rt *r, const struct kind_map *km, const struct red_clock *c,
                        const struct ips2_event *ev, int64_t t)
{
    if (km->wait != NONE && km->start_x != NOX && (unsigned)km->start_x < ev->nextra &&
        !(km->zero_x && ev->extra[km->start_x] == 0)) {
        int64_t t0 = red_clock_at(c, ev, t, ev->extra[km->start_x]);
        rt_wait(r, km->wait, t0, t);
        if (km->object)
            object_wait(r, km, ev, t0, t);
    }
    if (km->count == NONE)
        return;
    if (km->err_x != NOX && word(ev, km->err_x) != 0)
        return;
    if (km->call_x != NOX && (word(ev, km->call_x) & IPS2_IO_PEEK))
        return;
    uint64_t bytes = km->bytes_x != NOX ? word(ev, km->bytes_x) : 0;
    if ((km->when == IF_BYTES && bytes == 0) || (km->when == IF_PAYLOAD && ev->payload == 0))
        return;
    rt_count(r, km->count, t, 1);
    if (km->bytes != NONE && bytes)
        rt_count(r, km->bytes, t, bytes);
}

int64_t red_clock_at(const struct red_clock *c, const struct ips2_event *ev, int64_t t,
                     uint64_t timer)
{
    uint64_t ud = ev->timer - timer;
    int64_t d;

    memcpy(&d, &ud, sizeof(d));
    if (c->timer != IPS2_TIMER_MONOTONIC) {
        __int128 ns = (__int128)d * 1000000000 / (__int128)(c->tsc_hz ? c->tsc_hz : 1);
        if (ns > INT64_MAX / 2 || ns < -(INT64_MAX / 2))
            return t; /* nonsense: no duration */
        d = (int64_t)ns;
    }
    if (d < 0)
        return t;  /* a start after the end: no duration */
    d -= c->in_ns; /* the instrumentation inside the call (compensate.h) */
    return d > 0 ? t - d : t;
}

static uint64_t extra(const struct ips2_event *ev, unsigned i)
{
    return i < ev->nextra ? ev->extra[i] : 0;
}

/* The event to the PAG builder, with its call's start on the session base. */
static void pag(struct rt *r, const struct red_clock *c, const struct ips2_event *ev, int64_t t)
{
    int w = pag_start_word(ev);
    int64_t ws = INT64_MIN;
    struct red_clock raw = *c;

    /* the PAG's nodes keep the recorded wall: its pairing and its
     * dependence arcs' weights (the latency after the later of source and
     * wait start) are the measured ones; its CPU arcs are compensated */
    raw.in_ns = 0;
    t = r->raw_last_t;
    if (w >= 0 && (unsigned)w < ev->nextra && ev->extra[w] != 0)
        ws = red_clock_at(&raw, ev, t, ev->extra[w]);
    rt_pag_event(r, ev, t, ws);
}

/* What a sync-init (that succeeded) or a sync-object (with a name, or of
 * a shared object: its address here) tells for the object's name. */
static void note_fact(struct rt *r, const struct ips2_event *ev, int64_t t)
{
    struct rt_fact f = {.key = ev->payload, .t = t};

    if (ev->kind == IPS2_EV_SYNC_INIT) {
        if (extra(ev, IPS2_F_SYNC_INIT_RESULT) != 0)
            return;
        f.init = true;
        f.proc = r->h.top && r->h.top < r->nprocs ? r->procs[r->h.top].addr : 0;
        rt_note_fact(r, &f);
        return;
    }
    char name[256] = "";
    if (ev->nextra > IPS2_F_SYNC_OBJECT_NAME)
        ips2_event_string(ev, IPS2_F_SYNC_OBJECT_NAME, name, sizeof(name));
    if (!name[0] && !(ev->payload & IPS2_SYNC_KEY_SHARED))
        return; /* a private object's address is its key */
    f.address = extra(ev, IPS2_F_SYNC_OBJECT_ADDRESS);
    if (name[0] && !(f.name = strdup(name))) {
        r->oom = true;
        return;
    }
    rt_note_fact(r, &f);
}

void red_kind_event(struct rt *r, struct red_kstate *k, const struct red_clock *c,
                    const struct ips2_event *ev, int64_t t)
{
    if (r->pag)
        pag(r, c, ev, t);
    switch (ev->kind) {
    case IPS2_EV_PROC_START:
        r->proc_start_seen = true;
        r->proc_start_how = (int32_t)ev->payload;
        r->ppid = (uint32_t)extra(ev, IPS2_F_PROC_START_PPID);
        break;
    case IPS2_EV_EXEC:
        r->exec_pending = true;
        break;
    case IPS2_EV_EXEC_FAILED:
        r->exec_pending = false;
        break;
    case IPS2_EV_PROC_EXIT:
        r->proc_exit_seen = true;
        r->exit_how = (int32_t)ev->payload;
        r->exit_status = (int32_t)extra(ev, IPS2_F_PROC_EXIT_STATUS);
        r->exit_t = t;
        break;
    case IPS2_EV_THREAD_START:
        r->thread_start_seen = true;
        r->creator = (uint32_t)ev->payload;
        r->create_seq = extra(ev, IPS2_F_THREAD_START_CREATE_SEQ);
        break;
    case IPS2_EV_THREAD_EXIT:
        r->thread_exit_seen = true;
        r->thread_exit_how = (int32_t)ev->payload;
        break;
    case IPS2_EV_JOIN_BEGIN:
        k->in_join = true;
        k->join_begin = t;
        break;
    case IPS2_EV_JOIN_END:
        if (k->in_join)
            rt_wait(r, IPS2_M_SYNC_WAIT, k->join_begin, t);
        k->in_join = false;
        break;
    case IPS2_EV_CALLS: /* a counted-only procedure's calls since its previous record */
        if (ev->nextra > IPS2_F_CALLS_COUNT)
            rt_counted(r, ev->payload, ev->extra[IPS2_F_CALLS_COUNT], t);
        break;
    case IPS2_EV_LOST:
        r->lost += ev->payload;
        if (extra(ev, IPS2_F_LOST_ERRNO) != 0)
            r->lost_errno = (int)extra(ev, IPS2_F_LOST_ERRNO);
        break;
    case IPS2_EV_SYNC_OBJECT:
    case IPS2_EV_SYNC_INIT:
        if (ev->nextra > IPS2_F_SYNC_OBJECT_TYPE &&
            ev->extra[IPS2_F_SYNC_OBJECT_TYPE] != IPS2_SYNC_ANY)
            rt_note_type(r, ev->payload, (uint32_t)ev->extra[IPS2_F_SYNC_OBJECT_TYPE]);
        note_fact(r, ev, t);
        break;
    case IPS2_EV_LOCK_RELEASE:
    case IPS2_EV_LOCK_RELEASE_SHARED:
        rt_lock_released(r, ev->kind == IPS2_EV_LOCK_RELEASE_SHARED, ev->payload, t);
        break;
    case IPS2_EV_LOCK_COUNTED:
        if (ev->nextra > IPS2_F_LOCK_COUNTED_ACQUIRED)
            rt_lock_counted(r, ev->payload, ev->extra[IPS2_F_LOCK_COUNTED_ACQUIRED], t);
        break;
    case IPS2_EV_LOCK_ACQUIRED:
    case IPS2_EV_LOCK_ACQUIRED_SHARED:
        rt_lock_acquired(r, ev->kind == IPS2_EV_LOCK_ACQUIRED_SHARED, ev->payload, t);
        interaction(r, &kinds[ev->kind], c, ev, t);
        break;
    default:
        if (ev->kind <= IPS2_EV_KIND_MAX && kinds[ev->kind].used)
            interaction(r, &kinds[ev->kind], c, ev, t);
        break;
    }
}
