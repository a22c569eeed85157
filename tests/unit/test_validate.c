/*
 * test_validate.c - the validator and the binding checks: every rule that
 * dmlref_validate() and dmlref_execute() enforce, for every operator it
 * applies to.
 *
 * Four parts:
 *   1. The refusal table: one row per rule and operator.  A row starts
 *      from a small valid descriptor of its operator (ge_valid(),
 *      sc_valid(), ...), breaks exactly one thing, and names the feature
 *      level, the status, the rule id (err.rule, exactly as src/core/validate.c
 *      sets it) and a piece of the message naming the tensor, the field and
 *      the value.  Rows with DMLREF_OK pin what must stay valid (R-GN-6, an
 *      injective but unusual output layout, ...).  Each row is its own cmocka
 *      test, named <operator>/<rule>/<what it breaks>.  The rows of one
 *      operator are written out (k_rows); the faults every operator shares
 *      (k_faults: the tensor descriptor's, the arguments', availability,
 *      index and data types, tensors that must agree with the input) are
 *      one table, expanded at run time over the operators (k_ops) and, for a
 *      fault of one tensor, over each tensor slot it applies to.
 *   2. Argument tests: NULL op, NULL Desc, unknown operator type or feature
 *      level, err == NULL.
 *   3. Binding tests for dmlref_execute(): counts, NULL data, short,
 *      misaligned and overlapping bindings, the OOB policy option; each
 *      checks that the output buffer still holds its fill bytes.
 *   4. Feature-level sweeps (k_sweeps): a valid case checked at all 15
 *      levels, asserting exactly the levels where it is valid.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testlib.h"

#define L(x) DMLREF_FEATURE_LEVEL_##x
#define ERR(x) DMLREF_ERROR_##x
#define TYPE(x) DMLREF_TENSOR_DATA_TYPE_##x
#define U32(...) ((const uint32_t[]){__VA_ARGS__})
#define VALID DMLREF_OK, "", NULL                /* status, rule, message of a valid row */
#define LEVEL_3_2 ((dmlref_feature_level)0x3200) /* not a DirectML level */

/* ---- fixtures: descriptors with their own storage ------------------------ */

/* clang-format off */
/* Tensor slots, in the order of the descriptor's fields. */
enum {
    INPUT = 0, INDICES = 1, OUTPUT = 2, /* GATHER_ELEMENTS, GATHER_ND, GATHER_ND1 */
    UPDATES = 2, SC_OUTPUT = 3,         /* SCATTER_ELEMENTS (INPUT, INDICES as above) */
    COUNT = 1, COORDS = 2,              /* NONZERO_COORDINATES (INPUT as above) */
    DATA = -1,                          /* every data tensor of the operator */
    NONE = -2                           /* the breaker needs no slot */
};
/* clang-format on */

typedef struct fixture {
    dmlref_tensor_desc t[4];
    uint32_t sizes[4][8];
    uint32_t strides[4][8];
    dmlref_gather_elements_desc ge;
    dmlref_scatter_elements_desc sc;
    dmlref_gather_nd_desc nd;
    dmlref_gather_nd1_desc nd1;
    dmlref_nonzero_coordinates_desc nz;
    dmlref_operator_desc op;
} fixture;

typedef void (*base_fn)(fixture *f);
typedef void (*break_fn)(fixture *f, int slot);

/* TotalTensorSizeInBytes = DMLCalcBufferTensorSize of the slot as it is now. */
static void refit(fixture *f, int slot)
{
    dmlref_tensor_desc *t = &f->t[slot];
    t->TotalTensorSizeInBytes =
        dmlref_calc_buffer_tensor_size(t->DataType, t->DimensionCount, t->Sizes, t->Strides);
}

/* A packed tensor in the slot, with no flags and no alignment guarantee. */
static void set_tensor(fixture *f, int slot, dmlref_tensor_data_type type, uint32_t rank,
                       const uint32_t *sizes)
{
    dmlref_tensor_desc *t = &f->t[slot];
    memset(t, 0, sizeof *t);
    memcpy(f->sizes[slot], sizes, rank * sizeof *sizes);
    t->DataType = type;
    t->DimensionCount = rank;
    t->Sizes = f->sizes[slot];
    t->Strides = NULL;
    refit(f, slot);
}

/* New sizes for the slot (packed again). */
static void resize(fixture *f, int slot, uint32_t rank, const uint32_t *sizes)
{
    memcpy(f->sizes[slot], sizes, rank * sizeof *sizes);
    f->t[slot].DimensionCount = rank;
    f->t[slot].Strides = NULL;
    refit(f, slot);
}

static void restride(fixture *f, int slot, const uint32_t *strides)
{
    memcpy(f->strides[slot], strides, f->t[slot].DimensionCount * sizeof *strides);
    f->t[slot].Strides = f->strides[slot];
    refit(f, slot);
}

static void packed_strides(const fixture *f, int slot, uint32_t *strides)
{
    uint32_t d = f->t[slot].DimensionCount, step = 1;
    while (d-- > 0) {
        strides[d] = step;
        step *= f->sizes[slot][d];
    }
}

/* The slots holding data (not indices, not NonZero's outputs). */
static int data_slots(const fixture *f, int *slots)
{
    switch (f->op.Type) {
    case DMLREF_OPERATOR_SCATTER_ELEMENTS:
        slots[0] = INPUT, slots[1] = UPDATES, slots[2] = SC_OUTPUT;
        return 3;
    case DMLREF_OPERATOR_NONZERO_COORDINATES:
        slots[0] = INPUT;
        return 1;
    default:
        slots[0] = INPUT, slots[1] = OUTPUT;
        return 2;
    }
}

/* A new DataType for the slot, or for every data tensor when slot is DATA. */
static void retype(fixture *f, int slot, dmlref_tensor_data_type type)
{
    int slots[4], n = 1, i;
    if (slot == DATA)
        n = data_slots(f, slots);
    else
        slots[0] = slot;
    for (i = 0; i < n; ++i) {
        f->t[slots[i]].DataType = type;
        refit(f, slots[i]);
    }
}

/* The descriptor field that points at the slot's tensor. */
static const dmlref_tensor_desc **tensor_field(fixture *f, int slot)
{
    const dmlref_tensor_desc **fields[4] = {NULL, NULL, NULL, NULL};
    switch (f->op.Type) {
    case DMLREF_OPERATOR_GATHER_ELEMENTS:
        fields[0] = &f->ge.InputTensor, fields[1] = &f->ge.IndicesTensor;
        fields[2] = &f->ge.OutputTensor;
        break;
    case DMLREF_OPERATOR_SCATTER_ELEMENTS:
        fields[0] = &f->sc.InputTensor, fields[1] = &f->sc.IndicesTensor;
        fields[2] = &f->sc.UpdatesTensor, fields[3] = &f->sc.OutputTensor;
        break;
    case DMLREF_OPERATOR_GATHER_ND:
        fields[0] = &f->nd.InputTensor, fields[1] = &f->nd.IndicesTensor;
        fields[2] = &f->nd.OutputTensor;
        break;
    case DMLREF_OPERATOR_GATHER_ND1:
        fields[0] = &f->nd1.InputTensor, fields[1] = &f->nd1.IndicesTensor;
        fields[2] = &f->nd1.OutputTensor;
        break;
    default:
        fields[0] = &f->nz.InputTensor, fields[1] = &f->nz.OutputCountTensor;
        fields[2] = &f->nz.OutputCoordinatesTensor;
        break;
    }
    return fields[slot];
}

/* ---- valid descriptors, one per operator -------------------------------- */

/* GATHER_ELEMENTS, the documented example padded to 4-D (valid from 2_1):
   Input {1,1,3,3} FLOAT32 (36 bytes), Indices {1,1,2,3} UINT32 (24 bytes),
   Output {1,1,2,3} FLOAT32 (24 bytes), Axis 2. */
static void ge_valid(fixture *f)
{
    memset(f, 0, sizeof *f);
    set_tensor(f, INPUT, TYPE(FLOAT32), 4, U32(1, 1, 3, 3));
    set_tensor(f, INDICES, TYPE(UINT32), 4, U32(1, 1, 2, 3));
    set_tensor(f, OUTPUT, TYPE(FLOAT32), 4, U32(1, 1, 2, 3));
    f->ge.InputTensor = &f->t[INPUT];
    f->ge.IndicesTensor = &f->t[INDICES];
    f->ge.OutputTensor = &f->t[OUTPUT];
    f->ge.Axis = 2;
    f->op.Type = DMLREF_OPERATOR_GATHER_ELEMENTS;
    f->op.Desc = &f->ge;
}

/* SCATTER_ELEMENTS, valid from 2_0: Input {1,1,3,3} FLOAT32 (36 bytes),
   Indices {1,1,2,3} UINT32, Updates {1,1,2,3} FLOAT32 (24 bytes each),
   Output {1,1,3,3} FLOAT32 (36 bytes), Axis 2. */
static void sc_valid(fixture *f)
{
    memset(f, 0, sizeof *f);
    set_tensor(f, INPUT, TYPE(FLOAT32), 4, U32(1, 1, 3, 3));
    set_tensor(f, INDICES, TYPE(UINT32), 4, U32(1, 1, 2, 3));
    set_tensor(f, UPDATES, TYPE(FLOAT32), 4, U32(1, 1, 2, 3));
    set_tensor(f, SC_OUTPUT, TYPE(FLOAT32), 4, U32(1, 1, 3, 3));
    f->sc.InputTensor = &f->t[INPUT];
    f->sc.IndicesTensor = &f->t[INDICES];
    f->sc.UpdatesTensor = &f->t[UPDATES];
    f->sc.OutputTensor = &f->t[SC_OUTPUT];
    f->sc.Axis = 2;
    f->op.Type = DMLREF_OPERATOR_SCATTER_ELEMENTS;
    f->op.Desc = &f->sc;
}

/* GATHER_ND, the documented example 2 (valid from 2_1): Input {1,2,2,2}
   FLOAT32 (32 bytes), InputDimensionCount 3; Indices {1,1,2,2} UINT32
   (16 bytes), IndicesDimensionCount 2; Output {1,1,2,2} (16 bytes). */
static void nd_valid(fixture *f)
{
    memset(f, 0, sizeof *f);
    set_tensor(f, INPUT, TYPE(FLOAT32), 4, U32(1, 2, 2, 2));
    set_tensor(f, INDICES, TYPE(UINT32), 4, U32(1, 1, 2, 2));
    set_tensor(f, OUTPUT, TYPE(FLOAT32), 4, U32(1, 1, 2, 2));
    f->nd.InputTensor = &f->t[INPUT];
    f->nd.IndicesTensor = &f->t[INDICES];
    f->nd.OutputTensor = &f->t[OUTPUT];
    f->nd.InputDimensionCount = 3;
    f->nd.IndicesDimensionCount = 2;
    f->op.Type = DMLREF_OPERATOR_GATHER_ND;
    f->op.Desc = &f->nd;
}

/* GATHER_ND1, the documented batch example (valid from 3_0): Input and
   Indices {1,3,2,2} (48 bytes each), InputDimensionCount 3,
   IndicesDimensionCount 3, BatchDimensionCount 1; Output {1,1,3,2}
   (24 bytes). */
static void nd1_valid(fixture *f)
{
    memset(f, 0, sizeof *f);
    set_tensor(f, INPUT, TYPE(FLOAT32), 4, U32(1, 3, 2, 2));
    set_tensor(f, INDICES, TYPE(UINT32), 4, U32(1, 3, 2, 2));
    set_tensor(f, OUTPUT, TYPE(FLOAT32), 4, U32(1, 1, 3, 2));
    f->nd1.InputTensor = &f->t[INPUT];
    f->nd1.IndicesTensor = &f->t[INDICES];
    f->nd1.OutputTensor = &f->t[OUTPUT];
    f->nd1.InputDimensionCount = 3;
    f->nd1.IndicesDimensionCount = 3;
    f->nd1.BatchDimensionCount = 1;
    f->op.Type = DMLREF_OPERATOR_GATHER_ND1;
    f->op.Desc = &f->nd1;
}

/* NONZERO_COORDINATES, the documented example (valid from 3_0): Input
   {1,1,2,4} FLOAT32 (32 bytes, effective rank 2), OutputCount {1,1,1,1}
   UINT32 (4 bytes), OutputCoordinates {1,1,8,3} UINT32 (96 bytes). */
static void nz_valid(fixture *f)
{
    memset(f, 0, sizeof *f);
    set_tensor(f, INPUT, TYPE(FLOAT32), 4, U32(1, 1, 2, 4));
    set_tensor(f, COUNT, TYPE(UINT32), 4, U32(1, 1, 1, 1));
    set_tensor(f, COORDS, TYPE(UINT32), 4, U32(1, 1, 8, 3));
    f->nz.InputTensor = &f->t[INPUT];
    f->nz.OutputCountTensor = &f->t[COUNT];
    f->nz.OutputCoordinatesTensor = &f->t[COORDS];
    f->op.Type = DMLREF_OPERATOR_NONZERO_COORDINATES;
    f->op.Desc = &f->nz;
}

/* NONZERO_COORDINATES as DirectMLX builds it (valid from 4_0, D10): Input
   {2,3}, OutputCount {1}, OutputCoordinates {6,2}. */
static void nz_valid_fl4(fixture *f)
{
    nz_valid(f);
    resize(f, INPUT, 2, U32(2, 3));
    resize(f, COUNT, 1, U32(1));
    resize(f, COORDS, 2, U32(6, 2));
}

/* ---- breakers any operator shares (slot: the tensor to break) ------------- */

/* R-TD-1 */
static void rank_0(fixture *f, int slot)
{
    f->t[slot].DimensionCount = 0;
}
static void rank_9(fixture *f, int slot)
{
    f->t[slot].DimensionCount = 9;
}

/* R-TD-2, D18: the last dimension has size 0 */
static void size_0(fixture *f, int slot)
{
    f->sizes[slot][f->t[slot].DimensionCount - 1] = 0;
}

/* R-TD-9 */
static void total_one_short(fixture *f, int slot)
{
    f->t[slot].TotalTensorSizeInBytes -= 1;
}

/* R-TD-10: sizes {1,...,1,2^32-1} (exactly the element cap) with the last
   stride 2^32-1: the last element's offset is (2^32-2)(2^32-1), which fits
   64 bits, but times the element size it does not. */
static void minimum_overflows(fixture *f, int slot)
{
    uint32_t sizes[8], strides[8], rank = f->t[slot].DimensionCount, i;
    for (i = 0; i < rank; ++i)
        sizes[i] = 1, strides[i] = 0;
    sizes[rank - 1] = strides[rank - 1] = 0xFFFFFFFFu;
    resize(f, slot, rank, sizes);
    restride(f, slot, strides);
    f->t[slot].TotalTensorSizeInBytes = UINT64_MAX; /* not the reason */
}

/* R-TD-13, D13: sizes {1,...,1,65536,65536} are 2^32 elements */
static void elements_over_cap(fixture *f, int slot)
{
    uint32_t sizes[8], rank = f->t[slot].DimensionCount, i;
    for (i = 0; i < rank; ++i)
        sizes[i] = 1;
    sizes[rank - 2] = sizes[rank - 1] = 65536;
    resize(f, slot, rank, sizes);
}

/* R-TD-13, D13: TotalTensorSizeInBytes holds 2^32 elements */
static void total_over_cap(fixture *f, int slot)
{
    f->t[slot].TotalTensorSizeInBytes = (uint64_t)dmlref_data_type_size(f->t[slot].DataType) << 32;
}

/* R-TD-13: exactly 2^32-1 elements' worth of bytes is still valid */
static void total_at_cap(fixture *f, int slot)
{
    f->t[slot].TotalTensorSizeInBytes =
        (uint64_t)dmlref_data_type_size(f->t[slot].DataType) * 0xFFFFFFFFull;
}

/* R-TD-14 */
static void align_3(fixture *f, int slot)
{
    f->t[slot].GuaranteedBaseOffsetAlignment = 3;
}
static void align_16(fixture *f, int slot)
{
    f->t[slot].GuaranteedBaseOffsetAlignment = 16;
}
static void align_8(fixture *f, int slot)
{
    f->t[slot].GuaranteedBaseOffsetAlignment = 8;
}
static void align_half_element(fixture *f, int slot)
{
    f->t[slot].GuaranteedBaseOffsetAlignment = dmlref_data_type_size(f->t[slot].DataType) / 2;
}

/* R-TD-15, D15 */
static void flag_unknown(fixture *f, int slot)
{
    f->t[slot].Flags = 0x2;
}
static void flag_owned(fixture *f, int slot)
{
    f->t[slot].Flags = DMLREF_TENSOR_FLAG_OWNED_BY_DML;
}

/* R-TD-16, D6: packed strides except a stride of 0 on the last dimension
   (size > 1 in every base); on an input that is a broadcast (R-TD-6). */
static void stride_0(fixture *f, int slot)
{
    uint32_t strides[8];
    packed_strides(f, slot, strides);
    strides[f->t[slot].DimensionCount - 1] = 0;
    restride(f, slot, strides);
}

/* Packed strides, but 0 on the leading dimensions of size 1: still injective. */
static void ones_stride_0(fixture *f, int slot)
{
    uint32_t strides[8], i;
    packed_strides(f, slot, strides);
    for (i = 0; i < f->t[slot].DimensionCount; ++i)
        if (f->sizes[slot][i] == 1)
            strides[i] = 0;
    restride(f, slot, strides);
}

/* Strides {0, ..., 0, outer, inner}: the bases' leading dimensions have size 1,
   so only the last two dimensions place elements. */
static void last_two_strides(fixture *f, int slot, uint32_t outer, uint32_t inner)
{
    uint32_t strides[8] = {0, 0, 0, 0, 0, 0, 0, 0}, rank = f->t[slot].DimensionCount;
    strides[rank - 2] = outer;
    strides[rank - 1] = inner;
    restride(f, slot, strides);
}

static void strides_1_1(fixture *f, int slot)
{
    last_two_strides(f, slot, 1, 1);
}
static void strides_1_2(fixture *f, int slot)
{
    last_two_strides(f, slot, 1, 2);
}
static void strides_2_3(fixture *f, int slot)
{
    last_two_strides(f, slot, 2, 3);
}
static void strides_3_2(fixture *f, int slot)
{
    last_two_strides(f, slot, 3, 2);
}

/* Strides 2^27 and 3 * 2^26 on sizes {3, 2}: the stride-order proof fails
   and the span passes 2^27 offsets, yet the six offsets differ (D6). */
static void strides_huge(fixture *f, int slot)
{
    last_two_strides(f, slot, 1u << 27, 3u << 26);
}

/* D6 past the stride-order proof: GatherElements (ge_valid, Axis 2) with
   Input, Indices and Output {1, 1, rows, columns}, and the output's last
   two strides `outer`, `inner`. */
static void ge_output_layout(fixture *f, uint32_t rows, uint32_t columns, uint32_t outer,
                             uint32_t inner)
{
    resize(f, INPUT, 4, U32(1, 1, rows, columns));
    resize(f, INDICES, 4, U32(1, 1, rows, columns));
    resize(f, OUTPUT, 4, U32(1, 1, rows, columns));
    last_two_strides(f, OUTPUT, outer, inner);
}

/* 6 elements, span 469762049: sorted offsets, all distinct */
static void ge_span_2_27_distinct(fixture *f, int slot)
{
    (void)slot;
    ge_output_layout(f, 3, 2, 1u << 27, 3u << 26);
}

/* 6 elements, span 2^29 + 1: {2, 0} and {0, 1} share offset 2^28 */
static void ge_span_2_27_shared(fixture *f, int slot)
{
    (void)slot;
    ge_output_layout(f, 3, 2, 1u << 27, 1u << 28);
}

/* 2^24 elements (the most the windowed bitmap takes), span 268374016: two
   windows, all distinct (an offset c0 + 32768 (c0 + c1) fixes c0 < 32768) */
static void ge_2_24_elements_windowed_distinct(fixture *f, int slot)
{
    (void)slot;
    ge_output_layout(f, 4096, 4096, 32769, 32768);
}

/* 2^23 elements, span 268337153: {1, 0} and {0, 2} share offset 65536,
   found in the first of two windows */
static void ge_2_23_elements_windowed_shared(fixture *f, int slot)
{
    (void)slot;
    ge_output_layout(f, 2048, 4096, 65536, 32768);
}

/* 16785409 elements (above 2^24) spanning 67112961 offsets (within 2^27):
   one bitmap window, all distinct */
static void ge_above_2_24_elements_one_window_distinct(fixture *f, int slot)
{
    (void)slot;
    ge_output_layout(f, 4097, 4097, 8193, 8192);
}

/* 65535 x 65535 elements (above 2^32 / 2) over 131069 offsets: aliasing by
   counting, at once (a walk of every element took seconds) */
static void ge_more_elements_than_offsets(fixture *f, int slot)
{
    (void)slot;
    ge_output_layout(f, 65535, 65535, 1, 1);
}

/* 16781312 elements (above 2^24) spanning 268406785 offsets (above 2^27):
   not decided */
static void ge_above_2_24_elements_above_2_27_span(fixture *f, int slot)
{
    (void)slot;
    ge_output_layout(f, 4097, 4096, 32769, 32768);
}

/* Argument checks */
static void null_tensor(fixture *f, int slot)
{
    *tensor_field(f, slot) = NULL;
}
static void null_sizes(fixture *f, int slot)
{
    f->t[slot].Sizes = NULL;
}

/* Data types (slot DATA: every data tensor of the operator) */
static void to_unknown(fixture *f, int slot)
{
    retype(f, slot, TYPE(UNKNOWN));
}
static void to_not_a_type(fixture *f, int slot)
{
    retype(f, slot, (dmlref_tensor_data_type)200);
}
static void to_float16(fixture *f, int slot)
{
    retype(f, slot, TYPE(FLOAT16));
}
static void to_float32(fixture *f, int slot)
{
    retype(f, slot, TYPE(FLOAT32));
}
static void to_float64(fixture *f, int slot)
{
    retype(f, slot, TYPE(FLOAT64));
}
static void to_int8(fixture *f, int slot)
{
    retype(f, slot, TYPE(INT8));
}
static void to_int16(fixture *f, int slot)
{
    retype(f, slot, TYPE(INT16));
}
static void to_int32(fixture *f, int slot)
{
    retype(f, slot, TYPE(INT32));
}
static void to_int64(fixture *f, int slot)
{
    retype(f, slot, TYPE(INT64));
}
static void to_uint8(fixture *f, int slot)
{
    retype(f, slot, TYPE(UINT8));
}
static void to_uint32(fixture *f, int slot)
{
    retype(f, slot, TYPE(UINT32));
}
static void to_uint64(fixture *f, int slot)
{
    retype(f, slot, TYPE(UINT64));
}

/* Dimension counts: drop the leading dimension (size 1 in every base), or
   add one of size 1. */
static void drop_leading(fixture *f, int slot)
{
    uint32_t sizes[8], rank = f->t[slot].DimensionCount;
    memcpy(sizes, f->sizes[slot] + 1, (rank - 1) * sizeof *sizes);
    resize(f, slot, rank - 1, sizes);
}

static void add_leading(fixture *f, int slot)
{
    uint32_t sizes[8], rank = f->t[slot].DimensionCount;
    sizes[0] = 1;
    memcpy(sizes + 1, f->sizes[slot], rank * sizeof *sizes);
    resize(f, slot, rank + 1, sizes);
}

/* ---- GATHER_ELEMENTS breakers ------------------------------------------- */

/* R-TD-9 with strides: padded rows {12,12,4,1} need (2*4 + 2*1 + 1) * 4 = 44 */
static void ge_padded_input_one_short(fixture *f, int slot)
{
    (void)slot;
    restride(f, INPUT, U32(12, 12, 4, 1));
    f->t[INPUT].TotalTensorSizeInBytes -= 1;
}

/* R-GE-2 */
static void ge_axis_4(fixture *f, int slot)
{
    (void)slot;
    f->ge.Axis = 4;
}
static void ge_axis_max(fixture *f, int slot)
{
    (void)slot;
    f->ge.Axis = UINT32_MAX;
}

/* R-GE-3, D5: indices (and the output, which follows them) smaller than the
   input on dimension 3, which is not the Axis */
static void ge_indices_off_axis_smaller(fixture *f, int slot)
{
    (void)slot;
    resize(f, INDICES, 4, U32(1, 1, 2, 2));
    resize(f, OUTPUT, 4, U32(1, 1, 2, 2));
}

/* R-GE-3: larger than the input on dimension 1 */
static void ge_indices_off_axis_larger(fixture *f, int slot)
{
    (void)slot;
    resize(f, INDICES, 4, U32(1, 2, 2, 3));
    resize(f, OUTPUT, 4, U32(1, 2, 2, 3));
}

/* R-GE-3: along the Axis the indices may be larger than the input (5 > 3) */
static void ge_indices_larger_on_axis(fixture *f, int slot)
{
    (void)slot;
    resize(f, INDICES, 4, U32(1, 1, 5, 3));
    resize(f, OUTPUT, 4, U32(1, 1, 5, 3));
}

/* R-GE-4: the output takes the input's sizes instead of the indices' */
static void ge_output_size_differs(fixture *f, int slot)
{
    (void)slot;
    resize(f, OUTPUT, 4, U32(1, 1, 3, 3));
}

/* R-GE-5: every tensor 3-D, Axis 1 (the same gather) */
static void ge_3d(fixture *f, int slot)
{
    (void)slot;
    drop_leading(f, INPUT);
    drop_leading(f, INDICES);
    drop_leading(f, OUTPUT);
    f->ge.Axis = 1;
}

/* R-GE-5: every tensor 8-D, Axis 6 */
static void ge_8d(fixture *f, int slot)
{
    (void)slot;
    resize(f, INPUT, 8, U32(1, 1, 1, 1, 1, 1, 3, 3));
    resize(f, INDICES, 8, U32(1, 1, 1, 1, 1, 1, 2, 3));
    resize(f, OUTPUT, 8, U32(1, 1, 1, 1, 1, 1, 2, 3));
    f->ge.Axis = 6;
}

/* ---- SCATTER_ELEMENTS breakers ------------------------------------------ */

/* R-SC-12: the same operator through its alias DMLREF_OPERATOR_SCATTER */
static void sc_alias(fixture *f, int slot)
{
    (void)slot;
    f->op.Type = DMLREF_OPERATOR_SCATTER;
}

/* R-SC-3 */
static void sc_axis_4(fixture *f, int slot)
{
    (void)slot;
    f->sc.Axis = 4;
}

/* R-SC-4, D5: indices and updates smaller than the input on dimension 3 */
static void sc_indices_off_axis_smaller(fixture *f, int slot)
{
    (void)slot;
    resize(f, INDICES, 4, U32(1, 1, 2, 2));
    resize(f, UPDATES, 4, U32(1, 1, 2, 2));
}

/* D16: Indices.Sizes[Axis] = 5 > Input.Sizes[Axis] = 3, which DirectML refuses */
static void sc_indices_larger_on_axis(fixture *f, int slot)
{
    (void)slot;
    resize(f, INDICES, 4, U32(1, 1, 5, 3));
    resize(f, UPDATES, 4, U32(1, 1, 5, 3));
}

/* R-SC-5 */
static void sc_updates_size_differs(fixture *f, int slot)
{
    (void)slot;
    resize(f, UPDATES, 4, U32(1, 1, 3, 3));
}

/* R-SC-6 */
static void sc_output_size_differs(fixture *f, int slot)
{
    (void)slot;
    resize(f, SC_OUTPUT, 4, U32(1, 1, 2, 3));
}

/* R-SC-7: every tensor 3-D, Axis 1 */
static void sc_3d(fixture *f, int slot)
{
    (void)slot;
    drop_leading(f, INPUT);
    drop_leading(f, INDICES);
    drop_leading(f, UPDATES);
    drop_leading(f, SC_OUTPUT);
    f->sc.Axis = 1;
}

/* ---- GATHER_ND breakers ------------------------------------------------- */

/* R-GN-2 */
static void nd_m_0(fixture *f, int slot)
{
    (void)slot;
    f->nd.InputDimensionCount = 0;
}
static void nd_m_5(fixture *f, int slot)
{
    (void)slot;
    f->nd.InputDimensionCount = 5;
}
static void nd_q_0(fixture *f, int slot)
{
    (void)slot;
    f->nd.IndicesDimensionCount = 0;
}
static void nd_q_5(fixture *f, int slot)
{
    (void)slot;
    f->nd.IndicesDimensionCount = 5;
}

/* R-GN-4: 4-tuples into 3 input dimensions */
static void nd_tuple_4(fixture *f, int slot)
{
    (void)slot;
    resize(f, INDICES, 4, U32(1, 1, 2, 4));
}

/* R-GN-5, D11: Input.Sizes[0] lies outside InputDimensionCount = 3 */
static void nd_input_leading_2(fixture *f, int slot)
{
    (void)slot;
    resize(f, INPUT, 4, U32(2, 2, 2, 2));
}

/* R-GN-5, D11: Indices.Sizes[1] lies outside IndicesDimensionCount = 2 */
static void nd_indices_leading_2(fixture *f, int slot)
{
    (void)slot;
    resize(f, INDICES, 4, U32(1, 2, 2, 2));
}

/* R-GN-7, D11: 1-tuples with IndicesDimensionCount 4 leave r = 2 input
   dimensions to copy, so the output needs 4 - 1 + 2 = 5 > 4 dimensions */
static void nd_output_needs_5_dimensions(fixture *f, int slot)
{
    (void)slot;
    resize(f, INDICES, 4, U32(1, 1, 2, 1));
    f->nd.IndicesDimensionCount = 4;
}

/* R-GN-7, D11: the output must be exactly {1, 1, 2, 2} */
static void nd_output_size_differs(fixture *f, int slot)
{
    (void)slot;
    resize(f, OUTPUT, 4, U32(1, 1, 2, 1));
}

static void nd_output_padding_misplaced(fixture *f, int slot)
{
    (void)slot;
    resize(f, OUTPUT, 4, U32(1, 2, 2, 1));
}

/* R-GN-7: the documentation's shape example, Input {3,4,5,6,7} (m 5),
   Indices {1,1,1,2,3} (q 3) -> Output {1,1,2,6,7} */
static void nd_doc_shape_example(fixture *f, int slot)
{
    (void)slot;
    resize(f, INPUT, 5, U32(3, 4, 5, 6, 7));
    resize(f, INDICES, 5, U32(1, 1, 1, 2, 3));
    resize(f, OUTPUT, 5, U32(1, 1, 2, 6, 7));
    f->nd.InputDimensionCount = 5;
    f->nd.IndicesDimensionCount = 3;
}

/* R-GN-8: the documented example 1, 2-D: Input {2,2}, Indices {2,1}, Output {2,2} */
static void nd_2d(fixture *f, int slot)
{
    (void)slot;
    resize(f, INPUT, 2, U32(2, 2));
    resize(f, INDICES, 2, U32(2, 1));
    resize(f, OUTPUT, 2, U32(2, 2));
    f->nd.InputDimensionCount = 2;
    f->nd.IndicesDimensionCount = 2;
}

/* ---- GATHER_ND1 breakers ------------------------------------------------ */

/* R-TD-14: an 8-byte index type promised only 4-byte alignment */
static void nd1_int64_indices_align_4(fixture *f, int slot)
{
    (void)slot;
    retype(f, INDICES, TYPE(INT64));
    f->t[INDICES].GuaranteedBaseOffsetAlignment = 4;
}

/* R-GN-2 */
static void nd1_m_0(fixture *f, int slot)
{
    (void)slot;
    f->nd1.InputDimensionCount = 0;
}
static void nd1_q_5(fixture *f, int slot)
{
    (void)slot;
    f->nd1.IndicesDimensionCount = 5;
}

/* R-GN-3: BatchDimensionCount = InputDimensionCount = IndicesDimensionCount */
static void nd1_b_3(fixture *f, int slot)
{
    (void)slot;
    f->nd1.BatchDimensionCount = 3;
}

/* R-GN-3: BatchDimensionCount < InputDimensionCount but = IndicesDimensionCount */
static void nd1_b_3_m_4(fixture *f, int slot)
{
    (void)slot;
    f->nd1.BatchDimensionCount = 3;
    f->nd1.InputDimensionCount = 4;
}

/* R-GN-4: 3-tuples, but only m - b = 2 dimensions follow the batch */
static void nd1_tuple_3(fixture *f, int slot)
{
    (void)slot;
    resize(f, INDICES, 4, U32(1, 3, 2, 3));
}

/* R-GN-5, D11 */
static void nd1_input_leading_2(fixture *f, int slot)
{
    (void)slot;
    resize(f, INPUT, 4, U32(2, 3, 2, 2));
}

/* R-GN-6: 2 batches of indices against 3 of input, valid (the output follows
   the indices and reads the input's first 2 batches) */
static void nd1_batch_differs(fixture *f, int slot)
{
    (void)slot;
    resize(f, INDICES, 4, U32(1, 2, 2, 2));
    resize(f, OUTPUT, 4, U32(1, 1, 2, 2));
}

/* R-GN-7, D11: m = q = 4, b = 1, 1-tuples: r = 2, so 4 - 1 + 2 = 5 > 4 */
static void nd1_output_needs_5_dimensions(fixture *f, int slot)
{
    (void)slot;
    resize(f, INDICES, 4, U32(1, 3, 2, 1));
    f->nd1.InputDimensionCount = 4;
    f->nd1.IndicesDimensionCount = 4;
}

/* R-GN-7, D11: the output must be exactly {1, 1, 3, 2} */
static void nd1_output_size_differs(fixture *f, int slot)
{
    (void)slot;
    resize(f, OUTPUT, 4, U32(1, 1, 2, 3));
}

/* R-GN-10: GATHER_ND1 with BatchDimensionCount 0 takes GATHER_ND's example */
static void nd1_batch_0(fixture *f, int slot)
{
    (void)slot;
    resize(f, INPUT, 4, U32(1, 2, 2, 2));
    resize(f, INDICES, 4, U32(1, 1, 2, 2));
    resize(f, OUTPUT, 4, U32(1, 1, 2, 2));
    f->nd1.InputDimensionCount = 3;
    f->nd1.IndicesDimensionCount = 2;
    f->nd1.BatchDimensionCount = 0;
}

/* ---- NONZERO_COORDINATES breakers --------------------------------------- */

/* R-TD-9: UINT8 {1,1,1,3} is 3 bytes, rounded up to 4 (coordinates {1,1,3,1}) */
static void nz_uint8_input_total_3(fixture *f, int slot)
{
    (void)slot;
    set_tensor(f, INPUT, TYPE(UINT8), 4, U32(1, 1, 1, 3));
    resize(f, COORDS, 4, U32(1, 1, 3, 1));
    f->t[INPUT].TotalTensorSizeInBytes = 3;
}

/* R-TD-17: the layout ORT binds, UINT32 coordinates inside an INT64 {N, M}
   buffer: strides {2, 2M} */
static void nz_ort_layout(fixture *f, int slot)
{
    (void)slot;
    restride(f, COORDS, U32(0, 0, 2, 16));
}

/* R-NZ-1 */
static void nz_count_size_2(fixture *f, int slot)
{
    (void)slot;
    resize(f, COUNT, 4, U32(1, 1, 1, 2));
}

/* R-NZ-2 */
static void nz_coords_leading_2(fixture *f, int slot)
{
    (void)slot;
    resize(f, COORDS, 4, U32(1, 2, 8, 3));
}

/* R-NZ-3: M must be the 8 input elements */
static void nz_m_7(fixture *f, int slot)
{
    (void)slot;
    resize(f, COORDS, 4, U32(1, 1, 7, 3));
}
static void nz_m_9(fixture *f, int slot)
{
    (void)slot;
    resize(f, COORDS, 4, U32(1, 1, 9, 3));
}

/* R-NZ-4, R-NZ-5: N against the effective rank 2 and DimensionCount 4 */
static void nz_n_1(fixture *f, int slot)
{
    (void)slot;
    resize(f, COORDS, 4, U32(1, 1, 8, 1));
}
static void nz_n_2(fixture *f, int slot)
{
    (void)slot;
    resize(f, COORDS, 4, U32(1, 1, 8, 2));
}
static void nz_n_4(fixture *f, int slot)
{
    (void)slot;
    resize(f, COORDS, 4, U32(1, 1, 8, 4));
}
static void nz_n_5(fixture *f, int slot)
{
    (void)slot;
    resize(f, COORDS, 4, U32(1, 1, 8, 5));
}

/* R-NZ-4: only leading ones leave the effective rank: {2,1,1,4} has rank 4 */
static void nz_inner_ones(fixture *f, int slot)
{
    (void)slot;
    resize(f, INPUT, 4, U32(2, 1, 1, 4));
}

/* R-NZ-4, R-NZ-5: a single element has effective rank 0, and N is still 1 */
static void nz_all_ones(fixture *f, int slot)
{
    (void)slot;
    resize(f, INPUT, 4, U32(1, 1, 1, 1));
    resize(f, COORDS, 4, U32(1, 1, 1, 1));
}

/* R-NZ-6: all three tensors with 3, 5 or 6 dimensions */
static void nz_3d(fixture *f, int slot)
{
    (void)slot;
    drop_leading(f, INPUT);
    drop_leading(f, COUNT);
    drop_leading(f, COORDS);
}

static void nz_5d(fixture *f, int slot)
{
    (void)slot;
    add_leading(f, INPUT);
    add_leading(f, COUNT);
    add_leading(f, COORDS);
}

static void nz_6d(fixture *f, int slot)
{
    nz_5d(f, slot);
    nz_5d(f, slot);
}

/* R-NZ-6: a 1-D count (4_0 style) against a 4-D input */
static void nz_count_1d(fixture *f, int slot)
{
    (void)slot;
    resize(f, COUNT, 1, U32(1));
}

/* R-NZ-6: 1-D coordinates */
static void nz_coords_1d(fixture *f, int slot)
{
    (void)slot;
    resize(f, COORDS, 1, U32(8));
}

/* ---- the refusal table, part 1: rows of one operator --------------------- */

typedef struct refusal {
    const char *name; /* <operator>/<rule>[/<decision>]/<what it breaks> */
    base_fn base;     /* a valid descriptor of the operator */
    break_fn breaks;  /* breaks one thing; NULL: the base as it is */
    int slot;         /* the tensor the breaker works on */
    dmlref_feature_level level;
    dmlref_status status; /* DMLREF_OK for rows that must stay valid */
    const char *rule;     /* err.rule */
    const char *contains; /* a piece of err.message */
} refusal;

/* clang-format off */
static const refusal k_rows[] = {
    /* ---- GATHER_ELEMENTS: strides (R-TD-9, R-TD-16, R-TD-17, D6) ---- */
    {"gather_elements/R-TD-9/padded_input_total_one_below_minimum",
     ge_valid, ge_padded_input_one_short, NONE, L(6_4),
     ERR(INVALID_TOTAL_SIZE), "R-TD-9",
     "InputTensor.TotalTensorSizeInBytes = 43 is less than DMLCalcBufferTensorSize = 44"},
    {"gather_elements/R-TD-16/D6/output_sizes_2x3_strides_1_1",
     ge_valid, strides_1_1, OUTPUT, L(6_4),
     ERR(OUTPUT_ALIASING), "D6", "OutputTensor.Strides map two elements to element offset 1"},
    {"gather_elements/R-TD-16/D6/output_sizes_2x3_strides_3_2_injective_valid",
     ge_valid, strides_3_2, OUTPUT, L(6_4), VALID},
    {"gather_elements/R-TD-17/output_transposed_valid",
     ge_valid, strides_1_2, OUTPUT, L(6_4), VALID},
    {"gather_elements/R-TD-17/D6/output_span_above_2_27_distinct_offsets_sorted_valid",
     ge_valid, ge_span_2_27_distinct, NONE, L(6_4), VALID},
    {"gather_elements/R-TD-16/D6/output_span_above_2_27_shared_offset_sorted",
     ge_valid, ge_span_2_27_shared, NONE, L(6_4),
     ERR(OUTPUT_ALIASING), "D6",
     "OutputTensor.Strides map two elements to element offset 268435456"},
    {"gather_elements/R-TD-17/D6/output_2_24_elements_span_above_2_27_windowed_valid",
     ge_valid, ge_2_24_elements_windowed_distinct, NONE, L(6_4), VALID},
    {"gather_elements/R-TD-16/D6/output_2_23_elements_span_above_2_27_shared_offset_windowed",
     ge_valid, ge_2_23_elements_windowed_shared, NONE, L(6_4),
     ERR(OUTPUT_ALIASING), "D6", "OutputTensor.Strides map two elements to element offset 65536"},
    {"gather_elements/R-TD-17/D6/output_above_2_24_elements_span_within_2_27_bitmap_valid",
     ge_valid, ge_above_2_24_elements_one_window_distinct, NONE, L(6_4), VALID},
    {"gather_elements/R-TD-16/D6/output_more_elements_than_offsets_by_counting",
     ge_valid, ge_more_elements_than_offsets, NONE, L(6_4), ERR(OUTPUT_ALIASING), "D6",
     "OutputTensor.Strides map 4294836225 elements to 131069 element offsets: two share one"},
    {"gather_elements/D6/output_above_2_24_elements_span_above_2_27_undecidable",
     ge_valid, ge_above_2_24_elements_above_2_27_span, NONE, L(6_4),
     ERR(UNSUPPORTED_LAYOUT), "D6",
     "OutputTensor.Strides: whether two elements share an address cannot be decided for a "
     "layout of 16781312 elements spanning 268406785 element offsets (dmlref decides up to "
     "2^24 elements or 2^27 offsets)"},

    /* ---- GATHER_ELEMENTS: feature level 0 is the latest (D19) ---- */
    {"gather_elements/D19/feature_level_0_means_6_4",
     ge_valid, to_int16, INDICES, (dmlref_feature_level)0,
     ERR(UNSUPPORTED_DATA_TYPE), "R-IX-1",
     "IndicesTensor.DataType = INT16 (7) is not supported at feature level 6_4"},
    {"gather_elements/D19/float64_data_at_feature_level_0_valid",
     ge_valid, to_float64, DATA, (dmlref_feature_level)0, VALID},

    /* ---- GATHER_ELEMENTS: R-GE-1 .. R-GE-5 ---- */
    {"gather_elements/R-GE-2/axis_equals_dimension_count",
     ge_valid, ge_axis_4, NONE, L(6_4),
     ERR(INVALID_ATTRIBUTE), "R-GE-2", "Axis = 4 must be less than InputTensor.DimensionCount = 4"},
    {"gather_elements/R-GE-2/axis_uint32_max",
     ge_valid, ge_axis_max, NONE, L(6_4),
     ERR(INVALID_ATTRIBUTE), "R-GE-2",
     "Axis = 4294967295 must be less than InputTensor.DimensionCount = 4"},
    {"gather_elements/R-GE-3/D5/indices_size_off_axis_smaller",
     ge_valid, ge_indices_off_axis_smaller, NONE, L(6_4),
     ERR(SIZE_MISMATCH), "R-GE-3",
     "IndicesTensor.Sizes[3] = 2 must equal InputTensor.Sizes[3] = 3 (all dimensions except Axis = "
     "2)"},
    {"gather_elements/R-GE-3/indices_size_off_axis_larger",
     ge_valid, ge_indices_off_axis_larger, NONE, L(6_4),
     ERR(SIZE_MISMATCH), "R-GE-3",
     "IndicesTensor.Sizes[1] = 2 must equal InputTensor.Sizes[1] = 1"},
    {"gather_elements/R-GE-3/indices_larger_along_axis_valid",
     ge_valid, ge_indices_larger_on_axis, NONE, L(6_4), VALID},
    {"gather_elements/R-GE-4/output_size_differs",
     ge_valid, ge_output_size_differs, NONE, L(6_4),
     ERR(SIZE_MISMATCH), "R-GE-4",
     "OutputTensor.Sizes[2] = 3 must equal IndicesTensor.Sizes[2] = 2 (the output has the indices' "
     "sizes)"},
    {"gather_elements/R-GE-5/not_available_at_1_0",
     ge_valid, NULL, NONE, L(1_0),
     ERR(UNSUPPORTED_OPERATOR), "R-GE-5",
     "GATHER_ELEMENTS: the operator is not available at feature level 1_0 (introduced in 2_1)"},
    {"gather_elements/R-GE-5/3d_at_2_1",
     ge_valid, ge_3d, NONE, L(2_1),
     ERR(UNSUPPORTED_DIMENSION_COUNT), "R-GE-5",
     "InputTensor.DimensionCount = 3 is not supported at feature level 2_1 (supported: 4 to 4)"},
    {"gather_elements/R-GE-5/3d_at_3_0_valid",
     ge_valid, ge_3d, NONE, L(3_0), VALID},
    {"gather_elements/R-GE-5/8d_at_3_0_valid",
     ge_valid, ge_8d, NONE, L(3_0), VALID},
    /* The indices' DimensionCount is in R-GE-5's table too (R-IX-1 is about
       index data types only). */
    {"gather_elements/R-GE-5/indices_3d_at_2_1",
     ge_valid, drop_leading, INDICES, L(2_1),
     ERR(UNSUPPORTED_DIMENSION_COUNT), "R-GE-5",
     "IndicesTensor.DimensionCount = 3 is not supported at feature level 2_1 (supported: 4 to 4)"},
    {"gather_elements/R-GE-5/output_5d_at_2_1",
     ge_valid, add_leading, OUTPUT, L(2_1),
     ERR(UNSUPPORTED_DIMENSION_COUNT), "R-GE-5",
     "OutputTensor.DimensionCount = 5 is not supported at feature level 2_1 (supported: 4 to 4)"},
    {"gather_elements/R-GE-5/int8_data_at_2_1_valid",
     ge_valid, to_int8, DATA, L(2_1), VALID},
    {"gather_elements/R-GE-5/unknown_data_type",
     ge_valid, to_unknown, INPUT, L(6_4),
     ERR(UNSUPPORTED_DATA_TYPE), "R-GE-5",
     "InputTensor.DataType = (unknown) (0) is not supported at feature level 6_4"},
    {"gather_elements/R-GE-5/data_type_200_not_a_directml_type",
     ge_valid, to_not_a_type, INPUT, L(6_4),
     ERR(UNSUPPORTED_DATA_TYPE), "R-GE-5",
     "InputTensor.DataType = (unknown) (200) is not supported at feature level 6_4"},

    /* ---- SCATTER_ELEMENTS: output strides (R-TD-16, D6) ---- */
    {"scatter_elements/R-TD-16/D6/output_sizes_3x3_strides_1_1",
     sc_valid, strides_1_1, SC_OUTPUT, L(6_4),
     ERR(OUTPUT_ALIASING), "D6", "OutputTensor.Strides map two elements to element offset 1"},
    {"scatter_elements/R-TD-16/D6/output_sizes_3x3_strides_2_3_injective_valid",
     sc_valid, strides_2_3, SC_OUTPUT, L(6_4), VALID},

    /* ---- SCATTER_ELEMENTS: index types at 2_0 (R-IX-1, D3) ---- */
    {"scatter_elements/R-IX-1/uint64_indices_at_2_0",
     sc_valid, to_uint64, INDICES, L(2_0),
     ERR(UNSUPPORTED_DATA_TYPE), "R-IX-1",
     "IndicesTensor.DataType = UINT64 (10) is not supported at feature level 2_0 (supported: "
     "UINT32)"},
    {"scatter_elements/D3/int32_indices_at_2_0",
     sc_valid, to_int32, INDICES, L(2_0),
     ERR(UNSUPPORTED_DATA_TYPE), "D3",
     "IndicesTensor.DataType = INT32 (6) is not supported at feature level 2_0 (supported: "
     "UINT32)"},

    /* ---- SCATTER_ELEMENTS: R-SC-1 .. R-SC-7, R-SC-12 ---- */
    {"scatter_elements/R-SC-3/axis_equals_dimension_count",
     sc_valid, sc_axis_4, NONE, L(6_4),
     ERR(INVALID_ATTRIBUTE), "R-SC-3",
     "Axis = 4 must be less than OutputTensor.DimensionCount = 4"},
    {"scatter_elements/R-SC-4/D5/indices_size_off_axis_smaller",
     sc_valid, sc_indices_off_axis_smaller, NONE, L(6_4),
     ERR(SIZE_MISMATCH), "R-SC-4",
     "IndicesTensor.Sizes[3] = 2 must equal InputTensor.Sizes[3] = 3 (all dimensions except Axis = "
     "2)"},
    {"scatter_elements/R-SC-4/D16/indices_larger_along_axis",
     sc_valid, sc_indices_larger_on_axis, NONE, L(6_4),
     ERR(SIZE_MISMATCH), "R-SC-4",
     "IndicesTensor.Sizes[2] = 5 must not exceed InputTensor.Sizes[2] = 3 (Axis)"},
    {"scatter_elements/R-SC-4/D16/indices_larger_along_axis_at_2_0",
     sc_valid, sc_indices_larger_on_axis, NONE, L(2_0),
     ERR(SIZE_MISMATCH), "R-SC-4",
     "IndicesTensor.Sizes[2] = 5 must not exceed InputTensor.Sizes[2] = 3 (Axis)"},
    {"scatter_elements/R-SC-5/updates_size_differs",
     sc_valid, sc_updates_size_differs, NONE, L(6_4),
     ERR(SIZE_MISMATCH), "R-SC-5",
     "UpdatesTensor.Sizes[2] = 3 must equal IndicesTensor.Sizes[2] = 2 (updates have the indices' "
     "sizes)"},
    {"scatter_elements/R-SC-6/output_size_differs",
     sc_valid, sc_output_size_differs, NONE, L(6_4),
     ERR(SIZE_MISMATCH), "R-SC-6",
     "OutputTensor.Sizes[2] = 2 must equal InputTensor.Sizes[2] = 3 (the output has the input's "
     "sizes)"},
    {"scatter_elements/R-SC-7/D17/int32_data_at_2_0",
     sc_valid, to_int32, DATA, L(2_0),
     ERR(UNSUPPORTED_DATA_TYPE), "R-SC-7",
     "InputTensor.DataType = INT32 (6) is not supported at feature level 2_0 (supported: FLOAT32, "
     "FLOAT16)"},
    {"scatter_elements/R-SC-7/int32_data_at_2_1_valid",
     sc_valid, to_int32, DATA, L(2_1), VALID},
    {"scatter_elements/R-SC-7/D17/float16_data_at_2_0_valid",
     sc_valid, to_float16, DATA, L(2_0), VALID},
    {"scatter_elements/R-SC-7/3d_at_2_1",
     sc_valid, sc_3d, NONE, L(2_1),
     ERR(UNSUPPORTED_DIMENSION_COUNT), "R-SC-7",
     "InputTensor.DimensionCount = 3 is not supported at feature level 2_1 (supported: 4 to 4)"},
    {"scatter_elements/R-SC-7/3d_at_3_0_valid",
     sc_valid, sc_3d, NONE, L(3_0), VALID},
    /* The indices' DimensionCount is in R-SC-7's table (R-IX-1: types only). */
    {"scatter_elements/R-SC-7/indices_3d_at_2_0",
     sc_valid, drop_leading, INDICES, L(2_0),
     ERR(UNSUPPORTED_DIMENSION_COUNT), "R-SC-7",
     "IndicesTensor.DimensionCount = 3 is not supported at feature level 2_0 (supported: 4 to 4)"},
    {"scatter/R-SC-12/D17/not_available_at_1_0",
     sc_valid, sc_alias, NONE, L(1_0),
     ERR(UNSUPPORTED_OPERATOR), "R-SC-12",
     "SCATTER_ELEMENTS: the operator is not available at feature level 1_0 (introduced in 2_0)"},
    {"scatter/R-SC-12/D17/float32_4d_at_2_0_valid",
     sc_valid, sc_alias, NONE, L(2_0), VALID},

    /* ---- GATHER_ND: output strides (R-TD-16, D6) ---- */
    {"gather_nd/R-TD-16/D6/output_sizes_2x2_strides_1_1",
     nd_valid, strides_1_1, OUTPUT, L(6_4),
     ERR(OUTPUT_ALIASING), "D6", "OutputTensor.Strides map two elements to element offset 1"},

    /* ---- GATHER_ND: R-GN-1 .. R-GN-8, D11 ---- */
    {"gather_nd/R-GN-2/input_dimension_count_0",
     nd_valid, nd_m_0, NONE, L(6_4),
     ERR(INVALID_ATTRIBUTE), "R-GN-2",
     "InputDimensionCount = 0 must be between 1 and InputTensor.DimensionCount = 4"},
    {"gather_nd/R-GN-2/input_dimension_count_5",
     nd_valid, nd_m_5, NONE, L(6_4),
     ERR(INVALID_ATTRIBUTE), "R-GN-2",
     "InputDimensionCount = 5 must be between 1 and InputTensor.DimensionCount = 4"},
    {"gather_nd/R-GN-2/indices_dimension_count_0",
     nd_valid, nd_q_0, NONE, L(6_4),
     ERR(INVALID_ATTRIBUTE), "R-GN-2",
     "IndicesDimensionCount = 0 must be between 1 and IndicesTensor.DimensionCount = 4"},
    {"gather_nd/R-GN-2/indices_dimension_count_5",
     nd_valid, nd_q_5, NONE, L(6_4),
     ERR(INVALID_ATTRIBUTE), "R-GN-2",
     "IndicesDimensionCount = 5 must be between 1 and IndicesTensor.DimensionCount = 4"},
    {"gather_nd/R-GN-4/tuple_size_above_input_dimension_count",
     nd_valid, nd_tuple_4, NONE, L(6_4),
     ERR(SIZE_MISMATCH), "R-GN-4",
     "IndicesTensor.Sizes[3] = 4 (coordinates per tuple) must be between 1 and "
     "InputDimensionCount - BatchDimensionCount = 3"},
    {"gather_nd/R-GN-5/D11/input_leading_size_not_1",
     nd_valid, nd_input_leading_2, NONE, L(6_4),
     ERR(SIZE_MISMATCH), "R-GN-5",
     "InputTensor.Sizes[0] = 2 must be 1 (outside InputDimensionCount = 3)"},
    {"gather_nd/R-GN-5/D11/indices_leading_size_not_1",
     nd_valid, nd_indices_leading_2, NONE, L(6_4),
     ERR(SIZE_MISMATCH), "R-GN-5",
     "IndicesTensor.Sizes[1] = 2 must be 1 (outside IndicesDimensionCount = 2)"},
    {"gather_nd/R-GN-7/D11/output_needs_more_dimensions",
     nd_valid, nd_output_needs_5_dimensions, NONE, L(6_4),
     ERR(SIZE_MISMATCH), "R-GN-7",
     "the output needs IndicesDimensionCount - 1 + (InputDimensionCount - BatchDimensionCount - "
     "tuple size) = 5 dimensions, more than DimensionCount = 4"},
    {"gather_nd/R-GN-7/D11/output_size_differs",
     nd_valid, nd_output_size_differs, NONE, L(6_4),
     ERR(SIZE_MISMATCH), "R-GN-7",
     "OutputTensor.Sizes[3] = 1 must be 2: the output shape is {1, 1, 2, 2}, got {1, 1, 2, 1}"},
    {"gather_nd/R-GN-7/D11/output_padding_misplaced",
     nd_valid, nd_output_padding_misplaced, NONE, L(6_4),
     ERR(SIZE_MISMATCH), "R-GN-7",
     "OutputTensor.Sizes[1] = 2 must be 1: the output shape is {1, 1, 2, 2}, got {1, 2, 2, 1}"},
    {"gather_nd/R-GN-7/documented_shape_example_valid",
     nd_valid, nd_doc_shape_example, NONE, L(3_0), VALID},
    {"gather_nd/R-GN-8/2d_at_2_1",
     nd_valid, nd_2d, NONE, L(2_1),
     ERR(UNSUPPORTED_DIMENSION_COUNT), "R-GN-8",
     "InputTensor.DimensionCount = 2 is not supported at feature level 2_1 (supported: 4 to 4)"},
    {"gather_nd/R-GN-8/2d_at_3_0_valid",
     nd_valid, nd_2d, NONE, L(3_0), VALID},
    /* The indices' DimensionCount is in R-GN-8's table (R-IX-1: types only). */
    {"gather_nd/R-GN-8/indices_3d_at_2_1",
     nd_valid, drop_leading, INDICES, L(2_1),
     ERR(UNSUPPORTED_DIMENSION_COUNT), "R-GN-8",
     "IndicesTensor.DimensionCount = 3 is not supported at feature level 2_1 (supported: 4 to 4)"},

    /* ---- GATHER_ND1: alignment, output strides (R-TD-14, R-TD-16, R-TD-17, D6) ---- */
    {"gather_nd1/R-TD-14/int64_indices_alignment_4",
     nd1_valid, nd1_int64_indices_align_4, NONE, L(6_4),
     ERR(INVALID_ALIGNMENT), "R-TD-14",
     "IndicesTensor.GuaranteedBaseOffsetAlignment = 4 must be 0 or a power of two >= 16"},
    {"gather_nd1/R-TD-16/D6/output_sizes_3x2_strides_1_2",
     nd1_valid, strides_1_2, OUTPUT, L(6_4),
     ERR(OUTPUT_ALIASING), "D6", "OutputTensor.Strides map two elements to element offset 2"},
    {"gather_nd1/R-TD-16/D6/output_sizes_3x2_strides_2_3_injective_valid",
     nd1_valid, strides_2_3, OUTPUT, L(6_4), VALID},
    {"gather_nd1/R-TD-17/D6/output_span_above_2_27_distinct_offsets_valid",
     nd1_valid, strides_huge, OUTPUT, L(6_4), VALID},

    /* ---- GATHER_ND1: index types at 3_0 (R-IX-1) ---- */
    {"gather_nd1/R-IX-1/int16_indices_at_3_0",
     nd1_valid, to_int16, INDICES, L(3_0),
     ERR(UNSUPPORTED_DATA_TYPE), "R-IX-1",
     "IndicesTensor.DataType = INT16 (7) is not supported at feature level 3_0 "
     "(supported: INT64, INT32, UINT64, UINT32)"},

    /* ---- GATHER_ND1: R-GN-1 .. R-GN-8, R-GN-10, D11 ---- */
    {"gather_nd1/R-GN-2/input_dimension_count_0",
     nd1_valid, nd1_m_0, NONE, L(6_4),
     ERR(INVALID_ATTRIBUTE), "R-GN-2",
     "InputDimensionCount = 0 must be between 1 and InputTensor.DimensionCount = 4"},
    {"gather_nd1/R-GN-2/indices_dimension_count_5",
     nd1_valid, nd1_q_5, NONE, L(6_4),
     ERR(INVALID_ATTRIBUTE), "R-GN-2",
     "IndicesDimensionCount = 5 must be between 1 and IndicesTensor.DimensionCount = 4"},
    {"gather_nd1/R-GN-3/batch_equals_both_dimension_counts",
     nd1_valid, nd1_b_3, NONE, L(6_4),
     ERR(INVALID_ATTRIBUTE), "R-GN-3",
     "BatchDimensionCount = 3 must be less than InputDimensionCount = 3 and IndicesDimensionCount "
     "= 3"},
    {"gather_nd1/R-GN-3/batch_equals_indices_dimension_count",
     nd1_valid, nd1_b_3_m_4, NONE, L(6_4),
     ERR(INVALID_ATTRIBUTE), "R-GN-3",
     "BatchDimensionCount = 3 must be less than InputDimensionCount = 4 and IndicesDimensionCount "
     "= 3"},
    {"gather_nd1/R-GN-4/tuple_size_above_unbatched_dimensions",
     nd1_valid, nd1_tuple_3, NONE, L(6_4),
     ERR(SIZE_MISMATCH), "R-GN-4",
     "IndicesTensor.Sizes[3] = 3 (coordinates per tuple) must be between 1 and "
     "InputDimensionCount - BatchDimensionCount = 2"},
    {"gather_nd1/R-GN-5/D11/input_leading_size_not_1",
     nd1_valid, nd1_input_leading_2, NONE, L(6_4),
     ERR(SIZE_MISMATCH), "R-GN-5",
     "InputTensor.Sizes[0] = 2 must be 1 (outside InputDimensionCount = 3)"},
    {"gather_nd1/R-GN-6/fewer_index_batches_than_input_valid",
     nd1_valid, nd1_batch_differs, NONE, L(6_4), VALID},
    {"gather_nd1/R-GN-7/D11/output_needs_more_dimensions",
     nd1_valid, nd1_output_needs_5_dimensions, NONE, L(6_4),
     ERR(SIZE_MISMATCH), "R-GN-7",
     "tuple size) = 5 dimensions, more than DimensionCount = 4"},
    {"gather_nd1/R-GN-7/D11/output_size_differs",
     nd1_valid, nd1_output_size_differs, NONE, L(6_4),
     ERR(SIZE_MISMATCH), "R-GN-7",
     "OutputTensor.Sizes[2] = 2 must be 3: the output shape is {1, 1, 3, 2}, got {1, 1, 2, 3}"},
    {"gather_nd1/R-GN-10/batch_0_valid",
     nd1_valid, nd1_batch_0, NONE, L(3_0), VALID},

    /* ---- NONZERO_COORDINATES: sizes and strides (R-TD-9, R-TD-16, R-TD-17) ---- */
    {"nonzero_coordinates/R-TD-9/uint8_input_total_not_rounded_up_to_4",
     nz_valid, nz_uint8_input_total_3, NONE, L(6_4),
     ERR(INVALID_TOTAL_SIZE), "R-TD-9",
     "InputTensor.TotalTensorSizeInBytes = 3 is less than DMLCalcBufferTensorSize = 4"},
    {"nonzero_coordinates/R-TD-16/D6/coordinates_sizes_8x3_strides_2_3",
     nz_valid, strides_2_3, COORDS, L(6_4),
     ERR(OUTPUT_ALIASING), "D6",
     "OutputCoordinatesTensor.Strides map two elements to element offset 6"},
    {"nonzero_coordinates/R-TD-17/coordinates_ort_int64_layout_valid",
     nz_valid, nz_ort_layout, NONE, L(6_4), VALID},

    /* ---- NONZERO_COORDINATES: R-NZ-1 .. R-NZ-7, D10 ---- */
    {"nonzero_coordinates/R-NZ-1/count_not_uint32",
     nz_valid, to_int32, COUNT, L(6_4),
     ERR(UNSUPPORTED_DATA_TYPE), "R-NZ-1",
     "OutputCountTensor.DataType = INT32 (6) is not supported at feature level 6_4 (supported: "
     "UINT32)"},
    {"nonzero_coordinates/R-NZ-1/count_size_not_1",
     nz_valid, nz_count_size_2, NONE, L(6_4),
     ERR(SIZE_MISMATCH), "R-NZ-1",
     "OutputCountTensor.Sizes[3] = 2 must be 1 (the count is a scalar)"},
    {"nonzero_coordinates/R-NZ-2/coordinates_not_uint32",
     nz_valid, to_int64, COORDS, L(6_4),
     ERR(UNSUPPORTED_DATA_TYPE), "R-NZ-2",
     "OutputCoordinatesTensor.DataType = INT64 (11) is not supported at feature level 6_4 "
     "(supported: UINT32)"},
    {"nonzero_coordinates/R-NZ-2/coordinates_leading_size_not_1",
     nz_valid, nz_coords_leading_2, NONE, L(6_4),
     ERR(SIZE_MISMATCH), "R-NZ-2",
     "OutputCoordinatesTensor.Sizes[1] = 2 must be 1 (sizes are {1, ..., 1, M, N})"},
    {"nonzero_coordinates/R-NZ-3/m_below_element_count",
     nz_valid, nz_m_7, NONE, L(6_4),
     ERR(SIZE_MISMATCH), "R-NZ-3",
     "OutputCoordinatesTensor.Sizes[2] = 7 (M) must equal the number of input elements = 8"},
    {"nonzero_coordinates/R-NZ-3/m_above_element_count",
     nz_valid, nz_m_9, NONE, L(6_4),
     ERR(SIZE_MISMATCH), "R-NZ-3",
     "OutputCoordinatesTensor.Sizes[2] = 9 (M) must equal the number of input elements = 8"},
    {"nonzero_coordinates/R-NZ-5/n_below_effective_rank",
     nz_valid, nz_n_1, NONE, L(6_4),
     ERR(SIZE_MISMATCH), "R-NZ-5",
     "OutputCoordinatesTensor.Sizes[3] = 1 (N) must be between the input's effective rank 2 "
     "(R-NZ-4) and InputTensor.DimensionCount = 4"},
    {"nonzero_coordinates/R-NZ-5/n_above_dimension_count",
     nz_valid, nz_n_5, NONE, L(6_4),
     ERR(SIZE_MISMATCH), "R-NZ-5",
     "OutputCoordinatesTensor.Sizes[3] = 5 (N) must be between the input's effective rank 2 "
     "(R-NZ-4) and InputTensor.DimensionCount = 4"},
    {"nonzero_coordinates/R-NZ-4/n_equals_effective_rank_valid",
     nz_valid, nz_n_2, NONE, L(6_4), VALID},
    {"nonzero_coordinates/R-NZ-4/n_equals_dimension_count_valid",
     nz_valid, nz_n_4, NONE, L(6_4), VALID},
    {"nonzero_coordinates/R-NZ-4/inner_ones_count_in_effective_rank",
     nz_valid, nz_inner_ones, NONE, L(6_4),
     ERR(SIZE_MISMATCH), "R-NZ-5",
     "OutputCoordinatesTensor.Sizes[3] = 3 (N) must be between the input's effective rank 4 "
     "(R-NZ-4)"},
    {"nonzero_coordinates/R-NZ-4/single_element_n_1_valid",
     nz_valid, nz_all_ones, NONE, L(6_4), VALID},
    {"nonzero_coordinates/R-NZ-6/5d_at_3_0_valid",
     nz_valid, nz_5d, NONE, L(3_0), VALID},
    {"nonzero_coordinates/R-NZ-6/3d_at_3_0",
     nz_valid, nz_3d, NONE, L(3_0),
     ERR(UNSUPPORTED_DIMENSION_COUNT), "R-NZ-6",
     "InputTensor.DimensionCount = 3 is not supported at feature level 3_0 (supported: 4 to 5)"},
    {"nonzero_coordinates/R-NZ-6/3d_at_4_0_valid",
     nz_valid, nz_3d, NONE, L(4_0), VALID},
    {"nonzero_coordinates/R-NZ-6/6d_at_3_0",
     nz_valid, nz_6d, NONE, L(3_0),
     ERR(UNSUPPORTED_DIMENSION_COUNT), "R-NZ-6",
     "InputTensor.DimensionCount = 6 is not supported at feature level 3_0 (supported: 4 to 5)"},
    {"nonzero_coordinates/R-NZ-6/count_1d_at_3_0",
     nz_valid, nz_count_1d, NONE, L(3_0),
     ERR(UNSUPPORTED_DIMENSION_COUNT), "R-NZ-6",
     "OutputCountTensor.DimensionCount = 1 is not supported at feature level 3_0 (supported: 4 to "
     "5)"},
    {"nonzero_coordinates/R-NZ-6/coordinates_1d_at_4_0",
     nz_valid, nz_coords_1d, NONE, L(4_0),
     ERR(UNSUPPORTED_DIMENSION_COUNT), "R-NZ-6",
     "OutputCoordinatesTensor.DimensionCount = 1 is not supported at feature level 4_0 "
     "(supported: 2 to 8)"},
    {"nonzero_coordinates/R-NZ-6/D10/input_2d_count_1d_coordinates_2d_at_3_0",
     nz_valid_fl4, NULL, NONE, L(3_0),
     ERR(UNSUPPORTED_DIMENSION_COUNT), "R-NZ-6",
     "InputTensor.DimensionCount = 2 is not supported at feature level 3_0 (supported: 4 to 5)"},
    {"nonzero_coordinates/R-NZ-6/D10/input_2d_count_1d_coordinates_2d_at_4_0_valid",
     nz_valid_fl4, NULL, NONE, L(4_0), VALID},
    {"nonzero_coordinates/D10/count_5d_input_4d_at_3_0",
     nz_valid, add_leading, COUNT, L(3_0),
     ERR(DIMENSION_COUNT_MISMATCH), "D10",
     "OutputCountTensor.DimensionCount = 5 must equal InputTensor.DimensionCount = 4"},
    {"nonzero_coordinates/D10/coordinates_5d_input_4d_at_3_0",
     nz_valid, add_leading, COORDS, L(3_0),
     ERR(DIMENSION_COUNT_MISMATCH), "D10",
     "OutputCoordinatesTensor.DimensionCount = 5 must equal InputTensor.DimensionCount = 4"},
    {"nonzero_coordinates/D10/count_5d_input_4d_at_4_0_valid",
     nz_valid, add_leading, COUNT, L(4_0), VALID},
    {"nonzero_coordinates/R-NZ-7/float64_input",
     nz_valid, to_float64, INPUT, L(6_4),
     ERR(UNSUPPORTED_DATA_TYPE), "R-NZ-7",
     "InputTensor.DataType = FLOAT64 (9) is not supported at feature level 6_4 "
     "(supported: FLOAT32, FLOAT16, INT32, INT16, INT8, UINT32, UINT16, UINT8)"},
    {"nonzero_coordinates/R-NZ-7/int64_input",
     nz_valid, to_int64, INPUT, L(6_4),
     ERR(UNSUPPORTED_DATA_TYPE), "R-NZ-7",
     "InputTensor.DataType = INT64 (11) is not supported at feature level 6_4"},
    {"nonzero_coordinates/R-NZ-7/uint64_input",
     nz_valid, to_uint64, INPUT, L(6_4),
     ERR(UNSUPPORTED_DATA_TYPE), "R-NZ-7",
     "InputTensor.DataType = UINT64 (10) is not supported at feature level 6_4"},
    {"nonzero_coordinates/R-NZ-7/int8_input_at_3_0_valid",
     nz_valid, to_int8, INPUT, L(3_0), VALID},
};
/* clang-format on */

#define ROW_COUNT (sizeof k_rows / sizeof k_rows[0])

/* ---- the refusal table, part 2: faults every operator shares ------------ */

/* What the expansion knows of each operator: its valid base, its tensor
   slots (inputs first, as in the descriptor) and the rule that governs each
   kind of fault, NULL where the operator has no such rule. */
typedef struct op_info {
    const char *prefix; /* of row names: "gather_elements" */
    base_fn base;
    int tensors, inputs;                     /* slots 0 .. tensors-1, the first `inputs` inputs */
    int indices;                             /* the IndicesTensor's slot, or NONE */
    int updates;                             /* Scatter's UpdatesTensor's slot, or NONE */
    const char *slot_names[4];               /* in row names: "input", "indices", ... */
    const char *tensor_names[4];             /* in messages: "InputTensor", ... */
    dmlref_feature_level introduced, before; /* its first level and the one before */
    const char *available;                   /* refuses it below `introduced` */
    const char *types;                       /* 64-bit data from 4_1 */
    const char *ranks;                       /* every tensor has the input's DimensionCount */
    const char *same_type;                   /* every data tensor has the input's DataType */
} op_info;

/* clang-format off */
static const op_info k_ops[] = {
    {"gather_elements", ge_valid, 3, 2, INDICES, NONE,
     {"input", "indices", "output"}, {"InputTensor", "IndicesTensor", "OutputTensor"},
     L(2_1), L(2_0), "R-GE-5", "R-GE-5", "R-GE-1", "R-GE-4"},
    {"scatter_elements", sc_valid, 4, 3, INDICES, UPDATES,
     {"input", "indices", "updates", "output"},
     {"InputTensor", "IndicesTensor", "UpdatesTensor", "OutputTensor"},
     L(2_0), L(1_0), "R-SC-12", "R-SC-7", "R-SC-1", "R-SC-2"},
    {"gather_nd", nd_valid, 3, 2, INDICES, NONE,
     {"input", "indices", "output"}, {"InputTensor", "IndicesTensor", "OutputTensor"},
     L(2_1), L(2_0), "R-GN-8", "R-GN-8", "R-GN-1", "R-GN-1"},
    {"gather_nd1", nd1_valid, 3, 2, INDICES, NONE,
     {"input", "indices", "output"}, {"InputTensor", "IndicesTensor", "OutputTensor"},
     L(3_0), L(2_1), "R-GN-8", "R-GN-8", "R-GN-1", "R-GN-1"},
    /* NonZero's input table has no 64-bit type at any level (R-NZ-7), its
       tensors' ranks may differ from 4_0 on (D10) and its outputs are UINT32
       whatever the input (R-NZ-1, R-NZ-2): explicit rows above. */
    {"nonzero_coordinates", nz_valid, 3, 1, NONE, NONE,
     {"input", "count", "coordinates"},
     {"InputTensor", "OutputCountTensor", "OutputCoordinatesTensor"},
     L(3_0), L(2_1), "R-NZ-6", NULL, NULL, NULL},
};
/* clang-format on */

#define OP_COUNT (sizeof k_ops / sizeof k_ops[0])

/* The slots a fault breaks, one row each (ON_*), or 0: one row per operator,
   the fault naming its slot. */
enum {
    ON_INPUT = 1,
    ON_INDICES = 2,
    ON_UPDATES = 4,
    ON_OUTPUTS = 8,
    ON_INPUTS = ON_INPUT | ON_INDICES | ON_UPDATES,
    ON_ANY = ON_INPUTS | ON_OUTPUTS,
    ON_NOT_INPUT = ON_INDICES | ON_UPDATES | ON_OUTPUTS
};

/* Whose rule a row names: the fault's own, or the operator's (op_info). */
enum { RULE_FIXED, RULE_AVAILABLE, RULE_TYPES, RULE_RANKS, RULE_SAME_TYPE };

/* Levels that depend on the operator (not DirectML levels). */
#define FL_INTRODUCED ((dmlref_feature_level)1) /* the operator's first level */
#define FL_BEFORE ((dmlref_feature_level)2)     /* the level before it */

/* Flags */
#define LAST_SIZE_ABOVE_1 1 /* only slots whose last dimension is above 1 */

/* A fault, expanded over the operators (and their slots).  Names and
   messages are templates: %O the operator (GATHER_ELEMENTS), %T the tensor
   (InputTensor), %s the slot in row names (input), %L the row's level, %I the
   operator's first level, %D the slot's last dimension, %S its size, %E the
   slot's element size, %H half of it, %M the slot's packed size in bytes
   (DMLCalcBufferTensorSize, computed here from the sizes), %m one byte less,
   %B the bytes of 2^32 elements, %% a %.  Every base tensor is 4-D and
   packed. */
typedef struct fault {
    int rule_kind;    /* RULE_*: RULE_FIXED names `path` and `rule` */
    const char *path; /* rule (and decision) ids in the row name */
    const char *what; /* the row name's last part */
    break_fn breaks;  /* NULL: the base as it is */
    int on;           /* ON_*, or 0 */
    int slot;         /* when on is 0: INDICES (operators with indices), DATA, NONE */
    int flags;
    dmlref_feature_level level; /* a level, 0 (D19), FL_INTRODUCED or FL_BEFORE */
    dmlref_status status;
    const char *rule;     /* err.rule (RULE_FIXED) */
    const char *contains; /* a piece of err.message */
} fault;

#define FIXED(path) RULE_FIXED, path
#define OF(kind) RULE_##kind, NULL

/* clang-format off */
static const fault k_faults[] = {
    /* the buffer tensor model (R-TD-*), on every tensor of every operator */
    {FIXED("R-TD-1"), "%s_dimension_count_0", rank_0, ON_ANY, NONE, 0, L(6_4),
     ERR(INVALID_SIZES), "R-TD-1", "%T.DimensionCount = 0 must be between 1 and 8"},
    {FIXED("R-TD-1"), "%s_dimension_count_9", rank_9, ON_ANY, NONE, 0, L(6_4),
     ERR(INVALID_SIZES), "R-TD-1", "%T.DimensionCount = 9 must be between 1 and 8"},
    {FIXED("R-TD-2/D18"), "%s_size_0", size_0, ON_ANY, NONE, 0, L(6_4),
     ERR(INVALID_SIZES), "R-TD-2", "%T.Sizes[%D] = 0: a size of zero is invalid"},
    {FIXED("R-TD-9"), "%s_total_one_below_minimum", total_one_short, ON_ANY, NONE, 0, L(6_4),
     ERR(INVALID_TOTAL_SIZE), "R-TD-9",
     "%T.TotalTensorSizeInBytes = %m is less than DMLCalcBufferTensorSize = %M"},
    {FIXED("R-TD-10"), "%s_minimum_size_overflows_64_bits", minimum_overflows, ON_ANY, NONE, 0,
     L(6_4), ERR(TENSOR_TOO_LARGE), "R-TD-10",
     "%T: the minimum buffer size (DMLCalcBufferTensorSize) does not fit in 64 bits"},
    {FIXED("R-TD-13/D13"), "%s_elements_by_sizes", elements_over_cap, ON_ANY, NONE, 0, L(6_4),
     ERR(TENSOR_TOO_LARGE), "R-TD-13",
     "%T.Sizes = {1, 1, 65536, 65536} has more than 2^32-1 elements"},
    {FIXED("R-TD-13/D13"), "%s_elements_by_total_size", total_over_cap, ON_ANY, NONE, 0, L(6_4),
     ERR(TENSOR_TOO_LARGE), "R-TD-13",
     "%T.TotalTensorSizeInBytes = %B holds more than 2^32-1 elements of %E bytes"},
    {FIXED("R-TD-13/D13"), "%s_total_size_of_2^32-1_elements_valid", total_at_cap, ON_ANY, NONE,
     0, L(6_4), VALID},
    {FIXED("R-TD-14"), "%s_alignment_3", align_3, ON_ANY, NONE, 0, L(6_4),
     ERR(INVALID_ALIGNMENT), "R-TD-14",
     "%T.GuaranteedBaseOffsetAlignment = 3 must be 0 or a power of two >= 16"},
    {FIXED("R-TD-14"), "%s_alignment_half_element_size", align_half_element, ON_ANY, NONE, 0,
     L(6_4), ERR(INVALID_ALIGNMENT), "R-TD-14",
     "%T.GuaranteedBaseOffsetAlignment = %H must be 0 or a power of two >= 16"},
    {FIXED("R-TD-14"), "%s_alignment_8_below_16", align_8, ON_ANY, NONE, 0, L(6_4),
     ERR(INVALID_ALIGNMENT), "R-TD-14",
     "%T.GuaranteedBaseOffsetAlignment = 8 must be 0 or a power of two >= 16"},
    {FIXED("R-TD-14"), "%s_alignment_16_valid", align_16, ON_ANY, NONE, 0, L(6_4), VALID},
    {FIXED("R-TD-15/D15"), "%s_unknown_flag", flag_unknown, ON_ANY, NONE, 0, L(6_4),
     ERR(INVALID_FLAGS), "R-TD-15", "%T.Flags = 0x2 has bits other than OWNED_BY_DML (0x1)"},
    {FIXED("R-TD-15/D15"), "%s_owned_by_dml", flag_owned, ON_OUTPUTS, NONE, 0, L(6_4),
     ERR(INVALID_FLAGS), "R-TD-15", "%T.Flags = 0x1: OWNED_BY_DML is only for input tensors"},
    {FIXED("R-TD-15"), "%s_owned_by_dml_valid", flag_owned, ON_INPUTS, NONE, 0, L(6_4), VALID},
    {FIXED("R-TD-16/D6"), "%s_stride_0", stride_0, ON_OUTPUTS, NONE, LAST_SIZE_ABOVE_1, L(6_4),
     ERR(OUTPUT_ALIASING), "D6",
     "%T.Strides[%D] = 0 with Sizes[%D] = %S maps several elements to one address"},
    {FIXED("R-TD-6"), "%s_broadcast_stride_0_valid", stride_0, ON_INPUTS, NONE, 0, L(6_4),
     VALID},
    {FIXED("R-TD-16"), "%s_strides_0_on_size_1_valid", ones_stride_0, ON_ANY, NONE, 0, L(6_4),
     VALID},

    /* arguments */
    {FIXED("args"), "%s_tensor_null", null_tensor, ON_ANY, NONE, 0, L(6_4),
     ERR(INVALID_ARGUMENT), "", "%O: %T is NULL"},
    {FIXED("args"), "%s_sizes_null", null_sizes, ON_ANY, NONE, 0, L(6_4),
     ERR(INVALID_ARGUMENT), "", "%O: %T.Sizes is NULL"},
    {FIXED("args"), "feature_level_0x3200", NULL, 0, NONE, 0, LEVEL_3_2,
     ERR(INVALID_ARGUMENT), "", "%O: feature level 0x3200 is not a DirectML feature level"},

    /* availability (R-GE-5, R-SC-12, R-GN-8, R-NZ-6) */
    {OF(AVAILABLE), "not_available_at_%L", NULL, 0, NONE, 0, FL_BEFORE,
     ERR(UNSUPPORTED_OPERATOR), NULL,
     "%O: the operator is not available at feature level %L (introduced in %I)"},
    {OF(AVAILABLE), "4d_at_%L_valid", NULL, 0, NONE, 0, FL_INTRODUCED, VALID},

    /* index types (R-IX-1, D3), on the operators with indices */
    {FIXED("R-IX-1"), "int16_indices", to_int16, 0, INDICES, 0, L(6_4),
     ERR(UNSUPPORTED_DATA_TYPE), "R-IX-1",
     "IndicesTensor.DataType = INT16 (7) is not supported at feature level 6_4 "
     "(supported: INT64, INT32, UINT64, UINT32)"},
    {FIXED("R-IX-1"), "float32_indices", to_float32, 0, INDICES, 0, L(6_4),
     ERR(UNSUPPORTED_DATA_TYPE), "R-IX-1",
     "IndicesTensor.DataType = FLOAT32 (1) is not supported at feature level 6_4"},
    {FIXED("R-IX-1"), "uint8_indices", to_uint8, 0, INDICES, 0, L(6_4),
     ERR(UNSUPPORTED_DATA_TYPE), "R-IX-1",
     "IndicesTensor.DataType = UINT8 (5) is not supported at feature level 6_4"},
    {FIXED("R-IX-1"), "uint64_indices_at_2_1", to_uint64, 0, INDICES, 0, L(2_1),
     ERR(UNSUPPORTED_DATA_TYPE), "R-IX-1",
     "IndicesTensor.DataType = UINT64 (10) is not supported at feature level 2_1 (supported: "
     "UINT32)"},
    {FIXED("D3"), "int32_indices_at_2_1", to_int32, 0, INDICES, 0, L(2_1),
     ERR(UNSUPPORTED_DATA_TYPE), "D3",
     "IndicesTensor.DataType = INT32 (6) is not supported at feature level 2_1 (supported: "
     "UINT32)"},
    {FIXED("D3"), "int64_indices_at_2_1", to_int64, 0, INDICES, 0, L(2_1),
     ERR(UNSUPPORTED_DATA_TYPE), "D3",
     "IndicesTensor.DataType = INT64 (11) is not supported at feature level 2_1 (supported: "
     "UINT32)"},
    {FIXED("D3"), "int32_indices_at_3_0_valid", to_int32, 0, INDICES, 0, L(3_0), VALID},
    {FIXED("D3"), "int64_indices_at_3_0_valid", to_int64, 0, INDICES, 0, L(3_0), VALID},

    /* 64-bit data from 4_1 (R-GE-5, R-SC-7, R-GN-8), every data tensor at once */
    {OF(TYPES), "float64_data_at_4_0", to_float64, 0, DATA, 0, L(4_0),
     ERR(UNSUPPORTED_DATA_TYPE), NULL,
     "InputTensor.DataType = FLOAT64 (9) is not supported at feature level 4_0 "
     "(supported: FLOAT32, FLOAT16, INT32, INT16, INT8, UINT32, UINT16, UINT8)"},
    {OF(TYPES), "float64_data_at_4_1_valid", to_float64, 0, DATA, 0, L(4_1), VALID},
    {OF(TYPES), "int64_data_at_4_0", to_int64, 0, DATA, 0, L(4_0),
     ERR(UNSUPPORTED_DATA_TYPE), NULL,
     "InputTensor.DataType = INT64 (11) is not supported at feature level 4_0"},
    {OF(TYPES), "int64_data_at_4_1_valid", to_int64, 0, DATA, 0, L(4_1), VALID},
    {OF(TYPES), "uint64_data_at_4_0", to_uint64, 0, DATA, 0, L(4_0),
     ERR(UNSUPPORTED_DATA_TYPE), NULL,
     "InputTensor.DataType = UINT64 (10) is not supported at feature level 4_0"},
    {OF(TYPES), "uint64_data_at_4_1_valid", to_uint64, 0, DATA, 0, L(4_1), VALID},

    /* tensors that must agree with the input (R-GE-1, R-GE-4, R-SC-1, R-SC-2, R-GN-1) */
    {OF(RANKS), "%s_dimension_count_3", drop_leading, ON_NOT_INPUT, NONE, 0, L(6_4),
     ERR(DIMENSION_COUNT_MISMATCH), NULL,
     "%T.DimensionCount = 3 must equal InputTensor.DimensionCount = 4"},
    {OF(RANKS), "%s_dimension_count_5", add_leading, ON_NOT_INPUT, NONE, 0, L(6_4),
     ERR(DIMENSION_COUNT_MISMATCH), NULL,
     "%T.DimensionCount = 5 must equal InputTensor.DimensionCount = 4"},
    {OF(SAME_TYPE), "%s_data_type_float16", to_float16, ON_UPDATES | ON_OUTPUTS, NONE, 0,
     L(6_4), ERR(DATA_TYPE_MISMATCH), NULL,
     "%T.DataType = FLOAT16 must equal InputTensor.DataType = FLOAT32"},
    {OF(SAME_TYPE), "%s_data_type_int32", to_int32, ON_UPDATES | ON_OUTPUTS, NONE, 0, L(6_4),
     ERR(DATA_TYPE_MISMATCH), NULL,
     "%T.DataType = INT32 must equal InputTensor.DataType = FLOAT32"},
    {OF(SAME_TYPE), "%s_data_type_uint32", to_uint32, ON_UPDATES | ON_OUTPUTS, NONE, 0, L(6_4),
     ERR(DATA_TYPE_MISMATCH), NULL,
     "%T.DataType = UINT32 must equal InputTensor.DataType = FLOAT32"},
};
/* clang-format on */

#define FAULT_COUNT (sizeof k_faults / sizeof k_faults[0])

/* The ON_* class of the operator's slot. */
static int slot_class(const op_info *op, int slot)
{
    if (slot == INPUT)
        return ON_INPUT;
    if (slot == op->indices)
        return ON_INDICES;
    if (slot == op->updates)
        return ON_UPDATES;
    return slot < op->inputs ? ON_INPUTS : ON_OUTPUTS;
}

/* The rule of the kind for the operator; NULL when it has none. */
static const char *op_rule(const op_info *op, int kind)
{
    switch (kind) {
    case RULE_AVAILABLE:
        return op->available;
    case RULE_TYPES:
        return op->types;
    case RULE_RANKS:
        return op->ranks;
    case RULE_SAME_TYPE:
        return op->same_type;
    default:
        return NULL;
    }
}

/* Appends to a growing string. */
typedef struct growing_text {
    char buf[512];
    size_t length;
} growing_text;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
add(growing_text *t, const char *format, ...)
{
    va_list args;
    int n;
    va_start(args, format);
    n = vsnprintf(t->buf + t->length, sizeof t->buf - t->length, format, args);
    va_end(args);
    if (n < 0 || (size_t)n >= sizeof t->buf - t->length)
        abort();
    t->length += (size_t)n;
}

/* A copy of the template with the row's values in place of %X (see fault). */
static char *expand(const char *template, const op_info *op, const fixture *base, int slot,
                    dmlref_feature_level level)
{
    const dmlref_tensor_desc *t = slot >= 0 ? &base->t[slot] : NULL;
    uint32_t esize = t ? dmlref_data_type_size(t->DataType) : 0, d;
    uint64_t packed = esize; /* DMLCalcBufferTensorSize of a packed tensor */
    growing_text out = {{0}, 0};
    const char *p;
    char *copy;
    for (d = 0; t && d < t->DimensionCount; ++d)
        packed *= t->Sizes[d];
    packed = (packed + 3) & ~(uint64_t)3; /* rounded up to 4 bytes */
    for (p = template; *p; ++p) {
        if (*p != '%') {
            add(&out, "%c", *p);
            continue;
        }
        ++p;
        if (!t && *p && strchr("sTDSEHMmB", *p)) {
            fprintf(stderr, "test_validate: template \"%s\": %%%c needs a tensor slot\n", template,
                    *p);
            abort();
        }
        switch (*p) {
        case 'O':
            add(&out, "%s", dmlref_operator_name(base->op.Type));
            break;
        case 's':
            add(&out, "%s", op->slot_names[slot]);
            break;
        case 'T':
            add(&out, "%s", op->tensor_names[slot]);
            break;
        case 'L':
            add(&out, "%s", dmlref_feature_level_name(level));
            break;
        case 'I':
            add(&out, "%s", dmlref_feature_level_name(op->introduced));
            break;
        case 'D':
            add(&out, "%u", (unsigned)t->DimensionCount - 1);
            break;
        case 'S':
            add(&out, "%u", (unsigned)t->Sizes[t->DimensionCount - 1]);
            break;
        case 'E':
            add(&out, "%u", (unsigned)esize);
            break;
        case 'H':
            add(&out, "%u", (unsigned)esize / 2);
            break;
        case 'M':
            add(&out, "%llu", (unsigned long long)packed);
            break;
        case 'm':
            add(&out, "%llu", (unsigned long long)packed - 1);
            break;
        case 'B':
            add(&out, "%llu", (unsigned long long)esize << 32);
            break;
        case '%':
            add(&out, "%%");
            break;
        default:
            fprintf(stderr, "test_validate: template \"%s\": unknown %%%c\n", template, *p);
            abort();
        }
    }
    copy = malloc(out.length + 1);
    if (!copy)
        abort();
    memcpy(copy, out.buf, out.length + 1);
    return copy;
}

/* The rows the tests run: k_rows, then every fault of k_faults expanded over
   the operators (k_ops) and, for a fault of tensors, over each slot it
   applies to.  An operator without the fault's rule, or not available at its
   level, has no row of it.  Row names are unique. */
static refusal *g_rows;
static size_t g_row_count, g_row_capacity;

static void add_generated_row(const fault *x, const op_info *op, const char *rule, const char *path,
                              dmlref_feature_level level, int slot)
{
    fixture base;
    refusal *row;
    char *what, *name;
    op->base(&base);
    if (g_row_count == g_row_capacity) {
        g_row_capacity = 2 * g_row_capacity + 64;
        g_rows = realloc(g_rows, g_row_capacity * sizeof *g_rows);
        if (!g_rows)
            abort();
    }
    what = expand(x->what, op, &base, slot, level);
    name = malloc(strlen(op->prefix) + strlen(path) + strlen(what) + 3);
    if (!name)
        abort();
    sprintf(name, "%s/%s/%s", op->prefix, path, what);
    free(what);
    row = &g_rows[g_row_count++];
    row->name = name;
    row->base = op->base;
    row->breaks = x->breaks;
    row->slot = slot;
    row->level = level;
    row->status = x->status;
    row->rule = x->status == DMLREF_OK ? "" : rule;
    row->contains = x->contains ? expand(x->contains, op, &base, slot, level) : NULL;
}

static void build_rows(void)
{
    size_t i, j, o;
    g_row_capacity = ROW_COUNT + 8 * OP_COUNT * FAULT_COUNT;
    g_rows = malloc(g_row_capacity * sizeof *g_rows);
    if (!g_rows)
        abort();
    memcpy(g_rows, k_rows, sizeof k_rows);
    g_row_count = ROW_COUNT;
    for (i = 0; i < FAULT_COUNT; ++i) {
        const fault *x = &k_faults[i];
        for (o = 0; o < OP_COUNT; ++o) {
            const op_info *op = &k_ops[o];
            const char *rule = x->rule_kind == RULE_FIXED ? x->rule : op_rule(op, x->rule_kind);
            const char *path = x->rule_kind == RULE_FIXED ? x->path : rule;
            dmlref_feature_level level = x->level == FL_INTRODUCED ? op->introduced
                                         : x->level == FL_BEFORE   ? op->before
                                                                   : x->level;
            fixture base;
            int slot;
            if (!path || (x->level != FL_BEFORE && level != 0 && level < op->introduced))
                continue;
            if (x->on == 0) {
                if (x->slot != INDICES)
                    add_generated_row(x, op, rule, path, level, x->slot);
                else if (op->indices != NONE)
                    add_generated_row(x, op, rule, path, level, op->indices);
                continue;
            }
            op->base(&base);
            for (slot = 0; slot < op->tensors; ++slot) {
                const dmlref_tensor_desc *t = &base.t[slot];
                if (!(slot_class(op, slot) & x->on) ||
                    ((x->flags & LAST_SIZE_ABOVE_1) && t->Sizes[t->DimensionCount - 1] < 2))
                    continue;
                add_generated_row(x, op, rule, path, level, slot);
            }
        }
    }
    for (i = 0; i < g_row_count; ++i)
        for (j = i + 1; j < g_row_count; ++j)
            if (strcmp(g_rows[i].name, g_rows[j].name) == 0) {
                fprintf(stderr, "test_validate: two rows named %s\n", g_rows[i].name);
                abort();
            }
}

static void free_rows(void)
{
    size_t i;
    for (i = ROW_COUNT; i < g_row_count; ++i) {
        free((char *)g_rows[i].name);
        free((char *)g_rows[i].contains);
    }
    free(g_rows);
}

static void build(fixture *f, base_fn base, break_fn breaks, int slot)
{
    base(f);
    if (breaks)
        breaks(f, slot);
}

static void expect_status(dmlref_status got, dmlref_status want, const dmlref_error *err)
{
    if (got != want) {
        print_error("status %s, expected %s; message: \"%s\"\n", dmlref_status_name(got),
                    dmlref_status_name(want), err && got != DMLREF_OK ? err->message : "");
        fail();
    }
}

/* The error names status and rule, contains `text`, is one line, starts
   with "<prefix>: " and, when there is a rule, ends with " (<rule>)". */
static void check_error(const dmlref_error *err, dmlref_status status, const char *rule,
                        const char *text, const char *prefix)
{
    size_t length = strlen(err->message), rule_length = strlen(rule);
    size_t prefix_length = strlen(prefix);

    assert_string_equal(dmlref_status_name(err->status), dmlref_status_name(status));
    assert_string_equal(err->rule, rule);
    if (!strstr(err->message, text)) {
        print_error("message \"%s\"\n  does not contain \"%s\"\n", err->message, text);
        fail();
    }
    assert_null(strchr(err->message, '\n'));
    assert_null(strchr(err->message, '\r'));
    if (strncmp(err->message, prefix, prefix_length) != 0 ||
        strncmp(err->message + prefix_length, ": ", 2) != 0) {
        print_error("message \"%s\"\n  does not start with \"%s: \"\n", err->message, prefix);
        fail();
    }
    if (rule_length > 0) {
        char suffix[DMLREF_ERROR_RULE_CAPACITY + 4];
        size_t suffix_length;
        snprintf(suffix, sizeof suffix, " (%s)", rule);
        suffix_length = strlen(suffix);
        assert_true(length > suffix_length);
        assert_string_equal(err->message + length - suffix_length, suffix);
    }
}

/* Ensure dmlref_validate() answers the row with its status, rule and message
   (and the same status with err == NULL), and that dmlref_execute() refuses
   it the same way before it looks at any binding. */
static void run_row(void **state)
{
    const refusal *row = *state;
    fixture f;
    dmlref_error err, again;

    build(&f, row->base, row->breaks, row->slot);
    memset(&err, 0, sizeof err);
    expect_status(dmlref_validate(&f.op, row->level, &err), row->status, &err);
    expect_status(dmlref_validate(&f.op, row->level, NULL), row->status, NULL);
    if (row->status == DMLREF_OK)
        return;
    check_error(&err, row->status, row->rule, row->contains, dmlref_operator_name(f.op.Type));

    memset(&again, 0, sizeof again);
    expect_status(dmlref_execute(&f.op, row->level, NULL, 0, NULL, 0, &again), row->status, &again);
    assert_string_equal(again.rule, err.rule);
    assert_string_equal(again.message, err.message);
}

/* ---- arguments ------------------------------------------------------------ */

/* Ensure a NULL op is INVALID_ARGUMENT, with or without an error struct. */
static void test_validate_null_op(void **state)
{
    dmlref_error err;
    (void)state;
    memset(&err, 0, sizeof err);
    assert_int_equal(dmlref_validate(NULL, L(6_4), &err), DMLREF_ERROR_INVALID_ARGUMENT);
    check_error(&err, DMLREF_ERROR_INVALID_ARGUMENT, "", "op is NULL", "dmlref_validate");
    assert_int_equal(dmlref_validate(NULL, L(6_4), NULL), DMLREF_ERROR_INVALID_ARGUMENT);
    assert_int_equal(dmlref_execute(NULL, L(6_4), NULL, 0, NULL, 0, NULL),
                     DMLREF_ERROR_INVALID_ARGUMENT);
}

/* Ensure a NULL op->Desc is INVALID_ARGUMENT for every operator type. */
static void test_validate_null_desc(void **state)
{
    static const dmlref_operator_type types[] = {
        DMLREF_OPERATOR_GATHER_ELEMENTS, DMLREF_OPERATOR_SCATTER_ELEMENTS,
        DMLREF_OPERATOR_GATHER_ND, DMLREF_OPERATOR_GATHER_ND1, DMLREF_OPERATOR_NONZERO_COORDINATES};
    dmlref_operator_desc op;
    dmlref_error err;
    size_t i;
    (void)state;
    for (i = 0; i < sizeof types / sizeof types[0]; ++i) {
        op.Type = types[i];
        op.Desc = NULL;
        memset(&err, 0, sizeof err);
        assert_int_equal(dmlref_validate(&op, L(6_4), &err), DMLREF_ERROR_INVALID_ARGUMENT);
        check_error(&err, DMLREF_ERROR_INVALID_ARGUMENT, "", "op->Desc is NULL", "dmlref_validate");
        assert_int_equal(dmlref_validate(&op, L(6_4), NULL), DMLREF_ERROR_INVALID_ARGUMENT);
    }
}

/* Ensure operator types dmlref does not implement (GATHER 67, SCATTER_ND 109,
   0) are INVALID_ARGUMENT, naming the number. */
static void test_validate_unknown_operator_type(void **state)
{
    static const unsigned types[] = {67, 109, 0, 141};
    fixture f;
    dmlref_error err;
    char text[64];
    size_t i;
    (void)state;
    for (i = 0; i < sizeof types / sizeof types[0]; ++i) {
        ge_valid(&f);
        f.op.Type = (dmlref_operator_type)types[i];
        memset(&err, 0, sizeof err);
        assert_int_equal(dmlref_validate(&f.op, L(6_4), &err), DMLREF_ERROR_INVALID_ARGUMENT);
        snprintf(text, sizeof text, "operator type %u is not one dmlref implements", types[i]);
        check_error(&err, DMLREF_ERROR_INVALID_ARGUMENT, "", text, "dmlref_validate");
    }
}

/* Ensure values that are not DirectML feature levels (0x1001, 0x3200,
   0x6500, 0xFFFF; 0 is D19's default) are INVALID_ARGUMENT, also for an
   otherwise broken descriptor (arguments are checked first). */
static void test_validate_unknown_feature_level(void **state)
{
    static const unsigned levels[] = {0x1001, 0x3200, 0x6500, 0xFFFF};
    fixture f;
    dmlref_error err;
    char text[80];
    size_t i;
    (void)state;
    for (i = 0; i < sizeof levels / sizeof levels[0]; ++i) {
        nz_valid(&f);
        size_0(&f, INPUT);
        memset(&err, 0, sizeof err);
        assert_int_equal(dmlref_validate(&f.op, (dmlref_feature_level)levels[i], &err),
                         DMLREF_ERROR_INVALID_ARGUMENT);
        snprintf(text, sizeof text, "feature level 0x%x is not a DirectML feature level",
                 levels[i]);
        check_error(&err, DMLREF_ERROR_INVALID_ARGUMENT, "", text, "NONZERO_COORDINATES");
    }
}

/* Ensure err == NULL is allowed: validate and execute still return their
   status, DMLREF_OK or a refusal. */
static void test_validate_err_optional(void **state)
{
    fixture f;
    dmlref_error err;
    (void)state;
    sc_valid(&f);
    memset(&err, 0x5A, sizeof err);
    assert_int_equal(dmlref_validate(&f.op, L(2_0), &err), DMLREF_OK);
    assert_int_equal(dmlref_validate(&f.op, L(2_0), NULL), DMLREF_OK);
    sc_axis_4(&f, NONE);
    assert_int_equal(dmlref_validate(&f.op, L(2_0), NULL), DMLREF_ERROR_INVALID_ATTRIBUTE);
    assert_int_equal(dmlref_execute(&f.op, L(2_0), NULL, 0, NULL, 0, NULL),
                     DMLREF_ERROR_INVALID_ATTRIBUTE);
}

/* ---- execute: bindings --------------------------------------------------- */

/* GATHER_ELEMENTS with buffers: the documented example, Input {1,1,3,3}
   = 1..9, Indices {1,1,2,3} = [[1,2,0],[2,0,0]], Axis 2, Output {1,1,2,3}
   = [[4,8,3],[7,2,3]].  The output buffer holds PADDING_FILL. */
typedef struct ge_buffers {
    test_tensor input, indices, output;
    dmlref_gather_elements_desc desc;
    dmlref_operator_desc op;
    dmlref_binding in[2], out[1];
} ge_buffers;

static void ge_setup(ge_buffers *b)
{
    static const double input[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    static const int64_t indices[6] = {1, 2, 0, 2, 0, 0};
    tt_init(&b->input, TYPE(FLOAT32), 4, U32(1, 1, 3, 3), NULL, 0);
    tt_init(&b->indices, TYPE(UINT32), 4, U32(1, 1, 2, 3), NULL, 0);
    tt_init(&b->output, TYPE(FLOAT32), 4, U32(1, 1, 2, 3), NULL, 0);
    tt_set_values(&b->input, input);
    tt_set_indices(&b->indices, indices);
    b->desc.InputTensor = &b->input.desc;
    b->desc.IndicesTensor = &b->indices.desc;
    b->desc.OutputTensor = &b->output.desc;
    b->desc.Axis = 2;
    b->op.Type = DMLREF_OPERATOR_GATHER_ELEMENTS;
    b->op.Desc = &b->desc;
    b->in[0] = tt_binding(&b->input);
    b->in[1] = tt_binding(&b->indices);
    b->out[0] = tt_binding(&b->output);
}

static void ge_teardown(ge_buffers *b)
{
    tt_free(&b->input);
    tt_free(&b->indices);
    tt_free(&b->output);
}

/* Every byte of the buffer still holds `fill`. */
static void assert_filled(const unsigned char *p, size_t bytes, unsigned char fill)
{
    size_t i;
    for (i = 0; i < bytes; ++i) {
        if (p[i] != fill) {
            print_error("byte %u of the buffer is 0x%02x, not its fill 0x%02x\n", (unsigned)i, p[i],
                        fill);
            fail();
        }
    }
}

/* The output tensor was not written at all, nor its guard bytes. */
static void assert_untouched(const test_tensor *t)
{
    if (!tt_untouched(t)) {
        assert_filled(t->data, (size_t)t->desc.TotalTensorSizeInBytes, PADDING_FILL);
        print_error("a guard byte around the buffer changed\n");
        fail();
    }
}

static void assert_ge_output(const unsigned char *data, const float *expected)
{
    float got[6];
    memcpy(got, data, sizeof got);
    assert_memory_equal(got, expected, sizeof got);
}

static const float k_ge_expected[6] = {4, 8, 3, 7, 2, 3};

static void expect_execute_error(dmlref_status got, const dmlref_error *err, dmlref_status want,
                                 const char *rule, const char *text)
{
    expect_status(got, want, err);
    check_error(err, want, rule, text, "GATHER_ELEMENTS");
}

/* Ensure the valid example executes, as the control for the tests below. */
static void test_execute_gather_elements_control(void **state)
{
    ge_buffers b;
    dmlref_error err;
    (void)state;
    ge_setup(&b);
    expect_status(dmlref_execute(&b.op, L(2_1), b.in, 2, b.out, 1, &err), DMLREF_OK, &err);
    assert_ge_output(b.output.data, k_ge_expected);
    assert_true(tt_guards_intact(&b.output));
    ge_teardown(&b);
}

/* Ensure wrong numbers of input or output bindings are BINDING_COUNT and
   write nothing. */
static void test_execute_binding_count(void **state)
{
    static const size_t counts[][2] = {{1, 1}, {3, 1}, {2, 0}, {2, 2}, {0, 0}};
    ge_buffers b;
    dmlref_binding in[3], out[2];
    dmlref_error err;
    char text[96];
    size_t i;
    (void)state;
    ge_setup(&b);
    in[0] = b.in[0], in[1] = b.in[1], in[2] = b.in[1];
    out[0] = out[1] = b.out[0];
    for (i = 0; i < sizeof counts / sizeof counts[0]; ++i) {
        memset(&err, 0, sizeof err);
        snprintf(text, sizeof text,
                 "%u input and %u output bindings given, the operator has 2 and 1",
                 (unsigned)counts[i][0], (unsigned)counts[i][1]);
        expect_execute_error(
            dmlref_execute(&b.op, L(6_4), in, counts[i][0], out, counts[i][1], &err), &err,
            DMLREF_ERROR_BINDING_COUNT, "", text);
        assert_untouched(&b.output);
    }
    ge_teardown(&b);
}

/* Ensure SCATTER_ELEMENTS (3 inputs) and NONZERO_COORDINATES (2 outputs)
   count their bindings too, and write nothing. */
static void test_execute_binding_count_scatter_nonzero(void **state)
{
    unsigned char buffer[256];
    dmlref_binding bindings[3];
    dmlref_error err;
    fixture f;
    size_t i;
    (void)state;
    memset(buffer, PADDING_FILL, sizeof buffer);
    for (i = 0; i < 3; ++i) {
        bindings[i].data = buffer + 64 * i;
        bindings[i].size_in_bytes = 64;
    }
    sc_valid(&f);
    expect_status(dmlref_execute(&f.op, L(6_4), bindings, 2, bindings + 2, 1, &err),
                  DMLREF_ERROR_BINDING_COUNT, &err);
    check_error(&err, DMLREF_ERROR_BINDING_COUNT, "",
                "2 input and 1 output bindings given, the operator has 3 and 1",
                "SCATTER_ELEMENTS");
    nz_valid(&f);
    expect_status(dmlref_execute(&f.op, L(6_4), bindings, 1, bindings + 1, 1, &err),
                  DMLREF_ERROR_BINDING_COUNT, &err);
    check_error(&err, DMLREF_ERROR_BINDING_COUNT, "",
                "1 input and 1 output bindings given, the operator has 1 and 2",
                "NONZERO_COORDINATES");
    assert_filled(buffer, sizeof buffer, PADDING_FILL);
}

/* Ensure NULL binding arrays are INVALID_ARGUMENT and write nothing. */
static void test_execute_null_binding_arrays(void **state)
{
    ge_buffers b;
    dmlref_error err;
    (void)state;
    ge_setup(&b);
    expect_execute_error(dmlref_execute(&b.op, L(6_4), NULL, 2, b.out, 1, &err), &err,
                         DMLREF_ERROR_INVALID_ARGUMENT, "", "the inputs array is NULL");
    expect_execute_error(dmlref_execute(&b.op, L(6_4), b.in, 2, NULL, 1, &err), &err,
                         DMLREF_ERROR_INVALID_ARGUMENT, "", "the outputs array is NULL");
    assert_untouched(&b.output);
    ge_teardown(&b);
}

/* Ensure a binding with NULL data is BINDING_MISSING (R-TD-12) and nothing is
   written. */
static void test_execute_binding_missing(void **state)
{
    ge_buffers b;
    dmlref_binding in[2], out[1];
    dmlref_error err;
    (void)state;
    ge_setup(&b);
    in[0] = b.in[0], in[1] = b.in[1], out[0] = b.out[0];
    in[1].data = NULL;
    expect_execute_error(dmlref_execute(&b.op, L(6_4), in, 2, out, 1, &err), &err,
                         DMLREF_ERROR_BINDING_MISSING, "R-TD-12",
                         "the binding of IndicesTensor has no data");
    assert_untouched(&b.output);
    in[1] = b.in[1];
    out[0].data = NULL;
    expect_execute_error(dmlref_execute(&b.op, L(6_4), in, 2, out, 1, &err), &err,
                         DMLREF_ERROR_BINDING_MISSING, "R-TD-12",
                         "the binding of OutputTensor has no data");
    assert_untouched(&b.output);
    ge_teardown(&b);
}

/* Ensure a binding one byte smaller than TotalTensorSizeInBytes is
   BINDING_TOO_SMALL (R-TD-12), for an input and for the output, and nothing
   is written. */
static void test_execute_binding_too_small(void **state)
{
    ge_buffers b;
    dmlref_binding in[2], out[1];
    dmlref_error err;
    (void)state;
    ge_setup(&b);
    in[0] = b.in[0], in[1] = b.in[1], out[0] = b.out[0];
    out[0].size_in_bytes -= 1;
    expect_execute_error(dmlref_execute(&b.op, L(6_4), in, 2, out, 1, &err), &err,
                         DMLREF_ERROR_BINDING_TOO_SMALL, "R-TD-12",
                         "the binding of OutputTensor holds 23 bytes, less than its "
                         "TotalTensorSizeInBytes = 24");
    assert_untouched(&b.output);
    out[0] = b.out[0];
    in[0].size_in_bytes -= 1;
    expect_execute_error(dmlref_execute(&b.op, L(6_4), in, 2, out, 1, &err), &err,
                         DMLREF_ERROR_BINDING_TOO_SMALL, "R-TD-12",
                         "the binding of InputTensor holds 35 bytes, less than its "
                         "TotalTensorSizeInBytes = 36");
    assert_untouched(&b.output);
    ge_teardown(&b);
}

/* Ensure an output bound 4 bytes past a 16-byte boundary while its
   descriptor promises GuaranteedBaseOffsetAlignment = 16 is
   BINDING_MISALIGNED (R-TD-14) and writes nothing; bound on the boundary it
   executes. */
static void test_execute_binding_misaligned(void **state)
{
    unsigned char buffer[24 + 64], *aligned;
    ge_buffers b;
    dmlref_binding out[1];
    dmlref_error err;
    (void)state;
    ge_setup(&b);
    b.output.desc.GuaranteedBaseOffsetAlignment = 16;
    memset(buffer, PADDING_FILL, sizeof buffer);
    aligned = buffer + (16 - (uintptr_t)buffer % 16) % 16;
    out[0].data = aligned + 4;
    out[0].size_in_bytes = 24;
    expect_execute_error(dmlref_execute(&b.op, L(6_4), b.in, 2, out, 1, &err), &err,
                         DMLREF_ERROR_BINDING_MISALIGNED, "R-TD-14",
                         "the binding of OutputTensor is not aligned to its "
                         "GuaranteedBaseOffsetAlignment = 16");
    assert_filled(buffer, sizeof buffer, PADDING_FILL);
    out[0].data = aligned;
    expect_status(dmlref_execute(&b.op, L(6_4), b.in, 2, out, 1, &err), DMLREF_OK, &err);
    assert_ge_output(aligned, k_ge_expected);
    ge_teardown(&b);
}

/* Ensure an output sharing even 4 bytes with an input, or lying inside
   another input, is BINDING_OVERLAP (D6, R-TD-18) and nothing changes; the
   output right after the input executes. */
static void test_execute_output_overlaps_input(void **state)
{
    unsigned char buffer[36 + 24], before[36 + 24];
    ge_buffers b;
    dmlref_binding in[2], out[1];
    dmlref_error err;
    (void)state;
    ge_setup(&b);
    memset(buffer, PADDING_FILL, sizeof buffer);
    memcpy(buffer, b.input.data, 36); /* the input at bytes 0..35 */
    memcpy(before, buffer, sizeof buffer);
    in[0].data = buffer, in[0].size_in_bytes = 36;
    in[1] = b.in[1];
    out[0].data = buffer + 32, out[0].size_in_bytes = 24; /* bytes 32..55 */
    expect_execute_error(dmlref_execute(&b.op, L(6_4), in, 2, out, 1, &err), &err,
                         DMLREF_ERROR_BINDING_OVERLAP, "D6",
                         "the binding of OutputTensor overlaps the binding of InputTensor");
    assert_memory_equal(buffer, before, sizeof buffer);

    out[0] = b.in[1]; /* the output on the indices themselves */
    expect_execute_error(dmlref_execute(&b.op, L(6_4), in, 2, out, 1, &err), &err,
                         DMLREF_ERROR_BINDING_OVERLAP, "D6",
                         "the binding of OutputTensor overlaps the binding of IndicesTensor");
    assert_memory_equal(buffer, before, sizeof buffer);
    assert_true(tt_guards_intact(&b.indices));

    out[0].data = buffer + 36, out[0].size_in_bytes = 24; /* adjacent: valid */
    expect_status(dmlref_execute(&b.op, L(6_4), in, 2, out, 1, &err), DMLREF_OK, &err);
    assert_memory_equal(buffer, before, 36);
    assert_ge_output(buffer + 36, k_ge_expected);
    ge_teardown(&b);
}

/* Ensure NONZERO_COORDINATES' two outputs in one buffer, the count inside
   the coordinates, are BINDING_OVERLAP (D6) and nothing is written; side by
   side they execute. */
static void test_execute_nonzero_outputs_overlap(void **state)
{
    static const double input[8] = {1, 0, 0, 2, 0, 3.5, 0, -5};
    static const uint32_t rows[12] = {0, 0, 0, 0, 0, 3, 0, 1, 1, 0, 1, 3};
    unsigned char buffer[96 + 4];
    test_tensor in_t;
    fixture f;
    dmlref_binding in[1], out[2];
    dmlref_error err;
    uint32_t count, coordinates[12];
    (void)state;
    nz_valid(&f);
    tt_init(&in_t, TYPE(FLOAT32), 4, U32(1, 1, 2, 4), NULL, 0);
    tt_set_values(&in_t, input);
    f.nz.InputTensor = &in_t.desc;
    in[0] = tt_binding(&in_t);
    memset(buffer, PADDING_FILL, sizeof buffer);
    out[1].data = buffer, out[1].size_in_bytes = 96;    /* coordinates: bytes 0..95 */
    out[0].data = buffer + 8, out[0].size_in_bytes = 4; /* count: bytes 8..11 */
    expect_status(dmlref_execute(&f.op, L(3_0), in, 1, out, 2, &err), DMLREF_ERROR_BINDING_OVERLAP,
                  &err);
    check_error(&err, DMLREF_ERROR_BINDING_OVERLAP, "D6",
                "the binding of OutputCountTensor overlaps the binding of OutputCoordinatesTensor",
                "NONZERO_COORDINATES");
    assert_filled(buffer, sizeof buffer, PADDING_FILL);

    out[0].data = buffer + 96; /* count right after the coordinates: valid */
    expect_status(dmlref_execute(&f.op, L(3_0), in, 1, out, 2, &err), DMLREF_OK, &err);
    memcpy(&count, buffer + 96, 4);
    memcpy(coordinates, buffer, sizeof coordinates);
    assert_int_equal(count, 4);
    assert_memory_equal(coordinates, rows, sizeof rows);
    tt_free(&in_t);
}

/* Ensure the OOB policy: an index 5 into a dimension of 3 fails under
   DMLREF_OOB_ERROR (the default, D1) without writing, executes clamped to 2
   under DMLREF_OOB_CLAMP, and an oob_policy that is neither is
   INVALID_ARGUMENT and writes nothing. */
static void test_execute_oob_policy(void **state)
{
    static const int64_t indices[6] = {5, 2, 0, 2, 0, 0};
    static const float clamped[6] = {7, 8, 3, 7, 2, 3};
    dmlref_execute_options options;
    ge_buffers b;
    dmlref_error err;
    (void)state;
    ge_setup(&b);
    tt_set_indices(&b.indices, indices);

    expect_execute_error(dmlref_execute(&b.op, L(6_4), b.in, 2, b.out, 1, &err), &err,
                         DMLREF_ERROR_INDEX_OUT_OF_RANGE, "D1",
                         "IndicesTensor[0, 0, 0, 0] = 5 is out of range for InputTensor.Sizes[2] = "
                         "3");
    assert_untouched(&b.output);

    memset(&options, 0, sizeof options);
    options.oob_policy = DMLREF_OOB_ERROR;
    expect_status(dmlref_execute_with_options(&b.op, L(6_4), &options, b.in, 2, b.out, 1, &err),
                  DMLREF_ERROR_INDEX_OUT_OF_RANGE, &err);
    assert_untouched(&b.output);

    options.oob_policy = (dmlref_oob_policy)2;
    expect_execute_error(
        dmlref_execute_with_options(&b.op, L(6_4), &options, b.in, 2, b.out, 1, &err), &err,
        DMLREF_ERROR_INVALID_ARGUMENT, "", "oob_policy = 2 is not a dmlref_oob_policy");
    assert_untouched(&b.output);
    options.oob_policy = (dmlref_oob_policy)-1;
    expect_status(dmlref_execute_with_options(&b.op, L(6_4), &options, b.in, 2, b.out, 1, NULL),
                  DMLREF_ERROR_INVALID_ARGUMENT, NULL);
    assert_untouched(&b.output);

    options.oob_policy = DMLREF_OOB_CLAMP;
    expect_status(dmlref_execute_with_options(&b.op, L(6_4), &options, b.in, 2, b.out, 1, &err),
                  DMLREF_OK, &err);
    assert_ge_output(b.output.data, clamped);
    ge_teardown(&b);
}

/* Ensure num_threads above DMLREF_MAX_THREADS is refused before anything
   runs (an OpenMP runtime asked for 2^31 threads aborts the process), and
   that the limit itself and 7 threads run. */
static void test_execute_num_threads_bound(void **state)
{
    static const float expected[6] = {4, 8, 3, 7, 2, 3};
    dmlref_execute_options options;
    ge_buffers b;
    dmlref_error err;
    (void)state;
    ge_setup(&b);
    memset(&options, 0, sizeof options);
    options.num_threads = 0x80000000u;
    expect_execute_error(
        dmlref_execute_with_options(&b.op, L(6_4), &options, b.in, 2, b.out, 1, &err), &err,
        DMLREF_ERROR_INVALID_ARGUMENT, "", "num_threads = 2147483648 is more than 1024");
    assert_untouched(&b.output);
    options.num_threads = DMLREF_MAX_THREADS + 1;
    expect_status(dmlref_execute_with_options(&b.op, L(6_4), &options, b.in, 2, b.out, 1, &err),
                  DMLREF_ERROR_INVALID_ARGUMENT, &err);
    assert_untouched(&b.output);
    options.num_threads = 7;
    expect_status(dmlref_execute_with_options(&b.op, L(6_4), &options, b.in, 2, b.out, 1, &err),
                  DMLREF_OK, &err);
    assert_ge_output(b.output.data, expected);
    ge_teardown(&b);
}

/* Ensure a refused execution with err == NULL still returns its status and
   writes nothing. */
static void test_execute_err_optional(void **state)
{
    ge_buffers b;
    dmlref_binding out[1];
    (void)state;
    ge_setup(&b);
    out[0] = b.out[0];
    out[0].size_in_bytes -= 1;
    assert_int_equal(dmlref_execute(&b.op, L(6_4), b.in, 2, out, 1, NULL),
                     DMLREF_ERROR_BINDING_TOO_SMALL);
    assert_int_equal(dmlref_execute(&b.op, L(6_4), b.in, 1, b.out, 1, NULL),
                     DMLREF_ERROR_BINDING_COUNT);
    assert_untouched(&b.output);
    ge_teardown(&b);
}

/* ---- feature-level sweeps ------------------------------------------------- */

static const dmlref_feature_level k_levels[15] = {L(1_0), L(2_0), L(2_1), L(3_0), L(3_1),
                                                  L(4_0), L(4_1), L(5_0), L(5_1), L(5_2),
                                                  L(6_0), L(6_1), L(6_2), L(6_3), L(6_4)};

typedef struct sweep {
    const char *name;
    base_fn base;
    break_fn change; /* NULL: the base as it is */
    int slot;
    dmlref_feature_level from; /* the first valid level, 0 for none; valid above */
} sweep;

static const sweep k_sweeps[] = {
    {"sweep/gather_elements/4d_float32_uint32_indices/from_2_1", ge_valid, NULL, NONE, L(2_1)},
    {"sweep/gather_elements/3d/from_3_0", ge_valid, ge_3d, NONE, L(3_0)},
    {"sweep/gather_elements/8d/from_3_0", ge_valid, ge_8d, NONE, L(3_0)},
    {"sweep/gather_elements/D3/int32_indices/from_3_0", ge_valid, to_int32, INDICES, L(3_0)},
    {"sweep/gather_elements/int64_indices/from_3_0", ge_valid, to_int64, INDICES, L(3_0)},
    {"sweep/gather_elements/uint64_indices/from_3_0", ge_valid, to_uint64, INDICES, L(3_0)},
    {"sweep/gather_elements/uint8_data/from_2_1", ge_valid, to_uint8, DATA, L(2_1)},
    {"sweep/gather_elements/float64_data/from_4_1", ge_valid, to_float64, DATA, L(4_1)},
    {"sweep/gather_elements/int16_indices/never", ge_valid, to_int16, INDICES, 0},
    {"sweep/scatter_elements/D17/4d_float32_uint32_indices/from_2_0", sc_valid, NULL, NONE, L(2_0)},
    {"sweep/scatter_elements/D17/float16_data/from_2_0", sc_valid, to_float16, DATA, L(2_0)},
    {"sweep/scatter_elements/int32_data/from_2_1", sc_valid, to_int32, DATA, L(2_1)},
    {"sweep/scatter_elements/3d/from_3_0", sc_valid, sc_3d, NONE, L(3_0)},
    {"sweep/scatter_elements/D3/int64_indices/from_3_0", sc_valid, to_int64, INDICES, L(3_0)},
    {"sweep/scatter_elements/int64_data/from_4_1", sc_valid, to_int64, DATA, L(4_1)},
    {"sweep/scatter_elements/D16/indices_larger_along_axis/never", sc_valid,
     sc_indices_larger_on_axis, NONE, 0},
    {"sweep/gather_nd/4d/from_2_1", nd_valid, NULL, NONE, L(2_1)},
    {"sweep/gather_nd/2d/from_3_0", nd_valid, nd_2d, NONE, L(3_0)},
    {"sweep/gather_nd/5d/from_3_0", nd_valid, nd_doc_shape_example, NONE, L(3_0)},
    {"sweep/gather_nd/D3/int32_indices/from_3_0", nd_valid, to_int32, INDICES, L(3_0)},
    {"sweep/gather_nd/uint64_data/from_4_1", nd_valid, to_uint64, DATA, L(4_1)},
    {"sweep/gather_nd1/4d_batch_1/from_3_0", nd1_valid, NULL, NONE, L(3_0)},
    {"sweep/gather_nd1/R-GN-6/fewer_index_batches/from_3_0", nd1_valid, nd1_batch_differs, NONE,
     L(3_0)},
    {"sweep/gather_nd1/batch_0/from_3_0", nd1_valid, nd1_batch_0, NONE, L(3_0)},
    {"sweep/gather_nd1/float64_data/from_4_1", nd1_valid, to_float64, DATA, L(4_1)},
    {"sweep/nonzero_coordinates/4d_same_rank/from_3_0", nz_valid, NULL, NONE, L(3_0)},
    {"sweep/nonzero_coordinates/5d_same_rank/from_3_0", nz_valid, nz_5d, NONE, L(3_0)},
    {"sweep/nonzero_coordinates/3d_same_rank/from_4_0", nz_valid, nz_3d, NONE, L(4_0)},
    {"sweep/nonzero_coordinates/D10/2d_input_1d_count_2d_coordinates/from_4_0", nz_valid_fl4, NULL,
     NONE, L(4_0)},
    {"sweep/nonzero_coordinates/D10/count_5d_input_4d/from_4_0", nz_valid, add_leading, COUNT,
     L(4_0)},
    {"sweep/nonzero_coordinates/int8_input/from_3_0", nz_valid, to_int8, INPUT, L(3_0)},
    {"sweep/nonzero_coordinates/float64_input/never", nz_valid, to_float64, INPUT, 0},
};

#define SWEEP_COUNT (sizeof k_sweeps / sizeof k_sweeps[0])

static void append_level(char *buf, size_t capacity, dmlref_feature_level level)
{
    size_t used = strlen(buf);
    snprintf(buf + used, capacity - used, "%s%s", used ? " " : "",
             dmlref_feature_level_name(level));
}

/* Ensure the case is valid at exactly the levels from `from` on, and below
   the operator's first level refused as UNSUPPORTED_OPERATOR. */
static void run_sweep(void **state)
{
    const sweep *s = *state;
    char want[128] = "", got[128] = "";
    dmlref_error err;
    fixture f;
    size_t i;

    for (i = 0; i < sizeof k_levels / sizeof k_levels[0]; ++i) {
        dmlref_status status;
        build(&f, s->base, s->change, s->slot);
        memset(&err, 0, sizeof err);
        status = dmlref_validate(&f.op, k_levels[i], &err);
        if (status == DMLREF_OK)
            append_level(got, sizeof got, k_levels[i]);
        if (s->from != 0 && k_levels[i] >= s->from)
            append_level(want, sizeof want, k_levels[i]);
        if (k_levels[i] < dmlref_operator_introduced(f.op.Type))
            expect_status(status, DMLREF_ERROR_UNSUPPORTED_OPERATOR, &err);
        else if (status != DMLREF_OK)
            assert_null(strchr(err.message, '\n'));
    }
    assert_string_equal(got, want);
}

/* ---- main ---------------------------------------------------------------- */

int main(void)
{
    static const struct CMUnitTest others[] = {
        cmocka_unit_test(test_validate_null_op),
        cmocka_unit_test(test_validate_null_desc),
        cmocka_unit_test(test_validate_unknown_operator_type),
        cmocka_unit_test(test_validate_unknown_feature_level),
        cmocka_unit_test(test_validate_err_optional),
        cmocka_unit_test(test_execute_gather_elements_control),
        cmocka_unit_test(test_execute_binding_count),
        cmocka_unit_test(test_execute_binding_count_scatter_nonzero),
        cmocka_unit_test(test_execute_null_binding_arrays),
        cmocka_unit_test(test_execute_binding_missing),
        cmocka_unit_test(test_execute_binding_too_small),
        cmocka_unit_test(test_execute_binding_misaligned),
        cmocka_unit_test(test_execute_output_overlaps_input),
        cmocka_unit_test(test_execute_nonzero_outputs_overlap),
        cmocka_unit_test(test_execute_oob_policy),
        cmocka_unit_test(test_execute_num_threads_bound),
        cmocka_unit_test(test_execute_err_optional),
    };
    int failed = run_table_tests("validate/sweeps", k_sweeps, sizeof k_sweeps[0], SWEEP_COUNT,
                                 run_sweep, NULL, 0);
    build_rows();
    failed += run_table_tests("validate", g_rows, sizeof g_rows[0], g_row_count, run_row, others,
                              sizeof others / sizeof others[0]);
    free_rows();
    return failed;
}
