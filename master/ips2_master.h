/*
 * ips2_master.h - the master analyst package's C interface for the other
 * parts of the master (the PVM coordination of ips2::run) and for tests.
 *
 * A session object is a Tcl command (ANALYSTS.md §6) over a session
 * model.  ips2::open makes one from a session directory; ips2::run (the
 * PVM part) makes one the same way once its slaves have written the
 * directory, passing the reducer that asks its slaves for phase
 * reductions (the slaves stay until the session is closed).
 */
#ifndef IPS2_MASTER_H
#define IPS2_MASTER_H

#include <stdint.h>

#include "ips2_reductions.h"

/* Reduces one trace directory of one machine for a phase: what a slave
 * does on a phase query (ips2_reduce_dir() with these options, where the
 * traces are).  Returns 0 with *out set, or -1 with err (IPS2_ERR_MAX
 * bytes) naming what went wrong. */
typedef int ips2_reduce_fn(void *arg, const char *machine, const char *trace_dir,
                           int64_t session_start_real, int64_t phase_start_ns, int64_t phase_end_ns,
                           uint64_t interval_ns, struct ips2_reductions **out, char *err);

/* The reducer that runs ips2_reduce_dir() in this process (arg unused):
 * what a session uses when no slave is around. */
ips2_reduce_fn ips2_reduce_here;

#ifdef _TCL /* with tcl.h */

/* Registers ips2::open (and the session commands) in interp; called by
 * Ips2_Init.  A standard Tcl result. */
int Ips2_MasterInit(Tcl_Interp *interp);

/* Opens the session directory dir as a new session object and leaves its
 * command name in the interpreter's result.  reduce (NULL: reduce in this
 * process) answers the session's phase queries; release(arg), if not NULL,
 * is called once when the session is closed (also on failure here).  A
 * standard Tcl result; errors have the code {IPS2 OPEN dir}. */
int Ips2_OpenSession(Tcl_Interp *interp, const char *dir, ips2_reduce_fn *reduce, void *arg,
                     void (*release)(void *arg));

#endif /* _TCL */

#endif /* IPS2_MASTER_H */
