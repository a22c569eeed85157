/*
 * vector.c - the dmlref_vector object: its operator's shape and descriptor
 * (from the operator's row of the table, src/core/operators.c),
 * accessors and lifetime.  Reading is read.c, evaluating and
 * comparing eval.c, writing write.c.
 */
#include "vector/vector_internal.h"

#include <stddef.h>
#include <stdlib.h>

void operator_shape_of(const operator_info *row, operator_shape *shape)
{
    size_t i;
    memset(shape, 0, sizeof *shape);
    shape->input_count = row->input_count;
    shape->output_count = row->output_count;
    for (i = 0; i < row->input_count + row->output_count; ++i)
        shape->tensors[i] = row->tensors[i].name;
    shape->attribute_count = row->attribute_count;
    for (i = 0; i < row->attribute_count; ++i)
        shape->attributes[i] = row->attributes[i].name;
}

void vector_link_descriptors(dmlref_vector *v)
{
    const dmlref_tensor_desc *descs[OPERATOR_MAX_TENSORS];
    size_t i;
    for (i = 0; i < v->input_count + v->output_count; ++i) {
        v->tensors[i].desc.Sizes = v->tensors[i].sizes;
        descs[i] = &v->tensors[i].desc;
    }
    operator_desc_build(v->row, v->desc.bytes, descs, v->attributes);
    v->op.Type = v->type;
    v->op.Desc = v->desc.bytes;
}

/* Only small outputs of a generated case keep their elements in the file. */
#define SMALL_OUTPUT_ELEMENTS 64

int vector_output_by_digest(const dmlref_vector *v, const vtensor *t)
{
    uint64_t count = 1;
    size_t i;
    int generated = 0;
    for (i = 0; i < v->input_count; ++i)
        generated |= v->tensors[i].gen.kind != GENERATOR_NONE;
    for (i = 0; i < t->desc.DimensionCount; ++i)
        count *= t->sizes[i];
    return generated && count > SMALL_OUTPUT_ELEMENTS;
}

void vtensor_clear_expectations(vtensor *t)
{
    free(t->expected);
    free(t->kinds);
    free(t->any_of);
    free(t->alternatives);
    t->expected = NULL;
    t->kinds = NULL;
    t->any_of = NULL;
    t->alternatives = NULL;
    t->any_of_count = t->alternatives_count = 0;
    t->has_expected = 0;
}

const char *variant_kind_name(int kind)
{
    return kind == VARIANT_SUBNORMALS_FLUSHED ? "subnormals_flushed" : "";
}

const char *variant_kind_rule(int kind)
{
    return kind == VARIANT_SUBNORMALS_FLUSHED ? "R-NZ-10" : "";
}

void variant_output_init(vtensor *out, const vtensor *of)
{
    memset(out, 0, sizeof *out);
    out->name = of->name;
    out->is_output = 1;
    out->desc = of->desc;
    memcpy(out->sizes, of->sizes, sizeof out->sizes);
    memcpy(out->strides, of->strides, sizeof out->strides);
    out->desc.Sizes = out->sizes;
    out->desc.Strides = of->desc.Strides ? out->strides : NULL;
    out->has_sizes = of->has_sizes;
    out->total_given = of->total_given;
}

void vector_clear_variants(dmlref_vector *v)
{
    size_t k, o;
    for (k = 0; k < v->variant_count; ++k)
        for (o = 0; o < 2; ++o)
            vtensor_clear_expectations(&v->variants[k].outputs[o]);
    memset(v->variants, 0, sizeof v->variants);
    v->variant_count = 0;
}

/* ---- the memory cap ------------------------------------------------------------ */

dmlref_status budget_take(memory_budget *b, uint64_t bytes, const char *path, const char *what)
{
    if (b->used <= b->cap && bytes <= b->cap - b->used) {
        b->used += bytes;
        return DMLREF_OK;
    }
    return set_error(
        b->err, DMLREF_ERROR_OUT_OF_MEMORY, "",
        "%s: %s: the case needs more than the memory cap of %llu bytes: %llu bytes "
        "for %s, %llu in all (DMLREF_MEMORY_CAP sets the cap)",
        b->source, path, (unsigned long long)b->cap, (unsigned long long)bytes, what,
        (unsigned long long)(bytes > UINT64_MAX - b->used ? UINT64_MAX : b->used + bytes));
}

dmlref_status budget_out_of_memory(const memory_budget *b, uint64_t bytes, const char *path,
                                   const char *what)
{
    return set_error(b->err, DMLREF_ERROR_OUT_OF_MEMORY, "",
                     "%s: %s: out of memory for %llu bytes (%s)", b->source, path,
                     (unsigned long long)bytes, what);
}

dmlref_status budget_allocate(memory_budget *b, uint64_t bytes, int zeroed, const char *path,
                              const char *what, void **out)
{
    dmlref_status status = budget_take(b, bytes, path, what);
    *out = NULL;
    if (status != DMLREF_OK)
        return status;
    if (bytes <= (uint64_t)SIZE_MAX)
        *out = zeroed ? calloc(bytes ? (size_t)bytes : 1, 1) : malloc(bytes ? (size_t)bytes : 1);
    if (!*out) {
        budget_give_back(b, bytes);
        return budget_out_of_memory(b, bytes, path, what);
    }
    return DMLREF_OK;
}

static uint64_t logical_elements(const vtensor *t)
{
    uint64_t n = 1;
    uint32_t i;
    for (i = 0; i < t->desc.DimensionCount; ++i)
        n = t->sizes[i] && n > UINT64_MAX / t->sizes[i] ? UINT64_MAX : n * t->sizes[i];
    return n;
}

uint64_t vtensor_expectation_bytes(const vtensor *t)
{
    uint64_t n = logical_elements(t), bytes = 0;
    if (t->expected)
        bytes += (n ? n : 1) * sizeof *t->expected;
    if (t->kinds)
        bytes += n;
    return bytes + t->any_of_count * sizeof *t->any_of +
           t->alternatives_count * sizeof *t->alternatives;
}

void vector_budget(const dmlref_vector *v, int with_expectations, dmlref_error *err,
                   memory_budget *b)
{
    size_t i, k;
    b->cap = v->memory_cap ? v->memory_cap : DMLREF_VECTOR_DEFAULT_MEMORY_CAP;
    b->source = v->source;
    b->err = err;
    b->used = sizeof *v + strlen(v->source) + 1 + (v->name ? strlen(v->name) + 1 : 0) +
              (v->notes ? strlen(v->notes) + 1 : 0);
    for (i = 0; i < 4; ++i) {
        const vtensor *t = &v->tensors[i];
        b->used += t->buffer_allocated;
        if (t->elements)
            b->used += logical_elements(t) * sizeof *t->elements;
        if (with_expectations)
            b->used += vtensor_expectation_bytes(t);
    }
    for (k = 0; with_expectations && k < v->variant_count; ++k)
        for (i = 0; i < 2; ++i)
            b->used += vtensor_expectation_bytes(&v->variants[k].outputs[i]);
}

/* ---- aligned buffers --------------------------------------------------------------- */

/* What malloc promises: an address suitable for every object type.  C99 has
   no max_align_t; the strictest of the basic types stands for it. */
typedef union strictest_type {
    long double ld;
    long long ll;
    double d;
    void *p;
    void (*f)(void);
} strictest_type;
struct strictest_probe {
    char c;
    strictest_type u;
};
#define STRICTEST_ALIGNMENT offsetof(struct strictest_probe, u)

static int needs_aligning(uint32_t alignment)
{
    return alignment > STRICTEST_ALIGNMENT && (alignment & (alignment - 1)) == 0;
}

uint64_t aligned_buffer_bytes(uint64_t bytes, uint32_t alignment)
{
    uint64_t block = bytes ? bytes : 1;
    if (!needs_aligning(alignment))
        return block;
    return block > UINT64_MAX - (alignment - 1) ? UINT64_MAX : block + (alignment - 1);
}

unsigned char *aligned_buffer_new(uint64_t bytes, uint32_t alignment, void **block)
{
    uint64_t total = aligned_buffer_bytes(bytes, alignment);
    unsigned char *start;
    *block = NULL;
    if (total > (uint64_t)SIZE_MAX)
        return NULL;
    if (!needs_aligning(alignment))
        return *block = calloc((size_t)total, 1);
    /* only the buffer is zeroed: the block of an alignment of 2^31 is 2 GiB
       more, and need not be touched */
    if (!(*block = malloc((size_t)total)))
        return NULL;
    start = *block;
    start += (alignment - (uintptr_t)start % alignment) % alignment; /* the first multiple */
    memset(start, 0, (size_t)(bytes ? bytes : 1));
    return start;
}

void dmlref_vector_free(dmlref_vector *v)
{
    size_t i;
    if (!v)
        return;
    for (i = 0; i < 4; ++i) {
        vtensor_clear_expectations(&v->tensors[i]);
        free(v->tensors[i].buffer_block);
        free(v->tensors[i].elements);
    }
    vector_clear_variants(v);
    free(v->source);
    free(v->name);
    free(v->notes);
    free(v);
}

const char *dmlref_vector_name(const dmlref_vector *v)
{
    return v->name;
}
const dmlref_operator_desc *dmlref_vector_operator(const dmlref_vector *v)
{
    return &v->op;
}
dmlref_feature_level dmlref_vector_feature_level(const dmlref_vector *v)
{
    return v->level;
}
dmlref_oob_policy dmlref_vector_oob_policy(const dmlref_vector *v)
{
    return v->oob;
}
void dmlref_vector_set_feature_level(dmlref_vector *v, dmlref_feature_level level)
{
    if (level == 0)
        level = DMLREF_FEATURE_LEVEL_LATEST; /* D19 */
    if (dmlref_feature_level_name(level))    /* the vector is written with its level's name */
        v->level = level;
}
size_t dmlref_vector_input_count(const dmlref_vector *v)
{
    return v->input_count;
}
size_t dmlref_vector_output_count(const dmlref_vector *v)
{
    return v->output_count;
}
const dmlref_binding *dmlref_vector_inputs(const dmlref_vector *v)
{
    return v->inputs;
}
const dmlref_binding *dmlref_vector_outputs(const dmlref_vector *v)
{
    return v->outputs;
}
int dmlref_vector_has_data(const dmlref_vector *v)
{
    return v->buffers_ready;
}

int dmlref_vector_min_feature_level(const dmlref_vector *v, dmlref_feature_level *level)
{
    if (v->has_min_level && level)
        *level = v->min_level;
    return v->has_min_level;
}

int dmlref_vector_expects_error(const dmlref_vector *v, dmlref_status *status, const char **rule)
{
    if (v->expects_error) {
        if (status)
            *status = v->error_status;
        if (rule)
            *rule = v->error_rule;
    }
    return v->expects_error;
}

size_t dmlref_vector_variant_count(const dmlref_vector *v)
{
    return v ? v->variant_count : 0;
}

const char *dmlref_vector_variant_name(const dmlref_vector *v, size_t k)
{
    return v && k < v->variant_count ? variant_kind_name(v->variants[k].kind) : NULL;
}

const char *dmlref_vector_variant_rule(const dmlref_vector *v, size_t k)
{
    return v && k < v->variant_count ? variant_kind_rule(v->variants[k].kind) : NULL;
}
