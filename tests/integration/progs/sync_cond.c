/*
 * sync_cond.c - a producer and consumers around a bounded buffer, with a
 * mutex and two condition variables (not empty, not full).
 *
 *   sync_cond [items] [consumers]     (default 2000 items, 2 consumers)
 *
 * Every signal is sent with the mutex held.  When the producer is done it
 * broadcasts "not empty" once so that idle consumers see the end.  Prints
 * "items <n> signals <n> broadcasts <n> waits <n>": what was consumed, the
 * signal and broadcast calls made, and the condition waits done.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define SLOTS 4

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static int buffer[SLOTS], head, count, done;
static long consumed, signals, broadcasts, waits;

static void *consumer(void *arg)
{
    for (;;) {
        pthread_mutex_lock(&lock);
        while (count == 0 && !done) {
            waits++;
            pthread_cond_wait(&not_empty, &lock);
        }
        if (count == 0 && done) {
            pthread_mutex_unlock(&lock);
            return NULL;
        }
        int item = buffer[head];
        head = (head + 1) % SLOTS;
        count--;
        consumed++;
        signals++;
        pthread_cond_signal(&not_full);
        pthread_mutex_unlock(&lock);
        (void)item;
    }
}

int main(int argc, char **argv)
{
    int items = argc > 1 ? atoi(argv[1]) : 2000;
    int nconsumers = argc > 2 ? atoi(argv[2]) : 2;
    pthread_t th[16];

    if (nconsumers < 1 || nconsumers > 16)
        return 2;
    for (int i = 0; i < nconsumers; i++)
        pthread_create(&th[i], NULL, consumer, NULL);
    for (int i = 0; i < items; i++) {
        pthread_mutex_lock(&lock);
        while (count == SLOTS) {
            waits++;
            pthread_cond_wait(&not_full, &lock);
        }
        buffer[(head + count) % SLOTS] = i;
        count++;
        signals++;
        pthread_cond_signal(&not_empty);
        pthread_mutex_unlock(&lock);
    }
    pthread_mutex_lock(&lock);
    done = 1;
    broadcasts++;
    pthread_cond_broadcast(&not_empty);
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < nconsumers; i++)
        pthread_join(th[i], NULL);
    printf("items %ld signals %ld broadcasts %ld waits %ld\n", consumed, signals, broadcasts,
           waits);
    return 0;
}
