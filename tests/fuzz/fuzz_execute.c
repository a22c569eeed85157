/*
 * fuzz_execute.c - libFuzzer target: dmlref_execute_with_options() on small,
 * mostly valid operations, each tensor in a heap buffer of exactly its
 * TotalTensorSizeInBytes, so ASan catches any access outside a tensor.
 *
 * The bytes give: the operator (one of the five), a feature level (mostly the
 * latest), the policy (error or clamp) and 1..3 threads, a rank D (1..8) and
 * sizes 1..4 (all 4 if three mode bits say so: at rank 8, 65536 elements, past
 * the kernels' PARALLEL_MIN_ELEMENTS, so the parallel paths run).  The other
 * tensors' shapes follow from the operator's rules (valid-looking), unless a
 * mode bit redraws one tensor's rank, sizes and data type at random.  Each
 * tensor has a data type (any of the 11, or UNKNOWN; index types mostly the
 * four valid ones), strides (packed, explicit with a gap, column-major, or
 * anything in 0..7: broadcast inputs, aliasing outputs) and a small extra
 * over dmlref_calc_buffer_tensor_size().  Last come the inputs' bytes (zeros
 * once the fuzz bytes run out; index tensors optionally "tame", values
 * -4..4, so that the strict policy passes often).
 *
 * Checks: no crash, no UB, no out-of-bounds access, no leak; a known status
 * and a one-line message starting with the operator's name; inputs never
 * modified; on a failure no output byte written ("On any failure nothing is
 * written"); on success the same output bytes again on 2 threads; and an
 * INDEX_OUT_OF_RANGE under the strict policy runs under the clamp policy,
 * except GatherND1 indices with more batches than the input (R-GN-6), which
 * every policy refuses.
 */
#include "fuzz_util.h"

#include <stdlib.h>

#define FILL 0xA5 /* what the outputs hold before a run */

typedef struct tensor {
    dmlref_tensor_desc desc;
    uint32_t sizes[8], strides[8];
    unsigned char *data, *copy; /* copy: the input before the run, or a second output */
    uint64_t bytes;
} tensor;

/* R-GN-6: an index batch size above the input's is refused under every
   policy, the clamp policy included. */
static int batches_past_input(const dmlref_gather_nd1_desc *d)
{
    const dmlref_tensor_desc *input = d->InputTensor, *indices = d->IndicesTensor;
    uint32_t first_input = input->DimensionCount - d->InputDimensionCount,
             first_index = indices->DimensionCount - d->IndicesDimensionCount, i;
    for (i = 0; i < d->BatchDimensionCount; ++i)
        if (indices->Sizes[first_index + i] > input->Sizes[first_input + i])
            return 1;
    return 0;
}

static uint32_t dim(fuzz_bytes *b)
{
    return 1u + fb_u8(b) % 4u;
}

static void set_shape(tensor *t, dmlref_tensor_data_type type, uint32_t rank, const uint32_t *sizes)
{
    t->desc.DataType = type;
    t->desc.DimensionCount = rank;
    memcpy(t->sizes, sizes, rank * sizeof *sizes);
}

/* Strides, TotalTensorSizeInBytes and an exact buffer. */
static int finish_tensor(fuzz_bytes *b, tensor *t)
{
    uint32_t n = t->desc.DimensionCount, i, gap, packed = 1;
    switch (fb_u8(b) % 4u) {
    case 0: /* packed: NULL strides */
        break;
    case 1: /* row-major with a gap between elements */
        gap = 1u + fb_u8(b) % 3u;
        for (i = n; i-- > 0; packed *= t->sizes[i])
            t->strides[i] = packed * gap;
        t->desc.Strides = t->strides;
        break;
    case 2: /* column-major */
        for (i = 0; i < n; packed *= t->sizes[i++])
            t->strides[i] = packed;
        t->desc.Strides = t->strides;
        break;
    default: /* anything small: 0 broadcasts an input, aliases an output */
        for (i = 0; i < n; ++i)
            t->strides[i] = fb_u8(b) % 8u;
        t->desc.Strides = t->strides;
        break;
    }
    t->desc.Sizes = t->sizes;
    t->bytes = dmlref_calc_buffer_tensor_size(t->desc.DataType, n, t->sizes, t->desc.Strides) +
               fb_u8(b) % 16u;
    t->desc.TotalTensorSizeInBytes = t->bytes;
    t->data = malloc((size_t)t->bytes);
    t->copy = malloc((size_t)t->bytes);
    return t->bytes == 0 || (t->data && t->copy);
}

/* An input's bytes; an index tensor's elements "tame" (-4..4) if asked. */
static void fill_input(fuzz_bytes *b, tensor *t, int tame)
{
    uint32_t size = dmlref_data_type_size(t->desc.DataType);
    dmlref_tensor_data_type type = t->desc.DataType;
    int is_signed = type == DMLREF_TENSOR_DATA_TYPE_INT32 || type == DMLREF_TENSOR_DATA_TYPE_INT64;
    uint64_t i = 0;
    if (tame && (size == 4 || size == 8) &&
        (is_signed || type == DMLREF_TENSOR_DATA_TYPE_UINT32 ||
         type == DMLREF_TENSOR_DATA_TYPE_UINT64)) {
        for (; i + size <= t->bytes; i += size) {
            int64_t v = (int8_t)fb_u8(b) % 5;
            int32_t v32;
            if (!is_signed && v < 0)
                v = -v;
            v32 = (int32_t)v;
            memcpy(t->data + i, size == 4 ? (const void *)&v32 : (const void *)&v, size);
        }
    }
    for (; i < t->bytes; ++i)
        t->data[i] = fb_u8(b);
    memcpy(t->copy, t->data, (size_t)t->bytes);
}

static dmlref_status run(const dmlref_operator_desc *op, dmlref_feature_level level,
                         dmlref_oob_policy policy, uint32_t threads, tensor *t, size_t n_in,
                         size_t n_out, int second)
{
    dmlref_execute_options options = {policy, threads, DMLREF_KERNELS_REFERENCE};
    dmlref_binding in[3], out[2];
    dmlref_error err;
    dmlref_status status;
    size_t i;
    for (i = 0; i < n_in; ++i)
        in[i] = (dmlref_binding){t[i].data, t[i].bytes};
    for (i = 0; i < n_out; ++i) {
        unsigned char *buffer = second ? t[n_in + i].copy : t[n_in + i].data;
        memset(buffer, FILL, (size_t)t[n_in + i].bytes);
        out[i] = (dmlref_binding){buffer, t[n_in + i].bytes};
    }
    memset(&err, 0xAA, sizeof err);
    status = dmlref_execute_with_options(op, level, &options, in, n_in, out, n_out, &err);
    fuzz_check_error(status, &err, dmlref_operator_name(op->Type));
    for (i = 0; i < n_in; ++i) /* inputs are const */
        FUZZ_ASSERT(memcmp(t[i].data, t[i].copy, (size_t)t[i].bytes) == 0);
    if (status != DMLREF_OK) { /* nothing written */
        for (i = 0; i < n_out; ++i) {
            uint64_t j;
            for (j = 0; j < t[n_in + i].bytes; ++j)
                FUZZ_ASSERT(((unsigned char *)out[i].data)[j] == FILL);
        }
    }
    return status;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const dmlref_tensor_data_type index_types[4] = {
        DMLREF_TENSOR_DATA_TYPE_UINT32, DMLREF_TENSOR_DATA_TYPE_INT32,
        DMLREF_TENSOR_DATA_TYPE_UINT64, DMLREF_TENSOR_DATA_TYPE_INT64};
    static const uint32_t ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    fuzz_bytes b = {data, size};
    tensor t[4];
    dmlref_gather_nd1_desc nd1;
    union {
        dmlref_gather_elements_desc ge;
        dmlref_scatter_elements_desc sc;
        dmlref_gather_nd_desc nd;
        dmlref_nonzero_coordinates_desc nz;
    } desc;
    dmlref_operator_desc op;
    dmlref_feature_level level;
    dmlref_oob_policy policy;
    dmlref_tensor_data_type dtype, itype;
    dmlref_status status;
    uint32_t in[8], idx[8], out[8], D, i, threads, a0, a1, a2;
    size_t n_in, n_out, n, k;
    uint8_t x, mode;
    int ok = 1;

    memset(t, 0, sizeof t);
    op.Type = fuzz_ops[fb_u8(&b) % 5u];
    x = fb_u8(&b);
    level = x < 0x80 ? (dmlref_feature_level)0 : fuzz_levels[x & 15u];
    x = fb_u8(&b);
    policy = (x & 1) ? DMLREF_OOB_CLAMP : DMLREF_OOB_ERROR;
    threads = 1u + (uint32_t)(x >> 1) % 3u;
    mode = fb_u8(&b); /* bit 0: redraw one tensor; 1: tame indices; 2..4: large */
    D = 1u + fb_u8(&b) % 8u;
    dtype = (dmlref_tensor_data_type)(fb_u8(&b) % 12u);
    x = fb_u8(&b);
    itype = x < 0xC0 ? index_types[x & 3u] : (dmlref_tensor_data_type)(x % 12u);
    a0 = fb_u8(&b), a1 = fb_u8(&b), a2 = fb_u8(&b);
    for (i = 0; i < D; ++i) /* large (1 in 8, slow): all 4, rank 8 makes 65536 */
        in[i] = idx[i] = (mode & 0x1C) == 0x1C ? 4u : dim(&b);

    /* the shapes the operator's rules ask for (axis D: invalid on purpose) */
    switch (op.Type) {
    case DMLREF_OPERATOR_GATHER_ELEMENTS:
    case DMLREF_OPERATOR_SCATTER_ELEMENTS:
        a0 %= D + 1;
        if (a0 < D)
            idx[a0] = dim(&b);
        set_shape(&t[0], dtype, D, in);
        set_shape(&t[1], itype, D, idx);
        set_shape(&t[2], dtype, D, idx); /* GE's output, Scatter's updates */
        set_shape(&t[3], dtype, D, in);  /* Scatter's output */
        desc.ge = (dmlref_gather_elements_desc){&t[0].desc, &t[1].desc, &t[2].desc, a0};
        if (op.Type == DMLREF_OPERATOR_SCATTER_ELEMENTS)
            desc.sc =
                (dmlref_scatter_elements_desc){&t[0].desc, &t[1].desc, &t[2].desc, &t[3].desc, a0};
        break;
    case DMLREF_OPERATOR_GATHER_ND:
    case DMLREF_OPERATOR_GATHER_ND1: { /* m, q, b, k, r as in reference/gather_nd.c */
        uint32_t m = 1u + a0 % D, q = 1u + a1 % D, bc, kk, r, pad;
        bc = op.Type == DMLREF_OPERATOR_GATHER_ND1 ? a2 % (m < q ? m : q) : 0;
        kk = 1u + fb_u8(&b) % (m - bc);
        for (i = 0; i < D; ++i) {
            if (i < D - m)
                in[i] = 1;
            if (i < D - q)
                idx[i] = 1;
        }
        for (i = 0; i < bc; ++i)
            idx[D - q + i] = in[D - m + i];
        idx[D - 1] = kk;
        r = m - bc - kk;
        if (q - 1 + r <= D) { /* DirectMLX's output shape */
            pad = D - (q - 1 + r);
            memcpy(out, ones, sizeof out);
            memcpy(out + pad, idx + D - q, (q - 1) * sizeof *out);
            memcpy(out + pad + q - 1, in + D - r, r * sizeof *out);
        } else {
            memcpy(out, in, sizeof out); /* no shape fits: invalid */
        }
        set_shape(&t[0], dtype, D, in);
        set_shape(&t[1], itype, D, idx);
        set_shape(&t[2], dtype, D, out);
        nd1 = (dmlref_gather_nd1_desc){&t[0].desc, &t[1].desc, &t[2].desc, m, q, bc};
        desc.nd = (dmlref_gather_nd_desc){&t[0].desc, &t[1].desc, &t[2].desc, m, q};
        break;
    }
    default: { /* NONZERO_COORDINATES: count {1, ...}, coordinates {1, ..., M, N} */
        uint32_t M = 1, e = D, N, CD = D < 2 ? 2 : D;
        for (i = 0; i < D; ++i)
            M *= in[i];
        while (e > 0 && in[D - e] == 1)
            --e; /* the effective rank */
        N = e + a0 % (D - e + 1);
        N = N ? N : 1;
        memcpy(out, ones, sizeof out);
        out[CD - 2] = M, out[CD - 1] = N;
        set_shape(&t[0], dtype, D, in);
        set_shape(&t[1], DMLREF_TENSOR_DATA_TYPE_UINT32, D, ones);
        set_shape(&t[2], DMLREF_TENSOR_DATA_TYPE_UINT32, CD, out);
        desc.nz = (dmlref_nonzero_coordinates_desc){&t[0].desc, &t[1].desc, &t[2].desc};
        break;
    }
    }
    op.Desc = op.Type == DMLREF_OPERATOR_GATHER_ND1 ? (const void *)&nd1 : (const void *)&desc;
    n_in = op.Type == DMLREF_OPERATOR_SCATTER_ELEMENTS      ? 3
           : op.Type == DMLREF_OPERATOR_NONZERO_COORDINATES ? 1
                                                            : 2;
    n_out = op.Type == DMLREF_OPERATOR_NONZERO_COORDINATES ? 2 : 1;
    n = n_in + n_out;

    if (mode & 1) { /* one tensor off the rules: any rank 1..8, sizes, type */
        tensor *odd = &t[fb_u8(&b) % n];
        odd->desc.DimensionCount = 1u + fb_u8(&b) % 8u;
        for (i = 0; i < odd->desc.DimensionCount; ++i)
            odd->sizes[i] = dim(&b);
        odd->desc.DataType = (dmlref_tensor_data_type)(fb_u8(&b) % 12u);
    }
    for (k = 0; k < n; ++k)
        ok &= finish_tensor(&b, &t[k]);
    if (ok) {
        for (k = 0; k < n_in; ++k)
            fill_input(&b, &t[k], (mode & 2) && k == 1);
        status = run(&op, level, policy, threads, t, n_in, n_out, 0);
        if (status == DMLREF_OK || status == DMLREF_ERROR_INDEX_OUT_OF_RANGE) {
            /* again on 2 threads (clamped if the strict run found a bad index) */
            dmlref_status again = run(&op, level, status == DMLREF_OK ? policy : DMLREF_OOB_CLAMP,
                                      2, t, n_in, n_out, 1);
            FUZZ_ASSERT(again == DMLREF_OK ||
                        (again == DMLREF_ERROR_INDEX_OUT_OF_RANGE &&
                         op.Type == DMLREF_OPERATOR_GATHER_ND1 && batches_past_input(&nd1)));
            for (k = n_in; status == DMLREF_OK && k < n; ++k)
                FUZZ_ASSERT(memcmp(t[k].data, t[k].copy, (size_t)t[k].bytes) == 0);
        }
    }
    for (k = 0; k < 4; ++k) {
        free(t[k].data);
        free(t[k].copy);
    }
    return 0;
}
