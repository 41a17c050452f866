/*
 * ips2_pack.h - compress finished raw streams into the packed encoding.
 *
 * The slave analyst packs its machine's trace directory after the traced
 * processes have ended, and ips2-pack does it by hand; both run off the
 * application's hot path.  Packing is lossless: a packed stream reads back
 * to exactly the events of the raw one.
 */
#ifndef IPS2_PACK_H
#define IPS2_PACK_H

#include <stdbool.h>
#include <stdint.h>

/* Packs raw stream `raw_path` into `packed_path` (written via a temporary
 * name, then renamed).  Returns 0, or -1 with err (IPS2_ERR_MAX bytes) set;
 * a raw stream that ends in a corrupt record is packed up to that record
 * and the error is still reported. */
int ips2_pack_file(const char *raw_path, const char *packed_path, char *err);

/* Packs raw stream `raw_path` (its name ends in ".raw") into <name>.ips2
 * beside it and then, unless keep, removes the raw stream.  A stream that
 * fails stays raw, and the partial packed copy this call made is removed
 * (an older file at the packed name is left alone), so a directory holds
 * every stream exactly once and a failed pack never loses data.  Returns
 * 0, or -1 with err (IPS2_ERR_MAX bytes) set to a message naming the
 * stream. */
int ips2_pack_stream(const char *raw_path, bool keep, char *err);

/* What ips2_pack_dir() tells its caller as it goes; every member may be
 * NULL.  progress: before each stream (done of total) and once at the end
 * (total of total).  failed: a failure and its message, which names the
 * file: a stream that stayed raw (stream: its path), or an error listing
 * the directory (stream: NULL). */
struct ips2_pack_report {
    void (*progress)(void *arg, uint64_t done, uint64_t total);
    void (*failed)(void *arg, const char *stream, const char *message);
    void *arg;
};

/* Packs, with ips2_pack_stream(), every regular file of directory `dir`
 * whose name ends in ".raw" (in name order, not recursively; links,
 * directories and other special files so named are left alone).  Returns
 * the number of failures reported through `report`, or -1 with err set if
 * the directory cannot be opened. */
int ips2_pack_dir(const char *dir, bool keep, const struct ips2_pack_report *report, char *err);

#endif /* IPS2_PACK_H */
