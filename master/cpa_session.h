/*
 * cpa_session.h - private to master/: the critical-path side of a session,
 * without Tcl (cpa_session.c).  A session's critical paths are computed on
 * its PAG parts, SESSION/pag/MACHINE*.pag, seen as the session sees them
 * (replayed applications renamed, comparison runs shifted: cpa_view.c),
 * either in this process or on PVM slaves (cpa.h).  The session keeps the
 * parts open and the paths it computed (one per mode, application and
 * zeroing) and answers each query with a table as plain data: a profile,
 * a zeroing, the path's segments, an imbalance table or a timeline of
 * the trace browser.  tcl_cpa.c makes Tcl results of the answers.
 *
 * A request is made on the interpreter's thread (cpa_request_resolve reads
 * the model: its applications and phases); answering it reads only what
 * the session copied from the model when it was made, so it can run on
 * another thread (one at a time: the session holds a lock while it
 * answers), except a request that uses PVM (cpa_request_uses_pvm: libpvm
 * is not thread-safe, it stays on the thread that connected).
 */
#ifndef IPS2_MASTER_CPA_SESSION_H
#define IPS2_MASTER_CPA_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ips2_cpa.h"

struct ips2_model;
struct cpa_session;

/* An error: its kind (PARTS, QUERY, PROFILE, USAGE, NODE, APP, PHASE,
 * PROCEDURE, MEMORY; the Tcl error code's last word) and its message. */
struct cpa_error {
    char code[16];
    char message[1024];
};

/* Fills e with code and the message; returns -1 (for "return cpa_fail()"). */
int cpa_fail(struct cpa_error *e, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Where a query runs: on PVM slaves when the session is a live run's
 * (auto), always on PVM slaves (private), in this process (here). */
enum cpa_where { CPA_WHERE_AUTO, CPA_WHERE_PRIVATE, CPA_WHERE_HERE };
/* "auto", "private", "none" by enum cpa_where, then NULL. */
extern const char *const cpa_where_names[];

enum cpa_table {
    CPA_TABLE_PROFILE,   /* $s cp */
    CPA_TABLE_ZERO,      /* $s cp-zero */
    CPA_TABLE_PATH,      /* $s cp-path */
    CPA_TABLE_IMBALANCE, /* $s cp-imbalance */
    CPA_TABLE_TIMELINE,  /* $s timeline */
};

/* One query.  The strings are the request's own (cpa_request_set_*). */
struct cpa_request {
    enum cpa_table table;
    enum ips2_cpa_mode mode;
    bool mode_given;
    enum ips2_cpa_level level;
    bool by_node; /* procedure level: one entry per procedure of each thread */
    enum cpa_where where;
    char *node;       /* a node path (app:A/machine:M/...), NULL: no filter */
    char *app;        /* intra, inter: the application (resolved) */
    char *phase;      /* NULL: the whole run */
    char *procedure;  /* cp-zero -procedure */
    char *process;    /* cp-zero -process */
    bool inclusive;   /* cp-zero -inclusive: the procedure and what it calls */
    char *zero_names; /* cp-zero -procedure: the names zeroed (cpa_zero_names) */
    int64_t from, to; /* timeline window [from, to) */
    bool has_from, has_to;
    int64_t limit; /* timeline: most events and arcs */
    /* Filled in by cpa_request_resolve: */
    int64_t t0, t1;                /* the phase, or IPS2_CPA_RUN_START, _END */
    bool live;                     /* the session is a live run with a VM (auto: PVM) */
    bool remote;                   /* parts are on other hosts only (auto: PVM) */
    struct ips2_cpa_filter filter; /* the node's (strings into nodebuf) */
    struct ips2_cpa_filter zero;   /* cp-zero -process's (strings into zerobuf) */
    char nodebuf[1024], zerobuf[1024];
};

/* A new request with the defaults (global, process level, auto, limit
 * 20000); NULL when out of memory. */
struct cpa_request *cpa_request_new(enum cpa_table table);
void cpa_request_free(struct cpa_request *r);
/* Sets one of the request's strings (a copy; "" or NULL: none).  0, or -1
 * when out of memory. */
int cpa_request_set(char **field, const char *value);

/* On the interpreter's thread: checks the request and completes it from
 * the model (the query's application: -app, the node's, or the session's
 * only one; the phase's bounds; whether the run is live).  0, or -1 with
 * e. */
int cpa_request_resolve(struct cpa_request *r, const struct ips2_model *m, struct cpa_error *e);
/* cp-zero -procedure NAME: the procedure names the query zeroes in *out
 * (malloc'd, one a line): NAME, and with inclusive every procedure it
 * calls, directly or not, in the model's call graph; an error (code
 * PROCEDURE) listing the close names when NAME is no procedure of the
 * model's reductions (cpa_zero.c). */
int cpa_zero_names(const struct ips2_model *m, const char *name, bool inclusive, char **out,
                   struct cpa_error *e);

/* Whether answering it would talk to PVM slaves (then it must be answered
 * on the interpreter's thread). */
bool cpa_request_uses_pvm(const struct cpa_request *r);

/* The session's critical-path state, with a copy of the model's facts it
 * needs (directory, machines, applications, shifts).  slave_path: the
 * ips2slave to spawn for PVM queries.  NULL when out of memory. */
struct cpa_session *cpa_session_new(const struct ips2_model *m, const char *slave_path);
/* On the interpreter's thread, before a request: the slave set of the
 * process's live run (NULL: none; master/pvm_slaves.h) and whether this
 * session is that run's (its slaves then hold the parts: cpa_pvm_open). */
struct ips2_slaves;
void cpa_session_set_slaves(struct cpa_session *s, struct ips2_slaves *slaves, bool own);
/* Frees the session (its PVM slaves quit: on the interpreter's thread,
 * unless cpa_session_drop_pvm was called there before). */
void cpa_session_free(struct cpa_session *s);
/* On the interpreter's thread: the PVM slaves the session has quit (it
 * waits for an answer under way to end only if there are slaves). */
void cpa_session_drop_pvm(struct cpa_session *s);

/* ---- answers ------------------------------------------------------------ */

struct cpa_profile_row {
    char *name, *path; /* path: the node of the entry ("" for a delay) */
    char *program;     /* procedure level: the procedure's program (executable); else "" */
    int64_t ns;
    double percent;
};

struct cpa_segment_row {
    const char *kind; /* ips2_cpa_seg_kind_name */
    char *thread;     /* the destination thread's node path */
    int64_t from, to, length;
    char **what; /* CPU: its top procedures (CPA_SEGMENT_TOP at most, most
                    CPU first); else one: the source thread's path */
    size_t nwhat;
    size_t nprocs; /* CPU: how many procedures ran on it in all; else 0 */
};

/* A CPU segment of a server's path runs dozens of procedures: its row
 * names the few that took most of it, and counts them all. */
#define CPA_SEGMENT_TOP 3

struct cpa_timeline_event {
    int64_t lane, wall;
    const char *kind; /* begin, end, or the event kind's name */
    char *procedure;
};

struct cpa_timeline_arc {
    int64_t from_lane, from_wall, to_lane, to_wall;
    const char *type; /* message, sync, create, exit, other */
};

struct cpa_answer {
    enum cpa_table table;
    enum ips2_cpa_mode mode;
    char *app;
    bool distributed; /* answered on PVM slaves */
    int64_t length;   /* the path's length */
    char **warnings;  /* the parts' and the path's */
    size_t nwarnings;
    /* profile */
    enum ips2_cpa_level level;
    bool by_node;
    int64_t elapsed, begin, end;
    double ratio;
    /* profile, imbalance: rows */
    struct cpa_profile_row *profile;
    size_t nprofile;
    struct ips2_cpa_imbalance *imbalance;
    size_t nimbalance;
    /* zero */
    int64_t new_length;
    char *procedure, *process;
    bool inclusive;
    char *zero_names; /* the procedures zeroed, one a line (NULL: a process) */
    /* path */
    struct cpa_segment_row *segments;
    size_t nsegments;
    /* timeline */
    char **lanes;
    size_t nlanes;
    struct cpa_timeline_event *events;
    size_t nevents;
    struct cpa_timeline_arc *arcs;
    size_t narcs;
    bool truncated;
    int64_t from, to;
};

/* Answers a resolved request on the thread that connected to PVM (the
 * interpreter's); 0 with *out (cpa_answer_free), or -1 with e.  A request
 * on PVM slaves is a fetch (below) served from the event loop until it is
 * done, then answered from the kept paths: no lock is held meanwhile, so
 * what the event loop runs may ask the session too (its queries queue on
 * the slaves after this one; one in this process that would close the
 * slaves' set under a fetch is refused). */
int cpa_session_answer(struct cpa_session *s, const struct cpa_request *r, struct cpa_answer **out,
                       struct cpa_error *e);
/* The same on any thread, one answer at a time (the session's lock).
 * Unless may_use_pvm, a request that would talk to PVM (its slaves, or
 * closing the session's slaves for an in-process set) is not answered:
 * 1, to be answered on the interpreter's thread instead. */
int cpa_session_answer_here(struct cpa_session *s, const struct cpa_request *r, bool may_use_pvm,
                            struct cpa_answer **out, struct cpa_error *e);
void cpa_answer_free(struct cpa_answer *a);

/* Asynchronous requests on PVM slaves, on the interpreter's thread.  A
 * fetch has the slaves compute the paths r needs that the session does
 * not keep (opening the set if it is not open: the slaves load their
 * parts meanwhile) and returns at once: 0 with *out, and done is called
 * once from the event loop when they are kept (e NULL) or could not be
 * (e says why); 1 when nothing is to be computed (r does not use PVM, or
 * its paths are kept: answer it now); -1 with e.  r must live until done
 * is called or the fetch closed.  cpa_session_answer_kept then answers
 * from the kept paths only (no set opened, no path computed).  Closing a
 * fetch (always, once) cancels its query on the slaves if it is under way
 * (cpa_set_cancel) and done is not called after it; a path the slaves
 * finished is kept all the same. */
struct cpa_fetch;
typedef void cpa_fetch_fn(void *arg, const struct cpa_error *e);
int cpa_session_fetch(struct cpa_session *s, const struct cpa_request *r, cpa_fetch_fn *done,
                      void *arg, struct cpa_fetch **out, struct cpa_error *e);
void cpa_session_fetch_close(struct cpa_fetch *f);
int cpa_session_answer_kept(struct cpa_session *s, const struct cpa_request *r,
                            struct cpa_answer **out, struct cpa_error *e);

/* For analyses of the whole PAG (msg_waits.c): calls fn with the
 * session's parts read and matched in this process (set->parts; a live
 * run's session reads its part files too: no PVM), under the session's
 * lock.  fn's result, or -1 with e when the parts cannot be opened. */
struct cpa_set;
typedef int cpa_parts_fn(void *arg, const struct cpa_set *set, struct cpa_error *e);
int cpa_session_with_parts(struct cpa_session *s, cpa_parts_fn *fn, void *arg, struct cpa_error *e);

/* The number of paths the session keeps (tests). */
size_t cpa_session_cached(struct cpa_session *s);

#endif /* IPS2_MASTER_CPA_SESSION_H */
