/*
 * cli.h - what the command line's files share.
 */
#ifndef DMLREF_CLI_H
#define DMLREF_CLI_H

#include "conformance/conformance.h"

/* dmlref bench: returns an exit code. */
int command_bench(int argc, char **argv);

#endif /* DMLREF_CLI_H */
