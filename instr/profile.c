/*
 * profile.c - the procedure entry/exit hooks that -finstrument-functions
 * calls, and the thread-local writer state they use.
 *
 * The hot path reads the timer, checks that the record fits below the
 * thread's limit and that no sync point is due, reserves two words and
 * stores them, word 0 last.  Everything else goes to ips2_emit_slow().
 * It touches neither errno nor any lock.
 */
#include "runtime.h"

__thread struct ips2_thread ips2_self __attribute__((tls_model("initial-exec")));

static inline __attribute__((always_inline)) void record_proc(unsigned kind, void *fn)
{
    struct ips2_thread *t = &ips2_self;
    uint64_t now = ips2_timer_now();
    uintptr_t p = t->cur;

    if (likely(p + 16 <= t->limit && now - t->last_sync < ips2_proc.sync_ticks)) {
        t->cur = p + 16;
        ips2_compiler_barrier();
        ips2_record_put((uint64_t *)p, kind, now, 0, 0, (uintptr_t)fn, NULL, 0);
        return;
    }
    ips2_emit_slow(t, kind, (uintptr_t)fn, NULL, 0);
}

IPS2_EXPORT void __cyg_profile_func_enter(void *fn, void *call_site)
{
    record_proc(IPS2_EV_ENTER, fn);
}

IPS2_EXPORT void __cyg_profile_func_exit(void *fn, void *call_site)
{
    record_proc(IPS2_EV_EXIT, fn);
}
