/*
 * slave_path.h - where the master finds the ips2slave program it spawns
 * (for a run's slaves and for critical-path queries alike).
 */
#ifndef IPS2_MASTER_SLAVE_PATH_H
#define IPS2_MASTER_SLAVE_PATH_H

#include <stddef.h>

/* Writes into buf (len bytes) $IPS2_SLAVE if set, else bin/ips2slave
 * beside the lib/ that holds this library (.../lib/ips2/libips2tcl.so ->
 * .../bin/ips2slave), else "ips2slave" (found on PVM's path). */
void ips2_slave_path(char *buf, size_t len);

#endif /* IPS2_MASTER_SLAVE_PATH_H */
