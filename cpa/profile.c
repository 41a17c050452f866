/*
 * profile.c - critical-path profiles from a path's segments and the parts'
 * metadata (no nodes needed): contributions per machine, process, thread or
 * procedure under a tree node, dependence delays as entries of their own
 * ("messages m1->m2"), restricted to a phase by clipping each segment in
 * proportion to its wall overlap; and the critical-path imbalance per
 * procedure (Scalasca's: max(CP time - average CPU time per thread, 0)).
 * CPA.md §6 and §7 define them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ips2_strtab.h"

#include "cpa_internal.h"

/* ---- a table of entries by key ------------------------------------------ */

struct acc {
    struct ips2_strtab keys; /* entry i has key keys.v[i] */
    struct ips2_cpa_entry *e;
    size_t cap;
};

static void acc_free(struct acc *a)
{
    for (size_t i = 0; i < a->keys.n; i++) {
        free(a->e[i].name);
        free(a->e[i].program);
    }
    free(a->e);
    ips2_strtab_free(&a->keys);
    memset(a, 0, sizeof *a);
}

/* The entry of key (made with name and *proto if new). */
static struct ips2_cpa_entry *acc_get(struct acc *a, const char *key, const char *name,
                                      const struct ips2_cpa_entry *proto)
{
    uint32_t i = ips2_strtab_find(&a->keys, key);
    if (i != IPS2_STRTAB_NONE)
        return &a->e[i];
    if (a->keys.n == a->cap) {
        size_t c = a->cap ? a->cap * 2 : 32;
        struct ips2_cpa_entry *ne = realloc(a->e, c * sizeof *ne);
        if (!ne)
            return NULL;
        a->e = ne;
        a->cap = c;
    }
    char *nm = strdup(name);
    char *prog = proto->program ? strdup(proto->program) : NULL;
    if (!nm || (proto->program && !prog) ||
        (i = ips2_strtab_intern(&a->keys, key)) == IPS2_STRTAB_NONE) {
        free(nm);
        free(prog);
        return NULL;
    }
    a->e[i] = *proto;
    a->e[i].name = nm;
    a->e[i].program = prog;
    a->e[i].ns = 0;
    return &a->e[i];
}

/* The entry of a (part, thread, procedure) at the procedure level: its
 * key (program and procedure, or part, thread and procedure) is a function
 * of the three, so a path's millions of shares each find theirs without
 * printing and hashing a key.  Open addressing; value: entry index + 1, or
 * SKIP (the filter's procedure is another one). */
struct pcache {
    struct pslot {
        uint32_t part, thread, proc, value;
    } * v;
    size_t cap, n; /* cap: a power of 2 */
};
#define PC_SKIP UINT32_MAX

static struct pslot *pc_find(struct pcache *c, uint32_t part, uint32_t thread, uint32_t proc)
{
    if (c->n * 2 >= c->cap) { /* grow (and start): rehash */
        size_t cap = c->cap ? c->cap * 2 : 1024;
        struct pslot *v = calloc(cap, sizeof *v);
        if (!v)
            return NULL;
        for (size_t i = 0; i < c->cap; i++)
            if (c->v[i].value) {
                const struct pslot *o = &c->v[i];
                uint64_t h = ((uint64_t)o->part * 0x9e3779b97f4a7c15ull) ^
                             ((uint64_t)o->thread * 0xbf58476d1ce4e5b9ull) ^
                             ((uint64_t)o->proc * 0x94d049bb133111ebull);
                size_t j = (size_t)(h >> 17) & (cap - 1);
                while (v[j].value)
                    j = (j + 1) & (cap - 1);
                v[j] = *o;
            }
        free(c->v);
        c->v = v;
        c->cap = cap;
    }
    uint64_t h = ((uint64_t)part * 0x9e3779b97f4a7c15ull) ^
                 ((uint64_t)thread * 0xbf58476d1ce4e5b9ull) ^
                 ((uint64_t)proc * 0x94d049bb133111ebull);
    size_t j = (size_t)(h >> 17) & (c->cap - 1);
    while (c->v[j].value &&
           (c->v[j].part != part || c->v[j].thread != thread || c->v[j].proc != proc))
        j = (j + 1) & (c->cap - 1);
    if (!c->v[j].value) { /* the caller fills value in */
        c->v[j] = (struct pslot){part, thread, proc, 0};
    }
    return &c->v[j];
}

/* ---- names and filters -------------------------------------------------- */

struct ctx {
    struct ips2_cpa_meta *const *metas;
    size_t nmetas;
    const struct ips2_cpa_filter *f;
};

static const struct ips2_pag_process *proc_of(const struct ctx *c, uint32_t part, uint32_t t)
{
    const struct ips2_cpa_meta *m = c->metas[part];
    return &m->processes[m->threads[t].process];
}

/* The program of (part, thread): its executable's file name ("?" if the
 * part does not say). */
static const char *program_of(const struct ctx *c, uint32_t part, uint32_t t)
{
    const struct ips2_cpa_meta *m = c->metas[part];
    uint32_t s = proc_of(c, part, t)->name;
    if (s >= m->nstrings || !m->strings[s] || !m->strings[s][0])
        return "?";
    const char *slash = strrchr(m->strings[s], '/');
    return slash && slash[1] ? slash + 1 : m->strings[s];
}

static const char *app_of(const struct ctx *c, uint32_t part, uint32_t t)
{
    const struct ips2_cpa_meta *m = c->metas[part];
    return m->strings[m->apps[proc_of(c, part, t)->app]];
}

static int thread_in(const struct ctx *c, uint32_t part, uint32_t t)
{
    const struct ips2_cpa_filter *f = c->f;
    if (!f)
        return 1;
    const struct ips2_cpa_meta *m = c->metas[part];
    if (f->app && strcmp(app_of(c, part, t), f->app) != 0)
        return 0;
    if (f->machine && strcmp(m->machine, f->machine) != 0)
        return 0;
    if (f->has_pid && proc_of(c, part, t)->pid != f->pid)
        return 0;
    if (f->has_tid && m->threads[t].tid != f->tid)
        return 0;
    return 1;
}

/* Name and key of (part, thread) at a level (procedure level: process). */
static void unit_name(const struct ctx *c, enum ips2_cpa_level level, uint32_t part, uint32_t t,
                      char *name, size_t nlen, char *key, size_t klen)
{
    const struct ips2_cpa_meta *m = c->metas[part];
    const struct ips2_pag_process *pr = proc_of(c, part, t);
    switch (level) {
    case IPS2_CPA_LEVEL_MACHINE:
        snprintf(name, nlen, "%s", m->machine);
        snprintf(key, klen, "M%u", part);
        break;
    case IPS2_CPA_LEVEL_THREAD:
        snprintf(name, nlen, "%s:%d[%d]", app_of(c, part, t), (int)pr->pid, (int)m->threads[t].tid);
        snprintf(key, klen, "T%u.%u", part, t);
        break;
    default:
        snprintf(name, nlen, "%s:%d", app_of(c, part, t), (int)pr->pid);
        snprintf(key, klen, "P%u.%u", part, m->threads[t].process);
        break;
    }
}

/* A delay entry's first word: the segment kind's name, messages plural. */
static const char *arc_word(uint16_t type)
{
    if (type == IPS2_PAG_ARC_MESSAGE)
        return "messages";
    return type == IPS2_CPA_SEG_CPU ? "arcs" : ips2_cpa_seg_kind_name(type);
}

static int has_phase(int64_t t0, int64_t t1)
{
    return !(t0 == IPS2_CPA_RUN_START && t1 == IPS2_CPA_RUN_END);
}

/* A segment's contribution within [t0, t1) (len >= 0; 128-bit spans: a
 * segment from the wire may reach both ends of int64). */
/* Whether [b, e] meets the phase [t0, t1) as clip() counts it (a
 * zero-width one at b). */
static int in_phase(int64_t b, int64_t e, int64_t t0, int64_t t1)
{
    if (!has_phase(t0, t1))
        return 1;
    if (e <= b)
        return b >= t0 && b < t1;
    return (e < t1 ? e : t1) > (b > t0 ? b : t0);
}

static int64_t clip(int64_t len, int64_t b, int64_t e, int64_t t0, int64_t t1)
{
    if (!has_phase(t0, t1))
        return len;
    if (e <= b)
        return b >= t0 && b < t1 ? len : 0;
    int64_t lo = b > t0 ? b : t0, hi = e < t1 ? e : t1;
    if (hi <= lo)
        return 0;
    return (int64_t)((__int128)len * ((__int128)hi - lo) / ((__int128)e - b));
}

static int check_path(const struct ips2_cpa_path *path, struct ips2_cpa_meta *const *metas,
                      size_t nmetas, char *err, size_t errlen)
{
    for (size_t k = 0; k < nmetas; k++)
        if (!metas[k] || metas[k]->part != k)
            return cpa_err(err, errlen, "part %zu: no metadata for it", k);
    __int128 total = 0;
    for (size_t i = 0; i < path->nsegs; i++) {
        const struct ips2_cpa_segment *s = &path->segs[i];
        total += s->length;
        if (s->length < 0 || s->begin > s->end || total > INT64_MAX)
            return cpa_err(err, errlen,
                           "path segment %zu: length %lld from %lld to %lld (negative, ending "
                           "before it begins, or the lengths add up past int64)",
                           i, (long long)s->length, (long long)s->begin, (long long)s->end);
        if (s->src_part >= nmetas || s->dst_part >= nmetas ||
            s->src_thread >= metas[s->src_part]->nthreads ||
            s->dst_thread >= metas[s->dst_part]->nthreads ||
            (uint64_t)s->first_share + s->nshares > path->nshares)
            return cpa_err(err, errlen, "path segment %zu: a thread or share out of range", i);
        for (uint32_t j = 0; j < s->nshares; j++) {
            uint32_t p = path->shares[s->first_share + j].proc;
            if (p != IPS2_PAG_NONE && p >= metas[s->dst_part]->nstrings)
                return cpa_err(err, errlen, "path segment %zu: procedure out of range", i);
        }
    }
    return 0;
}

static int in_mode_apps(const struct ctx *c, const struct ips2_cpa_query *q, uint32_t part,
                        uint32_t t)
{
    return q->mode == IPS2_CPA_GLOBAL || !q->app || strcmp(app_of(c, part, t), q->app) == 0;
}

static int cmp_entry(const void *a, const void *b)
{
    const struct ips2_cpa_entry *x = a, *y = b;
    if (x->ns != y->ns)
        return x->ns > y->ns ? -1 : 1;
    return strcmp(x->name, y->name);
}

#define NAME_MAX_ 512

int ips2_cpa_profile(const struct ips2_cpa_path *path, struct ips2_cpa_meta *const *metas,
                     size_t nmetas, const struct ips2_cpa_query *q, enum ips2_cpa_level level,
                     const struct ips2_cpa_filter *f, int64_t t0, int64_t t1,
                     struct ips2_cpa_profile *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (check_path(path, metas, nmetas, err, errlen))
        return -1;
    struct ctx c = {metas, nmetas, f};
    struct acc a = {0};
    char name[2 * NAME_MAX_ + 32], key[320], n1[NAME_MAX_], n2[NAME_MAX_], k1[64], k2[64];
    int64_t *tmpw = NULL, *tmpo = NULL;
    size_t tmpcap = 0;
    struct pcache pc = {0};
    for (size_t i = 0; i < path->nsegs; i++) {
        const struct ips2_cpa_segment *s = &path->segs[i];
        int64_t len = clip(s->length, s->begin, s->end, t0, t1);
        out->length += len;
        if (len == 0 && (s->length != 0 || !in_phase(s->begin, s->end, t0, t1)))
            continue; /* outside the phase */
        struct ips2_cpa_entry proto = {0};
        if (s->kind == IPS2_CPA_SEG_CPU) {
            if (!thread_in(&c, s->dst_part, s->dst_thread))
                continue;
            proto.kind = IPS2_CPA_ENTRY_WORK;
            proto.part = proto.src_part = s->dst_part;
            proto.thread = proto.src_thread = s->dst_thread;
            if (level != IPS2_CPA_LEVEL_PROCEDURE) {
                unit_name(&c, level, s->dst_part, s->dst_thread, name, sizeof name, key,
                          sizeof key);
                struct ips2_cpa_entry *e = acc_get(&a, key, name, &proto);
                if (!e)
                    goto oom;
                e->ns += len;
                continue;
            }
            /* Procedure level: the shares, clipped like the segment (a
             * segment without shares, from a foreign encoder: no
             * procedure). */
            proto.program = (char *)program_of(&c, s->dst_part, s->dst_thread);
            if (s->nshares == 0) {
                struct ips2_cpa_entry *e = NULL;
                if (f && f->by_node)
                    snprintf(key, sizeof key, "F%u.%u.(no procedure)", s->dst_part, s->dst_thread);
                else
                    snprintf(key, sizeof key, "F%.150s\t(no procedure)", proto.program);
                if (!(f && f->procedure && strcmp("(no procedure)", f->procedure) != 0) &&
                    !(e = acc_get(&a, key, "(no procedure)", &proto)))
                    goto oom;
                if (e)
                    e->ns += len;
                continue;
            }
            /* The shares. */
            if (s->nshares > tmpcap) {
                free(tmpw);
                free(tmpo);
                tmpcap = s->nshares * 2;
                tmpw = malloc(tmpcap * sizeof *tmpw);
                tmpo = malloc(tmpcap * sizeof *tmpo);
                if (!tmpw || !tmpo)
                    goto oom;
            }
            __int128 sum = 0;
            int positive = 1;
            for (uint32_t j = 0; j < s->nshares; j++) {
                tmpw[j] = path->shares[s->first_share + j].cpu;
                sum += tmpw[j];
                positive &= tmpw[j] > 0;
            }
            if (positive && sum == len) /* what cpa_split gives then: each its own */
                memcpy(tmpo, tmpw, s->nshares * sizeof *tmpo);
            else
                cpa_split(len, tmpw, tmpo, s->nshares);
            const struct ips2_cpa_meta *m = metas[s->dst_part];
            for (uint32_t j = 0; j < s->nshares; j++) {
                uint32_t p = path->shares[s->first_share + j].proc;
                struct pslot *slot = pc_find(&pc, s->dst_part, s->dst_thread, p);
                if (!slot)
                    goto oom;
                if (slot->value == PC_SKIP)
                    continue;
                if (slot->value) {
                    a.e[slot->value - 1].ns += tmpo[j];
                    continue;
                }
                const char *pn = p == IPS2_PAG_NONE ? "(no procedure)" : m->strings[p];
                if (f && f->procedure && strcmp(pn, f->procedure) != 0) {
                    slot->value = PC_SKIP;
                    pc.n++;
                    continue;
                }
                if (f && f->by_node)
                    snprintf(key, sizeof key, "F%u.%u.%.130s", s->dst_part, s->dst_thread, pn);
                else /* by program and procedure, never by a bare name */
                    snprintf(key, sizeof key, "F%.150s\t%.150s", proto.program, pn);
                struct ips2_cpa_entry *e = acc_get(&a, key, pn, &proto);
                if (!e)
                    goto oom;
                slot->value = (uint32_t)(e - a.e) + 1;
                pc.n++;
                e->ns += tmpo[j];
            }
            continue;
        }
        if (!thread_in(&c, s->src_part, s->src_thread) &&
            !thread_in(&c, s->dst_part, s->dst_thread))
            continue;
        if (level == IPS2_CPA_LEVEL_PROCEDURE && f && f->procedure)
            continue;
        proto.kind = IPS2_CPA_ENTRY_DELAY;
        proto.arc_type = s->kind;
        proto.part = s->dst_part;
        proto.thread = s->dst_thread;
        proto.src_part = s->src_part;
        proto.src_thread = s->src_thread;
        unit_name(&c, level, s->src_part, s->src_thread, n1, sizeof n1, k1, sizeof k1);
        unit_name(&c, level, s->dst_part, s->dst_thread, n2, sizeof n2, k2, sizeof k2);
        snprintf(name, sizeof name, "%s %s->%s", arc_word(s->kind), n1, n2);
        snprintf(key, sizeof key, "D%u:%s>%s", s->kind, k1, k2);
        struct ips2_cpa_entry *e = acc_get(&a, key, name, &proto);
        if (!e)
            goto oom;
        e->ns += len;
    }
    free(tmpw);
    free(tmpo);
    free(pc.v);
    pc.v = NULL;
    tmpw = tmpo = NULL;
    /* Elapsed: the span of the mode's threads. */
    int any = 0;
    for (size_t k = 0; k < nmetas; k++)
        for (size_t t = 0; t < metas[k]->nthreads; t++) {
            if (!metas[k]->threads[t].count || !in_mode_apps(&c, q, (uint32_t)k, (uint32_t)t))
                continue;
            const struct ips2_cpa_span *sp = &metas[k]->spans[t];
            if (!any || sp->begin < out->begin)
                out->begin = sp->begin;
            if (!any || sp->end > out->end)
                out->end = sp->end;
            any = 1;
        }
    if (any && has_phase(t0, t1)) {
        if (out->begin < t0)
            out->begin = t0;
        if (out->end > t1)
            out->end = t1;
        if (out->end < out->begin)
            out->end = out->begin;
    }
    out->elapsed = (__int128)out->end - out->begin > INT64_MAX ? INT64_MAX : out->end - out->begin;
    out->ratio = out->elapsed > 0 ? (double)out->length / (double)out->elapsed : 0;
    /* Entries: drop work that took no time (a delay of 0 ns stays: the
     * path crossed there, its message reached a receiver that was not
     * waiting yet or was ended before its sender's call returned),
     * percentages, order. */
    size_t k = 0;
    for (size_t i = 0; i < a.keys.n; i++) {
        if (a.e[i].ns == 0 && a.e[i].kind == IPS2_CPA_ENTRY_WORK) {
            free(a.e[i].name);
            free(a.e[i].program);
            continue;
        }
        a.e[i].percent = out->length > 0 ? 100.0 * (double)a.e[i].ns / (double)out->length : 0;
        a.e[k++] = a.e[i];
    }
    ips2_strtab_free(&a.keys);
    if (k > 0)
        qsort(a.e, k, sizeof *a.e, cmp_entry);
    out->entries = a.e;
    out->n = k;
    return 0;
oom:
    free(pc.v);
    free(tmpw);
    free(tmpo);
    acc_free(&a);
    return cpa_err(err, errlen, "out of memory");
}

void ips2_cpa_profile_free(struct ips2_cpa_profile *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->entries[i].name);
        free(p->entries[i].program);
    }
    free(p->entries);
    memset(p, 0, sizeof *p);
}

/* ---- imbalance ---------------------------------------------------------- */

static int cmp_imb(const void *a, const void *b)
{
    const struct ips2_cpa_imbalance *x = a, *y = b;
    if (x->imbalance != y->imbalance)
        return x->imbalance > y->imbalance ? -1 : 1;
    int d = strcmp(x->proc, y->proc);
    return d ? d : strcmp(x->program, y->program);
}

void ips2_cpa_imbalance_free(struct ips2_cpa_imbalance *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].proc);
        free(v[i].program);
    }
    free(v);
}

/* Per program and procedure ("program\tname"): its CPU over the threads of
 * the scope that ran it (one meta cpu entry per thread and procedure), in
 * a table built once. */
struct avg_table {
    struct ips2_strtab names; /* procedure i is names.v[i] */
    struct avg_sum {
        double total;
        size_t nthreads;
    } * sum;
    size_t cap;
};

static void avg_free(struct avg_table *t)
{
    ips2_strtab_free(&t->names);
    free(t->sum);
}

static int avg_add(struct avg_table *t, const char *name, double share)
{
    if (t->names.n == t->cap) {
        size_t c = t->cap ? t->cap * 2 : 64;
        struct avg_sum *ns = realloc(t->sum, c * sizeof *ns);
        if (!ns)
            return -1;
        t->sum = ns;
        t->cap = c;
    }
    size_t n = t->names.n;
    uint32_t i = ips2_strtab_intern(&t->names, name);
    if (i == IPS2_STRTAB_NONE)
        return -1;
    if (i == n)
        t->sum[i] = (struct avg_sum){0, 0};
    t->sum[i].total += share;
    t->sum[i].nthreads += share > 0;
    return 0;
}

/* The table of every procedure's CPU in the threads in scope, clipped to
 * the phase in proportion to each thread's span. */
static int avg_build(struct avg_table *t, const struct ctx *c, const struct ips2_cpa_query *q,
                     int64_t t0, int64_t t1)
{
    for (size_t k = 0; k < c->nmetas; k++) {
        const struct ips2_cpa_meta *mt = c->metas[k];
        for (size_t j = 0; j < mt->ncpu; j++) {
            const struct ips2_cpa_proc_cpu *pc = &mt->cpu[j];
            if (!thread_in(c, (uint32_t)k, pc->thread) ||
                (q->mode == IPS2_CPA_INTRA && !in_mode_apps(c, q, (uint32_t)k, pc->thread)))
                continue;
            const char *pn = pc->proc == IPS2_PAG_NONE ? "(no procedure)" : mt->strings[pc->proc];
            double share = (double)pc->cpu;
            if (has_phase(t0, t1)) {
                const struct ips2_cpa_span *sp = &mt->spans[pc->thread];
                int64_t lo = sp->begin > t0 ? sp->begin : t0;
                int64_t hi = sp->end < t1 ? sp->end : t1;
                share = sp->end > sp->begin ? (hi > lo ? share * (double)((__int128)hi - lo) /
                                                             (double)((__int128)sp->end - sp->begin)
                                                       : 0)
                                            : (sp->begin >= t0 && sp->begin < t1 ? share : 0);
            }
            char key[320];
            snprintf(key, sizeof key, "%.150s\t%.150s", program_of(c, (uint32_t)k, pc->thread), pn);
            if (avg_add(t, key, share))
                return -1;
        }
    }
    return 0;
}

int ips2_cpa_imbalance(const struct ips2_cpa_path *path, struct ips2_cpa_meta *const *metas,
                       size_t nmetas, const struct ips2_cpa_query *q,
                       const struct ips2_cpa_filter *f, int64_t t0, int64_t t1,
                       struct ips2_cpa_imbalance **out, size_t *n, char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    struct ips2_cpa_profile prof;
    struct ips2_cpa_filter nf = f ? *f : (struct ips2_cpa_filter){0};
    nf.procedure = NULL;
    if (ips2_cpa_profile(path, metas, nmetas, q, IPS2_CPA_LEVEL_PROCEDURE, &nf, t0, t1, &prof, err,
                         errlen))
        return -1;
    struct ctx c = {metas, nmetas, &nf};
    struct ips2_cpa_imbalance *v = calloc(prof.n ? prof.n : 1, sizeof *v);
    if (!v) {
        ips2_cpa_profile_free(&prof);
        return cpa_err(err, errlen, "out of memory");
    }
    struct avg_table avg = {0};
    if (avg_build(&avg, &c, q, t0, t1)) {
        avg_free(&avg);
        free(v);
        ips2_cpa_profile_free(&prof);
        return cpa_err(err, errlen, "out of memory");
    }
    size_t m = 0;
    for (size_t i = 0; i < prof.n; i++) {
        const struct ips2_cpa_entry *e = &prof.entries[i];
        if (e->kind != IPS2_CPA_ENTRY_WORK)
            continue;
        char key[320];
        snprintf(key, sizeof key, "%.150s\t%.150s", e->program ? e->program : "?", e->name);
        uint32_t k = ips2_strtab_find(&avg.names, key);
        double total = k != IPS2_STRTAB_NONE ? avg.sum[k].total : 0;
        size_t nthreads = k != IPS2_STRTAB_NONE ? avg.sum[k].nthreads : 0;
        v[m].proc = strdup(e->name);
        v[m].program = strdup(e->program ? e->program : "?");
        if (!v[m].proc || !v[m].program) {
            m++; /* freed with the others */
            avg_free(&avg);
            ips2_cpa_imbalance_free(v, m);
            ips2_cpa_profile_free(&prof);
            return cpa_err(err, errlen, "out of memory");
        }
        v[m].cp = e->ns;
        v[m].avg = nthreads ? (int64_t)(total / (double)nthreads + 0.5) : 0;
        v[m].imbalance = v[m].cp > v[m].avg ? v[m].cp - v[m].avg : 0;
        v[m].percent = prof.length > 0 ? 100.0 * (double)v[m].imbalance / (double)prof.length : 0;
        m++;
    }
    avg_free(&avg);
    ips2_cpa_profile_free(&prof);
    qsort(v, m, sizeof *v, cmp_imb);
    *out = v;
    *n = m;
    return 0;
}
