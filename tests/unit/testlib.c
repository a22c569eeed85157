/*
 * testlib.c - see testlib.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testlib.h"

const dmlref_tensor_data_type k_all_data_types[11] = {
    DMLREF_TENSOR_DATA_TYPE_FLOAT32, DMLREF_TENSOR_DATA_TYPE_FLOAT16,
    DMLREF_TENSOR_DATA_TYPE_UINT32,  DMLREF_TENSOR_DATA_TYPE_UINT16,
    DMLREF_TENSOR_DATA_TYPE_UINT8,   DMLREF_TENSOR_DATA_TYPE_INT32,
    DMLREF_TENSOR_DATA_TYPE_INT16,   DMLREF_TENSOR_DATA_TYPE_INT8,
    DMLREF_TENSOR_DATA_TYPE_FLOAT64, DMLREF_TENSOR_DATA_TYPE_UINT64,
    DMLREF_TENSOR_DATA_TYPE_INT64};

const dmlref_tensor_data_type k_all_index_types[4] = {
    DMLREF_TENSOR_DATA_TYPE_UINT32, DMLREF_TENSOR_DATA_TYPE_INT32, DMLREF_TENSOR_DATA_TYPE_UINT64,
    DMLREF_TENSOR_DATA_TYPE_INT64};

void tt_init(test_tensor *t, dmlref_tensor_data_type type, uint32_t rank, const uint32_t *sizes,
             const uint32_t *strides, uint64_t extra_bytes)
{
    uint64_t total;
    memset(t, 0, sizeof *t);
    memcpy(t->sizes, sizes, rank * sizeof *sizes);
    if (strides)
        memcpy(t->strides, strides, rank * sizeof *strides);
    t->desc.DataType = type;
    t->desc.DimensionCount = rank;
    t->desc.Sizes = t->sizes;
    t->desc.Strides = strides ? t->strides : NULL;
    total = dmlref_calc_buffer_tensor_size(type, rank, sizes, strides) + extra_bytes;
    t->desc.TotalTensorSizeInBytes = total;
    t->allocation = malloc((size_t)total + 2 * GUARD_BYTES);
    if (!t->allocation) {
        fprintf(stderr, "tt_init: out of memory for %llu bytes\n", (unsigned long long)total);
        abort();
    }
    t->data = t->allocation + GUARD_BYTES;
    memset(t->allocation, GUARD_FILL, GUARD_BYTES);
    memset(t->data, PADDING_FILL, (size_t)total);
    memset(t->data + total, GUARD_FILL, GUARD_BYTES);
}

void tt_free(test_tensor *t)
{
    free(t->allocation);
    t->allocation = t->data = NULL;
}

uint64_t tt_count(const test_tensor *t)
{
    uint64_t n = 1;
    uint32_t i;
    for (i = 0; i < t->desc.DimensionCount; ++i)
        n *= t->sizes[i];
    return n;
}

uint32_t tt_element_size(const test_tensor *t)
{
    return dmlref_data_type_size(t->desc.DataType);
}

uint64_t tt_offset(const test_tensor *t, uint64_t pos)
{
    /* straight from R-TD-4/5: coordinates by div/mod, dot with the strides */
    uint64_t offset = 0, packed = 1;
    uint32_t d = t->desc.DimensionCount;
    while (d-- > 0) {
        uint64_t c = pos % t->sizes[d];
        pos /= t->sizes[d];
        offset += c * (t->desc.Strides ? t->strides[d] : packed);
        packed *= t->sizes[d];
    }
    return offset;
}

void tt_set_raw(test_tensor *t, const void *elements)
{
    const unsigned char *src = elements;
    uint64_t n = tt_count(t), i;
    uint32_t es = tt_element_size(t);
    memset(t->data, PADDING_FILL, (size_t)t->desc.TotalTensorSizeInBytes);
    for (i = 0; i < n; ++i)
        memcpy(t->data + tt_offset(t, i) * es, src + i * es, es);
}

void tt_get_raw(const test_tensor *t, void *elements)
{
    unsigned char *dst = elements;
    uint64_t n = tt_count(t), i;
    uint32_t es = tt_element_size(t);
    for (i = 0; i < n; ++i)
        memcpy(dst + i * es, t->data + tt_offset(t, i) * es, es);
}

int tt_guards_intact(const test_tensor *t)
{
    size_t total = (size_t)t->desc.TotalTensorSizeInBytes, i;
    for (i = 0; i < GUARD_BYTES; ++i)
        if (t->allocation[i] != GUARD_FILL || t->data[total + i] != GUARD_FILL)
            return 0;
    return 1;
}

int tt_padding_intact(const test_tensor *t)
{
    size_t total = (size_t)t->desc.TotalTensorSizeInBytes, i;
    uint64_t n = tt_count(t), e;
    uint32_t es = tt_element_size(t);
    unsigned char *is_element = calloc(total ? total : 1, 1);
    int ok = 1;
    if (!is_element)
        abort();
    for (e = 0; e < n; ++e)
        memset(is_element + tt_offset(t, e) * es, 1, es);
    for (i = 0; i < total; ++i)
        if (!is_element[i] && t->data[i] != PADDING_FILL)
            ok = 0;
    free(is_element);
    return ok;
}

/* float32 bits -> float16 bits, round to nearest even; enough for the
 * exact values tests use and for overflow to infinity. */
static uint16_t half_from_float(float f)
{
    uint32_t x, sign, mantissa;
    int32_t exponent;
    memcpy(&x, &f, 4);
    sign = (x >> 16) & 0x8000u;
    exponent = (int32_t)((x >> 23) & 0xFF) - 127 + 15;
    mantissa = x & 0x7FFFFFu;
    if (((x >> 23) & 0xFF) == 0xFF) /* inf or nan */
        return (uint16_t)(sign | 0x7C00u | (mantissa ? 0x200u : 0));
    if (exponent >= 31)
        return (uint16_t)(sign | 0x7C00u);
    if (exponent <= 0) { /* subnormal or zero */
        uint32_t shift;
        if (exponent < -10)
            return (uint16_t)sign;
        mantissa |= 0x800000u;
        shift = (uint32_t)(14 - exponent);
        {
            uint32_t half = mantissa >> shift;
            uint32_t rest = mantissa & ((1u << shift) - 1), mid = 1u << (shift - 1);
            if (rest > mid || (rest == mid && (half & 1)))
                ++half;
            return (uint16_t)(sign | half);
        }
    }
    {
        uint32_t half = sign | ((uint32_t)exponent << 10) | (mantissa >> 13);
        uint32_t rest = mantissa & 0x1FFFu;
        if (rest > 0x1000u || (rest == 0x1000u && (half & 1)))
            ++half;
        return (uint16_t)half;
    }
}

void encode_value(dmlref_tensor_data_type type, double value, void *dst)
{
    switch (type) {
    case DMLREF_TENSOR_DATA_TYPE_FLOAT32: {
        float v = (float)value;
        memcpy(dst, &v, 4);
        break;
    }
    case DMLREF_TENSOR_DATA_TYPE_FLOAT16: {
        uint16_t v = half_from_float((float)value);
        memcpy(dst, &v, 2);
        break;
    }
    case DMLREF_TENSOR_DATA_TYPE_FLOAT64:
        memcpy(dst, &value, 8);
        break;
    case DMLREF_TENSOR_DATA_TYPE_UINT32: {
        uint32_t v = (uint32_t)(int64_t)value;
        memcpy(dst, &v, 4);
        break;
    }
    case DMLREF_TENSOR_DATA_TYPE_UINT16: {
        uint16_t v = (uint16_t)(int64_t)value;
        memcpy(dst, &v, 2);
        break;
    }
    case DMLREF_TENSOR_DATA_TYPE_UINT8: {
        uint8_t v = (uint8_t)(int64_t)value;
        memcpy(dst, &v, 1);
        break;
    }
    case DMLREF_TENSOR_DATA_TYPE_INT32: {
        int32_t v = (int32_t)value;
        memcpy(dst, &v, 4);
        break;
    }
    case DMLREF_TENSOR_DATA_TYPE_INT16: {
        int16_t v = (int16_t)value;
        memcpy(dst, &v, 2);
        break;
    }
    case DMLREF_TENSOR_DATA_TYPE_INT8: {
        int8_t v = (int8_t)value;
        memcpy(dst, &v, 1);
        break;
    }
    case DMLREF_TENSOR_DATA_TYPE_UINT64: {
        uint64_t v = (uint64_t)(int64_t)value;
        memcpy(dst, &v, 8);
        break;
    }
    case DMLREF_TENSOR_DATA_TYPE_INT64: {
        int64_t v = (int64_t)value;
        memcpy(dst, &v, 8);
        break;
    }
    default:
        abort();
    }
}

void encode_index(dmlref_tensor_data_type type, int64_t value, void *dst)
{
    switch (type) {
    case DMLREF_TENSOR_DATA_TYPE_UINT32: {
        uint32_t v = (uint32_t)value;
        memcpy(dst, &v, 4);
        break;
    }
    case DMLREF_TENSOR_DATA_TYPE_INT32: {
        int32_t v = (int32_t)value;
        memcpy(dst, &v, 4);
        break;
    }
    case DMLREF_TENSOR_DATA_TYPE_UINT64: {
        uint64_t v = (uint64_t)value;
        memcpy(dst, &v, 8);
        break;
    }
    case DMLREF_TENSOR_DATA_TYPE_INT64:
        memcpy(dst, &value, 8);
        break;
    default:
        abort();
    }
}

void tt_set_values(test_tensor *t, const double *values)
{
    uint64_t n = tt_count(t), i;
    uint32_t es = tt_element_size(t);
    unsigned char *raw = malloc((size_t)(n * es));
    if (!raw)
        abort();
    for (i = 0; i < n; ++i)
        encode_value(t->desc.DataType, values[i], raw + i * es);
    tt_set_raw(t, raw);
    free(raw);
}

void tt_set_indices(test_tensor *t, const int64_t *values)
{
    uint64_t n = tt_count(t), i;
    uint32_t es = tt_element_size(t);
    unsigned char *raw = malloc((size_t)(n * es));
    if (!raw)
        abort();
    for (i = 0; i < n; ++i)
        encode_index(t->desc.DataType, values[i], raw + i * es);
    tt_set_raw(t, raw);
    free(raw);
}

dmlref_binding tt_binding(const test_tensor *t)
{
    dmlref_binding b;
    b.data = t->data;
    b.size_in_bytes = t->desc.TotalTensorSizeInBytes;
    return b;
}

void rng_seed(rng *r, uint64_t seed)
{
    r->state = seed ? seed : 0x9E3779B97F4A7C15ull;
}

uint64_t rng_next(rng *r)
{
    uint64_t x = r->state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

uint64_t rng_below(rng *r, uint64_t bound)
{
    return bound ? rng_next(r) % bound : 0;
}

static dmlref_status execute_with(dmlref_operator_type type, const void *desc,
                                  dmlref_feature_level level, const dmlref_execute_options *options,
                                  test_tensor *const *inputs, size_t input_count,
                                  test_tensor *const *outputs, size_t output_count,
                                  dmlref_error *err)
{
    dmlref_operator_desc op;
    dmlref_binding in[4], out[4];
    size_t i;
    op.Type = type;
    op.Desc = desc;
    for (i = 0; i < input_count; ++i)
        in[i] = tt_binding(inputs[i]);
    for (i = 0; i < output_count; ++i)
        out[i] = tt_binding(outputs[i]);
    return dmlref_execute_with_options(&op, level, options, in, input_count, out, output_count,
                                       err);
}

dmlref_status tt_execute(dmlref_operator_type type, const void *desc, dmlref_feature_level level,
                         dmlref_oob_policy policy, test_tensor *const *inputs, size_t input_count,
                         test_tensor *const *outputs, size_t output_count, dmlref_error *err)
{
    dmlref_execute_options options = {DMLREF_OOB_ERROR, 0, DMLREF_KERNELS_REFERENCE};
    options.oob_policy = policy;
    return execute_with(type, desc, level, &options, inputs, input_count, outputs, output_count,
                        err);
}

dmlref_status tt_execute_threads(dmlref_operator_type type, const void *desc, uint32_t threads,
                                 test_tensor *const *inputs, size_t input_count,
                                 test_tensor *const *outputs, size_t output_count,
                                 dmlref_error *err)
{
    dmlref_execute_options options = {DMLREF_OOB_ERROR, 0, DMLREF_KERNELS_REFERENCE};
    options.num_threads = threads;
    return execute_with(type, desc, DMLREF_FEATURE_LEVEL_LATEST, &options, inputs, input_count,
                        outputs, output_count, err);
}

int is_signed_index_type(dmlref_tensor_data_type type)
{
    return type == DMLREF_TENSOR_DATA_TYPE_INT32 || type == DMLREF_TENSOR_DATA_TYPE_INT64;
}

int any_negative(const int64_t *values, uint64_t n)
{
    uint64_t i;
    for (i = 0; i < n; ++i)
        if (values[i] < 0)
            return 1;
    return 0;
}

int tt_equals_values(const test_tensor *t, const double *values)
{
    uint64_t n = tt_count(t), i;
    uint32_t es = tt_element_size(t);
    unsigned char *got = malloc((size_t)(n * es) + 1), want[8];
    int ok = 1;
    if (!got)
        abort();
    tt_get_raw(t, got);
    for (i = 0; i < n && ok; ++i) {
        encode_value(t->desc.DataType, values[i], want);
        if (memcmp(got + i * es, want, es) != 0) {
            fprintf(stderr, "%s element %llu: expected %g\n",
                    dmlref_data_type_name(t->desc.DataType), (unsigned long long)i, values[i]);
            ok = 0;
        }
    }
    free(got);
    return ok;
}

int tt_untouched(const test_tensor *t)
{
    size_t total = (size_t)t->desc.TotalTensorSizeInBytes, i;
    for (i = 0; i < total; ++i)
        if (t->data[i] != PADDING_FILL)
            return 0;
    return tt_guards_intact(t);
}

const uint32_t *variant_strides(const uint32_t *given, int padded, uint32_t rank,
                                const uint32_t *sizes, uint32_t pad, uint32_t *storage)
{
    if (given)
        return given;
    return padded ? padded_strides(rank, sizes, pad, storage) : NULL;
}

const uint32_t *padded_strides(uint32_t rank, const uint32_t *sizes, uint32_t pad,
                               uint32_t *strides)
{
    uint32_t step = 1, d = rank;
    while (d-- > 0) {
        strides[d] = step;
        step *= sizes[d] + pad;
    }
    return strides;
}

int run_table_tests(const char *group, const void *rows, size_t row_size, size_t row_count,
                    void (*run_row)(void **state), const struct CMUnitTest *fixed,
                    size_t fixed_count)
{
    struct CMUnitTest *tests = calloc(row_count + fixed_count + 1, sizeof *tests);
    size_t i;
    int failed;
    if (!tests)
        abort();
    for (i = 0; i < row_count; ++i) {
        const char *row = (const char *)rows + i * row_size;
        memcpy(&tests[i].name, row, sizeof tests[i].name);
        tests[i].test_func = run_row;
        tests[i].initial_state = (void *)row;
    }
    for (i = 0; i < fixed_count; ++i)
        tests[row_count + i] = fixed[i];
    failed = _cmocka_run_group_tests(group, tests, row_count + fixed_count, NULL, NULL);
    free(tests);
    return failed;
}

void store_host_bits(void *dst, uint32_t size, uint64_t bits)
{
    uint8_t b8 = (uint8_t)bits;
    uint16_t b16 = (uint16_t)bits;
    uint32_t b32 = (uint32_t)bits;
    switch (size) {
    case 1:
        memcpy(dst, &b8, 1);
        break;
    case 2:
        memcpy(dst, &b16, 2);
        break;
    case 4:
        memcpy(dst, &b32, 4);
        break;
    default:
        memcpy(dst, &bits, 8);
        break;
    }
}

uint64_t load_host_bits(const void *src, uint32_t size)
{
    uint8_t b8;
    uint16_t b16;
    uint32_t b32;
    uint64_t b64;
    switch (size) {
    case 1:
        memcpy(&b8, src, 1);
        return b8;
    case 2:
        memcpy(&b16, src, 2);
        return b16;
    case 4:
        memcpy(&b32, src, 4);
        return b32;
    default:
        memcpy(&b64, src, 8);
        return b64;
    }
}
