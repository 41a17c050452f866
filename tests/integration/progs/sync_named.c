/*
 * sync_named.c - a named semaphore shared by two processes that open it
 * separately.
 *
 *   sync_named NAME [posts]     (default 100 posts)
 *
 * The parent creates NAME (O_CREAT | O_EXCL, value 0) and forks; the child
 * opens it again by name and posts `posts` times; the parent waits as
 * often, then unlinks it.  Prints "waits <n>".
 */
#include <fcntl.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *name = argv[1];
    int posts = argc > 2 ? atoi(argv[2]) : 100;
    sem_t *s = sem_open(name, O_CREAT | O_EXCL, 0600, 0);

    if (s == SEM_FAILED) {
        perror("sem_open");
        return 1;
    }
    pid_t child = fork();
    if (child == 0) {
        sem_t *c = sem_open(name, 0);
        if (c == SEM_FAILED)
            _exit(1);
        for (int i = 0; i < posts; i++) {
            volatile unsigned x = 1;
            for (int k = 0; k < 3000; k++)
                x = x * 1103515245u + 12345u;
            sem_post(c);
        }
        sem_close(c);
        _exit(0);
    }
    int waits = 0;
    for (int i = 0; i < posts; i++)
        if (sem_wait(s) == 0)
            waits++;
    int status;
    waitpid(child, &status, 0);
    sem_close(s);
    sem_unlink(name);
    printf("waits %d\n", waits);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
