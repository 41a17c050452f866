/*
 * slave_pack.h - the slave's packing of its run's raw streams beside the
 * rest of its work: a child process (slave_pack.c) runs ips2_pack_dir()
 * and reports through a pipe, so the slave sends its results first and
 * keeps answering the master (phase queries, critical paths) meanwhile.
 */
#ifndef IPS2_SLAVE_PACK_H
#define IPS2_SLAVE_PACK_H

#include <stdbool.h>

#include "ips2_pack.h"

struct slave_packer;

/* What the packing came to once it ended. */
struct slave_pack_end {
    int packed;     /* streams packed */
    int raw;        /* streams left raw (each reported through failed) */
    bool died;      /* the child ended before saying it had finished */
    int64_t cpu_ns; /* the child's user + system CPU time */
    char why[128];
};

/* Forks the packer of trace_dir (niced, killed if the slave dies).  With
 * the test hook IPS2SLAVE_HOLD=DIR and DIR/MACHINE.packhold present, it
 * writes "PACKER-PID SLAVE-PID" to DIR/MACHINE.packpid after its first
 * stream, reports that progress and waits for DIR/MACHINE.packgo.
 * NULL with err set when no child could be made. */
struct slave_packer *slave_packer_start(const char *trace_dir, const char *machine, char *err,
                                        size_t errsize);

/* Back to the slave's own priority, where the system lets a process
 * raise its child's (nothing else waits but for the packing now). */
void slave_packer_hurry(struct slave_packer *p);

/* The descriptor to poll (readable: a report, or the end). */
int slave_packer_fd(const struct slave_packer *p);

/* Reads one report and hands it to report (progress, failed); returns 1
 * while the packer runs, 0 once it has ended and is reaped (*end set). */
int slave_packer_step(struct slave_packer *p, const struct ips2_pack_report *report,
                      struct slave_pack_end *end);

/* Kills a packer that still runs (its stream stays raw: a packed file is
 * only ever renamed into place complete), reaps it and frees p. */
void slave_packer_free(struct slave_packer *p);

#endif /* IPS2_SLAVE_PACK_H */
