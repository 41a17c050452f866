/*
 * tcp.c - a multi-process TCP client/server (messages.test).
 *
 *   tcp [NCLIENTS]
 *
 * The parent listens on 127.0.0.1 (an ephemeral port), forks NCLIENTS
 * clients (default 2), accepts as many connections and forks a handler for
 * each, then reaps everyone.  A handler first sends its pid (4 bytes); then,
 * per message, it reads a 4-byte length and the body through a 777-byte
 * buffer (so reads are partial) and answers with the body's 8-byte byte sum;
 * a length of 0 ends the session, answered by the number of reads that
 * failed with EINTR (8 bytes).  The handler's SIGUSR1 handler is installed
 * without SA_RESTART: each client, once its handler is blocked in read(2)
 * (as /proc/<pid>/syscall shows), sends it SIGUSR1 and sends nothing more
 * until the signal was taken (/proc/<pid>/status), so exactly one read per
 * handler fails with EINTR, and is retried.
 *
 * Each client prints "client sent S received R eintr E": S = 280776 bytes
 * (eight messages of 280740 bytes in all, with their lengths, and the end),
 * R = 76 (pid, eight sums, the EINTR count), E = 1.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static const size_t sizes[] = {1, 7, 100, 1000, 4096, 10000, 65536, 200000};
#define NMSG (sizeof(sizes) / sizeof(sizes[0]))

static unsigned eintr_count;

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static void on_usr1(int sig)
{
    (void)sig;
}

/* Reads exactly n bytes through reads of at most chunk bytes, retrying
 * reads interrupted by a signal. */
static void read_full(int fd, void *buf, size_t n, size_t chunk)
{
    size_t got = 0;

    while (got < n) {
        size_t want = n - got < chunk ? n - got : chunk;
        ssize_t r = read(fd, (char *)buf + got, want);
        if (r < 0 && errno == EINTR) {
            eintr_count++;
            continue;
        }
        if (r <= 0)
            die("read");
        got += (size_t)r;
    }
}

static void write_full(int fd, const void *buf, size_t n)
{
    size_t done = 0;

    while (done < n) {
        ssize_t r = write(fd, (const char *)buf + done, n - done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            die("write");
        done += (size_t)r;
    }
}

static void handler(int fd)
{
    struct sigaction sa;
    static char body[200000];
    uint32_t pid = (uint32_t)getpid(), len;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_usr1; /* no SA_RESTART: a blocked read fails with EINTR */
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGUSR1, &sa, NULL) != 0)
        die("sigaction");
    write_full(fd, &pid, sizeof(pid));
    for (;;) {
        read_full(fd, &len, sizeof(len), 777);
        if (len == 0)
            break;
        if (len > sizeof(body))
            die("length");
        read_full(fd, body, len, 777);
        uint64_t sum = 0;
        for (uint32_t i = 0; i < len; i++)
            sum += (unsigned char)body[i];
        write_full(fd, &sum, sizeof(sum));
    }
    uint64_t n = eintr_count;
    write_full(fd, &n, sizeof(n));
    close(fd);
    exit(0);
}

/* Waits until process pid is blocked in read(2). */
static void wait_until_reading(pid_t pid)
{
    char path[64], line[256];

    snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
    for (;;) {
        FILE *f = fopen(path, "r");
        if (f == NULL)
            die(path);
        int reading = fgets(line, sizeof(line), f) != NULL && strncmp(line, "0 ", 2) == 0;
        fclose(f);
        if (reading)
            return;
        sched_yield();
    }
}

/* Waits until process pid has taken signal sig (it is no longer pending):
 * its read has returned by then, with EINTR since no data was there. */
static void wait_until_taken(pid_t pid, int sig)
{
    char path[64], line[256];
    unsigned long long mask = 1ull << (sig - 1);

    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    for (;;) {
        FILE *f = fopen(path, "r");
        unsigned long long pending = 0, v;
        if (f == NULL)
            die(path);
        while (fgets(line, sizeof(line), f) != NULL)
            if (sscanf(line, "ShdPnd: %llx", &v) == 1 || sscanf(line, "SigPnd: %llx", &v) == 1)
                pending |= v;
        fclose(f);
        if (!(pending & mask))
            return;
        sched_yield();
    }
}

static void client(const struct sockaddr_in *addr)
{
    static char body[200000];
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    uint32_t pid;
    uint64_t sum, eintr, sent = 0, received = 0;

    if (fd < 0 || connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) != 0)
        die("connect");
    read_full(fd, &pid, sizeof(pid), sizeof(pid));
    received += sizeof(pid);
    wait_until_reading((pid_t)pid);
    if (kill((pid_t)pid, SIGUSR1) != 0)
        die("kill");
    wait_until_taken((pid_t)pid, SIGUSR1); /* no data before the read failed */
    for (size_t i = 0; i < sizeof(body); i++)
        body[i] = (char)(i * 7);
    for (size_t m = 0; m < NMSG; m++) {
        uint32_t len = (uint32_t)sizes[m];
        write_full(fd, &len, sizeof(len));
        write_full(fd, body, len);
        sent += sizeof(len) + len;
        read_full(fd, &sum, sizeof(sum), sizeof(sum));
        received += sizeof(sum);
    }
    uint32_t end = 0;
    write_full(fd, &end, sizeof(end));
    sent += sizeof(end);
    read_full(fd, &eintr, sizeof(eintr), sizeof(eintr));
    received += sizeof(eintr);
    printf("client sent %llu received %llu eintr %llu\n", (unsigned long long)sent,
           (unsigned long long)received, (unsigned long long)eintr);
    close(fd);
    exit(0);
}

int main(int argc, char **argv)
{
    int nclients = argc > 1 ? atoi(argv[1]) : 2;
    struct sockaddr_in addr = {.sin_family = AF_INET};
    socklen_t len = sizeof(addr);
    int lfd = socket(AF_INET, SOCK_STREAM, 0);

    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) != 0 ||
        listen(lfd, nclients) != 0 || getsockname(lfd, (struct sockaddr *)&addr, &len) != 0)
        die("listen");
    fflush(stdout);
    for (int i = 0; i < nclients; i++) {
        pid_t pid = fork();
        if (pid < 0)
            die("fork");
        if (pid == 0) {
            close(lfd);
            client(&addr);
        }
    }
    for (int i = 0; i < nclients; i++) {
        int fd = accept(lfd, NULL, NULL);
        if (fd < 0)
            die("accept");
        pid_t pid = fork();
        if (pid < 0)
            die("fork");
        if (pid == 0) {
            close(lfd);
            handler(fd);
        }
        close(fd);
    }
    close(lfd);
    int status, failed = 0;
    while (wait(&status) > 0)
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            failed = 1;
    return failed;
}
