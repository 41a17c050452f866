/*
 * session.c - ips2_export(): a session's traces handed to one writer.
 *
 * The session: its time 0 (manifest.tcl's `session` line) and one
 * machine per folder of SESSION/traces, each read through traces/'s
 * trace-directory listing and reader.  Three steps:
 *
 *  1. the PAG: each machine's part is built by the reduction (slave/,
 *     the same pass a slave makes), folded but keeping every message's
 *     node (IPS2_PAG_FOLD=messages); the parts are numbered and
 *     their cross-machine ends matched (cpa/: ips2_pag_match_ends).
 *     Nothing here pairs anything: pag_match.c did.
 *  2. locations: the part's threads, in the order of the directory's
 *     streams (the reduction's order), become the session's locations;
 *     each message node's partner (the location at the other end of its
 *     first message arc) is kept per thread, in node order.  For JSON, the
 *     arcs between threads and the global critical path are kept too.
 *     Then the parts are freed.
 *  3. the events: every thread stream is read again, one at a time; its
 *     k-th message event (pag_message_node) takes the k-th partner.  A
 *     count that disagrees means the parts lost message nodes (folded
 *     without keeping them) or the traces changed: an error, never a
 *     wrong pairing.  A stream damaged part way gives the events before
 *     the damage in both readings (the reader returns them, then fails):
 *     they are exported, and the damage is a warning.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ips2_clocks.h"
#include "ips2_cpa.h"
#include "ips2_fields.h"
#include "ips2_pag.h"
#include "ips2_reader.h"
#include "ips2_reductions.h"
#include "ips2_symbols.h"
#include "ips2_trace_dir.h"
#include "pag_build.h"

#include "export_internal.h"

void ex_error(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ---- strings and maps ----------------------------------------------------- */

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
    const unsigned char *s = p;

    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 1099511628211ULL;
    return h;
}

static bool grow(void **v, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return true;
    size_t c = *cap ? *cap * 2 : 16;
    void *p = realloc(*v, c * size);
    if (!p)
        return false;
    *v = p;
    *cap = c;
    return true;
}

uint32_t ex_string(struct ex_strings *t, const char *s)
{
    size_t len = strlen(s);

    if ((t->n + 1) * 2 > t->nslots) {
        size_t ns = t->nslots ? t->nslots * 2 : 64;
        uint32_t *slots = calloc(ns, sizeof(*slots));
        if (!slots)
            return EX_NONE;
        for (size_t i = 0; i < t->n; i++) {
            size_t j = fnv(t->v[i], strlen(t->v[i]), 14695981039346656037ULL) & (ns - 1);
            while (slots[j])
                j = (j + 1) & (ns - 1);
            slots[j] = (uint32_t)i + 1;
        }
        free(t->slots);
        t->slots = slots;
        t->nslots = ns;
    }
    size_t j = fnv(s, len, 14695981039346656037ULL) & (t->nslots - 1);
    for (; t->slots[j]; j = (j + 1) & (t->nslots - 1))
        if (strcmp(t->v[t->slots[j] - 1], s) == 0)
            return t->slots[j] - 1;
    char *copy = strdup(s);
    if (!copy || !grow((void **)&t->v, &t->cap, t->n, sizeof(*t->v))) {
        free(copy);
        return EX_NONE;
    }
    t->v[t->n] = copy;
    t->slots[j] = (uint32_t)++t->n;
    return (uint32_t)t->n - 1;
}

void ex_strings_free(struct ex_strings *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i]);
    free(t->v);
    free(t->slots);
    memset(t, 0, sizeof(*t));
}

static size_t map_slot(const struct ex_map *m, uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t k[3] = {a, b, c};
    size_t j = fnv(k, sizeof(k), 14695981039346656037ULL) & (m->cap - 1);

    while (m->slots[j].used && !(m->slots[j].a == a && m->slots[j].b == b && m->slots[j].c == c))
        j = (j + 1) & (m->cap - 1);
    return j;
}

uint32_t *ex_map_get(struct ex_map *m, uint64_t a, uint64_t b, uint64_t c, uint32_t v, bool *fresh)
{
    if ((m->n + 1) * 2 > m->cap) {
        struct ex_map bigger = {NULL, m->n, m->cap ? m->cap * 2 : 64};
        if (!(bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots))))
            return NULL;
        for (size_t i = 0; i < m->cap; i++)
            if (m->slots[i].used)
                bigger.slots[map_slot(&bigger, m->slots[i].a, m->slots[i].b, m->slots[i].c)] =
                    m->slots[i];
        free(m->slots);
        *m = bigger;
    }
    struct ex_map_slot *s = &m->slots[map_slot(m, a, b, c)];
    *fresh = !s->used;
    if (!s->used) {
        *s = (struct ex_map_slot){a, b, c, v, true};
        m->n++;
    }
    return &s->v;
}

void ex_map_free(struct ex_map *m)
{
    free(m->slots);
    memset(m, 0, sizeof(*m));
}

int ips2_export_format_parse(const char *name, enum ips2_export_format *f)
{
    static const char *const names[] = {"otf2", "json", "folded"};

    for (int i = 0; i < 3; i++)
        if (strcmp(name, names[i]) == 0) {
            *f = (enum ips2_export_format)i;
            return 0;
        }
    return -1;
}

/* ---- the session ---------------------------------------------------------- */

static void session_free(struct ex_session *s)
{
    for (size_t i = 0; i < s->nmachines; i++) {
        free(s->machines[i].name);
        free(s->machines[i].dir);
    }
    free(s->machines);
    for (size_t i = 0; i < s->nthreads; i++) {
        free(s->threads[i].path);
        free(s->threads[i].peers);
    }
    free(s->threads);
    free(s->groups);
    free(s->flows);
    free(s->segments);
    ex_strings_free(&s->strings);
}

/* Time 0: the manifest's "session NS" line. */
static int read_start(struct ex_session *s, char *err, size_t errlen)
{
    char path[4096], line[512];
    FILE *f;
    long long v;

    snprintf(path, sizeof(path), "%s/manifest.tcl", s->dir);
    if (!(f = fopen(path, "r"))) {
        ex_error(err, errlen, "%s: not a session directory (%s: %s)", s->dir, path,
                 strerror(errno));
        return -1;
    }
    bool found = false;
    while (!found && fgets(line, sizeof(line), f))
        if (sscanf(line, "session %lld", &v) == 1) {
            s->start_real = v;
            found = true;
        }
    fclose(f);
    if (!found) {
        ex_error(err, errlen, "%s: expected a line \"session NS\" (time 0), found none", path);
        return -1;
    }
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* The machines: SESSION/traces/NAME, in name order. */
static int list_machines(struct ex_session *s, char *err, size_t errlen)
{
    char traces[4096];
    struct dirent **names;
    int n;

    snprintf(traces, sizeof(traces), "%s/traces", s->dir);
    if ((n = scandir(traces, &names, NULL, by_name)) < 0) {
        ex_error(err, errlen, "%s: %s", traces, strerror(errno));
        return -1;
    }
    int rc = 0;
    if (!(s->machines = calloc((size_t)n + 1, sizeof(*s->machines))))
        rc = -1;
    for (int i = 0; i < n; i++) {
        char dir[4096 + 256];
        struct stat st;
        snprintf(dir, sizeof(dir), "%s/%s", traces, names[i]->d_name);
        if (rc == 0 && names[i]->d_name[0] != '.' && stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) {
            struct ex_machine *m = &s->machines[s->nmachines];
            if (!(m->name = strdup(names[i]->d_name)) || !(m->dir = strdup(dir)))
                rc = -1;
            s->nmachines++;
        }
        free(names[i]);
    }
    free(names);
    if (rc < 0)
        ex_error(err, errlen, "out of memory");
    else if (s->nmachines == 0) {
        ex_error(err, errlen, "%s: no machine's traces", traces);
        rc = -1;
    }
    return rc;
}

/* ---- steps 1 and 2: the PAG ------------------------------------------------ */

static bool send_kind(unsigned kind)
{
    return kind == IPS2_EV_SEND || kind == IPS2_EV_DGRAM_SEND || kind == IPS2_EV_PVM_SEND;
}

/* The group (process image) of a stream, added when it comes first. */
static uint32_t group_of(struct ex_session *s, uint32_t machine, const struct ips2_trace_stream *st)
{
    if (s->ngroups) {
        struct ex_group *g = &s->groups[s->ngroups - 1];
        if (g->machine == machine && g->pid == (int32_t)st->pid && g->image == st->image)
            return (uint32_t)s->ngroups - 1;
    }
    struct ips2_file_header h;
    if (!grow((void **)&s->groups, &s->cap_groups, s->ngroups, sizeof(*s->groups)))
        return EX_NONE;
    bool have = ips2_trace_stream_header(st->path, &h);
    struct ex_group *g = &s->groups[s->ngroups];
    g->machine = machine;
    g->pid = (int32_t)st->pid;
    g->image = st->image;
    g->app = ex_string(&s->strings, have ? h.app : "");
    g->exe = ex_string(&s->strings, have ? h.exe : "");
    if (g->app == EX_NONE || g->exe == EX_NONE)
        return EX_NONE;
    return (uint32_t)s->ngroups++;
}

/* A stream without a thread in the part: one that gave no event (its
 * damage, if any, is a warning).  -1 with err if it has events after all. */
static int skipped(struct ex_session *s, const char *path, char *err, size_t errlen)
{
    char e[IPS2_ERR_MAX];
    const struct ips2_event *ev;
    struct ips2_reader *r = ips2_reader_open(path, e);
    int rc;

    if (!r) {
        if (s->warn)
            s->warn(s->warn_arg, e);
        return 0;
    }
    if ((rc = ips2_reader_next(r, &ev)) < 0 && s->warn)
        s->warn(s->warn_arg, ips2_reader_error(r));
    ips2_reader_close(r);
    if (rc == 1) {
        ex_error(err, errlen, "%s: events, but no thread in the PAG", path);
        return -1;
    }
    return 0;
}

/* Matches part p's threads with machine p's streams, in order: the
 * location of each of the part's threads (EX_NONE: none), in *locs. */
static int locate(struct ex_session *s, uint32_t p, const struct ips2_pag *part,
                  const struct ips2_trace_dir *td, uint32_t *locs, char *err, size_t errlen)
{
    size_t j = 0;

    for (size_t i = 0; i < td->nstreams; i++) {
        const struct ips2_trace_stream *st = &td->streams[i];
        const struct ips2_pag_thread *th = j < part->nthreads ? &part->threads[j] : NULL;
        if (st->tid == IPS2_TRACE_PROC_TID)
            continue;
        if (!th || part->processes[th->process].pid != (int32_t)st->pid ||
            part->processes[th->process].image != st->image || th->tid != (int32_t)st->tid) {
            if (skipped(s, st->path, err, errlen) < 0)
                return -1;
            continue;
        }
        uint32_t g = group_of(s, p, st);
        if (g == EX_NONE ||
            !grow((void **)&s->threads, &s->cap_threads, s->nthreads, sizeof(*s->threads)))
            goto oom;
        struct ex_thread *t = &s->threads[s->nthreads];
        memset(t, 0, sizeof(*t));
        if (!(t->path = strdup(st->path)))
            goto oom;
        t->group = g;
        t->tid = (int32_t)st->tid;
        t->k = st->k;
        locs[j++] = (uint32_t)s->nthreads++;
    }
    if (j < part->nthreads) {
        const struct ips2_pag_thread *th = &part->threads[j];
        ex_error(err, errlen, "%s: the PAG's thread %d of process %d has no stream here", td->dir,
                 th->tid, part->processes[th->process].pid);
        return -1;
    }
    return 0;
oom:
    ex_error(err, errlen, "out of memory");
    return -1;
}

/* The location of a global node id. */
static uint32_t loc_of(struct ips2_pag **parts, size_t n, uint32_t *const *locs, uint64_t gid)
{
    uint32_t p = IPS2_PAG_GID_PART(gid), node = IPS2_PAG_GID_NODE(gid);

    if (p >= n || node >= parts[p]->nnodes)
        return EX_NONE;
    return locs[p][parts[p]->nodes[node].thread];
}

/* Each message node's partner, then per thread in node order. */
static int partners(struct ex_session *s, struct ips2_pag **parts, size_t n, uint32_t **locs,
                    char *err, size_t errlen)
{
    for (size_t p = 0; p < n; p++) {
        const struct ips2_pag *part = parts[p];
        uint32_t *peer = malloc((part->nnodes + 1) * sizeof(*peer));
        if (!peer)
            goto oom;
        for (size_t i = 0; i < part->nnodes; i++)
            peer[i] = EX_NONE;
        /* arcs into this part: the receiving ends */
        for (size_t a = 0; a < part->narcs; a++) {
            const struct ips2_pag_arc *arc = &part->arcs[a];
            if (arc->type == IPS2_PAG_ARC_MESSAGE && pag_message_kind(part->nodes[arc->to].kind) &&
                peer[arc->to] == EX_NONE)
                peer[arc->to] = loc_of(parts, n, locs, arc->from);
        }
        /* arcs out of this part's sends: in every part's arcs, by source */
        for (size_t q = 0; q < n; q++)
            for (size_t a = 0; a < parts[q]->narcs; a++) {
                const struct ips2_pag_arc *arc = &parts[q]->arcs[a];
                uint32_t node = IPS2_PAG_GID_NODE(arc->from);
                if (arc->type != IPS2_PAG_ARC_MESSAGE || IPS2_PAG_GID_PART(arc->from) != p ||
                    node >= part->nnodes || !send_kind(part->nodes[node].kind) ||
                    peer[node] != EX_NONE)
                    continue;
                peer[node] = locs[q][parts[q]->nodes[arc->to].thread];
            }
        for (size_t t = 0; t < part->nthreads; t++) {
            struct ex_thread *th = &s->threads[locs[p][t]];
            const struct ips2_pag_thread *pt = &part->threads[t];
            size_t k = 0;
            for (uint32_t i = pt->first; i < pt->first + pt->count; i++)
                k += pag_message_kind(part->nodes[i].kind);
            if (!(th->peers = malloc((k + 1) * sizeof(*th->peers)))) {
                free(peer);
                goto oom;
            }
            for (uint32_t i = pt->first; i < pt->first + pt->count; i++)
                if (pag_message_kind(part->nodes[i].kind))
                    th->peers[th->npeers++] = peer[i];
        }
        free(peer);
    }
    return 0;
oom:
    ex_error(err, errlen, "out of memory");
    return -1;
}

/* JSON: every arc between two threads, as a flow. */
static int flows(struct ex_session *s, struct ips2_pag **parts, size_t n, uint32_t **locs,
                 char *err, size_t errlen)
{
    for (size_t q = 0; q < n; q++)
        for (size_t a = 0; a < parts[q]->narcs; a++) {
            const struct ips2_pag_arc *arc = &parts[q]->arcs[a];
            uint32_t from = loc_of(parts, n, locs, arc->from);
            uint32_t to = locs[q][parts[q]->nodes[arc->to].thread];
            if (from == EX_NONE || from == to)
                continue;
            if (!grow((void **)&s->flows, &s->cap_flows, s->nflows, sizeof(*s->flows))) {
                ex_error(err, errlen, "out of memory");
                return -1;
            }
            const struct ips2_pag *src = parts[IPS2_PAG_GID_PART(arc->from)];
            s->flows[s->nflows++] =
                (struct ex_flow){from, to, arc->type, src->nodes[IPS2_PAG_GID_NODE(arc->from)].wall,
                                 parts[q]->nodes[arc->to].wall};
        }
    return 0;
}

/* JSON: the global critical path, segment by segment. */
static int critical_path(struct ex_session *s, struct ips2_pag **parts, size_t n, uint32_t **locs,
                         char *err, size_t errlen)
{
    struct ips2_cpa_query q = {.mode = IPS2_CPA_GLOBAL};
    struct ips2_cpa_path path;
    char e[IPS2_ERR_MAX];

    ips2_cpa_path_init(&path);
    if (ips2_cpa_oracle(parts, n, &q, &path, e, sizeof(e)) < 0) {
        ex_error(err, errlen, "critical path: %s", e);
        ips2_cpa_path_free(&path);
        return -1;
    }
    s->cp_length = path.length;
    if (path.nsegs && !(s->segments = calloc(path.nsegs, sizeof(*s->segments)))) {
        ips2_cpa_path_free(&path);
        ex_error(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < path.nsegs; i++) {
        const struct ips2_cpa_segment *g = &path.segs[i];
        struct ex_segment *x = &s->segments[s->nsegments++];
        const char *name = ips2_cpa_seg_kind_name(g->kind);
        int64_t most = -1;
        for (uint32_t k = g->first_share; k < g->first_share + g->nshares; k++) {
            const struct ips2_cpa_share *sh = &path.shares[k];
            if (sh->cpu > most && sh->proc != IPS2_PAG_NONE &&
                sh->proc < parts[g->src_part]->nstrings) {
                most = sh->cpu;
                name = parts[g->src_part]->strings[sh->proc];
            }
        }
        x->src = g->src_part < n && g->src_thread < parts[g->src_part]->nthreads
                     ? locs[g->src_part][g->src_thread]
                     : EX_NONE;
        x->dst = g->dst_part < n && g->dst_thread < parts[g->dst_part]->nthreads
                     ? locs[g->dst_part][g->dst_thread]
                     : EX_NONE;
        x->kind = g->kind;
        x->name = ex_string(&s->strings, name);
        x->begin = g->begin;
        x->end = g->end;
        x->length = g->length;
        if (x->name == EX_NONE) {
            ips2_cpa_path_free(&path);
            ex_error(err, errlen, "out of memory");
            return -1;
        }
    }
    ips2_cpa_path_free(&path);
    return 0;
}

/* Steps 1 and 2. */
static int build(struct ex_session *s, enum ips2_export_format format, char *err, size_t errlen)
{
    size_t n = s->nmachines;
    struct ips2_pag **parts = calloc(n, sizeof(*parts));
    uint32_t **locs = calloc(n, sizeof(*locs));
    char e[IPS2_ERR_MAX];
    int rc = -1;

    if (!parts || !locs) {
        ex_error(err, errlen, "out of memory");
        goto out;
    }
    for (size_t p = 0; p < n; p++) {
        struct ex_machine *m = &s->machines[p];
        struct ips2_reduce_options o = {.machine = m->name,
                                        .session_start_real = s->start_real,
                                        .phase_start_ns = INT64_MIN,
                                        .phase_end_ns = INT64_MAX,
                                        .pag_out = &parts[p]};
        struct ips2_reductions *r = ips2_reduce_dir(m->dir, &o, e);
        if (!r) {
            ex_error(err, errlen, "%s", e);
            goto out;
        }
        ips2_reductions_free(r);
        if (!parts[p]) {
            ex_error(err, errlen, "%s: no PAG could be built", m->dir);
            goto out;
        }
        struct ips2_trace_dir *td = ips2_trace_dir_open(m->dir, e);
        if (!td) {
            ex_error(err, errlen, "%s", e);
            goto out;
        }
        m->offset = ips2_trace_dir_clock_offset(td, m->host, sizeof(m->host)) - s->start_real;
        /* the machine's clock against the master's, as the reduction
         * (and so the PAG) corrects it: docs/CLOCKS.md */
        struct ips2_clock_est ce;
        if (ips2_clock_read(m->dir, &ce, e, sizeof e) == 1)
            m->offset -= ce.offset;
        if (!(locs[p] = malloc((parts[p]->nthreads + 1) * sizeof(**locs)))) {
            ips2_trace_dir_free(td);
            ex_error(err, errlen, "out of memory");
            goto out;
        }
        int lrc = locate(s, (uint32_t)p, parts[p], td, locs[p], err, errlen);
        ips2_trace_dir_free(td);
        if (lrc < 0)
            goto out;
    }
    if (ips2_pag_number(parts, n, e, sizeof(e)) < 0 ||
        ips2_pag_match_ends(parts, n, e, sizeof(e)) < 0) {
        ex_error(err, errlen, "PAG: %s", e);
        goto out;
    }
    if (partners(s, parts, n, locs, err, errlen) < 0)
        goto out;
    if (format == IPS2_EXPORT_JSON && (flows(s, parts, n, locs, err, errlen) < 0 ||
                                       critical_path(s, parts, n, locs, err, errlen) < 0))
        goto out;
    rc = 0;
out:
    for (size_t p = 0; parts && p < n; p++)
        if (parts[p])
            ips2_pag_free(parts[p]);
    for (size_t p = 0; locs && p < n; p++)
        free(locs[p]);
    free(parts);
    free(locs);
    return rc;
}

/* ---- step 3: the events ----------------------------------------------------- */

struct names {
    struct ips2_symtab *symtab;
    uint32_t group;      /* whose symbols */
    struct ex_map cache; /* (group, address) -> string */
};

static int load_names(struct names *nm, const struct ex_thread *t)
{
    char proc[4096], e[IPS2_ERR_MAX];

    if (nm->symtab && nm->group == t->group)
        return 0;
    ips2_symtab_free(nm->symtab);
    if (!(nm->symtab = ips2_symtab_new()))
        return -1;
    nm->group = t->group;
    if (ips2_proc_stream_path(t->path, proc, sizeof(proc)) == 0)
        ips2_symtab_load_process(nm->symtab, proc, e); /* a name not found: an address */
    return 0;
}

static uint32_t region(struct ex_session *s, struct names *nm, uint64_t addr)
{
    bool fresh;
    uint32_t *v = ex_map_get(&nm->cache, nm->group, addr, 0, EX_NONE, &fresh);
    uint64_t off;
    char buf[32];

    if (!v)
        return EX_NONE;
    if (fresh) {
        const char *name = ips2_symtab_lookup(nm->symtab, addr, &off);
        if (!name) {
            snprintf(buf, sizeof(buf), "0x%" PRIx64, addr);
            name = buf;
        }
        *v = ex_string(&s->strings, name);
    }
    return *v;
}

static uint64_t word(const struct ips2_event *ev, unsigned i)
{
    return i < ev->nextra ? ev->extra[i] : 0;
}

/* Reads one thread stream into the writer. */
static int export_thread(struct ex_session *s, uint32_t loc, struct names *nm, struct ex_map *locks,
                         const struct ex_writer *ops, void *w, struct ips2_export_counts *c,
                         char *err, size_t errlen)
{
    const struct ex_thread *t = &s->threads[loc];
    const struct ex_group *g = &s->groups[t->group];
    const struct ex_machine *m = &s->machines[g->machine];
    char e[IPS2_ERR_MAX];
    struct ips2_reader *r;
    const struct ips2_event *ev;
    int64_t last_t = INT64_MIN;
    uint64_t last_cpu = 0;
    size_t k = 0;
    int rc;

    if (load_names(nm, t) < 0) {
        ex_error(err, errlen, "out of memory");
        return -1;
    }
    if (!(r = ips2_reader_open(t->path, e))) {
        ex_error(err, errlen, "%s", e);
        return -1;
    }
    if (ops->thread_begin(w, loc, err, errlen) < 0)
        goto fail;
    while ((rc = ips2_reader_next(r, &ev)) == 1) {
        struct ex_event x = {.peer = EX_NONE};
        int64_t tt = (int64_t)ev->wall_ns + m->offset;
        last_t = tt > last_t ? tt : last_t;
        last_cpu = ev->cpu_ns;
        x.t = last_t;
        x.cpu = ev->cpu_ns;
        switch (ev->kind) {
        case IPS2_EV_ENTER:
        case IPS2_EV_EXIT:
            x.kind = ev->kind == IPS2_EV_ENTER ? EX_ENTER : EX_LEAVE;
            if ((x.region = region(s, nm, ev->payload)) == EX_NONE) {
                ex_error(err, errlen, "out of memory");
                goto fail;
            }
            break;
        case IPS2_EV_SEND:
        case IPS2_EV_RECV:
        case IPS2_EV_DGRAM_SEND:
        case IPS2_EV_DGRAM_RECV:
        case IPS2_EV_PVM_SEND:
        case IPS2_EV_PVM_RECV:
            x.kind = send_kind(ev->kind) ? EX_SEND : EX_RECV;
            if (pag_message_node(ev)) {
                if (k >= t->npeers) {
                    ex_error(err, errlen,
                             "%s: more messages than its thread has in the PAG (%zu): parts "
                             "folded without their messages, or the traces changed",
                             t->path, t->npeers);
                    goto fail;
                }
                x.peer = t->peers[k++];
            }
            if (ev->kind == IPS2_EV_PVM_SEND)
                x.tag = (uint32_t)word(ev, IPS2_F_PVM_SEND_TAG);
            else if (ev->kind == IPS2_EV_PVM_RECV)
                x.tag = (uint32_t)word(ev, IPS2_F_PVM_RECV_TAG);
            x.bytes = word(ev, (unsigned)ips2_field_word(ev->kind, IPS2_ROLE_BYTES));
            if (word(ev, (unsigned)ips2_field_word(ev->kind, IPS2_ROLE_ERROR)) != 0)
                x.bytes = 0; /* a failed call moved nothing */
            break;
        case IPS2_EV_LOCK_ACQUIRED:
        case IPS2_EV_LOCK_RELEASE:
        case IPS2_EV_LOCK_ACQUIRED_SHARED:
        case IPS2_EV_LOCK_RELEASE_SHARED: {
            bool fresh, shared_key = (ev->payload & IPS2_SYNC_KEY_SHARED) != 0;
            /* a private key within its process image, a shared one on its machine */
            uint64_t scope = shared_key ? (uint64_t)g->machine << 32
                                        : (uint64_t)g->machine << 32 | (uint32_t)g->pid;
            uint32_t *id = ex_map_get(locks, scope, shared_key ? UINT64_MAX : g->image, ev->payload,
                                      (uint32_t)locks->n, &fresh);
            if (!id) {
                ex_error(err, errlen, "out of memory");
                goto fail;
            }
            x.kind = ev->kind == IPS2_EV_LOCK_ACQUIRED || ev->kind == IPS2_EV_LOCK_ACQUIRED_SHARED
                         ? EX_ACQUIRE
                         : EX_RELEASE;
            x.lock = *id;
            /* an acquisition names the release seq that let it in (k), its
             * release takes the next one (k + 1): both are order k, as OTF2
             * wants a hold's two events numbered alike */
            x.order = (uint32_t)word(ev, IPS2_F_LOCK_ACQUIRED_SEQ);
            if (x.kind == EX_RELEASE && x.order > 0)
                x.order--;
            x.shared =
                ev->kind == IPS2_EV_LOCK_ACQUIRED_SHARED || ev->kind == IPS2_EV_LOCK_RELEASE_SHARED;
            break;
        }
        default:
            continue;
        }
        switch (x.kind) {
        case EX_ENTER:
            c->enters++;
            break;
        case EX_LEAVE:
            c->leaves++;
            break;
        case EX_SEND:
            c->sends++;
            c->paired_sends += x.peer != EX_NONE;
            break;
        case EX_RECV:
            c->receives++;
            c->paired_receives += x.peer != EX_NONE;
            break;
        case EX_ACQUIRE:
            c->acquires++;
            break;
        case EX_RELEASE:
            c->releases++;
            break;
        }
        if (ops->event(w, loc, &x, err, errlen) < 0)
            goto fail;
    }
    if (rc < 0 && s->warn) /* the events before the damage stand, as in the reduction */
        s->warn(s->warn_arg, ips2_reader_error(r));
    if (k != t->npeers) {
        ex_error(err, errlen,
                 "%s: %zu messages, but its thread has %zu in the PAG: parts folded without "
                 "their messages, or the traces changed",
                 t->path, k, t->npeers);
        goto fail;
    }
    ips2_reader_close(r);
    return ops->thread_end(w, loc, last_t, last_cpu, err, errlen);
fail:
    ips2_reader_close(r);
    return -1;
}

int ips2_export(const char *session, enum ips2_export_format format, const char *out,
                struct ips2_export_counts *counts, ips2_export_warn_fn *warn, void *warn_arg,
                char *err, size_t errlen)
{
    struct ex_session s;
    const struct ex_writer *ops = NULL;
    void *w = NULL;
    struct names nm = {NULL, EX_NONE, {NULL, 0, 0}};
    struct ex_map locks = {NULL, 0, 0};
    int rc = -1;

    memset(&s, 0, sizeof(s));
    memset(counts, 0, sizeof(*counts));
    s.dir = session;
    s.warn = warn;
    s.warn_arg = warn_arg;
    if (read_start(&s, err, errlen) < 0 || list_machines(&s, err, errlen) < 0 ||
        build(&s, format, err, errlen) < 0)
        goto out;
    w = format == IPS2_EXPORT_OTF2   ? ex_otf2_new(&ops)
        : format == IPS2_EXPORT_JSON ? ex_json_new(&ops)
                                     : ex_folded_new(&ops);
    if (!w) {
        ex_error(err, errlen, "out of memory");
        goto out;
    }
    if (ops->begin(w, &s, out, err, errlen) < 0)
        goto out;
    for (size_t i = 0; i < s.nthreads; i++)
        if (export_thread(&s, (uint32_t)i, &nm, &locks, ops, w, counts, err, errlen) < 0)
            goto out;
    if (ops->finish(w, counts, err, errlen) < 0)
        goto out;
    counts->locations = s.nthreads;
    rc = 0;
out:
    if (w)
        ops->free(w);
    ips2_symtab_free(nm.symtab);
    ex_map_free(&nm.cache);
    ex_map_free(&locks);
    session_free(&s);
    return rc;
}
