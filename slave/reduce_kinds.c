/*
 * reduce_kinds.c - what each event kind other than procedure entry and
 * exit means to the reduction: process and thread life (start, exit,
 * create sequence), lost records, and the interaction events, mapped onto
 * enum ips2_metric in one table (FORMAT.md section 9).
 */
#include <string.h>

#include "reduce_internal.h"

int64_t red_clock_at(const struct red_clock *c, const struct ips2_event *ev, int64_t t,
                     uint64_t timer)
{
    uint64_t ud = ev->timer - timer;
    int64_t d;

    memcpy(&d, &ud, sizeof(d));
    if (c->timer != IPS2_TIMER_MONOTONIC) {
        __int128 ns = (__int128)d * 1000000000 / (__int128)(c->tsc_hz ? c->tsc_hz : 1);
        if (ns > INT64_MAX / 2 || ns < -(INT64_MAX / 2))
            return t; /* nonsense: no duration */
        d = (int64_t)ns;
    }
    if (d < 0)
        return t; /* a start after the end: no duration */
    return t - d;
}

static uint64_t extra(const struct ips2_event *ev, unsigned i)
{
    return i < ev->nextra ? ev->extra[i] : 0;
}

void red_kind_event(struct rt *r, struct red_kstate *k, const struct red_clock *c,
                    const struct ips2_event *ev, int64_t t)
{
    (void)c;
    switch (ev->kind) {
    case IPS2_EV_PROC_START:
        r->proc_start_seen = true;
        r->proc_start_how = (int32_t)ev->payload;
        r->ppid = (uint32_t)extra(ev, 0);
        break;
    case IPS2_EV_PROC_EXIT:
        r->proc_exit_seen = true;
        r->exit_how = (int32_t)ev->payload;
        r->exit_status = (int32_t)extra(ev, 0);
        r->exit_t = t;
        break;
    case IPS2_EV_THREAD_START:
        r->thread_start_seen = true;
        r->creator = (uint32_t)ev->payload;
        r->create_seq = extra(ev, 0);
        break;
    case IPS2_EV_THREAD_EXIT:
        r->thread_exit_seen = true;
        r->thread_exit_how = (int32_t)ev->payload;
        break;
    case IPS2_EV_JOIN_BEGIN:
        k->in_join = true;
        k->join_begin = t;
        break;
    case IPS2_EV_JOIN_END:
        if (k->in_join)
            rt_wait(r, IPS2_M_SYNC_WAIT, k->join_begin, t);
        k->in_join = false;
        break;
    case IPS2_EV_LOST:
        r->lost += ev->payload;
        break;
    default:
        break;
    }
}
