/*
 * judge.c - what one run of a case by a backend comes to: pass, fail, skip or
 * error, with a one-line message.  Shared by dmlref check and dmlref fuzz.
 */
#include "base/printf_like.h"
#include "conformance/conformance.h"
#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- judging ------------------------------------------------------------------ */

static const char *tensor_name(const dmlref_vector *v, size_t index)
{
    const operator_info *row = operator_find(dmlref_vector_operator(v)->Type);
    return row && index < row->input_count + row->output_count ? row->tensors[index].name
                                                               : "(unknown)";
}

static uint64_t binding_size(const dmlref_vector *v, size_t index)
{
    size_t n_in = dmlref_vector_input_count(v);
    return index < n_in ? dmlref_vector_inputs(v)[index].size_in_bytes
                        : dmlref_vector_outputs(v)[index - n_in].size_in_bytes;
}

/* An output given by its digest alone says only that it differs; the
   reference recomputes the case so the report can name the first wrong
   element.  On one thread: a process that has run an OpenMP team cannot
   fork a worker whose plug-in uses OpenMP (GNU libgomp's pool does not
   survive fork). */
static void name_first_wrong_element(dmlref_vector *v, dmlref_error *err, dmlref_mismatch *first)
{
    size_t n = dmlref_vector_output_count(v), i;
    dmlref_binding got[2];
    dmlref_error detail;
    dmlref_mismatch where;
    for (i = 0; i < n; ++i) {
        got[i].size_in_bytes = dmlref_vector_outputs(v)[i].size_in_bytes;
        got[i].data = malloc((size_t)got[i].size_in_bytes + 1);
        if (!got[i].data) {
            while (i-- > 0)
                free(got[i].data);
            return;
        }
        memcpy(got[i].data, dmlref_vector_outputs(v)[i].data, (size_t)got[i].size_in_bytes);
    }
    if (dmlref_vector_eval(v, 1, &detail) == DMLREF_OK &&
        dmlref_vector_compare(v, got, n, &where, &detail) == DMLREF_ERROR_MISMATCH)
        *err = detail, *first = where;
    for (i = 0; i < n; ++i)
        free(got[i].data);
}

PRINTF_LIKE(4, 5)
static case_result verdict(char *m, size_t capacity, case_result outcome, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(m, capacity, format, args);
    va_end(args);
    return outcome;
}

void expectation_at(const dmlref_vector *v, dmlref_feature_level level, expectation *e)
{
    dmlref_status want;
    const char *rule;
    int vector_refuses = dmlref_vector_expects_error(v, &want, &rule);
    dmlref_error err;
    dmlref_status status = dmlref_validate(dmlref_vector_operator(v), level, &err);

    memset(e, 0, sizeof *e);
    e->level = level;
    if (status != DMLREF_OK) { /* the oracle refuses it at this level, whatever the vector's own */
        e->must_refuse = 1;
        e->status = status;
        snprintf(e->rule, sizeof e->rule, "%s", err.rule);
    } else if (vector_refuses && want == DMLREF_ERROR_INDEX_OUT_OF_RANGE) {
        e->must_refuse = 1; /* valid descriptors, bad index data */
        e->status = want;
        snprintf(e->rule, sizeof e->rule, "%s", rule);
    } else if (vector_refuses) {
        e->undecided = 1; /* valid here, refused at the vector's own level: no outputs stated */
    }
}

/* "OutputTensor[0,1]": the first wrong element as dmlref explain --element
   takes it; "" when the comparison named none. */
static void element_text(const dmlref_vector *v, const dmlref_mismatch *first, char *element,
                         size_t capacity)
{
    size_t used;
    uint32_t d;
    if (!element || !capacity)
        return;
    element[0] = '\0';
    if (first->rank == 0 || first->rank > 8 || first->output >= dmlref_vector_output_count(v))
        return;
    snprintf(element, capacity, "%s[",
             tensor_name(v, dmlref_vector_input_count(v) + first->output));
    for (d = 0; d < first->rank; ++d) {
        used = strlen(element);
        snprintf(element + used, capacity - used, "%s%llu", d ? "," : "",
                 (unsigned long long)first->coordinate[d]);
    }
    used = strlen(element);
    snprintf(element + used, capacity - used, "]");
}

/* Compares the outputs with the vector's main expectation, then with each
   permitted variant; names the variant that matched in *m, or the first
   wrong element in `element`. */
static case_result judge_outputs(dmlref_vector *v, char *m, size_t capacity, char *element,
                                 size_t element_capacity)
{
    dmlref_error err, ignored;
    dmlref_mismatch first;
    const char *detail;
    size_t k;
    memset(&first, 0, sizeof first);
    if (dmlref_vector_compare(v, dmlref_vector_outputs(v), dmlref_vector_output_count(v), &first,
                              &err) == DMLREF_OK)
        return verdict(m, capacity, CASE_PASS, "%s", "");
    for (k = 0; k < dmlref_vector_variant_count(v); ++k)
        if (dmlref_vector_compare_variant(v, k, dmlref_vector_outputs(v),
                                          dmlref_vector_output_count(v), NULL,
                                          &ignored) == DMLREF_OK)
            return verdict(m, capacity, CASE_PASS, "the permitted variant %s (%s)",
                           dmlref_vector_variant_name(v, k), dmlref_vector_variant_rule(v, k));
    /* the message starts "file: $.tensors...": the path is what matters */
    if (strstr(err.message, "expected digest")) {
        memset(&first, 0, sizeof first); /* a digest names no element */
        name_first_wrong_element(v, &err, &first);
    }
    element_text(v, &first, element, element_capacity);
    detail = strstr(err.message, ": $.");
    return verdict(m, capacity, CASE_FAIL, "%s", detail ? detail + 2 : err.message);
}

/* A refusal that names DMLREF_ERROR_UNSUPPORTED_* says, from either
   interface, that the backend cannot run the case, as a process's
   "unsupported" does. */
int run_says_unsupported(const backend_run *run)
{
    return run->kind == RUN_UNSUPPORTED ||
           (run->kind == RUN_REFUSED && run->status >= DMLREF_ERROR_UNSUPPORTED_OPERATOR &&
            run->status <= DMLREF_ERROR_UNSUPPORTED_LAYOUT);
}

case_result judge_run_naming(dmlref_vector *v, const expectation *e, const backend_run *run,
                             int strict_status, char *m, size_t capacity, char *element,
                             size_t element_capacity)
{
    if (element && element_capacity)
        element[0] = '\0';
    if (run->kind == RUN_ERROR)
        return verdict(m, capacity, CASE_ERROR, "%s", run->message);
    if (e->undecided)
        return verdict(m, capacity, CASE_SKIP,
                       "valid at feature level %s, for which the vector states no outputs",
                       dmlref_feature_level_name(e->level));
    if (run_says_unsupported(run)) {
        /* "cannot run it" is no refusal, except where it is the very
           refusal the oracle gives: an operator, a type or a rank that the
           level lacks */
        if (e->must_refuse && run->status == e->status) {
            if (strict_status && run->rule[0] && strcmp(run->rule, e->rule) != 0)
                return verdict(m, capacity, CASE_FAIL, "refused under rule %s, dmlref under %s",
                               run->rule, e->rule);
            return verdict(m, capacity, CASE_PASS, "%s", "");
        }
        if (run->kind == RUN_REFUSED) /* its message may not name the status */
            return verdict(m, capacity, CASE_SKIP, "unsupported: %s%s%s",
                           dmlref_status_name(run->status), run->message[0] ? ": " : "",
                           run->message);
        return verdict(m, capacity, CASE_SKIP, "unsupported%s%s", run->message[0] ? ": " : "",
                       run->message);
    }
    if (e->must_refuse) {
        if (run->kind != RUN_OUTPUTS) { /* refused, as it must be */
            if (strict_status && run->status != e->status)
                return verdict(
                    m, capacity, CASE_FAIL, "refused with %s, dmlref refuses it with %s (%s)",
                    run->status == DMLREF_OK ? "no status named" : dmlref_status_name(run->status),
                    dmlref_status_name(e->status), e->rule);
            if (strict_status && run->rule[0] && strcmp(run->rule, e->rule) != 0)
                return verdict(m, capacity, CASE_FAIL, "refused under rule %s, dmlref under %s",
                               run->rule, e->rule);
            return verdict(m, capacity, CASE_PASS, "%s", "");
        }
        if (e->status == DMLREF_ERROR_INDEX_OUT_OF_RANGE)
            return verdict(m, capacity, CASE_SKIP,
                           "accepted out-of-range indices: DirectML's outputs are undefined (%s), "
                           "not compared",
                           e->rule);
        if (e->status == DMLREF_ERROR_UNSUPPORTED_LAYOUT)
            return verdict(m, capacity, CASE_SKIP, "a layout dmlref cannot decide (%s): not judged",
                           e->rule);
        return verdict(m, capacity, CASE_FAIL,
                       "accepted a case that must be refused at feature level %s: %s (%s)",
                       dmlref_feature_level_name(e->level), dmlref_status_name(e->status), e->rule);
    }
    if (run->kind == RUN_REFUSED && dmlref_vector_oob_policy(v) == DMLREF_OOB_CLAMP)
        return verdict(m, capacity, CASE_SKIP,
                       "refused out-of-range indices, which this case clamps "
                       "(\"oob\": \"clamp\", dmlref's portable policy)");
    if (run->kind == RUN_REFUSED) {
        if (run->status != DMLREF_OK)
            return verdict(m, capacity, CASE_FAIL, "refused a valid case: %s%s%s",
                           dmlref_status_name(run->status), run->message[0] ? ": " : "",
                           run->message);
        return verdict(m, capacity, CASE_FAIL, "refused a valid case: %s", run->message);
    }
    if (run->damage == DAMAGE_INPUT_WRITTEN)
        return verdict(m, capacity, CASE_FAIL, "wrote into the input %s",
                       tensor_name(v, run->damaged_tensor));
    if (run->damage == DAMAGE_PAST_END)
        return verdict(m, capacity, CASE_FAIL,
                       "%s past the TotalTensorSizeInBytes of %s (byte %llu of its %llu)%s",
                       run->damage_fault ? "touched memory" : "wrote",
                       tensor_name(v, run->damaged_tensor), (unsigned long long)run->damage_offset,
                       (unsigned long long)binding_size(v, run->damaged_tensor),
                       run->damage_fault ? ": a guard page faulted" : "");
    if (run->damage == DAMAGE_OUTSIDE)
        return verdict(m, capacity, CASE_FAIL,
                       "touched memory far from every buffer of the case: a guard page faulted");
    if (run->damage == DAMAGE_BEFORE_START)
        return verdict(m, capacity, CASE_FAIL, "%s before the start of %s (%llu bytes before)%s",
                       run->damage_fault ? "touched memory" : "wrote",
                       tensor_name(v, run->damaged_tensor), (unsigned long long)run->damage_offset,
                       run->damage_fault ? ": a guard page faulted" : "");
    return judge_outputs(v, m, capacity, element, element_capacity);
}

case_result judge_run(dmlref_vector *v, const expectation *e, const backend_run *run,
                      int strict_status, char *m, size_t capacity)
{
    return judge_run_naming(v, e, run, strict_status, m, capacity, NULL, 0);
}

case_result judge_case(dmlref_vector *v, const backend_run *run, char *m, size_t capacity)
{
    expectation e;
    expectation_at(v, dmlref_vector_feature_level(v), &e);
    return judge_run(v, &e, run, 0, m, capacity);
}
