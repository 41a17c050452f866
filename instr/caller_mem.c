/*
 * caller_mem.c - reading and writing memory that the traced program handed
 * to a wrapper, without ever faulting on it.
 *
 * A wrapper may touch a caller's pointer directly only where the kernel has
 * already accepted it: after a call that succeeded, for what the call read
 * or wrote.  Everywhere else (before the call, after a failure, or where
 * the wrapper writes what the kernel would have written) it goes through
 * these functions, which let the kernel do the access on the process's
 * behalf (process_vm_readv/writev on the process itself): a bad pointer
 * gives an error here, as it gives EFAULT to the untraced program, never a
 * SIGSEGV.  They cost one system call, so the wrappers use them only off
 * their common paths.  errno is left as it was.
 *
 * Where the kernel refuses those calls (a seccomp filter: ENOSYS, EPERM),
 * the copies are plain reads and writes, as the wrappers made before: the
 * trace stays whole, and only a bad pointer faults as it used to.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "runtime.h"

static pid_t self_pid(void)
{
    return ips2_proc.pid > 0 ? ips2_proc.pid : getpid();
}

/* Whether the kernel copies for us here (process_vm_readv permitted),
 * found out once. */
static int kernel_copies(void)
{
    static _Atomic int known; /* 0: not yet, 1: yes, -1: refused */
    int k = atomic_load_explicit(&known, memory_order_relaxed);

    if (k == 0) {
        char probe = 1, copy = 0;
        struct iovec local = {&copy, 1}, remote = {&probe, 1};
        int saved_errno = errno;
        k = process_vm_readv(self_pid(), &local, 1, &remote, 1, 0) == 1 ? 1 : -1;
        errno = saved_errno;
        atomic_store_explicit(&known, k, memory_order_relaxed);
    }
    return k > 0;
}

/* Bytes moved between the caller's range and ours, or -1. */
static ssize_t move(void *ours, const void *callers, size_t n, int write)
{
    struct iovec local = {ours, n};
    struct iovec remote = {(void *)callers, n};
    int saved_errno = errno;
    ssize_t r;

    if (!kernel_copies()) {
        memcpy(write ? (void *)callers : ours, write ? ours : callers, n);
        return (ssize_t)n;
    }
    r = write ? process_vm_writev(self_pid(), &local, 1, &remote, 1, 0)
              : process_vm_readv(self_pid(), &local, 1, &remote, 1, 0);
    errno = saved_errno;
    return r;
}

int ips2_caller_read(void *to, const void *from, size_t n)
{
    if (n == 0)
        return 0;
    if (from == NULL)
        return -1;
    return move(to, from, n, 0) == (ssize_t)n ? 0 : -1;
}

int ips2_caller_write(void *to, const void *from, size_t n)
{
    if (n == 0)
        return 0;
    if (to == NULL)
        return -1;
    return move((void *)from, to, n, 1) == (ssize_t)n ? 0 : -1;
}

/* The kernel copies up to the first fault, so a string that ends before an
 * unreadable page reads whole. */
const char *ips2_caller_string(char *buf, size_t size, const char *s)
{
    buf[0] = '\0';
    if (s == NULL || size < 2)
        return buf;
    if (!kernel_copies()) { /* plain reads, never past the string's end */
        size_t n = strnlen(s, size - 1);
        memcpy(buf, s, n);
        buf[n] = '\0';
        return buf;
    }
    ssize_t got = move(buf, s, size - 1, 0);
    if (got <= 0)
        return buf;
    if (memchr(buf, '\0', (size_t)got) == NULL) {
        if ((size_t)got < size - 1) {
            buf[0] = '\0'; /* ends in an unreadable page: not a string */
            return buf;
        }
        buf[size - 1] = '\0'; /* longer than buf: cut */
    }
    return buf;
}
