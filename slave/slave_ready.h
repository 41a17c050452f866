/*
 * slave_ready.h - readiness checks of a machine's processes (the workload's
 * -ready {tcp PORT} and -ready {file PATH}), done by the slave on its own
 * machine without sleeps: a file is waited for with inotify on the nearest
 * directory that exists; a TCP port is looked up among the listening
 * sockets of /proc/PID/net/tcp and tcp6 (the process's network namespace)
 * on a short timer of the slave's loop.  No PVM here: the slave's loop
 * polls slave_ready_fd() with slave_ready_wait_ms() and calls
 * slave_ready_step(), which reports each check once, passed or not.
 */
#ifndef IPS2_SLAVE_READY_H
#define IPS2_SLAVE_READY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct slave_ready;

/* NULL when out of memory or without inotify (err says why). */
struct slave_ready *slave_ready_new(char *err, size_t errsize);
void slave_ready_free(struct slave_ready *w);

/* Watches process pid (id: the caller's number for it) until kind "tcp"
 * (arg a port) or "file" (arg an absolute path) holds, or timeout_ms
 * passes.  0, or -1 with err set (a kind or argument it cannot check). */
int slave_ready_add(struct slave_ready *w, int id, const char *kind, const char *arg, pid_t pid,
                    int64_t timeout_ms, char *err, size_t errsize);

/* The process id ended: its check, if still open, is reported as failed
 * at the next step ("ended before it was ready"). */
void slave_ready_ended(struct slave_ready *w, int id);

/* Readable when a watched directory changed; -1 if none. */
int slave_ready_fd(const struct slave_ready *w);
/* Milliseconds until the next check or timeout is due (0: now), -1: none. */
int slave_ready_wait_ms(const struct slave_ready *w);
/* Checks the open watches; each one that passed (ok 1) or failed (ok 0,
 * text why) is reported once through fn and dropped. */
typedef void slave_ready_fn(void *arg, int id, int ok, const char *text);
void slave_ready_step(struct slave_ready *w, slave_ready_fn *fn, void *arg);
/* Watches still open. */
int slave_ready_open(const struct slave_ready *w);

#endif /* IPS2_SLAVE_READY_H */
