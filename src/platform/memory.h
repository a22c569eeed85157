/*
 * memory.h - memory that dmlref shares with a worker process
 * (src/platform/process.h), the protection of its pages, and the size of
 * the pages of large buffers.
 *
 * dmlref creates the memory and passes it to the worker it starts; the
 * worker sees the same bytes (not a copy), possibly at another address:
 * what lies where must be said in offsets from the start.  Where the two
 * addresses differ they are at least MEMORY_SHARED_ALIGNMENT apart in
 * alignment terms: an address aligned to that in one process is aligned
 * the same in the other.
 */
#ifndef DMLREF_PLATFORM_MEMORY_H
#define DMLREF_PLATFORM_MEMORY_H

#include <stddef.h>

/* The page: the unit of protection. */
size_t memory_page_size(void);

/* What a start address aligned to this in dmlref is aligned to in the
   worker too (its view of the memory may lie elsewhere). */
#define MEMORY_SHARED_ALIGNMENT ((size_t)65536)

typedef struct shared_memory shared_memory;

/* At least `size` bytes, zeroed, readable and writable, page-aligned; NULL
   (errno set) when they cannot be had.  Pages cost memory only once
   touched, as far as the system allows. */
shared_memory *shared_memory_create(size_t size);
unsigned char *shared_memory_bytes(const shared_memory *m);
size_t shared_memory_size(const shared_memory *m);
/* Unmaps it here (a worker keeps its own view until it ends). */
void shared_memory_free(shared_memory *m);

/* How a range of whole pages may be used. */
typedef enum memory_access { MEMORY_NO_ACCESS, MEMORY_READ_WRITE } memory_access;

/* Sets the access to the pages of [start, start + size); start is a page
   boundary.  1 done, 0 not. */
int memory_protect(void *start, size_t size, memory_access access);

/* In a worker: the processes it starts from now on do not share
   [start, start + size) (Linux: madvise MADV_DONTFORK, so that a fork of a
   plug-in's that lives on cannot write into later cases' buffers; Windows:
   a started process shares no memory it is not given).  Elsewhere on POSIX
   nothing: a fork keeps the mapping, and only the kill of everything the
   worker started at the end of the run ends such writes.  start is a page
   boundary. */
void memory_keep_from_children(void *start, size_t size);

/* Asks for [start, start + size) to be backed by large pages where the
   system leaves that to the program (Linux's transparent huge pages in
   their "madvise" mode), as NumPy asks for its arrays of 4 MiB and more; a
   hint that does nothing elsewhere.  start is a page boundary. */
void memory_advise_large_pages(void *start, size_t size);

/* For process_*.c: what a worker inherits to see the same memory (a handle
   on Windows; NULL on POSIX, where fork shares the mapping). */
void *shared_memory_inheritable(const shared_memory *m);

#endif /* DMLREF_PLATFORM_MEMORY_H */
