/*
 * internal.h - what the library's files share and do not export: error
 * reporting, resolved tensor layouts, the strided odometer, index decoding
 * and the OpenMP shims.  Not installed.
 */
#ifndef DMLREF_INTERNAL_H
#define DMLREF_INTERNAL_H

#include "dmlref.h"

#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#define MAX_RANK DMLREF_TENSOR_DIMENSION_COUNT_MAX

/* The library's internal functions keep short names in the code and get the
 * dmlref_ prefix in the object files, so a static link never collides with a
 * user's symbols (make check-symbols verifies it). */
#define set_error dmlref__set_error
#define layout_from_desc dmlref__layout_from_desc
#define layout_element_count dmlref__layout_element_count
#define coordinates_of dmlref__coordinates_of
#define walker_init dmlref__walker_init
#define walker_add dmlref__walker_add
#define walker_seek dmlref__walker_seek
#define walker_coalesce dmlref__walker_coalesce
#define runs_init dmlref__runs_init
#define runs_seek dmlref__runs_seek
#define copy_run dmlref__copy_run
#define gather_indexed_run dmlref__gather_indexed_run
#define scatter_indexed_run dmlref__scatter_indexed_run
#define gather_over_runs dmlref__gather_over_runs
#define first_out_of_range_run dmlref__first_out_of_range_run
#define read_index dmlref__read_index
#define normalize_index dmlref__normalize_index
#define format_index dmlref__format_index
#define format_coordinates dmlref__format_coordinates
#define find_out_of_range dmlref__find_out_of_range
#define report_out_of_range dmlref__report_out_of_range

/* ---- errors (src/status.c) ---------------------------------------------- */

/* Fills err (if not NULL) and returns status.  The message is printf-style
 * and ends with " (rule)" when rule is not empty. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
dmlref_status set_error(dmlref_error *err, dmlref_status status, const char *rule,
                        const char *format, ...);

/* Puts "source: path: " before err's message, keeping its status and rule. */
#define prefix_error dmlref__prefix_error
void prefix_error(dmlref_error *err, const char *source, const char *path);

/* ---- layouts (src/tensor.c) --------------------------------------------- */

/* A tensor as the kernels see it: sizes and strides in elements, always
 * explicit (packed strides filled in when the descriptor has none). */
typedef struct layout {
    uint32_t rank;
    uint32_t element_size;
    uint64_t sizes[MAX_RANK];
    uint64_t strides[MAX_RANK];
} layout;

void layout_from_desc(const dmlref_tensor_desc *desc, layout *out);

/* Product of sizes: 0 when a size is 0, UINT64_MAX when the product does not
 * fit 64 bits (only a shape validation refuses can get there). */
uint64_t layout_element_count(const layout *l);

/* Logical (row-major) coordinates of flat position `pos` within `sizes`; a
 * size of 0 (a shape validation refuses) gives coordinate 0 there, never a
 * division by zero. */
void coordinates_of(uint64_t pos, uint32_t rank, const uint64_t *sizes, uint64_t *coord);

/* ---- the odometer -------------------------------------------------------
 * Walks the coordinates of a shape in row-major order and keeps, for up to
 * WALK_MAX_TENSORS tensors, the element offset sum(coord[i] * stride[i]).
 * Moving to the next coordinate costs an add per tensor, and a carry only
 * when a dimension wraps; no per-element division.  Offsets are unsigned, so
 * the subtraction on a carry is exact modular arithmetic. */

#define WALK_MAX_TENSORS 4

typedef struct walker {
    uint32_t rank;
    uint32_t tensor_count;
    uint64_t sizes[MAX_RANK];
    uint64_t coord[MAX_RANK];
    uint64_t strides[WALK_MAX_TENSORS][MAX_RANK];
    uint64_t offset[WALK_MAX_TENSORS];
} walker;

/* A walker over `sizes` (rank may be 0: one position) with no tensors yet. */
void walker_init(walker *w, uint32_t rank, const uint64_t *sizes);

/* Adds a tensor whose offsets follow `strides` (rank entries); returns its
 * slot.  At most WALK_MAX_TENSORS. */
uint32_t walker_add(walker *w, const uint64_t *strides);

/* Moves to flat position pos (row-major), computing coordinates and offsets. */
void walker_seek(walker *w, uint64_t pos);

/* Moves to the next position in row-major order. */
static inline void walker_next(walker *w)
{
    uint32_t d = w->rank;
    uint32_t t;
    while (d-- > 0) {
        if (++w->coord[d] < w->sizes[d]) {
            for (t = 0; t < w->tensor_count; ++t)
                w->offset[t] += w->strides[t][d];
            return;
        }
        /* wrap dimension d to 0 and carry into d - 1 */
        for (t = 0; t < w->tensor_count; ++t)
            w->offset[t] -= w->strides[t][d] * (w->sizes[d] - 1);
        w->coord[d] = 0;
    }
}

/* Merges the walk's dimensions where every tensor allows it: drops
 * dimensions of size 1 and joins neighbours d, d+1 when each tensor's
 * stride[d] == stride[d+1] * size[d+1] (broadcast stride 0 pairs join too).
 * The positions and their offsets are unchanged, in the same order; a packed
 * 8-D walk becomes 1-D.  This is what gives the inner loops below long runs.
 * Call it before walker_seek. */
void walker_coalesce(walker *w);

/* ---- runs ----------------------------------------------------------------
 * The kernels walk [begin, end) of a shape as runs along its last
 * dimension: an odometer over the other dimensions picks each run's start,
 * and an element-size-specialised loop (src/runs.c) does the run. */
typedef struct runs {
    walker outer;                     /* every dimension but the last */
    uint64_t length;                  /* the last dimension's size */
    uint64_t step[WALK_MAX_TENSORS];  /* each tensor's stride along it */
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
#else
#define prefetch_line(p) ((void)(p))
#endif

/* prefetch_line(p + bytes), where p + bytes may lie past p's buffer: the
 * sum is formed as an integer, since pointer arithmetic may not leave its
 * object, and a prefetch of any address is harmless. */
#define prefetch_ahead(p, bytes) prefetch_line((const void *)((uintptr_t)(p) + (bytes)))

/* ---- element moves -----------------------------------------------------
 * Gathers and scatters move bits, never values (D12): an element is 1, 2, 4
 * or 8 bytes copied with a fixed-size memcpy, so -0.0, NaN payloads and
 * subnormals survive and unaligned strides stay legal. */
static inline void copy_element(unsigned char *dst, const unsigned char *src, uint32_t size)
{
    switch (size) {
    case 1: memcpy(dst, src, 1); break;
    case 2: memcpy(dst, src, 2); break;
    case 4: memcpy(dst, src, 4); break;
    default: memcpy(dst, src, 8); break;
    }
}

/* ---- run loops (src/runs.c) ----------------------------------------------
 * The innermost loops, one per element size (1, 2, 4, 8 bytes), so the
 * compiler sees fixed-size loads and stores; strides are in elements. */

/* The statements once for each element size, with T the unsigned integer type of
 * that size (FLOAT16 moves as a uint16_t, FLOAT64 as a uint64_t). */
#define FOR_ELEMENT_SIZE(element_size, ...)                                                       \
    switch (element_size) {                                                                       \
    case 1: { typedef uint8_t T; __VA_ARGS__; break; }                                            \
    case 2: { typedef uint16_t T; __VA_ARGS__; break; }                                           \
    case 4: { typedef uint32_t T; __VA_ARGS__; break; }                                           \
    default: { typedef uint64_t T; __VA_ARGS__; break; }                                          \
    }

/* dst[j * dst_step] = src[j * src_step] for j < n (one memcpy when both are
 * contiguous; src_step may be 0, a broadcast). */
void copy_run(unsigned char *dst, uint64_t dst_step, const unsigned char *src,
              uint64_t src_step, uint64_t n, uint32_t element_size);

/* How an index selects along the indexed dimension: the index type, the
 * dimension's size and its stride (in elements) in the indexed tensor. */
typedef struct index_axis {
    dmlref_tensor_data_type type;
    uint64_t size;
    uint64_t stride;
} index_axis;

/* GatherElements' row: out[j * out_step] = in[j * in_step + i(j) * axis->stride],
 * where i(j) is idx[j * idx_step] normalised (negative from the end) and
 * clamped into [0, size): the strict policy has already rejected every
 * index that clamping would change. */
void gather_indexed_run(unsigned char *out, uint64_t out_step, const unsigned char *in,
                        uint64_t in_step, const unsigned char *idx, uint64_t idx_step,
                        const index_axis *axis, uint64_t n, uint32_t element_size);

/* gather_indexed_run over positions [begin, end) of a walk whose tensors
 * are, in slot order, the output, the indices and the input (its selected
 * dimension's stride left out): the whole loop of GatherElements, and of
 * GatherND when a tuple is one coordinate and a slice one element. */
void gather_over_runs(const runs *shape, uint64_t begin, uint64_t end, unsigned char *out,
                      const unsigned char *in, const unsigned char *idx, const index_axis *axis,
                      uint32_t element_size);

/* Scatter's row: out[j * out_step + i(j) * axis->stride] = upd[j * upd_step],
 * j ascending, so of two updates to one element the later one stays. */
void scatter_indexed_run(unsigned char *out, uint64_t out_step, const unsigned char *upd,
                         uint64_t upd_step, const unsigned char *idx, uint64_t idx_step,
                         const index_axis *axis, uint64_t n, uint32_t element_size);

/* The first j < n whose idx[j * idx_step] lies outside [-size, size) (signed
 * types) or [0, size) (unsigned), or n when there is none. */
uint64_t first_out_of_range_run(const unsigned char *idx, uint64_t idx_step,
                                dmlref_tensor_data_type type, uint64_t size, uint64_t n);

/* ---- indices (src/index.c) ---------------------------------------------- */

/* The raw value of an index element widened without loss: signed types in
 * `value` (negative allowed), unsigned ones in `value` too when they fit
 * int64, otherwise flagged `huge` (always out of range). */
typedef struct index_value {
    int64_t value;
    int huge;
} index_value;

index_value read_index(const unsigned char *element, dmlref_tensor_data_type type);

/* Normalises an index against a dimension of `size` (R-IX-2..4): a negative
 * value v in [-size, -1] becomes v + size (signed types only carry
 * negatives).  Returns 1 and sets *out when the result lies in [0, size-1];
 * otherwise returns 0 and, under `clamp`, still sets *out to the nearest
 * bound. */
int normalize_index(index_value v, uint64_t size, int clamp, uint64_t *out);

/* Formats an index value for a message ("-4", "18446744073709551615"). */
void format_index(const unsigned char *element, dmlref_tensor_data_type type, char *buf,
                  size_t capacity);

/* Formats coordinates as "[1, 0, 2]". */
void format_coordinates(const uint64_t *coord, uint32_t rank, char *buf, size_t capacity);

/* The least row-major position of an index element that lies outside its
 * dimension (the bound of the element at position pos is
 * bounds[pos % bound_count]: one bound for GatherElements and Scatter, one
 * per tuple coordinate for GatherND), or NO_INDEX when all are in range.
 * The answer does not depend on the thread count. */
#define NO_INDEX UINT64_MAX
uint64_t find_out_of_range(const layout *indices, const void *data,
                           dmlref_tensor_data_type type, const uint64_t *bounds,
                           uint64_t bound_count, uint32_t num_threads);

/* DMLREF_ERROR_INDEX_OUT_OF_RANGE naming the index coordinate, its value and
 * the dimension it indexes (D1, D2). */
dmlref_status report_out_of_range(dmlref_error *err, const char *op, const layout *indices,
                                  const void *data, dmlref_tensor_data_type type, uint64_t pos,
                                  uint64_t bound, const char *bound_name, uint32_t bound_dim,
                                  const char *rule);

/* Returns the status of `expr` from the function at hand unless it is
 * DMLREF_OK. */
#define CHECK(expr)                                                                            \
    do {                                                                                       \
        dmlref_status status_ = (expr);                                                        \
        if (status_ != DMLREF_OK)                                                              \
            return status_;                                                                    \
    } while (0)

/* ---- threads ------------------------------------------------------------- */

/* Below this many elements a loop runs on one thread: forking a team costs
 * more than it saves. */
#define PARALLEL_MIN_ELEMENTS 32768u

static inline int thread_index(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

static inline int thread_total(void)
{
#ifdef _OPENMP
    return omp_get_num_threads();
#else
    return 1;
#endif
}

/* The team size for a parallel region: the caller's request, or OpenMP's
 * default.  Without OpenMP, 1. */
static inline int team_size(uint32_t requested)
{
#ifdef _OPENMP
    return requested ? (int)requested : omp_get_max_threads();
#else
    (void)requested;
    return 1;
#endif
}

/* The static split every parallel loop uses: thread t of n owns
 * [total * t / n, total * (t + 1) / n).  Fixed for a given n, so a second
 * pass sees the same chunks as the first (NonZero relies on it), and each
 * element's result never depends on n. */
static inline uint64_t chunk_begin(uint64_t total, int t, int n)
{
    /* total < 2^33 and n < 2^31 in practice; split the product to be safe */
    return (total / (uint64_t)n) * (uint64_t)t + (total % (uint64_t)n) * (uint64_t)t / (uint64_t)n;
}

/* GATHER_ND is GATHER_ND1 with BatchDimensionCount = 0 (R-GN-10). */
static inline dmlref_gather_nd1_desc gather_nd_as_nd1(const dmlref_gather_nd_desc *nd)
{
    dmlref_gather_nd1_desc nd1;
    nd1.InputTensor = nd->InputTensor;
    nd1.IndicesTensor = nd->IndicesTensor;
    nd1.OutputTensor = nd->OutputTensor;
    nd1.InputDimensionCount = nd->InputDimensionCount;
    nd1.IndicesDimensionCount = nd->IndicesDimensionCount;
    nd1.BatchDimensionCount = 0;
    return nd1;
}

/* ---- the kernels (reference/) -------------------------------------------- */

/* Each kernel receives a descriptor that dmlref_validate() accepted and
 * buffers that execute checked; it checks only the index values, which
 * depend on the data, before it writes anything. */
typedef struct kernel_context {
    const char *op_name;
    int clamp;            /* DMLREF_OOB_CLAMP */
    uint32_t num_threads; /* 0: OpenMP default */
} kernel_context;

dmlref_status dmlref_ref_gather_elements(const kernel_context *ctx,
                                         const dmlref_gather_elements_desc *desc,
                                         const void *input, const void *indices, void *output,
                                         dmlref_error *err);
dmlref_status dmlref_ref_scatter_elements(const kernel_context *ctx,
                                          const dmlref_scatter_elements_desc *desc,
                                          const void *input, const void *indices,
                                          const void *updates, void *output,
                                          dmlref_error *err);
dmlref_status dmlref_ref_gather_nd1(const kernel_context *ctx, const dmlref_gather_nd1_desc *desc,
                                    const void *input, const void *indices, void *output,
                                    dmlref_error *err);
dmlref_status dmlref_ref_nonzero_coordinates(const kernel_context *ctx,
                                             const dmlref_nonzero_coordinates_desc *desc,
                                             const void *input, void *output_count,
                                             void *output_coordinates, dmlref_error *err);

#endif /* DMLREF_INTERNAL_H */
