/*
 * slave_exe.c - the kind of a workload's program (slave_exe.h), read with
 * libelf: PT_INTERP says whether the dynamic loader runs (so whether
 * LD_PRELOAD can work), the DT_NEEDED entries of the dynamic section
 * whether libips2 is linked already.
 */
#include "slave_exe.h"

#include "ips2_fields.h"
#include "ips2_format.h"
#include "ips2_reader.h"

#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The file argv0 runs, as execvpe would find it. */
static bool resolve(const char *argv0, const char *cwd, const char *path, char *out, size_t size)
{
    if (strchr(argv0, '/') != NULL) {
        if (argv0[0] == '/' || cwd == NULL || cwd[0] == '\0')
            snprintf(out, size, "%s", argv0);
        else
            snprintf(out, size, "%s/%s", cwd, argv0);
        return executable_file(out);
    }
    if (path == NULL)
        path = getenv("PATH");
    if (path == NULL)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path;;) {
        size_t n = strcspn(p, ":");
        if (n == 0)
            snprintf(out, size, "%s", argv0); /* an empty entry: the cwd */
        else
            snprintf(out, size, "%.*s/%s", (int)n, p, argv0);
        if (executable_file(out))
            return true;
        if (p[n] == '\0')
            break;
        p += n + 1;
    }
    return false;
}

static enum slave_exe_kind kind_of_elf(int fd)
{
    elf_version(EV_CURRENT);
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    if (e == NULL)
        return SLAVE_EXE_UNKNOWN;
    enum slave_exe_kind kind = SLAVE_EXE_UNKNOWN;
    size_t nph = 0;
    bool interp = false;
    if (elf_kind(e) == ELF_K_ELF && elf_getphdrnum(e, &nph) == 0) {
        for (size_t i = 0; i < nph; i++) {
            GElf_Phdr ph;
            if (gelf_getphdr(e, (int)i, &ph) != NULL && ph.p_type == PT_INTERP)
                interp = true;
        }
        kind = interp ? SLAVE_EXE_PLAIN : SLAVE_EXE_STATIC;
    }
    for (Elf_Scn *scn = NULL; interp && (scn = elf_nextscn(e, scn)) != NULL;) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_DYNAMIC)
            continue;
        Elf_Data *data = elf_getdata(scn, NULL);
        for (size_t k = 0; data != NULL && sh.sh_entsize > 0 && k < sh.sh_size / sh.sh_entsize;
             k++) {
            GElf_Dyn dyn;
            if (gelf_getdyn(data, (int)k, &dyn) == NULL || dyn.d_tag != DT_NEEDED)
                continue;
            const char *name = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
            if (name != NULL && strncmp(name, "libips2.so", 10) == 0)
                kind = SLAVE_EXE_TRACED;
        }
    }
    elf_end(e);
    return kind;
}

enum slave_exe_kind slave_exe_kind(const char *argv0, const char *cwd, const char *path,
                                   char *resolved, size_t size)
{
    char file[PATH_MAX];
    if (resolved != NULL && size > 0)
        resolved[0] = '\0';
    if (argv0 == NULL || argv0[0] == '\0' || !resolve(argv0, cwd, path, file, sizeof file))
        return SLAVE_EXE_UNKNOWN;
    if (resolved != NULL)
        snprintf(resolved, size, "%s", file);
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return SLAVE_EXE_UNKNOWN;
    char head[4] = {0};
    enum slave_exe_kind kind = SLAVE_EXE_UNKNOWN;
    if (pread(fd, head, sizeof head, 0) == (ssize_t)sizeof head) {
        if (head[0] == '#' && head[1] == '!')
            kind = SLAVE_EXE_SCRIPT;
        else if (memcmp(head, "\177ELF", 4) == 0)
            kind = kind_of_elf(fd);
    }
    close(fd);
    return kind;
}

int slave_exe_libips2(char *buf, size_t size)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash == NULL)
        return -1;
    *slash = '\0'; /* BINDIR */
    slash = strrchr(self, '/');
    if (slash == NULL)
        return -1;
    *slash = '\0';
    snprintf(buf, size, "%s/lib/libips2.so", self[0] ? self : "");
    return access(buf, R_OK) == 0 ? 0 : -1;
}

int slave_exe_traced_exit(const char *trace_dir, int pid, int *signal, int *status)
{
    char prefix[32], best[PATH_MAX] = "";
    int n = snprintf(prefix, sizeof prefix, "%d.", pid);
    long image = -1;
    DIR *d = opendir(trace_dir);
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        char *end = NULL;
        if (strncmp(e->d_name, prefix, (size_t)n) != 0)
            continue;
        long im = strtol(e->d_name + n, &end, 10);
        if (end != NULL && strncmp(end, ".proc.", 6) == 0 && im > image) {
            image = im;
            snprintf(best, sizeof best, "%s/%s", trace_dir, e->d_name);
        }
    }
    if (d != NULL)
        closedir(d);
    if (image < 0)
        return -1;
    char err[IPS2_ERR_MAX];
    struct ips2_reader *rd = ips2_reader_open(best, err);
    const struct ips2_event *ev;
    int found = -1;
    while (rd != NULL && ips2_reader_next(rd, &ev) == 1) {
        if (ev->kind != IPS2_EV_PROC_EXIT)
            continue;
        int st = ev->nextra > IPS2_F_PROC_EXIT_STATUS ? (int)ev->extra[IPS2_F_PROC_EXIT_STATUS] : 0;
        *signal = ev->payload == IPS2_EXIT_SIGNAL ? st : 0;
        *status = ev->payload == IPS2_EXIT_SIGNAL ? 0 : st & 0377;
        found = 0;
    }
    if (rd != NULL)
        ips2_reader_close(rd);
    return found;
}
