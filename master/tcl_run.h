/*
 * tcl_run.h - registration of ips2::run (tcl_run.c), the PVM side of the
 * master package, called from the package's Ips2_Init.
 */
#ifndef IPS2_TCL_RUN_H
#define IPS2_TCL_RUN_H

#include <tcl.h>

/* Creates ::ips2::run in interp.  A standard Tcl result. */
int Ips2RunInit(Tcl_Interp *interp);

#endif /* IPS2_TCL_RUN_H */
