/*
 * clock_note.h - what a table's header says about the process-time clock
 * its times were measured with (issue 15, paper §5.1): the clocks of the
 * processes under a node (method, param, resolution, from the reductions)
 * and the procedures whose mean CPU time per call is within ten times of
 * their clock's resolution, too short for it to time well.
 */
#ifndef IPS2_MASTER_CLOCK_NOTE_H
#define IPS2_MASTER_CLOCK_NOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* A table's clocks are trusted down to this many times their resolution. */
#define IPS2_CLOCK_MARGIN 10

struct ips2_clock_use {
    uint32_t method;    /* enum ips2_cpu_method */
    uint32_t param;     /* interp: us; tick: ms */
    uint64_t res_ns;    /* 0: not known (reductions older than version 6) */
    uint32_t processes; /* process rows under the node measured with it */
};

struct ips2_clock_short {
    char *name;       /* procedure name */
    uint64_t mean_ns; /* inclusive CPU time per call */
    uint64_t calls;
    uint64_t res_ns; /* the coarsest resolution its calls were measured with */
};

struct ips2_clock_note {
    struct ips2_clock_use *uses; /* by method, then param, then resolution */
    size_t nuses;
    struct ips2_clock_short *shorts; /* shortest mean first */
    size_t nshorts;
};

/* The clocks under node n of m (a procedure node: its thread's) and the
 * procedures too short for them, by name.  0, or -1 with err (OOM). */
int ips2_clock_note(const struct ips2_model *m, const struct ips2_node *n,
                    struct ips2_clock_note *out, char *err);
void ips2_clock_note_free(struct ips2_clock_note *note);

/* Whether every clock under the node is exact (or not known: older
 * reductions, which said nothing else). */
bool ips2_clock_note_exact(const struct ips2_clock_note *note);

/* The clocks as a table header says them, malloc'd (NULL: OOM):
 * "exact (resolution 1 ns)", "tick:10 (resolution 10 ms)", several joined
 * with "; " and each followed by "for N processes", or "not known". */
char *ips2_clock_note_text(const struct ips2_clock_note *note);

/* "exact", "interp:1000", "tick:10" into buf. */
void ips2_clock_method_text(uint32_t method, uint32_t param, char *buf, size_t size);

#endif /* IPS2_MASTER_CLOCK_NOTE_H */
