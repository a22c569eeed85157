/*
 * kernels.h - the fast kernels and their machinery: runs along the last
 * dimension, element-size-specialised loops, requests ahead and streaming
 * stores.  Each kernel computes its reference kernel of reference/ bit for
 * bit, as the fast-versus-reference comparator (src/core/kernels_compare.c)
 * proves; README.md tells how they are fast.  Not installed.
 */
#ifndef DMLREF_KERNELS_H
#define DMLREF_KERNELS_H

#include "base/base.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define runs_init dmlref__runs_init
#define runs_seek dmlref__runs_seek
#define copy_run dmlref__copy_run
#define scatter_indexed_run dmlref__scatter_indexed_run
#define gather_over_runs dmlref__gather_over_runs
#define first_out_of_range_run dmlref__first_out_of_range_run
#define find_out_of_range dmlref__find_out_of_range
#define streaming_stores_available dmlref__streaming_stores_available
#define streamed_stores_done dmlref__streamed_stores_done

/* ---- runs ----------------------------------------------------------------
 * The kernels walk [begin, end) of a shape as runs along its last
 * dimension: an odometer over the other dimensions picks each run's start,
 * and an element-size-specialised loop (runs.c) does the run. */
typedef struct runs {
    walker outer;                    /* every dimension but the last */
    uint64_t length;                 /* the last dimension's size */
    uint64_t step[WALK_MAX_TENSORS]; /* each tensor's stride along it */
} runs;

/* Coalesces `full` (with its tensors added) and splits off its last
 * dimension. */
void runs_init(runs *r, const walker *full);

/* Moves to flat position pos; returns pos's place within its run. */
uint64_t runs_seek(runs *r, uint64_t pos);

/* How many positions the run has from place j on, at most `left`. */
static inline uint64_t run_length(const runs *r, uint64_t j, uint64_t left)
{
    return r->length - j < left ? r->length - j : left;
}

/* Asks for the cache line holding p ahead of its use, where the compiler
 * offers a way (GCC and Clang); elsewhere nothing.  Only a hint: it never
 * faults, so p may be any address. */
#if defined(__GNUC__)
#define prefetch_line(p) __builtin_prefetch((p), 0, 3)
#define prefetch_line_for_write(p) __builtin_prefetch((p), 1, 3)
#define prefetch_line_to_l2(p) __builtin_prefetch((p), 0, 2) /* prefetcht1 on x86 */
#else
#define prefetch_line(p) ((void)(p))
#define prefetch_line_for_write(p) ((void)(p))
#define prefetch_line_to_l2(p) ((void)(p))
#endif

/* The cache line the requests above are counted in: 64 bytes, as on
 * x86-64 (where lines are longer, a request per 64 bytes of a stream only
 * asks for some lines twice). */
#define LINE_BYTES 64

/* prefetch_line(p + bytes), where p + bytes may lie past p's buffer: the
 * sum is formed as an integer, since pointer arithmetic may not leave its
 * object, and a prefetch of any address is harmless (on a 32-bit host an
 * offset past 4 GiB wraps: still a harmless hint). */
#define prefetch_ahead(p, bytes) prefetch_line((const void *)((uintptr_t)(p) + (uintptr_t)(bytes)))
#define prefetch_ahead_for_write(p, bytes)                                                         \
    prefetch_line_for_write((const void *)((uintptr_t)(p) + (uintptr_t)(bytes)))
#define prefetch_ahead_to_l2(p, bytes)                                                             \
    prefetch_line_to_l2((const void *)((uintptr_t)(p) + (uintptr_t)(bytes)))

/* ---- element moves -----------------------------------------------------
 * Gathers and scatters move bits, never values (D12): an element is 1, 2, 4
 * or 8 bytes copied with a fixed-size memcpy, so -0.0, NaN payloads and
 * subnormals survive and unaligned strides stay legal. */
static inline void copy_element(unsigned char *dst, const unsigned char *src, uint32_t size)
{
    switch (size) {
    case 1:
        memcpy(dst, src, 1);
        break;
    case 2:
        memcpy(dst, src, 2);
        break;
    case 4:
        memcpy(dst, src, 4);
        break;
    default:
        memcpy(dst, src, 8);
        break;
    }
}

/* cond, telling the compiler it is almost always true (GCC and Clang), so
 * the common path is laid out straight. */
#if defined(__GNUC__)
#define usually(cond) __builtin_expect(!!(cond), 1)
#else
#define usually(cond) (cond)
#endif

/* ---- index readers -------------------------------------------------------
 * The index at p normalised (v in [-size, -1] means v + size, R-IX-2) and
 * clamped into [0, size) (D1's clamp policy; a no-op for indices the strict
 * policy let through).  One unsigned compare decides the common case, an
 * index already in [0, size): negative values wrap to 2^64 - |v|, above any
 * size.  Only the rest (negative, or clamped) take the longer way, so a run
 * of in-range indices costs a load, a compare and a branch that is always
 * predicted.  size <= 2^32 - 1, so nothing below overflows. */
static inline uint64_t index_settled(int64_t v, uint64_t size)
{
    int64_t s = (int64_t)size;
    v += v < 0 ? s : 0; /* a positive added to a negative: no overflow */
    return (uint64_t)(v < 0 ? 0 : v >= s ? s - 1 : v);
}

static inline uint64_t index_int32(const unsigned char *p, uint64_t size)
{
    int32_t v;
    memcpy(&v, p, 4);
    return usually((uint64_t)(int64_t)v < size) ? (uint64_t)v : index_settled(v, size);
}

static inline uint64_t index_int64(const unsigned char *p, uint64_t size)
{
    int64_t v;
    memcpy(&v, p, 8);
    return usually((uint64_t)v < size) ? (uint64_t)v : index_settled(v, size);
}

static inline uint64_t index_uint32(const unsigned char *p, uint64_t size)
{
    uint32_t v; /* unsigned indices are never negative (R-IX-3) */
    memcpy(&v, p, 4);
    return usually(v < size) ? v : size - 1;
}

static inline uint64_t index_uint64(const unsigned char *p, uint64_t size)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return usually(v < size) ? v : size - 1;
}

/* index_int32 .. index_uint64 by the index type: for loops that read a few
 * indices per element (GatherND's tuples), where a switch on a type that
 * never changes costs a predicted branch. */
static inline uint64_t index_of_type(const unsigned char *p, dmlref_tensor_data_type type,
                                     uint64_t size)
{
    switch (type) {
    case DMLREF_TENSOR_DATA_TYPE_INT32:
        return index_int32(p, size);
    case DMLREF_TENSOR_DATA_TYPE_INT64:
        return index_int64(p, size);
    case DMLREF_TENSOR_DATA_TYPE_UINT32:
        return index_uint32(p, size);
    default:
        return index_uint64(p, size);
    }
}

/* 16 bytes from src to dst, with a streaming store (stream, SSE2 only: dst
 * 16-byte aligned) or an ordinary one. */
static inline void move_16_bytes(unsigned char *dst, const unsigned char *src, int stream)
{
#if defined(__SSE2__)
    if (stream) {
        _mm_stream_si128((__m128i *)(void *)dst,
                         _mm_loadu_si128((const __m128i *)(const void *)src));
        return;
    }
#else
    (void)stream;
#endif
    memcpy(dst, src, 16);
}

/* `pieces` (at most 8) 16-byte moves, written out here: a jump into the
 * sequence, no loop to count.  stream is a constant where this is
 * inlined, so each caller gets moves of one kind. */
static inline void move_16_byte_pieces(unsigned char *dst, const unsigned char *src, size_t pieces,
                                       int stream)
{
    switch (pieces) {
    case 8:
        move_16_bytes(dst + 112, src + 112, stream);
        /* fall through */
    case 7:
        move_16_bytes(dst + 96, src + 96, stream);
        /* fall through */
    case 6:
        move_16_bytes(dst + 80, src + 80, stream);
        /* fall through */
    case 5:
        move_16_bytes(dst + 64, src + 64, stream);
        /* fall through */
    case 4:
        move_16_bytes(dst + 48, src + 48, stream);
        /* fall through */
    case 3:
        move_16_bytes(dst + 32, src + 32, stream);
        /* fall through */
    case 2:
        move_16_bytes(dst + 16, src + 16, stream);
        /* fall through */
    case 1:
        move_16_bytes(dst, src, stream);
        /* fall through */
    default: /* none */
        break;
    }
}

/* bytes from src to dst (they do not overlap): a short block, such as a
 * GatherND slice of a few elements, as 16-byte moves written out, since a
 * call to the library's memcpy costs more than the move itself; a long one
 * with memcpy. */
static inline void copy_bytes(unsigned char *dst, const unsigned char *src, size_t bytes)
{
    if (bytes > 128 || bytes % 16 != 0) {
        memcpy(dst, src, bytes);
        return;
    }
    move_16_byte_pieces(dst, src, bytes / 16, 0);
}

/* ---- run loops (runs.c) ----------------------------------------------
 * The innermost loops, one per element size (1, 2, 4, 8 bytes), so the
 * compiler sees fixed-size loads and stores; strides are in elements. */

/* The statements once for each element size, with T the unsigned integer type of
 * that size (FLOAT16 moves as a uint16_t, FLOAT64 as a uint64_t). */
#define FOR_ELEMENT_SIZE(element_size, ...)                                                        \
    switch (element_size) {                                                                        \
    case 1: {                                                                                      \
        typedef uint8_t T;                                                                         \
        __VA_ARGS__;                                                                               \
        break;                                                                                     \
    }                                                                                              \
    case 2: {                                                                                      \
        typedef uint16_t T;                                                                        \
        __VA_ARGS__;                                                                               \
        break;                                                                                     \
    }                                                                                              \
    case 4: {                                                                                      \
        typedef uint32_t T;                                                                        \
        __VA_ARGS__;                                                                               \
        break;                                                                                     \
    }                                                                                              \
    default: {                                                                                     \
        typedef uint64_t T;                                                                        \
        __VA_ARGS__;                                                                               \
        break;                                                                                     \
    }                                                                                              \
    }

/* dst[j * dst_step] = src[j * src_step] for j < n (one memcpy when both are
 * contiguous; src_step may be 0, a broadcast). */
void copy_run(unsigned char *dst, uint64_t dst_step, const unsigned char *src, uint64_t src_step,
              uint64_t n, uint32_t element_size);

/* How an index selects along the indexed dimension: the index type, the
 * dimension's size and its stride (in elements) in the indexed tensor. */
typedef struct index_axis {
    dmlref_tensor_data_type type;
    uint64_t size;
    uint64_t stride;
} index_axis;

/* Outputs smaller than this may lie in a core's own cache, where requests
 * ahead only cost instructions. */
#define REQUEST_MIN_BYTES ((uint64_t)4 << 20)

/* How gather_over_runs writes the output: with ordinary stores alone (an
 * output under REQUEST_MIN_BYTES), with ordinary stores and its lines
 * requested for writing ahead, or with streaming stores where its runs are
 * packed (gather_elements.c says when). */
typedef enum { OUTPUT_IN_CACHE, OUTPUT_REQUESTED, OUTPUT_STREAMED } output_writes;

/* GatherElements' rows over positions [begin, end) of a walk whose tensors
 * are, in slot order, the output, the indices and the input (its selected
 * dimension's stride left out): out = in[i * axis->stride], where i is the
 * index normalised (negative from the end) and clamped into [0, size): the
 * strict policy has already rejected every index that clamping would
 * change.  The whole loop of GatherElements, and of GatherND when a tuple
 * is one coordinate and a slice one element. */
void gather_over_runs(const runs *shape, uint64_t begin, uint64_t end, unsigned char *out,
                      const unsigned char *in, const unsigned char *idx, const index_axis *axis,
                      uint32_t element_size, output_writes writes);

/* Outputs at least this large may be written with streaming stores; smaller
 * ones may still be in cache when the caller reads them, which streaming
 * would undo. */
#define STREAM_MIN_BYTES ((uint64_t)64 << 20)

/* memcpy(dst, src, n), with dst's whole 16-byte-aligned blocks written by
 * streaming stores where the machine has them (SSE2: STREAMED_BYTES is 1);
 * the writer passes streamed_stores_done before its stores count as done. */
#if defined(__SSE2__)
#define STREAMED_BYTES 1
static inline void stream_bytes(unsigned char *dst, const unsigned char *src, size_t n)
{
    size_t k;
    if ((uintptr_t)dst % 16 == 0 && n % 16 == 0 && n <= 128) {
        /* the usual short slice: its moves written out, as in copy_bytes,
           with no loop whose count depends on dst's alignment */
        move_16_byte_pieces(dst, src, n / 16, 1);
        return;
    }
    k = (16 - (uintptr_t)dst % 16) % 16; /* ordinary stores up to a 16-byte boundary */
    if (k > n)
        k = n;
    if (k != 0) /* rare: the usual slice starts on a boundary */
        memcpy(dst, src, k);
    for (; k + 16 <= n; k += 16)
        move_16_bytes(dst + k, src + k, 1);
    if (k < n)
        memcpy(dst + k, src + k, n - k);
}
#else
#define STREAMED_BYTES 0
static inline void stream_bytes(unsigned char *dst, const unsigned char *src, size_t n)
{
    memcpy(dst, src, n);
}
#endif

/* Whether gather_over_runs can stream elements of this size
 * (OUTPUT_STREAMED: its packed runs then write past the caches), and the
 * fence each thread that streamed passes before its stores count as done. */
int streaming_stores_available(uint32_t element_size);
void streamed_stores_done(void);

/* Scatter's row: out[j * out_step + i(j) * axis->stride] = upd[j * upd_step],
 * j ascending, so of two updates to one element the later one stays.
 * request_updates: whether the updates are requested ahead (an output of
 * REQUEST_MIN_BYTES or more).  next_row: the packed input line the caller
 * copies next, or NULL; it is requested while the updates land where the
 * run is a packed row along the last axis whose first two indices are not
 * ascending neighbours. */
void scatter_indexed_run(unsigned char *out, uint64_t out_step, const unsigned char *upd,
                         uint64_t upd_step, const unsigned char *idx, uint64_t idx_step,
                         const index_axis *axis, uint64_t n, uint32_t element_size,
                         int request_updates, const unsigned char *next_row);

/* The first j < n whose idx[j * idx_step] lies outside [-size, size) (signed
 * types) or [0, size) (unsigned), or n when there is none. */
uint64_t first_out_of_range_run(const unsigned char *idx, uint64_t idx_step,
                                dmlref_tensor_data_type type, uint64_t size, uint64_t n);

/* The least row-major position of an index element that lies outside its
 * dimension (the bound of the element at position pos is
 * bounds[pos % bound_count]: one bound for GatherElements and Scatter, one
 * per tuple coordinate for GatherND), or NO_INDEX when all are in range.
 * The answer does not depend on the thread count. */
#define NO_INDEX UINT64_MAX
uint64_t find_out_of_range(const layout *indices, const void *data, dmlref_tensor_data_type type,
                           const uint64_t *bounds, uint64_t bound_count, uint32_t num_threads);

/* ---- the fast kernels ---------------------------------------------------- */

dmlref_status dmlref_fast_gather_elements(const kernel_context *ctx,
                                          const dmlref_gather_elements_desc *desc,
                                          const void *input, const void *indices, void *output,
                                          dmlref_error *err);
dmlref_status dmlref_fast_scatter_elements(const kernel_context *ctx,
                                           const dmlref_scatter_elements_desc *desc,
                                           const void *input, const void *indices,
                                           const void *updates, void *output, dmlref_error *err);
dmlref_status dmlref_fast_gather_nd1(const kernel_context *ctx, const dmlref_gather_nd1_desc *desc,
                                     const void *input, const void *indices, void *output,
                                     dmlref_error *err);
dmlref_status dmlref_fast_nonzero_coordinates(const kernel_context *ctx,
                                              const dmlref_nonzero_coordinates_desc *desc,
                                              const void *input, void *output_count,
                                              void *output_coordinates, dmlref_error *err);

#endif /* DMLREF_KERNELS_H */
