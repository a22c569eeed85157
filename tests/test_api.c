/*
 * test_api.c - the public names and numbers: DirectML's enum values, status
 * names, version, name lookups, and DMLCalcBufferTensorSize (R-TD-3..5,
 * R-TD-7, R-TD-10).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "testlib.h"

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
    assert_int_equal(dmlref_operator_introduced(DMLREF_OPERATOR_GATHER_ND), DMLREF_FEATURE_LEVEL_2_1);
    assert_int_equal(dmlref_operator_introduced(DMLREF_OPERATOR_NONZERO_COORDINATES),
                     DMLREF_FEATURE_LEVEL_3_0);
    assert_int_equal(dmlref_operator_introduced(DMLREF_OPERATOR_GATHER_ND1),
                     DMLREF_FEATURE_LEVEL_3_0);
    assert_int_equal(dmlref_operator_introduced((dmlref_operator_type)67), 0);
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

static const size_case k_sizes[] = {
    /* the worked values of the specification */
    {"FLOAT16 {1,1,2,3} packed", DMLREF_TENSOR_DATA_TYPE_FLOAT16, 4, {1, 1, 2, 3}, 0, {0}, 12},
    {"FLOAT16 {3}: 6 bytes rounded up to 8", DMLREF_TENSOR_DATA_TYPE_FLOAT16, 1, {3}, 0, {0}, 8},
    {"UINT8 {5}: rounded up to 8", DMLREF_TENSOR_DATA_TYPE_UINT8, 1, {5}, 0, {0}, 8},
    {"FLOAT32 {2,3} broadcast rows (R-TD-6)", DMLREF_TENSOR_DATA_TYPE_FLOAT32, 2, {2, 3}, 1, {0, 1}, 12},
    {"FLOAT32 {1,1,3,5} NHWC-like strides", DMLREF_TENSOR_DATA_TYPE_FLOAT32, 4, {1, 1, 3, 5}, 1, {15, 1, 5, 1}, 60},
    {"FLOAT32 {2,3} padded rows (strides in elements, R-TD-3)", DMLREF_TENSOR_DATA_TYPE_FLOAT32, 2, {2, 3}, 1, {5, 1}, 32},
    {"explicit packed strides equal NULL (R-TD-5)", DMLREF_TENSOR_DATA_TYPE_FLOAT32, 4, {1, 1, 3, 5}, 1, {15, 15, 5, 1}, 60},
    {"INT64 {7}", DMLREF_TENSOR_DATA_TYPE_INT64, 1, {7}, 0, {0}, 56},
    {"all strides 0: one element", DMLREF_TENSOR_DATA_TYPE_INT8, 3, {4, 5, 6}, 1, {0, 0, 0}, 4},
    /* beyond 4 GiB: 64-bit throughout */
    {"FLOAT32 {65536,65536}: 16 GiB", DMLREF_TENSOR_DATA_TYPE_FLOAT32, 2, {65536, 65536}, 0, {0}, 17179869184ull},
    {"UINT8 {2^32-1} strided by 2^32-1: just under 2^64", DMLREF_TENSOR_DATA_TYPE_UINT8, 1, {4294967295u}, 1, {4294967295u}, 18446744060824649732ull},
    {"FLOAT64 {2^32-1} strided by 2^32-1 overflows 64 bits", DMLREF_TENSOR_DATA_TYPE_FLOAT64, 1, {4294967295u}, 1, {4294967295u}, 0},
    /* invalid descriptions give 0 */
    {"a size of 0", DMLREF_TENSOR_DATA_TYPE_FLOAT32, 2, {2, 0}, 0, {0}, 0},
    {"DimensionCount 0", DMLREF_TENSOR_DATA_TYPE_FLOAT32, 0, {0}, 0, {0}, 0},
    {"DimensionCount 9", DMLREF_TENSOR_DATA_TYPE_FLOAT32, 9, {1}, 0, {0}, 0},
    {"unknown type", DMLREF_TENSOR_DATA_TYPE_UNKNOWN, 1, {4}, 0, {0}, 0},
    {"eight sizes of 2^32-1 overflow 64 bits", DMLREF_TENSOR_DATA_TYPE_FLOAT64, 8,
     {4294967295u, 4294967295u, 4294967295u, 4294967295u, 4294967295u, 4294967295u, 4294967295u, 4294967295u}, 0, {0}, 0},
};

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
    assert_int_equal(dmlref_calc_buffer_tensor_size(DMLREF_TENSOR_DATA_TYPE_UINT8, 1, sizes, strides),
                     0x100000000ull);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_names_round_trip),
        cmocka_unit_test(test_version_matches_header),
        cmocka_unit_test(test_data_type_names_and_sizes),
        cmocka_unit_test(test_operator_names_and_introduction),
        cmocka_unit_test(test_feature_level_names),
        cmocka_unit_test(test_calc_buffer_tensor_size_worked_values),
        cmocka_unit_test(test_strides_are_unsigned),
    };
    return cmocka_run_group_tests_name("api", tests, NULL, NULL);
}
