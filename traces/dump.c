/*
 * dump.c - ips2-dump: print the events of ips2 trace streams.
 *
 *   ips2-dump [--raw | --clones] [--summary | --tsv] FILE|DIR...
 *
 * A directory argument dumps every stream in it, as ips2_trace_dir.h lists
 * them (process by process, the process stream after its threads; a stream
 * there both raw and packed once): a trace directory (SESSION/traces/M, or
 * the ./ips2.<pid>/ of ips2-preload), or a session directory, whose
 * traces/ folders are dumped machine by machine.  Files that are no stream
 * (ips2-channels.shm, .ext files, a manifest) are skipped; a file with a
 * stream's name that is not a regular file is skipped with a note.
 *
 * Default: a header block per stream, then one line per event: wall time
 * and CPU time in microseconds (wall relative to the header's ref_mono_ns;
 * CPU marked '*' when derived rather than read), the kind, and its data
 * decoded.  Procedure entries and exits are indented by call depth and
 * named from the process stream beside the thread stream
 * (ips2_proc_stream_path) by their source names (a clone such as
 * "f.constprop.0" is "f", as in every table); --clones names them as the
 * ELF symbols are written; --raw prints addresses instead.  Every other
 * kind prints its fields by name from dump_fields.c's table ("recv fd 4
 * key ... bytes [0,64) waited 14.9 us call read"); a kind it lacks prints
 * "payload 0x.." and its words in hex.
 *
 * --summary prints, over all files, "calls <count> <name>" per procedure
 * (traced calls and counted-only ones, from CALLS records, together)
 * (sorted by name), then "kind <name> <count>" per event kind (in kind
 * order), and with LOCK_COUNTED records "counted lock-acquired <n>" and
 * "counted lock-release <n>", the acquisitions and releases they counted
 * (not among the kinds' events).  --tsv prints one event per line, tab-separated: kind, wall_ns,
 * cpu_ns, cpu_exact (0/1), payload (hex), name (or empty), then the
 * extras: decimal words, except hex addresses for module ranges and the
 * decoded path for exec and module events.  Header lines start with "#".
 * The TSV keeps the interaction events' words raw (decimal), in the
 * format's order, so that scripts index them as FORMAT.md numbers them.
 * Strings are escaped in every mode (C style), so that a hostile trace
 * cannot inject tabs, newlines or terminal controls.
 *
 * A stream that cannot be read is reported as "ips2-dump: <reader message>"
 * on stderr after the events read before the error; the exit status is 1
 * if any file had an error.  A stream that was not closed is only noted.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dump_fields.h"
#include "ips2_fields.h"
#include "ips2_reader.h"
#include "ips2_symbols.h"
#include "ips2_trace_dir.h"

enum mode { MODE_EVENTS, MODE_SUMMARY, MODE_TSV };

static enum mode mode = MODE_EVENTS;
static bool raw_names;
static bool clone_names; /* --clones: symbols as written */

/* The symbol table of the process image of the current file, kept while
 * consecutive files belong to the same image. */
static struct ips2_symtab *symtab;
static char symtab_path[4096];

/* ------------------------------------------------------------------ */
/* Counting for --summary                                              */

struct count {
    char *name;
    uint64_t n;
    struct count *next;
};

#define CALL_BUCKETS 4096
static struct count *calls[CALL_BUCKETS];
static size_t ncalls;
static uint64_t kind_counts[IPS2_EV_KIND_MAX + 1];
static uint64_t lock_counted[2]; /* LOCK_COUNTED: acquisitions, releases */

/* Adds n calls of name (an ENTER: 1; a CALLS record: its count). */
static void count_call(const char *name, uint64_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    struct count **b = &calls[h % CALL_BUCKETS];
    for (struct count *c = *b; c; c = c->next) {
        if (strcmp(c->name, name) == 0) {
            c->n += n;
            return;
        }
    }
    struct count *c = malloc(sizeof(*c));
    if (!c || !(c->name = strdup(name))) {
        fprintf(stderr, "ips2-dump: out of memory\n");
        exit(1);
    }
    c->n = n;
    c->next = *b;
    *b = c;
    ncalls++;
}

static int count_cmp(const void *a, const void *b)
{
    const struct count *x = *(struct count *const *)a, *y = *(struct count *const *)b;
    return strcmp(x->name, y->name);
}

static void print_summary(void)
{
    struct count **all = malloc((ncalls ? ncalls : 1) * sizeof(*all));
    size_t n = 0;

    if (!all) {
        fprintf(stderr, "ips2-dump: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < CALL_BUCKETS; i++)
        for (struct count *c = calls[i]; c; c = c->next)
            all[n++] = c;
    qsort(all, n, sizeof(*all), count_cmp);
    for (size_t i = 0; i < n; i++)
        printf("calls %" PRIu64 " %s\n", all[i]->n, all[i]->name);
    for (unsigned k = 0; k <= IPS2_EV_KIND_MAX; k++)
        if (kind_counts[k])
            printf("kind %s %" PRIu64 "\n", ips2_kind_name(k), kind_counts[k]);
    if (kind_counts[IPS2_EV_LOCK_COUNTED]) {
        printf("counted lock-acquired %" PRIu64 "\n", lock_counted[0]);
        printf("counted lock-release %" PRIu64 "\n", lock_counted[1]);
    }
    free(all);
}

/* ------------------------------------------------------------------ */
/* Formatting helpers                                                  */

/* Microseconds with three decimals from signed nanoseconds. */
static void put_us(int64_t ns, int width)
{
    char buf[32];
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

    snprintf(buf, sizeof(buf), "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", a / 1000,
             (unsigned)(a % 1000));
    printf("%*s", width, buf);
}

/* The procedure name of an address: "name", "name+0x10", or "0x401000". */
static void proc_name(uint64_t addr, char *buf, size_t size)
{
    uint64_t off = 0;
    const char *name = raw_names || !symtab ? NULL
                       : clone_names        ? ips2_symtab_lookup_symbol(symtab, addr, &off)
                                            : ips2_symtab_lookup(symtab, addr, &off);

    if (!name)
        snprintf(buf, size, "0x%" PRIx64, addr);
    else if (off)
        snprintf(buf, size, "%s+0x%" PRIx64, name, off);
    else
        snprintf(buf, size, "%s", name);
}

/* ------------------------------------------------------------------ */
/* The header block                                                    */

static void put_field(const char *key, const char *s, size_t max)
{
    printf(mode == MODE_TSV ? "#\t%s\t" : "%-10s ", key);
    ips2_dump_escaped(stdout, s, max);
    putchar('\n');
}

static void print_header(const char *file, const struct ips2_file_header *h,
                         const struct ips2_cost_ext *c, const struct ips2_cost_ext *end)
{
    static const char *const cost_names[IPS2_COST_GROUPS] = {"proc", "sync"};
    bool tsv = mode == MODE_TSV;
    const char *fmt = tsv ? "#\t%s\t" : "%-10s ";

    put_field("file", file, SIZE_MAX);
    printf(fmt, "stream");
    printf("%s\n", h->stream_kind == IPS2_STREAM_THREAD    ? "thread"
                   : h->stream_kind == IPS2_STREAM_PROCESS ? "process"
                                                           : "kind-?");
    put_field("host", h->host, sizeof(h->host));
    put_field("app", h->app, sizeof(h->app));
    printf(fmt, "pid");
    printf("%" PRIu32 "\n", h->pid);
    printf(fmt, "ppid");
    printf("%" PRIu32 "\n", h->ppid);
    printf(fmt, "tid");
    printf("%" PRIu32 "\n", h->tid);
    printf(fmt, "image");
    printf("%" PRIu32 "\n", h->image);
    put_field("exe", h->exe, sizeof(h->exe));
    printf(fmt, "version");
    printf("%u\n", (unsigned)h->version);
    printf(fmt, "encoding");
    printf("%s\n", h->encoding == IPS2_ENC_RAW      ? "raw"
                   : h->encoding == IPS2_ENC_PACKED ? "packed"
                                                    : "encoding-?");
    printf(fmt, "cpu");
    switch (h->cpu_method) {
    case IPS2_CPU_EXACT:
        printf("exact\n");
        break;
    case IPS2_CPU_INTERP:
        printf("interpolated, sync every %" PRIu32 " us or %" PRIu32 " records\n", h->cpu_param,
               h->sync_records);
        break;
    case IPS2_CPU_TICK:
        printf("tick, %" PRIu32 " ms\n", h->cpu_param);
        break;
    default:
        printf("method-%u\n", (unsigned)h->cpu_method);
    }
    printf(fmt, "timer");
    if (h->timer == IPS2_TIMER_TSC)
        printf("tsc\n");
    else if (h->timer == IPS2_TIMER_MONOTONIC)
        printf("monotonic\n");
    else
        printf("timer-%" PRIu32 "\n", h->timer);
    printf(fmt, "tsc_hz");
    printf("%" PRIu64 "\n", h->tsc_hz);
    printf(fmt, "ref");
    printf("timer %" PRIu64 " mono_ns %" PRIu64 " real_ns %" PRIu64 "\n", h->ref_tsc,
           h->ref_mono_ns, h->ref_real_ns);
    printf(fmt, "state");
    printf("%s\n", h->state == IPS2_STATE_CLOSED ? "closed" : "open (not closed)");
    printf(fmt, "data");
    printf("%" PRIu64 " bytes\n", h->data_bytes);
    printf(fmt, "features");
    printf("0x%" PRIx64, h->features);
    if (h->features & IPS2_FEAT_PROC_EVENTS)
        printf(" proc-events");
    if (h->features & IPS2_FEAT_SHORT_LOCKS)
        printf(" short-locks");
    if (h->features & IPS2_FEAT_CALLS)
        printf(" calls");
    if (h->features & IPS2_FEAT_LOCK_COUNTS)
        printf(" lock-counts");
    if (h->features & IPS2_FEAT_TRUNCATED)
        printf(" truncated");
    if (h->features & ~IPS2_FEAT_KNOWN)
        printf(" unknown-0x%" PRIx64, (uint64_t)(h->features & ~IPS2_FEAT_KNOWN));
    putchar('\n');
    printf(fmt, "cost_ns");
    for (unsigned g = 0; g < IPS2_COST_GROUPS; g++) {
        if (cost_names[g])
            printf("%s%s %" PRIu32, g ? " " : "", cost_names[g], h->cost_ns[g]);
        else if (h->cost_ns[g])
            printf(" group%u %" PRIu32, g, h->cost_ns[g]);
    }
    putchar('\n');
    if (c) { /* the calibration block: ns outside/inside per probe, wall and CPU */
        static const char *const probe_names[IPS2_PROBES] = {"enter", "exit", "lock", "event",
                                                             "wait",  "sync", "page", "sampled"};
        for (const struct ips2_cost_ext *b = c; b; b = b == c ? end : NULL) {
            printf(fmt, b == c ? "calib" : "calib_end");
            printf("%.3f ms, %u probes each; wall/cpu ns outside+inside:", b->calib_ns / 1e6,
                   b->reps);
            for (unsigned p = 0; p < IPS2_PROBES; p++)
                if (probe_names[p]) /* page: ns a byte of record, finer */
                    printf(p == IPS2_PROBE_PAGE ? " %s %.3f+%.3f/%.3f+%.3f"
                                                : " %s %.1f+%.1f/%.1f+%.1f",
                           probe_names[p], b->wall_ps[p] / 1e3, b->wall_in_ps[p] / 1e3,
                           b->cpu_ps[p] / 1e3, b->cpu_in_ps[p] / 1e3);
            putchar('\n');
        }
    }
    if (!tsv)
        printf("%14s %15s  %-13s %s\n", "wall_us", "cpu_us", "kind", "data");
}

/* ------------------------------------------------------------------ */
/* Events                                                              */

/* The decoded data of an event for the readable listing: procedure
 * entries and exits by name and depth, the kinds dump_fields.c knows field
 * by field, anything else (a kind newer than this table) as raw words. */
static void put_detail(const struct ips2_event *ev, const struct ips2_file_header *h,
                       unsigned *depth)
{
    char buf[IPS2_PATH_MAX + 64];

    if (ev->kind == IPS2_EV_ENTER || ev->kind == IPS2_EV_EXIT) {
        if (ev->kind == IPS2_EV_EXIT && *depth > 0)
            (*depth)--;
        proc_name(ev->payload, buf, sizeof(buf));
        printf("%*s", (int)(*depth > 64 ? 128 : 2 * *depth), "");
        ips2_dump_escaped(stdout, buf, sizeof(buf));
        if (ev->kind == IPS2_EV_ENTER)
            (*depth)++;
    } else if (ev->kind == IPS2_EV_CALLS) { /* a counted-only procedure, by name */
        proc_name(ev->payload, buf, sizeof(buf));
        ips2_dump_escaped(stdout, buf, sizeof(buf));
        if (ev->nextra > IPS2_F_CALLS_COUNT)
            printf(" calls %" PRIu64, ev->extra[IPS2_F_CALLS_COUNT]);
    } else if (!ips2_dump_fields(stdout, ev, h)) {
        printf("payload 0x%" PRIx64, ev->payload);
        for (unsigned i = 0; i < ev->nextra; i++)
            printf(" 0x%" PRIx64, ev->extra[i]);
    }
}

static void put_tsv(const struct ips2_event *ev)
{
    char buf[IPS2_PATH_MAX + 64];
    unsigned first = 0;

    printf("%s\t%" PRIu64 "\t%" PRIu64 "\t%d\t0x%" PRIx64 "\t", ips2_kind_name(ev->kind),
           ev->wall_ns, ev->cpu_ns, ev->cpu_exact ? 1 : 0, ev->payload);
    if (ev->kind == IPS2_EV_ENTER || ev->kind == IPS2_EV_EXIT || ev->kind == IPS2_EV_CALLS) {
        proc_name(ev->payload, buf, sizeof(buf));
        ips2_dump_escaped(stdout, buf, sizeof(buf));
    }
    if (ev->kind == IPS2_EV_EXEC) {
        ips2_event_string(ev, IPS2_F_EXEC_PATH, buf, sizeof(buf));
        putchar('\t');
        ips2_dump_escaped(stdout, buf, sizeof(buf));
        first = ev->nextra; /* the words are the string */
    } else if (ev->kind == IPS2_EV_MODULE) {
        for (unsigned i = IPS2_F_MODULE_START; i <= IPS2_F_MODULE_END; i++) {
            if (i < ev->nextra)
                printf("\t0x%" PRIx64, ev->extra[i]);
            else
                fputs("\t?", stdout);
        }
        ips2_event_string(ev, IPS2_F_MODULE_PATH, buf, sizeof(buf));
        putchar('\t');
        ips2_dump_escaped(stdout, buf, sizeof(buf));
        first = ev->nextra;
    }
    for (unsigned i = first; i < ev->nextra; i++)
        printf("\t%" PRIu64, ev->extra[i]);
    putchar('\n');
}

static void print_event(const struct ips2_event *ev, const struct ips2_file_header *h,
                        unsigned *depth)
{
    put_us((int64_t)(ev->wall_ns - h->ref_mono_ns), 14);
    putchar(' ');
    put_us((int64_t)ev->cpu_ns, 14);
    putchar(ev->cpu_exact ? ' ' : '*');
    printf("  %-13s ", ips2_kind_name(ev->kind));
    put_detail(ev, h, depth);
    putchar('\n');
}

/* Loads the names for a thread stream, unless already loaded. */
static void load_symbols(const char *file)
{
    char proc[sizeof(symtab_path)], err[IPS2_ERR_MAX];

    if (raw_names)
        return;
    if (ips2_proc_stream_path(file, proc, sizeof(proc)) != 0) {
        ips2_symtab_free(symtab);
        symtab = NULL;
        symtab_path[0] = '\0';
        return;
    }
    if (symtab && strcmp(proc, symtab_path) == 0)
        return;
    ips2_symtab_free(symtab);
    symtab = ips2_symtab_new();
    snprintf(symtab_path, sizeof(symtab_path), "%s", proc);
    if (!symtab) {
        fprintf(stderr, "ips2-dump: out of memory\n");
        exit(1);
    }
    err[0] = '\0';
    int n = ips2_symtab_load_process(symtab, proc, err);
    if (n < 0 || err[0]) {
        fflush(stdout);
        fprintf(stderr, "ips2-dump: warning: %s%s\n", err,
                n < 0 ? "" : " (its addresses print as module offsets)");
    }
}

/* Dumps one stream.  Returns 0, or 1 if it had an error. */
static int dump_file(const char *file)
{
    char err[IPS2_ERR_MAX];
    struct ips2_reader *r = ips2_reader_open(file, err);
    const struct ips2_event *ev;
    unsigned depth = 0;
    int rc;

    if (!r) {
        fflush(stdout);
        fprintf(stderr, "ips2-dump: %s\n", err);
        return 1;
    }
    const struct ips2_file_header *h = ips2_reader_header(r);
    if (h->stream_kind == IPS2_STREAM_THREAD)
        load_symbols(file);
    if (mode != MODE_SUMMARY)
        print_header(file, h, ips2_reader_costs(r), ips2_reader_costs_end(r));

    while ((rc = ips2_reader_next(r, &ev)) == 1) {
        if (mode == MODE_SUMMARY) {
            kind_counts[ev->kind & IPS2_EV_KIND_MAX]++;
            if (ev->kind == IPS2_EV_LOCK_COUNTED && ev->nextra > IPS2_F_LOCK_COUNTED_RELEASED) {
                lock_counted[0] += ev->extra[IPS2_F_LOCK_COUNTED_ACQUIRED];
                lock_counted[1] += ev->extra[IPS2_F_LOCK_COUNTED_RELEASED];
            }
            if (ev->kind == IPS2_EV_ENTER || ev->kind == IPS2_EV_CALLS) {
                char name[IPS2_PATH_MAX];
                proc_name(ev->payload, name, sizeof(name));
                count_call(name, ev->kind == IPS2_EV_ENTER         ? 1
                                 : ev->nextra > IPS2_F_CALLS_COUNT ? ev->extra[IPS2_F_CALLS_COUNT]
                                                                   : 0);
            }
        } else if (mode == MODE_TSV) {
            put_tsv(ev);
        } else {
            print_event(ev, h, &depth);
        }
    }
    fflush(stdout);
    if (rc < 0)
        fprintf(stderr, "ips2-dump: %s\n", ips2_reader_error(r));
    if (ips2_reader_unclosed(r))
        fprintf(stderr, "ips2-dump: %s: stream not closed: writer still running or died\n", file);
    ips2_reader_close(r);
    if (mode == MODE_EVENTS)
        putchar('\n');
    return rc < 0 ? 1 : 0;
}

/* Dumps every stream of one trace directory, adding them to *nstreams.
 * Returns 0, or 1 if the directory could not be listed or a stream had an
 * error. */
static int dump_trace_dir(const char *dir, size_t *nstreams)
{
    char err[IPS2_ERR_MAX];
    struct ips2_trace_dir *td = ips2_trace_dir_open(dir, err);
    int status = 0;

    if (!td) {
        fflush(stdout);
        fprintf(stderr, "ips2-dump: %s\n", err);
        return 1;
    }
    for (size_t i = 0; i < td->nproblems; i++) {
        fflush(stdout);
        fprintf(stderr, "ips2-dump: skipped %s\n", td->problems[i]);
    }
    for (size_t i = 0; i < td->nstreams; i++)
        status |= dump_file(td->streams[i].path);
    *nstreams += td->nstreams;
    ips2_trace_dir_free(td);
    return status;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* Dumps a directory: a session's traces/ folders, machine by machine, or
 * the directory itself as a trace directory; one with no stream at all is
 * an error (a mistyped path, most likely). */
static int dump_dir(const char *dir)
{
    char traces[4096];
    struct stat st;
    struct dirent **names;
    int n, status = 0;
    size_t nstreams = 0;

    snprintf(traces, sizeof(traces), "%s/traces", dir);
    if (stat(traces, &st) != 0 || !S_ISDIR(st.st_mode)) {
        status = dump_trace_dir(dir, &nstreams);
        goto out;
    }
    if ((n = scandir(traces, &names, NULL, by_name)) < 0) {
        fflush(stdout);
        fprintf(stderr, "ips2-dump: %s: %s\n", traces, strerror(errno));
        return 1;
    }
    for (int i = 0; i < n; i++) {
        char machine[4096 + 256];
        snprintf(machine, sizeof(machine), "%s/%s", traces, names[i]->d_name);
        if (names[i]->d_name[0] != '.' && stat(machine, &st) == 0 && S_ISDIR(st.st_mode))
            status |= dump_trace_dir(machine, &nstreams);
        free(names[i]);
    }
    free(names);
out:
    if (nstreams == 0 && status == 0) {
        fflush(stdout);
        fprintf(stderr, "ips2-dump: %s: expected trace streams in the directory, found none\n",
                dir);
        return 1;
    }
    return status;
}

/* A file is a stream; a directory holds streams (dump_dir). */
static int dump_path(const char *path)
{
    struct stat st;

    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return dump_dir(path);
    return dump_file(path);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: ips2-dump [--raw | --clones] [--summary | --tsv] FILE|DIR...\n"
               "  --raw      print procedure addresses, not names\n"
               "  --clones   name compiler clones as written (f.constprop.0), not as f\n"
               "  --summary  only call counts per procedure and event counts per kind\n"
               "  --tsv      one event per line, tab-separated, for scripts\n"
               "A DIR is a trace directory or a session: every stream in it is dumped.\n");
}

int main(int argc, char **argv)
{
    int status = 0, i;

    for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else if (strcmp(argv[i], "--raw") == 0) {
            raw_names = true;
        } else if (strcmp(argv[i], "--clones") == 0) {
            clone_names = true;
        } else if (strcmp(argv[i], "--summary") == 0) {
            mode = MODE_SUMMARY;
        } else if (strcmp(argv[i], "--tsv") == 0) {
            mode = MODE_TSV;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "ips2-dump: unknown option %s\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (i >= argc) {
        usage(stderr);
        return 2;
    }
    for (; i < argc; i++)
        status |= dump_path(argv[i]);
    if (mode == MODE_SUMMARY)
        print_summary();
    ips2_symtab_free(symtab);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "ips2-dump: writing output: %s\n", strerror(errno));
        return 1;
    }
    return status;
}
