/*
 * reader_internal.h - reader options private to traces/ (the packer).
 *
 * The packer must copy a stream losslessly, so it reads events as they
 * were recorded: cpu_exact says whether the record carried a CPU reading
 * (its has_cpu bit) and cpu_ns is that reading, or 0 without one; no CPU
 * time is derived and no events are queued for interpolation.
 */
#ifndef IPS2_READER_INTERNAL_H
#define IPS2_READER_INTERNAL_H

#include "ips2_reader.h"

#define IPS2_READER_AS_RECORDED 1u /* no derived CPU times */
#define IPS2_READER_EXACT_PATH  2u /* no packed twin for a raw stream gone (the packer) */

struct ips2_reader *ips2_reader_open_flags(const char *path, unsigned flags, char *err);

#endif /* IPS2_READER_INTERNAL_H */
