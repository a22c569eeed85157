/*
 * system_windows.c - system.h on Windows: GetActiveProcessorCount, the
 * registry and _aligned_malloc.
 */
#include "platform/system.h"

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
