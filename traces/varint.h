/*
 * varint.h - LEB128 unsigned varints and zigzag mapping (private to traces/).
 *
 * The packed encoding (ips2_format.h) stores every number as an unsigned
 * LEB128 varint: 7 bits per byte, least significant group first, the high
 * bit set on every byte but the last.  A 64-bit value takes at most
 * IPS2_VARINT_MAX bytes.  Signed deltas go through zigzag first so that
 * small negative numbers stay short: 0, -1, 1, -2, 2 ... -> 0, 1, 2, 3, 4 ...
 * The deltas themselves are computed modulo 2^64 (unsigned arithmetic), so
 * zigzag works on the two's-complement bit pattern held in a uint64_t.
 */
#ifndef IPS2_VARINT_H
#define IPS2_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define IPS2_VARINT_MAX 10 /* bytes of the longest 64-bit varint */

/* Writes v at p, which must have room for IPS2_VARINT_MAX bytes.
 * Returns the bytes written (1 to 10). */
size_t ips2_varint_put(uint8_t *p, uint64_t v);

/* Reads a varint from the avail bytes at p into *v.  Returns the bytes
 * consumed (1 to 10); 0 if the varint runs past avail (truncated); -1 if it
 * is longer than 10 bytes or does not fit in 64 bits.  *v is set only on
 * success. */
int ips2_varint_get(const uint8_t *p, size_t avail, uint64_t *v);

/* Bytes ips2_varint_put() would write for v. */
size_t ips2_varint_len(uint64_t v);

/* Zigzag of a two's-complement value held in a uint64_t, and back. */
static inline uint64_t ips2_zigzag_u(uint64_t d)
{
    return (d << 1) ^ (0 - (d >> 63));
}

static inline uint64_t ips2_unzigzag_u(uint64_t z)
{
    return (z >> 1) ^ (0 - (z & 1));
}

/* The same for int64_t values. */
static inline uint64_t ips2_zigzag(int64_t v)
{
    return ips2_zigzag_u((uint64_t)v);
}

static inline int64_t ips2_unzigzag(uint64_t z)
{
    uint64_t u = ips2_unzigzag_u(z);
    int64_t v;

    /* Two's-complement reinterpretation without implementation-defined
     * conversion of out-of-range values. */
    __builtin_memcpy(&v, &u, sizeof(v));
    return v;
}

#endif /* IPS2_VARINT_H */
