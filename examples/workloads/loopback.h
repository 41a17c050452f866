/*
 * loopback.h - TCP over the loopback interface for the example workloads'
 * programs: a listening socket on 127.0.0.1:port, and a connection to it
 * that retries while the server is not listening yet (the processes of a
 * workload start in any order).  The _at variants take another IPv4
 * address instead (a workload across hosts: tcpserver -addr, tcpclient
 * -addr); NULL or "" is the loopback address.
 *
 * Like cpuwork.h, the helpers are always inlined and never instrumented:
 * their calls belong to the procedure of the program that uses them, which
 * is the one the tables show.
 */
#ifndef IPS2_EXAMPLES_LOOPBACK_H
#define IPS2_EXAMPLES_LOOPBACK_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define LOOPBACK_INLINE static inline __attribute__((always_inline, no_instrument_function))

LOOPBACK_INLINE struct sockaddr_in loopback_addr_at(const char *addr, int port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (addr != NULL && addr[0] != '\0' && inet_pton(AF_INET, addr, &a.sin_addr) != 1)
        a.sin_addr.s_addr = htonl(INADDR_NONE);
    return a;
}

/* A socket listening on addr:port (NULL: 127.0.0.1) with room for
 * backlog connections, or -1. */
LOOPBACK_INLINE int loopback_listen_at(const char *addr, int port, int backlog)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in a = loopback_addr_at(addr, port);
    if (fd < 0)
        return -1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, backlog) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* A connection to addr:port (NULL: 127.0.0.1), tried every 10 ms for up
 * to 10 s while it is refused; -1 on any other error. */
LOOPBACK_INLINE int loopback_connect_at(const char *addr, int port)
{
    struct sockaddr_in a = loopback_addr_at(addr, port);
    for (int attempt = 0; attempt < 1000; attempt++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0)
            return -1;
        if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
            return fd;
        int e = errno;
        close(fd);
        if (e != ECONNREFUSED)
            return -1;
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    return -1;
}

LOOPBACK_INLINE int loopback_listen(int port, int backlog)
{
    return loopback_listen_at(NULL, port, backlog);
}

LOOPBACK_INLINE int loopback_connect(int port)
{
    return loopback_connect_at(NULL, port);
}

#endif /* IPS2_EXAMPLES_LOOPBACK_H */
