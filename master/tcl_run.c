/*
 * tcl_run.c -- the ips2::run command: runs a workload through the slaves.
 *
 *	ips2::run WORKLOAD ?-session DIR? ?-progress CMD? ?-done CMD?
 *	          ?-pvm auto|join|private? ?-slave PATH? ?-vars {NAME VALUE ...}?
 *	          ?-grace MS?
 *
 *	WORKLOAD is a workload dict (ips2::workload::read's) or a workload
 *	file.  The run makes the session directory (default
 *	sessions/YYYY-MM-DD-a, -b, ... under the working directory), writes
 *	its manifest, joins or starts a pvmd (pvm_vm.c), spawns one slave per
 *	machine (pvm_slaves.c) and sends each its configuration, processes
 *	and replays, then lets the event loop carry the slaves' reports:
 *	process starts and ends, problems, progress, reductions (written to
 *	SESSION/reductions/MACHINE.red) and the end of each slave's work.  A
 *	slave that dies is named in SESSION/log ("MACHINE: slave died while
 *	reducing"); the other machines' results stand.  When every machine is
 *	done or failed, the comparison shifts are computed, the manifest is
 *	written again with what happened, the slaves are told to quit and a
 *	private pvmd is halted.
 *
 *	With -done, ips2::run returns the session directory at once and the
 *	run goes on in the event loop; at its end CMD is called with one
 *	more argument, the result dict:
 *	    session DIR  problems {"MACHINE: text" ...}  notes {...}
 *	    machines {NAME {host H state done|failed stage S} ...}
 *	    pvmd {mode join|private pid PID (private: the pvmd started)}
 *	Without -done it waits (serving the event loop, so a GUI stays live)
 *	and returns a session object (as ips2::open would) whose phase
 *	queries go to the slaves, which stay until the session is closed, the
 *	next run starts, or the process exits.  A slave that outlives its
 *	master halts a private VM (ips2_proto.h IPS2_CONFIG_HALT_ORPHAN).
 *
 *	A machine is done once its slave sent its results (reductions, PAG
 *	parts); the slave then packs the run's traces beside (PROGRESS
 *	"packing", PACKED at the end).  Without -done the session is
 *	returned while the slaves pack, and closing it waits (serving the
 *	event loop) for their packing to end; ips2::packing names the
 *	machines still packing.  With -done the result comes once the slaves
 *	have packed and quit, as the session is then read without them.
 *
 *	-progress CMD is called with one more argument, an event dict:
 *	    machine M event spawned|hello|clock|started|ready|exited|stopping|stage|
 *	    problem|note|reductions|done|packed|died  and per event: host; host pid (the
 *	    slave's); offset error (ns, the machine's clock minus the master's);
 *	    app index pid; app index ok text (a -ready check passed,
 *	    or not and why); app index pid status; app index pid signal grace
 *	    (a stop condition held); stage done total; text (problem, note);
 *	    bytes; ok; packed raw (streams) cpu (the packer's, s); stage text.  And once, machine master
 *event pvm mode join|private pid PID (the private pvmd's).
 *
 *	libpvm holds one connection per process, so one run at a time.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ips2_proto.h"
#include "ips2_reader.h" /* IPS2_ERR_MAX */
#include "run.h"         /* with tcl.h, before ips2_master.h */
#include "ips2_master.h"
#include "model.h"
#include "slave_path.h"
#include "tcl_run.h"
#include "tcl_util.h"

#define ASSOC_KEY "ips2::run"

/* Per-interpreter state: the run in progress, and the finished run whose
 * slaves stay to answer its session's phase queries. */
typedef struct RunAssoc {
    struct run *active;
    struct run *kept;
} RunAssoc;

static void Progress(struct run *run, const char *machine, const char *event, Tcl_Obj *kv);
static void MaybeFinish(struct run *run);
static void OnEnded(void *arg, int slave);
static void QueryAnswer(struct run *run, int query, void *data, size_t size, const char *why);

/* --- helpers --------------------------------------------------------------- */

static void Release(Tcl_Obj **o)
{
    if (*o != NULL)
        Tcl_DecrRefCount(*o);
    *o = NULL;
}

static void FreeRunProc(char *block)
{
    struct run *run = (struct run *)block;
    for (int i = 0; i < run->nprocs; i++) {
        struct run_proc *p = &run->procs[i];
        Release(&p->app);
        Release(&p->command);
        Release(&p->cwd);
        Release(&p->env);
        Release(&p->status);
        Release(&p->after);
        Release(&p->ready);
        Release(&p->stop_when);
    }
    for (int i = 0; i < run->nreplays; i++) {
        struct run_replay *r = &run->replays[i];
        Release(&r->session);
        Release(&r->prefix);
        Release(&r->apps);
    }
    for (int i = 0; i < run->nmachines; i++) {
        struct run_machine *m = &run->machines[i];
        free(m->name);
        free(m->host);
        Tcl_Free((char *)m->replays);
        Release(&m->collectors);
        ips2_reductions_free(m->red);
    }
    Tcl_Free((char *)run->procs);
    Tcl_Free((char *)run->replays);
    Tcl_Free((char *)run->machines);
    Release(&run->workload_file);
    Release(&run->session);
    Release(&run->slave_path);
    Release(&run->progress_cmd);
    Release(&run->done_cmd);
    Release(&run->apps);
    Release(&run->problems);
    Release(&run->notes);
    Tcl_Free((char *)run);
}

/* Frees run once nothing Tcl_Preserve's it (a phase query waiting in the
 * event loop may). */
static void FreeRun(struct run *run)
{
    Tcl_EventuallyFree(run, FreeRunProc);
}

/* A PVM task left in the private VM, stopped (ips2_vm_stop_tasks).  With
 * the slaves kept for a session, this comes after the -done result, which
 * may still hold the problem list: a shared list is copied first. */
static void LeftTask(void *arg, const char *text)
{
    struct run *run = arg;
    if (Tcl_IsShared(run->problems)) {
        Tcl_Obj *copy = Tcl_DuplicateObj(run->problems);
        Tcl_IncrRefCount(copy);
        Tcl_DecrRefCount(run->problems);
        run->problems = copy;
    }
    Ips2RunProblem(run, "master", "%s", text);
}

/* Quits the slaves, stops the tasks left in a private VM and leaves
 * (halts) it, once. */
static void Shutdown(struct run *run)
{
    if (run->shut)
        return;
    run->shut = true;
    ips2_slaves_free(run->slaves);
    run->slaves = NULL;
    ips2_vm_stop_tasks(run->vm, LeftTask, run);
    char log[PATH_MAX];
    snprintf(log, sizeof log, "%s/output/pvmd.log", Tcl_GetString(run->session));
    ips2_vm_close(run->vm, run->vm != NULL && run->vm->mode == IPS2_VM_PRIVATE ? log : NULL);
    run->vm = NULL;
}

/* The machine of slave index i. */
static struct run_machine *BySlave(struct run *run, int slave)
{
    for (int i = 0; i < run->nmachines; i++)
        if (run->machines[i].slave == slave)
            return &run->machines[i];
    return NULL;
}

static struct run_proc *FindProc(struct run *run, const struct run_machine *m, const char *app,
                                 int index)
{
    int mi = (int)(m - run->machines);
    for (int i = 0; i < run->nprocs; i++) {
        struct run_proc *p = &run->procs[i];
        if (p->replay < 0 && p->machine == mi && p->index == index &&
            strcmp(Tcl_GetString(p->app), app) == 0)
            return p;
    }
    return NULL;
}

/* A machine's work is over, one way or the other. */
static void MachineOver(struct run *run, struct run_machine *m, enum machine_state state)
{
    if (m->state == M_DONE || m->state == M_FAILED)
        return;
    m->state = state;
    MaybeFinish(run);
}

/* --- start order and stop conditions (workload -after, -ready, -stop-when) --- */

/* Whether every process of app is ready: 1; one never will be (or the
 * application has none): -1; not yet: 0. */
static int AppReady(struct run *run, const char *app)
{
    int n = 0, state = 1;
    for (int i = 0; i < run->nprocs; i++) {
        struct run_proc *p = &run->procs[i];
        if (p->replay >= 0 || strcmp(Tcl_GetString(p->app), app) != 0)
            continue;
        n++;
        if (p->readiness == RR_NOT)
            return -1;
        if (p->readiness == RR_WAIT)
            state = 0;
    }
    return n > 0 ? state : -1;
}

/* Whether every process of app ended (a dead machine's count as ended). */
static bool AppEnded(struct run *run, const char *app)
{
    for (int i = 0; i < run->nprocs; i++) {
        struct run_proc *p = &run->procs[i];
        if (p->replay < 0 && strcmp(Tcl_GetString(p->app), app) == 0 && p->status == NULL &&
            run->machines[p->machine].state != M_FAILED)
            return false;
    }
    return true;
}

static bool StopHolds(struct run *run, const struct run_proc *p)
{
    Tcl_Size n = 0;
    Tcl_Obj **v = NULL;
    if (p->stop_when == NULL || Tcl_ListObjGetElements(NULL, p->stop_when, &n, &v) != TCL_OK)
        return false;
    for (Tcl_Size k = 0; k < n; k++)
        if (!AppEnded(run, Tcl_GetString(v[k])))
            return false;
    return true;
}

/* Whether the slave of p's machine can be told anything. */
static bool Reachable(struct run *run, const struct run_proc *p)
{
    const struct run_machine *m = &run->machines[p->machine];
    return m->slave >= 0 && m->state == M_RUNNING;
}

/* After any process became ready, or not, or ended: RELEASE the held
 * processes whose -after applications are all ready (or refuse them when
 * one never will be), STOP those whose stop condition now holds. */
static void Order(struct run *run)
{
    for (int i = 0; i < run->nprocs; i++) {
        struct run_proc *p = &run->procs[i];
        if (p->replay >= 0 || p->after == NULL || p->released || !Reachable(run, p))
            continue;
        Tcl_Size n = 0;
        Tcl_Obj **v = NULL;
        Tcl_ListObjGetElements(NULL, p->after, &n, &v);
        int ok = 1;
        char why[512] = "";
        for (Tcl_Size k = 0; k < n && ok >= 0; k++) {
            int r = AppReady(run, Tcl_GetString(v[k]));
            if (r < 0)
                snprintf(why, sizeof why, "%s was not ready", Tcl_GetString(v[k]));
            ok = r < ok ? r : ok;
        }
        if (ok == 0 && StopHolds(run, p)) {
            ok = -1;
            snprintf(why, sizeof why, "its stop condition held before it could start");
        }
        if (ok == 0)
            continue;
        p->released = true;
        ips2_slaves_release(run->slaves, run->machines[p->machine].slave, Tcl_GetString(p->app),
                            p->index, ok > 0 ? "" : why);
    }
    for (int i = 0; i < run->nprocs; i++) {
        struct run_proc *p = &run->procs[i];
        if (p->replay >= 0 || p->stop_when == NULL || p->stopped || p->pid <= 0 ||
            p->status != NULL || !Reachable(run, p) || !StopHolds(run, p))
            continue;
        p->stopped = true;
        ips2_slaves_stop(run->slaves, run->machines[p->machine].slave, Tcl_GetString(p->app),
                         p->index, p->stop_signal, p->stop_grace_ms);
        const char *abbrev = sigabbrev_np(p->stop_signal);
        Tcl_Obj *kv = Tcl_NewDictObj();
        Ips2Put(kv, "app", Tcl_DuplicateObj(p->app));
        Ips2Put(kv, "index", Tcl_NewIntObj(p->index));
        Ips2Put(kv, "pid", Tcl_NewIntObj(p->pid));
        Ips2Put(kv, "signal", Tcl_ObjPrintf("SIG%s", abbrev ? abbrev : "?"));
        Ips2Put(kv, "grace", Tcl_NewWideIntObj((Tcl_WideInt)p->stop_grace_ms));
        Progress(run, run->machines[p->machine].name, "stopping", kv);
    }
}

/* --- the slaves' reports ---------------------------------------------------- */

static void OnHello(void *arg, int slave, const char *host, int pid, int64_t offset)
{
    struct run *run = arg;
    struct run_machine *m = BySlave(run, slave);
    if (m == NULL)
        return;
    m->offset = offset;
    m->has_offset = true;
    Tcl_Obj *kv = Tcl_NewDictObj();
    Ips2Put(kv, "host", Ips2Str(host));
    Ips2Put(kv, "pid", Tcl_NewIntObj(pid));
    Progress(run, m->name, "hello", kv);
}

static void OnClock(void *arg, int slave, int64_t offset, int64_t error, int64_t rtt,
                    uint32_t samples)
{
    struct run *run = arg;
    struct run_machine *m = BySlave(run, slave);
    if (m == NULL)
        return;
    m->clock[0] = offset;
    m->clock[1] = error;
    m->clock[2] = rtt;
    m->clock[3] = samples;
    m->has_clock = true;
    Tcl_Obj *kv = Tcl_NewDictObj();
    Ips2Put(kv, "offset", Tcl_NewWideIntObj((Tcl_WideInt)offset));
    Ips2Put(kv, "error", Tcl_NewWideIntObj((Tcl_WideInt)error));
    Progress(run, m->name, "clock", kv);
}

static void OnStarted(void *arg, int slave, const char *app, int index, int pid)
{
    struct run *run = arg;
    struct run_machine *m = BySlave(run, slave);
    struct run_proc *p = m ? FindProc(run, m, app, index) : NULL;
    if (p == NULL)
        return;
    p->pid = pid;
    Tcl_Obj *kv = Tcl_NewDictObj();
    Ips2Put(kv, "app", Ips2Str(app));
    Ips2Put(kv, "index", Tcl_NewIntObj(index));
    Ips2Put(kv, "pid", Tcl_NewIntObj(pid));
    Progress(run, m->name, "started", kv);
    if (p->ready == NULL && p->readiness == RR_WAIT) {
        p->readiness = RR_READY;
        Order(run);
    }
}

static void OnNote(void *arg, int slave, const char *text)
{
    struct run *run = arg;
    struct run_machine *m = BySlave(run, slave);
    if (m == NULL)
        return;
    Tcl_ListObjAppendElement(NULL, run->notes, Tcl_ObjPrintf("%s: %s", m->name, text));
    Tcl_Obj *kv = Tcl_NewDictObj();
    Ips2Put(kv, "text", Ips2Str(text));
    Progress(run, m->name, "note", kv);
}

/* A PAG part a slave wrote: one this host does not see (the slave's
 * host keeps its own storage) is listed in SESSION/pag/parts.remote, one
 * path a line, so that the session's critical path asks for it on the
 * slaves (cpa_session.c); only a part file of SESSION/pag/ is taken. */
static void OnPart(void *arg, int slave, const char *path)
{
    struct run *run = arg;
    const char *dir = Tcl_GetString(run->session);
    size_t n = strlen(dir);
    if (BySlave(run, slave) == NULL || strncmp(path, dir, n) != 0 ||
        strncmp(path + n, "/pag/", 5) != 0 || strchr(path + n + 5, '/') != NULL ||
        strchr(path, '\n') != NULL || access(path, F_OK) == 0)
        return;
    char list[PATH_MAX];
    snprintf(list, sizeof list, "%s/pag", dir);
    mkdir(list, 0777);
    snprintf(list, sizeof list, "%s/pag/parts.remote", dir);
    FILE *f = fopen(list, "a");
    if (f == NULL) {
        Ips2RunProblem(run, "master", "%s: %s", list, strerror(errno));
        return;
    }
    fprintf(f, "%s\n", path);
    fclose(f);
}

static void OnReady(void *arg, int slave, const char *app, int index, int ok, const char *text)
{
    struct run *run = arg;
    struct run_machine *m = BySlave(run, slave);
    struct run_proc *p = m ? FindProc(run, m, app, index) : NULL;
    if (p == NULL)
        return;
    if (ok)
        p->readiness = p->readiness == RR_WAIT ? RR_READY : p->readiness;
    else {
        if (p->readiness == RR_WAIT)
            p->readiness = RR_NOT;
        if (p->pid > 0)
            Ips2RunProblem(run, m->name, "%s.%d (pid %d) %s", app, index, p->pid, text);
        else
            Ips2RunProblem(run, m->name, "%s.%d %s", app, index, text);
    }
    Tcl_Obj *kv = Tcl_NewDictObj();
    Ips2Put(kv, "app", Ips2Str(app));
    Ips2Put(kv, "index", Tcl_NewIntObj(index));
    Ips2Put(kv, "ok", Tcl_NewIntObj(ok != 0));
    Ips2Put(kv, "text", Ips2Str(text));
    Progress(run, m->name, "ready", kv);
    Order(run);
}

static void OnExited(void *arg, int slave, const char *app, int index, int pid, int how, int code,
                     const char *text)
{
    struct run *run = arg;
    struct run_machine *m = BySlave(run, slave);
    struct run_proc *p = m ? FindProc(run, m, app, index) : NULL;
    if (p == NULL)
        return;
    if (pid > 0)
        p->pid = pid;
    Tcl_Obj *status = Tcl_NewListObj(0, NULL);
    char who[256];
    if (pid > 0)
        snprintf(who, sizeof who, "%s.%d (pid %d)", app, index, pid);
    else
        snprintf(who, sizeof who, "%s.%d", app, index);
    switch (how) {
    case IPS2_PROC_EXITED:
        Tcl_ListObjAppendElement(NULL, status, Ips2Str("exited"));
        Tcl_ListObjAppendElement(NULL, status, Tcl_NewIntObj(code));
        /* stopped by its stop condition: ending on it is no problem */
        if (code != 0 && !(p->stopped && code == 128 + p->stop_signal))
            Ips2RunProblem(run, m->name, "%s exited with status %d", who, code);
        break;
    case IPS2_PROC_SIGNALED: {
        const char *abbrev = sigabbrev_np(code);
        Tcl_ListObjAppendElement(NULL, status, Ips2Str("signal"));
        Tcl_ListObjAppendElement(NULL, status, Tcl_NewIntObj(code));
        if (p->stopped && code == SIGKILL && p->stop_signal != SIGKILL) {
            const char *first = sigabbrev_np(p->stop_signal);
            Ips2RunProblem(run, m->name,
                           "%s did not end within %lld ms of SIG%s (its stop condition): "
                           "killed by SIGKILL",
                           who, (long long)p->stop_grace_ms, first ? first : "?");
        } else if (!(p->stopped && code == p->stop_signal))
            Ips2RunProblem(run, m->name, "%s killed by signal %d (SIG%s)", who, code,
                           abbrev ? abbrev : "?");
        break;
    }
    case IPS2_PROC_FAILED:
        Tcl_ListObjAppendElement(NULL, status, Ips2Str("failed"));
        Tcl_ListObjAppendElement(NULL, status, Ips2Str(text));
        Ips2RunProblem(run, m->name, "%s did not start: %s", who, text);
        break;
    default: {
        const char *abbrev = sigabbrev_np(code);
        Tcl_ListObjAppendElement(NULL, status, Ips2Str("timeout"));
        if (code == 0) /* it exited on the SIGTERM: text says so */
            Ips2RunProblem(run, m->name, "%s %s", who, text);
        else
            Ips2RunProblem(run, m->name, "%s %s; ended by SIG%s", who, text, abbrev ? abbrev : "?");
        break;
    }
    }
    Release(&p->status);
    p->status = status;
    Tcl_IncrRefCount(status);
    Tcl_Obj *kv = Tcl_NewDictObj();
    Ips2Put(kv, "app", Ips2Str(app));
    Ips2Put(kv, "index", Tcl_NewIntObj(index));
    Ips2Put(kv, "pid", Tcl_NewIntObj(pid));
    Ips2Put(kv, "status", status);
    Progress(run, m->name, "exited", kv);
    if (p->readiness == RR_WAIT)
        p->readiness = RR_NOT;
    Order(run);
}

static void OnProgress(void *arg, int slave, const char *stage, int64_t done, int64_t total)
{
    struct run *run = arg;
    struct run_machine *m = BySlave(run, slave);
    if (m == NULL)
        return;
    snprintf(m->stage, sizeof m->stage, "%s", stage);
    if (strcmp(stage, "packing") == 0)
        m->packing = true;
    Tcl_Obj *kv = Tcl_NewDictObj();
    Ips2Put(kv, "stage", Ips2Str(stage));
    Ips2Put(kv, "done", Tcl_NewWideIntObj(done));
    Ips2Put(kv, "total", Tcl_NewWideIntObj(total));
    Progress(run, m->name, "stage", kv);
}

static void OnProblem(void *arg, int slave, const char *text)
{
    struct run *run = arg;
    struct run_machine *m = BySlave(run, slave);
    if (m == NULL)
        return;
    Ips2RunProblem(run, m->name, "%s", text);
    Tcl_Obj *kv = Tcl_NewDictObj();
    Ips2Put(kv, "text", Ips2Str(text));
    Progress(run, m->name, "problem", kv);
}

/* Writes data to path through path.tmp; 0 or -1. */
static int WriteFile(const char *path, const void *data, size_t size)
{
    char tmp[PATH_MAX + 8];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (f == NULL)
        return -1;
    int ok = fwrite(data, 1, size, f) == size;
    ok &= fclose(f) == 0;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

static void OnReductions(void *arg, int slave, int query, void *data, size_t size)
{
    struct run *run = arg;
    struct run_machine *m = BySlave(run, slave);
    if (m != NULL && query > 0) {
        QueryAnswer(run, query, data, size, NULL);
        return;
    }
    if (m == NULL || query != 0) {
        free(data);
        return;
    }
    char path[PATH_MAX], err[IPS2_ERR_MAX];
    snprintf(path, sizeof path, "%s/reductions/%s.red", Tcl_GetString(run->session), m->name);
    if (WriteFile(path, data, size) != 0)
        Ips2RunProblem(run, m->name, "cannot write %s", path);
    err[0] = '\0';
    struct ips2_reductions *r = ips2_reductions_decode(data, size, path, err);
    if (r == NULL) {
        char bad[PATH_MAX + 8];
        snprintf(bad, sizeof bad, "%s.bad", path);
        rename(path, bad);
        Ips2RunProblem(run, m->name, "its reductions are unreadable (kept as %s): %s", bad, err);
    } else {
        ips2_reductions_free(m->red);
        m->red = r;
        for (size_t i = 0; i < r->nproblems; i++)
            if (r->problems[i] < r->nstrings)
                Ips2RunProblem(run, m->name, "%s", r->strings[r->problems[i]]);
    }
    free(data);
    Tcl_Obj *kv = Tcl_NewDictObj();
    Ips2Put(kv, "bytes", Tcl_NewWideIntObj((Tcl_WideInt)size));
    Progress(run, m->name, "reductions", kv);
}

/* The answer to the phase query waiting in SlaveReduce(). */
static void QueryAnswer(struct run *run, int query, void *data, size_t size, const char *why)
{
    if (query != run->query || run->query_done) {
        free(data);
        return;
    }
    run->query_done = true;
    run->query_data = data;
    run->query_size = size;
    snprintf(run->query_err, sizeof run->query_err, "%s", why ? why : "");
}

static void OnQueryFailed(void *arg, int slave, int query, const char *why)
{
    (void)slave;
    QueryAnswer(arg, query, NULL, 0, why);
}

static void OnDone(void *arg, int slave, int query, int ok)
{
    struct run *run = arg;
    struct run_machine *m = BySlave(run, slave);
    if (m == NULL || query != 0)
        return;
    Tcl_Obj *kv = Tcl_NewDictObj();
    Ips2Put(kv, "ok", Tcl_NewIntObj(ok));
    Progress(run, m->name, "done", kv);
    MachineOver(run, m, ok ? M_DONE : M_FAILED);
}

/* PACKED: the slave's packing ended; its streams are packed (or those
 * it reported stay raw). */
static void OnPacked(void *arg, int slave, int packed, int raw, int64_t cpu_ns)
{
    struct run *run = arg;
    struct run_machine *m = BySlave(run, slave);
    if (m == NULL)
        return;
    m->packing = false;
    Tcl_Obj *kv = Tcl_NewDictObj();
    Ips2Put(kv, "packed", Tcl_NewIntObj(packed));
    Ips2Put(kv, "raw", Tcl_NewIntObj(raw));
    Ips2Put(kv, "cpu", Tcl_NewDoubleObj((double)cpu_ns / 1e9));
    Progress(run, m->name, "packed", kv);
}

static void OnDied(void *arg, int slave, const char *why)
{
    struct run *run = arg;
    struct run_machine *m = BySlave(run, slave);
    if (m == NULL || m->state == M_DONE || m->state == M_FAILED)
        return;
    Ips2RunProblem(run, m->name, "slave died while %s (%s)", m->stage, why);
    Tcl_Obj *kv = Tcl_NewDictObj();
    Ips2Put(kv, "stage", Ips2Str(m->stage));
    Ips2Put(kv, "text", Ips2Str(why));
    Progress(run, m->name, "died", kv);
    int mi = (int)(m - run->machines);
    for (int i = 0; i < run->nprocs; i++)
        if (run->procs[i].replay < 0 && run->procs[i].machine == mi &&
            run->procs[i].readiness == RR_WAIT)
            run->procs[i].readiness = RR_NOT;
    MachineOver(run, m, M_FAILED);
    Order(run); /* the other machines' processes waiting for these */
}

static const struct ips2_slave_events Events = {
    .hello = OnHello,
    .clock = OnClock,
    .started = OnStarted,
    .exited = OnExited,
    .ready = OnReady,
    .note = OnNote,
    .part = OnPart,
    .progress = OnProgress,
    .problem = OnProblem,
    .reductions = OnReductions,
    .done = OnDone,
    .packed = OnPacked,
    .died = OnDied,
    .ended = OnEnded,
    .query_failed = OnQueryFailed,
};

/* --- callbacks into Tcl ------------------------------------------------------ */

/* Calls the -progress command with the event dict (kv is consumed). */
static void Progress(struct run *run, const char *machine, const char *event, Tcl_Obj *kv)
{
    Tcl_IncrRefCount(kv);
    if (run->progress_cmd != NULL) {
        Tcl_Obj *ev = Tcl_NewDictObj();
        Ips2Put(ev, "machine", Ips2Str(machine));
        Ips2Put(ev, "event", Ips2Str(event));
        Tcl_DictSearch s;
        Tcl_Obj *k, *v;
        int done;
        Tcl_DictObjFirst(NULL, kv, &s, &k, &v, &done);
        for (; !done; Tcl_DictObjNext(&s, &k, &v, &done))
            Tcl_DictObjPut(NULL, ev, k, v);
        Tcl_DictObjDone(&s);
        Tcl_Obj *cmd = Tcl_DuplicateObj(run->progress_cmd);
        Tcl_IncrRefCount(cmd);
        Tcl_ListObjAppendElement(NULL, cmd, ev);
        Tcl_Preserve(run->interp);
        if (Tcl_EvalObjEx(run->interp, cmd, TCL_EVAL_GLOBAL) != TCL_OK)
            Tcl_BackgroundException(run->interp, TCL_ERROR);
        Tcl_Release(run->interp);
        Tcl_DecrRefCount(cmd);
    }
    Tcl_DecrRefCount(kv);
}

static Tcl_Obj *ResultDict(struct run *run)
{
    static const char *const states[] = {"planned", "running", "done", "failed"};
    Tcl_Obj *d = Tcl_NewDictObj(), *machines = Tcl_NewDictObj();
    Ips2Put(d, "session", run->session);
    Ips2Put(d, "problems", run->problems);
    Ips2Put(d, "notes", run->notes);
    for (int i = 0; i < run->nmachines; i++) {
        const struct run_machine *m = &run->machines[i];
        Tcl_Obj *md = Tcl_NewDictObj();
        Ips2Put(md, "host", Ips2Str(m->host));
        Ips2Put(md, "state", Ips2Str(states[m->state]));
        Ips2Put(md, "stage", Ips2Str(m->stage));
        Tcl_DictObjPut(NULL, machines, Ips2Str(m->name), md);
    }
    Ips2Put(d, "machines", machines);
    Tcl_Obj *pvm = Tcl_NewDictObj();
    Ips2Put(pvm, "mode", Ips2Str(run->pvm_private ? "private" : "join"));
    Ips2Put(pvm, "pid", Tcl_NewIntObj((int)run->pvmd_pid));
    Ips2Put(d, "pvmd", pvm);
    return d;
}

/* The slaves are gone (or would not go, or stay for the session's phase
 * queries): shifts, manifest, leave PVM unless kept, tell the caller. */
static void Close(ClientData cd)
{
    struct run *run = cd;
    Tcl_Interp *interp = run->interp;
    if (run->close_timer != NULL)
        Tcl_DeleteTimerHandler(run->close_timer);
    run->close_timer = NULL;
    Ips2RunShifts(run);
    run->finished = true;
    if (!run->keep)
        Shutdown(run);
    if (Ips2RunWriteManifest(run) != TCL_OK) {
        Ips2RunProblem(run, "master", "cannot write the manifest: %s",
                       Tcl_GetString(Tcl_GetObjResult(interp)));
        Tcl_ResetResult(interp);
    }
    RunAssoc *assoc = Tcl_GetAssocData(interp, ASSOC_KEY, NULL);
    if (assoc != NULL && assoc->active == run)
        assoc->active = NULL;
    if (run->done_cmd != NULL) {
        Tcl_Obj *cmd = Tcl_DuplicateObj(run->done_cmd);
        Tcl_IncrRefCount(cmd);
        Tcl_ListObjAppendElement(NULL, cmd, ResultDict(run));
        Tcl_Preserve(interp);
        if (Tcl_EvalObjEx(interp, cmd, TCL_EVAL_GLOBAL) != TCL_OK)
            Tcl_BackgroundException(interp, TCL_ERROR);
        Tcl_Release(interp);
        Tcl_DecrRefCount(cmd);
        FreeRun(run);
    }
    /* without -done, RunObjCmd is waiting for run->finished */
}

/* Every machine is over: tell the slaves to quit and close when they have
 * (at most SLAVE_QUIT_MS later, or later still while one packs: it quits
 * once it has packed). */
#define SLAVE_QUIT_MS 5000

/* Whether a live slave still packs the run's traces. */
static bool Packing(const struct run *run)
{
    for (int i = 0; i < run->nmachines; i++) {
        const struct run_machine *m = &run->machines[i];
        if (m->packing && !run->shut && run->slaves != NULL &&
            ips2_slaves_alive(run->slaves, m->slave))
            return true;
    }
    return false;
}

static void CloseTimer(ClientData cd)
{
    struct run *run = cd;
    run->close_timer = NULL;
    if (Packing(run))
        run->close_timer = Tcl_CreateTimerHandler(SLAVE_QUIT_MS, CloseTimer, run);
    else
        Close(run);
}

static void Finish(ClientData cd)
{
    struct run *run = cd;
    if (run->keep) { /* the slaves stay for the session */
        Close(run);
        return;
    }
    run->closing = true;
    ips2_slaves_quit_all(run->slaves);
    if (ips2_slaves_live(run->slaves) == 0)
        Close(run);
    else
        run->close_timer = Tcl_CreateTimerHandler(SLAVE_QUIT_MS, CloseTimer, run);
}

static void OnEnded(void *arg, int slave)
{
    struct run *run = arg;
    struct run_machine *m = BySlave(run, slave);
    if (m != NULL && m->packing) { /* its results are in: only the packing is cut short */
        static const char why[] = "its task ended";
        m->packing = false;
        Ips2RunProblem(run, m->name,
                       "slave died while packing (%s): the streams it had not packed stay raw",
                       why);
        Tcl_Obj *kv = Tcl_NewDictObj();
        Ips2Put(kv, "stage", Ips2Str("packing"));
        Ips2Put(kv, "text", Ips2Str(why));
        Progress(run, m->name, "died", kv);
    }
    if (run->closing && !run->close_pending && ips2_slaves_live(run->slaves) == 0) {
        run->close_pending = true;
        if (run->close_timer != NULL)
            Tcl_DeleteTimerHandler(run->close_timer);
        run->close_timer = NULL;
        Tcl_DoWhenIdle(Close, run);
    }
}

static void MaybeFinish(struct run *run)
{
    if (run->finishing)
        return;
    for (int i = 0; i < run->nmachines; i++)
        if (run->machines[i].state != M_DONE && run->machines[i].state != M_FAILED)
            return;
    run->finishing = true;
    Tcl_DoWhenIdle(Finish, run);
}

/* --- starting ---------------------------------------------------------------- */

/* Sends a machine's slave everything it has to do. */
static void SendWork(struct run *run, struct run_machine *m)
{
    int mi = (int)(m - run->machines);
    struct ips2_slaves *s = run->slaves;
    ips2_slaves_config(s, m->slave, Tcl_GetString(run->session), m->name, m->host, run->start,
                       run->interval_ns, run->grace_ms,
                       run->pvm_private ? IPS2_CONFIG_HALT_ORPHAN : 0);
    for (int i = 0; i < run->nprocs; i++) {
        struct run_proc *p = &run->procs[i];
        if (p->replay >= 0 || p->machine != mi)
            continue;
        Tcl_Size argc = 0, nenv = 0;
        Tcl_Obj **argv = NULL, **env = NULL;
        Tcl_ListObjGetElements(NULL, p->command, &argc, &argv);
        Tcl_ListObjGetElements(NULL, p->env, &nenv, &env);
        const char **a = (const char **)Tcl_Alloc((unsigned)(argc + 1) * sizeof *a);
        const char **names = (const char **)Tcl_Alloc((unsigned)(nenv / 2 + 1) * sizeof *a);
        const char **values = (const char **)Tcl_Alloc((unsigned)(nenv / 2 + 1) * sizeof *a);
        for (Tcl_Size k = 0; k < argc; k++)
            a[k] = Tcl_GetString(argv[k]);
        for (Tcl_Size k = 0; k + 1 < nenv; k += 2) {
            names[k / 2] = Tcl_GetString(env[k]);
            values[k / 2] = Tcl_GetString(env[k + 1]);
        }
        struct ips2_start_order order = {.hold = p->after != NULL,
                                         .ready = "",
                                         .ready_arg = "",
                                         .spawn_size = p->spawn_size,
                                         .spawn_rank = p->spawn_rank};
        Tcl_Obj *kind = NULL, *what = NULL;
        if (p->ready != NULL && Tcl_ListObjIndex(NULL, p->ready, 0, &kind) == TCL_OK &&
            Tcl_ListObjIndex(NULL, p->ready, 1, &what) == TCL_OK && kind != NULL && what != NULL) {
            order.ready = Tcl_GetString(kind);
            order.ready_arg = Tcl_GetString(what);
            order.ready_timeout_ms = (int64_t)(p->ready_timeout_s * 1000.0 + 0.5);
        }
        ips2_slaves_process(s, m->slave, Tcl_GetString(p->app), p->index, Tcl_GetString(p->cwd),
                            (int64_t)(p->timeout_s * 1000.0 + 0.5), (int)argc, a, (int)(nenv / 2),
                            names, values, &order);
        Tcl_Free((char *)a);
        Tcl_Free((char *)names);
        Tcl_Free((char *)values);
    }
    for (int k = 0; k < m->nreplays; k++) {
        struct run_replay *rp = &run->replays[m->replays[k]];
        Tcl_Size napps = 0;
        Tcl_Obj **av = NULL;
        Tcl_ListObjGetElements(NULL, rp->apps, &napps, &av);
        const char **apps = (const char **)Tcl_Alloc((unsigned)(napps + 1) * sizeof *apps);
        for (Tcl_Size i = 0; i < napps; i++)
            apps[i] = Tcl_GetString(av[i]);
        /* the old session's processes of these applications on this machine */
        int nexp = 0;
        const char **eapps = (const char **)Tcl_Alloc((unsigned)(run->nprocs + 1) * sizeof *eapps);
        int *epids = (int *)Tcl_Alloc((unsigned)(run->nprocs + 1) * sizeof *epids);
        size_t plen = strlen(Tcl_GetString(rp->prefix));
        for (int i = 0; i < run->nprocs; i++) {
            struct run_proc *p = &run->procs[i];
            if (p->replay != m->replays[k] || p->machine != mi || p->pid <= 0)
                continue;
            eapps[nexp] = Tcl_GetString(p->app) + plen; /* its old name */
            epids[nexp++] = p->pid;
        }
        Tcl_Obj *dir = Tcl_ObjPrintf("%s/traces/%s", Tcl_GetString(rp->session), m->name);
        Tcl_IncrRefCount(dir);
        ips2_slaves_replay(s, m->slave, Tcl_GetString(rp->session), Tcl_GetString(dir),
                           Tcl_GetString(rp->prefix), (int)napps, apps, nexp, eapps, epids);
        Tcl_DecrRefCount(dir);
        Tcl_Free((char *)apps);
        Tcl_Free((char *)eapps);
        Tcl_Free((char *)epids);
    }
    Tcl_Size nc = 0;
    Tcl_Obj **cv = NULL;
    if (m->collectors != NULL)
        Tcl_ListObjGetElements(NULL, m->collectors, &nc, &cv);
    for (Tcl_Size k = 0; k + 1 < nc; k += 2) {
        Tcl_WideInt ms = 0;
        Tcl_GetWideIntFromObj(NULL, cv[k + 1], &ms);
        ips2_slaves_collector(s, m->slave, Tcl_GetString(cv[k]), (int64_t)ms);
    }
    ips2_slaves_go(s, m->slave);
}

/* sessions/YYYY-MM-DD-a (b, c, ...) in the working directory. */
static Tcl_Obj *DefaultSession(void)
{
    time_t now = time(NULL);
    struct tm tm;
    char date[32];
    localtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%d", &tm);
    for (int i = 0;; i++) {
        char name[64];
        if (i < 26)
            snprintf(name, sizeof name, "sessions/%s-%c", date, 'a' + i);
        else
            snprintf(name, sizeof name, "sessions/%s-%d", date, i);
        if (access(name, F_OK) != 0)
            return Ips2Str(name);
    }
}

/* The workload dict: WORKLOAD itself, or ips2::workload::read of it. */
static Tcl_Obj *ReadWorkload(Tcl_Interp *interp, Tcl_Obj *w, Tcl_Obj *vars)
{
    Tcl_Obj *apps = NULL;
    Tcl_Size n = 0;
    if (Tcl_ListObjLength(NULL, w, &n) == TCL_OK && n % 2 == 0 && n > 0 &&
        Tcl_DictObjGet(NULL, w, Ips2Str("applications"), &apps) == TCL_OK && apps != NULL)
        return w;
    if (Tcl_EvalEx(interp, "package require ips2::workload", -1, TCL_EVAL_GLOBAL) != TCL_OK)
        return NULL;
    Tcl_Obj *cmd[4] = {Ips2Str("::ips2::workload::read"), w, Ips2Str("-vars"),
                       vars ? vars : Tcl_NewObj()};
    return Ips2EvalWords(interp, 4, cmd) == TCL_OK ? Tcl_GetObjResult(interp) : NULL;
}

/* The workload's directories, for a private pvmd's ep= (PVM_PATH): those
 * of the programs run, their working directories, the workload file's;
 * each once, joined by ':' (a directory with ':' cannot be in a path). */
static Tcl_Obj *ExecDirs(struct run *run)
{
    Tcl_Obj *list = Tcl_NewListObj(0, NULL), *out = Tcl_NewObj();
    Tcl_IncrRefCount(list);
    Tcl_IncrRefCount(out);
    for (int pass = 0; pass < 3; pass++) {
        for (int i = 0; i < (pass == 2 ? 1 : run->nprocs); i++) {
            Tcl_Obj *dir = NULL, *exe = NULL;
            if (pass == 2) {
                if (Tcl_GetCharLength(run->workload_file) > 0)
                    dir = Ips2Str(Tcl_GetString(run->workload_file));
            } else if (run->procs[i].replay < 0 && pass == 1) {
                dir = Tcl_DuplicateObj(run->procs[i].cwd);
            } else if (run->procs[i].replay < 0 &&
                       Tcl_ListObjIndex(NULL, run->procs[i].command, 0, &exe) == TCL_OK &&
                       exe != NULL && Tcl_GetString(exe)[0] == '/') {
                dir = Tcl_DuplicateObj(exe);
            }
            if (dir == NULL)
                continue;
            Tcl_IncrRefCount(dir);
            const char *d = Tcl_GetString(dir);
            const char *slash = pass == 1 ? NULL : strrchr(d, '/');
            Tcl_Obj *name = slash != NULL ? Tcl_NewStringObj(d, slash == d ? 1 : (int)(slash - d))
                                          : Tcl_DuplicateObj(dir);
            Tcl_DecrRefCount(dir);
            Tcl_IncrRefCount(name);
            const char *nd = Tcl_GetString(name);
            Tcl_Size n = 0;
            Tcl_Obj **v = NULL;
            Tcl_ListObjGetElements(NULL, list, &n, &v);
            bool seen = nd[0] != '/' || strchr(nd, ':') != NULL;
            for (Tcl_Size k = 0; k < n && !seen; k++)
                seen = strcmp(Tcl_GetString(v[k]), nd) == 0;
            if (!seen) {
                Tcl_ListObjAppendElement(NULL, list, name);
                if (Tcl_GetCharLength(out) > 0)
                    Tcl_AppendToObj(out, ":", 1);
                Tcl_AppendObjToObj(out, name);
            }
            Tcl_DecrRefCount(name);
        }
    }
    Tcl_DecrRefCount(list);
    Tcl_Obj *result = Tcl_DuplicateObj(out);
    Tcl_DecrRefCount(out);
    Tcl_IncrRefCount(result);
    return result;
}

/* Starts the slaves; TCL_ERROR only if no PVM could be had. */
static int Start(struct run *run)
{
    Tcl_Interp *interp = run->interp;
    char err[1024];
    Tcl_Obj *dirs = ExecDirs(run);
    ips2_vm_exec_path(Tcl_GetString(dirs));
    Tcl_DecrRefCount(dirs);
    bool others = false;
    for (int i = 0; i < run->nmachines; i++)
        others = others || !ips2_vm_host_is_here(run->machines[i].host);
    ips2_vm_for_hosts(others);
    run->vm = ips2_vm_open(run->vm_mode, err, sizeof err);
    ips2_vm_for_hosts(false);
    ips2_vm_exec_path(NULL);
    if (run->vm != NULL) {
        run->pvm_private = run->vm->mode == IPS2_VM_PRIVATE;
        run->pvmd_pid = run->vm->pvmd_pid;
        Tcl_Obj *kv = Tcl_NewDictObj();
        Ips2Put(kv, "mode", Ips2Str(run->pvm_private ? "private" : "join"));
        Ips2Put(kv, "pid", Tcl_NewIntObj(run->pvmd_pid));
        Progress(run, "master", "pvm", kv);
    }
    if (run->vm == NULL) {
        Ips2RunProblem(run, "master", "%s", err);
        Tcl_SetObjResult(interp, Tcl_ObjPrintf("ips2::run: %s", err));
        Tcl_SetErrorCode(interp, "IPS2", "RUN", "PVM", NULL);
        return TCL_ERROR;
    }
    run->slaves =
        ips2_slaves_new(run->vm, Tcl_GetString(run->slave_path), &Events, run, err, sizeof err);
    if (run->slaves == NULL) {
        ips2_vm_close(run->vm, NULL);
        run->vm = NULL;
        Ips2RunProblem(run, "master", "%s", err);
        Tcl_SetObjResult(interp, Tcl_ObjPrintf("ips2::run: %s", err));
        Tcl_SetErrorCode(interp, "IPS2", "RUN", "PVM", NULL);
        return TCL_ERROR;
    }
    const char **hosts = (const char **)Tcl_Alloc((run->nmachines + 1) * sizeof *hosts);
    for (int i = 0; i < run->nmachines; i++)
        hosts[i] = run->machines[i].host;
    ips2_slaves_add_hosts(run->slaves, hosts, run->nmachines);
    Tcl_Free((char *)hosts);
    for (int i = 0; i < run->nmachines; i++) {
        struct run_machine *m = &run->machines[i];
        m->slave = ips2_slaves_spawn(run->slaves, m->name, m->host, err, sizeof err);
        if (m->slave < 0) {
            snprintf(m->stage, sizeof m->stage, "starting");
            Ips2RunProblem(run, m->name, "%s", err);
            m->state = M_FAILED;
            continue;
        }
        m->state = M_RUNNING;
        Tcl_Obj *kv = Tcl_NewDictObj();
        Ips2Put(kv, "host", Ips2Str(m->host));
        Progress(run, m->name, "spawned", kv);
        SendWork(run, m);
    }
    MaybeFinish(run); /* when no slave could start at all */
    return TCL_OK;
}

static void DeleteAssoc(ClientData cd, Tcl_Interp *interp)
{
    RunAssoc *assoc = cd;
    (void)interp;
    if (assoc->kept != NULL)
        assoc->kept->assoc = NULL;
    Tcl_Free((char *)cd);
}

/* --- the session's phase queries ---------------------------------------------- */

/*
 *----------------------------------------------------------------------
 *
 * SlaveReduce --
 *
 *	The reducer of a session that ips2::run opened (master/ips2_master.h
 *	ips2_reduce_fn): asks the slave of the machine, where the traces
 *	are, to reduce one trace directory for a phase, and serves the event
 *	loop until it answers (so a GUI stays live).  Without a live slave
 *	(it died, or the run was shut down) it reduces in this process.
 *
 * Results:
 *	0 with *out set, or -1 with err set.
 *
 *----------------------------------------------------------------------
 */
static int SlaveReduce(void *arg, const char *machine, const char *trace_dir,
                       int64_t session_start_real, int64_t phase_start_ns, int64_t phase_end_ns,
                       uint64_t interval_ns, struct ips2_reductions **out, char *err)
{
    struct run *run = arg;
    int mi = Ips2RunMachine(run, machine);
    struct run_machine *m = mi >= 0 ? &run->machines[mi] : NULL;
    *out = NULL;
    Tcl_Preserve(run);
    if (!run->shut && m != NULL && m->slave >= 0 && run->query == 0 &&
        ips2_slaves_alive(run->slaves, m->slave)) {
        int q = ++run->next_query;
        run->query = q;
        run->query_done = false;
        run->query_data = NULL;
        run->query_err[0] = '\0';
        if (ips2_slaves_reduce(run->slaves, m->slave, q, trace_dir, session_start_real,
                               phase_start_ns, phase_end_ns, (int64_t)interval_ns) >= 0) {
            while (!run->query_done && !run->shut && ips2_slaves_alive(run->slaves, m->slave))
                Tcl_DoOneEvent(TCL_ALL_EVENTS);
        }
        run->query = 0;
        if (run->query_done) {
            int rc = -1;
            if (run->query_data != NULL) {
                *out = ips2_reductions_decode(run->query_data, run->query_size, machine, err);
                rc = *out != NULL ? 0 : -1;
            } else {
                snprintf(err, IPS2_ERR_MAX, "%s", run->query_err);
            }
            free(run->query_data);
            run->query_data = NULL;
            Tcl_Release(run);
            return rc;
        }
        /* the slave went away: do it here */
    }
    Tcl_Release(run);
    return ips2_reduce_here(NULL, machine, trace_dir, session_start_real, phase_start_ns,
                            phase_end_ns, interval_ns, out, err);
}

static void ExitProc(ClientData cd)
{
    Shutdown(cd);
}

/* Waits (serving the event loop) for the kept run's slaves to have
 * packed; they are told to quit first, and a slave told to quit while it
 * packs ends after PACKED, its packer hurried. */
static void WaitPacked(struct run *run)
{
    Tcl_Preserve(run);
    if (Packing(run))
        ips2_slaves_quit_all(run->slaves);
    while (Packing(run))
        Tcl_DoOneEvent(TCL_ALL_EVENTS);
    Tcl_Release(run);
}

/* The session that kept the slaves is closed: once they have packed. */
static void ReleaseRun(void *arg)
{
    struct run *run = arg;
    Tcl_DeleteExitHandler(ExitProc, run);
    WaitPacked(run);
    Shutdown(run);
    if (run->assoc != NULL && run->assoc->kept == run)
        run->assoc->kept = NULL;
    FreeRun(run);
}

/*
 *----------------------------------------------------------------------
 *
 * RunObjCmd --
 *
 *	Implements ips2::run (see the top of this file).
 *
 * Results:
 *	A standard Tcl result: the session (without -done) or its
 *	directory (with -done).
 *
 * Side effects:
 *	Makes the session directory, starts or joins a pvmd, runs the
 *	workload's processes through the slaves.
 *
 *----------------------------------------------------------------------
 */
static int RunObjCmd(ClientData cd, /* RunAssoc of the interp */
                     Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    RunAssoc *assoc = cd;
    static const char *const options[] = {"-session", "-progress", "-done",  "-pvm",
                                          "-slave",   "-vars",     "-grace", NULL};
    enum { O_SESSION, O_PROGRESS, O_DONE, O_PVM, O_SLAVE, O_VARS, O_GRACE };
    static const char *const modes[] = {"auto", "join", "private", NULL};

    if (objc < 2 || objc % 2 != 0) {
        Tcl_WrongNumArgs(interp, 1, objv,
                         "workload ?-session dir? ?-progress cmd? ?-done cmd? "
                         "?-pvm auto|join|private? ?-slave path? ?-vars {name value ...}? "
                         "?-grace ms?");
        return TCL_ERROR;
    }
    if (assoc->active != NULL) {
        Tcl_SetObjResult(interp, Ips2Str("ips2::run: a run is in progress (one at a time)"));
        Tcl_SetErrorCode(interp, "IPS2", "RUN", "BUSY", NULL);
        return TCL_ERROR;
    }
    Tcl_Obj *session = NULL, *progress = NULL, *done = NULL, *slave = NULL, *vars = NULL;
    int mode = IPS2_VM_AUTO, grace = 2000;
    for (int i = 2; i < objc; i += 2) {
        int index;
        if (Tcl_GetIndexFromObj(interp, objv[i], options, "option", 0, &index) != TCL_OK)
            return TCL_ERROR;
        Tcl_Obj *v = objv[i + 1];
        switch (index) {
        case O_SESSION:
            session = v;
            break;
        case O_PROGRESS:
            progress = v;
            break;
        case O_DONE:
            done = v;
            break;
        case O_PVM:
            if (Tcl_GetIndexFromObj(interp, v, modes, "pvm mode", 0, &mode) != TCL_OK)
                return TCL_ERROR;
            break;
        case O_SLAVE:
            slave = v;
            break;
        case O_VARS:
            vars = v;
            break;
        case O_GRACE:
            if (Tcl_GetIntFromObj(interp, v, &grace) != TCL_OK)
                return TCL_ERROR;
            break;
        }
    }

    Tcl_Obj *workload = ReadWorkload(interp, objv[1], vars);
    if (workload == NULL)
        return TCL_ERROR;
    Tcl_IncrRefCount(workload);
    if (assoc->kept != NULL) {
        /* libpvm has one connection: the earlier session's slaves go, once
         * they have packed (its phase queries are then reduced here) */
        struct run *kept = assoc->kept;
        WaitPacked(kept);
        if (assoc->kept == kept) /* not closed meanwhile */
            Shutdown(kept);
        assoc->kept = NULL;
    }

    struct run *run = (struct run *)Tcl_Alloc(sizeof *run);
    memset(run, 0, sizeof *run);
    run->interp = interp;
    run->grace_ms = grace < 0 ? 0 : grace;
    run->vm_mode = (enum ips2_vm_mode)mode;
    if (progress != NULL && Tcl_GetCharLength(progress) > 0) {
        run->progress_cmd = progress;
        Tcl_IncrRefCount(progress);
    }
    if (done != NULL && Tcl_GetCharLength(done) > 0) {
        run->done_cmd = done;
        Tcl_IncrRefCount(done);
    }
    run->keep = run->done_cmd == NULL; /* the session it returns keeps the slaves */
    run->assoc = assoc;
    if (slave == NULL) {
        char path[PATH_MAX];
        ips2_slave_path(path, sizeof path);
        slave = Ips2Str(path);
    }
    run->slave_path = slave;
    Tcl_IncrRefCount(run->slave_path);

    int rc = Ips2RunPlan(run, workload);
    Tcl_DecrRefCount(workload);
    if (rc == TCL_OK) {
        Tcl_Obj *dir = session ? session : DefaultSession();
        Tcl_IncrRefCount(dir);
        Tcl_Obj *norm = Tcl_FSGetNormalizedPath(interp, dir);
        run->session = norm ? Tcl_DuplicateObj(norm) : NULL;
        Tcl_DecrRefCount(dir);
        if (run->session == NULL) {
            rc = TCL_ERROR;
        } else {
            Tcl_IncrRefCount(run->session);
            Ips2RunPickStart(run);
            rc = Ips2RunMakeSession(run);
        }
    }
    if (rc == TCL_OK)
        rc = Tcl_EvalEx(interp, "package require ips2::manifest", -1, TCL_EVAL_GLOBAL);
    if (rc == TCL_OK) {
        /* problems found while planning (replays) go to the log now */
        Tcl_Size n;
        Tcl_Obj **pv;
        Tcl_ListObjGetElements(NULL, run->problems, &n, &pv);
        if (n > 0) {
            char path[PATH_MAX];
            snprintf(path, sizeof path, "%s/log", Tcl_GetString(run->session));
            FILE *f = fopen(path, "a");
            for (Tcl_Size i = 0; f != NULL && i < n; i++)
                fprintf(f, "%s\n", Tcl_GetString(pv[i]));
            if (f != NULL)
                fclose(f);
        }
        rc = Ips2RunWriteManifest(run);
    }
    if (rc == TCL_OK)
        rc = Start(run);
    if (rc != TCL_OK) {
        if (run->slaves != NULL)
            ips2_slaves_free(run->slaves);
        if (run->vm != NULL)
            ips2_vm_close(run->vm, NULL);
        FreeRun(run);
        return TCL_ERROR;
    }
    assoc->active = run;

    if (run->done_cmd != NULL) {
        Tcl_SetObjResult(interp, run->session);
        return TCL_OK;
    }
    while (!run->finished)
        Tcl_DoOneEvent(TCL_ALL_EVENTS);
    /* the session: its phase queries go to the slaves while it is open;
     * the slaves and a private pvmd go when it is closed, or at exit */
    if (run->slaves == NULL || ips2_slaves_live(run->slaves) == 0)
        Shutdown(run);
    Tcl_CreateExitHandler(ExitProc, run);
    assoc->kept = run;
    return Ips2_OpenSession(interp, Tcl_GetString(run->session), SlaveReduce, run, ReleaseRun);
}

struct ips2_slaves *Ips2RunSlaves(Tcl_Interp *interp, const struct ips2_model *m, int *own)
{
    RunAssoc *assoc = Tcl_GetAssocData(interp, ASSOC_KEY, NULL);
    struct run *run = assoc == NULL ? NULL : assoc->active ? assoc->active : assoc->kept;
    if (own != NULL)
        *own = 0;
    if (run == NULL || run->shut || run->slaves == NULL)
        return NULL;
    if (own != NULL)
        *own = m != NULL && m->reducer.reduce == SlaveReduce && m->reducer.arg == run;
    return run->slaves;
}

/*
 *	ips2::packing: the machines whose slave still packs the traces of
 *	the run going on, or of the run whose session is open.
 */
static int PackingObjCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    RunAssoc *assoc = cd;
    if (objc != 1) {
        Tcl_WrongNumArgs(interp, 1, objv, "");
        return TCL_ERROR;
    }
    Tcl_Obj *list = Tcl_NewListObj(0, NULL);
    struct run *runs[2] = {assoc->active, assoc->kept};
    for (int k = 0; k < 2; k++) {
        struct run *run = runs[k];
        if (run == NULL || (k == 1 && run == assoc->active) || run->shut || run->slaves == NULL)
            continue;
        for (int i = 0; i < run->nmachines; i++)
            if (run->machines[i].packing && ips2_slaves_alive(run->slaves, run->machines[i].slave))
                Tcl_ListObjAppendElement(NULL, list, Ips2Str(run->machines[i].name));
    }
    Tcl_SetObjResult(interp, list);
    return TCL_OK;
}

int Ips2RunInit(Tcl_Interp *interp)
{
    RunAssoc *assoc = (RunAssoc *)Tcl_Alloc(sizeof *assoc);
    assoc->active = NULL;
    assoc->kept = NULL;
    Tcl_SetAssocData(interp, ASSOC_KEY, DeleteAssoc, assoc);
    if (Tcl_CreateObjCommand(interp, "::ips2::run", RunObjCmd, assoc, NULL) == NULL ||
        Tcl_CreateObjCommand(interp, "::ips2::packing", PackingObjCmd, assoc, NULL) == NULL)
        return TCL_ERROR;
    return TCL_OK;
}
