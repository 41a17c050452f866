/*
 * tcpclient.c - a client of the demo workload's TCP client/server pair:
 * sends a known number of requests of a known size and reads each reply.
 *
 *   tcpclient ?-addr A? -port P -requests N -size S -reply R -work MS
 *
 * Connects to A:P (default 127.0.0.1) (trying again every 10 ms for up to 10 s while
 * nothing listens yet: the server and its clients start together), then N
 * times: prepare_request() (MS ms of CPU), one send() of S bytes, one
 * recv(MSG_WAITALL) of the R-byte reply.  So:
 *   calls:    connect_server 1, prepare_request N, main 1
 *   CPU:      prepare_request N*MS ms (self)
 *   messages: N sent (N*S bytes), N received (N*R bytes)
 * Exit status 0 when every reply came, 1 otherwise (with a message).
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

__attribute__((noinline)) static int connect_server(const char *addr, int port)
{
    return loopback_connect_at(addr, port);
}

__attribute__((noinline)) static void prepare_request(char *request, int size, int serial,
                                                      double work_ms)
{
    burn_cpu(work_ms);
    for (int i = 0; i < size; i++)
        request[i] = (char)('a' + (serial + i) % 26);
}

int main(int argc, char **argv)
{
    int port = 7346, requests = 20, size = 64, reply_size = 256;
    double work_ms = 1.0;
    const char *addr = NULL;
    const struct opt opts[] = {
        {"-addr", OPT_WORD, &addr},        {"-port", OPT_INT, &port},
        {"-requests", OPT_INT, &requests}, {"-size", OPT_INT, &size},
        {"-reply", OPT_INT, &reply_size},  {"-work", OPT_DOUBLE, &work_ms},
    };
    if (READ_OPTIONS(argc, argv, opts) != 0 || port <= 0 || requests <= 0 || size <= 0 ||
        reply_size <= 0 || work_ms < 0) {
        fprintf(stderr,
                "usage: tcpclient ?-addr A? -port P -requests N -size S -reply R -work MS\n");
        return 2;
    }
    int fd = connect_server(addr, port);
    if (fd < 0) {
        perror("tcpclient: connect");
        return 1;
    }
    char *request = malloc((size_t)size), *reply = malloc((size_t)reply_size);
    int done = 0;
    for (; request != NULL && reply != NULL && done < requests; done++) {
        prepare_request(request, size, done, work_ms);
        if (send(fd, request, (size_t)size, 0) != size) {
            perror("tcpclient: send");
            break;
        }
        ssize_t n = recv(fd, reply, (size_t)reply_size, MSG_WAITALL);
        if (n != reply_size) {
            fprintf(stderr, "tcpclient: reply %d: got %zd of %d bytes\n", done, n, reply_size);
            break;
        }
    }
    close(fd);
    free(request);
    free(reply);
    printf("tcpclient: %d of %d requests answered\n", done, requests);
    return done == requests ? 0 : 1;
}
