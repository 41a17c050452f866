/*
 * ips2_trace_dir.h - one machine's trace directory of a session
 * (SESSION/traces/MACHINE, or any directory a traced program wrote into),
 * listed: its streams grouped by process image and thread, the external
 * data files beside them, the files that bear such a name but are not
 * regular files, and the machine's clock offset.  The reduction reads a
 * directory through it; so can any other tool over a session's traces
 * (an exporter).
 *
 * Names (FORMAT.md §1, §10): <pid>.<image>.<tid>[.<k>].raw|ips2 for a
 * thread stream, <pid>.<image>.proc.raw|ips2 for a process image's
 * module map, <anything>.ext for an external data file.
 */
#ifndef IPS2_TRACE_DIR_H
#define IPS2_TRACE_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ips2_format.h"

/* The tid of a process stream (<pid>.<image>.proc.*). */
#define IPS2_TRACE_PROC_TID UINT32_MAX

struct ips2_trace_stream {
    char *path;     /* DIR/NAME */
    uint32_t pid;   /* of the process */
    uint32_t image; /* its exec generation: 0, 1 after the first exec, ... */
    uint32_t tid;   /* IPS2_TRACE_PROC_TID for the process stream */
    uint32_t k;     /* 0, or n for the n-th later thread with a reused tid */
    bool raw;       /* .raw, else .ips2 (packed) */
    uint64_t size;  /* bytes of the file */
};

struct ips2_trace_dir {
    char *dir;
    /* Sorted by pid, image, tid (the process stream last of its image),
     * k; a stream there both raw and packed is listed once, raw (the same
     * events, read faster). */
    struct ips2_trace_stream *streams;
    size_t nstreams;
    /* The paths of the *.ext files, sorted.  Listed whatever their type:
     * their reader refuses a file that is not regular, naming it. */
    char **ext_files;
    size_t next_files;
    /* "PATH: expected a regular file, found a FIFO" and the like: files
     * with a stream's name that are no stream (links are followed). */
    char **problems;
    size_t nproblems;
};

/* Lists directory `dir`.  Returns the listing (free with
 * ips2_trace_dir_free()), or NULL with err (IPS2_ERR_MAX bytes) set if
 * the directory cannot be read or memory runs out. */
struct ips2_trace_dir *ips2_trace_dir_open(const char *dir, char *err);
void ips2_trace_dir_free(struct ips2_trace_dir *td);

/* The end of the process image whose streams start at index first: the
 * streams [first, end) share its pid and image. */
size_t ips2_trace_dir_image_end(const struct ips2_trace_dir *td, size_t first);

/* The machine's CLOCK_REALTIME minus CLOCK_MONOTONIC, in ns, from the
 * stream header with the earliest calibration, which every stream of the
 * machine shares so that their times stay exactly comparable (FORMAT.md
 * §6); 0 if no header can be read.  host (host_size bytes) gets that
 * header's host name, or "". */
int64_t ips2_trace_dir_clock_offset(const struct ips2_trace_dir *td, char *host, size_t host_size);

/* Parses a file name (not a path) as a stream's; false if it is none.
 * s->path and s->size are left alone. */
bool ips2_trace_stream_name(const char *name, struct ips2_trace_stream *s);

/* Reads the header of the stream at path, checking nothing but its magic
 * (the strings are NUL-terminated); false if it cannot. */
bool ips2_trace_stream_header(const char *path, struct ips2_file_header *h);

#endif /* IPS2_TRACE_DIR_H */
