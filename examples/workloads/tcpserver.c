/*
 * tcpserver.c - the server of the demo workload's TCP client/server pair:
 * serves a known number of clients, each a known number of requests, with
 * known work and known message sizes, so that its tables have a ground truth.
 *
 *   tcpserver ?-addr A? -port P -clients C -requests N -size S -reply R -work MS
 *
 * Listens on A:P (default 127.0.0.1), accepts C connections one after the other, and on
 * each reads N requests of S bytes (one recv(MSG_WAITALL) each), handles each
 * with handle_request() (MS ms of CPU), and answers each with one send() of
 * R bytes.  Then it closes the connection without reading further.  So:
 *   calls:    serve_client C, handle_request C*N, main 1
 *   CPU:      handle_request C*N*MS ms (self)
 *   messages: C*N received (C*N*S bytes), C*N sent (C*N*R bytes)
 * Exit status 0 when every request was served, 1 otherwise (with a message).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cpuwork.h"
#include "loopback.h"
#include "options.h"

struct options {
    const char *addr; /* listen on it (NULL: 127.0.0.1) */
    int port, clients, requests, size, reply;
    double work_ms;
};

__attribute__((noinline)) static void handle_request(const char *request, int size, char *reply,
                                                     int reply_size, double work_ms)
{
    burn_cpu(work_ms);
    for (int i = 0; i < reply_size; i++)
        reply[i] = (char)(request[i % size] + 1);
}

__attribute__((noinline)) static int serve_client(int fd, const struct options *o)
{
    char *request = malloc((size_t)o->size), *reply = malloc((size_t)o->reply);
    int served = 0;
    if (request == NULL || reply == NULL)
        goto out;
    for (; served < o->requests; served++) {
        ssize_t n = recv(fd, request, (size_t)o->size, MSG_WAITALL);
        if (n != o->size) {
            fprintf(stderr, "tcpserver: request %d: got %zd of %d bytes\n", served, n, o->size);
            break;
        }
        handle_request(request, o->size, reply, o->reply, o->work_ms);
        if (send(fd, reply, (size_t)o->reply, 0) != o->reply) {
            perror("tcpserver: send");
            break;
        }
    }
out:
    free(request);
    free(reply);
    return served;
}

__attribute__((noinline)) static int parse(int argc, char **argv, struct options *o)
{
    const struct opt opts[] = {
        {"-addr", OPT_WORD, &o->addr},      {"-port", OPT_INT, &o->port},
        {"-clients", OPT_INT, &o->clients}, {"-requests", OPT_INT, &o->requests},
        {"-size", OPT_INT, &o->size},       {"-reply", OPT_INT, &o->reply},
        {"-work", OPT_DOUBLE, &o->work_ms},
    };

    *o = (struct options){NULL, 7346, 2, 20, 64, 256, 2.0};
    return (READ_OPTIONS(argc, argv, opts) == 0 && o->port > 0 && o->clients > 0 &&
            o->requests > 0 && o->size > 0 && o->reply > 0 && o->work_ms >= 0)
               ? 0
               : -1;
}

int main(int argc, char **argv)
{
    struct options o;
    if (parse(argc, argv, &o) != 0) {
        fprintf(stderr, "usage: tcpserver ?-addr A? -port P -clients C -requests N -size S -reply "
                        "R -work MS\n");
        return 2;
    }
    int lfd = loopback_listen_at(o.addr, o.port, o.clients);
    if (lfd < 0) {
        perror("tcpserver: bind/listen");
        return 1;
    }
    int served = 0;
    for (int c = 0; c < o.clients; c++) {
        int fd = accept(lfd, NULL, NULL);
        if (fd < 0) {
            perror("tcpserver: accept");
            break;
        }
        served += serve_client(fd, &o);
        close(fd);
    }
    close(lfd);
    printf("tcpserver: served %d requests from %d clients\n", served, o.clients);
    return served == o.clients * o.requests ? 0 : 1;
}
