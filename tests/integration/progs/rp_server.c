/*
 * rp_server.c - a TCP server for the start-order tests (workload_order.test):
 * it works before it listens, so a client started before it is ready fails,
 * and it serves until SIGTERM, so only a stop condition ends it.
 *
 *   rp_server PORT WORK_MS ?READY-FILE?
 *
 * Burns WORK_MS of CPU, listens on 127.0.0.1:PORT, then creates READY-FILE
 * if given (and its directory, one level, if missing).  Serves connections one after the other:
 * each request is 64 bytes, handled by handle_request() and answered with 64 bytes, until the
 * client closes.  SIGTERM ends it: it prints "served R requests C
 * connections" and exits 0.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stopped;

static void on_term(int sig)
{
    (void)sig;
    stopped = 1;
}

__attribute__((no_instrument_function)) static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static void warm_up(double ms)
{
    double end = cpu_ms() + ms;
    while (cpu_ms() < end)
        continue;
}

__attribute__((noinline)) static void handle_request(const char *in, char *out)
{
    for (int i = 0; i < 64; i++)
        out[i] = (char)(in[i] + 1);
}

/* Reads exactly n bytes; 0 at the end of the stream, -1 on error or stop. */
static int read_all(int fd, char *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = recv(fd, buf + got, n - got, 0);
        if (r == 0)
            return 0;
        if (r < 0)
            return -1;
        got += (size_t)r;
    }
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: rp_server PORT WORK_MS ?READY-FILE?\n");
        return 2;
    }
    struct sigaction sa = {.sa_handler = on_term}; /* no SA_RESTART: accept ends */
    sigaction(SIGTERM, &sa, NULL);
    warm_up(atof(argv[2]));
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1]))};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 16) != 0) {
        perror("rp_server: listen");
        return 1;
    }
    if (argc > 3) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", argv[3]);
        char *slash = strrchr(dir, '/');
        if (slash != NULL && slash != dir) {
            *slash = '\0';
            mkdir(dir, 0777);
        }
        int r = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (r < 0) {
            perror("rp_server: ready file");
            return 1;
        }
        close(r);
    }
    long requests = 0, connections = 0;
    while (!stopped) {
        int c = accept(fd, NULL, NULL);
        if (c < 0) {
            if (errno == EINTR)
                continue;
            perror("rp_server: accept");
            return 1;
        }
        connections++;
        char in[64], out[64];
        while (read_all(c, in, sizeof in) > 0) {
            handle_request(in, out);
            if (send(c, out, sizeof out, 0) != (ssize_t)sizeof out)
                break;
            requests++;
        }
        close(c);
    }
    printf("served %ld requests %ld connections\n", requests, connections);
    return 0;
}
