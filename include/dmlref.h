/*
 * dmlref.h - the public interface of dmlref, a reference implementation and
 * conformance oracle for DirectML's indexing operators:
 *
 *   GATHER_ELEMENTS, SCATTER_ELEMENTS (alias SCATTER), GATHER_ND, GATHER_ND1,
 *   NONZERO_COORDINATES.
 *
 * The model
 *   A caller describes an operator exactly as it would for DirectML: one
 *   buffer tensor descriptor per tensor (sizes, element strides, total size
 *   in bytes) and one operator descriptor.  dmlref_validate() says whether the
 *   operator is valid at a feature level and, if not, exactly which rule it
 *   breaks.  dmlref_execute() validates, checks the host buffers bound to the
 *   tensors and every index value, and only then computes the one right
 *   answer.  On any failure nothing is written.
 *
 * Conventions
 *   - Enums carry DirectML's numbers and are never renumbered.
 *   - Descriptor structs mirror DirectML's, field names and order included, so
 *     a DirectML backend translates them mechanically.
 *   - Every fallible call returns a dmlref_status and fills an optional
 *     dmlref_error with a one-line message naming the operator, the tensor,
 *     the field, the value and the rule (an id of docs/rules.md).
 *   - The library never prints, never exits and keeps no global state.
 *
 * Everything here is stable unless marked otherwise.
 */
#ifndef DMLREF_H
#define DMLREF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- version ----------------------------------------------------------- */

#define DMLREF_VERSION_MAJOR 0
#define DMLREF_VERSION_MINOR 1
#define DMLREF_VERSION_PATCH 0
#define DMLREF_VERSION_NUMBER                                                                      \
    (DMLREF_VERSION_MAJOR * 10000 + DMLREF_VERSION_MINOR * 100 + DMLREF_VERSION_PATCH)

#if defined(_WIN32)
#define DMLREF_API __declspec(dllexport)
#elif defined(__GNUC__) && __GNUC__ >= 4
#define DMLREF_API __attribute__((visibility("default")))
#else
#define DMLREF_API
#endif

/* ---- DirectML-numbered enums ------------------------------------------- */

/* DML_TENSOR_DATA_TYPE.  The 4-bit types (12, 13) exist in DirectML but no
 * operator of this library accepts them, so they are not named here. */
typedef enum dmlref_tensor_data_type {
    DMLREF_TENSOR_DATA_TYPE_UNKNOWN = 0,
    DMLREF_TENSOR_DATA_TYPE_FLOAT32 = 1,
    DMLREF_TENSOR_DATA_TYPE_FLOAT16 = 2,
    DMLREF_TENSOR_DATA_TYPE_UINT32 = 3,
    DMLREF_TENSOR_DATA_TYPE_UINT16 = 4,
    DMLREF_TENSOR_DATA_TYPE_UINT8 = 5,
    DMLREF_TENSOR_DATA_TYPE_INT32 = 6,
    DMLREF_TENSOR_DATA_TYPE_INT16 = 7,
    DMLREF_TENSOR_DATA_TYPE_INT8 = 8,
    DMLREF_TENSOR_DATA_TYPE_FLOAT64 = 9,
    DMLREF_TENSOR_DATA_TYPE_UINT64 = 10,
    DMLREF_TENSOR_DATA_TYPE_INT64 = 11
} dmlref_tensor_data_type;

/* DML_FEATURE_LEVEL.  Every value is explicit: the DirectML enum page lists
 * the later ones without initializers, which would read as 0x3001... in C. */
typedef enum dmlref_feature_level {
    DMLREF_FEATURE_LEVEL_1_0 = 0x1000,
    DMLREF_FEATURE_LEVEL_2_0 = 0x2000,
    DMLREF_FEATURE_LEVEL_2_1 = 0x2100,
    DMLREF_FEATURE_LEVEL_3_0 = 0x3000,
    DMLREF_FEATURE_LEVEL_3_1 = 0x3100,
    DMLREF_FEATURE_LEVEL_4_0 = 0x4000,
    DMLREF_FEATURE_LEVEL_4_1 = 0x4100,
    DMLREF_FEATURE_LEVEL_5_0 = 0x5000,
    DMLREF_FEATURE_LEVEL_5_1 = 0x5100,
    DMLREF_FEATURE_LEVEL_5_2 = 0x5200,
    DMLREF_FEATURE_LEVEL_6_0 = 0x6000,
    DMLREF_FEATURE_LEVEL_6_1 = 0x6100,
    DMLREF_FEATURE_LEVEL_6_2 = 0x6200,
    DMLREF_FEATURE_LEVEL_6_3 = 0x6300,
    DMLREF_FEATURE_LEVEL_6_4 = 0x6400
} dmlref_feature_level;

/* The highest level dmlref knows: the default when a caller names none (D19). */
#define DMLREF_FEATURE_LEVEL_LATEST DMLREF_FEATURE_LEVEL_6_4

/* DML_OPERATOR_TYPE values of the operators this library implements. */
typedef enum dmlref_operator_type {
    DMLREF_OPERATOR_SCATTER_ELEMENTS = 94,     /* DirectML.h, DML_TARGET_VERSION >= 0x2000 */
    DMLREF_OPERATOR_SCATTER = 94,              /* alias, same descriptor */
    DMLREF_OPERATOR_GATHER_ELEMENTS = 107,     /* >= 0x2100 */
    DMLREF_OPERATOR_GATHER_ND = 108,           /* >= 0x2100 */
    DMLREF_OPERATOR_NONZERO_COORDINATES = 133, /* >= 0x3000 */
    DMLREF_OPERATOR_GATHER_ND1 = 140           /* >= 0x3000 */
} dmlref_operator_type;

/* DML_TENSOR_FLAGS. */
#define DMLREF_TENSOR_FLAG_NONE 0x0u
#define DMLREF_TENSOR_FLAG_OWNED_BY_DML 0x1u /* inputs only */

/* Limits from DirectML's documentation. */
#define DMLREF_TENSOR_DIMENSION_COUNT_MAX 8u     /* DML_TENSOR_DIMENSION_COUNT_MAX1 */
#define DMLREF_MAX_TENSOR_ELEMENTS 0xFFFFFFFFull /* 2^32 - 1 elements (R-TD-13) */
/* the least non-zero GuaranteedBaseOffsetAlignment (R-TD-14):
   DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT */
#define DMLREF_MINIMUM_BUFFER_TENSOR_ALIGNMENT 16u

/* ---- descriptors (mirror DirectML's) ------------------------------------ */

typedef struct dmlref_tensor_desc { /* mirrors DML_BUFFER_TENSOR_DESC */
    dmlref_tensor_data_type DataType;
    uint32_t Flags;          /* 0, or DMLREF_TENSOR_FLAG_OWNED_BY_DML (inputs) */
    uint32_t DimensionCount; /* 1..8 */
    const uint32_t *Sizes;   /* DimensionCount entries, each >= 1 */
    const uint32_t *Strides; /* in elements; NULL = packed row-major */
    uint64_t TotalTensorSizeInBytes;
    uint32_t GuaranteedBaseOffsetAlignment; /* 0, or a power of two >= element size */
} dmlref_tensor_desc;

typedef struct dmlref_gather_elements_desc {
    const dmlref_tensor_desc *InputTensor;
    const dmlref_tensor_desc *IndicesTensor;
    const dmlref_tensor_desc *OutputTensor;
    uint32_t Axis;
} dmlref_gather_elements_desc;

typedef struct dmlref_scatter_elements_desc {
    const dmlref_tensor_desc *InputTensor;
    const dmlref_tensor_desc *IndicesTensor;
    const dmlref_tensor_desc *UpdatesTensor;
    const dmlref_tensor_desc *OutputTensor;
    uint32_t Axis;
} dmlref_scatter_elements_desc;

/* DML_SCATTER_OPERATOR_DESC is the same struct. */
typedef dmlref_scatter_elements_desc dmlref_scatter_desc;

typedef struct dmlref_gather_nd_desc {
    const dmlref_tensor_desc *InputTensor;
    const dmlref_tensor_desc *IndicesTensor;
    const dmlref_tensor_desc *OutputTensor;
    uint32_t InputDimensionCount;
    uint32_t IndicesDimensionCount;
} dmlref_gather_nd_desc;

typedef struct dmlref_gather_nd1_desc {
    const dmlref_tensor_desc *InputTensor;
    const dmlref_tensor_desc *IndicesTensor;
    const dmlref_tensor_desc *OutputTensor;
    uint32_t InputDimensionCount;
    uint32_t IndicesDimensionCount;
    uint32_t BatchDimensionCount;
} dmlref_gather_nd1_desc;

typedef struct dmlref_nonzero_coordinates_desc {
    const dmlref_tensor_desc *InputTensor;
    const dmlref_tensor_desc *OutputCountTensor;
    const dmlref_tensor_desc *OutputCoordinatesTensor;
} dmlref_nonzero_coordinates_desc;

typedef struct dmlref_operator_desc {
    dmlref_operator_type Type;
    const void *Desc; /* points to the descriptor struct of Type */
} dmlref_operator_desc;

/* A host buffer bound to a tensor: its first byte holds element offset 0. */
typedef struct dmlref_binding {
    void *data;
    uint64_t size_in_bytes;
} dmlref_binding;

/* ---- status and errors ------------------------------------------------- */

/* Values are pinned: only ever added to, never renumbered.  The decades group
 * causes: 1x the operator is not available or not supported as described at
 * this feature level; 2x one tensor descriptor is malformed; 3x tensors or
 * attributes disagree with each other; 4x the bindings passed to execute;
 * 5x the data (index values); 6x resources; 7x golden vector files;
 * 8x comparisons. */
typedef enum dmlref_status {
    DMLREF_OK = 0,
    DMLREF_ERROR_INVALID_ARGUMENT = 1, /* NULL pointer, unknown operator or level */

    DMLREF_ERROR_UNSUPPORTED_OPERATOR = 10,        /* operator not available at this level */
    DMLREF_ERROR_UNSUPPORTED_DATA_TYPE = 11,       /* data type not in the level's table */
    DMLREF_ERROR_UNSUPPORTED_DIMENSION_COUNT = 12, /* rank not in the level's table */
    DMLREF_ERROR_UNSUPPORTED_LAYOUT = 13,          /* valid maybe, but dmlref cannot decide */

    DMLREF_ERROR_INVALID_SIZES = 20,      /* missing sizes, a size of 0, bad rank */
    DMLREF_ERROR_INVALID_TOTAL_SIZE = 21, /* TotalTensorSizeInBytes below the minimum */
    DMLREF_ERROR_TENSOR_TOO_LARGE = 22,   /* more than 2^32-1 elements, or overflow */
    DMLREF_ERROR_INVALID_FLAGS = 23,      /* unknown flag bits, OWNED_BY_DML on output */
    DMLREF_ERROR_INVALID_ALIGNMENT = 24,  /* GuaranteedBaseOffsetAlignment */
    DMLREF_ERROR_OUTPUT_ALIASING = 25,    /* output strides map 2 elements to 1 address */

    DMLREF_ERROR_DIMENSION_COUNT_MISMATCH = 30, /* tensors must share a DimensionCount */
    DMLREF_ERROR_DATA_TYPE_MISMATCH = 31,       /* tensors must share a DataType */
    DMLREF_ERROR_SIZE_MISMATCH = 32,            /* a size relation between tensors */
    DMLREF_ERROR_INVALID_ATTRIBUTE = 33,        /* Axis, *DimensionCount attributes */

    DMLREF_ERROR_BINDING_COUNT = 40,      /* wrong number of input or output bindings */
    DMLREF_ERROR_BINDING_MISSING = 41,    /* a binding's data is NULL */
    DMLREF_ERROR_BINDING_TOO_SMALL = 42,  /* smaller than TotalTensorSizeInBytes */
    DMLREF_ERROR_BINDING_OVERLAP = 43,    /* an output overlaps another binding */
    DMLREF_ERROR_BINDING_MISALIGNED = 44, /* not a multiple of the guaranteed alignment */

    DMLREF_ERROR_INDEX_OUT_OF_RANGE = 50, /* an index value outside [-s, s-1] / [0, s-1] */

    DMLREF_ERROR_OUT_OF_MEMORY = 60,

    DMLREF_ERROR_VECTOR_PARSE = 70,  /* a vector is not well-formed JSON */
    DMLREF_ERROR_VECTOR_SCHEMA = 71, /* a vector breaks vectors/FORMAT.md */
    DMLREF_ERROR_IO = 72,            /* a file cannot be read or written */

    DMLREF_ERROR_MISMATCH = 80 /* outputs differ from a vector's expectations */
} dmlref_status;

#define DMLREF_ERROR_RULE_CAPACITY 16
#define DMLREF_ERROR_MESSAGE_CAPACITY 384

typedef struct dmlref_error {
    dmlref_status status;
    char rule[DMLREF_ERROR_RULE_CAPACITY];       /* "R-GE-3", "D6", ... or "" */
    char message[DMLREF_ERROR_MESSAGE_CAPACITY]; /* one line, no newline */
} dmlref_error;

/* "DMLREF_OK", "DMLREF_ERROR_INDEX_OUT_OF_RANGE", ...; "DMLREF_ERROR_UNKNOWN"
 * for a value this version does not know. */
DMLREF_API const char *dmlref_status_name(dmlref_status status);

/* The status whose dmlref_status_name() is `name`; returns 0 (false) if none. */
DMLREF_API int dmlref_status_from_name(const char *name, dmlref_status *status);

DMLREF_API unsigned dmlref_version_number(void);    /* DMLREF_VERSION_NUMBER */
DMLREF_API const char *dmlref_version_string(void); /* "0.1.0" */

/* ---- names and sizes --------------------------------------------------- */

/* "FLOAT32", ...; NULL for an unknown value.  dmlref_data_type_from_name()
 * returns 0 (false) for an unknown name. */
DMLREF_API const char *dmlref_data_type_name(dmlref_tensor_data_type type);
DMLREF_API int dmlref_data_type_from_name(const char *name, dmlref_tensor_data_type *type);

/* Bytes per element: 1, 2, 4 or 8; 0 for an unknown type. */
DMLREF_API uint32_t dmlref_data_type_size(dmlref_tensor_data_type type);

/* "GATHER_ELEMENTS", "SCATTER_ELEMENTS", ...; NULL for an unknown value.
 * dmlref_operator_from_name() also accepts "SCATTER". */
DMLREF_API const char *dmlref_operator_name(dmlref_operator_type type);
DMLREF_API int dmlref_operator_from_name(const char *name, dmlref_operator_type *type);

/* "3_0", ...; NULL for an unknown value.  from_name accepts "3_0" and "3.0". */
DMLREF_API const char *dmlref_feature_level_name(dmlref_feature_level level);
DMLREF_API int dmlref_feature_level_from_name(const char *name, dmlref_feature_level *level);

/* The feature level at which the operator type was introduced (SCATTER 2_0,
 * GATHER_ELEMENTS and GATHER_ND 2_1, NONZERO_COORDINATES and GATHER_ND1 3_0);
 * 0 for an unknown type. */
DMLREF_API dmlref_feature_level dmlref_operator_introduced(dmlref_operator_type type);

/* DMLCalcBufferTensorSize with 64-bit, overflow-checked arithmetic:
 *   strides given:  roundup4((dot(Sizes - 1, Strides) + 1) * ElementSize)
 *   strides NULL:   roundup4(prod(Sizes) * ElementSize)
 * Returns 0 for an invalid description (unknown type, DimensionCount outside
 * 1..8, NULL sizes, a size of 0) or when the result does not fit 64 bits. */
DMLREF_API uint64_t dmlref_calc_buffer_tensor_size(dmlref_tensor_data_type type,
                                                   uint32_t dimension_count, const uint32_t *sizes,
                                                   const uint32_t *strides);

/* ---- the core: validate and execute ------------------------------------ */

/* Checks every rule of docs/rules.md for this operator at this feature level
 * (0 means DMLREF_FEATURE_LEVEL_LATEST, D19),
 * in a fixed order (arguments, availability, each tensor in descriptor field
 * order, the level's support table, relations between tensors and
 * attributes, output aliasing); reports the first rule broken.
 * err may be NULL. */
DMLREF_API dmlref_status dmlref_validate(const dmlref_operator_desc *op,
                                         dmlref_feature_level feature_level, dmlref_error *err);

/* The sizes an output must have, by the operator's shape rules (DirectMLX's
 * shapes), from its inputs and attributes alone: the output descriptors are
 * not read, so they may be NULL or have no sizes yet.  output_index counts
 * the outputs in binding order (0: OutputTensor, or NONZERO_COORDINATES'
 * OutputCountTensor; 1: its OutputCoordinatesTensor).  feature_level 0
 * means the latest (D19); only NONZERO_COORDINATES' shapes depend on it.
 *   GATHER_ELEMENTS       IndicesTensor's sizes (R-GE-4)
 *   SCATTER_ELEMENTS      InputTensor's sizes (R-SC-6)
 *   GATHER_ND, GATHER_ND1 D = InputTensor.DimensionCount dimensions: 1s, then
 *                         IndicesTensor.Sizes[D-q .. D-2], then the last
 *                         r = m - b - k of InputTensor.Sizes (R-GN-7)
 *   NONZERO_COORDINATES   {1} and {M, N}: M the input's element count, N its
 *                         DimensionCount (R-NZ-1..5; N may also be as small as
 *                         the input's effective rank).  Below 4_0 both have
 *                         the input's DimensionCount, padded with leading 1s
 *                         (D10).
 * It checks what it needs and nothing more: the inputs it reads present,
 * with 1 to 8 dimensions and sizes; GatherND's ranks, attributes and tuple
 * size (R-GN-1..4) and an output that fits in D dimensions (R-GN-7); a
 * NonZero input of at most 2^32-1 elements (R-TD-13), and of at least 2
 * dimensions below 4_0 for the coordinates (D10).  Where dmlref_validate()
 * makes the same check, a failure has its status, rule and message.  A NULL
 * argument, an
 * unknown operator or level, or an output_index the operator lacks is
 * DMLREF_ERROR_INVALID_ARGUMENT.  Sizes of 0, data types, strides and the
 * other rules are dmlref_validate()'s.  On success *dimension_count
 * (1..8) and the first *dimension_count entries of sizes are set; on failure
 * neither is written.  err may be NULL. */
DMLREF_API dmlref_status
dmlref_infer_output_sizes(const dmlref_operator_desc *op, dmlref_feature_level feature_level,
                          uint32_t output_index, uint32_t *dimension_count,
                          uint32_t sizes[DMLREF_TENSOR_DIMENSION_COUNT_MAX], dmlref_error *err);

/* Validates, checks the bindings and every index, then computes.  Bindings
 * come in the order of the descriptor's tensor fields, inputs first:
 *   GATHER_ELEMENTS, GATHER_ND, GATHER_ND1: {Input, Indices}, {Output}
 *   SCATTER_ELEMENTS: {Input, Indices, Updates}, {Output}
 *   NONZERO_COORDINATES: {Input}, {OutputCount, OutputCoordinates}
 * A wrong count, a NULL or too small binding, or an output overlapping another
 * binding is an error.  Out-of-range indices fail with
 * DMLREF_ERROR_INDEX_OUT_OF_RANGE (the strict policy, D1/D2).  On any
 * failure nothing is written.  Threads: OpenMP's default (OMP_NUM_THREADS);
 * the results are bit-identical for any thread count. */
DMLREF_API dmlref_status dmlref_execute(const dmlref_operator_desc *op,
                                        dmlref_feature_level feature_level,
                                        const dmlref_binding *inputs, size_t input_count,
                                        const dmlref_binding *outputs, size_t output_count,
                                        dmlref_error *err);

/* ---- advanced: execution options (may grow; zero-initialise) ------------ */

typedef enum dmlref_oob_policy {
    DMLREF_OOB_ERROR = 0, /* refuse the execution (default, D1/D2) */
    DMLREF_OOB_CLAMP = 1  /* clamp the normalised index into [0, s-1] along
                             its axis: dmlref's portable policy, not
                             DirectML's (R-IX-5) */
} dmlref_oob_policy;

/* The most threads an execution may ask for. */
#define DMLREF_MAX_THREADS 1024u

/* Which kernels compute.  Both give bit-identical results (make check proves
 * it over the suite and random cases); the reference is the definition. */
typedef enum dmlref_kernels {
    DMLREF_KERNELS_REFERENCE = 0, /* reference/: one plain loop per operator,
                                     mirroring its pseudocode (default) */
    DMLREF_KERNELS_FAST = 1       /* src/kernels/: strided runs, coalescing,
                                     prefetch, element-size-specialised loops */
} dmlref_kernels;

typedef struct dmlref_execute_options {
    dmlref_oob_policy oob_policy;
    uint32_t num_threads; /* 0: OpenMP's default; at most DMLREF_MAX_THREADS */
    dmlref_kernels kernels;
} dmlref_execute_options;

/* dmlref_execute() with options; options may be NULL (all defaults). */
DMLREF_API dmlref_status dmlref_execute_with_options(
    const dmlref_operator_desc *op, dmlref_feature_level feature_level,
    const dmlref_execute_options *options, const dmlref_binding *inputs, size_t input_count,
    const dmlref_binding *outputs, size_t output_count, dmlref_error *err);

#ifdef __cplusplus
}
#endif

#endif /* DMLREF_H */
