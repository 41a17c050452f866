/*
 * slave_run.h - how ips2slave runs a machine's processes: fork/exec with
 * the tracing environment, output kept in the session, per-process
 * timeouts, stops (a stop condition's signal, then SIGKILL), exit
 * statuses, the collectors beside them.  No PVM here: the
 * slave's main loop waits on slave_runner_fd() and its own PVM socket and
 * calls slave_runner_step().
 */
#ifndef IPS2_SLAVE_RUN_H
#define IPS2_SLAVE_RUN_H

#include <stdint.h>
#include <sys/types.h>

#include "ips2_proto.h" /* enum ips2_proc_how */

#define SLAVE_TEXT_MAX 512

struct slave_runner;

/* One process to run. */
struct slave_proc_spec {
    const char *app;    /* IPS2_APP, and the output files' name */
    int index;          /* its number in the application */
    const char *cwd;    /* working directory; NULL or "": the slave's */
    char *const *argv;  /* command; argv[0] found through PATH if it has no '/' */
    char *const *env;   /* NAME=VALUE to add or override; NULL-terminated or NULL */
    int64_t timeout_ms; /* 0: none */
};

/* How it ended. */
struct slave_proc_end {
    const char *app;
    int index;
    pid_t pid; /* 0 if it never started */
    enum ips2_proc_how how;
    int code;                  /* exit status, signal, or errno (FAILED) */
    char text[SLAVE_TEXT_MAX]; /* FAILED: why; TIMEOUT: "timeout after N s" (code: the signal
                                  that ended it), or if it exited on the SIGTERM (code 0)
                                  "timeout after N s: stopped with SIGTERM, exited S"; else "" */
};

typedef void slave_end_fn(void *arg, const struct slave_proc_end *end);

/* A problem of the run found by the runner itself (a descendant stopped
 * at the run's timeout), as one line of text. */
typedef void slave_note_fn(void *arg, const char *text);

/* A runner whose processes trace into trace_dir (IPS2_SESSION) and write
 * output_dir/APP.INDEX.stdout and .stderr.  Both directories are made if
 * missing.  grace_ms: time between SIGTERM and SIGKILL at a timeout.
 * Blocks SIGCHLD in the calling thread (the runner reads it from a
 * signalfd); children get it unblocked.  Makes the calling process a
 * child subreaper, so that descendants the processes leave behind (a
 * daemon: fork + setsid, the parent exits) are the runner's to wait for.
 * Returns NULL with err set. */
struct slave_runner *slave_runner_new(const char *trace_dir, const char *output_dir,
                                      int64_t grace_ms, char *err, size_t errsize);

/* Kills (SIGKILL) what still runs, reaps it, frees the runner. */
void slave_runner_free(struct slave_runner *r);

/* Starts a process.  Returns its pid, or 0 if it could not start; either
 * way its end is reported by a later slave_runner_step() (a process that
 * could not start ends as IPS2_PROC_FAILED at once). */
pid_t slave_runner_start(struct slave_runner *r, const struct slave_proc_spec *spec);

/* Runs a collector (ips2-collect-KIND beside the slave's executable,
 * slave_collect.h) beside the processes: it starts just before the first
 * process and stops after the last one ended.  0, or -1 with err set. */
int slave_runner_add_collector(struct slave_runner *r, const char *kind, int64_t interval_ms,
                               char *err, size_t errsize);

/* Readable when a child may have ended. */
int slave_runner_fd(const struct slave_runner *r);

/* Milliseconds until the next timeout action is due (0: now), or -1. */
int slave_runner_wait_ms(const struct slave_runner *r);

/* Reaps ended children, applies due timeouts (SIGTERM to the process
 * group, then SIGKILL after the grace time) and reports each end through
 * fn.  Returns the number of processes still running. */
int slave_runner_step(struct slave_runner *r, slave_end_fn *fn, void *arg);

/* Where the runner's own problems go (none by default). */
void slave_runner_on_note(struct slave_runner *r, slave_note_fn *fn, void *arg);

/* Processes started (or failed) so far, and how many still run: the
 * processes and the descendants they left running (daemons), which the
 * run waits for too, and to which the run's latest timeout applies. */
int slave_runner_count(const struct slave_runner *r);
int slave_runner_running(const struct slave_runner *r);

/* A process that will not start (a held process its master refused,
 * text why): reported by the next step as IPS2_PROC_FAILED. */
void slave_runner_refuse(struct slave_runner *r, const struct slave_proc_spec *spec,
                         const char *why);

/* Sends sig to the group of a running process (a stop condition) and
 * SIGKILL after grace_ms if it still runs.  0, or -1 if it does not run. */
int slave_runner_stop(struct slave_runner *r, const char *app, int index, int sig,
                      int64_t grace_ms);

/* SIGKILL to every process group still running (they are reported by
 * the next steps as signalled) and to the descendants left running. */
void slave_runner_kill_all(struct slave_runner *r);

/* How many of the running are descendants the processes left running. */
int slave_runner_descendants(const struct slave_runner *r);

#endif /* IPS2_SLAVE_RUN_H */
