/*
 * tcl_async.c - a session's asynchronous queries:
 *
 *   $s async WORDS CALLBACK   runs "$s {*}WORDS" without blocking the
 *                             interpreter; returns an id, and later calls
 *                             {*}CALLBACK CODE RESULT in the event loop
 *                             (CODE 0, or 1 with the error message)
 *   $s cancel ?ID?            the answers of the queries under way (or of
 *                             ID) are dropped; returns how many
 *
 * Every query goes through the session's background thread
 * (query_thread.c) in the order asked, and comes back as a Tcl event
 * queued to the interpreter's thread (Tcl_ThreadQueueEvent,
 * Tcl_ThreadAlert): answers come in the order asked.  They are delivered
 * (the answer made, the callback called) one at a time: the only query
 * under way at once, others each by a timer handler set from an idle
 * callback, so that redraws (idle callbacks), timers and window events
 * are all served between two of them: a phase's re-reduction that brings
 * several tables never holds the event loop for all of them at once, nor
 * for a redraw and a table together.  What the thread does depends on the
 * words:
 *
 *   - a critical-path table (cp, cp-zero, cp-path, cp-imbalance,
 *     timeline): the request is parsed and resolved here, answered by the
 *     core on the thread (cpa_session.c) and made a Tcl result here; for
 *     "table cp-zero ..." (tcl_tables.c) the thread computes the paths
 *     (the core keeps them) and the table is made here from them;
 *   - a table of a phase not reduced yet (-phase P): the phase's
 *     re-reduction runs on the thread (phases.c's job), the view is kept
 *     and the table made here;
 *   - a search (tcl_search.c): the intra-application critical path of its
 *     application is computed on the thread, then the search is
 *     evaluated here (the paths it asks for kept);
 *   - anything else (fast: the model is in memory): nothing there; it is
 *     evaluated here when its turn comes.
 *
 * libpvm is not thread-safe: a critical path on PVM slaves (a live run's
 * session, or -pvm private) is not computed on the thread but fetched
 * from the event loop (cpa_session_fetch: the slaves start on it when it
 * is asked, cpa_slaves.c drives them from the slaves' messages and Tcl
 * timers, the interpreter never waits); its job still passes through the
 * thread, and the answer is made from the kept paths once both the
 * thread's turn and the fetch are over, so the order holds: a job whose
 * slaves still compute holds the answers behind it.  A phase reduced by
 * the live run's slaves (the reducer ips2::run installs) is still done on
 * the interpreter's thread when its turn comes, as the synchronous
 * subcommands do: the reducer interface (model.h) waits for its answer.
 * A cancelled query is not started if it has not been; a fetch under way
 * is cancelled on the slaves (cpa_set_cancel: the next query starts);
 * one under way on the thread finishes there (what it computed stays:
 * the core's path cache, the phase's view) but nothing is delivered.
 * Closing the session drops its queries the same way; the core is freed
 * by the thread once it is idle.
 */
#include <stdlib.h>
#include <string.h>

#include "query_thread.h"
#include "tcl_cpa.h"
#include "tcl_util.h"

typedef struct Ips2Async {
    Ips2Session *s; /* NULL once the session is closed */
    Tcl_ThreadId owner;
    struct query_thread *thread;
    int refs; /* the session's, and one per job not delivered */
    Tcl_WideInt serial;
    struct AsyncJob *first, *last;       /* jobs not delivered, in order */
    struct AsyncJob *ready, *ready_last; /* jobs back from the thread, not delivered */
    bool scheduled;                      /* DeliverReady is on its way */
} Ips2Async;

enum job_kind {
    JOB_EVAL,  /* evaluated on the interpreter's thread */
    JOB_CP,    /* a critical-path request */
    JOB_PHASE, /* a phase's re-reduction, then evaluated */
};

typedef struct AsyncJob {
    struct query_job base; /* first: the thread's */
    Ips2Async *async;
    Tcl_WideInt id;
    enum job_kind kind;
    Tcl_Obj *words, *callback;
    bool dropped; /* cancelled: nothing is delivered */
    bool ran;     /* its thread part was done */
    /* JOB_CP */
    struct cpa_session *core;
    struct cpa_request *request;
    struct cpa_answer *answer;
    struct cpa_error error;
    int rc;   /* cpa_session_answer_here's */
    bool pvm; /* on PVM slaves: fetched from the event loop */
    struct cpa_fetch *fetch;
    bool fetching;  /* the fetch is under way: not delivered before it is done */
    bool then_eval; /* the words are evaluated once the paths are made */
    /* JOB_PHASE */
    struct ips2_phase_job *phase;
    char *phase_name;
    struct AsyncJob *prev, *next;
    struct AsyncJob *ready_next;
} AsyncJob;

typedef struct DoneEvent {
    Tcl_Event header;
    AsyncJob *job;
} DoneEvent;

/* --- the thread's side ------------------------------------------------------ */

static void RunCp(struct query_job *base)
{
    AsyncJob *job = (AsyncJob *)base;
    job->rc = cpa_session_answer_here(job->core, job->request, false, &job->answer, &job->error);
    job->ran = job->rc != 1;
}

static void RunPhase(struct query_job *base)
{
    AsyncJob *job = (AsyncJob *)base;
    ips2_phase_job_run(job->phase);
    job->ran = true;
}

static int DoneEventProc(Tcl_Event *ev, int flags);

/* On the thread: the job goes back to the interpreter's thread. */
static void Done(struct query_job *base)
{
    AsyncJob *job = (AsyncJob *)base;
    DoneEvent *ev = (DoneEvent *)ckalloc(sizeof *ev);
    ev->header.proc = DoneEventProc;
    ev->job = job;
    Tcl_ThreadQueueEvent(job->async->owner, &ev->header, TCL_QUEUE_TAIL);
    Tcl_ThreadAlert(job->async->owner);
}

static void FreeCore(void *core)
{
    cpa_session_free(core);
}

/* --- the interpreter's side ---------------------------------------------------- */

static void Release(Ips2Async *a)
{
    if (--a->refs == 0)
        ckfree(a);
}

static void FreeJob(AsyncJob *job)
{
    cpa_session_fetch_close(job->fetch);
    Tcl_DecrRefCount(job->words);
    Tcl_DecrRefCount(job->callback);
    cpa_request_free(job->request);
    cpa_answer_free(job->answer);
    ips2_phase_job_free(job->phase);
    if (job->phase_name != NULL)
        ckfree(job->phase_name);
    ckfree(job);
}

static void Unlink(Ips2Async *a, AsyncJob *job)
{
    if (job->prev != NULL)
        job->prev->next = job->next;
    else
        a->first = job->next;
    if (job->next != NULL)
        job->next->prev = job->prev;
    else
        a->last = job->prev;
    job->prev = job->next = NULL;
}

static void Schedule(Ips2Async *a);

static void Drop(AsyncJob *job)
{
    job->dropped = true;
    atomic_store(&job->base.cancelled, true);
    if (job->fetch != NULL) { /* its query stops on the slaves; the next one starts */
        cpa_session_fetch_close(job->fetch);
        job->fetch = NULL;
    }
    if (job->fetching) {
        job->fetching = false;
        Schedule(job->async); /* the jobs behind it may be ready */
    }
}

/* The slaves computed the paths of a job (from the event loop). */
static void Fetched(void *arg, const struct cpa_error *e)
{
    AsyncJob *job = arg;
    job->fetching = false;
    if (e != NULL) {
        job->rc = -1;
        job->error = *e;
    }
    if (job->async->ready != NULL)
        Schedule(job->async);
}

/* "$s {*}WORDS" here: its code and result (in the interpreter). */
static int Evaluate(Ips2Session *s, Tcl_Interp *interp, Tcl_Obj *words)
{
    Tcl_Size n;
    Tcl_Obj **v;
    if (Tcl_ListObjGetElements(interp, words, &n, &v) != TCL_OK)
        return TCL_ERROR;
    Tcl_Obj **cmd = (Tcl_Obj **)ckalloc((size_t)(n + 1) * sizeof *cmd);
    cmd[0] = Tcl_NewObj();
    Tcl_GetCommandFullName(interp, s->token, cmd[0]);
    memcpy(cmd + 1, v, (size_t)n * sizeof *cmd);
    int rc = Ips2EvalWords(interp, (int)n + 1, cmd);
    ckfree(cmd);
    return rc;
}

/* The job's answer, as the interpreter's result. */
static int Finish(Ips2Session *s, Tcl_Interp *interp, AsyncJob *job)
{
    char err[IPS2_ERR_MAX] = "";
    switch (job->kind) {
    case JOB_CP:
        if (job->then_eval) { /* the paths are kept by the core */
            if (job->pvm && job->rc != 0)
                return Ips2CpaError(interp, &job->error);
            return Evaluate(s, interp, job->words);
        }
        if (job->pvm) { /* the slaves' paths are kept (or the error is here) */
            if (job->rc == 0)
                job->rc =
                    cpa_session_answer_kept(job->core, job->request, &job->answer, &job->error);
        } else if (!job->ran) /* it closes the slaves' set: here */
            job->rc = cpa_session_answer(job->core, job->request, &job->answer, &job->error);
        if (job->rc != 0)
            return Ips2CpaError(interp, &job->error);
        Tcl_SetObjResult(interp, Ips2CpaAnswerObj(job->answer));
        return TCL_OK;
    case JOB_PHASE:
        if (!job->ran) /* the live run's slaves reduce it: here */
            ips2_phase_job_run(job->phase);
        int rc = ips2_phase_job_finish(s->m, job->phase, err);
        job->phase = NULL;
        if (rc != 0) {
            Tcl_SetObjResult(interp, Tcl_NewStringObj(err, -1));
            Tcl_SetErrorCode(interp, "IPS2", "PHASE", job->phase_name, NULL);
            return TCL_ERROR;
        }
        return Evaluate(s, interp, job->words);
    case JOB_EVAL:
        break;
    }
    return Evaluate(s, interp, job->words);
}

/* Delivers one job: its answer to its callback (nothing if it was dropped). */
static void Deliver(Ips2Async *a, AsyncJob *job)
{
    Ips2Session *s = a->s;
    char err[IPS2_ERR_MAX];
    Unlink(a, job);
    if (s != NULL && job->kind == JOB_PHASE && job->ran && job->dropped) {
        /* what the thread computed is kept for the next query */
        ips2_phase_job_finish(s->m, job->phase, err);
        job->phase = NULL;
    }
    if (s == NULL || job->dropped) {
        FreeJob(job);
        Release(a);
        return;
    }
    Tcl_Interp *interp = s->interp;
    Tcl_Preserve(interp);
    Tcl_Preserve(s);
    Tcl_InterpState saved = Tcl_SaveInterpState(interp, TCL_OK);
    int code = Finish(s, interp, job);
    Tcl_Obj *cmd = Tcl_DuplicateObj(job->callback);
    Tcl_IncrRefCount(cmd);
    Tcl_ListObjAppendElement(NULL, cmd, Tcl_NewIntObj(code == TCL_OK ? 0 : 1));
    Tcl_ListObjAppendElement(NULL, cmd, Tcl_GetObjResult(interp));
    Tcl_ResetResult(interp);
    if (Tcl_EvalObjEx(interp, cmd, TCL_EVAL_GLOBAL) != TCL_OK)
        Tcl_BackgroundException(interp, TCL_ERROR);
    Tcl_DecrRefCount(cmd);
    Tcl_RestoreInterpState(interp, saved);
    Tcl_Release(s);
    Tcl_Release(interp);
    FreeJob(job);
    Release(a);
}

/* Timer handler: the next job back from the thread is delivered (the
 * dropped ones before it are freed on the way); one whose slaves are
 * still computing holds the ones behind it until it is fetched. */
static void DeliverReady(ClientData cd)
{
    Ips2Async *a = cd;
    a->scheduled = false;
    while (a->ready != NULL && !a->ready->fetching) {
        AsyncJob *job = a->ready;
        a->ready = job->ready_next;
        if (a->ready == NULL)
            a->ready_last = NULL;
        bool quiet = a->s == NULL || job->dropped;
        Deliver(a, job);
        if (!quiet)
            break;
    }
    if (a->ready != NULL && !a->ready->fetching)
        Schedule(a);
    Release(a); /* Schedule's */
}

/* Idle callback: the redraws before it are done; the delivery waits for
 * the timers and events that are due. */
static void Kick(ClientData cd)
{
    Tcl_CreateTimerHandler(0, DeliverReady, cd);
}

static void Schedule(Ips2Async *a)
{
    if (a->scheduled)
        return;
    a->scheduled = true;
    a->refs++;
    Tcl_DoWhenIdle(Kick, a);
}

/* A job back from the thread: delivered now when it is the only one
 * under way (a click's table comes at once), else in its turn. */
static int DoneEventProc(Tcl_Event *ev, int flags)
{
    AsyncJob *job = ((DoneEvent *)ev)->job;
    Ips2Async *a = job->async;
    (void)flags;
    if (a->ready == NULL && !a->scheduled && !job->fetching && job->prev == NULL &&
        job->next == NULL) {
        Deliver(a, job);
        return 1;
    }
    job->ready_next = NULL;
    if (a->ready_last != NULL)
        a->ready_last->ready_next = job;
    else
        a->ready = job;
    a->ready_last = job;
    Schedule(a);
    return 1;
}

static Ips2Async *AsyncState(Ips2Session *s, Tcl_Interp *interp)
{
    Ips2Cpa *c = Ips2CpaState(s);
    if (c == NULL) {
        Tcl_SetObjResult(interp, Tcl_NewStringObj("out of memory", -1));
        return NULL;
    }
    if (c->async != NULL)
        return c->async;
    struct query_thread *thread = query_thread_new();
    if (thread == NULL) {
        Tcl_SetObjResult(interp, Tcl_NewStringObj("the query thread did not start", -1));
        Tcl_SetErrorCode(interp, "IPS2", "ASYNC", "THREAD", NULL);
        return NULL;
    }
    Ips2Async *a = (Ips2Async *)ckalloc(sizeof *a);
    memset(a, 0, sizeof *a);
    a->s = s;
    a->owner = Tcl_GetCurrentThread();
    a->thread = thread;
    a->refs = 1;
    c->async = a;
    return a;
}

/* The phase of a table's words (-phase P), when it is still to be reduced
 * and no query before it reduces it already; else NULL. */
static const char *PhaseToReduce(Ips2Session *s, Ips2Async *a, Tcl_Size n, Tcl_Obj **v)
{
    const char *phase = NULL;
    for (Tcl_Size i = 1; i + 1 < n; i++)
        if (strcmp(Tcl_GetString(v[i]), "-phase") == 0)
            phase = Tcl_GetString(v[i + 1]);
    if (phase == NULL || phase[0] == '\0' || !ips2_phase_pending(s->m, phase))
        return NULL;
    for (AsyncJob *j = a->first; j != NULL; j = j->next)
        if (j->kind == JOB_PHASE && !j->dropped && strcmp(j->phase_name, phase) == 0)
            return NULL;
    return phase;
}

/* A search (tcl_search.c) asks the critical-path core for profiles of
 * each application's paths: the intra-application path of its
 * application (-app, or the first one) is computed on the thread first
 * (not on PVM slaves: then all of it is done in its turn), so that the
 * search in its turn finds it kept. */
static void PrefetchSearchPath(Ips2Session *s, Tcl_Interp *interp, AsyncJob *job, Tcl_Obj *session,
                               Tcl_Size n, Tcl_Obj **v)
{
    Tcl_Obj *w[10];
    int k = 0;
    const char *app = s->m->napps ? s->m->apps[0].name : NULL;
    w[k++] = session;
    w[k++] = Tcl_NewStringObj("cp", -1);
    w[k++] = Tcl_NewStringObj("-mode", -1);
    w[k++] = Tcl_NewStringObj("intra", -1);
    for (Tcl_Size i = 1; i + 1 < n; i += 2) {
        const char *opt = Tcl_GetString(v[i]);
        if (strcmp(opt, "-app") == 0)
            app = Tcl_GetString(v[i + 1]);
        else if ((strcmp(opt, "-phase") == 0 || strcmp(opt, "-pvm") == 0) && k < 8) {
            w[k++] = v[i];
            w[k++] = v[i + 1];
        }
    }
    if (app == NULL || app[0] == '\0' || Ips2CpaState(s) == NULL)
        return;
    Tcl_Obj *words = Tcl_NewListObj(k, w);
    Tcl_ListObjAppendElement(NULL, words, Tcl_NewStringObj("-app", -1));
    Tcl_ListObjAppendElement(NULL, words, Tcl_NewStringObj(app, -1));
    Tcl_IncrRefCount(words);
    Tcl_Size nw;
    Tcl_Obj **wv;
    Tcl_ListObjGetElements(NULL, words, &nw, &wv);
    struct cpa_request *r = NULL;
    int rc = Ips2CpaRequest(s, interp, (int)nw, wv, &r);
    Tcl_DecrRefCount(words);
    Tcl_ResetResult(interp);
    if (rc != TCL_OK)
        return;
    if (cpa_request_uses_pvm(r)) {
        cpa_request_free(r);
        return;
    }
    job->request = r;
    job->kind = JOB_CP;
    job->then_eval = true;
    job->core = Ips2CpaState(s)->core;
    job->base.run = RunCp;
}

/* What the thread is to do for words: the job's kind and its parts. */
static void Classify(Ips2Session *s, Tcl_Interp *interp, Ips2Async *a, AsyncJob *job,
                     Tcl_Obj *session)
{
    Tcl_Size n;
    Tcl_Obj **v;
    char err[IPS2_ERR_MAX] = "";
    job->kind = JOB_EVAL;
    if (Tcl_ListObjGetElements(NULL, job->words, &n, &v) != TCL_OK || n < 1)
        return;
    bool table = n >= 2 && strcmp(Tcl_GetString(v[0]), "table") == 0 && Ips2CpaIsTable(v[1]);
    if (table || Ips2CpaIsTable(v[0])) {
        /* an error in the request: the evaluation in its turn says it */
        Tcl_Size skip = table ? 1 : 0;
        Tcl_Obj **objv = (Tcl_Obj **)ckalloc((size_t)(n + 1) * sizeof *objv);
        objv[0] = session;
        memcpy(objv + 1, v + skip, (size_t)(n - skip) * sizeof *objv);
        int rc = Ips2CpaRequest(s, interp, (int)(n - skip) + 1, objv, &job->request);
        ckfree(objv);
        Tcl_ResetResult(interp);
        if (rc != TCL_OK)
            return;
        job->kind = JOB_CP;
        job->then_eval = table;
        job->core = Ips2CpaState(s)->core;
        if (!cpa_request_uses_pvm(job->request))
            job->base.run = RunCp;
        else
            job->pvm = true;
        return;
    }
    const char *phase = PhaseToReduce(s, a, n, v);
    if (phase == NULL && strcmp(Tcl_GetString(v[0]), "search") == 0) {
        PrefetchSearchPath(s, interp, job, session, n, v);
        return;
    }
    if (phase == NULL || (job->phase = ips2_phase_job_new(s->m, phase, err)) == NULL)
        return;
    job->kind = JOB_PHASE;
    job->phase_name = ckalloc(strlen(phase) + 1);
    strcpy(job->phase_name, phase);
    if (ips2_phase_job_in_process(job->phase))
        job->base.run = RunPhase;
}

int Ips2AsyncCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Tcl_Size n;
    Tcl_Obj **v;
    if (objc != 4) {
        Tcl_WrongNumArgs(interp, 2, objv, "words callback");
        return TCL_ERROR;
    }
    if (Tcl_ListObjGetElements(interp, objv[2], &n, &v) != TCL_OK)
        return TCL_ERROR;
    Ips2Async *a = AsyncState(s, interp);
    if (a == NULL)
        return TCL_ERROR;
    AsyncJob *job = (AsyncJob *)ckalloc(sizeof *job);
    memset(job, 0, sizeof *job);
    job->base.done = Done;
    job->async = a;
    job->id = ++a->serial;
    job->words = objv[2];
    job->callback = objv[3];
    Tcl_IncrRefCount(job->words);
    Tcl_IncrRefCount(job->callback);
    Classify(s, interp, a, job, objv[0]);
    if (query_thread_push(a->thread, &job->base) != 0) {
        FreeJob(job);
        Tcl_SetObjResult(interp, Tcl_NewStringObj("the query thread is closing", -1));
        return TCL_ERROR;
    }
    job->prev = a->last;
    if (a->last != NULL)
        a->last->next = job;
    else
        a->first = job;
    a->last = job;
    a->refs++;
    if (job->pvm) {
        /* the slaves start now; the thread's turn keeps the answer's */
        int rc = cpa_session_fetch(job->core, job->request, Fetched, job, &job->fetch, &job->error);
        if (rc < 0)
            job->rc = -1;
        job->fetching = rc == 0;
    }
    Tcl_SetObjResult(interp, Tcl_NewWideIntObj(job->id));
    return TCL_OK;
}

int Ips2CancelCmd(Ips2Session *s, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Ips2Cpa *c = s->cpa;
    Ips2Async *a = c != NULL ? c->async : NULL;
    Tcl_WideInt id = 0;
    int count = 0;
    if (objc > 3) {
        Tcl_WrongNumArgs(interp, 2, objv, "?id?");
        return TCL_ERROR;
    }
    if (objc == 3 && Tcl_GetWideIntFromObj(interp, objv[2], &id) != TCL_OK)
        return TCL_ERROR;
    for (AsyncJob *j = a != NULL ? a->first : NULL; j != NULL; j = j->next)
        if (!j->dropped && (objc == 2 || j->id == id)) {
            Drop(j);
            count++;
        }
    Tcl_SetObjResult(interp, Tcl_NewIntObj(count));
    return TCL_OK;
}

void Ips2AsyncClose(Ips2Cpa *c)
{
    Ips2Async *a = c->async;
    struct cpa_session *core = c->core;
    c->async = NULL;
    c->core = NULL;
    if (a == NULL) {
        cpa_session_free(core);
        return;
    }
    for (AsyncJob *j = a->first; j != NULL; j = j->next)
        Drop(j);
    a->s = NULL;
    /* the slaves quit here (libpvm is this thread's); the rest of the core
     * is freed by the thread once the query under way is over */
    cpa_session_drop_pvm(core);
    query_thread_close(a->thread, FreeCore, core);
    a->thread = NULL;
    Release(a);
}
