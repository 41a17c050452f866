/* calls.c - known call counts: a 100, b 300, c 1000, fib(15) 1973 calls. */
#include <stdio.h>

__attribute__((noipa)) int c(int x)
{
    return x + 1;
}

__attribute__((noipa)) int b(int x)
{
    int s = 0;
    for (int i = 0; i < 3; i++)
        s += c(x + i);
    return s + c(x);
}

__attribute__((noipa)) int a(int x)
{
    return b(x) + b(x + 1) + b(x + 2);
}

__attribute__((noipa)) long fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int main(void)
{
    long s = 0;
    for (int i = 0; i < 100; i++)
        s += a(i);
    printf("%ld %ld\n", s, fib(15));
    return 0;
}
