/*
 * test_gather_nd.c - GATHER_ND and GATHER_ND1 semantics (R-GN-6, R-GN-7,
 * R-GN-9, R-GN-10, R-IX-2, D1, D11), table-driven.  Every row runs for all
 * 11 data types and every index type it can, packed and padded, through
 * GATHER_ND1 and, when it has no batch dimensions, through GATHER_ND too
 * (R-GN-10: the same answer).  The rows of index batches that differ from
 * the input's (R-GN-6) run GATHER_ND1 with both kernels under both
 * out-of-range policies.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testlib.h"

typedef struct gnd_case {
    const char *name;
    uint32_t rank;
    uint32_t input_dims, indices_dims, batch_dims; /* m, q, b */
    uint32_t input_sizes[8];
    uint32_t indices_sizes[8];
    uint32_t output_sizes[8]; /* DirectMLX's shape (R-GN-7) */
    const double *input;
    const int64_t *indices;
    const double *expected;
    const uint32_t *input_strides; /* NULL: packed (and a padded variant) */
} gnd_case;

static const double k_seq12[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
static const double k_one12[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

/* seeds' example 1: 1-D remapping, m=2, q=2 */
static const int64_t k_ex1_idx[] = {1, /**/ 0};
static const double k_ex1_out[] = {2, 3, /**/ 0, 1};

/* seeds' example 2: 2-D remapping, m=3, q=2 */
static const int64_t k_ex2_idx[] = {0, 1, /**/ 1, 0};
static const double k_ex2_out[] = {2, 3, /**/ 4, 5};

/* seeds' GATHER_ND1 example: one batch dimension, m=3, q=3, b=1 */
static const int64_t k_nd1_idx[] = {0, 0, 1, 1, /**/ 1, 1, 0, 0, /**/ 0, 1, 1, 0};
static const double k_nd1_out[] = {0, 3, /**/ 7, 4, /**/ 9, 10};

/* whole coordinates (k = m, nothing left to slice), negative ones too */
static const int64_t k_full_idx[] = {1, 2, /**/ 0, 0, /**/ -1, -3};
static const double k_full_out[] = {6, 1, 4};

/* rank 1: one tuple of one coordinate */
static const double k_r1_in[] = {10, 11, 12, 13, 14};
static const int64_t k_r1_idx[] = {3};
static const double k_r1_out[] = {13};
static const int64_t k_r1_neg_idx[] = {-5};
static const double k_r1_neg_out[] = {10};

/* rank 8: swap the rows of a 2x3 matrix */
static const int64_t k_r8_idx[] = {1, /**/ 0};
static const double k_r8_out[] = {4, 5, 6, /**/ 1, 2, 3};

/* two batch dimensions, k=1 */
static const int64_t k_b2_idx[] = {2, 0, /**/ 1, -1};
static const double k_b2_out[] = {3, 4, /**/ 8, 12};

/* a single tuple picking a row (q = 1) */
static const int64_t k_q1_idx[] = {2};
static const double k_q1_out[] = {5, 6};

/* slices read through a transposed input: {3,2} stored column-major */
static const uint32_t k_transposed_3x2[] = {1, 3};

/* clang-format off */
static const gnd_case k_cases[] = {
    {"doc_example1_1d_remap",
     2, 2, 2, 0, {2, 2},                   {2, 1},                   {2, 2},
     k_seq12, k_ex1_idx,    k_ex1_out,    NULL},
    {"doc_example2_2d_remap_shape_S13",
     4, 3, 2, 0, {1, 2, 2, 2},             {1, 1, 2, 2},             {1, 1, 2, 2},
     k_seq12, k_ex2_idx,    k_ex2_out,    NULL},
    {"doc_nd1_example_batch1",
     4, 3, 3, 1, {1, 3, 2, 2},             {1, 3, 2, 2},             {1, 1, 3, 2},
     k_seq12, k_nd1_idx,    k_nd1_out,    NULL},
    {"whole_coordinates_negative",
     2, 2, 2, 0, {2, 3},                   {3, 2},                   {1, 3},
     k_one12, k_full_idx,   k_full_out,   NULL},
    {"rank1_single_tuple",
     1, 1, 1, 0, {5},                      {1},                      {1},
     k_r1_in, k_r1_idx,     k_r1_out,     NULL},
    {"rank1_negative_boundary",
     1, 1, 1, 0, {5},                      {1},                      {1},
     k_r1_in, k_r1_neg_idx, k_r1_neg_out, NULL},
    {"rank8_row_swap_leading_ones_D11",
     8, 2, 2, 0, {1, 1, 1, 1, 1, 1, 2, 3}, {1, 1, 1, 1, 1, 1, 2, 1}, {1, 1, 1, 1, 1, 1, 2, 3},
     k_one12, k_r8_idx,     k_r8_out,     NULL},
    {"two_batch_dimensions",
     3, 3, 3, 2, {2, 2, 3},                {2, 2, 1},                {1, 2, 2},
     k_one12, k_b2_idx,     k_b2_out,     NULL},
    {"one_tuple_one_row",
     2, 2, 1, 0, {3, 2},                   {1, 1},                   {1, 2},
     k_one12, k_q1_idx,     k_q1_out,     NULL},
    {"transposed_input_layout",
     2, 2, 1, 0, {3, 2},                   {1, 1},                   {1, 2},
     k_one12, k_q1_idx,     k_q1_out,     k_transposed_3x2},
};
/* clang-format on */

static void run_variant(const gnd_case *c, dmlref_operator_type op, dmlref_tensor_data_type type,
                        dmlref_tensor_data_type itype, int padded)
{
    test_tensor in, idx, out;
    test_tensor *inputs[2] = {&in, &idx}, *outputs[1] = {&out};
    uint32_t s_in[8], s_idx[8], s_out[8];
    dmlref_gather_nd_desc d0;
    dmlref_gather_nd1_desc d1;
    dmlref_error err;

    tt_init(&in, type, c->rank, c->input_sizes,
            variant_strides(c->input_strides, padded, c->rank, c->input_sizes, 1, s_in), 0);
    tt_init(&idx, itype, c->rank, c->indices_sizes,
            variant_strides(NULL, padded, c->rank, c->indices_sizes, 2, s_idx), 0);
    tt_init(&out, type, c->rank, c->output_sizes,
            variant_strides(NULL, padded, c->rank, c->output_sizes, 1, s_out), padded ? 8 : 0);
    tt_set_values(&in, c->input);
    tt_set_indices(&idx, c->indices);
    d0.InputTensor = d1.InputTensor = &in.desc;
    d0.IndicesTensor = d1.IndicesTensor = &idx.desc;
    d0.OutputTensor = d1.OutputTensor = &out.desc;
    d0.InputDimensionCount = d1.InputDimensionCount = c->input_dims;
    d0.IndicesDimensionCount = d1.IndicesDimensionCount = c->indices_dims;
    d1.BatchDimensionCount = c->batch_dims;

    if (tt_execute(op, op == DMLREF_OPERATOR_GATHER_ND ? (const void *)&d0 : (const void *)&d1,
                   DMLREF_FEATURE_LEVEL_LATEST, DMLREF_OOB_ERROR, inputs, 2, outputs, 1,
                   &err) != DMLREF_OK)
        fail_msg("%s %s %s/%s: %s", c->name, dmlref_operator_name(op), dmlref_data_type_name(type),
                 dmlref_data_type_name(itype), err.message);
    if (!tt_equals_values(&out, c->expected))
        fail_msg("%s %s %s/%s padded=%d: wrong output", c->name, dmlref_operator_name(op),
                 dmlref_data_type_name(type), dmlref_data_type_name(itype), padded);
    assert_true(tt_guards_intact(&out));
    assert_true(tt_padding_intact(&out));
    tt_free(&in), tt_free(&idx), tt_free(&out);
}

/* Ensure the row's output for all 11 data types x every usable index type,
   packed and padded, via GATHER_ND1 and (without batch dimensions)
   GATHER_ND (R-GN-9, R-GN-10). */
static void run_row(void **state)
{
    const gnd_case *c = *state;
    uint64_t n = 1;
    uint32_t i, t, x;
    for (i = 0; i < c->rank; ++i)
        n *= c->indices_sizes[i];
    for (t = 0; t < 11; ++t) {
        for (x = 0; x < 4; ++x) {
            dmlref_tensor_data_type itype = k_all_index_types[x];
            int padded;
            if (any_negative(c->indices, n) && !is_signed_index_type(itype))
                continue;
            for (padded = 0; padded < 2; ++padded) {
                run_variant(c, DMLREF_OPERATOR_GATHER_ND1, k_all_data_types[t], itype, padded);
                if (c->batch_dims == 0)
                    run_variant(c, DMLREF_OPERATOR_GATHER_ND, k_all_data_types[t], itype, padded);
            }
        }
    }
}

/* ---- index batches that differ from the input's (R-GN-6) ------------------ */

typedef struct batch_case {
    const char *name;
    uint32_t batch_dims; /* b; rank 3, m = q = 3, one coordinate per tuple */
    uint32_t input_sizes[3];
    uint32_t indices_sizes[3];
    uint32_t output_sizes[3];
    const double *input;
    const int64_t *indices;
    const double *expected; /* NULL: refused, INDEX_OUT_OF_RANGE and R-GN-6 */
    const char *message;    /* what the refusal says */
} batch_case;

/* b = 1 over an input of 3 batches of 2 rows of 2: 2 index batches read
   input batches 0 and 1, 1 index batch reads input batch 0 */
static const int64_t k_fewer_idx[] = {1, 0, /**/ 1, 1};
static const double k_fewer_out[] = {2, 3, 0, 1, /**/ 6, 7, 6, 7};
static const int64_t k_one_batch_idx[] = {1, 0};
static const double k_one_batch_out[] = {2, 3, 0, 1};

/* b = 2 over an input {2, 2, 3}: {2, 1} index batches read input batches
   [0, 0] and [1, 0], not the first two in row-major order ([0, 0], [0, 1]) */
static const int64_t k_fewer_inner_idx[] = {2, /**/ 1};
static const double k_fewer_inner_out[] = {3, /**/ 8};
static const int64_t k_fewer_outer_idx[] = {2, 0};
static const double k_fewer_outer_out[] = {3, 4};

static const int64_t k_zeros[8] = {0};

/* clang-format off */
static const batch_case k_batch_cases[] = {
    {"R-GN-6_fewer_index_batches_read_the_input_at_the_output_batches",
     1, {3, 2, 2}, {2, 2, 1}, {2, 2, 2}, k_seq12, k_fewer_idx,       k_fewer_out,       NULL},
    {"R-GN-6_one_index_batch_reads_input_batch_0",
     1, {3, 2, 2}, {1, 2, 1}, {1, 2, 2}, k_seq12, k_one_batch_idx,   k_one_batch_out,   NULL},
    {"R-GN-6_fewer_inner_index_batches_keep_the_batch_coordinates",
     2, {2, 2, 3}, {2, 1, 1}, {1, 2, 1}, k_one12, k_fewer_inner_idx, k_fewer_inner_out, NULL},
    {"R-GN-6_fewer_outer_index_batches_keep_the_batch_coordinates",
     2, {2, 2, 3}, {1, 2, 1}, {1, 1, 2}, k_one12, k_fewer_outer_idx, k_fewer_outer_out, NULL},
    {"R-GN-6_more_index_batches_than_input_refused",
     1, {3, 2, 2}, {4, 2, 1}, {4, 2, 2}, k_seq12, k_zeros,           NULL,
     "GATHER_ND1: IndicesTensor.Sizes[0] = 4 batches read past InputTensor.Sizes[0] = 3 "
     "(batch dimension 0)"},
    {"R-GN-6_more_inner_index_batches_refused_though_fewer_outer",
     2, {2, 2, 3}, {1, 3, 1}, {1, 1, 3}, k_one12, k_zeros,           NULL,
     "GATHER_ND1: IndicesTensor.Sizes[1] = 3 batches read past InputTensor.Sizes[1] = 2 "
     "(batch dimension 1)"},
};
/* clang-format on */

static dmlref_status execute_nd1(const dmlref_gather_nd1_desc *d, dmlref_kernels kernels,
                                 dmlref_oob_policy policy, const test_tensor *in,
                                 const test_tensor *idx, const test_tensor *out, dmlref_error *err)
{
    dmlref_execute_options options = {DMLREF_OOB_ERROR, 0, DMLREF_KERNELS_REFERENCE};
    dmlref_operator_desc op;
    dmlref_binding inputs[2], outputs[1];
    options.oob_policy = policy, options.kernels = kernels;
    op.Type = DMLREF_OPERATOR_GATHER_ND1, op.Desc = d;
    inputs[0] = tt_binding(in), inputs[1] = tt_binding(idx), outputs[0] = tt_binding(out);
    return dmlref_execute_with_options(&op, DMLREF_FEATURE_LEVEL_LATEST, &options, inputs, 2,
                                       outputs, 1, err);
}

static void run_batch_variant(const batch_case *c, dmlref_tensor_data_type type,
                              dmlref_tensor_data_type itype, int padded, dmlref_oob_policy policy)
{
    static const dmlref_kernels kernels[2] = {DMLREF_KERNELS_REFERENCE, DMLREF_KERNELS_FAST};
    static const char *const names[2] = {"reference", "fast"};
    test_tensor in, idx, out[2];
    uint32_t s_in[8], s_idx[8], s_out[8], k;
    dmlref_gather_nd1_desc d;
    dmlref_operator_desc op;
    dmlref_error err[2];

    tt_init(&in, type, 3, c->input_sizes, variant_strides(NULL, padded, 3, c->input_sizes, 1, s_in),
            0);
    tt_init(&idx, itype, 3, c->indices_sizes,
            variant_strides(NULL, padded, 3, c->indices_sizes, 2, s_idx), 0);
    for (k = 0; k < 2; ++k) /* one output per kernel, both prefilled alike */
        tt_init(&out[k], type, 3, c->output_sizes,
                variant_strides(NULL, padded, 3, c->output_sizes, 1, s_out), 0);
    tt_set_values(&in, c->input);
    tt_set_indices(&idx, c->indices);
    d.InputTensor = &in.desc, d.IndicesTensor = &idx.desc, d.OutputTensor = &out[0].desc;
    d.InputDimensionCount = 3, d.IndicesDimensionCount = 3;
    d.BatchDimensionCount = c->batch_dims;
    op.Type = DMLREF_OPERATOR_GATHER_ND1, op.Desc = &d;

    if (dmlref_validate(&op, DMLREF_FEATURE_LEVEL_LATEST, &err[0]) != DMLREF_OK)
        fail_msg("%s: dmlref_validate(): %s", c->name, err[0].message);
    for (k = 0; k < 2; ++k) {
        dmlref_status status = execute_nd1(&d, kernels[k], policy, &in, &idx, &out[k], &err[k]);
        if (c->expected) {
            if (status != DMLREF_OK)
                fail_msg("%s %s %s/%s: %s", c->name, names[k], dmlref_data_type_name(type),
                         dmlref_data_type_name(itype), err[k].message);
            if (!tt_equals_values(&out[k], c->expected))
                fail_msg("%s %s %s/%s padded=%d: wrong output", c->name, names[k],
                         dmlref_data_type_name(type), dmlref_data_type_name(itype), padded);
            assert_true(tt_padding_intact(&out[k]));
        } else {
            if (status != DMLREF_ERROR_INDEX_OUT_OF_RANGE)
                fail_msg("%s %s %s/%s policy %d: %s, not INDEX_OUT_OF_RANGE", c->name, names[k],
                         dmlref_data_type_name(type), dmlref_data_type_name(itype), (int)policy,
                         dmlref_status_name(status));
            assert_string_equal(err[k].rule, "R-GN-6");
            if (!strstr(err[k].message, c->message))
                fail_msg("message \"%s\" lacks \"%s\"", err[k].message, c->message);
            assert_true(tt_untouched(&out[k])); /* the prefill, every byte */
        }
        assert_true(tt_guards_intact(&out[k]));
    }
    /* the kernels agree, byte for byte */
    assert_memory_equal(out[0].data, out[1].data, (size_t)out[0].desc.TotalTensorSizeInBytes);
    if (!c->expected)
        assert_string_equal(err[0].message, err[1].message);
    tt_free(&in), tt_free(&idx), tt_free(&out[0]), tt_free(&out[1]);
}

/* Ensure the row is valid for dmlref_validate() whatever its batch sizes
   (R-GN-6), and that under DMLREF_OOB_ERROR and DMLREF_OOB_CLAMP both
   kernels give Output[beta, ...] = Input[beta, t, ...] in byte-identical
   buffers, or both refuse it with INDEX_OUT_OF_RANGE, R-GN-6 and the same
   message, writing nothing; for all 11 data types x the 4 index types,
   packed and padded. */
static void run_batch_row(void **state)
{
    const batch_case *c = *state;
    uint32_t t, x;
    int padded;
    for (t = 0; t < 11; ++t) {
        for (x = 0; x < 4; ++x) {
            for (padded = 0; padded < 2; ++padded) {
                run_batch_variant(c, k_all_data_types[t], k_all_index_types[x], padded,
                                  DMLREF_OOB_ERROR);
                run_batch_variant(c, k_all_data_types[t], k_all_index_types[x], padded,
                                  DMLREF_OOB_CLAMP);
            }
        }
    }
}

/* Ensure the seeds' shape example gives DirectMLX's output {1,1,2,6,7} and
   not the documents' formula's {1,1,5,6,7} (R-GN-7, S-13). */
static void test_gather_nd_shape_example_follows_directmlx(void **state)
{
    uint32_t in_sizes[5] = {3, 4, 5, 6, 7}, idx_sizes[5] = {1, 1, 1, 2, 3};
    uint32_t right[5] = {1, 1, 2, 6, 7}, wrong[5] = {1, 1, 5, 6, 7};
    dmlref_tensor_desc in = {DMLREF_TENSOR_DATA_TYPE_FLOAT32, 0, 5, in_sizes, NULL, 0, 0};
    dmlref_tensor_desc idx = {DMLREF_TENSOR_DATA_TYPE_UINT32, 0, 5, idx_sizes, NULL, 0, 0};
    dmlref_tensor_desc out = {DMLREF_TENSOR_DATA_TYPE_FLOAT32, 0, 5, right, NULL, 0, 0};
    dmlref_gather_nd_desc d = {&in, &idx, &out, 5, 3};
    dmlref_operator_desc op = {DMLREF_OPERATOR_GATHER_ND, &d};
    dmlref_error err;
    (void)state;
    in.TotalTensorSizeInBytes = dmlref_calc_buffer_tensor_size(in.DataType, 5, in_sizes, NULL);
    idx.TotalTensorSizeInBytes = dmlref_calc_buffer_tensor_size(idx.DataType, 5, idx_sizes, NULL);
    out.TotalTensorSizeInBytes = 5 * 6 * 7 * 4;
    assert_int_equal(dmlref_validate(&op, DMLREF_FEATURE_LEVEL_3_0, &err), DMLREF_OK);
    out.Sizes = wrong;
    assert_int_equal(dmlref_validate(&op, DMLREF_FEATURE_LEVEL_3_0, &err),
                     DMLREF_ERROR_SIZE_MISMATCH);
    assert_string_equal(err.rule, "R-GN-7");
    assert_non_null(strstr(err.message, "OutputTensor.Sizes[2] = 5 must be 2"));
}

/* Ensure an out-of-range tuple coordinate fails with the coordinate, its
   value and the input dimension it indexes, writing nothing (D1); under
   DMLREF_OOB_CLAMP each coordinate is clamped on its own dimension. */
static void test_gather_nd_out_of_range_per_coordinate(void **state)
{
    static const int64_t indices[] = {0, 1, /**/ 1, 3, /**/ 5, -9}; /* input {2,3} */
    static const double clamped[] = {2, 6, 4};
    uint32_t in_sizes[2] = {2, 3}, idx_sizes[2] = {3, 2}, out_sizes[2] = {1, 3};
    test_tensor in, idx, out;
    test_tensor *inputs[2] = {&in, &idx}, *outputs[1] = {&out};
    dmlref_gather_nd1_desc d;
    dmlref_error err;
    (void)state;
    tt_init(&in, DMLREF_TENSOR_DATA_TYPE_INT8, 2, in_sizes, NULL, 0);
    tt_init(&idx, DMLREF_TENSOR_DATA_TYPE_INT32, 2, idx_sizes, NULL, 0);
    tt_init(&out, DMLREF_TENSOR_DATA_TYPE_INT8, 2, out_sizes, NULL, 0);
    tt_set_values(&in, k_one12);
    tt_set_indices(&idx, indices);
    d.InputTensor = &in.desc, d.IndicesTensor = &idx.desc, d.OutputTensor = &out.desc;
    d.InputDimensionCount = 2, d.IndicesDimensionCount = 2, d.BatchDimensionCount = 0;
    assert_int_equal(tt_execute(DMLREF_OPERATOR_GATHER_ND1, &d, DMLREF_FEATURE_LEVEL_LATEST,
                                DMLREF_OOB_ERROR, inputs, 2, outputs, 1, &err),
                     DMLREF_ERROR_INDEX_OUT_OF_RANGE);
    assert_string_equal(err.rule, "D1");
    assert_non_null(strstr(err.message, "GATHER_ND1: IndicesTensor[1, 1] = 3 is out of range for "
                                        "InputTensor.Sizes[1] = 3 (valid: -3 to 2)"));
    assert_true(tt_untouched(&out));
    assert_int_equal(tt_execute(DMLREF_OPERATOR_GATHER_ND1, &d, DMLREF_FEATURE_LEVEL_LATEST,
                                DMLREF_OOB_CLAMP, inputs, 2, outputs, 1, &err),
                     DMLREF_OK);
    assert_true(tt_equals_values(&out, clamped)); /* [0,1]->2, [1,2]->6, [1,0]->4 */
    tt_free(&in), tt_free(&idx), tt_free(&out);
}

/* Ensure GATHER_ND moves bits exactly (D12): FLOAT64 NaN payload, -0.0 and a
   subnormal copied through 2-element slices. */
static void test_gather_nd_moves_bits_exactly(void **state)
{
    static const uint64_t bits[4] = {0x7FF0000000000DEAull, 0x8000000000000000ull,
                                     0x0000000000000001ull, 0xFFFFFFFFFFFFFFFFull};
    static const int64_t indices[] = {1, 0};
    uint32_t in_sizes[2] = {2, 2}, idx_sizes[2] = {2, 1};
    uint64_t got[4];
    test_tensor in, idx, out;
    test_tensor *inputs[2] = {&in, &idx}, *outputs[1] = {&out};
    dmlref_gather_nd_desc d;
    dmlref_error err;
    (void)state;
    tt_init(&in, DMLREF_TENSOR_DATA_TYPE_FLOAT64, 2, in_sizes, NULL, 0);
    tt_init(&idx, DMLREF_TENSOR_DATA_TYPE_UINT64, 2, idx_sizes, NULL, 0);
    tt_init(&out, DMLREF_TENSOR_DATA_TYPE_FLOAT64, 2, in_sizes, NULL, 0);
    tt_set_raw(&in, bits);
    tt_set_indices(&idx, indices);
    d.InputTensor = &in.desc, d.IndicesTensor = &idx.desc, d.OutputTensor = &out.desc;
    d.InputDimensionCount = 2, d.IndicesDimensionCount = 2;
    assert_int_equal(tt_execute(DMLREF_OPERATOR_GATHER_ND, &d, DMLREF_FEATURE_LEVEL_4_1,
                                DMLREF_OOB_ERROR, inputs, 2, outputs, 1, &err),
                     DMLREF_OK);
    tt_get_raw(&out, got);
    assert_true(got[0] == bits[2] && got[1] == bits[3] && got[2] == bits[0] && got[3] == bits[1]);
    tt_free(&in), tt_free(&idx), tt_free(&out);
}

int main(void)
{
    const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_gather_nd_shape_example_follows_directmlx),
        cmocka_unit_test(test_gather_nd_out_of_range_per_coordinate),
        cmocka_unit_test(test_gather_nd_moves_bits_exactly),
    };
    int failed =
        run_table_tests("gather_nd1/batch_sizes", k_batch_cases, sizeof k_batch_cases[0],
                        sizeof k_batch_cases / sizeof k_batch_cases[0], run_batch_row, NULL, 0);
    return failed + run_table_tests("gather_nd", k_cases, sizeof k_cases[0],
                                    sizeof k_cases / sizeof k_cases[0], run_row, fixed,
                                    sizeof fixed / sizeof fixed[0]);
}
