/* hello.c - the smallest traced program: a few calls, one line of output,
 * and the exit status given as its first argument (default 0). */
#include <stdio.h>
#include <stdlib.h>

static int fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static void greet(const char *who)
{
    printf("hello from %s: fib(10) = %d\n", who, fib(10));
}

int main(int argc, char **argv)
{
    greet("ips2");
    return argc > 1 ? atoi(argv[1]) : 0;
}
