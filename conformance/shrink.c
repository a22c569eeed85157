/*
 * shrink.c - dmlref fuzz's shrinking of a failing case (shrink()): simpler
 * layouts and fewer attributes, fewer dimensions, dimensions cut down to one
 * element or to halves, blocks of elements set to zero (delta debugging:
 * the whole tensor, halves, quarters, ... single elements), single elements
 * set to 1, single indices moved toward 0.  Each step is kept only while
 * the backend still fails the same way (the same outcome and failure class,
 * failure_class()), within SHRINK_RUNS backend runs and SHRINK_TIMEOUTS
 * timeouts.
 */
#include "conformance/fuzz_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHRINK_RUNS 2000  /* backend runs one shrink may spend */
#define SHRINK_TIMEOUTS 8 /* backend runs ending in a timeout one shrink may spend */
#define FAILURE_CLASS_CAPACITY (DMLREF_ERROR_MESSAGE_CAPACITY + 300)

/* ---- elements --------------------------------------------------------------------- */

/* An integer element as its two's-complement bits (64-bit). */
static int integer_bits(json_t *item, uint64_t *bits)
{
    const char *text;
    char *end;
    if (json_is_integer(item)) {
        *bits = (uint64_t)json_integer_value(item);
        return 1;
    }
    if (!(text = json_string_value(item)) || !*text)
        return 0;
    if (*text == '-')
        *bits = (uint64_t)strtoll(text, &end, 10);
    else
        *bits = (uint64_t)strtoull(text, &end, 10);
    return *end == '\0';
}

/* An integer element's value for comparisons: signed types sign-extended. */
static int64_t signed_value(dmlref_tensor_data_type type, uint64_t bits)
{
    uint32_t esize = dmlref_data_type_size(type);
    if (esize >= 8 || !is_signed_type(type))
        return (int64_t)bits;
    bits &= ((uint64_t)1 << (8 * esize)) - 1;
    return (bits >> (8 * esize - 1)) ? (int64_t)(bits | ~(((uint64_t)1 << (8 * esize)) - 1))
                                     : (int64_t)bits;
}

/* 1 when an element is the type's zero (+0.0 for floats). */
static int is_plain_zero(json_t *item)
{
    if (json_is_integer(item))
        return json_integer_value(item) == 0;
    if (json_is_real(item))
        return json_real_value(item) == 0 && copysign(1.0, json_real_value(item)) > 0; /* +0.0 */
    return json_is_string(item) && strcmp(json_string_value(item), "0") == 0;
}

static int is_plain_one(json_t *item)
{
    return (json_is_integer(item) && json_integer_value(item) == 1) ||
           (json_is_real(item) && json_real_value(item) == 1);
}

/* ---- shapes ----------------------------------------------------------------------- */

/* Outputs whose shapes the reader infers again (DirectMLX's rules).
   NonZero's coordinates keep their N (at most the input's rank) and take the
   input's element count as M. */
static void reinfer_outputs(json_t *root, const shape *s)
{
    size_t i;
    if (s->op == DMLREF_OPERATOR_NONZERO_COORDINATES) {
        json_t *in = tensor_at(root, "InputTensor"), *co = tensor_at(root, s->names[2]);
        size_t R = rank_of(co);
        if (R >= 2) {
            set_size(co, R - 2, elements_of(in));
            if (size_at(co, R - 1) > rank_of(in))
                set_size(co, R - 1, rank_of(in));
            json_object_del(co, "strides");
            json_object_del(co, "total_bytes");
        }
        return;
    }
    for (i = s->inputs; i < s->count; ++i) {
        json_t *t = tensor_at(root, s->names[i]);
        json_object_del(t, "sizes");
        json_object_del(t, "strides");
        json_object_del(t, "total_bytes");
    }
}

/* Keeps the elements of `data` (logical, row-major over the sizes of t)
   whose coordinate along d lies in [lo, lo + len). */
static json_t *slice_data(json_t *data, json_t *t, size_t d, uint64_t lo, uint64_t len)
{
    json_t *out = json_array();
    size_t n = json_array_size(data), rank = rank_of(t), e, i;
    uint64_t inner = 1, size = size_at(t, d);
    for (i = d + 1; i < rank; ++i)
        inner *= size_at(t, i);
    for (e = 0; e < n; ++e) {
        uint64_t c = (e / inner) % size;
        if (c >= lo && c < lo + len)
            json_array_append(out, json_array_get(data, e));
    }
    return out;
}

/* Cuts dimension d of t to [lo, lo + len): sizes, and data when it has some. */
static void cut(json_t *t, size_t d, uint64_t lo, uint64_t len)
{
    json_t *data = json_object_get(t, "data");
    if (data)
        json_object_set_new(t, "data", slice_data(data, t, d, lo, len));
    set_size(t, d, len);
}

/* The largest size along d among the inputs of rank R. */
static uint64_t widest(json_t *root, const shape *s, size_t R, size_t d)
{
    uint64_t S = 0;
    size_t i;
    for (i = 0; i < s->inputs; ++i) {
        json_t *t = tensor_at(root, s->names[i]);
        if (rank_of(t) == R && size_at(t, d) > S)
            S = size_at(t, d);
    }
    return S;
}

/* ---- the failure class -------------------------------------------------------------- */

/* The class of a failure: a shrunk case must fail the same way.  The
   expected status and rule, the refusing status, the output tensor that
   differs, the damage, the crash (a POSIX signal, "(signal 11, ...", or a
   Windows exception, "(exception 0xC0000005, ...") or the timeout. */
static void failure_class(case_result outcome, const char *message, char *out, size_t capacity)
{
    size_t n = strlen(message);
    const char *p;
    if (strncmp(message, "refused a valid case: ", 22) == 0) {
        n = 22 + strcspn(message + 22, ": ");
    } else if (strncmp(message, "$.tensors.", 10) == 0) {
        n = 10 + strcspn(message + 10, ".");
    } else if ((p = strstr(message, "(signal ")) != NULL ||
               (p = strstr(message, "(exception ")) != NULL) {
        n = (size_t)(p - message) + strcspn(p, ",)");
    } else if (strncmp(message, "timed out", 9) == 0) {
        n = 9;
    } else if (strncmp(message, "wrote ", 6) == 0 || strncmp(message, "touched memory", 14) == 0) {
        n = strcspn(message, "(:"); /* the damage and the tensor, not where exactly */
    } else if (strncmp(message, "accepted a case", 15) != 0) {
        n = strcspn(message, ":");
    }
    snprintf(out, capacity, "%d %.*s", (int)outcome, (int)n, message);
}

/* ---- moves ---------------------------------------------------------------------------- */

enum move_kind {
    MV_PACKED,      /* tensor: strides and total_bytes dropped */
    MV_KEY,         /* tensor: total_bytes, flags or alignment dropped */
    MV_STRICT,      /* "oob": "clamp" dropped */
    MV_DROP_DIM,    /* a dimension of size 1 dropped */
    MV_SLICE_ALL,   /* dimension d of every tensor of the input's rank and that size cut */
    MV_SLICE_INFER, /* the same, the outputs' shapes inferred again */
    MV_SLICE_ONE,   /* dimension d of one input cut, the outputs inferred again */
    MV_ZERO,        /* a block of one input's elements set to zero */
    MV_ONE,         /* one data element set to 1 */
    MV_INDEX        /* one index element moved toward 0 */
};

typedef struct move {
    enum move_kind kind;
    size_t tensor, dim;
    uint64_t lo, len, value;
} move;

typedef struct moves {
    move *items;
    size_t count, capacity;
} moves;

static const char *const k_keys[3] = {"total_bytes", "flags", "alignment"}; /* MV_KEY's dim */

static void add_move(moves *l, enum move_kind kind, size_t tensor, size_t dim, uint64_t lo,
                     uint64_t len, uint64_t value)
{
    move *m;
    if (l->count == l->capacity) {
        size_t capacity = l->capacity ? 2 * l->capacity : 256;
        move *grown = realloc(l->items, capacity * sizeof *grown);
        if (!grown)
            return;
        l->items = grown;
        l->capacity = capacity;
    }
    m = &l->items[l->count++];
    m->kind = kind, m->tensor = tensor, m->dim = dim, m->lo = lo, m->len = len, m->value = value;
}

/* Cuts of a dimension of size S: each single element, each half, all but
   the last, all but the first. */
static void add_cuts(moves *l, enum move_kind kind, size_t tensor, size_t d, uint64_t S)
{
    uint64_t c;
    if (S < 2)
        return;
    for (c = 0; c < S && c < 16; ++c)
        add_move(l, kind, tensor, d, c, 1, 0);
    if (S >= 3) {
        add_move(l, kind, tensor, d, 0, S / 2, 0);
        add_move(l, kind, tensor, d, S / 2, S - S / 2, 0);
        add_move(l, kind, tensor, d, 0, S - 1, 0);
        add_move(l, kind, tensor, d, 1, S - 1, 0);
    }
}

/* The moves that simplify the layouts and the shapes. */
static void add_shape_moves(json_t *root, const shape *s, moves *l)
{
    size_t R = rank_of(tensor_at(root, "InputTensor")), i, d, k;
    for (i = 0; i < s->count; ++i)
        if (json_object_get(tensor_at(root, s->names[i]), "strides"))
            add_move(l, MV_PACKED, i, 0, 0, 0, 0);
    for (i = 0; i < s->count; ++i)
        for (k = 0; k < 3; ++k)
            if (json_object_get(tensor_at(root, s->names[i]), k_keys[k]))
                add_move(l, MV_KEY, i, k, 0, 0, 0);
    if (json_object_get(root, "oob"))
        add_move(l, MV_STRICT, 0, 0, 0, 0, 0);
    for (d = 0; R > 1 && d < R; ++d)
        add_move(l, MV_DROP_DIM, 0, d, 0, 0, 0);
    for (d = 0; d < R; ++d)
        add_cuts(l, MV_SLICE_ALL, 0, d, widest(root, s, R, d));
    for (d = 0; d < R; ++d)
        add_cuts(l, MV_SLICE_INFER, 0, d, widest(root, s, R, d));
    for (i = 0; i < s->inputs; ++i) {
        json_t *t = tensor_at(root, s->names[i]);
        for (d = 0; d < rank_of(t); ++d)
            add_cuts(l, MV_SLICE_ONE, i, d, size_at(t, d));
    }
}

/* The moves that simplify the inputs' values: blocks to zero (whole,
   halves, quarters, ...), single elements to 1, single indices toward 0. */
static void add_value_moves(json_t *root, const shape *s, moves *l)
{
    size_t i;
    for (i = 0; i < s->inputs; ++i) {
        json_t *data = json_object_get(tensor_at(root, s->names[i]), "data");
        uint64_t n = json_array_size(data), block = n, lo;
        while (block > 0) {
            for (lo = 0; lo < n; lo += block) {
                uint64_t e, end = lo + block < n ? lo + block : n;
                for (e = lo; e < end && is_plain_zero(json_array_get(data, (size_t)e)); ++e)
                    ;
                if (e < end)
                    add_move(l, MV_ZERO, i, 0, lo, end - lo, 0);
            }
            block = block == 1 ? 0 : (block + 1) / 2;
        }
    }
    for (i = 0; i < s->inputs; ++i) {
        json_t *t = tensor_at(root, s->names[i]), *data = json_object_get(t, "data"), *x;
        dmlref_tensor_data_type type = dtype_of(t);
        size_t e;
        int is_index = strcmp(s->names[i], "IndicesTensor") == 0;
        json_array_foreach(data, e, x)
        {
            uint64_t bits;
            int64_t v;
            if (!is_index) {
                if (!is_plain_zero(x) && !is_plain_one(x))
                    add_move(l, MV_ONE, i, 0, e, 1, 0);
                continue;
            }
            if (!integer_bits(x, &bits) || bits == 0)
                continue;
            v = signed_value(type, bits);
            if (is_signed_type(type) && v < 0) {
                if (v < -1)
                    add_move(l, MV_INDEX, i, 0, e, 1, (uint64_t)(v / 2));
                if (v < -1)
                    add_move(l, MV_INDEX, i, 0, e, 1, (uint64_t)(v + 1));
            } else if (bits > 1) {
                add_move(l, MV_INDEX, i, 0, e, 1, bits / 2);
                add_move(l, MV_INDEX, i, 0, e, 1, bits - 1);
            }
        }
    }
}

/* Every simplification of the case, in order of preference. */
static void list_moves(json_t *root, const shape *s, moves *l)
{
    l->count = 0;
    add_shape_moves(root, s, l);
    add_value_moves(root, s, l);
}

/* MV_DROP_DIM on c, the case of rank R: dimension d (of size 1) dropped
   from every tensor, the attributes that count dimensions following; 0 when
   it does not apply. */
static int drop_dimension(json_t *c, const shape *s, size_t R, size_t d)
{
    static const char *const counts[2] = {"InputDimensionCount", "IndicesDimensionCount"};
    json_t *attributes = json_object_get(c, "attributes"), *x;
    size_t i, a;
    for (i = 0; i < s->count; ++i) {
        json_t *u = tensor_at(c, s->names[i]);
        if (!json_object_get(u, "sizes") ||
            (i >= s->inputs && s->op == DMLREF_OPERATOR_NONZERO_COORDINATES))
            continue;
        if (rank_of(u) != R || size_at(u, d) != 1) {
            if (i < s->inputs && rank_of(u) == R)
                return 0;         /* an input's size there is not 1 */
            if (i >= s->inputs) { /* an output: its shape is inferred again */
                json_object_del(u, "sizes");
                json_object_del(u, "strides");
                json_object_del(u, "total_bytes");
            }
            continue;
        }
        json_array_remove(json_object_get(u, "sizes"), d);
        if (json_object_get(u, "strides"))
            json_array_remove(json_object_get(u, "strides"), d);
        json_object_del(u, "total_bytes");
    }
    if (s->op == DMLREF_OPERATOR_NONZERO_COORDINATES) {
        /* N columns are the last N dimensions: one fewer when d was one */
        json_t *co = tensor_at(c, s->names[2]);
        size_t last = rank_of(co) - 1;
        uint64_t N = size_at(co, last);
        if (rank_of(co) >= 2 && d + N >= R) {
            if (N < 2)
                return 0;
            set_size(co, last, N - 1);
        }
        reinfer_outputs(c, s);
    }
    if ((x = json_object_get(attributes, "Axis"))) {
        size_t axis = (size_t)json_integer_value(x);
        if (axis == d)
            return 0;
        if (axis > d && axis < R)
            json_integer_set(x, (json_int_t)axis - 1);
    }
    for (a = 0; a < 2; ++a) { /* GatherND's counts: one fewer when d was inside them */
        size_t count;
        if (!(x = json_object_get(attributes, counts[a])))
            continue;
        count = (size_t)json_integer_value(x);
        if (count >= 1 && count <= R && d >= R - count) {
            if (count == 1)
                return 0;
            json_integer_set(x, (json_int_t)count - 1);
        }
    }
    return 1;
}

/* Makes move m on c, a copy of the case; 0 when it does not apply. */
static int apply_move(json_t *c, const shape *s, const move *m)
{
    json_t *t = tensor_at(c, s->names[m->tensor]), *data = json_object_get(t, "data");
    size_t R = rank_of(tensor_at(c, "InputTensor")), i;

    switch (m->kind) {
    case MV_PACKED:
        json_object_del(t, "strides");
        json_object_del(t, "total_bytes");
        break;
    case MV_KEY:
        json_object_del(t, k_keys[m->dim]);
        break;
    case MV_STRICT:
        json_object_del(c, "oob");
        break;
    case MV_DROP_DIM:
        return drop_dimension(c, s, R, m->dim);
    case MV_SLICE_ALL:
    case MV_SLICE_INFER: {
        uint64_t S = widest(c, s, R, m->dim);
        for (i = 0; i < s->count; ++i) {
            json_t *u = tensor_at(c, s->names[i]);
            if (rank_of(u) == R && size_at(u, m->dim) == S)
                cut(u, m->dim, m->lo, m->len);
        }
        if (m->kind == MV_SLICE_INFER)
            reinfer_outputs(c, s);
        break;
    }
    case MV_SLICE_ONE:
        if (m->dim >= rank_of(t) || m->lo + m->len > size_at(t, m->dim))
            return 0;
        cut(t, m->dim, m->lo, m->len);
        reinfer_outputs(c, s);
        break;
    case MV_ZERO: {
        uint64_t e;
        for (e = m->lo; e < m->lo + m->len && e < json_array_size(data); ++e)
            json_array_set_new(data, (size_t)e, json_integer(0));
        break;
    }
    case MV_ONE:
        if (m->lo >= json_array_size(data))
            return 0;
        json_array_set_new(data, (size_t)m->lo, json_integer(1));
        break;
    case MV_INDEX:
        if (m->lo >= json_array_size(data))
            return 0;
        json_array_set_new(data, (size_t)m->lo, integer_element(dtype_of(t), m->value));
        break;
    }
    return 1;
}

/* The case with one move made; NULL when it does not apply. */
static json_t *make_move(json_t *root, const shape *s, const move *m)
{
    json_t *c = json_deep_copy(root);
    if (apply_move(c, s, m))
        return c;
    json_decref(c);
    return NULL;
}

/* ---- shrinking ------------------------------------------------------------------------ */

/* 1 when the case c fails as `want` says (a failure_class). */
static int fails_the_same_way(fuzzer *f, json_t *c, const char *want)
{
    char *text = dump(c), m[DMLREF_ERROR_MESSAGE_CAPACITY + 256];
    char got[FAILURE_CLASS_CAPACITY];
    dmlref_vector *v;
    case_result outcome = try_case(f, text, &v, NULL, m, sizeof m);
    int same = 0;
    free(text);
    if (v) {
        failure_class(outcome, m, got, sizeof got);
        same = strcmp(got, want) == 0;
        dmlref_vector_free(v);
    }
    return same;
}

char *shrink(fuzzer *f, const char *text, case_result failing, const char *failing_message)
{
    json_error_t jerr;
    json_t *best = json_loads(text, 0, &jerr);
    unsigned long runs = f->runs + SHRINK_RUNS, timeouts = f->timeouts + SHRINK_TIMEOUTS;
    char want[FAILURE_CLASS_CAPACITY];
    moves l = {NULL, 0, 0};
    shape s;
    int improved = 1;
    char *out;

    if (!best || !shape_of(best, &s)) {
        json_decref(best);
        return NULL;
    }
    failure_class(failing, failing_message, want, sizeof want);
    while (improved && f->runs < runs && f->timeouts < timeouts) {
        size_t i;
        improved = 0;
        list_moves(best, &s, &l);
        for (i = 0; i < l.count && f->runs < runs && f->timeouts < timeouts; ++i) {
            json_t *c = make_move(best, &s, &l.items[i]);
            if (c && !json_equal(c, best) && fails_the_same_way(f, c, want)) {
                json_decref(best);
                best = c;
                improved = 1;
                list_moves(best, &s, &l); /* and on from the same place */
            } else {
                json_decref(c);
            }
        }
    }
    free(l.items);
    out = dump(best);
    json_decref(best);
    return out;
}
