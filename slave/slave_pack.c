/*
 * slave_pack.c - ips2slave packs a machine's raw streams once they are
 * reduced (the compression of DESIGN.md §3, off the applications' hot
 * path).  Same rules as ips2-pack: <name>.raw becomes <name>.ips2 through
 * ips2_pack_file() (temporary name, then rename), the raw stream goes only
 * once its packed copy is in place, and a stream that fails stays raw
 * (its partial packed copy is removed), so nothing recorded is lost.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ips2_pack.h"
#include "ips2_reader.h" /* IPS2_ERR_MAX */
#include "slave_analysis.h"

static int is_raw(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && strcmp(name + n - 4, ".raw") == 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int slave_pack_dir(const char *dir, slave_progress_fn *progress, slave_problem_fn *problem,
                   void *arg)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0; /* nothing was traced here */
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!is_raw(e->d_name))
            continue;
        if (n == cap) {
            size_t c = cap ? 2 * cap : 32;
            char **v = realloc(names, c * sizeof *v);
            if (v == NULL)
                break;
            names = v;
            cap = c;
        }
        if ((names[n] = strdup(e->d_name)) != NULL)
            n++;
    }
    closedir(d);
    if (n > 0)
        qsort(names, n, sizeof *names, by_name);

    int failed = 0;
    char err[IPS2_ERR_MAX], text[IPS2_ERR_MAX + 64];
    for (size_t i = 0; i < n; i++) {
        if (progress != NULL)
            progress(arg, i, n);
        size_t len = strlen(dir) + strlen(names[i]) + 8;
        char *raw = malloc(len), *packed = malloc(len + 2);
        if (raw == NULL || packed == NULL) {
            free(raw);
            free(packed);
            failed++;
            continue;
        }
        snprintf(raw, len, "%s/%s", dir, names[i]);
        snprintf(packed, len + 2, "%.*s.ips2", (int)(strlen(raw) - 4), raw);
        err[0] = '\0';
        if (ips2_pack_file(raw, packed, err) == 0) {
            unlink(raw);
        } else {
            unlink(packed);
            failed++;
            snprintf(text, sizeof text, "kept %s raw: %s", names[i],
                     err[0] ? err : "cannot pack it");
            if (problem != NULL)
                problem(arg, text);
        }
        free(raw);
        free(packed);
    }
    if (progress != NULL)
        progress(arg, n, n);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return failed;
}
