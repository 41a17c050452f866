/*
 * histogram.c - bucketed time histograms: geometry aligned to session time
 * 0, lazy growth, and folding pairs of buckets when the width doubles.
 */
#include <stdlib.h>
#include <string.h>

#include "histogram.h"
#include "ips2_reductions.h"

int64_t red_hgeom_align(int64_t t, uint64_t width)
{
    /* width < 2^62 in practice; compute in signed arithmetic with floor */
    int64_t w = (int64_t)width;
    int64_t q = t / w;

    if (t % w != 0 && t < 0)
        q--;
    return q * w;
}

void red_hgeom_init(struct red_hgeom *g, int64_t t, uint64_t width)
{
    if (width == 0)
        width = 1;
    g->width = width;
    g->start = red_hgeom_align(t, width);
}

uint64_t red_hgeom_index(const struct red_hgeom *g, int64_t t)
{
    if (t <= g->start)
        return 0;
    return ((uint64_t)t - (uint64_t)g->start) / g->width;
}

unsigned red_hgeom_fold(struct red_hgeom *g)
{
    uint64_t w2 = g->width * 2;
    int64_t s2 = red_hgeom_align(g->start, w2);
    unsigned off = s2 == g->start ? 0 : 1;

    g->width = w2;
    g->start = s2;
    return off;
}

void red_hist_fold(struct red_hist *h, unsigned off)
{
    if (!h->v || h->n == 0)
        return;
    uint32_t n2 = (h->n - 1 + off) / 2 + 1;
    for (uint32_t j = 0; j < n2; j++) {
        double sum = 0;
        for (unsigned k = 0; k < 2; k++) {
            uint64_t i = 2 * (uint64_t)j + k;
            if (i >= off && i - off < h->n)
                sum += h->v[i - off];
        }
        h->v[j] = sum; /* reads stay at or ahead of j */
    }
    memset(h->v + n2, 0, (size_t)(h->n - n2) * sizeof(double));
    h->n = n2;
}

bool red_hist_add(struct red_hist *h, uint32_t i, double x)
{
    if (i >= IPS2_HIST_MAX_BUCKETS)
        return false;
    if (i >= h->cap) {
        uint32_t cap = h->cap ? h->cap : 16;
        while (cap <= i)
            cap *= 2;
        if (cap > IPS2_HIST_MAX_BUCKETS)
            cap = IPS2_HIST_MAX_BUCKETS;
        double *v = realloc(h->v, (size_t)cap * sizeof(double));
        if (!v)
            return false;
        memset(v + h->cap, 0, (size_t)(cap - h->cap) * sizeof(double));
        h->v = v;
        h->cap = cap;
    }
    if (i >= h->n)
        h->n = i + 1;
    h->v[i] += x;
    return true;
}

void red_hist_free(struct red_hist *h)
{
    free(h->v);
    memset(h, 0, sizeof(*h));
}
