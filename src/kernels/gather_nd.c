/*
 * gather_nd.c - computes reference/gather_nd.c (DML_OPERATOR_GATHER_ND1,
 * and GATHER_ND as GATHER_ND1 with BatchDimensionCount 0; the semantics,
 * the notation D, m, q, b, k, r and the policies are stated there), bit for
 * bit: the fast-versus-reference comparator (src/core/kernels_compare.c),
 * which dmlref fuzz, eval and verify --kernels fast and
 * tests/unit/test_random.c run, proves it.
 *
 * How it is fast: the output is a grid of tuples times a slice.  Tuples go
 * a block at a time: every slice of the block is located and its first
 * line requested, then the slices are copied, so many random slices are
 * fetched at once.  A slice that is one contiguous run is copied with
 * moves of its size; large outputs are written with streaming stores.  A
 * one-element slice of a one-coordinate tuple runs GatherElements' loop.
 */
#include "kernels/kernels.h"

/* Tuples whose slices are located (and requested) before any is copied. */
#define TUPLE_BLOCK 32

/* Slices of up to SLICE_REQUEST_MAX bytes are requested whole, line by
 * line, SLICES_AHEAD slices before they are copied: the block's first
 * pass requests only a slice's first line, and not every processor's
 * prefetchers follow the rest.  Longer slices are long enough for them. */
#define SLICES_AHEAD 4
#define SLICE_REQUEST_MAX 4096

/* Requests every line of a slice but its first (already requested). */
static void request_slice(const unsigned char *p, size_t bytes)
{
    size_t o;
    for (o = LINE_BYTES; o < bytes; o += LINE_BYTES)
        prefetch_ahead(p, o);
    prefetch_ahead(p, bytes - 1);
}

/* Outputs of STREAM_MIN_BYTES or more are written slice by slice with
 * streaming stores (stream_bytes), which skip reading each output line
 * before writing it: a third of the bytes a gather of whole slices moves
 * besides its indices. */

/* The block's whole slices, each one contiguous run of `bytes`, moved by
 * MOVE(dst, src, size).  Slices of 16, 32, 64 and 128 bytes get loops of
 * their own, whose fixed-size moves are a few 16-byte moves: the size is
 * decided once a block, not once a slice (copy_bytes), which for short
 * slices is much of the work. */
#define COPY_SLICES(MOVE, size)                                                                    \
    for (u = 0; u < count; ++u)                                                                    \
        MOVE(dst[u], src[u], size);                                                                \
    break

#define COPY_SLICES_OF_ANY_SIZE(MOVE_FIXED, MOVE_ANY)                                              \
    switch (bytes) {                                                                               \
    case 16:                                                                                       \
        COPY_SLICES(MOVE_FIXED, 16);                                                               \
    case 32:                                                                                       \
        COPY_SLICES(MOVE_FIXED, 32);                                                               \
    case 64:                                                                                       \
        COPY_SLICES(MOVE_FIXED, 64);                                                               \
    case 128:                                                                                      \
        COPY_SLICES(MOVE_FIXED, 128);                                                              \
    default:                                                                                       \
        for (u = 0; u < count; ++u) {                                                              \
            if (bytes <= SLICE_REQUEST_MAX && u + SLICES_AHEAD < count)                            \
                request_slice(src[u + SLICES_AHEAD], bytes);                                       \
            MOVE_ANY(dst[u], src[u], bytes);                                                       \
        }                                                                                          \
    }

static void copy_whole_slices(unsigned char *const *dst, const unsigned char *const *src,
                              uint64_t count, size_t bytes, int stream)
{
    uint64_t u;
    if (stream) {
        COPY_SLICES_OF_ANY_SIZE(stream_bytes, stream_bytes)
    } else {
        COPY_SLICES_OF_ANY_SIZE(memcpy, copy_bytes)
    }
}

/* The usual grid's block: `count` one-coordinate tuples, tuple u's
 * coordinate at idx + u * idx_step, its slice at in + u * in_step +
 * coordinate * coordinate_step and its output at out + u * out_step (all in
 * bytes); each slice's first line requested (first: its first element's
 * byte offset).  One loop per index type, stepping offsets, so neither the
 * type's switch nor a multiplication is left inside the loop. */
#define LOCATE_TUPLES(INDEX)                                                                       \
    for (u = 0; u < count; ++u, at_out += out_step, at_in += in_step, at_idx += idx_step) {        \
        src[u] = in + at_in + INDEX(idx + at_idx, size) * coordinate_step;                         \
        dst[u] = out + at_out;                                                                     \
        prefetch_ahead(src[u], first);                                                             \
    }                                                                                              \
    break

static void locate_flat_tuples(unsigned char **dst, const unsigned char **src, uint64_t count,
                               unsigned char *out, size_t out_step, const unsigned char *in,
                               size_t in_step, const unsigned char *idx, size_t idx_step,
                               dmlref_tensor_data_type index_type, uint64_t size,
                               size_t coordinate_step, size_t first)
{
    uint64_t u;
    size_t at_out = 0, at_in = 0, at_idx = 0; /* offsets: a pointer may not step past its buffer */
    switch (index_type) {
    case DMLREF_TENSOR_DATA_TYPE_INT32:
        LOCATE_TUPLES(index_int32);
    case DMLREF_TENSOR_DATA_TYPE_INT64:
        LOCATE_TUPLES(index_int64);
    case DMLREF_TENSOR_DATA_TYPE_UINT32:
        LOCATE_TUPLES(index_uint32);
    default:
        LOCATE_TUPLES(index_uint64);
    }
}

dmlref_status dmlref_fast_gather_nd1(const kernel_context *ctx, const dmlref_gather_nd1_desc *desc,
                                     const void *input, const void *indices, void *output,
                                     dmlref_error *err)
{
    const dmlref_tensor_data_type index_type = desc->IndicesTensor->DataType;
    const unsigned char *in = input, *idx = indices;
    unsigned char *out = output;
    layout in_l, idx_l, out_l;
    uint32_t D, m, q, b, k, r, pad, i, es;
    uint64_t tuple_bounds[MAX_RANK], tuple_strides[MAX_RANK];
    uint64_t grid_sizes[MAX_RANK], grid_idx_strides[MAX_RANK], grid_out_strides[MAX_RANK],
        grid_in_strides[MAX_RANK];
    uint64_t slice_sizes[MAX_RANK], slice_in_strides[MAX_RANK], slice_out_strides[MAX_RANK];
    uint64_t tuple_count = 1, slice_count = 1, tuple_component_stride, total;
    uint64_t grid_step[WALK_MAX_TENSORS];
    int flat_grid, stream;
    walker grid_full, slice_full;
    runs slice;
    int team = team_size(ctx->num_threads);
    (void)team;

    layout_from_desc(desc->InputTensor, &in_l);
    layout_from_desc(desc->IndicesTensor, &idx_l);
    layout_from_desc(desc->OutputTensor, &out_l);
    es = in_l.element_size;
    D = in_l.rank;
    m = desc->InputDimensionCount;
    q = desc->IndicesDimensionCount;
    b = desc->BatchDimensionCount;
    k = (uint32_t)idx_l.sizes[D - 1];
    r = m - b - k;
    pad = D - (q - 1 + r);

    /* tuple coordinate j indexes input dimension D-m+b+j */
    for (i = 0; i < k; ++i) {
        tuple_bounds[i] = in_l.sizes[D - m + b + i];
        tuple_strides[i] = in_l.strides[D - m + b + i];
    }
    tuple_component_stride = idx_l.strides[D - 1];

    CHECK(check_batches_inside(err, ctx->op_name, &in_l, &idx_l, m, q, b)); /* R-GN-6 */
    if (!ctx->clamp) {
        uint64_t bad =
            find_out_of_range(&idx_l, idx, index_type, tuple_bounds, k, ctx->num_threads);
        if (bad != NO_INDEX) {
            uint32_t j = (uint32_t)(bad % k);
            return report_out_of_range(err, ctx->op_name, &idx_l, idx, index_type, bad,
                                       tuple_bounds[j], "InputTensor", D - m + b + j, "D1");
        }
    }

    /* The grid of tuples: the q-1 meaningful index dimensions before the
       tuple dimension (the first b of them are batch dimensions, which also
       step through the input). */
    for (i = 0; i + 1 < q; ++i) {
        grid_sizes[i] = idx_l.sizes[D - q + i];
        grid_idx_strides[i] = idx_l.strides[D - q + i];
        grid_out_strides[i] = out_l.strides[pad + i];
        grid_in_strides[i] = i < b ? in_l.strides[D - m + i] : 0;
        tuple_count *= grid_sizes[i];
    }
    /* The slice: the last r input dimensions, copied whole. */
    for (i = 0; i < r; ++i) {
        slice_sizes[i] = in_l.sizes[D - r + i];
        slice_in_strides[i] = in_l.strides[D - r + i];
        slice_out_strides[i] = out_l.strides[pad + q - 1 + i];
        slice_count *= slice_sizes[i];
    }

    walker_init(&grid_full, q - 1, grid_sizes);
    walker_add(&grid_full, grid_out_strides); /* slot 0 */
    walker_add(&grid_full, grid_idx_strides); /* slot 1 */
    walker_add(&grid_full, grid_in_strides);  /* slot 2 */
    walker_init(&slice_full, r, slice_sizes);
    walker_add(&slice_full, slice_in_strides);  /* slot 0 */
    walker_add(&slice_full, slice_out_strides); /* slot 1 */
    runs_init(&slice, &slice_full);
    total = tuple_count * slice_count;

    if (k == 1 && slice_count == 1) {
        /* One coordinate picks one element: GatherElements' loop, run
           along the grid of tuples. */
        index_axis selector;
        runs grid;
        selector.type = index_type;
        selector.size = tuple_bounds[0];
        selector.stride = tuple_strides[0];
        runs_init(&grid, &grid_full);
#pragma omp parallel num_threads(team) if (total >= PARALLEL_MIN_ELEMENTS)
        {
            int t = thread_index(), n = thread_total();
            gather_over_runs(&grid, chunk_begin(total, t, n), chunk_begin(total, t + 1, n), out, in,
                             idx, &selector, es,
                             total * es >= REQUEST_MIN_BYTES ? OUTPUT_REQUESTED : OUTPUT_IN_CACHE);
        }
        return DMLREF_OK;
    }

    /* The output is tuple_count slices of slice_count elements; threads
       split the elements, so a few large slices still spread over the team.
       Tuples go a block at a time: first every slice of the block is found
       and its first line requested, then the slices are copied, so the
       memory system fetches many random slices at once instead of one
       after another. */
    walker_coalesce(&grid_full);
    flat_grid = grid_full.rank <= 1;
    for (i = 0; i < WALK_MAX_TENSORS; ++i) /* a flat grid's steps: tuple g at g * step */
        grid_step[i] =
            grid_full.rank == 1 && i < grid_full.tensor_count ? grid_full.strides[i][0] : 0;
    stream = STREAMED_BYTES && total * es >= STREAM_MIN_BYTES;
#pragma omp parallel num_threads(team) if (total >= PARALLEL_MIN_ELEMENTS)
    {
        int t = thread_index(), n = thread_total();
        uint64_t pos = chunk_begin(total, t, n), end = chunk_begin(total, t + 1, n);
        uint64_t tuple = pos / slice_count, first = pos % slice_count;
        uint64_t tuple_end = (end + slice_count - 1) / slice_count;
        const unsigned char *src[TUPLE_BLOCK]; /* the block's slices (their offset 0) */
        unsigned char *dst[TUPLE_BLOCK];       /* and where they go */
        size_t slice_bytes = (size_t)(slice_count * es), first_in;
        int contiguous;
        walker grid = grid_full;
        runs my = slice;
        walker_seek(&grid, tuple);
        (void)runs_seek(&my, 0);
        first_in = (size_t)(my.outer.offset[0] * es);
        contiguous = my.outer.rank == 0 && my.step[0] == 1 && my.step[1] == 1;
        while (pos < end && tuple < tuple_end) {
            uint64_t count = tuple_end - tuple < TUPLE_BLOCK ? tuple_end - tuple : TUPLE_BLOCK;
            uint64_t u, c;
            if (flat_grid && k == 1) {
                /* the usual grid: one dimension of one-coordinate tuples,
                   addressed by fixed steps instead of the odometer */
                locate_flat_tuples(dst, src, count, out + tuple * grid_step[0] * es,
                                   (size_t)(grid_step[0] * es), in + tuple * grid_step[2] * es,
                                   (size_t)(grid_step[2] * es),
                                   idx + tuple * grid_step[1] * idx_l.element_size,
                                   (size_t)(grid_step[1] * idx_l.element_size), index_type,
                                   tuple_bounds[0], (size_t)(tuple_strides[0] * es), first_in);
            } else {
                for (u = 0; u < count; ++u, walker_next(&grid)) {
                    uint64_t base = grid.offset[2];
                    for (c = 0; c < k; ++c) {
                        const unsigned char *component =
                            idx +
                            (grid.offset[1] + c * tuple_component_stride) * idx_l.element_size;
                        base += index_of_type(component, index_type, tuple_bounds[c]) *
                                tuple_strides[c];
                    }
                    src[u] = in + base * es;
                    dst[u] = out + grid.offset[0] * es;
                    prefetch_ahead(src[u], first_in);
                }
            }
            if (contiguous && first == 0 && end - tuple * slice_count >= count * slice_count) {
                /* the usual block: whole slices, each one contiguous run */
                copy_whole_slices(dst, src, count, slice_bytes, stream);
                tuple += count;
                pos += count * slice_count;
                continue;
            }
            for (u = 0; u < count; ++u, ++tuple, first = 0) {
                /* this tuple's slice elements [first, last) */
                uint64_t last = end - tuple * slice_count < slice_count ? end - tuple * slice_count
                                                                        : slice_count;
                uint64_t p = first, j;
                if (contiguous) { /* part of a slice */
                    copy_bytes(dst[u] + first * es, src[u] + first * es,
                               (size_t)((last - first) * es));
                    pos += last - first;
                    continue;
                }
                if (my.outer.rank == 0) { /* one strided run */
                    copy_run(dst[u] + first * my.step[1] * es, my.step[1],
                             src[u] + first * my.step[0] * es, my.step[0], last - first, es);
                    pos += last - first;
                    continue;
                }
                j = runs_seek(&my, p);
                while (p < last) {
                    uint64_t run = run_length(&my, j, last - p);
                    copy_run(dst[u] + (my.outer.offset[1] + j * my.step[1]) * es, my.step[1],
                             src[u] + (my.outer.offset[0] + j * my.step[0]) * es, my.step[0], run,
                             es);
                    p += run;
                    j = 0;
                    walker_next(&my.outer);
                }
                pos += last - first;
            }
        }
        if (stream)
            streamed_stores_done();
    }
    return DMLREF_OK;
}
