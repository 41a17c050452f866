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

static void free_strv(char **v)
{
    for (size_t i = 0; v != NULL && v[i] != NULL; i++)
        free(v[i]);
    free(v);
}

int slave_upk_config(struct slave_config *c)
{
    memset(c, 0, sizeof *c);
    IPS2_TRY(ips2_upk_u32(&c->version));
    IPS2_TRY(ips2_upk_str(&c->session_dir));
    IPS2_TRY(ips2_upk_str(&c->machine));
    IPS2_TRY(ips2_upk_str(&c->host));
    IPS2_TRY(ips2_upk_i64(&c->session_start));
    IPS2_TRY(ips2_upk_i64(&c->interval_ns));
    IPS2_TRY(ips2_upk_i64(&c->grace_ms));
    IPS2_TRY(ips2_upk_u32(&c->flags));
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
    IPS2_TRY(ips2_upk_str(&p->app));
    IPS2_TRY(ips2_upk_i32(&p->index));
    IPS2_TRY(ips2_upk_str(&p->cwd));
    IPS2_TRY(ips2_upk_i64(&p->timeout_ms));
    IPS2_TRY(ips2_upk_strv(&p->argv, NULL));
    uint32_t n = 0;
    IPS2_TRY(ips2_upk_u32(&n));
    if (n > IPS2_PROTO_LIST_MAX)
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
    IPS2_TRY(ips2_upk_u32(&p->hold));
    IPS2_TRY(ips2_upk_str(&p->ready));
    IPS2_TRY(ips2_upk_str(&p->ready_arg));
    IPS2_TRY(ips2_upk_i64(&p->ready_timeout_ms));
    IPS2_TRY(ips2_upk_u32(&p->spawn_size));
    IPS2_TRY(ips2_upk_u32(&p->spawn_rank));
    return 0;
}

int slave_upk_release(struct slave_release *m)
{
    memset(m, 0, sizeof *m);
    IPS2_TRY(ips2_upk_str(&m->app));
    IPS2_TRY(ips2_upk_i32(&m->index));
    IPS2_TRY(ips2_upk_str(&m->why));
    return 0;
}

int slave_upk_stop(struct slave_stop *m)
{
    memset(m, 0, sizeof *m);
    IPS2_TRY(ips2_upk_str(&m->app));
    IPS2_TRY(ips2_upk_i32(&m->index));
    IPS2_TRY(ips2_upk_i32(&m->signal));
    IPS2_TRY(ips2_upk_i64(&m->grace_ms));
    return 0;
}

void slave_process_free(struct slave_process *p)
{
    free(p->app);
    free(p->cwd);
    free_strv(p->argv);
    free_strv(p->env);
    free(p->ready);
    free(p->ready_arg);
    memset(p, 0, sizeof *p);
}

int slave_upk_replay(struct slave_replay *r)
{
    memset(r, 0, sizeof *r);
    IPS2_TRY(ips2_upk_str(&r->session));
    IPS2_TRY(ips2_upk_str(&r->trace_dir));
    IPS2_TRY(ips2_upk_str(&r->prefix));
    IPS2_TRY(ips2_upk_strv(&r->apps, &r->napps));
    uint32_t n = 0;
    IPS2_TRY(ips2_upk_u32(&n));
    if (n > IPS2_PROTO_LIST_MAX)
        return PvmBadMsg;
    r->expected = calloc((size_t)n + 1, sizeof *r->expected);
    if (r->expected == NULL)
        return PvmNoMem;
    for (uint32_t i = 0; i < n; i++) {
        r->nexpected = i + 1;
        IPS2_TRY(ips2_upk_str(&r->expected[i].app));
        IPS2_TRY(ips2_upk_i32(&r->expected[i].pid));
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
    IPS2_TRY(ips2_upk_i32(&q->query));
    IPS2_TRY(ips2_upk_str(&q->trace_dir));
    IPS2_TRY(ips2_upk_i64(&q->session_start));
    IPS2_TRY(ips2_upk_i64(&q->start));
    IPS2_TRY(ips2_upk_i64(&q->end));
    IPS2_TRY(ips2_upk_i64(&q->interval_ns));
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

#define BEGIN() IPS2_TRY(pvm_initsend(PvmDataDefault))

int slave_send_hello(int master, const char *machine, const char *host, int pid,
                     int64_t real_minus_mono)
{
    BEGIN();
    IPS2_TRY(ips2_pk_u32(IPS2_PROTO_VERSION));
    IPS2_TRY(ips2_pk_str(machine));
    IPS2_TRY(ips2_pk_str(host));
    IPS2_TRY(ips2_pk_i32(pid));
    IPS2_TRY(ips2_pk_i64(real_minus_mono));
    return send(master, IPS2_TAG_HELLO);
}

int slave_send_started(int master, const char *app, int index, int pid)
{
    BEGIN();
    IPS2_TRY(ips2_pk_str(app));
    IPS2_TRY(ips2_pk_i32(index));
    IPS2_TRY(ips2_pk_i32(pid));
    return send(master, IPS2_TAG_STARTED);
}

int slave_send_note(int master, const char *text)
{
    BEGIN();
    IPS2_TRY(ips2_pk_str(text));
    return send(master, IPS2_TAG_NOTE);
}

int slave_send_part(int master, const char *path)
{
    BEGIN();
    IPS2_TRY(ips2_pk_str(path));
    return send(master, IPS2_TAG_PART);
}

int slave_send_pong(int master, int32_t seq)
{
    BEGIN();
    IPS2_TRY(ips2_pk_i32(seq));
    return send(master, IPS2_TAG_PONG);
}

int slave_send_ready(int master, const char *app, int index, int ok, const char *text)
{
    BEGIN();
    IPS2_TRY(ips2_pk_str(app));
    IPS2_TRY(ips2_pk_i32(index));
    IPS2_TRY(ips2_pk_i32(ok));
    IPS2_TRY(ips2_pk_str(text));
    return send(master, IPS2_TAG_READY);
}

int slave_send_exited(int master, const struct slave_proc_end *end)
{
    BEGIN();
    IPS2_TRY(ips2_pk_str(end->app));
    IPS2_TRY(ips2_pk_i32(end->index));
    IPS2_TRY(ips2_pk_i32(end->pid));
    IPS2_TRY(ips2_pk_i32(end->how));
    IPS2_TRY(ips2_pk_i32(end->code));
    IPS2_TRY(ips2_pk_str(end->text));
    return send(master, IPS2_TAG_EXITED);
}

int slave_send_progress(int master, int stage, int64_t done, int64_t total)
{
    BEGIN();
    IPS2_TRY(ips2_pk_str(ips2_stage_name(stage)));
    IPS2_TRY(ips2_pk_i64(done));
    IPS2_TRY(ips2_pk_i64(total));
    return send(master, IPS2_TAG_PROGRESS);
}

int slave_send_problem(int master, const char *text)
{
    BEGIN();
    IPS2_TRY(ips2_pk_str(text));
    return send(master, IPS2_TAG_PROBLEM);
}

int slave_send_reductions(int master, int query, const void *data, size_t size)
{
    BEGIN();
    IPS2_TRY(ips2_pk_i32(query));
    IPS2_TRY(ips2_pk_blob(data, size));
    return send(master, IPS2_TAG_REDUCTIONS);
}

int slave_send_done(int master, int query, int ok)
{
    BEGIN();
    IPS2_TRY(ips2_pk_i32(query));
    IPS2_TRY(ips2_pk_i32(ok));
    return send(master, IPS2_TAG_DONE);
}

int slave_send_packed(int master, int packed, int raw, int64_t cpu_ns)
{
    BEGIN();
    IPS2_TRY(ips2_pk_i32(packed));
    IPS2_TRY(ips2_pk_i32(raw));
    IPS2_TRY(ips2_pk_i64(cpu_ns));
    return send(master, IPS2_TAG_PACKED);
}

int slave_send_query_failed(int master, int query, const char *why)
{
    BEGIN();
    IPS2_TRY(ips2_pk_i32(query));
    IPS2_TRY(ips2_pk_str(why));
    return send(master, IPS2_TAG_QUERY_FAILED);
}
