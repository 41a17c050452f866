/*
 * daemon.c - a server that daemonizes on request, and its client
 * (run_end.test).
 *
 *   daemon -daemon -port P -requests N    the server
 *   daemon -client -port P -requests N    the client
 *
 * The server listens on 127.0.0.1:P, then daemonizes the usual way: it
 * forks, the child calls setsid() and serves, the parent exits 0 at once.
 * The daemon accepts one connection and answers N requests (a 4-byte
 * number; the reply is the number plus one), each in handle_request();
 * then the client sends its pid and closes the connection, and the daemon
 * waits until that process has ended (a pidfd) before its last work,
 * wind_down(), and exits 0: it outlives everything the run started.  The
 * client connects (trying again while nobody listens yet: the server may
 * start after it), sends the N requests one at a time, each in request(),
 * checks each reply and prints "client N".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int full_io(int fd, void *buf, size_t n, int writing)
{
    char *p = buf;
    while (n > 0) {
        ssize_t k = writing ? write(fd, p, n) : read(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static uint32_t handle_request(int fd, uint32_t v)
{
    uint32_t r = v + 1;
    if (full_io(fd, &r, sizeof r, 1) != 0)
        exit(3);
    return r;
}

/* Work after the last request (some 100 ms). */
static volatile uint64_t sink;
static uint64_t wind_down(int n)
{
    uint64_t s = 0;
    for (int k = 0; k < 4000; k++)
        for (int i = 0; i < n * 1000; i++)
            s += (uint64_t)i + 1;
    sink = s;
    return s;
}

static int serve(int lfd, int n)
{
    int fd = accept(lfd, NULL, NULL);
    if (fd < 0)
        return 4;
    int served = 0;
    uint32_t v, pid = 0;
    for (; served < n && full_io(fd, &v, sizeof v, 0) == 0; served++)
        handle_request(fd, v);
    if (full_io(fd, &pid, sizeof pid, 0) != 0)
        return 5;
    while (read(fd, &v, sizeof v) > 0) /* to the client's close */
        continue;
    close(fd);
    int pfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
    if (pfd >= 0) {
        struct pollfd p = {pfd, POLLIN, 0};
        while (poll(&p, 1, -1) < 0 && errno == EINTR)
            continue;
        close(pfd);
    }
    wind_down(served);
    return served == n ? 0 : 5;
}

static uint32_t request(int fd, uint32_t v)
{
    uint32_t r = 0;
    if (full_io(fd, &v, sizeof v, 1) != 0 || full_io(fd, &r, sizeof r, 0) != 0)
        exit(6);
    return r;
}

static int client(int port, int n)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = -1;
    for (int tries = 0; tries < 3000; tries++) { /* 30 s at most */
        fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0)
            return 7;
        if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
            break;
        close(fd);
        fd = -1;
        if (errno != ECONNREFUSED)
            return 7;
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    if (fd < 0)
        return 7;
    for (int i = 0; i < n; i++)
        if (request(fd, (uint32_t)i) != (uint32_t)i + 1)
            return 8;
    uint32_t me = (uint32_t)getpid();
    if (full_io(fd, &me, sizeof me, 1) != 0)
        return 8;
    close(fd);
    printf("client %d\n", n);
    return 0;
}

int main(int argc, char **argv)
{
    int port = 0, n = 10, daemonize = 0, is_client = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-daemon") == 0)
            daemonize = 1;
        else if (strcmp(argv[i], "-client") == 0)
            is_client = 1;
        else if (strcmp(argv[i], "-port") == 0 && i + 1 < argc)
            port = atoi(argv[++i]);
        else if (strcmp(argv[i], "-requests") == 0 && i + 1 < argc)
            n = atoi(argv[++i]);
    }
    if (is_client)
        return client(port, n);

    int lfd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(lfd, 4) != 0) {
        perror("daemon: listen");
        return 2;
    }
    if (!daemonize)
        return serve(lfd, n);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return 2;
    if (pid > 0)
        return 0; /* the parent: the daemon serves on */
    setsid();
    return serve(lfd, n);
}
