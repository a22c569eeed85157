/*
 * console_posix.c - console.h on POSIX: no text mode; isatty.
 */
#define _XOPEN_SOURCE 700 /* fileno, isatty beside C99 */
#include "platform/console.h"

#include <unistd.h>

void use_binary_standard_streams(void)
{
}

int is_terminal(FILE *stream)
{
    return isatty(fileno(stream)) == 1;
}
