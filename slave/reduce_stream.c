/*
 * reduce_stream.c - one thread stream's pass through the trace reader
 * (ips2_reader.h, the one decoder): raw or packed, any CPU method, damaged
 * or not.  Times go onto the session's time base; ENTER and EXIT go to the
 * shadow stack, every other event moves the clock and goes to
 * reduce_kinds.c.  The reader's next() is inline and so is the shadow
 * stack's hot path: the loop makes no call for most events.
 */
#include <stdio.h>
#include <string.h>

#include "compensate.h"
#include "reduce_internal.h"

void red_progress_tick(struct red_progress *p, uint64_t events, uint64_t bytes)
{
    if (!p || !p->fn || p->done + events < p->next)
        return;
    uint64_t done = p->done + events;
    uint64_t bdone = p->bytes_done + bytes;
    uint64_t total = done;
    if (bdone > 0 && p->bytes_all > bdone)
        total = (uint64_t)((unsigned __int128)done * p->bytes_all / bdone);
    p->fn(p->arg, done, total);
    p->next = done + RED_PROGRESS_EVERY;
}

int red_stream_reader(const char *path, struct rt *r, int64_t session_offset,
                      struct red_progress *prog, char *err)
{
    struct ips2_reader *rd = ips2_reader_open(path, err);
    const struct ips2_event *evs;
    struct red_kstate ks;
    size_t n;
    int rc;

    if (!rd)
        return -1;
    const struct ips2_file_header *h = ips2_reader_header(rd);
    struct red_clock clock = {session_offset, h->timer, h->tsc_hz, 0};
    struct red_comp comp;
    const struct ips2_cost_ext *costs = ips2_reader_costs(rd);
    red_comp_init(&comp, r->compensate, h, costs, ips2_reader_costs_end(rd));
    r->call_cost_ps = comp.out_w[IPS2_PROBE_ENTER] + comp.out_w[IPS2_PROBE_EXIT];
    r->truncated = (h->features & IPS2_FEAT_TRUNCATED) != 0;
    memset(&ks, 0, sizeof(ks));
    /* what changes at every event stays in registers */
    struct rt_hot k = r->h;
    uint64_t events = r->events;
    int64_t raw_end = 0;
    while ((rc = ips2_reader_next_batch(rd, &evs, &n)) == 1) {
        for (const struct ips2_event *ev = evs; ev < evs + n; ev++) {
            int64_t t = (int64_t)ev->wall_ns + session_offset;
            uint64_t cpu = ev->cpu_ns;
            if (ev->kind == IPS2_EV_ENTER) {
                red_comp_proc(&comp, IPS2_PROBE_ENTER, &t, &cpu);
                rt_enter(r, &k, t, cpu, ev->payload);
            } else if (ev->kind == IPS2_EV_EXIT) {
                red_comp_proc(&comp, IPS2_PROBE_EXIT, &t, &cpu);
                rt_exit(r, &k, t, cpu, ev->payload);
            } else {
                r->raw_last_t = t;
                clock.in_ns = red_comp_event(&comp, ev, &t, &cpu);
                rt_advance(r, &k, t, cpu);
                r->h = k;
                red_kind_event(r, &ks, &clock, ev, t);
                k = r->h;
            }
        }
        raw_end = (int64_t)evs[n - 1].wall_ns + session_offset; /* as recorded, for the PAG */
        uint64_t before = events;
        events += n;
        if (RT_UNLIKELY((before ^ events) >= RED_PROGRESS_EVERY)) /* passed a multiple */
            red_progress_tick(prog, events, evs[n - 1].offset);
    }
    r->h = k;
    r->events = events;
    r->probe_ns = (uint64_t)red_comp_shift(&comp);
    r->raw_last_t = raw_end;
    if (rc < 0)
        snprintf(err, IPS2_ERR_MAX, "%s", ips2_reader_error(rd));
    ips2_reader_close(rd);
    return rc < 0 ? -1 : 0;
}
