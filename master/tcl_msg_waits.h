/*
 * tcl_msg_waits.h - private to master/: the session's messages
 * subcommand (tcl_msg_waits.c), a binding over msg_waits.h.
 */
#ifndef IPS2_TCL_MSG_WAITS_H
#define IPS2_TCL_MSG_WAITS_H

#include "tcl_session.h"

/* $session messages ?-app A? ?-phase P? ?-table channels|groups? */
int Ips2MessagesCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[]);

#endif /* IPS2_TCL_MSG_WAITS_H */
