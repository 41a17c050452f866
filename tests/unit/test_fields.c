/*
 * test_fields.c - the one table of each event kind's fields
 * (traces/ips2_fields.h).
 *
 * The table must be well formed: every kind readers return has a row and
 * no other kind does, a kind's fields tile its extra words from 0 with
 * strings last, the generated IPS2_F_<KIND>_<FIELD> constants are the
 * table's words and their names its names; the lookup by role finds them.
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

#include "ips2_fields.h"
#include "ips2_reader.h"

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
            if (f->role > IPS2_ROLE_STRING)
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

    const struct ips2_kind_fields *kf = ips2_kind_fields(IPS2_EV_PVM_BARRIER);
    assert_non_null(kf);
    assert_string_equal(kf->payload, "count");
    assert_int_equal(kf->nfields, 5);
    assert_string_equal(kf->fields[4].name, "group");
    assert_int_equal(kf->fields[4].role, IPS2_ROLE_STRING);
    assert_null(ips2_kind_fields(IPS2_EV_SYNC)->payload);
    assert_int_equal(ips2_kind_fields(IPS2_EV_ENTER)->nfields, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_event_kind_has_a_row),
        cmocka_unit_test(test_fields_tile_the_words),
        cmocka_unit_test(test_constants_are_the_table),
        cmocka_unit_test(test_lookup_by_role),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
