/*
 * proto_pack.c - the field encodings of ips2_proto.h over PVM's pack
 * routines: 64-bit integers as two 32-bit words (PVM's XDR truncates
 * longs to 4 bytes) and strings and blobs with an explicit length (so the
 * receiver bounds what it allocates).  Used by both ips2slave and the
 * master's Tcl extension; no state of its own.
 *
 * It is a thin layer over PVM, not a byte codec: PVM's XDR encoding does
 * the byte order, and it encodes no bytes itself.  The byte formats that
 * travel inside its blobs (a reductions file, the critical-path messages
 * of cpa/wire.c) are written and read through traces/ips2_codec.h.
 */
#include <pvm3.h>
#include <stdlib.h>
#include <string.h>

#include "ips2_proto.h"

int ips2_pk_u32(uint32_t v)
{
    unsigned u = v;
    return pvm_pkuint(&u, 1, 1);
}

int ips2_pk_i32(int32_t v)
{
    int i = v;
    return pvm_pkint(&i, 1, 1);
}

int ips2_pk_i64(int64_t v)
{
    uint64_t u = (uint64_t)v;
    int rc = ips2_pk_u32((uint32_t)(u >> 32));
    return rc < 0 ? rc : ips2_pk_u32((uint32_t)u);
}

/* Packs n bytes in chunks of at most IPS2_PROTO_CHUNK. */
static int pk_bytes(const void *data, size_t n)
{
    const char *p = data;
    while (n > 0) {
        size_t k = n < IPS2_PROTO_CHUNK ? n : IPS2_PROTO_CHUNK;
        int rc = pvm_pkbyte((char *)p, (int)k, 1);
        if (rc < 0)
            return rc;
        p += k;
        n -= k;
    }
    return 0;
}

static int upk_bytes(void *data, size_t n)
{
    char *p = data;
    while (n > 0) {
        size_t k = n < IPS2_PROTO_CHUNK ? n : IPS2_PROTO_CHUNK;
        int rc = pvm_upkbyte(p, (int)k, 1);
        if (rc < 0)
            return rc;
        p += k;
        n -= k;
    }
    return 0;
}

int ips2_pk_str(const char *s)
{
    size_t n = s == NULL ? 0 : strlen(s);
    if (n > IPS2_PROTO_STR_MAX)
        return PvmBadMsg;
    int rc = ips2_pk_u32((uint32_t)n);
    return rc < 0 ? rc : pk_bytes(s, n);
}

int ips2_pk_strv(const char *const *v, size_t n)
{
    if (n > IPS2_PROTO_LIST_MAX)
        return PvmBadMsg;
    IPS2_TRY(ips2_pk_u32((uint32_t)n));
    for (size_t i = 0; i < n; i++)
        IPS2_TRY(ips2_pk_str(v[i]));
    return 0;
}

int ips2_pk_blob(const void *data, size_t size)
{
    int rc = ips2_pk_i64((int64_t)size);
    return rc < 0 ? rc : pk_bytes(data, size);
}

int ips2_upk_u32(uint32_t *v)
{
    unsigned u = 0;
    int rc = pvm_upkuint(&u, 1, 1);
    *v = u;
    return rc;
}

int ips2_upk_i32(int32_t *v)
{
    int i = 0;
    int rc = pvm_upkint(&i, 1, 1);
    *v = i;
    return rc;
}

int ips2_upk_i64(int64_t *v)
{
    uint32_t hi = 0, lo = 0;
    int rc = ips2_upk_u32(&hi);
    if (rc >= 0)
        rc = ips2_upk_u32(&lo);
    *v = (int64_t)(((uint64_t)hi << 32) | lo);
    return rc;
}

int ips2_upk_str(char **s)
{
    uint32_t n = 0;
    *s = NULL;
    int rc = ips2_upk_u32(&n);
    if (rc < 0)
        return rc;
    if (n > IPS2_PROTO_STR_MAX)
        return PvmBadMsg;
    char *buf = malloc((size_t)n + 1);
    if (buf == NULL)
        return PvmNoMem;
    rc = upk_bytes(buf, n);
    if (rc < 0) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *s = buf;
    return 0;
}

int ips2_upk_strv(char ***out, size_t *count)
{
    uint32_t n = 0;
    *out = NULL;
    IPS2_TRY(ips2_upk_u32(&n));
    if (n > IPS2_PROTO_LIST_MAX)
        return PvmBadMsg;
    char **v = calloc((size_t)n + 1, sizeof *v);
    if (v == NULL)
        return PvmNoMem;
    *out = v;
    for (uint32_t i = 0; i < n; i++)
        IPS2_TRY(ips2_upk_str(&v[i]));
    if (count != NULL)
        *count = n;
    return 0;
}

int ips2_upk_blob(void **data, size_t *size, size_t max)
{
    int64_t n = 0;
    *data = NULL;
    *size = 0;
    int rc = ips2_upk_i64(&n);
    if (rc < 0)
        return rc;
    if (n < 0 || (uint64_t)n > max)
        return PvmBadMsg;
    void *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf == NULL)
        return PvmNoMem;
    rc = upk_bytes(buf, (size_t)n);
    if (rc < 0) {
        free(buf);
        return rc;
    }
    *data = buf;
    *size = (size_t)n;
    return 0;
}
