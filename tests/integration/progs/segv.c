/* segv.c - calls ok() twice, then crash() dereferences NULL. */
#include <stdio.h>

__attribute__((noipa)) int ok(int x)
{
    return x + 1;
}

__attribute__((noipa)) int crash(volatile int *p)
{
    return *p;
}

int main(void)
{
    printf("%d\n", ok(1) + ok(2));
    fflush(stdout);
    return crash((volatile int *)0);
}
