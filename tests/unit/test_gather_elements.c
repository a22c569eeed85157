/*
 * test_gather_elements.c - GATHER_ELEMENTS semantics (R-GE-6..8, R-IX-2..6,
 * D1, D12), table-driven.  Every row runs for all 11 data types and every
 * index type it can (rows with negative indices need a signed type), packed
 * and with every tensor padded; rows may also give their own strides.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testlib.h"

typedef struct ge_case {
    const char *name;
    uint32_t rank;
    uint32_t input_sizes[8];
    uint32_t indices_sizes[8];
    uint32_t axis;
    const double *input; /* logical row-major */
    const int64_t *indices;
    const double *expected;
    const uint32_t *input_strides; /* NULL: packed (and a padded variant) */
    const uint32_t *output_strides;
} ge_case;

/* seeds' example, corrected (D20, S-1: the output is FLOAT32 like the input) */
static const double k_doc_in[] = {1, 2, 3, /**/ 4, 5, 6, /**/ 7, 8, 9};
static const int64_t k_doc_idx[] = {1, 2, 0, /**/ 2, 0, 0};
static const double k_doc_out[] = {4, 8, 3, /**/ 7, 2, 3};

/* derived example: Axis 1, negative indices */
static const double k_neg_in[] = {1, 2, 3, /**/ 4, 5, 6};
static const int64_t k_neg_idx[] = {-1, /**/ 0};
static const double k_neg_out[] = {3, /**/ 4};

/* WebNN's example (same semantics), Axis 0 */
static const double k_webnn_in[] = {0, 1, 2, /**/ 10, 11, 12, /**/ 20, 21, 22, /**/ 30, 31, 32};
static const int64_t k_webnn_idx[] = {3, 1, 1, /**/ 2, 0, 3};
static const double k_webnn_out[] = {30, 11, 12, /**/ 20, 1, 32};

/* rank 1: the boundaries 0 and s-1, repeated indices */
static const double k_r1_in[] = {10, 11, 12, 13, 14};
static const int64_t k_r1_idx[] = {4, 0, 2, 4, 0, 1, 3};
static const double k_r1_out[] = {14, 10, 12, 14, 10, 11, 13};

/* rank 1, negative boundaries -s and -1 */
static const int64_t k_r1_neg_idx[] = {-5, -1, -3, 0, 4};
static const double k_r1_neg_out[] = {10, 14, 12, 10, 14};

/* clang-format off */
/* a 2x3x2 tensor, gathered along each axis */
static const double k_3d_in[] = {1, 2, 3, 4, 5, 6, /**/ 7, 8, 9, 10, 11, 12};
static const int64_t k_3d_axis0_idx[] = {1, 0, 1, 1, 0, 0};       /* {1,3,2} */
static const double k_3d_axis0_out[] = {7, 2, 9, 10, 5, 6};
static const int64_t k_3d_axis1_idx[] = {2, 0, /**/ 1, 1};        /* {2,1,2} */
static const double k_3d_axis1_out[] = {5, 2, /**/ 9, 10};
static const int64_t k_3d_axis2_idx[] = {1, 0, 0, 1, 1, 1, /**/ 0, 0, 0, 1, 0, 1, /**/
                                         1, 1, 0, 0, 1, 0, /**/ 0, 1, 1, 0, 0, 1};
/* {2,3,4}: indices larger than the input along the axis (R-GE-3) */
static const double k_3d_axis2_out[] = {2, 1, 1, 2, 4, 4, /**/ 3, 3, 5, 6, 5, 6,
                                        8, 8, 7, 7, 10, 9, /**/ 9, 10, 12, 11, 11, 12};

/* rank 8 along the first, a middle and the last axis */
static const double k_8d_in[] = {1, 2, 3, /**/ 4, 5, 6};                 /* {2,1,1,1,1,1,1,3} */
static const int64_t k_8d_axis0_idx[] = {1, 0, 1};                       /* {1,1,1,1,1,1,1,3} */
static const double k_8d_axis0_out[] = {4, 2, 6};
static const int64_t k_8d_axis7_idx[] = {2, 2, 0, 1, /**/ 0, 0, 1, 2};   /* {2,...,4} */
static const double k_8d_axis7_out[] = {3, 3, 1, 2, /**/ 4, 4, 5, 6};
static const int64_t k_8d_axis4_idx[] = {0, 0, 0, /**/ 0, 0, 0, /**/ 0, 0, 0, /**/ 0, 0, 0};
static const double k_8d_axis4_out[] = {1, 2, 3, 1, 2, 3, /**/ 4, 5, 6, 4, 5, 6};

/* layouts: input stored transposed (column-major) */
static const uint32_t k_transposed_3x3[] = {1, 3};
/* input broadcast along dimension 0 (every row reads the same storage) */
static const double k_bcast_in[] = {7, 8, 9, /**/ 7, 8, 9};
static const uint32_t k_bcast_strides[] = {0, 1};
static const int64_t k_bcast_idx[] = {2, 0, 1, /**/ 0, 2, 2};
static const double k_bcast_out[] = {9, 7, 8, /**/ 7, 9, 9}; /* axis 1 */
/* output with a stride of 2 along the last dimension and rows of 8 */
static const uint32_t k_strided_out_2x3[] = {8, 2};

static const ge_case k_cases[] = {
    {"doc_example_axis0_corrected_S1",
     2, {3, 3},                   {2, 3},                   0,
     k_doc_in,   k_doc_idx,      k_doc_out,      NULL,             NULL},
    {"negative_index_axis1",
     2, {2, 3},                   {2, 1},                   1,
     k_neg_in,   k_neg_idx,      k_neg_out,      NULL,             NULL},
    {"webnn_example_axis0",
     2, {4, 3},                   {2, 3},                   0,
     k_webnn_in, k_webnn_idx,    k_webnn_out,    NULL,             NULL},
    {"rank1_boundaries_and_repeats",
     1, {5},                      {7},                      0,
     k_r1_in,    k_r1_idx,       k_r1_out,       NULL,             NULL},
    {"rank1_negative_boundaries",
     1, {5},                      {5},                      0,
     k_r1_in,    k_r1_neg_idx,   k_r1_neg_out,   NULL,             NULL},
    {"rank3_axis0_fewer_indices",
     3, {2, 3, 2},                {1, 3, 2},                0,
     k_3d_in,    k_3d_axis0_idx, k_3d_axis0_out, NULL,             NULL},
    {"rank3_axis1",
     3, {2, 3, 2},                {2, 1, 2},                1,
     k_3d_in,    k_3d_axis1_idx, k_3d_axis1_out, NULL,             NULL},
    {"rank3_axis2_more_indices_than_input",
     3, {2, 3, 2},                {2, 3, 4},                2,
     k_3d_in,    k_3d_axis2_idx, k_3d_axis2_out, NULL,             NULL},
    {"rank8_axis0",
     8, {2, 1, 1, 1, 1, 1, 1, 3}, {1, 1, 1, 1, 1, 1, 1, 3}, 0,
     k_8d_in,    k_8d_axis0_idx, k_8d_axis0_out, NULL,             NULL},
    {"rank8_axis4",
     8, {2, 1, 1, 1, 1, 1, 1, 3}, {2, 1, 1, 1, 2, 1, 1, 3}, 4,
     k_8d_in,    k_8d_axis4_idx, k_8d_axis4_out, NULL,             NULL},
    {"rank8_axis7",
     8, {2, 1, 1, 1, 1, 1, 1, 3}, {2, 1, 1, 1, 1, 1, 1, 4}, 7,
     k_8d_in,    k_8d_axis7_idx, k_8d_axis7_out, NULL,             NULL},
    {"transposed_input_layout",
     2, {3, 3},                   {2, 3},                   0,
     k_doc_in,   k_doc_idx,      k_doc_out,      k_transposed_3x3, NULL},
    {"broadcast_input_stride0",
     2, {2, 3},                   {2, 3},                   1,
     k_bcast_in, k_bcast_idx,    k_bcast_out,    k_bcast_strides,  NULL},
    {"strided_output",
     2, {3, 3},                   {2, 3},                   0,
     k_doc_in,   k_doc_idx,      k_doc_out,      NULL,             k_strided_out_2x3},
};
/* clang-format on */

/* Runs one row for one data type, index type and layout variant. */
static void run_variant(const ge_case *c, dmlref_tensor_data_type type,
                        dmlref_tensor_data_type itype, int padded)
{
    test_tensor in, idx, out;
    test_tensor *inputs[2] = {&in, &idx}, *outputs[1] = {&out};
    uint32_t s_in[8], s_idx[8], s_out[8];
    dmlref_gather_elements_desc d;
    dmlref_error err;
    dmlref_status status;

    tt_init(&in, type, c->rank, c->input_sizes,
            variant_strides(c->input_strides, padded, c->rank, c->input_sizes, 1, s_in), 0);
    tt_init(&idx, itype, c->rank, c->indices_sizes,
            variant_strides(NULL, padded, c->rank, c->indices_sizes, 2, s_idx), 0);
    tt_init(&out, type, c->rank, c->indices_sizes,
            variant_strides(c->output_strides, padded, c->rank, c->indices_sizes, 1, s_out),
            padded ? 8 : 0);
    tt_set_values(&in, c->input);
    tt_set_indices(&idx, c->indices);
    d.InputTensor = &in.desc, d.IndicesTensor = &idx.desc, d.OutputTensor = &out.desc;
    d.Axis = c->axis;

    status = tt_execute(DMLREF_OPERATOR_GATHER_ELEMENTS, &d, DMLREF_FEATURE_LEVEL_LATEST,
                        DMLREF_OOB_ERROR, inputs, 2, outputs, 1, &err);
    if (status != DMLREF_OK)
        fail_msg("%s %s/%s: %s", c->name, dmlref_data_type_name(type), dmlref_data_type_name(itype),
                 err.message);
    if (!tt_equals_values(&out, c->expected))
        fail_msg("%s %s/%s padded=%d: wrong output", c->name, dmlref_data_type_name(type),
                 dmlref_data_type_name(itype), padded);
    assert_true(tt_guards_intact(&out));
    assert_true(tt_padding_intact(&out));
    assert_true(tt_padding_intact(&in));
    tt_free(&in), tt_free(&idx), tt_free(&out);
}

/* Ensure the row's output for all 11 data types x every usable index type,
   packed and padded (R-GE-6, R-IX-2, R-TD-4..6). */
static void run_row(void **state)
{
    const ge_case *c = *state;
    uint64_t n = 1;
    uint32_t i, t, x;
    for (i = 0; i < c->rank; ++i)
        n *= c->indices_sizes[i];
    for (t = 0; t < 11; ++t) {
        for (x = 0; x < 4; ++x) {
            dmlref_tensor_data_type itype = k_all_index_types[x];
            if (any_negative(c->indices, n) && !is_signed_index_type(itype))
                continue;
            run_variant(c, k_all_data_types[t], itype, 0);
            run_variant(c, k_all_data_types[t], itype, 1);
        }
    }
}

/* ---- bit exactness (R-GE-7, D12) ---------------------------------------- */

/* Ensure every bit pattern of each element size survives a gather: -0.0,
   NaN payloads (quiet and signalling), subnormals, infinities and the
   64-bit integer extremes, reversed by indices {n-1, ..., 0}. */
static void test_gather_elements_moves_bits_exactly(void **state)
{
    static const uint64_t patterns[] = {
        0x8000000000000000ull, 0x7FF0000000000001ull, 0xFFF8000000000ABCull, 0x0000000000000001ull,
        0x7FF0000000000000ull, 0x7FFFFFFFFFFFFFFFull, 0xFFFFFFFFFFFFFFFFull, 0x000FFFFFFFFFFFFFull,
        /* float32 in the low half, float16 in the low quarter */
        0x0000000080000000ull, 0x000000007FA00001ull, 0x00000000FFC00001ull, 0x0000000000000001ull,
        0x0000000000008000ull, 0x0000000000007D01ull, 0x000000000000FE01ull, 0x0000000000000001ull};
    enum { N = sizeof patterns / sizeof patterns[0] };
    uint32_t t;
    (void)state;
    for (t = 0; t < 11; ++t) {
        dmlref_tensor_data_type type = k_all_data_types[t];
        uint32_t es = dmlref_data_type_size(type), n = N, i;
        unsigned char raw[N * 8], got[N * 8];
        int64_t reverse[N];
        test_tensor in, idx, out;
        test_tensor *inputs[2] = {&in, &idx}, *outputs[1] = {&out};
        dmlref_gather_elements_desc d;
        dmlref_error err;
        for (i = 0; i < n; ++i) {
            store_host_bits(raw + i * es, es, patterns[i]); /* the pattern's low bits */
            reverse[i] = n - 1 - i;
        }
        tt_init(&in, type, 1, &n, NULL, 0);
        tt_init(&idx, DMLREF_TENSOR_DATA_TYPE_INT64, 1, &n, NULL, 0);
        tt_init(&out, type, 1, &n, NULL, 0);
        tt_set_raw(&in, raw);
        tt_set_indices(&idx, reverse);
        d.InputTensor = &in.desc, d.IndicesTensor = &idx.desc, d.OutputTensor = &out.desc;
        d.Axis = 0;
        assert_int_equal(tt_execute(DMLREF_OPERATOR_GATHER_ELEMENTS, &d,
                                    DMLREF_FEATURE_LEVEL_LATEST, DMLREF_OOB_ERROR, inputs, 2,
                                    outputs, 1, &err),
                         DMLREF_OK);
        tt_get_raw(&out, got);
        for (i = 0; i < n; ++i)
            assert_memory_equal(got + i * es, raw + (n - 1 - i) * es, es);
        tt_free(&in), tt_free(&idx), tt_free(&out);
    }
}

/* ---- out-of-range indices (D1, R-IX-3..6) -------------------------------- */

typedef struct oob_case {
    const char *name;
    dmlref_tensor_data_type index_type;
    int64_t bad; /* stored at indices[1, 0] of a {2,3} index tensor; input {3,3} */
    const char *message;
} oob_case;

static const oob_case k_oob[] = {
    {"D1_uint32_equal_to_size", DMLREF_TENSOR_DATA_TYPE_UINT32, 3,
     "IndicesTensor[1, 0] = 3 is out of range for InputTensor.Sizes[0] = 3 (valid: 0 to 2)"},
    {"R-IX-3_uint32_all_ones_is_not_minus_one", DMLREF_TENSOR_DATA_TYPE_UINT32, 0xFFFFFFFF,
     "IndicesTensor[1, 0] = 4294967295 is out of range"},
    {"R-IX-4_int32_below_minus_size", DMLREF_TENSOR_DATA_TYPE_INT32, -4,
     "IndicesTensor[1, 0] = -4 is out of range for InputTensor.Sizes[0] = 3 (valid: -3 to 2)"},
    {"R-IX-4_int64_at_size", DMLREF_TENSOR_DATA_TYPE_INT64, 3, "= 3 is out of range"},
    {"R-IX-3_uint64_above_int64_max", DMLREF_TENSOR_DATA_TYPE_UINT64, INT64_MIN + 5,
     "= 9223372036854775813 is out of range"},
    {"R-IX-4_int64_min", DMLREF_TENSOR_DATA_TYPE_INT64, INT64_MIN,
     "= -9223372036854775808 is out of range"},
};

/* Ensure an out-of-range index fails the execution with
   DMLREF_ERROR_INDEX_OUT_OF_RANGE, names the first bad coordinate and value,
   and leaves the output unwritten (D1). */
static void run_oob(void **state)
{
    const oob_case *c = *state;
    uint32_t in_sizes[2] = {3, 3}, idx_sizes[2] = {2, 3};
    int64_t indices[6] = {0, 1, 2, 0, 7, 9}; /* 7 and 9 are bad too, but later */
    test_tensor in, idx, out;
    test_tensor *inputs[2] = {&in, &idx}, *outputs[1] = {&out};
    dmlref_gather_elements_desc d;
    dmlref_error err;
    indices[3] = c->bad;
    tt_init(&in, DMLREF_TENSOR_DATA_TYPE_FLOAT32, 2, in_sizes, NULL, 0);
    tt_init(&idx, c->index_type, 2, idx_sizes, NULL, 0);
    tt_init(&out, DMLREF_TENSOR_DATA_TYPE_FLOAT32, 2, idx_sizes, NULL, 0);
    tt_set_values(&in, k_doc_in);
    tt_set_indices(&idx, indices);
    d.InputTensor = &in.desc, d.IndicesTensor = &idx.desc, d.OutputTensor = &out.desc;
    d.Axis = 0;
    assert_int_equal(tt_execute(DMLREF_OPERATOR_GATHER_ELEMENTS, &d, DMLREF_FEATURE_LEVEL_LATEST,
                                DMLREF_OOB_ERROR, inputs, 2, outputs, 1, &err),
                     DMLREF_ERROR_INDEX_OUT_OF_RANGE);
    assert_int_equal(err.status, DMLREF_ERROR_INDEX_OUT_OF_RANGE);
    assert_string_equal(err.rule, "D1");
    if (!strstr(err.message, c->message))
        fail_msg("message \"%s\" lacks \"%s\"", err.message, c->message);
    assert_true(strncmp(err.message, "GATHER_ELEMENTS: ", 17) == 0);
    assert_true(tt_untouched(&out));
    tt_free(&in), tt_free(&idx), tt_free(&out);
}

/* Ensure the first out-of-range index is found wherever it sits in a long
   contiguous run (the check tests whole blocks of 256 indices at once and
   looks closer only at a block that may hold one): in-range values close to
   the bound that make that block test look twice, then one bad value at a
   block's first or last place or in the tail, for every index type (D1). */
static void test_gather_elements_finds_first_bad_index_in_long_runs(void **state)
{
    static const dmlref_tensor_data_type types[4] = {
        DMLREF_TENSOR_DATA_TYPE_UINT32, DMLREF_TENSOR_DATA_TYPE_INT32,
        DMLREF_TENSOR_DATA_TYPE_UINT64, DMLREF_TENSOR_DATA_TYPE_INT64};
    static const uint64_t bad_at[5] = {0, 255, 256, 1023, 1999};
    enum { SIZE = 1000, COUNT = 2000 };
    uint32_t in_size = SIZE, idx_size = COUNT, t, b, i;
    double *in_values = malloc(SIZE * sizeof *in_values);
    int64_t *indices = malloc(COUNT * sizeof *indices);
    (void)state;
    assert_non_null(in_values), assert_non_null(indices);
    for (i = 0; i < SIZE; ++i)
        in_values[i] = i;
    for (t = 0; t < 4; ++t) {
        int is_signed =
            types[t] == DMLREF_TENSOR_DATA_TYPE_INT32 || types[t] == DMLREF_TENSOR_DATA_TYPE_INT64;
        for (b = 0; b < 6; ++b) { /* b == 5: no bad index at all */
            test_tensor in, idx, out;
            test_tensor *inputs[2] = {&in, &idx}, *outputs[1] = {&out};
            dmlref_gather_elements_desc d;
            dmlref_error err;
            dmlref_status status;
            char where[64];
            for (i = 0; i < COUNT; ++i) /* 999, 24, -1000 (signed): all valid */
                indices[i] = i % 3 == 0 ? SIZE - 1 : i % 3 == 1 ? 24 : is_signed ? -SIZE : 0;
            if (b < 5)
                indices[bad_at[b]] = is_signed && b % 2 ? -SIZE - 1 : SIZE;
            tt_init(&in, DMLREF_TENSOR_DATA_TYPE_FLOAT32, 1, &in_size, NULL, 0);
            tt_init(&idx, types[t], 1, &idx_size, NULL, 0);
            tt_init(&out, DMLREF_TENSOR_DATA_TYPE_FLOAT32, 1, &idx_size, NULL, 0);
            tt_set_values(&in, in_values);
            tt_set_indices(&idx, indices);
            d.InputTensor = &in.desc, d.IndicesTensor = &idx.desc, d.OutputTensor = &out.desc;
            d.Axis = 0;
            status = tt_execute(DMLREF_OPERATOR_GATHER_ELEMENTS, &d, DMLREF_FEATURE_LEVEL_LATEST,
                                DMLREF_OOB_ERROR, inputs, 2, outputs, 1, &err);
            if (b == 5) {
                assert_int_equal(status, DMLREF_OK);
            } else {
                assert_int_equal(status, DMLREF_ERROR_INDEX_OUT_OF_RANGE);
                snprintf(where, sizeof where, "IndicesTensor[%u] = ", (unsigned)bad_at[b]);
                if (!strstr(err.message, where))
                    fail_msg("type %d, bad at %u: \"%s\"", (int)types[t], (unsigned)bad_at[b],
                             err.message);
                assert_true(tt_untouched(&out));
            }
            tt_free(&in), tt_free(&idx), tt_free(&out);
        }
    }
    free(in_values), free(indices);
}

/* Ensure under DMLREF_OOB_CLAMP an index past either end reads the nearest
   element and nothing fails: dmlref's portable policy (D1) where DirectML's
   result is undefined (R-IX-5), and no failure (R-IX-6);
   each output element depends only on its own index (R-GE-8). */
static void test_gather_elements_clamp_policy(void **state)
{
    static const double in_values[] = {10, 11, 12, 13};
    static const int64_t indices[] = {4, -5, 99, -1, 0, INT64_MIN};
    static const double expected[] = {13, 10, 13, 13, 10, 10};
    uint32_t in_size = 4, idx_size = 6;
    test_tensor in, idx, out;
    test_tensor *inputs[2] = {&in, &idx}, *outputs[1] = {&out};
    dmlref_gather_elements_desc d;
    dmlref_error err;
    (void)state;
    tt_init(&in, DMLREF_TENSOR_DATA_TYPE_INT16, 1, &in_size, NULL, 0);
    tt_init(&idx, DMLREF_TENSOR_DATA_TYPE_INT64, 1, &idx_size, NULL, 0);
    tt_init(&out, DMLREF_TENSOR_DATA_TYPE_INT16, 1, &idx_size, NULL, 0);
    tt_set_values(&in, in_values);
    tt_set_indices(&idx, indices);
    d.InputTensor = &in.desc, d.IndicesTensor = &idx.desc, d.OutputTensor = &out.desc;
    d.Axis = 0;
    assert_int_equal(tt_execute(DMLREF_OPERATOR_GATHER_ELEMENTS, &d, DMLREF_FEATURE_LEVEL_LATEST,
                                DMLREF_OOB_CLAMP, inputs, 2, outputs, 1, &err),
                     DMLREF_OK);
    assert_true(tt_equals_values(&out, expected));
    tt_free(&in), tt_free(&idx), tt_free(&out);
}

/* Ensure a 4-D gather with UINT32 indices runs at FL 2_1, the operator's
   first level (R-GE-5), with the same answer as at the latest level. */
static void test_gather_elements_runs_at_feature_level_2_1(void **state)
{
    static const double in_values[] = {1, 2, 3, 4, 5, 6};
    static const int64_t indices[] = {2, 2, 0, 1};
    static const double expected[] = {3, 3, 4, 5};
    uint32_t in_sizes[4] = {1, 2, 1, 3}, idx_sizes[4] = {1, 2, 1, 2};
    test_tensor in, idx, out;
    test_tensor *inputs[2] = {&in, &idx}, *outputs[1] = {&out};
    dmlref_gather_elements_desc d;
    dmlref_error err;
    (void)state;
    tt_init(&in, DMLREF_TENSOR_DATA_TYPE_UINT8, 4, in_sizes, NULL, 0);
    tt_init(&idx, DMLREF_TENSOR_DATA_TYPE_UINT32, 4, idx_sizes, NULL, 0);
    tt_init(&out, DMLREF_TENSOR_DATA_TYPE_UINT8, 4, idx_sizes, NULL, 0);
    tt_set_values(&in, in_values);
    tt_set_indices(&idx, indices);
    d.InputTensor = &in.desc, d.IndicesTensor = &idx.desc, d.OutputTensor = &out.desc;
    d.Axis = 3;
    assert_int_equal(tt_execute(DMLREF_OPERATOR_GATHER_ELEMENTS, &d, DMLREF_FEATURE_LEVEL_2_1,
                                DMLREF_OOB_ERROR, inputs, 2, outputs, 1, &err),
                     DMLREF_OK);
    assert_true(tt_equals_values(&out, expected));
    tt_free(&in), tt_free(&idx), tt_free(&out);
}

int main(void)
{
    const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_gather_elements_moves_bits_exactly),
        cmocka_unit_test(test_gather_elements_clamp_policy),
        cmocka_unit_test(test_gather_elements_finds_first_bad_index_in_long_runs),
        cmocka_unit_test(test_gather_elements_runs_at_feature_level_2_1),
    };
    int failed = run_table_tests("gather_elements/out_of_range", k_oob, sizeof k_oob[0],
                                 sizeof k_oob / sizeof k_oob[0], run_oob, NULL, 0);
    return failed + run_table_tests("gather_elements", k_cases, sizeof k_cases[0],
                                    sizeof k_cases / sizeof k_cases[0], run_row, fixed,
                                    sizeof fixed / sizeof fixed[0]);
}
