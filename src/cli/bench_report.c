/*
 * bench_report.c - what dmlref bench says of its timings: the table on
 * standard output, and the --json and --csv reports.  Charts are drawn from
 * the JSON by scripts/report/plot.py.
 */
#include "cli/bench.h"
#include "cli/cli.h"
#include "platform/files.h"
#include "platform/system.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the table ----------------------------------------------------------------- */

void bench_print_header(void)
{
    printf("%-56s %7s %9s %9s %10s %9s %8s %9s %9s %7s\n", "case", "threads", "fast_ms",
           "fast_GB/s", "fast_ratio", "ref_ms", "ref_GB/s", "ref_ratio", "copy_GB/s", "speedup");
    fflush(stdout);
}

void bench_print_row(const bench_result *r)
{
    if (r->ref.calls)
        printf("%-56s %7u %9.3f %9.2f %10.2f %9.3f %8.2f %9.2f %9.2f %7.2f\n", r->c.name,
               r->threads, r->fast.median_ms, r->fast.gbps, r->fast.ratio, r->ref.median_ms,
               r->ref.gbps, r->ref.ratio, r->copy_gbps, r->speedup);
    else /* bench --kernels fast */
        printf("%-56s %7u %9.3f %9.2f %10.2f %9s %8s %9s %9.2f %7s\n", r->c.name, r->threads,
               r->fast.median_ms, r->fast.gbps, r->fast.ratio, "-", "-", "-", r->copy_gbps, "-");
    fflush(stdout);
}

void bench_print_worst_ratio(double worst)
{
    if (worst < 0)
        printf("worst ratio to copy (sequential cases): n/a\n");
    else
        printf("worst ratio to copy (sequential cases): %.2f\n", worst);
}

/* ---- JSON and CSV ---------------------------------------------------------------- */

static void shape_text(const bench_case_facts *c, char *text, size_t size)
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

static void write_json_machine(FILE *f, const bench_run *run)
{
    char cpu[256];
    size_t i;
    cpu_model(cpu, sizeof cpu);
    fprintf(f, "{\n  \"machine\": {\"cpus\": %ld, \"cpu_model\": \"%s\", \"threads\": [",
            processor_count(), cpu);
    for (i = 0; i < run->thread_count; ++i)
        fprintf(f, "%s%u", i ? ", " : "", run->threads[i]);
    fprintf(f,
            "], \"compiler\": \"%s\", \"openmp\": %s, \"dmlref_version\": \"%s\", "
            "\"reps\": %u, \"oob\": \"%s\"},\n  \"cases\": [",
            compiler_text(),
#ifdef _OPENMP
            "true",
#else
            "false",
#endif
            dmlref_version_string(), run->reps,
            run->policy == DMLREF_OOB_CLAMP ? "clamp" : "error");
}

/* median_ms, min_ms, gbps, ratio and calls_per_rep: the fast kernels;
   reference_*: the reference kernels; speedup: reference time / fast time. */
static void write_json_case(FILE *f, const bench_result *r, int first)
{
    const bench_case_facts *c = &r->c;
    char shape[128];
    shape_text(c, shape, sizeof shape);
    fprintf(f,
            "%s\n    {\"name\": \"%s\", \"op\": \"%s\", \"pattern\": \"%s\", "
            "\"layout\": \"%s\", \"element_size\": %u, \"index_bytes\": %u, "
            "\"elements\": %llu, \"threads\": %u, \"median_ms\": %.6f, \"min_ms\": %.6f, "
            "\"gbps\": %.4f, \"copy_gbps\": %.4f, \"ratio\": %.4f, ",
            first ? "" : ",", c->name, c->op, c->pattern, c->layout, c->element_size,
            c->index_bytes, (unsigned long long)c->elements, r->threads, r->fast.median_ms,
            r->fast.min_ms, r->fast.gbps, r->copy_gbps, r->fast.ratio);
    if (r->index_read_gbps > 0)
        fprintf(f, "\"index_read_gbps\": %.4f, ", r->index_read_gbps);
    else /* NonZero has no indices */
        fputs("\"index_read_gbps\": null, ", f);
    fprintf(f, "\"case_sized_copy_gbps\": %.4f, ", r->case_sized_copy_gbps);
    if (r->ref.calls)
        fprintf(f,
                "\"reference_median_ms\": %.6f, \"reference_min_ms\": %.6f, "
                "\"reference_gbps\": %.4f, \"reference_ratio\": %.4f, \"speedup\": %.4f, ",
                r->ref.median_ms, r->ref.min_ms, r->ref.gbps, r->ref.ratio, r->speedup);
    else /* bench --kernels fast */
        fprintf(f, "\"reference_median_ms\": null, \"reference_min_ms\": null, "
                   "\"reference_gbps\": null, \"reference_ratio\": null, \"speedup\": null, ");
    fprintf(f,
            "\"bytes\": %llu, "
            "\"copy_bytes\": %llu, \"size_log2\": %u, \"shape\": [%s], \"axis\": %u, "
            "\"slice\": %u, \"batch\": %u, \"density\": %g, \"nnz\": %llu, "
            "\"calls_per_rep\": %u, \"reference_calls_per_rep\": %u, "
            "\"copy_calls_per_rep\": %u, \"reps\": %u}",
            (unsigned long long)r->bytes, (unsigned long long)r->copy_bytes, c->size_log2, shape,
            c->axis, c->slice, c->batch, c->density, (unsigned long long)r->nnz, r->fast.calls,
            r->ref.calls, r->copy_calls, r->reps);
}

static int write_json_report(FILE *f, const void *context)
{
    const bench_run *run = context;
    size_t i;
    write_json_machine(f, run);
    for (i = 0; i < run->count; ++i)
        write_json_case(f, &run->results[i], i == 0);
    fprintf(f, "\n  ]\n}\n");
    return !ferror(f);
}

static void write_csv_row(FILE *f, const bench_result *r)
{
    const bench_case_facts *c = &r->c;
    char shape[128];
    shape_text(c, shape, sizeof shape);
    fprintf(f, "%s,%s,%s,%s,%u,%u,%llu,%u,%.6f,%.6f,%.4f,%.4f,%.4f,", c->name, c->op, c->pattern,
            c->layout, c->element_size, c->index_bytes, (unsigned long long)c->elements, r->threads,
            r->fast.median_ms, r->fast.min_ms, r->fast.gbps, r->copy_gbps, r->fast.ratio);
    if (r->ref.calls)
        fprintf(f, "%.6f,%.6f,%.4f,%.4f,%.4f,", r->ref.median_ms, r->ref.min_ms, r->ref.gbps,
                r->ref.ratio, r->speedup);
    else /* bench --kernels fast: empty fields */
        fputs(",,,,,", f);
    fprintf(f, "%llu,%llu,%u,\"%s\",%u,%u,%u,%g,%llu,%u,%u,%u,%u,", (unsigned long long)r->bytes,
            (unsigned long long)r->copy_bytes, c->size_log2, shape, c->axis, c->slice, c->batch,
            c->density, (unsigned long long)r->nnz, r->fast.calls, r->ref.calls, r->copy_calls,
            r->reps);
    if (r->index_read_gbps > 0) /* empty for NonZero, which has no indices */
        fprintf(f, "%.4f", r->index_read_gbps);
    fprintf(f, ",%.4f\n", r->case_sized_copy_gbps);
}

static int write_csv_report(FILE *f, const void *context)
{
    const bench_run *run = context;
    size_t i;
    fprintf(f, "name,op,pattern,layout,element_size,index_bytes,elements,threads,median_ms,"
               "min_ms,gbps,copy_gbps,ratio,reference_median_ms,reference_min_ms,reference_gbps,"
               "reference_ratio,speedup,bytes,copy_bytes,size_log2,shape,axis,slice,batch,"
               "density,nnz,calls_per_rep,reference_calls_per_rep,copy_calls_per_rep,reps,"
               "index_read_gbps,case_sized_copy_gbps\n");
    for (i = 0; i < run->count; ++i)
        write_csv_row(f, &run->results[i]);
    return !ferror(f);
}

/* ---- writing them ---------------------------------------------------------------- */

/* Whether a report can be written at `path` (none: 1); 0, having said why. */
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

int bench_reports_can_be_written(const char *json, const char *csv)
{
    return output_can_be_written("--json", json) && output_can_be_written("--csv", csv);
}

/* Whole or nothing through command_base.h's write_file_with. */
int bench_write_reports(const char *json, const char *csv, const bench_run *run)
{
    return !(json && !write_file_with(json, write_json_report, run)) &&
           !(csv && !write_file_with(csv, write_csv_report, run));
}
