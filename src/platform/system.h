/*
 * system.h - the machine and the programs beside dmlref, as the operating
 * system has them (system_posix.c, system_windows.c): processors,
 * aligned memory, and running another program to its end
 * (dmlref bench --plot runs gnuplot).
 */
#ifndef DMLREF_PLATFORM_SYSTEM_H
#define DMLREF_PLATFORM_SYSTEM_H

#include <stddef.h>

/* The processors online (at least 1). */
long processor_count(void);

/* The processor's name as the system gives it ("unknown" when it does not)
   into text, cut to size: /proc/cpuinfo's model name on Linux, the
   registry's ProcessorNameString on Windows. */
void processor_model(char *text, size_t size);

/* `size` bytes at an address that is a multiple of `alignment` (a power of
   two, a multiple of sizeof(void *)), or NULL; freed with free_aligned
   only (on Windows free() would not do). */
void *allocate_aligned(size_t size, size_t alignment);
void free_aligned(void *block);

/* 1 when a program of that name would be found to run: an executable file
   in a folder of PATH (on Windows, NAME.exe where CreateProcess looks). */
int program_on_path(const char *name);

/* Runs argv[0], found as program_on_path finds it, with the arguments
   argv[1...] (NULL-terminated) and this process's standard streams, which
   are flushed first, and waits for it to end: 0 and its exit status in
   *exit_status (-1 when a signal ended it; 127 on POSIX when it could not
   be started), or the reason it could not run.  On Windows each argument
   is quoted as the C library splits a command line, so an argument keeps
   its spaces and quotes. */
int run_program(char *const *argv, int *exit_status);

#endif /* DMLREF_PLATFORM_SYSTEM_H */
