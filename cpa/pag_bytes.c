/*
 * pag_bytes.c - the byte ranges of streams (sends and receives), kept
 * compact while a part is built and paired at its end (cpa/PAG.md §2, §5).
 *
 * A message-heavy trace is mostly sends and receives, and a general
 * pairing item (pag_internal.h, ~112 bytes, sorted with all the others)
 * per range made the builder slow and big.  Here each stream key has its
 * own two arrays: sends of 24 bytes (offset, bytes, node) and receives of
 * 32 (and the call's start).  A range's time is its node's, except where
 * the thread's clock went backwards and the node was moved forward: those
 * few keep the event's own time in a side table (by node).
 *
 * At the end each stream is paired with the same rule and in the same
 * order as pag_match.c paired byte items: both sides sorted by (offset,
 * bytes, time, node), each receive with the sends from the first that
 * ends after its start while they begin before its end.  Ranges come in
 * node order, which for one writer and one reader of a stream is already
 * that order; a stream written or read by several threads is sorted.
 * Streams go in key order, so the arcs come out as pag_match.c made them.
 * What pairs with nothing becomes a pairing item (an end or a warning).
 *
 * A stream's arrays are malloc'd while small and then each in its own
 * mapping, grown by mremap: growing them never copies the records.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pag_internal.h"

#define PB_DONE 1u /* a send that paired */
#define PB_WALL 2u /* its time is in the side table (not its node's) */

struct pb_src {
    uint64_t off, len;
    uint32_t node, flags;
};

struct pb_dst {
    uint64_t off, len;
    int64_t ws; /* when its call began; INT64_MIN: unknown */
    uint32_t node, flags;
};

struct pb_stream {
    uint64_t key;
    struct pb_src *s;
    size_t ns, caps;
    struct pb_dst *d;
    size_t nd, capd;
};

struct pb_wall {
    uint32_t node;
    int64_t wall;
};

struct pag_bytes {
    struct pb_stream *v;
    size_t n, cap;
    uint32_t *slot; /* stream index + 1; 0 empty */
    size_t mask;
    uint64_t last_key[2];
    uint32_t last_idx[2];
    struct pb_wall *walls; /* by node, ascending */
    size_t nwalls, capwalls;
};

/* ---- arrays that grow without copying ----------------------------------- */

#define PB_MAP_MIN (256u << 10) /* from this size on, an array has its own mapping */

static bool mapped(size_t cap, size_t elem)
{
    return cap * elem >= PB_MAP_MIN;
}

/* Room for one more element in *v (n used of cap); false on OOM. */
static bool vgrow(void **v, size_t *cap, size_t n, size_t elem)
{
    size_t c = *cap ? *cap * 2 : 16;
    void *q;

    if (n < *cap)
        return true;
    if (c > SIZE_MAX / 2 / elem)
        return false;
    if (!mapped(c, elem)) {
        if (!(q = realloc(*v, c * elem)))
            return false;
    } else if (!mapped(*cap, elem)) {
        if ((q = mmap(NULL, c * elem, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
                      0)) == MAP_FAILED)
            return false;
        if (n)
            memcpy(q, *v, n * elem);
        free(*v);
    } else if ((q = mremap(*v, *cap * elem, c * elem, MREMAP_MAYMOVE)) == MAP_FAILED) {
        return false;
    }
    *v = q;
    *cap = c;
    return true;
}

static void vfree(void *v, size_t cap, size_t elem)
{
    if (v && mapped(cap, elem))
        munmap(v, cap * elem);
    else
        free(v);
}

#define VPUSH(arr, n, cap)                                                                         \
    ((n) < (cap) || vgrow((void **)&(arr), &(cap), (n), sizeof(*(arr))) ? &(arr)[(n)++] : NULL)

struct pag_bytes *pag_bytes_new(void)
{
    return calloc(1, sizeof(struct pag_bytes));
}

static void clear(struct pag_bytes *pb)
{
    for (size_t i = 0; i < pb->n; i++) {
        vfree(pb->v[i].s, pb->v[i].caps, sizeof(struct pb_src));
        vfree(pb->v[i].d, pb->v[i].capd, sizeof(struct pb_dst));
    }
    free(pb->v);
    free(pb->slot);
    free(pb->walls);
    memset(pb, 0, sizeof(*pb));
}

void pag_bytes_free(struct pag_bytes *pb)
{
    if (!pb)
        return;
    clear(pb);
    free(pb);
}

static size_t hash(uint64_t key, size_t mask)
{
    key ^= key >> 31;
    key *= 0x9e3779b97f4a7c15ull;
    return (size_t)(key >> 17) & mask;
}

static bool rehash(struct pag_bytes *pb)
{
    size_t mask = pb->mask ? pb->mask * 2 + 1 : 63;
    uint32_t *slot = calloc(mask + 1, sizeof(*slot));

    if (!slot)
        return false;
    for (size_t i = 0; i < pb->n; i++) {
        size_t j = hash(pb->v[i].key, mask);
        while (slot[j])
            j = (j + 1) & mask;
        slot[j] = (uint32_t)i + 1;
    }
    free(pb->slot);
    pb->slot = slot;
    pb->mask = mask;
    return true;
}

/* The stream of key (made if new); NULL when out of memory. */
static struct pb_stream *stream(struct pag_bytes *pb, uint64_t key)
{
    for (int c = 0; c < 2; c++)
        if (pb->last_key[c] == key && pb->last_idx[c] < pb->n)
            return &pb->v[pb->last_idx[c]];
    if ((pb->n + 1) * 2 > pb->mask + 1 && (pb->n >= UINT32_MAX - 1 || !rehash(pb)))
        return NULL;
    size_t j = hash(key, pb->mask);
    for (; pb->slot[j]; j = (j + 1) & pb->mask)
        if (pb->v[pb->slot[j] - 1].key == key)
            break;
    if (!pb->slot[j]) {
        struct pb_stream *s = PAG_PUSH(pb->v, pb->n, pb->cap);
        if (!s)
            return NULL;
        memset(s, 0, sizeof(*s));
        s->key = key;
        pb->slot[j] = (uint32_t)pb->n;
    }
    uint32_t idx = pb->slot[j] - 1;
    pb->last_key[1] = pb->last_key[0];
    pb->last_idx[1] = pb->last_idx[0];
    pb->last_key[0] = key;
    pb->last_idx[0] = idx;
    return &pb->v[idx];
}

bool pag_bytes_add(struct pag_bytes *pb, unsigned side, uint64_t key, uint64_t off, uint64_t len,
                   uint32_t node, bool own_wall, int64_t wall, int64_t ws)
{
    struct pb_stream *s = stream(pb, key);
    uint32_t flags = own_wall ? PB_WALL : 0;

    if (!s)
        return false;
    if (own_wall) {
        struct pb_wall *w = PAG_PUSH(pb->walls, pb->nwalls, pb->capwalls);
        if (!w)
            return false;
        w->node = node;
        w->wall = wall;
    }
    if (side == PAG_SRC) {
        struct pb_src *r = VPUSH(s->s, s->ns, s->caps);
        if (!r)
            return false;
        *r = (struct pb_src){.off = off, .len = len, .node = node, .flags = flags};
    } else {
        struct pb_dst *r = VPUSH(s->d, s->nd, s->capd);
        if (!r)
            return false;
        *r = (struct pb_dst){.off = off, .len = len, .ws = ws, .node = node, .flags = flags};
    }
    return true;
}

void pag_bytes_truncate(struct pag_bytes *pb, uint32_t node)
{
    for (size_t i = 0; i < pb->n; i++) {
        struct pb_stream *s = &pb->v[i];
        while (s->ns && s->s[s->ns - 1].node >= node)
            s->ns--;
        while (s->nd && s->d[s->nd - 1].node >= node)
            s->nd--;
    }
    while (pb->nwalls && pb->walls[pb->nwalls - 1].node >= node)
        pb->nwalls--;
}

/* ---- pairing ------------------------------------------------------------- */

struct ctx {
    const struct pag_bytes *pb;
    const struct ips2_pag *p;
};

static int64_t wall_of(const struct ctx *c, uint32_t node, uint32_t flags)
{
    if (flags & PB_WALL) {
        size_t lo = 0, hi = c->pb->nwalls;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (c->pb->walls[mid].node < node)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < c->pb->nwalls && c->pb->walls[lo].node == node)
            return c->pb->walls[lo].wall;
    }
    return c->p->nodes[node].wall;
}

/* pag_match.c's order of one side of a group: offset, bytes, time, node. */
static int cmp_range(const struct ctx *c, uint64_t o1, uint64_t l1, uint32_t n1, uint32_t f1,
                     uint64_t o2, uint64_t l2, uint32_t n2, uint32_t f2)
{
    if (o1 != o2)
        return o1 < o2 ? -1 : 1;
    if (l1 != l2)
        return l1 < l2 ? -1 : 1;
    int64_t w1 = wall_of(c, n1, f1), w2 = wall_of(c, n2, f2);
    if (w1 != w2)
        return w1 < w2 ? -1 : 1;
    return n1 < n2 ? -1 : n1 > n2;
}

static int cmp_src(const void *a, const void *b, void *arg)
{
    const struct pb_src *x = a, *y = b;

    return cmp_range(arg, x->off, x->len, x->node, x->flags, y->off, y->len, y->node, y->flags);
}

static int cmp_dst(const void *a, const void *b, void *arg)
{
    const struct pb_dst *x = a, *y = b;

    return cmp_range(arg, x->off, x->len, x->node, x->flags, y->off, y->len, y->node, y->flags);
}

/* Whether ranges in this order are strictly ascending by (offset, bytes):
 * then no time or node breaks a tie and they are in the sorted order. */
#define ASCENDING(v, n, ok)                                                                        \
    do {                                                                                           \
        (ok) = true;                                                                               \
        for (size_t i_ = 1; i_ < (n) && (ok); i_++)                                                \
            (ok) = (v)[i_ - 1].off < (v)[i_].off ||                                                \
                   ((v)[i_ - 1].off == (v)[i_].off && (v)[i_ - 1].len < (v)[i_].len);              \
    } while (0)

static struct pag_item *leftover(struct pag_item **v, size_t *n, size_t *cap, const struct ctx *c,
                                 unsigned side, uint64_t key, uint64_t off, uint64_t len,
                                 uint32_t node, uint32_t flags, int64_t ws)
{
    const struct ips2_pag *p = c->p;
    struct pag_item *it = PAG_PUSH(*v, *n, *cap);

    if (!it)
        return NULL;
    memset(it, 0, sizeof(*it));
    it->cls = PC_BYTES;
    it->side = (uint16_t)side;
    it->k[0] = key;
    it->k[1] = off;
    it->k[2] = len;
    it->gid = IPS2_PAG_GID(0, node);
    it->ref = UINT64_MAX;
    it->wall = wall_of(c, node, flags);
    it->ws = side == PAG_DST ? ws : INT64_MIN;
    it->ref_wall = it->ref_ws = INT64_MIN;
    it->thread = p->nodes[node].thread;
    it->prev = node > 0 && p->nodes[node - 1].thread == it->thread ? IPS2_PAG_GID(0, node - 1)
                                                                   : UINT64_MAX;
    it->kind = p->nodes[node].kind;
    return it;
}

static int cmp_key(const void *a, const void *b)
{
    const struct pb_stream *x = a, *y = b;

    return x->key < y->key ? -1 : x->key > y->key;
}

/* One stream: its arcs into out, what did not pair into the items. */
static bool match_stream(const struct ctx *c, struct pb_stream *s, struct pag_pairs *out,
                         struct pag_item **left, size_t *nleft, size_t *capleft)
{
    bool sorted;
    size_t j = 0;

    ASCENDING(s->s, s->ns, sorted);
    if (!sorted)
        qsort_r(s->s, s->ns, sizeof(*s->s), cmp_src, (void *)c);
    ASCENDING(s->d, s->nd, sorted);
    if (!sorted)
        qsort_r(s->d, s->nd, sizeof(*s->d), cmp_dst, (void *)c);
    for (size_t i = 0; i < s->nd; i++) {
        struct pb_dst *d = &s->d[i];
        uint64_t a = d->off, e = d->off + d->len;
        int64_t dw = wall_of(c, d->node, d->flags);
        bool paired = false;
        while (j < s->ns && s->s[j].off + s->s[j].len <= a)
            j++;
        for (size_t m = j; m < s->ns && s->s[m].off < e; m++) {
            struct pb_src *r = &s->s[m];
            struct pag_pair *q = PAG_PUSH(out->v, out->n, out->cap);
            if (!q)
                return false;
            q->from = IPS2_PAG_GID(0, r->node);
            q->to = IPS2_PAG_GID(0, d->node);
            q->weight = pag_weight(wall_of(c, r->node, r->flags), dw, d->ws);
            q->type = IPS2_PAG_ARC_MESSAGE;
            r->flags |= PB_DONE;
            paired = true;
        }
        if (!paired && !leftover(left, nleft, capleft, c, PAG_DST, s->key, d->off, d->len, d->node,
                                 d->flags, d->ws))
            return false;
    }
    for (size_t i = 0; i < s->ns; i++) {
        const struct pb_src *r = &s->s[i];
        if (!(r->flags & PB_DONE) && !leftover(left, nleft, capleft, c, PAG_SRC, s->key, r->off,
                                               r->len, r->node, r->flags, INT64_MIN))
            return false;
    }
    return true;
}

bool pag_bytes_match(struct pag_bytes *pb, const struct ips2_pag *p, struct pag_pairs *out,
                     struct pag_item **left, size_t *nleft)
{
    struct ctx c = {pb, p};
    size_t capleft = 0;
    bool ok = true;

    *left = NULL;
    *nleft = 0;
    free(pb->slot);
    pb->slot = NULL;
    pb->mask = 0;
    qsort(pb->v, pb->n, sizeof(*pb->v), cmp_key);
    size_t want = out->n; /* about one arc per receive: grow out once */
    for (size_t i = 0; i < pb->n; i++)
        want += pb->v[i].nd;
    if (want > out->cap) {
        struct pag_pair *v = realloc(out->v, want * sizeof(*v));
        if (v) {
            out->v = v;
            out->cap = want;
        }
    }
    for (size_t i = 0; i < pb->n && ok; i++) {
        struct pb_stream *s = &pb->v[i];
        ok = match_stream(&c, s, out, left, nleft, &capleft);
        vfree(s->s, s->caps, sizeof(*s->s)); /* free as we go: the arcs take their place */
        vfree(s->d, s->capd, sizeof(*s->d));
        s->s = NULL;
        s->d = NULL;
        s->ns = s->nd = s->caps = s->capd = 0;
    }
    /* what did not pair, in pag_match.c's order */
    if (ok && *nleft > 1)
        qsort(*left, *nleft, sizeof(**left), pag_item_cmp);
    clear(pb);
    return ok;
}
