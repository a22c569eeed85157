/*
 * suite.c - dmlref gen: the catalogue of the golden suite.
 *
 * The suite has two parts, both handed to the library exactly as a user's
 * case would be: written (or read) as a case in the vector format, parsed,
 * evaluated by the reference (dmlref_vector_eval) and written in canonical
 * form.  The suite is the same bytes on every run and thread count.
 *
 *   - The sweeps, generated here from one seeded generator: every operator x
 *     data type x index type x rank 1..8, with the axis, layout (packed,
 *     padded, permuted, broadcast input, strided output) and index classes
 *     (boundaries 0, s-1, -s, -1; random) rotating; NonZero over every input
 *     type and rank with densities 0 to 1.  dmlref fuzz draws its random
 *     cases with the same builders (random_case).
 *   - The hand-written cases, data rather than code: one case file each under
 *     src/suite/cases/, in the order of its LIST (NonZero's special values,
 *     special bit patterns, the seeds' worked examples corrected (D20),
 *     feature levels, one expect_error case per validation rule, output
 *     layouts past the stride-order proof (D6), out-of-range and unsigned
 *     indices (D1, D2, R-IX-3), large cases in the generator form).  The
 *     build embeds them into the command (scripts/build/embed_cases.sh,
 *     case_files.h), so gen needs no source tree; each file's path must be
 *     its case's name.
 */
#include "base/printf_like.h"
#include "suite/suite.h"

#include "suite/case_files.h"

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

PRINTF_LIKE(2, 3)
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

static uint32_t below(rng *r, uint32_t bound)
{
    return (uint32_t)(next(r) % bound);
}

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
    int omit_sizes; /* an output whose sizes eval infers */
    uint64_t *data; /* inputs: logical elements (bits) */
} tspec;

typedef struct case_spec {
    char name[200];
    dmlref_operator_type op;
    uint32_t attributes[3];
    tspec t[4];
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
    /* dmlref fuzz: emit() keeps the case text here instead of evaluating it */
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
    const char *const *tensor_names = c->op == DMLREF_OPERATOR_SCATTER_ELEMENTS      ? names[1]
                                      : c->op == DMLREF_OPERATOR_NONZERO_COORDINATES ? names[2]
                                                                                     : names[0];
    const char *const *attrs = c->op == DMLREF_OPERATOR_GATHER_ND             ? attribute_names[1]
                               : c->op == DMLREF_OPERATOR_GATHER_ND1          ? attribute_names[2]
                               : c->op == DMLREF_OPERATOR_NONZERO_COORDINATES ? NULL
                                                                              : attribute_names[0];
    size_t inputs = c->op == DMLREF_OPERATOR_SCATTER_ELEMENTS      ? 3
                    : c->op == DMLREF_OPERATOR_NONZERO_COORDINATES ? 1
                                                                   : 2;
    size_t tensors = c->op == DMLREF_OPERATOR_SCATTER_ELEMENTS ? 4 : 3, i;
    uint32_t d;

    put(b,
        "{\"format\": \"dmlref-vector-1\", \"name\": \"%s\", \"operator\": \"%s\", "
        "\"feature_level\": \"%s\"",
        c->name, dmlref_operator_name(c->op),
        dmlref_feature_level_name(DMLREF_FEATURE_LEVEL_LATEST));
    if (attrs) {
        put(b, ", \"attributes\": {");
        for (i = 0; i < 3 && attrs[i]; ++i)
            put(b, "%s\"%s\": %u", i ? ", " : "", attrs[i], c->attributes[i]);
        put(b, "}");
    }
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
        if (i < inputs && t->data) {
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

static uint64_t canonical_index(const tspec *t, uint64_t e);

/* dmlref fuzz: float inputs get NaN payloads, both zeros, infinities and
   subnormals among their values (chosen per canonical element, so a
   broadcast layout still holds them). */
static void sprinkle_specials(suite *s, case_spec *c)
{
    static const uint64_t f16[6] = {0x7E01u, 0xFD00u, 0x8000u, 0x0001u, 0xFC00u, 0x7C00u};
    static const uint64_t f32[6] = {0x7FC00001u, 0xFFA00000u, 0x80000000u,
                                    0x00000001u, 0xFF800000u, 0x7F800000u};
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

static uint64_t element_count(const dmlref_tensor_desc *t)
{
    uint64_t n = 1;
    uint32_t d;
    for (d = 0; d < t->DimensionCount; ++d)
        n *= t->Sizes[d];
    return n;
}

/* Counts a case in the README's tables: a refusal by status and rule; a
   positive case by operator and its input's data type and rank, by its index
   type, and as large when an input has a million elements or more. */
static void count_case(suite *s, const dmlref_vector *v)
{
    const dmlref_operator_desc *op = dmlref_vector_operator(v);
    const dmlref_tensor_desc *in[3] = {NULL, NULL, NULL}; /* Input, Indices, Updates */
    dmlref_status status;
    const char *rule;
    size_t slot = op_slot(op->Type), i;
    if (dmlref_vector_expects_error(v, &status, &rule)) {
        char key[64];
        snprintf(key, sizeof key, "%s %s", dmlref_status_name(status), rule);
        for (i = 0; i < s->error_kinds; ++i)
            if (strcmp(s->error_rules[i], key) == 0)
                break;
        if (i == s->error_kinds && s->error_kinds < 128)
            strcpy(s->error_rules[s->error_kinds++], key);
        if (i < 128)
            ++s->error_counts[i];
        ++s->errors;
        return;
    }
    switch (op->Type) {
    case DMLREF_OPERATOR_GATHER_ELEMENTS: {
        const dmlref_gather_elements_desc *d = op->Desc;
        in[0] = d->InputTensor, in[1] = d->IndicesTensor;
        break;
    }
    case DMLREF_OPERATOR_SCATTER_ELEMENTS: {
        const dmlref_scatter_elements_desc *d = op->Desc;
        in[0] = d->InputTensor, in[1] = d->IndicesTensor, in[2] = d->UpdatesTensor;
        break;
    }
    case DMLREF_OPERATOR_GATHER_ND: {
        const dmlref_gather_nd_desc *d = op->Desc;
        in[0] = d->InputTensor, in[1] = d->IndicesTensor;
        break;
    }
    case DMLREF_OPERATOR_GATHER_ND1: {
        const dmlref_gather_nd1_desc *d = op->Desc;
        in[0] = d->InputTensor, in[1] = d->IndicesTensor;
        break;
    }
    default: {
        const dmlref_nonzero_coordinates_desc *d = op->Desc;
        in[0] = d->InputTensor;
        break;
    }
    }
    ++s->positive;
    ++s->by_type[slot][in[0]->DataType];
    ++s->by_rank[slot][in[0]->DimensionCount];
    if (in[1])
        ++s->by_index[slot][in[1]->DataType];
    for (i = 0; i < 3; ++i)
        if (in[i] && element_count(in[i]) >= 1000000u) {
            ++s->large;
            break;
        }
}

/* Evaluates a case (JSON text, outputs without expected) with the library
   and writes its vector, `relative` (e.g. "gather_nd/float32/2d/x.json"),
   into the suite.  `named`: the case's name must be `relative` without its
   ".json" (a case file's path is its name). */
static void emit_text(suite *s, const char *relative, const char *case_json, size_t case_length,
                      int named)
{
    dmlref_vector_read_options options = {DMLREF_VECTOR_READ_CASE, 0};
    dmlref_vector *v;
    dmlref_error err;
    char path[4096], *text;
    size_t length;
    dmlref_status status;

    if (s->write_failed) /* the rest would fail the same way: a full disk */
        return;
    if (snprintf(path, sizeof path, "%s/%s", s->out_dir, relative) >= (int)sizeof path) {
        fprintf(stderr, "dmlref gen: %s/%s: the path is too long\n", s->out_dir, relative);
        ++s->failures, s->write_failed = 1;
        return;
    }
    status = dmlref_vector_parse(case_json, case_length, relative, &options, &v, &err);
    if (status != DMLREF_OK) {
        fprintf(stderr, "dmlref gen: %s\n", err.message);
        ++s->failures;
        return;
    }
    if (named) {
        const char *name = dmlref_vector_name(v);
        size_t n = strlen(name);
        if (strncmp(name, relative, n) != 0 || strcmp(relative + n, ".json") != 0) {
            fprintf(stderr,
                    "dmlref gen: %s: $.name: \"%s\" is not the case file's path "
                    "without \".json\"\n",
                    relative, name);
            ++s->failures;
            dmlref_vector_free(v);
            return;
        }
    }
    status = dmlref_vector_eval_with(v, s->threads, DMLREF_VECTOR_EVAL_DIGESTS, &err);
    if (status == DMLREF_OK)
        status = dmlref_vector_write(v, &text, &length, &err);
    if (status != DMLREF_OK) {
        fprintf(stderr, "dmlref gen: %s\n", err.message);
        ++s->failures;
        dmlref_vector_free(v);
        return;
    }
    if (!write_file(path, text, length)) {
        ++s->failures, s->write_failed = 1;
        free(text);
        dmlref_vector_free(v);
        return;
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
    count_case(s, v);
    dmlref_vector_free(v);
}

/* A generated case: its text to emit_text, or (dmlref fuzz) kept. */
static void emit(suite *s, case_spec *c)
{
    builder b = {NULL, 0, 0};
    char relative[256];
    size_t i;
    if (s->capture)
        sprinkle_specials(s, c);
    case_text(c, &b);
    if (s->capture) {
        free(s->captured);
        s->captured = b.data;
        s->captured_length = b.length;
    } else {
        snprintf(relative, sizeof relative, "%s.json", c->name);
        emit_text(s, relative, b.data, b.length, 0);
        free(b.data);
    }
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
    case 0:
        return 0;
    case 1:
        return (int64_t)s - 1;
    case 2:
        if (is_signed)
            return -(int64_t)s;
        break;
    case 3:
        if (is_signed)
            return -1;
        break;
    default:
        break;
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
PRINTF_LIKE(4, 5)
static void case_name(case_spec *c, dmlref_tensor_data_type type, uint32_t rank, const char *format,
                      ...)
{
    char op[32], ty[16], raw[128], scenario[128];
    va_list args;
    va_start(args, format);
    vsnprintf(raw, sizeof raw, format, args);
    va_end(args);
    lower(raw, scenario, sizeof scenario);
    snprintf(c->name, sizeof c->name, "%s/%s/%ud/%s",
             lower(dmlref_operator_name(c->op), op, sizeof op),
             lower(dmlref_data_type_name(type), ty, sizeof ty), rank, scenario);
}

/* ---- the sweeps ------------------------------------------------------------------ */

const dmlref_tensor_data_type suite_data_types[11] = {
    DMLREF_TENSOR_DATA_TYPE_FLOAT32, DMLREF_TENSOR_DATA_TYPE_FLOAT16,
    DMLREF_TENSOR_DATA_TYPE_UINT32,  DMLREF_TENSOR_DATA_TYPE_UINT16,
    DMLREF_TENSOR_DATA_TYPE_UINT8,   DMLREF_TENSOR_DATA_TYPE_INT32,
    DMLREF_TENSOR_DATA_TYPE_INT16,   DMLREF_TENSOR_DATA_TYPE_INT8,
    DMLREF_TENSOR_DATA_TYPE_FLOAT64, DMLREF_TENSOR_DATA_TYPE_UINT64,
    DMLREF_TENSOR_DATA_TYPE_INT64};
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

/* Draws a Scatter case from r, allowing up to s + 1 indices along an axis of
 * s, or at most s; returns whether Indices.Sizes[Axis] <= Input.Sizes[Axis]. */
static int draw_scatter_elements(rng *r, case_spec *c, dmlref_tensor_data_type type,
                                 dmlref_tensor_data_type itype, uint32_t rank, uint32_t axis,
                                 enum layout_kind layout, int at_most_input)
{
    uint32_t sizes[8], idx_sizes[8];
    memset(c, 0, sizeof *c);
    c->op = DMLREF_OPERATOR_SCATTER_ELEMENTS;
    c->attributes[0] = axis;
    random_sizes(r, rank, 36, sizes);
    memcpy(idx_sizes, sizes, sizeof sizes);
    idx_sizes[axis] = 1 + below(r, sizes[axis] + (at_most_input ? 0 : 1));
    set_tensor(&c->t[0], type, rank, sizes);
    set_tensor(&c->t[1], itype, rank, idx_sizes);
    set_tensor(&c->t[2], type, rank, idx_sizes);
    set_tensor(&c->t[3], type, rank, sizes);
    apply_layout(r, &c->t[0], layout == STRIDED ? PACKED : layout);
    apply_layout(r, &c->t[1], layout == PADDED || layout == PERMUTED ? layout : PACKED);
    apply_layout(r, &c->t[2], layout == PADDED || layout == PERMUTED ? layout : PACKED);
    apply_layout(r, &c->t[3], layout == STRIDED || layout == PADDED ? layout : PACKED);
    c->t[3].omit_sizes = !c->t[3].strided;
    c->t[0].data = fill(&c->t[0], 0);
    c->t[1].data = axis_indices(r, &c->t[1], sizes[axis]);
    c->t[2].data = fill(&c->t[2], 1);
    return idx_sizes[axis] <= sizes[axis];
}

static void scatter_elements_case(suite *s, dmlref_tensor_data_type type,
                                  dmlref_tensor_data_type itype, uint32_t rank, uint32_t axis,
                                  enum layout_kind layout)
{
    rng own = s->r;
    case_spec c;
    char itext[16];
    uint32_t i;
    if (!draw_scatter_elements(&s->r, &c, type, itype, rank, axis, layout, 0)) {
        /* The suite's draws once allowed more indices along Axis than the
           input has, which DirectML refuses (R-SC-4, D16).  Such a case is
           drawn again from its own copy of the stream, with at most as many,
           while the stream goes on as the first draw left it: no other case
           of the suite changes. */
        for (i = 0; i < 4; ++i)
            free(c.t[i].data);
        (void)draw_scatter_elements(&own, &c, type, itype, rank, axis, layout, 1);
    }
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
    { /* the output's shape is the library's (R-GN-7): the suite restates no rule */
        dmlref_tensor_desc in = {type, 0, D, in_sizes, NULL, 0, 0};
        dmlref_tensor_desc idx = {itype, 0, D, idx_sizes, NULL, 0, 0};
        dmlref_gather_nd1_desc nd1 = {&in, &idx, NULL, m, q, b}; /* GATHER_ND: b = 0 */
        dmlref_operator_desc od = {DMLREF_OPERATOR_GATHER_ND1, &nd1};
        uint32_t out_rank;
        if (dmlref_infer_output_sizes(&od, DMLREF_FEATURE_LEVEL_LATEST, 0, &out_rank, out_sizes,
                                      NULL) != DMLREF_OK)
            exit(EXIT_BAD_INPUT);
    }
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
        c.t[1].data[e] = index_bits(
            itype, index_value(&s->r, e / k + j, in_sizes[D - m + b + j], is_signed_index(itype)));
    }
    case_name(&c, type, D, "m%u_q%u_b%u_k%u_%s_%s", m, q, b, k,
              lower(dmlref_data_type_name(itype), itext, sizeof itext), k_layout_names[layout]);
    emit(s, &c);
}

static const dmlref_tensor_data_type k_nonzero_types[8] = {
    DMLREF_TENSOR_DATA_TYPE_FLOAT32, DMLREF_TENSOR_DATA_TYPE_FLOAT16,
    DMLREF_TENSOR_DATA_TYPE_UINT32,  DMLREF_TENSOR_DATA_TYPE_UINT16,
    DMLREF_TENSOR_DATA_TYPE_UINT8,   DMLREF_TENSOR_DATA_TYPE_INT32,
    DMLREF_TENSOR_DATA_TYPE_INT16,   DMLREF_TENSOR_DATA_TYPE_INT8};

/* NonZero on c->t[0] (set by the caller, data included): N columns; count
   and coordinate tensors in DirectMLX's shapes ({1}, {M, N}); the
   coordinates laid out as `layout`. */
static void nonzero_case(suite *s, case_spec *c, uint32_t n_columns, enum layout_kind layout)
{
    static const uint32_t one[1] = {1};
    uint32_t co_sizes[2];
    co_sizes[0] = (uint32_t)count_of(&c->t[0]);
    co_sizes[1] = n_columns;
    c->op = DMLREF_OPERATOR_NONZERO_COORDINATES;
    set_tensor(&c->t[1], DMLREF_TENSOR_DATA_TYPE_UINT32, 1, one);
    set_tensor(&c->t[2], DMLREF_TENSOR_DATA_TYPE_UINT32, 2, co_sizes);
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
                    gather_elements_case(s, suite_data_types[ti], k_index_types[xi], rank, axis,
                                         layout);
                    scatter_elements_case(s, suite_data_types[ti], k_index_types[xi], rank,
                                          (axis + 1) % rank, layout);
                }
                gather_nd_case(s, DMLREF_OPERATOR_GATHER_ND, suite_data_types[ti],
                               k_index_types[xi], rank,
                               (enum layout_kind)((ti + xi + rank) % LAYOUT_KINDS));
                gather_nd_case(s, DMLREF_OPERATOR_GATHER_ND1, suite_data_types[ti],
                               k_index_types[xi], rank,
                               (enum layout_kind)((ti + xi + rank + 2) % LAYOUT_KINDS));
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
                case_name(&c, k_nonzero_types[ti], rank, "density%u_n%u_%s", eighths[variant] * 125,
                          n, k_layout_names[layout]);
                nonzero_case(s, &c, n, layout == STRIDED || layout == PERMUTED ? layout : PACKED);
            }
        }
    }
}

/* ---- the hand-written cases ------------------------------------------------------ */

static void case_files(suite *s)
{
    size_t i;
    for (i = 0; i < suite_case_file_count; ++i)
        emit_text(s, suite_case_files[i].path, (const char *)suite_case_files[i].text,
                  suite_case_files[i].length, 1);
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
    if (s->entry_count > 1) /* qsort may not be given NULL, even for 0 */
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
    put(&b,
        "# The golden suite\n\n"
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
    case_files(s);
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
