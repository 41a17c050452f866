/*
 * slave_main.c - ips2slave, the slave analyst: one PVM task per machine,
 * spawned by the master (master/pvm_slaves.c) as
 *
 *   ips2slave -m MACHINE
 *
 * It takes its work from the master (ips2_proto.h): CONFIG, then the
 * processes to run and the old trace directories to replay, then GO.  It
 * starts the processes (slave_run.c), reports each start and end, waits
 * for all of them and for the descendants they leave running (a daemon),
 * stops what still writes a trace of the run then (a PVM task left in the
 * virtual machine: pvm_kill, slave_end.c) and names it, reduces the
 * traces of the machine (slave_analysis.c),
 * sends the reductions and DONE, packs the raw streams beside in a child
 * process (slave_pack.c: ips2_pack_dir(), its progress relayed, PACKED at
 * its end) and stays to answer phase queries (REDUCE) and critical-path
 * requests (tags 300-399, slave_cpa.c: its machine's PAG parts) meanwhile
 * and after, until QUIT (told while it packs, it ends once the packing
 * has), or until its master goes away (then, if the VM is the master's
 * own, it halts it: a master killed with kill -9 leaves no pvmd behind).
 *
 * One single-threaded loop: poll() on the PVM socket and the runner's
 * SIGCHLD descriptor, with the runner's next timeout as the poll timeout.
 * PVM may have read messages into its own buffers during a send, so the
 * loop drains pvm_nrecv() before every poll.  The slave writes its own
 * diagnostics to SESSION/output/MACHINE/ips2slave.log once it knows the
 * session (before that, stderr goes to the pvmd's log).
 *
 * Test hook (no sleeps in tests): if IPS2SLAVE_HOLD names a directory that
 * holds MACHINE.hold, the slave, about to reduce its run, writes its pid to
 * MACHINE.pid there, reports "reducing", and waits (inotify) until
 * MACHINE.go appears.  The tests kill it there.  MACHINE.packhold holds
 * the packer likewise after its first stream (slave_pack.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pvm3.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ips2_pack.h"
#include "ips2_proto.h"
#include "ips2_reader.h" /* IPS2_ERR_MAX */
#include "ips2_reductions.h"
#include "slave_analysis.h"
#include "slave_clock.h"
#include "slave_cpa.h"
#include "slave_end.h"
#include "slave_proto.h"
#include "slave_exe.h"
#include "slave_pack.h"
#include "slave_ready.h"
#include "slave_run.h"

struct slave {
    int master;
    int pvmfd;
    bool configured, go, reduced, quit, orphan;
    struct slave_config cfg;
    char host[256];
    char *trace_dir, *output_dir;
    struct slave_runner *runner;
    struct slave_ready *ready; /* readiness checks (-ready), made at the first */
    int held;                  /* held processes not RELEASEd yet */
    int spawned;               /* PVM tasks spawned (-spawn) still running */
    struct slave_process *procs;
    size_t nprocs, cap_procs;
    struct slave_replay *replays;
    size_t nreplays, cap_replays;
    int ended;
    int64_t last_progress; /* mono ns of the last PROGRESS sent while reducing */
    int stage;
    struct slave_cpa *cpa;       /* the critical path's part and worker (tags 300-399) */
    struct slave_packer *packer; /* packing the run's streams, after DONE */
    bool quit_packed;            /* QUIT came while packing: quit after it */
};

static int64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void problem(void *arg, const char *text)
{
    struct slave *s = arg;
    fprintf(stderr, "ips2slave %s: %s\n", s->cfg.machine ? s->cfg.machine : "?", text);
    slave_send_problem(s->master, text);
}

static void progress(struct slave *s, int stage, int64_t done, int64_t total)
{
    s->stage = stage;
    slave_send_progress(s->master, stage, done, total);
}

/* ips2_reduce_dir() progress: at most ~4 messages a second. */
static void reduce_progress(void *arg, uint64_t done, uint64_t total)
{
    struct slave *s = arg;
    int64_t now = clock_ns(CLOCK_MONOTONIC);
    if (now - s->last_progress < 250000000 && done < total)
        return;
    s->last_progress = now;
    progress(s, IPS2_STAGE_REDUCING, (int64_t)done, (int64_t)total);
}

static void pack_progress(void *arg, uint64_t done, uint64_t total)
{
    progress(arg, IPS2_STAGE_PACKING, (int64_t)done, (int64_t)total);
}

/* A stream that stayed raw (or the directory could not be listed whole):
 * a problem of the run, nothing lost. */
static void pack_failed(void *arg, const char *stream, const char *message)
{
    char text[IPS2_ERR_MAX + 64];
    if (stream != NULL) {
        const char *slash = strrchr(stream, '/');
        snprintf(text, sizeof text, "kept %s raw: %s", slash ? slash + 1 : stream, message);
        message = text;
    }
    problem(arg, message);
}

/* Packs the machine's raw streams; a directory that is not there had
 * nothing traced. */
static void pack_traces(struct slave *s)
{
    const struct ips2_pack_report report = {pack_progress, pack_failed, s};
    char err[IPS2_ERR_MAX];
    ips2_pack_dir(s->trace_dir, false, &report, err);
}

static char *join(const char *a, const char *b, const char *c)
{
    size_t n = strlen(a) + strlen(b) + strlen(c) + 3;
    char *s = malloc(n);
    if (s != NULL)
        snprintf(s, n, "%s/%s/%s", a, b, c);
    return s;
}

/* The test hook described at the top. */
static void hold(struct slave *s)
{
    const char *dir = getenv("IPS2SLAVE_HOLD");
    char path[PATH_MAX], tmp[PATH_MAX];
    if (dir == NULL || dir[0] == '\0')
        return;
    snprintf(path, sizeof path, "%s/%s.hold", dir, s->cfg.machine);
    if (access(path, F_OK) != 0)
        return;
    snprintf(tmp, sizeof tmp, "%s/%s.pid.tmp", dir, s->cfg.machine);
    snprintf(path, sizeof path, "%s/%s.pid", dir, s->cfg.machine);
    FILE *f = fopen(tmp, "w");
    if (f == NULL)
        return;
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
    rename(tmp, path);
    int in = inotify_init1(IN_CLOEXEC);
    if (in >= 0)
        inotify_add_watch(in, dir, IN_CREATE | IN_MOVED_TO);
    progress(s, IPS2_STAGE_REDUCING, 0, 0);
    snprintf(path, sizeof path, "%s/%s.go", dir, s->cfg.machine);
    char buf[4096];
    while (access(path, F_OK) != 0 && in >= 0 && read(in, buf, sizeof buf) > 0)
        continue;
    if (in >= 0)
        close(in);
}

/* Whether the user asked for a compiler's clones as procedures of their
 * own (IPS2_CLONES=1 in the environment of the master, which its private
 * pvmd and so the slaves inherit): "f.constprop.0" instead of "f". */
static bool want_clones(void)
{
    const char *v = getenv("IPS2_CLONES");
    return v != NULL && (!strcmp(v, "1") || !strcmp(v, "yes") || !strcmp(v, "on"));
}

/* A PAG part written: the master learns its path (PART). */
static void part_written(void *arg, const char *path)
{
    struct slave *s = arg;
    slave_send_part(s->master, path);
}

/* Reduces the run and sends REDUCTIONS (query 0); 1 if sent. */
static int reduce_and_send(struct slave *s)
{
    struct slave_analysis a = {
        .machine = s->cfg.machine,
        .host = s->host,
        .trace_dir = s->trace_dir,
        .session_start = s->cfg.session_start,
        .interval_ns = s->cfg.interval_ns,
        .clones = want_clones(),
        .replays = s->replays,
        .nreplays = s->nreplays,
        .progress = reduce_progress,
        .progress_arg = s,
        .part = part_written,
        .part_arg = s,
    };
    char err[512];
    size_t size = 0;
    s->last_progress = 0;
    progress(s, IPS2_STAGE_REDUCING, 0, 0);
    void *bytes = slave_analyse(&a, &size, err, sizeof err);
    if (bytes == NULL) {
        problem(s, err);
        return 0;
    }
    int rc = slave_send_reductions(s->master, 0, bytes, size);
    free(bytes);
    if (rc < 0) {
        fprintf(stderr, "ips2slave %s: cannot send reductions: %d\n", s->cfg.machine, rc);
        return 0;
    }
    return 1;
}

/* slave_end_writers()'s way to stop a writer: a PVM task on this host
 * gets pvm_kill (its pvmd ends it and takes it off the VM). */
static bool stop_task(void *arg, pid_t pid, char *how, size_t size)
{
    (void)arg;
    struct pvmtaskinfo *ti = NULL;
    int ntask = 0, me = pvm_mytid();
    if (me < 0 || pvm_tasks(pvm_tidtohost(me), &ntask, &ti) < 0)
        return false;
    for (int i = 0; i < ntask; i++) {
        if (ti[i].ti_pid != (int)pid || ti[i].ti_tid == me)
            continue;
        int tid = ti[i].ti_tid, rc = pvm_kill(tid);
        if (rc < 0)
            return false;
        snprintf(how, size, "a PVM task (t%x) left in the virtual machine: stopped with pvm_kill",
                 (unsigned)tid);
        return true;
    }
    return false;
}

/* Everything after the last process ended: stop what still writes a
 * trace, reduce, send, DONE, and pack beside (a child process): the
 * reduction no longer reads the raw streams, and the results are the
 * master's first.  Where no child can be made, it packs here, first. */
static void finish_run(struct slave *s)
{
    s->reduced = true;
    const struct slave_end_ops ops = {stop_task, problem, s};
    slave_end_writers(s->trace_dir, s->cfg.grace_ms, &ops);
    hold(s);
    int ok = reduce_and_send(s);
    char err[256];
    progress(s, IPS2_STAGE_PACKING, 0, 0);
    s->packer = slave_packer_start(s->trace_dir, s->cfg.machine, err, sizeof err);
    if (s->packer == NULL) {
        char text[300];
        snprintf(text, sizeof text, "cannot pack beside (%s): packing first", err);
        problem(s, text);
        int64_t cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
        pack_traces(s);
        slave_send_packed(s->master, 0, 0, clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu);
        progress(s, IPS2_STAGE_IDLE, 0, 0);
    }
    slave_send_done(s->master, 0, ok);
}

/* The packer reported (its fd was readable): relay it; at its end, PACKED. */
static void packer_step(struct slave *s)
{
    const struct ips2_pack_report report = {pack_progress, pack_failed, s};
    struct slave_pack_end end;
    if (slave_packer_step(s->packer, &report, &end) > 0)
        return;
    slave_packer_free(s->packer);
    s->packer = NULL;
    if (end.died) {
        char text[200];
        snprintf(text, sizeof text, "%s: the streams it had not packed stay raw", end.why);
        problem(s, text);
    }
    slave_send_packed(s->master, end.packed, end.raw, end.cpu_ns);
    progress(s, IPS2_STAGE_IDLE, 0, 0);
    if (s->quit_packed)
        s->quit = true;
}

/* A process that libips2 could not trace said why on its stderr, first
 * thing ("ips2: cannot create trace files in DIR: No space left on
 * device; running untraced"): that is a problem of the run, naming the
 * real cause, since its trace is missing. */
static bool untraced_problem(struct slave *s, const struct slave_proc_end *end)
{
    static const char said[] = "ips2: cannot ", tail[] = "; running untraced";
    char path[PATH_MAX], head[4096], text[4200];
    snprintf(path, sizeof path, "%s/%s.%d.stderr", s->output_dir, end->app, end->index);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, head, sizeof head - 1);
    close(fd);
    head[n > 0 ? n : 0] = '\0';
    for (char *line = head, *next; *line; line = next) {
        size_t len = strcspn(line, "\n");
        next = line + len + (line[len] != '\0');
        line[len] = '\0';
        size_t t = sizeof tail - 1;
        if (strncmp(line, said, sizeof said - 1) == 0 && len > t &&
            strcmp(line + len - t, tail) == 0) {
            snprintf(text, sizeof text, "%s.%d (pid %d): not traced: %.*s", end->app, end->index,
                     (int)end->pid, (int)(len - t - 6), line + 6);
            problem(s, text);
            return true;
        }
    }
    return false;
}

/* Whether the trace directory holds a stream of process pid (PID.*). */
static bool has_trace(const struct slave *s, pid_t pid)
{
    char prefix[32];
    int n = snprintf(prefix, sizeof prefix, "%d.", (int)pid);
    DIR *d = opendir(s->trace_dir);
    bool found = false;
    for (struct dirent *e; d != NULL && !found && (e = readdir(d)) != NULL;)
        found = strncmp(e->d_name, prefix, (size_t)n) == 0;
    if (d != NULL)
        closedir(d);
    return found;
}

/* A process that ran but wrote no trace is a problem, with the reason. */
static void no_trace_problem(struct slave *s, const struct slave_process *p,
                             const struct slave_proc_end *end)
{
    if (has_trace(s, end->pid))
        return;
    const char *why = "it ended before libips2 wrote anything";
    for (size_t i = 0; p != NULL && p->env != NULL && p->env[i] != NULL; i++)
        if (strcmp(p->env[i], "IPS2_TRACE=off") == 0)
            why = "IPS2_TRACE=off in its environment";
    if (p != NULL && p->exe_kind == SLAVE_EXE_STATIC)
        why = "a static executable: libips2 can be neither linked nor preloaded";
    else if (p != NULL && p->exe_kind == SLAVE_EXE_UNKNOWN)
        why = "not a program libips2 can trace";
    else if (end->how == IPS2_PROC_SIGNALED || end->how == IPS2_PROC_TIMEOUT)
        why = "it was killed before libips2 wrote anything";
    char text[600];
    snprintf(text, sizeof text, "%s.%d (pid %d) wrote no trace: %s", end->app, end->index,
             (int)end->pid, why);
    problem(s, text);
}

/* The process of (app, index), or NULL. */
static struct slave_process *find_process(struct slave *s, const char *app, int index)
{
    for (size_t i = 0; i < s->nprocs; i++)
        if (s->procs[i].index == index && strcmp(s->procs[i].app, app) == 0)
            return &s->procs[i];
    return NULL;
}

static void on_ready(void *arg, int id, int ok, const char *text)
{
    struct slave *s = arg;
    const struct slave_process *p = &s->procs[id];
    slave_send_ready(s->master, p->app, p->index, ok, text);
}

static void on_end(void *arg, const struct slave_proc_end *end)
{
    struct slave *s = arg;
    const struct slave_process *sp = find_process(s, end->app, end->index);
    if (sp != NULL && s->ready != NULL)
        slave_ready_ended(s->ready, (int)(sp - s->procs));
    if (end->pid != 0 && end->how != IPS2_PROC_FAILED && !untraced_problem(s, end))
        no_trace_problem(s, sp, end);
    slave_send_exited(s->master, end);
    s->ended++;
    progress(s, IPS2_STAGE_RUNNING, s->ended, (int64_t)s->nprocs);
}

static void configure(struct slave *s)
{
    if (slave_upk_config(&s->cfg) < 0 || s->cfg.version != IPS2_PROTO_VERSION) {
        fprintf(stderr, "ips2slave: bad CONFIG message (protocol %u, want %d)\n", s->cfg.version,
                IPS2_PROTO_VERSION);
        s->quit = true;
        return;
    }
    if (s->cfg.interval_ns <= 0)
        s->cfg.interval_ns = 100000000;
    if (s->cfg.grace_ms < 0)
        s->cfg.grace_ms = 0;
    s->trace_dir = join(s->cfg.session_dir, "traces", s->cfg.machine);
    s->output_dir = join(s->cfg.session_dir, "output", s->cfg.machine);
    s->configured = true;
    char err[512] = "out of memory";
    if (s->trace_dir != NULL && s->output_dir != NULL)
        s->runner = slave_runner_new(s->trace_dir, s->output_dir, s->cfg.grace_ms, err, sizeof err);
    if (s->runner != NULL) {
        slave_runner_on_note(s->runner, problem, s);
        char log[PATH_MAX];
        snprintf(log, sizeof log, "%s/ips2slave.log", s->output_dir);
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
        if (fd >= 0) {
            dup2(fd, 2);
            close(fd);
        }
    }
    /* the machine's clock: the test knob, then its offset from the master's */
    char cerr[512];
    struct ips2_clock_est clock;
    if (slave_clock_knob(s->cfg.machine, cerr, sizeof cerr) < 0)
        problem(s, cerr);
    if (s->runner != NULL &&
        slave_clock_measure(s->master, s->trace_dir, &clock, cerr, sizeof cerr) < 0)
        problem(s, cerr);
    slave_send_hello(s->master, s->cfg.machine, s->host, (int)getpid(),
                     slave_clock_real_ns() - clock_ns(CLOCK_MONOTONIC));
    if (s->runner == NULL) {
        problem(s, err);
        slave_send_done(s->master, 0, 0);
        s->reduced = true; /* nothing to do but wait for QUIT */
    }
}

static void add_process(struct slave *s)
{
    if (s->nprocs == s->cap_procs) {
        size_t cap = s->cap_procs ? 2 * s->cap_procs : 16;
        struct slave_process *v = realloc(s->procs, cap * sizeof *v);
        if (v == NULL)
            return;
        s->procs = v;
        s->cap_procs = cap;
    }
    struct slave_process *p = &s->procs[s->nprocs];
    if (slave_upk_process(p) < 0) {
        problem(s, "bad PROCESS message");
        slave_process_free(p);
        return;
    }
    s->nprocs++;
}

static void add_replay(struct slave *s)
{
    if (s->nreplays == s->cap_replays) {
        size_t cap = s->cap_replays ? 2 * s->cap_replays : 4;
        struct slave_replay *v = realloc(s->replays, cap * sizeof *v);
        if (v == NULL)
            return;
        s->replays = v;
        s->cap_replays = cap;
    }
    struct slave_replay *r = &s->replays[s->nreplays];
    if (slave_upk_replay(r) < 0) {
        problem(s, "bad REPLAY message");
        slave_replay_free(r);
        return;
    }
    s->nreplays++;
}

/* COLLECTOR: one more collector to run beside the processes. */
static void add_collector(struct slave *s)
{
    char *kind = NULL, err[256];
    int64_t ms = 0;
    if (ips2_upk_str(&kind) < 0 || ips2_upk_i64(&ms) < 0)
        problem(s, "bad COLLECTOR message");
    else if (slave_runner_add_collector(s->runner, kind, ms, err, sizeof err) != 0)
        problem(s, err);
    free(kind);
}

/* The value of NAME in a NAME=VALUE list, or NULL. */
static const char *env_get(char *const *env, const char *name)
{
    size_t n = strlen(name);
    const char *v = NULL;
    for (size_t i = 0; env != NULL && env[i] != NULL; i++)
        if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
            v = env[i] + n + 1;
    return v;
}

/* A program not built with ips2cc (or a script) is traced through libips2
 * preloaded, as ips2-preload does: its environment with LD_PRELOAD=libips2
 * first (a new array whose first entry is malloc'd), and a note says so;
 * NULL when it needs none. */
static char **with_preload(struct slave *s, struct slave_process *p)
{
    const char *path = env_get(p->env, "PATH");
    char file[PATH_MAX], lib[PATH_MAX];
    p->exe_kind = slave_exe_kind(p->argv[0], p->cwd, path, file, sizeof file);
    if (p->exe_kind != SLAVE_EXE_PLAIN && p->exe_kind != SLAVE_EXE_SCRIPT)
        return NULL;
    const char *off = env_get(p->env, "IPS2_TRACE");
    if (off == NULL)
        off = getenv("IPS2_TRACE");
    if ((off != NULL && strcmp(off, "off") == 0) || slave_exe_libips2(lib, sizeof lib) != 0)
        return NULL;
    const char *old = env_get(p->env, "LD_PRELOAD");
    if (old == NULL)
        old = getenv("LD_PRELOAD");
    size_t n = 0;
    while (p->env != NULL && p->env[n] != NULL)
        n++;
    char **env = calloc(n + 2, sizeof *env);
    size_t len = strlen(lib) + (old ? strlen(old) : 0) + sizeof "LD_PRELOAD=:";
    char *pre = malloc(len);
    if (env == NULL || pre == NULL) {
        free(env);
        free(pre);
        return NULL;
    }
    snprintf(pre, len, "LD_PRELOAD=%s%s%s", lib, old && old[0] ? ":" : "", old ? old : "");
    env[0] = pre; /* before the workload's: a later LD_PRELOAD would win in child_env */
    for (size_t i = 0; i < n; i++)
        env[i + 1] = strncmp(p->env[i], "LD_PRELOAD=", 11) == 0 ? pre : p->env[i];
    char text[PATH_MAX + 200];
    snprintf(text, sizeof text,
             "%s.%d: %s %s: traced through libips2 preloaded (interactions only)", p->app, p->index,
             file, p->exe_kind == SLAVE_EXE_SCRIPT ? "is a script" : "was not built with ips2cc");
    slave_send_note(s->master, text);
    return env;
}

/* The local pvmd's name in the VM (for PvmTaskHost), or "". */
static void local_host(char *buf, size_t size)
{
    int dtid = pvm_tidtohost(pvm_mytid()), nhost = 0, narch = 0;
    struct pvmhostinfo *hi = NULL;
    buf[0] = '\0';
    if (pvm_config(&nhost, &narch, &hi) < 0)
        return;
    for (int i = 0; i < nhost; i++)
        if (hi[i].hi_tid == dtid)
            snprintf(buf, size, "%s", hi[i].hi_name);
}

/* Sets NAME=VALUE entries in the slave's environment for a pvm_spawn,
 * keeping the old values in saved (restore_env puts them back). */
static void set_env(char *const *entries, size_t n, char **saved)
{
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(entries[i], '=');
        if (eq == NULL) {
            saved[i] = NULL;
            continue;
        }
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(eq - entries[i]), entries[i]);
        const char *old = getenv(name);
        size_t len = strlen(name) + (old ? strlen(old) : 0) + 2;
        saved[i] = malloc(len);
        if (saved[i] != NULL)
            snprintf(saved[i], len, "%s=%s", name, old ? old : "\x01");
        setenv(name, eq + 1, 1);
    }
}

static void restore_env(char **saved, size_t n)
{
    for (size_t i = n; i-- > 0;) {
        if (saved[i] == NULL)
            continue;
        char *eq = strchr(saved[i], '=');
        *eq = '\0';
        if (strcmp(eq + 1, "\x01") == 0)
            unsetenv(saved[i]);
        else
            setenv(saved[i], eq + 1, 1);
        free(saved[i]);
    }
}

/* -spawn N: the group of processes i .. i+N-1 is one pvm_spawn of N tasks
 * on this host, so that they are siblings (pvm_siblings).  They get the
 * tracing variables and the workload's through PVM_EXPORT; the pvmd's
 * working directory and output (its log) are PVM's.  Each task's exit
 * comes as SPAWN_EXIT (pvm_notify). */
static void spawn_group(struct slave *s, size_t i)
{
    struct slave_process *p = &s->procs[i];
    size_t n = p->spawn_size;
    if (i + n > s->nprocs)
        n = s->nprocs - i;
    char **preload = with_preload(s, p);
    char *const *wenv = preload != NULL ? preload : p->env;
    size_t nenv = 0;
    while (wenv != NULL && wenv[nenv] != NULL)
        nenv++;
    size_t slen = strlen(s->trace_dir) + sizeof "IPS2_SESSION=";
    size_t alen = strlen(p->app) + sizeof "IPS2_APP=";
    char **all = calloc(nenv + 3, sizeof *all), **saved = calloc(nenv + 3, sizeof *saved);
    char *sess = malloc(slen), *appv = malloc(alen), *exp = NULL;
    int *tids = calloc(n, sizeof *tids), got = 0;
    size_t explen = 64;
    for (size_t k = 0; k < nenv; k++)
        explen += strlen(wenv[k]) + 1;
    exp = malloc(explen + (getenv("PVM_EXPORT") ? strlen(getenv("PVM_EXPORT")) : 0));
    if (all != NULL && saved != NULL && sess != NULL && appv != NULL && tids != NULL &&
        exp != NULL) {
        snprintf(sess, slen, "IPS2_SESSION=%s", s->trace_dir);
        snprintf(appv, alen, "IPS2_APP=%s", p->app);
        size_t m = 0;
        for (size_t k = 0; k < nenv; k++)
            all[m++] = wenv[k];
        all[m++] = sess;
        all[m++] = appv;
        /* PVM_EXPORT: the names of all, then what was exported already */
        size_t len = 0;
        for (size_t k = 0; k < m; k++)
            len += (size_t)sprintf(exp + len, "%s%.*s",
                                   len ? ":" : "PVM_EXPORT=", (int)strcspn(all[k], "="), all[k]);
        if (getenv("PVM_EXPORT") != NULL)
            sprintf(exp + len, ":%s", getenv("PVM_EXPORT"));
        all[m++] = exp;
        char host[256];
        local_host(host, sizeof host);
        set_env(all, m, saved);
        got = pvm_spawn(p->argv[0], p->argv[1] != NULL ? p->argv + 1 : NULL,
                        host[0] ? PvmTaskHost : PvmTaskDefault, host, (int)n, tids);
        restore_env(saved, m);
    }
    char why[256];
    snprintf(why, sizeof why, "pvm_spawn %s: %s", p->argv[0],
             got < 0 ? "failed" : "no task (PvmNoFile: not on the pvmd's path?)");
    for (size_t k = 0; k < n; k++) {
        struct slave_process *q = &s->procs[i + k];
        struct slave_proc_spec spec = {.app = q->app, .index = q->index, .argv = q->argv};
        q->state = 1;
        if (got > 0 && (int)k < got && tids[k] > 0) {
            int nt = 0;
            struct pvmtaskinfo *ti = NULL;
            q->tid = tids[k];
            q->pid = pvm_tasks(tids[k], &nt, &ti) >= 0 && nt > 0 ? ti[0].ti_pid : 0;
            slave_send_started(s->master, q->app, q->index, q->pid);
            s->spawned++;
        } else {
            slave_runner_refuse(s->runner, &spec, why);
        }
    }
    if (got > 0)
        pvm_notify(PvmTaskExit, IPS2_TAG_SPAWN_EXIT, got, tids);
    if (preload != NULL) {
        free(preload[0]);
        free(preload);
    }
    free(all);
    free(saved);
    free(sess);
    free(appv);
    free(exp);
    free(tids);
}

/* SPAWN_EXIT: a task of a -spawn group ended; its trace says how. */
static void spawn_exit(struct slave *s)
{
    int32_t tid = 0;
    if (ips2_upk_i32(&tid) < 0)
        return;
    for (size_t i = 0; i < s->nprocs; i++) {
        struct slave_process *q = &s->procs[i];
        if (q->tid != tid || q->state != 1)
            continue;
        q->state = 2;
        struct slave_proc_end end = {.app = q->app, .index = q->index, .pid = q->pid};
        int sig = 0, status = 0;
        if (q->pid > 0 && slave_exe_traced_exit(s->trace_dir, q->pid, &sig, &status) == 0) {
            end.how = sig ? IPS2_PROC_SIGNALED : IPS2_PROC_EXITED;
            end.code = sig ? sig : status;
        } else {
            end.how = IPS2_PROC_EXITED;
            snprintf(end.text, sizeof end.text, "a PVM task: no exit recorded");
        }
        s->spawned--;
        on_end(s, &end);
        return;
    }
}

/* Starts process i (or refuses it, why not NULL), and its readiness
 * check if it has one. */
static void start_one(struct slave *s, size_t i, const char *why)
{
    struct slave_process *p = &s->procs[i];
    struct slave_proc_spec spec = {
        .app = p->app,
        .index = p->index,
        .cwd = p->cwd,
        .argv = p->argv,
        .env = p->env,
        .timeout_ms = p->timeout_ms,
    };
    p->state = 1;
    if (why != NULL) {
        slave_runner_refuse(s->runner, &spec, why);
        return;
    }
    if (p->spawn_size > 0) {
        if (p->spawn_rank == 0)
            spawn_group(s, i);
        return; /* the other ranks: with rank 0 */
    }
    char **env = with_preload(s, p);
    if (env != NULL)
        spec.env = env;
    pid_t pid = slave_runner_start(s->runner, &spec);
    if (env != NULL) {
        free(env[0]);
        free(env);
    }
    if (pid <= 0)
        return;
    slave_send_started(s->master, p->app, p->index, (int)pid);
    if (p->ready == NULL || p->ready[0] == '\0')
        return;
    char err[512];
    if (s->ready == NULL)
        s->ready = slave_ready_new(err, sizeof err);
    if (s->ready == NULL || slave_ready_add(s->ready, (int)i, p->ready, p->ready_arg, pid,
                                            p->ready_timeout_ms, err, sizeof err) != 0) {
        char text[600];
        snprintf(text, sizeof text, "cannot check readiness: %s", err);
        slave_send_ready(s->master, p->app, p->index, 0, text);
    }
}

static void start_all(struct slave *s)
{
    s->go = true;
    if (s->runner == NULL)
        return;
    progress(s, IPS2_STAGE_RUNNING, 0, (int64_t)s->nprocs);
    for (size_t i = 0; i < s->nprocs; i++) {
        if (s->procs[i].hold)
            s->held++;
        else
            start_one(s, i, NULL);
    }
}

/* RELEASE: the master's start order lets a held process start, or not. */
static void release(struct slave *s)
{
    struct slave_release m;
    if (slave_upk_release(&m) < 0) {
        problem(s, "bad RELEASE message");
    } else {
        struct slave_process *p = find_process(s, m.app, m.index);
        if (p != NULL && p->hold) {
            p->hold = 0;
            s->held--;
            if (p->state == 0) /* a -spawn group starts with its rank 0 */
                start_one(s, (size_t)(p - s->procs), m.why[0] ? m.why : NULL);
        }
    }
    free(m.app);
    free(m.why);
}

/* STOP: a stop condition holds for a process. */
static void stop(struct slave *s)
{
    struct slave_stop m;
    if (slave_upk_stop(&m) < 0)
        problem(s, "bad STOP message");
    else if (slave_runner_stop(s->runner, m.app, m.index, m.signal, m.grace_ms) != 0) {
        struct slave_process *p = find_process(s, m.app, m.index);
        if (p != NULL && p->tid > 0 && p->state == 1) /* a -spawn task: no grace */
            pvm_sendsig(p->tid, m.signal);
    }
    free(m.app);
}

/* REDUCE: one directory for one phase, as asked (the master's model
 * filters and shifts what comes back). */
static void reduce_query(struct slave *s)
{
    struct slave_reduce q;
    if (slave_upk_reduce(&q) < 0) {
        problem(s, "bad REDUCE message");
        slave_reduce_free(&q);
        return;
    }
    struct ips2_reduce_options o = {
        .machine = s->cfg.machine,
        .session_start_real = q.session_start,
        .phase_start_ns = q.start,
        .phase_end_ns = q.end,
        .interval_ns = (uint64_t)q.interval_ns,
        .clones = want_clones(),
        .progress = reduce_progress,
        .progress_arg = s,
    };
    char err[IPS2_ERR_MAX] = "";
    s->last_progress = 0;
    progress(s, IPS2_STAGE_REDUCING, 0, 0);
    struct ips2_reductions *r = ips2_reduce_dir(q.trace_dir, &o, err);
    size_t size = 0;
    void *bytes = r != NULL ? ips2_reductions_encode(r, &size) : NULL;
    if (bytes != NULL)
        slave_send_reductions(s->master, q.query, bytes, size);
    else
        slave_send_query_failed(s->master, q.query,
                                r == NULL ? (err[0] ? err : "cannot reduce")
                                          : "out of memory encoding reductions");
    free(bytes);
    ips2_reductions_free(r);
    progress(s, IPS2_STAGE_IDLE, 0, 0);
    slave_reduce_free(&q);
}

/* Handles one received message. */
static void handle(struct slave *s, int buf)
{
    int len, tag, src;
    pvm_bufinfo(buf, &len, &tag, &src);
    if (tag == IPS2_TAG_TASK_EXIT || tag == IPS2_TAG_HOST_DELETE) {
        s->quit = true; /* the master is gone */
        s->orphan = true;
        return;
    }
    if (tag >= IPS2_TAG_CPA_FIRST && tag <= IPS2_TAG_CPA_LAST) { /* from the master or a peer */
        if (s->cpa == NULL)
            s->cpa = slave_cpa_new(s->master);
        if (s->cpa != NULL)
            slave_cpa_handle(s->cpa, tag, src);
        return;
    }
    if (tag == IPS2_TAG_SPAWN_EXIT) { /* from the pvmd: a -spawn task ended */
        spawn_exit(s);
        return;
    }
    if (src != s->master)
        return;
    if (tag == IPS2_TAG_PING) { /* at any stage: the master's liveness check */
        int32_t seq = 0;
        if (ips2_upk_i32(&seq) >= 0)
            slave_send_pong(s->master, seq);
        return;
    }
    if (!s->configured && tag != IPS2_TAG_CONFIG && tag != IPS2_TAG_QUIT)
        return;
    switch (tag) {
    case IPS2_TAG_CONFIG:
        if (!s->configured)
            configure(s);
        break;
    case IPS2_TAG_PROCESS:
        if (!s->go)
            add_process(s);
        break;
    case IPS2_TAG_REPLAY:
        if (!s->go)
            add_replay(s);
        break;
    case IPS2_TAG_COLLECTOR:
        if (!s->go && s->runner != NULL)
            add_collector(s);
        break;
    case IPS2_TAG_GO:
        if (!s->go)
            start_all(s);
        break;
    case IPS2_TAG_RELEASE:
        if (s->go && s->runner != NULL)
            release(s);
        break;
    case IPS2_TAG_STOP:
        if (s->go && s->runner != NULL)
            stop(s);
        break;
    case IPS2_TAG_REDUCE:
        reduce_query(s);
        break;
    case IPS2_TAG_QUIT:
        if (s->packer != NULL) {
            s->quit_packed = true;
            slave_packer_hurry(s->packer);
        } else
            s->quit = true;
        break;
    default:
        break;
    }
}

static int usage(void)
{
    fprintf(stderr, "usage: ips2slave -m MACHINE\n"
                    "  The ips2 slave analyst.  It runs as a PVM task spawned by the master\n"
                    "  analyst (ips2 run), which sends it its work; it is not run by hand.\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage();
        return 0;
    }
    if (argc != 3 || strcmp(argv[1], "-m") != 0)
        return usage();
    signal(SIGPIPE, SIG_IGN);

    struct slave s;
    memset(&s, 0, sizeof s);
    pvm_setopt(PvmAutoErr, 0);
    if (pvm_mytid() < 0) {
        fprintf(stderr, "ips2slave: cannot join PVM (is a pvmd running?)\n");
        return 1;
    }
    s.master = pvm_parent();
    if (s.master < 0) {
        fprintf(stderr, "ips2slave: no master (spawn me from the master analyst)\n");
        pvm_exit();
        return usage();
    }
    gethostname(s.host, sizeof s.host - 1);
    pvm_notify(PvmTaskExit, IPS2_TAG_TASK_EXIT, 1, &s.master);
    int *fds = NULL;
    if (pvm_getfds(&fds) < 1) {
        fprintf(stderr, "ips2slave: no PVM socket\n");
        pvm_exit();
        return 1;
    }
    s.pvmfd = fds[0];

    struct pollfd *pfd = NULL;
    size_t npfd_cap = 0;
    while (!s.quit) {
        int buf = 0;
        while (!s.quit && (buf = pvm_nrecv(-1, -1)) > 0)
            handle(&s, buf);
        if (buf < 0 && buf != PvmNoBuf) { /* the pvmd went away */
            fprintf(stderr, "ips2slave: lost the pvmd (%d)\n", buf);
            break;
        }
        if (s.quit)
            break;
        /* after the reduction the runner has nothing left to wait for; it
         * would take the packer for a descendant left running */
        if (s.runner != NULL && s.go && !s.reduced) {
            if (s.ready != NULL)
                slave_ready_step(s.ready, on_ready, &s);
            int running = slave_runner_step(s.runner, on_end, &s);
            if (s.ready != NULL) /* the checks of processes that just ended */
                slave_ready_step(s.ready, on_ready, &s);
            if (running == 0 && s.held == 0 && s.spawned == 0 && !s.reduced) {
                finish_run(&s);
                continue;
            }
        }
        /* libpvm may have read a message (a RELEASE, a STOP) into its queue
         * while this loop sent one: the socket would not say so */
        if (pvm_probe(-1, -1) > 0)
            continue;
        /* the pvmd, the runner, and the critical path's direct routes to
         * peer slaves (slave_cpa.c): pvm_getfds's fds after the first,
         * as many as there are (pfd grows with them) */
        int timeout = -1, npfd = 4, *all = NULL, nall = pvm_getfds(&all);
        size_t need = 4 + (size_t)(nall > 1 ? nall - 1 : 0);
        if (need > npfd_cap) {
            struct pollfd *np = realloc(pfd, need * sizeof *np);
            if (np == NULL) {
                fprintf(stderr, "ips2slave: out of memory\n");
                break;
            }
            pfd = np;
            npfd_cap = need;
        }
        pfd[0] = (struct pollfd){s.pvmfd, POLLIN, 0};
        pfd[1] = (struct pollfd){-1, POLLIN, 0};
        pfd[2] = (struct pollfd){-1, POLLIN, 0};
        pfd[3] = (struct pollfd){s.packer ? slave_packer_fd(s.packer) : -1, POLLIN, 0};
        if (s.runner != NULL && s.go && !s.reduced) {
            pfd[1].fd = slave_runner_fd(s.runner);
            timeout = slave_runner_wait_ms(s.runner);
            if (s.ready != NULL && !s.reduced) {
                int t = slave_ready_wait_ms(s.ready);
                pfd[2].fd = slave_ready_fd(s.ready);
                if (t >= 0 && (timeout < 0 || t < timeout))
                    timeout = t;
            }
        }
        for (int i = 1; i < nall; i++)
            pfd[npfd++] = (struct pollfd){all[i], POLLIN, 0};
        if (poll(pfd, (nfds_t)npfd, timeout) < 0 && errno != EINTR)
            break;
        if (pfd[0].revents & (POLLHUP | POLLERR)) {
            fprintf(stderr, "ips2slave: lost the pvmd\n");
            break;
        }
        if (s.packer != NULL && pfd[3].revents != 0)
            packer_step(&s);
    }

    free(pfd);
    slave_packer_free(s.packer); /* the streams it had not packed stay raw */
    slave_runner_free(s.runner); /* kills what still runs */
    slave_ready_free(s.ready);
    slave_cpa_free(s.cpa);
    if (s.orphan && (s.cfg.flags & IPS2_CONFIG_HALT_ORPHAN)) {
        /* the master's own VM would be left with no one to end it; this
         * ends the slave too (pvmd sends SIGTERM), which is all that is left */
        fprintf(stderr, "ips2slave: the master is gone: halting its virtual machine\n");
        pvm_halt();
    }
    for (size_t i = 0; i < s.nprocs; i++)
        slave_process_free(&s.procs[i]);
    free(s.procs);
    for (size_t i = 0; i < s.nreplays; i++)
        slave_replay_free(&s.replays[i]);
    free(s.replays);
    free(s.trace_dir);
    free(s.output_dir);
    slave_config_free(&s.cfg);
    pvm_exit();
    return 0;
}
