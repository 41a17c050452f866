/*
 * tcl_cpa.c - the critical-path subcommands of a session object and
 * ips2::cpa (ANALYSTS.md §6), a binding over cpa_session.h:
 *
 *   $s cp ?NODE? ?-mode intra|inter|global? ?-app A? ?-level L? ?-by node|name? ?-phase P?
 *         ?-pvm HOW?
 *   $s cp-zero ?-mode M? ?-app A? (-procedure F ?-inclusive? | -process PATH) ?-pvm HOW?
 *   $s cp-path ?-mode M? ?-app A? ?-phase P? ?-pvm HOW? ?-write CHAN ?-format F? ?-head CMD??
 *   $s cp-imbalance ?NODE? ?-mode M? ?-app A? ?-phase P? ?-pvm HOW?
 *   $s timeline ?NODE? -from T0 -to T1 ?-limit N?
 *   ips2::cpa FILES ?-mode M? ?-app A? ?-pvm none|private? ?-zero-procedure F? ?-done CMD?
 *
 * Where a query runs (-pvm): auto (the default) runs it on PVM slaves when
 * the session is a live one (ips2::run's, still connected to its VM), else
 * in this process; private runs it on PVM slaves (in the VM this process
 * is connected to, or in a private one started for the session); none
 * runs it here.  Subcommands, options and their values are looked up in
 * tables (Tcl_GetIndexFromObjStruct: unique prefixes work, anything else
 * is an error listing what is valid); the names of modes and levels are
 * cpa/path.c's.  The work is cpa_session.c's: this file parses a request,
 * has the core answer it and makes a Tcl result of the answer (also for
 * the asynchronous queries of tcl_async.c).
 *
 * cp-path -write CHAN streams a long path: the answer's dict without its
 * rows (segments: their count) is passed to CMD (-head: its result is
 * written first, a title), then the rows are written to CHAN as text or
 * csv (-format) by tcl_path_text.c, and the dict is the result.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpa.h"
#include "slave_path.h"
#include "tcl_clocks.h"
#include "tcl_cpa.h"
#include "tcl_run.h" /* Ips2RunSlaves */
#include "tcl_util.h"

#define ERR_LEN 1024

static Tcl_Obj *Wide(int64_t v)
{
    return Tcl_NewWideIntObj((Tcl_WideInt)v);
}

static int Error(Tcl_Interp *interp, const char *code, const char *fmt, const char *a)
{
    Tcl_SetObjResult(interp, Tcl_ObjPrintf(fmt, a));
    Tcl_SetErrorCode(interp, "IPS2", "CP", code, NULL);
    return TCL_ERROR;
}

int Ips2CpaError(Tcl_Interp *interp, const struct cpa_error *e)
{
    return Error(interp, e->code, "%s", e->message);
}

void Ips2CpaFree(Ips2Session *s)
{
    Ips2Cpa *c = s->cpa;
    if (c == NULL)
        return;
    Ips2AsyncClose(c);
    free(c);
    s->cpa = NULL;
}

Ips2Cpa *Ips2CpaState(Ips2Session *s)
{
    Ips2Cpa *c = s->cpa;
    if (c == NULL && (c = s->cpa = calloc(1, sizeof *c)) == NULL)
        return NULL;
    if (c->core == NULL) {
        char slave[PATH_MAX];
        ips2_slave_path(slave, sizeof slave);
        c->core = cpa_session_new(s->m, slave);
    }
    if (c->core != NULL) { /* the live run's slaves answer its session (tcl_run.c) */
        int own = 0;
        struct ips2_slaves *slaves = Ips2RunSlaves(s->interp, s->m, &own);
        cpa_session_set_slaves(c->core, slaves, own != 0);
    }
    return c->core != NULL ? c : NULL;
}

/* --- requests --------------------------------------------------------------- */

static const char *const tables[] = {"cp", "cp-zero", "cp-path", "cp-imbalance", "timeline", NULL};

bool Ips2CpaIsTable(Tcl_Obj *word)
{
    int index;
    return Tcl_GetIndexFromObjStruct(NULL, word, tables, sizeof(char *), "subcommand", 0, &index) ==
           TCL_OK;
}

enum option {
    O_APP,
    O_BY,
    O_FROM,
    O_INCLUSIVE, /* a flag: no value */
    O_LIMIT,
    O_LEVEL,
    O_MODE,
    O_PHASE,
    O_PROCEDURE,
    O_PROCESS,
    O_PVM,
    O_TO
};

/* Each table's options; a leading node argument where has_node. */
static const struct table_options {
    bool has_node;
    const char *names[8];
    enum option options[8];
} table_options[] = {
    [CPA_TABLE_PROFILE] = {true,
                           {"-app", "-by", "-level", "-mode", "-phase", "-pvm", NULL},
                           {O_APP, O_BY, O_LEVEL, O_MODE, O_PHASE, O_PVM}},
    [CPA_TABLE_ZERO] = {false,
                        {"-app", "-inclusive", "-mode", "-procedure", "-process", "-pvm", NULL},
                        {O_APP, O_INCLUSIVE, O_MODE, O_PROCEDURE, O_PROCESS, O_PVM}},
    [CPA_TABLE_PATH] = {false,
                        {"-app", "-mode", "-phase", "-pvm", NULL},
                        {O_APP, O_MODE, O_PHASE, O_PVM}},
    [CPA_TABLE_IMBALANCE] = {true,
                             {"-app", "-mode", "-phase", "-pvm", NULL},
                             {O_APP, O_MODE, O_PHASE, O_PVM}},
    [CPA_TABLE_TIMELINE] = {true, {"-from", "-limit", "-to", NULL}, {O_FROM, O_LIMIT, O_TO}},
};

static int SetString(Tcl_Interp *interp, char **field, Tcl_Obj *value)
{
    if (cpa_request_set(field, Tcl_GetString(value)) != 0)
        return Error(interp, "MEMORY", "%s", "out of memory");
    return TCL_OK;
}

static int SetOption(Tcl_Interp *interp, struct cpa_request *r, enum option o, Tcl_Obj *v)
{
    static const char *const bys[] = {"name", "node", NULL};
    Tcl_WideInt w = 0;
    int index = 0;
    switch (o) {
    case O_APP:
        return SetString(interp, &r->app, v);
    case O_BY:
        if (Tcl_GetIndexFromObjStruct(interp, v, bys, sizeof(char *), "grouping", 0, &index) !=
            TCL_OK)
            return TCL_ERROR;
        r->by_node = index == 1;
        return TCL_OK;
    case O_LEVEL:
        if (Tcl_GetIndexFromObjStruct(interp, v, ips2_cpa_level_names, sizeof(char *), "level", 0,
                                      &index) != TCL_OK)
            return TCL_ERROR;
        r->level = (enum ips2_cpa_level)index;
        return TCL_OK;
    case O_MODE:
        if (Tcl_GetIndexFromObjStruct(interp, v, ips2_cpa_mode_names, sizeof(char *), "mode", 0,
                                      &index) != TCL_OK)
            return TCL_ERROR;
        r->mode = (enum ips2_cpa_mode)index;
        r->mode_given = true;
        return TCL_OK;
    case O_PHASE:
        return SetString(interp, &r->phase, v);
    case O_PROCEDURE:
        return SetString(interp, &r->procedure, v);
    case O_PROCESS:
        return SetString(interp, &r->process, v);
    case O_PVM:
        if (Tcl_GetIndexFromObjStruct(interp, v, cpa_where_names, sizeof(char *), "pvm mode", 0,
                                      &index) != TCL_OK)
            return TCL_ERROR;
        r->where = (enum cpa_where)index;
        return TCL_OK;
    case O_INCLUSIVE:
        return TCL_OK;
    case O_FROM:
    case O_TO:
    case O_LIMIT:
        if (Tcl_GetWideIntFromObj(interp, v, &w) != TCL_OK)
            return TCL_ERROR;
        if (o == O_FROM) {
            r->from = w;
            r->has_from = true;
        } else if (o == O_TO) {
            r->to = w;
            r->has_to = true;
        } else {
            r->limit = w > 0 ? w : 1;
        }
        return TCL_OK;
    }
    return TCL_OK;
}

int Ips2CpaRequest(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[],
                   struct cpa_request **out)
{
    int index;
    *out = NULL;
    if (Tcl_GetIndexFromObjStruct(interp, objv[1], tables, sizeof(char *), "subcommand", 0,
                                  &index) != TCL_OK)
        return TCL_ERROR;
    const struct table_options *t = &table_options[index];
    struct cpa_request *r = cpa_request_new((enum cpa_table)index);
    if (r == NULL)
        return Error(interp, "MEMORY", "%s", "out of memory");
    int i = 2;
    if (t->has_node && i < objc && Tcl_GetString(objv[i])[0] != '-' &&
        SetString(interp, &r->node, objv[i++]) != TCL_OK)
        goto fail;
    for (; i < objc; i += 2) {
        int o;
        if (Tcl_GetIndexFromObjStruct(interp, objv[i], t->names, sizeof(char *), "option", 0, &o) !=
            TCL_OK) {
            Tcl_SetErrorCode(interp, "IPS2", "CP", "USAGE", NULL);
            goto fail;
        }
        if (t->options[o] == O_INCLUSIVE) {
            r->inclusive = true;
            i--; /* a flag */
            continue;
        }
        if (i + 1 >= objc) {
            Error(interp, "USAGE", "%s needs a value", t->names[o]);
            goto fail;
        }
        if (SetOption(interp, r, t->options[o], objv[i + 1]) != TCL_OK)
            goto fail;
    }
    struct cpa_error e;
    if (cpa_request_resolve(r, s->m, &e) != 0) {
        Ips2CpaError(interp, &e);
        goto fail;
    }
    *out = r;
    return TCL_OK;
fail:
    cpa_request_free(r);
    return TCL_ERROR;
}

/* --- answers as Tcl results ----------------------------------------------------- */

static Tcl_Obj *Columns(const char *const *spec)
{
    Tcl_Obj *cols = Tcl_NewListObj(0, NULL);
    for (int i = 0; spec[i] != NULL; i += 2) {
        Tcl_Obj *c = Tcl_NewListObj(0, NULL);
        Tcl_ListObjAppendElement(NULL, c, Ips2Str(spec[i]));
        Tcl_ListObjAppendElement(NULL, c, Ips2Str(spec[i + 1]));
        Tcl_ListObjAppendElement(NULL, cols, c);
    }
    return cols;
}

static Tcl_Obj *Strings(char *const *v, size_t n)
{
    Tcl_Obj *list = Tcl_NewListObj(0, NULL);
    for (size_t i = 0; i < n; i++)
        Tcl_ListObjAppendElement(NULL, list, Ips2Str(v[i]));
    return list;
}

static Tcl_Obj *Percent(double v)
{
    return Tcl_NewDoubleObj((double)(int64_t)(v * 100.0 + (v >= 0 ? 0.5 : -0.5)) / 100.0);
}

static Tcl_Obj *Row(int n, Tcl_Obj *const *cells)
{
    return Tcl_NewListObj(n, cells);
}

/* A table of rows of the path itself (segments, imbalance): its columns,
 * the rows, and what the path was asked for. */
static Tcl_Obj *RowsTable(const char *const *cols, Tcl_Obj *rows, const struct cpa_answer *a)
{
    Tcl_Obj *d = Tcl_NewDictObj();
    Ips2Put(d, "columns", Columns(cols));
    Ips2Put(d, "rows", rows);
    Ips2Put(d, "length", Wide(a->length));
    Ips2Put(d, "mode", Ips2Str(ips2_cpa_mode_name(a->mode)));
    Ips2Put(d, "app", Ips2Str(a->app));
    Ips2Put(d, "warnings", Strings(a->warnings, a->nwarnings));
    return d;
}

static Tcl_Obj *ProfileObj(const struct cpa_answer *a)
{
    /* program last: procedure rows group by program and procedure */
    static const char *const cols[] = {"name",    "",  "path",    "", "time", "ns",
                                       "percent", "%", "program", "", NULL};
    Tcl_Obj *rows = Tcl_NewListObj(0, NULL), *d = Tcl_NewDictObj();
    for (size_t i = 0; i < a->nprofile; i++) {
        const struct cpa_profile_row *p = &a->profile[i];
        Tcl_Obj *cells[] = {Ips2Str(p->name), Ips2Str(p->path), Wide(p->ns), Percent(p->percent),
                            Ips2Str(p->program)};
        Tcl_ListObjAppendElement(NULL, rows, Row(5, cells));
    }
    Ips2Put(d, "columns", Columns(cols));
    Ips2Put(d, "rows", rows);
    Ips2Put(d, "length", Wide(a->length));
    Ips2Put(d, "elapsed", Wide(a->elapsed));
    Ips2Put(d, "ratio", Tcl_NewDoubleObj(a->ratio));
    Ips2Put(d, "begin", Wide(a->begin));
    Ips2Put(d, "end", Wide(a->end));
    Ips2Put(d, "mode", Ips2Str(ips2_cpa_mode_name(a->mode)));
    Ips2Put(d, "app", Ips2Str(a->app));
    Ips2Put(d, "level", Ips2Str(ips2_cpa_level_name(a->level)));
    Ips2Put(d, "by", Ips2Str(a->by_node ? "node" : "name"));
    Ips2Put(d, "via", Ips2Str(a->distributed ? "pvm" : "local"));
    Ips2Put(d, "warnings", Strings(a->warnings, a->nwarnings));
    return d;
}

static Tcl_Obj *ZeroObj(const struct cpa_answer *a)
{
    Tcl_Obj *d = Tcl_NewDictObj();
    int64_t saved = a->length - a->new_length;
    Ips2Put(d, "length", Wide(a->length));
    Ips2Put(d, "new_length", Wide(a->new_length));
    Ips2Put(d, "saved", Wide(saved));
    Ips2Put(d, "percent", Percent(a->length > 0 ? 100.0 * (double)saved / (double)a->length : 0.0));
    Ips2Put(d, "mode", Ips2Str(ips2_cpa_mode_name(a->mode)));
    Ips2Put(d, "app", Ips2Str(a->app));
    Ips2Put(d, "procedure", Ips2Str(a->procedure));
    Ips2Put(d, "process", Ips2Str(a->process));
    Ips2Put(d, "inclusive", Tcl_NewBooleanObj(a->inclusive));
    Tcl_Obj *zeroed = Tcl_NewListObj(0, NULL);
    for (const char *n = a->zero_names; n != NULL && *n != '\0';) {
        const char *nl = strchr(n, '\n');
        size_t len = nl != NULL ? (size_t)(nl - n) : strlen(n);
        Tcl_ListObjAppendElement(NULL, zeroed, Tcl_NewStringObj(n, (Tcl_Size)len));
        n += len + (nl != NULL);
    }
    Ips2Put(d, "zeroed", zeroed);
    Ips2Put(d, "warnings", Strings(a->warnings, a->nwarnings));
    return d;
}

static Tcl_Obj *PathObj(const struct cpa_answer *a)
{
    static const char *const cols[] = {"kind",   "",   "thread", "", "from",       "ns", "to", "ns",
                                       "length", "ns", "what",   "", "procedures", "",   NULL};
    Tcl_Obj *rows = Tcl_NewListObj(0, NULL);
    for (size_t i = 0; i < a->nsegments; i++) {
        const struct cpa_segment_row *g = &a->segments[i];
        /* what: the CPU's procedures, or the source thread */
        Tcl_Obj *what = strcmp(g->kind, "cpu") == 0 ? Strings(g->what, g->nwhat)
                                                    : Ips2Str(g->nwhat ? g->what[0] : "");
        Tcl_Obj *cells[] = {Ips2Str(g->kind),        Ips2Str(g->thread),
                            Wide(g->from),           Wide(g->to),
                            Wide(g->length),         what,
                            Wide((int64_t)g->nprocs)};
        Tcl_ListObjAppendElement(NULL, rows, Row(7, cells));
    }
    return RowsTable(cols, rows, a);
}

static Tcl_Obj *ImbalanceObj(const struct cpa_answer *a)
{
    static const char *const cols[] = {"name",    "",          "cp_time", "ns",      "avg_time",
                                       "ns",      "imbalance", "ns",      "percent", "%",
                                       "program", "",          NULL};
    Tcl_Obj *rows = Tcl_NewListObj(0, NULL);
    for (size_t i = 0; i < a->nimbalance; i++) {
        const struct ips2_cpa_imbalance *v = &a->imbalance[i];
        Tcl_Obj *cells[] = {Ips2Str(v->proc),   Wide(v->cp),         Wide(v->avg),
                            Wide(v->imbalance), Percent(v->percent), Ips2Str(v->program)};
        Tcl_ListObjAppendElement(NULL, rows, Row(6, cells));
    }
    return RowsTable(cols, rows, a);
}

static Tcl_Obj *TimelineObj(const struct cpa_answer *a)
{
    Tcl_Obj *events = Tcl_NewListObj(0, NULL), *arcs = Tcl_NewListObj(0, NULL),
            *d = Tcl_NewDictObj();
    for (size_t i = 0; i < a->nevents; i++) {
        const struct cpa_timeline_event *e = &a->events[i];
        Tcl_Obj *cells[] = {Wide(e->lane), Wide(e->wall), Ips2Str(e->kind), Ips2Str(e->procedure)};
        Tcl_ListObjAppendElement(NULL, events, Row(4, cells));
    }
    for (size_t i = 0; i < a->narcs; i++) {
        const struct cpa_timeline_arc *r = &a->arcs[i];
        Tcl_Obj *cells[] = {Wide(r->from_lane), Wide(r->from_wall), Wide(r->to_lane),
                            Wide(r->to_wall), Ips2Str(r->type)};
        Tcl_ListObjAppendElement(NULL, arcs, Row(5, cells));
    }
    Ips2Put(d, "lanes", Strings(a->lanes, a->nlanes));
    Ips2Put(d, "events", events);
    Ips2Put(d, "arcs", arcs);
    Ips2Put(d, "truncated", Tcl_NewBooleanObj(a->truncated));
    Ips2Put(d, "from", Wide(a->from));
    Ips2Put(d, "to", Wide(a->to));
    return d;
}

Tcl_Obj *Ips2CpaAnswerObj(const struct cpa_answer *a)
{
    switch (a->table) {
    case CPA_TABLE_PROFILE:
        return ProfileObj(a);
    case CPA_TABLE_ZERO:
        return ZeroObj(a);
    case CPA_TABLE_PATH:
        return PathObj(a);
    case CPA_TABLE_IMBALANCE:
        return ImbalanceObj(a);
    case CPA_TABLE_TIMELINE:
        return TimelineObj(a);
    }
    return Tcl_NewObj();
}

/* cp-path's -write CHAN ?-format text|csv? ?-head CMD?, taken out of the
 * words before the request is parsed. */
struct path_write {
    Tcl_Channel chan;
    bool csv;
    Tcl_Obj *head;
};

static int TakeWrite(Tcl_Interp *interp, int *objc, Tcl_Obj **objv, struct path_write *w)
{
    static const char *const opts[] = {"-format", "-head", "-write", NULL};
    static const char *const formats[] = {"text", "csv", NULL};
    int n = 2, fmt = 0, o, objc0 = *objc;
    const char *chan = NULL;
    for (int i = 2; i < *objc; i++) {
        const char *word = Tcl_GetString(objv[i]);
        if (i + 1 < *objc && word[0] == '-' && strlen(word) > 2 &&
            Tcl_GetIndexFromObjStruct(NULL, objv[i], opts, sizeof(char *), "option", TCL_EXACT,
                                      &o) == TCL_OK) {
            if (o == 0 && Tcl_GetIndexFromObjStruct(interp, objv[i + 1], formats, sizeof(char *),
                                                    "format", 0, &fmt) != TCL_OK)
                return TCL_ERROR;
            if (o == 1)
                w->head = objv[i + 1];
            if (o == 2)
                chan = Tcl_GetString(objv[i + 1]);
            i++;
            continue;
        }
        objv[n++] = objv[i];
    }
    *objc = n;
    w->csv = fmt == 1;
    if (chan == NULL && n != objc0)
        return Error(interp, "USAGE", "%s", "-format and -head go with -write CHAN");
    if (chan != NULL && (w->chan = Tcl_GetChannel(interp, chan, NULL)) == NULL)
        return TCL_ERROR;
    return TCL_OK;
}

/* The path's dict without rows, its head written, then its rows. */
static int WritePath(Tcl_Interp *interp, const struct path_write *w, const struct cpa_answer *a)
{
    Tcl_Obj *d = Ips2CpaAnswerObj(&(struct cpa_answer){.table = a->table,
                                                       .mode = a->mode,
                                                       .app = a->app,
                                                       .length = a->length,
                                                       .warnings = a->warnings,
                                                       .nwarnings = a->nwarnings});
    Ips2Put(d, "segments", Tcl_NewWideIntObj((Tcl_WideInt)a->nsegments));
    Tcl_IncrRefCount(d);
    int rc = TCL_OK;
    if (w->head != NULL) {
        Tcl_Obj *cmd = Tcl_DuplicateObj(w->head);
        Tcl_IncrRefCount(cmd);
        rc = Tcl_ListObjAppendElement(interp, cmd, d);
        if (rc == TCL_OK)
            rc = Tcl_EvalObjEx(interp, cmd, TCL_EVAL_DIRECT);
        Tcl_DecrRefCount(cmd);
        if (rc == TCL_OK && Tcl_WriteObj(w->chan, Tcl_GetObjResult(interp)) < 0) {
            /* the POSIX error code stays: the CLI ends quietly on EPIPE */
            Tcl_SetObjResult(interp,
                             Tcl_ObjPrintf("cannot write the path: %s", Tcl_PosixError(interp)));
            rc = TCL_ERROR;
        }
    }
    if (rc == TCL_OK)
        rc = Ips2CpaWritePath(interp, w->chan, a, w->csv);
    if (rc == TCL_OK)
        Tcl_SetObjResult(interp, d);
    Tcl_DecrRefCount(d);
    return rc;
}

int Ips2CpaCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    struct cpa_request *r = NULL;
    struct cpa_answer *a = NULL;
    struct cpa_error e;
    struct path_write w = {NULL, false, NULL};
    Tcl_Obj **words = (Tcl_Obj **)Tcl_Alloc((unsigned)objc * sizeof *words);
    memcpy(words, objv, (size_t)objc * sizeof *words);
    int rc = TCL_OK;
    int table = -1;
    if (objc > 1 &&
        Tcl_GetIndexFromObjStruct(NULL, objv[1], tables, sizeof(char *), "subcommand", 0, &table) ==
            TCL_OK &&
        table == CPA_TABLE_PATH)
        rc = TakeWrite(interp, &objc, words, &w);
    if (rc == TCL_OK)
        rc = Ips2CpaRequest(s, interp, objc, words, &r);
    Tcl_Free((char *)words);
    if (rc != TCL_OK)
        return TCL_ERROR;
    Ips2Cpa *c = Ips2CpaState(s);
    if (c == NULL) {
        cpa_request_free(r);
        return Error(interp, "MEMORY", "%s", "out of memory");
    }
    rc = cpa_session_answer(c->core, r, &a, &e);
    cpa_request_free(r);
    if (rc != 0)
        return Ips2CpaError(interp, &e);
    if (w.chan != NULL)
        rc = WritePath(interp, &w, a);
    else
        Tcl_SetObjResult(interp, Ips2CpaAnswerObj(a));
    cpa_answer_free(a);
    return rc;
}

/* --- ips2::cpa FILES ... ------------------------------------------------------ */

static double Now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The result dict of ips2::cpa. */
static Tcl_Obj *CpaResult(const struct ips2_cpa_path *path, const struct cpa_set *set,
                          double open_s, double query_s)
{
    int64_t cpu = 0, sum = 0, crossings = 0;
    for (size_t i = 0; i < path->nsegs; i++) {
        sum += path->segs[i].length;
        crossings += path->segs[i].src_part != path->segs[i].dst_part;
        if (path->segs[i].kind == IPS2_CPA_SEG_CPU)
            cpu += path->segs[i].length;
    }
    Tcl_Obj *d = Tcl_NewDictObj();
    Ips2Put(d, "length", Wide(path->length));
    Ips2Put(d, "found", Tcl_NewIntObj(path->found));
    Ips2Put(d, "terminal", Wide((int64_t)path->terminal));
    Ips2Put(d, "segments", Wide((int64_t)path->nsegs));
    Ips2Put(d, "segments_sum", Wide(sum));
    Ips2Put(d, "cpu_ns", Wide(cpu));
    Ips2Put(d, "crossings", Wide(crossings));
    Ips2Put(d, "via", Ips2Str(set->pvm ? "pvm" : "local"));
    Ips2Put(d, "open_seconds", Tcl_NewDoubleObj(open_s));
    Ips2Put(d, "query_seconds", Tcl_NewDoubleObj(query_s));
    Ips2Put(d, "warnings", Wide((int64_t)set->nwarnings));
    return d;
}

/* ips2::cpa -done: the query in flight. */
struct CpaAsync {
    Tcl_Interp *interp;
    Tcl_Obj *cmd;
    struct cpa_set *set;
    double t0, t1;
};

/* The query's completion (cpa_done_fn): frees the set, calls CMD. */
static void CpaAsyncDone(void *arg, struct ips2_cpa_path *path, const char *err)
{
    struct CpaAsync *a = arg;
    Tcl_Interp *interp = a->interp;
    Tcl_Obj *cmd = Tcl_DuplicateObj(a->cmd), *res;
    Tcl_IncrRefCount(cmd);
    if (path != NULL) {
        res = CpaResult(path, a->set, a->t1 - a->t0, Now() - a->t1);
    } else {
        res = Tcl_NewDictObj();
        Ips2Put(res, "error", Ips2Str(err));
    }
    Tcl_ListObjAppendElement(NULL, cmd, res);
    cpa_set_free(a->set);
    Tcl_DecrRefCount(a->cmd);
    free(a);
    Tcl_Preserve(interp);
    if (Tcl_EvalObjEx(interp, cmd, TCL_EVAL_GLOBAL) != TCL_OK)
        Tcl_BackgroundException(interp, TCL_ERROR);
    Tcl_Release(interp);
    Tcl_DecrRefCount(cmd);
}

/*
 * ips2::cpa FILES ?-mode M? ?-app A? ?-pvm none|private? ?-zero-procedure F? ?-done CMD?
 *   Runs one query on the part files FILES (numbered in that order) and
 *   returns {length L found 0|1 terminal GID segments N cpu_ns C
 *   crossings X via local|pvm open_seconds S query_seconds S} (X: the
 *   path's segments from one part to another): for tests (distributed ==
 *   in-process == oracle) and the benchmark.  With -done, it returns once
 *   the parts are loaded and the query runs in the event loop
 *   (cpa_set_run_async): CMD is called with that dict, or {error MESSAGE}.
 */
static int CpaObjCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    (void)cd;
    Tcl_Size nfiles = 0;
    Tcl_Obj **fv = NULL, *done = NULL;
    static const char *const options[] = {"-app",  "-mode", "-pvm", "-zero-procedure",
                                          "-done", NULL};
    enum { C_APP, C_MODE, C_PVM, C_ZERO_PROCEDURE, C_DONE };
    static const char *const hows[] = {"none", "private", NULL};
    struct ips2_cpa_query q = {.mode = IPS2_CPA_GLOBAL};
    int option, mode, private_vm = 0;
    if (objc < 2 || objc % 2 != 0) {
        Tcl_WrongNumArgs(
            interp, 1, objv,
            "files ?-mode M? ?-app A? ?-pvm none|private? ?-zero-procedure F? ?-done CMD?");
        return TCL_ERROR;
    }
    if (Tcl_ListObjGetElements(interp, objv[1], &nfiles, &fv) != TCL_OK)
        return TCL_ERROR;
    for (int i = 2; i + 1 < objc; i += 2) {
        const char *v = Tcl_GetString(objv[i + 1]);
        if (Tcl_GetIndexFromObjStruct(interp, objv[i], options, sizeof(char *), "option", 0,
                                      &option) != TCL_OK)
            return TCL_ERROR;
        switch (option) {
        case C_APP:
            q.app = v[0] ? v : NULL;
            break;
        case C_MODE:
            if (Tcl_GetIndexFromObjStruct(interp, objv[i + 1], ips2_cpa_mode_names, sizeof(char *),
                                          "mode", 0, &mode) != TCL_OK)
                return TCL_ERROR;
            q.mode = (enum ips2_cpa_mode)mode;
            break;
        case C_PVM:
            if (Tcl_GetIndexFromObjStruct(interp, objv[i + 1], hows, sizeof(char *), "pvm mode", 0,
                                          &private_vm) != TCL_OK)
                return TCL_ERROR;
            break;
        case C_ZERO_PROCEDURE:
            q.zero_procedure = v[0] ? v : NULL;
            break;
        case C_DONE:
            done = objv[i + 1];
            break;
        }
    }
    char **files = calloc((size_t)nfiles + 1, sizeof *files);
    if (files == NULL)
        return Error(interp, "MEMORY", "%s", "out of memory");
    for (Tcl_Size i = 0; i < nfiles; i++) {
        Tcl_Obj *norm = Tcl_FSGetNormalizedPath(interp, fv[i]);
        files[i] = norm ? Tcl_GetString(norm) : Tcl_GetString(fv[i]);
    }
    char err[ERR_LEN] = "", slave[PATH_MAX];
    struct cpa_set *set = NULL;
    double t0 = Now();
    int rc;
    if (private_vm) {
        ips2_slave_path(slave, sizeof slave);
        rc = cpa_pvm_open(files, (size_t)nfiles, NULL, 0, Ips2RunSlaves(interp, NULL, NULL), false,
                          slave, NULL, NULL, &set, err, sizeof err);
    } else {
        rc = cpa_local_open(files, (size_t)nfiles, NULL, NULL, &set, err, sizeof err);
    }
    free(files);
    if (rc != 0)
        return Error(interp, "PARTS", "%s", err);
    double t1 = Now();
    if (done != NULL) {
        struct CpaAsync *a = malloc(sizeof *a);
        if (a == NULL) {
            cpa_set_free(set);
            return Error(interp, "MEMORY", "%s", "out of memory");
        }
        *a = (struct CpaAsync){interp, done, set, t0, t1};
        Tcl_IncrRefCount(done);
        if (cpa_set_run_async(set, &q, CpaAsyncDone, a, err, sizeof err) < 0) {
            Tcl_DecrRefCount(done);
            free(a);
            cpa_set_free(set);
            return Error(interp, "QUERY", "%s", err);
        }
        return TCL_OK;
    }
    struct ips2_cpa_path path;
    ips2_cpa_path_init(&path);
    rc = cpa_set_run(set, &q, &path, err, sizeof err);
    double t2 = Now();
    if (rc != 0) {
        ips2_cpa_path_free(&path);
        cpa_set_free(set);
        return Error(interp, "QUERY", "%s", err);
    }
    Tcl_SetObjResult(interp, CpaResult(&path, set, t1 - t0, t2 - t1));
    ips2_cpa_path_free(&path);
    cpa_set_free(set);
    return TCL_OK;
}

int Ips2CpaInit(Tcl_Interp *interp)
{
    Tcl_CreateObjCommand(interp, "::ips2::cpa", CpaObjCmd, NULL, NULL);
    return Ips2ClocksInit(interp);
}
