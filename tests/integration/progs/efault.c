/*
 * efault.c - calls given bad pointers, where the kernel answers EFAULT.
 *
 * Each line names one call and prints its return value and errno; a
 * traced build must print exactly what the untraced build prints (a
 * wrapper that reads a caller's pointer before the kernel has accepted it
 * dies of SIGSEGV instead).  The bad pointer is a page mapped PROT_NONE;
 * the read-only one is a page whose structure is readable but not
 * writable.  Receives run with a datagram waiting, so that the kernel gets
 * as far as the address and length; nothing ever blocks.  Each call runs
 * in a child of its own, so that a crash is one line ("killed by SIGSEGV")
 * and the next calls still run; some crash untraced too (glibc reads the
 * timeouts of ppoll and select itself), and must crash alike traced.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "in_child.h"

extern char **environ;

static void *bad;
static int udp;
static struct sockaddr_in self;

static void show(const char *call, long rc, int err)
{
    const char *name = err ? strerrorname_np(err) : NULL;

    printf("%-22s rc=%ld errno=%s\n", call, rc, name ? name : "-");
}

/* Runs expr in a child; prints its result there, or how the child died. */
#define CALL(name, expr)                                                                           \
    IN_CHILD(name, 22, {                                                                           \
        errno = 0;                                                                                 \
        long rc_ = (long)(expr);                                                                   \
        show(name, rc_, errno);                                                                    \
    })

/* Leaves exactly one datagram waiting on the unconnected UDP socket. */
static void one_waiting(void)
{
    char buf[64];

    while (recv(udp, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
        ;
    sendto(udp, "ping", 4, 0, (struct sockaddr *)&self, sizeof(self));
}

/* A page holding *what, then made read-only. */
static void *read_only_copy(const void *what, size_t n)
{
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    memcpy(p, what, n);
    mprotect(p, 4096, PROT_READ);
    return p;
}

int main(void)
{
    char buf[64];
    socklen_t len = sizeof(self);
    struct iovec iov = {buf, sizeof(buf)};
    int pipefd[2];

    setvbuf(stdout, NULL, _IOLBF, 0);
    bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    udp = socket(AF_INET, SOCK_DGRAM, 0);
    self.sin_family = AF_INET;
    self.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(udp, (struct sockaddr *)&self, sizeof(self));
    getsockname(udp, (struct sockaddr *)&self, &len);
    pipe(pipefd);

    one_waiting();
    CALL("recvfrom bad alen", recvfrom(udp, buf, sizeof(buf), MSG_DONTWAIT, (void *)buf, bad));
    one_waiting();
    len = sizeof(self);
    CALL("recvfrom bad addr", recvfrom(udp, buf, sizeof(buf), MSG_DONTWAIT, bad, &len));
    CALL("sendto bad addr", sendto(udp, "x", 1, 0, bad, sizeof(self)));
    CALL("sendmsg bad msghdr", sendmsg(udp, bad, 0));
    struct msghdr named = {
        .msg_name = bad, .msg_namelen = sizeof(self), .msg_iov = &iov, .msg_iovlen = 1};
    CALL("sendmsg bad name", sendmsg(udp, &named, 0));
    one_waiting();
    CALL("recvmsg bad msghdr", recvmsg(udp, bad, MSG_DONTWAIT));
    one_waiting();
    struct msghdr unnamed = {.msg_iov = &iov, .msg_iovlen = 1};
    CALL("recvmsg read-only",
         recvmsg(udp, read_only_copy(&unnamed, sizeof(unnamed)), MSG_DONTWAIT));
    one_waiting();
    CALL("recvmmsg bad vector", recvmmsg(udp, bad, 2, MSG_DONTWAIT, NULL));
    one_waiting();
    struct mmsghdr vec = {.msg_hdr = unnamed};
    CALL("recvmmsg read-only",
         recvmmsg(udp, read_only_copy(&vec, sizeof(vec)), 1, MSG_DONTWAIT, NULL));
    CALL("sendmmsg bad vector", sendmmsg(udp, bad, 2, 0));
    one_waiting();
    CALL("readv dgram bad iov", readv(udp, bad, 2));
    CALL("readv pipe bad iov", readv(pipefd[0], bad, 2));
    CALL("writev pipe bad iov", writev(pipefd[1], bad, 2));
    CALL("read bad buffer", read(udp, bad, 16));

    int tcp = socket(AF_INET, SOCK_STREAM, 0);
    CALL("connect bad addr", connect(tcp, bad, sizeof(self)));
    CALL("connect dgram bad addr", connect(udp, bad, sizeof(self)));
    close(tcp);

    CALL("open bad path", open(bad, O_RDONLY));
    CALL("openat bad path", openat(AT_FDCWD, bad, O_RDONLY));
    struct pollfd pfd = {.fd = pipefd[0], .events = POLLIN};
    CALL("ppoll bad timeout", ppoll(&pfd, 1, bad, NULL));
    CALL("poll bad fds", poll(bad, 1, 0));
    CALL("select bad timeout", select(1, NULL, NULL, NULL, bad));
    CALL("pselect bad timeout", pselect(1, NULL, NULL, NULL, bad, NULL));
    int ep = epoll_create1(0);
    struct epoll_event ev;
    CALL("epoll_pwait2 bad time", epoll_pwait2(ep, &ev, 1, bad, NULL));
    CALL("epoll_wait bad events", epoll_wait(ep, bad, 1, 0));

    char *argv[] = {"true", NULL};
    CALL("execve bad path", execve(bad, argv, environ));
    CALL("execv bad path", execv(bad, argv));
    pid_t pid;
    CALL("posix_spawn bad path",
         (errno = posix_spawn(&pid, bad, NULL, NULL, argv, environ)) ? -1 : 0);
    CALL("system bad line", system(bad));
    CALL("popen bad command", popen(bad, "r") == NULL ? -1 : 0);

    pid = fork();
    if (pid == 0)
        _exit(7);
    siginfo_t si;
    while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
        ;
    errno = 0;
    long r = waitpid(pid, bad, 0);
    show("waitpid bad status", r, errno);
    errno = 0;
    r = waitpid(pid, NULL, 0);
    show("waitpid reaped", r, errno);
    return 0;
}
