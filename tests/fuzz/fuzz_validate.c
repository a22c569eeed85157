/*
 * fuzz_validate.c - libFuzzer target: dmlref_validate() and
 * dmlref_calc_buffer_tensor_size() on arbitrary descriptors.
 *
 * The bytes describe an operator descriptor of any type (the five, unknown
 * values, a NULL op or Desc), four tensor descriptors (any DataType;
 * DimensionCount 0..9; Sizes and Strides arrays of exactly DimensionCount
 * entries on the heap, so ASan sees any read past them, or NULL; sizes and
 * strides including 0 and 2^32-1; TotalTensorSizeInBytes up to 2^64-1; any
 * Flags and GuaranteedBaseOffsetAlignment; sometimes a NULL tensor), the
 * attributes, and a feature level (any uint32).  A tensor may copy the
 * previous one's shape, so the rules relating tensors are reached too.
 *
 * Checks: no crash, no UB; the status is DMLREF_OK or a known error, the same
 * with err and without; a failure's message is one NUL-terminated line that
 * starts with the operator's name when the type is known (and Desc is not
 * NULL); NULL pointers, unknown operators and levels are INVALID_ARGUMENT; a
 * valid operation's tensors hold at least DMLCalcBufferTensorSize bytes; and
 * dmlref_calc_buffer_tensor_size() equals an independent overflow-checked
 * evaluation of its documented formula.
 */
#include "fuzz_util.h"

#include <stdlib.h>

typedef struct fuzz_tensor {
    dmlref_tensor_desc desc;
    uint32_t *sizes, *strides; /* heap, exactly DimensionCount entries */
    int is_null;               /* pass NULL instead of &desc */
} fuzz_tensor;

/* Bytes per element of each DML_TENSOR_DATA_TYPE dmlref knows (0: UNKNOWN). */
static const uint32_t element_size[12] = {0, 4, 2, 4, 2, 1, 4, 2, 1, 8, 8, 8};

/* DMLCalcBufferTensorSize as include/dmlref.h documents it, computed here
 * independently with the compiler's overflow-checking builtins. */
static uint64_t model_size(uint32_t type, uint32_t n, const uint32_t *sizes,
                           const uint32_t *strides)
{
    uint64_t elements = 1, bytes, term, last = 0;
    uint32_t i;
    if (type >= 12 || element_size[type] == 0 || n < 1 || n > 8 || !sizes)
        return 0;
    for (i = 0; i < n; ++i)
        if (sizes[i] == 0)
            return 0;
    for (i = 0; i < n; ++i) {
        if (strides ? __builtin_mul_overflow((uint64_t)sizes[i] - 1, (uint64_t)strides[i], &term) ||
                          __builtin_add_overflow(last, term, &last)
                    : __builtin_mul_overflow(elements, (uint64_t)sizes[i], &elements))
            return 0;
    }
    if ((strides && __builtin_add_overflow(last, (uint64_t)1, &elements)) ||
        __builtin_mul_overflow(elements, (uint64_t)element_size[type], &bytes) ||
        __builtin_add_overflow(bytes, (uint64_t)3, &bytes))
        return 0;
    return bytes & ~(uint64_t)3;
}

static void make_tensor(fuzz_bytes *b, fuzz_tensor *t, const fuzz_tensor *previous)
{
    static const uint32_t alignments[8] = {0, 1, 2, 4, 8, 16, 3, 6};
    uint8_t mode = fb_u8(b), x;
    int copy = (mode & 0x10) && previous && previous->sizes;
    uint32_t n = copy ? previous->desc.DimensionCount : fb_u8(b) % 10u, i;
    uint64_t minimum;

    t->is_null = mode == 0x5A;
    t->desc.DataType = (dmlref_tensor_data_type)((mode & 0x80) ? fb_u32(b) : fb_u8(b) % 14u);
    t->desc.DimensionCount = n;
    t->sizes = mode == 0x42 ? NULL : malloc(n * sizeof *t->sizes);
    t->strides = (mode & 1) ? malloc(n * sizeof *t->strides) : NULL;
    for (i = 0; t->sizes && i < n; ++i)
        t->sizes[i] = copy ? previous->sizes[i] : fb_value32(b);
    if (copy && (mode & 0x20) && n > 0 && t->sizes) /* the copy, one dimension off */
        t->sizes[fb_u8(b) % n] = fb_value32(b);
    for (i = 0; t->strides && i < n; ++i)
        t->strides[i] = fb_value32(b);
    t->desc.Sizes = t->sizes;
    t->desc.Strides = t->strides;

    minimum = dmlref_calc_buffer_tensor_size(t->desc.DataType, n, t->sizes, t->strides);
    switch (fb_u8(b) % 8u) {
    case 0:
    case 1:
        t->desc.TotalTensorSizeInBytes = minimum;
        break;
    case 2:
        t->desc.TotalTensorSizeInBytes = minimum + (fb_u8(b) & 15u);
        break;
    case 3:
        t->desc.TotalTensorSizeInBytes = minimum - 1;
        break; /* 2^64-1 when 0 */
    case 4:
        t->desc.TotalTensorSizeInBytes = 0;
        break;
    case 5:
        t->desc.TotalTensorSizeInBytes = UINT64_MAX;
        break;
    case 6:
        t->desc.TotalTensorSizeInBytes = fb_u64(b);
        break;
    default:
        t->desc.TotalTensorSizeInBytes = fb_u32(b);
        break;
    }
    x = fb_u8(b);
    t->desc.Flags = x < 0xC0 ? x & 3u : fb_u32(b);
    x = fb_u8(b);
    t->desc.GuaranteedBaseOffsetAlignment = x < 0xC0 ? alignments[x & 7u] : fb_u32(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_bytes b = {data, size};
    fuzz_tensor t[4];
    const dmlref_tensor_desc *p[4];
    union {
        dmlref_gather_elements_desc ge;
        dmlref_scatter_elements_desc sc;
        dmlref_gather_nd_desc nd;
        dmlref_gather_nd1_desc nd1;
        dmlref_nonzero_coordinates_desc nz;
    } desc;
    dmlref_operator_desc op, *op_ptr = &op;
    dmlref_feature_level level;
    dmlref_error err;
    dmlref_status status;
    uint32_t type, attr[3], i;
    const char *name;
    uint8_t first = fb_u8(&b), x;

    /* the operator: mostly the five; 0xFD a NULL op, 0xFE a NULL Desc, 0xFF
       any uint32, other values unknown types */
    type = first < 0xF0 ? (uint32_t)fuzz_ops[first % 5u] : first == 0xFF ? fb_u32(&b) : first;
    if (first == 0xFE)
        type = DMLREF_OPERATOR_GATHER_ELEMENTS;
    x = fb_u8(&b);
    level = x < 0xF0 ? fuzz_levels[x & 15u] : (dmlref_feature_level)fb_u32(&b);
    for (i = 0; i < 3; ++i)
        attr[i] = fb_value32(&b);
    for (i = 0; i < 4; ++i) {
        make_tensor(&b, &t[i], i ? &t[i - 1] : NULL);
        p[i] = t[i].is_null ? NULL : &t[i].desc;
    }

    memset(&desc, 0, sizeof desc);
    switch (type) {
    case DMLREF_OPERATOR_GATHER_ELEMENTS:
        desc.ge = (dmlref_gather_elements_desc){p[0], p[1], p[2], attr[0]};
        break;
    case DMLREF_OPERATOR_SCATTER_ELEMENTS:
        desc.sc = (dmlref_scatter_elements_desc){p[0], p[1], p[2], p[3], attr[0]};
        break;
    case DMLREF_OPERATOR_GATHER_ND:
        desc.nd = (dmlref_gather_nd_desc){p[0], p[1], p[2], attr[0], attr[1]};
        break;
    case DMLREF_OPERATOR_GATHER_ND1:
        desc.nd1 = (dmlref_gather_nd1_desc){p[0], p[1], p[2], attr[0], attr[1], attr[2]};
        break;
    default: /* NONZERO_COORDINATES, and what an unknown type would point to */
        desc.nz = (dmlref_nonzero_coordinates_desc){p[0], p[1], p[2]};
        break;
    }
    op.Type = (dmlref_operator_type)type;
    op.Desc = first == 0xFE ? NULL : &desc;
    if (first == 0xFD)
        op_ptr = NULL;

    memset(&err, 0xAA, sizeof err); /* garbage: an unterminated message shows */
    status = dmlref_validate(op_ptr, level, &err);
    name = op_ptr && op_ptr->Desc ? dmlref_operator_name(op.Type) : NULL;
    fuzz_check_error(status, &err, name);
    FUZZ_ASSERT(dmlref_validate(op_ptr, level, NULL) == status);
    if (!name || (level != 0 && !dmlref_feature_level_name(level)))
        FUZZ_ASSERT(status == DMLREF_ERROR_INVALID_ARGUMENT);
    if (status == DMLREF_OK) /* every tensor the operator has passed the model */
        for (i = 0; i < (type == DMLREF_OPERATOR_SCATTER_ELEMENTS ? 4u : 3u); ++i)
            FUZZ_ASSERT(
                p[i] && p[i]->DimensionCount >= 1 && p[i]->DimensionCount <= 8 &&
                p[i]->TotalTensorSizeInBytes >=
                    model_size(p[i]->DataType, p[i]->DimensionCount, p[i]->Sizes, p[i]->Strides) &&
                model_size(p[i]->DataType, p[i]->DimensionCount, p[i]->Sizes, p[i]->Strides) != 0);

    for (i = 0; i < 4; ++i) {
        const dmlref_tensor_desc *d = &t[i].desc;
        uint32_t ty = (uint32_t)d->DataType;
        FUZZ_ASSERT(dmlref_data_type_size(d->DataType) == (ty < 12 ? element_size[ty] : 0));
        FUZZ_ASSERT(
            dmlref_calc_buffer_tensor_size(d->DataType, d->DimensionCount, d->Sizes, d->Strides) ==
            model_size(ty, d->DimensionCount, d->Sizes, d->Strides));
        free(t[i].sizes);
        free(t[i].strides);
    }
    return 0;
}
