/*
 * test_api.c - the public names and numbers: DirectML's enum values, status
 * names, version, name lookups and the operators' table behind them,
 * DMLCalcBufferTensorSize (R-TD-3..5, R-TD-7, R-TD-10), and the output
 * shapes of dmlref_infer_output_sizes (R-GE-4, R-SC-6, R-GN-1..4 and 7,
 * R-NZ-1..5, D10).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "testlib.h"

#include "core/core.h" /* the operators' table */

/* DirectML's numbers, pinned at compile time (a negative array size fails). */
#define PIN(name, value) typedef char pin_##name[(name) == (value) ? 1 : -1]
PIN(DMLREF_TENSOR_DATA_TYPE_UNKNOWN, 0);
PIN(DMLREF_TENSOR_DATA_TYPE_FLOAT32, 1);
PIN(DMLREF_TENSOR_DATA_TYPE_FLOAT16, 2);
PIN(DMLREF_TENSOR_DATA_TYPE_UINT32, 3);
PIN(DMLREF_TENSOR_DATA_TYPE_UINT16, 4);
PIN(DMLREF_TENSOR_DATA_TYPE_UINT8, 5);
PIN(DMLREF_TENSOR_DATA_TYPE_INT32, 6);
PIN(DMLREF_TENSOR_DATA_TYPE_INT16, 7);
PIN(DMLREF_TENSOR_DATA_TYPE_INT8, 8);
PIN(DMLREF_TENSOR_DATA_TYPE_FLOAT64, 9);
PIN(DMLREF_TENSOR_DATA_TYPE_UINT64, 10);
PIN(DMLREF_TENSOR_DATA_TYPE_INT64, 11);
PIN(DMLREF_FEATURE_LEVEL_1_0, 0x1000);
PIN(DMLREF_FEATURE_LEVEL_2_0, 0x2000);
PIN(DMLREF_FEATURE_LEVEL_2_1, 0x2100);
PIN(DMLREF_FEATURE_LEVEL_3_0, 0x3000);
PIN(DMLREF_FEATURE_LEVEL_3_1, 0x3100);
PIN(DMLREF_FEATURE_LEVEL_4_0, 0x4000);
PIN(DMLREF_FEATURE_LEVEL_4_1, 0x4100);
PIN(DMLREF_FEATURE_LEVEL_5_0, 0x5000);
PIN(DMLREF_FEATURE_LEVEL_5_1, 0x5100);
PIN(DMLREF_FEATURE_LEVEL_5_2, 0x5200);
PIN(DMLREF_FEATURE_LEVEL_6_0, 0x6000);
PIN(DMLREF_FEATURE_LEVEL_6_1, 0x6100);
PIN(DMLREF_FEATURE_LEVEL_6_2, 0x6200);
PIN(DMLREF_FEATURE_LEVEL_6_3, 0x6300);
PIN(DMLREF_FEATURE_LEVEL_6_4, 0x6400);
PIN(DMLREF_FEATURE_LEVEL_LATEST, 0x6400); /* D19 */
PIN(DMLREF_OPERATOR_SCATTER_ELEMENTS, 94);
PIN(DMLREF_OPERATOR_SCATTER, 94);
PIN(DMLREF_OPERATOR_GATHER_ELEMENTS, 107);
PIN(DMLREF_OPERATOR_GATHER_ND, 108);
PIN(DMLREF_OPERATOR_NONZERO_COORDINATES, 133);
PIN(DMLREF_OPERATOR_GATHER_ND1, 140);
PIN(DMLREF_TENSOR_FLAG_OWNED_BY_DML, 1);
PIN(DMLREF_OK, 0);
PIN(DMLREF_ERROR_INDEX_OUT_OF_RANGE, 50);

/* Ensure status names round-trip, are unique, and unknown values are named
   DMLREF_ERROR_UNKNOWN. */
static void test_status_names_round_trip(void **state)
{
    int value, named = 0;
    (void)state;
    for (value = 0; value < 100; ++value) {
        const char *name = dmlref_status_name((dmlref_status)value);
        dmlref_status back;
        if (strcmp(name, "DMLREF_ERROR_UNKNOWN") == 0)
            continue;
        ++named;
        assert_true(dmlref_status_from_name(name, &back));
        assert_int_equal(back, value);
    }
    assert_int_equal(named, 27);
    assert_string_equal(dmlref_status_name(DMLREF_ERROR_INDEX_OUT_OF_RANGE),
                        "DMLREF_ERROR_INDEX_OUT_OF_RANGE");
    assert_false(dmlref_status_from_name("DMLREF_ERROR_NOPE", NULL));
}

/* Ensure the version functions agree with the header's macros. */
static void test_version_matches_header(void **state)
{
    char expected[32];
    (void)state;
    snprintf(expected, sizeof expected, "%d.%d.%d", DMLREF_VERSION_MAJOR, DMLREF_VERSION_MINOR,
             DMLREF_VERSION_PATCH);
    assert_string_equal(dmlref_version_string(), expected);
    assert_int_equal(dmlref_version_number(), DMLREF_VERSION_NUMBER);
}

/* Ensure data type names, sizes and lookups for all 11 types, and that an
   unknown type has size 0 and no name. */
static void test_data_type_names_and_sizes(void **state)
{
    static const uint32_t sizes[12] = {0, 4, 2, 4, 2, 1, 4, 2, 1, 8, 8, 8};
    int t;
    (void)state;
    for (t = 1; t <= 11; ++t) {
        dmlref_tensor_data_type back;
        const char *name = dmlref_data_type_name((dmlref_tensor_data_type)t);
        assert_non_null(name);
        assert_int_equal(dmlref_data_type_size((dmlref_tensor_data_type)t), sizes[t]);
        assert_true(dmlref_data_type_from_name(name, &back));
        assert_int_equal(back, t);
    }
    assert_null(dmlref_data_type_name(DMLREF_TENSOR_DATA_TYPE_UNKNOWN));
    assert_int_equal(dmlref_data_type_size((dmlref_tensor_data_type)12), 0); /* UINT4 */
    assert_false(dmlref_data_type_from_name("BFLOAT16", NULL));
}

/* Ensure operator names, the SCATTER alias, and the levels each operator
   was introduced at (R-SC-12, D17). */
static void test_operator_names_and_introduction(void **state)
{
    dmlref_operator_type type;
    (void)state;
    assert_string_equal(dmlref_operator_name(DMLREF_OPERATOR_SCATTER), "SCATTER_ELEMENTS");
    assert_true(dmlref_operator_from_name("SCATTER", &type));
    assert_int_equal(type, DMLREF_OPERATOR_SCATTER_ELEMENTS);
    assert_true(dmlref_operator_from_name("GATHER_ND1", &type));
    assert_int_equal(type, 140);
    assert_false(dmlref_operator_from_name("GATHER", &type));
    assert_int_equal(dmlref_operator_introduced(DMLREF_OPERATOR_SCATTER), DMLREF_FEATURE_LEVEL_2_0);
    assert_int_equal(dmlref_operator_introduced(DMLREF_OPERATOR_GATHER_ELEMENTS),
                     DMLREF_FEATURE_LEVEL_2_1);
    assert_int_equal(dmlref_operator_introduced(DMLREF_OPERATOR_GATHER_ND),
                     DMLREF_FEATURE_LEVEL_2_1);
    assert_int_equal(dmlref_operator_introduced(DMLREF_OPERATOR_NONZERO_COORDINATES),
                     DMLREF_FEATURE_LEVEL_3_0);
    assert_int_equal(dmlref_operator_introduced(DMLREF_OPERATOR_GATHER_ND1),
                     DMLREF_FEATURE_LEVEL_3_0);
    assert_int_equal(dmlref_operator_introduced((dmlref_operator_type)67), 0);
}

/* Ensure every row of the operators' table is whole and agrees with the
   public names: its lookups find it, its tensors are the inputs then the
   outputs within the limits the layers above size their arrays by, index
   tuples are indices, and it names every function. */
static void test_operator_table_rows_are_consistent(void **state)
{
    size_t i, j;
    (void)state;
    assert_int_equal(operator_count(), 5);
    assert_null(operator_at(operator_count()));
    assert_null(operator_find((dmlref_operator_type)67));
    assert_null(operator_find_name("GATHER"));
    assert_ptr_equal(operator_find_name("SCATTER"), operator_find(DMLREF_OPERATOR_SCATTER));
    for (i = 0; i < operator_count(); ++i) {
        const operator_info *row = operator_at(i);
        dmlref_operator_type type;
        assert_ptr_equal(operator_find(row->type), row);
        assert_ptr_equal(operator_find_name(row->name), row);
        assert_true(dmlref_operator_from_name(row->name, &type));
        assert_int_equal(type, row->type);
        assert_string_equal(dmlref_operator_name(row->type), row->name);
        assert_int_equal(dmlref_operator_introduced(row->type), row->introduced);
        assert_non_null(dmlref_feature_level_name(row->introduced));
        assert_true(row->introduced_rule && row->introduced_rule[0]);
        assert_true(row->desc_size > 0 && row->desc_size <= OPERATOR_DESC_CAPACITY);
        assert_true(row->input_count >= 1 && row->input_count <= OPERATOR_MAX_INPUTS);
        assert_true(row->output_count >= 1 && row->output_count <= OPERATOR_MAX_OUTPUTS);
        assert_true(row->input_count + row->output_count <= OPERATOR_MAX_TENSORS);
        assert_true(row->attribute_count <= OPERATOR_MAX_ATTRIBUTES);
        for (j = 0; j < row->input_count + row->output_count; ++j) {
            const operator_slot *t = &row->tensors[j];
            assert_non_null(t->name);
            assert_int_equal((t->flags & OPERATOR_SLOT_OUTPUT) != 0, j >= row->input_count);
            if (t->flags & OPERATOR_SLOT_INDEX_TUPLES)
                assert_true(t->flags & OPERATOR_SLOT_INDICES);
            assert_true(t->offset + sizeof(const dmlref_tensor_desc *) <= row->desc_size);
        }
        for (j = 0; j < row->attribute_count; ++j) {
            assert_non_null(row->attributes[j].name);
            assert_true(row->attributes[j].offset + sizeof(uint32_t) <= row->desc_size);
        }
        assert_non_null(row->validate);
        assert_non_null(row->infer_output_sizes);
        assert_non_null(row->reference);
        assert_non_null(row->fast);
    }
}

/* Ensure feature level names and lookups ("3_0" and "3.0"); 3_1 is 0x3100,
   not 0x3001 as the enum page's listing would read in C. */
static void test_feature_level_names(void **state)
{
    dmlref_feature_level level;
    (void)state;
    assert_string_equal(dmlref_feature_level_name(DMLREF_FEATURE_LEVEL_3_1), "3_1");
    assert_true(dmlref_feature_level_from_name("3_1", &level));
    assert_int_equal(level, 0x3100);
    assert_true(dmlref_feature_level_from_name("6.4", &level));
    assert_int_equal(level, 0x6400);
    assert_false(dmlref_feature_level_from_name("3_2", &level));
    assert_false(dmlref_feature_level_from_name("30", &level));
    assert_null(dmlref_feature_level_name((dmlref_feature_level)0x3001));
}

/* ---- DMLCalcBufferTensorSize (R-TD-10) ------------------------------------ */

typedef struct size_case {
    const char *what;
    dmlref_tensor_data_type type;
    uint32_t rank;
    uint32_t sizes[8];
    int strided;
    uint32_t strides[8];
    uint64_t expected;
} size_case;

/* clang-format off */
static const size_case k_sizes[] = {
    /* the worked values of the specification */
    {"FLOAT16 {1,1,2,3} packed",                                DMLREF_TENSOR_DATA_TYPE_FLOAT16,
     4, {1, 1, 2, 3},   0, {0},            12},
    {"FLOAT16 {3}: 6 bytes rounded up to 8",                    DMLREF_TENSOR_DATA_TYPE_FLOAT16,
     1, {3},            0, {0},            8},
    {"UINT8 {5}: rounded up to 8",                              DMLREF_TENSOR_DATA_TYPE_UINT8,
     1, {5},            0, {0},            8},
    {"FLOAT32 {2,3} broadcast rows (R-TD-6)",                   DMLREF_TENSOR_DATA_TYPE_FLOAT32,
     2, {2, 3},         1, {0, 1},         12},
    {"FLOAT32 {1,1,3,5} NHWC-like strides",                     DMLREF_TENSOR_DATA_TYPE_FLOAT32,
     4, {1, 1, 3, 5},   1, {15, 1, 5, 1},  60},
    {"FLOAT32 {2,3} padded rows (strides in elements, R-TD-3)", DMLREF_TENSOR_DATA_TYPE_FLOAT32,
     2, {2, 3},         1, {5, 1},         32},
    {"explicit packed strides equal NULL (R-TD-5)",             DMLREF_TENSOR_DATA_TYPE_FLOAT32,
     4, {1, 1, 3, 5},   1, {15, 15, 5, 1}, 60},
    {"INT64 {7}",                                               DMLREF_TENSOR_DATA_TYPE_INT64,
     1, {7},            0, {0},            56},
    {"all strides 0: one element",                              DMLREF_TENSOR_DATA_TYPE_INT8,
     3, {4, 5, 6},      1, {0, 0, 0},      4},
    /* beyond 4 GiB: 64-bit throughout */
    {"FLOAT32 {65536,65536}: 16 GiB",                           DMLREF_TENSOR_DATA_TYPE_FLOAT32,
     2, {65536, 65536}, 0, {0},            17179869184ull},
    {"UINT8 {2^32-1} strided by 2^32-1: just under 2^64",       DMLREF_TENSOR_DATA_TYPE_UINT8,
     1, {4294967295u},  1, {4294967295u},  18446744060824649732ull},
    {"FLOAT64 {2^32-1} strided by 2^32-1 overflows 64 bits",    DMLREF_TENSOR_DATA_TYPE_FLOAT64,
     1, {4294967295u},  1, {4294967295u},  0},
    /* invalid descriptions give 0 */
    {"a size of 0",                                             DMLREF_TENSOR_DATA_TYPE_FLOAT32,
     2, {2, 0},         0, {0},            0},
    {"DimensionCount 0",                                        DMLREF_TENSOR_DATA_TYPE_FLOAT32,
     0, {0},            0, {0},            0},
    {"DimensionCount 9",                                        DMLREF_TENSOR_DATA_TYPE_FLOAT32,
     9, {1},            0, {0},            0},
    {"unknown type",                                            DMLREF_TENSOR_DATA_TYPE_UNKNOWN,
     1, {4},            0, {0},            0},
    {"eight sizes of 2^32-1 overflow 64 bits",                  DMLREF_TENSOR_DATA_TYPE_FLOAT64,
     8, {4294967295u, 4294967295u, 4294967295u, 4294967295u,
         4294967295u, 4294967295u, 4294967295u, 4294967295u}, 0, {0}, 0},
};
/* clang-format on */

/* Ensure each worked value of DMLCalcBufferTensorSize, and 0 for invalid or
   overflowing descriptions. */
static void test_calc_buffer_tensor_size_worked_values(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < sizeof k_sizes / sizeof k_sizes[0]; ++i) {
        const size_case *c = &k_sizes[i];
        uint64_t got = dmlref_calc_buffer_tensor_size(c->type, c->rank, c->sizes,
                                                      c->strided ? c->strides : NULL);
        if (got != c->expected)
            fail_msg("%s: got %llu, expected %llu", c->what, (unsigned long long)got,
                     (unsigned long long)c->expected);
    }
    assert_int_equal(dmlref_calc_buffer_tensor_size(DMLREF_TENSOR_DATA_TYPE_FLOAT32, 1, NULL, NULL),
                     0);
}

/* Ensure strides are unsigned element counts (R-TD-7): the descriptor's
   Strides point to uint32_t, so a "negative" stride is a huge one and the
   minimum size grows instead of wrapping. */
static void test_strides_are_unsigned(void **state)
{
    uint32_t sizes[1] = {2}, strides[1] = {0xFFFFFFFFu};
    dmlref_tensor_desc t;
    (void)state;
    t.Strides = strides;
    assert_true(sizeof t.Strides[0] == 4 && (uint32_t)-1 == t.Strides[0]);
    assert_int_equal(
        dmlref_calc_buffer_tensor_size(DMLREF_TENSOR_DATA_TYPE_UINT8, 1, sizes, strides),
        0x100000000ull);
}

/* ---- output shapes (dmlref_infer_output_sizes) ------------------------------ */

#define L(x) DMLREF_FEATURE_LEVEL_##x
#define INFER_SIZES_UNTOUCHED 0xEEEEEEEEu

typedef struct infer_case {
    const char *what;
    dmlref_operator_type op;
    dmlref_feature_level level; /* 0: the latest */
    uint32_t attributes[3];     /* Axis, or InputDimensionCount, IndicesDimensionCount
                                   (, BatchDimensionCount) */
    uint32_t input_rank, input_sizes[8];
    uint32_t indices_rank, indices_sizes[8]; /* GatherElements, Scatter, GatherND */
    uint32_t output;                         /* output_index */
    /* success: the sizes; and the output with them passes dmlref_validate */
    uint32_t rank, sizes[8];
    /* failure: the status, rule and a piece of the message; with
       same_as_validate, dmlref_validate on the whole descriptor (outputs of
       the input's shape) fails with the same status, rule and message */
    dmlref_status status;
    const char *rule;
    const char *contains;
    int same_as_validate;
} infer_case;

/* clang-format off */
static const infer_case k_infer[] = {
    /* GATHER_ELEMENTS: the indices' sizes (R-GE-4) */
    {"GatherElements, DirectML's example (S-1)",
     DMLREF_OPERATOR_GATHER_ELEMENTS,     0,                            {0},
     2, {3, 3},                   2, {2, 3},                   0, 2, {2, 3},
     DMLREF_OK,                                "", "", 0},
    {"GatherElements along the last axis, 5-D",
     DMLREF_OPERATOR_GATHER_ELEMENTS,     L(3_0),                       {4},
     5, {2, 3, 1, 4, 5},          5, {2, 3, 1, 4, 7},          0, 5, {2, 3, 1, 4, 7},
     DMLREF_OK,                                "", "", 0},
    {"GatherElements: indices with 9 dimensions (R-TD-1)",
     DMLREF_OPERATOR_GATHER_ELEMENTS,     0,                            {0},
     2, {3, 3},                   9, {1, 1, 1, 1, 1, 1, 1, 1}, 0, 0, {0},
     DMLREF_ERROR_INVALID_SIZES,               "R-TD-1",
     "GATHER_ELEMENTS: IndicesTensor.DimensionCount = 9 must be between 1 and 8", 0},
    {"GatherElements has one output",
     DMLREF_OPERATOR_GATHER_ELEMENTS,     0,                            {0},
     2, {3, 3},                   2, {2, 3},                   1, 0, {0},
     DMLREF_ERROR_INVALID_ARGUMENT,            "",
     "GATHER_ELEMENTS: output_index = 1, the operator has 1 output", 0},
    /* SCATTER_ELEMENTS: the input's sizes (R-SC-6) */
    {"Scatter, DirectML's example (S-5)",
     DMLREF_OPERATOR_SCATTER_ELEMENTS,    L(2_1),                       {2},
     4, {1, 1, 3, 3},             4, {1, 1, 2, 3},             0, 4, {1, 1, 3, 3},
     DMLREF_OK,                                "", "", 0},
    {"Scatter by its alias at the latest level",
     DMLREF_OPERATOR_SCATTER,             0,                            {1},
     3, {4, 5, 6},                3, {4, 2, 6},                0, 3, {4, 5, 6},
     DMLREF_OK,                                "", "", 0},
    {"Scatter: an input of 0 dimensions (R-TD-1)",
     DMLREF_OPERATOR_SCATTER_ELEMENTS,    0,                            {0},
     0, {0},                      2, {2, 3},                   0, 0, {0},
     DMLREF_ERROR_INVALID_SIZES,               "R-TD-1",
     "SCATTER_ELEMENTS: InputTensor.DimensionCount = 0 must be between 1 and 8", 0},
    /* GATHER_ND: DirectMLX's shape (R-GN-7) */
    {"GatherND, the corrected formula (S-13)",
     DMLREF_OPERATOR_GATHER_ND,           0,                            {5, 3},
     5, {3, 4, 5, 6, 7},          5, {1, 1, 1, 2, 3},          0, 5, {1, 1, 2, 6, 7},
     DMLREF_OK,                                "", "", 0},
    {"GatherND, whole-slice tuples at 2_1",
     DMLREF_OPERATOR_GATHER_ND,           L(2_1),                       {2, 2},
     4, {1, 1, 2, 2},             4, {1, 1, 2, 1},             0, 4, {1, 1, 2, 2},
     DMLREF_OK,                                "", "", 0},
    {"GatherND: InputDimensionCount 0 (R-GN-2)",
     DMLREF_OPERATOR_GATHER_ND,           0,                            {0, 2},
     2, {2, 2},                   2, {2, 1},                   0, 0, {0},
     DMLREF_ERROR_INVALID_ATTRIBUTE,           "R-GN-2",
     "GATHER_ND: InputDimensionCount = 0 must be between 1 and InputTensor.DimensionCount = 2", 1},
    {"GatherND: IndicesDimensionCount above the rank (R-GN-2)",
     DMLREF_OPERATOR_GATHER_ND,           0,                            {2, 3},
     2, {2, 2},                   2, {2, 1},                   0, 0, {0},
     DMLREF_ERROR_INVALID_ATTRIBUTE,           "R-GN-2",
     "IndicesDimensionCount = 3 must be between 1 and IndicesTensor.DimensionCount = 2", 1},
    {"GatherND: tuples longer than m (R-GN-4)",
     DMLREF_OPERATOR_GATHER_ND,           0,                            {1, 2},
     2, {1, 4},                   2, {3, 2},                   0, 0, {0},
     DMLREF_ERROR_SIZE_MISMATCH,               "R-GN-4",
     "IndicesTensor.Sizes[1] = 2 (coordinates per tuple) must be between 1 and "
     "InputDimensionCount - BatchDimensionCount = 1", 1},
    {"GatherND: an output of more than D dimensions (R-GN-7)",
     DMLREF_OPERATOR_GATHER_ND,           0,                            {3, 3},
     3, {2, 3, 4},                3, {2, 2, 1},                0, 0, {0},
     DMLREF_ERROR_SIZE_MISMATCH,               "R-GN-7",
     "GATHER_ND: the output needs IndicesDimensionCount - 1 + (InputDimensionCount - "
     "BatchDimensionCount - tuple size) = 4 dimensions, more than DimensionCount = 3", 1},
    {"GatherND: indices of another rank (R-GN-1)",
     DMLREF_OPERATOR_GATHER_ND,           0,                            {2, 2},
     3, {1, 2, 2},                2, {2, 1},                   0, 0, {0},
     DMLREF_ERROR_DIMENSION_COUNT_MISMATCH,    "R-GN-1",
     "GATHER_ND: IndicesTensor.DimensionCount = 2 must equal InputTensor.DimensionCount = 3", 1},
    /* GATHER_ND1: batch dimensions */
    {"GatherND1, DirectML's batch example",
     DMLREF_OPERATOR_GATHER_ND1,          L(3_0),                       {3, 3, 1},
     4, {1, 3, 2, 2},             4, {1, 3, 2, 2},             0, 4, {1, 1, 3, 2},
     DMLREF_OK,                                "", "", 0},
    {"GatherND1, 8-D with 3 batch dimensions",
     DMLREF_OPERATOR_GATHER_ND1,          0,                            {8, 6, 3},
     8, {2, 1, 1, 1, 1, 2, 2, 1}, 8, {1, 1, 2, 1, 1, 1, 2, 5}, 0, 8, {1, 1, 1, 2, 1, 1, 1, 2},
     DMLREF_OK,                                "", "", 0},
    {"GatherND1, a batch dimension and a slice",
     DMLREF_OPERATOR_GATHER_ND1,          0,                            {3, 2, 1},
     3, {4, 5, 6},                3, {1, 4, 1},                0, 3, {1, 4, 6},
     DMLREF_OK,                                "", "", 0},
    {"GatherND1: BatchDimensionCount not below q (R-GN-3)",
     DMLREF_OPERATOR_GATHER_ND1,          0,                            {3, 2, 2},
     3, {4, 5, 6},                3, {1, 4, 1},                0, 0, {0},
     DMLREF_ERROR_INVALID_ATTRIBUTE,           "R-GN-3",
     "GATHER_ND1: BatchDimensionCount = 2 must be less than InputDimensionCount = 3 and "
     "IndicesDimensionCount = 2", 1},
    {"GatherND1: tuples longer than m - b (R-GN-4)",
     DMLREF_OPERATOR_GATHER_ND1,          0,                            {3, 2, 1},
     3, {4, 5, 6},                3, {1, 4, 3},                0, 0, {0},
     DMLREF_ERROR_SIZE_MISMATCH,               "R-GN-4",
     "must be between 1 and InputDimensionCount - BatchDimensionCount = 2", 1},
    /* NONZERO_COORDINATES: {1} and {M, N}; the input's rank below 4_0 (D10) */
    {"NonZero: the count",
     DMLREF_OPERATOR_NONZERO_COORDINATES, L(4_0),                       {0},
     2, {2, 3},                   0, {0},                      0, 1, {1},
     DMLREF_OK,                                "", "", 0},
    {"NonZero: the coordinates",
     DMLREF_OPERATOR_NONZERO_COORDINATES, 0,                            {0},
     3, {2, 3, 4},                0, {0},                      1, 2, {24, 3},
     DMLREF_OK,                                "", "", 0},
    {"NonZero: leading 1s count in N",
     DMLREF_OPERATOR_NONZERO_COORDINATES, 0,                            {0},
     3, {1, 1, 5},                0, {0},                      1, 2, {5, 3},
     DMLREF_OK,                                "", "", 0},
    {"NonZero at 3_0: the count takes the input's rank",
     DMLREF_OPERATOR_NONZERO_COORDINATES, L(3_0),                       {0},
     4, {1, 2, 3, 4},             0, {0},                      0, 4, {1, 1, 1, 1},
     DMLREF_OK,                                "", "", 0},
    {"NonZero at 3_0: so do the coordinates",
     DMLREF_OPERATOR_NONZERO_COORDINATES, L(3_1),                       {0},
     5, {1, 2, 3, 4, 1},          0, {0},                      1, 5, {1, 1, 1, 24, 5},
     DMLREF_OK,                                "", "", 0},
    {"NonZero at 3_0: a 1-D input has no room for {M, N} (D10)",
     DMLREF_OPERATOR_NONZERO_COORDINATES, L(3_0),                       {0},
     1, {7},                      0, {0},                      1, 0, {0},
     DMLREF_ERROR_UNSUPPORTED_DIMENSION_COUNT, "D10",
     "below feature level 4_0 OutputCoordinatesTensor takes InputTensor.DimensionCount = 1", 0},
    {"NonZero: M beyond 2^32-1 (R-TD-13)",
     DMLREF_OPERATOR_NONZERO_COORDINATES, 0,                            {0},
     2, {65536, 65536},           0, {0},                      1, 0, {0},
     DMLREF_ERROR_TENSOR_TOO_LARGE,            "R-TD-13",
     "NONZERO_COORDINATES: InputTensor.Sizes = {65536, 65536} has more than 2^32-1 elements", 1},
    {"NonZero has two outputs",
     DMLREF_OPERATOR_NONZERO_COORDINATES, 0,                            {0},
     2, {2, 3},                   0, {0},                      2, 0, {0},
     DMLREF_ERROR_INVALID_ARGUMENT,            "",
     "NONZERO_COORDINATES: output_index = 2, the operator has 2 outputs", 0},
    {"an unknown feature level",
     DMLREF_OPERATOR_NONZERO_COORDINATES, (dmlref_feature_level)0x3001, {0},
     2, {2, 3},                   0, {0},                      0, 0, {0},
     DMLREF_ERROR_INVALID_ARGUMENT,            "",
     "NONZERO_COORDINATES: feature level 0x3001 is not a DirectML feature level", 0},
};
/* clang-format on */

/* A whole descriptor for an infer_case: FLOAT32 data, INT32 indices (UINT32
   below 3_0), the outputs shaped as `out_sizes` (NULL: no outputs at all). */
typedef struct infer_desc {
    dmlref_tensor_desc input, indices, updates, outputs[2];
    uint32_t count_sizes[8];
    union {
        dmlref_gather_elements_desc ge;
        dmlref_scatter_elements_desc sc;
        dmlref_gather_nd_desc nd;
        dmlref_gather_nd1_desc nd1;
        dmlref_nonzero_coordinates_desc nz;
    } d;
    dmlref_operator_desc op;
} infer_desc;

static void infer_tensor(dmlref_tensor_desc *t, dmlref_tensor_data_type type, uint32_t rank,
                         const uint32_t *sizes)
{
    memset(t, 0, sizeof *t);
    t->DataType = type;
    t->DimensionCount = rank;
    t->Sizes = sizes;
    t->TotalTensorSizeInBytes = dmlref_calc_buffer_tensor_size(type, rank, sizes, NULL);
}

static void infer_desc_of(const infer_case *c, infer_desc *x, uint32_t out_rank,
                          const uint32_t *out_sizes, uint32_t coords_rank,
                          const uint32_t *coords_sizes)
{
    const dmlref_tensor_desc *out = out_sizes ? &x->outputs[0] : NULL;
    dmlref_tensor_data_type itype = c->level && c->level < L(3_0) ? DMLREF_TENSOR_DATA_TYPE_UINT32
                                                                  : DMLREF_TENSOR_DATA_TYPE_INT32;
    memset(x, 0, sizeof *x);
    infer_tensor(&x->input, DMLREF_TENSOR_DATA_TYPE_FLOAT32, c->input_rank, c->input_sizes);
    infer_tensor(&x->indices, itype, c->indices_rank, c->indices_sizes);
    infer_tensor(&x->updates, DMLREF_TENSOR_DATA_TYPE_FLOAT32, c->indices_rank, c->indices_sizes);
    if (out_sizes)
        infer_tensor(&x->outputs[0], DMLREF_TENSOR_DATA_TYPE_FLOAT32, out_rank, out_sizes);
    x->op.Type = c->op;
    x->op.Desc = &x->d;
    switch (c->op) {
    case DMLREF_OPERATOR_GATHER_ELEMENTS:
        x->d.ge = (dmlref_gather_elements_desc){&x->input, &x->indices, out, c->attributes[0]};
        break;
    case DMLREF_OPERATOR_SCATTER_ELEMENTS:
        x->d.sc = (dmlref_scatter_elements_desc){&x->input, &x->indices, &x->updates, out,
                                                 c->attributes[0]};
        break;
    case DMLREF_OPERATOR_GATHER_ND:
        x->d.nd = (dmlref_gather_nd_desc){&x->input, &x->indices, out, c->attributes[0],
                                          c->attributes[1]};
        break;
    case DMLREF_OPERATOR_GATHER_ND1:
        x->d.nd1 = (dmlref_gather_nd1_desc){&x->input,        &x->indices,      out,
                                            c->attributes[0], c->attributes[1], c->attributes[2]};
        break;
    default:
        if (out_sizes) {
            infer_tensor(&x->outputs[0], DMLREF_TENSOR_DATA_TYPE_UINT32, out_rank, out_sizes);
            infer_tensor(&x->outputs[1], DMLREF_TENSOR_DATA_TYPE_UINT32, coords_rank, coords_sizes);
        }
        x->d.nz = (dmlref_nonzero_coordinates_desc){&x->input, out, out ? &x->outputs[1] : NULL};
        break;
    }
}

/* Ensure each operator's output shapes (R-GE-4, R-SC-6, R-GN-7 with and
   without batch dimensions, R-NZ-1..5 and D10), read from the inputs and
   attributes alone (the outputs are NULL), that an output of the inferred
   shape passes dmlref_validate, and each error: its status, rule and
   message, the same as dmlref_validate's where it makes the same check, and
   nothing written. */
static void test_infer_output_sizes_every_operator(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < sizeof k_infer / sizeof k_infer[0]; ++i) {
        const infer_case *c = &k_infer[i];
        infer_desc x;
        dmlref_error err;
        uint32_t rank = 77, sizes[8], other_rank, other[8], j;
        dmlref_status status;
        for (j = 0; j < 8; ++j)
            sizes[j] = INFER_SIZES_UNTOUCHED;
        infer_desc_of(c, &x, 0, NULL, 0, NULL);
        status = dmlref_infer_output_sizes(&x.op, c->level, c->output, &rank, sizes, &err);
        if (status != c->status)
            fail_msg("%s: %s, expected %s: %s", c->what, dmlref_status_name(status),
                     dmlref_status_name(c->status), status ? err.message : "");
        if (status != DMLREF_OK) {
            if (strcmp(err.rule, c->rule) != 0 || !strstr(err.message, c->contains))
                fail_msg("%s: rule %s, message \"%s\"; expected %s, \"%s\"", c->what, err.rule,
                         err.message, c->rule, c->contains);
            assert_int_equal(rank, 77);
            assert_int_equal(sizes[0], INFER_SIZES_UNTOUCHED);
            if (c->same_as_validate) {
                /* outputs of the input's shape: validation reaches the same check */
                dmlref_error verr;
                uint32_t ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
                infer_desc_of(c, &x, c->input_rank, c->input_sizes, 2, ones);
                assert_int_equal(dmlref_validate(&x.op, c->level, &verr), status);
                assert_string_equal(verr.rule, err.rule);
                assert_string_equal(verr.message, err.message);
            }
            continue;
        }
        if (rank != c->rank || memcmp(sizes, c->sizes, rank * sizeof *sizes) != 0 ||
            (rank < 8 && sizes[rank] != INFER_SIZES_UNTOUCHED))
            fail_msg("%s: %u sizes {%u, %u, %u, ...}, expected %u {%u, %u, %u, ...}", c->what, rank,
                     sizes[0], sizes[1], sizes[2], c->rank, c->sizes[0], c->sizes[1], c->sizes[2]);
        /* an output of the inferred shape is valid (NonZero: both outputs) */
        if (c->op == DMLREF_OPERATOR_NONZERO_COORDINATES) {
            assert_int_equal(
                dmlref_infer_output_sizes(&x.op, c->level, 1 - c->output, &other_rank, other, &err),
                DMLREF_OK);
            if (c->output == 0)
                infer_desc_of(c, &x, rank, sizes, other_rank, other);
            else
                infer_desc_of(c, &x, other_rank, other, rank, sizes);
        } else {
            infer_desc_of(c, &x, rank, sizes, 0, NULL);
        }
        if (dmlref_validate(&x.op, c->level, &err) != DMLREF_OK)
            fail_msg("%s: an output of the inferred shape is refused: %s", c->what, err.message);
    }
}

/* Ensure the arguments: NULL pointers, an unknown operator, a missing input
   tensor or sizes are DMLREF_ERROR_INVALID_ARGUMENT; err may be NULL. */
static void test_infer_output_sizes_arguments(void **state)
{
    uint32_t in_sizes[2] = {2, 3}, rank, sizes[8];
    dmlref_tensor_desc in;
    dmlref_nonzero_coordinates_desc nz = {&in, NULL, NULL};
    dmlref_operator_desc op = {DMLREF_OPERATOR_NONZERO_COORDINATES, &nz};
    dmlref_operator_desc unknown = {(dmlref_operator_type)67, &nz};
    dmlref_error err;
    (void)state;
    infer_tensor(&in, DMLREF_TENSOR_DATA_TYPE_FLOAT32, 2, in_sizes);
    assert_int_equal(dmlref_infer_output_sizes(&op, 0, 1, &rank, sizes, NULL), DMLREF_OK);
    assert_int_equal(rank, 2);

    assert_int_equal(dmlref_infer_output_sizes(NULL, 0, 0, &rank, sizes, &err),
                     DMLREF_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "dmlref_infer_output_sizes: op is NULL");
    assert_int_equal(dmlref_infer_output_sizes(&op, 0, 0, NULL, sizes, &err),
                     DMLREF_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "dmlref_infer_output_sizes: dimension_count is NULL");
    assert_int_equal(dmlref_infer_output_sizes(&op, 0, 0, &rank, NULL, NULL),
                     DMLREF_ERROR_INVALID_ARGUMENT);
    assert_int_equal(dmlref_infer_output_sizes(&unknown, 0, 0, &rank, sizes, &err),
                     DMLREF_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message,
                        "dmlref_infer_output_sizes: operator type 67 is not one dmlref implements");
    nz.InputTensor = NULL;
    assert_int_equal(dmlref_infer_output_sizes(&op, 0, 0, &rank, sizes, &err),
                     DMLREF_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "NONZERO_COORDINATES: InputTensor is NULL");
    nz.InputTensor = &in;
    in.Sizes = NULL;
    assert_int_equal(dmlref_infer_output_sizes(&op, 0, 0, &rank, sizes, &err),
                     DMLREF_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "NONZERO_COORDINATES: InputTensor.Sizes is NULL");
    op.Desc = NULL;
    assert_int_equal(dmlref_infer_output_sizes(&op, 0, 0, &rank, sizes, &err),
                     DMLREF_ERROR_INVALID_ARGUMENT);
    assert_string_equal(err.message, "dmlref_infer_output_sizes: op->Desc is NULL");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_names_round_trip),
        cmocka_unit_test(test_version_matches_header),
        cmocka_unit_test(test_data_type_names_and_sizes),
        cmocka_unit_test(test_operator_names_and_introduction),
        cmocka_unit_test(test_operator_table_rows_are_consistent),
        cmocka_unit_test(test_feature_level_names),
        cmocka_unit_test(test_calc_buffer_tensor_size_worked_values),
        cmocka_unit_test(test_strides_are_unsigned),
        cmocka_unit_test(test_infer_output_sizes_every_operator),
        cmocka_unit_test(test_infer_output_sizes_arguments),
    };
    return cmocka_run_group_tests_name("api", tests, NULL, NULL);
}
