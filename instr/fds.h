/*
 * fds.h - private declarations of libips2's message and file I/O tracing:
 * the per-process descriptor table (fds.c), channel identities and keys
 * (chan.c), the session-wide byte and datagram counters (chan_counters.c)
 * and the recording of I/O events (io_events.c), used by the wrappers in
 * io_wrap.c, sock_wrap.c and poll_wrap.c.
 *
 * Every descriptor the program uses gets an entry saying what it is
 * (file, pipe, FIFO, TCP, UDP, Unix stream or datagram socket, other) and,
 * for message channels, the keys under which an analyst pairs both ends
 * (traces/FORMAT.md section 9.2).  Entries are filled when the descriptor
 * is created through a wrapper, or lazily at its first traced use
 * (descriptors inherited across exec, or created where libips2 does not
 * look), and forgotten when it is closed.
 */
#ifndef IPS2_FDS_H
#define IPS2_FDS_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "runtime.h"

/* A canonical endpoint, as recorded in the trace (FORMAT.md 9.2):
 *   w[0]  family (AF_INET6 for every IP endpoint, AF_UNIX) in bits 0-15,
 *         form in bits 16-31 (Unix: IPS2_EP_INODE, IPS2_EP_NAME, or
 *         IPS2_EP_ACCEPTED: the socket accepted for the client with that inode),
 *         port in bits 32-47;
 *   w[1], w[2]  IP: the IPv6 address (IPv4 as ::ffff:a.b.c.d), big-endian
 *         halves; Unix: the socket's inode, or a hash of its name.
 * All zero: unknown. */
struct ips2_endpoint {
    uint64_t w[3];
};

enum { IPS2_EP_INODE = 0, IPS2_EP_NAME = 1, IPS2_EP_ACCEPTED = 2 };

/* A pair of session-wide counters (chan_counters.c): for a byte stream the
 * bytes written into it and read out of it; for a datagram pair the
 * datagrams sent and received.  The two sides are usually different
 * processes on different CPUs: each counter has its own cache line. */
struct ips2_counter {
    _Atomic uint64_t key;
    _Atomic uint64_t sent;
    uint64_t pad0[6];
    _Atomic uint64_t received;
    uint64_t pad1[7];
} __attribute__((aligned(64)));

/* Entry flags. */
enum {
    FD_POS_KNOWN = 1 << 0,   /* file: pos is the file offset */
    FD_APPEND = 1 << 1,      /* file: O_APPEND */
    FD_CONNECTED = 1 << 2,   /* socket: remote is the peer */
    FD_LOCAL_KNOWN = 1 << 3, /* socket: local is bound (port or name known) */
    FD_INCOMPLETE = 1 << 4,  /* stream socket not connected yet: look again */
    FD_PEER_NAMED = 1 << 5,  /* Unix datagram: the peer has a name */
};

struct ips2_fd {
    _Atomic unsigned type; /* enum ips2_chan_type; 0 = not known yet */
    unsigned flags;
    int family, socktype; /* sockets */
    pid_t announced;      /* process whose trace has this channel's CHAN event */
    uint64_t out_key, in_key;
    struct ips2_counter *out, *in;   /* session-wide counters, or local ones */
    struct ips2_counter local[2];    /* when the session table is full */
    uint64_t pos;                    /* file offset, with FD_POS_KNOWN */
    struct ips2_endpoint self, peer; /* socket ends; pipe: self = (dev, ino) */
    /* Unconnected IP datagram sockets bound to the wildcard address: the
     * local address the kernel uses towards route_peer. */
    uint64_t route_peer[2], route_self[2];
};

/* fds.c */
struct ips2_fd *ips2_fd_lookup(int fd);
struct ips2_fd *ips2_fd_slot(int fd);
void ips2_fd_forget(int fd);
void ips2_fd_copy(int to, int from);
void ips2_fd_forget_range(unsigned first, unsigned last);
void ips2_fd_identify(int fd, struct ips2_fd *e);
void ips2_fd_identify_connected(int fd, const struct ips2_endpoint *peer);
void ips2_fd_identify_accepted(int fd);
void ips2_fd_set_pipe(int fd, unsigned type, int oflags);
void ips2_fd_set_unix_pair(int fd0, int fd1, int socktype);
void ips2_fd_set_file(int fd, int oflags);
void ips2_fd_announce(int fd, struct ips2_fd *e);
int ips2_fd_is_stream(const struct ips2_fd *e);
int ips2_fd_is_dgram(const struct ips2_fd *e);

/* chan.c */
uint64_t ips2_chan_key(unsigned tag, const struct ips2_endpoint *a, const struct ips2_endpoint *b);
int ips2_endpoint_from_sockaddr(const struct sockaddr *sa, socklen_t len, struct ips2_endpoint *ep);
int ips2_endpoint_is_ip(const struct ips2_endpoint *ep);
int ips2_endpoint_ip_wildcard(const struct ips2_endpoint *ep);
uint64_t ips2_unix_peer_inode(uint64_t inode);
int ips2_route_source(const struct ips2_endpoint *peer, struct ips2_endpoint *self);
void ips2_endpoint_self_for(struct ips2_fd *e, const struct ips2_endpoint *peer,
                            struct ips2_endpoint *self);
void ips2_dgram_endpoint(const struct ips2_fd *e, const struct sockaddr *sa, socklen_t len,
                         struct ips2_endpoint *ep);

/* Tags of the channel keys (FORMAT.md 9.2). */
enum { IPS2_KEY_STREAM = 1, IPS2_KEY_DGRAM = 2, IPS2_KEY_PIPE = 3 };

/* chan_counters.c */
struct ips2_counter *ips2_counter_get(uint64_t key);
void ips2_counters_setup(void);

/* io_events.c */
enum { IPS2_DIR_OUT = 0, IPS2_DIR_IN = 1 };
extern uint64_t ips2_block_ticks;
void ips2_io_setup(void);

/* Time taken now, for a call that may block. */
static inline uint64_t ips2_io_start(void)
{
    return ips2_timer_now();
}

/* Emit flags for an event that ends a call begun at start: an exact CPU
 * reading if the call took long enough to have blocked. */
static inline unsigned ips2_io_flags(uint64_t start)
{
    return ips2_timer_now() - start > ips2_block_ticks ? IPS2_CPU_READ : IPS2_CPU_DERIVED;
}

void ips2_io_stream(int fd, struct ips2_fd *e, int dir, ssize_t result, int err, uint64_t start,
                    unsigned call);
void ips2_io_dgram(int fd, struct ips2_fd *e, int dir, const struct ips2_endpoint *peer,
                   ssize_t result, int err, uint64_t start, unsigned call);
void ips2_io_file(int fd, struct ips2_fd *e, int dir, uint64_t offset, ssize_t result, int err,
                  uint64_t start, unsigned call);
void ips2_io_transfer(int fd, struct ips2_fd *e, int dir, ssize_t result, int err, uint64_t start,
                      unsigned call, const struct sockaddr *addr, socklen_t addrlen, int flags);
/* A send (write, send, sendto, ...) on e recorded as it begins: asked is
 * the bytes asked for, or 0 if unknown without reading the caller's
 * memory; returns the call's start.  ips2_io_sent completes it with what
 * the call returned (a file's write is recorded only then). */
uint64_t ips2_io_send_begin(int fd, struct ips2_fd *e, size_t asked, unsigned call,
                            struct ips2_begun *b);
void ips2_io_sent(int fd, struct ips2_fd *e, ssize_t result, int err, uint64_t start, unsigned call,
                  const struct sockaddr *addr, socklen_t addrlen, int flags,
                  const struct ips2_begun *b);

#endif /* IPS2_FDS_H */
