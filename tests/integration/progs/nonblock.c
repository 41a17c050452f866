/*
 * nonblock.c - non-blocking TCP between two processes (messages.test).
 *
 *   nonblock
 *
 * The child connects a non-blocking socket (connect returns EINPROGRESS;
 * poll for writability, SO_ERROR), then sends 1 MiB through a 4 KiB send
 * buffer, polling whenever send says EAGAIN, and shuts its side down.  The
 * parent reads the non-blocking accepted socket 1000 bytes at a time, polls
 * when read says EAGAIN, to the end of the stream.  Prints "sent S eagain
 * E" (child) and "received R" (parent).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io_all.h"

#define TOTAL (1 << 20)

static char buf[65536];

static void wait_for(int fd, short events)
{
    struct pollfd p = {.fd = fd, .events = events};
    if (poll(&p, 1, -1) != 1)
        die("poll");
}

static int sender(const struct sockaddr_in *addr)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), size = 4096, err = 0;
    socklen_t len = sizeof(err);
    long sent = 0, eagain = 0;

    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size)) != 0)
        die("socket");
    if (connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) != 0) {
        if (errno != EINPROGRESS)
            die("connect");
        wait_for(fd, POLLOUT);
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0)
            die("connect completion");
    }
    while (sent < TOTAL) {
        size_t n = TOTAL - sent < (long)sizeof(buf) ? (size_t)(TOTAL - sent) : sizeof(buf);
        ssize_t r = send(fd, buf, n, 0);
        if (r < 0 && errno == EAGAIN) {
            eagain++;
            wait_for(fd, POLLOUT);
            continue;
        }
        if (r <= 0)
            die("send");
        sent += r;
    }
    if (shutdown(fd, SHUT_WR) != 0)
        die("shutdown");
    printf("sent %ld eagain %s\n", sent, eagain > 0 ? "some" : "none");
    close(fd);
    return 0;
}

int main(void)
{
    struct sockaddr_in addr = {.sin_family = AF_INET};
    socklen_t len = sizeof(addr);
    int lfd = socket(AF_INET, SOCK_STREAM, 0), size = 4096;
    long received = 0;

    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)) != 0 ||
        bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) != 0 || listen(lfd, 1) != 0 ||
        getsockname(lfd, (struct sockaddr *)&addr, &len) != 0)
        die("listen");
    pid_t pid = fork_child();
    if (pid == 0) {
        close(lfd);
        return sender(&addr);
    }
    int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK);
    if (fd < 0)
        die("accept4");
    for (;;) {
        ssize_t r = read(fd, buf, 1000);
        if (r < 0 && errno == EAGAIN) {
            wait_for(fd, POLLIN);
            continue;
        }
        if (r < 0)
            die("read");
        if (r == 0)
            break;
        received += r;
    }
    close(fd);
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return 1;
    printf("received %ld\n", received);
    return 0;
}
