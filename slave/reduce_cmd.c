/*
 * reduce_cmd.c - ips2-reduce: reduce a trace directory (or read a
 * reductions file) and print a summary; for debugging and for
 * bench/run-reduce.
 *
 *   ips2-reduce [--machine NAME] [--session-start NS] [--phase START END]
 *               [--interval MS] [--clones] [-o FILE] [--quiet | --tsv] [--progress] DIR
 *   ips2-reduce [--tsv] --read FILE
 *   ips2-reduce --read-pag FILE [--match]
 *
 * --pag FILE also builds the directory's part of the PAG (cpa/PAG.md) and
 * writes it; --read-pag prints a part's counts (nodes by kind, arcs by
 * type, ends by role) and its warnings, after pairing its own ends with
 * each other (--match: what the master does for a one-machine session).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "ips2_file.h"
#include "ips2_pag.h"
#include "ips2_reader.h"
#include "ips2_reductions.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: ips2-reduce [--machine NAME] [--session-start NS] [--phase START END]\n"
            "                   [--interval MS] [-o FILE] [--pag FILE] [--quiet | --tsv]\n"
            "                   [--clones] [--times raw|compensated] [--progress] DIR\n"
            "       ips2-reduce [--tsv] --read FILE\n"
            "       ips2-reduce --read-pag FILE [--match]\n"
            "  DIR                 a machine's trace directory (raw and/or packed streams)\n"
            "  --machine NAME      the machine's name to record (default: empty)\n"
            "  --session-start NS  CLOCK_REALTIME ns of session time 0 (default 0: times\n"
            "                      are ns since the epoch)\n"
            "  --phase START END   reduce only session times [START, END) ns\n"
            "  --interval MS       histogram sample interval (default 100)\n"
            "  --clones            a compiler's clones (f.constprop.0) as procedures of their\n"
            "                      own, not counted under their source name (f)\n"
            "  --times T           raw: times as recorded; compensated: the probes' calibrated\n"
            "                      cost removed (default: $IPS2_TIMES, else raw)\n"
            "  -o FILE             write the reductions file\n"
            "  --quiet             print only the line with events and events/s\n"
            "  --tsv               print every row, tab-separated (\"#\" lines name the columns)\n"
            "  --progress          print progress on stderr\n"
            "  --read FILE         decode a reductions file and print its summary\n"
            "  --pag FILE          also build the PAG part and write it to FILE\n"
            "  --read-pag FILE     decode a PAG part and print its counts and warnings\n"
            "  --match             with --read-pag: pair the part's ends with each other first\n");
}

static int64_t number(const char *s, const char *what)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);

    if (errno || *end || end == s) {
        fprintf(stderr, "ips2-reduce: %s: expected an integer, found \"%s\"\n", what, s);
        exit(2);
    }
    return v;
}

static double ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

static const char *str(const struct ips2_reductions *r, uint32_t i)
{
    return i < r->nstrings ? r->strings[i] : "-";
}

/* One line per lock hold row (thread, object, procedure), in both
 * outputs: pid, image, tid, kind, object, procedure, acquisitions, hold
 * ns, name. */
static void print_holds(const struct ips2_reductions *r)
{
    for (size_t i = 0; i < r->nholds; i++) {
        const struct ips2_red_hold *h = &r->holds[i];
        const struct ips2_red_object *o = &r->objects[h->object];
        const struct ips2_red_thread *t = &r->threads[o->thread];
        const struct ips2_red_process *p = &r->processes[t->process];
        printf("hold\t%u\t%u\t%u\t%u\t0x%" PRIx64 "\t%s\t%" PRIu64 "\t%" PRIu64 "\t%s\n", p->pid,
               p->image, t->tid, o->kind, o->id,
               h->proc == IPS2_RED_NONE ? "-" : str(r, r->procs[h->proc].name), h->acquisitions,
               h->hold_ns, o->name == IPS2_RED_NONE ? "" : str(r, o->name));
    }
}

static void print_summary(const struct ips2_reductions *r)
{
    printf("machine %s host %s: %zu processes, %zu threads, %zu procedures, %zu arcs, %zu "
           "histograms, %" PRIu64 " events, %" PRIu64 " trace bytes\n",
           str(r, r->machine), str(r, r->host), r->nprocesses, r->nthreads, r->nprocs, r->narcs,
           r->nhists, r->events, r->trace_bytes);
    for (size_t i = 0; i < r->nprocesses; i++) {
        const struct ips2_red_process *p = &r->processes[i];
        printf("process %u.%u (%s) %s: ", p->pid, p->image, str(r, p->app), str(r, p->exe));
        if (p->exit_how < 0)
            printf("no exit");
        else if (p->exit_how == IPS2_EXIT_SIGNAL)
            printf("signal %d", p->exit_status);
        else if (p->exit_how == IPS2_EXIT_EXEC)
            printf("exec");
        else
            printf("exit %d", p->exit_status);
        printf(", %.3f ms%s%s\n", ms((uint64_t)(p->end_ns - p->start_ns)),
               p->problem != IPS2_RED_NONE ? ": " : "",
               p->problem != IPS2_RED_NONE ? str(r, p->problem) : "");
        for (uint32_t t = p->first_thread; t < p->first_thread + p->nthreads; t++) {
            const struct ips2_red_thread *th = &r->threads[t];
            printf("  thread %u (seq %" PRIu64 "): cpu %.3f ms, wall %.3f ms, calls %" PRIu64
                   ", sync wait %.3f ms\n",
                   th->tid, th->create_seq, ms(th->m[IPS2_M_CPU]), ms(th->m[IPS2_M_WALL]),
                   th->m[IPS2_M_CALLS], ms(th->m[IPS2_M_SYNC_WAIT]));
            printf("    %-28s %12s %12s %12s\n", "procedure", "calls", "self ms", "incl ms");
            for (uint32_t k = th->first_proc; k < th->first_proc + th->nprocs; k++) {
                const struct ips2_red_proc *pr = &r->procs[k];
                printf("    %-28s %12" PRIu64 " %12.3f %12.3f\n", str(r, pr->name),
                       pr->m[IPS2_M_CALLS], ms(pr->m[IPS2_M_CPU]), ms(pr->incl_cpu));
            }
        }
    }
    print_holds(r);
    printf("times %s: probes %.3f ms, a call's %.1f ns\n", ips2_times_name(r->times),
           ms(r->probe_ns), r->call_cost_ps / 1e3);
    for (size_t i = 0; i < r->nproblems; i++)
        printf("problem: %s\n", str(r, r->problems[i]));
}

/* The reductions as tab-separated rows, for scripts and tests; the first
 * field names the row, "#" lines name the columns. */
static void print_tsv(const struct ips2_reductions *r)
{
    printf("# machine\tNAME\tHOST\tEVENTS\tTRACE_BYTES\tPHASE_START\tPHASE_END\tINTERVAL\n");
    printf("# process\tPID\tIMAGE\tPPID\tAPP\tEXE\tEXIT_HOW\tEXIT_STATUS\tSTART\tEND\tPROBLEM\n");
    printf("# thread\tPID\tIMAGE\tTID\tCREATE_SEQ\tSTART\tEND");
    for (unsigned m = 0; m < IPS2_M_COUNT; m++)
        printf("\t%s", ips2_metric_name(m));
    printf("\n# proc\tPID\tIMAGE\tTID\tNAME\tINCL_CPU\tINCL_WALL");
    for (unsigned m = 0; m < IPS2_M_COUNT; m++)
        printf("\t%s", ips2_metric_name(m));
    printf("\n# arc\tPID\tIMAGE\tTID\tCALLER\tCALLEE\tCOUNT\tCHILD_CPU\n");
    printf("# hist\tPID\tIMAGE\tTID\tPROC\tMETRIC\tSTART\tWIDTH\tBUCKETS\tSUM\tVALUES\n");
    printf("# object\tPID\tIMAGE\tTID\tKIND\tID\tWAITS\tWAIT_NS\tSPIN_NS\tNAME\n");
    printf("# ohist\tPID\tIMAGE\tTID\tKIND\tID\tMETRIC\tSTART\tWIDTH\tBUCKETS\tSUM\tVALUES\n");
    printf("# hold\tPID\tIMAGE\tTID\tKIND\tID\tPROC\tACQUISITIONS\tHOLD_NS\tNAME\n");
    printf("# latency\tPID\tIMAGE\tTID\tPROC\tCOUNT\tSUM_NS\tMAX_NS\tP50\tP90\tP99\tBUCKETS"
           " (index:count,...)\n");
    printf("# problem\tTEXT\n");
    printf("machine\t%s\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRId64 "\t%" PRId64 "\t%" PRIu64 "\n",
           str(r, r->machine), str(r, r->host), r->events, r->trace_bytes, r->phase_start_ns,
           r->phase_end_ns, r->interval_ns);
    for (size_t i = 0; i < r->nprocesses; i++) {
        const struct ips2_red_process *p = &r->processes[i];
        printf("process\t%u\t%u\t%u\t%s\t%s\t%d\t%d\t%" PRId64 "\t%" PRId64 "\t%s\n", p->pid,
               p->image, p->ppid, str(r, p->app), str(r, p->exe), p->exit_how, p->exit_status,
               p->start_ns, p->end_ns, p->problem != IPS2_RED_NONE ? str(r, p->problem) : "");
    }
    for (size_t i = 0; i < r->nthreads; i++) {
        const struct ips2_red_thread *t = &r->threads[i];
        const struct ips2_red_process *p = &r->processes[t->process];
        printf("thread\t%u\t%u\t%u\t%" PRIu64 "\t%" PRId64 "\t%" PRId64, p->pid, p->image, t->tid,
               t->create_seq, t->start_ns, t->end_ns);
        for (unsigned m = 0; m < IPS2_M_COUNT; m++)
            printf("\t%" PRIu64, t->m[m]);
        printf("\n");
    }
    for (size_t i = 0; i < r->nprocs; i++) {
        const struct ips2_red_proc *pr = &r->procs[i];
        const struct ips2_red_thread *t = &r->threads[pr->thread];
        const struct ips2_red_process *p = &r->processes[t->process];
        printf("proc\t%u\t%u\t%u\t%s\t%" PRIu64 "\t%" PRIu64, p->pid, p->image, t->tid,
               str(r, pr->name), pr->incl_cpu, pr->incl_wall);
        for (unsigned m = 0; m < IPS2_M_COUNT; m++)
            printf("\t%" PRIu64, pr->m[m]);
        printf("\n");
    }
    for (size_t i = 0; i < r->narcs; i++) {
        const struct ips2_red_arc *a = &r->arcs[i];
        const struct ips2_red_thread *t = &r->threads[a->thread];
        const struct ips2_red_process *p = &r->processes[t->process];
        printf("arc\t%u\t%u\t%u\t%s\t%s\t%" PRIu64 "\t%" PRIu64 "\n", p->pid, p->image, t->tid,
               a->caller == IPS2_RED_NONE ? "<spontaneous>" : str(r, a->caller), str(r, a->callee),
               a->count, a->child_cpu);
    }
    for (size_t i = 0; i < r->nhists; i++) {
        const struct ips2_red_hist *h = &r->hists[i];
        const struct ips2_red_thread *t = &r->threads[h->thread];
        const struct ips2_red_process *p = &r->processes[t->process];
        double sum = 0;
        for (uint32_t k = 0; k < h->nbuckets; k++)
            sum += h->v[k];
        if (h->object != IPS2_RED_NONE) /* an object's: ohist, by the object's kind and id */
            printf("ohist\t%u\t%u\t%u\t%u\t0x%" PRIx64 "\t", p->pid, p->image, t->tid,
                   r->objects[h->object].kind, r->objects[h->object].id);
        else
            printf("hist\t%u\t%u\t%u\t%s\t", p->pid, p->image, t->tid,
                   h->proc == IPS2_RED_NONE ? "-" : str(r, r->procs[h->proc].name));
        printf("%s\t%" PRId64 "\t%" PRIu64 "\t%u\t%.17g\t", ips2_metric_name(h->metric),
               h->start_ns, h->width_ns, h->nbuckets, sum);
        for (uint32_t k = 0; k < h->nbuckets; k++)
            printf("%s%.17g", k ? "," : "", h->v[k]);
        printf("\n");
    }
    for (size_t i = 0; i < r->nobjects; i++) {
        const struct ips2_red_object *o = &r->objects[i];
        const struct ips2_red_thread *t = &r->threads[o->thread];
        const struct ips2_red_process *p = &r->processes[t->process];
        if (o->waits == 0)
            continue; /* a row only held: its hold lines name it */
        printf("object\t%u\t%u\t%u\t%u\t0x%" PRIx64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%s\n",
               p->pid, p->image, t->tid, o->kind, o->id, o->waits, o->wait_ns, o->spin_ns,
               o->name == IPS2_RED_NONE ? "" : str(r, o->name));
    }
    print_holds(r);
    for (size_t i = 0; i < r->nlats; i++) {
        const struct ips2_red_latency *l = &r->lats[i];
        const struct ips2_red_proc *pr = &r->procs[l->proc];
        const struct ips2_red_thread *t = &r->threads[pr->thread];
        const struct ips2_red_process *p = &r->processes[t->process];
        struct ips2_lat d = {.count = l->count,
                             .sum_ns = pr->incl_wall,
                             .max_ns = l->max_ns,
                             .bins = l->bins,
                             .nbins = l->nbins};
        printf("latency\t%u\t%u\t%u\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
               "\t%" PRIu64 "\t%" PRIu64 "\t",
               p->pid, p->image, t->tid, str(r, pr->name), l->count, pr->incl_wall, l->max_ns,
               ips2_lat_percentile(&d, 0.50), ips2_lat_percentile(&d, 0.90),
               ips2_lat_percentile(&d, 0.99));
        for (uint32_t k = 0; k < l->nbins; k++)
            printf("%s%u:%" PRIu64, k ? "," : "", l->bins[k].bucket, l->bins[k].count);
        printf("\n");
    }
    for (size_t i = 0; i < r->nproblems; i++)
        printf("problem\t%s\n", str(r, r->problems[i]));
}

static void progress(void *arg, uint64_t done, uint64_t total)
{
    (void)arg;
    fprintf(stderr, "ips2-reduce: %" PRIu64 " of ~%" PRIu64 " events\n", done, total);
}

static int read_file(const char *path, bool tsv)
{
    char err[IPS2_ERR_MAX];
    size_t n;
    char *buf = ips2_file_read(path, &n, err); /* a regular file, never a FIFO */

    if (!buf) {
        fprintf(stderr, "ips2-reduce: %s\n", err);
        return 1;
    }
    struct ips2_reductions *r = ips2_reductions_decode(buf, n, path, err);
    free(buf);
    if (!r) {
        fprintf(stderr, "ips2-reduce: %s\n", err);
        return 1;
    }
    if (tsv)
        print_tsv(r);
    else
        print_summary(r);
    ips2_reductions_free(r);
    return 0;
}

static void pag_counts(const struct ips2_pag *g, size_t file_bytes)
{
    static const char *const types[] = {"?", "message", "sync", "create", "exit"};
    size_t kinds[0x102] = {0}, arcs[5] = {0}, roles[16] = {0};

    for (size_t i = 0; i < g->nnodes; i++)
        kinds[g->nodes[i].kind <= 0x101 ? g->nodes[i].kind : 0]++;
    for (size_t i = 0; i < g->narcs; i++)
        arcs[g->arcs[i].type <= 4 ? g->arcs[i].type : 0]++;
    for (size_t i = 0; i < g->nends; i++)
        roles[g->ends[i].role < 16 ? g->ends[i].role : 0]++;
    double per = g->nnodes
                     ? (double)(g->nnodes * sizeof(*g->nodes) + g->nshares * sizeof(*g->shares)) /
                           (double)g->nnodes
                     : 0.0;
    printf("pag %s: %zu processes, %zu threads, %zu nodes, %zu shares, %zu arcs, %zu outs, %zu "
           "ends, %zu warnings, %zu bytes, %.1f bytes/node + %.1f bytes of arcs/node\n",
           g->machine, g->nprocesses, g->nthreads, g->nnodes, g->nshares, g->narcs, g->nouts,
           g->nends, g->nwarnings, file_bytes, per,
           g->nnodes ? (double)(g->narcs * sizeof(*g->arcs)) / (double)g->nnodes : 0.0);
    for (unsigned t = 1; t <= 4; t++)
        printf("arcs %s %zu\n", types[t], arcs[t]);
    /* message arcs (of this part) whose source node is later than their
     * destination: a receive that ended before its send began */
    size_t late = 0;
    int64_t worst = 0;
    for (size_t i = 0; i < g->narcs; i++) {
        const struct ips2_pag_arc *a = &g->arcs[i];
        uint32_t f = IPS2_PAG_GID_NODE(a->from);
        if (a->type != IPS2_PAG_ARC_MESSAGE || IPS2_PAG_GID_PART(a->from) != 0 || f >= g->nnodes ||
            a->to >= g->nnodes)
            continue;
        int64_t d = g->nodes[f].wall - g->nodes[a->to].wall;
        if (d > 0) {
            late++;
            worst = d > worst ? d : worst;
        }
    }
    printf("late messages %zu, by up to %" PRId64 " ns\n", late, worst);
    for (unsigned k = 0; k <= 0x101; k++)
        if (kinds[k])
            printf("nodes %s %zu\n",
                   k == IPS2_PAG_BEGIN ? "begin"
                   : k == IPS2_PAG_END ? "end"
                                       : ips2_kind_name(k),
                   kinds[k]);
    for (unsigned r = 0; r < 16; r++)
        if (roles[r])
            printf("ends %u %zu\n", r, roles[r]);
    for (size_t i = 0; i < g->nwarnings; i++)
        printf("warning: %s\n", g->warnings[i]);
}

static int read_pag(const char *path, bool match)
{
    struct ips2_pag *g;
    char err[IPS2_ERR_MAX];
    struct stat st;
    off_t size = stat(path, &st) == 0 ? st.st_size : 0;

    if (ips2_pag_read(path, &g, err, sizeof(err)) < 0) {
        fprintf(stderr, "ips2-reduce: %s\n", err);
        return 1;
    }
    if (match) {
        ips2_pag_set_part(g, 0);
        if (ips2_pag_match_ends(&g, 1, err, sizeof(err)) < 0) {
            fprintf(stderr, "ips2-reduce: %s\n", err);
            ips2_pag_free(g);
            return 1;
        }
    }
    pag_counts(g, size > 0 ? (size_t)size : 0);
    ips2_pag_free(g);
    return 0;
}

int main(int argc, char **argv)
{
    struct ips2_reduce_options o = {0};
    const char *dir = NULL, *out = NULL, *pag_path = NULL, *read_pag_path = NULL;
    bool quiet = false, tsv = false, match = false;
    const char *read = NULL;
    struct ips2_pag *pag = NULL;
    char err[IPS2_ERR_MAX];

    o.phase_start_ns = INT64_MIN;
    o.phase_end_ns = INT64_MAX;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool more = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--read") && more) {
            read = argv[++i];
        } else if (!strcmp(a, "--pag") && more) {
            pag_path = argv[++i];
        } else if (!strcmp(a, "--read-pag") && more) {
            read_pag_path = argv[++i];
        } else if (!strcmp(a, "--match")) {
            match = true;
        } else if (!strcmp(a, "--tsv")) {
            tsv = true;
        } else if (!strcmp(a, "--machine") && more) {
            o.machine = argv[++i];
        } else if (!strcmp(a, "--session-start") && more) {
            o.session_start_real = number(argv[++i], a);
        } else if (!strcmp(a, "--phase") && i + 2 < argc) {
            o.phase_start_ns = number(argv[++i], a);
            o.phase_end_ns = number(argv[++i], a);
        } else if (!strcmp(a, "--clones")) {
            o.clones = true;
        } else if (!strcmp(a, "--times") && more) {
            int t = ips2_times_by_name(argv[++i]);
            if (t <= 0) {
                fprintf(stderr, "ips2-reduce: --times: expected raw or compensated\n");
                return 2;
            }
            o.times = (unsigned)t;
        } else if (!strcmp(a, "--interval") && more) {
            int64_t v = number(argv[++i], a);
            if (v <= 0) {
                fprintf(stderr, "ips2-reduce: --interval: expected milliseconds > 0\n");
                return 2;
            }
            o.interval_ns = (uint64_t)v * 1000000u;
        } else if (!strcmp(a, "-o") && more) {
            out = argv[++i];
        } else if (!strcmp(a, "--quiet")) {
            quiet = true;
        } else if (!strcmp(a, "--progress")) {
            o.progress = progress;
        } else if (a[0] == '-' || dir) {
            usage(stderr);
            return 2;
        } else {
            dir = a;
        }
    }
    if (read)
        return read_file(read, tsv);
    if (read_pag_path)
        return read_pag(read_pag_path, match);
    if (pag_path) {
        o.pag_out = &pag;
        o.pag_lazy = true; /* only written: its shares stay compressed */
    }
    if (!dir) {
        usage(stderr);
        return 2;
    }

    struct timespec t0, t1, c0, c1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    struct ips2_reductions *r = ips2_reduce_dir(dir, &o, err);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (!r) {
        fprintf(stderr, "ips2-reduce: %s\n", err);
        return 1;
    }
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    double cpu = (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) / 1e9;
    int rc = 0;
    if (out) {
        size_t size;
        void *buf = ips2_reductions_encode(r, &size);
        FILE *f = fopen(out, "wb");
        if (!buf || !f || fwrite(buf, 1, size, f) != size || fclose(f) != 0) {
            fprintf(stderr, "ips2-reduce: %s: cannot write: %s\n", out,
                    buf ? strerror(errno) : "out of memory");
            rc = 1;
            f = NULL;
        }
        free(buf);
    }
    if (pag_path && !pag) {
        fprintf(stderr, "ips2-reduce: %s: no PAG was built (see the problems)\n", dir);
        rc = 1;
    } else if (pag_path && ips2_pag_write(pag, pag_path, err, sizeof(err)) < 0) {
        fprintf(stderr, "ips2-reduce: %s\n", err);
        rc = 1;
    }
    ips2_pag_free(pag);
    if (tsv)
        print_tsv(r);
    else if (!quiet)
        print_summary(r);
    if (!tsv)
        printf("reduced %" PRIu64 " events in %.3f s (cpu %.3f s): %.1f M events/s\n", r->events,
               secs, cpu, secs > 0 ? (double)r->events / secs / 1e6 : 0.0);
    ips2_reductions_free(r);
    return rc;
}
