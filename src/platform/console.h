/*
 * console.h - the standard streams as the operating system has them
 * (console_posix.c, console_windows.c).
 */
#ifndef DMLREF_PLATFORM_CONSOLE_H
#define DMLREF_PLATFORM_CONSOLE_H

#include <stdio.h>

/* Puts stdin, stdout and stderr in binary mode, before anything is read or
   written: what dmlref writes is the same bytes on every system (a vector,
   a report, "\n" and never "\r\n"), and what it reads is not translated
   either.  Windows' C library starts them in text mode; POSIX has no text
   mode, and this does nothing there. */
void use_binary_standard_streams(void);

/* 1 when the stream is a terminal (a console on Windows), else 0. */
int is_terminal(FILE *stream);

#endif /* DMLREF_PLATFORM_CONSOLE_H */
