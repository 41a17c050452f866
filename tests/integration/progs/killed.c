/* killed.c - calls step() forever; after every 1000 completed calls it
 * prints the count of completed calls, so that a test can SIGKILL it and
 * know a lower bound of what the trace must hold. */
#include <stdio.h>

__attribute__((noipa)) long step(long x)
{
    return x + 1;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (long done = 0;;) {
        step(done);
        if (++done % 1000 == 0)
            printf("%ld\n", done);
    }
}
