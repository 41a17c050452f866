/*
 * signals.c - record death by a signal without changing signal behaviour.
 *
 * For each signal whose default action ends the process and whose
 * disposition is still the default, libips2 installs a handler that
 * records PROC_EXIT (how = signal), seals the streams, restores the
 * default action and raises the signal again; the process dies of it just
 * as it would have.  sigaction() and signal() are wrapped so that a program
 * installing its own handler simply replaces ours, and a program asking
 * for the current disposition is told SIG_DFL where ours stands.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "runtime.h"

static const int fatal_signals[] = {
    SIGHUP,  SIGINT,  SIGQUIT, SIGILL,  SIGABRT, SIGBUS,    SIGFPE,  SIGUSR1, SIGSEGV,   SIGUSR2,
    SIGPIPE, SIGALRM, SIGTERM, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGSYS,  SIGSTKFLT, SIGPWR,
};

static volatile sig_atomic_t ours[NSIG];

static int real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    return IPS2_REAL(sigaction)(sig, act, old);
}

static void restore_default(int sig)
{
    struct sigaction dfl;

    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    real_sigaction(sig, &dfl, NULL);
    ours[sig] = 0;
}

static void on_fatal_signal(int sig)
{
    int saved_errno = errno;

    ips2_process_end(IPS2_EXIT_SIGNAL, sig, 1);
    restore_default(sig);
    raise(sig); /* pending until this handler returns: then it kills */
    errno = saved_errno;
}

void ips2_signals_install(void)
{
    struct sigaction sa, old;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
        int sig = fatal_signals[i];
        if (real_sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_DFL &&
            !(old.sa_flags & SA_SIGINFO) && real_sigaction(sig, &sa, NULL) == 0)
            ours[sig] = 1;
    }
}

IPS2_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    int rc = real_sigaction(sig, act, old);

    /* What stood there is judged by the handler itself, not by ours[]:
     * sigset() and sysv_signal() replace it through libc's internal call. */
    if (rc == 0 && old != NULL && !(old->sa_flags & SA_SIGINFO) &&
        old->sa_handler == on_fatal_signal) {
        memset(old, 0, sizeof(*old));
        old->sa_handler = SIG_DFL;
    }
    if (rc == 0 && act != NULL && sig > 0 && sig < NSIG)
        ours[sig] = 0;
    return rc;
}

IPS2_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
    struct sigaction sa, old;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = handler;
    sa.sa_flags = SA_RESTART; /* glibc's signal() has BSD semantics */
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, sig > 0 && sig < NSIG ? sig : 0);
    if (sigaction(sig, &sa, &old) != 0)
        return SIG_ERR;
    return old.sa_handler;
}
