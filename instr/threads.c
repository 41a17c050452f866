/*
 * threads.c - thread creation, exit and join.
 *
 * pthread_create gives each thread a sequence number, recorded in the
 * creator's THREAD_CREATE and the new thread's THREAD_START, so that an
 * analyst can pair them; a small table maps pthread_t to that number for
 * JOIN_BEGIN/JOIN_END.  A thread-specific key's destructor closes the
 * thread's stream however the thread ends (return, pthread_exit, cancel).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "runtime.h"

struct start_args {
    void *(*start)(void *);
    void *arg;
    uint64_t seq;
    pid_t creator;
};

/* pthread_t -> create sequence, for joins.  Open addressing; a full table
 * only costs the join its sequence number (0). */
enum { SEQ_SLOTS = 4096 };
static struct {
    pthread_t thread;
    uint64_t seq;
} seq_table[SEQ_SLOTS];
static pthread_mutex_t seq_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t exit_key;

static size_t slot_of(pthread_t th)
{
    return (size_t)(((uint64_t)th >> 4) * 11400714819323198485ull >> 52) % SEQ_SLOTS;
}

static void seq_put(pthread_t th, uint64_t seq)
{
    ips2_quiet_begin();
    ips2_lock(&seq_lock);
    for (size_t i = slot_of(th), n = 0; n < SEQ_SLOTS; i = (i + 1) % SEQ_SLOTS, n++) {
        if (seq_table[i].seq == 0 || pthread_equal(seq_table[i].thread, th)) {
            seq_table[i].thread = th;
            seq_table[i].seq = seq;
            break;
        }
    }
    ips2_unlock(&seq_lock);
    ips2_quiet_end();
}

/* Looks up (and with take, removes) the sequence number of th. */
static uint64_t seq_get(pthread_t th, int take)
{
    uint64_t seq = 0;

    ips2_quiet_begin();
    ips2_lock(&seq_lock);
    for (size_t i = slot_of(th), n = 0; n < SEQ_SLOTS && seq_table[i].seq != 0;
         i = (i + 1) % SEQ_SLOTS, n++) {
        if (!pthread_equal(seq_table[i].thread, th))
            continue;
        seq = seq_table[i].seq;
        if (take) {
            /* re-insert the rest of the cluster so that lookups still find it */
            seq_table[i].seq = 0;
            for (size_t j = (i + 1) % SEQ_SLOTS; seq_table[j].seq != 0; j = (j + 1) % SEQ_SLOTS) {
                pthread_t t2 = seq_table[j].thread;
                uint64_t s2 = seq_table[j].seq;
                seq_table[j].seq = 0;
                ips2_unlock(&seq_lock);
                seq_put(t2, s2);
                ips2_lock(&seq_lock);
            }
        }
        break;
    }
    ips2_unlock(&seq_lock);
    ips2_quiet_end();
    return seq;
}

static void record_thread_exit(int how)
{
    struct ips2_thread *t = &ips2_self;

    if (t->state == IPS2_THREAD_TRACING && !t->exit_recorded) {
        t->exit_recorded = 1;
        ips2_emit_slow(t, IPS2_EV_THREAD_EXIT, (uint64_t)how, NULL, 0, IPS2_CPU_READ);
    }
}

/* Runs last in every thread that had a stream. */
static void thread_exit_destructor(void *unused)
{
    int saved_errno = errno;
    record_thread_exit(IPS2_EXIT_CANCEL); /* only if nothing else recorded it */
    ips2_thread_close(&ips2_self);
    ips2_filter_thread_end();
    ips2_sync_count_thread_end();
    errno = saved_errno;
}

/* In a forked child: another thread may have held the table's lock. */
void ips2_threads_forget(void)
{
    pthread_mutex_t unlocked = PTHREAD_MUTEX_INITIALIZER;

    seq_lock = unlocked;
}

/* Makes the thread's stream close when the thread ends, however it ends;
 * every thread that opens a stream comes here (also threads that libips2
 * did not see start). */
void ips2_threads_watch(struct ips2_thread *t)
{
    pthread_setspecific(exit_key, t);
}

void ips2_threads_setup(void)
{
    pthread_key_create(&exit_key, thread_exit_destructor);
}

static void *thread_start(void *p)
{
    struct start_args a = *(struct start_args *)p;
    uint64_t extra[2] = {a.seq, (uint64_t)pthread_self()};

    free(p);
    ips2_self.create_seq = a.seq;
    seq_put(pthread_self(), a.seq);
    ips2_emit_slow(&ips2_self, IPS2_EV_THREAD_START, (uint64_t)a.creator, extra, 2, IPS2_CPU_READ);
    void *result = a.start(a.arg);
    record_thread_exit(IPS2_EXIT_RETURN);
    return result;
}

IPS2_EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                               void *(*start)(void *), void *arg)
{
    struct start_args *a;

    if (!ips2_proc.initialized || (a = malloc(sizeof(*a))) == NULL)
        return IPS2_REAL(pthread_create)(thread, attr, start, arg);
    a->start = start;
    a->arg = arg;
    a->seq = atomic_fetch_add(&ips2_proc.thread_seq, 1) + 1;
    a->creator = gettid();
    ips2_emit_slow(&ips2_self, IPS2_EV_THREAD_CREATE, a->seq, NULL, 0, IPS2_CPU_READ);
    uint64_t seq = a->seq; /* a belongs to the new thread once it runs */
    int rc = IPS2_REAL(pthread_create)(thread, attr, thread_start, a);
    if (rc != 0) {
        free(a);
    } else {
        /* the new thread records it too, but a join may come first */
        int saved_errno = errno;
        seq_put(*thread, seq);
        errno = saved_errno;
    }
    return rc;
}

IPS2_EXPORT void pthread_exit(void *result)
{
    record_thread_exit(IPS2_EXIT_CALL);
    IPS2_REAL(pthread_exit)(result);
    __builtin_unreachable();
}

IPS2_EXPORT int pthread_join(pthread_t thread, void **result)
{
    uint64_t seq = seq_get(thread, 0);

    ips2_emit_slow(&ips2_self, IPS2_EV_JOIN_BEGIN, seq, NULL, 0, IPS2_CPU_READ);
    int rc = IPS2_REAL(pthread_join)(thread, result);
    uint64_t status = (uint64_t)rc;
    if (rc == 0)
        seq_get(thread, 1);
    ips2_emit_slow(&ips2_self, IPS2_EV_JOIN_END, seq, &status, 1, IPS2_CPU_READ);
    return rc;
}
