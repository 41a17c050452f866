/*
 * io_all.h - helpers for the test programs that move bytes through pipes
 * and sockets: a failed call ends the program with its reason, a fork
 * leaves no buffered output to print twice, and a write is repeated until
 * all of it is written.
 */
#ifndef IO_ALL_H
#define IO_ALL_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void die(const char *what)
{
    perror(what);
    exit(1);
}

/* fork() with stdout flushed first (a line buffered in the parent is not
 * printed twice); ends the program if it fails. */
static inline pid_t fork_child(void)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    return pid;
}

/* Writes the n bytes at s to fd, however many writes that takes. */
static inline void write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w <= 0)
            die("write");
        s += w;
        n -= (size_t)w;
    }
}

#endif /* IO_ALL_H */
