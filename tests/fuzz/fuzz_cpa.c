/*
 * fuzz_cpa.c - libFuzzer target for the critical-path engine's wire
 * decoders (cpa/wire.c): batches of path lengths, walk messages, path
 * chunks and part metadata all arrive over PVM from other processes.
 *
 * Each input goes to all four decoders.  A refusal must name the byte
 * offset; an accepted input is encoded again, and that encoding must
 * decode and encode to the same bytes.
 *
 * Seeds (tests/fuzz/corpus-cpa): `ips2-cpa corpus DIR`, the encodings of a
 * small random PAG's batch, walk, path and metadata.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ips2_cpa.h"

static char err[512];

static void refused(void)
{
    if (!strstr(err, ": byte "))
        abort();
}

static void same(void *a, size_t na, void *b, size_t nb)
{
    if (na != nb || memcmp(a, b, na) != 0)
        abort();
    free(a);
    free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    void *e1, *e2;
    size_t n1, n2;

    struct ips2_cpa_batch b, b2;
    if (ips2_cpa_batch_decode(data, size, "f", &b, err, sizeof err) == 0) {
        if (ips2_cpa_batch_encode(&b, &e1, &n1, err, sizeof err) ||
            ips2_cpa_batch_decode(e1, n1, "f", &b2, err, sizeof err) ||
            ips2_cpa_batch_encode(&b2, &e2, &n2, err, sizeof err))
            abort();
        same(e1, n1, e2, n2);
        ips2_cpa_batch_free(&b);
        ips2_cpa_batch_free(&b2);
    } else {
        refused();
    }

    struct ips2_cpa_walk w, w2;
    if (ips2_cpa_walk_decode(data, size, "f", &w, err, sizeof err) == 0) {
        if (ips2_cpa_walk_encode(&w, &e1, &n1, err, sizeof err) ||
            ips2_cpa_walk_decode(e1, n1, "f", &w2, err, sizeof err) ||
            ips2_cpa_walk_encode(&w2, &e2, &n2, err, sizeof err))
            abort();
        same(e1, n1, e2, n2);
    } else {
        refused();
    }

    struct ips2_cpa_path p, p2;
    if (ips2_cpa_path_decode(data, size, "f", &p, err, sizeof err) == 0) {
        int64_t sum = 0;
        for (size_t i = 0; i < p.nsegs; i++)
            for (uint32_t j = 0; j < p.segs[i].nshares; j++)
                sum += p.shares[p.segs[i].first_share + j].cpu;
        for (size_t i = 0; i < p.nwarnings; i++)
            sum += (int64_t)strlen(p.warnings[i]);
        (void)sum;
        if (ips2_cpa_path_encode(&p, &e1, &n1, err, sizeof err) ||
            ips2_cpa_path_decode(e1, n1, "f", &p2, err, sizeof err) ||
            ips2_cpa_path_encode(&p2, &e2, &n2, err, sizeof err))
            abort();
        same(e1, n1, e2, n2);
        ips2_cpa_path_free(&p);
        ips2_cpa_path_free(&p2);
    } else {
        refused();
    }

    struct ips2_cpa_meta *m, *m2;
    if (ips2_cpa_meta_decode(data, size, "f", &m, err, sizeof err) == 0) {
        size_t sum = strlen(m->machine);
        for (size_t i = 0; i < m->nprocesses; i++)
            sum += strlen(m->strings[m->apps[m->processes[i].app]]);
        for (size_t i = 0; i < m->ncpu; i++)
            sum += m->threads[m->cpu[i].thread].count;
        (void)sum;
        if (ips2_cpa_meta_encode(m, &e1, &n1, err, sizeof err) ||
            ips2_cpa_meta_decode(e1, n1, "f", &m2, err, sizeof err) ||
            ips2_cpa_meta_encode(m2, &e2, &n2, err, sizeof err))
            abort();
        same(e1, n1, e2, n2);
        ips2_cpa_meta_free(m);
        ips2_cpa_meta_free(m2);
    } else {
        refused();
    }
    return 0;
}
