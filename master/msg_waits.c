/*
 * msg_waits.c - message patterns over the global PAG (msg_waits.h): per
 * channel waits (late sender, late receiver) and master-worker groups.
 * Stub: answers with no rows until the analysis lands.
 */
#include "msg_waits.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tables.h"

void msg_waits_request_init(struct msg_waits_request *r)
{
    *r = (struct msg_waits_request){.from = INT64_MIN, .to = INT64_MAX};
}

static struct msg_waits *empty_answer(const struct msg_waits_request *r)
{
    struct msg_waits *w = calloc(1, sizeof *w);
    if (w != NULL) {
        w->hist_start = r->hist_start;
        w->hist_width = r->hist_width;
        w->nbuckets = r->nbuckets;
    }
    return w;
}

int msg_waits_from_parts(struct ips2_pag *const *parts, size_t n, const struct msg_waits_request *r,
                         struct msg_waits **out, char *err, size_t errlen)
{
    (void)parts;
    (void)n;
    if ((*out = empty_answer(r)) == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

int msg_waits_compute(struct cpa_session *s, const struct msg_waits_request *r,
                      struct msg_waits **out, struct cpa_error *e)
{
    (void)s;
    if ((*out = empty_answer(r)) == NULL) {
        snprintf(e->code, sizeof e->code, "MEMORY");
        snprintf(e->message, sizeof e->message, "out of memory");
        return -1;
    }
    return 0;
}

void msg_waits_free(struct msg_waits *w)
{
    if (w == NULL)
        return;
    for (size_t i = 0; i < w->nchannels; i++) {
        struct msg_channel *c = &w->channels[i];
        free(c->name);
        free(c->sender_process);
        free(c->receiver_process);
        free(c->sender_thread);
        free(c->receiver_thread);
        for (int k = 0; k < MSG_WAIT_KINDS; k++)
            free(c->hist[k]);
    }
    free(w->channels);
    for (size_t i = 0; i < w->ngroups; i++) {
        struct msg_group *g = &w->groups[i];
        free(g->master);
        for (size_t j = 0; j < g->nworkers; j++)
            free(g->workers[j].process);
        free(g->workers);
    }
    free(w->groups);
    for (size_t i = 0; i < w->nwarnings; i++)
        free(w->warnings[i]);
    free(w->warnings);
    free(w);
}

struct ips2_table *msg_waits_channel_table(const struct msg_waits *w, char *err)
{
    (void)w;
    struct ips2_table *t = ips2_table_new(11);
    if (t == NULL)
        snprintf(err, IPS2_ERR_MAX, "out of memory");
    return t;
}

struct ips2_table *msg_waits_group_table(const struct msg_waits *w, char *err)
{
    (void)w;
    struct ips2_table *t = ips2_table_new(8);
    if (t == NULL)
        snprintf(err, IPS2_ERR_MAX, "out of memory");
    return t;
}
