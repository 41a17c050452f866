/* untouched.c - things a traced program must see exactly as untraced:
 * its first descriptor after a daemon-style close loop is 3 and its files
 * keep only what it wrote; errno survives fork in the child; sigaction
 * reports the handler that sigset() installed; a main thread that calls
 * pthread_exit() lets the process end when its last thread does. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char path[4096];

__attribute__((noipa)) static int work(int x)
{
    return x * 3 + 1;
}

static void handler(int sig)
{
    (void)sig;
}

static void *last_thread(void *arg)
{
    char buf[64] = {0};
    int fd = open(path, O_RDONLY);
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    printf("file holds %zd bytes: %s", n, buf);
    close(fd);
    return arg;
}

int main(int argc, char **argv)
{
    snprintf(path, sizeof(path), "%s", argc > 1 ? argv[1] : "untouched.txt");
    for (int fd = 3; fd < 64; fd++)
        close(fd);
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    printf("first descriptor %d\n", fd);
    int sum = 0;
    for (int i = 0; i < 200000; i++)
        sum += work(i);
    dprintf(fd, "sum %d\n", sum);
    close(fd);

    errno = 1234;
    pid_t child = fork();
    if (child == 0) {
        int seen = errno;
        char line[64];
        int len = snprintf(line, sizeof(line), "child errno %d\n", seen);
        write(1, line, (size_t)len);
        _exit(0);
    }
    waitpid(child, NULL, 0);

    struct sigaction old;
    sigset(SIGUSR1, handler);
    sigaction(SIGUSR1, NULL, &old);
    printf("sigaction sees sigset's handler: %d\n", old.sa_handler == handler);
    fflush(stdout);

    pthread_t t;
    pthread_create(&t, NULL, last_thread, NULL);
    pthread_exit(NULL);
}
