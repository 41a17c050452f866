/*
 * walk.c - the backward walk over one part: from a node, follow each
 * node's predecessor on its longest path (CPU arcs and dependence arcs of
 * this part), emitting the path's segments last-first, until a node with
 * none (a start of the mode) or a predecessor in another part, where the
 * walk goes on (CPA.md §4).
 */
#include "cpa_internal.h"

int ips2_cpa_worker_walk(struct ips2_cpa_worker *w, const struct ips2_cpa_walk *in,
                         struct ips2_cpa_path *chunk, struct ips2_cpa_walk *next, char *err,
                         size_t errlen)
{
    const struct ips2_pag *pag = w->pag;
    const char *m = pag->machine ? pag->machine : "?";
    next->done = 1;
    next->gid = 0;
    next->has_arc = 0;
    if (in->done)
        return 0;
    if (IPS2_PAG_GID_PART(in->gid) != w->part || IPS2_PAG_GID_NODE(in->gid) >= pag->nnodes)
        return cpa_err(err, errlen, "part %s: walk at %u:%u, not a node of this part", m,
                       IPS2_PAG_GID_PART(in->gid), IPS2_PAG_GID_NODE(in->gid));
    uint32_t n = IPS2_PAG_GID_NODE(in->gid);
    if (!cpa_processed(w, n) || !(w->st[n].rem & CPA_REACHED_BIT))
        return cpa_err(err, errlen, "part %s: walk at node %u, which is not on a path of the mode",
                       m, n);
    if (in->has_arc) {
        struct ips2_cpa_segment seg = in->arc;
        if (seg.from != in->gid || seg.kind == IPS2_CPA_SEG_CPU)
            return cpa_err(err, errlen, "part %s: walk at node %u with an arc from elsewhere", m,
                           n);
        seg.src_part = w->part;
        seg.src_thread = pag->nodes[n].thread;
        seg.begin = pag->nodes[n].wall < seg.end ? pag->nodes[n].wall : seg.end;
        seg.first_share = seg.nshares = 0;
        if (cpa_emit(chunk, &seg, err, errlen))
            return -1;
    }
    for (;;) {
        const struct cpa_state *s = &w->st[n];
        if (s->pred == CPA_PRED_NONE)
            return 0;
        if (s->pred == CPA_PRED_THREAD) {
            if (cpa_emit_cpu(chunk, &w->scope, pag, n, err, errlen))
                return -1;
            n--;
            continue;
        }
        uint32_t ai = s->pred - CPA_PRED_ARC;
        const struct ips2_pag_arc *a = &pag->arcs[ai];
        struct ips2_cpa_segment seg = {
            .kind = a->type,
            .dst_part = w->part,
            .dst_thread = pag->nodes[n].thread,
            .from = a->from,
            .to = IPS2_PAG_GID(w->part, n),
            .end = pag->nodes[n].wall,
            .length = a->weight,
        };
        if (IPS2_PAG_GID_PART(a->from) != w->part) {
            next->done = 0;
            next->gid = a->from;
            next->has_arc = 1;
            next->arc = seg;
            /* the source's part fills begin in; until then the arc is
             * well-formed for the wire (times may be negative: a replayed
             * session's part before its shift) */
            next->arc.begin = seg.end;
            return 0;
        }
        uint32_t src = IPS2_PAG_GID_NODE(a->from);
        seg.src_part = w->part;
        seg.src_thread = pag->nodes[src].thread;
        seg.begin = pag->nodes[src].wall < seg.end ? pag->nodes[src].wall : seg.end;
        if (cpa_emit(chunk, &seg, err, errlen))
            return -1;
        n = src;
    }
}
