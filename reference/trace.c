/*
 * trace.c - the derivation of one output element (trace.h): each operator's
 * kernel loop of reference/, run for that one element and keeping every
 * step.
 */
#include "reference/trace.h"

/* An element's bits, host order, in the low bytes. */
static uint64_t element_bits(const unsigned char *element, uint32_t size)
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

static uint64_t bits_at(const void *data, const layout *l, const uint64_t *c)
{
    return element_bits((const unsigned char *)data + byte_offset(l, c), l->element_size);
}

/* index_at (reference.h), keeping what it read and decided. */
static void read_traced(const void *indices, const layout *l, dmlref_tensor_data_type type,
                        const uint64_t *at, uint32_t dimension, uint64_t size, int clamp,
                        traced_index *x)
{
    const unsigned char *element = (const unsigned char *)indices + byte_offset(l, at);
    memset(x, 0, sizeof *x);
    memcpy(x->at, at, l->rank * sizeof *at);
    x->value = read_index(element, type);
    x->bits = element_bits(element, l->element_size);
    x->dimension = dimension;
    x->size = size;
    x->in_range = normalize_index(x->value, size, clamp, &x->normalized);
}

/* Output[o] = Input[o with o[Axis] replaced by Indices[o]] (R-GE-6). */
static void trace_gather_elements(const dmlref_gather_elements_desc *d, int clamp,
                                  const dmlref_binding *inputs, const uint64_t *o, element_trace *t)
{
    layout in_l, idx_l;
    layout_from_desc(d->InputTensor, &in_l);
    layout_from_desc(d->IndicesTensor, &idx_l);
    t->index_count = 1;
    read_traced(inputs[1].data, &idx_l, d->IndicesTensor->DataType, o, d->Axis, in_l.sizes[d->Axis],
                clamp, &t->indices[0]);
    if (!t->indices[0].in_range && !clamp) {
        t->kind = TRACE_REFUSED;
        return;
    }
    t->kind = TRACE_COPY;
    t->from = 0;
    memcpy(t->from_at, o, in_l.rank * sizeof *o);
    t->from_at[d->Axis] = t->indices[0].normalized;
    t->bits = bits_at(inputs[0].data, &in_l, t->from_at);
}

/* Output = Input, then Output[u with u[Axis] replaced by Indices[u]] =
   Updates[u] in row-major order of u (R-SC-9, D4).  Only the updates u that
   agree with o off the axis can land on o; in row-major order they come by
   ascending u[Axis]. */
static void trace_scatter_elements(const dmlref_scatter_elements_desc *d, int clamp,
                                   const dmlref_binding *inputs, const uint64_t *o,
                                   element_trace *t)
{
    const uint32_t axis = d->Axis;
    layout in_l, idx_l, upd_l, out_l;
    uint64_t u[MAX_RANK], s;
    uint32_t i;

    layout_from_desc(d->InputTensor, &in_l);
    layout_from_desc(d->IndicesTensor, &idx_l);
    layout_from_desc(d->UpdatesTensor, &upd_l);
    layout_from_desc(d->OutputTensor, &out_l);
    s = out_l.sizes[axis];

    t->kind = TRACE_COPY; /* what no update overwrites keeps the input's value */
    t->from = 0;
    memcpy(t->from_at, o, in_l.rank * sizeof *o);
    t->bits = bits_at(inputs[0].data, &in_l, o);

    for (i = 0; i < upd_l.rank; ++i)
        if (i != axis && o[i] >= upd_l.sizes[i])
            return; /* no update lies on o's line along the axis */
    memcpy(u, o, upd_l.rank * sizeof *o);
    for (u[axis] = 0; u[axis] < upd_l.sizes[axis]; ++u[axis]) {
        traced_index x;
        read_traced(inputs[1].data, &idx_l, d->IndicesTensor->DataType, u, axis, s, clamp, &x);
        if (!x.in_range && !clamp) {
            t->kind = TRACE_REFUSED;
            t->index_count = 1;
            t->indices[0] = x;
            return;
        }
        if (x.normalized != o[axis])
            continue;
        if (t->update_count > 0 && t->loser_count < TRACE_MAX_LOSERS)
            t->losers[t->loser_count++] = t->indices[0]; /* the previous winner lost */
        t->update_count += 1;
        t->index_count = 1;
        t->indices[0] = x;
        t->from = 2;
        memcpy(t->from_at, u, upd_l.rank * sizeof *u);
        t->bits = bits_at(inputs[2].data, &upd_l, u);
    }
}

/* Output[0.., beta, g, s] = Input[0.., beta, t, s], the tuple t read from
   Indices[0.., beta, g, 0..k) (R-GN-9); the loop body of
   reference/gather_nd.c. */
static void trace_gather_nd1(const dmlref_gather_nd1_desc *d, int clamp,
                             const dmlref_binding *inputs, const uint64_t *o, element_trace *t)
{
    const uint32_t m = d->InputDimensionCount, q = d->IndicesDimensionCount,
                   b = d->BatchDimensionCount;
    layout in_l, idx_l, out_l;
    uint64_t at[MAX_RANK] = {0}, i[MAX_RANK] = {0};
    uint32_t D, k, r, pad, j;

    layout_from_desc(d->InputTensor, &in_l);
    layout_from_desc(d->IndicesTensor, &idx_l);
    layout_from_desc(d->OutputTensor, &out_l);
    D = in_l.rank;
    k = (uint32_t)idx_l.sizes[D - 1];
    r = m - b - k;
    pad = D - (q - 1 + r);

    for (j = 0; j + 1 < q; ++j) /* beta and g */
        at[D - q + j] = o[pad + j];
    for (j = 0; j < b; ++j) /* beta */
        i[D - m + j] = o[pad + j];
    t->index_count = k;
    for (j = 0; j < k; ++j) { /* the tuple */
        const uint32_t dim = D - m + b + j;
        at[D - 1] = j;
        read_traced(inputs[1].data, &idx_l, d->IndicesTensor->DataType, at, dim, in_l.sizes[dim],
                    clamp, &t->indices[j]);
        if (!t->indices[j].in_range && !clamp) {
            t->kind = TRACE_REFUSED;
            t->index_count = j + 1;
            return;
        }
        i[dim] = t->indices[j].normalized;
    }
    for (j = 0; j < r; ++j) /* s */
        i[D - r + j] = o[pad + q - 1 + j];
    t->kind = TRACE_COPY;
    t->from = 0;
    memcpy(t->from_at, i, D * sizeof *i);
    t->bits = bits_at(inputs[0].data, &in_l, i);
}

/* OutputCount: the non-zero input elements; OutputCoordinates[row, j]: the
   coordinate D-N+j of the row-th of them in row-major order (R-NZ-12,
   R-NZ-13), or undefined past the count (R-NZ-14). */
static void trace_nonzero_coordinates(const dmlref_nonzero_coordinates_desc *d,
                                      const dmlref_binding *inputs, uint32_t output,
                                      const uint64_t *o, element_trace *t)
{
    const dmlref_tensor_data_type type = d->InputTensor->DataType;
    layout in_l, co_l;
    uint64_t total, p, c[MAX_RANK], row = UINT64_MAX;
    uint32_t R = d->OutputCoordinatesTensor->DimensionCount, N;

    layout_from_desc(d->InputTensor, &in_l);
    layout_from_desc(d->OutputCoordinatesTensor, &co_l);
    N = (uint32_t)co_l.sizes[R - 1];
    total = layout_element_count(&in_l);
    if (output == 1)
        row = o[R - 2];
    for (p = 0; p < total; ++p) {
        coordinates_of(p, in_l.rank, in_l.sizes, c);
        if (!nonzero_element((const unsigned char *)inputs[0].data + byte_offset(&in_l, c), type))
            continue;
        if (t->count == row) {
            t->kind = TRACE_COORDINATE;
            memcpy(t->from_at, c, in_l.rank * sizeof *c);
            t->column_dimension = in_l.rank - N + (uint32_t)o[R - 1];
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
