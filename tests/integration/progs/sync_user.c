/*
 * sync_user.c - home-made synchronisation marked through ips2.h: the
 * simulator pattern.  Threads spin on shared counters: a sense-reversing
 * barrier and a test-and-set lock, no pthread objects at all.
 *
 *   sync_user [threads] [episodes]     (default 3 threads, 40 episodes)
 *
 * First a hand-over that certainly spins: main holds the lock until a
 * contender has spun for 2 ms of CPU time.  Then each episode: work a
 * varying while, take the lock once, meet at the barrier.  Builds with a
 * plain compiler too (ips2.h's calls then do nothing).  Prints
 * "episodes <n> locks <n>" (the hand-over adds 2 locks).
 */
#include <ips2.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "sync_gate.h"

struct spin_barrier {
    atomic_uint arrived;
    atomic_uint sense;
    unsigned parties;
};

static struct spin_barrier barrier;
static atomic_int lock;
static long locks;
static int episodes = 40;

static void lock_take(atomic_int *l)
{
    if (atomic_exchange(l, 1) != 0) {
        ips2_lock_wait_begin(l);
        while (atomic_load(l) != 0 || atomic_exchange(l, 1) != 0)
            ;
    }
    ips2_lock_acquired(l);
}

static void lock_give(atomic_int *l)
{
    ips2_lock_release(l);
    atomic_store(l, 0);
}

static void barrier_wait(struct spin_barrier *b, unsigned *local_sense)
{
    *local_sense = !*local_sense;
    ips2_barrier_arrive(b, b->parties);
    if (atomic_fetch_add(&b->arrived, 1) + 1 == b->parties) {
        atomic_store(&b->arrived, 0);
        atomic_store(&b->sense, *local_sense);
    } else {
        while (atomic_load(&b->sense) != *local_sense)
            ;
    }
    ips2_barrier_depart(b);
}

static void *worker(void *arg)
{
    unsigned seed = (unsigned)(long)arg * 7919u + 1, sense = 0;

    for (int e = 0; e < episodes; e++) {
        seed = seed * 1103515245u + 12345u;
        work(1000 + (seed >> 16) % 20000);
        lock_take(&lock);
        locks++;
        work(200);
        lock_give(&lock);
        barrier_wait(&barrier, &sense);
    }
    return NULL;
}

static void take(void)
{
    lock_take(&lock);
    locks++;
}

static void give(void)
{
    lock_give(&lock);
}

/* main holds the lock until the contender has spun for 2 ms. */
static const struct gate_lock hand_over = {take, give, 0};

int main(int argc, char **argv)
{
    int nthreads = 3;
    pthread_t th[64];

    if (gate_args(argc, argv, &nthreads, &episodes) != 0)
        return 2;
    barrier.parties = (unsigned)nthreads;
    ips2_object_name(&barrier, "step barrier");
    ips2_object_name(&lock, "state lock");
    gate_hand_over(&hand_over);
    for (int i = 0; i < nthreads; i++)
        pthread_create(&th[i], NULL, worker, (void *)(long)i);
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    printf("episodes %d locks %ld\n", episodes, locks);
    return 0;
}
