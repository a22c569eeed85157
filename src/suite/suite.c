/*
 * suite.c - dmlref gen: the catalogue of the golden suite.
 *
 * Each case is described here (operator, tensors, data, layout, feature
 * level, the error it must raise), written as a case in the vector format,
 * and handed to the library exactly as a user's case would be: parsed,
 * evaluated by the reference (dmlref_vector_eval) and written in canonical
 * form.  Everything is derived from one seeded generator, so the suite is the
 * same bytes on every run and thread count.
 *
 * The catalogue:
 *   - sweeps: every operator x data type x index type x rank 1..8, with the
 *     axis, layout (packed, padded, permuted, broadcast input, strided
 *     output) and index classes (boundaries 0, s-1, -s, -1; random) rotating;
 *   - NonZero over every input type and rank with densities 0 to 1, and its
 *     special values (both zeros, NaN payloads, infinities, subnormals in a
 *     category of their own, D7), N above the effective rank, FL 3_0 shapes;
 *   - the seeds' worked examples, corrected (D20);
 *   - feature-level cases: valid from one level, refused below it;
 *   - one expect_error case per validation rule, each with complete input
 *     data where its shape allows;
 *   - output layouts beyond the stride-order proof (D6): one decided exactly,
 *     one past what dmlref decides;
 *   - out-of-range indices (D1, D2) and unsigned indices that are never
 *     negative (R-IX-3), refused and clamped;
 *   - large cases (a million elements and more) in the generator form.
 */
#include "suite/suite.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* ---- a string builder ------------------------------------------------------ */

typedef struct builder {
    char *data;
    size_t length, capacity;
} builder;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(builder *b, const char *format, ...)
{
    va_list args;
    int n;
    for (;;) {
        size_t room = b->capacity - b->length;
        va_start(args, format);
        n = vsnprintf(b->data ? b->data + b->length : NULL, room, format, args); /* no NULL + 0 */
        va_end(args);
        if (n >= 0 && (size_t)n < room) {
            b->length += (size_t)n;
            return;
        }
        b->capacity = 2 * b->capacity + (n > 0 ? (size_t)n : 0) + 64;
        b->data = realloc(b->data, b->capacity);
        if (!b->data) {
            fprintf(stderr, "dmlref gen: out of memory\n");
            exit(EXIT_BAD_INPUT);
        }
    }
}

/* ---- the seeded generator ---------------------------------------------------- */

typedef struct rng {
    uint64_t state;
} rng;

static uint64_t next(rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint32_t below(rng *r, uint32_t bound) { return (uint32_t)(next(r) % bound); }

uint64_t random_next(uint64_t *state)
{
    rng r;
    uint64_t value;
    r.state = *state;
    value = next(&r);
    *state = r.state;
    return value;
}

/* ---- tensors and cases ---------------------------------------------------- */

enum layout_kind { PACKED, PADDED, PERMUTED, BROADCAST, STRIDED, LAYOUT_KINDS };
static const char *const k_layout_names[LAYOUT_KINDS] = {"packed", "padded", "permuted",
                                                         "broadcast_input", "strided_output"};

typedef struct tspec {
    dmlref_tensor_data_type type;
    uint32_t rank;
    uint32_t sizes[8];
    int strided;
    uint32_t strides[8];
    int omit_sizes;      /* an output whose sizes eval infers */
    uint64_t *data;      /* inputs: logical elements (bits), or NULL */
    const char *generator; /* inputs: a generator object instead */
    const char *extra;   /* more keys, e.g. "\"flags\": 2" */
} tspec;

typedef struct case_spec {
    char name[200];
    dmlref_operator_type op;
    dmlref_feature_level level;
    uint32_t attributes[3];
    tspec t[4];
    int oob_clamp;
    const char *notes;
    dmlref_status error; /* DMLREF_OK: a positive case */
    const char *rule;
    dmlref_tensor_data_type index_type; /* for the coverage table; UNKNOWN if none */
} case_spec;

/* ---- the suite's state ---------------------------------------------------- */

#define OPS 5
static const dmlref_operator_type k_ops[OPS] = {
    DMLREF_OPERATOR_GATHER_ELEMENTS, DMLREF_OPERATOR_SCATTER_ELEMENTS, DMLREF_OPERATOR_GATHER_ND,
    DMLREF_OPERATOR_GATHER_ND1, DMLREF_OPERATOR_NONZERO_COORDINATES};

typedef struct manifest_entry {
    char *path;
    uint64_t digest;
} manifest_entry;

typedef struct suite {
    const char *out_dir;
    uint32_t threads;
    rng r;
    manifest_entry *entries;
    size_t entry_count, entry_capacity;
    unsigned long failures;
    int write_failed; /* a file could not be written: the rest is not tried */
    /* coverage: positive cases per operator and data type / index type /
       rank; error cases per status and rule */
    unsigned long by_type[OPS][12], by_index[OPS][12], by_rank[OPS][9];
    unsigned long positive, errors, large;
    char error_rules[128][64];
    unsigned long error_counts[128];
    size_t error_kinds;
    /* dmlref fuzz: emit() keeps the case text here instead of writing it */
    int capture;
    char *captured;
    size_t captured_length;
} suite;

static size_t op_slot(dmlref_operator_type op)
{
    size_t i;
    for (i = 0; i < OPS; ++i)
        if (k_ops[i] == op)
            return i;
    return 0;
}

static const char *lower(const char *s, char *buf, size_t capacity)
{
    size_t i;
    for (i = 0; s[i] && i + 1 < capacity; ++i)
        buf[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
    buf[i] = '\0';
    return buf;
}

static uint64_t count_of(const tspec *t)
{
    uint64_t n = 1;
    uint32_t i;
    for (i = 0; i < t->rank; ++i)
        n *= t->sizes[i];
    return n;
}

/* Builds the case's JSON text (a case for eval: outputs without expected). */
static void case_text(const case_spec *c, builder *b)
{
    static const char *const attribute_names[3][3] = {
        {"Axis", NULL, NULL},
        {"InputDimensionCount", "IndicesDimensionCount", NULL},
        {"InputDimensionCount", "IndicesDimensionCount", "BatchDimensionCount"}};
    static const char *const names[3][4] = {
        {"InputTensor", "IndicesTensor", "OutputTensor", NULL},
        {"InputTensor", "IndicesTensor", "UpdatesTensor", "OutputTensor"},
        {"InputTensor", "OutputCountTensor", "OutputCoordinatesTensor", NULL}};
    const char *const *tensor_names = c->op == DMLREF_OPERATOR_SCATTER_ELEMENTS ? names[1]
                                      : c->op == DMLREF_OPERATOR_NONZERO_COORDINATES ? names[2]
                                                                                       : names[0];
    const char *const *attrs = c->op == DMLREF_OPERATOR_GATHER_ND    ? attribute_names[1]
                               : c->op == DMLREF_OPERATOR_GATHER_ND1 ? attribute_names[2]
                               : c->op == DMLREF_OPERATOR_NONZERO_COORDINATES ? NULL
                                                                             : attribute_names[0];
    size_t inputs = c->op == DMLREF_OPERATOR_SCATTER_ELEMENTS ? 3
                    : c->op == DMLREF_OPERATOR_NONZERO_COORDINATES ? 1 : 2;
    size_t tensors = c->op == DMLREF_OPERATOR_SCATTER_ELEMENTS ? 4 : 3, i;
    uint32_t d;

    put(b, "{\"format\": \"dmlref-vector-1\", \"name\": \"%s\", \"operator\": \"%s\", "
           "\"feature_level\": \"%s\"",
        c->name, dmlref_operator_name(c->op),
        dmlref_feature_level_name(c->level ? c->level : DMLREF_FEATURE_LEVEL_LATEST));
    if (attrs) {
        put(b, ", \"attributes\": {");
        for (i = 0; i < 3 && attrs[i]; ++i)
            put(b, "%s\"%s\": %u", i ? ", " : "", attrs[i], c->attributes[i]);
        put(b, "}");
    }
    if (c->oob_clamp)
        put(b, ", \"oob\": \"clamp\"");
    if (c->notes)
        put(b, ", \"notes\": \"%s\"", c->notes);
    if (c->error != DMLREF_OK)
        put(b, ", \"expect_error\": {\"status\": \"%s\", \"rule\": \"%s\"}",
            dmlref_status_name(c->error), c->rule);
    put(b, ", \"tensors\": {");
    for (i = 0; i < tensors; ++i) {
        const tspec *t = &c->t[i];
        put(b, "%s\"%s\": {\"dtype\": \"%s\"", i ? ", " : "", tensor_names[i],
            dmlref_data_type_name(t->type));
        if (!t->omit_sizes) {
            put(b, ", \"sizes\": [");
            for (d = 0; d < t->rank; ++d)
                put(b, "%s%u", d ? ", " : "", t->sizes[d]);
            put(b, "]");
        }
        if (t->strided) {
            put(b, ", \"strides\": [");
            for (d = 0; d < t->rank; ++d)
                put(b, "%s%u", d ? ", " : "", t->strides[d]);
            put(b, "]");
        }
        if (t->extra)
            put(b, ", %s", t->extra);
        if (i < inputs && t->generator)
            put(b, ", \"generator\": %s", t->generator);
        else if (i < inputs && t->data) {
            uint64_t n = count_of(t), e;
            char element[48];
            put(b, ", \"data\": [");
            for (e = 0; e < n; ++e)
                put(b, "%s%s", e ? ", " : "",
                    dmlref_format_element(t->type, t->data[e], element, sizeof element));
            put(b, "]");
        }
        put(b, "}");
    }
    put(b, "}}");
}

static void count_error(suite *s, const case_spec *c)
{
    char key[64];
    size_t i;
    snprintf(key, sizeof key, "%s %s", dmlref_status_name(c->error), c->rule);
    for (i = 0; i < s->error_kinds; ++i)
        if (strcmp(s->error_rules[i], key) == 0)
            break;
    if (i == s->error_kinds && s->error_kinds < 128)
        strcpy(s->error_rules[s->error_kinds++], key);
    if (i < 128)
        ++s->error_counts[i];
    ++s->errors;
}

static uint64_t canonical_index(const tspec *t, uint64_t e);

/* dmlref fuzz: float inputs get NaN payloads, both zeros, infinities and
   subnormals among their values (chosen per canonical element, so a
   broadcast layout still holds them). */
static void sprinkle_specials(suite *s, case_spec *c)
{
    static const uint64_t f16[6] = {0x7E01u, 0xFD00u, 0x8000u, 0x0001u, 0xFC00u, 0x7C00u};
    static const uint64_t f32[6] = {0x7FC00001u, 0xFFA00000u, 0x80000000u, 0x00000001u,
                                    0xFF800000u, 0x7F800000u};
    static const uint64_t f64[6] = {0x7FF8000000000001ull, 0xFFF4000000000000ull,
                                    0x8000000000000000ull, 0x0000000000000001ull,
                                    0xFFF0000000000000ull, 0x7FF0000000000000ull};
    uint64_t salt = next(&s->r);
    size_t i;
    for (i = 0; i < 4; ++i) {
        tspec *t = &c->t[i];
        const uint64_t *pick = t->type == DMLREF_TENSOR_DATA_TYPE_FLOAT16   ? f16
                               : t->type == DMLREF_TENSOR_DATA_TYPE_FLOAT32 ? f32
                               : t->type == DMLREF_TENSOR_DATA_TYPE_FLOAT64 ? f64
                                                                            : NULL;
        uint64_t n, e;
        if (!pick || !t->data)
            continue;
        n = count_of(t);
        for (e = 0; e < n; ++e) {
            rng h;
            uint64_t r;
            h.state = salt ^ canonical_index(t, e);
            r = next(&h);
            if (r % 4 == 0)
                t->data[e] = pick[(r >> 8) % 6];
        }
    }
}

/* Evaluates the case with the library and writes its vector. */
static void emit(suite *s, case_spec *c)
{
    builder b = {NULL, 0, 0};
    dmlref_vector_read_options options = {DMLREF_VECTOR_READ_CASE, 0};
    dmlref_vector *v;
    dmlref_error err;
    char path[4096], relative[256], *text;
    size_t length, i;
    dmlref_status status;

    snprintf(relative, sizeof relative, "%s.json", c->name);
    if (s->capture) {
        sprinkle_specials(s, c);
        case_text(c, &b);
        free(s->captured);
        s->captured = b.data;
        s->captured_length = b.length;
        for (i = 0; i < 4; ++i)
            free(c->t[i].data);
        return;
    }
    if (s->write_failed) /* the rest would fail the same way: a full disk */
        goto done;
    if (snprintf(path, sizeof path, "%s/%s", s->out_dir, relative) >= (int)sizeof path) {
        fprintf(stderr, "dmlref gen: %s/%s: the path is too long\n", s->out_dir, relative);
        ++s->failures, s->write_failed = 1;
        goto done;
    }
    case_text(c, &b);
    status = dmlref_vector_parse(b.data, b.length, relative, &options, &v, &err);
    free(b.data);
    if (status == DMLREF_OK) {
        status = dmlref_vector_eval(v, s->threads, &err);
        if (status == DMLREF_OK)
            status = dmlref_vector_write(v, &text, &length, &err);
        dmlref_vector_free(v);
    }
    if (status != DMLREF_OK) {
        fprintf(stderr, "dmlref gen: %s\n", err.message);
        ++s->failures;
        goto done;
    }
    if (!write_file(path, text, length)) {
        ++s->failures, s->write_failed = 1;
        free(text);
        goto done;
    }
    if (s->entry_count == s->entry_capacity) {
        s->entry_capacity = s->entry_capacity ? 2 * s->entry_capacity : 1024;
        s->entries = realloc(s->entries, s->entry_capacity * sizeof *s->entries);
        if (!s->entries) {
            fprintf(stderr, "dmlref gen: out of memory\n");
            exit(EXIT_BAD_INPUT);
        }
    }
    s->entries[s->entry_count].path = malloc(strlen(relative) + 1);
    if (!s->entries[s->entry_count].path)
        exit(EXIT_BAD_INPUT);
    strcpy(s->entries[s->entry_count].path, relative);
    s->entries[s->entry_count++].digest = XXH3_64bits(text, length);
    free(text);

    if (c->error != DMLREF_OK) {
        count_error(s, c);
    } else {
        size_t slot = op_slot(c->op);
        ++s->positive;
        ++s->by_type[slot][c->t[0].type];
        ++s->by_rank[slot][c->t[0].rank];
        if (c->index_type)
            ++s->by_index[slot][c->index_type];
    }
done:
    for (i = 0; i < 4; ++i)
        free(c->t[i].data);
}

/* ---- values ------------------------------------------------------------------ */

/* The value of canonical element k (see fill): distinct for distinct k while
   the type allows, and easy to read: +-(k+1)/2 for floats, scaled integers
   that spread over the type's range for the rest (odd multipliers keep
   distinct k apart modulo 2^bits). */
static uint64_t value_bits(dmlref_tensor_data_type type, uint64_t k, int salt)
{
    double half = (double)(k + 1) * 0.5 + (salt ? 0.25 : 0.0);
    double f = (k % 2) ? -half : half;
    uint64_t m = k + 1 + (uint64_t)(salt ? 100 : 0);
    switch (type) {
    case DMLREF_TENSOR_DATA_TYPE_FLOAT64: { uint64_t b; memcpy(&b, &f, 8); return b; }
    case DMLREF_TENSOR_DATA_TYPE_FLOAT32: { float x = (float)f; uint32_t b; memcpy(&b, &x, 4); return b; }
    case DMLREF_TENSOR_DATA_TYPE_FLOAT16: {
        /* |f| <= 1024 and a multiple of 1/4: exact as a half */
        double a = f < 0 ? -f : f;
        int e = 0;
        uint64_t sign = f < 0 ? 0x8000u : 0;
        while (a >= 2.0) { a /= 2.0; ++e; }
        while (a < 1.0) { a *= 2.0; --e; }
        return sign | ((uint64_t)(e + 15) << 10) | (uint64_t)((a - 1.0) * 1024.0);
    }
    case DMLREF_TENSOR_DATA_TYPE_INT8: return (uint64_t)(k % 2 ? -(int64_t)(m % 128) : (int64_t)(m % 128)) & 0xFF;
    case DMLREF_TENSOR_DATA_TYPE_UINT8: return m & 0xFF;
    case DMLREF_TENSOR_DATA_TYPE_INT16: return (uint64_t)(k % 2 ? -(int64_t)(m * 251) : (int64_t)(m * 251)) & 0xFFFF;
    case DMLREF_TENSOR_DATA_TYPE_UINT16: return (m * 1021) & 0xFFFF;
    case DMLREF_TENSOR_DATA_TYPE_INT32: return (uint64_t)(k % 2 ? -(int64_t)(m * 16777259) : (int64_t)(m * 16777259)) & 0xFFFFFFFFu;
    case DMLREF_TENSOR_DATA_TYPE_UINT32: return (m * 40000003u) & 0xFFFFFFFFu;
    case DMLREF_TENSOR_DATA_TYPE_INT64: return m * 0x0123456789ABCDEFull;
    default: return m * 0x9E3779B97F4A7C15ull; /* UINT64 */
    }
}

/* The canonical element of logical element e: the first logical element
   sharing its address (a broadcast dimension's coordinate taken as 0). */
static uint64_t canonical_index(const tspec *t, uint64_t e)
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

/* Logical elements for a tensor: each takes the value of its canonical
   element, so a broadcast layout holds them. */
static uint64_t *fill(const tspec *t, int salt)
{
    uint64_t n = count_of(t), e, *data = malloc((size_t)n * sizeof *data + 8);
    if (!data)
        exit(EXIT_BAD_INPUT);
    for (e = 0; e < n; ++e)
        data[e] = value_bits(t->type, canonical_index(t, e), salt);
    return data;
}

/* An index value of class `position`: the boundaries first (0, s-1, then -s
   and -1 for signed types), then random. */
static int64_t index_value(rng *r, uint64_t position, uint32_t s, int is_signed)
{
    switch (position % 6) {
    case 0: return 0;
    case 1: return (int64_t)s - 1;
    case 2: if (is_signed) return -(int64_t)s; break;
    case 3: if (is_signed) return -1; break;
    default: break;
    }
    return is_signed ? (int64_t)below(r, 2 * s) - (int64_t)s : (int64_t)below(r, s);
}

static uint64_t index_bits(dmlref_tensor_data_type type, int64_t v)
{
    return dmlref_data_type_size(type) == 4 ? (uint64_t)v & 0xFFFFFFFFu : (uint64_t)v;
}

static int is_signed_index(dmlref_tensor_data_type type)
{
    return type == DMLREF_TENSOR_DATA_TYPE_INT32 || type == DMLREF_TENSOR_DATA_TYPE_INT64;
}

/* ---- shapes and layouts -------------------------------------------------------- */

static void set_tensor(tspec *t, dmlref_tensor_data_type type, uint32_t rank, const uint32_t *sizes)
{
    memset(t, 0, sizeof *t);
    t->type = type;
    t->rank = rank;
    memcpy(t->sizes, sizes, rank * sizeof *sizes);
}

/* Random sizes of `rank` dimensions, 1 to 4 each, at most `budget` elements,
   and at least two. */
static void random_sizes(rng *r, uint32_t rank, uint32_t budget, uint32_t *sizes)
{
    uint32_t total, i;
    do {
        total = 1;
        for (i = 0; i < rank; ++i) {
            sizes[i] = 1 + below(r, rank > 5 ? 2 : rank > 2 ? 3 : 4);
            total *= sizes[i];
        }
    } while (total > budget || total < 2);
}

static void apply_layout(rng *r, tspec *t, enum layout_kind kind)
{
    uint32_t order[8], i, step = 1;
    int broadcast_done = 0;
    if (kind == PACKED)
        return;
    for (i = 0; i < t->rank; ++i)
        order[i] = i;
    if (kind == PERMUTED)
        for (i = t->rank; i > 1; --i) {
            uint32_t j = below(r, i), tmp = order[i - 1];
            order[i - 1] = order[j];
            order[j] = tmp;
        }
    for (i = t->rank; i-- > 0;) { /* order[rank-1] innermost */
        uint32_t d = order[i];
        t->strides[d] = step * (kind == STRIDED && i == t->rank - 1 ? 2 : 1);
        step = t->strides[d] * t->sizes[d] + (kind == PADDED ? 1 : 0);
    }
    if (kind == BROADCAST)
        for (i = 0; i < t->rank && !broadcast_done; ++i)
            if (t->sizes[i] > 1) {
                t->strides[i] = 0;
                broadcast_done = 1;
            }
    t->strided = 1;
}

/* Names are lower case: `<operator>/<dtype>/<rank>d/<scenario>`. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void case_name(case_spec *c, dmlref_tensor_data_type type, uint32_t rank,
                      const char *format, ...)
{
    char op[32], ty[16], raw[128], scenario[128];
    va_list args;
    va_start(args, format);
    vsnprintf(raw, sizeof raw, format, args);
    va_end(args);
    lower(raw, scenario, sizeof scenario);
    snprintf(c->name, sizeof c->name, "%s/%s/%ud/%s", lower(dmlref_operator_name(c->op), op, sizeof op),
             lower(dmlref_data_type_name(type), ty, sizeof ty), rank, scenario);
}

/* ---- the sweeps ------------------------------------------------------------------ */

const dmlref_tensor_data_type suite_data_types[11] = {
    DMLREF_TENSOR_DATA_TYPE_FLOAT32, DMLREF_TENSOR_DATA_TYPE_FLOAT16, DMLREF_TENSOR_DATA_TYPE_UINT32,
    DMLREF_TENSOR_DATA_TYPE_UINT16,  DMLREF_TENSOR_DATA_TYPE_UINT8,   DMLREF_TENSOR_DATA_TYPE_INT32,
    DMLREF_TENSOR_DATA_TYPE_INT16,   DMLREF_TENSOR_DATA_TYPE_INT8,    DMLREF_TENSOR_DATA_TYPE_FLOAT64,
    DMLREF_TENSOR_DATA_TYPE_UINT64,  DMLREF_TENSOR_DATA_TYPE_INT64};
static const dmlref_tensor_data_type k_index_types[4] = {
    DMLREF_TENSOR_DATA_TYPE_UINT32, DMLREF_TENSOR_DATA_TYPE_INT32, DMLREF_TENSOR_DATA_TYPE_UINT64,
    DMLREF_TENSOR_DATA_TYPE_INT64};

/* Index data for an elements-style index tensor along `axis` of size s. */
static uint64_t *axis_indices(rng *r, const tspec *t, uint32_t s)
{
    uint64_t n = count_of(t), e, *data = malloc((size_t)n * sizeof *data + 8);
    if (!data)
        exit(EXIT_BAD_INPUT);
    for (e = 0; e < n; ++e)
        data[e] = index_bits(t->type, index_value(r, e, s, is_signed_index(t->type)));
    return data;
}

static void gather_elements_case(suite *s, dmlref_tensor_data_type type,
                                 dmlref_tensor_data_type itype, uint32_t rank, uint32_t axis,
                                 enum layout_kind layout)
{
    case_spec c;
    uint32_t sizes[8], idx_sizes[8];
    memset(&c, 0, sizeof c);
    c.op = DMLREF_OPERATOR_GATHER_ELEMENTS;
    c.index_type = itype;
    c.attributes[0] = axis;
    random_sizes(&s->r, rank, 36, sizes);
    memcpy(idx_sizes, sizes, sizeof sizes);
    idx_sizes[axis] = 1 + below(&s->r, sizes[axis] + 1); /* fewer, as many, or more (R-GE-3) */
    set_tensor(&c.t[0], type, rank, sizes);
    set_tensor(&c.t[1], itype, rank, idx_sizes);
    set_tensor(&c.t[2], type, rank, idx_sizes);
    apply_layout(&s->r, &c.t[0], layout == STRIDED ? PACKED : layout);
    apply_layout(&s->r, &c.t[1], layout == PADDED || layout == PERMUTED ? layout : PACKED);
    apply_layout(&s->r, &c.t[2], layout == STRIDED || layout == PADDED ? layout : PACKED);
    c.t[2].omit_sizes = !c.t[2].strided;
    c.t[0].data = fill(&c.t[0], 0);
    c.t[1].data = axis_indices(&s->r, &c.t[1], sizes[axis]);
    case_name(&c, type, rank, "axis%u_%s_%s", axis,
              is_signed_index(itype) ? (dmlref_data_type_size(itype) == 4 ? "int32" : "int64")
                                     : (dmlref_data_type_size(itype) == 4 ? "uint32" : "uint64"),
              k_layout_names[layout]);
    emit(s, &c);
}

static void scatter_elements_case(suite *s, dmlref_tensor_data_type type,
                                  dmlref_tensor_data_type itype, uint32_t rank, uint32_t axis,
                                  enum layout_kind layout)
{
    case_spec c;
    uint32_t sizes[8], idx_sizes[8];
    char itext[16];
    memset(&c, 0, sizeof c);
    c.op = DMLREF_OPERATOR_SCATTER_ELEMENTS;
    c.index_type = itype;
    c.attributes[0] = axis;
    random_sizes(&s->r, rank, 36, sizes);
    memcpy(idx_sizes, sizes, sizeof sizes);
    idx_sizes[axis] = 1 + below(&s->r, sizes[axis] + 1); /* more than s implies duplicates (D16) */
    set_tensor(&c.t[0], type, rank, sizes);
    set_tensor(&c.t[1], itype, rank, idx_sizes);
    set_tensor(&c.t[2], type, rank, idx_sizes);
    set_tensor(&c.t[3], type, rank, sizes);
    apply_layout(&s->r, &c.t[0], layout == STRIDED ? PACKED : layout);
    apply_layout(&s->r, &c.t[1], layout == PADDED || layout == PERMUTED ? layout : PACKED);
    apply_layout(&s->r, &c.t[2], layout == PADDED || layout == PERMUTED ? layout : PACKED);
    apply_layout(&s->r, &c.t[3], layout == STRIDED || layout == PADDED ? layout : PACKED);
    c.t[3].omit_sizes = !c.t[3].strided;
    c.t[0].data = fill(&c.t[0], 0);
    c.t[1].data = axis_indices(&s->r, &c.t[1], sizes[axis]);
    c.t[2].data = fill(&c.t[2], 1);
    case_name(&c, type, rank, "axis%u_%s_%s", axis,
              lower(dmlref_data_type_name(itype), itext, sizeof itext), k_layout_names[layout]);
    emit(s, &c);
}

/* GatherND / GatherND1 with random valid (m, q, b, k) for rank D. */
static void gather_nd_case(suite *s, dmlref_operator_type op, dmlref_tensor_data_type type,
                           dmlref_tensor_data_type itype, uint32_t D, enum layout_kind layout)
{
    case_spec c;
    uint32_t m, q, b, k, rr, i, in_sizes[8], idx_sizes[8], out_sizes[8], mean[8];
    uint64_t n, e;
    char itext[16];
    do {
        m = 1 + below(&s->r, D);
        q = 1 + below(&s->r, D);
        b = op == DMLREF_OPERATOR_GATHER_ND1 ? below(&s->r, m < q ? m : q) : 0;
        k = 1 + below(&s->r, m - b);
        rr = m - b - k;
    } while (q - 1 + rr > D);
    memset(&c, 0, sizeof c);
    c.op = op;
    c.index_type = itype;
    c.attributes[0] = m, c.attributes[1] = q, c.attributes[2] = b;
    random_sizes(&s->r, D, 36, mean);
    for (i = 0; i < D; ++i)
        in_sizes[i] = i < D - m ? 1 : mean[i];
    random_sizes(&s->r, D, 12, mean);
    for (i = 0; i < D; ++i)
        idx_sizes[i] = i < D - q ? 1 : mean[i];
    for (i = 0; i < b; ++i) /* batch dimensions agree (R-GN-6) */
        idx_sizes[D - q + i] = in_sizes[D - m + i];
    idx_sizes[D - 1] = k;
    for (i = 0; i < D; ++i)
        out_sizes[i] = 1;
    for (i = 0; i + 1 < q; ++i)
        out_sizes[D - (q - 1 + rr) + i] = idx_sizes[D - q + i];
    for (i = 0; i < rr; ++i)
        out_sizes[D - rr + i] = in_sizes[D - rr + i];
    set_tensor(&c.t[0], type, D, in_sizes);
    set_tensor(&c.t[1], itype, D, idx_sizes);
    set_tensor(&c.t[2], type, D, out_sizes);
    apply_layout(&s->r, &c.t[0], layout == STRIDED ? PACKED : layout);
    apply_layout(&s->r, &c.t[1], layout == PADDED || layout == PERMUTED ? layout : PACKED);
    apply_layout(&s->r, &c.t[2], layout == STRIDED || layout == PADDED ? layout : PACKED);
    c.t[2].omit_sizes = !c.t[2].strided;
    c.t[0].data = fill(&c.t[0], 0);
    n = count_of(&c.t[1]);
    c.t[1].data = malloc((size_t)n * sizeof *c.t[1].data + 8);
    if (!c.t[1].data)
        exit(EXIT_BAD_INPUT);
    for (e = 0; e < n; ++e) { /* component j of a tuple indexes dimension D-m+b+j */
        uint32_t j = (uint32_t)(e % k);
        c.t[1].data[e] = index_bits(itype, index_value(&s->r, e / k + j, in_sizes[D - m + b + j],
                                                       is_signed_index(itype)));
    }
    case_name(&c, type, D, "m%u_q%u_b%u_k%u_%s_%s", m, q, b, k,
              lower(dmlref_data_type_name(itype), itext, sizeof itext), k_layout_names[layout]);
    emit(s, &c);
}

static const dmlref_tensor_data_type k_nonzero_types[8] = {
    DMLREF_TENSOR_DATA_TYPE_FLOAT32, DMLREF_TENSOR_DATA_TYPE_FLOAT16, DMLREF_TENSOR_DATA_TYPE_UINT32,
    DMLREF_TENSOR_DATA_TYPE_UINT16,  DMLREF_TENSOR_DATA_TYPE_UINT8,   DMLREF_TENSOR_DATA_TYPE_INT32,
    DMLREF_TENSOR_DATA_TYPE_INT16,   DMLREF_TENSOR_DATA_TYPE_INT8};

/* NonZero on c->t[0] (set by the caller, data included): N columns; count
   and coordinate tensors in DirectMLX's shapes ({1}, {M, N}), or the input's
   rank below FL 4_0 (R-NZ-6); the coordinates laid out as `layout`. */
static void nonzero_case(suite *s, case_spec *c, uint32_t n_columns, enum layout_kind layout)
{
    uint32_t ones[8] = {1, 1, 1, 1, 1, 1, 1, 1}, co_sizes[8], i, rank = c->t[0].rank;
    uint64_t m = count_of(&c->t[0]);
    int same_rank = c->level && c->level < DMLREF_FEATURE_LEVEL_4_0;
    uint32_t co_rank = same_rank ? rank : 2;
    for (i = 0; i < 8; ++i)
        co_sizes[i] = 1;
    co_sizes[co_rank - 2] = (uint32_t)m;
    co_sizes[co_rank - 1] = n_columns;
    c->op = DMLREF_OPERATOR_NONZERO_COORDINATES;
    set_tensor(&c->t[1], DMLREF_TENSOR_DATA_TYPE_UINT32, same_rank ? rank : 1, ones);
    set_tensor(&c->t[2], DMLREF_TENSOR_DATA_TYPE_UINT32, co_rank, co_sizes);
    apply_layout(&s->r, &c->t[2], layout);
    emit(s, c);
}

/* Input data with about eighths/8 of the elements non-zero (decided per
   canonical element, so a broadcast layout holds them too). */
static uint64_t *sparse_values(rng *r, const tspec *t, uint32_t eighths)
{
    uint64_t *data = fill(t, 0), n = count_of(t), e, salt = next(r);
    for (e = 0; e < n; ++e) {
        rng pick;
        pick.state = salt ^ canonical_index(t, e);
        if (below(&pick, 8) >= eighths)
            data[e] = 0;
    }
    return data;
}

static void sweeps(suite *s)
{
    uint32_t ti, xi, rank, variant;
    for (ti = 0; ti < 11; ++ti) {
        for (xi = 0; xi < 4; ++xi) {
            for (rank = 1; rank <= 8; ++rank) {
                for (variant = 0; variant < 2; ++variant) {
                    uint32_t turn = ti + xi + rank + variant * 2;
                    enum layout_kind layout = (enum layout_kind)(turn % LAYOUT_KINDS);
                    uint32_t axis = (ti + xi * 3 + variant * 5) % rank;
                    gather_elements_case(s, suite_data_types[ti], k_index_types[xi], rank, axis, layout);
                    scatter_elements_case(s, suite_data_types[ti], k_index_types[xi], rank,
                                          (axis + 1) % rank, layout);
                }
                gather_nd_case(s, DMLREF_OPERATOR_GATHER_ND, suite_data_types[ti], k_index_types[xi], rank,
                               (enum layout_kind)((ti + xi + rank) % LAYOUT_KINDS));
                gather_nd_case(s, DMLREF_OPERATOR_GATHER_ND1, suite_data_types[ti], k_index_types[xi],
                               rank, (enum layout_kind)((ti + xi + rank + 2) % LAYOUT_KINDS));
            }
        }
    }
    for (ti = 0; ti < 8; ++ti) {
        for (rank = 1; rank <= 8; ++rank) {
            for (variant = 0; variant < 4; ++variant) { /* densities 0, 1/4, 5/8, 1 */
                static const uint32_t eighths[4] = {0, 2, 5, 8};
                case_spec c;
                uint32_t sizes[8], e, n;
                enum layout_kind layout = (enum layout_kind)((ti + rank + variant) % LAYOUT_KINDS);
                memset(&c, 0, sizeof c);
                c.op = DMLREF_OPERATOR_NONZERO_COORDINATES;
                random_sizes(&s->r, rank, 36, sizes);
                for (e = rank; e > 0 && sizes[rank - e] == 1; --e)
                    ; /* the effective rank (R-NZ-4) */
                n = (e ? e : 1) + below(&s->r, rank - (e ? e : 1) + 1); /* N in [e, D] */
                set_tensor(&c.t[0], k_nonzero_types[ti], rank, sizes);
                apply_layout(&s->r, &c.t[0], layout == STRIDED ? PACKED : layout);
                c.t[0].data = sparse_values(&s->r, &c.t[0], eighths[variant]);
                case_name(&c, k_nonzero_types[ti], rank, "density%u_n%u_%s",
                          eighths[variant] * 125, n, k_layout_names[layout]);
                nonzero_case(s, &c, n,
                             layout == STRIDED || layout == PERMUTED ? layout : PACKED);
            }
        }
    }
}

/* ---- the seeds' examples, corrected (D20) ------------------------------------- */

static uint64_t f32(double v)
{
    float f = (float)v;
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

static uint64_t *f32_array(const double *values, size_t n)
{
    uint64_t *data = malloc(n * sizeof *data + 8);
    size_t i;
    if (!data)
        exit(EXIT_BAD_INPUT);
    for (i = 0; i < n; ++i)
        data[i] = f32(values[i]);
    return data;
}

static uint64_t *u64_array(const uint64_t *values, size_t n)
{
    uint64_t *data = malloc(n * sizeof *data + 8);
    if (!data)
        exit(EXIT_BAD_INPUT);
    memcpy(data, values, n * sizeof *data);
    return data;
}

static void seed_examples(suite *s)
{
    case_spec c;
    static const double seq9[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    static const double seq12[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    static const double zeros9[9] = {0};
    static const double nz_in[8] = {1.0, 0.0, 0.0, 2.0, -0.0, 3.5, 0.0, -5.2};

    { /* GatherElements: output DataType FLOAT32, not UINT32 (S-1) */
        static const uint32_t in[2] = {3, 3}, idx[2] = {2, 3};
        static const uint64_t indices[6] = {1, 2, 0, 2, 0, 0};
        memset(&c, 0, sizeof c);
        c.op = DMLREF_OPERATOR_GATHER_ELEMENTS;
        c.index_type = DMLREF_TENSOR_DATA_TYPE_UINT32;
        c.notes = "DirectML's example, corrected: the output DataType is FLOAT32, not UINT32 "
                  "(S-1, D20)";
        set_tensor(&c.t[0], DMLREF_TENSOR_DATA_TYPE_FLOAT32, 2, in);
        set_tensor(&c.t[1], DMLREF_TENSOR_DATA_TYPE_UINT32, 2, idx);
        set_tensor(&c.t[2], DMLREF_TENSOR_DATA_TYPE_FLOAT32, 2, idx);
        c.t[0].data = f32_array(seq9, 9);
        c.t[1].data = u64_array(indices, 6);
        snprintf(c.name, sizeof c.name, "gather_elements/float32/2d/doc_example");
        emit(s, &c);
    }
    { /* Scatter example 1: index 3 twice; either update may win (S-6) */
        static const uint32_t in[1] = {5}, idx[1] = {4};
        static const double input[5] = {0, 1, 2, 3, 4}, updates[4] = {5, 6, 7, 8};
        static const uint64_t indices[4] = {3, 1, 3, 0};
        memset(&c, 0, sizeof c);
        c.op = DMLREF_OPERATOR_SCATTER_ELEMENTS;
        c.index_type = DMLREF_TENSOR_DATA_TYPE_UINT32;
        c.notes = "DirectML's example 1: index 3 appears twice, which the same page calls invalid "
                  "with no guaranteed winner, so element 3 is 5 or 7, not 7 (S-6, R-SC-10, D4, D20)";
        set_tensor(&c.t[0], DMLREF_TENSOR_DATA_TYPE_FLOAT32, 1, in);
        set_tensor(&c.t[1], DMLREF_TENSOR_DATA_TYPE_UINT32, 1, idx);
        set_tensor(&c.t[2], DMLREF_TENSOR_DATA_TYPE_FLOAT32, 1, idx);
        set_tensor(&c.t[3], DMLREF_TENSOR_DATA_TYPE_FLOAT32, 1, in);
        c.t[0].data = f32_array(input, 5);
        c.t[1].data = u64_array(indices, 4);
        c.t[2].data = f32_array(updates, 4);
        snprintf(c.name, sizeof c.name, "scatter_elements/float32/1d/doc_example1_duplicate");
        emit(s, &c);
    }
    { /* Scatter example 2: InputTensor {3,3}, not {2,3} (S-5) */
        static const uint32_t in[2] = {3, 3}, idx[2] = {2, 3};
        static const double updates[6] = {10, 11, 12, 20, 21, 22};
        static const uint64_t indices[6] = {1, 0, 2, 0, 2, 1};
        memset(&c, 0, sizeof c);
        c.op = DMLREF_OPERATOR_SCATTER_ELEMENTS;
        c.index_type = DMLREF_TENSOR_DATA_TYPE_UINT32;
        c.notes = "DirectML's example 2, corrected: InputTensor Sizes {3,3}, not {2,3} (S-5, D20)";
        set_tensor(&c.t[0], DMLREF_TENSOR_DATA_TYPE_FLOAT32, 2, in);
        set_tensor(&c.t[1], DMLREF_TENSOR_DATA_TYPE_UINT32, 2, idx);
        set_tensor(&c.t[2], DMLREF_TENSOR_DATA_TYPE_FLOAT32, 2, idx);
        set_tensor(&c.t[3], DMLREF_TENSOR_DATA_TYPE_FLOAT32, 2, in);
        c.t[0].data = f32_array(zeros9, 9);
        c.t[1].data = u64_array(indices, 6);
        c.t[2].data = f32_array(updates, 6);
        snprintf(c.name, sizeof c.name, "scatter_elements/float32/2d/doc_example2");
        emit(s, &c);
    }
    { /* GatherND example 1 */
        static const uint32_t in[2] = {2, 2}, idx[2] = {2, 1};
        static const uint64_t indices[2] = {1, 0};
        memset(&c, 0, sizeof c);
        c.op = DMLREF_OPERATOR_GATHER_ND;
        c.index_type = DMLREF_TENSOR_DATA_TYPE_UINT32;
        c.attributes[0] = 2, c.attributes[1] = 2;
        c.notes = "DirectML's example 1 (D20)";
        set_tensor(&c.t[0], DMLREF_TENSOR_DATA_TYPE_FLOAT32, 2, in);
        set_tensor(&c.t[1], DMLREF_TENSOR_DATA_TYPE_UINT32, 2, idx);
        set_tensor(&c.t[2], DMLREF_TENSOR_DATA_TYPE_FLOAT32, 2, in);
        c.t[2].omit_sizes = 1;
        c.t[0].data = f32_array(seq12, 4);
        c.t[1].data = u64_array(indices, 2);
        snprintf(c.name, sizeof c.name, "gather_nd/float32/2d/doc_example1");
        emit(s, &c);
    }
    { /* GatherND example 2: the output is {1,1,2,2} (S-13) */
        static const uint32_t in[4] = {1, 2, 2, 2}, idx[4] = {1, 1, 2, 2};
        static const uint64_t indices[4] = {0, 1, 1, 0};
        memset(&c, 0, sizeof c);
        c.op = DMLREF_OPERATOR_GATHER_ND;
        c.index_type = DMLREF_TENSOR_DATA_TYPE_UINT32;
        c.attributes[0] = 3, c.attributes[1] = 2;
        c.notes = "DirectML's example 2; the output is {1,1,2,2} by DirectMLX's rule, as the "
                  "example says and the documents' formula does not (S-13, R-GN-7, D20)";
        set_tensor(&c.t[0], DMLREF_TENSOR_DATA_TYPE_FLOAT32, 4, in);
        set_tensor(&c.t[1], DMLREF_TENSOR_DATA_TYPE_UINT32, 4, idx);
        set_tensor(&c.t[2], DMLREF_TENSOR_DATA_TYPE_FLOAT32, 4, idx);
        c.t[2].omit_sizes = 1;
        c.t[0].data = f32_array(seq12, 8);
        c.t[1].data = u64_array(indices, 4);
        snprintf(c.name, sizeof c.name, "gather_nd/float32/4d/doc_example2");
        emit(s, &c);
    }
    { /* GatherND1 with one batch dimension */
        static const uint32_t in[4] = {1, 3, 2, 2}, idx[4] = {1, 3, 2, 2};
        static const uint64_t indices[12] = {0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 0};
        memset(&c, 0, sizeof c);
        c.op = DMLREF_OPERATOR_GATHER_ND1;
        c.index_type = DMLREF_TENSOR_DATA_TYPE_UINT32;
        c.attributes[0] = 3, c.attributes[1] = 3, c.attributes[2] = 1;
        c.notes = "DirectML's GATHER_ND1 example with BatchDimensionCount 1; output {1,1,3,2} (D20)";
        set_tensor(&c.t[0], DMLREF_TENSOR_DATA_TYPE_FLOAT32, 4, in);
        set_tensor(&c.t[1], DMLREF_TENSOR_DATA_TYPE_UINT32, 4, idx);
        set_tensor(&c.t[2], DMLREF_TENSOR_DATA_TYPE_FLOAT32, 4, idx);
        c.t[2].omit_sizes = 1;
        c.t[0].data = f32_array(seq12, 12);
        c.t[1].data = u64_array(indices, 12);
        snprintf(c.name, sizeof c.name, "gather_nd1/float32/4d/doc_example_batch");
        emit(s, &c);
    }
    { /* NonZero: rows past the count are undefined (S-12) */
        static const uint32_t in[4] = {1, 1, 2, 4};
        memset(&c, 0, sizeof c);
        c.level = DMLREF_FEATURE_LEVEL_3_0;
        c.notes = "DirectML's example: -0.0 is zero; rows 4-7 are undefined, not [0,0,0] (S-12, "
                  "R-NZ-14, D20); N = 3 < 4 takes the last three dimensions (R-NZ-13, D8: inferred "
                  "rule R-NZ-13)";
        snprintf(c.name, sizeof c.name, "nonzero_coordinates/float32/4d/doc_example");
        set_tensor(&c.t[0], DMLREF_TENSOR_DATA_TYPE_FLOAT32, 4, in);
        c.t[0].data = f32_array(nz_in, 8);
        nonzero_case(s, &c, 3, PACKED);
    }
}

/* ---- NonZero's special values ------------------------------------------------- */

static void nonzero_specials(suite *s)
{
    /* per float type: +0, -0, quiet NaN, NaN with a payload, +inf, -inf, 1 */
    static const uint64_t f32_bits[7] = {0x00000000u, 0x80000000u, 0x7FC00000u, 0xFFA00001u,
                                         0x7F800000u, 0xFF800000u, 0x3F800000u};
    static const uint64_t f16_bits[7] = {0x0000u, 0x8000u, 0x7E00u, 0xFD01u, 0x7C00u, 0xFC00u,
                                         0x3C00u};
    static const uint64_t f32_sub[4] = {0x00000001u, 0x80000000u, 0x807FFFFFu, 0x00000000u};
    static const uint64_t f16_sub[4] = {0x0001u, 0x8000u, 0x83FFu, 0x0000u};
    uint32_t size7[1] = {7}, size4[1] = {4}, i;
    for (i = 0; i < 2; ++i) {
        dmlref_tensor_data_type type = i ? DMLREF_TENSOR_DATA_TYPE_FLOAT16
                                         : DMLREF_TENSOR_DATA_TYPE_FLOAT32;
        case_spec c;
        memset(&c, 0, sizeof c);
        c.op = DMLREF_OPERATOR_NONZERO_COORDINATES;
        c.notes = "+0.0 and -0.0 are zero (R-NZ-8); NaN, whatever its payload, and the "
                  "infinities are not (R-NZ-9)";
        set_tensor(&c.t[0], type, 1, size7);
        c.t[0].data = u64_array(i ? f16_bits : f32_bits, 7);
        case_name(&c, type, 1, "zeros_nan_infinity");
        nonzero_case(s, &c, 1, PACKED);

        memset(&c, 0, sizeof c);
        c.op = DMLREF_OPERATOR_NONZERO_COORDINATES;
        c.notes = "subnormals are non-zero, as IEEE says (D7); a GPU that flushes them to zero "
                  "disagrees (R-NZ-10): this category is kept apart";
        set_tensor(&c.t[0], type, 1, size4);
        c.t[0].data = u64_array(i ? f16_sub : f32_sub, 4);
        case_name(&c, type, 1, "subnormal");
        nonzero_case(s, &c, 1, PACKED);
    }
    { /* all zero, all non-zero, effective rank 0, N above the effective rank */
        static const uint32_t sizes23[2] = {2, 3}, ones4[4] = {1, 1, 1, 1}, lead[3] = {1, 2, 2};
        case_spec c;
        uint64_t zeros[6] = {0}, ones[6] = {1, 2, 3, 4, 5, 6}, one[1] = {9};
        uint64_t mix[4] = {0, 7, 7, 0};
        memset(&c, 0, sizeof c);
        c.op = DMLREF_OPERATOR_NONZERO_COORDINATES;
        set_tensor(&c.t[0], DMLREF_TENSOR_DATA_TYPE_INT32, 2, sizes23);
        c.t[0].data = u64_array(zeros, 6);
        case_name(&c, DMLREF_TENSOR_DATA_TYPE_INT32, 2, "all_zero");
        c.notes = "count 0: every coordinate row is undefined (R-NZ-14)";
        nonzero_case(s, &c, 2, PACKED);
        memset(&c, 0, sizeof c);
        c.op = DMLREF_OPERATOR_NONZERO_COORDINATES;
        set_tensor(&c.t[0], DMLREF_TENSOR_DATA_TYPE_UINT16, 2, sizes23);
        c.t[0].data = u64_array(ones, 6);
        case_name(&c, DMLREF_TENSOR_DATA_TYPE_UINT16, 2, "all_nonzero");
        nonzero_case(s, &c, 2, PACKED);
        memset(&c, 0, sizeof c);
        c.op = DMLREF_OPERATOR_NONZERO_COORDINATES;
        set_tensor(&c.t[0], DMLREF_TENSOR_DATA_TYPE_INT8, 4, ones4);
        c.t[0].data = u64_array(one, 1);
        case_name(&c, DMLREF_TENSOR_DATA_TYPE_INT8, 4, "effective_rank_0");
        c.notes = "sizes {1,1,1,1}: effective rank 0, so N may be 1 (R-NZ-4, R-NZ-5)";
        nonzero_case(s, &c, 1, PACKED);
        memset(&c, 0, sizeof c);
        c.op = DMLREF_OPERATOR_NONZERO_COORDINATES;
        set_tensor(&c.t[0], DMLREF_TENSOR_DATA_TYPE_UINT8, 3, lead);
        c.t[0].data = u64_array(mix, 4);
        case_name(&c, DMLREF_TENSOR_DATA_TYPE_UINT8, 3, "n_above_effective_rank");
        c.notes = "effective rank 2, N = 3: the columns are the last three dimensions "
                  "(inferred rule R-NZ-13, D8)";
        nonzero_case(s, &c, 3, PACKED);
        memset(&c, 0, sizeof c);
        c.op = DMLREF_OPERATOR_NONZERO_COORDINATES;
        set_tensor(&c.t[0], DMLREF_TENSOR_DATA_TYPE_UINT8, 3, lead);
        c.t[0].data = u64_array(mix, 4);
        case_name(&c, DMLREF_TENSOR_DATA_TYPE_UINT8, 3, "n_at_effective_rank_ort_layout");
        c.notes = "coordinates written with strides {2, 2M}, as ONNX Runtime binds them "
                  "(R-TD-17, R-NZ-15); N = 2 < D takes the last two dimensions (inferred rule "
                  "R-NZ-13, D8)";
        c.t[0].type = DMLREF_TENSOR_DATA_TYPE_UINT8;
        {
            uint32_t ones1[1] = {1}, co[2] = {4, 2};
            c.op = DMLREF_OPERATOR_NONZERO_COORDINATES;
            set_tensor(&c.t[1], DMLREF_TENSOR_DATA_TYPE_UINT32, 1, ones1);
            set_tensor(&c.t[2], DMLREF_TENSOR_DATA_TYPE_UINT32, 2, co);
            c.t[2].strided = 1, c.t[2].strides[0] = 2, c.t[2].strides[1] = 8;
            emit(s, &c);
        }
    }
}

/* ---- special bit patterns through every data-moving operator ------------------------
 * NaN payloads (quiet and signalling, both signs), both zeros, subnormals and
 * infinities must come out of a gather or a scatter bit for bit (D12). */

static void special_patterns(suite *s)
{
    static const uint64_t f16[8] = {0x7E01u, 0xFD00u, 0x7C01u, 0x8000u, 0x0001u, 0x83FFu,
                                    0xFC00u, 0x3555u};
    static const uint64_t f32[8] = {0x7FC00001u, 0xFFA00000u, 0x7F800001u, 0x80000000u,
                                    0x00000001u, 0x807FFFFFu, 0xFF800000u, 0x3EAAAAABu};
    static const uint64_t f64[8] = {0x7FF8000000000001ull, 0xFFF4000000000000ull,
                                    0x7FF0000000000001ull, 0x8000000000000000ull,
                                    0x0000000000000001ull, 0x800FFFFFFFFFFFFFull,
                                    0xFFF0000000000000ull, 0x3FD5555555555555ull};
    static const uint64_t reverse[8] = {7, 6, 5, 4, 3, 2, 1, 0};
    static const struct {
        dmlref_tensor_data_type type;
        const uint64_t *bits;
    } sets[3] = {{DMLREF_TENSOR_DATA_TYPE_FLOAT16, f16},
                 {DMLREF_TENSOR_DATA_TYPE_FLOAT32, f32},
                 {DMLREF_TENSOR_DATA_TYPE_FLOAT64, f64}};
    static const uint32_t row[1] = {8}, matrix[2] = {8, 1}, one[2] = {8, 1};
    size_t i;
    for (i = 0; i < 3; ++i) {
        case_spec c;
        const char *notes = "NaN payloads (quiet, signalling, both signs), -0.0, subnormals and "
                            "infinities move bit for bit (D12)";
        memset(&c, 0, sizeof c);
        c.op = DMLREF_OPERATOR_GATHER_ELEMENTS;
        c.index_type = DMLREF_TENSOR_DATA_TYPE_UINT32;
        c.notes = notes;
        set_tensor(&c.t[0], sets[i].type, 1, row);
        set_tensor(&c.t[1], DMLREF_TENSOR_DATA_TYPE_UINT32, 1, row);
        set_tensor(&c.t[2], sets[i].type, 1, row);
        c.t[0].data = u64_array(sets[i].bits, 8);
        c.t[1].data = u64_array(reverse, 8);
        case_name(&c, sets[i].type, 1, "special_bit_patterns");
        emit(s, &c);

        memset(&c, 0, sizeof c);
        c.op = DMLREF_OPERATOR_SCATTER_ELEMENTS;
        c.index_type = DMLREF_TENSOR_DATA_TYPE_UINT32;
        c.notes = notes;
        set_tensor(&c.t[0], sets[i].type, 1, row);
        set_tensor(&c.t[1], DMLREF_TENSOR_DATA_TYPE_UINT32, 1, row);
        set_tensor(&c.t[2], sets[i].type, 1, row);
        set_tensor(&c.t[3], sets[i].type, 1, row);
        c.t[0].data = fill(&c.t[0], 0);
        c.t[1].data = u64_array(reverse, 8);
        c.t[2].data = u64_array(sets[i].bits, 8);
        case_name(&c, sets[i].type, 1, "special_bit_patterns");
        emit(s, &c);

        memset(&c, 0, sizeof c); /* GatherND: the rows of an {8,1} input, reversed */
        c.op = DMLREF_OPERATOR_GATHER_ND;
        c.index_type = DMLREF_TENSOR_DATA_TYPE_UINT32;
        c.attributes[0] = 2, c.attributes[1] = 2;
        c.notes = notes;
        set_tensor(&c.t[0], sets[i].type, 2, matrix);
        set_tensor(&c.t[1], DMLREF_TENSOR_DATA_TYPE_UINT32, 2, one);
        set_tensor(&c.t[2], sets[i].type, 2, matrix);
        c.t[2].omit_sizes = 1;
        c.t[0].data = u64_array(sets[i].bits, 8);
        c.t[1].data = u64_array(reverse, 8);
        case_name(&c, sets[i].type, 2, "special_bit_patterns");
        emit(s, &c);
    }
}

/* ---- feature levels ------------------------------------------------------------ */

/* A small GatherElements case at a level, with the given types and rank. */
static void level_gather_elements(suite *s, dmlref_feature_level level, dmlref_tensor_data_type type,
                                  dmlref_tensor_data_type itype, uint32_t rank,
                                  dmlref_status error, const char *rule, const char *scenario)
{
    static const uint32_t sizes4[4] = {1, 2, 1, 3}, sizes3[3] = {2, 1, 3};
    case_spec c;
    static const uint64_t indices[6] = {2, 0, 1, 1, 2, 0};
    memset(&c, 0, sizeof c);
    c.op = DMLREF_OPERATOR_GATHER_ELEMENTS;
    c.level = level;
    c.error = error;
    c.rule = rule;
    c.index_type = itype;
    c.attributes[0] = rank - 1;
    set_tensor(&c.t[0], type, rank, rank == 4 ? sizes4 : sizes3);
    set_tensor(&c.t[1], itype, rank, rank == 4 ? sizes4 : sizes3);
    set_tensor(&c.t[2], type, rank, rank == 4 ? sizes4 : sizes3);
    c.t[0].data = fill(&c.t[0], 0);
    c.t[1].data = u64_array(indices, 6);
    case_name(&c, type, rank, "%s", scenario);
    emit(s, &c);
}

static void feature_levels(suite *s)
{
    const dmlref_tensor_data_type F32 = DMLREF_TENSOR_DATA_TYPE_FLOAT32,
                                  U32 = DMLREF_TENSOR_DATA_TYPE_UINT32;
    /* valid from 2_1: 4-D, UINT32 indices */
    level_gather_elements(s, DMLREF_FEATURE_LEVEL_2_1, F32, U32, 4, DMLREF_OK, NULL, "fl2_1_valid");
    /* valid from 3_0, refused at 2_1: 3-D (R-GE-5), signed indices (D3) */
    level_gather_elements(s, DMLREF_FEATURE_LEVEL_3_0, F32, U32, 3, DMLREF_OK, NULL,
                          "fl3_0_rank3_valid");
    level_gather_elements(s, DMLREF_FEATURE_LEVEL_2_1, F32, U32, 3,
                          DMLREF_ERROR_UNSUPPORTED_DIMENSION_COUNT, "R-GE-5",
                          "fl2_1_rank3_refused");
    level_gather_elements(s, DMLREF_FEATURE_LEVEL_2_1, F32, DMLREF_TENSOR_DATA_TYPE_INT32, 4,
                          DMLREF_ERROR_UNSUPPORTED_DATA_TYPE, "D3", "fl2_1_int32_indices_refused");
    level_gather_elements(s, DMLREF_FEATURE_LEVEL_3_0, F32, DMLREF_TENSOR_DATA_TYPE_INT32, 4,
                          DMLREF_OK, NULL, "fl3_0_int32_indices_valid");
    /* 64-bit data from 4_1 */
    level_gather_elements(s, DMLREF_FEATURE_LEVEL_4_0, DMLREF_TENSOR_DATA_TYPE_FLOAT64, U32, 4,
                          DMLREF_ERROR_UNSUPPORTED_DATA_TYPE, "R-GE-5", "fl4_0_float64_refused");
    level_gather_elements(s, DMLREF_FEATURE_LEVEL_4_1, DMLREF_TENSOR_DATA_TYPE_FLOAT64, U32, 4,
                          DMLREF_OK, NULL, "fl4_1_float64_valid");
    level_gather_elements(s, DMLREF_FEATURE_LEVEL_2_0, F32, U32, 4,
                          DMLREF_ERROR_UNSUPPORTED_OPERATOR, "R-GE-5", "fl2_0_refused");
    { /* Scatter: FLOAT16 from 2_0 (R-SC-12, D17), INT32 data from 2_1 */
        static const uint32_t sizes[4] = {1, 1, 2, 3}, idx[4] = {1, 1, 1, 3};
        static const uint64_t indices[3] = {1, 0, 1};
        static const struct {
            dmlref_feature_level level;
            dmlref_tensor_data_type type;
            dmlref_status error;
            const char *rule, *scenario;
        } rows[4] = {
            {DMLREF_FEATURE_LEVEL_2_0, DMLREF_TENSOR_DATA_TYPE_FLOAT16, DMLREF_OK, NULL, "fl2_0_valid"},
            {DMLREF_FEATURE_LEVEL_2_0, DMLREF_TENSOR_DATA_TYPE_INT32, DMLREF_ERROR_UNSUPPORTED_DATA_TYPE, "R-SC-7", "fl2_0_int32_refused"},
            {DMLREF_FEATURE_LEVEL_2_1, DMLREF_TENSOR_DATA_TYPE_INT32, DMLREF_OK, NULL, "fl2_1_valid"},
            {DMLREF_FEATURE_LEVEL_1_0, DMLREF_TENSOR_DATA_TYPE_FLOAT16, DMLREF_ERROR_UNSUPPORTED_OPERATOR, "R-SC-12", "fl1_0_refused_D17"},
        };
        size_t i;
        for (i = 0; i < 4; ++i) {
            case_spec c;
            memset(&c, 0, sizeof c);
            c.op = DMLREF_OPERATOR_SCATTER_ELEMENTS;
            c.level = rows[i].level;
            c.error = rows[i].error;
            c.rule = rows[i].rule;
            c.index_type = U32;
            c.attributes[0] = 2;
            set_tensor(&c.t[0], rows[i].type, 4, sizes);
            set_tensor(&c.t[1], U32, 4, idx);
            set_tensor(&c.t[2], rows[i].type, 4, idx);
            set_tensor(&c.t[3], rows[i].type, 4, sizes);
            c.t[0].data = fill(&c.t[0], 0);
            c.t[1].data = u64_array(indices, 3);
            c.t[2].data = fill(&c.t[2], 1);
            case_name(&c, rows[i].type, 4, "%s", rows[i].scenario);
            emit(s, &c);
        }
    }
    { /* NonZero: from 3_0 with 4-5 dims of one rank; other ranks from 4_0 */
        static const uint32_t in4[4] = {1, 1, 2, 2}, in2[2] = {2, 2};
        static const uint64_t values[4] = {0, 3, 0, 4};
        case_spec c;
        memset(&c, 0, sizeof c);
        c.op = DMLREF_OPERATOR_NONZERO_COORDINATES;
        c.level = DMLREF_FEATURE_LEVEL_3_0;
        set_tensor(&c.t[0], DMLREF_TENSOR_DATA_TYPE_INT16, 4, in4);
        c.t[0].data = u64_array(values, 4);
        case_name(&c, DMLREF_TENSOR_DATA_TYPE_INT16, 4, "fl3_0_same_ranks_valid");
        nonzero_case(s, &c, 4, PACKED);
        memset(&c, 0, sizeof c);
        c.op = DMLREF_OPERATOR_NONZERO_COORDINATES;
        c.level = DMLREF_FEATURE_LEVEL_3_0;
        c.error = DMLREF_ERROR_UNSUPPORTED_DIMENSION_COUNT;
        c.rule = "R-NZ-6";
        set_tensor(&c.t[0], DMLREF_TENSOR_DATA_TYPE_INT16, 2, in2);
        c.t[0].data = u64_array(values, 4);
        case_name(&c, DMLREF_TENSOR_DATA_TYPE_INT16, 2, "fl3_0_rank2_refused");
        nonzero_case(s, &c, 2, PACKED);
        memset(&c, 0, sizeof c);
        c.op = DMLREF_OPERATOR_NONZERO_COORDINATES;
        c.level = DMLREF_FEATURE_LEVEL_4_0;
        set_tensor(&c.t[0], DMLREF_TENSOR_DATA_TYPE_INT16, 2, in2);
        c.t[0].data = u64_array(values, 4);
        case_name(&c, DMLREF_TENSOR_DATA_TYPE_INT16, 2, "fl4_0_rank2_valid_D10");
        nonzero_case(s, &c, 2, PACKED);
    }
}

/* ---- one expect_error case per validation rule ------------------------------------
 * Each starts from a small valid case of its operator and breaks one thing.
 * Each carries complete input data (refusal_data), so that a backend that
 * never validates computes something and is caught, rather than "refusing"
 * the case because it has nothing to load; only shapes that cannot hold data
 * go without. */

static void base_gather_elements(case_spec *c)
{
    static const uint32_t sizes[2] = {2, 3};
    memset(c, 0, sizeof *c);
    c->op = DMLREF_OPERATOR_GATHER_ELEMENTS;
    c->attributes[0] = 1;
    set_tensor(&c->t[0], DMLREF_TENSOR_DATA_TYPE_FLOAT32, 2, sizes);
    set_tensor(&c->t[1], DMLREF_TENSOR_DATA_TYPE_INT64, 2, sizes);
    set_tensor(&c->t[2], DMLREF_TENSOR_DATA_TYPE_FLOAT32, 2, sizes);
}

static void base_scatter(case_spec *c)
{
    static const uint32_t sizes[2] = {2, 3};
    memset(c, 0, sizeof *c);
    c->op = DMLREF_OPERATOR_SCATTER_ELEMENTS;
    c->attributes[0] = 1;
    set_tensor(&c->t[0], DMLREF_TENSOR_DATA_TYPE_INT16, 2, sizes);
    set_tensor(&c->t[1], DMLREF_TENSOR_DATA_TYPE_UINT32, 2, sizes);
    set_tensor(&c->t[2], DMLREF_TENSOR_DATA_TYPE_INT16, 2, sizes);
    set_tensor(&c->t[3], DMLREF_TENSOR_DATA_TYPE_INT16, 2, sizes);
}

static void base_gather_nd1(case_spec *c)
{
    /* input {2,3,4}, m=3; indices {2,5,1}, q=3, b=1, k=1 -> output {2,5,4} */
    static const uint32_t in[3] = {2, 3, 4}, idx[3] = {2, 5, 1}, out[3] = {2, 5, 4};
    memset(c, 0, sizeof *c);
    c->op = DMLREF_OPERATOR_GATHER_ND1;
    c->attributes[0] = 3, c->attributes[1] = 3, c->attributes[2] = 1;
    set_tensor(&c->t[0], DMLREF_TENSOR_DATA_TYPE_UINT8, 3, in);
    set_tensor(&c->t[1], DMLREF_TENSOR_DATA_TYPE_INT32, 3, idx);
    set_tensor(&c->t[2], DMLREF_TENSOR_DATA_TYPE_UINT8, 3, out);
}

static void base_nonzero(case_spec *c)
{
    static const uint32_t in[2] = {2, 3}, count[1] = {1}, co[2] = {6, 2};
    memset(c, 0, sizeof *c);
    c->op = DMLREF_OPERATOR_NONZERO_COORDINATES;
    set_tensor(&c->t[0], DMLREF_TENSOR_DATA_TYPE_FLOAT16, 2, in);
    set_tensor(&c->t[1], DMLREF_TENSOR_DATA_TYPE_UINT32, 1, count);
    set_tensor(&c->t[2], DMLREF_TENSOR_DATA_TYPE_UINT32, 2, co);
}

static void emit_error(suite *s, case_spec *c, dmlref_status error, const char *rule,
                       const char *scenario)
{
    c->error = error;
    c->rule = rule;
    case_name(c, c->t[0].type, c->t[0].rank, "error_%s", scenario);
    emit(s, c);
}

static int is_float(dmlref_tensor_data_type type)
{
    return type == DMLREF_TENSOR_DATA_TYPE_FLOAT16 || type == DMLREF_TENSOR_DATA_TYPE_FLOAT32 ||
           type == DMLREF_TENSOR_DATA_TYPE_FLOAT64;
}

static size_t input_count(dmlref_operator_type op)
{
    return op == DMLREF_OPERATOR_SCATTER_ELEMENTS      ? 3
           : op == DMLREF_OPERATOR_NONZERO_COORDINATES ? 1
                                                       : 2;
}

/* 1 when a tensor of this shape can carry data: at most 2^32-1 elements,
   and a minimum size (DMLCalcBufferTensorSize) that fits 64 bits. */
static int can_hold_data(const tspec *t)
{
    uint64_t n = 1;
    uint32_t d;
    for (d = 0; d < t->rank; ++d) {
        if (t->sizes[d] == 0)
            return 1; /* no element: "data": [] */
        n *= t->sizes[d];
        if (n > 0xFFFFFFFFull)
            return 0;
    }
    return dmlref_calc_buffer_tensor_size(t->type, t->rank, t->sizes,
                                          t->strided ? t->strides : NULL) != 0;
}

/* The size of the dimension an index selects in, 1 when the broken case
   leaves none (an Axis or an attribute out of range, a size of 0). */
static uint32_t selected_size(const tspec *t, uint64_t d)
{
    return d < t->rank && t->sizes[d] ? t->sizes[d] : 1;
}

/* Index element e of a case that must be refused: in range for the
   dimension it selects wherever the broken case still says which. */
static int64_t refusal_index(const case_spec *c, uint64_t e)
{
    const tspec *in = &c->t[0], *idx = &c->t[1];
    switch (c->op) {
    case DMLREF_OPERATOR_GATHER_ELEMENTS: /* along Axis of the input (R-GE-6) */
        return (int64_t)((e + 1) % selected_size(in, c->attributes[0]));
    case DMLREF_OPERATOR_SCATTER_ELEMENTS: { /* along Axis of input and output (R-SC-9) */
        uint32_t a = selected_size(in, c->attributes[0]), b = selected_size(&c->t[3], c->attributes[0]);
        return (int64_t)((e + 1) % (a < b ? a : b));
    }
    default: { /* GatherND/ND1: tuple entry j selects input dimension D-m+b+j (R-GN-9) */
        uint32_t k = selected_size(idx, idx->rank - 1), j = (uint32_t)(e % k);
        uint32_t b = c->op == DMLREF_OPERATOR_GATHER_ND1 ? c->attributes[2] : 0;
        int64_t dim = (int64_t)in->rank - c->attributes[0] + b + j;
        return (int64_t)((e / k + j) % selected_size(in, dim < 0 ? in->rank : (uint64_t)dim));
    }
    }
}

/* Complete input data for a case that must be refused, as a valid case of
   its shape would hold: the type's values (NonZero's input with zeros
   among them), indices in range (refusal_index).  Inputs that already have
   data keep it.  None when an input cannot hold data (can_hold_data). */
static void refusal_data(case_spec *c)
{
    size_t inputs = input_count(c->op), i;
    uint64_t n, e;
    for (i = 0; i < inputs; ++i)
        if (!c->t[i].data && !c->t[i].generator && !can_hold_data(&c->t[i]))
            return;
    for (i = 0; i < inputs; ++i) {
        tspec *t = &c->t[i];
        if (t->data || t->generator)
            continue;
        t->data = fill(t, i == 2);
        n = count_of(t);
        if (c->op == DMLREF_OPERATOR_NONZERO_COORDINATES) {
            for (e = 0; e < n; ++e)
                if (canonical_index(t, e) % 3 == 1)
                    t->data[e] = 0;
        } else if (i == 1) {
            for (e = 0; e < n; ++e)
                if (!is_float(t->type)) /* a float "index" tensor keeps its values */
                    t->data[e] = index_bits(t->type, refusal_index(c, e));
        }
    }
}

#define BROKEN(base, change, status, rule, scenario)                                           \
    do {                                                                                       \
        case_spec c;                                                                           \
        base(&c);                                                                              \
        change;                                                                                \
        refusal_data(&c);                                                                      \
        emit_error(s, &c, DMLREF_ERROR_##status, rule, scenario);                              \
    } while (0)

static void set_sizes(tspec *t, uint32_t rank, uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t sizes[3];
    sizes[0] = a, sizes[1] = b, sizes[2] = c;
    t->rank = rank;
    memcpy(t->sizes, sizes, sizeof sizes);
}

static void validation_errors(suite *s)
{
    /* the buffer tensor model (R-TD-*) */
    BROKEN(base_gather_elements, c.t[0].sizes[1] = 0; c.t[1].sizes[1] = 0; c.t[2].sizes[1] = 0,
           INVALID_SIZES, "R-TD-2", "size_zero_D18");
    BROKEN(base_gather_elements, c.t[0].extra = "\"total_bytes\": 20", INVALID_TOTAL_SIZE,
           "R-TD-9", "total_bytes_below_minimum");
    BROKEN(base_gather_elements,
           (c.t[0].sizes[0] = 4294967295u, c.t[1].sizes[0] = 4294967295u,
            c.t[2].sizes[0] = 4294967295u),
           TENSOR_TOO_LARGE, "R-TD-13", "elements_above_2_32");
    BROKEN(base_gather_elements, c.t[0].extra = "\"total_bytes\": 17179869184", TENSOR_TOO_LARGE,
           "R-TD-13", "total_bytes_above_2_32_elements_D13");
    BROKEN(base_gather_elements,
           (c.t[0].sizes[0] = c.t[1].sizes[0] = c.t[2].sizes[0] = 4294967295u,
            c.t[0].sizes[1] = c.t[1].sizes[1] = c.t[2].sizes[1] = 1, c.t[0].strided = 1,
            c.t[0].strides[0] = 4294967295u, c.t[0].strides[1] = 1),
           TENSOR_TOO_LARGE, "R-TD-10", "minimum_size_overflows_64_bits");
    BROKEN(base_gather_elements, c.t[0].extra = "\"alignment\": 2", INVALID_ALIGNMENT, "R-TD-14",
           "alignment_below_element_size");
    BROKEN(base_gather_elements, c.t[0].extra = "\"alignment\": 24", INVALID_ALIGNMENT, "R-TD-14",
           "alignment_not_power_of_two");
    BROKEN(base_gather_elements, c.t[0].extra = "\"flags\": 2", INVALID_FLAGS, "R-TD-15",
           "unknown_flag_D15");
    BROKEN(base_gather_elements, c.t[2].extra = "\"flags\": 1", INVALID_FLAGS, "R-TD-15",
           "owned_by_dml_output_D15");
    BROKEN(base_gather_elements, (c.t[2].strided = 1, c.t[2].strides[0] = 0, c.t[2].strides[1] = 1),
           OUTPUT_ALIASING, "D6", "output_stride_zero_R-TD-16");
    BROKEN(base_gather_elements, (c.t[2].strided = 1, c.t[2].strides[0] = 1, c.t[2].strides[1] = 1),
           OUTPUT_ALIASING, "D6", "output_strides_alias_R-TD-16");
    /* indices (R-IX-1, D3) */
    BROKEN(base_gather_elements, c.t[1].type = DMLREF_TENSOR_DATA_TYPE_INT16, UNSUPPORTED_DATA_TYPE,
           "R-IX-1", "int16_indices");
    /* GatherElements (R-GE-*) */
    BROKEN(base_gather_elements, (c.t[1].rank = 3, c.t[1].sizes[2] = 1), DIMENSION_COUNT_MISMATCH,
           "R-GE-1", "indices_rank_differs");
    BROKEN(base_gather_elements, c.attributes[0] = 2, INVALID_ATTRIBUTE, "R-GE-2", "axis_2_of_2d");
    BROKEN(base_gather_elements, c.t[1].sizes[0] = 1, SIZE_MISMATCH, "R-GE-3",
           "indices_smaller_off_axis_D5");
    BROKEN(base_gather_elements, c.t[2].sizes[1] = 2, SIZE_MISMATCH, "R-GE-4", "output_sizes_differ");
    BROKEN(base_gather_elements, c.t[2].type = DMLREF_TENSOR_DATA_TYPE_UINT32, DATA_TYPE_MISMATCH,
           "R-GE-4", "output_uint32_seed_mistake_S1");
    BROKEN(base_gather_elements, c.t[0].type = c.t[2].type = DMLREF_TENSOR_DATA_TYPE_INT64;
           c.level = DMLREF_FEATURE_LEVEL_3_1, UNSUPPORTED_DATA_TYPE, "R-GE-5", "int64_data_at_3_1");
    /* Scatter (R-SC-*) */
    BROKEN(base_scatter, (c.t[2].rank = 1), DIMENSION_COUNT_MISMATCH, "R-SC-1", "updates_rank_differs");
    BROKEN(base_scatter, c.t[2].type = DMLREF_TENSOR_DATA_TYPE_UINT16, DATA_TYPE_MISMATCH, "R-SC-2",
           "updates_type_differs");
    BROKEN(base_scatter, c.attributes[0] = 5, INVALID_ATTRIBUTE, "R-SC-3", "axis_5_of_2d");
    BROKEN(base_scatter, (c.t[1].sizes[0] = 1, c.t[2].sizes[0] = 1), SIZE_MISMATCH, "R-SC-4",
           "indices_smaller_off_axis_D5");
    BROKEN(base_scatter, c.t[2].sizes[1] = 2, SIZE_MISMATCH, "R-SC-5", "updates_sizes_differ");
    BROKEN(base_scatter, c.t[3].sizes[1] = 4, SIZE_MISMATCH, "R-SC-6", "output_sizes_differ");
    BROKEN(base_scatter, c.level = DMLREF_FEATURE_LEVEL_3_0;
           c.t[0].type = c.t[2].type = c.t[3].type = DMLREF_TENSOR_DATA_TYPE_INT64,
           UNSUPPORTED_DATA_TYPE, "R-SC-7", "int64_data_at_3_0");
    /* GatherND / GatherND1 (R-GN-*) */
    BROKEN(base_gather_nd1, c.t[2].type = DMLREF_TENSOR_DATA_TYPE_INT8, DATA_TYPE_MISMATCH,
           "R-GN-1", "output_type_differs");
    BROKEN(base_gather_nd1, c.attributes[0] = 4, INVALID_ATTRIBUTE, "R-GN-2",
           "input_dimension_count_above_rank");
    BROKEN(base_gather_nd1, c.attributes[2] = 3, INVALID_ATTRIBUTE, "R-GN-3", "batch_not_below_m_q");
    BROKEN(base_gather_nd1, (c.t[1].sizes[2] = 3), SIZE_MISMATCH, "R-GN-4",
           "tuple_longer_than_m_minus_b");
    BROKEN(base_gather_nd1, (c.attributes[0] = 2, c.t[2].sizes[2] = 1), SIZE_MISMATCH, "R-GN-5",
           "leading_input_size_not_one_D11");
    BROKEN(base_gather_nd1, (c.t[1].sizes[0] = 1, c.t[2].sizes[0] = 1), SIZE_MISMATCH, "R-GN-6",
           "batch_sizes_differ_D11");
    BROKEN(base_gather_nd1, c.t[2].sizes[1] = 4, SIZE_MISMATCH, "R-GN-7", "output_sizes_differ_S13");
    BROKEN(base_gather_nd1, c.level = DMLREF_FEATURE_LEVEL_2_1, UNSUPPORTED_OPERATOR, "R-GN-8",
           "gather_nd1_at_2_1");
    /* NonZeroCoordinates (R-NZ-*) */
    BROKEN(base_nonzero, c.t[1].type = DMLREF_TENSOR_DATA_TYPE_INT32, UNSUPPORTED_DATA_TYPE,
           "R-NZ-1", "count_int32");
    BROKEN(base_nonzero, (c.t[1].rank = 2, c.t[1].sizes[1] = 2), SIZE_MISMATCH, "R-NZ-1",
           "count_not_scalar");
    BROKEN(base_nonzero, c.t[2].type = DMLREF_TENSOR_DATA_TYPE_UINT16, UNSUPPORTED_DATA_TYPE,
           "R-NZ-2", "coordinates_uint16");
    BROKEN(base_nonzero, set_sizes(&c.t[2], 3, 2, 6, 2), SIZE_MISMATCH, "R-NZ-2",
           "coordinates_leading_size_not_one");
    BROKEN(base_nonzero, c.t[2].sizes[0] = 5, SIZE_MISMATCH, "R-NZ-3", "m_not_element_count");
    BROKEN(base_nonzero, c.t[2].sizes[1] = 1, SIZE_MISMATCH, "R-NZ-5", "n_below_effective_rank");
    BROKEN(base_nonzero, c.t[2].sizes[1] = 3, SIZE_MISMATCH, "R-NZ-5", "n_above_rank");
    BROKEN(base_nonzero, c.level = DMLREF_FEATURE_LEVEL_2_1, UNSUPPORTED_OPERATOR, "R-NZ-6",
           "at_2_1");
    BROKEN(base_nonzero, (c.t[0].type = DMLREF_TENSOR_DATA_TYPE_FLOAT64), UNSUPPORTED_DATA_TYPE,
           "R-NZ-7", "float64_input");
    BROKEN(base_nonzero,
           (c.level = DMLREF_FEATURE_LEVEL_3_0, set_sizes(&c.t[0], 3, 1, 2, 3),
            c.t[0].rank = 4, c.t[0].sizes[3] = 1, set_sizes(&c.t[1], 3, 1, 1, 1),
            c.t[1].rank = 5, c.t[1].sizes[3] = 1, c.t[1].sizes[4] = 1,
            set_sizes(&c.t[2], 3, 1, 1, 6), c.t[2].rank = 4, c.t[2].sizes[3] = 2),
           DIMENSION_COUNT_MISMATCH, "D10", "fl3_0_ranks_differ");
}

/* Output layouts that fail the stride-order proof and span more than 2^27
   offsets (D6, R-TD-17): decided exactly when there are at most 2^24
   elements, left undecided beyond that. */
static void output_layouts(suite *s)
{
    static const uint32_t sizes[2] = {3, 2}, in_nd[2] = {2, 4097}, idx_nd[2] = {4097, 1},
                          out_nd[2] = {4097, 4097};
    static const uint64_t indices[6] = {2, 0, 1, 1, 0, 2};
    case_spec c;

    memset(&c, 0, sizeof c);
    c.op = DMLREF_OPERATOR_GATHER_ELEMENTS;
    c.index_type = DMLREF_TENSOR_DATA_TYPE_UINT32;
    c.notes = "output strides {50331648, 67108864} fail the stride-order proof and span "
              "167772161 element offsets, yet put the 6 elements at distinct addresses: a valid "
              "layout (R-TD-17), which dmlref decides exactly (D6)";
    set_tensor(&c.t[0], DMLREF_TENSOR_DATA_TYPE_UINT8, 2, sizes);
    set_tensor(&c.t[1], DMLREF_TENSOR_DATA_TYPE_UINT32, 2, sizes);
    set_tensor(&c.t[2], DMLREF_TENSOR_DATA_TYPE_UINT8, 2, sizes);
    c.t[2].strided = 1, c.t[2].strides[0] = 3u << 24, c.t[2].strides[1] = 1u << 26;
    c.t[0].data = fill(&c.t[0], 0);
    c.t[1].data = u64_array(indices, 6);
    case_name(&c, DMLREF_TENSOR_DATA_TYPE_UINT8, 2, "output_sparse_strides_distinct");
    emit(s, &c);

    memset(&c, 0, sizeof c);
    c.op = DMLREF_OPERATOR_GATHER_ND;
    c.attributes[0] = 2, c.attributes[1] = 2;
    c.notes = "the limit of D6: an output of 16785409 elements (more than 2^24) whose strides "
              "{16385, 16384} fail the stride-order proof and span 134221825 element offsets "
              "(more than 2^27); dmlref does not decide whether two elements share an address "
              "(in fact none do)";
    set_tensor(&c.t[0], DMLREF_TENSOR_DATA_TYPE_UINT8, 2, in_nd);
    set_tensor(&c.t[1], DMLREF_TENSOR_DATA_TYPE_UINT32, 2, idx_nd);
    set_tensor(&c.t[2], DMLREF_TENSOR_DATA_TYPE_UINT8, 2, out_nd);
    c.t[2].strided = 1, c.t[2].strides[0] = 16385, c.t[2].strides[1] = 16384;
    c.t[0].generator = "{\"kind\": \"bits\", \"seed\": 9}";
    c.t[1].generator = "{\"kind\": \"index\", \"seed\": 10, \"low\": [0], \"high\": [1]}";
    emit_error(s, &c, DMLREF_ERROR_UNSUPPORTED_LAYOUT, "D6", "output_layout_undecidable_large");
}

/* Out-of-range indices: refused at execution under the strict policy (D1,
   D2), computed with clamped indices under "clamp" (R-IX-5). */
static void index_errors(suite *s)
{
    static const uint64_t ge_idx[6] = {0, 1, 2, 3, 0, 1}; /* 3 is out of range for 3 */
    static const uint64_t sc_idx[6] = {0, 1, 2, 2, 0, (uint64_t)-4};
    static const uint64_t nd_idx[10] = {0, 1, 2, 5, 1, 0, 2, 1, 0, 2};
    case_spec c;
    int clamp;
    for (clamp = 0; clamp < 2; ++clamp) {
        base_gather_elements(&c);
        c.t[0].data = fill(&c.t[0], 0);
        c.t[1].data = u64_array(ge_idx, 6);
        c.oob_clamp = clamp;
        c.index_type = c.t[1].type;
        if (clamp) {
            case_name(&c, c.t[0].type, 2, "out_of_range_clamped");
            c.notes = "under the clamp policy, index 3 reads element 2: what DirectML is "
                      "observed to do (R-IX-5), not a contract";
            emit(s, &c);
        } else {
            emit_error(s, &c, DMLREF_ERROR_INDEX_OUT_OF_RANGE, "D1", "index_out_of_range");
        }
        base_scatter(&c);
        c.t[1].type = DMLREF_TENSOR_DATA_TYPE_INT32;
        c.t[0].data = fill(&c.t[0], 0);
        c.t[1].data = u64_array(sc_idx, 6);
        c.t[1].data[5] &= 0xFFFFFFFFu;
        c.t[2].data = fill(&c.t[2], 1);
        c.oob_clamp = clamp;
        c.index_type = c.t[1].type;
        if (clamp) {
            case_name(&c, c.t[0].type, 2, "out_of_range_clamped");
            emit(s, &c);
        } else {
            emit_error(s, &c, DMLREF_ERROR_INDEX_OUT_OF_RANGE, "D2", "index_out_of_range");
        }
        base_gather_nd1(&c);
        c.t[0].data = fill(&c.t[0], 0);
        c.t[1].data = u64_array(nd_idx, 10);
        c.oob_clamp = clamp;
        c.index_type = c.t[1].type;
        if (clamp) {
            case_name(&c, c.t[0].type, 3, "out_of_range_clamped");
            emit(s, &c);
        } else {
            emit_error(s, &c, DMLREF_ERROR_INDEX_OUT_OF_RANGE, "D1", "index_out_of_range");
        }
    }
}

/* ---- R-IX-3: an unsigned index is never negative ------------------------------------
 * UINT32 0x80000000 and 0xFFFFFFFF, UINT64 2^63 and 2^64-1 are above every
 * range: refused under the strict policy (D1, D2), clamped to s-1 under
 * "clamp".  A backend that reads them as signed sees -2^31 or -2^63 (below
 * the range: clamped to 0, not s-1) and -1 (s-1 by R-IX-2, in range: not
 * refused), so the clamp vectors hold both kinds. */

/* A small valid case of `op` with index type `itype`, its input data and
   in-range indices; returns the number of index elements. */
static size_t unsigned_index_case(case_spec *c, dmlref_operator_type op,
                                  dmlref_tensor_data_type itype)
{
    static const uint32_t ge_in[2] = {2, 4}, ge_idx[2] = {2, 3}, sc_idx[2] = {2, 2},
                          nd_in[2] = {4, 3}, nd_idx[2] = {3, 1}, nd1_in[3] = {2, 4, 3},
                          nd1_idx[3] = {2, 2, 1}, nd1_out[3] = {2, 2, 3};
    static const uint64_t ge_values[6] = {0, 3, 1, 2, 1, 0}, sc_values[4] = {0, 2, 1, 3},
                          nd_values[3] = {2, 0, 1}, nd1_values[4] = {1, 0, 3, 2};
    memset(c, 0, sizeof *c);
    c->op = op;
    c->index_type = itype;
    switch (op) {
    case DMLREF_OPERATOR_GATHER_ELEMENTS: /* along Axis 1, s = 4 */
        c->attributes[0] = 1;
        set_tensor(&c->t[0], DMLREF_TENSOR_DATA_TYPE_FLOAT32, 2, ge_in);
        set_tensor(&c->t[1], itype, 2, ge_idx);
        set_tensor(&c->t[2], DMLREF_TENSOR_DATA_TYPE_FLOAT32, 2, ge_idx);
        c->t[0].data = fill(&c->t[0], 0);
        c->t[1].data = u64_array(ge_values, 6);
        return 6;
    case DMLREF_OPERATOR_SCATTER_ELEMENTS: /* along Axis 1, s = 4 */
        c->attributes[0] = 1;
        set_tensor(&c->t[0], DMLREF_TENSOR_DATA_TYPE_INT32, 2, ge_in);
        set_tensor(&c->t[1], itype, 2, sc_idx);
        set_tensor(&c->t[2], DMLREF_TENSOR_DATA_TYPE_INT32, 2, sc_idx);
        set_tensor(&c->t[3], DMLREF_TENSOR_DATA_TYPE_INT32, 2, ge_in);
        c->t[0].data = fill(&c->t[0], 0);
        c->t[1].data = u64_array(sc_values, 4);
        c->t[2].data = fill(&c->t[2], 1);
        return 4;
    case DMLREF_OPERATOR_GATHER_ND: /* rows of a {4, 3} input, s = 4 */
        c->attributes[0] = 2, c->attributes[1] = 2;
        set_tensor(&c->t[0], DMLREF_TENSOR_DATA_TYPE_FLOAT16, 2, nd_in);
        set_tensor(&c->t[1], itype, 2, nd_idx);
        set_tensor(&c->t[2], DMLREF_TENSOR_DATA_TYPE_FLOAT16, 2, nd_idx);
        c->t[2].sizes[1] = 3;
        c->t[0].data = fill(&c->t[0], 0);
        c->t[1].data = u64_array(nd_values, 3);
        return 3;
    default: /* GATHER_ND1, one batch dimension: rows of each {4, 3} batch, s = 4 */
        c->attributes[0] = 3, c->attributes[1] = 3, c->attributes[2] = 1;
        set_tensor(&c->t[0], DMLREF_TENSOR_DATA_TYPE_UINT16, 3, nd1_in);
        set_tensor(&c->t[1], itype, 3, nd1_idx);
        set_tensor(&c->t[2], DMLREF_TENSOR_DATA_TYPE_UINT16, 3, nd1_out);
        c->t[0].data = fill(&c->t[0], 0);
        c->t[1].data = u64_array(nd1_values, 4);
        return 4;
    }
}

static void unsigned_indices(suite *s)
{
    static const struct {
        dmlref_tensor_data_type type;
        uint64_t values[2];          /* negative when read as signed: -2^(bits-1), -1 */
        const char *names[2], *text[2], *as_signed[2];
    } kinds[2] = {
        {DMLREF_TENSOR_DATA_TYPE_UINT32, {0x80000000u, 0xFFFFFFFFu},
         {"uint32_0x80000000", "uint32_0xffffffff"},
         {"UINT32 0x80000000 is 2147483648", "UINT32 0xFFFFFFFF is 4294967295"},
         {"-2147483648", "-1"}},
        {DMLREF_TENSOR_DATA_TYPE_UINT64, {0x8000000000000000ull, UINT64_MAX},
         {"uint64_2_63", "uint64_2_64_minus_1"},
         {"UINT64 2^63 is 9223372036854775808", "UINT64 2^64-1 is 18446744073709551615"},
         {"-9223372036854775808", "-1"}}};
    static const dmlref_operator_type ops[4] = {
        DMLREF_OPERATOR_GATHER_ELEMENTS, DMLREF_OPERATOR_SCATTER_ELEMENTS,
        DMLREF_OPERATOR_GATHER_ND, DMLREF_OPERATOR_GATHER_ND1};
    static char notes[4][2][2][256]; /* alive until the case is emitted */
    size_t o, k, v;
    for (o = 0; o < 4; ++o) {
        const char *rule = ops[o] == DMLREF_OPERATOR_SCATTER_ELEMENTS ? "D2" : "D1";
        for (k = 0; k < 2; ++k) {
            case_spec c;
            size_t n;
            for (v = 0; v < 2; ++v) { /* strict: one such index, refused */
                char scenario[64];
                n = unsigned_index_case(&c, ops[o], kinds[k].type);
                c.t[1].data[n / 2] = kinds[k].values[v];
                snprintf(notes[o][k][v], sizeof notes[o][k][v],
                         "R-IX-3: an unsigned index is never negative: %s, above the range, "
                         "not %s; refused under the strict policy (%s)",
                         kinds[k].text[v], kinds[k].as_signed[v], rule);
                c.notes = notes[o][k][v];
                snprintf(scenario, sizeof scenario, "r-ix-3_unsigned_%s", kinds[k].names[v]);
                emit_error(s, &c, DMLREF_ERROR_INDEX_OUT_OF_RANGE, rule, scenario);
            }
            /* clamp: both, each clamped to s-1 */
            n = unsigned_index_case(&c, ops[o], kinds[k].type);
            c.t[1].data[0] = kinds[k].values[0];
            c.t[1].data[n - 1] = kinds[k].values[1];
            c.oob_clamp = 1;
            snprintf(notes[o][k][0], sizeof notes[o][k][0],
                     "R-IX-3: an unsigned index is never negative: %s and %s lie above the "
                     "range and clamp to s-1 under the clamp policy; read as signed they would "
                     "be %s (clamped to 0) and %s",
                     kinds[k].text[0], kinds[k].text[1] + 7, kinds[k].as_signed[0],
                     kinds[k].as_signed[1]);
            c.notes = notes[o][k][0];
            case_name(&c, c.t[0].type, c.t[0].rank, "r-ix-3_unsigned_%s_clamped",
                      k ? "uint64" : "uint32");
            emit(s, &c);
        }
    }
}

/* ---- large cases, in the generator form ----------------------------------------- */

static void large_cases(suite *s)
{
    static const uint32_t square[2] = {1024, 1024}, column[2] = {1024, 1}, rows[2] = {1024, 1};
    static const uint32_t count[1] = {1}, co[2] = {1048576, 2};
    case_spec c;

    memset(&c, 0, sizeof c);
    c.op = DMLREF_OPERATOR_GATHER_ELEMENTS;
    c.attributes[0] = 1;
    c.index_type = DMLREF_TENSOR_DATA_TYPE_INT64;
    c.notes = "a million random bit patterns gathered along rows by random indices, negative "
              "ones included";
    set_tensor(&c.t[0], DMLREF_TENSOR_DATA_TYPE_FLOAT32, 2, square);
    set_tensor(&c.t[1], DMLREF_TENSOR_DATA_TYPE_INT64, 2, square);
    set_tensor(&c.t[2], DMLREF_TENSOR_DATA_TYPE_FLOAT32, 2, square);
    c.t[0].generator = "{\"kind\": \"bits\", \"seed\": 1}";
    c.t[1].generator = "{\"kind\": \"index\", \"seed\": 2, \"low\": [-1024], \"high\": [1023]}";
    case_name(&c, DMLREF_TENSOR_DATA_TYPE_FLOAT32, 2, "large_1m_random");
    emit(s, &c), ++s->large;

    memset(&c, 0, sizeof c);
    c.op = DMLREF_OPERATOR_SCATTER_ELEMENTS;
    c.attributes[0] = 1;
    c.index_type = DMLREF_TENSOR_DATA_TYPE_UINT32;
    c.notes = "one update per row of a million-element tensor: no target is written twice";
    set_tensor(&c.t[0], DMLREF_TENSOR_DATA_TYPE_FLOAT16, 2, square);
    set_tensor(&c.t[1], DMLREF_TENSOR_DATA_TYPE_UINT32, 2, column);
    set_tensor(&c.t[2], DMLREF_TENSOR_DATA_TYPE_FLOAT16, 2, column);
    set_tensor(&c.t[3], DMLREF_TENSOR_DATA_TYPE_FLOAT16, 2, square);
    c.t[0].generator = "{\"kind\": \"bits\", \"seed\": 3}";
    c.t[1].generator = "{\"kind\": \"index\", \"seed\": 4, \"low\": [0], \"high\": [1023]}";
    c.t[2].generator = "{\"kind\": \"bits\", \"seed\": 5}";
    case_name(&c, DMLREF_TENSOR_DATA_TYPE_FLOAT16, 2, "large_1m_one_update_per_row");
    emit(s, &c), ++s->large;

    memset(&c, 0, sizeof c);
    c.op = DMLREF_OPERATOR_GATHER_ND;
    c.attributes[0] = 2, c.attributes[1] = 2;
    c.index_type = DMLREF_TENSOR_DATA_TYPE_UINT64;
    c.notes = "1024 rows of 1 KiB gathered by random row indices";
    set_tensor(&c.t[0], DMLREF_TENSOR_DATA_TYPE_UINT8, 2, square);
    set_tensor(&c.t[1], DMLREF_TENSOR_DATA_TYPE_UINT64, 2, rows);
    set_tensor(&c.t[2], DMLREF_TENSOR_DATA_TYPE_UINT8, 2, square);
    c.t[0].generator = "{\"kind\": \"bits\", \"seed\": 6}";
    c.t[1].generator = "{\"kind\": \"index\", \"seed\": 7, \"low\": [0], \"high\": [1023]}";
    case_name(&c, DMLREF_TENSOR_DATA_TYPE_UINT8, 2, "large_1m_rows");
    emit(s, &c), ++s->large;

    memset(&c, 0, sizeof c);
    c.op = DMLREF_OPERATOR_NONZERO_COORDINATES;
    c.notes = "a million elements, 1% non-zero; the coordinates' digest covers the rows before "
              "the count";
    set_tensor(&c.t[0], DMLREF_TENSOR_DATA_TYPE_FLOAT32, 2, square);
    set_tensor(&c.t[1], DMLREF_TENSOR_DATA_TYPE_UINT32, 1, count);
    set_tensor(&c.t[2], DMLREF_TENSOR_DATA_TYPE_UINT32, 2, co);
    c.t[0].generator = "{\"kind\": \"sparse\", \"seed\": 8, \"density\": 10000}";
    case_name(&c, DMLREF_TENSOR_DATA_TYPE_FLOAT32, 2, "large_1m_sparse");
    emit(s, &c), ++s->large;
}

/* ---- the manifest and the coverage table ---------------------------------------- */

static int compare_entries(const void *a, const void *b)
{
    return strcmp(((const manifest_entry *)a)->path, ((const manifest_entry *)b)->path);
}

static int write_manifest(suite *s)
{
    builder b = {NULL, 0, 0};
    char path[4096];
    size_t i;
    int ok;
    qsort(s->entries, s->entry_count, sizeof *s->entries, compare_entries);
    put(&b, "%s", "");
    for (i = 0; i < s->entry_count; ++i)
        put(&b, "%016llx  %s\n", (unsigned long long)s->entries[i].digest, s->entries[i].path);
    snprintf(path, sizeof path, "%s/MANIFEST", s->out_dir);
    ok = write_file(path, b.data, b.length);
    free(b.data);
    return ok;
}

static int write_readme(suite *s)
{
    static const char *const index_names[4] = {"UINT32", "INT32", "UINT64", "INT64"};
    builder b = {NULL, 0, 0};
    char path[4096];
    size_t op, t, r;
    int ok;
    unsigned long total;
    put(&b, "# The golden suite\n\n"
            "Written by `dmlref gen` (`make vectors`); do not edit by hand. The format is\n"
            "[FORMAT.md](FORMAT.md); `MANIFEST` lists every vector with the XXH3-64 digest of\n"
            "its bytes; `dmlref verify vectors` recomputes them all.\n\n"
            "%lu vectors: %lu positive cases (%lu of them large, in the generator form) and\n"
            "%lu cases that must be refused (`expect_error`).\n\n",
        (unsigned long)s->entry_count, s->positive, s->large, s->errors);

    put(&b, "## Positive cases by operator and data type\n\n| operator |");
    for (t = 0; t < 11; ++t)
        put(&b, " %s |", dmlref_data_type_name(suite_data_types[t]));
    put(&b, " total |\n|---|");
    for (t = 0; t < 11; ++t)
        put(&b, "---|");
    put(&b, "---|\n");
    for (op = 0; op < OPS; ++op) {
        total = 0;
        put(&b, "| %s |", dmlref_operator_name(k_ops[op]));
        for (t = 0; t < 11; ++t) {
            put(&b, " %lu |", s->by_type[op][suite_data_types[t]]);
            total += s->by_type[op][suite_data_types[t]];
        }
        put(&b, " %lu |\n", total);
    }

    put(&b, "\n## Positive cases by operator and index type\n\n| operator |");
    for (t = 0; t < 4; ++t)
        put(&b, " %s |", index_names[t]);
    put(&b, "\n|---|---|---|---|---|\n");
    for (op = 0; op < 4; ++op) {
        put(&b, "| %s |", dmlref_operator_name(k_ops[op]));
        for (t = 0; t < 4; ++t)
            put(&b, " %lu |", s->by_index[op][k_index_types[t]]);
        put(&b, "\n");
    }

    put(&b, "\n## Positive cases by operator and rank\n\n| operator |");
    for (r = 1; r <= 8; ++r)
        put(&b, " %zud |", r);
    put(&b, "\n|---|---|---|---|---|---|---|---|---|\n");
    for (op = 0; op < OPS; ++op) {
        put(&b, "| %s |", dmlref_operator_name(k_ops[op]));
        for (r = 1; r <= 8; ++r)
            put(&b, " %lu |", s->by_rank[op][r]);
        put(&b, "\n");
    }

    put(&b, "\n## Cases that must be refused, by status and rule\n\n| status | rule | cases |\n"
            "|---|---|---|\n");
    for (r = 0; r < s->error_kinds; ++r) {
        char status[64], *rule;
        snprintf(status, sizeof status, "%s", s->error_rules[r]);
        rule = strchr(status, ' ');
        *rule++ = '\0';
        put(&b, "| %s | %s | %lu |\n", status, rule, s->error_counts[r]);
    }
    snprintf(path, sizeof path, "%s/README.md", s->out_dir);
    ok = write_file(path, b.data, b.length);
    free(b.data);
    return ok;
}

/* The suite is built in a temporary folder beside out_dir and renamed into
   place complete: out_dir holds a whole suite or is left as it was (new or
   empty), even when the disk fills up or another gen writes there too. */
int generate_suite(const char *out_dir, uint64_t seed, const char *profile, uint32_t threads)
{
    suite *s;
    char *building;
    size_t i;
    int code;
    if (strcmp(profile, "default") != 0) {
        fprintf(stderr, "dmlref gen: \"%s\" is not a profile (default)\n", profile);
        return EXIT_USAGE;
    }
    s = calloc(1, sizeof *s);
    if (!s)
        return EXIT_BAD_INPUT;
    if (!(building = begin_new_folder(out_dir))) {
        free(s);
        return EXIT_BAD_INPUT;
    }
    s->out_dir = building;
    s->threads = threads;
    s->r.state = seed;
    sweeps(s);
    nonzero_specials(s);
    special_patterns(s);
    seed_examples(s);
    feature_levels(s);
    validation_errors(s);
    output_layouts(s);
    index_errors(s);
    unsigned_indices(s);
    large_cases(s);
    if (!s->write_failed && (!write_manifest(s) || !write_readme(s)))
        ++s->failures;
    if (!finish_new_folder(building, out_dir, s->failures == 0)) {
        s->failures += !s->failures; /* the rename failed */
        fprintf(stderr, "dmlref gen: %s: left as it was: no file of the suite was written\n",
                out_dir);
    }
    printf("%lu passed, %lu failed, 0 skipped\n", (unsigned long)s->entry_count, s->failures);
    code = s->failures ? EXIT_BAD_INPUT : EXIT_OK;
    for (i = 0; i < s->entry_count; ++i)
        free(s->entries[i].path);
    free(s->entries);
    free(s);
    return code;
}

/* ---- random cases for dmlref fuzz -------------------------------------------- */

int random_case(uint64_t *state, dmlref_operator_type op, char **text, size_t *length)
{
    suite *s = calloc(1, sizeof *s);
    uint32_t rank, pick;
    dmlref_tensor_data_type type, itype;
    enum layout_kind layout;
    if (!s)
        return 0;
    s->capture = 1;
    s->r.state = *state;
    s->out_dir = ".";
    pick = op ? 0 : below(&s->r, 5);
    if (!op)
        op = k_ops[pick];
    rank = 1 + below(&s->r, 8);
    type = suite_data_types[below(&s->r, 11)];
    itype = k_index_types[below(&s->r, 4)];
    layout = (enum layout_kind)below(&s->r, LAYOUT_KINDS);
    switch (op) {
    case DMLREF_OPERATOR_GATHER_ELEMENTS:
        gather_elements_case(s, type, itype, rank, below(&s->r, rank), layout);
        break;
    case DMLREF_OPERATOR_SCATTER_ELEMENTS:
        scatter_elements_case(s, type, itype, rank, below(&s->r, rank), layout);
        break;
    case DMLREF_OPERATOR_GATHER_ND:
    case DMLREF_OPERATOR_GATHER_ND1:
        gather_nd_case(s, op, type, itype, rank, layout);
        break;
    default: {
        case_spec c;
        uint32_t sizes[8], e, n;
        dmlref_tensor_data_type nz = k_nonzero_types[below(&s->r, 8)];
        memset(&c, 0, sizeof c);
        c.op = DMLREF_OPERATOR_NONZERO_COORDINATES;
        random_sizes(&s->r, rank, 36, sizes);
        for (e = rank; e > 0 && sizes[rank - e] == 1; --e)
            ;
        n = (e ? e : 1) + below(&s->r, rank - (e ? e : 1) + 1);
        set_tensor(&c.t[0], nz, rank, sizes);
        apply_layout(&s->r, &c.t[0], layout == STRIDED ? PACKED : layout);
        c.t[0].data = sparse_values(&s->r, &c.t[0], below(&s->r, 9));
        case_name(&c, nz, rank, "fuzz");
        nonzero_case(s, &c, n, layout == STRIDED || layout == PERMUTED ? layout : PACKED);
        break;
    }
    }
    *state = s->r.state;
    *text = s->captured;
    *length = s->captured_length;
    free(s);
    return *text != NULL;
}
