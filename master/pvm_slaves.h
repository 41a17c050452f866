/*
 * pvm_slaves.h - the master's slaves: spawning one ips2slave per machine,
 * supervising them (PVM notifications of task exit and host deletion),
 * sending them their work and receiving what they report, all from the
 * Tcl event loop (pvm_slaves.c).  The protocol is slave/ips2_proto.h.
 */
#ifndef IPS2_PVM_SLAVES_H
#define IPS2_PVM_SLAVES_H

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
    void (*progress)(void *arg, int slave, const char *stage, int64_t done, int64_t total);
    void (*problem)(void *arg, int slave, const char *text);
    /* data is malloc'd and now the callee's */
    void (*reductions)(void *arg, int slave, int query, void *data, size_t size);
    void (*done)(void *arg, int slave, int query, int ok);
    void (*query_failed)(void *arg, int slave, int query, const char *why);
    /* the slave's task ended (or its host left the VM) without being told to quit */
    void (*died)(void *arg, int slave, const char *why);
    /* the slave's task is gone, for whatever reason (after died, if it died) */
    void (*ended)(void *arg, int slave);
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

/* Whether the slave's task is still there, and how many still are. */
int ips2_slaves_alive(const struct ips2_slaves *s, int slave);
int ips2_slaves_live(const struct ips2_slaves *s);

/* Tells every live slave to quit (their ends come as ended events). */
void ips2_slaves_quit_all(struct ips2_slaves *s);

/* Messages of ips2_proto.h; each returns 0 or a negative PVM code. */
int ips2_slaves_config(struct ips2_slaves *s, int slave, const char *session_dir,
                       const char *machine, const char *host, int64_t session_start,
                       int64_t interval_ns, int64_t grace_ms, uint32_t flags);
int ips2_slaves_process(struct ips2_slaves *s, int slave, const char *app, int index,
                        const char *cwd, int64_t timeout_ms, int argc, const char *const *argv,
                        int nenv, const char *const *env_names, const char *const *env_values);
int ips2_slaves_replay(struct ips2_slaves *s, int slave, const char *session, const char *trace_dir,
                       const char *prefix, int napps, const char *const *apps, int nexpected,
                       const char *const *expected_apps, const int *expected_pids);
int ips2_slaves_collector(struct ips2_slaves *s, int slave, const char *kind, int64_t interval_ms);
int ips2_slaves_go(struct ips2_slaves *s, int slave);
int ips2_slaves_reduce(struct ips2_slaves *s, int slave, int query, const char *trace_dir,
                       int64_t session_start, int64_t start, int64_t end, int64_t interval_ns);
int ips2_slaves_quit(struct ips2_slaves *s, int slave);

#endif /* IPS2_PVM_SLAVES_H */
