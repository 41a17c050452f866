/*
 * dump_fields.c - what ips2-dump prints for an event: one table, indexed by
 * kind, of the fields it shows (label, which word - the payload, or an
 * extra word by its name in ips2_fields.h's table - and how to format it),
 * in the order printed.
 *
 * The formats turn the words into what they mean: errno and PVM error
 * names, call, descriptor and object types by name, endpoints as
 * addresses (IPv4-mapped as IPv4, IPv6 in brackets, Unix sockets by inode
 * or name hash, pipes by device and inode), keys in hex, byte ranges as
 * [offset,end), strings quoted and escaped, wait statuses as exited N or
 * killed SIGNAME, and start timers as "waited <duration>" through the
 * stream's timer (ns, or TSC ticks at tsc_hz).  A field whose word the
 * event lacks prints "?" (or nothing when it is optional: the words in
 * brackets in FORMAT.md).  Kinds without a table (ENTER/EXIT, which need
 * names and depth, and unknown kinds) are left to the caller.
 */
#include "dump_fields.h"
#include "ips2_fields.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

enum fmt {
    F_END = 0,       /* ends a kind's list */
    F_DEC,           /* unsigned decimal */
    F_HEX,           /* 0x... */
    F_I32,           /* a 32-bit pattern as a signed number (PVM tags, contexts) */
    F_I64,           /* two's complement */
    F_KEY,           /* a 64-bit pairing key: 16 hex digits, or none (0) */
    F_OBJECT,        /* a sync object key: address, or "shared#slot" */
    F_DEVNUM,        /* major << 32 | minor */
    F_ERRNO,         /* errno name (number) */
    F_PVMERR,        /* PVM error code, stored negated */
    F_WAITED,        /* start timer: the duration up to the event */
    F_SPUN,          /* CPU ns at the start: CPU time up to the event */
    F_IO_CALL,       /* enum ips2_io_call, with the peek flag */
    F_NAME,          /* a small enum through the field's names */
    F_ENDPOINT,      /* 3 words */
    F_CHAN_ENDPOINT, /* 3 words, pipes and FIFOs by extra[0]'s type */
    F_STRING,        /* the words from here on as a string */
    F_RANGE,         /* offset, bytes -> [offset,end) */
    F_FD,            /* a descriptor, 2^48-1 (printed -1) when the call failed */
    F_OFFSET,        /* a file offset, 2^64-1 unknown */
    F_RESULT_OFFSET, /* a file offset, 2^64-1 the call failed */
    F_TIMEOUT,       /* ms, 2^64-1 none */
    F_WAIT_STATUS,   /* a waitpid() status */
    F_WAIT_OPTIONS,  /* WNOHANG|... */
    F_OPEN_FLAGS,    /* O_RDONLY|... */
    F_TID,           /* a PVM task id */
    F_PVM_COUNT,     /* barrier count, 0 = all */
    F_EXIT_STATUS,   /* proc-exit: status, or the signal when payload is 3 */
    F_SIGNAL,        /* a signal number */
};

enum {
    OPT = 1,  /* optional: omitted when the event lacks the word */
    ZERO = 2, /* omitted when 0 (every word of an endpoint 0, an empty string) */
    IFP = 4,  /* omitted when the payload is 0 (a wait that reaped no child) */
};

#define PAYLOAD (-1)
#define MAXF    10

struct names {
    const char *const *v;
    unsigned n;
};

struct field {
    const char *label; /* "" prints the value alone */
    signed char word;  /* PAYLOAD or an extra index */
    unsigned char fmt;
    unsigned char flags;
    const struct names *names; /* F_NAME */
};

#define NAMES(id, ...)                                                                             \
    static const char *const id##_v[] = {__VA_ARGS__};                                             \
    static const struct names id = {id##_v, sizeof(id##_v) / sizeof(id##_v[0])}

NAMES(start_how, "initial", "fork");
NAMES(exit_how, "return", "exit", "_exit", "signal", "exec", "cancel");
NAMES(sync_types, "any", "mutex", "rwlock", "rwlock-write", "spin", "cond", "barrier", "sem",
      "user-lock", "user-barrier");
NAMES(chan_types, "unknown", "file", "pipe", "fifo", "tcp", "udp", "unix-stream", "unix-dgram",
      "unix-seqpacket", "other");
NAMES(io_calls, "call-0", "read", "write", "pread", "pwrite", "readv", "writev", "preadv",
      "pwritev", "send", "recv", "sendto", "recvfrom", "sendmsg", "recvmsg", "sendmmsg", "recvmmsg",
      "poll", "ppoll", "select", "pselect", "epoll_wait", "epoll_pwait", "epoll_pwait2", "fsync",
      "fdatasync");
NAMES(whence, "SEEK_SET", "SEEK_CUR", "SEEK_END", "SEEK_DATA", "SEEK_HOLE");
NAMES(shut_how, "SHUT_RD", "SHUT_WR", "SHUT_RDWR");
NAMES(spawn_how, "posix_spawn", "posix_spawnp", "system", "popen");
NAMES(wait_call, "wait", "waitpid", "waitid", "wait3", "wait4", "pclose", "system");
NAMES(pvm_send_how, "pvm_send", "pvm_psend", "pvm_mcast");
NAMES(pvm_recv_how, "pvm_recv", "pvm_nrecv", "pvm_trecv", "pvm_precv");
NAMES(group_op, "left", "joined");
NAMES(serial, "waiter", "last");
/* pvm3.h's codes, negated: index n is -n */
NAMES(pvm_errors, "PvmOk", "Pvm-1", "PvmBadParam", "PvmMismatch", "PvmOverflow", "PvmNoData",
      "PvmNoHost", "PvmNoFile", "PvmDenied", "Pvm-9", "PvmNoMem", "Pvm-11", "PvmBadMsg", "Pvm-13",
      "PvmSysErr", "PvmNoBuf", "PvmNoSuchBuf", "PvmNullGroup", "PvmDupGroup", "PvmNoGroup",
      "PvmNotInGroup", "PvmNoInst", "PvmHostFail", "PvmNoParent", "PvmNotImpl", "PvmDSysErr",
      "PvmBadVersion", "PvmOutOfRes", "PvmDupHost", "PvmCantStart", "PvmAlready", "PvmNoTask",
      "PvmNotFound", "PvmExists", "PvmHostrNMstr", "PvmParentNotSet", "PvmIPLoopback");

#define P(label, fmt)                                                                              \
    {                                                                                              \
        label, PAYLOAD, fmt, 0, NULL                                                               \
    }
#define W(label, i, fmt)                                                                           \
    {                                                                                              \
        label, i, fmt, 0, NULL                                                                     \
    }
#define WF(label, i, fmt, flags)                                                                   \
    {                                                                                              \
        label, i, fmt, flags, NULL                                                                 \
    }
#define PN(label, names)                                                                           \
    {                                                                                              \
        label, PAYLOAD, F_NAME, 0, &names                                                          \
    }
#define WN(label, i, names)                                                                        \
    {                                                                                              \
        label, i, F_NAME, 0, &names                                                                \
    }
#define WNF(label, i, names, flags)                                                                \
    {                                                                                              \
        label, i, F_NAME, flags, &names                                                            \
    }

/* The fields of each kind, in the order printed (FORMAT.md 5, 9.1-9.3). */
#define LOCK_ACQUIRED                                                                              \
    {                                                                                              \
        P("object", F_OBJECT), W("seq", IPS2_F_LOCK_ACQUIRED_SEQ, F_DEC),                          \
            WF("waited", IPS2_F_LOCK_ACQUIRED_START, F_WAITED, OPT),                               \
            WF("spun", IPS2_F_LOCK_ACQUIRED_CPU_START, F_SPUN, OPT)                                \
    }
#define LOCK_RELEASE                                                                               \
    {                                                                                              \
        P("object", F_OBJECT), W("seq", IPS2_F_LOCK_RELEASE_SEQ, F_DEC)                            \
    }
#define STREAM_IO                                                                                  \
    {                                                                                              \
        P("fd", F_DEC), W("key", IPS2_F_SEND_KEY, F_KEY), W("bytes", IPS2_F_SEND_OFFSET, F_RANGE), \
            W("waited", IPS2_F_SEND_START, F_WAITED), W("call", IPS2_F_SEND_CALL, F_IO_CALL),      \
            WF("error", IPS2_F_SEND_ERRNO, F_ERRNO, ZERO)                                          \
    }
#define FILE_IO                                                                                    \
    {                                                                                              \
        P("fd", F_DEC), W("at", IPS2_F_FILE_READ_OFFSET, F_OFFSET),                                \
            W("bytes", IPS2_F_FILE_READ_BYTES, F_DEC),                                             \
            W("waited", IPS2_F_FILE_READ_START, F_WAITED),                                         \
            W("call", IPS2_F_FILE_READ_CALL, F_IO_CALL),                                           \
            WN("type", IPS2_F_FILE_READ_TYPE, chan_types),                                         \
            WF("error", IPS2_F_FILE_READ_ERRNO, F_ERRNO, ZERO)                                     \
    }

static const struct field fields[IPS2_EV_KIND_MAX + 1][MAXF] = {
    [IPS2_EV_SYNC] = {W("mono_ns", IPS2_F_SYNC_MONO_NS, F_DEC),
                      W("counted", IPS2_F_SYNC_COUNTED, F_DEC)},
    [IPS2_EV_PROC_START] = {PN("", start_how), W("ppid", IPS2_F_PROC_START_PPID, F_DEC)},
    [IPS2_EV_PROC_EXIT] = {PN("", exit_how), W("", IPS2_F_PROC_EXIT_STATUS, F_EXIT_STATUS)},
    [IPS2_EV_THREAD_START] = {P("creator tid", F_DEC),
                              W("create seq", IPS2_F_THREAD_START_CREATE_SEQ, F_DEC),
                              W("pthread", IPS2_F_THREAD_START_PTHREAD, F_HEX)},
    [IPS2_EV_THREAD_EXIT] = {PN("", exit_how)},
    [IPS2_EV_THREAD_CREATE] = {P("create seq", F_DEC)},
    [IPS2_EV_JOIN_BEGIN] = {P("create seq", F_DEC)},
    [IPS2_EV_JOIN_END] = {P("create seq", F_DEC), W("result", IPS2_F_JOIN_END_RESULT, F_ERRNO)},
    [IPS2_EV_FORK] = {P("child pid", F_DEC)},
    [IPS2_EV_EXEC] = {W("", IPS2_F_EXEC_PATH, F_STRING)},
    [IPS2_EV_EXEC_FAILED] = {P("error", F_ERRNO)},
    [IPS2_EV_MODULE] = {W("", IPS2_F_MODULE_PATH, F_STRING), W("start", IPS2_F_MODULE_START, F_HEX),
                        W("end", IPS2_F_MODULE_END, F_HEX), P("bias", F_HEX)},
    [IPS2_EV_CALLS] = {P("address", F_HEX), W("calls", IPS2_F_CALLS_COUNT, F_DEC)},
    [IPS2_EV_LOST] = {P("records", F_DEC), WF("why", IPS2_F_LOST_ERRNO, F_ERRNO, OPT),
                      WF("thread", IPS2_F_LOST_TID, F_DEC, OPT)},

    /* 9.1 synchronisation */
    [IPS2_EV_SYNC_OBJECT] = {P("object", F_OBJECT), WN("type", IPS2_F_SYNC_OBJECT_TYPE, sync_types),
                             W("address", IPS2_F_SYNC_OBJECT_ADDRESS, F_HEX),
                             WF("dev", IPS2_F_SYNC_OBJECT_DEV, F_DEVNUM, ZERO),
                             WF("inode", IPS2_F_SYNC_OBJECT_INODE, F_DEC, ZERO),
                             WF("offset", IPS2_F_SYNC_OBJECT_OFFSET, F_DEC, ZERO),
                             WF("name", IPS2_F_SYNC_OBJECT_NAME, F_STRING, ZERO | OPT)},
    [IPS2_EV_SYNC_INIT] = {P("object", F_OBJECT), WN("type", IPS2_F_SYNC_INIT_TYPE, sync_types),
                           W("value", IPS2_F_SYNC_INIT_VALUE, F_DEC),
                           W("attributes", IPS2_F_SYNC_INIT_ATTRIBUTES, F_HEX),
                           WF("error", IPS2_F_SYNC_INIT_RESULT, F_ERRNO, ZERO)},
    [IPS2_EV_SYNC_DESTROY] = {P("object", F_OBJECT),
                              WN("type", IPS2_F_SYNC_DESTROY_TYPE, sync_types),
                              WF("error", IPS2_F_SYNC_DESTROY_RESULT, F_ERRNO, ZERO)},
    [IPS2_EV_LOCK_ACQUIRED] = LOCK_ACQUIRED,
    [IPS2_EV_LOCK_COUNTED] = {P("object", F_OBJECT),
                              W("acquired", IPS2_F_LOCK_COUNTED_ACQUIRED, F_DEC),
                              W("released", IPS2_F_LOCK_COUNTED_RELEASED, F_DEC)},
    [IPS2_EV_LOCK_RELEASE] = LOCK_RELEASE,
    [IPS2_EV_SYNC_FAILED] = {P("object", F_OBJECT), WN("type", IPS2_F_SYNC_FAILED_TYPE, sync_types),
                             W("error", IPS2_F_SYNC_FAILED_ERROR, F_ERRNO),
                             WF("waited", IPS2_F_SYNC_FAILED_START, F_WAITED, ZERO)},
    [IPS2_EV_COND_SIGNAL] = {P("object", F_OBJECT), W("seq", IPS2_F_COND_SIGNAL_SEQ, F_DEC)},
    [IPS2_EV_COND_BROADCAST] = {P("object", F_OBJECT), W("seq", IPS2_F_COND_BROADCAST_SEQ, F_DEC)},
    [IPS2_EV_COND_WAKE] = {P("object", F_OBJECT), W("mutex", IPS2_F_COND_WAKE_MUTEX, F_OBJECT),
                           W("seq at start", IPS2_F_COND_WAKE_SEQ_AT_START, F_DEC),
                           W("seq seen", IPS2_F_COND_WAKE_SEQ_SEEN, F_DEC),
                           W("waited", IPS2_F_COND_WAKE_START, F_WAITED),
                           WF("result", IPS2_F_COND_WAKE_RESULT, F_ERRNO, ZERO)},
    [IPS2_EV_BARRIER_ARRIVE] = {P("object", F_OBJECT),
                                W("arrival", IPS2_F_BARRIER_ARRIVE_ARRIVAL, F_DEC),
                                W("parties", IPS2_F_BARRIER_ARRIVE_PARTIES, F_DEC),
                                W("episode", IPS2_F_BARRIER_ARRIVE_EPISODE, F_DEC)},
    [IPS2_EV_BARRIER_DEPART] = {P("object", F_OBJECT),
                                W("episode", IPS2_F_BARRIER_DEPART_EPISODE, F_DEC),
                                WN("serial", IPS2_F_BARRIER_DEPART_SERIAL, serial),
                                W("waited", IPS2_F_BARRIER_DEPART_START, F_WAITED),
                                WF("spun", IPS2_F_BARRIER_DEPART_CPU_START, F_SPUN, OPT)},
    [IPS2_EV_SEM_POST] = {P("object", F_OBJECT), W("post", IPS2_F_SEM_POST_POST, F_DEC)},
    [IPS2_EV_SEM_ACQUIRED] = {P("object", F_OBJECT), W("wait", IPS2_F_SEM_ACQUIRED_WAIT, F_DEC),
                              W("initial", IPS2_F_SEM_ACQUIRED_INITIAL, F_DEC),
                              WF("waited", IPS2_F_SEM_ACQUIRED_START, F_WAITED, OPT)},
    [IPS2_EV_LOCK_ACQUIRED_SHARED] = LOCK_ACQUIRED,
    [IPS2_EV_LOCK_RELEASE_SHARED] = LOCK_RELEASE,

    /* 9.2 messages and files */
    [IPS2_EV_CHAN] = {P("fd", F_DEC), WN("type", IPS2_F_CHAN_TYPE, chan_types),
                      WF("out", IPS2_F_CHAN_OUT_KEY, F_KEY, ZERO),
                      WF("in", IPS2_F_CHAN_IN_KEY, F_KEY, ZERO),
                      WF("self", IPS2_F_CHAN_SELF, F_CHAN_ENDPOINT, ZERO),
                      WF("peer", IPS2_F_CHAN_PEER, F_CHAN_ENDPOINT, ZERO)},
    [IPS2_EV_SEND] = STREAM_IO,
    [IPS2_EV_RECV] = STREAM_IO,
    [IPS2_EV_DGRAM_SEND] = {P("fd", F_DEC), W("to", IPS2_F_DGRAM_SEND_PEER, F_ENDPOINT),
                            W("key", IPS2_F_DGRAM_SEND_KEY, F_KEY),
                            W("seq", IPS2_F_DGRAM_SEND_SEQ, F_DEC),
                            W("bytes", IPS2_F_DGRAM_SEND_BYTES, F_DEC),
                            W("waited", IPS2_F_DGRAM_SEND_START, F_WAITED),
                            W("call", IPS2_F_DGRAM_SEND_CALL, F_IO_CALL),
                            WF("error", IPS2_F_DGRAM_SEND_ERRNO, F_ERRNO, ZERO)},
    [IPS2_EV_DGRAM_RECV] = {P("fd", F_DEC), W("from", IPS2_F_DGRAM_RECV_PEER, F_ENDPOINT),
                            W("key", IPS2_F_DGRAM_RECV_KEY, F_KEY),
                            W("seq", IPS2_F_DGRAM_RECV_SEQ, F_DEC),
                            W("bytes", IPS2_F_DGRAM_RECV_BYTES, F_DEC),
                            W("waited", IPS2_F_DGRAM_RECV_START, F_WAITED),
                            W("call", IPS2_F_DGRAM_RECV_CALL, F_IO_CALL),
                            WF("error", IPS2_F_DGRAM_RECV_ERRNO, F_ERRNO, ZERO)},
    [IPS2_EV_CONNECT] = {P("fd", F_DEC), W("from", IPS2_F_CONNECT_SELF, F_ENDPOINT),
                         W("to", IPS2_F_CONNECT_PEER, F_ENDPOINT),
                         W("key", IPS2_F_CONNECT_KEY, F_KEY),
                         W("waited", IPS2_F_CONNECT_START, F_WAITED),
                         WF("error", IPS2_F_CONNECT_ERRNO, F_ERRNO, ZERO)},
    [IPS2_EV_ACCEPT] = {P("fd", F_FD), W("listener", IPS2_F_ACCEPT_LISTENER, F_DEC),
                        W("from", IPS2_F_ACCEPT_PEER, F_ENDPOINT),
                        W("to", IPS2_F_ACCEPT_SELF, F_ENDPOINT), W("key", IPS2_F_ACCEPT_KEY, F_KEY),
                        W("waited", IPS2_F_ACCEPT_START, F_WAITED),
                        WF("error", IPS2_F_ACCEPT_ERRNO, F_ERRNO, ZERO)},
    [IPS2_EV_IO_WAIT] = {P("ready", F_DEC), W("nfds", IPS2_F_IO_WAIT_NFDS, F_DEC),
                         W("timeout", IPS2_F_IO_WAIT_TIMEOUT, F_TIMEOUT),
                         W("waited", IPS2_F_IO_WAIT_START, F_WAITED),
                         W("call", IPS2_F_IO_WAIT_CALL, F_IO_CALL),
                         WF("error", IPS2_F_IO_WAIT_ERRNO, F_ERRNO, ZERO)},
    [IPS2_EV_OPEN] = {P("fd", F_FD), W("", IPS2_F_OPEN_PATH, F_STRING),
                      W("flags", IPS2_F_OPEN_FLAGS, F_OPEN_FLAGS),
                      WN("type", IPS2_F_OPEN_TYPE, chan_types),
                      W("waited", IPS2_F_OPEN_START, F_WAITED),
                      WF("error", IPS2_F_OPEN_ERRNO, F_ERRNO, ZERO)},
    [IPS2_EV_CLOSE] = {P("fd", F_DEC), WN("type", IPS2_F_CLOSE_TYPE, chan_types),
                       WF("out", IPS2_F_CLOSE_OUT_KEY, F_KEY, ZERO),
                       W("waited", IPS2_F_CLOSE_START, F_WAITED),
                       WF("error", IPS2_F_CLOSE_ERRNO, F_ERRNO, ZERO)},
    [IPS2_EV_FILE_READ] = FILE_IO,
    [IPS2_EV_FILE_WRITE] = FILE_IO,
    [IPS2_EV_FILE_SEEK] = {P("fd", F_DEC), W("offset", IPS2_F_FILE_SEEK_OFFSET, F_I64),
                           WN("whence", IPS2_F_FILE_SEEK_WHENCE, whence),
                           W("to", IPS2_F_FILE_SEEK_NEW_OFFSET, F_RESULT_OFFSET),
                           W("waited", IPS2_F_FILE_SEEK_START, F_WAITED),
                           WF("error", IPS2_F_FILE_SEEK_ERRNO, F_ERRNO, ZERO)},
    [IPS2_EV_FILE_SYNC] = {P("fd", F_DEC), W("call", IPS2_F_FILE_SYNC_CALL, F_IO_CALL),
                           W("waited", IPS2_F_FILE_SYNC_START, F_WAITED),
                           WF("error", IPS2_F_FILE_SYNC_ERRNO, F_ERRNO, ZERO)},
    [IPS2_EV_SHUTDOWN] = {P("fd", F_DEC), WN("how", IPS2_F_SHUTDOWN_HOW, shut_how),
                          WF("out", IPS2_F_SHUTDOWN_OUT_KEY, F_KEY, ZERO),
                          WF("error", IPS2_F_SHUTDOWN_ERRNO, F_ERRNO, ZERO)},

    /* 9.3 processes and PVM */
    [IPS2_EV_SPAWN] = {P("pid", F_DEC), W("", IPS2_F_SPAWN_COMMAND, F_STRING),
                       WN("call", IPS2_F_SPAWN_HOW, spawn_how),
                       W("waited", IPS2_F_SPAWN_START, F_WAITED),
                       WF("error", IPS2_F_SPAWN_ERROR, F_ERRNO, ZERO)},
    [IPS2_EV_VFORK] = {P("pid", F_DEC), W("waited", IPS2_F_VFORK_START, F_WAITED),
                       WF("error", IPS2_F_VFORK_ERROR, F_ERRNO, ZERO)},
    [IPS2_EV_WAIT] = {P("pid", F_DEC), WF("", IPS2_F_WAIT_STATUS, F_WAIT_STATUS, IFP),
                      W("waited", IPS2_F_WAIT_START, F_WAITED),
                      WN("call", IPS2_F_WAIT_CALL, wait_call),
                      WF("options", IPS2_F_WAIT_OPTIONS, F_WAIT_OPTIONS, ZERO),
                      WF("error", IPS2_F_WAIT_ERROR, F_ERRNO, ZERO)},
    [IPS2_EV_PVM_TASK] = {P("tid", F_TID), W("parent", IPS2_F_PVM_TASK_PARENT, F_TID)},
    [IPS2_EV_PVM_SEND] = {P("to", F_TID), W("tag", IPS2_F_PVM_SEND_TAG, F_I32),
                          W("ctx", IPS2_F_PVM_SEND_CONTEXT, F_I32),
                          W("seq", IPS2_F_PVM_SEND_SEQ, F_DEC),
                          W("bytes", IPS2_F_PVM_SEND_BYTES, F_DEC),
                          W("from", IPS2_F_PVM_SEND_SENDER, F_TID),
                          WN("call", IPS2_F_PVM_SEND_HOW, pvm_send_how),
                          WF("error", IPS2_F_PVM_SEND_ERROR, F_PVMERR, ZERO)},
    [IPS2_EV_PVM_RECV] = {P("from", F_TID), W("tag", IPS2_F_PVM_RECV_TAG, F_I32),
                          W("ctx", IPS2_F_PVM_RECV_CONTEXT, F_I32),
                          W("seq", IPS2_F_PVM_RECV_SEQ, F_DEC),
                          W("bytes", IPS2_F_PVM_RECV_BYTES, F_DEC),
                          W("to", IPS2_F_PVM_RECV_RECEIVER, F_TID),
                          W("waited", IPS2_F_PVM_RECV_START, F_WAITED),
                          WN("call", IPS2_F_PVM_RECV_HOW, pvm_recv_how),
                          WF("error", IPS2_F_PVM_RECV_ERROR, F_PVMERR, ZERO)},
    [IPS2_EV_PVM_PROBE] = {P("from", F_TID), W("tag", IPS2_F_PVM_PROBE_TAG, F_I32),
                           W("ctx", IPS2_F_PVM_PROBE_CONTEXT, F_I32),
                           W("seq", IPS2_F_PVM_PROBE_SEQ, F_DEC),
                           W("bytes", IPS2_F_PVM_PROBE_BYTES, F_DEC),
                           W("to", IPS2_F_PVM_PROBE_RECEIVER, F_TID)},
    [IPS2_EV_PVM_SPAWN] = {P("tid", F_TID), W("", IPS2_F_PVM_SPAWN_PROGRAM, F_STRING),
                           W("task", IPS2_F_PVM_SPAWN_INDEX, F_DEC),
                           W("of", IPS2_F_PVM_SPAWN_NTASK, F_DEC),
                           W("by", IPS2_F_PVM_SPAWN_TID, F_TID),
                           W("waited", IPS2_F_PVM_SPAWN_START, F_WAITED),
                           WF("error", IPS2_F_PVM_SPAWN_ERROR, F_PVMERR, ZERO)},
    [IPS2_EV_PVM_EXIT] = {P("tid", F_TID), WF("error", IPS2_F_PVM_EXIT_ERROR, F_PVMERR, ZERO)},
    [IPS2_EV_PVM_BARRIER] = {W("group", IPS2_F_PVM_BARRIER_GROUP, F_STRING),
                             P("count", F_PVM_COUNT),
                             W("episode", IPS2_F_PVM_BARRIER_EPISODE, F_DEC),
                             W("tid", IPS2_F_PVM_BARRIER_TID, F_TID),
                             W("waited", IPS2_F_PVM_BARRIER_START, F_WAITED),
                             WF("error", IPS2_F_PVM_BARRIER_ERROR, F_PVMERR, ZERO)},
    [IPS2_EV_PVM_GROUP] = {WN("", IPS2_F_PVM_GROUP_JOINED, group_op),
                           W("group", IPS2_F_PVM_GROUP_GROUP, F_STRING), P("instance", F_DEC),
                           W("tid", IPS2_F_PVM_GROUP_TID, F_TID),
                           WF("error", IPS2_F_PVM_GROUP_ERROR, F_PVMERR, ZERO)},
};

/* ------------------------------------------------------------------ */
/* Value formats                                                       */

static void put_escaped(FILE *out, const char *s, size_t max, bool quote)
{
    for (size_t i = 0; i < max && s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\\')
            fputs("\\\\", out);
        else if (c == '\t')
            fputs("\\t", out);
        else if (c == '\n')
            fputs("\\n", out);
        else if (c == '"' && quote)
            fputs("\\\"", out);
        else if (c < 0x20 || c >= 0x7f)
            fprintf(out, "\\x%02x", c);
        else
            fputc(c, out);
    }
}

void ips2_dump_escaped(FILE *out, const char *s, size_t max)
{
    put_escaped(out, s, max, false);
}

static void put_name(FILE *out, const struct names *names, uint64_t v)
{
    if (names && v < names->n)
        fputs(names->v[v], out);
    else
        fprintf(out, "%" PRIu64, v);
}

static void put_errno(FILE *out, uint64_t e)
{
    const char *name = e > 0 && e < 4096 ? strerrorname_np((int)e) : NULL;
    if (name)
        fprintf(out, "%s (%" PRIu64 ")", name, e);
    else
        fprintf(out, "%" PRIu64, e);
}

static void put_signal(FILE *out, uint64_t sig)
{
    const char *abbrev = sig > 0 && sig < 1024 ? sigabbrev_np((int)sig) : NULL;
    if (abbrev)
        fprintf(out, "SIG%s (%" PRIu64 ")", abbrev, sig);
    else
        fprintf(out, "signal %" PRIu64, sig);
}

/* A duration in ns with a unit that keeps 3-4 significant digits. */
static void put_duration(FILE *out, uint64_t ns)
{
    if (ns < 1000)
        fprintf(out, "%" PRIu64 " ns", ns);
    else if (ns < 1000000)
        fprintf(out, "%.1f us", (double)ns / 1e3);
    else if (ns < 1000000000)
        fprintf(out, "%.1f ms", (double)ns / 1e6);
    else
        fprintf(out, "%.3f s", (double)ns / 1e9);
}

/* The time from a start timer to the event, through the stream's clock. */
static void put_waited(FILE *out, const struct ips2_event *ev, const struct ips2_file_header *h,
                       uint64_t start)
{
    if (start > ev->timer) {
        fprintf(out, "? (start timer %" PRIu64 " after the event's %" PRIu64 ")", start, ev->timer);
        return;
    }
    uint64_t ticks = ev->timer - start;
    if (h->timer == IPS2_TIMER_TSC && h->tsc_hz)
        ticks = (uint64_t)((unsigned __int128)ticks * 1000000000u / h->tsc_hz);
    put_duration(out, ticks);
}

static void put_object(FILE *out, uint64_t key)
{
    if (key & IPS2_SYNC_KEY_SHARED)
        fprintf(out, "shared#%" PRIu64, (uint64_t)(key & ~IPS2_SYNC_KEY_SHARED));
    else
        fprintf(out, "0x%" PRIx64, key);
}

/* An endpoint of 3 words (FORMAT.md 9.2 "Endpoints"). */
static void put_endpoint(FILE *out, const uint64_t *w)
{
    unsigned family = (unsigned)(w[0] & 0xffff), form = (unsigned)((w[0] >> 16) & 0xffff);
    unsigned port = (unsigned)((w[0] >> 32) & 0xffff);

    if (!w[0] && !w[1] && !w[2]) {
        fputs("unknown", out);
    } else if (family == AF_INET6) {
        if (w[1] == 0 && (w[2] >> 32) == 0xffff) {
            uint32_t a = (uint32_t)w[2];
            fprintf(out, "%u.%u.%u.%u:%u", a >> 24, (a >> 16) & 0xff, (a >> 8) & 0xff, a & 0xff,
                    port);
        } else {
            unsigned char bytes[16];
            char text[INET6_ADDRSTRLEN];
            for (int i = 0; i < 8; i++) {
                bytes[i] = (unsigned char)(w[1] >> (56 - 8 * i));
                bytes[8 + i] = (unsigned char)(w[2] >> (56 - 8 * i));
            }
            if (inet_ntop(AF_INET6, bytes, text, sizeof(text)))
                fprintf(out, "[%s]:%u", text, port);
            else
                fprintf(out, "[?]:%u", port);
        }
    } else if (family == AF_UNIX && form == 0) {
        fprintf(out, "unix inode %" PRIu64, w[1]);
    } else if (family == AF_UNIX && form == 1) {
        if (w[1])
            fprintf(out, "unix name %016" PRIx64, w[1]);
        else
            fputs("unix unnamed", out);
    } else if (family == AF_UNIX && form == 2) {
        fprintf(out, "unix accepted for inode %" PRIu64, w[1]);
    } else {
        fprintf(out, "family %u form %u 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64, family, form, w[0],
                w[1], w[2]);
    }
}

static void put_open_flags(FILE *out, uint64_t f)
{
    static const struct {
        uint64_t mask;
        const char *name;
    } bits[] = {
        {O_TMPFILE, "O_TMPFILE"},     {O_SYNC, "O_SYNC"},         {O_DSYNC, "O_DSYNC"},
        {O_CREAT, "O_CREAT"},         {O_EXCL, "O_EXCL"},         {O_NOCTTY, "O_NOCTTY"},
        {O_TRUNC, "O_TRUNC"},         {O_APPEND, "O_APPEND"},     {O_NONBLOCK, "O_NONBLOCK"},
        {O_DIRECTORY, "O_DIRECTORY"}, {O_NOFOLLOW, "O_NOFOLLOW"}, {O_CLOEXEC, "O_CLOEXEC"},
        {O_DIRECT, "O_DIRECT"},       {O_NOATIME, "O_NOATIME"},   {O_PATH, "O_PATH"},
        {O_ASYNC, "O_ASYNC"},
    };
    static const char *const modes[] = {"O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE"};

    fputs(modes[f & O_ACCMODE], out);
    f &= ~(uint64_t)O_ACCMODE;
    for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
        if ((f & bits[i].mask) == bits[i].mask) {
            fprintf(out, "|%s", bits[i].name);
            f &= ~bits[i].mask;
        }
    }
    if (f)
        fprintf(out, "|0x%" PRIx64, f);
}

static void put_wait_status(FILE *out, uint64_t s64)
{
    int s = (int)(uint32_t)s64;
    if (WIFEXITED(s)) {
        fprintf(out, "exited %d", WEXITSTATUS(s));
    } else if (WIFSIGNALED(s)) {
        fputs("killed ", out);
        put_signal(out, (uint64_t)WTERMSIG(s));
        if (WCOREDUMP(s))
            fputs(" core dumped", out);
    } else if (WIFSTOPPED(s)) {
        fputs("stopped ", out);
        put_signal(out, (uint64_t)WSTOPSIG(s));
    } else if (WIFCONTINUED(s)) {
        fputs("continued", out);
    } else {
        fprintf(out, "status 0x%x", (unsigned)s);
    }
}

static void put_wait_options(FILE *out, uint64_t o)
{
    static const struct {
        uint64_t bit;
        const char *name;
    } bits[] = {{WNOHANG, "WNOHANG"},
                {WUNTRACED, "WUNTRACED"},
                {WEXITED, "WEXITED"},
                {WCONTINUED, "WCONTINUED"},
                {WNOWAIT, "WNOWAIT"}};
    const char *sep = "";
    for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
        if (o & bits[i].bit) {
            fprintf(out, "%s%s", sep, bits[i].name);
            sep = "|";
            o &= ~bits[i].bit;
        }
    }
    if (o)
        fprintf(out, "%s0x%" PRIx64, sep, o);
}

/* ------------------------------------------------------------------ */
/* Fields                                                              */

/* Words a format takes. */
static unsigned fmt_words(unsigned fmt)
{
    return fmt == F_ENDPOINT || fmt == F_CHAN_ENDPOINT ? 3 : fmt == F_RANGE ? 2 : 1;
}

/* True when the field has nothing to say and its ZERO flag drops it. */
static bool is_zero(const struct ips2_event *ev, const struct field *f, const uint64_t *w)
{
    if (f->fmt == F_STRING)
        return (char)ev->extra[f->word] == '\0';
    for (unsigned i = 0; i < fmt_words(f->fmt); i++)
        if (w[i])
            return false;
    return true;
}

static void put_value(FILE *out, const struct ips2_event *ev, const struct ips2_file_header *h,
                      const struct field *f, const uint64_t *w)
{
    char buf[IPS2_PATH_MAX + 64];
    uint64_t v = w[0];

    switch (f->fmt) {
    case F_DEC:
        fprintf(out, "%" PRIu64, v);
        break;
    case F_HEX:
        fprintf(out, "0x%" PRIx64, v);
        break;
    case F_I32:
        fprintf(out, "%" PRId32, (int32_t)(uint32_t)v);
        break;
    case F_I64:
        fprintf(out, "%" PRId64, (int64_t)v);
        break;
    case F_KEY:
        if (v)
            fprintf(out, "%016" PRIx64, v);
        else
            fputs("none", out);
        break;
    case F_OBJECT:
        put_object(out, v);
        break;
    case F_DEVNUM:
        fprintf(out, "%" PRIu64 ":%" PRIu64, v >> 32, v & 0xffffffffu);
        break;
    case F_ERRNO:
        put_errno(out, v);
        break;
    case F_PVMERR:
        if (v < pvm_errors.n)
            fprintf(out, "%s (-%" PRIu64 ")", pvm_errors.v[v], v);
        else
            fprintf(out, "-%" PRIu64, v);
        break;
    case F_WAITED:
        put_waited(out, ev, h, v);
        break;
    case F_SPUN:
        if (v > ev->cpu_ns)
            fprintf(out, "? (CPU %" PRIu64 " ns at the start, %" PRIu64 " at the event)", v,
                    ev->cpu_ns);
        else
            put_duration(out, ev->cpu_ns - v);
        break;
    case F_IO_CALL:
        put_name(out, &io_calls, v & ~(uint64_t)(IPS2_IO_PEEK | IPS2_IO_PENDING));
        if (v & IPS2_IO_PEEK)
            fputs(" peek", out);
        if (v & IPS2_IO_PENDING)
            fputs(" pending", out);
        break;
    case F_NAME:
        put_name(out, f->names, v);
        break;
    case F_CHAN_ENDPOINT:
        if (ev->nextra > IPS2_F_CHAN_TYPE && (ev->extra[IPS2_F_CHAN_TYPE] == IPS2_CHAN_PIPE ||
                                              ev->extra[IPS2_F_CHAN_TYPE] == IPS2_CHAN_FIFO)) {
            fprintf(out, "pipe dev %u:%u ino %" PRIu64, major((dev_t)w[0]), minor((dev_t)w[0]),
                    w[1]);
            break;
        }
        /* fall through */
    case F_ENDPOINT:
        put_endpoint(out, w);
        break;
    case F_STRING:
        ips2_event_string(ev, (unsigned)f->word, buf, sizeof(buf));
        fputc('"', out);
        put_escaped(out, buf, sizeof(buf), true);
        fputc('"', out);
        break;
    case F_RANGE:
        fprintf(out, "[%" PRIu64 ",%" PRIu64 ")", w[0], w[0] + w[1]);
        break;
    case F_FD:
        if (v == IPS2_PAYLOAD_MASK)
            fputs("-1", out);
        else
            fprintf(out, "%" PRIu64, v);
        break;
    case F_OFFSET:
    case F_RESULT_OFFSET:
        if (v == UINT64_MAX)
            fputs(f->fmt == F_OFFSET ? "unknown" : "failed", out);
        else
            fprintf(out, "%" PRIu64, v);
        break;
    case F_TIMEOUT:
        if (v == UINT64_MAX)
            fputs("none", out);
        else
            fprintf(out, "%" PRIu64 " ms", v);
        break;
    case F_WAIT_STATUS:
        put_wait_status(out, v);
        break;
    case F_WAIT_OPTIONS:
        put_wait_options(out, v);
        break;
    case F_OPEN_FLAGS:
        put_open_flags(out, v);
        break;
    case F_TID:
        if (v)
            fprintf(out, "t%" PRIx64, v);
        else
            fputs("none", out);
        break;
    case F_PVM_COUNT:
        if (v)
            fprintf(out, "%" PRIu64, v);
        else
            fputs("all", out);
        break;
    case F_EXIT_STATUS:
        if (ev->payload == IPS2_EXIT_SIGNAL)
            put_signal(out, v);
        else
            fprintf(out, "status %" PRIu64, v);
        break;
    case F_SIGNAL:
        put_signal(out, v);
        break;
    default:
        fprintf(out, "0x%" PRIx64, v);
    }
}

bool ips2_dump_fields(FILE *out, const struct ips2_event *ev, const struct ips2_file_header *h)
{
    const struct field *list = ev->kind <= IPS2_EV_KIND_MAX ? fields[ev->kind] : NULL;
    bool first = true;

    if (!list || list[0].fmt == F_END)
        return false;
    for (const struct field *f = list; f < list + MAXF && f->fmt != F_END; f++) {
        uint64_t w[3] = {0, 0, 0};
        bool have;

        if (f->word == PAYLOAD) {
            w[0] = ev->payload;
            have = true;
        } else {
            have = (unsigned)f->word + fmt_words(f->fmt) <= ev->nextra;
            if (have)
                memcpy(w, ev->extra + f->word, fmt_words(f->fmt) * sizeof(uint64_t));
        }
        if ((!have && (f->flags & OPT)) || (have && (f->flags & ZERO) && is_zero(ev, f, w)) ||
            ((f->flags & IFP) && ev->payload == 0))
            continue;
        if (!first)
            fputc(' ', out);
        first = false;
        if (f->label[0])
            fprintf(out, "%s ", f->label);
        if (have)
            put_value(out, ev, h, f, w);
        else
            fputc('?', out);
    }
    return true;
}

bool ips2_dump_words(unsigned kind, uint64_t *words, bool *payload)
{
    const struct field *list = kind <= IPS2_EV_KIND_MAX ? fields[kind] : NULL;

    *words = 0;
    *payload = false;
    if (!list || list[0].fmt == F_END)
        return false;
    for (const struct field *f = list; f < list + MAXF && f->fmt != F_END; f++) {
        if (f->word == PAYLOAD)
            *payload = true;
        else
            for (unsigned i = 0; i < fmt_words(f->fmt); i++)
                *words |= 1ull << (f->word + i);
    }
    return true;
}
