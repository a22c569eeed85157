/*
 * reference.h - the reference kernels: each operator's specification in C,
 * a plain loop over the output elements that follows the pseudocode at the
 * top of its file.  The fast kernels (src/kernels/) must match them bit for
 * bit.  Each loop's body is its operator's step, a function of its own
 * (below), which trace.c calls too for the one element dmlref explain
 * derives: the rule is written once.  Not installed.
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

/* An element's bits, host order, in the low bytes. */
static inline uint64_t element_bits(const unsigned char *element, uint32_t size)
{
    uint8_t b8;
    uint16_t b16;
    uint32_t b32;
    uint64_t b64;
    switch (size) {
    case 1:
        memcpy(&b8, element, 1);
        return b8;
    case 2:
        memcpy(&b16, element, 2);
        return b16;
    case 4:
        memcpy(&b32, element, 4);
        return b32;
    default:
        memcpy(&b64, element, 8);
        return b64;
    }
}

/* An indices tensor: its data, layout and index type. */
typedef struct index_tensor {
    const void *data;
    layout l;
    dmlref_tensor_data_type type;
} index_tensor;

/* One index element read and normalised, as dmlref explain shows it. */
typedef struct index_record {
    uint64_t at[MAX_RANK]; /* its coordinates in IndicesTensor */
    index_value value;     /* as read_index reads it */
    uint64_t bits;         /* the raw element (a UINT64 too large for value) */
    uint32_t dimension;    /* the dimension it indexes (of Input; Scatter: Output) */
    uint64_t size;         /* that dimension's size */
    int in_range;          /* normalize_index's verdict */
    uint64_t normalized;   /* the index used: in range, or clamped (else 0) */
} index_record;

/* The index element at coordinates c, normalised against dimension `dim` of
 * the tensor it indexes (normalize_index): returns 1 and sets *out when it
 * is in range; otherwise returns 0 and, under clamp, sets *out to the
 * nearest valid index.  rec, when not NULL, records the read. */
static inline int index_at(const index_tensor *x, const uint64_t *c, const layout *indexed,
                           uint32_t dim, int clamp, uint64_t *out, index_record *rec)
{
    const unsigned char *element = (const unsigned char *)x->data + byte_offset(&x->l, c);
    const index_value v = read_index(element, x->type);
    uint64_t normalized = 0;
    const int in_range = normalize_index(v, indexed->sizes[dim], clamp, &normalized);
    if (in_range || clamp)
        *out = normalized;
    if (rec) {
        memset(rec, 0, sizeof *rec);
        memcpy(rec->at, c, x->l.rank * sizeof *c);
        rec->value = v;
        rec->bits = element_bits(element, x->l.element_size);
        rec->dimension = dim;
        rec->size = indexed->sizes[dim];
        rec->in_range = in_range;
        rec->normalized = normalized;
    }
    return in_range;
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

/* ---- the operators' steps ----------------------------------------------
 * Each reference kernel's loop calls its operator's step once per element;
 * trace.c calls the same step for one element, with records.  Each is
 * defined beside its kernel.  `clamp`: the clamp policy (D1, D2); the
 * kernels pass 1, having checked every index under the strict one. */

#define gather_elements_operands_of dmlref__gather_elements_operands_of
#define gather_elements_source dmlref__gather_elements_source
#define scatter_elements_operands_of dmlref__scatter_elements_operands_of
#define scatter_elements_target dmlref__scatter_elements_target
#define gather_nd1_operands_of dmlref__gather_nd1_operands_of
#define gather_nd1_source dmlref__gather_nd1_source
#define nonzero_coordinates_operands_of dmlref__nonzero_coordinates_operands_of
#define nonzero_input dmlref__nonzero_input
#define nonzero_element dmlref__nonzero_element

typedef struct gather_elements_operands {
    layout input, output;
    index_tensor indices;
    uint32_t axis;
} gather_elements_operands;

void gather_elements_operands_of(const dmlref_gather_elements_desc *desc, const void *indices,
                                 gather_elements_operands *g);

/* R-GE-6: the input coordinates i that output element o copies, o with
 * i[Axis] = Indices[o] normalised.  Returns index_at's verdict. */
int gather_elements_source(const gather_elements_operands *g, const uint64_t *o, int clamp,
                           uint64_t *i, index_record *rec);

typedef struct scatter_elements_operands {
    layout input, updates, output;
    index_tensor indices;
    uint32_t axis;
} scatter_elements_operands;

void scatter_elements_operands_of(const dmlref_scatter_elements_desc *desc, const void *indices,
                                  scatter_elements_operands *s);

/* R-SC-9: the output coordinates o that update u lands on, u with
 * o[Axis] = Indices[u] normalised.  Returns index_at's verdict. */
int scatter_elements_target(const scatter_elements_operands *s, const uint64_t *u, int clamp,
                            uint64_t *o, index_record *rec);

typedef struct gather_nd1_operands {
    layout input, output;
    index_tensor indices;
    uint32_t D, m, q, b, k, r, pad; /* the notation of gather_nd.c */
} gather_nd1_operands;

void gather_nd1_operands_of(const dmlref_gather_nd1_desc *desc, const void *indices,
                            gather_nd1_operands *nd);

/* The input dimension that coordinate j of a tuple indexes. */
static inline uint32_t tuple_dimension(const gather_nd1_operands *nd, uint32_t j)
{
    return nd->D - nd->m + nd->b + j;
}

/* R-GN-9: the input coordinates i that output element o copies, the tuple
 * read and normalised.  Returns 1 when every coordinate of the tuple is in
 * range; under the strict policy it stops at the first that is not.  rec,
 * when not NULL, has room for k records. */
int gather_nd1_source(const gather_nd1_operands *nd, const uint64_t *o, int clamp, uint64_t *i,
                      index_record *rec);

typedef struct nonzero_coordinates_operands {
    layout input, coordinates;
    const void *data; /* the input's */
    dmlref_tensor_data_type type;
    uint32_t columns; /* N */
} nonzero_coordinates_operands;

void nonzero_coordinates_operands_of(const dmlref_nonzero_coordinates_desc *desc, const void *input,
                                     nonzero_coordinates_operands *z);

/* NONZERO_COORDINATES' test of one input element: 1 when it is not zero
 * (R-NZ-8, R-NZ-9, D7). */
int nonzero_element(const unsigned char *element, dmlref_tensor_data_type type);

/* The coordinates c of input element p in row-major order (R-NZ-12);
 * returns 1 when the element is not zero, so that it has a row. */
int nonzero_input(const nonzero_coordinates_operands *z, uint64_t p, uint64_t *c);

/* The input dimension that column j of a row holds: the columns are the
 * last N dimensions (R-NZ-13, D8). */
static inline uint32_t nonzero_column_dimension(const nonzero_coordinates_operands *z, uint32_t j)
{
    return z->input.rank - z->columns + j;
}

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
