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
 * GATHER_ND is GATHER_ND1 with BatchDimensionCount = 0 (R-GN-10): execute
 * converts it (gather_nd_as_nd1, src/core/operators.c), so this kernel runs
 * both.  Notation: D = the common DimensionCount, m = InputDimensionCount,
 * q = IndicesDimensionCount, b = BatchDimensionCount, k = Indices.Sizes[D-1]
 * (coordinates per tuple), r = m - b - k (input dimensions copied as a slice).
 *
 * Tensor constraints (checked by dmlref_validate, src/core/validate.c):
 *   R-GN-1  Input, Indices and Output share D; Output.DataType == Input's.
 *   R-GN-2  1 <= m <= D and 1 <= q <= D.
 *   R-GN-3  b < m and b < q (GATHER_ND1).
 *   R-GN-4  1 <= k <= m - b.
 *   R-GN-5  Input.Sizes[i] == 1 for i < D-m; Indices.Sizes[i] == 1 for i < D-q
 *           (D11).
 *   R-GN-6  the b batch dimensions of Indices may differ from Input's; the
 *           output reads Input at its own batch coordinates, so Indices
 *           with more batches than Input is refused at execution (D11).
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
 *
 * The pseudocode above is the one of DirectML's GatherND pages (the seeds),
 * made exact as R-GN-9 in docs/rules.md; the loop below is R-GN-9, one
 * output element at a time.  Its step, gather_nd1_source, is what dmlref
 * explain's trace (trace.c) runs for one element.
 */
#include "reference/reference.h"

void gather_nd1_operands_of(const dmlref_gather_nd1_desc *desc, const void *indices,
                            gather_nd1_operands *nd)
{
    layout_from_desc(desc->InputTensor, &nd->input);
    layout_from_desc(desc->OutputTensor, &nd->output);
    layout_from_desc(desc->IndicesTensor, &nd->indices.l);
    nd->indices.data = indices;
    nd->indices.type = desc->IndicesTensor->DataType;
    nd->D = nd->input.rank;
    nd->m = desc->InputDimensionCount;
    nd->q = desc->IndicesDimensionCount;
    nd->b = desc->BatchDimensionCount;
    nd->k = (uint32_t)nd->indices.l.sizes[nd->D - 1];
    nd->r = nd->m - nd->b - nd->k;
    nd->pad = nd->D - (nd->q - 1 + nd->r); /* the output's leading 1s (R-GN-7) */
}

/* o = {0.., beta, g, s}; the tuple at {0.., beta, g, j}; i = {0.., beta, t, s} */
int gather_nd1_source(const gather_nd1_operands *nd, const uint64_t *o, int clamp, uint64_t *i,
                      index_record *rec)
{
    const uint32_t D = nd->D, m = nd->m, q = nd->q, b = nd->b, r = nd->r, pad = nd->pad;
    uint64_t t[MAX_RANK] = {0};
    uint32_t j;
    int in_range = 1;
    memset(i, 0, D * sizeof *i);
    for (j = 0; j + 1 < q; ++j) /* beta and g */
        t[D - q + j] = o[pad + j];
    for (j = 0; j < b; ++j) /* beta */
        i[D - m + j] = o[pad + j];
    for (j = 0; j < r; ++j) /* s */
        i[D - r + j] = o[pad + q - 1 + j];
    for (j = 0; j < nd->k; ++j) { /* the tuple, normalised */
        const uint32_t dim = tuple_dimension(nd, j);
        t[D - 1] = j;
        if (!index_at(&nd->indices, t, &nd->input, dim, clamp, &i[dim], rec ? &rec[j] : NULL)) {
            in_range = 0;
            if (!clamp)
                break;
        }
    }
    return in_range;
}

dmlref_status dmlref_ref_gather_nd1(const kernel_context *ctx, const dmlref_gather_nd1_desc *desc,
                                    const void *input, const void *indices, void *output,
                                    dmlref_error *err)
{
    const unsigned char *in = input;
    unsigned char *out = output;
    gather_nd1_operands nd;
    const index_tensor *idx = &nd.indices;
    uint64_t total, index_count, p;
    int64_t pos;

    gather_nd1_operands_of(desc, indices, &nd);
    total = layout_element_count(&nd.output);
    index_count = layout_element_count(&idx->l);

    CHECK(
        check_batches_inside(err, ctx->op_name, &nd.input, &idx->l, nd.m, nd.q, nd.b)); /* R-GN-6 */
    if (!ctx->clamp) { /* D1: every index is checked before anything is written */
        for (p = 0; p < index_count; ++p) {
            uint64_t c[MAX_RANK], v;
            uint32_t dim; /* the input dimension that t[c[D-1]] indexes */
            coordinates_of(p, idx->l.rank, idx->l.sizes, c);
            dim = tuple_dimension(&nd, (uint32_t)c[nd.D - 1]);
            if (!index_at(idx, c, &nd.input, dim, 0, &v, NULL))
                return report_out_of_range(err, ctx->op_name, &idx->l, indices, idx->type, p,
                                           nd.input.sizes[dim], "InputTensor", dim, "D1");
        }
    }

#pragma omp parallel for num_threads(kernel_team(ctx)) if (total >= PARALLEL_MIN_ELEMENTS)
    for (pos = 0; pos < (int64_t)total; ++pos) {
        uint64_t o[MAX_RANK], i[MAX_RANK];
        coordinates_of((uint64_t)pos, nd.output.rank, nd.output.sizes, o);
        (void)gather_nd1_source(&nd, o, 1, i, NULL); /* clamped, or checked above */
        memcpy(out + byte_offset(&nd.output, o), in + byte_offset(&nd.input, i),
               nd.input.element_size);
    }
    return DMLREF_OK;
}
