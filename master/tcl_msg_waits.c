/*
 * tcl_msg_waits.c - the session's message patterns (msg_waits.h) as a
 * table, the way the other tables come back ({columns {{NAME UNIT} ...}
 * rows {...} warnings {...}}, the parts' warnings as the critical path's
 * tables have them):
 *
 *   $s messages ?-app A? ?-phase P? ?-table channels|groups?
 *
 * channels (the default): one row per message channel with its receive,
 * late-sender and late-receiver waits; groups: one row per worker of each
 * master-worker group.  -app keeps the channels with an end in
 * application A, -phase the waits within phase P.  The parts are read in
 * this process, also for a live run's session (no PVM is used).
 */
#include <stdint.h>
#include <string.h>

#include "msg_waits.h"
#include "tcl_cpa.h"
#include "tcl_msg_waits.h"
#include "tcl_util.h"

static int Fail(Tcl_Interp *interp, const char *code, const char *message)
{
    Tcl_SetObjResult(interp, Tcl_NewStringObj(message, -1));
    Tcl_SetErrorCode(interp, "IPS2", "MESSAGES", code, NULL);
    return TCL_ERROR;
}

int Ips2MessagesCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    static const char *const options[] = {"-app", "-phase", "-table", NULL};
    static const char *const tables[] = {"channels", "groups", NULL};
    enum { O_APP, O_PHASE, O_TABLE };
    const char *app = NULL, *phase = NULL;
    int table = 0;

    if (objc % 2 != 0) {
        Tcl_WrongNumArgs(interp, 2, objv, "?-app app? ?-phase phase? ?-table channels|groups?");
        return TCL_ERROR;
    }
    for (int i = 2; i < objc; i += 2) {
        int o;
        if (Tcl_GetIndexFromObjStruct(interp, objv[i], options, sizeof(char *), "option", 0, &o) !=
            TCL_OK)
            return TCL_ERROR;
        if (o == O_APP)
            app = Tcl_GetString(objv[i + 1]);
        else if (o == O_PHASE)
            phase = Tcl_GetString(objv[i + 1]);
        else if (Tcl_GetIndexFromObjStruct(interp, objv[i + 1], tables, sizeof(char *), "table", 0,
                                           &table) != TCL_OK)
            return TCL_ERROR;
    }

    struct msg_waits_request r;
    msg_waits_request_init(&r);
    if (app != NULL && *app != '\0') {
        size_t a = 0;
        while (a < s->m->napps && strcmp(s->m->apps[a].name, app) != 0)
            a++;
        if (a == s->m->napps) {
            Tcl_SetObjResult(interp, Tcl_ObjPrintf("no application \"%s\" in the session", app));
            Tcl_SetErrorCode(interp, "IPS2", "MESSAGES", "APP", NULL);
            return TCL_ERROR;
        }
        r.app = app;
    }
    if (phase != NULL && *phase != '\0') {
        const struct ips2_phase *p = ips2_phase_find(s->m, phase);
        if (p == NULL) {
            Tcl_SetObjResult(
                interp, Tcl_ObjPrintf("no phase \"%s\" (define it with $session phase)", phase));
            Tcl_SetErrorCode(interp, "IPS2", "MESSAGES", "PHASE", NULL);
            return TCL_ERROR;
        }
        r.from = p->start_ns;
        r.to = p->end_ns;
    }

    Ips2Cpa *c = Ips2CpaState(s);
    if (c == NULL)
        return Fail(interp, "MEMORY", "out of memory");
    struct msg_waits *w = NULL;
    struct cpa_error e = {0};
    if (msg_waits_compute(c->core, &r, &w, &e) != 0)
        return Fail(interp, e.code, e.message);
    char err[IPS2_ERR_MAX] = "";
    struct ips2_table *t =
        table == 0 ? msg_waits_channel_table(w, err) : msg_waits_group_table(w, err);
    if (t == NULL) {
        msg_waits_free(w);
        return Fail(interp, "MEMORY", err);
    }
    Tcl_Obj *result = Ips2TableObj(t), *warnings = Tcl_NewListObj(0, NULL);
    for (size_t i = 0; i < w->nwarnings; i++)
        Tcl_ListObjAppendElement(NULL, warnings, Ips2Str(w->warnings[i]));
    Ips2Put(result, "warnings", warnings);
    Tcl_SetObjResult(interp, result);
    ips2_table_free(t);
    msg_waits_free(w);
    return TCL_OK;
}
