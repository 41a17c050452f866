/*
 * collect.h - what the collector programs share (private to collectors/):
 * one sampling loop (collect_loop.c) and a collector's operations.
 *
 * A collector program is run by the slave beside the processes of its
 * machine as
 *
 *     ips2-collect-KIND -d TRACE-DIR ?-i INTERVAL-MS? ?-p PID ...?
 *
 * and learns the processes to watch three ways: -p on the command line;
 * "PID" lines on stdin (the slave writes each process it starts); and the
 * trace directory, watched with inotify, where every traced process,
 * forked children too, makes streams named PID.IMAGE.TID.raw.  A line
 * "end PID" on stdin means the process has exited but is not yet reaped
 * (a zombie keeps its final counts in /proc): the loop samples it one last
 * time, forgets it and answers "PID" on stdout; "ready" on stdout says
 * that the first samples (the machine's) are taken.  End of stdin, SIGTERM or
 * SIGINT: a final sample of everything, then exit 0.
 *
 * Samples go to TRACE-DIR/KIND.PID.ext (ips2_external.h), every metric a
 * counter, written when its value changed (and always the first and last
 * time), one write per round; a process record comes before a process's
 * first sample.  A "PID" line for a pid whose process has ended is a new
 * process under a reused pid: a new record, counters from 0.  A collector that cannot work here (no
 * perf_event_open, no /proc) writes one note "unavailable: WHY" and
 * exits 0.
 */
#ifndef IPS2_COLLECT_H
#define IPS2_COLLECT_H

#include <stdbool.h>
#include <stdint.h>

#define COLLECT_WHY_MAX 512

struct collect_ops {
    const char *kind;           /* "os", "hw": the file's collector name */
    const char *const *metrics; /* names (ips2_metric_name), all counters */
    const char *const *units;
    int nmetrics;
    bool machine; /* also samples the machine as a whole (pid 0) */
    /* -1 with why set: the collector cannot work here */
    int (*init)(void **state, char *why);
    /* a process to watch: -1 with why set if it cannot be watched */
    int (*open_pid)(void *state, uint32_t pid, void **priv, char *why);
    /* reads the counters of pid (0: the machine) into v[nmetrics];
     * -1 if the process is gone */
    int (*read)(void *state, uint32_t pid, void *priv, double *v);
    void (*close_pid)(void *state, void *priv);
    void (*fini)(void *state);
};

/* The whole program: arguments, loop, exit status. */
int collect_main(int argc, char **argv, const struct collect_ops *ops);

#endif /* IPS2_COLLECT_H */
