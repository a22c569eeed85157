/*
 * bench.c - dmlref bench: times the library through its public API
 * (dmlref_execute_with_options, num_threads = T, the strict out-of-range
 * policy unless --oob clamp) over a fixed matrix of cases, with the fast
 * kernels (kernels = DMLREF_KERNELS_FAST) and the reference kernels
 * (DMLREF_KERNELS_REFERENCE) side by side, against a parallel memcpy measured
 * in the same process at the same thread count.
 *
 *   - Buffers are 2 MiB aligned, advised to use large pages as NumPy's
 *     arrays are (the peers of scripts/report/bench_peers.py read NumPy arrays, and
 *     a gather reads its input at a TLB miss per 4 KiB page without them),
 *     and first-touched in parallel with a static split over T threads,
 *     then filled with data derived from a fixed seed (a counter-based hash,
 *     so any thread count fills the same bytes).
 *   - Each case runs once unmeasured with each set of kernels (the status must
 *     be DMLREF_OK: a refused descriptor is a bug of this file), then `reps`
 *     times each: every rep is a timed copy, the fast kernels, a timed copy,
 *     the reference kernels, so every timed run of the case follows a copy.
 *     Runs shorter than 2 ms repeat the call and report the time per call.
 *   - Each rep also times, after an untimed copy each, a read of the index
 *     tensor alone and a copy that moves the case's logical bytes (half read,
 *     half written) between buffers of its own.  The size-class copy of 64
 *     MiB fits a large last-level cache where a case of 256 MiB does not; the
 *     case-sized copy sees the cache as the case does, so the two give the
 *     least time the case's bytes can take (scripts/report/peers_report.py).
 *   - Throughput counts logical bytes, every tensor read or written once:
 *       GatherElements  out_elems * (2e + ib)
 *       Scatter         data_elems * 2e + upd_elems * (ib + e)
 *       GatherND        out_elems * 2e + tuples * k * ib
 *       NonZero         in_elems * e + nnz * rank * 4 + 4
 *     and the copy 2 bytes per byte copied; ratio = GB/s / copy GB/s.
 */
#include "cli/cli.h"
#include "platform/clock.h"
#include "platform/files.h"
#include "platform/memory.h"
#include "platform/system.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* ---- the case matrix ------------------------------------------------------- */

enum bench_op { OP_GATHER_ELEMENTS, OP_SCATTER, OP_GATHER_ND, OP_NONZERO };

enum bench_pattern {
    P_SEQ,         /* index = own coordinate */
    P_REV,         /* size - 1 - coordinate */
    P_ROW_RANDOM,  /* uniform over the (last) axis, per row */
    P_AXIS_RANDOM, /* uniform over the whole axis */
    P_ROW_PERM,    /* a random permutation of every line along the axis */
    P_PERM,        /* as P_ROW_PERM, named for axis 0 */
    P_DUP,         /* all zeros: every update of a line targets one element */
    P_RANDOM,      /* GatherND: uniform random rows */
    P_SORTED,      /* GatherND: nondecreasing rows, gaps of 0 to 2 */
    P_DENSITY      /* NonZero: nonzero with probability `density` */
};

static const char *const k_pattern_names[] = {"seq",      "rev",    "row_random", "axis_random",
                                              "row_perm", "perm",   "dup",        "random",
                                              "sorted",   "density"};

enum bench_layout { L_PACKED, L_TRANSPOSED_INPUT, L_BROADCAST_INPUT, L_STRIDED_OUTPUT };

static const char *const k_layout_names[] = {"packed", "transposed_input", "broadcast_input",
                                             "strided_output"};

static const char *const k_op_names[] = {"gather_elements", "scatter_elements", "gather_nd",
                                         "nonzero_coordinates"};

/* Which reduced matrix (--quick) a case belongs to. */
#define QUICK_LARGE 1u /* run at the large size */
#define QUICK_SMALL 2u /* run at the in-cache size too */

typedef struct bench_case {
    char name[112];
    enum bench_op op;
    enum bench_pattern pattern;
    enum bench_layout layout;
    uint32_t rank, shape[DMLREF_TENSOR_DIMENSION_COUNT_MAX];
    uint32_t axis;         /* gather_elements, scatter */
    uint32_t es, ib;       /* element and index bytes (ib 0: nonzero) */
    uint32_t size_log2;    /* elements of the case's class: 2^size_log2 */
    uint32_t slice, batch; /* gather_nd: S, and B (0: no batch dimension) */
    double density;        /* nonzero */
    unsigned quick;
} bench_case;

typedef struct case_list {
    bench_case *items;
    size_t count, capacity;
} case_list;

static int add_case(case_list *l, bench_case c)
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

/* Every case of the class of 2^n elements (12 <= n <= 28). */
static int build_matrix(case_list *l, uint32_t n)
{
    static const struct {
        uint32_t axis;
        enum bench_pattern pattern;
    } gather[] = {{1, P_SEQ}, {1, P_REV}, {1, P_ROW_RANDOM},
                  {0, P_SEQ}, {0, P_REV}, {0, P_AXIS_RANDOM}},
      scatter[] = {{1, P_SEQ}, {1, P_ROW_PERM}, {1, P_DUP}, {0, P_PERM}, {0, P_DUP}};
    static const enum bench_layout layouts[] = {L_TRANSPOSED_INPUT, L_BROADCAST_INPUT,
                                                L_STRIDED_OUTPUT};
    static const uint32_t slices[] = {1, 16, 256, 4096};
    static const double densities[] = {0, 0.01, 0.1, 0.5, 1};
    static const uint32_t ranks[] = {1, 4, 8};
    bench_case c;
    size_t i, j, e, x;
    int ok = 1;

    /* GatherElements and Scatter: 2-D, the larger half of the bits last */
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
                ok &= add_case(l, c);
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
                ok &= add_case(l, c);
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
        ok &= add_case(l, c);
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
                ok &= add_case(l, c);
            }

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
                    ok &= add_case(l, c);
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
        ok &= add_case(l, c);
    }

    /* NonZeroCoordinates */
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
        ok &= add_case(l, c);
    }
    c.density = 0.5;
    for (i = 0; i < sizeof ranks / sizeof *ranks; ++i) {
        c.rank = ranks[i];
        split_shape(n, c.rank, c.shape);
        c.quick = c.rank == 8 ? QUICK_LARGE : 0;
        ok &= add_case(l, c);
    }
    c.rank = 2;
    split_shape(n, 2, c.shape);
    for (e = 0; e < 2; ++e) {
        c.es = k_sizes_es[e];
        c.quick = 0;
        ok &= add_case(l, c);
    }
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

static uint32_t log2u(uint64_t v)
{
    uint32_t r = 0;
    while (v > 1)
        v >>= 1, ++r;
    return r;
}

/* A value uniform in [0, 2^bits). */
static uint64_t top_bits(uint64_t h, uint32_t bits)
{
    return bits ? h >> (64 - bits) : 0;
}

static int thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

static int thread_count(void)
{
#ifdef _OPENMP
    return omp_get_num_threads();
#else
    return 1;
#endif
}

/* Bytes [lo, hi) of `n` that thread t of `count` owns: equal parts, cut at 64 B. */
static void thread_part(size_t n, int t, int count, size_t *lo, size_t *hi)
{
    size_t lines = (n + 63) / 64;
    *lo = lines * (size_t)t / (size_t)count * 64;
    *hi = lines * (size_t)(t + 1) / (size_t)count * 64;
    if (*lo > n)
        *lo = n;
    if (*hi > n)
        *hi = n;
}

/* 2 MiB aligned, advised to use large pages (freed with free_aligned); when
   `touch`, first-touched (zeroed) by T threads with a static split.  A
   buffer filled by a parallel static loop right after is left untouched:
   the fill is its first touch. */
static void *bench_alloc(size_t bytes, uint32_t threads, int touch)
{
    void *p;
    size_t size = (bytes + 4095) / 4096 * 4096;
    if (size == 0)
        size = 4096;
    if (!(p = allocate_aligned(size, (size_t)2 << 20)))
        return NULL;
    memory_advise_large_pages(p, size);
    if (!touch)
        return p;
#ifdef _OPENMP
#pragma omp parallel num_threads((int)threads)
#endif
    {
        size_t lo, hi;
        thread_part(size, thread_id(), thread_count(), &lo, &hi);
        memset((unsigned char *)p + lo, 0, hi - lo);
    }
    (void)threads;
    return p;
}

/* Parallel per-thread memcpy of n bytes. */
static void parallel_copy(void *dst, const void *src, size_t n, uint32_t threads)
{
#ifdef _OPENMP
#pragma omp parallel num_threads((int)threads)
#endif
    {
        size_t lo, hi;
        thread_part(n, thread_id(), thread_count(), &lo, &hi);
        memcpy((unsigned char *)dst + lo, (const unsigned char *)src + lo, hi - lo);
    }
    (void)threads;
}

/* Reads n bytes (down to a multiple of 32) with T threads and nothing else,
   in a plain loop: what reading the indices costs.  The strict policy's own
   pass requests its lines ahead and reads faster than this at one thread on
   the machines of docs/performance.md, whose estimates take the faster of
   the two.  The OR of the words goes to a volatile, so the loads stay. */
static volatile uint64_t read_sink;

static void parallel_read(const void *src, size_t n, uint32_t threads)
{
    uint64_t all = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads((int)threads) reduction(| : all)
#endif
    {
        const unsigned char *p = src;
        uint64_t any[4] = {0, 0, 0, 0};
        size_t lo, hi, k;
        thread_part(n / 32, thread_id(), thread_count(), &lo, &hi);
        for (k = lo * 32; k < hi * 32; k += 32) {
            uint64_t w[4];
            memcpy(w, p + k, sizeof w);
            any[0] |= w[0], any[1] |= w[1], any[2] |= w[2], any[3] |= w[3];
        }
        all |= any[0] | any[1] | any[2] | any[3];
    }
    read_sink = all;
    (void)threads;
}

static void store(void *base, uint64_t k, uint32_t size, uint64_t v)
{
    switch (size) {
    case 1:
        ((uint8_t *)base)[k] = (uint8_t)v;
        break;
    case 2:
        ((uint16_t *)base)[k] = (uint16_t)v;
        break;
    case 4:
        ((uint32_t *)base)[k] = (uint32_t)v;
        break;
    default:
        ((uint64_t *)base)[k] = v;
        break;
    }
}

/* n elements of `es` bytes, hashed from stream s, 8 bytes at a time (the
   buffers are allocated in whole pages, so the last word fits). */
static void fill_random(void *base, uint64_t n, uint32_t es, uint64_t s, uint32_t threads)
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

/* Index values of a gather_elements or scatter case along its axis: the packed
   tensor is [outer, n, inner], all powers of two. */
static int fill_axis_indices(const bench_case *c, void *idx, uint32_t threads)
{
    uint64_t outer = 1, inner = 1, n = c->shape[c->axis], total;
    uint32_t d, nbits = log2u(n), ibits;
    for (d = 0; d < c->axis; ++d)
        outer *= c->shape[d];
    for (d = c->axis + 1; d < c->rank; ++d)
        inner *= c->shape[d];
    ibits = log2u(inner);
    total = outer * n * inner;
    (void)threads;

    if (c->pattern == P_ROW_PERM || c->pattern == P_PERM) {
        /* lines (o, i) along the axis; blocks of up to 16 neighbouring lines,
           so the strided stores of axis 0 fill whole cache lines */
        uint64_t block = inner < 16 ? inner : 16, blocks = outer * (inner / block);
        int failed = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads((int)threads) reduction(| : failed)
#endif
        {
            uint32_t *perm = malloc((size_t)(block * n) * sizeof *perm);
            int64_t b;
            if (!perm)
                failed = 1;
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
            for (b = 0; b < (int64_t)blocks; ++b) {
                uint64_t o = (uint64_t)b / (inner / block),
                         i0 = (uint64_t)b % (inner / block) * block;
                uint64_t j, a;
                if (!perm)
                    continue;
                for (j = 0; j < block; ++j) {
                    uint32_t *p = perm + j * n;
                    uint64_t line = o * inner + i0 + j, state = hash64(BENCH_SEED + 7, line);
                    for (a = 0; a < n; ++a)
                        p[a] = (uint32_t)a;
                    for (a = n - 1; a > 0; --a) { /* Fisher-Yates */
                        uint64_t r, t;
                        state = hash64(state, a);
                        r = (uint64_t)(((state >> 32) * (a + 1)) >> 32);
                        t = p[a], p[a] = p[r], p[r] = (uint32_t)t;
                    }
                }
                for (a = 0; a < n; ++a)
                    for (j = 0; j < block; ++j)
                        store(idx, (o * n + a) * inner + i0 + j, c->ib, perm[j * n + a]);
            }
            free(perm);
        }
        return !failed;
    }
    {
        int64_t k;
        enum bench_pattern pattern = c->pattern;
        uint32_t ib = c->ib;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads((int)threads)
#endif
        for (k = 0; k < (int64_t)total; ++k) {
            uint64_t a = ((uint64_t)k >> ibits) & (n - 1), v;
            switch (pattern) {
            case P_SEQ:
                v = a;
                break;
            case P_REV:
                v = n - 1 - a;
                break;
            case P_DUP:
                v = 0;
                break;
            default:
                v = top_bits(hash64(BENCH_SEED + 5, (uint64_t)k), nbits);
                break;
            }
            store(idx, (uint64_t)k, ib, v);
        }
    }
    return 1;
}

/* ---- one case: buffers and descriptors --------------------------------------- */

typedef struct prepared {
    dmlref_tensor_desc t[4];
    uint32_t sizes[4][DMLREF_TENSOR_DIMENSION_COUNT_MAX];
    uint32_t strides[4][DMLREF_TENSOR_DIMENSION_COUNT_MAX];
    void *buf[4];
    size_t input_count, output_count;
    dmlref_gather_elements_desc ge;
    dmlref_scatter_elements_desc sc;
    dmlref_gather_nd1_desc gnd;
    dmlref_nonzero_coordinates_desc nz;
    dmlref_operator_desc op;
    dmlref_binding in[3], out[2];
    uint64_t out_elems, bytes; /* logical bytes (bytes known after a run for nonzero) */
} prepared;

static dmlref_tensor_data_type data_type(uint32_t es, int nonzero)
{
    (void)nonzero;
    switch (es) {
    case 1:
        return DMLREF_TENSOR_DATA_TYPE_UINT8;
    case 2:
        return DMLREF_TENSOR_DATA_TYPE_FLOAT16;
    case 4:
        return DMLREF_TENSOR_DATA_TYPE_FLOAT32;
    default:
        return DMLREF_TENSOR_DATA_TYPE_FLOAT64;
    }
}

/* Tensor i: sizes (rank of them), strides (NULL: packed). */
static void set_tensor(prepared *p, int i, dmlref_tensor_data_type type, uint32_t rank,
                       const uint32_t *sizes, const uint32_t *strides)
{
    dmlref_tensor_desc *t = &p->t[i];
    memcpy(p->sizes[i], sizes, rank * sizeof *sizes);
    if (strides)
        memcpy(p->strides[i], strides, rank * sizeof *strides);
    memset(t, 0, sizeof *t);
    t->DataType = type;
    t->DimensionCount = rank;
    t->Sizes = p->sizes[i];
    t->Strides = strides ? p->strides[i] : NULL;
    t->TotalTensorSizeInBytes = dmlref_calc_buffer_tensor_size(type, rank, sizes, strides);
}

static void release(prepared *p)
{
    int i;
    for (i = 0; i < 4; ++i) {
        free_aligned(p->buf[i]);
        p->buf[i] = NULL;
    }
}

static uint64_t elements_of(uint32_t rank, const uint32_t *sizes)
{
    uint64_t n = 1;
    uint32_t i;
    for (i = 0; i < rank; ++i)
        n *= sizes[i];
    return n;
}

/* Whether buffer i is written whole by a parallel static loop (its first touch). */
static int filled_by_loop(const bench_case *c, size_t i, size_t input_count)
{
    if (i >= input_count)
        return 0; /* outputs: touched */
    if (c->op == OP_GATHER_ELEMENTS || c->op == OP_SCATTER)
        return i != 1 || c->pattern != P_PERM; /* axis 0 permutations: stores by column */
    return 1;
}

/* Allocates, first-touches and fills the case's buffers with T threads. */
static int prepare(const bench_case *c, uint32_t threads, prepared *p)
{
    dmlref_tensor_data_type type = data_type(c->es, c->op == OP_NONZERO);
    dmlref_tensor_data_type itype =
        c->ib == 4 ? DMLREF_TENSOR_DATA_TYPE_INT32 : DMLREF_TENSOR_DATA_TYPE_INT64;
    uint64_t n = elements_of(c->rank, c->shape);
    uint32_t strides[DMLREF_TENSOR_DIMENSION_COUNT_MAX];
    int count = 0, i;

    memset(p, 0, sizeof *p);
    switch (c->op) {
    case OP_GATHER_ELEMENTS:
        /* Input, Indices, Output */
        if (c->layout == L_TRANSPOSED_INPUT) {
            strides[0] = 1, strides[1] = c->shape[0];
            set_tensor(p, 0, type, c->rank, c->shape, strides);
        } else if (c->layout == L_BROADCAST_INPUT) {
            /* stride 0 off the axis: every line reads one line of the buffer */
            strides[0] = c->axis == 1 ? 0 : 1;
            strides[1] = c->axis == 1 ? 1 : 0;
            set_tensor(p, 0, type, c->rank, c->shape, strides);
        } else {
            set_tensor(p, 0, type, c->rank, c->shape, NULL);
        }
        set_tensor(p, 1, itype, c->rank, c->shape, NULL);
        if (c->layout == L_STRIDED_OUTPUT) {
            strides[0] = 2 * c->shape[1], strides[1] = 2;
            set_tensor(p, 2, type, c->rank, c->shape, strides);
        } else {
            set_tensor(p, 2, type, c->rank, c->shape, NULL);
        }
        p->ge.InputTensor = &p->t[0];
        p->ge.IndicesTensor = &p->t[1];
        p->ge.OutputTensor = &p->t[2];
        p->ge.Axis = c->axis;
        p->op.Type = DMLREF_OPERATOR_GATHER_ELEMENTS;
        p->op.Desc = &p->ge;
        p->input_count = 2, p->output_count = 1, count = 3;
        p->out_elems = n;
        p->bytes = n * (2 * c->es + c->ib);
        break;
    case OP_SCATTER:
        /* Input, Indices, Updates, Output */
        set_tensor(p, 0, type, c->rank, c->shape, NULL);
        set_tensor(p, 1, itype, c->rank, c->shape, NULL);
        set_tensor(p, 2, type, c->rank, c->shape, NULL);
        set_tensor(p, 3, type, c->rank, c->shape, NULL);
        p->sc.InputTensor = &p->t[0];
        p->sc.IndicesTensor = &p->t[1];
        p->sc.UpdatesTensor = &p->t[2];
        p->sc.OutputTensor = &p->t[3];
        p->sc.Axis = c->axis;
        p->op.Type = DMLREF_OPERATOR_SCATTER_ELEMENTS;
        p->op.Desc = &p->sc;
        p->input_count = 3, p->output_count = 1, count = 4;
        p->out_elems = n;
        p->bytes = n * 2 * c->es + n * (c->ib + c->es);
        break;
    case OP_GATHER_ND: {
        /* Input [M, S] or [B, M, S]; Indices [M, 1] or [B, M, 1]; Output = Input's shape */
        uint32_t isizes[3];
        memcpy(isizes, c->shape, sizeof isizes);
        isizes[c->rank - 1] = 1;
        set_tensor(p, 0, type, c->rank, c->shape, NULL);
        set_tensor(p, 1, itype, c->rank, isizes, NULL);
        set_tensor(p, 2, type, c->rank, c->shape, NULL);
        p->gnd.InputTensor = &p->t[0];
        p->gnd.IndicesTensor = &p->t[1];
        p->gnd.OutputTensor = &p->t[2];
        p->gnd.InputDimensionCount = c->rank;
        p->gnd.IndicesDimensionCount = c->rank;
        p->gnd.BatchDimensionCount = c->batch ? 1 : 0;
        p->op.Type = DMLREF_OPERATOR_GATHER_ND1;
        p->op.Desc = &p->gnd;
        p->input_count = 2, p->output_count = 1, count = 3;
        p->out_elems = n;
        p->bytes = n * 2 * c->es + (n / c->slice) * 1 * c->ib;
        break;
    }
    case OP_NONZERO: {
        uint32_t one = 1, csizes[2];
        csizes[0] = (uint32_t)n, csizes[1] = c->rank;
        set_tensor(p, 0, type, c->rank, c->shape, NULL);
        set_tensor(p, 1, DMLREF_TENSOR_DATA_TYPE_UINT32, 1, &one, NULL);
        set_tensor(p, 2, DMLREF_TENSOR_DATA_TYPE_UINT32, 2, csizes, NULL);
        p->nz.InputTensor = &p->t[0];
        p->nz.OutputCountTensor = &p->t[1];
        p->nz.OutputCoordinatesTensor = &p->t[2];
        p->op.Type = DMLREF_OPERATOR_NONZERO_COORDINATES;
        p->op.Desc = &p->nz;
        p->input_count = 1, p->output_count = 2, count = 3;
        p->out_elems = n;
        p->bytes = n * c->es + 4; /* + nnz * rank * 4 once the count is known */
        break;
    }
    }

    for (i = 0; i < count; ++i) {
        if (p->t[i].TotalTensorSizeInBytes == 0 ||
            !(p->buf[i] = bench_alloc((size_t)p->t[i].TotalTensorSizeInBytes, threads,
                                      !filled_by_loop(c, (size_t)i, p->input_count)))) {
            release(p);
            return 0;
        }
        if ((size_t)i < p->input_count) {
            p->in[i].data = p->buf[i];
            p->in[i].size_in_bytes = p->t[i].TotalTensorSizeInBytes;
        } else {
            p->out[(size_t)i - p->input_count].data = p->buf[i];
            p->out[(size_t)i - p->input_count].size_in_bytes = p->t[i].TotalTensorSizeInBytes;
        }
    }

    /* contents */
    switch (c->op) {
    case OP_GATHER_ELEMENTS:
        fill_random(p->buf[0], p->t[0].TotalTensorSizeInBytes / c->es, c->es, 1, threads);
        if (!fill_axis_indices(c, p->buf[1], threads)) {
            release(p);
            return 0;
        }
        break;
    case OP_SCATTER:
        fill_random(p->buf[0], n, c->es, 1, threads);
        fill_random(p->buf[2], n, c->es, 2, threads);
        if (!fill_axis_indices(c, p->buf[1], threads)) {
            release(p);
            return 0;
        }
        break;
    case OP_GATHER_ND: {
        uint64_t rows = c->shape[c->rank - 2], tuples = n / c->slice;
        uint32_t rbits = log2u(rows), ib = c->ib;
        enum bench_pattern pattern = c->pattern;
        void *idx = p->buf[1];
        int64_t k;
        fill_random(p->buf[0], n, c->es, 1, threads);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads((int)threads)
#endif
        for (k = 0; k < (int64_t)tuples; ++k) {
            uint64_t h = hash64(BENCH_SEED + 3, (uint64_t)k), m = (uint64_t)k & (rows - 1), v;
            if (pattern == P_SORTED)
                v = m > 0 ? m - (h & 1) : 0; /* nondecreasing, gaps of 0, 1 or 2 */
            else
                v = top_bits(h, rbits);
            store(idx, (uint64_t)k, ib, v);
        }
        break;
    }
    case OP_NONZERO: {
        void *in = p->buf[0];
        uint32_t es = c->es;
        double density = c->density;
        int64_t k;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads((int)threads)
#endif
        for (k = 0; k < (int64_t)n; ++k) {
            uint64_t h = hash64(BENCH_SEED + 9, (uint64_t)k), v = 0;
            if ((double)(h >> 11) * (1.0 / 9007199254740992.0) < density)
                v = es == 4   ? 0x3F800000u | (h & 0x7FFFFF) /* [1, 2) */
                    : es == 2 ? 0x3C00u | (h & 0x3FF)
                              : 1 + (h & 0x7F);
            store(in, (uint64_t)k, es, v);
        }
        break;
    }
    }
    return 1;
}

/* ---- measuring ----------------------------------------------------------------- */

/* One kernel's timing of a case. */
typedef struct timing {
    double median_ms, min_ms, gbps, ratio;
    uint32_t calls; /* per timed run */
} timing;

/* A case at one thread count: the fast kernels, the reference kernels and the
   copy; speedup = the reference's median time / the fast kernels'. */
typedef struct result {
    const bench_case *c;
    uint32_t threads;
    timing fast, ref;
    double copy_gbps, speedup;
    double index_read_gbps;      /* the indices read alone; 0: the case has none (NonZero) */
    double case_sized_copy_gbps; /* a copy moving the case's logical bytes */
    uint64_t bytes, copy_bytes, nnz;
    uint32_t copy_calls, reps;
} result;

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median_of(double *v, uint32_t n)
{
    qsort(v, n, sizeof *v, compare_doubles);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Calls that make one timed run last at least 2 ms, given one call's time. */
static uint32_t calls_for(double one_call)
{
    double want = 2e-3 / (one_call > 1e-7 ? one_call : 1e-7);
    return want <= 1 ? 1 : want >= 1000 ? 1000 : (uint32_t)ceil(want);
}

/* The copy's buffers for one size class and thread count, kept across
   cases; and those of the case-sized copy, apart from them, so that the copy
   run before it leaves none of its bytes in the cache. */
typedef struct copy_buffers {
    void *src, *dst;
    size_t bytes;
    uint32_t threads, size_log2;
    void *sized_src, *sized_dst;
    size_t sized_capacity;
} copy_buffers;

static void copy_release(copy_buffers *b)
{
    free_aligned(b->src), free_aligned(b->dst);
    free_aligned(b->sized_src), free_aligned(b->sized_dst);
    memset(b, 0, sizeof *b);
}

/* Buffers for the copy of the size class and for a case-sized copy of
   sized_bytes. */
static int copy_prepare(copy_buffers *b, uint32_t size_log2, uint32_t threads, size_t sized_bytes)
{
    if (!b->src || b->size_log2 != size_log2 || b->threads != threads) {
        copy_release(b);
        b->bytes = (size_t)4 << size_log2;
        b->src = bench_alloc(b->bytes, threads, 0);
        b->dst = bench_alloc(b->bytes, threads, 1);
        b->threads = threads;
        b->size_log2 = size_log2;
        if (!b->src || !b->dst) {
            copy_release(b);
            return 0;
        }
        fill_random(b->src, b->bytes / 8, 8, 4, threads);
    }
    if (b->sized_src && b->sized_capacity >= sized_bytes)
        return 1;
    free_aligned(b->sized_src), free_aligned(b->sized_dst);
    b->sized_capacity = sized_bytes;
    b->sized_src = bench_alloc(sized_bytes, threads, 0);
    b->sized_dst = bench_alloc(sized_bytes, threads, 1);
    if (!b->sized_src || !b->sized_dst) {
        copy_release(b);
        return 0;
    }
    fill_random(b->sized_src, (sized_bytes + 7) / 8, 8, 5, threads);
    return 1;
}

/* The unmeasured run of one set of kernels, and the number of calls that make
   a timed run last 2 ms: the case's status must be DMLREF_OK. */
static int first_run(const bench_case *c, prepared *p, const dmlref_execute_options *options,
                     uint32_t *calls)
{
    dmlref_error err;
    dmlref_status status;
    double t0 = clock_seconds(), t1;
    uint32_t k;
    status = dmlref_execute_with_options(&p->op, (dmlref_feature_level)0, options, p->in,
                                         p->input_count, p->out, p->output_count, &err);
    t1 = clock_seconds();
    if (status != DMLREF_OK) {
        fprintf(stderr, "dmlref: bench: %s: %s kernels: %s: %s\n", c->name,
                options->kernels == DMLREF_KERNELS_FAST ? "the fast" : "the reference",
                dmlref_status_name(status), err.message);
        return 0;
    }
    if (t1 - t0 < 2e-3) /* short: the fastest of a few more calls sets the repeat count */
        for (k = 0; k < 3; ++k) {
            double t2 = clock_seconds();
            dmlref_execute_with_options(&p->op, (dmlref_feature_level)0, options, p->in,
                                        p->input_count, p->out, p->output_count, &err);
            if (clock_seconds() - t2 < t1 - t0)
                t1 = t0 + (clock_seconds() - t2);
        }
    *calls = calls_for(t1 - t0);
    return 1;
}

/* One timed run: `calls` calls, the time per call in seconds (0 on a failure). */
static double timed_run(const bench_case *c, prepared *p, const dmlref_execute_options *options,
                        uint32_t calls)
{
    dmlref_error err;
    dmlref_status status = DMLREF_OK;
    double t0 = clock_seconds();
    uint32_t k;
    for (k = 0; k < calls; ++k)
        status = dmlref_execute_with_options(&p->op, (dmlref_feature_level)0, options, p->in,
                                             p->input_count, p->out, p->output_count, &err);
    t0 = (clock_seconds() - t0) / calls;
    if (status != DMLREF_OK) {
        fprintf(stderr, "dmlref: bench: %s: %s\n", c->name, err.message);
        return 0;
    }
    return t0;
}

static void finish_timing(timing *t, double *times, uint32_t reps, uint64_t bytes, double copy_gbps)
{
    t->median_ms = 1e3 * median_of(times, reps); /* sorts: times[0] is the minimum */
    t->min_ms = 1e3 * times[0];
    t->gbps = (double)bytes / (t->median_ms * 1e6);
    t->ratio = t->gbps / copy_gbps;
}

static int run_case(const bench_case *c, uint32_t threads, uint32_t reps, dmlref_oob_policy policy,
                    int with_reference, copy_buffers *cb, result *r)
{
    prepared p;
    dmlref_execute_options fast, ref;
    size_t copy_bytes, sized_bytes;
    void *src, *dst;
    double *fast_times, *ref_times, *copies, *index_reads, *sized_copies, t0, t1;
    uint32_t i, k, fast_nnz = 0, sized_calls;

    if (!prepare(c, threads, &p)) {
        fprintf(stderr, "dmlref: bench: %s: out of memory\n", c->name);
        return 0;
    }
    fast_times = malloc(6 * (size_t)reps * sizeof *fast_times);
    if (!fast_times) {
        fprintf(stderr, "dmlref: bench: %s: out of memory\n", c->name);
        release(&p);
        return 0;
    }
    ref_times = fast_times + reps;
    copies = ref_times + reps; /* 2 * reps of them */
    index_reads = copies + 2 * reps;
    sized_copies = index_reads + reps;

    memset(&fast, 0, sizeof fast);
    fast.oob_policy = policy;
    fast.num_threads = threads;
    fast.kernels = DMLREF_KERNELS_FAST;
    ref = fast;
    ref.kernels = DMLREF_KERNELS_REFERENCE;

    memset(r, 0, sizeof *r);
    r->c = c;
    r->threads = threads;
    r->reps = reps;
    /* the unmeasured runs: both sets of kernels accept the case (and NonZero's
       count, which sets its logical bytes, is the same) */
    if (!first_run(c, &p, &fast, &r->fast.calls))
        goto failed;
    if (c->op == OP_NONZERO)
        fast_nnz = *(const uint32_t *)p.buf[1];
    if (with_reference && !first_run(c, &p, &ref, &r->ref.calls))
        goto failed;
    if (c->op == OP_NONZERO) {
        r->nnz = with_reference ? *(const uint32_t *)p.buf[1] : fast_nnz;
        if (r->nnz != fast_nnz) {
            fprintf(stderr,
                    "dmlref: bench: %s: the fast kernels count %u nonzero elements, the "
                    "reference kernels %llu\n",
                    c->name, fast_nnz, (unsigned long long)r->nnz);
            goto failed;
        }
        p.bytes += r->nnz * c->rank * 4;
    }
    r->bytes = p.bytes;
    sized_bytes = (size_t)(r->bytes / 2); /* read once and written once: the case's bytes */
    if (!copy_prepare(cb, c->size_log2, threads, sized_bytes)) {
        fprintf(stderr, "dmlref: bench: %s: out of memory\n", c->name);
        goto failed;
    }
    src = cb->src, dst = cb->dst, copy_bytes = cb->bytes;
    r->copy_bytes = copy_bytes;
    t1 = 1e9;
    for (k = 0; k < 3; ++k) {
        t0 = clock_seconds();
        parallel_copy(dst, src, copy_bytes, threads);
        t0 = clock_seconds() - t0;
        t1 = t0 < t1 ? t0 : t1;
        if (t1 >= 2e-3)
            break;
    }
    r->copy_calls = calls_for(t1);
    t0 = clock_seconds();
    parallel_copy(cb->sized_dst, cb->sized_src, sized_bytes, threads);
    sized_calls = calls_for(clock_seconds() - t0);

    /* copy, indices read, copy, case-sized copy, copy, fast, copy, reference */
    for (i = 0; i < reps; ++i) {
        int side;
        if (c->op != OP_NONZERO) {
            for (k = 0; k < r->copy_calls; ++k)
                parallel_copy(dst, src, copy_bytes, threads);
            t0 = clock_seconds();
            parallel_read(p.buf[1], (size_t)p.t[1].TotalTensorSizeInBytes, threads);
            index_reads[i] = clock_seconds() - t0;
        }
        for (k = 0; k < r->copy_calls; ++k)
            parallel_copy(dst, src, copy_bytes, threads);
        t0 = clock_seconds();
        for (k = 0; k < sized_calls; ++k)
            parallel_copy(cb->sized_dst, cb->sized_src, sized_bytes, threads);
        sized_copies[i] = (clock_seconds() - t0) / sized_calls;
        for (side = 0; side < 1 + with_reference; ++side) {
            t0 = clock_seconds();
            for (k = 0; k < r->copy_calls; ++k)
                parallel_copy(dst, src, copy_bytes, threads);
            copies[(1 + (uint32_t)with_reference) * i + (uint32_t)side] =
                (clock_seconds() - t0) / r->copy_calls;
            if (side == 0)
                fast_times[i] = timed_run(c, &p, &fast, r->fast.calls);
            else
                ref_times[i] = timed_run(c, &p, &ref, r->ref.calls);
            if ((side == 0 ? fast_times[i] : ref_times[i]) <= 0)
                goto failed;
        }
    }
    r->copy_gbps =
        2.0 * (double)copy_bytes / (median_of(copies, (1 + (uint32_t)with_reference) * reps) * 1e9);
    finish_timing(&r->fast, fast_times, reps, r->bytes, r->copy_gbps);
    if (c->op != OP_NONZERO)
        r->index_read_gbps =
            (double)p.t[1].TotalTensorSizeInBytes / (median_of(index_reads, reps) * 1e9);
    r->case_sized_copy_gbps = 2.0 * (double)sized_bytes / (median_of(sized_copies, reps) * 1e9);
    if (with_reference) {
        finish_timing(&r->ref, ref_times, reps, r->bytes, r->copy_gbps);
        r->speedup = r->ref.median_ms / r->fast.median_ms;
    }
    free(fast_times), release(&p);
    return 1;

failed:
    free(fast_times), release(&p);
    exit(EXIT_BAD_INPUT);
}

/* ---- reports --------------------------------------------------------------------- */

static void shape_text(const bench_case *c, char *text, size_t size)
{
    uint32_t i;
    size_t used = 0;
    for (i = 0; i < c->rank && used < size; ++i)
        used += (size_t)snprintf(text + used, size - used, "%s%u", i ? "," : "", c->shape[i]);
}

static const char *compiler_text(void)
{
#if defined(__clang__)
    return "clang " __clang_version__;
#elif defined(__GNUC__)
    return "gcc " __VERSION__;
#else
    return "unknown";
#endif
}

/* The processor's name, as a JSON string's contents: cut at a quote or a
   backslash. */
static void cpu_model(char *text, size_t size)
{
    processor_model(text, size);
    text[strcspn(text, "\"\\")] = '\0';
}

static void write_json(FILE *f, const result *r, size_t count, const uint32_t *threads,
                       size_t thread_count_, uint32_t reps, dmlref_oob_policy policy)
{
    char cpu[256], shape[128];
    size_t i;
    cpu_model(cpu, sizeof cpu);
    fprintf(f, "{\n  \"machine\": {\"cpus\": %ld, \"cpu_model\": \"%s\", \"threads\": [",
            processor_count(), cpu);
    for (i = 0; i < thread_count_; ++i)
        fprintf(f, "%s%u", i ? ", " : "", threads[i]);
    fprintf(f,
            "], \"compiler\": \"%s\", \"openmp\": %s, \"dmlref_version\": \"%s\", "
            "\"reps\": %u, \"oob\": \"%s\"},\n  \"cases\": [",
            compiler_text(),
#ifdef _OPENMP
            "true",
#else
            "false",
#endif
            dmlref_version_string(), reps, policy == DMLREF_OOB_CLAMP ? "clamp" : "error");
    /* median_ms, min_ms, gbps, ratio and calls_per_rep: the fast kernels;
       reference_*: the reference kernels; speedup: reference time / fast time */
    for (i = 0; i < count; ++i) {
        const bench_case *c = r[i].c;
        shape_text(c, shape, sizeof shape);
        fprintf(f,
                "%s\n    {\"name\": \"%s\", \"op\": \"%s\", \"pattern\": \"%s\", "
                "\"layout\": \"%s\", \"element_size\": %u, \"index_bytes\": %u, "
                "\"elements\": %llu, \"threads\": %u, \"median_ms\": %.6f, \"min_ms\": %.6f, "
                "\"gbps\": %.4f, \"copy_gbps\": %.4f, \"ratio\": %.4f, ",
                i ? "," : "", c->name, k_op_names[c->op], k_pattern_names[c->pattern],
                k_layout_names[c->layout], c->es, c->ib,
                (unsigned long long)elements_of(c->rank, c->shape), r[i].threads,
                r[i].fast.median_ms, r[i].fast.min_ms, r[i].fast.gbps, r[i].copy_gbps,
                r[i].fast.ratio);
        if (r[i].index_read_gbps > 0)
            fprintf(f, "\"index_read_gbps\": %.4f, ", r[i].index_read_gbps);
        else /* NonZero has no indices */
            fputs("\"index_read_gbps\": null, ", f);
        fprintf(f, "\"case_sized_copy_gbps\": %.4f, ", r[i].case_sized_copy_gbps);
        if (r[i].ref.calls)
            fprintf(f,
                    "\"reference_median_ms\": %.6f, \"reference_min_ms\": %.6f, "
                    "\"reference_gbps\": %.4f, \"reference_ratio\": %.4f, \"speedup\": %.4f, ",
                    r[i].ref.median_ms, r[i].ref.min_ms, r[i].ref.gbps, r[i].ref.ratio,
                    r[i].speedup);
        else /* bench --kernels fast */
            fprintf(f, "\"reference_median_ms\": null, \"reference_min_ms\": null, "
                       "\"reference_gbps\": null, \"reference_ratio\": null, \"speedup\": null, ");
        fprintf(f,
                "\"bytes\": %llu, "
                "\"copy_bytes\": %llu, \"size_log2\": %u, \"shape\": [%s], \"axis\": %u, "
                "\"slice\": %u, \"batch\": %u, \"density\": %g, \"nnz\": %llu, "
                "\"calls_per_rep\": %u, \"reference_calls_per_rep\": %u, "
                "\"copy_calls_per_rep\": %u, \"reps\": %u}",
                (unsigned long long)r[i].bytes, (unsigned long long)r[i].copy_bytes, c->size_log2,
                shape, c->axis, c->slice, c->batch, c->density, (unsigned long long)r[i].nnz,
                r[i].fast.calls, r[i].ref.calls, r[i].copy_calls, r[i].reps);
    }
    fprintf(f, "\n  ]\n}\n");
}

static void write_csv(FILE *f, const result *r, size_t count)
{
    char shape[128];
    size_t i;
    fprintf(f, "name,op,pattern,layout,element_size,index_bytes,elements,threads,median_ms,"
               "min_ms,gbps,copy_gbps,ratio,reference_median_ms,reference_min_ms,reference_gbps,"
               "reference_ratio,speedup,bytes,copy_bytes,size_log2,shape,axis,slice,batch,"
               "density,nnz,calls_per_rep,reference_calls_per_rep,copy_calls_per_rep,reps,"
               "index_read_gbps,case_sized_copy_gbps\n");
    for (i = 0; i < count; ++i) {
        const bench_case *c = r[i].c;
        shape_text(c, shape, sizeof shape);
        fprintf(f, "%s,%s,%s,%s,%u,%u,%llu,%u,%.6f,%.6f,%.4f,%.4f,%.4f,", c->name,
                k_op_names[c->op], k_pattern_names[c->pattern], k_layout_names[c->layout], c->es,
                c->ib, (unsigned long long)elements_of(c->rank, c->shape), r[i].threads,
                r[i].fast.median_ms, r[i].fast.min_ms, r[i].fast.gbps, r[i].copy_gbps,
                r[i].fast.ratio);
        if (r[i].ref.calls)
            fprintf(f, "%.6f,%.6f,%.4f,%.4f,%.4f,", r[i].ref.median_ms, r[i].ref.min_ms,
                    r[i].ref.gbps, r[i].ref.ratio, r[i].speedup);
        else /* bench --kernels fast: empty fields */
            fputs(",,,,,", f);
        fprintf(f, "%llu,%llu,%u,\"%s\",%u,%u,%u,%g,%llu,%u,%u,%u,%u,",
                (unsigned long long)r[i].bytes, (unsigned long long)r[i].copy_bytes, c->size_log2,
                shape, c->axis, c->slice, c->batch, c->density, (unsigned long long)r[i].nnz,
                r[i].fast.calls, r[i].ref.calls, r[i].copy_calls, r[i].reps);
        if (r[i].index_read_gbps > 0) /* empty for NonZero, which has no indices */
            fprintf(f, "%.4f", r[i].index_read_gbps);
        fprintf(f, ",%.4f\n", r[i].case_sized_copy_gbps);
    }
}

/* Whether a report can be written at `path` (none: 1), asked before the
   timing so that a long run does not end in a folder that is not there;
   0, having said why. */
static int output_can_be_written(const char *option, const char *path)
{
    file_facts facts;
    char *folder;
    size_t end, root;
    int reason;
    if (!path)
        return 1;
    if (path_facts(path, &facts) == 0) {
        reason = facts.kind == FILE_KIND_FOLDER ? EISDIR : 0;
    } else {
        root = path_root_length(path);
        for (end = strlen(path); end > root && !is_path_separator(path[end - 1]);)
            --end;
        if (!(folder = malloc(end + 2)))
            return 0;
        memcpy(folder, path, end);
        strcpy(folder + end, end ? "" : ".");
        reason = path_facts(folder, &facts);
        if (!reason && facts.kind != FILE_KIND_FOLDER)
            reason = ENOTDIR;
        free(folder);
    }
    if (reason)
        fprintf(stderr, "dmlref: bench: %s %s: cannot write: %s\n", option, path, strerror(reason));
    return !reason;
}

/* The reports, written whole or not at all once the timing is done
   (command_base.h's write_file_with), so that a run that fails or is stopped
   leaves the previous files as they were. */
typedef struct report {
    const result *results;
    size_t count, thread_count;
    const uint32_t *threads;
    uint32_t reps;
    dmlref_oob_policy policy;
} report;

static int write_json_report(FILE *f, const void *context)
{
    const report *r = context;
    write_json(f, r->results, r->count, r->threads, r->thread_count, r->reps, r->policy);
    return !ferror(f);
}

static int write_csv_report(FILE *f, const void *context)
{
    const report *r = context;
    write_csv(f, r->results, r->count);
    return !ferror(f);
}

/* A gnuplot single-quoted string: quotes doubled. */
static void put_gnuplot_string(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; ++s) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

/* The fast kernels' GB/s on the cases of the largest size, one bar series per
   thread count, and each thread count's copy rate as a line. */
static int write_plot(const char *png, const result *r, size_t count, const uint32_t *threads,
                      size_t nthreads, uint32_t size_log2)
{
    char folder[4000], data[4096], script[4096], program[] = "gnuplot", *arguments[3];
    FILE *fd = NULL, *fs = NULL;
    size_t i, j, rows = 0;
    int reason = temporary_files_folder(folder, sizeof folder), status;

    if (!reason) {
        snprintf(data, sizeof data, "%s/dmlref-bench-data-XXXXXX", folder);
        snprintf(script, sizeof script, "%s/dmlref-bench-plot-XXXXXX", folder);
        if ((reason = make_temporary_file(data, &fd)) == 0 &&
            (reason = make_temporary_file(script, &fs)) != 0) {
            fclose(fd);
            remove_path(data);
        }
    }
    if (reason) {
        fprintf(stderr, "dmlref: bench: cannot write temporary files for the plot: %s\n",
                strerror(reason));
        return 0;
    }
    /* rows: name, then GB/s and copy GB/s per thread count ("?" when missing) */
    for (i = 0; i < count; ++i) {
        if (r[i].c->size_log2 != size_log2 || (i > 0 && r[i - 1].c == r[i].c))
            continue;
        /* the label: the name without its size, which the title gives */
        fprintf(fd, "%.*s", (int)(strrchr(r[i].c->name, '/') - r[i].c->name), r[i].c->name);
        for (j = 0; j < nthreads; ++j) {
            size_t k;
            for (k = i; k < count && r[k].c == r[i].c && r[k].threads != threads[j]; ++k)
                ;
            if (k < count && r[k].c == r[i].c)
                fprintf(fd, "\t%.4f\t%.4f", r[k].fast.gbps, r[k].copy_gbps);
            else
                fprintf(fd, "\t?\t?");
        }
        fputc('\n', fd);
        ++rows;
    }
    fclose(fd);
    fprintf(fs,
            "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
            "    set terminal pngcairo size %lu,1000 font ',9'\n"
            "} else {\n"
            "    set terminal png size %lu,1000\n"
            "}\n"
            "set output ",
            (unsigned long)(400 + 16 * rows), (unsigned long)(400 + 16 * rows));
    put_gnuplot_string(fs, png);
    fprintf(fs,
            "\nset datafile separator '\\t'\nset datafile missing '?'\n"
            "set title 'dmlref bench: the fast kernels, effective throughput (logical bytes), "
            "2^%u elements' noenhanced\n"
            "set ylabel 'GB/s'\nset yrange [0:*]\nset grid ytics\n"
            "set key outside top center horizontal\n"
            "set xtics rotate by 90 right noenhanced\nset bmargin 27\n"
            "set style data histogram\nset style histogram clustered gap 1\n"
            "set style fill solid 0.8 border -1\nset boxwidth 0.9\nplot ",
            size_log2);
    put_gnuplot_string(fs, data);
    for (j = 0; j < nthreads; ++j)
        fprintf(fs, "%s using %lu%s title '%u thread%s'", j ? ", ''" : "",
                (unsigned long)(2 + 2 * j), j ? "" : ":xtic(1)", threads[j],
                threads[j] == 1 ? "" : "s");
    for (j = 0; j < nthreads; ++j)
        fprintf(fs, ", '' using 0:%lu with lines lw 2 dt %lu title 'copy, %u thread%s'",
                (unsigned long)(3 + 2 * j), (unsigned long)(2 + j), threads[j],
                threads[j] == 1 ? "" : "s");
    fputc('\n', fs);
    fclose(fs);

    arguments[0] = program, arguments[1] = script, arguments[2] = NULL;
    reason = run_program(arguments, &status);
    remove_path(data);
    remove_path(script);
    if (reason || status != 0) {
        fprintf(stderr, "dmlref: bench: gnuplot failed to draw %s\n", png);
        return 0;
    }
    return 1;
}

/* ---- the command ------------------------------------------------------------------- */

#define MAX_THREAD_LIST 32

static int parse_threads(const char *text, uint32_t *list, size_t *count)
{
    *count = 0;
    while (*text) {
        char *end;
        unsigned long v;
        if (*text < '0' || *text > '9' || *count == MAX_THREAD_LIST)
            return 0;
        errno = 0;
        v = strtoul(text, &end, 10);
        if (errno || v < 1 || v > DMLREF_MAX_THREADS || (*end && *end != ','))
            return 0;
        list[(*count)++] = (uint32_t)v;
        text = *end ? end + 1 : end;
        if (*end && !*text)
            return 0;
    }
    return *count > 0;
}

static int parse_number(const char *text, unsigned long lo, unsigned long hi, unsigned long *out)
{
    char *end;
    unsigned long v;
    if (*text < '0' || *text > '9')
        return 0;
    errno = 0;
    v = strtoul(text, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

static int is_sequential(const bench_case *c)
{
    return (c->op == OP_GATHER_ELEMENTS || c->op == OP_SCATTER) && c->pattern == P_SEQ &&
           c->layout == L_PACKED;
}

/* What bench's options ask for. */
typedef struct bench_options {
    const char *filter, *json, *csv, *plot;
    uint32_t threads[MAX_THREAD_LIST];
    size_t nthreads;
    unsigned long size, reps;
    int quick, list_only, fast_only;
    dmlref_oob_policy policy;
} bench_options;

enum {
    OPT_QUICK = 256,
    OPT_LIST,
    OPT_THREADS,
    OPT_SIZE,
    OPT_REPS,
    OPT_OOB,
    OPT_FILTER,
    OPT_JSON,
    OPT_CSV,
    OPT_PLOT,
    OPT_KERNELS
};

static const struct option k_bench_options[] = {
    {"quick", no_argument, NULL, OPT_QUICK},           {"list", no_argument, NULL, OPT_LIST},
    {"threads", required_argument, NULL, OPT_THREADS}, {"size", required_argument, NULL, OPT_SIZE},
    {"reps", required_argument, NULL, OPT_REPS},       {"oob", required_argument, NULL, OPT_OOB},
    {"filter", required_argument, NULL, OPT_FILTER},   {"json", required_argument, NULL, OPT_JSON},
    {"csv", required_argument, NULL, OPT_CSV},         {"plot", required_argument, NULL, OPT_PLOT},
    {"kernels", required_argument, NULL, OPT_KERNELS}, {NULL, 0, NULL, 0}};

static int take_bench_option(void *context, int option, const char *value)
{
    bench_options *o = context;
    switch (option) {
    case OPT_QUICK:
        o->quick = 1;
        break;
    case OPT_LIST:
        o->list_only = 1;
        break;
    case OPT_THREADS:
        if (!parse_threads(value, o->threads, &o->nthreads))
            return usage_error("bench: --threads takes a list of numbers from 1 to 1024, "
                               "such as 1,2");
        break;
    case OPT_SIZE:
        if (!parse_number(value, 12, 28, &o->size))
            return usage_error("bench: --size takes a log2 element count from 12 to 28");
        break;
    case OPT_REPS:
        if (!parse_number(value, 1, 1000, &o->reps))
            return usage_error("bench: --reps takes a number from 1 to 1000");
        break;
    case OPT_OOB:
        if (strcmp(value, "error") != 0 && strcmp(value, "clamp") != 0)
            return usage_error("bench: --oob takes error or clamp");
        o->policy = strcmp(value, "clamp") == 0 ? DMLREF_OOB_CLAMP : DMLREF_OOB_ERROR;
        break;
    case OPT_FILTER:
        o->filter = value;
        break;
    case OPT_JSON:
        o->json = value;
        break;
    case OPT_CSV:
        o->csv = value;
        break;
    case OPT_KERNELS:
        if (strcmp(value, "fast") != 0 && strcmp(value, "both") != 0)
            return usage_error("bench: --kernels takes fast or both");
        o->fast_only = strcmp(value, "fast") == 0;
        break;
    default: /* OPT_PLOT */
        o->plot = value;
        break;
    }
    return EXIT_OK;
}

int command_bench(int argc, char **argv)
{
    bench_options o;
    path_list operands = {NULL, 0, 0};
    const char *filter, *json, *csv, *plot;
    uint32_t *threads;
    size_t nthreads, i, j, nresults = 0;
    unsigned long size, reps;
    int quick, list_only, with_reference, code;
    dmlref_oob_policy policy;
    case_list cases = {NULL, 0, 0}, chosen = {NULL, 0, 0};
    result *results;
    copy_buffers copies[MAX_THREAD_LIST];
    uint32_t largest = 0;
    double worst = -1;

    memset(&o, 0, sizeof o);
    o.policy = DMLREF_OOB_ERROR;
    code =
        parse_arguments("bench", argc, argv, "", k_bench_options, take_bench_option, &o, &operands);
    if (code == EXIT_OK && operands.count)
        code = usage_error("bench takes options only");
    list_free(&operands);
    if (code != EXIT_OK)
        return code;
    filter = o.filter, json = o.json, csv = o.csv, plot = o.plot;
    threads = o.threads, nthreads = o.nthreads;
    size = o.size, reps = o.reps, quick = o.quick, list_only = o.list_only, policy = o.policy;
    with_reference = !o.fast_only;

    /* the matrix: the large size and the in-cache size, or --size's class */
    if (size) {
        if (!build_matrix(&cases, (uint32_t)size))
            goto out_of_memory;
    } else if (!build_matrix(&cases, 24) || !build_matrix(&cases, 16))
        goto out_of_memory;
    for (i = 0; i < cases.count; ++i) {
        const bench_case *c = &cases.items[i];
        unsigned want = !quick               ? 1u
                        : size               ? (QUICK_LARGE | QUICK_SMALL) & c->quick
                        : c->size_log2 == 24 ? QUICK_LARGE & c->quick
                                             : QUICK_SMALL & c->quick;
        if (want && (!filter || strstr(c->name, filter)))
            if (!add_case(&chosen, *c))
                goto out_of_memory;
    }
    free(cases.items);
    cases.items = NULL;
    if (list_only) {
        for (i = 0; i < chosen.count; ++i)
            printf("%s\n", chosen.items[i].name);
        free(chosen.items);
        return EXIT_OK;
    }

    if (!nthreads) {
#ifdef _OPENMP
        uint32_t max = (uint32_t)omp_get_max_threads(), t;
        for (t = 1; t < max && nthreads < MAX_THREAD_LIST - 1; t *= 2)
            threads[nthreads++] = t;
        threads[nthreads++] = max;
#else
        threads[nthreads++] = 1;
#endif
    }
    if (!reps)
        reps = quick ? 5 : 11;

    /* everything that can fail before the timing fails now */
    if (plot && !program_on_path("gnuplot")) {
        fprintf(stderr, "dmlref: bench: --plot needs gnuplot, which is not on PATH "
                        "(apt-get install gnuplot-nox)\n");
        free(chosen.items);
        return EXIT_BAD_INPUT;
    }
    if (!output_can_be_written("--json", json) || !output_can_be_written("--csv", csv)) {
        free(chosen.items);
        return EXIT_BAD_INPUT;
    }
    results = calloc(chosen.count * nthreads + 1, sizeof *results);
    if (!results)
        goto out_of_memory;
    memset(copies, 0, sizeof copies);

    printf("%-56s %7s %9s %9s %10s %9s %8s %9s %9s %7s\n", "case", "threads", "fast_ms",
           "fast_GB/s", "fast_ratio", "ref_ms", "ref_GB/s", "ref_ratio", "copy_GB/s", "speedup");
    fflush(stdout);
    for (i = 0; i < chosen.count; ++i) {
        if (chosen.items[i].size_log2 > largest)
            largest = chosen.items[i].size_log2;
        for (j = 0; j < nthreads; ++j) {
            result *r = &results[nresults];
            if (!run_case(&chosen.items[i], threads[j], (uint32_t)reps, policy, with_reference,
                          &copies[j], r)) {
                code = EXIT_BAD_INPUT;
                goto done;
            }
            ++nresults;
            if (with_reference)
                printf("%-56s %7u %9.3f %9.2f %10.2f %9.3f %8.2f %9.2f %9.2f %7.2f\n", r->c->name,
                       r->threads, r->fast.median_ms, r->fast.gbps, r->fast.ratio, r->ref.median_ms,
                       r->ref.gbps, r->ref.ratio, r->copy_gbps, r->speedup);
            else
                printf("%-56s %7u %9.3f %9.2f %10.2f %9s %8s %9s %9.2f %7s\n", r->c->name,
                       r->threads, r->fast.median_ms, r->fast.gbps, r->fast.ratio, "-", "-", "-",
                       r->copy_gbps, "-");
            fflush(stdout);
        }
    }

done:
    for (j = 0; j < nthreads; ++j)
        copy_release(&copies[j]);
    for (i = 0; i < nresults; ++i)
        if (results[i].c->size_log2 == largest && is_sequential(results[i].c) &&
            (worst < 0 || results[i].fast.ratio < worst))
            worst = results[i].fast.ratio;
    if (json || csv) {
        report written = {results, nresults, nthreads, threads, (uint32_t)reps, policy};
        if ((json && !write_file_with(json, write_json_report, &written)) ||
            (csv && !write_file_with(csv, write_csv_report, &written)))
            code = EXIT_BAD_INPUT;
    }
    if (!chosen.count)
        fprintf(stderr, "dmlref: bench: no case matches --filter\n");
    else if (plot && nresults && !write_plot(plot, results, nresults, threads, nthreads, largest))
        code = EXIT_BAD_INPUT;
    if (worst < 0)
        printf("worst ratio to copy (sequential cases): n/a\n");
    else
        printf("worst ratio to copy (sequential cases): %.2f\n", worst);
    free(results);
    free(chosen.items);
    return code;

out_of_memory:
    fprintf(stderr, "dmlref: bench: out of memory\n");
    free(cases.items);
    free(chosen.items);
    return EXIT_BAD_INPUT;
}
