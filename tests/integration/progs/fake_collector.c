/*
 * fake_collector.c - collectors that misbehave, for collectors.test: the
 * slave must still finish its run, name them as problems and leave no
 * process behind.  Built with plain cc (not traced) as fake-HOW, and run
 * by the slave through a symbolic link ips2-collect-os|hw -> fake-HOW in a
 * directory of IPS2_COLLECTOR_PATH; HOW, the end of the name of its own
 * executable, says how it misbehaves:
 *
 *   deaf   fills its own stdin pipe (a second writer through /proc) and
 *          never reads it: the slave's next line would block;
 *   mute   reads its stdin (copied to lines.mute beside itself) but never
 *          answers "end PID"; ends at its end;
 *   noout  closes its stdout and ignores its stdin: never ends by itself.
 *
 * Each says "ready" first and appends its pid and that of a child it forks
 * (in its process group, as a collector's helpers would be) to pids.HOW
 * beside itself, so that the test can check that none outlives the run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Forks a child that waits for a signal; records both pids. */
static void helper(const char *self, const char *kind)
{
    pid_t child = fork();
    if (child == 0) {
        for (;;)
            pause();
    }
    char path[4096];
    const char *slash = strrchr(self, '/');
    snprintf(path, sizeof path, "%.*s/pids.%s", slash ? (int)(slash - self) : 1, slash ? self : ".",
             kind);
    FILE *f = fopen(path, "a");
    if (f != NULL) {
        fprintf(f, "%d %d\n", (int)getpid(), (int)child);
        fclose(f);
    }
}

int main(void)
{
    char self[4000];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    self[len > 0 ? len : 0] = '\0';
    const char *dash = strrchr(self, '-');
    const char *kind = dash ? dash + 1 : "";
    if (strcmp(kind, "deaf") == 0) {
        int fd = open("/proc/self/fd/0", O_WRONLY | O_NONBLOCK);
        char block[4096] = {0};
        ssize_t n = 1;
        while (fd >= 0 && n > 0)
            n = write(fd, block, sizeof block);
        if (fd < 0 || errno != EAGAIN) {
            perror("fake collector deaf: cannot fill its stdin");
            return 1;
        }
    }
    printf("ready\n");
    fflush(stdout);
    if (strcmp(kind, "noout") == 0)
        close(1); /* before the helper, which would hold it open */
    helper(self, kind);
    if (strcmp(kind, "mute") == 0) {
        /* what the slave asks, for the test: lines.mute beside itself */
        char path[4096], buf[256];
        const char *slash = strrchr(self, '/');
        snprintf(path, sizeof path, "%.*s/lines.mute", slash ? (int)(slash - self) : 1,
                 slash ? self : ".");
        int log = open(path, O_WRONLY | O_CREAT | O_APPEND, 0666);
        ssize_t n;
        while ((n = read(0, buf, sizeof buf)) > 0)
            if (log >= 0 && write(log, buf, (size_t)n) != n)
                break;
        return 0;
    }
    for (;;)
        pause();
}
