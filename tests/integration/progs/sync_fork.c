/*
 * sync_fork.c - process-shared synchronisation across fork: an unnamed
 * semaphore and a mutex in a MAP_SHARED|MAP_ANONYMOUS region.
 *
 *   sync_fork [posts] [locks]     (default 200 posts, 1000 locks)
 *
 * The parent posts the semaphore `posts` times, the child waits for it as
 * often.  Then a hand-over across the processes that certainly waits: the
 * parent holds the mutex until the child sleeps waiting for it.  Then both
 * lock the shared mutex `locks` times each to bump a shared counter.  The
 * parent prints "posts <n> waits <n> counter <n>" (counter = 2 * locks + 2).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sync_gate.h"

struct shared {
    sem_t items;
    pthread_mutex_t lock;
    long counter;
    long waits;
    atomic_int holding, contending;
};

static void bump(struct shared *s, int locks)
{
    for (int i = 0; i < locks; i++) {
        pthread_mutex_lock(&s->lock);
        s->counter++;
        work(300);
        pthread_mutex_unlock(&s->lock);
        work(100);
    }
}

static void hand_over_parent(struct shared *s, pid_t child)
{
    pthread_mutex_lock(&s->lock);
    s->counter++;
    atomic_store(&s->holding, 1);
    while (atomic_load(&s->contending) == 0)
        ;
    gate_wait_asleep(child, child);
    pthread_mutex_unlock(&s->lock);
}

static void hand_over_child(struct shared *s)
{
    while (atomic_load(&s->holding) == 0)
        ;
    atomic_store(&s->contending, 1);
    pthread_mutex_lock(&s->lock); /* held by the parent: sleeps */
    s->counter++;
    pthread_mutex_unlock(&s->lock);
}

int main(int argc, char **argv)
{
    int posts = argc > 1 ? atoi(argv[1]) : 200;
    int locks = argc > 2 ? atoi(argv[2]) : 1000;
    pthread_mutexattr_t attr;
    struct shared *s =
        mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

    if (s == MAP_FAILED)
        return 1;
    sem_init(&s->items, 1, 0);
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    pthread_mutex_init(&s->lock, &attr);

    pid_t child = fork();
    if (child < 0)
        return 1;
    if (child == 0) {
        for (int i = 0; i < posts; i++) {
            sem_wait(&s->items);
            s->waits++;
        }
        hand_over_child(s);
        bump(s, locks);
        _exit(0);
    }
    for (int i = 0; i < posts; i++) {
        work(2000);
        sem_post(&s->items);
    }
    hand_over_parent(s, child);
    bump(s, locks);
    int status;
    waitpid(child, &status, 0);
    printf("posts %d waits %ld counter %ld\n", posts, s->waits, s->counter);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
