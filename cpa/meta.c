/*
 * meta.c - a part's metadata for the master: what profiles need of a part
 * without its nodes (machine, strings, applications, processes, threads
 * with their time spans, and each thread's CPU per procedure over all its
 * CPU arcs, the shares scaled to the arcs' weights as on the path).
 */
#include <stdlib.h>
#include <string.h>

#include "cpa_internal.h"

void ips2_cpa_meta_free(struct ips2_cpa_meta *m)
{
    if (!m)
        return;
    free(m->machine);
    for (size_t i = 0; i < m->nstrings; i++)
        free(m->strings[i]);
    free(m->strings);
    free(m->apps);
    free(m->processes);
    free(m->threads);
    free(m->spans);
    free(m->cpu);
    free(m);
}

static int add_cpu(struct ips2_cpa_meta *m, size_t *cap, uint32_t t, uint32_t proc, int64_t cpu)
{
    if (m->ncpu == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        struct ips2_cpa_proc_cpu *n = realloc(m->cpu, c * sizeof *n);
        if (!n)
            return -1;
        m->cpu = n;
        *cap = c;
    }
    m->cpu[m->ncpu++] = (struct ips2_cpa_proc_cpu){t, proc, cpu};
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

int ips2_cpa_meta_from_pag(const struct ips2_pag *pag, struct ips2_cpa_meta **out, char *err,
                           size_t errlen)
{
    *out = NULL;
    if (cpa_pag_check(pag, (size_t)1 << (64 - IPS2_PAG_PART_SHIFT), err, errlen))
        return -1;
    struct ips2_cpa_meta *m = calloc(1, sizeof *m);
    struct cpa_scope scope = {0};
    struct ips2_cpa_path tmp;
    int64_t *sum = NULL;
    uint32_t *touched = NULL;
    size_t cap = 0;
    ips2_cpa_path_init(&tmp);
    if (!m)
        return cpa_err(err, errlen, "out of memory");
    m->part = pag->part;
    m->machine = strdup(pag->machine ? pag->machine : "");
    m->strings = calloc(pag->nstrings ? pag->nstrings : 1, sizeof *m->strings);
    m->apps = malloc((pag->napps ? pag->napps : 1) * sizeof *m->apps);
    m->processes = malloc((pag->nprocesses ? pag->nprocesses : 1) * sizeof *m->processes);
    m->threads = malloc((pag->nthreads ? pag->nthreads : 1) * sizeof *m->threads);
    m->spans = calloc(pag->nthreads ? pag->nthreads : 1, sizeof *m->spans);
    scope.tflags = calloc(pag->nthreads ? pag->nthreads : 1, 1);
    sum = calloc(pag->nstrings + 1, sizeof *sum);
    touched = malloc((pag->nstrings + 1) * sizeof *touched);
    if (!m->machine || !m->strings || !m->apps || !m->processes || !m->threads || !m->spans ||
        !scope.tflags || !sum || !touched)
        goto oom;
    for (size_t i = 0; i < pag->nstrings; i++) {
        if (!(m->strings[i] = strdup(pag->strings[i] ? pag->strings[i] : "")))
            goto oom;
        m->nstrings = i + 1;
    }
    if (pag->napps > 0)
        memcpy(m->apps, pag->apps, pag->napps * sizeof *m->apps);
    m->napps = pag->napps;
    if (pag->nprocesses > 0)
        memcpy(m->processes, pag->processes, pag->nprocesses * sizeof *m->processes);
    m->nprocesses = pag->nprocesses;
    if (pag->nthreads > 0)
        memcpy(m->threads, pag->threads, pag->nthreads * sizeof *m->threads);
    m->nthreads = pag->nthreads;
    m->cpu_later = pag->lazy != NULL; /* the shares are read when asked */
    for (size_t t = 0; t < pag->nthreads; t++) {
        const struct ips2_pag_thread *th = &pag->threads[t];
        if (!th->count)
            continue;
        m->spans[t].begin = pag->nodes[th->first].wall;
        m->spans[t].end = pag->nodes[th->first + th->count - 1].wall;
        if (m->spans[t].end < m->spans[t].begin)
            m->spans[t].end = m->spans[t].begin;
        if (m->cpu_later)
            continue;
        size_t ntouched = 0;
        for (uint32_t j = 1; j < th->count; j++) {
            tmp.nsegs = tmp.nshares = 0;
            if (cpa_emit_cpu(&tmp, &scope, pag, th->first + j, err, errlen))
                goto fail;
            for (size_t s = 0; s < tmp.nshares; s++) {
                uint32_t p = tmp.shares[s].proc;
                size_t slot = p == IPS2_PAG_NONE || p >= pag->nstrings ? pag->nstrings : p;
                if (sum[slot] == 0)
                    touched[ntouched++] = (uint32_t)slot;
                sum[slot] += tmp.shares[s].cpu;
            }
        }
        /* In string order, then no procedure. */
        qsort(touched, ntouched, sizeof *touched, cmp_u32);
        for (size_t a = 0; a < ntouched; a++) {
            uint32_t slot = touched[a];
            if (add_cpu(m, &cap, (uint32_t)t, slot == pag->nstrings ? IPS2_PAG_NONE : slot,
                        sum[slot]))
                goto oom;
            sum[slot] = 0;
        }
    }
    free(sum);
    free(touched);
    free(scope.tflags);
    ips2_cpa_path_free(&tmp);
    *out = m;
    return 0;
oom:
    cpa_err(err, errlen, "out of memory");
fail:
    free(sum);
    free(touched);
    free(scope.tflags);
    ips2_cpa_path_free(&tmp);
    ips2_cpa_meta_free(m);
    return -1;
}
