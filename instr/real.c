/*
 * real.c - find the next definition of a function libips2 interposes.
 *
 * libips2 is linked ahead of libc (or preloaded), so the program's calls to
 * fork, exit, pthread_create, ... reach its wrappers, which call on to the
 * definition found here.
 */
#include <dlfcn.h>

#include "runtime.h"

void *ips2_real(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}
