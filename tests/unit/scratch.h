/*
 * scratch.h - a scratch directory for the files a unit test writes: made
 * by a group set-up, emptied (subdirectories too) between tests and
 * removed by the group tear-down.
 */
#ifndef IPS2_TEST_SCRATCH_H
#define IPS2_TEST_SCRATCH_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char scratch_dir[64];

/* Makes /tmp/ips2-test-<name>-XXXXXX; 0 or -1. */
static inline int scratch_make(const char *name)
{
    snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/ips2-test-%s-XXXXXX", name);
    return mkdtemp(scratch_dir) ? 0 : -1;
}

/* The path of `name` in the directory, into buf (512 bytes); buf. */
static inline const char *scratch_path(char *buf, const char *name)
{
    snprintf(buf, 512, "%s/%s", scratch_dir, name);
    return buf;
}

/* Removes everything in directory path, its subdirectories too. */
static inline void scratch_clear(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    struct stat st;
    char *p;

    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            asprintf(&p, "%s/%s", path, e->d_name) < 0)
            continue;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            scratch_clear(p);
            rmdir(p);
        } else {
            unlink(p);
        }
        free(p);
    }
    if (d)
        closedir(d);
}

/* Empties the directory (between tests); 0. */
static inline int scratch_empty(void **state)
{
    (void)state;
    scratch_clear(scratch_dir);
    return 0;
}

/* Removes the directory and everything in it. */
static inline int scratch_remove(void **state)
{
    scratch_clear(scratch_dir);
    return rmdir(scratch_dir);
}

#endif /* IPS2_TEST_SCRATCH_H */
