/*
 * cpa_view.c - how a session sees each of its PAG parts (cpa.h, struct
 * cpa_view): a part of a replayed session keeps that session's application
 * names and times, the session knows them renamed and perhaps shifted
 * (ANALYSTS.md §4).  In this process the parts and their metadata are
 * rewritten (cpa_view_pag, cpa_view_meta); PVM slaves keep their parts as
 * read, so the master rewrites the metadata, names each part's
 * applications as it knows them in the queries it sends (cpa_view_app)
 * and shifts the path that comes back (cpa_view_path).  Ends pair only
 * within a group (one run): cpa_match_groups numbers each group's parts
 * from 0 for the matcher and gives the arcs it made their global ids.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpa.h"

/* An application name no part has: the scope of a query for an
 * application the part does not know (zero.c finds no such app). */
#define NO_APP "\001none"

void cpa_view_free(struct cpa_view *v)
{
    if (v == NULL)
        return;
    free(v->group);
    for (size_t i = 0; i < v->nrename; i++) {
        free(v->from[i]);
        free(v->to[i]);
    }
    free(v->from);
    free(v->to);
    memset(v, 0, sizeof *v);
}

/* Renames apps[0..napps) (indices into *strings) by v: a new string per
 * renamed application (the old one may name a procedure too). */
static int rename_apps(char ***strings, size_t *nstrings, uint32_t *apps, size_t napps,
                       const struct cpa_view *v, char *err, size_t errlen)
{
    for (size_t a = 0; a < napps; a++) {
        if (apps[a] >= *nstrings)
            continue;
        for (size_t r = 0; r < v->nrename; r++) {
            if (strcmp((*strings)[apps[a]], v->from[r]) != 0)
                continue;
            char **s = realloc(*strings, (*nstrings + 1) * sizeof *s);
            if (s == NULL || (s[*nstrings] = strdup(v->to[r])) == NULL) {
                if (s != NULL)
                    *strings = s;
                snprintf(err, errlen, "out of memory renaming applications");
                return -1;
            }
            *strings = s;
            apps[a] = (uint32_t)(*nstrings)++;
            break;
        }
    }
    return 0;
}

int cpa_view_pag(struct ips2_pag *pag, const struct cpa_view *v, char *err, size_t errlen)
{
    if (v == NULL)
        return 0;
    if (rename_apps(&pag->strings, &pag->nstrings, pag->apps, pag->napps, v, err, errlen) != 0)
        return -1;
    if (v->shift == 0)
        return 0;
    for (size_t i = 0; i < pag->nnodes; i++)
        pag->nodes[i].wall += v->shift;
    for (size_t i = 0; i < pag->nends; i++) {
        pag->ends[i].wall += v->shift;
        if (pag->ends[i].wait_start != INT64_MIN)
            pag->ends[i].wait_start += v->shift;
    }
    return 0;
}

int cpa_view_meta(struct ips2_cpa_meta *m, const struct cpa_view *v, char *err, size_t errlen)
{
    if (v == NULL)
        return 0;
    if (rename_apps(&m->strings, &m->nstrings, m->apps, m->napps, v, err, errlen) != 0)
        return -1;
    for (size_t i = 0; v->shift != 0 && i < m->nthreads; i++)
        if (m->spans[i].begin != 0 || m->spans[i].end != 0) {
            m->spans[i].begin += v->shift;
            m->spans[i].end += v->shift;
        }
    return 0;
}

const char *cpa_view_app(const struct cpa_view *v, const char *app)
{
    if (app == NULL || v == NULL || v->nrename == 0)
        return app;
    for (size_t r = 0; r < v->nrename; r++)
        if (strcmp(v->to[r], app) == 0)
            return v->from[r];
    return NO_APP; /* the part's own names are not the session's */
}

void cpa_view_path(struct ips2_cpa_path *p, const struct cpa_view *views, size_t n)
{
    for (size_t i = 0; views != NULL && i < p->nsegs; i++) {
        struct ips2_cpa_segment *g = &p->segs[i];
        int64_t shift = g->dst_part < n ? views[g->dst_part].shift : 0;
        g->begin += shift;
        g->end += shift;
    }
}

static const char *group_of(const struct cpa_view *views, size_t k)
{
    return views == NULL || views[k].group == NULL ? "" : views[k].group;
}

/* Gives the arcs and outs that matching added to a group's part (numbered
 * in the group, map[local] = global) their global part numbers. */
static void renumber(struct ips2_pag *pag, const size_t *map, size_t m, uint32_t global)
{
    for (size_t i = 0; i < pag->narcs; i++) {
        uint32_t p = IPS2_PAG_GID_PART(pag->arcs[i].from);
        if (p < m)
            pag->arcs[i].from = IPS2_PAG_GID(map[p], IPS2_PAG_GID_NODE(pag->arcs[i].from));
    }
    for (size_t i = 0; i < pag->nouts; i++) {
        uint32_t p = IPS2_PAG_GID_PART(pag->outs[i].to);
        if (p < m)
            pag->outs[i].to = IPS2_PAG_GID(map[p], IPS2_PAG_GID_NODE(pag->outs[i].to));
    }
    pag->part = global;
}

int cpa_match_groups(struct ips2_pag **parts, size_t n, const struct cpa_view *views, char *err,
                     size_t errlen)
{
    bool one = true;
    for (size_t k = 1; k < n && one; k++)
        one = strcmp(group_of(views, k), group_of(views, 0)) == 0;
    if (one)
        return ips2_pag_match_ends(parts, n, err, errlen);
    struct ips2_pag **sub = calloc(n, sizeof *sub);
    size_t *map = calloc(n, sizeof *map);
    bool *done = calloc(n, sizeof *done);
    int rc = 0;
    if (sub == NULL || map == NULL || done == NULL) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    for (size_t k = 0; rc == 0 && k < n; k++) {
        if (done[k])
            continue;
        size_t m = 0;
        for (size_t j = k; j < n; j++)
            if (!done[j] && strcmp(group_of(views, j), group_of(views, k)) == 0) {
                done[j] = true;
                map[m] = j;
                sub[m] = parts[j];
                /* before matching a part's arcs are all its own: renumbered */
                ips2_pag_set_part(sub[m], (uint32_t)m);
                m++;
            }
        rc = ips2_pag_match_ends(sub, m, err, errlen);
        for (size_t i = 0; i < m; i++)
            renumber(sub[i], map, m, (uint32_t)map[i]);
    }
    free(sub);
    free(map);
    free(done);
    return rc;
}
