/*
 * slave_clock.c - ips2slave's clock (slave_clock.h).
 *
 * At CONFIG the slave pings its master SLAVE_CLOCK_EXCHANGES times, one at
 * a time: t0 before the send, the master's reception and answer times t1
 * and t2 in the answer, t3 when it came.  The exchange with the least
 * round trip gives the offset (traces/clocks.c).  The pings go before
 * HELLO, so the master is in its event loop with nothing else to say yet;
 * the slave waits for each answer by tag, so that the master's other
 * messages (PROCESS, GO) stay queued for the main loop.  The first answer
 * may take long (a master adding hosts over ssh does not answer meanwhile;
 * its delay is in that exchange's round trip, which the estimate then
 * passes over); a master that does not answer at all costs one wait and a
 * problem, and the machine goes uncorrected.
 */
#include <errno.h>
#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "ips2_proto.h"
#include "slave_clock.h"

#define SLAVE_CLOCK_EXCHANGES 16
/* for one answer: the first may wait for a master busy adding hosts (ssh) */
#define SLAVE_CLOCK_FIRST_WAIT_S 30
#define SLAVE_CLOCK_WAIT_S       5

int slave_clock_knob(const char *machine, char *err, size_t errlen)
{
    const char *list = getenv(IPS2_TEST_CLOCKS_ENV);
    size_t mlen = strlen(machine);
    if (list == NULL)
        return 0;
    for (const char *p = list; *p != '\0';) {
        p += strspn(p, " \t\n,");
        if (*p == '\0')
            break;
        size_t n = strcspn(p, " \t\n,");
        const char *eq = memchr(p, '=', n);
        char *end;
        long long v = eq ? strtoll(eq + 1, &end, 10) : 0;
        if (eq == NULL || end != p + n || eq + 1 == end || v > IPS2_CLOCK_MAX_NS ||
            v < -IPS2_CLOCK_MAX_NS) {
            snprintf(err, errlen, "%s: expected MACHINE=NS words, found \"%.*s\"",
                     IPS2_TEST_CLOCKS_ENV, (int)n, p);
            return -1;
        }
        if ((size_t)(eq - p) == mlen && memcmp(p, machine, mlen) == 0) {
            char value[32];
            snprintf(value, sizeof value, "%lld", v);
            setenv(IPS2_TEST_CLOCK_ENV, value, 1);
            /* PVM tasks the slave spawns get it too */
            const char *exp = getenv("PVM_EXPORT");
            char buf[4096];
            if (exp == NULL || exp[0] == '\0')
                setenv("PVM_EXPORT", IPS2_TEST_CLOCK_ENV, 1);
            else if (strstr(exp, IPS2_TEST_CLOCK_ENV) == NULL &&
                     (size_t)snprintf(buf, sizeof buf, "%s:%s", exp, IPS2_TEST_CLOCK_ENV) <
                         sizeof buf)
                setenv("PVM_EXPORT", buf, 1);
        }
        p += n;
    }
    return 0;
}

int64_t slave_clock_real_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + ips2_test_clock_offset();
}

static int exchange(int master, int32_t seq, struct ips2_clock_sample *s)
{
    struct timeval wait = {seq == 0 ? SLAVE_CLOCK_FIRST_WAIT_S : SLAVE_CLOCK_WAIT_S, 0};
    int rc;
    if ((rc = pvm_initsend(PvmDataDefault)) < 0 || (rc = ips2_pk_i32(seq)) < 0)
        return rc;
    s->t0 = slave_clock_real_ns();
    if ((rc = pvm_send(master, IPS2_TAG_CLOCK_PING)) < 0)
        return rc;
    for (;;) {
        int buf = pvm_trecv(master, IPS2_TAG_CLOCK_PONG, &wait);
        s->t3 = slave_clock_real_ns();
        if (buf <= 0)
            return buf < 0 ? buf : PvmNoData;
        int32_t got = -1;
        if ((rc = ips2_upk_i32(&got)) < 0 || (rc = ips2_upk_i64(&s->t1)) < 0 ||
            (rc = ips2_upk_i64(&s->t2)) < 0)
            return rc;
        if (got == seq) /* an older answer that came late is passed over */
            return 0;
    }
}

int slave_clock_measure(int master, const char *trace_dir, struct ips2_clock_est *e, char *err,
                        size_t errlen)
{
    struct ips2_clock_sample s[SLAVE_CLOCK_EXCHANGES];
    int n = 0, rc = 0;
    for (int i = 0; i < SLAVE_CLOCK_EXCHANGES && rc >= 0; i++)
        if ((rc = exchange(master, i, &s[n])) >= 0)
            n++;
    if (ips2_clock_estimate(s, (size_t)n, e) < 0) {
        snprintf(err, errlen, "clock offset not measured: %s",
                 n == 0 ? "the master did not answer" : "no usable exchange");
        return -1;
    }
    mkdir(trace_dir, 0777); /* the runner makes it; the estimate may come first */
    if (ips2_clock_write(trace_dir, e, err, errlen) < 0)
        return -1;
    if ((rc = pvm_initsend(PvmDataDefault)) < 0 || (rc = ips2_pk_i64(e->offset)) < 0 ||
        (rc = ips2_pk_i64(e->error)) < 0 || (rc = ips2_pk_i64(e->rtt)) < 0 ||
        (rc = ips2_pk_u32(e->samples)) < 0 || (rc = pvm_send(master, IPS2_TAG_CLOCK)) < 0) {
        snprintf(err, errlen, "cannot send the clock offset: PVM error %d", rc);
        return -1;
    }
    return 0;
}
