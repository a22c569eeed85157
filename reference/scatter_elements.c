/*
 * scatter_elements.c - DML_OPERATOR_SCATTER_ELEMENTS (94), alias
 * DML_OPERATOR_SCATTER, feature level 2_0+ (R-SC-12, D17)
 *
 * Copies the input to the output, then overwrites the elements that the
 * indices select along the axis with the updates:
 *
 *   output = input
 *   output[index[i, j, k, ...], j, k, ...] = updates[i, j, k, ...] // if axis == 0
 *   output[i, index[i, j, k, ...], k, ...] = updates[i, j, k, ...] // if axis == 1
 *   output[i, j, index[i, j, k, ...], ...] = updates[i, j, k, ...] // if axis == 2
 *
 * It is the inverse of GATHER_ELEMENTS (R-SC-13); it has no reduction mode
 * (R-SC-11).
 *
 * Tensor constraints (checked by dmlref_validate, src/validate.c):
 *   R-SC-1  Input, Indices, Updates and Output share a DimensionCount D.
 *   R-SC-2  Input, Updates and Output share a DataType.
 *   R-SC-3  Axis < D.
 *   R-SC-4  Indices.Sizes[d] == Input.Sizes[d] for every d != Axis; the size
 *           along Axis is free, even larger than the input's (D5, D16).
 *   R-SC-5  Updates.Sizes == Indices.Sizes.
 *   R-SC-6  Output.Sizes == Input.Sizes.
 *
 * Tensor support (R-SC-7):
 *   FL 2_0  4 dimensions; FLOAT32, FLOAT16; indices UINT32
 *   FL 2_1  4 dimensions; FLOAT32, FLOAT16, INT32, INT16, INT8, UINT32, UINT16,
 *           UINT8; indices UINT32
 *   FL 3_0  1 to 8 dimensions; same data; indices INT64, INT32, UINT64, UINT32
 *   FL 4_1  adds FLOAT64, INT64, UINT64 data
 *
 * Policies:
 *   - Negative indices as GATHER_ELEMENTS, against s = Output.Sizes[Axis]
 *     (R-IX-2, R-IX-3).
 *   - Out of range (D2): every index is checked before anything is written,
 *     and the first one out of range fails the execution; under
 *     DMLREF_OOB_CLAMP the normalised index is clamped into [0, s-1].
 *   - Duplicate targets (D4, R-SC-10): DirectML calls them invalid and
 *     guarantees no winner; dmlref applies the updates in row-major order of
 *     the updates tensor, so the last one wins, for any thread count.
 *   - Elements no update targets keep the input's bits (R-SC-8); copies move
 *     bits (D12).
 *
 * Why the result does not depend on the thread count: an update at
 * coordinate u only ever lands on the output line that shares u's
 * coordinates off the axis, so each thread owns whole lines and walks each
 * line in ascending axis order, exactly the row-major order of the updates.
 */
#include "internal.h"

dmlref_status dmlref_ref_scatter_elements(const kernel_context *ctx,
                                          const dmlref_scatter_elements_desc *desc,
                                          const void *input, const void *indices,
                                          const void *updates, void *output, dmlref_error *err)
{
    const dmlref_tensor_data_type index_type = desc->IndicesTensor->DataType;
    const unsigned char *in = input, *idx = indices, *upd = updates;
    unsigned char *out = output;
    layout in_l, idx_l, upd_l, out_l;
    uint64_t axis_size, total, line_length, line_count, line_sizes[MAX_RANK];
    uint32_t axis = desc->Axis, es;
    int team = team_size(ctx->num_threads);
    (void)team;

    layout_from_desc(desc->InputTensor, &in_l);
    layout_from_desc(desc->IndicesTensor, &idx_l);
    layout_from_desc(desc->UpdatesTensor, &upd_l);
    layout_from_desc(desc->OutputTensor, &out_l);
    es = out_l.element_size;
    axis_size = out_l.sizes[axis];

    if (!ctx->clamp) {
        uint64_t bad = find_out_of_range(&idx_l, idx, index_type, &axis_size, 1, ctx->num_threads);
        if (bad != NO_INDEX)
            return report_out_of_range(err, ctx->op_name, &idx_l, idx, index_type, bad,
                                       axis_size, "OutputTensor", axis, "D2");
    }

    /* output = input */
    total = layout_element_count(&out_l);
#pragma omp parallel num_threads(team) if (total >= PARALLEL_MIN_ELEMENTS)
    {
        int t = thread_index(), n = thread_total();
        uint64_t c = chunk_begin(total, t, n), end = chunk_begin(total, t + 1, n);
        walker w; /* slot 0 output, 1 input */
        walker_init(&w, out_l.rank, out_l.sizes);
        walker_add(&w, out_l.strides);
        walker_add(&w, in_l.strides);
        walker_seek(&w, c);
        for (; c < end; ++c, walker_next(&w))
            copy_element(out + w.offset[0] * es, in + w.offset[1] * es, es);
    }

    /* output[u with u[Axis] = index[u]] = updates[u], line by line: a line is
       every u that shares the coordinates off the axis. */
    memcpy(line_sizes, upd_l.sizes, sizeof line_sizes);
    line_length = line_sizes[axis];
    line_sizes[axis] = 1;
    line_count = layout_element_count(&upd_l) / line_length;
#pragma omp parallel num_threads(team) if (line_count * line_length >= PARALLEL_MIN_ELEMENTS)
    {
        int t = thread_index(), n = thread_total();
        uint64_t line = chunk_begin(line_count, t, n), end = chunk_begin(line_count, t + 1, n);
        walker w; /* over line starts: slot 0 updates, 1 indices, 2 output */
        walker_init(&w, upd_l.rank, line_sizes);
        walker_add(&w, upd_l.strides);
        walker_add(&w, idx_l.strides);
        walker_add(&w, out_l.strides);
        walker_seek(&w, line);
        for (; line < end; ++line, walker_next(&w)) {
            uint64_t i;
            for (i = 0; i < line_length; ++i) { /* ascending: the last update wins (D4) */
                uint64_t v;
                const unsigned char *index_element =
                    idx + (w.offset[1] + i * idx_l.strides[axis]) * idx_l.element_size;
                normalize_index(read_index(index_element, index_type), axis_size, 1, &v);
                copy_element(out + (w.offset[2] + v * out_l.strides[axis]) * es,
                             upd + (w.offset[0] + i * upd_l.strides[axis]) * es, es);
            }
        }
    }
    return DMLREF_OK;
}
