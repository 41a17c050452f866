/*
 * symbols.c - procedure names for the addresses of a traced process image,
 * and the names of its data (the variables that hold its locks).
 *
 * A table holds the image's modules sorted by start address (a module added
 * over an older mapping replaces it, as after dlclose + dlopen).  Each module
 * has the FUNC and IFUNC symbols of its ELF file on disk, from .symtab, or
 * from .dynsym when the file is stripped, as [start, end) ranges in file
 * (link-time) addresses, sorted, one symbol per start address.  A symbol of
 * size 0 (hand-written assembly) extends to the next symbol or the end of
 * its section.  Lookup is two binary searches: module, then symbol.
 *
 * Each symbol keeps its name as written and its source name, the name
 * without the suffixes compilers give clones ("f.constprop.0",
 * "f.lto_priv.1", "f.part.0", "f.cold" are all "f"): lookups give the
 * source name, so every table counts a procedure's clones under it; the
 * name as written stays available for showing the clone on request.
 *
 * An address inside a module but outside every symbol resolves to the
 * module's file name, with *offset = addr - bias: the ELF address, which is
 * what addr2line wants.
 *
 * Data symbols (OBJECT: variables, in .data, .bss and .rodata) are a second
 * set per module, read from the same table the first time an address of
 * that module is looked up as data (most images never need them).  A data
 * symbol of size 0 covers its own address only; an address outside every
 * data symbol has no name.
 *
 * The ELF files are not trusted: libelf validates the structure, and every
 * section, index and string used here is checked again before use.  An
 * unreadable module is kept without names, and its error names the path.
 */
#include "ips2_symbols.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ips2_fields.h"
#include "ips2_reader.h"

struct sym {
    uint64_t start, end; /* file addresses, [start, end) */
    const char *name;    /* in the module's name pool, as written in the ELF file */
    const char *source;  /* the same without clone suffixes (name itself if it has none) */
    unsigned char rank;  /* preference among aliases: lower is better */
};

/* Symbols of one kind, sorted by start, and their names. */
struct symset {
    struct sym *syms;
    size_t nsyms;
    char *names; /* name pool */
};

struct module {
    uint64_t start, end; /* run-time addresses, [start, end) */
    uint64_t bias;       /* run-time address = file address + bias */
    char *path;
    const char *base;   /* last component of path */
    struct symset fns;  /* FUNC and IFUNC */
    struct symset data; /* OBJECT, once data_loaded */
    bool data_loaded;
};

struct ips2_symtab {
    struct module *mods; /* sorted by start, not overlapping */
    size_t nmods, cap;
};

struct ips2_symtab *ips2_symtab_new(void)
{
    /* libelf wants its version set once before any other call. */
    elf_version(EV_CURRENT);
    return calloc(1, sizeof(struct ips2_symtab));
}

static void symset_free(struct symset *set)
{
    free(set->syms);
    free(set->names);
    memset(set, 0, sizeof(*set));
}

static void module_free(struct module *m)
{
    free(m->path);
    symset_free(&m->fns);
    symset_free(&m->data);
}

void ips2_symtab_free(struct ips2_symtab *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nmods; i++)
        module_free(&s->mods[i]);
    free(s->mods);
    free(s);
}

/* ------------------------------------------------------------------ */
/* Reading an ELF symbol table                                         */

static int sym_cmp(const void *a, const void *b)
{
    const struct sym *x = a, *y = b;

    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Aliases at one address: prefer a sized symbol, then global over weak
 * over local, then (in sym_cmp) the name, for a deterministic choice. */
static unsigned char sym_rank(const GElf_Sym *s)
{
    unsigned bind = GELF_ST_BIND(s->st_info);
    unsigned char r = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;

    return s->st_size ? r : (unsigned char)(r + 3);
}

/* The section a symbol lives in, or NULL for ABS/COMMON/bad indexes. */
static bool sym_section(Elf *elf, const GElf_Sym *s, GElf_Shdr *shdr)
{
    if (s->st_shndx == SHN_UNDEF || s->st_shndx >= SHN_LORESERVE)
        return false;
    Elf_Scn *scn = elf_getscn(elf, s->st_shndx);
    return scn && gelf_getshdr(scn, shdr) && shdr->sh_type != SHT_NOBITS;
}

/* Whether a symbol is of the set wanted: functions, or data. */
static bool sym_wanted(const GElf_Sym *s, bool data)
{
    unsigned type = GELF_ST_TYPE(s->st_info);

    return data ? type == STT_OBJECT : type == STT_FUNC || type == STT_GNU_IFUNC;
}

/* Loads the function (or data) symbols of one symbol table section into
 * set.  Returns the number of symbols kept, or -1 on error. */
static long load_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *shdr, struct symset *set,
                        bool want_data, const char *path, char *err)
{
    Elf_Data *data = elf_getdata(scn, NULL);
    size_t entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);

    if (!data || entsize == 0) {
        ips2_set_error(err, "%s: cannot read symbol table: %s", path, elf_errmsg(-1));
        return -1;
    }
    if (shdr->sh_link == 0 || !elf_getscn(elf, shdr->sh_link)) {
        ips2_set_error(err, "%s: symbol table links to no string table", path);
        return -1;
    }
    size_t n = data->d_size / entsize;
    struct sym *syms = malloc((n ? n : 1) * sizeof(*syms));
    size_t *name_off = malloc((n ? n : 1) * sizeof(*name_off));
    size_t nsyms = 0, pool = 0;

    if (!syms || !name_off)
        goto nomem;

    /* First pass: pick the symbols, measure the names. */
    for (size_t i = 0; i < n; i++) {
        GElf_Sym s;
        GElf_Shdr sec;
        if (!gelf_getsym(data, (int)i, &s))
            continue;
        if (!sym_wanted(&s, want_data))
            continue;
        if (s.st_shndx == SHN_UNDEF || s.st_value == 0)
            continue;
        const char *name = elf_strptr(elf, shdr->sh_link, s.st_name);
        if (!name || !*name)
            continue;
        bool in_sec = sym_section(elf, &s, &sec);
        uint64_t end = UINT64_MAX;
        if (want_data)
            end = s.st_value + 1; /* size 0: its own address */
        else if (in_sec && sec.sh_addr + sec.sh_size >= sec.sh_addr)
            end = sec.sh_addr + sec.sh_size;
        if (s.st_size) {
            if (s.st_value + s.st_size < s.st_value)
                continue; /* wraps: hostile */
            end = s.st_value + s.st_size;
        }
        size_t len = strlen(name) + 1, slen = ips2_source_name_len(name);
        if (slen + 1 < len)
            len += slen + 1; /* room for the source name after it */
        syms[nsyms].start = s.st_value;
        syms[nsyms].end = end;           /* for size 0: the limit, fixed below */
        syms[nsyms].rank = sym_rank(&s); /* >= 3 for size 0 */
        syms[nsyms].name = name;         /* libelf's, until copied below */
        name_off[nsyms] = pool;
        pool += len;
        nsyms++;
    }

    /* Copy the names: the ELF handle is closed after loading. */
    char *names = malloc(pool ? pool : 1);
    if (!names)
        goto nomem;
    for (size_t i = 0; i < nsyms; i++) {
        size_t len = strlen(syms[i].name) + 1, slen = ips2_source_name_len(syms[i].name);
        char *at = names + name_off[i];
        memcpy(at, syms[i].name, len);
        syms[i].name = syms[i].source = at;
        if (slen + 1 < len) {
            memcpy(at + len, at, slen);
            at[len + slen] = '\0';
            syms[i].source = at + len;
        }
    }
    free(name_off);

    qsort(syms, nsyms, sizeof(*syms), sym_cmp);

    /* One symbol per start address: the best-ranked alias. */
    size_t k = 0;
    for (size_t i = 0; i < nsyms; i++) {
        if (k > 0 && syms[k - 1].start == syms[i].start)
            continue;
        syms[k++] = syms[i];
    }
    nsyms = k;

    /* Size-0 functions reach to the next symbol, within their section. */
    for (size_t i = 0; i < nsyms; i++) {
        if (want_data || syms[i].rank < 3)
            continue;
        if (i + 1 < nsyms && syms[i + 1].start < syms[i].end)
            syms[i].end = syms[i + 1].start;
        if (syms[i].end <= syms[i].start)
            syms[i].end = syms[i].start + 1;
    }

    set->syms = syms;
    set->nsyms = nsyms;
    set->names = names;
    return (long)nsyms;

nomem:
    free(syms);
    free(name_off);
    ips2_set_error(err, "%s: out of memory reading symbols", path);
    return -1;
}

/* Fills set with the function (or data) symbols of the ELF file at path.
 * Returns 0 or -1 with err. */
static int load_elf(struct symset *set, bool data, const char *path, char *err)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

    if (fd < 0) {
        ips2_set_error(err, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ips2_set_error(err, "%s: not a regular file", path);
        close(fd);
        return -1;
    }

    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    int rc = -1;
    if (!elf) {
        ips2_set_error(err, "%s: not an ELF file: %s", path, elf_errmsg(-1));
        goto out;
    }
    if (elf_kind(elf) != ELF_K_ELF) {
        ips2_set_error(err, "%s: not an ELF file", path);
        goto out;
    }

    /* .symtab if present, else .dynsym; a .symtab without the symbols
     * wanted (a stripped-to-debuglink file) falls back to .dynsym too. */
    Elf_Scn *symtab = NULL, *dynsym = NULL;
    GElf_Shdr symtab_hdr, dynsym_hdr, shdr;
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        if (!gelf_getshdr(scn, &shdr))
            continue;
        if (shdr.sh_type == SHT_SYMTAB && !symtab) {
            symtab = scn;
            symtab_hdr = shdr;
        } else if (shdr.sh_type == SHT_DYNSYM && !dynsym) {
            dynsym = scn;
            dynsym_hdr = shdr;
        }
    }
    if (!symtab && !dynsym) {
        ips2_set_error(err, "%s: no symbol table", path);
        goto out;
    }
    long n = 0;
    if (symtab) {
        n = load_symtab(elf, symtab, &symtab_hdr, set, data, path, err);
        if (n <= 0 && dynsym)
            symset_free(set);
    }
    if (dynsym && (!symtab || n <= 0))
        n = load_symtab(elf, dynsym, &dynsym_hdr, set, data, path, err);
    rc = n < 0 ? -1 : 0;

out:
    if (elf)
        elf_end(elf);
    close(fd);
    return rc;
}

/* ------------------------------------------------------------------ */
/* The module table                                                    */

int ips2_symtab_add_module(struct ips2_symtab *s, uint64_t bias, uint64_t start, uint64_t end,
                           const char *path, char *err)
{
    struct module m = {.start = start, .end = end, .bias = bias};

    if (!path)
        path = "";
    if (end <= start) {
        ips2_set_error(err, "%s: empty address range 0x%llx-0x%llx", path,
                       (unsigned long long)start, (unsigned long long)end);
        return -1;
    }
    m.path = strdup(path);
    if (!m.path) {
        ips2_set_error(err, "%s: out of memory", path);
        return -1;
    }
    const char *slash = strrchr(m.path, '/');
    m.base = slash && slash[1] ? slash + 1 : m.path;

    int rc = load_elf(&m.fns, false, path, err);

    /* Drop the modules the new one overlaps: a newer mapping wins. */
    size_t k = 0;
    for (size_t i = 0; i < s->nmods; i++) {
        if (s->mods[i].start < end && start < s->mods[i].end)
            module_free(&s->mods[i]);
        else
            s->mods[k++] = s->mods[i];
    }
    s->nmods = k;

    if (s->nmods == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        struct module *mods = realloc(s->mods, cap * sizeof(*mods));
        if (!mods) {
            module_free(&m);
            ips2_set_error(err, "%s: out of memory", path);
            return -1;
        }
        s->mods = mods;
        s->cap = cap;
    }
    size_t pos = s->nmods;
    while (pos > 0 && s->mods[pos - 1].start > start)
        pos--;
    memmove(&s->mods[pos + 1], &s->mods[pos], (s->nmods - pos) * sizeof(*s->mods));
    s->mods[pos] = m;
    s->nmods++;
    return rc;
}

int ips2_symtab_load_process(struct ips2_symtab *s, const char *proc_stream_path, char *err)
{
    char rerr[IPS2_ERR_MAX], merr[IPS2_ERR_MAX];
    struct ips2_reader *r = ips2_reader_open(proc_stream_path, rerr);
    const struct ips2_event *ev;
    int count = 0, rc;

    if (err)
        err[0] = '\0';
    if (!r) {
        ips2_set_error(err, "%s", rerr);
        return -1;
    }
    merr[0] = '\0';
    while ((rc = ips2_reader_next(r, &ev)) == 1) {
        if (ev->kind != IPS2_EV_MODULE)
            continue;
        if (ev->nextra <= IPS2_F_MODULE_END) {
            ips2_set_error(err,
                           "%s: byte %llu: module event with %u extra words, expected at least 2",
                           proc_stream_path, (unsigned long long)ev->offset, ev->nextra);
            ips2_reader_close(r);
            return -1;
        }
        char path[IPS2_PATH_MAX];
        ips2_event_string(ev, IPS2_F_MODULE_PATH, path, sizeof(path));
        /* A module without readable symbols is no reason to stop: keep
         * the first such error for the caller, go on. */
        if (ips2_symtab_add_module(s, ev->payload, ev->extra[IPS2_F_MODULE_START],
                                   ev->extra[IPS2_F_MODULE_END], path,
                                   merr[0] ? NULL : merr) != 0 &&
            err && !err[0])
            snprintf(err, IPS2_ERR_MAX, "%s", merr);
        count++;
    }
    if (rc < 0) {
        ips2_set_error(err, "%s", ips2_reader_error(r));
        ips2_reader_close(r);
        return -1;
    }
    ips2_reader_close(r);
    return count;
}

/* The module holding addr, or NULL. */
static struct module *module_of(const struct ips2_symtab *s, uint64_t addr)
{
    size_t lo = 0, hi = s ? s->nmods : 0;

    /* Last module starting at or below addr. */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->mods[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || addr >= s->mods[lo - 1].end)
        return NULL;
    return &s->mods[lo - 1];
}

/* The symbol of set containing file address faddr, or NULL. */
static const struct sym *symbol_of(const struct symset *set, uint64_t faddr)
{
    size_t lo = 0, hi = set->nsyms;

    /* Last symbol starting at or below faddr; a few before it may still
     * contain faddr when symbols nest (e.g. a function and its cold part). */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (set->syms[mid].start <= faddr)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo, tries = 0; i > 0 && tries < 8; i--, tries++)
        if (faddr < set->syms[i - 1].end)
            return &set->syms[i - 1];
    return NULL;
}

/* The function symbol containing addr, its module in *mod (NULL: none). */
static const struct sym *function_of(const struct ips2_symtab *s, uint64_t addr,
                                     const struct module **mod, uint64_t *offset)
{
    const struct module *m = module_of(s, addr);

    *mod = m;
    if (!m)
        return NULL;
    uint64_t faddr = addr - m->bias;
    const struct sym *y = symbol_of(&m->fns, faddr);
    if (offset)
        *offset = y ? faddr - y->start : faddr;
    return y;
}

const char *ips2_symtab_lookup(const struct ips2_symtab *s, uint64_t addr, uint64_t *offset)
{
    const struct module *m;
    const struct sym *y = function_of(s, addr, &m, offset);

    return y ? y->source : m ? m->base : NULL;
}

const char *ips2_symtab_lookup_symbol(const struct ips2_symtab *s, uint64_t addr, uint64_t *offset)
{
    const struct module *m;
    const struct sym *y = function_of(s, addr, &m, offset);

    return y ? y->name : m ? m->base : NULL;
}

/* ------------------------------------------------------------------ */
/* Clone suffixes                                                      */

/* The suffixes compilers append to a function they clone or split, each
 * optionally followed by ".N" (GCC: ipa-cp, ipa-sra, ipa-split, hot/cold
 * partitioning, LTO privatisation of statics; clang: ThinLTO promotion). */
static const char *const clone_words[] = {
    "lto_priv", "constprop", "isra", "part", "cold", "clone", "localalias", "specialized", "llvm",
};

/* Length of name without its last ".WORD" or ".WORD.N" if WORD is a clone
 * word, else the whole length. */
static size_t strip_one(const char *name, size_t len)
{
    size_t end = len;

    /* an optional ".N" */
    size_t d = end;
    while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
        d--;
    if (d < end && d > 0 && name[d - 1] == '.')
        end = d - 1;
    for (size_t i = 0; i < sizeof(clone_words) / sizeof(clone_words[0]); i++) {
        size_t w = strlen(clone_words[i]);
        if (end > w + 1 && name[end - w - 1] == '.' &&
            memcmp(name + end - w, clone_words[i], w) == 0)
            return end - w - 1;
    }
    return len;
}

size_t ips2_source_name_len(const char *name)
{
    size_t len = strlen(name);

    for (;;) {
        size_t n = strip_one(name, len);
        if (n == len || n == 0)
            return len;
        len = n;
    }
}

const char *ips2_symtab_lookup_data(struct ips2_symtab *s, uint64_t addr, uint64_t *offset)
{
    struct module *m = module_of(s, addr);

    if (!m)
        return NULL;
    if (!m->data_loaded) {
        m->data_loaded = true;
        load_elf(&m->data, true, m->path, NULL); /* without names, none are found */
    }
    uint64_t faddr = addr - m->bias;
    const struct sym *y = symbol_of(&m->data, faddr);
    if (y && offset)
        *offset = faddr - y->start;
    return y ? y->name : NULL;
}

/* ------------------------------------------------------------------ */
/* Stream names                                                        */

static bool all_digits(const char *p, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (p[i] < '0' || p[i] > '9')
            return false;
    return true;
}

int ips2_proc_stream_path(const char *thread_stream_path, char *out, unsigned size)
{
    const char *path = thread_stream_path;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;

    /* <pid>.<image>.<tid or "proc">[.<k>].raw|.ips2 */
    const char *dot1 = strchr(base, '.');
    if (!dot1 || !all_digits(base, (size_t)(dot1 - base)))
        return -1;
    const char *dot2 = strchr(dot1 + 1, '.');
    if (!dot2 || !all_digits(dot1 + 1, (size_t)(dot2 - dot1 - 1)))
        return -1;
    const char *dot3 = strchr(dot2 + 1, '.');
    if (!dot3)
        return -1;
    size_t tlen = (size_t)(dot3 - dot2 - 1);
    if (!all_digits(dot2 + 1, tlen) && !(tlen == 4 && !memcmp(dot2 + 1, "proc", 4)))
        return -1;
    const char *ext = dot3 + 1;
    const char *dot4 = strchr(ext, '.');
    if (dot4) {
        if (!all_digits(ext, (size_t)(dot4 - ext)))
            return -1;
        ext = dot4 + 1;
    }
    if (strcmp(ext, "raw") != 0 && strcmp(ext, "ips2") != 0)
        return -1;

    static const char *const suffixes[] = {"proc.ips2", "proc.raw"};
    int prefix = (int)(dot2 + 1 - path);
    for (unsigned i = 0; i < 2; i++) {
        int n = snprintf(out, size, "%.*s%s", prefix, path, suffixes[i]);
        if (n < 0 || (unsigned)n >= size)
            return -1;
        if (access(out, F_OK) == 0)
            return 0;
    }
    return -1;
}
