/*
 * tcl_session.c - ips2::open and the session objects of the ips2 package
 * (ANALYSTS.md §6).
 *
 * A session object is a command, ::ips2::sessionN, whose client data is
 * an Ips2Session holding the model; its subcommands are a table of names
 * and procedures looked up with Tcl_GetIndexFromObjStruct, as Tk's widget
 * commands are (so unique prefixes work and a bad one gets Tcl's standard
 * message listing them).  "close" deletes the command; the command's
 * delete proc frees the model (and so releases the reducer, which lets
 * the PVM part tell its slaves to quit).  The per-interpreter counter of
 * session names lives in AssocData.
 *
 * The facts subcommands are here (apps, application, machines, processes,
 * problems, info, phase, phases, close); trees and tables (with the
 * metric list and the fact tables of `table`) are in tcl_tables.c.
 */
#include <stdlib.h>
#include <string.h>

#include "tcl_cpa.h"
#include "tcl_msg_waits.h"
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

static int AppsCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Tcl_Obj *list = Tcl_NewListObj(0, NULL);

    for (size_t i = 0; i < s->m->napps; i++)
        Tcl_ListObjAppendElement(NULL, list, Ips2Str(s->m->apps[i].name));
    Tcl_SetObjResult(interp, list);
    return TCL_OK;
}

/* $session times: which times the reductions hold (raw, compensated, or
 * mixed when machines differ; REDUCTION.md "Compensated times"), the
 * probes' time counted in the traces and a call's cost (entry and exit,
 * mean over the machines' reductions weighted by their events). */
static int TimesCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    unsigned seen = 0;
    uint64_t probe = 0;
    double cost = 0, events = 0;

    for (size_t i = 0; i < s->m->nslots; i++) {
        const struct ips2_reductions *r = s->m->slots[i].r;
        seen |= 1u << (r->times == IPS2_TIMES_COMPENSATED);
        probe += r->probe_ns;
        if (r->call_cost_ps) {
            cost += (double)r->call_cost_ps / 1e3 * (double)r->events;
            events += (double)r->events;
        }
    }
    Tcl_Obj *d = Tcl_NewDictObj();
    Ips2Put(d, "times", Ips2Str(seen == 3 ? "mixed" : seen == 2 ? "compensated" : "raw"));
    Ips2Put(d, "probe_ns", Tcl_NewWideIntObj((Tcl_WideInt)probe));
    Ips2Put(d, "call_cost_ns", Tcl_NewDoubleObj(events > 0 ? cost / events : 0));
    Tcl_SetObjResult(interp, d);
    return TCL_OK;
}

static int ApplicationCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Tcl_Obj *name = objv[2];
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

static int MachinesCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Tcl_Obj *list = Tcl_NewListObj(0, NULL);

    for (size_t i = 0; i < s->m->nmachines; i++)
        Tcl_ListObjAppendElement(NULL, list, Ips2Str(s->m->machines[i].name));
    Tcl_SetObjResult(interp, list);
    return TCL_OK;
}

/* One dict per process node of every logical tree; NULL with the error in
 * interp's result. */
Tcl_Obj *Ips2ProcessesObj(Ips2Session *s, Tcl_Interp *interp)
{
    Tcl_Obj *list;

    if (!s->m->indexed) {
        char err[IPS2_ERR_MAX];
        if (ips2_model_index(s->m, err) != 0) {
            Tcl_SetObjResult(interp, Tcl_NewStringObj(err, -1));
            return NULL;
        }
    }
    list = Tcl_NewListObj(0, NULL);
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
    return list;
}

static int ProcessesCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Tcl_Obj *list = Ips2ProcessesObj(s, interp);

    if (list == NULL)
        return TCL_ERROR;
    Tcl_SetObjResult(interp, list);
    return TCL_OK;
}

Tcl_Obj *Ips2ProblemsObj(Ips2Session *s)
{
    Tcl_Obj *list = Tcl_NewListObj(0, NULL);

    for (size_t i = 0; i < s->m->nproblems; i++)
        Tcl_ListObjAppendElement(NULL, list, Ips2Str(s->m->problems[i]));
    return list;
}

static int ProblemsCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Tcl_SetObjResult(interp, Ips2ProblemsObj(s));
    return TCL_OK;
}

static int InfoCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
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

/* phase NAME START END ?-save BOOL?: -save 0 defines it for this session
 * object only (a query's phase: the session on disk is not written). */
static int PhaseCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Tcl_WideInt start, end;
    char err[IPS2_ERR_MAX];
    int save = 1;

    if (objc != 5 && (objc != 7 || strcmp(Tcl_GetString(objv[5]), "-save") != 0)) {
        Tcl_WrongNumArgs(interp, 2, objv, "name start end ?-save bool?");
        return TCL_ERROR;
    }
    if (Tcl_GetWideIntFromObj(interp, objv[3], &start) != TCL_OK ||
        Tcl_GetWideIntFromObj(interp, objv[4], &end) != TCL_OK ||
        (objc == 7 && Tcl_GetBooleanFromObj(interp, objv[6], &save) != TCL_OK))
        return TCL_ERROR;
    if (ips2_phase_define(s->m, Tcl_GetString(objv[2]), start, end, err) != 0) {
        Tcl_SetObjResult(interp, Tcl_NewStringObj(err, -1));
        Tcl_SetErrorCode(interp, "IPS2", "PHASE", Tcl_GetString(objv[2]), NULL);
        return TCL_ERROR;
    }
    if (s->m->dir != NULL && save)
        SavePhase(s, interp, objv[2], objv[3], objv[4]);
    Tcl_ResetResult(interp);
    return TCL_OK;
}

Tcl_Obj *Ips2PhasesObj(Ips2Session *s)
{
    Tcl_Obj *list = Tcl_NewListObj(0, NULL);

    for (size_t i = 0; i < s->m->nphases; i++) {
        Tcl_Obj *e[3] = {Ips2Str(s->m->phases[i].name), Tcl_NewWideIntObj(s->m->phases[i].start_ns),
                         Tcl_NewWideIntObj(s->m->phases[i].end_ns)};
        Tcl_ListObjAppendElement(NULL, list, Tcl_NewListObj(3, e));
    }
    return list;
}

static int PhasesCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Tcl_SetObjResult(interp, Ips2PhasesObj(s));
    return TCL_OK;
}

static int CloseCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Tcl_DeleteCommandFromToken(interp, s->token);
    return TCL_OK;
}

/*
 * The subcommands, as Tk's widget commands have them: a table of names and
 * procedures that Tcl_GetIndexFromObjStruct looks up (unique prefixes work;
 * an unknown word gets Tcl's message listing them all), with the number of
 * words each takes after its name checked here when the table says (-1:
 * the procedure checks them).
 */
typedef int Ips2SubcommandProc(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[]);

static const struct Subcommand {
    const char *name;
    Ips2SubcommandProc *proc;
    int min, max;      /* words after the name; min -1: not checked here */
    const char *usage; /* for Tcl_WrongNumArgs */
} subcommands[] = {{"application", ApplicationCmd, 1, 1, "name"},
                   {"apps", AppsCmd, 0, 0, NULL},
                   {"clock", Ips2ClockCmd, -1, 0, NULL},
                   {"close", CloseCmd, 0, 0, NULL},
                   {"gprof", Ips2GprofCmd, -1, 0, NULL},
                   {"histogram", Ips2HistogramCmd, -1, 0, NULL},
                   {"info", InfoCmd, 0, 0, NULL},
                   {"latency", Ips2LatencyCmd, -1, 0, NULL},
                   {"machines", MachinesCmd, 0, 0, NULL},
                   {"metric-list", Ips2MetricListCmd, 0, 0, NULL},
                   {"messages", Ips2MessagesCmd, -1, 0, NULL},
                   {"metrics", Ips2MetricsCmd, -1, 0, NULL},
                   {"npt", Ips2NptCmd, -1, 0, NULL},
                   {"objects", Ips2ObjectsCmd, -1, 0, NULL},
                   {"phase", PhaseCmd, -1, 0, NULL},
                   {"phases", PhasesCmd, 0, 0, NULL},
                   {"problems", ProblemsCmd, 0, 0, NULL},
                   {"processes", ProcessesCmd, 0, 0, NULL},
                   {"profile", Ips2ProfileCmd, -1, 0, NULL},
                   {"table", Ips2FactTableCmd, -1, 0, NULL},
                   {"times", TimesCmd, 0, 0, NULL},
                   {"tree", Ips2TreeCmd, -1, 0, NULL},
                   /* the critical path: tcl_cpa.c */
                   {"cp", Ips2CpaCmd, -1, 0, NULL},
                   {"cp-zero", Ips2CpaCmd, -1, 0, NULL},
                   {"cp-path", Ips2CpaCmd, -1, 0, NULL},
                   {"cp-imbalance", Ips2CpaCmd, -1, 0, NULL},
                   {"timeline", Ips2CpaCmd, -1, 0, NULL},
                   /* the W3 search: tcl_search.c */
                   {"search", Ips2SearchCmd, -1, 0, NULL},
                   /* asynchronous queries: tcl_async.c */
                   {"async", Ips2AsyncCmd, 2, 2, "words callback"},
                   {"cancel", Ips2CancelCmd, 0, 1, "?id?"},
                   {NULL, NULL, 0, 0, NULL}};

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
    Ips2Session *s = cd;
    const struct Subcommand *sub;
    int index, rc;

    if (objc < 2) {
        Tcl_WrongNumArgs(interp, 1, objv, "subcommand ?arg ...?");
        return TCL_ERROR;
    }
    if (Tcl_GetIndexFromObjStruct(interp, objv[1], subcommands, sizeof(subcommands[0]),
                                  "subcommand", 0, &index) != TCL_OK)
        return TCL_ERROR;
    sub = &subcommands[index];
    if (sub->min >= 0 && (objc - 2 < sub->min || objc - 2 > sub->max)) {
        Tcl_WrongNumArgs(interp, 2, objv, sub->usage);
        return TCL_ERROR;
    }
    Tcl_Preserve(s);
    rc = sub->proc(s, interp, objc, objv);
    Tcl_Release(s);
    return rc;
}

/* ------------------------------------------------------------- opening --- */

int Ips2_OpenSession(Tcl_Interp *interp, const char *dir, ips2_reduce_fn *reduce, void *arg,
                     void (*release)(void *arg))
{
    MasterData *md = GetMasterData(interp);
    char err[IPS2_ERR_MAX], name[64];
    struct ips2_model *m = Ips2LoadSession(interp, dir, err);
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
