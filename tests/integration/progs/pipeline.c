/*
 * pipeline.c - a pipeline of processes joined by pipes (messages.test).
 *
 *   pipeline
 *
 * The parent writes a text into pipe 1 in pieces of varied sizes; halfway,
 * a forked helper writes the middle part into the same pipe through the
 * descriptor it inherited (the parent waits for it), then the parent writes
 * the rest and closes.  Stage 1, a child, reads pipe 1 five bytes at a
 * time, upper-cases and writes each piece into pipe 2.  Stage 2, another
 * child, reads the first 10 bytes of pipe 2 three at a time, then execs
 * this program again ("stage2 FD-IN FD-OUT"), which reads the rest four
 * bytes at a time and writes "count N" into pipe 3; the parent reads that
 * and prints "text T count N" (T: bytes it and the helper wrote).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io_all.h"

static const char *const pieces[] = {
    "The quick brown fox ",         "jumps over ",     "the lazy dog. ",
    "Pack my box with five dozen ", "liquor jugs. ",   "How vexingly quick daft zebras jump! ",
    "Sphinx of black quartz, ",     "judge my vow.\n",
};
#define NPIECES (sizeof(pieces) / sizeof(pieces[0]))

static void stage1(int in, int out)
{
    char buf[5];
    ssize_t n;

    while ((n = read(in, buf, sizeof(buf))) > 0) {
        for (ssize_t i = 0; i < n; i++)
            buf[i] = (char)toupper((unsigned char)buf[i]);
        write_all(out, buf, (size_t)n);
    }
    if (n < 0)
        die("stage1 read");
    exit(0);
}

/* The part of stage 2 after exec: counts the rest of pipe 2. */
static int stage2_rest(int in, int out, long before)
{
    char buf[4], line[64];
    ssize_t n;
    long count = before;

    while ((n = read(in, buf, sizeof(buf))) > 0)
        count += n;
    if (n < 0)
        die("stage2 read");
    int len = snprintf(line, sizeof(line), "count %ld", count);
    write_all(out, line, (size_t)len);
    return 0;
}

static void stage2(const char *self, int in, int out)
{
    char buf[3], a[24], b[24], c[24];
    long count = 0;

    while (count < 10) {
        ssize_t n = read(in, buf, sizeof(buf) < (size_t)(10 - count) ? sizeof(buf) : 10 - count);
        if (n <= 0)
            die("stage2 first read");
        count += n;
    }
    snprintf(a, sizeof(a), "%d", in);
    snprintf(b, sizeof(b), "%d", out);
    snprintf(c, sizeof(c), "%ld", count);
    execl(self, self, "stage2", a, b, c, (char *)NULL);
    die("execl");
}

int main(int argc, char **argv)
{
    int p1[2], p2[2], p3[2];
    size_t total = 0;

    if (argc == 5 && strcmp(argv[1], "stage2") == 0)
        return stage2_rest(atoi(argv[2]), atoi(argv[3]), atol(argv[4]));
    if (pipe(p1) != 0 || pipe(p2) != 0 || pipe(p3) != 0)
        die("pipe");
    fflush(stdout);
    pid_t s1 = fork();
    if (s1 == 0) {
        close(p1[1]);
        close(p2[0]);
        close(p3[0]);
        close(p3[1]);
        stage1(p1[0], p2[1]);
    }
    pid_t s2 = fork();
    if (s2 == 0) {
        close(p1[0]);
        close(p1[1]);
        close(p2[1]);
        close(p3[0]);
        stage2(argv[0], p2[0], p3[1]);
    }
    close(p1[0]);
    close(p2[0]);
    close(p2[1]);
    close(p3[1]);
    for (size_t i = 0; i < NPIECES; i++) {
        size_t n = strlen(pieces[i]);
        if (i == NPIECES / 2) {
            pid_t helper = fork(); /* writes through the inherited descriptor */
            if (helper == 0) {
                write_all(p1[1], pieces[i], n);
                _exit(0);
            }
            int status;
            if (waitpid(helper, &status, 0) != helper)
                die("waitpid");
        } else {
            write_all(p1[1], pieces[i], n);
        }
        total += n;
    }
    close(p1[1]);
    char line[64];
    ssize_t n = read(p3[0], line, sizeof(line) - 1);
    if (n <= 0)
        die("read result");
    line[n] = '\0';
    printf("text %zu %s\n", total, line);
    int status, failed = 0;
    while (wait(&status) > 0)
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            failed = 1;
    return failed;
}
