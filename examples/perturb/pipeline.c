/*
 * pipeline.c - (d) a message pipeline across two processes.
 *
 * The parent produces N items, each as CALLS calls of tiny() (produce),
 * and writes each to a pipe with the CPU time it took; the child reads
 * each and consumes it with the same work plus 20% without calls
 * (consume).  Untraced the consumer is the slower stage; traced (raw)
 * the producer, by far.  The child computes the critical path by CPU
 * time from both stages' times: item i is done at max(its consumer's
 * previous item, its producer's end) + its consumption ("ref cp"); the
 * parent reports produce's CPU ("ref work").
 *
 *   pipeline [N [CALLS]]
 */
#include <sys/wait.h>
#include <unistd.h>

#include "perturb.h"

uint64_t perturb_sink;

static long calls;

__attribute__((noinline)) static uint64_t produce(uint64_t x)
{
    for (long i = 0; i < calls; i++)
        x = tiny(x + (uint64_t)i);
    return x;
}

__attribute__((noinline)) static uint64_t consume(uint64_t x)
{
    return coarse(x, calls + calls / 5);
}

struct item {
    uint64_t value, cpu;
};

static int full_read(int fd, void *p, size_t n)
{
    char *b = p;
    while (n > 0) {
        ssize_t got = read(fd, b, n);
        if (got <= 0)
            return -1;
        b += got;
        n -= (size_t)got;
    }
    return 0;
}

int main(int argc, char **argv)
{
    long n = arg(argc, argv, 1, 40);
    int fds[2];

    calls = arg(argc, argv, 2, 30000);
    if (pipe(fds) != 0)
        return 1;
    pid_t child = fork();
    if (child < 0)
        return 1;
    if (child == 0) {
        close(fds[1]);
        uint64_t produced = 0, done = 0, x = 0;
        struct item it;
        for (long i = 0; i < n && full_read(fds[0], &it, sizeof(it)) == 0; i++) {
            produced += it.cpu;
            uint64_t c0 = cpu_ns();
            x = consume(x + it.value);
            uint64_t took = cpu_ns() - c0;
            done = (done > produced ? done : produced) + took;
        }
        ref("cp", done);
        return x == 42;
    }
    close(fds[0]);
    uint64_t work = 0, x = 1;
    for (long i = 0; i < n; i++) {
        uint64_t c0 = cpu_ns();
        x = produce(x);
        struct item it = {x, cpu_ns() - c0};
        work += it.cpu;
        if (write(fds[1], &it, sizeof(it)) != (ssize_t)sizeof(it))
            return 1;
    }
    close(fds[1]);
    int status;
    waitpid(child, &status, 0);
    ref("work", work);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
