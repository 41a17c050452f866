/*
 * sync_count.c - counted lock holds: the decision to count a mutex's holds
 * in a thread, and the LOCK_COUNTED records that hold the counts.
 *
 * Two timer reads and a trace word cost more than an uncontended lock and
 * unlock themselves; yet such a hold pairs with nothing in the PAG (only a
 * release that a waiter names does, and a waiting acquisition).  So a
 * thread that keeps taking the same mutex at once, with nothing recorded
 * inside its short holds, stops timing them: it counts them in place in a
 * LOCK_COUNTED record instead (sync.h has the protocol, FORMAT.md section 3
 * the record), until its stream's generation moves on (a window switch, or
 * the first sync point 100 ms after the previous move), when it watches the
 * holds again.  The holds of every generation thus start timed: the tables
 * keep a sample of hold times beside the exact counts.
 *
 * IPS2_LOCKCOUNT=off turns counting off; IPS2_LOCKCOUNT=N sets how many
 * watched holds in a row it takes (default 1024).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sync.h"

/* Holds watched in a row before counting; their mean must stay below
 * SHORT_HOLD_NS. */
#define SYNC_COUNT_AFTER 1024u
#define SHORT_HOLD_NS    1000u

__thread struct sync_count *ips2_sync_counts __attribute__((tls_model("initial-exec")));
static __thread int counts_gone __attribute__((tls_model("initial-exec"))); /* thread ended */
uint32_t ips2_sync_count_after = SYNC_COUNT_AFTER;

#define COUNTS_BYTES (IPS2_LOCK_SLOTS * sizeof(struct sync_count))

struct sync_count *ips2_sync_counts_make(void)
{
    if (counts_gone)
        return NULL; /* the thread's last locks (other destructors): recorded */
    int saved_errno = errno;
    void *m = mmap(NULL, COUNTS_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    errno = saved_errno;
    return m == MAP_FAILED ? NULL : (ips2_sync_counts = m);
}

void ips2_sync_count_thread_end(void)
{
    struct sync_count *k = ips2_sync_counts;

    counts_gone = 1;
    ips2_sync_counts = NULL;
    if (k != NULL)
        munmap(k, COUNTS_BYTES);
}

int ips2_sync_count_begin(struct ips2_thread *t, struct sync_count *k)
{
    if (t->state != IPS2_THREAD_TRACING || t->busy)
        return 0;
    uint64_t *w = ips2_emit_lock_counted(t, k->key);
    if (w == NULL)
        return 0;
    k->word = w;
    k->gen = t->calls_gen; /* read after the record: writing it may move the generation */
    k->streak = 0;
    k->hold = 0;
    return 1;
}

void ips2_sync_count_recorded(uint64_t key, uint64_t seq)
{
    ips2_emit_release(key, seq);
}

void ips2_sync_count_streak(struct sync_count *k, uint64_t hold)
{
    k->hold += hold;
    if (++k->streak < ips2_sync_count_after)
        return;
    uint64_t per_us = ips2_proc.tsc_hz / 1000000u; /* timer ticks */
    if (k->hold >=
        (uint64_t)ips2_sync_count_after * (per_us ? per_us : 1000u) * SHORT_HOLD_NS / 1000u) {
        k->streak = 0; /* long holds: they stay timed; watch the next ones */
        k->hold = 0;
    }
}

/* A forked child writes new streams: the parent's records are not its. */
static void forget_counts_in_child(void)
{
    if (ips2_sync_counts != NULL)
        memset(ips2_sync_counts, 0, COUNTS_BYTES);
}

__attribute__((constructor)) static void sync_count_setup(void)
{
    const char *env = getenv("IPS2_LOCKCOUNT");

    if (env != NULL && *env != '\0') {
        char *end;
        unsigned long n = strtoul(env, &end, 10);
        if (strcmp(env, "off") == 0 || (*end == '\0' && n == 0))
            ips2_sync_count_after = 0;
        else if (*end == '\0' && n <= 1u << 30)
            ips2_sync_count_after = (uint32_t)n;
    }
    pthread_atfork(NULL, NULL, forget_counts_in_child);
}
