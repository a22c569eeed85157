/*
 * gather_nd.c - DML_OPERATOR_GATHER_ND (108, FL 2_1+) and
 * DML_OPERATOR_GATHER_ND1 (140, FL 3_0+)
 *
 * Gathers slices of the input, each addressed by a tuple of coordinates read
 * from the last dimension of the indices tensor:
 *
 *   GATHER_ND:   output[...] = input[indices[...]]
 *   GATHER_ND1:  output[batch, ...] = input[batch, indices[batch, ...], ...]
 *
 * GATHER_ND is GATHER_ND1 with BatchDimensionCount = 0 (R-GN-10); both run
 * here.  Notation: D = the common DimensionCount, m = InputDimensionCount,
 * q = IndicesDimensionCount, b = BatchDimensionCount, k = Indices.Sizes[D-1]
 * (coordinates per tuple), r = m - b - k (input dimensions copied as a slice).
 *
 * Tensor constraints (checked by dmlref_validate, src/validate.c):
 *   R-GN-1  Input, Indices and Output share D; Output.DataType == Input's.
 *   R-GN-2  1 <= m <= D and 1 <= q <= D.
 *   R-GN-3  b < m and b < q (GATHER_ND1).
 *   R-GN-4  1 <= k <= m - b.
 *   R-GN-5  Input.Sizes[i] == 1 for i < D-m; Indices.Sizes[i] == 1 for i < D-q
 *           (D11).
 *   R-GN-6  the b batch dimensions of Input and Indices agree (D11).
 *   R-GN-7  Output.Sizes == {1 x (D - (q - 1 + r)), Indices.Sizes[D-q .. D-1),
 *           Input.Sizes[D-r .. D)} exactly, DirectMLX's shape (D11; the
 *           documents' own formula is wrong, S-13).
 *
 * Tensor support (R-GN-8):
 *   FL 2_1  GATHER_ND, 4 dimensions; FLOAT32, FLOAT16, INT32, INT16, INT8,
 *           UINT32, UINT16, UINT8; indices UINT32
 *   FL 3_0  GATHER_ND and GATHER_ND1, 1 to 8 dimensions; same data; indices
 *           INT64, INT32, UINT64, UINT32
 *   FL 4_1  adds FLOAT64, INT64, UINT64 data
 *
 * Semantics (R-GN-9): the output's meaningful coordinates split into
 * beta (b batch coordinates), g (q-1-b positions in the grid of tuples) and
 * s (r coordinates inside the slice).  The tuple is
 * t[j] = Indices[0.., beta, g, j]; each t[j] is normalised against
 * Input.Sizes[D-m+b+j]; and
 *
 *   Output[0.., beta, g, s] = Input[0.., beta, t[0..k), s]
 *
 * Policies: negative indices, out of range (D1: checked before anything is
 * written; under DMLREF_OOB_CLAMP clamped per coordinate) and bit-exact
 * copies (D12) as GATHER_ELEMENTS.  Each output element depends only on its
 * own tuple, so the result is the same for any thread count.
 */
#include "internal.h"

dmlref_status dmlref_ref_gather_nd1(const kernel_context *ctx, const dmlref_gather_nd1_desc *desc,
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
    uint64_t tuple_count = 1, slice_count = 1, tuple_component_stride;
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

    if (!ctx->clamp) {
        uint64_t bad = find_out_of_range(&idx_l, idx, index_type, tuple_bounds, k,
                                         ctx->num_threads);
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

#pragma omp parallel num_threads(team) if (tuple_count * slice_count >= PARALLEL_MIN_ELEMENTS)
    {
        int t = thread_index(), n = thread_total();
        uint64_t tuple = chunk_begin(tuple_count, t, n), end = chunk_begin(tuple_count, t + 1, n);
        walker grid; /* slot 0 indices, 1 output, 2 input (batch part) */
        walker slice; /* slot 0 input, 1 output */
        walker_init(&grid, q - 1, grid_sizes);
        walker_add(&grid, grid_idx_strides);
        walker_add(&grid, grid_out_strides);
        walker_add(&grid, grid_in_strides);
        walker_seek(&grid, tuple);
        walker_init(&slice, r, slice_sizes);
        walker_add(&slice, slice_in_strides);
        walker_add(&slice, slice_out_strides);
        for (; tuple < end; ++tuple, walker_next(&grid)) {
            uint64_t in_base = grid.offset[2], s, j;
            for (j = 0; j < k; ++j) {
                uint64_t v;
                const unsigned char *component =
                    idx + (grid.offset[0] + j * tuple_component_stride) * idx_l.element_size;
                normalize_index(read_index(component, index_type), tuple_bounds[j], 1, &v);
                in_base += v * tuple_strides[j];
            }
            walker_seek(&slice, 0);
            for (s = 0; s < slice_count; ++s, walker_next(&slice))
                copy_element(out + (grid.offset[1] + slice.offset[1]) * es,
                             in + (in_base + slice.offset[0]) * es, es);
        }
    }
    return DMLREF_OK;
}
