/*
 * path.c - the critical path as segments: building it (append, reverse),
 * warnings, mode and level names, and the engine's error formatter.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpa_internal.h"

int cpa_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

const char *const ips2_cpa_mode_names[] = {"global", "intra", "inter", NULL};
const char *const ips2_cpa_level_names[] = {"machine", "process", "thread", "procedure", NULL};

int ips2_cpa_mode_parse(const char *name, enum ips2_cpa_mode *mode)
{
    for (int i = 0; ips2_cpa_mode_names[i] != NULL; i++)
        if (name && strcmp(name, ips2_cpa_mode_names[i]) == 0) {
            *mode = (enum ips2_cpa_mode)i;
            return 0;
        }
    return -1;
}

const char *ips2_cpa_seg_kind_name(uint16_t kind)
{
    switch (kind) {
    case IPS2_CPA_SEG_CPU:
        return "cpu";
    case IPS2_PAG_ARC_MESSAGE:
        return "message";
    case IPS2_PAG_ARC_SYNC:
        return "sync";
    case IPS2_PAG_ARC_CREATE:
        return "create";
    case IPS2_PAG_ARC_EXIT:
        return "exit";
    }
    return "other";
}

const char *ips2_cpa_mode_name(enum ips2_cpa_mode mode)
{
    return mode <= IPS2_CPA_INTER ? ips2_cpa_mode_names[mode] : "?";
}

const char *ips2_cpa_level_name(enum ips2_cpa_level level)
{
    return level <= IPS2_CPA_LEVEL_PROCEDURE ? ips2_cpa_level_names[level] : "?";
}

int ips2_cpa_level_parse(const char *name, enum ips2_cpa_level *level)
{
    for (int i = 0; ips2_cpa_level_names[i] != NULL; i++)
        if (name && strcmp(name, ips2_cpa_level_names[i]) == 0) {
            *level = (enum ips2_cpa_level)i;
            return 0;
        }
    return -1;
}

void ips2_cpa_path_init(struct ips2_cpa_path *p)
{
    memset(p, 0, sizeof *p);
}

void ips2_cpa_path_free(struct ips2_cpa_path *p)
{
    free(p->segs);
    free(p->shares);
    for (size_t i = 0; i < p->nwarnings; i++)
        free(p->warnings[i]);
    free(p->warnings);
    ips2_cpa_path_init(p);
}

static int grow(void **v, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *n = realloc(*v, c * size);
    if (!n)
        return -1;
    *v = n;
    *cap = c;
    return 0;
}

int cpa_emit(struct ips2_cpa_path *p, const struct ips2_cpa_segment *seg, char *err, size_t errlen)
{
    if (grow((void **)&p->segs, &p->segcap, p->nsegs + 1, sizeof *p->segs))
        return cpa_err(err, errlen, "out of memory");
    p->segs[p->nsegs++] = *seg;
    return 0;
}

int cpa_path_warn(struct ips2_cpa_path *p, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **nw = realloc(p->warnings, (p->nwarnings + 1) * sizeof *nw);
    if (!nw)
        return -1;
    p->warnings = nw;
    if (!(nw[p->nwarnings] = strdup(buf)))
        return -1;
    p->nwarnings++;
    return 0;
}

/* Exchanges p's and chunk's segments and shares. */
static void swap_arrays(struct ips2_cpa_path *p, struct ips2_cpa_path *chunk)
{
    struct ips2_cpa_path t = *p;
    p->segs = chunk->segs, p->nsegs = chunk->nsegs, p->segcap = chunk->segcap;
    p->shares = chunk->shares, p->nshares = chunk->nshares, p->sharecap = chunk->sharecap;
    chunk->segs = t.segs, chunk->nsegs = t.nsegs, chunk->segcap = t.segcap;
    chunk->shares = t.shares, chunk->nshares = t.nshares, chunk->sharecap = t.sharecap;
}

int ips2_cpa_path_append(struct ips2_cpa_path *p, struct ips2_cpa_path *chunk, char *err,
                         size_t errlen)
{
    if (p->nsegs == 0 && p->nshares == 0) {
        for (size_t i = 0; i < chunk->nsegs; i++)
            if ((uint64_t)chunk->segs[i].first_share + chunk->segs[i].nshares > chunk->nshares)
                return cpa_err(err, errlen, "path chunk: segment %zu: shares out of range", i);
        swap_arrays(p, chunk);
        for (size_t i = 0; i < chunk->nwarnings; i++)
            if (cpa_path_warn(p, "%s", chunk->warnings[i]))
                return cpa_err(err, errlen, "out of memory");
        return 0;
    }
    if (grow((void **)&p->segs, &p->segcap, p->nsegs + chunk->nsegs, sizeof *p->segs) ||
        grow((void **)&p->shares, &p->sharecap, p->nshares + chunk->nshares, sizeof *p->shares))
        return cpa_err(err, errlen, "out of memory");
    for (size_t i = 0; i < chunk->nsegs; i++) {
        struct ips2_cpa_segment s = chunk->segs[i];
        if ((uint64_t)s.first_share + s.nshares > chunk->nshares)
            return cpa_err(err, errlen, "path chunk: segment %zu: shares out of range", i);
        if (s.nshares)
            s.first_share += (uint32_t)p->nshares;
        p->segs[p->nsegs++] = s;
    }
    if (chunk->nshares)
        memcpy(p->shares + p->nshares, chunk->shares, chunk->nshares * sizeof *chunk->shares);
    p->nshares += chunk->nshares;
    for (size_t i = 0; i < chunk->nwarnings; i++)
        if (cpa_path_warn(p, "%s", chunk->warnings[i]))
            return cpa_err(err, errlen, "out of memory");
    return 0;
}

void ips2_cpa_path_finish(struct ips2_cpa_path *p)
{
    for (size_t i = 0, j = p->nsegs; i + 1 < j; i++, j--) {
        struct ips2_cpa_segment t = p->segs[i];
        p->segs[i] = p->segs[j - 1];
        p->segs[j - 1] = t;
    }
    /* a session keeps its paths: not the growth's slack (up to half) */
    struct ips2_cpa_segment *segs;
    struct ips2_cpa_share *shares;
    if (p->nsegs && p->nsegs < p->segcap && (segs = realloc(p->segs, p->nsegs * sizeof *segs))) {
        p->segs = segs;
        p->segcap = p->nsegs;
    }
    if (p->nshares && p->nshares < p->sharecap &&
        (shares = realloc(p->shares, p->nshares * sizeof *shares))) {
        p->shares = shares;
        p->sharecap = p->nshares;
    }
}
