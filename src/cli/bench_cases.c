/*
 * bench_cases.c - dmlref bench's case matrix: the cases it times (their
 * operators, sizes, layouts and index patterns), each filled by the case
 * generator (src/suite/generate.c), and the facts its reports name a case by.
 */
#include "cli/bench.h"

#include "platform/system.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const k_pattern_names[] = {"seq",      "rev",    "row_random", "axis_random",
                                              "row_perm", "perm",   "dup",        "random",
                                              "sorted",   "density"};

static const char *const k_layout_names[] = {"packed", "transposed_input", "broadcast_input",
                                             "strided_output"};

static const char *const k_op_names[] = {"gather_elements", "scatter_elements", "gather_nd",
                                         "nonzero_coordinates"};

int bench_add_case(case_list *l, bench_case c)
{
    const char *op = k_op_names[c.op];
    if (l->count == l->capacity) {
        size_t capacity = l->capacity ? 2 * l->capacity : 256;
        bench_case *grown = realloc(l->items, capacity * sizeof *grown);
        if (!grown)
            return 0;
        l->items = grown;
        l->capacity = capacity;
    }
    switch (c.op) {
    case OP_GATHER_ELEMENTS:
    case OP_SCATTER:
        snprintf(c.name, sizeof c.name, "%s/%saxis%u_%s/%s/e%u_i%u/2^%u", op,
                 c.rank == 3 ? "3d_" : "", c.axis, k_pattern_names[c.pattern],
                 k_layout_names[c.layout], c.es, 8 * c.ib, c.size_log2);
        break;
    case OP_GATHER_ND:
        if (c.batch)
            snprintf(c.name, sizeof c.name, "%s/batch%u_S%u_%s/packed/e%u_i%u/2^%u", op, c.batch,
                     c.slice, k_pattern_names[c.pattern], c.es, 8 * c.ib, c.size_log2);
        else
            snprintf(c.name, sizeof c.name, "%s/S%u_%s/packed/e%u_i%u/2^%u", op, c.slice,
                     k_pattern_names[c.pattern], c.es, 8 * c.ib, c.size_log2);
        break;
    case OP_NONZERO:
        snprintf(c.name, sizeof c.name, "%s/rank%u_d%g/packed/e%u/2^%u", op, c.rank, c.density,
                 c.es, c.size_log2);
        break;
    }
    l->items[l->count++] = c;
    return 1;
}

/* Splits 2^n elements over `rank` dimensions of powers of two, the larger first. */
static void split_shape(uint32_t n, uint32_t rank, uint32_t *shape)
{
    uint32_t i;
    for (i = 0; i < rank; ++i)
        shape[i] = 1u << (n / rank + (i < n % rank ? 1 : 0));
}

static const uint32_t k_sizes_es[4] = {1, 2, 4, 8};
static const uint32_t k_sizes_ib[2] = {4, 8};

/* GatherElements and Scatter: 2-D, the larger half of the bits last, every
   pattern, element size and index size; GatherElements in the other
   layouts, and 3-D. */
static int elements_cases(case_list *l, uint32_t n)
{
    static const struct {
        uint32_t axis;
        enum bench_pattern pattern;
    } gather[] = {{1, P_SEQ}, {1, P_REV}, {1, P_ROW_RANDOM},
                  {0, P_SEQ}, {0, P_REV}, {0, P_AXIS_RANDOM}},
      scatter[] = {{1, P_SEQ}, {1, P_ROW_PERM}, {1, P_DUP}, {0, P_PERM}, {0, P_DUP}};
    static const enum bench_layout layouts[] = {L_TRANSPOSED_INPUT, L_BROADCAST_INPUT,
                                                L_STRIDED_OUTPUT};
    bench_case c;
    size_t i, j, e, x;
    int ok = 1;

    memset(&c, 0, sizeof c);
    c.size_log2 = n;
    c.rank = 2;
    c.shape[0] = 1u << (n / 2);
    c.shape[1] = 1u << (n - n / 2);
    c.op = OP_GATHER_ELEMENTS;
    for (i = 0; i < sizeof gather / sizeof *gather; ++i)
        for (e = 0; e < 4; ++e)
            for (x = 0; x < 2; ++x) {
                c.axis = gather[i].axis;
                c.pattern = gather[i].pattern;
                c.layout = L_PACKED;
                c.es = k_sizes_es[e];
                c.ib = k_sizes_ib[x];
                c.quick = (c.es == 4 && c.ib == 8) || (c.axis == 1 && c.pattern == P_SEQ)
                              ? QUICK_LARGE
                              : 0;
                if (c.es == 4 && c.ib == 8 && c.axis == 1 &&
                    (c.pattern == P_SEQ || c.pattern == P_ROW_RANDOM))
                    c.quick |= QUICK_SMALL;
                ok &= bench_add_case(l, c);
            }
    for (j = 0; j < sizeof layouts / sizeof *layouts; ++j)
        for (i = 0; i < 2; ++i)
            for (x = 0; x < 2; ++x) {
                c.axis = i == 0 ? 1 : 0;
                c.pattern = P_SEQ;
                c.layout = layouts[j];
                c.es = 4;
                c.ib = k_sizes_ib[x];
                c.quick = c.ib == 8 ? QUICK_LARGE : 0;
                ok &= bench_add_case(l, c);
            }
    /* 3-D [64, 2^h, 2^(n-6-h)], axis 1 */
    c.rank = 3;
    c.shape[0] = 64;
    c.shape[1] = 1u << ((n - 6) / 2);
    c.shape[2] = 1u << (n - 6 - (n - 6) / 2);
    for (x = 0; x < 2; ++x) {
        c.axis = 1;
        c.pattern = P_SEQ;
        c.layout = L_PACKED;
        c.es = 4;
        c.ib = k_sizes_ib[x];
        c.quick = 0;
        ok &= bench_add_case(l, c);
    }

    c.rank = 2;
    c.shape[0] = 1u << (n / 2);
    c.shape[1] = 1u << (n - n / 2);
    c.shape[2] = 0;
    c.op = OP_SCATTER;
    c.layout = L_PACKED;
    for (i = 0; i < sizeof scatter / sizeof *scatter; ++i)
        for (e = 0; e < 4; ++e)
            for (x = 0; x < 2; ++x) {
                c.axis = scatter[i].axis;
                c.pattern = scatter[i].pattern;
                c.es = k_sizes_es[e];
                c.ib = k_sizes_ib[x];
                c.quick = (c.es == 4 && c.ib == 8) ||
                                  (c.axis == 1 && c.pattern == P_SEQ &&
                                   ((c.es == 1 && c.ib == 4) || (c.es == 8 && c.ib == 8)))
                              ? QUICK_LARGE
                              : 0;
                if (c.es == 4 && c.ib == 8 && c.axis == 1 && c.pattern == P_SEQ)
                    c.quick |= QUICK_SMALL;
                ok &= bench_add_case(l, c);
            }

    return ok;
}

/* GatherND: one row per tuple, slices of 1 to 4096, and batch dimensions. */
static int gather_nd_cases(case_list *l, uint32_t n)
{
    static const uint32_t slices[] = {1, 16, 256, 4096};
    bench_case c;
    size_t i, j, e, x;
    int ok = 1;

    /* GatherND: input [M, S], indices [M, 1]: one row per tuple */
    memset(&c, 0, sizeof c);
    c.size_log2 = n;
    c.op = OP_GATHER_ND;
    c.rank = 2;
    for (i = 0; i < sizeof slices / sizeof *slices; ++i)
        for (j = 0; j < 2; ++j)
            for (e = 0; e < 4; ++e)
                for (x = 0; x < 2; ++x) {
                    c.slice = slices[i];
                    c.pattern = j == 0 ? P_RANDOM : P_SORTED;
                    c.es = k_sizes_es[e];
                    c.ib = k_sizes_ib[x];
                    /* other element sizes: S = 1 and 256, random rows */
                    if (c.es != 4 && (c.pattern != P_RANDOM || (c.slice != 1 && c.slice != 256)))
                        continue;
                    c.shape[0] = (1u << n) / c.slice;
                    c.shape[1] = c.slice;
                    c.quick = c.es == 4 && c.ib == 8 && c.slice != 1 &&
                                      (c.pattern == P_RANDOM || c.slice == 16)
                                  ? QUICK_LARGE
                                  : 0;
                    if (c.es == 4 && c.ib == 8 && c.pattern == P_RANDOM && c.slice == 16)
                        c.quick |= QUICK_SMALL;
                    ok &= bench_add_case(l, c);
                }
    /* batch dimensions: input [16, M, 256], indices [16, M, 1], b = 1 */
    c.rank = 3;
    c.batch = 16;
    c.slice = 256;
    c.pattern = P_RANDOM;
    c.es = 4;
    c.shape[0] = 16;
    c.shape[1] = (1u << n) / (16 * 256);
    c.shape[2] = 256;
    for (x = 0; x < 2; ++x) {
        c.ib = k_sizes_ib[x];
        c.quick = c.ib == 8 ? QUICK_LARGE : 0;
        ok &= bench_add_case(l, c);
    }

    return ok;
}

/* NonZeroCoordinates: densities, ranks and element sizes. */
static int nonzero_cases(case_list *l, uint32_t n)
{
    static const double densities[] = {0, 0.01, 0.1, 0.5, 1};
    static const uint32_t ranks[] = {1, 4, 8};
    bench_case c;
    size_t i, e;
    int ok = 1;

    memset(&c, 0, sizeof c);
    c.size_log2 = n;
    c.op = OP_NONZERO;
    c.pattern = P_DENSITY;
    c.rank = 2;
    c.es = 4;
    split_shape(n, 2, c.shape);
    for (i = 0; i < sizeof densities / sizeof *densities; ++i) {
        c.density = densities[i];
        c.quick = c.density == 0 || c.density == 0.5 ? QUICK_LARGE : 0;
        if (c.density == 0.5)
            c.quick |= QUICK_SMALL;
        ok &= bench_add_case(l, c);
    }
    c.density = 0.5;
    for (i = 0; i < sizeof ranks / sizeof *ranks; ++i) {
        c.rank = ranks[i];
        split_shape(n, c.rank, c.shape);
        c.quick = c.rank == 8 ? QUICK_LARGE : 0;
        ok &= bench_add_case(l, c);
    }
    c.rank = 2;
    split_shape(n, 2, c.shape);
    for (e = 0; e < 2; ++e) {
        c.es = k_sizes_es[e];
        c.quick = 0;
        ok &= bench_add_case(l, c);
    }
    return ok;
}

/* Every case of the class of 2^n elements (12 <= n <= 28). */
int bench_build_matrix(case_list *l, uint32_t n)
{
    int ok = elements_cases(l, n);
    ok &= gather_nd_cases(l, n);
    ok &= nonzero_cases(l, n);
    return ok;
}

/* ---- data -------------------------------------------------------------------- */

#define BENCH_SEED 0x5DEECE66Dull

/* splitmix64's output function of a counter: the k-th value of stream s. */
static uint64_t hash64(uint64_t s, uint64_t k)
{
    uint64_t z = s * 0xD1B54A32D192ED03ull + k * 0x9E3779B97F4A7C15ull + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* n elements of `es` bytes, hashed from stream s, 8 bytes at a time (the
   buffers are allocated in whole pages, so the last word fits). */
void bench_fill_random(void *base, uint64_t n, uint32_t es, uint64_t s, uint32_t threads)
{
    uint64_t *words = base;
    int64_t k, count = (int64_t)((n * es + 7) / 8);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads((int)threads)
#endif
    for (k = 0; k < count; ++k)
        words[k] = hash64(s, (uint64_t)k);
    (void)threads;
}

/* ---- one case: buffers and descriptors --------------------------------------- */

void bench_release(prepared *p)
{
    int i;
    for (i = 0; i < GEN_TENSORS; ++i) {
        free_aligned(p->buf[i]);
        p->buf[i] = NULL;
    }
    gen_free(&p->g);
}

static uint64_t elements_of(uint32_t rank, const uint32_t *sizes)
{
    uint64_t n = 1;
    uint32_t i;
    for (i = 0; i < rank; ++i)
        n *= sizes[i];
    return n;
}

/* The case as the case generator's request: its shape and the operator's
   parameters as its name gives them, random bits as data, its index
   pattern, and its layout (broadcast_input: stride 0 off the axis, so that
   every line reads one line of the buffer, in *broadcast). */
static void request_of(const bench_case *c, gen_request *q, uint32_t *broadcast)
{
    static const dmlref_operator_type ops[] = {
        DMLREF_OPERATOR_GATHER_ELEMENTS, DMLREF_OPERATOR_SCATTER_ELEMENTS,
        DMLREF_OPERATOR_GATHER_ND1, DMLREF_OPERATOR_NONZERO_COORDINATES};
    static const gen_indices patterns[] = {
        /* in the order of enum bench_pattern */
        GEN_INDICES_SEQUENTIAL,  GEN_INDICES_REVERSED,    GEN_INDICES_UNIFORM, GEN_INDICES_UNIFORM,
        GEN_INDICES_PERMUTATION, GEN_INDICES_PERMUTATION, GEN_INDICES_ZERO,    GEN_INDICES_UNIFORM,
        GEN_INDICES_SORTED,      GEN_INDICES_UNIFORM};
    static const gen_layout transposed[GEN_TENSORS] = {GEN_TRANSPOSED, GEN_PACKED, GEN_PACKED,
                                                       GEN_PACKED};
    const dmlref_tensor_data_type type = c->es == 1   ? DMLREF_TENSOR_DATA_TYPE_UINT8
                                         : c->es == 2 ? DMLREF_TENSOR_DATA_TYPE_FLOAT16
                                         : c->es == 4 ? DMLREF_TENSOR_DATA_TYPE_FLOAT32
                                                      : DMLREF_TENSOR_DATA_TYPE_FLOAT64;
    gen_request_init(q, ops[c->op], type,
                     c->ib == 4 ? DMLREF_TENSOR_DATA_TYPE_INT32 : DMLREF_TENSOR_DATA_TYPE_INT64,
                     c->rank);
    q->sizes = q->index_sizes = c->shape;
    q->data = GEN_DATA_BITS;
    q->indices = patterns[c->pattern];
    if (c->op == OP_GATHER_ND) { /* m = q = the rank, b = 0 or 1, tuples of one */
        q->params[0] = q->params[1] = c->rank;
        q->params[2] = c->batch ? 1 : 0;
        q->params[3] = 1;
    } else if (c->op == OP_NONZERO) { /* N = the rank; `density` of the elements non-zero */
        q->params[0] = c->rank;
        q->nonzero[0] = (uint32_t)(c->density * 1000 + 0.5);
        q->nonzero[1] = 1000;
    } else {
        q->params[0] = c->axis;
    }
    if (c->layout == L_TRANSPOSED_INPUT)
        q->layouts = transposed;
    else if (c->layout == L_STRIDED_OUTPUT)
        q->layout = GEN_STRIDED; /* the output alone takes it */
    else if (c->layout == L_BROADCAST_INPUT) {
        broadcast[0] = c->axis == 1 ? 0 : 1;
        broadcast[1] = c->axis == 1 ? 1 : 0;
        q->strides[0] = broadcast;
    }
}

/* Allocates the case's buffers, first-touched by T threads with a static
   split, and fills its inputs with T threads. */
int bench_prepare(const bench_case *c, uint32_t threads, prepared *p)
{
    const dmlref_tensor_desc *tensors[GEN_TENSORS];
    uint32_t broadcast[2];
    gen_request q;
    gen_rng r;
    size_t i;

    memset(p, 0, sizeof *p);
    request_of(c, &q, broadcast);
    r.state = BENCH_SEED;
    if (!gen_make(&r, &q, &p->g))
        return 0;
    p->input_count = p->g.inputs, p->output_count = p->g.count - p->g.inputs;
    for (i = 0; i < p->g.count; ++i) {
        dmlref_binding *b = i < p->input_count ? &p->in[i] : &p->out[i - p->input_count];
        gen_tensor_desc(&p->g, i, &p->t[i]);
        tensors[i] = &p->t[i];
        if (p->t[i].TotalTensorSizeInBytes == 0 ||
            !(p->buf[i] = bench_alloc((size_t)p->t[i].TotalTensorSizeInBytes, threads, 1))) {
            bench_release(p);
            return 0;
        }
        b->data = p->buf[i];
        b->size_in_bytes = p->t[i].TotalTensorSizeInBytes;
        if (i < p->input_count)
            gen_fill(&p->g, i, p->buf[i], threads);
        if (!(c->op == OP_NONZERO && i + 1 == p->g.count)) /* NonZero's coordinates: run_case */
            p->bytes += elements_of(p->t[i].DimensionCount, p->t[i].Sizes) *
                        dmlref_data_type_size(p->t[i].DataType);
    }
    gen_descriptor(&p->g, tensors, &p->desc);
    p->op.Type = q.op;
    p->op.Desc = &p->desc;
    return 1;
}

/* ---- measuring ----------------------------------------------------------------- */

void bench_describe(const bench_case *c, bench_case_facts *f)
{
    f->name = c->name;
    f->op = k_op_names[c->op];
    f->pattern = k_pattern_names[c->pattern];
    f->layout = k_layout_names[c->layout];
    f->element_size = c->es, f->index_bytes = c->ib;
    f->rank = c->rank;
    memcpy(f->shape, c->shape, sizeof f->shape);
    f->elements = elements_of(c->rank, c->shape);
    f->size_log2 = c->size_log2, f->axis = c->axis, f->slice = c->slice, f->batch = c->batch;
    f->density = c->density;
}
