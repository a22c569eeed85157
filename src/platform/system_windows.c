/*
 * system_windows.c - system.h on Windows: GetActiveProcessorCount, the
 * registry, QueryPerformanceCounter, _aligned_malloc, SearchPath and
 * CreateProcess.
 */
#include "platform/system.h"

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

long processor_count(void)
{
    DWORD count = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    return count > 0 ? (long)count : 1;
}

void processor_model(char *text, size_t size)
{
    char name[256];
    DWORD length = sizeof name;
    if (RegGetValueA(HKEY_LOCAL_MACHINE, "HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0",
                     "ProcessorNameString", RRF_RT_REG_SZ, NULL, name, &length) == ERROR_SUCCESS)
        snprintf(text, size, "%s", name);
    else
        snprintf(text, size, "unknown");
}

void *allocate_aligned(size_t size, size_t alignment)
{
    return _aligned_malloc(size, alignment);
}

void free_aligned(void *block)
{
    _aligned_free(block);
}

int program_on_path(const char *name)
{
    return SearchPathA(NULL, name, ".exe", 0, NULL, NULL) > 0;
}

/* Appends one argument to a command line, quoted as the C library's
   startup code splits it: in quotes when it is empty or holds a blank or a
   quote; a quote escaped, and the backslashes before a quote (or before
   the closing one) doubled.  Returns the new end. */
static char *put_argument(char *end, const char *argument)
{
    const char *c;
    if (*argument && !strpbrk(argument, " \t\n\v\"")) {
        strcpy(end, argument);
        return end + strlen(argument);
    }
    *end++ = '"';
    for (c = argument;; ++c) {
        size_t backslashes = 0;
        while (*c == '\\')
            ++c, ++backslashes;
        if (!*c || *c == '"') {
            /* doubled: they stand before a quote */
            for (backslashes *= 2; backslashes > 0; --backslashes)
                *end++ = '\\';
            if (!*c)
                break;
            *end++ = '\\';
            *end++ = '"';
        } else {
            for (; backslashes > 0; --backslashes)
                *end++ = '\\';
            *end++ = *c;
        }
    }
    *end++ = '"';
    return end;
}

int run_program(char *const *argv, int *exit_status)
{
    STARTUPINFOA startup;
    PROCESS_INFORMATION process;
    DWORD code;
    size_t size = 1, i;
    char *line, *end;
    int reason = 0;

    /* at worst every character doubled, plus quotes and a blank */
    for (i = 0; argv[i]; ++i)
        size += 2 * strlen(argv[i]) + 3;
    if (!(line = malloc(size)))
        return ENOMEM;
    end = line;
    for (i = 0; argv[i]; ++i) {
        if (i)
            *end++ = ' ';
        end = put_argument(end, argv[i]);
    }
    *end = '\0';
    memset(&startup, 0, sizeof startup);
    startup.cb = sizeof startup;
    fflush(NULL); /* what this process printed comes first, and once */
    if (!CreateProcessA(NULL, line, NULL, NULL, TRUE, 0, NULL, NULL, &startup, &process)) {
        DWORD error = GetLastError();
        free(line);
        return error == ERROR_FILE_NOT_FOUND || error == ERROR_PATH_NOT_FOUND ? ENOENT
               : error == ERROR_ACCESS_DENIED                                 ? EACCES
                                                                              : EIO;
    }
    free(line);
    CloseHandle(process.hThread);
    if (WaitForSingleObject(process.hProcess, INFINITE) != WAIT_OBJECT_0 ||
        !GetExitCodeProcess(process.hProcess, &code))
        reason = EIO;
    else
        *exit_status = (int)code;
    CloseHandle(process.hProcess);
    return reason;
}
