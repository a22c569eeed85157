/*
 * validate.c - dmlref_validate(): every rule of docs/rules.md for each
 * operator at each feature level; and each operator's output shapes
 * (infer_*, behind dmlref_infer_output_sizes), which its validation compares
 * the outputs against.  An operator's row of the table (operators.c) names
 * its validate_* and infer_* functions; steps 1 and 2 below read the row.
 *
 * Order of the checks (the first rule broken is the one reported, so the
 * order is part of the contract):
 *   1. arguments: NULL pointers, unknown operator type or feature level;
 *   2. availability of the operator at the feature level;
 *   3. each tensor in descriptor field order: its DataType and DimensionCount
 *      against the level's support table, then the buffer tensor model
 *      (sizes, flags, alignment, element cap, TotalTensorSizeInBytes);
 *   4. relations between tensors and attributes, in the order of the
 *      operator's rules;
 *   5. output aliasing.
 * All size arithmetic is 64-bit and checked; nothing here touches data.
 */
#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>

#define FAIL(c, status, rule, ...) set_error((c)->err, (status), (rule), __VA_ARGS__)

/* ---- support tables ----------------------------------------------------- */

#define T(x) (1u << DMLREF_TENSOR_DATA_TYPE_##x)
#define TYPES_FLOAT (T(FLOAT32) | T(FLOAT16))
#define TYPES_8                                                                                    \
    (T(FLOAT32) | T(FLOAT16) | T(INT32) | T(INT16) | T(INT8) | T(UINT32) | T(UINT16) | T(UINT8))
#define TYPES_11 (TYPES_8 | T(FLOAT64) | T(INT64) | T(UINT64))
#define INDEX_2_1 T(UINT32)
#define INDEX_3_0 (T(INT64) | T(INT32) | T(UINT64) | T(UINT32))

/* One row of a DirectML "tensor support" table: it applies from `from` up
 * to the next row. */
typedef struct support_row {
    dmlref_feature_level from;
    uint32_t data_types;
    uint32_t min_rank, max_rank;
    uint32_t index_types;
} support_row;

/* R-GE-5 and R-GN-8 (GatherElements, GatherND; GatherND1 from 3_0) */
static const support_row k_gather_support[] = {
    {DMLREF_FEATURE_LEVEL_2_1, TYPES_8, 4, 4, INDEX_2_1},
    {DMLREF_FEATURE_LEVEL_3_0, TYPES_8, 1, 8, INDEX_3_0},
    {DMLREF_FEATURE_LEVEL_4_1, TYPES_11, 1, 8, INDEX_3_0},
};

/* R-SC-7, first row from FL 2_0 (R-SC-12, D17) */
static const support_row k_scatter_support[] = {
    {DMLREF_FEATURE_LEVEL_2_0, TYPES_FLOAT, 4, 4, INDEX_2_1},
    {DMLREF_FEATURE_LEVEL_2_1, TYPES_8, 4, 4, INDEX_2_1},
    {DMLREF_FEATURE_LEVEL_3_0, TYPES_8, 1, 8, INDEX_3_0},
    {DMLREF_FEATURE_LEVEL_4_1, TYPES_11, 1, 8, INDEX_3_0},
};

static const support_row *support_at(const support_row *rows, size_t count,
                                     dmlref_feature_level level)
{
    const support_row *found = NULL;
    size_t i;
    for (i = 0; i < count; ++i)
        if (rows[i].from <= level)
            found = &rows[i];
    return found;
}

/* "FLOAT32, FLOAT16" for a type mask. */
static void format_types(uint32_t mask, char *buf, size_t capacity)
{
    static const dmlref_tensor_data_type order[] = {
        DMLREF_TENSOR_DATA_TYPE_FLOAT64, DMLREF_TENSOR_DATA_TYPE_FLOAT32,
        DMLREF_TENSOR_DATA_TYPE_FLOAT16, DMLREF_TENSOR_DATA_TYPE_INT64,
        DMLREF_TENSOR_DATA_TYPE_INT32,   DMLREF_TENSOR_DATA_TYPE_INT16,
        DMLREF_TENSOR_DATA_TYPE_INT8,    DMLREF_TENSOR_DATA_TYPE_UINT64,
        DMLREF_TENSOR_DATA_TYPE_UINT32,  DMLREF_TENSOR_DATA_TYPE_UINT16,
        DMLREF_TENSOR_DATA_TYPE_UINT8};
    size_t i, used = 0;
    buf[0] = '\0';
    for (i = 0; i < sizeof order / sizeof order[0]; ++i) {
        if (mask & (1u << order[i])) {
            snprintf(buf + used, capacity - used, "%s%s", used ? ", " : "",
                     dmlref_data_type_name(order[i]));
            used = strlen(buf);
        }
    }
}

static void format_sizes(const uint32_t *sizes, uint32_t count, char *buf, size_t capacity)
{
    size_t used;
    uint32_t i;
    snprintf(buf, capacity, "{");
    for (i = 0; i < count; ++i) {
        used = strlen(buf);
        snprintf(buf + used, capacity - used, "%s%u", i ? ", " : "", sizes[i]);
    }
    used = strlen(buf);
    snprintf(buf + used, capacity - used, "}");
}

static const char *type_name(dmlref_tensor_data_type type)
{
    const char *name = dmlref_data_type_name(type);
    return name ? name : "(unknown)";
}

/* ---- one tensor --------------------------------------------------------- */

/* What the operator's support table allows for one tensor. */
typedef struct tensor_rules {
    uint32_t data_types;
    const char *data_type_rule;
    uint32_t min_rank, max_rank;
    const char *rank_rule;
    int is_output;
} tensor_rules;

static int is_signed_index_type(dmlref_tensor_data_type type)
{
    return type == DMLREF_TENSOR_DATA_TYPE_INT32 || type == DMLREF_TENSOR_DATA_TYPE_INT64;
}

static dmlref_status check_tensor(const rule_context *c, const char *name,
                                  const dmlref_tensor_desc *t, const tensor_rules *rules)
{
    char text[160];
    const char *level = dmlref_feature_level_name(c->level);
    uint64_t element_size, elements = 1, minimum;
    uint32_t i;

    if (!t)
        return FAIL(c, DMLREF_ERROR_INVALID_ARGUMENT, "", "%s: %s is NULL", c->op, name);

    /* the level's support table (R-GE-5, R-SC-7, R-GN-8, R-NZ-6/7, R-IX-1) */
    if (t->DataType > 31u || !(rules->data_types & (1u << t->DataType))) {
        format_types(rules->data_types, text, sizeof text);
        return FAIL(c, DMLREF_ERROR_UNSUPPORTED_DATA_TYPE, rules->data_type_rule,
                    "%s: %s.DataType = %s (%u) is not supported at feature level %s "
                    "(supported: %s)",
                    c->op, name, type_name(t->DataType), (unsigned)t->DataType, level, text);
    }
    if (t->DimensionCount < 1 || t->DimensionCount > DMLREF_TENSOR_DIMENSION_COUNT_MAX)
        return FAIL(c, DMLREF_ERROR_INVALID_SIZES, "R-TD-1",
                    "%s: %s.DimensionCount = %u must be between 1 and 8", c->op, name,
                    t->DimensionCount);
    if (t->DimensionCount < rules->min_rank || t->DimensionCount > rules->max_rank)
        return FAIL(c, DMLREF_ERROR_UNSUPPORTED_DIMENSION_COUNT, rules->rank_rule,
                    "%s: %s.DimensionCount = %u is not supported at feature level %s "
                    "(supported: %u to %u)",
                    c->op, name, t->DimensionCount, level, rules->min_rank, rules->max_rank);

    /* the buffer tensor model */
    if (!t->Sizes)
        return FAIL(c, DMLREF_ERROR_INVALID_ARGUMENT, "", "%s: %s.Sizes is NULL", c->op, name);
    for (i = 0; i < t->DimensionCount; ++i)
        if (t->Sizes[i] == 0)
            return FAIL(c, DMLREF_ERROR_INVALID_SIZES, "R-TD-2",
                        "%s: %s.Sizes[%u] = 0: a size of zero is invalid", c->op, name, i);
    if (t->Flags & ~DMLREF_TENSOR_FLAG_OWNED_BY_DML)
        return FAIL(c, DMLREF_ERROR_INVALID_FLAGS, "R-TD-15",
                    "%s: %s.Flags = 0x%x has bits other than OWNED_BY_DML (0x1)", c->op, name,
                    t->Flags);
    if (rules->is_output && (t->Flags & DMLREF_TENSOR_FLAG_OWNED_BY_DML))
        return FAIL(c, DMLREF_ERROR_INVALID_FLAGS, "R-TD-15",
                    "%s: %s.Flags = 0x%x: OWNED_BY_DML is only for input tensors", c->op, name,
                    t->Flags);
    element_size = dmlref_data_type_size(t->DataType);
    if (t->GuaranteedBaseOffsetAlignment != 0 &&
        ((t->GuaranteedBaseOffsetAlignment & (t->GuaranteedBaseOffsetAlignment - 1)) != 0 ||
         t->GuaranteedBaseOffsetAlignment < DMLREF_MINIMUM_BUFFER_TENSOR_ALIGNMENT))
        return FAIL(c, DMLREF_ERROR_INVALID_ALIGNMENT, "R-TD-14",
                    "%s: %s.GuaranteedBaseOffsetAlignment = %u must be 0 or a power of two "
                    ">= %u",
                    c->op, name, t->GuaranteedBaseOffsetAlignment,
                    (unsigned)DMLREF_MINIMUM_BUFFER_TENSOR_ALIGNMENT);
    for (i = 0; i < t->DimensionCount; ++i) {
        elements *= t->Sizes[i]; /* cannot overflow before it passes 2^32 - 1 */
        if (elements > DMLREF_MAX_TENSOR_ELEMENTS) {
            format_sizes(t->Sizes, t->DimensionCount, text, sizeof text);
            return FAIL(c, DMLREF_ERROR_TENSOR_TOO_LARGE, "R-TD-13",
                        "%s: %s.Sizes = %s has more than 2^32-1 elements", c->op, name, text);
        }
    }
    minimum = dmlref_calc_buffer_tensor_size(t->DataType, t->DimensionCount, t->Sizes, t->Strides);
    if (minimum == 0)
        return FAIL(c, DMLREF_ERROR_TENSOR_TOO_LARGE, "R-TD-10",
                    "%s: %s: the minimum buffer size (DMLCalcBufferTensorSize) does not fit "
                    "in 64 bits",
                    c->op, name);
    if (t->TotalTensorSizeInBytes < minimum)
        return FAIL(c, DMLREF_ERROR_INVALID_TOTAL_SIZE, "R-TD-9",
                    "%s: %s.TotalTensorSizeInBytes = %llu is less than DMLCalcBufferTensorSize "
                    "= %llu",
                    c->op, name, (unsigned long long)t->TotalTensorSizeInBytes,
                    (unsigned long long)minimum);
    if (t->TotalTensorSizeInBytes / element_size > DMLREF_MAX_TENSOR_ELEMENTS)
        return FAIL(c, DMLREF_ERROR_TENSOR_TOO_LARGE, "R-TD-13",
                    "%s: %s.TotalTensorSizeInBytes = %llu holds more than 2^32-1 elements of "
                    "%llu bytes",
                    c->op, name, (unsigned long long)t->TotalTensorSizeInBytes,
                    (unsigned long long)element_size);
    return DMLREF_OK;
}

/* ---- output aliasing (R-TD-16, D6) ----------------------------------------
 * An output whose strides map two logical elements to one address is
 * rejected.  Decided exactly, in this order:
 *   1. a proof by ordering: with the dimensions of size > 1 sorted by stride,
 *      the map is injective when every stride exceeds the largest offset the
 *      smaller-strided dimensions reach together.  Every packed, padded,
 *      permuted or interleaved layout passes that way;
 *   2. a layout that fails the proof (say sizes {3, 2}, strides {2, 3}) may
 *      still be injective.  With at most ALIAS_SORT_MAX_ELEMENTS elements,
 *      their offsets are listed (4 bytes each: check_tensor has already
 *      bounded the span below 2^32 by R-TD-13) and sorted;
 *   3. otherwise every offset is marked in a bitmap of
 *      ALIAS_BITMAP_MAX_OFFSETS bits, one window of that many offsets at a
 *      time (each window visits its own elements, along rows of the
 *      smallest stride), when the layout spans
 *      one window or has at most ALIAS_WINDOWED_MAX_ELEMENTS elements (at
 *      most 32 windows, since the span is below 2^32).
 * A layout of more than ALIAS_WINDOWED_MAX_ELEMENTS elements over fewer
 * offsets aliases by counting alone, and is said so without a walk.
 * Either way at most 16 MiB is allocated.  What is left, a layout that fails
 * the proof, spans more than 2^27 offsets and has more than 2^24 elements,
 * is reported as undecidable rather than guessed.  A duplicate reported is
 * the lowest offset two elements share, whichever method found it (but the
 * counting). */

#define ALIAS_BITMAP_MAX_OFFSETS (1ull << 27)    /* a 16 MiB bitmap */
#define ALIAS_SORT_MAX_ELEMENTS (1ull << 22)     /* 16 MiB of 4-byte offsets */
#define ALIAS_WINDOWED_MAX_ELEMENTS (1ull << 24) /* at most 32 walks of 2^24 */

static int compare_offsets(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Sorts the `count` offsets of the walk; 1 and the lowest one that repeats
   in *shared, 0 when all differ, -1 when out of memory. */
static int shared_offset_by_sorting(uint32_t rank, const uint64_t *sizes, const uint64_t *strides,
                                    uint64_t count, uint64_t *shared)
{
    uint32_t *offsets = malloc((size_t)count * sizeof *offsets);
    uint64_t n;
    walker w;
    if (!offsets)
        return -1;
    walker_init(&w, rank, sizes);
    walker_add(&w, strides);
    walker_seek(&w, 0);
    for (n = 0; n < count; ++n, walker_next(&w))
        offsets[n] = (uint32_t)w.offset[0]; /* < 2^32: R-TD-13 */
    qsort(offsets, (size_t)count, sizeof *offsets, compare_offsets);
    for (n = 1; n < count; ++n) {
        if (offsets[n] == offsets[n - 1]) {
            *shared = offsets[n];
            free(offsets);
            return 1;
        }
    }
    free(offsets);
    return 0;
}

/* Marks the offsets in windows of ALIAS_BITMAP_MAX_OFFSETS, lowest first;
   returns as shared_offset_by_sorting.  The walk goes along rows of the
   longest dimension, and in each row visits only the elements whose offsets
   fall in the window: a window costs a step a row plus its own elements, not
   a step for every element. */
static int shared_offset_by_bitmap(uint32_t rank, const uint64_t *sizes, const uint64_t *strides,
                                   uint64_t count, uint64_t span, uint64_t *shared)
{
    uint64_t window_bits =
        span + 1 < ALIAS_BITMAP_MAX_OFFSETS ? span + 1 : ALIAS_BITMAP_MAX_OFFSETS;
    uint64_t outer_sizes[MAX_RANK], outer_strides[MAX_RANK], row_size, step, rows;
    uint64_t base, r, k;
    uint32_t d, along = 0, outer = 0;
    unsigned char *seen;
    for (d = 1; d < rank; ++d) /* rows along the longest dimension: the fewest rows */
        if (sizes[d] > sizes[along])
            along = d;
    for (d = 0; d < rank; ++d)
        if (d != along) {
            outer_sizes[outer] = sizes[d];
            outer_strides[outer++] = strides[d];
        }
    row_size = sizes[along], step = strides[along];
    rows = count / row_size;
    if (!(seen = malloc((size_t)(window_bits / 8 + 1))))
        return -1;
    for (base = 0; base <= span; base += window_bits) {
        uint64_t last = base + window_bits - 1; /* the window's last offset */
        int found = 0;
        walker w; /* over the rows: the other dimensions */
        memset(seen, 0, (size_t)(window_bits / 8 + 1));
        walker_init(&w, outer, outer_sizes);
        walker_add(&w, outer_strides);
        walker_seek(&w, 0);
        for (r = 0; r < rows; ++r, walker_next(&w)) {
            uint64_t row = w.offset[0], first_k, last_k;
            if (row > last)
                continue;
            first_k = row >= base ? 0 : (base - row + step - 1) / step;
            last_k = (last - row) / step;
            if (last_k > row_size - 1)
                last_k = row_size - 1;
            for (k = first_k; k <= last_k; ++k) {
                uint64_t off = row + k * step - base;
                if (seen[off / 8] & (1u << (off % 8))) {
                    if (!found || off + base < *shared)
                        *shared = off + base;
                    found = 1;
                }
                seen[off / 8] |= (unsigned char)(1u << (off % 8));
            }
        }
        if (found) {
            free(seen);
            return 1;
        }
    }
    free(seen);
    return 0;
}

static dmlref_status check_output_injective(const rule_context *c, const char *name,
                                            const dmlref_tensor_desc *t)
{
    uint64_t sizes[MAX_RANK], strides[MAX_RANK], span = 0, count = 1, shared = 0;
    uint32_t rank = 0, i, j;
    int proven = 1, found;

    if (!t->Strides)
        return DMLREF_OK; /* packed */
    for (i = 0; i < t->DimensionCount; ++i) {
        if (t->Sizes[i] == 1)
            continue;
        if (t->Strides[i] == 0)
            return FAIL(c, DMLREF_ERROR_OUTPUT_ALIASING, "D6",
                        "%s: %s.Strides[%u] = 0 with Sizes[%u] = %u maps several elements to "
                        "one address",
                        c->op, name, i, i, t->Sizes[i]);
        /* insertion sort by stride */
        for (j = rank; j > 0 && strides[j - 1] > t->Strides[i]; --j) {
            strides[j] = strides[j - 1];
            sizes[j] = sizes[j - 1];
        }
        strides[j] = t->Strides[i];
        sizes[j] = t->Sizes[i];
        ++rank;
    }
    for (i = 0; i < rank; ++i) {
        if (strides[i] <= span)
            proven = 0;
        span += strides[i] * (sizes[i] - 1); /* < 2^32: the validated buffer size */
        count *= sizes[i];                   /* < 2^32: R-TD-13 */
    }
    if (proven)
        return DMLREF_OK;

    /* span > UINT32_MAX cannot happen after check_tensor (R-TD-13) */
    if (span > UINT32_MAX ||
        (count > ALIAS_WINDOWED_MAX_ELEMENTS && span + 1 > ALIAS_BITMAP_MAX_OFFSETS))
        return FAIL(c, DMLREF_ERROR_UNSUPPORTED_LAYOUT, "D6",
                    "%s: %s.Strides: whether two elements share an address cannot be decided "
                    "for a layout of %llu elements spanning %llu element offsets (dmlref "
                    "decides up to 2^24 elements or 2^27 offsets)",
                    c->op, name, (unsigned long long)count, (unsigned long long)(span + 1));
    if (count > ALIAS_WINDOWED_MAX_ELEMENTS && count > span + 1)
        /* more elements than offsets: two share one, and a walk of up to
           2^32 elements to name the lowest would take seconds */
        return FAIL(c, DMLREF_ERROR_OUTPUT_ALIASING, "D6",
                    "%s: %s.Strides map %llu elements to %llu element offsets: two share one",
                    c->op, name, (unsigned long long)count, (unsigned long long)(span + 1));
    found = count <= ALIAS_SORT_MAX_ELEMENTS
                ? shared_offset_by_sorting(rank, sizes, strides, count, &shared)
                : shared_offset_by_bitmap(rank, sizes, strides, count, span, &shared);
    if (found < 0)
        return FAIL(c, DMLREF_ERROR_OUT_OF_MEMORY, "",
                    "%s: %s: out of memory checking the output layout", c->op, name);
    if (found)
        return FAIL(c, DMLREF_ERROR_OUTPUT_ALIASING, "D6",
                    "%s: %s.Strides map two elements to element offset %llu", c->op, name,
                    (unsigned long long)shared);
    return DMLREF_OK;
}

/* ---- relations shared by several operators -------------------------------- */

static dmlref_status same_rank(const rule_context *c, const char *rule, const char *name,
                               const dmlref_tensor_desc *t, const char *ref_name,
                               const dmlref_tensor_desc *ref)
{
    if (t->DimensionCount != ref->DimensionCount)
        return FAIL(c, DMLREF_ERROR_DIMENSION_COUNT_MISMATCH, rule,
                    "%s: %s.DimensionCount = %u must equal %s.DimensionCount = %u", c->op, name,
                    t->DimensionCount, ref_name, ref->DimensionCount);
    return DMLREF_OK;
}

static dmlref_status same_type(const rule_context *c, const char *rule, const char *name,
                               const dmlref_tensor_desc *t, const char *ref_name,
                               const dmlref_tensor_desc *ref)
{
    if (t->DataType != ref->DataType)
        return FAIL(c, DMLREF_ERROR_DATA_TYPE_MISMATCH, rule,
                    "%s: %s.DataType = %s must equal %s.DataType = %s", c->op, name,
                    type_name(t->DataType), ref_name, type_name(ref->DataType));
    return DMLREF_OK;
}

/* Sizes equal to `ref_sizes` (those of ref_name) on every dimension of t
   except `skip` (pass MAX_RANK to skip none). */
static dmlref_status same_sizes(const rule_context *c, const char *rule, const char *name,
                                const dmlref_tensor_desc *t, const char *ref_name,
                                const uint32_t *ref_sizes, uint32_t skip, const char *why)
{
    uint32_t i;
    for (i = 0; i < t->DimensionCount; ++i)
        if (i != skip && t->Sizes[i] != ref_sizes[i])
            return FAIL(c, DMLREF_ERROR_SIZE_MISMATCH, rule,
                        "%s: %s.Sizes[%u] = %u must equal %s.Sizes[%u] = %u (%s)", c->op, name, i,
                        t->Sizes[i], ref_name, i, ref_sizes[i], why);
    return DMLREF_OK;
}

/* What shape inference needs of a tensor it reads: there, 1 to 8
   dimensions, sizes given (check_tensor's first checks, its messages). */
static dmlref_status check_shape_given(const rule_context *c, const char *name,
                                       const dmlref_tensor_desc *t)
{
    if (!t)
        return FAIL(c, DMLREF_ERROR_INVALID_ARGUMENT, "", "%s: %s is NULL", c->op, name);
    if (t->DimensionCount < 1 || t->DimensionCount > DMLREF_TENSOR_DIMENSION_COUNT_MAX)
        return FAIL(c, DMLREF_ERROR_INVALID_SIZES, "R-TD-1",
                    "%s: %s.DimensionCount = %u must be between 1 and 8", c->op, name,
                    t->DimensionCount);
    if (!t->Sizes)
        return FAIL(c, DMLREF_ERROR_INVALID_ARGUMENT, "", "%s: %s.Sizes is NULL", c->op, name);
    return DMLREF_OK;
}

/* Size i of a tensor of `rank` dimensions that holds the inferred shape
   (`inferred_rank` sizes) right-aligned after leading 1s. */
static uint32_t padded_size(const uint32_t *inferred, uint32_t inferred_rank, uint32_t rank,
                            uint32_t i)
{
    return i + inferred_rank < rank ? 1 : inferred[i + inferred_rank - rank];
}

static void rules_from_row(const support_row *row, const char *table_rule, int is_output,
                           tensor_rules *out)
{
    out->data_types = row->data_types;
    out->data_type_rule = table_rule;
    out->min_rank = row->min_rank;
    out->max_rank = row->max_rank;
    out->rank_rule = table_rule;
    out->is_output = is_output;
}

static void index_rules_from_row(const rule_context *c, const support_row *row,
                                 const char *table_rule, const dmlref_tensor_desc *indices,
                                 tensor_rules *out)
{
    rules_from_row(row, table_rule, 0, out);
    out->data_types = row->index_types;
    out->data_type_rule = "R-IX-1";
    /* signed index types below 3_0: decision D3 */
    if (indices && c->level < DMLREF_FEATURE_LEVEL_3_0 && is_signed_index_type(indices->DataType))
        out->data_type_rule = "D3";
}

/* ---- GATHER_ELEMENTS (R-GE-*) ------------------------------------------- */

/* R-GE-4: the output has the indices' sizes. */
dmlref_status infer_gather_elements(const rule_context *c, const void *desc, uint32_t output,
                                    uint32_t *dimension_count, uint32_t *sizes)
{
    const dmlref_gather_elements_desc *d = desc;
    (void)output;
    CHECK(check_shape_given(c, "IndicesTensor", d->IndicesTensor));
    *dimension_count = d->IndicesTensor->DimensionCount;
    memcpy(sizes, d->IndicesTensor->Sizes, *dimension_count * sizeof *sizes);
    return DMLREF_OK;
}

dmlref_status validate_gather_elements(const rule_context *c, const void *desc)
{
    const dmlref_gather_elements_desc *d = desc;
    const support_row *row =
        support_at(k_gather_support, sizeof k_gather_support / sizeof *k_gather_support, c->level);
    tensor_rules data, index, out;
    uint32_t rank, expected[MAX_RANK];
    char why[64];

    rules_from_row(row, "R-GE-5", 0, &data);
    rules_from_row(row, "R-GE-5", 1, &out);
    index_rules_from_row(c, row, "R-GE-5", d->IndicesTensor, &index);
    CHECK(check_tensor(c, "InputTensor", d->InputTensor, &data));
    CHECK(check_tensor(c, "IndicesTensor", d->IndicesTensor, &index));
    CHECK(check_tensor(c, "OutputTensor", d->OutputTensor, &out));

    CHECK(same_rank(c, "R-GE-1", "IndicesTensor", d->IndicesTensor, "InputTensor", d->InputTensor));
    CHECK(same_rank(c, "R-GE-1", "OutputTensor", d->OutputTensor, "InputTensor", d->InputTensor));
    CHECK(same_type(c, "R-GE-4", "OutputTensor", d->OutputTensor, "InputTensor", d->InputTensor));
    if (d->Axis >= d->InputTensor->DimensionCount)
        return FAIL(c, DMLREF_ERROR_INVALID_ATTRIBUTE, "R-GE-2",
                    "%s: Axis = %u must be less than InputTensor.DimensionCount = %u", c->op,
                    d->Axis, d->InputTensor->DimensionCount);
    snprintf(why, sizeof why, "all dimensions except Axis = %u", d->Axis);
    CHECK(same_sizes(c, "R-GE-3", "IndicesTensor", d->IndicesTensor, "InputTensor",
                     d->InputTensor->Sizes, d->Axis, why));
    CHECK(infer_gather_elements(c, d, 0, &rank, expected));
    CHECK(same_sizes(c, "R-GE-4", "OutputTensor", d->OutputTensor, "IndicesTensor", expected,
                     MAX_RANK, "the output has the indices' sizes"));
    return check_output_injective(c, "OutputTensor", d->OutputTensor);
}

/* ---- SCATTER_ELEMENTS (R-SC-*) ------------------------------------------ */

/* R-SC-6: the output has the input's sizes. */
dmlref_status infer_scatter_elements(const rule_context *c, const void *desc, uint32_t output,
                                     uint32_t *dimension_count, uint32_t *sizes)
{
    const dmlref_scatter_elements_desc *d = desc;
    (void)output;
    CHECK(check_shape_given(c, "InputTensor", d->InputTensor));
    *dimension_count = d->InputTensor->DimensionCount;
    memcpy(sizes, d->InputTensor->Sizes, *dimension_count * sizeof *sizes);
    return DMLREF_OK;
}

dmlref_status validate_scatter_elements(const rule_context *c, const void *desc)
{
    const dmlref_scatter_elements_desc *d = desc;
    const support_row *row = support_at(
        k_scatter_support, sizeof k_scatter_support / sizeof *k_scatter_support, c->level);
    tensor_rules data, index, out;
    uint32_t rank, expected[MAX_RANK];
    char why[64];

    rules_from_row(row, "R-SC-7", 0, &data);
    rules_from_row(row, "R-SC-7", 1, &out);
    index_rules_from_row(c, row, "R-SC-7", d->IndicesTensor, &index);
    CHECK(check_tensor(c, "InputTensor", d->InputTensor, &data));
    CHECK(check_tensor(c, "IndicesTensor", d->IndicesTensor, &index));
    CHECK(check_tensor(c, "UpdatesTensor", d->UpdatesTensor, &data));
    CHECK(check_tensor(c, "OutputTensor", d->OutputTensor, &out));

    CHECK(same_rank(c, "R-SC-1", "IndicesTensor", d->IndicesTensor, "InputTensor", d->InputTensor));
    CHECK(same_rank(c, "R-SC-1", "UpdatesTensor", d->UpdatesTensor, "InputTensor", d->InputTensor));
    CHECK(same_rank(c, "R-SC-1", "OutputTensor", d->OutputTensor, "InputTensor", d->InputTensor));
    CHECK(same_type(c, "R-SC-2", "UpdatesTensor", d->UpdatesTensor, "InputTensor", d->InputTensor));
    CHECK(same_type(c, "R-SC-2", "OutputTensor", d->OutputTensor, "InputTensor", d->InputTensor));
    if (d->Axis >= d->OutputTensor->DimensionCount)
        return FAIL(c, DMLREF_ERROR_INVALID_ATTRIBUTE, "R-SC-3",
                    "%s: Axis = %u must be less than OutputTensor.DimensionCount = %u", c->op,
                    d->Axis, d->OutputTensor->DimensionCount);
    snprintf(why, sizeof why, "all dimensions except Axis = %u", d->Axis);
    CHECK(same_sizes(c, "R-SC-4", "IndicesTensor", d->IndicesTensor, "InputTensor",
                     d->InputTensor->Sizes, d->Axis, why));
    if (d->IndicesTensor->Sizes[d->Axis] > d->InputTensor->Sizes[d->Axis]) /* D16 */
        return FAIL(c, DMLREF_ERROR_SIZE_MISMATCH, "R-SC-4",
                    "%s: IndicesTensor.Sizes[%u] = %u must not exceed InputTensor.Sizes[%u] = %u "
                    "(Axis)",
                    c->op, d->Axis, d->IndicesTensor->Sizes[d->Axis], d->Axis,
                    d->InputTensor->Sizes[d->Axis]);
    CHECK(same_sizes(c, "R-SC-5", "UpdatesTensor", d->UpdatesTensor, "IndicesTensor",
                     d->IndicesTensor->Sizes, MAX_RANK, "updates have the indices' sizes"));
    CHECK(infer_scatter_elements(c, d, 0, &rank, expected));
    CHECK(same_sizes(c, "R-SC-6", "OutputTensor", d->OutputTensor, "InputTensor", expected,
                     MAX_RANK, "the output has the input's sizes"));
    return check_output_injective(c, "OutputTensor", d->OutputTensor);
}

/* ---- GATHER_ND and GATHER_ND1 (R-GN-*) ------------------------------------
 * GATHER_ND comes here as GATHER_ND1 with BatchDimensionCount = 0 (R-GN-10,
 * the table's adapter). */

/* R-GN-2..4: the attributes against the rank D of both tensors (R-GN-1
   checked), and the tuple size k, the indices' last size. */
static dmlref_status check_gather_nd1_attributes(const rule_context *c,
                                                 const dmlref_gather_nd1_desc *d)
{
    uint32_t D = d->InputTensor->DimensionCount, m = d->InputDimensionCount,
             q = d->IndicesDimensionCount, b = d->BatchDimensionCount, k;
    if (m < 1 || m > D)
        return FAIL(c, DMLREF_ERROR_INVALID_ATTRIBUTE, "R-GN-2",
                    "%s: InputDimensionCount = %u must be between 1 and InputTensor."
                    "DimensionCount = %u",
                    c->op, m, D);
    if (q < 1 || q > D)
        return FAIL(c, DMLREF_ERROR_INVALID_ATTRIBUTE, "R-GN-2",
                    "%s: IndicesDimensionCount = %u must be between 1 and IndicesTensor."
                    "DimensionCount = %u",
                    c->op, q, D);
    if (b >= m || b >= q)
        return FAIL(c, DMLREF_ERROR_INVALID_ATTRIBUTE, "R-GN-3",
                    "%s: BatchDimensionCount = %u must be less than InputDimensionCount = %u "
                    "and IndicesDimensionCount = %u",
                    c->op, b, m, q);
    k = d->IndicesTensor->Sizes[D - 1];
    if (k < 1 || k > m - b)
        return FAIL(c, DMLREF_ERROR_SIZE_MISMATCH, "R-GN-4",
                    "%s: IndicesTensor.Sizes[%u] = %u (coordinates per tuple) must be between "
                    "1 and InputDimensionCount - BatchDimensionCount = %u",
                    c->op, D - 1, k, m - b);
    return DMLREF_OK;
}

/* R-GN-7, DirectMLX's output shape: D dimensions, {1 x padding,
   Indices.Sizes[D-q .. D-1), Input.Sizes[D-r .. D)} with r = m - b - k. */
dmlref_status infer_gather_nd1(const rule_context *c, const void *desc, uint32_t output,
                               uint32_t *dimension_count, uint32_t *sizes)
{
    const dmlref_gather_nd1_desc *d = desc;
    uint32_t D, q, r, i;
    int64_t padding;
    (void)output;
    CHECK(check_shape_given(c, "InputTensor", d->InputTensor));
    CHECK(check_shape_given(c, "IndicesTensor", d->IndicesTensor));
    CHECK(same_rank(c, "R-GN-1", "IndicesTensor", d->IndicesTensor, "InputTensor", d->InputTensor));
    CHECK(check_gather_nd1_attributes(c, d));
    D = d->InputTensor->DimensionCount;
    q = d->IndicesDimensionCount;
    r = d->InputDimensionCount - d->BatchDimensionCount - d->IndicesTensor->Sizes[D - 1];
    padding = (int64_t)D - ((int64_t)q + r - 1);
    if (padding < 0)
        return FAIL(c, DMLREF_ERROR_SIZE_MISMATCH, "R-GN-7",
                    "%s: the output needs IndicesDimensionCount - 1 + (InputDimensionCount - "
                    "BatchDimensionCount - tuple size) = %u dimensions, more than "
                    "DimensionCount = %u",
                    c->op, q - 1 + r, D);
    for (i = 0; i < (uint32_t)padding; ++i)
        sizes[i] = 1;
    for (i = 0; i + 1 < q; ++i)
        sizes[padding + i] = d->IndicesTensor->Sizes[D - q + i];
    for (i = 0; i < r; ++i)
        sizes[padding + q - 1 + i] = d->InputTensor->Sizes[D - r + i];
    *dimension_count = D;
    return DMLREF_OK;
}

dmlref_status validate_gather_nd1(const rule_context *c, const void *desc)
{
    const dmlref_gather_nd1_desc *d = desc;
    const support_row *row =
        support_at(k_gather_support, sizeof k_gather_support / sizeof *k_gather_support, c->level);
    tensor_rules data, index, out;
    uint32_t D, m, q, i, rank;
    uint32_t expected[MAX_RANK];
    char want[128], got[128];

    rules_from_row(row, "R-GN-8", 0, &data);
    rules_from_row(row, "R-GN-8", 1, &out);
    index_rules_from_row(c, row, "R-GN-8", d->IndicesTensor, &index);
    CHECK(check_tensor(c, "InputTensor", d->InputTensor, &data));
    CHECK(check_tensor(c, "IndicesTensor", d->IndicesTensor, &index));
    CHECK(check_tensor(c, "OutputTensor", d->OutputTensor, &out));

    CHECK(same_rank(c, "R-GN-1", "IndicesTensor", d->IndicesTensor, "InputTensor", d->InputTensor));
    CHECK(same_rank(c, "R-GN-1", "OutputTensor", d->OutputTensor, "InputTensor", d->InputTensor));
    CHECK(same_type(c, "R-GN-1", "OutputTensor", d->OutputTensor, "InputTensor", d->InputTensor));
    CHECK(check_gather_nd1_attributes(c, d));

    D = d->InputTensor->DimensionCount;
    m = d->InputDimensionCount;
    q = d->IndicesDimensionCount;
    /* the batch sizes may differ (R-GN-6): execution refuses only reads past
       the input */
    for (i = 0; i < D - m; ++i)
        if (d->InputTensor->Sizes[i] != 1)
            return FAIL(c, DMLREF_ERROR_SIZE_MISMATCH, "R-GN-5",
                        "%s: InputTensor.Sizes[%u] = %u must be 1 (outside "
                        "InputDimensionCount = %u)",
                        c->op, i, d->InputTensor->Sizes[i], m);
    for (i = 0; i < D - q; ++i)
        if (d->IndicesTensor->Sizes[i] != 1)
            return FAIL(c, DMLREF_ERROR_SIZE_MISMATCH, "R-GN-5",
                        "%s: IndicesTensor.Sizes[%u] = %u must be 1 (outside "
                        "IndicesDimensionCount = %u)",
                        c->op, i, d->IndicesTensor->Sizes[i], q);

    CHECK(infer_gather_nd1(c, d, 0, &rank, expected)); /* R-GN-7: it fits in D dimensions */
    for (i = 0; i < D; ++i) {
        if (d->OutputTensor->Sizes[i] != expected[i]) {
            format_sizes(expected, D, want, sizeof want);
            format_sizes(d->OutputTensor->Sizes, D, got, sizeof got);
            return FAIL(c, DMLREF_ERROR_SIZE_MISMATCH, "R-GN-7",
                        "%s: OutputTensor.Sizes[%u] = %u must be %u: the output shape is %s, "
                        "got %s",
                        c->op, i, d->OutputTensor->Sizes[i], expected[i], want, got);
        }
    }
    return check_output_injective(c, "OutputTensor", d->OutputTensor);
}

/* ---- NONZERO_COORDINATES (R-NZ-*) ---------------------------------------- */

/* DirectMLX's shapes: the count {1} (R-NZ-1), the coordinates {M, N} with M
   the input's element count (R-NZ-3) and N its DimensionCount, the largest
   R-NZ-5 allows.  Below feature level 4_0 both take the input's
   DimensionCount, padded with leading 1s (D10). */
dmlref_status infer_nonzero_coordinates(const rule_context *c, const void *desc, uint32_t output,
                                        uint32_t *dimension_count, uint32_t *sizes)
{
    const dmlref_nonzero_coordinates_desc *d = desc;
    const dmlref_tensor_desc *in = d->InputTensor;
    int same_rank_as_input = c->level < DMLREF_FEATURE_LEVEL_4_0;
    uint64_t elements = 1;
    uint32_t D, rank, i;
    char text[160];

    CHECK(check_shape_given(c, "InputTensor", in));
    D = in->DimensionCount;
    rank = same_rank_as_input ? D : output == 0 ? 1 : 2;
    if (output == 1 && rank < 2)
        return FAIL(c, DMLREF_ERROR_UNSUPPORTED_DIMENSION_COUNT, "D10",
                    "%s: below feature level 4_0 OutputCoordinatesTensor takes "
                    "InputTensor.DimensionCount = %u, too few for its sizes {M, N}",
                    c->op, D);
    for (i = 0; i < D; ++i)
        if (in->Sizes[i] == 0)
            elements = 0; /* dmlref_validate refuses it (R-TD-2); M is 0 */
    for (i = 0; i < D && elements && elements <= DMLREF_MAX_TENSOR_ELEMENTS; ++i)
        elements *= in->Sizes[i]; /* cannot overflow before it passes 2^32 - 1 */
    if (elements > DMLREF_MAX_TENSOR_ELEMENTS) {
        format_sizes(in->Sizes, D, text, sizeof text);
        return FAIL(c, DMLREF_ERROR_TENSOR_TOO_LARGE, "R-TD-13",
                    "%s: InputTensor.Sizes = %s has more than 2^32-1 elements", c->op, text);
    }
    for (i = 0; i < rank; ++i)
        sizes[i] = 1;
    if (output == 1) {
        sizes[rank - 2] = (uint32_t)elements;
        sizes[rank - 1] = D;
    }
    *dimension_count = rank;
    return DMLREF_OK;
}

dmlref_status validate_nonzero_coordinates(const rule_context *c, const void *desc)
{
    const dmlref_nonzero_coordinates_desc *d = desc;
    /* R-NZ-6: at 3_0 every tensor has 4 or 5 dimensions, and the same count
       (D10); from 4_0 input 1-8, count 1-8, coordinates 2-8. */
    int fl4 = c->level >= DMLREF_FEATURE_LEVEL_4_0;
    tensor_rules input = {TYPES_8, "R-NZ-7", 4, 5, "R-NZ-6", 0};
    tensor_rules count = {T(UINT32), "R-NZ-1", 4, 5, "R-NZ-6", 1};
    tensor_rules coords = {T(UINT32), "R-NZ-2", 4, 5, "R-NZ-6", 1};
    const dmlref_tensor_desc *in = d->InputTensor, *cn = d->OutputCountTensor,
                             *co = d->OutputCoordinatesTensor;
    uint32_t count_rank, count_sizes[MAX_RANK], coords_rank, coords_sizes[MAX_RANK];
    uint32_t D, CD, i, e, M, N;

    if (fl4) {
        input.min_rank = 1, input.max_rank = 8;
        count.min_rank = 1, count.max_rank = 8;
        coords.min_rank = 2, coords.max_rank = 8;
    }
    CHECK(check_tensor(c, "InputTensor", in, &input));
    CHECK(check_tensor(c, "OutputCountTensor", cn, &count));
    CHECK(check_tensor(c, "OutputCoordinatesTensor", co, &coords));
    if (!fl4) {
        CHECK(same_rank(c, "D10", "OutputCountTensor", cn, "InputTensor", in));
        CHECK(same_rank(c, "D10", "OutputCoordinatesTensor", co, "InputTensor", in));
    }

    /* The outputs against DirectMLX's shapes, any leading 1s allowed (D10);
       N may also be as small as the input's effective rank (R-NZ-5). */
    CHECK(infer_nonzero_coordinates(c, d, 0, &count_rank, count_sizes));
    CHECK(infer_nonzero_coordinates(c, d, 1, &coords_rank, coords_sizes));
    for (i = 0; i < cn->DimensionCount; ++i)
        if (cn->Sizes[i] != padded_size(count_sizes, count_rank, cn->DimensionCount, i))
            return FAIL(c, DMLREF_ERROR_SIZE_MISMATCH, "R-NZ-1",
                        "%s: OutputCountTensor.Sizes[%u] = %u must be 1 (the count is a scalar)",
                        c->op, i, cn->Sizes[i]);
    D = in->DimensionCount;
    CD = co->DimensionCount;
    for (i = 0; i + 2 < CD; ++i)
        if (co->Sizes[i] != padded_size(coords_sizes, coords_rank, CD, i))
            return FAIL(c, DMLREF_ERROR_SIZE_MISMATCH, "R-NZ-2",
                        "%s: OutputCoordinatesTensor.Sizes[%u] = %u must be 1 (sizes are "
                        "{1, ..., 1, M, N})",
                        c->op, i, co->Sizes[i]);
    M = co->Sizes[CD - 2];
    N = co->Sizes[CD - 1];
    if (M != coords_sizes[coords_rank - 2])
        return FAIL(c, DMLREF_ERROR_SIZE_MISMATCH, "R-NZ-3",
                    "%s: OutputCoordinatesTensor.Sizes[%u] = %u (M) must equal the number of "
                    "input elements = %llu",
                    c->op, CD - 2, M, (unsigned long long)coords_sizes[coords_rank - 2]);
    for (e = D; e > 0 && in->Sizes[D - e] == 1; --e)
        ; /* effective rank: leading ones do not count (R-NZ-4) */
    if (N < e || N > coords_sizes[coords_rank - 1])
        return FAIL(c, DMLREF_ERROR_SIZE_MISMATCH, "R-NZ-5",
                    "%s: OutputCoordinatesTensor.Sizes[%u] = %u (N) must be between the "
                    "input's effective rank %u (R-NZ-4) and InputTensor.DimensionCount = %u",
                    c->op, CD - 1, N, e, coords_sizes[coords_rank - 1]);
    CHECK(check_output_injective(c, "OutputCountTensor", cn));
    return check_output_injective(c, "OutputCoordinatesTensor", co);
}

/* ---- entry point -------------------------------------------------------- */

dmlref_status dmlref_validate(const dmlref_operator_desc *op, dmlref_feature_level feature_level,
                              dmlref_error *err)
{
    rule_context c;
    const operator_info *row;
    operator_desc_storage storage;

    if (feature_level == 0) /* none named: the latest (D19) */
        feature_level = DMLREF_FEATURE_LEVEL_LATEST;
    c.err = err;
    c.level = feature_level;
    c.op = "dmlref_validate";
    if (!op || !op->Desc)
        return FAIL(&c, DMLREF_ERROR_INVALID_ARGUMENT, "", "%s: %s is NULL", c.op,
                    op ? "op->Desc" : "op");
    if (!(row = operator_find(op->Type)))
        return FAIL(&c, DMLREF_ERROR_INVALID_ARGUMENT, "",
                    "dmlref_validate: operator type %u is not one dmlref implements",
                    (unsigned)op->Type);
    c.op = row->name;
    if (!dmlref_feature_level_name(feature_level))
        return FAIL(&c, DMLREF_ERROR_INVALID_ARGUMENT, "",
                    "%s: feature level 0x%x is not a DirectML feature level", c.op,
                    (unsigned)feature_level);
    if (feature_level < row->introduced)
        return FAIL(&c, DMLREF_ERROR_UNSUPPORTED_OPERATOR, row->introduced_rule,
                    "%s: the operator is not available at feature level %s (introduced in %s)",
                    c.op, dmlref_feature_level_name(feature_level),
                    dmlref_feature_level_name(row->introduced));
    return row->validate(&c, operator_desc_adapted(row, op->Desc, &storage));
}
