/*
 * scratch.h - a scratch directory for the files a unit test writes: made
 * by a group set-up, emptied and removed by the group tear-down.
 */
#ifndef IPS2_TEST_SCRATCH_H
#define IPS2_TEST_SCRATCH_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char scratch_dir[64];

/* Makes /tmp/ips2-test-<name>-XXXXXX; 0 or -1. */
static inline int scratch_make(const char *name)
{
    snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/ips2-test-%s-XXXXXX", name);
    return mkdtemp(scratch_dir) ? 0 : -1;
}

/* Removes the files in the directory (between tests); 0. */
static inline int scratch_empty(void **state)
{
    DIR *d = opendir(scratch_dir);
    struct dirent *e;
    char p[600];

    (void)state;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof(p), "%s/%s", scratch_dir, e->d_name);
        unlink(p);
    }
    if (d)
        closedir(d);
    return 0;
}

/* Removes the directory and the files in it. */
static inline int scratch_remove(void **state)
{
    scratch_empty(state);
    return rmdir(scratch_dir);
}

#endif /* IPS2_TEST_SCRATCH_H */
