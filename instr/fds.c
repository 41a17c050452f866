/*
 * fds.c - the process's descriptor table: what each descriptor is and,
 * for message channels, its ends and keys.
 *
 * A flat array indexed by descriptor, in chunks of CHUNK_FDS entries that
 * are mapped on first use and installed with compare-and-swap: no lock and
 * no malloc, so that wrappers running in a signal handler (read, write and
 * friends are async-signal-safe) can use it.  A forked child inherits a
 * copy; an exec'd image starts empty and identifies inherited descriptors
 * lazily, at their first traced use, from fstat and the socket calls.
 *
 * Each process records a CHAN event for a channel descriptor before its
 * first event on it, so that its own trace says what the keys stand for.
 * Entries are only written by the thread that creates, identifies or
 * closes the descriptor; a program using a descriptor in one thread while
 * closing it in another has a race of its own, and gets approximate keys.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "fds.h"

#define CHUNK_FDS  256
#define MAX_CHUNKS 4096 /* descriptors below 1 Mi are traced */

static _Atomic(struct ips2_fd *) chunks[MAX_CHUNKS];

/* Which end of a connection a socket is, when its maker said so. */
enum { ROLE_UNKNOWN, ROLE_CONNECTOR, ROLE_ACCEPTED };

/* The entry of fd, its chunk mapped if need be; NULL if fd is out of range. */
struct ips2_fd *ips2_fd_slot(int fd)
{
    if (fd < 0 || fd >= CHUNK_FDS * MAX_CHUNKS)
        return NULL;
    _Atomic(struct ips2_fd *) *c = &chunks[fd / CHUNK_FDS];
    struct ips2_fd *chunk = atomic_load_explicit(c, memory_order_acquire);
    if (unlikely(chunk == NULL)) {
        int saved_errno = errno;
        size_t bytes = CHUNK_FDS * sizeof(struct ips2_fd);
        void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        errno = saved_errno;
        if (m == MAP_FAILED)
            return NULL;
        struct ips2_fd *expected = NULL;
        if (atomic_compare_exchange_strong(c, &expected, (struct ips2_fd *)m)) {
            chunk = m;
        } else {
            munmap(m, bytes);
            chunk = expected;
        }
    }
    return &chunk[fd % CHUNK_FDS];
}

/* The entry of fd if its chunk exists, without mapping one. */
static struct ips2_fd *existing_slot(int fd)
{
    if (fd < 0 || fd >= CHUNK_FDS * MAX_CHUNKS)
        return NULL;
    struct ips2_fd *chunk = atomic_load_explicit(&chunks[fd / CHUNK_FDS], memory_order_acquire);
    return chunk ? &chunk[fd % CHUNK_FDS] : NULL;
}

void ips2_fd_forget(int fd)
{
    struct ips2_fd *e = existing_slot(fd);

    if (e != NULL)
        atomic_store_explicit(&e->type, IPS2_CHAN_UNKNOWN, memory_order_release);
}

int ips2_fd_is_stream(const struct ips2_fd *e)
{
    unsigned t = atomic_load_explicit(&e->type, memory_order_relaxed);
    return t == IPS2_CHAN_TCP || t == IPS2_CHAN_UNIX_STREAM || t == IPS2_CHAN_PIPE ||
           t == IPS2_CHAN_FIFO;
}

int ips2_fd_is_dgram(const struct ips2_fd *e)
{
    unsigned t = atomic_load_explicit(&e->type, memory_order_relaxed);
    return t == IPS2_CHAN_UDP || t == IPS2_CHAN_UNIX_DGRAM || t == IPS2_CHAN_UNIX_SEQPACKET;
}

/* Points the entry's counters at the session-wide ones for its keys. */
static void attach_counters(struct ips2_fd *e)
{
    memset(e->local, 0, sizeof(e->local));
    e->out = ips2_counter_get(e->out_key);
    e->in = e->in_key == e->out_key ? e->out : ips2_counter_get(e->in_key);
    if (e->out == NULL)
        e->out = &e->local[0];
    if (e->in == NULL)
        e->in = e->in_key == e->out_key ? e->out : &e->local[1];
}

/* A counter pointer of entry from, moved to entry to (local counters are
 * part of the entry). */
static struct ips2_counter *rebase(struct ips2_counter *c, struct ips2_fd *from, struct ips2_fd *to)
{
    if (c == &from->local[0])
        return &to->local[0];
    if (c == &from->local[1])
        return &to->local[1];
    return c;
}

/* Copies a filled-in entry into place; the type goes last. */
static void publish(struct ips2_fd *e, struct ips2_fd *n, unsigned type)
{
    atomic_store_explicit(&e->type, IPS2_CHAN_UNKNOWN, memory_order_relaxed);
    n->announced = 0;
    memcpy((char *)e + sizeof(e->type), (char *)n + sizeof(n->type), sizeof(*e) - sizeof(e->type));
    e->out = rebase(e->out, n, e);
    e->in = rebase(e->in, n, e);
    atomic_store_explicit(&e->type, type, memory_order_release);
}

static void stream_keys(struct ips2_fd *n)
{
    n->out_key = ips2_chan_key(IPS2_KEY_STREAM, &n->self, &n->peer);
    n->in_key = ips2_chan_key(IPS2_KEY_STREAM, &n->peer, &n->self);
}

static void dgram_keys(struct ips2_fd *n)
{
    struct ips2_endpoint self;

    ips2_endpoint_self_for(n, &n->peer, &self);
    n->out_key = ips2_chan_key(IPS2_KEY_DGRAM, &self, &n->peer);
    n->in_key = ips2_chan_key(IPS2_KEY_DGRAM, &n->peer, &self);
}

static void inode_endpoint(struct ips2_endpoint *ep, uint64_t inode, unsigned form)
{
    ep->w[0] = AF_UNIX | (uint64_t)form << 16;
    ep->w[1] = inode;
    ep->w[2] = 0;
}

static int local_name(int fd, struct ips2_endpoint *ep)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);

    if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0)
        return -1;
    return ips2_endpoint_from_sockaddr((struct sockaddr *)&ss, len, ep);
}

/* Looks up the far end: 1 = connected (n->peer set), 0 = not. */
static int peer_name(int fd, struct ips2_fd *n, socklen_t *lenp)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);

    if (getpeername(fd, (struct sockaddr *)&ss, &len) != 0)
        return 0;
    if (lenp)
        *lenp = len;
    if (ips2_endpoint_from_sockaddr((struct sockaddr *)&ss, len, &n->peer) != 0)
        return 0;
    return 1;
}

/* IP sockets: self from getsockname, the peer given or from getpeername. */
static unsigned identify_ip(int fd, struct ips2_fd *n, const struct ips2_endpoint *peer)
{
    if (local_name(fd, &n->self) == 0 && (n->self.w[0] >> 32) != 0)
        n->flags |= FD_LOCAL_KNOWN;
    if (peer != NULL) {
        n->peer = *peer;
        n->flags |= FD_CONNECTED;
    } else if (peer_name(fd, n, NULL)) {
        n->flags |= FD_CONNECTED;
    }
    if (n->socktype == SOCK_STREAM) {
        if (n->flags & FD_CONNECTED)
            stream_keys(n);
        else
            n->flags |= FD_INCOMPLETE;
        return IPS2_CHAN_TCP;
    }
    if (n->socktype == SOCK_DGRAM) {
        if (n->flags & FD_CONNECTED)
            dgram_keys(n);
        return IPS2_CHAN_UDP;
    }
    return IPS2_CHAN_OTHER;
}

static unsigned identify_unix(int fd, struct ips2_fd *n, const struct stat *st, int role)
{
    socklen_t len = 0;

    n->flags |= FD_LOCAL_KNOWN;
    if (n->socktype == SOCK_DGRAM) {
        int connected = peer_name(fd, n, &len);
        if (connected && len > offsetof(struct sockaddr_un, sun_path)) {
            /* a named peer: both ends by name, as an unconnected peer sees them */
            n->flags |= FD_CONNECTED | FD_PEER_NAMED;
            local_name(fd, &n->self);
            dgram_keys(n);
        } else if (connected) {
            /* a socketpair: both ends by inode */
            uint64_t peer = ips2_unix_peer_inode(st->st_ino);
            inode_endpoint(&n->self, st->st_ino, IPS2_EP_INODE);
            if (peer) {
                inode_endpoint(&n->peer, peer, IPS2_EP_INODE);
                n->flags |= FD_CONNECTED;
                dgram_keys(n);
            }
        } else {
            local_name(fd, &n->self);
        }
        return IPS2_CHAN_UNIX_DGRAM;
    }
    if (n->socktype != SOCK_STREAM && n->socktype != SOCK_SEQPACKET)
        return IPS2_CHAN_OTHER;
    unsigned type = n->socktype == SOCK_STREAM ? IPS2_CHAN_UNIX_STREAM : IPS2_CHAN_UNIX_SEQPACKET;
    inode_endpoint(&n->self, st->st_ino, IPS2_EP_INODE);
    if (!peer_name(fd, n, &len)) {
        n->flags |= FD_INCOMPLETE; /* not connected (yet) */
        return type;
    }
    /* Which end is this?  An accepted socket carries its listener's name,
     * which its client sees as the peer's name. */
    struct ips2_endpoint local;
    int peer_named = len > offsetof(struct sockaddr_un, sun_path);
    int local_named = local_name(fd, &local) == 0 && local.w[1] != 0;
    if (role == ROLE_UNKNOWN)
        role = local_named && !peer_named   ? ROLE_ACCEPTED
               : !local_named && peer_named ? ROLE_CONNECTOR
                                            : ROLE_UNKNOWN;
    uint64_t peer = role == ROLE_CONNECTOR ? 0 : ips2_unix_peer_inode(st->st_ino);
    if (role == ROLE_UNKNOWN && peer == 0 && peer_named)
        role = ROLE_CONNECTOR; /* its peer has not been accepted yet */
    switch (role) {
    case ROLE_CONNECTOR: /* by our inode, the far end as "accepted for us" */
        inode_endpoint(&n->peer, st->st_ino, IPS2_EP_ACCEPTED);
        break;
    case ROLE_ACCEPTED:
        if (peer == 0)
            goto incomplete;
        inode_endpoint(&n->self, peer, IPS2_EP_ACCEPTED);
        inode_endpoint(&n->peer, peer, IPS2_EP_INODE);
        break;
    default: /* a socketpair: both by inode */
        if (peer == 0)
            goto incomplete;
        inode_endpoint(&n->peer, peer, IPS2_EP_INODE);
        break;
    }
    n->flags |= FD_CONNECTED;
    if (n->socktype == SOCK_STREAM)
        stream_keys(n);
    else
        dgram_keys(n);
    return type;
incomplete:
    memset(&n->peer, 0, sizeof(n->peer));
    n->flags |= FD_INCOMPLETE;
    return type;
}

static unsigned identify_socket(int fd, struct ips2_fd *n, const struct stat *st,
                                const struct ips2_endpoint *peer, int role)
{
    socklen_t len = sizeof(int);

    if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &n->family, &len) != 0)
        return IPS2_CHAN_OTHER;
    len = sizeof(int);
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &n->socktype, &len) != 0)
        return IPS2_CHAN_OTHER;
    switch (n->family) {
    case AF_INET:
    case AF_INET6:
        return identify_ip(fd, n, peer);
    case AF_UNIX:
        return identify_unix(fd, n, st, role);
    default:
        return IPS2_CHAN_OTHER;
    }
}

/* An anonymous pipe rather than a FIFO in a file system.  No stdio: this
 * may run in a signal handler. */
static int anonymous_pipe(int fd)
{
    char path[32] = "/proc/self/fd/", digits[12], link[16];
    size_t len = strlen(path), nd = 0;

    do {
        digits[nd++] = (char)('0' + fd % 10);
        fd /= 10;
    } while (fd > 0 && nd < sizeof(digits));
    while (nd > 0)
        path[len++] = digits[--nd];
    path[len] = '\0';
    ssize_t n = readlink(path, link, sizeof(link));
    return n >= 5 && memcmp(link, "pipe:", 5) == 0;
}

/* A pipe or FIFO end: the key of its stream as its out key if it can
 * write, as its in key if it can read (oflags: the access mode, or -1 to
 * ask fcntl). */
static unsigned identify_pipe(int fd, struct ips2_fd *n, const struct stat *st, unsigned type,
                              int oflags)
{
    n->self.w[0] = (uint64_t)st->st_dev;
    n->self.w[1] = (uint64_t)st->st_ino;
    uint64_t key = ips2_chan_key(IPS2_KEY_PIPE, &n->self, &n->peer);
    if (oflags < 0)
        oflags = fcntl(fd, F_GETFL);
    int mode = oflags < 0 ? O_RDWR : oflags & O_ACCMODE;
    n->out_key = mode != O_RDONLY ? key : 0;
    n->in_key = mode != O_WRONLY ? key : 0;
    if (type == IPS2_CHAN_UNKNOWN)
        type = anonymous_pipe(fd) ? IPS2_CHAN_PIPE : IPS2_CHAN_FIFO;
    return type;
}

static unsigned identify_file(int fd, struct ips2_fd *n, int oflags)
{
    if (oflags < 0) {
        off_t pos = lseek(fd, 0, SEEK_CUR);
        if (pos >= 0) {
            n->pos = (uint64_t)pos;
            n->flags |= FD_POS_KNOWN;
        }
        oflags = fcntl(fd, F_GETFL);
    } else {
        n->pos = 0;
        n->flags |= FD_POS_KNOWN;
    }
    if (oflags >= 0 && (oflags & O_APPEND))
        n->flags |= FD_APPEND;
    return IPS2_CHAN_FILE;
}

/* Fills e from what the kernel says about fd.  type_hint: the type when
 * the caller knows it (pipe()), else IPS2_CHAN_UNKNOWN; oflags: the open
 * flags when the caller just opened it, else -1; peer: the far end when
 * the caller knows it (connect()), else NULL; role: which end of a
 * connection this is, when the caller knows.  Returns 0, or -1 if fd is
 * not open (the entry is left unknown). */
static int identify(int fd, struct ips2_fd *e, unsigned type_hint, int oflags,
                    const struct ips2_endpoint *peer, int role)
{
    struct ips2_fd n;
    struct stat st;
    unsigned type;
    int saved_errno = errno, rc = 0;

    ips2_quiet_begin();
    memset(&n, 0, sizeof(n));
    if (fstat(fd, &st) != 0) {
        rc = -1;
        goto out;
    }
    switch (st.st_mode & S_IFMT) {
    case S_IFREG:
    case S_IFBLK:
        type = identify_file(fd, &n, oflags);
        break;
    case S_IFIFO:
        type = identify_pipe(fd, &n, &st, type_hint, oflags);
        break;
    case S_IFSOCK:
        type = identify_socket(fd, &n, &st, peer, role);
        break;
    default:
        type = IPS2_CHAN_OTHER;
        break;
    }
    if (type != IPS2_CHAN_FILE && type != IPS2_CHAN_OTHER)
        attach_counters(&n);
    publish(e, &n, type);
out:
    ips2_quiet_end();
    errno = saved_errno;
    return rc;
}

void ips2_fd_identify(int fd, struct ips2_fd *e)
{
    identify(fd, e, IPS2_CHAN_UNKNOWN, -1, NULL, ROLE_UNKNOWN);
}

void ips2_fd_identify_connected(int fd, const struct ips2_endpoint *peer)
{
    struct ips2_fd *e = ips2_fd_slot(fd);

    if (e != NULL)
        identify(fd, e, IPS2_CHAN_UNKNOWN, -1, peer, ROLE_CONNECTOR);
}

void ips2_fd_identify_accepted(int fd)
{
    struct ips2_fd *e = ips2_fd_slot(fd);

    if (e != NULL)
        identify(fd, e, IPS2_CHAN_UNKNOWN, -1, NULL, ROLE_ACCEPTED);
}

void ips2_fd_set_pipe(int fd, unsigned type, int oflags)
{
    struct ips2_fd *e = ips2_fd_slot(fd);

    if (e != NULL)
        identify(fd, e, type, oflags, NULL, ROLE_UNKNOWN);
}

void ips2_fd_set_file(int fd, int oflags)
{
    struct ips2_fd *e = ips2_fd_slot(fd);

    if (e != NULL)
        identify(fd, e, IPS2_CHAN_UNKNOWN, oflags, NULL, ROLE_UNKNOWN);
}

/* Both ends of a Unix socketpair, by inode, without asking sock_diag. */
void ips2_fd_set_unix_pair(int fd0, int fd1, int socktype)
{
    struct ips2_fd *e[2] = {ips2_fd_slot(fd0), ips2_fd_slot(fd1)};
    int fds[2] = {fd0, fd1};
    struct stat st[2];
    int saved_errno = errno;

    ips2_quiet_begin();
    if (fstat(fd0, &st[0]) == 0 && fstat(fd1, &st[1]) == 0) {
        unsigned type = socktype == SOCK_STREAM      ? IPS2_CHAN_UNIX_STREAM
                        : socktype == SOCK_SEQPACKET ? IPS2_CHAN_UNIX_SEQPACKET
                                                     : IPS2_CHAN_UNIX_DGRAM;
        for (int i = 0; i < 2; i++) {
            struct ips2_fd n;
            if (e[i] == NULL)
                continue;
            memset(&n, 0, sizeof(n));
            n.family = AF_UNIX;
            n.socktype = socktype;
            n.flags = FD_CONNECTED | FD_LOCAL_KNOWN;
            inode_endpoint(&n.self, st[i].st_ino, IPS2_EP_INODE);
            inode_endpoint(&n.peer, st[1 - i].st_ino, IPS2_EP_INODE);
            if (type == IPS2_CHAN_UNIX_STREAM)
                stream_keys(&n);
            else
                dgram_keys(&n);
            attach_counters(&n);
            publish(e[i], &n, type);
        }
    } else {
        ips2_fd_forget(fds[0]);
        ips2_fd_forget(fds[1]);
    }
    ips2_quiet_end();
    errno = saved_errno;
}

/* dup2(from, to) and friends: to names the same channel or file. */
void ips2_fd_copy(int to, int from)
{
    struct ips2_fd *src = existing_slot(from), *dst;
    unsigned type = src ? atomic_load_explicit(&src->type, memory_order_acquire) : 0;

    if (type == IPS2_CHAN_UNKNOWN || (dst = ips2_fd_slot(to)) == NULL) {
        ips2_fd_forget(to);
        return;
    }
    struct ips2_fd n;
    memcpy(&n, src, sizeof(n));
    n.out = rebase(n.out, src, &n);
    n.in = rebase(n.in, src, &n);
    publish(dst, &n, type);
}

void ips2_fd_announce(int fd, struct ips2_fd *e)
{
    unsigned type = atomic_load_explicit(&e->type, memory_order_acquire);
    uint64_t x[9];

    e->announced = ips2_proc.pid;
    if (type == IPS2_CHAN_FILE || type == IPS2_CHAN_OTHER || type == IPS2_CHAN_UNKNOWN)
        return;
    x[0] = type;
    x[1] = e->out_key;
    x[2] = e->in_key;
    memcpy(x + 3, e->self.w, sizeof(e->self.w));
    memcpy(x + 6, e->peer.w, sizeof(e->peer.w));
    ips2_emit(IPS2_EV_CHAN, (uint64_t)fd, x, 9, IPS2_CPU_DERIVED);
}

/* The entry of fd for a wrapper about to use it: identified if it was not
 * yet (or was an unconnected stream socket), announced in this process.
 * NULL when fd is not open or out of range. */
struct ips2_fd *ips2_fd_lookup(int fd)
{
    struct ips2_fd *e = ips2_fd_slot(fd);

    if (unlikely(e == NULL))
        return NULL;
    unsigned type = atomic_load_explicit(&e->type, memory_order_acquire);
    if (unlikely(type == IPS2_CHAN_UNKNOWN || (e->flags & FD_INCOMPLETE))) {
        if (identify(fd, e, IPS2_CHAN_UNKNOWN, -1, NULL, ROLE_UNKNOWN) != 0)
            return NULL;
    }
    if (unlikely(e->announced != ips2_proc.pid))
        ips2_fd_announce(fd, e);
    return e;
}

/* close_range / closefrom: forget [first, last] without mapping anything. */
void ips2_fd_forget_range(unsigned first, unsigned last)
{
    unsigned limit = CHUNK_FDS * MAX_CHUNKS - 1;

    if (last > limit)
        last = limit;
    for (unsigned fd = first; fd <= last && fd >= first; fd++) {
        if (atomic_load_explicit(&chunks[fd / CHUNK_FDS], memory_order_relaxed) == NULL) {
            fd = (fd / CHUNK_FDS + 1) * CHUNK_FDS - 1; /* skip the chunk */
            continue;
        }
        ips2_fd_forget((int)fd);
    }
}
