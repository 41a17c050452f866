/*
 * error.c - see ips2_error.h.
 */
#include <stdarg.h>
#include <stdio.h>

#include "ips2_error.h"
#include "ips2_reader.h"

void ips2_set_error(char *err, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(err, IPS2_ERR_MAX, fmt, ap);
    va_end(ap);
}
