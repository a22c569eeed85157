/*
 * consumer.c - a C99 program built against an installed dmlref through its
 * CMake package (tests/cross/cmake_consumer/CMakeLists.txt): the library it runs
 * is the version its header says, and DirectML's GatherElements example
 * gives DirectML's answer, then refuses an index out of range.
 *
 * Prints "dmlref VERSION: GatherElements 4 8 3 7 2 3; index 3 refused:
 * DMLREF_ERROR_INDEX_OUT_OF_RANGE" and exits 0, or says what differs and
 * exits 1.
 */
#include <stdio.h>
#include <string.h>

#include <dmlref.h>

#define STRINGIFY(x) #x
#define VERSION_TEXT(major, minor, patch) STRINGIFY(major) "." STRINGIFY(minor) "." STRINGIFY(patch)

int main(void)
{
    static const float expected[6] = {4, 8, 3, 7, 2, 3};
    const char *header_version =
        VERSION_TEXT(DMLREF_VERSION_MAJOR, DMLREF_VERSION_MINOR, DMLREF_VERSION_PATCH);
    float input[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    uint32_t indices[6] = {1, 2, 0, 2, 0, 0};
    float output[6];
    uint32_t in_sizes[2] = {3, 3}, out_sizes[2] = {2, 3};
    dmlref_tensor_desc in = {
        DMLREF_TENSOR_DATA_TYPE_FLOAT32, 0, 2, in_sizes, NULL, sizeof input, 0};
    dmlref_tensor_desc idx = {
        DMLREF_TENSOR_DATA_TYPE_UINT32, 0, 2, out_sizes, NULL, sizeof indices, 0};
    dmlref_tensor_desc out = {
        DMLREF_TENSOR_DATA_TYPE_FLOAT32, 0, 2, out_sizes, NULL, sizeof output, 0};
    dmlref_gather_elements_desc gather = {&in, &idx, &out, 0 /* Axis */};
    dmlref_operator_desc op = {DMLREF_OPERATOR_GATHER_ELEMENTS, &gather};
    dmlref_binding inputs[2] = {{input, sizeof input}, {indices, sizeof indices}};
    dmlref_binding outputs[1] = {{output, sizeof output}};
    dmlref_error err;
    dmlref_status status;
    int i;

    /* a header of one version with a library of another is what a broken
       install looks like */
    if (strcmp(dmlref_version_string(), header_version) != 0 ||
        dmlref_version_number() != DMLREF_VERSION_NUMBER) {
        printf("the library is dmlref %s, the header %s\n", dmlref_version_string(),
               header_version);
        return 1;
    }
    if (dmlref_execute(&op, DMLREF_FEATURE_LEVEL_3_0, inputs, 2, outputs, 1, &err) != DMLREF_OK) {
        printf("GatherElements failed: %s: %s\n", dmlref_status_name(err.status), err.message);
        return 1;
    }
    printf("dmlref %s: GatherElements", dmlref_version_string());
    for (i = 0; i < 6; ++i)
        printf(" %g", output[i]);
    if (memcmp(output, expected, sizeof expected) != 0) {
        printf(", not 4 8 3 7 2 3\n");
        return 1;
    }

    indices[4] = 3;
    status = dmlref_execute(&op, DMLREF_FEATURE_LEVEL_3_0, inputs, 2, outputs, 1, &err);
    printf("; index 3 refused: %s\n", dmlref_status_name(status));
    return status == DMLREF_ERROR_INDEX_OUT_OF_RANGE ? 0 : 1;
}
