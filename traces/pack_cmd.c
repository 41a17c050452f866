/*
 * pack_cmd.c - ips2-pack: compress finished raw streams into the packed
 * encoding.
 *
 *   ips2-pack [--keep] PATH...
 *
 * A PATH is a raw stream (its name must end in ".raw") or a directory, of
 * which every regular file ending in ".raw" is packed (not recursively, in
 * name order).  The packing is the trace library's, the slave's too
 * (ips2_pack_stream() and ips2_pack_dir(), traces/pack_dir.c):
 * <name>.raw becomes <name>.ips2 beside it, written under a temporary name
 * and renamed, so a reader never sees half a packed stream.  The raw
 * stream is removed once its packed copy is in place, unless --keep.  A
 * stream that failed to pack is kept as it is and its partial packed copy
 * is removed (an older packed file is left alone): the directory then
 * holds every stream exactly once, a failed pack never loses data (the
 * reader may be the one at fault), and the raw stream still reads up to
 * the bad record.
 *
 * Errors are per file: "ips2-pack: <message>" on stderr, then the next
 * file.  Exit status 0 if everything packed, 1 if anything failed, 2 on a
 * usage error.  Packing a stream whose process is still running is the
 * caller's mistake; run ips2-pack after the traced processes have ended.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "ips2_pack.h"
#include "ips2_reader.h" /* IPS2_ERR_MAX */

static void usage(FILE *f)
{
    fprintf(f, "usage: ips2-pack [--keep] PATH...\n"
               "  Packs each raw stream PATH (*.raw), or every *.raw in directory PATH,\n"
               "  into <name>.ips2 beside it and removes the raw stream unless --keep.\n");
}

static void print_failure(void *arg, const char *stream, const char *message)
{
    fprintf(stderr, "ips2-pack: %s\n", message);
}

int main(int argc, char **argv)
{
    bool keep = false;
    static const struct option options[] = {
        {"keep", no_argument, NULL, 'k'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    opterr = 0; /* its own message below */
    while ((c = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
        if (c == 'k') {
            keep = true;
        } else if (c == 'h') {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "ips2-pack: unknown option %s\n", argv[optind - 1]);
            usage(stderr);
            return 2;
        }
    }
    int i = optind;
    if (i == argc) {
        usage(stderr);
        return 2;
    }

    const struct ips2_pack_report report = {.failed = print_failure};
    char err[IPS2_ERR_MAX];
    int failed = 0;
    for (; i < argc; i++) {
        struct stat st;
        int rc;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "ips2-pack: %s: %s\n", argv[i], strerror(errno));
            failed++;
        } else if (S_ISDIR(st.st_mode)) {
            if ((rc = ips2_pack_dir(argv[i], keep, &report, err)) < 0)
                print_failure(NULL, NULL, err);
            failed += rc < 0 ? 1 : rc;
        } else if (ips2_pack_stream(argv[i], keep, err) != 0) {
            print_failure(NULL, argv[i], err);
            failed++;
        }
    }
    return failed ? 1 : 0;
}
