/*
 * tensor.c - the buffer tensor model (R-TD-*): DMLCalcBufferTensorSize,
 * resolved layouts.
 */
#include "base/base.h"

/* Overflow-checked 64-bit arithmetic: each returns 0 on overflow. */
static int mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a != 0 && b > UINT64_MAX / a)
        return 0;
    *out = a * b;
    return 1;
}

static int add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    if (b > UINT64_MAX - a)
        return 0;
    *out = a + b;
    return 1;
}

/* R-TD-10, with every step widened to 64 bits and checked. */
uint64_t dmlref_calc_buffer_tensor_size(dmlref_tensor_data_type type, uint32_t dimension_count,
                                        const uint32_t *sizes, const uint32_t *strides)
{
    uint64_t element_size = dmlref_data_type_size(type);
    uint64_t elements = 1; /* elements spanned: prod(Sizes), or last index + 1 */
    uint64_t bytes;
    uint32_t i;

    if (element_size == 0 || dimension_count == 0 ||
        dimension_count > DMLREF_TENSOR_DIMENSION_COUNT_MAX || !sizes)
        return 0;
    for (i = 0; i < dimension_count; ++i)
        if (sizes[i] == 0)
            return 0;

    if (strides) {
        uint64_t index_of_last_element = 0;
        for (i = 0; i < dimension_count; ++i) {
            uint64_t term;
            if (!mul_u64((uint64_t)sizes[i] - 1, strides[i], &term) ||
                !add_u64(index_of_last_element, term, &index_of_last_element))
                return 0;
        }
        if (!add_u64(index_of_last_element, 1, &elements))
            return 0;
    } else {
        for (i = 0; i < dimension_count; ++i)
            if (!mul_u64(elements, sizes[i], &elements))
                return 0;
    }
    /* "all bound buffers must have a total size that is DWORD-aligned" */
    if (!mul_u64(elements, element_size, &bytes) || !add_u64(bytes, 3, &bytes))
        return 0;
    return bytes & ~(uint64_t)3;
}

void layout_from_desc(const dmlref_tensor_desc *desc, layout *out)
{
    uint32_t i;
    out->rank = desc->DimensionCount;
    out->element_size = dmlref_data_type_size(desc->DataType);
    for (i = 0; i < out->rank; ++i)
        out->sizes[i] = desc->Sizes[i];
    if (desc->Strides) {
        for (i = 0; i < out->rank; ++i)
            out->strides[i] = desc->Strides[i];
    } else { /* packed row-major, R-TD-5 */
        uint64_t stride = 1;
        for (i = out->rank; i-- > 0;) {
            out->strides[i] = stride;
            stride *= out->sizes[i];
        }
    }
}

uint64_t layout_element_count(const layout *l)
{
    uint64_t count = 1;
    uint32_t i;
    for (i = 0; i < l->rank; ++i) {
        if (l->sizes[i] == 0)
            return 0;
        if (count > UINT64_MAX / l->sizes[i])
            count = UINT64_MAX; /* saturates; keeps looking for a 0 size */
        else
            count *= l->sizes[i];
    }
    return count;
}

void coordinates_of(uint64_t pos, uint32_t rank, const uint64_t *sizes, uint64_t *coord)
{
    uint32_t d = rank;
    while (d-- > 0) {
        if (sizes[d] == 0) { /* a shape with no elements: every coordinate 0 */
            coord[d] = 0;
            continue;
        }
        coord[d] = pos % sizes[d];
        pos /= sizes[d];
    }
}
