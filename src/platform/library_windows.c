/*
 * library_windows.c - library.h on Windows: LoadLibraryExW of the full path
 * (the ANSI code page's, as main()'s argv has it), the DLLs it needs looked
 * for beside it first (LOAD_WITH_ALTERED_SEARCH_PATH).
 */
#include "platform/library.h"

#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

/* The system's message for an error code, on one line. */
static void system_message(DWORD code, char *text, size_t capacity)
{
    char *end;
    if (!capacity)
        return;
    if (!FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code, 0,
                        text, (DWORD)(capacity > 65535 ? 65535 : capacity), NULL))
        snprintf(text, capacity, "error %lu", (unsigned long)code);
    for (end = text; *end; ++end)
        if (*end == '\r' || *end == '\n')
            *end = ' ';
    while (end > text && (end[-1] == ' ' || end[-1] == '.'))
        *--end = '\0';
}

library *library_open(const char *path, char *reason, size_t capacity)
{
    wchar_t given[MAX_PATH * 4], full[MAX_PATH * 4];
    HMODULE module = NULL;
    DWORD length;
    UINT old_mode;
    if (!MultiByteToWideChar(CP_ACP, 0, path, -1, given, MAX_PATH * 4)) {
        system_message(GetLastError(), reason, capacity);
        return NULL;
    }
    length = GetFullPathNameW(given, MAX_PATH * 4, full, NULL);
    old_mode = SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX); /* no dialog */
    if (length > 0 && length < MAX_PATH * 4)
        module = LoadLibraryExW(full, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
    if (!module)
        system_message(length ? GetLastError() : ERROR_FILENAME_EXCED_RANGE, reason, capacity);
    SetErrorMode(old_mode);
    return (library *)module; /* kept until exit */
}

library_function library_find(library *l, const char *name)
{
    return (library_function)GetProcAddress((HMODULE)l, name);
}
