/*
 * udp.c - a UDP ping-pong between two processes (messages.test).
 *
 *   udp [ROUNDS]
 *
 * The parent makes two UDP sockets: A bound to 127.0.0.1 and B bound to
 * the wildcard address 0.0.0.0, both on ephemeral ports, then forks.  The
 * child keeps B (unconnected): it receives each ping (recvfrom without an
 * address buffer, recvmsg, read, recvfrom with one, in turn) and answers
 * it with sendto to the source it got, one byte longer.  The parent keeps
 * A, connected to B's port on 127.0.0.1: it pings with send, write or
 * sendto, datagram i carrying i + 1 bytes, and takes each answer with
 * recv or read.  Each side prints what it sent and received:
 * "ping sent N bytes S received N bytes R" and "pong ...".
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io_all.h"

static int udp_socket(in_addr_t addr, struct sockaddr_in *bound)
{
    socklen_t len = sizeof(*bound);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);

    memset(bound, 0, sizeof(*bound));
    bound->sin_family = AF_INET;
    bound->sin_addr.s_addr = addr;
    if (fd < 0 || bind(fd, (struct sockaddr *)bound, sizeof(*bound)) != 0 ||
        getsockname(fd, (struct sockaddr *)bound, &len) != 0)
        die("udp socket");
    return fd;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    struct sockaddr_in a_addr, b_addr;
    int a = udp_socket(htonl(INADDR_LOOPBACK), &a_addr);
    int b = udp_socket(htonl(INADDR_ANY), &b_addr);
    char buf[2048];

    memset(buf, 'u', sizeof(buf));
    pid_t pid = fork_child();
    if (pid == 0) {
        long in = 0, out = 0;
        close(a);
        for (int i = 0; i < rounds; i++) {
            struct sockaddr_storage from;
            socklen_t len = sizeof(from);
            ssize_t n;
            switch (i % 4) {
            case 0:
                n = recvfrom(b, buf, sizeof(buf), 0, NULL, NULL);
                memcpy(&from, &a_addr, sizeof(a_addr)); /* we know who pings */
                len = sizeof(a_addr);
                break;
            case 1: {
                struct iovec iov = {buf, sizeof(buf)};
                struct msghdr m = {
                    .msg_name = &from, .msg_namelen = len, .msg_iov = &iov, .msg_iovlen = 1};
                n = recvmsg(b, &m, 0);
                len = m.msg_namelen;
                break;
            }
            case 2:
                n = read(b, buf, sizeof(buf));
                memcpy(&from, &a_addr, sizeof(a_addr));
                len = sizeof(a_addr);
                break;
            default:
                n = recvfrom(b, buf, sizeof(buf), 0, (struct sockaddr *)&from, &len);
                break;
            }
            if (n != i + 1)
                die("pong receive");
            in += n;
            if (sendto(b, buf, (size_t)n + 1, 0, (struct sockaddr *)&from, len) != n + 1)
                die("pong send");
            out += n + 1;
        }
        printf("pong sent %d bytes %ld received %d bytes %ld\n", rounds, out, rounds, in);
        return 0;
    }
    close(b);
    struct sockaddr_in to = b_addr;
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(a, (struct sockaddr *)&to, sizeof(to)) != 0)
        die("connect");
    long in = 0, out = 0;
    for (int i = 0; i < rounds; i++) {
        ssize_t n;
        switch (i % 3) {
        case 0:
            n = send(a, buf, (size_t)i + 1, 0);
            break;
        case 1:
            n = write(a, buf, (size_t)i + 1);
            break;
        default:
            n = sendto(a, buf, (size_t)i + 1, 0, (struct sockaddr *)&to, sizeof(to));
            break;
        }
        if (n != i + 1)
            die("ping send");
        out += n;
        n = i % 2 ? read(a, buf, sizeof(buf)) : recv(a, buf, sizeof(buf), 0);
        if (n != i + 2)
            die("ping receive");
        in += n;
    }
    printf("ping sent %d bytes %ld received %d bytes %ld\n", rounds, out, rounds, in);
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return 1;
    return 0;
}
