/*
 * compensate.h - perturbation compensation at the one decoding point
 * (slave/reduce_stream.c), per thread: every timestamp of a stream loses
 * the calibrated cost of the probes before it (ips2_cost_ext; Malony,
 * Reed and Wijshoff's event-time model, eq. 7, made incremental) and
 * of the pages its records took, and a call's start loses what its own
 * probe added inside the call.  The
 * reductions and the PAG's CPU arcs are built from these times; the
 * cross-thread part (waits re-derived at the PAG's dependence arcs) is
 * cpa/PAG.md's.  REDUCTION.md "Compensated times" says what each holds.
 */
#ifndef IPS2_SLAVE_COMPENSATE_H
#define IPS2_SLAVE_COMPENSATE_H

#include <stdbool.h>
#include <stdint.h>

#include "ips2_reader.h"

struct red_comp {
    bool on;
    uint32_t out_w[IPS2_PROBES], in_w[IPS2_PROBES]; /* ps: wall outside, inside */
    uint32_t out_c[IPS2_PROBES], in_c[IPS2_PROBES]; /* ps: thread CPU */
    uint32_t page_w, page_c;   /* ps a byte of record: its pages (in out_* for short ones) */
    uint32_t count_w, count_c; /* ps a counted call (entry and exit together) */
    uint64_t counted;          /* the thread's counted calls at its latest sync point */
    int64_t acc_w, acc_c;      /* ps removed before the next event */
    int64_t last_t;            /* latest compensated wall given */
    uint64_t last_c;           /* latest compensated CPU given */
    uint64_t events;           /* events compensated */
    bool started;              /* first_t, first_c: the stream's first event's */
    bool pre_start;            /* a main thread's stream before its PROC_START */
    int64_t first_t;
    uint64_t first_c;
};

/* Takes a stream's costs: its calibration blocks (the cheap probes from
 * the end block, scaled to the procedure probe sampled in the run; the
 * slow ones from the start-up block; each record's bytes at the pages'
 * cost per byte the writer measured), or (older streams) the header's
 * cost_ns.  A main thread's stream (tid = pid) keeps its sync points
 * before PROC_START at its first time.  on: false leaves every time as
 * recorded. */
void red_comp_init(struct red_comp *c, bool on, const struct ips2_file_header *h,
                   const struct ips2_cost_ext *x, const struct ips2_cost_ext *end);

/* The probe costs of a procedure entry or exit (probe), then its
 * compensated wall *t and CPU *cpu; never before the previous event's. */
static inline void red_comp_step(struct red_comp *c, unsigned probe, int64_t *t, uint64_t *cpu,
                                 int64_t in_w, int64_t in_c)
{
    int64_t w = *t - (c->acc_w + in_w) / 1000;
    int64_t u = (int64_t)*cpu - (c->acc_c + in_c) / 1000;

    c->acc_w += c->out_w[probe] + in_w;
    c->acc_c += c->out_c[probe] + in_c;
    c->events++;
    if (w < c->last_t)
        w = c->last_t;
    if (u < (int64_t)c->last_c)
        u = (int64_t)c->last_c;
    c->last_t = *t = w;
    c->last_c = *cpu = (uint64_t)u;
}

static inline void red_comp_proc(struct red_comp *c, unsigned probe, int64_t *t, uint64_t *cpu)
{
    c->pre_start = false; /* the program runs */
    if (c->on)
        red_comp_step(c, probe, t, cpu, 0, 0);
    else
        c->acc_w += c->out_w[probe]; /* counted, not removed: what the probes cost */
}

/* Any other event: *t and *cpu compensated; returns what its probe added
 * inside its call (ns), which the call's start must not lose: the start
 * is then t_raw_start - (the thread's cost before the event). */
int64_t red_comp_event(struct red_comp *c, const struct ips2_event *ev, int64_t *t, uint64_t *cpu);

/* The probes' wall so far (ns), removed or (raw times) only counted: raw time = compensated time +
 * this, for the latest event (unless the clamp moved it). */
static inline int64_t red_comp_shift(const struct red_comp *c)
{
    return c->acc_w / 1000;
}

#endif /* IPS2_SLAVE_COMPENSATE_H */
