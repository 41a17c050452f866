/*
 * tcl_tables.c - the tree and table subcommands of a session object
 * (ANALYSTS.md §6):
 *
 *   $s tree logical APP ?-level L? | tree physical ?-level L?
 *   $s metrics NODE ?-phase P?          $s metrics -apps {A ...} ?-phase P?
 *   $s profile NODE -level L -metric M ?-phase P? ?-by node|name?
 *   $s npt NODE ?-level L? ?-phase P? ?-by node|name?
 *   $s gprof NODE ?-phase P? ?-format dict|text?
 *   $s clock ?NODE? ?-phase P?
 *   $s objects NODE ?-phase P? ?-holders?
 *   $s latency NODE ?-phase P? ?-sort COLUMN? ?-procedure NAME ?-buckets N??
 *   $s histogram NODE -metric M ?-phase P? ?-width NS?
 *   $s metric-list
 *   $s table processes|phases|problems ?-columns {NAME ...}?
 *   $s table cp-zero CP-ZERO-ARGS ... ?-columns {NAME ...}?
 *
 * A tree is a node dict {kind K name N path P children {NODE ...}}, with
 * host (machines) and command and status (processes) where known.  Tables
 * are dicts {columns {{NAME UNIT} ...} rows {{...} ...}} (tables.h says
 * which columns); gprof gives {flat TABLE graph TABLE}, or with -format
 * text the two in GNU gprof's layout; a histogram's dict also has width,
 * origin and missing (threads without a histogram of the metric).
 *
 * With -phase the table is computed on the phase's model (phases.c); a
 * node that has no data in the phase has zero values there.
 *
 * clock is the process-time clock of the processes under the node
 * (default physical) as a table's header states it (clock_note.h): a dict
 * {text T exact 0|1 clocks {{method M resolution NS processes N} ...}
 * short {{name N mean NS calls N resolution NS} ...}}, short being the
 * procedures whose mean CPU time per call is within ten times of their
 * clock's resolution, shortest first.
 *
 * metric-list is every metric a table or histogram takes, with its unit,
 * levels and description (tables.c).  `table` gives the session's facts
 * as tables, so that the command line and the GUI show the same ones:
 * processes (application index machine pid status cpu start end command),
 * phases (phase start end), problems (problem), and cp-zero's answer
 * (what length new_length saved percent, keeping its mode, app and
 * warnings); -columns keeps those columns, in that order.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "clock_note.h"
#include "latency.h"
#include "tcl_cpa.h"
#include "tcl_session.h"
#include "tcl_util.h"

/* ------------------------------------------------------------- objects --- */

Tcl_Obj *Ips2TableObj(const struct ips2_table *t)
{
    Tcl_Obj *cols = Tcl_NewListObj(0, NULL), *rows = Tcl_NewListObj(0, NULL);
    Tcl_Obj *d = Tcl_NewDictObj();

    for (size_t c = 0; c < t->ncols; c++) {
        Tcl_Obj *e[2] = {Tcl_NewStringObj(t->col_name[c], -1),
                         Tcl_NewStringObj(t->col_unit[c], -1)};
        Tcl_ListObjAppendElement(NULL, cols, Tcl_NewListObj(2, e));
    }
    for (size_t r = 0; r < t->nrows; r++) {
        Tcl_Obj *row = Tcl_NewListObj(0, NULL);
        for (size_t c = 0; c < t->ncols; c++) {
            const struct ips2_cell *cell = ips2_table_at(t, r, c);
            Tcl_Obj *o;
            switch (cell->type) {
            case IPS2_CELL_STR:
                o = Tcl_NewStringObj(cell->u.s, -1);
                break;
            case IPS2_CELL_INT:
                o = Tcl_NewWideIntObj(cell->u.i);
                break;
            default:
                o = Tcl_NewDoubleObj(cell->u.d);
                break;
            }
            Tcl_ListObjAppendElement(NULL, row, o);
        }
        Tcl_ListObjAppendElement(NULL, rows, row);
    }
    Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("columns", -1), cols);
    Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("rows", -1), rows);
    return d;
}

static Tcl_Obj *NodeObj(const struct ips2_model *m, const struct ips2_node *n, int depth)
{
    Tcl_Obj *d = Tcl_NewDictObj(), *children = Tcl_NewListObj(0, NULL);

    Ips2Put(d, "kind", Tcl_NewStringObj(ips2_node_kind_name(n->kind), -1));
    Ips2Put(d, "name", Tcl_NewStringObj(n->name, -1));
    Ips2Put(d, "path", Tcl_NewStringObj(n->path, -1));
    if (n->kind == IPS2_NODE_MACHINE) {
        int mi = ips2_model_machine_index(m, n->name);
        if (mi >= 0)
            Ips2Put(d, "host", Tcl_NewStringObj(m->machines[mi].host, -1));
    }
    if (n->kind == IPS2_NODE_PROCESS) {
        if (n->info)
            Ips2Put(d, "command", Tcl_NewStringObj(n->info->command, -1));
        else if (n->command)
            Ips2Put(d, "command", Tcl_NewStringObj(n->command, -1));
        else if (n->exe)
            Ips2Put(d, "command", Tcl_NewListObj(1, (Tcl_Obj *[]){Tcl_NewStringObj(n->exe, -1)}));
        Ips2Put(d, "status",
                Tcl_NewStringObj(n->info && n->info->status[0] ? n->info->status : n->status, -1));
        /* traced, but not one procedure call: libips2 preloaded into a
         * program not built with ips2cc (its interactions only) */
        if (n->nthreads > 0 && n->m[IPS2_M_CALLS] == 0)
            Ips2Put(d, "label", Tcl_NewStringObj("interactions only", -1));
    }
    if (depth > 0)
        for (size_t i = 0; i < n->nchild; i++)
            Tcl_ListObjAppendElement(NULL, children, NodeObj(m, n->child[i], depth - 1));
    Ips2Put(d, "children", children);
    return d;
}

/* ------------------------------------------------------------- options --- */

enum { O_APPS, O_BY, O_FORMAT, O_LEVEL, O_METRIC, O_PHASE, O_WIDTH, O_COUNT };
static const char *const option_names[] = {"-apps",   "-by",    "-format", "-level",
                                           "-metric", "-phase", "-width"};

/* Parses "-option value" pairs of objv[first..objc) into o[O_*], allowing
 * only the options in allowed (a NULL-terminated list, for Tcl's message). */
static int ParseOptions(Tcl_Interp *interp, int objc, Tcl_Obj *const objv[], int first,
                        const char *const *allowed, Tcl_Obj *o[O_COUNT])
{
    memset(o, 0, O_COUNT * sizeof(*o));
    for (int i = first; i < objc; i += 2) {
        int index;
        if (Tcl_GetIndexFromObjStruct(interp, objv[i], allowed, sizeof(char *), "option", 0,
                                      &index) != TCL_OK)
            return TCL_ERROR;
        if (i + 1 >= objc) {
            Tcl_SetObjResult(interp, Tcl_ObjPrintf("option \"%s\" needs a value", allowed[index]));
            Tcl_SetErrorCode(interp, "TCL", "ARGUMENT", "MISSING", NULL);
            return TCL_ERROR;
        }
        for (int k = 0; k < O_COUNT; k++)
            if (strcmp(option_names[k], allowed[index]) == 0)
                o[k] = objv[i + 1];
    }
    return TCL_OK;
}

static int Failed(Tcl_Interp *interp, const char *err, const char *what)
{
    Tcl_SetObjResult(interp, Tcl_NewStringObj(err, -1));
    Tcl_SetErrorCode(interp, "IPS2", "TABLE", what, NULL);
    return TCL_ERROR;
}

/* Sets the interpreter's result to table t and frees it; a NULL t is the
 * failure err of command what. */
static int TableResult(Tcl_Interp *interp, struct ips2_table *t, const char *err, const char *what)
{
    if (t == NULL)
        return Failed(interp, err, what);
    Tcl_SetObjResult(interp, Ips2TableObj(t));
    ips2_table_free(t);
    return TCL_OK;
}

/* The start of the commands "$s cmd node ?option value ...?": checks that
 * there is a node, then reads the allowed options after it into o. */
static int NodeOptions(Tcl_Interp *interp, int objc, Tcl_Obj *const objv[], const char *usage,
                       const char *const *allowed, Tcl_Obj *o[O_COUNT])
{
    if (objc < 3) {
        Tcl_WrongNumArgs(interp, 2, objv, usage);
        return TCL_ERROR;
    }
    return ParseOptions(interp, objc, objv, 3, allowed, o);
}

/* The start of the commands "$s cmd word ...": checks that there is a
 * word, then which of names (what the message calls them) it is. */
static int FirstWord(Tcl_Interp *interp, int objc, Tcl_Obj *const objv[], const char *usage,
                     const char *const *names, const char *what, int *which)
{
    if (objc < 3) {
        Tcl_WrongNumArgs(interp, 2, objv, usage);
        return TCL_ERROR;
    }
    return Tcl_GetIndexFromObjStruct(interp, objv[2], names, sizeof(char *), what, 0, which);
}

static int GetMetric(Tcl_Interp *interp, Tcl_Obj *o, int *metric)
{
    Tcl_Obj *names;

    if (o == NULL) {
        Tcl_SetObjResult(interp, Tcl_NewStringObj("-metric is required", -1));
        Tcl_SetErrorCode(interp, "TCL", "ARGUMENT", "MISSING", NULL);
        return TCL_ERROR;
    }
    if ((*metric = ips2_metric_lookup(Tcl_GetString(o))) >= 0)
        return TCL_OK;
    names = Tcl_NewListObj(0, NULL);
    for (int k = 0; k < IPS2_X_COUNT; k++)
        Tcl_ListObjAppendElement(NULL, names, Tcl_NewStringObj(ips2_any_metric_name(k), -1));
    Tcl_SetObjResult(interp, Tcl_ObjPrintf("unknown metric \"%s\": must be one of %s",
                                           Tcl_GetString(o), Tcl_GetString(names)));
    Tcl_DecrRefCount(names);
    Tcl_SetErrorCode(interp, "IPS2", "LOOKUP", "METRIC", Tcl_GetString(o), NULL);
    return TCL_ERROR;
}

static int GetLevel(Tcl_Interp *interp, Tcl_Obj *o, enum ips2_node_kind dflt,
                    enum ips2_node_kind *level)
{
    static const char *const levels[] = {"machine", "process", "thread", "procedure", NULL};
    int index;

    if (o == NULL) {
        *level = dflt;
        return TCL_OK;
    }
    if (Tcl_GetIndexFromObjStruct(interp, o, levels, sizeof(char *), "level", 0, &index) != TCL_OK)
        return TCL_ERROR;
    *level = (enum ips2_node_kind)(IPS2_NODE_MACHINE + index);
    return TCL_OK;
}

static int GetBy(Tcl_Interp *interp, Tcl_Obj *o, int *by_name)
{
    static const char *const bys[] = {"node", "name", NULL};

    *by_name = 0;
    return o ? Tcl_GetIndexFromObjStruct(interp, o, bys, sizeof(char *), "grouping", 0, by_name)
             : TCL_OK;
}

/* The model and node a table is computed on. */
struct target {
    struct ips2_model *m;
    const struct ips2_node *n;
    struct ips2_node scratch; /* n when the node has no data in the phase */
};

/* Sets tg to the session's model and node, or with -phase the phase's; a
 * node without data in the phase is empty there (tg->scratch). */
static int Resolve(Ips2Session *s, Tcl_Interp *interp, Tcl_Obj *path, Tcl_Obj *phase,
                   struct target *tg)
{
    const struct ips2_node *base = ips2_model_find(s->m, Tcl_GetString(path));
    char err[IPS2_ERR_MAX];
    struct ips2_model *view;

    if (base == NULL) {
        Tcl_SetObjResult(interp,
                         Tcl_ObjPrintf("no node \"%s\" in the session", Tcl_GetString(path)));
        Tcl_SetErrorCode(interp, "IPS2", "LOOKUP", "NODE", Tcl_GetString(path), NULL);
        return TCL_ERROR;
    }
    tg->m = s->m;
    tg->n = base;
    if (phase == NULL)
        return TCL_OK;
    if ((view = ips2_phase_view(s->m, Tcl_GetString(phase), err)) == NULL) {
        Tcl_SetObjResult(interp, Tcl_NewStringObj(err, -1));
        Tcl_SetErrorCode(interp, "IPS2", "PHASE", Tcl_GetString(phase), NULL);
        return TCL_ERROR;
    }
    tg->m = view;
    if ((tg->n = ips2_model_find(view, Tcl_GetString(path))) == NULL) {
        tg->scratch = (struct ips2_node){.kind = base->kind,
                                         .name = base->name,
                                         .path = base->path,
                                         .app = base->app,
                                         .owner = base->owner,
                                         .start_ns = INT64_MAX,
                                         .end_ns = INT64_MIN};
        tg->n = &tg->scratch;
    }
    return TCL_OK;
}

/* ---------------------------------------------------------- subcommands --- */

int Ips2TreeCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    static const char *const trees[] = {"logical", "physical", NULL};
    static const char *const allowed[] = {"-level", NULL};
    const struct ips2_node *root;
    Tcl_Obj *o[O_COUNT];
    enum ips2_node_kind level, top;
    int which, first;

    if (FirstWord(interp, objc, objv, "logical app | physical ?-level level?", trees, "tree",
                  &which) != TCL_OK)
        return TCL_ERROR;
    if (which == 0 && objc < 4) {
        Tcl_WrongNumArgs(interp, 2, objv, "logical app ?-level level?");
        return TCL_ERROR;
    }
    first = which == 0 ? 4 : 3;
    if (ParseOptions(interp, objc, objv, first, allowed, o) != TCL_OK ||
        GetLevel(interp, o[O_LEVEL], IPS2_NODE_PROC, &level) != TCL_OK)
        return TCL_ERROR;
    if (which == 0) {
        if ((root = ips2_model_app_root(s->m, Tcl_GetString(objv[3]))) == NULL) {
            Tcl_SetObjResult(interp,
                             Tcl_ObjPrintf("no application \"%s\"", Tcl_GetString(objv[3])));
            Tcl_SetErrorCode(interp, "IPS2", "LOOKUP", "APP", Tcl_GetString(objv[3]), NULL);
            return TCL_ERROR;
        }
    } else if ((root = ips2_model_find(s->m, "physical")) == NULL) {
        return Failed(interp, "the session cannot be indexed (out of memory)", "tree");
    }
    /* the physical tree's root stands where an application's does, right
     * above the machines: the depth to a level counts from there */
    top = root->kind == IPS2_NODE_ROOT ? IPS2_NODE_APP : root->kind;
    Tcl_SetObjResult(interp, NodeObj(s->m, root, (int)level - (int)top));
    return TCL_OK;
}

int Ips2MetricsCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    static const char *const allowed_node[] = {"-phase", NULL};
    static const char *const allowed_apps[] = {"-apps", "-phase", NULL};
    char err[IPS2_ERR_MAX];
    struct target tg;
    struct ips2_model *m;
    struct ips2_table *t;
    Tcl_Obj *o[O_COUNT];

    if (objc < 3) {
        Tcl_WrongNumArgs(interp, 2, objv, "node ?-phase phase? | -apps apps ?-phase phase?");
        return TCL_ERROR;
    }
    if (strcmp(Tcl_GetString(objv[2]), "-apps") == 0) {
        Tcl_Obj **elems;
        const char **apps;
        int napps;
        if (ParseOptions(interp, objc, objv, 2, allowed_apps, o) != TCL_OK ||
            Tcl_ListObjGetElements(interp, o[O_APPS], &napps, &elems) != TCL_OK)
            return TCL_ERROR;
        m = s->m;
        if (o[O_PHASE] && (m = ips2_phase_view(s->m, Tcl_GetString(o[O_PHASE]), err)) == NULL) {
            Tcl_SetObjResult(interp, Tcl_NewStringObj(err, -1));
            Tcl_SetErrorCode(interp, "IPS2", "PHASE", Tcl_GetString(o[O_PHASE]), NULL);
            return TCL_ERROR;
        }
        apps = (const char **)ckalloc((napps ? napps : 1) * sizeof(char *));
        for (int i = 0; i < napps; i++)
            apps[i] = Tcl_GetString(elems[i]);
        t = ips2_multi_app_table(m, apps, (size_t)napps, err);
        ckfree(apps);
    } else {
        if (ParseOptions(interp, objc, objv, 3, allowed_node, o) != TCL_OK ||
            Resolve(s, interp, objv[2], o[O_PHASE], &tg) != TCL_OK)
            return TCL_ERROR;
        t = ips2_metric_table(tg.m, tg.n, err);
    }
    return TableResult(interp, t, err, "metrics");
}

int Ips2ProfileCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    static const char *const allowed[] = {"-by", "-level", "-metric", "-phase", NULL};
    char err[IPS2_ERR_MAX];
    struct target tg;
    enum ips2_node_kind level;
    Tcl_Obj *o[O_COUNT];
    int metric, by_name;

    if (NodeOptions(interp, objc, objv,
                    "node -level level -metric metric ?-phase phase? ?-by node|name?", allowed,
                    o) != TCL_OK)
        return TCL_ERROR;
    if (o[O_LEVEL] == NULL) {
        Tcl_SetObjResult(interp, Tcl_NewStringObj("-level is required", -1));
        Tcl_SetErrorCode(interp, "TCL", "ARGUMENT", "MISSING", NULL);
        return TCL_ERROR;
    }
    if (GetLevel(interp, o[O_LEVEL], IPS2_NODE_PROC, &level) != TCL_OK ||
        GetMetric(interp, o[O_METRIC], &metric) != TCL_OK || GetBy(interp, o[O_BY], &by_name) ||
        Resolve(s, interp, objv[2], o[O_PHASE], &tg) != TCL_OK)
        return TCL_ERROR;
    return TableResult(interp, ips2_profile_table(tg.m, tg.n, level, metric, by_name, err), err,
                       "profile");
}

int Ips2NptCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    static const char *const allowed[] = {"-by", "-level", "-phase", NULL};
    char err[IPS2_ERR_MAX];
    struct target tg;
    enum ips2_node_kind level;
    Tcl_Obj *o[O_COUNT];
    int by_name;

    if (NodeOptions(interp, objc, objv, "node ?-level level? ?-phase phase? ?-by node|name?",
                    allowed, o) != TCL_OK ||
        GetLevel(interp, o[O_LEVEL], IPS2_NODE_PROCESS, &level) != TCL_OK ||
        GetBy(interp, o[O_BY], &by_name) != TCL_OK ||
        Resolve(s, interp, objv[2], o[O_PHASE], &tg) != TCL_OK)
        return TCL_ERROR;
    return TableResult(interp, ips2_npt_table(tg.m, tg.n, level, by_name, err), err, "npt");
}

int Ips2ObjectsCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    static const char *const allowed[] = {"-phase", NULL};
    char err[IPS2_ERR_MAX];
    struct target tg;
    Tcl_Obj *o[O_COUNT], *args[8];
    int holders = 0, n = 0;

    /* -holders, a flag anywhere after the node: who held the locks */
    for (int i = 0; i < objc; i++) {
        if (i >= 3 && strcmp(Tcl_GetString(objv[i]), "-holders") == 0) {
            holders = 1;
            continue;
        }
        if (n == (int)(sizeof(args) / sizeof(args[0]))) {
            Tcl_WrongNumArgs(interp, 2, objv, "node ?-phase phase? ?-holders?");
            return TCL_ERROR;
        }
        args[n++] = objv[i];
    }
    if (NodeOptions(interp, n, args, "node ?-phase phase? ?-holders?", allowed, o) != TCL_OK ||
        Resolve(s, interp, args[2], o[O_PHASE], &tg) != TCL_OK)
        return TCL_ERROR;
    if (holders)
        return TableResult(interp, ips2_holders_table(tg.m, tg.n, err), err, "objects");
    return TableResult(interp, ips2_objects_table(tg.m, tg.n, err), err, "objects");
}

/* The latency table of a node (latency.h), or with -procedure the
 * histogram of one procedure's latency under it (-buckets per power of
 * two, default 8) with the summary beside: the dict of the histogram's
 * table plus procedure, available (0: not recorded, older reductions),
 * count, mean, p50, p90, p99, max and total (ns). */
int Ips2LatencyCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    static const char *const usage = "node ?-phase phase? ?-sort column? ?-procedure name? "
                                     "?-buckets n?";
    static const char *const names[] = {"-buckets", "-phase", "-procedure", "-sort", NULL};
    enum { L_BUCKETS, L_PHASE, L_PROCEDURE, L_SORT, L_COUNT };
    Tcl_Obj *o[L_COUNT] = {NULL};
    char err[IPS2_ERR_MAX];
    struct target tg;
    int per_octave = 8;

    if (objc < 3 || objc % 2 == 0) {
        Tcl_WrongNumArgs(interp, 2, objv, usage);
        return TCL_ERROR;
    }
    for (int i = 3; i < objc; i += 2) {
        int index;
        if (Tcl_GetIndexFromObjStruct(interp, objv[i], names, sizeof(char *), "option", 0,
                                      &index) != TCL_OK)
            return TCL_ERROR;
        o[index] = objv[i + 1];
    }
    if ((o[L_BUCKETS] && Tcl_GetIntFromObj(interp, o[L_BUCKETS], &per_octave) != TCL_OK) ||
        Resolve(s, interp, objv[2], o[L_PHASE], &tg) != TCL_OK)
        return TCL_ERROR;
    if (o[L_PROCEDURE] == NULL)
        return TableResult(
            interp,
            ips2_latency_table(tg.m, tg.n, o[L_SORT] ? Tcl_GetString(o[L_SORT]) : NULL, err), err,
            "latency");

    struct ips2_lat l;
    bool available;
    if (ips2_latency_of(tg.m, tg.n, Tcl_GetString(o[L_PROCEDURE]), &l, &available, err) < 0)
        return Failed(interp, err, "latency");
    struct ips2_table *t = ips2_latency_histogram(&l, (unsigned)per_octave, err);
    if (t == NULL) {
        ips2_lat_free(&l);
        return Failed(interp, err, "latency");
    }
    Tcl_Obj *d = Ips2TableObj(t);
    ips2_table_free(t);
    Ips2Put(d, "procedure", o[L_PROCEDURE]);
    Ips2Put(d, "available", Tcl_NewBooleanObj(available));
    const struct {
        const char *key;
        uint64_t v;
    } f[] = {{"count", l.count},
             {"mean", l.count ? (l.sum_ns + l.count / 2) / l.count : 0},
             {"p50", ips2_lat_percentile(&l, 0.50)},
             {"p90", ips2_lat_percentile(&l, 0.90)},
             {"p99", ips2_lat_percentile(&l, 0.99)},
             {"max", l.max_ns},
             {"total", l.sum_ns}};
    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
        Ips2Put(d, f[i].key, Tcl_NewWideIntObj((Tcl_WideInt)f[i].v));
    ips2_lat_free(&l);
    Tcl_SetObjResult(interp, d);
    return TCL_OK;
}

int Ips2GprofCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    static const char *const allowed[] = {"-format", "-phase", NULL};
    static const char *const formats[] = {"dict", "text", NULL};
    char err[IPS2_ERR_MAX];
    struct target tg;
    struct ips2_table *flat, *graph;
    Tcl_Obj *o[O_COUNT];
    int format = 0;

    if (NodeOptions(interp, objc, objv, "node ?-phase phase? ?-format dict|text?", allowed, o) !=
            TCL_OK ||
        (o[O_FORMAT] && Tcl_GetIndexFromObjStruct(interp, o[O_FORMAT], formats, sizeof(char *),
                                                  "format", 0, &format) != TCL_OK) ||
        Resolve(s, interp, objv[2], o[O_PHASE], &tg) != TCL_OK)
        return TCL_ERROR;
    if (ips2_gprof_tables(tg.m, tg.n, &flat, &graph, err) != 0)
        return Failed(interp, err, "gprof");
    if (format == 1) {
        struct ips2_clock_note note;
        char *clock = NULL, *text = NULL;
        if (ips2_clock_note(tg.m, tg.n, &note, err) == 0) {
            if (!ips2_clock_note_exact(&note))
                clock = ips2_clock_note_text(&note);
            if (ips2_clock_note_exact(&note) || clock != NULL)
                text = ips2_gprof_text(flat, graph, clock);
            free(clock);
            ips2_clock_note_free(&note);
        }
        if (text == NULL) {
            ips2_table_free(flat);
            ips2_table_free(graph);
            return Failed(interp, "out of memory", "gprof");
        }
        Tcl_SetObjResult(interp, Tcl_NewStringObj(text, -1));
        free(text);
    } else {
        Tcl_Obj *d = Tcl_NewDictObj();
        Ips2Put(d, "flat", Ips2TableObj(flat));
        Ips2Put(d, "graph", Ips2TableObj(graph));
        Tcl_SetObjResult(interp, d);
    }
    ips2_table_free(flat);
    ips2_table_free(graph);
    return TCL_OK;
}

int Ips2HistogramCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    static const char *const allowed[] = {"-metric", "-phase", "-width", NULL};
    char err[IPS2_ERR_MAX];
    struct target tg;
    struct ips2_table *t;
    struct ips2_hist h;
    Tcl_Obj *o[O_COUNT], *d;
    Tcl_WideInt width = 0;
    /* Nothing happens before the session's time 0, but a comparison-mode
     * run's grid, shifted to start with the others, begins a little before
     * its first process: its first bucket is cut at 0 (it holds only what
     * came after, as that process started there at the earliest). */
    int64_t from = 0, to = INT64_MAX;
    size_t missing;
    int metric;

    if (NodeOptions(interp, objc, objv, "node -metric metric ?-phase phase? ?-width ns?", allowed,
                    o) != TCL_OK ||
        GetMetric(interp, o[O_METRIC], &metric) != TCL_OK ||
        (o[O_WIDTH] && Tcl_GetWideIntFromObj(interp, o[O_WIDTH], &width) != TCL_OK) ||
        Resolve(s, interp, objv[2], o[O_PHASE], &tg) != TCL_OK)
        return TCL_ERROR;
    if (width < 0) {
        Tcl_SetObjResult(interp, Tcl_NewStringObj("-width must not be negative", -1));
        return TCL_ERROR;
    }
    if (ips2_node_histogram(tg.m, tg.n, metric, (uint64_t)width, &h, &missing, err) != 0)
        return Failed(interp, err, "histogram");
    if (tg.m->phase_view) {
        from = tg.m->phase_start_ns;
        to = tg.m->phase_end_ns;
    }
    t = ips2_histogram_table(&h, metric, from, to, err);
    if (t == NULL) {
        ips2_hist_free(&h);
        return Failed(interp, err, "histogram");
    }
    d = Ips2TableObj(t);
    Ips2Put(d, "width", Tcl_NewWideIntObj((Tcl_WideInt)h.width));
    Ips2Put(d, "origin", Tcl_NewWideIntObj(h.origin));
    Ips2Put(d, "missing", Tcl_NewWideIntObj((Tcl_WideInt)missing));
    Tcl_SetObjResult(interp, d);
    ips2_table_free(t);
    ips2_hist_free(&h);
    return TCL_OK;
}

/* ---------------------------------------------------------- metric list --- */

int Ips2MetricListCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    char err[IPS2_ERR_MAX];
    struct ips2_table *t = ips2_metric_list_table(err);

    (void)s;
    return TableResult(interp, t, err, "metric-list");
}

/* ---------------------------------------------------------- fact tables --- */

/* A table dict of the given columns ({NAME UNIT} each) and rows. */
static Tcl_Obj *TableDict(int ncols, const char *const (*cols)[2], Tcl_Obj *rows)
{
    Tcl_Obj *columns = Tcl_NewListObj(0, NULL), *d = Tcl_NewDictObj();

    for (int c = 0; c < ncols; c++) {
        Tcl_Obj *e[2] = {Ips2Str(cols[c][0]), Ips2Str(cols[c][1])};
        Tcl_ListObjAppendElement(NULL, columns, Tcl_NewListObj(2, e));
    }
    Ips2Put(d, "columns", columns);
    Ips2Put(d, "rows", rows);
    return d;
}

/* A command ({WORD ...}) as one line a shell reads back: its words joined
 * by spaces, a word that is empty or holds anything but letters, digits and
 * _@%+=:,./- in single quotes (a quote as '\''), as ips2::format::commandLine
 * writes it. */
static Tcl_Obj *CommandLine(Tcl_Obj *command)
{
    Tcl_Obj **words, *line;
    int n;

    if (Tcl_ListObjGetElements(NULL, command, &n, &words) != TCL_OK)
        return command;
    line = Tcl_NewObj();
    for (int i = 0; i < n; i++) {
        Tcl_Size len;
        const char *w = Tcl_GetStringFromObj(words[i], &len);
        int plain = len > 0;
        for (Tcl_Size k = 0; k < len && plain; k++)
            plain = isalnum((unsigned char)w[k]) || strchr("_@%+=:,./-", w[k]) != NULL;
        if (i)
            Tcl_AppendToObj(line, " ", 1);
        if (plain) {
            Tcl_AppendToObj(line, w, len);
            continue;
        }
        Tcl_AppendToObj(line, "'", 1);
        for (const char *q; (q = memchr(w, '\'', (size_t)len)) != NULL;
             len -= q + 1 - w, w = q + 1) {
            Tcl_AppendToObj(line, w, q - w);
            Tcl_AppendToObj(line, "'\\''", 4);
        }
        Tcl_AppendToObj(line, w, len);
        Tcl_AppendToObj(line, "'", 1);
    }
    return line;
}

static int ProcessesTable(Ips2Session *s, Tcl_Interp *interp, Tcl_Obj **table)
{
    static const char *const cols[][2] = {{"application", ""}, {"index", ""},  {"machine", ""},
                                          {"pid", ""},         {"status", ""}, {"cpu", "ns"},
                                          {"start", "ns"},     {"end", "ns"},  {"command", ""}};
    static const char *const keys[] = {"app", "index", "machine", "pid",    "status",
                                       "cpu", "start", "end",     "command"};
    Tcl_Obj *ps = Ips2ProcessesObj(s, interp), **p, *rows;
    int n;

    if (ps == NULL)
        return TCL_ERROR;
    Tcl_IncrRefCount(ps);
    Tcl_ListObjGetElements(NULL, ps, &n, &p);
    rows = Tcl_NewListObj(0, NULL);
    for (int i = 0; i < n; i++) {
        Tcl_Obj *row = Tcl_NewListObj(0, NULL);
        for (int c = 0; c < 9; c++) {
            Tcl_Obj *v = Ips2DictValue(p[i], keys[c]);
            if (v == NULL)
                v = Tcl_NewObj();
            else if (c == 8)
                v = CommandLine(v);
            Tcl_ListObjAppendElement(NULL, row, v);
        }
        Tcl_ListObjAppendElement(NULL, rows, row);
    }
    Tcl_DecrRefCount(ps);
    *table = TableDict(9, cols, rows);
    return TCL_OK;
}

/* cp-zero's answer as a table: one row, what would take no time and the
 * path's length before and after. */
static int ZeroingTable(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[],
                        Tcl_Obj **table)
{
    static const char *const cols[][2] = {
        {"what", ""}, {"length", "ns"}, {"new_length", "ns"}, {"saved", "ns"}, {"percent", "%"}};
    static const char *const keys[] = {"length", "new_length", "saved", "percent"};
    static const char *const kept[] = {"mode", "app", "warnings", "inclusive", "zeroed"};
    Tcl_Obj **words = (Tcl_Obj **)ckalloc((size_t)(objc - 1) * sizeof(Tcl_Obj *));
    Tcl_Obj *z, *row, *procedure, *v;
    int rc;

    /* $s table cp-zero ARG ... is asked as $s cp-zero ARG ... */
    words[0] = objv[0];
    for (int i = 2; i < objc; i++)
        words[i - 1] = objv[i];
    rc = Ips2CpaCmd(s, interp, objc - 1, words);
    ckfree(words);
    if (rc != TCL_OK)
        return rc;
    z = Tcl_GetObjResult(interp);
    Tcl_IncrRefCount(z);
    procedure = Ips2DictValue(z, "procedure");
    row = Tcl_NewListObj(0, NULL);
    v = Ips2DictValue(z, "inclusive");
    int inclusive = 0;
    if (v != NULL)
        Tcl_GetBooleanFromObj(NULL, v, &inclusive);
    if (procedure != NULL && Tcl_GetCharLength(procedure) > 0) {
        Tcl_ListObjAppendElement(
            NULL, row,
            Tcl_ObjPrintf(inclusive ? "procedure %s and what it calls" : "procedure %s",
                          Tcl_GetString(procedure)));
    } else {
        v = Ips2DictValue(z, "process");
        Tcl_ListObjAppendElement(NULL, row, Tcl_ObjPrintf("process %s", v ? Tcl_GetString(v) : ""));
    }
    for (int c = 0; c < 4; c++) {
        v = Ips2DictValue(z, keys[c]);
        Tcl_ListObjAppendElement(NULL, row, v ? v : Tcl_NewObj());
    }
    *table = TableDict(5, cols, Tcl_NewListObj(1, &row));
    for (size_t k = 0; k < sizeof kept / sizeof kept[0]; k++) {
        v = Ips2DictValue(z, kept[k]);
        Ips2Put(*table, kept[k], v ? v : Tcl_NewObj());
    }
    Tcl_DecrRefCount(z);
    Tcl_ResetResult(interp);
    return TCL_OK;
}

/* Keeps the columns named in names, in that order, of a table dict. */
static int KeepColumns(Tcl_Interp *interp, Tcl_Obj *table, Tcl_Obj *names)
{
    Tcl_Obj **want, **cols, **rows, *newcols, *newrows;
    int nwant, ncols, nrows, *at;

    if (Tcl_ListObjGetElements(interp, names, &nwant, &want) != TCL_OK)
        return TCL_ERROR;
    Tcl_ListObjGetElements(NULL, Ips2DictValue(table, "columns"), &ncols, &cols);
    Tcl_ListObjGetElements(NULL, Ips2DictValue(table, "rows"), &nrows, &rows);
    at = (int *)ckalloc((size_t)(nwant ? nwant : 1) * sizeof(int));
    newcols = Tcl_NewListObj(0, NULL);
    for (int w = 0; w < nwant; w++) {
        Tcl_Obj *name;
        at[w] = -1;
        for (int c = 0; c < ncols && at[w] < 0; c++)
            if (Tcl_ListObjIndex(NULL, cols[c], 0, &name) == TCL_OK && name &&
                strcmp(Tcl_GetString(name), Tcl_GetString(want[w])) == 0)
                at[w] = c;
        if (at[w] < 0) {
            Tcl_Obj *known = Tcl_NewListObj(0, NULL);
            for (int c = 0; c < ncols; c++)
                if (Tcl_ListObjIndex(NULL, cols[c], 0, &name) == TCL_OK && name)
                    Tcl_ListObjAppendElement(NULL, known, name);
            Tcl_SetObjResult(interp, Tcl_ObjPrintf("no column \"%s\": must be one of %s",
                                                   Tcl_GetString(want[w]), Tcl_GetString(known)));
            Tcl_DecrRefCount(known);
            Tcl_DecrRefCount(newcols);
            ckfree(at);
            return TCL_ERROR;
        }
        Tcl_ListObjAppendElement(NULL, newcols, cols[at[w]]);
    }
    newrows = Tcl_NewListObj(0, NULL);
    for (int r = 0; r < nrows; r++) {
        Tcl_Obj *row = Tcl_NewListObj(0, NULL), *cell;
        for (int w = 0; w < nwant; w++) {
            if (Tcl_ListObjIndex(NULL, rows[r], at[w], &cell) != TCL_OK || cell == NULL)
                cell = Tcl_NewObj();
            Tcl_ListObjAppendElement(NULL, row, cell);
        }
        Tcl_ListObjAppendElement(NULL, newrows, row);
    }
    ckfree(at);
    Ips2Put(table, "columns", newcols);
    Ips2Put(table, "rows", newrows);
    return TCL_OK;
}

int Ips2FactTableCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    static const char *const tables[] = {"processes", "phases", "problems", "cp-zero", NULL};
    enum { T_PROCESSES, T_PHASES, T_PROBLEMS, T_CP_ZERO };
    static const char *const phase_cols[][2] = {{"phase", ""}, {"start", "ns"}, {"end", "ns"}};
    static const char *const problem_cols[][2] = {{"problem", ""}};
    Tcl_Obj *table = NULL, *columns = NULL, *rows, **items;
    int which, n, rc = TCL_OK;

    if (FirstWord(interp, objc, objv, "processes|phases|problems|cp-zero ?arg ...?", tables,
                  "table", &which) != TCL_OK)
        return TCL_ERROR;
    /* -columns LIST, the last two words, applies to any of them */
    if (objc >= 5 && strcmp(Tcl_GetString(objv[objc - 2]), "-columns") == 0) {
        columns = objv[objc - 1];
        objc -= 2;
    }
    if (which != T_CP_ZERO && objc != 3) {
        Tcl_WrongNumArgs(interp, 3, objv, "?-columns names?");
        return TCL_ERROR;
    }
    switch (which) {
    case T_PROCESSES:
        rc = ProcessesTable(s, interp, &table);
        break;
    case T_PHASES:
        rows = Tcl_NewListObj(0, NULL);
        Tcl_ListObjGetElements(NULL, Ips2PhasesObj(s), &n, &items);
        for (int i = 0; i < n; i++)
            Tcl_ListObjAppendElement(NULL, rows, items[i]);
        table = TableDict(3, phase_cols, rows);
        break;
    case T_PROBLEMS:
        rows = Tcl_NewListObj(0, NULL);
        for (size_t i = 0; i < s->m->nproblems; i++)
            Tcl_ListObjAppendElement(NULL, rows,
                                     Tcl_NewListObj(1, (Tcl_Obj *[]){Ips2Str(s->m->problems[i])}));
        table = TableDict(1, problem_cols, rows);
        break;
    case T_CP_ZERO:
        rc = ZeroingTable(s, interp, objc, objv, &table);
        break;
    }
    if (rc != TCL_OK)
        return rc;
    Tcl_IncrRefCount(table);
    if (columns != NULL && KeepColumns(interp, table, columns) != TCL_OK) {
        Tcl_DecrRefCount(table);
        return TCL_ERROR;
    }
    Tcl_SetObjResult(interp, table);
    Tcl_DecrRefCount(table);
    return TCL_OK;
}

int Ips2ClockCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    static const char *const allowed[] = {"-phase", NULL};
    char err[IPS2_ERR_MAX], method[32];
    struct ips2_clock_note note;
    struct target tg;
    Tcl_Obj *o[O_COUNT], *path, *d, *list;
    int first = objc > 2 && Tcl_GetString(objv[2])[0] != '-' ? 3 : 2;

    if ((objc - first) % 2 != 0) {
        Tcl_WrongNumArgs(interp, 2, objv, "?node? ?-phase phase?");
        return TCL_ERROR;
    }
    path = first == 3 ? objv[2] : Tcl_NewStringObj("physical", -1);
    Tcl_IncrRefCount(path);
    int rc = ParseOptions(interp, objc, objv, first, allowed, o);
    if (rc == TCL_OK)
        rc = Resolve(s, interp, path, o[O_PHASE], &tg);
    Tcl_DecrRefCount(path);
    if (rc != TCL_OK)
        return rc;
    if (ips2_clock_note(tg.m, tg.n, &note, err) != 0)
        return Failed(interp, err, "clock");
    char *text = ips2_clock_note_text(&note);
    if (text == NULL) {
        ips2_clock_note_free(&note);
        return Failed(interp, "out of memory", "clock");
    }
    d = Tcl_NewDictObj();
    Ips2Put(d, "text", Tcl_NewStringObj(text, -1));
    free(text);
    Ips2Put(d, "exact", Tcl_NewBooleanObj(ips2_clock_note_exact(&note)));
    list = Tcl_NewListObj(0, NULL);
    for (size_t i = 0; i < note.nuses; i++) {
        const struct ips2_clock_use *u = &note.uses[i];
        Tcl_Obj *e = Tcl_NewDictObj();
        ips2_clock_method_text(u->method, u->param, method, sizeof(method));
        Ips2Put(e, "method", Tcl_NewStringObj(u->res_ns ? method : "", -1));
        Ips2Put(e, "resolution", Tcl_NewWideIntObj((Tcl_WideInt)u->res_ns));
        Ips2Put(e, "processes", Tcl_NewWideIntObj(u->processes));
        Tcl_ListObjAppendElement(NULL, list, e);
    }
    Ips2Put(d, "clocks", list);
    list = Tcl_NewListObj(0, NULL);
    for (size_t i = 0; i < note.nshorts; i++) {
        const struct ips2_clock_short *c = &note.shorts[i];
        Tcl_Obj *e = Tcl_NewDictObj();
        Ips2Put(e, "name", Tcl_NewStringObj(c->name, -1));
        Ips2Put(e, "mean", Tcl_NewWideIntObj((Tcl_WideInt)c->mean_ns));
        Ips2Put(e, "calls", Tcl_NewWideIntObj((Tcl_WideInt)c->calls));
        Ips2Put(e, "resolution", Tcl_NewWideIntObj((Tcl_WideInt)c->res_ns));
        Tcl_ListObjAppendElement(NULL, list, e);
    }
    Ips2Put(d, "short", list);
    ips2_clock_note_free(&note);
    Tcl_SetObjResult(interp, d);
    return TCL_OK;
}
