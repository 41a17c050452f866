/* plugin.c - a shared object that dlopen.c loads at run time. */
__attribute__((noipa)) int plugin_fn(int x)
{
    return x * 5;
}
