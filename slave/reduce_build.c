/*
 * reduce_build.c - the reductions being built: growing arrays, problems,
 * and handing the string table over at the end.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reduce_internal.h"

void *red_build_push(struct red_build *b, void **array, size_t *n, size_t *cap, size_t elem)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 16;
        void *p = c > SIZE_MAX / elem ? NULL : realloc(*array, c * elem);
        if (!p) {
            b->oom = true;
            return NULL;
        }
        *array = p;
        *cap = c;
    }
    void *e = (char *)*array + *n * elem;
    memset(e, 0, elem);
    (*n)++;
    return e;
}

void red_build_problem(struct red_build *b, const char *fmt, ...)
{
    char msg[IPS2_ERR_MAX + 256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    uint32_t s = ips2_strtab_intern(&b->strings, msg);
    if (s == IPS2_RED_NONE) {
        b->oom = true;
        return;
    }
    for (size_t i = 0; i < b->r->nproblems; i++)
        if (b->r->problems[i] == s)
            return; /* said already */
    uint32_t *p = RED_PUSH(b, problems);
    if (p)
        *p = s;
}

bool red_build_finish(struct red_build *b)
{
    b->r->strings = ips2_strtab_release(&b->strings, &b->r->nstrings);
    return !b->oom;
}
