/*
 * cpa_internal.h - what the critical-path engine's files share privately:
 * a query resolved against one part (which threads are in the mode's node
 * set, start set and terminal set; which CPU time is zeroed), the CPU arc
 * weight, the tie rule every longest-path computation uses, the worker's
 * state (diffuse.c fills it, walk.c reads it) and small helpers.
 */
#ifndef IPS2_CPA_INTERNAL_H
#define IPS2_CPA_INTERNAL_H

#include <stdarg.h>
#include <stdint.h>

#include "ips2_cpa.h"

/* Per-thread flags of a resolved query. */
enum {
    CPA_SCOPE = 1, /* its nodes are in the mode's graph */
    CPA_START = 2, /* its nodes may start a path (the initial node's arcs) */
    CPA_TERM = 4,  /* its nodes may end one */
    CPA_ZERO = 8,  /* its CPU arcs weigh 0 (zeroed process) */
};

struct cpa_scope {
    uint8_t *tflags;   /* per thread */
    uint8_t *zero_str; /* per string: a zeroed procedure (NULL: none) */
    int64_t *zero_w;   /* a lazy part with zeroed procedures: per node, the weight of the
                          CPU arc into it (cpa_scope_weights); NULL: from the shares */
};

int cpa_scope_init(struct cpa_scope *s, const struct ips2_pag *pag, const struct ips2_cpa_query *q,
                   char *err, size_t errlen);
/* A part read without its shares (ips2_pag_read_lazy) and a query that
 * zeroes procedures: the CPU arcs' weights, from one pass over the shares
 * (lazy.c).  Nothing for other parts and queries.  0, or -1 with err. */
int cpa_scope_weights(struct cpa_scope *s, const struct ips2_pag *pag, char *err, size_t errlen);
void cpa_scope_free(struct cpa_scope *s);

/* Checks that a part's indices are in range (threads, nodes, shares, arcs,
 * outs), so that the engine can index without further checks. */
int cpa_pag_check(const struct ips2_pag *pag, size_t nparts, char *err, size_t errlen);

/* Weight of the CPU arc into node n (0 for a thread's first node). */
int64_t cpa_cpu_weight(const struct cpa_scope *s, const struct ips2_pag *pag, uint32_t n);
/* len + weight as the path length into node n of pag, or -1 with a named
 * error if it does not fit (the part check cannot bound cross arcs). */
int cpa_extend(const struct ips2_pag *pag, uint32_t n, int64_t len, int64_t weight, int64_t *out,
               char *err, size_t errlen);

/* Appends to p the CPU segment into node n (its thread's previous node to
 * n), with its shares scaled to its weight (a lazy part's: none, until
 * ips2_cpa_path_add_shares). */
int cpa_emit_cpu(struct ips2_cpa_path *p, const struct cpa_scope *s, const struct ips2_pag *pag,
                 uint32_t n, char *err, size_t errlen);
/* The path shares of the CPU arc into node n of weight w whose part's
 * shares are sh[0, nsh), into dst (room for nsh + 1): the shares less the
 * zeroed ones, the time none names to the procedure on top at the arc's
 * start, scaled to w.  Their count, or -1 out of memory. */
long cpa_arc_shares(const struct cpa_scope *s, const struct ips2_pag *pag, uint32_t n, int64_t w,
                    const struct ips2_pag_share *sh, size_t nsh, struct ips2_cpa_share *dst);
/* The weight of the CPU arc into node n (not its thread's first, not a
 * zeroed process's) once the zeroed procedures' shares of sh[0, nsh) are
 * out. */
int64_t cpa_zero_weight(const struct cpa_scope *s, const struct ips2_pag *pag, uint32_t n,
                        const struct ips2_pag_share *sh, size_t nsh);
/* Appends one segment (no shares). */
int cpa_emit(struct ips2_cpa_path *p, const struct ips2_cpa_segment *seg, char *err, size_t errlen);

/* Splits total over w[0..n) in proportion, rounding down, the rest to the
 * entry with the largest remainder: out sums to total exactly.  sum(w) ==
 * 0: all to out[0]. */
void cpa_split(int64_t total, const int64_t *w, int64_t *out, size_t n);

/* The tie rule: is a candidate predecessor (len, thread?, gid, arc index)
 * better than the current one?  Longer wins; then the thread predecessor;
 * then the smallest gid; then the smallest arc index. */
static inline int cpa_better(int64_t len, int is_thread, uint64_t gid, uint32_t arc,
                             int64_t cur_len, int cur_is_thread, uint64_t cur_gid, uint32_t cur_arc)
{
    if (len != cur_len)
        return len > cur_len;
    if (is_thread != cur_is_thread)
        return is_thread;
    if (gid != cur_gid)
        return gid < cur_gid;
    return arc < cur_arc;
}

/* Node state of a worker: 16 bytes. */
struct cpa_state {
    int64_t len;
    uint32_t pred; /* CPA_PRED_NONE, CPA_PRED_THREAD, or CPA_PRED_ARC + arc index */
    uint32_t rem;  /* arcs still to hear from; CPA_REACHED_BIT: on a path of the mode */
};
#define CPA_PRED_NONE   0u
#define CPA_PRED_THREAD 1u
#define CPA_PRED_ARC    2u
#define CPA_REACHED_BIT 0x80000000u
#define CPA_REM_MASK    0x7fffffffu

struct ips2_cpa_worker {
    const struct ips2_pag *pag;
    uint32_t part;
    size_t nparts;
    struct cpa_scope scope;
    struct cpa_state *st;
    uint32_t *cursor; /* per thread: its next node to process */
    uint32_t *lout;   /* local arcs (index in pag->arcs) sorted by source node */
    size_t nlout;
    uint32_t *lout_cur; /* per thread: its next entry in lout */
    uint32_t *xout;     /* outs (index in pag->outs) sorted by source node */
    uint32_t *xout_cur; /* per thread */
    uint8_t *given;     /* bit per arc: a cross arc's value arrived */
    uint32_t *queue;    /* ring of ready threads */
    uint8_t *inq;
    size_t qhead, qlen;
    struct ips2_cpa_batch *pending; /* per part */
    size_t npending;                /* parts with values waiting */
    size_t left;                    /* nodes not yet processed */
    struct ips2_cpa_candidate cand;
};

static inline int cpa_processed(const struct ips2_cpa_worker *w, uint32_t n)
{
    return n < w->cursor[w->pag->nodes[n].thread];
}

/* "fmt" into err. Returns -1. */
int cpa_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int cpa_path_warn(struct ips2_cpa_path *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Processes of a part that belong to the application named app (NULL, or
 * not an application of the part: index IPS2_PAG_NONE). */
uint32_t cpa_app_index(char *const *strings, size_t nstrings, const uint32_t *apps, size_t napps,
                       const char *app);

/* splitmix64: the engine's seeded random numbers (tests, generator). */
static inline uint64_t cpa_rnd(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#endif /* IPS2_CPA_INTERNAL_H */
