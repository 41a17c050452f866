/* greet.c - built position-independent into libgreet.so. */
#include <stdio.h>

#include "greet.h"

void greet(const char *who, long value)
{
    printf("%s: %ld\n", who, value);
}
