/*
 * children.h - what the wrappers that create and reap child processes
 * share (fork_exec.c, vfork.c, spawn.c, wait.c): one way to record a wait
 * for a child, and the exec family resolved ahead of a vfork.
 */
#ifndef IPS2_CHILDREN_H
#define IPS2_CHILDREN_H

#include <stdint.h>
#include <sys/types.h>

#include "runtime.h"

/* True when a wrapper that creates or reaps a child must record nothing:
 * libips2 is not set up, or the thread's writer is busy (its slow path, or
 * a vfork child running in the parent's memory).  Unlike
 * ips2_passthrough(), quiet sections (inside a PVM call, say) still record:
 * a child started or reaped by a library is still this process's child,
 * and the process tree must stay whole. */
static inline int ips2_children_untraced(void)
{
    return !ips2_proc.initialized || ips2_self.busy;
}

/* Records WAIT (ips2_format.h): pid reaped or reported (0 if none), its
 * wait status as waitpid() encodes it, the timer when the wait began, the
 * call (enum ips2_wait_call), its options and the error (0 or errno). */
void ips2_wait_record(pid_t pid, int status, uint64_t start, unsigned call, int options, int err);

/* Looks up the libc exec functions now, so that a vfork child, which shares
 * the parent's memory, never runs dlsym. */
void ips2_exec_prepare(void);

#endif /* IPS2_CHILDREN_H */
