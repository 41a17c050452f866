/*
 * exits.c - ends the way its argument says: "return 258" from main,
 * "exit 3", "exit 258", "_exit -1", "signal" (SIGTERM), so that the
 * recorded exit status can be compared with what the parent sees.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *how = argc > 2 ? argv[1] : "";
    int status = argc > 2 ? atoi(argv[2]) : 0;

    if (strcmp(how, "exit") == 0)
        exit(status);
    if (strcmp(how, "_exit") == 0)
        _exit(status);
    if (strcmp(how, "signal") == 0)
        raise(status);
    return status;
}
