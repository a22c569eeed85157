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

/*
 * The meaning of an index value: the one definition of R-IX-2..4.  The
 * reference kernels (reference/) read every index through it; the fast
 * ones' specialised loops (src/kernels/runs.c) must agree with it, which
 * the tests check.  v is the value read_index widened (unsigned types are
 * never negative; a UINT64 above INT64_MAX is `huge`, R-IX-3), s the size
 * of the dimension it indexes:
 *
 *   v in [0, s-1]       -> v                 in range
 *   v in [-s, -1]       -> v + s             in range: -1 is the last (R-IX-2)
 *   v < -s              -> out of range      clamped: 0
 *   v > s-1, or huge    -> out of range      clamped: s-1
 *
 * So the valid values are [-s, s-1] for a signed type and [0, s-1] for an
 * unsigned one (R-IX-4).  Returns 1 and sets *out when v is in range;
 * otherwise returns 0 and, under `clamp` (DMLREF_OOB_CLAMP, D1, D2), sets
 * *out to the nearest valid index, else leaves it alone.
 */
int normalize_index(index_value v, uint64_t size, int clamp, uint64_t *out)
{
    const int64_t s = (int64_t)size; /* size <= 2^32 - 1: exact in int64 */
    if (v.huge || v.value > s - 1) {
        if (clamp)
            *out = size - 1;
        return 0;
    }
    if (v.value < -s) {
        if (clamp)
            *out = 0;
        return 0;
    }
    *out = (uint64_t)(v.value < 0 ? v.value + s : v.value);
    return 1;
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

dmlref_status check_batches_inside(dmlref_error *err, const char *op, const layout *input,
                                   const layout *indices, uint32_t m, uint32_t q, uint32_t b)
{
    uint32_t D = input->rank, j;
    for (j = 0; j < b; ++j)
        if (indices->sizes[D - q + j] > input->sizes[D - m + j])
            return set_error(err, DMLREF_ERROR_INDEX_OUT_OF_RANGE, "R-GN-6",
                             "%s: IndicesTensor.Sizes[%u] = %llu batches read past "
                             "InputTensor.Sizes[%u] = %llu (batch dimension %u): what DirectML "
                             "reads there is undefined",
                             op, D - q + j, (unsigned long long)indices->sizes[D - q + j],
                             D - m + j, (unsigned long long)input->sizes[D - m + j], j);
    return DMLREF_OK;
}
