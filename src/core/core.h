/*
 * core.h - the operators' table (src/core/operators.c) and what the core's
 * files share.  Not installed.
 *
 * One row per operator type says what every operator has in the same form:
 * its names, the feature level it came with, its descriptor struct (size,
 * tensor fields in binding order, attribute fields) and the functions that
 * differ from operator to operator: validation, output shapes and kernels.
 * Everything above the kernels that would otherwise switch on the operator
 * type (execute, validate, the vector reader, writer and evaluator, the
 * conformance harness) reads the row instead.
 */
#ifndef DMLREF_CORE_H
#define DMLREF_CORE_H

#include "base/base.h"

#include <stddef.h>

#define operator_find dmlref__operator_find
#define operator_find_name dmlref__operator_find_name
#define operator_count dmlref__operator_count
#define operator_at dmlref__operator_at
#define operator_desc_tensors dmlref__operator_desc_tensors
#define operator_desc_attributes dmlref__operator_desc_attributes
#define operator_desc_build dmlref__operator_desc_build
#define operator_desc_adapted dmlref__operator_desc_adapted
#define validate_gather_elements dmlref__validate_gather_elements
#define validate_scatter_elements dmlref__validate_scatter_elements
#define validate_gather_nd1 dmlref__validate_gather_nd1
#define validate_nonzero_coordinates dmlref__validate_nonzero_coordinates
#define infer_gather_elements dmlref__infer_gather_elements
#define infer_scatter_elements dmlref__infer_scatter_elements
#define infer_gather_nd1 dmlref__infer_gather_nd1
#define infer_nonzero_coordinates dmlref__infer_nonzero_coordinates

/* The most that any operator has of each; the arrays of the layers above
 * are sized by them (operators.c checks every row against them). */
#define OPERATOR_MAX_INPUTS 3
#define OPERATOR_MAX_OUTPUTS 2
#define OPERATOR_MAX_TENSORS 4
#define OPERATOR_MAX_ATTRIBUTES 3
#define OPERATOR_DESC_CAPACITY 64 /* bytes: the largest descriptor struct */

/* Room for any operator's descriptor struct, aligned for its fields. */
typedef union operator_desc_storage {
    const void *align_pointer;
    uint64_t align_integer;
    unsigned char bytes[OPERATOR_DESC_CAPACITY];
} operator_desc_storage;

/* A tensor field of the descriptor (a const dmlref_tensor_desc *). */
#define OPERATOR_SLOT_OUTPUT 0x1u       /* an output; inputs otherwise */
#define OPERATOR_SLOT_INDICES 0x2u      /* holds index values (R-IX-*) */
#define OPERATOR_SLOT_INDEX_TUPLES 0x4u /* ... as tuples along its last dimension */

typedef struct operator_slot {
    const char *name; /* the field's name, "InputTensor": also the vectors' key */
    uint32_t flags;   /* OPERATOR_SLOT_* */
    size_t offset;    /* offsetof the field in the descriptor struct */
} operator_slot;

/* An attribute field of the descriptor (a uint32_t). */
typedef struct operator_attribute {
    const char *name; /* "Axis": also the vectors' key */
    size_t offset;
} operator_attribute;

/* What validation and shape inference report through: messages start with
 * the operator's name `op`. */
typedef struct rule_context {
    const char *op;
    dmlref_feature_level level; /* a DirectML level (0 already resolved, D19) */
    dmlref_error *err;
} rule_context;

/* Checks the rules of docs/rules.md for the operator past availability
 * (its tensors in field order, then their relations, then output aliasing);
 * the first broken is reported. */
typedef dmlref_status (*operator_validate_fn)(const rule_context *c, const void *desc);

/* The sizes of output `output` (binding order among the outputs) by the
 * operator's shape rules, from the inputs and attributes alone; checks what
 * it needs of them (dmlref_infer_output_sizes in dmlref.h).  Writes
 * *dimension_count and sizes only when it succeeds. */
typedef dmlref_status (*operator_infer_fn)(const rule_context *c, const void *desc, uint32_t output,
                                           uint32_t *dimension_count, uint32_t *sizes);

/* A kernel: a validated descriptor and the bound buffers, checked by
 * execute, in binding order (inputs, then outputs).  It checks the index
 * values before it writes anything. */
typedef dmlref_status (*operator_kernel_fn)(const kernel_context *ctx, const void *desc,
                                            void *const *buffers, dmlref_error *err);

/* Rewrites a descriptor as the one the row's functions take. */
typedef void (*operator_adapt_fn)(const void *desc, operator_desc_storage *adapted);

typedef struct operator_info {
    dmlref_operator_type type;
    const char *name;                /* DirectML's without DML_OPERATOR_: "GATHER_ND1" */
    const char *alias;               /* another name of the type ("SCATTER"), or NULL */
    dmlref_feature_level introduced; /* the first feature level that has it */
    const char *introduced_rule;     /* the rule below it breaks */
    size_t desc_size;                /* sizeof its descriptor struct */
    size_t input_count, output_count;
    operator_slot tensors[OPERATOR_MAX_TENSORS]; /* binding order: inputs, then outputs */
    size_t attribute_count;
    operator_attribute attributes[OPERATOR_MAX_ATTRIBUTES]; /* field order */
    /* NULL, or how the descriptor becomes the one the functions below take
       (GATHER_ND becomes GATHER_ND1 with BatchDimensionCount = 0, R-GN-10) */
    operator_adapt_fn adapt;
    operator_validate_fn validate;
    operator_infer_fn infer_output_sizes;
    operator_kernel_fn reference; /* DMLREF_KERNELS_REFERENCE */
    operator_kernel_fn fast;      /* DMLREF_KERNELS_FAST */
} operator_info;

/* The row of an operator type, or NULL for one dmlref does not implement. */
const operator_info *operator_find(dmlref_operator_type type);
/* The row whose name or alias is `name`, or NULL. */
const operator_info *operator_find_name(const char *name);
/* The rows in the order of the table, for walking every operator. */
size_t operator_count(void);
const operator_info *operator_at(size_t i);

/* The descriptor's tensors in binding order (row->input_count +
 * row->output_count of them) and its attributes in field order. */
void operator_desc_tensors(const operator_info *row, const void *desc,
                           const dmlref_tensor_desc **tensors);
void operator_desc_attributes(const operator_info *row, const void *desc, uint32_t *attributes);
/* Fills `desc` (row->desc_size bytes) with the tensors in binding order and
 * the attributes in field order; every other byte becomes 0. */
void operator_desc_build(const operator_info *row, void *desc,
                         const dmlref_tensor_desc *const *tensors, const uint32_t *attributes);
/* The descriptor the row's functions take: desc itself, or its adapted
 * form placed in *storage. */
const void *operator_desc_adapted(const operator_info *row, const void *desc,
                                  operator_desc_storage *storage);

/* ---- the operators' rules (src/core/validate.c) ------------------------ */

dmlref_status validate_gather_elements(const rule_context *c, const void *desc);
dmlref_status validate_scatter_elements(const rule_context *c, const void *desc);
dmlref_status validate_gather_nd1(const rule_context *c, const void *desc);
dmlref_status validate_nonzero_coordinates(const rule_context *c, const void *desc);

dmlref_status infer_gather_elements(const rule_context *c, const void *desc, uint32_t output,
                                    uint32_t *dimension_count, uint32_t *sizes);
dmlref_status infer_scatter_elements(const rule_context *c, const void *desc, uint32_t output,
                                     uint32_t *dimension_count, uint32_t *sizes);
dmlref_status infer_gather_nd1(const rule_context *c, const void *desc, uint32_t output,
                               uint32_t *dimension_count, uint32_t *sizes);
dmlref_status infer_nonzero_coordinates(const rule_context *c, const void *desc, uint32_t output,
                                        uint32_t *dimension_count, uint32_t *sizes);

#endif /* DMLREF_CORE_H */
