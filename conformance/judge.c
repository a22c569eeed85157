/*
 * judge.c - what one run of a case by a backend comes to: pass, fail, skip or
 * error, with a one-line message.  Shared by dmlref check and dmlref fuzz.
 */
#include "conformance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- judging ------------------------------------------------------------------ */

static const char *tensor_name(const dmlref_vector *v, size_t index)
{
    static const char *const gather[] = {"InputTensor", "IndicesTensor", "OutputTensor"};
    static const char *const scatter[] = {"InputTensor", "IndicesTensor", "UpdatesTensor",
                                          "OutputTensor"};
    static const char *const nonzero[] = {"InputTensor", "OutputCountTensor",
                                          "OutputCoordinatesTensor"};
    dmlref_operator_type type = dmlref_vector_operator(v)->Type;
    return type == DMLREF_OPERATOR_SCATTER_ELEMENTS        ? scatter[index]
           : type == DMLREF_OPERATOR_NONZERO_COORDINATES ? nonzero[index]
                                                         : gather[index];
}

/* An output given by its digest alone says only that it differs; the
   reference recomputes the case so the report can name the first wrong
   element. */
static void name_first_wrong_element(dmlref_vector *v, dmlref_error *err)
{
    size_t n = dmlref_vector_output_count(v), i;
    dmlref_binding got[2];
    dmlref_error detail;
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
    if (dmlref_vector_eval(v, 0, &detail) == DMLREF_OK &&
        dmlref_vector_compare(v, got, n, NULL, &detail) == DMLREF_ERROR_MISMATCH)
        *err = detail;
    for (i = 0; i < n; ++i)
        free(got[i].data);
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static case_result verdict(char *m, size_t capacity, case_result outcome, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(m, capacity, format, args);
    va_end(args);
    return outcome;
}

case_result judge_case(dmlref_vector *v, const backend_run *run, char *m, size_t capacity)
{
    dmlref_status want;
    const char *rule;
    int must_refuse = dmlref_vector_expects_error(v, &want, &rule);
    dmlref_error err;

    if (run->kind == RUN_ERROR) {
        return verdict(m, capacity, CASE_ERROR, "%s", run->message);
    }
    if (must_refuse) {
        if (run->kind == RUN_UNSUPPORTED && !run->from_supports) {
            /* a process that does not support a case has not refused it */
            return verdict(m, capacity, CASE_SKIP, "unsupported%s%s", run->message[0] ? ": " : "",
                   run->message);
        } else if (run->kind != RUN_OUTPUTS) {
            return verdict(m, capacity, CASE_PASS, "%s", "");
        } else if (want == DMLREF_ERROR_INDEX_OUT_OF_RANGE) {
            return verdict(m, capacity, CASE_SKIP,
                   "out-of-range indices: DirectML's outputs are undefined (%s), not compared", rule);
        } else if (want == DMLREF_ERROR_UNSUPPORTED_LAYOUT) {
            return verdict(m, capacity, CASE_SKIP, "a layout dmlref cannot decide (%s): not judged", rule);
        }
        return verdict(m, capacity, CASE_FAIL, "accepted a case that must be refused: %s (%s)",
                       dmlref_status_name(want), rule);
    }
    if (run->kind == RUN_UNSUPPORTED) {
        return verdict(m, capacity, CASE_SKIP, "unsupported%s%s", run->message[0] ? ": " : "",
               run->message);
    }
    if (run->kind == RUN_REFUSED && dmlref_vector_oob_policy(v) == DMLREF_OOB_CLAMP) {
        return verdict(m, capacity, CASE_SKIP, "refused out-of-range indices, which this case clamps "
                                        "(\"oob\": \"clamp\", DirectML's observed behaviour)");
    }
    if (run->kind == RUN_REFUSED) {
        if (run->status != DMLREF_OK) /* a plug-in's status; a process gives a message */
            return verdict(m, capacity, CASE_FAIL, "refused a valid case: %s%s%s",
                   dmlref_status_name(run->status), run->message[0] ? ": " : "", run->message);
        else
            return verdict(m, capacity, CASE_FAIL, "refused a valid case: %s", run->message);
    }
    if (run->damage) {
        return verdict(m, capacity, CASE_FAIL, "%s %s",
               run->damage == DAMAGE_INPUT_WRITTEN ? "wrote into the input"
               : run->damage == DAMAGE_PAST_END    ? "wrote past the TotalTensorSizeInBytes of"
                                                   : "wrote before the start of",
               tensor_name(v, run->damaged_tensor));
    }
    if (dmlref_vector_compare(v, dmlref_vector_outputs(v), dmlref_vector_output_count(v), NULL,
                              &err) != DMLREF_OK) {
        /* the message starts "file: $.tensors...": the path is what matters */
        const char *detail;
        if (strstr(err.message, "expected digest"))
            name_first_wrong_element(v, &err);
        detail = strstr(err.message, ": $.");
        return verdict(m, capacity, CASE_FAIL, "%s", detail ? detail + 2 : err.message);
    }
    return verdict(m, capacity, CASE_PASS, "%s", "");
}

