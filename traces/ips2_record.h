/*
 * ips2_record.h - encode one raw record (see ips2_format.h) into memory.
 *
 * Shared by libips2's hot path and the writer library, so that there is one
 * encoder.  Word 0 is stored last, behind a compiler barrier: a reader of a
 * live or killed writer never sees a half-written record as complete.
 */
#ifndef IPS2_RECORD_H
#define IPS2_RECORD_H

#include <stdint.h>
#include <string.h>

#include "ips2_format.h"

#define ips2_compiler_barrier() __asm__ __volatile__("" ::: "memory")

/* Fills the fixed identification fields of a header; the rest is zeroed. */
static inline void ips2_header_init(struct ips2_file_header *h, unsigned encoding,
                                    unsigned stream_kind)
{
    memset(h, 0, sizeof(*h));
    memcpy(h->magic, IPS2_MAGIC, IPS2_MAGIC_LEN);
    h->version = IPS2_VERSION;
    h->header_size = encoding == IPS2_ENC_RAW ? IPS2_RAW_HEADER_SIZE : sizeof(*h);
    h->endian = 1;
    h->encoding = (uint8_t)encoding;
    h->stream_kind = (uint8_t)stream_kind;
}

/* Words a record takes: two, the CPU word if any, then nextra words. */
static inline unsigned ips2_record_words(unsigned has_cpu, unsigned nextra)
{
    return 2 + has_cpu + nextra;
}

/* Writes a record at p (which must have ips2_record_words() words). */
static inline void ips2_record_put(uint64_t *p, unsigned kind, uint64_t timer, int has_cpu,
                                   uint64_t cpu_ns, uint64_t payload, const uint64_t *extra,
                                   unsigned nextra)
{
    p[1] = timer;
    if (has_cpu)
        p[2] = cpu_ns;
    if (nextra)
        memcpy(p + 2 + (has_cpu ? 1 : 0), extra, nextra * sizeof(uint64_t));
    ips2_compiler_barrier();
    p[0] = IPS2_RAW_WORD0(kind, has_cpu ? 1 : 0, nextra + (has_cpu ? 1 : 0),
                          payload & IPS2_PAYLOAD_MASK);
}

/* Packs a string into NUL-padded words; returns the words used (<= max). */
static inline unsigned ips2_string_words(uint64_t *words, unsigned max, const char *s)
{
    size_t len = strlen(s);
    size_t cap = (size_t)max * sizeof(uint64_t);

    if (max == 0)
        return 0;
    if (len >= cap)
        len = cap - 1;
    unsigned n = (unsigned)(len / sizeof(uint64_t) + 1);
    memset(words, 0, n * sizeof(uint64_t));
    memcpy(words, s, len);
    return n;
}

#endif /* IPS2_RECORD_H */
