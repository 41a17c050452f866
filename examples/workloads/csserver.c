/*
 * csserver.c - the server of the client/server workload (clientserver.tcl,
 * the IPS-2 paper's section 5.3 in small): a multi-threaded server with a
 * thread per client, between a producer client and a consumer client that
 * never talk to each other, only to it.
 *
 *   csserver -port P -items N -size S -store MS -fetch MS
 *
 * Listens on 127.0.0.1:P and accepts two connections.  Each client first
 * sends a hello of 8 bytes, whose first byte says what it is ('P'
 * producer, 'C' consumer); a thread is started for each (serve_producer,
 * serve_consumer).  The producer's thread receives N items of S bytes,
 * stores each (store_item: MS ms of CPU), puts it on a queue (a mutex and
 * a condition variable) and acknowledges it with 16 bytes.  The consumer's
 * thread receives N requests of 16 bytes, takes an item from the queue
 * (waiting for the producer when it is empty), prepares it (fetch_item: MS
 * ms of CPU) and sends it, S bytes.  So the consumer's waits on the queue
 * make a path from the producer through both server threads to the
 * consumer.  main joins both threads.  Exit status 0 when every item went
 * through, 1 otherwise (with a message).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cpuwork.h"
#include "loopback.h"
#include "options.h"

struct queue {
    pthread_mutex_t lock;
    pthread_cond_t nonempty;
    int count; /* items put and not yet taken */
};

struct server {
    int items, size;
    double store_ms, fetch_ms;
    struct queue q;
};

struct client {
    struct server *srv;
    int fd;
    int done; /* items that went through */
};

__attribute__((noinline)) static void store_item(double ms)
{
    burn_cpu(ms);
}

__attribute__((noinline)) static void fetch_item(double ms)
{
    burn_cpu(ms);
}

__attribute__((noinline)) static void put(struct queue *q)
{
    pthread_mutex_lock(&q->lock);
    q->count++;
    pthread_cond_signal(&q->nonempty);
    pthread_mutex_unlock(&q->lock);
}

__attribute__((noinline)) static void take(struct queue *q)
{
    pthread_mutex_lock(&q->lock);
    while (q->count == 0)
        pthread_cond_wait(&q->nonempty, &q->lock);
    q->count--;
    pthread_mutex_unlock(&q->lock);
}

__attribute__((noinline)) static void *serve_producer(void *arg)
{
    struct client *c = arg;
    struct server *s = c->srv;
    char *item = malloc((size_t)s->size), ack[16] = "ack";
    for (; item != NULL && c->done < s->items; c->done++) {
        if (recv(c->fd, item, (size_t)s->size, MSG_WAITALL) != s->size)
            break;
        store_item(s->store_ms);
        put(&s->q);
        if (send(c->fd, ack, sizeof ack, 0) != (ssize_t)sizeof ack)
            break;
    }
    free(item);
    return NULL;
}

__attribute__((noinline)) static void *serve_consumer(void *arg)
{
    struct client *c = arg;
    struct server *s = c->srv;
    char *item = calloc(1, (size_t)s->size), request[16];
    for (; item != NULL && c->done < s->items; c->done++) {
        if (recv(c->fd, request, sizeof request, MSG_WAITALL) != (ssize_t)sizeof request)
            break;
        take(&s->q);
        fetch_item(s->fetch_ms);
        if (send(c->fd, item, (size_t)s->size, 0) != s->size)
            break;
    }
    free(item);
    return NULL;
}

int main(int argc, char **argv)
{
    int port = 0;
    struct server s = {.items = 10, .size = 256, .store_ms = 2, .fetch_ms = 2};
    const struct opt opts[] = {
        {"-port", OPT_INT, &port},           {"-items", OPT_INT, &s.items},
        {"-size", OPT_INT, &s.size},         {"-store", OPT_DOUBLE, &s.store_ms},
        {"-fetch", OPT_DOUBLE, &s.fetch_ms},
    };
    if (READ_OPTIONS(argc, argv, opts) != 0 || port <= 0 || s.items <= 0 || s.size <= 0) {
        fprintf(stderr, "usage: csserver -port P -items N -size S -store MS -fetch MS\n");
        return 2;
    }
    pthread_mutex_init(&s.q.lock, NULL);
    pthread_cond_init(&s.q.nonempty, NULL);
    int lfd = loopback_listen(port, 2);
    if (lfd < 0) {
        perror("csserver: bind/listen");
        return 1;
    }
    struct client clients[2];
    pthread_t threads[2];
    int started = 0;
    for (int i = 0; i < 2; i++) {
        char hello[8];
        clients[i] = (struct client){.srv = &s, .fd = accept(lfd, NULL, NULL)};
        if (clients[i].fd < 0 ||
            recv(clients[i].fd, hello, sizeof hello, MSG_WAITALL) != (ssize_t)sizeof hello ||
            (hello[0] != 'P' && hello[0] != 'C')) {
            fprintf(stderr, "csserver: client %d: no hello\n", i);
            break;
        }
        if (pthread_create(&threads[i], NULL, hello[0] == 'P' ? serve_producer : serve_consumer,
                           &clients[i]) != 0)
            break;
        started++;
    }
    int total = 0;
    for (int i = 0; i < started; i++) {
        pthread_join(threads[i], NULL);
        close(clients[i].fd);
        total += clients[i].done;
    }
    close(lfd);
    printf("csserver: %d items through %d clients\n", total, started);
    return total == 2 * s.items ? 0 : 1;
}
