/*
 * cli.h - what the command line's files share.  The commands parse their
 * arguments here and hand the work to the layers below.
 */
#ifndef DMLREF_CLI_H
#define DMLREF_CLI_H

#include "conformance/conformance.h"

#include <getopt.h>

/* "dmlref: <message> (dmlref help)" on stderr; returns EXIT_USAGE. */
int usage_error(const char *message);

/* Called for each option parse_arguments meets: `option` is the
   struct option's val (or the short option's letter), value its argument or
   NULL.  Returns EXIT_OK to go on, an exit code to stop with, or -1 to stop
   with success (it printed the help that was asked for). */
typedef int (*option_taker)(void *context, int option, const char *value);

/* Parses a command's arguments (argv excludes the command's name) with
   getopt_long: options may come in any order among the operands, "--" ends
   them.  An unknown option or a missing value is a usage error,
   "COMMAND: unknown option 'X'" or "COMMAND: --NAME needs a value"; every
   operand is added to `operands` in order.  Returns EXIT_OK or the first
   exit code `take` or parsing gave. */
int parse_arguments(const char *command, int argc, char **argv, const char *short_options,
                    const struct option *long_options, option_taker take, void *context,
                    path_list *operands);

/* "COMMAND: --NAME WHAT" as a usage error, NAME the long option whose val is
   `option`; returns EXIT_USAGE. */
int option_error(const char *command, int option, const struct option *long_options,
                 const char *what);

/* The commands: each returns an exit code; argv excludes the command's name. */
int command_check(int argc, char **argv);
int command_fuzz(int argc, char **argv);
int command_bench(int argc, char **argv);
int command_explain(int argc, char **argv);
int command_show(int argc, char **argv);

/* The help texts of the commands outside main.c. */
extern const char *const check_help;
extern const char *const explain_help;
extern const char *const show_help;

#endif /* DMLREF_CLI_H */
