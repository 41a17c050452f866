/*
 * cpstep.c - a process that does a known sequence of steps, for the
 * critical-path workloads (fig4.tcl, cpknown.tcl): known CPU work in named
 * procedures and TCP messages at known points, so that the longest path
 * through the run is known by construction.
 *
 *   cpstep STEP ...
 *
 *   listen PORT            listen on 127.0.0.1:PORT
 *   accept PORT CONN       accept one connection on PORT into slot CONN (0-7)
 *   connect PORT CONN      connect to 127.0.0.1:PORT into slot CONN (retried
 *                          every 10 ms while refused, for at most 10 s)
 *   send CONN BYTES        one send() of BYTES bytes
 *   recv CONN BYTES        one recv(MSG_WAITALL) of BYTES bytes
 *   work PROC MS           MS ms of this thread's CPU in procedure PROC, one
 *                          of the names of the table below
 *   nest OUTER MS PROC MS2 MS ms of CPU in procedure OUTER (build or plan),
 *                          which then calls PROC for MS2 ms: a caller and
 *                          its callee, for inclusive zeroing
 *   close CONN
 *
 * Every work procedure is a distinct noinline function, so the traces and
 * the procedure-level tables name it.  Exit status 0 when every step
 * worked, 1 (with a message naming the step) otherwise, 2 for bad usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cpuwork.h"
#include "loopback.h"

#define WORK_PROC(name)                                                                            \
    __attribute__((noinline)) static void name(double ms)                                          \
    {                                                                                              \
        burn_cpu(ms);                                                                              \
    }

WORK_PROC(solve)
WORK_PROC(assemble)
WORK_PROC(refine)
WORK_PROC(output)
WORK_PROC(setup)
WORK_PROC(cleanup)
WORK_PROC(compute)
WORK_PROC(finish)
WORK_PROC(serve)
WORK_PROC(record)
WORK_PROC(prepare)
WORK_PROC(digest)

/* Callers: their own work, then a work procedure's. */
#define OUTER_PROC(name)                                                                           \
    __attribute__((noinline)) static void name(double ms, void (*inner)(double), double inner_ms)  \
    {                                                                                              \
        burn_cpu(ms);                                                                              \
        inner(inner_ms);                                                                           \
    }

OUTER_PROC(build)
OUTER_PROC(plan)

static const struct {
    const char *name;
    void (*fn)(double, void (*)(double), double);
} outers[] = {{"build", build}, {"plan", plan}};

static const struct {
    const char *name;
    void (*fn)(double);
} procs[] = {
    {"solve", solve}, {"assemble", assemble}, {"refine", refine},   {"output", output},
    {"setup", setup}, {"cleanup", cleanup},   {"compute", compute}, {"finish", finish},
    {"serve", serve}, {"record", record},     {"prepare", prepare}, {"digest", digest},
};

#define NCONN   8
#define NLISTEN 8

struct state {
    int conn[NCONN];
    int lport[NLISTEN], lfd[NLISTEN];
    int nlisten;
};

__attribute__((noinline)) static int do_listen(struct state *st, int port)
{
    if (st->nlisten == NLISTEN)
        return -1;
    int fd = loopback_listen(port, 8);
    if (fd < 0)
        return -1;
    st->lport[st->nlisten] = port;
    st->lfd[st->nlisten++] = fd;
    return 0;
}

__attribute__((noinline)) static int do_accept(struct state *st, int port)
{
    for (int i = 0; i < st->nlisten; i++)
        if (st->lport[i] == port)
            return accept(st->lfd[i], NULL, NULL);
    errno = ENOENT;
    return -1;
}

__attribute__((noinline)) static int do_connect(int port)
{
    return loopback_connect(port);
}

__attribute__((noinline)) static int do_send(int fd, int bytes)
{
    char buf[65536];
    if (bytes < 0 || bytes > (int)sizeof buf)
        return -1;
    memset(buf, 'x', (size_t)bytes);
    return send(fd, buf, (size_t)bytes, 0) == bytes ? 0 : -1;
}

__attribute__((noinline)) static int do_recv(int fd, int bytes)
{
    char buf[65536];
    if (bytes < 0 || bytes > (int)sizeof buf)
        return -1;
    return recv(fd, buf, (size_t)bytes, MSG_WAITALL) == bytes ? 0 : -1;
}

static int conn_slot(const char *s)
{
    int c = atoi(s);
    return c >= 0 && c < NCONN ? c : -1;
}

/* Runs the step at argv[i]; returns how many words it took, 0 on a
 * failure (with errno), -1 for a step not understood. */
static int step(struct state *st, char **argv, int argc, int i)
{
    const char *s = argv[i];
    int left = argc - i - 1;
    if (strcmp(s, "listen") == 0 && left >= 1)
        return do_listen(st, atoi(argv[i + 1])) == 0 ? 2 : 0;
    if ((strcmp(s, "accept") == 0 || strcmp(s, "connect") == 0) && left >= 2) {
        int c = conn_slot(argv[i + 2]);
        if (c < 0)
            return -1;
        int port = atoi(argv[i + 1]);
        st->conn[c] = s[0] == 'a' ? do_accept(st, port) : do_connect(port);
        return st->conn[c] >= 0 ? 3 : 0;
    }
    if ((strcmp(s, "send") == 0 || strcmp(s, "recv") == 0) && left >= 2) {
        int c = conn_slot(argv[i + 1]);
        if (c < 0 || st->conn[c] < 0)
            return -1;
        int n = atoi(argv[i + 2]);
        return (s[0] == 's' ? do_send(st->conn[c], n) : do_recv(st->conn[c], n)) == 0 ? 3 : 0;
    }
    if (strcmp(s, "work") == 0 && left >= 2) {
        for (size_t p = 0; p < sizeof procs / sizeof procs[0]; p++)
            if (strcmp(procs[p].name, argv[i + 1]) == 0) {
                procs[p].fn(atof(argv[i + 2]));
                return 3;
            }
        return -1;
    }
    if (strcmp(s, "nest") == 0 && left >= 4) {
        for (size_t o = 0; o < sizeof outers / sizeof outers[0]; o++)
            for (size_t p = 0; p < sizeof procs / sizeof procs[0]; p++)
                if (strcmp(outers[o].name, argv[i + 1]) == 0 &&
                    strcmp(procs[p].name, argv[i + 3]) == 0) {
                    outers[o].fn(atof(argv[i + 2]), procs[p].fn, atof(argv[i + 4]));
                    return 5;
                }
        return -1;
    }
    if (strcmp(s, "close") == 0 && left >= 1) {
        int c = conn_slot(argv[i + 1]);
        if (c < 0 || st->conn[c] < 0)
            return -1;
        close(st->conn[c]);
        st->conn[c] = -1;
        return 2;
    }
    return -1;
}

int main(int argc, char **argv)
{
    struct state st = {.nlisten = 0};
    for (int c = 0; c < NCONN; c++)
        st.conn[c] = -1;
    for (int i = 1; i < argc;) {
        int n = step(&st, argv, argc, i);
        if (n < 0) {
            fprintf(stderr, "cpstep: step %d: \"%s\" not understood (see the usage in cpstep.c)\n",
                    i, argv[i]);
            return 2;
        }
        if (n == 0) {
            fprintf(stderr, "cpstep: step %d (%s %s): %s\n", i, argv[i],
                    i + 1 < argc ? argv[i + 1] : "", strerror(errno));
            return 1;
        }
        i += n;
    }
    return 0;
}
