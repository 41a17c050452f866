/* children.c - every way this program starts and reaps a child, each child
 * exiting with its own status.  Run without arguments it:
 *
 *   forks a child that exits 11, reaped by waitpid;
 *   forks a child that kills itself with SIGTERM, reaped by wait;
 *   forks children exiting 12, 13, 14, reaped by waitid, wait3 and wait4;
 *   vforks a child that execs "children child 15", reaped by waitpid;
 *   vforks a child that _exits 16 without exec, reaped by waitpid (both
 *   call child_work() first, which must not show in the parent's trace);
 *   posix_spawns "children child 17" and posix_spawnps "sh -c 'exit 18'";
 *   runs system("exec children child 19") and system("exit 20");
 *   popens "exec children child-print 21", reads its line, pcloses it;
 *   then waitpid(-1) fails with ECHILD: no child is left behind.
 *
 * It prints one line per child with the status it saw, never a pid, so
 * that a traced and an untraced run print the same.  "child N" calls
 * child_work() and exits N; "child-print N" prints a line first. */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

__attribute__((noipa)) int child_work(int x)
{
    return x * 3;
}

static void report(const char *what, int status)
{
    if (WIFEXITED(status))
        printf("%s: exited %d\n", what, WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        printf("%s: killed by signal %d\n", what, WTERMSIG(status));
    else
        printf("%s: status 0x%x\n", what, status);
    fflush(stdout);
}

static pid_t fork_exiting(int code)
{
    pid_t pid = fork();
    if (pid == 0) {
        child_work(code);
        exit(code);
    }
    return pid;
}

int main(int argc, char **argv)
{
    char self[4096];
    char cmd[4200];
    int status;

    if (argc == 3 && strcmp(argv[1], "child") == 0) {
        child_work(atoi(argv[2]));
        return atoi(argv[2]);
    }
    if (argc == 3 && strcmp(argv[1], "child-print") == 0) {
        printf("hello from child-print\n");
        return atoi(argv[2]);
    }
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return 99;
    self[n] = '\0';

    pid_t pid = fork_exiting(11);
    waitpid(pid, &status, 0);
    report("fork+waitpid", status);

    pid = fork();
    if (pid == 0) {
        child_work(0);
        raise(SIGTERM);
        _exit(98);
    }
    wait(&status);
    report("fork+wait", status);

    siginfo_t si;
    pid = fork_exiting(12);
    memset(&si, 0, sizeof(si));
    waitid(P_PID, (id_t)pid, &si, WEXITED);
    printf("fork+waitid: code %d status %d\n", si.si_code == CLD_EXITED, si.si_status);
    fflush(stdout);
    pid = fork_exiting(13);
    struct rusage ru;
    while (wait3(&status, 0, &ru) != pid)
        ;
    report("fork+wait3", status);
    pid = fork_exiting(14);
    wait4(pid, &status, 0, &ru);
    report("fork+wait4", status);

    pid = vfork();
    if (pid == 0) {
        child_work(15); /* in the parent's memory: must not reach its trace */
        execl(self, self, "child", "15", (char *)NULL);
        _exit(97);
    }
    waitpid(pid, &status, 0);
    report("vfork+exec", status);
    pid = vfork();
    if (pid == 0) {
        child_work(16);
        _exit(16);
    }
    waitpid(pid, &status, 0);
    report("vfork+_exit", status);

    char *spawn_argv[] = {self, "child", "17", NULL};
    if (posix_spawn(&pid, self, NULL, NULL, spawn_argv, environ) != 0)
        return 96;
    waitpid(pid, &status, 0);
    report("posix_spawn", status);
    char *sh_argv[] = {"sh", "-c", "exit 18", NULL};
    if (posix_spawnp(&pid, "sh", NULL, NULL, sh_argv, environ) != 0)
        return 95;
    waitpid(pid, &status, 0);
    report("posix_spawnp", status);

    snprintf(cmd, sizeof(cmd), "exec '%s' child 19", self);
    report("system", system(cmd));
    report("system sh", system("exit 20"));

    snprintf(cmd, sizeof(cmd), "exec '%s' child-print 21", self);
    FILE *p = popen(cmd, "r");
    char line[200] = "";
    if (p == NULL || fgets(line, sizeof(line), p) == NULL)
        return 94;
    printf("popen read: %s", line);
    report("pclose", pclose(p));

    errno = 0;
    pid_t r = waitpid(-1, &status, WNOHANG);
    printf("left behind: %s\n", r < 0 && errno == ECHILD ? "none" : "some");
    return 0;
}
