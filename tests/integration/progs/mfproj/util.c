/* util.c - the static-archive part of mfproj. */
#include "util.h"

static long square(long x)
{
    return x * x;
}

long util_sum(int n)
{
    long s = 0;
    for (int i = 1; i <= n; i++)
        s += i;
    return s;
}

long util_sum_of_squares(int n)
{
    long s = 0;
    for (int i = 1; i <= n; i++)
        s += square(i);
    return s;
}
