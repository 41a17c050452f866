/*
 * ips2_pag_clocks.h - the machines' clocks corrected by their messages
 * (docs/CLOCKS.md §3).
 *
 * Each machine's times come into the master's time base with the offset
 * its slave measured at start (traces/ips2_clocks.h), up to that
 * estimate's error.  What is left, the messages themselves bound: a
 * receive never ends before its send began.  Matching the parts' ends
 * (ips2_pag_match_ends) runs this pass on the message pairings between
 * parts (TCP byte ranges, UDP datagrams, PVM messages): one shift per part,
 * the least that leaves no pairing running backwards (the smallest
 * violation when no shift can), and computes the cross arcs' weights with
 * it.  The shifts are not applied to the parts' nodes: only to the arcs
 * between parts.
 */
#ifndef IPS2_PAG_CLOCKS_H
#define IPS2_PAG_CLOCKS_H

#include <stddef.h>
#include <stdint.h>

#include "ips2_pag.h"

struct ips2_pag_clock {
    int64_t shift;      /* ns added to the part's times at its message arcs */
    uint64_t pairs;     /* message pairings between it and other parts */
    uint64_t backwards; /* of them, received before they were sent, as recorded */
    int64_t worst;      /* by how much the worst of those ran backwards (ns; 0: none) */
    uint64_t after;     /* still backwards after the shifts (clocks that no shift reconciles) */
};

/* What the pass would do to parts[0..n) (each .part its index, their ends
 * not yet matched; nothing in them changes): out[p] for each part.  0, or
 * -1 with err (out of memory, a part misnumbered). */
int ips2_pag_clocks(struct ips2_pag **parts, size_t n, struct ips2_pag_clock *out, char *err,
                    size_t errlen);

#endif /* IPS2_PAG_CLOCKS_H */
