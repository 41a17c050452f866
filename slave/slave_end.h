/*
 * slave_end.h - the end of a run on a machine: no trace is reduced or
 * packed while a process still writes it (slave_end.c).  The runner
 * (slave_run.h) waits for the workload's processes and the descendants
 * they leave behind; what can still write then is a process that is not
 * the slave's to wait for, above all a PVM task spawned by a workload
 * process (the pvmd's child), left in the virtual machine.
 */
#ifndef IPS2_SLAVE_END_H
#define IPS2_SLAVE_END_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SLAVE_END_MAX 256 /* writers handled at one end of a run */

struct slave_end_ops {
    /* Stops pid its own way (a PVM task: pvm_kill) and says how in how
     * ("a PVM task left in the virtual machine: stopped with pvm_kill");
     * false: not its to stop (it then gets SIGTERM). */
    bool (*stop)(void *arg, pid_t pid, char *how, size_t size);
    /* One problem of the run per writer stopped. */
    void (*problem)(void *arg, const char *text);
    void *arg;
};

/* Finds the processes with a file of trace_dir open for writing, gives them grace_ms
 * to end, stops those left (ops->stop, else SIGTERM), names each through
 * ops->problem, and after grace_ms more sends SIGKILL to those still
 * there (and waits at most a second).  Returns how many were stopped. */
int slave_end_writers(const char *trace_dir, int64_t grace_ms, const struct slave_end_ops *ops);

/* The command name of pid (/proc/PID/comm) into buf, "?" if it is gone:
 * how a process the run stops is named. */
void slave_end_command_of(pid_t pid, char *buf, size_t size);

#endif /* IPS2_SLAVE_END_H */
