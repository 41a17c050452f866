/* behave.c - output, exit status and errno must be the same traced and
 * untraced: instrumented calls between a failing call and the read of
 * errno, a signal handler, and a final status from argv. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t got;

__attribute__((noipa)) static int helper(int x)
{
    return x * 3;
}

static void on_usr1(int sig)
{
    got = sig + helper(0);
}

int main(int argc, char **argv)
{
    struct sigaction old;
    int fd = open("/nonexistent/ips2-behave", O_RDONLY);
    int h = helper(fd);
    printf("open=%d errno=%s helper=%d\n", fd, strerror(errno), h);

    sigaction(SIGTERM, NULL, &old);
    printf("SIGTERM handler is default: %d\n", old.sa_handler == SIG_DFL);
    signal(SIGUSR1, on_usr1);
    raise(SIGUSR1);
    printf("got=%d\n", (int)got);
    return argc > 1 ? atoi(argv[1]) : 0;
}
