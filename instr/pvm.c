/*
 * pvm.c - PVM 3 tasks, messages and groups.
 *
 * libips2 never links libpvm3: these wrappers carry the libpvm names and
 * call on to libpvm3's definitions, found as IPS2_REAL finds libc's (a
 * program built with ips2cc and -lpvm3 finds libips2's first); pvm3.h
 * gives the prototypes.
 * A linker that drops unneeded libraries (--as-needed, Debian's default)
 * drops -lgpvm3 (or -lpvm3) when libips2 defines every libpvm function the
 * program names: then the wrappers load the library the program linked
 * against (by soname, libpvm3 before libgpvm3, which needs it) on first use.
 *
 * What is recorded (FORMAT.md 9.3 has every word):
 *
 *   PVM_TASK     once per task, at the first wrapped call that finds the
 *                process enrolled: its tid and its parent task's tid.
 *   PVM_SEND     per message sent (pvm_send, pvm_psend, one per destination
 *                of pvm_mcast): destination, tag, context, sequence, bytes.
 *                Recorded when the call begins (once the task is
 *                enrolled), so that the message's arc starts when the send
 *                began, and a sender killed as soon as its message is out
 *                (a pvm_kill right after the last reply) has recorded it;
 *                a send that then fails takes its sequence back and has
 *                its record rewritten: sequence 0, the error (a failed
 *                pvm_mcast: its first record so, with destination 0, the
 *                others made padding, which readers skip).
 *   PVM_RECV     per message received (pvm_recv, pvm_trecv, a pvm_nrecv
 *                that got one, pvm_precv), and per pvm_trecv that timed
 *                out: source, tag, context, sequence, bytes, the timer when
 *                the wait began.
 *   PVM_PROBE    per pvm_probe that found a message (not received).
 *   PVM_SPAWN    per task pvm_spawn asked for: the child's tid.
 *                The spawned tasks trace into this process's session and
 *                application with no setting: libpvm hands a task only the
 *                variables PVM_EXPORT lists, so for the time of the real
 *                call the tracing variables are set (the session directory
 *                as this process uses it, absolute; the application) and
 *                listed there, then put back as the program had them.
 *   PVM_EXIT, PVM_BARRIER, PVM_GROUP  for pvm_exit, pvm_barrier and
 *                pvm_joingroup/pvm_lvgroup.
 *
 * Pairing: a message is (sender tid, receiver tid, context, tag, sequence);
 * the sequence counts per channel at both ends (pvm_pairs.h), so the k-th
 * send pairs with the k-th receive.  Bytes are the message's packed length
 * (pvm_bufinfo / pvm_getminfo) at both ends.
 *
 * Inside every wrapped call the library's own traffic is not the
 * program's: the real call runs quiet (ips2_quiet_begin), so that the
 * socket wrappers pass libpvm's pvmd and task-to-task sockets through, and
 * a libpvm function that calls another wrapped one (pvm_psend calls
 * pvm_send) records only the outer call.  Messages in PVM's own contexts
 * (pvmproto.h SYSCTX_*: the group server's, for one) are never recorded.
 * Calls that only talk to the pvmd (pvm_config, pvm_notify, ...) are
 * wrapped just to run quiet.  The wrappers' own PVM calls keep errno and
 * pvm_errno as the program's call left them, and are made only when the
 * task is enrolled, so that they never print or connect.
 *
 * libpvm may refuse a call (no pvmd, a bad count) before it reads the
 * caller's arrays and strings: the wrappers read pvm_mcast's tids only
 * after a call that succeeded, and pvm_spawn's file name through a copy
 * (caller_mem.c), so that a bad pointer gives the error it gives
 * untraced, never a fault here.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pvm3.h>

#include "pvm_pairs.h"
#include "runtime.h"

/* Contexts from here up are PVM's own (pvmproto.h: SYSCTX_FIRST - 7). */
#define PVM_SYSTEM_CONTEXTS 0x7fff8

/* Groups whose barriers are counted; beyond that, episode 0. */
enum { GROUPS_MAX = 64, GROUP_NAME_MAX = 64 };

static pthread_mutex_t pvm_lock = PTHREAD_MUTEX_INITIALIZER; /* guards what follows */
static struct ips2_pvm_pairs sent, received;
static struct {
    char name[GROUP_NAME_MAX];
    uint64_t barriers;
} groups[GROUPS_MAX];

/* The task this process is (PVM_TASK recorded), or tid 0. */
static struct {
    pid_t pid;
    int tid;
} task;

/* --- libpvm3 and libgpvm3 --------------------------------------------------- */

/* The definition of a libpvm3/libgpvm3 symbol: the next one after libips2,
 * or, if the linker dropped the library, the one in the library loaded now. */
static void *pvm_symbol(const char *name)
{
    static const char *const libraries[] = {"libpvm3.so.3", "libgpvm3.so.3"};
    void *p = ips2_real(name);

    for (size_t i = 0; p == NULL && i < sizeof(libraries) / sizeof(libraries[0]); i++) {
        void *h = dlopen(libraries[i], RTLD_NOW | RTLD_GLOBAL);
        if (h != NULL)
            p = dlsym(h, name);
    }
    return p;
}

#define PVM_REAL(name)                                                                             \
    ({                                                                                             \
        static __typeof__(name) *real_;                                                            \
        if (unlikely(real_ == NULL))                                                               \
            real_ = (__typeof__(name) *)pvm_symbol(#name);                                         \
        real_;                                                                                     \
    })

/* Calls the libpvm function; PvmSysErr if it cannot be found at all. */
#define CALL(name, args)                                                                           \
    ({                                                                                             \
        __typeof__(name) *f_ = PVM_REAL(name);                                                     \
        f_ ? f_ args : PvmSysErr;                                                                  \
    })

/* --- libpvm state the wrappers must leave as they found it -------------- */

static int *libpvm_int(const char *name)
{
    return (int *)pvm_symbol(name);
}

struct saved_errors {
    int err, pvm_err;
};

static struct saved_errors errors_save(void)
{
    static int *pvm_errno_ptr;
    struct saved_errors s = {errno, 0};

    if (pvm_errno_ptr == NULL)
        pvm_errno_ptr = libpvm_int("pvm_errno");
    if (pvm_errno_ptr)
        s.pvm_err = *pvm_errno_ptr;
    return s;
}

static void errors_restore(struct saved_errors s)
{
    int *pvm_errno_ptr = libpvm_int("pvm_errno");

    if (pvm_errno_ptr)
        *pvm_errno_ptr = s.pvm_err;
    errno = s.err;
}

/* True when the process is enrolled in PVM: libpvm's pvmmytid is -1 until
 * then.  Without that variable, a call that succeeded is the proof. */
static int enrolled(int call_succeeded)
{
    static int *mytid_ptr;
    static int looked;

    if (!looked) {
        mytid_ptr = libpvm_int("pvmmytid");
        looked = 1;
    }
    return mytid_ptr ? *mytid_ptr > 0 : call_succeeded;
}

/* --- the task ------------------------------------------------------------ */

static void lock(void)
{
    ips2_lock(&pvm_lock);
}

static void unlock(void)
{
    ips2_unlock(&pvm_lock);
}

/* This task's tid, recording PVM_TASK the first time the process is found
 * enrolled (and again in a forked child, or after pvm_exit); 0 if it is
 * not enrolled.  A new task starts its channels' counts from zero. */
static int my_tid(int call_succeeded)
{
    if (task.tid > 0 && task.pid == ips2_proc.pid)
        return task.tid;
    if (!enrolled(call_succeeded))
        return 0;
    int tid = CALL(pvm_mytid, ());
    if (tid <= 0)
        return 0;
    int parent = CALL(pvm_parent, ());
    if (task.pid != ips2_proc.pid) {
        pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
        pvm_lock = fresh; /* another thread may have held it at fork */
    }
    lock();
    ips2_pvm_pairs_clear(&sent);
    ips2_pvm_pairs_clear(&received);
    memset(groups, 0, sizeof(groups));
    unlock();
    task.tid = tid;
    task.pid = ips2_proc.pid;
    uint64_t parent_tid = parent > 0 ? (uint64_t)parent : 0;
    ips2_emit_slow(&ips2_self, IPS2_EV_PVM_TASK, (uint64_t)tid, &parent_tid, 1, IPS2_CPU_READ);
    return tid;
}

/* --- messages ------------------------------------------------------------ */

static uint64_t tid_word(int tid)
{
    return tid > 0 ? (uint64_t)tid : 0;
}

static uint64_t error_word(int cc)
{
    return cc < 0 ? (uint64_t) - (int64_t)cc : 0;
}

/* Bytes packed in the active send buffer (0 if there is none). */
static int send_buffer_bytes(void)
{
    struct saved_errors s = errors_save();
    int bytes = 0, tag, tid;
    int buf = CALL(pvm_getsbuf, ());

    if (buf <= 0 || CALL(pvm_bufinfo, (buf, &bytes, &tag, &tid)) < 0)
        bytes = 0;
    errors_restore(s);
    return bytes;
}

static void record_send(int dst, int tag, int ctx, int bytes, unsigned how, int cc)
{
    int me = my_tid(cc >= 0);
    uint64_t seq = 0;

    if (cc >= 0 && me > 0) {
        lock();
        seq = ips2_pvm_pair_next(&sent, dst, ctx, tag);
        unlock();
    }
    uint64_t extra[7] = {(uint32_t)tag, (uint32_t)ctx, seq,           (uint32_t)bytes,
                         tid_word(me),  how,           error_word(cc)};
    ips2_emit(IPS2_EV_PVM_SEND, tid_word(dst), extra, 7, IPS2_CPU_DERIVED);
}

/* A message about to be sent, recorded before the call (send_begin) and
 * completed after it (send_end). */
struct pending_send {
    struct ips2_placed at; /* at.fd < 0: not recorded yet */
    int dst, ctx, tag;
    uint64_t seq;
};

/* Gives back the sequence number p took, if no send took one since. */
static void seq_give_back(struct pending_send *p)
{
    lock();
    struct ips2_pvm_pair *pair = ips2_pvm_pair_find(&sent, p->dst, p->ctx, p->tag, false);
    if (pair != NULL && p->seq != 0 && pair->count == p->seq)
        pair->count--;
    unlock();
    p->seq = 0;
}

/* Records the send of a message to dst before the call, if the task is
 * enrolled (else nothing yet: record_send after the call). */
static void send_begin(struct pending_send *p, int dst, int tag, int ctx, int bytes, unsigned how)
{
    int me = my_tid(0);

    p->at.fd = -1;
    p->dst = dst;
    p->ctx = ctx;
    p->tag = tag;
    p->seq = 0;
    if (me <= 0)
        return;
    lock();
    p->seq = ips2_pvm_pair_next(&sent, dst, ctx, tag);
    unlock();
    uint64_t extra[7] = {(uint32_t)tag, (uint32_t)ctx, p->seq, (uint32_t)bytes,
                         tid_word(me),  how,           0};
    ips2_emit_placed(IPS2_EV_PVM_SEND, tid_word(dst), extra, 7, &p->at);
    if (p->at.fd < 0)
        seq_give_back(p); /* not written: record_send numbers it after the call */
}

/* A send recorded by send_begin returned cc: a failure takes its sequence
 * back and rewrites the record (sequence 0, the error). */
static void send_end(struct pending_send *p, int cc)
{
    if (cc >= 0)
        return;
    seq_give_back(p);
    ips2_placed_patch(&p->at, 2, 0);
    ips2_placed_patch(&p->at, 6, error_word(cc));
}

/* A receive that returned cc (a buffer id, 0 for none, or an error).
 * info describes the message when cc > 0 (pvm_getminfo). */
static void record_recv(int cc, const struct pvmminfo *info, unsigned how, uint64_t start)
{
    int me = my_tid(cc >= 0);
    uint64_t seq = 0;
    int got = cc > 0;

    if (got && info->ctx >= PVM_SYSTEM_CONTEXTS)
        return;
    if (got && me > 0) {
        lock();
        seq = ips2_pvm_pair_next(&received, info->src, info->ctx, info->tag);
        unlock();
    }
    uint64_t extra[8] = {got ? (uint32_t)info->tag : 0,
                         got ? (uint32_t)info->ctx : 0,
                         seq,
                         got ? (uint32_t)info->len : 0,
                         tid_word(me),
                         how,
                         error_word(cc),
                         start};
    ips2_emit_slow(&ips2_self, IPS2_EV_PVM_RECV, got ? tid_word(info->src) : 0, extra, 8,
                   IPS2_CPU_READ);
}

/* What the buffer a receive returned holds. */
static struct pvmminfo message_info(int buf)
{
    struct saved_errors s = errors_save();
    struct pvmminfo info;

    memset(&info, 0, sizeof(info));
    if (buf > 0 && CALL(pvm_getminfo, (buf, &info)) < 0)
        memset(&info, 0, sizeof(info));
    errors_restore(s);
    return info;
}

/* Ends a wrapped call: bookkeeping done, the program's errno and
 * pvm_errno back, the library's traffic visible again. */
static int leave(struct saved_errors s, int cc)
{
    errors_restore(s);
    ips2_quiet_end();
    return cc;
}

IPS2_EXPORT int pvm_send(int tid, int tag)
{
    if (ips2_passthrough())
        return CALL(pvm_send, (tid, tag));
    ips2_quiet_begin();
    int ctx = CALL(pvm_getcontext, ());
    int bytes = send_buffer_bytes();
    struct pending_send p = {.at.fd = -1};
    if (ctx < PVM_SYSTEM_CONTEXTS)
        send_begin(&p, tid, tag, ctx, bytes, IPS2_PVM_SEND);
    int cc = CALL(pvm_send, (tid, tag));
    struct saved_errors s = errors_save();
    if (p.at.fd >= 0)
        send_end(&p, cc);
    else if (ctx < PVM_SYSTEM_CONTEXTS)
        record_send(tid, tag, ctx, bytes, IPS2_PVM_SEND, cc);
    return leave(s, cc);
}

/* Bytes in n items of a pvm_psend()/pvm_precv() data type (lpvm.c). */
static int datatype_bytes(int n, int type)
{
    switch (type) {
    case PVM_BYTE:
        return n;
    case PVM_SHORT:
    case PVM_USHORT:
        return n * (int)sizeof(short);
    case PVM_INT:
    case PVM_UINT:
        return n * (int)sizeof(int);
    case PVM_LONG:
    case PVM_ULONG:
        return n * (int)sizeof(long);
    case PVM_FLOAT:
        return n * (int)sizeof(float);
    case PVM_CPLX:
        return n * 2 * (int)sizeof(float);
    case PVM_DOUBLE:
        return n * (int)sizeof(double);
    case PVM_DCPLX:
        return n * 2 * (int)sizeof(double);
    default:
        return 0;
    }
}

IPS2_EXPORT int pvm_psend(int tid, int tag, void *buf, int len, int type)
{
    if (ips2_passthrough())
        return CALL(pvm_psend, (tid, tag, buf, len, type));
    ips2_quiet_begin();
    int ctx = CALL(pvm_getcontext, ());
    struct pending_send p = {.at.fd = -1};
    if (ctx < PVM_SYSTEM_CONTEXTS)
        send_begin(&p, tid, tag, ctx, datatype_bytes(len, type), IPS2_PVM_PSEND);
    int cc = CALL(pvm_psend, (tid, tag, buf, len, type));
    struct saved_errors s = errors_save();
    if (p.at.fd >= 0)
        send_end(&p, cc);
    else if (ctx < PVM_SYSTEM_CONTEXTS)
        record_send(tid, tag, ctx, datatype_bytes(len, type), IPS2_PVM_PSEND, cc);
    return leave(s, cc);
}

/* pvm_mcast's sends recorded before the call: up to this many targets
 * (more are recorded after the call). */
enum { MCAST_EARLY = 64 };

/* Records before the call the sends of a pvm_mcast to tids (read through a
 * copy: libpvm may refuse the call before it reads them); returns how
 * many, or -1 if they are left to record_send after the call. */
static int mcast_begin(struct pending_send *p, const int *tids, int count, int tag, int ctx,
                       int bytes)
{
    int given[MCAST_EARLY], targets[MCAST_EARLY];
    int me = my_tid(0);

    if (me <= 0 || tids == NULL || count <= 0 || count > MCAST_EARLY ||
        ips2_caller_read(given, tids, (size_t)count * sizeof(int)) != 0)
        return -1;
    int n = ips2_pvm_mcast_targets(given, count, me, targets);
    for (int i = 0; i < n; i++)
        send_begin(&p[i], targets[i], tag, ctx, bytes, IPS2_PVM_MCAST);
    return n;
}

/* The n sends mcast_begin recorded, after a call that returned cc: a
 * failure leaves one failed send, to destination 0, as the call records
 * when nothing was sent. */
static void mcast_end(struct pending_send *p, int n, int cc, int tag, int ctx, int bytes)
{
    if (cc >= 0)
        return;
    for (int i = n - 1; i >= 0; i--) {
        send_end(&p[i], cc); /* sequences back, last taken first */
        if (i > 0)
            ips2_placed_erase(&p[i].at);
    }
    if (n > 0 && p[0].at.fd >= 0)
        ips2_placed_payload(&p[0].at, 0);
    else
        record_send(0, tag, ctx, bytes, IPS2_PVM_MCAST, cc);
}

IPS2_EXPORT int pvm_mcast(int *tids, int count, int tag)
{
    enum { ON_STACK = 256 };
    int stack[ON_STACK];
    struct pending_send early[MCAST_EARLY];

    if (ips2_passthrough())
        return CALL(pvm_mcast, (tids, count, tag));
    ips2_quiet_begin();
    int ctx = CALL(pvm_getcontext, ());
    int bytes = send_buffer_bytes();
    int n = ctx < PVM_SYSTEM_CONTEXTS ? mcast_begin(early, tids, count, tag, ctx, bytes) : -1;
    int cc = CALL(pvm_mcast, (tids, count, tag));
    struct saved_errors s = errors_save();
    if (n >= 0) {
        mcast_end(early, n, cc, tag, ctx, bytes);
    } else if (ctx < PVM_SYSTEM_CONTEXTS && cc < 0) {
        record_send(0, tag, ctx, bytes, IPS2_PVM_MCAST, cc); /* nothing was sent */
    } else if (ctx < PVM_SYSTEM_CONTEXTS && tids != NULL && count > 0) {
        /* libpvm read every tid to send: they can be read */
        int me = my_tid(1);
        int *targets = count <= ON_STACK ? stack : malloc((size_t)count * sizeof(int));
        int m = targets ? ips2_pvm_mcast_targets(tids, count, me, targets) : 0;
        for (int i = 0; i < m; i++)
            record_send(targets[i], tag, ctx, bytes, IPS2_PVM_MCAST, cc);
        if (targets != stack)
            free(targets);
    }
    return leave(s, cc);
}

IPS2_EXPORT int pvm_recv(int tid, int tag)
{
    if (ips2_passthrough())
        return CALL(pvm_recv, (tid, tag));
    ips2_quiet_begin();
    uint64_t start = ips2_timer_now();
    int cc = CALL(pvm_recv, (tid, tag));
    struct saved_errors s = errors_save();
    struct pvmminfo info = message_info(cc);
    record_recv(cc, &info, IPS2_PVM_RECV, start);
    return leave(s, cc);
}

IPS2_EXPORT int pvm_trecv(int tid, int tag, struct timeval *timeout)
{
    if (ips2_passthrough())
        return CALL(pvm_trecv, (tid, tag, timeout));
    ips2_quiet_begin();
    uint64_t start = ips2_timer_now();
    int cc = CALL(pvm_trecv, (tid, tag, timeout));
    struct saved_errors s = errors_save();
    struct pvmminfo info = message_info(cc);
    record_recv(cc, &info, IPS2_PVM_TRECV, start);
    return leave(s, cc);
}

/* A pvm_nrecv that finds nothing polled, it did not wait: not recorded. */
IPS2_EXPORT int pvm_nrecv(int tid, int tag)
{
    if (ips2_passthrough())
        return CALL(pvm_nrecv, (tid, tag));
    ips2_quiet_begin();
    uint64_t start = ips2_timer_now();
    int cc = CALL(pvm_nrecv, (tid, tag));
    struct saved_errors s = errors_save();
    if (cc != 0) {
        struct pvmminfo info = message_info(cc);
        record_recv(cc, &info, IPS2_PVM_NRECV, start);
    }
    return leave(s, cc);
}

IPS2_EXPORT int pvm_precv(int tid, int tag, void *buf, int len, int type, int *rtid, int *rtag,
                          int *rlen)
{
    int src = 0, mtag = 0, bytes = 0;

    if (ips2_passthrough())
        return CALL(pvm_precv, (tid, tag, buf, len, type, rtid, rtag, rlen));
    ips2_quiet_begin();
    int *src_out = rtid ? rtid : &src;
    int *tag_out = rtag ? rtag : &mtag;
    int *len_out = rlen ? rlen : &bytes;
    uint64_t start = ips2_timer_now();
    int cc = CALL(pvm_precv, (tid, tag, buf, len, type, src_out, tag_out, len_out));
    struct saved_errors s = errors_save();
    struct pvmminfo info;
    memset(&info, 0, sizeof(info));
    info.ctx = CALL(pvm_getcontext, ());
    if (cc >= 0) {
        info.src = *src_out;
        info.tag = *tag_out;
        info.len = *len_out; /* libpvm 3.4 gives bytes here */
    }
    /* precv returns 0 for a message: 1 stands for "got one" */
    record_recv(cc >= 0 ? 1 : cc, &info, IPS2_PVM_PRECV, start);
    return leave(s, cc);
}

IPS2_EXPORT int pvm_probe(int tid, int tag)
{
    if (ips2_passthrough())
        return CALL(pvm_probe, (tid, tag));
    ips2_quiet_begin();
    int cc = CALL(pvm_probe, (tid, tag));
    struct saved_errors s = errors_save();
    struct pvmminfo info = message_info(cc);
    int me = my_tid(cc >= 0);
    if (cc > 0 && info.ctx < PVM_SYSTEM_CONTEXTS) {
        uint64_t seq = 0;
        if (me > 0) {
            lock();
            seq = ips2_pvm_pair_peek(&received, info.src, info.ctx, info.tag);
            unlock();
        }
        uint64_t extra[5] = {(uint32_t)info.tag, (uint32_t)info.ctx, seq, (uint32_t)info.len,
                             tid_word(me)};
        ips2_emit_slow(&ips2_self, IPS2_EV_PVM_PROBE, tid_word(info.src), extra, 5, IPS2_CPU_READ);
    }
    return leave(s, cc);
}

/* --- tasks ---------------------------------------------------------------- */

IPS2_EXPORT int pvm_mytid(void)
{
    if (ips2_passthrough())
        return CALL(pvm_mytid, ());
    ips2_quiet_begin();
    int cc = CALL(pvm_mytid, ());
    struct saved_errors s = errors_save();
    my_tid(cc > 0);
    return leave(s, cc);
}

IPS2_EXPORT int pvm_parent(void)
{
    if (ips2_passthrough())
        return CALL(pvm_parent, ());
    ips2_quiet_begin();
    int cc = CALL(pvm_parent, ());
    struct saved_errors s = errors_save();
    my_tid(cc > 0 || cc == PvmNoParent || cc == PvmParentNotSet);
    return leave(s, cc);
}

/* --- spawned tasks trace into this session --------------------------- */

static const char *const tracing_vars[] = {"IPS2_SESSION", "IPS2_APP", "IPS2_CPUCLOCK",
                                           "IPS2_PREFAULT", "IPS2_TEST_CLOCK_OFFSET_NS"};
enum { TRACING_VARS = sizeof(tracing_vars) / sizeof(tracing_vars[0]) };

/* The program's values of the variables a spawn changes (NULL: unset). */
struct spawn_env {
    char *value[TRACING_VARS];
    char *export;
};

static bool list_has(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p != NULL; p = strchr(p, ':')) {
        p += *p == ':';
        if (strncmp(p, name, n) == 0 && (p[n] == ':' || p[n] == '\0'))
            return true;
    }
    return false;
}

static char *saved_copy(const char *name)
{
    const char *v = getenv(name);
    return v != NULL ? strdup(v) : NULL;
}

static void put_back(const char *name, const char *value)
{
    if (value != NULL)
        setenv(name, value, 1);
    else
        unsetenv(name);
}

/* Sets and exports the tracing variables for a spawn; what was there goes
 * into saved. */
static void spawn_env_export(struct spawn_env *saved)
{
    const char *export = getenv("PVM_EXPORT");
    size_t size = (export ? strlen(export) : 0) + 1;
    for (int i = 0; i < TRACING_VARS; i++)
        size += strlen(tracing_vars[i]) + 1;
    char *list = malloc(size);

    saved->export = saved_copy("PVM_EXPORT");
    for (int i = 0; i < TRACING_VARS; i++)
        saved->value[i] = saved_copy(tracing_vars[i]);
    setenv("IPS2_SESSION", ips2_proc.dir, 1);
    setenv("IPS2_APP", ips2_proc.app, 1);
    if (list == NULL)
        return;
    snprintf(list, size, "%s", export ? export : "");
    for (int i = 0; i < TRACING_VARS; i++) {
        if (getenv(tracing_vars[i]) == NULL || list_has(list, tracing_vars[i]))
            continue;
        if (list[0] != '\0')
            strcat(list, ":");
        strcat(list, tracing_vars[i]);
    }
    setenv("PVM_EXPORT", list, 1);
    free(list);
}

static void spawn_env_restore(struct spawn_env *saved)
{
    for (int i = 0; i < TRACING_VARS; i++) {
        put_back(tracing_vars[i], saved->value[i]);
        free(saved->value[i]);
    }
    put_back("PVM_EXPORT", saved->export);
    free(saved->export);
}

IPS2_EXPORT int pvm_spawn(char *file, char **argv, int flags, char *where, int ntask, int *tids)
{
    enum { ON_STACK = 1024 };
    int stack[ON_STACK];

    if (ips2_passthrough())
        return CALL(pvm_spawn, (file, argv, flags, where, ntask, tids));
    ips2_quiet_begin();
    int *out = tids ? tids : ntask > 0 && ntask <= ON_STACK ? stack : NULL;
    struct spawn_env env;
    spawn_env_export(&env);
    uint64_t start = ips2_timer_now();
    int numt = CALL(pvm_spawn, (file, argv, flags, where, ntask, out));
    struct saved_errors s = errors_save();
    spawn_env_restore(&env);
    int me = my_tid(numt >= 0);
    uint64_t pre[5] = {tid_word(me), 0, start, 0, ntask > 0 ? (uint64_t)ntask : 0};
    char copy[8 * IPS2_RAW_MAX_EXTRA];
    const char *name = ips2_caller_string(copy, sizeof(copy), file);
    if (numt < 0 || ntask <= 0) {
        pre[1] = error_word(numt);
        ips2_emit_string(&ips2_self, IPS2_EV_PVM_SPAWN, 0, pre, 5, name);
    }
    for (int i = 0; numt >= 0 && i < ntask; i++) {
        /* libpvm puts the tids first, then the error codes of the failures */
        int tid = out && i < numt ? out[i] : 0;
        pre[1] = out && i >= numt ? error_word(out[i]) : 0;
        pre[3] = (uint64_t)i;
        ips2_emit_string(&ips2_self, IPS2_EV_PVM_SPAWN, tid_word(tid), pre, 5, name);
    }
    return leave(s, numt);
}

IPS2_EXPORT int pvm_exit(void)
{
    if (ips2_passthrough())
        return CALL(pvm_exit, ());
    ips2_quiet_begin();
    int me = my_tid(0);
    int cc = CALL(pvm_exit, ());
    struct saved_errors s = errors_save();
    if (me > 0) {
        uint64_t err = error_word(cc);
        ips2_emit_slow(&ips2_self, IPS2_EV_PVM_EXIT, (uint64_t)me, &err, 1, IPS2_CPU_READ);
    }
    task.tid = 0; /* a later call enrolls a new task */
    return leave(s, cc);
}

/* --- groups (libgpvm3) ------------------------------------------------------ */

/* The number of this barrier of the task on group: 1, 2, ... (0 if the
 * group table is full). */
static uint64_t next_barrier(const char *group)
{
    uint64_t n = 0;

    lock();
    for (int i = 0; i < GROUPS_MAX; i++) {
        if (groups[i].name[0] == '\0') {
            snprintf(groups[i].name, sizeof(groups[i].name), "%s", group);
            n = ++groups[i].barriers;
            break;
        }
        if (strncmp(groups[i].name, group, sizeof(groups[i].name) - 1) == 0) {
            n = ++groups[i].barriers;
            break;
        }
    }
    unlock();
    return n;
}

IPS2_EXPORT int pvm_barrier(char *group, int count)
{
    if (ips2_passthrough())
        return CALL(pvm_barrier, (group, count));
    ips2_quiet_begin();
    uint64_t start = ips2_timer_now();
    int cc = CALL(pvm_barrier, (group, count));
    struct saved_errors s = errors_save();
    int me = my_tid(cc >= 0);
    uint64_t pre[4] = {tid_word(me), cc >= 0 && group ? next_barrier(group) : 0, error_word(cc),
                       start};
    ips2_emit_string(&ips2_self, IPS2_EV_PVM_BARRIER, count > 0 ? (uint64_t)count : 0, pre, 4,
                     group ? group : "");
    return leave(s, cc);
}

static void record_group(int instance, int joined, int cc, const char *group)
{
    int me = my_tid(cc >= 0);
    uint64_t pre[3] = {tid_word(me), (uint64_t)joined, error_word(cc)};

    ips2_emit_string(&ips2_self, IPS2_EV_PVM_GROUP, instance > 0 ? (uint64_t)instance : 0, pre, 3,
                     group ? group : "");
}

IPS2_EXPORT int pvm_joingroup(char *group)
{
    if (ips2_passthrough())
        return CALL(pvm_joingroup, (group));
    ips2_quiet_begin();
    int cc = CALL(pvm_joingroup, (group));
    struct saved_errors s = errors_save();
    record_group(cc, 1, cc, group);
    return leave(s, cc);
}

IPS2_EXPORT int pvm_lvgroup(char *group)
{
    if (ips2_passthrough())
        return CALL(pvm_lvgroup, (group));
    ips2_quiet_begin();
    int cc = CALL(pvm_lvgroup, (group));
    struct saved_errors s = errors_save();
    record_group(0, 0, cc, group);
    return leave(s, cc);
}

/* --- calls that only talk to the pvmd or the group server: run quiet ------ */

#define QUIET_PVM_CALL(name, params, args)                                                         \
    IPS2_EXPORT int name params                                                                    \
    {                                                                                              \
        if (ips2_passthrough())                                                                    \
            return CALL(name, args);                                                               \
        ips2_quiet_begin();                                                                        \
        int cc = CALL(name, args);                                                                 \
        struct saved_errors s = errors_save();                                                     \
        my_tid(0);                                                                                 \
        return leave(s, cc);                                                                       \
    }

QUIET_PVM_CALL(pvm_config, (int *nhost, int *narch, struct pvmhostinfo **hosts),
               (nhost, narch, hosts))
QUIET_PVM_CALL(pvm_tasks, (int where, int *ntask, struct pvmtaskinfo **tasks),
               (where, ntask, tasks))
QUIET_PVM_CALL(pvm_notify, (int what, int tag, int count, int *tids), (what, tag, count, tids))
QUIET_PVM_CALL(pvm_catchout, (FILE * f), (f))
QUIET_PVM_CALL(pvm_halt, (void), ())
QUIET_PVM_CALL(pvm_kill, (int tid), (tid))
QUIET_PVM_CALL(pvm_sendsig, (int tid, int sig), (tid, sig))
QUIET_PVM_CALL(pvm_mstat, (char *host), (host))
QUIET_PVM_CALL(pvm_pstat, (int tid), (tid))
QUIET_PVM_CALL(pvm_addhosts, (char **hosts, int n, int *infos), (hosts, n, infos))
QUIET_PVM_CALL(pvm_delhosts, (char **hosts, int n, int *infos), (hosts, n, infos))
QUIET_PVM_CALL(pvm_start_pvmd, (int argc, char **argv, int block), (argc, argv, block))
QUIET_PVM_CALL(pvm_siblings, (int **tids), (tids))
QUIET_PVM_CALL(pvm_setopt, (int what, int value), (what, value))
QUIET_PVM_CALL(pvm_tidtohost, (int tid), (tid))
QUIET_PVM_CALL(pvm_putinfo, (char *name, int buf, int flags), (name, buf, flags))
QUIET_PVM_CALL(pvm_recvinfo, (char *name, int index, int flags), (name, index, flags))
QUIET_PVM_CALL(pvm_delinfo, (char *name, int index, int flags), (name, index, flags))
QUIET_PVM_CALL(pvm_gsize, (char *group), (group))
QUIET_PVM_CALL(pvm_gettid, (char *group, int instance), (group, instance))
QUIET_PVM_CALL(pvm_getinst, (char *group, int tid), (group, tid))
QUIET_PVM_CALL(pvm_freezegroup, (char *group, int size), (group, size))
