/*
 * ips2_reader.h - streaming reader of ips2 trace streams.
 *
 * Reads raw streams (also of a live or killed process) and packed streams
 * with bounded memory: one block, plus the events between two exact CPU
 * readings when the CPU time of the events in between is interpolated.
 * It never trusts its input: every error names the file and byte offset
 * and says what was expected.
 *
 * This is the one decoder of the format: the reduction, ips2-dump and the
 * packer all read through it.  Events are decoded a batch at a time into
 * the reader's buffer, and ips2_reader_next() is an inline function that
 * hands out the next buffered event and calls ips2_reader_refill() only
 * when the buffer is empty (as Lua's ZIO does with its zgetc()), so a
 * consumer's loop costs no call per event.
 */
#ifndef IPS2_READER_H
#define IPS2_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ips2_format.h"

#define IPS2_ERR_MAX 512

struct ips2_reader;

struct ips2_event {
    unsigned kind;         /* enum ips2_kind */
    bool cpu_exact;        /* cpu_ns was read, not derived */
    uint64_t timer;        /* raw timer value */
    uint64_t wall_ns;      /* CLOCK_MONOTONIC ns on the writer's machine */
    uint64_t cpu_ns;       /* thread CPU time, exact or derived */
    uint64_t payload;      /* 48 bits: address or small argument */
    unsigned nextra;       /* words in extra[], CPU word not included */
    const uint64_t *extra; /* kind-specific words; valid until next call */
    uint64_t offset;       /* byte offset of the record (raw) or block (packed) */
};

/* Opens a stream.  Returns NULL and fills err (IPS2_ERR_MAX bytes) on failure. */
struct ips2_reader *ips2_reader_open(const char *path, char *err);
void ips2_reader_close(struct ips2_reader *r);

const struct ips2_file_header *ips2_reader_header(const struct ips2_reader *r);

/* The stream's calibration block (ips2_format.h), or NULL: it has none. */
const struct ips2_cost_ext *ips2_reader_costs(const struct ips2_reader *r);
/* Its second block (measured again at the stream's end), or NULL. */
const struct ips2_cost_ext *ips2_reader_costs_end(const struct ips2_reader *r);

/* The head of every reader: its decoded events not yet returned.  Public
 * only for ips2_reader_next(); the rest of struct ips2_reader is private. */
struct ips2_reader_head {
    const struct ips2_event *next, *end;
};

/* Decodes the next batch of events into the head: 1, or 0 at the end of
 * the stream, -1 on an error.  Call ips2_reader_next() or
 * ips2_reader_next_batch() instead. */
int ips2_reader_refill(struct ips2_reader *r);

/* Next event: 1 = *ev set; 0 = end of stream; -1 = error (see ips2_reader_error);
 * *ev is NULL then.  After an error the reader stays at end: what was returned before stands,
 * and every later call returns -1 again with the same message. */
static inline int ips2_reader_next(struct ips2_reader *r, const struct ips2_event **ev)
{
    struct ips2_reader_head *head = (struct ips2_reader_head *)(void *)r;

    if (__builtin_expect(head->next == head->end, 0)) {
        int rc = ips2_reader_refill(r);
        if (rc != 1) {
            *ev = NULL;
            return rc;
        }
    }
    *ev = head->next++;
    return 1;
}

/* The same events, several at once, for a loop that keeps its own index:
 * 1 = (*evs)[0 .. *n) set, n >= 1, valid until the next call; 0 = end of
 * stream; -1 = error, as ips2_reader_next(). */
static inline int ips2_reader_next_batch(struct ips2_reader *r, const struct ips2_event **evs,
                                         size_t *n)
{
    struct ips2_reader_head *head = (struct ips2_reader_head *)(void *)r;

    if (head->next == head->end) {
        int rc = ips2_reader_refill(r);
        if (rc != 1) {
            *evs = NULL;
            *n = 0;
            return rc;
        }
    }
    *evs = head->next;
    *n = (size_t)(head->end - head->next);
    head->next = head->end;
    return 1;
}

const char *ips2_reader_error(const struct ips2_reader *r);

/* True when the stream ended without being closed (writer died or is running). */
bool ips2_reader_unclosed(const struct ips2_reader *r);

/* Copies a NUL-padded string from extra words (skipping `skip` words) into buf. */
void ips2_event_string(const struct ips2_event *ev, unsigned skip, char *buf, size_t size);

/* Kind name for printing ("enter", "exit", ...), or "unknown". */
const char *ips2_kind_name(unsigned kind);

/* True for the kinds this version of the format defines. */
bool ips2_kind_known(unsigned kind);

#endif /* IPS2_READER_H */
