/*
 * io_events.c - the events of data moving through a descriptor: SEND and
 * RECV on byte streams (TCP, Unix stream sockets, pipes, FIFOs) with the
 * byte range they moved, DGRAM_SEND and DGRAM_RECV with the datagram's
 * sequence number between its two ends, FILE_READ and FILE_WRITE with the
 * file offset (FORMAT.md section 9.2).
 *
 * Offsets and sequence numbers come from the session-wide counters
 * (chan_counters.c): one atomic add after the call, for exactly the bytes
 * (or the one datagram) the call moved; nothing for errors, peeks or EOF.
 *
 * Every event carries the timer value taken before the call: the record's
 * own timer is the end, so a wait is one event.
 *
 * A send on a byte stream or a datagram socket is recorded when the call
 * begins (ips2_io_send_begin), so that a sender killed as soon as its data
 * is out has recorded it: a provisional SEND or DGRAM_SEND whose call word
 * has IPS2_IO_PENDING, the bytes asked for and the stream's offset (the
 * datagram's sequence) as the counter reads before the call.  When the call
 * returns, the record is rewritten in place (ips2_emit_complete) with what
 * a record made then would say: the offset the counter gave, the bytes
 * moved, the error; its time becomes the end if no record followed it.
 * Nothing of the caller's memory is read before the call: a vector's or a
 * header's byte count is 0 (unknown) in the provisional record.  The thread's CPU clock is
 * read (IPS2_CPU_READ) only when the call took longer than
 * ips2_block_ticks (5 us): a quicker call cannot have blocked long enough
 * for the derived CPU time to be off by more than that, and the common
 * non-blocking send stays a plain append.
 */
#include <errno.h>
#include <string.h>

#include "fds.h"

#define BLOCK_NS 5000

uint64_t ips2_block_ticks = 1;

void ips2_io_setup(void)
{
    if (ips2_proc.timer == IPS2_TIMER_TSC)
        ips2_block_ticks = ips2_proc.tsc_hz / (1000000000u / BLOCK_NS);
    else
        ips2_block_ticks = BLOCK_NS;
}

/* After process.c's set-up (constructor 101). */
__attribute__((constructor(102))) static void io_init(void)
{
    int saved_errno = errno;

    ips2_io_setup();
    ips2_counters_setup();
    errno = saved_errno;
}

static uint64_t advance(_Atomic uint64_t *counter, uint64_t by)
{
    if (by == 0)
        return atomic_load_explicit(counter, memory_order_relaxed);
    return atomic_fetch_add_explicit(counter, by, memory_order_relaxed);
}

/* The record of the send begun at b if there is one, else a new one. */
static void put_event(const struct ips2_begun *b, unsigned kind, int fd, const uint64_t *x,
                      unsigned n, uint64_t start)
{
    if (b != NULL && b->at != NULL)
        ips2_emit_complete(b, x, n, ips2_io_flags(start));
    else
        ips2_emit(kind, (uint64_t)fd, x, n, ips2_io_flags(start));
}

uint64_t ips2_io_send_begin(int fd, struct ips2_fd *e, size_t asked, unsigned call,
                            struct ips2_begun *b)
{
    struct ips2_counter *c = e->out;
    uint64_t x[9] = {0};

    call |= IPS2_IO_PENDING;
    if (ips2_fd_is_stream(e)) {
        x[0] = e->out_key;
        x[1] = c == NULL ? 0 : atomic_load_explicit(&c->sent, memory_order_relaxed);
        x[2] = asked;
        x[5] = call;
        return ips2_emit_begin(IPS2_EV_SEND, (uint64_t)fd, x, 6, 4, b);
    }
    if (ips2_fd_is_dgram(e)) {
        if (e->flags & FD_CONNECTED) { /* else the call names the peer */
            x[0] = e->out_key;
            x[1] = c == NULL ? 0 : atomic_load_explicit(&c->sent, memory_order_relaxed);
            memcpy(x + 6, e->peer.w, sizeof(e->peer.w));
        }
        x[2] = asked;
        x[5] = call;
        return ips2_emit_begin(IPS2_EV_DGRAM_SEND, (uint64_t)fd, x, 9, 4, b);
    }
    b->at = NULL; /* a file: recorded when the call returns */
    return ips2_io_start();
}

static void io_stream(int fd, struct ips2_fd *e, int dir, ssize_t result, int err, uint64_t start,
                      unsigned call, const struct ips2_begun *b)
{
    struct ips2_counter *c = dir == IPS2_DIR_OUT ? e->out : e->in;
    uint64_t moved = result > 0 && !(call & IPS2_IO_PEEK) ? (uint64_t)result : 0;
    uint64_t x[6];

    x[0] = dir == IPS2_DIR_OUT ? e->out_key : e->in_key;
    x[1] = c == NULL ? 0 : advance(dir == IPS2_DIR_OUT ? &c->sent : &c->received, moved);
    x[2] = result > 0 ? (uint64_t)result : 0;
    x[3] = result < 0 ? (uint64_t)err : 0;
    x[4] = start;
    x[5] = call;
    put_event(b, dir == IPS2_DIR_OUT ? IPS2_EV_SEND : IPS2_EV_RECV, fd, x, 6, start);
}

void ips2_io_stream(int fd, struct ips2_fd *e, int dir, ssize_t result, int err, uint64_t start,
                    unsigned call)
{
    io_stream(fd, e, dir, result, err, start, call, NULL);
}

/* Learns the local address of an IP datagram socket once it is bound
 * (the first send binds an unbound one). */
static void learn_local(int fd, struct ips2_fd *e)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    struct ips2_endpoint ep;
    int saved_errno = errno;

    if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0 &&
        ips2_endpoint_from_sockaddr((struct sockaddr *)&ss, len, &ep) == 0 &&
        (!ips2_endpoint_is_ip(&ep) || (ep.w[0] >> 32) != 0)) {
        e->self = ep;
        e->flags |= FD_LOCAL_KNOWN;
    }
    errno = saved_errno;
}

static void io_dgram(int fd, struct ips2_fd *e, int dir, const struct ips2_endpoint *peer,
                     ssize_t result, int err, uint64_t start, unsigned call,
                     const struct ips2_begun *b)
{
    struct ips2_endpoint self;
    struct ips2_counter *c = NULL;
    uint64_t x[9];
    int same_peer = (e->flags & FD_CONNECTED) && memcmp(peer, &e->peer, sizeof(*peer)) == 0;

    if (same_peer) {
        x[0] = dir == IPS2_DIR_OUT ? e->out_key : e->in_key;
        c = dir == IPS2_DIR_OUT ? e->out : e->in;
    } else if (peer->w[0] != 0) {
        if (!(e->flags & FD_LOCAL_KNOWN))
            learn_local(fd, e);
        ips2_endpoint_self_for(e, peer, &self);
        x[0] = dir == IPS2_DIR_OUT ? ips2_chan_key(IPS2_KEY_DGRAM, &self, peer)
                                   : ips2_chan_key(IPS2_KEY_DGRAM, peer, &self);
        c = ips2_counter_get(x[0]);
    } else {
        x[0] = 0; /* the other end is unknown */
    }
    uint64_t moved = result >= 0 && !(call & IPS2_IO_PEEK) ? 1 : 0;
    x[1] = c == NULL ? 0 : advance(dir == IPS2_DIR_OUT ? &c->sent : &c->received, moved);
    x[2] = result > 0 ? (uint64_t)result : 0;
    x[3] = result < 0 ? (uint64_t)err : 0;
    x[4] = start;
    x[5] = call;
    memcpy(x + 6, peer->w, sizeof(peer->w));
    put_event(b, dir == IPS2_DIR_OUT ? IPS2_EV_DGRAM_SEND : IPS2_EV_DGRAM_RECV, fd, x, 9, start);
}

void ips2_io_dgram(int fd, struct ips2_fd *e, int dir, const struct ips2_endpoint *peer,
                   ssize_t result, int err, uint64_t start, unsigned call)
{
    io_dgram(fd, e, dir, peer, result, err, start, call, NULL);
}

void ips2_io_file(int fd, struct ips2_fd *e, int dir, uint64_t offset, ssize_t result, int err,
                  uint64_t start, unsigned call)
{
    uint64_t x[6];

    x[0] = offset;
    x[1] = result > 0 ? (uint64_t)result : 0;
    x[2] = result < 0 ? (uint64_t)err : 0;
    x[3] = start;
    x[4] = call;
    x[5] = e ? atomic_load_explicit(&e->type, memory_order_relaxed) : IPS2_CHAN_UNKNOWN;
    ips2_emit(dir == IPS2_DIR_OUT ? IPS2_EV_FILE_WRITE : IPS2_EV_FILE_READ, (uint64_t)fd, x, 6,
              ips2_io_flags(start));
}

/* The event of a read/write/send/recv-like call on any descriptor.  addr:
 * the datagram's other end as the call named it (send) or returned it
 * (receive), or NULL; flags: the call's MSG_* flags. */
void ips2_io_sent(int fd, struct ips2_fd *e, ssize_t result, int err, uint64_t start, unsigned call,
                  const struct sockaddr *addr, socklen_t addrlen, int flags,
                  const struct ips2_begun *b)
{
    if (flags & MSG_PEEK)
        call |= IPS2_IO_PEEK;
    if (b->at != NULL && ips2_fd_is_stream(e)) {
        io_stream(fd, e, IPS2_DIR_OUT, result, err, start, call, b);
    } else if (b->at != NULL && ips2_fd_is_dgram(e)) {
        struct ips2_endpoint peer;
        if (atomic_load_explicit(&e->type, memory_order_relaxed) == IPS2_CHAN_UNIX_SEQPACKET)
            addr = NULL; /* connected: always the peer */
        ips2_dgram_endpoint(e, addr, addrlen, &peer);
        io_dgram(fd, e, IPS2_DIR_OUT, &peer, result, err, start, call, b);
    } else {
        ips2_emit_cancel(b); /* no longer a channel (closed and reused meanwhile) */
        ips2_io_transfer(fd, e, IPS2_DIR_OUT, result, err, start, call, addr, addrlen, flags);
    }
}

void ips2_io_transfer(int fd, struct ips2_fd *e, int dir, ssize_t result, int err, uint64_t start,
                      unsigned call, const struct sockaddr *addr, socklen_t addrlen, int flags)
{
    if (flags & MSG_PEEK)
        call |= IPS2_IO_PEEK;
    if (ips2_fd_is_stream(e)) {
        ips2_io_stream(fd, e, dir, result, err, start, call);
    } else if (ips2_fd_is_dgram(e)) {
        struct ips2_endpoint peer;
        if (atomic_load_explicit(&e->type, memory_order_relaxed) == IPS2_CHAN_UNIX_SEQPACKET)
            addr = NULL; /* connected: always the peer */
        ips2_dgram_endpoint(e, addr, addrlen, &peer);
        ips2_io_dgram(fd, e, dir, &peer, result, err, start, call);
    } else {
        int file = atomic_load_explicit(&e->type, memory_order_relaxed) == IPS2_CHAN_FILE;
        int append = dir == IPS2_DIR_OUT && (e->flags & FD_APPEND);
        uint64_t offset = file && (e->flags & FD_POS_KNOWN) && !append ? e->pos : UINT64_MAX;
        if (offset != UINT64_MAX && result > 0)
            e->pos += (uint64_t)result;
        if (append)
            e->flags &= ~FD_POS_KNOWN; /* at the end of the file, wherever that is */
        ips2_io_file(fd, e, dir, offset, result, err, start, call);
    }
}
