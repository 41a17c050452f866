/*
 * hotlock.c - planted: one hot lock among three quiet ones (search workload
 * hotlock.tcl).  T threads run rounds for S seconds of wall time; in every
 * round a thread holds the static mutex hot_lock for HOLD ms of its CPU
 * (update_shared()), then computes 0.5 ms outside any lock (local_work()).  With T = 4 the hot lock
 * is held nearly all the time and three threads out of four wait for it.
 * The decoys, static mutexes that are never waited for long:
 *   quiet_stats   taken every 10th round for 20 us (record_stats());
 *   quiet_log     taken every 25th round for 20 us (log_progress());
 *   quiet_config  taken once per thread at its start (read_config()).
 *
 *   hotlock -threads T -seconds S -hold MS
 *
 * Truth: syncBottleneck / excessiveBlockingTime / hotSync with the sync
 * focus "mutex:hot_lock"; none of quiet_stats, quiet_log, quiet_config
 * reported.  Exit status 0, 2 for bad usage.
 * The main thread is one of the T threads, so that no thread only waits
 * in pthread_join (a join is a synchronisation wait in the tables).
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "../workloads/cpuwork.h"
#include "../workloads/options.h"

static pthread_mutex_t hot_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t quiet_stats = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t quiet_log = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t quiet_config = PTHREAD_MUTEX_INITIALIZER;

static long shared_total, stats_count, log_count, config_reads;
static double seconds = 3.0, hold_ms = 2.0, deadline;

__attribute__((noinline)) static void read_config(void)
{
    pthread_mutex_lock(&quiet_config);
    config_reads++;
    pthread_mutex_unlock(&quiet_config);
}

__attribute__((noinline)) static void update_shared(void)
{
    pthread_mutex_lock(&hot_lock);
    burn_cpu(hold_ms);
    shared_total++;
    pthread_mutex_unlock(&hot_lock);
}

__attribute__((noinline)) static void local_work(void)
{
    burn_cpu(0.5);
}

__attribute__((noinline)) static void record_stats(void)
{
    pthread_mutex_lock(&quiet_stats);
    burn_cpu(0.02);
    stats_count++;
    pthread_mutex_unlock(&quiet_stats);
}

__attribute__((noinline)) static void log_progress(void)
{
    pthread_mutex_lock(&quiet_log);
    burn_cpu(0.02);
    log_count++;
    pthread_mutex_unlock(&quiet_log);
}

static void *worker(void *arg)
{
    (void)arg;
    read_config();
    for (int r = 1; wall_s() < deadline; r++) {
        update_shared();
        local_work();
        if (r % 10 == 0)
            record_stats();
        if (r % 25 == 0)
            log_progress();
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = 4;
    const struct opt opts[] = {
        {"-threads", OPT_INT, &threads},
        {"-seconds", OPT_DOUBLE, &seconds},
        {"-hold", OPT_DOUBLE, &hold_ms},
    };
    if (READ_OPTIONS(argc, argv, opts) != 0 || threads < 2 || threads > 64 || seconds <= 0 ||
        hold_ms < 0) {
        fprintf(stderr, "usage: hotlock -threads T (2-64) -seconds S -hold MS\n");
        return 2;
    }
    pthread_t tids[64];
    deadline = wall_s() + seconds;
    for (int i = 1; i < threads; i++)
        pthread_create(&tids[i], NULL, worker, NULL);
    worker(NULL);
    for (int i = 1; i < threads; i++)
        pthread_join(tids[i], NULL);
    printf("hotlock: %ld updates, %ld stats, %ld logs, %ld config reads\n", shared_total,
           stats_count, log_count, config_reads);
    return 0;
}
