/*
 * xorshift.h - the xorshift64 generator the unit tests draw their random
 * inputs from.  Each test keeps its own state and seed, so a seed gives the
 * same sequence in every run and a failure can be replayed.
 */
#ifndef IPS2_TEST_XORSHIFT_H
#define IPS2_TEST_XORSHIFT_H

#include <stdint.h>

/* Advances *state (seeded non-zero) and returns its new value. */
static inline uint64_t xorshift64(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

#endif /* IPS2_TEST_XORSHIFT_H */
