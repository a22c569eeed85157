/*
 * test_playground.c - the playground's door (src/web/playground.c), built
 * natively: each row gives a case, an element to explain, and what the
 * answer must hold at JSON paths ("result.rule", "tensors.2.values.11").
 * tests/cross/test_playground.mjs checks the page itself, in a browser, against
 * the command.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "web/playground.h"

#define GATHER_ND1_CASE(batch, level) GATHER_ND1_CASE_INDEXED(batch, level, "0, 1, 1, -2")
#define GATHER_ND1_CASE_INDEXED(batch, level, indices)                                             \
    "{\"format\": \"dmlref-vector-1\", \"name\": \"t\", \"operator\": \"GATHER_ND1\", " level      \
    "\"attributes\": {\"InputDimensionCount\": 3, \"IndicesDimensionCount\": 3, "                  \
    "\"BatchDimensionCount\": " batch "}, \"tensors\": {"                                          \
    "\"InputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [2, 2, 3], "                             \
    "\"data\": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]}, "                                         \
    "\"IndicesTensor\": {\"dtype\": \"INT32\", \"sizes\": [2, 2, 1], \"data\": [" indices "]}, "   \
    "\"OutputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [2, 2, 3]}}}"

static const char k_nonzero[] =
    "{\"format\": \"dmlref-vector-1\", \"name\": \"t\", \"operator\": \"NONZERO_COORDINATES\", "
    "\"tensors\": {\"InputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [2, 3], "
    "\"data\": [0, 1.5, -0.0, \"nan\", 0, -2]}, "
    "\"OutputCountTensor\": {\"dtype\": \"UINT32\", \"sizes\": [1]}, "
    "\"OutputCoordinatesTensor\": {\"dtype\": \"UINT32\", \"sizes\": [6, 2]}}}";

/* FORMAT.md's example of a variant: one subnormal counted, or flushed. */
#define NONZERO_SUBNORMAL_TENSORS                                                                  \
    "\"tensors\": {\"InputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [4], "                     \
    "\"data\": [1.401298464324817e-45, -0.0, -1.1754942106924411e-38, 0]}, "                       \
    "\"OutputCountTensor\": {\"dtype\": \"UINT32\", \"sizes\": [1]}, "                             \
    "\"OutputCoordinatesTensor\": {\"dtype\": \"UINT32\", \"sizes\": [4, 1]}}"

static const char k_nonzero_subnormal[] =
    "{\"format\": \"dmlref-vector-1\", \"name\": \"t\", \"operator\": "
    "\"NONZERO_COORDINATES\", " NONZERO_SUBNORMAL_TENSORS "}";

/* A vector whose stated variant is wrong (a count of 1): the page shows what
   eval computes, not what the text claims. */
static const char k_nonzero_stale_variant[] =
    "{\"format\": \"dmlref-vector-2\", \"name\": \"t\", \"operator\": "
    "\"NONZERO_COORDINATES\", " NONZERO_SUBNORMAL_TENSORS
    ", \"variants\": [{\"name\": \"subnormals_flushed\", \"rule\": "
    "\"R-NZ-10\", \"outputs\": {\"OutputCountTensor\": {\"expected\": [1]}, "
    "\"OutputCoordinatesTensor\": {\"expected\": [3, null, null, null]}}}]}";

static const char k_scatter_duplicates[] =
    "{\"format\": \"dmlref-vector-1\", \"name\": \"t\", \"operator\": \"SCATTER_ELEMENTS\", "
    "\"attributes\": {\"Axis\": 0}, \"tensors\": {"
    "\"InputTensor\": {\"dtype\": \"INT8\", \"sizes\": [2], \"data\": [0, 0]}, "
    "\"IndicesTensor\": {\"dtype\": \"INT32\", \"sizes\": [2], \"data\": [1, 1]}, "
    "\"UpdatesTensor\": {\"dtype\": \"INT8\", \"sizes\": [2], \"data\": [5, 6]}, "
    "\"OutputTensor\": {\"dtype\": \"INT8\", \"sizes\": [2]}}}";

typedef struct expectation {
    const char *path;  /* dotted: keys and array positions */
    const char *value; /* a string's text, or any other value as compact JSON */
} expectation;

typedef struct playground_row {
    const char *what;
    const char *text;
    const char *element;
    expectation expect[8];
} playground_row;

static const playground_row k_rows[] = {
    {"a gathered element names the input element and the index it comes from",
     GATHER_ND1_CASE("1", ""),
     "OutputTensor[1,1,2]",
     {{"read", "true"},
      {"result.status", "DMLREF_OK"},
      {"tensors.2.values.11", "9"},
      {"sources.0.tensor", "InputTensor"},
      {"sources.0.at", "[1,0,2]"},
      {"sources.1.tensor", "IndicesTensor"},
      {"sources.1.role", "index"},
      {"levels.2.rule", "R-GN-8"}}},
    {"a refused case gives its rule and path, and downloads as a vector expecting the refusal",
     GATHER_ND1_CASE("3", ""),
     "OutputTensor[0,0,0]",
     {{"result.status", "DMLREF_ERROR_INVALID_ATTRIBUTE"},
      {"result.rule", "R-GN-3"},
      {"result.path", "$.attributes.BatchDimensionCount"},
      {"levels.14.rule", "R-GN-3"},
      {"tensors.2.values", "null"},
      {"sources", "[]"}}},
    {"a case below its operator's feature level is refused at that level",
     GATHER_ND1_CASE("1", "\"feature_level\": \"2_1\", "),
     NULL,
     {{"feature_level", "2_1"},
      {"result.status", "DMLREF_ERROR_UNSUPPORTED_OPERATOR"},
      {"result.rule", "R-GN-8"},
      {"levels.3.status", "DMLREF_OK"}}},
    {"an index out of range refuses the case at every level whose descriptors are valid",
     GATHER_ND1_CASE_INDEXED("1", "", "0, 1, 1, 2"),
     NULL,
     {{"result.status", "DMLREF_ERROR_INDEX_OUT_OF_RANGE"},
      {"levels.2.rule", "R-GN-8"},
      {"levels.3.status", "DMLREF_ERROR_INDEX_OUT_OF_RANGE"},
      {"levels.3.rule", "D1"},
      {"levels.14.status", "DMLREF_ERROR_INDEX_OUT_OF_RANGE"}}},
    {"a case refused at its own level still has its indices checked at the levels that accept it",
     GATHER_ND1_CASE_INDEXED("1", "\"feature_level\": \"2_1\", ", "0, 1, 1, 2"),
     NULL,
     {{"result.rule", "R-GN-8"},
      {"levels.3.status", "DMLREF_ERROR_INDEX_OUT_OF_RANGE"},
      {"levels.14.rule", "D1"}}},
    {"under clamp the same index is clamped (2 to 1: InputTensor[1, 1, 2]) at every level",
     GATHER_ND1_CASE_INDEXED("1", "\"oob\": \"clamp\", ", "0, 1, 1, 2"),
     "OutputTensor[1,1,2]",
     {{"result.status", "DMLREF_OK"},
      {"levels.3.status", "DMLREF_OK"},
      {"levels.14.status", "DMLREF_OK"},
      {"tensors.2.values.11", "12"}}},
    {"text that is not JSON is not read, and the message says where",
     "{\"format\": ",
     NULL,
     {{"read", "false"}, {"status", "DMLREF_ERROR_VECTOR_PARSE"}}},
    {"NonZero's rows past the count are null, its coordinates the input element's",
     k_nonzero,
     "OutputCoordinatesTensor[2,1]",
     {{"tensors.1.values", "[\"3\"]"},
      {"tensors.2.values.5", "2"},
      {"tensors.2.values.6", "null"},
      {"sources.0.at", "[1,2]"},
      {"sources.0.role", "value"},
      {"variants", "[]"}}},
    {"a permitted variant's outputs are shown beside the golden ones",
     k_nonzero_subnormal,
     NULL,
     {{"tensors.1.values", "[\"2\"]"},
      {"tensors.2.values", "[\"0\",\"2\",null,null]"},
      {"variants.0.name", "subnormals_flushed"},
      {"variants.0.rule", "R-NZ-10"},
      {"variants.0.outputs.0.name", "OutputCountTensor"},
      {"variants.0.outputs.0.values", "[\"0\"]"},
      {"variants.0.outputs.1.values", "[null,null,null,null]"},
      {"variants.1", "(absent)"}}},
    {"the variants shown are those eval computes, not those the text states",
     k_nonzero_stale_variant,
     NULL,
     {{"read", "true"},
      {"result.status", "DMLREF_OK"},
      {"variants.0.outputs.0.values", "[\"0\"]"},
      {"variants.0.outputs.1.values", "[null,null,null,null]"}}},
    {"Scatter's duplicates are any of their values, the overwritten update listed",
     k_scatter_duplicates,
     "OutputTensor[1]",
     {{"tensors.3.values.1", "[\"5\",\"6\"]"},
      {"sources.0.tensor", "UpdatesTensor"},
      {"sources.0.at", "[1]"},
      {"sources.2.role", "loser"},
      {"sources.2.at", "[0]"}}},
    {"an element the case lacks is explained by nothing",
     GATHER_ND1_CASE("1", ""),
     "OutputTensor[9,9,9]",
     {{"result.status", "DMLREF_OK"}, {"sources", "[]"}}},
};

/* The value at a dotted path, or NULL. */
static json_t *at_path(json_t *root, const char *path)
{
    char key[64];
    json_t *node = root;
    while (node && *path) {
        size_t n = strcspn(path, ".");
        snprintf(key, sizeof key, "%.*s", (int)n, path);
        node = json_is_array(node) ? json_array_get(node, strtoul(key, NULL, 10))
                                   : json_object_get(node, key);
        path += n + (path[n] == '.');
    }
    return node;
}

static void test_the_answer_holds_what_the_page_shows(void **state)
{
    size_t i, k;
    (void)state;
    for (i = 0; i < sizeof k_rows / sizeof k_rows[0]; ++i) {
        const playground_row *row = &k_rows[i];
        char *answer = dmlref_playground_run(row->text, "case.json", row->element);
        json_error_t error;
        json_t *root;
        assert_non_null(answer);
        root = json_loads(answer, 0, &error);
        if (!root)
            fail_msg("%s: the answer is not JSON: %s", row->what, error.text);
        for (k = 0; k < 8 && row->expect[k].path; ++k) {
            json_t *value = at_path(root, row->expect[k].path);
            char *text = value && !json_is_string(value)
                             ? json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY)
                             : NULL;
            const char *got = !value ? "(absent)" : text ? text : json_string_value(value);
            if (strcmp(got, row->expect[k].value) != 0)
                fail_msg("%s: %s is %s, not %s", row->what, row->expect[k].path, got,
                         row->expect[k].value);
            free(text);
        }
        json_decref(root);
        dmlref_playground_free(answer);
    }
}

/* What a refusal, an unreadable text and a missing element say in words. */
static void test_messages_name_the_file_and_the_rule(void **state)
{
    struct {
        const char *text, *element, *path, *contains;
    } k_messages[] = {
        {"{\"format\": ", NULL, "message", "case.json: $: line 1"},
        {GATHER_ND1_CASE("3", ""), NULL, "result.message", "must be less than InputDimensionCount"},
        {GATHER_ND1_CASE("3", ""), NULL, "vector",
         "\"expect_error\": {\"status\": "
         "\"DMLREF_ERROR_INVALID_ATTRIBUTE\", \"rule\": "
         "\"R-GN-3\"}"},
        {GATHER_ND1_CASE("1", ""), "OutputTensor[9,9,9]", "explain_error",
         "OutputTensor.Sizes[0] = 2"},
        {GATHER_ND1_CASE("1", ""), "OutputTensor[0,1,0]", "show", "InputTensor: FLOAT32 [2, 2, 3]"},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof k_messages / sizeof k_messages[0]; ++i) {
        char *answer =
            dmlref_playground_run(k_messages[i].text, "case.json", k_messages[i].element);
        json_t *root = json_loads(answer, 0, NULL);
        const char *text = json_string_value(at_path(root, k_messages[i].path));
        if (!text || !strstr(text, k_messages[i].contains))
            fail_msg("answer %u: %s is \"%s\", without \"%s\"", (unsigned)i, k_messages[i].path,
                     text ? text : "(absent)", k_messages[i].contains);
        json_decref(root);
        dmlref_playground_free(answer);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_answer_holds_what_the_page_shows),
        cmocka_unit_test(test_messages_name_the_file_and_the_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
