/*
 * fd_makers.c - calls that make descriptors which carry no messages of
 * their own: stdio streams (fopen, freopen), eventfd, epoll, timerfd,
 * signalfd, memfd and inotify.
 *
 * They record nothing.  Their wrappers only make the descriptor table
 * (fds.c) forget what it knew about the number they return: a number
 * whose earlier descriptor was closed where no wrapper saw it (inside
 * libc: pclose, closedir, ...) would otherwise still be described as that
 * earlier pipe or socket.  The new descriptor is identified afresh at its
 * first traced use.
 */
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>

#include "fds.h"

static int fresh(int fd)
{
    if (fd >= 0 && !ips2_passthrough())
        ips2_fd_forget(fd);
    return fd;
}

static FILE *fresh_stream(FILE *f)
{
    if (f != NULL && !ips2_passthrough())
        ips2_fd_forget(fileno(f));
    return f;
}

IPS2_EXPORT FILE *fopen(const char *path, const char *mode)
{
    return fresh_stream(IPS2_REAL(fopen)(path, mode));
}

IPS2_EXPORT FILE *fopen64(const char *path, const char *mode)
{
    return fresh_stream(IPS2_REAL(fopen64)(path, mode));
}

IPS2_EXPORT FILE *freopen(const char *path, const char *mode, FILE *f)
{
    return fresh_stream(IPS2_REAL(freopen)(path, mode, f));
}

IPS2_EXPORT FILE *freopen64(const char *path, const char *mode, FILE *f)
{
    return fresh_stream(IPS2_REAL(freopen64)(path, mode, f));
}

IPS2_EXPORT int eventfd(unsigned initval, int flags)
{
    return fresh(IPS2_REAL(eventfd)(initval, flags));
}

IPS2_EXPORT int epoll_create(int size)
{
    return fresh(IPS2_REAL(epoll_create)(size));
}

IPS2_EXPORT int epoll_create1(int flags)
{
    return fresh(IPS2_REAL(epoll_create1)(flags));
}

IPS2_EXPORT int timerfd_create(int clock, int flags)
{
    return fresh(IPS2_REAL(timerfd_create)(clock, flags));
}

IPS2_EXPORT int signalfd(int fd, const sigset_t *mask, int flags)
{
    return fresh(IPS2_REAL(signalfd)(fd, mask, flags));
}

IPS2_EXPORT int memfd_create(const char *name, unsigned flags)
{
    return fresh(IPS2_REAL(memfd_create)(name, flags));
}

IPS2_EXPORT int inotify_init(void)
{
    return fresh(IPS2_REAL(inotify_init)());
}

IPS2_EXPORT int inotify_init1(int flags)
{
    return fresh(IPS2_REAL(inotify_init1)(flags));
}
