/*
 * msg_waits.h - private to master/: message patterns over the global PAG
 * of a session (issue 11 items 2, 6, 7; KappaPi's late sender, late
 * receiver and master/worker), without Tcl.  The inputs of the W3
 * search's messageBottleneck -> excessiveMessageWaiting -> lateSender /
 * lateReceiver and masterWorkerImbalance, and of `$session messages`.
 *
 * A channel is one direction of traffic between two threads over one
 * kind of transport (a TCP/UNIX byte stream, UDP datagrams, PVM
 * messages of one tag): the PAG's message arcs (cpa/PAG.md) from one
 * sender thread to one receiver thread (and one PVM tag: the arcs'
 * label), paired by sequence numbers or byte ranges, so each arc is one
 * message the receiver took.  Per message, from the PAG:
 *
 *   ws  when the receive was posted: wall(recv) - arc weight when the
 *       weight says it began after the send ended, else the receiver's
 *       previous node plus the CPU it used since (it never ran after
 *       the call began: a blocked receive uses no CPU);
 *   ready  when the sender could send: its previous node plus its CPU
 *       since (the CPU it needed before the call);
 *   receive wait   wall(recv) - ws: the receiver blocked for the message;
 *   late receiver  ws - ready, when the receive was posted after the
 *                  sender was ready, found the message waiting (it ended
 *                  within 1 ms) and the send ended after it, sooner than
 *                  the sender had waited: the send was blocked until the
 *                  receiver came to take the message;
 *   late sender    otherwise min(wall(send), wall(recv)) - ws when > 0:
 *                  the receive was posted before the send ended, the
 *                  receiver waited for the sender (its work, or its being
 *                  preempted: a send that was not blocked ends as it
 *                  begins).  A send that ended before the receive was
 *                  posted waited for nobody.
 *
 * A receive that took several messages (byte ranges of several sends)
 * counts its wait once, on the message whose send ended last.
 *
 * A master-worker group is a process that sends to N >= 2 processes and
 * receives from each of them (KappaPi's dependence + relationship), each
 * of which has fewer such partners than it (so an all-to-all exchange is
 * none; a pipeline stage with acknowledgements both ways may be one): for
 * each worker its CPU time (busy), its wait for the master's messages,
 * and the group's imbalance (max - mean busy) / max busy; for the master
 * its wait for the workers' results.
 */
#ifndef IPS2_MASTER_MSG_WAITS_H
#define IPS2_MASTER_MSG_WAITS_H

#include <stddef.h>
#include <stdint.h>

#include "cpa_session.h"
#include "ips2_pag.h"

struct ips2_table;

/* What to compute.  All times are ns on the session's time base. */
struct msg_waits_request {
    const char *app; /* NULL or "": every application; else channels with an end in it */
    /* The window (INT64_MIN, INT64_MAX: all): the messages received in
     * [from, to), their waits cut to it; the CPU within it. */
    int64_t from, to;
    /* Histograms of the three waits: bucket i covers [hist_start + i *
     * hist_width, hist_start + (i + 1) * hist_width); nbuckets 0: none. */
    int64_t hist_start, hist_width;
    size_t nbuckets;
};

/* The three waits of a channel, or of one bucket. */
enum msg_wait_kind {
    MSG_WAIT_RECEIVE = 0,       /* the receivers were blocked for these messages */
    MSG_WAIT_LATE_SENDER = 1,   /* ... because the send had not begun */
    MSG_WAIT_LATE_RECEIVER = 2, /* the senders were blocked until the receiver took it */
    MSG_WAIT_KINDS = 3,
};

struct msg_channel {
    /* "channel:alpha/1234->beta/5678 stream" (machine/pid, transport),
     * "channel:alpha/1234->beta/5678 tcp port 7350" (a TCP stream whose
     * connection both parts saw: the server's listening port),
     * "channel:alpha/1234->beta/5678 pvm tag 7" */
    char *name;
    const char *transport;  /* "stream", "datagram", "pvm" */
    char *sender_process;   /* app:A/machine:M/process:PID */
    char *receiver_process; /* app:A/machine:M/process:PID */
    char *sender_thread;    /* app:A/machine:M/process:PID/thread:TID */
    char *receiver_thread;
    int64_t messages;              /* message arcs (receives that took a send's data) */
    int64_t bytes;                 /* -1: the PAG does not carry them */
    int64_t wait[MSG_WAIT_KINDS];  /* ns, by enum msg_wait_kind */
    int64_t first, last;           /* the first send's end, the last receive's end */
    int64_t *hist[MSG_WAIT_KINDS]; /* nbuckets each (ns per bucket), NULL without */
    /* Where in the code: the procedures on top of the stack at the receive
     * that waited longest and at its send ("" when none was). */
    char *receiver_procedure, *sender_procedure;
    int64_t longest_wait; /* ns: that receive's wait */
};

struct msg_worker {
    char *process;           /* app:A/machine:M/process:PID */
    int64_t busy;            /* ns of CPU of its threads (in the request's window) */
    int64_t wait_for_master; /* ns: its receive wait on the master's channels */
    int64_t tasks;           /* messages the master sent it */
    int64_t results;         /* messages it sent the master */
};

struct msg_group {
    char *master;               /* app:A/machine:M/process:PID */
    int64_t master_wait;        /* ns: the master's receive wait on the workers' channels */
    int64_t master_busy;        /* ns of the master's CPU */
    struct msg_worker *workers; /* by process path */
    size_t nworkers;            /* >= 2 */
    int64_t max_busy, mean_busy;
    double imbalance; /* (max_busy - mean_busy) / max_busy, 0 when max_busy is 0 */
};

struct msg_waits {
    int64_t hist_start, hist_width; /* the request's */
    size_t nbuckets;
    struct msg_channel *channels; /* sorted by receive wait, largest first, then name */
    size_t nchannels;
    struct msg_group *groups; /* sorted by imbalance, largest first, then master */
    size_t ngroups;
    char **warnings; /* the parts' warnings and what could not be read */
    size_t nwarnings;
};

/* The request's defaults: every application, the whole run, no histograms. */
void msg_waits_request_init(struct msg_waits_request *r);

/* Computes both over the session's parts, read and matched in this
 * process (a live run's session reads its part files from disk too; no
 * PVM is used), under the session's lock: any thread.  0 with *out
 * (msg_waits_free), or -1 with e (PARTS, MEMORY, USAGE). */
int msg_waits_compute(struct cpa_session *s, const struct msg_waits_request *r,
                      struct msg_waits **out, struct cpa_error *e);

/* The same over matched parts parts[0..n) (part k numbered k: global ids
 * name them), e.g. a constructed PAG.  0 with *out, or -1 with err. */
int msg_waits_from_parts(struct ips2_pag *const *parts, size_t n, const struct msg_waits_request *r,
                         struct msg_waits **out, char *err, size_t errlen);

void msg_waits_free(struct msg_waits *w);

/* Tables of the answer, as the session's other tables (master/tables.h):
 *  channels: channel, transport, sender, receiver (thread paths),
 *    messages, bytes, receive_wait, late_sender, late_receiver, first,
 *    last (ns), sender_procedure, receiver_procedure;
 *  groups: master, worker, busy (ns), wait_for_master (ns), tasks,
 *    results, master_wait (ns), imbalance (ratio), one row per worker.
 * NULL with err when out of memory. */
struct ips2_table *msg_waits_channel_table(const struct msg_waits *w, char *err);
struct ips2_table *msg_waits_group_table(const struct msg_waits *w, char *err);

#endif /* IPS2_MASTER_MSG_WAITS_H */
