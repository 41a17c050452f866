/*
 * tcl_clocks.c - ::ips2::clocks PARTFILE ...: what the message pass of the
 * critical path's matching (cpa/ips2_pag_clocks.h) does to these part files
 * (a session's SESSION/pag/MACHINE.pag), one dict per file:
 *
 *	machine M file F shift NS pairs N backwards N worst NS after N
 *
 * shift: the ns added to the machine's times at its message arcs; pairs:
 * its message pairings with the other files' machines; backwards: how
 * many of them ran backwards as the traces recorded them (after the
 * slaves' offset estimates), worst by how much; after: how many still do
 * (clocks that no shift reconciles).  `ips2 report SESSION clocks` shows it
 * beside the estimates of the manifest.
 */
#include <stdlib.h>
#include <tcl.h>

#include "ips2_pag.h"
#include "ips2_pag_clocks.h"
#include "tcl_clocks.h"
#include "tcl_util.h"

static int ClocksObjCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    (void)cd;
    size_t n = objc > 1 ? (size_t)objc - 1 : 0;
    struct ips2_pag **parts = calloc(n ? n : 1, sizeof *parts);
    struct ips2_pag_clock *c = calloc(n ? n : 1, sizeof *c);
    char err[1024] = "out of memory";
    int rc = parts != NULL && c != NULL ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = ips2_pag_read(Tcl_GetString(objv[i + 1]), &parts[i], err, sizeof err);
    if (rc == 0)
        rc = ips2_pag_number(parts, n, err, sizeof err);
    if (rc == 0)
        rc = ips2_pag_clocks(parts, n, c, err, sizeof err);
    if (rc == 0) {
        Tcl_Obj *list = Tcl_NewListObj(0, NULL);
        for (size_t i = 0; i < n; i++) {
            Tcl_Obj *d = Tcl_NewDictObj();
            Ips2Put(d, "machine", Ips2Str(parts[i]->machine));
            Ips2Put(d, "file", objv[i + 1]);
            Ips2Put(d, "shift", Tcl_NewWideIntObj((Tcl_WideInt)c[i].shift));
            Ips2Put(d, "pairs", Tcl_NewWideIntObj((Tcl_WideInt)c[i].pairs));
            Ips2Put(d, "backwards", Tcl_NewWideIntObj((Tcl_WideInt)c[i].backwards));
            Ips2Put(d, "worst", Tcl_NewWideIntObj((Tcl_WideInt)c[i].worst));
            Ips2Put(d, "after", Tcl_NewWideIntObj((Tcl_WideInt)c[i].after));
            Tcl_ListObjAppendElement(NULL, list, d);
        }
        Tcl_SetObjResult(interp, list);
    } else {
        Tcl_SetObjResult(interp, Tcl_NewStringObj(err, -1));
        Tcl_SetErrorCode(interp, "IPS2", "CLOCKS", NULL);
    }
    for (size_t i = 0; parts != NULL && i < n; i++)
        if (parts[i] != NULL)
            ips2_pag_free(parts[i]);
    free(parts);
    free(c);
    return rc == 0 ? TCL_OK : TCL_ERROR;
}

int Ips2ClocksInit(Tcl_Interp *interp)
{
    Tcl_CreateObjCommand(interp, "::ips2::clocks", ClocksObjCmd, NULL, NULL);
    return TCL_OK;
}
