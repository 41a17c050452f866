/*
 * phases.c - named phases (time intervals on the active time base) and
 * the models restricted to them.
 *
 * A table restricted to a phase must be exact, so it is not cut out of the
 * whole run's histograms: the traces are reduced again for the interval
 * (slave/ips2_reductions.h, phase_start_ns/phase_end_ns).  The model asks
 * once per (machine, run, time shift) present in it, where a run is the
 * active session or one replayed session: the active session's traces are
 * SESSION/traces/MACHINE, a replayed session's SOURCE/traces/MACHINE, and
 * an application in comparison mode is asked for the interval moved back
 * by its shift (its reductions come back on its own time base; the view
 * shifts them forward again like any other model).  The reducer is the
 * one the PVM part installs (a slave reduces where the traces are), or,
 * without one, ips2_reduce_dir() in this process.  The restricted model
 * ("view") has the session facts of the whole one, is kept in the phase
 * and is dropped when the phase is redefined.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model.h"

static void phase_clear(struct ips2_phase *p)
{
    ips2_model_free(p->view);
    p->view = NULL;
}

int ips2_phase_define(struct ips2_model *m, const char *name, int64_t start_ns, int64_t end_ns,
                      char *err)
{
    struct ips2_phase *p = (struct ips2_phase *)ips2_phase_find(m, name);
    void *a;

    if (*name == 0) {
        ips2_set_error(err, "a phase needs a name");
        return -1;
    }
    if (end_ns <= start_ns) {
        ips2_set_error(err, "phase \"%s\": end %lld is not after start %lld", name,
                       (long long)end_ns, (long long)start_ns);
        return -1;
    }
    if (p == NULL) {
        a = realloc(m->phases, (m->nphases + 1) * sizeof(*m->phases));
        if (a == NULL) {
            ips2_set_error(err, "out of memory");
            return -1;
        }
        m->phases = a;
        p = &m->phases[m->nphases];
        memset(p, 0, sizeof(*p));
        if ((p->name = strdup(name)) == NULL) {
            ips2_set_error(err, "out of memory");
            return -1;
        }
        m->nphases++;
    }
    phase_clear(p);
    p->start_ns = start_ns;
    p->end_ns = end_ns;
    return 0;
}

const struct ips2_phase *ips2_phase_find(const struct ips2_model *m, const char *name)
{
    for (size_t i = 0; i < m->nphases; i++)
        if (strcmp(m->phases[i].name, name) == 0)
            return &m->phases[i];
    return NULL;
}

void ips2_trace_dir(const struct ips2_model *m, const char *source, const char *machine, char *out,
                    size_t size)
{
    char try[4096];

    if (source == NULL || *source == 0) {
        snprintf(out, size, "%s/traces/%s", m->dir ? m->dir : ".", machine);
        return;
    }
    /* a replayed session: as written (absolute, or from here), else beside
     * this session, else inside it */
    snprintf(out, size, "%s/traces/%s", source, machine);
    if (source[0] == '/' || access(out, F_OK) == 0 || m->dir == NULL)
        return;
    snprintf(try, sizeof(try), "%s/../%s/traces/%s", m->dir, source, machine);
    if (access(try, F_OK) == 0) {
        snprintf(out, size, "%s", try);
        return;
    }
    snprintf(try, sizeof(try), "%s/%s/traces/%s", m->dir, source, machine);
    if (access(try, F_OK) == 0)
        snprintf(out, size, "%s", try);
}

int ips2_reduce_here(void *arg, const char *machine, const char *trace_dir,
                     int64_t session_start_real, int64_t phase_start_ns, int64_t phase_end_ns,
                     uint64_t interval_ns, struct ips2_reductions **out, char *err)
{
    struct ips2_reduce_options o = {
        .machine = machine,
        .session_start_real = session_start_real,
        .phase_start_ns = phase_start_ns,
        .phase_end_ns = phase_end_ns,
        .interval_ns = interval_ns,
    };

    (void)arg;
    *out = ips2_reduce_dir(trace_dir, &o, err);
    return *out ? 0 : -1;
}

/* A copy of the session facts of m (not its data, phases or problems). */
static struct ips2_model *facts_copy(const struct ips2_model *m, char *err)
{
    struct ips2_model *v = ips2_model_new();

    if (v == NULL || ips2_model_set_session(v, m->dir, m->start_real_ns, err) != 0)
        goto fail;
    v->interval_ns = m->interval_ns;
    for (size_t i = 0; i < m->nmachines; i++)
        if (ips2_model_add_machine(v, m->machines[i].name, m->machines[i].host,
                                   m->machines[i].offset_ns, err) != 0)
            goto fail;
    for (size_t i = 0; i < m->napps; i++)
        if (ips2_model_add_app(v, m->apps[i].name, m->apps[i].mode, m->apps[i].source, err) ||
            ips2_model_set_shift(v, m->apps[i].name, NULL, m->apps[i].shift_ns, err))
            goto fail;
    for (size_t i = 0; i < m->npinfo; i++) {
        const struct ips2_proc_info *p = &m->pinfo[i];
        if (ips2_model_add_process(v, p->app, p->machine, p->index, p->pid, p->command, p->status,
                                   err) != 0)
            goto fail;
    }
    return v;
fail:
    if (v == NULL)
        ips2_set_error(err, "out of memory");
    ips2_model_free(v);
    return NULL;
}

struct request {
    const char *machine, *source;
    int64_t shift;
};

/* The (machine, run, shift) triples the whole model has data of. */
static struct request *requests(const struct ips2_model *m, size_t *n)
{
    struct request *q = NULL;
    size_t nq = 0, cap = 0;

    for (size_t s = 0; s < m->nslots; s++) {
        const struct ips2_reductions *r = m->slots[s].r;
        for (size_t p = 0; p < r->nprocesses; p++) {
            int app = m->slots[s].app_of[p];
            struct request x;
            size_t k;
            if (app < 0)
                continue;
            x.machine = r->strings[r->machine];
            x.source = m->apps[app].source;
            x.shift = ips2_model_shift_of(m, app);
            for (k = 0; k < nq; k++)
                if (strcmp(q[k].machine, x.machine) == 0 && strcmp(q[k].source, x.source) == 0 &&
                    q[k].shift == x.shift)
                    break;
            if (k < nq)
                continue;
            if (nq == cap) {
                void *a = realloc(q, (cap = cap ? 2 * cap : 8) * sizeof(*q));
                if (a == NULL) {
                    free(q);
                    return NULL;
                }
                q = a;
            }
            q[nq++] = x;
        }
    }
    *n = nq;
    return q ? q : calloc(1, sizeof(*q));
}

struct ips2_model *ips2_phase_view(struct ips2_model *m, const char *name, char *err)
{
    struct ips2_phase *ph = (struct ips2_phase *)ips2_phase_find(m, name);
    ips2_reduce_fn *reduce = m->reducer.reduce ? m->reducer.reduce : ips2_reduce_here;
    struct ips2_model *v;
    struct request *q;
    size_t nq = 0, ok = 0;
    char first[IPS2_ERR_MAX] = "";

    if (ph == NULL) {
        ips2_set_error(err, "no phase \"%s\"", name);
        return NULL;
    }
    if (ph->view)
        return ph->view;
    if ((v = facts_copy(m, err)) == NULL)
        return NULL;
    v->phase_view = true;
    v->phase_start_ns = ph->start_ns;
    v->phase_end_ns = ph->end_ns;
    if ((q = requests(m, &nq)) == NULL) {
        ips2_model_free(v);
        ips2_set_error(err, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < nq; i++) {
        char dir[4096], why[IPS2_ERR_MAX] = "";
        struct ips2_reductions *r = NULL;
        int64_t s = ph->start_ns, e = ph->end_ns;
        /* the interval on the run's own time base, without overflowing */
        if (q[i].shift > 0 ? s > INT64_MIN + q[i].shift : s < INT64_MAX + q[i].shift)
            s -= q[i].shift;
        if (q[i].shift > 0 ? e > INT64_MIN + q[i].shift : e < INT64_MAX + q[i].shift)
            e -= q[i].shift;
        ips2_trace_dir(m, q[i].source, q[i].machine, dir, sizeof(dir));
        if (reduce(m->reducer.arg, q[i].machine, dir, m->start_real_ns, s, e, m->interval_ns, &r,
                   why) != 0 ||
            ips2_model_add_run_reductions(v, r, q[i].source, q[i].shift, why) != 0) {
            ips2_model_problem(m, "phase %s: %s: %s", name, q[i].machine, why);
            ips2_model_problem(v, "phase %s: %s: %s", name, q[i].machine, why);
            if (first[0] == 0)
                snprintf(first, sizeof(first), "%s: %s", q[i].machine, why);
            continue;
        }
        ok++;
    }
    free(q);
    if (nq && ok == 0) {
        ips2_set_error(err, "phase %s: no machine could be reduced again (%s)", name, first);
        ips2_model_free(v);
        return NULL;
    }
    if (ips2_model_index(v, err) != 0) {
        ips2_model_free(v);
        return NULL;
    }
    ph->view = v;
    return v;
}
