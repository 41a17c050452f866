/*
 * slave_pack.c - packing a run's raw streams in a child of the slave
 * (slave_pack.h), once the reduction no longer reads them.
 *
 * The child is forked from the slave's single-threaded loop right after
 * the reductions and PAG parts are sent; it never touches PVM (its copy
 * of the PVM socket is closed with every other descriptor), runs
 * ips2_pack_dir() at nice 10 (the master's queries to the slave, and the
 * master itself, come first on a machine with few cores; once the slave
 * is told to quit, only the packing is waited for, and the packer gets
 * the slave's priority back where the system allows it) and writes
 * fixed-size records to a pipe: progress, a stream kept raw, the end.
 * Records are shorter than PIPE_BUF, so each write is whole.
 *
 * The session stays readable at every moment: ips2_pack_stream() writes
 * NAME.ips2.tmp, renames it to NAME.ips2 once complete and only then
 * removes NAME.raw; a listing that sees both drops the raw twin, and a
 * reader that finds the raw file gone opens its packed twin (reader.c).
 * PR_SET_PDEATHSIG kills the child with the slave: what it had not packed
 * stays raw, a NAME.ips2.tmp it was writing is ignored by every reader
 * and replaced by the next packing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ips2_reader.h" /* IPS2_ERR_MAX */
#include "slave_pack.h"

#define PACKER_NICE 10

enum { REC_PROGRESS, REC_FAILED, REC_END };

struct rec {
    int32_t type;
    int32_t has_stream;
    int64_t a, b;      /* progress: done, total; end: packed, raw */
    char stream[2048]; /* a longer path is cut in the message */
    char text[IPS2_ERR_MAX];
};
_Static_assert(sizeof(struct rec) <= PIPE_BUF, "a record is written whole");

struct slave_packer {
    pid_t pid;
    int fd;
    int64_t done, total; /* the last progress */
    int raw;             /* streams kept raw */
    bool ended;          /* the child said so */
};

/* --- the child ------------------------------------------------------------- */

struct child {
    int fd;
    const char *machine;
    int failed;
    bool held;
};

static void put(const struct child *c, const struct rec *r)
{
    ssize_t n;
    while ((n = write(c->fd, r, sizeof *r)) < 0 && errno == EINTR)
        continue;
}

/* The test hook of slave_pack.h, after the first stream only: whether
 * it held (and sent r). */
static bool child_hold(struct child *c, const struct rec *r)
{
    const char *dir = getenv("IPS2SLAVE_HOLD");
    char path[PATH_MAX], tmp[PATH_MAX + 8];
    c->held = true;
    if (dir == NULL || dir[0] == '\0')
        return false;
    snprintf(path, sizeof path, "%s/%s.packhold", dir, c->machine);
    if (access(path, F_OK) != 0)
        return false;
    int in = inotify_init1(IN_CLOEXEC);
    if (in >= 0)
        inotify_add_watch(in, dir, IN_CREATE | IN_MOVED_TO);
    snprintf(path, sizeof path, "%s/%s.packpid", dir, c->machine);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (f != NULL) {
        fprintf(f, "%d %d\n", (int)getpid(), (int)getppid());
        fclose(f);
        rename(tmp, path);
    }
    put(c, r); /* the progress the test waits for, after the pid file */
    snprintf(path, sizeof path, "%s/%s.packgo", dir, c->machine);
    char buf[4096];
    while (access(path, F_OK) != 0 && in >= 0 && read(in, buf, sizeof buf) > 0)
        continue;
    if (in >= 0)
        close(in);
    return true;
}

static void child_progress(void *arg, uint64_t done, uint64_t total)
{
    struct child *c = arg;
    struct rec r = {.type = REC_PROGRESS, .a = (int64_t)done, .b = (int64_t)total};
    if (done != 1 || c->held || !child_hold(c, &r))
        put(c, &r);
}

static void child_failed(void *arg, const char *stream, const char *message)
{
    struct child *c = arg;
    struct rec r = {.type = REC_FAILED, .has_stream = stream != NULL};
    snprintf(r.stream, sizeof r.stream, "%s", stream ? stream : "");
    snprintf(r.text, sizeof r.text, "%s", message);
    if (stream != NULL)
        c->failed++;
    put(c, &r);
}

static void child_main(int fd, const char *trace_dir, const char *machine, pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) /* the slave died before the call above */
        _exit(1);
    if (fd != 3) {
        dup2(fd, 3);
        fd = 3;
    }
    for (int i = 4; i < 1024; i++) /* the PVM socket, the runner's, ... */
        close(i);
    setpriority(PRIO_PROCESS, 0, PACKER_NICE);
    struct child c = {.fd = fd, .machine = machine};
    const struct ips2_pack_report report = {child_progress, child_failed, &c};
    char err[IPS2_ERR_MAX];
    /* a directory that is not there had nothing traced */
    if (ips2_pack_dir(trace_dir, false, &report, err) < 0 && access(trace_dir, F_OK) == 0)
        child_failed(&c, NULL, err);
    struct rec r = {.type = REC_END, .b = c.failed};
    put(&c, &r);
    _exit(0);
}

/* --- the slave's side ---------------------------------------------------- */

struct slave_packer *slave_packer_start(const char *trace_dir, const char *machine, char *err,
                                        size_t errsize)
{
    struct slave_packer *p = calloc(1, sizeof *p);
    int fds[2];
    if (p == NULL) {
        snprintf(err, errsize, "out of memory");
        return NULL;
    }
    if (pipe2(fds, O_CLOEXEC) != 0) {
        snprintf(err, errsize, "pipe: %s", strerror(errno));
        free(p);
        return NULL;
    }
    pid_t parent = getpid();
    fflush(NULL);
    p->pid = fork();
    if (p->pid < 0) {
        snprintf(err, errsize, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        free(p);
        return NULL;
    }
    if (p->pid == 0) {
        close(fds[0]);
        child_main(fds[1], trace_dir, machine, parent);
    }
    close(fds[1]);
    p->fd = fds[0];
    return p;
}

void slave_packer_hurry(struct slave_packer *p)
{
    errno = 0;
    int mine = getpriority(PRIO_PROCESS, 0);
    if (p->pid > 0 && errno == 0)
        setpriority(PRIO_PROCESS, (id_t)p->pid, mine); /* EACCES: it stays niced */
}

int slave_packer_fd(const struct slave_packer *p)
{
    return p->fd;
}

static ssize_t read_full(int fd, void *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, (char *)buf + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return got > 0 ? (ssize_t)got : n;
        got += (size_t)n;
    }
    return (ssize_t)got;
}

int slave_packer_step(struct slave_packer *p, const struct ips2_pack_report *report,
                      struct slave_pack_end *end)
{
    static struct rec r; /* 5 KB: not on the slave's stack at every step */
    ssize_t n = read_full(p->fd, &r, sizeof r);
    if (n == (ssize_t)sizeof r) {
        switch (r.type) {
        case REC_PROGRESS:
            p->done = r.a;
            p->total = r.b;
            if (report->progress != NULL)
                report->progress(report->arg, (uint64_t)r.a, (uint64_t)r.b);
            return 1;
        case REC_FAILED:
            r.stream[sizeof r.stream - 1] = '\0';
            r.text[sizeof r.text - 1] = '\0';
            if (report->failed != NULL)
                report->failed(report->arg, r.has_stream ? r.stream : NULL, r.text);
            return 1;
        case REC_END:
            p->ended = true;
            p->raw = (int)r.b;
            p->done = p->total;
            return 1;
        default:
            return 1;
        }
    }
    /* the end of the pipe: the child is gone (or going) */
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    while (wait4(p->pid, &status, 0, &ru) < 0 && errno == EINTR)
        continue;
    memset(end, 0, sizeof *end);
    end->cpu_ns = ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
                  ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
    end->raw = p->raw;
    /* streams before `done` were packed or reported raw; the rest, if it
     * died, stay raw too */
    end->packed = (int)(p->done - p->raw);
    if (end->packed < 0)
        end->packed = 0;
    if (!p->ended) {
        end->died = true;
        if (WIFSIGNALED(status))
            snprintf(end->why, sizeof end->why, "the packer (pid %d) was killed by signal %d",
                     (int)p->pid, WTERMSIG(status));
        else
            snprintf(end->why, sizeof end->why, "the packer (pid %d) exited %d before its end",
                     (int)p->pid, WEXITSTATUS(status));
    }
    p->pid = 0;
    return 0;
}

void slave_packer_free(struct slave_packer *p)
{
    if (p == NULL)
        return;
    if (p->pid > 0) {
        kill(p->pid, SIGKILL);
        while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
            continue;
    }
    close(p->fd);
    free(p);
}
