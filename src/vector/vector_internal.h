/*
 * vector_internal.h - the inside of a dmlref_vector and the element helpers
 * the vector files share.  Not installed.
 */
#ifndef DMLREF_VECTOR_INTERNAL_H
#define DMLREF_VECTOR_INTERNAL_H

#include "core/core.h"
#include "dmlref/vector.h"

#include <stddef.h>

#define half_to_double dmlref__half_to_double
#define half_from_double_exact dmlref__half_from_double_exact
#define is_float_type dmlref__is_float_type
#define is_signed_int_type dmlref__is_signed_int_type
#define int_type_range dmlref__int_type_range
#define parse_decimal dmlref__parse_decimal
#define integer_fits dmlref__integer_fits
#define decode_element_text dmlref__decode_element_text
#define decode_element_number dmlref__decode_element_number
#define format_element dmlref__format_element
#define describe_element dmlref__describe_element
#define load_bits dmlref__load_bits
#define store_bits dmlref__store_bits
#define splitmix64 dmlref__splitmix64
#define generate_element dmlref__generate_element
#define digest_prefix dmlref__digest_prefix

/* ---- elements (elements.c) -------------------------------------------- */

double half_to_double(uint16_t h);
/* 1 and the bits when value is exactly a float16 (finite); else 0. */
int half_from_double_exact(double value, uint16_t *out);
int is_float_type(dmlref_tensor_data_type type);
int is_signed_int_type(dmlref_tensor_data_type type);
void int_type_range(dmlref_tensor_data_type type, int64_t *min, uint64_t *max);
/* A strict decimal integer: optional '-', digits, no leading zeros. */
int parse_decimal(const char *text, int *negative, uint64_t *magnitude);
/* 1 and the two's-complement bits when the integer fits the type. */
int integer_fits(dmlref_tensor_data_type type, int negative, uint64_t magnitude, uint64_t *bits);

/* Decode one element from its JSON form: NULL on success, else what is wrong
 * with it (a phrase that follows the JSON path in a message). */
const char *decode_element_text(dmlref_tensor_data_type type, const char *text, uint64_t *bits);
const char *decode_element_number(dmlref_tensor_data_type type, int is_integer, long long integer,
                                  double real, uint64_t *bits);

/* The element's JSON text, as the writer puts it (FORMAT.md, "Elements"). */
#define ELEMENT_TEXT_CAPACITY 48
void format_element(dmlref_tensor_data_type type, uint64_t bits, char *buf, size_t capacity);
/* "4.5 (0x40900000)" for messages. */
void describe_element(dmlref_tensor_data_type type, uint64_t bits, char *buf, size_t capacity);

/* The JSON path of what a validation message names first: a tensor's field
   ("IndicesTensor.Sizes[0]" -> "$.tensors.IndicesTensor.sizes[0]") or an
   attribute ("Axis = 2" -> "$.attributes.Axis"); "$" when it names neither.
   path holds JSON_PATH_CAPACITY bytes (read.c). */
#define JSON_PATH_CAPACITY 160
#define validation_path dmlref__validation_path
void validation_path(const dmlref_vector *v, const char *message, char *path);

/* Host-order element access. */
uint64_t load_bits(const unsigned char *p, uint32_t size);
void store_bits(unsigned char *p, uint32_t size, uint64_t bits);

/* ---- text (write.c) ---------------------------------------------------------
 * A string that grows as it is written, for the writer and for whatever
 * renders a vector as text (src/teach).  Start it as {NULL, 0, 0, 0}; after
 * the first text_put() that succeeded, data is NUL-terminated.  A failed
 * allocation sets `failed`, after which text_put() does nothing: check it
 * once at the end, then free(data). */
typedef struct text_buffer {
    char *data;
    size_t length, capacity;
    int failed;
} text_buffer;

#define text_put dmlref__text_put
/* Appends printf-style text. */
PRINTF_LIKE(2, 3)
void text_put(text_buffer *t, const char *format, ...);

/* ---- generators ----------------------------------------------------------- */

enum { GENERATOR_NONE = 0, GENERATOR_BITS, GENERATOR_INDEX, GENERATOR_SPARSE };

typedef struct generator {
    int kind;
    uint64_t seed;
    uint64_t low[8], high[8]; /* two's-complement bits */
    uint32_t bound_count;
    uint32_t density; /* per million */
} generator;

uint64_t splitmix64(uint64_t seed, uint64_t i);
uint64_t generate_element(const generator *g, dmlref_tensor_data_type type, uint64_t i);

/* XXH3-64 of the first `count` logical elements (little-endian). */
uint64_t digest_prefix(const layout *l, const void *data, uint64_t count);

/* ---- the vector ---------------------------------------------------------- */

enum { EXPECT_VALUE = 0, EXPECT_NULL = 1, EXPECT_ANY_OF = 2 };

typedef struct any_of_entry {
    uint64_t element; /* logical position */
    size_t first;     /* into vtensor.alternatives */
    size_t count;
} any_of_entry;

typedef struct vtensor {
    const char *name; /* DirectML's field name */
    int is_output;
    dmlref_tensor_desc desc;
    uint32_t sizes[MAX_RANK];
    uint32_t strides[MAX_RANK];
    int has_sizes;
    int total_given; /* total_bytes was in the file */

    /* inputs */
    int has_data;  /* data or generator given */
    generator gen; /* kind GENERATOR_NONE: data array */

    /* outputs: what they must hold */
    int has_expected;     /* an element array */
    uint64_t *expected;   /* logical order, bits */
    unsigned char *kinds; /* EXPECT_* per element; NULL: all values */
    any_of_entry *any_of;
    size_t any_of_count;
    uint64_t *alternatives;
    size_t alternatives_count;
    int has_xxh3;
    uint64_t xxh3;

    unsigned char *buffer;     /* TotalTensorSizeInBytes, host order, aligned to
                              GuaranteedBaseOffsetAlignment (aligned_buffer_new) */
    uint64_t buffer_bytes;     /* its length: TotalTensorSizeInBytes, or more for a
                              case that must be refused (see read.c) */
    void *buffer_block;        /* what was allocated for it: free() this, not buffer */
    uint64_t buffer_allocated; /* the bytes of that block (the memory cap counts them) */
    uint64_t fill_work;        /* element offsets the reader visited filling the buffer:
                              it stays proportional to the buffer, not to the
                              logical elements of a broadcast (tests check it) */
    uint64_t *elements;        /* an input of a refused case that got no buffer:
                              its "data", logical order, bits; else NULL */
} vtensor;

/* A permitted variant (FORMAT.md, "Variants"): another whole answer DirectML
   allows, given as what each output must hold instead.  Its outputs are
   vtensors that share the case's output descriptors (dtype, sizes,
   strides) and own only their expectations; they have no buffer. */
enum { VARIANT_SUBNORMALS_FLUSHED = 0, VARIANT_KINDS };

typedef struct variant {
    int kind;                              /* VARIANT_* */
    vtensor outputs[OPERATOR_MAX_OUTPUTS]; /* in binding order, like the case's outputs */
} variant;

/* The name and rule id of a variant kind. */
#define variant_kind_name dmlref__variant_kind_name
#define variant_kind_rule dmlref__variant_kind_rule
const char *variant_kind_name(int kind);
const char *variant_kind_rule(int kind);

struct dmlref_vector {
    char *source;        /* for messages */
    uint64_t memory_cap; /* the cap it was read under: eval and replies stay in it */
    char *name;
    char *notes;
    dmlref_operator_type type;
    dmlref_feature_level level;
    int has_min_level;
    dmlref_feature_level min_level;
    dmlref_oob_policy oob;
    const operator_info *row;                     /* the operator's row of the table */
    uint32_t attributes[OPERATOR_MAX_ATTRIBUTES]; /* the row's, in field order */
    size_t input_count, output_count;
    vtensor tensors[OPERATOR_MAX_TENSORS]; /* inputs, then outputs */
    dmlref_binding inputs[OPERATOR_MAX_INPUTS], outputs[OPERATOR_MAX_OUTPUTS];
    operator_desc_storage desc; /* the row's descriptor struct */
    dmlref_operator_desc op;
    int expects_error;
    dmlref_status error_status;
    char error_rule[DMLREF_ERROR_RULE_CAPACITY];
    int buffers_ready;               /* inputs filled, outputs allocated */
    size_t variant_count;            /* a vector with variants is written as format 2 */
    variant variants[VARIANT_KINDS]; /* at most one of each kind */
};

/* Names of the operator's tensors (binding order) and attributes (field
   order), from its row of the table: the keys of a vector. */
typedef struct operator_shape {
    size_t input_count, output_count;
    const char *tensors[OPERATOR_MAX_TENSORS + 1]; /* NULL-terminated */
    size_t attribute_count;
    const char *attributes[OPERATOR_MAX_ATTRIBUTES + 1]; /* NULL-terminated */
} operator_shape;
#define operator_shape_of dmlref__operator_shape_of
void operator_shape_of(const operator_info *row, operator_shape *shape);

/* Builds the operator descriptor from the row, the tensors' descriptors and
   the attributes. */
#define vector_link_descriptors dmlref__vector_link_descriptors
void vector_link_descriptors(dmlref_vector *v);

/* 1 when dmlref_vector_write() writes output t by its digest alone, given
   it has one: more than 64 elements, in a case whose inputs come from
   generators (FORMAT.md). */
#define vector_output_by_digest dmlref__vector_output_by_digest
int vector_output_by_digest(const dmlref_vector *v, const vtensor *t);

/* Drops what an output must hold (before eval sets it anew). */
#define vtensor_clear_expectations dmlref__vtensor_clear_expectations
void vtensor_clear_expectations(vtensor *t);

/* Makes `out` an output of variant `kind` with no expectations yet: the
   case's output descriptor `of`, its own copy of sizes and strides. */
#define variant_output_init dmlref__variant_output_init
void variant_output_init(vtensor *out, const vtensor *of);

/* Drops every variant of the vector. */
#define vector_clear_variants dmlref__vector_clear_variants
void vector_clear_variants(dmlref_vector *v);

/* ---- the memory cap ----------------------------------------------------------
 * One cap (dmlref_vector_read_options.memory_cap) covers everything a case
 * makes the library allocate: the file's text, jansson's parse tree (bounded
 * from the text before it is parsed, read.c), the buffers and what
 * aligning them takes, the elements and expectations, and the scratch of
 * reading, evaluating and reading replies.  Each allocation is counted before
 * it is made; a budget is per call, never shared between threads. */
typedef struct memory_budget {
    uint64_t cap;
    uint64_t used;
    const char *source; /* the file name, for messages */
    dmlref_error *err;
} memory_budget;

/* Counts `bytes` when they fit under the cap: DMLREF_OK.  Otherwise nothing
   is counted and the result is DMLREF_ERROR_OUT_OF_MEMORY with the message
   "SOURCE: PATH: the case needs more than the memory cap of CAP bytes: BYTES
   bytes for WHAT, TOTAL in all (DMLREF_MEMORY_CAP sets the cap)". */
#define budget_take dmlref__budget_take
dmlref_status budget_take(memory_budget *b, uint64_t bytes, const char *path, const char *what);

/* budget_take(), then `bytes` (at least one) allocated, zero-filled when
   `zeroed`, into *out; the cap's message or an "out of memory" one. */
#define budget_allocate dmlref__budget_allocate
dmlref_status budget_allocate(memory_budget *b, uint64_t bytes, int zeroed, const char *path,
                              const char *what, void **out);

/* Gives back bytes taken for scratch that has been freed. */
static inline void budget_give_back(memory_budget *b, uint64_t bytes)
{
    b->used = bytes < b->used ? b->used - bytes : 0;
}

/* DMLREF_ERROR_OUT_OF_MEMORY for an allocation that failed under the cap:
   "SOURCE: PATH: out of memory for BYTES bytes (WHAT)". */
#define budget_out_of_memory dmlref__budget_out_of_memory
dmlref_status budget_out_of_memory(const memory_budget *b, uint64_t bytes, const char *path,
                                   const char *what);

/* A budget for work on a read vector: its cap, and as used what the vector
   holds (buffers, kept elements, strings and, with `with_expectations`, what
   its outputs and variants must hold). */
#define vector_budget dmlref__vector_budget
void vector_budget(const dmlref_vector *v, int with_expectations, dmlref_error *err,
                   memory_budget *b);

/* The bytes an output's expectations (expected, kinds, any_of) take. */
#define vtensor_expectation_bytes dmlref__vtensor_expectation_bytes
uint64_t vtensor_expectation_bytes(const vtensor *t);

/* ---- aligned buffers -----------------------------------------------------------
 * A binding must start at a multiple of its GuaranteedBaseOffsetAlignment
 * (R-TD-14: any power of two up to 2^31).  C99 has no aligned allocation, so
 * an alignment above what malloc promises for every type is had by
 * allocating alignment - 1 bytes more and starting the buffer inside the
 * block; the memory cap counts the whole block. */

/* The bytes allocated for a buffer of `bytes` aligned to `alignment` (0 or
   an alignment that is not a power of two: no promise, none added);
   UINT64_MAX when that does not fit 64 bits. */
#define aligned_buffer_bytes dmlref__aligned_buffer_bytes
uint64_t aligned_buffer_bytes(uint64_t bytes, uint32_t alignment);

/* A zero-filled buffer of `bytes` (at least one byte is allocated) aligned to
   `alignment`, or NULL; *block gets what to free(). */
#define aligned_buffer_new dmlref__aligned_buffer_new
unsigned char *aligned_buffer_new(uint64_t bytes, uint32_t alignment, void **block);

/* The output of a NONZERO_COORDINATES case that carries the count. */
#define OUTPUT_COUNT_TENSOR 1
#define OUTPUT_COORDINATES_TENSOR 2

#endif /* DMLREF_VECTOR_INTERNAL_H */
