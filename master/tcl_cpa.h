/*
 * tcl_cpa.h - private to master/: the critical-path subcommands of a
 * session object (cp, cp-zero, cp-path, cp-imbalance, timeline) and the
 * ips2::cpa command (tcl_cpa.c), and the session's asynchronous queries
 * (async, cancel: tcl_async.c).
 */
#ifndef IPS2_TCL_CPA_H
#define IPS2_TCL_CPA_H

#include "cpa_session.h"
#include "tcl_session.h"

#if !defined(TCL_SIZE_MAX)
typedef int Tcl_Size; /* Tcl 8.6 */
#endif

struct Ips2Async; /* tcl_async.c */

/* What Ips2Session.cpa points to: the critical-path core and the
 * asynchronous queries' state, each NULL until first used. */
typedef struct Ips2Cpa {
    struct cpa_session *core;
    struct Ips2Async *async;
} Ips2Cpa;

/* $session cp|cp-zero|cp-path|cp-imbalance|timeline ...: objv[1] says which. */
int Ips2CpaCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[]);
/* Frees the session's critical-path state (its slaves quit; a query under
 * way on the background thread finishes there); before its model. */
void Ips2CpaFree(Ips2Session *s);
/* Registers ips2::cpa. */
int Ips2CpaInit(Tcl_Interp *interp);

/* The session's state with its core made (NULL: out of memory). */
Ips2Cpa *Ips2CpaState(Ips2Session *s);
/* The resolved request of "$session cp... ARGS" (objv as Ips2CpaCmd's), or
 * an error result. */
int Ips2CpaRequest(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[],
                   struct cpa_request **out);
/* Whether word names one of the critical-path subcommands. */
bool Ips2CpaIsTable(Tcl_Obj *word);
/* An answer as the subcommand's result. */
Tcl_Obj *Ips2CpaAnswerObj(const struct cpa_answer *a);
/* Writes a cp-path answer's segments to chan as text or csv
 * (tcl_path_text.c); TCL_ERROR with the interp's result on a failed write. */
int Ips2CpaWritePath(Tcl_Interp *interp, Tcl_Channel chan, const struct cpa_answer *a, bool csv);
/* e as an error result (errorCode IPS2 CP CODE). */
int Ips2CpaError(Tcl_Interp *interp, const struct cpa_error *e);

/* $session async WORDS CALLBACK, $session cancel ?ID? (tcl_async.c). */
int Ips2AsyncCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[]);
int Ips2CancelCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[]);
/* Ends the asynchronous queries (none is delivered any more) and frees
 * the core, on the background thread when it is busy with it. */
void Ips2AsyncClose(Ips2Cpa *c);

#endif /* IPS2_TCL_CPA_H */
