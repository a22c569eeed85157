/*
 * model.c - see model.h.
 */
#include "model.h"

#include <string.h>

static uint64_t product(uint32_t n, const uint32_t *sizes)
{
    uint64_t p = 1;
    uint32_t i;
    for (i = 0; i < n; ++i)
        p *= sizes[i];
    return p;
}

static void unflatten(uint64_t pos, uint32_t rank, const uint32_t *sizes, uint64_t *coord)
{
    uint32_t d;
    for (d = rank; d-- > 0;) {
        coord[d] = pos % sizes[d];
        pos /= sizes[d];
    }
}

static uint64_t flatten(const uint64_t *coord, uint32_t rank, const uint32_t *sizes)
{
    uint64_t pos = 0;
    uint32_t d;
    for (d = 0; d < rank; ++d)
        pos = pos * sizes[d] + coord[d];
    return pos;
}

/* Index element `i` of a raw index array, with -s..-1 meaning s-s..s-1.
   Returns 0 when out of range. */
static int index_at(dmlref_tensor_data_type type, const void *indices, uint64_t i, uint64_t size,
                    uint64_t *out)
{
    const unsigned char *p = indices;
    long double v; /* wide enough for every int64 and uint64 */
    switch (type) {
    case DMLREF_TENSOR_DATA_TYPE_UINT32: { uint32_t x; memcpy(&x, p + 4 * i, 4); v = x; break; }
    case DMLREF_TENSOR_DATA_TYPE_INT32: { int32_t x; memcpy(&x, p + 4 * i, 4); v = x; break; }
    case DMLREF_TENSOR_DATA_TYPE_UINT64: { uint64_t x; memcpy(&x, p + 8 * i, 8); v = (long double)x; break; }
    default: { int64_t x; memcpy(&x, p + 8 * i, 8); v = (long double)x; break; }
    }
    if (v < 0)
        v += (long double)size;
    if (v < 0 || v >= (long double)size)
        return 0;
    *out = (uint64_t)v;
    return 1;
}

int model_gather_elements(uint32_t rank, const uint32_t *input_sizes,
                          const uint32_t *indices_sizes, uint32_t axis, uint32_t element_size,
                          const void *input, dmlref_tensor_data_type index_type,
                          const void *indices, void *output)
{
    uint64_t n = product(rank, indices_sizes), o, coord[8];
    for (o = 0; o < n; ++o) {
        uint64_t v;
        unflatten(o, rank, indices_sizes, coord);
        if (!index_at(index_type, indices, o, input_sizes[axis], &v))
            return 0;
        coord[axis] = v; /* output[..., i_axis, ...] = input[..., index, ...] */
        memcpy((unsigned char *)output + o * element_size,
               (const unsigned char *)input + flatten(coord, rank, input_sizes) * element_size,
               element_size);
    }
    return 1;
}

int model_scatter_elements(uint32_t rank, const uint32_t *input_sizes,
                           const uint32_t *indices_sizes, uint32_t axis, uint32_t element_size,
                           const void *input, dmlref_tensor_data_type index_type,
                           const void *indices, const void *updates, void *output)
{
    uint64_t n = product(rank, indices_sizes), u, coord[8];
    memcpy(output, input, (size_t)(product(rank, input_sizes) * element_size));
    for (u = 0; u < n; ++u) { /* row-major order of the updates: the last wins */
        uint64_t v;
        unflatten(u, rank, indices_sizes, coord);
        if (!index_at(index_type, indices, u, input_sizes[axis], &v))
            return 0;
        coord[axis] = v;
        memcpy((unsigned char *)output + flatten(coord, rank, input_sizes) * element_size,
               (const unsigned char *)updates + u * element_size, element_size);
    }
    return 1;
}

int model_gather_nd(uint32_t rank, const uint32_t *input_sizes, const uint32_t *indices_sizes,
                    uint32_t input_dims, uint32_t indices_dims, uint32_t batch_dims,
                    uint32_t element_size, const void *input, dmlref_tensor_data_type index_type,
                    const void *indices, uint32_t *output_sizes, void *output)
{
    /* Work in the meaningful dimensions only (the leading ones are all 1):
       input I[m], indices X[q] whose last dimension holds k-tuples. */
    const uint32_t *I = input_sizes + (rank - input_dims);
    const uint32_t *X = indices_sizes + (rank - indices_dims);
    uint32_t m = input_dims, q = indices_dims, b = batch_dims, k = X[q - 1];
    uint32_t r = m - b - k, pad = rank - (q - 1 + r), i;
    uint32_t out_meaningful[8];
    uint64_t total, o;

    for (i = 0; i < rank; ++i)
        output_sizes[i] = 1;
    for (i = 0; i + 1 < q; ++i)
        output_sizes[pad + i] = X[i];
    for (i = 0; i < r; ++i)
        output_sizes[pad + q - 1 + i] = I[m - r + i];
    memcpy(out_meaningful, output_sizes + pad, (q - 1 + r) * sizeof *out_meaningful);
    total = product(q - 1 + r, out_meaningful);

    for (o = 0; o < total; ++o) {
        uint64_t oc[8], ic[8], xc[8];
        uint32_t j;
        unflatten(o, q - 1 + r, out_meaningful, oc);
        /* oc = [batch (b), grid (q-1-b), slice (r)] */
        for (j = 0; j + 1 < q; ++j)
            xc[j] = oc[j];
        for (j = 0; j < b; ++j)
            ic[j] = oc[j];
        for (j = 0; j < k; ++j) {
            uint64_t v;
            xc[q - 1] = j;
            if (!index_at(index_type, indices, flatten(xc, q, X), I[b + j], &v))
                return 0;
            ic[b + j] = v;
        }
        for (j = 0; j < r; ++j)
            ic[b + k + j] = oc[q - 1 + j];
        memcpy((unsigned char *)output + o * element_size,
               (const unsigned char *)input + flatten(ic, m, I) * element_size, element_size);
    }
    return 1;
}

static int element_is_zero(dmlref_tensor_data_type type, const unsigned char *p)
{
    switch (type) {
    case DMLREF_TENSOR_DATA_TYPE_FLOAT32: { float x; memcpy(&x, p, 4); return x == 0.0f; }
    case DMLREF_TENSOR_DATA_TYPE_FLOAT16: { uint16_t x; memcpy(&x, p, 2); return x == 0 || x == 0x8000u; }
    case DMLREF_TENSOR_DATA_TYPE_UINT32: { uint32_t x; memcpy(&x, p, 4); return x == 0; }
    case DMLREF_TENSOR_DATA_TYPE_INT32: { int32_t x; memcpy(&x, p, 4); return x == 0; }
    case DMLREF_TENSOR_DATA_TYPE_UINT16: { uint16_t x; memcpy(&x, p, 2); return x == 0; }
    case DMLREF_TENSOR_DATA_TYPE_INT16: { int16_t x; memcpy(&x, p, 2); return x == 0; }
    default: return *p == 0;
    }
}

uint32_t model_nonzero(uint32_t rank, const uint32_t *input_sizes, dmlref_tensor_data_type type,
                       const void *input, uint32_t n_columns, uint32_t *coordinates)
{
    uint64_t n = product(rank, input_sizes), e, coord[8];
    uint32_t es = dmlref_data_type_size(type), count = 0, j;
    for (e = 0; e < n; ++e) {
        if (element_is_zero(type, (const unsigned char *)input + e * es))
            continue;
        unflatten(e, rank, input_sizes, coord);
        for (j = 0; j < n_columns; ++j)
            coordinates[(uint64_t)count * n_columns + j] = (uint32_t)coord[rank - n_columns + j];
        ++count;
    }
    return count;
}
