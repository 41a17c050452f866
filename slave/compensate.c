/*
 * compensate.c - per-thread perturbation compensation (compensate.h):
 * the costs a stream's probes carry, and the events other than procedure
 * entry and exit, whose probe depends on the kind and on whether the call
 * waited (it carries its start).
 */
#include <string.h>

#include "compensate.h"
#include "ips2_fields.h"

/* The costs by the stream's probes, as its calibration says. */
static void take_costs(struct red_comp *c, const struct ips2_file_header *h,
                       const struct ips2_cost_ext *x, const struct ips2_cost_ext *end)
{
    if (x) {
        memcpy(c->out_w, x->wall_ps, sizeof(c->out_w));
        memcpy(c->in_w, x->wall_in_ps, sizeof(c->in_w));
        memcpy(c->out_c, x->cpu_ps, sizeof(c->out_c));
        memcpy(c->in_c, x->cpu_in_ps, sizeof(c->in_c));
        for (unsigned p = 0; end && p < IPS2_PROBES; p++) { /* the load may have changed */
            c->out_w[p] = (c->out_w[p] + end->wall_ps[p] + 1) / 2;
            c->out_c[p] = (c->out_c[p] + end->cpu_ps[p] + 1) / 2;
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
    if (!c->on) {
        c->acc_w += c->out_w[probe] + in_w; /* counted, not removed */
        return 0;
    }
    red_comp_step(c, probe, t, cpu, in_w, in_c);
    return in_w / 1000;
}
