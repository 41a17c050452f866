/*
 * tcl_run.h - registration of ips2::run (tcl_run.c), the PVM side of the
 * master package, called from the package's Ips2_Init.
 */
#ifndef IPS2_TCL_RUN_H
#define IPS2_TCL_RUN_H

#include <tcl.h>

/* Creates ::ips2::run in interp.  A standard Tcl result. */
int Ips2RunInit(Tcl_Interp *interp);

struct ips2_model;
struct ips2_slaves;

/* The slave set of interp's run (the one running, or the finished one
 * whose slaves stay for its session) until it is shut down, else NULL:
 * the one PVM conversation of the process, which critical-path queries
 * use too.  *own (if not NULL): whether m is that run's session. */
struct ips2_slaves *Ips2RunSlaves(Tcl_Interp *interp, const struct ips2_model *m, int *own);

#endif /* IPS2_TCL_RUN_H */
