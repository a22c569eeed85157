/*
 * fuzz.c - dmlref fuzz: differential fuzzing of another implementation
 * against the reference, shrinking every difference to a small vector.
 *
 *   dmlref fuzz (--backend LIB.so | --exec 'CMD') [--seed N] [--cases N | --time S]
 *               [--operator NAME] [--out DIR] [--timeout S] [--shrink N]
 *
 * Each case comes from the golden suite's own builders (src/suite.c): random
 * operator, data type, index type, rank 1 to 8, axis, layout (packed, padded,
 * permuted, broadcast input, strided output) and index values (boundaries,
 * negatives), with NaN payloads, both zeros, infinities and subnormals among
 * float values.  The reference computes it (dmlref_vector_eval); the backend
 * runs it; dmlref check's judge decides.  A failure or an error is shrunk:
 * simpler layouts, smaller sizes, fewer dimensions, simpler values and
 * indices, each step kept only while the backend still fails, and the
 * smallest case is written to --out as a vector that `dmlref check` replays.
 * Only the first --shrink (default 10) differences are shrunk: a backend
 * that fails half the cases would otherwise spend the run shrinking.
 * The same seed gives the same cases.
 */
#define _DEFAULT_SOURCE /* mkdtemp */
#include "conformance.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SHRINK_RUNS 400 /* backend runs one shrink may spend */

typedef struct fuzzer {
    backend *b;
    char dir[256];  /* where case files live while they run */
    char path[320];
    unsigned long runs;
} fuzzer;

/* Evaluates a case text with the reference and runs it on the backend.
   Returns the outcome; *vector gets the evaluated vector (caller frees), or
   NULL when the reference refuses the case (it is then not a case). */
static case_result try_case(fuzzer *f, const char *text, size_t length, dmlref_vector **vector,
                            char *message, size_t capacity)
{
    dmlref_vector_read_options as_case = {DMLREF_VECTOR_READ_CASE, 0};
    dmlref_vector *v = NULL;
    dmlref_error err;
    backend_run run;
    char *written;
    size_t written_length;
    case_result outcome;
    FILE *file;

    *vector = NULL;
    if (dmlref_vector_parse(text, length, "fuzz", &as_case, &v, &err) != DMLREF_OK)
        return CASE_SKIP;
    if (dmlref_vector_eval(v, 0, &err) != DMLREF_OK ||
        dmlref_vector_write(v, &written, &written_length, &err) != DMLREF_OK) {
        dmlref_vector_free(v);
        return CASE_SKIP;
    }
    file = fopen(f->path, "wb"); /* a plug-in's worker reads the case from here */
    if (!file || fwrite(written, 1, written_length, file) != written_length || fclose(file)) {
        free(written);
        dmlref_vector_free(v);
        snprintf(message, capacity, "cannot write %s", f->path);
        return CASE_ERROR;
    }
    free(written);
    ++f->runs;
    backend_run_case(f->b, v, f->path, dmlref_vector_feature_level(v), &run);
    outcome = judge_case(v, &run, message, capacity);
    *vector = v;
    return outcome;
}

/* ---- shrinking, on the case's JSON ------------------------------------------ */

static size_t rank_of(json_t *tensor)
{
    return json_array_size(json_object_get(tensor, "sizes"));
}

/* Keeps the elements of `data` (logical, row-major over `sizes`) whose
   coordinate along dimension d is below `keep`. */
static json_t *truncate_data(json_t *data, json_t *sizes, size_t d, size_t keep)
{
    json_t *out = json_array();
    size_t n = json_array_size(data), rank = json_array_size(sizes), e, inner = 1, i;
    size_t size = (size_t)json_integer_value(json_array_get(sizes, d));
    for (i = d + 1; i < rank; ++i)
        inner *= (size_t)json_integer_value(json_array_get(sizes, i));
    for (e = 0; e < n; ++e)
        if ((e / inner) % size < keep)
            json_array_append(out, json_array_get(data, e));
    return out;
}

/* Candidate simplifications of a case, in order of preference.  Each is
   made on a deep copy; NULL when the kind and index do not apply. */
static json_t *candidate(json_t *root, int kind, size_t which)
{
    json_t *c = json_deep_copy(root), *tensors = json_object_get(c, "tensors"), *t;
    const char *name;
    size_t seen = 0;
    int changed = 0;

    switch (kind) {
    case 0: /* one tensor's layout packed */
        json_object_foreach(tensors, name, t) {
            if (json_object_get(t, "strides") && seen++ == which) {
                json_object_del(t, "strides");
                json_object_del(t, "total_bytes");
                changed = 1;
            }
        }
        break;
    case 1:   /* dimension d of every tensor of the same rank: halved */
    case 2: { /* dimension d of the indices (and updates) only: halved */
        size_t d = which % 8, rank = which / 8 + 1;
        json_object_foreach(tensors, name, t) {
            json_t *sizes = json_object_get(t, "sizes"), *data = json_object_get(t, "data");
            size_t size;
            if (!sizes || rank_of(t) != rank || d >= rank)
                continue;
            if (kind == 2 && strcmp(name, "IndicesTensor") != 0 && strcmp(name, "UpdatesTensor") != 0)
                continue;
            size = (size_t)json_integer_value(json_array_get(sizes, d));
            if (size < 2)
                continue;
            if (data)
                json_object_set_new(t, "data", truncate_data(data, sizes, d, size / 2));
            json_array_set_new(sizes, d, json_integer((json_int_t)(size / 2)));
            json_object_del(t, "strides");
            json_object_del(t, "total_bytes");
            changed = 1;
        }
        if (changed) /* outputs take DirectMLX's shapes again */
            json_object_foreach(tensors, name, t)
                if (!json_object_get(t, "data") && !json_object_get(t, "generator")) {
                    json_object_del(t, "sizes");
                    json_object_del(t, "strides");
                    json_object_del(t, "total_bytes");
                }
        break;
    }
    case 3: { /* a dimension of size 1 everywhere dropped: one rank fewer */
        size_t d = which % 8, a;
        json_object_foreach(tensors, name, t) {
            json_t *sizes = json_object_get(t, "sizes");
            if (sizes && (d >= rank_of(t) || rank_of(t) < 2 ||
                          json_integer_value(json_array_get(sizes, d)) != 1)) {
                json_decref(c);
                return NULL;
            }
        }
        json_object_foreach(tensors, name, t) {
            if (!json_object_get(t, "sizes"))
                continue; /* an output whose sizes eval infers */
            json_array_remove(json_object_get(t, "sizes"), d);
            if (json_object_get(t, "strides"))
                json_array_remove(json_object_get(t, "strides"), d);
            json_object_del(t, "total_bytes");
        }
        if ((t = json_object_get(json_object_get(c, "attributes"), "Axis"))) {
            json_int_t axis = json_integer_value(t);
            if ((size_t)axis == d) {
                json_decref(c);
                return NULL;
            }
            if ((size_t)axis > d)
                json_integer_set(t, axis - 1);
        }
        for (a = 0; a < 2; ++a) { /* GatherND's counts: one fewer when d was inside them */
            static const char *const counts[2] = {"InputDimensionCount", "IndicesDimensionCount"};
            json_t *x = json_object_get(json_object_get(c, "attributes"), counts[a]);
            json_t *sizes = json_object_get(json_object_get(tensors, a ? "IndicesTensor" : "InputTensor"), "sizes");
            if (x && sizes && (size_t)json_integer_value(x) > json_array_size(sizes))
                json_integer_set(x, json_integer_value(x) - 1);
        }
        changed = 1;
        break;
    }
    case 4:   /* the values of one data input: small integers */
    case 5: { /* the indices: all 0 */
        json_object_foreach(tensors, name, t) {
            json_t *data = json_object_get(t, "data"), *v;
            size_t e;
            int is_index = strcmp(name, "IndicesTensor") == 0;
            if (!data || is_index != (kind == 5) || seen++ != which)
                continue;
            json_array_foreach(data, e, v)
                json_array_set_new(data, e, json_integer(kind == 5 ? 0 : (json_int_t)(e % 100)));
            changed = 1;
        }
        break;
    }
    default:
        break;
    }
    if (!changed) {
        json_decref(c);
        return NULL;
    }
    return c;
}

/* Shrinks a failing case: greedy, candidates tried in order, the first that
   still fails is taken, until none does or the budget is spent. */
static char *shrink(fuzzer *f, const char *text, case_result failing, char *message,
                    size_t capacity)
{
    json_error_t jerr;
    json_t *best = json_loads(text, 0, &jerr);
    unsigned long budget = f->runs + SHRINK_RUNS;
    int improved = 1;
    char *out;

    while (best && improved && f->runs < budget) {
        int kind;
        improved = 0;
        for (kind = 0; kind <= 5 && !improved && f->runs < budget; ++kind) {
            size_t which;
            for (which = 0; which < 64 && !improved && f->runs < budget; ++which) {
                json_t *c = candidate(best, kind, which);
                char *candidate_text, m[DMLREF_ERROR_MESSAGE_CAPACITY + 256];
                dmlref_vector *v;
                case_result outcome;
                if (!c)
                    continue;
                candidate_text = json_dumps(c, JSON_COMPACT);
                outcome = try_case(f, candidate_text, strlen(candidate_text), &v, m, sizeof m);
                free(candidate_text);
                dmlref_vector_free(v);
                if (outcome == failing) {
                    json_decref(best);
                    best = c;
                    snprintf(message, capacity, "%s", m);
                    improved = 1;
                } else {
                    json_decref(c);
                }
            }
        }
    }
    out = best ? json_dumps(best, JSON_COMPACT) : NULL;
    json_decref(best);
    return out;
}

/* Names a shrunk case after what it became: <operator>/<dtype>/<rank>d/fuzz_<seed>_<n>. */
static char *rename_case(char *text, uint64_t seed, unsigned long n)
{
    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr), *input;
    char name[200], op[40], dtype[16];
    const char *o, *d;
    size_t i;
    if (!root)
        return text;
    input = json_object_get(json_object_get(root, "tensors"), "InputTensor");
    o = json_string_value(json_object_get(root, "operator"));
    d = json_string_value(json_object_get(input, "dtype"));
    for (i = 0; o && o[i] && i + 1 < sizeof op; ++i)
        op[i] = (char)(o[i] >= 'A' && o[i] <= 'Z' ? o[i] - 'A' + 'a' : o[i]);
    op[o ? i : 0] = '\0';
    for (i = 0; d && d[i] && i + 1 < sizeof dtype; ++i)
        dtype[i] = (char)(d[i] >= 'A' && d[i] <= 'Z' ? d[i] - 'A' + 'a' : d[i]);
    dtype[d ? i : 0] = '\0';
    snprintf(name, sizeof name, "%s/%s/%zud/fuzz_seed%llu_case%lu", op, dtype,
             json_array_size(json_object_get(input, "sizes")), (unsigned long long)seed, n);
    json_object_set_new(root, "name", json_string(name));
    free(text);
    text = json_dumps(root, JSON_COMPACT);
    json_decref(root);
    return text;
}

/* ---- the command ------------------------------------------------------------- */

int command_fuzz(int argc, char **argv)
{
    const char *library = NULL, *command = NULL, *options = NULL, *out_dir = "fuzz-failures";
    uint64_t seed = 1, cases = 0, state, shrink_limit = 10;
    double seconds = 0, timeout = 30;
    dmlref_operator_type op = (dmlref_operator_type)0;
    unsigned long passed = 0, failed = 0, skipped = 0, n;
    fuzzer f;
    struct timespec start, now;
    int k, on_terminal = isatty(2);

    for (k = 0; k < argc; k += 2) { /* every option takes a value */
        const char *a = argv[k], *next = k + 1 < argc ? argv[k + 1] : NULL;
        char *end;
        if (!next)
            return usage_error("fuzz: an option lacks its value");
        if (strcmp(a, "--backend") == 0)
            library = next;
        else if (strcmp(a, "--exec") == 0)
            command = next;
        else if (strcmp(a, "--backend-options") == 0)
            options = next;
        else if (strcmp(a, "--out") == 0)
            out_dir = next;
        else if (strcmp(a, "--operator") == 0) {
            if (!dmlref_operator_from_name(next, &op))
                return usage_error("fuzz: --operator takes GATHER_ELEMENTS, SCATTER_ELEMENTS, "
                                   "GATHER_ND, GATHER_ND1 or NONZERO_COORDINATES");
        } else if (strcmp(a, "--seed") == 0 || strcmp(a, "--cases") == 0 ||
                   strcmp(a, "--shrink") == 0) {
            unsigned long long v = strtoull(next, &end, 10);
            if (*end || *next == '-' || !*next)
                return usage_error("fuzz: --seed, --cases and --shrink take a number");
            if (strcmp(a, "--seed") == 0)
                seed = v;
            else if (strcmp(a, "--cases") == 0)
                cases = v;
            else
                shrink_limit = v;
        } else if (strcmp(a, "--time") == 0 || strcmp(a, "--timeout") == 0) {
            double v = strtod(next, &end);
            if (*end || !(v > 0 && v <= 86400))
                return usage_error("fuzz: --time and --timeout take seconds");
            if (strcmp(a, "--time") == 0)
                seconds = v;
            else
                timeout = v;
        } else
            return usage_error("fuzz: unknown option");
    }
    if (!library == !command)
        return usage_error("fuzz takes --backend LIB.so or --exec 'CMD'");
    if (!cases && !seconds)
        cases = 1000;

    memset(&f, 0, sizeof f);
    snprintf(f.dir, sizeof f.dir, "/tmp/dmlref-fuzz-XXXXXX");
    if (!mkdtemp(f.dir)) {
        fprintf(stderr, "dmlref fuzz: cannot make a temporary folder\n");
        return EXIT_BAD_INPUT;
    }
    snprintf(f.path, sizeof f.path, "%s/case.json", f.dir);
    f.b = backend_open(library, command, options, timeout);
    if (!f.b) {
        rmdir(f.dir);
        return EXIT_BAD_INPUT;
    }
    printf("dmlref fuzz %s: %s, seed %llu\n", dmlref_version_string(), backend_name(f.b),
           (unsigned long long)seed);
    clock_gettime(CLOCK_MONOTONIC, &start);
    state = seed;
    for (n = 0;; ++n) {
        char *text, message[DMLREF_ERROR_MESSAGE_CAPACITY + 256] = "";
        size_t length;
        dmlref_vector *v;
        case_result outcome;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((cases && n >= cases) ||
            (seconds && (double)(now.tv_sec - start.tv_sec) +
                                1e-9 * (double)(now.tv_nsec - start.tv_nsec) >= seconds))
            break;
        if (!random_case(&state, op, &text, &length))
            break;
        outcome = try_case(&f, text, length, &v, message, sizeof message);
        if (outcome == CASE_PASS)
            ++passed;
        else if (outcome == CASE_SKIP)
            ++skipped;
        else if (failed >= shrink_limit) {
            ++failed;
            printf("%s case %lu (%s): %s\n", outcome == CASE_FAIL ? "FAIL" : "ERROR", n,
                   dmlref_vector_name(v), message);
        } else {
            char *small = shrink(&f, text, outcome, message, sizeof message), path[512];
            if (small)
                small = rename_case(small, seed, n);
            dmlref_vector *shrunk = NULL;
            char m2[DMLREF_ERROR_MESSAGE_CAPACITY + 256];
            ++failed;
            snprintf(path, sizeof path, "%s/case_%lu.json", out_dir, n);
            if (small && try_case(&f, small, strlen(small), &shrunk, m2, sizeof m2) == outcome) {
                char *written;
                size_t written_length;
                if (dmlref_vector_write(shrunk, &written, &written_length, NULL) == DMLREF_OK) {
                    write_file(path, written, written_length);
                    free(written);
                }
            }
            if (on_terminal)
                fputc('\n', stderr);
            printf("%s case %lu (%s): %s\n    shrunk to %s\n",
                   outcome == CASE_FAIL ? "FAIL" : "ERROR", n, dmlref_vector_name(v), message,
                   path);
            dmlref_vector_free(shrunk);
            free(small);
        }
        dmlref_vector_free(v);
        free(text);
        if (on_terminal)
            fprintf(stderr, "\rdmlref fuzz: %lu cases, %lu passed, %lu failed, %lu skipped", n + 1,
                    passed, failed, skipped);
    }
    if (on_terminal)
        fputc('\n', stderr);
    backend_close(f.b);
    remove(f.path);
    rmdir(f.dir);
    printf("%lu passed, %lu failed, %lu skipped\n", passed, failed, skipped);
    return failed ? EXIT_DIFFERENCE : EXIT_OK;
}
