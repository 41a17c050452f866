/*
 * fuzz_pag.c - libFuzzer target for the PAG part's decoders (cpa/
 * pag_file.c): the part file, a part's ends and the matching's cross
 * message.  The first byte chooses the decoder and whether the input's
 * crc32 is made right first (so that the fuzzer gets past the crc into the
 * parser); a decoded part is encoded again and must decode to the same
 * bytes, and cross messages are applied to a decoded part.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "ips2_pag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ips2_pag *g = NULL;
    char err[512];

    if (size < 1)
        return 0;
    unsigned mode = data[0];
    uint8_t *buf = malloc(size - 1 ? size - 1 : 1);
    if (!buf)
        return 0;
    memcpy(buf, data + 1, size - 1);
    size--;
    if ((mode & 4) && size >= 4) {
        uint32_t c = (uint32_t)crc32(0L, buf, (uInt)(size - 4));
        memcpy(buf + size - 4, &c, 4);
    }
    switch (mode & 3) {
    case 0:
    case 3:
        if (ips2_pag_decode(buf, size, "fuzz", &g, err, sizeof(err)) == 0) {
            size_t n;
            void *again = ips2_pag_encode(g, &n);
            if (again && (n != size || memcmp(again, buf, n) != 0))
                abort(); /* a decoded part encodes to the same bytes */
            free(again);
            if ((mode & 3) == 3) {
                ips2_pag_set_part(g, 0);
                ips2_pag_match_ends(&g, 1, err, sizeof(err));
            }
        }
        break;
    case 1:
        if (ips2_pag_ends_decode(buf, size, "fuzz", &g, err, sizeof(err)) == 0)
            ips2_pag_match_ends(&g, 1, err, sizeof(err));
        break;
    case 2: {
        struct ips2_pag live = {0};
        ips2_pag_cross_apply(&live, buf, size, "fuzz", err, sizeof(err));
        free(live.arcs);
        free(live.outs);
        for (size_t i = 0; i < live.nwarnings; i++)
            free(live.warnings[i]);
        free(live.warnings);
        break;
    }
    }
    ips2_pag_free(g);
    free(buf);
    return 0;
}
