/*
 * echo.c - a TCP echo server and its client (preload.test).
 *
 *   echo server CLIENT-EXE     listen on 127.0.0.1, start "CLIENT-EXE client
 *                              PORT", echo what it sends until it closes
 *   echo client PORT           send ten messages of 1, 2, 4, ..., 512 bytes,
 *                              reading each one's echo back in full
 *
 * The server prints "server echoed N", the client "client sent N" (N = 1023).
 * preload.test builds the server without ips2cc and runs it under
 * ips2-preload, and builds the client with ips2cc.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static int client(int port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
    char buf[512];
    long sent = 0;
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0)
        die("connect");
    memset(buf, 'e', sizeof(buf));
    for (size_t n = 1; n <= sizeof(buf); n *= 2) {
        if (send(fd, buf, n, 0) != (ssize_t)n)
            die("send");
        sent += (long)n;
        for (size_t got = 0; got < n;) {
            ssize_t r = recv(fd, buf + got, n - got, 0);
            if (r <= 0)
                die("recv");
            got += (size_t)r;
        }
    }
    close(fd);
    printf("client sent %ld\n", sent);
    return 0;
}

static int server(const char *client_exe)
{
    struct sockaddr_in a = {.sin_family = AF_INET};
    socklen_t len = sizeof(a);
    char port[16], buf[256];
    long echoed = 0;
    ssize_t n;
    int lfd = socket(AF_INET, SOCK_STREAM, 0);

    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(lfd, 1) != 0 ||
        getsockname(lfd, (struct sockaddr *)&a, &len) != 0)
        die("listen");
    snprintf(port, sizeof(port), "%d", ntohs(a.sin_port));
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(lfd);
        execl(client_exe, client_exe, "client", port, (char *)NULL);
        die("exec");
    }
    int fd = accept(lfd, NULL, NULL);
    if (fd < 0)
        die("accept");
    while ((n = read(fd, buf, sizeof(buf))) > 0) {
        if (write(fd, buf, (size_t)n) != n)
            die("write");
        echoed += n;
    }
    close(fd);
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        die("client failed");
    printf("server echoed %ld\n", echoed);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "client") == 0)
        return client(atoi(argv[2]));
    if (argc == 3 && strcmp(argv[1], "server") == 0)
        return server(argv[2]);
    fprintf(stderr, "usage: echo server CLIENT-EXE | echo client PORT\n");
    return 2;
}
