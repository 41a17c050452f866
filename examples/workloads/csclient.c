/*
 * csclient.c - a client of the client/server workload (clientserver.tcl):
 * the producer or the consumer of csserver.c.
 *
 *   csclient -role producer|consumer -port P -items N -size S -work MS
 *
 * Connects to 127.0.0.1:P (retried every 10 ms while refused), sends the
 * 8-byte hello ('P' or 'C' first).  A producer then, N times, makes an
 * item (produce_item: MS ms of CPU), sends it (S bytes) and waits for the
 * 16-byte acknowledgement.  A consumer, N times, sends a 16-byte request,
 * receives an item (S bytes) and uses it (consume_item: MS ms of CPU).
 * Exit status 0 when all N went through, 1 otherwise.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cpuwork.h"
#include "loopback.h"
#include "options.h"

__attribute__((noinline)) static int connect_server(int port)
{
    return loopback_connect(port);
}

__attribute__((noinline)) static void produce_item(char *item, int size, double ms)
{
    burn_cpu(ms);
    memset(item, 'p', (size_t)size);
}

__attribute__((noinline)) static void consume_item(const char *item, int size, double ms)
{
    burn_cpu(ms);
    volatile char sink = 0;
    for (int i = 0; i < size; i++)
        sink ^= item[i];
}

__attribute__((noinline)) static int producer(int fd, int items, int size, double ms)
{
    char *item = malloc((size_t)size), ack[16];
    int n = 0;
    for (; item != NULL && n < items; n++) {
        produce_item(item, size, ms);
        if (send(fd, item, (size_t)size, 0) != size ||
            recv(fd, ack, sizeof ack, MSG_WAITALL) != (ssize_t)sizeof ack)
            break;
    }
    free(item);
    return n;
}

__attribute__((noinline)) static int consumer(int fd, int items, int size, double ms)
{
    char *item = malloc((size_t)size), request[16] = "next";
    int n = 0;
    for (; item != NULL && n < items; n++) {
        if (send(fd, request, sizeof request, 0) != (ssize_t)sizeof request ||
            recv(fd, item, (size_t)size, MSG_WAITALL) != size)
            break;
        consume_item(item, size, ms);
    }
    free(item);
    return n;
}

int main(int argc, char **argv)
{
    const char *role = "";
    int port = 0, items = 10, size = 256;
    double ms = 2;
    const struct opt opts[] = {
        {"-role", OPT_WORD, &role}, {"-port", OPT_INT, &port},  {"-items", OPT_INT, &items},
        {"-size", OPT_INT, &size},  {"-work", OPT_DOUBLE, &ms},
    };
    int bad = READ_OPTIONS(argc, argv, opts) != 0;
    int is_producer = strcmp(role, "producer") == 0;
    if (bad || port <= 0 || items <= 0 || size <= 0 ||
        (!is_producer && strcmp(role, "consumer") != 0)) {
        fprintf(stderr,
                "usage: csclient -role producer|consumer -port P -items N -size S -work MS\n");
        return 2;
    }
    int fd = connect_server(port);
    char hello[8] = {is_producer ? 'P' : 'C'};
    if (fd < 0 || send(fd, hello, sizeof hello, 0) != (ssize_t)sizeof hello) {
        perror("csclient: connect");
        return 1;
    }
    int n = is_producer ? producer(fd, items, size, ms) : consumer(fd, items, size, ms);
    close(fd);
    printf("csclient: %s: %d of %d items\n", role, n, items);
    return n == items ? 0 : 1;
}
