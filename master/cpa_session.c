/*
 * cpa_session.c - the critical-path side of a session, without Tcl
 * (cpa_session.h; ANALYSTS.md §6).
 *
 * The parts are the session's part files, SESSION/pag/MACHINE*.pag, the
 * host of each the host of its machine.  SESSION/pag/MACHINE.pag is the
 * active run's; MACHINE.REST.pag a replayed session's, whose applications
 * the session knows renamed (REST, the replay's -prefix, before their
 * names) and, in comparison mode, shifted (part_view).  The set of parts
 * is opened in this process or on PVM slaves (cpa.h) when first asked
 * and kept until a query wants the other kind (or its slaves are gone);
 * a path is kept per (mode, application, zeroing) and every table is made
 * from the kept paths and the parts' metadata (cpa/ips2_cpa.h).  The
 * timeline reads the parts' nodes, so it always has the parts in this
 * process (the set itself when that is in-process).
 *
 * Every answer owns its strings: the next query may replace the set.
 */
#include <glob.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpa.h"
#include "cpa_session.h"
#include "ips2_reader.h" /* ips2_kind_name */
#include "model.h"

const char *const cpa_where_names[] = {"auto", "private", "none", NULL};

struct machine_fact {
    char *name, *host;
};

struct app_fact {
    char *name, *source;
    int64_t shift; /* ns, comparison mode only */
};

struct cached_path {
    char *key;
    struct ips2_cpa_path path;
    bool partial; /* its CPU segments lack their shares (lazy parts) */
};

struct cpa_session {
    pthread_mutex_t lock; /* held while answering */
    char *dir, *slave_path;
    struct machine_fact *machines;
    size_t nmachines;
    struct app_fact *apps;
    size_t napps;
    struct cpa_set *set;        /* NULL until asked */
    struct ips2_slaves *slaves; /* the live run's (cpa_session_set_slaves), or NULL */
    bool own_slaves;            /* this session is that run's */
    bool distributed;
    atomic_bool holds_pvm; /* set is distributed: read without the lock */
    struct cpa_set *local; /* parts with nodes, for timeline (set itself when in-process) */
    struct cached_path *paths;
    size_t npaths;
    bool kept_only; /* answering from the kept paths: no set opened, no path run */
    /* the interpreter's thread only: */
    int fetches;  /* queries of fetches on the distributed set, not yet back */
    bool in_drop; /* drop_sets is freeing the sets (their callbacks come) */
};

/* A fetch (cpa_session_fetch): the paths of one request computed on the
 * slaves one after the other, each kept as it comes. */
struct cpa_fetch {
    struct cpa_session *s;
    const struct cpa_request *r;
    cpa_fetch_fn *done; /* NULL once called, or once closed */
    void *arg;
    int refs;  /* the owner's, and the query's in flight */
    int query; /* cpa_set_run_async's number of the one in flight, or 0 */
    char key[1024];
};

int cpa_fail(struct cpa_error *e, const char *code, const char *fmt, ...)
{
    va_list ap;
    snprintf(e->code, sizeof e->code, "%s", code);
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- requests ------------------------------------------------------------ */

struct cpa_request *cpa_request_new(enum cpa_table table)
{
    struct cpa_request *r = calloc(1, sizeof *r);
    if (r == NULL)
        return NULL;
    r->table = table;
    r->mode = IPS2_CPA_GLOBAL;
    r->level = IPS2_CPA_LEVEL_PROCESS;
    r->where = CPA_WHERE_AUTO;
    r->limit = 20000;
    r->t0 = IPS2_CPA_RUN_START;
    r->t1 = IPS2_CPA_RUN_END;
    return r;
}

void cpa_request_free(struct cpa_request *r)
{
    if (r == NULL)
        return;
    free(r->node);
    free(r->app);
    free(r->phase);
    free(r->procedure);
    free(r->process);
    free(r->zero_names);
    free(r);
}

int cpa_request_set(char **field, const char *value)
{
    free(*field);
    *field = NULL;
    if (value == NULL || value[0] == '\0')
        return 0;
    *field = strdup(value);
    return *field != NULL ? 0 : -1;
}

/* The node path's parts: app:A machine:M process:PID[@APP] thread:TID
 * procedure:NAME ("physical" or none: no filter).  Strings point into
 * buf. */
static int parse_node(const char *node, char *buf, size_t len, struct ips2_cpa_filter *f,
                      struct cpa_error *e)
{
    memset(f, 0, sizeof *f);
    if (node == NULL || node[0] == '\0' || strcmp(node, "physical") == 0)
        return 0;
    snprintf(buf, len, "%s", node);
    char *save = NULL;
    for (char *part = strtok_r(buf, "/", &save); part != NULL; part = strtok_r(NULL, "/", &save)) {
        char *colon = strchr(part, ':');
        if (colon == NULL)
            return cpa_fail(e, "NODE",
                            "bad node \"%s\": expected a path like app:A/machine:M/process:PID",
                            node);
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
            return cpa_fail(e, "NODE",
                            "bad node \"%s\": expected app:, machine:, process:, thread: or "
                            "procedure: parts",
                            node);
        }
    }
    return 0;
}

/* The application of an intra or inter query: -app, the node's, or the
 * session's only one. */
static int resolve_app(struct cpa_request *r, const struct ips2_model *m,
                       const struct ips2_cpa_filter *f, struct cpa_error *e)
{
    if (r->mode == IPS2_CPA_GLOBAL)
        return cpa_request_set(&r->app, NULL);
    if (r->app == NULL && f != NULL && f->app != NULL && cpa_request_set(&r->app, f->app) != 0)
        return cpa_fail(e, "MEMORY", "out of memory");
    if (r->app == NULL && m->napps == 1 && cpa_request_set(&r->app, m->apps[0].name) != 0)
        return cpa_fail(e, "MEMORY", "out of memory");
    if (r->app == NULL)
        return cpa_fail(e, "USAGE", "mode %s needs -app (an application of the session)",
                        ips2_cpa_mode_name(r->mode));
    for (size_t i = 0; i < m->napps; i++)
        if (strcmp(m->apps[i].name, r->app) == 0)
            return 0;
    return cpa_fail(e, "APP", "no application \"%s\" in the session", r->app);
}

/* The phase's [t0, t1), or the whole run. */
static int resolve_phase(struct cpa_request *r, const struct ips2_model *m, struct cpa_error *e)
{
    r->t0 = IPS2_CPA_RUN_START;
    r->t1 = IPS2_CPA_RUN_END;
    if (r->phase == NULL)
        return 0;
    const struct ips2_phase *p = ips2_phase_find(m, r->phase);
    if (p == NULL)
        return cpa_fail(e, "PHASE", "no phase \"%s\" (define it with $session phase)", r->phase);
    r->t0 = p->start_ns;
    r->t1 = p->end_ns;
    return 0;
}

int cpa_request_resolve(struct cpa_request *r, const struct ips2_model *m, struct cpa_error *e)
{
    r->live = m->reducer.reduce != NULL && cpa_pvm_connected();
    char list[PATH_MAX];
    snprintf(list, sizeof list, "%s/pag/parts.remote", m->dir != NULL ? m->dir : "");
    r->remote = m->dir != NULL && access(list, F_OK) == 0;
    if (r->table == CPA_TABLE_TIMELINE) {
        if (parse_node(r->node, r->nodebuf, sizeof r->nodebuf, &r->filter, e) != 0)
            return -1;
        if (!r->has_from || !r->has_to || r->to <= r->from)
            return cpa_fail(e, "USAGE", "timeline needs -from T0 -to T1 (ns, T1 > T0)");
        return 0;
    }
    if (!r->mode_given && r->app != NULL)
        r->mode = IPS2_CPA_INTER;
    if (r->table == CPA_TABLE_ZERO) {
        if (resolve_app(r, m, NULL, e) != 0)
            return -1;
        if ((r->procedure == NULL) == (r->process == NULL))
            return cpa_fail(e, "USAGE", "cp-zero needs -procedure NAME or -process PATH");
        free(r->zero_names);
        r->zero_names = NULL;
        if (r->procedure != NULL &&
            cpa_zero_names(m, r->procedure, r->inclusive, &r->zero_names, e) != 0)
            return -1;
        if (r->inclusive && r->procedure == NULL)
            return cpa_fail(e, "USAGE", "cp-zero -inclusive needs -procedure NAME");
        if (r->process != NULL) {
            if (parse_node(r->process, r->zerobuf, sizeof r->zerobuf, &r->zero, e) != 0)
                return -1;
            if (!r->zero.has_pid)
                return cpa_fail(e, "USAGE", "bad -process \"%s\": expected a process's path",
                                r->process);
        }
        return 0;
    }
    if (parse_node(r->node, r->nodebuf, sizeof r->nodebuf, &r->filter, e) != 0 ||
        resolve_app(r, m, &r->filter, e) != 0 || resolve_phase(r, m, e) != 0)
        return -1;
    r->filter.by_node = r->by_node && r->level == IPS2_CPA_LEVEL_PROCEDURE;
    return 0;
}

static bool wants_pvm(const struct cpa_request *r)
{
    return r->table != CPA_TABLE_TIMELINE &&
           (r->where == CPA_WHERE_PRIVATE ||
            (r->where == CPA_WHERE_AUTO && (r->live || r->remote)));
}

bool cpa_request_uses_pvm(const struct cpa_request *r)
{
    return wants_pvm(r);
}

/* ---- the session ----------------------------------------------------------- */

static void drop_paths(struct cpa_session *s)
{
    for (size_t i = 0; i < s->npaths; i++) {
        free(s->paths[i].key);
        ips2_cpa_path_free(&s->paths[i].path);
    }
    free(s->paths);
    s->paths = NULL;
    s->npaths = 0;
}

static void drop_sets(struct cpa_session *s)
{
    drop_paths(s);
    s->in_drop = true; /* a distributed set calls its fetches back now */
    if (s->local != s->set)
        cpa_set_free(s->local);
    cpa_set_free(s->set);
    s->in_drop = false;
    s->set = s->local = NULL;
    atomic_store(&s->holds_pvm, false);
}

void cpa_session_drop_pvm(struct cpa_session *s)
{
    if (s == NULL || !atomic_load(&s->holds_pvm))
        return;
    pthread_mutex_lock(&s->lock);
    if (s->distributed)
        drop_sets(s);
    pthread_mutex_unlock(&s->lock);
}

void cpa_session_free(struct cpa_session *s)
{
    if (s == NULL)
        return;
    drop_sets(s);
    for (size_t i = 0; i < s->nmachines; i++) {
        free(s->machines[i].name);
        free(s->machines[i].host);
    }
    for (size_t i = 0; i < s->napps; i++) {
        free(s->apps[i].name);
        free(s->apps[i].source);
    }
    free(s->machines);
    free(s->apps);
    free(s->dir);
    free(s->slave_path);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static char *copy(const char *v)
{
    return strdup(v != NULL ? v : "");
}

void cpa_session_set_slaves(struct cpa_session *s, struct ips2_slaves *slaves, bool own)
{
    s->slaves = slaves;
    s->own_slaves = slaves != NULL && own;
}

struct cpa_session *cpa_session_new(const struct ips2_model *m, const char *slave_path)
{
    struct cpa_session *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    pthread_mutex_init(&s->lock, NULL);
    s->dir = copy(m->dir != NULL ? m->dir : ".");
    s->slave_path = copy(slave_path);
    s->machines = calloc(m->nmachines ? m->nmachines : 1, sizeof *s->machines);
    s->apps = calloc(m->napps ? m->napps : 1, sizeof *s->apps);
    bool ok = s->dir != NULL && s->slave_path != NULL && s->machines != NULL && s->apps != NULL;
    for (size_t i = 0; ok && i < m->nmachines; i++, s->nmachines++) {
        s->machines[i].name = copy(m->machines[i].name);
        s->machines[i].host = copy(m->machines[i].host);
        ok = s->machines[i].name != NULL && s->machines[i].host != NULL;
    }
    for (size_t i = 0; ok && i < m->napps; i++, s->napps++) {
        s->apps[i].name = copy(m->apps[i].name);
        s->apps[i].source = copy(m->apps[i].source);
        s->apps[i].shift = ips2_model_shift_of(m, (int)i);
        ok = s->apps[i].name != NULL && s->apps[i].source != NULL;
    }
    if (!ok) {
        cpa_session_free(s);
        return NULL;
    }
    return s;
}

size_t cpa_session_cached(struct cpa_session *s)
{
    pthread_mutex_lock(&s->lock);
    size_t n = s->npaths;
    pthread_mutex_unlock(&s->lock);
    return n;
}

/* ---- the parts ----------------------------------------------------------- */

/* Adds the lines of SESSION/pag/parts.remote (tcl_run.c: parts that the
 * slaves of other hosts wrote there, which this host cannot see) that the
 * glob has not found, and sorts the whole. */
static void remote_parts(const struct cpa_session *s, glob_t *g)
{
    char path[PATH_MAX], line[PATH_MAX];
    snprintf(path, sizeof path, "%s/pag/parts.remote", s->dir);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return;
    size_t dirlen = strlen(s->dir);
    while (fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        size_t n = strlen(line);
        if (n < 5 || strcmp(line + n - 4, ".pag") != 0 || strncmp(line, s->dir, dirlen) != 0 ||
            strncmp(line + dirlen, "/pag/", 5) != 0 || strchr(line + dirlen + 5, '/') != NULL)
            continue;
        bool seen = false;
        for (size_t i = 0; i < g->gl_pathc && !seen; i++)
            seen = strcmp(g->gl_pathv[i], line) == 0;
        char **v = seen ? NULL : realloc(g->gl_pathv, (g->gl_pathc + 2) * sizeof *v);
        if (v == NULL)
            continue;
        g->gl_pathv = v;
        if ((v[g->gl_pathc] = strdup(line)) != NULL)
            v[++g->gl_pathc] = NULL;
    }
    fclose(f);
}

/* glob()'s order (strcoll), for the parts a list added. */
static int by_name(const void *a, const void *b)
{
    return strcoll(*(char *const *)a, *(char *const *)b);
}

/* Frees what part_files() made. */
static void parts_free(glob_t *g)
{
    for (size_t i = 0; i < g->gl_pathc; i++)
        free(g->gl_pathv[i]);
    free(g->gl_pathv);
    memset(g, 0, sizeof *g);
}

/* The session's part files (pag/ *.pag, and those of other hosts listed
 * in pag/parts.remote), sorted; the host of each file's machine (the
 * longest machine name that is the file's stem or its stem's prefix
 * before a dot).  The list is the caller's (parts_free). */
static int part_files(const struct cpa_session *s, glob_t *g, char ***hosts, struct cpa_error *e)
{
    char pattern[PATH_MAX];
    glob_t found;
    snprintf(pattern, sizeof pattern, "%s/pag/*.pag", s->dir);
    memset(g, 0, sizeof *g);
    memset(&found, 0, sizeof found);
    if (glob(pattern, 0, NULL, &found) == 0) { /* a copy the list may grow */
        g->gl_pathv = calloc(found.gl_pathc + 1, sizeof *g->gl_pathv);
        for (size_t i = 0; g->gl_pathv != NULL && i < found.gl_pathc; i++)
            if ((g->gl_pathv[g->gl_pathc] = strdup(found.gl_pathv[i])) != NULL)
                g->gl_pathc++;
    }
    globfree(&found);
    size_t listed = g->gl_pathc;
    remote_parts(s, g);
    if (g->gl_pathc == 0) {
        parts_free(g);
        return cpa_fail(e, "PARTS",
                        "%s/pag: no PAG parts (*.pag): the session was reduced without them, so it "
                        "has no critical path",
                        s->dir);
    }
    if (g->gl_pathc > listed)
        qsort(g->gl_pathv, g->gl_pathc, sizeof *g->gl_pathv, by_name);
    *hosts = calloc(g->gl_pathc, sizeof **hosts);
    if (*hosts == NULL) {
        parts_free(g);
        return cpa_fail(e, "PARTS", "out of memory");
    }
    for (size_t i = 0; i < g->gl_pathc; i++) {
        const char *base = strrchr(g->gl_pathv[i], '/');
        base = base ? base + 1 : g->gl_pathv[i];
        size_t best = 0;
        for (size_t k = 0; k < s->nmachines; k++) {
            size_t n = strlen(s->machines[k].name);
            if (n > best && strncmp(base, s->machines[k].name, n) == 0 &&
                (base[n] == '.' || base[n] == '\0')) {
                best = n;
                (*hosts)[i] = s->machines[k].host;
            }
        }
    }
    return 0;
}

/* Session directory names compared as real paths. */
static bool same_dir(const char *a, const char *b)
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

/* SOURCE of a part's trace_dir SOURCE/traces/MACHINE ("" if none). */
static void source_of(const char *trace_dir, char *source, size_t len)
{
    source[0] = '\0';
    if (trace_dir == NULL)
        return;
    snprintf(source, len, "%s", trace_dir);
    for (int up = 0; up < 2; up++) {
        size_t n = strlen(source);
        while (n > 1 && source[n - 1] == '/')
            source[--n] = '\0';
        char *slash = strrchr(source, '/');
        if (slash == NULL) {
            source[0] = '\0';
            return;
        }
        *slash = '\0';
    }
}

/* The session's application a replayed part's application name is (its
 * part file's REST before the name, or the name itself replayed from the
 * part's session), or -1. */
static int replayed_app(const struct cpa_session *s, const char *rest, const char *source,
                        const char *name)
{
    size_t rl = strlen(rest);
    for (size_t i = 0; i < s->napps; i++) {
        const struct app_fact *a = &s->apps[i];
        if (a->source[0] == '\0')
            continue;
        if ((strncmp(a->name, rest, rl) == 0 && strcmp(a->name + rl, name) == 0) ||
            (strcmp(a->name, name) == 0 && same_dir(a->source, source)))
            return (int)i;
    }
    return -1;
}

/* cpa_view_fn for a session's parts (cpa.h): SESSION/pag/MACHINE.pag is
 * the active run's, as it is.  MACHINE.REST.pag is a replayed directory's
 * (REST: the replay's -prefix, or replayK): its applications are the
 * session's applications replayed from the part's session named
 * REST+NAME or NAME; in comparison mode they are shifted by their shift.
 * Applications of the part the session did not replay are renamed
 * "(not replayed) NAME", so that they never pass for an active one.  One
 * group per replay. */
static int part_view(void *arg, const char *file, const struct ips2_pag *pag, struct cpa_view *v,
                     char *err, size_t errlen)
{
    const struct cpa_session *s = arg;
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    size_t mlen = pag->machine ? strlen(pag->machine) : 0;
    memset(v, 0, sizeof *v);
    if (mlen == 0 || strncmp(base, pag->machine, mlen) != 0 || base[mlen] != '.' ||
        strcmp(base + mlen, ".pag") == 0)
        return 0; /* the active run's part */
    char rest[256], source[PATH_MAX];
    size_t rlen = strlen(base + mlen + 1);
    snprintf(rest, sizeof rest, "%.*s", rlen > 4 ? (int)(rlen - 4) : 0, base + mlen + 1);
    source_of(pag->trace_dir, source, sizeof source);
    v->from = calloc(pag->napps ? pag->napps : 1, sizeof *v->from);
    v->to = calloc(pag->napps ? pag->napps : 1, sizeof *v->to);
    if (v->from == NULL || v->to == NULL)
        goto out_of_memory;
    const char *group = NULL;
    for (size_t a = 0; a < pag->napps; a++) {
        if (pag->apps[a] >= pag->nstrings)
            continue;
        const char *name = pag->strings[pag->apps[a]];
        int found = replayed_app(s, rest, source, name);
        if (found >= 0) {
            v->shift = s->apps[found].shift;
            group = s->apps[found].source;
        }
        v->from[v->nrename] = strdup(name);
        if (found >= 0)
            v->to[v->nrename] = strdup(s->apps[found].name);
        else if (asprintf(&v->to[v->nrename], "(not replayed) %s", name) < 0)
            v->to[v->nrename] = NULL;
        v->nrename++;
        if (v->from[v->nrename - 1] == NULL || v->to[v->nrename - 1] == NULL)
            goto out_of_memory;
    }
    if (asprintf(&v->group, "%s|%s", group ? group : source, rest) < 0) {
        v->group = NULL;
        goto out_of_memory;
    }
    return 0;
out_of_memory:
    cpa_view_free(v);
    snprintf(err, errlen, "out of memory");
    return -1;
}

/* Opens the parts in this process or on PVM slaves, unless they are open
 * so already.  Closing a distributed set or opening one talks to PVM:
 * refused (1) unless may_use_pvm. */
static int open_set(struct cpa_session *s, bool distributed, bool may_use_pvm, struct cpa_error *e)
{
    if (s->kept_only) /* the paths were fetched on this set: it may be stale now */
        return s->set != NULL && s->distributed == distributed
                   ? 0
                   : cpa_fail(e, "PARTS", "the critical-path slaves are gone");
    if (!may_use_pvm && (distributed || (s->set != NULL && s->distributed)))
        return 1;
    if (s->set != NULL && s->distributed == distributed && !cpa_set_stale(s->set))
        return 0;
    if (s->set != NULL && s->distributed && !distributed && s->fetches > 0)
        return cpa_fail(e, "QUERY",
                        "the session's slaves are computing a critical path: ask in this "
                        "process once it is answered");
    drop_sets(s);
    glob_t g;
    char **hosts = NULL;
    if (part_files(s, &g, &hosts, e) != 0)
        return -1;
    char err[sizeof e->message] = "";
    int rc;
    if (distributed) {
        struct ips2_machine_info *mi = calloc(s->nmachines + 1, sizeof *mi);
        for (size_t i = 0; mi != NULL && i < s->nmachines; i++)
            mi[i] = (struct ips2_machine_info){.name = s->machines[i].name,
                                               .host = s->machines[i].host};
        /* the slaves load the parts while the event loop runs: queries
         * started meanwhile run once they are done */
        rc = cpa_pvm_start(g.gl_pathv, g.gl_pathc, mi, mi ? s->nmachines : 0, s->slaves,
                           s->own_slaves, s->slave_path, part_view, s, &s->set, err, sizeof err);
        free(mi);
    } else
        rc = cpa_local_open_lazy(g.gl_pathv, g.gl_pathc, part_view, s, &s->set, err, sizeof err);
    s->local = distributed ? NULL : s->set;
    s->distributed = distributed;
    atomic_store(&s->holds_pvm, distributed && s->set != NULL);
    free(hosts);
    parts_free(&g);
    return rc == 0 ? 0 : cpa_fail(e, "PARTS", "%s", err);
}

/* The parts with their nodes, for timeline. */
static struct cpa_set *local_set(struct cpa_session *s, struct cpa_error *e)
{
    if (s->set == NULL && open_set(s, false, false, e) != 0)
        return NULL;
    if (s->local != NULL)
        return s->local;
    glob_t g;
    char **hosts = NULL;
    if (part_files(s, &g, &hosts, e) != 0)
        return NULL;
    char err[sizeof e->message] = "";
    int rc = cpa_local_open_lazy(g.gl_pathv, g.gl_pathc, part_view, s, &s->local, err, sizeof err);
    free(hosts);
    parts_free(&g);
    if (rc != 0) {
        cpa_fail(e, "PARTS", "%s", err);
        return NULL;
    }
    return s->local;
}

/* The key of a query's path in the session's cache. */
static void path_key(const struct ips2_cpa_query *q, char *key, size_t len)
{
    snprintf(key, len, "%d|%s|%s|%d|%u|%d|%s", (int)q->mode, q->app ? q->app : "",
             q->zero_procedure ? q->zero_procedure : "", q->zero_process, q->zero_part,
             (int)q->zero_pid, q->zero_app ? q->zero_app : "");
}

static struct cached_path *kept(struct cpa_session *s, const char *key)
{
    for (size_t i = 0; i < s->npaths; i++)
        if (strcmp(s->paths[i].key, key) == 0)
            return &s->paths[i];
    return NULL;
}

static struct ips2_cpa_path *kept_path(struct cpa_session *s, const char *key)
{
    struct cached_path *cp = kept(s, key);
    return cp != NULL ? &cp->path : NULL;
}

/* The path of a query on the open set, computed once. */
static const struct ips2_cpa_path *path_of(struct cpa_session *s, const struct ips2_cpa_query *q,
                                           struct cpa_error *e)
{
    char key[1024];
    path_key(q, key, sizeof key);
    struct ips2_cpa_path *kept = kept_path(s, key);
    if (kept != NULL)
        return kept;
    if (s->kept_only) {
        cpa_fail(e, "QUERY", "the critical-path slaves are gone");
        return NULL;
    }
    struct cached_path *v = realloc(s->paths, (s->npaths + 1) * sizeof *v);
    if (v == NULL) {
        cpa_fail(e, "MEMORY", "out of memory");
        return NULL;
    }
    s->paths = v;
    struct cached_path *cp = &s->paths[s->npaths];
    ips2_cpa_path_init(&cp->path);
    char err[sizeof e->message] = "";
    if (cpa_set_run(s->set, q, &cp->path, err, sizeof err) != 0) {
        ips2_cpa_path_free(&cp->path);
        cpa_fail(e, "QUERY", "%s", err);
        return NULL;
    }
    if ((cp->key = strdup(key)) == NULL) {
        ips2_cpa_path_free(&cp->path);
        cpa_fail(e, "MEMORY", "out of memory");
        return NULL;
    }
    cp->partial = s->set->parts != NULL; /* in this process: lazy parts */
    s->npaths++;
    return &cp->path;
}

/* The path of a query with its CPU segments' shares: an in-process set's
 * parts are read without them, and only the tables that show them read
 * the path's from the part files, once. */
static const struct ips2_cpa_path *
path_with_shares(struct cpa_session *s, const struct ips2_cpa_query *q, struct cpa_error *e)
{
    if (path_of(s, q, e) == NULL)
        return NULL;
    char key[1024], err[sizeof e->message] = "";
    path_key(q, key, sizeof key);
    struct cached_path *cp = kept(s, key);
    if (cp->partial && s->set->parts != NULL &&
        ips2_cpa_path_add_shares(&cp->path, s->set->parts, s->set->n, q, err, sizeof err) != 0) {
        cpa_fail(e, "QUERY", "%s", err);
        return NULL;
    }
    cp->partial = false;
    return &cp->path;
}

/* ---- names of the parts' things -------------------------------------------- */

static const char *meta_string(const struct ips2_cpa_meta *m, uint32_t i)
{
    return i < m->nstrings ? m->strings[i] : "?";
}

/* app:A/machine:M/process:PID(/thread:TID) of a part's thread ("" if it
 * has none; NULL when out of memory). */
static char *thread_path(const struct cpa_set *set, uint32_t part, uint32_t thread,
                         bool with_thread)
{
    char *out = NULL;
    if (part >= set->n || set->metas[part] == NULL || thread >= set->metas[part]->nthreads)
        return strdup("");
    const struct ips2_cpa_meta *m = set->metas[part];
    const struct ips2_pag_thread *t = &m->threads[thread];
    if (t->process >= m->nprocesses)
        return strdup("");
    const struct ips2_pag_process *p = &m->processes[t->process];
    const char *app = p->app < m->napps ? meta_string(m, m->apps[p->app]) : "?";
    int rc = with_thread
                 ? asprintf(&out, "app:%s/machine:%s/process:%d/thread:%d", app, m->machine,
                            (int)p->pid, (int)t->tid)
                 : asprintf(&out, "app:%s/machine:%s/process:%d", app, m->machine, (int)p->pid);
    return rc < 0 ? NULL : out;
}

static int add_string(char ***v, size_t *n, const char *s)
{
    char **grown = realloc(*v, (*n + 1) * sizeof *grown);
    if (grown == NULL)
        return -1;
    *v = grown;
    if ((grown[*n] = strdup(s)) == NULL)
        return -1;
    (*n)++;
    return 0;
}

static int take_warnings(struct cpa_answer *a, const struct cpa_set *set,
                         const struct ips2_cpa_path *p)
{
    for (size_t i = 0; i < set->nwarnings; i++)
        if (add_string(&a->warnings, &a->nwarnings, set->warnings[i]) != 0)
            return -1;
    for (size_t i = 0; p != NULL && i < p->nwarnings; i++)
        if (add_string(&a->warnings, &a->nwarnings, p->warnings[i]) != 0)
            return -1;
    return 0;
}

/* ---- the tables ------------------------------------------------------------ */

static int profile_table(struct cpa_session *s, const struct cpa_request *r,
                         const struct ips2_cpa_query *q, const struct ips2_cpa_path *path,
                         struct cpa_answer *a, struct cpa_error *e)
{
    struct cpa_set *set = s->set;
    struct ips2_cpa_profile prof;
    char err[sizeof e->message] = "";
    memset(&prof, 0, sizeof prof);
    if (ips2_cpa_profile(path, set->metas, set->n, q, r->level, &r->filter, r->t0, r->t1, &prof,
                         err, sizeof err) != 0)
        return cpa_fail(e, "PROFILE", "%s", err);
    a->length = prof.length;
    a->elapsed = prof.elapsed;
    a->ratio = prof.ratio;
    a->begin = prof.begin;
    a->end = prof.end;
    a->profile = calloc(prof.n ? prof.n : 1, sizeof *a->profile);
    int rc = a->profile != NULL ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < prof.n; i++, a->nprofile++) {
        const struct ips2_cpa_entry *en = &prof.entries[i];
        struct cpa_profile_row *row = &a->profile[i];
        char *thread = NULL;
        row->ns = en->ns;
        row->percent = en->percent;
        row->name = strdup(en->name);
        row->program = strdup(en->program ? en->program : "");
        if (en->kind != IPS2_CPA_ENTRY_WORK)
            row->path = strdup("");
        else if (r->level == IPS2_CPA_LEVEL_MACHINE)
            rc = asprintf(&row->path, "machine:%s",
                          en->part < set->n ? set->metas[en->part]->machine : "?") < 0;
        else if (r->level == IPS2_CPA_LEVEL_PROCESS || r->level == IPS2_CPA_LEVEL_THREAD)
            row->path = thread_path(set, en->part, en->thread, r->level != IPS2_CPA_LEVEL_PROCESS);
        else if ((thread = thread_path(set, en->part, en->thread, true)) != NULL)
            rc = asprintf(&row->path, "%s/procedure:%s", thread, en->name) < 0;
        free(thread);
        if (rc != 0)
            row->path = NULL;
        if (row->name == NULL || row->path == NULL || row->program == NULL)
            rc = -1;
    }
    ips2_cpa_profile_free(&prof);
    return rc == 0 ? 0 : cpa_fail(e, "MEMORY", "out of memory");
}

/* The zeroing query of r: its procedure, or its process found in the
 * parts' metadata. */
static int zero_query(const struct cpa_set *set, const struct cpa_request *r,
                      struct ips2_cpa_query *zq, struct cpa_error *e)
{
    const struct ips2_cpa_filter *f = &r->zero;
    if (r->procedure != NULL) {
        zq->zero_procedure = r->zero_names != NULL ? r->zero_names : r->procedure;
        return 0;
    }
    for (size_t k = 0; k < set->n; k++) {
        const struct ips2_cpa_meta *m = set->metas[k];
        if (f->machine != NULL && strcmp(m->machine, f->machine) != 0)
            continue;
        for (size_t p = 0; p < m->nprocesses; p++) {
            const char *app =
                m->processes[p].app < m->napps ? meta_string(m, m->apps[m->processes[p].app]) : "";
            if (m->processes[p].pid == f->pid && (f->app == NULL || strcmp(app, f->app) == 0)) {
                zq->zero_process = 1;
                zq->zero_part = (uint32_t)k;
                zq->zero_pid = f->pid;
                zq->zero_app = f->app;
                return 0;
            }
        }
    }
    return cpa_fail(e, "NODE", "no process \"%s\" in the session's PAG", r->process);
}

static int zero_table(struct cpa_session *s, const struct cpa_request *r,
                      const struct ips2_cpa_query *base, struct cpa_answer *a, struct cpa_error *e)
{
    struct ips2_cpa_query zq = *base;
    if (zero_query(s->set, r, &zq, e) != 0)
        return -1;
    const struct ips2_cpa_path *p0 = path_of(s, base, e);
    if (p0 == NULL)
        return -1;
    a->length = p0->length;
    const struct ips2_cpa_path *p1 = path_of(s, &zq, e);
    if (p1 == NULL)
        return -1;
    a->new_length = p1->length;
    a->inclusive = r->inclusive;
    if (cpa_request_set(&a->procedure, r->procedure) != 0 ||
        cpa_request_set(&a->process, r->process) != 0 ||
        cpa_request_set(&a->zero_names, r->zero_names) != 0 || take_warnings(a, s->set, p1) != 0)
        return cpa_fail(e, "MEMORY", "out of memory");
    return 0;
}

static int by_proc(const void *a, const void *b)
{
    const struct ips2_cpa_share *x = a, *y = b;
    return (x->proc > y->proc) - (x->proc < y->proc);
}

/* A CPU segment's row: its procedures counted (a procedure may have more
 * than one share of an arc), and the CPA_SEGMENT_TOP with most CPU named,
 * most first (ties: in the order of the part's strings).  0, or -1 out of
 * memory. */
static int top_procedures(struct cpa_segment_row *row, const struct ips2_cpa_share *shares,
                          size_t n, const struct ips2_cpa_meta *m)
{
    struct ips2_cpa_share *v = malloc((n ? n : 1) * sizeof *v), top[CPA_SEGMENT_TOP];
    size_t ntop = 0, nprocs = 0;
    if (v == NULL)
        return -1;
    memcpy(v, shares, n * sizeof *v);
    qsort(v, n, sizeof *v, by_proc);
    for (size_t i = 0; i < n;) {
        struct ips2_cpa_share one = v[i];
        for (i++; i < n && v[i].proc == one.proc; i++)
            one.cpu += v[i].cpu;
        nprocs++;
        /* insert into the top list, kept sorted by CPU, most first */
        size_t at = ntop;
        while (at > 0 && top[at - 1].cpu < one.cpu)
            at--;
        if (at >= CPA_SEGMENT_TOP)
            continue;
        if (ntop < CPA_SEGMENT_TOP)
            ntop++;
        memmove(top + at + 1, top + at, (ntop - 1 - at) * sizeof *top);
        top[at] = one;
    }
    free(v);
    row->nprocs = nprocs;
    for (size_t k = 0; k < ntop; k++)
        if (add_string(&row->what, &row->nwhat,
                       top[k].proc == IPS2_PAG_NONE ? "(none)" : meta_string(m, top[k].proc)) != 0)
            return -1;
    return 0;
}

/* A path's CPU segments whose shares stay in lazy parts: each row's top
 * procedures as the shares stream by (never all of them in memory). */
struct seg_rows {
    struct cpa_answer *a;
    const struct cpa_set *set;
    const struct ips2_cpa_path *path;
    size_t *row; /* per segment: its row + 1, 0: none */
};

static int seg_top(void *arg, size_t seg, const struct ips2_cpa_share *sh, size_t n)
{
    struct seg_rows *t = arg;
    const struct ips2_cpa_segment *g = &t->path->segs[seg];
    if (t->row[seg] == 0 || g->dst_part >= t->set->n || t->set->metas[g->dst_part] == NULL)
        return 0;
    return top_procedures(&t->a->segments[t->row[seg] - 1], sh, n, t->set->metas[g->dst_part]);
}

static int segment_table(struct cpa_session *s, const struct cpa_request *r,
                         const struct ips2_cpa_query *q, const struct ips2_cpa_path *path,
                         bool partial, struct cpa_answer *a, struct cpa_error *e)
{
    struct cpa_set *set = s->set;
    a->length = path->length;
    a->segments = calloc(path->nsegs ? path->nsegs : 1, sizeof *a->segments);
    if (a->segments == NULL)
        return cpa_fail(e, "MEMORY", "out of memory");
    struct seg_rows rows = {a, set, path, NULL};
    partial = partial && set->parts != NULL;
    if (partial && (rows.row = calloc(path->nsegs ? path->nsegs : 1, sizeof *rows.row)) == NULL)
        return cpa_fail(e, "MEMORY", "out of memory");
    bool phase = r->phase != NULL;
    for (size_t i = 0; i < path->nsegs; i++) {
        const struct ips2_cpa_segment *g = &path->segs[i];
        if (phase && (r->t1 <= r->t0 || g->end < r->t0 || g->begin >= r->t1))
            continue;
        if (rows.row != NULL)
            rows.row[i] = a->nsegments + 1;
        struct cpa_segment_row *row = &a->segments[a->nsegments++];
        row->kind = ips2_cpa_seg_kind_name(g->kind);
        /* a source that ended after its destination: shown as starting at
         * the end (as the slaves send such an arc, slave_cpa.c) */
        row->from = g->begin < g->end ? g->begin : g->end;
        row->to = g->end;
        row->length = g->length;
        row->thread = thread_path(set, g->dst_part, g->dst_thread, true);
        if (row->thread == NULL)
            return cpa_fail(e, "MEMORY", "out of memory");
        if (g->kind != IPS2_CPA_SEG_CPU) {
            char *src = thread_path(set, g->src_part, g->src_thread, true);
            int rc = src != NULL ? add_string(&row->what, &row->nwhat, src) : -1;
            free(src);
            if (rc != 0)
                return cpa_fail(e, "MEMORY", "out of memory");
            continue;
        }
        const struct ips2_cpa_meta *m = g->dst_part < set->n ? set->metas[g->dst_part] : NULL;
        if (m != NULL && g->first_share < path->nshares) {
            size_t n = g->nshares;
            if (n > path->nshares - g->first_share)
                n = path->nshares - g->first_share;
            if (top_procedures(row, path->shares + g->first_share, n, m) != 0) {
                free(rows.row);
                return cpa_fail(e, "MEMORY", "out of memory");
            }
        }
    }
    char err[sizeof e->message] = "";
    int rc = partial ? ips2_cpa_path_each_shares(path, set->parts, set->n, q, seg_top, &rows, err,
                                                 sizeof err)
                     : 0;
    free(rows.row);
    if (rc != 0)
        return cpa_fail(e, "QUERY", "%s", err[0] ? err : "out of memory");
    return 0;
}

static int imbalance_table(struct cpa_session *s, const struct cpa_request *r,
                           const struct ips2_cpa_query *q, const struct ips2_cpa_path *path,
                           struct cpa_answer *a, struct cpa_error *e)
{
    char err[sizeof e->message] = "";
    a->length = path->length;
    for (size_t k = 0; s->set->parts != NULL && k < s->set->n; k++)
        if (ips2_cpa_meta_add_cpu(s->set->metas[k], s->set->parts[k], err, sizeof err) != 0)
            return cpa_fail(e, "PROFILE", "%s", err);
    if (ips2_cpa_imbalance(path, s->set->metas, s->set->n, q, &r->filter, r->t0, r->t1,
                           &a->imbalance, &a->nimbalance, err, sizeof err) != 0)
        return cpa_fail(e, "PROFILE", "%s", err);
    return 0;
}

/* ---- the timeline ------------------------------------------------------------ */

static bool thread_matches(const struct ips2_pag *p, uint32_t thread,
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

static const char *node_kind(uint16_t kind)
{
    if (kind == IPS2_PAG_BEGIN)
        return "begin";
    if (kind == IPS2_PAG_END)
        return "end";
    const char *k = ips2_kind_name(kind);
    return k ? k : "event";
}

static const char *arc_type(uint16_t type)
{
    static const char *const types[] = {"", "message", "sync", "create", "exit"};
    return type <= 4 ? types[type] : "other";
}

/* lane[k][t]: the lane of part k's thread t, or -1 when the filter leaves
 * it out; the lanes' names in a. */
static int64_t **timeline_lanes(const struct cpa_set *set, const struct ips2_cpa_filter *f,
                                struct cpa_answer *a)
{
    int64_t **lane = calloc(set->n ? set->n : 1, sizeof *lane);
    for (size_t k = 0; lane != NULL && k < set->n; k++) {
        const struct ips2_pag *p = set->parts[k];
        if ((lane[k] = malloc((p->nthreads ? p->nthreads : 1) * sizeof **lane)) == NULL)
            return lane;
        for (uint32_t t = 0; t < p->nthreads; t++) {
            lane[k][t] = -1;
            if (!thread_matches(p, t, f))
                continue;
            char *name = thread_path(set, (uint32_t)k, t, true);
            if (name == NULL || add_string(&a->lanes, &a->nlanes, name) != 0) {
                free(name);
                continue;
            }
            free(name);
            lane[k][t] = (int64_t)a->nlanes - 1;
        }
    }
    return lane;
}

static int grow(void **v, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 64;
    void *n = realloc(*v, c * size);
    if (n == NULL)
        return -1;
    *v = n;
    *cap = c;
    return 0;
}

/* The first node of thread th at or after from: a thread's nodes are in
 * time order (the part file's decoder checked it), so a window costs its
 * nodes and a binary search per thread, not a scan of them all. */
static uint32_t first_at(const struct ips2_pag *p, const struct ips2_pag_thread *th, int64_t from)
{
    uint32_t lo = th->first, hi = th->first + th->count;
    if (hi > p->nnodes)
        hi = (uint32_t)p->nnodes;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (p->nodes[mid].wall < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int timeline_table(struct cpa_session *s, const struct cpa_request *r, struct cpa_answer *a,
                          struct cpa_error *e)
{
    struct cpa_set *set = local_set(s, e);
    if (set == NULL)
        return -1;
    a->from = r->from;
    a->to = r->to;
    int64_t **lane = timeline_lanes(set, &r->filter, a);
    int64_t limit = r->limit > 0 ? r->limit : 1, n = 0;
    size_t ecap = 0, acap = 0;
    int rc = lane != NULL ? 0 : -1;
    for (size_t k = 0; rc == 0 && k < set->n && !a->truncated; k++) {
        const struct ips2_pag *p = set->parts[k];
        for (uint32_t t = 0; lane[k] != NULL && t < p->nthreads && !a->truncated; t++) {
            if (lane[k][t] < 0)
                continue;
            const struct ips2_pag_thread *th = &p->threads[t];
            for (uint32_t i = first_at(p, th, r->from); i < th->first + th->count && i < p->nnodes;
                 i++) {
                const struct ips2_pag_node *nd = &p->nodes[i];
                if (nd->wall >= r->to)
                    break; /* a thread's nodes are in time order */
                if (n >= limit) {
                    a->truncated = true;
                    break;
                }
                if (grow((void **)&a->events, &ecap, a->nevents + 1, sizeof *a->events) != 0) {
                    rc = -1;
                    break;
                }
                struct cpa_timeline_event *ev = &a->events[a->nevents];
                ev->lane = lane[k][t];
                ev->wall = nd->wall;
                ev->kind = node_kind(nd->kind);
                ev->procedure = strdup(nd->proc != IPS2_PAG_NONE && nd->proc < p->nstrings
                                           ? p->strings[nd->proc]
                                           : "");
                if (ev->procedure == NULL) {
                    rc = -1;
                    break;
                }
                a->nevents++;
                n++;
            }
        }
    }
    /* arcs between lanes shown, with an end in the window */
    for (size_t k = 0; rc == 0 && k < set->n && !a->truncated; k++) {
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
            if ((to->wall < r->from || to->wall >= r->to) &&
                (from->wall < r->from || from->wall >= r->to))
                continue;
            if (n >= limit) {
                a->truncated = true;
                break;
            }
            if (grow((void **)&a->arcs, &acap, a->narcs + 1, sizeof *a->arcs) != 0) {
                rc = -1;
                break;
            }
            a->arcs[a->narcs++] = (struct cpa_timeline_arc){
                .from_lane = fl,
                .from_wall = from->wall,
                .to_lane = tl,
                .to_wall = to->wall,
                .type = arc_type(ar->type),
            };
            n++;
        }
    }
    for (size_t k = 0; lane != NULL && k < set->n; k++)
        free(lane[k]);
    free(lane);
    return rc == 0 ? 0 : cpa_fail(e, "MEMORY", "out of memory");
}

/* ---- fetches: a request's paths computed on the slaves, asynchronously ------ */

static void fetch_done(void *arg, struct ips2_cpa_path *path, const char *err);

static void fetch_release(struct cpa_fetch *f)
{
    if (--f->refs == 0)
        free(f);
}

/* With the lock held: starts the query of the next path r needs that is
 * not kept.  0: one is in flight; 1: all are kept (or what is missing is
 * an error the answer gives); -1 with e. */
static int fetch_step(struct cpa_fetch *f, struct cpa_error *e)
{
    struct cpa_session *s = f->s;
    const struct cpa_request *r = f->r;
    struct ips2_cpa_query q = {.mode = r->mode, .app = r->app};
    char key[sizeof f->key];
    path_key(&q, key, sizeof key);
    if (kept_path(s, key) != NULL) {
        if (r->table != CPA_TABLE_ZERO)
            return 1;
        struct cpa_error ignored;
        if (zero_query(s->set, r, &q, &ignored) != 0)
            return 1; /* the answer says it */
        path_key(&q, key, sizeof key);
        if (kept_path(s, key) != NULL)
            return 1;
    }
    char err[sizeof e->message] = "";
    int id = cpa_set_run_async(s->set, &q, fetch_done, f, err, sizeof err);
    if (id < 0)
        return cpa_fail(e, "QUERY", "%s", err);
    snprintf(f->key, sizeof f->key, "%s", key);
    f->query = id;
    f->refs++;
    s->fetches++;
    return 0;
}

static void fetch_finish(struct cpa_fetch *f, const struct cpa_error *e)
{
    cpa_fetch_fn *done = f->done;
    f->done = NULL;
    if (done != NULL)
        done(f->arg, e);
}

/* A query of the fetch is over (from the event loop, or from drop_sets). */
static void fetch_done(void *arg, struct ips2_cpa_path *path, const char *err)
{
    struct cpa_fetch *f = arg;
    struct cpa_session *s = f->s;
    struct cpa_error e;
    int rc = -1;
    f->query = 0;
    s->fetches--;
    if (path == NULL)
        cpa_fail(&e, "QUERY", "%s", err != NULL ? err : "the query failed");
    else if (s->in_drop)
        cpa_fail(&e, "QUERY", "cancelled: the critical-path set was freed");
    else {
        /* kept even when the fetch was closed: the next query finds it */
        pthread_mutex_lock(&s->lock);
        struct cached_path *v = NULL;
        if (kept_path(s, f->key) != NULL)
            rc = 0;
        else if ((v = realloc(s->paths, (s->npaths + 1) * sizeof *v)) != NULL) {
            s->paths = v;
            if ((v[s->npaths].key = strdup(f->key)) != NULL) {
                v[s->npaths].path = *path; /* moved */
                v[s->npaths].partial = false;
                ips2_cpa_path_init(path);
                s->npaths++;
                rc = 0;
            }
        }
        if (rc != 0)
            cpa_fail(&e, "MEMORY", "out of memory");
        else if (f->done != NULL)
            rc = fetch_step(f, &e);
        pthread_mutex_unlock(&s->lock);
    }
    if (rc != 0)
        fetch_finish(f, rc < 0 ? &e : NULL);
    fetch_release(f);
}

int cpa_session_fetch(struct cpa_session *s, const struct cpa_request *r, cpa_fetch_fn *done,
                      void *arg, struct cpa_fetch **out, struct cpa_error *e)
{
    *out = NULL;
    if (!wants_pvm(r))
        return 1;
    struct cpa_fetch *f = calloc(1, sizeof *f);
    if (f == NULL)
        return cpa_fail(e, "MEMORY", "out of memory");
    *f = (struct cpa_fetch){.s = s, .r = r, .done = done, .arg = arg, .refs = 1};
    pthread_mutex_lock(&s->lock);
    int rc = open_set(s, true, true, e);
    if (rc == 0)
        rc = fetch_step(f, e);
    pthread_mutex_unlock(&s->lock);
    if (rc != 0) {
        free(f);
        return rc;
    }
    *out = f;
    return 0;
}

void cpa_session_fetch_close(struct cpa_fetch *f)
{
    if (f == NULL)
        return;
    f->done = NULL;
    if (f->query != 0) /* its set is alive: freeing it would have called back */
        cpa_set_cancel(f->s->set, f->query);
    fetch_release(f);
}

/* ---- answers ------------------------------------------------------------------ */

void cpa_answer_free(struct cpa_answer *a)
{
    if (a == NULL)
        return;
    free(a->app);
    for (size_t i = 0; i < a->nwarnings; i++)
        free(a->warnings[i]);
    free(a->warnings);
    for (size_t i = 0; i < a->nprofile; i++) {
        free(a->profile[i].name);
        free(a->profile[i].program);
        free(a->profile[i].path);
    }
    free(a->profile);
    ips2_cpa_imbalance_free(a->imbalance, a->nimbalance);
    free(a->procedure);
    free(a->process);
    free(a->zero_names);
    for (size_t i = 0; i < a->nsegments; i++) {
        free(a->segments[i].thread);
        for (size_t k = 0; k < a->segments[i].nwhat; k++)
            free(a->segments[i].what[k]);
        free(a->segments[i].what);
    }
    free(a->segments);
    for (size_t i = 0; i < a->nlanes; i++)
        free(a->lanes[i]);
    free(a->lanes);
    for (size_t i = 0; i < a->nevents; i++)
        free(a->events[i].procedure);
    free(a->events);
    free(a->arcs);
    free(a);
}

/* The answer of a resolved request with the session's lock held; 1 if it
 * would need PVM and may not use it. */
static int answer_locked(struct cpa_session *s, const struct cpa_request *r, bool may_use_pvm,
                         struct cpa_answer *a, struct cpa_error *e)
{
    if (r->table == CPA_TABLE_TIMELINE)
        return timeline_table(s, r, a, e);
    int rc = open_set(s, wants_pvm(r), may_use_pvm, e);
    if (rc != 0)
        return rc;
    a->distributed = s->distributed;
    struct ips2_cpa_query q = {.mode = r->mode, .app = r->app};
    if (r->table == CPA_TABLE_ZERO)
        return zero_table(s, r, &q, a, e);
    /* the shares: for the procedures of a profile, a path's segments and
     * the imbalance (a process-level profile never reads them) */
    bool shares = r->table == CPA_TABLE_IMBALANCE ||
                  (r->table == CPA_TABLE_PROFILE && r->level == IPS2_CPA_LEVEL_PROCEDURE);
    const struct ips2_cpa_path *path = shares ? path_with_shares(s, &q, e) : path_of(s, &q, e);
    if (path == NULL)
        return -1;
    if (r->table == CPA_TABLE_PROFILE)
        rc = profile_table(s, r, &q, path, a, e);
    else if (r->table == CPA_TABLE_PATH) {
        /* the segments' top procedures as the shares stream by */
        char key[1024];
        path_key(&q, key, sizeof key);
        rc = segment_table(s, r, &q, path, kept(s, key)->partial, a, e);
    } else
        rc = imbalance_table(s, r, &q, path, a, e);
    if (rc == 0 && take_warnings(a, s->set, path) != 0)
        return cpa_fail(e, "MEMORY", "out of memory");
    return rc;
}

static int answer(struct cpa_session *s, const struct cpa_request *r, bool may_use_pvm,
                  bool kept_only, struct cpa_answer **out, struct cpa_error *e)
{
    struct cpa_answer *a = calloc(1, sizeof *a);
    *out = NULL;
    if (a == NULL || cpa_request_set(&a->app, r->app) != 0) {
        cpa_answer_free(a);
        return cpa_fail(e, "MEMORY", "out of memory");
    }
    a->table = r->table;
    a->mode = r->mode;
    a->level = r->level;
    a->by_node = r->filter.by_node;
    pthread_mutex_lock(&s->lock);
    s->kept_only = kept_only;
    int rc = answer_locked(s, r, may_use_pvm, a, e);
    s->kept_only = false;
    pthread_mutex_unlock(&s->lock);
    if (rc != 0) {
        cpa_answer_free(a);
        return rc;
    }
    *out = a;
    return 0;
}

int cpa_session_answer_here(struct cpa_session *s, const struct cpa_request *r, bool may_use_pvm,
                            struct cpa_answer **out, struct cpa_error *e)
{
    return answer(s, r, may_use_pvm, false, out, e);
}

int cpa_session_with_parts(struct cpa_session *s, cpa_parts_fn *fn, void *arg, struct cpa_error *e)
{
    pthread_mutex_lock(&s->lock);
    const struct cpa_set *set = local_set(s, e);
    int rc = set != NULL ? fn(arg, set, e) : -1;
    pthread_mutex_unlock(&s->lock);
    return rc;
}

int cpa_session_answer_kept(struct cpa_session *s, const struct cpa_request *r,
                            struct cpa_answer **out, struct cpa_error *e)
{
    return answer(s, r, true, true, out, e);
}

struct fetch_wait {
    bool done;
    bool failed;
    struct cpa_error e;
};

static void wait_fetched(void *arg, const struct cpa_error *e)
{
    struct fetch_wait *w = arg;
    w->done = true;
    if (e != NULL) {
        w->failed = true;
        w->e = *e;
    }
}

int cpa_session_answer(struct cpa_session *s, const struct cpa_request *r, struct cpa_answer **out,
                       struct cpa_error *e)
{
    if (!wants_pvm(r))
        return cpa_session_answer_here(s, r, true, out, e);
    /* no lock held while the slaves compute: the event loop served here
     * may ask the session (an asynchronous answer, another query: it
     * queues on the set after this one) */
    struct fetch_wait w = {0};
    struct cpa_fetch *f = NULL;
    *out = NULL;
    int rc = cpa_session_fetch(s, r, wait_fetched, &w, &f, e);
    if (rc < 0)
        return -1;
    if (rc == 0) {
        cpa_serve_until(&w.done);
        cpa_session_fetch_close(f);
        if (w.failed) {
            *e = w.e;
            return -1;
        }
    }
    return cpa_session_answer_kept(s, r, out, e);
}
