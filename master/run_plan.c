/*
 * run_plan.c - what a run will do and what it leaves on disk: the plan
 * made from the workload dict (ANALYSTS.md §1, as ips2::workload::read
 * returns it), the replayed sessions read from their manifests, the
 * session directory, its manifest (written through the front end's
 * ips2::manifest package, so one writer and one reader agree on the
 * format) and its log.
 *
 * Replays.  The processes of a replayed application are the old
 * manifest's; the slave of each machine that ran them reduces
 * OLD/traces/MACHINE beside its own traces (a machine that only replays
 * gets a slave too, on its old host).  An application replayed from a
 * session where it was itself replayed has no traces of its own there and
 * is refused with a problem naming the session to replay instead.
 *
 * Time 0 is the realtime when the run starts, or, when nothing runs and
 * some session is replayed in replay mode, that session's time 0 (so its
 * times stay as recorded).  A comparison-mode replay is shifted so that
 * its first process starts with the first process of the active
 * applications (or of the replay-mode ones when none is active), per
 * ANALYSTS.md §4; one shift per replayed session, so its applications
 * keep their timing relative to each other.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "names.h"
#include "run.h"
#include "tcl_util.h"

/* --- dict helpers ---------------------------------------------------------- */

/* The value of key in dict, or NULL with an error naming what. */
static Tcl_Obj *get(Tcl_Interp *interp, Tcl_Obj *dict, const char *key, const char *what)
{
    Tcl_Obj *k = Tcl_NewStringObj(key, -1), *v = NULL;
    Tcl_IncrRefCount(k);
    int rc = Tcl_DictObjGet(interp, dict, k, &v);
    Tcl_DecrRefCount(k);
    if (rc != TCL_OK)
        return NULL;
    if (v == NULL)
        Tcl_SetObjResult(interp, Tcl_ObjPrintf("%s: no \"%s\"", what, key));
    return v;
}

/* Same, for an optional key: NULL without an error when missing. */
static Tcl_Obj *opt(Tcl_Obj *dict, const char *key)
{
    return Ips2DictValue(dict, key);
}

static int get_int(Tcl_Interp *interp, Tcl_Obj *dict, const char *key, const char *what, int *out)
{
    Tcl_Obj *v = get(interp, dict, key, what);
    return v == NULL ? TCL_ERROR : Tcl_GetIntFromObj(interp, v, out);
}

static Tcl_Obj *pair_dict(const char *k1, Tcl_Obj *v1, const char *k2, Tcl_Obj *v2)
{
    Tcl_Obj *d = Tcl_NewDictObj();
    Tcl_DictObjPut(NULL, d, Tcl_NewStringObj(k1, -1), v1);
    Tcl_DictObjPut(NULL, d, Tcl_NewStringObj(k2, -1), v2);
    return d;
}

/* --- machines, processes --------------------------------------------------- */

int Ips2RunMachine(const struct run *run, const char *name)
{
    for (int i = 0; i < run->nmachines; i++)
        if (strcmp(run->machines[i].name, name) == 0)
            return i;
    return -1;
}

static int add_machine(struct run *run, const char *name, const char *host)
{
    int i = Ips2RunMachine(run, name);
    if (i >= 0)
        return i;
    run->machines = (struct run_machine *)Tcl_Realloc(
        (char *)run->machines, (unsigned)(run->nmachines + 1) * sizeof *run->machines);
    struct run_machine *m = &run->machines[run->nmachines];
    memset(m, 0, sizeof *m);
    m->name = strdup(name);
    m->host = strdup(host && host[0] ? host : name);
    m->slave = -1;
    snprintf(m->stage, sizeof m->stage, "starting");
    return run->nmachines++;
}

/* A collector runs beside the processes of its machine (its slave starts
 * it before the first and stops it after the last); on a machine that
 * runs none it would watch nothing. */
static void plan_collector(struct run *run, Tcl_Obj *c)
{
    Tcl_Obj *kind = opt(c, "kind"), *mach = opt(c, "machine"), *interval = opt(c, "interval");
    double ms = 0;
    if (kind == NULL || mach == NULL)
        return;
    if (interval == NULL || Tcl_GetDoubleFromObj(NULL, interval, &ms) != TCL_OK || ms <= 0)
        ms = (double)run->interval_ns / 1e6;
    int mi = Ips2RunMachine(run, Tcl_GetString(mach)), runs = 0;
    for (int i = 0; mi >= 0 && i < run->nprocs; i++)
        runs += run->procs[i].replay < 0 && run->procs[i].machine == mi;
    if (runs == 0) {
        Tcl_ListObjAppendElement(NULL, run->notes,
                                 Tcl_ObjPrintf("%s: collector %s not run: no process runs there",
                                               Tcl_GetString(mach), Tcl_GetString(kind)));
        return;
    }
    struct run_machine *m = &run->machines[mi];
    if (m->collectors == NULL) {
        m->collectors = Tcl_NewListObj(0, NULL);
        Tcl_IncrRefCount(m->collectors);
    }
    Tcl_ListObjAppendElement(NULL, m->collectors, kind);
    Tcl_ListObjAppendElement(NULL, m->collectors, Tcl_NewWideIntObj((Tcl_WideInt)(ms + 0.5)));
}

static struct run_proc *add_proc(struct run *run)
{
    run->procs = (struct run_proc *)Tcl_Realloc((char *)run->procs,
                                                (unsigned)(run->nprocs + 1) * sizeof *run->procs);
    struct run_proc *p = &run->procs[run->nprocs++];
    memset(p, 0, sizeof *p);
    p->replay = -1;
    return p;
}

static void keep(Tcl_Obj **slot, Tcl_Obj *v)
{
    *slot = v;
    if (v != NULL)
        Tcl_IncrRefCount(v);
}

static int app_exists(struct run *run, Tcl_Obj *name)
{
    Tcl_Obj *v = NULL;
    Tcl_DictObjGet(NULL, run->apps, name, &v);
    return v != NULL;
}

/* A list value of at least one element, or NULL. */
static Tcl_Obj *nonempty(Tcl_Obj *v)
{
    Tcl_Size n = 0;
    return v != NULL && Tcl_ListObjLength(NULL, v, &n) == TCL_OK && n > 0 ? v : NULL;
}

/* A process's start order and its application's stop condition
 * (ips2::workload's after, ready, readytimeout; stop). */
static int plan_order(Tcl_Interp *interp, Tcl_Obj *app, Tcl_Obj *pd, const char *what,
                      struct run_proc *p)
{
    static const struct {
        const char *name;
        int sig;
    } sigs[] = {{"TERM", SIGTERM}, {"INT", SIGINT},   {"HUP", SIGHUP},  {"QUIT", SIGQUIT},
                {"KILL", SIGKILL}, {"USR1", SIGUSR1}, {"USR2", SIGUSR2}};
    keep(&p->after, nonempty(opt(pd, "after")));
    Tcl_Obj *ready = nonempty(opt(pd, "ready")), *rt = opt(pd, "readytimeout");
    Tcl_Size n = 0;
    if (ready != NULL) {
        Tcl_Obj *kind = NULL;
        Tcl_ListObjLength(NULL, ready, &n);
        Tcl_ListObjIndex(NULL, ready, 0, &kind);
        if (n != 2 ||
            (strcmp(Tcl_GetString(kind), "tcp") != 0 && strcmp(Tcl_GetString(kind), "file") != 0)) {
            Tcl_SetObjResult(interp, Tcl_ObjPrintf("application %s: ready \"%s\": expected "
                                                   "{tcp PORT} or {file PATH}",
                                                   what, Tcl_GetString(ready)));
            return TCL_ERROR;
        }
    }
    keep(&p->ready, ready);
    Tcl_Obj *spawn = nonempty(opt(pd, "spawn")), *size = NULL, *rank = NULL;
    if (spawn != NULL) {
        size = opt(spawn, "size");
        rank = opt(spawn, "rank");
        if (size == NULL || rank == NULL ||
            Tcl_GetIntFromObj(interp, size, &p->spawn_size) != TCL_OK ||
            Tcl_GetIntFromObj(interp, rank, &p->spawn_rank) != TCL_OK || p->spawn_size < 1 ||
            p->spawn_rank < 0 || p->spawn_rank >= p->spawn_size) {
            Tcl_SetObjResult(interp, Tcl_ObjPrintf("application %s: spawn \"%s\": expected "
                                                   "{size N rank K}",
                                                   what, Tcl_GetString(spawn)));
            return TCL_ERROR;
        }
    }
    p->ready_timeout_s = 60;
    if (rt != NULL && Tcl_GetDoubleFromObj(interp, rt, &p->ready_timeout_s) != TCL_OK)
        return TCL_ERROR;
    Tcl_Obj *stop = nonempty(opt(app, "stop"));
    if (stop == NULL)
        return TCL_OK;
    Tcl_Obj *when = nonempty(opt(stop, "when")), *sig = opt(stop, "signal"),
            *grace = opt(stop, "grace");
    Tcl_WideInt ms = 2000;
    if (when == NULL || (grace != NULL && Tcl_GetWideIntFromObj(interp, grace, &ms) != TCL_OK))
        return when == NULL ? TCL_OK : TCL_ERROR;
    p->stop_signal = SIGTERM;
    if (sig != NULL) {
        p->stop_signal = 0;
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
            if (strcmp(Tcl_GetString(sig), sigs[i].name) == 0)
                p->stop_signal = sigs[i].sig;
        if (p->stop_signal == 0) {
            Tcl_SetObjResult(interp, Tcl_ObjPrintf("application %s: signal \"%s\": expected "
                                                   "TERM, INT, HUP, QUIT, KILL, USR1 or USR2",
                                                   what, Tcl_GetString(sig)));
            return TCL_ERROR;
        }
    }
    keep(&p->stop_when, when);
    p->stop_grace_ms = ms;
    return TCL_OK;
}

/* The active applications and their processes. */
static int plan_applications(struct run *run, Tcl_Obj *workload)
{
    Tcl_Interp *interp = run->interp;
    Tcl_Obj *apps = get(interp, workload, "applications", "workload");
    if (apps == NULL)
        return TCL_ERROR;
    Tcl_DictSearch search;
    Tcl_Obj *name, *app;
    int done;
    if (Tcl_DictObjFirst(interp, apps, &search, &name, &app, &done) != TCL_OK)
        return TCL_ERROR;
    int rc = TCL_OK;
    for (; !done && rc == TCL_OK; Tcl_DictObjNext(&search, &name, &app, &done)) {
        const char *what = Tcl_GetString(name);
        Tcl_Obj *mode = opt(app, "mode");
        if (mode != NULL && strcmp(Tcl_GetString(mode), "active") != 0) {
            Tcl_SetObjResult(interp, Tcl_ObjPrintf("application %s: mode \"%s\": expected active",
                                                   what, Tcl_GetString(mode)));
            rc = TCL_ERROR;
            break;
        }
        Tcl_DictObjPut(NULL, run->apps, name,
                       pair_dict("mode", Tcl_NewStringObj("active", -1), "source", Tcl_NewObj()));
        Tcl_Obj *procs = get(interp, app, "processes", what);
        Tcl_Size n = 0;
        Tcl_Obj **pv = NULL;
        if (procs == NULL || Tcl_ListObjGetElements(interp, procs, &n, &pv) != TCL_OK) {
            rc = TCL_ERROR;
            break;
        }
        for (Tcl_Size i = 0; i < n && rc == TCL_OK; i++) {
            Tcl_Obj *pd = pv[i], *machine = get(interp, pd, "machine", what);
            Tcl_Obj *command = get(interp, pd, "command", what);
            Tcl_Size argc = 0;
            if (machine == NULL || command == NULL ||
                Tcl_ListObjLength(interp, command, &argc) != TCL_OK) {
                rc = TCL_ERROR;
                break;
            }
            if (argc == 0) {
                Tcl_SetObjResult(interp, Tcl_ObjPrintf("application %s: a process without a "
                                                       "command",
                                                       what));
                rc = TCL_ERROR;
                break;
            }
            struct run_proc *p = add_proc(run);
            keep(&p->app, name);
            keep(&p->command, command);
            Tcl_Obj *cwd = opt(pd, "cwd"), *env = opt(pd, "env"), *t = opt(pd, "timeout"),
                    *line = opt(pd, "line");
            keep(&p->cwd, cwd ? cwd : Tcl_NewObj());
            keep(&p->env, env ? env : Tcl_NewObj());
            p->timeout_s = 0;
            if (t != NULL && Tcl_GetDoubleFromObj(interp, t, &p->timeout_s) != TCL_OK) {
                rc = TCL_ERROR;
                break;
            }
            if (line != NULL)
                Tcl_GetIntFromObj(NULL, line, &p->line);
            if (get_int(interp, pd, "index", what, &p->index) != TCL_OK) {
                rc = TCL_ERROR;
                break;
            }
            Tcl_Size nenv = 0;
            if (Tcl_ListObjLength(interp, p->env, &nenv) != TCL_OK || nenv % 2 != 0) {
                Tcl_SetObjResult(interp, Tcl_ObjPrintf("application %s: env \"%s\": expected "
                                                       "NAME VALUE pairs",
                                                       what, Tcl_GetString(p->env)));
                rc = TCL_ERROR;
                break;
            }
            if (plan_order(interp, app, pd, what, p) != TCL_OK) {
                rc = TCL_ERROR;
                break;
            }
            int m = Ips2RunMachine(run, Tcl_GetString(machine));
            p->machine = m >= 0 ? m : add_machine(run, Tcl_GetString(machine), NULL);
        }
    }
    Tcl_DictObjDone(&search);
    return rc;
}

/* Reads a replayed session's manifest through ips2::manifest::read. */
static Tcl_Obj *read_manifest(Tcl_Interp *interp, Tcl_Obj *dir)
{
    Tcl_Obj *cmd[2] = {Ips2Str("::ips2::manifest::read"),
                       Tcl_ObjPrintf("%s/manifest.tcl", Tcl_GetString(dir))};
    if (Ips2EvalWords(interp, 2, cmd) != TCL_OK)
        return NULL;
    Tcl_Obj *m = Tcl_GetObjResult(interp);
    Tcl_IncrRefCount(m);
    Tcl_ResetResult(interp);
    return m;
}

/* One replay line of the workload. */
static int plan_replay(struct run *run, Tcl_Obj *rd)
{
    Tcl_Interp *interp = run->interp;
    Tcl_Obj *dir = get(interp, rd, "session", "replay");
    if (dir == NULL)
        return TCL_ERROR;
    Tcl_Obj *mode = opt(rd, "mode"), *apps = opt(rd, "apps"), *prefix = opt(rd, "prefix"),
            *line = opt(rd, "line");
    int lineno = 0;
    if (line != NULL)
        Tcl_GetIntFromObj(NULL, line, &lineno);
    const char *where = Tcl_GetString(dir);

    Tcl_Obj *m = read_manifest(interp, dir);
    if (m == NULL) {
        Ips2RunProblem(run, "master", "replay of %s: %s", where,
                       Tcl_GetString(Tcl_GetObjResult(interp)));
        Tcl_ResetResult(interp);
        return TCL_OK;
    }
    int rc = TCL_OK;
    Tcl_Obj *old_apps = opt(m, "applications"), *old_procs = opt(m, "processes"),
            *old_machines = opt(m, "machines"), *session = opt(m, "session");
    Tcl_WideInt old_start = 0;
    if (old_apps == NULL || old_procs == NULL || old_machines == NULL || session == NULL ||
        Tcl_GetWideIntFromObj(NULL, session, &old_start) != TCL_OK) {
        Ips2RunProblem(run, "master",
                       "replay of %s: its manifest lacks applications, "
                       "processes, machines or session",
                       where);
        goto out;
    }

    /* the applications replayed: all, or those asked for */
    Tcl_Obj *chosen = Tcl_NewListObj(0, NULL);
    Tcl_IncrRefCount(chosen);
    Tcl_Size nasked = 0;
    if (apps != NULL)
        Tcl_ListObjLength(NULL, apps, &nasked);
    if (nasked == 0) {
        Tcl_DictSearch s;
        Tcl_Obj *k, *v;
        int done;
        Tcl_DictObjFirst(NULL, old_apps, &s, &k, &v, &done);
        for (; !done; Tcl_DictObjNext(&s, &k, &v, &done))
            Tcl_ListObjAppendElement(NULL, chosen, k);
        Tcl_DictObjDone(&s);
    } else {
        Tcl_Obj **av;
        Tcl_ListObjGetElements(NULL, apps, &nasked, &av);
        for (Tcl_Size i = 0; i < nasked; i++) {
            Tcl_Obj *v = NULL;
            Tcl_DictObjGet(NULL, old_apps, av[i], &v);
            if (v == NULL)
                Ips2RunProblem(run, "master", "replay of %s: it has no application %s", where,
                               Tcl_GetString(av[i]));
            else
                Tcl_ListObjAppendElement(NULL, chosen, av[i]);
        }
    }

    run->replays = (struct run_replay *)Tcl_Realloc(
        (char *)run->replays, (unsigned)(run->nreplays + 1) * sizeof *run->replays);
    int r = run->nreplays;
    struct run_replay *rp = &run->replays[r];
    memset(rp, 0, sizeof *rp);
    keep(&rp->session, dir);
    rp->comparison = mode != NULL && strcmp(Tcl_GetString(mode), "comparison") == 0;
    keep(&rp->prefix, prefix ? prefix : Tcl_NewObj());
    keep(&rp->apps, Tcl_NewListObj(0, NULL));
    rp->old_start = old_start;
    rp->line = lineno;
    run->nreplays++;

    Tcl_Size nchosen;
    Tcl_Obj **cv;
    Tcl_ListObjGetElements(NULL, chosen, &nchosen, &cv);
    for (Tcl_Size i = 0; i < nchosen && rc == TCL_OK; i++) {
        Tcl_Obj *info = NULL, *src = NULL;
        Tcl_DictObjGet(NULL, old_apps, cv[i], &info);
        if (info != NULL)
            src = opt(info, "source");
        if (src != NULL && Tcl_GetString(src)[0] != '\0') {
            Ips2RunProblem(run, "master",
                           "replay of %s: %s was itself replayed there from %s; replay that "
                           "session instead",
                           where, Tcl_GetString(cv[i]), Tcl_GetString(src));
            continue;
        }
        Tcl_Obj *newname = Tcl_ObjPrintf("%s%s", Tcl_GetString(rp->prefix), Tcl_GetString(cv[i]));
        Tcl_IncrRefCount(newname);
        if (app_exists(run, newname)) {
            Tcl_SetObjResult(interp,
                             Tcl_ObjPrintf("%s%s%d: replay %s: application %s is already in the "
                                           "workload (use -prefix)",
                                           Tcl_GetString(run->workload_file),
                                           Tcl_GetString(run->workload_file)[0] ? ":" : "line ",
                                           lineno, where, Tcl_GetString(newname)));
            Tcl_DecrRefCount(newname);
            rc = TCL_ERROR;
            break;
        }
        Tcl_ListObjAppendElement(NULL, rp->apps, cv[i]);
        Tcl_DictObjPut(NULL, run->apps, newname,
                       pair_dict("mode",
                                 Tcl_NewStringObj(rp->comparison ? "comparison" : "replay", -1),
                                 "source", dir));

        /* its processes, as the old session recorded them */
        Tcl_Size np;
        Tcl_Obj **pv;
        if (Tcl_ListObjGetElements(NULL, old_procs, &np, &pv) != TCL_OK)
            np = 0;
        for (Tcl_Size k = 0; k < np; k++) {
            Tcl_Obj *app = opt(pv[k], "app"), *mach = opt(pv[k], "machine");
            if (app == NULL || mach == NULL || strcmp(Tcl_GetString(app), Tcl_GetString(cv[i])))
                continue;
            Tcl_Obj *minfo = NULL, *host = NULL;
            Tcl_DictObjGet(NULL, old_machines, mach, &minfo);
            if (minfo != NULL)
                host = opt(minfo, "host");
            int mi = add_machine(run, Tcl_GetString(mach), host ? Tcl_GetString(host) : NULL);
            struct run_machine *rm = &run->machines[mi];
            if (rm->nreplays == 0 || rm->replays[rm->nreplays - 1] != r) {
                rm->replays = (int *)Tcl_Realloc((char *)rm->replays,
                                                 (unsigned)(rm->nreplays + 1) * sizeof(int));
                rm->replays[rm->nreplays++] = r;
            }
            struct run_proc *p = add_proc(run);
            p->replay = r;
            p->machine = mi;
            keep(&p->app, newname);
            Tcl_Obj *v;
            keep(&p->command, (v = opt(pv[k], "command")) ? v : Tcl_NewObj());
            keep(&p->status, (v = opt(pv[k], "status")) ? v : Tcl_NewStringObj("timeout", -1));
            keep(&p->cwd, Tcl_NewObj());
            keep(&p->env, Tcl_NewObj());
            if ((v = opt(pv[k], "index")) != NULL)
                Tcl_GetIntFromObj(NULL, v, &p->index);
            if ((v = opt(pv[k], "pid")) != NULL)
                Tcl_GetIntFromObj(NULL, v, &p->pid);
        }
        Tcl_DecrRefCount(newname);
    }
    Tcl_DecrRefCount(chosen);
out:
    Tcl_DecrRefCount(m);
    return rc;
}

/* Machines' and applications' names become file names in the session
 * (reductions/MACHINE.red, traces/MACHINE, a slave's files): a dict given
 * to ips2::run without the workload reader (the GUI's editor, a script)
 * is refused here as the reader would refuse it, before anything is made. */
static int check_names(struct run *run)
{
    for (int i = 0; i < run->nmachines; i++)
        if (!ips2_is_name(run->machines[i].name)) {
            Tcl_SetObjResult(run->interp,
                             Tcl_ObjPrintf("expected a machine name (letters, digits, \"_\", \".\" "
                                           "and \"-\", at most %d), got \"%.80s\"",
                                           IPS2_NAME_MAX, run->machines[i].name));
            return TCL_ERROR;
        }
    Tcl_DictSearch s;
    Tcl_Obj *name, *app;
    int done;
    if (Tcl_DictObjFirst(run->interp, run->apps, &s, &name, &app, &done) != TCL_OK)
        return TCL_ERROR;
    for (; !done; Tcl_DictObjNext(&s, &name, &app, &done))
        if (!ips2_is_name(Tcl_GetString(name))) {
            Tcl_SetObjResult(run->interp,
                             Tcl_ObjPrintf("expected an application name (letters, digits, \"_\", "
                                           "\".\" and \"-\", at most %d), got \"%.80s\"",
                                           IPS2_NAME_MAX, Tcl_GetString(name)));
            Tcl_DictObjDone(&s);
            return TCL_ERROR;
        }
    return TCL_OK;
}

int Ips2RunPlan(struct run *run, Tcl_Obj *workload)
{
    Tcl_Interp *interp = run->interp;
    Tcl_Obj *file = opt(workload, "file");
    keep(&run->workload_file, file ? file : Tcl_NewObj());
    keep(&run->apps, Tcl_NewDictObj());
    keep(&run->problems, Tcl_NewListObj(0, NULL));
    keep(&run->notes, Tcl_NewListObj(0, NULL));

    Tcl_Obj *options = opt(workload, "options"), *v;
    run->interval_ns = 100000000;
    if (options != NULL && (v = opt(options, "interval")) != NULL) {
        double ms;
        if (Tcl_GetDoubleFromObj(interp, v, &ms) != TCL_OK)
            return TCL_ERROR;
        if (ms > 0)
            run->interval_ns = (int64_t)(ms * 1e6);
    }

    /* machines in the order the workload names them */
    Tcl_Obj *machines = opt(workload, "machines");
    if (machines != NULL) {
        Tcl_DictSearch s;
        Tcl_Obj *k, *m;
        int done;
        if (Tcl_DictObjFirst(interp, machines, &s, &k, &m, &done) != TCL_OK)
            return TCL_ERROR;
        for (; !done; Tcl_DictObjNext(&s, &k, &m, &done)) {
            Tcl_Obj *host = opt(m, "host");
            add_machine(run, Tcl_GetString(k), host ? Tcl_GetString(host) : NULL);
        }
        Tcl_DictObjDone(&s);
    }
    if (plan_applications(run, workload) != TCL_OK)
        return TCL_ERROR;

    Tcl_Obj *replays = opt(workload, "replays");
    Tcl_Size n = 0;
    Tcl_Obj **rv = NULL;
    if (replays != NULL && Tcl_ListObjGetElements(interp, replays, &n, &rv) != TCL_OK)
        return TCL_ERROR;
    if (n > 0) {
        if (Tcl_EvalEx(interp, "package require ips2::manifest", -1, TCL_EVAL_GLOBAL) != TCL_OK)
            return TCL_ERROR;
    }
    for (Tcl_Size i = 0; i < n; i++)
        if (plan_replay(run, rv[i]) != TCL_OK)
            return TCL_ERROR;

    Tcl_Obj *collectors = opt(workload, "collectors");
    Tcl_Size nc = 0;
    Tcl_Obj **cv = NULL;
    if (collectors != NULL && Tcl_ListObjGetElements(NULL, collectors, &nc, &cv) == TCL_OK)
        for (Tcl_Size i = 0; i < nc; i++)
            plan_collector(run, cv[i]);

    if (run->nmachines == 0) {
        /* say why, when replays were refused */
        Tcl_Obj *msg = Tcl_NewStringObj("the workload has nothing to run or replay", -1);
        Tcl_Size np = 0;
        Tcl_Obj **pv = NULL;
        Tcl_ListObjGetElements(NULL, run->problems, &np, &pv);
        for (Tcl_Size i = 0; i < np; i++)
            Tcl_AppendStringsToObj(msg, i ? "; " : ": ", Tcl_GetString(pv[i]), NULL);
        Tcl_SetObjResult(interp, msg);
        return TCL_ERROR;
    }
    return check_names(run);
}

/* --- the session directory --------------------------------------------------- */

static int64_t realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void Ips2RunPickStart(struct run *run)
{
    run->start = realtime_ns();
    for (int i = 0; i < run->nprocs; i++)
        if (run->procs[i].replay < 0)
            return;
    for (int r = 0; r < run->nreplays; r++)
        if (!run->replays[r].comparison) {
            run->start = run->replays[r].old_start;
            return;
        }
}

int Ips2RunMakeSession(struct run *run)
{
    Tcl_Interp *interp = run->interp;
    Tcl_Obj *manifest = Tcl_ObjPrintf("%s/manifest.tcl", Tcl_GetString(run->session));
    Tcl_IncrRefCount(manifest);
    int exists = Tcl_FSAccess(manifest, F_OK) == 0;
    Tcl_DecrRefCount(manifest);
    if (exists) {
        Tcl_SetObjResult(interp, Tcl_ObjPrintf("session %s exists already (choose another "
                                               "-session)",
                                               Tcl_GetString(run->session)));
        return TCL_ERROR;
    }
    const char *session = Tcl_GetString(run->session);
    Tcl_Obj *cmd[6] = {Ips2Str("file"),
                       Ips2Str("mkdir"),
                       run->session,
                       Tcl_ObjPrintf("%s/traces", session),
                       Tcl_ObjPrintf("%s/output", session),
                       Tcl_ObjPrintf("%s/reductions", session)};
    return Ips2EvalWords(interp, 6, cmd);
}

void Ips2RunProblem(struct run *run, const char *machine, const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    Tcl_Obj *line = Tcl_ObjPrintf("%s: %s", machine, text);
    if (Tcl_IsShared(run->problems)) { /* a result given out holds it: late problems (packing) */
        Tcl_Obj *copy = Tcl_DuplicateObj(run->problems);
        Tcl_IncrRefCount(copy);
        Tcl_DecrRefCount(run->problems);
        run->problems = copy;
    }
    Tcl_ListObjAppendElement(NULL, run->problems, line);
    if (run->session == NULL)
        return;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/log", Tcl_GetString(run->session));
    FILE *f = fopen(path, "a");
    if (f != NULL) {
        fprintf(f, "%s\n", Tcl_GetString(line));
        fclose(f);
    }
}

/* --- the manifest ------------------------------------------------------------ */

static Tcl_Obj *status_of(const struct run *run, const struct run_proc *p)
{
    if (p->status != NULL)
        return p->status;
    const struct run_machine *m = &run->machines[p->machine];
    Tcl_Obj *s = Tcl_NewListObj(0, NULL);
    Tcl_ListObjAppendElement(NULL, s, Tcl_NewStringObj("failed", -1));
    if (m->state == M_FAILED)
        Tcl_ListObjAppendElement(NULL, s,
                                 Tcl_ObjPrintf("its slave on %s failed (%s)", m->host, m->stage));
    else if (run->finished || m->state == M_DONE)
        Tcl_ListObjAppendElement(NULL, s, Tcl_NewStringObj("no end reported", -1));
    else
        Tcl_ListObjAppendElement(NULL, s, Tcl_NewStringObj("the run did not finish", -1));
    return s;
}

int Ips2RunWriteManifest(struct run *run)
{
    Tcl_Interp *interp = run->interp;
    Tcl_Obj *m = Tcl_NewDictObj();
    Tcl_IncrRefCount(m);
#define PUT(k, v) Tcl_DictObjPut(NULL, m, Tcl_NewStringObj(k, -1), (v))
    PUT("version", Tcl_NewIntObj(1));
    PUT("session", Tcl_NewWideIntObj(run->start));
    Tcl_Obj *machines = Tcl_NewDictObj();
    for (int i = 0; i < run->nmachines; i++) {
        const struct run_machine *rm = &run->machines[i];
        Tcl_Obj *md = pair_dict("host", Tcl_NewStringObj(rm->host, -1), "offset",
                                Tcl_NewWideIntObj(rm->offset));
        if (rm->has_clock) { /* the slave's CLOCK: offset error rtt exchanges */
            Tcl_Obj *c = Tcl_NewListObj(0, NULL);
            for (int k = 0; k < 4; k++)
                Tcl_ListObjAppendElement(NULL, c, Tcl_NewWideIntObj((Tcl_WideInt)rm->clock[k]));
            Tcl_DictObjPut(NULL, md, Tcl_NewStringObj("clock", -1), c);
        }
        Tcl_DictObjPut(NULL, machines, Tcl_NewStringObj(rm->name, -1), md);
    }
    PUT("machines", machines);
    PUT("applications", run->apps);
    Tcl_Obj *procs = Tcl_NewListObj(0, NULL);
    for (int i = 0; i < run->nprocs; i++) {
        const struct run_proc *p = &run->procs[i];
        Tcl_Obj *d = Tcl_NewDictObj();
        Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("app", -1), p->app);
        Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("machine", -1),
                       Tcl_NewStringObj(run->machines[p->machine].name, -1));
        Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("index", -1), Tcl_NewIntObj(p->index));
        Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("pid", -1), Tcl_NewIntObj(p->pid));
        Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("command", -1), p->command);
        Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("status", -1), status_of(run, p));
        Tcl_ListObjAppendElement(NULL, procs, d);
    }
    PUT("processes", procs);
    Tcl_Obj *replayed = Tcl_NewDictObj();
    for (int r = 0; r < run->nreplays; r++) {
        const struct run_replay *rp = &run->replays[r];
        Tcl_Size n;
        Tcl_Obj **av;
        Tcl_ListObjGetElements(NULL, rp->apps, &n, &av);
        for (Tcl_Size i = 0; i < n; i++)
            Tcl_DictObjPut(NULL, replayed,
                           Tcl_ObjPrintf("%s%s", Tcl_GetString(rp->prefix), Tcl_GetString(av[i])),
                           pair_dict("session", rp->session, "shift",
                                     Tcl_NewWideIntObj(rp->comparison ? rp->shift : 0)));
    }
    PUT("replayed", replayed);
    PUT("phases", Tcl_NewDictObj());
#undef PUT

    Tcl_Obj *cmd[3] = {Ips2Str("::ips2::manifest::write"),
                       Tcl_ObjPrintf("%s/manifest.tcl", Tcl_GetString(run->session)), m};
    int rc = Ips2EvalWords(interp, 3, cmd);
    Tcl_DecrRefCount(m);
    return rc;
}

/* --- comparison shifts ---------------------------------------------------------- */

/* The mode of application name ("active", "replay", "comparison"), or "". */
static const char *mode_of(struct run *run, const char *name)
{
    Tcl_Obj *k = Tcl_NewStringObj(name, -1), *info = NULL, *mode;
    Tcl_IncrRefCount(k);
    Tcl_DictObjGet(NULL, run->apps, k, &info);
    Tcl_DecrRefCount(k);
    if (info == NULL || (mode = opt(info, "mode")) == NULL)
        return "";
    return Tcl_GetString(mode);
}

/* Whether name is one of replay r's applications (as renamed). */
static int of_replay(const struct run_replay *rp, const char *name)
{
    const char *prefix = Tcl_GetString(rp->prefix);
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n) != 0)
        return 0;
    Tcl_Size na;
    Tcl_Obj **av;
    Tcl_ListObjGetElements(NULL, rp->apps, &na, &av);
    for (Tcl_Size i = 0; i < na; i++)
        if (strcmp(name + n, Tcl_GetString(av[i])) == 0)
            return 1;
    return 0;
}

/* The first process start among applications picked by want(). */
static int first_start(struct run *run, int (*want)(struct run *, const char *, void *), void *arg,
                       int64_t *out)
{
    int found = 0;
    for (int i = 0; i < run->nmachines; i++) {
        const struct ips2_reductions *r = run->machines[i].red;
        for (size_t k = 0; r != NULL && k < r->nprocesses; k++) {
            const struct ips2_red_process *p = &r->processes[k];
            if (p->app >= r->nstrings || !want(run, r->strings[p->app], arg))
                continue;
            if (!found || p->start_ns < *out)
                *out = p->start_ns;
            found = 1;
        }
    }
    return found;
}

static int want_mode(struct run *run, const char *app, void *mode)
{
    return strcmp(mode_of(run, app), mode) == 0;
}

static int want_replay(struct run *run, const char *app, void *rp)
{
    return of_replay(rp, app) && strcmp(mode_of(run, app), "comparison") == 0;
}

void Ips2RunShifts(struct run *run)
{
    int64_t ref = 0;
    if (!first_start(run, want_mode, "active", &ref) &&
        !first_start(run, want_mode, "replay", &ref))
        ref = 0;
    for (int r = 0; r < run->nreplays; r++) {
        struct run_replay *rp = &run->replays[r];
        int64_t first = 0;
        if (!rp->comparison)
            continue;
        if (first_start(run, want_replay, rp, &first))
            rp->shift = ref - first;
        else /* no reductions: line the sessions' starts up */
            rp->shift = run->start - rp->old_start;
    }
}
