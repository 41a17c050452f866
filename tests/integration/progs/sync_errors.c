/*
 * sync_errors.c - synchronisation calls that fail, and calls whose result
 * depends on details a tracer could get wrong; prints every return value
 * and errno, so that a traced run can be compared with an untraced one.
 *
 *   sync_errors
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void show(const char *what, int rc)
{
    printf("%-28s rc=%d errno=%d\n", what, rc, errno);
    errno = 0;
}

static struct timespec past(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec -= 1;
    return ts;
}

static struct timespec soon(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 20 * 1000 * 1000;
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    return ts;
}

int main(void)
{
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_t ec;
    pthread_mutex_t rec;
    pthread_mutexattr_t attr;
    pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
    pthread_cond_t c = PTHREAD_COND_INITIALIZER;
    sem_t s;
    struct timespec bad = {0, 2000000000L};
    struct timespec ts;

    errno = 0;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&ec, &attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&rec, &attr);

    show("mutex lock", pthread_mutex_lock(&m));
    show("mutex trylock held", pthread_mutex_trylock(&m));
    ts = past();
    show("mutex timedlock held", pthread_mutex_timedlock(&m, &ts));
    show("mutex unlock", pthread_mutex_unlock(&m));
    show("mutex timedlock bad free", pthread_mutex_timedlock(&m, &bad));
    show("mutex unlock", pthread_mutex_unlock(&m));
    ts = past();
    show("mutex clocklock bad clock", pthread_mutex_clocklock(&m, CLOCK_PROCESS_CPUTIME_ID, &ts));
    show("errorcheck unlock unheld", pthread_mutex_unlock(&ec));
    show("errorcheck lock", pthread_mutex_lock(&ec));
    show("errorcheck relock", pthread_mutex_lock(&ec));
    show("errorcheck unlock", pthread_mutex_unlock(&ec));
    show("recursive lock", pthread_mutex_lock(&rec));
    show("recursive relock", pthread_mutex_lock(&rec));
    show("recursive trylock", pthread_mutex_trylock(&rec));
    show("recursive unlock", pthread_mutex_unlock(&rec));
    show("recursive unlock", pthread_mutex_unlock(&rec));
    show("recursive unlock", pthread_mutex_unlock(&rec));
    show("recursive unlock unheld", pthread_mutex_unlock(&rec));

    show("rwlock wrlock", pthread_rwlock_wrlock(&rw));
    show("rwlock rdlock own write", pthread_rwlock_rdlock(&rw));
    show("rwlock tryrdlock", pthread_rwlock_tryrdlock(&rw));
    ts = past();
    show("rwlock timedwrlock held", pthread_rwlock_timedwrlock(&rw, &ts));
    show("rwlock unlock", pthread_rwlock_unlock(&rw));
    show("rwlock timedwrlock bad free", pthread_rwlock_timedwrlock(&rw, &bad));
    show("rwlock timedrdlock bad free", pthread_rwlock_timedrdlock(&rw, &bad));

    pthread_mutex_lock(&m);
    ts = soon();
    show("cond timedwait timeout", pthread_cond_timedwait(&c, &m, &ts));
    show("mutex unlock after cond", pthread_mutex_unlock(&m));

    show("sem init", sem_init(&s, 0, 1));
    show("sem trywait", sem_trywait(&s));
    show("sem trywait empty", sem_trywait(&s));
    ts = past();
    show("sem timedwait empty", sem_timedwait(&s, &ts));
    show("sem post", sem_post(&s));
    show("sem timedwait bad token", sem_timedwait(&s, &bad));
    ts = past();
    show("sem clockwait bad clock", sem_clockwait(&s, CLOCK_PROCESS_CPUTIME_ID, &ts));
    errno = 4242;
    show("sem wait keeps errno", sem_wait(&s));
    errno = 4243;
    show("sem post keeps errno", sem_post(&s));
    int v = -1;
    sem_getvalue(&s, &v);
    printf("sem value %d\n", v);
    show("sem destroy", sem_destroy(&s));
    show("mutex destroy", pthread_mutex_destroy(&m));
    show("rwlock destroy", pthread_rwlock_destroy(&rw));
    return 0;
}
