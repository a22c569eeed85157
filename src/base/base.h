/*
 * base.h - the bottom layer, which every other part of the library builds on:
 * error reporting, resolved tensor layouts, index decoding and the OpenMP
 * shims.  Not installed.
 */
#ifndef DMLREF_BASE_H
#define DMLREF_BASE_H

#include "base/printf_like.h"
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
#define read_index dmlref__read_index
#define normalize_index dmlref__normalize_index
#define format_index dmlref__format_index
#define format_coordinates dmlref__format_coordinates
#define report_out_of_range dmlref__report_out_of_range
#define check_batches_inside dmlref__check_batches_inside

/* ---- errors (status.c) ---------------------------------------------- */

/* Fills err (if not NULL) and returns status.  The message is printf-style
 * and ends with " (rule)" when rule is not empty. */
PRINTF_LIKE(4, 5)
dmlref_status set_error(dmlref_error *err, dmlref_status status, const char *rule,
                        const char *format, ...);

/* Puts "source: path: " before err's message, keeping its status and rule. */
#define prefix_error dmlref__prefix_error
void prefix_error(dmlref_error *err, const char *source, const char *path);

/* Every feature level, lowest first (status.c). */
#define FEATURE_LEVEL_COUNT 15
#define feature_levels dmlref__feature_levels
extern const dmlref_feature_level feature_levels[FEATURE_LEVEL_COUNT];

/* ---- layouts (tensor.c, walker.c) --------------------------------------------- */

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

#define walker_init dmlref__walker_init
#define walker_add dmlref__walker_add
#define walker_seek dmlref__walker_seek
#define walker_coalesce dmlref__walker_coalesce

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

/* ---- indices (index.c) ---------------------------------------------- */

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

/* DMLREF_ERROR_INDEX_OUT_OF_RANGE naming the index coordinate, its value and
 * the dimension it indexes (D1, D2). */
dmlref_status report_out_of_range(dmlref_error *err, const char *op, const layout *indices,
                                  const void *data, dmlref_tensor_data_type type, uint64_t pos,
                                  uint64_t bound, const char *bound_name, uint32_t bound_dim,
                                  const char *rule);

/* GATHER_ND1 reads Input at the output's batch coordinates, which follow the
 * indices' batch sizes (R-GN-6).  Where IndicesTensor has more batches than
 * InputTensor along a batch dimension, those reads fall outside the input:
 * DirectML accepts such a case, and what it reads there is undefined.  So
 * the execution is refused, under every out-of-range policy, before anything
 * is written: DMLREF_ERROR_INDEX_OUT_OF_RANGE, R-GN-6. */
dmlref_status check_batches_inside(dmlref_error *err, const char *op, const layout *input,
                                   const layout *indices, uint32_t m, uint32_t q, uint32_t b);

/* Returns the status of `expr` from the function at hand unless it is
 * DMLREF_OK. */
#define CHECK(expr)                                                                                \
    do {                                                                                           \
        dmlref_status status_ = (expr);                                                            \
        if (status_ != DMLREF_OK)                                                                  \
            return status_;                                                                        \
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

/* ---- kernels ----------------------------------------------------------- */

/* Each kernel receives a descriptor that dmlref_validate() accepted and
 * buffers that execute checked; it checks only the index values, which
 * depend on the data, before it writes anything. */
typedef struct kernel_context {
    const char *op_name;
    int clamp;            /* DMLREF_OOB_CLAMP */
    uint32_t num_threads; /* 0: OpenMP default */
} kernel_context;

/* The team a kernel's parallel loops ask for (team_size of its request). */
static inline int kernel_team(const kernel_context *ctx)
{
    return team_size(ctx->num_threads);
}

#endif /* DMLREF_BASE_H */
