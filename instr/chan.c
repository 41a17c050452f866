/*
 * chan.c - who is at the two ends of a channel, and the keys under which
 * an analyst pairs them.
 *
 * An endpoint is written in one canonical form (fds.h) so that both ends
 * of a connection describe it alike: IPv4 addresses become IPv4-mapped
 * IPv6 ones (a dual-stack server sees its IPv4 clients that way), Unix
 * sockets are named by inode or by a hash of their name.  A key is the
 * 64-bit FNV-1a hash of a tag and two endpoints (writer, reader), computed
 * the same way on both sides without any communication between them; the
 * exact definition is in traces/FORMAT.md section 9.2.
 *
 * Two lookups need the kernel's help, once per connection or peer:
 * the peer of a Unix stream socket (its inode, from sock_diag netlink),
 * and the local address an unconnected socket bound to the wildcard
 * address sends from (a throw-away connected UDP socket asks the routing
 * table).  Both run as runtime work, so the wrappers pass their calls through.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

#include "fds.h"

#define FNV_OFFSET 14695981039346656037ull
#define FNV_PRIME  1099511628211ull

static uint64_t fnv_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;

    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= FNV_PRIME;
    }
    return h;
}

static uint64_t fnv_word(uint64_t h, uint64_t w)
{
    for (int i = 0; i < 8; i++) {
        h ^= (w >> (8 * i)) & 0xff;
        h *= FNV_PRIME;
    }
    return h;
}

uint64_t ips2_chan_key(unsigned tag, const struct ips2_endpoint *a, const struct ips2_endpoint *b)
{
    uint64_t h = fnv_word(FNV_OFFSET, tag);

    for (int i = 0; i < 3; i++)
        h = fnv_word(h, a->w[i]);
    for (int i = 0; i < 3; i++)
        h = fnv_word(h, b->w[i]);
    return h ? h : 1;
}

static uint64_t be64(const unsigned char *b)
{
    uint64_t v = 0;

    for (int i = 0; i < 8; i++)
        v = v << 8 | b[i];
    return v;
}

static void ep_ip(struct ips2_endpoint *ep, const unsigned char addr[16], unsigned port)
{
    ep->w[0] = (uint64_t)AF_INET6 | (uint64_t)port << 32;
    ep->w[1] = be64(addr);
    ep->w[2] = be64(addr + 8);
}

int ips2_endpoint_from_sockaddr(const struct sockaddr *sa, socklen_t len, struct ips2_endpoint *ep)
{
    unsigned char addr[16];

    memset(ep, 0, sizeof(*ep));
    if (sa == NULL || len < sizeof(sa_family_t))
        return -1;
    switch (sa->sa_family) {
    case AF_INET: {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        if (len < sizeof(*in))
            return -1;
        memset(addr, 0, 10);
        addr[10] = addr[11] = 0xff;
        memcpy(addr + 12, &in->sin_addr, 4);
        ep_ip(ep, addr, ntohs(in->sin_port));
        return 0;
    }
    case AF_INET6: {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
        if (len < sizeof(*in6))
            return -1;
        ep_ip(ep, in6->sin6_addr.s6_addr, ntohs(in6->sin6_port));
        return 0;
    }
    case AF_UNIX: {
        const struct sockaddr_un *un = (const struct sockaddr_un *)sa;
        size_t n = len > offsetof(struct sockaddr_un, sun_path)
                       ? len - offsetof(struct sockaddr_un, sun_path)
                       : 0;
        if (n > sizeof(un->sun_path))
            n = sizeof(un->sun_path);
        if (n > 0 && un->sun_path[0] != '\0')
            n = strnlen(un->sun_path, n); /* a path: up to its NUL */
        ep->w[0] = (uint64_t)AF_UNIX | (uint64_t)IPS2_EP_NAME << 16;
        ep->w[1] = n ? fnv_bytes(FNV_OFFSET, un->sun_path, n) : 0; /* 0: unnamed */
        return 0;
    }
    default:
        return -1;
    }
}

int ips2_endpoint_is_ip(const struct ips2_endpoint *ep)
{
    return (ep->w[0] & 0xffff) == AF_INET6;
}

/* 0.0.0.0 (as ::ffff:0.0.0.0) or :: */
int ips2_endpoint_ip_wildcard(const struct ips2_endpoint *ep)
{
    return ips2_endpoint_is_ip(ep) && ep->w[1] == 0 &&
           (ep->w[2] == 0 || ep->w[2] == 0xffff00000000ull);
}

/* The inode of the peer of the Unix socket with this inode, 0 if unknown. */
uint64_t ips2_unix_peer_inode(uint64_t inode)
{
    struct {
        struct nlmsghdr h;
        struct unix_diag_req r;
    } req;
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    union {
        char bytes[1024];
        struct nlmsghdr align;
    } buf;
    uint64_t peer = 0;
    int saved_errno = errno;

    ips2_quiet_begin();
    int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (nl >= 0) {
        memset(&req, 0, sizeof(req));
        req.h.nlmsg_len = sizeof(req);
        req.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
        req.h.nlmsg_flags = NLM_F_REQUEST;
        req.r.sdiag_family = AF_UNIX;
        req.r.udiag_states = ~0u;
        req.r.udiag_ino = (uint32_t)inode;
        req.r.udiag_show = UDIAG_SHOW_PEER;
        req.r.udiag_cookie[0] = req.r.udiag_cookie[1] = ~0u; /* no cookie */
        ssize_t n = -1;
        if (sendto(nl, &req, sizeof(req), 0, (struct sockaddr *)&kernel, sizeof(kernel)) ==
            (ssize_t)sizeof(req))
            n = recv(nl, buf.bytes, sizeof(buf.bytes), 0);
        for (struct nlmsghdr *h = &buf.align; n > 0 && NLMSG_OK(h, (size_t)n);
             h = NLMSG_NEXT(h, n)) {
            if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY)
                break;
            struct unix_diag_msg *m = NLMSG_DATA(h);
            if (m->udiag_ino != (uint32_t)inode)
                continue;
            struct rtattr *a = (struct rtattr *)(m + 1);
            int len = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
            for (; RTA_OK(a, len); a = RTA_NEXT(a, len))
                if (a->rta_type == UNIX_DIAG_PEER && RTA_PAYLOAD(a) >= sizeof(uint32_t))
                    peer = *(uint32_t *)RTA_DATA(a);
        }
        close(nl);
    }
    ips2_quiet_end();
    errno = saved_errno;
    return peer;
}

/* The local address the kernel picks to reach peer (an IP endpoint):
 * self gets it, with port 0.  Returns 0 on success. */
int ips2_route_source(const struct ips2_endpoint *peer, struct ips2_endpoint *self)
{
    struct sockaddr_storage ss;
    socklen_t len;
    int rc = -1, saved_errno = errno;
    int v4 = peer->w[1] == 0 && (peer->w[2] >> 32) == 0xffff;

    memset(&ss, 0, sizeof(ss));
    if (v4) {
        struct sockaddr_in *in = (struct sockaddr_in *)&ss;
        uint32_t a = htonl((uint32_t)peer->w[2]);
        in->sin_family = AF_INET;
        in->sin_port = htons(9);
        memcpy(&in->sin_addr, &a, 4);
        len = sizeof(*in);
    } else {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons(9);
        for (int i = 0; i < 8; i++) {
            in6->sin6_addr.s6_addr[i] = (unsigned char)(peer->w[1] >> (56 - 8 * i));
            in6->sin6_addr.s6_addr[8 + i] = (unsigned char)(peer->w[2] >> (56 - 8 * i));
        }
        len = sizeof(*in6);
    }
    ips2_quiet_begin();
    int s = socket(v4 ? AF_INET : AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s >= 0) {
        if (connect(s, (struct sockaddr *)&ss, len) == 0) {
            len = sizeof(ss);
            if (getsockname(s, (struct sockaddr *)&ss, &len) == 0 &&
                ips2_endpoint_from_sockaddr((struct sockaddr *)&ss, len, self) == 0) {
                self->w[0] &= 0xffffffffull; /* port 0 */
                rc = 0;
            }
        }
        close(s);
    }
    ips2_quiet_end();
    errno = saved_errno;
    return rc;
}

/* The endpoint of socket e as seen from peer: its own, with the wildcard
 * address replaced by the local address used towards peer (cached). */
void ips2_endpoint_self_for(struct ips2_fd *e, const struct ips2_endpoint *peer,
                            struct ips2_endpoint *self)
{
    struct ips2_endpoint route;

    *self = e->self;
    if (!ips2_endpoint_ip_wildcard(self) || !ips2_endpoint_is_ip(peer))
        return;
    if (e->route_peer[0] != peer->w[1] || e->route_peer[1] != peer->w[2] ||
        (e->route_self[0] == 0 && e->route_self[1] == 0)) {
        if (ips2_route_source(peer, &route) != 0)
            return;
        e->route_self[0] = route.w[1];
        e->route_self[1] = route.w[2];
        e->route_peer[0] = peer->w[1];
        e->route_peer[1] = peer->w[2];
    }
    self->w[1] = e->route_self[0];
    self->w[2] = e->route_self[1];
}

/* The endpoint of a datagram's other end, from the address the call
 * named or returned (sa), or the connected peer when there is none. */
void ips2_dgram_endpoint(const struct ips2_fd *e, const struct sockaddr *sa, socklen_t len,
                         struct ips2_endpoint *ep)
{
    if (sa != NULL && ips2_endpoint_from_sockaddr(sa, len, ep) == 0) {
        /* An unnamed Unix source on a socketpair: the peer by inode. */
        if ((ep->w[0] & 0xffff) == AF_UNIX && ep->w[1] == 0 && (e->flags & FD_CONNECTED) &&
            !(e->flags & FD_PEER_NAMED))
            *ep = e->peer;
        return;
    }
    if (e->flags & FD_CONNECTED)
        *ep = e->peer;
    else
        memset(ep, 0, sizeof(*ep));
}
