/*
 * index.c - decoding and normalising index values (R-IX-1..6).
 */
#include "base/base.h"

#include <stdio.h>

index_value read_index(const unsigned char *element, dmlref_tensor_data_type type)
{
    index_value v = {0, 0};
    switch (type) {
    case DMLREF_TENSOR_DATA_TYPE_INT32: {
        int32_t x;
        memcpy(&x, element, sizeof x);
        v.value = x;
        break;
    }
    case DMLREF_TENSOR_DATA_TYPE_UINT32: {
        uint32_t x;
        memcpy(&x, element, sizeof x);
        v.value = (int64_t)x;
        break;
    }
    case DMLREF_TENSOR_DATA_TYPE_INT64: {
        int64_t x;
        memcpy(&x, element, sizeof x);
        v.value = x;
        break;
    }
    default: { /* UINT64: never negative (R-IX-3); above INT64_MAX it is simply huge */
        uint64_t x;
        memcpy(&x, element, sizeof x);
        if (x > (uint64_t)INT64_MAX)
            v.huge = 1;
        else
            v.value = (int64_t)x;
        break;
    }
    }
    return v;
}

int normalize_index(index_value v, uint64_t size, int clamp, uint64_t *out)
{
    /* size <= 2^32 - 1, so every comparison below is exact in int64 */
    int64_t s = (int64_t)size;
    int64_t x = v.value;
    if (!v.huge && x < 0 && x >= -s)
        x += s; /* R-IX-2: -1 is the last element */
    if (!v.huge && x >= 0 && x < s) {
        *out = (uint64_t)x;
        return 1;
    }
    if (clamp) /* D1's non-strict policy: the nearest valid index */
        *out = (!v.huge && x < 0) ? 0 : size - 1;
    return 0;
}

void format_index(const unsigned char *element, dmlref_tensor_data_type type, char *buf,
                  size_t capacity)
{
    index_value v = read_index(element, type);
    if (v.huge) {
        uint64_t x;
        memcpy(&x, element, sizeof x);
        snprintf(buf, capacity, "%llu", (unsigned long long)x);
    } else {
        snprintf(buf, capacity, "%lld", (long long)v.value);
    }
}

void format_coordinates(const uint64_t *coord, uint32_t rank, char *buf, size_t capacity)
{
    size_t used;
    uint32_t i;
    snprintf(buf, capacity, "[");
    for (i = 0; i < rank; ++i) {
        used = strlen(buf);
        snprintf(buf + used, capacity - used, "%s%llu", i ? ", " : "",
                 (unsigned long long)coord[i]);
    }
    used = strlen(buf);
    snprintf(buf + used, capacity - used, "]");
}

dmlref_status report_out_of_range(dmlref_error *err, const char *op, const layout *indices,
                                  const void *data, dmlref_tensor_data_type type, uint64_t pos,
                                  uint64_t bound, const char *bound_name, uint32_t bound_dim,
                                  const char *rule)
{
    uint64_t coord[MAX_RANK];
    char where[128], value[32];
    uint64_t offset = 0;
    uint32_t i;
    int is_signed = type == DMLREF_TENSOR_DATA_TYPE_INT32 || type == DMLREF_TENSOR_DATA_TYPE_INT64;

    coordinates_of(pos, indices->rank, indices->sizes, coord);
    for (i = 0; i < indices->rank; ++i)
        offset += coord[i] * indices->strides[i];
    format_coordinates(coord, indices->rank, where, sizeof where);
    format_index((const unsigned char *)data + offset * indices->element_size, type, value,
                 sizeof value);
    if (is_signed)
        return set_error(err, DMLREF_ERROR_INDEX_OUT_OF_RANGE, rule,
                         "%s: IndicesTensor%s = %s is out of range for %s.Sizes[%u] = %llu "
                         "(valid: -%llu to %llu)",
                         op, where, value, bound_name, bound_dim, (unsigned long long)bound,
                         (unsigned long long)bound, (unsigned long long)(bound - 1));
    return set_error(err, DMLREF_ERROR_INDEX_OUT_OF_RANGE, rule,
                     "%s: IndicesTensor%s = %s is out of range for %s.Sizes[%u] = %llu "
                     "(valid: 0 to %llu)",
                     op, where, value, bound_name, bound_dim, (unsigned long long)bound,
                     (unsigned long long)(bound - 1));
}
