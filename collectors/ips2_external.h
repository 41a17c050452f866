/*
 * ips2_external.h - the external data interface (paper §3): how any
 * performance monitor running beside the traced processes hands its
 * samples to ips2, and how the slave reads them back.
 *
 * A monitor writes one file into the machine's trace directory (the
 * IPS2_SESSION of the processes it watches), named COLLECTOR.PID.ext.
 * The file holds metric declarations, samples (time, metric, focus,
 * value), process records (a process starts being watched: a pid reused
 * by a new process starts new counters) and notes (what the monitor could
 * not do).  A focus is a process
 * (its pid) or the machine as a whole (pid 0).  Times are CLOCK_MONOTONIC
 * ns on the monitor's machine; the header keeps the CLOCK_REALTIME -
 * CLOCK_MONOTONIC offset, so the slave puts them on the session's time
 * base as it does the traces'.  Layout: traces/FORMAT.md §10.
 *
 * Writing is crash-safe: the header is written under a temporary name and
 * renamed, then every flush appends whole records with one write(); a
 * monitor killed mid-write leaves at most one torn record at the end,
 * which the reader drops.  Writing is bounded: past max_bytes the writer
 * appends one note saying so and drops every later sample.
 *
 * The reader trusts nothing: the first bad byte ends the reading with one
 * error naming the file, its byte offset and what was expected; what was
 * read before it is kept.
 */
#ifndef IPS2_EXTERNAL_H
#define IPS2_EXTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IPS2_EXT_SUFFIX    ".ext"
#define IPS2_EXT_NAME_MAX  64                  /* collector, metric and unit names */
#define IPS2_EXT_NOTE_MAX  1024                /* a note's text */
#define IPS2_EXT_MAX_BYTES (64u * 1024 * 1024) /* default bound of a file */
#define IPS2_EXT_METRICS   256                 /* metrics a file may declare */
#define IPS2_EXT_ERR_MAX   512

/* What a sample's value is. */
enum ips2_ext_kind {
    IPS2_EXT_COUNTER = 0, /* monotonic count since the focus began (a process: since its start) */
    IPS2_EXT_GAUGE = 1,   /* a level at that time */
};

/* ---- writing ---------------------------------------------------------- */

struct ips2_ext_writer;

/* Creates DIR/COLLECTOR.PID.ext (PID: the caller's) with its header.
 * interval_ns: the sampling interval, for the record; max_bytes: the
 * bound, 0 for IPS2_EXT_MAX_BYTES.  NULL with err (IPS2_EXT_ERR_MAX bytes)
 * set on failure.  The path is in *path_out if it is not NULL (malloc'd). */
struct ips2_ext_writer *ips2_ext_create(const char *dir, const char *collector,
                                        uint64_t interval_ns, uint64_t max_bytes, char **path_out,
                                        char *err);

/* Declares a metric (name as ips2_metric_name() spells it, for ips2 to
 * place it: "page_faults", "instructions", ...).  Returns its id (>= 0),
 * or -1 with err set. */
int ips2_ext_metric(struct ips2_ext_writer *w, const char *name, const char *unit,
                    enum ips2_ext_kind kind, char *err);

/* A process starts being watched: the samples of pid written after this
 * are a new process's (a pid the system reused for a new process must not
 * continue the counters of the old one).  pid > 0.  0, or -1 with err. */
int ips2_ext_process(struct ips2_ext_writer *w, int64_t mono_ns, uint32_t pid, char *err);

/* Buffers a sample / a note (pid 0: the machine).  Returns 0, or -1 with
 * err set when a flush failed.  Past the bound they are dropped (0). */
int ips2_ext_sample(struct ips2_ext_writer *w, int64_t mono_ns, int metric, uint32_t pid,
                    double value, char *err);
int ips2_ext_note(struct ips2_ext_writer *w, int64_t mono_ns, uint32_t pid, const char *text,
                  char *err);

/* Appends what is buffered (whole records, one write).  0, or -1 with err. */
int ips2_ext_flush(struct ips2_ext_writer *w, char *err);

/* Flushes, closes and frees (also on error).  0, or -1 with err. */
int ips2_ext_close(struct ips2_ext_writer *w, char *err);

/* CLOCK_MONOTONIC now, ns. */
int64_t ips2_ext_now(void);

/* ---- reading ---------------------------------------------------------- */

struct ips2_ext_metric_def {
    char *name, *unit;
    enum ips2_ext_kind kind;
};

struct ips2_ext_sample {
    uint32_t metric; /* index into metrics[] */
    uint32_t pid;    /* 0: the machine */
    uint32_t proc;   /* process records of pid before it: which process of that pid */
    int64_t mono_ns; /* >= 0; so is mono_ns + ref_real_ns - ref_mono_ns */
    double value;
};

struct ips2_ext_note {
    uint32_t pid;
    int64_t mono_ns;
    char *text;
};

struct ips2_ext_data {
    char *collector, *host;
    int64_t ref_real_ns, ref_mono_ns; /* one instant on both clocks, both >= 0 */
    uint64_t interval_ns;
    uint32_t writer_pid;
    struct ips2_ext_metric_def *metrics;
    size_t nmetrics;
    struct ips2_ext_sample *samples; /* in file order */
    size_t nsamples;
    struct ips2_ext_note *notes;
    size_t nnotes;
    bool torn; /* the last record was cut short (the writer died): dropped */
};

/* Decodes a file's bytes.  NULL with err set if the header is bad.
 * Otherwise the data up to the first bad record, with err set to
 * "NAME: byte N: expected ..., found ..." if there was one, else "". */
struct ips2_ext_data *ips2_ext_decode(const void *bytes, size_t size, const char *name, char *err);

/* Reads and decodes a file (as above; a file that cannot be read, or is
 * no regular file (a FIFO: never opened for a blocking read), is NULL). */
struct ips2_ext_data *ips2_ext_read(const char *path, char *err);

void ips2_ext_free(struct ips2_ext_data *d);

/* Whether a directory entry is an external data file (ends in .ext). */
bool ips2_ext_is_file(const char *name);

#endif /* IPS2_EXTERNAL_H */
