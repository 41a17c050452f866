/*
 * slave_proto.c - ips2slave's side of the protocol: unpacking what the
 * master sends (CONFIG, PROCESS, REPLAY, REDUCE) and packing what
 * the slave reports (HELLO, STARTED, EXITED, PROGRESS, PROBLEM, REDUCTIONS,
 * DONE, QUERY_FAILED).  The layouts are those documented in ips2_proto.h, field by
 * field in the same order.
 */
#include <pvm3.h>
#include <stdlib.h>
#include <string.h>

#include "ips2_proto.h"
#include "slave_proto.h"

/* Upper bound on list lengths in a message, against a garbled count. */
#define LIST_MAX 100000

#define TRY(expr)                                                                                  \
    do {                                                                                           \
        int rc_ = (expr);                                                                          \
        if (rc_ < 0)                                                                               \
            return rc_;                                                                            \
    } while (0)

/* Unpacks a u32 count and that many strings into a NULL-terminated array. */
static int upk_strv(char ***out, size_t *count)
{
    uint32_t n = 0;
    *out = NULL;
    TRY(ips2_upk_u32(&n));
    if (n > LIST_MAX)
        return PvmBadMsg;
    char **v = calloc((size_t)n + 1, sizeof *v);
    if (v == NULL)
        return PvmNoMem;
    *out = v;
    for (uint32_t i = 0; i < n; i++)
        TRY(ips2_upk_str(&v[i]));
    if (count != NULL)
        *count = n;
    return 0;
}

static void free_strv(char **v)
{
    for (size_t i = 0; v != NULL && v[i] != NULL; i++)
        free(v[i]);
    free(v);
}

int slave_upk_config(struct slave_config *c)
{
    memset(c, 0, sizeof *c);
    TRY(ips2_upk_u32(&c->version));
    TRY(ips2_upk_str(&c->session_dir));
    TRY(ips2_upk_str(&c->machine));
    TRY(ips2_upk_str(&c->host));
    TRY(ips2_upk_i64(&c->session_start));
    TRY(ips2_upk_i64(&c->interval_ns));
    TRY(ips2_upk_i64(&c->grace_ms));
    TRY(ips2_upk_u32(&c->flags));
    return 0;
}

void slave_config_free(struct slave_config *c)
{
    free(c->session_dir);
    free(c->machine);
    free(c->host);
    memset(c, 0, sizeof *c);
}

int slave_upk_process(struct slave_process *p)
{
    memset(p, 0, sizeof *p);
    TRY(ips2_upk_str(&p->app));
    TRY(ips2_upk_i32(&p->index));
    TRY(ips2_upk_str(&p->cwd));
    TRY(ips2_upk_i64(&p->timeout_ms));
    TRY(upk_strv(&p->argv, NULL));
    uint32_t n = 0;
    TRY(ips2_upk_u32(&n));
    if (n > LIST_MAX)
        return PvmBadMsg;
    p->env = calloc((size_t)n + 1, sizeof *p->env);
    if (p->env == NULL)
        return PvmNoMem;
    for (uint32_t i = 0; i < n; i++) {
        char *name = NULL, *value = NULL;
        int rc = ips2_upk_str(&name);
        if (rc >= 0)
            rc = ips2_upk_str(&value);
        char *both = NULL;
        if (rc >= 0) {
            size_t nn = strlen(name), nv = strlen(value);
            both = malloc(nn + nv + 2);
            if (both == NULL) {
                rc = PvmNoMem;
            } else {
                memcpy(both, name, nn);
                both[nn] = '=';
                memcpy(both + nn + 1, value, nv + 1);
            }
        }
        free(name);
        free(value);
        if (rc < 0)
            return rc;
        p->env[i] = both;
    }
    return 0;
}

void slave_process_free(struct slave_process *p)
{
    free(p->app);
    free(p->cwd);
    free_strv(p->argv);
    free_strv(p->env);
    memset(p, 0, sizeof *p);
}

int slave_upk_replay(struct slave_replay *r)
{
    memset(r, 0, sizeof *r);
    TRY(ips2_upk_str(&r->session));
    TRY(ips2_upk_str(&r->trace_dir));
    TRY(ips2_upk_str(&r->prefix));
    TRY(upk_strv(&r->apps, &r->napps));
    uint32_t n = 0;
    TRY(ips2_upk_u32(&n));
    if (n > LIST_MAX)
        return PvmBadMsg;
    r->expected = calloc((size_t)n + 1, sizeof *r->expected);
    if (r->expected == NULL)
        return PvmNoMem;
    for (uint32_t i = 0; i < n; i++) {
        r->nexpected = i + 1;
        TRY(ips2_upk_str(&r->expected[i].app));
        TRY(ips2_upk_i32(&r->expected[i].pid));
    }
    return 0;
}

void slave_replay_free(struct slave_replay *r)
{
    free(r->session);
    free(r->trace_dir);
    free(r->prefix);
    free_strv(r->apps);
    for (size_t i = 0; i < r->nexpected; i++)
        free(r->expected[i].app);
    free(r->expected);
    memset(r, 0, sizeof *r);
}

int slave_upk_reduce(struct slave_reduce *q)
{
    memset(q, 0, sizeof *q);
    TRY(ips2_upk_i32(&q->query));
    TRY(ips2_upk_str(&q->trace_dir));
    TRY(ips2_upk_i64(&q->session_start));
    TRY(ips2_upk_i64(&q->start));
    TRY(ips2_upk_i64(&q->end));
    TRY(ips2_upk_i64(&q->interval_ns));
    return 0;
}

void slave_reduce_free(struct slave_reduce *q)
{
    free(q->trace_dir);
    memset(q, 0, sizeof *q);
}

/* Sends the packed buffer; a new one is started by each sender. */
static int send(int master, int tag)
{
    return pvm_send(master, tag);
}

#define BEGIN() TRY(pvm_initsend(PvmDataDefault))

int slave_send_hello(int master, const char *machine, const char *host, int pid,
                     int64_t real_minus_mono)
{
    BEGIN();
    TRY(ips2_pk_u32(IPS2_PROTO_VERSION));
    TRY(ips2_pk_str(machine));
    TRY(ips2_pk_str(host));
    TRY(ips2_pk_i32(pid));
    TRY(ips2_pk_i64(real_minus_mono));
    return send(master, IPS2_TAG_HELLO);
}

int slave_send_started(int master, const char *app, int index, int pid)
{
    BEGIN();
    TRY(ips2_pk_str(app));
    TRY(ips2_pk_i32(index));
    TRY(ips2_pk_i32(pid));
    return send(master, IPS2_TAG_STARTED);
}

int slave_send_exited(int master, const struct slave_proc_end *end)
{
    BEGIN();
    TRY(ips2_pk_str(end->app));
    TRY(ips2_pk_i32(end->index));
    TRY(ips2_pk_i32(end->pid));
    TRY(ips2_pk_i32(end->how));
    TRY(ips2_pk_i32(end->code));
    TRY(ips2_pk_str(end->text));
    return send(master, IPS2_TAG_EXITED);
}

int slave_send_progress(int master, int stage, int64_t done, int64_t total)
{
    BEGIN();
    TRY(ips2_pk_str(ips2_stage_name(stage)));
    TRY(ips2_pk_i64(done));
    TRY(ips2_pk_i64(total));
    return send(master, IPS2_TAG_PROGRESS);
}

int slave_send_problem(int master, const char *text)
{
    BEGIN();
    TRY(ips2_pk_str(text));
    return send(master, IPS2_TAG_PROBLEM);
}

int slave_send_reductions(int master, int query, const void *data, size_t size)
{
    BEGIN();
    TRY(ips2_pk_i32(query));
    TRY(ips2_pk_blob(data, size));
    return send(master, IPS2_TAG_REDUCTIONS);
}

int slave_send_done(int master, int query, int ok)
{
    BEGIN();
    TRY(ips2_pk_i32(query));
    TRY(ips2_pk_i32(ok));
    return send(master, IPS2_TAG_DONE);
}

int slave_send_query_failed(int master, int query, const char *why)
{
    BEGIN();
    TRY(ips2_pk_i32(query));
    TRY(ips2_pk_str(why));
    return send(master, IPS2_TAG_QUERY_FAILED);
}
