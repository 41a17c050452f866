/*
 * fuzz_reductions.c - libFuzzer target for the reductions decoder
 * (slave/reductions.c), whose input is as untrusted as a trace: a file
 * from an old session or the bytes of a PVM message.
 *
 * Each input is decoded as is, and once more with its crc32 recomputed,
 * so that inputs the fuzzer made well-formed also reach the successful
 * path: every field of a decoded set is touched (ASan sees any bad
 * pointer or length), it is encoded again, and the encoding must decode
 * to the same bytes.  A refusal must name the byte offset.
 *
 * Seeds (tests/fuzz/corpus-reductions): ips2-reduce -o of the reader's
 * seed streams (tests/fuzz/corpus), whole and with a phase; of a traced
 * tests/integration/progs/sync_spin.c with 1 ms buckets (objects, spin);
 * of a traced progs/sync_names.c, 1 thread, 20 rounds (version 4: named
 * objects and their histograms); and of an empty directory.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "ips2_reader.h"
#include "ips2_reductions.h"

static volatile uint64_t sink;

static void touch(const struct ips2_reductions *r)
{
    uint64_t s = r->events + r->trace_bytes + r->interval_ns;

    for (size_t i = 0; i < r->nstrings; i++)
        s += strlen(r->strings[i]);
    for (size_t i = 0; i < r->nprocesses; i++) {
        const struct ips2_red_process *p = &r->processes[i];
        s += strlen(r->strings[p->app]) + strlen(r->strings[p->exe]);
        for (uint32_t t = p->first_thread; t < p->first_thread + p->nthreads; t++)
            s += r->threads[t].tid;
    }
    for (size_t i = 0; i < r->nthreads; i++) {
        const struct ips2_red_thread *t = &r->threads[i];
        s += r->processes[t->process].pid;
        for (uint32_t k = t->first_proc; k < t->first_proc + t->nprocs; k++)
            s += strlen(r->strings[r->procs[k].name]) + r->procs[k].m[IPS2_M_CPU];
    }
    for (size_t i = 0; i < r->narcs; i++) {
        const struct ips2_red_arc *a = &r->arcs[i];
        s += r->threads[a->thread].tid + strlen(r->strings[a->callee]);
        if (a->caller != IPS2_RED_NONE)
            s += strlen(r->strings[a->caller]);
    }
    for (size_t i = 0; i < r->nhists; i++) {
        const struct ips2_red_hist *h = &r->hists[i];
        s += r->threads[h->thread].tid + (h->proc != IPS2_RED_NONE ? r->procs[h->proc].name : 0);
        s += strlen(ips2_metric_name(h->metric));
        if (h->object != IPS2_RED_NONE)
            s += r->objects[h->object].id;
        for (uint32_t k = 0; k < h->nbuckets; k++)
            s += (uint64_t)h->v[k];
    }
    for (size_t i = 0; i < r->nobjects; i++) {
        s += r->threads[r->objects[i].thread].tid;
        if (r->objects[i].name != IPS2_RED_NONE)
            s += strlen(r->strings[r->objects[i].name]);
    }
    for (size_t i = 0; i < r->nproblems; i++)
        s += strlen(r->strings[r->problems[i]]);
    sink = s;
}

static void decode(const uint8_t *data, size_t size)
{
    char err[IPS2_ERR_MAX] = "";
    struct ips2_reductions *r = ips2_reductions_decode(data, size, "fuzz", err);

    if (!r) {
        if (strncmp(err, "fuzz: byte ", 11) != 0 || !strstr(err, "expected")) {
            fprintf(stderr, "refusal without an offset: %s\n", err);
            abort();
        }
        return;
    }
    touch(r);
    size_t n;
    void *again = ips2_reductions_encode(r, &n);
    if (!again)
        abort();
    struct ips2_reductions *r2 = ips2_reductions_decode(again, n, "again", err);
    if (!r2) {
        fprintf(stderr, "re-encoding does not decode: %s\n", err);
        abort();
    }
    size_t n2;
    void *third = ips2_reductions_encode(r2, &n2);
    if (!third || n2 != n || memcmp(again, third, n) != 0)
        abort();
    free(third);
    free(again);
    ips2_reductions_free(r2);
    ips2_reductions_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    decode(data, size);
    if (size >= 16) {
        uint8_t *copy = malloc(size);
        if (!copy)
            return 0;
        memcpy(copy, data, size);
        uint32_t crc = (uint32_t)crc32_z(0L, copy + 16, size - 16);
        memcpy(copy + 12, &crc, 4);
        decode(copy, size);
        free(copy);
    }
    return 0;
}
