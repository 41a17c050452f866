/*
 * vfork.c - vfork, which a C wrapper cannot interpose.
 *
 * A vfork child runs on the parent's stack until it execs or exits, so a
 * wrapper that returns into its caller in the child has its own frame
 * overwritten before the parent returns through it.  The wrapper is
 * therefore a few instructions of assembly, like libc's own vfork: it
 * keeps its return address in a register across the system call, and the
 * parent then tail-calls C code with a fresh frame.
 *
 * The child also shares the parent's memory and thread-local state: its
 * events would land in the parent's stream as the parent's.  So, before
 * the system call, the calling thread's writer is made busy (ips2_self.busy,
 * its window limit 0): in the child every wrapper passes through and every
 * procedure record is dropped, until it execs (an instrumented image then
 * starts its own trace) or exits.  The exec functions are looked up first,
 * so that the child never runs dlsym.  When the parent resumes, the writer
 * is restored, the child's dropped records are forgotten (they are not the
 * parent's losses), and the parent records VFORK with the child's pid and
 * the timer taken before the call: the parent was suspended for the child
 * from then until it exec'd or exited.
 *
 * x86-64 only; elsewhere vfork is not wrapped and goes untraced.
 */
#include <errno.h>
#include <unistd.h>

#include "children.h"
#include "runtime.h"

#if defined(__x86_64__)

/* The calling thread's writer state, kept while the child runs. */
static __thread struct {
    int busy;
    uint64_t lost;
    uintptr_t limit;
    uint64_t start;
} before_vfork __attribute__((tls_model("initial-exec")));

/* Called by the stub before the system call. */
__attribute__((used)) void ips2_vfork_enter(void)
{
    struct ips2_thread *t = &ips2_self;

    ips2_exec_prepare();
    before_vfork.busy = t->busy;
    before_vfork.lost = t->lost;
    before_vfork.limit = t->limit;
    before_vfork.start = ips2_timer_now();
    t->busy = 1;
    t->limit = 0;
}

/* Tail-called by the stub in the parent with the system call's result
 * (a pid or -errno); returns what vfork returns. */
__attribute__((used)) pid_t ips2_vfork_leave(long result)
{
    struct ips2_thread *t = &ips2_self;
    pid_t pid = result < 0 ? -1 : (pid_t)result;
    int err = result < 0 ? (int)-result : 0;

    t->busy = before_vfork.busy;
    t->lost = before_vfork.lost;
    t->limit = before_vfork.limit;
    if (!ips2_children_untraced()) {
        uint64_t extra[2] = {(uint64_t)err, before_vfork.start};
        ips2_emit_slow(t, IPS2_EV_VFORK, pid > 0 ? (uint64_t)pid : 0, extra, 2, IPS2_CPU_READ);
    }
    if (pid < 0)
        errno = err;
    return pid;
}

/* pid_t vfork(void): the return address waits in %rdi, which the system
 * call preserves (it clobbers only %rcx and %r11); the child returns 0
 * straight to the caller. */
__asm__(".text\n"
        ".globl vfork\n"
        ".type vfork, @function\n"
        "vfork:\n"
        "    .cfi_startproc\n"
        "    endbr64\n"
        "    subq $8, %rsp\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    call ips2_vfork_enter\n"
        "    addq $8, %rsp\n"
        "    .cfi_adjust_cfa_offset -8\n"
        "    popq %rdi\n"
        "    .cfi_adjust_cfa_offset -8\n"
        "    .cfi_register %rip, %rdi\n"
        "    movl $58, %eax\n" /* SYS_vfork */
        "    syscall\n"
        "    pushq %rdi\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    .cfi_rel_offset %rip, 0\n"
        "    testq %rax, %rax\n"
        "    jz 1f\n"
        "    movq %rax, %rdi\n"
        "    jmp ips2_vfork_leave\n"
        "1:  ret\n"
        "    .cfi_endproc\n"
        ".size vfork, .-vfork\n");

#endif /* __x86_64__ */
