/*
 * session_dir.c - loads a session directory (ANALYSTS.md §2-§3) into a
 * model: manifest.tcl, reductions/MACHINE.red and the log.  Nothing is rerun.
 *
 * The manifest is data written as Tcl commands.  It is read by the
 * package's one manifest reader, ips2::manifest::load (manifest.tcl of
 * this folder: a safe interpreter that knows only the manifest's commands,
 * so that it can only ever describe a session), one command at a time: a
 * bad command is one problem, "manifest.tcl:LINE: what was expected", and
 * the rest is read.  The dict it gives is put into the model here.
 * A reductions file that cannot be decoded is one problem naming the file
 * and byte offset; the other machines stand.  Each line of the log ("MACHINE:
 * what happened") is a problem as it is.
 *
 * A session may have been received from someone else: a machine or an
 * application whose name is not a name (names.h: it would become a path,
 * "../../x", when the session's slaves make their files) is one problem and
 * left out, whether the manifest or a reductions file names it; the manifest
 * reader refuses such names already, this holds for files made by hand.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tcl.h>

#include "ips2_file.h"

#include "names.h"
#include "tcl_session.h"
#include "tcl_util.h"

/* ------------------------------------------------------------ manifest --- */

static int get_wide(Tcl_Obj *dict, const char *key, Tcl_WideInt *v)
{
    Tcl_Obj *o = Ips2DictValue(dict, key);

    return o != NULL && Tcl_GetWideIntFromObj(NULL, o, v) == TCL_OK ? 0 : -1;
}

static const char *get_str(Tcl_Obj *dict, const char *key)
{
    Tcl_Obj *o = Ips2DictValue(dict, key);

    return o ? Tcl_GetString(o) : "";
}

/* The manifest's entries under key, a dict NAME -> fields, in order. */
static int for_each(Tcl_Obj *manifest, const char *key,
                    int (*add)(struct ips2_model *m, const char *name, Tcl_Obj *fields, char *err),
                    struct ips2_model *m)
{
    Tcl_Obj *entries, *name, *fields;
    Tcl_DictSearch search;
    char err[IPS2_ERR_MAX];
    int done;

    if ((entries = Ips2DictValue(manifest, key)) == NULL ||
        Tcl_DictObjFirst(NULL, entries, &search, &name, &fields, &done) != TCL_OK)
        return -1;
    for (; !done; Tcl_DictObjNext(&search, &name, &fields, &done))
        if (add(m, Tcl_GetString(name), fields, err) != 0)
            ips2_model_problem(m, "manifest.tcl: %s %s: %s", key, Tcl_GetString(name), err);
    Tcl_DictObjDone(&search);
    return 0;
}

static int add_machine(struct ips2_model *m, const char *name, Tcl_Obj *f, char *err)
{
    Tcl_WideInt offset = 0;

    if (!ips2_is_name(name)) {
        ips2_set_error(err, "not a machine name (letters, digits, \"_\", \".\" and \"-\")");
        return -1;
    }
    get_wide(f, "offset", &offset);
    return ips2_model_add_machine(m, name, get_str(f, "host"), offset, err);
}

static int add_app(struct ips2_model *m, const char *name, Tcl_Obj *f, char *err)
{
    static const char *const modes[] = {"active", "replay", "comparison"};
    const char *mode = get_str(f, "mode");

    if (!ips2_is_name(name)) {
        ips2_set_error(err, "not an application name (letters, digits, \"_\", \".\" and \"-\")");
        return -1;
    }
    for (int i = 0; i < 3; i++)
        if (strcmp(mode, modes[i]) == 0)
            return ips2_model_add_app(m, name, (enum ips2_mode)i, get_str(f, "source"), err);
    ips2_set_error(err, "mode \"%s\" is not known", mode);
    return -1;
}

static int add_replayed(struct ips2_model *m, const char *app, Tcl_Obj *f, char *err)
{
    Tcl_WideInt shift = 0;

    get_wide(f, "shift", &shift);
    return ips2_model_set_shift(m, app, get_str(f, "session"), shift, err);
}

static int add_phase(struct ips2_model *m, const char *name, Tcl_Obj *f, char *err)
{
    Tcl_WideInt start = 0, end = 0;

    get_wide(f, "start", &start);
    get_wide(f, "end", &end);
    return ips2_phase_define(m, name, start, end, err);
}

static void add_processes(struct ips2_model *m, Tcl_Obj *manifest)
{
    char err[IPS2_ERR_MAX];
    Tcl_Obj *list, **procs;
    int n;

    if ((list = Ips2DictValue(manifest, "processes")) == NULL ||
        Tcl_ListObjGetElements(NULL, list, &n, &procs) != TCL_OK)
        return;
    for (int i = 0; i < n; i++) {
        Tcl_WideInt index = -1, pid = -1;
        get_wide(procs[i], "index", &index);
        get_wide(procs[i], "pid", &pid);
        if (index < 0 || index > INT32_MAX || pid < 0 || pid > UINT32_MAX) {
            ips2_model_problem(m, "manifest.tcl: process %s.%s: INDEX or PID out of range",
                               get_str(procs[i], "app"), get_str(procs[i], "index"));
            continue;
        }
        if (ips2_model_add_process(m, get_str(procs[i], "app"), get_str(procs[i], "machine"),
                                   (int)index, (uint32_t)pid, get_str(procs[i], "command"),
                                   get_str(procs[i], "status"), err) != 0)
            ips2_model_problem(m, "manifest.tcl: process %s.%s: %s", get_str(procs[i], "app"),
                               get_str(procs[i], "index"), err);
    }
}

/* Reads manifest.tcl into m with the package's one manifest reader,
 * ips2::manifest::load: every bad command is one problem,
 * "manifest.tcl:LINE: ...", and the rest is read; a manifest that cannot be
 * read at all is one problem saying why.  The interpreter's result and
 * state are left as they were. */
static void load_manifest(Tcl_Interp *interp, struct ips2_model *m, const char *path)
{
    Tcl_InterpState saved = Tcl_SaveInterpState(interp, TCL_OK);
    Tcl_Obj *cmd[3] = {Ips2Str("::ips2::manifest::load"), Ips2Str(path), Ips2Str("manifest.tcl")};
    Tcl_Obj *answer, *manifest, *problems, **elems;
    Tcl_WideInt start;
    int n;

    if (Tcl_EvalEx(interp, "package require ips2::manifest", -1, TCL_EVAL_GLOBAL) != TCL_OK) {
        ips2_model_problem(m, "manifest.tcl: not read, the manifest reader is missing: %s",
                           Tcl_GetStringResult(interp));
        goto done;
    }
    if (Ips2EvalWords(interp, 3, cmd) != TCL_OK) {
        ips2_model_problem(m, "%s", Tcl_GetStringResult(interp)); /* manifest.tcl: cannot read */
        goto done;
    }
    answer = Tcl_GetObjResult(interp);
    Tcl_IncrRefCount(answer);
    if (Tcl_ListObjIndex(NULL, answer, 0, &manifest) != TCL_OK || manifest == NULL ||
        Tcl_ListObjIndex(NULL, answer, 1, &problems) != TCL_OK || problems == NULL ||
        Tcl_ListObjGetElements(NULL, problems, &n, &elems) != TCL_OK) {
        ips2_model_problem(m, "manifest.tcl: the reader's answer is not {MANIFEST PROBLEMS}");
        Tcl_DecrRefCount(answer);
        goto done;
    }
    for (int i = 0; i < n; i++)
        ips2_model_problem(m, "%s", Tcl_GetString(elems[i]));
    if (get_wide(manifest, "session", &start) == 0)
        ips2_model_set_session(m, m->dir, start, NULL);
    for_each(manifest, "machines", add_machine, m);
    for_each(manifest, "applications", add_app, m);
    add_processes(m, manifest);
    for_each(manifest, "replayed", add_replayed, m);
    for_each(manifest, "phases", add_phase, m);
    Tcl_DecrRefCount(answer);
done:
    Tcl_RestoreInterpState(interp, saved);
}

/* ---------------------------------------------------------- reductions --- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void load_reductions(struct ips2_model *m, const char *dir, int *found)
{
    char path[4096], err[IPS2_ERR_MAX];
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    DIR *d;

    snprintf(path, sizeof(path), "%s/reductions", dir);
    if ((d = opendir(path)) == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        void *p;
        if (len < 5 || strcmp(e->d_name + len - 4, ".red") != 0)
            continue;
        if ((p = realloc(names, (n + 1) * sizeof(*names))) == NULL)
            break;
        names = p;
        if ((names[n] = strdup(e->d_name)) != NULL)
            n++;
    }
    closedir(d);
    if (n > 0)
        qsort(names, n, sizeof(*names), cmp_str);
    for (size_t i = 0; i < n; i++) {
        struct ips2_reductions *r;
        size_t size;
        char *data, name[4200];
        snprintf(path, sizeof(path), "%s/reductions/%s", dir, names[i]);
        snprintf(name, sizeof(name), "reductions/%s", names[i]);
        (*found)++;
        if ((data = ips2_file_read(path, &size, err)) == NULL) { /* never a FIFO */
            ips2_model_problem(m, "%s", err);
            continue;
        }
        r = ips2_reductions_decode(data, size, name, err);
        free(data);
        if (r == NULL) {
            ips2_model_problem(m, "%s", err);
            continue;
        }
        if (r->machine < r->nstrings && !ips2_is_name(r->strings[r->machine])) {
            ips2_model_problem(m,
                               "%s: machine \"%.80s\" is not a machine name (letters, digits, "
                               "\"_\", \".\" and \"-\"); left out",
                               name, r->strings[r->machine]);
            ips2_reductions_free(r);
            continue;
        }
        if (ips2_model_add_reductions(m, r, err) != 0) {
            ips2_model_problem(m, "%s: %s", name, err);
            continue;
        }
        /* a machine the manifest does not name (or no manifest) */
        if (ips2_model_machine_index(m, r->strings[r->machine]) < 0)
            ips2_model_add_machine(m, r->strings[r->machine],
                                   r->host != IPS2_RED_NONE ? r->strings[r->host] : NULL, 0, NULL);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static void load_log(struct ips2_model *m, const char *dir)
{
    char path[4096], err[IPS2_ERR_MAX];
    size_t size;
    char *text, *line, *next;

    snprintf(path, sizeof(path), "%s/log", dir);
    if (access(path, F_OK) != 0)
        return;
    if ((text = ips2_file_read(path, &size, err)) == NULL) { /* a FIFO named log: said */
        ips2_model_problem(m, "%s", err);
        return;
    }
    for (line = text; line < text + size; line = next) {
        size_t len = strcspn(line, "\n");
        next = line + len + (line[len] != '\0');
        line[len] = '\0';
        while (len && line[len - 1] == '\r')
            line[--len] = '\0';
        if (len)
            ips2_model_problem(m, "%.4095s", line);
    }
    free(text);
}

struct ips2_model *Ips2LoadSession(Tcl_Interp *interp, const char *dir, char *err)
{
    struct ips2_model *m;
    char path[4096];
    struct stat st;
    int manifest, reds = 0;

    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        ips2_set_error(err, "%s: not a directory", dir);
        return NULL;
    }
    if ((m = ips2_model_new()) == NULL || ips2_model_set_session(m, dir, 0, err) != 0) {
        ips2_model_free(m);
        ips2_set_error(err, "out of memory");
        return NULL;
    }
    snprintf(path, sizeof(path), "%s/manifest.tcl", dir);
    manifest = access(path, F_OK) == 0;
    if (manifest)
        load_manifest(interp, m, path);
    load_reductions(m, dir, &reds);
    if (!manifest && reds == 0) {
        ips2_set_error(err, "%s: not a session directory (no manifest.tcl, no reductions)", dir);
        ips2_model_free(m);
        return NULL;
    }
    if (!manifest)
        ips2_model_problem(m, "manifest.tcl: missing; the applications are those of the "
                              "reductions");
    load_log(m, dir);
    if (ips2_model_index(m, err) != 0) {
        ips2_model_free(m);
        return NULL;
    }
    return m;
}
