/*
 * execute.c - dmlref_execute(): validate the descriptor, check the bindings,
 * then hand the buffers to the operator's kernel (its table row's reference
 * or fast one), which checks the index values before it writes anything.
 */
#include "core/core.h"

#include <stdint.h>

/* The tensors of an operator in binding order: inputs, then outputs. */
typedef struct tensor_list {
    size_t input_count, output_count;
    const char *names[OPERATOR_MAX_TENSORS];
    const dmlref_tensor_desc *descs[OPERATOR_MAX_TENSORS];
} tensor_list;

static void list_tensors(const operator_info *row, const void *desc, tensor_list *l)
{
    size_t i;
    l->input_count = row->input_count;
    l->output_count = row->output_count;
    for (i = 0; i < row->input_count + row->output_count; ++i)
        l->names[i] = row->tensors[i].name;
    operator_desc_tensors(row, desc, l->descs);
}

/* R-TD-12, R-TD-14, R-TD-18 and D6: every binding present, large enough and
 * aligned as promised; no output sharing a byte with another binding. */
static dmlref_status check_bindings(const char *op, const tensor_list *l,
                                    const dmlref_binding *inputs, size_t input_count,
                                    const dmlref_binding *outputs, size_t output_count,
                                    dmlref_error *err)
{
    const dmlref_binding *b[OPERATOR_MAX_TENSORS];
    size_t n = l->input_count + l->output_count, i, j;

    if (input_count != l->input_count || output_count != l->output_count)
        return set_error(err, DMLREF_ERROR_BINDING_COUNT, "",
                         "%s: %zu input and %zu output bindings given, the operator has %zu "
                         "and %zu",
                         op, input_count, output_count, l->input_count, l->output_count);
    if (!inputs || !outputs)
        return set_error(err, DMLREF_ERROR_INVALID_ARGUMENT, "", "%s: the %s array is NULL", op,
                         inputs ? "outputs" : "inputs");
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
    const operator_info *row;
    operator_desc_storage storage;
    operator_kernel_fn kernel;
    void *buffers[OPERATOR_MAX_TENSORS];
    size_t i;
    dmlref_status status = dmlref_validate(op, feature_level, err);

    if (status != DMLREF_OK)
        return status;
    row = operator_find(op->Type); /* validation found it */
    if (!options)
        options = &defaults;
    if (options->oob_policy != DMLREF_OOB_ERROR && options->oob_policy != DMLREF_OOB_CLAMP)
        return set_error(err, DMLREF_ERROR_INVALID_ARGUMENT, "",
                         "%s: oob_policy = %d is not a dmlref_oob_policy", row->name,
                         (int)options->oob_policy);
    if (options->num_threads > DMLREF_MAX_THREADS)
        return set_error(err, DMLREF_ERROR_INVALID_ARGUMENT, "",
                         "%s: num_threads = %u is more than %u", row->name, options->num_threads,
                         DMLREF_MAX_THREADS);
    if (options->kernels != DMLREF_KERNELS_REFERENCE && options->kernels != DMLREF_KERNELS_FAST)
        return set_error(err, DMLREF_ERROR_INVALID_ARGUMENT, "",
                         "%s: kernels = %d is not a dmlref_kernels", row->name,
                         (int)options->kernels);
    ctx.op_name = row->name;
    ctx.clamp = options->oob_policy == DMLREF_OOB_CLAMP;
    ctx.num_threads = options->num_threads;

    list_tensors(row, op->Desc, &l);
    status = check_bindings(ctx.op_name, &l, inputs, input_count, outputs, output_count, err);
    if (status != DMLREF_OK)
        return status;

    for (i = 0; i < l.input_count + l.output_count; ++i)
        buffers[i] = i < l.input_count ? inputs[i].data : outputs[i - l.input_count].data;
    kernel = options->kernels == DMLREF_KERNELS_FAST ? row->fast : row->reference;
    return kernel(&ctx, operator_desc_adapted(row, op->Desc, &storage), buffers, err);
}

dmlref_status dmlref_execute(const dmlref_operator_desc *op, dmlref_feature_level feature_level,
                             const dmlref_binding *inputs, size_t input_count,
                             const dmlref_binding *outputs, size_t output_count, dmlref_error *err)
{
    return dmlref_execute_with_options(op, feature_level, NULL, inputs, input_count, outputs,
                                       output_count, err);
}
