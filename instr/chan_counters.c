/*
 * chan_counters.c - session-wide counters of the bytes and datagrams that
 * went through each channel, shared by every traced process of a session
 * on this machine.
 *
 * The byte offsets that pair sends with receives must count everything
 * written into (read out of) a stream, whoever wrote it: a pipe written by
 * a parent and its forked child, a FIFO opened by two writers, a socket
 * handed to an exec'd program.  So the counters live in one file of the
 * session directory, ips2-channels.shm, mapped shared by every process:
 * an open-addressing table of two-cache-line slots, claimed by compare-and-
 * swap on the key and never freed, so that lookups take no lock and are
 * safe in signal handlers.  A full or missing table leaves the caller to
 * count in its own process (ips2_counter_get returns NULL).
 *
 * The table's space is reserved (posix_fallocate) before it is mapped, as
 * the streams' is: on a full disk a sparse table would kill the program
 * with SIGBUS at its first message.  A process that cannot have the table
 * counts in its own process and says so in its process stream: a LOST
 * record with payload 0, extra [0] = the error, [1] = 0 (no thread: the
 * channel table).
 *
 * A later connection with the same key (a reused TCP port pair, a FIFO
 * created again) continues the counts where the previous one ended, on
 * both sides alike, so pairing still holds.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fds.h"

#define COUNTER_SLOTS (1u << 16) /* 8 MiB of file */
#define MAX_PROBES    64

static struct ips2_counter *table;

void ips2_counters_setup(void)
{
    char path[PATH_MAX + 32];
    size_t bytes = (size_t)COUNTER_SLOTS * sizeof(struct ips2_counter);

    table = NULL;
    if (!ips2_proc.initialized)
        return;
    ips2_quiet_begin();
    snprintf(path, sizeof(path), "%s/ips2-channels.shm", ips2_proc.dir);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    int err = fd < 0 ? errno : 0;
    if (fd >= 0) {
        /* Every process reserves it: a no-op once the first one has. */
        err = posix_fallocate(fd, 0, (off_t)bytes);
        if (err == 0) {
            void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            if (m != MAP_FAILED)
                table = m;
            else
                err = errno;
        }
        close(fd);
    }
    if (table == NULL) {
        uint64_t why[2] = {(uint64_t)err, 0};
        ips2_process_stream_lost(0, why, 2);
    }
    ips2_quiet_end();
}

static size_t slot_of(uint64_t key)
{
    return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 48) & (COUNTER_SLOTS - 1);
}

struct ips2_counter *ips2_counter_get(uint64_t key)
{
    if (table == NULL || key == 0)
        return NULL;
    for (size_t i = slot_of(key), n = 0; n < MAX_PROBES; i = (i + 1) & (COUNTER_SLOTS - 1), n++) {
        struct ips2_counter *c = &table[i];
        uint64_t k = atomic_load_explicit(&c->key, memory_order_acquire);
        if (k == key)
            return c;
        if (k == 0) {
            uint64_t expected = 0;
            if (atomic_compare_exchange_strong(&c->key, &expected, key) || expected == key)
                return c;
        }
    }
    return NULL;
}
