/*
 * clocks.c - a machine's clock offset from the master's: the NTP-style
 * estimate over a few exchanges, and the small text file that keeps it
 * beside the machine's traces (ips2_clocks.h).
 *
 * Of n exchanges, the one with the least round trip is the one least
 * delayed by queues and scheduling, so its midpoint is the best guess; the
 * other clock's reading then lies somewhere inside that round trip, which
 * bounds the error by half of it whatever the asymmetry of the two legs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ips2_clocks.h"

int ips2_clock_estimate(const struct ips2_clock_sample *s, size_t n, struct ips2_clock_est *e)
{
    int64_t best_rtt = INT64_MAX, best_off = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t out, back, local, remote, rtt, sum;
        if (__builtin_sub_overflow(s[i].t3, s[i].t0, &local) ||
            __builtin_sub_overflow(s[i].t2, s[i].t1, &remote) || local < 0 || remote < 0 ||
            remote > local || __builtin_sub_overflow(s[i].t0, s[i].t1, &out) ||
            __builtin_sub_overflow(s[i].t3, s[i].t2, &back) ||
            __builtin_add_overflow(out, back, &sum))
            continue;
        rtt = local - remote;
        if (rtt < best_rtt) {
            best_rtt = rtt;
            best_off = sum / 2;
        }
    }
    memset(e, 0, sizeof *e);
    e->samples = (uint32_t)n;
    if (best_rtt == INT64_MAX)
        return -1;
    e->offset = best_off;
    e->rtt = best_rtt;
    e->error = best_rtt / 2 + (best_rtt & 1);
    return 0;
}

static void set_err(char *err, size_t errlen, const char *path, const char *what)
{
    if (err != NULL && errlen > 0)
        snprintf(err, errlen, "%s: %s", path, what);
}

int ips2_clock_write(const char *dir, const struct ips2_clock_est *e, char *err, size_t errlen)
{
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/%s", dir, IPS2_CLOCK_FILE);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL) {
        set_err(err, errlen, tmp, strerror(errno));
        return -1;
    }
    fprintf(f,
            "ips2-clock 1\noffset %" PRId64 "\nerror %" PRId64 "\nrtt %" PRId64 "\nsamples %" PRIu32
            "\n",
            e->offset, e->error, e->rtt, e->samples);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        set_err(err, errlen, tmp, strerror(errno ? errno : EIO));
        remove(tmp);
        return -1;
    }
    return 0;
}

int ips2_clock_read(const char *dir, struct ips2_clock_est *e, char *err, size_t errlen)
{
    char path[4096], text[512];
    snprintf(path, sizeof path, "%s/%s", dir, IPS2_CLOCK_FILE);
    memset(e, 0, sizeof *e);
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        if (errno == ENOENT)
            return 0;
        set_err(err, errlen, path, strerror(errno));
        return -1;
    }
    size_t n = fread(text, 1, sizeof text - 1, f);
    int more = fgetc(f) != EOF;
    fclose(f);
    text[n] = '\0';
    long long off, error, rtt;
    unsigned long samples;
    int used = 0;
    if (more || strlen(text) != n ||
        sscanf(text, "ips2-clock 1\noffset %lld\nerror %lld\nrtt %lld\nsamples %lu\n%n", &off,
               &error, &rtt, &samples, &used) != 4 ||
        (size_t)used != n || off < -IPS2_CLOCK_MAX_NS || off > IPS2_CLOCK_MAX_NS || error < 0 ||
        error > IPS2_CLOCK_MAX_NS || rtt < 0 || rtt > IPS2_CLOCK_MAX_NS || samples > UINT32_MAX) {
        set_err(err, errlen, path,
                "expected \"ips2-clock 1\" and the lines offset, error, rtt and samples");
        return -1;
    }
    e->offset = off;
    e->error = error;
    e->rtt = rtt;
    e->samples = (uint32_t)samples;
    return 1;
}
