/*
 * export_internal.h - what the exporter's parts share: the session as
 * locations (session.c), the events handed to a writer, and the writers
 * (otf2.c, json.c, folded.c), each a table of callbacks.
 */
#ifndef IPS2_EXPORT_INTERNAL_H
#define IPS2_EXPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ips2_export.h"

#define EX_NONE UINT32_MAX

/* A table of strings, each once: its index is its id. */
struct ex_strings {
    char **v;
    size_t n, cap;
    uint32_t *slots; /* open addressing: id + 1, 0 empty */
    size_t nslots;
};
/* The id of s, added if new; EX_NONE when out of memory. */
uint32_t ex_string(struct ex_strings *t, const char *s);
void ex_strings_free(struct ex_strings *t);

/* A map of (a, b, c) -> value, each key once. */
struct ex_map_slot {
    uint64_t a, b, c;
    uint32_t v;
    bool used;
};
struct ex_map {
    struct ex_map_slot *slots;
    size_t n, cap;
};
/* The value of the key (*fresh: it was new, its value is v); NULL when
 * out of memory. */
uint32_t *ex_map_get(struct ex_map *m, uint64_t a, uint64_t b, uint64_t c, uint32_t v, bool *fresh);
void ex_map_free(struct ex_map *m);

struct ex_machine {
    char *name;
    char *dir;      /* SESSION/traces/NAME */
    char host[64];  /* from its streams' headers */
    int64_t offset; /* session time = CLOCK_MONOTONIC ns + offset */
};

/* A process image: an OTF2 location group, a JSON process. */
struct ex_group {
    uint32_t machine;
    int32_t pid;
    uint32_t image;
    uint32_t app; /* string */
    uint32_t exe; /* string */
};

/* A thread stream with events: an OTF2 location, a JSON thread. */
struct ex_thread {
    char *path;
    uint32_t group;
    int32_t tid;
    uint32_t k;      /* n-th later thread with a reused tid */
    uint32_t *peers; /* the partner location of its k-th message node, or EX_NONE */
    size_t npeers;
};

/* A PAG arc between two threads (JSON flows). */
struct ex_flow {
    uint32_t from, to; /* locations */
    uint16_t type;     /* enum ips2_pag_arc_type */
    int64_t t_from, t_to;
};

/* A segment of the critical path. */
struct ex_segment {
    uint32_t src, dst; /* locations (EX_NONE: not a location of ours) */
    uint16_t kind;     /* IPS2_CPA_SEG_CPU or an arc type */
    uint32_t name;     /* string: the procedure with most of a CPU segment's time, or
                          the dependence's kind */
    int64_t begin, end, length;
};

struct ex_session {
    const char *dir;
    int64_t start_real; /* CLOCK_REALTIME ns of time 0 */
    struct ex_strings strings;
    struct ex_machine *machines;
    size_t nmachines;
    struct ex_group *groups;
    size_t ngroups, cap_groups;
    struct ex_thread *threads;
    size_t nthreads, cap_threads;
    /* JSON only */
    struct ex_flow *flows;
    size_t nflows, cap_flows;
    struct ex_segment *segments;
    size_t nsegments;
    int64_t cp_length;
    ips2_export_warn_fn *warn; /* may be NULL */
    void *warn_arg;
};

enum ex_kind { EX_ENTER, EX_LEAVE, EX_SEND, EX_RECV, EX_ACQUIRE, EX_RELEASE };

struct ex_event {
    enum ex_kind kind;
    int64_t t;       /* session time, ns, never before the thread's previous event */
    uint64_t cpu;    /* the thread's CPU time, ns */
    uint32_t region; /* enter, leave: the procedure (string) */
    uint32_t peer;   /* send, recv: the partner's location, or EX_NONE */
    uint32_t tag;    /* send, recv: a PVM message's tag, else 0 */
    uint64_t bytes;  /* send, recv */
    uint32_t lock;   /* acquire, release: the lock (0, 1, ... in the session) */
    uint32_t order;  /* acquire, release: the release seq it names */
    bool shared;     /* acquire, release: a reader's hold of an rwlock */
};

struct ex_writer {
    int (*begin)(void *w, struct ex_session *s, const char *out, char *err, size_t errlen);
    int (*thread_begin)(void *w, uint32_t loc, char *err, size_t errlen);
    int (*event)(void *w, uint32_t loc, const struct ex_event *e, char *err, size_t errlen);
    /* the thread's last event: its time and CPU */
    int (*thread_end)(void *w, uint32_t loc, int64_t t, uint64_t cpu, char *err, size_t errlen);
    int (*finish)(void *w, struct ips2_export_counts *c, char *err, size_t errlen);
    /* frees what it holds, after finish or an error */
    void (*free)(void *w);
};

/* The writers: each returns its state (NULL when out of memory). */
void *ex_otf2_new(const struct ex_writer **ops);
void *ex_json_new(const struct ex_writer **ops);
void *ex_folded_new(const struct ex_writer **ops);

/* A JSON string (quotes and escapes). */
void ex_json_string(FILE *f, const char *s);

void ex_error(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif /* IPS2_EXPORT_INTERNAL_H */
