/*
 * strtab.c - the table of distinct strings of ips2_strtab.h: linear
 * probing in a power-of-two slot array kept at most half full.
 */
#include <stdlib.h>
#include <string.h>

#include "ips2_strtab.h"

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 14695981039346656037ull;

    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int rehash(struct ips2_strtab *t)
{
    size_t mask = t->mask ? t->mask * 2 + 1 : 255;
    uint32_t *slot = calloc(mask + 1, sizeof(*slot));

    if (!slot)
        return -1;
    for (size_t i = 0; i < t->n; i++) {
        size_t j = (size_t)fnv1a(t->v[i]) & mask;
        while (slot[j])
            j = (j + 1) & mask;
        slot[j] = (uint32_t)i + 1;
    }
    free(t->slot);
    t->slot = slot;
    t->mask = mask;
    return 0;
}

/* The slot of str: its own, or the empty one where it would go. */
static size_t probe(const struct ips2_strtab *t, const char *str)
{
    size_t j = (size_t)fnv1a(str) & t->mask;

    while (t->slot[j] && strcmp(t->v[t->slot[j] - 1], str) != 0)
        j = (j + 1) & t->mask;
    return j;
}

uint32_t ips2_strtab_find(const struct ips2_strtab *t, const char *str)
{
    if (!str || !t->slot)
        return IPS2_STRTAB_NONE;
    size_t j = probe(t, str);
    return t->slot[j] ? t->slot[j] - 1 : IPS2_STRTAB_NONE;
}

uint32_t ips2_strtab_intern(struct ips2_strtab *t, const char *str)
{
    if (!str)
        return IPS2_STRTAB_NONE;
    if ((t->n + 1) * 2 > t->mask + 1 && rehash(t) != 0)
        return IPS2_STRTAB_NONE;
    size_t j = probe(t, str);
    if (t->slot[j])
        return t->slot[j] - 1;
    if (t->n >= IPS2_STRTAB_NONE - 1)
        return IPS2_STRTAB_NONE;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        char **v = realloc(t->v, cap * sizeof(*v));
        if (!v)
            return IPS2_STRTAB_NONE;
        t->v = v;
        t->cap = cap;
    }
    char *copy = strdup(str);
    if (!copy)
        return IPS2_STRTAB_NONE;
    t->v[t->n] = copy;
    t->slot[j] = (uint32_t)t->n + 1;
    return (uint32_t)t->n++;
}

char **ips2_strtab_release(struct ips2_strtab *t, size_t *n)
{
    char **v = t->v;

    *n = t->n;
    free(t->slot);
    memset(t, 0, sizeof(*t));
    return v;
}

void ips2_strtab_free(struct ips2_strtab *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i]);
    free(t->v);
    free(t->slot);
    memset(t, 0, sizeof(*t));
}
