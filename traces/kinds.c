/*
 * kinds.c - the names of the event kinds, which are also the list of kinds
 * this version of the format knows (readers reject the others), and the
 * lookup of their fields, built from ips2_fields.h's table.
 */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "ips2_fields.h"
#include "ips2_reader.h"

static const char *const kind_names[IPS2_EV_KIND_MAX + 1] = {
    [IPS2_EV_NONE] = "none",
    [IPS2_EV_PAD] = "pad",
    [IPS2_EV_SYNC] = "sync",
    [IPS2_EV_ENTER] = "enter",
    [IPS2_EV_EXIT] = "exit",
    [IPS2_EV_PROC_START] = "proc-start",
    [IPS2_EV_PROC_EXIT] = "proc-exit",
    [IPS2_EV_THREAD_START] = "thread-start",
    [IPS2_EV_THREAD_EXIT] = "thread-exit",
    [IPS2_EV_THREAD_CREATE] = "thread-create",
    [IPS2_EV_JOIN_BEGIN] = "join-begin",
    [IPS2_EV_JOIN_END] = "join-end",
    [IPS2_EV_FORK] = "fork",
    [IPS2_EV_EXEC] = "exec",
    [IPS2_EV_EXEC_FAILED] = "exec-failed",
    [IPS2_EV_MODULE] = "module",
    [IPS2_EV_LOST] = "lost",
    [IPS2_EV_ENTER_SHORT] = "enter-short",
    [IPS2_EV_EXIT_SHORT] = "exit-short",

    /* 19-39: synchronisation */
    [IPS2_EV_SYNC_OBJECT] = "sync-object",
    [IPS2_EV_SYNC_INIT] = "sync-init",
    [IPS2_EV_SYNC_DESTROY] = "sync-destroy",
    [IPS2_EV_LOCK_ACQUIRED] = "lock-acquired",
    [IPS2_EV_LOCK_RELEASE] = "lock-release",
    [IPS2_EV_SYNC_FAILED] = "sync-failed",
    [IPS2_EV_COND_SIGNAL] = "cond-signal",
    [IPS2_EV_COND_BROADCAST] = "cond-broadcast",
    [IPS2_EV_COND_WAKE] = "cond-wake",
    [IPS2_EV_BARRIER_ARRIVE] = "barrier-arrive",
    [IPS2_EV_BARRIER_DEPART] = "barrier-depart",
    [IPS2_EV_SEM_POST] = "sem-post",
    [IPS2_EV_SEM_ACQUIRED] = "sem-acquired",
    [IPS2_EV_LOCK_ACQUIRED_SHARED] = "lock-acquired-shared",
    [IPS2_EV_LOCK_RELEASE_SHARED] = "lock-release-shared",
    [IPS2_EV_LOCK_ACQUIRED_SHORT] = "lock-acquired-short",
    [IPS2_EV_LOCK_RELEASE_SHORT] = "lock-release-short",
    [IPS2_EV_LOCK_HELD_SHORT] = "lock-held-short",
    [IPS2_EV_LOCK_COUNTED] = "lock-counted",

    /* 40-69: messages and file I/O */
    [IPS2_EV_CHAN] = "chan",
    [IPS2_EV_SEND] = "send",
    [IPS2_EV_RECV] = "recv",
    [IPS2_EV_DGRAM_SEND] = "dgram-send",
    [IPS2_EV_DGRAM_RECV] = "dgram-recv",
    [IPS2_EV_CONNECT] = "connect",
    [IPS2_EV_ACCEPT] = "accept",
    [IPS2_EV_IO_WAIT] = "io-wait",
    [IPS2_EV_OPEN] = "open",
    [IPS2_EV_CLOSE] = "close",
    [IPS2_EV_FILE_READ] = "file-read",
    [IPS2_EV_FILE_WRITE] = "file-write",
    [IPS2_EV_FILE_SEEK] = "file-seek",
    [IPS2_EV_FILE_SYNC] = "file-sync",
    [IPS2_EV_SHUTDOWN] = "shutdown",

    /* 70-89: processes and PVM */
    [IPS2_EV_SPAWN] = "spawn",
    [IPS2_EV_VFORK] = "vfork",
    [IPS2_EV_WAIT] = "wait",
    [IPS2_EV_PVM_TASK] = "pvm-task",
    [IPS2_EV_PVM_SEND] = "pvm-send",
    [IPS2_EV_PVM_RECV] = "pvm-recv",
    [IPS2_EV_PVM_PROBE] = "pvm-probe",
    [IPS2_EV_PVM_SPAWN] = "pvm-spawn",
    [IPS2_EV_PVM_EXIT] = "pvm-exit",
    [IPS2_EV_PVM_BARRIER] = "pvm-barrier",
    [IPS2_EV_PVM_GROUP] = "pvm-group",

    /* 90: counted-only procedures */
    [IPS2_EV_CALLS] = "calls",
};

const char *ips2_kind_name(unsigned kind)
{
    return ips2_kind_known(kind) ? kind_names[kind] : "unknown";
}

bool ips2_kind_known(unsigned kind)
{
    return kind <= IPS2_EV_KIND_MAX && kind_names[kind] != NULL;
}

/* ------------------------------------------------------------------ */
/* Fields (ips2_fields.h)                                             */

/* Each kind's fields, closed by an empty entry so that a kind without
 * extra words still has an array. */
#define FIELD_(k, id, name, word, words, role) {name, word, words, IPS2_ROLE_##role},
#define KIND_ARRAY_(k, payload, role, list)                                                        \
    static const struct ips2_field k##_fields[] = {list(FIELD_, k){NULL, 0, 0, 0}};
IPS2_KIND_FIELDS(KIND_ARRAY_)

#define KIND_ROW_(k, payload, role, list)                                                          \
    [IPS2_EV_##k] = {payload, IPS2_ROLE_##role, sizeof(k##_fields) / sizeof(k##_fields[0]) - 1,    \
                     k##_fields},
static const struct ips2_kind_fields kind_fields[IPS2_EV_KIND_MAX + 1] = {
    IPS2_KIND_FIELDS(KIND_ROW_)};

const struct ips2_kind_fields *ips2_kind_fields(unsigned kind)
{
    return kind <= IPS2_EV_KIND_MAX && kind_fields[kind].fields ? &kind_fields[kind] : NULL;
}

/* For each kind and role, the words where fields with that role begin (bit
 * i: word i), so that the lookup by role is a load and a count of trailing
 * zeros: the reduction asks it for every interaction event's start timer. */
#define ROLE_BIT_(want, id, name, word, words, role)                                               \
    (IPS2_ROLE_##role == (want) ? 1u << (word) : 0u) |
#define ROLE_WORDS_(list, r) [IPS2_ROLE_##r] = list(ROLE_BIT_, IPS2_ROLE_##r) 0u,
/* clang-format off */
#define EVERY_ROLE_(M, a) \
    M(a, VALUE) \
    M(a, START) \
    M(a, CPU_START) \
    M(a, ERROR) \
    M(a, BYTES) \
    M(a, CALL) \
    M(a, HOW) \
    M(a, KEY) \
    M(a, OFFSET) \
    M(a, SEQ) \
    M(a, OBJECT) \
    M(a, TYPE) \
    M(a, SELF) \
    M(a, PEER) \
    M(a, FD) \
    M(a, PID) \
    M(a, TID) \
    M(a, TASK) \
    M(a, ADDRESS) \
    M(a, STATUS) \
    M(a, TIME) \
    M(a, STRING)
/* clang-format on */
#define KIND_ROLES_(k, payload, role, list) [IPS2_EV_##k] = {EVERY_ROLE_(ROLE_WORDS_, list)},
static const uint16_t role_words[IPS2_EV_KIND_MAX + 1][IPS2_ROLE_COUNT] = {
    IPS2_KIND_FIELDS(KIND_ROLES_)};

#define COUNT_ROLE_(a, r) +1
static_assert(0 EVERY_ROLE_(COUNT_ROLE_, ) == IPS2_ROLE_COUNT, "EVERY_ROLE_ lists every role");

int ips2_field_word(unsigned kind, enum ips2_field_role role)
{
    if (kind > IPS2_EV_KIND_MAX || (unsigned)role >= IPS2_ROLE_COUNT || !role_words[kind][role])
        return -1;
    return __builtin_ctz(role_words[kind][role]);
}
