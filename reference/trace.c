/*
 * trace.c - the derivation of one output element (trace.h): each
 * operator's step of reference/ (reference.h), run for that one element
 * with a record of every index it reads.
 */
#include "reference/trace.h"

static uint64_t bits_at(const void *data, const layout *l, const uint64_t *c)
{
    return element_bits((const unsigned char *)data + byte_offset(l, c), l->element_size);
}

static void trace_gather_elements(const dmlref_gather_elements_desc *d, int clamp,
                                  const dmlref_binding *inputs, const uint64_t *o, element_trace *t)
{
    gather_elements_operands g;
    uint64_t i[MAX_RANK];
    gather_elements_operands_of(d, inputs[1].data, &g);
    t->index_count = 1;
    if (!gather_elements_source(&g, o, clamp, i, &t->indices[0]) && !clamp) {
        t->kind = TRACE_REFUSED;
        return;
    }
    t->kind = TRACE_COPY;
    t->from = 0;
    memcpy(t->from_at, i, g.input.rank * sizeof *i);
    t->bits = bits_at(inputs[0].data, &g.input, i);
}

/* Only the updates u that agree with o off the axis can land on o; in
   row-major order they come by ascending u[Axis], the last one winning
   (D4).  What no update lands on keeps the input's value. */
static void trace_scatter_elements(const dmlref_scatter_elements_desc *d, int clamp,
                                   const dmlref_binding *inputs, const uint64_t *o,
                                   element_trace *t)
{
    scatter_elements_operands s;
    uint64_t u[MAX_RANK];
    uint32_t axis, i;
    scatter_elements_operands_of(d, inputs[1].data, &s);
    axis = s.axis;

    t->kind = TRACE_COPY;
    t->from = 0;
    memcpy(t->from_at, o, s.input.rank * sizeof *o);
    t->bits = bits_at(inputs[0].data, &s.input, o);

    for (i = 0; i < s.updates.rank; ++i)
        if (i != axis && o[i] >= s.updates.sizes[i])
            return; /* no update lies on o's line along the axis */
    memcpy(u, o, s.updates.rank * sizeof *o);
    for (u[axis] = 0; u[axis] < s.updates.sizes[axis]; ++u[axis]) {
        traced_index x;
        uint64_t target[MAX_RANK];
        if (!scatter_elements_target(&s, u, clamp, target, &x) && !clamp) {
            t->kind = TRACE_REFUSED;
            t->index_count = 1;
            t->indices[0] = x;
            return;
        }
        if (target[axis] != o[axis])
            continue;
        if (t->update_count > 0 && t->loser_count < TRACE_MAX_LOSERS)
            t->losers[t->loser_count++] = t->indices[0]; /* the previous winner lost */
        t->update_count += 1;
        t->index_count = 1;
        t->indices[0] = x;
        t->from = 2;
        memcpy(t->from_at, u, s.updates.rank * sizeof *u);
        t->bits = bits_at(inputs[2].data, &s.updates, u);
    }
}

static void trace_gather_nd1(const dmlref_gather_nd1_desc *d, int clamp,
                             const dmlref_binding *inputs, const uint64_t *o, element_trace *t)
{
    gather_nd1_operands nd;
    uint64_t i[MAX_RANK];
    gather_nd1_operands_of(d, inputs[1].data, &nd);
    if (!gather_nd1_source(&nd, o, clamp, i, t->indices) && !clamp) {
        uint32_t j = 0;
        while (t->indices[j].in_range) /* the step stopped at the first out of range */
            ++j;
        t->kind = TRACE_REFUSED;
        t->index_count = j + 1;
        return;
    }
    t->index_count = nd.k;
    t->kind = TRACE_COPY;
    t->from = 0;
    memcpy(t->from_at, i, nd.D * sizeof *i);
    t->bits = bits_at(inputs[0].data, &nd.input, i);
}

/* OutputCount: the non-zero input elements; OutputCoordinates[row, j]: the
   coordinate D-N+j of the row-th of them, or undefined past the count
   (R-NZ-14). */
static void trace_nonzero_coordinates(const dmlref_nonzero_coordinates_desc *d,
                                      const dmlref_binding *inputs, uint32_t output,
                                      const uint64_t *o, element_trace *t)
{
    nonzero_coordinates_operands z;
    uint64_t total, p, c[MAX_RANK], row = UINT64_MAX;
    uint32_t R;

    nonzero_coordinates_operands_of(d, inputs[0].data, &z);
    total = layout_element_count(&z.input);
    R = z.coordinates.rank;
    if (output == 1)
        row = o[R - 2];
    for (p = 0; p < total; ++p) {
        if (!nonzero_input(&z, p, c))
            continue;
        if (t->count == row) {
            t->kind = TRACE_COORDINATE;
            memcpy(t->from_at, c, z.input.rank * sizeof *c);
            t->column_dimension = nonzero_column_dimension(&z, (uint32_t)o[R - 1]);
            t->bits = c[t->column_dimension];
        }
        t->count += 1;
    }
    if (output == 0) {
        t->kind = TRACE_COUNT;
        t->bits = t->count;
        return;
    }
    t->row = row;
    if (row >= t->count)
        t->kind = TRACE_UNDEFINED;
}

void trace_element(const dmlref_operator_desc *op, int clamp, const dmlref_binding *inputs,
                   uint32_t output, const uint64_t *at, element_trace *t)
{
    memset(t, 0, sizeof *t);
    switch (op->Type) {
    case DMLREF_OPERATOR_GATHER_ELEMENTS:
        trace_gather_elements(op->Desc, clamp, inputs, at, t);
        break;
    case DMLREF_OPERATOR_SCATTER_ELEMENTS:
        trace_scatter_elements(op->Desc, clamp, inputs, at, t);
        break;
    case DMLREF_OPERATOR_GATHER_ND: {
        const dmlref_gather_nd1_desc nd1 = gather_nd1_of(op->Desc);
        trace_gather_nd1(&nd1, clamp, inputs, at, t);
        break;
    }
    case DMLREF_OPERATOR_GATHER_ND1:
        trace_gather_nd1(op->Desc, clamp, inputs, at, t);
        break;
    default: /* DMLREF_OPERATOR_NONZERO_COORDINATES */
        trace_nonzero_coordinates(op->Desc, inputs, output, at, t);
        break;
    }
}

nonzero_class classify_nonzero(const unsigned char *element, dmlref_tensor_data_type type)
{
    uint64_t bits = element_bits(element, dmlref_data_type_size(type));
    uint64_t exponent, mantissa, exponent_max;
    if (!nonzero_element(element, type))
        return bits == 0 ? NONZERO_ZERO : NONZERO_NEGATIVE_ZERO;
    if (type == DMLREF_TENSOR_DATA_TYPE_FLOAT16) {
        exponent = (bits >> 10) & 0x1F, mantissa = bits & 0x3FF, exponent_max = 0x1F;
    } else if (type == DMLREF_TENSOR_DATA_TYPE_FLOAT32) {
        exponent = (bits >> 23) & 0xFF, mantissa = bits & 0x7FFFFF, exponent_max = 0xFF;
    } else {
        return NONZERO_OTHER;
    }
    if (exponent == exponent_max)
        return mantissa ? NONZERO_NAN : NONZERO_INFINITY;
    return exponent == 0 ? NONZERO_SUBNORMAL : NONZERO_OTHER;
}
