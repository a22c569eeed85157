/*
 * gather_elements.c - computes reference/gather_elements.c
 * (DML_OPERATOR_GATHER_ELEMENTS; its semantics and policies are stated
 * there), bit for bit: the fast-versus-reference comparator
 * (src/core/kernels_compare.c), which dmlref fuzz, eval and verify
 * --kernels fast and tests/unit/test_random.c run, proves it.
 *
 * How it is fast: output, indices and input walk one shape (below), which
 * coalesces into a few long runs that gather_over_runs (runs.c) does with
 * its specialised loops; large outputs of 8-byte elements are streamed.
 * README.md tells the techniques.
 */
#include "kernels/kernels.h"

/* Outputs of 8-byte elements of STREAM_MIN_BYTES or more are written with
 * streaming stores (x86-64), which skip reading each output line before
 * writing it: 8 of every 24 bytes a FLOAT64/INT64 gather moves.  With
 * 4-byte elements the share saved is smaller than what the stores cost on
 * some processors, so those keep ordinary stores. */

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
