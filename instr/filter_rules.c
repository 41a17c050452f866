/*
 * filter_rules.c - parsing a filter file and matching procedure names
 * against it (filter_rules.h has the language).  Runs once at start-up,
 * so it favours plainness: a line at a time, fnmatch() per rule.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter_rules.h"

static int fail(char *err, size_t size, unsigned line, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(err, size, "line %u: ", line);

    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < size)
        vsnprintf(err + n, size - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* "250", "250ns", "1.5us", "2ms", "1s" -> ns; -1 if malformed. */
static int parse_duration(const char *s, uint64_t *ns)
{
    static const struct {
        const char *unit;
        double scale;
    } units[] = {{"", 1}, {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    char *end;

    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !(v >= 0))
        return -1;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcmp(end, units[i].unit) == 0) {
            double x = v * units[i].scale;
            if (x >= 1.8e19)
                return -1;
            *ns = (uint64_t)(x + 0.5);
            return 0;
        }
    }
    return -1;
}

int ips2_filter_parse_auto(const char *s, unsigned *calls, uint64_t *ns)
{
    char *end;

    if (strcmp(s, "off") == 0 || strcmp(s, "0") == 0) {
        *calls = 0;
        *ns = 0;
        return 0;
    }
    errno = 0;
    unsigned long n = strtoul(s, &end, 10);
    if (end == s || *end != ':' || errno || n == 0 || n > 1u << 30 || s[0] == '-')
        return -1;
    if (parse_duration(end + 1, ns) < 0 || *ns == 0)
        return -1;
    *calls = (unsigned)n;
    return 0;
}

static int add_rule(struct ips2_filter_rules *r, unsigned action, const char *pattern)
{
    struct ips2_filter_rule *n = realloc(r->rule, (r->nrules + 1) * sizeof(*n));
    if (n == NULL)
        return -1;
    r->rule = n;
    if ((n[r->nrules].pattern = strdup(pattern)) == NULL)
        return -1;
    n[r->nrules++].action = action;
    return 0;
}

/* Splits a line in place into a directive and one argument. */
static int split(char *line, char **word, char **arg)
{
    char *s = line, *e;

    while (isspace((unsigned char)*s))
        s++;
    if (*s == '\0' || *s == '#')
        return 0;
    *word = s;
    while (*s && !isspace((unsigned char)*s))
        s++;
    if (*s)
        *s++ = '\0';
    while (isspace((unsigned char)*s))
        s++;
    *arg = s;
    if ((e = strchr(s, '#')) != NULL)
        *e = '\0';
    e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return 1;
}

static int parse_line(struct ips2_filter_rules *r, char *text, unsigned n, char *err, size_t size)
{
    static const struct {
        const char *word;
        unsigned action;
    } actions[] = {{"count", IPS2_FILTER_COUNT},
                   {"exclude", IPS2_FILTER_EXCLUDE},
                   {"include", IPS2_FILTER_TRACE},
                   {"trace", IPS2_FILTER_TRACE}};
    char *word, *arg;

    if (!split(text, &word, &arg))
        return 0;
    if (*arg == '\0')
        return fail(err, size, n, "'%s' needs an argument", word);
    if (strchr(arg, ' ') || strchr(arg, '\t'))
        return fail(err, size, n, "one argument expected after '%s', found '%s'", word, arg);
    for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++) {
        if (strcmp(word, actions[i].word) == 0) {
            if (word[0] == 'i')
                r->include = 1;
            if (add_rule(r, actions[i].action, arg) < 0)
                return fail(err, size, n, "out of memory");
            return 0;
        }
    }
    if (strcmp(word, "depth") == 0) {
        char *end;
        errno = 0;
        unsigned long d = strtoul(arg, &end, 10);
        if (*end || errno || d == 0 || d > 1000000 || arg[0] == '-')
            return fail(err, size, n, "depth: expected a number from 1 to 1000000, found '%s'",
                        arg);
        r->depth = (unsigned)d;
        return 0;
    }
    if (strcmp(word, "time") == 0) {
        if (parse_duration(arg, &r->time_ns) < 0)
            return fail(err, size, n, "time: expected a duration such as 500ns or 2us, found '%s'",
                        arg);
        return 0;
    }
    if (strcmp(word, "auto") == 0) {
        if (ips2_filter_parse_auto(arg, &r->auto_calls, &r->auto_ns) < 0)
            return fail(err, size, n,
                        "auto: expected off or CALLS:DURATION such as 4096:300ns, "
                        "found '%s'",
                        arg);
        r->auto_set = 1;
        return 0;
    }
    return fail(err, size, n,
                "unknown directive '%s' (count, exclude, include, trace, depth, time, auto)", word);
}

static int is_glob(const char *pattern)
{
    return strpbrk(pattern, "*?[\\") != NULL;
}

static uint64_t hash_name(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* The index of plain names and the list of globs (see the header). */
static int index_rules(struct ips2_filter_rules *r)
{
    size_t cap = 16;

    while (cap < 2 * r->nrules)
        cap *= 2;
    r->plain = calloc(cap, sizeof(*r->plain));
    r->globs = malloc((r->nrules ? r->nrules : 1) * sizeof(*r->globs));
    if (r->plain == NULL || r->globs == NULL)
        return -1;
    r->plain_mask = cap - 1;
    for (size_t i = 0; i < r->nrules; i++) {
        const char *p = r->rule[i].pattern;
        if (is_glob(p)) {
            r->globs[r->nglobs++] = i;
            continue;
        }
        size_t j = hash_name(p, strlen(p)) & r->plain_mask;
        while (r->plain[j] != 0 && strcmp(r->rule[r->plain[j] - 1].pattern, p) != 0)
            j = (j + 1) & r->plain_mask;
        r->plain[j] = i + 1; /* the later rule of a name wins */
    }
    return 0;
}

/* The latest plain rule naming exactly name[0, len), or -1. */
static long plain_rule(const struct ips2_filter_rules *r, const char *name, size_t len)
{
    for (size_t j = hash_name(name, len) & r->plain_mask; r->plain[j] != 0;
         j = (j + 1) & r->plain_mask) {
        const char *p = r->rule[r->plain[j] - 1].pattern;
        if (strncmp(p, name, len) == 0 && p[len] == '\0')
            return (long)r->plain[j] - 1;
    }
    return -1;
}

int ips2_filter_parse(struct ips2_filter_rules *r, const char *text, char *err, size_t errsize)
{
    unsigned line = 0;

    memset(r, 0, sizeof(*r));
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *copy = malloc(len + 1);
        if (copy == NULL)
            return fail(err, errsize, line + 1, "out of memory");
        memcpy(copy, p, len);
        copy[len] = '\0';
        int rc = parse_line(r, copy, ++line, err, errsize);
        free(copy);
        if (rc < 0) {
            ips2_filter_rules_free(r);
            return -1;
        }
        p += len + (nl != NULL);
    }
    if (index_rules(r) < 0) {
        ips2_filter_rules_free(r);
        return fail(err, errsize, line, "out of memory");
    }
    return 0;
}

/* A glob against a name, or against a clone's source name ("f" of
 * "f.constprop.0"). */
static int glob_matches(const char *pattern, const char *name)
{
    if (fnmatch(pattern, name, 0) == 0)
        return 1;
    const char *dot = strchr(name, '.');
    if (dot == NULL || dot == name)
        return 0;
    char base[256];
    size_t len = (size_t)(dot - name);
    if (len >= sizeof(base))
        return 0;
    memcpy(base, name, len);
    base[len] = '\0';
    return fnmatch(pattern, base, 0) == 0;
}

unsigned ips2_filter_decide(const struct ips2_filter_rules *r, const char *name)
{
    long best = -1;

    if (r->plain != NULL) {
        const char *dot = strchr(name, '.');
        best = plain_rule(r, name, strlen(name));
        if (dot != NULL && dot != name) {
            long b = plain_rule(r, name, (size_t)(dot - name));
            if (b > best)
                best = b;
        }
    }
    for (size_t k = r->nglobs; k-- > 0 && (long)r->globs[k] > best;)
        if (glob_matches(r->rule[r->globs[k]].pattern, name))
            return r->rule[r->globs[k]].action;
    return best >= 0 ? r->rule[best].action : ips2_filter_default(r);
}

void ips2_filter_rules_free(struct ips2_filter_rules *r)
{
    for (size_t i = 0; i < r->nrules; i++)
        free(r->rule[i].pattern);
    free(r->rule);
    free(r->plain);
    free(r->globs);
    memset(r, 0, sizeof(*r));
}
