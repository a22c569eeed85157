/*
 * generate.c - the case generator (generate.h).
 *
 *   - The stream and the values: SplitMix64; readable data values, random
 *     bits, densities of zeros, the specials; index values of every kind.
 *     Every value but the suite's index classes is a function of the salt
 *     its tensor drew and of its canonical element (the first logical
 *     element at its address), so a broadcast tensor holds it everywhere
 *     and any thread count fills the same bytes.
 *   - Layouts: strides from a layout kind, per tensor.
 *   - Drawing a case: gen_make(), in the suite's order.
 *   - Writing it: buffers (gen_fill) or JSON (gen_case_text).
 *   - The operators: one row each, and the functions the rows name.
 */
#include "suite/generate.h"

#include "core/core.h"

#include "base/printf_like.h"
#include "dmlref/vector.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))
#define NO_WALK UINT32_MAX

/* What gen_make() draws with: the stream, the request, and how many
   indices past the input's it may draw along an axis (capped when a case is
   drawn again). */
typedef struct gen {
    gen_rng *r;
    const gen_request *q;
    uint32_t past;
} gen;

/* One operator's own part (generate.h). */
typedef struct gen_operator {
    dmlref_operator_type type;
    const char *params; /* its shape parameters' names, space-separated */
    const dmlref_tensor_data_type *types;
    size_t type_count;             /* types: NULL, all 11 */
    unsigned layouts[GEN_TENSORS]; /* bit k: tensor i takes the suite's layout k */
    uint32_t axis_past; /* indices past the input's along the axis it allows (GEN_DRAW: any) */
    int draws_outputs;  /* its outputs' sizes are drawn, not inferred: JSON states them */
    /* draws the parameters drawn before any size (NULL: none) */
    void (*draw_params)(gen *g, gen_case *c);
    /* every tensor's sizes (outputs: their types too); 0 when they cannot be had */
    int (*draw_shapes)(gen *g, gen_case *c);
    /* the size the index element at `coords` is checked against, and the index
       tensor's dimension along which neighbours walk it (NO_WALK: none); 0 for
       a malformed case; NULL: no index tensor */
    int (*index_place)(const gen_case *c, const uint32_t *coords, uint64_t *bound, uint32_t *walk);
    gen_sweep sweep;
} gen_operator;

static const gen_operator *row_of(dmlref_operator_type op);

/* ---- the stream ---------------------------------------------------------------- */

uint64_t gen_next(gen_rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint32_t gen_below(gen_rng *r, uint32_t bound)
{
    return bound ? (uint32_t)(gen_next(r) % bound) : 0;
}

/* The first value of the stream that starts at `key`: a hash of the key. */
static uint64_t hash_of(uint64_t key)
{
    gen_rng h;
    h.state = key;
    return gen_next(&h);
}

/* ---- types and elements ---------------------------------------------------------- */

const dmlref_tensor_data_type gen_all_data_types[11] = {
    DMLREF_TENSOR_DATA_TYPE_FLOAT32, DMLREF_TENSOR_DATA_TYPE_FLOAT16,
    DMLREF_TENSOR_DATA_TYPE_UINT32,  DMLREF_TENSOR_DATA_TYPE_UINT16,
    DMLREF_TENSOR_DATA_TYPE_UINT8,   DMLREF_TENSOR_DATA_TYPE_INT32,
    DMLREF_TENSOR_DATA_TYPE_INT16,   DMLREF_TENSOR_DATA_TYPE_INT8,
    DMLREF_TENSOR_DATA_TYPE_FLOAT64, DMLREF_TENSOR_DATA_TYPE_UINT64,
    DMLREF_TENSOR_DATA_TYPE_INT64};
const dmlref_tensor_data_type gen_index_types[4] = {
    DMLREF_TENSOR_DATA_TYPE_UINT32, DMLREF_TENSOR_DATA_TYPE_INT32, DMLREF_TENSOR_DATA_TYPE_UINT64,
    DMLREF_TENSOR_DATA_TYPE_INT64};

static int is_signed_index(dmlref_tensor_data_type type)
{
    return type == DMLREF_TENSOR_DATA_TYPE_INT32 || type == DMLREF_TENSOR_DATA_TYPE_INT64;
}

static int is_float(dmlref_tensor_data_type type)
{
    return type == DMLREF_TENSOR_DATA_TYPE_FLOAT16 || type == DMLREF_TENSOR_DATA_TYPE_FLOAT32 ||
           type == DMLREF_TENSOR_DATA_TYPE_FLOAT64;
}

/* The low bits an element of `type` has. */
static uint64_t width_mask(dmlref_tensor_data_type type)
{
    uint32_t size = dmlref_data_type_size(type);
    return size >= 8 ? UINT64_MAX : ((uint64_t)1 << (8 * size)) - 1;
}

static uint64_t sign_bit(dmlref_tensor_data_type type)
{
    return (uint64_t)1 << (8 * dmlref_data_type_size(type) - 1);
}

/* The value of canonical element k: distinct for distinct k while the type
   allows, and easy to read: +-(k+1)/2 for floats, scaled integers that
   spread over the type's range for the rest (odd multipliers keep distinct
   k apart modulo 2^bits); the second data input (salt) has others. */
static uint64_t readable_bits(dmlref_tensor_data_type type, uint64_t k, int salt)
{
    double half = (double)(k + 1) * 0.5 + (salt ? 0.25 : 0.0);
    double f = (k % 2) ? -half : half;
    uint64_t m = k + 1 + (uint64_t)(salt ? 100 : 0);
    switch (type) {
    case DMLREF_TENSOR_DATA_TYPE_FLOAT64: {
        uint64_t b;
        memcpy(&b, &f, 8);
        return b;
    }
    case DMLREF_TENSOR_DATA_TYPE_FLOAT32: {
        float x = (float)f;
        uint32_t b;
        memcpy(&b, &x, 4);
        return b;
    }
    case DMLREF_TENSOR_DATA_TYPE_FLOAT16: {
        /* |f| <= 1024 and a multiple of 1/4: exact as a half */
        double a = f < 0 ? -f : f;
        int e = 0;
        uint64_t sign = f < 0 ? 0x8000u : 0;
        while (a >= 2.0) {
            a /= 2.0;
            ++e;
        }
        while (a < 1.0) {
            a *= 2.0;
            --e;
        }
        return sign | ((uint64_t)(e + 15) << 10) | (uint64_t)((a - 1.0) * 1024.0);
    }
    case DMLREF_TENSOR_DATA_TYPE_INT8:
        return (uint64_t)(k % 2 ? -(int64_t)(m % 128) : (int64_t)(m % 128)) & 0xFF;
    case DMLREF_TENSOR_DATA_TYPE_UINT8:
        return m & 0xFF;
    case DMLREF_TENSOR_DATA_TYPE_INT16:
        return (uint64_t)(k % 2 ? -(int64_t)(m * 251) : (int64_t)(m * 251)) & 0xFFFF;
    case DMLREF_TENSOR_DATA_TYPE_UINT16:
        return (m * 1021) & 0xFFFF;
    case DMLREF_TENSOR_DATA_TYPE_INT32:
        return (uint64_t)(k % 2 ? -(int64_t)(m * 16777259) : (int64_t)(m * 16777259)) & 0xFFFFFFFFu;
    case DMLREF_TENSOR_DATA_TYPE_UINT32:
        return (m * 40000003u) & 0xFFFFFFFFu;
    case DMLREF_TENSOR_DATA_TYPE_INT64:
        return m * 0x0123456789ABCDEFull;
    default:
        return m * 0x9E3779B97F4A7C15ull; /* UINT64 */
    }
}

/* NaN payloads, both zeros, subnormals and infinities of each float type. */
static uint64_t float_special(dmlref_tensor_data_type type, uint32_t choice)
{
    static const uint64_t f16[6] = {0x7E01u, 0xFD00u, 0x8000u, 0x0001u, 0xFC00u, 0x7C00u};
    static const uint64_t f32[6] = {0x7FC00001u, 0xFFA00000u, 0x80000000u,
                                    0x00000001u, 0xFF800000u, 0x7F800000u};
    static const uint64_t f64[6] = {0x7FF8000000000001ull, 0xFFF4000000000000ull,
                                    0x8000000000000000ull, 0x0000000000000001ull,
                                    0xFFF0000000000000ull, 0x7FF0000000000000ull};
    return type == DMLREF_TENSOR_DATA_TYPE_FLOAT16   ? f16[choice % 6]
           : type == DMLREF_TENSOR_DATA_TYPE_FLOAT32 ? f32[choice % 6]
                                                     : f64[choice % 6];
}

uint32_t gen_zero_edge_count(dmlref_tensor_data_type type)
{
    return is_float(type) ? 8 : 5;
}

uint64_t gen_zero_edge(dmlref_tensor_data_type type, uint32_t choice)
{
    /* 2^-149 of each type; for FLOAT16, its smallest subnormal 2^-24 */
    static const uint64_t tiny[3] = {0x0001u, 0x00000001u, 0x36A0000000000000ull};
    static const uint64_t one[3] = {0x3C00u, 0x3F800000u, 0x3FF0000000000000ull};
    static const uint64_t nan[3] = {0x7E00u, 0x7FC00000u, 0x7FF8000000000000ull};
    static const uint64_t inf[3] = {0x7C00u, 0x7F800000u, 0x7FF0000000000000ull};
    uint32_t f = type == DMLREF_TENSOR_DATA_TYPE_FLOAT16   ? 0
                 : type == DMLREF_TENSOR_DATA_TYPE_FLOAT32 ? 1
                                                           : 2;
    uint64_t top = sign_bit(type);
    if (is_float(type)) {
        switch (choice) {
        case 0:
            return 0;
        case 1:
            return top; /* -0.0 */
        case 2:
            return tiny[f];
        case 3:
            return top | tiny[f];
        case 4:
            return nan[f];
        case 5:
            return inf[f];
        case 6:
            return top | inf[f];
        default:
            return one[f];
        }
    }
    switch (choice) {
    case 0:
        return 0;
    case 1:
        return 1;
    case 2:
        return width_mask(type); /* -1, or the largest */
    case 3:
        return top;
    default:
        return top - 1;
    }
}

/* ---- index values ------------------------------------------------------------------ */

/* v as bits of an index type: a 4-byte type's in the low 32 bits. */
static uint64_t index_bits(dmlref_tensor_data_type type, uint64_t v)
{
    return dmlref_data_type_size(type) == 4 ? v & 0xFFFFFFFFu : v;
}

uint32_t gen_boundary_count(dmlref_tensor_data_type type)
{
    return is_signed_index(type) ? 4 : 2;
}

uint64_t gen_boundary_index(uint64_t s, dmlref_tensor_data_type type, uint32_t choice)
{
    switch (choice) {
    case 0:
        return 0;
    case 1:
        return index_bits(type, s - 1);
    case 2:
        return index_bits(type, (uint64_t)0 - s); /* -s */
    default:
        return index_bits(type, UINT64_MAX); /* -1 */
    }
}

uint32_t gen_out_of_range_count(dmlref_tensor_data_type type, int clamp)
{
    return is_signed_index(type) ? 4 : clamp ? 3 : 5;
}

uint64_t gen_out_of_range_index(uint64_t s, dmlref_tensor_data_type type, uint32_t choice)
{
    int wide = dmlref_data_type_size(type) == 8;
    uint64_t half = wide ? (uint64_t)1 << 63 : (uint64_t)1 << 31;
    uint64_t all = wide ? UINT64_MAX : 0xFFFFFFFFu;
    if (is_signed_index(type))
        switch (choice) {
        case 0:
            return index_bits(type, s);
        case 1:
            return index_bits(type, (uint64_t)0 - s - 1); /* -s-1 */
        case 2:
            return half - 1; /* the largest value */
        default:
            return half; /* the smallest (negative) value */
        }
    switch (choice) {
    case 0:
        return index_bits(type, s);
    case 1:
        return half;
    case 2:
        return all;
    case 3:
        return all - s + 1; /* -s read as signed */
    default:
        return half - 1;
    }
}

/* The suite's index classes: position 0 mod 6 is 0, 1 is s-1, 2 and 3 are
   -s and -1 for signed types; the rest are drawn (signed: from [-s, s)). */
static uint64_t class_index(gen_rng *r, uint64_t position, uint64_t s, dmlref_tensor_data_type type)
{
    uint32_t class_ = (uint32_t)(position % 6);
    if (class_ < gen_boundary_count(type))
        return gen_boundary_index(s, type, class_);
    if (is_signed_index(type))
        return index_bits(type, (uint64_t)gen_below(r, (uint32_t)(2 * s)) - s);
    return gen_below(r, (uint32_t)s);
}

/* A permutation of [0, s) keyed by `key`: three rounds of an odd multiply,
   an add and an xorshift, each a bijection of [0, 2^bits), walked until the
   value lands below s. */
static uint64_t permuted(uint64_t a, uint64_t s, uint64_t key)
{
    uint32_t bits = 1, round;
    uint64_t mask, x = a, mul[3], add[3];
    while (bits < 63 && ((uint64_t)1 << bits) < s)
        ++bits;
    mask = ((uint64_t)1 << bits) - 1;
    for (round = 0; round < 3; ++round) {
        mul[round] = hash_of(key + 2 * round) | 1;
        add[round] = hash_of(key + 2 * round + 1);
    }
    do {
        for (round = 0; round < 3; ++round) {
            x = (x * mul[round] + add[round]) & mask;
            x ^= x >> (bits / 2 + 1);
        }
    } while (x >= s);
    return x;
}

/* ---- tensors --------------------------------------------------------------------- */

static uint64_t count_of(const gen_tensor *t)
{
    uint64_t n = 1;
    uint32_t d;
    for (d = 0; d < t->rank; ++d)
        n *= t->sizes[d];
    return n;
}

static int is_indices(const gen_case *c, size_t i)
{
    return (c->info->tensors[i].flags & OPERATOR_SLOT_INDICES) != 0;
}

/* The index tensor's place in binding order, or c->count. */
static size_t indices_of(const gen_case *c)
{
    size_t i;
    for (i = 0; i < c->inputs && !is_indices(c, i); ++i)
        ;
    return i < c->inputs ? i : c->count;
}

static void coords_of(const gen_tensor *t, uint64_t e, uint32_t *coords)
{
    uint32_t d;
    for (d = t->rank; d-- > 0;) {
        coords[d] = (uint32_t)(e % t->sizes[d]);
        e /= t->sizes[d];
    }
}

/* The canonical element of logical element e: the first logical element
   sharing its address (a broadcast dimension's coordinate taken as 0). */
static uint64_t canonical_of(const gen_tensor *t, uint64_t e)
{
    uint64_t canonical = 0, scale = 1;
    uint32_t d;
    for (d = t->rank; d-- > 0;) {
        uint64_t c = e % t->sizes[d];
        e /= t->sizes[d];
        if (!(t->strided && t->strides[d] == 0))
            canonical += c * scale;
        scale *= t->sizes[d];
    }
    return canonical;
}

/* The element strides of t's layout (packed ones when it has none). */
static void memory_strides(const gen_tensor *t, uint64_t *strides)
{
    uint64_t step = 1;
    uint32_t d;
    for (d = t->rank; d-- > 0;) {
        strides[d] = t->strided ? t->strides[d] : step;
        step *= t->sizes[d];
    }
}

static void store(void *base, uint64_t k, uint32_t size, uint64_t v)
{
    unsigned char *p = (unsigned char *)base + (size_t)(k * size);
    switch (size) {
    case 1: {
        uint8_t x = (uint8_t)v;
        memcpy(p, &x, 1);
        break;
    }
    case 2: {
        uint16_t x = (uint16_t)v;
        memcpy(p, &x, 2);
        break;
    }
    case 4: {
        uint32_t x = (uint32_t)v;
        memcpy(p, &x, 4);
        break;
    }
    default:
        memcpy(p, &v, 8);
        break;
    }
}

/* ---- layouts --------------------------------------------------------------------- */

/* Strides for t's sizes in layout `kind`; `varied`: 0 to 2 elements of
   padding after each dimension's run, broadcast on any dimensions of a
   shuffled order. */
static void arrange(gen_rng *r, gen_tensor *t, gen_layout kind, int varied)
{
    uint32_t order[8], i;
    uint64_t step = 1;
    int broadcast_done = 0;
    t->layout = kind;
    if (kind == GEN_PACKED)
        return;
    for (i = 0; i < t->rank; ++i)
        order[i] = kind == GEN_TRANSPOSED ? t->rank - 1 - i : i;
    if (kind == GEN_PERMUTED || (varied && kind == GEN_BROADCAST))
        for (i = t->rank; i > 1; --i) {
            uint32_t j = gen_below(r, i), tmp = order[i - 1];
            order[i - 1] = order[j];
            order[j] = tmp;
        }
    for (i = t->rank; i-- > 0;) { /* order[rank-1] innermost */
        uint32_t d = order[i];
        t->strides[d] = (uint32_t)(step * (kind == GEN_STRIDED && i == t->rank - 1 ? 2 : 1));
        step = (uint64_t)t->strides[d] * t->sizes[d] + (varied               ? gen_below(r, 3)
                                                        : kind == GEN_PADDED ? 1
                                                                             : 0);
    }
    if (kind == GEN_BROADCAST)
        for (i = 0; i < t->rank; ++i)
            if (varied ? gen_below(r, 2) != 0 : t->sizes[i] > 1 && !broadcast_done) {
                t->strides[i] = 0;
                broadcast_done = 1;
            }
    t->strided = 1;
}

/* Tensor i's layout: its own strides, its own layout, or the case's where
   its row lets it take that (else packed); outputs are never broadcast. */
static void lay_out(gen *g, gen_case *c, size_t i)
{
    static const gen_layout varied[6] = {GEN_PACKED,  GEN_PADDED,     GEN_PERMUTED,
                                         GEN_STRIDED, GEN_TRANSPOSED, GEN_BROADCAST};
    const gen_request *q = g->q;
    gen_tensor *t = &c->t[i];
    int output = i >= c->inputs;
    gen_layout kind = q->layouts                                 ? q->layouts[i]
                      : q->layout >= GEN_SUITE_LAYOUTS           ? q->layout
                      : ((c->row->layouts[i] >> q->layout) & 1u) ? q->layout
                                                                 : GEN_PACKED;
    if (q->strides[i]) {
        t->strided = 1;
        memcpy(t->strides, q->strides[i], t->rank * sizeof *t->strides);
    } else if (kind == GEN_VARIED) {
        arrange(g->r, t, varied[gen_below(g->r, output ? 5 : 6)], 1);
        t->extra_bytes = 4 * (uint64_t)gen_below(g->r, 2);
    } else {
        arrange(g->r, t, kind, 0);
    }
    if (output)
        t->omit_sizes = !t->strided && !c->row->draws_outputs;
}

/* ---- sizes ----------------------------------------------------------------------- */

/* The suite's sizes: 1 to 4 a dimension (1 to 3 above rank 2, 1 to 2
   above rank 5), at most `budget` elements and at least two. */
static void small_sizes(gen_rng *r, uint32_t rank, uint64_t budget, uint32_t *sizes)
{
    uint64_t total;
    uint32_t i;
    do {
        total = 1;
        for (i = 0; i < rank; ++i) {
            sizes[i] = 1 + gen_below(r, rank > 5 ? 2 : rank > 2 ? 3 : 4);
            total *= sizes[i];
        }
    } while (total > budget || total < 2);
}

/* At most `budget` elements, each size around the rank-th root of the
   budget, so that large budgets give large tensors. */
static void spread_sizes(gen_rng *r, uint32_t rank, uint64_t budget, uint32_t *sizes)
{
    uint64_t total = 1, root = 1, power;
    uint32_t i;
    do { /* the largest root with root^rank <= budget */
        ++root;
        for (power = 1, i = 0; i < rank && power <= budget; ++i)
            power *= root;
    } while (power <= budget);
    --root;
    for (i = 0; i < rank; ++i) {
        uint64_t room = budget / total, limit = 2 * root, low;
        if (limit > room)
            limit = room ? room : 1;
        low = limit / 2 ? limit / 2 : 1;
        sizes[i] = (uint32_t)(low + gen_below(r, (uint32_t)(limit - low + 1)));
        total *= sizes[i];
    }
}

/* `given` sizes, or drawn ones with the first `leading` of `rank` 1 (the
   small style draws every dimension, as the suite always has). */
static void sizes_of(gen *g, const uint32_t *given, uint32_t rank, uint32_t leading,
                     uint64_t budget, uint32_t *sizes)
{
    uint32_t i;
    if (given) {
        memcpy(sizes, given, rank * sizeof *sizes);
        return;
    }
    if (g->q->size_style == GEN_SIZES_SMALL)
        small_sizes(g->r, rank, budget, sizes);
    else
        spread_sizes(g->r, rank - leading, budget, sizes + leading);
    for (i = 0; i < leading; ++i)
        sizes[i] = 1;
}

/* Leading dimensions of 1 until t has `rank` of them. */
static void pad_rank(gen_tensor *t, uint32_t rank)
{
    uint32_t shift = rank - t->rank, d;
    for (d = t->rank; d-- > 0;)
        t->sizes[d + shift] = t->sizes[d];
    for (d = 0; d < shift; ++d)
        t->sizes[d] = 1;
    t->rank = rank;
}

/* The outputs' sizes by the library's shape rules, and the data type. */
static int infer_outputs(gen_case *c)
{
    dmlref_tensor_desc descs[GEN_TENSORS];
    const dmlref_tensor_desc *tensors[GEN_TENSORS];
    operator_desc_storage desc;
    dmlref_operator_desc od;
    size_t i;
    for (i = 0; i < c->count; ++i) {
        memset(&descs[i], 0, sizeof descs[i]);
        descs[i].DataType = c->t[i].type;
        descs[i].DimensionCount = c->t[i].rank;
        descs[i].Sizes = c->t[i].sizes;
        tensors[i] = i < c->inputs ? &descs[i] : NULL;
    }
    operator_desc_build(c->info, desc.bytes, tensors, c->attributes);
    od.Type = c->op;
    od.Desc = desc.bytes;
    for (i = c->inputs; i < c->count; ++i) {
        c->t[i].type = c->t[0].type;
        if (dmlref_infer_output_sizes(&od, DMLREF_FEATURE_LEVEL_LATEST, (uint32_t)(i - c->inputs),
                                      &c->t[i].rank, c->t[i].sizes, NULL) != DMLREF_OK)
            return 0;
    }
    return 1;
}

/* ---- values ------------------------------------------------------------------------ */

/* Index element p (canonical, at `coords`) of tensor t. */
static uint64_t index_of_element(const gen_case *c, const gen_tensor *t, uint64_t p,
                                 const uint32_t *coords)
{
    uint64_t s, a = 0, h = hash_of(t->salt ^ p), v, below_walk = 1;
    uint32_t walk, d;
    if (!c->row->index_place(c, coords, &s, &walk) || s == 0)
        return 0;
    if (walk < t->rank) {
        a = coords[walk] % s;
        for (d = walk + 1; d < t->rank; ++d)
            below_walk *= t->sizes[d];
    }
    switch (c->indices) {
    case GEN_INDICES_UNIFORM:
        v = ((h >> 32) * s) >> 32;
        break;
    case GEN_INDICES_TWO_TARGETS:
        v = ((h >> 32) * (s < 2 ? s : 2)) >> 32;
        break;
    case GEN_INDICES_SEQUENTIAL:
        v = a;
        break;
    case GEN_INDICES_REVERSED:
        v = s - 1 - a;
        break;
    case GEN_INDICES_SORTED:
        v = a > 0 ? a - (h & 1) : 0;
        break;
    case GEN_INDICES_PERMUTATION: /* keyed by its line: p without its walk coordinate */
        v = permuted(a, s,
                     hash_of(~t->salt ^ (p - (walk < t->rank ? coords[walk] * below_walk : 0))));
        break;
    default:
        v = 0;
        break;
    }
    if (c->negative && is_signed_index(t->type) && ((h >> 1) & 1))
        v -= s; /* the same element, counted from the end */
    return index_bits(t->type, v);
}

/* Data element p (canonical) of tensor t: readable or random, then zero
   unless kept. */
static uint64_t data_value(const gen_case *c, const gen_tensor *t, uint64_t p)
{
    uint64_t v = c->data == GEN_DATA_READABLE ? readable_bits(t->type, p, t->ordinal != 0)
                                              : hash_of(t->salt ^ p) & width_mask(t->type);
    if (t->keep[1]) {
        uint64_t h = hash_of(t->keep_salt ^ p);
        if (h % t->keep[1] >= t->keep[0])
            return 0;
        if (c->data == GEN_DATA_BITS)
            v |= 1; /* never 0 by chance: the fraction kept is the density */
        if (c->sign_only && (h >> 32) % 8 == 0)
            v = sign_bit(t->type);
    }
    return v;
}

/* Element p of input i as made, then the breaks and the specials over it. */
static uint64_t value_at(const gen_case *c, size_t i, uint64_t p, const uint32_t *coords,
                         uint64_t e)
{
    const gen_tensor *t = &c->t[i];
    uint64_t v;
    uint32_t k;
    if (is_indices(c, i)) {
        v = t->data ? t->data[e] : index_of_element(c, t, p, coords);
        for (k = 0; k < c->broken; ++k)
            if (p == c->broken_at[k])
                v = c->broken_bits[k];
        return v;
    }
    v = t->data ? t->data[e] : data_value(c, t, p);
    if (c->specials && is_float(t->type)) {
        uint64_t h = hash_of(c->specials_salt ^ p);
        if (h % 4 == 0)
            v = float_special(t->type, (uint32_t)((h >> 8) % 6));
    }
    return v;
}

uint64_t gen_value(const gen_case *c, size_t i, uint64_t e)
{
    const gen_tensor *t = &c->t[i];
    uint64_t p = canonical_of(t, e);
    uint32_t coords[8];
    coords_of(t, p, coords);
    return value_at(c, i, p, coords, e);
}

/* The suite's index classes, drawn element by element: position e/k + j
   for component j of tuple e/k (k: the tuple's length, 1 for single
   indices). */
static int draw_classes(gen *g, gen_case *c, gen_tensor *t)
{
    uint64_t n = count_of(t), e, s;
    uint64_t k = c->info->tensors[indices_of(c)].flags & OPERATOR_SLOT_INDEX_TUPLES
                     ? t->sizes[t->rank - 1]
                     : 1;
    uint32_t coords[8], walk;
    t->data = malloc((size_t)n * sizeof *t->data + 8);
    if (!t->data)
        return 0;
    for (e = 0; e < n; ++e) {
        coords_of(t, e, coords);
        if (!c->row->index_place(c, coords, &s, &walk))
            return 0;
        t->data[e] = class_index(g->r, e / k + e % k, s, t->type);
    }
    return 1;
}

/* What input i's values take from the stream when they are made. */
static int choose_values(gen *g, gen_case *c, size_t i)
{
    const gen_request *q = g->q;
    gen_tensor *t = &c->t[i];
    size_t j;
    if (is_indices(c, i)) {
        if (c->indices == GEN_INDICES_CLASSES)
            return draw_classes(g, c, t);
        t->salt = gen_next(g->r);
        return 1;
    }
    for (j = 0; j < i; ++j)
        if (!is_indices(c, j))
            ++t->ordinal;
    if (c->data == GEN_DATA_BITS)
        t->salt = gen_next(g->r);
    if (q->nonzero[1]) {
        t->keep[1] = q->nonzero[1];
        t->keep[0] = q->nonzero[0] == GEN_DRAW ? gen_below(g->r, q->nonzero[1] + 1) : q->nonzero[0];
        t->keep_salt = gen_next(g->r);
    }
    return 1;
}

/* One or two index elements out of range of their own size. */
static void break_indices(gen *g, gen_case *c, size_t i)
{
    const gen_tensor *t = &c->t[i];
    uint64_t n = count_of(t), e, s;
    uint32_t coords[8], walk, k;
    c->broken = 1 + gen_below(g->r, 2);
    for (k = 0; k < c->broken; ++k) {
        e = gen_below(g->r, (uint32_t)n);
        coords_of(t, canonical_of(t, e), coords);
        if (!c->row->index_place(c, coords, &s, &walk))
            s = 0;
        c->broken_at[k] = canonical_of(t, e);
        c->broken_bits[k] =
            gen_out_of_range_index(s, t->type, gen_below(g->r, gen_out_of_range_count(t->type, 0)));
    }
}

/* ---- drawing a case ------------------------------------------------------------------ */

void gen_request_init(gen_request *q, dmlref_operator_type op, dmlref_tensor_data_type type,
                      dmlref_tensor_data_type index_type, uint32_t rank)
{
    size_t i;
    memset(q, 0, sizeof *q);
    q->op = op;
    q->type = type;
    q->index_type = index_type;
    q->rank = rank;
    for (i = 0; i < GEN_PARAMS; ++i)
        q->params[i] = GEN_DRAW;
    q->size_style = GEN_SIZES_SMALL;
    q->budget = 36;
    q->past_axis = 1;
    q->layout = GEN_PACKED;
    q->data = GEN_DATA_READABLE;
    q->indices = GEN_INDICES_CLASSES;
}

/* Everything after the parameters: sizes, the inputs' layouts, their
   values, the outputs' layouts, the breaks. */
static int draw_case(gen *g, gen_case *c)
{
    size_t i, idx = indices_of(c);
    for (i = 0; i < c->count; ++i) {
        free(c->t[i].data);
        memset(&c->t[i], 0, sizeof c->t[i]);
        c->t[i].rank = g->q->rank;
        c->t[i].type = i == idx ? g->q->index_type : g->q->type;
    }
    c->batches_outside = c->over_axis = 0;
    c->broken = 0;
    if (!c->row->draw_shapes(g, c))
        return 0;
    for (i = 0; i < c->inputs; ++i)
        lay_out(g, c, i);
    for (i = 0; i < c->inputs; ++i)
        if (!choose_values(g, c, i))
            return 0;
    for (i = c->inputs; i < c->count; ++i)
        lay_out(g, c, i);
    if (g->q->out_of_range && idx < c->count)
        break_indices(g, c, idx);
    return 1;
}

int gen_make(gen_rng *r, const gen_request *q, gen_case *c)
{
    gen g;
    gen_rng own;
    uint32_t params[GEN_PARAMS];
    size_t i;
    memset(c, 0, sizeof *c);
    c->info = operator_find(q->op);
    c->row = row_of(q->op);
    if (!c->info || !c->row || q->rank < 1 || q->rank > 8)
        return 0;
    c->op = q->op;
    c->inputs = c->info->input_count;
    c->count = c->info->input_count + c->info->output_count;
    c->data = q->data;
    c->indices = q->indices;
    c->negative = q->negative;
    c->sign_only = q->sign_only;
    memcpy(c->params, q->params, sizeof c->params);
    g.r = r;
    g.q = q;
    g.past = q->past_axis;
    if (c->row->draw_params)
        c->row->draw_params(&g, c);
    for (i = 0; i < c->info->attribute_count; ++i)
        c->attributes[i] = c->params[i];
    memcpy(params, c->params, sizeof params);
    own = *r;
    if (!draw_case(&g, c)) {
        gen_free(c);
        return 0;
    }
    if (c->over_axis) { /* drawn again from its own copy of the stream */
        g.r = &own;
        g.past = c->row->axis_past;
        memcpy(c->params, params, sizeof params);
        if (!draw_case(&g, c)) {
            gen_free(c);
            return 0;
        }
    }
    return 1;
}

void gen_sprinkle_specials(gen_rng *r, gen_case *c)
{
    c->specials = 1;
    c->specials_salt = gen_next(r);
}

void gen_free(gen_case *c)
{
    size_t i;
    for (i = 0; i < GEN_TENSORS; ++i) {
        free(c->t[i].data);
        c->t[i].data = NULL;
    }
}

/* ---- writing a case ------------------------------------------------------------------ */

void gen_tensor_desc(const gen_case *c, size_t i, dmlref_tensor_desc *d)
{
    const gen_tensor *t = &c->t[i];
    memset(d, 0, sizeof *d);
    d->DataType = t->type;
    d->DimensionCount = t->rank;
    d->Sizes = t->sizes;
    d->Strides = t->strided ? t->strides : NULL;
    d->TotalTensorSizeInBytes =
        dmlref_calc_buffer_tensor_size(t->type, t->rank, t->sizes, d->Strides) + t->extra_bytes;
}

void gen_descriptor(const gen_case *c, const dmlref_tensor_desc *const *tensors, void *desc)
{
    operator_desc_build(c->info, desc, tensors, c->attributes);
}

/* Writes the canonical elements [lo, hi) of the reduced shape (broadcast
   dimensions of size 1), walking their coordinates. */
static void fill_range(const gen_case *c, size_t i, void *buffer, uint64_t lo, uint64_t hi)
{
    const gen_tensor *t = &c->t[i];
    uint32_t es = dmlref_data_type_size(t->type), reduced[8], coords[8], d;
    uint64_t strides[8], logical[8], p = 0, offset = 0, k, rest = lo, step = 1;
    memory_strides(t, strides);
    for (d = t->rank; d-- > 0;) {
        reduced[d] = t->strided && t->strides[d] == 0 ? 1 : t->sizes[d];
        logical[d] = step;
        step *= t->sizes[d];
        coords[d] = (uint32_t)(rest % reduced[d]);
        rest /= reduced[d];
        p += coords[d] * logical[d];
        offset += coords[d] * strides[d];
    }
    for (k = lo; k < hi; ++k) {
        store(buffer, offset, es, value_at(c, i, p, coords, p));
        for (d = t->rank; d-- > 0;) { /* the next coordinates */
            if (++coords[d] < reduced[d]) {
                p += logical[d];
                offset += strides[d];
                break;
            }
            p -= (uint64_t)(reduced[d] - 1) * logical[d];
            offset -= (uint64_t)(reduced[d] - 1) * strides[d];
            coords[d] = 0;
        }
    }
}

void gen_fill(const gen_case *c, size_t i, void *buffer, uint32_t threads)
{
    const gen_tensor *t = &c->t[i];
    uint64_t n = 1, e, strides[8];
    uint32_t d, coords[8];
    if (t->data) { /* drawn element by element: logical order, the later wins an address */
        memory_strides(t, strides);
        for (e = 0; e < count_of(t); ++e) {
            uint64_t offset = 0;
            coords_of(t, e, coords);
            for (d = 0; d < t->rank; ++d)
                offset += coords[d] * strides[d];
            store(buffer, offset, dmlref_data_type_size(t->type), gen_value(c, i, e));
        }
        return;
    }
    for (d = 0; d < t->rank; ++d)
        n *= t->strided && t->strides[d] == 0 ? 1 : t->sizes[d];
#ifdef _OPENMP
#pragma omp parallel num_threads(team_size(threads ? threads : 1)) if (threads > 1)
#endif
    {
        int team = thread_total(), me = thread_index();
        fill_range(c, i, buffer, chunk_begin(n, me, team), chunk_begin(n, me + 1, team));
    }
    (void)threads;
}

/* A growing string; `failed` once memory ran out. */
typedef struct text {
    char *data;
    size_t length, capacity;
    int failed;
} text;

PRINTF_LIKE(2, 3)
static void put(text *b, const char *format, ...)
{
    va_list args;
    int n;
    while (!b->failed) {
        size_t room = b->capacity - b->length;
        char *grown;
        va_start(args, format);
        n = vsnprintf(b->data ? b->data + b->length : NULL, room, format, args); /* no NULL + 0 */
        va_end(args);
        if (n >= 0 && (size_t)n < room) {
            b->length += (size_t)n;
            return;
        }
        b->capacity = 2 * b->capacity + (n > 0 ? (size_t)n : 0) + 64;
        if (!(grown = realloc(b->data, b->capacity)))
            b->failed = 1;
        else
            b->data = grown;
    }
}

static void put_list(text *b, const char *key, const uint32_t *values, uint32_t count)
{
    uint32_t d;
    put(b, ", \"%s\": [", key);
    for (d = 0; d < count; ++d)
        put(b, "%s%u", d ? ", " : "", values[d]);
    put(b, "]");
}

int gen_case_text(const gen_case *c, const char *name, char **out, size_t *length)
{
    text b = {NULL, 0, 0, 0};
    size_t i;
    put(&b,
        "{\"format\": \"dmlref-vector-1\", \"name\": \"%s\", \"operator\": \"%s\", "
        "\"feature_level\": \"%s\"",
        name, c->info->name, dmlref_feature_level_name(DMLREF_FEATURE_LEVEL_LATEST));
    if (c->info->attribute_count) {
        put(&b, ", \"attributes\": {");
        for (i = 0; i < c->info->attribute_count; ++i)
            put(&b, "%s\"%s\": %u", i ? ", " : "", c->info->attributes[i].name, c->attributes[i]);
        put(&b, "}");
    }
    put(&b, ", \"tensors\": {");
    for (i = 0; i < c->count; ++i) {
        const gen_tensor *t = &c->t[i];
        put(&b, "%s\"%s\": {\"dtype\": \"%s\"", i ? ", " : "", c->info->tensors[i].name,
            dmlref_data_type_name(t->type));
        if (!t->omit_sizes)
            put_list(&b, "sizes", t->sizes, t->rank);
        if (t->strided)
            put_list(&b, "strides", t->strides, t->rank);
        if (t->extra_bytes) {
            dmlref_tensor_desc d;
            gen_tensor_desc(c, i, &d);
            put(&b, ", \"total_bytes\": %llu", (unsigned long long)d.TotalTensorSizeInBytes);
        }
        if (i < c->inputs) {
            uint64_t n = count_of(t), e;
            char element[48];
            put(&b, ", \"data\": [");
            for (e = 0; e < n; ++e)
                put(&b, "%s%s", e ? ", " : "",
                    dmlref_format_element(t->type, gen_value(c, i, e), element, sizeof element));
            put(&b, "]");
        }
        put(&b, "}");
    }
    put(&b, "}}");
    if (b.failed) {
        free(b.data);
        return 0;
    }
    *out = b.data;
    *length = b.length;
    return 1;
}

void gen_params_text(const gen_case *c, const char *between, const char *joint, char *out,
                     size_t capacity)
{
    const char *name = c->row->params;
    size_t used = 0, i;
    out[0] = '\0';
    for (i = 0; *name && i < GEN_PARAMS && used < capacity; ++i) {
        size_t n = strcspn(name, " ");
        int wrote = snprintf(out + used, capacity - used, "%s%.*s%s%u", i ? joint : "", (int)n,
                             name, between, c->params[i]);
        used += wrote > 0 ? (size_t)wrote : 0;
        name += n + (name[n] == ' ' ? 1u : 0u);
    }
}

void gen_describe(const gen_case *c, char *out, size_t capacity)
{
    static const char *const names[7] = {"packed",  "padded",     "permuted", "broadcast",
                                         "strided", "transposed", "varied"};
    char params[64], indices[48] = "";
    size_t idx = indices_of(c), i, used;
    int n;
    gen_params_text(c, " ", ", ", params, sizeof params);
    if (idx < c->count)
        snprintf(indices, sizeof indices, "%s indices, ", dmlref_data_type_name(c->t[idx].type));
    n = snprintf(out, capacity, "%s %s, %srank %u, %s, layouts", c->info->name,
                 dmlref_data_type_name(c->t[0].type), indices, c->t[0].rank, params);
    used = n > 0 ? (size_t)n : 0;
    for (i = 0; i < c->count && used < capacity; ++i) {
        n = snprintf(out + used, capacity - used, " %s",
                     c->t[i].strided && c->t[i].layout == GEN_PACKED ? "own"
                                                                     : names[c->t[i].layout]);
        used += n > 0 ? (size_t)n : 0;
    }
}

/* ---- cases made elsewhere --------------------------------------------------------------- */

int gen_case_from_desc(const dmlref_operator_desc *op, gen_case *c)
{
    const dmlref_tensor_desc *tensors[GEN_TENSORS];
    size_t i;
    memset(c, 0, sizeof *c);
    if (!op || !op->Desc || !(c->info = operator_find(op->Type)) || !(c->row = row_of(op->Type)))
        return 0;
    c->op = op->Type;
    c->inputs = c->info->input_count;
    c->count = c->info->input_count + c->info->output_count;
    operator_desc_tensors(c->info, op->Desc, tensors);
    operator_desc_attributes(c->info, op->Desc, c->attributes);
    for (i = 0; i < c->count; ++i) {
        gen_tensor *t = &c->t[i];
        if (!tensors[i] || !tensors[i]->Sizes || tensors[i]->DimensionCount > 8)
            return 0;
        t->type = tensors[i]->DataType;
        t->rank = tensors[i]->DimensionCount;
        memcpy(t->sizes, tensors[i]->Sizes, t->rank * sizeof *t->sizes);
        if ((t->strided = tensors[i]->Strides != NULL) != 0)
            memcpy(t->strides, tensors[i]->Strides, t->rank * sizeof *t->strides);
    }
    return 1;
}

int gen_index_bound(const gen_case *c, uint64_t e, uint64_t *bound)
{
    size_t i = indices_of(c);
    uint32_t coords[8], walk;
    if (i >= c->count || !c->row->index_place)
        return 0;
    coords_of(&c->t[i], e, coords);
    return c->row->index_place(c, coords, bound, &walk);
}

/* ---- the operators ------------------------------------------------------------------------ */

/* GatherElements, Scatter: the axis, drawn first. */
static void axis_param(gen *g, gen_case *c)
{
    if (c->params[0] == GEN_DRAW)
        c->params[0] = gen_below(g->r, g->q->rank);
}

/* The indices have the input's sizes but along the axis, where they may
   have fewer, as many or, for GatherElements, more (R-GE-3; Scatter at
   most as many, R-SC-4); the inputs after them (Scatter's updates) have
   theirs (R-SC-5); the outputs are the library's (R-GE-4, R-SC-6). */
static int elements_shapes(gen *g, gen_case *c)
{
    gen_tensor *in = &c->t[0], *idx = &c->t[1];
    uint32_t axis = c->params[0], rank = in->rank, s;
    size_t i;
    if (axis >= rank)
        return 0;
    sizes_of(g, g->q->sizes, rank, 0, g->q->budget, in->sizes);
    s = in->sizes[axis];
    if (g->q->index_sizes) {
        memcpy(idx->sizes, g->q->index_sizes, rank * sizeof *idx->sizes);
    } else {
        memcpy(idx->sizes, in->sizes, sizeof idx->sizes);
        idx->sizes[axis] = 1 + gen_below(g->r, s + g->past);
    }
    for (i = 2; i < c->inputs; ++i)
        memcpy(c->t[i].sizes, idx->sizes, sizeof idx->sizes);
    c->over_axis = c->row->axis_past != GEN_DRAW && idx->sizes[axis] > s + c->row->axis_past;
    return infer_outputs(c);
}

static int elements_place(const gen_case *c, const uint32_t *coords, uint64_t *bound,
                          uint32_t *walk)
{
    uint32_t axis = c->attributes[0];
    (void)coords;
    if (axis >= c->t[0].rank)
        return 0;
    *bound = c->t[0].sizes[axis];
    *walk = axis;
    return 1;
}

/* GatherND, GatherND1: m, q, b, k with an output of at most D dimensions
   (R-GN-7); GATHER_ND has no BatchDimensionCount, so b = 0 (R-GN-10). */
static void tuple_params(gen *g, gen_case *c)
{
    uint32_t D = g->q->rank, m, q, b, k;
    int batches = c->info->attribute_count > 2;
    if (c->params[0] != GEN_DRAW)
        return;
    do {
        m = 1 + gen_below(g->r, D);
        q = 1 + gen_below(g->r, D);
        b = batches ? gen_below(g->r, m < q ? m : q) : 0;
        k = 1 + gen_below(g->r, m - b);
    } while (q - 1 + (m - b - k) > D);
    c->params[0] = m, c->params[1] = q, c->params[2] = b, c->params[3] = k;
}

/* The input's last m dimensions and the indices' last q count (ones before
   them); the first b of each are batches and agree (R-GN-6); the indices'
   last dimension is the tuple, k long; the output is the library's
   (R-GN-7).  vary_shapes: a quarter of the cases with batches have fewer
   index batches (valid), and a quarter of those one more on a dimension
   (refused, R-GN-6). */
static int tuple_shapes(gen *g, gen_case *c)
{
    gen_tensor *in = &c->t[0], *idx = &c->t[1];
    uint32_t D = in->rank, m = c->params[0], q = c->params[1], b = c->params[2], k = c->params[3],
             i;
    if (m < 1 || m > D || q < 1 || q > D || b > m || b > q || k < 1 || k > m - b)
        return 0;
    sizes_of(g, g->q->sizes, D, D - m, g->q->budget, in->sizes);
    sizes_of(g, g->q->index_sizes, D, D - q, g->q->budget / 3, idx->sizes);
    for (i = 0; i < b; ++i)
        idx->sizes[D - q + i] = in->sizes[D - m + i];
    if (g->q->vary_shapes && b > 0 && gen_below(g->r, 4) == 0) {
        for (i = 0; i < b; ++i)
            idx->sizes[D - q + i] = 1 + gen_below(g->r, in->sizes[D - m + i]);
        if (gen_below(g->r, 4) == 0) {
            i = gen_below(g->r, b);
            idx->sizes[D - q + i] = in->sizes[D - m + i] + 1;
            c->batches_outside = 1;
        }
    }
    idx->sizes[D - 1] = k;
    return infer_outputs(c);
}

/* Component j of a tuple indexes input dimension D-m+b+j (R-GN-3); where
   the tuple dimension is broadcast, its components share one element,
   which must fit the smallest of their sizes. */
static int tuple_place(const gen_case *c, const uint32_t *coords, uint64_t *bound, uint32_t *walk)
{
    const gen_tensor *in = &c->t[0], *idx = &c->t[1];
    uint32_t D = in->rank, m = c->attributes[0], b = c->attributes[2];
    uint32_t k = idx->rank ? idx->sizes[idx->rank - 1] : 0, j, first, last;
    if (!k || idx->rank != D || m > D || b > m || k > m - b)
        return 0;
    first = idx->strided && idx->strides[D - 1] == 0 ? 0 : coords[D - 1];
    last = idx->strided && idx->strides[D - 1] == 0 ? k : first + 1;
    *bound = UINT64_MAX;
    for (j = first; j < last; ++j)
        if (in->sizes[D - m + b + j] < *bound)
            *bound = in->sizes[D - m + b + j];
    *walk = D >= 2 ? D - 2 : NO_WALK; /* along the tuples */
    return 1;
}

/* The 8 input types NonZero takes (R-NZ-7). */
static const dmlref_tensor_data_type k_nonzero_types[8] = {
    DMLREF_TENSOR_DATA_TYPE_FLOAT32, DMLREF_TENSOR_DATA_TYPE_FLOAT16,
    DMLREF_TENSOR_DATA_TYPE_UINT32,  DMLREF_TENSOR_DATA_TYPE_UINT16,
    DMLREF_TENSOR_DATA_TYPE_UINT8,   DMLREF_TENSOR_DATA_TYPE_INT32,
    DMLREF_TENSOR_DATA_TYPE_INT16,   DMLREF_TENSOR_DATA_TYPE_INT8};

/* NonZeroCoordinates: N from the input's effective rank (from its first
   dimension larger than 1, R-NZ-4) to its rank; the count {1} and the
   coordinates {M, N} in DirectMLX's shapes, M the input's elements.
   vary_shapes: half of the inputs with their first half of dimensions 1,
   and outputs of more dimensions (leading ones). */
static int nonzero_shapes(gen *g, gen_case *c)
{
    gen_tensor *in = &c->t[0], *count = &c->t[1], *co = &c->t[2];
    uint32_t D = in->rank, e, i, least;
    sizes_of(g, g->q->sizes, D, 0, g->q->budget, in->sizes);
    if (g->q->vary_shapes && gen_below(g->r, 2))
        for (i = 0; i < D / 2; ++i)
            in->sizes[i] = 1;
    for (e = D; e > 0 && in->sizes[D - e] == 1; --e)
        ;
    least = e ? e : 1;
    if (c->params[0] == GEN_DRAW)
        c->params[0] = least + gen_below(g->r, D - least + 1);
    if (c->params[0] < least || c->params[0] > D || count_of(in) > UINT32_MAX)
        return 0;
    count->type = co->type = DMLREF_TENSOR_DATA_TYPE_UINT32;
    count->rank = 1, count->sizes[0] = 1;
    co->rank = 2, co->sizes[0] = (uint32_t)count_of(in), co->sizes[1] = c->params[0];
    if (g->q->vary_shapes) {
        pad_rank(count, 1 + gen_below(g->r, 8));
        pad_rank(co, 2 + gen_below(g->r, 7));
    }
    return 1;
}

/* The suite's layouts a tensor takes: the first input all but strided
   output, the indices and Scatter's updates padded or permuted, outputs
   strided or padded, NonZero's coordinates strided or permuted. */
#define FIRST_INPUT_LAYOUTS                                                                        \
    (1u << GEN_PACKED | 1u << GEN_PADDED | 1u << GEN_PERMUTED | 1u << GEN_BROADCAST)
#define SIDE_INPUT_LAYOUTS (1u << GEN_PADDED | 1u << GEN_PERMUTED)
#define OUTPUT_LAYOUTS (1u << GEN_STRIDED | 1u << GEN_PADDED)
#define COORDINATE_LAYOUTS (1u << GEN_STRIDED | 1u << GEN_PERMUTED)

static const gen_operator k_rows[] = {
    {DMLREF_OPERATOR_GATHER_ELEMENTS,
     "axis",
     NULL,
     0,
     {FIRST_INPUT_LAYOUTS, SIDE_INPUT_LAYOUTS, OUTPUT_LAYOUTS},
     GEN_DRAW,
     0,
     axis_param,
     elements_shapes,
     elements_place,
     {2, 0, 0}},
    {DMLREF_OPERATOR_SCATTER_ELEMENTS,
     "axis",
     NULL,
     0,
     {FIRST_INPUT_LAYOUTS, SIDE_INPUT_LAYOUTS, SIDE_INPUT_LAYOUTS, OUTPUT_LAYOUTS},
     0,
     0,
     axis_param,
     elements_shapes,
     elements_place,
     {2, 1, 0}},
    {DMLREF_OPERATOR_GATHER_ND,
     "m q b k",
     NULL,
     0,
     {FIRST_INPUT_LAYOUTS, SIDE_INPUT_LAYOUTS, OUTPUT_LAYOUTS},
     0,
     0,
     tuple_params,
     tuple_shapes,
     tuple_place,
     {1, GEN_DRAW, 0}},
    {DMLREF_OPERATOR_GATHER_ND1,
     "m q b k",
     NULL,
     0,
     {FIRST_INPUT_LAYOUTS, SIDE_INPUT_LAYOUTS, OUTPUT_LAYOUTS},
     0,
     0,
     tuple_params,
     tuple_shapes,
     tuple_place,
     {1, GEN_DRAW, 2}},
    {DMLREF_OPERATOR_NONZERO_COORDINATES,
     "n",
     k_nonzero_types,
     8,
     {FIRST_INPUT_LAYOUTS, 0, COORDINATE_LAYOUTS},
     0,
     1,
     NULL,
     nonzero_shapes,
     NULL,
     {4, GEN_DRAW, 0}},
};

/* The header's limits hold the table's and the library's (a negative array
   size fails the build). */
typedef char rows_fit[COUNT_OF(k_rows) <= GEN_MAX_OPERATORS ? 1 : -1];
typedef char tensors_fit[GEN_TENSORS == OPERATOR_MAX_TENSORS ? 1 : -1];
typedef char attributes_fit[GEN_ATTRIBUTES == OPERATOR_MAX_ATTRIBUTES ? 1 : -1];
typedef char desc_fits[sizeof(gen_desc) >= OPERATOR_DESC_CAPACITY ? 1 : -1];

static const gen_operator *row_of(dmlref_operator_type op)
{
    size_t i = gen_operator_index(op);
    return i < COUNT_OF(k_rows) ? &k_rows[i] : NULL;
}

size_t gen_operator_count(void)
{
    return COUNT_OF(k_rows);
}

dmlref_operator_type gen_operator_at(size_t i)
{
    return k_rows[i < COUNT_OF(k_rows) ? i : 0].type;
}

size_t gen_operator_index(dmlref_operator_type op)
{
    size_t i;
    for (i = 0; i < COUNT_OF(k_rows) && k_rows[i].type != op; ++i)
        ;
    return i;
}

int gen_has_indices(dmlref_operator_type op)
{
    const gen_operator *row = row_of(op);
    return row && row->index_place;
}

const dmlref_tensor_data_type *gen_data_types(dmlref_operator_type op, size_t *count)
{
    const gen_operator *row = row_of(op);
    if (row && row->types) {
        *count = row->type_count;
        return row->types;
    }
    *count = COUNT_OF(gen_all_data_types);
    return gen_all_data_types;
}

const gen_sweep *gen_operator_sweep(dmlref_operator_type op)
{
    const gen_operator *row = row_of(op);
    return row ? &row->sweep : NULL;
}

const char *gen_layout_name(gen_layout kind)
{
    static const char *const names[7] = {"packed",          "padded",         "permuted",
                                         "broadcast_input", "strided_output", "transposed",
                                         "varied"};
    return (unsigned)kind < 7 ? names[kind] : "?";
}
