/*
 * fuzz_external.c - libFuzzer target for the external data reader
 * (collectors/external.c), whose input is a file any monitor may have
 * written, or a crash may have cut short.
 *
 * Each input is decoded; every field of what comes back is touched (ASan
 * sees any bad pointer or length), every sample must name a declared
 * metric and have a time that fits on the session's clock, and a refusal
 * must name the byte offset within the input.
 *
 * Seeds (tests/fuzz/corpus-external): files of ips2-collect-os (a short
 * process and the machine), of ips2-collect-hw where perf_event_open is
 * refused (one note), one cut in the middle of a record, and one whose
 * last sample's time is near 2^63 (it would overflow on the session's
 * clock: refused at that field).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ips2_external.h"

static volatile uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[IPS2_EXT_ERR_MAX] = "";
    struct ips2_ext_data *d = ips2_ext_decode(data, size, "f.ext", err);
    if (err[0] != '\0') {
        const char *p = strstr(err, "f.ext: byte ");
        if (p == NULL || strstr(err, "expected") == NULL)
            abort();
        unsigned long long off = strtoull(p + strlen("f.ext: byte "), NULL, 10);
        if (off > size)
            abort();
    }
    if (d == NULL) {
        if (err[0] == '\0')
            abort();
        return 0;
    }
    uint64_t s = strlen(d->collector) + strlen(d->host) + d->interval_ns + d->writer_pid;
    for (size_t i = 0; i < d->nmetrics; i++)
        s += strlen(d->metrics[i].name) + strlen(d->metrics[i].unit) + d->metrics[i].kind;
    for (size_t i = 0; i < d->nsamples; i++) {
        if (d->samples[i].metric >= d->nmetrics)
            abort();
        /* every time fits on the session's clock (reduce_ext.c relies on it) */
        int64_t real;
        if (d->samples[i].mono_ns < 0 ||
            __builtin_add_overflow(d->samples[i].mono_ns, d->ref_real_ns - d->ref_mono_ns, &real) ||
            real < 0)
            abort();
        s += d->samples[i].pid + d->samples[i].proc + (uint64_t)d->samples[i].mono_ns +
             (uint64_t)d->samples[i].value;
    }
    for (size_t i = 0; i < d->nnotes; i++)
        s += strlen(d->notes[i].text) + d->notes[i].pid;
    sink = s;
    ips2_ext_free(d);
    return 0;
}
