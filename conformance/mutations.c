/*
 * mutations.c - the table of mutations dmlref fuzz draws its invalid
 * descriptors from: each one breaks (usually) one rule of a valid case's
 * JSON (the outputs' sizes written out).  The fuzzer keeps a mutated case
 * once the library refuses it at validation; which rule it broke is the
 * library's word, never the mutation's.
 *
 * Every mutation gets the same site, drawn first (mutate()): a tensor of the
 * case and one of its dimensions.  The order of the table and of the draws
 * is part of what a seed gives.
 */
#include "conformance/fuzz_internal.h"

#define DATA_LIMIT 4096u /* a mutated input with more elements gets a generator */

static const dmlref_feature_level k_levels[15] = {
    DMLREF_FEATURE_LEVEL_1_0, DMLREF_FEATURE_LEVEL_2_0, DMLREF_FEATURE_LEVEL_2_1,
    DMLREF_FEATURE_LEVEL_3_0, DMLREF_FEATURE_LEVEL_3_1, DMLREF_FEATURE_LEVEL_4_0,
    DMLREF_FEATURE_LEVEL_4_1, DMLREF_FEATURE_LEVEL_5_0, DMLREF_FEATURE_LEVEL_5_1,
    DMLREF_FEATURE_LEVEL_5_2, DMLREF_FEATURE_LEVEL_6_0, DMLREF_FEATURE_LEVEL_6_1,
    DMLREF_FEATURE_LEVEL_6_2, DMLREF_FEATURE_LEVEL_6_3, DMLREF_FEATURE_LEVEL_6_4};

/* ---- editing the case ----------------------------------------------------------- */

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

/* ---- the mutations, in the table's order ------------------------------------------- */

static int mutate_axis(const mutation_site *m)
{
    json_t *axis = json_object_get(m->attributes, "Axis");
    if (!axis)
        return 0;
    json_integer_set(axis, pick(m->r, 4) ? (json_int_t)(rank_of(tensor_at(m->root, "InputTensor")) +
                                                        pick(m->r, 3))
                                         : (json_int_t)4294967295u);
    return 1;
}

static int mutate_size_zero(const mutation_site *m)
{
    set_size(m->t, m->d, 0);
    resize_data(m->t, 0);
    json_object_del(m->t, "total_bytes");
    return 1;
}

/* one size one more, one fewer, or twice */
static int mutate_size(const mutation_site *m)
{
    uint64_t size = size_at(m->t, m->d);
    uint32_t how = pick(m->r, 3);
    set_size(m->t, m->d, how == 0 ? size + 1 : how == 1 && size > 1 ? size - 1 : 2 * size);
    resize_data(m->t, elements_of(m->t));
    json_object_del(m->t, "total_bytes");
    return 1;
}

/* a leading 1 more, or one dimension fewer */
static int mutate_rank(const mutation_site *m)
{
    json_t *sizes = json_object_get(m->t, "sizes"), *strides = json_object_get(m->t, "strides");
    if (m->rank < 8 && (m->rank == 1 || pick(m->r, 2))) {
        json_array_insert_new(sizes, 0, json_integer(1));
        if (strides)
            json_array_insert_new(strides, 0, json_integer(1));
    } else {
        json_array_remove(sizes, m->d);
        if (strides)
            json_array_remove(strides, m->d);
        resize_data(m->t, elements_of(m->t));
    }
    json_object_del(m->t, "total_bytes");
    return 1;
}

/* an output (or Scatter's updates) of another type */
static int mutate_type_mismatch(const mutation_site *m)
{
    const shape *s = m->s;
    dmlref_tensor_data_type other;
    size_t which = s->op == DMLREF_OPERATOR_SCATTER_ELEMENTS      ? 2 + pick(m->r, 2)
                   : s->op == DMLREF_OPERATOR_NONZERO_COORDINATES ? 1 + pick(m->r, 2)
                                                                  : 2;
    json_t *t = tensor_at(m->root, s->names[which]);
    do
        other = suite_data_types[pick(m->r, 11)];
    while (other == dtype_of(t));
    set_type(t, other);
    return 1;
}

/* every data tensor of another type, maybe at a lower level */
static int mutate_data_type(const mutation_site *m)
{
    const shape *s = m->s;
    dmlref_tensor_data_type other = suite_data_types[pick(m->r, 11)];
    size_t i;
    for (i = 0; i < s->count; ++i)
        if (i == 0 || (s->op != DMLREF_OPERATOR_NONZERO_COORDINATES && i != 1))
            set_type(tensor_at(m->root, s->names[i]), other);
    if (pick(m->r, 2))
        set_level(m->root, k_levels[3 + pick(m->r, 4)]); /* 3_0 to 4_1 */
    return 1;
}

static int mutate_index_type(const mutation_site *m)
{
    static const dmlref_tensor_data_type bad[7] = {
        DMLREF_TENSOR_DATA_TYPE_INT8,    DMLREF_TENSOR_DATA_TYPE_INT16,
        DMLREF_TENSOR_DATA_TYPE_UINT8,   DMLREF_TENSOR_DATA_TYPE_UINT16,
        DMLREF_TENSOR_DATA_TYPE_FLOAT16, DMLREF_TENSOR_DATA_TYPE_FLOAT32,
        DMLREF_TENSOR_DATA_TYPE_FLOAT64};
    json_t *t = tensor_at(m->root, "IndicesTensor");
    if (!t)
        return 0;
    set_type(t, bad[pick(m->r, 7)]);
    return 1;
}

/* a lower feature level: the operator, index types, ranks, types */
static int mutate_level(const mutation_site *m)
{
    dmlref_feature_level level = DMLREF_FEATURE_LEVEL_LATEST;
    const char *name = json_string_value(json_object_get(m->root, "feature_level"));
    size_t i;
    if (name)
        dmlref_feature_level_from_name(name, &level);
    for (i = 0; i < 15 && k_levels[i] < level; ++i)
        ;
    if (i == 0)
        return 0;
    set_level(m->root, k_levels[pick(m->r, (uint32_t)i)]);
    return 1;
}

static int mutate_flags(const mutation_site *m)
{
    json_object_set_new(m->t, "flags",
                        json_integer(!m->is_input && pick(m->r, 2)
                                         ? 1
                                         : (json_int_t)((uint64_t)1 << (1 + pick(m->r, 31)))));
    return 1;
}

static int mutate_alignment(const mutation_site *m)
{
    static const uint32_t odd[6] = {3, 5, 6, 12, 24, 100};
    uint32_t alignment = odd[pick(m->r, 6)];
    if (pick(m->r, 2)) /* a power of two below the minimum, 16 (R-TD-14) */
        alignment = 1u << pick(m->r, 4);
    json_object_set_new(m->t, "alignment", json_integer(alignment));
    return 1;
}

static int mutate_total_below_minimum(const mutation_site *m)
{
    uint64_t minimum = minimum_bytes(m->t);
    if (minimum == 0)
        return 0;
    json_object_set_new(m->t, "total_bytes", json_integer((json_int_t)(draw(m->r) % minimum)));
    return 1;
}

/* more than 2^32-1 elements' worth of bytes (R-TD-13, D13) */
static int mutate_total_too_large(const mutation_site *m)
{
    json_object_set_new(m->t, "total_bytes",
                        json_integer((json_int_t)(((uint64_t)m->esize << 32) + pick(m->r, 4096))));
    return 1;
}

static int mutate_too_many_elements(const mutation_site *m)
{
    json_t *t = m->t;
    prng *r = m->r;
    size_t d = m->d, rank = m->rank;
    set_size(t, d, 4294967295u);
    if (rank > 1)
        set_size(t, (d + 1 + pick(r, (uint32_t)rank - 1)) % rank, 2 + pick(r, 3));
    json_object_del(t, "strides");
    json_object_del(t, "total_bytes");
    resize_data(t, elements_of(t));
    return 1;
}

static int mutate_strides_overflow(const mutation_site *m)
{
    json_t *strides = json_object_get(m->t, "strides");
    if (!strides) {
        json_object_set_new(m->t, "strides", packed_strides(m->t));
        strides = json_object_get(m->t, "strides");
    }
    set_size(m->t, m->d, 4294967295u);
    json_array_set_new(strides, m->d, json_integer((json_int_t)4294967295u));
    json_object_del(m->t, "total_bytes");
    resize_data(m->t, elements_of(m->t));
    return 1;
}

/* two elements of an output at one address */
static int mutate_output_aliasing(const mutation_site *m)
{
    const shape *s = m->s;
    size_t big[8], n = 0, i;
    size_t which = s->inputs + pick(m->r, (uint32_t)(s->count - s->inputs));
    json_t *t = tensor_at(m->root, s->names[which]), *strides;
    for (i = 0; i < rank_of(t); ++i)
        if (size_at(t, i) > 1)
            big[n++] = i;
    if (n == 0)
        return 0;
    if (!json_object_get(t, "strides"))
        json_object_set_new(t, "strides", packed_strides(t));
    strides = json_object_get(t, "strides");
    json_object_del(t, "total_bytes");
    if (n >= 2 && pick(m->r, 4) == 0) { /* interleaved, too wide for dmlref to decide */
        json_array_set_new(strides, big[0], json_integer(134217728));
        json_array_set_new(strides, big[1], json_integer(201326592));
    } else if (n >= 2 && pick(m->r, 2)) { /* two dimensions with one stride */
        json_array_set_new(strides, big[1],
                           json_integer(json_integer_value(json_array_get(strides, big[0]))));
    } else {
        json_array_set_new(strides, big[pick(m->r, (uint32_t)n)], json_integer(0));
    }
    return 1;
}

static int mutate_nd_counts(const mutation_site *m)
{
    static const char *const names[3] = {"InputDimensionCount", "IndicesDimensionCount",
                                         "BatchDimensionCount"};
    size_t a = pick(m->r, m->s->op == DMLREF_OPERATOR_GATHER_ND1 ? 3 : 2);
    json_t *x = json_object_get(m->attributes, names[a]);
    json_int_t v = x ? json_integer_value(x) : 0;
    json_int_t D = (json_int_t)rank_of(tensor_at(m->root, "InputTensor"));
    json_int_t choices[4];
    if (!x)
        return 0;
    choices[0] = a == 2 ? 4294967295 : 0;
    choices[1] = a == 2 ? v + 1 : D + 1;
    choices[2] = v > 0 ? v - 1 : v + 1;
    choices[3] = v + 1;
    json_integer_set(x, choices[pick(m->r, 4)]);
    return 1;
}

/* the coordinates' N or M, or a count that is not a scalar */
static int mutate_nonzero_shape(const mutation_site *m)
{
    json_t *co = tensor_at(m->root, "OutputCoordinatesTensor");
    size_t last;
    if (!co)
        return 0;
    last = rank_of(co) - 1;
    json_object_del(co, "strides");
    json_object_del(co, "total_bytes");
    switch (pick(m->r, 4)) {
    case 0:
        set_size(co, last, size_at(co, last) + 1 + pick(m->r, 2)); /* N above the rank */
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
        json_t *count = tensor_at(m->root, "OutputCountTensor");
        json_object_del(count, "strides");
        set_size(count, pick(m->r, (uint32_t)rank_of(count)), 2);
        break;
    }
    }
    return 1;
}

/* the shapes of the first levels' tables, one rule of them broken */
static int mutate_early_level(const mutation_site *m)
{
    const shape *s = m->s;
    json_t *root = m->root, *axis;
    prng *r = m->r;
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
    if ((axis = json_object_get(m->attributes, "Axis")))
        json_integer_set(axis, json_integer_value(axis) + (json_int_t)(4 - R));
    set_level(root, s->op == DMLREF_OPERATOR_SCATTER_ELEMENTS && pick(r, 2)
                        ? DMLREF_FEATURE_LEVEL_2_0
                        : DMLREF_FEATURE_LEVEL_2_1);
    return 1;
}

/* ---- the table ------------------------------------------------------------------------ */

const mutation mutation_table[] = {
    {"axis", mutate_axis},
    {"size_zero", mutate_size_zero},
    {"size", mutate_size},
    {"rank", mutate_rank},
    {"type_mismatch", mutate_type_mismatch},
    {"data_type", mutate_data_type},
    {"index_type", mutate_index_type},
    {"feature_level", mutate_level},
    {"flags", mutate_flags},
    {"alignment", mutate_alignment},
    {"total_bytes_below_minimum", mutate_total_below_minimum},
    {"total_bytes_too_large", mutate_total_too_large},
    {"too_many_elements", mutate_too_many_elements},
    {"strides_overflow", mutate_strides_overflow},
    {"output_aliasing", mutate_output_aliasing},
    {"nd_counts", mutate_nd_counts},
    {"nonzero_shape", mutate_nonzero_shape},
    {"early_level", mutate_early_level},
};
const size_t mutation_count = sizeof mutation_table / sizeof mutation_table[0];

int mutate(json_t *root, const shape *s, const mutation *m, prng *r)
{
    mutation_site site;
    site.root = root;
    site.attributes = json_object_get(root, "attributes");
    site.s = s;
    site.r = r;
    site.which = pick(r, (uint32_t)s->count);
    site.t = tensor_at(root, s->names[site.which]);
    site.is_input = site.which < s->inputs;
    site.esize = dmlref_data_type_size(dtype_of(site.t));
    site.rank = rank_of(site.t);
    site.d = pick(r, (uint32_t)site.rank);
    return m->apply(&site);
}
