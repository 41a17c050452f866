/*
 * test_file.c - opening what ips2 reads (traces/ips2_file.h): a regular
 * file opens blocking and reads whole; a FIFO without a writer, a device
 * (a link to /dev/zero) and a directory are refused at once, named by
 * kind; a missing file keeps its errno.  A FIFO would hang a test that
 * failed, so each such open runs in a child under an alarm.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "scratch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

#include "ips2_file.h"
#include "ips2_reader.h" /* IPS2_ERR_MAX */

static int setup(void **state)
{
    (void)state;
    return scratch_make("file");
}

static void test_regular(void **state)
{
    char p[512], err[IPS2_ERR_MAX] = "";
    struct stat st;
    size_t size = 99;

    (void)state;
    FILE *f = fopen(scratch_path(p, "plain"), "w");
    assert_non_null(f);
    fputs("one\ntwo\n", f);
    fclose(f);
    int fd = ips2_file_open(p, &st);
    assert_true(fd >= 0);
    assert_int_equal(st.st_size, 8);
    assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0); /* blocking again */
    close(fd);
    char *text = ips2_file_read(p, &size, err);
    assert_non_null(text);
    assert_int_equal(size, 8);
    assert_string_equal(text, "one\ntwo\n");
    free(text);

    /* empty: an empty string */
    fclose(fopen(scratch_path(p, "empty"), "w"));
    text = ips2_file_read(p, &size, err);
    assert_non_null(text);
    assert_int_equal(size, 0);
    assert_string_equal(text, "");
    free(text);
}

/* ips2_file_read's error for path, in a child that an alarm kills if the
 * call blocks; "hung" then. */
static void read_error(const char *path, char *err)
{
    int fds[2];

    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char e[IPS2_ERR_MAX] = "";
        size_t size;
        alarm(10);
        char *text = ips2_file_read(path, &size, e);
        if (text != NULL)
            snprintf(e, sizeof e, "read %zu bytes", size);
        if (write(fds[1], e, strlen(e) + 1) < 0)
            _exit(2);
        _exit(0);
    }
    close(fds[1]);
    ssize_t n = read(fds[0], err, IPS2_ERR_MAX - 1);
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status))
        snprintf(err, IPS2_ERR_MAX, "hung");
    else
        err[n > 0 ? n : 0] = '\0';
}

static void expect_refused(const char *name, const char *kind)
{
    char p[512], err[IPS2_ERR_MAX], want[700];

    read_error(scratch_path(p, name), err);
    snprintf(want, sizeof want, "%s: expected a regular file, found %s", p, kind);
    assert_string_equal(err, want);
}

static void test_special(void **state)
{
    char p[512], q[512];
    struct stat st;

    (void)state;
    assert_int_equal(mkfifo(scratch_path(p, "fifo"), 0644), 0);
    expect_refused("fifo", "a FIFO");
    assert_int_equal(symlink("/dev/zero", scratch_path(p, "zero")), 0);
    expect_refused("zero", "a character device");
    assert_int_equal(mkdir(scratch_path(p, "dir"), 0755), 0);
    expect_refused("dir", "a directory");

    assert_int_equal(ips2_file_open(scratch_path(q, "dir"), &st), -2);
    assert_true(S_ISDIR(st.st_mode));
    errno = 0;
    assert_int_equal(ips2_file_open(scratch_path(q, "missing"), &st), -1);
    assert_int_equal(errno, ENOENT);
    char err[IPS2_ERR_MAX], want[700];
    read_error(q, err);
    snprintf(want, sizeof want, "%s: cannot open: No such file or directory", q);
    assert_string_equal(err, want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_regular, scratch_empty),
        cmocka_unit_test_teardown(test_special, scratch_empty),
    };
    return cmocka_run_group_tests(tests, setup, scratch_remove);
}
