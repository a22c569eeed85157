/*
 * fuzz_case.c - a fuzz case's JSON as the fuzzer reads and edits it: its
 * operator and tensors, their sizes and data types, integer elements.
 */
#include "conformance/fuzz_internal.h"

#include <stdio.h>

int shape_of(json_t *root, shape *s)
{
    static const char *const gather[3] = {"InputTensor", "IndicesTensor", "OutputTensor"};
    static const char *const scatter[4] = {"InputTensor", "IndicesTensor", "UpdatesTensor",
                                           "OutputTensor"};
    static const char *const nonzero[3] = {"InputTensor", "OutputCountTensor",
                                           "OutputCoordinatesTensor"};
    const char *name = json_string_value(json_object_get(root, "operator"));
    const char *const *names;
    size_t i;
    if (!name || !dmlref_operator_from_name(name, &s->op))
        return 0;
    names = s->op == DMLREF_OPERATOR_SCATTER_ELEMENTS      ? scatter
            : s->op == DMLREF_OPERATOR_NONZERO_COORDINATES ? nonzero
                                                           : gather;
    s->count = s->op == DMLREF_OPERATOR_SCATTER_ELEMENTS ? 4 : 3;
    s->inputs = s->op == DMLREF_OPERATOR_SCATTER_ELEMENTS      ? 3
                : s->op == DMLREF_OPERATOR_NONZERO_COORDINATES ? 1
                                                               : 2;
    for (i = 0; i < s->count; ++i)
        s->names[i] = names[i];
    return 1;
}

json_t *tensor_at(json_t *root, const char *name)
{
    return json_object_get(json_object_get(root, "tensors"), name);
}

size_t rank_of(json_t *t)
{
    return json_array_size(json_object_get(t, "sizes"));
}

uint64_t size_at(json_t *t, size_t d)
{
    return (uint64_t)json_integer_value(json_array_get(json_object_get(t, "sizes"), d));
}

void set_size(json_t *t, size_t d, uint64_t size)
{
    json_array_set_new(json_object_get(t, "sizes"), d, json_integer((json_int_t)size));
}

uint64_t elements_of(json_t *t)
{
    uint64_t n = 1;
    size_t d, rank = rank_of(t);
    for (d = 0; d < rank; ++d) {
        uint64_t s = size_at(t, d);
        if (s && n > UINT64_MAX / s)
            return UINT64_MAX;
        n *= s;
    }
    return n;
}

dmlref_tensor_data_type dtype_of(json_t *t)
{
    dmlref_tensor_data_type type = DMLREF_TENSOR_DATA_TYPE_FLOAT32;
    const char *name = json_string_value(json_object_get(t, "dtype"));
    if (name)
        dmlref_data_type_from_name(name, &type);
    return type;
}

int is_signed_type(dmlref_tensor_data_type type)
{
    return type == DMLREF_TENSOR_DATA_TYPE_INT8 || type == DMLREF_TENSOR_DATA_TYPE_INT16 ||
           type == DMLREF_TENSOR_DATA_TYPE_INT32 || type == DMLREF_TENSOR_DATA_TYPE_INT64;
}

json_t *integer_element(dmlref_tensor_data_type type, uint64_t bits)
{
    char text[32];
    uint32_t esize = dmlref_data_type_size(type);
    uint64_t mask = esize >= 8 ? UINT64_MAX : (((uint64_t)1 << (8 * esize)) - 1);
    bits &= mask;
    if (is_signed_type(type)) {
        int64_t v = esize >= 8                  ? (int64_t)bits
                    : (bits >> (8 * esize - 1)) ? (int64_t)(bits | ~mask)
                                                : (int64_t)bits;
        if (v >= -((int64_t)1 << 53) && v <= ((int64_t)1 << 53))
            return json_integer((json_int_t)v);
        snprintf(text, sizeof text, "%lld", (long long)v);
    } else {
        if (bits <= ((uint64_t)1 << 53))
            return json_integer((json_int_t)bits);
        snprintf(text, sizeof text, "%llu", (unsigned long long)bits);
    }
    return json_string(text);
}

char *dump(json_t *root)
{
    return json_dumps(root, JSON_COMPACT);
}
