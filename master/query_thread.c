/*
 * query_thread.c - a session's background thread (query_thread.h): a
 * FIFO of jobs under a mutex and a condition variable, served by one
 * detached pthread that frees itself when closed.  The thread runs at a
 * lower priority than the one that made it (Linux: a thread has its own
 * nice value), so that on a busy machine the interpreter's event loop
 * wins the CPU over a long query.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NICER 5 /* added to the thread's nice value */

#include "query_thread.h"

struct query_thread {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    struct query_job *head, *tail;
    bool closing;
    void (*last)(void *arg);
    void *last_arg;
};

static struct query_job *next_job(struct query_thread *t)
{
    pthread_mutex_lock(&t->lock);
    while (t->head == NULL && !t->closing)
        pthread_cond_wait(&t->wake, &t->lock);
    struct query_job *job = t->head;
    if (job != NULL) {
        t->head = job->next;
        if (t->head == NULL)
            t->tail = NULL;
        if (t->closing)
            atomic_store(&job->cancelled, true);
    }
    pthread_mutex_unlock(&t->lock);
    return job;
}

static void *serve(void *arg)
{
    struct query_thread *t = arg;
    struct query_job *job;
    id_t self = (id_t)syscall(SYS_gettid);
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, self);
    if (errno == 0)
        (void)setpriority(PRIO_PROCESS, self, nice + NICER);
    while ((job = next_job(t)) != NULL) {
        if (job->run != NULL && !atomic_load(&job->cancelled))
            job->run(job);
        job->done(job);
    }
    if (t->last != NULL)
        t->last(t->last_arg);
    pthread_cond_destroy(&t->wake);
    pthread_mutex_destroy(&t->lock);
    free(t);
    return NULL;
}

struct query_thread *query_thread_new(void)
{
    struct query_thread *t = calloc(1, sizeof *t);
    pthread_t id;
    pthread_attr_t attr;
    if (t == NULL)
        return NULL;
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->wake, NULL);
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&id, &attr, serve, t);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        pthread_cond_destroy(&t->wake);
        pthread_mutex_destroy(&t->lock);
        free(t);
        return NULL;
    }
    return t;
}

int query_thread_push(struct query_thread *t, struct query_job *job)
{
    pthread_mutex_lock(&t->lock);
    if (t->closing) {
        pthread_mutex_unlock(&t->lock);
        return -1;
    }
    job->next = NULL;
    if (t->tail != NULL)
        t->tail->next = job;
    else
        t->head = job;
    t->tail = job;
    pthread_cond_signal(&t->wake);
    pthread_mutex_unlock(&t->lock);
    return 0;
}

void query_thread_close(struct query_thread *t, void (*last)(void *arg), void *arg)
{
    pthread_mutex_lock(&t->lock);
    t->closing = true;
    t->last = last;
    t->last_arg = arg;
    pthread_cond_signal(&t->wake);
    pthread_mutex_unlock(&t->lock);
}
