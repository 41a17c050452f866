/*
 * test_fields.c - the one table of each event kind's fields
 * (traces/ips2_fields.h) and its prose twin, traces/FORMAT.md.
 *
 * The table must be well formed: every kind readers return has a row and
 * no other kind does, a kind's fields tile its extra words from 0 with
 * strings last, the generated IPS2_F_<KIND>_<FIELD> constants are the
 * table's words and their names its names; the lookup by role finds them;
 * ips2-dump prints every word the table names (dump_fields.c).
 *
 * FORMAT.md's event tables (sections 5 and 9, "| # | name | payload |
 * extra |") must say the same: the same kinds, each payload named
 * `payload` (or 0 when the table has no name for it), and the extra words
 * as "[i] `name`", "[i..j] `name`" (an endpoint) or "[i..] `name`" (a
 * string) in the table's order, or "as `kind`".  The checker reads the
 * real page, then pages with one drift each planted, which it must catch.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dump_fields.h"
#include "ips2_fields.h"
#include "ips2_reader.h"

/* FORMAT.md from the source tree: relative to the working directory (the
 * repository's root, where the tests run), else to the directories above
 * the test binary (build/tests/unit/ in the tree). */
static FILE *open_format_md(void)
{
    char dir[4096];
    FILE *f = fopen("traces/FORMAT.md", "r");
    ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 32);

    if (n > 0)
        dir[n] = '\0';
    for (int up = 0; !f && n > 0 && up < 6; up++) {
        char *slash = strrchr(dir, '/');
        if (!slash)
            break;
        strcpy(slash, "/traces/FORMAT.md");
        f = fopen(dir, "r");
        *slash = '\0';
    }
    return f;
}

static char *format_md(void)
{
    FILE *f = open_format_md();
    if (!f)
        fail_msg("cannot find traces/FORMAT.md from here or above the test binary");
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
        fwrite(buf, 1, n, out);
    fclose(f);
    fclose(out);
    return text;
}

static bool raw_only(unsigned kind)
{
    return kind == IPS2_EV_NONE || kind == IPS2_EV_PAD || kind == IPS2_EV_ENTER_SHORT ||
           kind == IPS2_EV_EXIT_SHORT || kind == IPS2_EV_LOCK_ACQUIRED_SHORT ||
           kind == IPS2_EV_LOCK_RELEASE_SHORT || kind == IPS2_EV_LOCK_HELD_SHORT;
}

/* ---- the table itself ----------------------------------------------- */

static void test_every_event_kind_has_a_row(void **state)
{
    (void)state;
    for (unsigned kind = 0; kind <= IPS2_EV_KIND_MAX + 1; kind++) {
        bool row = ips2_kind_fields(kind) != NULL;
        bool event = ips2_kind_known(kind) && !raw_only(kind);
        if (row != event)
            fail_msg("kind %u (%s): %s", kind, ips2_kind_name(kind),
                     row ? "has a row but is no event kind" : "is an event kind without a row");
    }
}

static bool is_name(const char *s)
{
    if (!s || !islower((unsigned char)s[0]))
        return false;
    for (; *s; s++)
        if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_')
            return false;
    return true;
}

static void test_fields_tile_the_words(void **state)
{
    (void)state;
    for (unsigned kind = 0; kind <= IPS2_EV_KIND_MAX; kind++) {
        const struct ips2_kind_fields *kf = ips2_kind_fields(kind);
        if (!kf)
            continue;
        const char *kname = ips2_kind_name(kind);
        if (kf->payload && !is_name(kf->payload))
            fail_msg("%s: payload name '%s'", kname, kf->payload);
        unsigned next = 0;
        for (unsigned i = 0; i < kf->nfields; i++) {
            const struct ips2_field *f = &kf->fields[i];
            if (!is_name(f->name))
                fail_msg("%s: field %u: name '%s'", kname, i, f->name ? f->name : "(null)");
            if (f->word != next)
                fail_msg("%s %s: word %u, expected %u", kname, f->name, f->word, next);
            if (f->words != 0 && f->words != 1 && f->words != 3)
                fail_msg("%s %s: %u words", kname, f->name, f->words);
            if ((f->words == 0) != (f->role == IPS2_ROLE_STRING))
                fail_msg("%s %s: a string is words 0 with the string role", kname, f->name);
            if ((f->words == 3) != (f->role == IPS2_ROLE_SELF || f->role == IPS2_ROLE_PEER))
                fail_msg("%s %s: an endpoint is 3 words with role self or peer", kname, f->name);
            if (f->words == 0 && i + 1 != kf->nfields)
                fail_msg("%s %s: a string is the last field", kname, f->name);
            if (f->role >= IPS2_ROLE_COUNT)
                fail_msg("%s %s: role %u", kname, f->name, f->role);
            for (unsigned j = 0; j < i; j++)
                if (strcmp(kf->fields[j].name, f->name) == 0)
                    fail_msg("%s: two fields named %s", kname, f->name);
            next += f->words;
        }
    }
}

/* Each generated constant against the table: the word of the field of
 * that name, and a name that is the constant's in lower case. */
static void check_constant(unsigned kind, const char *id, const char *name, int constant)
{
    const struct ips2_kind_fields *kf = ips2_kind_fields(kind);
    char lower[64];
    size_t i;

    assert_non_null(kf);
    for (i = 0; id[i] && i + 1 < sizeof(lower); i++)
        lower[i] = (char)tolower((unsigned char)id[i]);
    lower[i] = '\0';
    if (strcmp(lower, name) != 0)
        fail_msg("%s: IPS2_F_..._%s is named '%s'", ips2_kind_name(kind), id, name);
    for (i = 0; i < kf->nfields; i++)
        if (strcmp(kf->fields[i].name, name) == 0)
            break;
    if (i == kf->nfields)
        fail_msg("%s: no field %s in the lookup", ips2_kind_name(kind), name);
    assert_int_equal(kf->fields[i].word, constant);
}

static void test_constants_are_the_table(void **state)
{
    (void)state;
#define CHECK_FIELD_(k, id, name, word, words, role)                                               \
    check_constant(IPS2_EV_##k, #id, name, IPS2_F_##k##_##id);
#define CHECK_KIND_(k, payload, role, fields) fields(CHECK_FIELD_, k)
    IPS2_KIND_FIELDS(CHECK_KIND_)
#undef CHECK_KIND_
#undef CHECK_FIELD_
    assert_int_equal(IPS2_F_SEND_BYTES, 2);
    assert_int_equal(IPS2_F_ACCEPT_LISTENER, 9);
    assert_int_equal(IPS2_F_PVM_RECV_START, 7);
    assert_int_equal(IPS2_F_DGRAM_RECV_PEER, 6);
}

static void test_lookup_by_role(void **state)
{
    (void)state;
    /* the start words the PAG builder used to list kind by kind */
    static const struct {
        unsigned kind;
        int word;
    } starts[] = {
        {IPS2_EV_LOCK_ACQUIRED, 1},  {IPS2_EV_LOCK_ACQUIRED_SHARED, 1},
        {IPS2_EV_VFORK, 1},          {IPS2_EV_WAIT, 1},
        {IPS2_EV_BARRIER_DEPART, 2}, {IPS2_EV_SEM_ACQUIRED, 2},
        {IPS2_EV_CONNECT, 2},        {IPS2_EV_ACCEPT, 2},
        {IPS2_EV_SPAWN, 2},          {IPS2_EV_PVM_SPAWN, 2},
        {IPS2_EV_COND_WAKE, 3},      {IPS2_EV_PVM_BARRIER, 3},
        {IPS2_EV_RECV, 4},           {IPS2_EV_DGRAM_RECV, 4},
        {IPS2_EV_PVM_RECV, 7},       {IPS2_EV_SEND, 4},
        {IPS2_EV_FILE_READ, 3},      {IPS2_EV_SYNC_FAILED, 2},
        {IPS2_EV_LOCK_RELEASE, -1},  {IPS2_EV_PVM_SEND, -1},
        {IPS2_EV_ENTER, -1},         {IPS2_EV_MODULE, -1},
    };
    for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
        if (ips2_field_word(starts[i].kind, IPS2_ROLE_START) != starts[i].word)
            fail_msg("%s: start word %d, expected %d", ips2_kind_name(starts[i].kind),
                     ips2_field_word(starts[i].kind, IPS2_ROLE_START), starts[i].word);

    assert_int_equal(ips2_field_word(IPS2_EV_LOCK_ACQUIRED, IPS2_ROLE_CPU_START), 2);
    assert_int_equal(ips2_field_word(IPS2_EV_BARRIER_DEPART, IPS2_ROLE_CPU_START), 3);
    assert_int_equal(ips2_field_word(IPS2_EV_PVM_SEND, IPS2_ROLE_BYTES), 3);
    assert_int_equal(ips2_field_word(IPS2_EV_FILE_WRITE, IPS2_ROLE_ERROR), 2);
    assert_int_equal(ips2_field_word(IPS2_EV_CHAN, IPS2_ROLE_KEY), 1); /* the first: out */
    assert_int_equal(ips2_field_word(IPS2_EV_DGRAM_SEND, IPS2_ROLE_PEER), 6);
    assert_int_equal(ips2_field_word(IPS2_EV_COND_WAKE, IPS2_ROLE_SEQ), 2);
    assert_int_equal(ips2_field_word(IPS2_EV_LOCK_ACQUIRED_SHORT, IPS2_ROLE_SEQ), -1);
    assert_int_equal(ips2_field_word(IPS2_EV_KIND_MAX, IPS2_ROLE_START), -1);
    assert_int_equal(ips2_field_word(1000, IPS2_ROLE_START), -1);
    assert_int_equal(ips2_field_word(IPS2_EV_SEND, IPS2_ROLE_COUNT), -1);

    /* every kind and role: the word of the first field with that role */
    for (unsigned kind = 0; kind <= IPS2_EV_KIND_MAX; kind++) {
        const struct ips2_kind_fields *k = ips2_kind_fields(kind);
        for (unsigned role = 0; role < IPS2_ROLE_COUNT; role++) {
            int first = -1;
            for (unsigned i = 0; k && i < k->nfields && first < 0; i++)
                if (k->fields[i].role == role)
                    first = k->fields[i].word;
            if (ips2_field_word(kind, (enum ips2_field_role)role) != first)
                fail_msg("%s role %u: word %d, expected %d", ips2_kind_name(kind), role,
                         ips2_field_word(kind, (enum ips2_field_role)role), first);
        }
    }

    const struct ips2_kind_fields *kf = ips2_kind_fields(IPS2_EV_PVM_BARRIER);
    assert_non_null(kf);
    assert_string_equal(kf->payload, "count");
    assert_int_equal(kf->nfields, 5);
    assert_string_equal(kf->fields[4].name, "group");
    assert_int_equal(kf->fields[4].role, IPS2_ROLE_STRING);
    assert_null(ips2_kind_fields(IPS2_EV_SYNC)->payload);
    assert_int_equal(ips2_kind_fields(IPS2_EV_ENTER)->nfields, 0);
}

/* ---- ips2-dump against the table ------------------------------------- */

/* The dump prints every word the table names, and no other; the payload
 * when the table names it.  Procedure entry and exit alone are printed
 * by dump.c (names and depth). */
static void test_dump_shows_every_field(void **state)
{
    (void)state;
    for (unsigned kind = 0; kind <= IPS2_EV_KIND_MAX; kind++) {
        const struct ips2_kind_fields *kf = ips2_kind_fields(kind);
        uint64_t shown, named = 0;
        bool payload;
        bool has_table = ips2_dump_words(kind, &shown, &payload);
        if (!kf) {
            assert_false(has_table);
            continue;
        }
        if (kind == IPS2_EV_ENTER || kind == IPS2_EV_EXIT) {
            assert_false(has_table);
            continue;
        }
        if (!has_table)
            fail_msg("%s: the dump has no fields for it", ips2_kind_name(kind));
        for (unsigned i = 0; i < kf->nfields; i++)
            for (unsigned w = 0; w < (kf->fields[i].words ? kf->fields[i].words : 1u); w++)
                named |= 1ull << (kf->fields[i].word + w);
        if (shown != named)
            fail_msg("%s: the dump shows words 0x%llx, the table names 0x%llx",
                     ips2_kind_name(kind), (unsigned long long)shown, (unsigned long long)named);
        if (payload != (kf->payload != NULL))
            fail_msg("%s: the dump %s the payload", ips2_kind_name(kind),
                     payload ? "shows" : "does not show");
    }
}

/* ---- FORMAT.md against the table ------------------------------------ */

#define MAXDOC 16

struct doc_field {
    char name[32];
    int first, last; /* last: -1 for "[i..]" */
};

struct doc_kind {
    bool seen;
    unsigned nfields;
    struct doc_field f[MAXDOC];
};

struct check {
    struct doc_kind kinds[IPS2_EV_KIND_MAX + 1];
    unsigned problems;
    char first[512]; /* the first problem */
};

static void problem(struct check *c, unsigned line, const char *fmt, ...)
{
    if (c->problems++ == 0) {
        va_list ap;
        int n = snprintf(c->first, sizeof(c->first), "FORMAT.md line %u: ", line);
        va_start(ap, fmt);
        vsnprintf(c->first + n, sizeof(c->first) - (size_t)n, fmt, ap);
        va_end(ap);
    }
}

/* Splits a table row into at most max cells at unescaped '|', trimmed, in
 * place.  Returns the number of cells. */
static unsigned cells_of(char *row, char **cell, unsigned max)
{
    unsigned n = 0;
    char *p = row;

    if (*p != '|')
        return 0;
    p++;
    while (*p && n < max) {
        char *start = p;
        while (*p && !(*p == '|' && p[-1] != '\\'))
            p++;
        char *end = p;
        while (start < end && isspace((unsigned char)*start))
            start++;
        while (end > start && isspace((unsigned char)end[-1]))
            end--;
        if (!*p)
            break; /* the text after the last '|' */
        *end = '\0';
        cell[n++] = start;
        p++;
    }
    return n;
}

static int kind_by_name(const char *name)
{
    for (unsigned k = 0; k <= IPS2_EV_KIND_MAX; k++)
        if (ips2_kind_known(k) && strcmp(ips2_kind_name(k), name) == 0)
            return (int)k;
    return -1;
}

/* "`name`" at s: copies the name, returns what follows, or NULL. */
static const char *backquoted(const char *s, char *name, size_t size)
{
    if (*s != '`')
        return NULL;
    const char *end = strchr(s + 1, '`');
    if (!end || (size_t)(end - s - 1) >= size)
        return NULL;
    memcpy(name, s + 1, (size_t)(end - s - 1));
    name[end - s - 1] = '\0';
    return end + 1;
}

/* The "[i] `name`" words of an extra cell, in order. */
static void parse_extra(struct check *c, unsigned line, const char *cell, struct doc_kind *dk)
{
    for (const char *p = cell; (p = strchr(p, '[')) != NULL; p++) {
        char *end;
        if (p > cell && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
            continue; /* extra[2] in prose */
        if (!isdigit((unsigned char)p[1]))
            continue;
        long first = strtol(p + 1, &end, 10), last = first;
        if (strncmp(end, "..", 2) == 0) {
            end += 2;
            last = isdigit((unsigned char)*end) ? strtol(end, &end, 10) : -1;
        }
        if (*end != ']' || end[1] != ' ' || end[2] != '`')
            continue; /* not a field: "[0]" in prose */
        if (dk->nfields == MAXDOC) {
            problem(c, line, "more than %d fields", MAXDOC);
            return;
        }
        struct doc_field *f = &dk->f[dk->nfields];
        if (!backquoted(end + 2, f->name, sizeof(f->name))) {
            problem(c, line, "a field name in `...` after [%ld]", first);
            return;
        }
        f->first = (int)first;
        f->last = (int)last;
        dk->nfields++;
    }
}

/* The table's fields of kind against the ones the page gave. */
static void compare_kind(struct check *c, unsigned line, unsigned kind, const struct doc_kind *dk)
{
    const struct ips2_kind_fields *kf = ips2_kind_fields(kind);
    const char *kname = ips2_kind_name(kind);

    for (unsigned i = 0; i < kf->nfields || i < dk->nfields; i++) {
        if (i >= dk->nfields) {
            problem(c, line, "%s: extra word %s (%u) missing", kname, kf->fields[i].name,
                    kf->fields[i].word);
            return;
        }
        const struct doc_field *d = &dk->f[i];
        if (i >= kf->nfields) {
            problem(c, line, "%s: [%d] `%s` is not in ips2_fields.h", kname, d->first, d->name);
            return;
        }
        const struct ips2_field *f = &kf->fields[i];
        int last = f->words == 0 ? -1 : f->word + f->words - 1;
        if (strcmp(d->name, f->name) != 0) {
            problem(c, line, "%s: extra word %u is `%s` in ips2_fields.h, `%s` here", kname, i,
                    f->name, d->name);
            return;
        }
        if (d->first != f->word || d->last != last) {
            problem(c, line,
                    "%s: `%s` is at [%d..%d] in ips2_fields.h (-1: to the end), [%d..%d] here",
                    kname, f->name, f->word, last, d->first, d->last);
            return;
        }
    }
}

static void check_doc(struct check *c, const char *text)
{
    char *copy = strdup(text), *save = NULL;
    bool in_table = false;
    unsigned line = 0;

    memset(c, 0, sizeof(*c));
    assert_non_null(copy);
    for (char *l = copy; l; l = save) {
        char *cell[8];
        save = strchr(l, '\n');
        if (save)
            *save++ = '\0';
        line++;
        unsigned n = cells_of(l, cell, 8);
        if (n == 0) {
            in_table = false;
            continue;
        }
        if (n == 4 && strcmp(cell[0], "#") == 0 && strcmp(cell[1], "name") == 0 &&
            strcmp(cell[2], "payload") == 0 && strcmp(cell[3], "extra") == 0) {
            in_table = true;
            continue;
        }
        if (!in_table || !isdigit((unsigned char)cell[0][0]))
            continue;
        char *end;
        unsigned long kind = strtoul(cell[0], &end, 10);
        if (*end)
            continue; /* "34-36" */
        if (n != 4) {
            problem(c, line, "%lu: %u cells, expected 4", kind, n);
            continue;
        }
        if (kind > IPS2_EV_KIND_MAX || !ips2_kind_known((unsigned)kind) ||
            strcmp(ips2_kind_name((unsigned)kind), cell[1]) != 0) {
            problem(c, line, "%lu is not the kind %s", kind, cell[1]);
            continue;
        }
        const struct ips2_kind_fields *kf = ips2_kind_fields((unsigned)kind);
        if (!kf)
            continue; /* raw only */
        struct doc_kind *dk = &c->kinds[kind];
        if (dk->seen) {
            problem(c, line, "%s described twice", cell[1]);
            continue;
        }
        dk->seen = true;

        char payload[32];
        if (!kf->payload) {
            if (strcmp(cell[2], "0") != 0)
                problem(c, line, "%s: payload 0 expected, found '%s'", cell[1], cell[2]);
        } else if (!backquoted(cell[2], payload, sizeof(payload)) ||
                   strcmp(payload, kf->payload) != 0) {
            problem(c, line, "%s: payload `%s` expected, found '%s'", cell[1], kf->payload,
                    cell[2]);
        }

        char like[32];
        if (strncmp(cell[3], "as ", 3) == 0 && backquoted(cell[3] + 3, like, sizeof(like))) {
            int other = kind_by_name(like);
            if (other < 0 || !c->kinds[other].seen) {
                problem(c, line, "%s: as `%s`, a kind not described above", cell[1], like);
                continue;
            }
            dk->nfields = c->kinds[other].nfields;
            memcpy(dk->f, c->kinds[other].f, sizeof(dk->f));
        } else {
            parse_extra(c, line, cell[3], dk);
        }
        compare_kind(c, line, (unsigned)kind, dk);
    }
    for (unsigned k = 0; k <= IPS2_EV_KIND_MAX; k++)
        if (ips2_kind_fields(k) && !c->kinds[k].seen)
            problem(c, line, "%s: not described in any \"| # | name | payload | extra |\" table",
                    ips2_kind_name(k));
    free(copy);
}

static void test_format_md_matches(void **state)
{
    (void)state;
    char *text = format_md();
    struct check *c = calloc(1, sizeof(*c));

    assert_non_null(c);
    check_doc(c, text);
    if (c->problems)
        fail_msg("%u problems; the first: %s", c->problems, c->first);
    free(c);
    free(text);
}

/* The page with `from` replaced by `to` (once) must fail the check with
 * a message that contains `says`. */
static void expect_drift(const char *text, const char *from, const char *to, const char *says)
{
    const char *at = strstr(text, from);
    assert_non_null(at);
    size_t head = (size_t)(at - text);
    char *bad = malloc(strlen(text) + strlen(to) + 1);
    struct check *c = calloc(1, sizeof(*c));

    assert_non_null(bad);
    assert_non_null(c);
    memcpy(bad, text, head);
    strcpy(bad + head, to);
    strcat(bad, at + strlen(from));
    check_doc(c, bad);
    if (c->problems == 0)
        fail_msg("'%s' -> '%s' went unnoticed", from, to);
    if (!strstr(c->first, says))
        fail_msg("'%s' -> '%s': \"%s\" does not say \"%s\"", from, to, c->first, says);
    free(c);
    free(bad);
}

static void test_format_md_drift_is_caught(void **state)
{
    (void)state;
    char *text = format_md();

    /* a renamed word, two swapped, a word at the wrong index, one left
     * out, one too many, an endpoint one word short */
    expect_drift(text, "[2] `bytes`; [3] `errno`; [4] `start` timer; [5] `call` |",
                 "[2] `size`; [3] `errno`; [4] `start` timer; [5] `call` |", "`size` here");
    expect_drift(text, "[0] `tag`; [1] `context`; [2] `seq`: sequence (0 if",
                 "[0] `context`; [1] `tag`; [2] `seq`: sequence (0 if", "is `tag` in");
    expect_drift(text, "[9] `listener`", "[10] `listener`", "`listener` is at [9..9]");
    expect_drift(text, "; [4] `timeout` in ms", "", "timeout (4) missing");
    expect_drift(text, "[1] `pthread`: the pthread_t", "[1] `pthread`: the pthread_t, [2] `x`",
                 "[2] `x` is not in");
    expect_drift(text, "[3..5] `self` endpoint; [6..8] `peer` endpoint; [9]",
                 "[3..4] `self` endpoint; [6..8] `peer` endpoint; [9]", "[3..4] here");
    /* a string that is not open-ended, a wrong payload, a kind missing or
     * described twice, an "as" of the wrong kind */
    expect_drift(text, "[4..] `group` string", "[4] `group` string", "[4..4] here");
    expect_drift(text, "| 78 | pvm-exit | `tid`", "| 78 | pvm-exit | `task`", "payload `tid`");
    expect_drift(text, "| 12 | fork |", "| 12 | forked |", "not the kind forked");
    expect_drift(text, "| 54 | shutdown | `fd` | [0] `how`; [1] `errno`; [2] `out_key` |\n",
                 "| 54 | shutdown | `fd` | [0] `how`; [1] `errno`; [2] `out_key` |\n"
                 "| 54 | shutdown | `fd` | [0] `how`; [1] `errno`; [2] `out_key` |\n",
                 "shutdown described twice");
    expect_drift(text, "| 51 | file-write | `fd` | as `file-read` |",
                 "| 51 | file-write | `fd` | as `send` |", "file-write");
    expect_drift(text, "| 33 | lock-release-shared | `object` | as `lock-release` |\n", "",
                 "lock-release-shared: not described");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_event_kind_has_a_row),
        cmocka_unit_test(test_fields_tile_the_words),
        cmocka_unit_test(test_constants_are_the_table),
        cmocka_unit_test(test_lookup_by_role),
        cmocka_unit_test(test_dump_shows_every_field),
        cmocka_unit_test(test_format_md_matches),
        cmocka_unit_test(test_format_md_drift_is_caught),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
