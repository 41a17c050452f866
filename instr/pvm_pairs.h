/*
 * pvm_pairs.h - the message sequence numbers of the PVM wrappers (pvm.c).
 *
 * PVM delivers the messages from one task to another in the order they
 * were sent, and a receive takes the oldest message that matches, so for a
 * channel (sender, receiver, context, tag) the k-th message sent is the
 * k-th received.  Each task counts per channel: sends per (destination,
 * context, tag), receives per (source, context, tag); both ends of a
 * message carry the same number.  A fixed open-addressing table keeps the
 * counts (no allocation); when it is full, a new channel's number is 0
 * ("unknown").
 *
 * Also here: the destinations a pvm_mcast() really sends to, which are
 * those of pvmmcast() in libpvm (lpvm.c): sorted, without duplicates,
 * without the sender itself.
 *
 * Header-only, pure logic: tests/unit/test_pvm_pairs.c compiles it as is.
 */
#ifndef IPS2_PVM_PAIRS_H
#define IPS2_PVM_PAIRS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define IPS2_PVM_PAIR_SLOTS 4096 /* a power of two */

struct ips2_pvm_pair {
    int32_t peer, ctx, tag;
    uint32_t used;
    uint64_t count;
};

struct ips2_pvm_pairs {
    unsigned n; /* slots used */
    struct ips2_pvm_pair slot[IPS2_PVM_PAIR_SLOTS];
};

static inline void ips2_pvm_pairs_clear(struct ips2_pvm_pairs *t)
{
    memset(t, 0, sizeof(*t));
}

static inline size_t ips2_pvm_pair_hash(int peer, int ctx, int tag)
{
    uint64_t k = ((uint64_t)(uint32_t)peer << 32 | (uint32_t)tag) ^ ((uint64_t)(uint32_t)ctx << 17);
    return (size_t)((k * 11400714819323198485ull) >> 40) & (IPS2_PVM_PAIR_SLOTS - 1);
}

/* The slot of a channel; with add, a free slot is taken for a new one (but
 * one slot always stays free, so that lookups end).  NULL if absent. */
static inline struct ips2_pvm_pair *ips2_pvm_pair_find(struct ips2_pvm_pairs *t, int peer, int ctx,
                                                       int tag, bool add)
{
    for (size_t i = ips2_pvm_pair_hash(peer, ctx, tag);; i = (i + 1) & (IPS2_PVM_PAIR_SLOTS - 1)) {
        struct ips2_pvm_pair *p = &t->slot[i];
        if (!p->used) {
            if (!add || t->n + 1 >= IPS2_PVM_PAIR_SLOTS)
                return NULL;
            p->used = 1;
            p->peer = peer;
            p->ctx = ctx;
            p->tag = tag;
            p->count = 0;
            t->n++;
            return p;
        }
        if (p->peer == peer && p->ctx == ctx && p->tag == tag)
            return p;
    }
}

/* Counts one more message on the channel; returns its number (1, 2, ...),
 * or 0 when the table has no room for a new channel. */
static inline uint64_t ips2_pvm_pair_next(struct ips2_pvm_pairs *t, int peer, int ctx, int tag)
{
    struct ips2_pvm_pair *p = ips2_pvm_pair_find(t, peer, ctx, tag, true);
    return p ? ++p->count : 0;
}

/* The number the next message on the channel will get, without counting
 * it (0 when the table could not take the channel). */
static inline uint64_t ips2_pvm_pair_peek(struct ips2_pvm_pairs *t, int peer, int ctx, int tag)
{
    struct ips2_pvm_pair *p = ips2_pvm_pair_find(t, peer, ctx, tag, false);
    if (p)
        return p->count + 1;
    return t->n + 1 < IPS2_PVM_PAIR_SLOTS ? 1 : 0;
}

/* Writes to out (room for n) the tids pvm_mcast(tids, n, ...) sends to
 * from task self: sorted, each once, self left out.  Returns how many. */
static inline int ips2_pvm_mcast_targets(const int *tids, int n, int self, int *out)
{
    int m = 0;

    for (int i = 0; i < n; i++) {
        int t = tids[i], j = m;
        if (t == self)
            continue;
        while (j > 0 && out[j - 1] > t)
            j--;
        if (j > 0 && out[j - 1] == t)
            continue;
        memmove(out + j + 1, out + j, (size_t)(m - j) * sizeof(int));
        out[j] = t;
        m++;
    }
    return m;
}

#endif /* IPS2_PVM_PAIRS_H */
