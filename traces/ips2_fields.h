/*
 * ips2_fields.h - the one table of what each event kind's payload and extra
 * words are: their names, where they lie and what role they play.
 *
 * The table is an X-macro list (IPS2_KIND_FIELDS below): one row per event
 * kind that readers return, naming its payload and its extra words in
 * order.  From it come
 *
 *   - named word indices, IPS2_F_<KIND>_<FIELD> (IPS2_F_SEND_BYTES is 2):
 *     code that knows the kind reads ev->extra[IPS2_F_SEND_BYTES];
 *   - a lookup (kinds.c): a kind's fields with names and roles, and the
 *     word of the field that plays a role in a kind (generic code: "the
 *     call's start timer, wherever this kind keeps it").
 *
 * FORMAT.md sections 5 and 9 describe the same words in prose, naming each
 * one as `name`; tests/unit/test_fields.c checks the two agree.  A field is
 * one word, or three (an endpoint), or the words from there on (a string,
 * always last).  Readers pass on extra words beyond the table's, and
 * events may lack trailing words (the ones that exist only when a call
 * waited), so code checks ev->nextra before it reads a word.
 */
#ifndef IPS2_FIELDS_H
#define IPS2_FIELDS_H

#include <stdint.h>

#include "ips2_format.h"

/* What a word means to generic code (FORMAT.md has the details). */
enum ips2_field_role {
    IPS2_ROLE_VALUE = 0, /* a number whose meaning its name gives */
    IPS2_ROLE_START,     /* timer value when the call began: [start, event] is the call */
    IPS2_ROLE_CPU_START, /* thread CPU ns when the wait began (spinning waits) */
    IPS2_ROLE_ERROR,     /* 0, or the errno (PVM kinds: the PVM error code negated) */
    IPS2_ROLE_BYTES,     /* bytes moved */
    IPS2_ROLE_CALL,      /* which call made the event (ips2_io_call, ips2_wait_call, ...) */
    IPS2_ROLE_HOW,       /* how a process or thread began or ended, how a socket shut */
    IPS2_ROLE_KEY,       /* a channel's pairing key */
    IPS2_ROLE_OFFSET,    /* where the bytes lie in their stream or file */
    IPS2_ROLE_SEQ,       /* the sequence number that pairs the event */
    IPS2_ROLE_OBJECT,    /* a synchronisation object's key */
    IPS2_ROLE_TYPE,      /* an object's or a descriptor's type */
    IPS2_ROLE_SELF,      /* this end's endpoint (3 words) */
    IPS2_ROLE_PEER,      /* the other end's endpoint (3 words) */
    IPS2_ROLE_FD,        /* a file descriptor */
    IPS2_ROLE_PID,       /* a process id */
    IPS2_ROLE_TID,       /* a thread id */
    IPS2_ROLE_TASK,      /* a PVM task id */
    IPS2_ROLE_ADDRESS,   /* an address in the process */
    IPS2_ROLE_STATUS,    /* an exit status or a wait status */
    IPS2_ROLE_TIME,      /* CLOCK_MONOTONIC ns */
    IPS2_ROLE_STRING,    /* a NUL-padded string in the words from here on */
    IPS2_ROLE_COUNT
};

/*
 * The fields of a kind: X(kind, FIELD, "field", first word, words, ROLE)
 * each; words 0 is a string to the end.  Kinds that share a layout share a
 * list.  Names are FIELD in lower case.
 */
#define IPS2_FIELDS_NONE(X, k)
#define IPS2_FIELDS_SYNC(X, k)                                                                     \
    X(k, MONO_NS, "mono_ns", 0, 1, TIME) X(k, COUNTED, "counted", 1, 1, VALUE)
#define IPS2_FIELDS_PROC_START(X, k) X(k, PPID, "ppid", 0, 1, PID)
#define IPS2_FIELDS_PROC_EXIT(X, k)  X(k, STATUS, "status", 0, 1, STATUS)
#define IPS2_FIELDS_THREAD_START(X, k)                                                             \
    X(k, CREATE_SEQ, "create_seq", 0, 1, SEQ)                                                      \
    X(k, PTHREAD, "pthread", 1, 1, VALUE)
#define IPS2_FIELDS_JOIN_END(X, k) X(k, RESULT, "result", 0, 1, ERROR)
#define IPS2_FIELDS_EXEC(X, k)     X(k, PATH, "path", 0, 0, STRING)
#define IPS2_FIELDS_LOST(X, k)                                                                     \
    X(k, ERRNO, "errno", 0, 1, ERROR)                                                              \
    X(k, TID, "tid", 1, 1, TID)
#define IPS2_FIELDS_MODULE(X, k)                                                                   \
    X(k, START, "start", 0, 1, ADDRESS)                                                            \
    X(k, END, "end", 1, 1, ADDRESS)                                                                \
    X(k, PATH, "path", 2, 0, STRING)

/* 9.1 synchronisation: the payload is the object key */
#define IPS2_FIELDS_SYNC_OBJECT(X, k)                                                              \
    X(k, TYPE, "type", 0, 1, TYPE)                                                                 \
    X(k, ADDRESS, "address", 1, 1, ADDRESS)                                                        \
    X(k, DEV, "dev", 2, 1, VALUE)                                                                  \
    X(k, INODE, "inode", 3, 1, VALUE)                                                              \
    X(k, OFFSET, "offset", 4, 1, VALUE)                                                            \
    X(k, NAME, "name", 5, 0, STRING)
#define IPS2_FIELDS_SYNC_INIT(X, k)                                                                \
    X(k, TYPE, "type", 0, 1, TYPE)                                                                 \
    X(k, VALUE, "value", 1, 1, VALUE)                                                              \
    X(k, ATTRIBUTES, "attributes", 2, 1, VALUE)                                                    \
    X(k, RESULT, "result", 3, 1, ERROR)
#define IPS2_FIELDS_SYNC_DESTROY(X, k)                                                             \
    X(k, TYPE, "type", 0, 1, TYPE)                                                                 \
    X(k, RESULT, "result", 1, 1, ERROR)
#define IPS2_FIELDS_LOCK_ACQUIRED(X, k)                                                            \
    X(k, SEQ, "seq", 0, 1, SEQ)                                                                    \
    X(k, START, "start", 1, 1, START)                                                              \
    X(k, CPU_START, "cpu_start", 2, 1, CPU_START)
#define IPS2_FIELDS_LOCK_RELEASE(X, k) X(k, SEQ, "seq", 0, 1, SEQ)
#define IPS2_FIELDS_LOCK_COUNTED(X, k)                                                             \
    X(k, ACQUIRED, "acquired", 0, 1, VALUE)                                                        \
    X(k, RELEASED, "released", 1, 1, VALUE)
#define IPS2_FIELDS_SYNC_FAILED(X, k)                                                              \
    X(k, TYPE, "type", 0, 1, TYPE)                                                                 \
    X(k, ERROR, "error", 1, 1, ERROR)                                                              \
    X(k, START, "start", 2, 1, START)
#define IPS2_FIELDS_COND_SIGNAL(X, k) X(k, SEQ, "seq", 0, 1, SEQ)
#define IPS2_FIELDS_COND_WAKE(X, k)                                                                \
    X(k, MUTEX, "mutex", 0, 1, OBJECT)                                                             \
    X(k, SEQ_AT_START, "seq_at_start", 1, 1, VALUE)                                                \
    X(k, SEQ_SEEN, "seq_seen", 2, 1, SEQ)                                                          \
    X(k, START, "start", 3, 1, START)                                                              \
    X(k, RESULT, "result", 4, 1, ERROR)
#define IPS2_FIELDS_BARRIER_ARRIVE(X, k)                                                           \
    X(k, ARRIVAL, "arrival", 0, 1, SEQ)                                                            \
    X(k, PARTIES, "parties", 1, 1, VALUE)                                                          \
    X(k, EPISODE, "episode", 2, 1, VALUE)
#define IPS2_FIELDS_BARRIER_DEPART(X, k)                                                           \
    X(k, EPISODE, "episode", 0, 1, SEQ)                                                            \
    X(k, SERIAL, "serial", 1, 1, VALUE)                                                            \
    X(k, START, "start", 2, 1, START)                                                              \
    X(k, CPU_START, "cpu_start", 3, 1, CPU_START)
#define IPS2_FIELDS_SEM_POST(X, k) X(k, POST, "post", 0, 1, SEQ)
#define IPS2_FIELDS_SEM_ACQUIRED(X, k)                                                             \
    X(k, WAIT, "wait", 0, 1, SEQ)                                                                  \
    X(k, INITIAL, "initial", 1, 1, VALUE)                                                          \
    X(k, START, "start", 2, 1, START)

/* 9.2 messages and files: the payload is a descriptor (io-wait: a count) */
#define IPS2_FIELDS_CHAN(X, k)                                                                     \
    X(k, TYPE, "type", 0, 1, TYPE)                                                                 \
    X(k, OUT_KEY, "out_key", 1, 1, KEY)                                                            \
    X(k, IN_KEY, "in_key", 2, 1, KEY)                                                              \
    X(k, SELF, "self", 3, 3, SELF)                                                                 \
    X(k, PEER, "peer", 6, 3, PEER)
/* send and dgram-send are written when the call begins (call has
 * IPS2_IO_PENDING, start = the record's own time, bytes = those asked for)
 * and rewritten in place when it returns (FORMAT.md 9.2). */
#define IPS2_FIELDS_STREAM_IO(X, k)                                                                \
    X(k, KEY, "key", 0, 1, KEY)                                                                    \
    X(k, OFFSET, "offset", 1, 1, OFFSET)                                                           \
    X(k, BYTES, "bytes", 2, 1, BYTES)                                                              \
    X(k, ERRNO, "errno", 3, 1, ERROR)                                                              \
    X(k, START, "start", 4, 1, START)                                                              \
    X(k, CALL, "call", 5, 1, CALL)
#define IPS2_FIELDS_DGRAM(X, k)                                                                    \
    X(k, KEY, "key", 0, 1, KEY)                                                                    \
    X(k, SEQ, "seq", 1, 1, SEQ)                                                                    \
    X(k, BYTES, "bytes", 2, 1, BYTES)                                                              \
    X(k, ERRNO, "errno", 3, 1, ERROR)                                                              \
    X(k, START, "start", 4, 1, START)                                                              \
    X(k, CALL, "call", 5, 1, CALL)                                                                 \
    X(k, PEER, "peer", 6, 3, PEER)
#define IPS2_FIELDS_CONNECT(X, k)                                                                  \
    X(k, KEY, "key", 0, 1, KEY)                                                                    \
    X(k, ERRNO, "errno", 1, 1, ERROR)                                                              \
    X(k, START, "start", 2, 1, START)                                                              \
    X(k, SELF, "self", 3, 3, SELF)                                                                 \
    X(k, PEER, "peer", 6, 3, PEER)
#define IPS2_FIELDS_ACCEPT(X, k)                                                                   \
    IPS2_FIELDS_CONNECT(X, k)                                                                      \
    X(k, LISTENER, "listener", 9, 1, FD)
#define IPS2_FIELDS_IO_WAIT(X, k)                                                                  \
    X(k, CALL, "call", 0, 1, CALL)                                                                 \
    X(k, ERRNO, "errno", 1, 1, ERROR)                                                              \
    X(k, START, "start", 2, 1, START)                                                              \
    X(k, NFDS, "nfds", 3, 1, VALUE)                                                                \
    X(k, TIMEOUT, "timeout", 4, 1, VALUE)
#define IPS2_FIELDS_OPEN(X, k)                                                                     \
    X(k, ERRNO, "errno", 0, 1, ERROR)                                                              \
    X(k, FLAGS, "flags", 1, 1, VALUE)                                                              \
    X(k, START, "start", 2, 1, START)                                                              \
    X(k, TYPE, "type", 3, 1, TYPE)                                                                 \
    X(k, PATH, "path", 4, 0, STRING)
#define IPS2_FIELDS_CLOSE(X, k)                                                                    \
    X(k, ERRNO, "errno", 0, 1, ERROR)                                                              \
    X(k, START, "start", 1, 1, START)                                                              \
    X(k, TYPE, "type", 2, 1, TYPE)                                                                 \
    X(k, OUT_KEY, "out_key", 3, 1, KEY)
#define IPS2_FIELDS_FILE_IO(X, k)                                                                  \
    X(k, OFFSET, "offset", 0, 1, OFFSET)                                                           \
    X(k, BYTES, "bytes", 1, 1, BYTES)                                                              \
    X(k, ERRNO, "errno", 2, 1, ERROR)                                                              \
    X(k, START, "start", 3, 1, START)                                                              \
    X(k, CALL, "call", 4, 1, CALL)                                                                 \
    X(k, TYPE, "type", 5, 1, TYPE)
#define IPS2_FIELDS_FILE_SEEK(X, k)                                                                \
    X(k, OFFSET, "offset", 0, 1, VALUE)                                                            \
    X(k, WHENCE, "whence", 1, 1, VALUE)                                                            \
    X(k, NEW_OFFSET, "new_offset", 2, 1, OFFSET)                                                   \
    X(k, ERRNO, "errno", 3, 1, ERROR)                                                              \
    X(k, START, "start", 4, 1, START)
#define IPS2_FIELDS_FILE_SYNC(X, k)                                                                \
    X(k, CALL, "call", 0, 1, CALL)                                                                 \
    X(k, ERRNO, "errno", 1, 1, ERROR)                                                              \
    X(k, START, "start", 2, 1, START)
#define IPS2_FIELDS_SHUTDOWN(X, k)                                                                 \
    X(k, HOW, "how", 0, 1, HOW)                                                                    \
    X(k, ERRNO, "errno", 1, 1, ERROR)                                                              \
    X(k, OUT_KEY, "out_key", 2, 1, KEY)

/* 9.3 processes and PVM */
#define IPS2_FIELDS_SPAWN(X, k)                                                                    \
    X(k, HOW, "how", 0, 1, CALL)                                                                   \
    X(k, ERROR, "error", 1, 1, ERROR)                                                              \
    X(k, START, "start", 2, 1, START)                                                              \
    X(k, COMMAND, "command", 3, 0, STRING)
#define IPS2_FIELDS_VFORK(X, k)                                                                    \
    X(k, ERROR, "error", 0, 1, ERROR)                                                              \
    X(k, START, "start", 1, 1, START)
#define IPS2_FIELDS_WAIT(X, k)                                                                     \
    X(k, STATUS, "status", 0, 1, STATUS)                                                           \
    X(k, START, "start", 1, 1, START)                                                              \
    X(k, CALL, "call", 2, 1, CALL)                                                                 \
    X(k, OPTIONS, "options", 3, 1, VALUE)                                                          \
    X(k, ERROR, "error", 4, 1, ERROR)
#define IPS2_FIELDS_PVM_TASK(X, k) X(k, PARENT, "parent", 0, 1, TASK)
#define IPS2_FIELDS_PVM_MESSAGE(X, k)                                                              \
    X(k, TAG, "tag", 0, 1, VALUE)                                                                  \
    X(k, CONTEXT, "context", 1, 1, VALUE)                                                          \
    X(k, SEQ, "seq", 2, 1, SEQ)                                                                    \
    X(k, BYTES, "bytes", 3, 1, BYTES)
#define IPS2_FIELDS_PVM_SEND(X, k)                                                                 \
    IPS2_FIELDS_PVM_MESSAGE(X, k)                                                                  \
    X(k, SENDER, "sender", 4, 1, TASK)                                                             \
    X(k, HOW, "how", 5, 1, CALL)                                                                   \
    X(k, ERROR, "error", 6, 1, ERROR)
#define IPS2_FIELDS_PVM_PROBE(X, k)                                                                \
    IPS2_FIELDS_PVM_MESSAGE(X, k)                                                                  \
    X(k, RECEIVER, "receiver", 4, 1, TASK)
#define IPS2_FIELDS_PVM_RECV(X, k)                                                                 \
    IPS2_FIELDS_PVM_PROBE(X, k)                                                                    \
    X(k, HOW, "how", 5, 1, CALL)                                                                   \
    X(k, ERROR, "error", 6, 1, ERROR)                                                              \
    X(k, START, "start", 7, 1, START)
#define IPS2_FIELDS_PVM_SPAWN(X, k)                                                                \
    X(k, TID, "tid", 0, 1, TASK)                                                                   \
    X(k, ERROR, "error", 1, 1, ERROR)                                                              \
    X(k, START, "start", 2, 1, START)                                                              \
    X(k, INDEX, "index", 3, 1, VALUE)                                                              \
    X(k, NTASK, "ntask", 4, 1, VALUE)                                                              \
    X(k, PROGRAM, "program", 5, 0, STRING)
#define IPS2_FIELDS_PVM_EXIT(X, k) X(k, ERROR, "error", 0, 1, ERROR)
#define IPS2_FIELDS_PVM_BARRIER(X, k)                                                              \
    X(k, TID, "tid", 0, 1, TASK)                                                                   \
    X(k, EPISODE, "episode", 1, 1, SEQ)                                                            \
    X(k, ERROR, "error", 2, 1, ERROR)                                                              \
    X(k, START, "start", 3, 1, START)                                                              \
    X(k, GROUP, "group", 4, 0, STRING)
#define IPS2_FIELDS_PVM_GROUP(X, k)                                                                \
    X(k, TID, "tid", 0, 1, TASK)                                                                   \
    X(k, JOINED, "joined", 1, 1, VALUE)                                                            \
    X(k, ERROR, "error", 2, 1, ERROR)                                                              \
    X(k, GROUP, "group", 3, 0, STRING)
#define IPS2_FIELDS_CALLS(X, k) X(k, COUNT, "count", 0, 1, VALUE)

/*
 * The kinds: K(KIND, "payload", PAYLOAD_ROLE, list of its extra words), in
 * the order of enum ips2_kind.  The payload name is NULL when the payload
 * is always 0.  The raw-only kinds (NONE, PAD and the short records) are
 * not events and have no row.
 */
#define IPS2_KIND_FIELDS(K)                                                                        \
    K(SYNC, NULL, VALUE, IPS2_FIELDS_SYNC)                                                         \
    K(ENTER, "address", ADDRESS, IPS2_FIELDS_NONE)                                                 \
    K(EXIT, "address", ADDRESS, IPS2_FIELDS_NONE)                                                  \
    K(PROC_START, "how", HOW, IPS2_FIELDS_PROC_START)                                              \
    K(PROC_EXIT, "how", HOW, IPS2_FIELDS_PROC_EXIT)                                                \
    K(THREAD_START, "creator", TID, IPS2_FIELDS_THREAD_START)                                      \
    K(THREAD_EXIT, "how", HOW, IPS2_FIELDS_NONE)                                                   \
    K(THREAD_CREATE, "create_seq", SEQ, IPS2_FIELDS_NONE)                                          \
    K(JOIN_BEGIN, "create_seq", SEQ, IPS2_FIELDS_NONE)                                             \
    K(JOIN_END, "create_seq", SEQ, IPS2_FIELDS_JOIN_END)                                           \
    K(FORK, "child", PID, IPS2_FIELDS_NONE)                                                        \
    K(EXEC, NULL, VALUE, IPS2_FIELDS_EXEC)                                                         \
    K(EXEC_FAILED, "errno", ERROR, IPS2_FIELDS_NONE)                                               \
    K(MODULE, "bias", ADDRESS, IPS2_FIELDS_MODULE)                                                 \
    K(LOST, "records", VALUE, IPS2_FIELDS_LOST)                                                    \
    K(SYNC_OBJECT, "object", OBJECT, IPS2_FIELDS_SYNC_OBJECT)                                      \
    K(SYNC_INIT, "object", OBJECT, IPS2_FIELDS_SYNC_INIT)                                          \
    K(SYNC_DESTROY, "object", OBJECT, IPS2_FIELDS_SYNC_DESTROY)                                    \
    K(LOCK_ACQUIRED, "object", OBJECT, IPS2_FIELDS_LOCK_ACQUIRED)                                  \
    K(LOCK_RELEASE, "object", OBJECT, IPS2_FIELDS_LOCK_RELEASE)                                    \
    K(SYNC_FAILED, "object", OBJECT, IPS2_FIELDS_SYNC_FAILED)                                      \
    K(COND_SIGNAL, "object", OBJECT, IPS2_FIELDS_COND_SIGNAL)                                      \
    K(COND_BROADCAST, "object", OBJECT, IPS2_FIELDS_COND_SIGNAL)                                   \
    K(COND_WAKE, "object", OBJECT, IPS2_FIELDS_COND_WAKE)                                          \
    K(BARRIER_ARRIVE, "object", OBJECT, IPS2_FIELDS_BARRIER_ARRIVE)                                \
    K(BARRIER_DEPART, "object", OBJECT, IPS2_FIELDS_BARRIER_DEPART)                                \
    K(SEM_POST, "object", OBJECT, IPS2_FIELDS_SEM_POST)                                            \
    K(SEM_ACQUIRED, "object", OBJECT, IPS2_FIELDS_SEM_ACQUIRED)                                    \
    K(LOCK_ACQUIRED_SHARED, "object", OBJECT, IPS2_FIELDS_LOCK_ACQUIRED)                           \
    K(LOCK_RELEASE_SHARED, "object", OBJECT, IPS2_FIELDS_LOCK_RELEASE)                             \
    K(LOCK_COUNTED, "object", OBJECT, IPS2_FIELDS_LOCK_COUNTED)                                    \
    K(CHAN, "fd", FD, IPS2_FIELDS_CHAN)                                                            \
    K(SEND, "fd", FD, IPS2_FIELDS_STREAM_IO)                                                       \
    K(RECV, "fd", FD, IPS2_FIELDS_STREAM_IO)                                                       \
    K(DGRAM_SEND, "fd", FD, IPS2_FIELDS_DGRAM)                                                     \
    K(DGRAM_RECV, "fd", FD, IPS2_FIELDS_DGRAM)                                                     \
    K(CONNECT, "fd", FD, IPS2_FIELDS_CONNECT)                                                      \
    K(ACCEPT, "fd", FD, IPS2_FIELDS_ACCEPT)                                                        \
    K(IO_WAIT, "ready", VALUE, IPS2_FIELDS_IO_WAIT)                                                \
    K(OPEN, "fd", FD, IPS2_FIELDS_OPEN)                                                            \
    K(CLOSE, "fd", FD, IPS2_FIELDS_CLOSE)                                                          \
    K(FILE_READ, "fd", FD, IPS2_FIELDS_FILE_IO)                                                    \
    K(FILE_WRITE, "fd", FD, IPS2_FIELDS_FILE_IO)                                                   \
    K(FILE_SEEK, "fd", FD, IPS2_FIELDS_FILE_SEEK)                                                  \
    K(FILE_SYNC, "fd", FD, IPS2_FIELDS_FILE_SYNC)                                                  \
    K(SHUTDOWN, "fd", FD, IPS2_FIELDS_SHUTDOWN)                                                    \
    K(SPAWN, "pid", PID, IPS2_FIELDS_SPAWN)                                                        \
    K(VFORK, "pid", PID, IPS2_FIELDS_VFORK)                                                        \
    K(WAIT, "pid", PID, IPS2_FIELDS_WAIT)                                                          \
    K(PVM_TASK, "tid", TASK, IPS2_FIELDS_PVM_TASK)                                                 \
    K(PVM_SEND, "receiver", TASK, IPS2_FIELDS_PVM_SEND)                                            \
    K(PVM_RECV, "sender", TASK, IPS2_FIELDS_PVM_RECV)                                              \
    K(PVM_PROBE, "sender", TASK, IPS2_FIELDS_PVM_PROBE)                                            \
    K(PVM_SPAWN, "child", TASK, IPS2_FIELDS_PVM_SPAWN)                                             \
    K(PVM_EXIT, "tid", TASK, IPS2_FIELDS_PVM_EXIT)                                                 \
    K(PVM_BARRIER, "count", VALUE, IPS2_FIELDS_PVM_BARRIER)                                        \
    K(PVM_GROUP, "instance", VALUE, IPS2_FIELDS_PVM_GROUP)                                         \
    K(CALLS, "address", ADDRESS, IPS2_FIELDS_CALLS)

/* The named word indices: IPS2_F_<KIND>_<FIELD>. */
#define IPS2_FIELD_INDEX_(k, id, name, word, words, role) IPS2_F_##k##_##id = (word),
#define IPS2_KIND_INDICES_(k, payload, role, fields)      fields(IPS2_FIELD_INDEX_, k)
enum ips2_field_index { IPS2_KIND_FIELDS(IPS2_KIND_INDICES_) };

struct ips2_field {
    const char *name; /* as FORMAT.md names it */
    uint8_t word;     /* its first extra word */
    uint8_t words;    /* 1, 3 (an endpoint), or 0: a string, the words from here on */
    uint8_t role;     /* enum ips2_field_role */
};

struct ips2_kind_fields {
    const char *payload;  /* the payload's name, or NULL: always 0 */
    uint8_t payload_role; /* enum ips2_field_role */
    unsigned nfields;
    const struct ips2_field *fields; /* in word order */
};

/* The fields of an event kind, or NULL for a kind without a row (the
 * raw-only kinds, unknown kinds). */
const struct ips2_kind_fields *ips2_kind_fields(unsigned kind);

/* The first extra word of the first field of kind with that role, or -1
 * when the kind has none. */
int ips2_field_word(unsigned kind, enum ips2_field_role role);

#endif /* IPS2_FIELDS_H */
