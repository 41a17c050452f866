/*
 * pvm_vm.h - the master's PVM virtual machine: join the user's pvmd or
 * start a private one (pvm_vm.c).  libpvm keeps one connection per
 * process, so there is at most one open VM per process; the handle makes
 * that explicit and remembers what to undo.
 */
#ifndef IPS2_PVM_VM_H
#define IPS2_PVM_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum ips2_vm_mode {
    IPS2_VM_AUTO = 0, /* join a running pvmd if one answers, else start a private one */
    IPS2_VM_JOIN,     /* join the user's pvmd (PVM_TMP, PVM_VMID as set) or fail */
    IPS2_VM_PRIVATE,  /* start a private pvmd with a new PVM_VMID, halted by close */
};

struct ips2_vm {
    enum ips2_vm_mode mode; /* JOIN or PRIVATE once open */
    int mytid;
    char host[256];               /* the local pvmd's host name in the VM */
    char *tmpdir;                 /* PRIVATE: its PVM_TMP */
    char vmid[64];                /* PRIVATE: its PVM_VMID */
    pid_t pvmd_pid;               /* PRIVATE: the pvmd started */
    char *saved_tmp, *saved_vmid; /* env values before a private VM, to restore */
    char *ep;                     /* PRIVATE: the exec dirs it was given, or NULL */
    bool for_hosts;               /* PRIVATE: started under this host's name */
    int *lost;                    /* pvmd tids of hosts found unreachable */
    int nlost;
    bool had_tmp, had_vmid;
};

/* Opens the VM.  Returns NULL with err set when no pvmd can be joined or
 * started.  Sets PVM_ALLOW_ROOT and PVM_ROOT (when unset), which PVM
 * needs to run as root and to find its pvmd. */
struct ips2_vm *ips2_vm_open(enum ips2_vm_mode mode, char *err, size_t errsize);

/* The directories a private pvmd started by the next ips2_vm_open()
 * searches first for the executables tasks pvm_spawn by bare name (a
 * colon-separated list, or NULL: none), before PVM_PATH if set, else
 * PVM's default ep ($HOME/pvm3/bin/$PVM_ARCH:$PVM_ROOT/bin/$PVM_ARCH) and
 * $PVM_ROOT/lib (where Debian keeps pvmgs, the group server).
 * A joined pvmd keeps its own ep=. */
void ips2_vm_exec_path(const char *dirs);

/* Whether a private pvmd started by the next ips2_vm_open() is to add
 * other hosts (a machine of the workload is on another host): it is then
 * started under this host's own name (gethostname(), which must resolve
 * to an address the other hosts reach) instead of "localhost", which PVM
 * refuses to add hosts to ("Master Host IP Address is Loopback"). */
void ips2_vm_for_hosts(bool others);

/* Whether host names this host ("", ".", "localhost", 127.0.0.1, its
 * gethostname() and that name's domains); ips2_vm_is_local() also knows
 * the pvmd's name for it. */
bool ips2_vm_host_is_here(const char *host);

/* What pvm_addhosts() is given for host: in a private VM, a hostfile line
 * "HOST dx=PVMD ep=DIRS" naming this host's pvmd (the binaries are on a
 * shared file system) and the exec dirs a private pvmd searches, so that
 * a remote pvmd and the workload's programs are found by the same paths;
 * in a joined VM (the user's hostfile rules), host alone. */
void ips2_vm_host_line(const struct ips2_vm *vm, const char *host, char *line, size_t size);

/* Leaves the VM; a private one is halted (the hosts it added are deleted,
 * so their pvmds end; its pvmd is killed; tasks still in it lose it) and
 * its files removed, after copying the pvmd's log to keep_log if that is
 * not NULL. */
void ips2_vm_close(struct ips2_vm *vm, const char *keep_log);

/* A private VM: stops (pvm_kill) every task still in it but the caller,
 * before ips2_vm_close(); each one but PVM's group server is named
 * through fn ("PVM task t40003 (/path/prog, pid 123) was still in the
 * virtual machine when the run ended: stopped with pvm_kill").  A task of
 * this host that ignores SIGTERM for a second gets SIGKILL.  A joined VM
 * is the user's: nothing is done.  Returns how many were named. */
typedef void ips2_vm_task_fn(void *arg, const char *text);
int ips2_vm_stop_tasks(struct ips2_vm *vm, ips2_vm_task_fn *fn, void *arg);

/* Whether host names the local pvmd's host ("", ".", "localhost", the
 * host's own names). */
bool ips2_vm_is_local(const struct ips2_vm *vm, const char *host);

/* Marks the host of pvmd host_tid unreachable (a slave there stopped
 * answering): no call that would wait for its pvmd (pvm_tasks of every
 * host, pvm_delhosts, pvm_kill of its tasks) is made for it any more. */
void ips2_vm_host_lost(struct ips2_vm *vm, int host_tid);

/* PVM's message for an error code. */
const char *ips2_vm_strerror(int code);

#endif /* IPS2_PVM_VM_H */
