/*
 * ips2_export.h - a session's traces in the formats other tools open
 * (docs/ANALYSTS.md §8):
 *
 *  - OTF2 (Vampir, otf2-print): machines, processes and threads as the
 *    system tree, location groups and locations; procedures as regions
 *    with enter and leave; messages as point-to-point send and receive,
 *    each naming the partner the PAG paired it with; locks as thread lock
 *    acquire and release; clock properties in ns of CLOCK_REALTIME.
 *  - trace-event JSON (Perfetto, chrome://tracing): a complete slice per
 *    procedure call on its thread, process and thread names, every PAG
 *    arc between two threads as a flow, the global critical path as a
 *    track of its own.
 *  - folded stacks (flame-graph tools): "app;f;g;h N" per call stack, N
 *    the stack's self CPU time in microseconds.
 *
 * The traces are read through traces/'s reader twice, one stream at a
 * time: once by the reduction to build each machine's PAG part (folded
 * but keeping every message's node, so that the k-th message of a thread
 * is its k-th message node: pag_message_node), whose pairing names every
 * message's partner, and once to write the events.  Nothing holds a whole trace: what stays in
 * memory is the PAG's partners (one word per message), the JSON's flows
 * and path, and the folded stacks' tree.
 */
#ifndef IPS2_EXPORT_H
#define IPS2_EXPORT_H

#include <stddef.h>
#include <stdint.h>

enum ips2_export_format {
    IPS2_EXPORT_OTF2 = 0,
    IPS2_EXPORT_JSON = 1,
    IPS2_EXPORT_FOLDED = 2,
};

/* "otf2", "json", "folded"; -1 for another name. */
int ips2_export_format_parse(const char *name, enum ips2_export_format *f);

/* What an export wrote, for its summary and its tests. */
struct ips2_export_counts {
    uint64_t locations;       /* threads with events */
    uint64_t enters, leaves;  /* procedure entries and exits */
    uint64_t sends, receives; /* message events: send, dgram-send, pvm-send; the receives */
    uint64_t paired_sends, paired_receives; /* of those, with a partner from the PAG */
    uint64_t acquires, releases; /* lock acquisitions and releases (exclusive and shared) */
    uint64_t slices;             /* JSON: procedure slices */
    uint64_t flows;              /* JSON: PAG arcs between threads */
    uint64_t cp_segments;        /* JSON: segments of the critical-path track */
    int64_t cp_length;           /* JSON: the global critical path's length, ns */
    uint64_t folded_lines;       /* folded: stacks written */
    uint64_t folded_us;          /* folded: the counts' sum, microseconds */
    uint64_t folded_ns;          /* folded: the self CPU time they stand for, ns */
};

/* Exports session directory `session` to `out` (OTF2: a directory, which
 * must not hold an archive yet; JSON and folded: a file, "-" for standard
 * output).  The PAG parts must keep every message's node: a program
 * calling this sets IPS2_PAG_FOLD=messages (or 0) in its environment
 * first (ips2-export does).  A stream damaged part way is exported up to
 * the damage, as the reduction reduces it, and named through warn (if not
 * NULL) with the reader's message.  Returns 0, or -1 with err (errlen
 * bytes) set. */
typedef void ips2_export_warn_fn(void *arg, const char *message);
int ips2_export(const char *session, enum ips2_export_format format, const char *out,
                struct ips2_export_counts *counts, ips2_export_warn_fn *warn, void *warn_arg,
                char *err, size_t errlen);

#endif /* IPS2_EXPORT_H */
