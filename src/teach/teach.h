/*
 * teach.h - a case made plain for a person learning the operators:
 * dmlref explain and dmlref show.  Both turn a loaded vector into text.
 * What explain says of an output element is derived by the reference's own
 * rules (reference/trace.c), and tests/unit/test_explain.c checks it against the
 * reference kernels' output over the whole suite.
 */
#ifndef DMLREF_TEACH_H
#define DMLREF_TEACH_H

#include "reference/trace.h"
#include "vector/vector_internal.h"

/* Explaining every element of a case stops after this many, with a line
   saying how to name one. */
#define EXPLAIN_ALL_LIMIT 64

/* An index out of range is placed by tracing the output elements, the first
   this many at most. */
#define EXPLAIN_SEARCH_LIMIT 65536

/* The explanation of case v (read with DMLREF_VECTOR_READ_CASE, or a
   vector): the operator, its attributes and its rule, then the derivation
   of the output element `element` ("OutputTensor[1,0,2]"; NULL: of every
   output element, up to EXPLAIN_ALL_LIMIT).  A case that must be refused,
   or that dmlref refuses, is explained by the rule it breaks and where.
   Evaluates v.  The text is NUL-terminated, allocated with malloc.  A
   malformed `element` is DMLREF_ERROR_INVALID_ARGUMENT with a message. */
dmlref_status explain_case(dmlref_vector *v, const char *element, char **text, size_t *length,
                           dmlref_error *err);

/* DMLREF_OK when dmlref accepts case v (read with DMLREF_VECTOR_READ_CASE
   and DMLREF_VECTOR_READ_REFUSED) at its feature level and, when it has
   data, executes it under its policy; else the error it refuses the case
   with, in *err.  case_refusal_at() asks the same at another level. */
dmlref_status case_refusal(const dmlref_vector *v, dmlref_error *err);
dmlref_status case_refusal_at(const dmlref_vector *v, dmlref_feature_level level,
                              dmlref_error *err);

/* What an element is derived from, for a picture of the derivation. */
typedef enum source_role {
    SOURCE_VALUE, /* the input element it copies (NonZero: whose coordinate it is) */
    SOURCE_INDEX, /* an index element read on the way */
    SOURCE_LOSER  /* Scatter: an update aimed at it that a later one overwrote */
} source_role;

typedef struct element_source {
    source_role role;
    size_t tensor;         /* binding order: v->tensors */
    uint64_t at[MAX_RANK]; /* its coordinates there */
} element_source;

#define EXPLAIN_MAX_SOURCES (1 + MAX_RANK + TRACE_MAX_LOSERS)

/* The elements output element `element` ("OutputTensor[1,0,2]") of case v
   comes from, as explain_case() derives it: into sources (room for
   EXPLAIN_MAX_SOURCES), their number in *count; none for NonZero's count,
   its undefined rows, or an element whose index is out of range.  v must
   have been evaluated without error (dmlref_vector_eval).  A malformed
   `element` is DMLREF_ERROR_INVALID_ARGUMENT with a message. */
dmlref_status explain_sources(dmlref_vector *v, const char *element, element_source *sources,
                              size_t *count, dmlref_error *err);

/* Every tensor of vector v (a vector, or a case read with
   DMLREF_VECTOR_READ_CASE) as text: a header (the case, its operator,
   feature level, attributes, notes, and the error a case that must be
   refused is refused with), then each tensor in binding order: its dtype,
   sizes and layout (packed, or its strides and what they mean: broadcast,
   permuted, padding, TotalTensorSizeInBytes), its elements as a nested
   array, numpy's way (more than 1000 summarised), and where strides,
   padding or broadcast make memory differ from that logical view, the
   element offset of each element and the buffer slot by slot.  Outputs
   show what they must hold: '?' where any value passes, {a|b} where any one
   of these does; NonZero's count as a number and its coordinates as a
   numbered matrix, whose columns name the input dimensions.  Where an
   output (or a permitted variant's) has no values, the case is evaluated
   (dmlref_vector_eval) and the text says so.  The text is NUL-terminated,
   allocated with malloc; it depends on the vector alone. */
dmlref_status show_vector(dmlref_vector *v, char **text, size_t *length, dmlref_error *err);

/* An element as vectors/FORMAT.md writes it, without JSON's quotes: nan,
   inf, 0x7fc00001, 18446744073709551615 stay unambiguous.  capacity:
   ELEMENT_TEXT_CAPACITY at least. */
void bare_element(dmlref_tensor_data_type type, uint64_t bits, char *buf, size_t capacity);

/* Text that a vector or a user gives (notes, an --element argument, a
   message quoting them), made safe to print: a control character is
   written \n, \r, \t or \xNN, a byte that is not well-formed UTF-8 \xNN,
   and a character a terminal would not show as itself (C1 controls, zero
   widths, line separators, bidirectional controls) \uXXXX; the rest,
   UTF-8 included, as it is.  With `backslash`, \ itself is written \\, so
   that an escape cannot be forged.  text_put_escaped() appends it all
   (backslash escaped); escape_text() writes at most capacity - 1 bytes
   and a NUL into out, ending a text that does not fit with "..." after a
   whole character, and returns the length written. */
void text_put_escaped(text_buffer *t, const char *text);
size_t escape_text(const char *text, int backslash, char *out, size_t capacity);

#endif /* DMLREF_TEACH_H */
