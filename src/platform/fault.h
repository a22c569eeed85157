/*
 * fault.h - in a worker process (src/platform/process.h): telling a touch
 * of memory it may not touch (a page made inaccessible with memory_protect)
 * from any other crash, and ending at once.
 *
 * POSIX: a SIGSEGV and SIGBUS handler on a stack of its own, called only
 * for faults the processor raised (not a kill(1)).  Windows: a vectored
 * exception handler for EXCEPTION_ACCESS_VIOLATION (and
 * EXCEPTION_IN_PAGE_ERROR), called before any handler of the plug-in's own
 * (a plug-in that probes memory under __try is judged by its first touch).
 */
#ifndef DMLREF_PLATFORM_FAULT_H
#define DMLREF_PLATFORM_FAULT_H

#include <stdint.h>

/* Called with the address touched.  It may write to a worker_link
   (process.h) and end the process with process_exit_now; if it returns,
   the process crashes as it would have without it.  Only what is
   async-signal-safe may be used in it. */
typedef void (*access_fault_handler)(uintptr_t address);

/* From now on, faults of this process go to `handler` first (not those of
   a process it forks: they crash as they would have). */
void fault_catch_access(access_fault_handler handler);

/* Ends this process at once with `code` (0 to 125): no exit handlers, no
   flushing of stdio buffers. */
void process_exit_now(int code);

#endif /* DMLREF_PLATFORM_FAULT_H */
