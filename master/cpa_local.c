/*
 * cpa_local.c - critical-path queries in this process (cpa.h): for a
 * session reopened without slaves, the part files SESSION/pag/MACHINE*.pag are
 * read here, numbered in the order given, seen as the session sees them
 * (cpa_view.c: replayed applications renamed and shifted), their
 * cross-machine ends matched within each run (cpa_match_groups) and every
 * query run by the engine's
 * in-process driver (ips2_cpa_inproc, which the tests hold equal to the
 * oracle).  A session opens them lazily (cpa_local_open_lazy): without
 * their shares, which the queries that show them read from the files.
 * Also the set's common helpers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpa.h"

struct cpa_set *cpa_set_new(char *const *files, size_t n)
{
    struct cpa_set *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->n = n;
    s->files = calloc(n ? n : 1, sizeof *s->files);
    s->metas = calloc(n ? n : 1, sizeof *s->metas);
    s->views = calloc(n ? n : 1, sizeof *s->views);
    if (s->files == NULL || s->metas == NULL || s->views == NULL) {
        cpa_set_free(s);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if ((s->files[i] = strdup(files[i])) == NULL) {
            cpa_set_free(s);
            return NULL;
        }
    return s;
}

int cpa_set_warn(struct cpa_set *s, const char *line)
{
    char **v = realloc(s->warnings, (s->nwarnings + 1) * sizeof *v);
    if (v == NULL)
        return -1;
    s->warnings = v;
    if ((v[s->nwarnings] = strdup(line)) == NULL)
        return -1;
    s->nwarnings++;
    return 0;
}

void cpa_set_free(struct cpa_set *s)
{
    if (s == NULL)
        return;
    cpa_pvm_free(s->pvm);
    for (size_t i = 0; i < s->n; i++) {
        if (s->files)
            free(s->files[i]);
        if (s->metas)
            ips2_cpa_meta_free(s->metas[i]);
        if (s->views)
            cpa_view_free(&s->views[i]);
        if (s->parts)
            ips2_pag_free(s->parts[i]);
    }
    free(s->files);
    free(s->metas);
    free(s->views);
    free(s->parts);
    for (size_t i = 0; i < s->nwarnings; i++)
        free(s->warnings[i]);
    free(s->warnings);
    free(s);
}

static int local_open(char *const *files, size_t n, bool lazy, cpa_view_fn *view, void *view_arg,
                      struct cpa_set **out, char *err, size_t errlen);

int cpa_local_open(char *const *files, size_t n, cpa_view_fn *view, void *view_arg,
                   struct cpa_set **out, char *err, size_t errlen)
{
    return local_open(files, n, false, view, view_arg, out, err, errlen);
}

int cpa_local_open_lazy(char *const *files, size_t n, cpa_view_fn *view, void *view_arg,
                        struct cpa_set **out, char *err, size_t errlen)
{
    return local_open(files, n, true, view, view_arg, out, err, errlen);
}

static int local_open(char *const *files, size_t n, bool lazy, cpa_view_fn *view, void *view_arg,
                      struct cpa_set **out, char *err, size_t errlen)
{
    struct cpa_set *s = cpa_set_new(files, n);
    *out = NULL;
    if (s == NULL || (s->parts = calloc(n ? n : 1, sizeof *s->parts)) == NULL) {
        snprintf(err, errlen, "out of memory");
        cpa_set_free(s);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if ((lazy ? ips2_pag_read_lazy : ips2_pag_read)(files[i], &s->parts[i], err, errlen) != 0) {
            cpa_set_free(s);
            return -1;
        }
    if (ips2_pag_number(s->parts, n, err, errlen) != 0) {
        cpa_set_free(s);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (view != NULL &&
            (view(view_arg, files[i], s->parts[i], &s->views[i], err, errlen) != 0 ||
             cpa_view_pag(s->parts[i], &s->views[i], err, errlen) != 0)) {
            cpa_set_free(s);
            return -1;
        }
    }
    if (cpa_match_groups(s->parts, n, s->views, err, errlen) != 0) {
        cpa_set_free(s);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (ips2_cpa_meta_from_pag(s->parts[i], &s->metas[i], err, errlen) != 0) {
            cpa_set_free(s);
            return -1;
        }
        for (size_t w = 0; w < s->parts[i]->nwarnings; w++)
            cpa_set_warn(s, s->parts[i]->warnings[w]);
    }
    *out = s;
    return 0;
}

int cpa_set_run(struct cpa_set *s, const struct ips2_cpa_query *q, struct ips2_cpa_path *out,
                char *err, size_t errlen)
{
    if (s->pvm != NULL)
        return cpa_pvm_run(s, q, out, err, errlen);
    return ips2_cpa_inproc(s->parts, s->n, q, 1, out, err, errlen);
}
