/*
 * search.h - the W3 search (issue 11; notes/w3-search.md): an automatic
 * Performance Consultant over a session model's reductions, without Tcl.
 *
 * As in the thesis's Chapter 4, the search runs after the fact over the
 * slaves' time histograms: one histogram bucket, re-bucketed to the
 * sample interval, is one delivered sample of a counter (a metric at a
 * focus).  Counters are enabled only while a test needs them; a test is
 * evaluated from its enable time on, once it has the minimum observation
 * time (5 samples), is given up after the sufficient time (10), and keeps
 * being re-verified once true, with hysteresis.  Why (hypotheses), where
 * (one node in each resource hierarchy: code, process, sync object,
 * machine, application) and when (the interval where a bottleneck holds)
 * make the nodes of the search history graph (SHG).  The critical path
 * seeds hints (they only order refinements) and tests
 * limitedByApplication; the message waits (msg_waits.h) test the message
 * hypotheses.  tcl_search.c is the binding (`$session search`).
 */
#ifndef IPS2_MASTER_SEARCH_H
#define IPS2_MASTER_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ips2_model;
struct ips2_table;
struct msg_waits;

/* The resource hierarchies of a focus, in the order of the contract. */
enum ips2_hierarchy {
    IPS2_H_CODE = 0, /* "procedure" */
    IPS2_H_PROCESS,  /* "app:A/machine:M", ".../process:PID", ".../thread:TID" */
    IPS2_H_SYNC,     /* "mutex" (a kind), "mutex:hot_lock" (an object) */
    IPS2_H_MACHINE,  /* "machine:M" */
    IPS2_H_APP,      /* "app:A" */
    IPS2_H_COUNT,
};
/* "code", "process", "sync", "machine", "application" */
extern const char *const ips2_hierarchy_names[IPS2_H_COUNT];

/* A focus: one node per hierarchy, NULL for the hierarchy's root. */
struct ips2_focus {
    char *at[IPS2_H_COUNT];
};

enum ips2_shg_state { IPS2_SHG_UNTESTED = 0, IPS2_SHG_TESTING, IPS2_SHG_TRUE, IPS2_SHG_FALSE };
/* "untested", "testing", "true", "false" */
extern const char *const ips2_shg_state_names[4];

struct ips2_shg_node {
    int id, parent; /* parent -1 for the root */
    const char *hypothesis;
    struct ips2_focus focus;
    int64_t start_ns, end_ns; /* when */
    enum ips2_shg_state state;
    double value, threshold;
    char *why;
};

struct ips2_bottleneck {
    int node; /* its SHG node */
    const char *hypothesis;
    const char **path; /* hypothesis names from the root */
    size_t npath;
    struct ips2_focus focus;
    int64_t start_ns, end_ns; /* where it holds */
    double value, threshold;
    char *explanation;
    struct ips2_table *evidence; /* NULL: none */
};

/* Thesis Figs 4.2-4.7: total samples = total counters x buckets. */
struct ips2_search_accounting {
    uint64_t total_counters, counters_used;
    uint64_t total_samples, samples_used;
    uint64_t bytes_per_sample; /* 12 */
    uint64_t di_bytes;         /* samples used x 12 */
    uint64_t trace_bytes;      /* the traces the reductions were made of */
    double ratio;              /* trace bytes / DI bytes (0 without samples) */
};

struct ips2_search_result {
    struct ips2_shg_node *shg;
    size_t nshg;
    struct ips2_bottleneck *bottlenecks;
    size_t nbottlenecks;
    struct ips2_search_accounting accounting;
    int64_t start_ns;     /* the samples' first bucket */
    uint64_t interval_ns; /* the sample interval used */
    size_t nbuckets;
};

/* A critical-path profile the binding asked of the critical-path core:
 * of application app, intra- or inter-application, at the process
 * (rows' path: the process node) or procedure level (rows' path: the
 * procedure node in a thread, or "" when merged by name). */
struct ips2_search_cp_row {
    const char *name, *path;
    int64_t ns;
    double percent;
};
struct ips2_search_cp {
    const char *app;
    bool inter;
    bool procedure_level;
    int64_t length;
    const struct ips2_search_cp_row *rows;
    size_t nrows;
};

struct ips2_search_threshold {
    const char *name; /* a constant of ips2_search_constant_names, or a hypothesis */
    double value;
};

struct ips2_search_options {
    uint64_t interval_ns;   /* 0: 100 ms, or the histograms' width if wider */
    bool interval_given;    /* refuse an interval finer than the histograms */
    const char *app;        /* NULL: every application */
    int64_t from_ns, to_ns; /* the phase searched (INT64_MIN, INT64_MAX: all) */
    const struct ips2_search_threshold *thresholds;
    size_t nthresholds;
    double hysteresis;               /* < 0: 0.9 */
    int min_samples;                 /* <= 0: 5 */
    int sufficient_samples;          /* <= 0: 10 */
    int max_eval;                    /* <= 0: 25 tests at once */
    const struct ips2_search_cp *cp; /* critical-path profiles (hints, limitedByApplication) */
    size_t ncp;
    const struct msg_waits *msgs; /* NULL: the message hypotheses stay untested */
    const char *const *ignore;    /* resources whose refinements are tried last (thesis §8.1) */
    size_t nignore;
    const volatile int *cancel; /* not 0: stop soon, with an error */
};

void ips2_search_options_init(struct ips2_search_options *o);

/* The names of the settable constants (NULL-terminated) and their
 * defaults; a hypothesis name also sets its test's main threshold. */
extern const char *const ips2_search_constant_names[];
double ips2_search_constant_default(const char *name); /* NaN: no such name */
/* The hypotheses' names, NULL-terminated, the tree's order. */
extern const char *const ips2_search_hypothesis_names[];

/* Runs the search over m (the whole run, or a phase's view), 0 with *out
 * (ips2_search_result_free), or -1 with err (IPS2_ERR_MAX bytes): an
 * unknown threshold name, an interval finer than the histograms, no such
 * application, cancelled, out of memory. */
int ips2_search_run(struct ips2_model *m, const struct ips2_search_options *o,
                    struct ips2_search_result **out, char *err);
void ips2_search_result_free(struct ips2_search_result *r);

#endif /* IPS2_MASTER_SEARCH_H */
