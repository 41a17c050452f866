/*
 * otf2.c - the OTF2 writer (ips2_export.h): one archive DIR/traces.otf2.
 *
 * Events go to one location's event writer at a time (the session's
 * threads are read one after another), which OTF2 flushes to its file in
 * chunks, so memory holds a chunk, not a trace.  The definitions follow at
 * the end, when every name, region and time is known:
 *
 *   system tree   the session, then one node per machine
 *   location group one per process image ("APP pid P"), under its machine
 *   location      one per thread ("thread T"), a CPU thread
 *   region        one per procedure name (a function of the compiler's
 *                 instrumentation)
 *   messages      MPI point-to-point records, OTF2's only ones, over one
 *                 communicator whose rank r is location r: a send names
 *                 its receiver's rank, a receive its sender's, as the PAG
 *                 paired them (OTF2_UNDEFINED_UINT32: no partner); the tag
 *                 is a PVM message's, else 0; the length its bytes
 *   locks         thread acquire and release (pthread model), the lock
 *                 numbered in the session; the acquisition order is the
 *                 release seq the acquisition names, and its release's
 *                 seq - 1, so that a hold's two events have one number
 *   clock         timestamps in ns of CLOCK_REALTIME (each machine's
 *                 monotonic clock moved by its offset), so the resolution
 *                 is 1e9, the global offset the first event's time, which
 *                 is also its realtime timestamp, and the length the span
 *                 to the last.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

#include "export_internal.h"

struct otf2w {
    struct ex_session *s;
    OTF2_Archive *archive;
    OTF2_EvtWriter *evt;
    uint64_t *nevents; /* per location */
    uint64_t first, last;
    bool any;
    struct ex_map regions; /* string -> region */
    uint32_t *region_names;
    size_t nregions, cap_regions;
    bool oom; /* a label could not be made */
};

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *caller,
                                bool final)
{
    return OTF2_FLUSH;
}

static const OTF2_FlushCallbacks flush_callbacks = {pre_flush, NULL};

static int failed(char *err, size_t errlen, const char *what, OTF2_ErrorCode code)
{
    ex_error(err, errlen, "OTF2: %s: %s", what, OTF2_Error_GetDescription(code));
    return -1;
}

static int begin(void *p, struct ex_session *s, const char *out, char *err, size_t errlen)
{
    struct otf2w *w = p;
    char anchor[4096];
    struct stat st;
    OTF2_ErrorCode rc;

    w->s = s;
    snprintf(anchor, sizeof(anchor), "%s/traces.otf2", out);
    if (stat(anchor, &st) == 0) {
        ex_error(err, errlen, "%s: an OTF2 archive is there already", anchor);
        return -1;
    }
    if (!(w->nevents = calloc(s->nthreads + 1, sizeof(*w->nevents)))) {
        ex_error(err, errlen, "out of memory");
        return -1;
    }
    w->archive = OTF2_Archive_Open(out, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                   OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!w->archive) {
        ex_error(err, errlen, "OTF2: cannot make an archive in %s", out);
        return -1;
    }
    if ((rc = OTF2_Archive_SetFlushCallbacks(w->archive, &flush_callbacks, NULL)) != OTF2_SUCCESS)
        return failed(err, errlen, "flush callbacks", rc);
    if ((rc = OTF2_Archive_SetSerialCollectiveCallbacks(w->archive)) != OTF2_SUCCESS)
        return failed(err, errlen, "collective callbacks", rc);
    OTF2_Archive_SetCreator(w->archive, "ips2-export");
    OTF2_Archive_SetDescription(w->archive, s->dir);
    if ((rc = OTF2_Archive_OpenEvtFiles(w->archive)) != OTF2_SUCCESS)
        return failed(err, errlen, "event files", rc);
    return 0;
}

static int thread_begin(void *p, uint32_t loc, char *err, size_t errlen)
{
    struct otf2w *w = p;

    if (!(w->evt = OTF2_Archive_GetEvtWriter(w->archive, loc))) {
        ex_error(err, errlen, "OTF2: no event writer for location %u", loc);
        return -1;
    }
    return 0;
}

static uint32_t region_of(struct otf2w *w, uint32_t name)
{
    bool fresh;
    uint32_t *r = ex_map_get(&w->regions, name, 0, 0, (uint32_t)w->nregions, &fresh);

    if (!r)
        return EX_NONE;
    if (fresh) {
        if (w->nregions == w->cap_regions) {
            size_t cap = w->cap_regions ? w->cap_regions * 2 : 64;
            uint32_t *v = realloc(w->region_names, cap * sizeof(*v));
            if (!v)
                return EX_NONE;
            w->region_names = v;
            w->cap_regions = cap;
        }
        w->region_names[w->nregions++] = name;
    }
    return *r;
}

static int event(void *p, uint32_t loc, const struct ex_event *e, char *err, size_t errlen)
{
    struct otf2w *w = p;
    OTF2_TimeStamp ts = (OTF2_TimeStamp)(e->t + w->s->start_real);
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    uint32_t r, peer = e->peer == EX_NONE ? OTF2_UNDEFINED_UINT32 : e->peer;

    if (!w->any || ts < w->first)
        w->first = ts;
    if (!w->any || ts > w->last)
        w->last = ts;
    w->any = true;
    switch (e->kind) {
    case EX_ENTER:
    case EX_LEAVE:
        if ((r = region_of(w, e->region)) == EX_NONE) {
            ex_error(err, errlen, "out of memory");
            return -1;
        }
        rc = e->kind == EX_ENTER ? OTF2_EvtWriter_Enter(w->evt, NULL, ts, r)
                                 : OTF2_EvtWriter_Leave(w->evt, NULL, ts, r);
        break;
    case EX_SEND:
        rc = OTF2_EvtWriter_MpiSend(w->evt, NULL, ts, peer, 0, e->tag, e->bytes);
        break;
    case EX_RECV:
        rc = OTF2_EvtWriter_MpiRecv(w->evt, NULL, ts, peer, 0, e->tag, e->bytes);
        break;
    case EX_ACQUIRE:
        rc = OTF2_EvtWriter_ThreadAcquireLock(w->evt, NULL, ts, OTF2_PARADIGM_PTHREAD, e->lock,
                                              e->order);
        break;
    case EX_RELEASE:
        rc = OTF2_EvtWriter_ThreadReleaseLock(w->evt, NULL, ts, OTF2_PARADIGM_PTHREAD, e->lock,
                                              e->order);
        break;
    }
    if (rc != OTF2_SUCCESS)
        return failed(err, errlen, "writing an event", rc);
    w->nevents[loc]++;
    return 0;
}

static int thread_end(void *p, uint32_t loc, int64_t t, uint64_t cpu, char *err, size_t errlen)
{
    struct otf2w *w = p;
    OTF2_ErrorCode rc = OTF2_Archive_CloseEvtWriter(w->archive, w->evt);

    w->evt = NULL;
    return rc == OTF2_SUCCESS ? 0 : failed(err, errlen, "closing an event writer", rc);
}

/* A string of ours, by id (added to the session's table). */
static uint32_t label(struct otf2w *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static uint32_t label(struct otf2w *w, const char *fmt, ...)
{
    char buf[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    uint32_t id = ex_string(&w->s->strings, buf);
    w->oom |= id == EX_NONE;
    return id;
}

static int definitions(struct otf2w *w, char *err, size_t errlen)
{
    struct ex_session *s = w->s;
    OTF2_GlobalDefWriter *d = OTF2_Archive_GetGlobalDefWriter(w->archive);
    size_t n = s->nthreads;
    const char *base = strrchr(s->dir, '/');
    uint32_t root, node_class, machine_class, *groups, *locs, *machines;
    uint32_t comm_locs, comm_group, comm;
    uint64_t *members;
    OTF2_ErrorCode rc = OTF2_SUCCESS;

    if (!d)
        return failed(err, errlen, "global definitions", OTF2_ERROR_INVALID);
    /* every label first: the strings are written before what names them */
    root = label(w, "%s", base && base[1] ? base + 1 : s->dir);
    node_class = label(w, "session");
    machine_class = label(w, "machine");
    comm_locs = label(w, "ips2 threads");
    comm_group = label(w, "ips2 ranks");
    comm = label(w, "ips2 messages");
    machines = calloc(s->nmachines + 1, sizeof(*machines));
    groups = calloc(s->ngroups + 1, sizeof(*groups));
    locs = calloc(n + 1, sizeof(*locs));
    members = calloc(n + 1, sizeof(*members));
    if (!machines || !groups || !locs || !members) {
        free(machines);
        free(groups);
        free(locs);
        free(members);
        ex_error(err, errlen, "out of memory");
        return -1;
    }
    for (size_t m = 0; m < s->nmachines; m++)
        machines[m] = s->machines[m].host[0]
                          ? label(w, "%s (%s)", s->machines[m].name, s->machines[m].host)
                          : label(w, "%s", s->machines[m].name);
    for (size_t g = 0; g < s->ngroups; g++) {
        const struct ex_group *x = &s->groups[g];
        groups[g] = x->image
                        ? label(w, "%s pid %d image %u", s->strings.v[x->app], x->pid, x->image)
                        : label(w, "%s pid %d", s->strings.v[x->app], x->pid);
    }
    for (size_t i = 0; i < n; i++) {
        locs[i] = s->threads[i].k ? label(w, "thread %d (%u)", s->threads[i].tid, s->threads[i].k)
                                  : label(w, "thread %d", s->threads[i].tid);
        members[i] = i;
    }
    if (w->oom)
        rc = OTF2_ERROR_MEM_ALLOC_FAILED;
    uint64_t length = w->any ? w->last - w->first : 0;
    uint64_t offset = w->any ? w->first : (uint64_t)s->start_real;
    if (rc == OTF2_SUCCESS)
        rc = OTF2_GlobalDefWriter_WriteClockProperties(d, 1000000000, offset, length, offset);
    for (size_t i = 0; rc == OTF2_SUCCESS && i < s->strings.n; i++)
        rc = OTF2_GlobalDefWriter_WriteString(d, (OTF2_StringRef)i, s->strings.v[i]);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, root, node_class,
                                                      OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (size_t m = 0; rc == OTF2_SUCCESS && m < s->nmachines; m++)
        rc = OTF2_GlobalDefWriter_WriteSystemTreeNode(d, (OTF2_SystemTreeNodeRef)(m + 1),
                                                      machines[m], machine_class, 0);
    for (size_t g = 0; rc == OTF2_SUCCESS && g < s->ngroups; g++)
        rc = OTF2_GlobalDefWriter_WriteLocationGroup(
            d, (OTF2_LocationGroupRef)g, groups[g], OTF2_LOCATION_GROUP_TYPE_PROCESS,
            (OTF2_SystemTreeNodeRef)(s->groups[g].machine + 1), OTF2_UNDEFINED_LOCATION_GROUP);
    for (size_t i = 0; rc == OTF2_SUCCESS && i < n; i++)
        rc = OTF2_GlobalDefWriter_WriteLocation(d, (OTF2_LocationRef)i, locs[i],
                                                OTF2_LOCATION_TYPE_CPU_THREAD, w->nevents[i],
                                                (OTF2_LocationGroupRef)s->threads[i].group);
    for (size_t r = 0; rc == OTF2_SUCCESS && r < w->nregions; r++)
        rc = OTF2_GlobalDefWriter_WriteRegion(d, (OTF2_RegionRef)r, w->region_names[r],
                                              w->region_names[r], w->region_names[r],
                                              OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_COMPILER,
                                              OTF2_REGION_FLAG_NONE, OTF2_UNDEFINED_STRING, 0, 0);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_GlobalDefWriter_WriteGroup(d, 0, comm_locs, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                             OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)n,
                                             members);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_GlobalDefWriter_WriteGroup(d, 1, comm_group, OTF2_GROUP_TYPE_COMM_GROUP,
                                             OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)n,
                                             members);
    if (rc == OTF2_SUCCESS)
        rc =
            OTF2_GlobalDefWriter_WriteComm(d, 0, comm, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    free(machines);
    free(groups);
    free(locs);
    free(members);
    return rc == OTF2_SUCCESS ? 0 : failed(err, errlen, "writing the definitions", rc);
}

static int finish(void *p, struct ips2_export_counts *c, char *err, size_t errlen)
{
    struct otf2w *w = p;
    OTF2_ErrorCode rc;

    if ((rc = OTF2_Archive_CloseEvtFiles(w->archive)) != OTF2_SUCCESS)
        return failed(err, errlen, "closing the event files", rc);
    /* empty local definitions: every location's mapping is the identity */
    if ((rc = OTF2_Archive_OpenDefFiles(w->archive)) != OTF2_SUCCESS)
        return failed(err, errlen, "definition files", rc);
    for (size_t i = 0; i < w->s->nthreads; i++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(w->archive, (OTF2_LocationRef)i);
        if (!dw)
            return failed(err, errlen, "a definition writer", OTF2_ERROR_INVALID);
        OTF2_Archive_CloseDefWriter(w->archive, dw);
    }
    if ((rc = OTF2_Archive_CloseDefFiles(w->archive)) != OTF2_SUCCESS)
        return failed(err, errlen, "closing the definition files", rc);
    if (definitions(w, err, errlen) < 0)
        return -1;
    rc = OTF2_Archive_Close(w->archive);
    w->archive = NULL;
    return rc == OTF2_SUCCESS ? 0 : failed(err, errlen, "closing the archive", rc);
}

static void otf2w_free(void *p)
{
    struct otf2w *w = p;

    if (w->archive)
        OTF2_Archive_Close(w->archive);
    free(w->nevents);
    free(w->region_names);
    ex_map_free(&w->regions);
    free(w);
}

static const struct ex_writer ops = {begin, thread_begin, event, thread_end, finish, otf2w_free};

void *ex_otf2_new(const struct ex_writer **o)
{
    *o = &ops;
    return calloc(1, sizeof(struct otf2w));
}
