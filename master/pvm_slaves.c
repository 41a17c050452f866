/*
 * pvm_slaves.c - spawning and supervising the slaves, and PVM in the Tcl
 * event loop (see pvm_slaves.h).
 *
 * Spawning: pvm_spawn() of the absolute path of ips2slave with
 * PvmTaskHost ("." for the local host, so several machines played by one
 * host all land there), after pvm_addhosts() for a host not yet in the VM.
 * Variables the slaves must see (the master's IPS2_* settings for the
 * traced processes, IPS2SLAVE_* test hooks) are passed with pvm_export()
 * (PVM passes no environment otherwise).  Each slave's task exit (PvmTaskExit) and its
 * host's deletion (PvmHostDelete) come back as messages with the tags of
 * ips2_proto.h's 900 range.
 *
 * Event loop: the pvmd socket (pvm_getfds) gets a Tcl file handler, so
 * the master never blocks waiting for slaves and a GUI stays live.  The
 * master grants no direct task-to-task route (PvmDontRoute: the critical
 * path's slaves ask for them), so everything comes through that socket:
 * libpvm closes a route's socket when its peer dies, inside whatever call
 * notices, and a closed descriptor left in Tcl's notifier makes its
 * select() fail for ever.  libpvm may read incoming messages into its own
 * queue while it sends, which the socket then no longer shows; so every
 * send also schedules an idle drain.  A drain takes every
 * queued message with pvm_nrecv() and dispatches it by tag to the
 * callbacks: the run's events, and for the critical-path tags the events
 * of the conversation that claimed the slave (cpa_slaves.c).  A callback
 * may free the set: the set is Tcl_Preserve'd around dispatching and
 * freed with Tcl_EventuallyFree.
 *
 * Hosts: PVM notices a host that died or was cut off only after minutes
 * of retries (never, in practice, for a run), so a slave on another host
 * is pinged (PING, PONG) every quarter of IPS2_HOST_TIMEOUT_S (seconds,
 * default 30; 0: never) from a Tcl timer, and one not heard from (any
 * message) for that long is gone: "its host H did not answer for N s".
 */
#include <pvm3.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tcl.h>
#include <time.h>

#include "ips2_proto.h"
#include "names.h"
#include "pvm_slaves.h"

struct slave {
    char *machine, *host;
    int tid;
    int host_tid;
    bool alive, quitting;
    bool remote;                             /* on another host: pinged */
    double heard;                            /* monotonic s of its last message (or its spawn) */
    const struct ips2_slave_cpa_events *cpa; /* the conversation that claimed it, or NULL */
    void *cpa_arg;
};

struct add_failure {
    char *host, *why;
};

struct ips2_slaves {
    struct ips2_vm *vm;
    struct add_failure *failed; /* hosts ips2_slaves_add_hosts() could not add */
    int nfailed;
    char *path;
    struct ips2_slave_events ev;
    void *arg;
    int fd;
    bool closed, drain_pending;
    int32_t next_id;
    int host_timeout_ms; /* IPS2_HOST_TIMEOUT_S, 0: no pings */
    Tcl_TimerToken ping; /* the ping timer, or NULL */
    int32_t ping_seq;
    struct slave *v;
    int n, cap;
};

static void drain(struct ips2_slaves *s);
static void gone(struct ips2_slaves *s, int i, const char *why);
static void want_drain(struct ips2_slaves *s);
static void dispatch_cpa(struct ips2_slaves *s, int i, int tag);
static int by_tid(const struct ips2_slaves *s, int tid);

/* How long ips2_slaves_free() waits for the slaves to go. */
#define QUIT_WAIT_MS 3000
#define BLOB_MAX     ((size_t)1 << 40)

/* libpvm 3.4's own task id, -1 when not connected (exported by
 * libpvm3.so; asking pvm_mytid() would connect). */
extern int pvmmytid;

static double mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static int host_timeout_of_env(void)
{
    const char *v = getenv("IPS2_HOST_TIMEOUT_S");
    char *end = NULL;
    long t = v != NULL ? strtol(v, &end, 10) : 30;
    if (v != NULL && (end == v || *end != '\0' || t < 0 || t > 86400))
        t = 30;
    return (int)t * 1000;
}

/* The ping timer: a remote slave not heard from for the host timeout is
 * gone; the others are pinged.  Rearmed while a remote slave lives. */
static void ping_proc(ClientData cd)
{
    struct ips2_slaves *s = cd;
    s->ping = NULL;
    if (s->closed)
        return;
    Tcl_Preserve(s);
    drain(s); /* what came meanwhile counts (the interpreter may have been busy) */
    double now = mono_s(), limit = s->host_timeout_ms / 1000.0;
    bool any = false;
    for (int i = 0; i < s->n && !s->closed; i++) {
        struct slave *sl = &s->v[i];
        if (!sl->alive || !sl->remote)
            continue;
        if (now - sl->heard > limit) {
            char why[400];
            snprintf(why, sizeof why,
                     "its host %.200s did not answer for %d s (down or unreachable; "
                     "IPS2_HOST_TIMEOUT_S)",
                     sl->host, s->host_timeout_ms / 1000);
            ips2_vm_host_lost(s->vm, sl->host_tid);
            gone(s, i, why);
            continue;
        }
        any = true;
        int32_t seq = ++s->ping_seq;
        if (pvm_initsend(PvmDataDefault) >= 0 && ips2_pk_i32(seq) >= 0)
            pvm_send(sl->tid, IPS2_TAG_PING);
    }
    if (any && !s->closed) {
        want_drain(s);
        s->ping = Tcl_CreateTimerHandler(
            s->host_timeout_ms / 4 > 250 ? s->host_timeout_ms / 4 : 250, ping_proc, s);
    }
    Tcl_Release(s);
}

static void file_proc(ClientData cd, int mask)
{
    (void)mask;
    drain(cd);
}

static void idle_proc(ClientData cd)
{
    struct ips2_slaves *s = cd;
    s->drain_pending = false;
    drain(s);
}

/* After a send: messages may wait in libpvm's queue. */
static void want_drain(struct ips2_slaves *s)
{
    if (!s->drain_pending && !s->closed) {
        s->drain_pending = true;
        Tcl_DoWhenIdle(idle_proc, s);
    }
}

extern char **environ;

/* pvm_export (or unexport) the master's IPS2_* variables but IPS2_SESSION
 * and IPS2_APP (which the slave sets per process), so the traced processes
 * get the user's runtime settings (IPS2_CPUCLOCK, ...) on every host, and
 * IPS2SLAVE_* (the slave's test hooks).  pvm_export sets PVM_EXPORT,
 * which may move environ: the names are collected first. */
static void export_all(int on)
{
    size_t count = 0, k = 0;
    for (char **e = environ; *e != NULL; e++)
        count++;
    char(*names)[128] = malloc((count ? count : 1) * sizeof *names);
    if (names == NULL)
        return;
    for (char **e = environ; *e != NULL; e++) {
        const char *eq = strchr(*e, '=');
        char *name = names[k];
        size_t n = eq ? (size_t)(eq - *e) : 0;
        if (n == 0 || n >= sizeof names[k])
            continue;
        memcpy(name, *e, n);
        name[n] = '\0';
        if (strncmp(name, "IPS2SLAVE_", 10) != 0 &&
            (strncmp(name, "IPS2_", 5) != 0 || strcmp(name, "IPS2_SESSION") == 0 ||
             strcmp(name, "IPS2_APP") == 0))
            continue;
        k++;
    }
    for (size_t i = 0; i < k; i++) {
        if (on)
            pvm_export(names[i]);
        else
            pvm_unexport(names[i]);
    }
    free(names);
}

struct ips2_slaves *ips2_slaves_new(struct ips2_vm *vm, const char *slave_path,
                                    const struct ips2_slave_events *ev, void *arg, char *err,
                                    size_t errsize)
{
    struct ips2_slaves *s = (struct ips2_slaves *)Tcl_Alloc(sizeof *s);
    memset(s, 0, sizeof *s);
    s->vm = vm;
    s->path = strdup(slave_path);
    s->ev = *ev;
    s->arg = arg;
    int *fds = NULL;
    if (s->path == NULL || pvm_getfds(&fds) < 1) {
        snprintf(err, errsize, "no PVM socket to listen on");
        free(s->path);
        Tcl_Free((char *)s);
        return NULL;
    }
    s->fd = fds[0];
    s->host_timeout_ms = host_timeout_of_env();
    pvm_setopt(PvmRoute, PvmDontRoute); /* see the top */
    Tcl_CreateFileHandler(s->fd, TCL_READABLE, file_proc, s);
    export_all(1);
    return s;
}

static void free_proc(char *cd)
{
    struct ips2_slaves *s = (struct ips2_slaves *)cd;
    for (int i = 0; i < s->n; i++) {
        free(s->v[i].machine);
        free(s->v[i].host);
    }
    free(s->v);
    for (int i = 0; i < s->nfailed; i++) {
        free(s->failed[i].host);
        free(s->failed[i].why);
    }
    free(s->failed);
    free(s->path);
    Tcl_Free((char *)s);
}

void ips2_slaves_quit_all(struct ips2_slaves *s)
{
    for (int i = 0; i < s->n; i++)
        if (s->v[i].alive && !s->v[i].quitting)
            ips2_slaves_quit(s, i);
}

int ips2_slaves_live(const struct ips2_slaves *s)
{
    int n = 0;
    for (int i = 0; i < s->n; i++)
        n += s->v[i].alive;
    return n;
}

/* Waits (blocking, at most timeout_ms) for the exit notifications of the
 * slaves told to quit; other messages stay queued. */
static void wait_quit(struct ips2_slaves *s, int timeout_ms)
{
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (ips2_slaves_live(s) > 0) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long left =
            timeout_ms - ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000);
        if (left <= 0)
            break;
        struct timeval tv = {left / 1000, (left % 1000) * 1000};
        int buf = pvm_trecv(-1, IPS2_TAG_TASK_EXIT, &tv);
        if (buf <= 0)
            break;
        int32_t tid = 0;
        int i;
        if (ips2_upk_i32(&tid) >= 0 && (i = by_tid(s, tid)) >= 0)
            s->v[i].alive = false;
    }
}

void ips2_slaves_free(struct ips2_slaves *s)
{
    if (s == NULL || s->closed)
        return;
    Tcl_Preserve(s);
    for (int i = 0; i < s->n; i++) /* a conversation in flight ends */
        if (s->v[i].cpa != NULL && s->v[i].alive && s->v[i].cpa->gone != NULL)
            s->v[i].cpa->gone(s->v[i].cpa_arg, i, "its slave set was closed");
    ips2_slaves_quit_all(s);
    wait_quit(s, QUIT_WAIT_MS);
    s->closed = true;
    if (s->ping != NULL)
        Tcl_DeleteTimerHandler(s->ping);
    s->ping = NULL;
    export_all(0);
    Tcl_DeleteFileHandler(s->fd);
    Tcl_Release(s);
    if (s->drain_pending)
        Tcl_CancelIdleCall(idle_proc, s);
    Tcl_EventuallyFree(s, free_proc);
}

int ips2_slaves_alive(const struct ips2_slaves *s, int slave)
{
    return slave >= 0 && slave < s->n && s->v[slave].alive;
}

/* Whether host's pvmd is in the VM: 1, 0, or -1 with err (a host found
 * unreachable: a spawn there would wait for it). */
static int host_in_vm(const struct ips2_vm *vm, const char *host, char *err, size_t errsize)
{
    struct pvmhostinfo *hi = NULL;
    int nhost = 0, narch = 0;
    if (pvm_config(&nhost, &narch, &hi) < 0)
        return 0;
    for (int i = 0; i < nhost; i++) {
        if (hi[i].hi_name == NULL || strcmp(hi[i].hi_name, host) != 0)
            continue;
        for (int k = 0; k < vm->nlost; k++)
            if (vm->lost[k] == hi[i].hi_tid) {
                snprintf(err, errsize, "host %s is unreachable (a slave there stopped answering)",
                         host);
                return -1;
            }
        return 1;
    }
    return 0;
}

/* The message of an add that failed with code. */
static void add_failed(const char *host, int code, char *err, size_t errsize)
{
    snprintf(err, errsize, "cannot add host %s to the virtual machine: %s (%d)%s", host,
             ips2_vm_strerror(code), code,
             code == PvmIPLoopback  ? "; this host's name resolves to a loopback address, which "
                                      "other hosts cannot reach: map it to this host's network "
                                      "address (/etc/hosts), or run with -pvm join in a virtual "
                                      "machine started with the hosts"
             : code == PvmCantStart ? "; no pvmd started there over PVM_RSH (rsh, or ssh): the "
                                      "host is down, unreachable or refused the login"
                                    : "");
}

/* A host ips2_slaves_add_hosts() could not add, and why. */
static const char *add_error(const struct ips2_slaves *s, const char *host)
{
    for (int i = 0; i < s->nfailed; i++)
        if (strcmp(s->failed[i].host, host) == 0)
            return s->failed[i].why;
    return NULL;
}

int ips2_slaves_add_hosts(struct ips2_slaves *s, const char *const *hosts, int n)
{
    char **lines = calloc(n > 0 ? (size_t)n : 1, sizeof *lines);
    const char **names = calloc(n > 0 ? (size_t)n : 1, sizeof *names);
    int *info = calloc(n > 0 ? (size_t)n : 1, sizeof *info), m = 0, added = 0;
    char err[512], line[4096];
    for (int i = 0; lines != NULL && names != NULL && info != NULL && i < n; i++) {
        bool seen = false;
        for (int k = 0; k < m && !seen; k++)
            seen = strcmp(names[k], hosts[i]) == 0;
        if (seen || ips2_vm_is_local(s->vm, hosts[i]) || add_error(s, hosts[i]) != NULL ||
            host_in_vm(s->vm, hosts[i], err, sizeof err) != 0)
            continue;
        ips2_vm_host_line(s->vm, hosts[i], line, sizeof line);
        if ((lines[m] = strdup(line)) != NULL)
            names[m++] = hosts[i];
    }
    /* one call: PVM starts the pvmds of all of them at once */
    int rc = m > 0 ? pvm_addhosts(lines, m, info) : 0;
    for (int k = 0; k < m; k++) {
        int code = rc < 0 ? rc : info[k];
        if (code >= 0) {
            added++;
            continue;
        }
        struct add_failure *v = realloc(s->failed, (size_t)(s->nfailed + 1) * sizeof *v);
        if (v == NULL)
            continue;
        s->failed = v;
        add_failed(names[k], code, err, sizeof err);
        v[s->nfailed].host = strdup(names[k]);
        v[s->nfailed].why = strdup(err);
        if (v[s->nfailed].host != NULL && v[s->nfailed].why != NULL)
            s->nfailed++;
    }
    for (int k = 0; lines != NULL && k < m; k++)
        free(lines[k]);
    free(lines);
    free(names);
    free(info);
    return added;
}

/* Adds host to the VM if no pvmd of that name is in it (with the
 * hostfile options of ips2_vm_host_line()).  0, or -1 with err (also
 * for a host found unreachable, or that ips2_slaves_add_hosts() could
 * not add: it is not tried again). */
static int ensure_host(struct ips2_slaves *s, const char *host, char *err, size_t errsize)
{
    const char *why = add_error(s, host);
    if (why != NULL) {
        snprintf(err, errsize, "%s", why);
        return -1;
    }
    int in = host_in_vm(s->vm, host, err, errsize);
    if (in != 0)
        return in > 0 ? 0 : -1;
    char line[4096];
    ips2_vm_host_line(s->vm, host, line, sizeof line);
    char *hosts[] = {line, NULL};
    int info = 0;
    int rc = pvm_addhosts(hosts, 1, &info);
    if (rc < 1) {
        add_failed(host, rc < 0 ? rc : info, err, errsize);
        return -1;
    }
    return 0;
}

int ips2_slaves_spawn(struct ips2_slaves *s, const char *machine, const char *host, char *err,
                      size_t errsize)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 8;
        struct slave *v = realloc(s->v, (size_t)cap * sizeof *v);
        if (v == NULL) {
            snprintf(err, errsize, "out of memory");
            return -1;
        }
        s->v = v;
        s->cap = cap;
    }
    /* the slave makes its file names from the machine's (names.h) */
    if (!ips2_is_name(machine)) {
        snprintf(err, errsize, "machine \"%.80s\" is not a name: no slave started for it", machine);
        return -1;
    }
    bool local = ips2_vm_is_local(s->vm, host);
    if (!local && ensure_host(s, host, err, errsize) != 0)
        return -1;
    char *argv[] = {"-m", (char *)machine, NULL};
    int tid = 0;
    int n = pvm_spawn(s->path, argv, PvmTaskHost, local ? "." : (char *)host, 1, &tid);
    if (n < 1) {
        int code = n < 0 ? n : tid;
        snprintf(err, errsize, "cannot start %s on %s: %s (%d)", s->path, host,
                 ips2_vm_strerror(code), code);
        return -1;
    }
    struct slave *sl = &s->v[s->n];
    memset(sl, 0, sizeof *sl);
    sl->machine = strdup(machine);
    sl->host = strdup(host);
    sl->tid = tid;
    sl->host_tid = pvm_tidtohost(tid);
    sl->alive = true;
    sl->remote = !local;
    sl->heard = mono_s();
    if (sl->remote && s->host_timeout_ms > 0 && s->ping == NULL)
        s->ping = Tcl_CreateTimerHandler(
            s->host_timeout_ms / 4 > 250 ? s->host_timeout_ms / 4 : 250, ping_proc, s);
    pvm_notify(PvmTaskExit, IPS2_TAG_TASK_EXIT, 1, &tid);
    pvm_notify(PvmHostDelete, IPS2_TAG_HOST_DELETE, 1, &sl->host_tid);
    want_drain(s);
    return s->n++;
}

static int by_tid(const struct ips2_slaves *s, int tid)
{
    for (int i = 0; i < s->n; i++)
        if (s->v[i].tid == tid)
            return i;
    return -1;
}

/* A slave's task ended or its host went away. */
static void gone(struct ips2_slaves *s, int i, const char *why)
{
    if (!s->v[i].alive)
        return;
    s->v[i].alive = false;
    if (s->v[i].cpa != NULL && s->v[i].cpa->gone != NULL)
        s->v[i].cpa->gone(s->v[i].cpa_arg, i, why);
    if (!s->v[i].quitting && s->ev.died != NULL)
        s->ev.died(s->arg, i, why);
    if (!s->closed && s->ev.ended != NULL)
        s->ev.ended(s->arg, i);
}

static int64_t real_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A slave's CLOCK_PING (the active receive buffer): answered at once with
 * this clock's readings when it came and when it goes (docs/CLOCKS.md).
 * The master's clock is the session's: no test knob here. */
static void clock_pong(struct ips2_slaves *s)
{
    int64_t t1 = real_ns();
    int32_t seq = 0;
    int src = 0, tag = 0, bytes = 0;
    pvm_bufinfo(pvm_getrbuf(), &bytes, &tag, &src);
    if (ips2_upk_i32(&seq) < 0 || pvm_initsend(PvmDataDefault) < 0 || ips2_pk_i32(seq) < 0 ||
        ips2_pk_i64(t1) < 0)
        return;
    if (ips2_pk_i64(real_ns()) >= 0)
        pvm_send(src, IPS2_TAG_CLOCK_PONG);
    want_drain(s);
}

/* Unpacks and dispatches one message; the active receive buffer is it. */
static void dispatch(struct ips2_slaves *s, int tag, int src)
{
    if (tag == IPS2_TAG_TASK_EXIT) {
        int32_t tid = 0;
        if (ips2_upk_i32(&tid) >= 0 && (src = by_tid(s, tid)) >= 0)
            gone(s, src, "its task ended");
        return;
    }
    if (tag == IPS2_TAG_HOST_DELETE) {
        int32_t htid = 0;
        if (ips2_upk_i32(&htid) < 0)
            return;
        for (int i = 0; i < s->n && !s->closed; i++)
            if (s->v[i].host_tid == htid)
                gone(s, i, "its host left the virtual machine");
        return;
    }
    int i = by_tid(s, src);
    if (i < 0)
        return;
    s->v[i].heard = mono_s();
    if (tag == IPS2_TAG_PONG)
        return;
    if (tag >= IPS2_TAG_CPA_FIRST && tag <= IPS2_TAG_CPA_LAST) {
        if (s->v[i].cpa != NULL)
            dispatch_cpa(s, i, tag);
        return;
    }
    char *a = NULL, *b = NULL;
    int32_t x = 0, y = 0, z = 0, w = 0;
    int64_t l1 = 0, l2 = 0, l3 = 0;
    uint32_t u = 0;
    int rc = 0;
    switch (tag) {
    case IPS2_TAG_CLOCK_PING:
        clock_pong(s);
        break;
    case IPS2_TAG_CLOCK:
        if ((rc = ips2_upk_i64(&l1)) >= 0 && (rc = ips2_upk_i64(&l2)) >= 0 &&
            (rc = ips2_upk_i64(&l3)) >= 0 && (rc = ips2_upk_u32(&u)) >= 0 && s->ev.clock != NULL)
            s->ev.clock(s->arg, i, l1, l2, l3, u);
        break;
    case IPS2_TAG_HELLO:
        if ((rc = ips2_upk_u32(&u)) >= 0 && u != IPS2_PROTO_VERSION) {
            char text[128];
            snprintf(text, sizeof text, "its slave speaks protocol %u, this master %d", u,
                     IPS2_PROTO_VERSION);
            if (s->ev.problem != NULL)
                s->ev.problem(s->arg, i, text);
            break;
        }
        if (rc >= 0 && (rc = ips2_upk_str(&a)) >= 0 && (rc = ips2_upk_str(&b)) >= 0 &&
            (rc = ips2_upk_i32(&x)) >= 0 && (rc = ips2_upk_i64(&l1)) >= 0 && s->ev.hello != NULL)
            s->ev.hello(s->arg, i, b, x, l1);
        break;
    case IPS2_TAG_STARTED:
        if ((rc = ips2_upk_str(&a)) >= 0 && (rc = ips2_upk_i32(&x)) >= 0 &&
            (rc = ips2_upk_i32(&y)) >= 0 && s->ev.started != NULL)
            s->ev.started(s->arg, i, a, x, y);
        break;
    case IPS2_TAG_EXITED:
        if ((rc = ips2_upk_str(&a)) >= 0 && (rc = ips2_upk_i32(&x)) >= 0 &&
            (rc = ips2_upk_i32(&y)) >= 0 && (rc = ips2_upk_i32(&z)) >= 0 &&
            (rc = ips2_upk_i32(&w)) >= 0 && (rc = ips2_upk_str(&b)) >= 0 && s->ev.exited != NULL)
            s->ev.exited(s->arg, i, a, x, y, z, w, b);
        break;
    case IPS2_TAG_NOTE:
        if ((rc = ips2_upk_str(&a)) >= 0 && s->ev.note != NULL)
            s->ev.note(s->arg, i, a);
        break;
    case IPS2_TAG_READY:
        if ((rc = ips2_upk_str(&a)) >= 0 && (rc = ips2_upk_i32(&x)) >= 0 &&
            (rc = ips2_upk_i32(&y)) >= 0 && (rc = ips2_upk_str(&b)) >= 0 && s->ev.ready != NULL)
            s->ev.ready(s->arg, i, a, x, y, b);
        break;
    case IPS2_TAG_PROGRESS:
        if ((rc = ips2_upk_str(&a)) >= 0 && (rc = ips2_upk_i64(&l1)) >= 0 &&
            (rc = ips2_upk_i64(&l2)) >= 0 && s->ev.progress != NULL)
            s->ev.progress(s->arg, i, a, l1, l2);
        break;
    case IPS2_TAG_PART:
        if ((rc = ips2_upk_str(&a)) >= 0 && s->ev.part != NULL)
            s->ev.part(s->arg, i, a);
        break;
    case IPS2_TAG_PROBLEM:
        if ((rc = ips2_upk_str(&a)) >= 0 && s->ev.problem != NULL)
            s->ev.problem(s->arg, i, a);
        break;
    case IPS2_TAG_REDUCTIONS: {
        void *data = NULL;
        size_t size = 0;
        if ((rc = ips2_upk_i32(&x)) >= 0 &&
            (rc = ips2_upk_blob(&data, &size, (size_t)1 << 40)) >= 0) {
            if (s->ev.reductions != NULL)
                s->ev.reductions(s->arg, i, x, data, size);
            else
                free(data);
        }
        break;
    }
    case IPS2_TAG_DONE:
        if ((rc = ips2_upk_i32(&x)) >= 0 && (rc = ips2_upk_i32(&y)) >= 0 && s->ev.done != NULL)
            s->ev.done(s->arg, i, x, y);
        break;
    case IPS2_TAG_PACKED:
        if ((rc = ips2_upk_i32(&x)) >= 0 && (rc = ips2_upk_i32(&y)) >= 0 &&
            (rc = ips2_upk_i64(&l1)) >= 0 && s->ev.packed != NULL)
            s->ev.packed(s->arg, i, x, y, l1);
        break;
    case IPS2_TAG_QUERY_FAILED:
        if ((rc = ips2_upk_i32(&x)) >= 0 && (rc = ips2_upk_str(&a)) >= 0 &&
            s->ev.query_failed != NULL)
            s->ev.query_failed(s->arg, i, x, a);
        break;
    default:
        break;
    }
    if (rc < 0 && s->ev.problem != NULL && !s->closed) {
        char text[128];
        snprintf(text, sizeof text, "bad message (tag %d) from its slave: %s", tag,
                 ips2_vm_strerror(rc));
        s->ev.problem(s->arg, i, text);
    }
    free(a);
    free(b);
}

/* --- the critical-path conversation's replies ------------------------------ */

static int unpack_loaded(struct ips2_slaves *s, int i)
{
    int32_t id = 0, ok = 0;
    uint32_t part = 0, nw = 0;
    char *why = NULL, **warnings = NULL;
    void *ends = NULL, *meta = NULL;
    size_t nends = 0, nmeta = 0, got = 0;
    int rc = ips2_upk_i32(&id);
    if (rc >= 0)
        rc = ips2_upk_u32(&part);
    if (rc >= 0)
        rc = ips2_upk_i32(&ok);
    if (rc >= 0)
        rc = ips2_upk_str(&why);
    if (rc >= 0)
        rc = ips2_upk_blob(&ends, &nends, BLOB_MAX);
    if (rc >= 0)
        rc = ips2_upk_blob(&meta, &nmeta, BLOB_MAX);
    if (rc >= 0)
        rc = ips2_upk_u32(&nw);
    if (rc >= 0 && nw > IPS2_CPA_WARN_MAX)
        rc = PvmBadMsg;
    if (rc >= 0 && nw > 0 && (warnings = calloc(nw, sizeof *warnings)) == NULL)
        rc = PvmNoMem;
    while (rc >= 0 && got < nw && (rc = ips2_upk_str(&warnings[got])) >= 0)
        got++;
    if (rc >= 0)
        s->v[i].cpa->loaded(s->v[i].cpa_arg, i, id, part,
                            ok    ? NULL
                            : why ? why
                                  : "",
                            ends, nends, meta, nmeta, warnings, got);
    else {
        free(ends);
        free(meta);
    }
    for (size_t w = 0; w < got; w++)
        free(warnings[w]);
    free(warnings);
    free(why);
    return rc;
}

static int unpack_ready(struct ips2_slaves *s, int i)
{
    int32_t id = 0, ok = 0;
    uint32_t part = 0;
    char *why = NULL;
    int rc = ips2_upk_i32(&id);
    if (rc >= 0)
        rc = ips2_upk_u32(&part);
    if (rc >= 0)
        rc = ips2_upk_i32(&ok);
    if (rc >= 0)
        rc = ips2_upk_str(&why);
    if (rc >= 0)
        s->v[i].cpa->ready(s->v[i].cpa_arg, i, id, part, ok ? NULL : why ? why : "");
    free(why);
    return rc;
}

static int unpack_status(struct ips2_slaves *s, int i)
{
    struct ips2_slave_cpa_status st;
    char *text = NULL;
    memset(&st, 0, sizeof st);
    int rc = ips2_upk_i32(&st.query);
    if (rc >= 0)
        rc = ips2_upk_u32(&st.state);
    if (rc >= 0)
        rc = ips2_upk_i64(&st.sent);
    if (rc >= 0)
        rc = ips2_upk_i64(&st.received);
    if (rc >= 0)
        rc = ips2_upk_u32(&st.found);
    if (rc >= 0)
        rc = ips2_upk_i64(&st.gid);
    if (rc >= 0)
        rc = ips2_upk_i64(&st.length);
    if (rc >= 0)
        rc = ips2_upk_str(&text);
    if (rc >= 0)
        rc = ips2_upk_u32(&st.probe);
    if (rc >= 0)
        rc = ips2_upk_u32(&st.part);
    st.text = text ? text : "";
    if (rc >= 0)
        s->v[i].cpa->status(s->v[i].cpa_arg, i, &st);
    free(text);
    return rc;
}

static int unpack_segments(struct ips2_slaves *s, int i)
{
    int32_t q = 0;
    uint32_t seq = 0, done = 0;
    void *data = NULL;
    size_t size = 0;
    char *why = NULL;
    int rc = ips2_upk_i32(&q);
    if (rc >= 0)
        rc = ips2_upk_u32(&seq);
    if (rc >= 0)
        rc = ips2_upk_u32(&done);
    if (rc >= 0)
        rc = ips2_upk_blob(&data, &size, BLOB_MAX);
    if (rc >= 0)
        rc = ips2_upk_str(&why);
    if (rc >= 0)
        s->v[i].cpa->segments(s->v[i].cpa_arg, i, q, seq, (int)done, data, size,
                              why && why[0] ? why : NULL);
    else
        free(data);
    free(why);
    return rc;
}

/* A message of the critical path from slave i, which a conversation
 * claimed: unpacked whole, then handed over. */
static void dispatch_cpa(struct ips2_slaves *s, int i, int tag)
{
    int rc = 0;
    switch (tag) {
    case IPS2_TAG_CPA_LOADED:
        rc = unpack_loaded(s, i);
        break;
    case IPS2_TAG_CPA_READY:
        rc = unpack_ready(s, i);
        break;
    case IPS2_TAG_CPA_STATUS:
        rc = unpack_status(s, i);
        break;
    case IPS2_TAG_CPA_SEGMENTS:
        rc = unpack_segments(s, i);
        break;
    default:
        break;
    }
    if (rc < 0 && s->v[i].cpa != NULL && s->v[i].cpa->bad != NULL)
        s->v[i].cpa->bad(s->v[i].cpa_arg, i, tag);
}

static void drain(struct ips2_slaves *s)
{
    Tcl_Preserve(s);
    int buf = 0;
    while (!s->closed && (buf = pvm_nrecv(-1, -1)) > 0) {
        int len = 0, tag = 0, src = 0;
        pvm_bufinfo(buf, &len, &tag, &src);
        dispatch(s, tag, src);
    }
    if (buf < 0 && buf != PvmNoBuf && !s->closed) {
        /* the pvmd is gone: so is every slave, and the socket would stay
         * readable for ever */
        Tcl_DeleteFileHandler(s->fd);
        for (int i = 0; i < s->n && !s->closed; i++)
            gone(s, i, "the pvmd went away");
    }
    Tcl_Release(s);
}

/* --- sending ------------------------------------------------------------- */

static int send_to(struct ips2_slaves *s, int slave, int tag)
{
    if (slave < 0 || slave >= s->n || !s->v[slave].alive)
        return PvmNoTask;
    int rc = pvm_send(s->v[slave].tid, tag);
    want_drain(s);
    return rc;
}

int ips2_slaves_config(struct ips2_slaves *s, int slave, const char *session_dir,
                       const char *machine, const char *host, int64_t session_start,
                       int64_t interval_ns, int64_t grace_ms, uint32_t flags)
{
    IPS2_TRY(pvm_initsend(PvmDataDefault));
    IPS2_TRY(ips2_pk_u32(IPS2_PROTO_VERSION));
    IPS2_TRY(ips2_pk_str(session_dir));
    IPS2_TRY(ips2_pk_str(machine));
    IPS2_TRY(ips2_pk_str(host));
    IPS2_TRY(ips2_pk_i64(session_start));
    IPS2_TRY(ips2_pk_i64(interval_ns));
    IPS2_TRY(ips2_pk_i64(grace_ms));
    IPS2_TRY(ips2_pk_u32(flags));
    return send_to(s, slave, IPS2_TAG_CONFIG);
}

int ips2_slaves_process(struct ips2_slaves *s, int slave, const char *app, int index,
                        const char *cwd, int64_t timeout_ms, int argc, const char *const *argv,
                        int nenv, const char *const *env_names, const char *const *env_values,
                        const struct ips2_start_order *order)
{
    IPS2_TRY(pvm_initsend(PvmDataDefault));
    IPS2_TRY(ips2_pk_str(app));
    IPS2_TRY(ips2_pk_i32(index));
    IPS2_TRY(ips2_pk_str(cwd));
    IPS2_TRY(ips2_pk_i64(timeout_ms));
    IPS2_TRY(ips2_pk_strv(argv, (size_t)argc));
    IPS2_TRY(ips2_pk_u32((uint32_t)nenv));
    for (int i = 0; i < nenv; i++) {
        IPS2_TRY(ips2_pk_str(env_names[i]));
        IPS2_TRY(ips2_pk_str(env_values[i]));
    }
    IPS2_TRY(ips2_pk_u32(order != NULL && order->hold));
    IPS2_TRY(ips2_pk_str(order != NULL ? order->ready : ""));
    IPS2_TRY(ips2_pk_str(order != NULL ? order->ready_arg : ""));
    IPS2_TRY(ips2_pk_i64(order != NULL ? order->ready_timeout_ms : 0));
    IPS2_TRY(ips2_pk_u32(order != NULL ? (uint32_t)order->spawn_size : 0));
    IPS2_TRY(ips2_pk_u32(order != NULL ? (uint32_t)order->spawn_rank : 0));
    return send_to(s, slave, IPS2_TAG_PROCESS);
}

int ips2_slaves_release(struct ips2_slaves *s, int slave, const char *app, int index,
                        const char *why)
{
    IPS2_TRY(pvm_initsend(PvmDataDefault));
    IPS2_TRY(ips2_pk_str(app));
    IPS2_TRY(ips2_pk_i32(index));
    IPS2_TRY(ips2_pk_str(why));
    return send_to(s, slave, IPS2_TAG_RELEASE);
}

int ips2_slaves_stop(struct ips2_slaves *s, int slave, const char *app, int index, int sig,
                     int64_t grace_ms)
{
    IPS2_TRY(pvm_initsend(PvmDataDefault));
    IPS2_TRY(ips2_pk_str(app));
    IPS2_TRY(ips2_pk_i32(index));
    IPS2_TRY(ips2_pk_i32(sig));
    IPS2_TRY(ips2_pk_i64(grace_ms));
    return send_to(s, slave, IPS2_TAG_STOP);
}

int ips2_slaves_replay(struct ips2_slaves *s, int slave, const char *session, const char *trace_dir,
                       const char *prefix, int napps, const char *const *apps, int nexpected,
                       const char *const *expected_apps, const int *expected_pids)
{
    IPS2_TRY(pvm_initsend(PvmDataDefault));
    IPS2_TRY(ips2_pk_str(session));
    IPS2_TRY(ips2_pk_str(trace_dir));
    IPS2_TRY(ips2_pk_str(prefix));
    IPS2_TRY(ips2_pk_strv(apps, (size_t)napps));
    IPS2_TRY(ips2_pk_u32((uint32_t)nexpected));
    for (int i = 0; i < nexpected; i++) {
        IPS2_TRY(ips2_pk_str(expected_apps[i]));
        IPS2_TRY(ips2_pk_i32(expected_pids[i]));
    }
    return send_to(s, slave, IPS2_TAG_REPLAY);
}

int ips2_slaves_collector(struct ips2_slaves *s, int slave, const char *kind, int64_t interval_ms)
{
    IPS2_TRY(pvm_initsend(PvmDataDefault));
    IPS2_TRY(ips2_pk_str(kind));
    IPS2_TRY(ips2_pk_i64(interval_ms));
    return send_to(s, slave, IPS2_TAG_COLLECTOR);
}

int ips2_slaves_go(struct ips2_slaves *s, int slave)
{
    IPS2_TRY(pvm_initsend(PvmDataDefault));
    return send_to(s, slave, IPS2_TAG_GO);
}

int ips2_slaves_reduce(struct ips2_slaves *s, int slave, int query, const char *trace_dir,
                       int64_t session_start, int64_t start, int64_t end, int64_t interval_ns)
{
    IPS2_TRY(pvm_initsend(PvmDataDefault));
    IPS2_TRY(ips2_pk_i32(query));
    IPS2_TRY(ips2_pk_str(trace_dir));
    IPS2_TRY(ips2_pk_i64(session_start));
    IPS2_TRY(ips2_pk_i64(start));
    IPS2_TRY(ips2_pk_i64(end));
    IPS2_TRY(ips2_pk_i64(interval_ns));
    return send_to(s, slave, IPS2_TAG_REDUCE);
}

int ips2_slaves_quit(struct ips2_slaves *s, int slave)
{
    if (slave < 0 || slave >= s->n)
        return PvmNoTask;
    s->v[slave].quitting = true;
    IPS2_TRY(pvm_initsend(PvmDataDefault));
    return send_to(s, slave, IPS2_TAG_QUIT);
}

/* --- the critical-path conversation ---------------------------------------- */

bool ips2_slaves_connected(void)
{
    return pvmmytid > 0;
}

bool ips2_slaves_closed(const struct ips2_slaves *s)
{
    return s->closed;
}

int ips2_slaves_find(const struct ips2_slaves *s, const char *machine)
{
    for (int i = 0; i < s->n; i++)
        if (s->v[i].alive && strcmp(s->v[i].machine, machine) == 0)
            return i;
    return -1;
}

const char *ips2_slaves_machine(const struct ips2_slaves *s, int slave)
{
    return slave >= 0 && slave < s->n ? s->v[slave].machine : "?";
}

void ips2_slaves_kill(struct ips2_slaves *s, int slave)
{
    if (slave >= 0 && slave < s->n && s->v[slave].alive)
        pvm_sendsig(s->v[slave].tid, SIGKILL);
}

int32_t ips2_slaves_next_id(struct ips2_slaves *s)
{
    return ++s->next_id;
}

int ips2_slaves_claim(struct ips2_slaves *s, int slave, const struct ips2_slave_cpa_events *ev,
                      void *arg)
{
    if (slave < 0 || slave >= s->n || s->v[slave].cpa != NULL)
        return -1;
    s->v[slave].cpa = ev;
    s->v[slave].cpa_arg = arg;
    return 0;
}

void ips2_slaves_unclaim(struct ips2_slaves *s, int slave)
{
    if (slave >= 0 && slave < s->n) {
        s->v[slave].cpa = NULL;
        s->v[slave].cpa_arg = NULL;
    }
}

bool ips2_slaves_claimed(const struct ips2_slaves *s, int slave)
{
    return slave >= 0 && slave < s->n && s->v[slave].cpa != NULL;
}

int ips2_slaves_cpa_load(struct ips2_slaves *s, int slave, int32_t id, const char *file,
                         uint32_t part, uint32_t nparts)
{
    IPS2_TRY(pvm_initsend(PvmDataDefault));
    IPS2_TRY(ips2_pk_i32(id));
    IPS2_TRY(ips2_pk_str(file));
    IPS2_TRY(ips2_pk_u32(part));
    IPS2_TRY(ips2_pk_u32(nparts));
    return send_to(s, slave, IPS2_TAG_CPA_LOAD);
}

int ips2_slaves_cpa_cross(struct ips2_slaves *s, int slave, int32_t id, uint32_t part,
                          const void *arcs, size_t size, uint32_t nparts, const int *holders)
{
    IPS2_TRY(pvm_initsend(PvmDataDefault));
    IPS2_TRY(ips2_pk_i32(id));
    IPS2_TRY(ips2_pk_u32(part));
    IPS2_TRY(ips2_pk_blob(arcs, size));
    IPS2_TRY(ips2_pk_u32(nparts));
    for (uint32_t p = 0; p < nparts; p++) {
        int h = holders[p];
        IPS2_TRY(ips2_pk_i32(h >= 0 && h < s->n ? s->v[h].tid : 0));
    }
    return send_to(s, slave, IPS2_TAG_CPA_CROSS);
}

int ips2_slaves_cpa_query(struct ips2_slaves *s, int slave, int32_t query, uint32_t mode,
                          const char *zero_procedure, int32_t zero_process, uint32_t zero_part,
                          int32_t zero_pid, uint32_t count, const uint32_t *parts,
                          const char *const *apps, const char *const *zero_apps)
{
    IPS2_TRY(pvm_initsend(PvmDataDefault));
    IPS2_TRY(ips2_pk_i32(query));
    IPS2_TRY(ips2_pk_u32(mode));
    IPS2_TRY(ips2_pk_str(zero_procedure));
    IPS2_TRY(ips2_pk_i32(zero_process));
    IPS2_TRY(ips2_pk_u32(zero_part));
    IPS2_TRY(ips2_pk_i32(zero_pid));
    IPS2_TRY(ips2_pk_u32(count));
    for (uint32_t k = 0; k < count; k++) {
        IPS2_TRY(ips2_pk_u32(parts[k]));
        IPS2_TRY(ips2_pk_str(apps[k]));
        IPS2_TRY(ips2_pk_str(zero_apps[k]));
    }
    return send_to(s, slave, IPS2_TAG_CPA_QUERY);
}

int ips2_slaves_cpa_probe(struct ips2_slaves *s, int slave, int32_t query, uint32_t round)
{
    IPS2_TRY(pvm_initsend(PvmDataDefault));
    IPS2_TRY(ips2_pk_i32(query));
    IPS2_TRY(ips2_pk_u32(round));
    return send_to(s, slave, IPS2_TAG_CPA_PROBE);
}

int ips2_slaves_cpa_end(struct ips2_slaves *s, int slave, int32_t query)
{
    IPS2_TRY(pvm_initsend(PvmDataDefault));
    IPS2_TRY(ips2_pk_i32(query));
    return send_to(s, slave, IPS2_TAG_CPA_END);
}

int ips2_slaves_cpa_walk(struct ips2_slaves *s, int slave, int32_t query, uint32_t seq,
                         const void *walk, size_t size)
{
    IPS2_TRY(pvm_initsend(PvmDataDefault));
    IPS2_TRY(ips2_pk_i32(query));
    IPS2_TRY(ips2_pk_u32(seq));
    IPS2_TRY(ips2_pk_blob(walk, size));
    return send_to(s, slave, IPS2_TAG_CPA_WALK);
}
