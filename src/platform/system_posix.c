/*
 * system_posix.c - system.h on POSIX: sysconf, /proc/cpuinfo,
 * posix_memalign, fork, execvp, waitpid.
 */
#define _XOPEN_SOURCE 700 /* posix_memalign beside C99 */
#include "platform/system.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
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

int program_on_path(const char *name)
{
    const char *path = getenv("PATH");
    char candidate[4096];
    size_t name_length = strlen(name);
    while (path && *path) {
        size_t n = strcspn(path, ":");
        if (n > 0 && n + 1 + name_length < sizeof candidate) {
            memcpy(candidate, path, n);
            candidate[n] = '/';
            strcpy(candidate + n + 1, name);
            if (access(candidate, X_OK) == 0)
                return 1;
        }
        path += n + (path[n] == ':');
    }
    return 0;
}

int run_program(char *const *argv, int *exit_status)
{
    pid_t child;
    int status;
    fflush(NULL); /* what this process printed comes first, and once */
    if ((child = fork()) < 0)
        return errno;
    if (child == 0) {
        execvp(argv[0], argv);
        _exit(127);
    }
    while (waitpid(child, &status, 0) < 0)
        if (errno != EINTR)
            return errno;
    *exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return 0;
}
