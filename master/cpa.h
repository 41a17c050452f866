/*
 * cpa.h - private to master/: the PAG parts a session's critical-path
 * queries run on, either in this process (cpa_local.c: the part files
 * read, matched and run by the in-process driver) or on PVM slaves, one
 * per part file on its machine's host (cpa_pvm.c: the distributed
 * diffusion of ips2_proto.h's 300-399 conversation).  tcl_cpa.c makes
 * tables of the paths either one returns.
 */
#ifndef IPS2_MASTER_CPA_H
#define IPS2_MASTER_CPA_H

#include <stdbool.h>
#include <stddef.h>

#include "ips2_cpa.h"
#include "ips2_pag.h"

struct cpa_pvm;

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
    struct cpa_pvm *pvm;     /* distributed: the slaves */
};

/* Reads, numbers and matches the part files, each seen through view
 * (NULL: as they are).  0, or -1 with err. */
int cpa_local_open(char *const *files, size_t n, cpa_view_fn *view, void *view_arg,
                   struct cpa_set **out, char *err, size_t errlen);

/* Spawns one ips2slave per part file (on hosts[k]: NULL, "" or
 * "localhost" for this host) in the PVM this process is connected to,
 * or, if none and private_vm, in a private one it starts (and halts in
 * cpa_set_free); loads the parts there, gathers and matches their ends
 * and hands each its cross arcs.  0, or -1 with err. */
int cpa_pvm_open(char *const *files, char *const *hosts, size_t n, const char *slave_path,
                 bool private_vm, cpa_view_fn *view, void *view_arg, struct cpa_set **out,
                 char *err, size_t errlen);

/* Whether this process is connected to a pvmd now. */
bool cpa_pvm_connected(void);
/* Whether a distributed set can no longer run queries (a slave died, or
 * this process left the VM its slaves are in). */
bool cpa_set_stale(const struct cpa_set *s);

/* Runs one query on the set: the path first-first, its length.  0, or -1
 * with err (the set stays usable unless a slave died). */
int cpa_set_run(struct cpa_set *s, const struct ips2_cpa_query *q, struct ips2_cpa_path *out,
                char *err, size_t errlen);
int cpa_pvm_run(struct cpa_set *s, const struct ips2_cpa_query *q, struct ips2_cpa_path *out,
                char *err, size_t errlen);

/* Tells the slaves to quit (and halts a private VM); frees everything. */
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
