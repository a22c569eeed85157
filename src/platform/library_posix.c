/*
 * library_posix.c - library.h on POSIX: dlopen(RTLD_NOW | RTLD_LOCAL).
 */
#include "platform/library.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

library *library_open(const char *path, char *reason, size_t capacity)
{
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL); /* kept until exit */
    if (!handle) {
        const char *why = dlerror();
        snprintf(reason, capacity, "%s", why ? why : "dlopen failed");
    }
    return handle;
}

library_function library_find(library *l, const char *name)
{
    void *symbol = dlsym(l, name);
    library_function f = NULL;
    if (symbol) /* ISO C has no cast from void * to a function: POSIX makes the bytes one */
        memcpy(&f, &symbol, sizeof f < sizeof symbol ? sizeof f : sizeof symbol);
    return f;
}
