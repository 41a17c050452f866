/*
 * profile.c - the procedure entry/exit hooks that -finstrument-functions
 * calls, and the thread-local writer state they use.
 *
 * The hot path reads the timer and writes one short record (one word:
 * the timer's delta from the last sync point and the address's offset from
 * the thread's address base, see ips2_format.h) when the record fits below
 * the thread's limit, no sync point is due and the address is within 4 GiB
 * of the base.  Everything else goes to ips2_emit_slow(), which writes a
 * long record.  The hot path touches neither errno nor any lock.
 */
#include "runtime.h"

__thread struct ips2_thread ips2_self __attribute__((tls_model("initial-exec")));

static inline __attribute__((always_inline)) void record_proc(unsigned kind, unsigned short_kind,
                                                              void *fn)
{
    struct ips2_thread *t = &ips2_self;
    uint64_t delta = ips2_timer_now() - t->last_sync;
    uint64_t offset = (uintptr_t)fn - t->addr_base;
    uintptr_t p = t->cur;

    if (likely(p + 8 <= t->limit && delta < ips2_proc.hot_ticks && offset <= UINT32_MAX)) {
        t->cur = p + 8;
        ips2_compiler_barrier();
        *(uint64_t *)p = IPS2_SHORT_WORD(short_kind, delta, offset);
        return;
    }
    ips2_emit_slow(t, kind, (uintptr_t)fn, NULL, 0, IPS2_CPU_DERIVED);
}

IPS2_EXPORT void __cyg_profile_func_enter(void *fn, void *call_site)
{
    record_proc(IPS2_EV_ENTER, IPS2_EV_ENTER_SHORT, fn);
}

IPS2_EXPORT void __cyg_profile_func_exit(void *fn, void *call_site)
{
    record_proc(IPS2_EV_EXIT, IPS2_EV_EXIT_SHORT, fn);
}
