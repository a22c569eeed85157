/*
 * ab_builds.c - two builds of libdmlref in one process, timed call by call.
 *
 * scripts/report/ab_builds.sh links this file with two copies of libdmlref.a whose
 * global symbols it renamed, before_... and after_..., so that both builds
 * run the same cases on the same buffers, one call of each in turn (the
 * first of the two alternating round by round).  A change of a few percent
 * is lost between two runs of a shared host; side by side, each round's
 * ratio sees the same moment of the machine.  Where each build's code lies
 * in the program can matter too, so the script links the program twice,
 * each build in either place, and reports the geometric mean of the two.
 *
 * Usage: ab_builds THREADS ROUNDS [FILTER [ROWS COLS]]
 * prints one line per case and policy: the two builds' median times and
 * the median of the rounds' ratios, after/before, with their range.
 */
#define _GNU_SOURCE /* madvise's MADV_HUGEPAGE */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "dmlref.h"

typedef dmlref_status execute_fn(const dmlref_operator_desc *, dmlref_feature_level,
                                 const dmlref_execute_options *, const dmlref_binding *, uint32_t,
                                 const dmlref_binding *, uint32_t, dmlref_error *);
execute_fn before_dmlref_execute_with_options, after_dmlref_execute_with_options;

enum { MAX_ROUNDS = 255, FLUSH_BYTES = 64 << 20 };

/* The cases of docs/performance.md's measurements of the kernels' loops:
   a matrix, the operator along one axis, FLOAT32 unless said, INT64
   indices. */
typedef enum { SEQUENTIAL, ALL_ZERO, REVERSED, RANDOM_IN_ROW, PERMUTED_ROWS } pattern;
static const struct ab_case {
    const char *name;
    int scatter;
    uint32_t axis, element_size;
    pattern indices;
    int strided_output; /* every other element of a buffer twice the size */
} cases[] = {
    {"SC axis1 dup f32", 1, 1, 4, ALL_ZERO, 0},
    {"SC axis1 seq f32", 1, 1, 4, SEQUENTIAL, 0},
    {"SC axis0 dup f32", 1, 0, 4, ALL_ZERO, 0},
    {"SC axis0 perm f32", 1, 0, 4, PERMUTED_ROWS, 0},
    {"GE axis1 seq f32", 0, 1, 4, SEQUENTIAL, 0},
    {"GE axis1 seq f32 strided-out", 0, 1, 4, SEQUENTIAL, 1},
    {"GE axis1 random-in-row f32", 0, 1, 4, RANDOM_IN_ROW, 0},
    {"GE axis1 seq u8", 0, 1, 1, SEQUENTIAL, 0},
    {"GE axis1 seq f64", 0, 1, 8, SEQUENTIAL, 0},
    {"GE axis1 reversed f32", 0, 1, 4, REVERSED, 0},
};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* n bytes, in huge pages where the kernel gives them, every page touched */
static unsigned char *buffer(size_t n)
{
    const size_t huge = (size_t)2 << 20;
    void *p = NULL;
    n = (n + huge - 1) / huge * huge;
    if (posix_memalign(&p, huge, n) != 0) {
        fprintf(stderr, "ab_builds: out of memory (%zu bytes)\n", n);
        exit(2);
    }
    madvise(p, n, MADV_HUGEPAGE);
    memset(p, 1, n);
    return p;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void fill_indices(int64_t *idx, const struct ab_case *c, uint32_t rows, uint32_t cols)
{
    uint64_t i, n = (uint64_t)rows * cols, random = 1;
    for (i = 0; i < n; ++i) {
        uint64_t col = i % cols, row = i / cols;
        random = random * 6364136223846793005u + 1442695040888963407u;
        switch (c->indices) {
        case SEQUENTIAL:
            idx[i] = (int64_t)(c->axis == 1 ? col : row);
            break;
        case ALL_ZERO:
            idx[i] = 0;
            break;
        case REVERSED:
            idx[i] = (int64_t)(cols - 1 - col);
            break;
        case RANDOM_IN_ROW:
            idx[i] = (int64_t)((random >> 33) % cols);
            break;
        case PERMUTED_ROWS:
            idx[i] = (int64_t)((row * 2654435761u) % rows);
            break;
        }
    }
}

int main(int argc, char **argv)
{
    const uint32_t threads = argc > 1 ? (uint32_t)atoi(argv[1]) : 1;
    const int rounds = argc > 2 ? atoi(argv[2]) : 11;
    const char *filter = argc > 3 ? argv[3] : "";
    const uint32_t rows = argc > 4 ? (uint32_t)atoi(argv[4]) : 4096;
    const uint32_t cols = argc > 5 ? (uint32_t)atoi(argv[5]) : 4096;
    const size_t n = (size_t)rows * cols;
    execute_fn *const build[2] = {before_dmlref_execute_with_options,
                                  after_dmlref_execute_with_options};
    unsigned char *in, *updates, *out, *flush_from, *flush_to;
    int64_t *idx;
    size_t k;

    if (argc < 3 || rounds < 1 || rounds > MAX_ROUNDS || threads < 1 || rows < 1 || cols < 1) {
        fprintf(stderr, "usage: ab_builds THREADS ROUNDS(1-%d) [FILTER [ROWS COLS]]\n", MAX_ROUNDS);
        return 2;
    }
    in = buffer(n * 8), updates = buffer(n * 8), out = buffer(n * 16);
    idx = (int64_t *)(void *)buffer(n * 8);
    flush_from = buffer(FLUSH_BYTES), flush_to = buffer(FLUSH_BYTES);

    for (k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        const struct ab_case *c = &cases[k];
        const size_t es = c->element_size;
        const dmlref_tensor_data_type type = es == 1   ? DMLREF_TENSOR_DATA_TYPE_UINT8
                                             : es == 4 ? DMLREF_TENSOR_DATA_TYPE_FLOAT32
                                                       : DMLREF_TENSOR_DATA_TYPE_FLOAT64;
        uint32_t sizes[2], strided[2];
        dmlref_tensor_desc data, indices, output;
        dmlref_scatter_elements_desc scatter;
        dmlref_gather_elements_desc gather;
        dmlref_operator_desc op;
        dmlref_binding inputs[3], outputs[1];
        int policy;

        if (!strstr(c->name, filter))
            continue;
        sizes[0] = rows, sizes[1] = cols;
        strided[0] = 2 * cols, strided[1] = 2;
        fill_indices(idx, c, rows, cols);
        data = (dmlref_tensor_desc){type, DMLREF_TENSOR_FLAG_NONE, 2, sizes, NULL, n * es, 0};
        indices = (dmlref_tensor_desc){
            DMLREF_TENSOR_DATA_TYPE_INT64, DMLREF_TENSOR_FLAG_NONE, 2, sizes, NULL, n * 8, 0};
        output = data;
        if (c->strided_output)
            output.Strides = strided, output.TotalTensorSizeInBytes = (2 * n - 1) * es;
        scatter = (dmlref_scatter_elements_desc){&data, &indices, &data, &output, c->axis};
        gather = (dmlref_gather_elements_desc){&data, &indices, &output, c->axis};
        op.Type = c->scatter ? DMLREF_OPERATOR_SCATTER_ELEMENTS : DMLREF_OPERATOR_GATHER_ELEMENTS;
        op.Desc = c->scatter ? (const void *)&scatter : (const void *)&gather;
        inputs[0] = (dmlref_binding){in, n * es};
        inputs[1] = (dmlref_binding){idx, n * 8};
        inputs[2] = (dmlref_binding){updates, n * es};
        outputs[0] = (dmlref_binding){out, output.TotalTensorSizeInBytes};

        for (policy = 0; policy < 2; ++policy) {
            dmlref_execute_options options;
            double times[2][MAX_ROUNDS], ratios[MAX_ROUNDS];
            int r, first, b;
            memset(&options, 0, sizeof options);
            options.oob_policy = policy ? DMLREF_OOB_CLAMP : DMLREF_OOB_ERROR;
            options.num_threads = threads;
            options.kernels = DMLREF_KERNELS_FAST;
            for (r = -1; r < rounds; ++r) /* round -1 warms up, untimed */
                for (first = 0; first < 2; ++first) {
                    dmlref_error err;
                    double t0;
                    b = (r & 1) ? 1 - first : first;
                    memcpy(flush_to, flush_from, FLUSH_BYTES); /* the caches hold no tensor */
                    t0 = now();
                    if (build[b](&op, DMLREF_FEATURE_LEVEL_5_0, &options, inputs,
                                 c->scatter ? 3 : 2, outputs, 1, &err) != DMLREF_OK) {
                        fprintf(stderr, "ab_builds: %s: %s\n", c->name, err.message);
                        return 1;
                    }
                    if (r >= 0)
                        times[b][r] = now() - t0;
                }
            for (r = 0; r < rounds; ++r)
                ratios[r] = times[1][r] / times[0][r];
            qsort(ratios, (size_t)rounds, sizeof ratios[0], compare_doubles);
            for (b = 0; b < 2; ++b)
                qsort(times[b], (size_t)rounds, sizeof times[b][0], compare_doubles);
            printf("%-30s %2uT %-5s before %7.2f ms after %7.2f ms  after/before %.3f "
                   "[%.3f-%.3f]\n",
                   c->name, threads, policy ? "clamp" : "error", times[0][rounds / 2] * 1e3,
                   times[1][rounds / 2] * 1e3, ratios[rounds / 2], ratios[0], ratios[rounds - 1]);
            fflush(stdout);
        }
    }
    return 0;
}
