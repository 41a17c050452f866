/*
 * test_pvm_pairs.c - the PVM wrappers' pure logic (instr/pvm_pairs.h):
 * per-channel sequence numbers (channels kept apart by peer, context and
 * tag; counting restarts after a clear; a full table answers 0 for new
 * channels but keeps counting the old ones; peek does not count) and the
 * destinations of pvm_mcast (sorted, each once, without the sender).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "pvm_pairs.h"

static struct ips2_pvm_pairs *new_table(void)
{
    struct ips2_pvm_pairs *t = malloc(sizeof(*t));
    assert_non_null(t);
    ips2_pvm_pairs_clear(t);
    return t;
}

static void test_channels_count_apart(void **state)
{
    struct ips2_pvm_pairs *t = new_table();

    (void)state;
    assert_int_equal(ips2_pvm_pair_next(t, 0x40001, 0, 1), 1);
    assert_int_equal(ips2_pvm_pair_next(t, 0x40001, 0, 1), 2);
    assert_int_equal(ips2_pvm_pair_next(t, 0x40001, 0, 2), 1);  /* another tag */
    assert_int_equal(ips2_pvm_pair_next(t, 0x40002, 0, 1), 1);  /* another peer */
    assert_int_equal(ips2_pvm_pair_next(t, 0x40001, 7, 1), 1);  /* another context */
    assert_int_equal(ips2_pvm_pair_next(t, 0x40001, 0, -1), 1); /* any int is a tag */
    assert_int_equal(ips2_pvm_pair_peek(t, 0x40001, 0, 1), 3);
    assert_int_equal(ips2_pvm_pair_peek(t, 0x40001, 0, 1), 3); /* peek does not count */
    assert_int_equal(ips2_pvm_pair_peek(t, 0x40009, 0, 1), 1); /* a new channel starts at 1 */
    assert_int_equal(ips2_pvm_pair_next(t, 0x40001, 0, 1), 3);
    ips2_pvm_pairs_clear(t);
    assert_int_equal(ips2_pvm_pair_next(t, 0x40001, 0, 1), 1);
    free(t);
}

static void test_full_table(void **state)
{
    struct ips2_pvm_pairs *t = new_table();
    int added = 0;

    (void)state;
    for (int tag = 0; tag < 2 * IPS2_PVM_PAIR_SLOTS; tag++)
        if (ips2_pvm_pair_next(t, 0x40001, 0, tag) == 1)
            added++;
    assert_int_equal(added, IPS2_PVM_PAIR_SLOTS - 1); /* one slot stays free */
    assert_int_equal(ips2_pvm_pair_next(t, 0x40002, 0, 0), 0);
    assert_int_equal(ips2_pvm_pair_peek(t, 0x40002, 0, 0), 0);
    /* every channel it took still counts, and lookups of absent ones end */
    int again = 0;
    for (int tag = 0; tag < 2 * IPS2_PVM_PAIR_SLOTS; tag++)
        if (ips2_pvm_pair_next(t, 0x40001, 0, tag) == 2)
            again++;
    assert_int_equal(again, IPS2_PVM_PAIR_SLOTS - 1);
    free(t);
}

static void test_mcast_targets(void **state)
{
    int tids[] = {0x40005, 0x40002, 0x40001, 0x40005, 0x40003, 0x40002};
    int out[6];

    (void)state;
    int n = ips2_pvm_mcast_targets(tids, 6, 0x40001, out);
    assert_int_equal(n, 3);
    assert_int_equal(out[0], 0x40002);
    assert_int_equal(out[1], 0x40003);
    assert_int_equal(out[2], 0x40005);
    assert_int_equal(ips2_pvm_mcast_targets(tids, 0, 0x40001, out), 0);
    int self[] = {0x40001, 0x40001};
    assert_int_equal(ips2_pvm_mcast_targets(self, 2, 0x40001, out), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_channels_count_apart),
        cmocka_unit_test(test_full_table),
        cmocka_unit_test(test_mcast_targets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
