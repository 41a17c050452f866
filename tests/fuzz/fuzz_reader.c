/*
 * fuzz_reader.c - libFuzzer target for the trace reader (and the module
 * map loader of symbols.c, which reads process streams through it).
 *
 * Each input is a whole stream file.  It goes into one memfd per process
 * that the reader opens by its /proc/self/fd path, and is read to the end
 * while every field of every event is touched, so that ASan sees any bad
 * pointer or length the reader hands out.  The header decides raw or
 * packed, so the input is also read a second time with its encoding byte
 * flipped: raw data through the packed decoder and the other way round.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ips2_reader.h"
#include "ips2_symbols.h"

static int fd = -1;
static char path[64];
static volatile uint64_t sink;

/* Addresses seen in the stream, to look up in its module map. */
static uint64_t seen[16];
static unsigned nseen;

static void put_file(const uint8_t *data, size_t size)
{
    if (fd < 0) {
        fd = memfd_create("ips2-fuzz", MFD_CLOEXEC);
        if (fd < 0) {
            perror("memfd_create");
            abort();
        }
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size)) {
        perror("memfd write");
        abort();
    }
}

static void touch_event(const struct ips2_event *ev)
{
    char small[5], buf[IPS2_PATH_MAX];
    uint64_t sum =
        ev->kind + ev->cpu_exact + ev->timer + ev->wall_ns + ev->cpu_ns + ev->payload + ev->offset;

    for (unsigned i = 0; i < ev->nextra; i++)
        sum += ev->extra[i];
    sum += strlen(ips2_kind_name(ev->kind));
    for (unsigned skip = 0; skip <= ev->nextra + 1 && skip < 4; skip++) {
        ips2_event_string(ev, skip, buf, sizeof(buf));
        sum += strlen(buf);
        ips2_event_string(ev, skip, small, sizeof(small));
        sum += strlen(small);
    }
    sink += sum;
}

static void read_all(void)
{
    char err[IPS2_ERR_MAX];
    struct ips2_reader *r = ips2_reader_open(path, err);
    const struct ips2_event *ev;
    int rc;

    nseen = 0;
    if (!r) {
        sink += strlen(err);
        return;
    }
    const struct ips2_file_header *h = ips2_reader_header(r);
    sink += h->pid + h->tid + h->features + strnlen(h->exe, sizeof(h->exe));
    while ((rc = ips2_reader_next(r, &ev)) == 1)
        touch_event(ev);
    if (rc < 0)
        sink += strlen(ips2_reader_error(r));
    /* After the end (or an error) the reader stays at the end. */
    if (ips2_reader_next(r, &ev) == 1)
        abort();
    sink += ips2_reader_unclosed(r);
    unsigned kind = h->stream_kind;
    ips2_reader_close(r);

    /* A process stream: load its module map (module files that do not
     * exist only cost a failed open) and look a few addresses up. */
    if (kind == IPS2_STREAM_PROCESS) {
        struct ips2_symtab *s = ips2_symtab_new();
        uint64_t off;
        sink += (uint64_t)ips2_symtab_load_process(s, path, err);
        for (unsigned i = 0; i < nseen; i++) {
            for (uint64_t d = 0; d < 3; d++) {
                const char *name = ips2_symtab_lookup(s, seen[i] + d - 1, &off);
                if (name)
                    sink += strlen(name) + off;
            }
        }
        ips2_symtab_free(s);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const size_t ENCODING_AT = offsetof(struct ips2_file_header, encoding);

    put_file(data, size);
    read_all();

    if (size > ENCODING_AT && data[ENCODING_AT] <= 1) {
        uint8_t *copy = malloc(size);
        if (!copy)
            abort();
        memcpy(copy, data, size);
        copy[ENCODING_AT] ^= 1;
        put_file(copy, size);
        free(copy);
        read_all();
    }
    return 0;
}
