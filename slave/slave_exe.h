/*
 * slave_exe.h - what kind of program a workload process runs, so that the
 * slave can trace one that was not built with ips2cc through libips2
 * preloaded (LD_PRELOAD, as instr/ips2-preload does: interactions only)
 * and say why a process wrote no trace.  An ELF executable is traced by
 * itself when libips2.so is among its DT_NEEDED; a dynamic one without it,
 * or a script (its interpreter), takes the preload; a static one cannot.
 */
#ifndef IPS2_SLAVE_EXE_H
#define IPS2_SLAVE_EXE_H

#include <stddef.h>

enum slave_exe_kind {
    SLAVE_EXE_UNKNOWN = 0, /* not found or unreadable: exec will tell */
    SLAVE_EXE_TRACED,      /* built with ips2cc (libips2.so needed) */
    SLAVE_EXE_PLAIN,       /* dynamic, without libips2: preload it */
    SLAVE_EXE_SCRIPT,      /* "#!": its interpreter, preloaded */
    SLAVE_EXE_STATIC,      /* no dynamic loader: nothing can be preloaded */
};

/* The kind of the program argv0 names: a path (relative to cwd if not
 * absolute) or a bare name searched in path (a PATH value; NULL: the
 * slave's).  resolved (if not NULL) gets the file found, or "". */
enum slave_exe_kind slave_exe_kind(const char *argv0, const char *cwd, const char *path,
                                   char *resolved, size_t size);

/* libips2.so beside the running program (BINDIR/../lib/libips2.so), in buf;
 * 0, or -1 if it is not there. */
int slave_exe_libips2(char *buf, size_t size);

/* How process pid ended as its trace in trace_dir says (the proc-exit
 * event of its last image's process stream): *signal the signal that
 * killed it (0: none), *status its exit status & 0377.  For a PVM task,
 * which is not the slave's child.  0, or -1 if no exit is recorded. */
int slave_exe_traced_exit(const char *trace_dir, int pid, int *signal, int *status);

#endif /* IPS2_SLAVE_EXE_H */
