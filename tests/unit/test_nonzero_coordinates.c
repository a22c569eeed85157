/*
 * test_nonzero_coordinates.c - NONZERO_COORDINATES semantics (R-NZ-4,
 * R-NZ-8..15, D7..D10), table-driven.  Every row runs for all 8 input data
 * types, with the coordinates packed and padded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testlib.h"

#define UNTOUCHED 0xCDCDCDCDu /* four PADDING_FILL bytes */

typedef struct nz_case {
    const char *name;
    dmlref_feature_level level;
    uint32_t rank;
    uint32_t input_sizes[8];
    const uint32_t *input_strides;
    const double *input;
    uint32_t count_rank;
    uint32_t coordinates_rank; /* sizes {1, ..., 1, M, N} */
    uint32_t n;                /* N */
    uint32_t expected_count;
    const uint32_t *expected_rows; /* expected_count x N */
    const uint32_t *coordinate_strides;
} nz_case;

static const dmlref_tensor_data_type k_input_types[8] = {
    DMLREF_TENSOR_DATA_TYPE_FLOAT32, DMLREF_TENSOR_DATA_TYPE_FLOAT16,
    DMLREF_TENSOR_DATA_TYPE_UINT32,  DMLREF_TENSOR_DATA_TYPE_UINT16,
    DMLREF_TENSOR_DATA_TYPE_UINT8,   DMLREF_TENSOR_DATA_TYPE_INT32,
    DMLREF_TENSOR_DATA_TYPE_INT16,   DMLREF_TENSOR_DATA_TYPE_INT8};

/* the seeds' example (D20: rows past the count are undefined, S-12;
   N < D takes the last N dimensions, R-NZ-13) with integral values (non-zeros at [0,0], [0,3],
   [1,1], [1,3] of the last two dimensions) */
static const double k_doc_in[] = {1, 0, 0, 2, /**/ 0, 3, 0, 5};
static const uint32_t k_doc_n3[] = {0, 0, 0, /**/ 0, 0, 3, /**/ 0, 1, 1, /**/ 0, 1, 3};
static const uint32_t k_doc_n2[] = {0, 0, /**/ 0, 3, /**/ 1, 1, /**/ 1, 3};
static const uint32_t k_doc_n4[] = {0, 0, 0, 0, /**/ 0, 0, 0, 3, /**/ 0, 0, 1, 1, /**/ 0, 0, 1, 3};
/* ORT's layout: coordinates {M,N} written as UINT32 (R-NZ-15) into every
   other UINT32 of a transposed [N, M] int64 buffer, strides {2, 2M}
   (R-TD-17) */
static const uint32_t k_ort_strides_8x4[] = {2, 16};

static const double k_zeros[] = {0, 0, 0, 0, 0, 0};
static const double k_dense[] = {1, 2, 3, 4, 5, 6};
static const uint32_t k_dense_rows[] = {0, 0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 2};
static const double k_scalar[] = {7};
static const uint32_t k_scalar_row[] = {0};
static const double k_r1_in[] = {0, 9, 0, 0, 8};
static const uint32_t k_r1_rows[] = {1, 4};
static const double k_r8_in[] = {0, 4, 0, 5};     /* {1,1,1,1,1,1,2,2} */
static const uint32_t k_r8_rows[] = {0, 1, 1, 1}; /* N = 2 */
static const uint32_t k_r8_rows_n8[] = {0, 0, 0, 0, 0, 0, 0, 1, /**/ 0, 0, 0, 0, 0, 0, 1, 1};
/* a {2,3} input stored column-major: the rows still come in logical
   row-major order, not memory order (R-NZ-12, R-TD-8, D9) */
static const uint32_t k_transposed_2x3[] = {1, 2};
static const double k_t_in[] = {0, 1, 2, /**/ 3, 0, 0};
static const uint32_t k_t_rows[] = {0, 1, /**/ 0, 2, /**/ 1, 0};
/* an inner leading one is not a leading one: {2,1,3} has effective rank 3 */
static const double k_inner_one_in[] = {0, 0, 4, /**/ 5, 0, 0};
static const uint32_t k_inner_one_rows[] = {0, 0, 2, /**/ 1, 0, 0};

/* clang-format off */
static const nz_case k_cases[] = {
    {"doc_example_fl3_0_n3_S12",
     DMLREF_FEATURE_LEVEL_3_0, 4, {1, 1, 2, 4},             NULL,             k_doc_in,
     4, 4, 3, 4, k_doc_n3,         NULL},
    {"doc_example_n2_right_aligned_D8",
     DMLREF_FEATURE_LEVEL_3_0, 4, {1, 1, 2, 4},             NULL,             k_doc_in,
     4, 4, 2, 4, k_doc_n2,         NULL},
    {"doc_example_n4",
     DMLREF_FEATURE_LEVEL_3_0, 4, {1, 1, 2, 4},             NULL,             k_doc_in,
     4, 4, 4, 4, k_doc_n4,         NULL},
    {"doc_example_fl4_0_directmlx_shapes_D10",
     DMLREF_FEATURE_LEVEL_4_0, 4, {1, 1, 2, 4},             NULL,             k_doc_in,
     1, 2, 4, 4, k_doc_n4,         NULL},
    {"doc_example_fl5_ort_strided_coordinates",
     DMLREF_FEATURE_LEVEL_5_0, 4, {1, 1, 2, 4},             NULL,             k_doc_in,
     1, 2, 4, 4, k_doc_n4,         k_ort_strides_8x4},
    {"all_zero_count_0_rows_untouched",
     DMLREF_FEATURE_LEVEL_4_0, 2, {2, 3},                   NULL,             k_zeros,
     1, 2, 2, 0, NULL,             NULL},
    {"all_nonzero",
     DMLREF_FEATURE_LEVEL_4_0, 2, {2, 3},                   NULL,             k_dense,
     1, 2, 2, 6, k_dense_rows,     NULL},
    {"effective_rank_0_R-NZ-4",
     DMLREF_FEATURE_LEVEL_4_0, 4, {1, 1, 1, 1},             NULL,             k_scalar,
     1, 2, 1, 1, k_scalar_row,     NULL},
    {"rank1",
     DMLREF_FEATURE_LEVEL_4_0, 1, {5},                      NULL,             k_r1_in,
     1, 2, 1, 2, k_r1_rows,        NULL},
    {"rank8_n2",
     DMLREF_FEATURE_LEVEL_4_0, 8, {1, 1, 1, 1, 1, 1, 2, 2}, NULL,             k_r8_in,
     8, 8, 2, 2, k_r8_rows,        NULL},
    {"rank8_n8",
     DMLREF_FEATURE_LEVEL_4_0, 8, {1, 1, 1, 1, 1, 1, 2, 2}, NULL,             k_r8_in,
     1, 2, 8, 2, k_r8_rows_n8,     NULL},
    {"transposed_input_logical_order_D9",
     DMLREF_FEATURE_LEVEL_4_0, 2, {2, 3},                   k_transposed_2x3, k_t_in,
     1, 2, 2, 3, k_t_rows,         NULL},
    {"inner_size_one_counts_for_rank",
     DMLREF_FEATURE_LEVEL_4_0, 3, {2, 1, 3},                NULL,             k_inner_one_in,
     1, 2, 3, 2, k_inner_one_rows, NULL},
};
/* clang-format on */

/* Runs a case on raw input bytes; checks count, rows and untouched rows. */
static void run_raw(const nz_case *c, dmlref_tensor_data_type type, const void *input_raw,
                    int padded)
{
    test_tensor in, cn, co;
    test_tensor *inputs[1] = {&in}, *outputs[2] = {&cn, &co};
    uint32_t cn_sizes[8], co_sizes[8], s_co[8], m = 1, i, count, *rows;
    dmlref_nonzero_coordinates_desc d;
    dmlref_error err;

    for (i = 0; i < c->rank; ++i)
        m *= c->input_sizes[i];
    for (i = 0; i < 8; ++i)
        cn_sizes[i] = co_sizes[i] = 1;
    co_sizes[c->coordinates_rank - 2] = m;
    co_sizes[c->coordinates_rank - 1] = c->n;
    tt_init(&in, type, c->rank, c->input_sizes, c->input_strides, 0);
    tt_init(&cn, DMLREF_TENSOR_DATA_TYPE_UINT32, c->count_rank, cn_sizes, NULL, padded ? 4 : 0);
    tt_init(&co, DMLREF_TENSOR_DATA_TYPE_UINT32, c->coordinates_rank, co_sizes,
            variant_strides(c->coordinate_strides, padded, c->coordinates_rank, co_sizes, 1, s_co),
            0);
    tt_set_raw(&in, input_raw);
    d.InputTensor = &in.desc, d.OutputCountTensor = &cn.desc;
    d.OutputCoordinatesTensor = &co.desc;
    if (tt_execute(DMLREF_OPERATOR_NONZERO_COORDINATES, &d, c->level, DMLREF_OOB_ERROR, inputs, 1,
                   outputs, 2, &err) != DMLREF_OK)
        fail_msg("%s %s: %s", c->name, dmlref_data_type_name(type), err.message);

    memcpy(&count, cn.data, 4); /* a UINT32 at element offset 0 (R-NZ-11) */
    assert_int_equal(count, c->expected_count);
    rows = malloc((size_t)m * c->n * 4);
    assert_non_null(rows);
    tt_get_raw(&co, rows);
    if (count)
        assert_memory_equal(rows, c->expected_rows, (size_t)count * c->n * 4);
    for (i = count * c->n; i < m * c->n; ++i) /* R-NZ-14: left untouched */
        assert_int_equal(rows[i], UNTOUCHED);
    assert_true(tt_padding_intact(&co) && tt_padding_intact(&cn));
    assert_true(tt_guards_intact(&co) && tt_guards_intact(&cn));
    free(rows);
    tt_free(&in), tt_free(&cn), tt_free(&co);
}

/* Ensure the row's count and rows for all 8 input types, coordinates packed
   and padded (R-NZ-11..13). */
static void run_row(void **state)
{
    const nz_case *c = *state;
    uint32_t t, i, m = 1;
    for (i = 0; i < c->rank; ++i)
        m *= c->input_sizes[i];
    for (t = 0; t < 8; ++t) {
        unsigned char raw[64 * 4];
        uint32_t es = dmlref_data_type_size(k_input_types[t]);
        for (i = 0; i < m; ++i)
            encode_value(k_input_types[t], c->input[i], raw + i * es);
        run_raw(c, k_input_types[t], raw, 0);
        run_raw(c, k_input_types[t], raw, 1);
    }
}

/* Ensure the zero test is numeric: +0 and -0 are zero (R-NZ-8); NaN with any
   payload and both infinities are not (R-NZ-9); subnormals are not either,
   as IEEE says (D7, R-NZ-10). */
static void test_nonzero_float_specials(void **state)
{
    /* FLOAT32: +0, -0, qNaN, sNaN payload, +inf, -inf, subnormal, -subnormal */
    static const uint32_t f32[8] = {0x00000000u, 0x80000000u, 0x7FC00000u, 0x7F800001u,
                                    0x7F800000u, 0xFF800000u, 0x00000001u, 0x807FFFFFu};
    static const uint16_t f16[8] = {0x0000u, 0x8000u, 0x7E00u, 0x7C01u,
                                    0x7C00u, 0xFC00u, 0x0001u, 0x83FFu};
    static const uint32_t rows[6] = {2, 3, 4, 5, 6, 7};
    nz_case c = {
        "float_specials", DMLREF_FEATURE_LEVEL_4_0, 1, {8}, NULL, NULL, 1, 2, 1, 6, rows, NULL};
    (void)state;
    run_raw(&c, DMLREF_TENSOR_DATA_TYPE_FLOAT32, f32, 0);
    run_raw(&c, DMLREF_TENSOR_DATA_TYPE_FLOAT16, f16, 1);
}

/* Ensure integer zero tests use every bit: INT8 -128 (0x80) and INT32
   INT32_MIN are non-zero, unlike the float -0.0 patterns they share. */
static void test_nonzero_integer_sign_bit_is_a_value(void **state)
{
    static const uint8_t i8[4] = {0x00, 0x80, 0x00, 0xFF};
    static const uint32_t i32[4] = {0x80000000u, 0, 0, 1};
    static const uint32_t rows8[2] = {1, 3}, rows32[2] = {0, 3};
    nz_case c8 = {"int8", DMLREF_FEATURE_LEVEL_4_0, 1, {4}, NULL, NULL, 1, 2, 1, 2, rows8, NULL};
    nz_case c32 = {"int32", DMLREF_FEATURE_LEVEL_4_0, 1, {4}, NULL, NULL, 1, 2, 1, 2, rows32, NULL};
    (void)state;
    run_raw(&c8, DMLREF_TENSOR_DATA_TYPE_INT8, i8, 0);
    run_raw(&c32, DMLREF_TENSOR_DATA_TYPE_INT32, i32, 0);
}

int main(void)
{
    const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_nonzero_float_specials),
        cmocka_unit_test(test_nonzero_integer_sign_bit_is_a_value),
    };
    return run_table_tests("nonzero_coordinates", k_cases, sizeof k_cases[0],
                           sizeof k_cases / sizeof k_cases[0], run_row, fixed,
                           sizeof fixed / sizeof fixed[0]);
}
