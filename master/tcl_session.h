/*
 * tcl_session.h - private to master/: the session object behind a
 * session command, and the pieces of it in separate files (session_dir.c
 * loads a directory, tcl_tables.c has the tree and table subcommands).
 */
#ifndef IPS2_TCL_SESSION_H
#define IPS2_TCL_SESSION_H

#include <tcl.h>

#include "ips2_master.h"
#include "model.h"
#include "tables.h"

typedef struct Ips2Session {
    Tcl_Interp *interp;   /* where its command lives */
    Tcl_Command token;    /* its command */
    struct ips2_model *m; /* the session model; owned */
    void *cpa;            /* critical-path state (tcl_cpa.c), NULL until asked */
} Ips2Session;

/* Loads a session directory into a new, indexed model, reading its
 * manifest with the package's reader (ips2::manifest::load) in interp;
 * NULL with err (IPS2_ERR_MAX bytes) if dir is not a session at all. */
struct ips2_model *Ips2LoadSession(Tcl_Interp *interp, const char *dir, char *err);

/* Subcommands of tcl_tables.c: objv[0] is the session command, objv[1]
 * the subcommand.  Standard Tcl results. */
int Ips2TreeCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[]);
int Ips2MetricsCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[]);
int Ips2ProfileCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[]);
int Ips2NptCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[]);
int Ips2ObjectsCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[]);
int Ips2LatencyCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[]);
int Ips2GprofCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[]);
int Ips2ClockCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[]);
int Ips2HistogramCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[]);
int Ips2MetricListCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[]);
int Ips2FactTableCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[]);
/* $session search ... (tcl_search.c). */
int Ips2SearchCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[]);

/* The facts of tcl_session.c as Tcl values: the processes (a list of
 * dicts; NULL with the error in interp's result), the phases ({NAME START
 * END} each) and the problems (strings). */
Tcl_Obj *Ips2ProcessesObj(Ips2Session *s, Tcl_Interp *interp);
Tcl_Obj *Ips2PhasesObj(Ips2Session *s);
Tcl_Obj *Ips2ProblemsObj(Ips2Session *s);

/* A table as the dict {columns {{NAME UNIT} ...} rows {{...} ...}}. */
Tcl_Obj *Ips2TableObj(const struct ips2_table *t);

#endif /* IPS2_TCL_SESSION_H */
