/*
 * pag_bytes.c - the byte ranges of streams (sends and receives), kept
 * compact while a part is built and paired at its end (cpa/PAG.md §2, §5).
 *
 * A message-heavy trace is mostly sends and receives, and a general
 * pairing item (pag_internal.h, ~112 bytes, sorted with all the others)
 * per range made the builder slow and big.  Here each stream key has its
 * own two arrays: sends of 32 bytes (offset, bytes, time, node) and
 * receives of 40 (and the call's start).  A range keeps its event's own
 * time, so that pairing never reads the nodes: they are far apart in
 * memory, and reading them cost as much as the rest of the pairing.
 *
 * At the end each stream is paired with the same rule and in the same
 * order as pag_match.c paired byte items: both sides sorted by (offset,
 * bytes, time, node), each receive with the sends from the first that
 * ends after its start while they begin before its end.  Ranges come in
 * node order, which for one writer and one reader of a stream is already
 * that order; a stream written or read by several threads is sorted.
 * Streams go in key order, so the arcs come out as pag_match.c made them.
 * What pairs with nothing goes to the caller as it is found, one item on
 * the stack at a time (an end or a warning then): a server talking to an
 * untraced client leaves most of its ranges unpaired, and an array of
 * 112-byte items for them was the largest thing a build held.
 *
 * A stream's arrays are malloc'd while small and then each in its own
 * mapping, grown by mremap: growing them never copies the records.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pag_internal.h"

#define PB_DONE  1u /* a range that paired */
#define PB_MOVED 2u /* its node was moved forward (its thread's clock went back) */

struct pb_src {
    uint64_t off, len;
    int64_t wall; /* the event's time */
    uint32_t node, flags;
};

struct pb_dst {
    uint64_t off, len;
    int64_t wall;
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

struct pag_bytes {
    struct pb_stream *v;
    size_t n, cap;
    uint32_t *slot; /* stream index + 1; 0 empty */
    size_t mask;
    uint64_t last_key[2];
    uint32_t last_idx[2];
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
                   uint32_t node, bool moved, int64_t wall, int64_t ws)
{
    struct pb_stream *s = stream(pb, key);
    uint32_t flags = moved ? PB_MOVED : 0;

    if (!s)
        return false;
    if (side == PAG_SRC) {
        struct pb_src *r = VPUSH(s->s, s->ns, s->caps);
        if (!r)
            return false;
        *r = (struct pb_src){.off = off, .len = len, .wall = wall, .node = node, .flags = flags};
    } else {
        struct pb_dst *r = VPUSH(s->d, s->nd, s->capd);
        if (!r)
            return false;
        *r = (struct pb_dst){
            .off = off, .len = len, .wall = wall, .ws = ws, .node = node, .flags = flags};
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
}

/* ---- pairing ------------------------------------------------------------- */

/* pag_match.c's order of one side of a group: offset, bytes, time, node. */
#define CMP_RANGE(x, y)                                                                            \
    ((x)->off != (y)->off     ? ((x)->off < (y)->off ? -1 : 1)                                     \
     : (x)->len != (y)->len   ? ((x)->len < (y)->len ? -1 : 1)                                     \
     : (x)->wall != (y)->wall ? ((x)->wall < (y)->wall ? -1 : 1)                                   \
                              : ((x)->node > (y)->node) - ((x)->node < (y)->node))

static int cmp_src(const void *a, const void *b)
{
    const struct pb_src *x = a, *y = b;

    return CMP_RANGE(x, y);
}

static int cmp_dst(const void *a, const void *b)
{
    const struct pb_dst *x = a, *y = b;

    return CMP_RANGE(x, y);
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

/* A range that paired with nothing as the item a byte item would be, to
 * left (the caller's: an end or a warning, at once). */
static bool leftover(pag_left_fn *left, void *larg, const struct ips2_pag *p, unsigned side,
                     uint64_t key, uint64_t off, uint64_t len, uint32_t node, int64_t wall,
                     int64_t ws)
{
    struct pag_item it = {
        .k = {key, off, len, 0},
        .gid = IPS2_PAG_GID(0, node),
        .ref = UINT64_MAX,
        .wall = wall,
        .ws = side == PAG_DST ? ws : INT64_MIN,
        .ref_wall = INT64_MIN,
        .ref_ws = INT64_MIN,
        .thread = p->nodes[node].thread,
        .cls = PC_BYTES,
        .side = (uint16_t)side,
        .kind = p->nodes[node].kind,
    };

    it.prev =
        node > 0 && p->nodes[node - 1].thread == it.thread ? IPS2_PAG_GID(0, node - 1) : UINT64_MAX;
    return left(larg, &it);
}

static int cmp_key(const void *a, const void *b)
{
    const struct pb_stream *x = a, *y = b;

    return x->key < y->key ? -1 : x->key > y->key;
}

/* One stream: every arc to fn, then (left) every range that paired with
 * nothing, in pag_item_cmp's order: both sides are in (offset, bytes,
 * time, node) order, and a send goes before a receive of the same range. */
static bool match_stream(const struct ips2_pag *p, struct pb_stream *s, pag_arc_fn *fn, void *arg,
                         pag_left_fn *left, void *larg)
{
    size_t j = 0;

    for (size_t i = 0; i < s->nd; i++) {
        struct pb_dst *d = &s->d[i];
        uint64_t a = d->off, e = d->off + d->len;
        while (j < s->ns && s->s[j].off + s->s[j].len <= a)
            j++;
        for (size_t m = j; m < s->ns && s->s[m].off < e; m++) {
            struct pb_src *r = &s->s[m];
            /* the nodes' times are the events' unless one was moved */
            bool forward = !((r->flags | d->flags) & PB_MOVED) && r->wall <= d->wall;
            fn(arg, IPS2_PAG_GID(0, r->node), IPS2_PAG_GID(0, d->node),
               pag_weight(r->wall, d->wall, d->ws), IPS2_PAG_ARC_MESSAGE, forward);
            r->flags |= PB_DONE;
            d->flags |= PB_DONE;
        }
    }
    for (size_t i = 0, k = 0; left;) {
        while (i < s->ns && (s->s[i].flags & PB_DONE))
            i++;
        while (k < s->nd && (s->d[k].flags & PB_DONE))
            k++;
        if (i == s->ns && k == s->nd)
            break;
        if (k == s->nd ||
            (i < s->ns && (s->s[i].off < s->d[k].off ||
                           (s->s[i].off == s->d[k].off && s->s[i].len <= s->d[k].len)))) {
            const struct pb_src *r = &s->s[i++];
            if (!leftover(left, larg, p, PAG_SRC, s->key, r->off, r->len, r->node, r->wall,
                          INT64_MIN))
                return false;
        } else {
            const struct pb_dst *d = &s->d[k++];
            if (!leftover(left, larg, p, PAG_DST, s->key, d->off, d->len, d->node, d->wall, d->ws))
                return false;
        }
    }
    return true;
}

bool pag_bytes_match(struct pag_bytes *pb, const struct ips2_pag *p, int pass, pag_arc_fn *fn,
                     void *arg, pag_left_fn *left, void *larg)
{
    bool ok = true, sorted;

    if (pass == 0) {
        free(pb->slot);
        pb->slot = NULL;
        pb->mask = 0;
        pb->last_key[0] = pb->last_key[1] = 0;
        if (pb->n > 0)
            qsort(pb->v, pb->n, sizeof(*pb->v), cmp_key);
    }
    for (size_t i = 0; i < pb->n && ok; i++) {
        struct pb_stream *s = &pb->v[i];
        if (pass == 0) {
            ASCENDING(s->s, s->ns, sorted);
            if (!sorted)
                qsort(s->s, s->ns, sizeof(*s->s), cmp_src);
            ASCENDING(s->d, s->nd, sorted);
            if (!sorted)
                qsort(s->d, s->nd, sizeof(*s->d), cmp_dst);
        }
        ok = match_stream(p, s, fn, arg, left, larg);
        if (pass != 0) { /* free as we go: the arcs and ends take their place */
            vfree(s->s, s->caps, sizeof(*s->s));
            vfree(s->d, s->capd, sizeof(*s->d));
            s->s = NULL;
            s->d = NULL;
            s->ns = s->nd = s->caps = s->capd = 0;
        }
    }
    if (pass != 0 || !ok)
        clear(pb);
    return ok;
}
