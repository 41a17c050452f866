/*
 * slave_analysis.c - reducing a machine's traces: the active trace
 * directory and each replayed one through ips2_reduce_dir() (library
 * slave/reduce*.c), then one merge (slave_merge.c) and one encode.
 *
 * A directory that cannot be reduced at all, or an old session's process
 * that the old manifest lists but whose trace is gone, is a problem named
 * in the reductions ("replay of DIR: ..."); the rest goes on.  Every
 * directory is reduced against the active session's time 0, so replayed
 * applications keep their recorded times (comparison-mode shifts are the
 * master's, ANALYSTS.md §4).  Phases are the master model's business: it
 * asks for one directory at a time (REDUCE, slave_main.c).
 *
 * The same pass builds each directory's part of the PAG (cpa/PAG.md),
 * written beside the session: SESSION/pag/MACHINE.pag for the active
 * directory, SESSION/pag/MACHINE.PREFIX.pag for a replayed one (without a
 * prefix: MACHINE.replayK.pag, K its number in the replays from 1; SESSION
 * is the active trace directory's grandparent, SESSION/traces/MACHINE).
 * A part that cannot be built or written is a problem; the reductions
 * stand.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ips2_pag.h"
#include "ips2_reader.h" /* IPS2_ERR_MAX */
#include "slave_analysis.h"
#include "slave_merge.h"

struct problems {
    char **v;
    size_t n, cap;
};

__attribute__((format(printf, 2, 3))) static void add_problem(struct problems *p, const char *fmt,
                                                              ...)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 8;
        char **v = realloc(p->v, cap * sizeof *v);
        if (v == NULL)
            return;
        p->v = v;
        p->cap = cap;
    }
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&p->v[p->n], fmt, ap) >= 0)
        p->n++;
    va_end(ap);
}

/* Whether reductions r hold a process pid of application app. */
static int has_process(const struct ips2_reductions *r, const char *app, int32_t pid)
{
    for (size_t i = 0; i < r->nprocesses; i++) {
        const struct ips2_red_process *p = &r->processes[i];
        if ((int32_t)p->pid == pid && p->app < r->nstrings && strcmp(r->strings[p->app], app) == 0)
            return 1;
    }
    return 0;
}

/* Writes a directory's PAG part to SESSION/pag/MACHINE[.PREFIX].pag. */
static void write_pag(const struct slave_analysis *a, const struct slave_replay *rp, size_t k,
                      const struct ips2_pag *pag, struct problems *probs)
{
    char dir[4096], path[4200], err[IPS2_ERR_MAX];
    const char *slash;
    size_t len;

    /* SESSION/traces/MACHINE -> SESSION */
    len = strlen(a->trace_dir);
    while (len > 1 && a->trace_dir[len - 1] == '/')
        len--;
    for (int up = 0; up < 2; up++) {
        while (len > 0 && a->trace_dir[len - 1] != '/')
            len--;
        while (len > 1 && a->trace_dir[len - 1] == '/')
            len--;
    }
    slash = len ? a->trace_dir : ".";
    snprintf(dir, sizeof(dir), "%.*s/pag", len ? (int)len : 1, slash);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        add_problem(probs, "%s: cannot make the PAG directory: %s", dir, strerror(errno));
        return;
    }
    if (rp && rp->prefix && rp->prefix[0])
        snprintf(path, sizeof(path), "%s/%s.%s.pag", dir, a->machine, rp->prefix);
    else if (rp)
        snprintf(path, sizeof(path), "%s/%s.replay%zu.pag", dir, a->machine, k);
    else
        snprintf(path, sizeof(path), "%s/%s.pag", dir, a->machine);
    if (ips2_pag_write(pag, path, err, sizeof(err)) < 0)
        add_problem(probs, "%s", err);
    else if (a->part != NULL)
        a->part(a->part_arg, path);
}

void *slave_analyse(const struct slave_analysis *a, size_t *size, char *err, size_t errsize)
{
    size_t n = 1 + a->nreplays;
    struct ips2_reductions **red = calloc(n, sizeof *red);
    struct slave_merge_src *src = calloc(n, sizeof *src);
    struct problems probs = {0};
    void *bytes = NULL;
    size_t nsrc = 0;
    if (red == NULL || src == NULL) {
        snprintf(err, errsize, "out of memory");
        goto out;
    }

    struct ips2_reduce_options o = {
        .machine = a->machine,
        .session_start_real = a->session_start,
        .phase_start_ns = INT64_MIN,
        .phase_end_ns = INT64_MAX,
        .interval_ns = (uint64_t)a->interval_ns,
        .clones = a->clones,
        .progress = a->progress,
        .progress_arg = a->progress_arg,
        .pag_lazy = true, /* the part is only written: its shares stay compressed */
    };
    char rerr[IPS2_ERR_MAX];
    for (size_t k = 0; k < n; k++) {
        const struct slave_replay *rp = k > 0 ? &a->replays[k - 1] : NULL;
        const char *dir = rp ? rp->trace_dir : a->trace_dir;
        rerr[0] = '\0';
        struct ips2_pag *pag = NULL;
        o.pag_out = &pag;
        red[k] = ips2_reduce_dir(dir, &o, rerr);
        if (pag)
            write_pag(a, rp, k, pag, &probs);
        ips2_pag_free(pag);
        if (red[k] == NULL) {
            if (rp != NULL)
                add_problem(&probs, "replay of %s: %s", rp->session,
                            rerr[0] ? rerr : "cannot reduce");
            else
                add_problem(&probs, "%s", rerr[0] ? rerr : "cannot reduce");
            continue;
        }
        if (rp != NULL) {
            for (size_t i = 0; i < rp->nexpected; i++)
                if (!has_process(red[k], rp->expected[i].app, rp->expected[i].pid))
                    add_problem(&probs, "replay of %s: %s process %d: no trace in %s", rp->session,
                                rp->expected[i].app, (int)rp->expected[i].pid, rp->trace_dir);
        }
        src[nsrc].r = red[k];
        src[nsrc].machine = rp == NULL;
        if (rp != NULL) {
            src[nsrc].apps = (const char *const *)rp->apps;
            src[nsrc].napps = rp->napps;
            src[nsrc].prefix = rp->prefix;
        }
        nsrc++;
    }

    struct ips2_reductions *m =
        slave_merge(src, nsrc, a->machine, a->host, (const char *const *)probs.v, probs.n);
    if (m == NULL) {
        snprintf(err, errsize, "out of memory merging reductions");
        goto out;
    }
    if (nsrc == 0)
        m->interval_ns = (uint64_t)a->interval_ns;
    bytes = ips2_reductions_encode(m, size);
    if (bytes == NULL)
        snprintf(err, errsize, "out of memory encoding reductions");
    slave_merge_free(m);
out:
    for (size_t k = 0; red != NULL && k < n; k++)
        ips2_reductions_free(red[k]);
    free(red);
    free(src);
    for (size_t i = 0; i < probs.n; i++)
        free(probs.v[i]);
    free(probs.v);
    return bytes;
}
