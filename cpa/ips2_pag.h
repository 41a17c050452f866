/*
 * ips2_pag.h - the Program Activity Graph of one part: what one slave
 * built from one trace directory of one machine (DESIGN.md §4).
 *
 * A part is compact arrays.  Nodes are the interaction events of each
 * thread plus the thread's begin and end, in time order per thread; the
 * CPU arc into a node from its thread's previous node is implicit (its
 * weight is node.cpu, the procedures it belongs to are the node's shares).
 * Every other arc (message, synchronisation, process and thread creation,
 * exit -> wait/join) is an ips2_pag_arc kept by the part that owns its
 * destination, sorted by destination; an arc whose source lives in another
 * part names it by global id (part << 40 | node).
 *
 * Ends that could pair with another machine's (sockets, datagrams, PVM
 * messages and spawns) and found no partner in the part are kept as
 * ips2_pag_end: the master gathers every part's ends, pairs them
 * (ips2_pag_match_ends) and gives each part its cross arcs (incoming,
 * into arcs; outgoing, into outs) before a critical-path query runs.
 *
 * Times are ns on the session's base, unshifted (ANALYSTS.md §4).
 * Within a part every arc goes forward in wall time (wall(from) <=
 * wall(to)); the builder drops a pairing that would not (cpa/PAG.md).
 * Weights are >= 0 and never exceed the wall time between their two ends:
 * a CPU arc weighs min(CPU, wall) between its nodes; a dependence arc
 * weighs wall(to) - max(wall(from), start of the wait that `to` ended),
 * clamped to 0; so a longest path can never be longer than the elapsed
 * wall time.
 */
#ifndef IPS2_PAG_H
#define IPS2_PAG_H

#include <stddef.h>
#include <stdint.h>

#define IPS2_PAG_PART_SHIFT      40
#define IPS2_PAG_GID(part, node) (((uint64_t)(part) << IPS2_PAG_PART_SHIFT) | (uint64_t)(node))
#define IPS2_PAG_GID_PART(gid)   ((uint32_t)((gid) >> IPS2_PAG_PART_SHIFT))
#define IPS2_PAG_GID_NODE(gid)   ((uint32_t)((gid) & ((UINT64_C(1) << IPS2_PAG_PART_SHIFT) - 1)))

/* node.kind: an IPS2_EV_* kind (ips2_format.h), or one of these. */
enum ips2_pag_node_kind {
    IPS2_PAG_BEGIN = 0x100, /* the thread's first node (its start, or its first event) */
    IPS2_PAG_END = 0x101,   /* the thread's last node (its exit, or its last event) */
};

enum ips2_pag_arc_type {
    IPS2_PAG_ARC_MESSAGE = 1, /* send -> receive (byte ranges, datagrams, PVM), connect -> accept */
    IPS2_PAG_ARC_SYNC = 2,    /* release -> acquisition, signal -> wake, last arrival -> departure,
                                 post -> acquired semaphore */
    IPS2_PAG_ARC_CREATE = 3,  /* thread-create / fork / vfork / spawn / pvm-spawn -> child begin */
    IPS2_PAG_ARC_EXIT = 4,    /* thread or process end -> join / wait */
};

struct ips2_pag_process {
    uint32_t app; /* index in apps */
    int32_t pid;
    uint32_t image; /* exec image number (traces/FORMAT.md §1) */
    uint32_t name;  /* string: the executable's path */
};

struct ips2_pag_thread {
    uint32_t process; /* index in processes */
    int32_t tid;
    uint32_t first; /* its nodes are [first, first + count), in time order */
    uint32_t count;
};

struct ips2_pag_node { /* 32 bytes */
    int64_t wall;      /* when the event ended */
    int64_t cpu;       /* weight of the CPU arc from the thread's previous node (0 for the first) */
    uint32_t thread;   /* index in threads */
    uint32_t shares;   /* the CPU arc's shares are shares[previous node's .shares, .shares)
                          (for a thread's first node: [its .shares, its .shares), empty) */
    uint16_t kind;     /* IPS2_EV_* or enum ips2_pag_node_kind */
    uint16_t flags;    /* 0 (reserved) */
    uint32_t proc;     /* the procedure on top of the stack at the event (string), or
                          IPS2_PAG_NONE */
};

#define IPS2_PAG_NONE 0xffffffffu

struct ips2_pag_share { /* CPU time of one procedure on one CPU arc */
    uint32_t proc;      /* string: its name; IPS2_PAG_NONE: no procedure (empty stack) */
    uint32_t reserved;
    int64_t cpu;
};

struct ips2_pag_arc { /* 24 bytes */
    uint64_t from;    /* global id of the source */
    uint32_t to;      /* node index in this part */
    uint16_t type;    /* enum ips2_pag_arc_type */
    uint16_t label;   /* a PVM message's: its tag + 1 (0: a tag >= 65535, or another arc) */
    int64_t weight;
};

/* The TCP port of a connection, seen from one of its processes: the
 * accepting side's local port (the server's listening port), as accept
 * gave it to the server (role SERVER) and connect to the client (role
 * CLIENT, its peer's port).  key is the client-to-server stream key
 * (traces/FORMAT.md "Keys"), the same in both parts: matched across parts
 * it names the two processes of a connection and its port. */
struct ips2_pag_port { /* 16 bytes */
    uint64_t key;
    uint32_t process; /* index in processes */
    uint16_t port;
    uint16_t role; /* IPS2_PAG_PORT_SERVER or IPS2_PAG_PORT_CLIENT */
};

enum { IPS2_PAG_PORT_SERVER = 1, IPS2_PAG_PORT_CLIENT = 2 };

struct ips2_pag_out { /* an arc from this part to another one (the other keeps it in arcs) */
    uint32_t from;    /* node index in this part */
    uint32_t reserved;
    uint64_t to; /* global id of the destination */
};

/* An end that may pair with an end of another part: its layout is the
 * matcher's (cpa/PAG.md, cpa/pag_match.c); everything needed to pair it,
 * to weigh the arc and to name it in a warning is in it. */
struct ips2_pag_end {
    uint32_t node;      /* node index in this part (a node of its threads' ranges) */
    uint16_t role;      /* what it is: enum ips2_pag_role */
    uint16_t kind;      /* the node's event kind (IPS2_EV_*, for warnings) */
    uint64_t key[3];    /* the pairing key, per role (PAG.md) */
    int64_t wall;       /* the node's wall time */
    int64_t wait_start; /* a receiving end: when its call began; INT64_MIN: none (a
                           sending end, or a receive that did not wait) */
};

/* ips2_pag_end.role: a class (what pairs with what) times 2, plus 1 for
 * the receiving (destination) side. */
enum ips2_pag_role {
    IPS2_PAG_ROLE_BYTES_SEND = 2, /* TCP byte range: key = stream key, offset, bytes */
    IPS2_PAG_ROLE_BYTES_RECV = 3,
    IPS2_PAG_ROLE_CONNECT = 4, /* TCP connection: key = stream key, n-th with that key, 0 */
    IPS2_PAG_ROLE_ACCEPT = 5,
    IPS2_PAG_ROLE_DGRAM_SEND = 6, /* UDP datagram: key = key, sequence, 0 */
    IPS2_PAG_ROLE_DGRAM_RECV = 7,
    IPS2_PAG_ROLE_PVM_SEND = 8, /* PVM message: sender << 32 | receiver, context << 32 | tag, seq */
    IPS2_PAG_ROLE_PVM_RECV = 9,
    IPS2_PAG_ROLE_PVM_SPAWN = 10, /* pvm-spawn -> the task's first node: child tid, parent tid, 0 */
    IPS2_PAG_ROLE_PVM_TASK = 11,
    IPS2_PAG_ROLE_PVM_BARRIER = 13, /* group (FNV-1a of its name), episode, the node before
                                       the call: the member with the latest wait_start released
                                       the others, from that node at that time */
    IPS2_PAG_ROLE_PVM_TID = 15,     /* not an end: a traced task's tid (key[0]), so that the
                                       matcher can tell untraced partners from lost ones */
};

struct ips2_pag {
    uint32_t part;       /* this part's number in the query (global ids use it) */
    const char *machine; /* strings are indices into `strings` except these two */
    const char *trace_dir;
    char **strings;
    size_t nstrings;
    uint32_t *apps; /* strings: application names */
    size_t napps;
    struct ips2_pag_process *processes;
    size_t nprocesses;
    struct ips2_pag_thread *threads;
    size_t nthreads;
    struct ips2_pag_node *nodes;
    size_t nnodes;
    struct ips2_pag_share *shares;
    size_t nshares;
    struct ips2_pag_arc *arcs; /* sorted by to */
    size_t narcs;
    struct ips2_pag_out *outs;
    size_t nouts;
    struct ips2_pag_end *ends; /* not yet paired */
    size_t nends;
    char **warnings; /* unmatched ends and other notes, one line each, naming process and event */
    size_t nwarnings;
    struct ips2_pag_port *ports; /* TCP connections' ports, by key (a part's only) */
    size_t nports;
    /* A part read without its shares (ips2_pag_read_lazy): shares is NULL,
     * nshares their count, the nodes' ranges as always, and
     * ips2_pag_shares_each streams them from the file.  NULL: shares holds
     * them all. */
    struct ips2_pag_lazy *lazy;
};

/* Frees pag and everything in it: every array, every string (strings[i],
 * warnings[i], machine, trace_dir) is malloc'd on its own. */
void ips2_pag_free(struct ips2_pag *pag);

/* Renumbers a part (before its ends are matched): .part and the source of
 * every arc from this part's own nodes. */
void ips2_pag_set_part(struct ips2_pag *pag, uint32_t part);

/* Numbers parts[0..n) 0..n-1.  Parts that already name each other (their
 * numbers all differ, as in a set ips2-cpa gen wrote) keep their cross
 * arcs: every global id is mapped to the new numbers; parts that do not
 * (a slave writes each as part 0, cross arcs come from their ends) are
 * renumbered one by one.  0, or -1 with err if an arc names a part that
 * is not in the set. */
int ips2_pag_number(struct ips2_pag **parts, size_t n, char *err, size_t errlen);

/* The part file (SESSION/pag/MACHINE.pag, or MACHINE.PREFIX.pag for a
 * replayed directory): versioned, crc-checked; the decoder never trusts
 * its input and names the byte offset of the first thing wrong.  Both
 * return 0, or -1 with the error in err. */
int ips2_pag_write(const struct ips2_pag *pag, const char *path, char *err, size_t errlen);
int ips2_pag_read(const char *path, struct ips2_pag **out, char *err, size_t errlen);
int ips2_pag_decode(const void *data, size_t size, const char *name, struct ips2_pag **out,
                    char *err, size_t errlen);

/* Reads a part file without its shares when the file keeps them apart
 * (version 4, what ips2_pag_write makes unless IPS2_PAG_ZSTD=0): nodes,
 * arcs, threads ... in memory, the shares left in the file, which stays
 * open until ips2_pag_free (pag->lazy).  Other files are read whole. */
int ips2_pag_read_lazy(const char *path, struct ips2_pag **out, char *err, size_t errlen);

/* Calls fn(arg, n, shares, count) for every node n of pag in order with
 * the shares of the CPU arc into it (none, NULL, for a thread's first
 * node), from memory or streamed from a lazy part's file in one pass of
 * bounded memory (each arc's shares checked as they come: a procedure
 * string or IPS2_PAG_NONE, CPU >= 0, adding up within int64).  shares
 * lives until fn returns.  fn returns 0 to go on; nonzero stops, and
 * ips2_pag_shares_each returns -1 leaving err to fn.  0, or -1 with err. */
typedef int ips2_pag_shares_fn(void *arg, uint32_t node, const struct ips2_pag_share *shares,
                               size_t count);
int ips2_pag_shares_each(const struct ips2_pag *pag, ips2_pag_shares_fn *fn, void *arg, char *err,
                         size_t errlen);

/* Pairs the ends of parts[0..n) with each other (each part's .part must be
 * its index) and adds the cross arcs: into the destination part's arcs
 * (kept sorted) and the source part's outs.  Ends left unpaired become
 * warnings of their part.  The master does this for live parts with
 * end-only parts (ips2_pag_ends_encode/decode carry a part's ends, its
 * apps, processes and threads over PVM, then ips2_pag_cross_encode/decode
 * carry each part's new arcs and outs back). 0, or -1 with err. */
int ips2_pag_match_ends(struct ips2_pag **parts, size_t n, char *err, size_t errlen);

/* The PVM transport of the matching (bytes: little-endian, versioned,
 * crc-checked; decoders name the byte offset of the first thing wrong).
 *  - ends: a part's number, machine, trace_dir, strings, apps, processes,
 *    threads and ends, no nodes: ips2_pag_ends_decode gives an end-only
 *    part for ips2_pag_match_ends (its nnodes is 0; its threads' ranges
 *    say which node indices exist).
 *  - cross: what matching gave an end-only part (its arcs, outs and
 *    warnings); ips2_pag_cross_apply adds them to the live part (arcs kept
 *    sorted) and empties its ends.
 * Encoders return a malloc'd buffer (NULL when out of memory). */
void *ips2_pag_ends_encode(const struct ips2_pag *pag, size_t *size);
int ips2_pag_ends_decode(const void *data, size_t size, const char *name, struct ips2_pag **out,
                         char *err, size_t errlen);
void *ips2_pag_cross_encode(const struct ips2_pag *pag, size_t *size);
int ips2_pag_cross_apply(struct ips2_pag *pag, const void *data, size_t size, const char *name,
                         char *err, size_t errlen);
/* The whole part as the file holds it (ips2_pag_write writes these bytes). */
void *ips2_pag_encode(const struct ips2_pag *pag, size_t *size);

#endif /* IPS2_PAG_H */
