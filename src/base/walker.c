/*
 * walker.c - the strided odometer (base.h).
 */
#include "base/base.h"

void walker_init(walker *w, uint32_t rank, const uint64_t *sizes)
{
    uint32_t i;
    memset(w, 0, sizeof *w);
    w->rank = rank;
    for (i = 0; i < rank; ++i)
        w->sizes[i] = sizes[i];
}

uint32_t walker_add(walker *w, const uint64_t *strides)
{
    uint32_t slot = w->tensor_count++;
    uint32_t i;
    for (i = 0; i < w->rank; ++i)
        w->strides[slot][i] = strides[i];
    return slot;
}

void walker_seek(walker *w, uint64_t pos)
{
    uint32_t t, i;
    coordinates_of(pos, w->rank, w->sizes, w->coord);
    for (t = 0; t < w->tensor_count; ++t) {
        w->offset[t] = 0;
        for (i = 0; i < w->rank; ++i)
            w->offset[t] += w->coord[i] * w->strides[t][i];
    }
}

void walker_coalesce(walker *w)
{
    uint32_t kept = 0, d, t;
    for (d = 0; d < w->rank; ++d) {
        int joins = kept > 0;
        if (w->sizes[d] == 1)
            continue; /* a size-1 dimension never moves an offset */
        for (t = 0; t < w->tensor_count && joins; ++t)
            joins = w->strides[t][kept - 1] == w->strides[t][d] * w->sizes[d];
        if (joins) { /* d continues the kept dimension before it */
            w->sizes[kept - 1] *= w->sizes[d];
            for (t = 0; t < w->tensor_count; ++t)
                w->strides[t][kept - 1] = w->strides[t][d];
            continue;
        }
        w->sizes[kept] = w->sizes[d];
        for (t = 0; t < w->tensor_count; ++t)
            w->strides[t][kept] = w->strides[t][d];
        ++kept;
    }
    if (kept == 0) { /* a single element: keep one dimension of size 1 */
        w->sizes[0] = 1;
        for (t = 0; t < w->tensor_count; ++t)
            w->strides[t][0] = 0;
        kept = 1;
    }
    w->rank = kept;
}
