/*
 * filter_rules.h - the text of a procedure filter (IPS2_FILTER, `ips2
 * record -filter FILE`) and what it decides for a procedure name.  Pure
 * code, no runtime state: libips2 (filter.c) and the unit tests use it.
 *
 * A filter file has one directive a line; '#' starts a comment:
 *
 *   count PATTERN     matching procedures are counted only
 *   exclude PATTERN   matching procedures are neither traced nor counted
 *   include PATTERN   only matching procedures are traced, the others are
 *                     counted only (any include line turns this on)
 *   trace PATTERN     matching procedures are traced (undoes an earlier line)
 *   depth N           calls deeper than N on a thread's stack are counted only
 *   time DURATION     a call that returns within DURATION with nothing
 *                     recorded since its entry is erased and counted
 *                     (DURATION: a number with ns, us, ms or s; bare: ns)
 *   auto N:DURATION   the run-time mode: a procedure whose first N calls
 *                     in a thread recorded nothing inside them and took
 *                     less than DURATION on average is counted only from
 *                     then on in that thread; "auto off" turns it off
 *
 * PATTERN is a shell glob (fnmatch) on the symbol name; a compiler's clone
 * "f.constprop.0" also matches as "f".  For a name, the last line that
 * matches decides.
 */
#ifndef IPS2_FILTER_RULES_H
#define IPS2_FILTER_RULES_H

#include <stddef.h>
#include <stdint.h>

enum ips2_filter_action {
    IPS2_FILTER_TRACE = 0,   /* enter and exit records */
    IPS2_FILTER_COUNT = 1,   /* counted only: CALLS records */
    IPS2_FILTER_EXCLUDE = 2, /* nothing at all */
};

struct ips2_filter_rule {
    unsigned action; /* enum ips2_filter_action */
    char *pattern;
};

struct ips2_filter_rules {
    struct ips2_filter_rule *rule;
    size_t nrules;
    int include;      /* an include line: procedures no line matches are counted */
    unsigned depth;   /* 0: no depth limit */
    uint64_t time_ns; /* 0: no time threshold */
    /* plain names (no glob characters): an open-addressing table of rule
     * indexes + 1 by name (the latest rule of a name), and the globs'
     * indexes, so that a name costs a lookup and the globs, not every rule */
    size_t *plain;
    size_t plain_mask;
    size_t *globs;
    size_t nglobs;
    int auto_set;        /* an auto line: auto_calls and auto_ns say what */
    unsigned auto_calls; /* 0: off */
    uint64_t auto_ns;
};

/* "off" (or "0") or "N:DURATION" into calls (0: off) and ns; 0 or -1. */
int ips2_filter_parse_auto(const char *s, unsigned *calls, uint64_t *ns);

/* Parses a filter's text into r (zeroed first); 0, or -1 with err naming
 * the line and what is wrong ("line 3: unknown directive 'cout'"). */
int ips2_filter_parse(struct ips2_filter_rules *r, const char *text, char *err, size_t errsize);

/* The action for a procedure name. */
unsigned ips2_filter_decide(const struct ips2_filter_rules *r, const char *name);

/* The action for procedures no line names (include: counted). */
static inline unsigned ips2_filter_default(const struct ips2_filter_rules *r)
{
    return r->include ? IPS2_FILTER_COUNT : IPS2_FILTER_TRACE;
}

void ips2_filter_rules_free(struct ips2_filter_rules *r);

#endif /* IPS2_FILTER_RULES_H */
