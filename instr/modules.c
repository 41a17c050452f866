/*
 * modules.c - the module map of the process: every loaded ELF object with
 * its address range and load bias, written as MODULE events to the process
 * stream at start-up, after each dlopen (at the calling thread's next
 * event) and at process end, so that readers can resolve procedure
 * addresses offline.  Objects already recorded (by start address
 * and path) are not written again.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

struct known_module {
    uint64_t start;
    uint64_t path_hash;
};

static pthread_mutex_t known_lock = PTHREAD_MUTEX_INITIALIZER;
static struct known_module *known;
static size_t nknown, known_cap;

static uint64_t hash_string(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Returns 1 if the module was not known before (and remembers it). */
static int remember(uint64_t start, const char *path)
{
    uint64_t h = hash_string(path);

    for (size_t i = 0; i < nknown; i++)
        if (known[i].start == start && known[i].path_hash == h)
            return 0;
    if (nknown == known_cap) {
        size_t cap = known_cap ? 2 * known_cap : 64;
        struct known_module *k = realloc(known, cap * sizeof(*k));
        if (k == NULL)
            return 1;
        known = k;
        known_cap = cap;
    }
    known[nknown++] = (struct known_module){start, h};
    return 1;
}

static int record_one(struct dl_phdr_info *info, size_t size, void *first)
{
    char resolved[PATH_MAX];
    const char *path = info->dlpi_name;
    uint64_t lo = UINT64_MAX, hi = 0;

    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        if (ph->p_vaddr < lo)
            lo = ph->p_vaddr;
        if (ph->p_vaddr + ph->p_memsz > hi)
            hi = ph->p_vaddr + ph->p_memsz;
    }
    if (*(int *)first) {
        *(int *)first = 0;
        path = ips2_proc.exe; /* the main program comes first, unnamed */
    } else if (path == NULL || path[0] == '\0') {
        return 0; /* vdso and other objects without a file */
    } else if (realpath(path, resolved) != NULL) {
        path = resolved;
    } else if (path[0] != '/') {
        return 0; /* "linux-vdso.so.1" and the like */
    }
    if (lo == UINT64_MAX || !remember(lo + info->dlpi_addr, path))
        return 0;
    uint64_t range[2] = {lo + info->dlpi_addr, hi + info->dlpi_addr};
    uint64_t words[IPS2_RAW_MAX_EXTRA];
    unsigned n = ips2_string_words(words + 2, IPS2_RAW_MAX_EXTRA - 2, path);
    memcpy(words, range, sizeof(range));
    ips2_process_stream_emit(IPS2_EV_MODULE, info->dlpi_addr, words, 2 + n, 1);
    return 0;
}

void ips2_record_modules(void)
{
    int first = 1;

    ips2_quiet_begin();
    ips2_lock(&known_lock);
    dl_iterate_phdr(record_one, &first);
    ips2_unlock(&known_lock);
    ips2_quiet_end();
}

/* In a forked child: its new process stream needs the whole map again. */
void ips2_modules_forget(void)
{
    pthread_mutex_t unlocked = PTHREAD_MUTEX_INITIALIZER;

    known_lock = unlocked;
    nknown = 0;
}

/* dlopen is called in tail position, so that it sees the program as its
 * caller (glibc searches the caller's RUNPATH); the new modules are
 * recorded at the thread's next slow-path event, and at process end. */
IPS2_EXPORT void *dlopen(const char *file, int mode)
{
    if (ips2_proc.initialized) {
        ips2_self.modules_changed = 1;
        ips2_self.limit = 0; /* the next event takes the slow path */
    }
    return IPS2_REAL(dlopen)(file, mode);
}
