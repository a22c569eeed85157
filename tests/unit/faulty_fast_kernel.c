/*
 * faulty_fast_kernel.c - a deliberately wrong fast GatherElements kernel, for
 * tests only: `dmlref fuzz --kernels fast`, `dmlref verify --kernels fast` and
 * test_random must catch it (tests/cli/test_fuzz.sh, make check-conformance).
 *
 * It defines dmlref_fast_gather_elements, the one symbol of the archive member
 * src/kernels/gather_elements.o.  Linked into a program before libdmlref.a
 * ($(BUILD)/faulty-fast/dmlref and $(BUILD)/faulty-fast/test_random), its
 * definition is the one the program uses and that member is never pulled in;
 * the library itself is unchanged.
 *
 * The kernel is GatherElements written plainly (the index check first, D1,
 * then one element at a time) with one bug: for 2-byte elements (FLOAT16,
 * INT16, UINT16), an index that selects the last element along the axis
 * (s - 1 with s >= 2, or -1) reads the element before it.  Out-of-range
 * indices are refused as the library refuses them, with the same message.
 *
 * The bug shows only when the caller selects the fast kernels.  The programs
 * are linked with -Wl,--wrap=dmlref_execute_with_options, so every call of
 * that function from another object passes through
 * __wrap_dmlref_execute_with_options below, which notes whether it selects
 * DMLREF_KERNELS_FAST; the kernel then computes the right answer for every
 * other call.  (Where execute.c runs the fast kernels for both selections,
 * as it does until reference/ exists, this keeps the reference answer right;
 * once the reference kernels run for DMLREF_KERNELS_REFERENCE, the
 * selection is all the kernel ever sees.)
 */
#include "kernels/kernels.h"

dmlref_status __real_dmlref_execute_with_options(const dmlref_operator_desc *op,
                                                 dmlref_feature_level feature_level,
                                                 const dmlref_execute_options *options,
                                                 const dmlref_binding *inputs, size_t input_count,
                                                 const dmlref_binding *outputs, size_t output_count,
                                                 dmlref_error *err);
dmlref_status __wrap_dmlref_execute_with_options(const dmlref_operator_desc *op,
                                                 dmlref_feature_level feature_level,
                                                 const dmlref_execute_options *options,
                                                 const dmlref_binding *inputs, size_t input_count,
                                                 const dmlref_binding *outputs, size_t output_count,
                                                 dmlref_error *err);

/* Whether the call in progress selects the fast kernels.  Read on the
   calling thread, before any team starts. */
static int fast_selected;

dmlref_status __wrap_dmlref_execute_with_options(const dmlref_operator_desc *op,
                                                 dmlref_feature_level feature_level,
                                                 const dmlref_execute_options *options,
                                                 const dmlref_binding *inputs, size_t input_count,
                                                 const dmlref_binding *outputs, size_t output_count,
                                                 dmlref_error *err)
{
    dmlref_status status;
    fast_selected = options && options->kernels == DMLREF_KERNELS_FAST;
    status = __real_dmlref_execute_with_options(op, feature_level, options, inputs, input_count,
                                                outputs, output_count, err);
    fast_selected = 0;
    return status;
}

dmlref_status dmlref_fast_gather_elements(const kernel_context *ctx,
                                          const dmlref_gather_elements_desc *desc,
                                          const void *input, const void *indices, void *output,
                                          dmlref_error *err)
{
    const unsigned char *in = input, *idx = indices;
    unsigned char *out = output;
    layout in_l, idx_l, out_l;
    uint64_t total, pos, size;
    uint32_t axis = desc->Axis, es, d;
    dmlref_tensor_data_type type = desc->IndicesTensor->DataType;
    walker w;

    layout_from_desc(desc->InputTensor, &in_l);
    layout_from_desc(desc->IndicesTensor, &idx_l);
    layout_from_desc(desc->OutputTensor, &out_l);
    es = in_l.element_size;
    size = in_l.sizes[axis];
    total = layout_element_count(&out_l);

    /* D1: every index checked before anything is written; the first bad one
       in row-major order is reported */
    walker_init(&w, idx_l.rank, idx_l.sizes);
    walker_add(&w, idx_l.strides);
    walker_seek(&w, 0);
    for (pos = 0; !ctx->clamp && pos < total; ++pos, walker_next(&w)) {
        uint64_t at;
        if (!normalize_index(read_index(idx + w.offset[0] * idx_l.element_size, type), size, 0,
                             &at))
            return report_out_of_range(err, ctx->op_name, &idx_l, idx, type, pos, size,
                                       "InputTensor", axis, "D1");
    }

    walker_init(&w, out_l.rank, out_l.sizes);
    walker_add(&w, out_l.strides); /* slot 0 */
    walker_add(&w, idx_l.strides); /* slot 1 */
    walker_seek(&w, 0);
    for (pos = 0; pos < total; ++pos, walker_next(&w)) {
        uint64_t at = 0, offset = 0;
        normalize_index(read_index(idx + w.offset[1] * idx_l.element_size, type), size, 1, &at);
        if (fast_selected && es == 2 && size >= 2 && at == size - 1)
            at = size - 2; /* the bug */
        for (d = 0; d < in_l.rank; ++d)
            offset += (d == axis ? at : w.coord[d]) * in_l.strides[d];
        copy_element(out + w.offset[0] * es, in + offset * es, es);
    }
    return DMLREF_OK;
}
