/*
 * reduce_names.c - names of synchronisation objects (reduce_names.h has
 * the rules).
 *
 * The threads of an image hand over what their sync-init and sync-object
 * events said (struct rt_fact, one per key and kind of event); once every
 * thread of the image is reduced, the image's object rows are named.  The
 * facts are sorted once: initialisations by (procedure, time, key) to
 * number each procedure's objects in the order it initialised them, then
 * everything by key for the lookups of the rows.  Memory is the facts of
 * one image, never a trace.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ips2_format.h"
#include "ips2_symbols.h"
#include "reduce_names.h"

static const char *const kind_names[] = {
    [IPS2_SYNC_MUTEX] = "mutex",
    [IPS2_SYNC_RWLOCK] = "rwlock",
    [IPS2_SYNC_RWLOCK_WRITE] = "rwlock",
    [IPS2_SYNC_SPIN] = "spin",
    [IPS2_SYNC_COND] = "cond",
    [IPS2_SYNC_BARRIER] = "barrier",
    [IPS2_SYNC_SEM] = "sem",
    [IPS2_SYNC_USER_LOCK] = "user_lock",
    [IPS2_SYNC_USER_BARRIER] = "user_barrier",
};

void red_object_name(char *buf, size_t size, uint32_t kind, const struct red_object_facts *f)
{
    const char *k = kind < sizeof(kind_names) / sizeof(kind_names[0]) && kind_names[kind]
                        ? kind_names[kind]
                        : "object";

    if (f->given && f->given[0])
        snprintf(buf, size, "%s:%s", k, f->given);
    else if (f->symbol && f->offset)
        snprintf(buf, size, "%s:%s+%" PRIu64, k, f->symbol, f->offset);
    else if (f->symbol)
        snprintf(buf, size, "%s:%s", k, f->symbol);
    else if (f->init_proc && f->init_nth > 1)
        snprintf(buf, size, "%s:heap@%s#%" PRIu32, k, f->init_proc, f->init_nth);
    else if (f->init_proc)
        snprintf(buf, size, "%s:heap@%s", k, f->init_proc);
    else
        snprintf(buf, size, "%s:0x%" PRIx64, k, f->address);
}

bool red_names_add(struct red_names *nm, struct rt *r)
{
    if (r->nfacts == 0)
        return true;
    if (nm->n + r->nfacts > nm->cap) {
        size_t cap = nm->cap ? nm->cap : 64;
        while (cap < nm->n + r->nfacts)
            cap *= 2;
        struct rt_fact *v = realloc(nm->facts, cap * sizeof(*v));
        if (!v)
            return false; /* rt_free() frees the thread's names */
        nm->facts = v;
        nm->cap = cap;
    }
    memcpy(nm->facts + nm->n, r->facts, r->nfacts * sizeof(*r->facts));
    nm->n += r->nfacts;
    r->nfacts = 0; /* the names are nm's now */
    return true;
}

void red_names_free(struct red_names *nm)
{
    for (size_t i = 0; i < nm->n; i++)
        free(nm->facts[i].name);
    free(nm->facts);
    memset(nm, 0, sizeof(*nm));
}

/* Initialisations first, by procedure, time and key; then the rest. */
static int cmp_init_order(const void *a, const void *b)
{
    const struct rt_fact *x = a, *y = b;

    if (x->init != y->init)
        return x->init ? -1 : 1;
    if (x->proc != y->proc)
        return x->proc < y->proc ? -1 : 1;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* By key; of one key the earliest first. */
static int cmp_key(const void *a, const void *b)
{
    const struct rt_fact *x = a, *y = b;

    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->t < y->t ? -1 : x->t > y->t;
}

/* The first fact of key at or after index lo of the sorted facts, or n. */
static size_t first_of_key(const struct red_names *nm, uint64_t key)
{
    size_t lo = 0, hi = nm->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (nm->facts[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The address of a key's object (a shared object's from its sync-object
 * fact, if any) and the name the program gave it, from the facts of key
 * (sorted by key) from index i on. */
static uint64_t address_of(const struct red_names *nm, size_t i, uint64_t key, const char **given)
{
    uint64_t address = key & IPS2_SYNC_KEY_SHARED ? 0 : key;

    *given = NULL;
    for (; i < nm->n && nm->facts[i].key == key; i++) {
        const struct rt_fact *x = &nm->facts[i];
        if (x->init)
            continue;
        if (x->name)
            *given = x->name;
        if (x->address && !address)
            address = x->address;
    }
    return address;
}

/* Numbers each procedure's initialisations 1, 2, ... in time order, among
 * the objects it names (not those with a given name or a variable of
 * their own), one per key (a key initialised again keeps its first), and
 * leaves the facts sorted by key.  An init fact keeps its number in
 * `address`, which only sync-object facts use otherwise. */
static void number_inits(struct red_names *nm, struct ips2_symtab *symtab)
{
    if (nm->n == 0)
        return;
    qsort(nm->facts, nm->n, sizeof(*nm->facts), cmp_key);
    for (size_t first = 0, end; first < nm->n; first = end) {
        uint64_t key = nm->facts[first].key, off;
        const char *given;
        for (end = first; end < nm->n && nm->facts[end].key == key;)
            end++;
        uint64_t address = address_of(nm, first, key, &given);
        bool named = given || (address && symtab && ips2_symtab_lookup_data(symtab, address, &off));
        bool counted = false;
        for (size_t i = first; i < end; i++) {
            struct rt_fact *f = &nm->facts[i];
            if (!f->init)
                continue;
            if (named || counted) /* of no use: no fact at all now */
                *f = (struct rt_fact){.key = key, .t = f->t};
            counted = true;
        }
    }
    qsort(nm->facts, nm->n, sizeof(*nm->facts), cmp_init_order);
    uint32_t nth = 0;
    for (size_t i = 0; i < nm->n && nm->facts[i].init; i++) {
        struct rt_fact *f = &nm->facts[i];
        nth = i > 0 && nm->facts[i - 1].proc == f->proc ? nth + 1 : 1;
        f->address = nth;
    }
    qsort(nm->facts, nm->n, sizeof(*nm->facts), cmp_key);
}

/* The facts of key into f (names and strings borrowed). */
static void facts_of(const struct red_names *nm, struct red_build *b, uint64_t key,
                     struct red_object_facts *f, red_name_fn proc_name, void *arg)
{
    for (size_t i = first_of_key(nm, key); i < nm->n && nm->facts[i].key == key; i++) {
        const struct rt_fact *x = &nm->facts[i];
        if (x->init && x->proc) {
            uint32_t s = proc_name(arg, x->proc);
            f->init_proc = s < b->strings.n ? b->strings.v[s] : NULL;
            f->init_nth = (uint32_t)x->address;
        } else if (!x->init) {
            if (x->name)
                f->given = x->name;
            if (x->address)
                f->address = x->address;
        }
    }
}

void red_names_apply(struct red_names *nm, struct red_build *b, struct ips2_symtab *symtab,
                     uint32_t first_thread, red_name_fn proc_name, void *arg)
{
    struct ips2_reductions *r = b->r;
    char buf[512];

    number_inits(nm, symtab);
    for (size_t i = r->nobjects; i-- > 0 && r->objects[i].thread >= first_thread;) {
        struct ips2_red_object *o = &r->objects[i];
        struct red_object_facts f = {0};
        bool shared = o->id & IPS2_SYNC_KEY_SHARED;
        if (!shared)
            f.address = o->id;
        facts_of(nm, b, o->id, &f, proc_name, arg);
        if (f.address && (!shared || f.address != o->id) && symtab)
            f.symbol = ips2_symtab_lookup_data(symtab, f.address, &f.offset);
        if (!f.address)
            f.address = o->id;
        red_object_name(buf, sizeof(buf), o->kind, &f);
        o->name = ips2_strtab_intern(&b->strings, buf);
        if (o->name == IPS2_RED_NONE)
            b->oom = true;
    }
}
