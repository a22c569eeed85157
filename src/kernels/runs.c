/*
 * runs.c - the innermost loops of the fast kernels (gather_elements.c,
 * scatter_elements.c, gather_nd.c): runs of elements along one dimension,
 * and the strict policy's search for an index out of range.  What they
 * compute is the reference kernels' (reference/), proven by the
 * fast-versus-reference comparator (src/core/kernels_compare.c), which
 * dmlref fuzz, eval and verify --kernels fast and tests/unit/test_random.c
 * run.
 *
 * Every operator moves whole elements of 1, 2, 4 or 8 bytes (their bits,
 * never their values: D12), so each loop exists once per element size, not
 * once per data type: FLOAT16 is a 2-byte move, FLOAT64 and UINT64 8-byte
 * ones.  Loads and stores go through fixed-size memcpy, which compiles to
 * one (possibly unaligned) move and keeps odd strides legal C.  How the
 * loops are fast is told where each technique is used, below, and in
 * README.md.
 */
#include "kernels/kernels.h"

void runs_init(runs *r, const walker *full)
{
    uint32_t t, last;
    r->outer = *full;
    walker_coalesce(&r->outer);
    last = r->outer.rank - 1;
    r->length = r->outer.sizes[last];
    for (t = 0; t < WALK_MAX_TENSORS; ++t)
        r->step[t] = t < r->outer.tensor_count ? r->outer.strides[t][last] : 0;
    r->outer.rank = last;
}

uint64_t runs_seek(runs *r, uint64_t pos)
{
    walker_seek(&r->outer, pos / r->length);
    return pos % r->length;
}

/* Streaming stores (movnti): an 8-byte element written past the caches,
 * without its line being read first, which an ordinary store does.  Only
 * x86-64 has them for 8 bytes; there, gather_over_runs uses them when its
 * caller asks (gather_elements.c says when).  Elsewhere, and for the other
 * sizes, ordinary stores.  Contiguous bytes stream through stream_bytes
 * (kernels.h). */
#if defined(__SSE2__) && defined(__x86_64__)
#define STREAMED_SIZE(size) ((size) == 8)
static inline void stream_element(unsigned char *dst, const unsigned char *src, size_t size)
{
    long long v;
    if (size != 8) {
        memcpy(dst, src, size);
        return;
    }
    memcpy(&v, src, 8);
    _mm_stream_si64((long long *)(void *)dst, v); /* dst is 8-byte aligned: the caller's rule */
}
#else
#define STREAMED_SIZE(size) 0
static inline void stream_element(unsigned char *dst, const unsigned char *src, size_t size)
{
    memcpy(dst, src, size);
}
#endif

int streaming_stores_available(uint32_t element_size)
{
    (void)element_size; /* unused where nothing streams */
    return STREAMED_SIZE(element_size);
}

void streamed_stores_done(void)
{
#if defined(__SSE2__)
    _mm_sfence(); /* streamed stores are weakly ordered: done before the caller reads */
#endif
}

/* The out-of-range search tests a block at a time. */
#define RUN_BLOCK 256

void copy_run(unsigned char *dst, uint64_t dst_step, const unsigned char *src, uint64_t src_step,
              uint64_t n, uint32_t element_size)
{
    uint64_t j;
    if (dst_step == 1 && src_step == 1) {
        memcpy(dst, src, (size_t)(n * element_size)); /* a run lies in one buffer */
        return;
    }
    FOR_ELEMENT_SIZE(element_size, {
        for (j = 0; j < n; ++j)
            memcpy(dst + j * dst_step * sizeof(T), src + j * src_step * sizeof(T), sizeof(T));
    })
}

/* A run's loop exists once for each index type (I: its reader, IB: its
 * size in bytes) and element size (T): 16 loops, each with fixed-size loads
 * and stores.  Generated, because one loop with the two switches inside,
 * or two loops joined by a block of offsets, is much slower.  Each is a
 * function of its own (DEFINE(name, I, IB, element size) below), called
 * through a table, which keeps the compiler from joining them into one
 * again: the time to compile grows faster than the code, most under the
 * sanitizers. */
#define FOR_EACH_ELEMENT_SIZE(DEFINE, name, I, IB)                                                 \
    DEFINE(name##_1, I, IB, 1)                                                                     \
    DEFINE(name##_2, I, IB, 2) DEFINE(name##_4, I, IB, 4) DEFINE(name##_8, I, IB, 8)
#define FOR_EACH_INDEX_TYPE(DEFINE, name)                                                          \
    FOR_EACH_ELEMENT_SIZE(DEFINE, name##_int32, index_int32, 4)                                    \
    FOR_EACH_ELEMENT_SIZE(DEFINE, name##_int64, index_int64, 8)                                    \
    FOR_EACH_ELEMENT_SIZE(DEFINE, name##_uint32, index_uint32, 4)                                  \
    FOR_EACH_ELEMENT_SIZE(DEFINE, name##_uint64, index_uint64, 8)
#define TABLE_ENTRY(name, I, IB, element_size) name,

/* A loop's entry in the tables: FOR_EACH_INDEX_TYPE's order. */
static int loop_entry(dmlref_tensor_data_type index_type, uint32_t element_size)
{
    const int by_size = element_size == 1 ? 0 : element_size == 2 ? 1 : element_size == 4 ? 2 : 3;
    switch (index_type) {
    case DMLREF_TENSOR_DATA_TYPE_INT32:
        return by_size;
    case DMLREF_TENSOR_DATA_TYPE_INT64:
        return 4 + by_size;
    case DMLREF_TENSOR_DATA_TYPE_UINT32:
        return 8 + by_size;
    default:
        return 12 + by_size;
    }
}

/* Index elements are requested this many ahead of their use: the
 * hardware prefetchers follow the streams of a plain loop, but lag behind
 * the index stream. */
#define INDEX_PREFETCH 128

/* The output a gather writes is requested this many positions ahead too,
 * a line at a time and for writing (unless it is written with streaming
 * stores, which need no line in the cache), where the output is of
 * REQUEST_MIN_BYTES or more. */
#define ELEMENT_PREFETCH 256

/* A Scatter's loop requests its two streams, the indices and the updates
 * (where the output is of REQUEST_MIN_BYTES or more), this many bytes of
 * a packed stream ahead and into L2, not L1.  A request into L1 holds one
 * of the core's few line fill buffers until its line arrives from memory,
 * which slows the loop's reads of those streams; the strict pass requests
 * into L2 for the same reason.  Further ahead helps some processors and
 * hurts others. */
#define SCATTER_AHEAD_BYTES 2048

/* Where the selected elements lie far apart in no order, each is a miss
 * the prefetchers cannot foresee; the loop then requests the element
 * selected this many positions ahead, so that many misses are in flight
 * instead of one.  On other runs the requests only cost, so only a run
 * that spreads over more than SCATTERED_SPAN bytes and whose first two
 * indices are neither equal nor neighbours makes them: a run along axis 0
 * with one index throughout is sequential, and a transposed input read
 * with ascending indices, a step of a whole row each time, is slower with
 * them. */
#define SELECTED_PREFETCH 16
#define SCATTERED_SPAN (1u << 20)

/* A gathered row read out of order (reversed, or random within the row)
 * defeats the prefetchers: its lines are missed one by one.  The loop of
 * such a row requests the next run's row, one line per 64 bytes of the
 * row in order, while it gathers this one, so that row is in cache when
 * its turn comes.  A row read in order (the first two indices ascending
 * neighbours) is requested ahead in its own way (below). */

/* A gathered row read in order (the first two indices ascending
 * neighbours) is a stream the prefetchers follow, beside the index stream
 * and the output.  Its loop requests both read streams IN_ORDER_AHEAD
 * positions ahead into L2 as well, as the strict pass and the Scatter do
 * theirs, so that more of them are on the way at once; one stream's
 * requests alone do not pay. */
#define IN_ORDER_AHEAD 512

/* What a run's loop requests ahead besides its indices. */
enum { REQUEST_NOTHING, REQUEST_SELECTED_ELEMENTS, REQUEST_NEXT_ROW, REQUEST_ROW_IN_ORDER };

static int far_apart(uint64_t a, uint64_t b)
{
    return a > b + 1 || b > a + 1;
}

/* A run's loop.  ONE(I, IB, XS, ES, SS, SL, j) does position j: XS is the
 * index step, ES the step of the stream that moves one element per
 * position, and the element the index selects lies at i(j) * SS + j * SL
 * in `selected`.  Besides the indices it requests that stream where
 * `ahead` is not NULL: into L2 where `streams_to_l2` is 1 (a Scatter,
 * SCATTER_AHEAD_BYTES), else for writing (a gather's output,
 * ELEMENT_PREFETCH).  AHEAD: what else it requests, the selected elements
 * SELECTED_PREFETCH positions ahead or `next_row`.
 *
 * Unrolled by 8, so that the loop's own bookkeeping, its tests of what to
 * request and the index request are paid once per 8 elements: a line of
 * INT64 indices, and a line of the element stream where it moves 8 bytes
 * a position or fewer (of a wider stream every other line or fewer is
 * requested; the prefetchers follow it). */
#define REQUEST_SELECTED(I, IB, XS, SS, SL, j)                                                     \
    prefetch_line(selected + (I(idx + (j) * (XS)*IB, size) * (SS) + (j) * (SL)) * sizeof(T))

#define REQUEST_FOUR_SELECTED(I, IB, XS, SS, SL, j)                                                \
    REQUEST_SELECTED(I, IB, XS, SS, SL, j);                                                        \
    REQUEST_SELECTED(I, IB, XS, SS, SL, (j) + 1);                                                  \
    REQUEST_SELECTED(I, IB, XS, SS, SL, (j) + 2);                                                  \
    REQUEST_SELECTED(I, IB, XS, SS, SL, (j) + 3)

#define FOUR_POSITIONS(ONE, I, IB, XS, ES, SS, SL, j)                                              \
    ONE(I, IB, XS, ES, SS, SL, j);                                                                 \
    ONE(I, IB, XS, ES, SS, SL, (j) + 1);                                                           \
    ONE(I, IB, XS, ES, SS, SL, (j) + 2);                                                           \
    ONE(I, IB, XS, ES, SS, SL, (j) + 3)

/* Whether the 8 positions from j start a line of the stream that moves ES
   elements a position. */
#define AT_A_LINE(ES, j) (((j) * (ES) * sizeof(T)) % LINE_BYTES < 8 * (ES) * sizeof(T))

#define UNROLLED_RUN(ONE, I, IB, XS, ES, SS, SL, AHEAD)                                            \
    for (j = 0; j + 8 <= n; j += 8) {                                                              \
        if (streams_to_l2) { /* a Scatter's indices and updates */                                 \
            prefetch_ahead_to_l2(idx, ((j)*IB + SCATTER_AHEAD_BYTES) * (XS));                      \
            if (ahead && AT_A_LINE(ES, j))                                                         \
                prefetch_ahead_to_l2(ahead, ((j) * sizeof(T) + SCATTER_AHEAD_BYTES) * (ES));       \
        } else { /* a gather's indices, and its output for writing */                              \
            prefetch_ahead(idx, (j + INDEX_PREFETCH) * (XS)*IB);                                   \
            if (ahead && AT_A_LINE(ES, j))                                                         \
                prefetch_ahead_for_write(ahead, (j + ELEMENT_PREFETCH) * (ES) * sizeof(T));        \
            if ((AHEAD) == REQUEST_ROW_IN_ORDER) {                                                 \
                prefetch_ahead_to_l2(idx, (j + IN_ORDER_AHEAD) * IB);                              \
                if (AT_A_LINE(1, j))                                                               \
                    prefetch_ahead_to_l2(selected, (j + IN_ORDER_AHEAD) * sizeof(T));              \
            }                                                                                      \
        }                                                                                          \
        if ((AHEAD) == REQUEST_SELECTED_ELEMENTS && j + SELECTED_PREFETCH + 8 <= n) {              \
            REQUEST_FOUR_SELECTED(I, IB, XS, SS, SL, j + SELECTED_PREFETCH);                       \
            REQUEST_FOUR_SELECTED(I, IB, XS, SS, SL, j + SELECTED_PREFETCH + 4);                   \
        }                                                                                          \
        if ((AHEAD) == REQUEST_NEXT_ROW && (j * sizeof(T)) % LINE_BYTES < 8 * sizeof(T) &&         \
            j < size)                                                                              \
            prefetch_ahead(next_row, j * sizeof(T));                                               \
        FOUR_POSITIONS(ONE, I, IB, XS, ES, SS, SL, j);                                             \
        FOUR_POSITIONS(ONE, I, IB, XS, ES, SS, SL, j + 4);                                         \
    }                                                                                              \
    for (; j < n; ++j)                                                                             \
        ONE(I, IB, XS, ES, SS, SL, j);

/* The run's loop for its steps: the packed cases get loops whose steps are
 * constants, so the compiler addresses with one register and an offset and
 * drops the multiplications: a row along the last axis (the selected
 * element is the index itself), a packed run along another axis, and any
 * steps; a scattered run, a gathered row read in order and a row out of
 * order (above) request ahead. */
#define RUN_FOR_STEPS(ONE, I, IB, xs, es, ss, sl)                                                  \
    if (wide && n >= 2 && far_apart(I(idx, size), I(idx + (xs)*IB, size))) {                       \
        UNROLLED_RUN(ONE, I, IB, xs, es, ss, sl, REQUEST_SELECTED_ELEMENTS)                        \
    } else if (!streams_to_l2 && (xs) == 1 && (ss) == 1 && (sl) == 0 && n >= 2 &&                  \
               I(idx + IB, size) == I(idx, size) + 1) {                                            \
        if ((es) == 1) {                                                                           \
            UNROLLED_RUN(ONE, I, IB, 1, 1, 1, 0, REQUEST_ROW_IN_ORDER)                             \
        } else { /* a strided output */                                                            \
            UNROLLED_RUN(ONE, I, IB, 1, es, 1, 0, REQUEST_ROW_IN_ORDER)                            \
        }                                                                                          \
    } else if ((xs) == 1 && (es) == 1 && (ss) == 1 && (sl) == 0 && next_row && n >= 2 &&           \
               I(idx + IB, size) != I(idx, size) + 1) {                                            \
        UNROLLED_RUN(ONE, I, IB, 1, 1, 1, 0, REQUEST_NEXT_ROW)                                     \
    } else if ((xs) == 1 && (es) == 1 && (ss) == 1 && (sl) == 0) {                                 \
        UNROLLED_RUN(ONE, I, IB, 1, 1, 1, 0, REQUEST_NOTHING)                                      \
    } else if ((xs) == 1 && (es) == 1) {                                                           \
        UNROLLED_RUN(ONE, I, IB, 1, 1, ss, sl, REQUEST_NOTHING)                                    \
    } else {                                                                                       \
        UNROLLED_RUN(ONE, I, IB, xs, es, ss, sl, REQUEST_NOTHING)                                  \
    }

/* out[j * out_step] = in[i(j) * stride + j * in_step] */
#define GATHER_ONE(I, IB, XS, ES, SS, SL, j)                                                       \
    do {                                                                                           \
        uint64_t at = I(idx + (j) * (XS)*IB, size) * (SS) + (j) * (SL);                            \
        memcpy(out + (j) * (ES) * sizeof(T), in + at * sizeof(T), sizeof(T));                      \
    } while (0)

/* The same with a streaming store, for a packed output (ES is 1). */
#define GATHER_ONE_STREAMED(I, IB, XS, ES, SS, SL, j)                                              \
    stream_element(out + (j) * sizeof(T),                                                          \
                   in + (I(idx + (j) * (XS)*IB, size) * (SS) + (j) * (SL)) * sizeof(T), sizeof(T))

#define GATHER_LOOP(I, IB)                                                                         \
    if (STREAMED_SIZE(sizeof(T)) && writes == OUTPUT_STREAMED && out_step == 1) {                  \
        RUN_FOR_STEPS(GATHER_ONE_STREAMED, I, IB, idx_step, 1, stride, in_step)                    \
    } else {                                                                                       \
        RUN_FOR_STEPS(GATHER_ONE, I, IB, idx_step, out_step, stride, in_step)                      \
    }

/* One run of gather_over_runs; next_row: where the next run's input row
 * starts, or NULL for the last run. */
#define GATHER_RUN_PARAMS                                                                          \
    unsigned char *out, uint64_t out_step, const unsigned char *in, uint64_t in_step,              \
        const unsigned char *idx, uint64_t idx_step, const index_axis *axis, uint64_t n,           \
        uint32_t element_size, const unsigned char *next_row, output_writes writes
#define DEFINE_GATHER_RUN(name, I, IB, ELEMENT_SIZE)                                               \
    static void name(GATHER_RUN_PARAMS)                                                            \
    {                                                                                              \
        const uint64_t size = axis->size, stride = axis->stride;                                   \
        const unsigned char *selected = in, *ahead = writes == OUTPUT_REQUESTED ? out : NULL;      \
        const int streams_to_l2 = 0, wide = size * stride * element_size > SCATTERED_SPAN;         \
        uint64_t j;                                                                                \
        FOR_ELEMENT_SIZE(ELEMENT_SIZE, GATHER_LOOP(I, IB))                                         \
    }
FOR_EACH_INDEX_TYPE(DEFINE_GATHER_RUN, gather_run)
static void (*const gather_runs[])(GATHER_RUN_PARAMS) = {
    FOR_EACH_INDEX_TYPE(TABLE_ENTRY, gather_run)};

static void gather_indexed_run(GATHER_RUN_PARAMS)
{
    gather_runs[loop_entry(axis->type, element_size)](out, out_step, in, in_step, idx, idx_step,
                                                      axis, n, element_size, next_row, writes);
}

/* out[i(j) * stride + j * out_step] = upd[j * upd_step], j ascending, so the
   later of two updates to one element stays (D4) */
#define SCATTER_ONE(I, IB, XS, ES, SS, SL, j)                                                      \
    do {                                                                                           \
        uint64_t at = I(idx + (j) * (XS)*IB, size) * (SS) + (j) * (SL);                            \
        memcpy(out + at * sizeof(T), upd + (j) * (ES) * sizeof(T), sizeof(T));                     \
    } while (0)

#define SCATTER_LOOP(I, IB) RUN_FOR_STEPS(SCATTER_ONE, I, IB, idx_step, upd_step, stride, out_step)

/* Where the next update of a line (out_step 0) lands on the same element,
 * it overwrites this one (D4), so this one is neither read nor written: the
 * loop holds one update pending, writes it when an update to another
 * element comes, and writes the last one at the line's end.  A line whose
 * first two updates land on one element takes this loop; elsewhere its
 * extra compare buys nothing.  A walk from the line's last update back,
 * with a bit per element written, would skip every overwritten update and
 * not only the next one's, but on some processors the test of the bit
 * costs more than the read it saves. */
#define SCATTER_PENDING_ONE(I, IB, XS, ES, j)                                                      \
    do {                                                                                           \
        const uint64_t at = I(idx + (j) * (XS)*IB, size);                                          \
        if (at != pending_at) {                                                                    \
            memcpy(out + pending_at * stride * sizeof(T), upd + pending * (ES) * sizeof(T),        \
                   sizeof(T));                                                                     \
            pending_at = at;                                                                       \
        }                                                                                          \
        pending = (j);                                                                             \
    } while (0)

#define SCATTER_PENDING_RUN(I, IB, XS, ES)                                                         \
    for (j = 1; j + 8 <= n; j += 8) {                                                              \
        prefetch_ahead_to_l2(idx, ((j)*IB + SCATTER_AHEAD_BYTES) * (XS));                          \
        if (next_row && (j * sizeof(T)) % LINE_BYTES < 8 * sizeof(T) && j < size)                  \
            prefetch_ahead(next_row, j * sizeof(T));                                               \
        SCATTER_PENDING_ONE(I, IB, XS, ES, j);                                                     \
        SCATTER_PENDING_ONE(I, IB, XS, ES, j + 1);                                                 \
        SCATTER_PENDING_ONE(I, IB, XS, ES, j + 2);                                                 \
        SCATTER_PENDING_ONE(I, IB, XS, ES, j + 3);                                                 \
        SCATTER_PENDING_ONE(I, IB, XS, ES, j + 4);                                                 \
        SCATTER_PENDING_ONE(I, IB, XS, ES, j + 5);                                                 \
        SCATTER_PENDING_ONE(I, IB, XS, ES, j + 6);                                                 \
        SCATTER_PENDING_ONE(I, IB, XS, ES, j + 7);                                                 \
    }                                                                                              \
    for (; j < n; ++j)                                                                             \
        SCATTER_PENDING_ONE(I, IB, XS, ES, j);

#define SCATTER_SKIPPING_OVERWRITTEN(I, IB)                                                        \
    do {                                                                                           \
        uint64_t pending = 0, pending_at = I(idx, size);                                           \
        if (idx_step == 1 && upd_step == 1) {                                                      \
            SCATTER_PENDING_RUN(I, IB, 1, 1)                                                       \
        } else {                                                                                   \
            SCATTER_PENDING_RUN(I, IB, idx_step, upd_step)                                         \
        }                                                                                          \
        memcpy(out + pending_at * stride * sizeof(T), upd + pending * upd_step * sizeof(T),        \
               sizeof(T));                                                                         \
    } while (0)

#define SCATTER_RUN_PARAMS                                                                         \
    unsigned char *out, uint64_t out_step, const unsigned char *upd, uint64_t upd_step,            \
        const unsigned char *idx, uint64_t idx_step, const index_axis *axis, uint64_t n,           \
        uint32_t element_size, int request_updates, const unsigned char *next_row
#define DEFINE_SCATTER_RUN(name, I, IB, ELEMENT_SIZE)                                              \
    static void name(SCATTER_RUN_PARAMS)                                                           \
    {                                                                                              \
        const uint64_t size = axis->size, stride = axis->stride;                                   \
        const unsigned char *selected = out; /* a row's updates land in cache */                   \
        const unsigned char *ahead = request_updates ? upd : NULL;                                 \
        const int streams_to_l2 = 1, wide = size * stride * element_size > SCATTERED_SPAN;         \
        uint64_t j;                                                                                \
        if (out_step == 0 && n >= 2 && I(idx, size) == I(idx + idx_step * IB, size)) {             \
            FOR_ELEMENT_SIZE(ELEMENT_SIZE, SCATTER_SKIPPING_OVERWRITTEN(I, IB));                   \
        } else {                                                                                   \
            FOR_ELEMENT_SIZE(ELEMENT_SIZE, SCATTER_LOOP(I, IB))                                    \
        }                                                                                          \
    }
FOR_EACH_INDEX_TYPE(DEFINE_SCATTER_RUN, scatter_run)
static void (*const scatter_runs[])(SCATTER_RUN_PARAMS) = {
    FOR_EACH_INDEX_TYPE(TABLE_ENTRY, scatter_run)};

void scatter_indexed_run(SCATTER_RUN_PARAMS)
{
    scatter_runs[loop_entry(axis->type, element_size)](out, out_step, upd, upd_step, idx, idx_step,
                                                       axis, n, element_size, request_updates,
                                                       next_row);
}

/* A run whose consecutive elements lie a page or more apart in the input
 * (a transposed input, read across its rows) touches a new page, and a new
 * line, for every element; the next run, a neighbouring element further,
 * touches the same ones again.  Run by run, those pages are out of the TLB
 * and those lines out of L1 before they are used again, so such runs are
 * gathered in tiles: TILE_RUNS runs at a time, TILE_WIDTH positions of
 * each in turn, which use each page and each line TILE_RUNS times while
 * they are at hand. */
#define TILE_RUNS 16
#define TILE_WIDTH 64
#define PAGE_BYTES 4096

static int tiled(const runs *r, const index_axis *axis, uint32_t element_size)
{
    /* the input's step from one position to the next: the run's own, or
       the selected dimension's when the run moves only through the index */
    const uint64_t step = r->step[2] ? r->step[2] : axis->stride;
    return r->outer.rank > 0 && r->length > TILE_WIDTH && step * element_size >= PAGE_BYTES &&
           r->outer.strides[2][r->outer.rank - 1] * element_size < LINE_BYTES;
}

void gather_over_runs(const runs *shape, uint64_t begin, uint64_t end, unsigned char *out,
                      const unsigned char *in, const unsigned char *idx, const index_axis *axis,
                      uint32_t element_size, output_writes writes)
{
    const uint32_t index_size = dmlref_data_type_size(axis->type);
    const int tile = tiled(shape, axis, element_size);
    runs my = *shape;
    uint64_t j = runs_seek(&my, begin);
    while (begin < end) {
        uint64_t count = run_length(&my, j, end - begin), at[3];
        const unsigned char *next_row;
        if (tile && j == 0 && end - begin >= TILE_RUNS * my.length) {
            uint64_t starts[TILE_RUNS][3], c, w;
            uint32_t t;
            for (t = 0; t < TILE_RUNS; ++t, walker_next(&my.outer))
                memcpy(starts[t], my.outer.offset, sizeof starts[t]);
            for (c = 0; c < my.length; c += w) {
                w = my.length - c < TILE_WIDTH ? my.length - c : TILE_WIDTH;
                for (t = 0; t < TILE_RUNS; ++t)
                    gather_indexed_run(
                        out + (starts[t][0] + c * my.step[0]) * element_size, my.step[0],
                        in + (starts[t][2] + c * my.step[2]) * element_size, my.step[2],
                        idx + (starts[t][1] + c * my.step[1]) * index_size, my.step[1], axis, w,
                        element_size, NULL, writes);
            }
            begin += TILE_RUNS * my.length;
            continue;
        }
        /* the walk moves on first: the run may request the next one's row */
        memcpy(at, my.outer.offset, sizeof at);
        walker_next(&my.outer);
        begin += count;
        next_row = begin < end ? in + my.outer.offset[2] * element_size : NULL;
        gather_indexed_run(out + (at[0] + j * my.step[0]) * element_size, my.step[0],
                           in + (at[2] + j * my.step[2]) * element_size, my.step[2],
                           idx + (at[1] + j * my.step[1]) * index_size, my.step[1], axis, count,
                           element_size, next_row, writes);
        j = 0;
    }
}

/* 1 when some index of the block lies outside its range: an OR over the
 * block rather than an early exit, so the loop has no branch to predict. */
static int block_has_out_of_range(const unsigned char *idx, uint64_t idx_step,
                                  dmlref_tensor_data_type type, uint64_t size, uint64_t n)
{
    const int64_t s = (int64_t)size;
    uint64_t j;
    int bad = 0;
    switch (type) {
    case DMLREF_TENSOR_DATA_TYPE_INT32:
        for (j = 0; j < n; ++j) {
            int32_t v;
            memcpy(&v, idx + j * idx_step * 4, 4);
            bad |= (uint64_t)((int64_t)v + (v < 0 ? s : 0)) >= size;
        }
        break;
    case DMLREF_TENSOR_DATA_TYPE_INT64:
        for (j = 0; j < n; ++j) {
            int64_t v;
            memcpy(&v, idx + j * idx_step * 8, 8);
            bad |= (uint64_t)(v + (v < 0 ? s : 0)) >= size; /* no overflow: s > 0 */
        }
        break;
    case DMLREF_TENSOR_DATA_TYPE_UINT32:
        for (j = 0; j < n; ++j) {
            uint32_t v;
            memcpy(&v, idx + j * idx_step * 4, 4);
            bad |= v >= size;
        }
        break;
    default:
        for (j = 0; j < n; ++j) {
            uint64_t v;
            memcpy(&v, idx + j * idx_step * 8, 8);
            bad |= v >= size;
        }
        break;
    }
    return bad;
}

/* A quick test of a full block of contiguous indices that passes when all
 * are in range, and may fail when some value is close to the bound: the OR
 * of every index shifted into [0, 2 size) (signed) or [0, size) (unsigned)
 * bounds their maximum, and an OR and an add are what plain SSE2 vector
 * code does (a 64-bit compare is not).  Where it fails, the exact test above
 * decides.  INT32 indices are shifted in 32-bit arithmetic: modulo 2^32,
 * [-size, size) maps onto [0, 2 size) and every other int32 above it, as
 * long as 2 size <= 2^32 (the caller's condition).
 *
 * On x86 the loop is written with SSE2: 64 bytes a step into four
 * accumulators, with the request for the line CHECK_AHEAD bytes on in the
 * loop itself, where the vectoriser made two accumulators of the plain
 * loop and a separate loop of requests.  Elsewhere the plain loops, for
 * the compiler to vectorise.  The lines are requested into L2, not L1,
 * which leaves the core's line fill buffers free: one core then reads the
 * indices at nearly the rate of memory. */
#define CHECK_AHEAD (2 * RUN_BLOCK * 8)

#if defined(__SSE2__)
#define OR_OF_SHIFTED_SSE2(ADD, shift, index_size, any)                                            \
    do {                                                                                           \
        __m128i a = _mm_setzero_si128(), b = a, c = a, d = a;                                      \
        uint64_t at;                                                                               \
        for (at = 0; at < RUN_BLOCK * (index_size); at += LINE_BYTES) {                            \
            const __m128i *p = (const __m128i *)(const void *)(idx + at);                          \
            prefetch_ahead_to_l2(idx, at + CHECK_AHEAD);                                           \
            a = _mm_or_si128(a, ADD(_mm_loadu_si128(p), shift));                                   \
            b = _mm_or_si128(b, ADD(_mm_loadu_si128(p + 1), shift));                               \
            c = _mm_or_si128(c, ADD(_mm_loadu_si128(p + 2), shift));                               \
            d = _mm_or_si128(d, ADD(_mm_loadu_si128(p + 3), shift));                               \
        }                                                                                          \
        _mm_storeu_si128((__m128i *)(void *)(any),                                                 \
                         _mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d)));                    \
    } while (0)
#endif

/* Where the processor has AVX2, the same loop with 32-byte loads, two a
 * line instead of four: on x86-64 built by gcc or clang, which compile
 * this one function for AVX2 and ask the processor at run time.
 * DMLREF_NO_AVX2 keeps the SSE2 loop (make check-noopenmp builds so, to
 * test it where the processor has AVX2). */
#if defined(__SSE2__) && defined(__x86_64__) && defined(__GNUC__) && !defined(DMLREF_NO_AVX2)
#define CHECK_WITH_AVX2 1
#include <immintrin.h>
#define OR_OF_SHIFTED_AVX2(ADD, shift, index_size, any)                                            \
    do {                                                                                           \
        __m256i a = _mm256_setzero_si256(), b = a;                                                 \
        uint64_t at;                                                                               \
        for (at = 0; at < RUN_BLOCK * (index_size); at += LINE_BYTES) {                            \
            const __m256i *p = (const __m256i *)(const void *)(idx + at);                          \
            prefetch_ahead_to_l2(idx, at + CHECK_AHEAD);                                           \
            a = _mm256_or_si256(a, ADD(_mm256_loadu_si256(p), shift));                             \
            b = _mm256_or_si256(b, ADD(_mm256_loadu_si256(p + 1), shift));                         \
        }                                                                                          \
        a = _mm256_or_si256(a, b);                                                                 \
        _mm_storeu_si128((__m128i *)(any),                                                         \
                         _mm_or_si128(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1))); \
    } while (0)

/* any: 16 bytes, the OR folded into four INT32 or two INT64 lanes */
__attribute__((target("avx2"))) static void
or_of_shifted_avx2(const unsigned char *idx, uint32_t index_size, uint64_t shift, void *any)
{
    if (index_size == 4)
        OR_OF_SHIFTED_AVX2(_mm256_add_epi32, _mm256_set1_epi32((int)(uint32_t)shift), 4, any);
    else
        OR_OF_SHIFTED_AVX2(_mm256_add_epi64, _mm256_set1_epi64x((long long)shift), 8, any);
}
#endif

static int block_surely_in_range(const unsigned char *idx, dmlref_tensor_data_type type,
                                 uint32_t index_size, uint64_t size)
{
    const int is_signed =
        type == DMLREF_TENSOR_DATA_TYPE_INT32 || type == DMLREF_TENSOR_DATA_TYPE_INT64;
    const uint64_t shift = is_signed ? size : 0, limit = is_signed ? 2 * size : size;
#if !defined(__SSE2__)
    uint64_t j;
#endif
    if (index_size == 4) {
        uint32_t any32[4] = {0, 0, 0, 0};
#if defined(CHECK_WITH_AVX2)
        if (__builtin_cpu_supports("avx2"))
            or_of_shifted_avx2(idx, 4, shift, any32);
        else
#endif
#if defined(__SSE2__)
            OR_OF_SHIFTED_SSE2(_mm_add_epi32, _mm_set1_epi32((int)(uint32_t)shift), 4, any32);
#else
        for (j = 0; j < RUN_BLOCK; ++j) {
            uint32_t v;
            memcpy(&v, idx + j * 4, 4);
            any32[0] |= v + (uint32_t)shift;
        }
#endif
        return (uint64_t)(any32[0] | any32[1] | any32[2] | any32[3]) < limit;
    } else {
        uint64_t any[4] = {0, 0, 0, 0};
#if defined(CHECK_WITH_AVX2)
        if (__builtin_cpu_supports("avx2"))
            or_of_shifted_avx2(idx, 8, shift, any);
        else
#endif
#if defined(__SSE2__)
            OR_OF_SHIFTED_SSE2(_mm_add_epi64, _mm_set1_epi64x((long long)shift), 8, any);
#else
        for (j = 0; j < RUN_BLOCK; j += 4) {
            uint64_t k;
            for (k = 0; k < 4; ++k) {
                uint64_t v;
                memcpy(&v, idx + (j + k) * 8, 8);
                any[k] |= v + shift; /* modulo 2^64: [-size, size) -> [0, 2 size) */
            }
        }
#endif
        return (any[0] | any[1] | any[2] | any[3]) < limit;
    }
}

uint64_t first_out_of_range_run(const unsigned char *idx, uint64_t idx_step,
                                dmlref_tensor_data_type type, uint64_t size, uint64_t n)
{
    const uint32_t index_size = dmlref_data_type_size(type);
    uint64_t done, j;
    if (type == DMLREF_TENSOR_DATA_TYPE_INT32 && size > (uint64_t)INT32_MAX + 1)
        return n; /* every int32 lies in [-size, size) */
    for (done = 0; done < n; done += RUN_BLOCK) {
        uint64_t count = n - done < RUN_BLOCK ? n - done : RUN_BLOCK;
        const unsigned char *block = idx + done * idx_step * index_size;
        uint64_t line;
        if (idx_step == 1 && count == RUN_BLOCK &&
            block_surely_in_range(block, type, index_size, size))
            continue;
        for (line = 0; line < RUN_BLOCK * index_size;
             line += LINE_BYTES) /* as the quick test does */
            prefetch_ahead_to_l2(block, CHECK_AHEAD * idx_step + line * idx_step);
        if (!block_has_out_of_range(block, idx_step, type, size, count))
            continue;
        for (j = 0; j < count; ++j) /* rare: find which one */
            if (block_has_out_of_range(block + j * idx_step * index_size, idx_step, type, size, 1))
                return done + j;
    }
    return n;
}

uint64_t find_out_of_range(const layout *indices, const void *data, dmlref_tensor_data_type type,
                           const uint64_t *bounds, uint64_t bound_count, uint32_t num_threads)
{
    const unsigned char *base = data;
    uint64_t total = layout_element_count(indices);
    uint64_t first = NO_INDEX;
    walker full;
    runs r;
    int team = team_size(num_threads);
    (void)team;

    walker_init(&full, indices->rank, indices->sizes);
    walker_add(&full, indices->strides);
    runs_init(&r, &full);

#pragma omp parallel num_threads(team) if (total >= PARALLEL_MIN_ELEMENTS) reduction(min : first)
    {
        int t = thread_index(), n = thread_total();
        uint64_t pos = chunk_begin(total, t, n), end = chunk_begin(total, t + 1, n);
        runs my = r;
        uint64_t j = runs_seek(&my, pos);
        while (pos < end && first == NO_INDEX) {
            uint64_t count = run_length(&my, j, end - pos);
            const unsigned char *run =
                base + (my.outer.offset[0] + j * my.step[0]) * indices->element_size;
            uint64_t bad = count, i;
            if (bound_count == 1) {
                bad = first_out_of_range_run(run, my.step[0], type, bounds[0], count);
            } else { /* GatherND: the bound changes with the tuple component */
                uint64_t component = pos % bound_count; /* one division per run */
                for (i = 0; i < count && bad == count; ++i) {
                    uint64_t ignored;
                    index_value v = read_index(run + i * my.step[0] * indices->element_size, type);
                    if (!normalize_index(v, bounds[component], 0, &ignored))
                        bad = i;
                    if (++component == bound_count)
                        component = 0;
                }
            }
            if (bad < count)
                first = pos + bad; /* the first of this chunk; the reduction takes the least */
            pos += count;
            j = 0;
            walker_next(&my.outer);
        }
    }
    return first;
}
