/*
 * trace.h - the derivation of one output element by the reference's own
 * rules, for dmlref explain (src/teach/explain.c): which index elements
 * were read and what each normalised to, which input element was copied;
 * for Scatter, every update that targets the element and the one that won;
 * for NonZero, the input element a row comes from.  It uses the helpers of
 * the reference kernels (reference.h) and follows their loops for one
 * element; tests/unit/test_explain.c checks over the whole suite that every
 * traced value is what the reference kernels wrote.  Not installed.
 */
#ifndef DMLREF_TRACE_H
#define DMLREF_TRACE_H

#include "reference/reference.h"

#define trace_element dmlref__trace_element
#define classify_nonzero dmlref__classify_nonzero

/* One index element read on the way (reference.h). */
typedef index_record traced_index;

typedef enum trace_kind {
    TRACE_COPY,       /* a copy of input `from` at `from_at` */
    TRACE_COUNT,      /* NonZero's OutputCount: `count` */
    TRACE_COORDINATE, /* NonZero: coordinate `column_dimension` of input
                         element `from_at`, the row's non-zero element */
    TRACE_UNDEFINED,  /* NonZero: a row at or past the count (R-NZ-14) */
    TRACE_REFUSED     /* an index out of range under the strict policy (D1,
                         D2): the case is refused, the element has no value */
} trace_kind;

/* Scatter lists at most this many of the updates that lost. */
#define TRACE_MAX_LOSERS 8

typedef struct element_trace {
    trace_kind kind;
    uint64_t bits;              /* the element's value (COPY, COUNT, COORDINATE) */
    uint32_t from;              /* COPY: the input copied from, binding order */
    uint64_t from_at[MAX_RANK]; /* COPY, COORDINATE: the input element */
    /* The index elements read: GATHER_ELEMENTS 1, GATHER_ND(1) the tuple's
       k, SCATTER the winning update's 1 (none when no update targets it). */
    uint32_t index_count;
    traced_index indices[MAX_RANK];
    /* SCATTER: how many updates target the element; the last in row-major
       order wins (D4) and is `from_at` in UpdatesTensor, the first
       loser_count of the others are listed, each at its own coordinates
       (Updates' and Indices' are the same). */
    uint64_t update_count;
    uint32_t loser_count;
    traced_index losers[TRACE_MAX_LOSERS];
    /* NONZERO_COORDINATES */
    uint64_t count;            /* the non-zero input elements */
    uint64_t row;              /* COORDINATE, UNDEFINED: the output row */
    uint32_t column_dimension; /* COORDINATE: the input dimension of the column */
} element_trace;

/* The derivation of element `at` of output `output` (binding order) of a
   valid operator whose inputs are bound to `inputs` (binding order),
   under the clamp policy when `clamp`.  `at` must lie inside the output. */
void trace_element(const dmlref_operator_desc *op, int clamp, const dmlref_binding *inputs,
                   uint32_t output, const uint64_t *at, element_trace *t);

/* Why a NonZero input element is, or is not, counted. */
typedef enum nonzero_class {
    NONZERO_ZERO,          /* all bits 0 */
    NONZERO_NEGATIVE_ZERO, /* -0.0: a float with only the sign bit: zero (R-NZ-8) */
    NONZERO_NAN,           /* not zero (R-NZ-9) */
    NONZERO_INFINITY,      /* not zero (R-NZ-9) */
    NONZERO_SUBNORMAL,     /* not zero (D7; R-NZ-10 permits flushing) */
    NONZERO_OTHER          /* any other value: not zero */
} nonzero_class;

/* The class of one element of a NonZero input; counted exactly when
   nonzero_element() says so (NONZERO_ZERO and NONZERO_NEGATIVE_ZERO are
   not). */
nonzero_class classify_nonzero(const unsigned char *element, dmlref_tensor_data_type type);

#endif /* DMLREF_TRACE_H */
