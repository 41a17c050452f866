/*
 * sock_wrap.c - wrappers of the socket calls: socket, socketpair, connect,
 * accept/accept4, shutdown, and the send/recv family (send, sendto,
 * sendmsg, sendmmsg, recv, recvfrom, recvmsg, recvmmsg and the fortified
 * __recv_chk/__recvfrom_chk).
 *
 * connect records CONNECT and accept records ACCEPT, both with the key of
 * the client-to-server byte stream, so that an analyst pairs them (the
 * accept was released by the connect).  Data moves are recorded by
 * io_events.c.  A datagram's other end must be known on both sides: a
 * receive on an unconnected datagram socket whose caller passed no address
 * buffer is done with one of ours (the kernel does exactly the same work;
 * the caller sees the same results), and a caller's buffer too small for
 * the address leaves that datagram's key unknown (0).  Error-queue reads
 * (MSG_ERRQUEUE) are not messages and pass through.
 *
 * A caller's pointer may be bad: the untraced call then fails with EFAULT,
 * and so must the traced one.  The wrappers read an address, a message
 * header or a vector directly only once the kernel has accepted it (the
 * call succeeded); before the call, after a failure, and where they write
 * back what the kernel would have written, they go through caller_mem.c.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "fds.h"

ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags);
ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags, struct sockaddr *addr,
                       socklen_t *alen);

IPS2_EXPORT int socket(int domain, int type, int protocol)
{
    int fd = IPS2_REAL(socket)(domain, type, protocol);

    if (fd >= 0 && !ips2_passthrough())
        ips2_fd_forget(fd); /* identified when connected or first used */
    return fd;
}

IPS2_EXPORT int socketpair(int domain, int type, int protocol, int sv[2])
{
    int rc = IPS2_REAL(socketpair)(domain, type, protocol, sv);

    if (rc == 0 && !ips2_passthrough()) {
        if (domain == AF_UNIX) {
            ips2_fd_set_unix_pair(sv[0], sv[1], type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC));
        } else {
            ips2_fd_forget(sv[0]);
            ips2_fd_forget(sv[1]);
        }
    }
    return rc;
}

/* A copy of the address a call was given, for when the kernel may not
 * have accepted it; NULL if it cannot be read. *len is cut to the copy. */
static const struct sockaddr *caller_sockaddr(struct sockaddr_storage *copy,
                                              const struct sockaddr *addr, socklen_t *len)
{
    if (*len > sizeof(*copy))
        *len = sizeof(*copy);
    return addr != NULL && ips2_caller_read(copy, addr, *len) == 0 ? (struct sockaddr *)copy : NULL;
}

/* Where a datagram went: the address the caller named, as is once the
 * kernel has accepted it (result >= 0), else through a copy. */
static const struct sockaddr *sent_to(ssize_t result, const struct sockaddr *addr, socklen_t *len,
                                      struct sockaddr_storage *copy)
{
    if (addr == NULL || result >= 0)
        return addr;
    return caller_sockaddr(copy, addr, len);
}

static void endpoint_words(uint64_t *x, const struct ips2_fd *e, const struct ips2_endpoint *peer)
{
    static const struct ips2_endpoint none;

    memcpy(x, e ? e->self.w : none.w, sizeof(none.w));
    memcpy(x + 3, e && (e->flags & FD_CONNECTED) ? e->peer.w : peer->w, sizeof(none.w));
}

/* The key of the client-to-server stream, as the client (out) or the
 * server (in) sees it; 0 for datagram sockets and unknown ends. */
static uint64_t connection_key(const struct ips2_fd *e, int dir)
{
    unsigned type;

    if (e == NULL)
        return 0;
    type = atomic_load_explicit(&e->type, memory_order_relaxed);
    if (type != IPS2_CHAN_TCP && type != IPS2_CHAN_UNIX_STREAM && type != IPS2_CHAN_UNIX_SEQPACKET)
        return 0;
    return dir == IPS2_DIR_OUT ? e->out_key : e->in_key;
}

IPS2_EXPORT int connect(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len)
{
    if (ips2_passthrough())
        return IPS2_REAL(connect)(fd, addr, len);
    uint64_t start = ips2_io_start();
    int rc = IPS2_REAL(connect)(fd, addr, len);
    int err = errno;
    struct ips2_endpoint peer;
    struct ips2_fd *e = NULL;
    struct sockaddr_storage copy;
    const struct sockaddr *named = addr.__sockaddr__;
    uint64_t x[9];

    /* Connecting (or trying to) means the kernel took the address in. */
    if (rc != 0 && err != EINPROGRESS)
        named = caller_sockaddr(&copy, named, &len);
    if (ips2_endpoint_from_sockaddr(named, len, &peer) != 0)
        memset(&peer, 0, sizeof(peer));
    /* A failure (EALREADY, EISCONN, ECONNREFUSED, ...) leaves the entry as
     * it was: what an earlier connect found, or unknown until first used. */
    if (rc == 0 || err == EINPROGRESS) {
        ips2_fd_identify_connected(fd, ips2_endpoint_is_ip(&peer) ? &peer : NULL);
        e = ips2_fd_slot(fd);
    }
    x[0] = connection_key(e, IPS2_DIR_OUT);
    x[1] = rc < 0 ? (uint64_t)err : 0;
    x[2] = start;
    endpoint_words(x + 3, e, &peer);
    ips2_emit(IPS2_EV_CONNECT, (uint64_t)fd, x, 9, ips2_io_flags(start));
    if (e != NULL)
        ips2_fd_announce(fd, e);
    errno = err;
    return rc;
}

static int traced_accept(int lfd, __SOCKADDR_ARG addr, socklen_t *len, int flags, int four)
{
    uint64_t start = ips2_io_start();
    int fd = four ? IPS2_REAL(accept4)(lfd, addr, len, flags) : IPS2_REAL(accept)(lfd, addr, len);
    int err = errno;
    struct ips2_fd *e = fd >= 0 ? ips2_fd_slot(fd) : NULL;
    static const struct ips2_endpoint none;
    uint64_t x[10];

    if (e != NULL)
        ips2_fd_identify_accepted(fd);
    x[0] = connection_key(e, IPS2_DIR_IN);
    x[1] = fd < 0 ? (uint64_t)err : 0;
    x[2] = start;
    endpoint_words(x + 3, e, &none);
    x[9] = (uint64_t)lfd;
    ips2_emit(IPS2_EV_ACCEPT, (uint64_t)(int64_t)fd, x, 10, ips2_io_flags(start));
    if (e != NULL)
        ips2_fd_announce(fd, e);
    errno = err;
    return fd;
}

IPS2_EXPORT int accept(int fd, __SOCKADDR_ARG addr, socklen_t *len)
{
    if (ips2_passthrough())
        return IPS2_REAL(accept)(fd, addr, len);
    return traced_accept(fd, addr, len, 0, 0);
}

IPS2_EXPORT int accept4(int fd, __SOCKADDR_ARG addr, socklen_t *len, int flags)
{
    if (ips2_passthrough())
        return IPS2_REAL(accept4)(fd, addr, len, flags);
    return traced_accept(fd, addr, len, flags, 1);
}

IPS2_EXPORT int shutdown(int fd, int how)
{
    if (ips2_passthrough())
        return IPS2_REAL(shutdown)(fd, how);
    struct ips2_fd *e = ips2_fd_lookup(fd);
    int rc = IPS2_REAL(shutdown)(fd, how);
    int err = errno;
    uint64_t x[3] = {(uint64_t)how, rc < 0 ? (uint64_t)err : 0, e ? e->out_key : 0};

    ips2_emit(IPS2_EV_SHUTDOWN, (uint64_t)fd, x, 3, IPS2_CPU_DERIVED);
    errno = err;
    return rc;
}

/* ---- sending ----------------------------------------------------------- */

/* Every send is recorded as it begins and completed when it returns
 * (io_events.c): a sender killed as soon as its data is out keeps it. */
#define SEND_WRAPPER(call, callid, asked, addr, alen)                                              \
    do {                                                                                           \
        if (ips2_passthrough())                                                                    \
            return call;                                                                           \
        struct ips2_fd *e = ips2_fd_lookup(fd);                                                    \
        if (e == NULL)                                                                             \
            return call;                                                                           \
        struct ips2_begun b;                                                                       \
        uint64_t start = ips2_io_send_begin(fd, e, (asked), (callid), &b);                         \
        ssize_t r = call;                                                                          \
        int err = errno;                                                                           \
        struct sockaddr_storage copy;                                                              \
        socklen_t len = (alen);                                                                    \
        const struct sockaddr *to = sent_to(r, (addr), &len, &copy);                               \
        ips2_io_sent(fd, e, r, err, start, callid, to, len, flags, &b);                            \
        errno = err;                                                                               \
        return r;                                                                                  \
    } while (0)

IPS2_EXPORT ssize_t send(int fd, const void *buf, size_t n, int flags)
{
    SEND_WRAPPER(IPS2_REAL(send)(fd, buf, n, flags), IPS2_IO_SEND, n, NULL, 0);
}

IPS2_EXPORT ssize_t sendto(int fd, const void *buf, size_t n, int flags, __CONST_SOCKADDR_ARG addr,
                           socklen_t alen)
{
    SEND_WRAPPER(IPS2_REAL(sendto)(fd, buf, n, flags, addr, alen), IPS2_IO_SENDTO, n,
                 addr.__sockaddr__, alen);
}

IPS2_EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
    if (ips2_passthrough())
        return IPS2_REAL(sendmsg)(fd, msg, flags);
    struct ips2_fd *e = ips2_fd_lookup(fd);
    if (e == NULL)
        return IPS2_REAL(sendmsg)(fd, msg, flags);
    struct ips2_begun b;
    uint64_t start = ips2_io_send_begin(fd, e, 0, IPS2_IO_SENDMSG, &b);
    ssize_t r = IPS2_REAL(sendmsg)(fd, msg, flags);
    int err = errno;
    struct msghdr m = {0};
    struct sockaddr_storage copy;

    if (r >= 0)
        m = *msg;
    else if (ips2_caller_read(&m, msg, sizeof(m)) != 0)
        memset(&m, 0, sizeof(m));
    socklen_t len = m.msg_namelen;
    const struct sockaddr *to = sent_to(r, m.msg_name, &len, &copy);
    ips2_io_sent(fd, e, r, err, start, IPS2_IO_SENDMSG, to, len, flags, &b);
    errno = err;
    return r;
}

IPS2_EXPORT int sendmmsg(int fd, struct mmsghdr *vec, unsigned vlen, int flags)
{
    if (ips2_passthrough())
        return IPS2_REAL(sendmmsg)(fd, vec, vlen, flags);
    struct ips2_fd *e = ips2_fd_lookup(fd);
    if (e == NULL)
        return IPS2_REAL(sendmmsg)(fd, vec, vlen, flags);
    /* The first message's record begins with the call; the others are
     * recorded when it returns (it says only then how many went). */
    struct ips2_begun b;
    uint64_t start = ips2_io_send_begin(fd, e, 0, IPS2_IO_SENDMMSG, &b);
    int r = IPS2_REAL(sendmmsg)(fd, vec, vlen, flags);
    int err = errno;
    if (r < 0)
        ips2_io_sent(fd, e, -1, err, start, IPS2_IO_SENDMMSG, NULL, 0, flags, &b);
    else if (r == 0)
        ips2_emit_cancel(&b); /* no message (vlen 0): no event, as before */
    for (int i = 0; i < r; i++) {
        struct ips2_begun none = {.at = NULL};
        ips2_io_sent(fd, e, (ssize_t)vec[i].msg_len, 0, start, IPS2_IO_SENDMMSG,
                     vec[i].msg_hdr.msg_name, vec[i].msg_hdr.msg_namelen, flags,
                     i == 0 ? &b : &none);
    }
    errno = err;
    return r;
}

/* ---- receiving --------------------------------------------------------- */

/* True if a receive on e must bring its own address buffer along. */
static int needs_source(const struct ips2_fd *e, int flags)
{
    return ips2_fd_is_dgram(e) && !(e->flags & FD_CONNECTED) && !(flags & MSG_ERRQUEUE);
}

static ssize_t traced_recvfrom(int fd, struct ips2_fd *e, void *buf, size_t n, int flags,
                               struct sockaddr *addr, socklen_t *alen, unsigned call)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss), given = 0;
    const struct sockaddr *src = NULL;
    int source = needs_source(e, flags);
    ssize_t r;
    uint64_t start = ips2_io_start();

    if (source && addr == NULL) {
        r = IPS2_REAL(recvfrom)(fd, buf, n, flags, (struct sockaddr *)&ss, &len);
        src = (struct sockaddr *)&ss;
    } else {
        /* The room the caller gave, to tell a cut address from a whole one:
         * *alen is the address's full length after the call. */
        int room_known =
            source && alen != NULL && ips2_caller_read(&given, alen, sizeof(given)) == 0;
        r = IPS2_REAL(recvfrom)(fd, buf, n, flags, addr, alen);
        if (r >= 0 && room_known && *alen <= given) {
            src = addr;
            len = *alen;
        }
    }
    int err = errno;
    if (!source)
        src = NULL;
    else if (src == NULL)
        src = (const struct sockaddr *)&ss, len = 0; /* truncated: unknown */
    ips2_io_transfer(fd, e, IPS2_DIR_IN, r, err, start, call, r >= 0 ? src : NULL, len, flags);
    errno = err;
    return r;
}

IPS2_EXPORT ssize_t recv(int fd, void *buf, size_t n, int flags)
{
    if (ips2_passthrough() || (flags & MSG_ERRQUEUE))
        return IPS2_REAL(recv)(fd, buf, n, flags);
    struct ips2_fd *e = ips2_fd_lookup(fd);
    if (e == NULL)
        return IPS2_REAL(recv)(fd, buf, n, flags);
    if (needs_source(e, flags))
        return traced_recvfrom(fd, e, buf, n, flags, NULL, NULL, IPS2_IO_RECV);
    uint64_t start = ips2_io_start();
    ssize_t r = IPS2_REAL(recv)(fd, buf, n, flags);
    int err = errno;
    ips2_io_transfer(fd, e, IPS2_DIR_IN, r, err, start, IPS2_IO_RECV, NULL, 0, flags);
    errno = err;
    return r;
}

IPS2_EXPORT ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags)
{
    if (n > buflen)
        return IPS2_REAL(__recv_chk)(fd, buf, n, buflen, flags);
    return recv(fd, buf, n, flags);
}

IPS2_EXPORT ssize_t recvfrom(int fd, void *buf, size_t n, int flags, __SOCKADDR_ARG addr,
                             socklen_t *alen)
{
    if (ips2_passthrough() || (flags & MSG_ERRQUEUE))
        return IPS2_REAL(recvfrom)(fd, buf, n, flags, addr, alen);
    struct ips2_fd *e = ips2_fd_lookup(fd);
    if (e == NULL)
        return IPS2_REAL(recvfrom)(fd, buf, n, flags, addr, alen);
    return traced_recvfrom(fd, e, buf, n, flags, addr.__sockaddr__, alen, IPS2_IO_RECVFROM);
}

IPS2_EXPORT ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags,
                                   struct sockaddr *addr, socklen_t *alen)
{
    if (n > buflen)
        return IPS2_REAL(__recvfrom_chk)(fd, buf, n, buflen, flags, addr, alen);
    return recvfrom(fd, buf, n, flags, addr, alen);
}

/* recvmsg on an unconnected datagram socket, which must learn the source:
 * with the caller's address buffer if there is one, else with one of ours
 * in a copy of the caller's header, then the fields that the kernel would
 * have written given back (msg_controllen, msg_flags). */
static ssize_t recvmsg_with_source(int fd, struct msghdr *msg, int flags,
                                   struct sockaddr_storage *ss, socklen_t *len)
{
    struct msghdr m;
    ssize_t r;

    if (ips2_caller_read(&m, msg, sizeof(m)) != 0)
        return IPS2_REAL(recvmsg)(fd, msg, flags); /* EFAULT, as untraced */
    if (m.msg_name != NULL) {
        r = IPS2_REAL(recvmsg)(fd, msg, flags);
        if (r >= 0 && msg->msg_namelen <= m.msg_namelen) {
            memcpy(ss, m.msg_name, msg->msg_namelen);
            *len = msg->msg_namelen;
        }
        return r;
    }
    m.msg_name = ss;
    m.msg_namelen = sizeof(*ss);
    r = IPS2_REAL(recvmsg)(fd, &m, flags);
    if (r >= 0) {
        size_t at = offsetof(struct msghdr, msg_controllen);
        if (ips2_caller_write((char *)msg + at, (char *)&m + at, sizeof(m) - at) != 0) {
            errno = EFAULT; /* the kernel's own write back would have failed */
            return -1;
        }
        *len = m.msg_namelen;
    }
    return r;
}

IPS2_EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
    if (ips2_passthrough() || (flags & MSG_ERRQUEUE) || msg == NULL)
        return IPS2_REAL(recvmsg)(fd, msg, flags);
    struct ips2_fd *e = ips2_fd_lookup(fd);
    if (e == NULL)
        return IPS2_REAL(recvmsg)(fd, msg, flags);
    struct sockaddr_storage ss;
    socklen_t len = 0; /* 0: the source is unknown (cut) */
    int source = needs_source(e, flags);
    uint64_t start = ips2_io_start();
    ssize_t r = source ? recvmsg_with_source(fd, msg, flags, &ss, &len)
                       : IPS2_REAL(recvmsg)(fd, msg, flags);
    int err = errno;

    ips2_io_transfer(fd, e, IPS2_DIR_IN, r, err, start, IPS2_IO_RECVMSG,
                     r >= 0 && source ? (struct sockaddr *)&ss : NULL, len, flags);
    errno = err;
    return r;
}

enum { MMSG_OWN_NAMES = 64 };

IPS2_EXPORT int recvmmsg(int fd, struct mmsghdr *vec, unsigned vlen, int flags,
                         struct timespec *timeout)
{
    if (ips2_passthrough() || (flags & MSG_ERRQUEUE) || vec == NULL)
        return IPS2_REAL(recvmmsg)(fd, vec, vlen, flags, timeout);
    struct ips2_fd *e = ips2_fd_lookup(fd);
    if (e == NULL)
        return IPS2_REAL(recvmmsg)(fd, vec, vlen, flags, timeout);
    /* An unconnected datagram socket must learn each source: the vector is
     * received into a copy of the caller's with our address buffers where
     * the caller gave none, then what the kernel would have written is
     * given back. */
    struct mmsghdr given[MMSG_OWN_NAMES], own[MMSG_OWN_NAMES];
    struct sockaddr_storage names[MMSG_OWN_NAMES];
    int substitute = needs_source(e, flags) && vlen <= MMSG_OWN_NAMES &&
                     ips2_caller_read(given, vec, vlen * sizeof(*vec)) == 0;
    struct mmsghdr *v = vec;
    uint64_t start = ips2_io_start();

    if (substitute) {
        memcpy(own, given, vlen * sizeof(*vec));
        for (unsigned i = 0; i < vlen; i++) {
            if (own[i].msg_hdr.msg_name == NULL) {
                own[i].msg_hdr.msg_name = &names[i];
                own[i].msg_hdr.msg_namelen = sizeof(names[i]);
            }
        }
        v = own;
    }
    int r = IPS2_REAL(recvmmsg)(fd, v, vlen, flags, timeout);
    int err = errno;
    if (r > 0 && substitute) {
        for (int i = 0; i < r; i++) {
            given[i].msg_len = own[i].msg_len;
            given[i].msg_hdr.msg_controllen = own[i].msg_hdr.msg_controllen;
            given[i].msg_hdr.msg_flags = own[i].msg_hdr.msg_flags;
            if (given[i].msg_hdr.msg_name != NULL) {
                if (own[i].msg_hdr.msg_namelen > given[i].msg_hdr.msg_namelen)
                    own[i].msg_hdr.msg_name = NULL; /* cut: the source is unknown */
                given[i].msg_hdr.msg_namelen = own[i].msg_hdr.msg_namelen;
            }
        }
        if (ips2_caller_write(vec, given, (size_t)r * sizeof(*vec)) != 0)
            r = -1, err = EFAULT; /* the kernel's own write back would have failed */
    }
    if (r < 0)
        ips2_io_transfer(fd, e, IPS2_DIR_IN, -1, err, start, IPS2_IO_RECVMMSG, NULL, 0, flags);
    for (int i = 0; i < r; i++) {
        const struct sockaddr *src = needs_source(e, flags) ? v[i].msg_hdr.msg_name : NULL;
        ips2_io_transfer(fd, e, IPS2_DIR_IN, (ssize_t)v[i].msg_len, 0, start, IPS2_IO_RECVMMSG, src,
                         src ? v[i].msg_hdr.msg_namelen : 0, flags);
    }
    errno = err;
    return r;
}
