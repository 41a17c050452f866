/*
 * run.h - one run of a workload by the master (ips2::run): the plan made
 * from the workload dict (run_plan.c) and the state the slaves' reports
 * move forward (tcl_run.c).  Private to master/.
 */
#ifndef IPS2_MASTER_RUN_H
#define IPS2_MASTER_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <tcl.h>

#if !defined(TCL_SIZE_MAX)
typedef int Tcl_Size; /* Tcl 8.6 */
#endif

#include "ips2_reductions.h"
#include "pvm_slaves.h"
#include "pvm_vm.h"

/* A process of the session: one to run, or one an old session recorded. */
struct run_proc {
    Tcl_Obj *app;     /* its application's name in this session */
    int machine;      /* index in run.machines */
    int index;        /* in its application */
    Tcl_Obj *command; /* list */
    Tcl_Obj *cwd;     /* "" for replayed processes */
    Tcl_Obj *env;     /* {NAME VALUE ...} */
    double timeout_s;
    int line;        /* the workload line that declared it, 0 if none */
    int pid;         /* 0 until started */
    Tcl_Obj *status; /* {exited N} {signal N} {failed TEXT} timeout; NULL until it ended */
    int replay;      /* -1: runs now; else the run_replay it comes from */
    /* start order and stop condition (workload -after, -ready, -stop-when) */
    Tcl_Obj *after; /* {APP ...}: starts once their processes are ready; NULL none */
    Tcl_Obj *ready; /* {tcp PORT} or {file PATH}; NULL: ready once started */
    double ready_timeout_s;
    Tcl_Obj *stop_when; /* {APP ...}: stopped once their processes ended; NULL none */
    int stop_signal;    /* and how */
    int64_t stop_grace_ms;
    enum run_ready { RR_WAIT = 0, RR_READY, RR_NOT } readiness;
    int spawn_size, spawn_rank; /* one of a PVM sibling group (-spawn N); size 0: none */
    bool released;              /* held: its RELEASE was sent */
    bool stopped;               /* its STOP was sent */
};

/* An old session replayed beside the run. */
struct run_replay {
    Tcl_Obj *session; /* absolute directory */
    bool comparison;  /* else replay mode */
    Tcl_Obj *prefix;
    Tcl_Obj *apps;     /* the old names replayed */
    int64_t old_start; /* the old session's time 0 (CLOCK_REALTIME ns) */
    int64_t shift;     /* comparison mode: added to its times */
    int line;
};

enum machine_state {
    M_PLANNED = 0, /* no slave yet */
    M_RUNNING,     /* slave spawned, working */
    M_DONE,        /* DONE received: its results are in */
    M_FAILED,      /* no slave could be started, or it died */
};

struct run_machine {
    char *name, *host;
    enum machine_state state;
    int slave;      /* index in the slave set, -1 */
    char stage[32]; /* what its slave said it was doing last */
    bool packing;   /* its slave packs the run's traces (from PROGRESS "packing" to PACKED) */
    int64_t offset; /* CLOCK_REALTIME - CLOCK_MONOTONIC (HELLO) */
    bool has_offset;
    int64_t clock[4]; /* CLOCK: offset from the master's clock, error, rtt, exchanges */
    bool has_clock;
    int *replays; /* indices of the replays whose traces it reduces, in the order sent */
    int nreplays;
    Tcl_Obj *collectors;         /* {KIND INTERVAL-MS ...}: run beside its processes, or NULL */
    struct ips2_reductions *red; /* decoded reductions (query 0) */
};

struct run {
    Tcl_Interp *interp;
    Tcl_Obj *workload_file; /* "" for a dict */
    Tcl_Obj *session;       /* absolute session directory */
    int64_t start;          /* CLOCK_REALTIME ns of time 0 */
    int64_t interval_ns, grace_ms;
    enum ips2_vm_mode vm_mode;
    Tcl_Obj *slave_path;
    Tcl_Obj *progress_cmd, *done_cmd; /* NULL if none */

    struct run_machine *machines;
    int nmachines;
    struct run_proc *procs;
    int nprocs;
    struct run_replay *replays;
    int nreplays;
    Tcl_Obj *apps;     /* manifest applications: {NAME {mode M source S} ...} */
    Tcl_Obj *problems; /* list of "MACHINE: text" */
    Tcl_Obj *notes;    /* things the run ignored (a collector on a machine that runs nothing) */

    struct ips2_vm *vm;
    struct ips2_slaves *slaves;
    bool pvm_private; /* for the result: the VM was ours */
    int pvmd_pid;
    bool finishing, closing, close_pending; /* the end: quitting the slaves */
    Tcl_TimerToken close_timer;
    bool finished;
    bool keep; /* the slaves stay for the session's phase queries */
    bool shut; /* slaves and VM are gone */
    struct RunAssoc *assoc;

    /* the phase query in flight (one at a time) */
    int next_query, query;
    bool query_done;
    void *query_data;
    size_t query_size;
    char query_err[512];
};

/* run_plan.c */
/* Fills machines, procs, replays and apps from the workload dict; reads
 * the replayed sessions' manifests.  A replayed session that cannot be
 * read is a problem of the run (logged), not an error.  TCL_ERROR with
 * the interp's result set for a workload that cannot be run. */
int Ips2RunPlan(struct run *run, Tcl_Obj *workload);
/* Makes the session directory and its subdirectories; TCL_ERROR if it
 * exists with a manifest already or cannot be made. */
int Ips2RunMakeSession(struct run *run);
/* Picks time 0: now, or the first replay-mode session's when nothing runs. */
void Ips2RunPickStart(struct run *run);
/* Writes SESSION/manifest.tcl through ips2::manifest::write. */
int Ips2RunWriteManifest(struct run *run);
/* Appends "MACHINE: text" to SESSION/log and to run->problems. */
void Ips2RunProblem(struct run *run, const char *machine, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The comparison shifts, from the machines' decoded reductions. */
void Ips2RunShifts(struct run *run);
/* Index of machine name, or -1. */
int Ips2RunMachine(const struct run *run, const char *name);

#endif /* IPS2_MASTER_RUN_H */
