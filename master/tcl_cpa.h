/*
 * tcl_cpa.h - private to master/: the critical-path subcommands of a
 * session object (cp, cp-zero, cp-path, cp-imbalance, timeline) and the
 * ips2::cpa command (tcl_cpa.c).
 */
#ifndef IPS2_TCL_CPA_H
#define IPS2_TCL_CPA_H

#include "tcl_session.h"

#if !defined(TCL_SIZE_MAX)
typedef int Tcl_Size; /* Tcl 8.6 */
#endif

/* $session cp|cp-zero|cp-path|cp-imbalance|timeline ...: objv[1] says which. */
int Ips2CpaCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[]);
/* Frees the session's critical-path state (its slaves quit); before its model. */
void Ips2CpaFree(Ips2Session *s);
/* Registers ips2::cpa. */
int Ips2CpaInit(Tcl_Interp *interp);

#endif /* IPS2_TCL_CPA_H */
