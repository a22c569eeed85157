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
 * output element at a time; its step, gather_elements_source, is what
 * dmlref explain's trace (trace.c) runs for one element.
 */
#include "reference/reference.h"

void gather_elements_operands_of(const dmlref_gather_elements_desc *desc, const void *indices,
                                 gather_elements_operands *g)
{
    layout_from_desc(desc->InputTensor, &g->input);
    layout_from_desc(desc->OutputTensor, &g->output);
    layout_from_desc(desc->IndicesTensor, &g->indices.l);
    g->indices.data = indices;
    g->indices.type = desc->IndicesTensor->DataType;
    g->axis = desc->Axis;
}

/* i = o with i[Axis] = index[o] */
int gather_elements_source(const gather_elements_operands *g, const uint64_t *o, int clamp,
                           uint64_t *i, index_record *rec)
{
    memcpy(i, o, g->output.rank * sizeof *o);
    return index_at(&g->indices, o, &g->input, g->axis, clamp, &i[g->axis], rec);
}

dmlref_status dmlref_ref_gather_elements(const kernel_context *ctx,
                                         const dmlref_gather_elements_desc *desc, const void *input,
                                         const void *indices, void *output, dmlref_error *err)
{
    const unsigned char *in = input;
    unsigned char *out = output;
    gather_elements_operands g;
    const index_tensor *idx = &g.indices;
    uint64_t total, p;
    int64_t pos;

    gather_elements_operands_of(desc, indices, &g);
    total = layout_element_count(&g.output); /* == the number of indices (R-GE-4) */

    if (!ctx->clamp) { /* D1: every index is checked before anything is written */
        for (p = 0; p < total; ++p) {
            uint64_t c[MAX_RANK], v;
            coordinates_of(p, idx->l.rank, idx->l.sizes, c);
            if (!index_at(idx, c, &g.input, g.axis, 0, &v, NULL))
                return report_out_of_range(err, ctx->op_name, &idx->l, indices, idx->type, p,
                                           g.input.sizes[g.axis], "InputTensor", g.axis, "D1");
        }
    }

#pragma omp parallel for num_threads(kernel_team(ctx)) if (total >= PARALLEL_MIN_ELEMENTS)
    for (pos = 0; pos < (int64_t)total; ++pos) {
        uint64_t o[MAX_RANK], i[MAX_RANK];
        coordinates_of((uint64_t)pos, g.output.rank, g.output.sizes, o);
        (void)gather_elements_source(&g, o, 1, i, NULL); /* clamped, or checked above */
        memcpy(out + byte_offset(&g.output, o), in + byte_offset(&g.input, i),
               g.input.element_size);
    }
    return DMLREF_OK;
}
