/*
 * cpa.h - private to master/: the PAG parts a session's critical-path
 * queries run on, either in this process (cpa_local.c: the part files
 * read, matched and run by the in-process driver) or on PVM slaves, the
 * slave of each part's machine holding it (cpa_slaves.c: the distributed
 * diffusion of ips2_proto.h's 300-399 conversation, driven from the Tcl
 * event loop over pvm_slaves.c).  tcl_cpa.c makes tables of the paths
 * either one returns.
 */
#ifndef IPS2_MASTER_CPA_H
#define IPS2_MASTER_CPA_H

#include <stdbool.h>
#include <stddef.h>

#include "ips2_cpa.h"
#include "ips2_pag.h"

struct cpa_pvm;
struct ips2_slaves;       /* pvm_slaves.h */
struct ips2_machine_info; /* model.h */

/* How a session sees one of its parts (cpa_view.c).  A part built from a
 * replayed session's traces keeps that session's application names and
 * times; the session may know the applications under new names (a
 * -prefix) and, in comparison mode, shifted onto its time base
 * (ANALYSTS.md §4).  Ends pair only with ends of parts of the same group
 * (one run: the active session, or one replay).  All zero: the part as
 * it is, in the default group. */
struct cpa_view {
    char *group;       /* NULL: the default group */
    int64_t shift;     /* ns added to every time of the part */
    char **from, **to; /* application renames: the part's name -> the session's */
    size_t nrename;
};

/* Fills *view for the part read from file (a whole part, or the end-only
 * part a slave sent back: machine, trace_dir, strings and apps are
 * there).  0, or -1 with err. */
typedef int cpa_view_fn(void *arg, const char *file, const struct ips2_pag *pag,
                        struct cpa_view *view, char *err, size_t errlen);

struct cpa_set {
    size_t n;                     /* parts; part k is files[k] */
    char **files;                 /* absolute paths */
    struct ips2_cpa_meta **metas; /* n: what profiles need of each part */
    char **warnings;              /* the parts' warnings and the unmatched ends */
    size_t nwarnings;
    struct cpa_view *views;  /* n: how the session sees each part */
    struct ips2_pag **parts; /* in-process: the matched parts; NULL when distributed */
    struct cpa_pvm *pvm;     /* distributed: the slaves' conversation */
};

/* Reads, numbers and matches the part files, each seen through view
 * (NULL: as they are).  0, or -1 with err. */
int cpa_local_open(char *const *files, size_t n, cpa_view_fn *view, void *view_arg,
                   struct cpa_set **out, char *err, size_t errlen);
/* The same with the parts read without their shares (ips2_pag_read_lazy):
 * paths come without the CPU segments' shares, metas without their CPU
 * per procedure, until ips2_cpa_path_add_shares and ips2_cpa_meta_add_cpu
 * read them from the files. */
int cpa_local_open_lazy(char *const *files, size_t n, cpa_view_fn *view, void *view_arg,
                        struct cpa_set **out, char *err, size_t errlen);

/* Has the part files held by PVM slaves and loaded there, gathers and
 * matches their ends and hands each part its cross arcs, serving the Tcl
 * event loop meanwhile.  Part k goes to the slave of its machine: of
 * machines[0..nmachines), the one whose name is the file's stem or the
 * stem's prefix before a dot (the longest; a replay's part,
 * MACHINE.PREFIX.pag, goes with its machine's); with none, the file's
 * stem is a machine of its own on this host.  slaves: the slave set of a
 * live run (the one PVM conversation of the process); with reuse (the
 * run's own session), its slave of that machine holds the part if no
 * other conversation has it; other parts get a slave spawned into the set
 * for this one (told to quit when the set is freed).  NULL: a private VM
 * and slave set are started for the set (and halted when it is freed).
 * 0, or -1 with err. */
int cpa_pvm_open(char *const *files, size_t n, const struct ips2_machine_info *machines,
                 size_t nmachines, struct ips2_slaves *slaves, bool reuse, const char *slave_path,
                 cpa_view_fn *view, void *view_arg, struct cpa_set **out, char *err, size_t errlen);

/* The same, returning as soon as the LOADs are sent: the set opens from
 * the event loop; queries started meanwhile (cpa_set_run_async) run once
 * it is ready, or fail with the reason it could not open. */
int cpa_pvm_start(char *const *files, size_t n, const struct ips2_machine_info *machines,
                  size_t nmachines, struct ips2_slaves *slaves, bool reuse, const char *slave_path,
                  cpa_view_fn *view, void *view_arg, struct cpa_set **out, char *err,
                  size_t errlen);
/* Serves the Tcl event loop until *done. */
void cpa_serve_until(const bool *done);

/* Whether this process is connected to a pvmd now. */
bool cpa_pvm_connected(void);
/* Whether a distributed set can no longer run queries (a slave died or
 * hung, or its slave set was closed). */
bool cpa_set_stale(const struct cpa_set *s);

/* Runs one query on the set: the path first-first, its length.  0, or -1
 * with err (the set stays usable unless a slave died or hung).  On a
 * distributed set it serves the Tcl event loop until the query completes
 * (cpa_set_run_async below; other queries may start meanwhile: they run
 * after it). */
int cpa_set_run(struct cpa_set *s, const struct ips2_cpa_query *q, struct ips2_cpa_path *out,
                char *err, size_t errlen);
int cpa_pvm_run(struct cpa_set *s, const struct ips2_cpa_query *q, struct ips2_cpa_path *out,
                char *err, size_t errlen);

/* The completion of a query started by cpa_set_run_async: called once,
 * from the Tcl event loop (an idle callback), never before
 * cpa_set_run_async returned.  On success err is NULL and path the
 * result (first-first): the callee may take it (*mine = *path, then
 * ips2_cpa_path_init(path)); what it leaves is freed after the call.  On
 * failure path is NULL and err says why (the query failed, was
 * cancelled, or its set was freed). */
typedef void cpa_done_fn(void *arg, struct ips2_cpa_path *path, const char *err);

/* Starts one query on the set (q and its strings are copied) and returns
 * at once: a number > 0 for cpa_set_cancel, or -1 with err.  A
 * distributed set runs its queries one after the other, in the order
 * started, driven by the slaves' messages and Tcl timers; an in-process
 * set computes it now and calls done from the event loop. */
int cpa_set_run_async(struct cpa_set *s, const struct ips2_cpa_query *q, cpa_done_fn *done,
                      void *arg, char *err, size_t errlen);
/* Cancels a query of the set that has not completed: its done is called
 * with the error "cancelled".  Nothing if it completed already. */
void cpa_set_cancel(struct cpa_set *s, int query);

/* Frees everything; the slaves spawned for the set quit (a private VM is
 * halted), a live run's slaves stay.  Queries not completed get their
 * done called, with an error, before it returns. */
void cpa_set_free(struct cpa_set *s);
void cpa_pvm_free(struct cpa_pvm *p);

/* Helpers shared by both: a new empty set of n files (copied), and one
 * more warning line. */
struct cpa_set *cpa_set_new(char *const *files, size_t n);
int cpa_set_warn(struct cpa_set *s, const char *line);

/* Views (cpa_view.c).  Applying one renames the applications and shifts
 * every time (nodes, ends; a meta's thread spans). */
void cpa_view_free(struct cpa_view *v);
int cpa_view_pag(struct ips2_pag *pag, const struct cpa_view *v, char *err, size_t errlen);
int cpa_view_meta(struct ips2_cpa_meta *m, const struct cpa_view *v, char *err, size_t errlen);
/* The part's name of the session's application app (NULL: NULL); a name
 * no application has if the part has none of that name. */
const char *cpa_view_app(const struct cpa_view *v, const char *app);
/* Shifts a path that slaves computed on unviewed parts: each segment by
 * its destination part's shift. */
void cpa_view_path(struct ips2_cpa_path *p, const struct cpa_view *views, size_t n);
/* ips2_pag_match_ends within each group of views (NULL: one group). */
int cpa_match_groups(struct ips2_pag **parts, size_t n, const struct cpa_view *views, char *err,
                     size_t errlen);

#endif /* IPS2_MASTER_CPA_H */
