/*
 * ips2_format.h - the on-disk layout of ips2 trace streams.
 *
 * One stream per thread (plus one per process image for its module map).
 * A stream is a fixed header followed by either
 *
 *   raw records    (encoding IPS2_ENC_RAW): what libips2 writes into a
 *                  file-backed shared mapping while the program runs, or
 *   packed blocks  (encoding IPS2_ENC_PACKED): zlib-compressed blocks of
 *                  varint-coded events, written off the hot path.
 *
 * FORMAT.md beside this file is the prose version, with the compatibility
 * rules.  All integers are little-endian.  Nothing here is trusted by the
 * reader: every field is checked before use.
 */
#ifndef IPS2_FORMAT_H
#define IPS2_FORMAT_H

#include <stdint.h>

#define IPS2_MAGIC           "IPS2TRC" /* 8 bytes with the NUL */
#define IPS2_MAGIC_LEN       8
#define IPS2_VERSION         1    /* what this code writes */
#define IPS2_VERSION_MIN     1    /* the oldest it reads */
#define IPS2_RAW_HEADER_SIZE 4096 /* raw records start page-aligned */

enum ips2_encoding {
    IPS2_ENC_RAW = 0,
    IPS2_ENC_PACKED = 1,
};

enum ips2_stream_kind {
    IPS2_STREAM_THREAD = 0,  /* events of one thread */
    IPS2_STREAM_PROCESS = 1, /* module map of one process image */
};

/* How a thread's process (CPU) time is taken; see FORMAT.md "Clocks". */
enum ips2_cpu_method {
    IPS2_CPU_EXACT = 0,  /* read at every event */
    IPS2_CPU_INTERP = 1, /* read at sync points, interpolated between */
    IPS2_CPU_TICK = 2,   /* read at every event, truncated to param ms */
};

enum ips2_timer {
    IPS2_TIMER_TSC = 0,       /* x86 time-stamp counter, tsc_hz ticks/s */
    IPS2_TIMER_MONOTONIC = 1, /* CLOCK_MONOTONIC nanoseconds */
};

/* Stream state, rewritten in place by the writer. */
enum ips2_stream_state {
    IPS2_STATE_OPEN = 0,   /* being written, or its writer died */
    IPS2_STATE_CLOSED = 1, /* closed cleanly; data_bytes is exact */
};

/* Feature bits: a reader refuses a stream with a bit it does not know in
 * the "required" half (bits 0-31); unknown bits 32-63 are ignored. */
enum ips2_feature_bit {
    IPS2_FEAT_PROC_EVENTS_BIT = 0, /* procedure entry/exit present */
    IPS2_FEAT_SHORT_LOCKS_BIT = 1, /* raw: short lock records may be present */
    IPS2_FEAT_CALLS_BIT = 2,       /* CALLS records (counted-only procedures) may be present */
    IPS2_FEAT_LOCK_COUNTS_BIT = 3, /* LOCK_COUNTED records (counted lock holds) may be present */
    IPS2_FEAT_TRUNCATED_BIT = 32,  /* the writer lost records */
};
#define IPS2_FEAT_PROC_EVENTS   (1ULL << IPS2_FEAT_PROC_EVENTS_BIT)
#define IPS2_FEAT_SHORT_LOCKS   (1ULL << IPS2_FEAT_SHORT_LOCKS_BIT)
#define IPS2_FEAT_CALLS         (1ULL << IPS2_FEAT_CALLS_BIT)
#define IPS2_FEAT_LOCK_COUNTS   (1ULL << IPS2_FEAT_LOCK_COUNTS_BIT)
#define IPS2_FEAT_TRUNCATED     (1ULL << IPS2_FEAT_TRUNCATED_BIT)
#define IPS2_FEAT_REQUIRED_MASK 0xffffffffULL
#define IPS2_FEAT_KNOWN                                                                            \
    (IPS2_FEAT_PROC_EVENTS | IPS2_FEAT_SHORT_LOCKS | IPS2_FEAT_CALLS | IPS2_FEAT_LOCK_COUNTS |     \
     IPS2_FEAT_TRUNCATED)

/* Event groups whose measured instrumentation cost the header carries. */
enum ips2_cost_group {
    IPS2_COST_PROC = 0, /* one procedure entry or exit record */
    IPS2_COST_SYNC = 1, /* one sync point (exact CPU clock read) */
    IPS2_COST_GROUPS = 8,
};

/* Probes whose cost the calibration block measures (struct ips2_cost_ext):
 * the code paths of libips2 that record events.  ips2_cost_probe_of()
 * gives an event's. */
enum ips2_cost_probe {
    IPS2_PROBE_ENTER = 0, /* procedure entry (the -finstrument-functions hook) */
    IPS2_PROBE_EXIT = 1,  /* procedure exit */
    IPS2_PROBE_LOCK = 2,  /* a lock taken or released without waiting (short lock path) */
    IPS2_PROBE_EVENT = 3, /* a wrapper's record without a wait: a send, post, signal, arrival */
    IPS2_PROBE_WAIT = 4,  /* a wrapper's record of a call that waited: a CPU reading too */
    IPS2_PROBE_SYNC = 5,  /* a sync point (exact CPU clock and monotonic readings) */
    /* not probes: what the run itself measured (the end block; FORMAT.md section 2) */
    IPS2_PROBE_PAGE = 6,    /* per byte of record: the writer mapping and populating its pages */
    IPS2_PROBE_SAMPLED = 7, /* a procedure probe's cost sampled in situ through the run */
    IPS2_PROBES = 8,
};

/*
 * The calibration block (FORMAT.md section 2): optional, right after the
 * header (at IPS2_COST_EXT_OFFSET, inside header_size).  libips2 measures
 * each probe at start-up on the running machine: its cost in picoseconds
 * outside the timed interval of the event (between the event's timestamp
 * and its neighbours') and inside it (between a call's start timer and the
 * event's own: what the instrumentation adds to a measured wait), by the
 * wall clock and by the thread's CPU clock.  A stream without it (magic
 * not "COST") has only cost_ns[].
 */
#define IPS2_COST_EXT_MAGIC  "COST"
#define IPS2_COST_EXT_OFFSET 1280 /* sizeof(struct ips2_file_header) */
/* A second block right after it, magic "CEND": the same measured again
 * when the stream was closed by its own thread (the cheap probes; the
 * others copied), so that a load that changed during the run shows. */
#define IPS2_COST_END_MAGIC  "CEND"
#define IPS2_COST_END_OFFSET (IPS2_COST_EXT_OFFSET + 144)
struct ips2_cost_ext {
    char magic[4];                    /* IPS2_COST_EXT_MAGIC, no NUL */
    uint16_t size;                    /* bytes of this block */
    uint16_t nprobes;                 /* IPS2_PROBES */
    uint32_t calib_ns;                /* how long the calibration took (wall) */
    uint32_t reps;                    /* probes timed per measurement */
    uint32_t wall_ps[IPS2_PROBES];    /* outside the timed interval, wall clock */
    uint32_t wall_in_ps[IPS2_PROBES]; /* inside it, wall clock */
    uint32_t cpu_ps[IPS2_PROBES];     /* outside, thread CPU clock */
    uint32_t cpu_in_ps[IPS2_PROBES];  /* inside, thread CPU clock */
};

#define IPS2_HOST_MAX 64
#define IPS2_APP_MAX  64
#define IPS2_PATH_MAX 1024

struct ips2_file_header {
    char magic[IPS2_MAGIC_LEN]; /* IPS2_MAGIC */
    uint16_t version;
    uint16_t header_size;               /* bytes before the first record/block */
    uint8_t endian;                     /* 1 = little */
    uint8_t encoding;                   /* enum ips2_encoding */
    uint8_t stream_kind;                /* enum ips2_stream_kind */
    uint8_t cpu_method;                 /* enum ips2_cpu_method */
    uint32_t cpu_param;                 /* interp: sync period in us; tick: ms */
    uint32_t timer;                     /* enum ips2_timer */
    uint64_t features;                  /* IPS2_FEAT_* */
    uint32_t pid, tid;                  /* tid = 0 for a process stream */
    uint32_t ppid;                      /* parent at stream start */
    uint32_t image;                     /* exec generation of this pid: 0, 1, ... */
    uint64_t tsc_hz;                    /* timer ticks per second */
    uint64_t ref_tsc;                   /* calibration reference: timer value ... */
    uint64_t ref_mono_ns;               /* ... and CLOCK_MONOTONIC at the same instant */
    uint64_t ref_real_ns;               /* ... and CLOCK_REALTIME (cross-machine offset) */
    uint32_t state;                     /* enum ips2_stream_state */
    uint32_t sync_records;              /* interp: a sync at least every N records */
    uint64_t data_bytes;                /* raw: bytes of records when closed, else 0 */
    uint32_t cost_ns[IPS2_COST_GROUPS]; /* measured cost per event group */
    char host[IPS2_HOST_MAX];           /* NUL-terminated */
    char app[IPS2_APP_MAX];             /* application id, NUL-terminated */
    char exe[IPS2_PATH_MAX];            /* executable path, NUL-terminated */
};
_Static_assert(sizeof(struct ips2_file_header) == IPS2_COST_EXT_OFFSET, "the block follows");
_Static_assert(sizeof(struct ips2_cost_ext) == 144, "then the end block");

/*
 * Event kinds.  Values are part of the format: never renumber, only add.
 * Kinds are 7 bits wide.  The payload is 48 bits; extra words follow.
 * What the payload and each extra word of a kind are: ips2_fields.h, the
 * one table of them (IPS2_F_<KIND>_<FIELD> names the words).
 */
enum ips2_kind {
    IPS2_EV_NONE = 0,          /* raw: end of the written records */
    IPS2_EV_PAD = 1,           /* raw: skip payload bytes (window tail) */
    IPS2_EV_SYNC = 2,          /* sync point: monotonic time and exact CPU time */
    IPS2_EV_ENTER = 3,         /* procedure entry */
    IPS2_EV_EXIT = 4,          /* procedure exit */
    IPS2_EV_PROC_START = 5,    /* a process image starts */
    IPS2_EV_PROC_EXIT = 6,     /* a process image ends */
    IPS2_EV_THREAD_START = 7,  /* a thread starts */
    IPS2_EV_THREAD_EXIT = 8,   /* a thread ends */
    IPS2_EV_THREAD_CREATE = 9, /* this thread created one (its THREAD_START) */
    IPS2_EV_JOIN_BEGIN = 10,   /* pthread_join called */
    IPS2_EV_JOIN_END = 11,     /* pthread_join returned */
    IPS2_EV_FORK = 12,         /* fork returned in the parent */
    IPS2_EV_EXEC = 13,         /* an exec is tried */
    IPS2_EV_EXEC_FAILED = 14,  /* ... and failed */
    IPS2_EV_MODULE = 15,       /* a module mapped (process streams) */
    IPS2_EV_LOST = 16,         /* records lost before this point */
    IPS2_EV_ENTER_SHORT = 17,  /* raw only: one-word ENTER, see below */
    IPS2_EV_EXIT_SHORT = 18,   /* raw only: one-word EXIT, see below */

    /* 19-39: synchronisation (FORMAT.md "Synchronisation"); the payload is
     * the object key (IPS2_SYNC_KEY_SHARED), sequences are per object. */
    IPS2_EV_SYNC_OBJECT = 19,          /* an object's identity, type and name */
    IPS2_EV_SYNC_INIT = 20,            /* an object initialised */
    IPS2_EV_SYNC_DESTROY = 21,         /* an object destroyed (or sem_close) */
    IPS2_EV_LOCK_ACQUIRED = 22,        /* a lock taken (exclusive) */
    IPS2_EV_LOCK_RELEASE = 23,         /* a lock released (exclusive) */
    IPS2_EV_SYNC_FAILED = 24,          /* a synchronisation call failed */
    IPS2_EV_COND_SIGNAL = 25,          /* pthread_cond_signal */
    IPS2_EV_COND_BROADCAST = 26,       /* pthread_cond_broadcast */
    IPS2_EV_COND_WAKE = 27,            /* a condition wait ended */
    IPS2_EV_BARRIER_ARRIVE = 28,       /* a thread reached a barrier */
    IPS2_EV_BARRIER_DEPART = 29,       /* ... and left it */
    IPS2_EV_SEM_POST = 30,             /* sem_post */
    IPS2_EV_SEM_ACQUIRED = 31,         /* a semaphore wait succeeded */
    IPS2_EV_LOCK_ACQUIRED_SHARED = 32, /* rwlock read: as LOCK_ACQUIRED */
    IPS2_EV_LOCK_RELEASE_SHARED = 33,  /* rwlock read: as LOCK_RELEASE */
    IPS2_EV_LOCK_ACQUIRED_SHORT = 34,  /* raw only: one-word LOCK_ACQUIRED, see below */
    IPS2_EV_LOCK_RELEASE_SHORT = 35,   /* raw only: one-word LOCK_RELEASE, see below */
    IPS2_EV_LOCK_HELD_SHORT = 36,      /* raw only: one-word LOCK_ACQUIRED + LOCK_RELEASE */
    IPS2_EV_LOCK_COUNTED = 37,         /* acquisitions and releases counted, not recorded */

    /* 40-69: messages and file I/O (FORMAT.md "Messages and files") */
    IPS2_EV_CHAN = 40,       /* what a descriptor is: type, keys, endpoints */
    IPS2_EV_SEND = 41,       /* bytes written into a byte stream */
    IPS2_EV_RECV = 42,       /* bytes read from a byte stream */
    IPS2_EV_DGRAM_SEND = 43, /* a datagram sent */
    IPS2_EV_DGRAM_RECV = 44, /* a datagram received */
    IPS2_EV_CONNECT = 45,    /* connect */
    IPS2_EV_ACCEPT = 46,     /* accept */
    IPS2_EV_IO_WAIT = 47,    /* poll, select, epoll_wait */
    IPS2_EV_OPEN = 48,       /* open */
    IPS2_EV_CLOSE = 49,      /* close */
    IPS2_EV_FILE_READ = 50,  /* read from a file (or any other descriptor) */
    IPS2_EV_FILE_WRITE = 51, /* write to a file (or any other descriptor) */
    IPS2_EV_FILE_SEEK = 52,  /* lseek */
    IPS2_EV_FILE_SYNC = 53,  /* fsync, fdatasync */
    IPS2_EV_SHUTDOWN = 54,   /* shutdown */

    /* 70-89: processes and PVM (FORMAT.md "Processes and PVM") */
    IPS2_EV_SPAWN = 70,       /* posix_spawn, posix_spawnp, system, popen */
    IPS2_EV_VFORK = 71,       /* vfork: the parent resumed */
    IPS2_EV_WAIT = 72,        /* a wait call reported a child, or failed */
    IPS2_EV_PVM_TASK = 73,    /* this process is a PVM task */
    IPS2_EV_PVM_SEND = 74,    /* a PVM message sent */
    IPS2_EV_PVM_RECV = 75,    /* a PVM message received */
    IPS2_EV_PVM_PROBE = 76,   /* pvm_probe found a message */
    IPS2_EV_PVM_SPAWN = 77,   /* one task of a pvm_spawn */
    IPS2_EV_PVM_EXIT = 78,    /* pvm_exit */
    IPS2_EV_PVM_BARRIER = 79, /* pvm_barrier */
    IPS2_EV_PVM_GROUP = 80,   /* pvm_joingroup, pvm_lvgroup */

    /* 90: procedures counted, not traced */
    IPS2_EV_CALLS = 90, /* calls of a counted-only procedure since its last CALLS */

    IPS2_EV_KIND_MAX = 127,
};

/* Synchronisation (kinds 19-39): the object type (the "type" fields of
 * SYNC_OBJECT, SYNC_INIT, SYNC_DESTROY, SYNC_FAILED) and the object key
 * (payload): the object's address for a process-private object, or
 * IPS2_SYNC_KEY_SHARED | its slot in the session's table of process-shared
 * objects, the same in every process that uses it (see FORMAT.md). */
enum ips2_sync_type {
    IPS2_SYNC_ANY = 0, /* SYNC_OBJECT of a name given to any object */
    IPS2_SYNC_MUTEX = 1,
    IPS2_SYNC_RWLOCK = 2,       /* SYNC_FAILED: an attempt to read */
    IPS2_SYNC_RWLOCK_WRITE = 3, /* SYNC_FAILED only: an attempt to write */
    IPS2_SYNC_SPIN = 4,
    IPS2_SYNC_COND = 5,
    IPS2_SYNC_BARRIER = 6,
    IPS2_SYNC_SEM = 7,
    IPS2_SYNC_USER_LOCK = 8,    /* marked through ips2.h */
    IPS2_SYNC_USER_BARRIER = 9, /* marked through ips2.h */
};
#define IPS2_SYNC_KEY_SHARED (1ULL << 47)

enum ips2_start_how {
    IPS2_START_INITIAL = 0, /* first image of a process started by exec */
    IPS2_START_FORK = 1,    /* child of fork */
};

enum ips2_exit_how {
    IPS2_EXIT_RETURN = 0, /* return from main / thread start routine */
    IPS2_EXIT_CALL = 1,   /* exit() / pthread_exit() */
    IPS2_EXIT_NOW = 2,    /* _exit() / _Exit() */
    IPS2_EXIT_SIGNAL = 3, /* killed by a signal; status = signal number */
    IPS2_EXIT_EXEC = 4,   /* replaced by exec */
    IPS2_EXIT_CANCEL = 5, /* thread cancelled */
};

/* Messages and files (kinds 40-69, FORMAT.md 9.2): what a descriptor is
 * (the "type" fields of CHAN, OPEN, CLOSE, FILE_*), and which call moved
 * the data or waited (the "call" fields). */
enum ips2_chan_type {
    IPS2_CHAN_UNKNOWN = 0,
    IPS2_CHAN_FILE = 1, /* regular file or block device */
    IPS2_CHAN_PIPE = 2,
    IPS2_CHAN_FIFO = 3,
    IPS2_CHAN_TCP = 4,
    IPS2_CHAN_UDP = 5,
    IPS2_CHAN_UNIX_STREAM = 6,
    IPS2_CHAN_UNIX_DGRAM = 7,
    IPS2_CHAN_UNIX_SEQPACKET = 8,
    IPS2_CHAN_OTHER = 9, /* terminal, character device, eventfd, other sockets, ... */
};

enum ips2_io_call {
    IPS2_IO_READ = 1,
    IPS2_IO_WRITE = 2,
    IPS2_IO_PREAD = 3,
    IPS2_IO_PWRITE = 4,
    IPS2_IO_READV = 5,
    IPS2_IO_WRITEV = 6,
    IPS2_IO_PREADV = 7,
    IPS2_IO_PWRITEV = 8,
    IPS2_IO_SEND = 9,
    IPS2_IO_RECV = 10,
    IPS2_IO_SENDTO = 11,
    IPS2_IO_RECVFROM = 12,
    IPS2_IO_SENDMSG = 13,
    IPS2_IO_RECVMSG = 14,
    IPS2_IO_SENDMMSG = 15,
    IPS2_IO_RECVMMSG = 16,
    IPS2_IO_POLL = 17,
    IPS2_IO_PPOLL = 18,
    IPS2_IO_SELECT = 19,
    IPS2_IO_PSELECT = 20,
    IPS2_IO_EPOLL_WAIT = 21,
    IPS2_IO_EPOLL_PWAIT = 22,
    IPS2_IO_EPOLL_PWAIT2 = 23,
    IPS2_IO_FSYNC = 24,
    IPS2_IO_FDATASYNC = 25,
    IPS2_IO_PEEK = 0x100,    /* flag: MSG_PEEK, the data stays queued */
    IPS2_IO_PENDING = 0x200, /* flag: a send recorded when it began, never completed */
};

/* Processes and PVM (kinds 70-89): what started a child (SPAWN "how"),
 * which call waited for one (WAIT "call"), and which PVM call sent or
 * received a message (PVM_SEND and PVM_RECV "how"). */
enum ips2_spawn_how {
    IPS2_SPAWN_POSIX_SPAWN = 0,
    IPS2_SPAWN_POSIX_SPAWNP = 1,
    IPS2_SPAWN_SYSTEM = 2,
    IPS2_SPAWN_POPEN = 3,
};

enum ips2_wait_call {
    IPS2_WAIT_WAIT = 0,
    IPS2_WAIT_WAITPID = 1,
    IPS2_WAIT_WAITID = 2,
    IPS2_WAIT_WAIT3 = 3,
    IPS2_WAIT_WAIT4 = 4,
    IPS2_WAIT_PCLOSE = 5,
    IPS2_WAIT_SYSTEM = 6,
};

enum ips2_pvm_send_how {
    IPS2_PVM_SEND = 0,
    IPS2_PVM_PSEND = 1,
    IPS2_PVM_MCAST = 2,
};

enum ips2_pvm_recv_how {
    IPS2_PVM_RECV = 0,
    IPS2_PVM_NRECV = 1,
    IPS2_PVM_TRECV = 2,
    IPS2_PVM_PRECV = 3,
};

/*
 * Raw record: 8-byte words.  word 0 is written last, so a record with a
 * non-zero word 0 is complete; a zero word 0 ends the stream.
 *
 *   word 0:  bits 0-6 kind | bit 7 has_cpu | bits 8-15 nextra | 16-63 payload
 *   word 1:  timer value (tsc or ns)
 *   word 2:  CPU time in ns, if has_cpu
 *   then:    nextra words of kind-specific data (strings NUL-padded)
 *
 * nextra counts the words after word 1, the CPU word included, so a record
 * is 2 + nextra words.  A PAD record (raw only) is word 0 alone and skips
 * payload bytes (>= 8, a multiple of 8) counted from its own start.
 *
 * Short records (raw only) are one word, for the hot path:
 *
 *   bits 0-6 kind (ENTER_SHORT / EXIT_SHORT) | bits 7-31 timer delta |
 *   bits 32-63 address offset
 *
 * timer = timer of the latest SYNC record before it + delta; address =
 * base + offset, where base is the address of the latest long ENTER or
 * EXIT record before it with its low 32 bits cleared (0 before any).  A
 * reader turns them into ENTER and EXIT events.
 *
 * Short lock records (raw only, feature SHORT_LOCKS) are one word too:
 *
 *   bits 0-6 kind (LOCK_ACQUIRED_SHORT / LOCK_RELEASE_SHORT) | bits 7-31
 *   timer delta | bits 32-37 object slot | bits 38-63 seq delta
 *
 * A thread stream has IPS2_LOCK_SLOTS object slots, all unbound at its
 * start.  Every LOCK_ACQUIRED or LOCK_RELEASE event with at least one extra
 * word, long or short, binds slot IPS2_LOCK_SLOT(key) to (key, extra[0]).
 * A short lock record names a bound slot (key, seq) and stands for the
 * event of kind LOCK_ACQUIRED / LOCK_RELEASE with payload key, no CPU
 * word, and one extra word: seq + seq delta (mod 2^64); timer as above.
 * A LOCK_HELD_SHORT record is a hold with nothing recorded inside it:
 *
 *   bits 0-6 kind | bits 7-31 timer delta | bits 32-37 object slot |
 *   bits 38-43 seq delta | bits 44-63 hold (timer ticks)
 *
 * It stands for LOCK_ACQUIRED (seq + seq delta, at the timer above) then
 * LOCK_RELEASE (seq + seq delta + 1, at that timer + hold), both as above.
 */
#define IPS2_SHORT_DELTA_BITS 25
#define IPS2_SHORT_WORD(kind, delta, offset)                                                       \
    ((uint64_t)(kind) | ((uint64_t)(delta) << 7) | ((uint64_t)(offset) << 32))
#define IPS2_SHORT_DELTA(w)   (((uint64_t)(w) >> 7) & ((1u << IPS2_SHORT_DELTA_BITS) - 1))
#define IPS2_SHORT_OFFSET(w)  ((uint64_t)(w) >> 32)
#define IPS2_SHORT_BASE(addr) ((uint64_t)(addr) & ~0xffffffffull)
#define IPS2_RAW_KIND(w)      ((unsigned)((w)&0x7f))
#define IPS2_RAW_HAS_CPU(w)   ((unsigned)(((w) >> 7) & 1))
#define IPS2_RAW_NEXTRA(w)    ((unsigned)(((w) >> 8) & 0xff))
#define IPS2_RAW_PAYLOAD(w)   ((uint64_t)(w) >> 16)
#define IPS2_RAW_WORD0(kind, has_cpu, nextra, payload)                                             \
    ((uint64_t)(kind) | ((uint64_t)(has_cpu) << 7) | ((uint64_t)(nextra) << 8) |                   \
     ((uint64_t)(payload) << 16))
#define IPS2_PAYLOAD_MASK  ((1ULL << 48) - 1)
#define IPS2_RAW_MAX_EXTRA 255

/* Short lock records (see above). */
#define IPS2_LOCK_SLOT_BITS 6
#define IPS2_LOCK_SLOTS     (1u << IPS2_LOCK_SLOT_BITS)
#define IPS2_LOCK_SEQ_BITS  26
#define IPS2_LOCK_SLOT(key)                                                                        \
    ((unsigned)(((uint64_t)(key)*0x9e3779b97f4a7c15ull) >> (64 - IPS2_LOCK_SLOT_BITS)))
#define IPS2_LOCK_WORD(kind, delta, slot, seq_delta)                                               \
    ((uint64_t)(kind) | ((uint64_t)(delta) << 7) | ((uint64_t)(slot) << 32) |                      \
     ((uint64_t)(seq_delta) << (32 + IPS2_LOCK_SLOT_BITS)))
#define IPS2_LOCK_WORD_SLOT(w)      ((unsigned)(((uint64_t)(w) >> 32) & (IPS2_LOCK_SLOTS - 1)))
#define IPS2_LOCK_WORD_SEQ_DELTA(w) ((uint64_t)(w) >> (32 + IPS2_LOCK_SLOT_BITS))
#define IPS2_LOCK_HELD_SEQ_BITS     6
#define IPS2_LOCK_HELD_HOLD_BITS    20
#define IPS2_LOCK_HELD_WORD(delta, slot, seq_delta, hold)                                          \
    ((uint64_t)IPS2_EV_LOCK_HELD_SHORT | ((uint64_t)(delta) << 7) | ((uint64_t)(slot) << 32) |     \
     ((uint64_t)(seq_delta) << 38) | ((uint64_t)(hold) << 44))
#define IPS2_LOCK_HELD_SEQ_DELTA(w) (((uint64_t)(w) >> 38) & ((1u << IPS2_LOCK_HELD_SEQ_BITS) - 1))
#define IPS2_LOCK_HELD_HOLD(w)      ((uint64_t)(w) >> 44)

/*
 * Packed block: a 32-byte header, then comp_len bytes of zlib data that
 * inflate to raw_len bytes of events.  Each block decodes on its own.
 *
 *   event := tag varint(zigzag(timer delta))
 *            [varint(zigzag(cpu delta))]          if tag & 0x80
 *            body
 *   tag   := kind | has_cpu << 7
 *   body  := for ENTER/EXIT: varint(index) [varint(address) if index == n]
 *            otherwise:      varint(payload) varint(nextra) nextra x varint
 *
 * Deltas start from 0 in every block.  ENTER/EXIT index a per-block table
 * of addresses: index n (the table size) introduces a new address, which
 * is appended while the table holds fewer than IPS2_PACK_DICT_MAX entries.
 * For packed events nextra does not count the CPU word.
 */
#define IPS2_BLOCK_MAGIC      0x314b4c42u /* "BLK1": zlib data */
#define IPS2_BLOCK_MAGIC_ZSTD 0x315a4c42u /* "BLZ1": zstd data */
#define IPS2_BLOCK_MAGIC_COLS 0x31434c42u /* "BLC1": zstd data, in columns */
/* A BLC1 block inflates to IPS2_BLOCK_COLUMNS - 1 little-endian uint32
 * column lengths, then the columns: every event's tag, timer delta, CPU
 * delta (events with one), address index (ENTER, EXIT), and the rest in
 * event order (new addresses; payload, count and extra words).  Together
 * the columns hold exactly the bytes of the interleaved coding. */
#define IPS2_BLOCK_COLUMNS    5u
#define IPS2_BLOCK_COLUMN_HDR (4u * (IPS2_BLOCK_COLUMNS - 1u))
#define IPS2_BLOCK_RAW_MAX    (256u * 1024u)
#define IPS2_PACK_DICT_MAX    4096u

struct ips2_block_header {
    uint32_t magic;    /* IPS2_BLOCK_MAGIC, IPS2_BLOCK_MAGIC_ZSTD or IPS2_BLOCK_MAGIC_COLS */
    uint32_t raw_len;  /* inflated bytes, <= IPS2_BLOCK_RAW_MAX */
    uint32_t comp_len; /* compressed bytes that follow */
    uint32_t crc32;    /* zlib's crc32 of the compressed bytes */
    uint32_t nevents;
    uint32_t reserved;
    uint64_t first_timer; /* timer of the first event, for seeking */
};

/* The probe that recorded an event of this kind (enum ips2_cost_probe);
 * waited: it carries its call's start, not 0 (a wait). */
static inline unsigned ips2_cost_probe_of(unsigned kind, int waited)
{
    switch (kind) {
    case IPS2_EV_ENTER:
        return IPS2_PROBE_ENTER;
    case IPS2_EV_EXIT:
        return IPS2_PROBE_EXIT;
    case IPS2_EV_SYNC:
        return IPS2_PROBE_SYNC;
    case IPS2_EV_LOCK_ACQUIRED:
    case IPS2_EV_LOCK_RELEASE:
    case IPS2_EV_LOCK_ACQUIRED_SHARED:
    case IPS2_EV_LOCK_RELEASE_SHARED:
        if (!waited)
            return IPS2_PROBE_LOCK;
        break;
    default:
        break;
    }
    return waited ? IPS2_PROBE_WAIT : IPS2_PROBE_EVENT;
}

#endif /* IPS2_FORMAT_H */
