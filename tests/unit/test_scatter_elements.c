/*
 * test_scatter_elements.c - SCATTER_ELEMENTS semantics (R-SC-4, R-SC-8..13,
 * R-IX-2, D2, D4, D12, D16), table-driven.  Every row runs for all 11 data
 * types and every index type it can, packed and with every tensor padded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testlib.h"

typedef struct sc_case {
    const char *name;
    uint32_t rank;
    uint32_t input_sizes[8];
    uint32_t indices_sizes[8];
    uint32_t axis;
    const double *input;
    const int64_t *indices;
    const double *updates;
    const double *expected;
    const uint32_t *input_strides; /* NULL: packed (and a padded variant) */
    const uint32_t *output_strides;
} sc_case;

/* seeds' example 1 (D20): index 3 twice.  DirectML calls duplicates invalid
   and guarantees no winner (R-SC-10, S-6); dmlref applies updates in
   row-major order, so 7 (the later) wins (D4). */
static const double k_ex1_in[] = {0, 1, 2, 3, 4};
static const int64_t k_ex1_idx[] = {3, 1, 3, 0};
static const double k_ex1_upd[] = {5, 6, 7, 8};
static const double k_ex1_out[] = {8, 6, 2, 7, 4};

/* seeds' example 2, corrected: the input is {3,3} (S-5) */
static const double k_ex2_in[] = {0, 0, 0, /**/ 0, 0, 0, /**/ 0, 0, 0};
static const int64_t k_ex2_idx[] = {1, 0, 2, /**/ 0, 2, 1};
static const double k_ex2_upd[] = {10, 11, 12, /**/ 20, 21, 22};
static const double k_ex2_out[] = {20, 11, 0, /**/ 10, 0, 22, /**/ 0, 21, 12};

/* Axis 1 with negative indices */
static const double k_neg_in[] = {1, 2, 3, /**/ 4, 5, 6};
static const int64_t k_neg_idx[] = {-1, /**/ 0};
static const double k_neg_upd[] = {30, /**/ 40};
static const double k_neg_out[] = {1, 2, 30, /**/ 40, 5, 6};

/* rank 1, the boundaries -s, -1, 0 and s-1 */
static const double k_r1_in[] = {10, 11, 12, 13, 14};
static const int64_t k_r1_idx[] = {-5, -1, 2};
static const double k_r1_upd[] = {50, 51, 52};
static const double k_r1_out[] = {50, 11, 52, 13, 51};
static const int64_t k_r1_pos_idx[] = {4, 0};
static const double k_r1_pos_upd[] = {60, 61};
static const double k_r1_pos_out[] = {61, 11, 12, 13, 60};

/* as many indices as the axis is long, the most D16 allows: duplicates come
   from repeated index values, and the last wins (D4) */
static const double k_full_in[] = {1, 2, 3};
static const int64_t k_full_idx[] = {1, 0, 1};
static const double k_full_upd[] = {5, 6, 7};
static const double k_full_out[] = {6, 7, 3};

/* every update on one target: the last one wins, replacing, never adding:
   Scatter has no reduction mode (R-SC-11) */
static const int64_t k_dup_idx[] = {0, 0, 0, 0};
static const double k_dup_upd[] = {21, 22, 23, 24};
static const double k_dup_out[] = {24, 11, 12, 13, 14};

/* clang-format off */
/* a 2x3x2 tensor scattered along each axis */
static const double k_3d_in[] = {1, 2, 3, 4, 5, 6, /**/ 7, 8, 9, 10, 11, 12};
static const int64_t k_3d_axis0_idx[] = {1, 0, 0, 1, 1, 1};                        /* {1,3,2} */
static const double k_3d_axis0_upd[] = {41, 42, 43, 44, 45, 46};
static const double k_3d_axis0_out[] = {1, 42, 43, 4, 5, 6, /**/ 41, 8, 9, 44, 45, 46};
static const int64_t k_3d_axis1_idx[] = {2, 0, /**/ 1, 2};                         /* {2,1,2} */
static const double k_3d_axis1_upd[] = {51, 52, /**/ 53, 54};
static const double k_3d_axis1_out[] = {1, 52, 3, 4, 51, 6, /**/ 7, 8, 53, 10, 11, 54};
static const int64_t k_3d_axis2_idx[] = {1, 0, 1, 1, 0, 0, /**/ 0, 1, 1, 0, 1, 1}; /* {2,3,2} */
static const double k_3d_axis2_upd[] = {61, 62, 63, 64, 65, 66, /**/ 67, 68, 69, 70, 71, 72};
static const double k_3d_axis2_out[] = {62, 61, 3, 64, 66, 6, /**/ 67, 68, 70, 69, 11, 72};

/* rank 8, along the first, a middle and the last axis; input {2,1,1,1,1,1,1,3} */
static const double k_8d_in[] = {1, 2, 3, /**/ 4, 5, 6};
static const int64_t k_8d_axis0_idx[] = {1, 0, 1};                      /* {1,...,1,3} */
static const double k_8d_axis0_upd[] = {71, 72, 73};
static const double k_8d_axis0_out[] = {1, 72, 3, /**/ 71, 5, 73};
static const int64_t k_8d_axis4_idx[] = {0, 0, 0, /**/ 0, 0, 0};         /* same as input */
static const double k_8d_axis4_upd[] = {81, 82, 83, /**/ 84, 85, 86};
static const double k_8d_axis4_out[] = {81, 82, 83, /**/ 84, 85, 86};
static const int64_t k_8d_axis7_idx[] = {2, /**/ 0};                     /* {2,...,1} */
static const double k_8d_axis7_upd[] = {91, /**/ 92};
static const double k_8d_axis7_out[] = {1, 2, 91, /**/ 92, 5, 6};

/* layouts */
static const double k_bcast_in[] = {7, 8, 9, /**/ 7, 8, 9};
static const uint32_t k_bcast_strides[] = {0, 1};
static const int64_t k_bcast_idx[] = {2, /**/ 0};
static const double k_bcast_upd[] = {30, /**/ 40};
static const double k_bcast_out[] = {7, 8, 30, /**/ 40, 8, 9};
static const uint32_t k_transposed_out[] = {1, 2}; /* {2,3} stored column-major */

static const sc_case k_cases[] = {
    {"doc_example1_duplicate_last_wins_D4_S6",
     1, {5},                      {4},                      0,
     k_ex1_in,   k_ex1_idx,      k_ex1_upd,      k_ex1_out,      NULL,            NULL},
    {"doc_example2_input_3x3_corrected_S5",
     2, {3, 3},                   {2, 3},                   0,
     k_ex2_in,   k_ex2_idx,      k_ex2_upd,      k_ex2_out,      NULL,            NULL},
    {"negative_index_axis1",
     2, {2, 3},                   {2, 1},                   1,
     k_neg_in,   k_neg_idx,      k_neg_upd,      k_neg_out,      NULL,            NULL},
    {"rank1_negative_boundaries",
     1, {5},                      {3},                      0,
     k_r1_in,    k_r1_idx,       k_r1_upd,       k_r1_out,       NULL,            NULL},
    {"rank1_positive_boundaries",
     1, {5},                      {2},                      0,
     k_r1_in,    k_r1_pos_idx,   k_r1_pos_upd,   k_r1_pos_out,   NULL,            NULL},
    {"indices_as_long_as_axis_duplicates_last_wins_D16_D4",
     1, {3},                      {3},                      0,
     k_full_in,  k_full_idx,     k_full_upd,     k_full_out,     NULL,            NULL},
    {"all_updates_one_target_last_wins_D4",
     1, {5},                      {4},                      0,
     k_r1_in,    k_dup_idx,      k_dup_upd,      k_dup_out,      NULL,            NULL},
    {"rank3_axis0",
     3, {2, 3, 2},                {1, 3, 2},                0,
     k_3d_in,    k_3d_axis0_idx, k_3d_axis0_upd, k_3d_axis0_out, NULL,            NULL},
    {"rank3_axis1",
     3, {2, 3, 2},                {2, 1, 2},                1,
     k_3d_in,    k_3d_axis1_idx, k_3d_axis1_upd, k_3d_axis1_out, NULL,            NULL},
    {"rank3_axis2",
     3, {2, 3, 2},                {2, 3, 2},                2,
     k_3d_in,    k_3d_axis2_idx, k_3d_axis2_upd, k_3d_axis2_out, NULL,            NULL},
    {"rank8_axis0",
     8, {2, 1, 1, 1, 1, 1, 1, 3}, {1, 1, 1, 1, 1, 1, 1, 3}, 0,
     k_8d_in,    k_8d_axis0_idx, k_8d_axis0_upd, k_8d_axis0_out, NULL,            NULL},
    {"rank8_axis4",
     8, {2, 1, 1, 1, 1, 1, 1, 3}, {2, 1, 1, 1, 1, 1, 1, 3}, 4,
     k_8d_in,    k_8d_axis4_idx, k_8d_axis4_upd, k_8d_axis4_out, NULL,            NULL},
    {"rank8_axis7",
     8, {2, 1, 1, 1, 1, 1, 1, 3}, {2, 1, 1, 1, 1, 1, 1, 1}, 7,
     k_8d_in,    k_8d_axis7_idx, k_8d_axis7_upd, k_8d_axis7_out, NULL,            NULL},
    {"broadcast_input_stride0",
     2, {2, 3},                   {2, 1},                   1,
     k_bcast_in, k_bcast_idx,    k_bcast_upd,    k_bcast_out,    k_bcast_strides, NULL},
    {"transposed_output_layout",
     2, {2, 3},                   {2, 1},                   1,
     k_neg_in,   k_neg_idx,      k_neg_upd,      k_neg_out,      NULL,            k_transposed_out},
};
/* clang-format on */

static void run_variant(const sc_case *c, dmlref_tensor_data_type type,
                        dmlref_tensor_data_type itype, int padded)
{
    test_tensor in, idx, upd, out;
    test_tensor *inputs[3] = {&in, &idx, &upd}, *outputs[1] = {&out};
    uint32_t s_in[8], s_idx[8], s_upd[8], s_out[8];
    dmlref_scatter_elements_desc d;
    dmlref_error err;

    tt_init(&in, type, c->rank, c->input_sizes,
            variant_strides(c->input_strides, padded, c->rank, c->input_sizes, 1, s_in), 0);
    tt_init(&idx, itype, c->rank, c->indices_sizes,
            variant_strides(NULL, padded, c->rank, c->indices_sizes, 2, s_idx), 0);
    tt_init(&upd, type, c->rank, c->indices_sizes,
            variant_strides(NULL, padded, c->rank, c->indices_sizes, 1, s_upd), 0);
    tt_init(&out, type, c->rank, c->input_sizes,
            variant_strides(c->output_strides, padded, c->rank, c->input_sizes, 1, s_out),
            padded ? 8 : 0);
    tt_set_values(&in, c->input);
    tt_set_indices(&idx, c->indices);
    tt_set_values(&upd, c->updates);
    d.InputTensor = &in.desc, d.IndicesTensor = &idx.desc, d.UpdatesTensor = &upd.desc;
    d.OutputTensor = &out.desc, d.Axis = c->axis;

    if (tt_execute(DMLREF_OPERATOR_SCATTER_ELEMENTS, &d, DMLREF_FEATURE_LEVEL_LATEST,
                   DMLREF_OOB_ERROR, inputs, 3, outputs, 1, &err) != DMLREF_OK)
        fail_msg("%s %s/%s: %s", c->name, dmlref_data_type_name(type), dmlref_data_type_name(itype),
                 err.message);
    if (!tt_equals_values(&out, c->expected))
        fail_msg("%s %s/%s padded=%d: wrong output", c->name, dmlref_data_type_name(type),
                 dmlref_data_type_name(itype), padded);
    assert_true(tt_guards_intact(&out));
    assert_true(tt_padding_intact(&out));
    assert_true(tt_padding_intact(&in) && tt_padding_intact(&upd));
    tt_free(&in), tt_free(&idx), tt_free(&upd), tt_free(&out);
}

/* Ensure the row's output for all 11 data types x every usable index type,
   packed and padded (R-SC-8, R-SC-9, R-IX-2, D4). */
static void run_row(void **state)
{
    const sc_case *c = *state;
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

/* Ensure untargeted elements keep the input's bits and targeted ones get the
   update's bits, for NaN payloads, -0.0 and subnormals (R-SC-8, D12). */
static void test_scatter_moves_bits_exactly(void **state)
{
    static const uint64_t input_bits[4] = {0x7FF0000000000001ull, 0x8000000000000000ull,
                                           0x0000000000000001ull, 0xFFF8000000000ABCull};
    static const uint64_t update_bits[2] = {0x7FF4000000000123ull, 0x800FFFFFFFFFFFFFull};
    static const int64_t indices[2] = {3, 0};
    uint32_t t;
    (void)state;
    for (t = 0; t < 11; ++t) {
        dmlref_tensor_data_type type = k_all_data_types[t];
        uint32_t es = dmlref_data_type_size(type), n_in = 4, n_idx = 2, i;
        unsigned char in_raw[32], upd_raw[16], got[32];
        test_tensor in, idx, upd, out;
        test_tensor *inputs[3] = {&in, &idx, &upd}, *outputs[1] = {&out};
        dmlref_scatter_elements_desc d;
        dmlref_error err;
        for (i = 0; i < 4; ++i)
            memcpy(in_raw + i * es, &input_bits[i], es);
        for (i = 0; i < 2; ++i)
            memcpy(upd_raw + i * es, &update_bits[i], es);
        tt_init(&in, type, 1, &n_in, NULL, 0);
        tt_init(&idx, DMLREF_TENSOR_DATA_TYPE_UINT64, 1, &n_idx, NULL, 0);
        tt_init(&upd, type, 1, &n_idx, NULL, 0);
        tt_init(&out, type, 1, &n_in, NULL, 0);
        tt_set_raw(&in, in_raw);
        tt_set_indices(&idx, indices);
        tt_set_raw(&upd, upd_raw);
        d.InputTensor = &in.desc, d.IndicesTensor = &idx.desc, d.UpdatesTensor = &upd.desc;
        d.OutputTensor = &out.desc, d.Axis = 0;
        assert_int_equal(tt_execute(DMLREF_OPERATOR_SCATTER_ELEMENTS, &d,
                                    DMLREF_FEATURE_LEVEL_LATEST, DMLREF_OOB_ERROR, inputs, 3,
                                    outputs, 1, &err),
                         DMLREF_OK);
        tt_get_raw(&out, got);
        assert_memory_equal(got + 0 * es, upd_raw + 1 * es, es);
        assert_memory_equal(got + 1 * es, in_raw + 1 * es, es);
        assert_memory_equal(got + 2 * es, in_raw + 2 * es, es);
        assert_memory_equal(got + 3 * es, upd_raw + 0 * es, es);
        tt_free(&in), tt_free(&idx), tt_free(&upd), tt_free(&out);
    }
}

/* Ensure Scatter undoes GatherElements (R-SC-13): gathering along an axis
   with a permutation and scattering the result back with the same indices
   gives the original tensor. */
static void test_scatter_is_the_inverse_of_gather_elements(void **state)
{
    static const double values[] = {1, 2, 3, 4, /**/ 5, 6, 7, 8, /**/ 9, 10, 11, 12};
    static const int64_t perm[] = {3, 0, 2, 1, /**/ 1, 3, 0, 2, /**/ 2, 1, 3, 0};
    static const double zeros[12] = {0};
    uint32_t sizes[2] = {3, 4};
    test_tensor in, idx, gathered, back, base;
    test_tensor *g_in[2] = {&in, &idx}, *g_out[1] = {&gathered};
    test_tensor *s_in[3] = {&base, &idx, &gathered}, *s_out[1] = {&back};
    dmlref_gather_elements_desc g;
    dmlref_scatter_elements_desc s;
    dmlref_error err;
    (void)state;
    tt_init(&in, DMLREF_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL, 0);
    tt_init(&idx, DMLREF_TENSOR_DATA_TYPE_INT32, 2, sizes, NULL, 0);
    tt_init(&gathered, DMLREF_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL, 0);
    tt_init(&base, DMLREF_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL, 0);
    tt_init(&back, DMLREF_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL, 0);
    tt_set_values(&in, values);
    tt_set_indices(&idx, perm);
    tt_set_values(&base, zeros);
    g.InputTensor = &in.desc, g.IndicesTensor = &idx.desc, g.OutputTensor = &gathered.desc;
    g.Axis = 1;
    s.InputTensor = &base.desc, s.IndicesTensor = &idx.desc, s.UpdatesTensor = &gathered.desc;
    s.OutputTensor = &back.desc, s.Axis = 1;
    assert_int_equal(tt_execute(DMLREF_OPERATOR_GATHER_ELEMENTS, &g, DMLREF_FEATURE_LEVEL_3_0,
                                DMLREF_OOB_ERROR, g_in, 2, g_out, 1, &err),
                     DMLREF_OK);
    assert_int_equal(tt_execute(DMLREF_OPERATOR_SCATTER, &s, DMLREF_FEATURE_LEVEL_3_0,
                                DMLREF_OOB_ERROR, s_in, 3, s_out, 1, &err),
                     DMLREF_OK);
    assert_true(tt_equals_values(&back, values));
    tt_free(&in), tt_free(&idx), tt_free(&gathered), tt_free(&base), tt_free(&back);
}

/* Ensure an out-of-range scatter index fails before anything is written:
   the output keeps its fill bytes, even the copy of the input is not made
   (D2); the message names the first bad index and the output's axis. */
static void test_scatter_out_of_range_writes_nothing(void **state)
{
    static const double values[] = {1, 2, 3, 4};
    static const int64_t indices[] = {0, 1, -5, 9};
    static const double updates[] = {5, 6, 7, 8};
    uint32_t n = 4;
    test_tensor in, idx, upd, out;
    test_tensor *inputs[3] = {&in, &idx, &upd}, *outputs[1] = {&out};
    dmlref_scatter_elements_desc d;
    dmlref_error err;
    (void)state;
    tt_init(&in, DMLREF_TENSOR_DATA_TYPE_FLOAT16, 1, &n, NULL, 0);
    tt_init(&idx, DMLREF_TENSOR_DATA_TYPE_INT64, 1, &n, NULL, 0);
    tt_init(&upd, DMLREF_TENSOR_DATA_TYPE_FLOAT16, 1, &n, NULL, 0);
    tt_init(&out, DMLREF_TENSOR_DATA_TYPE_FLOAT16, 1, &n, NULL, 0);
    tt_set_values(&in, values);
    tt_set_indices(&idx, indices);
    tt_set_values(&upd, updates);
    d.InputTensor = &in.desc, d.IndicesTensor = &idx.desc, d.UpdatesTensor = &upd.desc;
    d.OutputTensor = &out.desc, d.Axis = 0;
    assert_int_equal(tt_execute(DMLREF_OPERATOR_SCATTER_ELEMENTS, &d, DMLREF_FEATURE_LEVEL_LATEST,
                                DMLREF_OOB_ERROR, inputs, 3, outputs, 1, &err),
                     DMLREF_ERROR_INDEX_OUT_OF_RANGE);
    assert_string_equal(err.rule, "D2");
    assert_non_null(strstr(err.message, "SCATTER_ELEMENTS: IndicesTensor[2] = -5 is out of range "
                                        "for OutputTensor.Sizes[0] = 4 (valid: -4 to 3)"));
    assert_true(tt_untouched(&out));

    /* the same under DMLREF_OOB_CLAMP: -5 lands on 0, 9 on 3 */
    {
        static const double clamped[] = {7, 6, 3, 8};
        assert_int_equal(tt_execute(DMLREF_OPERATOR_SCATTER_ELEMENTS, &d,
                                    DMLREF_FEATURE_LEVEL_LATEST, DMLREF_OOB_CLAMP, inputs, 3,
                                    outputs, 1, &err),
                         DMLREF_OK);
        assert_true(tt_equals_values(&out, clamped));
    }
    tt_free(&in), tt_free(&idx), tt_free(&upd), tt_free(&out);
}

/* Ensure more indices along Axis than the input has is refused (R-SC-4,
   D16: DirectML 1.15.4 refuses it): dmlref_validate() and dmlref_execute()
   answer SIZE_MISMATCH naming both sizes, at FL 2_0 (the DML_SCATTER alias)
   as at the latest, under DMLREF_OOB_CLAMP too, and nothing is written. */
static void test_scatter_refuses_more_indices_than_the_axis(void **state)
{
    static const double values[] = {1, 2};
    static const int64_t indices[] = {1, 0, 1};
    static const double updates[] = {5, 6, 7};
    static const dmlref_operator_type types[2] = {DMLREF_OPERATOR_SCATTER_ELEMENTS,
                                                  DMLREF_OPERATOR_SCATTER};
    static const dmlref_feature_level levels[2] = {DMLREF_FEATURE_LEVEL_LATEST,
                                                   DMLREF_FEATURE_LEVEL_2_0};
    uint32_t in_sizes[4] = {1, 1, 1, 2}, idx_sizes[4] = {1, 1, 1, 3}, k;
    test_tensor in, idx, upd, out;
    test_tensor *inputs[3] = {&in, &idx, &upd}, *outputs[1] = {&out};
    dmlref_scatter_elements_desc d;
    dmlref_operator_desc op;
    dmlref_error err;
    (void)state;
    tt_init(&in, DMLREF_TENSOR_DATA_TYPE_FLOAT16, 4, in_sizes, NULL, 0);
    tt_init(&idx, DMLREF_TENSOR_DATA_TYPE_UINT32, 4, idx_sizes, NULL, 0);
    tt_init(&upd, DMLREF_TENSOR_DATA_TYPE_FLOAT16, 4, idx_sizes, NULL, 0);
    tt_init(&out, DMLREF_TENSOR_DATA_TYPE_FLOAT16, 4, in_sizes, NULL, 0);
    tt_set_values(&in, values);
    tt_set_indices(&idx, indices);
    tt_set_values(&upd, updates);
    d.InputTensor = &in.desc, d.IndicesTensor = &idx.desc, d.UpdatesTensor = &upd.desc;
    d.OutputTensor = &out.desc, d.Axis = 3;
    for (k = 0; k < 2; ++k) {
        op.Type = types[k], op.Desc = &d;
        assert_int_equal(dmlref_validate(&op, levels[k], &err), DMLREF_ERROR_SIZE_MISMATCH);
        assert_string_equal(err.rule, "R-SC-4");
        assert_non_null(strstr(err.message, "IndicesTensor.Sizes[3] = 3 must not exceed "
                                            "InputTensor.Sizes[3] = 2 (Axis)"));
        assert_int_equal(
            tt_execute(types[k], &d, levels[k], DMLREF_OOB_CLAMP, inputs, 3, outputs, 1, &err),
            DMLREF_ERROR_SIZE_MISMATCH);
        assert_string_equal(err.rule, "R-SC-4");
        assert_true(tt_untouched(&out));
    }
    tt_free(&in), tt_free(&idx), tt_free(&upd), tt_free(&out);
}

/* Ensure Scatter runs at FL 2_0, where it was introduced (R-SC-12, D17):
   4-D FLOAT16 with UINT32 indices, through the DML_SCATTER alias. */
static void test_scatter_runs_at_feature_level_2_0(void **state)
{
    static const double values[] = {1, 2, 3, /**/ 4, 5, 6};
    static const int64_t indices[] = {1, 0, 1};
    static const double updates[] = {9, 8, 7};
    static const double expected[] = {1, 8, 3, /**/ 9, 5, 7};
    uint32_t sizes[4] = {1, 1, 2, 3}, idx_sizes[4] = {1, 1, 1, 3};
    test_tensor in, idx, upd, out;
    test_tensor *inputs[3] = {&in, &idx, &upd}, *outputs[1] = {&out};
    dmlref_scatter_desc d; /* DML_SCATTER_OPERATOR_DESC: the same struct */
    dmlref_error err;
    (void)state;
    tt_init(&in, DMLREF_TENSOR_DATA_TYPE_FLOAT16, 4, sizes, NULL, 0);
    tt_init(&idx, DMLREF_TENSOR_DATA_TYPE_UINT32, 4, idx_sizes, NULL, 0);
    tt_init(&upd, DMLREF_TENSOR_DATA_TYPE_FLOAT16, 4, idx_sizes, NULL, 0);
    tt_init(&out, DMLREF_TENSOR_DATA_TYPE_FLOAT16, 4, sizes, NULL, 0);
    tt_set_values(&in, values);
    tt_set_indices(&idx, indices);
    tt_set_values(&upd, updates);
    d.InputTensor = &in.desc, d.IndicesTensor = &idx.desc, d.UpdatesTensor = &upd.desc;
    d.OutputTensor = &out.desc, d.Axis = 2;
    assert_int_equal(tt_execute(DMLREF_OPERATOR_SCATTER, &d, DMLREF_FEATURE_LEVEL_2_0,
                                DMLREF_OOB_ERROR, inputs, 3, outputs, 1, &err),
                     DMLREF_OK);
    assert_true(tt_equals_values(&out, expected));
    tt_free(&in), tt_free(&idx), tt_free(&upd), tt_free(&out);
}

int main(void)
{
    const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_scatter_moves_bits_exactly),
        cmocka_unit_test(test_scatter_is_the_inverse_of_gather_elements),
        cmocka_unit_test(test_scatter_out_of_range_writes_nothing),
        cmocka_unit_test(test_scatter_runs_at_feature_level_2_0),
        cmocka_unit_test(test_scatter_refuses_more_indices_than_the_axis),
    };
    return run_table_tests("scatter_elements", k_cases, sizeof k_cases[0],
                           sizeof k_cases / sizeof k_cases[0], run_row, fixed,
                           sizeof fixed / sizeof fixed[0]);
}
