/*
 * system_posix.c - system.h on POSIX: sysconf, /proc/cpuinfo and
 * posix_memalign.
 */
#define _XOPEN_SOURCE 700 /* posix_memalign beside C99 */
#include "platform/system.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

long processor_count(void)
{
    long count = sysconf(_SC_NPROCESSORS_ONLN);
    return count > 0 ? count : 1;
}

void processor_model(char *text, size_t size)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    snprintf(text, size, "unknown");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            colon += 1 + (colon[1] == ' ');
            colon[strcspn(colon, "\n")] = '\0';
            snprintf(text, size, "%s", colon);
            break;
        }
    }
    fclose(f);
}

void *allocate_aligned(size_t size, size_t alignment)
{
    void *block = NULL;
    return posix_memalign(&block, alignment, size) == 0 ? block : NULL;
}

void free_aligned(void *block)
{
    free(block);
}
