/*
 * pvm_vm.c - joining or starting the pvmd the master and its slaves talk
 * through (the recipe of notes/peers-and-pvm.md §4).
 *
 * Join: pvm_mytid() with the caller's PVM_TMP / PVM_VMID; that is the
 * user's virtual machine, possibly of many hosts, and it is left running.
 *
 * Private: a pvmd of our own, apart from any other by a new PVM_VMID (the
 * socket-address file is PVM_TMP/pvmd.UID.VMID), so no stale file of an
 * earlier pvmd (kill -9 leaves them) and no other user's or test's pvmd
 * can be found (a stale file of the same name is removed anyway); then
 * pvm_start_pvmd("-nlocalhost"), which needs no resolvable host name;
 * for a workload with machines on other hosts, "-n<this host's name>"
 * instead (PVM adds no host to a pvmd on a loopback address), and each
 * host it adds (over PVM_RSH: rsh, or ssh) is given dx= and ep= of this
 * host's paths (a shared file system); close deletes them first, so their
 * pvmds end too.
 * PVM_TMP is left as it is: libpvm reads it once per process and keeps it
 * (pvmgettmp), so a private directory would break every later join or
 * private VM of the process; the pvmd is given that same directory.  PVM
 * refuses to run as root unless PVM_ALLOW_ROOT is set, so it is.
 * pvm_halt() would kill the caller too, and so would SIGTERM (the pvmd
 * ends every task it still counts, and pvm_exit() returns before it has
 * taken ours off), so close leaves the VM, sends the pvmd SIGKILL, waits
 * for it to end and removes its files itself (the caller has told the
 * slaves to quit and waited for them first); its pid is in the socket
 * path its socket-address file holds (.../pvmtmp<PID>.0).
 * The environment is put back as it was.
 *
 * Before a private pvmd goes, the tasks still in it (a workload's PVM
 * worker that never exited, untraced or on a host without a slave) are
 * stopped with pvm_kill and named (ips2_vm_stop_tasks): killing the pvmd
 * alone would orphan them, still running.  PVM's group server (pvmgs)
 * is PVM's own and only ended.  A task of this host that outlives its
 * SIGTERM (pvm_kill) for a second gets SIGKILL.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pvm3.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <limits.h>

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

extern char *pvmdsockfile(void); /* libpvm: PVM_TMP/pvmd.UID[.VMID] */

/* Removes path if it exists. */
static void remove_file(const char *dir, const char *name)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
}

/* The pvmd's pid, from its socket-address file (which holds the path of
 * its socket, .../pvmtmp<PID>.0), or 0. */
static pid_t find_pvmd(void)
{
    const char *file = pvmdsockfile();
    char buf[PATH_MAX] = "";
    FILE *f = file != NULL ? fopen(file, "r") : NULL;
    if (f == NULL)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strstr(buf, "pvmtmp");
    int pid = 0;
    if (p == NULL || sscanf(p, "pvmtmp%d.", &pid) != 1)
        return 0;
    return (pid_t)pid;
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

/* Whether the socket-address file of the pvmd a join would look for
 * (PVM_TMP/pvmd.UID[.VMID]) exists. */
static bool pvmd_announced(void)
{
    char path[PATH_MAX];
    const char *vmid = getenv("PVM_VMID");
    snprintf(path, sizeof path, "%s/pvmd.%d%s%s", pvmgettmp(), (int)getuid(),
             vmid && vmid[0] ? "." : "", vmid && vmid[0] ? vmid : "");
    return access(path, F_OK) == 0;
}

/* join(), with libpvm's complaints about a stale socket-address file kept
 * off stderr (in auto mode a failed join only means "start one"). */
static int quiet_join(struct ips2_vm *vm)
{
    fflush(stderr);
    int saved = dup(2), null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (saved >= 0 && null >= 0)
        dup2(null, 2);
    int rc = join(vm);
    if (saved >= 0 && null >= 0)
        dup2(saved, 2);
    if (saved >= 0)
        close(saved);
    if (null >= 0)
        close(null);
    return rc;
}

static char *exec_dirs; /* ips2_vm_exec_path()'s */
static bool for_hosts;  /* ips2_vm_for_hosts()'s */

void ips2_vm_for_hosts(bool others)
{
    for_hosts = others;
}

void ips2_vm_exec_path(const char *dirs)
{
    free(exec_dirs);
    exec_dirs = dirs != NULL && dirs[0] != '\0' ? strdup(dirs) : NULL;
}

/* Starts the pvmd with PVM_PATH (its ep=) led by exec_dirs: the
 * workload's directories, so that pvm_spawn("worker") finds them there. */
static int start_pvmd(void)
{
    char name[300] = "-nlocalhost", me[256] = "";
    if (for_hosts && gethostname(me, sizeof me - 1) == 0 && me[0] != '\0')
        snprintf(name, sizeof name, "-n%s", me);
    char *argv[] = {name, NULL};
    if (exec_dirs == NULL)
        return pvm_start_pvmd(1, argv, 1);
    bool had = getenv("PVM_PATH") != NULL;
    char *saved = save_env("PVM_PATH");
    const char *rest = had && saved != NULL
                           ? saved
                           : "$HOME/pvm3/bin/$PVM_ARCH:$PVM_ROOT/bin/$PVM_ARCH:$PVM_ROOT/lib";
    size_t n = strlen(exec_dirs) + strlen(rest) + 2;
    char *path = malloc(n);
    if (path != NULL) {
        snprintf(path, n, "%s:%s", exec_dirs, rest);
        setenv("PVM_PATH", path, 1);
    }
    int rc = pvm_start_pvmd(1, argv, 1);
    restore_env("PVM_PATH", had, saved);
    free(saved);
    free(path);
    return rc;
}

static int start_private(struct ips2_vm *vm, char *err, size_t errsize)
{
    vm->had_tmp = getenv("PVM_TMP") != NULL;
    vm->saved_tmp = save_env("PVM_TMP");
    vm->had_vmid = getenv("PVM_VMID") != NULL;
    vm->saved_vmid = save_env("PVM_VMID");
    /* the directory libpvm uses for good in this process; the pvmd must too */
    const char *td = pvmgettmp();
    setenv("PVM_TMP", td, 1);
    vm->tmpdir = strdup(td);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    snprintf(vm->vmid, sizeof vm->vmid, "ips2.%d.%lld", (int)getpid(),
             (long long)ts.tv_sec * 1000000000 + ts.tv_nsec);
    setenv("PVM_VMID", vm->vmid, 1);
    char name[128];
    snprintf(name, sizeof name, "pvmd.%d.%s", (int)getuid(), vm->vmid);
    remove_file(vm->tmpdir, name); /* a stale one would send tasks to a dead pvmd */

    int rc = start_pvmd();
    if (rc < 0 && rc != PvmDupHost) {
        snprintf(err, errsize, "cannot start a private pvmd: %s (%d)", ips2_vm_strerror(rc), rc);
        return -1;
    }
    rc = join(vm);
    vm->pvmd_pid = find_pvmd();
    if (rc < 0) {
        snprintf(err, errsize, "cannot join the private pvmd: %s (%d)", ips2_vm_strerror(rc), rc);
        return -1; /* ips2_vm_close() ends it */
    }
    vm->mode = IPS2_VM_PRIVATE;
    vm->for_hosts = for_hosts;
    vm->ep = exec_dirs != NULL ? strdup(exec_dirs) : NULL;
    return 0;
}

/* Waits (at most a second) until process pid has ended: a pidfd becomes
 * readable then, also for a process that is not our child. */
static void wait_gone(pid_t pid)
{
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (fd < 0)
        return;
    struct pollfd p = {fd, POLLIN, 0};
    poll(&p, 1, 1000);
    close(fd);
}

static bool host_lost(const struct ips2_vm *vm, int host_tid)
{
    for (int i = 0; i < vm->nlost; i++)
        if (vm->lost[i] == host_tid)
            return true;
    return false;
}

/* Whether t runs the program called name (PVM's a_out: a path or a name). */
static bool task_runs(const struct pvmtaskinfo *t, const char *name)
{
    const char *base = t->ti_a_out != NULL ? strrchr(t->ti_a_out, '/') : NULL;
    base = base != NULL ? base + 1 : t->ti_a_out;
    return base != NULL && strcmp(base, name) == 0;
}

/* ips2_vm_stop_tasks() of the tasks of one pvm_tasks() answer. */
static int stop_listed(struct ips2_vm *vm, struct pvmtaskinfo *ti, int ntask, ips2_vm_task_fn *fn,
                       void *arg)
{
    int stopped = 0, me = pvm_tidtohost(vm->mytid);
    int *fds = malloc((size_t)ntask * sizeof *fds);
    if (fds == NULL)
        return 0;
    for (int i = 0; i < ntask; i++) {
        const struct pvmtaskinfo *t = &ti[i];
        fds[i] = -1;
        if (t->ti_tid == vm->mytid)
            continue;
        /* a pidfd first: the pid may be reused once pvm_kill has ended it */
        if (t->ti_host == me && t->ti_pid > 0)
            fds[i] = (int)syscall(SYS_pidfd_open, (pid_t)t->ti_pid, 0);
        /* not named: PVM's group server, and the run's own slaves, told to
         * quit, whose exit may not have reached the pvmd yet */
        if (pvm_kill(t->ti_tid) < 0 || task_runs(t, "pvmgs") || task_runs(t, "ips2slave"))
            continue;
        stopped++;
        if (fn != NULL) {
            char text[PATH_MAX + 160];
            snprintf(text, sizeof text,
                     "PVM task t%x (%s, pid %d) was still in the virtual machine when the run "
                     "ended: stopped with pvm_kill",
                     (unsigned)t->ti_tid, t->ti_a_out != NULL && t->ti_a_out[0] ? t->ti_a_out : "?",
                     t->ti_pid);
            fn(arg, text);
        }
    }
    for (int i = 0; i < ntask; i++) {
        if (fds[i] < 0)
            continue;
        struct pollfd p = {fds[i], POLLIN, 0};
        if (poll(&p, 1, 1000) == 0) /* it took no notice of SIGTERM */
            syscall(SYS_pidfd_send_signal, fds[i], SIGKILL, NULL, 0);
        close(fds[i]);
    }
    free(fds);
    return stopped;
}

int ips2_vm_stop_tasks(struct ips2_vm *vm, ips2_vm_task_fn *fn, void *arg)
{
    if (vm == NULL || vm->mode != IPS2_VM_PRIVATE || vm->mytid <= 0)
        return 0;
    struct pvmtaskinfo *ti = NULL;
    int ntask = 0, stopped = 0;
    if (vm->nlost == 0)
        return pvm_tasks(0, &ntask, &ti) < 0 || ntask <= 0 ? 0
                                                           : stop_listed(vm, ti, ntask, fn, arg);
    /* a host unreachable: the master pvmd then answers a pvm_tasks() of
     * another host only when it gives up on that one (half a minute), so
     * only this host's tasks are stopped; the other hosts' go with their
     * pvmds when ips2_vm_close() deletes the hosts */
    if (pvm_tasks(pvm_tidtohost(vm->mytid), &ntask, &ti) >= 0 && ntask > 0)
        stopped = stop_listed(vm, ti, ntask, fn, arg);
    return stopped;
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

    if (mode == IPS2_VM_AUTO && !pvmd_announced()) {
        /* nobody to join; libpvm would only complain on stderr, and retry */
    } else if (mode == IPS2_VM_AUTO || mode == IPS2_VM_JOIN) {
        int rc = mode == IPS2_VM_AUTO ? quiet_join(vm) : join(vm);
        if (rc == 0) {
            vm->mode = IPS2_VM_JOIN;
            return vm;
        }
        if (mode == IPS2_VM_JOIN) {
            snprintf(err, errsize, "cannot join a pvmd: %s (%d)", ips2_vm_strerror(rc), rc);
            free(vm);
            return NULL;
        }
        /* not connected: no pvm_exit(), which would only try to connect again */
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

void ips2_vm_host_lost(struct ips2_vm *vm, int host_tid)
{
    if (vm == NULL || host_lost(vm, host_tid))
        return;
    int *v = realloc(vm->lost, (size_t)(vm->nlost + 1) * sizeof *v);
    if (v == NULL)
        return;
    vm->lost = v;
    vm->lost[vm->nlost++] = host_tid;
}

/* A private VM's other hosts are deleted, so their pvmds (and the tasks
 * still there) end now rather than when they miss ours; each deletion is
 * waited for (PvmHostDelete, at most 2 s in all): a pvmd killed before it
 * has passed the halt on leaves the remote pvmds running. */
#define HOST_GONE_TAG 0x7ff1 /* a tag of this file's own, received only here */
static void delete_hosts(struct ips2_vm *vm)
{
    struct pvmhostinfo *hi = NULL;
    int nhost = 0, narch = 0, me = pvm_tidtohost(vm->mytid);
    if (pvm_config(&nhost, &narch, &hi) < 0 || nhost <= 1)
        return;
    char **names = calloc((size_t)nhost, sizeof *names);
    int *info = calloc((size_t)nhost, sizeof *info), n = 0;
    int *tids = calloc((size_t)nhost, sizeof *tids);
    for (int i = 0; names != NULL && info != NULL && tids != NULL && i < nhost; i++)
        if (hi[i].hi_tid != me && hi[i].hi_name != NULL && !host_lost(vm, hi[i].hi_tid)) {
            tids[n] = hi[i].hi_tid;
            names[n++] = strdup(hi[i].hi_name);
        }
    if (n > 0 && pvm_notify(PvmHostDelete, HOST_GONE_TAG, n, tids) >= 0 &&
        pvm_delhosts(names, n, info) >= 0) {
        struct timespec t0, now;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (int got = 0; got < n;) {
            clock_gettime(CLOCK_MONOTONIC, &now);
            long left =
                2000 - ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000);
            struct timeval tv = {left / 1000, (left % 1000) * 1000};
            if (left <= 0 || pvm_trecv(-1, HOST_GONE_TAG, &tv) <= 0)
                break;
            got++;
        }
    }
    for (int i = 0; names != NULL && i < n; i++)
        free(names[i]);
    free(names);
    free(info);
    free(tids);
}

void ips2_vm_host_line(const struct ips2_vm *vm, const char *host, char *line, size_t size)
{
    snprintf(line, size, "%s", host);
    if (vm == NULL || vm->mode != IPS2_VM_PRIVATE)
        return;
    const char *root = getenv("PVM_ROOT");
    if (root == NULL || root[0] != '/' || strpbrk(root, " \t\n\"'") != NULL)
        return;
    size_t n = strlen(line);
    snprintf(line + n, size - n, " dx=%s/lib/pvmd", root);
    if (vm->ep != NULL && strpbrk(vm->ep, " \t\n\"'") == NULL) {
        n = strlen(line);
        snprintf(line + n, size - n, " ep=%s:$HOME/pvm3/bin/$PVM_ARCH:%s/bin/$PVM_ARCH:%s/lib",
                 vm->ep, root, root);
    }
    if (strlen(line) + 1 >= size) /* cut: better none than a wrong path */
        snprintf(line, size, "%s", host);
}

void ips2_vm_close(struct ips2_vm *vm, const char *keep_log)
{
    if (vm == NULL)
        return;
    if (vm->mytid > 0 && vm->mode == IPS2_VM_PRIVATE && vm->for_hosts)
        delete_hosts(vm);
    if (vm->mytid > 0)
        pvm_exit();
    if (vm->tmpdir != NULL) {
        char name[128];
        /* SIGKILL: on SIGTERM a pvmd ends its tasks, and it may not yet
         * have taken in our pvm_exit */
        if (vm->pvmd_pid > 0 && kill(vm->pvmd_pid, SIGKILL) == 0)
            wait_gone(vm->pvmd_pid);
        snprintf(name, sizeof name, "pvml.%d.%s", (int)getuid(), vm->vmid);
        if (keep_log != NULL) {
            char path[PATH_MAX];
            snprintf(path, sizeof path, "%s/%s", vm->tmpdir, name);
            copy_file(path, keep_log);
        }
        remove_file(vm->tmpdir, name);
        snprintf(name, sizeof name, "pvmd.%d.%s", (int)getuid(), vm->vmid);
        remove_file(vm->tmpdir, name);
        if (vm->pvmd_pid > 0) {
            snprintf(name, sizeof name, "pvmtmp%06d.0", (int)vm->pvmd_pid);
            remove_file(vm->tmpdir, name);
        }
        restore_env("PVM_TMP", vm->had_tmp, vm->saved_tmp);
        restore_env("PVM_VMID", vm->had_vmid, vm->saved_vmid);
    }
    free(vm->tmpdir);
    free(vm->ep);
    free(vm->lost);
    free(vm->saved_tmp);
    free(vm->saved_vmid);
    free(vm);
}

bool ips2_vm_is_local(const struct ips2_vm *vm, const char *host)
{
    return (host != NULL && strcmp(host, vm->host) == 0) || ips2_vm_host_is_here(host);
}

bool ips2_vm_host_is_here(const char *host)
{
    if (host == NULL || host[0] == '\0' || strcmp(host, ".") == 0 ||
        strcmp(host, "localhost") == 0 || strcmp(host, "127.0.0.1") == 0)
        return true;
    char me[256] = "";
    gethostname(me, sizeof me - 1);
    if (strcmp(host, me) == 0)
        return true;
    /* "vm" and "vm.example.org" */
    size_t n = strlen(me);
    return strncmp(host, me, n) == 0 && host[n] == '.';
}
