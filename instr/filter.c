/*
 * filter.c - counted-only procedures: the procedure hooks' slow side when
 * a filter is given (IPS2_FILTER names a filter file, filter_rules.h).
 *
 * At start-up the filter's patterns are matched against the function
 * symbols of the executable and of every loaded object (their .symtab, or
 * .dynsym when stripped), and each procedure whose action is not the
 * default goes into a read-only open-addressing table of run-time
 * addresses.  dlopen'ed objects are not looked at: their procedures get
 * the default action.
 *
 * The hooks then ask ips2_filter_enter()/ips2_filter_exit() first.  A
 * counted call reads no clock and writes nothing: it bumps its procedure's
 * count in the thread's own table (no atomics, no lock) and its "counted
 * activations" cdepth.  An exit with cdepth > 0 belongs to a counted
 * activation (activations end last in, first out), so a procedure traced
 * at one depth and counted at another stays balanced.  The table is a
 * fixed open-addressing array mapped on the thread's first filtered call;
 * when it is full a procedure is traced instead (counts stay exact: its
 * calls are in the trace).  stream.c writes the counts that moved as CALLS
 * records at the thread's sync points and its end (FORMAT.md section 5).
 *
 * A signal handler that interrupts a count's increment and counts the
 * same procedure may lose one of the two: counts are per thread and
 * plain.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "filter_rules.h"
#include "runtime.h"

int ips2_filtering;

/* The filter, resolved: the decision table and the numeric limits. */
static struct {
    uint64_t *key; /* address + 1, 0 = empty */
    uint8_t *action;
    uint64_t mask;
    unsigned fallback; /* action of addresses not in the table */
    unsigned depth;
    uint64_t time_ticks;
    uint32_t auto_calls; /* run-time mode: calls watched before deciding, 0 = off */
    uint64_t auto_ticks; /* ... the mean length below which it counts only */
} dec;

#define COUNTS_CAP 2048 /* slots of a thread's table (3/4 of them used at most) */

/* The run-time mode's default (IPS2_AUTOCOUNT, the filter's auto line):
 * a procedure is watched for its first IPS2_AUTO_CALLS calls in a thread,
 * and counted only from then on if they took less than IPS2_AUTO_NS on
 * average with nothing recorded inside them (bench/README.md has the
 * measurements behind the numbers). */
#define IPS2_AUTO_CALLS 4096
#define IPS2_AUTO_NS    300

/* A procedure in a thread's table: what every filtered call looks at,
 * counted calls included (32 bytes: the lines a hot procedure needs are
 * its row and its CALLS record's count word) ... */
struct ips2_count {
    uint64_t addr;   /* address + 1, 0 = empty slot */
    uint64_t *word;  /* count word of its latest CALLS record, or NULL */
    uint32_t cdepth; /* counted activations on the stack */
    uint32_t gen;    /* the thread's calls_gen when that record was written */
    uint8_t how;     /* enum ips2_filter_action; the run-time mode turns TRACE into COUNT */
    uint8_t watch;   /* the run-time mode or the time filter look at its traced calls */
    uint8_t dirty;   /* in the dirty list (pending calls) */
};

/* ... and what the rare paths and the run-time mode's watch touch. */
struct ips2_count_more {
    uint64_t pending;       /* calls counted and in no CALLS record yet */
    uint32_t seen, nonleaf; /* run-time mode: traced calls without, with records inside */
    uint64_t leaf_ticks;    /* ... and the former's total length */
};

struct ips2_counts {
    uint32_t depth;  /* the thread's stack depth (filtered hooks) */
    uint32_t ndirty; /* procedures whose count is pending */
    uint32_t used;
    uint32_t dirty[COUNTS_CAP];
    struct ips2_count e[COUNTS_CAP]; /* 32 bytes each: 64 KiB, apart from the rest */
    struct ips2_count_more m[COUNTS_CAP];
};

#define MORE(c, e) (&(c)->m[(e) - (c)->e])

static __thread struct ips2_counts *counts __attribute__((tls_model("initial-exec")));
static __thread int counts_gone __attribute__((tls_model("initial-exec"))); /* thread ended */

static inline uint64_t hash_addr(uint64_t a)
{
    return (a * 0x9e3779b97f4a7c15ull) >> 20;
}

static inline unsigned decide(uintptr_t fn)
{
    if (dec.key == NULL)
        return dec.fallback;
    for (uint64_t i = hash_addr(fn) & dec.mask;; i = (i + 1) & dec.mask) {
        if (dec.key[i] == fn + 1)
            return dec.action[i];
        if (dec.key[i] == 0)
            return dec.fallback;
    }
}

/* ---- start-up: the decision table ------------------------------------ */

struct collect {
    const struct ips2_filter_rules *rules;
    uint64_t *addr;
    uint8_t *action;
    size_t n, cap;
};

static void note(struct collect *c, uint64_t addr, unsigned action)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 256;
        uint64_t *a = realloc(c->addr, cap * sizeof(*a));
        if (a == NULL)
            return;
        c->addr = a;
        uint8_t *b = realloc(c->action, cap);
        if (b == NULL)
            return;
        c->action = b;
        c->cap = cap;
    }
    c->addr[c->n] = addr;
    c->action[c->n++] = (uint8_t)action;
}

/* The function symbols of one ELF file loaded at bias. */
static void scan_object(struct collect *c, const char *path, uint64_t bias)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;

    if (fd < 0)
        return;
    if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
        close(fd);
        return;
    }
    size_t size = (size_t)st.st_size;
    const unsigned char *img = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (img == MAP_FAILED)
        return;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
        eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > size)
        goto out;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh->e_shoff);
    const Elf64_Shdr *sym = NULL;
    for (unsigned i = 0; i < eh->e_shnum; i++)
        if (sh[i].sh_type == SHT_SYMTAB || (sh[i].sh_type == SHT_DYNSYM && sym == NULL))
            sym = &sh[i];
    if (sym == NULL || sym->sh_link >= eh->e_shnum || sym->sh_entsize != sizeof(Elf64_Sym))
        goto out;
    const Elf64_Shdr *str = &sh[sym->sh_link];
    if (sym->sh_offset + sym->sh_size > size || str->sh_offset + str->sh_size > size ||
        str->sh_size == 0)
        goto out;
    const char *strs = (const char *)img + str->sh_offset;
    const Elf64_Sym *s = (const Elf64_Sym *)(img + sym->sh_offset);
    size_t n = sym->sh_size / sizeof(Elf64_Sym);
    unsigned fallback = ips2_filter_default(c->rules);
    for (size_t i = 0; i < n; i++) {
        unsigned type = ELF64_ST_TYPE(s[i].st_info);
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s[i].st_shndx == SHN_UNDEF ||
            s[i].st_value == 0 || s[i].st_name >= str->sh_size)
            continue;
        const char *name = strs + s[i].st_name;
        if (memchr(name, '\0', str->sh_size - s[i].st_name) == NULL)
            continue;
        unsigned a = ips2_filter_decide(c->rules, name);
        if (a != fallback)
            note(c, s[i].st_value + bias, a);
    }
out:
    munmap((void *)img, size);
}

static int scan_one(struct dl_phdr_info *info, size_t size, void *arg)
{
    const char *path = info->dlpi_name;

    if (path == NULL || path[0] == '\0')
        path = "/proc/self/exe"; /* the executable */
    else if (strstr(path, "linux-vdso") || strstr(path, "libips2.so"))
        return 0;
    scan_object(arg, path, info->dlpi_addr);
    return 0;
}

static void build_table(struct collect *c)
{
    uint64_t cap = 16;

    while (cap < 2 * c->n)
        cap *= 2;
    uint64_t *key = calloc(cap, sizeof(*key));
    uint8_t *action = calloc(cap, 1);
    if (key == NULL || action == NULL) {
        free(key);
        free(action);
        return;
    }
    for (size_t j = 0; j < c->n; j++) {
        uint64_t i = hash_addr(c->addr[j]) & (cap - 1);
        while (key[i] != 0 && key[i] != c->addr[j] + 1)
            i = (i + 1) & (cap - 1);
        key[i] = c->addr[j] + 1;
        action[i] = c->action[j];
    }
    dec.key = key;
    dec.action = action;
    dec.mask = cap - 1;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "re");
    char *buf = NULL;
    size_t len = 0, cap = 0;

    if (f == NULL)
        return NULL;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            char *b = realloc(buf, cap = 2 * cap + 8192);
            if (b == NULL)
                break;
            buf = b;
        }
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0)
            break;
    }
    fclose(f);
    if (buf)
        buf[len] = '\0';
    return buf;
}

static uint64_t ns_to_ticks(uint64_t ns)
{
    uint64_t t = (uint64_t)((unsigned __int128)ns * ips2_proc.tsc_hz / 1000000000u);
    return ns && t == 0 ? 1 : t;
}

void ips2_filter_setup(const char *path, const char *autocount)
{
    struct ips2_filter_rules rules;
    unsigned auto_calls = IPS2_AUTO_CALLS;
    uint64_t auto_ns = IPS2_AUTO_NS;
    char err[256];

    memset(&rules, 0, sizeof(rules));
    if (path != NULL && path[0] != '\0') {
        char *text = read_file(path);
        int rc = -1;
        if (text == NULL)
            snprintf(err, sizeof(err), "%s", strerror(errno));
        else
            rc = ips2_filter_parse(&rules, text, err, sizeof(err));
        free(text);
        if (rc < 0) {
            fprintf(stderr, "ips2: filter %s: %s; no filter\n", path, err);
            memset(&rules, 0, sizeof(rules));
        }
    }
    if (rules.auto_set) {
        auto_calls = rules.auto_calls;
        auto_ns = rules.auto_ns;
    }
    if (autocount != NULL && autocount[0] != '\0' &&
        ips2_filter_parse_auto(autocount, &auto_calls, &auto_ns) < 0)
        fprintf(stderr, "ips2: IPS2_AUTOCOUNT=%s: expected off or CALLS:DURATION; ignored\n",
                autocount);
    if (rules.nrules) {
        struct collect c = {&rules, NULL, NULL, 0, 0};
        dl_iterate_phdr(scan_one, &c);
        build_table(&c);
        free(c.addr);
        free(c.action);
    }
    dec.fallback = ips2_filter_default(&rules);
    dec.depth = rules.depth;
    dec.time_ticks = ns_to_ticks(rules.time_ns);
    dec.auto_calls = auto_calls;
    dec.auto_ticks = auto_calls ? ns_to_ticks(auto_ns) : 0;
    ips2_filtering = dec.key != NULL || dec.fallback != IPS2_FILTER_TRACE || dec.depth ||
                     dec.time_ticks || dec.auto_calls;
    ips2_proc.hook_slow = ips2_filtering || ips2_proc.timer != IPS2_TIMER_TSC;
    ips2_filter_rules_free(&rules);
}

/* ---- the hooks' side -------------------------------------------------- */

static struct ips2_counts *thread_counts(void)
{
    struct ips2_counts *c = counts;

    if (likely(c != NULL))
        return c;
    if (counts_gone)
        return NULL;
    void *m = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    return counts = m;
}

/* Inserts fn with its action; NULL when the table is full. */
static __attribute__((noinline)) struct ips2_count *insert(struct ips2_counts *c, uintptr_t fn)
{
    if (c->used >= COUNTS_CAP * 3 / 4)
        return NULL;
    for (uint64_t i = hash_addr(fn) & (COUNTS_CAP - 1);; i = (i + 1) & (COUNTS_CAP - 1)) {
        struct ips2_count *e = &c->e[i];
        if (e->addr == 0) {
            c->used++;
            e->how = (uint8_t)decide(fn);
            e->watch = e->how == IPS2_FILTER_TRACE && (dec.auto_calls || dec.time_ticks);
            e->addr = fn + 1;
            return e;
        }
    }
}

/* The entry of fn, inserted if new; NULL if the table is full. */
static inline struct ips2_count *entry(struct ips2_counts *c, uintptr_t fn)
{
    for (uint64_t i = hash_addr(fn) & (COUNTS_CAP - 1);; i = (i + 1) & (COUNTS_CAP - 1)) {
        struct ips2_count *e = &c->e[i];
        if (likely(e->addr == fn + 1))
            return e;
        if (e->addr == 0)
            return insert(c, fn);
    }
}

/* Calls that are in no CALLS record (the slow path was busy, or there is
 * no stream): put_counts() writes them at the thread's next sync point or
 * its end. */
static void pending(struct ips2_counts *c, struct ips2_count *e)
{
    e->word = NULL;
    if (!e->dirty) {
        e->dirty = 1;
        c->dirty[c->ndirty++] = (uint32_t)(e - c->e);
    }
}

static __attribute__((noinline)) void count_slow(struct ips2_counts *c, struct ips2_count *e,
                                                 struct ips2_thread *t)
{
    struct ips2_count_more *m = MORE(c, e);

    m->pending++;
    if (t->busy || t->state == IPS2_THREAD_DONE) {
        pending(c, e); /* a signal handler inside the slow path, or no stream */
        return;
    }
    uint64_t *w = ips2_emit_calls(t, e->addr - 1, m->pending);
    if (w == NULL) {
        pending(c, e);
        return;
    }
    e->word = w;
    e->gen = t->calls_gen; /* read after the record: writing it may move the generation */
    m->pending = 0;
}

/* One more call of e: in place in its CALLS record while that is in the
 * mapped window and the generation has not moved, so that a killed
 * process keeps its counts; else a new CALLS record. */
static inline void count_one(struct ips2_counts *c, struct ips2_count *e)
{
    struct ips2_thread *t = &ips2_self;

    /* the running total in SYNC records (the compensator's), and now and
     * then a sync point and a sample of what a counted call costs */
    if (unlikely((++t->counted & (IPS2_COUNT_SYNC_EVERY - 1)) == 0))
        ips2_counted_sync(t);
    if (likely(e->word != NULL && e->gen == t->calls_gen && !t->busy)) {
        ++*e->word;
        return;
    }
    count_slow(c, e, t);
}

int ips2_filter_enter(uintptr_t fn)
{
    struct ips2_counts *c = counts;

    if (unlikely(c == NULL) && (c = thread_counts()) == NULL)
        return 0;
    struct ips2_count *e = entry(c, fn);
    if (unlikely(e == NULL)) /* a full table: traced, or excluded */
        return decide(fn) == IPS2_FILTER_EXCLUDE;
    unsigned how = e->how;
    if (how == IPS2_FILTER_EXCLUDE)
        return 1;
    if (unlikely(dec.depth) && ++c->depth > dec.depth)
        how = IPS2_FILTER_COUNT;
    if (likely(how == IPS2_FILTER_TRACE))
        return 0;
    count_one(c, e);
    e->cdepth++;
    return 1;
}

/* The exit of a traced call at timer value now: is the thread's latest
 * record this call's short ENTER (nothing recorded inside it)?  Then the
 * call took dur ticks, and erase() makes it a counted call. */
static inline int leaf_call(const struct ips2_thread *t, uintptr_t fn, uint64_t now, uint64_t *dur)
{
    uintptr_t p = t->cur;

    if (t->state != IPS2_THREAD_TRACING || t->busy || t->stream == NULL ||
        p < (uintptr_t)t->stream->window + 8)
        return 0;
    uint64_t w = *(uint64_t *)(p - 8);
    uint64_t delta = now - t->last_sync;
    if (IPS2_RAW_KIND(w) != IPS2_EV_ENTER_SHORT || (w >> 32) != (uint64_t)(fn - t->addr_base) ||
        delta < IPS2_SHORT_DELTA(w))
        return 0;
    *dur = delta - IPS2_SHORT_DELTA(w);
    return 1;
}

static inline void erase(struct ips2_thread *t, struct ips2_counts *c, struct ips2_count *e)
{
    uintptr_t p = t->cur - 8;

    t->cur = p;
    ips2_compiler_barrier();
    *(uint64_t *)p = 0;
    count_one(c, e);
}

int ips2_filter_exit(uintptr_t fn)
{
    struct ips2_counts *c = counts;

    if (unlikely(c == NULL))
        return 0;
    struct ips2_count *e = entry(c, fn);
    if (unlikely(e == NULL))
        return decide(fn) == IPS2_FILTER_EXCLUDE;
    if (e->how == IPS2_FILTER_EXCLUDE)
        return 1;
    if (unlikely(dec.depth) && c->depth)
        c->depth--;
    if (e->cdepth) {
        e->cdepth--;
        return 1;
    }
    if (likely(!e->watch))
        return 0;
    /* the time filter and the run-time mode look at the call's length */
    struct ips2_thread *t = &ips2_self;
    uint64_t now = ips2_timer_now(), dur;
    if (leaf_call(t, fn, now, &dur)) {
        if (dur < dec.time_ticks) {
            erase(t, c, e);
            return 1;
        }
        if (dec.auto_calls) {
            struct ips2_count_more *m = MORE(c, e);
            m->leaf_ticks += dur;
            if (++m->seen >= dec.auto_calls) {
                if (m->leaf_ticks < dec.auto_ticks * m->seen && m->nonleaf * 16 <= m->seen) {
                    e->how = IPS2_FILTER_COUNT;
                    e->watch = 0;
                    erase(t, c, e);
                    return 1;
                }
                m->seen = m->nonleaf = 0; /* watch the next calls */
                m->leaf_ticks = 0;
            }
        }
    } else if (dec.auto_calls && ++MORE(c, e)->nonleaf * 16 > dec.auto_calls) {
        /* records inside its calls: watch again from the next call, as
         * its callees may become counted only */
        MORE(c, e)->seen = MORE(c, e)->nonleaf = 0;
        MORE(c, e)->leaf_ticks = 0;
    }
    ips2_record_proc(IPS2_EV_EXIT, IPS2_EV_EXIT_SHORT, fn, now);
    return 1;
}

/* calibrate.c's in-situ samples under a filter: its two procedures get
 * rows that the filter file, the run-time mode and the depth filter
 * cannot touch, traced the one, counted the other into *scratch (a word
 * in no CALLS record: the sample's counts are never reported).  Returns
 * the filter depth to give back to ips2_filter_sample_end(), or -1 when
 * the thread has no room in its table. */
long ips2_filter_sample_begin(uintptr_t traced, uintptr_t counted, uint64_t *scratch)
{
    struct ips2_counts *c = thread_counts();
    struct ips2_count *et = c ? entry(c, traced) : NULL;
    struct ips2_count *ec = et ? entry(c, counted) : NULL;

    if (ec == NULL)
        return -1;
    et->how = IPS2_FILTER_TRACE;
    et->watch = 0;
    ec->how = IPS2_FILTER_COUNT;
    ec->watch = 0;
    ec->cdepth = 0;
    ec->word = scratch;
    ec->gen = ips2_self.calls_gen;
    long depth = c->depth;
    c->depth = 0;
    return depth;
}

void ips2_filter_sample_end(long depth, uintptr_t counted)
{
    struct ips2_counts *c = counts;
    struct ips2_count *e = c ? entry(c, counted) : NULL;

    if (e != NULL)
        e->word = NULL; /* the scratch word goes with the sample */
    if (c != NULL)
        c->depth = (uint32_t)depth;
}

int ips2_filter_take(uint64_t *addr, uint64_t *calls)
{
    struct ips2_counts *c = counts;

    while (c != NULL && c->ndirty) {
        struct ips2_count *e = &c->e[c->dirty[--c->ndirty]];
        e->dirty = 0;
        struct ips2_count_more *m = MORE(c, e);
        if (m->pending) {
            *addr = e->addr - 1;
            *calls = m->pending;
            m->pending = 0;
            return 1;
        }
    }
    return 0;
}

void ips2_filter_after_fork(void)
{
    struct ips2_counts *c = counts;

    if (c == NULL)
        return;
    for (uint32_t i = 0; i < COUNTS_CAP; i++) {
        c->m[i].pending = 0;
        c->e[i].dirty = 0;
        c->e[i].word = NULL; /* the parent's window */
    }
    c->ndirty = 0;
}

void ips2_filter_thread_end(void)
{
    struct ips2_counts *c = counts;

    counts_gone = 1; /* the thread's last hooks (other destructors) trace, into nothing */
    counts = NULL;
    if (c != NULL)
        munmap(c, sizeof(*c));
}
