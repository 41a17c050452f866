/*
 * knr_main.c - a K&R main that falls off its end (build it with
 * -std=gnu89 -w): the exit status is whatever its last call left in the
 * return register, here printf's count, 9.
 */
#include <stdio.h>

main()
{
    printf("fell off\n");
}
