/*
 * test_random.c - the kernels against the independent model (model.c) on
 * thousands of random cases: ranks 1 to 8, every axis, all 11 data types
 * with random bit patterns (NaN payloads, -0.0 and subnormals among them),
 * all 4 index types with negative indices, and random layouts on every
 * tensor (packed, padded, permuted, broadcast inputs, strided outputs).
 * Then large cases at 1, 2 and 7 threads, compared byte for byte.
 *
 * Every case also checks that no byte past TotalTensorSizeInBytes changed
 * (D14) and that no input or output padding byte changed: DirectML may
 * write output padding (R-TD-11), dmlref never does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"
#include "testlib.h"

enum layout_kind { PACKED, PADDED, PERMUTED, BROADCAST, LAYOUT_KINDS };

/* Random strides for sizes; returns NULL for packed.  BROADCAST (inputs
   only) sets stride 0 on some dimensions. */
static const uint32_t *random_strides(rng *r, enum layout_kind kind, uint32_t rank,
                                      const uint32_t *sizes, uint32_t *strides)
{
    uint32_t order[8], i;
    uint64_t step = 1;
    if (kind == PACKED)
        return NULL;
    for (i = 0; i < rank; ++i)
        order[i] = i;
    if (kind != PADDED) { /* a random order of dimensions in memory */
        for (i = rank; i > 1; --i) {
            uint32_t j = (uint32_t)rng_below(r, i), tmp = order[i - 1];
            order[i - 1] = order[j];
            order[j] = tmp;
        }
    }
    for (i = rank; i-- > 0;) { /* order[rank-1] is innermost */
        uint32_t d = order[i];
        strides[d] = (uint32_t)step;
        step *= sizes[d] + (kind == PACKED ? 0 : rng_below(r, 3));
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
    tt_init(t, type, rank, sizes, random_strides(r, kind, rank, sizes, strides),
            rng_below(r, 2) * 4);
}

static void *random_bytes(rng *r, uint64_t count)
{
    unsigned char *p = malloc((size_t)count + 1);
    uint64_t i;
    assert_non_null(p);
    for (i = 0; i < count; ++i)
        p[i] = (unsigned char)rng_next(r);
    return p;
}

/* Fills t with random elements; returns what a reader of t sees (after a
   broadcast, later elements win the shared addresses). */
static void *fill_random(rng *r, test_tensor *t)
{
    uint64_t bytes = tt_count(t) * tt_element_size(t);
    void *elements = random_bytes(r, bytes);
    tt_set_raw(t, elements);
    tt_get_raw(t, elements);
    return elements;
}

static void *fill_random_indices(rng *r, test_tensor *t, const uint64_t *bounds,
                                 uint32_t bound_count)
{
    uint64_t n = tt_count(t), i;
    int64_t *values = malloc((size_t)n * sizeof *values + 1);
    void *elements = malloc((size_t)(n * tt_element_size(t)) + 1);
    int is_signed = is_signed_index_type(t->desc.DataType);
    uint64_t least = bounds[0];
    assert_non_null(values);
    assert_non_null(elements);
    for (i = 1; i < bound_count; ++i)
        least = bounds[i] < least ? bounds[i] : least;
    for (i = 0; i < n; ++i) {
        /* a broadcast last dimension makes every tuple component one element */
        int shared = t->desc.Strides && t->strides[t->desc.DimensionCount - 1] == 0;
        uint64_t s = shared ? least : bounds[i % bound_count];
        int64_t v = (int64_t)rng_below(r, s);
        if (is_signed && rng_below(r, 2))
            v -= (int64_t)s; /* the same element, counted from the end */
        values[i] = v;
    }
    tt_set_indices(t, values);
    tt_get_raw(t, elements);
    free(values);
    return elements;
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

static void check_guards(test_tensor *const *tensors, size_t count, size_t outputs_from)
{
    size_t i;
    for (i = 0; i < count; ++i) {
        assert_true(tt_guards_intact(tensors[i]));
        if (i < outputs_from) /* inputs are never written at all */
            assert_true(tt_padding_intact(tensors[i]));
    }
}

/* The output's logical elements, freshly allocated. */
static unsigned char *output_elements(const test_tensor *out)
{
    unsigned char *elements = malloc((size_t)(tt_count(out) * tt_element_size(out)) + 1);
    assert_non_null(elements);
    tt_get_raw(out, elements);
    return elements;
}

/* Hands the output's elements to the caller (thread comparisons) or frees them. */
static void keep_or_free(unsigned char *elements, uint64_t bytes, unsigned char **result,
                         uint64_t *result_bytes)
{
    if (result) {
        *result = elements;
        *result_bytes = bytes;
    } else {
        free(elements);
    }
}

/* ---- GATHER_ELEMENTS ---------------------------------------------------- */

static void gather_elements_case(rng *r, uint64_t budget, uint32_t threads, int check_model,
                                 unsigned char **result, uint64_t *result_bytes)
{
    uint32_t rank = 1 + (uint32_t)rng_below(r, 8), in_sizes[8], idx_sizes[8];
    uint32_t axis = (uint32_t)rng_below(r, rank);
    dmlref_tensor_data_type type = k_all_data_types[rng_below(r, 11)];
    dmlref_tensor_data_type itype = k_all_index_types[rng_below(r, 4)];
    test_tensor in, idx, out, *all[3] = {&in, &idx, &out};
    void *in_el, *idx_el;
    unsigned char *got;
    uint64_t bound, bytes;
    dmlref_gather_elements_desc d;
    dmlref_error err;
    uint32_t es = dmlref_data_type_size(type);

    random_sizes(r, rank, budget, in_sizes);
    memcpy(idx_sizes, in_sizes, sizeof idx_sizes);
    idx_sizes[axis] = 1 + (uint32_t)rng_below(r, in_sizes[axis] + 2); /* any size on the axis */
    random_tensor(r, &in, type, rank, in_sizes, 0);
    random_tensor(r, &idx, itype, rank, idx_sizes, 0);
    random_tensor(r, &out, type, rank, idx_sizes, 1);
    bound = in_sizes[axis];
    in_el = fill_random(r, &in);
    idx_el = fill_random_indices(r, &idx, &bound, 1);
    memset(out.data, PADDING_FILL, (size_t)out.desc.TotalTensorSizeInBytes);

    d.InputTensor = &in.desc, d.IndicesTensor = &idx.desc, d.OutputTensor = &out.desc;
    d.Axis = axis;
    if (tt_execute_threads(DMLREF_OPERATOR_GATHER_ELEMENTS, &d, threads, all, 2, all + 2, 1,
                           &err) != DMLREF_OK)
        fail_msg("%s", err.message);
    check_guards(all, 3, 2);
    assert_true(tt_padding_intact(&out));

    got = output_elements(&out);
    bytes = tt_count(&out) * es;
    if (check_model) {
        void *want = malloc((size_t)bytes);
        assert_non_null(want);
        assert_true(model_gather_elements(rank, in_sizes, idx_sizes, axis, es, in_el, itype,
                                          idx_el, want));
        assert_memory_equal(got, want, bytes);
        free(want);
    }
    keep_or_free(got, bytes, result, result_bytes);
    free(in_el), free(idx_el);
    tt_free(&in), tt_free(&idx), tt_free(&out);
}

/* ---- SCATTER_ELEMENTS --------------------------------------------------- */

static void scatter_elements_case(rng *r, uint64_t budget, uint32_t threads, int check_model,
                                  unsigned char **result, uint64_t *result_bytes)
{
    uint32_t rank = 1 + (uint32_t)rng_below(r, 8), in_sizes[8], idx_sizes[8];
    uint32_t axis = (uint32_t)rng_below(r, rank);
    dmlref_tensor_data_type type = k_all_data_types[rng_below(r, 11)];
    dmlref_tensor_data_type itype = k_all_index_types[rng_below(r, 4)];
    test_tensor in, idx, upd, out, *all[4] = {&in, &idx, &upd, &out};
    void *in_el, *idx_el, *upd_el;
    unsigned char *got;
    uint64_t bound, bytes;
    dmlref_scatter_elements_desc d;
    dmlref_error err;
    uint32_t es = dmlref_data_type_size(type);

    random_sizes(r, rank, budget, in_sizes);
    memcpy(idx_sizes, in_sizes, sizeof idx_sizes);
    /* larger than the input's along the axis is valid too (D16) */
    idx_sizes[axis] = 1 + (uint32_t)rng_below(r, in_sizes[axis] + 2);
    random_tensor(r, &in, type, rank, in_sizes, 0);
    random_tensor(r, &idx, itype, rank, idx_sizes, 0);
    random_tensor(r, &upd, type, rank, idx_sizes, 0);
    random_tensor(r, &out, type, rank, in_sizes, 1);
    bound = in_sizes[axis];
    in_el = fill_random(r, &in);
    idx_el = fill_random_indices(r, &idx, &bound, 1);
    upd_el = fill_random(r, &upd);
    memset(out.data, PADDING_FILL, (size_t)out.desc.TotalTensorSizeInBytes);

    d.InputTensor = &in.desc, d.IndicesTensor = &idx.desc, d.UpdatesTensor = &upd.desc;
    d.OutputTensor = &out.desc, d.Axis = axis;
    if (tt_execute_threads(DMLREF_OPERATOR_SCATTER_ELEMENTS, &d, threads, all, 3, all + 3, 1,
                           &err) != DMLREF_OK)
        fail_msg("%s", err.message);
    check_guards(all, 4, 3);
    assert_true(tt_padding_intact(&out));

    got = output_elements(&out);
    bytes = tt_count(&out) * es;
    if (check_model) {
        void *want = malloc((size_t)bytes);
        assert_non_null(want);
        assert_true(model_scatter_elements(rank, in_sizes, idx_sizes, axis, es, in_el, itype,
                                           idx_el, upd_el, want));
        assert_memory_equal(got, want, bytes);
        free(want);
    }
    keep_or_free(got, bytes, result, result_bytes);
    free(in_el), free(idx_el), free(upd_el);
    tt_free(&in), tt_free(&idx), tt_free(&upd), tt_free(&out);
}

/* ---- GATHER_ND / GATHER_ND1 --------------------------------------------- */

static void gather_nd_case(rng *r, uint64_t budget, uint32_t threads, int check_model,
                           unsigned char **result, uint64_t *result_bytes)
{
    uint32_t D, m, q, b, k, rr, i, in_sizes[8], idx_sizes[8], out_sizes[8], model_sizes[8];
    uint32_t meaningful[8];
    dmlref_tensor_data_type type = k_all_data_types[rng_below(r, 11)];
    dmlref_tensor_data_type itype = k_all_index_types[rng_below(r, 4)];
    test_tensor in, idx, out, *all[3] = {&in, &idx, &out};
    void *in_el, *idx_el;
    unsigned char *got;
    uint64_t bounds[8], bytes;
    dmlref_gather_nd1_desc d1;
    dmlref_gather_nd_desc d0;
    dmlref_operator_type op;
    dmlref_error err;
    uint32_t es = dmlref_data_type_size(type);

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
    for (i = 0; i < b; ++i) /* batch dimensions agree (R-GN-6) */
        idx_sizes[D - q + i] = in_sizes[D - m + i];
    idx_sizes[D - 1] = k;
    for (i = 0; i < D; ++i)
        out_sizes[i] = 1;
    for (i = 0; i + 1 < q; ++i)
        out_sizes[D - (q - 1 + rr) + i] = idx_sizes[D - q + i];
    for (i = 0; i < rr; ++i)
        out_sizes[D - rr + i] = in_sizes[D - rr + i];

    random_tensor(r, &in, type, D, in_sizes, 0);
    random_tensor(r, &idx, itype, D, idx_sizes, 0);
    random_tensor(r, &out, type, D, out_sizes, 1);
    for (i = 0; i < k; ++i)
        bounds[i] = in_sizes[D - m + b + i];
    in_el = fill_random(r, &in);
    idx_el = fill_random_indices(r, &idx, bounds, k);
    memset(out.data, PADDING_FILL, (size_t)out.desc.TotalTensorSizeInBytes);

    if (b == 0 && rng_below(r, 2)) {
        d0.InputTensor = &in.desc, d0.IndicesTensor = &idx.desc, d0.OutputTensor = &out.desc;
        d0.InputDimensionCount = m, d0.IndicesDimensionCount = q;
        op = DMLREF_OPERATOR_GATHER_ND;
    } else {
        d1.InputTensor = &in.desc, d1.IndicesTensor = &idx.desc, d1.OutputTensor = &out.desc;
        d1.InputDimensionCount = m, d1.IndicesDimensionCount = q, d1.BatchDimensionCount = b;
        op = DMLREF_OPERATOR_GATHER_ND1;
    }
    if (tt_execute_threads(op, op == DMLREF_OPERATOR_GATHER_ND ? (void *)&d0 : (void *)&d1,
                           threads, all, 2, all + 2, 1, &err) != DMLREF_OK)
        fail_msg("%s", err.message);
    check_guards(all, 3, 2);
    assert_true(tt_padding_intact(&out));

    got = output_elements(&out);
    bytes = tt_count(&out) * es;
    if (check_model) {
        void *want = malloc((size_t)bytes);
        assert_non_null(want);
        assert_true(model_gather_nd(D, in_sizes, idx_sizes, m, q, b, es, in_el, itype, idx_el,
                                    model_sizes, want));
        assert_memory_equal(model_sizes, out_sizes, D * sizeof *out_sizes);
        assert_memory_equal(got, want, bytes);
        free(want);
    }
    keep_or_free(got, bytes, result, result_bytes);
    free(in_el), free(idx_el);
    tt_free(&in), tt_free(&idx), tt_free(&out);
}

/* ---- NONZERO_COORDINATES ------------------------------------------------ */

static const dmlref_tensor_data_type k_nonzero_types[8] = {
    DMLREF_TENSOR_DATA_TYPE_FLOAT32, DMLREF_TENSOR_DATA_TYPE_FLOAT16,
    DMLREF_TENSOR_DATA_TYPE_UINT32,  DMLREF_TENSOR_DATA_TYPE_UINT16,
    DMLREF_TENSOR_DATA_TYPE_UINT8,   DMLREF_TENSOR_DATA_TYPE_INT32,
    DMLREF_TENSOR_DATA_TYPE_INT16,   DMLREF_TENSOR_DATA_TYPE_INT8};

static void nonzero_case(rng *r, uint64_t budget, uint32_t threads, int check_model,
                         unsigned char **result, uint64_t *result_bytes)
{
    uint32_t D = 1 + (uint32_t)rng_below(r, 8), in_sizes[8], co_sizes[8], cn_sizes[8];
    uint32_t co_rank = 2 + (uint32_t)rng_below(r, 7), cn_rank = 1 + (uint32_t)rng_below(r, 8);
    uint32_t e, N, M, i, count, want_count, *got, *want;
    dmlref_tensor_data_type type = k_nonzero_types[rng_below(r, 8)];
    test_tensor in, cn, co, *all[3] = {&in, &cn, &co};
    unsigned char *in_el;
    uint64_t n, zero_odds = rng_below(r, 5); /* density from all-zero to dense */
    uint32_t es = dmlref_data_type_size(type);
    dmlref_nonzero_coordinates_desc d;
    dmlref_error err;

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

    random_tensor(r, &in, type, D, in_sizes, 0);
    random_tensor(r, &cn, DMLREF_TENSOR_DATA_TYPE_UINT32, cn_rank, cn_sizes, 1);
    random_tensor(r, &co, DMLREF_TENSOR_DATA_TYPE_UINT32, co_rank, co_sizes, 1);
    n = tt_count(&in);
    in_el = random_bytes(r, n * es);
    for (i = 0; i < n; ++i) { /* zeros, sign-only patterns (-0.0 for floats), random bits */
        uint64_t pick = rng_below(r, 8);
        if (pick < zero_odds * 2)
            memset(in_el + (uint64_t)i * es, 0, es);
        else if (pick == 7) {
            memset(in_el + (uint64_t)i * es, 0, es);
            in_el[(uint64_t)i * es + es - 1] = 0x80;
        }
    }
    tt_set_raw(&in, in_el);
    tt_get_raw(&in, in_el);

    d.InputTensor = &in.desc, d.OutputCountTensor = &cn.desc;
    d.OutputCoordinatesTensor = &co.desc;
    if (tt_execute_threads(DMLREF_OPERATOR_NONZERO_COORDINATES, &d, threads, all, 1, all + 1, 2,
                           &err) != DMLREF_OK)
        fail_msg("%s", err.message);
    check_guards(all, 3, 1);

    memcpy(&count, cn.data, 4);
    got = malloc((size_t)M * N * 4 + 4); /* room for the count after the rows */
    want = malloc((size_t)M * N * 4 + 4);
    assert_non_null(got);
    assert_non_null(want);
    tt_get_raw(&co, got);
    /* rows at or past the count are untouched (R-NZ-14) */
    for (i = count * N; i < M * N; ++i)
        assert_int_equal(got[i], 0xCDCDCDCDu);
    assert_true(tt_padding_intact(&co));
    if (check_model) {
        want_count = model_nonzero(D, in_sizes, type, in_el, N, want);
        assert_int_equal(count, want_count);
        if (count)
            assert_memory_equal(got, want, (size_t)count * N * 4);
    }
    got[M * N] = count; /* the count travels with the rows */
    keep_or_free((unsigned char *)got, (uint64_t)M * N * 4 + 4, result, result_bytes);
    free(want), free(in_el);
    tt_free(&in), tt_free(&cn), tt_free(&co);
}

/* ---- the tests ---------------------------------------------------------- */

typedef void (*case_fn)(rng *, uint64_t, uint32_t, int, unsigned char **, uint64_t *);

static void run_random(case_fn fn, uint64_t seed, int cases)
{
    rng r;
    int i;
    rng_seed(&r, seed);
    for (i = 0; i < cases; ++i)
        fn(&r, 1 + rng_below(&r, 3000), 0, 1, NULL, NULL);
}

/* Ensure GATHER_ELEMENTS matches the model on random shapes, types and layouts. */
static void test_random_gather_elements_matches_model(void **state)
{
    (void)state;
    run_random(gather_elements_case, 101, 1500);
}

/* Ensure SCATTER_ELEMENTS (duplicates included, the last update winning: D4)
   matches the model. */
static void test_random_scatter_elements_matches_model(void **state)
{
    (void)state;
    run_random(scatter_elements_case, 202, 1500);
}

/* Ensure GATHER_ND and GATHER_ND1 (batch dimensions, slices, leading ones)
   match the model. */
static void test_random_gather_nd_matches_model(void **state)
{
    (void)state;
    run_random(gather_nd_case, 303, 1500);
}

/* Ensure NONZERO_COORDINATES (densities 0 to 1, -0.0, NaN, right-aligned
   columns for N < D, any coordinate layout) matches the model. */
static void test_random_nonzero_matches_model(void **state)
{
    (void)state;
    run_random(nonzero_case, 404, 1500);
}

/* Runs three large cases (outputs of at least min_bytes, so the loops run
   on the whole team) at 1, 2 and 7 threads and compares the output bytes;
   the 1-thread run is also checked against the model. */
static void same_bytes_at_1_2_7_threads(case_fn fn, uint64_t seed, uint64_t budget,
                                        uint64_t min_bytes)
{
    static const uint32_t threads[3] = {1, 2, 7};
    int large = 0, attempts, t;
    for (attempts = 0; large < 3 && attempts < 100; ++attempts) {
        unsigned char *first = NULL, *other;
        uint64_t first_bytes = 0, other_bytes;
        rng r;
        rng_seed(&r, seed + (uint64_t)attempts);
        fn(&r, budget, threads[0], 1, &first, &first_bytes);
        if (first_bytes < min_bytes) { /* too small to split: try another */
            free(first);
            continue;
        }
        for (t = 1; t < 3; ++t) {
            rng_seed(&r, seed + (uint64_t)attempts);
            fn(&r, budget, threads[t], 0, &other, &other_bytes);
            assert_int_equal(other_bytes, first_bytes);
            assert_memory_equal(other, first, first_bytes);
            free(other);
        }
        free(first);
        ++large;
    }
    assert_int_equal(large, 3);
}

/* Ensure large GATHER_ELEMENTS cases give identical bytes at 1, 2 and 7 threads. */
static void test_threads_gather_elements_bit_identical(void **state)
{
    (void)state;
    same_bytes_at_1_2_7_threads(gather_elements_case, 11, 400000, 1u << 18);
}

/* Ensure large SCATTER_ELEMENTS cases give identical bytes at 1, 2 and 7 threads. */
static void test_threads_scatter_elements_bit_identical(void **state)
{
    (void)state;
    same_bytes_at_1_2_7_threads(scatter_elements_case, 12, 400000, 1u << 18);
}

/* Ensure large GATHER_ND/ND1 cases give identical bytes at 1, 2 and 7 threads. */
static void test_threads_gather_nd_bit_identical(void **state)
{
    (void)state;
    same_bytes_at_1_2_7_threads(gather_nd_case, 13, 400000, 1u << 18);
}

/* Ensure large NONZERO_COORDINATES cases give identical bytes at 1, 2 and 7 threads. */
static void test_threads_nonzero_bit_identical(void **state)
{
    (void)state;
    same_bytes_at_1_2_7_threads(nonzero_case, 14, 2000000, 1u << 21);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_gather_elements_matches_model),
        cmocka_unit_test(test_random_scatter_elements_matches_model),
        cmocka_unit_test(test_random_gather_nd_matches_model),
        cmocka_unit_test(test_random_nonzero_matches_model),
        cmocka_unit_test(test_threads_gather_elements_bit_identical),
        cmocka_unit_test(test_threads_scatter_elements_bit_identical),
        cmocka_unit_test(test_threads_gather_nd_bit_identical),
        cmocka_unit_test(test_threads_nonzero_bit_identical),
    };
    return cmocka_run_group_tests_name("random", tests, NULL, NULL);
}
