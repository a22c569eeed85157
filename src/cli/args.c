/*
 * args.c - one getopt_long loop for every command, with dmlref's own usage
 * messages (cli.h).
 */
#include "cli/cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

int usage_error(const char *message)
{
    fprintf(stderr, "dmlref: %s (dmlref help)\n", message);
    return EXIT_USAGE;
}

int parse_arguments(const char *command, int argc, char **argv, const char *short_options,
                    const struct option *long_options, option_taker take, void *context,
                    path_list *operands)
{
    /* getopt_long reads argv[1...] and reorders its array: give it a copy
       whose argv[0] is the command's name. */
    char **args = malloc(((size_t)argc + 2) * sizeof *args);
    char name[64], optstring[64];
    char message[512];
    int code = EXIT_OK, c;

    if (!args) {
        fprintf(stderr, "dmlref: %s: out of memory\n", command);
        return EXIT_BAD_INPUT;
    }
    snprintf(name, sizeof name, "dmlref %s", command);
    args[0] = name;
    memcpy(args + 1, argv, (size_t)argc * sizeof *args);
    args[argc + 1] = NULL;
    /* ':' first: a missing value is ':', not '?', and getopt stays silent */
    snprintf(optstring, sizeof optstring, ":%s", short_options);
    opterr = 0;
    /* 0, not 1: a whole restart, whatever a parse before left half done, in
       glibc's getopt_long and in the BSD one of mingw-w64 (and macOS), which
       keeps its place in a cluster of short options until optind is 0 */
    optind = 0;
    while (code == EXIT_OK &&
           (c = getopt_long(argc + 1, args, optstring, long_options, NULL)) != -1) {
        /* a short option's letter, else the word getopt_long stopped at */
        const char *word = args[optind - 1];
        char letter[3] = {'-', (char)optopt, '\0'};
        const char *option = strncmp(word, "--", 2) == 0 || !optopt ? word : letter;
        if (c == '?') {
            snprintf(message, sizeof message, "%s: unknown option '%.400s'", command, option);
            code = usage_error(message);
        } else if (c == ':') {
            snprintf(message, sizeof message, "%s: %.400s needs a value", command, option);
            code = usage_error(message);
        } else {
            code = take(context, c, optarg);
        }
    }
    while (code == EXIT_OK && optind < argc + 1)
        if (!list_add(operands, args[optind++]))
            code = EXIT_BAD_INPUT;
    free(args);
    return code;
}

int option_error(const char *command, int option, const struct option *long_options,
                 const char *what)
{
    char message[512];
    const struct option *o;
    for (o = long_options; o->name; ++o)
        if (o->val == option)
            break;
    snprintf(message, sizeof message, "%s: --%s %s", command, o->name ? o->name : "?", what);
    return usage_error(message);
}
