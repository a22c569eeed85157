/*
 * explain.c - dmlref explain: where each output element comes from, in
 * numbers and in the operator's own terms.  Every fact about an element
 * comes from its trace (reference/trace.c: the reference kernels' loop for
 * that element); this file only words it.
 */
#include "reference/trace.h"
#include "teach/teach.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most of an --element argument, escaped, that a message quotes. */
#define ELEMENT_ARGUMENT_SHOWN 96

/* ---- words for numbers --------------------------------------------------- */

/* "[1, 0, 2]", as the library's messages write coordinates. */
static void put_coordinates(text_buffer *t, const uint64_t *c, uint32_t rank)
{
    char buf[MAX_RANK * 22 + 2];
    format_coordinates(c, rank, buf, sizeof buf);
    text_put(t, "%s", buf);
}

static void put_sizes(text_buffer *t, const dmlref_tensor_desc *d)
{
    uint32_t i;
    text_put(t, "{");
    for (i = 0; i < d->DimensionCount; ++i)
        text_put(t, "%s%u", i ? ", " : "", d->Sizes[i]);
    text_put(t, "}");
}

static void put_value(text_buffer *t, dmlref_tensor_data_type type, uint64_t bits)
{
    char buf[ELEMENT_TEXT_CAPACITY];
    bare_element(type, bits, buf, sizeof buf);
    text_put(t, "%s", buf);
}

static const char *ordinal_suffix(uint64_t n)
{
    if (n % 100 >= 11 && n % 100 <= 13)
        return "th";
    return n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
}

/* What a case is made of, for the words. */
typedef struct case_view {
    const dmlref_vector *v;
    const dmlref_operator_desc *op;
    const vtensor *tensors; /* inputs, then outputs */
    size_t input_count;
    int clamp;
    const char *indexed;    /* the tensor whose dimension an index picks */
    const char *range_rule; /* the rule for an index out of range: D1 or D2 */
    dmlref_tensor_data_type index_type;
    /* GATHER_ND(1) of a valid case (R-GN-7, R-GN-9): D, m, q, b, k, r, and the
       output's leading 1s */
    uint32_t D, m, q, b, k, r, pad;
} case_view;

/* case_view's GatherND quantities, of a case that validation accepts. */
static void gather_nd_quantities(case_view *c)
{
    const dmlref_vector *v = c->v;
    c->D = c->tensors[0].desc.DimensionCount;
    c->m = v->attributes[0];
    c->q = v->attributes[1];
    c->b = v->type == DMLREF_OPERATOR_GATHER_ND1 ? v->attributes[2] : 0;
    c->k = c->tensors[1].desc.Sizes[c->D - 1];
    c->r = c->m - c->b - c->k;
    c->pad = c->D - (c->q - 1 + c->r);
}

/* "IndicesTensor[1, 0] = -1: negative, so it counts from the end: -1 + 3 = 2
   (R-IX-2)", and the other outcomes of normalize_index (R-IX-2..4). */
static void put_index(text_buffer *t, const case_view *c, const traced_index *x)
{
    const uint32_t rank = c->tensors[1].desc.DimensionCount;
    text_put(t, "IndicesTensor");
    put_coordinates(t, x->at, rank);
    if (x->value.huge)
        text_put(t, " = %llu", (unsigned long long)x->bits);
    else
        text_put(t, " = %lld", (long long)x->value.value);
    if (x->in_range && !x->value.huge && x->value.value < 0) {
        text_put(t,
                 ": negative, so it counts from the end: %lld + %s.Sizes[%u] = %lld + %llu = %llu "
                 "(R-IX-2)",
                 (long long)x->value.value, c->indexed, x->dimension, (long long)x->value.value,
                 (unsigned long long)x->size, (unsigned long long)x->normalized);
        return;
    }
    if (x->in_range) {
        text_put(t, ", in range for %s.Sizes[%u] = %llu", c->indexed, x->dimension,
                 (unsigned long long)x->size);
        return;
    }
    text_put(t, ": out of range for %s.Sizes[%u] = %llu (valid: ", c->indexed, x->dimension,
             (unsigned long long)x->size);
    if (is_signed_int_type(c->index_type))
        text_put(t, "-%llu to %llu, R-IX-4)", (unsigned long long)x->size,
                 (unsigned long long)(x->size - 1));
    else
        text_put(t, "0 to %llu, an unsigned index is never negative, R-IX-3)",
                 (unsigned long long)(x->size - 1));
    if (c->clamp)
        text_put(t, "; the case clamps it to %llu (\"oob\": \"clamp\", %s)",
                 (unsigned long long)x->normalized, c->range_rule);
    else
        text_put(t, ": the case is refused (%s)", c->range_rule);
}

/* "InputTensor[2, 0] = 7" */
static void put_element(text_buffer *t, const vtensor *x, const uint64_t *at, uint64_t bits)
{
    text_put(t, "%s", x->name);
    put_coordinates(t, at, x->desc.DimensionCount);
    text_put(t, " = ");
    put_value(t, x->desc.DataType, bits);
}

/* The element of tensor x at coordinates `at`, from its buffer. */
static uint64_t bits_of(const vtensor *x, const uint64_t *at)
{
    layout l;
    layout_from_desc(&x->desc, &l);
    return load_bits(x->buffer + byte_offset(&l, at), l.element_size);
}

/* ---- the operators' rules, said once at the top ------------------------------ */

/* The operator, its rule and its tensors; the derived GatherND quantities
   only when the case is valid (they mean nothing otherwise). */
static void put_header(text_buffer *t, const case_view *c, int valid)
{
    const dmlref_vector *v = c->v;
    size_t i;
    text_put(t, "%s at feature level %s: %s\n", dmlref_operator_name(v->type),
             dmlref_feature_level_name(v->level), v->name);
    if (v->notes) {
        text_put(t, "  notes: ");
        text_put_escaped(t, v->notes);
        text_put(t, "\n");
    }
    switch (v->type) {
    case DMLREF_OPERATOR_GATHER_ELEMENTS:
        text_put(t,
                 "  OutputTensor[o] = InputTensor[o with o[Axis] replaced by IndicesTensor[o]], "
                 "Axis = %u (R-GE-6)\n",
                 v->attributes[0]);
        break;
    case DMLREF_OPERATOR_SCATTER_ELEMENTS:
        text_put(t,
                 "  OutputTensor = InputTensor; then, for each u of UpdatesTensor in row-major "
                 "order,\n  OutputTensor[u with u[Axis] replaced by IndicesTensor[u]] = "
                 "UpdatesTensor[u], Axis = %u (R-SC-9, D4)\n",
                 v->attributes[0]);
        break;
    case DMLREF_OPERATOR_GATHER_ND:
    case DMLREF_OPERATOR_GATHER_ND1:
        text_put(t, "  OutputTensor[0.., beta, g, s] = InputTensor[0.., beta, t, s], the tuple t = "
                    "IndicesTensor[0.., beta, g, 0..k) (R-GN-9)\n");
        if (!valid)
            break;
        text_put(t,
                 "  m = InputDimensionCount = %u, q = IndicesDimensionCount = %u, "
                 "b = BatchDimensionCount = %u%s,\n",
                 c->m, c->q, c->b,
                 v->type == DMLREF_OPERATOR_GATHER_ND ? " (GATHER_ND, R-GN-10)" : "");
        text_put(t,
                 "  k = IndicesTensor.Sizes[%u] = %u (coordinates in a tuple), r = m - b - k = %u "
                 "(dimensions of a slice)\n",
                 c->D - 1, c->k, c->r);
        text_put(t, "  an output coordinate is ");
        if (c->pad)
            text_put(t, "%u leading 0%s, then ", c->pad, c->pad > 1 ? "s" : "");
        text_put(t, "beta (%u), g (%u), s (%u)\n", c->b, c->q - 1 - c->b, c->r);
        break;
    default:
        text_put(t, "  the coordinates of every non-zero element of InputTensor, in row-major "
                    "order, one row each;\n  OutputCountTensor holds how many (R-NZ-11, "
                    "R-NZ-12)\n");
        break;
    }
    text_put(t, "  ");
    for (i = 0; i < v->input_count + v->output_count; ++i) {
        const vtensor *x = &v->tensors[i];
        const char *type = dmlref_data_type_name(x->desc.DataType);
        text_put(t, "%s%s %s ", i ? "; " : "", x->name, type ? type : "?");
        if (x->has_sizes)
            put_sizes(t, &x->desc);
        else
            text_put(t, "(no sizes)");
    }
    text_put(t, "\n");
    if (v->type != DMLREF_OPERATOR_NONZERO_COORDINATES)
        text_put(t, "  an index out of range %s (%s)\n",
                 c->clamp ? "is clamped into range (\"oob\": \"clamp\")" : "refuses the case",
                 c->range_rule);
}

/* ---- one element ---------------------------------------------------------------- */

static void explain_copy(text_buffer *t, const case_view *c, const vtensor *out, const uint64_t *o,
                         const element_trace *e)
{
    uint32_t j;
    put_element(t, out, o, e->bits);
    text_put(t, "\n");
    for (j = 0; j < e->index_count; ++j) {
        text_put(t, "  ");
        put_index(t, c, &e->indices[j]);
        text_put(t, "\n");
    }
    text_put(t, "  ");
    put_element(t, &c->tensors[e->from], e->from_at, e->bits);
    text_put(t, "\n");
}

static void explain_gather_nd(text_buffer *t, const case_view *c, const vtensor *out,
                              const uint64_t *o, const element_trace *e)
{
    const uint32_t D = c->D, q = c->q, b = c->b, k = c->k, r = c->r, pad = c->pad;
    uint32_t j;

    put_element(t, out, o, e->bits);
    text_put(t, "\n  ");
    if (b) {
        text_put(t, "beta = ");
        put_coordinates(t, o + pad, b);
        text_put(t, " (the batch), ");
    }
    if (q - 1 - b) {
        text_put(t, "g = ");
        put_coordinates(t, o + pad + b, q - 1 - b);
        text_put(t, " (which tuple), ");
    }
    if (r) {
        text_put(t, "s = ");
        put_coordinates(t, o + pad + q - 1, r);
        text_put(t, " (inside the slice)");
    } else {
        text_put(t, "no s: each tuple addresses one element (r = 0)");
    }
    text_put(t, "\n  the tuple t = IndicesTensor[");
    for (j = 0; j + 1 < D; ++j)
        text_put(t, "%llu, ", (unsigned long long)e->indices[0].at[j]);
    text_put(t, "0..%u):\n", k);
    for (j = 0; j < e->index_count; ++j) {
        text_put(t, "    t[%u]: ", j);
        put_index(t, c, &e->indices[j]);
        text_put(t, "\n");
    }
    if (e->kind == TRACE_REFUSED)
        return;
    if (r) {
        text_put(t, "  the slice InputTensor[");
        for (j = 0; j < D; ++j)
            text_put(t, j < D - r ? "%s%llu" : "%s:", j ? ", " : "",
                     (unsigned long long)e->from_at[j]);
        text_put(t, "], and element s of it:\n");
    }
    text_put(t, "  ");
    put_element(t, &c->tensors[0], e->from_at, e->bits);
    text_put(t, "\n");
}

static void explain_scatter(text_buffer *t, const case_view *c, const vtensor *out,
                            const uint64_t *o, const element_trace *e)
{
    const vtensor *updates = &c->tensors[2];
    const uint32_t rank = out->desc.DimensionCount;
    uint32_t j;

    put_element(t, out, o, e->bits);
    text_put(t, "\n");
    if (e->update_count == 0) {
        text_put(t, "  no update lands here: it keeps ");
        put_element(t, &c->tensors[0], o, e->bits);
        text_put(t, "\n");
        return;
    }
    if (e->update_count == 1) {
        text_put(t, "  UpdatesTensor");
        put_coordinates(t, e->from_at, rank);
        text_put(t, " lands here: ");
        put_index(t, c, &e->indices[0]);
        text_put(t, "\n  ");
        put_element(t, updates, e->from_at, e->bits);
        text_put(t, "\n");
        return;
    }
    text_put(t, "  %llu updates land here, applied in row-major order of UpdatesTensor:\n",
             (unsigned long long)e->update_count);
    for (j = 0; j < e->loser_count; ++j) {
        text_put(t, "    ");
        put_element(t, updates, e->losers[j].at, bits_of(updates, e->losers[j].at));
        text_put(t, ", overwritten: ");
        put_index(t, c, &e->losers[j]);
        text_put(t, "\n");
    }
    if (e->update_count - 1 > e->loser_count)
        text_put(t, "    ... %llu more, overwritten\n",
                 (unsigned long long)(e->update_count - 1 - e->loser_count));
    text_put(t, "    ");
    put_element(t, updates, e->from_at, e->bits);
    text_put(t, ", the last, so it stays (D4): ");
    put_index(t, c, &e->indices[0]);
    text_put(t, "\n  DirectML calls two updates of one element invalid and names no winner "
                "(R-SC-10):\n  the vector accepts any of the competing updates here (any_of)\n");
}

/* Why a NonZero input element is or is not counted (classify_nonzero). */
static void put_nonzero_reason(text_buffer *t, nonzero_class class)
{
    static const char *const reasons[] = {
        "zero",
        "negative zero, which is zero (R-NZ-8)",
        "NaN, which is not zero (R-NZ-9)",
        "an infinity, not zero (R-NZ-9)",
        "a subnormal, not zero (D7; a GPU that flushes subnormals would not count it, R-NZ-10)",
        "not zero"};
    text_put(t, "%s", reasons[class]);
}

static void explain_nonzero_element(text_buffer *t, const case_view *c, const vtensor *out,
                                    const uint64_t *o, const element_trace *e)
{
    const vtensor *input = &c->tensors[0];
    uint64_t total = 1;
    uint32_t i, N = out->desc.Sizes[out->desc.DimensionCount - 1];
    for (i = 0; i < input->desc.DimensionCount; ++i)
        total *= input->desc.Sizes[i];

    if (e->kind == TRACE_COUNT) {
        put_element(t, out, o, e->bits);
        text_put(t, "\n  InputTensor has %llu non-zero elements of %llu (R-NZ-11)\n",
                 (unsigned long long)e->count, (unsigned long long)total);
        return;
    }
    text_put(t, "%s", out->name);
    put_coordinates(t, o, out->desc.DimensionCount);
    if (e->kind == TRACE_UNDEFINED) {
        text_put(t,
                 " is undefined\n  row %llu is at or past OutputCount = %llu, and DirectML leaves "
                 "such rows undefined\n  (R-NZ-14): dmlref does not write them, and the vector "
                 "marks them null\n",
                 (unsigned long long)e->row, (unsigned long long)e->count);
        return;
    }
    text_put(t,
             " = %llu\n  row %llu is the %llu%s non-zero element of InputTensor in row-major "
             "order: ",
             (unsigned long long)e->bits, (unsigned long long)e->row,
             (unsigned long long)(e->row + 1), ordinal_suffix(e->row + 1));
    put_element(t, input, e->from_at, bits_of(input, e->from_at));
    text_put(t,
             "\n  column %llu of N = %u is input dimension %u (R-NZ-13): its coordinate there "
             "is %llu\n",
             (unsigned long long)o[out->desc.DimensionCount - 1], N, e->column_dimension,
             (unsigned long long)e->bits);
}

static void explain_element(text_buffer *t, const case_view *c, size_t output, const uint64_t *o)
{
    const vtensor *out = &c->tensors[c->input_count + output];
    element_trace e;
    trace_element(c->op, c->clamp, c->v->inputs, (uint32_t)output, o, &e);
    switch (c->v->type) {
    case DMLREF_OPERATOR_NONZERO_COORDINATES:
        explain_nonzero_element(t, c, out, o, &e);
        break;
    case DMLREF_OPERATOR_SCATTER_ELEMENTS:
        explain_scatter(t, c, out, o, &e);
        break;
    case DMLREF_OPERATOR_GATHER_ND:
    case DMLREF_OPERATOR_GATHER_ND1:
        explain_gather_nd(t, c, out, o, &e);
        break;
    default:
        explain_copy(t, c, out, o, &e);
        break;
    }
}

/* ---- a whole case ------------------------------------------------------------------ */

/* NonZero as a student reads it: each input element and why it was or was
   not counted, the columns, then what the outputs hold. */
static void explain_nonzero_case(text_buffer *t, const case_view *c)
{
    const vtensor *input = &c->tensors[0], *coordinates = &c->tensors[2];
    const uint32_t D = input->desc.DimensionCount, R = coordinates->desc.DimensionCount;
    const uint32_t N = coordinates->desc.Sizes[R - 1], M = coordinates->desc.Sizes[R - 2];
    uint64_t total = 1, p, at[MAX_RANK], count = 0, zero[MAX_RANK] = {0};
    element_trace e;
    layout l;
    uint32_t j;

    for (j = 0; j < D; ++j)
        total *= input->desc.Sizes[j];
    text_put(t, "N = %u columns, D = %u input dimensions: ", N, D);
    for (j = 0; j < N; ++j)
        text_put(t, "%scolumn %u is input dimension %u", j ? ", " : "", j, D - N + j);
    if (N == D - 1)
        text_put(t, "\n  (the last N dimensions, right-aligned, R-NZ-13; dimension 0, left out, "
                    "has size 1)");
    else if (N < D)
        text_put(t,
                 "\n  (the last N dimensions, right-aligned, R-NZ-13; dimensions 0 to %u, left "
                 "out, have size 1)",
                 D - N - 1);
    text_put(t, "\nInputTensor, element by element in row-major order:\n");
    layout_from_desc(&input->desc, &l);
    for (p = 0; p < total; ++p) {
        nonzero_class class;
        if (p == EXPLAIN_ALL_LIMIT) {
            text_put(t, "  ... %llu more elements\n", (unsigned long long)(total - p));
            break;
        }
        coordinates_of(p, D, l.sizes, at);
        class = classify_nonzero(input->buffer + byte_offset(&l, at), input->desc.DataType);
        text_put(t, "  ");
        put_element(t, input, at, bits_of(input, at));
        text_put(t, ": ");
        put_nonzero_reason(t, class);
        if (class != NONZERO_ZERO && class != NONZERO_NEGATIVE_ZERO) {
            text_put(t, ": row %llu = ", (unsigned long long)count++);
            put_coordinates(t, at + D - N, N);
        } else {
            text_put(t, ": not counted");
        }
        text_put(t, "\n");
    }
    trace_element(c->op, 0, c->v->inputs, 0, zero, &e);
    explain_nonzero_element(t, c, &c->tensors[1], zero, &e);
    if (e.count)
        text_put(t, "OutputCoordinatesTensor rows 0 to %llu hold the coordinates above",
                 (unsigned long long)(e.count - 1));
    else
        text_put(t, "OutputCoordinatesTensor holds no coordinates");
    if (e.count < M)
        text_put(t,
                 "; rows %llu to %u are undefined (R-NZ-14):\n  dmlref does not write them, "
                 "and the vector marks them null",
                 (unsigned long long)e.count, M - 1);
    text_put(t, "\n");
}

/* Every element of every output in row-major order, up to EXPLAIN_ALL_LIMIT. */
static void explain_every_element(text_buffer *t, const case_view *c)
{
    uint64_t shown = 0;
    size_t output;
    for (output = 0; output < c->v->output_count; ++output) {
        const vtensor *out = &c->tensors[c->input_count + output];
        uint64_t total, p, o[MAX_RANK];
        layout l;
        layout_from_desc(&out->desc, &l);
        total = layout_element_count(&l);
        for (p = 0; p < total; ++p, ++shown) {
            coordinates_of(p, l.rank, l.sizes, o);
            if (shown == EXPLAIN_ALL_LIMIT) {
                text_put(t, "... and %llu more elements of %s: name one with --element '%s",
                         (unsigned long long)(total - p), out->name, out->name);
                put_coordinates(t, o, l.rank);
                text_put(t, "'\n");
                return;
            }
            explain_element(t, c, output, o);
        }
    }
}

/* ---- refusals ------------------------------------------------------------------------ */

dmlref_status case_refusal_at(const dmlref_vector *v, dmlref_feature_level level, dmlref_error *err)
{
    dmlref_execute_options options;
    dmlref_status status = dmlref_validate(&v->op, level, err);
    if (status == DMLREF_OK && dmlref_vector_has_data(v)) {
        memset(&options, 0, sizeof options);
        options.oob_policy = v->oob;
        status = dmlref_execute_with_options(&v->op, level, &options, v->inputs, v->input_count,
                                             v->outputs, v->output_count, err);
    }
    return status;
}

dmlref_status case_refusal(const dmlref_vector *v, dmlref_error *err)
{
    return case_refusal_at(v, v->level, err);
}

/* The rule the case breaks, dmlref's message, and for an index out of range
   the first output element that reads it, derived up to the index. */
static dmlref_status explain_refusal(text_buffer *t, const case_view *c)
{
    const dmlref_vector *v = c->v;
    dmlref_status expected_status = DMLREF_OK;
    const char *expected_rule = NULL;
    dmlref_error e;
    dmlref_status status = case_refusal(v, &e);
    int bad_index_value;

    if (status == DMLREF_OK)
        return DMLREF_OK;
    text_put(t, "refused: %s, rule %s (docs/rules.md)\n  %s\n", dmlref_status_name(status),
             e.rule[0] ? e.rule : "-", e.message);
    /* an index value out of range, not the indices' batch sizes (R-GN-6) */
    bad_index_value = status == DMLREF_ERROR_INDEX_OUT_OF_RANGE && strcmp(e.rule, "R-GN-6") != 0;
    if (!bad_index_value) {
        char path[JSON_PATH_CAPACITY];
        validation_path(v, e.message, path);
        if (strcmp(path, "$") != 0)
            text_put(t, "  in the case file: %s\n", path);
    }
    if (dmlref_vector_expects_error(v, &expected_status, &expected_rule))
        text_put(t, "  the vector expects exactly this refusal (expect_error: %s, %s)\n",
                 dmlref_status_name(expected_status), expected_rule);
    if (bad_index_value) {
        /* the first output element whose derivation meets an index out of range
           (among the first EXPLAIN_SEARCH_LIMIT: the message names the index) */
        const vtensor *out = &c->tensors[c->input_count];
        layout l;
        uint64_t total, p, o[MAX_RANK];
        layout_from_desc(&out->desc, &l);
        total = layout_element_count(&l);
        for (p = 0; p < total && p < EXPLAIN_SEARCH_LIMIT; ++p) {
            element_trace trace;
            coordinates_of(p, l.rank, l.sizes, o);
            trace_element(c->op, 0, v->inputs, 0, o, &trace);
            if (trace.kind != TRACE_REFUSED)
                continue;
            if (v->type == DMLREF_OPERATOR_SCATTER_ELEMENTS) {
                text_put(t, "where it sits: it would place UpdatesTensor");
                put_coordinates(t, trace.indices[0].at, l.rank);
                text_put(t, " along Axis = %u:\n  ", v->attributes[0]);
            } else {
                text_put(t, "where it sits: the first output element that reads it is %s",
                         out->name);
                put_coordinates(t, o, l.rank);
                text_put(t, ":\n  ");
            }
            put_index(t, c, &trace.indices[trace.index_count - 1]);
            text_put(t, "\n");
            if (c->tensors[1].gen.kind == GENERATOR_NONE) {
                layout idx_l;
                uint64_t position = 0;
                uint32_t d;
                layout_from_desc(&c->tensors[1].desc, &idx_l);
                for (d = 0; d < idx_l.rank; ++d) /* row-major, as "data" lists it */
                    position =
                        position * idx_l.sizes[d] + trace.indices[trace.index_count - 1].at[d];
                text_put(t, "  in the case file: $.tensors.IndicesTensor.data[%llu]\n",
                         (unsigned long long)position);
            }
            break;
        }
    }
    return status;
}

/* ---- the element asked for --------------------------------------------------------- */

/* "OutputTensor[1, 0, 2]" into the output's index and coordinates.  The
   text is the user's: messages quote it escaped, and a coordinate as it
   was written, however long. */
static dmlref_status parse_element(const case_view *c, const char *text, size_t *output,
                                   uint64_t *at, dmlref_error *err)
{
    const char *bracket = strchr(text, '['), *p, *bad_text = NULL;
    const vtensor *out = NULL;
    uint32_t count = 0, i, bad = 0;
    size_t k, bad_length = 0;
    char quoted[ELEMENT_ARGUMENT_SHOWN], coordinate[ELEMENT_ARGUMENT_SHOWN];

    escape_text(text, 1, quoted, sizeof quoted);
    for (k = 0; bracket && k < c->v->output_count; ++k) {
        const char *name = c->tensors[c->input_count + k].name;
        if (strlen(name) == (size_t)(bracket - text) && strncmp(text, name, strlen(name)) == 0)
            out = &c->tensors[c->input_count + (*output = k)];
    }
    if (!out)
        return set_error(err, DMLREF_ERROR_INVALID_ARGUMENT, "",
                         "%s: --element '%s': name an output element, e.g. '%s[0]' (outputs: "
                         "%s%s%s)",
                         c->v->source, quoted, c->tensors[c->input_count].name,
                         c->tensors[c->input_count].name, c->v->output_count > 1 ? ", " : "",
                         c->v->output_count > 1 ? c->tensors[c->input_count + 1].name : "");
    for (p = bracket + 1;;) {
        const char *digits;
        uint64_t value = 0;
        while (*p == ' ')
            ++p;
        if (*p < '0' || *p > '9')
            break;
        /* every coordinate is counted, those past MAX_RANK too, so that the
           message says how many were given */
        for (digits = p; *p >= '0' && *p <= '9'; ++p)
            value = value > (UINT64_MAX - 9) / 10 ? UINT64_MAX : value * 10 + (uint64_t)(*p - '0');
        if (count < MAX_RANK)
            at[count] = value;
        if (!bad_text && (count >= out->desc.DimensionCount || value >= out->desc.Sizes[count])) {
            bad = count;
            bad_text = digits;
            bad_length = (size_t)(p - digits);
        }
        if (count < UINT32_MAX)
            ++count;
        while (*p == ' ')
            ++p;
        if (*p == ',') {
            ++p;
            continue;
        }
        if (p[0] == ']' && p[1] == '\0') {
            if (count != out->desc.DimensionCount)
                return set_error(err, DMLREF_ERROR_INVALID_ARGUMENT, "",
                                 "%s: --element '%s': %s has %u dimensions, not %u: one "
                                 "coordinate per dimension",
                                 c->v->source, quoted, out->name, out->desc.DimensionCount, count);
            if (bad_text) {
                i = bad;
                if (bad_length >= sizeof coordinate)
                    bad_length = sizeof coordinate - 4; /* escape_text's "..." */
                memcpy(coordinate, bad_text, bad_length);
                coordinate[bad_length] = '\0';
                if (bad_text[bad_length] >= '0' && bad_text[bad_length] <= '9')
                    strcat(coordinate, "...");
                return set_error(err, DMLREF_ERROR_INVALID_ARGUMENT, "",
                                 "%s: --element '%s': coordinate %u is %s, but %s.Sizes[%u] = "
                                 "%u: out of range",
                                 c->v->source, quoted, i, coordinate, out->name, i,
                                 out->desc.Sizes[i]);
            }
            return DMLREF_OK;
        }
        break;
    }
    return set_error(err, DMLREF_ERROR_INVALID_ARGUMENT, "",
                     "%s: --element '%s': write it as %s[c0, c1, ...], one decimal coordinate "
                     "per dimension (%s has %u)",
                     c->v->source, quoted, out->name, out->name, out->desc.DimensionCount);
}

static void view_case(const dmlref_vector *v, case_view *c)
{
    memset(c, 0, sizeof *c);
    c->v = v;
    c->op = dmlref_vector_operator(v);
    c->tensors = v->tensors;
    c->input_count = v->input_count;
    c->clamp = v->oob == DMLREF_OOB_CLAMP;
    c->indexed = v->type == DMLREF_OPERATOR_SCATTER_ELEMENTS ? "OutputTensor" : "InputTensor";
    c->range_rule = v->type == DMLREF_OPERATOR_SCATTER_ELEMENTS ? "D2" : "D1";
    c->index_type = v->type == DMLREF_OPERATOR_NONZERO_COORDINATES ? DMLREF_TENSOR_DATA_TYPE_UNKNOWN
                                                                   : v->tensors[1].desc.DataType;
}

dmlref_status explain_case(dmlref_vector *v, const char *element, char **text, size_t *length,
                           dmlref_error *err)
{
    text_buffer t = {NULL, 0, 0, 0};
    case_view c;
    dmlref_status status = DMLREF_OK;
    dmlref_error e;
    size_t output = 0;
    uint64_t at[MAX_RANK];

    view_case(v, &c);
    if (element && (status = parse_element(&c, element, &output, at, err)) != DMLREF_OK)
        return status;

    if (!v->expects_error && dmlref_vector_has_data(v) &&
        dmlref_vector_eval(v, 0, &e) == DMLREF_OK) {
        if (v->type == DMLREF_OPERATOR_GATHER_ND || v->type == DMLREF_OPERATOR_GATHER_ND1)
            gather_nd_quantities(&c);
        put_header(&t, &c, 1);
        if (element)
            explain_element(&t, &c, output, at);
        else if (v->type == DMLREF_OPERATOR_NONZERO_COORDINATES)
            explain_nonzero_case(&t, &c);
        else
            explain_every_element(&t, &c);
    } else {
        put_header(&t, &c, 0);
        if (explain_refusal(&t, &c) == DMLREF_OK) { /* nothing refuses the case */
            if (v->expects_error)
                set_error(&e, DMLREF_ERROR_MISMATCH, "",
                          "%s: the vector expects %s (%s), but dmlref accepts the case", v->source,
                          dmlref_status_name(v->error_status), v->error_rule);
            status = e.status; /* else what made eval fail */
            if (err)
                *err = e;
        }
    }
    if (status == DMLREF_OK && t.failed)
        status = set_error(err, DMLREF_ERROR_OUT_OF_MEMORY, "",
                           "%s: out of memory explaining the case", v->source);
    if (status != DMLREF_OK) {
        free(t.data);
        return status;
    }
    *text = t.data;
    *length = t.length;
    return DMLREF_OK;
}

/* ---- the elements an element comes from ---------------------------------------- */

static void add_source(element_source *sources, size_t *count, source_role role, size_t tensor,
                       const uint64_t *at)
{
    element_source *x = &sources[(*count)++];
    x->role = role;
    x->tensor = tensor;
    memcpy(x->at, at, sizeof x->at);
}

dmlref_status explain_sources(dmlref_vector *v, const char *element, element_source *sources,
                              size_t *count, dmlref_error *err)
{
    case_view c;
    element_trace e;
    size_t output = 0;
    uint64_t at[MAX_RANK] = {0};
    uint32_t j;
    dmlref_status status;

    view_case(v, &c);
    *count = 0;
    if ((status = parse_element(&c, element, &output, at, err)) != DMLREF_OK)
        return status;
    trace_element(c.op, c.clamp, v->inputs, (uint32_t)output, at, &e);
    if (e.kind == TRACE_COPY || e.kind == TRACE_COORDINATE)
        add_source(sources, count, SOURCE_VALUE, e.kind == TRACE_COPY ? e.from : 0, e.from_at);
    /* the index tensor is input 1 of every operator that reads indices */
    for (j = 0; j < e.index_count; ++j)
        add_source(sources, count, SOURCE_INDEX, 1, e.indices[j].at);
    for (j = 0; j < e.loser_count; ++j) /* Scatter's updates and indices share coordinates */
        add_source(sources, count, SOURCE_LOSER, 2, e.losers[j].at);
    return DMLREF_OK;
}
