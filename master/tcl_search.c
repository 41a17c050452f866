/*
 * tcl_search.c - the W3 search of a session object (issue 11 item 9), a
 * binding over search.h:
 *
 *   $s search ?-interval MS? ?-phase P? ?-app A? ?-threshold {NAME VALUE ...}?
 *             ?-hysteresis H? ?-min-samples N? ?-sufficient-samples N? ?-pvm HOW?
 *             ?-ignore {RESOURCE ...}?
 *
 * returns the dict {bottlenecks LIST shg LIST accounting DICT} of the
 * contract (master/README.md, "The W3 search").  Before the search, the
 * critical-path core (cpa_session.h, as `$s cp` asks it; -pvm as there)
 * gives each application's intra-application profiles at the procedure
 * and process levels (hints) and its inter-application profiles at the
 * process and procedure levels (limitedByApplication), and the message
 * waits (msg_waits.h) the message hypotheses' inputs; a session without
 * PAG parts is searched without them.  -phase P searches the phase's
 * model (the tables' -phase), restricted to its interval.  Through
 * `$s async {search ...} CALLBACK` it runs as any other query (its phase,
 * if not reduced yet, on the query thread).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "msg_waits.h"
#include "search.h"
#include "tcl_cpa.h"
#include "tcl_util.h"

static int Usage(Tcl_Interp *interp, const char *message, const char *a)
{
    Tcl_SetObjResult(interp, Tcl_ObjPrintf(message, a));
    Tcl_SetErrorCode(interp, "IPS2", "SEARCH", "USAGE", NULL);
    return TCL_ERROR;
}

/* The critical-path profiles asked for the search, kept until it ends. */
typedef struct Profiles {
    struct cpa_answer **answers;
    struct ips2_search_cp *cp;
    struct ips2_search_cp_row **rows;
    size_t n;
} Profiles;

static void ProfilesFree(Profiles *p)
{
    for (size_t i = 0; i < p->n; i++) {
        cpa_answer_free(p->answers[i]);
        free(p->rows[i]);
    }
    free(p->answers);
    free(p->cp);
    free(p->rows);
    memset(p, 0, sizeof(*p));
}

/* One profile: $s cp -mode MODE -app A -level LEVEL ?-by node? ?-phase P? ?-pvm HOW?;
 * nothing when the session has no critical path. */
static void AskProfile(Ips2Session *s, Tcl_Interp *interp, Profiles *p, const char *app, bool inter,
                       bool procedure, const char *phase, Tcl_Obj *pvm)
{
    Tcl_Obj *w[12];
    int n = 0;
    struct cpa_request *r = NULL;
    struct cpa_answer *a = NULL;
    struct cpa_error e;

    w[n++] = Ips2Str("search");
    w[n++] = Ips2Str("cp");
    w[n++] = Ips2Str("-mode");
    w[n++] = Ips2Str(inter ? "inter" : "intra");
    w[n++] = Ips2Str("-app");
    w[n++] = Ips2Str(app);
    w[n++] = Ips2Str("-level");
    w[n++] = Ips2Str(procedure ? "procedure" : "process");
    if (procedure && inter) {
        w[n++] = Ips2Str("-by");
        w[n++] = Ips2Str("node");
    }
    if (phase != NULL) {
        w[n++] = Ips2Str("-phase");
        w[n++] = Ips2Str(phase);
    }
    Tcl_Obj *words = Tcl_NewListObj(n, w);
    if (pvm != NULL) {
        Tcl_ListObjAppendElement(NULL, words, Ips2Str("-pvm"));
        Tcl_ListObjAppendElement(NULL, words, pvm);
    }
    Tcl_IncrRefCount(words);
    Tcl_Size nw;
    Tcl_Obj **wv;
    Tcl_ListObjGetElements(NULL, words, &nw, &wv);
    Ips2Cpa *c = Ips2CpaState(s);
    int ok = c != NULL && Ips2CpaRequest(s, interp, (int)nw, wv, &r) == TCL_OK &&
             cpa_session_answer(c->core, r, &a, &e) == 0;
    cpa_request_free(r);
    Tcl_DecrRefCount(words);
    Tcl_ResetResult(interp);
    if (!ok)
        return;
    void *x = realloc(p->answers, (p->n + 1) * sizeof(*p->answers));
    if (x != NULL)
        p->answers = x;
    void *y = realloc(p->cp, (p->n + 1) * sizeof(*p->cp));
    if (y != NULL)
        p->cp = y;
    void *z = realloc(p->rows, (p->n + 1) * sizeof(*p->rows));
    if (z != NULL)
        p->rows = z;
    struct ips2_search_cp_row *rows = calloc(a->nprofile ? a->nprofile : 1, sizeof(*rows));
    if (x == NULL || y == NULL || z == NULL || rows == NULL) {
        free(rows);
        cpa_answer_free(a);
        return;
    }
    for (size_t i = 0; i < a->nprofile; i++)
        rows[i] = (struct ips2_search_cp_row){a->profile[i].name, a->profile[i].path,
                                              a->profile[i].ns, a->profile[i].percent};
    p->answers[p->n] = a;
    p->rows[p->n] = rows;
    p->cp[p->n] = (struct ips2_search_cp){
        a->app ? a->app : app, inter, procedure, a->length, rows, a->nprofile};
    p->n++;
}

/* ---------------------------------------------------------------- results --- */

static Tcl_Obj *Interval(int64_t start, int64_t end)
{
    Tcl_Obj *e[2] = {Tcl_NewDoubleObj((double)start / 1e9), Tcl_NewDoubleObj((double)end / 1e9)};
    return Tcl_NewListObj(2, e);
}

static Tcl_Obj *Focus(const struct ips2_focus *f)
{
    Tcl_Obj *d = Tcl_NewDictObj();
    for (int h = 0; h < IPS2_H_COUNT; h++)
        if (f->at[h] != NULL)
            Ips2Put(d, ips2_hierarchy_names[h], Ips2Str(f->at[h]));
    return d;
}

static Tcl_Obj *Number(double v)
{
    return Tcl_NewDoubleObj(isfinite(v) ? v : 0);
}

static Tcl_Obj *ResultObj(const struct ips2_search_result *r)
{
    Tcl_Obj *result = Tcl_NewDictObj(), *list = Tcl_NewListObj(0, NULL);

    for (size_t i = 0; i < r->nbottlenecks; i++) {
        const struct ips2_bottleneck *b = &r->bottlenecks[i];
        Tcl_Obj *d = Tcl_NewDictObj(), *path = Tcl_NewListObj(0, NULL);
        for (size_t k = 0; k < b->npath; k++)
            Tcl_ListObjAppendElement(NULL, path, Ips2Str(b->path[k]));
        Ips2Put(d, "hypothesis", Ips2Str(b->hypothesis));
        Ips2Put(d, "path", path);
        Ips2Put(d, "focus", Focus(&b->focus));
        Ips2Put(d, "interval", Interval(b->start_ns, b->end_ns));
        Ips2Put(d, "value", Number(b->value));
        Ips2Put(d, "threshold", Number(b->threshold));
        Ips2Put(d, "explanation", Ips2Str(b->explanation));
        Ips2Put(d, "evidence", b->evidence ? Ips2TableObj(b->evidence) : Tcl_NewDictObj());
        Tcl_ListObjAppendElement(NULL, list, d);
    }
    Ips2Put(result, "bottlenecks", list);
    list = Tcl_NewListObj(0, NULL);
    for (size_t i = 0; i < r->nshg; i++) {
        const struct ips2_shg_node *n = &r->shg[i];
        Tcl_Obj *d = Tcl_NewDictObj();
        Ips2Put(d, "id", Tcl_NewIntObj(n->id));
        Ips2Put(d, "parent", Tcl_NewIntObj(n->parent));
        Ips2Put(d, "hypothesis", Ips2Str(n->hypothesis));
        Ips2Put(d, "focus", Focus(&n->focus));
        Ips2Put(d, "interval", Interval(n->start_ns, n->end_ns));
        Ips2Put(d, "state", Ips2Str(ips2_shg_state_names[n->state]));
        Ips2Put(d, "value", Number(n->value));
        Ips2Put(d, "threshold", Number(n->threshold));
        Ips2Put(d, "why", Ips2Str(n->why));
        Tcl_ListObjAppendElement(NULL, list, d);
    }
    Ips2Put(result, "shg", list);
    const struct ips2_search_accounting *a = &r->accounting;
    Tcl_Obj *acc = Tcl_NewDictObj();
    Ips2Put(acc, "total_counters", Tcl_NewWideIntObj((Tcl_WideInt)a->total_counters));
    Ips2Put(acc, "counters_used", Tcl_NewWideIntObj((Tcl_WideInt)a->counters_used));
    Ips2Put(acc, "total_samples", Tcl_NewWideIntObj((Tcl_WideInt)a->total_samples));
    Ips2Put(acc, "samples_used", Tcl_NewWideIntObj((Tcl_WideInt)a->samples_used));
    Ips2Put(acc, "bytes_per_sample", Tcl_NewWideIntObj((Tcl_WideInt)a->bytes_per_sample));
    Ips2Put(acc, "di_bytes", Tcl_NewWideIntObj((Tcl_WideInt)a->di_bytes));
    Ips2Put(acc, "trace_bytes", Tcl_NewWideIntObj((Tcl_WideInt)a->trace_bytes));
    Ips2Put(acc, "ratio", Number(a->ratio));
    Ips2Put(result, "accounting", acc);
    return result;
}

/* ------------------------------------------------------------ the command --- */

static const char *const options[] = {
    "-interval",           "-phase", "-app",    "-threshold", "-hysteresis", "-min-samples",
    "-sufficient-samples", "-pvm",   "-ignore", NULL};
enum {
    OPT_INTERVAL,
    OPT_PHASE,
    OPT_APP,
    OPT_THRESHOLD,
    OPT_HYST,
    OPT_MIN,
    OPT_SUFF,
    OPT_PVM,
    OPT_IGNORE
};

int Ips2SearchCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    struct ips2_search_options o;
    struct ips2_search_threshold *th = NULL;
    const char **ignore = NULL;
    const char *phase = NULL;
    Tcl_Obj *pvm = NULL;
    struct ips2_model *m = s->m;
    char err[IPS2_ERR_MAX];
    int rc = TCL_ERROR;
    Profiles prof = {0};
    struct msg_waits *msgs = NULL;
    struct ips2_search_result *res = NULL;

    ips2_search_options_init(&o);
    if ((objc - 2) % 2 != 0) {
        Tcl_WrongNumArgs(interp, 2, objv, "?-option value ...?");
        return TCL_ERROR;
    }
    for (int i = 2; i < objc; i += 2) {
        int opt;
        double d;
        if (Tcl_GetIndexFromObj(interp, objv[i], options, "option", 0, &opt) != TCL_OK) {
            Tcl_SetErrorCode(interp, "IPS2", "SEARCH", "USAGE", NULL);
            goto done;
        }
        Tcl_Obj *v = objv[i + 1];
        switch (opt) {
        case OPT_INTERVAL:
            if (Tcl_GetDoubleFromObj(interp, v, &d) != TCL_OK || !(d > 0) || d > 1e9) {
                Usage(interp, "-interval: expected a positive number of ms, got \"%s\"",
                      Tcl_GetString(v));
                goto done;
            }
            o.interval_ns = (uint64_t)(d * 1e6 + 0.5);
            o.interval_given = true;
            break;
        case OPT_PHASE:
            phase = Tcl_GetString(v)[0] ? Tcl_GetString(v) : NULL;
            break;
        case OPT_APP:
            o.app = Tcl_GetString(v)[0] ? Tcl_GetString(v) : NULL;
            break;
        case OPT_THRESHOLD: {
            Tcl_Size n;
            Tcl_Obj **w;
            if (Tcl_ListObjGetElements(interp, v, &n, &w) != TCL_OK || n % 2 != 0) {
                Usage(interp, "-threshold: expected a list {NAME VALUE ...}, got \"%s\"",
                      Tcl_GetString(v));
                goto done;
            }
            free(th);
            if ((th = calloc((size_t)n / 2 + 1, sizeof(*th))) == NULL)
                goto nomem;
            for (Tcl_Size k = 0; k < n; k += 2) {
                if (Tcl_GetDoubleFromObj(interp, w[k + 1], &th[k / 2].value) != TCL_OK) {
                    Usage(interp, "-threshold: expected a number, got \"%s\"",
                          Tcl_GetString(w[k + 1]));
                    goto done;
                }
                th[k / 2].name = Tcl_GetString(w[k]);
            }
            o.thresholds = th;
            o.nthresholds = (size_t)n / 2;
            break;
        }
        case OPT_HYST:
            if (Tcl_GetDoubleFromObj(interp, v, &o.hysteresis) != TCL_OK || o.hysteresis < 0 ||
                o.hysteresis > 1) {
                Usage(interp, "-hysteresis: expected a number in [0, 1], got \"%s\"",
                      Tcl_GetString(v));
                goto done;
            }
            break;
        case OPT_MIN:
        case OPT_SUFF: {
            int n;
            if (Tcl_GetIntFromObj(interp, v, &n) != TCL_OK || n < 1) {
                Usage(interp, "%s: expected a number of samples >= 1", options[opt]);
                goto done;
            }
            if (opt == OPT_MIN)
                o.min_samples = n;
            else
                o.sufficient_samples = n;
            break;
        }
        case OPT_PVM:
            pvm = v;
            break;
        case OPT_IGNORE: {
            Tcl_Size n;
            Tcl_Obj **w;
            if (Tcl_ListObjGetElements(interp, v, &n, &w) != TCL_OK) {
                Tcl_SetErrorCode(interp, "IPS2", "SEARCH", "USAGE", NULL);
                goto done;
            }
            free(ignore);
            if ((ignore = calloc((size_t)n + 1, sizeof(*ignore))) == NULL)
                goto nomem;
            for (Tcl_Size k = 0; k < n; k++)
                ignore[k] = Tcl_GetString(w[k]);
            o.ignore = ignore;
            o.nignore = (size_t)n;
            break;
        }
        }
    }
    if (o.min_samples > 0 && o.sufficient_samples > 0 && o.sufficient_samples < o.min_samples) {
        Usage(interp, "%s", "-sufficient-samples is less than -min-samples");
        goto done;
    }
    if (phase != NULL) {
        const struct ips2_phase *ph = ips2_phase_find(m, phase);
        if (ph == NULL) {
            Tcl_SetObjResult(interp, Tcl_ObjPrintf("no phase \"%s\"", phase));
            Tcl_SetErrorCode(interp, "IPS2", "PHASE", phase, NULL);
            goto done;
        }
        o.from_ns = ph->start_ns;
        o.to_ns = ph->end_ns;
        if ((m = ips2_phase_view(s->m, phase, err)) == NULL) {
            Tcl_SetObjResult(interp, Tcl_NewStringObj(err, -1));
            Tcl_SetErrorCode(interp, "IPS2", "PHASE", phase, NULL);
            goto done;
        }
    }
    if (o.app != NULL && ips2_model_app_index(s->m, o.app) < 0) {
        Tcl_SetObjResult(interp, Tcl_ObjPrintf("no application \"%s\"", o.app));
        Tcl_SetErrorCode(interp, "IPS2", "LOOKUP", "APP", o.app, NULL);
        goto done;
    }
    /* the critical path's hints and profiles, the message waits */
    for (size_t a = 0; a < s->m->napps; a++) {
        const char *app = s->m->apps[a].name;
        if (o.app != NULL && strcmp(app, o.app) != 0)
            continue;
        AskProfile(s, interp, &prof, app, false, true, phase, pvm);
        AskProfile(s, interp, &prof, app, false, false, phase, pvm);
        if (s->m->napps > 1) {
            AskProfile(s, interp, &prof, app, true, false, phase, pvm);
            AskProfile(s, interp, &prof, app, true, true, phase, pvm);
        }
    }
    o.cp = prof.cp;
    o.ncp = prof.n;
    Ips2Cpa *c = Ips2CpaState(s);
    if (c != NULL) {
        struct msg_waits_request mr;
        struct cpa_error e;
        msg_waits_request_init(&mr);
        mr.app = o.app;
        mr.from = o.from_ns;
        mr.to = o.to_ns;
        mr.hist_start = 0;
        mr.hist_width = (int64_t)(s->m->interval_ns ? s->m->interval_ns : 100000000);
        int64_t end = s->m->physical && s->m->physical->end_ns > 0 ? s->m->physical->end_ns : 0;
        mr.nbuckets = (size_t)(end / mr.hist_width + 1);
        if (mr.nbuckets > 1000000)
            mr.nbuckets = 0;
        if (msg_waits_compute(c->core, &mr, &msgs, &e) != 0)
            msgs = NULL;
    }
    o.msgs = msgs;
    if (ips2_search_run(m, &o, &res, err) != 0) {
        Tcl_SetObjResult(interp, Tcl_NewStringObj(err, -1));
        Tcl_SetErrorCode(interp, "IPS2", "SEARCH", "FAILED", NULL);
        goto done;
    }
    Tcl_SetObjResult(interp, ResultObj(res));
    rc = TCL_OK;
    goto done;
nomem:
    Tcl_SetObjResult(interp, Tcl_NewStringObj("out of memory", -1));
done:
    ips2_search_result_free(res);
    msg_waits_free(msgs);
    ProfilesFree(&prof);
    free(th);
    free(ignore);
    return rc;
}
