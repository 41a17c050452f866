/*
 * test_slave_run.c - ips2slave's process runner (slave/slave_run.c) on
 * real processes (/bin/sh): exit statuses, output files, the tracing
 * environment and working directory, no descriptor of the slave's
 * inherited, a command that cannot start, a bad
 * working directory, a crash, and timeouts ended by SIGTERM and, when
 * SIGTERM is ignored, by SIGKILL after the grace time; a descendant left
 * running in a session of its own (setsid, its parent exited) waited for,
 * or stopped at the run's timeout and named.  The runner is driven the
 * way the slave drives it: poll on its fd with its wait time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#define _XOPEN_SOURCE_EXTENDED 1
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slave_run.h"

static char dir[64];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/ips2-test-slave-run-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

#define MAXEND 8
struct ends {
    int n;
    struct slave_proc_end e[MAXEND];
    char app[MAXEND][32]; /* end.app lives only as long as the runner */
};

static void on_end(void *arg, const struct slave_proc_end *end)
{
    struct ends *ends = arg;
    assert_true(ends->n < MAXEND);
    snprintf(ends->app[ends->n], sizeof ends->app[0], "%s", end->app);
    ends->e[ends->n] = *end;
    ends->e[ends->n].app = NULL;
    ends->n++;
}

/* Runs the given processes to their ends, the way ips2slave waits. */
static struct ends run(int64_t grace_ms, const struct slave_proc_spec *specs, int n)
{
    char err[256], trace[PATH_MAX], out[PATH_MAX];
    static int serial;
    snprintf(trace, sizeof trace, "%s/s%d/traces/alpha", dir, serial);
    snprintf(out, sizeof out, "%s/s%d/output/alpha", dir, serial++);
    struct slave_runner *r = slave_runner_new(trace, out, grace_ms, err, sizeof err);
    assert_non_null(r);
    for (int i = 0; i < n; i++)
        slave_runner_start(r, &specs[i]);
    assert_int_equal(slave_runner_count(r), n);
    struct ends ends = {0};
    while (slave_runner_step(r, on_end, &ends) > 0 || ends.n < n) {
        struct pollfd pfd = {slave_runner_fd(r), POLLIN, 0};
        poll(&pfd, 1, slave_runner_wait_ms(r));
    }
    slave_runner_free(r);
    return ends;
}

static char *slurp(const char *path)
{
    static char buf[4096];
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return NULL;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void exit_status_and_output(void **state)
{
    (void)state;
    char *argv[] = {"sh", "-c", "echo out; echo err >&2; exit 3", NULL};
    struct slave_proc_spec spec = {.app = "srv", .index = 2, .argv = argv};
    struct ends e = run(100, &spec, 1);
    assert_int_equal(e.n, 1);
    assert_int_equal(e.e[0].how, IPS2_PROC_EXITED);
    assert_int_equal(e.e[0].code, 3);
    assert_true(e.e[0].pid > 0);
    assert_string_equal(e.app[0], "srv");
    assert_int_equal(e.e[0].index, 2);

    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/s0/output/alpha/srv.2.stdout", dir);
    assert_string_equal(slurp(path), "out\n");
    snprintf(path, sizeof path, "%s/s0/output/alpha/srv.2.stderr", dir);
    assert_string_equal(slurp(path), "err\n");
}

static void environment_and_cwd(void **state)
{
    (void)state;
    char *argv[] = {"sh", "-c", "echo \"$IPS2_SESSION|$IPS2_APP|$FOO|$(pwd)\"", NULL};
    char *env[] = {"FOO=bar baz", "IPS2_APP=ignored", NULL};
    struct slave_proc_spec spec = {.app = "a/b", .index = 0, .cwd = "/", .argv = argv, .env = env};
    struct ends e = run(100, &spec, 1);
    assert_int_equal(e.e[0].how, IPS2_PROC_EXITED);
    assert_int_equal(e.e[0].code, 0);

    char path[PATH_MAX], want[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/s1/output/alpha/a_b.0.stdout", dir);
    /* the workload cannot change IPS2_APP */
    snprintf(want, sizeof want, "%s/s1/traces/alpha|a/b|bar baz|/\n", dir);
    assert_string_equal(slurp(path), want);
}

static void nothing_inherited(void **state)
{
    (void)state;
    /* a descriptor of the slave's without close-on-exec (as libpvm's socket) */
    int fd = open("/dev/null", O_RDONLY);
    assert_true(fd > 2);
    assert_int_equal(dup2(fd, 100), 100);
    close(fd);
    char *argv[] = {"sh", "-c", "test -e /proc/$$/fd/100 && echo open || echo closed", NULL};
    struct slave_proc_spec spec = {.app = "fds", .argv = argv};
    struct ends e = run(100, &spec, 1);
    close(100);
    assert_int_equal(e.e[0].how, IPS2_PROC_EXITED);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/s2/output/alpha/fds.0.stdout", dir);
    assert_string_equal(slurp(path), "closed\n");
}

static void cannot_start(void **state)
{
    (void)state;
    char *argv1[] = {"/nonexistent/prog", "-x", NULL};
    char *argv2[] = {"true", NULL};
    char *argv3[] = {"no-such-command-ips2", NULL};
    struct slave_proc_spec specs[] = {
        {.app = "a", .index = 0, .argv = argv1},
        {.app = "a", .index = 1, .cwd = "/nonexistent-dir", .argv = argv2},
        {.app = "a", .index = 2, .argv = argv3},
    };
    struct ends e = run(100, specs, 3);
    assert_int_equal(e.n, 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(e.e[i].how, IPS2_PROC_FAILED);
        assert_int_equal(e.e[i].pid, 0);
    }
    assert_string_equal(e.e[0].text, "cannot execute /nonexistent/prog: No such file or directory");
    assert_string_equal(e.e[1].text,
                        "cannot change to directory /nonexistent-dir: No such file or directory");
    assert_string_equal(e.e[2].text,
                        "cannot execute no-such-command-ips2: No such file or directory");
}

static void crash(void **state)
{
    (void)state;
    char *argv[] = {"sh", "-c", "kill -SEGV $$", NULL};
    struct slave_proc_spec spec = {.app = "c", .argv = argv};
    struct ends e = run(100, &spec, 1);
    assert_int_equal(e.e[0].how, IPS2_PROC_SIGNALED);
    assert_int_equal(e.e[0].code, SIGSEGV);
}

static void timeouts(void **state)
{
    (void)state;
    /* ends at SIGTERM; ignores SIGTERM (so does its sleep) and needs SIGKILL;
     * ends on its own before its timeout */
    char *argv1[] = {"sleep", "100", NULL};
    char *argv2[] = {"sh", "-c", "trap '' TERM; sleep 100; exit 0", NULL};
    char *argv3[] = {"true", NULL};
    struct slave_proc_spec specs[] = {
        {.app = "t", .index = 0, .argv = argv1, .timeout_ms = 100},
        {.app = "t", .index = 1, .argv = argv2, .timeout_ms = 100},
        {.app = "t", .index = 2, .argv = argv3, .timeout_ms = 100000},
    };
    struct ends e = run(200, specs, 3);
    assert_int_equal(e.n, 3);
    int seen = 0;
    for (int i = 0; i < 3; i++) {
        const struct slave_proc_end *x = &e.e[i];
        seen |= 1 << x->index;
        switch (x->index) {
        case 0:
            assert_int_equal(x->how, IPS2_PROC_TIMEOUT);
            assert_int_equal(x->code, SIGTERM);
            assert_string_equal(x->text, "timeout after 0.1 s");
            break;
        case 1:
            assert_int_equal(x->how, IPS2_PROC_TIMEOUT);
            assert_int_equal(x->code, SIGKILL);
            break;
        case 2:
            assert_int_equal(x->how, IPS2_PROC_EXITED);
            assert_int_equal(x->code, 0);
            break;
        }
    }
    assert_int_equal(seen, 7);
}

/* One step of the slave's loop. */
static int step(struct slave_runner *r, struct ends *ends)
{
    struct pollfd pfd = {slave_runner_fd(r), POLLIN, 0};
    poll(&pfd, 1, slave_runner_wait_ms(r));
    return slave_runner_step(r, on_end, ends);
}

static char notes[2][512];
static int nnotes;

static void on_note(void *arg, const char *text)
{
    (void)arg;
    if (nnotes < 2)
        snprintf(notes[nnotes], sizeof notes[0], "%s", text);
    nnotes++;
}

/* A runner for one process: sh -c SCRIPT FIFO (a new FIFO). */
static struct slave_runner *start_with_fifo(const char *script, char *fifo, size_t size,
                                            int64_t timeout_ms)
{
    static int serial;
    char err[256], trace[PATH_MAX], out[PATH_MAX];
    snprintf(fifo, size, "%s/fifo%d", dir, serial);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    snprintf(trace, sizeof trace, "%s/d%d/traces/alpha", dir, serial);
    snprintf(out, sizeof out, "%s/d%d/output/alpha", dir, serial++);
    struct slave_runner *r = slave_runner_new(trace, out, 200, err, sizeof err);
    assert_non_null(r);
    slave_runner_on_note(r, on_note, NULL);
    char *argv[] = {"sh", "-c", (char *)script, fifo, NULL};
    struct slave_proc_spec spec = {.app = "d", .index = 0, .argv = argv, .timeout_ms = timeout_ms};
    assert_true(slave_runner_start(r, &spec) > 0);
    return r;
}

static void descendants(void **state)
{
    (void)state;
    /* the process exits at once; the daemon it leaves (its own session,
     * re-parented to the runner) waits for a writer on the FIFO */
    char fifo[PATH_MAX];
    struct slave_runner *r =
        start_with_fifo("setsid cat \"$0\" >/dev/null & exit 3", fifo, sizeof fifo, 0);
    struct ends ends = {0};
    while (ends.n < 1)
        step(r, &ends);
    assert_int_equal(ends.e[0].how, IPS2_PROC_EXITED);
    assert_int_equal(ends.e[0].code, 3);
    assert_int_equal(slave_runner_descendants(r), 1);
    assert_int_equal(slave_runner_step(r, on_end, &ends), 1); /* still waited for */
    int fd = open(fifo, O_WRONLY); /* the daemon is there: it reads, ends */
    assert_true(fd >= 0);
    close(fd);
    while (step(r, &ends) > 0)
        continue;
    assert_int_equal(slave_runner_descendants(r), 0);
    assert_int_equal(ends.n, 1);
    slave_runner_free(r);
}

static void descendant_timeout(void **state)
{
    (void)state;
    /* the daemon never gets a writer: the run's timeout stops it */
    char fifo[PATH_MAX];
    nnotes = 0;
    struct slave_runner *r =
        start_with_fifo("setsid cat \"$0\" >/dev/null & exit 0", fifo, sizeof fifo, 300);
    struct ends ends = {0};
    while (step(r, &ends) > 0 || ends.n < 1)
        continue;
    assert_int_equal(ends.e[0].how, IPS2_PROC_EXITED);
    assert_int_equal(nnotes, 1);
    assert_non_null(strstr(notes[0], "(cat), left running by the workload's processes"));
    assert_non_null(strstr(notes[0], "stopped with SIGTERM"));
    slave_runner_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exit_status_and_output),
        cmocka_unit_test(environment_and_cwd),
        cmocka_unit_test(nothing_inherited),
        cmocka_unit_test(cannot_start),
        cmocka_unit_test(crash),
        cmocka_unit_test(timeouts),
        cmocka_unit_test(descendants),
        cmocka_unit_test(descendant_timeout),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
