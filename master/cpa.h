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

struct cpa_set {
    size_t n;                     /* parts; part k is files[k] */
    char **files;                 /* absolute paths */
    struct ips2_cpa_meta **metas; /* n: what profiles need of each part */
    char **warnings;              /* the parts' warnings and the unmatched ends */
    size_t nwarnings;
    struct ips2_pag **parts; /* in-process: the matched parts; NULL when distributed */
    struct cpa_pvm *pvm;     /* distributed: the slaves */
};

/* Reads, numbers and matches the part files.  0, or -1 with err. */
int cpa_local_open(char *const *files, size_t n, struct cpa_set **out, char *err, size_t errlen);

/* Spawns one ips2slave per part file (on hosts[k]: NULL, "" or
 * "localhost" for this host) in the PVM this process is connected to,
 * or, if none and private_vm, in a private one it starts (and halts in
 * cpa_set_free); loads the parts there, gathers and matches their ends
 * and hands each its cross arcs.  0, or -1 with err. */
int cpa_pvm_open(char *const *files, char *const *hosts, size_t n, const char *slave_path,
                 bool private_vm, struct cpa_set **out, char *err, size_t errlen);

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

#endif /* IPS2_MASTER_CPA_H */
