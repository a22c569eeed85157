/*
 * bench.h - what the files of dmlref bench share: the case matrix
 * (bench_cases.c), the buffers and passes over memory of its timing
 * (bench_buffers.c), and what the timing (bench.c) hands its reports
 * (bench_report.c): each case's figures at one thread count, and the run they
 * belong to.  The reports know the cases by these facts alone, not by the
 * matrix that made them.
 */
#ifndef DMLREF_CLI_BENCH_H
#define DMLREF_CLI_BENCH_H

#include "dmlref.h"
#include "suite/generate.h"

#include <stddef.h>
#include <stdint.h>

/* ---- buffers (bench_buffers.c) ---------------------------------------------- */

/* `bytes` rounded up to whole 4 KiB pages, 2 MiB aligned, advised to use
   large pages (freed with free_aligned), or NULL; when `touch`, first-touched
   (zeroed) by T threads with a static split.  A buffer filled by a parallel
   static loop right after is left untouched: the fill is its first touch. */
void *bench_alloc(size_t bytes, uint32_t threads, int touch);

/* A memcpy of n bytes, each of T threads copying its own part. */
void parallel_copy(void *dst, const void *src, size_t n, uint32_t threads);

/* Reads n bytes (down to a multiple of 32) with T threads and nothing else,
   in a plain loop: what reading the indices costs.  The strict policy's own
   pass requests its lines ahead and reads faster than this at one thread on
   the machines of docs/performance.md, whose estimates take the faster of
   the two. */
void parallel_read(const void *src, size_t n, uint32_t threads);

/* ---- reports (bench_report.c) ------------------------------------------------ */

/* A case as the reports name it. */
typedef struct bench_case_facts {
    const char *name, *op, *pattern, *layout;
    uint32_t element_size, index_bytes; /* index_bytes 0: NonZero */
    uint32_t rank, shape[DMLREF_TENSOR_DIMENSION_COUNT_MAX];
    uint64_t elements;
    uint32_t size_log2, axis, slice, batch;
    double density;
} bench_case_facts;

/* One set of kernels' timing of a case. */
typedef struct bench_timing {
    double median_ms, min_ms, gbps, ratio;
    uint32_t calls; /* per timed run; 0: not timed (--kernels fast) */
} bench_timing;

/* A case at one thread count: the fast kernels, the reference kernels and the
   copy; speedup = the reference's median time / the fast kernels'. */
typedef struct bench_result {
    bench_case_facts c;
    uint32_t threads;
    bench_timing fast, ref;
    double copy_gbps, speedup;
    double index_read_gbps;      /* the indices read alone; 0: the case has none (NonZero) */
    double case_sized_copy_gbps; /* a copy moving the case's logical bytes */
    uint64_t bytes, copy_bytes, nnz;
    uint32_t copy_calls, reps;
} bench_result;

/* A whole run: its results in order and how it was asked for. */
typedef struct bench_run {
    const bench_result *results;
    size_t count, thread_count;
    const uint32_t *threads;
    uint32_t reps;
    dmlref_oob_policy policy;
} bench_run;

/* The table on standard output: its header, then a row per result as it
   comes, and the last line, the worst ratio to copy (negative: none). */
void bench_print_header(void);
void bench_print_row(const bench_result *r);
void bench_print_worst_ratio(double worst);

/* Whether the reports --json and --csv ask for (NULL: not asked) can be
   written, asked before the timing so that a long run does not end in a
   folder that is not there: 1, or 0 having said why. */
int bench_reports_can_be_written(const char *json, const char *csv);

/* The reports, written whole or not at all once the timing is done, so that
   a run that fails or is stopped leaves the previous files as they were:
   1, or 0 when one could not be written (having said why). */
int bench_write_reports(const char *json, const char *csv, const bench_run *run);

/* ---- the case matrix (bench_cases.c) ------------------------------------------------------- */

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

enum bench_layout { L_PACKED, L_TRANSPOSED_INPUT, L_BROADCAST_INPUT, L_STRIDED_OUTPUT };

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

typedef struct prepared {
    gen_case g; /* the case as the generator drew it */
    dmlref_tensor_desc t[GEN_TENSORS];
    void *buf[GEN_TENSORS];
    size_t input_count, output_count;
    gen_desc desc;
    dmlref_operator_desc op;
    dmlref_binding in[3], out[2];
    uint64_t bytes; /* logical bytes (bytes known after a run for nonzero) */
} prepared;

/* Appends c to l: 1, or 0 when out of memory. */
int bench_add_case(case_list *l, bench_case c);
/* Every case of the class of 2^n elements (12 <= n <= 28), appended to l. */
int bench_build_matrix(case_list *l, uint32_t n);
/* The case's tensors, allocated for T threads and filled by the generator. */
int bench_prepare(const bench_case *c, uint32_t threads, prepared *p);
void bench_release(prepared *p);
/* n elements of es bytes, hashed from stream s, written by T threads. */
void bench_fill_random(void *base, uint64_t n, uint32_t es, uint64_t s, uint32_t threads);
/* The facts the reports name case c by. */
void bench_describe(const bench_case *c, bench_case_facts *f);

#endif /* DMLREF_CLI_BENCH_H */
