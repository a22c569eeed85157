/*
 * gather_elements.c - DML_OPERATOR_GATHER_ELEMENTS (107), feature level 2_1+
 *
 * Gathers elements from the input tensor along the given axis, using the
 * indices tensor to remap into the input:
 *
 *   output[i, j, k, ...] = input[index[i, j, k, ...], j, k, ...] // if axis == 0
 *   output[i, j, k, ...] = input[i, index[i, j, k, ...], k, ...] // if axis == 1
 *   output[i, j, k, ...] = input[i, j, index[i, j, k, ...], ...] // if axis == 2
 *
 * Tensor constraints (checked by dmlref_validate, src/core/validate.c):
 *   R-GE-1  Input, Indices and Output share a DimensionCount D.
 *   R-GE-2  Axis < D.
 *   R-GE-3  Indices.Sizes[d] == Input.Sizes[d] for every d != Axis; the size
 *           along Axis is free (D5: smaller on another dimension is refused).
 *   R-GE-4  Output.Sizes == Indices.Sizes; Output.DataType == Input.DataType.
 *
 * Tensor support (R-GE-5):
 *   FL 2_1  4 dimensions; FLOAT32, FLOAT16, INT32, INT16, INT8, UINT32, UINT16,
 *           UINT8; indices UINT32
 *   FL 3_0  1 to 8 dimensions; same data; indices INT64, INT32, UINT64, UINT32
 *   FL 4_1  adds FLOAT64, INT64, UINT64 data
 *
 * Policies:
 *   - Negative indices (signed index types, which exist from FL 3_0): v in
 *     [-s, -1] means v + s, s = Input.Sizes[Axis] (R-IX-2).  Unsigned values
 *     are never negative: UINT32 0xFFFFFFFF is 4294967295 (R-IX-3).
 *   - Out of range (D1): every index is checked before anything is written;
 *     the first one out of range, in row-major order of the indices, fails the
 *     execution with DMLREF_ERROR_INDEX_OUT_OF_RANGE.  Under DMLREF_OOB_CLAMP
 *     the normalised index is clamped into [0, s-1] instead.
 *   - The copy moves bits (R-GE-7, D12): -0.0, NaN payloads and subnormals
 *     survive.
 *   - Any strides on any tensor: inputs may broadcast (stride 0); the output
 *     is injective (D6).  Each output element depends only on its own index
 *     (R-GE-8), so the result is the same for any thread count.
 *
 * The pseudocode above is the one of DirectML's GatherElements page (the
 * seed; R-GE-6 in docs/rules.md).  The loop below is that pseudocode, one
 * output element at a time.
 */
#include "reference/reference.h"

dmlref_status dmlref_ref_gather_elements(const kernel_context *ctx,
                                         const dmlref_gather_elements_desc *desc, const void *input,
                                         const void *indices, void *output, dmlref_error *err)
{
    const dmlref_tensor_data_type type = desc->IndicesTensor->DataType;
    const uint32_t axis = desc->Axis;
    const unsigned char *in = input;
    unsigned char *out = output;
    layout in_l, idx_l, out_l;
    uint64_t total, s, p;
    int64_t pos;

    layout_from_desc(desc->InputTensor, &in_l);
    layout_from_desc(desc->IndicesTensor, &idx_l);
    layout_from_desc(desc->OutputTensor, &out_l);
    total = layout_element_count(&out_l); /* == the number of indices (R-GE-4) */
    s = in_l.sizes[axis];

    if (!ctx->clamp) { /* D1: every index is checked before anything is written */
        for (p = 0; p < total; ++p) {
            uint64_t c[MAX_RANK], v;
            coordinates_of(p, idx_l.rank, idx_l.sizes, c);
            if (!index_at(indices, &idx_l, type, c, s, 0, &v))
                return report_out_of_range(err, ctx->op_name, &idx_l, indices, type, p, s,
                                           "InputTensor", axis, "D1");
        }
    }

#pragma omp parallel for num_threads(kernel_team(ctx)) if (total >= PARALLEL_MIN_ELEMENTS)
    for (pos = 0; pos < (int64_t)total; ++pos) {
        uint64_t o[MAX_RANK], i[MAX_RANK];
        coordinates_of((uint64_t)pos, out_l.rank, out_l.sizes, o);
        /* i = o with o[Axis] replaced by index[o], normalised (clamped under
           DMLREF_OOB_CLAMP; the strict policy has checked every index) */
        memcpy(i, o, out_l.rank * sizeof *o);
        (void)index_at(indices, &idx_l, type, o, s, 1, &i[axis]);
        memcpy(out + byte_offset(&out_l, o), in + byte_offset(&in_l, i), in_l.element_size);
    }
    return DMLREF_OK;
}
