/*
 * bench_buffers.c - the memory of dmlref bench: buffers on large pages,
 * first-touched by the threads that will use them, and the passes over
 * memory that the kernels are measured against (a copy, a read), each split
 * statically over T threads in 64-byte lines.
 */
#include "cli/bench.h"
#include "platform/memory.h"
#include "platform/system.h"

#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

static int thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

static int thread_count(void)
{
#ifdef _OPENMP
    return omp_get_num_threads();
#else
    return 1;
#endif
}

/* Bytes [lo, hi) of `n` that thread t of `count` owns: equal parts, cut at 64 B. */
static void thread_part(size_t n, int t, int count, size_t *lo, size_t *hi)
{
    size_t lines = (n + 63) / 64;
    *lo = lines * (size_t)t / (size_t)count * 64;
    *hi = lines * (size_t)(t + 1) / (size_t)count * 64;
    if (*lo > n)
        *lo = n;
    if (*hi > n)
        *hi = n;
}

/* Large pages as NumPy's arrays have them: a gather reads its input at a TLB
   miss per 4 KiB page without them. */
void *bench_alloc(size_t bytes, uint32_t threads, int touch)
{
    void *p;
    size_t size = (bytes + 4095) / 4096 * 4096;
    if (size == 0)
        size = 4096;
    if (!(p = allocate_aligned(size, (size_t)2 << 20)))
        return NULL;
    memory_advise_large_pages(p, size);
    if (!touch)
        return p;
#ifdef _OPENMP
#pragma omp parallel num_threads((int)threads)
#endif
    {
        size_t lo, hi;
        thread_part(size, thread_id(), thread_count(), &lo, &hi);
        memset((unsigned char *)p + lo, 0, hi - lo);
    }
    (void)threads;
    return p;
}

void parallel_copy(void *dst, const void *src, size_t n, uint32_t threads)
{
#ifdef _OPENMP
#pragma omp parallel num_threads((int)threads)
#endif
    {
        size_t lo, hi;
        thread_part(n, thread_id(), thread_count(), &lo, &hi);
        memcpy((unsigned char *)dst + lo, (const unsigned char *)src + lo, hi - lo);
    }
    (void)threads;
}

/* The OR of the words read goes here, so that the loads stay. */
static volatile uint64_t read_sink;

void parallel_read(const void *src, size_t n, uint32_t threads)
{
    uint64_t all = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads((int)threads) reduction(| : all)
#endif
    {
        const unsigned char *p = src;
        uint64_t any[4] = {0, 0, 0, 0};
        size_t lo, hi, k;
        thread_part(n / 32, thread_id(), thread_count(), &lo, &hi);
        for (k = lo * 32; k < hi * 32; k += 32) {
            uint64_t w[4];
            memcpy(w, p + k, sizeof w);
            any[0] |= w[0], any[1] |= w[1], any[2] |= w[2], any[3] |= w[3];
        }
        all |= any[0] | any[1] | any[2] | any[3];
    }
    read_sink = all;
    (void)threads;
}
