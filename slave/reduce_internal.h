/*
 * reduce_internal.h - what the files of the reduction library share
 * (private to slave/): the string table being built, the growing arrays of
 * the reductions being built, per-stream reduction, and the mapping of
 * event kinds onto metrics.
 */
#ifndef IPS2_SLAVE_REDUCE_INTERNAL_H
#define IPS2_SLAVE_REDUCE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ips2_reader.h"
#include "ips2_reductions.h"
#include "ips2_strtab.h"
#include "reduce_thread.h"

/* ---- reduce_build.c: the reductions being built ---------------------- */

struct red_build {
    struct ips2_reductions *r;
    struct ips2_strtab strings;
    size_t cap_processes, cap_threads, cap_procs, cap_arcs, cap_hists, cap_objects, cap_holds, cap_lats,
        cap_problems;
    bool oom;
    double cost_sum, cost_events; /* the streams' call costs weighted by their events */
};

/* Makes room for one more element of an array of r; the pointer to it, or
 * NULL (b->oom set). */
void *red_build_push(struct red_build *b, void **array, size_t *n, size_t *cap, size_t elem);
#define RED_PUSH(b, field)                                                                         \
    ((__typeof__((b)->r->field))red_build_push((b), (void **)&(b)->r->field, &(b)->r->n##field,    \
                                               &(b)->cap_##field, sizeof(*(b)->r->field)))

/* Adds a problem (printf-style). */
void red_build_problem(struct red_build *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The session's start as the machine's clock saw it: session_start_real
 * plus the offset in TRACE_DIR/clock, if any (reduce_clock.c); a bad file
 * is a problem and changes nothing. */
int64_t red_clock_start(struct red_build *b, const char *trace_dir, int64_t session_start_real);

/* Moves the string table into b->r; false on OOM. */
bool red_build_finish(struct red_build *b);

/* ---- reduce_emit.c: one finished thread into the reductions ---------- */

/* Names procedures: the string index of the procedure at addr. */
typedef uint32_t (*red_name_fn)(void *arg, uint64_t addr);

/* Appends thread r of process `process` (an index) with its procedures,
 * arcs, histograms and objects. */
void red_emit_thread(struct red_build *b, const struct rt *r, uint32_t process, uint32_t tid,
                     red_name_fn name, void *name_arg);

/* ---- reduce_kinds.c: events other than procedure entry and exit ------ */

/* What converts a stream's timer values to session time. */
struct red_clock {
    int64_t offset;  /* session time = wall_ns + offset */
    uint32_t timer;  /* enum ips2_timer */
    uint64_t tsc_hz; /* timer ticks per second */
    int64_t in_ns;   /* compensation: what the event's probe added inside its call */
};

/* Session time of a timer value carried in an event's extra words, from
 * the event's own timer and time t. */
int64_t red_clock_at(const struct red_clock *c, const struct ips2_event *ev, int64_t t,
                     uint64_t timer);

/* Per-stream state the kinds need between events (a join's begin). */
struct red_kstate {
    int64_t join_begin;
    bool in_join;
};

/* Handles one event that is not ENTER or EXIT, at session time t, after
 * the clock was advanced to it. */
void red_kind_event(struct rt *r, struct red_kstate *k, const struct red_clock *c,
                    const struct ips2_event *ev, int64_t t);

/* ---- reduce_stream.c: one thread stream ----------------------------- */

struct red_progress {
    void (*fn)(void *arg, uint64_t done, uint64_t total);
    void *arg;
    uint64_t done;       /* events of the streams before this one */
    uint64_t next;       /* report when done + events reach this */
    uint64_t bytes_all;  /* bytes of every stream */
    uint64_t bytes_done; /* of the streams before this one */
};

#define RED_PROGRESS_EVERY (1u << 20)

/* Calls the progress callback if it is due. */
void red_progress_tick(struct red_progress *p, uint64_t events, uint64_t bytes);

/* Reduces a thread stream into r through the trace reader (ips2_reader.h,
 * the one decoder: raw or packed, any CPU method, damaged or not).
 * Returns 0, or -1 with err (IPS2_ERR_MAX) holding the reader's error;
 * events before the error are in r either way. */
int red_stream_reader(const char *path, struct rt *r, int64_t session_offset,
                      struct red_progress *prog, char *err);

#endif /* IPS2_SLAVE_REDUCE_INTERNAL_H */
