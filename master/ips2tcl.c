/*
 * ips2tcl.c - the entry point of the master package `ips2`
 * (package require ips2), a stubs-enabled Tcl extension:
 * build/lib/ips2/libips2tcl.so with its pkgIndex.tcl.
 *
 * Each part of the master registers its commands here with one call:
 * the session model and tables (ips2::open and the session objects,
 * tcl_session.c); the PVM coordination adds ips2::run.
 */
#include <tcl.h>

#include "ips2_master.h"
#include "tcl_run.h"

#define IPS2_PACKAGE_VERSION "1.0"

/*
 *----------------------------------------------------------------------
 *
 * Ips2_Init --
 *
 *	Initialises the package in an interpreter (load ... Ips2).
 *
 * Results:
 *	A standard Tcl result.
 *
 * Side effects:
 *	Creates the ::ips2 namespace and its commands.
 *
 *----------------------------------------------------------------------
 */
DLLEXPORT int Ips2_Init(Tcl_Interp *interp)
{
    if (Tcl_InitStubs(interp, "8.6", 0) == NULL)
        return TCL_ERROR;
    if (Ips2_MasterInit(interp) != TCL_OK)
        return TCL_ERROR;
    if (Ips2RunInit(interp) != TCL_OK)
        return TCL_ERROR;
    return Tcl_PkgProvideEx(interp, "ips2", IPS2_PACKAGE_VERSION, NULL);
}
