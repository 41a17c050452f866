/*
 * dump_fields.h - the readable decoding of events for ips2-dump: one table
 * of named, formatted fields per event kind (dump_fields.c).
 */
#ifndef IPS2_DUMP_FIELDS_H
#define IPS2_DUMP_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ips2_reader.h"

/* Prints ev's fields on out as "label value label value ...", decoded
 * per its kind's table (durations from start timers through h's timer).
 * Returns false, printing nothing, for a kind without a table. */
bool ips2_dump_fields(FILE *out, const struct ips2_event *ev, const struct ips2_file_header *h);

/* Which words kind's table prints: bit i of *words for extra[i] (a
 * string: its first word), *payload for the payload.  False for a kind
 * without a table.  (test_fields checks them against ips2_fields.h.) */
bool ips2_dump_words(unsigned kind, uint64_t *words, bool *payload);

/* Prints s (at most max bytes, up to a NUL) with control characters,
 * backslashes and non-ASCII bytes escaped C-style, on one line. */
void ips2_dump_escaped(FILE *out, const char *s, size_t max);

#endif /* IPS2_DUMP_FIELDS_H */
