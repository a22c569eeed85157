/*
 * memory_windows.c - memory.h on Windows: a section backed by the paging
 * file (CreateFileMappingW), whose handle a worker inherits and maps again
 * (process_windows.c), at dmlref's address when that is free; views start
 * on the allocation granularity (64 KiB), hence MEMORY_SHARED_ALIGNMENT.
 * VirtualProtect sets the pages' access in the view at hand.
 */
#include "platform/memory.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <windows.h>

struct shared_memory {
    HANDLE section; /* not inheritable but while a worker starts */
    unsigned char *bytes;
    size_t size;
};

size_t memory_page_size(void)
{
    SYSTEM_INFO info;
    GetSystemInfo(&info);
    return info.dwPageSize > 0 ? (size_t)info.dwPageSize : 4096;
}

shared_memory *shared_memory_create(size_t size)
{
    shared_memory *m = malloc(sizeof *m);
    uint64_t wide = (uint64_t)size;
    if (!m) {
        errno = ENOMEM;
        return NULL;
    }
    m->section = CreateFileMappingW(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE | SEC_COMMIT,
                                    (DWORD)(wide >> 32), (DWORD)(wide & 0xFFFFFFFFu), NULL);
    m->bytes =
        m->section ? MapViewOfFile(m->section, FILE_MAP_READ | FILE_MAP_WRITE, 0, 0, size) : NULL;
    if (!m->bytes) {
        if (m->section)
            CloseHandle(m->section);
        free(m);
        errno = ENOMEM;
        return NULL;
    }
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
    UnmapViewOfFile(m->bytes);
    CloseHandle(m->section);
    free(m);
}

int memory_protect(void *start, size_t size, memory_access access)
{
    DWORD before;
    return VirtualProtect(start, size, access == MEMORY_READ_WRITE ? PAGE_READWRITE : PAGE_NOACCESS,
                          &before) != 0;
}

void *shared_memory_inheritable(const shared_memory *m)
{
    return m->section;
}

void memory_keep_from_children(void *start, size_t size)
{
    (void)start; /* a process started gets no view of it */
    (void)size;
}

void memory_advise_large_pages(void *start, size_t size)
{
    (void)start; /* large pages need a privilege that programs rarely hold */
    (void)size;
}
