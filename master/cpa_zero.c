/*
 * cpa_zero.c - the procedures a critical-path zeroing names (cpa_session.h,
 * ANALYSTS.md §6), from the session's model on the interpreter's thread.
 *
 * The names a user may give are the procedures of the session's
 * reductions (what its profiles and gprof tables list).  A name that is
 * none of them is an error listing the close ones (a small edit distance,
 * or one name inside the other, case aside): a misspelt name would
 * otherwise zero nothing and read as "saved 0".  A model without
 * procedures (no reductions loaded) checks nothing.
 *
 * Inclusive zeroing takes the procedure and everything it calls: the
 * closure of its callees over the call graph of every thread of the
 * session (the reductions' arcs, as gprof's).  The PAG's CPU shares are
 * exclusive and carry no call stacks, so a callee is zeroed wherever it
 * runs, also when a caller outside the procedure called it; the answer
 * lists the procedures zeroed so that this shows.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cpa_session.h"
#include "model.h"

#define CLOSE_MAX 8

struct names {
    const char **v; /* sorted, distinct */
    size_t n;
};

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every procedure name of the model's reductions; -1 when out of memory. */
static int collect(const struct ips2_model *m, struct names *out)
{
    size_t total = 0;
    for (size_t i = 0; i < m->nslots; i++)
        total += m->slots[i].r->nprocs;
    out->v = malloc((total ? total : 1) * sizeof *out->v);
    out->n = 0;
    if (out->v == NULL)
        return -1;
    for (size_t i = 0; i < m->nslots; i++) {
        const struct ips2_reductions *r = m->slots[i].r;
        for (size_t k = 0; k < r->nprocs; k++)
            if (r->procs[k].name < r->nstrings)
                out->v[out->n++] = r->strings[r->procs[k].name];
    }
    qsort(out->v, out->n, sizeof *out->v, by_name);
    size_t j = 0;
    for (size_t i = 0; i < out->n; i++)
        if (j == 0 || strcmp(out->v[j - 1], out->v[i]) != 0)
            out->v[j++] = out->v[i];
    out->n = j;
    return 0;
}

static long find(const struct names *n, const char *name)
{
    const char **at = bsearch(&name, n->v, n->n, sizeof *n->v, by_name);
    return at != NULL ? at - n->v : -1;
}

/* Levenshtein distance, case aside, stopping early past limit. */
static size_t distance(const char *a, const char *b, size_t limit)
{
    size_t la = strlen(a), lb = strlen(b);
    if ((la > lb ? la - lb : lb - la) > limit)
        return limit + 1;
    size_t *row = malloc((lb + 1) * sizeof *row);
    if (row == NULL)
        return limit + 1;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0], best = row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            size_t v = diag + cost;
            if (up + 1 < v)
                v = up + 1;
            if (row[j - 1] + 1 < v)
                v = row[j - 1] + 1;
            row[j] = v;
            diag = up;
            if (v < best)
                best = v;
        }
        if (best > limit) {
            free(row);
            return limit + 1;
        }
    }
    size_t d = row[lb];
    free(row);
    return d;
}

static bool contains(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    if (n < 3)
        return false;
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return true;
    return false;
}

/* The error for a name that is no procedure: the close names, nearest first. */
static int unknown(const struct names *n, const char *name, struct cpa_error *e)
{
    size_t limit = strlen(name) / 3 > 2 ? strlen(name) / 3 : 2;
    struct {
        size_t d;
        const char *name;
    } close[CLOSE_MAX];
    size_t nclose = 0;
    for (size_t i = 0; i < n->n; i++) {
        size_t d = distance(name, n->v[i], limit);
        if (d > limit && (contains(n->v[i], name) || contains(name, n->v[i])))
            d = limit; /* one inside the other: as close as the farthest edit */
        if (d > limit)
            continue;
        size_t at = nclose < CLOSE_MAX ? nclose++ : CLOSE_MAX;
        while (at > 0 && close[at - 1].d > d) {
            if (at < CLOSE_MAX)
                close[at] = close[at - 1];
            at--;
        }
        if (at < CLOSE_MAX)
            close[at].d = d, close[at].name = n->v[i];
    }
    char list[768] = "";
    size_t used = 0;
    for (size_t i = 0; i < nclose && used < sizeof list; i++)
        used +=
            (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", close[i].name);
    if (nclose == 0)
        return cpa_fail(e, "PROCEDURE",
                        "no procedure \"%s\" in the session, nor one close to it (the "
                        "procedures are the ones report profile and gprof list)",
                        name);
    return cpa_fail(e, "PROCEDURE", "no procedure \"%s\" in the session; close: %s", name, list);
}

/* The names reached from n->v[from] over the reductions' call arcs (a
 * breadth-first search over the arcs between names, made once). */
static int callees(const struct ips2_model *m, const struct names *n, long from, char *reached)
{
    size_t narcs = 0;
    for (size_t i = 0; i < m->nslots; i++)
        narcs += m->slots[i].r->narcs;
    size_t *at = calloc(n->n + 1, sizeof *at);
    long *to = malloc((narcs ? narcs : 1) * sizeof *to), *queue = malloc(n->n * sizeof *queue);
    long(*pairs)[2] = malloc((narcs ? narcs : 1) * sizeof *pairs);
    int rc = at != NULL && to != NULL && queue != NULL && pairs != NULL ? 0 : -1;
    size_t np = 0;
    for (size_t i = 0; rc == 0 && i < m->nslots; i++) {
        const struct ips2_reductions *r = m->slots[i].r;
        for (size_t k = 0; k < r->narcs; k++) {
            const struct ips2_red_arc *a = &r->arcs[k];
            if (a->caller >= r->nstrings || a->callee >= r->nstrings)
                continue; /* <spontaneous> */
            long c = find(n, r->strings[a->caller]), d = find(n, r->strings[a->callee]);
            if (c >= 0 && d >= 0) {
                pairs[np][0] = c;
                pairs[np++][1] = d;
                at[c + 1]++;
            }
        }
    }
    for (size_t i = 0; rc == 0 && i < n->n; i++)
        at[i + 1] += at[i];
    /* callees of c: to[at[c] .. at[c + 1]); fill: where c's next one goes */
    size_t *fill = rc == 0 ? malloc((n->n ? n->n : 1) * sizeof *fill) : NULL;
    if (fill == NULL)
        rc = -1;
    for (size_t i = 0; rc == 0 && i < n->n; i++)
        fill[i] = at[i];
    for (size_t k = 0; rc == 0 && k < np; k++)
        to[fill[pairs[k][0]]++] = pairs[k][1];
    free(fill);
    if (rc == 0) {
        size_t head = 0, tail = 0;
        reached[from] = 1;
        queue[tail++] = from;
        while (head < tail) {
            long c = queue[head++];
            for (size_t k = at[c]; k < at[c + 1]; k++)
                if (!reached[to[k]]) {
                    reached[to[k]] = 1;
                    queue[tail++] = to[k];
                }
        }
    }
    free(at);
    free(to);
    free(queue);
    free(pairs);
    return rc;
}

int cpa_zero_names(const struct ips2_model *m, const char *name, bool inclusive, char **out,
                   struct cpa_error *e)
{
    struct names n;
    *out = NULL;
    if (collect(m, &n) != 0)
        return cpa_fail(e, "MEMORY", "out of memory");
    long at = find(&n, name);
    int rc = 0;
    if (n.n == 0) {
        rc = (*out = strdup(name)) != NULL ? 0 : cpa_fail(e, "MEMORY", "out of memory");
    } else if (at < 0) {
        rc = unknown(&n, name, e);
    } else {
        char *reached = calloc(n.n, 1);
        size_t len = strlen(name) + 1;
        if (reached == NULL || (inclusive && callees(m, &n, at, reached) != 0))
            rc = cpa_fail(e, "MEMORY", "out of memory");
        for (size_t i = 0; rc == 0 && i < n.n; i++)
            len += reached[i] && (long)i != at ? strlen(n.v[i]) + 1 : 0;
        if (rc == 0 && (*out = malloc(len)) == NULL)
            rc = cpa_fail(e, "MEMORY", "out of memory");
        if (rc == 0) { /* the procedure first, then its callees, one a line */
            char *end = stpcpy(*out, name);
            for (size_t i = 0; i < n.n; i++)
                if (reached[i] && (long)i != at)
                    end = stpcpy(stpcpy(end, "\n"), n.v[i]);
        }
        free(reached);
    }
    free(n.v);
    return rc;
}
