/*
 * compensate.c - per-thread perturbation compensation (compensate.h):
 * the costs a stream's probes carry, and the events other than procedure
 * entry and exit, whose probe depends on the kind and on whether the call
 * waited (it carries its start); and the counted calls, whose running
 * count each sync point carries.
 */
#include <string.h>

#include "compensate.h"
#include "ips2_fields.h"
#include "ips2_record.h"

/* The costs by the stream's probes, as its calibration says. */
static void take_costs(struct red_comp *c, const struct ips2_file_header *h,
                       const struct ips2_cost_ext *x, const struct ips2_cost_ext *end)
{
    if (x) {
        memcpy(c->out_w, x->wall_ps, sizeof(c->out_w));
        memcpy(c->in_w, x->wall_in_ps, sizeof(c->in_w));
        memcpy(c->out_c, x->cpu_ps, sizeof(c->out_c));
        memcpy(c->in_c, x->cpu_in_ps, sizeof(c->in_c));
        /* the cheap probes: the end block's when there is one, scaled to
         * the procedure probes' cost sampled in situ through the run when
         * it has that.  A loop of probes timed at start-up or at the end
         * sees one moment of a load that changes within the run, and a
         * probe's code costs 1 to 8 ns here by what the other hardware
         * thread does (docs/PERTURBATION.md); the samples see the run's
         * mean.  The slow probes are the start-up's in both blocks. */
        for (unsigned p = 0; end && p <= IPS2_PROBE_EVENT; p++) {
            c->out_w[p] = end->wall_ps[p];
            c->out_c[p] = end->cpu_ps[p];
        }
        uint64_t sampled = end ? end->cpu_ps[IPS2_PROBE_SAMPLED] : 0;
        uint64_t calib =
            end ? ((uint64_t)end->cpu_ps[IPS2_PROBE_ENTER] + end->cpu_ps[IPS2_PROBE_EXIT]) / 2 : 0;
        for (unsigned p = 0; sampled && calib && p <= IPS2_PROBE_EVENT; p++) {
            c->out_w[p] = (uint32_t)(end->wall_ps[p] * sampled / calib);
            c->out_c[p] = (uint32_t)(end->cpu_ps[p] * sampled / calib);
        }
        /* the pages: per byte of record, as the writer paid them (the end
         * block's, measured in situ), else the start-up estimate; the
         * short records' bytes are known, the others' are the event's */
        const struct ips2_cost_ext *pg = end && end->wall_ps[IPS2_PROBE_PAGE] ? end : x;
        c->page_w = pg->wall_ps[IPS2_PROBE_PAGE];
        c->page_c = pg->cpu_ps[IPS2_PROBE_PAGE];
        c->out_w[IPS2_PROBE_PAGE] = c->out_c[IPS2_PROBE_PAGE] = 0;
        /* a counted call (entry and exit): sampled in situ through the
         * filter (the end block's sampled slot, inside columns), else a
         * traced call's code without its record (interp: the other
         * methods' procedure probes read the CPU clock, a counted call
         * does not) */
        c->count_w = end ? end->wall_in_ps[IPS2_PROBE_SAMPLED] : 0;
        c->count_c = end ? end->cpu_in_ps[IPS2_PROBE_SAMPLED] : 0;
        if (c->count_w == 0 && h->cpu_method == IPS2_CPU_INTERP) {
            c->count_w = c->out_w[IPS2_PROBE_ENTER] + c->out_w[IPS2_PROBE_EXIT];
            c->count_c = c->out_c[IPS2_PROBE_ENTER] + c->out_c[IPS2_PROBE_EXIT];
        }
        static const unsigned short_bytes[] = {
            [IPS2_PROBE_ENTER] = 8,
            [IPS2_PROBE_EXIT] = 8,
            [IPS2_PROBE_LOCK] = 8,
            [IPS2_PROBE_SYNC] = 8 * 5, /* timer, CPU, monotonic readings, counted calls */
        };
        for (unsigned p = 0; p < IPS2_PROBE_PAGE; p++) {
            c->out_w[p] += short_bytes[p] * c->page_w;
            c->out_c[p] += short_bytes[p] * c->page_c;
        }
        return;
    }
    /* an older stream: a procedure record's cost for the cheap probes, a
     * sync point's for those that read the CPU clock, by both clocks */
    for (unsigned p = 0; p < IPS2_PROBES; p++) {
        bool slow = p == IPS2_PROBE_WAIT || p == IPS2_PROBE_SYNC;
        c->out_w[p] = c->out_c[p] = 1000u * h->cost_ns[slow ? IPS2_COST_SYNC : IPS2_COST_PROC];
    }
}

void red_comp_init(struct red_comp *c, bool on, const struct ips2_file_header *h,
                   const struct ips2_cost_ext *x, const struct ips2_cost_ext *end)
{
    memset(c, 0, sizeof(*c));
    c->on = on;
    c->last_t = INT64_MIN;
    take_costs(c, h, x, end);
    c->pre_start = h->stream_kind == IPS2_STREAM_THREAD && h->tid == h->pid;
    if (h->cpu_method == IPS2_CPU_TICK) {
        /* a coarse clock's readings stay as read, multiples of its tick
         * (the clock-precision study wants them so): wall times only */
        memset(c->out_c, 0, sizeof(c->out_c));
        memset(c->in_c, 0, sizeof(c->in_c));
    }
}

int64_t red_comp_event(struct red_comp *c, const struct ips2_event *ev, int64_t *t, uint64_t *cpu)
{
    int w = ips2_field_word(ev->kind, IPS2_ROLE_START);
    bool waited = w >= 0 && (unsigned)w < ev->nextra && ev->extra[w] != 0;
    unsigned probe = ips2_cost_probe_of(ev->kind, waited);
    int64_t in_w = c->in_w[probe], in_c = c->in_c[probe];
    if (!c->started) { /* the stream's first event */
        c->started = true;
        c->first_t = *t;
        c->first_c = *cpu;
    }
    if (c->pre_start) {
        /* a main thread's stream opens in the runtime's constructor, which
         * records the module map (most of a millisecond here) before
         * PROC_START: the instrumentation's time, not the program's.  Its
         * sync points and PROC_START stay at the stream's first time. */
        if (ev->kind != IPS2_EV_SYNC && ev->kind != IPS2_EV_PROC_START) {
            c->pre_start = false;
        } else {
            int64_t rw = *t - c->first_t - c->acc_w / 1000;
            int64_t rc = (int64_t)*cpu - (int64_t)c->first_c - c->acc_c / 1000;
            c->acc_w += rw > 0 ? rw * 1000 : 0;
            c->acc_c += rc > 0 ? rc * 1000 : 0;
            c->pre_start = ev->kind != IPS2_EV_PROC_START;
        }
    }
    if (ev->kind == IPS2_EV_SYNC && ev->nextra > IPS2_F_SYNC_COUNTED) {
        /* the thread's counted calls since its previous sync point: their
         * cost, spent before this one (within one sync interval) */
        uint64_t n = ev->extra[IPS2_F_SYNC_COUNTED];
        if (n > c->counted) {
            c->acc_w += (int64_t)(n - c->counted) * c->count_w;
            c->acc_c += (int64_t)(n - c->counted) * c->count_c;
        }
        c->counted = n;
    }
    if (!c->on) {
        c->acc_w += c->out_w[probe] + in_w; /* counted, not removed */
        return 0;
    }
    red_comp_step(c, probe, t, cpu, in_w, in_c);
    if (probe == IPS2_PROBE_EVENT || probe == IPS2_PROBE_WAIT) { /* its record's pages */
        unsigned bytes = 8 * ips2_record_words(ev->cpu_exact, ev->nextra);
        c->acc_w += (int64_t)bytes * c->page_w;
        c->acc_c += (int64_t)bytes * c->page_c;
    }
    return in_w / 1000;
}
