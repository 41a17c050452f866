/*
 * export_cmd.c - ips2-export: a session's traces as OTF2, trace-event
 * JSON or folded stacks (ips2_export.h); `ips2 export` runs it.
 *
 *   ips2-export [-format otf2|json|folded] SESSION OUT
 *
 * OUT is a directory for OTF2 (the archive is OUT/traces.otf2), a file
 * for the others ("-": standard output).  A line on standard error says
 * what was written.  Exit status 0, 1 on an error, 2 for a usage mistake.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ips2_export.h"

static void warn(void *arg, const char *message)
{
    (void)arg;
    fprintf(stderr, "ips2-export: warning: %s\n", message);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: ips2-export [-format otf2|json|folded] SESSION OUT\n"
               "  otf2    OUT is a directory: OUT/traces.otf2 (Vampir, otf2-print)\n"
               "  json    OUT is a file: trace-event JSON (Perfetto, chrome://tracing)\n"
               "  folded  OUT is a file: folded stacks, self CPU in microseconds\n"
               "  OUT \"-\" is standard output (json, folded)\n");
}

int main(int argc, char **argv)
{
    enum ips2_export_format format = IPS2_EXPORT_OTF2;
    const char *words[2];
    int nwords = 0;
    char err[1024];
    struct ips2_export_counts c;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "-format") == 0 && i + 1 < argc) {
            if (ips2_export_format_parse(argv[++i], &format) < 0) {
                fprintf(stderr, "ips2-export: unknown format \"%s\": expected otf2, json, folded\n",
                        argv[i]);
                return 2;
            }
        } else if (nwords < 2 && (argv[i][0] != '-' || strcmp(argv[i], "-") == 0)) {
            words[nwords++] = argv[i];
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (nwords != 2) {
        usage(stderr);
        return 2;
    }
    /* the pairing is read from parts that keep every message's node
     * (ips2_export.h) */
    setenv("IPS2_PAG_FOLD", "messages", 1);
    if (ips2_export(words[0], format, words[1], &c, warn, NULL, err, sizeof(err)) < 0) {
        fprintf(stderr, "ips2-export: %s\n", err);
        return 1;
    }
    fprintf(stderr,
            "ips2-export: %s: %" PRIu64 " threads, %" PRIu64 " enters, %" PRIu64 " leaves, %" PRIu64
            " sends (%" PRIu64 " paired), %" PRIu64 " receives (%" PRIu64 " paired), %" PRIu64
            " lock acquisitions, %" PRIu64 " releases",
            words[1], c.locations, c.enters, c.leaves, c.sends, c.paired_sends, c.receives,
            c.paired_receives, c.acquires, c.releases);
    if (format == IPS2_EXPORT_JSON)
        fprintf(stderr,
                "; %" PRIu64 " slices, %" PRIu64 " flows, critical path %.3f ms in %" PRIu64
                " segments",
                c.slices, c.flows, (double)c.cp_length / 1e6, c.cp_segments);
    if (format == IPS2_EXPORT_FOLDED)
        fprintf(stderr, "; %" PRIu64 " stacks, %" PRIu64 " us of self CPU time", c.folded_lines,
                c.folded_us);
    fputc('\n', stderr);
    return 0;
}
