/*
 * nonzero_coordinates.c - DML_OPERATOR_NONZERO_COORDINATES (133), feature
 * level 3_0+
 *
 * Computes the coordinates of every non-zero element of the input: an M x N
 * matrix whose first OutputCount rows hold, in ascending element order, the
 * coordinates of the non-zero elements, plus their count:
 *
 *   count = 0
 *   for each coordinate c of InputTensor, in row-major order:
 *       if input[c] != 0:
 *           OutputCoordinates[count, 0 .. N) = c[D-N .. D)
 *           count += 1
 *   OutputCount = count
 *
 * Tensor constraints (checked by dmlref_validate, src/core/validate.c):
 *   R-NZ-1  OutputCount is UINT32 with every size 1.
 *   R-NZ-2  OutputCoordinates is UINT32 with sizes {1, ..., 1, M, N}.
 *   R-NZ-3  M == the number of input elements (room for all of them).
 *   R-NZ-4  the effective rank e = D minus the leading dimensions of size 1.
 *   R-NZ-5  e <= N <= D.
 *   R-NZ-6  FL 3_0: all three tensors 4 or 5 dimensions, the same count;
 *           FL 4_0+: input 1-8, count 1-8, coordinates 2-8 (D10).
 *   R-NZ-7  input FLOAT32, FLOAT16, INT32, INT16, INT8, UINT32, UINT16, UINT8.
 *
 * Policies:
 *   - Zero means numerically zero (R-NZ-8): +0.0 and -0.0 are zero; NaN and
 *     the infinities are not (R-NZ-9); subnormals are not zero, as IEEE says
 *     (D7; a GPU that flushes them would disagree, so vectors keep them in a
 *     category of their own, R-NZ-10).
 *   - Order is the logical row-major order of the input's coordinates,
 *     whatever its strides (R-NZ-12, R-TD-8, D9).
 *   - With N < D the N columns are the last N dimensions (right-aligned,
 *     R-NZ-13, D8); the dimensions left out all have size 1.
 *   - The count is written as UINT32 (R-NZ-11), coordinates as UINT32
 *     (R-NZ-15).  Rows at or past the count are left untouched: DirectML
 *     leaves them undefined (R-NZ-14).
 *
 * The pseudocode above is the one of DirectML's NonZeroCoordinates page (the
 * seed); the function below is that pseudocode.  It runs on one thread: the
 * row an element lands in is the count of non-zero elements before it, so
 * each step depends on all the steps before.  Its test of one element,
 * nonzero_input, is what dmlref explain's trace (trace.c) runs too.
 */
#include "reference/reference.h"

/* input[c] != 0 (R-NZ-8, R-NZ-9, D7): an integer with some bit set, a float
 * with some bit set besides its sign bit.  So -0.0 is zero, and NaN, the
 * infinities and subnormals are not.  Every input type has 1, 2 or 4
 * bytes (R-NZ-7). */
int nonzero_element(const unsigned char *element, dmlref_tensor_data_type type)
{
    uint16_t bits16;
    uint32_t bits32;
    switch (dmlref_data_type_size(type)) {
    case 1:
        return element[0] != 0;
    case 2:
        memcpy(&bits16, element, 2);
        return (type == DMLREF_TENSOR_DATA_TYPE_FLOAT16 ? bits16 & 0x7FFFu : bits16) != 0;
    default:
        memcpy(&bits32, element, 4);
        return (type == DMLREF_TENSOR_DATA_TYPE_FLOAT32 ? bits32 & 0x7FFFFFFFu : bits32) != 0;
    }
}

void nonzero_coordinates_operands_of(const dmlref_nonzero_coordinates_desc *desc, const void *input,
                                     nonzero_coordinates_operands *z)
{
    layout_from_desc(desc->InputTensor, &z->input);
    layout_from_desc(desc->OutputCoordinatesTensor, &z->coordinates);
    z->data = input;
    z->type = desc->InputTensor->DataType;
    z->columns = (uint32_t)z->coordinates.sizes[z->coordinates.rank - 1]; /* {1, ..., 1, M, N} */
}

int nonzero_input(const nonzero_coordinates_operands *z, uint64_t p, uint64_t *c)
{
    coordinates_of(p, z->input.rank, z->input.sizes, c);
    return nonzero_element((const unsigned char *)z->data + byte_offset(&z->input, c), z->type);
}

dmlref_status dmlref_ref_nonzero_coordinates(const kernel_context *ctx,
                                             const dmlref_nonzero_coordinates_desc *desc,
                                             const void *input, void *output_count,
                                             void *output_coordinates, dmlref_error *err)
{
    unsigned char *coordinates = output_coordinates;
    nonzero_coordinates_operands z;
    uint64_t total, p, c[MAX_RANK], row[MAX_RANK] = {0};
    uint32_t R, j, count = 0;
    (void)ctx; /* one thread, and no index to check */
    (void)err; /* nothing can fail */

    nonzero_coordinates_operands_of(desc, input, &z);
    total = layout_element_count(&z.input);
    R = z.coordinates.rank;

    for (p = 0; p < total; ++p) {
        if (nonzero_input(&z, p, c)) {
            row[R - 2] = count;
            for (j = 0; j < z.columns; ++j) { /* OutputCoordinates[count, j] = c[D-N+j] */
                uint32_t value = (uint32_t)c[nonzero_column_dimension(&z, j)];
                row[R - 1] = j;
                memcpy(coordinates + byte_offset(&z.coordinates, row), &value, 4);
            }
            count += 1; /* <= M <= 2^32 - 1 */
        }
    }
    memcpy(output_count, &count, 4); /* every size is 1: the count is at byte 0 */
    return DMLREF_OK;
}
