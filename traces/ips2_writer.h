/*
 * ips2_writer.h - write a raw ips2 stream to a file, for tools and tests.
 *
 * This is not libips2's hot path (that one writes records into a shared
 * mapping); it is a plain buffered file writer that produces the same raw
 * encoding with the same record encoder (ips2_record.h).  The stream is
 * OPEN until ips2_writer_close() rewrites the header as CLOSED with the
 * exact data_bytes.
 */
#ifndef IPS2_WRITER_H
#define IPS2_WRITER_H

#include <stdint.h>

#include "ips2_format.h"

struct ips2_writer;

/* Creates (truncates) path and writes hdr padded to IPS2_RAW_HEADER_SIZE.
 * The writer owns magic, version, endian, encoding (RAW), header_size,
 * state (OPEN) and data_bytes (0); every other field is taken from hdr
 * (see ips2_header_init()).  Returns NULL with err (IPS2_ERR_MAX bytes)
 * set on failure. */
struct ips2_writer *ips2_writer_create(const char *path, const struct ips2_file_header *hdr,
                                       char *err);

/* Appends one long record: kind (0-127, not a short kind), the timer
 * value, the CPU time if has_cpu, the 48-bit payload and nextra extra
 * words (CPU word not included, so nextra + has_cpu <= IPS2_RAW_MAX_EXTRA).
 * Returns 0, or -1 on a bad argument or a write error; the first error
 * sticks (see ips2_writer_error()) and is reported again by
 * ips2_writer_close(). */
int ips2_writer_emit(struct ips2_writer *w, unsigned kind, uint64_t timer, int has_cpu,
                     uint64_t cpu_ns, uint64_t payload, const uint64_t *extra, unsigned nextra);

/* Appends one raw word as is: a short record (IPS2_SHORT_WORD), a
 * one-word PAD record, or anything a test wants to put in the stream.
 * Returns 0, or -1 after an error. */
int ips2_writer_emit_word(struct ips2_writer *w, uint64_t word);

/* Bytes of records written so far (what data_bytes will say). */
uint64_t ips2_writer_data_bytes(const struct ips2_writer *w);

/* The first error, or "" if none. */
const char *ips2_writer_error(const struct ips2_writer *w);

/* Flushes, marks the stream CLOSED with its data_bytes, closes the file
 * and frees w (also on failure).  Returns 0, or -1 with err set. */
int ips2_writer_close(struct ips2_writer *w, char *err);

#endif /* IPS2_WRITER_H */
