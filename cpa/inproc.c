/*
 * inproc.c - a query run by one worker per part inside this process: the
 * driver of the worker protocol (ips2_cpa.h) with a transport that holds
 * every batch in a pool and delivers them in an order shuffled with a
 * seed, stepping the workers in a shuffled order too.  The tests hold it
 * to the oracle, so the order of delivery provably does not matter.
 */
#include <stdlib.h>
#include <string.h>

#include "cpa_internal.h"

#define rnd cpa_rnd

struct pool {
    struct ips2_cpa_batch *b;
    size_t n, cap;
};

static int pool_add(struct pool *p, const struct ips2_cpa_batch *b)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 16;
        struct ips2_cpa_batch *nb = realloc(p->b, cap * sizeof *nb);
        if (!nb)
            return -1;
        p->b = nb;
        p->cap = cap;
    }
    p->b[p->n++] = *b;
    return 0;
}

/* Cuts a batch in two at a random point now and then, so that a node's
 * values may arrive in several deliveries. */
static int maybe_split(struct pool *p, struct ips2_cpa_batch *b, uint64_t *seed)
{
    if (b->n < 2 || rnd(seed) % 3)
        return pool_add(p, b);
    size_t cut = 1 + rnd(seed) % (b->n - 1);
    struct ips2_cpa_batch tail = {b->from_part, b->to_part, NULL, b->n - cut, b->n - cut};
    tail.v = malloc(tail.n * sizeof *tail.v);
    if (!tail.v)
        return -1;
    memcpy(tail.v, b->v + cut, tail.n * sizeof *tail.v);
    b->n = cut;
    if (pool_add(p, b)) {
        free(tail.v);
        return -1;
    }
    if (pool_add(p, &tail)) {
        free(tail.v);
        return -1;
    }
    return 0;
}

static int forward(struct ips2_cpa_worker **w, size_t n, uint64_t *seed, struct pool *pool,
                   char *err, size_t errlen)
{
    size_t *order = malloc(n * sizeof *order);
    if (!order)
        return cpa_err(err, errlen, "out of memory");
    int rc = -1;
    for (;;) {
        for (size_t i = 0; i < n; i++)
            order[i] = i;
        for (size_t i = n; i > 1; i--) {
            size_t j = rnd(seed) % i, t = order[i - 1];
            order[i - 1] = order[j];
            order[j] = t;
        }
        for (size_t k = 0; k < n; k++) {
            struct ips2_cpa_worker *x = w[order[k]];
            if (ips2_cpa_worker_step(x, err, errlen))
                goto out;
            struct ips2_cpa_batch b;
            while (ips2_cpa_worker_take_batch(x, &b))
                if (maybe_split(pool, &b, seed)) {
                    ips2_cpa_batch_free(&b);
                    cpa_err(err, errlen, "out of memory");
                    goto out;
                }
        }
        if (pool->n == 0) {
            size_t k = 0;
            while (k < n && ips2_cpa_worker_done(w[k]))
                k++;
            if (k == n)
                break;
            ips2_cpa_worker_stuck(w[k], err, errlen);
            goto out;
        }
        /* Deliver a random number of random batches. */
        size_t m = 1 + rnd(seed) % pool->n;
        for (size_t d = 0; d < m; d++) {
            size_t j = rnd(seed) % pool->n;
            struct ips2_cpa_batch b = pool->b[j];
            pool->b[j] = pool->b[--pool->n];
            int r = ips2_cpa_worker_deliver(w[b.to_part], &b, err, errlen);
            ips2_cpa_batch_free(&b);
            if (r)
                goto out;
        }
    }
    rc = 0;
out:
    free(order);
    return rc;
}

int ips2_cpa_inproc(struct ips2_pag *const *parts, size_t n, const struct ips2_cpa_query *q,
                    uint64_t seed, struct ips2_cpa_path *out, char *err, size_t errlen)
{
    ips2_cpa_path_init(out);
    for (size_t i = 0; i < n; i++)
        if (parts[i]->part != i)
            return cpa_err(err, errlen, "part %zu: numbered %u", i, parts[i]->part);
    struct ips2_cpa_worker **w = calloc(n ? n : 1, sizeof *w);
    struct pool pool = {0};
    int rc = -1;
    if (!w)
        return cpa_err(err, errlen, "out of memory");
    for (size_t i = 0; i < n; i++)
        if (ips2_cpa_worker_new(parts[i], n, q, &w[i], err, errlen))
            goto out;
    if (forward(w, n, &seed, &pool, err, errlen))
        goto out;
    struct ips2_cpa_candidate best = {0};
    for (size_t i = 0; i < n; i++) {
        struct ips2_cpa_candidate c;
        ips2_cpa_worker_candidate(w[i], &c);
        if (c.found && (!best.found || c.length > best.length ||
                        (c.length == best.length && c.gid < best.gid)))
            best = c;
    }
    out->found = best.found;
    out->length = best.found ? best.length : 0;
    out->terminal = best.gid;
    struct ips2_cpa_walk at = {.done = !best.found, .gid = best.gid};
    while (!at.done) {
        struct ips2_cpa_path chunk;
        struct ips2_cpa_walk next;
        ips2_cpa_path_init(&chunk);
        int r = ips2_cpa_worker_walk(w[IPS2_PAG_GID_PART(at.gid)], &at, &chunk, &next, err, errlen);
        if (!r)
            r = ips2_cpa_path_append(out, &chunk, err, errlen);
        ips2_cpa_path_free(&chunk);
        if (r)
            goto out;
        at = next;
    }
    ips2_cpa_path_finish(out);
    rc = 0;
out:
    for (size_t i = 0; i < pool.n; i++)
        ips2_cpa_batch_free(&pool.b[i]);
    free(pool.b);
    for (size_t i = 0; i < n; i++)
        ips2_cpa_worker_free(w[i]);
    free(w);
    return rc;
}
