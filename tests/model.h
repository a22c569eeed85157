/*
 * model.h - the operators written the slow, obvious way, straight from the
 * pseudocode, on logical row-major arrays: coordinates by division, one
 * element at a time, no strides, no threads.  The unit tests compare the
 * kernels against this model on random layouts, so it shares no code with
 * src/ or reference/.
 *
 * Each returns 1, or 0 when an index is out of range (nothing meaningful is
 * written then).
 */
#ifndef DMLREF_MODEL_H
#define DMLREF_MODEL_H

#include "dmlref.h"

#include <stdint.h>

int model_gather_elements(uint32_t rank, const uint32_t *input_sizes,
                          const uint32_t *indices_sizes, uint32_t axis, uint32_t element_size,
                          const void *input, dmlref_tensor_data_type index_type,
                          const void *indices, void *output);

int model_scatter_elements(uint32_t rank, const uint32_t *input_sizes,
                           const uint32_t *indices_sizes, uint32_t axis, uint32_t element_size,
                           const void *input, dmlref_tensor_data_type index_type,
                           const void *indices, const void *updates, void *output);

/* output_sizes is filled (rank entries). */
int model_gather_nd(uint32_t rank, const uint32_t *input_sizes, const uint32_t *indices_sizes,
                    uint32_t input_dims, uint32_t indices_dims, uint32_t batch_dims,
                    uint32_t element_size, const void *input, dmlref_tensor_data_type index_type,
                    const void *indices, uint32_t *output_sizes, void *output);

/* coordinates: M x N uint32, rows past the count untouched. */
uint32_t model_nonzero(uint32_t rank, const uint32_t *input_sizes, dmlref_tensor_data_type type,
                       const void *input, uint32_t n_columns, uint32_t *coordinates);

#endif /* DMLREF_MODEL_H */
