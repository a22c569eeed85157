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
 * Tensor constraints (checked by dmlref_validate, src/core/validate.c):
 *   R-SC-1  Input, Indices, Updates and Output share a DimensionCount D.
 *   R-SC-2  Input, Updates and Output share a DataType.
 *   R-SC-3  Axis < D.
 *   R-SC-4  Indices.Sizes[d] == Input.Sizes[d] for every d != Axis; along
 *           Axis it is at most the input's, as DirectML requires (D5, D16).
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
 * The pseudocode above is the one of DirectML's Scatter page (the seed;
 * R-SC-8 and R-SC-9 in docs/rules.md).  Below, its two lines are two loops:
 * the copy, on every thread (each output element is written once), then the
 * updates on one thread, in row-major order, which is what makes the last
 * update win (D4) whatever the thread count.  The second loop's step,
 * scatter_elements_target, is what dmlref explain's trace (trace.c) runs.
 */
#include "reference/reference.h"

void scatter_elements_operands_of(const dmlref_scatter_elements_desc *desc, const void *indices,
                                  scatter_elements_operands *s)
{
    layout_from_desc(desc->InputTensor, &s->input);
    layout_from_desc(desc->UpdatesTensor, &s->updates);
    layout_from_desc(desc->OutputTensor, &s->output);
    layout_from_desc(desc->IndicesTensor, &s->indices.l);
    s->indices.data = indices;
    s->indices.type = desc->IndicesTensor->DataType;
    s->axis = desc->Axis;
}

/* o = u with o[Axis] = index[u] */
int scatter_elements_target(const scatter_elements_operands *s, const uint64_t *u, int clamp,
                            uint64_t *o, index_record *rec)
{
    memcpy(o, u, s->updates.rank * sizeof *u);
    return index_at(&s->indices, u, &s->output, s->axis, clamp, &o[s->axis], rec);
}

dmlref_status dmlref_ref_scatter_elements(const kernel_context *ctx,
                                          const dmlref_scatter_elements_desc *desc,
                                          const void *input, const void *indices,
                                          const void *updates, void *output, dmlref_error *err)
{
    const unsigned char *in = input, *upd = updates;
    unsigned char *out = output;
    scatter_elements_operands s;
    const index_tensor *idx = &s.indices;
    uint64_t total, update_count, p;
    uint32_t es;
    int64_t pos;

    scatter_elements_operands_of(desc, indices, &s);
    total = layout_element_count(&s.output);
    update_count = layout_element_count(&s.updates); /* == the number of indices (R-SC-5) */
    es = s.output.element_size;

    if (!ctx->clamp) { /* D2: every index is checked before anything is written */
        for (p = 0; p < update_count; ++p) {
            uint64_t c[MAX_RANK], v;
            coordinates_of(p, idx->l.rank, idx->l.sizes, c);
            if (!index_at(idx, c, &s.output, s.axis, 0, &v, NULL))
                return report_out_of_range(err, ctx->op_name, &idx->l, indices, idx->type, p,
                                           s.output.sizes[s.axis], "OutputTensor", s.axis, "D2");
        }
    }

    /* output = input (R-SC-6: the same sizes, perhaps other strides) */
#pragma omp parallel for num_threads(kernel_team(ctx)) if (total >= PARALLEL_MIN_ELEMENTS)
    for (pos = 0; pos < (int64_t)total; ++pos) {
        uint64_t o[MAX_RANK];
        coordinates_of((uint64_t)pos, s.output.rank, s.output.sizes, o);
        memcpy(out + byte_offset(&s.output, o), in + byte_offset(&s.input, o), es);
    }

    /* output[o] = updates[u], for every coordinate u of the updates in
       row-major order (R-SC-9, D4) */
    for (p = 0; p < update_count; ++p) {
        uint64_t u[MAX_RANK], o[MAX_RANK];
        coordinates_of(p, s.updates.rank, s.updates.sizes, u);
        (void)scatter_elements_target(&s, u, 1, o, NULL); /* clamped, or checked above */
        memcpy(out + byte_offset(&s.output, o), upd + byte_offset(&s.updates, u), es);
    }
    return DMLREF_OK;
}
