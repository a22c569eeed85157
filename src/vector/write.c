/*
 * write.c - writing a vector in dmlref's canonical layout: fixed key
 * order, one line per tensor, elements as FORMAT.md encodes them, so the
 * same case always gives the same bytes.
 */
#include "vector/vector_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void text_put(text_buffer *t, const char *format, ...)
{
    va_list args;
    int n;
    if (t->failed)
        return;
    for (;;) {
        size_t room = t->capacity - t->length;
        if (room > 0) {
            va_start(args, format);
            n = vsnprintf(t->data + t->length, room, format, args);
            va_end(args);
            if (n < 0) {
                t->failed = 1;
                return;
            }
            if ((size_t)n < room) {
                t->length += (size_t)n;
                return;
            }
        } else {
            n = 0; /* nothing allocated yet */
        }
        {
            size_t capacity = t->capacity * 2 + (size_t)n + 256;
            char *grown = realloc(t->data, capacity);
            if (!grown) {
                t->failed = 1;
                return;
            }
            t->data = grown;
            t->capacity = capacity;
        }
    }
}

/* A JSON string literal. */
static void put_string(text_buffer *t, const char *s)
{
    text_put(t, "\"");
    for (; *s; ++s) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            text_put(t, "\\%c", c);
        else if (c < 0x20)
            text_put(t, "\\u%04x", c);
        else
            text_put(t, "%c", c);
    }
    text_put(t, "\"");
}

static void put_dims(text_buffer *t, const uint32_t *dims, uint32_t count)
{
    uint32_t i;
    text_put(t, "[");
    for (i = 0; i < count; ++i)
        text_put(t, "%s%u", i ? ", " : "", dims[i]);
    text_put(t, "]");
}

static void put_u64(text_buffer *t, uint64_t v)
{
    if (v > 9007199254740992ull)
        text_put(t, "\"%llu\"", (unsigned long long)v);
    else
        text_put(t, "%llu", (unsigned long long)v);
}

static void put_element(text_buffer *t, dmlref_tensor_data_type type, uint64_t bits)
{
    char buf[ELEMENT_TEXT_CAPACITY];
    format_element(type, bits, buf, sizeof buf);
    text_put(t, "%s", buf);
}

static void put_generator(text_buffer *t, const vtensor *v)
{
    const generator *g = &v->gen;
    uint32_t i;
    static const char *const kinds[] = {"", "bits", "index", "sparse"};
    text_put(t, "\"generator\": {\"kind\": \"%s\", \"seed\": ", kinds[g->kind]);
    put_u64(t, g->seed);
    if (g->kind == GENERATOR_INDEX) {
        text_put(t, ", \"low\": [");
        for (i = 0; i < g->bound_count; ++i) {
            text_put(t, "%s", i ? ", " : "");
            put_element(t, v->desc.DataType, g->low[i]);
        }
        text_put(t, "], \"high\": [");
        for (i = 0; i < g->bound_count; ++i) {
            text_put(t, "%s", i ? ", " : "");
            put_element(t, v->desc.DataType, g->high[i]);
        }
        text_put(t, "]");
    } else if (g->kind == GENERATOR_SPARSE) {
        text_put(t, ", \"density\": %u", g->density);
    }
    text_put(t, "}");
}

/* The logical elements of an input, read back from its buffer. */
static void put_data(text_buffer *t, const vtensor *v)
{
    layout l;
    walker w;
    uint64_t n, e;
    layout_from_desc(&v->desc, &l);
    n = layout_element_count(&l);
    walker_init(&w, l.rank, l.sizes);
    walker_add(&w, l.strides);
    walker_seek(&w, 0);
    text_put(t, "\"data\": [");
    for (e = 0; e < n && !t->failed; ++e, walker_next(&w)) {
        text_put(t, "%s", e ? ", " : "");
        put_element(t, v->desc.DataType,
                    load_bits(v->buffer + w.offset[0] * l.element_size, l.element_size));
    }
    text_put(t, "]");
}

/* The logical elements of an input that got no buffer. */
static void put_elements(text_buffer *t, const vtensor *v)
{
    uint64_t n = 1, e;
    uint32_t i;
    for (i = 0; i < v->desc.DimensionCount; ++i)
        n *= v->sizes[i]; /* the elements were read, so the product fits */
    text_put(t, "\"data\": [");
    for (e = 0; e < n && !t->failed; ++e) {
        text_put(t, "%s", e ? ", " : "");
        put_element(t, v->desc.DataType, v->elements[e]);
    }
    text_put(t, "]");
}

static void put_expected(text_buffer *t, const vtensor *v)
{
    uint64_t n = 1, e;
    uint32_t i;
    size_t cursor = 0;
    for (i = 0; i < v->desc.DimensionCount; ++i)
        n *= v->sizes[i];
    text_put(t, "\"expected\": [");
    for (e = 0; e < n && !t->failed; ++e) {
        unsigned char kind = v->kinds ? v->kinds[e] : EXPECT_VALUE;
        text_put(t, "%s", e ? ", " : "");
        if (kind == EXPECT_NULL) {
            text_put(t, "null");
        } else if (kind == EXPECT_ANY_OF) {
            const any_of_entry *entry;
            size_t j;
            while (v->any_of[cursor].element < e)
                ++cursor;
            entry = &v->any_of[cursor];
            text_put(t, "{\"any_of\": [");
            for (j = 0; j < entry->count; ++j) {
                text_put(t, "%s", j ? ", " : "");
                put_element(t, v->desc.DataType, v->alternatives[entry->first + j]);
            }
            text_put(t, "]}");
        } else {
            put_element(t, v->desc.DataType, v->expected[e]);
        }
    }
    text_put(t, "]");
}

static void put_tensor(text_buffer *t, const dmlref_vector *v, const vtensor *x, int digest_only,
                       int as_case)
{
    uint64_t minimum = dmlref_calc_buffer_tensor_size(x->desc.DataType, x->desc.DimensionCount,
                                                      x->sizes, x->desc.Strides);
    text_put(t, "    ");
    put_string(t, x->name);
    text_put(t, ": {\"dtype\": \"%s\", \"sizes\": ", dmlref_data_type_name(x->desc.DataType));
    put_dims(t, x->sizes, x->desc.DimensionCount);
    if (x->desc.Strides) {
        text_put(t, ", \"strides\": ");
        put_dims(t, x->strides, x->desc.DimensionCount);
    }
    if (x->desc.TotalTensorSizeInBytes != minimum || x->total_given) {
        text_put(t, ", \"total_bytes\": ");
        put_u64(t, x->desc.TotalTensorSizeInBytes);
    }
    if (x->desc.Flags)
        text_put(t, ", \"flags\": %u", x->desc.Flags);
    if (x->desc.GuaranteedBaseOffsetAlignment)
        text_put(t, ", \"alignment\": %u", x->desc.GuaranteedBaseOffsetAlignment);
    /* an input's elements: its generator, or its data as its buffer holds
       them, or as the vector gave them when it got no buffer (a case that
       must be refused, see read.c); an input of such a case may have
       no data at all */
    if (!x->is_output && x->gen.kind != GENERATOR_NONE) {
        text_put(t, ", ");
        put_generator(t, x);
    } else if (!x->is_output && x->buffer) {
        text_put(t, ", ");
        put_data(t, x);
    } else if (!x->is_output && x->elements) {
        text_put(t, ", ");
        put_elements(t, x);
    }
    if (x->is_output && !v->expects_error && !as_case) {
        if (x->has_expected && !(digest_only && x->has_xxh3)) {
            text_put(t, ", ");
            put_expected(t, x);
        }
        if (x->has_xxh3)
            text_put(t, ", \"xxh3\": \"%016llx\"", (unsigned long long)x->xxh3);
    }
    text_put(t, "}");
}

/* "variants" (format 2): one entry per variant, its outputs one a line,
   their elements written as the case's outputs' are. */
static void put_variants(text_buffer *t, const dmlref_vector *v)
{
    size_t k, o;
    text_put(t, "  \"variants\": [\n");
    for (k = 0; k < v->variant_count; ++k) {
        const variant *x = &v->variants[k];
        text_put(t, "    {\"name\": ");
        put_string(t, variant_kind_name(x->kind));
        text_put(t, ", \"rule\": ");
        put_string(t, variant_kind_rule(x->kind));
        text_put(t, ", \"outputs\": {\n");
        for (o = 0; o < v->output_count; ++o) {
            const vtensor *e = &x->outputs[o];
            int digest_only = vector_output_by_digest(v, e) && e->has_xxh3;
            text_put(t, "      ");
            put_string(t, e->name);
            text_put(t, ": {");
            if (e->has_expected && !digest_only)
                put_expected(t, e);
            if (e->has_xxh3)
                text_put(t, "%s\"xxh3\": \"%016llx\"", e->has_expected && !digest_only ? ", " : "",
                         (unsigned long long)e->xxh3);
            text_put(t, o + 1 < v->output_count ? "},\n" : "}\n");
        }
        text_put(t, k + 1 < v->variant_count ? "    }},\n" : "    }}\n");
    }
    text_put(t, "  ]\n");
}

dmlref_status dmlref_vector_write(const dmlref_vector *v, char **out, size_t *length,
                                  dmlref_error *err)
{
    return dmlref_vector_write_with(v, 0, out, length, err);
}

dmlref_status dmlref_vector_write_with(const dmlref_vector *v, uint32_t flags, char **out,
                                       size_t *length, dmlref_error *err)
{
    int as_case = (flags & DMLREF_VECTOR_WRITE_CASE) != 0;
    text_buffer t = {NULL, 0, 0, 0};
    operator_shape shape;
    size_t i, n = v->input_count + v->output_count;
    int with_variants;

    if (!out)
        return set_error(err, DMLREF_ERROR_INVALID_ARGUMENT, "", "dmlref_vector_write: NULL out");
    t.capacity = 4096;
    if (!(t.data = malloc(t.capacity)))
        t.failed = 1;
    operator_shape_of(v->row, &shape);

    with_variants = v->variant_count && !v->expects_error && !as_case;
    text_put(&t, "{\n  \"format\": \"dmlref-vector-%d\",\n  \"name\": ", with_variants ? 2 : 1);
    put_string(&t, v->name);
    text_put(&t, ",\n  \"operator\": \"%s\",\n", dmlref_operator_name(v->type));
    text_put(&t, "  \"feature_level\": \"%s\",\n", dmlref_feature_level_name(v->level));
    if (v->has_min_level && !as_case)
        text_put(&t, "  \"min_feature_level\": \"%s\",\n", dmlref_feature_level_name(v->min_level));
    if (shape.attribute_count) {
        text_put(&t, "  \"attributes\": {");
        for (i = 0; i < shape.attribute_count; ++i)
            text_put(&t, "%s\"%s\": %u", i ? ", " : "", shape.attributes[i], v->attributes[i]);
        text_put(&t, "},\n");
    }
    if (v->oob == DMLREF_OOB_CLAMP)
        text_put(&t, "  \"oob\": \"clamp\",\n");
    if (v->expects_error && !as_case) {
        text_put(&t, "  \"expect_error\": {\"status\": \"%s\", \"rule\": ",
                 dmlref_status_name(v->error_status));
        put_string(&t, v->error_rule);
        text_put(&t, "},\n");
    }
    if (v->notes) {
        text_put(&t, "  \"notes\": ");
        put_string(&t, v->notes);
        text_put(&t, ",\n");
    }
    text_put(&t, "  \"tensors\": {\n");
    for (i = 0; i < n; ++i) {
        const vtensor *x = &v->tensors[i];
        put_tensor(&t, v, x, x->is_output && vector_output_by_digest(v, x), as_case);
        text_put(&t, i + 1 < n ? ",\n" : "\n");
    }
    text_put(&t, with_variants ? "  },\n" : "  }\n");
    if (with_variants)
        put_variants(&t, v);
    text_put(&t, "}\n");
    if (t.failed) {
        free(t.data);
        return set_error(err, DMLREF_ERROR_OUT_OF_MEMORY, "",
                         "%s: out of memory writing the vector", v->source);
    }
    if (flags & DMLREF_VECTOR_WRITE_ONE_LINE) { /* structural newlines only */
        size_t j = 0;
        for (i = 0; i < t.length; ++i) {
            if (t.data[i] == '\n') { /* strings never hold a raw newline */
                while (i + 1 < t.length && t.data[i + 1] == ' ')
                    ++i; /* and the indentation after it */
                continue;
            }
            t.data[j++] = t.data[i];
        }
        t.data[j] = '\0';
        t.length = j;
    }
    *out = t.data;
    if (length)
        *length = t.length;
    return DMLREF_OK;
}
