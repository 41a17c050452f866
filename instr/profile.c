/*
 * profile.c - the procedure entry/exit hooks that -finstrument-functions
 * calls, and the thread-local writer state they use.
 *
 * The hot path reads the timer and writes one short record (one word:
 * the timer's delta from the last sync point and the address's offset from
 * the thread's address base, see ips2_format.h) when the record fits below
 * the thread's limit, no sync point is due and the address is within 4 GiB
 * of the base.  Everything else goes to ips2_emit_slow(), which writes a
 * long record.  The hot path touches neither errno nor any lock.  With a
 * filter (filter.c), the hooks first ask whether the call is counted only;
 * that test is the one the TSC test was (ips2_proc.hook_slow), so a
 * program without a filter pays nothing for it.
 *
 * The exit hook runs after the procedure's last statement, and for a
 * procedure that ends without a return statement (a K&R main that falls
 * off its end) the caller reads whatever %rax holds: untraced, what the
 * procedure's last call left there.  So on x86-64 the exported exit hook
 * is a few instructions of assembly that keep %rax and %rdx around the C
 * hook, which would leave its record word there (main then "returned" 18).
 */
#include "runtime.h"

__thread struct ips2_thread ips2_self __attribute__((tls_model("initial-exec")));

/* The hooks' other path: a timer other than the TSC, or a filter. */
static __attribute__((noinline)) void proc_slow(unsigned kind, unsigned short_kind, void *fn)
{
    if (ips2_filtering && (kind == IPS2_EV_ENTER ? ips2_filter_enter((uintptr_t)fn)
                                                 : ips2_filter_exit((uintptr_t)fn)))
        return;
    ips2_record_proc(kind, short_kind, (uintptr_t)fn, ips2_timer_now());
}

/* ips2_proc.hook_slow folds "not the TSC" and "a filter" into the one test
 * the hot path made before filters existed. */
static inline __attribute__((always_inline)) void record_proc(unsigned kind, unsigned short_kind,
                                                              void *fn)
{
#if defined(__x86_64__) || defined(__i386__)
    if (likely(!ips2_proc.hook_slow)) {
        ips2_record_proc(kind, short_kind, (uintptr_t)fn, __builtin_ia32_rdtsc());
        return;
    }
#endif
    proc_slow(kind, short_kind, fn);
}

IPS2_EXPORT void __cyg_profile_func_enter(void *fn, void *call_site)
{
    record_proc(IPS2_EV_ENTER, IPS2_EV_ENTER_SHORT, fn);
}

#if defined(__x86_64__)

__attribute__((visibility("hidden"))) void ips2_func_exit(void *fn);

void ips2_func_exit(void *fn)
{
    record_proc(IPS2_EV_EXIT, IPS2_EV_EXIT_SHORT, fn);
}

/* __cyg_profile_func_exit(fn, call_site): ips2_func_exit(fn) with the
 * return registers as they were (two pushes and 8 bytes keep the stack
 * 16-byte aligned at the call). */
__asm__(".text\n"
        ".globl __cyg_profile_func_exit\n"
        ".type __cyg_profile_func_exit, @function\n"
        "__cyg_profile_func_exit:\n"
        "    .cfi_startproc\n"
        "    push %rax\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    push %rdx\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    sub $8, %rsp\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    call ips2_func_exit\n"
        "    add $8, %rsp\n"
        "    .cfi_adjust_cfa_offset -8\n"
        "    pop %rdx\n"
        "    .cfi_adjust_cfa_offset -8\n"
        "    pop %rax\n"
        "    .cfi_adjust_cfa_offset -8\n"
        "    ret\n"
        "    .cfi_endproc\n"
        ".size __cyg_profile_func_exit, .-__cyg_profile_func_exit\n");

#else

IPS2_EXPORT void __cyg_profile_func_exit(void *fn, void *call_site)
{
    record_proc(IPS2_EV_EXIT, IPS2_EV_EXIT_SHORT, fn);
}

#endif
