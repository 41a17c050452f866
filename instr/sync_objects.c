/*
 * sync_objects.c - the table of synchronisation objects (see sync.h) and
 * their stable identities.
 *
 * Per-process table: open addressing on the object's address, claimed by
 * compare-and-swap, never freed (a destroyed object's address is usually
 * reused by the next one, which then continues its counters).  Lock-free
 * and allocation-free, so that sem_post may use it in a signal handler.
 *
 * Process-shared objects: the first time a process meets one, it finds in
 * /proc/self/maps the shared mapping that holds it; (device, inode, offset
 * in the mapped file) is the same in every process that maps it - fork
 * children, MAP_SHARED|MAP_ANONYMOUS regions, shm_open and named-semaphore
 * files alike.  That identity selects a slot in the session's shared table,
 * ips2-sync.tab in the session directory, a file every traced process of
 * the session maps; the slot's index is the object's key (with
 * IPS2_SYNC_KEY_SHARED) and the slot holds its counters.  An object that
 * claims to be shared but lives in private memory (a pshared mutex on the
 * stack) is treated as private.  If the shared table cannot be had, shared
 * objects fall back to private keys and counters (pairing then works only
 * inside one process).
 *
 * The first time a process image meets an object as a given type (and again
 * at its init), it records SYNC_OBJECT: the key's type, address and
 * identity, so that the lock events themselves need not repeat the type.
 *
 * Known limits: the identity is computed once per process and object (and
 * again at init or sem_open); an object whose memory is unmapped and
 * replaced by another mapping at the same address without a new init keeps
 * its old identity.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sync.h"

struct sync_entry ips2_sync_table[SYNC_TABLE_SLOTS];
__thread pid_t ips2_sync_tid __attribute__((tls_model("initial-exec")));

enum { MAX_PROBES = 64 };

struct sync_entry *ips2_sync_find_slow(uintptr_t addr, size_t slot)
{
    if (addr == 0)
        return NULL;
    for (unsigned n = 0; n < MAX_PROBES; n++, slot = (slot + 1) & (SYNC_TABLE_SLOTS - 1)) {
        struct sync_entry *e = &ips2_sync_table[slot];
        uintptr_t seen = atomic_load_explicit(&e->addr, memory_order_acquire);
        if (seen == addr)
            return e;
        if (seen != 0)
            continue;
        if (atomic_compare_exchange_strong(&e->addr, &seen, addr) || seen == addr)
            return e;
    }
    return NULL;
}

pid_t ips2_sync_tid_slow(void)
{
    ips2_sync_tid = gettid();
    return ips2_sync_tid;
}

static void forget_tid_in_child(void)
{
    ips2_sync_tid = 0;
}

__attribute__((constructor)) static void sync_objects_setup(void)
{
    pthread_atfork(NULL, NULL, forget_tid_in_child);
}

/* --- the session's shared table ---------------------------------------------- */

#define SHARED_MAGIC "IPS2SYN1"
#define SHARED_SLOTS 16384u
#define SHARED_FILE  "ips2-sync.tab"

enum { SLOT_FREE = 0, SLOT_CLAIMED = 1, SLOT_READY = 2 };

struct shared_slot {
    _Atomic uint32_t state;
    uint32_t type;
    uint64_t dev, ino, offset;
    struct ips2_sync_counters c;
    uint64_t pad;
};

struct shared_table {
    char magic[8];
    uint64_t slots;
    uint64_t reserved[6];
    struct shared_slot slot[SHARED_SLOTS];
};

_Static_assert(sizeof(struct shared_slot) == 64, "one cache line per shared slot");

static struct shared_table *_Atomic shared_table;
static atomic_int shared_table_failed;

/* Maps the session's shared table (once per process image). */
static struct shared_table *shared_table_get(void)
{
    struct shared_table *t = atomic_load_explicit(&shared_table, memory_order_acquire);
    char path[PATH_MAX + 32];
    struct stat st;

    if (t != NULL || atomic_load(&shared_table_failed))
        return t;
    snprintf(path, sizeof(path), "%s/%s", ips2_proc.dir, SHARED_FILE);
    int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        atomic_store(&shared_table_failed, 1);
        return NULL;
    }
    /* Growing a file to the same size twice is harmless; shrinking never happens. */
    if (fstat(fd, &st) == 0 && st.st_size < (off_t)sizeof(struct shared_table))
        (void)syscall(SYS_ftruncate, fd, (off_t)sizeof(struct shared_table));
    void *m = mmap(NULL, sizeof(struct shared_table), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    syscall(SYS_close, fd);
    if (m == MAP_FAILED) {
        atomic_store(&shared_table_failed, 1);
        return NULL;
    }
    t = m;
    if (t->slots == 0) {
        memcpy(t->magic, SHARED_MAGIC, sizeof(t->magic));
        t->slots = SHARED_SLOTS;
    }
    struct shared_table *expected = NULL;
    if (!atomic_compare_exchange_strong(&shared_table, &expected, t)) {
        munmap(m, sizeof(struct shared_table));
        t = expected;
    }
    return t;
}

/* The slot of identity (dev, ino, offset), claimed if new; NULL if the
 * table is full or a claim in progress never completes. */
static struct shared_slot *shared_slot_get(struct shared_table *t, uint64_t dev, uint64_t ino,
                                           uint64_t offset, unsigned type)
{
    uint64_t h = (dev * 0x9e3779b97f4a7c15ull) ^ (ino * 0xc2b2ae3d27d4eb4full) ^
                 (offset * 0x165667b19e3779f9ull);
    size_t i = (size_t)(h >> 32) % SHARED_SLOTS;

    for (unsigned n = 0; n < 256; n++, i = (i + 1) % SHARED_SLOTS) {
        struct shared_slot *s = &t->slot[i];
        uint32_t state = atomic_load_explicit(&s->state, memory_order_acquire);
        if (state == SLOT_FREE) {
            if (atomic_compare_exchange_strong(&s->state, &state, SLOT_CLAIMED)) {
                s->dev = dev;
                s->ino = ino;
                s->offset = offset;
                s->type = type;
                atomic_store_explicit(&s->state, SLOT_READY, memory_order_release);
                return s;
            }
        }
        /* another process is filling the slot in: wait a little for it */
        for (unsigned spin = 0; state == SLOT_CLAIMED && spin < 1000000; spin++) {
            __builtin_ia32_pause();
            state = atomic_load_explicit(&s->state, memory_order_acquire);
        }
        if (state != SLOT_READY)
            return NULL;
        if (s->dev == dev && s->ino == ino && s->offset == offset)
            return s;
    }
    return NULL;
}

uint64_t ips2_sync_shared_key(uintptr_t state)
{
    struct shared_table *t = atomic_load_explicit(&shared_table, memory_order_relaxed);
    uintptr_t c = state & SYNC_STATE_PTR;
    uintptr_t index =
        (c - offsetof(struct shared_slot, c) - (uintptr_t)t->slot) / sizeof(struct shared_slot);

    return IPS2_SYNC_KEY_SHARED | index;
}

/* --- mappings ------------------------------------------------------------------ */

struct mapping_id {
    uint64_t dev, ino, offset;
};

static const char *parse_hex(const char *p, uint64_t *v)
{
    uint64_t x = 0;
    for (;; p++) {
        unsigned d;
        if (*p >= '0' && *p <= '9')
            d = (unsigned)(*p - '0');
        else if (*p >= 'a' && *p <= 'f')
            d = (unsigned)(*p - 'a' + 10);
        else
            break;
        x = x * 16 + d;
    }
    *v = x;
    return p;
}

static const char *parse_dec(const char *p, uint64_t *v)
{
    uint64_t x = 0;
    for (; *p >= '0' && *p <= '9'; p++)
        x = x * 10 + (uint64_t)(*p - '0');
    *v = x;
    return p;
}

/* One line of /proc/self/maps: "start-end perms offset major:minor inode path".
 * Returns 1 and fills id if addr lies in a shared mapping of a file. */
static int maps_line(const char *line, uintptr_t addr, struct mapping_id *id, int *found)
{
    uint64_t start, end, offset, major, minor, ino;
    const char *p = parse_hex(line, &start);

    if (*p++ != '-')
        return 0;
    p = parse_hex(p, &end);
    if (addr < start || addr >= end)
        return 0;
    *found = 1;
    if (p[0] != ' ' || p[4] != 's') /* rw-s: shared */
        return 0;
    p = parse_hex(p + 6, &offset);
    p = parse_hex(p + 1, &major);
    if (*p != ':')
        return 0;
    p = parse_hex(p + 1, &minor);
    parse_dec(p + 1, &ino);
    if (ino == 0)
        return 0;
    id->dev = major << 32 | minor;
    id->ino = ino;
    id->offset = offset + (addr - start);
    return 1;
}

/* The identity of the shared mapping that holds addr; 0 if there is none.
 * Raw system calls and a stack buffer: safe in a signal handler. */
static int mapping_of(uintptr_t addr, struct mapping_id *id)
{
    char buf[4096 + 1];
    size_t have = 0;
    int found = 0, shared = 0;
    int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return 0;
    while (!found) {
        ssize_t n = syscall(SYS_read, fd, buf + have, sizeof(buf) - 1 - have);
        if (n <= 0)
            break;
        have += (size_t)n;
        buf[have] = '\0';
        char *line = buf, *nl;
        while (!found && (nl = strchr(line, '\n')) != NULL) {
            *nl = '\0';
            shared = maps_line(line, addr, id, &found);
            line = nl + 1;
        }
        have -= (size_t)(line - buf);
        memmove(buf, line, have);
        if (have == sizeof(buf) - 1) /* a line longer than the buffer: skip its head */
            have = 0;
    }
    syscall(SYS_close, fd);
    return shared;
}

/* --- classification -------------------------------------------------------------- */

static struct ips2_sync_counters *shared_counters(const void *obj, unsigned type)
{
    struct mapping_id id;
    struct shared_table *t;
    struct shared_slot *s;

    if (!mapping_of((uintptr_t)obj, &id) || (t = shared_table_get()) == NULL ||
        (s = shared_slot_get(t, id.dev, id.ino, id.offset, type)) == NULL)
        return NULL;
    return &s->c;
}

uintptr_t ips2_sync_classify(struct sync_entry *e, const void *obj, unsigned type, unsigned hint)
{
    int saved_errno = errno;
    uintptr_t st = (uintptr_t)&e->own | (hint == SYNC_SHARED ? SYNC_STATE_HINT : 0);

    ips2_quiet_begin();
    if (hint != SYNC_PRIVATE) {
        struct ips2_sync_counters *c = shared_counters(obj, type);
        if (c != NULL)
            st = (uintptr_t)c | SYNC_STATE_SHARED | (st & SYNC_STATE_HINT);
    }
    atomic_store_explicit(&e->state, st, memory_order_release);
    ips2_quiet_end();
    if (type != IPS2_SYNC_ANY)
        ips2_sync_retype(e, obj, type, st);
    errno = saved_errno;
    return st;
}

/* Records what the object at obj is now (SYNC_OBJECT), once per type. */
void ips2_sync_retype(struct sync_entry *e, const void *obj, unsigned type, uintptr_t state)
{
    struct sync_ref r = {(uintptr_t)obj & IPS2_PAYLOAD_MASK,
                         (struct ips2_sync_counters *)(state & SYNC_STATE_PTR)};

    atomic_store_explicit(&e->type, type, memory_order_relaxed);
    if (state & SYNC_STATE_SHARED)
        r.key = ips2_sync_shared_key(state);
    ips2_sync_announce(obj, type, r, NULL);
}

struct sync_ref ips2_sync_refresh(const void *obj, unsigned type, unsigned hint)
{
    struct sync_entry *e = sync_find(obj);
    struct sync_ref r = {(uintptr_t)obj & IPS2_PAYLOAD_MASK, NULL};

    if (e == NULL)
        return r;
    uintptr_t st = ips2_sync_classify(e, obj, type, hint);
    if (st & SYNC_STATE_SHARED)
        r.key = ips2_sync_shared_key(st);
    r.c = (struct ips2_sync_counters *)(st & SYNC_STATE_PTR);
    return r;
}

/* SYNC_OBJECT: what a key stands for. */
void ips2_sync_announce(const void *obj, unsigned type, struct sync_ref r, const char *name)
{
    uint64_t words[5] = {type, (uintptr_t)obj, 0, 0, 0};

    if (r.key & IPS2_SYNC_KEY_SHARED) {
        const struct shared_slot *s =
            (const struct shared_slot *)((uintptr_t)r.c - offsetof(struct shared_slot, c));
        words[2] = s->dev;
        words[3] = s->ino;
        words[4] = s->offset;
    }
    if (name != NULL)
        ips2_emit_string(&ips2_self, IPS2_EV_SYNC_OBJECT, r.key, words, 5, name);
    else /* once per object, but cheap: many programs have many locks */
        ips2_emit(IPS2_EV_SYNC_OBJECT, r.key, words, 5, IPS2_CPU_DERIVED);
}

void ips2_sync_init_event(struct sync_ref r, unsigned type, uint64_t value, uint64_t attributes,
                          int result)
{
    uint64_t extra[4] = {type, value, attributes, (uint64_t)result};

    ips2_emit_slow(&ips2_self, IPS2_EV_SYNC_INIT, r.key, extra, 4, IPS2_CPU_READ);
}

void ips2_sync_destroy_event(struct sync_ref r, unsigned type, int result)
{
    uint64_t extra[2] = {type, (uint64_t)result};

    ips2_emit_slow(&ips2_self, IPS2_EV_SYNC_DESTROY, r.key, extra, 2, IPS2_CPU_READ);
}
