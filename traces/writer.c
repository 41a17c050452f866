/*
 * writer.c - buffered file writer of raw ips2 streams (tools and tests).
 *
 * Records are encoded with ips2_record_put() into a 64 KiB buffer and
 * written with pwrite() behind the IPS2_RAW_HEADER_SIZE header.  Closing
 * rewrites the header in place with state CLOSED and data_bytes, which is
 * exactly what a reader needs to tell a finished stream from one whose
 * writer died.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ips2_reader.h"
#include "error.h"
#include "ips2_record.h"
#include "ips2_writer.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "ips2 streams are little-endian");
_Static_assert(sizeof(struct ips2_file_header) <= IPS2_RAW_HEADER_SIZE, "header fits its page");

#define WRITER_BUF (64u * 1024u)

struct ips2_writer {
    int fd;
    char *path;
    struct ips2_file_header hdr;
    uint64_t data_bytes; /* records written, buffered ones included */
    size_t used;         /* bytes in buf */
    char err[IPS2_ERR_MAX];
    unsigned char buf[WRITER_BUF];
};

/* Writes all of len bytes at off; returns 0 or -1 with errno set. */
static int write_all(int fd, const void *p, size_t len, uint64_t off)
{
    const unsigned char *c = p;

    while (len > 0) {
        ssize_t n = pwrite(fd, c, len, (off_t)off);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (n == 0) {
            errno = EIO;
            return -1;
        }
        c += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

static int flush_buf(struct ips2_writer *w)
{
    uint64_t off = IPS2_RAW_HEADER_SIZE + w->data_bytes - w->used;

    if (w->used == 0)
        return 0;
    if (write_all(w->fd, w->buf, w->used, off) < 0) {
        ips2_set_error(w->err, "%s: byte %llu: cannot write records: %s", w->path,
                       (unsigned long long)off, strerror(errno));
        return -1;
    }
    w->used = 0;
    return 0;
}

static int write_header(struct ips2_writer *w)
{
    unsigned char page[IPS2_RAW_HEADER_SIZE];

    memset(page, 0, sizeof(page));
    memcpy(page, &w->hdr, sizeof(w->hdr));
    if (write_all(w->fd, page, sizeof(page), 0) < 0) {
        ips2_set_error(w->err, "%s: byte 0: cannot write the header: %s", w->path, strerror(errno));
        return -1;
    }
    return 0;
}

struct ips2_writer *ips2_writer_create(const char *path, const struct ips2_file_header *hdr,
                                       char *err)
{
    struct ips2_writer *w = calloc(1, sizeof(*w));

    if (!w || !(w->path = strdup(path))) {
        ips2_set_error(err, "%s: byte 0: cannot create a writer: out of memory", path);
        free(w);
        return NULL;
    }
    w->hdr = *hdr;
    memcpy(w->hdr.magic, IPS2_MAGIC, IPS2_MAGIC_LEN);
    w->hdr.version = IPS2_VERSION;
    w->hdr.header_size = IPS2_RAW_HEADER_SIZE;
    w->hdr.endian = 1;
    w->hdr.encoding = IPS2_ENC_RAW;
    w->hdr.state = IPS2_STATE_OPEN;
    w->hdr.data_bytes = 0;
    w->hdr.host[IPS2_HOST_MAX - 1] = '\0';
    w->hdr.app[IPS2_APP_MAX - 1] = '\0';
    w->hdr.exe[IPS2_PATH_MAX - 1] = '\0';

    w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->fd < 0) {
        ips2_set_error(err, "%s: byte 0: cannot create: %s", path, strerror(errno));
        free(w->path);
        free(w);
        return NULL;
    }
    if (write_header(w) < 0) {
        if (err)
            memcpy(err, w->err, IPS2_ERR_MAX);
        close(w->fd);
        free(w->path);
        free(w);
        return NULL;
    }
    return w;
}

static int append(struct ips2_writer *w, const void *rec, size_t bytes)
{
    if (w->used + bytes > sizeof(w->buf) && flush_buf(w) < 0)
        return -1;
    memcpy(w->buf + w->used, rec, bytes);
    w->used += bytes;
    w->data_bytes += bytes;
    return 0;
}

int ips2_writer_emit(struct ips2_writer *w, unsigned kind, uint64_t timer, int has_cpu,
                     uint64_t cpu_ns, uint64_t payload, const uint64_t *extra, unsigned nextra)
{
    unsigned cpu = has_cpu ? 1 : 0;
    uint64_t rec[2 + IPS2_RAW_MAX_EXTRA];
    uint64_t off = IPS2_RAW_HEADER_SIZE + w->data_bytes;

    if (w->err[0])
        return -1;
    if (kind > IPS2_EV_KIND_MAX || kind == IPS2_EV_ENTER_SHORT || kind == IPS2_EV_EXIT_SHORT ||
        (kind >= IPS2_EV_LOCK_ACQUIRED_SHORT && kind <= IPS2_EV_LOCK_HELD_SHORT) ||
        nextra + cpu > IPS2_RAW_MAX_EXTRA || payload > IPS2_PAYLOAD_MASK || (nextra && !extra)) {
        ips2_set_error(w->err,
                       "%s: byte %llu: cannot emit kind %u with %u extra words and payload 0x%llx: "
                       "expected a long record kind <= %u, extra words <= %u, payload < 2^48",
                       w->path, (unsigned long long)off, kind, nextra + cpu,
                       (unsigned long long)payload, (unsigned)IPS2_EV_KIND_MAX,
                       (unsigned)IPS2_RAW_MAX_EXTRA);
        return -1;
    }
    ips2_record_put(rec, kind, timer, cpu, cpu_ns, payload, extra, nextra);
    return append(w, rec, ips2_record_words(cpu, nextra) * sizeof(uint64_t));
}

int ips2_writer_emit_word(struct ips2_writer *w, uint64_t word)
{
    if (w->err[0])
        return -1;
    return append(w, &word, sizeof(word));
}

uint64_t ips2_writer_data_bytes(const struct ips2_writer *w)
{
    return w->data_bytes;
}

const char *ips2_writer_error(const struct ips2_writer *w)
{
    return w->err;
}

int ips2_writer_close(struct ips2_writer *w, char *err)
{
    int rc = 0;

    if (!w->err[0] && flush_buf(w) == 0) {
        w->hdr.state = IPS2_STATE_CLOSED;
        w->hdr.data_bytes = w->data_bytes;
        if (write_all(w->fd, &w->hdr, sizeof(w->hdr), 0) < 0)
            ips2_set_error(w->err, "%s: byte 0: cannot rewrite the header: %s", w->path,
                           strerror(errno));
    }
    if (close(w->fd) < 0 && !w->err[0])
        ips2_set_error(w->err, "%s: byte 0: cannot close: %s", w->path, strerror(errno));
    if (w->err[0]) {
        if (err)
            memcpy(err, w->err, IPS2_ERR_MAX);
        rc = -1;
    }
    free(w->path);
    free(w);
    return rc;
}
