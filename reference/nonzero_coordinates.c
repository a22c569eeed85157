/*
 * nonzero_coordinates.c - DML_OPERATOR_NONZERO_COORDINATES (133), feature
 * level 3_0+
 *
 * Computes the coordinates of every non-zero element of the input: an M x N
 * matrix whose first OutputCount rows hold, in ascending element order, the
 * coordinates of the non-zero elements, plus their count:
 *
 *   count = 0
 *   for each coordinate c of InputTensor, in row-major order:
 *       if input[c] != 0:
 *           OutputCoordinates[count, 0 .. N) = c[D-N .. D)
 *           count += 1
 *   OutputCount = count
 *
 * Tensor constraints (checked by dmlref_validate, src/validate.c):
 *   R-NZ-1  OutputCount is UINT32 with every size 1.
 *   R-NZ-2  OutputCoordinates is UINT32 with sizes {1, ..., 1, M, N}.
 *   R-NZ-3  M == the number of input elements (room for all of them).
 *   R-NZ-4  the effective rank e = D minus the leading dimensions of size 1.
 *   R-NZ-5  e <= N <= D.
 *   R-NZ-6  FL 3_0: all three tensors 4 or 5 dimensions, the same count;
 *           FL 4_0+: input 1-8, count 1-8, coordinates 2-8 (D10).
 *   R-NZ-7  input FLOAT32, FLOAT16, INT32, INT16, INT8, UINT32, UINT16, UINT8.
 *
 * Policies:
 *   - Zero means numerically zero (R-NZ-8): +0.0 and -0.0 are zero; NaN and
 *     the infinities are not (R-NZ-9); subnormals are not zero, as IEEE says
 *     (D7; a GPU that flushes them would disagree, so vectors keep them in a
 *     category of their own, R-NZ-10).
 *   - Order is the logical row-major order of the input's coordinates,
 *     whatever its strides (R-NZ-12, R-TD-8, D9).
 *   - With N < D the N columns are the last N dimensions (right-aligned,
 *     R-NZ-13, D8); the dimensions left out all have size 1.
 *   - The count is written as UINT32 (R-NZ-11), coordinates as UINT32
 *     (R-NZ-15).  Rows at or past the count are left untouched: DirectML
 *     leaves them undefined (R-NZ-14).
 *
 * Threads: two passes over one static split.  Pass 1 counts each chunk's
 * non-zero elements; an exclusive prefix sum over the chunks gives each
 * chunk its first row; pass 2 walks the same chunks again and writes the
 * rows.  The rows land where a serial walk would put them.
 */
#include "internal.h"

#include <stdlib.h>

/* 1 when the element is not numerically zero.  Floats ignore the sign bit,
 * so -0.0 is zero and every NaN is not. */
static int is_nonzero(const unsigned char *element, dmlref_tensor_data_type type)
{
    switch (type) {
    case DMLREF_TENSOR_DATA_TYPE_FLOAT32: {
        uint32_t bits;
        memcpy(&bits, element, 4);
        return (bits & 0x7FFFFFFFu) != 0;
    }
    case DMLREF_TENSOR_DATA_TYPE_FLOAT16: {
        uint16_t bits;
        memcpy(&bits, element, 2);
        return (bits & 0x7FFFu) != 0;
    }
    case DMLREF_TENSOR_DATA_TYPE_UINT32:
    case DMLREF_TENSOR_DATA_TYPE_INT32: {
        uint32_t bits;
        memcpy(&bits, element, 4);
        return bits != 0;
    }
    case DMLREF_TENSOR_DATA_TYPE_UINT16:
    case DMLREF_TENSOR_DATA_TYPE_INT16: {
        uint16_t bits;
        memcpy(&bits, element, 2);
        return bits != 0;
    }
    default: /* UINT8, INT8 */
        return element[0] != 0;
    }
}

dmlref_status dmlref_ref_nonzero_coordinates(const kernel_context *ctx,
                                             const dmlref_nonzero_coordinates_desc *desc,
                                             const void *input, void *output_count,
                                             void *output_coordinates, dmlref_error *err)
{
    const dmlref_tensor_data_type type = desc->InputTensor->DataType;
    const unsigned char *in = input;
    unsigned char *coords = output_coordinates;
    layout in_l, co_l;
    uint64_t total, row_stride, column_stride, *chunk_rows;
    uint32_t D, N, count;
    int team = team_size(ctx->num_threads), team_used = 1;

    layout_from_desc(desc->InputTensor, &in_l);
    layout_from_desc(desc->OutputCoordinatesTensor, &co_l);
    total = layout_element_count(&in_l);
    D = in_l.rank;
    N = (uint32_t)co_l.sizes[co_l.rank - 1];
    row_stride = co_l.strides[co_l.rank - 2];
    column_stride = co_l.strides[co_l.rank - 1];
    if (total < PARALLEL_MIN_ELEMENTS)
        team = 1;

    /* chunk_rows[t] = the first row of chunk t; the team may come out
       smaller than asked, never larger */
    chunk_rows = calloc((size_t)team + 1, sizeof *chunk_rows);
    if (!chunk_rows)
        return set_error(err, DMLREF_ERROR_OUT_OF_MEMORY, "",
                         "%s: out of memory for %d per-thread counts", ctx->op_name, team);

#pragma omp parallel num_threads(team)
    {
        int t = thread_index(), n = thread_total();
        uint64_t begin = chunk_begin(total, t, n), end = chunk_begin(total, t + 1, n);
        uint64_t e, row = 0;
        walker w; /* slot 0 input */
        walker_init(&w, in_l.rank, in_l.sizes);
        walker_add(&w, in_l.strides);

        /* pass 1: count */
        walker_seek(&w, begin);
        for (e = begin; e < end; ++e, walker_next(&w))
            row += (uint64_t)is_nonzero(in + w.offset[0] * in_l.element_size, type);
        chunk_rows[t + 1] = row;
#pragma omp barrier
#pragma omp single
        {
            int i;
            for (i = 0; i < n; ++i) /* exclusive prefix sum */
                chunk_rows[i + 1] += chunk_rows[i];
            team_used = n;
        }
        /* (the implicit barrier of single publishes the sums) */

        /* pass 2: write the rows of the same chunk */
        row = chunk_rows[t];
        walker_seek(&w, begin);
        for (e = begin; e < end; ++e, walker_next(&w)) {
            if (is_nonzero(in + w.offset[0] * in_l.element_size, type)) {
                uint32_t j;
                for (j = 0; j < N; ++j) { /* right-aligned columns (D8) */
                    uint32_t c = (uint32_t)w.coord[D - N + j];
                    memcpy(coords + (row * row_stride + j * column_stride) * 4, &c, 4);
                }
                ++row;
            }
        }
    }
    count = (uint32_t)chunk_rows[team_used]; /* <= M <= 2^32 - 1 */
    memcpy(output_count, &count, 4); /* every size is 1: offset 0 */
    free(chunk_rows);
    return DMLREF_OK;
}
