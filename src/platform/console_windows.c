/*
 * console_windows.c - console.h on Windows: _setmode(_O_BINARY) of the C
 * library (msvcrt or UCRT), and GetConsoleMode for a terminal (_isatty
 * also says yes for NUL and any other character device).
 */
#include "platform/console.h"

#include <fcntl.h>
#include <io.h>
#include <windows.h>

void use_binary_standard_streams(void)
{
    /* a stream that is not open (a service, a GUI parent) has no mode to
       set: ignored */
    (void)_setmode(_fileno(stdin), _O_BINARY);
    (void)_setmode(_fileno(stdout), _O_BINARY);
    (void)_setmode(_fileno(stderr), _O_BINARY);
}

int is_terminal(FILE *stream)
{
    DWORD mode;
    return GetConsoleMode((HANDLE)_get_osfhandle(_fileno(stream)), &mode) != 0;
}
