/*
 * trace_dir.c - listing a trace directory (ips2_trace_dir.h).
 *
 * One readdir() pass sorts every entry into streams, external data files
 * and problems; the streams are then sorted by (pid, image, tid, k, raw),
 * which puts a packed stream right before its raw twin, so dropping the
 * twin is one pass.  Nothing here opens a stream but to read its header
 * for the clock offset.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ips2_error.h"
#include "ips2_file.h"
#include "ips2_reader.h" /* IPS2_ERR_MAX */
#include "ips2_trace_dir.h"

static const char EXT_SUFFIX[] = ".ext"; /* FORMAT.md §10 */

/* ---- names ----------------------------------------------------------- */

/* Reads a decimal number of at most 10 digits ending at `end`; NULL if none. */
static const char *number(const char *p, char end, uint32_t *out)
{
    uint64_t v = 0;
    const char *start = p;

    while (*p >= '0' && *p <= '9' && p - start < 10)
        v = v * 10 + (uint64_t)(*p++ - '0');
    if (p == start || *p != end || v > UINT32_MAX)
        return NULL;
    *out = (uint32_t)v;
    return p + 1;
}

bool ips2_trace_stream_name(const char *name, struct ips2_trace_stream *s)
{
    const char *p = name;

    s->k = 0;
    if (!(p = number(p, '.', &s->pid)) || !(p = number(p, '.', &s->image)))
        return false;
    if (!strncmp(p, "proc.", 5)) {
        s->tid = IPS2_TRACE_PROC_TID;
        p += 5;
    } else {
        if (!(p = number(p, '.', &s->tid)) || s->tid == IPS2_TRACE_PROC_TID)
            return false;
        const char *q = number(p, '.', &s->k);
        if (q)
            p = q;
    }
    if (!strcmp(p, "raw"))
        s->raw = true;
    else if (!strcmp(p, "ips2"))
        s->raw = false;
    else
        return false;
    return true;
}

static bool is_ext_name(const char *name)
{
    size_t n = strlen(name), s = sizeof(EXT_SUFFIX) - 1;
    return n > s && strcmp(name + n - s, EXT_SUFFIX) == 0;
}

/* ---- the listing ----------------------------------------------------- */

/* Appends one element of `size` bytes to *v (n used, *cap allocated);
 * false when out of memory. */
static bool grow(void **v, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return true;
    size_t c = *cap ? *cap * 2 : 64;
    void *nv = realloc(*v, c * size);
    if (nv == NULL)
        return false;
    *v = nv;
    *cap = c;
    return true;
}

static bool add_string(char ***v, size_t *n, size_t *cap, char *s)
{
    if (!grow((void **)v, *n, cap, sizeof **v)) {
        free(s);
        return false;
    }
    (*v)[(*n)++] = s;
    return true;
}

static int cmp_stream(const void *a, const void *b)
{
    const struct ips2_trace_stream *x = a, *y = b;

#define CMP(f)                                                                                     \
    if (x->f != y->f)                                                                              \
        return x->f < y->f ? -1 : 1;
    CMP(pid)
    CMP(image)
    CMP(tid)
    CMP(k)
    CMP(raw)
#undef CMP
    return 0;
}

static int cmp_string(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Drops the packed twin of a raw stream: it sorts right before it. */
static void drop_packed_twins(struct ips2_trace_dir *td)
{
    size_t o = 0;
    for (size_t i = 0; i < td->nstreams; i++) {
        struct ips2_trace_stream *s = &td->streams[i], *next = s + 1;
        if (i + 1 < td->nstreams && !s->raw && next->raw && s->pid == next->pid &&
            s->image == next->image && s->tid == next->tid && s->k == next->k) {
            free(s->path);
            continue;
        }
        td->streams[o++] = *s;
    }
    td->nstreams = o;
}

/* Files one directory entry; false when out of memory. */
static bool add_entry(struct ips2_trace_dir *td, const char *name, size_t *cap_streams,
                      size_t *cap_ext, size_t *cap_problems)
{
    struct ips2_trace_stream s;
    bool stream = ips2_trace_stream_name(name, &s);
    if (!stream && !is_ext_name(name))
        return true;
    char *path;
    if (asprintf(&path, "%s/%s", td->dir, name) < 0)
        return false;
    if (!stream) /* its reader checks its type */
        return add_string(&td->ext_files, &td->next_files, cap_ext, path);

    struct stat st;
    if (stat(path, &st) != 0) { /* gone, or a dangling link */
        free(path);
        return true;
    }
    if (!S_ISREG(st.st_mode)) {
        char *problem;
        int rc = asprintf(&problem, "%s: expected a regular file, found %s", path,
                          ips2_file_kind(st.st_mode));
        free(path);
        return rc >= 0 && add_string(&td->problems, &td->nproblems, cap_problems, problem);
    }
    if (!grow((void **)&td->streams, td->nstreams, cap_streams, sizeof *td->streams)) {
        free(path);
        return false;
    }
    s.path = path;
    s.size = (uint64_t)st.st_size;
    td->streams[td->nstreams++] = s;
    return true;
}

struct ips2_trace_dir *ips2_trace_dir_open(const char *dir, char *err)
{
    struct ips2_trace_dir *td = calloc(1, sizeof *td);
    if (td == NULL || (td->dir = strdup(dir)) == NULL) {
        free(td);
        ips2_set_error(err, "%s: out of memory listing the trace directory", dir);
        return NULL;
    }
    DIR *d = opendir(dir);
    if (d == NULL) {
        ips2_set_error(err, "%s: cannot open the trace directory: %s", dir, strerror(errno));
        ips2_trace_dir_free(td);
        return NULL;
    }
    size_t cap_streams = 0, cap_ext = 0, cap_problems = 0;
    struct dirent *e;
    errno = 0;
    while ((e = readdir(d)) != NULL) {
        if (!add_entry(td, e->d_name, &cap_streams, &cap_ext, &cap_problems)) {
            closedir(d);
            ips2_trace_dir_free(td);
            ips2_set_error(err, "%s: out of memory listing the trace directory", dir);
            return NULL;
        }
        errno = 0;
    }
    int read_errno = errno;
    closedir(d);
    if (read_errno != 0) { /* what was read is listed; the rest is a problem */
        char *problem;
        if (asprintf(&problem, "%s: cannot read the whole trace directory: %s", dir,
                     strerror(read_errno)) < 0 ||
            !add_string(&td->problems, &td->nproblems, &cap_problems, problem)) {
            ips2_trace_dir_free(td);
            ips2_set_error(err, "%s: out of memory listing the trace directory", dir);
            return NULL;
        }
    }
    if (td->nstreams > 1)
        qsort(td->streams, td->nstreams, sizeof *td->streams, cmp_stream);
    drop_packed_twins(td);
    if (td->next_files > 1)
        qsort(td->ext_files, td->next_files, sizeof *td->ext_files, cmp_string);
    if (td->nproblems > 1)
        qsort(td->problems, td->nproblems, sizeof *td->problems, cmp_string);
    return td;
}

static void free_strings(char **v, size_t n)
{
    while (n > 0)
        free(v[--n]);
    free(v);
}

void ips2_trace_dir_free(struct ips2_trace_dir *td)
{
    if (td == NULL)
        return;
    while (td->nstreams > 0)
        free(td->streams[--td->nstreams].path);
    free(td->streams);
    free_strings(td->ext_files, td->next_files);
    free_strings(td->problems, td->nproblems);
    free(td->dir);
    free(td);
}

size_t ips2_trace_dir_image_end(const struct ips2_trace_dir *td, size_t first)
{
    size_t end = first + 1;
    while (end < td->nstreams && td->streams[end].pid == td->streams[first].pid &&
           td->streams[end].image == td->streams[first].image)
        end++;
    return end;
}

/* ---- headers and the clock ------------------------------------------- */

bool ips2_trace_stream_header(const char *path, struct ips2_file_header *h)
{
    struct stat st;
    int fd = ips2_file_open_stream(path, &st);
    bool ok = false;

    if (fd < 0)
        return false;
    if (pread(fd, h, sizeof(*h), 0) == (ssize_t)sizeof(*h) &&
        !memcmp(h->magic, IPS2_MAGIC, IPS2_MAGIC_LEN)) {
        h->host[IPS2_HOST_MAX - 1] = '\0';
        h->app[IPS2_APP_MAX - 1] = '\0';
        h->exe[IPS2_PATH_MAX - 1] = '\0';
        ok = true;
    }
    close(fd);
    return ok;
}

int64_t ips2_trace_dir_clock_offset(const struct ips2_trace_dir *td, char *host, size_t host_size)
{
    struct ips2_file_header h;
    uint64_t best_mono = UINT64_MAX;
    int64_t off = 0;

    if (host_size > 0)
        host[0] = '\0';
    for (size_t i = 0; i < td->nstreams; i++) {
        if (!ips2_trace_stream_header(td->streams[i].path, &h))
            continue;
        if (h.ref_mono_ns < best_mono) {
            best_mono = h.ref_mono_ns;
            off = (int64_t)(h.ref_real_ns - h.ref_mono_ns);
            snprintf(host, host_size, "%s", h.host);
        }
    }
    return off;
}
