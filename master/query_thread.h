/*
 * query_thread.h - private to master/: a session's background thread
 * (query_thread.c), without Tcl.  Queries too long for the interpreter's
 * thread (a critical path in this process, a phase's re-reduction) are
 * pushed as jobs; the thread runs them one at a time in the order pushed
 * and calls each job's done() on its own thread when it is over, so that
 * the binding can hand the result to the interpreter's thread (tcl_async.c
 * queues a Tcl event).  A job cancelled before it starts is not run; its
 * done() is still called, so that whoever waits for it is told.
 */
#ifndef IPS2_MASTER_QUERY_THREAD_H
#define IPS2_MASTER_QUERY_THREAD_H

#include <stdatomic.h>
#include <stdbool.h>

struct query_job {
    void (*run)(struct query_job *job);  /* on the thread; NULL: nothing to do there */
    void (*done)(struct query_job *job); /* on the thread, after run (or instead) */
    atomic_bool cancelled;               /* set on any thread: run is skipped */
    struct query_job *next;              /* the queue's */
};

struct query_thread;

/* A new thread, waiting for jobs; NULL if it could not start. */
struct query_thread *query_thread_new(void);
/* Appends a job (run then done on the thread, in order).  0, or -1 once
 * the thread is closing. */
int query_thread_push(struct query_thread *t, struct query_job *job);
/* The thread goes: the jobs not started are cancelled (their done() is
 * called), the one running finishes, then last(arg) is called on the
 * thread (to free what the jobs used) and the thread ends by itself.  The
 * caller does not wait. */
void query_thread_close(struct query_thread *t, void (*last)(void *arg), void *arg);

#endif /* IPS2_MASTER_QUERY_THREAD_H */
