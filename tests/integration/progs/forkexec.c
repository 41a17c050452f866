/* forkexec.c - the parent forks; the child calls child_work() 5 times and
 * execs this program again with "second", which calls second_work() 3 times
 * and exits 4.  The parent reports the child's status. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noipa)) int child_work(int x)
{
    return x * 2;
}

__attribute__((noipa)) int second_work(int x)
{
    return x + 3;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "second") == 0) {
        int s = 0;
        for (int i = 0; i < 3; i++)
            s += second_work(i);
        printf("second image: %d\n", s);
        return 4;
    }
    pid_t pid = fork();
    if (pid == 0) {
        int s = 0;
        for (int i = 0; i < 5; i++)
            s += child_work(i);
        printf("child: %d\n", s);
        fflush(stdout);
        execl("/proc/self/exe", argv[0], "second", (char *)NULL);
        return 99;
    }
    int status;
    waitpid(pid, &status, 0);
    printf("parent: child %d exited %d\n", (int)pid, WEXITSTATUS(status));
    return 0;
}
