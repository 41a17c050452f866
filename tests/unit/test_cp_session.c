/*
 * test_cp_session.c - the critical-path session core (master/cpa_session.c)
 * without Tcl, on random PAG parts written into a scratch session's pag/
 * directory and a model built in memory: the path's length equals the
 * oracle's, profiles add up, the path cache keeps one path per (mode,
 * application, zeroing), zeroing never lengthens the path, cp-path's
 * segments add up to its length, the timeline's limit truncates, requests
 * the model cannot answer are refused with their error kind, a replayed
 * part's applications are renamed (and the others said not replayed) and
 * a comparison run's times shifted, answers made on another thread equal
 * those made here and a PVM request is left to the interpreter's thread;
 * and the background thread (master/query_thread.c) runs its jobs in
 * order and skips cancelled ones; cp-zero's names (master/cpa_zero.c): a
 * misspelt one refused with the close ones, an inclusive one closed over
 * the call graph (a cycle included).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpa.h"
#include "cpa_session.h"
#include "model.h"
#include "query_thread.h"
#include "red_build.h"

#define SHIFT 5000000000LL /* the comparison run's shift, ns */

static char dir[64], replay_dir[64];
static char err[IPS2_ERR_MAX];
static struct ips2_pag **parts; /* the session's, as generated */
static size_t nparts;

static void write_parts(const char *session, struct ips2_pag **p, size_t n, const char *suffix)
{
    char path[256];
    snprintf(path, sizeof path, "%s/pag", session);
    mkdir(path, 0700);
    for (size_t k = 0; k < n; k++) {
        snprintf(path, sizeof path, "%s/pag/%s%s.pag", session, p[k]->machine, suffix);
        assert_int_equal(ips2_pag_write(p[k], path, err, sizeof err), 0);
    }
}

static int setup(void **state)
{
    struct ips2_cpa_random_opts o;
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/ips2-test-cpa-session-XXXXXX");
    snprintf(replay_dir, sizeof replay_dir, "/tmp/ips2-test-cpa-replay-XXXXXX");
    if (mkdtemp(dir) == NULL || mkdtemp(replay_dir) == NULL)
        return -1;
    ips2_cpa_random_defaults(&o, 7, 4000);
    o.parts = 2;
    o.apps = 2;
    if (ips2_cpa_random(&o, &parts, &nparts, err, sizeof err) != 0)
        return -1;
    write_parts(dir, parts, nparts, "");
    /* the replay session: one machine, its part also as a replay of it */
    struct ips2_pag **one;
    size_t none;
    ips2_cpa_random_defaults(&o, 11, 2000);
    o.parts = 1;
    o.apps = 2;
    if (ips2_cpa_random(&o, &one, &none, err, sizeof err) != 0)
        return -1;
    write_parts(replay_dir, one, none, "");
    write_parts(replay_dir, one, none, ".r1");
    ips2_cpa_parts_free(one, none);
    return 0;
}

static int teardown(void **state)
{
    char cmd[256];
    (void)state;
    ips2_cpa_parts_free(parts, nparts);
    snprintf(cmd, sizeof cmd, "rm -rf %s %s", dir, replay_dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* The model of the random session: machines m0, m1, applications a0, a1. */
static struct ips2_model *session_model(void)
{
    struct ips2_model *m = ips2_model_new();
    assert_non_null(m);
    assert_int_equal(ips2_model_set_session(m, dir, 0, err), 0);
    assert_int_equal(ips2_model_add_machine(m, "m0", "localhost", 0, err), 0);
    assert_int_equal(ips2_model_add_machine(m, "m1", "localhost", 0, err), 0);
    assert_int_equal(ips2_model_add_app(m, "a0", IPS2_MODE_ACTIVE, "", err), 0);
    assert_int_equal(ips2_model_add_app(m, "a1", IPS2_MODE_ACTIVE, "", err), 0);
    return m;
}

static struct cpa_answer *answer(struct cpa_session *s, struct ips2_model *m, struct cpa_request *r)
{
    struct cpa_error e;
    struct cpa_answer *a = NULL;
    if (cpa_request_resolve(r, m, &e) != 0)
        fail_msg("resolve: %s %s", e.code, e.message);
    r->where = CPA_WHERE_HERE;
    if (cpa_session_answer(s, r, &a, &e) != 0)
        fail_msg("answer: %s %s", e.code, e.message);
    cpa_request_free(r);
    return a;
}

static struct cpa_request *request(enum cpa_table t, enum ips2_cpa_mode mode, const char *app)
{
    struct cpa_request *r = cpa_request_new(t);
    assert_non_null(r);
    r->mode = mode;
    r->mode_given = true;
    assert_int_equal(cpa_request_set(&r->app, app), 0);
    return r;
}

/* ---- tables ---------------------------------------------------------------- */

static void profile_length_is_the_oracles(void **state)
{
    (void)state;
    struct ips2_model *m = session_model();
    struct cpa_session *s = cpa_session_new(m, "ips2slave");
    assert_non_null(s);
    struct ips2_cpa_query q = {.mode = IPS2_CPA_GLOBAL};
    struct ips2_cpa_path oracle;
    assert_int_equal(ips2_cpa_oracle(parts, nparts, &q, &oracle, err, sizeof err), 0);

    struct cpa_request *r = request(CPA_TABLE_PROFILE, IPS2_CPA_GLOBAL, NULL);
    r->level = IPS2_CPA_LEVEL_PROCEDURE;
    struct cpa_answer *a = answer(s, m, r);
    assert_int_equal(a->length, oracle.length);
    assert_false(a->distributed);
    assert_true(a->nprofile > 0);
    double percent = 0;
    int64_t ns = 0;
    for (size_t i = 0; i < a->nprofile; i++) {
        percent += a->profile[i].percent;
        ns += a->profile[i].ns;
        if (a->profile[i].path[0] != '\0')
            assert_non_null(strstr(a->profile[i].path, "/procedure:"));
    }
    assert_int_equal(ns, a->length);
    assert_true(percent > 99.9 && percent < 100.1);
    cpa_answer_free(a);

    /* the same path at the machine level: one entry per machine at most */
    r = request(CPA_TABLE_PROFILE, IPS2_CPA_GLOBAL, NULL);
    r->level = IPS2_CPA_LEVEL_MACHINE;
    a = answer(s, m, r);
    for (size_t i = 0; i < a->nprofile; i++)
        if (a->profile[i].path[0] != '\0')
            assert_int_equal(strncmp(a->profile[i].path, "machine:m", 9), 0);
    assert_int_equal(cpa_session_cached(s), 1);
    cpa_answer_free(a);
    ips2_cpa_path_free(&oracle);
    cpa_session_free(s);
    ips2_model_free(m);
}

static void paths_are_cached_per_query(void **state)
{
    (void)state;
    struct ips2_model *m = session_model();
    struct cpa_session *s = cpa_session_new(m, "ips2slave");
    cpa_answer_free(answer(s, m, request(CPA_TABLE_PROFILE, IPS2_CPA_GLOBAL, NULL)));
    cpa_answer_free(answer(s, m, request(CPA_TABLE_PATH, IPS2_CPA_GLOBAL, NULL)));
    cpa_answer_free(answer(s, m, request(CPA_TABLE_IMBALANCE, IPS2_CPA_GLOBAL, NULL)));
    assert_int_equal(cpa_session_cached(s), 1);
    cpa_answer_free(answer(s, m, request(CPA_TABLE_PROFILE, IPS2_CPA_INTRA, "a0")));
    cpa_answer_free(answer(s, m, request(CPA_TABLE_PROFILE, IPS2_CPA_INTRA, "a1")));
    assert_int_equal(cpa_session_cached(s), 3);

    /* zeroing: the base path (kept) and the zeroed one */
    struct cpa_request *r = request(CPA_TABLE_ZERO, IPS2_CPA_INTRA, "a0");
    assert_int_equal(cpa_request_set(&r->procedure, "f1"), 0);
    struct cpa_answer *a = answer(s, m, r);
    assert_int_equal(cpa_session_cached(s), 4);
    assert_true(a->new_length <= a->length);
    assert_string_equal(a->procedure, "f1");
    assert_null(a->process);
    cpa_answer_free(a);
    cpa_session_free(s);
    ips2_model_free(m);
}

static void segments_add_up_to_the_length(void **state)
{
    (void)state;
    struct ips2_model *m = session_model();
    struct cpa_session *s = cpa_session_new(m, "ips2slave");
    struct cpa_answer *a = answer(s, m, request(CPA_TABLE_PATH, IPS2_CPA_GLOBAL, NULL));
    int64_t sum = 0;
    assert_true(a->nsegments > 0);
    for (size_t i = 0; i < a->nsegments; i++) {
        const struct cpa_segment_row *g = &a->segments[i];
        sum += g->length;
        assert_true(g->from <= g->to);
        assert_int_equal(strncmp(g->thread, "app:a", 5), 0);
        if (strcmp(g->kind, "cpu") != 0)
            assert_int_equal(g->nwhat, 1); /* the source thread */
    }
    assert_int_equal(sum, a->length);
    cpa_answer_free(a);
    cpa_session_free(s);
    ips2_model_free(m);
}

/* cp-path's CPU rows name the CPA_SEGMENT_TOP procedures with most CPU on
 * the arc, most first, and count them all: checked against the oracle's
 * path, procedure by procedure (shares of one procedure added up; the
 * random parts' arcs run three procedures at most: the next test has
 * more). */
static void cpu_rows_name_the_top_procedures(void **state)
{
    (void)state;
    struct ips2_model *m = session_model();
    struct cpa_session *s = cpa_session_new(m, "ips2slave");
    struct cpa_answer *a = answer(s, m, request(CPA_TABLE_PATH, IPS2_CPA_GLOBAL, NULL));
    struct ips2_cpa_query q = {.mode = IPS2_CPA_GLOBAL};
    struct ips2_cpa_path path;
    ips2_cpa_path_init(&path);
    assert_int_equal(ips2_cpa_oracle(parts, nparts, &q, &path, err, sizeof err), 0);
    assert_int_equal(a->nsegments, path.nsegs);
    for (size_t i = 0; i < path.nsegs; i++) {
        const struct ips2_cpa_segment *g = &path.segs[i];
        const struct cpa_segment_row *row = &a->segments[i];
        if (g->kind != IPS2_CPA_SEG_CPU) {
            assert_int_equal(row->nprocs, 0);
            continue;
        }
        /* the procedures and their CPU, the slow way */
        uint32_t procs[512];
        int64_t cpu[512];
        size_t n = 0;
        for (uint32_t k = 0; k < g->nshares; k++) {
            const struct ips2_cpa_share *sh = &path.shares[g->first_share + k];
            size_t j = 0;
            while (j < n && procs[j] != sh->proc)
                j++;
            if (j == n) {
                assert_true(n < 512);
                procs[n] = sh->proc;
                cpu[n++] = 0;
            }
            cpu[j] += sh->cpu;
        }
        assert_int_equal(row->nprocs, n);
        assert_int_equal(row->nwhat, n < CPA_SEGMENT_TOP ? n : CPA_SEGMENT_TOP);
        for (size_t w = 0; w < row->nwhat; w++) {
            size_t best = 0;
            for (size_t j = 1; j < n; j++)
                if (cpu[j] > cpu[best])
                    best = j;
            const struct ips2_pag *pg = parts[g->dst_part];
            const char *want = procs[best] == IPS2_PAG_NONE ? "(none)" : pg->strings[procs[best]];
            /* a tie may name either: the CPU must be the best's */
            if (strcmp(row->what[w], want) != 0) {
                size_t j = 0;
                while (j < n && !(procs[j] != IPS2_PAG_NONE &&
                                  strcmp(pg->strings[procs[j]], row->what[w]) == 0))
                    j++;
                assert_true(j < n);
                assert_int_equal(cpu[j], cpu[best]);
                best = j;
            }
            cpu[best] = -1;
        }
    }
    ips2_cpa_path_free(&path);
    cpa_answer_free(a);
    cpa_session_free(s);
    ips2_model_free(m);
}

/* A one-thread session whose middle CPU arc ran six procedures (30, 25,
 * 20, 10, 10 and 5 ns, one of them in two shares): its row names the
 * three with most, most first, and counts six. */
static void a_busy_arc_names_three_and_counts_all(void **state)
{
    (void)state;
    static const char *const names[] = {"a0", "/bin/a0", "p1", "p2", "p3", "p4", "p5", "p6"};
    static const struct ips2_pag_share shares[] = {{5, 0, 10}, {2, 0, 20}, {7, 0, 5}, {3, 0, 25},
                                                   {6, 0, 10}, {4, 0, 20}, {2, 0, 10}};
    char many[64];
    snprintf(many, sizeof many, "/tmp/ips2-test-cpa-many-XXXXXX");
    assert_non_null(mkdtemp(many));
    struct ips2_pag *g = calloc(1, sizeof *g);
    assert_non_null(g);
    g->machine = strdup("m0");
    g->trace_dir = strdup("/nowhere");
    g->nstrings = sizeof names / sizeof names[0];
    g->strings = calloc(g->nstrings, sizeof(char *));
    for (size_t i = 0; i < g->nstrings; i++)
        g->strings[i] = strdup(names[i]);
    g->napps = 1;
    g->apps = calloc(1, sizeof *g->apps);
    g->nprocesses = 1;
    g->processes = calloc(1, sizeof *g->processes);
    g->processes[0] = (struct ips2_pag_process){0, 42, 0, 1};
    g->nthreads = 1;
    g->threads = calloc(1, sizeof *g->threads);
    g->threads[0] = (struct ips2_pag_thread){0, 42, 0, 3};
    g->nshares = sizeof shares / sizeof shares[0];
    g->shares = malloc(sizeof shares);
    memcpy(g->shares, shares, sizeof shares);
    g->nnodes = 3;
    g->nodes = calloc(3, sizeof *g->nodes);
    g->nodes[0] = (struct ips2_pag_node){0, 0, 0, 0, IPS2_PAG_BEGIN, 0, IPS2_PAG_NONE};
    g->nodes[1] = (struct ips2_pag_node){100, 100, 0, 7, 41, 0, 2};
    g->nodes[2] = (struct ips2_pag_node){110, 10, 0, 7, IPS2_PAG_END, 0, 2};
    write_parts(many, &g, 1, "");
    ips2_pag_free(g);

    struct ips2_model *m = ips2_model_new();
    assert_non_null(m);
    assert_int_equal(ips2_model_set_session(m, many, 0, err), 0);
    assert_int_equal(ips2_model_add_machine(m, "m0", "localhost", 0, err), 0);
    assert_int_equal(ips2_model_add_app(m, "a0", IPS2_MODE_ACTIVE, "", err), 0);
    struct cpa_session *s = cpa_session_new(m, "ips2slave");
    struct cpa_answer *a = answer(s, m, request(CPA_TABLE_PATH, IPS2_CPA_GLOBAL, NULL));
    assert_int_equal(a->nsegments, 2);
    const struct cpa_segment_row *row = &a->segments[0];
    assert_string_equal(row->kind, "cpu");
    assert_int_equal(row->length, 100);
    assert_int_equal(row->nprocs, 6);
    assert_int_equal(row->nwhat, 3);
    assert_string_equal(row->what[0], "p1"); /* 20 + 10 */
    assert_string_equal(row->what[1], "p2");
    assert_string_equal(row->what[2], "p3");
    assert_int_equal(a->segments[1].nprocs, 1); /* the rest of p1 */
    cpa_answer_free(a);
    cpa_session_free(s);
    ips2_model_free(m);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", many);
    assert_int_equal(system(cmd), 0);
}

static void timeline_limit_truncates(void **state)
{
    (void)state;
    struct ips2_model *m = session_model();
    struct cpa_session *s = cpa_session_new(m, "ips2slave");
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    size_t nodes = 0;
    for (size_t k = 0; k < nparts; k++)
        for (size_t i = 0; i < parts[k]->nnodes; i++) {
            lo = parts[k]->nodes[i].wall < lo ? parts[k]->nodes[i].wall : lo;
            hi = parts[k]->nodes[i].wall > hi ? parts[k]->nodes[i].wall : hi;
            nodes++;
        }
    struct cpa_request *r = cpa_request_new(CPA_TABLE_TIMELINE);
    r->from = lo;
    r->to = hi + 1;
    r->has_from = r->has_to = true;
    r->limit = 1000000;
    struct cpa_answer *a = answer(s, m, r);
    assert_false(a->truncated);
    assert_int_equal(a->nevents, nodes);
    assert_true(a->narcs > 0);
    size_t lanes = a->nlanes;
    cpa_answer_free(a);

    r = cpa_request_new(CPA_TABLE_TIMELINE);
    assert_int_equal(cpa_request_set(&r->node, "app:a0"), 0);
    r->from = lo;
    r->to = hi + 1;
    r->has_from = r->has_to = true;
    r->limit = 5;
    a = answer(s, m, r);
    assert_true(a->truncated);
    assert_int_equal(a->nevents + a->narcs, 5);
    assert_true(a->nlanes < lanes);
    for (size_t i = 0; i < a->nlanes; i++)
        assert_int_equal(strncmp(a->lanes[i], "app:a0/", 7), 0);
    cpa_answer_free(a);
    cpa_session_free(s);
    ips2_model_free(m);
}

static void bad_requests_are_refused(void **state)
{
    (void)state;
    struct ips2_model *m = session_model();
    struct {
        enum cpa_table table;
        enum ips2_cpa_mode mode;
        const char *app, *node, *phase, *code;
    } cases[] = {
        {CPA_TABLE_PROFILE, IPS2_CPA_INTRA, NULL, NULL, NULL, "USAGE"}, /* two apps: which? */
        {CPA_TABLE_PROFILE, IPS2_CPA_INTER, "zz", NULL, NULL, "APP"},
        {CPA_TABLE_PROFILE, IPS2_CPA_GLOBAL, NULL, "bogus", NULL, "NODE"},
        {CPA_TABLE_PROFILE, IPS2_CPA_GLOBAL, NULL, "app:a0/disk:x", NULL, "NODE"},
        {CPA_TABLE_PATH, IPS2_CPA_GLOBAL, NULL, NULL, "nope", "PHASE"},
        {CPA_TABLE_ZERO, IPS2_CPA_GLOBAL, NULL, NULL, NULL, "USAGE"},     /* no -procedure */
        {CPA_TABLE_TIMELINE, IPS2_CPA_GLOBAL, NULL, NULL, NULL, "USAGE"}, /* no -from */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct cpa_request *r = request(cases[i].table, cases[i].mode, cases[i].app);
        struct cpa_error e;
        assert_int_equal(cpa_request_set(&r->node, cases[i].node), 0);
        assert_int_equal(cpa_request_set(&r->phase, cases[i].phase), 0);
        assert_int_equal(cpa_request_resolve(r, m, &e), -1);
        assert_string_equal(e.code, cases[i].code);
        cpa_request_free(r);
    }
    /* the node's application is the query's; the only one is too */
    struct cpa_request *r = request(CPA_TABLE_PROFILE, IPS2_CPA_INTRA, NULL);
    struct cpa_error e;
    assert_int_equal(cpa_request_set(&r->node, "app:a1/machine:m0"), 0);
    assert_int_equal(cpa_request_resolve(r, m, &e), 0);
    assert_string_equal(r->app, "a1");
    cpa_request_free(r);
    /* -app without -mode: inter */
    r = cpa_request_new(CPA_TABLE_PROFILE);
    assert_int_equal(cpa_request_set(&r->app, "a0"), 0);
    assert_int_equal(cpa_request_resolve(r, m, &e), 0);
    assert_int_equal(r->mode, IPS2_CPA_INTER);
    cpa_request_free(r);
    /* a session without parts */
    struct ips2_model *empty = ips2_model_new();
    assert_int_equal(ips2_model_set_session(empty, "/nonexistent", 0, err), 0);
    struct cpa_session *s = cpa_session_new(empty, "ips2slave");
    r = request(CPA_TABLE_PROFILE, IPS2_CPA_GLOBAL, NULL);
    assert_int_equal(cpa_request_resolve(r, empty, &e), 0);
    struct cpa_answer *a = NULL;
    assert_int_equal(cpa_session_answer(s, r, &a, &e), -1);
    assert_string_equal(e.code, "PARTS");
    cpa_request_free(r);
    cpa_session_free(s);
    ips2_model_free(empty);
    ips2_model_free(m);
}

/* ---- replays ------------------------------------------------------------------ */

static void replayed_parts_are_renamed_and_shifted(void **state)
{
    (void)state;
    struct ips2_model *m = ips2_model_new();
    char source[128];
    assert_non_null(m);
    /* the part m0.r1.pag was written from replay_dir's traces: the random
     * generator's trace_dir "random" has no session, so the application
     * is known by the prefix r1 */
    snprintf(source, sizeof source, "%s/old", replay_dir);
    assert_int_equal(ips2_model_set_session(m, replay_dir, 0, err), 0);
    assert_int_equal(ips2_model_add_machine(m, "m0", "localhost", 0, err), 0);
    assert_int_equal(ips2_model_add_app(m, "a0", IPS2_MODE_ACTIVE, "", err), 0);
    assert_int_equal(ips2_model_add_app(m, "a1", IPS2_MODE_ACTIVE, "", err), 0);
    assert_int_equal(ips2_model_add_app(m, "r1a0", IPS2_MODE_COMPARISON, source, err), 0);
    assert_int_equal(ips2_model_set_shift(m, "r1a0", source, SHIFT, err), 0);
    struct cpa_session *s = cpa_session_new(m, "ips2slave");

    struct cpa_request *r = request(CPA_TABLE_PROFILE, IPS2_CPA_GLOBAL, NULL);
    struct cpa_answer *a = answer(s, m, r);
    bool replayed = false, not_replayed = false;
    for (size_t i = 0; i < a->nprofile; i++) {
        replayed |= strncmp(a->profile[i].path, "app:r1a0/", 9) == 0;
        not_replayed |= strncmp(a->profile[i].path, "app:(not replayed) a1/", 22) == 0;
    }
    cpa_answer_free(a);
    /* the global path is one run's: either the active one or the replay */
    r = request(CPA_TABLE_PROFILE, IPS2_CPA_INTRA, "r1a0");
    a = answer(s, m, r);
    int64_t replay_length = a->length;
    for (size_t i = 0; i < a->nprofile; i++)
        if (a->profile[i].path[0] != '\0')
            replayed |= strncmp(a->profile[i].path, "app:r1a0/", 9) == 0;
    cpa_answer_free(a);
    a = answer(s, m, request(CPA_TABLE_PROFILE, IPS2_CPA_INTRA, "a0"));
    assert_int_equal(a->length, replay_length); /* the same part, in its own run */
    cpa_answer_free(a);
    assert_true(replayed);

    /* the comparison run's nodes are SHIFT later than the active ones */
    struct ips2_pag *part;
    char file[256];
    snprintf(file, sizeof file, "%s/pag/m0.pag", replay_dir);
    assert_int_equal(ips2_pag_read(file, &part, err, sizeof err), 0);
    int64_t lo = part->nodes[0].wall, hi = lo;
    for (size_t i = 0; i < part->nnodes; i++) {
        lo = part->nodes[i].wall < lo ? part->nodes[i].wall : lo;
        hi = part->nodes[i].wall > hi ? part->nodes[i].wall : hi;
    }
    ips2_pag_free(part);
    size_t counts[2];
    for (int shifted = 0; shifted < 2; shifted++) {
        r = cpa_request_new(CPA_TABLE_TIMELINE);
        assert_int_equal(cpa_request_set(&r->node, shifted ? "app:r1a0" : "app:a0"), 0);
        if (shifted)
            assert_int_equal(cpa_request_set(&r->node, NULL), 0); /* every lane */
        r->from = lo + (shifted ? SHIFT : 0);
        r->to = hi + 1 + (shifted ? SHIFT : 0);
        r->has_from = r->has_to = true;
        r->limit = 1000000;
        a = answer(s, m, r);
        counts[shifted] = 0;
        for (size_t i = 0; i < a->nevents; i++)
            if (!shifted || strncmp(a->lanes[a->events[i].lane], "app:r1a0/", 9) == 0)
                counts[shifted]++;
        for (size_t i = 0; shifted && i < a->nlanes; i++)
            not_replayed |= strncmp(a->lanes[i], "app:(not replayed) a1/", 22) == 0;
        cpa_answer_free(a);
    }
    assert_true(not_replayed);
    assert_true(counts[0] > 0);
    assert_int_equal(counts[0], counts[1]);
    cpa_session_free(s);
    ips2_model_free(m);
}

/* ---- threads --------------------------------------------------------------------- */

struct off_thread {
    struct cpa_session *s;
    struct cpa_request *r;
    struct cpa_answer *a;
    struct cpa_error e;
    int rc;
};

static void *answer_off_thread(void *arg)
{
    struct off_thread *t = arg;
    t->rc = cpa_session_answer_here(t->s, t->r, false, &t->a, &t->e);
    return NULL;
}

static void answers_on_another_thread(void **state)
{
    (void)state;
    struct ips2_model *m = session_model();
    struct cpa_session *s = cpa_session_new(m, "ips2slave");
    struct off_thread t = {.s = s, .r = request(CPA_TABLE_PROFILE, IPS2_CPA_INTER, "a1")};
    pthread_t id;
    assert_int_equal(cpa_request_resolve(t.r, m, &t.e), 0);
    t.r->where = CPA_WHERE_HERE;
    assert_int_equal(pthread_create(&id, NULL, answer_off_thread, &t), 0);
    assert_int_equal(pthread_join(id, NULL), 0);
    assert_int_equal(t.rc, 0);
    struct cpa_answer *here = answer(s, m, request(CPA_TABLE_PROFILE, IPS2_CPA_INTER, "a1"));
    assert_int_equal(t.a->length, here->length);
    assert_int_equal(t.a->nprofile, here->nprofile);
    for (size_t i = 0; i < here->nprofile; i++) {
        assert_string_equal(t.a->profile[i].name, here->profile[i].name);
        assert_int_equal(t.a->profile[i].ns, here->profile[i].ns);
    }
    cpa_answer_free(t.a);
    cpa_answer_free(here);
    /* on PVM slaves: left to the interpreter's thread, nothing spawned */
    t.r->where = CPA_WHERE_PRIVATE;
    t.a = NULL;
    assert_true(cpa_request_uses_pvm(t.r));
    assert_int_equal(pthread_create(&id, NULL, answer_off_thread, &t), 0);
    assert_int_equal(pthread_join(id, NULL), 0);
    assert_int_equal(t.rc, 1);
    assert_null(t.a);
    cpa_request_free(t.r);
    cpa_session_free(s);
    ips2_model_free(m);
}

struct numbered_job {
    struct query_job base;
    int n;
    bool ran;
    pthread_mutex_t *lock;
    pthread_cond_t *cond;
    int *order, *norder, *hold;
};

static void run_numbered(struct query_job *base)
{
    struct numbered_job *j = (struct numbered_job *)base;
    pthread_mutex_lock(j->lock);
    while (*j->hold && j->n == 0) /* the first job waits until the test lets it go */
        pthread_cond_wait(j->cond, j->lock);
    j->ran = true;
    pthread_mutex_unlock(j->lock);
}

static void done_numbered(struct query_job *base)
{
    struct numbered_job *j = (struct numbered_job *)base;
    pthread_mutex_lock(j->lock);
    j->order[(*j->norder)++] = j->n;
    pthread_cond_broadcast(j->cond);
    pthread_mutex_unlock(j->lock);
}

static pthread_mutex_t last_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t last_cond = PTHREAD_COND_INITIALIZER;

static void last_job(void *arg)
{
    pthread_mutex_lock(&last_lock);
    *(int *)arg = 1;
    pthread_cond_broadcast(&last_cond);
    pthread_mutex_unlock(&last_lock);
}

static void thread_runs_jobs_in_order(void **state)
{
    (void)state;
    pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
    int order[8], norder = 0, hold = 1;
    static int closed;
    struct numbered_job jobs[5];
    struct query_thread *t = query_thread_new();
    assert_non_null(t);
    for (int i = 0; i < 5; i++) {
        jobs[i] = (struct numbered_job){
            .n = i, .lock = &lock, .cond = &cond, .order = order, .norder = &norder, .hold = &hold};
        jobs[i].base.run = run_numbered;
        jobs[i].base.done = done_numbered;
        atomic_init(&jobs[i].base.cancelled, false);
        assert_int_equal(query_thread_push(t, &jobs[i].base), 0);
    }
    /* job 2 cancelled while job 0 is held: it is not run, but done */
    atomic_store(&jobs[2].base.cancelled, true);
    pthread_mutex_lock(&lock);
    hold = 0;
    pthread_cond_broadcast(&cond);
    while (norder < 5)
        pthread_cond_wait(&cond, &lock);
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < 5; i++)
        assert_int_equal(order[i], i);
    assert_true(jobs[0].ran && jobs[1].ran && jobs[3].ran && jobs[4].ran);
    assert_false(jobs[2].ran);
    /* closing: the thread calls last when it is idle, then ends */
    closed = 0;
    query_thread_close(t, last_job, &closed);
    pthread_mutex_lock(&last_lock);
    while (!closed)
        pthread_cond_wait(&last_cond, &last_lock);
    pthread_mutex_unlock(&last_lock);
    assert_int_equal(closed, 1);
}

/* Reductions of one thread whose call graph is main -> build -> assemble
 * -> helper -> build (a cycle), main -> solve -> helper, main -> output:
 * what cp-zero -procedure names (master/cpa_zero.c). */
static void zeroed_names_from_the_call_graph(void **state)
{
    (void)state;
    struct ips2_reductions *r = rb_new("m0", 100000000);
    rb_process(r, "a0", 10, 0, 100);
    rb_thread(r, 10, 0, 100, 60);
    static const char *const procs[] = {"main", "build", "assemble", "helper", "solve", "output"};
    for (size_t i = 0; i < sizeof procs / sizeof procs[0]; i++)
        rb_proc(r, procs[i], 10, 1, 10);
    static const char *const arcs[][2] = {
        {NULL, "main"},      {"main", "build"}, {"build", "assemble"}, {"assemble", "helper"},
        {"helper", "build"}, {"main", "solve"}, {"solve", "helper"},   {"main", "output"}};
    for (size_t i = 0; i < sizeof arcs / sizeof arcs[0]; i++)
        rb_arc(r, arcs[i][0], arcs[i][1], 1, 10);
    struct ips2_model *m = ips2_model_new();
    assert_int_equal(ips2_model_add_reductions(m, r, err), 0);
    assert_int_equal(ips2_model_index(m, err), 0);
    static const struct {
        const char *name;
        bool inclusive;
        const char *names; /* NULL: refused, the message holding what */
        const char *what;
    } cases[] = {
        {"build", false, "build", NULL},
        {"build", true, "build\nassemble\nhelper", NULL},
        {"solve", true, "solve\nassemble\nbuild\nhelper", NULL},
        {"output", true, "output", NULL},
        {"main", true, "main\nassemble\nbuild\nhelper\noutput\nsolve", NULL},
        {"asemble", false, NULL, "no procedure \"asemble\" in the session; close: assemble"},
        {"Build", true, NULL, "close: build"},
        {"help", false, NULL, "close: helper"},             /* one inside the other */
        {"solver_main", false, NULL, "close: main, solve"}, /* the others inside it */
        {"zzzzzz", false, NULL, "nor one close to it"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *names = NULL;
        struct cpa_error e = {{0}, {0}};
        int rc = cpa_zero_names(m, cases[i].name, cases[i].inclusive, &names, &e);
        if (cases[i].names != NULL) {
            assert_int_equal(rc, 0);
            assert_string_equal(names, cases[i].names);
        } else {
            assert_int_equal(rc, -1);
            assert_string_equal(e.code, "PROCEDURE");
            if (strstr(e.message, cases[i].what) == NULL)
                fail_msg("%s: \"%s\" does not say \"%s\"", cases[i].name, e.message, cases[i].what);
        }
        free(names);
    }
    ips2_model_free(m);
    /* a model without reductions checks nothing */
    struct ips2_model *empty = ips2_model_new();
    char *names = NULL;
    struct cpa_error e;
    assert_int_equal(cpa_zero_names(empty, "anything", true, &names, &e), 0);
    assert_string_equal(names, "anything");
    free(names);
    ips2_model_free(empty);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(profile_length_is_the_oracles),
        cmocka_unit_test(paths_are_cached_per_query),
        cmocka_unit_test(segments_add_up_to_the_length),
        cmocka_unit_test(cpu_rows_name_the_top_procedures),
        cmocka_unit_test(a_busy_arc_names_three_and_counts_all),
        cmocka_unit_test(timeline_limit_truncates),
        cmocka_unit_test(bad_requests_are_refused),
        cmocka_unit_test(replayed_parts_are_renamed_and_shifted),
        cmocka_unit_test(answers_on_another_thread),
        cmocka_unit_test(thread_runs_jobs_in_order),
        cmocka_unit_test(zeroed_names_from_the_call_graph),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
