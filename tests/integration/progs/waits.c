/*
 * waits.c - readiness waits on a pipe (messages.test).
 *
 *   waits
 *
 * A child answers each byte it reads from the "go" pipe with a byte on the
 * "data" pipe.  The parent, six times, sends "go" and waits for data with
 * poll, ppoll, select, pselect, epoll_wait and epoll_pwait in turn (no
 * timeout), then reads the byte.  Then two waits that return at once: poll
 * with timeout 0 on the empty pipe (nothing ready) and epoll_wait on a
 * descriptor that is not an epoll instance (EINVAL).  Prints
 * "waits ready R timeout T error E".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what)
{
    perror(what);
    exit(1);
}

int main(void)
{
    int go[2], data[2];
    char c = 'g';

    if (pipe(go) != 0 || pipe(data) != 0)
        die("pipe");
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        close(go[1]);
        close(data[0]);
        while (read(go[0], &c, 1) == 1)
            if (write(data[1], &c, 1) != 1)
                die("child write");
        return 0;
    }
    close(go[0]);
    close(data[1]);
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN}, out;
    if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, data[0], &ev) != 0)
        die("epoll");
    int ready = 0;
    for (int k = 0; k < 6; k++) {
        struct pollfd p = {.fd = data[0], .events = POLLIN};
        fd_set set;
        int r;
        FD_ZERO(&set);
        FD_SET(data[0], &set);
        if (write(go[1], &c, 1) != 1)
            die("write go");
        switch (k) {
        case 0:
            r = poll(&p, 1, -1);
            break;
        case 1:
            r = ppoll(&p, 1, NULL, NULL);
            break;
        case 2:
            r = select(data[0] + 1, &set, NULL, NULL, NULL);
            break;
        case 3:
            r = pselect(data[0] + 1, &set, NULL, NULL, NULL, NULL);
            break;
        case 4:
            r = epoll_wait(ep, &out, 1, -1);
            break;
        default:
            r = epoll_pwait(ep, &out, 1, -1, NULL);
            break;
        }
        if (r != 1 || read(data[0], &c, 1) != 1)
            die("wait");
        ready += r;
    }
    struct pollfd p = {.fd = data[0], .events = POLLIN};
    int timeout = poll(&p, 1, 0);
    int r = epoll_wait(data[0], &out, 1, -1);
    int error = r < 0 ? errno : 0;
    close(go[1]);
    printf("waits ready %d timeout %d error %d\n", ready, timeout, error);
    int status;
    return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
