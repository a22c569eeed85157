/*
 * memory_posix.c - memory.h on POSIX: an anonymous shared mapping, which a
 * forked worker sees at the same address; mprotect; madvise.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE, MADV_HUGEPAGE */
#include "platform/memory.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_NORESERVE
#define MAP_NORESERVE 0
#endif

struct shared_memory {
    unsigned char *bytes;
    size_t size;
};

size_t memory_page_size(void)
{
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 ? (size_t)page : 4096;
}

shared_memory *shared_memory_create(size_t size)
{
    shared_memory *m = malloc(sizeof *m);
    void *bytes;
    if (!m) {
        errno = ENOMEM;
        return NULL;
    }
    bytes =
        mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (bytes == MAP_FAILED) {
        int reason = errno;
        free(m);
        errno = reason;
        return NULL;
    }
    m->bytes = bytes;
    m->size = size;
    return m;
}

unsigned char *shared_memory_bytes(const shared_memory *m)
{
    return m->bytes;
}

size_t shared_memory_size(const shared_memory *m)
{
    return m->size;
}

void shared_memory_free(shared_memory *m)
{
    if (!m)
        return;
    munmap(m->bytes, m->size);
    free(m);
}

int memory_protect(void *start, size_t size, memory_access access)
{
    return mprotect(start, size,
                    access == MEMORY_READ_WRITE ? PROT_READ | PROT_WRITE : PROT_NONE) == 0;
}

void *shared_memory_inheritable(const shared_memory *m)
{
    (void)m;
    return NULL; /* fork shares the mapping, at the same address */
}

void memory_keep_from_children(void *start, size_t size)
{
#ifdef MADV_DONTFORK
    (void)madvise(start, size, MADV_DONTFORK);
#else
    (void)start;
    (void)size;
#endif
}

void memory_advise_large_pages(void *start, size_t size)
{
#ifdef MADV_HUGEPAGE
    (void)madvise(start, size, MADV_HUGEPAGE); /* a hint: refused, nothing changes */
#else
    (void)start;
    (void)size;
#endif
}
