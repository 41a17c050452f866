/*
 * pag_build.h - building one part of the PAG in the reduction's single
 * streaming pass (slave/reduce*.c drives it; cpa/PAG.md has the rules).
 *
 * The reduction reads one process image after another and, in each, one
 * thread stream after another.  It tells the builder where it is
 * (image, thread), hands it every event other than procedure entry and
 * exit with its session time, the thread's CPU time and the procedure on
 * top of the stack, and at each node the CPU per procedure since the
 * previous node (through a callback that calls pag_share).  Procedures are
 * the reduction's local indices in the thread (0: none) until the thread
 * ends, when pag_thread_end names them.  Nothing here knows the
 * reduction's types: the slave library links this one, not the reverse.
 */
#ifndef IPS2_CPA_PAG_BUILD_H
#define IPS2_CPA_PAG_BUILD_H

#include <stdbool.h>
#include <stdint.h>

#include "ips2_pag.h"
#include "ips2_reader.h"

struct pag_builder;

/* A new builder folds its part when it finishes (PAG.md §5) unless the
 * environment has IPS2_PAG_FOLD=0 (for tests that compare both);
 * IPS2_PAG_FOLD=messages folds but keeps every message's node (an
 * exporter's parts: pag_message_node). */
struct pag_builder *pag_builder_new(void);
/* Folding on (the default) or off. */
void pag_builder_set_fold(struct pag_builder *b, bool fold);
/* Whether pag_builder_finish gives the part with its shares compressed in
 * memory (pag->lazy: ips2_pag_write copies them, ips2_pag_shares_each
 * streams them), so that the build never holds them inflated; the default
 * (false) inflates them into pag->shares. */
void pag_builder_set_lazy(struct pag_builder *b, bool lazy);
void pag_builder_free(struct pag_builder *b);

/* A process image begins (its thread streams follow) and ends.  ppid: the
 * header's; exit_*: what its process stream recorded (exit_seen 0: none). */
void pag_image_begin(struct pag_builder *b, const char *app, const char *exe, int32_t pid,
                     uint32_t image, uint32_t ppid);
void pag_image_end(struct pag_builder *b, int exit_seen, int32_t exit_how, int64_t exit_t);

/* A thread stream begins. */
void pag_thread_begin(struct pag_builder *b, int32_t tid);
/* The stream gave nothing: the thread is dropped. */
void pag_thread_drop(struct pag_builder *b);

/* Called when a node is made: calls pag_share for every procedure that
 * used CPU since the previous node (and starts counting afresh). */
typedef void pag_shares_fn(void *arg, struct pag_builder *b);
void pag_share(struct pag_builder *b, uint32_t local_proc, uint64_t cpu);

/* Which extra word of ev holds its call's start timer (the field with the
 * role IPS2_ROLE_START in ips2_fields.h's table), or -1 (the caller turns
 * it into session time for pag_event's ws). */
int pag_start_word(const struct ips2_event *ev);

/* True when ev is a message that makes a node (PAG.md §1): a send, recv,
 * dgram-send or dgram-recv that moved data, a pvm-send or pvm-recv that
 * succeeded.  A part unfolded, or folded keeping messages
 * (IPS2_PAG_FOLD=messages), has one node of the event's kind for each,
 * in its thread's order, so the k-th such event of a thread stream is
 * the k-th message node of its thread, and the part's arcs give its
 * partner: an exporter reads the pairing so. */
bool pag_message_node(const struct ips2_event *ev);
/* A node kind that pag_message_node's events make (a message's end). */
bool pag_message_kind(unsigned kind);

/* An event at session time t, thread CPU c, procedure `top` on top of the
 * stack; ws: its call's start (session time), or INT64_MIN. */
void pag_event(struct pag_builder *b, const struct ips2_event *ev, int64_t t, uint64_t c,
               int64_t ws, uint32_t top, pag_shares_fn *shares, void *arg);

/* Names a local procedure (NULL: no procedure). */
typedef const char *pag_name_fn(void *arg, uint32_t local_proc);

/* The thread's stream ended; (t, c): its last event. */
void pag_thread_end(struct pag_builder *b, int64_t t, uint64_t c, uint32_t top,
                    pag_shares_fn *shares, void *arg, pag_name_fn *name, void *name_arg);

/* Pairs what pairs inside the part and gives it (*out, the caller's);
 * the builder is left empty.  0, or -1 with err (out of memory). */
int pag_builder_finish(struct pag_builder *b, const char *machine, const char *trace_dir,
                       struct ips2_pag **out, char *err, size_t errlen);

#endif /* IPS2_CPA_PAG_BUILD_H */
