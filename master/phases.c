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
        /* arg: the times of a phase job (the session's, or IPS2_TIMES), or NULL */
        .times = arg ? *(const unsigned *)arg : IPS2_TIMES_DEFAULT,
        .machine = machine,
        .session_start_real = session_start_real,
        .phase_start_ns = phase_start_ns,
        .phase_end_ns = phase_end_ns,
        .interval_ns = interval_ns,
        /* as the slaves name them (slave_main.c): clones on request */
        .clones = getenv("IPS2_CLONES") != NULL &&
                  (!strcmp(getenv("IPS2_CLONES"), "1") || !strcmp(getenv("IPS2_CLONES"), "yes") ||
                   !strcmp(getenv("IPS2_CLONES"), "on")),
    };

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

/* One machine of one run to reduce again: its traces and the run's time
 * shift (copies: a job runs off the model's thread). */
struct request {
    char *machine, *source, *dir;
    int64_t shift;
};

struct ips2_phase_job {
    char *name;
    int64_t start_ns, end_ns;
    ips2_reduce_fn *reduce;
    void *reduce_arg;
    unsigned times; /* in this process: IPS2_TIMES if set, else the session's reductions' */
    int64_t start_real_ns;
    uint64_t interval_ns;
    struct request *q;
    size_t nq, ok;
    struct ips2_model *view; /* being built */
    char **problems;         /* "MACHINE: why" of the machines not reduced */
    size_t nproblems;
    char err[IPS2_ERR_MAX]; /* the job failed: why */
};

void ips2_phase_job_free(struct ips2_phase_job *j)
{
    if (j == NULL)
        return;
    for (size_t i = 0; i < j->nq; i++) {
        free(j->q[i].machine);
        free(j->q[i].source);
        free(j->q[i].dir);
    }
    for (size_t i = 0; i < j->nproblems; i++)
        free(j->problems[i]);
    free(j->problems);
    free(j->q);
    free(j->name);
    ips2_model_free(j->view);
    free(j);
}

/* The (machine, run, shift) triples the whole model has data of, as
 * trace directories. */
static int requests(const struct ips2_model *m, struct ips2_phase_job *j)
{
    size_t cap = 0;

    for (size_t s = 0; s < m->nslots; s++) {
        const struct ips2_reductions *r = m->slots[s].r;
        for (size_t p = 0; p < r->nprocesses; p++) {
            int app = m->slots[s].app_of[p];
            const char *machine, *source;
            char dir[4096];
            int64_t shift;
            size_t k;
            if (app < 0)
                continue;
            machine = r->strings[r->machine];
            source = m->apps[app].source;
            shift = ips2_model_shift_of(m, app);
            ips2_trace_dir(m, source, machine, dir, sizeof(dir));
            for (k = 0; k < j->nq; k++)
                if (strcmp(j->q[k].machine, machine) == 0 && strcmp(j->q[k].source, source) == 0 &&
                    j->q[k].shift == shift)
                    break;
            if (k < j->nq)
                continue;
            if (j->nq == cap) {
                void *a = realloc(j->q, (cap = cap ? 2 * cap : 8) * sizeof(*j->q));
                if (a == NULL)
                    return -1;
                j->q = a;
            }
            j->q[j->nq].machine = strdup(machine);
            j->q[j->nq].source = strdup(source);
            j->q[j->nq].dir = strdup(dir);
            j->q[j->nq].shift = shift;
            j->nq++;
            if (j->q[j->nq - 1].machine == NULL || j->q[j->nq - 1].source == NULL ||
                j->q[j->nq - 1].dir == NULL)
                return -1;
        }
    }
    return 0;
}

bool ips2_phase_pending(const struct ips2_model *m, const char *name)
{
    const struct ips2_phase *ph = ips2_phase_find(m, name);
    return ph != NULL && ph->view == NULL;
}

struct ips2_phase_job *ips2_phase_job_new(const struct ips2_model *m, const char *name, char *err)
{
    const struct ips2_phase *ph = ips2_phase_find(m, name);
    struct ips2_phase_job *j;

    if (ph == NULL) {
        ips2_set_error(err, "no phase \"%s\"", name);
        return NULL;
    }
    if ((j = calloc(1, sizeof(*j))) == NULL || (j->name = strdup(name)) == NULL) {
        free(j);
        ips2_set_error(err, "out of memory");
        return NULL;
    }
    j->start_ns = ph->start_ns;
    j->end_ns = ph->end_ns;
    j->reduce = m->reducer.reduce ? m->reducer.reduce : ips2_reduce_here;
    j->reduce_arg = m->reducer.reduce ? m->reducer.arg : &j->times;
    /* a phase holds the times of the whole (REDUCTION.md "Compensated
     * times"), unless IPS2_TIMES asks for others (ips2 report -times) */
    int asked = ips2_times_by_name(getenv("IPS2_TIMES"));
    j->times = IPS2_TIMES_RAW;
    for (size_t i = 0; i < m->nslots; i++)
        if (m->slots[i].r->times == IPS2_TIMES_COMPENSATED)
            j->times = IPS2_TIMES_COMPENSATED;
    if (asked > 0)
        j->times = (unsigned)asked;
    j->start_real_ns = m->start_real_ns;
    j->interval_ns = m->interval_ns;
    if ((j->view = facts_copy(m, err)) == NULL) {
        ips2_phase_job_free(j);
        return NULL;
    }
    j->view->phase_view = true;
    j->view->phase_start_ns = ph->start_ns;
    j->view->phase_end_ns = ph->end_ns;
    if (requests(m, j) != 0) {
        ips2_phase_job_free(j);
        ips2_set_error(err, "out of memory");
        return NULL;
    }
    return j;
}

bool ips2_phase_job_in_process(const struct ips2_phase_job *j)
{
    return j->reduce == ips2_reduce_here;
}

void ips2_phase_job_run(struct ips2_phase_job *j)
{
    struct ips2_model *v = j->view;
    char first[IPS2_ERR_MAX] = "";

    for (size_t i = 0; i < j->nq; i++) {
        char why[IPS2_ERR_MAX] = "";
        struct ips2_reductions *r = NULL;
        int64_t s = j->start_ns, e = j->end_ns, shift = j->q[i].shift;
        char **a;
        /* the interval on the run's own time base, without overflowing */
        if (shift > 0 ? s > INT64_MIN + shift : s < INT64_MAX + shift)
            s -= shift;
        if (shift > 0 ? e > INT64_MIN + shift : e < INT64_MAX + shift)
            e -= shift;
        if (j->reduce(j->reduce_arg, j->q[i].machine, j->q[i].dir, j->start_real_ns, s, e,
                      j->interval_ns, &r, why) == 0 &&
            ips2_model_add_run_reductions(v, r, j->q[i].source, shift, why) == 0) {
            j->ok++;
            continue;
        }
        ips2_model_problem(v, "phase %s: %s: %s", j->name, j->q[i].machine, why);
        if (first[0] == 0)
            snprintf(first, sizeof(first), "%s: %s", j->q[i].machine, why);
        a = realloc(j->problems, (j->nproblems + 1) * sizeof(*a));
        if (a != NULL) {
            j->problems = a;
            if (asprintf(&a[j->nproblems], "%s: %s", j->q[i].machine, why) >= 0)
                j->nproblems++;
        }
    }
    if (j->nq && j->ok == 0) {
        ips2_set_error(j->err, "phase %s: no machine could be reduced again (%s)", j->name, first);
        return;
    }
    if (ips2_model_index(v, j->err) != 0 && j->err[0] == 0)
        ips2_set_error(j->err, "phase %s: the view could not be indexed", j->name);
}

int ips2_phase_job_finish(struct ips2_model *m, struct ips2_phase_job *j, char *err)
{
    struct ips2_phase *ph = (struct ips2_phase *)ips2_phase_find(m, j->name);
    int rc = 0;

    for (size_t i = 0; i < j->nproblems; i++)
        ips2_model_problem(m, "phase %s: %s", j->name, j->problems[i]);
    if (j->err[0] != 0) {
        ips2_set_error(err, "%s", j->err);
        rc = -1;
    } else if (ph != NULL && ph->view == NULL && ph->start_ns == j->start_ns &&
               ph->end_ns == j->end_ns) {
        ph->view = j->view;
        j->view = NULL;
    }
    /* else the phase was redefined meanwhile: this view is not its */
    ips2_phase_job_free(j);
    return rc;
}

struct ips2_model *ips2_phase_view(struct ips2_model *m, const char *name, char *err)
{
    const struct ips2_phase *ph = ips2_phase_find(m, name);
    struct ips2_phase_job *j;

    if (ph != NULL && ph->view)
        return ph->view;
    if ((j = ips2_phase_job_new(m, name, err)) == NULL)
        return NULL;
    ips2_phase_job_run(j);
    if (ips2_phase_job_finish(m, j, err) != 0)
        return NULL;
    return ph->view;
}
