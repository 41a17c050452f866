/*
 * ips2_file.h - opening the files ips2 reads (trace streams, reductions,
 * PAG parts, logs) without trusting what lies at their names: a FIFO must
 * not hang the reader in open() or read(), and a device (a link to
 * /dev/zero) must not feed it without end.  A file is opened with
 * O_NONBLOCK (a FIFO without a writer opens at once), checked with
 * fstat() to be a regular file, then set back to blocking; what is read
 * of it is capped by its size at that moment.
 */
#ifndef IPS2_FILE_H
#define IPS2_FILE_H

#include <stddef.h>
#include <sys/stat.h>

/* Opens path read-only (close-on-exec, blocking once opened).  Returns
 * the descriptor with *st filled; -1 with errno set if it cannot be
 * opened; -2 if it is no regular file (st->st_mode says what it is, see
 * ips2_file_kind()). */
int ips2_file_open(const char *path, struct stat *st);

/* ips2_file_open() of a trace stream: a raw stream's path ("NAME.raw")
 * that is gone is opened as its packed twin, "NAME.ips2" (the packer
 * renames the packed stream into place complete before it removes the
 * raw one, so a stream listed raw may be packed by the time it is
 * opened). */
int ips2_file_open_stream(const char *path, struct stat *st);

/* "a FIFO", "a directory", "a character device", ... for a mode that
 * ips2_file_open() refused. */
const char *ips2_file_kind(mode_t mode);

/* Reads all of a regular file, as much as its size when opened (a file
 * growing meanwhile is read to that size), NUL-terminated.  Returns the
 * bytes (malloc'd, *size set), or NULL with err (IPS2_ERR_MAX bytes, may
 * be NULL) "PATH: expected a regular file, found a FIFO", "PATH: cannot
 * open: ..." or "PATH: cannot read: ...". */
char *ips2_file_read(const char *path, size_t *size, char *err);

#endif /* IPS2_FILE_H */
