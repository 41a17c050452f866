/*
 * file.c - opening and reading the files ips2 reads (ips2_file.h): open
 * without blocking, a regular file only, reads capped by its size.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ips2_error.h"
#include "ips2_file.h"

int ips2_file_open(const char *path, struct stat *st)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

    if (fd < 0)
        return -1;
    if (fstat(fd, st) != 0) {
        int saved_errno = errno;
        close(fd);
        errno = saved_errno;
        return -1;
    }
    if (!S_ISREG(st->st_mode)) {
        close(fd);
        return -2;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}

int ips2_file_open_stream(const char *path, struct stat *st)
{
    static const char raw[] = ".raw", packed[] = ".ips2";
    int fd = ips2_file_open(path, st);
    size_t n = strlen(path), s = sizeof raw - 1;
    if (fd != -1 || errno != ENOENT || n <= s || strcmp(path + n - s, raw) != 0)
        return fd;
    char *twin = malloc(n - s + sizeof packed);
    if (twin == NULL) {
        errno = ENOENT;
        return -1;
    }
    memcpy(twin, path, n - s);
    memcpy(twin + n - s, packed, sizeof packed);
    fd = ips2_file_open(twin, st);
    int saved_errno = errno;
    free(twin);
    if (fd == -1) /* neither: the raw stream's error stands */
        saved_errno = ENOENT;
    errno = saved_errno;
    return fd;
}

const char *ips2_file_kind(mode_t mode)
{
    return S_ISDIR(mode)    ? "a directory"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISSOCK(mode) ? "a socket"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISREG(mode)  ? "a regular file"
                            : "a special file";
}

char *ips2_file_read(const char *path, size_t *size, char *err)
{
    struct stat st;
    int fd = ips2_file_open(path, &st);

    if (fd == -2) {
        ips2_set_error(err, "%s: expected a regular file, found %s", path,
                       ips2_file_kind(st.st_mode));
        return NULL;
    }
    if (fd < 0) {
        ips2_set_error(err, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    size_t want = (size_t)st.st_size, got = 0;
    char *buf = (uint64_t)st.st_size < SIZE_MAX ? malloc(want + 1) : NULL;
    if (buf == NULL) {
        ips2_set_error(err, "%s: cannot read: out of memory for its %lld bytes", path,
                       (long long)st.st_size);
        close(fd);
        return NULL;
    }
    while (got < want) {
        ssize_t n = read(fd, buf + got, want - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            ips2_set_error(err, "%s: cannot read: %s", path, strerror(errno));
            free(buf);
            close(fd);
            return NULL;
        }
        if (n == 0)
            break; /* cut meanwhile: what is there */
        got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    *size = got;
    return buf;
}
