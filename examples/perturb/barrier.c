/*
 * barrier.c - (b) two threads meet at a barrier every round.
 *
 * Thread "fine" does its round as calls of tiny() (fine_round), thread
 * "coarse" the same work plus 20% without calls (coarse_round), so that
 * untraced the coarse thread is the critical one and traced (raw) the
 * fine one, by far.  Each thread reads its CPU clock around each round;
 * main reports fine_round's total CPU ("ref work") and the critical path
 * by CPU time, the sum over rounds of the slower thread's round ("ref
 * cp").
 *
 *   barrier [ROUNDS [CALLS]]
 */
#include <pthread.h>

#include "perturb.h"

uint64_t perturb_sink;

#define MAX_ROUNDS 1000

static pthread_barrier_t bar;
static long rounds, calls;
static uint64_t took[2][MAX_ROUNDS];

__attribute__((noinline)) static uint64_t fine_round(uint64_t x)
{
    for (long i = 0; i < calls; i++)
        x = tiny(x + (uint64_t)i);
    return x;
}

__attribute__((noinline)) static uint64_t coarse_round(uint64_t x)
{
    return coarse(x, calls + calls / 5);
}

static void *thread_main(void *arg)
{
    int which = (int)(intptr_t)arg;
    uint64_t x = (uint64_t)which + 1;

    pthread_barrier_wait(&bar);
    for (long r = 0; r < rounds; r++) {
        uint64_t c0 = cpu_ns();
        x = which == 0 ? fine_round(x) : coarse_round(x);
        took[which][r] = cpu_ns() - c0;
        pthread_barrier_wait(&bar);
    }
    __atomic_fetch_add(&perturb_sink, x, __ATOMIC_RELAXED);
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t[2];

    rounds = arg(argc, argv, 1, 40);
    calls = arg(argc, argv, 2, 30000);
    if (rounds > MAX_ROUNDS)
        rounds = MAX_ROUNDS;
    pthread_barrier_init(&bar, NULL, 2);
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, thread_main, (void *)(intptr_t)i);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    uint64_t work = 0, cp = 0;
    for (long r = 0; r < rounds; r++) {
        work += took[0][r];
        cp += took[0][r] > took[1][r] ? took[0][r] : took[1][r];
    }
    ref("work", work);
    ref("cp", cp);
    return perturb_sink == 42;
}
