/*
 * slave_proto.h - ips2slave's side of the master/slave protocol
 * (ips2_proto.h): the messages it receives, unpacked into structs, and
 * the ones it sends.  Every function works on PVM's active buffers and
 * returns 0 or a negative PVM error code.
 */
#ifndef IPS2_SLAVE_PROTO_H
#define IPS2_SLAVE_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "slave_run.h"

struct slave_config {
    uint32_t version;
    char *session_dir, *machine, *host;
    int64_t session_start; /* CLOCK_REALTIME ns */
    int64_t interval_ns;
    int64_t grace_ms;
    uint32_t flags; /* IPS2_CONFIG_* */
};

struct slave_process {
    char *app;
    int32_t index;
    char *cwd;
    int64_t timeout_ms;
    char **argv;             /* NULL-terminated */
    char **env;              /* NAME=VALUE, NULL-terminated */
    uint32_t hold;           /* 1: waits for its RELEASE */
    char *ready, *ready_arg; /* "" or "tcp"/"file", and its port or path */
    int64_t ready_timeout_ms;
    uint32_t spawn_size, spawn_rank; /* one of a PVM sibling group (size 0: none) */
    int tid, pid;                    /* the slave's: a spawned task's */
    int state;                       /* the slave's: 0 not started, 1 started or refused */
    int exe_kind;                    /* the slave's: enum slave_exe_kind of its program */
};

struct slave_expected {
    char *app;
    int32_t pid;
};

struct slave_replay {
    char *session, *trace_dir, *prefix;
    char **apps; /* NULL-terminated; none: all */
    size_t napps;
    struct slave_expected *expected;
    size_t nexpected;
};

/* RELEASE: start a held process (why "") or refuse it; STOP: signal it. */
struct slave_release {
    char *app;
    int32_t index;
    char *why;
};

struct slave_stop {
    char *app;
    int32_t index, signal;
    int64_t grace_ms;
};

/* A REDUCE query: one directory for one phase. */
struct slave_reduce {
    int32_t query;
    char *trace_dir;
    int64_t session_start, start, end, interval_ns;
};

/* Unpack the message in the active receive buffer. */
int slave_upk_config(struct slave_config *c);
int slave_upk_process(struct slave_process *p);
int slave_upk_replay(struct slave_replay *r);
int slave_upk_reduce(struct slave_reduce *q);
int slave_upk_release(struct slave_release *m); /* free app and why */
int slave_upk_stop(struct slave_stop *m);       /* free app */

void slave_config_free(struct slave_config *c);
void slave_process_free(struct slave_process *p);
void slave_replay_free(struct slave_replay *r);
void slave_reduce_free(struct slave_reduce *q);

/* Send to the master. */
int slave_send_hello(int master, const char *machine, const char *host, int pid,
                     int64_t real_minus_mono);
int slave_send_started(int master, const char *app, int index, int pid);
int slave_send_exited(int master, const struct slave_proc_end *end);
int slave_send_note(int master, const char *text);
int slave_send_part(int master, const char *path);
int slave_send_pong(int master, int32_t seq);
int slave_send_ready(int master, const char *app, int index, int ok, const char *text);
int slave_send_progress(int master, int stage, int64_t done, int64_t total);
int slave_send_problem(int master, const char *text);
int slave_send_reductions(int master, int query, const void *data, size_t size);
int slave_send_done(int master, int query, int ok);
int slave_send_query_failed(int master, int query, const char *why);
int slave_send_packed(int master, int packed, int raw, int64_t cpu_ns);

#endif /* IPS2_SLAVE_PROTO_H */
