/*
 * reduce_strings.c - the string table of reductions being built: each
 * distinct string once, found again through an open-addressing table.
 */
#include <stdlib.h>
#include <string.h>

#include "reduce_internal.h"

static size_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */

    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (size_t)h;
}

static bool rehash(struct red_strings *s)
{
    size_t mask = s->mask ? s->mask * 2 + 1 : 255;
    uint32_t *slot = calloc(mask + 1, sizeof(*slot));

    if (!slot)
        return false;
    for (size_t i = 0; i < s->n; i++) {
        size_t j = hash_str(s->v[i]) & mask;
        while (slot[j])
            j = (j + 1) & mask;
        slot[j] = (uint32_t)i + 1;
    }
    free(s->slot);
    s->slot = slot;
    s->mask = mask;
    return true;
}

uint32_t red_str_intern(struct red_strings *s, const char *str)
{
    if (!str)
        return IPS2_RED_NONE;
    if ((s->n + 1) * 2 > s->mask + 1 && !rehash(s))
        return IPS2_RED_NONE;
    size_t j = hash_str(str) & s->mask;
    for (; s->slot[j]; j = (j + 1) & s->mask)
        if (strcmp(s->v[s->slot[j] - 1], str) == 0)
            return s->slot[j] - 1;
    if (s->n >= IPS2_RED_NONE - 1)
        return IPS2_RED_NONE;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        char **v = realloc(s->v, cap * sizeof(*v));
        if (!v)
            return IPS2_RED_NONE;
        s->v = v;
        s->cap = cap;
    }
    char *copy = strdup(str);
    if (!copy)
        return IPS2_RED_NONE;
    s->v[s->n] = copy;
    s->slot[j] = (uint32_t)s->n + 1;
    return (uint32_t)s->n++;
}

void red_str_free(struct red_strings *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    free(s->slot);
    memset(s, 0, sizeof(*s));
}
