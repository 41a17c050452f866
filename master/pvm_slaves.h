/*
 * pvm_slaves.h - the master's slaves: spawning one ips2slave per machine,
 * supervising them (PVM notifications of task exit and host deletion),
 * sending them their work and receiving what they report, all from the
 * Tcl event loop (pvm_slaves.c).  The protocol is slave/ips2_proto.h.  It
 * is the master's only PVM layer: the critical-path conversation
 * (cpa_slaves.c) claims slaves of a set and speaks through the
 * ips2_slaves_cpa_* functions below.
 */
#ifndef IPS2_PVM_SLAVES_H
#define IPS2_PVM_SLAVES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pvm_vm.h"

/* What the slaves report; `slave` is the index ips2_slaves_spawn() gave.
 * Called from the event loop; a callback may free the slave set. */
struct ips2_slave_events {
    void (*hello)(void *arg, int slave, const char *host, int pid, int64_t real_minus_mono);
    void (*started)(void *arg, int slave, const char *app, int index, int pid);
    void (*exited)(void *arg, int slave, const char *app, int index, int pid, int how, int code,
                   const char *text);
    /* a readiness check passed (ok 1) or not (ok 0, text why) */
    void (*ready)(void *arg, int slave, const char *app, int index, int ok, const char *text);
    void (*progress)(void *arg, int slave, const char *stage, int64_t done, int64_t total);
    void (*problem)(void *arg, int slave, const char *text);
    void (*note)(void *arg, int slave, const char *text);
    /* a PAG part the slave wrote (its path on the slave's host) */
    void (*part)(void *arg, int slave, const char *path);
    /* data is malloc'd and now the callee's */
    void (*reductions)(void *arg, int slave, int query, void *data, size_t size);
    void (*done)(void *arg, int slave, int query, int ok);
    /* the run's packing ended (after its DONE): streams packed, kept raw */
    void (*packed)(void *arg, int slave, int packed, int raw, int64_t cpu_ns);
    void (*query_failed)(void *arg, int slave, int query, const char *why);
    /* the slave's task ended (or its host left the VM) without being told to quit */
    void (*died)(void *arg, int slave, const char *why);
    /* the slave's task is gone, for whatever reason (after died, if it died) */
    void (*ended)(void *arg, int slave);
    /* the machine's clock minus the master's, the error bound, the round trip it came
       from and the exchanges made (CLOCK, docs/CLOCKS.md) */
    void (*clock)(void *arg, int slave, int64_t offset, int64_t error, int64_t rtt,
                  uint32_t samples);
};

struct ips2_slaves;

/* A slave set over an open VM, reporting to ev.  slave_path: the
 * absolute path of ips2slave on every host.  Hooks the PVM socket into
 * the Tcl event loop.  NULL with err set on failure. */
struct ips2_slaves *ips2_slaves_new(struct ips2_vm *vm, const char *slave_path,
                                    const struct ips2_slave_events *ev, void *arg, char *err,
                                    size_t errsize);

/* Sends QUIT to every live slave, waits (blocking, a few seconds at most;
 * slaves go at once) for them to end, unhooks from the event loop and
 * frees the set (later, if called from one of its callbacks). */
void ips2_slaves_free(struct ips2_slaves *s);

/* Spawns the slave of machine on host (added to the VM if it is not in
 * it) and asks for its exit notification.  Returns its index, or -1 with
 * err set ("cannot start ips2slave on HOST: ..."). */
int ips2_slaves_spawn(struct ips2_slaves *s, const char *machine, const char *host, char *err,
                      size_t errsize);

/* Adds to the VM, in one pvm_addhosts() (PVM starts their pvmds at
 * once), every host of hosts that is not this one and not in it yet; a
 * host that cannot be added is remembered with why, and a spawn there
 * fails with that at once.  Returns how many were added. */
int ips2_slaves_add_hosts(struct ips2_slaves *s, const char *const *hosts, int n);

/* Whether the slave's task is still there, and how many still are. */
int ips2_slaves_alive(const struct ips2_slaves *s, int slave);
int ips2_slaves_live(const struct ips2_slaves *s);

/* Tells every live slave to quit (their ends come as ended events). */
void ips2_slaves_quit_all(struct ips2_slaves *s);

/* Messages of ips2_proto.h; each returns 0 or a negative PVM code. */
int ips2_slaves_config(struct ips2_slaves *s, int slave, const char *session_dir,
                       const char *machine, const char *host, int64_t session_start,
                       int64_t interval_ns, int64_t grace_ms, uint32_t flags);
/* A process's start order (PROCESS's last fields): held until RELEASE;
 * ready "" (none), "tcp" or "file", with its argument and timeout. */
struct ips2_start_order {
    bool hold;
    const char *ready, *ready_arg;
    int64_t ready_timeout_ms;
    int spawn_size, spawn_rank; /* one of a PVM sibling group; size 0: none */
};
int ips2_slaves_process(struct ips2_slaves *s, int slave, const char *app, int index,
                        const char *cwd, int64_t timeout_ms, int argc, const char *const *argv,
                        int nenv, const char *const *env_names, const char *const *env_values,
                        const struct ips2_start_order *order);
int ips2_slaves_release(struct ips2_slaves *s, int slave, const char *app, int index,
                        const char *why);
int ips2_slaves_stop(struct ips2_slaves *s, int slave, const char *app, int index, int sig,
                     int64_t grace_ms);
int ips2_slaves_replay(struct ips2_slaves *s, int slave, const char *session, const char *trace_dir,
                       const char *prefix, int napps, const char *const *apps, int nexpected,
                       const char *const *expected_apps, const int *expected_pids);
int ips2_slaves_collector(struct ips2_slaves *s, int slave, const char *kind, int64_t interval_ms);
int ips2_slaves_go(struct ips2_slaves *s, int slave);
int ips2_slaves_reduce(struct ips2_slaves *s, int slave, int query, const char *trace_dir,
                       int64_t session_start, int64_t start, int64_t end, int64_t interval_ns);
int ips2_slaves_quit(struct ips2_slaves *s, int slave);

/* Whether this process is connected to a pvmd now (without connecting). */
bool ips2_slaves_connected(void);
/* Whether the set was freed (it stays readable while Tcl_Preserve'd). */
bool ips2_slaves_closed(const struct ips2_slaves *s);
/* A live slave of machine (the first spawned), or -1. */
int ips2_slaves_find(const struct ips2_slaves *s, const char *machine);
const char *ips2_slaves_machine(const struct ips2_slaves *s, int slave);
/* Kills the slave's task (SIGKILL through its pvmd: a stopped one too). */
void ips2_slaves_kill(struct ips2_slaves *s, int slave);
/* A new number for a request to the set's slaves, larger than every
 * earlier one (slaves drop the messages of older queries). */
int32_t ips2_slaves_next_id(struct ips2_slaves *s);

/* --- the critical-path conversation (ips2_proto.h, 300-399) ---------------- */

/* A slave's STATUS (text: the callee's for the call only). */
struct ips2_slave_cpa_status {
    int32_t query;
    uint32_t state; /* enum ips2_cpa_state */
    int64_t sent, received;
    uint32_t found;
    int64_t gid, length;
    const char *text;
    uint32_t probe; /* the probe round answered, 0: none */
    uint32_t part;  /* the part text is about */
};

/* What a claimed slave says in that conversation; called from the event
 * loop.  Strings are the callee's for the call only; blobs are malloc'd
 * and now the callee's. */
struct ips2_slave_cpa_events {
    void (*loaded)(void *arg, int slave, int32_t id, uint32_t part, const char *err, void *ends,
                   size_t nends, void *meta, size_t nmeta, char *const *warnings, size_t nwarnings);
    void (*ready)(void *arg, int slave, int32_t id, uint32_t part, const char *err);
    void (*status)(void *arg, int slave, const struct ips2_slave_cpa_status *st);
    void (*segments)(void *arg, int slave, int32_t query, uint32_t seq, int done, void *chunk,
                     size_t size, const char *err);
    /* a message of the conversation that does not unpack */
    void (*bad)(void *arg, int slave, int tag);
    /* the slave's task is gone (also one told to quit) */
    void (*gone)(void *arg, int slave, const char *why);
};

/* Routes the slave's critical-path messages to ev: 0, or -1 if another
 * conversation has it.  Unclaiming stops them (and nothing is sent). */
int ips2_slaves_claim(struct ips2_slaves *s, int slave, const struct ips2_slave_cpa_events *ev,
                      void *arg);
void ips2_slaves_unclaim(struct ips2_slaves *s, int slave);
bool ips2_slaves_claimed(const struct ips2_slaves *s, int slave);

/* Messages of ips2_proto.h's 300-319 and WALK; each returns 0 or a
 * negative PVM code.  holders[p]: the slave holding part p (its tid is
 * sent); apps and zero_apps: count entries, the names of parts[]. */
int ips2_slaves_cpa_load(struct ips2_slaves *s, int slave, int32_t id, const char *file,
                         uint32_t part, uint32_t nparts);
int ips2_slaves_cpa_cross(struct ips2_slaves *s, int slave, int32_t id, uint32_t part,
                          const void *arcs, size_t size, uint32_t nparts, const int *holders);
int ips2_slaves_cpa_query(struct ips2_slaves *s, int slave, int32_t query, uint32_t mode,
                          const char *zero_procedure, int32_t zero_process, uint32_t zero_part,
                          int32_t zero_pid, uint32_t count, const uint32_t *parts,
                          const char *const *apps, const char *const *zero_apps);
int ips2_slaves_cpa_probe(struct ips2_slaves *s, int slave, int32_t query, uint32_t round);
int ips2_slaves_cpa_end(struct ips2_slaves *s, int slave, int32_t query);
int ips2_slaves_cpa_walk(struct ips2_slaves *s, int slave, int32_t query, uint32_t seq,
                         const void *walk, size_t size);

#endif /* IPS2_PVM_SLAVES_H */
