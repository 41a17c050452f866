/*
 * tcl_session.c - ips2::open and the session objects of the ips2 package
 * (ANALYSTS.md §6).
 *
 * A session object is a command, ::ips2::sessionN, whose client data is
 * an Ips2Session holding the model; its subcommands are dispatched with
 * Tcl_GetIndexFromObjStruct (so unique prefixes work and a bad one gets
 * Tcl's standard message).  "close" deletes the command; the command's
 * delete proc frees the model (and so releases the reducer, which lets
 * the PVM part tell its slaves to quit).  The per-interpreter counter of
 * session names lives in AssocData.
 *
 * The facts subcommands are here (apps, application, machines, processes,
 * problems, info, phase, phases, close); trees and tables are in
 * tcl_tables.c.
 */
#include <stdlib.h>
#include <string.h>

#include "tcl_cpa.h"
#include "tcl_session.h"
#include "tcl_util.h"

#define ASSOC_KEY "ips2::master"

typedef struct MasterData {
    unsigned long serial; /* for session command names */
} MasterData;

static void MasterDataFree(ClientData cd, Tcl_Interp *interp)
{
    (void)interp;
    ckfree(cd);
}

static MasterData *GetMasterData(Tcl_Interp *interp)
{
    MasterData *md = Tcl_GetAssocData(interp, ASSOC_KEY, NULL);

    if (md == NULL) {
        md = (MasterData *)ckalloc(sizeof(MasterData));
        md->serial = 0;
        Tcl_SetAssocData(interp, ASSOC_KEY, MasterDataFree, md);
    }
    return md;
}

/*
 *----------------------------------------------------------------------
 *
 * SessionDeleted --
 *
 *	Called when a session command is deleted (close, rename to "",
 *	interpreter deletion).
 *
 * Side effects:
 *	Frees the session and its model once no subcommand uses them.
 *
 *----------------------------------------------------------------------
 */
static void SessionFree(char *block)
{
    Ips2Session *s = (Ips2Session *)block;

    Ips2CpaFree(s); /* its slaves quit before the model releases the run's VM */
    ips2_model_free(s->m);
    ckfree(block);
}

static void SessionDeleted(ClientData cd)
{
    /* a subcommand may still be running on it ("close") */
    Tcl_EventuallyFree(cd, SessionFree);
}

/* ------------------------------------------------------------- facts --- */

static const char *const mode_names[] = {"active", "replay", "comparison"};

static int AppsCmd(Ips2Session *s, Tcl_Interp *interp)
{
    Tcl_Obj *list = Tcl_NewListObj(0, NULL);

    for (size_t i = 0; i < s->m->napps; i++)
        Tcl_ListObjAppendElement(NULL, list, Ips2Str(s->m->apps[i].name));
    Tcl_SetObjResult(interp, list);
    return TCL_OK;
}

static int ApplicationCmd(Ips2Session *s, Tcl_Interp *interp, Tcl_Obj *name)
{
    int a = ips2_model_app_index(s->m, Tcl_GetString(name));
    const struct ips2_app_info *app;
    Tcl_Obj *d;

    if (a < 0) {
        Tcl_SetObjResult(interp, Tcl_ObjPrintf("no application \"%s\"", Tcl_GetString(name)));
        Tcl_SetErrorCode(interp, "IPS2", "LOOKUP", "APP", Tcl_GetString(name), NULL);
        return TCL_ERROR;
    }
    app = &s->m->apps[a];
    d = Tcl_NewDictObj();
    Ips2Put(d, "name", Ips2Str(app->name));
    Ips2Put(d, "mode", Ips2Str(mode_names[app->mode]));
    Ips2Put(d, "source", Ips2Str(app->source));
    Ips2Put(d, "shift", Tcl_NewWideIntObj(app->shift_ns));
    Tcl_SetObjResult(interp, d);
    return TCL_OK;
}

static int MachinesCmd(Ips2Session *s, Tcl_Interp *interp)
{
    Tcl_Obj *list = Tcl_NewListObj(0, NULL);

    for (size_t i = 0; i < s->m->nmachines; i++)
        Tcl_ListObjAppendElement(NULL, list, Ips2Str(s->m->machines[i].name));
    Tcl_SetObjResult(interp, list);
    return TCL_OK;
}

/* One dict per process node of every logical tree. */
static int ProcessesCmd(Ips2Session *s, Tcl_Interp *interp)
{
    Tcl_Obj *list = Tcl_NewListObj(0, NULL);

    if (!s->m->indexed) {
        char err[IPS2_ERR_MAX];
        if (ips2_model_index(s->m, err) != 0) {
            Tcl_SetObjResult(interp, Tcl_NewStringObj(err, -1));
            return TCL_ERROR;
        }
    }
    for (size_t a = 0; a < s->m->napps; a++) {
        const struct ips2_node *app = s->m->app_root[a];
        for (size_t i = 0; i < app->nchild; i++) {
            const struct ips2_node *mach = app->child[i];
            for (size_t k = 0; k < mach->nchild; k++) {
                const struct ips2_node *p = mach->child[k];
                Tcl_Obj *d = Tcl_NewDictObj();
                Ips2Put(d, "app", Ips2Str(app->name));
                Ips2Put(d, "machine", Ips2Str(mach->name));
                Ips2Put(d, "pid",
                        Tcl_NewWideIntObj(p->info ? p->info->pid : strtoul(p->name, 0, 10)));
                Ips2Put(d, "index", Tcl_NewIntObj(p->info ? p->info->index : -1));
                if (p->info)
                    Ips2Put(d, "command", Ips2Str(p->info->command));
                else if (p->command)
                    Ips2Put(d, "command", Ips2Str(p->command));
                else
                    Ips2Put(d, "command", Tcl_NewListObj(1, (Tcl_Obj *[]){Ips2Str(p->exe)}));
                Ips2Put(d, "status",
                        Ips2Str(p->info && p->info->status[0] ? p->info->status : p->status));
                Ips2Put(d, "threads", Tcl_NewIntObj((int)p->nthreads));
                Ips2Put(d, "start", Tcl_NewWideIntObj(p->nthreads ? p->start_ns : 0));
                Ips2Put(d, "end", Tcl_NewWideIntObj(p->nthreads ? p->end_ns : 0));
                Ips2Put(d, "cpu", Tcl_NewWideIntObj((Tcl_WideInt)p->m[IPS2_M_CPU]));
                Ips2Put(d, "path", Ips2Str(p->path));
                Tcl_ListObjAppendElement(NULL, list, d);
            }
        }
    }
    Tcl_SetObjResult(interp, list);
    return TCL_OK;
}

static int ProblemsCmd(Ips2Session *s, Tcl_Interp *interp)
{
    Tcl_Obj *list = Tcl_NewListObj(0, NULL);

    for (size_t i = 0; i < s->m->nproblems; i++)
        Tcl_ListObjAppendElement(NULL, list, Ips2Str(s->m->problems[i]));
    Tcl_SetObjResult(interp, list);
    return TCL_OK;
}

static int InfoCmd(Ips2Session *s, Tcl_Interp *interp)
{
    Tcl_Obj *d = Tcl_NewDictObj();

    Ips2Put(d, "dir", Ips2Str(s->m->dir));
    Ips2Put(d, "start", Tcl_NewWideIntObj(s->m->start_real_ns));
    Ips2Put(d, "interval", Tcl_NewWideIntObj((Tcl_WideInt)s->m->interval_ns));
    Tcl_SetObjResult(interp, d);
    return TCL_OK;
}

/* Writes a phase into the session's manifest.tcl, so that it is there
 * when the session reopens; a manifest that cannot be written is one more
 * problem (the phase stays defined in this session). */
static void SavePhase(Ips2Session *s, Tcl_Interp *interp, Tcl_Obj *name, Tcl_Obj *start,
                      Tcl_Obj *end)
{
    Tcl_Obj *cmd[5] = {Ips2Str("::ips2::manifest::save_phase"),
                       Tcl_ObjPrintf("%s/manifest.tcl", s->m->dir), name, start, end};
    if (Tcl_EvalEx(interp, "package require ips2::manifest", -1, TCL_EVAL_GLOBAL) != TCL_OK ||
        Ips2EvalWords(interp, 5, cmd) != TCL_OK)
        ips2_model_problem(s->m, "manifest.tcl: phase %s not saved: %s", Tcl_GetString(name),
                           Tcl_GetStringResult(interp));
}

static int PhaseCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Tcl_WideInt start, end;
    char err[IPS2_ERR_MAX];

    if (objc != 5) {
        Tcl_WrongNumArgs(interp, 2, objv, "name start end");
        return TCL_ERROR;
    }
    if (Tcl_GetWideIntFromObj(interp, objv[3], &start) != TCL_OK ||
        Tcl_GetWideIntFromObj(interp, objv[4], &end) != TCL_OK)
        return TCL_ERROR;
    if (ips2_phase_define(s->m, Tcl_GetString(objv[2]), start, end, err) != 0) {
        Tcl_SetObjResult(interp, Tcl_NewStringObj(err, -1));
        Tcl_SetErrorCode(interp, "IPS2", "PHASE", Tcl_GetString(objv[2]), NULL);
        return TCL_ERROR;
    }
    if (s->m->dir != NULL)
        SavePhase(s, interp, objv[2], objv[3], objv[4]);
    Tcl_ResetResult(interp);
    return TCL_OK;
}

static int PhasesCmd(Ips2Session *s, Tcl_Interp *interp)
{
    Tcl_Obj *list = Tcl_NewListObj(0, NULL);

    for (size_t i = 0; i < s->m->nphases; i++) {
        Tcl_Obj *e[3] = {Ips2Str(s->m->phases[i].name), Tcl_NewWideIntObj(s->m->phases[i].start_ns),
                         Tcl_NewWideIntObj(s->m->phases[i].end_ns)};
        Tcl_ListObjAppendElement(NULL, list, Tcl_NewListObj(3, e));
    }
    Tcl_SetObjResult(interp, list);
    return TCL_OK;
}

/*
 *----------------------------------------------------------------------
 *
 * SessionObjCmd --
 *
 *	The session command: $session subcommand ?arg ...?
 *
 * Results:
 *	A standard Tcl result.
 *
 *----------------------------------------------------------------------
 */
static int SessionObjCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    static const char *const subcmds[] = {
        "application", "apps",         "close",    "gprof",   "histogram", "info",
        "machines",    "metrics",      "npt",      "objects", "phase",     "phases",
        "problems",    "processes",    "profile",  "tree",    "cp",        "cp-zero",
        "cp-path",     "cp-imbalance", "timeline", "async",   "cancel",    NULL};
    enum {
        S_APPLICATION,
        S_APPS,
        S_CLOSE,
        S_GPROF,
        S_HISTOGRAM,
        S_INFO,
        S_MACHINES,
        S_METRICS,
        S_NPT,
        S_OBJECTS,
        S_PHASE,
        S_PHASES,
        S_PROBLEMS,
        S_PROCESSES,
        S_PROFILE,
        S_TREE,
        S_CP, /* the critical-path ones: tcl_cpa.c */
        S_CP_ZERO,
        S_CP_PATH,
        S_CP_IMBALANCE,
        S_TIMELINE,
        S_ASYNC, /* asynchronous queries: tcl_async.c */
        S_CANCEL
    };
    Ips2Session *s = cd;
    int index, rc;

    if (objc < 2) {
        Tcl_WrongNumArgs(interp, 1, objv, "subcommand ?arg ...?");
        return TCL_ERROR;
    }
    if (Tcl_GetIndexFromObjStruct(interp, objv[1], subcmds, sizeof(char *), "subcommand", 0,
                                  &index) != TCL_OK)
        return TCL_ERROR;
    if (objc != 2 &&
        (index == S_APPS || index == S_CLOSE || index == S_INFO || index == S_MACHINES ||
         index == S_PHASES || index == S_PROBLEMS || index == S_PROCESSES)) {
        Tcl_WrongNumArgs(interp, 2, objv, NULL);
        return TCL_ERROR;
    }
    Tcl_Preserve(s);
    switch (index) {
    case S_APPLICATION:
        if (objc != 3) {
            Tcl_WrongNumArgs(interp, 2, objv, "name");
            rc = TCL_ERROR;
        } else {
            rc = ApplicationCmd(s, interp, objv[2]);
        }
        break;
    case S_APPS:
        rc = AppsCmd(s, interp);
        break;
    case S_CLOSE:
        Tcl_DeleteCommandFromToken(interp, s->token);
        rc = TCL_OK;
        break;
    case S_GPROF:
        rc = Ips2GprofCmd(s, interp, objc, objv);
        break;
    case S_HISTOGRAM:
        rc = Ips2HistogramCmd(s, interp, objc, objv);
        break;
    case S_INFO:
        rc = InfoCmd(s, interp);
        break;
    case S_MACHINES:
        rc = MachinesCmd(s, interp);
        break;
    case S_METRICS:
        rc = Ips2MetricsCmd(s, interp, objc, objv);
        break;
    case S_NPT:
        rc = Ips2NptCmd(s, interp, objc, objv);
        break;
    case S_OBJECTS:
        rc = Ips2ObjectsCmd(s, interp, objc, objv);
        break;
    case S_PHASE:
        rc = PhaseCmd(s, interp, objc, objv);
        break;
    case S_PHASES:
        rc = PhasesCmd(s, interp);
        break;
    case S_PROBLEMS:
        rc = ProblemsCmd(s, interp);
        break;
    case S_PROCESSES:
        rc = ProcessesCmd(s, interp);
        break;
    case S_PROFILE:
        rc = Ips2ProfileCmd(s, interp, objc, objv);
        break;
    case S_CP:
    case S_CP_ZERO:
    case S_CP_PATH:
    case S_CP_IMBALANCE:
    case S_TIMELINE:
        rc = Ips2CpaCmd(s, interp, objc, objv);
        break;
    case S_ASYNC:
        rc = Ips2AsyncCmd(s, interp, objc, objv);
        break;
    case S_CANCEL:
        rc = Ips2CancelCmd(s, interp, objc, objv);
        break;
    default:
        rc = Ips2TreeCmd(s, interp, objc, objv);
        break;
    }
    Tcl_Release(s);
    return rc;
}

/* ------------------------------------------------------------- opening --- */

int Ips2_OpenSession(Tcl_Interp *interp, const char *dir, ips2_reduce_fn *reduce, void *arg,
                     void (*release)(void *arg))
{
    MasterData *md = GetMasterData(interp);
    char err[IPS2_ERR_MAX], name[64];
    struct ips2_model *m = Ips2LoadSession(dir, err);
    Ips2Session *s;

    if (m == NULL) {
        if (release)
            release(arg);
        Tcl_SetObjResult(interp, Tcl_NewStringObj(err, -1));
        Tcl_SetErrorCode(interp, "IPS2", "OPEN", dir, NULL);
        return TCL_ERROR;
    }
    m->reducer.reduce = reduce;
    m->reducer.arg = arg;
    m->reducer.release = release;
    s = (Ips2Session *)ckalloc(sizeof(Ips2Session));
    s->interp = interp;
    s->m = m;
    s->cpa = NULL;
    do {
        snprintf(name, sizeof(name), "::ips2::session%lu", ++md->serial);
    } while (Tcl_FindCommand(interp, name, NULL, 0) != NULL);
    s->token = Tcl_CreateObjCommand(interp, name, SessionObjCmd, s, SessionDeleted);
    Tcl_SetObjResult(interp, Tcl_NewStringObj(name, -1));
    return TCL_OK;
}

/*
 *----------------------------------------------------------------------
 *
 * OpenObjCmd --
 *
 *	ips2::open DIR: reopens a session directory without rerunning
 *	anything.
 *
 * Results:
 *	The new session command's name.
 *
 *----------------------------------------------------------------------
 */
static int OpenObjCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Tcl_Obj *norm;

    (void)cd;
    if (objc != 2) {
        Tcl_WrongNumArgs(interp, 1, objv, "dir");
        return TCL_ERROR;
    }
    norm = Tcl_FSGetNormalizedPath(interp, objv[1]);
    if (norm == NULL)
        return TCL_ERROR;
    return Ips2_OpenSession(interp, Tcl_GetString(norm), NULL, NULL, NULL);
}

int Ips2_MasterInit(Tcl_Interp *interp)
{
    if (Tcl_FindNamespace(interp, "::ips2", NULL, 0) == NULL &&
        Tcl_CreateNamespace(interp, "::ips2", NULL, NULL) == NULL)
        return TCL_ERROR;
    GetMasterData(interp);
    Tcl_CreateObjCommand(interp, "::ips2::open", OpenObjCmd, NULL, NULL);
    return Ips2CpaInit(interp);
}
