/*
 * reference.h - the reference kernels: each operator's specification in C,
 * a plain loop over the output elements that follows the pseudocode at the
 * top of its file.  The fast kernels (src/kernels/) must match them bit for
 * bit.  Two helpers: element addressing and index decoding.  Not installed.
 */
#ifndef DMLREF_REFERENCE_H
#define DMLREF_REFERENCE_H

#include "base/base.h"

/* R-TD-3, R-TD-4: the element at coordinates c lies sum(c[i] * Strides[i])
 * elements, that many times element_size bytes, from the start of its
 * buffer. */
static inline uint64_t byte_offset(const layout *l, const uint64_t *c)
{
    uint64_t offset = 0;
    uint32_t i;
    for (i = 0; i < l->rank; ++i)
        offset += c[i] * l->strides[i];
    return offset * l->element_size;
}

/* The index element at coordinates c of an indices tensor, normalised
 * against a dimension of `size` (normalize_index): returns 1 and sets *out
 * when it is in range; otherwise returns 0 and, under clamp, sets *out to
 * the nearest valid index. */
static inline int index_at(const void *indices, const layout *l, dmlref_tensor_data_type type,
                           const uint64_t *c, uint64_t size, int clamp, uint64_t *out)
{
    const unsigned char *element = (const unsigned char *)indices + byte_offset(l, c);
    return normalize_index(read_index(element, type), size, clamp, out);
}

/* GATHER_ND is GATHER_ND1 with BatchDimensionCount = 0 (R-GN-10): the
 * GATHER_ND1 descriptor that says the same (src/core/operators.c runs
 * GATHER_ND on GATHER_ND1's validation, shapes and kernels with it). */
static inline dmlref_gather_nd1_desc gather_nd1_of(const dmlref_gather_nd_desc *nd)
{
    dmlref_gather_nd1_desc nd1;
    memset(&nd1, 0, sizeof nd1);
    nd1.InputTensor = nd->InputTensor;
    nd1.IndicesTensor = nd->IndicesTensor;
    nd1.OutputTensor = nd->OutputTensor;
    nd1.InputDimensionCount = nd->InputDimensionCount;
    nd1.IndicesDimensionCount = nd->IndicesDimensionCount;
    nd1.BatchDimensionCount = 0;
    return nd1;
}

/* NONZERO_COORDINATES' test of one input element: 1 when it is not zero
 * (R-NZ-8, R-NZ-9, D7; reference/nonzero_coordinates.c). */
#define nonzero_element dmlref__nonzero_element
int nonzero_element(const unsigned char *element, dmlref_tensor_data_type type);

/* The reference kernels, with the signatures of the fast ones
 * (src/kernels/kernels.h).  Each receives a descriptor that
 * dmlref_validate() accepted and bindings that dmlref_execute() checked. */
dmlref_status dmlref_ref_gather_elements(const kernel_context *ctx,
                                         const dmlref_gather_elements_desc *desc, const void *input,
                                         const void *indices, void *output, dmlref_error *err);
dmlref_status dmlref_ref_scatter_elements(const kernel_context *ctx,
                                          const dmlref_scatter_elements_desc *desc,
                                          const void *input, const void *indices,
                                          const void *updates, void *output, dmlref_error *err);
dmlref_status dmlref_ref_gather_nd1(const kernel_context *ctx, const dmlref_gather_nd1_desc *desc,
                                    const void *input, const void *indices, void *output,
                                    dmlref_error *err);
dmlref_status dmlref_ref_nonzero_coordinates(const kernel_context *ctx,
                                             const dmlref_nonzero_coordinates_desc *desc,
                                             const void *input, void *output_count,
                                             void *output_coordinates, dmlref_error *err);

#endif /* DMLREF_REFERENCE_H */
