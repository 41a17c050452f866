/*
 * reduce_names.h - names a person recognises for the synchronisation
 * objects of a process image (private to slave/; REDUCTION.md §4).
 *
 * An object is named "KIND:WHAT", KIND as the objects table says it
 * (mutex, rwlock, spin, cond, barrier, sem, user_lock, user_barrier), WHAT
 * the first of:
 *   - the name the program gave it (ips2_object_name, a named semaphore);
 *   - the variable that holds it, from the data symbols of the executable
 *     or shared object mapped there: "hot_lock", "locks+64" for a member
 *     of an array or a structure;
 *   - the procedure that initialised it (its sync-init event), for one on
 *     the heap or the stack: "heap@init_table", "heap@init_table#2" for
 *     the second object that procedure initialised, and so on;
 *   - its address: "0x55d0c0de1000" (or its key, for a shared object
 *     whose address is unknown).
 */
#ifndef IPS2_SLAVE_REDUCE_NAMES_H
#define IPS2_SLAVE_REDUCE_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "reduce_internal.h"

struct ips2_symtab;

/* What is known of one object, for red_object_name(); NULL or 0: unknown. */
struct red_object_facts {
    const char *given;     /* the name the program gave it */
    const char *symbol;    /* the variable holding it */
    uint64_t offset;       /* its offset in that variable */
    const char *init_proc; /* the procedure that initialised it */
    uint32_t init_nth;     /* 1 for that procedure's first object, 2 ... */
    uint64_t address;      /* its address (or key) */
};

/* Writes the name of an object of kind (enum ips2_sync_type) into buf. */
void red_object_name(char *buf, size_t size, uint32_t kind, const struct red_object_facts *f);

/* The facts of the threads of one image, gathered for naming its objects. */
struct red_names {
    struct rt_fact *facts;
    size_t n, cap;
};

/* Takes a reduced thread's facts (and their names) into nm; false when
 * memory ran out (the thread's facts are dropped then). */
bool red_names_add(struct red_names *nm, struct rt *r);

/* Names the image's rows of objects[] (those of threads from first_thread
 * on), with its data symbols and its procedures' names (proc_name). */
void red_names_apply(struct red_names *nm, struct red_build *b, struct ips2_symtab *symtab,
                     uint32_t first_thread, red_name_fn proc_name, void *arg);

void red_names_free(struct red_names *nm);

#endif /* IPS2_SLAVE_REDUCE_NAMES_H */
