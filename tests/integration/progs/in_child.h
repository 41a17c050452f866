/*
 * in_child.h - for the efault test programs: run one call in a forked
 * child of its own, so that a crash costs one line ("killed by SIGSEGV")
 * instead of the rest of the program.
 */
#ifndef IN_CHILD_H
#define IN_CHILD_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Waits for child; if a signal killed it, prints "<call> killed by SIG"
 * with call padded to width, as the program's own lines are. */
static void child_died(const char *call, int width, pid_t child)
{
    int status = 0;

    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFSIGNALED(status))
        printf("%-*s killed by %s\n", width, call, sigabbrev_np(WTERMSIG(status)));
}

/* Runs stmt in a child that then exits; see child_died(). */
#define IN_CHILD(name, width, stmt)                                                                \
    do {                                                                                           \
        pid_t child_ = fork();                                                                     \
        if (child_ == 0) {                                                                         \
            stmt;                                                                                  \
            _exit(0);                                                                              \
        }                                                                                          \
        child_died(name, width, child_);                                                           \
    } while (0)

#endif /* IN_CHILD_H */
