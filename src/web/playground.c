/*
 * playground.c - the web page's one door into the library (playground.h).
 * It reads the case as `dmlref explain` does, asks the library what the
 * commands ask it, and puts the answers in one JSON object: the page
 * computes nothing itself.
 */
#include "web/playground.h"

#include "teach/teach.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static json_t *error_object(dmlref_status status, const dmlref_error *e)
{
    return json_pack("{s:s, s:s, s:s}", "status", dmlref_status_name(status), "rule",
                     status == DMLREF_OK ? "" : e->rule, "message",
                     status == DMLREF_OK ? "" : e->message);
}

/* The verdict at every feature level, as `dmlref eval` of the case moved to
   that level gives it: dmlref_validate(), and where that passes, what
   execution adds (the bindings, every index under the strict policy, D1).
   That part does not depend on the level (dmlref_execute_with_options()
   hands the level to dmlref_validate() alone), so it is the case's own
   verdict where its level validates, else found once, at the first level
   that does. */
static json_t *levels_of(const dmlref_vector *v, dmlref_status own, const dmlref_error *own_error)
{
    json_t *levels = json_array();
    /* the execution's verdict is the case's own where its level validates */
    int known = dmlref_validate(&v->op, v->level, NULL) == DMLREF_OK;
    dmlref_status execution = own;
    dmlref_error execution_error;
    size_t i;
    if (own != DMLREF_OK)
        execution_error = *own_error;
    for (i = 0; i < FEATURE_LEVEL_COUNT; ++i) {
        dmlref_error e;
        dmlref_status status = dmlref_validate(&v->op, feature_levels[i], &e);
        json_t *level;
        if (status == DMLREF_OK && !known) {
            execution = case_refusal_at(v, feature_levels[i], &execution_error);
            known = 1;
        }
        if (status == DMLREF_OK && execution != DMLREF_OK) {
            status = execution;
            e = execution_error;
        }
        level = error_object(status, &e);
        json_object_set_new(level, "level",
                            json_string(dmlref_feature_level_name(feature_levels[i])));
        json_array_append_new(levels, level);
    }
    return levels;
}

static json_t *numbers(const uint32_t *values, uint32_t count)
{
    json_t *array = json_array();
    uint32_t i;
    for (i = 0; i < count; ++i)
        json_array_append_new(array, json_integer((json_int_t)values[i]));
    return array;
}

static json_t *element_text(dmlref_tensor_data_type type, uint64_t bits)
{
    char buf[ELEMENT_TEXT_CAPACITY];
    bare_element(type, bits, buf, sizeof buf);
    return json_string(buf);
}

/* An output's value at logical position p, as the vector states it. */
static json_t *expected_element(const vtensor *x, uint64_t p, size_t *any_of_cursor)
{
    const dmlref_tensor_data_type type = x->desc.DataType;
    int kind = x->kinds ? x->kinds[p] : EXPECT_VALUE;
    if (kind == EXPECT_NULL)
        return json_null();
    if (kind == EXPECT_ANY_OF) {
        const any_of_entry *entry = &x->any_of[(*any_of_cursor)++];
        json_t *alternatives = json_array();
        size_t k;
        for (k = 0; k < entry->count; ++k)
            json_array_append_new(alternatives,
                                  element_text(type, x->alternatives[entry->first + k]));
        return alternatives;
    }
    return element_text(type, x->expected[p]);
}

/* The first PLAYGROUND_MAX_ELEMENTS elements of tensor x, row-major; null
   when it has none to show (an output of a case that was not evaluated). */
static json_t *values_of(const vtensor *x, uint64_t count)
{
    json_t *values;
    layout l;
    uint64_t p, at[MAX_RANK];
    size_t any_of_cursor = 0;

    if (x->is_output ? !x->has_expected : !x->buffer && !x->elements)
        return json_null();
    layout_from_desc(&x->desc, &l);
    values = json_array();
    for (p = 0; p < count && p < PLAYGROUND_MAX_ELEMENTS; ++p) {
        if (x->is_output) {
            json_array_append_new(values, expected_element(x, p, &any_of_cursor));
        } else if (x->buffer) {
            coordinates_of(p, l.rank, l.sizes, at);
            json_array_append_new(
                values, element_text(x->desc.DataType,
                                     load_bits(x->buffer + byte_offset(&l, at), l.element_size)));
        } else {
            json_array_append_new(values, element_text(x->desc.DataType, x->elements[p]));
        }
    }
    return values;
}

static json_t *tensor_of(const vtensor *x)
{
    layout l;
    uint64_t count;
    layout_from_desc(&x->desc, &l);
    count = layout_element_count(&l);
    return json_pack(
        "{s:s, s:s, s:s, s:o, s:o, s:I, s:o}", "name", x->name, "role",
        x->is_output ? "output" : "input", "dtype", dmlref_data_type_name(x->desc.DataType),
        "sizes", numbers(x->desc.Sizes, x->desc.DimensionCount), "strides",
        x->desc.Strides ? numbers(x->desc.Strides, x->desc.DimensionCount) : json_null(), "count",
        (json_int_t)count, "values", values_of(x, count));
}

static json_t *tensors_of(const dmlref_vector *v)
{
    json_t *tensors = json_array();
    size_t i;
    for (i = 0; i < v->input_count + v->output_count; ++i)
        json_array_append_new(tensors, tensor_of(&v->tensors[i]));
    return tensors;
}

/* The permitted variants of an evaluated case, as eval computed them: what
   the text stated is not shown, since an edit may have made it stale. */
static json_t *variants_of(const dmlref_vector *v, int evaluated)
{
    json_t *variants = json_array();
    size_t k, o;
    for (k = 0; evaluated && k < v->variant_count; ++k) {
        const variant *w = &v->variants[k];
        json_t *outputs = json_array();
        for (o = 0; o < v->output_count; ++o)
            json_array_append_new(outputs, tensor_of(&w->outputs[o]));
        json_array_append_new(variants,
                              json_pack("{s:s, s:s, s:o}", "name", variant_kind_name(w->kind),
                                        "rule", variant_kind_rule(w->kind), "outputs", outputs));
    }
    return variants;
}

static json_t *text_or_null(char *text)
{
    json_t *s = text ? json_string(text) : json_null();
    free(text);
    return s;
}

/* The vector `dmlref eval` writes; a refused case's with the refusal as its
   expect_error, so that what is downloaded is a vector the suite could hold. */
static json_t *vector_text(dmlref_vector *v, dmlref_status refusal, const dmlref_error *e)
{
    char *text = NULL;
    size_t length;
    dmlref_error ignored;
    if (refusal != DMLREF_OK && !v->expects_error) {
        v->expects_error = 1;
        v->error_status = refusal;
        memcpy(v->error_rule, e->rule, sizeof v->error_rule);
    }
    if (dmlref_vector_write(v, &text, &length, &ignored) != DMLREF_OK)
        text = NULL;
    return text_or_null(text);
}

static void explain_into(json_t *r, dmlref_vector *v, const char *element, int evaluated)
{
    static const char *const roles[] = {"value", "index", "loser"};
    char *text = NULL;
    size_t length, count = 0, i;
    element_source sources[EXPLAIN_MAX_SOURCES];
    dmlref_error e;
    json_t *list = json_array();

    if (explain_case(v, element, &text, &length, &e) != DMLREF_OK) {
        json_object_set_new(r, "explain_error", json_string(e.message));
        text = NULL;
    }
    json_object_set_new(r, "explain", text_or_null(text));
    if (element && evaluated && explain_sources(v, element, sources, &count, &e) != DMLREF_OK)
        count = 0;
    for (i = 0; i < count; ++i) {
        const vtensor *x = &v->tensors[sources[i].tensor];
        json_t *at = json_array();
        uint32_t d;
        for (d = 0; d < x->desc.DimensionCount; ++d)
            json_array_append_new(at, json_integer((json_int_t)sources[i].at[d]));
        json_array_append_new(list, json_pack("{s:s, s:o, s:s}", "tensor", x->name, "at", at,
                                              "role", roles[sources[i].role]));
    }
    json_object_set_new(r, "sources", list);
}

static json_t *run(const char *text, const char *source, const char *element)
{
    dmlref_vector_read_options read = {DMLREF_VECTOR_READ_CASE | DMLREF_VECTOR_READ_REFUSED,
                                       PLAYGROUND_MEMORY_CAP};
    dmlref_vector *v = NULL;
    dmlref_error e, refusal_error;
    dmlref_status refusal, status = dmlref_vector_parse(text, strlen(text), source, &read, &v, &e);
    char *show = NULL, path[JSON_PATH_CAPACITY] = "$";
    size_t length;
    json_t *r, *result;
    int evaluated = 0;

    if (status != DMLREF_OK) {
        r = error_object(status, &e);
        json_object_set_new(r, "read", json_false());
        return r;
    }
    if (element && !element[0])
        element = NULL;
    r = json_pack("{s:b, s:s, s:s, s:s, s:s}", "read", 1, "name", v->name, "operator",
                  dmlref_operator_name(v->type), "feature_level",
                  dmlref_feature_level_name(v->level), "oob",
                  v->oob == DMLREF_OOB_CLAMP ? "clamp" : "error");
    /* show first: it says whether the outputs' values are the vector's own or
       computed, and eval below makes them the vector's */
    if (show_vector(v, &show, &length, &e) != DMLREF_OK)
        show = NULL;
    json_object_set_new(r, "show", text_or_null(show));
    refusal = case_refusal(v, &refusal_error);
    json_object_set_new(r, "levels", levels_of(v, refusal, &refusal_error));
    if (refusal == DMLREF_OK) {
        status = dmlref_vector_eval(v, 1, &e);
        evaluated = status == DMLREF_OK;
    }
    result = error_object(refusal != DMLREF_OK ? refusal : status,
                          refusal != DMLREF_OK ? &refusal_error : &e);
    if (refusal != DMLREF_OK &&
        (refusal != DMLREF_ERROR_INDEX_OUT_OF_RANGE || strcmp(refusal_error.rule, "R-GN-6") == 0))
        validation_path(v, refusal_error.message, path);
    json_object_set_new(result, "path", json_string(path));
    json_object_set_new(r, "result", result);
    json_object_set_new(r, "tensors", tensors_of(v));
    json_object_set_new(r, "variants", variants_of(v, evaluated));
    explain_into(r, v, element, evaluated);
    json_object_set_new(r, "vector",
                        evaluated || refusal != DMLREF_OK ? vector_text(v, refusal, &refusal_error)
                                                          : json_null());
    dmlref_vector_free(v);
    return r;
}

char *dmlref_playground_run(const char *text, const char *source, const char *element)
{
    json_t *r = run(text ? text : "", source && source[0] ? source : "case.json", element);
    char *out = r ? json_dumps(r, JSON_COMPACT) : NULL;
    json_decref(r);
    return out;
}

void dmlref_playground_free(char *result)
{
    free(result);
}
