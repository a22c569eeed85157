/*
 * test_random.c - the fast kernels (src/kernels/) against the reference
 * kernels (reference/), the definition of the answer, on over 100,000
 * random cases: every operator (GATHER_ELEMENTS, SCATTER_ELEMENTS,
 * GATHER_ND, GATHER_ND1, NONZERO_COORDINATES), every data type it allows at
 * the latest feature level with random bit patterns (NaN payloads, -0.0 and
 * subnormals among them), the 4 index types with negative indices, ranks 1
 * to 8, every axis, and random layouts on every tensor: packed, padded,
 * permuted with odd strides, broadcast (stride 0) inputs; outputs are never
 * broadcast, since an output must be injective (D6).  A quarter of the
 * gather and Scatter cases get one or two out-of-range indices, and every
 * case runs under the strict policy or clamps, half of the time each.  A
 * quarter of the small and medium GATHER_ND1 cases with batch dimensions
 * draw fewer index batches than input ones, and a quarter of those one more
 * on a dimension, which both kernels refuse under either policy (R-GN-6).
 *
 * Each case is executed twice on the same input buffers, once with
 * kernels = DMLREF_KERNELS_REFERENCE and once with DMLREF_KERNELS_FAST, each
 * on its own copy of the output buffers, prefilled with the same random
 * bytes.  They must agree exactly: the same status, rule and message, and
 * byte-identical whole output buffers, so a byte no output element covers
 * (output padding: DirectML may write it, R-TD-11, dmlref never does) and
 * NonZero's rows at or past the count (R-NZ-14) must keep their prefill
 * under both.  No byte before or after any buffer may change (D14), no
 * input byte may change, and a refused execution writes nothing (D1, D2).
 *
 * The table's rows: many small cases, fewer medium ones, and a few large
 * ones (hundreds of thousands of elements and more, so the loops split over
 * the team) whose fast run happens at 1, 2 and 7 threads, each compared
 * with one reference run at 1, 2 or 7; the small and medium cases draw the
 * thread counts of both runs.  The program ends with the line
 *   fast vs reference: N random cases (GE n, SC n, GN n, GN1 n, NZ n), all identical
 * DMLREF_TEST_QUICK (the extra builds of make check) runs about 5,000.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/kernels.h"
#include "testlib.h"

/* ---- what ran ------------------------------------------------------------ */

enum op_slot { SLOT_GE, SLOT_SC, SLOT_GN, SLOT_GN1, SLOT_NZ, SLOTS };
static const char *const k_slot_names[SLOTS] = {"GE", "SC", "GN", "GN1", "NZ"};

static unsigned long g_cases[SLOTS]; /* cases compared, per operator */
static unsigned long g_refused;      /* of them, refused by both (out of range) */
static unsigned long g_clamped;      /* of them, out-of-range indices clamped by both */

static int quick(void)
{
    return getenv("DMLREF_TEST_QUICK") != NULL;
}

/* ---- layouts and data ------------------------------------------------------ */

enum layout_kind { PACKED, PADDED, PERMUTED, BROADCAST, LAYOUT_KINDS };

/* Random strides for sizes; returns NULL for packed.  PADDED adds 0 to 2
   elements to each dimension; PERMUTED also orders the dimensions in memory
   at random (odd strides); BROADCAST (inputs only) then sets stride 0 on
   some dimensions. */
static const uint32_t *random_strides(rng *r, enum layout_kind kind, uint32_t rank,
                                      const uint32_t *sizes, uint32_t *strides)
{
    uint32_t order[8], i;
    uint64_t step = 1;
    if (kind == PACKED)
        return NULL;
    for (i = 0; i < rank; ++i)
        order[i] = i;
    if (kind != PADDED) {
        for (i = rank; i > 1; --i) {
            uint32_t j = (uint32_t)rng_below(r, i), tmp = order[i - 1];
            order[i - 1] = order[j];
            order[j] = tmp;
        }
    }
    for (i = rank; i-- > 0;) { /* order[rank-1] is innermost */
        uint32_t d = order[i];
        strides[d] = (uint32_t)step;
        step *= sizes[d] + rng_below(r, 3);
    }
    if (kind == BROADCAST)
        for (i = 0; i < rank; ++i)
            if (rng_below(r, 2))
                strides[i] = 0;
    return strides;
}

static void random_tensor(rng *r, test_tensor *t, dmlref_tensor_data_type type, uint32_t rank,
                          const uint32_t *sizes, int is_output)
{
    uint32_t strides[8];
    enum layout_kind kind = (enum layout_kind)rng_below(r, is_output ? BROADCAST : LAYOUT_KINDS);
    const uint32_t *given = random_strides(r, kind, rank, sizes, strides);
    /* one draw per statement: the same cases whatever order a compiler
       evaluates arguments in */
    tt_init(t, type, rank, sizes, given, rng_below(r, 2) * 4);
}

/* Random bits in every element of t (after a broadcast, later elements win
   the shared addresses). */
static void fill_random(rng *r, test_tensor *t)
{
    uint64_t bytes = tt_count(t) * tt_element_size(t), i;
    unsigned char *p = malloc((size_t)bytes + 1);
    assert_non_null(p);
    for (i = 0; i < bytes; ++i)
        p[i] = (unsigned char)rng_next(r);
    tt_set_raw(t, p);
    free(p);
}

/* Set for the rows of Scatters with two targets a line: every index selects
   element 0 or 1 of its line (counted from either end), so most updates are
   overwritten by the next one, and many lines start with two updates to one
   element, which the fast kernels scatter skipping those (src/kernels/runs.c,
   SCATTER_SKIPPING_OVERWRITTEN). */
static int g_two_targets;

/* In-range indices: element i indexes a dimension of bounds[i % bound_count]
   (one bound for GatherElements and Scatter, one per tuple coordinate for
   GatherND); signed types count half of them from the end. */
static void fill_indices(rng *r, test_tensor *t, const uint64_t *bounds, uint32_t bound_count)
{
    uint64_t n = tt_count(t), i, least = bounds[0];
    int64_t *values = malloc((size_t)n * sizeof *values + 1);
    int is_signed = is_signed_index_type(t->desc.DataType);
    /* a broadcast last dimension makes every tuple coordinate one element */
    int shared = t->desc.Strides && t->strides[t->desc.DimensionCount - 1] == 0;
    assert_non_null(values);
    for (i = 1; i < bound_count; ++i)
        least = bounds[i] < least ? bounds[i] : least;
    for (i = 0; i < n; ++i) {
        const uint64_t bound = shared ? least : bounds[i % bound_count];
        const uint64_t s = g_two_targets && bound > 2 ? 2 : bound;
        int64_t v = (int64_t)rng_below(r, s);
        if (is_signed && rng_below(r, 2))
            v -= (int64_t)s; /* the same element, counted from the end */
        values[i] = v;
    }
    tt_set_indices(t, values);
    free(values);
}

/* One or two index elements out of range for every bound up to `largest`:
   just past the end, before -s (signed), or the type's extremes. */
static void break_indices(rng *r, test_tensor *t, uint64_t largest)
{
    dmlref_tensor_data_type type = t->desc.DataType;
    uint32_t es = tt_element_size(t), k, bad = 1 + (uint32_t)rng_below(r, 2);
    uint64_t n = tt_count(t);
    for (k = 0; k < bad; ++k) {
        int64_t v;
        switch (rng_below(r, 5)) {
        case 0:
            v = (int64_t)largest;
            break;
        case 1:
            v = (int64_t)largest + 1 + (int64_t)rng_below(r, 3);
            break;
        case 2:
            v = is_signed_index_type(type) ? -(int64_t)largest - 1 : (int64_t)largest;
            break;
        case 3: /* the largest value: 2^31-1, 2^32-1, 2^63-1, 2^64-1 */
            v = type == DMLREF_TENSOR_DATA_TYPE_INT32    ? INT32_MAX
                : type == DMLREF_TENSOR_DATA_TYPE_UINT32 ? (int64_t)UINT32_MAX
                : type == DMLREF_TENSOR_DATA_TYPE_INT64  ? INT64_MAX
                                                         : -1; /* UINT64_MAX */
            break;
        default: /* the smallest signed value; unsigned: 2^31 and 2^63, negative as signed */
            v = type == DMLREF_TENSOR_DATA_TYPE_INT32    ? INT32_MIN
                : type == DMLREF_TENSOR_DATA_TYPE_UINT32 ? (int64_t)0x80000000u
                                                         : INT64_MIN;
            break;
        }
        encode_index(type, v, t->data + tt_offset(t, rng_below(r, n)) * es);
    }
}

/* Random sizes for `rank` dimensions with at most `budget` elements, each
   around the rank-th root of the budget so large budgets give large cases. */
static void random_sizes(rng *r, uint32_t rank, uint64_t budget, uint32_t *sizes)
{
    uint64_t total = 1, root = 1, power;
    uint32_t i;
    do { /* the largest root with root^rank <= budget */
        ++root;
        for (power = 1, i = 0; i < rank && power <= budget; ++i)
            power *= root;
    } while (power <= budget);
    --root;
    for (i = 0; i < rank; ++i) {
        uint64_t room = budget / total, limit = 2 * root, low;
        if (limit > room)
            limit = room ? room : 1;
        low = limit / 2 ? limit / 2 : 1;
        sizes[i] = (uint32_t)(low + rng_below(r, limit - low + 1));
        total *= sizes[i];
    }
}

/* ---- one case ---------------------------------------------------------------- */

/* A case: the operator, its descriptor, its tensors (inputs, then outputs:
   the reference's copy, written by the reference kernels) and a second copy
   of each output for the fast kernels. */
typedef struct random_case {
    dmlref_operator_type type;
    enum op_slot slot;
    union {
        dmlref_gather_elements_desc ge;
        dmlref_scatter_elements_desc sc;
        dmlref_gather_nd_desc gn;
        dmlref_gather_nd1_desc gn1;
        dmlref_nonzero_coordinates_desc nz;
    } d;
    test_tensor t[4];
    test_tensor fast[2];
    size_t inputs, outputs;
    dmlref_oob_policy policy;
    int out_of_range;    /* indices were broken */
    int batches_outside; /* GATHER_ND1 with more index batches than input ones */
    uint32_t nz_columns; /* NonZero's N */
    char what[160];
} random_case;

typedef void (*make_fn)(rng *, uint64_t, random_case *);

static dmlref_tensor_data_type any_data_type(rng *r)
{
    return k_all_data_types[rng_below(r, 11)];
}
static dmlref_tensor_data_type any_index_type(rng *r)
{
    return k_all_index_types[rng_below(r, 4)];
}

/* Set for the rows of wide cases: rank 2 along axis 0 with 8-byte elements,
   so the selected elements spread over more than a mebibyte and the fast
   kernels request them ahead (src/kernels/runs.c, SCATTERED_SPAN). */
static int g_wide;

static const dmlref_tensor_data_type k_wide_types[3] = {
    DMLREF_TENSOR_DATA_TYPE_FLOAT64, DMLREF_TENSOR_DATA_TYPE_INT64, DMLREF_TENSOR_DATA_TYPE_UINT64};

/* Set for the rows of transposed cases: rank 2, 8-byte elements, the input
   stored column by column, so a run's elements lie a page or more apart and
   the fast GatherElements gathers in tiles of runs (src/kernels/runs.c,
   tiled). */
static int g_transposed;

/* Set for the row of GatherElements outputs large enough to be written
   with streaming stores (STREAM_MIN_BYTES in src/kernels/kernels.h, 64 MiB,
   of 8-byte elements): rank 2, 2048 x 4100 8-byte elements, the output
   packed at an 8-byte aligned address. */
static int g_streamed;
static const uint32_t k_streamed_sizes[2] = {2048, 4100};

static void shape_and_types(rng *r, uint32_t *rank, uint32_t *axis, dmlref_tensor_data_type *type,
                            dmlref_tensor_data_type *itype)
{
    const int two_d = g_wide || g_transposed || g_streamed;
    *rank = two_d ? 2 : 1 + (uint32_t)rng_below(r, 8);
    *axis = g_wide ? 0 : (uint32_t)rng_below(r, *rank);
    *type = two_d ? k_wide_types[rng_below(r, 3)] : any_data_type(r);
    *itype = any_index_type(r);
}

static void make_gather_elements(rng *r, uint64_t budget, random_case *c)
{
    uint32_t rank, in_sizes[8], idx_sizes[8], axis;
    dmlref_tensor_data_type type, itype;
    uint64_t bound;

    shape_and_types(r, &rank, &axis, &type, &itype);
    random_sizes(r, rank, budget, in_sizes);
    memcpy(idx_sizes, in_sizes, sizeof idx_sizes);
    idx_sizes[axis] = 1 + (uint32_t)rng_below(r, in_sizes[axis] + 2); /* any size on the axis */
    if (g_streamed) {
        memcpy(in_sizes, k_streamed_sizes, sizeof k_streamed_sizes);
        memcpy(idx_sizes, k_streamed_sizes, sizeof k_streamed_sizes);
    }
    random_tensor(r, &c->t[0], type, rank, in_sizes, 0);
    if (g_transposed) {
        const uint32_t by_column[2] = {1, in_sizes[0]};
        tt_free(&c->t[0]);
        tt_init(&c->t[0], type, rank, in_sizes, by_column, 0);
    }
    random_tensor(r, &c->t[1], itype, rank, idx_sizes, 0);
    random_tensor(r, &c->t[2], type, rank, idx_sizes, 1);
    if (g_streamed) {
        tt_free(&c->t[2]);
        tt_init(&c->t[2], type, rank, idx_sizes, NULL, 0);
    }
    bound = in_sizes[axis];
    fill_random(r, &c->t[0]);
    fill_indices(r, &c->t[1], &bound, 1);
    if (rng_below(r, 4) == 0)
        break_indices(r, &c->t[1], bound), c->out_of_range = 1;

    c->type = DMLREF_OPERATOR_GATHER_ELEMENTS, c->slot = SLOT_GE, c->inputs = 2, c->outputs = 1;
    c->d.ge.InputTensor = &c->t[0].desc, c->d.ge.IndicesTensor = &c->t[1].desc;
    c->d.ge.OutputTensor = &c->t[2].desc, c->d.ge.Axis = axis;
    snprintf(c->what, sizeof c->what, "GATHER_ELEMENTS %s, %s indices, rank %u, axis %u",
             dmlref_data_type_name(type), dmlref_data_type_name(itype), rank, axis);
}

/* Duplicate targets included: the last update wins (D4), under any policy. */
static void make_scatter_elements(rng *r, uint64_t budget, random_case *c)
{
    uint32_t rank, in_sizes[8], idx_sizes[8], axis;
    dmlref_tensor_data_type type, itype;
    uint64_t bound;

    shape_and_types(r, &rank, &axis, &type, &itype);
    random_sizes(r, rank, budget, in_sizes);
    memcpy(idx_sizes, in_sizes, sizeof idx_sizes);
    /* at most the input's along the axis (R-SC-4, D16); duplicate targets
       come from repeated index values */
    idx_sizes[axis] = 1 + (uint32_t)rng_below(r, in_sizes[axis]);
    random_tensor(r, &c->t[0], type, rank, in_sizes, 0);
    random_tensor(r, &c->t[1], itype, rank, idx_sizes, 0);
    random_tensor(r, &c->t[2], type, rank, idx_sizes, 0);
    random_tensor(r, &c->t[3], type, rank, in_sizes, 1);
    bound = in_sizes[axis];
    fill_random(r, &c->t[0]);
    fill_indices(r, &c->t[1], &bound, 1);
    fill_random(r, &c->t[2]);
    if (rng_below(r, 4) == 0)
        break_indices(r, &c->t[1], bound), c->out_of_range = 1;

    c->type = DMLREF_OPERATOR_SCATTER_ELEMENTS, c->slot = SLOT_SC, c->inputs = 3, c->outputs = 1;
    c->d.sc.InputTensor = &c->t[0].desc, c->d.sc.IndicesTensor = &c->t[1].desc;
    c->d.sc.UpdatesTensor = &c->t[2].desc, c->d.sc.OutputTensor = &c->t[3].desc;
    c->d.sc.Axis = axis;
    snprintf(c->what, sizeof c->what, "SCATTER_ELEMENTS %s, %s indices, rank %u, axis %u",
             dmlref_data_type_name(type), dmlref_data_type_name(itype), rank, axis);
}

/* GATHER_ND and GATHER_ND1: batch dimensions, slices, leading ones. */
static void make_gather_nd(rng *r, uint64_t budget, random_case *c)
{
    uint32_t D, m, q, b, k, rr, i, in_sizes[8], idx_sizes[8], out_sizes[8], meaningful[8];
    dmlref_tensor_data_type type = any_data_type(r), itype = any_index_type(r);
    uint64_t bounds[8], largest = 0;

    do { /* a valid (D, m, q, b, k): the output must fit D dimensions */
        D = 1 + (uint32_t)rng_below(r, 8);
        m = 1 + (uint32_t)rng_below(r, D);
        q = 1 + (uint32_t)rng_below(r, D);
        b = (uint32_t)rng_below(r, (m < q ? m : q));
        k = 1 + (uint32_t)rng_below(r, m - b);
        rr = m - b - k;
    } while (q - 1 + rr > D);

    random_sizes(r, m, budget, meaningful);
    for (i = 0; i < D; ++i)
        in_sizes[i] = i < D - m ? 1 : meaningful[i - (D - m)];
    random_sizes(r, q, budget / 4 + 1, meaningful);
    for (i = 0; i < D; ++i)
        idx_sizes[i] = i < D - q ? 1 : meaningful[i - (D - q)];
    for (i = 0; i < b; ++i) /* batch dimensions: mostly the input's */
        idx_sizes[D - q + i] = in_sizes[D - m + i];
    /* fewer index batches: valid (R-GN-6); in the small and medium rows
       only, so that the large row's cases, drawn as before, stay the size
       they were */
    if (b > 0 && budget <= 3000 && rng_below(r, 4) == 0) {
        for (i = 0; i < b; ++i)
            idx_sizes[D - q + i] = 1 + (uint32_t)rng_below(r, in_sizes[D - m + i]);
        if (rng_below(r, 4) == 0) { /* more on one dimension: refused (R-GN-6) */
            i = (uint32_t)rng_below(r, b);
            idx_sizes[D - q + i] = in_sizes[D - m + i] + 1;
            c->batches_outside = 1;
        }
    }
    idx_sizes[D - 1] = k;
    for (i = 0; i < D; ++i)
        out_sizes[i] = 1;
    for (i = 0; i + 1 < q; ++i)
        out_sizes[D - (q - 1 + rr) + i] = idx_sizes[D - q + i];
    for (i = 0; i < rr; ++i)
        out_sizes[D - rr + i] = in_sizes[D - rr + i];

    random_tensor(r, &c->t[0], type, D, in_sizes, 0);
    random_tensor(r, &c->t[1], itype, D, idx_sizes, 0);
    random_tensor(r, &c->t[2], type, D, out_sizes, 1);
    for (i = 0; i < k; ++i) {
        bounds[i] = in_sizes[D - m + b + i];
        largest = bounds[i] > largest ? bounds[i] : largest;
    }
    fill_random(r, &c->t[0]);
    fill_indices(r, &c->t[1], bounds, k);
    if (rng_below(r, 4) == 0)
        break_indices(r, &c->t[1], largest), c->out_of_range = 1;

    c->inputs = 2, c->outputs = 1;
    if (b == 0 && rng_below(r, 2)) {
        c->type = DMLREF_OPERATOR_GATHER_ND, c->slot = SLOT_GN;
        c->d.gn.InputTensor = &c->t[0].desc, c->d.gn.IndicesTensor = &c->t[1].desc;
        c->d.gn.OutputTensor = &c->t[2].desc;
        c->d.gn.InputDimensionCount = m, c->d.gn.IndicesDimensionCount = q;
    } else {
        c->type = DMLREF_OPERATOR_GATHER_ND1, c->slot = SLOT_GN1;
        c->d.gn1.InputTensor = &c->t[0].desc, c->d.gn1.IndicesTensor = &c->t[1].desc;
        c->d.gn1.OutputTensor = &c->t[2].desc;
        c->d.gn1.InputDimensionCount = m, c->d.gn1.IndicesDimensionCount = q;
        c->d.gn1.BatchDimensionCount = b;
    }
    snprintf(c->what, sizeof c->what, "%s %s, %s indices, rank %u, m %u, q %u, b %u",
             c->slot == SLOT_GN ? "GATHER_ND" : "GATHER_ND1", dmlref_data_type_name(type),
             dmlref_data_type_name(itype), D, m, q, b);
}

/* The 8 input types NonZero allows (R-NZ-7). */
static const dmlref_tensor_data_type k_nonzero_types[8] = {
    DMLREF_TENSOR_DATA_TYPE_FLOAT32, DMLREF_TENSOR_DATA_TYPE_FLOAT16,
    DMLREF_TENSOR_DATA_TYPE_UINT32,  DMLREF_TENSOR_DATA_TYPE_UINT16,
    DMLREF_TENSOR_DATA_TYPE_UINT8,   DMLREF_TENSOR_DATA_TYPE_INT32,
    DMLREF_TENSOR_DATA_TYPE_INT16,   DMLREF_TENSOR_DATA_TYPE_INT8};

/* Densities from all-zero to dense, -0.0 and other sign-only patterns, NaN,
   right-aligned columns for N < D, any coordinate layout. */
static void make_nonzero(rng *r, uint64_t budget, random_case *c)
{
    uint32_t D = 1 + (uint32_t)rng_below(r, 8), in_sizes[8], co_sizes[8], cn_sizes[8];
    uint32_t co_rank = 2 + (uint32_t)rng_below(r, 7), cn_rank = 1 + (uint32_t)rng_below(r, 8);
    uint32_t e, N, M, i;
    dmlref_tensor_data_type type = k_nonzero_types[rng_below(r, 8)];
    unsigned char *in_el;
    uint64_t n, zero_odds = rng_below(r, 5), j;
    uint32_t es = dmlref_data_type_size(type);

    random_sizes(r, D, budget, in_sizes);
    if (rng_below(r, 2)) /* leading ones lower the effective rank */
        for (i = 0; i < D / 2; ++i)
            in_sizes[i] = 1;
    for (e = D; e > 0 && in_sizes[D - e] == 1; --e)
        ;
    N = (e ? e : 1) + (uint32_t)rng_below(r, D - (e ? e : 1) + 1);
    M = 1;
    for (i = 0; i < D; ++i)
        M *= in_sizes[i];
    for (i = 0; i < 8; ++i)
        co_sizes[i] = cn_sizes[i] = 1;
    co_sizes[co_rank - 2] = M;
    co_sizes[co_rank - 1] = N;

    random_tensor(r, &c->t[0], type, D, in_sizes, 0);
    random_tensor(r, &c->t[1], DMLREF_TENSOR_DATA_TYPE_UINT32, cn_rank, cn_sizes, 1);
    random_tensor(r, &c->t[2], DMLREF_TENSOR_DATA_TYPE_UINT32, co_rank, co_sizes, 1);
    n = tt_count(&c->t[0]);
    in_el = malloc((size_t)(n * es) + 1);
    assert_non_null(in_el);
    for (j = 0; j < n * es; ++j)
        in_el[j] = (unsigned char)rng_next(r);
    for (j = 0; j < n; ++j) { /* zeros, sign-only patterns (-0.0 for floats), random bits */
        uint64_t pick = rng_below(r, 8);
        if (pick < zero_odds * 2) {
            memset(in_el + j * es, 0, es);
        } else if (pick == 7) {
            memset(in_el + j * es, 0, es);
            in_el[j * es + es - 1] = 0x80;
        }
    }
    tt_set_raw(&c->t[0], in_el);
    free(in_el);

    c->type = DMLREF_OPERATOR_NONZERO_COORDINATES, c->slot = SLOT_NZ;
    c->inputs = 1, c->outputs = 2, c->nz_columns = N;
    c->d.nz.InputTensor = &c->t[0].desc, c->d.nz.OutputCountTensor = &c->t[1].desc;
    c->d.nz.OutputCoordinatesTensor = &c->t[2].desc;
    snprintf(c->what, sizeof c->what, "NONZERO_COORDINATES %s, rank %u, N %u",
             dmlref_data_type_name(type), D, N);
}

/* ---- running a case with both kernels ----------------------------------------- */

/* A copy of t's layout (sizes, strides, TotalTensorSizeInBytes) with its own buffer. */
static void clone_layout(test_tensor *dst, const test_tensor *src)
{
    const dmlref_tensor_desc *d = &src->desc;
    uint64_t minimum =
        dmlref_calc_buffer_tensor_size(d->DataType, d->DimensionCount, d->Sizes, d->Strides);
    tt_init(dst, d->DataType, d->DimensionCount, d->Sizes, d->Strides,
            d->TotalTensorSizeInBytes - minimum);
}

static dmlref_status execute(random_case *c, dmlref_kernels kernels, uint32_t threads,
                             test_tensor *outputs, dmlref_error *err)
{
    dmlref_execute_options options;
    dmlref_operator_desc op;
    dmlref_binding in[3], out[2];
    size_t i;
    memset(&options, 0, sizeof options);
    options.oob_policy = c->policy;
    options.num_threads = threads;
    options.kernels = kernels;
    op.Type = c->type;
    op.Desc = &c->d;
    for (i = 0; i < c->inputs; ++i)
        in[i] = tt_binding(&c->t[i]);
    for (i = 0; i < c->outputs; ++i)
        out[i] = tt_binding(&outputs[i]);
    memset(err, 0, sizeof *err);
    return dmlref_execute_with_options(&op, DMLREF_FEATURE_LEVEL_LATEST, &options, in, c->inputs,
                                       out, c->outputs, err);
}

/* 1 when every byte of t that no element covers still holds `prefill`. */
static int padding_kept(const test_tensor *t, const unsigned char *prefill)
{
    size_t total = (size_t)t->desc.TotalTensorSizeInBytes, i;
    uint64_t n = tt_count(t), e;
    uint32_t es = tt_element_size(t);
    unsigned char *is_element = calloc(total ? total : 1, 1);
    int ok = 1;
    assert_non_null(is_element);
    for (e = 0; e < n; ++e)
        memset(is_element + tt_offset(t, e) * es, 1, es);
    for (i = 0; i < total && ok; ++i)
        ok = is_element[i] || t->data[i] == prefill[i];
    free(is_element);
    return ok;
}

/* "byte 12 (element [0, 3])" or "byte 12 (no element covers it)". */
static void describe_byte(const test_tensor *t, uint64_t byte, char *out, size_t capacity)
{
    uint64_t n = tt_count(t), e, c[8], pos;
    uint32_t es = tt_element_size(t), rank = t->desc.DimensionCount, d;
    for (e = 0; e < n; ++e) {
        uint64_t at = tt_offset(t, e) * es;
        if (byte >= at && byte < at + es)
            break;
    }
    if (e == n) {
        snprintf(out, capacity, "byte %llu (no element covers it)", (unsigned long long)byte);
        return;
    }
    for (pos = e, d = rank; d-- > 0;) {
        c[d] = pos % t->sizes[d];
        pos /= t->sizes[d];
    }
    snprintf(out, capacity, "byte %llu (element [", (unsigned long long)byte);
    for (d = 0; d < rank; ++d)
        snprintf(out + strlen(out), capacity - strlen(out), "%s%llu", d ? ", " : "",
                 (unsigned long long)c[d]);
    snprintf(out + strlen(out), capacity - strlen(out), "])");
}

/* "1 thread", "7 threads", "OpenMP's default threads" (0). */
static const char *threads_text(uint32_t threads, char *out, size_t capacity)
{
    if (threads == 0)
        snprintf(out, capacity, "OpenMP's default threads");
    else
        snprintf(out, capacity, "%u thread%s", threads, threads == 1 ? "" : "s");
    return out;
}

/* Runs the case with the reference kernels on `ref_threads` and with the
   fast kernels on each of `fast_threads`, and requires them to agree. */
static void run_both(rng *r, random_case *c, uint32_t ref_threads, const uint32_t *fast_threads,
                     size_t fast_runs, const char *row, unsigned long number)
{
    unsigned char *prefill[2] = {NULL, NULL}, *inputs[3] = {NULL, NULL, NULL};
    dmlref_status want, got;
    dmlref_error want_err, got_err;
    size_t i, k;
    uint64_t b;
    char ft[32], rt[32];

    c->policy = rng_below(r, 2) ? DMLREF_OOB_CLAMP : DMLREF_OOB_ERROR;
    for (i = 0; i < c->outputs; ++i) { /* both copies of each output: the same random bytes */
        size_t total = (size_t)c->t[c->inputs + i].desc.TotalTensorSizeInBytes;
        clone_layout(&c->fast[i], &c->t[c->inputs + i]);
        prefill[i] = malloc(total + 1);
        assert_non_null(prefill[i]);
        for (b = 0; b < total; ++b)
            prefill[i][b] = (unsigned char)rng_next(r);
        memcpy(c->t[c->inputs + i].data, prefill[i], total);
    }
    for (i = 0; i < c->inputs; ++i) {
        size_t total = (size_t)c->t[i].desc.TotalTensorSizeInBytes;
        inputs[i] = malloc(total + 1);
        assert_non_null(inputs[i]);
        memcpy(inputs[i], c->t[i].data, total);
    }

    want = execute(c, DMLREF_KERNELS_REFERENCE, ref_threads, &c->t[c->inputs], &want_err);
    /* the generator's promise, kept by the reference: in-range cases and
       clamped ones run, strict out-of-range ones are refused, and so are
       batches past the input's under either policy (R-GN-6) */
    if (want != (c->batches_outside || (c->out_of_range && c->policy == DMLREF_OOB_ERROR)
                     ? DMLREF_ERROR_INDEX_OUT_OF_RANGE
                     : DMLREF_OK) ||
        (c->batches_outside && strcmp(want_err.rule, "R-GN-6") != 0))
        fail_msg("%s case %lu (%s): the reference kernels: %s: %s", row, number, c->what,
                 dmlref_status_name(want), want_err.message);

    for (k = 0; k < fast_runs; ++k) {
        for (i = 0; i < c->outputs; ++i)
            memcpy(c->fast[i].data, prefill[i], (size_t)c->fast[i].desc.TotalTensorSizeInBytes);
        got = execute(c, DMLREF_KERNELS_FAST, fast_threads[k], c->fast, &got_err);
        if (got != want || strcmp(got_err.rule, want_err.rule) != 0 ||
            strcmp(got_err.message, want_err.message) != 0)
            fail_msg("%s case %lu (%s, %s, fast on %s, reference on %s): the fast "
                     "kernels: %s (%s) \"%s\"; the reference kernels: %s (%s) \"%s\"",
                     row, number, c->what, c->policy == DMLREF_OOB_CLAMP ? "clamp" : "strict",
                     threads_text(fast_threads[k], ft, sizeof ft),
                     threads_text(ref_threads, rt, sizeof rt), dmlref_status_name(got),
                     got_err.rule, got_err.message, dmlref_status_name(want), want_err.rule,
                     want_err.message);
        for (i = 0; i < c->outputs; ++i) {
            const test_tensor *ref = &c->t[c->inputs + i], *fast = &c->fast[i];
            size_t total = (size_t)ref->desc.TotalTensorSizeInBytes;
            if (memcmp(ref->data, fast->data, total) != 0) {
                char where[96];
                uint64_t first = 0, differ = 0;
                for (b = 0; b < total; ++b)
                    if (ref->data[b] != fast->data[b] && !differ++)
                        first = b;
                describe_byte(ref, first, where, sizeof where);
                fail_msg("%s case %lu (%s, %s, fast on %s, reference on %s): output %zu, "
                         "%s: the fast kernels 0x%02x, the reference kernels 0x%02x (prefill "
                         "0x%02x); %llu of its %zu bytes differ",
                         row, number, c->what, c->policy == DMLREF_OOB_CLAMP ? "clamp" : "strict",
                         threads_text(fast_threads[k], ft, sizeof ft),
                         threads_text(ref_threads, rt, sizeof rt), i, where, fast->data[first],
                         ref->data[first], prefill[i][first], (unsigned long long)differ, total);
            }
            assert_true(tt_guards_intact(fast)); /* D14 */
        }
    }

    for (i = 0; i < c->inputs; ++i) { /* inputs are only read */
        assert_memory_equal(c->t[i].data, inputs[i], (size_t)c->t[i].desc.TotalTensorSizeInBytes);
        assert_true(tt_guards_intact(&c->t[i]));
    }
    for (i = 0; i < c->outputs; ++i) {
        const test_tensor *out = &c->t[c->inputs + i];
        assert_true(tt_guards_intact(out));
        if (want != DMLREF_OK) /* a refusal writes nothing (D1, D2) */
            assert_memory_equal(out->data, prefill[i], (size_t)out->desc.TotalTensorSizeInBytes);
        else /* no padding byte written (R-TD-11: DirectML may, dmlref does not) */
            assert_true(padding_kept(out, prefill[i]));
    }
    if (want == DMLREF_OK &&
        c->slot == SLOT_NZ) { /* rows at or past the count: untouched (R-NZ-14) */
        const test_tensor *co = &c->t[2];
        uint32_t count;
        uint64_t e;
        memcpy(&count, c->t[1].data + tt_offset(&c->t[1], 0) * 4, 4);
        assert_true(count <= tt_count(co) / c->nz_columns);
        for (e = (uint64_t)count * c->nz_columns; e < tt_count(co); ++e)
            assert_memory_equal(co->data + tt_offset(co, e) * 4, prefill[1] + tt_offset(co, e) * 4,
                                4);
    }

    ++g_cases[c->slot];
    g_refused += want != DMLREF_OK;
    g_clamped += want == DMLREF_OK && c->out_of_range;
    for (i = 0; i < c->outputs; ++i)
        free(prefill[i]), tt_free(&c->fast[i]);
    for (i = 0; i < c->inputs; ++i)
        free(inputs[i]);
    for (i = 0; i < c->inputs + c->outputs; ++i)
        tt_free(&c->t[i]);
}

/* ---- the table ------------------------------------------------------------------ */

typedef struct random_row {
    const char *name;
    make_fn make;
    uint64_t seed;
    unsigned long cases, quick_cases;
    uint64_t budget;        /* elements: each case draws 1 to budget (the input's) */
    uint64_t min_out_bytes; /* large rows: cases with smaller outputs are drawn again */
} random_row;

static const uint32_t k_thread_choices[6] = {0, 1, 2, 3, 4, 7}; /* 0: OpenMP's default */
static const uint32_t k_large_threads[3] = {1, 2, 7};

/* Ensure the fast kernels give what the reference kernels give, status and
   message, every output byte, on the row's random cases. */
static void run_row(void **state)
{
    const random_row *row = *state;
    unsigned long n = quick() ? row->quick_cases : row->cases, i;
    rng r;
    rng_seed(&r, row->seed);
    for (i = 0; i < n; ++i) {
        random_case c;
        memset(&c, 0, sizeof c);
        if (row->min_out_bytes) { /* large: the fast kernels on 1, 2 and 7 threads */
            int attempt;
            for (attempt = 0;; ++attempt) {
                size_t o;
                uint64_t bytes = 0;
                row->make(&r, row->budget, &c);
                for (o = 0; o < c.outputs; ++o)
                    bytes += c.t[c.inputs + o].desc.TotalTensorSizeInBytes;
                if (bytes >= row->min_out_bytes || attempt == 100)
                    break;
                for (o = 0; o < c.inputs + c.outputs; ++o) /* too small to split: again */
                    tt_free(&c.t[o]);
                memset(&c, 0, sizeof c);
            }
            run_both(&r, &c, k_large_threads[rng_below(&r, 3)], k_large_threads, 3, row->name, i);
        } else {
            uint32_t fast_threads = k_thread_choices[rng_below(&r, 6)];
            row->make(&r, 1 + rng_below(&r, row->budget), &c);
            run_both(&r, &c, k_thread_choices[rng_below(&r, 6)], &fast_threads, 1, row->name, i);
        }
    }
}

static void make_gather_elements_wide(rng *r, uint64_t budget, random_case *c)
{
    g_wide = 1;
    make_gather_elements(r, budget, c);
    g_wide = 0;
}

static void make_gather_elements_transposed(rng *r, uint64_t budget, random_case *c)
{
    g_transposed = 1;
    make_gather_elements(r, budget, c);
    g_transposed = 0;
}

static void make_gather_elements_streamed(rng *r, uint64_t budget, random_case *c)
{
    g_streamed = 1;
    make_gather_elements(r, budget, c);
    g_streamed = 0;
}

/* GatherND's whole slices into an output of 64 MiB or more, which it writes
   with streaming stores (src/kernels/gather_nd.c): rank 2, slices of 16 or
   37 elements of 4 or 8 bytes, the output packed or padded, so that slices
   start on 16-byte boundaries and off them. */
static void make_gather_nd_streamed(rng *r, uint64_t budget, random_case *c)
{
    static const uint32_t slice_lengths[2] = {16, 37};
    static const dmlref_tensor_data_type types[2] = {DMLREF_TENSOR_DATA_TYPE_FLOAT32,
                                                     DMLREF_TENSOR_DATA_TYPE_INT64};
    const dmlref_tensor_data_type type = types[rng_below(r, 2)], itype = any_index_type(r);
    const uint32_t slice = slice_lengths[rng_below(r, 2)];
    const uint32_t tuples =
        (uint32_t)((64u << 20) / (slice * dmlref_data_type_size(type)) + 1 + rng_below(r, 1000));
    const uint32_t in_sizes[2] = {1 + (uint32_t)rng_below(r, 4096), slice};
    const uint32_t idx_sizes[2] = {tuples, 1}, out_sizes[2] = {tuples, slice};
    const enum layout_kind out_kind = rng_below(r, 2) ? PADDED : PACKED;
    uint32_t out_strides[2];
    uint64_t bound = in_sizes[0];
    (void)budget;

    tt_init(&c->t[0], type, 2, in_sizes, NULL, 0);
    random_tensor(r, &c->t[1], itype, 2, idx_sizes, 0);
    tt_init(&c->t[2], type, 2, out_sizes, random_strides(r, out_kind, 2, out_sizes, out_strides),
            0);
    fill_random(r, &c->t[0]);
    fill_indices(r, &c->t[1], &bound, 1);

    c->type = DMLREF_OPERATOR_GATHER_ND1, c->slot = SLOT_GN1, c->inputs = 2, c->outputs = 1;
    c->d.gn1.InputTensor = &c->t[0].desc, c->d.gn1.IndicesTensor = &c->t[1].desc;
    c->d.gn1.OutputTensor = &c->t[2].desc;
    c->d.gn1.InputDimensionCount = 2, c->d.gn1.IndicesDimensionCount = 2;
    c->d.gn1.BatchDimensionCount = 0;
    snprintf(c->what, sizeof c->what, "GATHER_ND1 %s, %s indices, slices of %u, output %s",
             dmlref_data_type_name(type), dmlref_data_type_name(itype), slice,
             out_kind == PADDED ? "padded" : "packed");
}

static void make_scatter_elements_wide(rng *r, uint64_t budget, random_case *c)
{
    g_wide = 1;
    make_scatter_elements(r, budget, c);
    g_wide = 0;
}

/* Scatter's lines built in a buffer of their own and written out with
   streaming stores (src/kernels/scatter_elements.c, STAGED_LINE_BYTES): an output
   of 64 MiB or more, packed, along its last axis, lines of up to 32 KiB;
   FLOAT32 or INT64, up to 1024 updates per line (duplicates among them). */
static void make_scatter_elements_staged(rng *r, uint64_t budget, random_case *c)
{
    static const dmlref_tensor_data_type types[2] = {DMLREF_TENSOR_DATA_TYPE_FLOAT32,
                                                     DMLREF_TENSOR_DATA_TYPE_INT64};
    const dmlref_tensor_data_type type = types[rng_below(r, 2)], itype = any_index_type(r);
    const uint32_t es = dmlref_data_type_size(type);
    const uint32_t cols = 32768 / es - (uint32_t)rng_below(r, 3);
    const uint32_t rows = (uint32_t)((64u << 20) / ((uint64_t)cols * es) + 1 + rng_below(r, 8));
    const uint32_t in_sizes[2] = {rows, cols};
    const uint32_t idx_sizes[2] = {rows, 1 + (uint32_t)rng_below(r, 1024)};
    uint64_t bound = cols;
    (void)budget;

    tt_init(&c->t[0], type, 2, in_sizes, NULL, 0);
    random_tensor(r, &c->t[1], itype, 2, idx_sizes, 0);
    random_tensor(r, &c->t[2], type, 2, idx_sizes, 0);
    tt_init(&c->t[3], type, 2, in_sizes, NULL, 0);
    fill_random(r, &c->t[0]);
    fill_indices(r, &c->t[1], &bound, 1);
    fill_random(r, &c->t[2]);

    c->type = DMLREF_OPERATOR_SCATTER_ELEMENTS, c->slot = SLOT_SC, c->inputs = 3, c->outputs = 1;
    c->d.sc.InputTensor = &c->t[0].desc, c->d.sc.IndicesTensor = &c->t[1].desc;
    c->d.sc.UpdatesTensor = &c->t[2].desc, c->d.sc.OutputTensor = &c->t[3].desc;
    c->d.sc.Axis = 1;
    snprintf(c->what, sizeof c->what,
             "SCATTER_ELEMENTS %s, %s indices, %u x %u, %u updates per line along axis 1",
             dmlref_data_type_name(type), dmlref_data_type_name(itype), rows, cols, idx_sizes[1]);
}

static void make_scatter_elements_two_targets(rng *r, uint64_t budget, random_case *c)
{
    g_two_targets = 1;
    make_scatter_elements(r, budget, c);
    g_two_targets = 0;
}

static void make_scatter_elements_staged_two_targets(rng *r, uint64_t budget, random_case *c)
{
    g_two_targets = 1;
    make_scatter_elements_staged(r, budget, c);
    g_two_targets = 0;
}

static const random_row k_rows[] = {
    {"GATHER_ELEMENTS, small", make_gather_elements, 101, 20000, 1000, 64, 0},
    {"GATHER_ELEMENTS, medium", make_gather_elements, 102, 4000, 200, 3000, 0},
    {"GATHER_ELEMENTS, large, 1 2 7 threads", make_gather_elements, 103, 3, 1, 400000, 1u << 18},
    {"GATHER_ELEMENTS, wide along axis 0, 1 2 7 threads", make_gather_elements_wide, 104, 4, 2,
     400000, 1u << 18},
    {"GATHER_ELEMENTS, transposed input, 1 2 7 threads", make_gather_elements_transposed, 105, 4, 2,
     400000, 1u << 18},
    {"GATHER_ELEMENTS, 64 MiB outputs written by streaming stores, 1 2 7 threads",
     make_gather_elements_streamed, 106, 2, 0, 1, 64u << 20},
    {"SCATTER_ELEMENTS, small", make_scatter_elements, 201, 20000, 1000, 64, 0},
    {"SCATTER_ELEMENTS, medium", make_scatter_elements, 202, 4000, 200, 3000, 0},
    {"SCATTER_ELEMENTS, large, 1 2 7 threads", make_scatter_elements, 203, 3, 1, 400000, 1u << 18},
    {"SCATTER_ELEMENTS, wide along axis 0, 1 2 7 threads", make_scatter_elements_wide, 204, 4, 2,
     400000, 1u << 18},
    {"SCATTER_ELEMENTS, 64 MiB outputs built line by line and streamed, 1 2 7 threads",
     make_scatter_elements_staged, 205, 2, 0, 1, 64u << 20},
    {"SCATTER_ELEMENTS, two targets a line, small", make_scatter_elements_two_targets, 206, 10000,
     500, 64, 0},
    {"SCATTER_ELEMENTS, two targets a line, medium", make_scatter_elements_two_targets, 207, 2000,
     100, 3000, 0},
    {"SCATTER_ELEMENTS, two targets a line, 64 MiB outputs built line by line and streamed, 1 2 7 "
     "threads",
     make_scatter_elements_staged_two_targets, 208, 1, 0, 1, 64u << 20},
    {"GATHER_ND and GATHER_ND1, small", make_gather_nd, 301, 26000, 1300, 64, 0},
    {"GATHER_ND and GATHER_ND1, medium", make_gather_nd, 302, 6000, 300, 3000, 0},
    {"GATHER_ND and GATHER_ND1, large, 1 2 7 threads", make_gather_nd, 303, 3, 1, 400000, 1u << 18},
    {"GATHER_ND1, 64 MiB outputs written by streaming stores, 1 2 7 threads",
     make_gather_nd_streamed, 304, 2, 0, 1, 64u << 20},
    {"NONZERO_COORDINATES, small", make_nonzero, 401, 20000, 1000, 64, 0},
    {"NONZERO_COORDINATES, medium", make_nonzero, 402, 4000, 200, 3000, 0},
    {"NONZERO_COORDINATES, large, 1 2 7 threads", make_nonzero, 403, 3, 1, 2000000, 1u << 21},
};

/* A GatherElements walk of a rows x cols matrix along `axis`, every tensor
   packed, as dmlref_fast_gather_elements builds it. */
typedef struct streamed_case {
    const char *name;
    uint32_t element_size;
    dmlref_tensor_data_type index_type;
    uint32_t axis;
    uint64_t rows, cols, begin_cut, end_cut; /* positions left out at either end */
} streamed_case;

static const streamed_case k_streamed_cases[] = {
    {"8-byte elements, INT64 indices, along the last axis", 8, DMLREF_TENSOR_DATA_TYPE_INT64, 1, 37,
     301, 0, 0},
    {"8-byte elements, INT32 indices, along axis 0, part of the walk", 8,
     DMLREF_TENSOR_DATA_TYPE_INT32, 0, 129, 67, 5, 3},
    {"8-byte elements, UINT64 indices, rows of 1", 8, DMLREF_TENSOR_DATA_TYPE_UINT64, 0, 1000, 1, 0,
     1},
    {"8-byte elements, UINT32 indices, from the middle of a row", 8, DMLREF_TENSOR_DATA_TYPE_UINT32,
     1, 9, 1031, 517, 250},
    {"4-byte elements (not streamed: ordinary stores both ways)", 4, DMLREF_TENSOR_DATA_TYPE_INT64,
     1, 33, 257, 1, 1},
};

/* Ensure the gather loop writes the same bytes with streaming stores as
   with ordinary ones: on x86-64 8-byte elements stream, elsewhere both runs
   use ordinary stores.  The loop is called directly, on small walks of
   every index type with the walk's ends cut, so that every build runs it;
   the row of 64 MiB outputs above streams through dmlref_execute, in the
   main build only. */
static void test_streamed_stores_write_what_ordinary_stores_write(void **state)
{
    size_t k;
    rng r;
    (void)state;
    rng_seed(&r, 501);
#if defined(__SSE2__) && defined(__x86_64__)
    assert_true(streaming_stores_available(8));
#endif
    assert_false(streaming_stores_available(4));
    for (k = 0; k < sizeof k_streamed_cases / sizeof k_streamed_cases[0]; ++k) {
        const streamed_case *sc = &k_streamed_cases[k];
        const uint64_t n = sc->rows * sc->cols, es = sc->element_size;
        const uint64_t sizes[2] = {sc->rows, sc->cols}, packed[2] = {sc->cols, 1};
        const uint32_t ib = dmlref_data_type_size(sc->index_type);
        uint64_t in_strides[2] = {sc->cols, 1}, i;
        unsigned char *in = malloc((size_t)(n * es)), *idx = malloc((size_t)(n * ib));
        unsigned char *plain = malloc((size_t)(n * es)), *streamed = malloc((size_t)(n * es));
        index_axis selector;
        walker full;
        runs walk;
        assert_non_null(in);
        assert_non_null(idx);
        assert_non_null(plain);
        assert_non_null(streamed);
        selector.type = sc->index_type;
        selector.size = sizes[sc->axis];
        selector.stride = in_strides[sc->axis];
        for (i = 0; i < n * es; ++i)
            in[i] = (unsigned char)rng_next(&r), plain[i] = streamed[i] = (unsigned char)(i * 7);
        for (i = 0; i < n; ++i) { /* in range; negative ones where the type is signed */
            int64_t v = (int64_t)rng_below(&r, selector.size);
            if ((sc->index_type == DMLREF_TENSOR_DATA_TYPE_INT32 ||
                 sc->index_type == DMLREF_TENSOR_DATA_TYPE_INT64) &&
                rng_below(&r, 2))
                v -= (int64_t)selector.size;
            if (ib == 4) {
                int32_t v32 = (int32_t)v;
                memcpy(idx + i * 4, &v32, 4);
            } else {
                memcpy(idx + i * 8, &v, 8);
            }
        }
        in_strides[sc->axis] = 0;
        walker_init(&full, 2, sizes);
        walker_add(&full, packed);     /* output */
        walker_add(&full, packed);     /* indices */
        walker_add(&full, in_strides); /* input, its axis stride left out */
        runs_init(&walk, &full);
        gather_over_runs(&walk, sc->begin_cut, n - sc->end_cut, plain, in, idx, &selector,
                         sc->element_size, 0);
        gather_over_runs(&walk, sc->begin_cut, n - sc->end_cut, streamed, in, idx, &selector,
                         sc->element_size, 1);
        streamed_stores_done();
        if (memcmp(plain, streamed, (size_t)(n * es)) != 0)
            fail_msg("%s: the streamed gather wrote other bytes", sc->name);
        free(in), free(idx), free(plain), free(streamed);
    }
}

/* Ensure stream_bytes copies as memcpy does: every length up to 80 bytes
   to every offset from a 16-byte boundary, so the head before the first
   boundary, the streamed blocks and the tail after the last are each
   empty, short and long. */
static void test_stream_bytes_copies_as_memcpy_does(void **state)
{
    unsigned char src[96], expected[128], *streamed = malloc(128 + 16), *dst;
    size_t offset, n, i;
    (void)state;
    assert_non_null(streamed);
    dst = streamed + (16 - (uintptr_t)streamed % 16) % 16; /* on a 16-byte boundary */
    for (i = 0; i < sizeof src; ++i)
        src[i] = (unsigned char)(i * 37 + 11);
    for (offset = 0; offset < 16; ++offset)
        for (n = 0; n <= 80; ++n) {
            memset(expected, 0xA5, sizeof expected);
            memset(dst, 0xA5, 128);
            memcpy(expected + offset, src, n);
            stream_bytes(dst + offset, src, n);
            streamed_stores_done();
            if (memcmp(dst, expected, 128) != 0)
                fail_msg("%u bytes to %u bytes past a 16-byte boundary: other bytes than memcpy's",
                         (unsigned)n, (unsigned)offset);
        }
    free(streamed);
}

int main(void)
{
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_streamed_stores_write_what_ordinary_stores_write),
        cmocka_unit_test(test_stream_bytes_copies_as_memcpy_does),
    };
    unsigned long total = 0;
    size_t i;
    int failed = run_table_tests("fast vs reference", k_rows, sizeof k_rows[0],
                                 sizeof k_rows / sizeof k_rows[0], run_row, fixed,
                                 sizeof fixed / sizeof fixed[0]);
    for (i = 0; i < SLOTS; ++i)
        total += g_cases[i];
    printf("fast vs reference: %lu random cases (", total);
    for (i = 0; i < SLOTS; ++i)
        printf("%s%s %lu", i ? ", " : "", k_slot_names[i], g_cases[i]);
    printf("; %lu refused, %lu clamped out-of-range indices), %s\n", g_refused, g_clamped,
           failed ? "NOT all identical" : "all identical");
    return failed;
}
