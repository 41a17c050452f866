/*
 * varint.c - LEB128 varint encoding and bounds-checked decoding.
 *
 * Decoding never reads past the bytes it is given and refuses encodings
 * longer than 10 bytes or carrying bits beyond the 64th: the packed reader
 * feeds it hostile data.  Non-minimal encodings (e.g. 0x80 0x00 for 0) that
 * fit in 10 bytes are accepted; the packer never writes them.
 */
#include "varint.h"

size_t ips2_varint_put(uint8_t *p, uint64_t v)
{
    size_t n = 0;

    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

size_t ips2_varint_len(uint64_t v)
{
    size_t n = 1;

    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

int ips2_varint_get(const uint8_t *p, size_t avail, uint64_t *v)
{
    uint64_t x = 0;

    for (unsigned i = 0; i < IPS2_VARINT_MAX; i++) {
        if (i >= avail)
            return 0;
        uint8_t b = p[i];
        if (i == IPS2_VARINT_MAX - 1 && b > 1)
            return -1; /* the tenth byte holds only bit 63 */
        x |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *v = x;
            return (int)i + 1;
        }
    }
    return -1; /* an eleventh byte would follow */
}
