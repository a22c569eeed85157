/*
 * test_vectors.c - the golden vector API (include/dmlref/vector.h): element
 * encoding, generators, what eval decides each output must hold (any_of for
 * Scatter duplicates, null NonZero rows, digests), comparison reports,
 * verify, inference of output sizes, the memory cap and error paths, and
 * permitted variants (format 2): reading, writing, when eval adds them,
 * compare_variant and verify; one memory cap over parse trees, buffers,
 * eval and replies, broadcast inputs filled in proportion to their buffers,
 * aligned buffers, and files that are not regular.
 * (Malformed files are tests/cli/malformed/, run by tests/cli/test_malformed.sh.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "testlib.h"
/* The vector's inside, for one number: the work of filling a buffer
   (test_broadcast_generator_fill_is_proportional_to_the_buffer). */
#include "vector/vector_internal.h"

static dmlref_vector *parse(const char *text, uint32_t flags)
{
    dmlref_vector_read_options options = {0, 0};
    dmlref_vector *v = NULL;
    dmlref_error err;
    options.flags = flags;
    if (dmlref_vector_parse(text, strlen(text), "case.json", &options, &v, &err) != DMLREF_OK)
        fail_msg("%s", err.message);
    return v;
}

/* eval + write: the complete vector's text (caller frees). */
static char *evaluate(const char *case_text)
{
    dmlref_vector *v = parse(case_text, DMLREF_VECTOR_READ_CASE);
    dmlref_error err;
    char *text;
    if (dmlref_vector_eval(v, 0, &err) != DMLREF_OK)
        fail_msg("%s", err.message);
    assert_int_equal(dmlref_vector_write(v, &text, NULL, &err), DMLREF_OK);
    dmlref_vector_free(v);
    return text;
}

static void assert_contains(const char *text, const char *piece)
{
    if (!strstr(text, piece))
        fail_msg("\"%s\" not found in:\n%s", piece, text);
}

/* ---- element encoding ------------------------------------------------------ */

typedef struct encoding {
    dmlref_tensor_data_type type;
    uint64_t bits;
    const char *text;
} encoding;

/* clang-format off */
static const encoding k_encodings[] = {
    {DMLREF_TENSOR_DATA_TYPE_FLOAT32, 0x80000000u, "-0.0"},
    {DMLREF_TENSOR_DATA_TYPE_FLOAT32, 0x00000000u, "0"},
    {DMLREF_TENSOR_DATA_TYPE_FLOAT32, 0x7FC00000u, "\"nan\""},
    {DMLREF_TENSOR_DATA_TYPE_FLOAT32, 0x7FC00001u, "\"0x7fc00001\""},
    {DMLREF_TENSOR_DATA_TYPE_FLOAT32, 0xFF800000u, "\"-inf\""},
    {DMLREF_TENSOR_DATA_TYPE_FLOAT32, 0x3DCCCCCDu, "0.10000000149011612"}, /* float32 0.1 */
    /* 2^60: not an integer text */
    {DMLREF_TENSOR_DATA_TYPE_FLOAT32, 0x5D800000u, "1.152921504606847e+18"},
    {DMLREF_TENSOR_DATA_TYPE_FLOAT32, 0x00000001u, "1.401298464324817e-45"},
    {DMLREF_TENSOR_DATA_TYPE_FLOAT16, 0x7E00u, "\"nan\""},
    {DMLREF_TENSOR_DATA_TYPE_FLOAT16, 0xFC01u, "\"0xfc01\""},
    {DMLREF_TENSOR_DATA_TYPE_FLOAT16, 0x3555u, "0.333251953125"},
    /* 2^-24: shortest is the upper neighbour */
    {DMLREF_TENSOR_DATA_TYPE_FLOAT16, 0x0001u, "5.960464477539063e-08"},
    /* 2^53: no integer text */
    {DMLREF_TENSOR_DATA_TYPE_FLOAT64, 0x4340000000000000ull, "9.007199254740992e+15"},
    {DMLREF_TENSOR_DATA_TYPE_FLOAT64, 0x4350000000000000ull, "1.8014398509481984e+16"}, /* 2^54 */
    {DMLREF_TENSOR_DATA_TYPE_FLOAT64, 0x3FB999999999999Aull, "0.1"},
    {DMLREF_TENSOR_DATA_TYPE_FLOAT64, 0x4034000000000000ull, "20"}, /* integral: no exponent */
    {DMLREF_TENSOR_DATA_TYPE_FLOAT16, 0x7BFFu, "65504"},
    {DMLREF_TENSOR_DATA_TYPE_FLOAT64, 0x7FF8000000000000ull, "\"nan\""},
    {DMLREF_TENSOR_DATA_TYPE_INT8, 0x80u, "-128"},
    {DMLREF_TENSOR_DATA_TYPE_UINT16, 0xFFFFu, "65535"},
    {DMLREF_TENSOR_DATA_TYPE_INT64, 9007199254740992ull, "9007199254740992"},
    {DMLREF_TENSOR_DATA_TYPE_INT64, 9007199254740993ull, "\"9007199254740993\""},
    {DMLREF_TENSOR_DATA_TYPE_INT64, 0x8000000000000000ull, "\"-9223372036854775808\""},
    {DMLREF_TENSOR_DATA_TYPE_UINT64, UINT64_MAX, "\"18446744073709551615\""},
};
/* clang-format on */

/* Ensure each element is written as FORMAT.md says: shortest exact decimals,
   -0.0, the NaN and infinity strings, 64-bit integers as strings beyond
   2^53, large floats with an exponent (never an integer-looking text). */
static void test_format_element_spellings(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < sizeof k_encodings / sizeof k_encodings[0]; ++i) {
        char buf[48];
        dmlref_format_element(k_encodings[i].type, k_encodings[i].bits, buf, sizeof buf);
        if (strcmp(buf, k_encodings[i].text) != 0)
            fail_msg("%s 0x%llx: wrote %s, expected %s", dmlref_data_type_name(k_encodings[i].type),
                     (unsigned long long)k_encodings[i].bits, buf, k_encodings[i].text);
    }
}

/* ---- generators ------------------------------------------------------------- */

/* Ensure the generators follow FORMAT.md: "bits" is SplitMix64 (seed 0 gives
   the generator's well-known first outputs), "index" stays in [low, high]
   per tuple coordinate, "sparse" gives 0 or the type's 1. */
static void test_generators(void **state)
{
    static const char *text =
        "{\"format\": \"dmlref-vector-1\", \"name\": \"g\", \"operator\": \"GATHER_ND\","
        " \"attributes\": {\"InputDimensionCount\": 2, \"IndicesDimensionCount\": 2},"
        " \"tensors\": {\"InputTensor\": {\"dtype\": \"UINT64\", \"sizes\": [3, 4],"
        " \"generator\": {\"kind\": \"bits\", \"seed\": 0}},"
        " \"IndicesTensor\": {\"dtype\": \"INT32\", \"sizes\": [500, 2], \"generator\":"
        " {\"kind\": \"index\", \"seed\": 9, \"low\": [-3, 0], \"high\": [2, 3]}},"
        " \"OutputTensor\": {\"dtype\": \"UINT64\"}}}";
    static const uint64_t splitmix0[3] = {0xE220A8397B1DCDAFull, 0x6E789E6AA1B965F4ull,
                                          0x06C45D188009454Full};
    dmlref_vector *v = parse(text, DMLREF_VECTOR_READ_CASE);
    const uint64_t *input = dmlref_vector_inputs(v)[0].data;
    const int32_t *indices = dmlref_vector_inputs(v)[1].data;
    int seen_low = 0, seen_high = 0, i;
    (void)state;
    assert_memory_equal(input, splitmix0, sizeof splitmix0);
    for (i = 0; i < 1000; ++i) {
        int32_t low = i % 2 ? 0 : -3, high = i % 2 ? 3 : 2;
        assert_true(indices[i] >= low && indices[i] <= high);
        seen_low |= indices[i] == low;
        seen_high |= indices[i] == high;
    }
    assert_true(seen_low && seen_high);
    dmlref_vector_free(v);

    {
        static const char *sparse =
            "{\"format\": \"dmlref-vector-1\", \"name\": \"s\", \"operator\": "
            "\"NONZERO_COORDINATES\", \"tensors\": {\"InputTensor\": {\"dtype\": \"FLOAT16\","
            " \"sizes\": [1000], \"generator\": {\"kind\": \"sparse\", \"seed\": 3, \"density\":"
            " 250000}}, \"OutputCountTensor\": {\"dtype\": \"UINT32\"},"
            " \"OutputCoordinatesTensor\": {\"dtype\": \"UINT32\"}}}";
        const uint16_t *h;
        int ones = 0;
        v = parse(sparse, DMLREF_VECTOR_READ_CASE);
        h = dmlref_vector_inputs(v)[0].data;
        for (i = 0; i < 1000; ++i) {
            assert_true(h[i] == 0 || h[i] == 0x3C00);
            ones += h[i] != 0;
        }
        assert_true(ones > 180 && ones < 320); /* about a quarter */
        dmlref_vector_free(v);
    }
}

/* ---- what eval writes ---------------------------------------------------------- */

/* Ensure a Scatter target hit by several updates becomes any_of with each
   competing bit pattern once, in update order, while single targets keep a
   value and there is no digest (D4, R-SC-10). */
static void test_eval_scatter_duplicates_any_of(void **state)
{
    static const char *text =
        "{\"format\": \"dmlref-vector-1\", \"name\": \"d\", \"operator\": \"SCATTER\","
        " \"attributes\": {\"Axis\": 0}, \"tensors\": {"
        " \"InputTensor\": {\"dtype\": \"INT8\", \"sizes\": [5], \"data\": [1, 2, 3, 4, 5]},"
        " \"IndicesTensor\": {\"dtype\": \"INT64\", \"sizes\": [5], \"data\": [0, -5, 2, 0, 3]},"
        " \"UpdatesTensor\": {\"dtype\": \"INT8\", \"sizes\": [5], \"data\": [9, 8, 7, 9, -6]},"
        " \"OutputTensor\": {\"dtype\": \"INT8\"}}}";
    char *written = evaluate(text);
    (void)state;
    assert_contains(written, "\"expected\": [{\"any_of\": [9, 8]}, 2, 7, -6, 5]");
    assert_true(strstr(strstr(written, "OutputTensor"), "xxh3") == NULL);
    assert_contains(written, "\"name\": \"d\"");
    assert_contains(written, "\"operator\": \"SCATTER_ELEMENTS\"");
    free(written);
}

/* Ensure NonZero rows at or past the count are null (R-NZ-14) and the
   coordinates' digest covers only the rows before the count, so garbage in
   the undefined rows still compares equal. */
static void test_eval_nonzero_nulls_and_prefix_digest(void **state)
{
    static const char *text = "{\"format\": \"dmlref-vector-1\", \"name\": \"n\", \"operator\": "
                              "\"NONZERO_COORDINATES\", \"feature_level\": \"4_0\", \"tensors\": {"
                              " \"InputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [2, 2], "
                              "\"data\": [0, -0.0, \"nan\", 1]},"
                              " \"OutputCountTensor\": {\"dtype\": \"UINT32\"},"
                              " \"OutputCoordinatesTensor\": {\"dtype\": \"UINT32\"}}}";
    char *written = evaluate(text);
    dmlref_vector *v;
    dmlref_binding outputs[2];
    uint32_t count = 2, rows[8] = {1, 0, 1, 1, 77, 77, 77, 77};
    dmlref_error err;
    (void)state;
    assert_contains(written,
                    "\"sizes\": [4, 2], \"expected\": [1, 0, 1, 1, null, null, null, null]");
    assert_contains(written, "\"min_feature_level\": \"4_0\"");
    v = parse(written, 0);
    outputs[0].data = &count, outputs[0].size_in_bytes = 4;
    outputs[1].data = rows, outputs[1].size_in_bytes = sizeof rows;
    assert_int_equal(dmlref_vector_compare(v, outputs, 2, NULL, &err), DMLREF_OK);
    rows[3] = 0; /* a defined element wrong */
    assert_int_equal(dmlref_vector_compare(v, outputs, 2, NULL, &err), DMLREF_ERROR_MISMATCH);
    assert_contains(err.message, "$.tensors.OutputCoordinatesTensor.expected[3]");
    dmlref_vector_free(v);
    free(written);
}

/* Ensure compare names the first wrong element's coordinate, expected and
   got (value and bits) and counts the wrong elements; any_of accepts every
   listed pattern. */
static void test_compare_reports_first_wrong_element(void **state)
{
    static const char *text =
        "{\"format\": \"dmlref-vector-1\", \"name\": \"c\", \"operator\": \"GATHER_ELEMENTS\","
        " \"attributes\": {\"Axis\": 1}, \"tensors\": {"
        " \"InputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [2, 3], \"data\": [1, 2, 3, 4, 5, "
        "6]},"
        " \"IndicesTensor\": {\"dtype\": \"UINT32\", \"sizes\": [2, 3], \"data\": [2, 1, 0, 0, 1, "
        "2]},"
        " \"OutputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [2, 3],"
        " \"expected\": [3, 2, {\"any_of\": [1, 7]}, 4, 5, 6]}}}";
    dmlref_vector *v = parse(text, 0);
    float got[6] = {3, 2, 7, 4, 0.5f, 0};
    dmlref_binding outputs[1] = {{got, sizeof got}};
    dmlref_mismatch m;
    dmlref_error err;
    (void)state;
    assert_int_equal(dmlref_vector_compare(v, outputs, 1, &m, &err), DMLREF_ERROR_MISMATCH);
    assert_int_equal(m.element, 4);
    assert_int_equal(m.coordinate[0], 1);
    assert_int_equal(m.coordinate[1], 1);
    assert_int_equal(m.expected_bits, 0x40A00000u);
    assert_int_equal(m.got_bits, 0x3F000000u);
    assert_int_equal(m.wrong_elements, 2);
    assert_contains(err.message,
                    "case.json: $.tensors.OutputTensor.expected[4]: OutputTensor[1, 1]: "
                    "expected 5 (0x40a00000), got 0.5 (0x3f000000); 2 elements differ");
    got[4] = 5, got[5] = 6, got[2] = 1;
    assert_int_equal(dmlref_vector_compare(v, outputs, 1, NULL, &err), DMLREF_OK);
    dmlref_vector_free(v);
}

/* Ensure verify catches a wrong expected element, a wrong digest and a wrong
   min_feature_level, and accepts the vector eval wrote. */
static void test_verify_catches_tampering(void **state)
{
    static const char *text =
        "{\"format\": \"dmlref-vector-1\", \"name\": \"t\", \"operator\": \"GATHER_ND1\","
        " \"attributes\": {\"InputDimensionCount\": 2, \"IndicesDimensionCount\": 2,"
        " \"BatchDimensionCount\": 1}, \"tensors\": {"
        " \"InputTensor\": {\"dtype\": \"UINT16\", \"sizes\": [2, 3], \"data\": [1, 2, 3, 4, 5, "
        "6]},"
        " \"IndicesTensor\": {\"dtype\": \"INT32\", \"sizes\": [2, 1], \"data\": [-1, 0]},"
        " \"OutputTensor\": {\"dtype\": \"UINT16\"}}}";
    char *written = evaluate(text), *edit;
    dmlref_vector *v;
    dmlref_error err;
    (void)state;
    assert_contains(written, "\"expected\": [3, 4]");
    v = parse(written, 0);
    assert_int_equal(dmlref_vector_verify(v, 0, &err), DMLREF_OK);
    dmlref_vector_free(v);

    edit = strstr(written, "[3, 4]");
    edit[1] = '2'; /* expected [2, 4] */
    v = parse(written, 0);
    assert_int_equal(dmlref_vector_verify(v, 0, &err), DMLREF_ERROR_MISMATCH);
    assert_contains(err.message, "$.tensors.OutputTensor.expected[0]");
    dmlref_vector_free(v);
    edit[1] = '3';

    edit = strstr(written, "\"xxh3\": \"") + 9;
    edit[0] = edit[0] == '0' ? '1' : '0';
    v = parse(written, 0);
    assert_int_equal(dmlref_vector_verify(v, 0, &err), DMLREF_ERROR_MISMATCH);
    assert_contains(err.message, "$.tensors.OutputTensor.xxh3: OutputTensor: expected digest");
    dmlref_vector_free(v);
    edit[0] = edit[0] == '0' ? '1' : '0';

    edit = strstr(written, "\"min_feature_level\": \"3_0\"");
    assert_non_null(edit);
    edit[22] = '4'; /* "4_0" */
    v = parse(written, 0);
    assert_int_equal(dmlref_vector_verify(v, 0, &err), DMLREF_ERROR_MISMATCH);
    assert_contains(err.message, "$.min_feature_level: the case says 4_0, dmlref finds 3_0");
    dmlref_vector_free(v);
    free(written);
}

/* Ensure an expect_error case verifies only when dmlref refuses it exactly
   so, and an out-of-range index is an expect_error that needs the data. */
static void test_expect_error_is_checked(void **state)
{
    static const char *wrong_rule =
        "{\"format\": \"dmlref-vector-1\", \"name\": \"e\", \"operator\": \"GATHER_ELEMENTS\","
        " \"attributes\": {\"Axis\": 2}, \"expect_error\": {\"status\":"
        " \"DMLREF_ERROR_INVALID_ATTRIBUTE\", \"rule\": \"R-SC-3\"}, \"tensors\": {"
        " \"InputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [2, 3]},"
        " \"IndicesTensor\": {\"dtype\": \"UINT32\", \"sizes\": [2, 3]},"
        " \"OutputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [2, 3]}}}";
    static const char *out_of_range =
        "{\"format\": \"dmlref-vector-1\", \"name\": \"o\", \"operator\": \"GATHER_ELEMENTS\","
        " \"attributes\": {\"Axis\": 0}, \"expect_error\": {\"status\":"
        " \"DMLREF_ERROR_INDEX_OUT_OF_RANGE\", \"rule\": \"D1\"}, \"tensors\": {"
        " \"InputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [2], \"data\": [1, 2]},"
        " \"IndicesTensor\": {\"dtype\": \"INT32\", \"sizes\": [2], \"data\": [1, -3]},"
        " \"OutputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [2]}}}";
    dmlref_vector *v = parse(wrong_rule, 0);
    dmlref_error err;
    (void)state;
    assert_int_equal(dmlref_vector_verify(v, 0, &err), DMLREF_ERROR_MISMATCH);
    assert_contains(err.message, "expects DMLREF_ERROR_INVALID_ATTRIBUTE (R-SC-3), dmlref reports "
                                 "DMLREF_ERROR_INVALID_ATTRIBUTE (R-GE-2)");
    dmlref_vector_free(v);
    v = parse(out_of_range, 0);
    assert_int_equal(dmlref_vector_verify(v, 0, &err), DMLREF_OK);
    dmlref_vector_free(v);
}

/* Ensure eval infers DirectMLX's output shapes: GatherND's (R-GN-7), and
   NonZero's {1}/{M, N} from FL 4_0 but the input's rank at FL 3_0 (R-NZ-6). */
static void test_eval_infers_output_sizes(void **state)
{
    static const char *nd =
        "{\"format\": \"dmlref-vector-1\", \"name\": \"i\", \"operator\": \"GATHER_ND\","
        " \"attributes\": {\"InputDimensionCount\": 3, \"IndicesDimensionCount\": 2}, \"tensors\": "
        "{"
        " \"InputTensor\": {\"dtype\": \"INT16\", \"sizes\": [1, 2, 2, 2], \"data\": [0, 1, 2, 3, "
        "4, 5, 6, 7]},"
        " \"IndicesTensor\": {\"dtype\": \"UINT32\", \"sizes\": [1, 1, 2, 2], \"data\": [0, 1, 1, "
        "0]},"
        " \"OutputTensor\": {\"dtype\": \"INT16\"}}}";
    static const char *nz3 =
        "{\"format\": \"dmlref-vector-1\", \"name\": \"z\", \"operator\": \"NONZERO_COORDINATES\","
        " \"feature_level\": \"3_0\", \"tensors\": {"
        " \"InputTensor\": {\"dtype\": \"UINT8\", \"sizes\": [1, 1, 1, 3], \"data\": [0, 5, 0]},"
        " \"OutputCountTensor\": {\"dtype\": \"UINT32\"},"
        " \"OutputCoordinatesTensor\": {\"dtype\": \"UINT32\"}}}";
    char *written = evaluate(nd);
    (void)state;
    assert_contains(written, "\"OutputTensor\": {\"dtype\": \"INT16\", \"sizes\": [1, 1, 2, 2], "
                             "\"expected\": [2, 3, 4, 5]");
    free(written);
    written = evaluate(nz3);
    assert_contains(written,
                    "\"OutputCountTensor\": {\"dtype\": \"UINT32\", \"sizes\": [1, 1, 1, 1]");
    assert_contains(written, "\"sizes\": [1, 1, 3, 4], \"expected\": [0, 0, 0, 1, null");
    free(written);
}

/* Ensure a vector moved to another feature level is written with that
   level's name: 0 means the latest (D19), a value that is no level changes
   nothing (it was written "(null)", which no reader takes back). */
static void test_set_feature_level_writes_a_level(void **state)
{
    static const char *text =
        "{\"format\": \"dmlref-vector-1\", \"name\": \"l\", \"operator\": \"GATHER_ELEMENTS\","
        " \"feature_level\": \"4_1\", \"attributes\": {\"Axis\": 0}, \"tensors\": {"
        " \"InputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [2], \"data\": [1, 2]},"
        " \"IndicesTensor\": {\"dtype\": \"UINT32\", \"sizes\": [1], \"data\": [1]},"
        " \"OutputTensor\": {\"dtype\": \"FLOAT32\"}}}";
    dmlref_vector *v = parse(text, DMLREF_VECTOR_READ_CASE);
    dmlref_error err;
    char *written;
    (void)state;
    dmlref_vector_set_feature_level(v, (dmlref_feature_level)0x1234);
    assert_int_equal(dmlref_vector_feature_level(v), DMLREF_FEATURE_LEVEL_4_1);
    dmlref_vector_set_feature_level(v, (dmlref_feature_level)0);
    assert_int_equal(dmlref_vector_feature_level(v), DMLREF_FEATURE_LEVEL_LATEST);
    assert_int_equal(dmlref_vector_eval(v, 1, &err), DMLREF_OK);
    assert_int_equal(dmlref_vector_write(v, &written, NULL, &err), DMLREF_OK);
    assert_contains(written, "\"feature_level\": \"6_4\"");
    free(written);
    dmlref_vector_free(v);
}

/* Ensure the reader refuses a case whose buffers exceed the memory cap, with
   a message naming the tensor, and a validation failure with the JSON path
   of the field it names.  (The cap also counts the parse tree, about 10 KB
   here, so it is 64 KiB: above the tree, below the 8 MB buffer.) */
static void test_memory_cap_and_validation_paths(void **state)
{
    static const char *big =
        "{\"format\": \"dmlref-vector-1\", \"name\": \"b\", \"operator\": \"GATHER_ELEMENTS\","
        " \"attributes\": {\"Axis\": 0}, \"tensors\": {"
        " \"InputTensor\": {\"dtype\": \"FLOAT64\", \"sizes\": [1000000], \"generator\": "
        "{\"kind\": \"bits\", \"seed\": 1}},"
        " \"IndicesTensor\": {\"dtype\": \"UINT32\", \"sizes\": [2], \"data\": [0, 1]},"
        " \"OutputTensor\": {\"dtype\": \"FLOAT64\", \"sizes\": [2], \"xxh3\": "
        "\"0000000000000000\"}}}";
    static const char *invalid =
        "{\"format\": \"dmlref-vector-1\", \"name\": \"v\", \"operator\": \"GATHER_ELEMENTS\","
        " \"attributes\": {\"Axis\": 0}, \"tensors\": {"
        " \"InputTensor\": {\"dtype\": \"FLOAT64\", \"sizes\": [2, 2], \"data\": [1, 2, 3, 4]},"
        " \"IndicesTensor\": {\"dtype\": \"UINT32\", \"sizes\": [2, 3], \"data\": [0, 1, 0, 1, 0, "
        "1]},"
        " \"OutputTensor\": {\"dtype\": \"FLOAT64\", \"sizes\": [2, 3], \"xxh3\": "
        "\"0000000000000000\"}}}";
    dmlref_vector_read_options options = {0, 65536};
    dmlref_vector *v = NULL;
    dmlref_error err;
    (void)state;
    assert_int_equal(dmlref_vector_parse(big, strlen(big), "big.json", &options, &v, &err),
                     DMLREF_ERROR_OUT_OF_MEMORY);
    assert_null(v);
    assert_contains(err.message, "big.json: $.tensors.InputTensor: the case needs more than the "
                                 "memory cap of 65536 bytes");
    assert_int_equal(dmlref_vector_parse(invalid, strlen(invalid), "v.json", NULL, &v, &err),
                     DMLREF_ERROR_SIZE_MISMATCH);
    assert_string_equal(err.rule, "R-GE-3");
    assert_contains(err.message, "v.json: $.tensors.IndicesTensor.sizes[1]: GATHER_ELEMENTS: "
                                 "IndicesTensor.Sizes[1] = 3 must equal InputTensor.Sizes[1] = 2");
}

/* ---- cases that must be refused: data, buffers, replies ----------------------- */

/* The output descriptors of a vector's operator, in binding order. */
static size_t output_descs(const dmlref_vector *v, const dmlref_tensor_desc **out,
                           const char **names)
{
    const dmlref_operator_desc *op = dmlref_vector_operator(v);
    names[0] = "OutputTensor";
    switch (op->Type) {
    case DMLREF_OPERATOR_GATHER_ELEMENTS:
        out[0] = ((const dmlref_gather_elements_desc *)op->Desc)->OutputTensor;
        return 1;
    case DMLREF_OPERATOR_SCATTER_ELEMENTS:
        out[0] = ((const dmlref_scatter_elements_desc *)op->Desc)->OutputTensor;
        return 1;
    case DMLREF_OPERATOR_GATHER_ND:
        out[0] = ((const dmlref_gather_nd_desc *)op->Desc)->OutputTensor;
        return 1;
    case DMLREF_OPERATOR_GATHER_ND1:
        out[0] = ((const dmlref_gather_nd1_desc *)op->Desc)->OutputTensor;
        return 1;
    default:
        out[0] = ((const dmlref_nonzero_coordinates_desc *)op->Desc)->OutputCountTensor;
        out[1] = ((const dmlref_nonzero_coordinates_desc *)op->Desc)->OutputCoordinatesTensor;
        names[0] = "OutputCountTensor";
        names[1] = "OutputCoordinatesTensor";
        return 2;
    }
}

/* prod(Sizes), saturating at UINT64_MAX. */
static uint64_t desc_count(const dmlref_tensor_desc *t)
{
    uint64_t n = 1;
    uint32_t i;
    for (i = 0; i < t->DimensionCount; ++i) {
        if (t->Sizes[i] == 0)
            return 0;
        n = n > UINT64_MAX / t->Sizes[i] ? UINT64_MAX : n * t->Sizes[i];
    }
    return n;
}

/* Replies larger than this are not built (the big undecidable case). */
#define REPLY_MAX_ELEMENTS 65536u

/* A reply with `counts[o]` zeros for each output (caller frees). */
static char *outputs_reply(const char *name, const char *const *names, size_t outputs,
                           const uint64_t *counts)
{
    size_t capacity = 256, length = 0, o;
    uint64_t e;
    char *text;
    for (o = 0; o < outputs; ++o)
        capacity += 64 + 3 * (size_t)counts[o];
    text = malloc(capacity);
    assert_non_null(text);
    length += (size_t)snprintf(text + length, capacity - length,
                               "{\"name\": \"%s\", \"outputs\": {", name);
    for (o = 0; o < outputs; ++o) {
        length += (size_t)snprintf(text + length, capacity - length, "%s\"%s\": [", o ? ", " : "",
                                   names[o]);
        for (e = 0; e < counts[o]; ++e)
            length += (size_t)snprintf(text + length, capacity - length, "%s0", e ? ", " : "");
        length += (size_t)snprintf(text + length, capacity - length, "]");
    }
    snprintf(text + length, capacity - length, "}}");
    return text;
}

/* Feeds one reply through every kind of output binding: none (NULL data:
   checked only), the vector's own buffers, and buffers of exactly
   TotalTensorSizeInBytes allocated here (when small), and compares what
   landed.  Returns the status with the vector's own buffers. */
static dmlref_status feed_reply(dmlref_vector *v, const char *reply)
{
    const dmlref_tensor_desc *descs[2];
    const char *names[2];
    size_t n = output_descs(v, descs, names), o;
    dmlref_binding none[2], exact[2];
    dmlref_reply answer;
    dmlref_error err;
    dmlref_status own, status;
    int have_exact = 1;

    for (o = 0; o < n; ++o) {
        uint64_t total = descs[o]->TotalTensorSizeInBytes;
        none[o].data = NULL, none[o].size_in_bytes = 0;
        exact[o].size_in_bytes = total;
        exact[o].data = total <= (1u << 20) ? malloc(total ? (size_t)total : 1) : NULL;
        if (total > (1u << 20))
            have_exact = 0;
        else
            memset(exact[o].data, 0xCD, (size_t)total);
    }
    status = dmlref_vector_read_reply(v, reply, strlen(reply), none, n, &answer, &err);
    assert_true(status == DMLREF_OK || status == DMLREF_ERROR_VECTOR_SCHEMA ||
                status == DMLREF_ERROR_VECTOR_PARSE);
    own = dmlref_vector_read_reply(v, reply, strlen(reply), dmlref_vector_outputs(v), n, &answer,
                                   &err);
    assert_true(own == status || own == DMLREF_ERROR_INVALID_ARGUMENT);
    if (dmlref_vector_has_data(v))
        assert_int_equal(own, status);
    /* compare never crashes, whatever the buffers hold or lack */
    dmlref_vector_compare(v, dmlref_vector_outputs(v), n, NULL, &err);
    dmlref_vector_compare(v, none, n, NULL, &err);
    if (have_exact) {
        assert_int_equal(dmlref_vector_read_reply(v, reply, strlen(reply), exact, n, &answer, &err),
                         status);
        dmlref_vector_compare(v, exact, n, NULL, &err);
    }
    for (o = 0; o < n; ++o)
        free(exact[o].data);
    /* a wrong number of bindings is the caller's error */
    assert_int_equal(dmlref_vector_read_reply(v, reply, strlen(reply), none, n + 1, &answer, &err),
                     DMLREF_ERROR_INVALID_ARGUMENT);
    return own;
}

/* Cases that must be refused yet cannot get every buffer, and why (every
   other one must get them all, so that a backend can be run on it). */
static const char *const k_without_buffers[][2] = {
    {"gather_elements/float32/2d/error_elements_above_2_32", "more than 2^32-1 elements: no data"},
    {"gather_elements/float32/2d/error_minimum_size_overflows_64_bits",
     "a minimum size beyond 64 bits: no data"},
    {"gather_elements/float32/2d/error_total_bytes_above_2_32_elements_d13",
     "data, but InputTensor's TotalTensorSizeInBytes (16 GiB) passes the reader's memory cap"},
};

static int expected_without_buffers(const char *name)
{
    size_t i;
    for (i = 0; i < sizeof k_without_buffers / sizeof k_without_buffers[0]; ++i)
        if (strcmp(k_without_buffers[i][0], name) == 0)
            return 1;
    return 0;
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *text;
    long length;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    length = ftell(f);
    fseek(f, 0, SEEK_SET);
    text = malloc((size_t)length + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)length, f), (size_t)length);
    text[length] = '\0';
    fclose(f);
    return text;
}

/* One committed vector that expects an error: it loads with data and
   buffers wherever its shape allows; eval, verify, write (whole and as a
   case) succeed; and replies with the right element counts, wrong counts,
   empty outputs, statuses and garbage go through read_reply and compare
   with and without output buffers, never crashing. */
static void check_refused_vector(const char *path, const char *text)
{
    dmlref_vector *v = NULL, *again = NULL;
    dmlref_vector_read_options as_case = {DMLREF_VECTOR_READ_CASE, 0};
    const dmlref_tensor_desc *descs[2];
    const char *names[2];
    dmlref_error err;
    dmlref_status want, status;
    char *written, *reply, status_reply[512];
    size_t length, n, o, i;
    uint64_t counts[2], wrong[2], empty[2] = {0, 0};
    int affordable = 1;

    if (dmlref_vector_load(path, NULL, &v, &err) != DMLREF_OK)
        fail_msg("%s", err.message);
    assert_true(dmlref_vector_expects_error(v, NULL, NULL));
    if (expected_without_buffers(dmlref_vector_name(v))) {
        assert_false(dmlref_vector_has_data(v));
    } else if (!dmlref_vector_has_data(v)) {
        fail_msg("%s: a case that must be refused has no buffers", path);
    } else { /* bindings say TotalTensorSizeInBytes */
        const dmlref_binding *inputs = dmlref_vector_inputs(v);
        for (i = 0; i < dmlref_vector_input_count(v); ++i)
            assert_non_null(inputs[i].data);
    }
    n = output_descs(v, descs, names);
    for (o = 0; o < n; ++o) {
        const dmlref_binding *b = &dmlref_vector_outputs(v)[o];
        if (b->data)
            assert_int_equal(b->size_in_bytes, descs[o]->TotalTensorSizeInBytes);
        counts[o] = desc_count(descs[o]);
        wrong[o] = counts[o] + 1;
        if (counts[o] > REPLY_MAX_ELEMENTS)
            affordable = 0;
    }

    /* eval, verify, write: the file comes back byte for byte */
    assert_int_equal(dmlref_vector_verify(v, 0, &err), DMLREF_OK);
    assert_int_equal(dmlref_vector_eval(v, 0, &err), DMLREF_OK);
    assert_int_equal(dmlref_vector_write(v, &written, &length, &err), DMLREF_OK);
    if (strcmp(written, text) != 0)
        fail_msg("%s: written back differently:\n%s", path, written);
    free(written);
    assert_int_equal(
        dmlref_vector_write_with(v, DMLREF_VECTOR_WRITE_CASE | DMLREF_VECTOR_WRITE_ONE_LINE,
                                 &written, &length, &err),
        DMLREF_OK);
    assert_null(strchr(written, '\n'));
    /* read back as a case (no expect_error): refused by validation as the
       vector says, or, for out-of-range indices, read with its buffers */
    dmlref_vector_expects_error(v, &want, NULL);
    status = dmlref_vector_parse(written, length, path, &as_case, &again, &err);
    if (want == DMLREF_ERROR_INDEX_OUT_OF_RANGE) {
        assert_int_equal(status, DMLREF_OK);
        assert_true(dmlref_vector_has_data(again));
        dmlref_vector_free(again);
    } else if (!strstr(text, "\"data\"") && !strstr(text, "\"generator\"")) {
        assert_int_equal(status, DMLREF_ERROR_VECTOR_SCHEMA); /* a case needs data */
        assert_null(again);
    } else {
        if (status != want)
            fail_msg("%s: its case text reads as %s: %s", path, dmlref_status_name(status),
                     err.message);
        assert_null(again);
    }
    free(written);

    /* replies */
    if (affordable) {
        reply = outputs_reply(dmlref_vector_name(v), names, n, counts);
        assert_int_equal(feed_reply(v, reply), DMLREF_OK);
        free(reply);
        reply = outputs_reply(dmlref_vector_name(v), names, n, wrong);
        assert_int_equal(feed_reply(v, reply), DMLREF_ERROR_VECTOR_SCHEMA);
        free(reply);
    }
    reply = outputs_reply(dmlref_vector_name(v), names, n, empty);
    assert_int_equal(feed_reply(v, reply), counts[0] == 0 && (n == 1 || counts[1] == 0)
                                               ? DMLREF_OK
                                               : DMLREF_ERROR_VECTOR_SCHEMA);
    free(reply);
    reply = outputs_reply(dmlref_vector_name(v), names, n - 1, counts); /* an output missing */
    assert_int_equal(feed_reply(v, reply), DMLREF_ERROR_VECTOR_SCHEMA);
    free(reply);
    snprintf(status_reply, sizeof status_reply,
             "{\"name\": \"%s\", \"status\": \"error\", \"message\": \"refused\"}",
             dmlref_vector_name(v));
    assert_int_equal(feed_reply(v, status_reply), DMLREF_OK);
    snprintf(status_reply, sizeof status_reply, "{\"name\": \"%s\", \"status\": \"unsupported\"}",
             dmlref_vector_name(v));
    assert_int_equal(feed_reply(v, status_reply), DMLREF_OK);
    assert_int_equal(feed_reply(v, "{\"name\": \"another\", \"outputs\": {}}"),
                     DMLREF_ERROR_VECTOR_SCHEMA);
    assert_int_equal(feed_reply(v, "not json"), DMLREF_ERROR_VECTOR_PARSE);
    dmlref_vector_free(v);
}

/* Ensure every committed vector that expects an error carries complete
   input data where its shape allows it, gets its buffers, and survives every
   path of the vector API and any reply (run under ASan and UBSan by make
   check-sanitize). */
static void test_refused_vectors_survive_every_path(void **state)
{
    const char *dir = getenv("DMLREF_VECTORS_DIR") ? getenv("DMLREF_VECTORS_DIR") : "vectors";
    char manifest[512], line[600];
    FILE *f;
    unsigned refused = 0, with_buffers = 0;
    (void)state;
    snprintf(manifest, sizeof manifest, "%s/MANIFEST", dir);
    f = fopen(manifest, "r");
    if (!f)
        fail_msg("%s: cannot open (run from the repository's root)", manifest);
    while (fgets(line, sizeof line, f)) {
        char path[700], *text;
        size_t length = strlen(line);
        if (length < 19)
            continue;
        line[length - 1] = '\0';
        snprintf(path, sizeof path, "%s/%s", dir, line + 18);
        text = read_text(path);
        assert_non_null(text);
        if (strstr(text, "\"expect_error\"")) {
            dmlref_vector *v;
            dmlref_error err;
            check_refused_vector(path, text);
            ++refused;
            assert_int_equal(dmlref_vector_load(path, NULL, &v, &err), DMLREF_OK);
            with_buffers += (unsigned)dmlref_vector_has_data(v);
            dmlref_vector_free(v);
        }
        free(text);
    }
    fclose(f);
    assert_true(refused > 0);
    assert_int_equal(refused - with_buffers,
                     sizeof k_without_buffers / sizeof k_without_buffers[0]);
}

/* Ensure DMLREF_VECTOR_READ_REFUSED reads a case that validation refuses
   and has no expect_error, with its buffers, and that eval then refuses it
   with the rule; without the flag the reader refuses it, naming the
   attribute's JSON path. */
static void test_read_refused_flag(void **state)
{
    static const char *invalid =
        "{\"format\": \"dmlref-vector-1\", \"name\": \"b\", \"operator\": \"GATHER_ND1\","
        " \"attributes\": {\"InputDimensionCount\": 2, \"IndicesDimensionCount\": 2,"
        " \"BatchDimensionCount\": 2}, \"tensors\": {"
        " \"InputTensor\": {\"dtype\": \"INT32\", \"sizes\": [2, 2], \"data\": [0, 1, 2, 3]},"
        " \"IndicesTensor\": {\"dtype\": \"UINT32\", \"sizes\": [2, 1], \"data\": [0, 1]},"
        " \"OutputTensor\": {\"dtype\": \"INT32\", \"sizes\": [2, 2]}}}";
    dmlref_vector_read_options options = {DMLREF_VECTOR_READ_CASE, 0};
    dmlref_vector *v = NULL;
    dmlref_error err;
    (void)state;
    assert_int_equal(dmlref_vector_parse(invalid, strlen(invalid), "case.json", &options, &v, &err),
                     DMLREF_ERROR_INVALID_ATTRIBUTE);
    assert_null(v);
    assert_non_null(strstr(err.message, "case.json: $.attributes.BatchDimensionCount: "));
    v = parse(invalid, DMLREF_VECTOR_READ_CASE | DMLREF_VECTOR_READ_REFUSED);
    assert_false(dmlref_vector_expects_error(v, NULL, NULL));
    assert_true(dmlref_vector_has_data(v));
    assert_int_equal(dmlref_vector_eval(v, 1, &err), DMLREF_ERROR_INVALID_ATTRIBUTE);
    assert_string_equal(err.rule, "R-GN-3");
    dmlref_vector_free(v);
}

/* Ensure the buffers of a case that must be refused are memory-safe where
   its TotalTensorSizeInBytes is below the minimum (R-TD-9): the reader's
   buffers hold every element while the bindings say TotalTensorSizeInBytes,
   and a reply is placed into a caller's buffer of exactly that size without
   writing past it (ASan checks); a size of 0 gives empty data and buffers;
   a TotalTensorSizeInBytes past the memory cap gives no buffer, but the
   data is still written back. */
static void test_refused_case_buffers(void **state)
{
    static const char *short_total =
        "{\"format\": \"dmlref-vector-1\", \"name\": \"r\", \"operator\": \"GATHER_ELEMENTS\","
        " \"attributes\": {\"Axis\": 1}, \"expect_error\": {\"status\":"
        " \"DMLREF_ERROR_INVALID_TOTAL_SIZE\", \"rule\": \"R-TD-9\"}, \"tensors\": {"
        " \"InputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [2, 3], \"total_bytes\": 20,"
        " \"data\": [1, 2, 3, 4, 5, 6]},"
        " \"IndicesTensor\": {\"dtype\": \"UINT32\", \"sizes\": [2, 3], \"data\": [0, 1, 2, 2, 1, "
        "0]},"
        " \"OutputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [2, 3], \"total_bytes\": 20}}}";
    static const char *zero =
        "{\"format\": \"dmlref-vector-1\", \"name\": \"z\", \"operator\": \"NONZERO_COORDINATES\","
        " \"expect_error\": {\"status\": \"DMLREF_ERROR_INVALID_SIZES\", \"rule\": \"R-TD-2\"},"
        " \"tensors\": {\"InputTensor\": {\"dtype\": \"INT8\", \"sizes\": [0, 3], \"data\": []},"
        " \"OutputCountTensor\": {\"dtype\": \"UINT32\", \"sizes\": [1], \"total_bytes\": 0},"
        " \"OutputCoordinatesTensor\": {\"dtype\": \"UINT32\", \"sizes\": [0, 2]}}}";
    static const char *huge =
        "{\"format\": \"dmlref-vector-1\", \"name\": \"h\", \"operator\": \"GATHER_ELEMENTS\","
        " \"attributes\": {\"Axis\": 0}, \"expect_error\": {\"status\":"
        " \"DMLREF_ERROR_TENSOR_TOO_LARGE\", \"rule\": \"R-TD-13\"}, \"tensors\": {"
        " \"InputTensor\": {\"dtype\": \"INT8\", \"sizes\": [2], \"total_bytes\": 8589934592,"
        " \"data\": [-1, 7]},"
        " \"IndicesTensor\": {\"dtype\": \"UINT32\", \"sizes\": [2], \"data\": [1, 0]},"
        " \"OutputTensor\": {\"dtype\": \"INT8\", \"sizes\": [2]}}}";
    static const char *reply =
        "{\"name\": \"r\", \"outputs\": {\"OutputTensor\": [9, 8, 7, 6, 5, 4]}}";
    dmlref_vector *v = parse(short_total, 0);
    const dmlref_binding *in = dmlref_vector_inputs(v), *out = dmlref_vector_outputs(v);
    dmlref_binding exact[1];
    dmlref_reply answer;
    dmlref_error err;
    float *got;
    char *written;
    (void)state;

    assert_true(dmlref_vector_has_data(v));
    assert_int_equal(in[0].size_in_bytes, 20);
    assert_int_equal(((const float *)in[0].data)[5], 6.0f); /* placed past the 20 bytes */
    assert_int_equal(out[0].size_in_bytes, 20);
    assert_int_equal(dmlref_vector_write(v, &written, NULL, &err), DMLREF_OK);
    assert_contains(written, "\"total_bytes\": 20, \"data\": [1, 2, 3, 4, 5, 6]");
    free(written);
    got = malloc(20); /* exactly TotalTensorSizeInBytes: the sixth element does not fit */
    assert_non_null(got);
    exact[0].data = got, exact[0].size_in_bytes = 20;
    assert_int_equal(dmlref_vector_read_reply(v, reply, strlen(reply), exact, 1, &answer, &err),
                     DMLREF_OK);
    assert_int_equal(answer.kind, DMLREF_REPLY_OUTPUTS);
    assert_true(got[0] == 9.0f && got[4] == 5.0f);
    assert_int_equal(dmlref_vector_read_reply(v, reply, strlen(reply), out, 1, &answer, &err),
                     DMLREF_OK);
    assert_int_equal(dmlref_vector_compare(v, exact, 1, NULL, &err), DMLREF_OK);
    free(got);
    dmlref_vector_free(v);

    v = parse(zero, 0);
    assert_true(dmlref_vector_has_data(v));
    assert_int_equal(dmlref_vector_outputs(v)[0].size_in_bytes, 0);
    {
        static const char *empty = "{\"name\": \"z\", \"outputs\": {\"OutputCountTensor\": [0],"
                                   " \"OutputCoordinatesTensor\": []}}";
        const dmlref_tensor_desc *descs[2];
        const char *names[2];
        output_descs(v, descs, names);
        assert_int_equal(dmlref_vector_read_reply(v, empty, strlen(empty), dmlref_vector_outputs(v),
                                                  2, &answer, &err),
                         DMLREF_OK);
        assert_int_equal(dmlref_vector_compare(v, dmlref_vector_outputs(v), 2, NULL, &err),
                         DMLREF_OK);
        dmlref_tensor_digest(descs[1], dmlref_vector_outputs(v)[1].data); /* no division by 0 */
    }
    assert_int_equal(dmlref_vector_write(v, &written, NULL, &err), DMLREF_OK);
    assert_contains(written, "\"sizes\": [0, 3], \"data\": []");
    free(written);
    assert_int_equal(dmlref_vector_verify(v, 0, &err), DMLREF_OK);
    dmlref_vector_free(v);

    v = parse(huge, 0);
    assert_false(dmlref_vector_has_data(v));
    assert_null(dmlref_vector_inputs(v)[0].data);
    assert_int_equal(dmlref_vector_inputs(v)[0].size_in_bytes, 0);
    assert_non_null(dmlref_vector_inputs(v)[1].data);
    assert_non_null(dmlref_vector_outputs(v)[0].data);
    assert_int_equal(dmlref_vector_write(v, &written, NULL, &err), DMLREF_OK);
    assert_contains(written, "\"total_bytes\": 8589934592, \"data\": [-1, 7]");
    free(written);
    assert_int_equal(dmlref_vector_verify(v, 0, &err), DMLREF_OK);
    dmlref_vector_free(v);
}

/* ---- permitted variants (format 2) ----------------------------------------- */

/* FLOAT32 1d NonZero: +smallest subnormal, -0.0, -largest subnormal, 2, 0,
   -1.5 (golden count 4, flushed count 2). */
static const char *k_subnormal_case =
    "{\"format\": \"dmlref-vector-1\", \"name\": \"nonzero_coordinates/float32/1d/s\","
    " \"operator\": \"NONZERO_COORDINATES\", \"tensors\": {"
    " \"InputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [6], \"data\": [1.401298464324817e-45,"
    " -0.0, -1.1754942106924411e-38, 2, 0, -1.5]},"
    " \"OutputCountTensor\": {\"dtype\": \"UINT32\"},"
    " \"OutputCoordinatesTensor\": {\"dtype\": \"UINT32\"}}}";

/* The variants block eval writes for k_subnormal_case. */
static const char *k_subnormal_variant =
    "  \"variants\": [\n"
    "    {\"name\": \"subnormals_flushed\", \"rule\": \"R-NZ-10\", \"outputs\": {\n"
    "      \"OutputCountTensor\": {\"expected\": [2], \"xxh3\": \"";

static dmlref_status parse_status(const char *text, dmlref_error *err)
{
    dmlref_vector *v = NULL;
    dmlref_status status = dmlref_vector_parse(text, strlen(text), "case.json", NULL, &v, err);
    dmlref_vector_free(v);
    return status;
}

/* A copy of `text` with the first `from` replaced by `to` (caller frees). */
static char *replace(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    char *out;
    if (!at)
        fail_msg("\"%s\" not found in:\n%s", from, text);
    out = malloc(strlen(text) - strlen(from) + strlen(to) + 1);
    assert_non_null(out);
    memcpy(out, text, (size_t)(at - text));
    strcpy(out + (at - text), to);
    strcat(out, at + strlen(from));
    return out;
}

/* The token -0 is refused (JSON readers disagree on it); a minus sign
   inside a number, as in the exponent of 5e-0, is no such token. */
static void test_minus_zero_token_only_where_a_number_starts(void **state)
{
    static const struct {
        const char *number;
        dmlref_status status;
    } rows[] = {{"-0", DMLREF_ERROR_VECTOR_PARSE},
                {"5e-0", DMLREF_OK},
                {"2.5E-0", DMLREF_OK},
                {"-0.0", DMLREF_OK},
                {"25e-01", DMLREF_OK}};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof rows / sizeof *rows; ++i) {
        char *text = replace(k_subnormal_case, "-1.5", rows[i].number);
        dmlref_vector_read_options options = {DMLREF_VECTOR_READ_CASE, 0};
        dmlref_vector *v = NULL;
        dmlref_error err;
        dmlref_status status =
            dmlref_vector_parse(text, strlen(text), "case.json", &options, &v, &err);
        dmlref_vector_free(v);
        if (status != rows[i].status)
            fail_msg("%s: status %d, not %d (%s)", rows[i].number, (int)status, (int)rows[i].status,
                     status == DMLREF_OK ? "" : err.message);
        free(text);
    }
}

/* `text` (as eval writes it) with its "variants" cut out (caller frees). */
static char *without_variants(const char *text)
{
    char *out = replace(text, "\n  },\n  \"variants\": [", "\n  }\n}\n");
    out[strstr(out, "\n  }\n}\n") - out + 7] = '\0';
    return out;
}

/* Ensure eval writes the variant as format 2, in the canonical layout; the
   written vector reads back with its variant (name, rule) and writes again
   byte for byte, on one line too; and the case as a backend sees it is
   format 1 without variants. */
static void test_variant_round_trip(void **state)
{
    char *written = evaluate(k_subnormal_case), *again, *line, *from_line, *as_case;
    dmlref_vector *v, *w;
    dmlref_error err;
    (void)state;
    assert_contains(written, "\"format\": \"dmlref-vector-2\"");
    assert_contains(written, "\"expected\": [4]");
    assert_contains(written, k_subnormal_variant);
    assert_contains(written, "\"OutputCoordinatesTensor\": {\"expected\": [3, 5, null, null, null, "
                             "null], \"xxh3\": \"");
    assert_contains(written, "\n    }}\n  ]\n}\n");
    v = parse(written, 0);
    assert_int_equal(dmlref_vector_variant_count(v), 1);
    assert_string_equal(dmlref_vector_variant_name(v, 0), "subnormals_flushed");
    assert_string_equal(dmlref_vector_variant_rule(v, 0), "R-NZ-10");
    assert_null(dmlref_vector_variant_name(v, 1));
    assert_null(dmlref_vector_variant_rule(v, 1));
    assert_int_equal(dmlref_vector_verify(v, 0, &err), DMLREF_OK);
    assert_int_equal(dmlref_vector_write(v, &again, NULL, &err), DMLREF_OK);
    assert_string_equal(again, written);
    assert_int_equal(dmlref_vector_write_with(v, DMLREF_VECTOR_WRITE_ONE_LINE, &line, NULL, &err),
                     DMLREF_OK);
    assert_null(strchr(line, '\n'));
    w = parse(line, 0);
    assert_int_equal(dmlref_vector_write(w, &from_line, NULL, &err), DMLREF_OK);
    assert_string_equal(from_line, written);
    assert_int_equal(dmlref_vector_write_with(v, DMLREF_VECTOR_WRITE_CASE, &as_case, NULL, &err),
                     DMLREF_OK);
    assert_contains(as_case, "\"format\": \"dmlref-vector-1\"");
    assert_null(strstr(as_case, "variants"));
    free(as_case), free(from_line), free(line), free(again);
    dmlref_vector_free(w);
    dmlref_vector_free(v);

    /* eval of the written vector (a format-2 case) replaces its variant */
    v = parse(written, DMLREF_VECTOR_READ_CASE);
    assert_int_equal(dmlref_vector_eval(v, 0, &err), DMLREF_OK);
    assert_int_equal(dmlref_vector_variant_count(v), 1);
    assert_int_equal(dmlref_vector_write(v, &again, NULL, &err), DMLREF_OK);
    assert_string_equal(again, written);
    free(again);
    dmlref_vector_free(v);
    free(written);
}

/* Ensure the reader refuses malformed variants with the JSON path: in a
   format-1 vector, a format-2 vector without any, an unknown key or name, a
   rule that is not the variant's, a variant that does not apply, an output
   the operator does not have, a missing output, a wrong element count, an
   element out of the type, a digest beside null. */
static void test_variant_strict_refusals(void **state)
{
    static const struct {
        const char *from, *to, *message;
    } edits[] = {
        {"dmlref-vector-2", "dmlref-vector-1",
         "case.json: $.variants: a \"dmlref-vector-1\" vector has no variants"},
        {"{\"name\": \"subnormals_flushed\", \"rule\"",
         "{\"why\": \"GPUs\", \"name\": \"subnormals_flushed\", \"rule\"",
         "case.json: $.variants[0].why: unknown key"},
        {"\"subnormals_flushed\"", "\"denormals_are_zero\"",
         "case.json: $.variants[0].name: \"denormals_are_zero\" is not a variant this version "
         "knows"},
        {"\"R-NZ-10\"", "\"R-NZ-9\"",
         "case.json: $.variants[0].rule: \"R-NZ-9\" is not the rule of \"subnormals_flushed\""},
        {"\"OutputCountTensor\": {\"expected\": [2]", "\"OutputTensor\": {\"expected\": [2]",
         "case.json: $.variants[0].outputs.OutputTensor: unknown key"},
        {"\"expected\": [3, 5, null, null, null, null]", "\"expected\": [3, 5, null, null, null]",
         "case.json: $.variants[0].outputs.OutputCoordinatesTensor.expected: has 5 elements, "
         "sizes give 6"},
        {"\"OutputCountTensor\": {\"expected\": [2]", "\"OutputCountTensor\": {\"expected\": [-2]",
         "case.json: $.variants[0].outputs.OutputCountTensor.expected[0]: UINT32 element is out of "
         "the type's range"},
        {"\"OutputCountTensor\": {\"expected\": [2]",
         "\"OutputCountTensor\": {\"expected\": [null]",
         "case.json: $.variants[0].outputs.OutputCountTensor.xxh3: a digest needs every element "
         "defined"},
        {"\"dtype\": \"FLOAT32\", \"sizes\": [6], \"data\": [1.401298464324817e-45, -0.0, "
         "-1.1754942106924411e-38, 2, 0, -1.5]",
         "\"dtype\": \"INT32\", \"sizes\": [6], \"data\": [1, 0, -2147483647, 2, 0, -1]",
         "case.json: $.variants[0].name: \"subnormals_flushed\" applies only to "
         "NONZERO_COORDINATES "
         "with a float input"},
    };
    char *written = evaluate(k_subnormal_case), *edited;
    dmlref_error err;
    size_t i;
    (void)state;
    assert_int_equal(parse_status(written, &err), DMLREF_OK);
    for (i = 0; i < sizeof edits / sizeof edits[0]; ++i) {
        edited = replace(written, edits[i].from, edits[i].to);
        assert_int_equal(parse_status(edited, &err), DMLREF_ERROR_VECTOR_SCHEMA);
        assert_contains(err.message, edits[i].message);
        free(edited);
    }
    /* the variants cut out: format 2 needs them, format 1 reads */
    edited = without_variants(written);
    assert_int_equal(parse_status(edited, &err), DMLREF_ERROR_VECTOR_SCHEMA);
    assert_contains(err.message, "case.json: $.variants: is missing");
    {
        char *v1 = replace(edited, "dmlref-vector-2", "dmlref-vector-1");
        assert_int_equal(parse_status(v1, &err), DMLREF_OK);
        free(v1);
    }
    free(edited);
    /* the coordinates left out of the variant */
    edited = replace(written, "", "");
    {
        char *from = strstr(edited, ",\n      \"OutputCoordinatesTensor\"");
        char *to = strstr(from, "\n    }}");
        memmove(from, to, strlen(to) + 1);
    }
    assert_int_equal(parse_status(edited, &err), DMLREF_ERROR_VECTOR_SCHEMA);
    assert_contains(err.message,
                    "case.json: $.variants[0].outputs.OutputCoordinatesTensor: is missing");
    free(edited);
    free(written);
}

/* Ensure eval adds "subnormals_flushed" exactly when a logical input element
   is subnormal: each one lowers the count (flushed, it is a zero), so the
   flushed answer always differs then.  Not for ordinary floats, NaN,
   infinities, both zeros or the smallest normal; not for an integer input
   whose bits would be subnormals as floats; not for subnormal bits in input
   padding, which no element reads; not for a refused case.  A broadcast
   subnormal counts once per coordinate that reads it. */
static void test_eval_adds_variant_when_it_applies(void **state)
{
    static const char *none[] = {
        /* FLOAT32 specials and the smallest normal (0x00800000) */
        "{\"format\": \"dmlref-vector-1\", \"name\": \"n\", \"operator\": \"NONZERO_COORDINATES\","
        " \"tensors\": {\"InputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [6], \"data\": [0, "
        "-0.0,"
        " \"nan\", \"-inf\", 1.1754943508222875e-38, 1]},"
        " \"OutputCountTensor\": {\"dtype\": \"UINT32\"}, \"OutputCoordinatesTensor\": {\"dtype\": "
        "\"UINT32\"}}}",
        /* FLOAT16 smallest normal 2^-14, -65504 */
        "{\"format\": \"dmlref-vector-1\", \"name\": \"n\", \"operator\": \"NONZERO_COORDINATES\","
        " \"tensors\": {\"InputTensor\": {\"dtype\": \"FLOAT16\", \"sizes\": [3], \"data\": "
        "[6.103515625e-05,"
        " -65504, 0]},"
        " \"OutputCountTensor\": {\"dtype\": \"UINT32\"}, \"OutputCoordinatesTensor\": {\"dtype\": "
        "\"UINT32\"}}}",
        /* UINT16 1 and 0x83ff, INT32 1: subnormal bits, but integers */
        "{\"format\": \"dmlref-vector-1\", \"name\": \"n\", \"operator\": \"NONZERO_COORDINATES\","
        " \"tensors\": {\"InputTensor\": {\"dtype\": \"UINT16\", \"sizes\": [3], \"data\": [1, "
        "33791, 0]},"
        " \"OutputCountTensor\": {\"dtype\": \"UINT32\"}, \"OutputCoordinatesTensor\": {\"dtype\": "
        "\"UINT32\"}}}",
        "{\"format\": \"dmlref-vector-1\", \"name\": \"n\", \"operator\": \"NONZERO_COORDINATES\","
        " \"tensors\": {\"InputTensor\": {\"dtype\": \"INT32\", \"sizes\": [2, 2], \"data\": [1, "
        "0, 0, -2147483647]},"
        " \"OutputCountTensor\": {\"dtype\": \"UINT32\"}, \"OutputCoordinatesTensor\": {\"dtype\": "
        "\"UINT32\"}}}",
        /* a gather of subnormals: D12, not R-NZ-10 */
        "{\"format\": \"dmlref-vector-1\", \"name\": \"g\", \"operator\": \"GATHER_ELEMENTS\","
        " \"attributes\": {\"Axis\": 0}, \"tensors\": {"
        " \"InputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [2], \"data\": "
        "[1.401298464324817e-45, 1]},"
        " \"IndicesTensor\": {\"dtype\": \"UINT32\", \"sizes\": [2], \"data\": [0, 0]},"
        " \"OutputTensor\": {\"dtype\": \"FLOAT32\"}}}",
    };
    static const char *padded =
        "{\"format\": \"dmlref-vector-1\", \"name\": \"p\", \"operator\": \"NONZERO_COORDINATES\","
        " \"tensors\": {\"InputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [2, 2], \"strides\": "
        "[3, 1],"
        " \"data\": [1, 0, 0, 2]},"
        " \"OutputCountTensor\": {\"dtype\": \"UINT32\"}, \"OutputCoordinatesTensor\": {\"dtype\": "
        "\"UINT32\"}}}";
    static const char *broadcast =
        "{\"format\": \"dmlref-vector-1\", \"name\": \"b\", \"operator\": \"NONZERO_COORDINATES\","
        " \"tensors\": {\"InputTensor\": {\"dtype\": \"FLOAT16\", \"sizes\": [3, 2], \"strides\": "
        "[0, 1],"
        " \"data\": [-5.960464477539063e-08, 1, -5.960464477539063e-08, 1, -5.960464477539063e-08, "
        "1]},"
        " \"OutputCountTensor\": {\"dtype\": \"UINT32\"}, \"OutputCoordinatesTensor\": {\"dtype\": "
        "\"UINT32\"}}}";
    static const char *refused =
        "{\"format\": \"dmlref-vector-1\", \"name\": \"r\", \"operator\": \"NONZERO_COORDINATES\","
        " \"feature_level\": \"2_1\", \"expect_error\": {\"status\": "
        "\"DMLREF_ERROR_UNSUPPORTED_OPERATOR\","
        " \"rule\": \"R-NZ-6\"}, \"tensors\": {\"InputTensor\": {\"dtype\": \"FLOAT32\", "
        "\"sizes\": [2],"
        " \"data\": [1.401298464324817e-45, 0]}, \"OutputCountTensor\": {\"dtype\": \"UINT32\", "
        "\"sizes\": [1]},"
        " \"OutputCoordinatesTensor\": {\"dtype\": \"UINT32\", \"sizes\": [2, 1]}}}";
    dmlref_vector *v;
    dmlref_error err;
    char *written;
    size_t i;
    (void)state;
    for (i = 0; i < sizeof none / sizeof none[0]; ++i) {
        written = evaluate(none[i]);
        assert_contains(written, "\"format\": \"dmlref-vector-1\"");
        assert_null(strstr(written, "variants"));
        free(written);
    }
    /* subnormal bits in the padding between the rows: no element reads them */
    v = parse(padded, DMLREF_VECTOR_READ_CASE);
    ((uint32_t *)dmlref_vector_inputs(v)[0].data)[2] = 0x00000001u;
    assert_int_equal(dmlref_vector_eval(v, 0, &err), DMLREF_OK);
    assert_int_equal(dmlref_vector_variant_count(v), 0);
    dmlref_vector_free(v);
    /* one stored subnormal read by three coordinates: count 6, flushed 3 */
    written = evaluate(broadcast);
    assert_contains(written, "\"OutputCountTensor\": {\"dtype\": \"UINT32\", \"sizes\": [1], "
                             "\"expected\": [6]");
    assert_contains(written, "\"OutputCountTensor\": {\"expected\": [3], \"xxh3\": ");
    assert_contains(written, "\"OutputCoordinatesTensor\": {\"expected\": [0, 1, 1, 1, 2, 1, null, "
                             "null, null, null, null, null]");
    free(written);
    /* a refused case has no outputs, so no variant */
    v = parse(refused, 0);
    assert_int_equal(dmlref_vector_eval(v, 0, &err), DMLREF_OK);
    assert_int_equal(dmlref_vector_variant_count(v), 0);
    dmlref_vector_free(v);
}

/* Ensure eval with DMLREF_VECTOR_EVAL_DIGESTS writes the same text as plain
   eval, keeps the digest alone of a generated case's large outputs (NonZero's
   small count keeps its element), and that comparing then still passes the
   right outputs and fails a wrong one, by digest; plain eval names the
   element. */
static void test_eval_digests_keeps_no_elements(void **state)
{
    static const char *text =
        "{\"format\": \"dmlref-vector-1\", \"name\": \"d\", \"operator\": "
        "\"NONZERO_COORDINATES\", \"tensors\": {\"InputTensor\": {\"dtype\": \"FLOAT32\","
        " \"sizes\": [100], \"generator\": {\"kind\": \"sparse\", \"seed\": 3, \"density\":"
        " 500000}}, \"OutputCountTensor\": {\"dtype\": \"UINT32\"},"
        " \"OutputCoordinatesTensor\": {\"dtype\": \"UINT32\"}}}";
    dmlref_vector *plain = parse(text, DMLREF_VECTOR_READ_CASE);
    dmlref_vector *digests = parse(text, DMLREF_VECTOR_READ_CASE);
    const dmlref_binding *outputs = dmlref_vector_outputs(plain);
    dmlref_binding wrong[2];
    uint32_t rows[100];
    char *plain_text, *digests_text;
    dmlref_mismatch m;
    dmlref_error err;
    (void)state;
    assert_int_equal(dmlref_vector_eval(plain, 1, &err), DMLREF_OK);
    assert_int_equal(dmlref_vector_eval_with(digests, 1, DMLREF_VECTOR_EVAL_DIGESTS, &err),
                     DMLREF_OK);
    assert_int_equal(dmlref_vector_write(plain, &plain_text, NULL, &err), DMLREF_OK);
    assert_int_equal(dmlref_vector_write(digests, &digests_text, NULL, &err), DMLREF_OK);
    assert_string_equal(plain_text, digests_text);
    assert_false(digests->tensors[2].has_expected);
    assert_non_null(digests->tensors[1].expected); /* the count: one element */
    assert_null(digests->tensors[2].expected);
    assert_null(digests->tensors[2].kinds);

    assert_int_equal(dmlref_vector_compare(digests, outputs, 2, &m, &err), DMLREF_OK);
    memcpy(rows, outputs[1].data, sizeof rows);
    rows[1] ^= 1u; /* the first row's column */
    wrong[0] = outputs[0];
    wrong[1].data = rows;
    wrong[1].size_in_bytes = sizeof rows;
    assert_int_equal(dmlref_vector_compare(digests, wrong, 2, &m, &err), DMLREF_ERROR_MISMATCH);
    assert_contains(err.message, "expected digest");
    assert_int_equal(m.wrong_elements, 0);
    assert_int_equal(dmlref_vector_compare(plain, wrong, 2, &m, &err), DMLREF_ERROR_MISMATCH);
    assert_contains(err.message, "OutputCoordinatesTensor.expected[1]");
    assert_int_equal(m.element, 1);
    free(plain_text);
    free(digests_text);
    dmlref_vector_free(plain);
    dmlref_vector_free(digests);

    /* Scatter: with duplicate targets the output keeps its elements and its
       any_of entries; without, its digest alone */
    {
        static const char *const scatter[2] = {
            "{\"format\": \"dmlref-vector-1\", \"name\": \"s\", \"operator\": "
            "\"SCATTER_ELEMENTS\", \"attributes\": {\"Axis\": 1}, \"tensors\": {"
            "\"InputTensor\": {\"dtype\": \"UINT8\", \"sizes\": [10, 10], \"generator\": "
            "{\"kind\": \"bits\", \"seed\": 1}}, \"IndicesTensor\": {\"dtype\": \"INT32\", "
            "\"sizes\": [10, 10], \"generator\": {\"kind\": \"index\", \"seed\": 2, "
            "\"low\": [0], \"high\": [9]}}, \"UpdatesTensor\": {\"dtype\": \"UINT8\", "
            "\"sizes\": [10, 10], \"generator\": {\"kind\": \"bits\", \"seed\": 3}}, "
            "\"OutputTensor\": {\"dtype\": \"UINT8\"}}}",
            "{\"format\": \"dmlref-vector-1\", \"name\": \"s\", \"operator\": "
            "\"SCATTER_ELEMENTS\", \"attributes\": {\"Axis\": 1}, \"tensors\": {"
            "\"InputTensor\": {\"dtype\": \"UINT8\", \"sizes\": [10, 10], \"generator\": "
            "{\"kind\": \"bits\", \"seed\": 1}}, \"IndicesTensor\": {\"dtype\": \"INT32\", "
            "\"sizes\": [10, 1], \"generator\": {\"kind\": \"index\", \"seed\": 2, "
            "\"low\": [0], \"high\": [9]}}, \"UpdatesTensor\": {\"dtype\": \"UINT8\", "
            "\"sizes\": [10, 1], \"generator\": {\"kind\": \"bits\", \"seed\": 3}}, "
            "\"OutputTensor\": {\"dtype\": \"UINT8\"}}}"};
        int k;
        for (k = 0; k < 2; ++k) {
            plain_text = evaluate(scatter[k]);
            digests = parse(scatter[k], DMLREF_VECTOR_READ_CASE);
            assert_int_equal(dmlref_vector_eval_with(digests, 1, DMLREF_VECTOR_EVAL_DIGESTS, &err),
                             DMLREF_OK);
            assert_int_equal(dmlref_vector_write(digests, &digests_text, NULL, &err), DMLREF_OK);
            assert_string_equal(plain_text, digests_text);
            assert_int_equal(digests->tensors[3].has_expected, k == 0);
            assert_int_equal(digests->tensors[3].any_of_count != 0, k == 0);
            assert_int_equal(strstr(plain_text, "any_of") != NULL, k == 0);
            free(plain_text);
            free(digests_text);
            dmlref_vector_free(digests);
        }
    }
}

/* Ensure compare_variant accepts the flushed answer where compare refuses it,
   refuses the golden answer and a wrong one, naming the variant's JSON
   path, and refuses a variant number out of range. */
static void test_compare_variant(void **state)
{
    char *written = evaluate(k_subnormal_case);
    dmlref_vector *v = parse(written, 0);
    uint32_t count = 2, rows[6] = {3, 5, 9, 9, 9, 9};
    uint32_t golden_count = 4, golden_rows[6] = {0, 2, 3, 5, 0, 0};
    dmlref_binding flushed[2], golden[2];
    dmlref_mismatch m;
    dmlref_error err;
    (void)state;
    flushed[0].data = &count, flushed[0].size_in_bytes = 4;
    flushed[1].data = rows, flushed[1].size_in_bytes = sizeof rows;
    golden[0].data = &golden_count, golden[0].size_in_bytes = 4;
    golden[1].data = golden_rows, golden[1].size_in_bytes = sizeof golden_rows;
    assert_int_equal(dmlref_vector_compare(v, golden, 2, NULL, &err), DMLREF_OK);
    assert_int_equal(dmlref_vector_compare(v, flushed, 2, NULL, &err), DMLREF_ERROR_MISMATCH);
    assert_int_equal(dmlref_vector_compare_variant(v, 0, flushed, 2, &m, &err), DMLREF_OK);
    assert_int_equal(m.wrong_elements, 0);
    assert_int_equal(dmlref_vector_compare_variant(v, 0, golden, 2, &m, &err),
                     DMLREF_ERROR_MISMATCH);
    assert_contains(err.message,
                    "case.json: $.variants[0].outputs.OutputCountTensor.expected[0]: "
                    "OutputCountTensor[0]: expected 2 (0x00000002), got 4 (0x00000004)");
    assert_int_equal(m.output, 0);
    rows[1] = 4; /* a wrong coordinate in the flushed answer */
    assert_int_equal(dmlref_vector_compare_variant(v, 0, flushed, 2, &m, &err),
                     DMLREF_ERROR_MISMATCH);
    assert_contains(err.message, "$.variants[0].outputs.OutputCoordinatesTensor.expected[1]");
    assert_int_equal(m.output, 1);
    assert_int_equal(m.element, 1);
    assert_int_equal(dmlref_vector_compare_variant(v, 1, flushed, 2, NULL, &err),
                     DMLREF_ERROR_INVALID_ARGUMENT);
    dmlref_vector_free(v);
    free(written);
}

/* Ensure verify holds the variant to the recomputed flushed answer, and the
   vector to having it exactly when it applies. */
static void test_verify_checks_variants(void **state)
{
    static const char *no_subnormal =
        "{\n  \"format\": \"dmlref-vector-2\",\n  \"name\": \"v\",\n"
        "  \"operator\": \"NONZERO_COORDINATES\",\n  \"tensors\": {\n"
        "    \"InputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [2], \"data\": [1, 0]},\n"
        "    \"OutputCountTensor\": {\"dtype\": \"UINT32\", \"sizes\": [1], \"expected\": [1]},\n"
        "    \"OutputCoordinatesTensor\": {\"dtype\": \"UINT32\", \"sizes\": [2, 1], \"expected\": "
        "[0, null]}\n"
        "  },\n  \"variants\": [\n    {\"name\": \"subnormals_flushed\", \"rule\": \"R-NZ-10\", "
        "\"outputs\": {\n"
        "      \"OutputCountTensor\": {\"expected\": [1]},\n"
        "      \"OutputCoordinatesTensor\": {\"expected\": [0, null]}\n    }}\n  ]\n}\n";
    char *written = evaluate(k_subnormal_case), *edited, *cut;
    dmlref_vector *v;
    dmlref_error err;
    (void)state;
    /* a wrong element of the variant */
    edited = replace(written, "\"expected\": [3, 5, null", "\"expected\": [3, 4, null");
    v = parse(edited, 0);
    assert_int_equal(dmlref_vector_verify(v, 0, &err), DMLREF_ERROR_MISMATCH);
    assert_contains(err.message, "$.variants[0].outputs.OutputCoordinatesTensor.expected[1]");
    dmlref_vector_free(v);
    free(edited);
    /* a wrong digest of the variant */
    edited = replace(written, "\"OutputCountTensor\": {\"expected\": [2], \"xxh3\": \"",
                     "\"OutputCountTensor\": {\"xxh3\": \"");
    cut = strstr(edited, "{\"xxh3\": \"") + 10;
    *cut = *cut == '0' ? '1' : '0';
    v = parse(edited, 0);
    assert_int_equal(dmlref_vector_verify(v, 0, &err), DMLREF_ERROR_MISMATCH);
    assert_contains(err.message, "$.variants[0].outputs.OutputCountTensor.xxh3");
    dmlref_vector_free(v);
    free(edited);
    /* the variant left out */
    cut = without_variants(written);
    edited = replace(cut, "dmlref-vector-2", "dmlref-vector-1");
    v = parse(edited, 0);
    assert_int_equal(dmlref_vector_verify(v, 0, &err), DMLREF_ERROR_MISMATCH);
    assert_contains(err.message, "case.json: $.variants: the case needs the variant "
                                 "\"subnormals_flushed\" (R-NZ-10)");
    dmlref_vector_free(v);
    free(edited), free(cut);
    /* a variant where nothing is subnormal */
    v = parse(no_subnormal, 0);
    assert_int_equal(dmlref_vector_verify(v, 0, &err), DMLREF_ERROR_MISMATCH);
    assert_contains(err.message,
                    "case.json: $.variants[0]: the variant \"subnormals_flushed\" does "
                    "not apply: the input holds no subnormal element");
    dmlref_vector_free(v);
    free(written);
}

/* ---- the memory cap: parse trees, eval, replies ----------------------------------- */

/* printf into a new string (caller frees). */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static char *
text_printf(const char *format, ...)
{
    va_list args;
    int n;
    char *text;
    va_start(args, format);
    n = vsnprintf(NULL, 0, format, args);
    va_end(args);
    assert_true(n >= 0);
    text = malloc((size_t)n + 1);
    assert_non_null(text);
    va_start(args, format);
    vsnprintf(text, (size_t)n + 1, format, args);
    va_end(args);
    return text;
}

/* open, then `item` n times separated by ", ", then close (caller frees). */
static char *repeated(const char *open, const char *item, size_t n, const char *close)
{
    size_t length = strlen(open) + n * (strlen(item) + 2) + strlen(close) + 1, i;
    char *text = malloc(length), *at = text;
    assert_non_null(text);
    at += sprintf(at, "%s", open);
    for (i = 0; i < n; ++i)
        at += sprintf(at, "%s%s", i ? ", " : "", item);
    sprintf(at, "%s", close);
    return text;
}

/* The bytes a message says the case needs for something ("... the memory
   cap of C bytes: N bytes for ..."), or 0. */
static uint64_t bytes_needed(const char *message)
{
    const char *at = strstr(message, " bytes: ");
    unsigned long long n = 0;
    if (!at || sscanf(at + 8, "%llu bytes for", &n) != 1)
        return 0;
    return n;
}

/* jansson's allocations, counted as glibc's malloc charges them (the request
   and an 8-byte header rounded up to 16 bytes, at least 32), and made to
   fail after a number of them.  json_set_alloc_funcs() is process-wide:
   each test that sets these puts malloc and free back. */
typedef union allocation_header {
    size_t size;
    long double strictest;
    void *pointer;
} allocation_header;

static uint64_t g_jansson_live, g_jansson_peak;
static long g_jansson_allocations_left = -1; /* -1: none fails */

static uint64_t glibc_charge(size_t n)
{
    uint64_t charge = ((uint64_t)n + 8 + 15) & ~(uint64_t)15;
    return charge < 32 ? 32 : charge;
}

static void *counting_malloc(size_t n)
{
    allocation_header *block;
    if (g_jansson_allocations_left == 0)
        return NULL;
    if (g_jansson_allocations_left > 0)
        --g_jansson_allocations_left;
    block = malloc(sizeof *block + n);
    if (!block)
        return NULL;
    block->size = n;
    g_jansson_live += glibc_charge(n);
    if (g_jansson_live > g_jansson_peak)
        g_jansson_peak = g_jansson_live;
    return block + 1;
}

static void counting_free(void *p)
{
    allocation_header *block = p;
    if (!p)
        return;
    --block;
    g_jansson_live -= glibc_charge(block->size);
    free(block);
}

/* The most jansson holds at once parsing `text`. */
static uint64_t jansson_peak(const char *text)
{
    json_error_t jerr;
    json_t *root;
    g_jansson_live = g_jansson_peak = 0;
    g_jansson_allocations_left = -1;
    json_set_alloc_funcs(counting_malloc, counting_free);
    root = json_loadb(text, strlen(text), JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        fail_msg("jansson refuses the text: %s", jerr.text);
    json_decref(root);
    json_set_alloc_funcs(malloc, free);
    return g_jansson_peak;
}

typedef struct json_shape {
    const char *what;
    const char *open, *item, *close;
    size_t count;
} json_shape;

static const json_shape k_json_shapes[] = {
    {"small integers", "[", "1", "]", 20000},
    {"64-bit integers", "[", "-9007199254740991", "]", 20000},
    {"reals", "[", "1.401298464324817e-45", "]", 20000},
    {"true, false and null", "[", "null, true, false", "]", 10000},
    {"empty strings", "[", "\"\"", "]", 20000},
    {"strings of 24 bytes", "[", "\"abcdefghijklmnopqrstuvwx\"", "]", 20000},
    {"strings with escapes", "[", "\"\\u00e9\\n\\\"\\\\\"", "]", 20000},
    {"empty arrays", "[", "[]", "]", 20000},
    {"arrays of one number", "[", "[7]", "]", 20000},
    {"empty objects", "[", "{}", "]", 20000},
    {"objects of two members", "[", "{\"a\": 1, \"bb\": [2]}", "]", 10000},
    {"one object of many members", "{\"k0\": 0", ", \"k\": 1", "}", 1},
    {"nesting 2000 deep", "", "[", "", 1},
    {"a vector's data", "{\"format\": \"dmlref-vector-1\", \"data\": [", "-1.5, 2, \"nan\", 1e-30",
     "]}", 5000},
};

/* The text of a shape (caller frees): most repeat one item; the object's
   keys must differ, and nesting is brackets only. */
static char *shape_text(const json_shape *shape)
{
    size_t i;
    char *text, *at;
    if (strcmp(shape->what, "one object of many members") == 0) {
        text = malloc(20000 * 24 + 16);
        assert_non_null(text);
        at = text + sprintf(text, "{");
        for (i = 0; i < 20000; ++i)
            at += sprintf(at, "%s\"key%zu\": %zu", i ? ", " : "", i, i);
        sprintf(at, "}");
        return text;
    }
    if (strcmp(shape->what, "nesting 2000 deep") == 0) {
        text = malloc(4001);
        assert_non_null(text);
        memset(text, '[', 2000);
        memset(text + 2000, ']', 2000);
        text[4000] = '\0';
        return text;
    }
    return repeated(shape->open, shape->item, shape->count, shape->close);
}

/* Ensure the reader charges the parse tree of a text, before parsing it, at
   least what jansson then allocates for it (counted as glibc's malloc would:
   the cost model of vector_read.c), and not wildly more, for every kind of
   token; and that a long string or key is charged for jansson's copies of
   it.  The charge is what the cap's message names. */
static void test_parse_tree_charge_bounds_what_jansson_allocates(void **state)
{
    dmlref_vector_read_options tiny = {0, 1};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof k_json_shapes / sizeof k_json_shapes[0] + 2; ++i) {
        char *text;
        const char *what;
        dmlref_vector *v = NULL;
        dmlref_error err;
        uint64_t charge, peak;
        if (i < sizeof k_json_shapes / sizeof k_json_shapes[0]) {
            what = k_json_shapes[i].what;
            text = shape_text(&k_json_shapes[i]);
        } else { /* one string or key of a megabyte */
            char *long_string = malloc((1u << 20) + 1);
            assert_non_null(long_string);
            memset(long_string, 'x', 1u << 20);
            long_string[1u << 20] = '\0';
            what = i == sizeof k_json_shapes / sizeof k_json_shapes[0] ? "one long string"
                                                                       : "one long key";
            text = text_printf(strcmp(what, "one long key") == 0 ? "{\"%s\": 1}" : "[\"%s\"]",
                               long_string);
            free(long_string);
        }
        assert_int_equal(dmlref_vector_parse(text, strlen(text), "case.json", &tiny, &v, &err),
                         DMLREF_ERROR_OUT_OF_MEMORY);
        assert_contains(err.message, "case.json: $: the case needs more than the memory cap of 1 "
                                     "bytes: ");
        assert_contains(err.message, " bytes for the parse tree of its ");
        charge = bytes_needed(err.message);
        peak = jansson_peak(text);
        /* the charges were measured with 8-byte pointers; with 4-byte ones
           jansson's slots and structures are smaller, and the charge, still
           above, may be twice as far */
        if (charge < peak || charge > 4 * (8 / sizeof(void *)) * peak + 2048)
            fail_msg("%s: charged %llu bytes, jansson holds %llu at most", what,
                     (unsigned long long)charge, (unsigned long long)peak);
        free(text);
    }
}

/* Ensure an allocation that fails inside jansson, wherever it happens, gives
   a status and a message that say something: "out of memory" where jansson
   says nothing, for a vector and for a reply. */
static void test_allocation_failures_inside_jansson_are_reported(void **state)
{
    static const char *text =
        "{\"format\": \"dmlref-vector-1\", \"name\": \"f\", \"operator\": \"GATHER_ELEMENTS\","
        " \"attributes\": {\"Axis\": 0}, \"notes\": \"a string to copy\", \"tensors\": {"
        " \"InputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [2], \"data\": [1.5, \"nan\"]},"
        " \"IndicesTensor\": {\"dtype\": \"UINT32\", \"sizes\": [2], \"data\": [1, 0]},"
        " \"OutputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [2],"
        " \"expected\": [\"nan\", 1.5]}}}";
    static const char *reply_text =
        "{\"name\": \"f\", \"outputs\": {\"OutputTensor\": [\"nan\", 1.5]}}";
    dmlref_vector *good = parse(text, 0);
    long k;
    int failures = 0, silent = 0;
    (void)state;
    for (k = 0; k < 400; ++k) {
        dmlref_vector *v = NULL;
        dmlref_reply reply;
        dmlref_error err[2];
        dmlref_status status[2];
        int which;
        g_jansson_allocations_left = k;
        json_set_alloc_funcs(counting_malloc, counting_free);
        memset(err, 0, sizeof err);
        status[0] = dmlref_vector_parse(text, strlen(text), "case.json", NULL, &v, &err[0]);
        g_jansson_allocations_left = k;
        status[1] = dmlref_vector_read_reply(good, reply_text, strlen(reply_text),
                                             dmlref_vector_outputs(good), 1, &reply, &err[1]);
        json_set_alloc_funcs(malloc, free);
        dmlref_vector_free(v);
        if (status[0] == DMLREF_OK && status[1] == DMLREF_OK)
            break;
        for (which = 0; which < 2; ++which) {
            size_t length = strlen(err[which].message);
            if (status[which] == DMLREF_OK)
                continue;
            ++failures;
            /* jansson's empty message would end the line with ": " */
            if (length < 2 || strcmp(err[which].message + length - 2, ": ") == 0)
                fail_msg("allocation %ld failing: an empty message: \"%s\"", k, err[which].message);
            if (status[which] == DMLREF_ERROR_OUT_OF_MEMORY) {
                assert_contains(err[which].message, which ? "reply: $: out of memory parsing "
                                                          : "case.json: $: out of memory parsing ");
                ++silent;
            } else {
                assert_int_equal(status[which], DMLREF_ERROR_VECTOR_PARSE);
            }
        }
    }
    assert_true(k < 400);    /* enough allocations parse both */
    assert_true(silent > 0); /* where jansson says nothing, the reader does */
    assert_true(failures > silent);
    dmlref_vector_free(good);
}

/* A case whose memory need (what) is placed by the cap: reading it, or its
   eval, or a reply to it, must refuse with the message of the cap. */
typedef struct cap_case {
    const char *what;
    const char *text; /* %s: a long part, made by `fill` */
    const char *fill_item;
    size_t fill_count;
    uint64_t cap;
    int stage; /* 0: parse, 1: eval, 2: reply */
    const char *path, *needed_for;
} cap_case;

#define GATHER_OF(input, indices, output)                                                          \
    "{\"format\": \"dmlref-vector-1\", \"name\": \"m\", \"operator\": \"GATHER_ELEMENTS\","        \
    " \"attributes\": {\"Axis\": 0}, \"tensors\": {\"InputTensor\": " input                        \
    ", \"IndicesTensor\": " indices ", \"OutputTensor\": " output "}}"

static const cap_case k_cap_cases[] = {
    {"10000 empty objects of 3 bytes each", "[%s]", "{}", 10000, 1u << 20, 0, "$",
     "the parse tree of its 40000 bytes of JSON text"},
    {"a buffer of 8 MB",
     GATHER_OF("{\"dtype\": \"FLOAT64\", \"sizes\": [1000000], \"generator\":"
               " {\"kind\": \"bits\", \"seed\": 1}}",
               "{\"dtype\": \"UINT32\", \"sizes\": [2], \"data\": [0, 1]%s}",
               "{\"dtype\": \"FLOAT64\", \"sizes\": [2], \"xxh3\": \"0000000000000000\"}"),
     "", 0, 1u << 20, 0, "$.tensors.InputTensor", "its buffer, "},
    {"2^31 alignment",
     GATHER_OF(
         "{\"dtype\": \"FLOAT32\", \"sizes\": [2], \"alignment\": 2147483648, \"data\": [1, 2]}",
         "{\"dtype\": \"UINT32\", \"sizes\": [2], \"data\": [0, 1]%s}",
         "{\"dtype\": \"FLOAT32\", \"sizes\": [2], \"xxh3\": \"0000000000000000\"}"),
     "", 0, 1u << 30, 0, "$.tensors.InputTensor",
     "its buffer of 8 bytes aligned to 2147483648 bytes"},
    {"eval's expected elements: 8 bytes for each of a million",
     GATHER_OF("{\"dtype\": \"INT8\", \"sizes\": [1000000], \"generator\":"
               " {\"kind\": \"bits\", \"seed\": 1}}",
               "{\"dtype\": \"UINT32\", \"sizes\": [1000000], \"strides\": [0], \"generator\":"
               " {\"kind\": \"index\", \"seed\": 2, \"low\": [0], \"high\": [0]}%s}",
               "{\"dtype\": \"INT8\"}"),
     "", 0, 4u << 20, 1, "$.tensors.OutputTensor", "its expected elements"},
    /* the axis as long as the indices (R-SC-4, D16), every index 0: the
       buffers (3 MB) and the counts per target (12 MB) fit in 20 MiB, the
       million competing values (8 MB more) do not */
    {"eval's any_of values: a million updates of one element",
     "{\"format\": \"dmlref-vector-1\", \"name\": \"m\", \"operator\": \"SCATTER_ELEMENTS\","
     " \"attributes\": {\"Axis\": 0}, \"tensors\": {"
     " \"InputTensor\": {\"dtype\": \"UINT8\", \"sizes\": [1000000], \"generator\":"
     " {\"kind\": \"bits\", \"seed\": 1}},"
     " \"IndicesTensor\": {\"dtype\": \"INT32\", \"sizes\": [1000000], \"strides\": [0],"
     " \"generator\": {\"kind\": \"index\", \"seed\": 2, \"low\": [0], \"high\": [0]}%s},"
     " \"UpdatesTensor\": {\"dtype\": \"UINT8\", \"sizes\": [1000000], \"generator\":"
     " {\"kind\": \"bits\", \"seed\": 3}}, \"OutputTensor\": {\"dtype\": \"UINT8\"}}}",
     "", 0, 20u << 20, 1, "$.tensors.OutputTensor", "the values its any_of entries may take"},
    {"a reply of 20000 elements to a case of 2",
     GATHER_OF("{\"dtype\": \"FLOAT32\", \"sizes\": [2], \"data\": [1, 2]}",
               "{\"dtype\": \"UINT32\", \"sizes\": [2], \"data\": [0, 1]%s}",
               "{\"dtype\": \"FLOAT32\", \"sizes\": [2], \"expected\": [1, 2]}"),
     "", 0, 1u << 20, 2, "$", "the parse tree of its "},
};

/* Ensure one cap covers what a case makes the library allocate, counted
   before allocating: the parse tree of the text, the buffers (and what
   aligning them takes), what eval makes (expected elements, Scatter's any_of
   lists) and the tree of a reply; the message is one line naming the file,
   the JSON path, the bytes needed, the cap and DMLREF_MEMORY_CAP. */
static void test_one_memory_cap_covers_a_case(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < sizeof k_cap_cases / sizeof k_cap_cases[0]; ++i) {
        const cap_case *c = &k_cap_cases[i];
        dmlref_vector_read_options options = {DMLREF_VECTOR_READ_CASE, 0};
        char *fill = repeated("", c->fill_item, c->fill_count, ""), *text, expected[160];
        const char *source = c->stage == 2 ? "reply" : "case.json";
        dmlref_vector *v = NULL;
        dmlref_error err;
        dmlref_status status;
        text = text_printf(c->text, fill);
        options.memory_cap = c->cap;
        status = dmlref_vector_parse(text, strlen(text), "case.json", &options, &v, &err);
        if (c->stage > 0) {
            if (status != DMLREF_OK)
                fail_msg("%s: %s", c->what, err.message);
            if (c->stage == 1) {
                status = dmlref_vector_eval(v, 1, &err);
            } else {
                char *reply = repeated("{\"name\": \"m\", \"outputs\": {\"OutputTensor\": [", "1",
                                       20000, "]}}");
                dmlref_reply answer;
                status = dmlref_vector_read_reply(v, reply, strlen(reply), dmlref_vector_outputs(v),
                                                  1, &answer, &err);
                free(reply);
            }
        }
        if (status != DMLREF_ERROR_OUT_OF_MEMORY)
            fail_msg("%s: %s, not the memory cap: %s", c->what, dmlref_status_name(status),
                     status == DMLREF_OK ? "" : err.message);
        snprintf(expected, sizeof expected,
                 "%s: %s: the case needs more than the memory cap of "
                 "%llu bytes: ",
                 source, c->path, (unsigned long long)c->cap);
        if (strncmp(err.message, expected, strlen(expected)) != 0)
            fail_msg("%s: \"%s\" does not start with \"%s\"", c->what, err.message, expected);
        assert_contains(err.message, c->needed_for);
        assert_contains(err.message, " in all (DMLREF_MEMORY_CAP sets the cap)");
        assert_true(bytes_needed(err.message) > 0);
        assert_null(strchr(err.message, '\n'));
        dmlref_vector_free(v);
        free(text), free(fill);
    }
}

/* ---- broadcast inputs ------------------------------------------------------------ */

#define GATHER_ND_OF(m_q, input, indices, output, extra)                                           \
    "{\"format\": \"dmlref-vector-1\", \"name\": \"n\", \"operator\": \"GATHER_ND\","              \
    " \"attributes\": {\"InputDimensionCount\": " m_q ", \"IndicesDimensionCount\": " m_q          \
    "}" extra ", \"tensors\": {\"InputTensor\": " input ", \"IndicesTensor\": " indices            \
    ", \"OutputTensor\": " output "}}"
#define MUST_FAIL_ALIGNMENT                                                                        \
    ", \"expect_error\": {\"status\": \"DMLREF_ERROR_INVALID_ALIGNMENT\", \"rule\": \"R-TD-14\"}"

/* An input filled from a generator through strides, and what its buffer
   must hold: element e of the logical order is values[e's last coordinate %
   period] at offset sum(c[i] * strides[i]) (the walk of FORMAT.md). */
typedef struct broadcast_case {
    const char *what;
    const char *text;
    int must_refuse; /* an expect_error case: read with a cap of 8 GiB */
    size_t tensor;   /* the input filled */
    uint32_t element_size, rank, sizes[3], strides[3];
    uint64_t values[2];
    uint32_t period;
    const char *error; /* what the reader must say instead, or NULL */
} broadcast_case;

/* clang-format off */
static const broadcast_case k_broadcast_cases[] = {
    {"65535 x 65535 FLOAT32 zeros over 4 bytes, strides {0, 0}",
     GATHER_OF("{\"dtype\": \"FLOAT32\", \"sizes\": [65535, 65535], \"strides\": [0, 0],"
               " \"generator\": {\"kind\": \"sparse\", \"seed\": 1, \"density\": 0}}",
               "{\"dtype\": \"UINT32\", \"sizes\": [1, 65535], \"generator\": {\"kind\":"
               " \"index\", \"seed\": 2, \"low\": [0], \"high\": [65534]}}",
               "{\"dtype\": \"FLOAT32\"}"),
     0, 0, 4, 2, {65535, 65535, 0}, {0, 0, 0}, {0, 0}, 1, NULL},
    {"65535 x 65535 FLOAT16 ones, strides {1, 0}",
     GATHER_OF("{\"dtype\": \"FLOAT16\", \"sizes\": [65535, 65535], \"strides\": [1, 0],"
               " \"generator\": {\"kind\": \"sparse\", \"seed\": 1, \"density\": 1000000}}",
               "{\"dtype\": \"UINT32\", \"sizes\": [1, 65535], \"generator\": {\"kind\":"
               " \"index\", \"seed\": 2, \"low\": [0], \"high\": [65534]}}",
               "{\"dtype\": \"FLOAT16\"}"),
     0, 0, 2, 2, {65535, 65535, 0}, {1, 0, 0}, {0x3C00, 0}, 1, NULL},
    {"INT8 -7 over strides {0, 5, 1}",
     GATHER_OF("{\"dtype\": \"INT8\", \"sizes\": [3, 4, 5], \"strides\": [0, 5, 1], \"generator\":"
               " {\"kind\": \"index\", \"seed\": 3, \"low\": [-7], \"high\": [-7]}}",
               "{\"dtype\": \"INT32\", \"sizes\": [1, 4, 5], \"generator\": {\"kind\": \"index\","
               " \"seed\": 4, \"low\": [0], \"high\": [2]}}",
               "{\"dtype\": \"INT8\"}"),
     0, 0, 1, 3, {3, 4, 5}, {0, 5, 1}, {0xF9, 0}, 1, NULL},
    {"INT16 ones over overlapping strides {1, 1}",
     GATHER_OF("{\"dtype\": \"INT16\", \"sizes\": [300, 300], \"strides\": [1, 1], \"generator\":"
               " {\"kind\": \"sparse\", \"seed\": 3, \"density\": 1000000}}",
               "{\"dtype\": \"UINT32\", \"sizes\": [1, 300], \"generator\": {\"kind\": \"index\","
               " \"seed\": 4, \"low\": [0], \"high\": [299]}}",
               "{\"dtype\": \"INT16\"}"),
     0, 0, 2, 2, {300, 300, 0}, {1, 1, 0}, {1, 0}, 1, NULL},
    {"UINT64 2^64-1 over strides {9, 0, 1} and padding",
     GATHER_OF("{\"dtype\": \"UINT64\", \"sizes\": [7, 1, 9], \"strides\": [9, 0, 1],"
               " \"total_bytes\": 1000, \"generator\": {\"kind\": \"index\", \"seed\": 3, \"low\":"
               " [\"18446744073709551615\"], \"high\": [\"18446744073709551615\"]}}",
               "{\"dtype\": \"UINT32\", \"sizes\": [1, 1, 9], \"generator\": {\"kind\": \"index\","
               " \"seed\": 4, \"low\": [0], \"high\": [6]}}",
               "{\"dtype\": \"UINT64\"}"),
     0, 0, 8, 3, {7, 1, 9}, {9, 0, 1}, {UINT64_MAX, 0}, 1, NULL},
    {"GatherND tuples (1, 2) over strides {0, 1}",
     GATHER_ND_OF("2", "{\"dtype\": \"FLOAT32\", \"sizes\": [3, 4], \"generator\": {\"kind\":"
                       " \"bits\", \"seed\": 1}}",
                  "{\"dtype\": \"INT32\", \"sizes\": [1000, 2], \"strides\": [0, 1], \"generator\":"
                  " {\"kind\": \"index\", \"seed\": 5, \"low\": [1, 2], \"high\": [1, 2]}}",
                  "{\"dtype\": \"FLOAT32\"}", ""),
     0, 1, 4, 2, {1000, 2, 0}, {0, 1, 0}, {1, 2}, 2, NULL},
    {"GatherND tuples (3, 0) over strides {2, 12, 1}",
     GATHER_ND_OF("3", "{\"dtype\": \"INT8\", \"sizes\": [4, 4, 3], \"generator\": {\"kind\":"
                       " \"bits\", \"seed\": 1}}",
                  "{\"dtype\": \"UINT32\", \"sizes\": [5, 6, 2], \"strides\": [2, 12, 1],"
                  " \"generator\": {\"kind\": \"index\", \"seed\": 5, \"low\": [3, 0], \"high\":"
                  " [3, 0]}}",
                  "{\"dtype\": \"INT8\"}", ""),
     0, 1, 4, 3, {5, 6, 2}, {2, 12, 1}, {3, 0}, 2, NULL},
    {"GatherND tuples (4, 4) over strides {0, 0}: one value",
     GATHER_ND_OF("2", "{\"dtype\": \"FLOAT32\", \"sizes\": [5, 5], \"generator\": {\"kind\":"
                       " \"bits\", \"seed\": 1}}",
                  "{\"dtype\": \"INT64\", \"sizes\": [3, 2], \"strides\": [0, 0], \"generator\":"
                  " {\"kind\": \"index\", \"seed\": 5, \"low\": [4, 4], \"high\": [4, 4]}}",
                  "{\"dtype\": \"FLOAT32\"}", ""),
     0, 1, 8, 2, {3, 2, 0}, {0, 0, 0}, {4, 0}, 1, NULL},
    {"a refused case: 2^30 GatherND tuples (3, 1) over 8 bytes",
     GATHER_ND_OF("3", "{\"dtype\": \"FLOAT32\", \"sizes\": [1, 4, 4], \"generator\": {\"kind\":"
                       " \"bits\", \"seed\": 1}}",
                  "{\"dtype\": \"UINT32\", \"sizes\": [2, 268435455, 2], \"strides\": [0, 0, 1],"
                  " \"generator\": {\"kind\": \"index\", \"seed\": 5, \"low\": [3, 1], \"high\":"
                  " [3, 1]}}",
                  "{\"dtype\": \"FLOAT32\", \"sizes\": [1, 1, 1], \"alignment\": 3}",
                  MUST_FAIL_ALIGNMENT),
     1, 1, 4, 3, {2, 268435455, 2}, {0, 0, 1}, {3, 1}, 2, NULL},
    {"GatherND tuples (0, 1) over strides {1, 1}: two values at one address",
     GATHER_ND_OF("2", "{\"dtype\": \"FLOAT32\", \"sizes\": [4, 4], \"generator\": {\"kind\":"
                       " \"bits\", \"seed\": 1}}",
                  "{\"dtype\": \"INT32\", \"sizes\": [4, 2], \"strides\": [1, 1], \"generator\":"
                  " {\"kind\": \"index\", \"seed\": 5, \"low\": [0, 1], \"high\": [0, 1]}}",
                  "{\"dtype\": \"FLOAT32\"}", ""),
     0, 1, 4, 2, {4, 2, 0}, {1, 1, 0}, {0, 1}, 2,
     "case.json: $.tensors.IndicesTensor.generator: an element of last coordinate 1 differs from "
     "an element of last coordinate 0 stored at the same address (element offset 1)"},
    {"a refused case: 2^30 GatherND tuples (5, 6) over strides {1, 0, 1}, two values at one "
     "address only past 2^29 elements",
     GATHER_ND_OF("3", "{\"dtype\": \"FLOAT32\", \"sizes\": [1, 8, 8], \"generator\": {\"kind\":"
                       " \"bits\", \"seed\": 1}}",
                  "{\"dtype\": \"UINT32\", \"sizes\": [2, 268435455, 2], \"strides\": [1, 0, 1],"
                  " \"generator\": {\"kind\": \"index\", \"seed\": 5, \"low\": [5, 6], \"high\":"
                  " [5, 6]}}",
                  "{\"dtype\": \"FLOAT32\", \"sizes\": [1, 1, 1], \"alignment\": 3}",
                  MUST_FAIL_ALIGNMENT),
     1, 1, 4, 3, {2, 268435455, 2}, {1, 0, 1}, {5, 6}, 2,
     "case.json: $.tensors.IndicesTensor.generator: an element of last coordinate 1 differs from "
     "an element of last coordinate 0 stored at the same address (element offset 1)"},
};
/* clang-format on */

/* The buffer the walk of FORMAT.md gives a broadcast case (caller frees),
   or NULL when it has too many elements to walk here. */
static unsigned char *walked_buffer(const broadcast_case *c, uint64_t bytes)
{
    uint64_t count = 1, e, coord[3] = {0, 0, 0};
    unsigned char *buffer;
    uint32_t d;
    for (d = 0; d < c->rank; ++d)
        count *= c->sizes[d];
    if (count > 4000000)
        return NULL;
    buffer = calloc((size_t)bytes, 1);
    assert_non_null(buffer);
    for (e = 0; e < count; ++e) {
        uint64_t offset = 0, value = c->values[coord[c->rank - 1] % c->period];
        uint8_t u8 = (uint8_t)value;
        uint16_t u16 = (uint16_t)value;
        uint32_t u32 = (uint32_t)value;
        for (d = 0; d < c->rank; ++d)
            offset += coord[d] * c->strides[d];
        assert_true((offset + 1) * c->element_size <= bytes);
        switch (c->element_size) { /* host order, as the reader stores */
        case 1:
            memcpy(buffer + offset, &u8, 1);
            break;
        case 2:
            memcpy(buffer + offset * 2, &u16, 2);
            break;
        case 4:
            memcpy(buffer + offset * 4, &u32, 4);
            break;
        default:
            memcpy(buffer + offset * 8, &value, 8);
            break;
        }
        for (d = c->rank; d-- > 0 && ++coord[d] == c->sizes[d];)
            coord[d] = 0;
    }
    return buffer;
}

/* Ensure an input filled from a generator whose elements are one value, or
   one per last coordinate, over a broadcast layout costs the reader work in
   proportion to its buffer, not to its logical elements (65535 x 65535 of
   them over 4 bytes took 46 s): the offsets visited (vtensor.fill_work,
   the one number this test reads inside the vector) stay below the rank
   plus 8 times the buffer's elements.  The buffer is bit for bit what the
   walk of FORMAT.md gives; two values at one address are refused wherever
   they lie in the logical order; eval and verify of the huge cases are as
   quick, and a case that must be refused verifies as refused. */
static void test_broadcast_generator_fill_is_proportional_to_the_buffer(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < sizeof k_broadcast_cases / sizeof k_broadcast_cases[0]; ++i) {
        const broadcast_case *c = &k_broadcast_cases[i];
        dmlref_vector_read_options options = {DMLREF_VECTOR_READ_CASE, 0};
        dmlref_vector *v = NULL, *again = NULL;
        dmlref_error err;
        dmlref_status status;
        const dmlref_binding *b;
        const vtensor *t;
        unsigned char *walked;
        uint64_t slots;
        char *written;
        if (c->must_refuse)
            options.flags = 0, options.memory_cap = 8ull << 30;
        status = dmlref_vector_parse(c->text, strlen(c->text), "case.json", &options, &v, &err);
        if (c->error) {
            assert_int_equal(status, DMLREF_ERROR_VECTOR_SCHEMA);
            if (strncmp(err.message, c->error, strlen(c->error)) != 0)
                fail_msg("%s: said \"%s\"", c->what, err.message);
            continue;
        }
        if (status != DMLREF_OK)
            fail_msg("%s: %s", c->what, err.message);
        assert_true(dmlref_vector_has_data(v));
        b = &dmlref_vector_inputs(v)[c->tensor];
        t = &v->tensors[c->tensor];
        slots = t->buffer_bytes / c->element_size;
        if (t->fill_work > (uint64_t)(c->rank + 8) * (slots + 1))
            fail_msg("%s: %llu offsets visited for a buffer of %llu elements", c->what,
                     (unsigned long long)t->fill_work, (unsigned long long)slots);
        walked = walked_buffer(c, t->buffer_bytes);
        if (walked) {
            assert_memory_equal(t->buffer, walked, (size_t)t->buffer_bytes);
            free(walked);
        } else { /* each offset up to the span holds the value, the padding zeros */
            uint64_t k, span = 0;
            uint32_t d;
            for (d = 0; d < c->rank; ++d)
                span += (uint64_t)c->strides[d] * (c->sizes[d] - 1);
            for (k = 0; k < slots; ++k) {
                uint64_t got = 0;
                uint16_t half;
                uint32_t word;
                if (c->element_size == 2)
                    memcpy(&half, (const unsigned char *)b->data + 2 * k, 2), got = half;
                else
                    memcpy(&word, (const unsigned char *)b->data + 4 * k, 4), got = word;
                if (got != (k > span ? 0 : c->values[c->period > 1 ? k % c->period : 0]))
                    fail_msg("%s: element offset %llu holds 0x%llx", c->what, (unsigned long long)k,
                             (unsigned long long)got);
            }
        }
        if (c->must_refuse) {
            assert_int_equal(dmlref_vector_verify(v, 1, &err), DMLREF_OK);
            dmlref_vector_free(v);
            continue;
        }
        /* eval, write, read back and verify: as quick as the buffers */
        assert_int_equal(dmlref_vector_eval(v, 1, &err), DMLREF_OK);
        assert_int_equal(dmlref_vector_write(v, &written, NULL, &err), DMLREF_OK);
        again = parse(written, 0);
        if (dmlref_vector_verify(again, 1, &err) != DMLREF_OK)
            fail_msg("%s: %s", c->what, err.message);
        dmlref_vector_free(again);
        dmlref_vector_free(v);
        free(written);
    }
}

/* Ensure Scatter's any_of lists keep each competing bit pattern once, in
   the order of the updates, however many compete: 3000 updates of one
   element take the sorting path, a handful the scan.  The input's axis is
   as long as the indices' (R-SC-4, D16): every index value is 0. */
static void test_eval_scatter_any_of_keeps_first_of_each_value(void **state)
{
    static const uint32_t counts[] = {3, 17, 3000};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof counts / sizeof counts[0]; ++i) {
        char *sevens = repeated("", "7", counts[i], "");
        char *text = text_printf(
            "{\"format\": \"dmlref-vector-1\", \"name\": \"s\", \"operator\": \"SCATTER_ELEMENTS\","
            " \"attributes\": {\"Axis\": 0}, \"tensors\": {"
            " \"InputTensor\": {\"dtype\": \"UINT8\", \"sizes\": [%u], \"data\": [%s]},"
            " \"IndicesTensor\": {\"dtype\": \"INT32\", \"sizes\": [%u], \"generator\":"
            " {\"kind\": \"index\", \"seed\": 9, \"low\": [0], \"high\": [0]}},"
            " \"UpdatesTensor\": {\"dtype\": \"UINT8\", \"sizes\": [%u], \"generator\":"
            " {\"kind\": \"bits\", \"seed\": 5}}, \"OutputTensor\": {\"dtype\": \"UINT8\"}}}",
            counts[i], sevens, counts[i], counts[i]);
        dmlref_vector *v = parse(text, DMLREF_VECTOR_READ_CASE);
        const uint8_t *updates = dmlref_vector_inputs(v)[2].data;
        char *list = malloc(8 * 256 + 3 * (size_t)counts[i] + 64), *at = list, *written;
        int seen[256] = {0};
        uint32_t u;
        dmlref_error err;
        assert_non_null(list);
        at += sprintf(at, "\"expected\": [{\"any_of\": [");
        for (u = 0; u < counts[i]; ++u)
            if (!seen[updates[u]]++)
                at += sprintf(at, "%s%u", at[-1] == '[' ? "" : ", ", updates[u]);
        at += sprintf(at, "]}");
        for (u = 1; u < counts[i]; ++u) /* the targets no update reaches */
            at += sprintf(at, ", 7");
        sprintf(at, "]");
        assert_int_equal(dmlref_vector_eval(v, 1, &err), DMLREF_OK);
        assert_int_equal(dmlref_vector_write(v, &written, NULL, &err), DMLREF_OK);
        assert_contains(written, list);
        free(written), free(list), free(text), free(sevens);
        dmlref_vector_free(v);
    }
}

/* Ensure a Scatter whose indices and updates are broadcast along Axis (each
   update repeated, as many times as the input's axis is long at most:
   R-SC-4, D16) gets the any_of lists the repeats give: the one value, once. */
static void test_eval_scatter_broadcast_along_axis(void **state)
{
    char *fives = repeated("", "5", 1000, ""), *nines = repeated("", "9", 1000, "");
    char *sevens = repeated("", "7", 2000, ""), *zeros = repeated("", "0", 65534, "");
    char *rest = repeated("", "7", 999, "");
    char *cases[2][2];
    size_t i;
    (void)state;
    cases[0][0] = text_printf(
        "{\"format\": \"dmlref-vector-1\", \"name\": \"s\", \"operator\": \"SCATTER_ELEMENTS\","
        " \"attributes\": {\"Axis\": 0}, \"tensors\": {"
        " \"InputTensor\": {\"dtype\": \"UINT8\", \"sizes\": [65536], \"strides\": [0],"
        " \"generator\": {\"kind\": \"sparse\", \"seed\": 1, \"density\": 0}},"
        " \"IndicesTensor\": {\"dtype\": \"INT32\", \"sizes\": [65536], \"strides\": [0],"
        " \"generator\": {\"kind\": \"index\", \"seed\": 9, \"low\": [1], \"high\": [1]}},"
        " \"UpdatesTensor\": {\"dtype\": \"UINT8\", \"sizes\": [65536], \"strides\": [0],"
        " \"generator\": {\"kind\": \"sparse\", \"seed\": 5, \"density\": 1000000}},"
        " \"OutputTensor\": {\"dtype\": \"UINT8\"}}}");
    cases[0][1] = text_printf("\"expected\": [0, {\"any_of\": [1]}, %s]", zeros);
    cases[1][0] = text_printf(
        "{\"format\": \"dmlref-vector-1\", \"name\": \"s\", \"operator\": \"SCATTER_ELEMENTS\","
        " \"attributes\": {\"Axis\": 1}, \"tensors\": {"
        " \"InputTensor\": {\"dtype\": \"UINT8\", \"sizes\": [2, 1000], \"data\": [%s]},"
        " \"IndicesTensor\": {\"dtype\": \"INT32\", \"sizes\": [2, 1000], \"strides\": [0, 0],"
        " \"generator\": {\"kind\": \"index\", \"seed\": 9, \"low\": [0], \"high\": [0]}},"
        " \"UpdatesTensor\": {\"dtype\": \"UINT8\", \"sizes\": [2, 1000], \"strides\": [1, 0],"
        " \"data\": [%s, %s]}, \"OutputTensor\": {\"dtype\": \"UINT8\"}}}",
        sevens, fives, nines);
    cases[1][1] =
        text_printf("\"expected\": [{\"any_of\": [5]}, %s, {\"any_of\": [9]}, %s]", rest, rest);
    for (i = 0; i < 2; ++i) {
        char *written = evaluate(cases[i][0]);
        assert_contains(written, cases[i][1]);
        free(written), free(cases[i][0]), free(cases[i][1]);
    }
    free(fives), free(nines), free(sevens), free(zeros), free(rest);
}

/* ---- alignment --------------------------------------------------------------------- */

/* Cases with three tensors, each given an alignment (%llu: the input's, then
   the others'); the NonZero one holds a subnormal, so eval runs it a second
   time for its variant, in buffers of its own. */
static const char *const k_aligned_cases[] = {
    "{\"format\": \"dmlref-vector-1\", \"name\": \"a\", \"operator\": \"GATHER_ELEMENTS\","
    " \"attributes\": {\"Axis\": 0}, \"tensors\": {"
    " \"InputTensor\": {\"dtype\": \"FLOAT64\", \"sizes\": [3], \"alignment\": %llu,"
    " \"data\": [1, 2, 3]},"
    " \"IndicesTensor\": {\"dtype\": \"INT64\", \"sizes\": [2], \"alignment\": %llu,"
    " \"data\": [2, 0]},"
    " \"OutputTensor\": {\"dtype\": \"FLOAT64\", \"alignment\": %llu}}}",
    "{\"format\": \"dmlref-vector-1\", \"name\": \"a\", \"operator\": \"NONZERO_COORDINATES\","
    " \"tensors\": {"
    " \"InputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [4], \"alignment\": %llu,"
    " \"data\": [1.401298464324817e-45, 2, 0, -1.5]},"
    " \"OutputCountTensor\": {\"dtype\": \"UINT32\", \"alignment\": %llu},"
    " \"OutputCoordinatesTensor\": {\"dtype\": \"UINT32\", \"alignment\": %llu}}}",
};

/* Built with ASan or TSan: gcc says so by a macro, clang by __has_feature. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) /* gcc */
#define SANITIZED 1
#elif defined(__has_feature) /* clang */
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* Ensure every buffer starts at a multiple of its tensor's
   GuaranteedBaseOffsetAlignment, whatever dmlref_validate() accepts (any
   power of two from 16 up to 2^31, R-TD-14), so that eval, verify and the subnormal
   variant's own run execute the case instead of refusing the binding. */
static void test_buffers_start_at_their_alignment(void **state)
{
    /* 2^31 in the builds without ASan or TSan: they map shadow memory for
       all of its 2 GiB block, which takes them tens of seconds, and check
       the same code at 4096 */
    static const uint64_t alignments[] = {32, 64, 4096, 2147483648u};
    size_t count = sizeof alignments / sizeof alignments[0] - (SANITIZED ? 1 : 0), i, j, k;
    (void)state;
    for (i = 0; i < count; ++i) {
        for (j = 0; j < 2; ++j) {
            uint64_t alignment = alignments[i];
            /* 2^31 on the input only: an alignment above malloc's costs
               alignment - 1 bytes of the cap, and the variant's run copies
               the input; a cap of 8 GiB holds both */
            uint64_t others = alignment > 4096 ? 1 : alignment;
            dmlref_vector_read_options options = {DMLREF_VECTOR_READ_CASE, 8ull << 30};
            char *text = text_printf(k_aligned_cases[j], (unsigned long long)alignment,
                                     (unsigned long long)(others > 1 ? others : 0),
                                     (unsigned long long)(others > 1 ? others : 0));
            dmlref_vector *v = NULL, *again = NULL;
            const dmlref_binding *inputs, *outputs;
            dmlref_error err;
            char *written;
            dmlref_status status =
                dmlref_vector_parse(text, strlen(text), "case.json", &options, &v, &err);
            /* a 32-bit process may find no 2 GiB to align a buffer in: the
               reader then says so, as it must */
            if (status == DMLREF_ERROR_OUT_OF_MEMORY && SIZE_MAX <= UINT32_MAX &&
                alignment > SIZE_MAX / 4) {
                assert_contains(err.message, "out of memory");
                free(text);
                continue;
            }
            if (status != DMLREF_OK)
                fail_msg("alignment %llu: %s", (unsigned long long)alignment, err.message);
            inputs = dmlref_vector_inputs(v);
            outputs = dmlref_vector_outputs(v);
            for (k = 0; k < dmlref_vector_input_count(v); ++k)
                assert_int_equal((uintptr_t)inputs[k].data % (k == 0 ? alignment : others), 0);
            for (k = 0; k < dmlref_vector_output_count(v); ++k)
                assert_int_equal((uintptr_t)outputs[k].data % others, 0);
            if (dmlref_vector_eval(v, 1, &err) != DMLREF_OK)
                fail_msg("alignment %llu: %s", (unsigned long long)alignment, err.message);
            /* NonZero's flushed subnormal gives another count */
            assert_int_equal(dmlref_vector_variant_count(v), j);
            assert_int_equal(dmlref_vector_write(v, &written, NULL, &err), DMLREF_OK);
            options.flags = 0;
            if (dmlref_vector_parse(written, strlen(written), "case.json", &options, &again,
                                    &err) != DMLREF_OK ||
                dmlref_vector_verify(again, 1, &err) != DMLREF_OK)
                fail_msg("alignment %llu: %s", (unsigned long long)alignment, err.message);
            dmlref_vector_free(again);
            dmlref_vector_free(v);
            free(written), free(text);
        }
    }
}

/* ---- files that are not regular ------------------------------------------------------ */

#if defined(__unix__) || defined(__unix) || (defined(__APPLE__) && defined(__MACH__))
#include <sys/stat.h>
#include <unistd.h>
#define HAVE_POSIX_FILES 1
#endif

/* Ensure dmlref_vector_load() reads regular files only: a FIFO (which would
   block an open until a writer came), a device and a directory are refused
   at once with one line naming the path; a regular file still loads, its
   text counted against the memory cap.  An alarm turns a reader that blocks
   into a failure instead of a hang. */
static void test_load_refuses_what_is_not_a_regular_file(void **state)
{
#ifdef HAVE_POSIX_FILES
    char dir[] = "/tmp/dmlref-load-XXXXXX", fifo[64], file[64];
    const char *paths[3];
    const char *kinds[3] = {"a FIFO", "a character device", "a directory"};
    dmlref_vector_read_options as_case = {DMLREF_VECTOR_READ_CASE, 0};
    dmlref_vector_read_options small = {DMLREF_VECTOR_READ_CASE, 100};
    dmlref_vector *v = NULL;
    dmlref_error err;
    FILE *f;
    size_t i;
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/fifo.json", dir);
    snprintf(file, sizeof file, "%s/case.json", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    paths[0] = fifo, paths[1] = "/dev/null", paths[2] = dir;
    alarm(20);
    for (i = 0; i < 3; ++i) {
        char expected[160];
        assert_int_equal(dmlref_vector_load(paths[i], NULL, &v, &err), DMLREF_ERROR_IO);
        assert_null(v);
        snprintf(expected, sizeof expected, "%s: not a regular file (%s)", paths[i], kinds[i]);
        if (strncmp(err.message, expected, strlen(expected)) != 0)
            fail_msg("\"%s\" does not start with \"%s\"", err.message, expected);
        assert_null(strchr(err.message, '\n'));
    }
    alarm(0);
    f = fopen(file, "wb");
    assert_non_null(f);
    fputs(k_subnormal_case, f);
    fclose(f);
    assert_int_equal(dmlref_vector_load(file, &as_case, &v, &err), DMLREF_OK);
    dmlref_vector_free(v);
    assert_int_equal(dmlref_vector_load(file, &small, &v, &err), DMLREF_ERROR_OUT_OF_MEMORY);
    assert_contains(err.message, ": $: the case needs more than the memory cap of 100 bytes: ");
    assert_contains(err.message, " bytes for the file's text, ");
    assert_int_equal(remove(file), 0);
    assert_int_equal(remove(fifo), 0);
    assert_int_equal(rmdir(dir), 0);
#else
    (void)state;
    skip();
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_element_spellings),
        cmocka_unit_test(test_generators),
        cmocka_unit_test(test_eval_scatter_duplicates_any_of),
        cmocka_unit_test(test_minus_zero_token_only_where_a_number_starts),
        cmocka_unit_test(test_eval_nonzero_nulls_and_prefix_digest),
        cmocka_unit_test(test_eval_digests_keeps_no_elements),
        cmocka_unit_test(test_compare_reports_first_wrong_element),
        cmocka_unit_test(test_verify_catches_tampering),
        cmocka_unit_test(test_expect_error_is_checked),
        cmocka_unit_test(test_eval_infers_output_sizes),
        cmocka_unit_test(test_memory_cap_and_validation_paths),
        cmocka_unit_test(test_set_feature_level_writes_a_level),
        cmocka_unit_test(test_refused_vectors_survive_every_path),
        cmocka_unit_test(test_refused_case_buffers),
        cmocka_unit_test(test_read_refused_flag),
        cmocka_unit_test(test_variant_round_trip),
        cmocka_unit_test(test_variant_strict_refusals),
        cmocka_unit_test(test_eval_adds_variant_when_it_applies),
        cmocka_unit_test(test_compare_variant),
        cmocka_unit_test(test_verify_checks_variants),
        cmocka_unit_test(test_parse_tree_charge_bounds_what_jansson_allocates),
        cmocka_unit_test(test_allocation_failures_inside_jansson_are_reported),
        cmocka_unit_test(test_one_memory_cap_covers_a_case),
        cmocka_unit_test(test_broadcast_generator_fill_is_proportional_to_the_buffer),
        cmocka_unit_test(test_eval_scatter_any_of_keeps_first_of_each_value),
        cmocka_unit_test(test_eval_scatter_broadcast_along_axis),
        cmocka_unit_test(test_buffers_start_at_their_alignment),
        cmocka_unit_test(test_load_refuses_what_is_not_a_regular_file),
    };
    return cmocka_run_group_tests_name("vectors", tests, NULL, NULL);
}
