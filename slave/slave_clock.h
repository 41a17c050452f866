/*
 * slave_clock.h - ips2slave's clock: the test knob of its machine, and the
 * offset from the master's clock measured at CONFIG (slave_clock.c,
 * docs/CLOCKS.md).
 */
#ifndef IPS2_SLAVE_CLOCK_H
#define IPS2_SLAVE_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "ips2_clocks.h"

/* IPS2_TEST_CLOCK_OFFSETS="MACHINE=N ...": if it names machine, sets
 * IPS2_TEST_CLOCK_OFFSET_NS=N for the slave and everything it starts (and
 * lists it in PVM_EXPORT).  0, or -1 with err if the list is malformed. */
int slave_clock_knob(const char *machine, char *err, size_t errlen);

/* CLOCK_REALTIME in ns as this machine's processes read it (the knob's
 * offset included). */
int64_t slave_clock_real_ns(void);

/* The exchanges with the master (CLOCK_PING / CLOCK_PONG), the estimate
 * written to TRACE_DIR/clock and sent as CLOCK.  0, or -1 with err (no
 * answer, or the file could not be written). */
int slave_clock_measure(int master, const char *trace_dir, struct ips2_clock_est *e, char *err,
                        size_t errlen);

#endif /* IPS2_SLAVE_CLOCK_H */
