/*
 * plugin_example.c - a minimal `dmlref check` plug-in (docs/conformance.md):
 * GATHER_ELEMENTS on packed FLOAT32 tensors from FL 3_0; everything else is
 * answered "unsupported" (skipped).  Assumes a little-endian host.
 *
 *   cc -std=c99 -fPIC -shared -Iinclude docs/examples/plugin_example.c -o example.so
 *   build/dmlref check --backend ./example.so vectors/gather_elements
 */
#include <stdio.h>
#include <string.h>

#include "dmlref/backend.h"

DMLREF_API const dmlref_backend_v1 *dmlref_backend_entry(uint32_t abi_version);

#define IS_SIGNED(t) ((t) == DMLREF_TENSOR_DATA_TYPE_INT32 || (t) == DMLREF_TENSOR_DATA_TYPE_INT64)
#define IS_64(t) ((t) == DMLREF_TENSOR_DATA_TYPE_INT64 || (t) == DMLREF_TENSOR_DATA_TYPE_UINT64)

static int bad_tensor(const dmlref_tensor_desc *t, uint32_t esize, int is_output)
{ /* R-TD-1, 2, 9, 13, 14, 15 */
    uint64_t n = 1, total = t->TotalTensorSizeInBytes;
    uint32_t i, al = t->GuaranteedBaseOffsetAlignment;
    for (i = 0; i < t->DimensionCount; ++i)
        n = n > 0xFFFFFFFFu ? n : n * t->Sizes[i]; /* stops before it could overflow */
    return t->DimensionCount < 1 || t->DimensionCount > 8 || n == 0 || n > 0xFFFFFFFFu ||
           total < n * esize || total / esize > 0xFFFFFFFFu ||
           (t->Flags & (is_output ? ~0u : ~1u)) || (al && ((al & (al - 1)) || al < 16));
}

/* DMLREF_OK: it runs; DMLREF_ERROR_UNSUPPORTED_*: skipped; other errors: invalid. */
static dmlref_status supports(void *context, const dmlref_operator_desc *op,
                              dmlref_feature_level level)
{
    const dmlref_gather_elements_desc *d = op->Desc;
    const dmlref_tensor_desc *in, *idx, *out;
    uint32_t i;
    (void)context;
    if (op->Type != DMLREF_OPERATOR_GATHER_ELEMENTS || level < DMLREF_FEATURE_LEVEL_3_0)
        return DMLREF_ERROR_UNSUPPORTED_OPERATOR;
    in = d->InputTensor;
    idx = d->IndicesTensor;
    out = d->OutputTensor;
    if (in->DataType != DMLREF_TENSOR_DATA_TYPE_FLOAT32 || in->Strides || idx->Strides ||
        out->Strides)
        return DMLREF_ERROR_UNSUPPORTED_LAYOUT;
    if (!IS_SIGNED(idx->DataType) && !IS_64(idx->DataType) &&
        idx->DataType != DMLREF_TENSOR_DATA_TYPE_UINT32)
        return DMLREF_ERROR_UNSUPPORTED_DATA_TYPE; /* R-IX-1 */
    if (out->DataType != in->DataType)
        return DMLREF_ERROR_DATA_TYPE_MISMATCH; /* R-GE-4 */
    if (bad_tensor(in, 4, 0) || bad_tensor(idx, IS_64(idx->DataType) ? 8 : 4, 0) ||
        bad_tensor(out, 4, 1))
        return DMLREF_ERROR_INVALID_SIZES;
    if (idx->DimensionCount != in->DimensionCount || out->DimensionCount != in->DimensionCount)
        return DMLREF_ERROR_DIMENSION_COUNT_MISMATCH; /* R-GE-1 */
    if (d->Axis >= in->DimensionCount)
        return DMLREF_ERROR_INVALID_ATTRIBUTE; /* R-GE-2 */
    for (i = 0; i < in->DimensionCount; ++i)
        if ((i != d->Axis && idx->Sizes[i] != in->Sizes[i]) || out->Sizes[i] != idx->Sizes[i])
            return DMLREF_ERROR_SIZE_MISMATCH; /* R-GE-3, R-GE-4 */
    return DMLREF_OK;
}

static dmlref_status execute(void *context, const dmlref_operator_desc *op,
                             dmlref_feature_level level, const dmlref_binding *inputs,
                             size_t input_count, const dmlref_binding *outputs, size_t output_count,
                             char *message, size_t message_capacity)
{
    const dmlref_gather_elements_desc *d = op->Desc;
    const dmlref_tensor_desc *idx = d->IndicesTensor;
    const unsigned char *src = inputs[0].data, *ind = inputs[1].data;
    unsigned char *dst = outputs[0].data;
    uint64_t n = 1, inner = 1, s, o;
    dmlref_status status = supports(context, op, level);
    uint32_t i;
    if (status != DMLREF_OK || input_count != 2 || output_count != 1)
        return status != DMLREF_OK ? status : DMLREF_ERROR_BINDING_COUNT;
    s = d->InputTensor->Sizes[d->Axis];
    for (i = 0; i < idx->DimensionCount; ++i) {
        n *= idx->Sizes[i];
        inner *= i > d->Axis ? idx->Sizes[i] : 1; /* elements per step along Axis */
    }
    for (o = 0; o < n; ++o) { /* R-GE-6: the index replaces the coordinate along Axis */
        int64_t v;
        int32_t i32;
        uint32_t u32;
        if (IS_64(idx->DataType)) { /* a UINT64 above 2^63-1 reads as negative: out of range */
            memcpy(&v, ind + 8 * o, 8);
        } else if (IS_SIGNED(idx->DataType)) {
            memcpy(&i32, ind + 4 * o, 4);
            v = i32;
        } else {
            memcpy(&u32, ind + 4 * o, 4);
            v = u32;
        }
        if (v < 0 && IS_SIGNED(idx->DataType))
            v += (int64_t)s;             /* R-IX-2: negative indices count from the end */
        if (v < 0 || (uint64_t)v >= s) { /* R-IX-4, D1 */
            snprintf(message, message_capacity, "IndicesTensor element %llu is out of range",
                     (unsigned long long)o);
            return DMLREF_ERROR_INDEX_OUT_OF_RANGE;
        }
        /* input element: same coordinate as o, except v along Axis; bits copied as they are */
        memcpy(dst + 4 * o,
               src + 4 * ((o / inner / idx->Sizes[d->Axis] * s + (uint64_t)v) * inner + o % inner),
               4);
    }
    return DMLREF_OK;
}

static dmlref_status create(const char *options, void **context, char *message, size_t capacity)
{
    (void)options, (void)message, (void)capacity;
    *context = NULL; /* no state */
    return DMLREF_OK;
}

static void destroy(void *context)
{
    (void)context;
}

static const dmlref_backend_v1 table = {DMLREF_BACKEND_ABI_VERSION,
                                        sizeof(dmlref_backend_v1),
                                        "plugin-example",
                                        "1",
                                        DMLREF_FEATURE_LEVEL_LATEST,
                                        create,
                                        supports,
                                        execute,
                                        destroy};

DMLREF_API const dmlref_backend_v1 *dmlref_backend_entry(uint32_t abi_version)
{
    return abi_version == DMLREF_BACKEND_ABI_VERSION ? &table : NULL;
}
