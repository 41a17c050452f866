/*
 * pack_dir.c - packing finished raw streams where they lie: one stream
 * (<name>.raw -> <name>.ips2 beside it) and a whole trace directory, for
 * ips2-pack and the slave alike (ips2_pack.h).
 *
 * The order of the steps is what keeps a failure from losing data: the
 * packed copy is complete under its own name (ips2_pack_file() renames a
 * temporary) before the raw stream goes; a stream that fails keeps its
 * raw file, and the partial packed copy is removed only if this call put
 * it there (a rename gives the file at the packed name a new inode).
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ips2_error.h"
#include "ips2_pack.h"
#include "ips2_reader.h" /* IPS2_ERR_MAX */

static const char RAW_SUFFIX[] = ".raw";
static const char PACKED_SUFFIX[] = ".ips2";

static bool is_raw_name(const char *name)
{
    size_t n = strlen(name), s = sizeof(RAW_SUFFIX) - 1;
    return n > s && strcmp(name + n - s, RAW_SUFFIX) == 0;
}

/* Whether `path` now holds a file other than the one `before` described
 * (or any file, if there was none). */
static bool replaced(const char *path, bool existed, const struct stat *before)
{
    struct stat after;
    if (lstat(path, &after) != 0)
        return false;
    return !existed || after.st_ino != before->st_ino || after.st_dev != before->st_dev;
}

int ips2_pack_stream(const char *raw, bool keep, char *err)
{
    if (!is_raw_name(raw)) {
        ips2_set_error(err, "%s: not a raw stream (name does not end in %s)", raw, RAW_SUFFIX);
        return -1;
    }
    size_t stem = strlen(raw) - (sizeof(RAW_SUFFIX) - 1);
    char *packed = malloc(stem + sizeof(PACKED_SUFFIX));
    if (packed == NULL) {
        ips2_set_error(err, "%s: out of memory", raw);
        return -1;
    }
    memcpy(packed, raw, stem);
    memcpy(packed + stem, PACKED_SUFFIX, sizeof(PACKED_SUFFIX));

    struct stat before;
    bool existed = lstat(packed, &before) == 0;
    char why[IPS2_ERR_MAX] = "";
    int rc = ips2_pack_file(raw, packed, why);
    if (rc != 0) {
        /* the library's messages mostly name the raw or the packed file */
        if (why[0] == '\0')
            ips2_set_error(err, "%s: packing failed", raw);
        else if (strstr(why, raw) == NULL && strstr(why, packed) == NULL)
            ips2_set_error(err, "%s: %s", raw, why);
        else
            ips2_set_error(err, "%s", why);
        /* A stream with a bad record is packed up to it; the raw stream
         * still reads up to the same record, so the copy goes. */
        if (replaced(packed, existed, &before) && unlink(packed) != 0) {
            size_t used = strlen(err);
            snprintf(err + used, IPS2_ERR_MAX - used,
                     "; cannot remove the partial packed stream %s: %s", packed, strerror(errno));
        }
    } else if (!keep && unlink(raw) != 0) {
        ips2_set_error(err, "%s: packed into %s but cannot remove it: %s", raw, packed,
                       strerror(errno));
        rc = -1;
    }
    free(packed);
    return rc;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Tells the caller about one failure; returns 1, to be counted. */
static int report_failure(const struct ips2_pack_report *report, const char *stream,
                          const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int report_failure(const struct ips2_pack_report *report, const char *stream,
                          const char *fmt, ...)
{
    if (report == NULL || report->failed == NULL)
        return 1;
    char message[IPS2_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    report->failed(report->arg, stream, message);
    return 1;
}

static void report_progress(const struct ips2_pack_report *report, size_t done, size_t total)
{
    if (report != NULL && report->progress != NULL)
        report->progress(report->arg, done, total);
}

/* Lists dir's regular files named *.raw as paths into *paths (sorted).
 * Returns the number of failures met while listing (reported), or -1 with
 * err if dir cannot be opened. */
static int list_raw(const char *dir, const struct ips2_pack_report *report, char ***paths,
                    size_t *n, char *err)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        ips2_set_error(err, "%s: %s", dir, strerror(errno));
        return -1;
    }
    size_t cap = 0;
    int failed = 0;
    struct dirent *e;
    *paths = NULL;
    *n = 0;
    errno = 0;
    while ((e = readdir(d)) != NULL) {
        if (!is_raw_name(e->d_name))
            continue;
        char *p;
        if (asprintf(&p, "%s/%s", dir, e->d_name) < 0) {
            failed += report_failure(report, NULL, "%s: out of memory", dir);
            break;
        }
        struct stat st;
        if (lstat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(p); /* not a stream: a directory, a link, a vanished file */
            errno = 0;
            continue;
        }
        if (*n == cap) {
            size_t ncap = cap ? 2 * cap : 64;
            char **v = realloc(*paths, ncap * sizeof *v);
            if (v == NULL) {
                free(p);
                failed += report_failure(report, NULL, "%s: out of memory", dir);
                break;
            }
            *paths = v;
            cap = ncap;
        }
        (*paths)[(*n)++] = p;
        errno = 0;
    }
    if (e == NULL && errno != 0)
        failed += report_failure(report, NULL, "%s: %s", dir, strerror(errno));
    closedir(d);
    if (*n > 1)
        qsort(*paths, *n, sizeof **paths, by_name);
    return failed;
}

int ips2_pack_dir(const char *dir, bool keep, const struct ips2_pack_report *report, char *err)
{
    char **paths;
    size_t n;
    int failed = list_raw(dir, report, &paths, &n, err);
    if (failed < 0)
        return -1;
    char why[IPS2_ERR_MAX];
    for (size_t i = 0; i < n; i++) {
        report_progress(report, i, n);
        if (ips2_pack_stream(paths[i], keep, why) != 0)
            failed += report_failure(report, paths[i], "%s", why);
        free(paths[i]);
    }
    report_progress(report, n, n);
    free(paths);
    return failed;
}
