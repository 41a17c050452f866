/*
 * pvm_vm.c - joining or starting the pvmd the master and its slaves talk
 * through (the recipe of notes/peers-and-pvm.md §4).
 *
 * Join: pvm_mytid() with the caller's PVM_TMP / PVM_VMID; that is the
 * user's virtual machine, possibly of many hosts, and it is left running.
 *
 * Private: a new directory PVM_TMP=$TMPDIR/ips2-pvm.XXXXXX and PVM_VMID,
 * so no stale socket-address file of an earlier pvmd (kill -9 leaves
 * them) and no other user's or test's pvmd can be found; stale pvmd.*
 * files in it are removed anyway; then pvm_start_pvmd("-nlocalhost"),
 * which needs no resolvable host name.  PVM refuses to run as root unless
 * PVM_ALLOW_ROOT is set, so it is.  pvm_halt() would kill the caller too,
 * so close leaves the VM and sends the pvmd SIGTERM (it then ends its
 * tasks and removes its files); its pid is in the name of its socket
 * file, pvmtmp<PID>.0, in the private PVM_TMP.  The environment is put
 * back as it was, so a later join finds the user's pvmd again.
 */
#include <dirent.h>
#include <errno.h>
#include <pvm3.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pvm_vm.h"

extern char *pvm_errlist[]; /* libpvm: messages of codes 0 .. -36 */

const char *ips2_vm_strerror(int code)
{
    if (code <= 0 && code >= PvmIPLoopback && pvm_errlist[-code] != NULL)
        return pvm_errlist[-code];
    return "unknown PVM error";
}

/* A copy of an environment variable's value, or NULL if unset. */
static char *save_env(const char *name)
{
    const char *v = getenv(name);
    return v != NULL ? strdup(v) : NULL;
}

static void restore_env(const char *name, bool had, const char *value)
{
    if (had && value != NULL)
        setenv(name, value, 1);
    else
        unsetenv(name);
}

/* Removes dir's files (not recursive) and dir; stale pvmd.* files only
 * when only_stale. */
static void clean_dir(const char *dir, int only_stale)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (only_stale && strncmp(e->d_name, "pvmd.", 5) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    if (!only_stale)
        rmdir(dir);
}

/* The pvmd's pid from its socket file pvmtmp<PID>.0 in dir, or 0. */
static pid_t find_pvmd(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    struct dirent *e;
    pid_t pid = 0;
    while ((e = readdir(d)) != NULL) {
        int p, n = 0;
        if (sscanf(e->d_name, "pvmtmp%d.0%n", &p, &n) == 1 && e->d_name[n] == '\0' && p > 0)
            pid = (pid_t)p;
    }
    closedir(d);
    return pid;
}

/* Our own pvmd's host name, from the host table. */
static void local_host(struct ips2_vm *vm)
{
    struct pvmhostinfo *hi = NULL;
    int nhost = 0, narch = 0;
    int mine = pvm_tidtohost(vm->mytid);
    snprintf(vm->host, sizeof vm->host, "localhost");
    if (pvm_config(&nhost, &narch, &hi) < 0)
        return;
    for (int i = 0; i < nhost; i++)
        if (hi[i].hi_tid == mine && hi[i].hi_name != NULL)
            snprintf(vm->host, sizeof vm->host, "%s", hi[i].hi_name);
}

static int join(struct ips2_vm *vm)
{
    int tid = pvm_mytid();
    if (tid < 0)
        return tid;
    vm->mytid = tid;
    local_host(vm);
    return 0;
}

static int start_private(struct ips2_vm *vm, char *err, size_t errsize)
{
    const char *base = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/ips2-pvm.XXXXXX", base && base[0] ? base : "/tmp");
    if (mkdtemp(dir) == NULL) {
        snprintf(err, errsize, "cannot make a directory for a private pvmd (%s): %s", dir,
                 strerror(errno));
        return -1;
    }
    vm->tmpdir = strdup(dir);
    clean_dir(dir, 1);
    vm->had_tmp = getenv("PVM_TMP") != NULL;
    vm->saved_tmp = save_env("PVM_TMP");
    vm->had_vmid = getenv("PVM_VMID") != NULL;
    vm->saved_vmid = save_env("PVM_VMID");
    char vmid[64];
    snprintf(vmid, sizeof vmid, "ips2-%d", (int)getpid());
    setenv("PVM_TMP", dir, 1);
    setenv("PVM_VMID", vmid, 1);

    char *argv[] = {"-nlocalhost", NULL};
    int rc = pvm_start_pvmd(1, argv, 1);
    if (rc < 0 && rc != PvmDupHost) {
        snprintf(err, errsize, "cannot start a private pvmd: %s (%d)", ips2_vm_strerror(rc), rc);
        return -1;
    }
    vm->pvmd_pid = find_pvmd(dir);
    rc = join(vm);
    if (rc < 0) {
        snprintf(err, errsize, "cannot join the private pvmd: %s (%d)", ips2_vm_strerror(rc), rc);
        return -1;
    }
    vm->mode = IPS2_VM_PRIVATE;
    return 0;
}

struct ips2_vm *ips2_vm_open(enum ips2_vm_mode mode, char *err, size_t errsize)
{
    struct ips2_vm *vm = calloc(1, sizeof *vm);
    if (vm == NULL) {
        snprintf(err, errsize, "out of memory");
        return NULL;
    }
    setenv("PVM_ALLOW_ROOT", "1", 0);
    setenv("PVM_ROOT", "/usr/lib/pvm3", 0);
    pvm_setopt(PvmAutoErr, 0);

    if (mode == IPS2_VM_AUTO || mode == IPS2_VM_JOIN) {
        int rc = join(vm);
        if (rc == 0) {
            vm->mode = IPS2_VM_JOIN;
            return vm;
        }
        if (mode == IPS2_VM_JOIN) {
            snprintf(err, errsize, "cannot join a pvmd: %s (%d)", ips2_vm_strerror(rc), rc);
            free(vm);
            return NULL;
        }
        pvm_exit();
    }
    if (start_private(vm, err, errsize) == 0)
        return vm;
    ips2_vm_close(vm, NULL);
    return NULL;
}

/* Copies file from to to (best effort). */
static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "r");
    if (in == NULL)
        return;
    FILE *out = fopen(to, "w");
    if (out != NULL) {
        char buf[8192];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, in)) > 0)
            fwrite(buf, 1, n, out);
        fclose(out);
    }
    fclose(in);
}

void ips2_vm_close(struct ips2_vm *vm, const char *keep_log)
{
    if (vm == NULL)
        return;
    if (vm->mytid > 0)
        pvm_exit();
    if (vm->tmpdir != NULL) {
        if (vm->pvmd_pid > 0)
            kill(vm->pvmd_pid, SIGTERM);
        if (keep_log != NULL) {
            DIR *d = opendir(vm->tmpdir);
            struct dirent *e;
            char path[4096];
            while (d != NULL && (e = readdir(d)) != NULL) {
                if (strncmp(e->d_name, "pvml.", 5) != 0)
                    continue;
                snprintf(path, sizeof path, "%s/%s", vm->tmpdir, e->d_name);
                copy_file(path, keep_log);
            }
            if (d != NULL)
                closedir(d);
        }
        clean_dir(vm->tmpdir, 0);
        restore_env("PVM_TMP", vm->had_tmp, vm->saved_tmp);
        restore_env("PVM_VMID", vm->had_vmid, vm->saved_vmid);
    }
    free(vm->tmpdir);
    free(vm->saved_tmp);
    free(vm->saved_vmid);
    free(vm);
}

bool ips2_vm_is_local(const struct ips2_vm *vm, const char *host)
{
    if (host == NULL || host[0] == '\0' || strcmp(host, ".") == 0 ||
        strcmp(host, "localhost") == 0 || strcmp(host, "127.0.0.1") == 0 ||
        strcmp(host, vm->host) == 0)
        return true;
    char me[256] = "";
    gethostname(me, sizeof me - 1);
    if (strcmp(host, me) == 0)
        return true;
    /* "vm" and "vm.example.org" */
    size_t n = strlen(me);
    return strncmp(host, me, n) == 0 && host[n] == '.';
}
