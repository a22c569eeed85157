/*
 * explain.c - dmlref explain: where each output element comes from.
 */
#include "teach/teach.h"

dmlref_status explain_case(dmlref_vector *v, const char *element, char **text, size_t *length,
                           dmlref_error *err)
{
    (void)v, (void)element, (void)text, (void)length;
    return set_error(err, DMLREF_ERROR_INVALID_ARGUMENT, "", "explain: not built yet");
}
