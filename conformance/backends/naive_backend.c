/*
 * naive_backend.c - a `dmlref check` plug-in with its own, plain
 * implementation of the five operators, and the faulty variants that prove
 * the harness catches each kind of bug.
 *
 * The computation shares no code with src/ or reference/: every tensor is
 * read and written through its own strides, one element at a time;
 * coordinates come from the logical (row-major) position by division, and
 * an element's offset is the dot product of its coordinates with the
 * strides.  Elements move as raw 1, 2, 4 or 8 byte values.  Indices are
 * decoded per type, signed ones counted from the end when negative.  Scatter
 * copies Input to Output, then applies the updates in row-major order (the
 * last one wins).  NonZero tests floats with the sign bit masked off (+0 and
 * -0 are zero, NaN is not), writes the last N coordinates of each non-zero
 * element (right-aligned columns), leaves the rows past the count untouched,
 * and writes the count as a UINT32.  Every index is checked before anything
 * is written; an out-of-range one refuses the execution with
 * DMLREF_ERROR_INDEX_OUT_OF_RANGE.
 *
 * Validation of the descriptors is dmlref_validate() from the library (the
 * rules of docs/rules.md are long, and the harness is not testing them
 * here); the bindings are checked here.
 *
 * Faulty variants
 *   Built from this file with -DFAULT=FAULT_<NAME> (conformance/backends/
 *   build.sh builds every one as faulty_<name>.so).  Each is ONE bug, in an
 *   `#if FAULT == FAULT_<NAME>` block next to the correct code, with a
 *   comment saying how a driver engineer would have written it.  Without
 *   FAULT (or with FAULT_NONE) the backend is correct.  What `dmlref check`
 *   reports for each over vectors/ is pinned in conformance/backends/EXPECTED
 *   (tests/cli/test_backends.sh):
 *
 *   IGNORES_STRIDES            packed offsets for every tensor: strided,
 *                              padded, permuted, broadcast layouts fail
 *   NO_NEGATIVE_INDICES        negative indices read element 0, not s+v
 *   UNSIGNED_READ_AS_SIGNED    UINT32 >= 2^31 / UINT64 >= 2^63 wrap to
 *                              negative indices; every such value is out of
 *                              range: the R-IX-3 clamp vectors would catch a
 *                              clamping backend, but this one refuses them,
 *                              and an accepted strict one is unspecified
 *                              (R-IX-5): a control that passes, with skips
 *   NEGATIVE_ZERO_COUNTED      NonZero counts -0.0 as non-zero
 *   NAN_PAYLOAD_LOST           FLOAT32 copies quiet signalling NaNs, FLOAT16
 *                              copies turn every NaN into 0x7E00
 *   NONZERO_LEFT_ALIGNED       NonZero with N < D writes the first N
 *                              coordinates instead of the last N
 *   SCATTER_NO_INPUT_COPY      Scatter's untargeted elements come out 0
 *   GATHER_ND1_BATCH_OFFSET    GatherND1 reads every batch from batch 0
 *   FLOAT16_AS_4_BYTES         half elements stored as 4 bytes: clobbers the
 *                              next element, or writes past the output
 *   WRITES_PAST_OUTPUT         one element stored after the last element
 *   WRITES_INTO_INPUT          Scatter applies its updates to InputTensor
 *   CRASHES_ON_RANK_8          a NULL write (SIGSEGV) at DimensionCount 8
 *   HANGS_ON_SCATTER_DUPLICATES  spins forever on a duplicate Scatter target
 *   SCATTER_FIRST_WINS         not a bug: the first duplicate update wins
 *                              (the vectors allow any_of), a control
 *   OFF_BY_ONE_AXIS            GatherElements/Scatter work along Axis - 1
 *   NONZERO_COUNT_OFF_BY_ONE   NonZero reports count - 1
 *   SKIPS_VALIDATION           supports() accepts every description and
 *                              execute() computes without validating: every
 *                              must-refuse case is accepted (or crashes)
 *   NONZERO_FLUSHES_SUBNORMALS NonZero counts float subnormals as zero, as a
 *                              GPU in flush-to-zero mode does: R-NZ-10 allows
 *                              it, a control that passes with the variant
 *   COPY_FLUSHES_SUBNORMALS    the gathers and Scatter flush float
 *                              subnormals to zero: the copies must be exact
 *   MINUS_S_OUT_OF_RANGE       a signed index of exactly -s is refused as out
 *                              of range instead of meaning element 0
 */
#include "dmlref/backend.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- fault selection ---------------------------------------------------- */

/* Numbered from 1: a misspelt -DFAULT=FAULT_TYPO reads as 0 in #if and is
 * refused below instead of silently building the correct backend. */
#define FAULT_NONE 1
#define FAULT_IGNORES_STRIDES 2              /* packed offsets for every tensor */
#define FAULT_NO_NEGATIVE_INDICES 3          /* -1 is not s-1 */
#define FAULT_UNSIGNED_READ_AS_SIGNED 4      /* UINT32/UINT64 indices sign-extended */
#define FAULT_NEGATIVE_ZERO_COUNTED 5        /* NonZero: -0.0 is non-zero */
#define FAULT_NAN_PAYLOAD_LOST 6             /* floats copied as floats */
#define FAULT_NONZERO_LEFT_ALIGNED 7         /* NonZero: the first N dims */
#define FAULT_SCATTER_NO_INPUT_COPY 8        /* Scatter output starts zeroed */
#define FAULT_GATHER_ND1_BATCH_OFFSET 9      /* GatherND1: batch offset lost */
#define FAULT_FLOAT16_AS_4_BYTES 10          /* half elements moved as 4 bytes */
#define FAULT_WRITES_PAST_OUTPUT 11          /* one element past the last */
#define FAULT_WRITES_INTO_INPUT 12           /* Scatter in place on InputTensor */
#define FAULT_CRASHES_ON_RANK_8 13           /* NULL scratch buffer at rank 8 */
#define FAULT_HANGS_ON_SCATTER_DUPLICATES 14 /* spins on a duplicate target */
#define FAULT_SCATTER_FIRST_WINS 15          /* negative control: must pass */
#define FAULT_OFF_BY_ONE_AXIS 16             /* GatherElements/Scatter on Axis-1 */
#define FAULT_NONZERO_COUNT_OFF_BY_ONE 17    /* NonZero: count is the last row */
#define FAULT_SKIPS_VALIDATION 18            /* accepts every description */
#define FAULT_NONZERO_FLUSHES_SUBNORMALS 19  /* control: R-NZ-10 allows it */
#define FAULT_COPY_FLUSHES_SUBNORMALS 20     /* gathers/Scatter flush subnormals */
#define FAULT_MINUS_S_OUT_OF_RANGE 21        /* -s refused */

#ifndef FAULT
#define FAULT FAULT_NONE
#endif
#if FAULT < FAULT_NONE || FAULT > FAULT_MINUS_S_OUT_OF_RANGE
#error "FAULT must be one of the FAULT_* names of naive_backend.c"
#endif

#if FAULT == FAULT_NONE
#define BACKEND_NAME "dmlref-naive"
#elif FAULT == FAULT_IGNORES_STRIDES
#define BACKEND_NAME "dmlref-naive-faulty-ignores_strides"
#elif FAULT == FAULT_NO_NEGATIVE_INDICES
#define BACKEND_NAME "dmlref-naive-faulty-no_negative_indices"
#elif FAULT == FAULT_UNSIGNED_READ_AS_SIGNED
#define BACKEND_NAME "dmlref-naive-faulty-unsigned_read_as_signed"
#elif FAULT == FAULT_NEGATIVE_ZERO_COUNTED
#define BACKEND_NAME "dmlref-naive-faulty-negative_zero_counted"
#elif FAULT == FAULT_NAN_PAYLOAD_LOST
#define BACKEND_NAME "dmlref-naive-faulty-nan_payload_lost"
#elif FAULT == FAULT_NONZERO_LEFT_ALIGNED
#define BACKEND_NAME "dmlref-naive-faulty-nonzero_left_aligned"
#elif FAULT == FAULT_SCATTER_NO_INPUT_COPY
#define BACKEND_NAME "dmlref-naive-faulty-scatter_no_input_copy"
#elif FAULT == FAULT_GATHER_ND1_BATCH_OFFSET
#define BACKEND_NAME "dmlref-naive-faulty-gather_nd1_batch_offset"
#elif FAULT == FAULT_FLOAT16_AS_4_BYTES
#define BACKEND_NAME "dmlref-naive-faulty-float16_as_4_bytes"
#elif FAULT == FAULT_WRITES_PAST_OUTPUT
#define BACKEND_NAME "dmlref-naive-faulty-writes_past_output"
#elif FAULT == FAULT_WRITES_INTO_INPUT
#define BACKEND_NAME "dmlref-naive-faulty-writes_into_input"
#elif FAULT == FAULT_CRASHES_ON_RANK_8
#define BACKEND_NAME "dmlref-naive-faulty-crashes_on_rank_8"
#elif FAULT == FAULT_HANGS_ON_SCATTER_DUPLICATES
#define BACKEND_NAME "dmlref-naive-faulty-hangs_on_scatter_duplicates"
#elif FAULT == FAULT_SCATTER_FIRST_WINS
#define BACKEND_NAME "dmlref-naive-faulty-scatter_first_wins"
#elif FAULT == FAULT_OFF_BY_ONE_AXIS
#define BACKEND_NAME "dmlref-naive-faulty-off_by_one_axis"
#elif FAULT == FAULT_NONZERO_COUNT_OFF_BY_ONE
#define BACKEND_NAME "dmlref-naive-faulty-nonzero_count_off_by_one"
#elif FAULT == FAULT_SKIPS_VALIDATION
#define BACKEND_NAME "dmlref-naive-faulty-skips_validation"
#elif FAULT == FAULT_NONZERO_FLUSHES_SUBNORMALS
#define BACKEND_NAME "dmlref-naive-faulty-nonzero_flushes_subnormals"
#elif FAULT == FAULT_COPY_FLUSHES_SUBNORMALS
#define BACKEND_NAME "dmlref-naive-faulty-copy_flushes_subnormals"
#elif FAULT == FAULT_MINUS_S_OUT_OF_RANGE
#define BACKEND_NAME "dmlref-naive-faulty-minus_s_out_of_range"
#endif

#define MAX_DIMS 8

DMLREF_BACKEND_EXPORT const dmlref_backend_v1 *dmlref_backend_entry(uint32_t abi_version);

/* ---- messages ------------------------------------------------------------ */

typedef struct sink {
    char *text;
    size_t capacity;
} sink;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static dmlref_status
fail(const sink *out, dmlref_status status, const char *format, ...)
{
    if (out->text && out->capacity > 0) {
        va_list ap;
        va_start(ap, format);
        vsnprintf(out->text, out->capacity, format, ap);
        va_end(ap);
    }
    return status;
}

/* ---- the context ---------------------------------------------------------- */

typedef struct naive_context {
    /* Per-rank workspace (a coordinate's worth, cleared before each run),
       set up by create() for ranks 1..8: the crash-on-rank-8 variant leaves
       rank 8's NULL. */
    unsigned char *scratch[MAX_DIMS + 1];
    unsigned char storage[MAX_DIMS + 1][8 * MAX_DIMS];
} naive_context;

/* ---- tensors ---------------------------------------------------------------- */

static uint32_t element_size(dmlref_tensor_data_type type)
{
    switch (type) {
    case DMLREF_TENSOR_DATA_TYPE_UINT8:
    case DMLREF_TENSOR_DATA_TYPE_INT8:
        return 1;
    case DMLREF_TENSOR_DATA_TYPE_FLOAT16:
    case DMLREF_TENSOR_DATA_TYPE_UINT16:
    case DMLREF_TENSOR_DATA_TYPE_INT16:
        return 2;
    case DMLREF_TENSOR_DATA_TYPE_FLOAT32:
    case DMLREF_TENSOR_DATA_TYPE_UINT32:
    case DMLREF_TENSOR_DATA_TYPE_INT32:
        return 4;
    case DMLREF_TENSOR_DATA_TYPE_FLOAT64:
    case DMLREF_TENSOR_DATA_TYPE_UINT64:
    case DMLREF_TENSOR_DATA_TYPE_INT64:
        return 8;
    default:
        return 0;
    }
}

/* A tensor as this backend sees it: sizes, element strides, element size. */
typedef struct tensor {
    dmlref_tensor_data_type type;
    uint32_t rank;
    uint32_t esize;
    uint64_t sizes[MAX_DIMS];
    uint64_t strides[MAX_DIMS];
    uint64_t count; /* product of sizes */
    unsigned char *data;
} tensor;

static void tensor_init(tensor *t, const dmlref_tensor_desc *desc, void *data)
{
    uint32_t i;
    uint64_t packed = 1;
    t->type = desc->DataType;
    t->rank = desc->DimensionCount;
    t->esize = element_size(desc->DataType);
    t->data = data;
    t->count = 1;
    for (i = 0; i < t->rank; ++i) {
        t->sizes[i] = desc->Sizes[i];
        t->count *= t->sizes[i];
    }
    for (i = t->rank; i-- > 0;) {
#if FAULT == FAULT_IGNORES_STRIDES
        /* BUG: the driver builds its shader constants from the sizes alone,
           "DirectML tensors are packed", and never reads desc->Strides. */
        t->strides[i] = packed;
#else
        t->strides[i] = desc->Strides ? desc->Strides[i] : packed;
#endif
        packed *= t->sizes[i];
    }
}

/* The logical coordinates of row-major position `pos` within `sizes`. */
static void unflatten(uint64_t pos, uint32_t rank, const uint64_t *sizes, uint64_t *coord)
{
    uint32_t i;
    for (i = rank; i-- > 0;) {
        coord[i] = pos % sizes[i];
        pos /= sizes[i];
    }
}

#if FAULT == FAULT_HANGS_ON_SCATTER_DUPLICATES || FAULT == FAULT_SCATTER_FIRST_WINS
/* The row-major position of `coord` within `sizes`. */
static uint64_t flatten(const uint64_t *coord, uint32_t rank, const uint64_t *sizes)
{
    uint64_t pos = 0;
    uint32_t i;
    for (i = 0; i < rank; ++i)
        pos = pos * sizes[i] + coord[i];
    return pos;
}
#endif

/* The element offset of `coord`: its dot product with the strides. */
static uint64_t offset_of(const tensor *t, const uint64_t *coord)
{
    uint64_t offset = 0;
    uint32_t i;
    for (i = 0; i < t->rank; ++i)
        offset += coord[i] * t->strides[i];
    return offset;
}

static unsigned char *element_at(const tensor *t, const uint64_t *coord)
{
    return t->data + offset_of(t, coord) * t->esize;
}

static void format_coord(char *buf, size_t capacity, uint32_t rank, const uint64_t *coord)
{
    size_t used = 0;
    uint32_t i;
    buf[0] = '\0';
    for (i = 0; i < rank && used + 24 < capacity; ++i)
        used += (size_t)sprintf(buf + used, "%s%llu", i ? ", " : "", (unsigned long long)coord[i]);
}

/* ---- elements ------------------------------------------------------------- */

#if FAULT == FAULT_NAN_PAYLOAD_LOST
/* Exact FLOAT16 -> FLOAT32 (NaN payloads kept, as f16tof32 does). */
static uint32_t half_to_float_bits(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exponent = (h >> 10) & 0x1Fu,
             mantissa = h & 0x3FFu;
    int e;
    if (exponent == 0x1F)
        return sign | 0x7F800000u | (mantissa << 13);
    if (exponent == 0) {
        if (mantissa == 0)
            return sign;
        e = -14; /* subnormal: normalise */
        while (!(mantissa & 0x400u)) {
            mantissa <<= 1;
            --e;
        }
        return sign | ((uint32_t)(e + 127) << 23) | ((mantissa & 0x3FFu) << 13);
    }
    return sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
}

/* FLOAT32 -> FLOAT16, exact for every value a FLOAT16 holds; any NaN becomes
   the canonical quiet NaN 0x7E00, as GPU conversion instructions do. */
static uint16_t float_bits_to_half(uint32_t f)
{
    uint16_t sign = (uint16_t)((f >> 16) & 0x8000u);
    uint32_t exponent = (f >> 23) & 0xFFu, mantissa = f & 0x7FFFFFu;
    int e = (int)exponent - 127;
    if (exponent == 0xFF)
        return mantissa ? (uint16_t)0x7E00u : (uint16_t)(sign | 0x7C00u);
    if (exponent == 0)
        return sign; /* zero (no FLOAT16 value is a FLOAT32 subnormal) */
    if (e >= -14)
        return (uint16_t)(sign | ((uint32_t)(e + 15) << 10) | (mantissa >> 13));
    return (uint16_t)(sign | ((mantissa | 0x800000u) >> (-1 - e)));
}
#endif

#if FAULT == FAULT_NONZERO_FLUSHES_SUBNORMALS || FAULT == FAULT_COPY_FLUSHES_SUBNORMALS
/* 1 when a float element is subnormal (exponent bits all 0, mantissa not). */
static int is_subnormal(dmlref_tensor_data_type type, const unsigned char *p)
{
    if (type == DMLREF_TENSOR_DATA_TYPE_FLOAT16) {
        uint16_t h;
        memcpy(&h, p, 2);
        return (h & 0x7C00u) == 0 && (h & 0x03FFu) != 0;
    }
    if (type == DMLREF_TENSOR_DATA_TYPE_FLOAT32) {
        uint32_t f;
        memcpy(&f, p, 4);
        return (f & 0x7F800000u) == 0 && (f & 0x007FFFFFu) != 0;
    }
    if (type == DMLREF_TENSOR_DATA_TYPE_FLOAT64) {
        uint64_t d;
        memcpy(&d, p, 8);
        return (d & 0x7FF0000000000000u) == 0 && (d & 0x000FFFFFFFFFFFFFu) != 0;
    }
    return 0;
}
#endif

/* Copies one element's bytes. */
static void copy_element(dmlref_tensor_data_type type, unsigned char *dst, const unsigned char *src)
{
#if FAULT == FAULT_NAN_PAYLOAD_LOST
    /* BUG: the copy goes through the shader's float registers ("it's a
       float tensor, load it as float"): FLOAT32 makes a round trip through
       double (converting a signalling NaN sets its quiet bit), FLOAT16 goes
       through f16tof32/f32tof16, which turns every NaN into 0x7E00. */
    if (type == DMLREF_TENSOR_DATA_TYPE_FLOAT32) {
        float f;
        volatile double wide;
        memcpy(&f, src, 4);
        wide = f;
        f = (float)wide;
        memcpy(dst, &f, 4);
        return;
    }
    if (type == DMLREF_TENSOR_DATA_TYPE_FLOAT16) {
        uint16_t h;
        memcpy(&h, src, 2);
        h = float_bits_to_half(half_to_float_bits(h));
        memcpy(dst, &h, 2);
        return;
    }
#endif
#if FAULT == FAULT_COPY_FLUSHES_SUBNORMALS
    /* BUG: the shader runs with denormals flushed and moves float elements
       through float registers: a subnormal arrives as a zero of its sign. */
    if (is_subnormal(type, src)) {
        size_t size = element_size(type);
        memset(dst, 0, size);
        dst[size - 1] = src[size - 1] & 0x80u; /* the sign, little-endian */
        return;
    }
#endif
#if FAULT == FAULT_FLOAT16_AS_4_BYTES
    /* BUG: the copy picks its load/store width from "is it a float type",
       so 2-byte halves move as 32-bit words: each store also clobbers the
       next element's bytes (or the 2 bytes past the tensor's last one). */
    if (type == DMLREF_TENSOR_DATA_TYPE_FLOAT16) {
        memcpy(dst, src, 4);
        return;
    }
#endif
    switch (element_size(type)) {
    case 1: {
        uint8_t v;
        memcpy(&v, src, 1);
        memcpy(dst, &v, 1);
        break;
    }
    case 2: {
        uint16_t v;
        memcpy(&v, src, 2);
        memcpy(dst, &v, 2);
        break;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, src, 4);
        memcpy(dst, &v, 4);
        break;
    }
    default: {
        uint64_t v;
        memcpy(&v, src, 8);
        memcpy(dst, &v, 8);
        break;
    }
    }
}

/* 1 when the element is not numerically zero. */
static int is_nonzero(dmlref_tensor_data_type type, const unsigned char *p)
{
#if FAULT == FAULT_NONZERO_FLUSHES_SUBNORMALS
    /* Not a bug: the comparison runs with denormals flushed to zero, which
       Direct3D's float rules allow (R-NZ-10); the vectors state the variant. */
    if (is_subnormal(type, p))
        return 0;
#endif
    switch (type) {
    case DMLREF_TENSOR_DATA_TYPE_FLOAT32: {
        uint32_t bits;
        memcpy(&bits, p, 4);
#if FAULT == FAULT_NEGATIVE_ZERO_COUNTED
        /* BUG: "zero means all bits clear", the integer test reused for
           floats: -0.0 (0x80000000) counts as non-zero. */
        return bits != 0;
#else
        return (bits & 0x7FFFFFFFu) != 0; /* +0 and -0 are zero; NaN is not */
#endif
    }
    case DMLREF_TENSOR_DATA_TYPE_FLOAT16: {
        uint16_t bits;
        memcpy(&bits, p, 2);
#if FAULT == FAULT_NEGATIVE_ZERO_COUNTED
        return bits != 0; /* BUG: as for FLOAT32, -0.0 (0x8000) counts */
#else
        return (bits & 0x7FFFu) != 0;
#endif
    }
    case DMLREF_TENSOR_DATA_TYPE_UINT32:
    case DMLREF_TENSOR_DATA_TYPE_INT32: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v != 0;
    }
    case DMLREF_TENSOR_DATA_TYPE_UINT16:
    case DMLREF_TENSOR_DATA_TYPE_INT16: {
        uint16_t v;
        memcpy(&v, p, 2);
        return v != 0;
    }
    default: /* UINT8, INT8 */
        return p[0] != 0;
    }
}

/* ---- indices ---------------------------------------------------------------- */

/* A signed index against a dimension of size `bound`: -bound..bound-1, the
   negative ones counting from the end. */
static int signed_index(int64_t v, uint64_t bound, uint64_t *out)
{
    if (v < 0) {
        uint64_t magnitude = (uint64_t)(-(v + 1)) + 1; /* no overflow at INT64_MIN */
#if FAULT == FAULT_MINUS_S_OUT_OF_RANGE
        /* BUG: the range check was written as -s < v < s, so -s, which
           means element 0, is refused. */
        if (magnitude >= bound)
            return 0;
#else
        if (magnitude > bound)
            return 0;
#endif
#if FAULT == FAULT_NO_NEGATIVE_INDICES
        /* BUG: the range check was written from the documentation, but the
           kernel uses the raw value as the coordinate, and the GPU's
           bounds clamp (robust buffer access) turns every negative
           coordinate into 0: -1 reads element 0, not element s-1. */
        *out = 0;
#else
        *out = bound - magnitude;
#endif
        return 1;
    }
    if ((uint64_t)v >= bound)
        return 0;
    *out = (uint64_t)v;
    return 1;
}

/* Reads the index at element offset `offset` of `idx` and normalises it
   against `bound`.  Returns 0 when it is out of range; *raw gets the value
   as text for messages. */
static int read_index(const tensor *idx, uint64_t offset, uint64_t bound, uint64_t *out, char *raw,
                      size_t raw_capacity)
{
    const unsigned char *p = idx->data + offset * idx->esize;
    switch (idx->type) {
    case DMLREF_TENSOR_DATA_TYPE_UINT32: {
#if FAULT == FAULT_UNSIGNED_READ_AS_SIGNED
        /* BUG: one index loader for INT32 and UINT32 ("both are 32-bit"),
           so 0x80000000..0xFFFFFFFF read as negative and wrap around:
           UINT32 0xFFFFFFFF becomes -1, the last element, instead of being
           out of range. */
        int32_t v;
        memcpy(&v, p, 4);
        snprintf(raw, raw_capacity, "%ld", (long)v);
        return signed_index(v, bound, out);
#else
        uint32_t v;
        memcpy(&v, p, 4);
        snprintf(raw, raw_capacity, "%lu", (unsigned long)v);
        if (v >= bound)
            return 0;
        *out = v;
        return 1;
#endif
    }
    case DMLREF_TENSOR_DATA_TYPE_UINT64: {
#if FAULT == FAULT_UNSIGNED_READ_AS_SIGNED
        int64_t v; /* BUG: as above, UINT64 read as INT64 */
        memcpy(&v, p, 8);
        snprintf(raw, raw_capacity, "%lld", (long long)v);
        return signed_index(v, bound, out);
#else
        uint64_t v;
        memcpy(&v, p, 8);
        snprintf(raw, raw_capacity, "%llu", (unsigned long long)v);
        if (v >= bound)
            return 0;
        *out = v;
        return 1;
#endif
    }
    case DMLREF_TENSOR_DATA_TYPE_INT32: {
        int32_t v;
        memcpy(&v, p, 4);
        snprintf(raw, raw_capacity, "%ld", (long)v);
        return signed_index(v, bound, out);
    }
    default: { /* INT64; validation allows no other index type */
        int64_t v;
        memcpy(&v, p, 8);
        snprintf(raw, raw_capacity, "%lld", (long long)v);
        return signed_index(v, bound, out);
    }
    }
}

/* The normalised index at `offset` (known to be in range: checked first). */
static uint64_t index_at(const tensor *idx, uint64_t offset, uint64_t bound)
{
    uint64_t v = 0;
    char raw[32];
    if (!read_index(idx, offset, bound, &v, raw, sizeof raw))
        v = 0; /* not reached: every index was checked before */
    return v;
}

static dmlref_status out_of_range(const sink *msg, const char *op, const uint64_t *coord,
                                  uint32_t rank, const char *raw, uint64_t bound,
                                  uint32_t dimension)
{
    char where[8 * 24];
    format_coord(where, sizeof where, rank, coord);
    return fail(msg, DMLREF_ERROR_INDEX_OUT_OF_RANGE,
                "%s: IndicesTensor[%s] = %s is out of range for InputTensor dimension %lu "
                "of size %llu",
                op, where, raw, (unsigned long)dimension, (unsigned long long)bound);
}

/* ---- operators ------------------------------------------------------------- */

#if FAULT == FAULT_WRITES_PAST_OUTPUT
/* BUG: the kernel's epilogue stores the tail as a 2-element vector (the last
   element and "the next one", the same value twice) without masking, so one
   element is written right after the tensor's last element: past
   TotalTensorSizeInBytes when the output has no padding there. */
static void write_tail(const tensor *out)
{
    uint64_t last[MAX_DIMS];
    unsigned char *p;
    unflatten(out->count - 1, out->rank, out->sizes, last);
    p = element_at(out, last);
    memcpy(p + out->esize, p, out->esize);
}
#endif

/* GatherElements and Scatter: the axis the kernel works along. */
static uint32_t kernel_axis(uint32_t axis)
{
#if FAULT == FAULT_OFF_BY_ONE_AXIS
    /* BUG: the driver flips DirectML's outermost-first axis into its own
       innermost-first order as (D - Axis) instead of (D - 1 - Axis) and
       back, so the operator runs along the next outer dimension (Axis 0
       stays 0: the flip is clamped to the tensor).  Coordinates are then
       clamped into the tensors, as the GPU's robust buffer access does. */
    return axis > 0 ? axis - 1 : 0;
#else
    return axis;
#endif
}

#if FAULT == FAULT_OFF_BY_ONE_AXIS
static void clamp_coord(const tensor *t, uint64_t *coord)
{
    uint32_t i;
    for (i = 0; i < t->rank; ++i)
        if (coord[i] >= t->sizes[i])
            coord[i] = t->sizes[i] - 1;
}
#endif

static dmlref_status gather_elements(const dmlref_gather_elements_desc *d,
                                     const dmlref_binding *inputs, const dmlref_binding *outputs,
                                     const sink *msg)
{
    tensor in, idx, out;
    uint64_t e, coord[MAX_DIMS], v;
    uint32_t axis = d->Axis;
    char raw[32];

    tensor_init(&in, d->InputTensor, inputs[0].data);
    tensor_init(&idx, d->IndicesTensor, inputs[1].data);
    tensor_init(&out, d->OutputTensor, outputs[0].data);

    for (e = 0; e < idx.count; ++e) { /* every index before any write */
        unflatten(e, idx.rank, idx.sizes, coord);
        if (!read_index(&idx, offset_of(&idx, coord), in.sizes[axis], &v, raw, sizeof raw))
            return out_of_range(msg, "GATHER_ELEMENTS", coord, idx.rank, raw, in.sizes[axis], axis);
    }
    axis = kernel_axis(axis);
    for (e = 0; e < out.count; ++e) {
        uint64_t src[MAX_DIMS];
        unflatten(e, out.rank, out.sizes, coord);
        memcpy(src, coord, sizeof coord);
        src[axis] = index_at(&idx, offset_of(&idx, coord), in.sizes[axis]);
#if FAULT == FAULT_OFF_BY_ONE_AXIS
        clamp_coord(&in, src);
#endif
        copy_element(in.type, element_at(&out, coord), element_at(&in, src));
    }
#if FAULT == FAULT_WRITES_PAST_OUTPUT
    write_tail(&out);
#endif
    return DMLREF_OK;
}

static dmlref_status scatter_elements(const dmlref_scatter_elements_desc *d,
                                      const dmlref_binding *inputs, const dmlref_binding *outputs,
                                      const sink *msg)
{
    tensor in, idx, upd, out;
    uint64_t e, coord[MAX_DIMS], v;
    uint32_t axis = d->Axis;
    char raw[32];
#if FAULT == FAULT_HANGS_ON_SCATTER_DUPLICATES || FAULT == FAULT_SCATTER_FIRST_WINS
    unsigned char *claimed;
#endif

    tensor_init(&in, d->InputTensor, inputs[0].data);
    tensor_init(&idx, d->IndicesTensor, inputs[1].data);
    tensor_init(&upd, d->UpdatesTensor, inputs[2].data);
    tensor_init(&out, d->OutputTensor, outputs[0].data);

    for (e = 0; e < idx.count; ++e) { /* every index before any write */
        unflatten(e, idx.rank, idx.sizes, coord);
        if (!read_index(&idx, offset_of(&idx, coord), out.sizes[axis], &v, raw, sizeof raw))
            return out_of_range(msg, "SCATTER_ELEMENTS", coord, idx.rank, raw, out.sizes[axis],
                                axis);
    }
    axis = kernel_axis(axis);

#if FAULT == FAULT_WRITES_INTO_INPUT
    /* BUG: the driver runs Scatter "in place", as DirectML's in-place
       binding would: it applies the updates to the InputTensor buffer, then
       copies that buffer to the output.  The output is right (unless the
       input broadcasts), but the caller's input has been overwritten. */
    for (e = 0; e < upd.count; ++e) {
        uint64_t target[MAX_DIMS];
        unflatten(e, upd.rank, upd.sizes, coord);
        memcpy(target, coord, sizeof coord);
        target[axis] = index_at(&idx, offset_of(&idx, coord), out.sizes[axis]);
        copy_element(in.type, element_at(&in, target), element_at(&upd, coord));
    }
    for (e = 0; e < in.count; ++e) {
        unflatten(e, in.rank, in.sizes, coord);
        copy_element(in.type, element_at(&out, coord), element_at(&in, coord));
    }
    return DMLREF_OK;
#else

    /* Output = Input, element by element through both layouts. */
    for (e = 0; e < in.count; ++e) {
        unflatten(e, in.rank, in.sizes, coord);
#if FAULT == FAULT_SCATTER_NO_INPUT_COPY
        /* BUG: the output is cleared ("scatter into a zeroed buffer", as
           for ScatterND-from-zeros) instead of starting as a copy of the
           input: elements no update targets come out 0. */
        memset(element_at(&out, coord), 0, out.esize);
#else
        copy_element(in.type, element_at(&out, coord), element_at(&in, coord));
#endif
    }

#if FAULT == FAULT_HANGS_ON_SCATTER_DUPLICATES || FAULT == FAULT_SCATTER_FIRST_WINS
    claimed = calloc((size_t)out.count, 1);
    if (!claimed)
        return fail(msg, DMLREF_ERROR_OUT_OF_MEMORY, "SCATTER_ELEMENTS: out of memory");
#endif
    /* Then every update, in row-major order of Updates: the last one wins. */
    for (e = 0; e < upd.count; ++e) {
        uint64_t target[MAX_DIMS];
        unflatten(e, upd.rank, upd.sizes, coord);
        memcpy(target, coord, sizeof coord);
        target[axis] = index_at(&idx, offset_of(&idx, coord), out.sizes[axis]);
#if FAULT == FAULT_OFF_BY_ONE_AXIS
        clamp_coord(&out, target);
#endif
#if FAULT == FAULT_HANGS_ON_SCATTER_DUPLICATES
        {
            /* BUG: each output element has a "written" flag that a writer
               must find clear; a colliding writer spins until the first
               one releases it, but flags are only released at the end of
               the dispatch: two updates to one element wait forever. */
            volatile unsigned char *flag = claimed + flatten(target, out.rank, out.sizes);
            while (*flag)
                ; /* wait for the other writer */
            *flag = 1;
        }
#elif FAULT == FAULT_SCATTER_FIRST_WINS
        {
            /* Not a bug (the negative control): when two updates target one
               element the first one wins.  DirectML leaves the winner
               unspecified (R-SC-10), the vectors say any_of, so this must
               pass. */
            unsigned char *flag = claimed + flatten(target, out.rank, out.sizes);
            if (*flag)
                continue;
            *flag = 1;
        }
#endif
        copy_element(in.type, element_at(&out, target), element_at(&upd, coord));
    }
#if FAULT == FAULT_HANGS_ON_SCATTER_DUPLICATES || FAULT == FAULT_SCATTER_FIRST_WINS
    free(claimed);
#endif
#if FAULT == FAULT_WRITES_PAST_OUTPUT
    write_tail(&out);
#endif
    return DMLREF_OK;
#endif /* FAULT_WRITES_INTO_INPUT */
}

/* GATHER_ND is GATHER_ND1 with BatchDimensionCount 0. */
static dmlref_status gather_nd1(const char *op, const dmlref_tensor_desc *input_desc,
                                const dmlref_tensor_desc *indices_desc,
                                const dmlref_tensor_desc *output_desc, uint32_t m, uint32_t q,
                                uint32_t b, const dmlref_binding *inputs,
                                const dmlref_binding *outputs, const sink *msg)
{
    tensor in, idx, out;
    uint64_t e, coord[MAX_DIMS], v;
    uint32_t D, k, r, pad, j;
    char raw[32];

    tensor_init(&in, input_desc, inputs[0].data);
    tensor_init(&idx, indices_desc, inputs[1].data);
    tensor_init(&out, output_desc, outputs[0].data);
    D = in.rank;
    k = (uint32_t)idx.sizes[D - 1]; /* coordinates per tuple */
    r = m - b - k;                  /* input dimensions copied whole */
    pad = D - (q - 1 + r);          /* leading output dimensions of size 1 */

    /* The output's batch coordinates read the input's: more batches of
       indices than of input read outside it (R-GN-6). */
    for (j = 0; j < b; ++j)
        if (idx.sizes[D - q + j] > in.sizes[D - m + j])
            return fail(msg, DMLREF_ERROR_INDEX_OUT_OF_RANGE,
                        "%s: IndicesTensor has %llu batches along dimension %lu, InputTensor %llu",
                        op, (unsigned long long)idx.sizes[D - q + j], (unsigned long)(D - q + j),
                        (unsigned long long)in.sizes[D - m + j]);

    /* Every index first: component j of a tuple indexes input dimension
       D - m + b + j. */
    for (e = 0; e < idx.count; ++e) {
        unflatten(e, idx.rank, idx.sizes, coord);
        j = (uint32_t)coord[D - 1];
        if (!read_index(&idx, offset_of(&idx, coord), in.sizes[D - m + b + j], &v, raw, sizeof raw))
            return out_of_range(msg, op, coord, idx.rank, raw, in.sizes[D - m + b + j],
                                D - m + b + j);
    }

    /* Output coordinate o = [1s (pad), batch (b), grid (q-1-b), slice (r)];
       Indices coordinate = [0s (D-q), batch, grid, j];
       Input coordinate   = [0s (D-m), batch, tuple (k), slice]. */
    for (e = 0; e < out.count; ++e) {
        uint64_t ic[MAX_DIMS], xc[MAX_DIMS];
        unflatten(e, out.rank, out.sizes, coord);
        memset(ic, 0, sizeof ic);
        memset(xc, 0, sizeof xc);
        for (j = 0; j + 1 < q; ++j) /* batch and grid */
            xc[D - q + j] = coord[pad + j];
        for (j = 0; j < b; ++j) {
#if FAULT == FAULT_GATHER_ND1_BATCH_OFFSET
            /* BUG: ported from GATHER_ND: the batch coordinate selects the
               tuple but the input's base offset never adds
               batch * Input.Strides[batch dim], so every batch reads
               batch 0's slice. */
            ic[D - m + j] = 0;
#else
            ic[D - m + j] = coord[pad + j];
#endif
        }
        for (j = 0; j < k; ++j) {
            xc[D - 1] = j;
            ic[D - m + b + j] = index_at(&idx, offset_of(&idx, xc), in.sizes[D - m + b + j]);
        }
        for (j = 0; j < r; ++j)
            ic[D - r + j] = coord[pad + q - 1 + j];
        copy_element(in.type, element_at(&out, coord), element_at(&in, ic));
    }
#if FAULT == FAULT_WRITES_PAST_OUTPUT
    write_tail(&out);
#endif
    return DMLREF_OK;
}

static dmlref_status nonzero_coordinates(const dmlref_nonzero_coordinates_desc *d,
                                         const dmlref_binding *inputs,
                                         const dmlref_binding *outputs)
{
    tensor in, cnt, co;
    uint64_t e, coord[MAX_DIMS], co_coord[MAX_DIMS];
    uint32_t D, N, R, row = 0, j;

    tensor_init(&in, d->InputTensor, inputs[0].data);
    tensor_init(&cnt, d->OutputCountTensor, outputs[0].data);
    tensor_init(&co, d->OutputCoordinatesTensor, outputs[1].data);
    D = in.rank;
    R = co.rank;
    N = (uint32_t)co.sizes[R - 1];
    memset(co_coord, 0, sizeof co_coord); /* {0, ..., 0, row, column} */

    for (e = 0; e < in.count; ++e) { /* row-major order, whatever the strides */
        unflatten(e, in.rank, in.sizes, coord);
        if (!is_nonzero(in.type, element_at(&in, coord)))
            continue;
        co_coord[R - 2] = row;
        for (j = 0; j < N; ++j) {
            uint32_t c;
#if FAULT == FAULT_NONZERO_LEFT_ALIGNED
            /* BUG: "N columns = the first N dimensions", as if N < D could
               only drop trailing dimensions; DirectML right-aligns (the
               dimensions left out are the leading size-1 ones). */
            c = (uint32_t)coord[j];
            (void)D;
#else
            c = (uint32_t)coord[D - N + j]; /* right-aligned columns */
#endif
            co_coord[R - 1] = j;
            memcpy(element_at(&co, co_coord), &c, 4);
        }
        ++row;
    }
    memset(co_coord, 0, sizeof co_coord); /* the count: every size is 1 */
#if FAULT == FAULT_NONZERO_COUNT_OFF_BY_ONE
    /* BUG: the count is taken from the index of the last row written
       ("the row counter after the loop") minus one, as for an inclusive
       end; an input with no non-zero element reports 0xFFFFFFFF. */
    row -= 1;
#endif
    memcpy(element_at(&cnt, co_coord), &row, 4);
    return DMLREF_OK;
}

/* ---- the plug-in ------------------------------------------------------------ */

static dmlref_status naive_create(const char *options, void **context, char *message,
                                  size_t message_capacity)
{
    sink msg;
    naive_context *ctx;
    uint32_t rank;
    msg.text = message;
    msg.capacity = message_capacity;
    if (!context)
        return fail(&msg, DMLREF_ERROR_INVALID_ARGUMENT, "naive backend: NULL context pointer");
    if (options && options[0] != '\0')
        return fail(&msg, DMLREF_ERROR_INVALID_ARGUMENT,
                    "naive backend: takes no options, got \"%.200s\"", options);
    ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return fail(&msg, DMLREF_ERROR_OUT_OF_MEMORY, "naive backend: out of memory");
#if FAULT == FAULT_CRASHES_ON_RANK_8
    /* BUG: the per-rank scratch buffers are set up for ranks below
       DML_TENSOR_DIMENSION_COUNT_MAX1 (a `<` that should be `<=`), written
       when DirectML only went up to 5 dimensions; rank 8 gets NULL. */
    for (rank = 1; rank < DMLREF_TENSOR_DIMENSION_COUNT_MAX; ++rank)
#else
    for (rank = 1; rank <= DMLREF_TENSOR_DIMENSION_COUNT_MAX; ++rank)
#endif
        ctx->scratch[rank] = ctx->storage[rank];
    *context = ctx;
    return DMLREF_OK;
}

static void naive_destroy(void *context)
{
    free(context);
}

static dmlref_status naive_supports(void *context, const dmlref_operator_desc *op,
                                    dmlref_feature_level feature_level)
{
    /* Everything dmlref accepts; UNSUPPORTED_* from validation is passed on
       as "cannot run it" (skip), any other error refuses the description. */
    (void)context;
#if FAULT == FAULT_SKIPS_VALIDATION
    /* BUG: "the framework above us validates": every description of a known
       operator is accepted. */
    (void)feature_level;
    return op && op->Type >= DMLREF_OPERATOR_SCATTER_ELEMENTS ? DMLREF_OK
                                                              : DMLREF_ERROR_UNSUPPORTED_OPERATOR;
#else
    return dmlref_validate(op, feature_level, NULL);
#endif
}

/* Checks the number, presence and size of the bindings. */
static dmlref_status check_bindings(const char *op, const dmlref_tensor_desc *const *descs,
                                    const dmlref_binding *bindings, size_t count, size_t expected,
                                    const char *what, const sink *msg)
{
    size_t i;
    if (count != expected || (count && !bindings))
        return fail(msg, DMLREF_ERROR_BINDING_COUNT, "%s: %lu %s bindings, expected %lu", op,
                    (unsigned long)count, what, (unsigned long)expected);
    for (i = 0; i < count; ++i) {
        if (!bindings[i].data)
            return fail(msg, DMLREF_ERROR_BINDING_MISSING, "%s: %s binding %lu has no data", op,
                        what, (unsigned long)i);
        if (bindings[i].size_in_bytes < descs[i]->TotalTensorSizeInBytes)
            return fail(msg, DMLREF_ERROR_BINDING_TOO_SMALL,
                        "%s: %s binding %lu holds %llu bytes, the tensor needs %llu", op, what,
                        (unsigned long)i, (unsigned long long)bindings[i].size_in_bytes,
                        (unsigned long long)descs[i]->TotalTensorSizeInBytes);
    }
    return DMLREF_OK;
}

static dmlref_status naive_execute(void *context, const dmlref_operator_desc *op,
                                   dmlref_feature_level feature_level, const dmlref_binding *inputs,
                                   size_t input_count, const dmlref_binding *outputs,
                                   size_t output_count, char *message, size_t message_capacity)
{
    naive_context *ctx = context;
    const dmlref_tensor_desc *in_descs[3], *out_descs[2];
    size_t n_in, n_out;
    const char *name;
    dmlref_error err;
    dmlref_status status;
    sink msg;

    msg.text = message;
    msg.capacity = message_capacity;
    memset(&err, 0, sizeof err);
#if FAULT == FAULT_SKIPS_VALIDATION
    (void)feature_level; /* BUG: no validation, as in supports() */
#else
    status = dmlref_validate(op, feature_level, &err);
    if (status != DMLREF_OK)
        return fail(&msg, status, "%s", err.message);
#endif

    switch (op->Type) {
    case DMLREF_OPERATOR_GATHER_ELEMENTS: {
        const dmlref_gather_elements_desc *d = op->Desc;
        in_descs[0] = d->InputTensor;
        in_descs[1] = d->IndicesTensor;
        out_descs[0] = d->OutputTensor;
        n_in = 2;
        n_out = 1;
        name = "GATHER_ELEMENTS";
        break;
    }
    case DMLREF_OPERATOR_SCATTER_ELEMENTS: {
        const dmlref_scatter_elements_desc *d = op->Desc;
        in_descs[0] = d->InputTensor;
        in_descs[1] = d->IndicesTensor;
        in_descs[2] = d->UpdatesTensor;
        out_descs[0] = d->OutputTensor;
        n_in = 3;
        n_out = 1;
        name = "SCATTER_ELEMENTS";
        break;
    }
    case DMLREF_OPERATOR_GATHER_ND: {
        const dmlref_gather_nd_desc *d = op->Desc;
        in_descs[0] = d->InputTensor;
        in_descs[1] = d->IndicesTensor;
        out_descs[0] = d->OutputTensor;
        n_in = 2;
        n_out = 1;
        name = "GATHER_ND";
        break;
    }
    case DMLREF_OPERATOR_GATHER_ND1: {
        const dmlref_gather_nd1_desc *d = op->Desc;
        in_descs[0] = d->InputTensor;
        in_descs[1] = d->IndicesTensor;
        out_descs[0] = d->OutputTensor;
        n_in = 2;
        n_out = 1;
        name = "GATHER_ND1";
        break;
    }
    case DMLREF_OPERATOR_NONZERO_COORDINATES: {
        const dmlref_nonzero_coordinates_desc *d = op->Desc;
        in_descs[0] = d->InputTensor;
        out_descs[0] = d->OutputCountTensor;
        out_descs[1] = d->OutputCoordinatesTensor;
        n_in = 1;
        n_out = 2;
        name = "NONZERO_COORDINATES";
        break;
    }
    default:
        return fail(&msg, DMLREF_ERROR_INVALID_ARGUMENT, "naive backend: operator type %d",
                    (int)op->Type);
    }
    status = check_bindings(name, in_descs, inputs, input_count, n_in, "input", &msg);
    if (status == DMLREF_OK)
        status = check_bindings(name, out_descs, outputs, output_count, n_out, "output", &msg);
    if (status != DMLREF_OK)
        return status;

    /* A coordinate's worth of scratch for the input's rank (the crash-on-
       rank-8 variant has none for rank 8). */
    memset(ctx->scratch[in_descs[0]->DimensionCount], 0, 8u * in_descs[0]->DimensionCount);

    switch (op->Type) {
    case DMLREF_OPERATOR_GATHER_ELEMENTS:
        return gather_elements(op->Desc, inputs, outputs, &msg);
    case DMLREF_OPERATOR_SCATTER_ELEMENTS:
        return scatter_elements(op->Desc, inputs, outputs, &msg);
    case DMLREF_OPERATOR_GATHER_ND: {
        const dmlref_gather_nd_desc *d = op->Desc;
        return gather_nd1(name, d->InputTensor, d->IndicesTensor, d->OutputTensor,
                          d->InputDimensionCount, d->IndicesDimensionCount, 0, inputs, outputs,
                          &msg);
    }
    case DMLREF_OPERATOR_GATHER_ND1: {
        const dmlref_gather_nd1_desc *d = op->Desc;
        return gather_nd1(name, d->InputTensor, d->IndicesTensor, d->OutputTensor,
                          d->InputDimensionCount, d->IndicesDimensionCount, d->BatchDimensionCount,
                          inputs, outputs, &msg);
    }
    default:
        return nonzero_coordinates(op->Desc, inputs, outputs);
    }
}

static const dmlref_backend_v1 naive_backend = {
    DMLREF_BACKEND_ABI_VERSION,
    sizeof(dmlref_backend_v1),
    BACKEND_NAME,
    "1",
    DMLREF_FEATURE_LEVEL_LATEST,
    naive_create,
    naive_supports,
    naive_execute,
    naive_destroy,
};

DMLREF_BACKEND_EXPORT const dmlref_backend_v1 *dmlref_backend_entry(uint32_t abi_version)
{
    return abi_version == DMLREF_BACKEND_ABI_VERSION ? &naive_backend : NULL;
}
