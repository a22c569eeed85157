/*
 * fuzz.c - dmlref fuzz: differential fuzzing of another implementation
 * against the reference, shrinking every difference to a small vector.
 *
 *   dmlref fuzz (--backend LIB.so | --exec 'CMD' | --kernels fast) [--seed N]
 *               [--cases N | --time S] [--operator NAME] [--out DIR] [--timeout S]
 *               [--shrink N]
 *
 * With --kernels fast the implementation is this library's fast kernels
 * (src/kernels/), run in this process: each case is executed with
 * kernels = DMLREF_KERNELS_FAST and with DMLREF_KERNELS_REFERENCE on the
 * case's inputs, each into output buffers prefilled with one pattern
 * (kernels_compare()), at 1 and at 3 threads.  The fast kernels' run is
 * judged as a backend's, and besides, any difference from the reference
 * kernels (status, rule, message, any byte of an output buffer, padding and
 * NonZero's unspecified rows included) fails the case.  Shrinking and the
 * shrunk vector are the same as for a backend.
 *
 * Each case starts from the golden suite's own builders (src/suite.c):
 * random operator, data type, index type, rank 1 to 8, axis, layout (packed,
 * padded, permuted, broadcast input, strided output) and index values, with
 * NaN payloads, both zeros, infinities and subnormals among float values.
 * Then each case becomes, drawn from the seed and its number:
 *   with probability 20%, a case with one rule broken by a mutation of its
 *      JSON (mutate(): Axis, a size, a rank, data types, the index type, the
 *      feature level, the first levels' shapes, flags, alignment,
 *      TotalTensorSizeInBytes, element counts, strides, output aliasing,
 *      GatherND's counts, NonZero's shapes), kept once the library refuses it
 *      at validation (else another mutation, MUTATION_TRIES in all): the
 *      case must be refused;
 *   10%, a case with boundary indices -s, -1, 0 and s-1 (NonZero: special
 *      values: both zeros, subnormals, NaN, infinities, integer extremes);
 *   10%, the same and one or two out-of-range indices (s, -s-1, the type's
 *      extremes, unsigned values past the signed range);
 *   else (60%) it stays as drawn: valid, indices in range;
 * and a gather or Scatter case of the last two kinds runs under "oob":
 * "clamp" half of the time.
 *
 * The expectation always comes from the oracle, never from the mutation
 * (oracle_case()): a case the library refuses at validation gets the
 * library's status and rule as its expect_error; one whose indices are out
 * of range under the strict policy gets DMLREF_ERROR_INDEX_OUT_OF_RANGE; the
 * others get the reference's outputs.  The backend runs the case and dmlref
 * check's judge decides.  A NonZero case with float subnormals also accepts
 * the outputs of a backend that flushes them to zero: the reference states
 * that answer as the permitted variant subnormals_flushed (R-NZ-10).
 *
 * A failure or an error is shrunk (shrink()): simpler layouts and fewer
 * attributes, fewer dimensions, dimensions cut down to one element or to
 * halves, blocks of elements set to zero (delta debugging: the whole tensor,
 * halves, quarters, ... single elements), single elements set to 1, single
 * indices moved toward 0; each step is kept only while the backend still
 * fails the same way (same outcome, same failure class: the same expected
 * status and rule, the same output tensor, the same kind of damage or
 * crash), within SHRINK_RUNS backend runs and SHRINK_TIMEOUTS timeouts.
 * The smallest case is written to --out as a vector that `dmlref check`
 * replays (whole or not at all; the run names only the files it wrote).
 * Only the first --shrink (default 10) differences are shrunk.
 *
 * The same seed gives the same cases.  Exit 0 when every case passed or was
 * skipped and at least one was compared, 1 when a case failed, 2 when no case
 * was compared (--cases 0, a --time too short for one case, every case
 * skipped), the backend cannot be loaded or a shrunk vector could not be
 * written, 3 for a usage error.
 */
#include "conformance/conformance.h"
#include "platform/clock.h"
#include "platform/console.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHRINK_RUNS 2000           /* backend runs one shrink may spend */
#define SHRINK_TIMEOUTS 8          /* backend runs ending in a timeout one shrink may spend */
#define CASE_MEMORY (256ull << 20) /* buffers of one case: a mutation never allocates more */
#define DATA_LIMIT 4096u           /* a mutated input with more elements gets a generator */
#define MUTATION_TRIES 16          /* mutations tried before a case stays valid */

/* Out of 100 cases (the rest stay as drawn). */
#define PERCENT_INVALID 20
#define PERCENT_BOUNDARY 10
#define PERCENT_OUT_OF_RANGE 10

/* ---- a seeded generator: the suite's (SplitMix64) ----------------------------- */

typedef struct prng {
    uint64_t state;
} prng;

static uint64_t draw(prng *r)
{
    return random_next(&r->state);
}

static uint32_t pick(prng *r, uint32_t n)
{
    return n ? (uint32_t)(draw(r) % n) : 0;
}

/* ---- the case's JSON ------------------------------------------------------- */

typedef struct shape {
    dmlref_operator_type op;
    size_t inputs, count;
    const char *names[4];
} shape;

static int shape_of(json_t *root, shape *s)
{
    static const char *const gather[3] = {"InputTensor", "IndicesTensor", "OutputTensor"};
    static const char *const scatter[4] = {"InputTensor", "IndicesTensor", "UpdatesTensor",
                                           "OutputTensor"};
    static const char *const nonzero[3] = {"InputTensor", "OutputCountTensor",
                                           "OutputCoordinatesTensor"};
    const char *name = json_string_value(json_object_get(root, "operator"));
    const char *const *names;
    size_t i;
    if (!name || !dmlref_operator_from_name(name, &s->op))
        return 0;
    names = s->op == DMLREF_OPERATOR_SCATTER_ELEMENTS      ? scatter
            : s->op == DMLREF_OPERATOR_NONZERO_COORDINATES ? nonzero
                                                           : gather;
    s->count = s->op == DMLREF_OPERATOR_SCATTER_ELEMENTS ? 4 : 3;
    s->inputs = s->op == DMLREF_OPERATOR_SCATTER_ELEMENTS      ? 3
                : s->op == DMLREF_OPERATOR_NONZERO_COORDINATES ? 1
                                                               : 2;
    for (i = 0; i < s->count; ++i)
        s->names[i] = names[i];
    return 1;
}

static json_t *tensor_at(json_t *root, const char *name)
{
    return json_object_get(json_object_get(root, "tensors"), name);
}

static size_t rank_of(json_t *t)
{
    return json_array_size(json_object_get(t, "sizes"));
}

static uint64_t size_at(json_t *t, size_t d)
{
    return (uint64_t)json_integer_value(json_array_get(json_object_get(t, "sizes"), d));
}

/* The product of the sizes, saturating at 2^64-1. */
static uint64_t elements_of(json_t *t)
{
    uint64_t n = 1;
    size_t d, rank = rank_of(t);
    for (d = 0; d < rank; ++d) {
        uint64_t s = size_at(t, d);
        if (s && n > UINT64_MAX / s)
            return UINT64_MAX;
        n *= s;
    }
    return n;
}

static dmlref_tensor_data_type dtype_of(json_t *t)
{
    dmlref_tensor_data_type type = DMLREF_TENSOR_DATA_TYPE_FLOAT32;
    const char *name = json_string_value(json_object_get(t, "dtype"));
    if (name)
        dmlref_data_type_from_name(name, &type);
    return type;
}

static int is_signed_type(dmlref_tensor_data_type type)
{
    return type == DMLREF_TENSOR_DATA_TYPE_INT8 || type == DMLREF_TENSOR_DATA_TYPE_INT16 ||
           type == DMLREF_TENSOR_DATA_TYPE_INT32 || type == DMLREF_TENSOR_DATA_TYPE_INT64;
}

static int is_float_type(dmlref_tensor_data_type type)
{
    return type == DMLREF_TENSOR_DATA_TYPE_FLOAT16 || type == DMLREF_TENSOR_DATA_TYPE_FLOAT32 ||
           type == DMLREF_TENSOR_DATA_TYPE_FLOAT64;
}

static int has_zero_stride(json_t *t)
{
    json_t *strides = json_object_get(t, "strides"), *s;
    size_t i;
    json_array_foreach(strides, i, s) if (json_integer_value(s) == 0) return 1;
    return 0;
}

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

/* An integer element of `type` with these bits, encoded as FORMAT.md says
   (a string beyond 2^53 in magnitude). */
static json_t *integer_element(dmlref_tensor_data_type type, uint64_t bits)
{
    char text[32];
    uint32_t esize = dmlref_data_type_size(type);
    uint64_t mask = esize >= 8 ? UINT64_MAX : (((uint64_t)1 << (8 * esize)) - 1);
    bits &= mask;
    if (is_signed_type(type)) {
        int64_t v = esize >= 8                  ? (int64_t)bits
                    : (bits >> (8 * esize - 1)) ? (int64_t)(bits | ~mask)
                                                : (int64_t)bits;
        if (v >= -((int64_t)1 << 53) && v <= ((int64_t)1 << 53))
            return json_integer((json_int_t)v);
        snprintf(text, sizeof text, "%lld", (long long)v);
    } else {
        if (bits <= ((uint64_t)1 << 53))
            return json_integer((json_int_t)bits);
        snprintf(text, sizeof text, "%llu", (unsigned long long)bits);
    }
    return json_string(text);
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

static void set_size(json_t *t, size_t d, uint64_t size)
{
    json_array_set_new(json_object_get(t, "sizes"), d, json_integer((json_int_t)size));
}

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

/* Gives an input `n` elements: its data repeated or cut, or a generator when
   there are too many to write out. */
static void resize_data(json_t *t, uint64_t n)
{
    json_t *data = json_object_get(t, "data"), *out;
    size_t old, e;
    if (!data)
        return;
    if (n > DATA_LIMIT) {
        json_object_del(t, "data");
        json_object_set_new(t, "generator", json_pack("{s:s, s:i}", "kind", "bits", "seed", 1));
        return;
    }
    old = json_array_size(data);
    out = json_array();
    for (e = 0; e < (size_t)n; ++e)
        json_array_append(out, old ? json_array_get(data, e % old) : json_integer(0));
    json_object_set_new(t, "data", out);
}

/* Replaces an input's data by small integers, valid in every data type. */
static void simple_data(json_t *t)
{
    json_t *data = json_object_get(t, "data");
    size_t e, n = json_array_size(data);
    for (e = 0; e < n; ++e)
        json_array_set_new(data, e, json_integer((json_int_t)(e % 100)));
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

/* Packed strides for t's sizes. */
static json_t *packed_strides(json_t *t)
{
    size_t rank = rank_of(t), d;
    uint64_t step = 1;
    json_t *strides = json_array();
    for (d = 0; d < rank; ++d)
        json_array_append_new(strides, json_integer(0));
    for (d = rank; d-- > 0;) {
        json_array_set_new(strides, d, json_integer((json_int_t)step));
        step *= size_at(t, d);
    }
    return strides;
}

static uint64_t minimum_bytes(json_t *t)
{
    uint32_t sizes[8], strides[8];
    size_t rank = rank_of(t), d;
    json_t *s = json_object_get(t, "strides");
    if (rank < 1 || rank > 8)
        return 0;
    for (d = 0; d < rank; ++d) {
        sizes[d] = (uint32_t)size_at(t, d);
        strides[d] = (uint32_t)json_integer_value(json_array_get(s, d));
    }
    return dmlref_calc_buffer_tensor_size(dtype_of(t), (uint32_t)rank, sizes,
                                          json_is_array(s) ? strides : NULL);
}

static const dmlref_feature_level k_levels[15] = {
    DMLREF_FEATURE_LEVEL_1_0, DMLREF_FEATURE_LEVEL_2_0, DMLREF_FEATURE_LEVEL_2_1,
    DMLREF_FEATURE_LEVEL_3_0, DMLREF_FEATURE_LEVEL_3_1, DMLREF_FEATURE_LEVEL_4_0,
    DMLREF_FEATURE_LEVEL_4_1, DMLREF_FEATURE_LEVEL_5_0, DMLREF_FEATURE_LEVEL_5_1,
    DMLREF_FEATURE_LEVEL_5_2, DMLREF_FEATURE_LEVEL_6_0, DMLREF_FEATURE_LEVEL_6_1,
    DMLREF_FEATURE_LEVEL_6_2, DMLREF_FEATURE_LEVEL_6_3, DMLREF_FEATURE_LEVEL_6_4};

static void set_type(json_t *t, dmlref_tensor_data_type type)
{
    json_object_set_new(t, "dtype", json_string(dmlref_data_type_name(type)));
    simple_data(t);
}

static void set_level(json_t *root, dmlref_feature_level level)
{
    json_object_set_new(root, "feature_level", json_string(dmlref_feature_level_name(level)));
}

/* Leading dimensions of size 1 until t has `rank` of them. */
static void pad_rank(json_t *t, size_t rank)
{
    json_t *sizes = json_object_get(t, "sizes"), *strides = json_object_get(t, "strides");
    while (json_array_size(sizes) < rank) {
        json_array_insert_new(sizes, 0, json_integer(1));
        if (strides)
            json_array_insert_new(strides, 0, json_integer(1));
    }
    json_object_del(t, "total_bytes");
}

/* ---- invalid descriptors: one rule broken --------------------------------- */

enum mutation {
    M_AXIS,
    M_SIZE_ZERO,
    M_SIZE,
    M_RANK,
    M_TYPE_MISMATCH,
    M_DATA_TYPE,
    M_INDEX_TYPE,
    M_LEVEL,
    M_FLAGS,
    M_ALIGNMENT,
    M_TOTAL_BELOW_MINIMUM,
    M_TOTAL_TOO_LARGE,
    M_TOO_MANY_ELEMENTS,
    M_STRIDES_OVERFLOW,
    M_OUTPUT_ALIASING,
    M_ND_COUNTS,
    M_NONZERO_SHAPE,
    M_EARLY_LEVEL,
    MUTATIONS
};
static const char *const k_mutation_names[MUTATIONS] = {"axis",
                                                        "size_zero",
                                                        "size",
                                                        "rank",
                                                        "type_mismatch",
                                                        "data_type",
                                                        "index_type",
                                                        "feature_level",
                                                        "flags",
                                                        "alignment",
                                                        "total_bytes_below_minimum",
                                                        "total_bytes_too_large",
                                                        "too_many_elements",
                                                        "strides_overflow",
                                                        "output_aliasing",
                                                        "nd_counts",
                                                        "nonzero_shape",
                                                        "early_level"};

/* Breaks (usually) one rule of the case; 0 when the mutation does not apply
   to this operator. */
static int mutate(json_t *root, const shape *s, enum mutation m, prng *r)
{
    size_t which = pick(r, (uint32_t)s->count), d, rank;
    json_t *t = tensor_at(root, s->names[which]), *attributes = json_object_get(root, "attributes");
    int is_input = which < s->inputs;
    dmlref_tensor_data_type type = dtype_of(t);
    uint32_t esize = dmlref_data_type_size(type);
    rank = rank_of(t);
    d = pick(r, (uint32_t)rank);
    switch (m) {
    case M_AXIS: {
        json_t *axis = json_object_get(attributes, "Axis");
        if (!axis)
            return 0;
        json_integer_set(
            axis, pick(r, 4) ? (json_int_t)(rank_of(tensor_at(root, "InputTensor")) + pick(r, 3))
                             : (json_int_t)4294967295u);
        return 1;
    }
    case M_SIZE_ZERO:
        set_size(t, d, 0);
        resize_data(t, 0);
        json_object_del(t, "total_bytes");
        return 1;
    case M_SIZE: { /* one size one more, one fewer, or twice */
        uint64_t size = size_at(t, d);
        uint32_t how = pick(r, 3);
        set_size(t, d, how == 0 ? size + 1 : how == 1 && size > 1 ? size - 1 : 2 * size);
        resize_data(t, elements_of(t));
        json_object_del(t, "total_bytes");
        return 1;
    }
    case M_RANK: { /* a leading 1 more, or one dimension fewer */
        json_t *sizes = json_object_get(t, "sizes"), *strides = json_object_get(t, "strides");
        if (rank < 8 && (rank == 1 || pick(r, 2))) {
            json_array_insert_new(sizes, 0, json_integer(1));
            if (strides)
                json_array_insert_new(strides, 0, json_integer(1));
        } else {
            json_array_remove(sizes, d);
            if (strides)
                json_array_remove(strides, d);
            resize_data(t, elements_of(t));
        }
        json_object_del(t, "total_bytes");
        return 1;
    }
    case M_TYPE_MISMATCH: { /* an output (or Scatter's updates) of another type */
        dmlref_tensor_data_type other;
        which = s->op == DMLREF_OPERATOR_SCATTER_ELEMENTS      ? 2 + pick(r, 2)
                : s->op == DMLREF_OPERATOR_NONZERO_COORDINATES ? 1 + pick(r, 2)
                                                               : 2;
        t = tensor_at(root, s->names[which]);
        do
            other = suite_data_types[pick(r, 11)];
        while (other == dtype_of(t));
        set_type(t, other);
        return 1;
    }
    case M_DATA_TYPE: { /* every data tensor of another type, maybe at a lower level */
        dmlref_tensor_data_type other = suite_data_types[pick(r, 11)];
        size_t i;
        for (i = 0; i < s->count; ++i)
            if (i == 0 || (s->op != DMLREF_OPERATOR_NONZERO_COORDINATES && i != 1))
                set_type(tensor_at(root, s->names[i]), other);
        if (pick(r, 2))
            set_level(root, k_levels[3 + pick(r, 4)]); /* 3_0 to 4_1 */
        return 1;
    }
    case M_INDEX_TYPE: {
        static const dmlref_tensor_data_type bad[7] = {
            DMLREF_TENSOR_DATA_TYPE_INT8,    DMLREF_TENSOR_DATA_TYPE_INT16,
            DMLREF_TENSOR_DATA_TYPE_UINT8,   DMLREF_TENSOR_DATA_TYPE_UINT16,
            DMLREF_TENSOR_DATA_TYPE_FLOAT16, DMLREF_TENSOR_DATA_TYPE_FLOAT32,
            DMLREF_TENSOR_DATA_TYPE_FLOAT64};
        if (!(t = tensor_at(root, "IndicesTensor")))
            return 0;
        set_type(t, bad[pick(r, 7)]);
        return 1;
    }
    case M_LEVEL: { /* a lower feature level: the operator, index types, ranks, types */
        dmlref_feature_level level = DMLREF_FEATURE_LEVEL_LATEST;
        const char *name = json_string_value(json_object_get(root, "feature_level"));
        size_t i;
        if (name)
            dmlref_feature_level_from_name(name, &level);
        for (i = 0; i < 15 && k_levels[i] < level; ++i)
            ;
        if (i == 0)
            return 0;
        set_level(root, k_levels[pick(r, (uint32_t)i)]);
        return 1;
    }
    case M_FLAGS:
        json_object_set_new(t, "flags",
                            json_integer(!is_input && pick(r, 2)
                                             ? 1
                                             : (json_int_t)((uint64_t)1 << (1 + pick(r, 31)))));
        return 1;
    case M_ALIGNMENT: {
        static const uint32_t odd[6] = {3, 5, 6, 12, 24, 100};
        uint32_t alignment = odd[pick(r, 6)];
        if (pick(r, 2)) /* a power of two below the minimum, 16 (R-TD-14) */
            alignment = 1u << pick(r, 4);
        json_object_set_new(t, "alignment", json_integer(alignment));
        return 1;
    }
    case M_TOTAL_BELOW_MINIMUM: {
        uint64_t minimum = minimum_bytes(t);
        if (minimum == 0)
            return 0;
        json_object_set_new(t, "total_bytes", json_integer((json_int_t)(draw(r) % minimum)));
        return 1;
    }
    case M_TOTAL_TOO_LARGE: /* more than 2^32-1 elements' worth of bytes (R-TD-13, D13) */
        json_object_set_new(t, "total_bytes",
                            json_integer((json_int_t)(((uint64_t)esize << 32) + pick(r, 4096))));
        return 1;
    case M_TOO_MANY_ELEMENTS:
        set_size(t, d, 4294967295u);
        if (rank > 1)
            set_size(t, (d + 1 + pick(r, (uint32_t)rank - 1)) % rank, 2 + pick(r, 3));
        json_object_del(t, "strides");
        json_object_del(t, "total_bytes");
        resize_data(t, elements_of(t));
        return 1;
    case M_STRIDES_OVERFLOW: {
        json_t *strides = json_object_get(t, "strides");
        if (!strides) {
            json_object_set_new(t, "strides", packed_strides(t));
            strides = json_object_get(t, "strides");
        }
        set_size(t, d, 4294967295u);
        json_array_set_new(strides, d, json_integer((json_int_t)4294967295u));
        json_object_del(t, "total_bytes");
        resize_data(t, elements_of(t));
        return 1;
    }
    case M_OUTPUT_ALIASING: { /* two elements of an output at one address */
        size_t big[8], n = 0, i;
        json_t *strides;
        which = s->inputs + pick(r, (uint32_t)(s->count - s->inputs));
        t = tensor_at(root, s->names[which]);
        for (i = 0; i < rank_of(t); ++i)
            if (size_at(t, i) > 1)
                big[n++] = i;
        if (n == 0)
            return 0;
        if (!json_object_get(t, "strides"))
            json_object_set_new(t, "strides", packed_strides(t));
        strides = json_object_get(t, "strides");
        json_object_del(t, "total_bytes");
        if (n >= 2 && pick(r, 4) == 0) { /* interleaved, too wide for dmlref to decide */
            json_array_set_new(strides, big[0], json_integer(134217728));
            json_array_set_new(strides, big[1], json_integer(201326592));
        } else if (n >= 2 && pick(r, 2)) { /* two dimensions with one stride */
            json_array_set_new(strides, big[1],
                               json_integer(json_integer_value(json_array_get(strides, big[0]))));
        } else {
            json_array_set_new(strides, big[pick(r, (uint32_t)n)], json_integer(0));
        }
        return 1;
    }
    case M_ND_COUNTS: {
        static const char *const names[3] = {"InputDimensionCount", "IndicesDimensionCount",
                                             "BatchDimensionCount"};
        size_t a = pick(r, s->op == DMLREF_OPERATOR_GATHER_ND1 ? 3 : 2);
        json_t *x = json_object_get(attributes, names[a]);
        json_int_t v = x ? json_integer_value(x) : 0;
        json_int_t D = (json_int_t)rank_of(tensor_at(root, "InputTensor"));
        json_int_t choices[4];
        if (!x)
            return 0;
        choices[0] = a == 2 ? 4294967295 : 0;
        choices[1] = a == 2 ? v + 1 : D + 1;
        choices[2] = v > 0 ? v - 1 : v + 1;
        choices[3] = v + 1;
        json_integer_set(x, choices[pick(r, 4)]);
        return 1;
    }
    case M_NONZERO_SHAPE: { /* the coordinates' N or M, or a count that is not a scalar */
        json_t *co = tensor_at(root, "OutputCoordinatesTensor");
        size_t last;
        if (!co)
            return 0;
        last = rank_of(co) - 1;
        json_object_del(co, "strides");
        json_object_del(co, "total_bytes");
        switch (pick(r, 4)) {
        case 0:
            set_size(co, last, size_at(co, last) + 1 + pick(r, 2)); /* N above the rank */
            break;
        case 1:
            if (size_at(co, last) < 2)
                return 0;
            set_size(co, last, size_at(co, last) - 1); /* N below the effective rank */
            break;
        case 2:
            set_size(co, last - 1, size_at(co, last - 1) + 1); /* M is not the element count */
            break;
        default: {
            json_t *count = tensor_at(root, "OutputCountTensor");
            json_object_del(count, "strides");
            set_size(count, pick(r, (uint32_t)rank_of(count)), 2);
            break;
        }
        }
        return 1;
    }
    case M_EARLY_LEVEL: { /* the shapes of the first levels' tables, one rule of them broken */
        size_t i, R = rank_of(tensor_at(root, "InputTensor"));
        if (s->op == DMLREF_OPERATOR_NONZERO_COORDINATES) {
            /* 3_0 and 3_1: ranks 4 or 5, all the same (D10): made to differ */
            size_t in_rank = R <= 4 ? 4 + pick(r, 2) : 5;
            if (R > 5)
                return 0;
            pad_rank(tensor_at(root, "InputTensor"), in_rank);
            pad_rank(tensor_at(root, "OutputCountTensor"), 4 + pick(r, 2));
            pad_rank(tensor_at(root, "OutputCoordinatesTensor"), in_rank == 4 ? 5 : 4 + pick(r, 2));
            set_level(root, pick(r, 2) ? DMLREF_FEATURE_LEVEL_3_0 : DMLREF_FEATURE_LEVEL_3_1);
            return 1;
        }
        /* the gathers at 2_1, Scatter at 2_0 or 2_1: rank 4, UINT32 indices
           (a signed index type there is D3) */
        if (R > 4 || s->op == DMLREF_OPERATOR_GATHER_ND1)
            return 0;
        for (i = 0; i < s->count; ++i)
            pad_rank(tensor_at(root, s->names[i]), 4);
        if ((t = json_object_get(attributes, "Axis")))
            json_integer_set(t, json_integer_value(t) + (json_int_t)(4 - R));
        set_level(root, s->op == DMLREF_OPERATOR_SCATTER_ELEMENTS && pick(r, 2)
                            ? DMLREF_FEATURE_LEVEL_2_0
                            : DMLREF_FEATURE_LEVEL_2_1);
        return 1;
    }
    default:
        return 0;
    }
}

/* ---- boundary and out-of-range indices ------------------------------------- */

/* The size an element of the case's IndicesTensor is checked against. */
static int index_bound(json_t *root, const shape *s, uint64_t e, uint64_t *bound)
{
    json_t *in = tensor_at(root, "InputTensor"), *idx = tensor_at(root, "IndicesTensor");
    json_t *attributes = json_object_get(root, "attributes");
    size_t D = rank_of(in), axis, m, b, k, dim;
    if (s->op == DMLREF_OPERATOR_GATHER_ELEMENTS || s->op == DMLREF_OPERATOR_SCATTER_ELEMENTS) {
        axis = (size_t)json_integer_value(json_object_get(attributes, "Axis"));
        if (axis >= D)
            return 0;
        *bound = size_at(in, axis);
        return 1;
    }
    m = (size_t)json_integer_value(json_object_get(attributes, "InputDimensionCount"));
    b = (size_t)json_integer_value(json_object_get(attributes, "BatchDimensionCount"));
    k = (size_t)size_at(idx, rank_of(idx) - 1);
    if (!k || m > D || b > m)
        return 0;
    dim = D - m + b + (size_t)(e % k); /* component j of a tuple: dimension D-m+b+j */
    if (dim >= D)
        return 0;
    *bound = size_at(in, dim);
    return 1;
}

/* Index values at the edges: -s, -1, 0, s-1 (signed) or 0, s-1; with
   out_of_range, one or two values outside too: s, -s-1 and the type's
   extremes (signed), s and values past the signed range (unsigned).  Under
   "clamp" the unsigned ones are 2^31 (2^63) and 2^32-1 (2^64-1), which read
   as signed are out of range or -1, whose clamped and wrapped results
   agree: R-IX-5 leaves the result of an out-of-range index unspecified. */
static int make_boundary(json_t *root, const shape *s, prng *r, int out_of_range, int clamp)
{
    json_t *idx = tensor_at(root, "IndicesTensor"), *data = json_object_get(idx, "data");
    dmlref_tensor_data_type type = dtype_of(idx);
    int is_signed = is_signed_type(type), wide = dmlref_data_type_size(type) == 8;
    uint64_t half = wide ? (uint64_t)1 << 63 : (uint64_t)1 << 31;
    uint64_t all = wide ? UINT64_MAX : 0xFFFFFFFFu;
    size_t n = json_array_size(data), e, bad;
    if (!idx || !n || has_zero_stride(idx))
        return 0;
    for (e = 0; e < n; ++e) {
        uint64_t s_e, v;
        if (!index_bound(root, s, e, &s_e))
            return 0;
        if (pick(r, 2))
            continue;
        switch (pick(r, is_signed ? 4 : 2)) {
        case 0:
            v = 0;
            break;
        case 1:
            v = s_e - 1;
            break;
        case 2:
            v = (uint64_t)0 - s_e;
            break; /* -s */
        default:
            v = UINT64_MAX;
            break; /* -1 */
        }
        json_array_set_new(data, e, integer_element(type, v));
    }
    for (bad = out_of_range ? 1 + pick(r, 2) : 0; bad > 0; --bad) {
        uint64_t s_e, v;
        e = pick(r, (uint32_t)n);
        index_bound(root, s, e, &s_e);
        if (is_signed) {
            switch (pick(r, 4)) {
            case 0:
                v = s_e;
                break;
            case 1:
                v = (uint64_t)0 - s_e - 1;
                break; /* -s-1 */
            case 2:
                v = half - 1;
                break; /* the largest value */
            default:
                v = half;
                break; /* the smallest (negative) value */
            }
        } else {
            switch (pick(r, clamp ? 3 : 5)) {
            case 0:
                v = s_e;
                break;
            case 1:
                v = half;
                break;
            case 2:
                v = all;
                break;
            case 3:
                v = all - s_e + 1;
                break; /* -s read as signed */
            default:
                v = half - 1;
                break;
            }
        }
        json_array_set_new(data, e, integer_element(type, v));
    }
    if (clamp)
        json_object_set_new(root, "oob", json_string("clamp"));
    return 1;
}

/* NonZero: the input's elements at the edges of "zero": both zeros, the
   smallest subnormals, NaN, infinities, 1; integers 0, 1, -1 and the type's
   extremes. */
static int make_specials(json_t *root, prng *r)
{
    json_t *in = tensor_at(root, "InputTensor"), *data = json_object_get(in, "data");
    dmlref_tensor_data_type type = dtype_of(in);
    double tiny = type == DMLREF_TENSOR_DATA_TYPE_FLOAT16 ? ldexp(1.0, -24) : ldexp(1.0, -149);
    size_t n = json_array_size(data), e;
    if (!n || has_zero_stride(in))
        return 0;
    for (e = 0; e < n; ++e) {
        json_t *v;
        if (pick(r, 2))
            continue;
        if (is_float_type(type)) {
            switch (pick(r, 8)) {
            case 0:
                v = json_integer(0);
                break;
            case 1:
                v = json_real(-0.0);
                break;
            case 2:
                v = json_real(tiny);
                break;
            case 3:
                v = json_real(-tiny);
                break;
            case 4:
                v = json_string("nan");
                break;
            case 5:
                v = json_string("inf");
                break;
            case 6:
                v = json_string("-inf");
                break;
            default:
                v = json_integer(1);
                break;
            }
        } else {
            uint32_t esize = dmlref_data_type_size(type);
            uint64_t top = (uint64_t)1 << (8 * esize - 1);
            switch (pick(r, 5)) {
            case 0:
                v = integer_element(type, 0);
                break;
            case 1:
                v = integer_element(type, 1);
                break;
            case 2:
                v = integer_element(type, UINT64_MAX);
                break; /* -1 or the maximum */
            case 3:
                v = integer_element(type, top);
                break;
            default:
                v = integer_element(type, top - 1);
                break;
            }
        }
        json_array_set_new(data, e, v);
    }
    return 1;
}

/* ---- the fast kernels against the reference kernels ------------------------------ */

/* The pattern every output buffer and its guards hold before a run: byte j
   of the buffer (j from -KERNELS_GUARD) holds prefill_byte(j + KERNELS_GUARD).
   It changes along the buffer, so that no kernel matches it by writing a
   constant. */
static unsigned char prefill_byte(uint64_t i)
{
    return (unsigned char)(0xA7u ^ (unsigned)((i * 0x9Du) & 0xFFu) ^ (unsigned)((i >> 8) & 0xFFu));
}

static const char *output_name(dmlref_operator_type type, size_t o)
{
    if (type == DMLREF_OPERATOR_NONZERO_COORDINATES)
        return o == 0 ? "OutputCountTensor" : "OutputCoordinatesTensor";
    return "OutputTensor";
}

static const char *input_name(dmlref_operator_type type, size_t i)
{
    static const char *const names[3] = {"InputTensor", "IndicesTensor", "UpdatesTensor"};
    return type == DMLREF_OPERATOR_NONZERO_COORDINATES ? "InputTensor" : names[i < 3 ? i : 0];
}

static const dmlref_tensor_desc *output_desc(const dmlref_operator_desc *op, size_t o)
{
    switch (op->Type) {
    case DMLREF_OPERATOR_GATHER_ELEMENTS:
        return ((const dmlref_gather_elements_desc *)op->Desc)->OutputTensor;
    case DMLREF_OPERATOR_SCATTER_ELEMENTS:
        return ((const dmlref_scatter_elements_desc *)op->Desc)->OutputTensor;
    case DMLREF_OPERATOR_GATHER_ND:
        return ((const dmlref_gather_nd_desc *)op->Desc)->OutputTensor;
    case DMLREF_OPERATOR_GATHER_ND1:
        return ((const dmlref_gather_nd1_desc *)op->Desc)->OutputTensor;
    default: {
        const dmlref_nonzero_coordinates_desc *d = op->Desc;
        return o == 0 ? d->OutputCountTensor : d->OutputCoordinatesTensor;
    }
    }
}

/* Where byte `byte` of a tensor's buffer lies: "element [1, 0]", "no element
   covers it", or "" for a tensor of more than 2^24 elements. */
static void byte_place(const dmlref_tensor_desc *t, uint64_t byte, char *out, size_t capacity)
{
    uint32_t es = dmlref_data_type_size(t->DataType), rank = t->DimensionCount, d;
    uint64_t n = 1, e, c[DMLREF_TENSOR_DIMENSION_COUNT_MAX];
    out[0] = '\0';
    if (!t->Sizes || rank < 1 || rank > DMLREF_TENSOR_DIMENSION_COUNT_MAX || !es)
        return;
    for (d = 0; d < rank && n <= (1u << 24); ++d)
        n *= t->Sizes[d];
    if (n > (1u << 24))
        return;
    for (e = 0; e < n; ++e) {
        uint64_t pos = e, offset = 0, packed = 1;
        for (d = rank; d-- > 0;) {
            c[d] = pos % t->Sizes[d];
            pos /= t->Sizes[d];
            offset += c[d] * (t->Strides ? t->Strides[d] : packed);
            packed *= t->Sizes[d];
        }
        if (byte >= offset * es && byte < offset * es + es) {
            size_t used = (size_t)snprintf(out, capacity, "element [");
            for (d = 0; d < rank && used < capacity; ++d)
                used += (size_t)snprintf(out + used, capacity - used, "%s%llu", d ? ", " : "",
                                         (unsigned long long)c[d]);
            if (used < capacity)
                snprintf(out + used, capacity - used, "]");
            return;
        }
    }
    snprintf(out, capacity, "no element covers it");
}

/* "returned DMLREF_OK" or "refused with DMLREF_ERROR_... (rule)". */
static void outcome_text(dmlref_status status, const dmlref_error *err, char *out, size_t capacity)
{
    if (status == DMLREF_OK)
        snprintf(out, capacity, "returned DMLREF_OK");
    else
        snprintf(out, capacity, "refused with %s (%s)", dmlref_status_name(status),
                 err->rule[0] ? err->rule : "no rule");
}

void kernels_comparison_free(kernels_comparison *k)
{
    size_t i;
    for (i = 0; i < 4; ++i) {
        free(k->blocks[i]);
        k->blocks[i] = NULL;
    }
}

/* A buffer of `size` bytes aligned to `alignment` (0: none), with the
   pattern in it and KERNELS_GUARD bytes of it on either side; NULL when
   memory runs out. */
static unsigned char *prefilled(uint64_t size, uint32_t alignment, unsigned char **block)
{
    uint64_t a = alignment > 1 ? alignment : 1, j;
    unsigned char *data;
    if (size > SIZE_MAX - 2 * KERNELS_GUARD - a ||
        !(*block = malloc((size_t)(size + 2 * KERNELS_GUARD + a))))
        return NULL;
    data = *block + KERNELS_GUARD;
    data += (a - (uintptr_t)data % a) % a;
    for (j = 0; j < size + 2 * KERNELS_GUARD; ++j)
        data[(ptrdiff_t)j - KERNELS_GUARD] = prefill_byte(j);
    return data;
}

/* The first guard byte of an output buffer that changed: 1 and *before (1:
   before the buffer, with *where bytes before it; 0: past it, *where from its
   start), or 0. */
static int guard_changed(const dmlref_binding *b, int *before, uint64_t *where)
{
    const unsigned char *data = b->data;
    uint64_t j;
    if (!data)
        return 0;
    for (j = 0; j < KERNELS_GUARD; ++j) {
        if (data[(ptrdiff_t)j - KERNELS_GUARD] != prefill_byte(j)) {
            *before = 1, *where = KERNELS_GUARD - j;
            return 1;
        }
    }
    for (j = 0; j < KERNELS_GUARD; ++j) {
        if (data[b->size_in_bytes + j] != prefill_byte(KERNELS_GUARD + b->size_in_bytes + j)) {
            *before = 0, *where = b->size_in_bytes + j;
            return 1;
        }
    }
    return 0;
}

int kernels_compare(dmlref_vector *v, uint32_t threads, kernels_comparison *k)
{
    const dmlref_operator_desc *op = dmlref_vector_operator(v);
    dmlref_feature_level level = dmlref_vector_feature_level(v);
    size_t n_in = dmlref_vector_input_count(v), n_out = dmlref_vector_output_count(v), i;
    const dmlref_binding *in = dmlref_vector_inputs(v), *vout = dmlref_vector_outputs(v);
    dmlref_binding ref_out[2];
    unsigned char *snapshot[3] = {NULL, NULL, NULL};
    dmlref_execute_options options;
    dmlref_error fast_error;
    dmlref_status fast_status;
    char fast_text[96], ref_text[96];
    int before;
    uint64_t where;

    memset(k, 0, sizeof *k);
    memset(ref_out, 0, sizeof ref_out);
    k->output_count = n_out;
    if (n_in > 3 || n_out > 2) {
        snprintf(k->difference, sizeof k->difference, "the case has %zu inputs and %zu outputs",
                 n_in, n_out);
        return 0;
    }
    for (i = 0; i < n_out; ++i) { /* an output the vector has no buffer for stays NULL */
        uint32_t alignment = output_desc(op, i)->GuaranteedBaseOffsetAlignment;
        ref_out[i].size_in_bytes = k->outputs[i].size_in_bytes = vout[i].size_in_bytes;
        if (vout[i].data &&
            (!(ref_out[i].data = prefilled(vout[i].size_in_bytes, alignment, &k->blocks[2 * i])) ||
             !(k->outputs[i].data =
                   prefilled(vout[i].size_in_bytes, alignment, &k->blocks[2 * i + 1]))))
            goto out_of_memory;
    }
    for (i = 0; i < n_in; ++i) {
        if (!in[i].data)
            continue;
        if (!(snapshot[i] = malloc((size_t)in[i].size_in_bytes + 1)))
            goto out_of_memory;
        memcpy(snapshot[i], in[i].data, (size_t)in[i].size_in_bytes);
    }

    memset(&options, 0, sizeof options);
    options.oob_policy = dmlref_vector_oob_policy(v);
    options.num_threads = threads;
    options.kernels = DMLREF_KERNELS_REFERENCE;
    memset(&k->reference_error, 0, sizeof k->reference_error);
    k->reference_status = dmlref_execute_with_options(op, level, &options, in, n_in, ref_out, n_out,
                                                      &k->reference_error);
    for (i = 0; i < n_in; ++i) {
        if (snapshot[i] && memcmp(snapshot[i], in[i].data, (size_t)in[i].size_in_bytes) != 0) {
            memcpy(in[i].data, snapshot[i], (size_t)in[i].size_in_bytes);
            snprintf(k->difference, sizeof k->difference,
                     "the reference kernels wrote into the input %s", input_name(op->Type, i));
        }
    }
    options.kernels = DMLREF_KERNELS_FAST;
    memset(&fast_error, 0, sizeof fast_error);
    fast_status =
        dmlref_execute_with_options(op, level, &options, in, n_in, k->outputs, n_out, &fast_error);

    /* what the fast kernels did, as a backend's run */
    k->fast.kind = fast_status == DMLREF_OK ? RUN_OUTPUTS : RUN_REFUSED;
    k->fast.status = fast_status;
    snprintf(k->fast.rule, sizeof k->fast.rule, "%s", fast_error.rule);
    snprintf(k->fast.message, sizeof k->fast.message, "%s", fast_error.message);
    for (i = 0; i < n_in; ++i) {
        if (snapshot[i] && memcmp(snapshot[i], in[i].data, (size_t)in[i].size_in_bytes) != 0) {
            memcpy(in[i].data, snapshot[i], (size_t)in[i].size_in_bytes);
            if (!k->fast.damage)
                k->fast.damage = DAMAGE_INPUT_WRITTEN, k->fast.damaged_tensor = i;
        }
    }
    for (i = 0; i < n_out && !k->fast.damage; ++i) {
        if (guard_changed(&k->outputs[i], &before, &where)) {
            k->fast.damage = before ? DAMAGE_BEFORE_START : DAMAGE_PAST_END;
            k->fast.damaged_tensor = n_in + i;
            k->fast.damage_offset = where;
        }
    }

    /* the first difference */
    outcome_text(fast_status, &fast_error, fast_text, sizeof fast_text);
    outcome_text(k->reference_status, &k->reference_error, ref_text, sizeof ref_text);
    if (k->difference[0]) {
        /* the reference wrote into an input: said above */
    } else if (k->fast.damage == DAMAGE_INPUT_WRITTEN) {
        snprintf(k->difference, sizeof k->difference, "wrote into the input %s",
                 input_name(op->Type, k->fast.damaged_tensor));
    } else if (k->fast.damage == DAMAGE_PAST_END) {
        snprintf(k->difference, sizeof k->difference,
                 "wrote past the TotalTensorSizeInBytes of %s (byte %llu of its %llu)",
                 output_name(op->Type, k->fast.damaged_tensor - n_in),
                 (unsigned long long)k->fast.damage_offset,
                 (unsigned long long)k->outputs[k->fast.damaged_tensor - n_in].size_in_bytes);
    } else if (k->fast.damage == DAMAGE_BEFORE_START) {
        snprintf(k->difference, sizeof k->difference,
                 "wrote before the start of %s (%llu bytes before)",
                 output_name(op->Type, k->fast.damaged_tensor - n_in),
                 (unsigned long long)k->fast.damage_offset);
    } else if (fast_status != k->reference_status ||
               strcmp(fast_error.rule, k->reference_error.rule) != 0) {
        snprintf(k->difference, sizeof k->difference,
                 "the fast kernels %s, the reference kernels %s: fast: %s; reference: %s",
                 fast_text, ref_text, fast_status == DMLREF_OK ? "-" : fast_error.message,
                 k->reference_status == DMLREF_OK ? "-" : k->reference_error.message);
    } else if (fast_status != DMLREF_OK &&
               strcmp(fast_error.message, k->reference_error.message) != 0) {
        snprintf(k->difference, sizeof k->difference,
                 "the fast kernels %s as the reference kernels do, with another message: "
                 "fast \"%s\", reference \"%s\"",
                 fast_text, fast_error.message, k->reference_error.message);
    } else {
        for (i = 0; i < n_out && !k->difference[0]; ++i) {
            const unsigned char *a = k->outputs[i].data, *b = ref_out[i].data;
            uint64_t size = k->outputs[i].size_in_bytes, j, first = 0, differ = 0;
            if (!a || !b)
                continue;
            for (j = 0; j < size; ++j)
                if (a[j] != b[j] && !differ++)
                    first = j;
            if (!differ && guard_changed(&ref_out[i], &before, &where))
                snprintf(k->difference, sizeof k->difference, "the reference kernels wrote %s %s",
                         before ? "before the start of" : "past the end of",
                         output_name(op->Type, i));
            if (differ) {
                char place[128];
                byte_place(output_desc(op, i), first, place, sizeof place);
                snprintf(k->difference, sizeof k->difference,
                         "$.tensors.%s.bytes[%llu]: the fast kernels leave 0x%02x, the reference "
                         "kernels 0x%02x (%s%sprefilled 0x%02x); %llu of its %llu bytes differ",
                         output_name(op->Type, i), (unsigned long long)first, a[first], b[first],
                         place, place[0] ? ", " : "", prefill_byte(KERNELS_GUARD + first),
                         (unsigned long long)differ, (unsigned long long)size);
            }
        }
    }
    for (i = 0; i < n_in; ++i)
        free(snapshot[i]);
    k->same = !k->difference[0];
    return k->same;

out_of_memory:
    for (i = 0; i < n_in; ++i)
        free(snapshot[i]);
    kernels_comparison_free(k);
    memset(k->outputs, 0, sizeof k->outputs);
    snprintf(k->difference, sizeof k->difference, "out of memory for the case's buffers");
    k->fast.kind = RUN_ERROR;
    snprintf(k->fast.message, sizeof k->fast.message, "out of memory for the case's buffers");
    return 0;
}

/* ---- the oracle ------------------------------------------------------------- */

static int is_validation_status(dmlref_status status)
{
    return status >= DMLREF_ERROR_UNSUPPORTED_OPERATOR && status <= DMLREF_ERROR_INVALID_ATTRIBUTE;
}

static char *dump(json_t *root)
{
    return json_dumps(root, JSON_COMPACT);
}

static dmlref_status parse_case(const char *text, dmlref_vector **v, dmlref_error *err)
{
    dmlref_vector_read_options as_case = {DMLREF_VECTOR_READ_CASE, CASE_MEMORY};
    return dmlref_vector_parse(text, strlen(text), "fuzz", &as_case, v, err);
}

static void set_expect_error(json_t *root, dmlref_status status, const char *rule)
{
    json_object_set_new(
        root, "expect_error",
        json_pack("{s:s, s:s}", "status", dmlref_status_name(status), "rule", rule));
}

/* The case as the oracle sees it: the expect_error of the JSON is dropped
   and decided again (a validation refusal, or out-of-range indices under the
   strict policy); the vector comes back evaluated.  NULL when the case is
   not one (malformed, or refused for another reason); then `message` says
   why. */
static dmlref_vector *oracle_case(const char *text, char **final_text, char *message,
                                  size_t capacity)
{
    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr);
    dmlref_vector *v = NULL;
    dmlref_error err;
    dmlref_status status;
    char *t;

    *final_text = NULL;
    if (!root) {
        snprintf(message, capacity, "not JSON: %s", jerr.text);
        return NULL;
    }
    json_object_del(root, "expect_error");
    t = dump(root);
    status = parse_case(t, &v, &err);
    if (is_validation_status(status)) {
        set_expect_error(root, status, err.rule);
        free(t);
        t = dump(root);
        status = parse_case(t, &v, &err);
    }
    if (status == DMLREF_OK &&
        (status = dmlref_vector_eval(v, 1, &err)) == DMLREF_ERROR_INDEX_OUT_OF_RANGE &&
        !dmlref_vector_expects_error(v, NULL, NULL)) {
        dmlref_vector_free(v);
        v = NULL;
        set_expect_error(root, status, err.rule);
        free(t);
        t = dump(root);
        if ((status = parse_case(t, &v, &err)) == DMLREF_OK)
            status = dmlref_vector_eval(v, 1, &err);
    }
    json_decref(root);
    if (status != DMLREF_OK) {
        snprintf(message, capacity, "%s", err.message);
        dmlref_vector_free(v);
        free(t);
        return NULL;
    }
    *final_text = t;
    return v;
}

typedef struct fuzzer {
    backend *b; /* NULL: the fast kernels, in this process (--kernels fast) */
    unsigned long runs, timeouts;
} fuzzer;

/* The thread counts the fast kernels run each case on, in this process. */
static const uint32_t k_fast_threads[2] = {1, 3};

/* Runs the case with the fast kernels and the reference kernels in this
   process (kernels_compare), on each of k_fast_threads.  The fast kernels'
   run is judged as a backend's would be (their outputs in the vector's
   buffers); then anything that sets them apart from the reference kernels
   (the status, the rule, the message, any byte of an output buffer) is a
   failure too, with the first difference as its message. */
static case_result run_fast_kernels(dmlref_vector *v, char *message, size_t capacity)
{
    const dmlref_binding *vout = dmlref_vector_outputs(v);
    case_result outcome = CASE_PASS;
    size_t t, o;
    for (t = 0; t < sizeof k_fast_threads / sizeof *k_fast_threads && outcome == CASE_PASS; ++t) {
        kernels_comparison k;
        int same = kernels_compare(v, k_fast_threads[t], &k);
        if (k.fast.kind == RUN_OUTPUTS)
            for (o = 0; o < k.output_count; ++o)
                if (k.outputs[o].data && vout[o].data)
                    memcpy(vout[o].data, k.outputs[o].data, (size_t)vout[o].size_in_bytes);
        outcome = judge_case(v, &k.fast, message, capacity);
        if (!same && outcome != CASE_FAIL && outcome != CASE_ERROR) {
            outcome = k.fast.kind == RUN_ERROR ? CASE_ERROR : CASE_FAIL;
            snprintf(message, capacity, "%.*s (the fast kernels on %u thread%s)",
                     (int)(capacity > 40 ? capacity - 40 : 0), k.difference, k_fast_threads[t],
                     k_fast_threads[t] == 1 ? "" : "s");
        }
        kernels_comparison_free(&k);
    }
    return outcome;
}

/* Decides a case with the oracle and runs it on the backend (or the fast
   kernels).  Returns the outcome; *vector gets the evaluated vector (caller
   frees), or NULL when the text is not a case (CASE_SKIP, `message` says
   why); *final_text (when not NULL) the case as judged, expect_error
   included (caller frees). */
static case_result try_case(fuzzer *f, const char *text, dmlref_vector **vector, char **final_text,
                            char *message, size_t capacity)
{
    dmlref_vector *v;
    backend_run run;
    char *judged;
    case_result outcome;

    *vector = NULL;
    if (final_text)
        *final_text = NULL;
    if (!(v = oracle_case(text, &judged, message, capacity)))
        return CASE_SKIP;
    ++f->runs;
    if (!f->b) {
        outcome = run_fast_kernels(v, message, capacity);
    } else {
        backend_run_case(f->b, v, dmlref_vector_feature_level(v), &run);
        outcome = judge_case(v, &run, message, capacity);
        if (run.kind == RUN_ERROR && strncmp(run.message, "timed out", 9) == 0)
            ++f->timeouts;
    }
    *vector = v;
    if (final_text)
        *final_text = judged;
    else
        free(judged);
    return outcome;
}

/* ---- shrinking ------------------------------------------------------------------ */

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

/* Every simplification of the case, in order of preference. */
static void list_moves(json_t *root, const shape *s, moves *l)
{
    static const char *const keys[3] = {"total_bytes", "flags", "alignment"};
    size_t R = rank_of(tensor_at(root, "InputTensor")), i, d, k;
    l->count = 0;
    for (i = 0; i < s->count; ++i)
        if (json_object_get(tensor_at(root, s->names[i]), "strides"))
            add_move(l, MV_PACKED, i, 0, 0, 0, 0);
    for (i = 0; i < s->count; ++i)
        for (k = 0; k < 3; ++k)
            if (json_object_get(tensor_at(root, s->names[i]), keys[k]))
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
    for (i = 0; i < s->inputs; ++i) { /* blocks to zero: whole, halves, quarters, ... */
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

/* Cuts dimension d of t to [lo, lo + len): sizes, and data when it has some. */
static void cut(json_t *t, size_t d, uint64_t lo, uint64_t len)
{
    json_t *data = json_object_get(t, "data");
    if (data)
        json_object_set_new(t, "data", slice_data(data, t, d, lo, len));
    set_size(t, d, len);
}

/* The case with one move made; NULL when it does not apply. */
static json_t *make_move(json_t *root, const shape *s, const move *m)
{
    static const char *const keys[3] = {"total_bytes", "flags", "alignment"};
    json_t *c = json_deep_copy(root), *t = tensor_at(c, s->names[m->tensor]);
    json_t *attributes = json_object_get(c, "attributes"), *data = json_object_get(t, "data");
    size_t R = rank_of(tensor_at(c, "InputTensor")), i;
    dmlref_tensor_data_type type = dtype_of(t);

    switch (m->kind) {
    case MV_PACKED:
        json_object_del(t, "strides");
        json_object_del(t, "total_bytes");
        break;
    case MV_KEY:
        json_object_del(t, keys[m->dim]);
        break;
    case MV_STRICT:
        json_object_del(c, "oob");
        break;
    case MV_DROP_DIM: {
        static const char *const counts[2] = {"InputDimensionCount", "IndicesDimensionCount"};
        json_t *x;
        size_t a;
        for (i = 0; i < s->count; ++i) {
            json_t *u = tensor_at(c, s->names[i]);
            if (!json_object_get(u, "sizes") ||
                (i >= s->inputs && s->op == DMLREF_OPERATOR_NONZERO_COORDINATES))
                continue;
            if (rank_of(u) != R || size_at(u, m->dim) != 1) {
                if (i < s->inputs && rank_of(u) == R)
                    goto not_applicable; /* an input's size there is not 1 */
                if (i >= s->inputs) {    /* an output: its shape is inferred again */
                    json_object_del(u, "sizes");
                    json_object_del(u, "strides");
                    json_object_del(u, "total_bytes");
                }
                continue;
            }
            json_array_remove(json_object_get(u, "sizes"), m->dim);
            if (json_object_get(u, "strides"))
                json_array_remove(json_object_get(u, "strides"), m->dim);
            json_object_del(u, "total_bytes");
        }
        if (s->op == DMLREF_OPERATOR_NONZERO_COORDINATES) {
            /* N columns are the last N dimensions: one fewer when d was one */
            json_t *co = tensor_at(c, s->names[2]);
            size_t last = rank_of(co) - 1;
            uint64_t N = size_at(co, last);
            if (rank_of(co) >= 2 && m->dim + N >= R) {
                if (N < 2)
                    goto not_applicable;
                set_size(co, last, N - 1);
            }
            reinfer_outputs(c, s);
        }
        if ((x = json_object_get(attributes, "Axis"))) {
            size_t axis = (size_t)json_integer_value(x);
            if (axis == m->dim)
                goto not_applicable;
            if (axis > m->dim && axis < R)
                json_integer_set(x, (json_int_t)axis - 1);
        }
        for (a = 0; a < 2; ++a) { /* GatherND's counts: one fewer when d was inside them */
            size_t count;
            if (!(x = json_object_get(attributes, counts[a])))
                continue;
            count = (size_t)json_integer_value(x);
            if (count >= 1 && count <= R && m->dim >= R - count) {
                if (count == 1)
                    goto not_applicable;
                json_integer_set(x, (json_int_t)count - 1);
            }
        }
        break;
    }
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
            goto not_applicable;
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
            goto not_applicable;
        json_array_set_new(data, (size_t)m->lo, json_integer(1));
        break;
    case MV_INDEX:
        if (m->lo >= json_array_size(data))
            goto not_applicable;
        json_array_set_new(data, (size_t)m->lo, integer_element(type, m->value));
        break;
    }
    return c;
not_applicable:
    json_decref(c);
    return NULL;
}

/* Shrinks a failing case: passes over every move, each kept when the
   backend still fails the same way, until a pass keeps none or the budget is
   spent.  Returns the smallest case's text (caller frees). */
static char *shrink(fuzzer *f, const char *text, case_result failing, const char *failing_message)
{
    json_error_t jerr;
    json_t *best = json_loads(text, 0, &jerr);
    unsigned long runs = f->runs + SHRINK_RUNS, timeouts = f->timeouts + SHRINK_TIMEOUTS;
    char want[DMLREF_ERROR_MESSAGE_CAPACITY + 300];
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
            char *candidate_text, m[DMLREF_ERROR_MESSAGE_CAPACITY + 256];
            char got[sizeof want];
            dmlref_vector *v;
            case_result outcome;
            int same = 0;
            if (!c || json_equal(c, best)) {
                json_decref(c);
                continue;
            }
            candidate_text = dump(c);
            outcome = try_case(f, candidate_text, &v, NULL, m, sizeof m);
            free(candidate_text);
            if (v) {
                failure_class(outcome, m, got, sizeof got);
                same = strcmp(got, want) == 0;
                dmlref_vector_free(v);
            }
            if (same) {
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

/* Names a shrunk case after what it became: <operator>/<dtype>/<rank>d/fuzz_seed<seed>_case<n>. */
static char *rename_case(char *text, uint64_t seed, unsigned long n)
{
    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr), *input;
    char name[200], op[40], dtype[16];
    const char *o, *d;
    size_t i;
    if (!root)
        return text;
    input = tensor_at(root, "InputTensor");
    o = json_string_value(json_object_get(root, "operator"));
    d = json_string_value(json_object_get(input, "dtype"));
    for (i = 0; o && o[i] && i + 1 < sizeof op; ++i)
        op[i] = (char)(o[i] >= 'A' && o[i] <= 'Z' ? o[i] - 'A' + 'a' : o[i]);
    op[o ? i : 0] = '\0';
    for (i = 0; d && d[i] && i + 1 < sizeof dtype; ++i)
        dtype[i] = (char)(d[i] >= 'A' && d[i] <= 'Z' ? d[i] - 'A' + 'a' : d[i]);
    dtype[d ? i : 0] = '\0';
    snprintf(name, sizeof name, "%s/%s/%zud/fuzz_seed%llu_case%lu", op, dtype, rank_of(input),
             (unsigned long long)seed, n);
    json_object_set_new(root, "name", json_string(name));
    free(text);
    text = dump(root);
    json_decref(root);
    return text;
}

/* "InputTensor [1], OutputCountTensor [1], ...": the shrunk case's shapes. */
static void describe_sizes(const dmlref_vector *v, char *out, size_t capacity)
{
    static const char *const gather[3] = {"InputTensor", "IndicesTensor", "OutputTensor"};
    static const char *const scatter[4] = {"InputTensor", "IndicesTensor", "UpdatesTensor",
                                           "OutputTensor"};
    static const char *const nonzero[3] = {"InputTensor", "OutputCountTensor",
                                           "OutputCoordinatesTensor"};
    const dmlref_operator_desc *op = dmlref_vector_operator(v);
    const dmlref_tensor_desc *t[4];
    const char *const *names = gather;
    size_t n = 3, i, used = 0;
    switch (op->Type) {
    case DMLREF_OPERATOR_GATHER_ELEMENTS: {
        const dmlref_gather_elements_desc *x = op->Desc;
        t[0] = x->InputTensor, t[1] = x->IndicesTensor, t[2] = x->OutputTensor;
        break;
    }
    case DMLREF_OPERATOR_SCATTER_ELEMENTS: {
        const dmlref_scatter_elements_desc *x = op->Desc;
        t[0] = x->InputTensor, t[1] = x->IndicesTensor, t[2] = x->UpdatesTensor;
        t[3] = x->OutputTensor, names = scatter, n = 4;
        break;
    }
    case DMLREF_OPERATOR_GATHER_ND: {
        const dmlref_gather_nd_desc *x = op->Desc;
        t[0] = x->InputTensor, t[1] = x->IndicesTensor, t[2] = x->OutputTensor;
        break;
    }
    case DMLREF_OPERATOR_GATHER_ND1: {
        const dmlref_gather_nd1_desc *x = op->Desc;
        t[0] = x->InputTensor, t[1] = x->IndicesTensor, t[2] = x->OutputTensor;
        break;
    }
    default: {
        const dmlref_nonzero_coordinates_desc *x = op->Desc;
        t[0] = x->InputTensor, t[1] = x->OutputCountTensor, t[2] = x->OutputCoordinatesTensor;
        names = nonzero;
        break;
    }
    }
    out[0] = '\0';
    for (i = 0; i < n && used + 40 < capacity; ++i) {
        uint32_t d;
        used += (size_t)snprintf(out + used, capacity - used, "%s%s [", i ? ", " : "", names[i]);
        for (d = 0; d < t[i]->DimensionCount && used + 16 < capacity; ++d)
            used += (size_t)snprintf(out + used, capacity - used, "%s%u", d ? ", " : "",
                                     t[i]->Sizes[d]);
        used += (size_t)snprintf(out + used, capacity - used, "]");
    }
}

/* ---- drawing the cases ----------------------------------------------------------- */

enum case_kind { KIND_VALID, KIND_INVALID, KIND_BOUNDARY, KIND_OUT_OF_RANGE, KINDS };

typedef struct tally {
    unsigned long kinds[KINDS], clamped;
    char rules[64][24]; /* the distinct expect_error rules of the invalid cases */
    size_t rule_count;
} tally;

/* The case text of kind `kind` made from a drawn valid case; NULL when it
   cannot be made (the valid case is used instead). */
static char *make_kind(const char *text, enum case_kind kind, prng *r, int *clamped,
                       const char **mutation)
{
    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr), *complete;
    dmlref_vector *v = NULL;
    dmlref_error err;
    char *written, *out = NULL, name[256];
    shape s;
    int attempt;

    *clamped = 0;
    *mutation = NULL;
    if (!root || !shape_of(root, &s)) {
        json_decref(root);
        return NULL;
    }
    if (kind == KIND_BOUNDARY || kind == KIND_OUT_OF_RANGE) {
        int clamp = (int)pick(r, 2),
            made = s.op == DMLREF_OPERATOR_NONZERO_COORDINATES
                       ? make_specials(root, r)
                       : make_boundary(root, &s, r, kind == KIND_OUT_OF_RANGE, clamp);
        if (made) {
            const char *base = json_string_value(json_object_get(root, "name"));
            snprintf(name, sizeof name, "%.150s_%s%s", base ? base : "fuzz",
                     s.op == DMLREF_OPERATOR_NONZERO_COORDINATES ? "specials"
                     : kind == KIND_OUT_OF_RANGE                 ? "out_of_range"
                                                                 : "boundary",
                     clamp && s.op != DMLREF_OPERATOR_NONZERO_COORDINATES ? "_clamp" : "");
            json_object_set_new(root, "name", json_string(name));
            *clamped = clamp && s.op != DMLREF_OPERATOR_NONZERO_COORDINATES;
            out = dump(root);
        }
        json_decref(root);
        return out;
    }
    /* an invalid descriptor: mutations of the complete case (outputs' sizes
       written out) until the library refuses one at validation */
    json_decref(root);
    if (parse_case(text, &v, &err) != DMLREF_OK ||
        dmlref_vector_write_with(v, DMLREF_VECTOR_WRITE_CASE, &written, NULL, &err) != DMLREF_OK) {
        dmlref_vector_free(v);
        return NULL;
    }
    dmlref_vector_free(v);
    complete = json_loads(written, 0, &jerr);
    free(written);
    for (attempt = 0; complete && attempt < MUTATION_TRIES && !out; ++attempt) {
        enum mutation m = (enum mutation)pick(r, MUTATIONS);
        json_t *c = json_deep_copy(complete);
        char *candidate;
        if (mutate(c, &s, m, r)) {
            const char *base = json_string_value(json_object_get(c, "name"));
            snprintf(name, sizeof name, "%.150s_error_%s", base ? base : "fuzz",
                     k_mutation_names[m]);
            json_object_set_new(c, "name", json_string(name));
            candidate = dump(c);
            v = NULL;
            if (is_validation_status(parse_case(candidate, &v, &err))) {
                out = candidate;
                *mutation = k_mutation_names[m];
            } else {
                free(candidate);
            }
            dmlref_vector_free(v);
        }
        json_decref(c);
    }
    json_decref(complete);
    return out;
}

static void count_rule(tally *t, const dmlref_vector *v)
{
    dmlref_status status;
    const char *rule;
    size_t i;
    if (!dmlref_vector_expects_error(v, &status, &rule) ||
        status == DMLREF_ERROR_INDEX_OUT_OF_RANGE)
        return;
    for (i = 0; i < t->rule_count; ++i)
        if (strcmp(t->rules[i], rule) == 0)
            return;
    if (t->rule_count < 64)
        snprintf(t->rules[t->rule_count++], sizeof t->rules[0], "%s", rule);
}

static int compare_rules(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* ---- the command --------------------------------------------------------------- */

int fuzz_run(const fuzz_options *o)
{
    const char *out_dir = o->out_dir;
    int fast_kernels = o->fast_kernels, cases_given = o->cases_given;
    uint64_t seed = o->seed, cases = o->cases, state, shrink_limit = o->shrink_limit;
    double seconds = o->seconds;
    unsigned long passed = 0, failed = 0, skipped = 0, unwritten = 0, n;
    fuzzer f;
    tally counts;
    double start;
    int on_terminal = is_terminal(stderr);
    size_t i;

    if (cases_given && cases == 0) {
        fprintf(stderr, "dmlref fuzz: --cases 0 runs no case, so nothing would be judged\n");
        return EXIT_BAD_INPUT;
    }
    if (!cases_given && seconds == 0)
        cases = 1000;

    memset(&f, 0, sizeof f);
    memset(&counts, 0, sizeof counts);
    start = clock_seconds(); /* --time counts the backend's start */
    if (!fast_kernels && !(f.b = backend_open(o->library, o->command, o->options, o->timeout)))
        return EXIT_BAD_INPUT;
    printf("dmlref fuzz %s: %s, seed %llu\n", dmlref_version_string(),
           f.b ? backend_name(f.b) : "the fast kernels against the reference kernels, in process",
           (unsigned long long)seed);
    state = seed;
    for (n = 0;; ++n) {
        char *text, *made, *judged = NULL, message[DMLREF_ERROR_MESSAGE_CAPACITY + 256] = "";
        const char *mutation;
        size_t length;
        dmlref_vector *v;
        case_result outcome;
        enum case_kind kind = KIND_VALID;
        prng r;
        uint32_t roll;
        int clamped;
        if ((cases && n >= cases) || (seconds > 0 && clock_seconds() - start >= seconds))
            break;
        if (!random_case(&state, o->op, &text, &length))
            break;
        /* what this case becomes: its own stream, from the seed and n */
        r.state = seed ^ (0xD1B54A32D192ED03ull * (n + 1));
        roll = pick(&r, 100);
        kind = roll < PERCENT_INVALID                      ? KIND_INVALID
               : roll < PERCENT_INVALID + PERCENT_BOUNDARY ? KIND_BOUNDARY
               : roll < PERCENT_INVALID + PERCENT_BOUNDARY + PERCENT_OUT_OF_RANGE
                   ? KIND_OUT_OF_RANGE
                   : KIND_VALID;
        made = kind == KIND_VALID ? NULL : make_kind(text, kind, &r, &clamped, &mutation);
        if (made) {
            free(text);
            text = made;
            counts.clamped += (unsigned long)clamped;
        } else {
            kind = KIND_VALID;
        }
        ++counts.kinds[kind];
        outcome = try_case(&f, text, &v, &judged, message, sizeof message);
        if (v && kind == KIND_INVALID)
            count_rule(&counts, v);
        if (!v) {
            ++skipped;
            printf("SKIP case %lu: the reference cannot run it: %s\n", n, message);
        } else if (outcome == CASE_PASS)
            ++passed;
        else if (outcome == CASE_SKIP)
            ++skipped;
        else if (failed >= shrink_limit) {
            ++failed;
            printf("%s case %lu (%s): %s\n", outcome == CASE_FAIL ? "FAIL" : "ERROR", n,
                   dmlref_vector_name(v), message);
        } else {
            char *small, path[4096], shrunk_message[DMLREF_ERROR_MESSAGE_CAPACITY + 256];
            char sizes[512] = "";
            dmlref_vector *shrunk = NULL;
            unsigned long runs_before = f.runs;
            int written = 0;
            ++failed;
            if (on_terminal)
                fprintf(stderr, "\rdmlref fuzz: case %lu failed, shrinking...", n);
            small = shrink(&f, judged, outcome, message);
            if (small)
                small = rename_case(small, seed, n);
            if (small &&
                try_case(&f, small, &shrunk, NULL, shrunk_message, sizeof shrunk_message) ==
                    outcome &&
                shrunk) {
                char *text_out;
                size_t text_length;
                if (snprintf(path, sizeof path, "%s/case_%lu.json", out_dir, n) >= (int)sizeof path)
                    fprintf(stderr, "dmlref fuzz: %s: the path is too long\n", out_dir);
                else if (dmlref_vector_write(shrunk, &text_out, &text_length, NULL) != DMLREF_OK)
                    fprintf(stderr, "dmlref fuzz: %s: cannot write the shrunk vector\n", path);
                else {
                    written = write_file(path, text_out, text_length);
                    free(text_out);
                }
                unwritten += !written;
                describe_sizes(shrunk, sizes, sizeof sizes);
            }
            if (on_terminal)
                fputc('\n', stderr);
            printf("%s case %lu (%s): %s\n", outcome == CASE_FAIL ? "FAIL" : "ERROR", n,
                   dmlref_vector_name(v), message);
            if (sizes[0] && written)
                printf("    shrunk in %lu runs to %s: %s: %s\n", f.runs - runs_before, path, sizes,
                       shrunk_message);
            else if (sizes[0]) /* only files that exist are named */
                printf("    shrunk in %lu runs, not written (see the error): %s: %s\n",
                       f.runs - runs_before, sizes, shrunk_message);
            else
                printf("    not shrunk: the smallest case did not fail again\n");
            dmlref_vector_free(shrunk);
            free(small);
        }
        dmlref_vector_free(v);
        free(judged);
        free(text);
        fflush(stdout);
        if (on_terminal)
            fprintf(stderr, "\rdmlref fuzz: %lu cases, %lu passed, %lu failed, %lu skipped", n + 1,
                    passed, failed, skipped);
    }
    if (on_terminal)
        fputc('\n', stderr);
    if (f.b)
        backend_close(f.b);
    if (counts.rule_count > 1) /* qsort may not be given NULL, even for 0 */
        qsort(counts.rules, counts.rule_count, sizeof counts.rules[0], compare_rules);
    printf("cases: %lu valid, %lu with an invalid descriptor, %lu with boundary indices, "
           "%lu with out-of-range indices; %lu under \"oob\": \"clamp\"; rules broken:",
           counts.kinds[KIND_VALID], counts.kinds[KIND_INVALID], counts.kinds[KIND_BOUNDARY],
           counts.kinds[KIND_OUT_OF_RANGE], counts.clamped);
    for (i = 0; i < counts.rule_count; ++i)
        printf(" %s", counts.rules[i]);
    printf("%s\n", counts.rule_count ? "" : " none");
    printf("%lu passed, %lu failed, %lu skipped\n", passed, failed, skipped);
    if (unwritten) {
        fprintf(stderr, "dmlref fuzz: %lu shrunk %s could not be written to %s\n", unwritten,
                unwritten == 1 ? "vector" : "vectors", out_dir);
        return EXIT_BAD_INPUT;
    }
    if (failed)
        return EXIT_DIFFERENCE;
    if (!passed) {
        if (n == 0)
            fprintf(stderr, "dmlref fuzz: no case ran within --time %g s, so nothing was judged\n",
                    seconds);
        else
            fprintf(stderr, "dmlref fuzz: all %lu cases were skipped, so nothing was compared\n",
                    n);
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}
