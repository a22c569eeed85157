/*
 * show.c - dmlref show: every tensor of a vector as a nested array.
 */
#include "teach/teach.h"

dmlref_status show_vector(const dmlref_vector *v, char **text, size_t *length, dmlref_error *err)
{
    (void)v, (void)text, (void)length;
    return set_error(err, DMLREF_ERROR_INVALID_ARGUMENT, "", "show: not built yet");
}
