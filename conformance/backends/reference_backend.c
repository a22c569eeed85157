/*
 * reference_backend.c - a `dmlref check` plug-in that runs dmlref's own
 * reference library (build/libdmlref.a, linked in statically).
 *
 * It is the harness's positive control: supports() answers exactly what
 * dmlref_validate() says, and execute() is dmlref_execute() under the
 * default (strict) out-of-range policy, so the whole golden suite passes.
 *
 *   supports: DMLREF_OK                     -> DMLREF_OK (the case runs)
 *             DMLREF_ERROR_UNSUPPORTED_*    -> the same (the case is skipped)
 *             any other error               -> that error (the description
 *                                              is refused as invalid)
 *
 * --backend-options: none; any text is refused by create().
 */
#include "dmlref/backend.h"

#include <stdio.h>
#include <string.h>

DMLREF_BACKEND_EXPORT const dmlref_backend_v1 *dmlref_backend_entry(uint32_t abi_version);

#define TEXT_OF(x) #x
#define TEXT(x) TEXT_OF(x)
#define REFERENCE_VERSION                                                                          \
    "dmlref " TEXT(DMLREF_VERSION_MAJOR) "." TEXT(DMLREF_VERSION_MINOR) "." TEXT(                  \
        DMLREF_VERSION_PATCH) " reference kernels"

static int context_tag; /* the context: its address only, no state */

static void put_message(char *message, size_t capacity, const char *text)
{
    if (message && capacity > 0) {
        size_t n = strlen(text);
        if (n >= capacity)
            n = capacity - 1;
        memcpy(message, text, n);
        message[n] = '\0';
    }
}

static dmlref_status reference_create(const char *options, void **context, char *message,
                                      size_t message_capacity)
{
    if (!context) {
        put_message(message, message_capacity, "reference backend: NULL context pointer");
        return DMLREF_ERROR_INVALID_ARGUMENT;
    }
    if (options && options[0] != '\0') {
        char text[256];
        sprintf(text, "reference backend: takes no options, got \"%.200s\"", options);
        put_message(message, message_capacity, text);
        return DMLREF_ERROR_INVALID_ARGUMENT;
    }
    *context = &context_tag;
    return DMLREF_OK;
}

static dmlref_status reference_supports(void *context, const dmlref_operator_desc *op,
                                        dmlref_feature_level feature_level)
{
    /* dmlref's statuses already follow the plug-in contract: UNSUPPORTED_*
       means "cannot run it as described at this level" (skip), every other
       error means the description is invalid (refuse). */
    (void)context;
    return dmlref_validate(op, feature_level, NULL);
}

static dmlref_status reference_execute(void *context, const dmlref_operator_desc *op,
                                       dmlref_feature_level feature_level,
                                       const dmlref_binding *inputs, size_t input_count,
                                       const dmlref_binding *outputs, size_t output_count,
                                       char *message, size_t message_capacity)
{
    dmlref_error err;
    dmlref_status status;
    (void)context;
    memset(&err, 0, sizeof err);
    status = dmlref_execute(op, feature_level, inputs, input_count, outputs, output_count, &err);
    if (status != DMLREF_OK)
        put_message(message, message_capacity,
                    err.message[0] ? err.message : dmlref_status_name(status));
    return status;
}

static void reference_destroy(void *context)
{
    (void)context;
}

static const dmlref_backend_v1 reference_backend = {
    DMLREF_BACKEND_ABI_VERSION, sizeof(dmlref_backend_v1),   "dmlref-reference",
    REFERENCE_VERSION,          DMLREF_FEATURE_LEVEL_LATEST, reference_create,
    reference_supports,         reference_execute,           reference_destroy,
};

DMLREF_BACKEND_EXPORT const dmlref_backend_v1 *dmlref_backend_entry(uint32_t abi_version)
{
    return abi_version == DMLREF_BACKEND_ABI_VERSION ? &reference_backend : NULL;
}
