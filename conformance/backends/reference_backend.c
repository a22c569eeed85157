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
 * --backend-options: none, or "only=OPERATOR" (GATHER_ELEMENTS, ...): a
 * backend that implements that operator alone, as a plug-in wired up one
 * operator at a time is; supports() answers DMLREF_ERROR_UNSUPPORTED_OPERATOR
 * for every other, whatever the description.  Any other text is refused by
 * create().
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

/* The context: the one operator it implements, or every one. */
typedef struct reference_context {
    int only;
    dmlref_operator_type op;
} reference_context;

static reference_context every_operator = {0, DMLREF_OPERATOR_GATHER_ELEMENTS};
static reference_context one_operator;

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
    *context = &every_operator;
    if (options && strncmp(options, "only=", 5) == 0 &&
        dmlref_operator_from_name(options + 5, &one_operator.op)) {
        one_operator.only = 1;
        *context = &one_operator;
    } else if (options && options[0] != '\0') {
        char text[256];
        sprintf(text, "reference backend: takes no options or only=OPERATOR, got \"%.180s\"",
                options);
        put_message(message, message_capacity, text);
        return DMLREF_ERROR_INVALID_ARGUMENT;
    }
    return DMLREF_OK;
}

static dmlref_status reference_supports(void *context, const dmlref_operator_desc *op,
                                        dmlref_feature_level feature_level)
{
    /* dmlref's statuses already follow the plug-in contract: UNSUPPORTED_*
       means "cannot run it as described at this level" (skip), every other
       error means the description is invalid (refuse). */
    const reference_context *c = context;
    if (c->only && op->Type != c->op)
        return DMLREF_ERROR_UNSUPPORTED_OPERATOR;
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
