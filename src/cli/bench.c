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
 *     then filled by the case generator (src/suite/generate.c) with data
 *     derived from a fixed seed (a counter-based hash, so any thread count
 *     fills the same bytes).
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
#include "cli/bench.h"
#include "cli/cli.h"
#include "platform/clock.h"
#include "platform/system.h"
#include "suite/generate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

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
        bench_fill_random(b->src, b->bytes / 8, 8, 4, threads);
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
    bench_fill_random(b->sized_src, (sized_bytes + 7) / 8, 8, 5, threads);
    return 1;
}

/* One case at one thread count while it is measured: its buffers, the two
   sets of kernels, the copies, and every rep's times in seconds. */
typedef struct measurement {
    const bench_case *c;
    prepared p;
    dmlref_execute_options fast, ref;
    uint32_t threads, reps, sides; /* sides: 2 with the reference kernels, else 1 */
    copy_buffers *cb;
    size_t sized_bytes;
    uint32_t sized_calls;
    /* copies: `sides` per rep, each before a timed run of the case */
    double *fast_times, *ref_times, *copies, *index_reads, *sized_copies;
} measurement;

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

/* The unmeasured runs: both sets of kernels accept the case, and NonZero's
   count, which sets its logical bytes, is the same. */
static int accept_case(measurement *m, bench_result *r)
{
    const bench_case *c = m->c;
    uint32_t fast_nnz = 0;
    if (!first_run(c, &m->p, &m->fast, &r->fast.calls))
        return 0;
    if (c->op == OP_NONZERO)
        fast_nnz = *(const uint32_t *)m->p.buf[1];
    if (m->sides == 2 && !first_run(c, &m->p, &m->ref, &r->ref.calls))
        return 0;
    if (c->op == OP_NONZERO) {
        r->nnz = m->sides == 2 ? *(const uint32_t *)m->p.buf[1] : fast_nnz;
        if (r->nnz != fast_nnz) {
            fprintf(stderr,
                    "dmlref: bench: %s: the fast kernels count %u nonzero elements, the "
                    "reference kernels %llu\n",
                    c->name, fast_nnz, (unsigned long long)r->nnz);
            return 0;
        }
        m->p.bytes += r->nnz * c->rank * 4;
    }
    r->bytes = m->p.bytes;
    return 1;
}

/* The copies' buffers, and how many calls make each copy's timed run last 2 ms. */
static int calibrate_copies(measurement *m, bench_result *r)
{
    copy_buffers *cb = m->cb;
    double t0, t1 = 1e9;
    uint32_t k;
    m->sized_bytes = (size_t)(r->bytes / 2); /* read once and written once: the case's bytes */
    if (!copy_prepare(cb, m->c->size_log2, m->threads, m->sized_bytes)) {
        fprintf(stderr, "dmlref: bench: %s: out of memory\n", m->c->name);
        return 0;
    }
    r->copy_bytes = cb->bytes;
    for (k = 0; k < 3; ++k) {
        t0 = clock_seconds();
        parallel_copy(cb->dst, cb->src, cb->bytes, m->threads);
        t0 = clock_seconds() - t0;
        t1 = t0 < t1 ? t0 : t1;
        if (t1 >= 2e-3)
            break;
    }
    r->copy_calls = calls_for(t1);
    t0 = clock_seconds();
    parallel_copy(cb->sized_dst, cb->sized_src, m->sized_bytes, m->threads);
    m->sized_calls = calls_for(clock_seconds() - t0);
    return 1;
}

/* r->copy_calls copies of the size class, untimed or timed (the time per copy). */
static double copies_of_the_class(const measurement *m, const bench_result *r)
{
    double t0 = clock_seconds();
    uint32_t k;
    for (k = 0; k < r->copy_calls; ++k)
        parallel_copy(m->cb->dst, m->cb->src, m->cb->bytes, m->threads);
    return (clock_seconds() - t0) / r->copy_calls;
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

/* Rep i: copy, indices read, copy, case-sized copy, copy, fast, copy,
   reference. */
static int time_rep(measurement *m, const bench_result *r, uint32_t i)
{
    double t0;
    uint32_t k, side;
    if (m->c->op != OP_NONZERO) {
        copies_of_the_class(m, r);
        t0 = clock_seconds();
        parallel_read(m->p.buf[1], (size_t)m->p.t[1].TotalTensorSizeInBytes, m->threads);
        m->index_reads[i] = clock_seconds() - t0;
    }
    copies_of_the_class(m, r);
    t0 = clock_seconds();
    for (k = 0; k < m->sized_calls; ++k)
        parallel_copy(m->cb->sized_dst, m->cb->sized_src, m->sized_bytes, m->threads);
    m->sized_copies[i] = (clock_seconds() - t0) / m->sized_calls;
    for (side = 0; side < m->sides; ++side) {
        double *times = side == 0 ? m->fast_times : m->ref_times;
        m->copies[m->sides * i + side] = copies_of_the_class(m, r);
        times[i] = side == 0 ? timed_run(m->c, &m->p, &m->fast, r->fast.calls)
                             : timed_run(m->c, &m->p, &m->ref, r->ref.calls);
        if (times[i] <= 0)
            return 0;
    }
    return 1;
}

static void finish_timing(bench_timing *t, double *times, uint32_t reps, uint64_t bytes,
                          double copy_gbps)
{
    t->median_ms = 1e3 * median_of(times, reps); /* sorts: times[0] is the minimum */
    t->min_ms = 1e3 * times[0];
    t->gbps = (double)bytes / (t->median_ms * 1e6);
    t->ratio = t->gbps / copy_gbps;
}

/* The medians of the reps, as rates. */
static void summarise(measurement *m, bench_result *r)
{
    uint32_t reps = m->reps;
    r->copy_gbps = 2.0 * (double)r->copy_bytes / (median_of(m->copies, m->sides * reps) * 1e9);
    finish_timing(&r->fast, m->fast_times, reps, r->bytes, r->copy_gbps);
    if (m->c->op != OP_NONZERO)
        r->index_read_gbps =
            (double)m->p.t[1].TotalTensorSizeInBytes / (median_of(m->index_reads, reps) * 1e9);
    r->case_sized_copy_gbps =
        2.0 * (double)m->sized_bytes / (median_of(m->sized_copies, reps) * 1e9);
    if (m->sides == 2) {
        finish_timing(&r->ref, m->ref_times, reps, r->bytes, r->copy_gbps);
        r->speedup = r->ref.median_ms / r->fast.median_ms;
    }
}

/* The case as the reports name it. */

/* Measures a case at one thread count into r: 0 when it is out of memory; a
   case that fails to run ends the command (exit 2). */
static int run_case(const bench_case *c, uint32_t threads, uint32_t reps, dmlref_oob_policy policy,
                    int with_reference, copy_buffers *cb, bench_result *r)
{
    measurement m;
    uint32_t i;
    int ok;
    memset(&m, 0, sizeof m);
    m.c = c, m.threads = threads, m.reps = reps, m.cb = cb;
    m.sides = with_reference ? 2 : 1;
    if (!bench_prepare(c, threads, &m.p) ||
        !(m.fast_times = malloc(6 * (size_t)reps * sizeof *m.fast_times))) {
        fprintf(stderr, "dmlref: bench: %s: out of memory\n", c->name);
        bench_release(&m.p);
        return 0;
    }
    m.ref_times = m.fast_times + reps;
    m.copies = m.ref_times + reps; /* 2 * reps of them */
    m.index_reads = m.copies + 2 * reps;
    m.sized_copies = m.index_reads + reps;
    m.fast.oob_policy = policy;
    m.fast.num_threads = threads;
    m.fast.kernels = DMLREF_KERNELS_FAST;
    m.ref = m.fast;
    m.ref.kernels = DMLREF_KERNELS_REFERENCE;

    memset(r, 0, sizeof *r);
    bench_describe(c, &r->c);
    r->threads = threads;
    r->reps = reps;
    ok = accept_case(&m, r) && calibrate_copies(&m, r);
    for (i = 0; ok && i < reps; ++i)
        ok = time_rep(&m, r, i);
    if (ok)
        summarise(&m, r);
    free(m.fast_times), bench_release(&m.p);
    if (!ok)
        exit(EXIT_BAD_INPUT);
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

/* What bench's options ask for. */
typedef struct bench_options {
    const char *filter, *json, *csv;
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
    OPT_KERNELS
};

static const struct option k_bench_options[] = {
    {"quick", no_argument, NULL, OPT_QUICK},
    {"list", no_argument, NULL, OPT_LIST},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"size", required_argument, NULL, OPT_SIZE},
    {"reps", required_argument, NULL, OPT_REPS},
    {"oob", required_argument, NULL, OPT_OOB},
    {"filter", required_argument, NULL, OPT_FILTER},
    {"json", required_argument, NULL, OPT_JSON},
    {"csv", required_argument, NULL, OPT_CSV},
    {"kernels", required_argument, NULL, OPT_KERNELS},
    {NULL, 0, NULL, 0},
};

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
    default: /* OPT_KERNELS */
        if (strcmp(value, "fast") != 0 && strcmp(value, "both") != 0)
            return usage_error("bench: --kernels takes fast or both");
        o->fast_only = strcmp(value, "fast") == 0;
        break;
    }
    return EXIT_OK;
}

/* The options, with their defaults: every thread count up from 1 by
   doubling, and the maximum; 11 reps (--quick: 5). */
static int parse_bench_options(int argc, char **argv, bench_options *o)
{
    path_list operands = {NULL, 0, 0};
    int code;
    memset(o, 0, sizeof *o);
    o->policy = DMLREF_OOB_ERROR;
    code =
        parse_arguments("bench", argc, argv, "", k_bench_options, take_bench_option, o, &operands);
    if (code == EXIT_OK && operands.count)
        code = usage_error("bench takes options only");
    list_free(&operands);
    if (!o->nthreads) {
#ifdef _OPENMP
        uint32_t max = (uint32_t)omp_get_max_threads(), t;
        for (t = 1; t < max && o->nthreads < MAX_THREAD_LIST - 1; t *= 2)
            o->threads[o->nthreads++] = t;
        o->threads[o->nthreads++] = max;
#else
        o->threads[o->nthreads++] = 1;
#endif
    }
    if (!o->reps)
        o->reps = o->quick ? 5 : 11;
    return code;
}

/* The cases the options choose: the large size and the in-cache size, or
   --size's class; --quick's share of them; those --filter names.  0 when out
   of memory. */
static int choose_cases(const bench_options *o, case_list *chosen)
{
    case_list cases = {NULL, 0, 0};
    size_t i;
    int ok = o->size ? bench_build_matrix(&cases, (uint32_t)o->size)
                     : bench_build_matrix(&cases, 24) && bench_build_matrix(&cases, 16);
    for (i = 0; ok && i < cases.count; ++i) {
        const bench_case *c = &cases.items[i];
        unsigned want = !o->quick            ? 1u
                        : o->size            ? (QUICK_LARGE | QUICK_SMALL) & c->quick
                        : c->size_log2 == 24 ? QUICK_LARGE & c->quick
                                             : QUICK_SMALL & c->quick;
        if (want && (!o->filter || strstr(c->name, o->filter)))
            ok = bench_add_case(chosen, *c);
    }
    free(cases.items);
    return ok;
}

static int is_sequential(const bench_case *c)
{
    return (c->op == OP_GATHER_ELEMENTS || c->op == OP_SCATTER) && c->pattern == P_SEQ &&
           c->layout == L_PACKED;
}

/* Every chosen case at every thread count, a row of the table each, into
   results (*count of them); the worst ratio to copy of the sequential cases
   of the largest size (negative: none).  EXIT_OK, or EXIT_BAD_INPUT when a
   case ran out of memory (the results so far kept). */
static int run_cases(const bench_options *o, const case_list *chosen, bench_result *results,
                     size_t *count, double *worst)
{
    copy_buffers copies[MAX_THREAD_LIST];
    uint32_t largest = 0;
    size_t i, j;
    int code = EXIT_OK;
    memset(copies, 0, sizeof copies);
    for (i = 0; i < chosen->count; ++i)
        if (chosen->items[i].size_log2 > largest)
            largest = chosen->items[i].size_log2;
    bench_print_header();
    for (i = 0; i < chosen->count && code == EXIT_OK; ++i) {
        const bench_case *c = &chosen->items[i];
        for (j = 0; j < o->nthreads; ++j) {
            bench_result *r = &results[*count];
            if (!run_case(c, o->threads[j], (uint32_t)o->reps, o->policy, !o->fast_only, &copies[j],
                          r)) {
                code = EXIT_BAD_INPUT;
                break;
            }
            ++*count;
            bench_print_row(r);
            if (c->size_log2 == largest && is_sequential(c) &&
                (*worst < 0 || r->fast.ratio < *worst))
                *worst = r->fast.ratio;
        }
    }
    for (j = 0; j < o->nthreads; ++j)
        copy_release(&copies[j]);
    return code;
}

int command_bench(int argc, char **argv)
{
    bench_options o;
    case_list chosen = {NULL, 0, 0};
    bench_result *results = NULL;
    size_t i, count = 0;
    double worst = -1;
    int code = parse_bench_options(argc, argv, &o);

    if (code != EXIT_OK)
        return code;
    if (!choose_cases(&o, &chosen) ||
        (!o.list_only && !(results = calloc(chosen.count * o.nthreads + 1, sizeof *results)))) {
        fprintf(stderr, "dmlref: bench: out of memory\n");
        free(chosen.items);
        return EXIT_BAD_INPUT;
    }
    if (o.list_only) {
        for (i = 0; i < chosen.count; ++i)
            printf("%s\n", chosen.items[i].name);
        free(chosen.items);
        return EXIT_OK;
    }
    /* everything that can fail before the timing fails now */
    if (!bench_reports_can_be_written(o.json, o.csv)) {
        free(results), free(chosen.items);
        return EXIT_BAD_INPUT;
    }
    code = run_cases(&o, &chosen, results, &count, &worst);
    {
        bench_run run = {results, count, o.nthreads, o.threads, (uint32_t)o.reps, o.policy};
        if (!bench_write_reports(o.json, o.csv, &run))
            code = EXIT_BAD_INPUT;
    }
    if (!chosen.count)
        fprintf(stderr, "dmlref: bench: no case matches --filter\n");
    bench_print_worst_ratio(worst);
    free(results);
    free(chosen.items);
    return code;
}
