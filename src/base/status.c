/*
 * status.c - status names, error messages, version, and the names of the
 * DirectML enums used in messages and vectors (data types, feature levels;
 * operators are named by their table, src/core/operators.c).
 */
#include "base/base.h"

#include <stdarg.h>
#include <stdio.h>

#define STR2(x) #x
#define STR(x) STR2(x)

static const struct {
    dmlref_status status;
    const char *name;
} k_status_names[] = {
    {DMLREF_OK, "DMLREF_OK"},
    {DMLREF_ERROR_INVALID_ARGUMENT, "DMLREF_ERROR_INVALID_ARGUMENT"},
    {DMLREF_ERROR_UNSUPPORTED_OPERATOR, "DMLREF_ERROR_UNSUPPORTED_OPERATOR"},
    {DMLREF_ERROR_UNSUPPORTED_DATA_TYPE, "DMLREF_ERROR_UNSUPPORTED_DATA_TYPE"},
    {DMLREF_ERROR_UNSUPPORTED_DIMENSION_COUNT, "DMLREF_ERROR_UNSUPPORTED_DIMENSION_COUNT"},
    {DMLREF_ERROR_UNSUPPORTED_LAYOUT, "DMLREF_ERROR_UNSUPPORTED_LAYOUT"},
    {DMLREF_ERROR_INVALID_SIZES, "DMLREF_ERROR_INVALID_SIZES"},
    {DMLREF_ERROR_INVALID_TOTAL_SIZE, "DMLREF_ERROR_INVALID_TOTAL_SIZE"},
    {DMLREF_ERROR_TENSOR_TOO_LARGE, "DMLREF_ERROR_TENSOR_TOO_LARGE"},
    {DMLREF_ERROR_INVALID_FLAGS, "DMLREF_ERROR_INVALID_FLAGS"},
    {DMLREF_ERROR_INVALID_ALIGNMENT, "DMLREF_ERROR_INVALID_ALIGNMENT"},
    {DMLREF_ERROR_OUTPUT_ALIASING, "DMLREF_ERROR_OUTPUT_ALIASING"},
    {DMLREF_ERROR_DIMENSION_COUNT_MISMATCH, "DMLREF_ERROR_DIMENSION_COUNT_MISMATCH"},
    {DMLREF_ERROR_DATA_TYPE_MISMATCH, "DMLREF_ERROR_DATA_TYPE_MISMATCH"},
    {DMLREF_ERROR_SIZE_MISMATCH, "DMLREF_ERROR_SIZE_MISMATCH"},
    {DMLREF_ERROR_INVALID_ATTRIBUTE, "DMLREF_ERROR_INVALID_ATTRIBUTE"},
    {DMLREF_ERROR_BINDING_COUNT, "DMLREF_ERROR_BINDING_COUNT"},
    {DMLREF_ERROR_BINDING_MISSING, "DMLREF_ERROR_BINDING_MISSING"},
    {DMLREF_ERROR_BINDING_TOO_SMALL, "DMLREF_ERROR_BINDING_TOO_SMALL"},
    {DMLREF_ERROR_BINDING_OVERLAP, "DMLREF_ERROR_BINDING_OVERLAP"},
    {DMLREF_ERROR_BINDING_MISALIGNED, "DMLREF_ERROR_BINDING_MISALIGNED"},
    {DMLREF_ERROR_INDEX_OUT_OF_RANGE, "DMLREF_ERROR_INDEX_OUT_OF_RANGE"},
    {DMLREF_ERROR_OUT_OF_MEMORY, "DMLREF_ERROR_OUT_OF_MEMORY"},
    {DMLREF_ERROR_VECTOR_PARSE, "DMLREF_ERROR_VECTOR_PARSE"},
    {DMLREF_ERROR_VECTOR_SCHEMA, "DMLREF_ERROR_VECTOR_SCHEMA"},
    {DMLREF_ERROR_IO, "DMLREF_ERROR_IO"},
    {DMLREF_ERROR_MISMATCH, "DMLREF_ERROR_MISMATCH"},
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

const char *dmlref_status_name(dmlref_status status)
{
    size_t i;
    for (i = 0; i < COUNT_OF(k_status_names); ++i)
        if (k_status_names[i].status == status)
            return k_status_names[i].name;
    return "DMLREF_ERROR_UNKNOWN";
}

int dmlref_status_from_name(const char *name, dmlref_status *status)
{
    size_t i;
    if (!name)
        return 0;
    for (i = 0; i < COUNT_OF(k_status_names); ++i) {
        if (strcmp(k_status_names[i].name, name) == 0) {
            if (status)
                *status = k_status_names[i].status;
            return 1;
        }
    }
    return 0;
}

unsigned dmlref_version_number(void)
{
    return DMLREF_VERSION_NUMBER;
}

const char *dmlref_version_string(void)
{
    return STR(DMLREF_VERSION_MAJOR) "." STR(DMLREF_VERSION_MINOR) "." STR(DMLREF_VERSION_PATCH);
}

/* A message is one line: control characters that a file's strings may have
   carried into it become '?'. */
static void one_line(char *message)
{
    for (; *message; ++message)
        if ((unsigned char)*message < 0x20 || *message == 0x7F)
            *message = '?';
}

dmlref_status set_error(dmlref_error *err, dmlref_status status, const char *rule,
                        const char *format, ...)
{
    va_list args;
    size_t used;
    if (!err)
        return status;
    err->status = status;
    snprintf(err->rule, sizeof err->rule, "%s", rule ? rule : "");
    va_start(args, format);
    vsnprintf(err->message, sizeof err->message, format, args);
    va_end(args);
    used = strlen(err->message);
    if (rule && *rule && used < sizeof err->message)
        snprintf(err->message + used, sizeof err->message - used, " (%s)", rule);
    one_line(err->message);
    return status;
}

void prefix_error(dmlref_error *err, const char *source, const char *path)
{
    char prefix[DMLREF_ERROR_MESSAGE_CAPACITY];
    size_t room = sizeof err->message - 1, length, keep;
    int n;
    if (!err)
        return;
    n = snprintf(prefix, sizeof prefix, "%s: %s: ", source, path);
    length = n < 0 ? 0 : ((size_t)n < room ? (size_t)n : room);
    keep = strlen(err->message);
    if (keep > room - length)
        keep = room - length; /* the message's tail gives way */
    memmove(err->message + length, err->message, keep);
    memcpy(err->message, prefix, length);
    err->message[length + keep] = '\0';
    one_line(err->message);
}

/* ---- enum names ---------------------------------------------------------- */

static const struct {
    dmlref_tensor_data_type type;
    const char *name;
    uint32_t size;
} k_data_types[] = {
    {DMLREF_TENSOR_DATA_TYPE_FLOAT32, "FLOAT32", 4},
    {DMLREF_TENSOR_DATA_TYPE_FLOAT16, "FLOAT16", 2},
    {DMLREF_TENSOR_DATA_TYPE_UINT32, "UINT32", 4},
    {DMLREF_TENSOR_DATA_TYPE_UINT16, "UINT16", 2},
    {DMLREF_TENSOR_DATA_TYPE_UINT8, "UINT8", 1},
    {DMLREF_TENSOR_DATA_TYPE_INT32, "INT32", 4},
    {DMLREF_TENSOR_DATA_TYPE_INT16, "INT16", 2},
    {DMLREF_TENSOR_DATA_TYPE_INT8, "INT8", 1},
    {DMLREF_TENSOR_DATA_TYPE_FLOAT64, "FLOAT64", 8},
    {DMLREF_TENSOR_DATA_TYPE_UINT64, "UINT64", 8},
    {DMLREF_TENSOR_DATA_TYPE_INT64, "INT64", 8},
};

const char *dmlref_data_type_name(dmlref_tensor_data_type type)
{
    size_t i;
    for (i = 0; i < COUNT_OF(k_data_types); ++i)
        if (k_data_types[i].type == type)
            return k_data_types[i].name;
    return NULL;
}

int dmlref_data_type_from_name(const char *name, dmlref_tensor_data_type *type)
{
    size_t i;
    if (!name)
        return 0;
    for (i = 0; i < COUNT_OF(k_data_types); ++i) {
        if (strcmp(k_data_types[i].name, name) == 0) {
            if (type)
                *type = k_data_types[i].type;
            return 1;
        }
    }
    return 0;
}

uint32_t dmlref_data_type_size(dmlref_tensor_data_type type)
{
    size_t i;
    for (i = 0; i < COUNT_OF(k_data_types); ++i)
        if (k_data_types[i].type == type)
            return k_data_types[i].size;
    return 0;
}

const dmlref_feature_level feature_levels[FEATURE_LEVEL_COUNT] = {
    DMLREF_FEATURE_LEVEL_1_0, DMLREF_FEATURE_LEVEL_2_0, DMLREF_FEATURE_LEVEL_2_1,
    DMLREF_FEATURE_LEVEL_3_0, DMLREF_FEATURE_LEVEL_3_1, DMLREF_FEATURE_LEVEL_4_0,
    DMLREF_FEATURE_LEVEL_4_1, DMLREF_FEATURE_LEVEL_5_0, DMLREF_FEATURE_LEVEL_5_1,
    DMLREF_FEATURE_LEVEL_5_2, DMLREF_FEATURE_LEVEL_6_0, DMLREF_FEATURE_LEVEL_6_1,
    DMLREF_FEATURE_LEVEL_6_2, DMLREF_FEATURE_LEVEL_6_3, DMLREF_FEATURE_LEVEL_6_4};

/* Their names, in the same order. */
static const char *const k_level_names[FEATURE_LEVEL_COUNT] = {"1_0", "2_0", "2_1", "3_0", "3_1",
                                                               "4_0", "4_1", "5_0", "5_1", "5_2",
                                                               "6_0", "6_1", "6_2", "6_3", "6_4"};

const char *dmlref_feature_level_name(dmlref_feature_level level)
{
    size_t i;
    for (i = 0; i < FEATURE_LEVEL_COUNT; ++i)
        if (feature_levels[i] == level)
            return k_level_names[i];
    return NULL;
}

int dmlref_feature_level_from_name(const char *name, dmlref_feature_level *level)
{
    size_t i;
    if (!name || strlen(name) != 3 || (name[1] != '_' && name[1] != '.'))
        return 0;
    for (i = 0; i < FEATURE_LEVEL_COUNT; ++i) {
        if (k_level_names[i][0] == name[0] && k_level_names[i][2] == name[2]) {
            if (level)
                *level = feature_levels[i];
            return 1;
        }
    }
    return 0;
}
