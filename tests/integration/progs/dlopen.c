/* dlopen.c - loads the plugin given as argv[1] and calls plugin_fn 5 times. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    void *h = dlopen(argc > 1 ? argv[1] : "./plugin.so", RTLD_NOW);
    if (h == NULL) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    int (*fn)(int) = (int (*)(int))dlsym(h, "plugin_fn");
    int s = 0;
    for (int i = 0; i < 5; i++)
        s += fn(i);
    printf("%d\n", s);
    return 0;
}
