/*
 * histogram.h - bucketed time histograms with doubling and folding (private
 * to slave/).
 *
 * A geometry (start, width) is shared by every histogram of one thread, so
 * that folding keeps them aligned.  start is always a multiple of width
 * counted from session time 0, also after folding (the new start is the
 * old one rounded down to a multiple of the doubled width), so histograms
 * of different threads and machines with the same width have the same
 * bucket boundaries and can be added bucket by bucket.
 */
#ifndef IPS2_SLAVE_HISTOGRAM_H
#define IPS2_SLAVE_HISTOGRAM_H

#include <stdbool.h>
#include <stdint.h>

struct red_hgeom {
    int64_t start;  /* a multiple of width */
    uint64_t width; /* ns, > 0 */
};

/* Buckets [0, n) of some geometry; v is NULL until the first value. */
struct red_hist {
    double *v;
    uint32_t n, cap;
};

/* floor(t / width) * width, also for negative t. */
int64_t red_hgeom_align(int64_t t, uint64_t width);

/* Sets the geometry so that t falls into bucket 0. */
void red_hgeom_init(struct red_hgeom *g, int64_t t, uint64_t width);

/* Bucket of t (t >= g->start), possibly >= IPS2_HIST_MAX_BUCKETS. */
uint64_t red_hgeom_index(const struct red_hgeom *g, int64_t t);

/* Doubles the width; returns the shift off (0 or 1): old bucket i is in
 * new bucket (i + off) / 2. */
unsigned red_hgeom_fold(struct red_hgeom *g);

/* Folds h after red_hgeom_fold() returned off. */
void red_hist_fold(struct red_hist *h, unsigned off);

/* Adds x to bucket i (< IPS2_HIST_MAX_BUCKETS), growing h; false on OOM. */
bool red_hist_add(struct red_hist *h, uint32_t i, double x);

void red_hist_free(struct red_hist *h);

#endif /* IPS2_SLAVE_HISTOGRAM_H */
