/*
 * library.h - loading a plug-in: a shared library (POSIX: dlopen, a .so or
 * .dylib; Windows: LoadLibraryW, a .dll) and the functions it exports.
 * A library stays loaded until the process ends.
 */
#ifndef DMLREF_PLATFORM_LIBRARY_H
#define DMLREF_PLATFORM_LIBRARY_H

#include <stddef.h>

typedef struct library library;

/* A function of a library, to be cast to its own type before a call. */
typedef void (*library_function)(void);

/* Loads the library at `path` (its symbols resolved now, not lazily, and
   kept to itself); NULL, with the system's reason in `reason`, when it
   cannot. */
library *library_open(const char *path, char *reason, size_t capacity);

/* The exported function `name`, or NULL. */
library_function library_find(library *l, const char *name);

#endif /* DMLREF_PLATFORM_LIBRARY_H */
