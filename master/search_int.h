/*
 * search_int.h - private to the search (search*.c): the search space
 * built from a model (search_space.c: the threads searched, the resource
 * hierarchies, the sample grid, the counters and their series) and what
 * the engine (search.c) and the explanations (search_explain.c) share.
 */
#ifndef IPS2_MASTER_SEARCH_INT_H
#define IPS2_MASTER_SEARCH_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "msg_waits.h"
#include "search.h"
#include "tables.h"

/* ---- a small string map (open addressing) ---------------------------------- */

struct smap {
    char **key;
    int *val;
    size_t cap, n;
};
int smap_get(const struct smap *m, const char *key);    /* -1 if absent */
int smap_put(struct smap *m, const char *key, int val); /* 0, or -1 on OOM */
void smap_free(struct smap *m);

/* ---- the metrics of counters ------------------------------------------------ */

enum sm_metric {
    SM_CPU = 0,
    SM_ACTIVE, /* ns that the focus's threads were alive (ActiveProcesses x time) */
    SM_SYNC_WAIT,
    SM_SYNC_OPS, /* synchronisation operations that waited */
    SM_IO_TIME,
    SM_IO_OPS,
    SM_IO_BYTES,
    SM_SEEK,
    SM_MSG_WAIT,
    SM_CALLS,
    SM_FAULTS,        /* page faults (collectors) */
    SM_RECV_WAIT,     /* message channels (msg_waits.h): receive wait */
    SM_LATE_SENDER,   /* ... late sender */
    SM_LATE_RECEIVER, /* ... late receiver */
    SM_COUNT,
};
extern const char *const sm_names[SM_COUNT];
bool sm_refines_code(int metric);
bool sm_refines_sync(int metric);

/* ---- resources and foci ----------------------------------------------------- */

struct sp_resource {
    int hier;   /* enum ips2_hierarchy */
    int parent; /* -1: below the hierarchy's root */
    int depth;  /* 1 below the root */
    char *name;
    int kind; /* SYNC objects: their kind's resource; else -1 */
    int nchild;
};

/* A focus as resource ids, -1 for a hierarchy's root. */
struct sp_focus {
    int at[IPS2_H_COUNT];
};

struct sp_object { /* a synchronisation object waited for in a thread */
    int res;       /* its resource */
    uint32_t row;  /* objects[] of the thread's reductions */
};

struct sp_proc {
    int res;      /* the procedure's resource */
    uint32_t row; /* procs[] */
};

/* A histogram of a thread, keyed for lookup (sorted by proc, object, metric). */
struct sp_hist {
    uint32_t proc, object, metric;
    const struct ips2_red_hist *h;
};

struct sp_thread {
    uint32_t slot, row;  /* the thread in the model's reductions */
    int app;             /* model application */
    int chain[3];        /* Process resources: app:A/machine:M, process, thread */
    int machine, appres; /* Machine and Application resources */
    int process_index;   /* in the reductions' processes[] */
    int64_t shift, start, end;
    const struct ips2_node *node; /* the thread's node in its logical tree */
    struct sp_proc *procs;
    size_t nprocs;
    struct sp_object *objs;
    size_t nobjs;
    int *chans; /* channels it receives or sends on: index into msgs->channels */
    size_t nchans;
    struct sp_hist *hists;
    size_t nhists;
};

struct sp_space {
    struct ips2_model *m;
    const struct msg_waits *msgs;
    struct sp_resource *res;
    size_t nres, capres;
    struct smap resmap; /* "h|name" -> resource */
    struct smap shared; /* "machine|kind|id" of a process-shared object -> its name in names */
    char **names;
    size_t nnames;
    struct sp_thread *threads;
    size_t nthreads;
    size_t words; /* of a thread bitset */
    int64_t origin;
    uint64_t width;
    size_t nb;
    int64_t from, to;       /* the phase (clipped to the data) */
    uint64_t hist_width;    /* the widest histogram */
    bool load_compensation; /* active time leaves out preemption (search_space.c) */
    double call_cost_ns;    /* a traced call's probes, as calibrated (0: not known) */
    bool has[SM_COUNT];     /* the metric has data somewhere */
    int *chan_res;          /* per channel: its resource */
};

/* Builds the space of o->app's threads (all without one) over m.  0, or
 * -1 with err. */
int sp_build(struct sp_space *sp, struct ips2_model *m, const struct ips2_search_options *o,
             char *err);
void sp_free(struct sp_space *sp);
int sp_resource(struct sp_space *sp, int hier, const char *name, int parent); /* find or add */
/* Whether resource r is a or below it (a -1: the root: always). */
bool sp_within(const struct sp_space *sp, int r, int a);
/* Whether thread t is in the focus's place (process, machine, app). */
bool sp_thread_in(const struct sp_space *sp, const struct sp_thread *t, const struct sp_focus *f);
/* The name of an object row as its Sync resource has it (the name its
 * process gave a shared object, the reduction's, or KIND:ID[@PID]). */
void sp_object_name(const struct sp_space *sp, const struct ips2_reductions *r,
                    const struct ips2_red_object *o, char *name, size_t size);
/* The thread set of a focus's place as a bitset (sp->words words). */
void sp_threads_of(const struct sp_space *sp, const struct sp_focus *f, uint64_t *bits);
/* Whether the focus selects any data: a thread of its place having its
 * procedure and its object (channel). */
bool sp_has_data(const struct sp_space *sp, const struct sp_focus *f);
/* The series of a counter into v[sp->nb] (zeroed first); 0 or -1 (OOM). */
int sp_series(const struct sp_space *sp, int metric, const struct sp_focus *f, double *v);
/* The number of counters of the space (thesis: full sampling). */
uint64_t sp_total_counters(const struct sp_space *sp);
/* The focus as names (strdup'd; NULL for roots) into out; -1 on OOM. */
int sp_focus_names(const struct sp_space *sp, const struct sp_focus *f, struct ips2_focus *out);
/* A key "c|p|s|m|a" of a focus into buf. */
void sp_focus_key(const struct sp_focus *f, char *buf, size_t size);
/* The application resource a focus's place belongs to (-1: several). */
int sp_focus_app(const struct sp_space *sp, const struct sp_focus *f);

/* ---- explanations (search_explain.c) --------------------------------------- */

struct ex_context {
    struct sp_space *sp;
    const struct ips2_search_options *o;
    const char *hypothesis;
    const struct sp_focus *focus;
    double value, threshold;
    int64_t start_ns, end_ns;
    const char *detail; /* what the test found (the limiting application, the object) */
};

/* The explanation sentence (malloc'd) and its evidence table (NULL:
 * none); -1 on OOM. */
int ex_explain(const struct ex_context *c, char **text, struct ips2_table **evidence);

#endif /* IPS2_MASTER_SEARCH_INT_H */
