/*
 * slave_path.c - see slave_path.h.  The library finds itself with dladdr()
 * on one of its own functions, so an installed tree and build/ both work.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slave_path.h"

void ips2_slave_path(char *buf, size_t len)
{
    const char *env = getenv("IPS2_SLAVE");
    if (env != NULL && env[0] != '\0') {
        snprintf(buf, len, "%s", env);
        return;
    }
    snprintf(buf, len, "ips2slave");
    Dl_info info;
    char lib[PATH_MAX];
    if (dladdr((void *)ips2_slave_path, &info) == 0 || info.dli_fname == NULL ||
        realpath(info.dli_fname, lib) == NULL)
        return;
    for (int up = 0; up < 3; up++) { /* the file, ips2/, lib/ */
        char *slash = strrchr(lib, '/');
        if (slash == NULL)
            return;
        *slash = '\0';
    }
    snprintf(buf, len, "%s/bin/ips2slave", lib);
}
