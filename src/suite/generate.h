/*
 * generate.h - the case generator: one maker of operator cases for the
 * golden suite's sweeps and dmlref fuzz's random cases (suite.c, fuzz.c),
 * dmlref bench (src/cli/bench.c) and the random tests of the fast kernels
 * (tests/unit/test_random.c).  Part of the command; it needs the library
 * alone, so a test program links it without the rest of the command.
 *
 * A case is drawn from a request (the operator, data and index types, rank,
 * sizes or a budget, layouts, how data values and index values are made)
 * and a seeded stream.  gen_make() draws it in a fixed order, the suite's,
 * so that the golden suite stays byte for byte what it is:
 *
 *   the operator's parameters (an axis; GatherND's m, q, b, k), the
 *   input's sizes and the others' from them, the inputs' layouts, the
 *   inputs' values, the outputs' layouts, the out-of-range indices.
 *
 * Then gen_fill() writes each input into a buffer laid out as
 * gen_tensor_desc() says (bench, the random tests), or gen_case_text()
 * writes the case as JSON in the vector format's case form (the suite,
 * fuzz).  Values other than the suite's index classes are functions of
 * their element, so filling is the same for any thread count.
 *
 * What every operator has in the same form (its tensors in binding order,
 * which of them holds indices, its attributes, its output shapes through
 * dmlref_infer_output_sizes) comes from the library's operator table
 * (src/core/operators.c).  What is the operator's own is one row of the
 * table in generate.c: its shape parameters and how they are drawn, how its
 * tensors' sizes relate, which of the suite's layouts each tensor takes,
 * which input size each index element is checked against, and how the
 * suite sweeps it.
 */
#ifndef DMLREF_SUITE_GENERATE_H
#define DMLREF_SUITE_GENERATE_H

#include "dmlref.h"

#include <stddef.h>
#include <stdint.h>

#define GEN_TENSORS 4        /* tensors of an operator, at most (the operator table's) */
#define GEN_ATTRIBUTES 3     /* attributes of an operator, at most */
#define GEN_PARAMS 4         /* shape parameters of an operator, at most */
#define GEN_MAX_OPERATORS 16 /* rows of the generator's table, at most */
#define GEN_DRAW UINT32_MAX  /* a parameter the generator draws */

/* ---- the seeded stream: SplitMix64 ------------------------------------------ */

typedef struct gen_rng {
    uint64_t state;
} gen_rng;

uint64_t gen_next(gen_rng *r);
/* next % bound; 0, without a draw, for a bound of 0. */
uint32_t gen_below(gen_rng *r, uint32_t bound);

/* ---- what a request asks for ------------------------------------------------ */

/* Layouts.  The first five are the suite's case layouts, in its order: each
 * tensor takes the case's layout where its row allows it (broadcast: the
 * first input; strided: the outputs), else it is packed.  A per-tensor
 * layout (gen_request.layouts) is taken as it is. */
typedef enum gen_layout {
    GEN_PACKED,     /* row-major, no gaps */
    GEN_PADDED,     /* one element (varied: 0 to 2) after each dimension's run */
    GEN_PERMUTED,   /* dimensions ordered in memory at random */
    GEN_BROADCAST,  /* stride 0 on the first dimension larger than 1 (varied: on any) */
    GEN_STRIDED,    /* every element two apart along the innermost dimension */
    GEN_TRANSPOSED, /* dimension 0 innermost: column by column for rank 2 */
    GEN_VARIED      /* each tensor draws one of the above (outputs: never broadcast),
                       with 0 to 2 elements of padding a dimension and 0 or 4 extra
                       bytes at the end of its buffer */
} gen_layout;
#define GEN_SUITE_LAYOUTS 5

/* How the input's sizes are drawn within the budget. */
typedef enum gen_sizes {
    GEN_SIZES_SMALL, /* 1 to 4 a dimension (fewer for high ranks), at least 2 in all */
    GEN_SIZES_SPREAD /* each around the rank-th root of the budget */
} gen_sizes;

/* Data values (every input but the index tensor). */
typedef enum gen_data {
    GEN_DATA_READABLE, /* distinct and easy to read: +-(k+1)/2, scaled integers */
    GEN_DATA_BITS      /* random bits: NaN payloads, -0.0, subnormals among them */
} gen_data;

/* Index values, each within the size its element is checked against (s). */
typedef enum gen_indices {
    GEN_INDICES_CLASSES,     /* by position: 0, s-1, -s, -1 (signed), then random; the
                                suite's, drawn one by one from the stream */
    GEN_INDICES_UNIFORM,     /* uniform over [0, s) */
    GEN_INDICES_TWO_TARGETS, /* uniform over [0, 2): most targets of a line repeat */
    GEN_INDICES_SEQUENTIAL,  /* the element's own coordinate along its walk */
    GEN_INDICES_REVERSED,    /* s - 1 - that coordinate */
    GEN_INDICES_SORTED,      /* nondecreasing along the walk, steps of 0 to 2 */
    GEN_INDICES_PERMUTATION, /* a random permutation of [0, s) along every line */
    GEN_INDICES_ZERO         /* all 0: every target of a line the same */
} gen_indices;

typedef struct gen_request {
    dmlref_operator_type op;
    dmlref_tensor_data_type type;       /* the data tensors' */
    dmlref_tensor_data_type index_type; /* the index tensor's, where there is one */
    uint32_t rank;                      /* the input's DimensionCount, 1 to 8 */
    uint32_t params[GEN_PARAMS];        /* the operator's shape parameters, as
                                           gen_params_text() names them; GEN_DRAW
                                           in the first: drawn */
    const uint32_t *sizes;              /* the input's sizes; NULL: drawn */
    const uint32_t *index_sizes;        /* the index tensor's (what the operator's
                                           rules fix is set over them); NULL: drawn */
    gen_sizes size_style;
    uint64_t budget; /* drawn sizes: at most this many input elements */
    /* Indices drawn along an axis: up to this many past the input's size.  An
       operator that allows fewer gets such a case drawn again, from the stream
       as it was before the sizes, with what it allows; the stream goes on as
       the first draw left it (so the suite's later cases stay as they were). */
    uint32_t past_axis;
    gen_layout layout;                    /* the case's */
    const gen_layout *layouts;            /* NULL, or one per tensor in binding order */
    const uint32_t *strides[GEN_TENSORS]; /* a tensor's own strides (NULL: its layout's) */
    gen_data data;
    /* Data inputs: about nonzero[0] of every nonzero[1] elements keep their
       value, the others are 0 ({0, 0}: all keep it); nonzero[0] GEN_DRAW:
       drawn from 0 to nonzero[1] when the values are. */
    uint32_t nonzero[2];
    int sign_only; /* 1 in 8 kept elements: the sign bit alone (-0.0 for floats) */
    gen_indices indices;
    int negative;     /* signed index types: about half counted from the end (v - s) */
    int out_of_range; /* one or two index elements out of range (gen_out_of_range_index) */
    int vary_shapes;  /* the operators' shape variants (the rows say which) */
} gen_request;

/* The suite's request: parameters drawn, small sizes within 36 elements,
   one index past the input's along an axis, packed, readable values,
   index classes. */
void gen_request_init(gen_request *q, dmlref_operator_type op, dmlref_tensor_data_type type,
                      dmlref_tensor_data_type index_type, uint32_t rank);

/* Room for any operator's descriptor struct, aligned for its fields. */
typedef union gen_desc {
    const void *align_pointer;
    uint64_t align_integer;
    unsigned char bytes[64];
} gen_desc;

/* ---- a case ------------------------------------------------------------------- */

typedef struct gen_tensor {
    dmlref_tensor_data_type type;
    uint32_t rank;
    uint32_t sizes[8];
    int strided; /* strides below, else packed */
    uint32_t strides[8];
    uint64_t extra_bytes; /* TotalTensorSizeInBytes past the minimum */
    gen_layout layout;    /* the one it took */
    int omit_sizes;       /* JSON: an output whose sizes the reader infers */
    /* inputs */
    uint64_t salt;    /* the values' key, drawn when they were */
    uint32_t ordinal; /* data inputs: 0 for the first, 1 for the next */
    uint32_t keep[2]; /* as gen_request.nonzero, drawn */
    uint64_t keep_salt;
    uint64_t *data; /* index classes: each logical element's bits; else NULL */
} gen_tensor;

struct gen_operator;
struct operator_info;

typedef struct gen_case {
    const struct operator_info *info; /* the library's row */
    const struct gen_operator *row;   /* the generator's */
    dmlref_operator_type op;
    uint32_t params[GEN_PARAMS];
    uint32_t attributes[GEN_ATTRIBUTES];
    size_t inputs, count; /* tensors: inputs, then outputs */
    gen_tensor t[GEN_TENSORS];
    gen_data data;
    gen_indices indices;
    int negative, sign_only;
    int specials; /* gen_sprinkle_specials() */
    uint64_t specials_salt;
    uint32_t broken;       /* index elements out of range (0 to 2) */
    uint64_t broken_at[2]; /* ... their canonical elements */
    uint64_t broken_bits[2];
    int batches_outside; /* more index batches than input ones: refused (R-GN-6) */
    int over_axis;       /* internal: more indices along an axis than the operator allows */
} gen_case;

/* Draws a case from *r; 0 when the request cannot be met (an unknown
   operator, sizes the library's shape rules refuse, no memory). */
int gen_make(gen_rng *r, const gen_request *q, gen_case *c);
/* NaN payloads, both zeros, infinities and subnormals among a quarter of
   the float inputs' elements, chosen per element with a salt from *r. */
void gen_sprinkle_specials(gen_rng *r, gen_case *c);
void gen_free(gen_case *c);

/* Tensor i's descriptor (its Sizes and Strides point into c). */
void gen_tensor_desc(const gen_case *c, size_t i, dmlref_tensor_desc *d);
/* Writes the operator's descriptor struct over `tensors` (binding order)
   into `desc`, room for it (a gen_desc has room for any). */
void gen_descriptor(const gen_case *c, const dmlref_tensor_desc *const *tensors, void *desc);
/* Writes input i's elements into `buffer`, laid out as gen_tensor_desc(),
   with up to `threads` threads; bytes no element covers are left alone. */
void gen_fill(const gen_case *c, size_t i, void *buffer, uint32_t threads);
/* The bits of input i's logical element e (row-major). */
uint64_t gen_value(const gen_case *c, size_t i, uint64_t e);
/* The case as JSON (outputs without expected values) named `name`;
   0 when out of memory.  The caller frees *text. */
int gen_case_text(const gen_case *c, const char *name, char **text, size_t *length);
/* The parameters as "<name><between><value>" joined by `joint`:
   gen_params_text(c, "", "_", ...) gives "m1_q2_b0_k1". */
void gen_params_text(const gen_case *c, const char *between, const char *joint, char *out,
                     size_t capacity);
/* One line: "GATHER_ND1 FLOAT32, INT64 indices, rank 3, m 2, q 3, b 1, k 1,
   layouts padded permuted packed". */
void gen_describe(const gen_case *c, char *out, size_t capacity);

/* ---- the operators ------------------------------------------------------------- */

size_t gen_operator_count(void);
dmlref_operator_type gen_operator_at(size_t i);
/* Its place in the generator's table (gen_operator_count() if none). */
size_t gen_operator_index(dmlref_operator_type op);
/* 1 when the operator has an index tensor. */
int gen_has_indices(dmlref_operator_type op);
/* The data types the operator takes (all 11 unless it takes fewer). */
const dmlref_tensor_data_type *gen_data_types(dmlref_operator_type op, size_t *count);

/* How the suite sweeps an operator: `cases` a point (type, index type and
   rank; without an index tensor: type, rank and density), the axis turned
   by axis_turn (GEN_DRAW: the parameters are drawn) and the layout by
   layout_turn.  Operators next to each other with as many cases take
   turns, case by case. */
typedef struct gen_sweep {
    uint32_t cases, axis_turn, layout_turn;
} gen_sweep;
const gen_sweep *gen_operator_sweep(dmlref_operator_type op);

/* The 11 data types in DirectML's order, and the 4 index types. */
extern const dmlref_tensor_data_type gen_all_data_types[11];
extern const dmlref_tensor_data_type gen_index_types[4];
/* "packed", "padded", "permuted", "broadcast_input", "strided_output", ... */
const char *gen_layout_name(gen_layout layout);

/* ---- cases made elsewhere (dmlref fuzz's JSON) ----------------------------------- */

/* The case of a descriptor: its tensors' types, sizes and strides and its
   attributes, without values; 0 for an operator the generator lacks. */
int gen_case_from_desc(const dmlref_operator_desc *op, gen_case *c);
/* The size the index tensor's logical element e is checked against; 0 when
   the case is malformed there. */
int gen_index_bound(const gen_case *c, uint64_t e, uint64_t *bound);

/* Index values for a size s, as bits of `type` (a 4-byte type's in the low
   32 bits), the choice in [0, count):
   boundaries: 0, s-1, then -s, -1 for signed types;
   out of range: signed s, -s-1, the largest and the smallest value;
   unsigned s, 2^31 (2^63), 2^32-1 (2^64-1), then 2^32-s (2^64-s: -s read
   as signed) and 2^31-1 (2^63-1).  `clamp` leaves the last two out: under
   the clamp policy their results are unspecified (R-IX-5). */
uint32_t gen_boundary_count(dmlref_tensor_data_type type);
uint64_t gen_boundary_index(uint64_t s, dmlref_tensor_data_type type, uint32_t choice);
uint32_t gen_out_of_range_count(dmlref_tensor_data_type type, int clamp);
uint64_t gen_out_of_range_index(uint64_t s, dmlref_tensor_data_type type, uint32_t choice);

/* Values at the edge of zero, for NonZero: floats +0.0, -0.0, 2^-149 (the
   smallest FLOAT32 subnormal; FLOAT16's smallest, 2^-24), its negative,
   NaN, infinity, -infinity, 1; integers 0, 1, -1 (unsigned: the largest),
   the top bit alone and the value below it.  The choice in [0, count). */
uint32_t gen_zero_edge_count(dmlref_tensor_data_type type);
uint64_t gen_zero_edge(dmlref_tensor_data_type type, uint32_t choice);

#endif /* DMLREF_SUITE_GENERATE_H */
