/*
 * tcp_pingpong.c - the program of bench/run-tcp: N round trips of one byte
 * over a loopback TCP connection between two processes.
 *
 *   tcp_pingpong N
 *
 * The parent listens on 127.0.0.1 (an ephemeral port), forks the client,
 * accepts, and echoes every byte back; the client sends a byte and waits
 * for its echo, N times.  TCP_NODELAY on both ends, blocking sockets,
 * send/recv.  The client prints "round trips N ns_per_round_trip X", timed
 * over the round trips only (CLOCK_MONOTONIC), so process start-up and the
 * trace's set-up are not counted.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void nodelay(int fd)
{
    int one = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0)
        die("setsockopt");
}

static void client(const struct sockaddr_in *addr, long n)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    char c = 'x';

    if (fd < 0 || connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) != 0)
        die("connect");
    nodelay(fd);
    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
        if (send(fd, &c, 1, 0) != 1 || recv(fd, &c, 1, 0) != 1)
            die("client round trip");
    }
    double t1 = now_ns();
    printf("round trips %ld ns_per_round_trip %.0f\n", n, (t1 - t0) / (double)n);
    close(fd);
}

static void server(int lfd)
{
    int fd = accept(lfd, NULL, NULL);
    char c;

    if (fd < 0)
        die("accept");
    nodelay(fd);
    while (recv(fd, &c, 1, 0) == 1)
        if (send(fd, &c, 1, 0) != 1)
            die("server send");
    close(fd);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    struct sockaddr_in addr = {.sin_family = AF_INET};
    socklen_t len = sizeof(addr);
    int lfd = socket(AF_INET, SOCK_STREAM, 0);

    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) != 0 || listen(lfd, 1) != 0 ||
        getsockname(lfd, (struct sockaddr *)&addr, &len) != 0)
        die("listen");
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        close(lfd);
        client(&addr, n);
        return 0;
    }
    server(lfd);
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return 1;
    return 0;
}
