/*
 * inet6.c - TCP and UDP over IPv6 and IPv4 to one dual-stack server
 * (messages.test).
 *
 *   inet6
 *
 * The parent listens on a TCP socket and binds a UDP socket, both AF_INET6
 * on the wildcard address :: (dual-stack).  Two children connect, one over
 * IPv4 (127.0.0.1, which the server sees as ::ffff:127.0.0.1) and one over
 * IPv6 (::1); each sends 1000 bytes, reads a 2-byte answer, then sends the
 * server's UDP socket one datagram of 100 bytes and reads a 1-byte answer.
 * A batch of three datagrams of the IPv6 child goes by sendmmsg and is taken
 * by recvmmsg without address buffers.  Prints "served 2 bytes 2000
 * datagrams 5".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static char buf[1000];

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static void child(int v6, int tcp_port, int udp_port)
{
    struct sockaddr_storage ss;
    socklen_t len;
    int family = v6 ? AF_INET6 : AF_INET;

    memset(&ss, 0, sizeof(ss));
    if (v6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_addr = in6addr_loopback;
        a->sin6_port = htons((unsigned short)tcp_port);
        len = sizeof(*a);
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a->sin_port = htons((unsigned short)tcp_port);
        len = sizeof(*a);
    }
    int fd = socket(family, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&ss, len) != 0)
        die("connect");
    if (write(fd, buf, sizeof(buf)) != sizeof(buf) || recv(fd, buf, 2, MSG_WAITALL) != 2)
        die("tcp exchange");
    close(fd);

    if (v6)
        ((struct sockaddr_in6 *)&ss)->sin6_port = htons((unsigned short)udp_port);
    else
        ((struct sockaddr_in *)&ss)->sin_port = htons((unsigned short)udp_port);
    int u = socket(family, SOCK_DGRAM, 0);
    if (u < 0 || sendto(u, buf, 100, 0, (struct sockaddr *)&ss, len) != 100 ||
        recv(u, buf, 1, 0) != 1)
        die("udp exchange");
    if (v6) {
        struct iovec iov[3] = {{buf, 10}, {buf, 20}, {buf, 30}};
        struct mmsghdr m[3];
        memset(m, 0, sizeof(m));
        for (int i = 0; i < 3; i++) {
            m[i].msg_hdr.msg_name = &ss;
            m[i].msg_hdr.msg_namelen = len;
            m[i].msg_hdr.msg_iov = &iov[i];
            m[i].msg_hdr.msg_iovlen = 1;
        }
        if (sendmmsg(u, m, 3, 0) != 3)
            die("sendmmsg");
    }
    close(u);
    exit(0);
}

int main(void)
{
    struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT};
    struct sockaddr_in6 b = a;
    socklen_t len = sizeof(a);
    int off = 0;
    int lfd = socket(AF_INET6, SOCK_STREAM, 0);
    int u = socket(AF_INET6, SOCK_DGRAM, 0);

    if (lfd < 0 || u < 0 || setsockopt(lfd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)) != 0 ||
        setsockopt(u, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)) != 0 ||
        bind(lfd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(lfd, 2) != 0 ||
        getsockname(lfd, (struct sockaddr *)&a, &len) != 0)
        die("tcp server");
    len = sizeof(b);
    if (bind(u, (struct sockaddr *)&b, sizeof(b)) != 0 ||
        getsockname(u, (struct sockaddr *)&b, &len) != 0)
        die("udp server");
    memset(buf, '6', sizeof(buf));
    fflush(stdout);
    pid_t kids[2];
    long bytes = 0, datagrams = 0;
    for (int i = 0; i < 2; i++) {
        /* one at a time, so that the datagrams come in a known order */
        if ((kids[i] = fork()) == 0)
            child(i, ntohs(a.sin6_port), ntohs(b.sin6_port));
        int fd = accept(lfd, NULL, NULL);
        if (fd < 0)
            die("accept");
        ssize_t n;
        long got = 0;
        while (got < (long)sizeof(buf) && (n = read(fd, buf, 300)) > 0)
            got += n;
        if (write(fd, "ok", 2) != 2)
            die("answer");
        close(fd);
        bytes += got;
        struct sockaddr_storage from;
        socklen_t flen = sizeof(from);
        if (recvfrom(u, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen) != 100 ||
            sendto(u, "k", 1, 0, (struct sockaddr *)&from, flen) != 1)
            die("udp serve");
        datagrams++;
        if (i == 1) {
            struct iovec iov[3] = {{buf, 100}, {buf + 100, 100}, {buf + 200, 100}};
            struct mmsghdr m[3];
            memset(m, 0, sizeof(m));
            for (int k = 0; k < 3; k++) {
                m[k].msg_hdr.msg_iov = &iov[k];
                m[k].msg_hdr.msg_iovlen = 1;
            }
            int r = recvmmsg(u, m, 3, MSG_WAITFORONE, NULL);
            while (r > 0 && r < 3) { /* the rest, as they come */
                int more = recvmmsg(u, m + r, 3 - (unsigned)r, MSG_WAITFORONE, NULL);
                if (more <= 0)
                    die("recvmmsg");
                r += more;
            }
            if (r != 3)
                die("recvmmsg");
            datagrams += 3;
        }
        int status;
        if (waitpid(kids[i], &status, 0) != kids[i] || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0)
            die("child");
    }
    printf("served 2 bytes %ld datagrams %ld\n", bytes, datagrams);
    return 0;
}
