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
 */
#include <errno.h>
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
    uint64_t x[9];

    if (ips2_endpoint_from_sockaddr(addr.__sockaddr__, len, &peer) != 0)
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

#define SEND_WRAPPER(call, callid, addr, alen)                                                     \
    do {                                                                                           \
        if (ips2_passthrough())                                                                    \
            return call;                                                                           \
        struct ips2_fd *e = ips2_fd_lookup(fd);                                                    \
        if (e == NULL)                                                                             \
            return call;                                                                           \
        uint64_t start = ips2_io_start();                                                          \
        ssize_t r = call;                                                                          \
        int err = errno;                                                                           \
        ips2_io_transfer(fd, e, IPS2_DIR_OUT, r, err, start, callid, addr, alen, flags);           \
        errno = err;                                                                               \
        return r;                                                                                  \
    } while (0)

IPS2_EXPORT ssize_t send(int fd, const void *buf, size_t n, int flags)
{
    SEND_WRAPPER(IPS2_REAL(send)(fd, buf, n, flags), IPS2_IO_SEND, NULL, 0);
}

IPS2_EXPORT ssize_t sendto(int fd, const void *buf, size_t n, int flags, __CONST_SOCKADDR_ARG addr,
                           socklen_t alen)
{
    SEND_WRAPPER(IPS2_REAL(sendto)(fd, buf, n, flags, addr, alen), IPS2_IO_SENDTO,
                 addr.__sockaddr__, alen);
}

IPS2_EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
    SEND_WRAPPER(IPS2_REAL(sendmsg)(fd, msg, flags), IPS2_IO_SENDMSG,
                 msg ? (const struct sockaddr *)msg->msg_name : NULL, msg ? msg->msg_namelen : 0);
}

IPS2_EXPORT int sendmmsg(int fd, struct mmsghdr *vec, unsigned vlen, int flags)
{
    if (ips2_passthrough())
        return IPS2_REAL(sendmmsg)(fd, vec, vlen, flags);
    struct ips2_fd *e = ips2_fd_lookup(fd);
    if (e == NULL)
        return IPS2_REAL(sendmmsg)(fd, vec, vlen, flags);
    uint64_t start = ips2_io_start();
    int r = IPS2_REAL(sendmmsg)(fd, vec, vlen, flags);
    int err = errno;
    if (r < 0)
        ips2_io_transfer(fd, e, IPS2_DIR_OUT, -1, err, start, IPS2_IO_SENDMMSG, NULL, 0, flags);
    for (int i = 0; i < r; i++)
        ips2_io_transfer(fd, e, IPS2_DIR_OUT, (ssize_t)vec[i].msg_len, 0, start, IPS2_IO_SENDMMSG,
                         vec[i].msg_hdr.msg_name, vec[i].msg_hdr.msg_namelen, flags);
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
    socklen_t len = sizeof(ss), given = alen ? *alen : 0;
    const struct sockaddr *src = NULL;
    ssize_t r;
    uint64_t start = ips2_io_start();

    if (needs_source(e, flags) && addr == NULL) {
        r = IPS2_REAL(recvfrom)(fd, buf, n, flags, (struct sockaddr *)&ss, &len);
        src = (struct sockaddr *)&ss;
    } else {
        r = IPS2_REAL(recvfrom)(fd, buf, n, flags, addr, alen);
        if (addr != NULL && alen != NULL && *alen <= given) {
            src = addr;
            len = *alen;
        }
    }
    int err = errno;
    if (!needs_source(e, flags))
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

IPS2_EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
    if (ips2_passthrough() || (flags & MSG_ERRQUEUE) || msg == NULL)
        return IPS2_REAL(recvmsg)(fd, msg, flags);
    struct ips2_fd *e = ips2_fd_lookup(fd);
    if (e == NULL)
        return IPS2_REAL(recvmsg)(fd, msg, flags);
    struct sockaddr_storage ss;
    const struct sockaddr *src = NULL;
    socklen_t len = 0, given = msg->msg_namelen;
    ssize_t r;
    uint64_t start = ips2_io_start();

    if (needs_source(e, flags) && msg->msg_name == NULL) {
        struct msghdr m = *msg;
        m.msg_name = &ss;
        m.msg_namelen = sizeof(ss);
        r = IPS2_REAL(recvmsg)(fd, &m, flags);
        if (r >= 0) {
            msg->msg_controllen = m.msg_controllen;
            msg->msg_flags = m.msg_flags;
        }
        src = (struct sockaddr *)&ss;
        len = m.msg_namelen;
    } else {
        r = IPS2_REAL(recvmsg)(fd, msg, flags);
        if (msg->msg_name != NULL && msg->msg_namelen <= given) {
            src = msg->msg_name;
            len = msg->msg_namelen;
        }
    }
    int err = errno;
    if (needs_source(e, flags) && src == NULL)
        src = (const struct sockaddr *)&ss, len = 0; /* truncated: unknown */
    ips2_io_transfer(fd, e, IPS2_DIR_IN, r, err, start, IPS2_IO_RECVMSG, r >= 0 ? src : NULL, len,
                     flags);
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
    struct mmsghdr own[MMSG_OWN_NAMES];
    struct sockaddr_storage names[MMSG_OWN_NAMES];
    int substitute = needs_source(e, flags) && vlen <= MMSG_OWN_NAMES;
    struct mmsghdr *v = vec;
    uint64_t start = ips2_io_start();

    if (substitute) {
        memcpy(own, vec, vlen * sizeof(*vec));
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
    if (r < 0)
        ips2_io_transfer(fd, e, IPS2_DIR_IN, -1, err, start, IPS2_IO_RECVMMSG, NULL, 0, flags);
    for (int i = 0; i < r; i++) {
        if (substitute) {
            vec[i].msg_len = own[i].msg_len;
            vec[i].msg_hdr.msg_controllen = own[i].msg_hdr.msg_controllen;
            vec[i].msg_hdr.msg_flags = own[i].msg_hdr.msg_flags;
            if (vec[i].msg_hdr.msg_name != NULL)
                vec[i].msg_hdr.msg_namelen = own[i].msg_hdr.msg_namelen;
        }
        const struct sockaddr *src = needs_source(e, flags) ? v[i].msg_hdr.msg_name : NULL;
        ips2_io_transfer(fd, e, IPS2_DIR_IN, (ssize_t)vec[i].msg_len, 0, start, IPS2_IO_RECVMMSG,
                         src, src ? v[i].msg_hdr.msg_namelen : 0, flags);
    }
    errno = err;
    return r;
}
