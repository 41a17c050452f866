/*
 * ips2_symbols.h - resolve procedure (and data) addresses of a traced
 * process image to names, from the MODULE events of its process stream and
 * the ELF symbol tables (.symtab, else .dynsym) of the modules on disk.
 *
 * A process image's thread streams are named <pid>.<image>.<tid>[.<k>].raw
 * (or .ips2 once packed); its process stream is <pid>.<image>.proc.raw
 * (or .proc.ips2) in the same directory.
 */
#ifndef IPS2_SYMBOLS_H
#define IPS2_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct ips2_symtab;

struct ips2_symtab *ips2_symtab_new(void);
void ips2_symtab_free(struct ips2_symtab *s);

/* Adds one loaded module: addresses [start, end) were mapped from `path`
 * with load bias `bias` (symbol value + bias = run-time address).
 * Returns 0, or -1 with err (IPS2_ERR_MAX bytes) set; the module is kept
 * without names then, so lookups in it still report the module. */
int ips2_symtab_add_module(struct ips2_symtab *s, uint64_t bias, uint64_t start, uint64_t end,
                           const char *path, char *err);

/* Adds every module of a process stream (raw or packed).  Returns the
 * number of modules, or -1 with err set (modules read before the error stay). */
int ips2_symtab_load_process(struct ips2_symtab *s, const char *proc_stream_path, char *err);

/* Finds the process stream of a thread stream path, by the naming rule
 * above.  Returns 0 and fills out (size bytes), or -1 if there is none. */
int ips2_proc_stream_path(const char *thread_stream_path, char *out, unsigned size);

/* Name of the function containing addr as written in its source, or
 * NULL: the ELF symbol without the suffixes a compiler gives the clones
 * and parts it makes (ips2_source_name_len), so that "foo.constprop.0",
 * "foo.part.0", "foo.cold" and "foo.lto_priv.0" are all "foo"; the
 * module's file name for an address outside every symbol.  *offset gets
 * addr minus the symbol's start.  The string lives as long as the table.
 * Every table names procedures this way (one place: the reduction asks
 * here). */
const char *ips2_symtab_lookup(const struct ips2_symtab *s, uint64_t addr, uint64_t *offset);

/* The same, but the ELF symbol as written, clone suffixes kept: the clone
 * shown on request (ips2-dump --clones, ips2-reduce --clones,
 * IPS2_CLONES=1 for a run's slaves). */
const char *ips2_symtab_lookup_symbol(const struct ips2_symtab *s, uint64_t addr, uint64_t *offset);

/* Length of the source name of an ELF function symbol: name without its
 * trailing clone suffixes, each ".WORD" or ".WORD.N" with WORD one of
 * lto_priv, constprop, isra, part, cold, clone, localalias, specialized
 * (GCC) or llvm (clang's ThinLTO), stripped repeatedly
 * ("f.isra.0.cold" -> "f", "g.constprop.0.lto_priv.1" -> "g").  Any other
 * suffix stays ("main.1", "bar.c"); a name that is all suffix stays whole. */
size_t ips2_source_name_len(const char *name);

/* Name of the variable (an ELF OBJECT symbol of the module mapped there)
 * containing addr, or NULL: no module, or no variable there (heap and
 * stack addresses have none).  *offset gets addr minus the variable's
 * start ("locks" + 64 for the second lock of an array).  The module's
 * data symbols are read on its first such lookup; the string lives as
 * long as the table. */
const char *ips2_symtab_lookup_data(struct ips2_symtab *s, uint64_t addr, uint64_t *offset);

#endif /* IPS2_SYMBOLS_H */
