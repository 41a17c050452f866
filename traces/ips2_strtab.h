/*
 * ips2_strtab.h - a table of distinct strings: each string is kept once,
 * copied, under an index that stays its own (0, 1, 2 ... in the order
 * they came), and is found again through open addressing on its FNV-1a
 * hash.  The reductions' and the PAG parts' string tables, and the
 * analysts' tables keyed by name, are built with it.
 */
#ifndef IPS2_STRTAB_H
#define IPS2_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#define IPS2_STRTAB_NONE UINT32_MAX

struct ips2_strtab {
    char **v; /* the strings, by index */
    size_t n, cap;
    uint32_t *slot; /* index + 1, 0 = empty */
    size_t mask;
};

/* The index of str, added if new; IPS2_STRTAB_NONE for NULL, when out of
 * memory or when the table holds 2^32 - 2 strings. */
uint32_t ips2_strtab_intern(struct ips2_strtab *t, const char *str);

/* The index of str, or IPS2_STRTAB_NONE if it is not in the table. */
uint32_t ips2_strtab_find(const struct ips2_strtab *t, const char *str);

/* Hands over the strings (*n of them, each and the array malloc'd) and
 * empties the table. */
char **ips2_strtab_release(struct ips2_strtab *t, size_t *n);

void ips2_strtab_free(struct ips2_strtab *t);

#endif /* IPS2_STRTAB_H */
