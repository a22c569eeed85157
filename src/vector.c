/*
 * vector.c - the dmlref_vector object: its operator's shape, descriptors,
 * accessors and lifetime.  Reading is vector_read.c, evaluating and
 * comparing vector_eval.c, writing vector_write.c.
 */
#include "vector_internal.h"

#include <stdlib.h>

void operator_shape_of(dmlref_operator_type type, operator_shape *shape)
{
    static const operator_shape gather = {
        2, 1, {"InputTensor", "IndicesTensor", "OutputTensor", NULL, NULL}, 1, {"Axis", NULL, NULL, NULL}};
    static const operator_shape scatter = {
        3, 1, {"InputTensor", "IndicesTensor", "UpdatesTensor", "OutputTensor", NULL},
        1, {"Axis", NULL, NULL, NULL}};
    static const operator_shape nd = {
        2, 1, {"InputTensor", "IndicesTensor", "OutputTensor", NULL, NULL},
        2, {"InputDimensionCount", "IndicesDimensionCount", NULL, NULL}};
    static const operator_shape nd1 = {
        2, 1, {"InputTensor", "IndicesTensor", "OutputTensor", NULL, NULL},
        3, {"InputDimensionCount", "IndicesDimensionCount", "BatchDimensionCount", NULL}};
    static const operator_shape nonzero = {
        1, 2, {"InputTensor", "OutputCountTensor", "OutputCoordinatesTensor", NULL, NULL},
        0, {NULL, NULL, NULL, NULL}};
    switch (type) {
    case DMLREF_OPERATOR_GATHER_ELEMENTS: *shape = gather; break;
    case DMLREF_OPERATOR_SCATTER_ELEMENTS: *shape = scatter; break;
    case DMLREF_OPERATOR_GATHER_ND: *shape = nd; break;
    case DMLREF_OPERATOR_GATHER_ND1: *shape = nd1; break;
    default: *shape = nonzero; break;
    }
}

void vector_link_descriptors(dmlref_vector *v)
{
    const dmlref_tensor_desc *t0 = &v->tensors[0].desc, *t1 = &v->tensors[1].desc,
                             *t2 = &v->tensors[2].desc, *t3 = &v->tensors[3].desc;
    size_t i;
    for (i = 0; i < v->input_count + v->output_count; ++i)
        v->tensors[i].desc.Sizes = v->tensors[i].sizes;
    v->op.Type = v->type;
    v->op.Desc = &v->desc;
    switch (v->type) {
    case DMLREF_OPERATOR_GATHER_ELEMENTS: {
        dmlref_gather_elements_desc d = {t0, t1, t2, 0};
        d.Axis = v->attributes[0];
        v->desc.gather_elements = d;
        break;
    }
    case DMLREF_OPERATOR_SCATTER_ELEMENTS: {
        dmlref_scatter_elements_desc d = {t0, t1, t2, t3, 0};
        d.Axis = v->attributes[0];
        v->desc.scatter_elements = d;
        break;
    }
    case DMLREF_OPERATOR_GATHER_ND: {
        dmlref_gather_nd_desc d = {t0, t1, t2, 0, 0};
        d.InputDimensionCount = v->attributes[0];
        d.IndicesDimensionCount = v->attributes[1];
        v->desc.gather_nd = d;
        break;
    }
    case DMLREF_OPERATOR_GATHER_ND1: {
        dmlref_gather_nd1_desc d = {t0, t1, t2, 0, 0, 0};
        d.InputDimensionCount = v->attributes[0];
        d.IndicesDimensionCount = v->attributes[1];
        d.BatchDimensionCount = v->attributes[2];
        v->desc.gather_nd1 = d;
        break;
    }
    default: {
        dmlref_nonzero_coordinates_desc d = {t0, t1, t2};
        v->desc.nonzero = d;
        break;
    }
    }
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

void dmlref_vector_free(dmlref_vector *v)
{
    size_t i;
    if (!v)
        return;
    for (i = 0; i < 4; ++i) {
        vtensor_clear_expectations(&v->tensors[i]);
        free(v->tensors[i].buffer);
        free(v->tensors[i].elements);
    }
    vector_clear_variants(v);
    free(v->source);
    free(v->name);
    free(v->notes);
    free(v);
}

const char *dmlref_vector_name(const dmlref_vector *v) { return v->name; }
const dmlref_operator_desc *dmlref_vector_operator(const dmlref_vector *v) { return &v->op; }
dmlref_feature_level dmlref_vector_feature_level(const dmlref_vector *v) { return v->level; }
dmlref_oob_policy dmlref_vector_oob_policy(const dmlref_vector *v) { return v->oob; }
void dmlref_vector_set_feature_level(dmlref_vector *v, dmlref_feature_level level)
{
    if (level == 0)
        level = DMLREF_FEATURE_LEVEL_LATEST; /* D19 */
    if (dmlref_feature_level_name(level)) /* the vector is written with its level's name */
        v->level = level;
}
size_t dmlref_vector_input_count(const dmlref_vector *v) { return v->input_count; }
size_t dmlref_vector_output_count(const dmlref_vector *v) { return v->output_count; }
const dmlref_binding *dmlref_vector_inputs(const dmlref_vector *v) { return v->inputs; }
const dmlref_binding *dmlref_vector_outputs(const dmlref_vector *v) { return v->outputs; }
int dmlref_vector_has_data(const dmlref_vector *v) { return v->buffers_ready; }

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

size_t dmlref_vector_variant_count(const dmlref_vector *v) { return v ? v->variant_count : 0; }

const char *dmlref_vector_variant_name(const dmlref_vector *v, size_t k)
{
    return v && k < v->variant_count ? variant_kind_name(v->variants[k].kind) : NULL;
}

const char *dmlref_vector_variant_rule(const dmlref_vector *v, size_t k)
{
    return v && k < v->variant_count ? variant_kind_rule(v->variants[k].kind) : NULL;
}
