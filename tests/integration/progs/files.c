/*
 * files.c - file I/O with known offsets and sizes (files.test).
 *
 *   files DIR
 *
 * DIR/a.dat: created; ten writes of 1..10 bytes (55); lseek to 0; reads
 * of 7 bytes to the end (eight with data, one at the end); a pwrite of 5
 * bytes at 100; a pread of them; fsync; fdatasync; lseek to the end
 * (105); a writev of 3 + 4 bytes there and a preadv of them; closed.
 * DIR/b.log: opened O_APPEND, three writes of 4 bytes, closed.
 * DIR/c.txt: written through stdio (fopen, fprintf, fclose).
 * An open of a missing file fails.  Then a pipe is read, its read end
 * closed where no wrapper sees it (the close system call made directly),
 * and a.dat opened again with fopen, which gets that number back: a read
 * of it is a read of the file, not of the pipe.  Prints "a SIZE b SIZE
 * reused 1".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static void die(const char *what)
{
    perror(what);
    exit(1);
}

int main(int argc, char **argv)
{
    char path[4096], buf[64] = "0123456789";
    struct stat st_a, st_b;

    if (argc != 2)
        die("usage: files DIR");
    snprintf(path, sizeof(path), "%s/a.dat", argv[1]);
    int a = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
    if (a < 0)
        die("open a");
    for (int n = 1; n <= 10; n++)
        if (write(a, buf, (size_t)n) != n)
            die("write a");
    if (lseek(a, 0, SEEK_SET) != 0)
        die("lseek");
    ssize_t r;
    while ((r = read(a, buf, 7)) > 0)
        ;
    if (r < 0 || pwrite(a, "abcde", 5, 100) != 5 || pread(a, buf, 5, 100) != 5)
        die("pwrite/pread");
    if (fsync(a) != 0 || fdatasync(a) != 0)
        die("sync");
    if (lseek(a, 0, SEEK_END) != 105)
        die("lseek end");
    struct iovec out[2] = {{"xyz", 3}, {"uvwt", 4}}, in[2] = {{buf, 3}, {buf + 3, 4}};
    if (writev(a, out, 2) != 7 || preadv(a, in, 2, 105) != 7)
        die("writev/preadv");
    if (fstat(a, &st_a) != 0 || close(a) != 0)
        die("close a");

    snprintf(path, sizeof(path), "%s/b.log", argv[1]);
    int b = open(path, O_CREAT | O_WRONLY | O_APPEND, 0644);
    if (b < 0)
        die("open b");
    for (int i = 0; i < 3; i++)
        if (write(b, "log\n", 4) != 4)
            die("write b");
    if (fstat(b, &st_b) != 0 || close(b) != 0)
        die("close b");

    snprintf(path, sizeof(path), "%s/c.txt", argv[1]);
    FILE *c = fopen(path, "w");
    if (c == NULL || fprintf(c, "through stdio\n") < 0 || fclose(c) != 0)
        die("stdio");

    snprintf(path, sizeof(path), "%s/missing/file", argv[1]);
    if (open(path, O_RDONLY) >= 0)
        die("open missing");
    int q[2];
    if (pipe(q) != 0 || write(q[1], "pi", 2) != 2 || read(q[0], buf, 2) != 2)
        die("pipe");
    syscall(SYS_close, q[0]);
    snprintf(path, sizeof(path), "%s/a.dat", argv[1]);
    FILE *again = fopen(path, "r");
    if (again == NULL || read(fileno(again), buf, 5) != 5)
        die("fopen again");
    printf("a %lld b %lld reused %d\n", (long long)st_a.st_size, (long long)st_b.st_size,
           fileno(again) == q[0]);
    return 0;
}
