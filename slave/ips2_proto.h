/*
 * ips2_proto.h - the PVM protocol between the master analyst and its
 * slaves (ANALYSTS.md §5).  This is the ONE header that documents every
 * PVM message tag ips2 uses; other protocols (cpa/) take their tags from
 * the ranges reserved here.
 *
 * Encoding.  Messages are packed with PvmDataDefault (XDR), so hosts of
 * different byte orders can talk.  Because PVM's XDR packs a long in 4
 * bytes (it truncates 64-bit longs) and pvm_upkstr() cannot bound the
 * buffer it writes, the fields below are packed as:
 *
 *   u32   pvm_pkuint(&v, 1, 1)
 *   i32   pvm_pkint(&v, 1, 1)
 *   i64   two u32: the high word, then the low word
 *   str   a u32 length (bytes, no NUL), then pvm_pkbyte of those bytes;
 *         at most IPS2_PROTO_STR_MAX bytes
 *   blob  an i64 length, then pvm_pkbyte in chunks of at most
 *         IPS2_PROTO_CHUNK bytes (all in the same message)
 *
 * A conversation (one slave per machine):
 *
 *   master                               slave
 *   pvm_spawn(ips2slave -m MACHINE) ---->
 *   pvm_notify(PvmTaskExit, TASK_EXIT)
 *   CONFIG ----------------------------->
 *                                  <---- CLOCK_PING (a few times, each
 *   CLOCK_PONG ------------------------->  answered at once), CLOCK
 *                                  <---- HELLO
 *   PROCESS* REPLAY* COLLECTOR* GO ----->
 *                                  <---- STARTED / EXITED per process,
 *                                        READY per process with a check,
 *                                        PROBLEM*, PROGRESS*
 *   RELEASE* (held processes), STOP* --->
 *                                  <---- REDUCTIONS (query 0)
 *                                  <---- DONE (query 0), after packing
 *   REDUCE (query q) ------------------>
 *                                  <---- REDUCTIONS (query q) or QUERY_FAILED (q)
 *   QUIT ------------------------------>   (slave kills what still runs, exits)
 *
 * A slave that loses its master (the master's task exit) kills its
 * processes and exits; with IPS2_CONFIG_HALT_ORPHAN it halts the VM first.
 * A slave never sends raw traces.
 */
#ifndef IPS2_PROTO_H
#define IPS2_PROTO_H

#define IPS2_PROTO_VERSION  4
#define IPS2_PROTO_STR_MAX  (64 * 1024)
#define IPS2_PROTO_CHUNK    (1024 * 1024)
#define IPS2_PROTO_LIST_MAX 100000 /* a list's length, against a garbled count */

/* Message tags, in ranges per protocol. */
enum ips2_tag {
    /* 100-199: master to slave */
    IPS2_TAG_CONFIG = 100,  /* u32 version, str session dir, str machine, str host,
                               i64 session start (CLOCK_REALTIME ns), i64 sample
                               interval ns, i64 kill grace ms (SIGTERM -> SIGKILL),
                               u32 flags (IPS2_CONFIG_*) */
    IPS2_TAG_PROCESS = 101, /* str app, i32 index, str cwd, i64 timeout ms (0: none),
                               u32 argc, argc x str, u32 nenv, nenv x (str name, str value),
                               u32 hold (1: not started at GO but at its RELEASE), str ready
                               ("" none, "tcp", "file"), str its argument (port, path), i64
                               ready timeout ms: the slave checks readiness and sends READY;
                               u32 spawn size (0: a process of its own), u32 rank: one of a
                               group of PVM tasks the slave starts with one pvm_spawn when
                               it starts rank 0 (its PROCESSes are sent in rank order) */
    IPS2_TAG_REPLAY = 102,  /* str old session dir, str trace dir to reduce, str prefix,
                               u32 napps, napps x str app (none: all applications),
                               u32 npids, npids x (str app, i32 pid): the processes the
                               old manifest lists, each of which should have a trace */
    IPS2_TAG_GO = 103,      /* empty: start the processes, then reduce */
    /* 104: unused (a merged phase reduction per machine, before REDUCE) */
    IPS2_TAG_QUIT = 105,      /* empty */
    IPS2_TAG_REDUCE = 106,    /* i32 query (> 0), str trace dir, i64 session start
                                 (CLOCK_REALTIME ns), i64 start ns, i64 end ns, i64 interval
                                 ns: reduce that one directory (ips2_reduce_dir) for the
                                 phase and send REDUCTIONS, or QUERY_FAILED */
    IPS2_TAG_RELEASE = 108,   /* str app, i32 index, str why: after GO, start a held process
                                 (why "") or end it as never started (FAILED, text why):
                                 the master's start order (-after) across machines */
    IPS2_TAG_STOP = 109,      /* str app, i32 index, i32 signal, i64 grace ms: send the
                                 signal to the process's group, SIGKILL after the grace
                                 (a stop condition, -stop-when) */
    IPS2_TAG_PING = 110,      /* i32 seq: answer PONG with it at once (the master's check
                                 that a slave on another host is still reachable) */
    IPS2_TAG_COLLECTOR = 107, /* str kind ("os", "hw"), i64 interval ms: before GO, a
                                 collector to run beside the processes (ips2-collect-KIND,
                                 collectors/collect.h), from just before the first one
                                 starts until the last one ended */

    /* 120: the clock exchange (docs/CLOCKS.md) */
    IPS2_TAG_CLOCK_PONG = 120, /* i32 seq, i64 t1, i64 t2: the answer to CLOCK_PING, the
                                  master's CLOCK_REALTIME when the ping came and when it
                                  answered */

    /* 200-299: slave to master */
    IPS2_TAG_HELLO = 200,        /* u32 version, str machine, str host (gethostname), i32 pid,
                                    i64 CLOCK_REALTIME - CLOCK_MONOTONIC ns */
    IPS2_TAG_STARTED = 201,      /* str app, i32 index, i32 pid */
    IPS2_TAG_EXITED = 202,       /* str app, i32 index, i32 pid (0 if it never started),
                                    i32 how (enum ips2_proc_how), i32 code, str text */
    IPS2_TAG_PROGRESS = 203,     /* str stage (enum ips2_stage name), i64 done, i64 total */
    IPS2_TAG_PROBLEM = 204,      /* str text: what went wrong (the master logs
                                    "MACHINE: text") */
    IPS2_TAG_REDUCTIONS = 205,   /* i32 query, blob: the bytes of an ips2_reductions_encode()
                                    (slave/ips2_reductions.h) */
    IPS2_TAG_DONE = 206,         /* i32 query, i32 ok (0: failed, see the PROBLEMs before);
                                    for query 0, sent once the run's REDUCTIONS and PARTs
                                    are: the packing goes on beside (PACKED at its end) */
    IPS2_TAG_QUERY_FAILED = 207, /* i32 query, str why: a REDUCE that could not be done */
    IPS2_TAG_NOTE = 209,         /* str text: something the master notes ("MACHINE: text"):
                                    a process traced through libips2 preloaded */
    IPS2_TAG_PART = 215,         /* str path: a PAG part file this slave wrote (after its
                                    REDUCTIONS), so a master on another host, which cannot
                                    list the slave's SESSION/pag/, knows its parts */
    IPS2_TAG_PONG = 216,         /* i32 seq: the answer to PING */
    IPS2_TAG_PACKED = 217,       /* i32 streams packed, i32 streams kept raw, i64 the
                                    packer's CPU time (ns, user + system): the run's
                                    packing (a child process, started after DONE's
                                    REDUCTIONS, reported as PROGRESS "packing") ended;
                                    a slave told to QUIT while it packs ends after this */
    IPS2_TAG_READY = 208,        /* str app, i32 index, i32 ok, str text: a process with a
                                    readiness check passed it (ok 1) or did not (ok 0: text
                                    says why: its timeout, or it ended first) */

    /* 220-221: the clock exchange */
    IPS2_TAG_CLOCK_PING = 220, /* i32 seq: a clock exchange, sent at CONFIG a few times
                                  (the master answers CLOCK_PONG at once) */
    IPS2_TAG_CLOCK = 221,      /* i64 offset, i64 error, i64 rtt, u32 exchanges: the
                                  machine's clock minus the master's (traces/ips2_clocks.h),
                                  sent before HELLO; also in TRACE_DIR/clock */

    /* 300-399: critical-path diffusion between slaves (cpa/; master/cpa_slaves.c over
       master/pvm_slaves.c, slave/slave_cpa.c; the conversation is described below the
       enum).  blob fields are the byte strings of cpa/ips2_cpa.h and cpa/ips2_pag.h's
       encoders; `id` numbers a loaded part set, `query` a query (both > 0, increasing
       over the slave set's life).  A slave may hold several parts (its machine's run and
       the replays it reduced): messages about one part name it.
       300-319: master to slave */
    IPS2_TAG_CPA_FIRST = 300,
    IPS2_TAG_CPA_LOAD = 300,  /* i32 id, str part file, u32 part (its index in the set),
                                 u32 nparts: read the part file (ips2_pag_read) and keep it
                                 (a new id drops the parts held, the same id adds one);
                                 answer CPA_LOADED */
    IPS2_TAG_CPA_CROSS = 301, /* i32 id, u32 part, blob cross arcs of that part
                                 (ips2_pag_cross_encode), u32 nparts, nparts x i32 tid: the
                                 slave holding each part; answer CPA_READY */
    IPS2_TAG_CPA_QUERY = 302, /* i32 query, u32 mode (enum ips2_cpa_mode), str zero procedure
                                 ("" none), i32 zero process (0 none), u32 its part, i32 its
                                 pid, u32 count, count x (u32 part, str app, str zero
                                 process's app): the applications as each part held here
                                 names them.  Start a worker per part for the query
                                 (dropping the previous ones), step them, send BATCHes;
                                 STATUS only when done, failed or probed (CPA_STATUS) */
    IPS2_TAG_CPA_END = 303,   /* i32 query: the query is over, free its workers */
    IPS2_TAG_CPA_PROBE = 304, /* i32 query, u32 round (> 0): answer STATUS now, with this
                                 round (the termination probe, below) */
    /* 320-339: slave to slave (and master to slave for the walk's start) */
    IPS2_TAG_CPA_BATCH = 320, /* i32 query, blob batch (ips2_cpa_batch_encode): path lengths
                                 for the receiver's incoming cross arcs; one message per
                                 destination part per step (parts of one slave pass their
                                 batches inside it: no message, not counted) */
    IPS2_TAG_CPA_WALK = 321,  /* i32 query, u32 seq, blob walk (ips2_cpa_walk_encode): walk
                                 back from the walk's node; the receiver walks while the path
                                 stays in parts it holds, sends its SEGMENTS (seq) to the
                                 master and, unless the walk is done, WALK (seq + 1) to the
                                 slave of the next node's part */
    /* 350-369: slave to master */
    IPS2_TAG_CPA_LOADED = 350,   /* i32 id, u32 part, i32 ok, str error, blob ends
                                    (ips2_pag_ends_encode), blob meta (ips2_cpa_meta_encode),
                                    u32 nwarnings (at most IPS2_CPA_WARN_MAX), nwarnings x str:
                                    the part's warnings */
    IPS2_TAG_CPA_READY = 351,    /* i32 id, u32 part, i32 ok, str error: the cross arcs are in */
    IPS2_TAG_CPA_STATUS = 352,   /* i32 query, u32 state (enum ips2_cpa_state), i64 batches
                                    sent, i64 batches received, u32 found, i64 candidate gid,
                                    i64 candidate length, str text (failed: why; blocked: the
                                    first waiting node), u32 probe round (0: not an answer to
                                    PROBE), u32 the part the text is about: the slave's parts
                                    together (done when all are, the best candidate), sent
                                    when they become done, when one failed, and in answer to
                                    PROBE */
    IPS2_TAG_CPA_SEGMENTS = 353, /* i32 query, u32 seq, u32 done, blob path chunk
                                    (ips2_cpa_path_encode), str error ("" ok) */
    /* 390: unused (the exit of a slave spawned for the critical path only, before
       every slave came through master/pvm_slaves.c and TASK_EXIT) */
    IPS2_TAG_CPA_LAST = 399,

    /* 900-999: PVM notifications the master asks for */
    IPS2_TAG_TASK_EXIT = 900,   /* PvmTaskExit: body i32 tid of the exited task */
    IPS2_TAG_HOST_DELETE = 901, /* PvmHostDelete: body i32 tid of the pvmd */
    IPS2_TAG_SPAWN_EXIT = 902,  /* the slave's PvmTaskExit of the tasks it spawned (-spawn):
                                   body i32 tid */
};

/*
 * The critical-path conversation (master/cpa_slaves.c, over the slave set of
 * master/pvm_slaves.c).  The parts are the part files SESSION/pag/MACHINE*.pag;
 * the slave of a live run's machine holds its machine's parts (MACHINE.pag and
 * MACHINE.PREFIX.pag of the replays it reduced); for a session without a live
 * run the master spawns one ips2slave per machine (one per part file for
 * ips2::cpa), which gets no CONFIG, only the messages below.  A slave answers
 * reductions (REDUCE) and critical-path requests alike, one at a time.
 *
 *   master                         slave k                      slave j
 *   LOAD (id, file, p, n) ------->  (once per part it holds)
 *                          <------ LOADED (p, ends, meta, warnings)
 *   (ips2_pag_match_ends over every part's ends)
 *   CROSS (id, p, arcs, tids) --->  (once per part)
 *                          <------ READY (p)
 *   QUERY (q, mode, parts) ------>  step: BATCH (q) -----------> deliver, step,
 *                                            <--------------- BATCH (q) ...
 *                          <------ STATUS (q, done, sent, received, candidate)
 *   (every slave done: the forward pass is over.  No message for 20 ms:
 *   maybe stuck, or just busy, so the master probes:)
 *   PROBE (q, r) ---------------->
 *                          <------ STATUS (q, ..., r)
 *   (stuck when two probe rounds in a row find every slave idle and the
 *   same totals, sent == received: Mattern's four-counter rule; a round
 *   with sent == received is followed by another at once)
 *   WALK (q, 0, terminal) ------->  walk back: SEGMENTS (q, 0) to the master,
 *                                   WALK (q, 1, next) ---------> SEGMENTS (q, 1) ...
 *                          <------ SEGMENTS (q, seq, done = 1)
 *   END (q) --------------------->
 *   QUIT ------------------------>  (only the slaves spawned for the critical path;
 *                                    a run's slaves stay for its session)
 *
 * Batches for a query a slave has not started yet are kept until its
 * QUERY comes; those of an older query are dropped.
 */
#define IPS2_CPA_WARN_MAX 1000

enum ips2_cpa_state {
    IPS2_CPA_STATE_IDLE = 0,   /* waiting for batches */
    IPS2_CPA_STATE_DONE = 1,   /* every node of the part has its length */
    IPS2_CPA_STATE_FAILED = 2, /* the query cannot go on here (text says why) */
};

/* CONFIG.flags */
#define IPS2_CONFIG_HALT_ORPHAN                                                                    \
    1u /* the VM is the master's own: a slave that outlives                                        \
          its master halts it (pvm_halt), so no pvmd is left */

/* How a process ended (EXITED.how). */
enum ips2_proc_how {
    IPS2_PROC_EXITED = 0,   /* code = exit status */
    IPS2_PROC_SIGNALED = 1, /* code = signal number */
    IPS2_PROC_FAILED = 2,   /* never ran: text says why (code = errno) */
    IPS2_PROC_TIMEOUT = 3,  /* stopped after its timeout; code = the signal that ended it,
                               or 0 if it exited on the SIGTERM (text says its status) */
};

/* What a slave is doing (PROGRESS.stage); the master names a dead slave
 * by the stage it was in ("slave died while reducing"). */
enum ips2_stage {
    IPS2_STAGE_STARTING = 0, /* spawned, configuring */
    IPS2_STAGE_RUNNING,      /* processes running: done = ended, total = all */
    IPS2_STAGE_REDUCING,     /* done/total events */
    IPS2_STAGE_PACKING,      /* done/total streams */
    IPS2_STAGE_IDLE,         /* reductions sent; answering queries */
    IPS2_STAGE_COUNT,
};

static inline const char *ips2_stage_name(int stage)
{
    static const char *const names[IPS2_STAGE_COUNT] = {"starting", "running", "reducing",
                                                        "packing", "idle"};
    return stage >= 0 && stage < IPS2_STAGE_COUNT ? names[stage] : "unknown";
}

/*
 * Packing and unpacking of the field types above (slave/proto_pack.c),
 * into PVM's active send buffer / from its active receive buffer.  Each
 * returns 0, or a negative PVM error code (PvmNoData at the end of a
 * message, PvmNoMem, or PvmBadMsg for a length above its bound).
 */
#include <stddef.h>
#include <stdint.h>

int ips2_pk_u32(uint32_t v);
int ips2_pk_i32(int32_t v);
int ips2_pk_i64(int64_t v);
int ips2_pk_str(const char *s); /* NULL packs as "" */
int ips2_pk_blob(const void *data, size_t size);
int ips2_pk_strv(const char *const *v, size_t n); /* a u32 count, then the strings */

int ips2_upk_u32(uint32_t *v);
int ips2_upk_i32(int32_t *v);
int ips2_upk_i64(int64_t *v);
int ips2_upk_str(char **s);                               /* *s is malloc'd and NUL-terminated */
int ips2_upk_blob(void **data, size_t *size, size_t max); /* *data malloc'd */
/* *out: a malloc'd NULL-terminated array of at most IPS2_PROTO_LIST_MAX
 * malloc'd strings (what was read on failure; NULL if none); *count, if
 * not NULL, its length. */
int ips2_upk_strv(char ***out, size_t *count);

/* Returns from the calling function with expr's value if it is negative
 * (a PVM error code): the packing and unpacking sequences of a message. */
#define IPS2_TRY(expr)                                                                             \
    do {                                                                                           \
        int rc_ = (expr);                                                                          \
        if (rc_ < 0)                                                                               \
            return rc_;                                                                            \
    } while (0)

#endif /* IPS2_PROTO_H */
