/* thread_exit.c - a worker thread calls exit(3) while main waits in join. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noipa)) void finish(void)
{
    fflush(stdout);
    exit(3);
}

static void *run(void *arg)
{
    printf("worker exits the process\n");
    finish();
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, run, NULL);
    pthread_join(t, NULL);
    return 0;
}
