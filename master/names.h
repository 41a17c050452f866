/*
 * names.h - what the master takes as the name of a machine or an
 * application.  Such names come from workload files and from received
 * sessions (manifest.tcl, reductions/MACHINE.red) and become file names
 * (SESSION/reductions/MACHINE.red, SESSION/traces/MACHINE, a slave's
 * MACHINE.pag and output/MACHINE/ips2slave.log), so a name is refused, not
 * mended, unless it is one path component of the form the workload reader
 * takes (master/dsl.tcl, ips2::dsl::checkName): letters, digits, "_", "."
 * and "-", not beginning with "." or "-", at most IPS2_NAME_MAX bytes.
 */
#ifndef IPS2_MASTER_NAMES_H
#define IPS2_MASTER_NAMES_H

#include <stdbool.h>

#define IPS2_NAME_MAX 200

/* Whether name is a machine's or application's name as described above
 * (NULL and "" are not). */
bool ips2_is_name(const char *name);

#endif /* IPS2_MASTER_NAMES_H */
