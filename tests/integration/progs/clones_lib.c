/*
 * clones_lib.c - the other translation unit of clones_main.c: a static
 * helper() of its own, which LTO renames beside clones_main.c's.
 */
unsigned long n_lib;

static __attribute__((noinline)) unsigned long helper(unsigned long x)
{
    n_lib++;
    for (int i = 0; i < 30; i++)
        x = x * 37 + 3;
    return x;
}

unsigned long lib_run(unsigned long x)
{
    return helper(x) + helper(x + 1);
}
