/*
 * slave_collect.h - the external data collectors a slave runs beside the
 * processes of its machine (collectors/collect.h says how a collector
 * program behaves; private to slave/, used by slave_run.c).
 *
 * The set starts its collectors just before the first process, tells
 * them every process started, lets them take a last sample of a process
 * that has exited but is not reaped yet (a zombie keeps its final counts),
 * and stops them after the last process ended, so that their files are
 * complete before the slave reduces.  A collector that cannot be started
 * leaves a file with one note saying why, which the reduction reports.
 * None can hold the slave up for long: one that misses a deadline or stops
 * reading its input is asked nothing more and named in such a note; one
 * that does not end in time is killed with its process group.
 *
 * Environment: IPS2_COLLECTOR_ANSWER_MS (default 2000) and
 * IPS2_COLLECTOR_STOP_MS (default 5000) set the deadlines;
 * IPS2_COLLECTOR_PATH, directories searched for ips2-collect-KIND before
 * the slave's own (tests' fake collectors).
 */
#ifndef IPS2_SLAVE_COLLECT_H
#define IPS2_SLAVE_COLLECT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct slave_collectors;

/* An empty set for trace_dir (where the files go) and output_dir (their
 * stderr).  NULL on OOM. */
struct slave_collectors *slave_collectors_new(const char *trace_dir, const char *output_dir);

/* Adds a collector of kind ("os", "hw": the program ips2-collect-KIND
 * beside the slave's own executable) sampling every interval_ms.  0, or
 * -1 with err set (a kind that is no name). */
int slave_collectors_add(struct slave_collectors *c, const char *kind, int64_t interval_ms,
                         char *err, size_t errsize);

/* Starts them all (once; later calls do nothing) and waits until each has
 * taken its first sample (it says "ready"; at most a couple of seconds). */
void slave_collectors_start(struct slave_collectors *c);

/* A process started / has exited and is not yet reaped: each running
 * collector samples it one last time (waits for their answers, at most the
 * answer deadline; one that misses it is not asked again). */
void slave_collectors_pid(struct slave_collectors *c, pid_t pid);
void slave_collectors_final(struct slave_collectors *c, pid_t pid);

/* Whether pid is one of the running collectors. */
bool slave_collectors_owns(const struct slave_collectors *c, pid_t pid);

/* Whether the set was started and not yet stopped. */
bool slave_collectors_running(const struct slave_collectors *c);

/* Ends them (end of input, then SIGKILL of their process groups after the
 * stop deadline) and reaps them; never blocks past the deadline for one
 * that lives on. */
void slave_collectors_stop(struct slave_collectors *c);

/* Stops what runs and frees the set. */
void slave_collectors_free(struct slave_collectors *c);

#endif /* IPS2_SLAVE_COLLECT_H */
