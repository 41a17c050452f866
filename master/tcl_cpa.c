/*
 * tcl_cpa.c - the critical-path subcommands of a session object and
 * ips2::cpa (ANALYSTS.md §6):
 *
 *   $s cp ?NODE? ?-mode intra|inter|global? ?-app A? ?-level L? ?-by node|name? ?-phase P?
 *         ?-pvm HOW?
 *   $s cp-zero ?-mode M? ?-app A? (-procedure F | -process PATH) ?-pvm HOW?
 *   $s cp-path ?-mode M? ?-app A? ?-phase P? ?-pvm HOW?
 *   $s cp-imbalance ?NODE? ?-mode M? ?-app A? ?-phase P? ?-pvm HOW?
 *   $s timeline ?NODE? -from T0 -to T1 ?-limit N?
 *   ips2::cpa FILES ?-mode M? ?-app A? ?-pvm none|private? ?-zero-procedure F? ?-done CMD?
 *
 * The parts are the session's part files, SESSION/pag/MACHINE*.pag.  Where a query runs
 * (-pvm): auto (the default) runs it on PVM slaves when the session is a
 * live one (ips2::run's, still connected to its VM), else in this process;
 * private runs it on PVM slaves (in the VM this process is connected to,
 * or in a private one started for the session); none runs it here.  The
 * slaves or the parts stay with the session until it is closed; paths are
 * kept per (mode, application, zeroing) and every table is made from them
 * (cpa/ips2_cpa.h profiles, from the parts' metadata only).
 */
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpa.h"
#include "ips2_reader.h" /* ips2_kind_name */
#include "slave_path.h"
#include "tcl_cpa.h"
#include "tcl_run.h" /* Ips2RunSlaves */
#include "tcl_util.h"

#define ERR_LEN 1024

struct cached_path {
    char *key;
    struct ips2_cpa_path path;
};

struct Ips2Cpa {
    struct cpa_set *set;
    bool distributed;
    struct cpa_set *local; /* parts with nodes, for timeline (set itself when in-process) */
    struct cached_path *paths;
    size_t npaths;
};

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

static void DropPaths(struct Ips2Cpa *c)
{
    for (size_t i = 0; i < c->npaths; i++) {
        free(c->paths[i].key);
        ips2_cpa_path_free(&c->paths[i].path);
    }
    free(c->paths);
    c->paths = NULL;
    c->npaths = 0;
}

void Ips2CpaFree(Ips2Session *s)
{
    struct Ips2Cpa *c = s->cpa;
    if (c == NULL)
        return;
    DropPaths(c);
    if (c->local != c->set)
        cpa_set_free(c->local);
    cpa_set_free(c->set);
    free(c);
    s->cpa = NULL;
}

/* --- the parts ----------------------------------------------------------- */

/* The session's part files (pag/ *.pag), sorted; the host of each file's machine (the
 * longest machine name that is the file's stem or its stem's prefix
 * before a dot). */
static int PartFiles(struct ips2_model *m, glob_t *g, char ***hosts, char *err, size_t errlen)
{
    char pattern[PATH_MAX];
    snprintf(pattern, sizeof pattern, "%s/pag/*.pag", m->dir ? m->dir : ".");
    memset(g, 0, sizeof *g);
    if (glob(pattern, 0, NULL, g) != 0 || g->gl_pathc == 0) {
        globfree(g);
        snprintf(err, errlen,
                 "%s/pag: no PAG parts (*.pag): the session was reduced without them, so it "
                 "has no critical path",
                 m->dir ? m->dir : ".");
        return -1;
    }
    *hosts = calloc(g->gl_pathc, sizeof **hosts);
    if (*hosts == NULL) {
        globfree(g);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < g->gl_pathc; i++) {
        const char *base = strrchr(g->gl_pathv[i], '/');
        base = base ? base + 1 : g->gl_pathv[i];
        size_t best = 0;
        for (size_t k = 0; k < m->nmachines; k++) {
            size_t n = strlen(m->machines[k].name);
            if (n > best && strncmp(base, m->machines[k].name, n) == 0 &&
                (base[n] == '.' || base[n] == '\0')) {
                best = n;
                (*hosts)[i] = m->machines[k].host;
            }
        }
    }
    return 0;
}

/* Session directory names compared as real paths. */
static bool SameDir(const char *a, const char *b)
{
    char ra[PATH_MAX], rb[PATH_MAX];
    if (a == NULL || b == NULL || a[0] == '\0' || b[0] == '\0')
        return false;
    if (realpath(a, ra) == NULL)
        snprintf(ra, sizeof ra, "%s", a);
    if (realpath(b, rb) == NULL)
        snprintf(rb, sizeof rb, "%s", b);
    return strcmp(ra, rb) == 0;
}

/* cpa_view_fn for a session's parts (cpa.h): SESSION/pag/MACHINE.pag is
 * the active run's, as it is.  MACHINE.REST.pag is a replayed directory's
 * (REST: the replay's -prefix, or replayK): its applications are the
 * session's applications replayed from the part's session (its
 * trace_dir's grandparent) named REST+NAME (a prefix) or NAME; in
 * comparison mode they are shifted by their shift.  Applications of the
 * part the session did not replay are renamed "(not replayed) NAME", so
 * that they never pass for an active one.  One group per replay. */
static int PartView(void *arg, const char *file, const struct ips2_pag *pag, struct cpa_view *v,
                    char *err, size_t errlen)
{
    struct ips2_model *m = arg;
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    size_t mlen = pag->machine ? strlen(pag->machine) : 0;
    memset(v, 0, sizeof *v);
    if (mlen == 0 || strncmp(base, pag->machine, mlen) != 0 || base[mlen] != '.' ||
        strcmp(base + mlen, ".pag") == 0)
        return 0; /* the active run's part */
    char rest[256], source[PATH_MAX] = "";
    size_t rlen = strlen(base + mlen + 1);
    snprintf(rest, sizeof rest, "%.*s", rlen > 4 ? (int)(rlen - 4) : 0, base + mlen + 1);
    if (pag->trace_dir != NULL) { /* SOURCE/traces/MACHINE -> SOURCE */
        snprintf(source, sizeof source, "%s", pag->trace_dir);
        for (int up = 0; up < 2; up++) {
            size_t n = strlen(source);
            while (n > 1 && source[n - 1] == '/')
                source[--n] = '\0';
            char *slash = strrchr(source, '/');
            if (slash == NULL) {
                source[0] = '\0';
                break;
            }
            *slash = '\0';
        }
    }
    v->from = calloc(pag->napps ? pag->napps : 1, sizeof *v->from);
    v->to = calloc(pag->napps ? pag->napps : 1, sizeof *v->to);
    if (v->from == NULL || v->to == NULL) {
        cpa_view_free(v);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    const char *group = NULL;
    for (size_t a = 0; a < pag->napps; a++) {
        if (pag->apps[a] >= pag->nstrings)
            continue;
        const char *name = pag->strings[pag->apps[a]];
        int found = -1;
        for (size_t i = 0; i < m->napps && found < 0; i++) {
            const struct ips2_app_info *ai = &m->apps[i];
            size_t rl = strlen(rest);
            if (ai->source == NULL || ai->source[0] == '\0')
                continue;
            if ((strncmp(ai->name, rest, rl) == 0 && strcmp(ai->name + rl, name) == 0) ||
                (strcmp(ai->name, name) == 0 && SameDir(ai->source, source)))
                found = (int)i;
        }
        if (found >= 0) {
            v->shift = ips2_model_shift_of(m, found);
            group = m->apps[found].source;
        }
        v->from[v->nrename] = strdup(name);
        if (found >= 0)
            v->to[v->nrename] = strdup(m->apps[found].name);
        else if (asprintf(&v->to[v->nrename], "(not replayed) %s", name) < 0)
            v->to[v->nrename] = NULL;
        v->nrename++;
        if (v->from[v->nrename - 1] == NULL || v->to[v->nrename - 1] == NULL) {
            cpa_view_free(v);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    if (asprintf(&v->group, "%s|%s", group ? group : source, rest) < 0) {
        v->group = NULL;
        cpa_view_free(v);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

enum pvm_how { PVM_AUTO, PVM_PRIVATE, PVM_NONE };

static int OpenSet(Ips2Session *s, enum pvm_how how, char *err, size_t errlen)
{
    struct Ips2Cpa *c = s->cpa;
    if (c == NULL) {
        c = s->cpa = calloc(1, sizeof *c);
        if (c == NULL) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    int live = 0; /* the session's run has its slaves: they answer */
    struct ips2_slaves *slaves = Ips2RunSlaves(s->interp, s->m, &live);
    bool distributed = how == PVM_PRIVATE || (how == PVM_AUTO && live);
    if (c->set != NULL && c->distributed == distributed && !cpa_set_stale(c->set))
        return 0;
    DropPaths(c);
    if (c->local != c->set)
        cpa_set_free(c->local);
    cpa_set_free(c->set);
    c->set = c->local = NULL;
    glob_t g;
    char **hosts = NULL;
    if (PartFiles(s->m, &g, &hosts, err, errlen) != 0)
        return -1;
    int rc;
    if (distributed) {
        char slave[PATH_MAX];
        ips2_slave_path(slave, sizeof slave);
        rc = cpa_pvm_open(g.gl_pathv, g.gl_pathc, s->m->machines, s->m->nmachines, slaves, live,
                          slave, PartView, s->m, &c->set, err, errlen);
    } else {
        rc = cpa_local_open(g.gl_pathv, g.gl_pathc, PartView, s->m, &c->set, err, errlen);
        c->local = c->set;
    }
    c->distributed = distributed;
    free(hosts);
    globfree(&g);
    return rc;
}

/* The parts with their nodes, for timeline. */
static struct cpa_set *LocalSet(Ips2Session *s, char *err, size_t errlen)
{
    struct Ips2Cpa *c = s->cpa;
    if (c == NULL && OpenSet(s, PVM_NONE, err, errlen) != 0)
        return NULL;
    c = s->cpa;
    if (c->local != NULL)
        return c->local;
    glob_t g;
    char **hosts = NULL;
    if (PartFiles(s->m, &g, &hosts, err, errlen) != 0)
        return NULL;
    int rc = cpa_local_open(g.gl_pathv, g.gl_pathc, PartView, s->m, &c->local, err, errlen);
    free(hosts);
    globfree(&g);
    return rc == 0 ? c->local : NULL;
}

/* --- options --------------------------------------------------------------- */

struct cp_args {
    const char *node;
    enum ips2_cpa_mode mode;
    const char *app;
    enum ips2_cpa_level level;
    const char *phase;
    enum pvm_how pvm;
    const char *procedure, *process; /* cp-zero */
    bool by_node;                    /* cp -level procedure -by node */
    int64_t from, to, limit;         /* timeline */
    bool has_from, has_to;
};

/* Parses objv[2..] for sub (its allowed options in `allowed`). */
static int ParseArgs(Tcl_Interp *interp, int objc, Tcl_Obj *const objv[], const char *allowed,
                     struct cp_args *a)
{
    memset(a, 0, sizeof *a);
    a->mode = IPS2_CPA_GLOBAL;
    a->level = IPS2_CPA_LEVEL_PROCESS;
    a->limit = 20000;
    bool mode_given = false;
    int i = 2;
    if (i < objc && Tcl_GetString(objv[i])[0] != '-' && strstr(allowed, "NODE") != NULL)
        a->node = Tcl_GetString(objv[i++]);
    for (; i < objc; i += 2) {
        const char *opt = Tcl_GetString(objv[i]);
        char pat[64];
        snprintf(pat, sizeof pat, " %s ", opt);
        if (opt[0] != '-' || strstr(allowed, pat) == NULL) {
            Tcl_SetObjResult(interp, Tcl_ObjPrintf("bad option \"%s\": expected one of%s", opt,
                                                   strchr(allowed, '-') - 1));
            Tcl_SetErrorCode(interp, "IPS2", "CP", "USAGE", NULL);
            return TCL_ERROR;
        }
        if (i + 1 >= objc)
            return Error(interp, "USAGE", "%s needs a value", opt);
        const char *v = Tcl_GetString(objv[i + 1]);
        Tcl_WideInt w = 0;
        if (strcmp(opt, "-mode") == 0) {
            if (ips2_cpa_mode_parse(v, &a->mode) != 0)
                return Error(interp, "USAGE", "bad mode \"%s\": expected intra, inter or global",
                             v);
            mode_given = true;
        } else if (strcmp(opt, "-app") == 0) {
            a->app = v;
        } else if (strcmp(opt, "-level") == 0) {
            if (ips2_cpa_level_parse(v, &a->level) != 0)
                return Error(interp, "USAGE",
                             "bad level \"%s\": expected machine, process, thread or procedure", v);
        } else if (strcmp(opt, "-phase") == 0) {
            a->phase = v[0] ? v : NULL;
        } else if (strcmp(opt, "-pvm") == 0) {
            if (strcmp(v, "auto") == 0)
                a->pvm = PVM_AUTO;
            else if (strcmp(v, "private") == 0)
                a->pvm = PVM_PRIVATE;
            else if (strcmp(v, "none") == 0)
                a->pvm = PVM_NONE;
            else
                return Error(interp, "USAGE", "bad -pvm \"%s\": expected auto, private or none", v);
        } else if (strcmp(opt, "-by") == 0) {
            if (strcmp(v, "node") != 0 && strcmp(v, "name") != 0)
                return Error(interp, "USAGE", "bad -by \"%s\": expected node or name", v);
            a->by_node = strcmp(v, "node") == 0;
        } else if (strcmp(opt, "-procedure") == 0) {
            a->procedure = v;
        } else if (strcmp(opt, "-process") == 0) {
            a->process = v;
        } else if (strcmp(opt, "-from") == 0 || strcmp(opt, "-to") == 0 ||
                   strcmp(opt, "-limit") == 0) {
            if (Tcl_GetWideIntFromObj(interp, objv[i + 1], &w) != TCL_OK)
                return TCL_ERROR;
            if (opt[1] == 'f') {
                a->from = w;
                a->has_from = true;
            } else if (opt[1] == 't') {
                a->to = w;
                a->has_to = true;
            } else {
                a->limit = w > 0 ? w : 1;
            }
        }
    }
    if (!mode_given && a->app != NULL)
        a->mode = IPS2_CPA_INTER;
    return TCL_OK;
}

/* The node path's parts: app:A machine:M process:PID[@APP] thread:TID
 * procedure:NAME ("physical" or none: no filter).  Strings point into
 * buf. */
static int ParseNode(Tcl_Interp *interp, const char *node, char *buf, size_t len,
                     struct ips2_cpa_filter *f)
{
    memset(f, 0, sizeof *f);
    if (node == NULL || node[0] == '\0' || strcmp(node, "physical") == 0)
        return TCL_OK;
    snprintf(buf, len, "%s", node);
    char *save = NULL;
    for (char *part = strtok_r(buf, "/", &save); part != NULL; part = strtok_r(NULL, "/", &save)) {
        char *colon = strchr(part, ':');
        if (colon == NULL)
            return Error(interp, "NODE",
                         "bad node \"%s\": expected a path like app:A/machine:M/process:PID", node);
        *colon = '\0';
        char *v = colon + 1;
        if (strcmp(part, "app") == 0) {
            f->app = v;
        } else if (strcmp(part, "machine") == 0) {
            f->machine = v;
        } else if (strcmp(part, "process") == 0) {
            char *at = strchr(v, '@');
            if (at != NULL) {
                *at = '\0';
                f->app = at + 1;
            }
            f->has_pid = 1;
            f->pid = (int32_t)strtol(v, NULL, 10);
        } else if (strcmp(part, "thread") == 0) {
            f->has_tid = 1;
            f->tid = (int32_t)strtol(v, NULL, 10);
        } else if (strcmp(part, "procedure") == 0) {
            f->procedure = v;
        } else {
            return Error(interp, "NODE",
                         "bad node \"%s\": expected app:, machine:, process:, thread: or "
                         "procedure: parts",
                         node);
        }
    }
    return TCL_OK;
}

/* The application of an intra or inter query: -app, the node's, or the
 * session's only one. */
static int QueryApp(Ips2Session *s, Tcl_Interp *interp, struct cp_args *a,
                    const struct ips2_cpa_filter *f)
{
    if (a->mode == IPS2_CPA_GLOBAL) {
        a->app = NULL;
        return TCL_OK;
    }
    if (a->app == NULL && f != NULL && f->app != NULL)
        a->app = f->app;
    if (a->app == NULL && s->m->napps == 1)
        a->app = s->m->apps[0].name;
    if (a->app == NULL)
        return Error(interp, "USAGE", "mode %s needs -app (an application of the session)",
                     ips2_cpa_mode_name(a->mode));
    for (size_t i = 0; i < s->m->napps; i++)
        if (strcmp(s->m->apps[i].name, a->app) == 0)
            return TCL_OK;
    return Error(interp, "APP", "no application \"%s\" in the session", a->app);
}

/* The phase's [t0, t1), or the whole run (IPS2_CPA_RUN_START, _END). */
static int PhaseBounds(Ips2Session *s, Tcl_Interp *interp, const char *phase, int64_t *t0,
                       int64_t *t1)
{
    *t0 = IPS2_CPA_RUN_START;
    *t1 = IPS2_CPA_RUN_END;
    if (phase == NULL)
        return TCL_OK;
    for (size_t i = 0; i < s->m->nphases; i++)
        if (strcmp(s->m->phases[i].name, phase) == 0) {
            *t0 = s->m->phases[i].start_ns;
            *t1 = s->m->phases[i].end_ns;
            return TCL_OK;
        }
    return Error(interp, "PHASE", "no phase \"%s\" (define it with $session phase)", phase);
}

/* --- running and caching queries ---------------------------------------- */

static const struct ips2_cpa_path *Path(Ips2Session *s, Tcl_Interp *interp, enum pvm_how how,
                                        const struct ips2_cpa_query *q)
{
    char err[ERR_LEN] = "";
    if (OpenSet(s, how, err, sizeof err) != 0) {
        Error(interp, "PARTS", "%s", err);
        return NULL;
    }
    struct Ips2Cpa *c = s->cpa;
    char key[1024];
    snprintf(key, sizeof key, "%d|%s|%s|%d|%u|%d|%s", (int)q->mode, q->app ? q->app : "",
             q->zero_procedure ? q->zero_procedure : "", q->zero_process, q->zero_part,
             (int)q->zero_pid, q->zero_app ? q->zero_app : "");
    for (size_t i = 0; i < c->npaths; i++)
        if (strcmp(c->paths[i].key, key) == 0)
            return &c->paths[i].path;
    struct cached_path *v = realloc(c->paths, (c->npaths + 1) * sizeof *v);
    if (v == NULL) {
        Error(interp, "MEMORY", "%s", "out of memory");
        return NULL;
    }
    c->paths = v;
    struct cached_path *cp = &c->paths[c->npaths];
    ips2_cpa_path_init(&cp->path);
    if (cpa_set_run(c->set, q, &cp->path, err, sizeof err) != 0) {
        ips2_cpa_path_free(&cp->path);
        Error(interp, "QUERY", "%s", err);
        return NULL;
    }
    cp->key = strdup(key);
    if (cp->key == NULL) {
        ips2_cpa_path_free(&cp->path);
        Error(interp, "MEMORY", "%s", "out of memory");
        return NULL;
    }
    c->npaths++;
    return &cp->path;
}

/* What cp, cp-path and cp-imbalance begin with: the options, the node's
 * filter (its strings point into nodebuf), the query's application, the
 * phase's bounds, the query's path and the set that answered it. */
struct cp_query {
    struct cp_args a;
    struct ips2_cpa_filter f;
    char nodebuf[1024];
    int64_t t0, t1;
    struct ips2_cpa_query q;
    const struct ips2_cpa_path *path;
    struct cpa_set *set;
};

static int Prologue(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[],
                    const char *allowed, struct cp_query *c)
{
    memset(c, 0, sizeof *c);
    if (ParseArgs(interp, objc, objv, allowed, &c->a) != TCL_OK ||
        ParseNode(interp, c->a.node, c->nodebuf, sizeof c->nodebuf, &c->f) != TCL_OK ||
        QueryApp(s, interp, &c->a, &c->f) != TCL_OK ||
        PhaseBounds(s, interp, c->a.phase, &c->t0, &c->t1) != TCL_OK)
        return TCL_ERROR;
    c->f.by_node = c->a.by_node && c->a.level == IPS2_CPA_LEVEL_PROCEDURE;
    c->q = (struct ips2_cpa_query){.mode = c->a.mode, .app = c->a.app};
    if ((c->path = Path(s, interp, c->a.pvm, &c->q)) == NULL)
        return TCL_ERROR;
    c->set = ((struct Ips2Cpa *)s->cpa)->set;
    return TCL_OK;
}

/* --- names of the parts' things ------------------------------------------ */

static const char *MetaString(const struct ips2_cpa_meta *m, uint32_t i)
{
    return i < m->nstrings ? m->strings[i] : "?";
}

/* app:A/machine:M/process:PID(/thread:TID) of a part's thread. */
static Tcl_Obj *ThreadPath(struct cpa_set *set, uint32_t part, uint32_t thread, bool with_thread)
{
    if (part >= set->n || set->metas[part] == NULL || thread >= set->metas[part]->nthreads)
        return Ips2Str("");
    const struct ips2_cpa_meta *m = set->metas[part];
    const struct ips2_pag_thread *t = &m->threads[thread];
    if (t->process >= m->nprocesses)
        return Ips2Str("");
    const struct ips2_pag_process *p = &m->processes[t->process];
    const char *app = p->app < m->napps ? MetaString(m, m->apps[p->app]) : "?";
    if (with_thread)
        return Tcl_ObjPrintf("app:%s/machine:%s/process:%d/thread:%d", app, m->machine, (int)p->pid,
                             (int)t->tid);
    return Tcl_ObjPrintf("app:%s/machine:%s/process:%d", app, m->machine, (int)p->pid);
}

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

static Tcl_Obj *Warnings(struct Ips2Cpa *c, const struct ips2_cpa_path *p)
{
    Tcl_Obj *w = Tcl_NewListObj(0, NULL);
    for (size_t i = 0; i < c->set->nwarnings; i++)
        Tcl_ListObjAppendElement(NULL, w, Ips2Str(c->set->warnings[i]));
    for (size_t i = 0; p != NULL && i < p->nwarnings; i++)
        Tcl_ListObjAppendElement(NULL, w, Ips2Str(p->warnings[i]));
    return w;
}

static Tcl_Obj *Percent(double v)
{
    return Tcl_NewDoubleObj((double)(int64_t)(v * 100.0 + (v >= 0 ? 0.5 : -0.5)) / 100.0);
}

/* --- $s cp -------------------------------------------------------------- */

static int CpCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    struct cp_query c;
    char err[ERR_LEN] = "";
    if (Prologue(s, interp, objc, objv, "NODE -mode -app -level -by -phase -pvm ", &c) != TCL_OK)
        return TCL_ERROR;
    const struct cp_args *a = &c.a;
    struct cpa_set *set = c.set;
    struct ips2_cpa_profile prof;
    memset(&prof, 0, sizeof prof);
    if (ips2_cpa_profile(c.path, set->metas, set->n, &c.q, a->level, &c.f, c.t0, c.t1, &prof, err,
                         sizeof err) != 0)
        return Error(interp, "PROFILE", "%s", err);
    static const char *const cols[] = {"name", "", "path", "", "time", "ns", "percent", "%", NULL};
    Tcl_Obj *rows = Tcl_NewListObj(0, NULL);
    for (size_t i = 0; i < prof.n; i++) {
        const struct ips2_cpa_entry *e = &prof.entries[i];
        Tcl_Obj *row = Tcl_NewListObj(0, NULL), *p;
        if (e->kind != IPS2_CPA_ENTRY_WORK)
            p = Ips2Str("");
        else if (a->level == IPS2_CPA_LEVEL_MACHINE)
            p = Tcl_ObjPrintf("machine:%s", e->part < set->n ? set->metas[e->part]->machine : "?");
        else if (a->level == IPS2_CPA_LEVEL_PROCESS)
            p = ThreadPath(set, e->part, e->thread, false);
        else if (a->level == IPS2_CPA_LEVEL_THREAD)
            p = ThreadPath(set, e->part, e->thread, true);
        else
            p = Tcl_ObjPrintf("%s/procedure:%s",
                              Tcl_GetString(ThreadPath(set, e->part, e->thread, true)), e->name);
        Tcl_ListObjAppendElement(NULL, row, Ips2Str(e->name));
        Tcl_ListObjAppendElement(NULL, row, p);
        Tcl_ListObjAppendElement(NULL, row, Wide(e->ns));
        Tcl_ListObjAppendElement(NULL, row, Percent(e->percent));
        Tcl_ListObjAppendElement(NULL, rows, row);
    }
    Tcl_Obj *d = Tcl_NewDictObj();
    Ips2Put(d, "columns", Columns(cols));
    Ips2Put(d, "rows", rows);
    Ips2Put(d, "length", Wide(prof.length));
    Ips2Put(d, "elapsed", Wide(prof.elapsed));
    Ips2Put(d, "ratio", Tcl_NewDoubleObj(prof.ratio));
    Ips2Put(d, "begin", Wide(prof.begin));
    Ips2Put(d, "end", Wide(prof.end));
    Ips2Put(d, "mode", Ips2Str(ips2_cpa_mode_name(a->mode)));
    Ips2Put(d, "app", Ips2Str(a->app));
    static const char *const levels[] = {"machine", "process", "thread", "procedure"};
    Ips2Put(d, "level", Ips2Str(levels[a->level <= IPS2_CPA_LEVEL_PROCEDURE ? a->level : 0]));
    Ips2Put(d, "by", Ips2Str(c.f.by_node ? "node" : "name"));
    Ips2Put(d, "via", Ips2Str(((struct Ips2Cpa *)s->cpa)->distributed ? "pvm" : "local"));
    Ips2Put(d, "warnings", Warnings(s->cpa, c.path));
    ips2_cpa_profile_free(&prof);
    Tcl_SetObjResult(interp, d);
    return TCL_OK;
}

/* --- $s cp-zero ------------------------------------------------------------- */

static int ZeroCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    struct cp_args a;
    struct ips2_cpa_filter f;
    char nodebuf[1024], err[ERR_LEN] = "";
    if (ParseArgs(interp, objc, objv, " -mode -app -procedure -process -pvm ", &a) != TCL_OK ||
        QueryApp(s, interp, &a, NULL) != TCL_OK)
        return TCL_ERROR;
    if ((a.procedure == NULL) == (a.process == NULL))
        return Error(interp, "USAGE", "%s", "cp-zero needs -procedure NAME or -process PATH");
    struct ips2_cpa_query base = {.mode = a.mode, .app = a.app};
    struct ips2_cpa_query zq = base;
    if (OpenSet(s, a.pvm, err, sizeof err) != 0)
        return Error(interp, "PARTS", "%s", err);
    struct cpa_set *set = ((struct Ips2Cpa *)s->cpa)->set;
    if (a.procedure != NULL) {
        zq.zero_procedure = a.procedure;
    } else {
        if (ParseNode(interp, a.process, nodebuf, sizeof nodebuf, &f) != TCL_OK)
            return TCL_ERROR;
        if (!f.has_pid)
            return Error(interp, "USAGE", "bad -process \"%s\": expected a process's path",
                         a.process);
        bool found = false;
        for (size_t k = 0; k < set->n && !found; k++) {
            const struct ips2_cpa_meta *m = set->metas[k];
            if (f.machine != NULL && strcmp(m->machine, f.machine) != 0)
                continue;
            for (size_t p = 0; p < m->nprocesses && !found; p++) {
                const char *app = m->processes[p].app < m->napps
                                      ? MetaString(m, m->apps[m->processes[p].app])
                                      : "";
                if (m->processes[p].pid == f.pid && (f.app == NULL || strcmp(app, f.app) == 0)) {
                    found = true;
                    zq.zero_process = 1;
                    zq.zero_part = (uint32_t)k;
                    zq.zero_pid = f.pid;
                    zq.zero_app = f.app;
                }
            }
        }
        if (!found)
            return Error(interp, "NODE", "no process \"%s\" in the session's PAG", a.process);
    }
    const struct ips2_cpa_path *p0 = Path(s, interp, a.pvm, &base);
    if (p0 == NULL)
        return TCL_ERROR;
    int64_t length = p0->length;
    const struct ips2_cpa_path *p1 = Path(s, interp, a.pvm, &zq);
    if (p1 == NULL)
        return TCL_ERROR;
    Tcl_Obj *d = Tcl_NewDictObj();
    Ips2Put(d, "length", Wide(length));
    Ips2Put(d, "new_length", Wide(p1->length));
    Ips2Put(d, "saved", Wide(length - p1->length));
    Ips2Put(d, "percent",
            Percent(length > 0 ? 100.0 * (double)(length - p1->length) / (double)length : 0.0));
    Ips2Put(d, "mode", Ips2Str(ips2_cpa_mode_name(a.mode)));
    Ips2Put(d, "app", Ips2Str(a.app));
    Ips2Put(d, "procedure", Ips2Str(a.procedure));
    Ips2Put(d, "process", Ips2Str(a.process));
    Ips2Put(d, "warnings", Warnings(s->cpa, p1));
    Tcl_SetObjResult(interp, d);
    return TCL_OK;
}

/* --- $s cp-path ------------------------------------------------------------ */

static int PathCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    struct cp_query c;
    if (Prologue(s, interp, objc, objv, " -mode -app -phase -pvm ", &c) != TCL_OK)
        return TCL_ERROR;
    const struct ips2_cpa_path *path = c.path;
    struct cpa_set *set = c.set;
    int64_t t0 = c.t0, t1 = c.t1;
    static const char *const cols[] = {"kind", "",       "thread", "",     "from", "ns", "to",
                                       "ns",   "length", "ns",     "what", "",     NULL};
    Tcl_Obj *rows = Tcl_NewListObj(0, NULL);
    for (size_t i = 0; i < path->nsegs; i++) {
        const struct ips2_cpa_segment *g = &path->segs[i];
        if (c.a.phase != NULL && (t1 <= t0 || g->end < t0 || g->begin >= t1))
            continue;
        Tcl_Obj *row = Tcl_NewListObj(0, NULL), *what = Tcl_NewListObj(0, NULL);
        if (g->kind == IPS2_CPA_SEG_CPU) {
            const struct ips2_cpa_meta *m = g->dst_part < set->n ? set->metas[g->dst_part] : NULL;
            for (uint32_t k = 0; m != NULL && k < g->nshares; k++) {
                if (g->first_share + k >= path->nshares)
                    break;
                const struct ips2_cpa_share *sh = &path->shares[g->first_share + k];
                Tcl_ListObjAppendElement(
                    NULL, what,
                    Ips2Str(sh->proc == IPS2_PAG_NONE ? "(none)" : MetaString(m, sh->proc)));
            }
        } else {
            Tcl_DecrRefCount(what);
            what = ThreadPath(set, g->src_part, g->src_thread, true);
        }
        Tcl_ListObjAppendElement(NULL, row, Ips2Str(ips2_cpa_seg_kind_name(g->kind)));
        Tcl_ListObjAppendElement(NULL, row, ThreadPath(set, g->dst_part, g->dst_thread, true));
        /* a source that ended after its destination: shown as starting at
         * the end (as the slaves send such an arc, slave_cpa.c) */
        Tcl_ListObjAppendElement(NULL, row, Wide(g->begin < g->end ? g->begin : g->end));
        Tcl_ListObjAppendElement(NULL, row, Wide(g->end));
        Tcl_ListObjAppendElement(NULL, row, Wide(g->length));
        Tcl_ListObjAppendElement(NULL, row, what); /* procedures, or the source thread */
        Tcl_ListObjAppendElement(NULL, rows, row);
    }
    Tcl_Obj *d = Tcl_NewDictObj();
    Ips2Put(d, "columns", Columns(cols));
    Ips2Put(d, "rows", rows);
    Ips2Put(d, "length", Wide(path->length));
    Ips2Put(d, "mode", Ips2Str(ips2_cpa_mode_name(c.a.mode)));
    Ips2Put(d, "app", Ips2Str(c.a.app));
    Ips2Put(d, "warnings", Warnings(s->cpa, path));
    Tcl_SetObjResult(interp, d);
    return TCL_OK;
}

/* --- $s cp-imbalance -------------------------------------------------------- */

static int ImbalanceCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    struct cp_query c;
    char err[ERR_LEN] = "";
    if (Prologue(s, interp, objc, objv, "NODE -mode -app -phase -pvm ", &c) != TCL_OK)
        return TCL_ERROR;
    struct cpa_set *set = c.set;
    struct ips2_cpa_imbalance *v = NULL;
    size_t n = 0;
    if (ips2_cpa_imbalance(c.path, set->metas, set->n, &c.q, &c.f, c.t0, c.t1, &v, &n, err,
                           sizeof err) != 0)
        return Error(interp, "PROFILE", "%s", err);
    static const char *const cols[] = {"name",      "",   "cp_time", "ns", "avg_time", "ns",
                                       "imbalance", "ns", "percent", "%",  NULL};
    Tcl_Obj *rows = Tcl_NewListObj(0, NULL);
    for (size_t i = 0; i < n; i++) {
        Tcl_Obj *row = Tcl_NewListObj(0, NULL);
        Tcl_ListObjAppendElement(NULL, row, Ips2Str(v[i].proc));
        Tcl_ListObjAppendElement(NULL, row, Wide(v[i].cp));
        Tcl_ListObjAppendElement(NULL, row, Wide(v[i].avg));
        Tcl_ListObjAppendElement(NULL, row, Wide(v[i].imbalance));
        Tcl_ListObjAppendElement(NULL, row, Percent(v[i].percent));
        Tcl_ListObjAppendElement(NULL, rows, row);
    }
    ips2_cpa_imbalance_free(v, n);
    Tcl_Obj *d = Tcl_NewDictObj();
    Ips2Put(d, "columns", Columns(cols));
    Ips2Put(d, "rows", rows);
    Ips2Put(d, "length", Wide(c.path->length));
    Ips2Put(d, "mode", Ips2Str(ips2_cpa_mode_name(c.a.mode)));
    Ips2Put(d, "app", Ips2Str(c.a.app));
    Ips2Put(d, "warnings", Warnings(s->cpa, c.path));
    Tcl_SetObjResult(interp, d);
    return TCL_OK;
}

/* --- $s timeline ------------------------------------------------------------ */

static bool ThreadMatches(const struct ips2_pag *p, uint32_t thread,
                          const struct ips2_cpa_filter *f)
{
    const struct ips2_pag_thread *t = &p->threads[thread];
    const struct ips2_pag_process *pr = &p->processes[t->process];
    if (f->machine != NULL && strcmp(f->machine, p->machine ? p->machine : "") != 0)
        return false;
    if (f->app != NULL && (pr->app >= p->napps || p->apps[pr->app] >= p->nstrings ||
                           strcmp(f->app, p->strings[p->apps[pr->app]]) != 0))
        return false;
    if (f->has_pid && pr->pid != f->pid)
        return false;
    return !f->has_tid || t->tid == f->tid;
}

static const char *NodeKind(uint16_t kind)
{
    if (kind == IPS2_PAG_BEGIN)
        return "begin";
    if (kind == IPS2_PAG_END)
        return "end";
    const char *k = ips2_kind_name(kind);
    return k ? k : "event";
}

static int TimelineCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    struct cp_args a;
    struct ips2_cpa_filter f;
    char nodebuf[1024], err[ERR_LEN] = "";
    if (ParseArgs(interp, objc, objv, "NODE -from -to -limit ", &a) != TCL_OK ||
        ParseNode(interp, a.node, nodebuf, sizeof nodebuf, &f) != TCL_OK)
        return TCL_ERROR;
    if (!a.has_from || !a.has_to || a.to <= a.from)
        return Error(interp, "USAGE", "%s", "timeline needs -from T0 -to T1 (ns, T1 > T0)");
    struct cpa_set *set = LocalSet(s, err, sizeof err);
    if (set == NULL)
        return Error(interp, "PARTS", "%s", err);
    /* lane numbers: per part, the first lane of its threads (or -1) */
    Tcl_Obj *lanes = Tcl_NewListObj(0, NULL), *events = Tcl_NewListObj(0, NULL),
            *arcs = Tcl_NewListObj(0, NULL);
    int64_t **lane = calloc(set->n ? set->n : 1, sizeof *lane);
    int64_t nlanes = 0, nevents = 0;
    bool truncated = false;
    for (size_t k = 0; lane != NULL && k < set->n; k++) {
        const struct ips2_pag *p = set->parts[k];
        lane[k] = malloc((p->nthreads ? p->nthreads : 1) * sizeof **lane);
        if (lane[k] == NULL)
            continue;
        for (uint32_t t = 0; t < p->nthreads; t++) {
            lane[k][t] = -1;
            if (!ThreadMatches(p, t, &f))
                continue;
            lane[k][t] = nlanes++;
            Tcl_ListObjAppendElement(NULL, lanes, ThreadPath(set, (uint32_t)k, t, true));
        }
    }
    for (size_t k = 0; lane != NULL && k < set->n; k++) {
        const struct ips2_pag *p = set->parts[k];
        for (uint32_t t = 0; lane[k] != NULL && t < p->nthreads; t++) {
            if (lane[k][t] < 0)
                continue;
            const struct ips2_pag_thread *th = &p->threads[t];
            for (uint32_t i = th->first; i < th->first + th->count && i < p->nnodes; i++) {
                const struct ips2_pag_node *nd = &p->nodes[i];
                if (nd->wall < a.from || nd->wall >= a.to)
                    continue;
                if (nevents >= a.limit) {
                    truncated = true;
                    break;
                }
                Tcl_Obj *e = Tcl_NewListObj(0, NULL);
                Tcl_ListObjAppendElement(NULL, e, Wide(lane[k][t]));
                Tcl_ListObjAppendElement(NULL, e, Wide(nd->wall));
                Tcl_ListObjAppendElement(NULL, e, Ips2Str(NodeKind(nd->kind)));
                Tcl_ListObjAppendElement(NULL, e,
                                         Ips2Str(nd->proc != IPS2_PAG_NONE && nd->proc < p->nstrings
                                                     ? p->strings[nd->proc]
                                                     : ""));
                Tcl_ListObjAppendElement(NULL, events, e);
                nevents++;
            }
        }
    }
    /* arcs between lanes shown, with an end in the window */
    for (size_t k = 0; lane != NULL && k < set->n && !truncated; k++) {
        const struct ips2_pag *p = set->parts[k];
        for (size_t i = 0; i < p->narcs && lane[k] != NULL; i++) {
            const struct ips2_pag_arc *ar = &p->arcs[i];
            uint32_t sp = IPS2_PAG_GID_PART(ar->from), sn = IPS2_PAG_GID_NODE(ar->from);
            if (ar->to >= p->nnodes || sp >= set->n || lane[sp] == NULL ||
                sn >= set->parts[sp]->nnodes)
                continue;
            const struct ips2_pag_node *to = &p->nodes[ar->to];
            const struct ips2_pag_node *from = &set->parts[sp]->nodes[sn];
            int64_t tl = lane[k][to->thread], fl = lane[sp][from->thread];
            if (tl < 0 || fl < 0)
                continue;
            if ((to->wall < a.from || to->wall >= a.to) &&
                (from->wall < a.from || from->wall >= a.to))
                continue;
            if (nevents >= a.limit) {
                truncated = true;
                break;
            }
            static const char *const types[] = {"", "message", "sync", "create", "exit"};
            Tcl_Obj *e = Tcl_NewListObj(0, NULL);
            Tcl_ListObjAppendElement(NULL, e, Wide(fl));
            Tcl_ListObjAppendElement(NULL, e, Wide(from->wall));
            Tcl_ListObjAppendElement(NULL, e, Wide(tl));
            Tcl_ListObjAppendElement(NULL, e, Wide(to->wall));
            Tcl_ListObjAppendElement(NULL, e, Ips2Str(ar->type <= 4 ? types[ar->type] : "other"));
            Tcl_ListObjAppendElement(NULL, arcs, e);
            nevents++;
        }
    }
    for (size_t k = 0; lane != NULL && k < set->n; k++)
        free(lane[k]);
    free(lane);
    Tcl_Obj *d = Tcl_NewDictObj();
    Ips2Put(d, "lanes", lanes);
    Ips2Put(d, "events", events);
    Ips2Put(d, "arcs", arcs);
    Ips2Put(d, "truncated", Tcl_NewBooleanObj(truncated));
    Ips2Put(d, "from", Wide(a.from));
    Ips2Put(d, "to", Wide(a.to));
    Tcl_SetObjResult(interp, d);
    return TCL_OK;
}

int Ips2CpaCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    const char *sub = Tcl_GetString(objv[1]);
    if (strcmp(sub, "cp") == 0)
        return CpCmd(s, interp, objc, objv);
    if (strcmp(sub, "cp-zero") == 0)
        return ZeroCmd(s, interp, objc, objv);
    if (strcmp(sub, "cp-path") == 0)
        return PathCmd(s, interp, objc, objv);
    if (strcmp(sub, "cp-imbalance") == 0)
        return ImbalanceCmd(s, interp, objc, objv);
    return TimelineCmd(s, interp, objc, objv);
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
    const char *mode = "global", *app = NULL, *how = "none", *zero = NULL;
    if (objc < 2 || objc % 2 != 0) {
        Tcl_WrongNumArgs(
            interp, 1, objv,
            "files ?-mode M? ?-app A? ?-pvm none|private? ?-zero-procedure F? ?-done CMD?");
        return TCL_ERROR;
    }
    if (Tcl_ListObjGetElements(interp, objv[1], &nfiles, &fv) != TCL_OK)
        return TCL_ERROR;
    for (int i = 2; i + 1 < objc; i += 2) {
        const char *o = Tcl_GetString(objv[i]), *v = Tcl_GetString(objv[i + 1]);
        if (strcmp(o, "-mode") == 0)
            mode = v;
        else if (strcmp(o, "-app") == 0)
            app = v[0] ? v : NULL;
        else if (strcmp(o, "-pvm") == 0)
            how = v;
        else if (strcmp(o, "-zero-procedure") == 0)
            zero = v[0] ? v : NULL;
        else if (strcmp(o, "-done") == 0)
            done = objv[i + 1];
        else
            return Error(interp, "USAGE",
                         "bad option \"%s\": expected -mode, -app, -pvm, -zero-procedure or -done",
                         o);
    }
    struct ips2_cpa_query q = {.app = app, .zero_procedure = zero};
    if (ips2_cpa_mode_parse(mode, &q.mode) != 0)
        return Error(interp, "USAGE", "bad mode \"%s\": expected intra, inter or global", mode);
    if (strcmp(how, "none") != 0 && strcmp(how, "private") != 0)
        return Error(interp, "USAGE", "bad -pvm \"%s\": expected none or private", how);
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
    if (strcmp(how, "private") == 0) {
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
    return TCL_OK;
}
