/*
 * prefault.c - a runtime thread that prefaults stream windows ahead of
 * their writers.
 *
 * A fresh page of a file-backed mapping costs the writing thread about
 * 1 ns a byte here (allocation, zeroing, dirty accounting): more than the
 * records themselves.  So a writer that comes within IPS2_PREFAULT_AHEAD of
 * the end of its populated window asks for more (stream.c, reserve()) and
 * wakes this thread, which populates the pages on another core while the
 * writer goes on; a writer that catches up populates for itself.
 *
 * The thread is started at the first request, with every signal blocked,
 * and never records anything (its calls run quiet).  A forked child starts
 * its own when it needs one.  It is off unless IPS2_PREFAULT=1: an extra
 * thread is not invisible (a main thread that calls pthread_exit() leaves
 * the process to it, unshare(CLONE_NEWUSER) refuses a multithreaded
 * process), and a traced program must behave as untraced by default.
 */
#include <linux/futex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime.h"

static atomic_uint wake_seq;   /* bumped by every request */
static atomic_int started_pid; /* process that has the thread, 0 if none */
static atomic_int disabled = -1;

static void futex_wait(atomic_uint *word, unsigned seen)
{
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
}

static void futex_wake(atomic_uint *word)
{
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *prefaulter(void *unused)
{
    ips2_quiet_begin(); /* for good: nothing this thread does is the program's */
    for (;;) {
        unsigned seen = atomic_load(&wake_seq);
        ips2_streams_populate_wanted();
        futex_wait(&wake_seq, seen);
    }
    return NULL;
}

static void start(void)
{
    pthread_attr_t attr;
    pthread_t thread;
    sigset_t all, old;
    int pid = (int)getpid(), none = 0;

    if (!atomic_compare_exchange_strong(&started_pid, &none, pid))
        return;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 64u << 10);
    if (IPS2_REAL(pthread_create)(&thread, &attr, prefaulter, NULL) != 0)
        atomic_store(&started_pid, -1); /* no thread: writers populate for themselves */
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void ips2_prefault_wake(void)
{
    if (atomic_load(&disabled) < 0) {
        const char *env = getenv("IPS2_PREFAULT");
        atomic_store(&disabled, env == NULL || strcmp(env, "1") != 0);
    }
    if (atomic_load(&disabled))
        return;
    if (atomic_load(&started_pid) == 0)
        start();
    atomic_fetch_add(&wake_seq, 1);
    futex_wake(&wake_seq);
}

/* In a forked child: the parent's thread is not here. */
void ips2_prefault_forget(void)
{
    atomic_store(&started_pid, 0);
}
