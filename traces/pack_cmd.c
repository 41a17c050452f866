/*
 * pack_cmd.c - ips2-pack: compress finished raw streams into the packed
 * encoding.
 *
 *   ips2-pack [--keep] PATH...
 *
 * A PATH is a raw stream (its name must end in ".raw") or a directory, of
 * which every regular file ending in ".raw" is packed (not recursively, in
 * name order).  <name>.raw becomes <name>.ips2 beside it, written by
 * ips2_pack_file() under a temporary name and renamed, so a reader never
 * sees half a packed stream.  The raw stream is removed once its packed
 * copy is in place, unless --keep.  A stream that failed to pack is kept
 * as it is, and the partial packed copy that ips2_pack_file() leaves for a
 * stream with a bad record is removed (an older packed file is left alone): the directory then
 * holds every stream exactly once, a failed pack never loses data (the reader may be the one at
 * fault), and the raw stream still reads up to the bad record.
 *
 * Errors are per file: "ips2-pack: <message>" on stderr, then the next
 * file.  Exit status 0 if everything packed, 1 if anything failed, 2 on a
 * usage error.  Packing a stream whose process is still running is the
 * caller's mistake; run ips2-pack after the traced processes have ended.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ips2_pack.h"
#include "ips2_reader.h" /* IPS2_ERR_MAX */

static const char RAW_SUFFIX[] = ".raw";
static const char PACKED_SUFFIX[] = ".ips2";

static bool ends_with_raw(const char *name)
{
    size_t n = strlen(name), s = sizeof(RAW_SUFFIX) - 1;
    return n > s && strcmp(name + n - s, RAW_SUFFIX) == 0;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: ips2-pack [--keep] PATH...\n"
               "  Packs each raw stream PATH (*.raw), or every *.raw in directory PATH,\n"
               "  into <name>.ips2 beside it and removes the raw stream unless --keep.\n");
}

/* Packs one raw stream.  Returns 0 or -1 (reported). */
static int pack_one(const char *raw, bool keep)
{
    char err[IPS2_ERR_MAX];
    size_t n = strlen(raw), s = sizeof(RAW_SUFFIX) - 1;

    if (!ends_with_raw(raw)) {
        fprintf(stderr, "ips2-pack: %s: not a raw stream (name does not end in %s)\n", raw,
                RAW_SUFFIX);
        return -1;
    }
    char *packed = malloc(n - s + sizeof(PACKED_SUFFIX));
    if (packed == NULL) {
        fprintf(stderr, "ips2-pack: %s: out of memory\n", raw);
        return -1;
    }
    memcpy(packed, raw, n - s);
    memcpy(packed + n - s, PACKED_SUFFIX, sizeof(PACKED_SUFFIX));

    /* Which file sits at the packed name now, to tell afterwards whether
     * this call put a new one there (rename gives it a new inode). */
    struct stat before;
    bool existed = lstat(packed, &before) == 0;

    err[0] = '\0';
    int rc = ips2_pack_file(raw, packed, err);
    if (rc != 0) {
        /* The library's messages name the raw or the packed file
         * already; name the raw one if not. */
        if (err[0] == '\0')
            fprintf(stderr, "ips2-pack: %s: packing failed\n", raw);
        else if (strstr(err, raw) == NULL && strstr(err, packed) == NULL)
            fprintf(stderr, "ips2-pack: %s: %s\n", raw, err);
        else
            fprintf(stderr, "ips2-pack: %s\n", err);
        /* A stream with a bad record is packed up to it; drop that partial
         * copy so that the directory holds each stream once, as the raw
         * stream, which still reads up to the same record. */
        struct stat after;
        if (lstat(packed, &after) == 0 &&
            (!existed || after.st_ino != before.st_ino || after.st_dev != before.st_dev) &&
            unlink(packed) != 0)
            fprintf(stderr, "ips2-pack: %s: cannot remove the partial packed stream: %s\n", packed,
                    strerror(errno));
    } else if (!keep && unlink(raw) != 0) {
        fprintf(stderr, "ips2-pack: %s: packed into %s but cannot remove it: %s\n", raw, packed,
                strerror(errno));
        rc = -1;
    }
    free(packed);
    return rc;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Packs every regular *.raw file of directory `dir`.  Returns the number
 * of failures. */
static int pack_dir(const char *dir, bool keep)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "ips2-pack: %s: %s\n", dir, strerror(errno));
        return 1;
    }

    char **paths = NULL;
    size_t npaths = 0, cap = 0;
    int failed = 0;
    struct dirent *e;

    errno = 0;
    while ((e = readdir(d)) != NULL) {
        if (!ends_with_raw(e->d_name))
            continue;
        char *p;
        if (asprintf(&p, "%s/%s", dir, e->d_name) < 0) {
            fprintf(stderr, "ips2-pack: %s: out of memory\n", dir);
            failed++;
            break;
        }
        struct stat st;
        if (lstat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(p); /* not a stream: a directory, a link, a vanished file */
            continue;
        }
        if (npaths == cap) {
            size_t ncap = cap ? 2 * cap : 64;
            char **np = realloc(paths, ncap * sizeof(*np));
            if (np == NULL) {
                free(p);
                fprintf(stderr, "ips2-pack: %s: out of memory\n", dir);
                failed++;
                break;
            }
            paths = np;
            cap = ncap;
        }
        paths[npaths++] = p;
        errno = 0;
    }
    if (e == NULL && errno != 0) {
        fprintf(stderr, "ips2-pack: %s: %s\n", dir, strerror(errno));
        failed++;
    }
    closedir(d);

    if (npaths > 1)
        qsort(paths, npaths, sizeof(*paths), cmp_names);
    for (size_t i = 0; i < npaths; i++) {
        if (pack_one(paths[i], keep) != 0)
            failed++;
        free(paths[i]);
    }
    free(paths);
    return failed;
}

int main(int argc, char **argv)
{
    bool keep = false;
    int i = 1;

    for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else if (strcmp(argv[i], "--keep") == 0) {
            keep = true;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "ips2-pack: unknown option %s\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (i == argc) {
        usage(stderr);
        return 2;
    }

    int failed = 0;
    for (; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "ips2-pack: %s: %s\n", argv[i], strerror(errno));
            failed++;
        } else if (S_ISDIR(st.st_mode)) {
            failed += pack_dir(argv[i], keep);
        } else if (pack_one(argv[i], keep) != 0) {
            failed++;
        }
    }
    return failed ? 1 : 0;
}
