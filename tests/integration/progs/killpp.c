/*
 * killpp.c - a ping-pong whose parent SIGKILLs its child as soon as the
 * last reply is in: the child's last send must still be in its trace
 * (sends.test, issue 12.2).
 *
 *   killpp tcp|pipe ROUNDS
 *   killpp block SIZE
 *
 * tcp: the parent listens on 127.0.0.1 (an ephemeral port) and forks the
 * child, which connects; pipe: two pipes.  The parent writes ROUNDS pings
 * of 16 bytes, reads each 16-byte reply whole, and after the last one
 * kills the child at once (kill -9), reaps it and prints
 * "rounds N signal S".
 *
 * block: the child writes SIZE bytes to the TCP connection in one write(),
 * and the parent reads them in 4 KiB reads after a first read of 1 byte:
 * with SIZE well above the sockets' buffers the child's write blocks in
 * the kernel until the parent has read most of it; it fills its buffer
 * first, so the parent waits for the write.  Prints "read N".
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

enum { MSG = 16 };

static void die(const char *what)
{
    perror(what);
    exit(2);
}

/* Reads exactly n bytes; 0 at end of stream. */
static int read_all(int fd, char *buf, size_t n)
{
    size_t got = 0;

    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r <= 0)
            return 0;
        got += (size_t)r;
    }
    return 1;
}

/* A connected pair of TCP sockets: *server in the parent, *client for
 * the child (both made here, before the fork). */
static void tcp_pair(int *server, int *client)
{
    struct sockaddr_in a = {.sin_family = AF_INET};
    socklen_t len = sizeof(a);
    int l = socket(AF_INET, SOCK_STREAM, 0);

    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l, 1) < 0 ||
        getsockname(l, (struct sockaddr *)&a, &len) < 0)
        die("listen");
    *client = socket(AF_INET, SOCK_STREAM, 0);
    if (*client < 0 || connect(*client, (struct sockaddr *)&a, sizeof(a)) < 0)
        die("connect");
    *server = accept(l, NULL, NULL);
    if (*server < 0)
        die("accept");
    close(l);
}

static void child_pong(int in, int out)
{
    char buf[MSG];

    while (read_all(in, buf, MSG))
        if (write(out, buf, MSG) != MSG)
            exit(1);
    exit(0);
}

static int pingpong(const char *mode, int rounds)
{
    int p_out, p_in, c_in, c_out, i;

    if (strcmp(mode, "tcp") == 0) {
        tcp_pair(&p_out, &c_out);
        p_in = p_out;
        c_in = c_out;
    } else {
        int down[2], up[2];
        if (pipe(down) < 0 || pipe(up) < 0)
            die("pipe");
        p_out = down[1], c_in = down[0], c_out = up[1], p_in = up[0];
    }
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        if (p_out != c_out)
            close(p_out), close(p_in);
        child_pong(c_in, c_out);
    }
    if (p_out != c_out)
        close(c_in), close(c_out);
    else
        close(c_out);
    char buf[MSG];
    for (i = 0; i < rounds; i++) {
        memset(buf, 'a' + i % 26, MSG);
        if (write(p_out, buf, MSG) != MSG || !read_all(p_in, buf, MSG))
            break;
    }
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    printf("rounds %d signal %d\n", i, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return 0;
}

static int block(size_t size)
{
    int s, c;

    tcp_pair(&s, &c);
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        /* filled first (milliseconds of CPU), so that the parent is
         * waiting in its first read when the write begins: the message
         * is what lets it go on, on the critical path */
        char *buf = malloc(size);
        close(s);
        if (buf != NULL)
            memset(buf, 'x', size);
        if (buf == NULL || write(c, buf, size) != (ssize_t)size)
            exit(1);
        exit(0);
    }
    close(c);
    char buf[4096];
    size_t total = 0;
    ssize_t r = read(s, buf, 1);
    while (r > 0) {
        total += (size_t)r;
        r = read(s, buf, sizeof(buf));
    }
    int status = 0;
    waitpid(pid, &status, 0);
    printf("read %zu\n", total);
    return status == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "block") == 0)
        return block((size_t)atol(argv[2]));
    if (argc != 3 || (strcmp(argv[1], "tcp") != 0 && strcmp(argv[1], "pipe") != 0)) {
        fprintf(stderr, "usage: killpp tcp|pipe ROUNDS | killpp block SIZE\n");
        return 2;
    }
    return pingpong(argv[1], atoi(argv[2]));
}
