/*
 * pag.c - the part's life outside building and matching: freeing it,
 * renumbering it, and the small helpers the builder, the matcher and the
 * part file share (growable arrays, string interning, warnings, adding
 * arcs in order).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pag_internal.h"

void ips2_pag_free(struct ips2_pag *pag)
{
    if (!pag)
        return;
    for (size_t i = 0; i < pag->nstrings; i++)
        free(pag->strings[i]);
    for (size_t i = 0; i < pag->nwarnings; i++)
        free(pag->warnings[i]);
    free(pag->strings);
    free(pag->warnings);
    free((char *)pag->machine);
    free((char *)pag->trace_dir);
    free(pag->apps);
    free(pag->processes);
    free(pag->threads);
    free(pag->nodes);
    free(pag->shares);
    free(pag->arcs);
    free(pag->outs);
    free(pag->ends);
    free(pag->ports);
    pag_lazy_free(pag->lazy);
    free(pag);
}

void ips2_pag_set_part(struct ips2_pag *pag, uint32_t part)
{
    for (size_t i = 0; i < pag->narcs; i++)
        if (IPS2_PAG_GID_PART(pag->arcs[i].from) == pag->part)
            pag->arcs[i].from = IPS2_PAG_GID(part, IPS2_PAG_GID_NODE(pag->arcs[i].from));
    pag->part = part;
}

/* The new number of old part number `old`, or -1. */
static long new_number(struct ips2_pag *const *parts, const uint32_t *order, size_t n, uint32_t old)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* order: indices of parts sorted by old number */
        size_t mid = (lo + hi) / 2;
        if (parts[order[mid]]->part < old)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && parts[order[lo]]->part == old ? (long)order[lo] : -1;
}

static int cmp_old(const void *a, const void *b, void *arg)
{
    struct ips2_pag *const *parts = arg;
    uint32_t x = parts[*(const uint32_t *)a]->part, y = parts[*(const uint32_t *)b]->part;
    return x < y ? -1 : x > y;
}

int ips2_pag_number(struct ips2_pag **parts, size_t n, char *err, size_t errlen)
{
    uint32_t *order = malloc((n ? n : 1) * sizeof(*order));
    if (!order) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = (uint32_t)i;
    qsort_r(order, n, sizeof(*order), cmp_old, parts);
    bool distinct = true;
    for (size_t i = 1; i < n && distinct; i++)
        distinct = parts[order[i - 1]]->part != parts[order[i]]->part;
    if (!distinct) {
        free(order);
        for (size_t i = 0; i < n; i++)
            ips2_pag_set_part(parts[i], (uint32_t)i);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        struct ips2_pag *p = parts[i];
        for (size_t a = 0; a < p->narcs + p->nouts; a++) {
            uint64_t *gid = a < p->narcs ? &p->arcs[a].from : &p->outs[a - p->narcs].to;
            long k = new_number(parts, order, n, IPS2_PAG_GID_PART(*gid));
            if (k < 0) {
                snprintf(err, errlen, "%s: an arc names part %u, which is not among the %zu given",
                         p->trace_dir ? p->trace_dir : "part", IPS2_PAG_GID_PART(*gid), n);
                free(order);
                return -1;
            }
            *gid = IPS2_PAG_GID((uint32_t)k, IPS2_PAG_GID_NODE(*gid));
        }
    }
    for (size_t i = 0; i < n; i++)
        parts[i]->part = (uint32_t)i;
    free(order);
    return 0;
}

bool pag_grow(void **v, size_t *cap, size_t n, size_t elem)
{
    size_t c = *cap ? *cap * 2 : 16;
    void *p;

    if (n < *cap)
        return true;
    if (c < n + 1)
        c = n + 1;
    if (c > SIZE_MAX / elem)
        return false;
    p = realloc(*v, c * elem);
    if (!p)
        return false;
    *v = p;
    *cap = c;
    return true;
}

/* ---- warnings, threads, arcs -------------------------------------------- */

bool pag_add_warning(struct ips2_pag *pag, char *line)
{
    if (!line)
        return false;
    char **v = realloc(pag->warnings, (pag->nwarnings + 1) * sizeof(*v));
    if (!v) {
        free(line);
        return false;
    }
    pag->warnings = v;
    v[pag->nwarnings++] = line;
    return true;
}

uint32_t pag_thread_of(const struct ips2_pag *pag, uint32_t node)
{
    size_t lo = 0, hi = pag->nthreads;

    while (lo < hi) { /* threads are in node order; find the last with first <= node */
        size_t mid = lo + (hi - lo) / 2;
        if (pag->threads[mid].first <= node)
            lo = mid + 1;
        else
            hi = mid;
    }
    while (lo > 0) {
        const struct ips2_pag_thread *t = &pag->threads[lo - 1];
        if (node >= t->first && node - t->first < t->count)
            return (uint32_t)(lo - 1);
        if (t->count != 0)
            break;
        lo--; /* threads without nodes share their first with the next */
    }
    return IPS2_PAG_NONE;
}

static int cmp_arc(const void *a, const void *b)
{
    const struct ips2_pag_arc *x = a, *y = b;

    if (x->to != y->to)
        return x->to < y->to ? -1 : 1;
    return x->from < y->from ? -1 : x->from > y->from;
}

bool pag_add_arcs(struct ips2_pag *pag, const struct ips2_pag_arc *arcs, size_t n)
{
    if (n == 0)
        return true;
    if (pag->narcs + n < n || pag->narcs + n > SIZE_MAX / sizeof(*arcs))
        return false;
    struct ips2_pag_arc *v = realloc(pag->arcs, (pag->narcs + n) * sizeof(*v));
    if (!v)
        return false;
    memcpy(v + pag->narcs, arcs, n * sizeof(*v));
    pag->arcs = v;
    pag->narcs += n;
    qsort(pag->arcs, pag->narcs, sizeof(*v), cmp_arc);
    return true;
}
