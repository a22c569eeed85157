/*
 * gather_elements.c - the README's example: DirectML's GatherElements
 * example (corrected: the output is FLOAT32), validated and executed.
 *
 *   cc -std=c99 docs/examples/gather_elements.c -Iinclude build/libdmlref.a -fopenmp
 */
#include <stdio.h>

#include "dmlref.h"

int main(void)
{
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
    int i;

    if (dmlref_execute(&op, DMLREF_FEATURE_LEVEL_3_0, inputs, 2, outputs, 1, &err) != DMLREF_OK) {
        fprintf(stderr, "%s: %s\n", dmlref_status_name(err.status), err.message);
        return 1;
    }
    for (i = 0; i < 6; ++i)
        printf("%g%c", output[i], i == 5 ? '\n' : ' ');

    /* one index out of range: refused, nothing written */
    indices[4] = 3;
    if (dmlref_execute(&op, DMLREF_FEATURE_LEVEL_3_0, inputs, 2, outputs, 1, &err) != DMLREF_OK)
        printf("%s: %s\n", dmlref_status_name(err.status), err.message);
    return 0;
}
