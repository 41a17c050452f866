/*
 * cpa_cmd.c - ips2-cpa: the critical-path engine from the command line,
 * for tests and benchmarks.
 *
 *   ips2-cpa gen --seed S --parts K --nodes N --apps A [--processes P]
 *                [--threads T] [--cross X] OUTDIR     random part files
 *   ips2-cpa oracle|run -mode M [-app A] [-level L] [-zero-procedure F]...
 *                [-seed S] FILES...                 length + profile
 *                (-zero-procedure repeated: each one's CPU weighs 0)
 *   ips2-cpa bench [--nodes N] [--threads T] [--cross X] [--parts K]
 *                                                   time a random PAG
 *   ips2-cpa corpus DIR     seeds for tests/fuzz/fuzz_cpa.c (the wire
 *                           formats of a small random PAG's messages)
 *
 * `run` runs one worker per part file in this process (shuffled
 * delivery), `oracle` the single-process reference; both print
 * "length L elapsed E terminal PART:NODE segments S" and the profile.
 * Exit status: 0 done, 1 failed, 2 usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "ips2_cpa.h"

static void usage(void)
{
    fprintf(stderr,
            "usage: ips2-cpa gen --seed S --parts K --nodes N --apps A [--processes P] "
            "[--threads T] [--cross X] OUTDIR\n"
            "       ips2-cpa oracle|run -mode global|intra|inter [-app A] "
            "[-level machine|process|thread|procedure] [-zero-procedure F] [-seed S] FILES...\n"
            "       ips2-cpa bench [--nodes N] [--threads T] [--cross X] [--parts K] [--seed S]\n");
    exit(2);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t num(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || end == s)
        usage();
    return v;
}

static double real(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (*end || end == s)
        usage();
    return v;
}

static int gen(int argc, char **argv)
{
    struct ips2_cpa_random_opts o;
    ips2_cpa_random_defaults(&o, 1, 1000);
    const char *dir = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 < argc && strcmp(a, "--seed") == 0)
            o.seed = num(argv[++i]);
        else if (i + 1 < argc && strcmp(a, "--parts") == 0)
            o.parts = (uint32_t)num(argv[++i]);
        else if (i + 1 < argc && strcmp(a, "--nodes") == 0)
            o.nodes = num(argv[++i]);
        else if (i + 1 < argc && strcmp(a, "--apps") == 0)
            o.apps = (uint32_t)num(argv[++i]);
        else if (i + 1 < argc && strcmp(a, "--processes") == 0)
            o.processes = (uint32_t)num(argv[++i]);
        else if (i + 1 < argc && strcmp(a, "--threads") == 0)
            o.threads = (uint32_t)num(argv[++i]);
        else if (i + 1 < argc && strcmp(a, "--cross") == 0)
            o.cross = real(argv[++i]);
        else if (a[0] != '-' && !dir)
            dir = a;
        else
            usage();
    }
    if (!dir)
        usage();
    char err[512];
    struct ips2_pag **parts;
    size_t n;
    if (ips2_cpa_random(&o, &parts, &n, err, sizeof err)) {
        fprintf(stderr, "ips2-cpa: %s\n", err);
        return 1;
    }
    mkdir(dir, 0777);
    int rc = 0;
    for (size_t k = 0; k < n && !rc; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.pag", dir, parts[k]->machine);
        if (ips2_pag_write(parts[k], path, err, sizeof err)) {
            fprintf(stderr, "ips2-cpa: %s\n", err);
            rc = 1;
        } else {
            printf("%s\n", path);
        }
    }
    ips2_cpa_parts_free(parts, n);
    return rc;
}

static void print_path(const struct ips2_cpa_path *p, struct ips2_cpa_meta **metas, size_t n,
                       const struct ips2_cpa_query *q, enum ips2_cpa_level level)
{
    char err[512];
    struct ips2_cpa_profile prof;
    if (ips2_cpa_profile(p, metas, n, q, level, NULL, IPS2_CPA_RUN_START, IPS2_CPA_RUN_END, &prof,
                         err, sizeof err)) {
        fprintf(stderr, "ips2-cpa: %s\n", err);
        return;
    }
    printf("length %lld elapsed %lld terminal %u:%u segments %zu\n", (long long)p->length,
           (long long)prof.elapsed, IPS2_PAG_GID_PART(p->terminal), IPS2_PAG_GID_NODE(p->terminal),
           p->nsegs);
    for (size_t i = 0; i < prof.n; i++)
        printf("%14lld %6.2f%%  %s\n", (long long)prof.entries[i].ns, prof.entries[i].percent,
               prof.entries[i].name);
    for (size_t i = 0; i < p->nwarnings; i++)
        fprintf(stderr, "ips2-cpa: %s\n", p->warnings[i]);
    ips2_cpa_profile_free(&prof);
}

static int query(int oracle, int argc, char **argv)
{
    struct ips2_cpa_query q = {0};
    enum ips2_cpa_level level = IPS2_CPA_LEVEL_PROCESS;
    uint64_t seed = 1;
    char *zero = NULL;
    char **files = calloc((size_t)argc + 1, sizeof *files);
    size_t nf = 0;
    if (!files)
        return 1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 < argc && strcmp(a, "-mode") == 0) {
            if (ips2_cpa_mode_parse(argv[++i], &q.mode))
                usage();
        } else if (i + 1 < argc && strcmp(a, "-app") == 0) {
            q.app = argv[++i];
        } else if (i + 1 < argc && strcmp(a, "-level") == 0) {
            if (ips2_cpa_level_parse(argv[++i], &level))
                usage();
        } else if (i + 1 < argc && strcmp(a, "-zero-procedure") == 0) {
            /* repeated: every one of them (their names one a line) */
            const char *prev = q.zero_procedure;
            size_t len = (prev ? strlen(prev) + 1 : 0) + strlen(argv[++i]) + 1;
            char *grown = realloc(zero, len);
            if (grown == NULL) {
                free(zero);
                free(files);
                return 1;
            }
            zero = grown;
            if (prev == NULL)
                zero[0] = '\0';
            else
                strcat(zero, "\n");
            q.zero_procedure = strcat(zero, argv[i]);
        } else if (i + 1 < argc && strcmp(a, "-seed") == 0) {
            seed = num(argv[++i]);
        } else if (a[0] != '-') {
            files[nf++] = argv[i];
        } else {
            usage();
        }
    }
    if (!nf || (q.mode != IPS2_CPA_GLOBAL && !q.app))
        usage();
    char err[512];
    struct ips2_pag **parts = calloc(nf, sizeof *parts);
    struct ips2_cpa_meta **metas = calloc(nf, sizeof *metas);
    int rc = 1;
    if (!parts || !metas)
        goto out;
    for (size_t k = 0; k < nf; k++) {
        if (ips2_pag_read(files[k], &parts[k], err, sizeof err)) {
            fprintf(stderr, "ips2-cpa: %s\n", err);
            goto out;
        }
    }
    /* parts a slave wrote still hold their cross-machine ends */
    if (ips2_pag_number(parts, nf, err, sizeof err) ||
        ips2_pag_match_ends(parts, nf, err, sizeof err)) {
        fprintf(stderr, "ips2-cpa: %s\n", err);
        goto out;
    }
    for (size_t k = 0; k < nf; k++)
        if (ips2_cpa_meta_from_pag(parts[k], &metas[k], err, sizeof err)) {
            fprintf(stderr, "ips2-cpa: %s: %s\n", files[k], err);
            goto out;
        }
    struct ips2_cpa_path p;
    double t = now();
    int r = oracle ? ips2_cpa_oracle(parts, nf, &q, &p, err, sizeof err)
                   : ips2_cpa_inproc(parts, nf, &q, seed, &p, err, sizeof err);
    t = now() - t;
    if (r) {
        fprintf(stderr, "ips2-cpa: %s\n", err);
        goto out;
    }
    print_path(&p, metas, nf, &q, level);
    fprintf(stderr, "ips2-cpa: %s in %.3f s\n", oracle ? "oracle" : "run", t);
    ips2_cpa_path_free(&p);
    rc = 0;
out:
    for (size_t k = 0; k < nf; k++) {
        ips2_pag_free(parts ? parts[k] : NULL);
        ips2_cpa_meta_free(metas ? metas[k] : NULL);
    }
    free(parts);
    free(metas);
    free(files);
    free(zero);
    return rc;
}

static int bench(int argc, char **argv)
{
    struct ips2_cpa_random_opts o;
    ips2_cpa_random_defaults(&o, 1, 10000000);
    o.parts = 1;
    o.apps = 1;
    o.processes = 10;
    o.threads = 100;
    o.cross = 0.1;
    o.cross_part = 0.5;
    o.cross_app = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 < argc && strcmp(a, "--nodes") == 0)
            o.nodes = num(argv[++i]);
        else if (i + 1 < argc && strcmp(a, "--threads") == 0) {
            uint64_t t = num(argv[++i]);
            o.processes = (uint32_t)(t >= 100 ? t / 100 : 1);
            o.threads = (uint32_t)(t >= 100 ? 100 : t);
        } else if (i + 1 < argc && strcmp(a, "--cross") == 0)
            o.cross = real(argv[++i]);
        else if (i + 1 < argc && strcmp(a, "--parts") == 0)
            o.parts = (uint32_t)num(argv[++i]);
        else if (i + 1 < argc && strcmp(a, "--seed") == 0)
            o.seed = num(argv[++i]);
        else
            usage();
    }
    if (o.parts > 1)
        o.processes = o.processes / o.parts ? o.processes / o.parts : 1;
    char err[512];
    struct ips2_pag **parts;
    size_t n;
    double t = now();
    if (ips2_cpa_random(&o, &parts, &n, err, sizeof err)) {
        fprintf(stderr, "ips2-cpa: %s\n", err);
        return 1;
    }
    double tgen = now() - t;
    size_t nodes = 0, arcs = 0, outs = 0, threads = 0, shares = 0;
    for (size_t k = 0; k < n; k++) {
        nodes += parts[k]->nnodes;
        arcs += parts[k]->narcs;
        outs += parts[k]->nouts;
        threads += parts[k]->nthreads;
        shares += parts[k]->nshares;
    }
    struct ips2_cpa_query q = {0};
    struct ips2_cpa_path p, po;
    t = now();
    if (ips2_cpa_inproc(parts, n, &q, 1, &p, err, sizeof err)) {
        fprintf(stderr, "ips2-cpa: %s\n", err);
        return 1;
    }
    double trun = now() - t;
    t = now();
    if (ips2_cpa_oracle(parts, n, &q, &po, err, sizeof err)) {
        fprintf(stderr, "ips2-cpa: %s\n", err);
        return 1;
    }
    double tor = now() - t;
    /* Bytes a node: the part's node (32) and the worker's state (16);
     * per arc: the part's arc (24), the worker's source index (4) and a
     * bit; per thread and per share are listed apart. */
    double per_node = (double)sizeof(struct ips2_pag_node) + 16.0;
    printf("cpa-bench parts %zu threads %zu nodes %zu arcs %zu outs %zu shares %zu\n", n, threads,
           nodes, arcs, outs, shares);
    printf("cpa-bench generate %.3f s\n", tgen);
    printf("cpa-bench run %.3f s (workers: build + diffusion + walk), oracle %.3f s\n", trun, tor);
    printf("cpa-bench length %lld segments %zu same-as-oracle %s\n", (long long)p.length, p.nsegs,
           p.length == po.length && p.nsegs == po.nsegs && p.terminal == po.terminal ? "yes"
                                                                                     : "NO");
    printf("cpa-bench bytes/node %.1f (node 32 + state 16), + %.2f per node for arcs "
           "(%zu x 24.6), + %.2f for shares\n",
           per_node, (double)arcs * 24.625 / (double)nodes, arcs,
           (double)shares * 16.0 / (double)nodes);
    int ok = p.length == po.length;
    ips2_cpa_path_free(&p);
    ips2_cpa_path_free(&po);
    ips2_cpa_parts_free(parts, n);
    return ok ? 0 : 1;
}

static int put(const char *dir, const char *name, void *data, size_t size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    int rc = !f || fwrite(data, 1, size, f) != size;
    if (f && fclose(f))
        rc = 1;
    free(data);
    if (rc)
        fprintf(stderr, "ips2-cpa: %s: cannot write\n", path);
    return rc;
}

static int corpus(int argc, char **argv)
{
    if (argc != 1)
        usage();
    struct ips2_cpa_random_opts o;
    ips2_cpa_random_defaults(&o, 7, 60);
    char err[512];
    struct ips2_pag **parts;
    size_t n;
    if (ips2_cpa_random(&o, &parts, &n, err, sizeof err))
        return 1;
    mkdir(argv[0], 0777);
    int rc = 0;
    void *d;
    size_t sz;
    struct ips2_cpa_query q = {0};
    struct ips2_cpa_path p;
    struct ips2_cpa_meta *m;
    struct ips2_cpa_worker *w;
    if (ips2_cpa_oracle(parts, n, &q, &p, err, sizeof err) ||
        ips2_cpa_meta_from_pag(parts[0], &m, err, sizeof err) ||
        ips2_cpa_worker_new(parts[0], n, &q, &w, err, sizeof err)) {
        fprintf(stderr, "ips2-cpa: %s\n", err);
        return 1;
    }
    rc |= ips2_cpa_path_encode(&p, &d, &sz, err, sizeof err) || put(argv[0], "path", d, sz);
    rc |= ips2_cpa_meta_encode(m, &d, &sz, err, sizeof err) || put(argv[0], "meta", d, sz);
    struct ips2_cpa_batch b;
    if (ips2_cpa_worker_step(w, err, sizeof err) == 0 && ips2_cpa_worker_take_batch(w, &b)) {
        rc |= ips2_cpa_batch_encode(&b, &d, &sz, err, sizeof err) || put(argv[0], "batch", d, sz);
        ips2_cpa_batch_free(&b);
    }
    struct ips2_cpa_walk wk = {0, p.segs[0].from, 0, {0}};
    for (size_t i = 0; i < p.nsegs; i++)
        if (p.segs[i].kind != IPS2_CPA_SEG_CPU) {
            wk = (struct ips2_cpa_walk){0, p.segs[i].from, 1, p.segs[i]};
            break;
        }
    rc |= ips2_cpa_walk_encode(&wk, &d, &sz, err, sizeof err) || put(argv[0], "walk", d, sz);
    ips2_cpa_worker_free(w);
    ips2_cpa_meta_free(m);
    ips2_cpa_path_free(&p);
    ips2_cpa_parts_free(parts, n);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        usage();
    if (strcmp(argv[1], "gen") == 0)
        return gen(argc - 2, argv + 2);
    if (strcmp(argv[1], "oracle") == 0)
        return query(1, argc - 2, argv + 2);
    if (strcmp(argv[1], "run") == 0)
        return query(0, argc - 2, argv + 2);
    if (strcmp(argv[1], "bench") == 0)
        return bench(argc - 2, argv + 2);
    if (strcmp(argv[1], "corpus") == 0)
        return corpus(argc - 2, argv + 2);
    usage();
    return 2;
}
