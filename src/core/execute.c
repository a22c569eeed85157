/*
 * execute.c - dmlref_execute(): validate the descriptor, check the bindings,
 * then hand the buffers to the operator's kernel, the reference one or the
 * fast one, which checks the index values before it writes anything.
 */
#include "kernels/kernels.h"
#include "reference/reference.h"

#include <stdint.h>

/* The tensors of an operator in binding order: inputs, then outputs. */
typedef struct tensor_list {
    size_t input_count, output_count;
    const char *names[4];
    const dmlref_tensor_desc *descs[4];
} tensor_list;

static void list_tensors(const dmlref_operator_desc *op, tensor_list *l)
{
    switch (op->Type) {
    case DMLREF_OPERATOR_GATHER_ELEMENTS: {
        const dmlref_gather_elements_desc *d = op->Desc;
        *l = (tensor_list){2, 1, {"InputTensor", "IndicesTensor", "OutputTensor", NULL},
                           {d->InputTensor, d->IndicesTensor, d->OutputTensor, NULL}};
        break;
    }
    case DMLREF_OPERATOR_SCATTER_ELEMENTS: {
        const dmlref_scatter_elements_desc *d = op->Desc;
        *l = (tensor_list){3, 1,
                           {"InputTensor", "IndicesTensor", "UpdatesTensor", "OutputTensor"},
                           {d->InputTensor, d->IndicesTensor, d->UpdatesTensor, d->OutputTensor}};
        break;
    }
    case DMLREF_OPERATOR_GATHER_ND: {
        const dmlref_gather_nd_desc *d = op->Desc;
        *l = (tensor_list){2, 1, {"InputTensor", "IndicesTensor", "OutputTensor", NULL},
                           {d->InputTensor, d->IndicesTensor, d->OutputTensor, NULL}};
        break;
    }
    case DMLREF_OPERATOR_GATHER_ND1: {
        const dmlref_gather_nd1_desc *d = op->Desc;
        *l = (tensor_list){2, 1, {"InputTensor", "IndicesTensor", "OutputTensor", NULL},
                           {d->InputTensor, d->IndicesTensor, d->OutputTensor, NULL}};
        break;
    }
    default: {
        const dmlref_nonzero_coordinates_desc *d = op->Desc;
        *l = (tensor_list){1, 2,
                           {"InputTensor", "OutputCountTensor", "OutputCoordinatesTensor", NULL},
                           {d->InputTensor, d->OutputCountTensor, d->OutputCoordinatesTensor,
                            NULL}};
        break;
    }
    }
}

/* R-TD-12, R-TD-14, R-TD-18 and D6: every binding present, large enough and
 * aligned as promised; no output sharing a byte with another binding. */
static dmlref_status check_bindings(const char *op, const tensor_list *l,
                                    const dmlref_binding *inputs, size_t input_count,
                                    const dmlref_binding *outputs, size_t output_count,
                                    dmlref_error *err)
{
    const dmlref_binding *b[4];
    size_t n = l->input_count + l->output_count, i, j;

    if (input_count != l->input_count || output_count != l->output_count)
        return set_error(err, DMLREF_ERROR_BINDING_COUNT, "",
                         "%s: %zu input and %zu output bindings given, the operator has %zu "
                         "and %zu",
                         op, input_count, output_count, l->input_count, l->output_count);
    if (!inputs || !outputs)
        return set_error(err, DMLREF_ERROR_INVALID_ARGUMENT, "", "%s: the %s array is NULL",
                         op, inputs ? "outputs" : "inputs");
    for (i = 0; i < n; ++i)
        b[i] = i < l->input_count ? &inputs[i] : &outputs[i - l->input_count];

    for (i = 0; i < n; ++i) {
        const dmlref_tensor_desc *t = l->descs[i];
        if (!b[i]->data)
            return set_error(err, DMLREF_ERROR_BINDING_MISSING, "R-TD-12",
                             "%s: the binding of %s has no data", op, l->names[i]);
        if (b[i]->size_in_bytes < t->TotalTensorSizeInBytes)
            return set_error(err, DMLREF_ERROR_BINDING_TOO_SMALL, "R-TD-12",
                             "%s: the binding of %s holds %llu bytes, less than its "
                             "TotalTensorSizeInBytes = %llu",
                             op, l->names[i], (unsigned long long)b[i]->size_in_bytes,
                             (unsigned long long)t->TotalTensorSizeInBytes);
        if (t->GuaranteedBaseOffsetAlignment != 0 &&
            (uintptr_t)b[i]->data % t->GuaranteedBaseOffsetAlignment != 0)
            return set_error(err, DMLREF_ERROR_BINDING_MISALIGNED, "R-TD-14",
                             "%s: the binding of %s is not aligned to its "
                             "GuaranteedBaseOffsetAlignment = %u",
                             op, l->names[i], t->GuaranteedBaseOffsetAlignment);
    }
    /* An output may write any byte of its TotalTensorSizeInBytes (R-TD-11), and
       an input may be read anywhere in its own: those ranges must not meet. */
    for (i = l->input_count; i < n; ++i) {
        uintptr_t lo = (uintptr_t)b[i]->data;
        uintptr_t hi = lo + (uintptr_t)l->descs[i]->TotalTensorSizeInBytes;
        for (j = 0; j < n; ++j) {
            uintptr_t lo2 = (uintptr_t)b[j]->data;
            uintptr_t hi2 = lo2 + (uintptr_t)l->descs[j]->TotalTensorSizeInBytes;
            if (j != i && lo < hi2 && lo2 < hi)
                return set_error(err, DMLREF_ERROR_BINDING_OVERLAP, "D6",
                                 "%s: the binding of %s overlaps the binding of %s", op,
                                 l->names[i], l->names[j]);
        }
    }
    return DMLREF_OK;
}

dmlref_status dmlref_execute_with_options(const dmlref_operator_desc *op,
                                          dmlref_feature_level feature_level,
                                          const dmlref_execute_options *options,
                                          const dmlref_binding *inputs, size_t input_count,
                                          const dmlref_binding *outputs, size_t output_count,
                                          dmlref_error *err)
{
    static const dmlref_execute_options defaults = {DMLREF_OOB_ERROR, 0, DMLREF_KERNELS_REFERENCE};
    kernel_context ctx;
    tensor_list l;
    int fast;
    dmlref_status status = dmlref_validate(op, feature_level, err);

    if (status != DMLREF_OK)
        return status;
    if (!options)
        options = &defaults;
    if (options->oob_policy != DMLREF_OOB_ERROR && options->oob_policy != DMLREF_OOB_CLAMP)
        return set_error(err, DMLREF_ERROR_INVALID_ARGUMENT, "",
                         "%s: oob_policy = %d is not a dmlref_oob_policy",
                         dmlref_operator_name(op->Type), (int)options->oob_policy);
    if (options->num_threads > DMLREF_MAX_THREADS)
        return set_error(err, DMLREF_ERROR_INVALID_ARGUMENT, "",
                         "%s: num_threads = %u is more than %u", dmlref_operator_name(op->Type),
                         options->num_threads, DMLREF_MAX_THREADS);
    if (options->kernels != DMLREF_KERNELS_REFERENCE && options->kernels != DMLREF_KERNELS_FAST)
        return set_error(err, DMLREF_ERROR_INVALID_ARGUMENT, "",
                         "%s: kernels = %d is not a dmlref_kernels", dmlref_operator_name(op->Type),
                         (int)options->kernels);
    ctx.op_name = dmlref_operator_name(op->Type);
    ctx.clamp = options->oob_policy == DMLREF_OOB_CLAMP;
    ctx.num_threads = options->num_threads;

    list_tensors(op, &l);
    status = check_bindings(ctx.op_name, &l, inputs, input_count, outputs, output_count, err);
    if (status != DMLREF_OK)
        return status;

    /* the reference kernels (reference/, the default) or the fast ones
       (src/kernels/): the same signatures, bit-identical results */
    fast = options->kernels == DMLREF_KERNELS_FAST;
    switch (op->Type) {
    case DMLREF_OPERATOR_GATHER_ELEMENTS:
        return (fast ? dmlref_fast_gather_elements : dmlref_ref_gather_elements)(
            &ctx, op->Desc, inputs[0].data, inputs[1].data, outputs[0].data, err);
    case DMLREF_OPERATOR_SCATTER_ELEMENTS:
        return (fast ? dmlref_fast_scatter_elements : dmlref_ref_scatter_elements)(
            &ctx, op->Desc, inputs[0].data, inputs[1].data, inputs[2].data, outputs[0].data, err);
    case DMLREF_OPERATOR_GATHER_ND: {
        /* GATHER_ND is GATHER_ND1 with BatchDimensionCount = 0 (R-GN-10) */
        const dmlref_gather_nd_desc *nd = op->Desc;
        dmlref_gather_nd1_desc nd1 = gather_nd_as_nd1(nd);
        return (fast ? dmlref_fast_gather_nd1 : dmlref_ref_gather_nd1)(
            &ctx, &nd1, inputs[0].data, inputs[1].data, outputs[0].data, err);
    }
    case DMLREF_OPERATOR_GATHER_ND1:
        return (fast ? dmlref_fast_gather_nd1 : dmlref_ref_gather_nd1)(
            &ctx, op->Desc, inputs[0].data, inputs[1].data, outputs[0].data, err);
    default:
        return (fast ? dmlref_fast_nonzero_coordinates : dmlref_ref_nonzero_coordinates)(
            &ctx, op->Desc, inputs[0].data, outputs[0].data, outputs[1].data, err);
    }
}

dmlref_status dmlref_execute(const dmlref_operator_desc *op, dmlref_feature_level feature_level,
                             const dmlref_binding *inputs, size_t input_count,
                             const dmlref_binding *outputs, size_t output_count,
                             dmlref_error *err)
{
    return dmlref_execute_with_options(op, feature_level, NULL, inputs, input_count, outputs,
                                       output_count, err);
}
