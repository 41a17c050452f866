/*
 * session_dir.c - loads a session directory (ANALYSTS.md §2-§3) into a
 * model: manifest.tcl, reductions/MACHINE.red and the log.  Nothing is rerun.
 *
 * The manifest is data written as Tcl commands.  It is read in a fresh
 * safe interpreter stripped of every command and namespace, that has only
 * the manifest's own commands, so that it can only ever describe a
 * session.  It is evaluated one command at a time: a bad command is one
 * problem, "manifest.tcl:LINE: what was expected", and the rest is read.
 * A reductions file that cannot be decoded is one problem naming the file
 * and byte offset; the other machines stand.  Each line of the log ("MACHINE:
 * what happened") is a problem as it is.
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

#include "tcl_session.h"

struct load {
    struct ips2_model *m;
    const char *file; /* "manifest.tcl", for messages */
    int line;
    int have_session;
};

/* ------------------------------------------------------------ commands --- */

static int wrong(Tcl_Interp *ip, const char *cmd, const char *args)
{
    Tcl_SetObjResult(ip, Tcl_ObjPrintf("%s: expected \"%s %s\"", cmd, cmd, args));
    return TCL_ERROR;
}

static int wide(Tcl_Interp *ip, Tcl_Obj *o, const char *what, Tcl_WideInt *v)
{
    if (Tcl_GetWideIntFromObj(NULL, o, v) == TCL_OK)
        return TCL_OK;
    Tcl_SetObjResult(
        ip, Tcl_ObjPrintf("expected %s (an integer) but got \"%s\"", what, Tcl_GetString(o)));
    return TCL_ERROR;
}

static int model_err(Tcl_Interp *ip, const char *err)
{
    Tcl_SetObjResult(ip, Tcl_NewStringObj(err, -1));
    return TCL_ERROR;
}

static int VersionCmd(ClientData cd, Tcl_Interp *ip, int objc, Tcl_Obj *const objv[])
{
    Tcl_WideInt v;

    (void)cd;
    if (objc != 2)
        return wrong(ip, "ips2-session", "VERSION");
    if (wide(ip, objv[1], "VERSION", &v) != TCL_OK)
        return TCL_ERROR;
    if (v != 1) {
        Tcl_SetObjResult(ip, Tcl_ObjPrintf("ips2-session: version %" PRId64
                                           " is not known (expected 1)",
                                           (int64_t)v));
        return TCL_ERROR;
    }
    return TCL_OK;
}

static int SessionCmd(ClientData cd, Tcl_Interp *ip, int objc, Tcl_Obj *const objv[])
{
    struct load *l = cd;
    char err[IPS2_ERR_MAX];
    Tcl_WideInt v;

    if (objc != 2)
        return wrong(ip, "session", "START-REAL-NS");
    if (wide(ip, objv[1], "START-REAL-NS", &v) != TCL_OK)
        return TCL_ERROR;
    if (ips2_model_set_session(l->m, l->m->dir, v, err) != 0)
        return model_err(ip, err);
    l->have_session = 1;
    return TCL_OK;
}

static int MachineCmd(ClientData cd, Tcl_Interp *ip, int objc, Tcl_Obj *const objv[])
{
    struct load *l = cd;
    char err[IPS2_ERR_MAX];
    Tcl_WideInt off;

    if (objc != 4)
        return wrong(ip, "machine", "NAME HOST REAL-MINUS-MONO-NS");
    if (wide(ip, objv[3], "REAL-MINUS-MONO-NS", &off) != TCL_OK)
        return TCL_ERROR;
    if (ips2_model_add_machine(l->m, Tcl_GetString(objv[1]), Tcl_GetString(objv[2]), off, err))
        return model_err(ip, err);
    return TCL_OK;
}

static int ApplicationCmd(ClientData cd, Tcl_Interp *ip, int objc, Tcl_Obj *const objv[])
{
    static const char *const modes[] = {"active", "replay", "comparison", NULL};
    struct load *l = cd;
    char err[IPS2_ERR_MAX];
    int mode;

    if (objc != 4)
        return wrong(ip, "application", "NAME MODE SOURCE");
    if (Tcl_GetIndexFromObjStruct(ip, objv[2], modes, sizeof(char *), "mode", 0, &mode) != TCL_OK)
        return TCL_ERROR;
    if (ips2_model_add_app(l->m, Tcl_GetString(objv[1]), (enum ips2_mode)mode,
                           Tcl_GetString(objv[3]), err))
        return model_err(ip, err);
    return TCL_OK;
}

static int ProcessCmd(ClientData cd, Tcl_Interp *ip, int objc, Tcl_Obj *const objv[])
{
    struct load *l = cd;
    char err[IPS2_ERR_MAX];
    Tcl_WideInt index, pid;
    Tcl_Obj *status;
    int rc;

    if (objc < 7)
        return wrong(ip, "process", "APP MACHINE INDEX PID {COMMAND...} STATUS");
    if (wide(ip, objv[3], "INDEX", &index) != TCL_OK || wide(ip, objv[4], "PID", &pid) != TCL_OK)
        return TCL_ERROR;
    if (index < 0 || index > INT32_MAX || pid < 0 || pid > UINT32_MAX) {
        Tcl_SetObjResult(ip, Tcl_NewStringObj("process: INDEX or PID out of range", -1));
        return TCL_ERROR;
    }
    /* STATUS is one word ({exited 0}) or the rest of the words (exited 0) */
    status = objc == 7 ? objv[6] : Tcl_NewListObj(objc - 6, objv + 6);
    Tcl_IncrRefCount(status);
    rc = ips2_model_add_process(l->m, Tcl_GetString(objv[1]), Tcl_GetString(objv[2]), (int)index,
                                (uint32_t)pid, Tcl_GetString(objv[5]), Tcl_GetString(status), err);
    Tcl_DecrRefCount(status);
    return rc ? model_err(ip, err) : TCL_OK;
}

static int ReplayedCmd(ClientData cd, Tcl_Interp *ip, int objc, Tcl_Obj *const objv[])
{
    struct load *l = cd;
    char err[IPS2_ERR_MAX];
    Tcl_WideInt shift;

    if (objc != 4)
        return wrong(ip, "replayed", "APP SESSION-DIR SHIFT-NS");
    if (wide(ip, objv[3], "SHIFT-NS", &shift) != TCL_OK)
        return TCL_ERROR;
    if (ips2_model_app_index(l->m, Tcl_GetString(objv[1])) < 0 &&
        ips2_model_add_app(l->m, Tcl_GetString(objv[1]), IPS2_MODE_COMPARISON,
                           Tcl_GetString(objv[2]), err))
        return model_err(ip, err);
    if (ips2_model_set_shift(l->m, Tcl_GetString(objv[1]), Tcl_GetString(objv[2]), shift, err))
        return model_err(ip, err);
    return TCL_OK;
}

static int PhaseCmd(ClientData cd, Tcl_Interp *ip, int objc, Tcl_Obj *const objv[])
{
    struct load *l = cd;
    char err[IPS2_ERR_MAX];
    Tcl_WideInt s, e;

    if (objc != 4)
        return wrong(ip, "phase", "NAME START-NS END-NS");
    if (wide(ip, objv[2], "START-NS", &s) != TCL_OK || wide(ip, objv[3], "END-NS", &e) != TCL_OK)
        return TCL_ERROR;
    if (ips2_phase_define(l->m, Tcl_GetString(objv[1]), s, e, err))
        return model_err(ip, err);
    return TCL_OK;
}

/* ------------------------------------------------------------ manifest --- */

/* A safe interpreter with nothing in it but the manifest's commands. */
static Tcl_Interp *manifest_interp(struct load *l)
{
    static const struct {
        const char *name;
        Tcl_ObjCmdProc *proc;
    } cmds[] = {{"ips2-session", VersionCmd}, {"session", SessionCmd},
                {"machine", MachineCmd},      {"application", ApplicationCmd},
                {"process", ProcessCmd},      {"replayed", ReplayedCmd},
                {"phase", PhaseCmd}};
    Tcl_Interp *ip = Tcl_CreateInterp();
    Tcl_Obj *names = NULL, *spaces = NULL, **elems;
    int n;

    if (ip == NULL)
        return NULL;
    if (Tcl_MakeSafe(ip) != TCL_OK || Tcl_Eval(ip, "info commands") != TCL_OK ||
        (names = Tcl_GetObjResult(ip), Tcl_IncrRefCount(names), 0) ||
        Tcl_Eval(ip, "namespace children ::") != TCL_OK ||
        (spaces = Tcl_GetObjResult(ip), Tcl_IncrRefCount(spaces), 0))
        goto fail;
    /* every command and namespace goes: nothing is left but ours */
    if (Tcl_ListObjGetElements(ip, names, &n, &elems) != TCL_OK)
        goto fail;
    for (int i = 0; i < n; i++)
        Tcl_DeleteCommand(ip, Tcl_GetString(elems[i]));
    if (Tcl_ListObjGetElements(ip, spaces, &n, &elems) != TCL_OK)
        goto fail;
    for (int i = 0; i < n; i++) {
        Tcl_Namespace *ns = Tcl_FindNamespace(ip, Tcl_GetString(elems[i]), NULL, 0);
        if (ns)
            Tcl_DeleteNamespace(ns);
    }
    Tcl_DecrRefCount(names);
    Tcl_DecrRefCount(spaces);
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
        Tcl_CreateObjCommand(ip, cmds[i].name, cmds[i].proc, l, NULL);
    return ip;
fail:
    if (names)
        Tcl_DecrRefCount(names);
    if (spaces)
        Tcl_DecrRefCount(spaces);
    Tcl_DeleteInterp(ip);
    return NULL;
}

static char *read_file(const char *path, size_t *size, char *err)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;

    if (f == NULL) {
        ips2_set_error(err, "%s: %s", path, strerror(errno));
        return NULL;
    }
    for (;;) {
        size_t got;
        if (n + 65536 + 1 > cap) {
            char *p = realloc(buf, cap = (cap + 65536 + 1) * 2);
            if (p == NULL) {
                free(buf);
                fclose(f);
                ips2_set_error(err, "%s: out of memory", path);
                return NULL;
            }
            buf = p;
        }
        got = fread(buf + n, 1, 65536, f);
        n += got;
        if (got < 65536)
            break;
    }
    if (ferror(f)) {
        ips2_set_error(err, "%s: %s", path, strerror(errno));
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    buf[n] = 0;
    *size = n;
    return buf;
}

/* Reads manifest.tcl into l->m; every bad command is a problem.  Returns 0,
 * or -1 when the manifest cannot be read at all. */
static int load_manifest(struct load *l, const char *path)
{
    char err[IPS2_ERR_MAX];
    size_t size;
    char *text = read_file(path, &size, err);
    Tcl_Interp *ip;
    const char *p, *end;
    Tcl_Parse parse;

    if (text == NULL)
        return -1;
    if ((ip = manifest_interp(l)) == NULL) {
        free(text);
        ips2_model_problem(l->m, "%s: cannot make a safe interpreter to read it", l->file);
        return -1;
    }
    p = text;
    end = text + size;
    l->line = 1;
    while (p < end) {
        const char *cmd;
        int cmdline;
        if (Tcl_ParseCommand(ip, p, (int)(end - p), 0, &parse) != TCL_OK) {
            int line = l->line;
            for (const char *q = p; q < end && q < parse.term; q++)
                line += *q == '\n';
            ips2_model_problem(l->m, "%s:%d: %s", l->file, line,
                               Tcl_GetString(Tcl_GetObjResult(ip)));
            break; /* the rest cannot be told apart */
        }
        cmd = parse.commandStart;
        cmdline = l->line;
        for (const char *q = p; q < cmd; q++)
            cmdline += *q == '\n';
        if (parse.numWords > 0 &&
            Tcl_EvalEx(ip, cmd, (int)parse.commandSize, TCL_EVAL_GLOBAL) != TCL_OK) {
            const char *msg = Tcl_GetString(Tcl_GetObjResult(ip));
            if (strncmp(msg, "invalid command name", 20) == 0)
                ips2_model_problem(l->m,
                                   "%s:%d: %s (expected ips2-session, session, machine, "
                                   "application, process, replayed or phase)",
                                   l->file, cmdline, msg);
            else
                ips2_model_problem(l->m, "%s:%d: %s", l->file, cmdline, msg);
        }
        for (const char *q = p; q < cmd + parse.commandSize && q < end; q++)
            l->line += *q == '\n';
        p = cmd + parse.commandSize;
        Tcl_FreeParse(&parse);
    }
    Tcl_DeleteInterp(ip);
    free(text);
    return 0;
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
    qsort(names, n, sizeof(*names), cmp_str);
    for (size_t i = 0; i < n; i++) {
        struct ips2_reductions *r;
        size_t size;
        char *data, name[4200];
        snprintf(path, sizeof(path), "%s/reductions/%s", dir, names[i]);
        snprintf(name, sizeof(name), "reductions/%s", names[i]);
        (*found)++;
        if ((data = read_file(path, &size, err)) == NULL) {
            ips2_model_problem(m, "%s", err);
            continue;
        }
        r = ips2_reductions_decode(data, size, name, err);
        free(data);
        if (r == NULL) {
            ips2_model_problem(m, "%s", err);
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
    char path[4096], line[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/log", dir);
    if ((f = fopen(path, "r")) == NULL)
        return;
    while (fgets(line, sizeof(line), f)) {
        size_t len = strlen(line);
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = 0;
        if (len)
            ips2_model_problem(m, "%s", line);
    }
    fclose(f);
}

struct ips2_model *Ips2LoadSession(const char *dir, char *err)
{
    struct ips2_model *m;
    struct load l = {.file = "manifest.tcl"};
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
    l.m = m;
    snprintf(path, sizeof(path), "%s/manifest.tcl", dir);
    manifest = access(path, F_OK) == 0;
    if (manifest && load_manifest(&l, path) != 0)
        ips2_model_problem(m, "manifest.tcl: cannot be read");
    if (manifest && !l.have_session)
        ips2_model_problem(m, "manifest.tcl: no \"session START-REAL-NS\" line");
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
