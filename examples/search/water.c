/*
 * water.c - a small Water (the thesis's Ch. 4 N-body program, SPLASH's
 * molecular dynamics) for the search workloads water-few.tcl and
 * water-many.tcl.  T threads share the molecules and run time steps for S
 * seconds of wall time (so that the search has as many samples to refine
 * with on a loaded machine as on an idle one); in each step a thread
 * computes its share of the intermolecular forces in
 * interf() (INTERF MS of its CPU, a real pairwise force sum repeated until
 * the time is used), adds its share of the potential energy into the
 * global sum under the static mutex potengsum_lock (poteng(): LOCKED MS of
 * CPU while holding it), and checks the box boundaries in bndry() (a
 * twentieth of INTERF, under no lock).  Once per ten steps it adds its
 * kinetic energy under kinetisum_lock (microseconds: a quiet lock).  The
 * threads do not meet at a barrier between steps (SPLASH's Water does), so
 * that the only waits are for the locks.
 * The main thread is one of the T threads, so that no thread only waits
 * in pthread_join (a join is a synchronisation wait in the tables).
 *
 *   water -threads T -seconds S -interf MS -locked MS
 *
 * Few threads (water-few: 2 threads, interf 18, locked 0.3): the threads
 * compute almost all the time.  Truth: cpuBound; no sync bottleneck.
 * Many threads (water-many: 8 threads, interf 2, locked 2): the sums under
 * potengsum_lock are serialised, 8 x 2 ms per step against 2 ms of
 * parallel work.  Truth: syncBottleneck / excessiveBlockingTime / hotSync
 * with the sync focus "mutex:potengsum_lock"; kinetisum_lock never
 * reported.  Exit status 0, 2 for bad usage.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "../workloads/cpuwork.h"
#include "../workloads/options.h"

#define MOLECULES 256

static pthread_mutex_t potengsum_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t kinetisum_lock = PTHREAD_MUTEX_INITIALIZER;

static double pos[MOLECULES][3], force[MOLECULES][3], moved[MOLECULES][3];
static double potential_energy, kinetic_energy;
static int threads = 2;
static long steps;
static double seconds = 3.0, deadline;
static double interf_ms = 18, locked_ms = 0.3;

__attribute__((no_instrument_function)) static double thread_cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Forces on molecules [first, last) from all others, summed again and
 * again until ms of this thread's CPU are used; returns the potential. */
__attribute__((noinline)) static double interf(int first, int last, double ms)
{
    double end = thread_cpu_ms() + ms, energy = 0;
    do {
        energy = 0;
        for (int i = first; i < last; i++) {
            for (int j = 0; j < MOLECULES; j++) {
                if (j == i)
                    continue;
                double d[3], r2 = 1e-3;
                for (int k = 0; k < 3; k++) {
                    d[k] = pos[i][k] - pos[j][k];
                    r2 += d[k] * d[k];
                }
                double inv6 = 1.0 / (r2 * r2 * r2);
                energy += inv6 * inv6 - inv6;
                for (int k = 0; k < 3; k++)
                    force[i][k] += d[k] * inv6 * 1e-9;
            }
        }
    } while (thread_cpu_ms() < end);
    return energy;
}

__attribute__((noinline)) static void poteng(double energy)
{
    pthread_mutex_lock(&potengsum_lock);
    burn_cpu(locked_ms);
    potential_energy += energy;
    pthread_mutex_unlock(&potengsum_lock);
}

__attribute__((noinline)) static void bndry(int first, int last)
{
    burn_cpu(interf_ms / 20.0);
    for (int i = first; i < last; i++)
        for (int k = 0; k < 3; k++)
            moved[i][k] = fmod(pos[i][k] + force[i][k] + 10.0, 10.0);
}

__attribute__((noinline)) static void kineti(int first, int last)
{
    double sum = 0;
    for (int i = first; i < last; i++)
        for (int k = 0; k < 3; k++)
            sum += force[i][k] * force[i][k];
    pthread_mutex_lock(&kinetisum_lock);
    kinetic_energy += sum;
    pthread_mutex_unlock(&kinetisum_lock);
}

static void *worker(void *arg)
{
    int index = (int)(long)arg;
    int first = index * MOLECULES / threads, last = (index + 1) * MOLECULES / threads;
    long s;
    for (s = 0; wall_s() < deadline; s++) {
        poteng(interf(first, last, interf_ms));
        bndry(first, last);
        if (s % 10 == 9)
            kineti(first, last);
    }
    pthread_mutex_lock(&kinetisum_lock);
    steps += s;
    pthread_mutex_unlock(&kinetisum_lock);
    return NULL;
}

int main(int argc, char **argv)
{
    const struct opt opts[] = {
        {"-threads", OPT_INT, &threads},
        {"-seconds", OPT_DOUBLE, &seconds},
        {"-interf", OPT_DOUBLE, &interf_ms},
        {"-locked", OPT_DOUBLE, &locked_ms},
    };
    if (READ_OPTIONS(argc, argv, opts) != 0 || threads < 1 || threads > 64 || seconds <= 0 ||
        interf_ms < 0 || locked_ms < 0) {
        fprintf(stderr, "usage: water -threads T (1-64) -seconds S -interf MS -locked MS\n");
        return 2;
    }
    for (int i = 0; i < MOLECULES; i++)
        for (int k = 0; k < 3; k++)
            pos[i][k] = (double)((i * 37 + k * 11) % 100) / 10.0;
    pthread_t tids[64];
    deadline = wall_s() + seconds;
    for (long i = 1; i < threads; i++)
        pthread_create(&tids[i], NULL, worker, (void *)i);
    worker((void *)0L);
    for (int i = 1; i < threads; i++)
        pthread_join(tids[i], NULL);
    printf("water: %d threads, %ld steps in all, potential %.3g, kinetic %.3g\n", threads, steps,
           potential_energy, kinetic_energy);
    return 0;
}
