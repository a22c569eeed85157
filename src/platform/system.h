/*
 * system.h - the machine dmlref runs on, as the operating system has it
 * (system_posix.c, system_windows.c): processors and aligned memory.
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

#endif /* DMLREF_PLATFORM_SYSTEM_H */
