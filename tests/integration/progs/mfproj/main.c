/* main.c - mfproj's program: uses the archive and the shared library. */
#include "greet.h"
#include "util.h"

int main(void)
{
    greet("sum 1..10", util_sum(10));
    greet("squares 1..10", util_sum_of_squares(10));
    return 0;
}
