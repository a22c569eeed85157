/*
 * read.c - reading a golden vector (vectors/FORMAT.md) strictly:
 * unknown or duplicate keys, wrong types, element counts that disagree with
 * the sizes, values outside a type, and data a broadcast layout cannot hold
 * are refused with the file name and the JSON path.
 *
 * Order: the whole structure and every shape is read first; then the case is
 * validated (dmlref_validate).  A valid case gets buffers of its tensors'
 * TotalTensorSizeInBytes; a case that must be refused gets them wherever its
 * elements can be placed (read_refused_case), so that a backend can be run
 * on it.  Either way the buffers stay within the memory cap: a hostile file
 * cannot make the reader allocate more than the tensors it describes.
 *
 * Everything reading allocates, the parse tree included, is counted against
 * the memory cap before it is allocated (memory_budget, vector_internal.h).
 */

/* Where POSIX is there, dmlref_vector_load() opens a file without blocking
   and reads it only when it is a regular file: a FIFO would block the
   reader, a device could feed it for ever.  Elsewhere plain C stdio. */
#if defined(__unix__) || defined(__unix) || (defined(__APPLE__) && defined(__MACH__))
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#define LOAD_WITH_POSIX 1
#endif

#include "vector/vector_internal.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef LOAD_WITH_POSIX
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

typedef struct reader {
    const char *source;
    dmlref_error *err;
    memory_budget budget;
} reader;

#define PATH_CAPACITY JSON_PATH_CAPACITY

PRINTF_LIKE(4, 5)
static dmlref_status fail(const reader *r, dmlref_status status, const char *path,
                          const char *format, ...)
{
    char what[DMLREF_ERROR_MESSAGE_CAPACITY];
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    return set_error(r->err, status, "", "%s: %s: %s", r->source, path, what);
}

#define SCHEMA(r, path, ...) fail((r), DMLREF_ERROR_VECTOR_SCHEMA, (path), __VA_ARGS__)

/* JSON paths; a path too long for PATH_CAPACITY is cut short, which a
   message can live with. */
static void path_key(char *out, const char *parent, const char *key)
{
    if (snprintf(out, PATH_CAPACITY, "%s.%s", parent, key) >= PATH_CAPACITY)
        out[PATH_CAPACITY - 1] = '\0';
}

static void path_index(char *out, const char *parent, uint64_t index)
{
    if (snprintf(out, PATH_CAPACITY, "%s[%llu]", parent, (unsigned long long)index) >=
        PATH_CAPACITY)
        out[PATH_CAPACITY - 1] = '\0';
}

/* Refuses keys of `object` not in the NULL-terminated `allowed`. */
static dmlref_status only_keys(const reader *r, const char *path, json_t *object,
                               const char *const *allowed)
{
    const char *key;
    json_t *value;
    json_object_foreach(object, key, value)
    {
        const char *const *a;
        char at[PATH_CAPACITY];
        for (a = allowed; *a; ++a)
            if (strcmp(*a, key) == 0)
                break;
        if (!*a) {
            path_key(at, path, key);
            return SCHEMA(r, at, "unknown key");
        }
    }
    return DMLREF_OK;
}

static dmlref_status get_string(const reader *r, const char *path, json_t *value, const char **out)
{
    if (!json_is_string(value))
        return SCHEMA(r, path, "must be a string");
    *out = json_string_value(value);
    return DMLREF_OK;
}

/* An unsigned integer 0..max (a JSON integer, or for 64-bit values a decimal
   string too). */
static dmlref_status get_uint(const reader *r, const char *path, json_t *value, uint64_t max,
                              uint64_t *out)
{
    if (json_is_integer(value)) {
        json_int_t v = json_integer_value(value);
        if (v < 0 || (uint64_t)v > max)
            return SCHEMA(r, path, "%lld is out of range 0 to %llu", (long long)v,
                          (unsigned long long)max);
        *out = (uint64_t)v;
        return DMLREF_OK;
    }
    if (json_is_string(value) && max == UINT64_MAX) {
        int negative;
        if (!parse_decimal(json_string_value(value), &negative, out) || negative)
            return SCHEMA(r, path, "must be an unsigned decimal integer");
        return DMLREF_OK;
    }
    return SCHEMA(r, path, "must be an integer");
}

static dmlref_status get_level(const reader *r, const char *path, json_t *value,
                               dmlref_feature_level *out)
{
    const char *text = NULL;
    CHECK(get_string(r, path, value, &text));
    if (strlen(text) != 3 || text[1] != '_' || !dmlref_feature_level_from_name(text, out))
        return SCHEMA(r, path, "\"%s\" is not a DirectML feature level (\"1_0\" to \"6_4\")", text);
    return DMLREF_OK;
}

/* ---- memory ------------------------------------------------------------- */

/* budget_allocate() into `lvalue` under the reader's budget, returning from
   the caller on failure. */
#define TAKE(r, lvalue, bytes, path, what, zeroed)                                                 \
    do {                                                                                           \
        void *taken_;                                                                              \
        CHECK(budget_allocate(&(r)->budget, (bytes), (zeroed), (path), (what), &taken_));          \
        (lvalue) = taken_;                                                                         \
    } while (0)

/* ---- elements ---------------------------------------------------------- */

static dmlref_status decode_element(const reader *r, const char *path, json_t *value,
                                    dmlref_tensor_data_type type, uint64_t *bits)
{
    const char *problem;
    if (json_is_integer(value))
        problem = decode_element_number(type, 1, json_integer_value(value), 0.0, bits);
    else if (json_is_real(value))
        problem = decode_element_number(type, 0, 0, json_real_value(value), bits);
    else if (json_is_string(value))
        problem = decode_element_text(type, json_string_value(value), bits);
    else
        problem = "must be a number or a string";
    if (problem)
        return SCHEMA(r, path, "%s element %s", dmlref_data_type_name(type), problem);
    return DMLREF_OK;
}

/* ---- shapes ------------------------------------------------------------ */

static dmlref_status read_dims(const reader *r, const char *path, json_t *value, uint32_t *out,
                               uint32_t *count)
{
    size_t i;
    json_t *item;
    if (!json_is_array(value))
        return SCHEMA(r, path, "must be an array of integers");
    if (json_array_size(value) < 1 || json_array_size(value) > MAX_RANK)
        return SCHEMA(r, path, "must have 1 to 8 entries, not %zu", json_array_size(value));
    json_array_foreach(value, i, item)
    {
        char at[PATH_CAPACITY];
        uint64_t v;
        path_index(at, path, i);
        CHECK(get_uint(r, at, item, UINT32_MAX, &v));
        out[i] = (uint32_t)v;
    }
    *count = (uint32_t)json_array_size(value);
    return DMLREF_OK;
}

static dmlref_status read_generator(const reader *r, const char *path, json_t *value, vtensor *t)
{
    static const char *const keys[] = {"kind", "seed", "low", "high", "density", NULL};
    char at[PATH_CAPACITY];
    const char *kind = NULL;
    json_t *k;
    generator *g = &t->gen;

    if (!json_is_object(value))
        return SCHEMA(r, path, "must be an object");
    CHECK(only_keys(r, path, value, keys));
    path_key(at, path, "kind");
    if (!(k = json_object_get(value, "kind")))
        return SCHEMA(r, at, "is missing");
    CHECK(get_string(r, at, k, &kind));
    path_key(at, path, "seed");
    if (!json_object_get(value, "seed"))
        return SCHEMA(r, at, "is missing");
    CHECK(get_uint(r, at, json_object_get(value, "seed"), UINT64_MAX, &g->seed));

    if (strcmp(kind, "bits") == 0 || strcmp(kind, "sparse") == 0) {
        const char *extra = strcmp(kind, "bits") == 0 ? "density" : "low";
        g->kind = strcmp(kind, "bits") == 0 ? GENERATOR_BITS : GENERATOR_SPARSE;
        if (json_object_get(value, "low") || json_object_get(value, "high") ||
            (g->kind == GENERATOR_BITS && json_object_get(value, "density"))) {
            path_key(at, path,
                     json_object_get(value, "low")    ? "low"
                     : json_object_get(value, "high") ? "high"
                                                      : extra);
            return SCHEMA(r, at, "is not a key of a \"%s\" generator", kind);
        }
        if (g->kind == GENERATOR_SPARSE) {
            uint64_t density;
            path_key(at, path, "density");
            if (!json_object_get(value, "density"))
                return SCHEMA(r, at, "is missing");
            CHECK(get_uint(r, at, json_object_get(value, "density"), 1000000, &density));
            g->density = (uint32_t)density;
        }
        return DMLREF_OK;
    }
    if (strcmp(kind, "index") == 0) {
        json_t *low = json_object_get(value, "low"), *high = json_object_get(value, "high");
        dmlref_tensor_data_type type = t->desc.DataType;
        size_t i;
        g->kind = GENERATOR_INDEX;
        if (is_float_type(type)) {
            path_key(at, path, "kind");
            return SCHEMA(r, at, "an \"index\" generator needs an integer dtype, not %s",
                          dmlref_data_type_name(type));
        }
        if (json_object_get(value, "density")) {
            path_key(at, path, "density");
            return SCHEMA(r, at, "is not a key of an \"index\" generator");
        }
        path_key(at, path, !low ? "low" : "high");
        if (!low || !high)
            return SCHEMA(r, at, "is missing");
        path_key(at, path, "low");
        if (!json_is_array(low) || json_array_size(low) < 1 || json_array_size(low) > 8)
            return SCHEMA(r, at, "must be an array of 1 to 8 integers");
        path_key(at, path, "high");
        if (!json_is_array(high) || json_array_size(high) != json_array_size(low))
            return SCHEMA(r, at, "must be an array as long as \"low\"");
        g->bound_count = (uint32_t)json_array_size(low);
        for (i = 0; i < g->bound_count; ++i) {
            char lo_at[PATH_CAPACITY], hi_at[PATH_CAPACITY], base[PATH_CAPACITY];
            path_key(base, path, "low");
            path_index(lo_at, base, i);
            path_key(base, path, "high");
            path_index(hi_at, base, i);
            CHECK(decode_element(r, lo_at, json_array_get(low, i), type, &g->low[i]));
            CHECK(decode_element(r, hi_at, json_array_get(high, i), type, &g->high[i]));
            /* signed bounds sign-extended to 64 bits, so high - low + 1 is
               the span modulo 2^64 whatever the type's width */
            if (is_signed_int_type(type)) {
                uint32_t shift = 64 - 8 * dmlref_data_type_size(type);
                g->low[i] = (uint64_t)((int64_t)(g->low[i] << shift) >> shift);
                g->high[i] = (uint64_t)((int64_t)(g->high[i] << shift) >> shift);
                if ((int64_t)g->low[i] > (int64_t)g->high[i])
                    return SCHEMA(r, hi_at, "must not be less than low[%zu]", i);
            } else if (g->low[i] > g->high[i]) {
                return SCHEMA(r, hi_at, "must not be less than low[%zu]", i);
            }
        }
        return DMLREF_OK;
    }
    path_key(at, path, "kind");
    return SCHEMA(r, at, "\"%s\" is not a generator (\"bits\", \"index\", \"sparse\")", kind);
}

/* An "xxh3" value: 16 lower-case hex digits; *out (if not NULL) its value. */
static dmlref_status check_xxh3_text(const reader *r, const char *path, json_t *value,
                                     uint64_t *out)
{
    const char *text = NULL;
    size_t i;
    CHECK(get_string(r, path, value, &text));
    if (strlen(text) != 16)
        return SCHEMA(r, path, "must be 16 lower-case hex digits");
    for (i = 0; i < 16; ++i)
        if (!((text[i] >= '0' && text[i] <= '9') || (text[i] >= 'a' && text[i] <= 'f')))
            return SCHEMA(r, path, "must be 16 lower-case hex digits");
    if (out)
        *out = strtoull(text, NULL, 16);
    return DMLREF_OK;
}

/* Reads one tensor's description (not its elements yet). */
static dmlref_status read_tensor(const reader *r, const char *path, json_t *value, vtensor *t,
                                 uint32_t flags)
{
    static const char *const input_keys[] = {"dtype",       "sizes",     "strides",
                                             "total_bytes", "flags",     "alignment",
                                             "data",        "generator", NULL};
    static const char *const output_keys[] = {
        "dtype", "sizes", "strides", "total_bytes", "flags", "alignment", "expected", "xxh3", NULL};
    char at[PATH_CAPACITY];
    const char *dtype = NULL;
    json_t *item;
    uint32_t count = 0;

    if (!json_is_object(value))
        return SCHEMA(r, path, "must be an object");
    CHECK(only_keys(r, path, value, t->is_output ? output_keys : input_keys));

    path_key(at, path, "dtype");
    if (!(item = json_object_get(value, "dtype")))
        return SCHEMA(r, at, "is missing");
    CHECK(get_string(r, at, item, &dtype));
    if (!dmlref_data_type_from_name(dtype, &t->desc.DataType))
        return SCHEMA(r, at,
                      "\"%s\" is not a data type (FLOAT32, FLOAT16, UINT32, UINT16, UINT8, "
                      "INT32, INT16, INT8, FLOAT64, UINT64, INT64)",
                      dtype);

    path_key(at, path, "sizes");
    if ((item = json_object_get(value, "sizes"))) {
        CHECK(read_dims(r, at, item, t->sizes, &count));
        t->has_sizes = 1;
        t->desc.DimensionCount = count;
        t->desc.Sizes = t->sizes;
    } else if (!(t->is_output && (flags & DMLREF_VECTOR_READ_CASE))) {
        return SCHEMA(r, at, "is missing");
    }

    path_key(at, path, "strides");
    item = json_object_get(value, "strides");
    if (item && !json_is_null(item)) {
        uint32_t stride_count;
        if (!t->has_sizes)
            return SCHEMA(r, at, "needs sizes");
        CHECK(read_dims(r, at, item, t->strides, &stride_count));
        if (stride_count != count)
            return SCHEMA(r, at, "has %u entries, sizes has %u", stride_count, count);
        t->desc.Strides = t->strides;
    }
    path_key(at, path, "total_bytes");
    if ((item = json_object_get(value, "total_bytes"))) {
        CHECK(get_uint(r, at, item, UINT64_MAX, &t->desc.TotalTensorSizeInBytes));
        t->total_given = 1;
    }
    path_key(at, path, "flags");
    if ((item = json_object_get(value, "flags"))) {
        uint64_t v;
        CHECK(get_uint(r, at, item, UINT32_MAX, &v));
        t->desc.Flags = (uint32_t)v;
    }
    path_key(at, path, "alignment");
    if ((item = json_object_get(value, "alignment"))) {
        uint64_t v;
        CHECK(get_uint(r, at, item, UINT32_MAX, &v));
        t->desc.GuaranteedBaseOffsetAlignment = (uint32_t)v;
    }

    if (!t->is_output) {
        json_t *data = json_object_get(value, "data"), *gen = json_object_get(value, "generator");
        if (data && gen) {
            path_key(at, path, "generator");
            return SCHEMA(r, at, "an input has data or a generator, not both");
        }
        if (gen) {
            path_key(at, path, "generator");
            CHECK(read_generator(r, at, gen, t));
        }
        if (data) {
            path_key(at, path, "data");
            if (!json_is_array(data))
                return SCHEMA(r, at, "must be an array");
        }
        t->has_data = data || gen;
    } else {
        json_t *x = json_object_get(value, "xxh3"), *expected = json_object_get(value, "expected");
        if (x) {
            path_key(at, path, "xxh3");
            CHECK(check_xxh3_text(r, at, x, &t->xxh3));
            t->has_xxh3 = 1;
        }
        if (expected) {
            path_key(at, path, "expected");
            if (!json_is_array(expected))
                return SCHEMA(r, at, "must be an array");
            if (!t->has_sizes)
                return SCHEMA(r, at, "needs sizes");
            t->has_expected = 1;
        }
    }
    return DMLREF_OK;
}

/* The number of logical elements (sizes were read; a 0 size gives 0). */
static uint64_t element_count(const vtensor *t)
{
    uint64_t n = 1;
    uint32_t i;
    for (i = 0; i < t->desc.DimensionCount; ++i) {
        if (t->sizes[i] == 0)
            return 0;
        if (n > UINT64_MAX / t->sizes[i])
            return UINT64_MAX;
        n *= t->sizes[i];
    }
    return n;
}

/* ---- expected elements --------------------------------------------------- */

static dmlref_status read_expected(reader *r, const char *path, json_t *array, vtensor *t)
{
    dmlref_tensor_data_type type = t->desc.DataType;
    uint64_t count = element_count(t);
    size_t i, alternatives = 0, entries = 0;
    json_t *item;

    if (json_array_size(array) != count)
        return SCHEMA(r, path, "has %zu elements, sizes give %llu", json_array_size(array),
                      (unsigned long long)count);
    /* the allocations below are proportional to the array just parsed */
    TAKE(r, t->expected, (count ? count : 1) * sizeof *t->expected, path, "its expected elements",
         1);
    json_array_foreach(array, i, item)
    {
        if (json_is_object(item)) {
            json_t *list = json_object_get(item, "any_of");
            if (!list || json_object_size(item) != 1 || !json_is_array(list) ||
                json_array_size(list) < 1) {
                char at[PATH_CAPACITY];
                path_index(at, path, i);
                return SCHEMA(r, at,
                              "an object element must be {\"any_of\": [v1, ...]} with at "
                              "least one value");
            }
            alternatives += json_array_size(list);
            ++entries;
        }
        if (json_is_object(item) || json_is_null(item)) {
            if (!t->kinds)
                TAKE(r, t->kinds, count, path, "the kinds of its expected elements", 1);
            t->kinds[i] = json_is_null(item) ? EXPECT_NULL : EXPECT_ANY_OF;
        }
    }
    if (entries) {
        TAKE(r, t->any_of, (uint64_t)entries * sizeof *t->any_of, path, "its any_of entries", 1);
        TAKE(r, t->alternatives, (uint64_t)alternatives * sizeof *t->alternatives, path,
             "its any_of values", 1);
    }
    json_array_foreach(array, i, item)
    {
        char at[PATH_CAPACITY];
        path_index(at, path, i);
        if (json_is_null(item))
            continue;
        if (json_is_object(item)) {
            json_t *list = json_object_get(item, "any_of"), *alt;
            any_of_entry *e = &t->any_of[t->any_of_count++];
            size_t j;
            char base[PATH_CAPACITY];
            path_key(base, at, "any_of");
            e->element = i;
            e->first = t->alternatives_count;
            e->count = json_array_size(list);
            json_array_foreach(list, j, alt)
            {
                char alt_at[PATH_CAPACITY];
                path_index(alt_at, base, j);
                CHECK(decode_element(r, alt_at, alt, type,
                                     &t->alternatives[t->alternatives_count++]));
            }
            t->expected[i] = t->alternatives[e->first];
            continue;
        }
        CHECK(decode_element(r, at, item, type, &t->expected[i]));
    }
    return DMLREF_OK;
}

/* ---- inputs into buffers --------------------------------------------------- */

#define BIT_IS_SET(bits, i) (((bits)[(i) / 8] >> ((i) % 8)) & 1u)
#define SET_BIT(bits, i) ((bits)[(i) / 8] |= (unsigned char)(1u << ((i) % 8)))

/* Places the input's elements one logical element at a time, through its
   strides.  With strides given, several elements may share an address
   (broadcast); they must then agree bit for bit.  The work is the logical
   element count: for a data array, the array just parsed; for a generator
   whose elements look random, up to the first two that differ at one
   address.  A generator with a period (fill_periodic) would never differ
   there, so it does not come here. */
static dmlref_status fill_elementwise(reader *r, const char *path, json_t *data, vtensor *t,
                                      const layout *l, uint64_t count)
{
    walker w;
    uint64_t e, slots = t->buffer_bytes / l->element_size; /* every element lies below it */
    uint64_t written_bytes = slots / 8 + 1;
    unsigned char *written = NULL;
    dmlref_tensor_data_type type = t->desc.DataType;
    dmlref_status status = DMLREF_OK;

    if (t->desc.Strides)
        TAKE(r, written, written_bytes, path, "marking the element offsets it fills", 1);
    walker_init(&w, l->rank, l->sizes);
    walker_add(&w, l->strides);
    walker_seek(&w, 0);
    for (e = 0; e < count && status == DMLREF_OK; ++e, walker_next(&w)) {
        uint64_t bits, off = w.offset[0];
        unsigned char *slot = t->buffer + off * l->element_size;
        char at[PATH_CAPACITY];
        ++t->fill_work;
        if (data) {
            path_index(at, path, e);
            status = decode_element(r, at, json_array_get(data, (size_t)e), type, &bits);
            if (status != DMLREF_OK)
                break;
        } else {
            bits = generate_element(&t->gen, type, e);
        }
        if (written && BIT_IS_SET(written, off)) {
            if (load_bits(slot, l->element_size) == bits)
                continue;
            if (data) {
                path_index(at, path, e);
                status = SCHEMA(r, at,
                                "differs from an earlier element stored at the same "
                                "address (element offset %llu): a broadcast layout holds "
                                "one value there",
                                (unsigned long long)off);
            } else {
                status = SCHEMA(r, path,
                                "element %llu differs from an earlier element stored "
                                "at the same address (element offset %llu): a "
                                "broadcast layout holds one value there",
                                (unsigned long long)e, (unsigned long long)off);
            }
            break;
        }
        if (written)
            SET_BIT(written, off);
        store_bits(slot, l->element_size, bits);
    }
    if (written) {
        free(written);
        budget_give_back(&r->budget, written_bytes);
    }
    return status;
}

/* When a generator's elements do not depend on their position, or only on
   their last coordinate, its values: element e is values[e % *period] (the
   last coordinate, as *period is the last size).  That is a "sparse"
   generator of density 0 or 1000000, and an "index" generator whose bounds
   are each one value.  0 for the others: their elements look random, so that
   two elements sharing an address soon differ and the reader stops there. */
static int generator_period(const vtensor *t, uint64_t *values, uint32_t *period)
{
    const generator *g = &t->gen;
    dmlref_tensor_data_type type = t->desc.DataType;
    uint32_t j, last_size = t->sizes[t->desc.DimensionCount - 1];
    if (g->kind == GENERATOR_SPARSE && (g->density == 0 || g->density == 1000000)) {
        values[0] = generate_element(g, type, 0);
        *period = 1;
        return 1;
    }
    if (g->kind != GENERATOR_INDEX)
        return 0;
    for (j = 0; j < g->bound_count; ++j)
        if (g->low[j] != g->high[j])
            return 0;
    *period = 1;
    for (j = 0; j < g->bound_count; ++j) {
        values[j] = generate_element(g, type, j);
        if (values[j] != values[0])
            *period = g->bound_count;
    }
    /* element e's bound is e % bound_count, its last coordinate when the
       last size is the bound count (check_consistency: index tuples) */
    return *period == 1 || last_size == *period;
}

/* Marks in `reach` every element offset sum(c[d] * strides[d]) of the
   layout's first `rank` dimensions, one dimension at a time: with n its size
   and s > 0 its stride, offset x is reached when one of x, x - s, ...,
   x - (n - 1)s was reached before, which a count sliding along each class
   of offsets modulo s decides in one pass over the span.  So the work is the
   span times the rank, whatever the sizes: a stride of 0 adds nothing, and
   overlapping strides ({1, 1} over 65535 x 65535 elements) only their span.
   `reach` and `scratch` hold a bit per offset of the span and start zeroed.
   Returns the span; *work grows by the offsets visited. */
static uint64_t mark_reachable(const layout *l, uint32_t rank, unsigned char *reach,
                               unsigned char *scratch, uint64_t *work)
{
    uint64_t span = 0;
    uint32_t d;
    SET_BIT(reach, 0);
    for (d = 0; d < rank; ++d) {
        uint64_t n = l->sizes[d], s = l->strides[d], next, residue, x;
        if (n <= 1 || s == 0)
            continue;
        next = span + s * (n - 1); /* below the buffer's element count */
        memset(scratch, 0, (size_t)(next / 8 + 1));
        for (residue = 0; residue < s && residue <= next; ++residue) {
            uint64_t inside = 0; /* offsets reached among x, x - s, ..., x - (n - 1)s */
            for (x = residue; x <= next; x += s) {
                if (x <= span && BIT_IS_SET(reach, x))
                    ++inside;
                if (x >= n * s && x - n * s <= span && BIT_IS_SET(reach, x - n * s))
                    --inside;
                if (inside)
                    SET_BIT(scratch, x);
                ++*work;
            }
        }
        memcpy(reach, scratch, (size_t)(next / 8 + 1));
        span = next;
    }
    return span;
}

/* A generator with a period (generator_period) over strides: each element
   offset the layout reaches gets the value of the elements stored there,
   found by marking the reachable offsets (mark_reachable) rather than by
   walking every logical element: a broadcast of 2^32 elements over a few
   bytes is as quick as its bytes.  The buffer is what the walk would give;
   two last coordinates that put different values at one address are
   refused as the walk refuses them. */
static dmlref_status fill_periodic(reader *r, const char *path, vtensor *t, const layout *l,
                                   const uint64_t *values, uint32_t period)
{
    uint32_t outer_rank = period > 1 ? l->rank - 1 : l->rank;
    uint64_t slots = t->buffer_bytes / l->element_size, bitmap_bytes = slots / 8 + 1;
    uint64_t last_size = period > 1 ? l->sizes[l->rank - 1] : 1;
    uint64_t last_stride = period > 1 ? l->strides[l->rank - 1] : 0, span, c, x;
    unsigned char *reach, *written;
    dmlref_status status = DMLREF_OK;

    TAKE(r, reach, 2 * bitmap_bytes, path, "marking the element offsets it fills", 1);
    written = reach + bitmap_bytes;
    span = mark_reachable(l, outer_rank, reach, written, &t->fill_work);
    memset(written, 0, (size_t)bitmap_bytes);
    for (c = 0; c < last_size && status == DMLREF_OK; ++c) {
        uint64_t bits = values[c % period], base = c * last_stride;
        for (x = 0; x <= span; ++x) {
            uint64_t off = base + x, earlier;
            unsigned char *slot = t->buffer + off * l->element_size;
            if (!reach[x / 8]) { /* no offset of these eight is reached */
                x |= 7;
                continue;
            }
            if (!BIT_IS_SET(reach, x))
                continue;
            ++t->fill_work;
            if (!BIT_IS_SET(written, off)) {
                SET_BIT(written, off);
                store_bits(slot, l->element_size, bits);
                continue;
            }
            if (load_bits(slot, l->element_size) == bits)
                continue;
            for (earlier = 0; earlier < c; ++earlier) /* who put the other value there */
                if (values[earlier % period] != bits && off >= earlier * last_stride &&
                    off - earlier * last_stride <= span &&
                    BIT_IS_SET(reach, off - earlier * last_stride))
                    break;
            status =
                SCHEMA(r, path,
                       "an element of last coordinate %llu differs from an "
                       "element of last coordinate %llu stored at the same "
                       "address (element offset %llu): a broadcast layout holds "
                       "one value there",
                       (unsigned long long)c, (unsigned long long)earlier, (unsigned long long)off);
            break;
        }
    }
    free(reach);
    budget_give_back(&r->budget, 2 * bitmap_bytes);
    return status;
}

/* Places the input's elements (data array or generator) into its buffer,
   through its strides: elements that share an address (broadcast) must
   agree bit for bit. */
static dmlref_status fill_input(reader *r, const char *path, json_t *data, vtensor *t)
{
    layout l;
    uint64_t count, values[8];
    uint32_t period;

    layout_from_desc(&t->desc, &l);
    count = layout_element_count(&l);
    if (data && json_array_size(data) != count)
        return SCHEMA(r, path, "has %zu elements, sizes give %llu", json_array_size(data),
                      (unsigned long long)count);
    if (count == 0)
        return DMLREF_OK;
    if (!data && t->desc.Strides && generator_period(t, values, &period))
        return fill_periodic(r, path, t, &l, values, period);
    return fill_elementwise(r, path, data, t, &l, count);
}

/* ---- inferring output sizes (eval) ------------------------------------------ */

/* The outputs' sizes for a case that leaves them out: the operator's shape
   rules (dmlref_infer_output_sizes), from the inputs and attributes. */
static dmlref_status infer_output_sizes(const reader *r, dmlref_vector *v)
{
    size_t o;
    vector_link_descriptors(v);
    for (o = v->input_count; o < v->input_count + v->output_count; ++o) {
        vtensor *t = &v->tensors[o];
        dmlref_error why;
        char at[PATH_CAPACITY];
        if (t->has_sizes)
            continue;
        if (dmlref_infer_output_sizes(&v->op, v->level, (uint32_t)(o - v->input_count),
                                      &t->desc.DimensionCount, t->sizes, &why) != DMLREF_OK) {
            snprintf(at, sizeof at, "$.tensors.%s.sizes", t->name);
            return SCHEMA(r, at, "cannot be inferred: %s", why.message);
        }
        t->desc.Sizes = t->sizes;
        t->has_sizes = 1;
    }
    return DMLREF_OK;
}

/* "", "D<n>" or "R-<letters>-<n>": the ids of docs/rules.md. */
static int is_rule_id(const char *text)
{
    size_t n = strlen(text), letters;
    if (n == 0)
        return 1;
    if (n >= DMLREF_ERROR_RULE_CAPACITY)
        return 0;
    if (text[0] == 'D')
        return n > 1 && n <= 3 && strspn(text + 1, "0123456789") == n - 1;
    if (strncmp(text, "R-", 2) != 0)
        return 0;
    letters = strspn(text + 2, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
    return letters == 2 && text[4] == '-' && n > 5 && strspn(text + 5, "0123456789") == n - 5;
}

/* ---- permitted variants ---------------------------------------------------------- */

/* The structure of "variants" (format 2): each entry's keys, a known name
   with its own rule, one that applies to the case, and for every output an
   object with "expected", "xxh3" or both.  The elements are read with the
   outputs' (read_variant_expectations). */
static dmlref_status read_variants(const reader *r, json_t *array, dmlref_vector *v,
                                   const operator_shape *shape)
{
    static const char *const keys[] = {"name", "rule", "outputs", NULL};
    static const char *const output_keys[] = {"expected", "xxh3", NULL};
    json_t *entry;
    size_t k;

    if (v->expects_error)
        return SCHEMA(r, "$.variants", "an expect_error case has no variants (it has no outputs)");
    if (!json_is_array(array))
        return SCHEMA(r, "$.variants", "must be an array");
    if (json_array_size(array) < 1)
        return SCHEMA(r, "$.variants", "must have at least one variant");
    json_array_foreach(array, k, entry)
    {
        char base[PATH_CAPACITY], at[PATH_CAPACITY], out_at[PATH_CAPACITY];
        const char *name = NULL, *rule = NULL;
        json_t *item, *outputs;
        size_t j, o;
        int kind;
        path_index(base, "$.variants", k);
        if (!json_is_object(entry))
            return SCHEMA(r, base, "must be an object");
        CHECK(only_keys(r, base, entry, keys));
        path_key(at, base, "name");
        if (!(item = json_object_get(entry, "name")))
            return SCHEMA(r, at, "is missing");
        CHECK(get_string(r, at, item, &name));
        for (kind = 0; kind < VARIANT_KINDS; ++kind)
            if (strcmp(name, variant_kind_name(kind)) == 0)
                break;
        if (kind == VARIANT_KINDS)
            return SCHEMA(r, at,
                          "\"%.40s\" is not a variant this version knows "
                          "(\"subnormals_flushed\")",
                          name);
        for (j = 0; j < v->variant_count; ++j)
            if (v->variants[j].kind == kind)
                return SCHEMA(r, at, "\"%s\" appears twice", name);
        if (kind == VARIANT_SUBNORMALS_FLUSHED &&
            !(v->type == DMLREF_OPERATOR_NONZERO_COORDINATES &&
              is_float_type(v->tensors[0].desc.DataType)))
            return SCHEMA(r, at, "\"%s\" applies only to NONZERO_COORDINATES with a float input",
                          name);
        path_key(at, base, "rule");
        if (!(item = json_object_get(entry, "rule")))
            return SCHEMA(r, at, "is missing");
        CHECK(get_string(r, at, item, &rule));
        if (strcmp(rule, variant_kind_rule(kind)) != 0)
            return SCHEMA(r, at, "\"%.40s\" is not the rule of \"%s\" (\"%s\")", rule, name,
                          variant_kind_rule(kind));
        path_key(at, base, "outputs");
        if (!(outputs = json_object_get(entry, "outputs")))
            return SCHEMA(r, at, "is missing");
        if (!json_is_object(outputs))
            return SCHEMA(r, at, "must be an object");
        CHECK(only_keys(r, at, outputs, shape->tensors + shape->input_count));
        for (o = 0; o < shape->output_count; ++o) {
            const char *tensor = shape->tensors[shape->input_count + o];
            json_t *x;
            path_key(out_at, at, tensor);
            if (!(item = json_object_get(outputs, tensor)))
                return SCHEMA(r, out_at, "is missing");
            if (!json_is_object(item))
                return SCHEMA(r, out_at, "must be an object");
            CHECK(only_keys(r, out_at, item, output_keys));
            if (!json_object_get(item, "expected") && !json_object_get(item, "xxh3"))
                return SCHEMA(r, out_at, "needs \"expected\" or \"xxh3\"");
            if ((x = json_object_get(item, "xxh3"))) {
                char xat[PATH_CAPACITY];
                path_key(xat, out_at, "xxh3");
                CHECK(check_xxh3_text(r, xat, x, NULL));
            }
            if ((x = json_object_get(item, "expected")) && !json_is_array(x)) {
                char xat[PATH_CAPACITY];
                path_key(xat, out_at, "expected");
                return SCHEMA(r, xat, "must be an array");
            }
        }
        v->variants[v->variant_count++].kind = kind;
    }
    return DMLREF_OK;
}

/* The elements and digests of each variant's outputs, once the case's
   outputs are known (sizes inferred, buffers sized). */
static dmlref_status read_variant_expectations(reader *r, json_t *root, dmlref_vector *v)
{
    json_t *array = json_object_get(root, "variants");
    size_t k, o;
    for (k = 0; k < v->variant_count; ++k) {
        json_t *outputs = json_object_get(json_array_get(array, k), "outputs");
        for (o = 0; o < v->output_count; ++o) {
            vtensor *t = &v->variants[k].outputs[o];
            json_t *item, *x;
            char at[PATH_CAPACITY];
            variant_output_init(t, &v->tensors[v->input_count + o]);
            item = json_object_get(outputs, t->name);
            if ((x = json_object_get(item, "xxh3"))) {
                snprintf(at, sizeof at, "$.variants[%zu].outputs.%s.xxh3", k, t->name);
                CHECK(check_xxh3_text(r, at, x, &t->xxh3));
                t->has_xxh3 = 1;
            }
            if ((x = json_object_get(item, "expected"))) {
                snprintf(at, sizeof at, "$.variants[%zu].outputs.%s.expected", k, t->name);
                CHECK(read_expected(r, at, x, t));
                t->has_expected = 1;
                if (t->has_xxh3 && t->kinds &&
                    !(v->type == DMLREF_OPERATOR_NONZERO_COORDINATES &&
                      v->input_count + o == OUTPUT_COORDINATES_TENSOR)) {
                    snprintf(at, sizeof at, "$.variants[%zu].outputs.%s.xxh3", k, t->name);
                    return SCHEMA(r, at,
                                  "a digest needs every element defined (no null, no any_of)");
                }
            }
        }
    }
    return DMLREF_OK;
}

/* ---- the whole vector --------------------------------------------------------- */

static dmlref_status read_top(reader *r, json_t *root, dmlref_vector *v, uint32_t flags)
{
    static const char *const keys[] = {
        "format",  "name", "operator",     "feature_level", "min_feature_level", "attributes",
        "tensors", "oob",  "expect_error", "notes",         "variants",          NULL};
    operator_shape shape;
    json_t *item, *tensors, *attributes;
    const char *text = NULL;
    size_t i;
    int version = 0;
    char at[PATH_CAPACITY];

    if (!json_is_object(root))
        return SCHEMA(r, "$", "a vector must be a JSON object");
    CHECK(only_keys(r, "$", root, keys));

    if (!(item = json_object_get(root, "format")))
        return SCHEMA(r, "$.format", "is missing");
    CHECK(get_string(r, "$.format", item, &text));
    if (strcmp(text, "dmlref-vector-1") == 0)
        version = 1;
    else if (strcmp(text, "dmlref-vector-2") == 0)
        version = 2;
    else
        return SCHEMA(r, "$.format",
                      "\"%s\" is not a format this version reads "
                      "(\"dmlref-vector-1\", \"dmlref-vector-2\")",
                      text);
    /* version 2 is version 1 with variants: each has them, or not */
    if (version == 1 && json_object_get(root, "variants"))
        return SCHEMA(r, "$.variants",
                      "a \"dmlref-vector-1\" vector has no variants "
                      "(they need \"dmlref-vector-2\")");
    if (version == 2 && !json_object_get(root, "variants"))
        return SCHEMA(r, "$.variants",
                      "is missing: a \"dmlref-vector-2\" vector states its "
                      "variants (without any it is \"dmlref-vector-1\")");

    if (!(item = json_object_get(root, "name")))
        return SCHEMA(r, "$.name", "is missing");
    CHECK(get_string(r, "$.name", item, &text));
    if (!*text || strlen(text) > 200 ||
        strspn(text, "abcdefghijklmnopqrstuvwxyz0123456789_-./") != strlen(text))
        return SCHEMA(r, "$.name", "must be 1 to 200 characters of a-z 0-9 _ - . /");
    TAKE(r, v->name, strlen(text) + 1, "$.name", "its name", 0);
    strcpy(v->name, text);

    if (!(item = json_object_get(root, "operator")))
        return SCHEMA(r, "$.operator", "is missing");
    CHECK(get_string(r, "$.operator", item, &text));
    if (!(v->row = operator_find_name(text)))
        return SCHEMA(r, "$.operator", "\"%s\" is not an operator dmlref implements", text);
    v->type = v->row->type;

    v->level = DMLREF_FEATURE_LEVEL_LATEST; /* D19 */
    if ((item = json_object_get(root, "feature_level")))
        CHECK(get_level(r, "$.feature_level", item, &v->level));
    if ((item = json_object_get(root, "min_feature_level"))) {
        CHECK(get_level(r, "$.min_feature_level", item, &v->min_level));
        v->has_min_level = 1;
    }
    v->oob = DMLREF_OOB_ERROR;
    if ((item = json_object_get(root, "oob"))) {
        CHECK(get_string(r, "$.oob", item, &text));
        if (strcmp(text, "clamp") == 0)
            v->oob = DMLREF_OOB_CLAMP;
        else if (strcmp(text, "error") != 0)
            return SCHEMA(r, "$.oob", "\"%s\" is not a policy (\"error\", \"clamp\")", text);
    }
    if ((item = json_object_get(root, "notes"))) {
        CHECK(get_string(r, "$.notes", item, &text));
        TAKE(r, v->notes, strlen(text) + 1, "$.notes", "its notes", 0);
        strcpy(v->notes, text);
    }
    if ((item = json_object_get(root, "expect_error"))) {
        static const char *const error_keys[] = {"status", "rule", NULL};
        json_t *s = json_object_get(item, "status"), *rule = json_object_get(item, "rule");
        if (!json_is_object(item))
            return SCHEMA(r, "$.expect_error", "must be an object");
        CHECK(only_keys(r, "$.expect_error", item, error_keys));
        if (!s)
            return SCHEMA(r, "$.expect_error.status", "is missing");
        CHECK(get_string(r, "$.expect_error.status", s, &text));
        if (!dmlref_status_from_name(text, &v->error_status) || v->error_status == DMLREF_OK)
            return SCHEMA(r, "$.expect_error.status", "\"%s\" is not an error status", text);
        if (!rule)
            return SCHEMA(r, "$.expect_error.rule", "is missing");
        CHECK(get_string(r, "$.expect_error.rule", rule, &text));
        if (!is_rule_id(text))
            return SCHEMA(r, "$.expect_error.rule",
                          "\"%.40s\" is not a rule id of docs/rules.md (R-XX-n, Dn, or \"\")",
                          text);
        strcpy(v->error_rule, text);
        v->expects_error = 1;
    }

    operator_shape_of(v->row, &shape);
    attributes = json_object_get(root, "attributes");
    if (attributes && !json_is_object(attributes))
        return SCHEMA(r, "$.attributes", "must be an object");
    if (attributes)
        CHECK(only_keys(r, "$.attributes", attributes, shape.attributes));
    for (i = 0; i < shape.attribute_count; ++i) {
        uint64_t value;
        path_key(at, "$.attributes", shape.attributes[i]);
        if (!attributes || !(item = json_object_get(attributes, shape.attributes[i])))
            return SCHEMA(r, at, "is missing");
        CHECK(get_uint(r, at, item, UINT32_MAX, &value));
        v->attributes[i] = (uint32_t)value;
    }

    v->input_count = shape.input_count;
    v->output_count = shape.output_count;
    if (!(tensors = json_object_get(root, "tensors")))
        return SCHEMA(r, "$.tensors", "is missing");
    if (!json_is_object(tensors))
        return SCHEMA(r, "$.tensors", "must be an object");
    CHECK(only_keys(r, "$.tensors", tensors, shape.tensors));
    for (i = 0; i < shape.input_count + shape.output_count; ++i) {
        vtensor *t = &v->tensors[i];
        t->name = shape.tensors[i];
        t->is_output = i >= shape.input_count;
        path_key(at, "$.tensors", t->name);
        if (!(item = json_object_get(tensors, t->name)))
            return SCHEMA(r, at, "is missing");
        CHECK(read_tensor(r, at, item, t, flags));
        if (t->is_output && !v->expects_error && !(flags & DMLREF_VECTOR_READ_CASE) &&
            !t->has_expected && !t->has_xxh3)
            return SCHEMA(r, at, "needs \"expected\" or \"xxh3\" (or the case \"expect_error\")");
        if (t->is_output && v->expects_error && (t->has_expected || t->has_xxh3))
            return SCHEMA(r, at, "an expect_error case has no expected outputs");
        if (!t->is_output && !t->has_data && !v->expects_error)
            return SCHEMA(r, at, "needs \"data\" or \"generator\"");
    }
    if ((item = json_object_get(root, "variants")))
        CHECK(read_variants(r, item, v, &shape));
    return DMLREF_OK;
}

void validation_path(const dmlref_vector *v, const char *message, char *path)
{
    static const char *const fields[][2] = {{"Sizes", "sizes"},
                                            {"Strides", "strides"},
                                            {"DataType", "dtype"},
                                            {"DimensionCount", "sizes"},
                                            {"TotalTensorSizeInBytes", "total_bytes"},
                                            {"Flags", "flags"},
                                            {"GuaranteedBaseOffsetAlignment", "alignment"}};
    const char *body = strstr(message, ": "), *best = NULL;
    size_t i, best_tensor = 0, best_field = 0;
    operator_shape shape;
    operator_shape_of(v->row, &shape);
    body = body ? body + 2 : message;
    strcpy(path, "$");
    for (i = 0; i < shape.input_count + shape.output_count; ++i) {
        const char *at = strstr(body, shape.tensors[i]);
        size_t f, length = strlen(shape.tensors[i]);
        if (!at || at[length] != '.' || (best && at >= best))
            continue;
        for (f = 0; f < sizeof fields / sizeof fields[0]; ++f) {
            size_t n = strlen(fields[f][0]);
            char next = at[length + 1 + n];
            if (strncmp(at + length + 1, fields[f][0], n) == 0 &&
                !((next >= 'A' && next <= 'Z') || (next >= 'a' && next <= 'z'))) {
                best = at, best_tensor = i, best_field = f;
                break;
            }
        }
    }
    {
        const char *first = NULL; /* the attribute named first, if before any tensor field */
        size_t first_attribute = 0;
        for (i = 0; i < shape.attribute_count; ++i) {
            const char *at = strstr(body, shape.attributes[i]);
            if (at && (!best || at < best) && (!first || at < first))
                first = at, first_attribute = i;
        }
        if (first) {
            path_key(path, "$.attributes", shape.attributes[first_attribute]);
            return;
        }
    }
    if (best) {
        const char *after =
            best + strlen(shape.tensors[best_tensor]) + 1 + strlen(fields[best_field][0]);
        unsigned index;
        char tensor[PATH_CAPACITY];
        path_key(tensor, "$.tensors", shape.tensors[best_tensor]);
        path_key(path, tensor, fields[best_field][1]);
        if (best_field <= 1 && sscanf(after, "[%u]", &index) == 1) {
            char field[PATH_CAPACITY];
            strcpy(field, path);
            path_index(path, field, index);
        }
    }
}

/* Rules of the format that span several keys: an "index" generator has one
   bound per tuple coordinate on indices that hold tuples (GatherND's), else
   one. */
static dmlref_status check_consistency(const reader *r, const dmlref_vector *v)
{
    size_t i;
    for (i = 0; i < v->input_count; ++i) {
        const vtensor *t = &v->tensors[i];
        uint32_t want = 1;
        char at[PATH_CAPACITY];
        if (t->gen.kind != GENERATOR_INDEX)
            continue;
        if (v->row->tensors[i].flags & OPERATOR_SLOT_INDEX_TUPLES)
            want = t->sizes[t->desc.DimensionCount - 1];
        if (t->gen.bound_count != want) {
            snprintf(at, sizeof at, "$.tensors.%s.generator.low", t->name);
            return SCHEMA(r, at, "has %u bounds; this tensor takes %u (one per %s)",
                          t->gen.bound_count, want, want == 1 ? "tensor" : "tuple coordinate");
        }
    }
    return DMLREF_OK;
}

/* The data of an input of a case that must be refused: as many elements as
   the sizes say, each well-formed for its type.  With `keep`, the logical
   elements are kept in t->elements (an input that gets no buffer, so that
   the writer can still give its data). */
static dmlref_status check_data_form(reader *r, json_t *tensor, vtensor *t, int keep)
{
    json_t *data = json_object_get(tensor, "data"), *item;
    char at[PATH_CAPACITY], element_at[PATH_CAPACITY];
    uint64_t count = element_count(t), bits;
    size_t e;
    if (!data)
        return DMLREF_OK;
    snprintf(at, sizeof at, "$.tensors.%s.data", t->name);
    if (json_array_size(data) != count)
        return SCHEMA(r, at, "has %zu elements, sizes give %llu", json_array_size(data),
                      (unsigned long long)count);
    if (keep) /* proportional to the array just parsed */
        TAKE(r, t->elements, count * sizeof *t->elements, at, "the elements of its data", 0);
    json_array_foreach(data, e, item)
    {
        path_index(element_at, at, e);
        CHECK(decode_element(r, element_at, item, t->desc.DataType, &bits));
        if (keep)
            t->elements[e] = bits;
    }
    return DMLREF_OK;
}

/* Allocates one zeroed buffer of `bytes` at the tensor's
   GuaranteedBaseOffsetAlignment, counting it, and what aligning it takes,
   against the memory cap. */
static dmlref_status allocate_buffer(reader *r, vtensor *t, uint64_t bytes)
{
    char at[PATH_CAPACITY], what[128];
    uint32_t alignment = t->desc.GuaranteedBaseOffsetAlignment;
    uint64_t allocated = aligned_buffer_bytes(bytes, alignment);
    snprintf(at, sizeof at, "$.tensors.%s", t->name);
    if (allocated > (bytes ? bytes : 1))
        snprintf(what, sizeof what, "its buffer of %llu bytes aligned to %lu bytes",
                 (unsigned long long)bytes, (unsigned long)alignment);
    else
        snprintf(what, sizeof what, "its buffer");
    CHECK(budget_take(&r->budget, allocated, at, what));
    t->buffer = aligned_buffer_new(bytes, alignment, &t->buffer_block);
    if (!t->buffer)
        return budget_out_of_memory(&r->budget, allocated, at, what);
    t->buffer_bytes = bytes;
    t->buffer_allocated = allocated;
    return DMLREF_OK;
}

/* The bytes a buffer of a case that must be refused gets, so that every
   element can be placed at its strided offset: TotalTensorSizeInBytes, or
   DMLCalcBufferTensorSize when that is more (a total below the minimum,
   R-TD-9).  0 when the tensor gets no buffer: it has more than 2^32-1
   elements, its minimum size does not fit 64 bits, or the buffer (aligned),
   or its elements packed, would pass the reader's memory cap.  The packed
   bound keeps the work on a refused case (a backend's, or the reference's
   looking for an index out of range) in proportion to the cap, where a
   stride of 0 folds 2^32 elements into a few bytes. */
static uint64_t refused_case_buffer_bytes(const reader *r, const vtensor *t)
{
    uint64_t count = element_count(t), bytes = t->desc.TotalTensorSizeInBytes, minimum;
    uint64_t left = r->budget.used < r->budget.cap ? r->budget.cap - r->budget.used : 0;
    if (count > DMLREF_MAX_TENSOR_ELEMENTS ||
        count * dmlref_data_type_size(t->desc.DataType) > left)
        return 0;
    if (count > 0) {
        minimum = dmlref_calc_buffer_tensor_size(t->desc.DataType, t->desc.DimensionCount, t->sizes,
                                                 t->desc.Strides);
        if (minimum == 0)
            return 0; /* does not fit 64 bits */
        if (minimum > bytes)
            bytes = minimum;
    }
    if (bytes == 0)
        bytes = 4; /* a tensor with no element: a buffer all the same */
    if (aligned_buffer_bytes(bytes, t->desc.GuaranteedBaseOffsetAlignment) > left ||
        bytes > (uint64_t)SIZE_MAX)
        return 0;
    return bytes;
}

/* A valid case: every tensor gets its TotalTensorSizeInBytes; inputs are
   filled, outputs' expected elements read. */
static dmlref_status read_valid_case(reader *r, json_t *tensors, dmlref_vector *v)
{
    size_t i, n = v->input_count + v->output_count;
    for (i = 0; i < n; ++i) {
        vtensor *t = &v->tensors[i];
        json_t *tj = json_object_get(tensors, t->name);
        char at[PATH_CAPACITY];
        if (!t->is_output && !t->has_data)
            continue;
        CHECK(allocate_buffer(r, t, t->desc.TotalTensorSizeInBytes));
        if (!t->is_output) {
            snprintf(at, sizeof at, "$.tensors.%s.%s", t->name,
                     t->gen.kind == GENERATOR_NONE ? "data" : "generator");
            CHECK(fill_input(r, at, json_object_get(tj, "data"), t));
        } else if (t->has_expected) {
            snprintf(at, sizeof at, "$.tensors.%s.expected", t->name);
            CHECK(read_expected(r, at, json_object_get(tj, "expected"), t));
            if (t->has_xxh3 && t->kinds &&
                !(v->type == DMLREF_OPERATOR_NONZERO_COORDINATES &&
                  i == OUTPUT_COORDINATES_TENSOR)) {
                snprintf(at, sizeof at, "$.tensors.%s.xxh3", t->name);
                return SCHEMA(r, at, "a digest needs every element defined (no null, no any_of)");
            }
        }
    }
    return DMLREF_OK;
}

/* A case that validation refuses and that expects an error: buffers are
   built as for a valid case wherever its elements can be placed (see
   refused_case_buffer_bytes), so that a backend under test can be run on it;
   an input's data that gets no buffer is kept for the writer. */
static dmlref_status read_refused_case(reader *r, json_t *tensors, dmlref_vector *v)
{
    size_t i, n = v->input_count + v->output_count;
    for (i = 0; i < n; ++i) {
        vtensor *t = &v->tensors[i];
        json_t *tj = json_object_get(tensors, t->name);
        uint64_t bytes;
        char at[PATH_CAPACITY];
        if (!t->is_output && !t->has_data)
            continue;
        bytes = refused_case_buffer_bytes(r, t);
        if (bytes == 0) {
            if (!t->is_output)
                CHECK(check_data_form(r, tj, t, 1));
            continue;
        }
        if (!t->is_output)
            CHECK(check_data_form(r, tj, t, 0)); /* its count and form before any work */
        CHECK(allocate_buffer(r, t, bytes));
        if (!t->is_output) {
            snprintf(at, sizeof at, "$.tensors.%s.%s", t->name,
                     t->gen.kind == GENERATOR_NONE ? "data" : "generator");
            CHECK(fill_input(r, at, json_object_get(tj, "data"), t));
        }
    }
    return DMLREF_OK;
}

static dmlref_status read_vector(reader *r, json_t *root, dmlref_vector *v, uint32_t flags)
{
    size_t i, n;
    json_t *tensors;
    dmlref_error verr;

    CHECK(read_top(r, root, v, flags));
    if (flags & DMLREF_VECTOR_READ_CASE)
        CHECK(infer_output_sizes(r, v));
    n = v->input_count + v->output_count;
    for (i = 0; i < n; ++i) {
        vtensor *t = &v->tensors[i];
        if (!t->total_given)
            t->desc.TotalTensorSizeInBytes = dmlref_calc_buffer_tensor_size(
                t->desc.DataType, t->desc.DimensionCount, t->sizes, t->desc.Strides);
    }
    vector_link_descriptors(v);
    CHECK(check_consistency(r, v));

    /* Buffers for a valid case; for a case that validation refuses, where
       its elements can be placed (read_refused_case). */
    tensors = json_object_get(root, "tensors");
    if (dmlref_validate(&v->op, v->level, &verr) != DMLREF_OK) {
        char at[PATH_CAPACITY];
        if (!v->expects_error && !(flags & DMLREF_VECTOR_READ_REFUSED)) {
            validation_path(v, verr.message, at);
            prefix_error(&verr, r->source, at);
            if (r->err)
                *r->err = verr;
            return verr.status;
        }
        CHECK(read_refused_case(r, tensors, v));
    } else {
        CHECK(read_valid_case(r, tensors, v));
    }
    CHECK(read_variant_expectations(r, root, v));
    v->buffers_ready = 1;
    for (i = 0; i < n; ++i) {
        dmlref_binding *b = i < v->input_count ? &v->inputs[i] : &v->outputs[i - v->input_count];
        if (!v->tensors[i].buffer) {
            v->buffers_ready = 0;
            continue;
        }
        b->data = v->tensors[i].buffer;
        b->size_in_bytes = v->tensors[i].desc.TotalTensorSizeInBytes;
    }
    return DMLREF_OK;
}

/* ---- what parsing costs ---------------------------------------------------------
 * jansson builds a json_t for every value, so the parse tree, not the text,
 * is what a large vector costs: 100 MB of "{}," grew to 7.5 GB.  Its
 * allocator hook, json_set_alloc_funcs(), is one for the whole process and
 * cannot keep a per-call account while other threads parse, so the reader
 * bounds the tree from the text before jansson sees it: one pass counts
 * each kind of token, and each is charged what jansson allocates for it.
 *
 * The charges, measured with jansson 2.14 and glibc on x86-64 (malloc's
 * 8-byte header and 16-byte rounding included; a slot is a value's pointer
 * in its array's table, 8 bytes, and up to 24 while the table doubles):
 *   number          32-byte json_t and a slot: 40 to 56        charged 64
 *   true/false/null shared singletons, only a slot: 8 to 24    charged 32
 *   string          48-byte json_t, its copy, a slot: 88 + n   charged 128 + n
 *   array           48-byte json_t, a first table of 8: 136    charged 192
 *   object          80-byte json_t, 8 hash buckets: 232        charged 320
 *   member          its key's pair (80 + n, the key counted as
 *                   a string) and buckets while they double: 48  charged 64
 * plus 4 bytes per byte of the longest string (jansson's token buffer
 * doubles up to twice it, its copy, and a key's copy in its pair: up to 4
 * measured) and 1 KiB.  Charges are about a third above what was measured,
 * for other allocators; nesting adds nothing (jansson stops at depth
 * 2048).  So "[1, 2, 3]" is charged 1024 + 192 + 3 * 64 and 100 MB of "{},"
 * 10.7 GB, both before parsing.  tests/unit/test_vectors.c checks the charge
 * against jansson's allocations for each kind of token. */
#define TREE_BYTES_BASE 1024u
#define TREE_BYTES_PER_NUMBER 64u
#define TREE_BYTES_PER_LITERAL 32u
#define TREE_BYTES_PER_STRING 128u /* and one per byte of it */
#define TREE_BYTES_PER_ARRAY 192u
#define TREE_BYTES_PER_OBJECT 320u
#define TREE_BYTES_PER_MEMBER 64u
#define TREE_BYTES_PER_LONGEST_STRING_BYTE 4u

/* The tokens of a JSON text, counted without parsing it (past the first
   flaw of a text the count may be off: jansson stops there). */
typedef struct text_census {
    uint64_t numbers, literals, strings, string_bytes, longest_string;
    uint64_t arrays, objects, members;
    int minus_zero;   /* the text holds the number -0 (FORMAT.md forbids it) */
    int line, column; /* where its first one starts */
} text_census;

static void count_string(text_census *census, uint64_t bytes)
{
    census->string_bytes += bytes;
    if (bytes > census->longest_string)
        census->longest_string = bytes;
}

/* Counts the tokens of `text`, stopping at the first number -0: JSON's -0
   reaches jansson as the integer 0, losing the sign that a float element
   would carry, so FORMAT.md forbids the token. */
static void take_census(const char *text, size_t length, text_census *census)
{
    size_t i, string_start = 0;
    int in_string = 0, in_number = 0, in_word = 0, l = 1, c = 0;
    memset(census, 0, sizeof *census);
    for (i = 0; i < length; ++i, ++c) {
        char ch = text[i];
        if (ch == '\n') {
            ++l, c = -1;
            in_number = in_word = 0;
            continue;
        }
        if (in_string) {
            if (ch == '\\') {
                ++i, ++c; /* skip the escaped character */
            } else if (ch == '"') {
                in_string = 0;
                count_string(census, i - string_start);
            }
            continue;
        }
        if (ch == '"') {
            in_string = 1;
            string_start = i + 1;
            ++census->strings;
            in_number = in_word = 0;
            continue;
        }
        if (ch == '-' && !in_number && i + 1 < length && text[i + 1] == '0' &&
            (i + 2 == length || !strchr(".eE0123456789", text[i + 2]))) {
            census->minus_zero = 1;
            census->line = l;
            census->column = c + 1;
            return;
        }
        if ((ch >= '0' && ch <= '9') || ch == '-') {
            census->numbers += !in_number;
            in_number = 1;
            continue;
        }
        if (in_number && (ch == '.' || ch == 'e' || ch == 'E' || ch == '+'))
            continue;
        in_number = 0;
        if (ch >= 'a' && ch <= 'z') { /* true, false, null */
            census->literals += !in_word;
            in_word = 1;
            continue;
        }
        in_word = 0;
        census->arrays += ch == '[';
        census->objects += ch == '{';
        census->members += ch == ':';
    }
    if (in_string) /* cut short: jansson refuses it, after copying what there is */
        count_string(census, length - string_start);
}

/* What jansson may allocate parsing a text of this census (see above). */
static uint64_t parse_tree_bytes(const text_census *census)
{
    return TREE_BYTES_BASE + census->numbers * TREE_BYTES_PER_NUMBER +
           census->literals * TREE_BYTES_PER_LITERAL + census->strings * TREE_BYTES_PER_STRING +
           census->string_bytes + census->longest_string * TREE_BYTES_PER_LONGEST_STRING_BYTE +
           census->arrays * TREE_BYTES_PER_ARRAY + census->objects * TREE_BYTES_PER_OBJECT +
           census->members * TREE_BYTES_PER_MEMBER;
}

/* Counts, before parsing, the tree of `length` bytes of JSON text against
   the budget. */
static dmlref_status take_parse_tree(memory_budget *budget, const text_census *census,
                                     size_t length)
{
    char what[96];
    snprintf(what, sizeof what, "the parse tree of its %llu bytes of JSON text",
             (unsigned long long)length);
    return budget_take(budget, parse_tree_bytes(census), "$", what);
}

/* DMLREF_ERROR_VECTOR_PARSE with jansson's message; DMLREF_ERROR_OUT_OF_MEMORY
   when an allocation failed inside jansson, which leaves its message empty. */
static dmlref_status parse_failure(dmlref_error *err, const char *source, const json_error_t *jerr,
                                   size_t length, int with_line)
{
    int out_of_memory = !jerr->text[0];
#if JANSSON_VERSION_HEX >= 0x020b00
    out_of_memory |= json_error_code(jerr) == json_error_out_of_memory;
#endif
    if (out_of_memory)
        return set_error(err, DMLREF_ERROR_OUT_OF_MEMORY, "",
                         "%s: $: out of memory parsing %llu bytes of JSON text", source,
                         (unsigned long long)length);
    if (with_line)
        return set_error(err, DMLREF_ERROR_VECTOR_PARSE, "", "%s: $: line %d, column %d: %s",
                         source, jerr->line, jerr->column, jerr->text);
    return set_error(err, DMLREF_ERROR_VECTOR_PARSE, "", "%s: $: column %d: %s", source,
                     jerr->column, jerr->text);
}

/* dmlref_vector_parse() with `held` bytes already counted against the
   memory cap (the file's text that dmlref_vector_load() read). */
static dmlref_status parse_vector(const char *text, size_t length, const char *source_name,
                                  const dmlref_vector_read_options *options, uint64_t held,
                                  dmlref_vector **out, dmlref_error *err)
{
    reader r;
    text_census census;
    json_error_t jerr;
    json_t *root;
    dmlref_vector *v;
    dmlref_status status;
    void *taken;

    *out = NULL;
    r.source = source_name ? source_name : "(vector)";
    r.err = err;
    r.budget.cap =
        options && options->memory_cap ? options->memory_cap : DMLREF_VECTOR_DEFAULT_MEMORY_CAP;
    r.budget.used = held;
    r.budget.source = r.source;
    r.budget.err = err;
    take_census(text ? text : "", length, &census);
    if (census.minus_zero)
        return set_error(err, DMLREF_ERROR_VECTOR_PARSE, "",
                         "%s: $: line %d, column %d: the number -0 is ambiguous in JSON readers: "
                         "write -0.0 (negative zero) or 0",
                         r.source, census.line, census.column);
    CHECK(take_parse_tree(&r.budget, &census, length));
    root = json_loadb(text ? text : "", length, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return parse_failure(err, r.source, &jerr, length, 1);
    status = budget_allocate(&r.budget, sizeof *v, 1, "$", "the vector", &taken);
    if (status != DMLREF_OK) {
        json_decref(root);
        return status;
    }
    v = taken;
    status = budget_allocate(&r.budget, strlen(r.source) + 1, 0, "$", "its file name", &taken);
    if (status != DMLREF_OK) {
        free(v);
        json_decref(root);
        return status;
    }
    v->source = taken;
    strcpy(v->source, r.source);
    v->memory_cap = r.budget.cap;
    status = read_vector(&r, root, v, options ? options->flags : 0);
    json_decref(root);
    if (status != DMLREF_OK) {
        dmlref_vector_free(v);
        return status;
    }
    *out = v;
    return DMLREF_OK;
}

dmlref_status dmlref_vector_parse(const char *text, size_t length, const char *source_name,
                                  const dmlref_vector_read_options *options, dmlref_vector **out,
                                  dmlref_error *err)
{
    if (!out || (!text && length))
        return set_error(err, DMLREF_ERROR_INVALID_ARGUMENT, "",
                         "dmlref_vector_parse: NULL text or out");
    return parse_vector(text, length, source_name, options, 0, out, err);
}

/* ---- files ------------------------------------------------------------------ */

/* An open vector file: with POSIX, a descriptor known to be a regular file. */
typedef struct input_file {
#ifdef LOAD_WITH_POSIX
    int fd;
#else
    FILE *f;
#endif
    uint64_t size; /* what the file said it holds; 0 when it cannot say */
} input_file;

#ifdef LOAD_WITH_POSIX
static const char *file_kind(mode_t mode)
{
    return S_ISFIFO(mode)   ? "a FIFO"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISDIR(mode)  ? "a directory"
           : S_ISSOCK(mode) ? "a socket"
                            : "of another kind";
}

static dmlref_status refuse_file(dmlref_error *err, const char *path, mode_t mode)
{
    return set_error(err, DMLREF_ERROR_IO, "",
                     "%s: not a regular file (%s): dmlref reads vectors from regular files only",
                     path, file_kind(mode));
}
#endif

/* Opens `path` for reading, refusing anything but a regular file where
   POSIX tells: a FIFO is opened without blocking (O_NONBLOCK) and refused,
   and a device is refused before it is opened (stat) and again after
   (fstat: the path may have changed in between). */
static dmlref_status open_input(const char *path, input_file *in, dmlref_error *err)
{
#ifdef LOAD_WITH_POSIX
    struct stat st;
    int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY;
#ifdef O_CLOEXEC
    flags |= O_CLOEXEC; /* not inherited by the processes dmlref check starts */
#endif
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return refuse_file(err, path, st.st_mode);
    in->fd = open(path, flags);
    if (in->fd < 0)
        return set_error(err, DMLREF_ERROR_IO, "", "%s: cannot open: %s", path, strerror(errno));
    if (fstat(in->fd, &st) != 0) {
        int error = errno;
        close(in->fd);
        return set_error(err, DMLREF_ERROR_IO, "", "%s: cannot read: %s", path, strerror(error));
    }
    if (!S_ISREG(st.st_mode)) {
        close(in->fd);
        return refuse_file(err, path, st.st_mode);
    }
    in->size = st.st_size > 0 ? (uint64_t)st.st_size : 0;
#else
    in->f = fopen(path, "rb");
    if (!in->f)
        return set_error(err, DMLREF_ERROR_IO, "", "%s: cannot open: %s", path, strerror(errno));
    in->size = 0;
#endif
    return DMLREF_OK;
}

/* Reads up to `capacity` bytes: 0 and *got (0 at the end), or an errno (-1
   for an error that left none). */
static int read_input(input_file *in, char *into, size_t capacity, size_t *got)
{
#ifdef LOAD_WITH_POSIX
    ssize_t n;
    if (capacity > ((size_t)1 << 30))
        capacity = (size_t)1 << 30;
    do
        n = read(in->fd, into, capacity);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return errno ? errno : -1;
    *got = (size_t)n;
    return 0;
#else
    *got = fread(into, 1, capacity, in->f);
    return ferror(in->f) ? (errno ? errno : -1) : 0;
#endif
}

static void close_input(input_file *in)
{
#ifdef LOAD_WITH_POSIX
    close(in->fd);
#else
    fclose(in->f);
#endif
}

dmlref_status dmlref_vector_load(const char *path, const dmlref_vector_read_options *options,
                                 dmlref_vector **out, dmlref_error *err)
{
    input_file in;
    memory_budget budget;
    char *text = NULL;
    size_t length = 0, capacity = 0, got = 0;
    dmlref_status status = DMLREF_OK;
    int error = 0;

    if (!path || !out)
        return set_error(err, DMLREF_ERROR_INVALID_ARGUMENT, "",
                         "dmlref_vector_load: NULL argument");
    *out = NULL;
    memset(&in, 0, sizeof in);
    budget.cap =
        options && options->memory_cap ? options->memory_cap : DMLREF_VECTOR_DEFAULT_MEMORY_CAP;
    budget.used = 0;
    budget.source = path;
    budget.err = err;
    CHECK(open_input(path, &in, err));
    if (in.size > DMLREF_VECTOR_MAX_FILE_BYTES) {
        close_input(&in);
        return set_error(err, DMLREF_ERROR_IO, "", "%s: larger than %llu bytes", path,
                         (unsigned long long)DMLREF_VECTOR_MAX_FILE_BYTES);
    }
    /* the size the file gave, and one byte more to see its end in one pass;
       a file that grows meanwhile is read on, in doubling chunks */
    do {
        if (length == capacity) {
            size_t grown = capacity ? 2 * capacity : in.size ? (size_t)in.size + 1 : 65536;
            char *bigger;
            if (length > DMLREF_VECTOR_MAX_FILE_BYTES) {
                status = set_error(err, DMLREF_ERROR_IO, "", "%s: larger than %llu bytes", path,
                                   (unsigned long long)DMLREF_VECTOR_MAX_FILE_BYTES);
                break;
            }
            status = budget_take(&budget, grown + 1, "$", "the file's text");
            if (status != DMLREF_OK)
                break;
            if (!(bigger = realloc(text, grown + 1))) {
                status = budget_out_of_memory(&budget, grown + 1, "$", "the file's text");
                break;
            }
            budget_give_back(&budget, capacity ? capacity + 1 : 0);
            text = bigger;
            capacity = grown;
        }
        error = read_input(&in, text + length, capacity - length, &got);
        length += got;
    } while (!error && got > 0);
    close_input(&in);
    if (status == DMLREF_OK && error)
        status = set_error(err, DMLREF_ERROR_IO, "", "%s: cannot read: %s", path,
                           error > 0 ? strerror(error) : "a read error");
    if (status == DMLREF_OK)
        status = parse_vector(text, length, path, options, budget.used, out, err);
    free(text);
    return status;
}

/* ---- replies of the process protocol ------------------------------------- */

/* The "error" object of an error reply: how it refuses the case. */
static dmlref_status read_refusal(reader *r, json_t *root, json_t *item, dmlref_reply *reply)
{
    static const char *const refusal_keys[] = {"status", "rule", NULL};
    const char *status_text = json_string_value(json_object_get(root, "status")), *text = NULL;
    json_t *field;
    if (!status_text || strcmp(status_text, "error") != 0)
        return SCHEMA(r, "$.error", "belongs to a reply whose status is \"error\"");
    if (!json_is_object(item))
        return SCHEMA(r, "$.error", "must be an object: {\"status\": ..., \"rule\": ...}");
    CHECK(only_keys(r, "$.error", item, refusal_keys));
    if ((field = json_object_get(item, "status"))) {
        CHECK(get_string(r, "$.error.status", field, &text));
        if (!dmlref_status_from_name(text, &reply->refusal_status) ||
            reply->refusal_status == DMLREF_OK)
            return SCHEMA(r, "$.error.status", "\"%.60s\" is not a dmlref error status", text);
    }
    if ((field = json_object_get(item, "rule"))) {
        CHECK(get_string(r, "$.error.rule", field, &text));
        if (strlen(text) >= sizeof reply->refusal_rule)
            return SCHEMA(r, "$.error.rule", "is longer than a rule id");
        snprintf(reply->refusal_rule, sizeof reply->refusal_rule, "%s", text);
    }
    return DMLREF_OK;
}

/* The "status" of a reply without outputs: "unsupported" or "error". */
static dmlref_status read_reply_status(reader *r, json_t *root, json_t *item, dmlref_reply *reply)
{
    const char *text = NULL;
    CHECK(get_string(r, "$.status", item, &text));
    if (json_object_get(root, "outputs"))
        return SCHEMA(r, "$.outputs", "a reply has outputs or a status, not both");
    if (strcmp(text, "unsupported") == 0)
        reply->kind = DMLREF_REPLY_UNSUPPORTED;
    else if (strcmp(text, "error") == 0)
        reply->kind = DMLREF_REPLY_ERROR;
    else
        return SCHEMA(r, "$.status", "\"%.40s\" is not \"unsupported\" or \"error\"", text);
    return DMLREF_OK;
}

/* The elements of output t in the reply's outputs, stored into `output`
   (its data NULL: the reply is only checked). */
static dmlref_status read_reply_output(reader *r, const vtensor *t, json_t *outs,
                                       const dmlref_binding *output)
{
    json_t *array = json_object_get(outs, t->name), *element;
    char at[PATH_CAPACITY], element_at[PATH_CAPACITY];
    layout l;
    walker w;
    uint64_t n, e, slots;
    path_key(at, "$.outputs", t->name);
    if (!array || !json_is_array(array))
        return SCHEMA(r, at, "must be an array of the output's elements");
    layout_from_desc(&t->desc, &l);
    n = element_count(t); /* 0 for a size of 0; saturates, never wraps */
    if (json_array_size(array) != n)
        return SCHEMA(r, at, "has %zu elements, the output has %llu", json_array_size(array),
                      (unsigned long long)n);
    if (output->data && output->size_in_bytes < t->desc.TotalTensorSizeInBytes)
        return set_error(r->err, DMLREF_ERROR_INVALID_ARGUMENT, "",
                         "dmlref_vector_read_reply: the buffer of %s is too small", t->name);
    /* An element is stored only where it lies inside the binding: a case
       that must be refused may place elements past its
       TotalTensorSizeInBytes (R-TD-9). */
    slots = output->size_in_bytes / l.element_size;
    walker_init(&w, l.rank, l.sizes);
    walker_add(&w, l.strides);
    walker_seek(&w, 0);
    for (e = 0; e < n; ++e, walker_next(&w)) {
        uint64_t bits;
        element = json_array_get(array, (size_t)e);
        path_index(element_at, at, e);
        CHECK(decode_element(r, element_at, element, t->desc.DataType, &bits));
        if (output->data && w.offset[0] < slots)
            store_bits((unsigned char *)output->data + w.offset[0] * l.element_size, l.element_size,
                       bits);
    }
    return DMLREF_OK;
}

/* The reply's tree: the case's name, a message, a refusal, and a status or
   every output. */
static dmlref_status read_reply_tree(reader *r, const dmlref_vector *v, json_t *root,
                                     const dmlref_binding *outputs, dmlref_reply *reply)
{
    static const char *const keys[] = {"name", "outputs", "status", "message", "error", NULL};
    json_t *item, *outs;
    const char *text = NULL;
    operator_shape shape;
    size_t o;

    if (!json_is_object(root))
        return SCHEMA(r, "$", "a reply must be a JSON object");
    CHECK(only_keys(r, "$", root, keys));
    if (!(item = json_object_get(root, "name")))
        return SCHEMA(r, "$.name", "is missing");
    CHECK(get_string(r, "$.name", item, &text));
    if (strcmp(text, v->name) != 0)
        return SCHEMA(r, "$.name", "\"%.80s\" answers another case than \"%s\"", text, v->name);
    if ((item = json_object_get(root, "message"))) {
        CHECK(get_string(r, "$.message", item, &text));
        snprintf(reply->message, sizeof reply->message, "%s", text);
    }
    if ((item = json_object_get(root, "error")))
        CHECK(read_refusal(r, root, item, reply));
    if ((item = json_object_get(root, "status")))
        return read_reply_status(r, root, item, reply);
    if (!(outs = json_object_get(root, "outputs")) || !json_is_object(outs))
        return SCHEMA(r, "$.outputs", "must be an object (or the reply must have a status)");
    operator_shape_of(v->row, &shape);
    CHECK(only_keys(r, "$.outputs", outs, shape.tensors + v->input_count));
    for (o = 0; o < v->output_count; ++o) /* NULL data: check the reply only */
        CHECK(read_reply_output(r, &v->tensors[v->input_count + o], outs, &outputs[o]));
    reply->kind = DMLREF_REPLY_OUTPUTS;
    return DMLREF_OK;
}

dmlref_status dmlref_vector_read_reply(const dmlref_vector *v, const char *line, size_t length,
                                       const dmlref_binding *outputs, size_t count,
                                       dmlref_reply *reply, dmlref_error *err)
{
    reader r;
    text_census census;
    json_error_t jerr;
    json_t *root;
    dmlref_status status;

    r.source = "reply";
    r.err = err;
    if (reply)
        memset(reply, 0, sizeof *reply);
    if (!reply || (!outputs && count) || count != v->output_count || (!line && length))
        return set_error(err, DMLREF_ERROR_INVALID_ARGUMENT, "",
                         "dmlref_vector_read_reply: %zu output buffers for %zu outputs, or no "
                         "line",
                         count, v->output_count);
    /* the reply's tree lives beside everything the case holds, under its cap */
    vector_budget(v, 1, err, &r.budget);
    r.budget.source = r.source;
    take_census(line ? line : "", length, &census);
    CHECK(take_parse_tree(&r.budget, &census, length));
    root = json_loadb(line ? line : "", length, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return parse_failure(err, r.source, &jerr, length, 0);
    status = read_reply_tree(&r, v, root, outputs, reply);
    json_decref(root);
    return status;
}
