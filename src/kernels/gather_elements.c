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
 */
#include "kernels/kernels.h"

/* Outputs of 8-byte elements of STREAM_MIN_BYTES or more are written with
 * streaming stores (x86-64), which skip reading each output line before
 * writing it: 8 of every 24 bytes a FLOAT64/INT64 gather moves.  Measured
 * with the 2^24-element gathers along the last axis, alternating builds with
 * and without (docs/performance.md): on the 2-vCPU machine 0.79 to 0.89 of
 * the time at 1 and 2 threads, both policies; on the 16-core host 0.68 to
 * 1.02 at 2 to 16 threads and 0.86 to 1.01 at 1.  With 4-byte elements the
 * same stores gained here but lost up to a fifth at 1 thread on the 16-core
 * host (as in an earlier trial), so they are not used; so did 16-byte
 * streaming stores from a buffer of gathered elements (docs/performance.md). */

dmlref_status dmlref_fast_gather_elements(const kernel_context *ctx,
                                          const dmlref_gather_elements_desc *desc,
                                          const void *input, const void *indices, void *output,
                                          dmlref_error *err)
{
    const unsigned char *in = input, *idx = indices;
    unsigned char *out = output;
    layout in_l, idx_l, out_l;
    uint64_t total, in_strides_off_axis[MAX_RANK];
    uint32_t axis = desc->Axis, es;
    index_axis selector;
    walker full;
    runs r;
    int team = team_size(ctx->num_threads);
    output_writes writes;
    (void)team;

    layout_from_desc(desc->InputTensor, &in_l);
    layout_from_desc(desc->IndicesTensor, &idx_l);
    layout_from_desc(desc->OutputTensor, &out_l);
    es = in_l.element_size;
    total = layout_element_count(&out_l);
    selector.type = desc->IndicesTensor->DataType;
    selector.size = in_l.sizes[axis];
    selector.stride = in_l.strides[axis];

    if (!ctx->clamp) {
        uint64_t bad =
            find_out_of_range(&idx_l, idx, selector.type, &selector.size, 1, ctx->num_threads);
        if (bad != NO_INDEX)
            return report_out_of_range(err, ctx->op_name, &idx_l, idx, selector.type, bad,
                                       selector.size, "InputTensor", axis, "D1");
    }

    /* The input coordinate is the output's with c[Axis] replaced: walk the
       input with its Axis stride zeroed and add index * stride.  With that,
       the three tensors walk one shape, which coalesces into a few long
       runs (a packed 2-D gather on either axis is a single run). */
    memcpy(in_strides_off_axis, in_l.strides, sizeof in_strides_off_axis);
    in_strides_off_axis[axis] = 0;
    walker_init(&full, out_l.rank, out_l.sizes);
    walker_add(&full, out_l.strides);       /* slot 0 */
    walker_add(&full, idx_l.strides);       /* slot 1 */
    walker_add(&full, in_strides_off_axis); /* slot 2 */
    runs_init(&r, &full);

    if (total * es >= STREAM_MIN_BYTES && streaming_stores_available(es) &&
        (uintptr_t)out % es == 0)
        writes = OUTPUT_STREAMED;
    else
        writes = total * es >= REQUEST_MIN_BYTES ? OUTPUT_REQUESTED : OUTPUT_IN_CACHE;
#pragma omp parallel num_threads(team) if (total >= PARALLEL_MIN_ELEMENTS)
    {
        int t = thread_index(), n = thread_total();
        gather_over_runs(&r, chunk_begin(total, t, n), chunk_begin(total, t + 1, n), out, in, idx,
                         &selector, es, writes);
        if (writes == OUTPUT_STREAMED)
            streamed_stores_done();
    }
    return DMLREF_OK;
}
