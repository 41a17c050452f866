/*
 * names.c - see names.h.  The same rule as ips2::dsl::checkName, so that a
 * name the readers let through is never refused here, and a session made
 * by hand (a crafted .red, a manifest not read through the readers) meets
 * it too.
 */
#include <stddef.h>

#include "names.h"

static bool name_char(char c, bool first)
{
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')
        return true;
    return !first && (c == '.' || c == '-');
}

bool ips2_is_name(const char *name)
{
    size_t n = 0;

    if (name == NULL)
        return false;
    for (; name[n] != '\0'; n++)
        if (n >= IPS2_NAME_MAX || !name_char(name[n], n == 0))
            return false;
    return n > 0;
}
