/*
 * io_wrap.c - wrappers of the descriptor calls that are not socket-specific:
 * open/creat, close, read/write and their vector and positioned forms,
 * lseek, fsync/fdatasync, pipe, dup*, fcntl(F_DUPFD), close_range,
 * closefrom and fclose.
 *
 * A read or write becomes RECV/SEND on a byte stream, DGRAM_RECV/SEND on
 * a datagram socket, FILE_READ/WRITE otherwise (io_events.c).  read() on
 * an unconnected datagram socket is done as recvfrom() with an address
 * buffer of ours, which is the same call to the kernel, so that the
 * datagram's source is known.  dup* and close keep the descriptor table
 * (fds.c) right; fclose forgets the descriptor that stdio closes inside
 * libc, where no wrapper sees it.
 *
 * Buffered stdio (printf, fwrite, fread, ...) writes and reads inside
 * glibc through internal calls that do not reach these wrappers: it shows
 * up only where the program itself calls read/write on the descriptor.
 *
 * The fortified variants (__read_chk, __open_2, ...) check their
 * arguments as glibc would and then take the same path as the plain call.
 *
 * A caller's pointer is read directly only once the kernel has accepted
 * it: a path after the open succeeded; an iovec array before the call, or
 * a path after a failure, through caller_mem.c, so that a bad one gives
 * EFAULT as untraced.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fds.h"

/* glibc's fortified entry points, declared here because the headers
 * declare them only under _FORTIFY_SOURCE. */
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t n, off_t offset, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t n, off_t offset, size_t buflen);
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

/* ---- open / close ------------------------------------------------------ */

static int wants_mode(int flags)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

/* OPEN with the result of an open-like call begun at start. */
static void record_open(int fd, int err, int flags, uint64_t start, const char *path)
{
    uint64_t pre[4];
    char copy[8 * IPS2_RAW_MAX_EXTRA];

    if (fd >= 0)
        ips2_fd_set_file(fd, flags);
    struct ips2_fd *e = fd >= 0 ? ips2_fd_slot(fd) : NULL;
    pre[0] = fd < 0 ? (uint64_t)err : 0;
    pre[1] = (uint64_t)(unsigned)flags;
    pre[2] = start;
    pre[3] = e ? atomic_load_explicit(&e->type, memory_order_relaxed) : IPS2_CHAN_UNKNOWN;
    if (fd < 0) /* the path may be bad, or longer than the kernel read */
        path = ips2_caller_string(copy, sizeof(copy), path);
    ips2_emit_string(&ips2_self, IPS2_EV_OPEN, (uint64_t)(int64_t)fd, pre, 4, path ? path : "");
    if (e != NULL)
        ips2_fd_announce(fd, e);
}

#define OPEN_WRAPPER(call)                                                                         \
    do {                                                                                           \
        if (ips2_passthrough())                                                                    \
            return call;                                                                           \
        uint64_t start = ips2_io_start();                                                          \
        int fd = call;                                                                             \
        int err = errno;                                                                           \
        record_open(fd, err, flags, start, path);                                                  \
        errno = err;                                                                               \
        return fd;                                                                                 \
    } while (0)

#define GET_MODE(flags, mode)                                                                      \
    do {                                                                                           \
        if (wants_mode(flags)) {                                                                   \
            va_list ap;                                                                            \
            va_start(ap, flags);                                                                   \
            mode = va_arg(ap, mode_t);                                                             \
            va_end(ap);                                                                            \
        }                                                                                          \
    } while (0)

IPS2_EXPORT int open(const char *path, int flags, ...)
{
    mode_t mode = 0;
    GET_MODE(flags, mode);
    OPEN_WRAPPER(IPS2_REAL(open)(path, flags, mode));
}

IPS2_EXPORT int open64(const char *path, int flags, ...)
{
    mode_t mode = 0;
    GET_MODE(flags, mode);
    OPEN_WRAPPER(IPS2_REAL(open64)(path, flags, mode));
}

IPS2_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
    mode_t mode = 0;
    GET_MODE(flags, mode);
    OPEN_WRAPPER(IPS2_REAL(openat)(dirfd, path, flags, mode));
}

IPS2_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
    mode_t mode = 0;
    GET_MODE(flags, mode);
    OPEN_WRAPPER(IPS2_REAL(openat64)(dirfd, path, flags, mode));
}

IPS2_EXPORT int creat(const char *path, mode_t mode)
{
    int flags = O_CREAT | O_WRONLY | O_TRUNC;
    OPEN_WRAPPER(IPS2_REAL(creat)(path, mode));
}

IPS2_EXPORT int creat64(const char *path, mode_t mode)
{
    int flags = O_CREAT | O_WRONLY | O_TRUNC;
    OPEN_WRAPPER(IPS2_REAL(creat64)(path, mode));
}

IPS2_EXPORT int __open_2(const char *path, int flags)
{
    OPEN_WRAPPER(IPS2_REAL(__open_2)(path, flags));
}

IPS2_EXPORT int __open64_2(const char *path, int flags)
{
    OPEN_WRAPPER(IPS2_REAL(__open64_2)(path, flags));
}

IPS2_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
    OPEN_WRAPPER(IPS2_REAL(__openat_2)(dirfd, path, flags));
}

IPS2_EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
    OPEN_WRAPPER(IPS2_REAL(__openat64_2)(dirfd, path, flags));
}

IPS2_EXPORT int close(int fd)
{
    if (ips2_passthrough())
        return IPS2_REAL(close)(fd);
    struct ips2_fd *e = ips2_fd_lookup(fd);
    uint64_t x[4];
    x[2] = e ? atomic_load_explicit(&e->type, memory_order_relaxed) : IPS2_CHAN_UNKNOWN;
    x[3] = e && (ips2_fd_is_stream(e) || ips2_fd_is_dgram(e)) ? e->out_key : 0;
    ips2_fd_forget(fd); /* before: once closed, the number may be reused at once */
    uint64_t start = ips2_io_start();
    int rc = IPS2_REAL(close)(fd);
    int err = errno;
    x[0] = rc < 0 ? (uint64_t)err : 0;
    x[1] = start;
    ips2_emit(IPS2_EV_CLOSE, (uint64_t)fd, x, 4, ips2_io_flags(start));
    errno = err;
    return rc;
}

IPS2_EXPORT int fclose(FILE *stream)
{
    if (!ips2_passthrough() && stream != NULL)
        ips2_fd_forget(fileno(stream));
    return IPS2_REAL(fclose)(stream);
}

IPS2_EXPORT int close_range(unsigned first, unsigned last, int flags)
{
    int rc = IPS2_REAL(close_range)(first, last, flags);

    if (rc == 0 && !(flags & CLOSE_RANGE_CLOEXEC))
        ips2_fd_forget_range(first, last);
    return rc;
}

IPS2_EXPORT void closefrom(int lowfd)
{
    if (lowfd >= 0)
        ips2_fd_forget_range((unsigned)lowfd, ~0u);
    IPS2_REAL(closefrom)(lowfd);
}

/* ---- read / write ------------------------------------------------------ */

static int unconnected_dgram(const struct ips2_fd *e)
{
    return ips2_fd_is_dgram(e) && !(e->flags & FD_CONNECTED);
}

static ssize_t traced_read(int fd, void *buf, size_t n)
{
    struct ips2_fd *e = ips2_fd_lookup(fd);
    if (e == NULL)
        return IPS2_REAL(read)(fd, buf, n);
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    /* read(2) of 0 bytes returns at once on a socket; recvfrom would take a datagram */
    int from = n > 0 && unconnected_dgram(e);
    uint64_t start = ips2_io_start();
    ssize_t r = from ? IPS2_REAL(recvfrom)(fd, buf, n, 0, (struct sockaddr *)&ss, &len)
                     : IPS2_REAL(read)(fd, buf, n);
    int err = errno;
    ips2_io_transfer(fd, e, IPS2_DIR_IN, r, err, start, IPS2_IO_READ,
                     from && r >= 0 ? (struct sockaddr *)&ss : NULL, len, 0);
    errno = err;
    return r;
}

IPS2_EXPORT ssize_t read(int fd, void *buf, size_t n)
{
    if (ips2_passthrough())
        return IPS2_REAL(read)(fd, buf, n);
    return traced_read(fd, buf, n);
}

IPS2_EXPORT ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
    if (ips2_passthrough() || n > buflen)
        return IPS2_REAL(__read_chk)(fd, buf, n, buflen);
    return traced_read(fd, buf, n);
}

IPS2_EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
    if (ips2_passthrough())
        return IPS2_REAL(write)(fd, buf, n);
    struct ips2_fd *e = ips2_fd_lookup(fd);
    if (e == NULL)
        return IPS2_REAL(write)(fd, buf, n);
    struct ips2_begun b;
    uint64_t start = ips2_io_send_begin(fd, e, n, IPS2_IO_WRITE, &b);
    ssize_t r = IPS2_REAL(write)(fd, buf, n);
    int err = errno;
    ips2_io_sent(fd, e, r, err, start, IPS2_IO_WRITE, NULL, 0, 0, &b);
    errno = err;
    return r;
}

/* The bytes an iovec array asks for, read through copies; -1 if the array
 * cannot be read (the call will say EFAULT or EINVAL). */
static ssize_t iov_bytes(const struct iovec *iov, int n)
{
    struct iovec chunk[64];
    size_t total = 0;

    if (n < 0 || n > IOV_MAX)
        return -1;
    for (int i = 0; i < n; i += 64) {
        int k = n - i < 64 ? n - i : 64;
        if (ips2_caller_read(chunk, iov + i, (size_t)k * sizeof(*iov)) != 0)
            return -1;
        for (int j = 0; j < k; j++)
            total += chunk[j].iov_len;
    }
    return total > SSIZE_MAX ? -1 : (ssize_t)total;
}

IPS2_EXPORT ssize_t readv(int fd, const struct iovec *iov, int n)
{
    if (ips2_passthrough())
        return IPS2_REAL(readv)(fd, iov, n);
    struct ips2_fd *e = ips2_fd_lookup(fd);
    if (e == NULL)
        return IPS2_REAL(readv)(fd, iov, n);
    struct sockaddr_storage ss;
    struct msghdr m = {.msg_name = &ss, .msg_namelen = sizeof(ss)};
    int from = n > 0 && unconnected_dgram(e) && iov_bytes(iov, n) > 0;
    uint64_t start = ips2_io_start();
    ssize_t r;
    if (from) {
        m.msg_iov = (struct iovec *)iov;
        m.msg_iovlen = (size_t)n;
        r = IPS2_REAL(recvmsg)(fd, &m, 0);
    } else {
        r = IPS2_REAL(readv)(fd, iov, n);
    }
    int err = errno;
    ips2_io_transfer(fd, e, IPS2_DIR_IN, r, err, start, IPS2_IO_READV,
                     from && r >= 0 ? (struct sockaddr *)&ss : NULL, m.msg_namelen, 0);
    errno = err;
    return r;
}

IPS2_EXPORT ssize_t writev(int fd, const struct iovec *iov, int n)
{
    if (ips2_passthrough())
        return IPS2_REAL(writev)(fd, iov, n);
    struct ips2_fd *e = ips2_fd_lookup(fd);
    if (e == NULL)
        return IPS2_REAL(writev)(fd, iov, n);
    struct ips2_begun b;
    uint64_t start = ips2_io_send_begin(fd, e, 0, IPS2_IO_WRITEV, &b);
    ssize_t r = IPS2_REAL(writev)(fd, iov, n);
    int err = errno;
    ips2_io_sent(fd, e, r, err, start, IPS2_IO_WRITEV, NULL, 0, 0, &b);
    errno = err;
    return r;
}

/* ---- positioned I/O: always file events, at the offset given ----------- */

#define POSITIONED(dir, callid, offset, call)                                                      \
    do {                                                                                           \
        if (ips2_passthrough())                                                                    \
            return call;                                                                           \
        struct ips2_fd *e = ips2_fd_lookup(fd);                                                    \
        uint64_t start = ips2_io_start();                                                          \
        ssize_t r = call;                                                                          \
        int err = errno;                                                                           \
        ips2_io_file(fd, e, dir, (uint64_t)(offset), r, err, start, callid);                       \
        errno = err;                                                                               \
        return r;                                                                                  \
    } while (0)

IPS2_EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t offset)
{
    POSITIONED(IPS2_DIR_IN, IPS2_IO_PREAD, offset, IPS2_REAL(pread)(fd, buf, n, offset));
}

IPS2_EXPORT ssize_t pread64(int fd, void *buf, size_t n, off_t offset)
{
    POSITIONED(IPS2_DIR_IN, IPS2_IO_PREAD, offset, IPS2_REAL(pread64)(fd, buf, n, offset));
}

IPS2_EXPORT ssize_t __pread_chk(int fd, void *buf, size_t n, off_t offset, size_t buflen)
{
    if (n > buflen)
        return IPS2_REAL(__pread_chk)(fd, buf, n, offset, buflen);
    POSITIONED(IPS2_DIR_IN, IPS2_IO_PREAD, offset, IPS2_REAL(pread)(fd, buf, n, offset));
}

IPS2_EXPORT ssize_t __pread64_chk(int fd, void *buf, size_t n, off_t offset, size_t buflen)
{
    if (n > buflen)
        return IPS2_REAL(__pread64_chk)(fd, buf, n, offset, buflen);
    POSITIONED(IPS2_DIR_IN, IPS2_IO_PREAD, offset, IPS2_REAL(pread)(fd, buf, n, offset));
}

IPS2_EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t offset)
{
    POSITIONED(IPS2_DIR_OUT, IPS2_IO_PWRITE, offset, IPS2_REAL(pwrite)(fd, buf, n, offset));
}

IPS2_EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off_t offset)
{
    POSITIONED(IPS2_DIR_OUT, IPS2_IO_PWRITE, offset, IPS2_REAL(pwrite64)(fd, buf, n, offset));
}

IPS2_EXPORT ssize_t preadv(int fd, const struct iovec *iov, int n, off_t offset)
{
    POSITIONED(IPS2_DIR_IN, IPS2_IO_PREADV, offset, IPS2_REAL(preadv)(fd, iov, n, offset));
}

IPS2_EXPORT ssize_t preadv64(int fd, const struct iovec *iov, int n, off_t offset)
{
    POSITIONED(IPS2_DIR_IN, IPS2_IO_PREADV, offset, IPS2_REAL(preadv64)(fd, iov, n, offset));
}

IPS2_EXPORT ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t offset)
{
    POSITIONED(IPS2_DIR_OUT, IPS2_IO_PWRITEV, offset, IPS2_REAL(pwritev)(fd, iov, n, offset));
}

IPS2_EXPORT ssize_t pwritev64(int fd, const struct iovec *iov, int n, off_t offset)
{
    POSITIONED(IPS2_DIR_OUT, IPS2_IO_PWRITEV, offset, IPS2_REAL(pwritev64)(fd, iov, n, offset));
}

/* ---- seek and sync ----------------------------------------------------- */

static off_t traced_lseek(int fd, off_t offset, int whence, off_t (*real)(int, off_t, int))
{
    struct ips2_fd *e = ips2_fd_lookup(fd);
    uint64_t x[5];
    uint64_t start = ips2_io_start();
    off_t r = real(fd, offset, whence);
    int err = errno;

    if (e != NULL && r >= 0 &&
        atomic_load_explicit(&e->type, memory_order_relaxed) == IPS2_CHAN_FILE) {
        e->pos = (uint64_t)r;
        e->flags |= FD_POS_KNOWN;
    }
    x[0] = (uint64_t)offset;
    x[1] = (uint64_t)whence;
    x[2] = r >= 0 ? (uint64_t)r : UINT64_MAX;
    x[3] = r < 0 ? (uint64_t)err : 0;
    x[4] = start;
    ips2_emit(IPS2_EV_FILE_SEEK, (uint64_t)fd, x, 5, ips2_io_flags(start));
    errno = err;
    return r;
}

IPS2_EXPORT off_t lseek(int fd, off_t offset, int whence)
{
    if (ips2_passthrough())
        return IPS2_REAL(lseek)(fd, offset, whence);
    return traced_lseek(fd, offset, whence, IPS2_REAL(lseek));
}

IPS2_EXPORT off_t lseek64(int fd, off_t offset, int whence)
{
    if (ips2_passthrough())
        return IPS2_REAL(lseek64)(fd, offset, whence);
    return traced_lseek(fd, offset, whence, IPS2_REAL(lseek64));
}

static int traced_sync(int fd, unsigned call, int (*real)(int))
{
    uint64_t x[3];
    ips2_fd_lookup(fd);
    uint64_t start = ips2_io_start();
    int rc = real(fd);
    int err = errno;

    x[0] = call;
    x[1] = rc < 0 ? (uint64_t)err : 0;
    x[2] = start;
    ips2_emit(IPS2_EV_FILE_SYNC, (uint64_t)fd, x, 3, IPS2_CPU_READ);
    errno = err;
    return rc;
}

IPS2_EXPORT int fsync(int fd)
{
    if (ips2_passthrough())
        return IPS2_REAL(fsync)(fd);
    return traced_sync(fd, IPS2_IO_FSYNC, IPS2_REAL(fsync));
}

IPS2_EXPORT int fdatasync(int fd)
{
    if (ips2_passthrough())
        return IPS2_REAL(fdatasync)(fd);
    return traced_sync(fd, IPS2_IO_FDATASYNC, IPS2_REAL(fdatasync));
}

/* ---- descriptors made from others -------------------------------------- */

IPS2_EXPORT int pipe(int fds[2])
{
    int rc = IPS2_REAL(pipe)(fds);

    if (rc == 0 && !ips2_passthrough()) {
        ips2_fd_set_pipe(fds[0], IPS2_CHAN_PIPE, O_RDONLY);
        ips2_fd_set_pipe(fds[1], IPS2_CHAN_PIPE, O_WRONLY);
    }
    return rc;
}

IPS2_EXPORT int pipe2(int fds[2], int flags)
{
    int rc = IPS2_REAL(pipe2)(fds, flags);

    if (rc == 0 && !ips2_passthrough()) {
        ips2_fd_set_pipe(fds[0], IPS2_CHAN_PIPE, O_RDONLY);
        ips2_fd_set_pipe(fds[1], IPS2_CHAN_PIPE, O_WRONLY);
    }
    return rc;
}

IPS2_EXPORT int dup(int fd)
{
    int rc = IPS2_REAL(dup)(fd);

    if (rc >= 0 && !ips2_passthrough())
        ips2_fd_copy(rc, fd);
    return rc;
}

IPS2_EXPORT int dup2(int fd, int to)
{
    int rc = IPS2_REAL(dup2)(fd, to);

    if (rc >= 0 && fd != to && !ips2_passthrough())
        ips2_fd_copy(rc, fd);
    return rc;
}

IPS2_EXPORT int dup3(int fd, int to, int flags)
{
    int rc = IPS2_REAL(dup3)(fd, to, flags);

    if (rc >= 0 && !ips2_passthrough())
        ips2_fd_copy(rc, fd);
    return rc;
}

/* fcntl's third argument is an int, a long or a pointer, all passed alike
 * on the ABIs glibc supports for interposition: pass one word on. */
static int traced_fcntl(int fd, int cmd, void *arg, int (*real)(int, int, ...))
{
    int rc = real(fd, cmd, arg);

    if (rc >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && !ips2_passthrough()) {
        int saved_errno = errno;
        ips2_fd_copy(rc, fd);
        errno = saved_errno;
    }
    return rc;
}

IPS2_EXPORT int fcntl(int fd, int cmd, ...)
{
    va_list ap;
    va_start(ap, cmd);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    return traced_fcntl(fd, cmd, arg, IPS2_REAL(fcntl));
}

IPS2_EXPORT int fcntl64(int fd, int cmd, ...)
{
    va_list ap;
    va_start(ap, cmd);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    return traced_fcntl(fd, cmd, arg, IPS2_REAL(fcntl64));
}
