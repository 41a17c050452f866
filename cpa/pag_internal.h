/*
 * pag_internal.h - what the PAG builder, the matcher and the part file
 * share (private to cpa/): the pairing items both matchers work on, a
 * growable array, string interning, and the warning helpers.
 *
 * An item is one end of a would-be arc: the builder makes one per
 * interaction node that can pair (and a few facts: thread ends, process
 * heads, sync-init times, PVM tids), pag_match.c pairs items of one class
 * by key into arcs; what stays unpaired becomes an ips2_pag_end (classes
 * that may cross machines) or a warning.  Cross-part matching turns ends
 * back into items.  PAG.md has the classes and their keys.
 */
#ifndef IPS2_CPA_PAG_INTERNAL_H
#define IPS2_CPA_PAG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ips2_pag.h"
#include "ips2_strtab.h"

/* Pairing classes; ips2_pag_end.role = class * 2 + (destination side). */
enum pag_class {
    PC_BYTES = 1,    /* byte ranges of a stream: k0 key; k1 offset; k2 bytes */
    PC_CONN = 2,     /* connect -> accept: k0 key; k1 n-th (set by the matcher) */
    PC_DGRAM = 3,    /* k0 key, k1 seq */
    PC_PVM = 4,      /* k0 sender << 32 | receiver, k1 context << 32 | tag, k2 seq */
    PC_PVMTASK = 5,  /* k0 child tid, k1 parent tid */
    PC_PVMBAR = 6,   /* k0 group hash, k1 episode, k2 node before: destinations only */
    PC_PVMTID = 7,   /* k0 tid: a fact */
    PC_LOCK = 8,     /* k0 scope, k1 object, k2 release seq */
    PC_COND = 9,     /* k0 scope, k1 object, k2 signal seq */
    PC_BARRIER = 10, /* k0 scope, k1 object, k2 generation, k3 episode */
    PC_SEM = 11,     /* k0 scope, k1 object, k2 generation, k3 token (post number) */
    PC_THREAD = 12,  /* thread-create -> thread begin: k0 scope, k1 create seq */
    PC_JOIN = 13,    /* thread end -> join-end: k0 scope, k1 create seq */
    PC_PROC = 14,    /* fork / vfork / spawn -> child's head: k0 child pid */
    PC_EXEC = 15,    /* an image's exec -> the next image's head: k0 pid, k1 image */
    PC_EXIT = 16,    /* process end -> the wait that reaped it: k0 pid */
    PC_INIT = 17,    /* sync-init of a barrier or semaphore: k0 scope, k1 object (a fact) */
    PC_COUNT
};

#define PAG_SRC 0
#define PAG_DST 1

/* item.flags */
#define PI_IP      1u /* byte stream / connection of TCP, or a UDP datagram */
#define PI_WAITED  2u /* a destination that waited (locks) */
#define PI_SERIAL  4u /* barrier depart: the serial (last) thread's */
#define PI_VFORK   8u /* a vfork: the child's head also releases the parent */
#define PI_DONE    16u
#define PI_NOTRACE 32u /* process creation: the child may well be untraced */

struct pag_item {
    uint64_t k[4];
    uint64_t gid; /* the node (global id: part << 40 | node) */
    uint64_t ref; /* a second node: barrier depart's arrive, vfork's node, creation's event */
    int64_t wall; /* the node's (or the fact's) time */
    int64_t ws;   /* destination: when its call began; INT64_MIN: none */
    int64_t ref_wall, ref_ws; /* the second node's time and its call's start */
    uint64_t prev;            /* the thread's node before this one (NO_GID: none) */
    uint32_t thread;          /* index in its part's threads (warnings) */
    uint32_t aux; /* class-specific: arrival number, parties, ppid, creator pid, value */
    uint32_t aux2;
    uint16_t cls, side;
    uint16_t kind; /* event kind, for warnings */
    uint16_t flags;
};

/* What the matcher makes. */
struct pag_pair {
    uint64_t from, to;
    int64_t weight;
    uint16_t type;
    uint16_t label; /* the arc's (ips2_pag.h) */
};

struct pag_pairs {
    struct pag_pair *v;
    size_t n, cap;
};

/* ---- small growable arrays -------------------------------------------- */

/* Makes room for one more element of *v (n used, cap allocated); false on OOM. */
bool pag_grow(void **v, size_t *cap, size_t n, size_t elem);
#define PAG_PUSH(arr, n, cap)                                                                      \
    ((n) < (cap) || pag_grow((void **)&(arr), &(cap), (n), sizeof(*(arr))) ? &(arr)[(n)++] : NULL)

/* ---- matching (pag_match.c) -------------------------------------------- */

/* Weight of a dependence arc (ips2_pag.h): wall(to) - max(wall(from),
 * start of to's call), >= 0. */
int64_t pag_weight(int64_t from_wall, int64_t to_wall, int64_t to_ws);

/* pag_match.c's order of items: class, keys, side, time, node. */
int pag_item_cmp(const void *a, const void *b);

/* Pairs items (sorting them); appends arcs to out; marks paired items
 * PI_DONE.  Classes that need all their ends (PVM barriers) are paired
 * only if `final`.  false on OOM. */
bool pag_match_items(struct pag_item *items, size_t n, bool final, struct pag_pairs *out);

/* The items of every part's ends that may pair across parts (each part's
 * .part must be its index), and the tids of the traced PVM tasks, sorted;
 * both NULL if no part has an end.  0, or -1 with err. */
int pag_end_items(struct ips2_pag **parts, size_t n, struct pag_item **items, size_t *nitems,
                  uint64_t **tids, size_t *ntids, char *err, size_t errlen);

/* pag_clocks.c: the message pass over the pairs matching made of items
 * (parts 0..nparts): the shift per part that leaves no message received
 * before it was sent, the pairs' weights recomputed with it, and what it
 * did per part into out (nparts entries, NULL: not wanted).  false on OOM. */
struct ips2_pag_clock;
bool pag_clock_pass(const struct pag_item *items, size_t nitems, struct pag_pairs *pairs,
                    size_t nparts, struct ips2_pag_clock *out);

/* Whether an item of class cls may pair with another machine's. */
bool pag_class_crosses(unsigned cls, uint16_t flags);

/* One line naming an unpaired item, for the part's warnings; malloc'd. */
char *pag_item_warning(const struct ips2_pag *pag, const struct pag_item *it);

/* Whether an unpaired item deserves a warning (some never pair by nature:
 * an uncontended release, a thread nobody joined, an untraced child). */
bool pag_item_warns(const struct pag_item *it);

/* Appends a warning (takes line); false on OOM. */
bool pag_add_warning(struct ips2_pag *pag, char *line);

/* Closes a lazy part's file or frees its frame (pag_file.c); NULL: nothing. */
void pag_lazy_free(struct ips2_pag_lazy *z);

/* ---- shares compressed (pag_file.c) ------------------------------------------ */

/* A frame of shares read in order: nshares in all, each checked (a
 * procedure < nstrings or IPS2_PAG_NONE, SIZE_MAX: any; CPU >= 0, an
 * arc's sum within int64).  next gives the next n shares, valid until
 * the next call (the caller may change them); end checks that the frame
 * ends there.  Errors go to err (kept by open).  NULL / -1 with err. */
struct pag_zread;
struct pag_zread *pag_zread_open(const struct ips2_pag_lazy *z, uint64_t nshares, size_t nstrings,
                                 char *err, size_t errlen);
struct ips2_pag_share *pag_zread_next(struct pag_zread *t, size_t n);
int pag_zread_end(struct pag_zread *t);
void pag_zread_free(struct pag_zread *t);

/* Shares compressed into memory as they are put (one zstd frame with its
 * checksum, as a version 4 part file holds them): at the part file's level
 * (IPS2_PAG_ZSTD) or, for a builder's scratch, zstd's level 3.  end gives the
 * frame as a lazy part's (named name), NULL on OOM. */
struct pag_zbuf;
struct pag_zbuf *pag_zbuf_new(bool file_level);
bool pag_zbuf_put(struct pag_zbuf *z, const struct ips2_pag_share *s, size_t n);
struct ips2_pag_lazy *pag_zbuf_end(struct pag_zbuf *z, const char *name);
size_t pag_zbuf_size(const struct pag_zbuf *z); /* compressed bytes so far */
void pag_zbuf_free(struct pag_zbuf *z);

/* Ends z's frame and hands it over (*frame: the caller frees it); false
 * when out of memory (pag_zstd.c, as the rest of pag_zbuf). */
bool pag_zbuf_take(struct pag_zbuf *z, uint8_t **frame, size_t *size);

/* The zstd level of part files: IPS2_PAG_ZSTD, else PAG_ZLEVEL; 0: none. */
#define PAG_ZLEVEL 3
int pag_zstd_level(void);

/* Shares s[0, n) as one zstd frame in memory (*frame, *size: the caller
 * frees it), as a part file's shares frame: what a path's message
 * carries (wire.c).  false when out of memory. */
bool pag_shares_compress(const struct ips2_pag_share *s, size_t n, uint8_t **frame, size_t *size);

/* Inflates the one zstd frame that is src[0, size) (at byte `at` of NAME,
 * for messages) into *plain (*plain_size bytes; the caller frees it): at
 * most expect bytes when the frame's size is known (a path's or a part's
 * shares: their count), else 1000 times the frame (and 64 MiB), which no
 * part's layout comes near; -1 with "NAME: byte OFF: ..." in err. */
int pag_inflate(const uint8_t *src, size_t size, uint64_t expect, size_t at, const char *name,
                uint8_t **plain, size_t *plain_size, char *err, size_t errlen);

/* A lazy part's shares into pag->shares (the part is then whole); 0, or -1
 * with err. */
int pag_shares_load(struct ips2_pag *pag, char *err, size_t errlen);

/* Thread of a node index from the threads' ranges; IPS2_PAG_NONE if none. */
uint32_t pag_thread_of(const struct ips2_pag *pag, uint32_t node);

/* Adds arcs (their to in pag) keeping arcs sorted by to; false on OOM. */
bool pag_add_arcs(struct ips2_pag *pag, const struct ips2_pag_arc *arcs, size_t n);

#define PAG_MAX_WARNINGS 1000

/* ---- byte ranges of streams (pag_bytes.c) ----------------------------------- */

/* The sends and receives of a part being built, compact (PC_BYTES never
 * becomes an item until it is known to pair with nothing). */
struct pag_bytes;
struct pag_bytes *pag_bytes_new(void);
void pag_bytes_free(struct pag_bytes *pb);

/* A send (PAG_SRC) or receive of [off, off + len) of stream key at node,
 * at time wall (the event's; moved: its node's is later); ws: a
 * receive's call start.  false on OOM. */
bool pag_bytes_add(struct pag_bytes *pb, unsigned side, uint64_t key, uint64_t off, uint64_t len,
                   uint32_t node, bool moved, int64_t wall, int64_t ws);

/* Forgets every range of nodes >= node (a dropped thread's). */
void pag_bytes_truncate(struct pag_bytes *pb, uint32_t node);

/* An arc that pairing made. */
/* An arc that pairing made; forward: wall(from) <= wall(to) of the nodes
 * is known (else the caller looks). */
typedef void pag_arc_fn(void *arg, uint64_t from, uint64_t to, int64_t weight, uint16_t type,
                        bool forward);

/* Pairs the ranges (p: the part's nodes, part number 0) as pag_match_items
 * pairs byte items, giving fn each arc in the order pag_match_items would
 * make them.  Twice: pass 0 also gives *left, the ranges that paired with
 * nothing as items in pag_item_cmp order (the caller's: ends and
 * warnings); pass 1 gives the same arcs again (so that the caller can
 * count before it places) and empties pb.  false on OOM (pb is emptied). */
bool pag_bytes_match(struct pag_bytes *pb, const struct ips2_pag *p, int pass, pag_arc_fn *fn,
                     void *arg, struct pag_item **left, size_t *nleft);

/* ---- folding (pag_fold.c) ------------------------------------------------ */

/* What folding reads besides the part: its shares as the builder made
 * them (a reader over all p->nshares of them, node order), which nodes'
 * CPU arcs have shares that do not add up to their weight (a bit per
 * node), and how each thread names its procedures: thread t's local index
 * l is names[name_at[t] + l] when l < name_n[t], else IPS2_PAG_NONE
 * (names NULL: the shares are named already). */
struct pag_fold_in {
    struct pag_zread *shares;
    const uint8_t *inexact;
    const uint32_t *names;
    const size_t *name_at;
    const uint32_t *name_n;
};

/* With fold, folds every node that no arc, out or end names and that is
 * not its thread's first or last node into its thread's next node
 * (PAG.md §5); with keep_messages, a message's node (pag_message_node)
 * stays too; *folded: how many went.  Either way the shares are read
 * once, named, and put into out (p->nshares becomes their number).  false
 * on OOM or damaged input (the part is then half folded: throw it away). */
bool pag_fold(struct ips2_pag *p, bool fold, bool keep_messages, const struct pag_fold_in *in,
              struct pag_zbuf *out, size_t *folded);

#endif /* IPS2_CPA_PAG_INTERNAL_H */
