/*
 * reduce_clock.c - the reduction's one clock hook: a machine's wall times
 * move into the master's time base (docs/CLOCKS.md).
 *
 * The slave measured its machine's clock against the master's when it
 * started and left the estimate in TRACE_DIR/clock (traces/ips2_clocks.h).
 * Every time the reduction decodes, of streams and of .ext files alike, is
 * real time minus the session's start; seen from this machine the master's
 * start is start + offset, so shifting the start by the offset shifts every
 * time of the directory, the PAG part's included.  No file (one machine, a
 * session from before, a directory a program wrote by hand): no shift.
 */
#include <stdio.h>

#include "ips2_clocks.h"
#include "reduce_internal.h"

int64_t red_clock_start(struct red_build *b, const char *trace_dir, int64_t session_start_real)
{
    struct ips2_clock_est e;
    char err[512];
    int rc = ips2_clock_read(trace_dir, &e, err, sizeof err);
    if (rc < 0) {
        red_build_problem(b, "%s: clock offset not applied", err);
        return session_start_real;
    }
    int64_t start;
    if (rc == 0 || __builtin_add_overflow(session_start_real, e.offset, &start))
        return session_start_real;
    return start;
}
