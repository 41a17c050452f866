/*
 * errors.c - calls that fail, for messages.test to compare the traced
 * program's behaviour with the untraced one's.
 *
 *   errors [sigpipe]
 *
 * Prints one line per call, "NAME result errno", for: a send and a write
 * on a socket whose peer is closed and a write into a pipe nobody reads
 * (EPIPE, with SIGPIPE ignored), a recv at the end of such a socket (0), a
 * connect to a port nobody listens on (ECONNREFUSED), reads of bad
 * descriptors (EBADF), a send on an unconnected UDP socket
 * (EDESTADDRREQ), a non-blocking read of an empty pipe (EAGAIN), an open
 * of a missing file (ENOENT), an accept on a socket that does not listen
 * (EINVAL), an lseek on a pipe (ESPIPE).  With "sigpipe", SIGPIPE keeps its
 * default action and the first send kills the process.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void show(const char *name, long result)
{
    printf("%s %ld %d\n", name, result, result < 0 ? errno : 0);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int sv[2], p[2];
    char c = 'x';

    if (argc < 2 || strcmp(argv[1], "sigpipe") != 0)
        signal(SIGPIPE, SIG_IGN);
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    close(sv[1]);
    errno = 0;
    show("send-closed", send(sv[0], &c, 1, 0));
    show("write-closed", write(sv[0], &c, 1));
    show("recv-end", recv(sv[0], &c, 1, 0));
    pipe(p);
    close(p[0]);
    show("write-pipe", write(p[1], &c, 1));

    struct sockaddr_in a = {.sin_family = AF_INET};
    socklen_t len = sizeof(a);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int s = socket(AF_INET, SOCK_STREAM, 0);
    bind(s, (struct sockaddr *)&a, sizeof(a));
    getsockname(s, (struct sockaddr *)&a, &len);
    show("accept-not-listening", accept(s, NULL, NULL));
    close(s); /* the port is free again: nobody listens */
    s = socket(AF_INET, SOCK_STREAM, 0);
    show("connect-refused", connect(s, (struct sockaddr *)&a, sizeof(a)));
    close(s);

    show("read-bad", read(-1, &c, 1));
    show("read-closed", read(900, &c, 1));
    int u = socket(AF_INET, SOCK_DGRAM, 0);
    show("send-unconnected", send(u, &c, 1, 0));
    close(u);
    int q[2];
    pipe2(q, O_NONBLOCK);
    show("read-empty", read(q[0], &c, 1));
    show("lseek-pipe", (long)lseek(q[0], 0, SEEK_SET));
    show("open-missing", open("/nonexistent/file", O_RDONLY));
    return 0;
}
