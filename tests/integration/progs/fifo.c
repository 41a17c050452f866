/*
 * fifo.c - a FIFO between two processes (messages.test).
 *
 *   fifo PATH
 *
 * Makes the FIFO PATH and forks.  The child opens it for reading and reads
 * four bytes at a time to the end; the parent opens it for writing, writes
 * five messages of 1, 10, 100, 1000 and 10000 bytes and closes it.  Prints
 * "fifo wrote W read R", R being what the child counted (sent back through
 * a pipe).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io_all.h"

int main(int argc, char **argv)
{
    static char buf[10000];
    int back[2];
    long wrote = 0, got = 0;

    if (argc != 2 || mkfifo(argv[1], 0600) != 0 || pipe(back) != 0)
        die("mkfifo");
    pid_t pid = fork_child();
    if (pid == 0) {
        char small[4];
        ssize_t n;
        int fd = open(argv[1], O_RDONLY);
        if (fd < 0)
            die("open for reading");
        while ((n = read(fd, small, sizeof(small))) > 0)
            got += n;
        close(fd);
        if (write(back[1], &got, sizeof(got)) != sizeof(got))
            die("write back");
        return 0;
    }
    int fd = open(argv[1], O_WRONLY);
    if (fd < 0)
        die("open for writing");
    memset(buf, 'f', sizeof(buf));
    for (size_t n = 1; n <= sizeof(buf); n *= 10) {
        if (write(fd, buf, n) != (ssize_t)n)
            die("write");
        wrote += (long)n;
    }
    close(fd);
    if (read(back[0], &got, sizeof(got)) != sizeof(got))
        die("read back");
    printf("fifo wrote %ld read %ld\n", wrote, got);
    int status;
    return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
