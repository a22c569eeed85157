/*
 * check.c - dmlref check: runs another implementation over golden vectors
 * and judges every case.
 *
 *   dmlref check (--backend LIB.so | --exec 'CMD') [options] PATH...
 *
 * Two ways to reach an implementation:
 *   - a plug-in (include/dmlref/backend.h), run in a child process that
 *     serves one case at a time: its buffers lie in memory shared with dmlref,
 *     each between guard bytes, so dmlref sees a write past an output or into
 *     an input; a crash or a hang costs the case at hand, and the child is
 *     started again for the next;
 *   - a process speaking JSON Lines (docs/conformance.md): one case per line
 *     on its stdin, one reply per line on its stdout, a timeout per case, a
 *     restart after a crash, a hang or a malformed reply.
 *
 * Each case ends as pass, fail (wrong bits in a defined element, a write
 * outside an output, a valid case refused, an invalid case accepted), skip
 * (unsupported, or beyond the feature level asked) or error (crash, timeout,
 * malformed reply).  Exit 0 when no case failed or errored, 1 otherwise, 2
 * when a vector could not be read, 3 for a usage error.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, strsignal */
#define _DEFAULT_SOURCE /* mkstemp */
#include "conformance.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- options --------------------------------------------------------------- */

typedef struct options {
    const char *backend, *exec, *backend_options, *filter, *junit, *json;
    dmlref_feature_level level; /* 0: each vector's own */
    double timeout;
    int verbose;
} options;

/* ---- results --------------------------------------------------------------- */

typedef struct result {
    char *name;
    case_result outcome;
    char message[DMLREF_ERROR_MESSAGE_CAPACITY + 128];
    double seconds;
} result;

typedef struct results {
    result *items;
    size_t count, capacity;
    unsigned long passed, failed, skipped, errors;
    int bad_input;
} results;

static const char *const k_outcome_names[] = {"PASS", "FAIL", "SKIP", "ERROR"};

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static void record(results *all, const options *o, const char *name, case_result outcome,
                   const char *format, ...)
{
    result *r;
    va_list args;
    if (all->count == all->capacity) {
        all->capacity = all->capacity ? 2 * all->capacity : 256;
        all->items = realloc(all->items, all->capacity * sizeof *all->items);
        if (!all->items) {
            fprintf(stderr, "dmlref check: out of memory\n");
            exit(EXIT_BAD_INPUT);
        }
    }
    r = &all->items[all->count++];
    r->name = malloc(strlen(name) + 1);
    if (!r->name)
        exit(EXIT_BAD_INPUT);
    strcpy(r->name, name);
    r->outcome = outcome;
    r->seconds = 0;
    va_start(args, format);
    vsnprintf(r->message, sizeof r->message, format, args);
    va_end(args);
    switch (outcome) {
    case CASE_PASS: ++all->passed; break;
    case CASE_FAIL: ++all->failed; break;
    case CASE_SKIP: ++all->skipped; break;
    default: ++all->errors; break;
    }
    if (outcome != CASE_PASS || o->verbose)
        printf("%-5s %s%s%s\n", k_outcome_names[outcome], name, r->message[0] ? ": " : "",
               r->message);
    fflush(stdout);
}

/* ---- reports ----------------------------------------------------------------- */

static void xml_text(FILE *f, const char *s)
{
    for (; *s; ++s) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if ((unsigned char)*s >= 0x20)
                fputc(*s, f);
        }
    }
}

static void json_text(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static int write_junit(const char *path, const results *all, const char *tested)
{
    FILE *f = fopen(path, "w");
    size_t i;
    if (!f)
        return 0;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(f, "<testsuites tests=\"%zu\" failures=\"%lu\" errors=\"%lu\" skipped=\"%lu\">\n",
            all->count, all->failed, all->errors, all->skipped);
    fprintf(f, "  <testsuite name=\"dmlref check ");
    xml_text(f, tested);
    fprintf(f, "\" tests=\"%zu\" failures=\"%lu\" errors=\"%lu\" skipped=\"%lu\">\n", all->count,
            all->failed, all->errors, all->skipped);
    for (i = 0; i < all->count; ++i) {
        const result *r = &all->items[i];
        const char *slash = strchr(r->name, '/');
        fprintf(f, "    <testcase classname=\"");
        if (slash)
            fprintf(f, "%.*s", (int)(slash - r->name), r->name);
        fprintf(f, "\" name=\"");
        xml_text(f, r->name);
        fprintf(f, "\"");
        if (r->outcome == CASE_PASS) {
            fprintf(f, "/>\n");
            continue;
        }
        fprintf(f, ">\n      <%s message=\"", r->outcome == CASE_FAIL   ? "failure"
                                             : r->outcome == CASE_SKIP ? "skipped"
                                                                       : "error");
        xml_text(f, r->message);
        fprintf(f, "\"/>\n    </testcase>\n");
    }
    fprintf(f, "  </testsuite>\n</testsuites>\n");
    return fclose(f) == 0;
}

static int write_json(const char *path, const results *all, const char *tested,
                      const char *tested_version)
{
    static const char *const lower[] = {"pass", "fail", "skip", "error"};
    FILE *f = fopen(path, "w");
    size_t i;
    if (!f)
        return 0;
    fprintf(f, "{\"tool\": \"dmlref check\", \"version\": \"%s\", \"backend\": {\"name\": ",
            dmlref_version_string());
    json_text(f, tested);
    fprintf(f, ", \"version\": ");
    json_text(f, tested_version);
    fprintf(f, "},\n \"summary\": {\"passed\": %lu, \"failed\": %lu, \"skipped\": %lu, "
               "\"errors\": %lu},\n \"results\": [\n",
            all->passed, all->failed, all->skipped, all->errors);
    for (i = 0; i < all->count; ++i) {
        fprintf(f, "  {\"name\": ");
        json_text(f, all->items[i].name);
        fprintf(f, ", \"result\": \"%s\", \"seconds\": %.6f, \"message\": ",
                lower[all->items[i].outcome], all->items[i].seconds);
        json_text(f, all->items[i].message);
        fprintf(f, "}%s\n", i + 1 < all->count ? "," : "");
    }
    fprintf(f, " ]}\n");
    return fclose(f) == 0;
}

/* ---- the command ------------------------------------------------------------- */

static int parse_seconds(const char *text, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (*end || !(v > 0 && v <= 86400))
        return 0;
    *out = v;
    return 1;
}

int command_check(int argc, char **argv)
{
    options o;
    results all;
    path_list files = {NULL, 0, 0};
    backend *b;
    size_t i;
    int k, paths = 0, code;

    memset(&o, 0, sizeof o);
    memset(&all, 0, sizeof all);
    o.timeout = 60;
    for (k = 0; k < argc; ++k) {
        const char *a = argv[k], *next = k + 1 < argc ? argv[k + 1] : NULL;
        if (strcmp(a, "--backend") == 0 && next)
            o.backend = argv[++k];
        else if (strcmp(a, "--exec") == 0 && next)
            o.exec = argv[++k];
        else if (strcmp(a, "--backend-options") == 0 && next)
            o.backend_options = argv[++k];
        else if (strcmp(a, "--filter") == 0 && next)
            o.filter = argv[++k];
        else if (strcmp(a, "--junit") == 0 && next)
            o.junit = argv[++k];
        else if (strcmp(a, "--json") == 0 && next)
            o.json = argv[++k];
        else if (strcmp(a, "--feature-level") == 0 && next) {
            if (!dmlref_feature_level_from_name(argv[++k], &o.level))
                return usage_error("--feature-level takes a level such as 4_1");
        } else if (strcmp(a, "--timeout") == 0 && next) {
            if (!parse_seconds(argv[++k], &o.timeout))
                return usage_error("--timeout takes seconds, more than 0");
        } else if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0)
            o.verbose = 1;
        else if (a[0] == '-' && a[1])
            return usage_error("check: unknown option");
        else {
            ++paths;
            if (!collect_vectors(a, &files))
                all.bad_input = 1;
        }
    }
    if (!o.backend == !o.exec)
        return usage_error("check takes --backend LIB.so or --exec 'CMD'");
    if (!paths)
        return usage_error("check needs a path of vectors");
    b = backend_open(o.backend, o.exec, o.backend_options, o.timeout);
    if (!b)
        return EXIT_BAD_INPUT;
    printf("dmlref check %s: %s%s%s\n", dmlref_version_string(), backend_name(b),
           backend_version(b)[0] ? " " : "", backend_version(b));

    for (i = 0; i < files.count; ++i) {
        dmlref_vector *v;
        dmlref_error err;
        dmlref_feature_level level, lowest;
        backend_run run;
        struct timespec t0, t1;
        dmlref_vector_read_options read = read_options(0);
        if (dmlref_vector_load(files.items[i], &read, &v, &err) != DMLREF_OK) {
            record(&all, &o, files.items[i], CASE_ERROR, "cannot read the vector: %s", err.message);
            all.bad_input = 1;
            continue;
        }
        if (o.filter && fnmatch(o.filter, dmlref_vector_name(v), 0) != 0) {
            dmlref_vector_free(v);
            continue;
        }
        /* a positive case runs at its own level, or lower with
           --feature-level; a case that must be refused, at its own */
        level = dmlref_vector_feature_level(v);
        if (!dmlref_vector_min_feature_level(v, &lowest) || dmlref_vector_expects_error(v, NULL, NULL))
            lowest = level;
        else if (o.level && o.level < level)
            level = o.level;
        if (lowest > level || lowest > backend_max_level(b) || (o.level && lowest > o.level)) {
            record(&all, &o, dmlref_vector_name(v), CASE_SKIP, "needs feature level %s",
                   dmlref_feature_level_name(lowest));
            dmlref_vector_free(v);
            continue;
        }
        if (!dmlref_vector_has_data(v) && !dmlref_vector_expects_error(v, NULL, NULL)) {
            record(&all, &o, dmlref_vector_name(v), CASE_ERROR, "the vector has no data");
            dmlref_vector_free(v);
            continue;
        }
        clock_gettime(CLOCK_MONOTONIC, &t0);
        backend_run_case(b, v, files.items[i], level, &run);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        {
            char message[sizeof run.message + 256];
            case_result outcome = judge_case(v, &run, message, sizeof message);
            record(&all, &o, dmlref_vector_name(v), outcome, "%s", message);
        }
        all.items[all.count - 1].seconds =
            (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        dmlref_vector_free(v);
    }
    if (o.junit && !write_junit(o.junit, &all, backend_name(b)))
        fprintf(stderr, "dmlref check: %s: cannot write\n", o.junit);
    if (o.json && !write_json(o.json, &all, backend_name(b), backend_version(b)))
        fprintf(stderr, "dmlref check: %s: cannot write\n", o.json);
    if (all.errors)
        printf("%lu errors (crashes, timeouts, malformed replies), counted as failed\n",
               all.errors);
    printf("%lu passed, %lu failed, %lu skipped\n", all.passed, all.failed + all.errors,
           all.skipped);
    code = all.bad_input ? EXIT_BAD_INPUT : (all.failed || all.errors) ? EXIT_DIFFERENCE : EXIT_OK;
    for (i = 0; i < all.count; ++i)
        free(all.items[i].name);
    free(all.items);
    list_free(&files);
    backend_close(b);
    return code;
}
