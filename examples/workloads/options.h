/*
 * options.h - the command lines of the demo workload's programs: pairs
 * "-name value", each name looked up in a table that says which variable
 * it sets and how its value reads (atoi, atof or the word itself).
 *
 * Like burn_cpu(), it is always inlined and never instrumented: reading
 * the options adds no procedure to the traces, so the call counts the
 * tests compare with gprof stay the programs' own.
 */
#ifndef IPS2_EXAMPLES_OPTIONS_H
#define IPS2_EXAMPLES_OPTIONS_H

#include <stdlib.h>
#include <string.h>

enum opt_kind { OPT_INT, OPT_DOUBLE, OPT_WORD };

struct opt {
    const char *name; /* with its dash: "-port" */
    enum opt_kind kind;
    void *to; /* an int, a double or a const char * */
};

/* Sets the variables that argv's pairs name, from the n entries of table;
 * 0, or -1 when a word is left without a value or names no entry. */
static inline __attribute__((always_inline, no_instrument_function)) int
read_options(int argc, char **argv, const struct opt *table, size_t n)
{
    if (argc % 2 != 1)
        return -1;
    for (int i = 1; i + 1 < argc; i += 2) {
        size_t k = 0;
        while (k < n && strcmp(argv[i], table[k].name) != 0)
            k++;
        if (k == n)
            return -1;
        if (table[k].kind == OPT_INT)
            *(int *)table[k].to = atoi(argv[i + 1]);
        else if (table[k].kind == OPT_DOUBLE)
            *(double *)table[k].to = atof(argv[i + 1]);
        else
            *(const char **)table[k].to = argv[i + 1];
    }
    return 0;
}

#define READ_OPTIONS(argc, argv, table)                                                            \
    read_options((argc), (argv), (table), sizeof(table) / sizeof((table)[0]))

#endif /* IPS2_EXAMPLES_OPTIONS_H */
