/*
 * test_random.c - the fast kernels (src/kernels/) against the reference
 * kernels (reference/), the definition of the answer, on over 100,000
 * random cases: every operator (GATHER_ELEMENTS, SCATTER_ELEMENTS,
 * GATHER_ND, GATHER_ND1, NONZERO_COORDINATES), every data type it allows at
 * the latest feature level with random bit patterns (NaN payloads, -0.0 and
 * subnormals among them), the 4 index types with negative indices, ranks 1
 * to 8, every axis, and random layouts on every tensor: packed, padded,
 * permuted with odd strides, strided, transposed, broadcast (stride 0)
 * inputs; outputs are never broadcast, since an output must be injective
 * (D6).  A quarter of the gather and Scatter cases get one or two
 * out-of-range indices, and every case runs under the strict policy or
 * clamps, half of the time each.  A quarter of the GATHER_ND1 cases with
 * batch dimensions draw fewer index batches than input ones, and a quarter
 * of those one more on a dimension, which both kernels refuse under either
 * policy (R-GN-6).  The cases are drawn by the suite's case generator
 * (src/suite/generate.c), which every other maker of cases shares.
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

#include "core/kernels_compare.h"
#include "kernels/kernels.h"
#include "suite/generate.h"
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

/* Draws the request's case with the suite's case generator
   (src/suite/generate.c), from a stream seeded from r, into c: its tensors
   with their buffers (inputs filled), its descriptor and what it is.  The
   operator slots are the generator's operators, in its order. */
static void generate(rng *r, const gen_request *q, random_case *c)
{
    const dmlref_tensor_desc *descs[GEN_TENSORS];
    const gen_tensor *last;
    gen_rng stream;
    gen_case g;
    size_t i;
    stream.state = rng_next(r);
    if (!gen_make(&stream, q, &g))
        fail_msg("the generator cannot draw a %s case", dmlref_operator_name(q->op));
    for (i = 0; i < g.count; ++i) {
        const gen_tensor *t = &g.t[i];
        tt_init(&c->t[i], t->type, t->rank, t->sizes, t->strided ? t->strides : NULL,
                t->extra_bytes);
        if (i < g.inputs)
            gen_fill(&g, i, c->t[i].data, 1);
        descs[i] = &c->t[i].desc;
    }
    gen_descriptor(&g, descs, &c->d);
    c->type = q->op;
    c->slot = (enum op_slot)gen_operator_index(q->op);
    c->inputs = g.inputs, c->outputs = g.count - g.inputs;
    c->out_of_range = g.broken > 0;
    c->batches_outside = g.batches_outside;
    last = &g.t[g.count - 1];
    c->nz_columns = last->sizes[last->rank - 1]; /* NonZero's N */
    gen_describe(&g, c->what, sizeof c->what);
    gen_free(&g);
}

/* What a row's case is unless the row says otherwise: any data type the
   operator takes, any index type, rank 1 to 8, sizes spread within the
   budget, every tensor in a layout of its own (packed, padded, permuted,
   strided, transposed; inputs broadcast too), random bits, indices
   anywhere in range with negative ones among them, up to two more along
   an axis than the input has where the operator allows it, a quarter of
   the cases with one or two indices out of range, and the operators' shape
   variants (GATHER_ND1's fewer and outside batches, NonZero's leading ones
   and output ranks). */
static void any_case(rng *r, dmlref_operator_type op, uint64_t budget, gen_request *q)
{
    size_t count;
    const dmlref_tensor_data_type *types = gen_data_types(op, &count);
    /* one draw per statement: the same cases whatever order a compiler
       evaluates arguments in */
    const dmlref_tensor_data_type type = types[rng_below(r, count)];
    const dmlref_tensor_data_type index_type = k_all_index_types[rng_below(r, 4)];
    gen_request_init(q, op, type, index_type, 1 + (uint32_t)rng_below(r, 8));
    q->size_style = GEN_SIZES_SPREAD;
    q->budget = budget;
    q->past_axis = 2;
    q->layout = GEN_VARIED;
    q->data = GEN_DATA_BITS;
    q->indices = GEN_INDICES_UNIFORM;
    q->negative = 1;
    q->out_of_range = rng_below(r, 4) == 0;
    q->vary_shapes = 1;
}

static const dmlref_tensor_data_type k_wide_types[3] = {
    DMLREF_TENSOR_DATA_TYPE_FLOAT64, DMLREF_TENSOR_DATA_TYPE_INT64, DMLREF_TENSOR_DATA_TYPE_UINT64};

/* Rank 2 with 8-byte elements: for the wide rows along axis 0, so the
   selected elements spread over more than a mebibyte and the fast kernels
   request them ahead (src/kernels/runs.c, SCATTERED_SPAN); for the
   transposed and streamed rows as they are. */
static void two_d_wide(rng *r, gen_request *q)
{
    q->rank = 2;
    q->type = k_wide_types[rng_below(r, 3)];
}

static void make_gather_elements(rng *r, uint64_t budget, random_case *c)
{
    gen_request q;
    any_case(r, DMLREF_OPERATOR_GATHER_ELEMENTS, budget, &q);
    generate(r, &q, c);
}

static void make_gather_elements_wide(rng *r, uint64_t budget, random_case *c)
{
    gen_request q;
    any_case(r, DMLREF_OPERATOR_GATHER_ELEMENTS, budget, &q);
    two_d_wide(r, &q);
    q.params[0] = 0;
    generate(r, &q, c);
}

/* The input stored column by column, so a run's elements lie a page or
   more apart and the fast GatherElements gathers in tiles of runs
   (src/kernels/runs.c, tiled). */
static void make_gather_elements_transposed(rng *r, uint64_t budget, random_case *c)
{
    static const gen_layout layouts[3] = {GEN_TRANSPOSED, GEN_VARIED, GEN_VARIED};
    gen_request q;
    any_case(r, DMLREF_OPERATOR_GATHER_ELEMENTS, budget, &q);
    two_d_wide(r, &q);
    q.layouts = layouts;
    generate(r, &q, c);
}

/* GatherElements outputs large enough to be written with streaming stores
   (STREAM_MIN_BYTES in src/kernels/kernels.h, 64 MiB, of 8-byte elements):
   2048 x 4100, the output packed at an 8-byte aligned address. */
static void make_gather_elements_streamed(rng *r, uint64_t budget, random_case *c)
{
    static const uint32_t sizes[2] = {2048, 4100};
    static const gen_layout layouts[3] = {GEN_VARIED, GEN_VARIED, GEN_PACKED};
    gen_request q;
    any_case(r, DMLREF_OPERATOR_GATHER_ELEMENTS, budget, &q);
    two_d_wide(r, &q);
    q.sizes = q.index_sizes = sizes;
    q.layouts = layouts;
    generate(r, &q, c);
}

/* Duplicate targets included: the last update wins (D4), under any policy. */
static void make_scatter_elements(rng *r, uint64_t budget, random_case *c)
{
    gen_request q;
    any_case(r, DMLREF_OPERATOR_SCATTER_ELEMENTS, budget, &q);
    generate(r, &q, c);
}

static void make_scatter_elements_wide(rng *r, uint64_t budget, random_case *c)
{
    gen_request q;
    any_case(r, DMLREF_OPERATOR_SCATTER_ELEMENTS, budget, &q);
    two_d_wide(r, &q);
    q.params[0] = 0;
    generate(r, &q, c);
}

/* Every index selects element 0 or 1 of its line (counted from either
   end), so most updates are overwritten by the next one, and many lines
   start with two updates to one element, which the fast kernels scatter
   skipping those (src/kernels/runs.c, SCATTER_SKIPPING_OVERWRITTEN). */
static void make_scatter_elements_two_targets(rng *r, uint64_t budget, random_case *c)
{
    gen_request q;
    any_case(r, DMLREF_OPERATOR_SCATTER_ELEMENTS, budget, &q);
    q.indices = GEN_INDICES_TWO_TARGETS;
    generate(r, &q, c);
}

/* Scatter's lines built in a buffer of their own and written out with
   streaming stores (src/kernels/scatter_elements.c, STAGED_LINE_BYTES): an
   output of 64 MiB or more, packed, along its last axis, lines of up to 32
   KiB; FLOAT32 or INT64, up to 1024 updates per line (duplicates among
   them), indices in range. */
static void staged(rng *r, gen_indices indices, random_case *c)
{
    static const dmlref_tensor_data_type types[2] = {DMLREF_TENSOR_DATA_TYPE_FLOAT32,
                                                     DMLREF_TENSOR_DATA_TYPE_INT64};
    static const gen_layout layouts[4] = {GEN_PACKED, GEN_VARIED, GEN_VARIED, GEN_PACKED};
    gen_request q;
    uint32_t es, sizes[2], index_sizes[2];
    any_case(r, DMLREF_OPERATOR_SCATTER_ELEMENTS, 0, &q);
    q.rank = 2;
    q.type = types[rng_below(r, 2)];
    es = dmlref_data_type_size(q.type);
    sizes[1] = 32768 / es - (uint32_t)rng_below(r, 3);
    sizes[0] = (uint32_t)((64u << 20) / ((uint64_t)sizes[1] * es) + 1 + rng_below(r, 8));
    index_sizes[0] = sizes[0];
    index_sizes[1] = 1 + (uint32_t)rng_below(r, 1024);
    q.params[0] = 1;
    q.sizes = sizes;
    q.index_sizes = index_sizes;
    q.layouts = layouts;
    q.indices = indices;
    q.out_of_range = 0;
    generate(r, &q, c);
}

static void make_scatter_elements_staged(rng *r, uint64_t budget, random_case *c)
{
    (void)budget;
    staged(r, GEN_INDICES_UNIFORM, c);
}

static void make_scatter_elements_staged_two_targets(rng *r, uint64_t budget, random_case *c)
{
    (void)budget;
    staged(r, GEN_INDICES_TWO_TARGETS, c);
}

/* GATHER_ND and GATHER_ND1: batch dimensions, slices, leading ones. */
static void make_gather_nd(rng *r, uint64_t budget, random_case *c)
{
    const dmlref_operator_type op =
        rng_below(r, 2) ? DMLREF_OPERATOR_GATHER_ND : DMLREF_OPERATOR_GATHER_ND1;
    gen_request q;
    any_case(r, op, budget, &q);
    generate(r, &q, c);
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
    static const gen_layout layouts[2][3] = {{GEN_PACKED, GEN_VARIED, GEN_PACKED},
                                             {GEN_PACKED, GEN_VARIED, GEN_PADDED}};
    gen_request q;
    uint32_t slice, sizes[2], index_sizes[2];
    any_case(r, DMLREF_OPERATOR_GATHER_ND1, budget, &q);
    q.rank = 2;
    q.type = types[rng_below(r, 2)];
    slice = slice_lengths[rng_below(r, 2)];
    sizes[0] = 1 + (uint32_t)rng_below(r, 4096), sizes[1] = slice;
    index_sizes[0] =
        (uint32_t)((64u << 20) / (slice * dmlref_data_type_size(q.type)) + 1 + rng_below(r, 1000));
    index_sizes[1] = 1;
    q.params[0] = 2, q.params[1] = 2, q.params[2] = 0, q.params[3] = 1; /* m, q, b, k */
    q.sizes = sizes;
    q.index_sizes = index_sizes;
    q.layouts = layouts[rng_below(r, 2)];
    q.out_of_range = 0;
    generate(r, &q, c);
}

/* Densities from all-zero to dense, -0.0 and other sign-only patterns, NaN,
   right-aligned columns for N < D, any coordinate layout. */
static void make_nonzero(rng *r, uint64_t budget, random_case *c)
{
    gen_request q;
    any_case(r, DMLREF_OPERATOR_NONZERO_COORDINATES, budget, &q);
    q.nonzero[0] = 8 - 2 * (uint32_t)rng_below(r, 5);
    q.nonzero[1] = 8;
    q.sign_only = 1;
    generate(r, &q, c);
}

/* ---- running a case with both kernels ----------------------------------------- */

/* 1 when every byte of `data`, an output buffer laid out as t, that no
   element covers still holds the pattern `prefill` (kernels_compare.h). */
static int padding_kept(const test_tensor *t, const unsigned char *data, uint64_t prefill)
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
        ok = is_element[i] || data[i] == kernels_prefill_byte(prefill, KERNELS_GUARD + i);
    free(is_element);
    return ok;
}

/* 1 when bytes [from, to) of an output buffer still hold the pattern. */
static int prefill_kept(const unsigned char *data, uint64_t from, uint64_t to, uint64_t prefill)
{
    uint64_t i;
    for (i = from; i < to; ++i)
        if (data[i] != kernels_prefill_byte(prefill, KERNELS_GUARD + i))
            return 0;
    return 1;
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

/* What the reference kernels did (k) against what they promise: the
   generator's promise (in-range cases and clamped ones run, strict
   out-of-range ones are refused, and so are batches past the input's under
   either policy, R-GN-6); a refusal writes nothing (D1, D2); a run writes
   no padding byte (R-TD-11: DirectML may, dmlref does not) and no
   NonZero row at or past the count (R-NZ-14). */
static void check_reference(const random_case *c, const kernels_comparison *k, uint64_t prefill,
                            const char *row, unsigned long number)
{
    dmlref_status want = k->reference_status;
    size_t i;
    if (want != (c->batches_outside || (c->out_of_range && c->policy == DMLREF_OOB_ERROR)
                     ? DMLREF_ERROR_INDEX_OUT_OF_RANGE
                     : DMLREF_OK) ||
        (c->batches_outside && strcmp(k->reference_error.rule, "R-GN-6") != 0))
        fail_msg("%s case %lu (%s): the reference kernels: %s: %s", row, number, c->what,
                 dmlref_status_name(want), k->reference_error.message);
    for (i = 0; i < c->outputs; ++i) {
        const test_tensor *out = &c->t[c->inputs + i];
        const unsigned char *data = k->reference_outputs[i].data;
        if (want != DMLREF_OK)
            assert_true(prefill_kept(data, 0, out->desc.TotalTensorSizeInBytes, prefill));
        else
            assert_true(padding_kept(out, data, prefill));
    }
    if (want == DMLREF_OK && c->slot == SLOT_NZ) {
        const test_tensor *co = &c->t[2];
        const unsigned char *coordinates = k->reference_outputs[1].data;
        uint32_t count;
        uint64_t e;
        memcpy(&count,
               (const unsigned char *)k->reference_outputs[0].data + tt_offset(&c->t[1], 0) * 4, 4);
        assert_true(count <= tt_count(co) / c->nz_columns);
        for (e = (uint64_t)count * c->nz_columns; e < tt_count(co); ++e)
            assert_true(
                prefill_kept(coordinates, tt_offset(co, e) * 4, tt_offset(co, e) * 4 + 4, prefill));
    }
}

/* Runs the case with the reference kernels on `ref_threads` and with the
   fast kernels on each of `fast_threads` (kernels_compare: output buffers
   prefilled with a pattern drawn for the case; no input byte written), and
   requires them to agree and the reference kernels to keep their
   promises. */
static void run_both(rng *r, random_case *c, uint32_t ref_threads, const uint32_t *fast_threads,
                     size_t fast_runs, const char *row, unsigned long number)
{
    dmlref_operator_desc op;
    dmlref_binding in[3], out[2];
    kernels_case kc;
    kernels_comparison k;
    dmlref_status want;
    size_t i;
    int same;
    char ft[32], rt[32];

    c->policy = rng_below(r, 2) ? DMLREF_OOB_CLAMP : DMLREF_OOB_ERROR;
    op.Type = c->type;
    op.Desc = &c->d;
    for (i = 0; i < c->inputs; ++i)
        in[i] = tt_binding(&c->t[i]);
    for (i = 0; i < c->outputs; ++i)
        out[i] = tt_binding(&c->t[c->inputs + i]);
    memset(&kc, 0, sizeof kc);
    kc.op = &op;
    kc.level = DMLREF_FEATURE_LEVEL_LATEST;
    kc.oob_policy = c->policy;
    kc.inputs = in, kc.input_count = c->inputs;
    kc.outputs = out, kc.output_count = c->outputs;
    kc.reference_threads = ref_threads;
    kc.fast_threads = fast_threads, kc.fast_runs = fast_runs;
    kc.prefill = rng_next(r) | 1; /* never 0: a pattern of the case's own */

    same = kernels_compare(&kc, &k);
    assert_false(k.out_of_memory);
    want = k.reference_status;
    check_reference(c, &k, kc.prefill, row, number);
    if (!same)
        fail_msg("%s case %lu (%s, %s, fast on %s, reference on %s): %s", row, number, c->what,
                 c->policy == DMLREF_OOB_CLAMP ? "clamp" : "strict",
                 threads_text(fast_threads[k.fast_run], ft, sizeof ft),
                 threads_text(ref_threads, rt, sizeof rt), k.difference);
    kernels_comparison_free(&k);

    for (i = 0; i < c->inputs; ++i) /* no byte around an input written (D14) */
        assert_true(tt_guards_intact(&c->t[i]));
    ++g_cases[c->slot];
    g_refused += want != DMLREF_OK;
    g_clamped += want == DMLREF_OK && c->out_of_range;
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
