/*
 * unix.c - Unix-domain sockets between two processes (messages.test).
 *
 *   unix DIR
 *
 * Four exchanges, each between the parent and a forked child:
 *   stream pair   socketpair(SOCK_STREAM): the parent sends 100, 5000 and
 *                 70000 bytes; the child reads 1000 bytes at a time and
 *                 answers with the 8-byte total;
 *   stream path   the parent listens on DIR/s.sock, the child connects and
 *                 sends 12345 bytes, the parent reads 512 at a time and
 *                 answers with 4 bytes;
 *   dgram pair    socketpair(SOCK_DGRAM): 10 datagrams each way, i + 1 bytes;
 *   dgram path    the parent binds DIR/d.sock, the child DIR/c.sock and
 *                 sends it 10 datagrams with sendto; the parent answers
 *                 each to the address recvfrom gave.
 * Prints one line per exchange with the bytes each side moved.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io_all.h"

static char buf[70000];

static size_t read_all(int fd, char *s, size_t n, size_t chunk)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, s + got, n - got < chunk ? n - got : chunk);
        if (r <= 0)
            die("read");
        got += (size_t)r;
    }
    return got;
}

static void reap(pid_t pid)
{
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        die("child failed");
}

static struct sockaddr_un path_addr(const char *dir, const char *name)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof(a.sun_path), "%s/%s", dir, name);
    return a;
}

static void stream_pair(void)
{
    int sv[2];
    const size_t sizes[] = {100, 5000, 70000};
    uint64_t total = 0;

    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        die("socketpair");
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        uint64_t got = 0;
        for (int i = 0; i < 3; i++)
            got += read_all(sv[1], buf, sizes[i], 1000);
        write_all(sv[1], (char *)&got, sizeof(got));
        _exit(0);
    }
    close(sv[1]);
    for (int i = 0; i < 3; i++) {
        write_all(sv[0], buf, sizes[i]);
        total += sizes[i];
    }
    uint64_t got;
    read_all(sv[0], (char *)&got, sizeof(got), sizeof(got));
    close(sv[0]);
    reap(pid);
    printf("stream pair sent %llu received %llu\n", (unsigned long long)total,
           (unsigned long long)got);
}

static void stream_path(const char *dir)
{
    struct sockaddr_un a = path_addr(dir, "s.sock");
    int lfd = socket(AF_UNIX, SOCK_STREAM, 0);

    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(lfd, 1) != 0)
        die("listen");
    pid_t pid = fork();
    if (pid == 0) {
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        char ack[4];
        if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0)
            die("connect");
        write_all(fd, buf, 12345);
        read_all(fd, ack, sizeof(ack), sizeof(ack));
        _exit(0);
    }
    int fd = accept(lfd, NULL, NULL);
    if (fd < 0)
        die("accept");
    size_t got = read_all(fd, buf, 12345, 512);
    write_all(fd, "done", 4);
    close(fd);
    close(lfd);
    reap(pid);
    printf("stream path received %zu\n", got);
}

static void dgram_pair(void)
{
    int sv[2];
    long in = 0, out = 0;

    if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) != 0)
        die("socketpair");
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        for (int i = 0; i < 10; i++) {
            ssize_t n = recv(sv[1], buf, sizeof(buf), 0);
            if (n != i + 1 || send(sv[1], buf, (size_t)n, 0) != n)
                die("dgram pair child");
        }
        _exit(0);
    }
    close(sv[1]);
    for (int i = 0; i < 10; i++) {
        if (send(sv[0], buf, (size_t)i + 1, 0) != i + 1)
            die("dgram pair send");
        out += i + 1;
        ssize_t n = recvfrom(sv[0], buf, sizeof(buf), 0, NULL, NULL);
        if (n != i + 1)
            die("dgram pair receive");
        in += n;
    }
    close(sv[0]);
    reap(pid);
    printf("dgram pair sent %ld received %ld\n", out, in);
}

static void dgram_path(const char *dir)
{
    struct sockaddr_un server = path_addr(dir, "d.sock"), client = path_addr(dir, "c.sock");
    int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
    long in = 0;

    if (fd < 0 || bind(fd, (struct sockaddr *)&server, sizeof(server)) != 0)
        die("bind server");
    pid_t pid = fork();
    if (pid == 0) {
        int c = socket(AF_UNIX, SOCK_DGRAM, 0);
        if (c < 0 || bind(c, (struct sockaddr *)&client, sizeof(client)) != 0)
            die("bind client");
        for (int i = 0; i < 10; i++) {
            if (sendto(c, buf, (size_t)i + 1, 0, (struct sockaddr *)&server, sizeof(server)) !=
                    i + 1 ||
                recv(c, buf, sizeof(buf), 0) != 2)
                die("dgram path client");
        }
        _exit(0);
    }
    for (int i = 0; i < 10; i++) {
        struct sockaddr_un from;
        socklen_t len = sizeof(from);
        ssize_t n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &len);
        if (n != i + 1 || sendto(fd, "ok", 2, 0, (struct sockaddr *)&from, len) != 2)
            die("dgram path server");
        in += n;
    }
    close(fd);
    reap(pid);
    printf("dgram path received %ld\n", in);
}

int main(int argc, char **argv)
{
    if (argc != 2)
        die("usage: unix DIR");
    memset(buf, 'x', sizeof(buf));
    fflush(stdout);
    stream_pair();
    fflush(stdout);
    stream_path(argv[1]);
    fflush(stdout);
    dgram_pair();
    fflush(stdout);
    dgram_path(argv[1]);
    return 0;
}
