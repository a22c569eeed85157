/*
 * fuzz.c - dmlref fuzz: differential fuzzing of another implementation
 * against the reference, shrinking every difference to a small vector.
 *
 *   dmlref fuzz (--backend LIB.so | --exec 'CMD' | --kernels fast) [--seed N]
 *               [--cases N | --time S] [--operator NAME] [--out DIR] [--timeout S]
 *               [--shrink N]
 *
 * With --kernels fast the implementation is this library's fast kernels
 * (src/kernels/), run in this process: each case is executed with
 * kernels = DMLREF_KERNELS_FAST and with DMLREF_KERNELS_REFERENCE on the
 * case's inputs, each into output buffers prefilled with one pattern
 * (kernels_compare(), src/core/kernels_compare.c), at 1 and at 3 threads.  The fast kernels' run is
 * judged as a backend's, and besides, any difference from the reference
 * kernels (status, rule, message, any byte of an output buffer, padding and
 * NonZero's unspecified rows included) fails the case.  Shrinking and the
 * shrunk vector are the same as for a backend.
 *
 * Each case starts from the golden suite's own builders (src/suite.c):
 * random operator, data type, index type, rank 1 to 8, axis, layout (packed,
 * padded, permuted, broadcast input, strided output) and index values, with
 * NaN payloads, both zeros, infinities and subnormals among float values.
 * Then each case becomes, drawn from the seed and its number:
 *   with probability 20%, a case with one rule broken by a mutation of its
 *      JSON (mutations.c: Axis, a size, a rank, data types, the index type, the
 *      feature level, the first levels' shapes, flags, alignment,
 *      TotalTensorSizeInBytes, element counts, strides, output aliasing,
 *      GatherND's counts, NonZero's shapes), kept once the library refuses it
 *      at validation (else another mutation, MUTATION_TRIES in all): the
 *      case must be refused;
 *   10%, a case with boundary indices -s, -1, 0 and s-1 (NonZero: special
 *      values: both zeros, subnormals, NaN, infinities, integer extremes);
 *   10%, the same and one or two out-of-range indices (s, -s-1, the type's
 *      extremes, unsigned values past the signed range);
 *   else (60%) it stays as drawn: valid, indices in range;
 * and a gather or Scatter case of the last two kinds runs under "oob":
 * "clamp" half of the time.
 *
 * The expectation always comes from the oracle, never from the mutation
 * (oracle_case()): a case the library refuses at validation gets the
 * library's status and rule as its expect_error; one whose indices are out
 * of range under the strict policy gets DMLREF_ERROR_INDEX_OUT_OF_RANGE; the
 * others get the reference's outputs.  The backend runs the case and dmlref
 * check's judge decides.  A NonZero case with float subnormals also accepts
 * the outputs of a backend that flushes them to zero: the reference states
 * that answer as the permitted variant subnormals_flushed (R-NZ-10).
 *
 * A failure or an error is shrunk (shrink.c): simpler layouts and fewer
 * attributes, fewer dimensions, dimensions cut down to one element or to
 * halves, blocks of elements set to zero (delta debugging: the whole tensor,
 * halves, quarters, ... single elements), single elements set to 1, single
 * indices moved toward 0; each step is kept only while the backend still
 * fails the same way (same outcome, same failure class: the same expected
 * status and rule, the same output tensor, the same kind of damage or
 * crash), within SHRINK_RUNS backend runs and SHRINK_TIMEOUTS timeouts.
 * The smallest case is written to --out as a vector that `dmlref check`
 * replays (whole or not at all; the run names only the files it wrote).
 * Only the first --shrink (default 10) differences are shrunk.
 *
 * The same seed gives the same cases.  Exit 0 when every case passed or was
 * skipped and at least one was compared, 1 when a case failed, 2 when no case
 * was compared (--cases 0, a --time too short for one case, every case
 * skipped), the backend cannot be loaded or a shrunk vector could not be
 * written, 3 for a usage error.
 */
#include "conformance/fuzz_internal.h"
#include "platform/clock.h"
#include "platform/console.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CASE_MEMORY (256ull << 20) /* buffers of one case: a mutation never allocates more */
#define MUTATION_TRIES 16          /* mutations tried before a case stays valid */

/* Out of 100 cases (the rest stay as drawn). */
#define PERCENT_INVALID 20
#define PERCENT_BOUNDARY 10
#define PERCENT_OUT_OF_RANGE 10

/* ---- the case's JSON (besides fuzz_case.c) ------------------------------------- */

static int has_zero_stride(json_t *t)
{
    json_t *strides = json_object_get(t, "strides"), *s;
    size_t i;
    json_array_foreach(strides, i, s) if (json_integer_value(s) == 0) return 1;
    return 0;
}

/* ---- boundary and out-of-range indices ------------------------------------- */

/* An element of `type` with these bits, as the vector format writes it. */
static json_t *element_of(dmlref_tensor_data_type type, uint64_t bits)
{
    char text[48];
    return json_loads(dmlref_format_element(type, bits, text, sizeof text), JSON_DECODE_ANY, NULL);
}

/* About half of the index values at the edges of the size each is checked
   against (the case generator's, src/suite/generate.h): -s, -1, 0, s-1
   (signed) or 0, s-1; with out_of_range, one or two values outside too: s,
   -s-1 and the type's extremes (signed), s and values past the signed
   range (unsigned).  Under "clamp" the unsigned ones are 2^31 (2^63) and
   2^32-1 (2^64-1), which read as signed are out of range or -1, whose
   clamped and wrapped results agree: R-IX-5 leaves the result of an
   out-of-range index unspecified. */
static int make_boundary(json_t *root, const gen_case *c, prng *r, int out_of_range, int clamp)
{
    json_t *idx = tensor_at(root, "IndicesTensor"), *data = json_object_get(idx, "data");
    dmlref_tensor_data_type type = dtype_of(idx);
    size_t n = json_array_size(data), e, bad;
    if (!idx || !n || has_zero_stride(idx))
        return 0;
    for (e = 0; e < n; ++e) {
        uint64_t s_e;
        if (!gen_index_bound(c, e, &s_e))
            return 0;
        if (pick(r, 2))
            continue;
        json_array_set_new(
            data, e,
            element_of(type, gen_boundary_index(s_e, type, pick(r, gen_boundary_count(type)))));
    }
    for (bad = out_of_range ? 1 + pick(r, 2) : 0; bad > 0; --bad) {
        uint64_t s_e = 0;
        e = pick(r, (uint32_t)n);
        gen_index_bound(c, e, &s_e);
        json_array_set_new(
            data, e,
            element_of(type, gen_out_of_range_index(s_e, type,
                                                    pick(r, gen_out_of_range_count(type, clamp)))));
    }
    if (clamp)
        json_object_set_new(root, "oob", json_string("clamp"));
    return 1;
}

/* NonZero: about half of the input's elements at the edges of zero (the
   case generator's): both zeros, the smallest subnormals, NaN, infinities,
   1; integers 0, 1, -1 and the type's extremes. */
static int make_specials(json_t *root, prng *r)
{
    json_t *in = tensor_at(root, "InputTensor"), *data = json_object_get(in, "data");
    dmlref_tensor_data_type type = dtype_of(in);
    size_t n = json_array_size(data), e;
    if (!n || has_zero_stride(in))
        return 0;
    for (e = 0; e < n; ++e) {
        if (pick(r, 2))
            continue;
        json_array_set_new(
            data, e, element_of(type, gen_zero_edge(type, pick(r, gen_zero_edge_count(type)))));
    }
    return 1;
}

/* ---- the fast kernels against the reference kernels ------------------------------ */

int kernels_compare_vector(dmlref_vector *v, uint32_t threads, kernels_comparison *k)
{
    kernels_case c;
    memset(&c, 0, sizeof c);
    c.op = dmlref_vector_operator(v);
    c.level = dmlref_vector_feature_level(v);
    c.oob_policy = dmlref_vector_oob_policy(v);
    c.inputs = dmlref_vector_inputs(v);
    c.input_count = dmlref_vector_input_count(v);
    c.outputs = dmlref_vector_outputs(v);
    c.output_count = dmlref_vector_output_count(v);
    c.reference_threads = threads;
    c.fast_threads = &threads;
    c.fast_runs = 1;
    return kernels_compare(&c, k);
}

/* What the fast kernels did, as a backend's run: outputs, or refused with
   their status, rule and message; damage: an input written, a byte before
   or past an output; an error when memory ran out. */
static void fast_run_of(const kernels_comparison *k, backend_run *run)
{
    memset(run, 0, sizeof *run);
    if (k->out_of_memory) {
        run->kind = RUN_ERROR;
        snprintf(run->message, sizeof run->message, "out of memory for the case's buffers");
        return;
    }
    run->kind = k->fast_status == DMLREF_OK ? RUN_OUTPUTS : RUN_REFUSED;
    run->status = k->fast_status;
    snprintf(run->rule, sizeof run->rule, "%s", k->fast_error.rule);
    snprintf(run->message, sizeof run->message, "%s", k->fast_error.message);
    run->damage = k->damage == KERNELS_DAMAGE_INPUT_WRITTEN  ? DAMAGE_INPUT_WRITTEN
                  : k->damage == KERNELS_DAMAGE_PAST_END     ? DAMAGE_PAST_END
                  : k->damage == KERNELS_DAMAGE_BEFORE_START ? DAMAGE_BEFORE_START
                                                             : DAMAGE_NONE;
    run->damaged_tensor = k->damaged_tensor;
    run->damage_offset = k->damage_offset;
}

/* ---- the oracle ------------------------------------------------------------- */

static int is_validation_status(dmlref_status status)
{
    return status >= DMLREF_ERROR_UNSUPPORTED_OPERATOR && status <= DMLREF_ERROR_INVALID_ATTRIBUTE;
}

static dmlref_status parse_case(const char *text, dmlref_vector **v, dmlref_error *err)
{
    dmlref_vector_read_options as_case = {DMLREF_VECTOR_READ_CASE, CASE_MEMORY};
    return dmlref_vector_parse(text, strlen(text), "fuzz", &as_case, v, err);
}

/* The case of `text` as the case generator sees it (make_boundary's sizes). */
static int generator_case(const char *text, gen_case *c)
{
    dmlref_vector *v = NULL;
    dmlref_error err;
    int made =
        parse_case(text, &v, &err) == DMLREF_OK && gen_case_from_desc(dmlref_vector_operator(v), c);
    dmlref_vector_free(v);
    return made;
}

static void set_expect_error(json_t *root, dmlref_status status, const char *rule)
{
    json_object_set_new(
        root, "expect_error",
        json_pack("{s:s, s:s}", "status", dmlref_status_name(status), "rule", rule));
}

/* The case as the oracle sees it: the expect_error of the JSON is dropped
   and decided again (a validation refusal, or out-of-range indices under the
   strict policy); the vector comes back evaluated.  NULL when the case is
   not one (malformed, or refused for another reason); then `message` says
   why. */
static dmlref_vector *oracle_case(const char *text, char **final_text, char *message,
                                  size_t capacity)
{
    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr);
    dmlref_vector *v = NULL;
    dmlref_error err;
    dmlref_status status;
    char *t;

    *final_text = NULL;
    if (!root) {
        snprintf(message, capacity, "not JSON: %s", jerr.text);
        return NULL;
    }
    json_object_del(root, "expect_error");
    t = dump(root);
    status = parse_case(t, &v, &err);
    if (is_validation_status(status)) {
        set_expect_error(root, status, err.rule);
        free(t);
        t = dump(root);
        status = parse_case(t, &v, &err);
    }
    if (status == DMLREF_OK &&
        (status = dmlref_vector_eval(v, 1, &err)) == DMLREF_ERROR_INDEX_OUT_OF_RANGE &&
        !dmlref_vector_expects_error(v, NULL, NULL)) {
        dmlref_vector_free(v);
        v = NULL;
        set_expect_error(root, status, err.rule);
        free(t);
        t = dump(root);
        if ((status = parse_case(t, &v, &err)) == DMLREF_OK)
            status = dmlref_vector_eval(v, 1, &err);
    }
    json_decref(root);
    if (status != DMLREF_OK) {
        snprintf(message, capacity, "%s", err.message);
        dmlref_vector_free(v);
        free(t);
        return NULL;
    }
    *final_text = t;
    return v;
}

/* The thread counts the fast kernels run each case on, in this process. */
static const uint32_t k_fast_threads[2] = {1, 3};

/* Runs the case with the fast kernels and the reference kernels in this
   process (kernels_compare_vector), on each of k_fast_threads.  The fast
   kernels' run is judged as a backend's would be (their outputs in the
   vector's buffers); then anything that sets them apart from the reference
   kernels (the status, the rule, the message, any byte of an output
   buffer) is a failure too, with the first difference as its message. */
static case_result run_fast_kernels(dmlref_vector *v, char *message, size_t capacity)
{
    const dmlref_binding *vout = dmlref_vector_outputs(v);
    case_result outcome = CASE_PASS;
    size_t t, o;
    for (t = 0; t < sizeof k_fast_threads / sizeof *k_fast_threads && outcome == CASE_PASS; ++t) {
        kernels_comparison k;
        backend_run run;
        int same = kernels_compare_vector(v, k_fast_threads[t], &k);
        fast_run_of(&k, &run);
        if (run.kind == RUN_OUTPUTS)
            for (o = 0; o < k.output_count; ++o)
                if (k.outputs[o].data && vout[o].data)
                    memcpy(vout[o].data, k.outputs[o].data, (size_t)vout[o].size_in_bytes);
        outcome = judge_case(v, &run, message, capacity);
        if (!same && outcome != CASE_FAIL && outcome != CASE_ERROR) {
            outcome = run.kind == RUN_ERROR ? CASE_ERROR : CASE_FAIL;
            snprintf(message, capacity, "%.*s (the fast kernels on %u thread%s)",
                     (int)(capacity > 40 ? capacity - 40 : 0), k.difference, k_fast_threads[t],
                     k_fast_threads[t] == 1 ? "" : "s");
        }
        kernels_comparison_free(&k);
    }
    return outcome;
}

case_result try_case(fuzzer *f, const char *text, dmlref_vector **vector, char **final_text,
                     char *message, size_t capacity)
{
    dmlref_vector *v;
    backend_run run;
    char *judged;
    case_result outcome;

    *vector = NULL;
    if (final_text)
        *final_text = NULL;
    if (!(v = oracle_case(text, &judged, message, capacity)))
        return CASE_SKIP;
    ++f->runs;
    if (!f->b) {
        outcome = run_fast_kernels(v, message, capacity);
    } else {
        backend_run_case(f->b, v, dmlref_vector_feature_level(v), &run);
        outcome = judge_case(v, &run, message, capacity);
        if (run.kind == RUN_ERROR && strncmp(run.message, "timed out", 9) == 0)
            ++f->timeouts;
    }
    *vector = v;
    if (final_text)
        *final_text = judged;
    else
        free(judged);
    return outcome;
}

/* ---- the shrunk case ------------------------------------------------------------ */

/* Names a shrunk case after what it became: <operator>/<dtype>/<rank>d/fuzz_seed<seed>_case<n>. */
static char *rename_case(char *text, uint64_t seed, unsigned long n)
{
    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr), *input;
    char name[200], op[40], dtype[16];
    const char *o, *d;
    size_t i;
    if (!root)
        return text;
    input = tensor_at(root, "InputTensor");
    o = json_string_value(json_object_get(root, "operator"));
    d = json_string_value(json_object_get(input, "dtype"));
    for (i = 0; o && o[i] && i + 1 < sizeof op; ++i)
        op[i] = (char)(o[i] >= 'A' && o[i] <= 'Z' ? o[i] - 'A' + 'a' : o[i]);
    op[o ? i : 0] = '\0';
    for (i = 0; d && d[i] && i + 1 < sizeof dtype; ++i)
        dtype[i] = (char)(d[i] >= 'A' && d[i] <= 'Z' ? d[i] - 'A' + 'a' : d[i]);
    dtype[d ? i : 0] = '\0';
    snprintf(name, sizeof name, "%s/%s/%zud/fuzz_seed%llu_case%lu", op, dtype, rank_of(input),
             (unsigned long long)seed, n);
    json_object_set_new(root, "name", json_string(name));
    free(text);
    text = dump(root);
    json_decref(root);
    return text;
}

/* "InputTensor [1], OutputCountTensor [1], ...": the shrunk case's shapes. */
static void describe_sizes(const dmlref_vector *v, char *out, size_t capacity)
{
    static const char *const gather[3] = {"InputTensor", "IndicesTensor", "OutputTensor"};
    static const char *const scatter[4] = {"InputTensor", "IndicesTensor", "UpdatesTensor",
                                           "OutputTensor"};
    static const char *const nonzero[3] = {"InputTensor", "OutputCountTensor",
                                           "OutputCoordinatesTensor"};
    const dmlref_operator_desc *op = dmlref_vector_operator(v);
    const dmlref_tensor_desc *t[4];
    const char *const *names = gather;
    size_t n = 3, i, used = 0;
    switch (op->Type) {
    case DMLREF_OPERATOR_GATHER_ELEMENTS: {
        const dmlref_gather_elements_desc *x = op->Desc;
        t[0] = x->InputTensor, t[1] = x->IndicesTensor, t[2] = x->OutputTensor;
        break;
    }
    case DMLREF_OPERATOR_SCATTER_ELEMENTS: {
        const dmlref_scatter_elements_desc *x = op->Desc;
        t[0] = x->InputTensor, t[1] = x->IndicesTensor, t[2] = x->UpdatesTensor;
        t[3] = x->OutputTensor, names = scatter, n = 4;
        break;
    }
    case DMLREF_OPERATOR_GATHER_ND: {
        const dmlref_gather_nd_desc *x = op->Desc;
        t[0] = x->InputTensor, t[1] = x->IndicesTensor, t[2] = x->OutputTensor;
        break;
    }
    case DMLREF_OPERATOR_GATHER_ND1: {
        const dmlref_gather_nd1_desc *x = op->Desc;
        t[0] = x->InputTensor, t[1] = x->IndicesTensor, t[2] = x->OutputTensor;
        break;
    }
    default: {
        const dmlref_nonzero_coordinates_desc *x = op->Desc;
        t[0] = x->InputTensor, t[1] = x->OutputCountTensor, t[2] = x->OutputCoordinatesTensor;
        names = nonzero;
        break;
    }
    }
    out[0] = '\0';
    for (i = 0; i < n && used + 40 < capacity; ++i) {
        uint32_t d;
        used += (size_t)snprintf(out + used, capacity - used, "%s%s [", i ? ", " : "", names[i]);
        for (d = 0; d < t[i]->DimensionCount && used + 16 < capacity; ++d)
            used += (size_t)snprintf(out + used, capacity - used, "%s%u", d ? ", " : "",
                                     t[i]->Sizes[d]);
        used += (size_t)snprintf(out + used, capacity - used, "]");
    }
}

/* ---- drawing the cases ----------------------------------------------------------- */

enum case_kind { KIND_VALID, KIND_INVALID, KIND_BOUNDARY, KIND_OUT_OF_RANGE, KINDS };

typedef struct tally {
    unsigned long kinds[KINDS], clamped;
    char rules[64][24]; /* the distinct expect_error rules of the invalid cases */
    size_t rule_count;
} tally;

/* The case text of kind `kind` made from a drawn valid case; NULL when it
   cannot be made (the valid case is used instead). */
static char *make_kind(const char *text, enum case_kind kind, prng *r, int *clamped)
{
    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr), *complete;
    dmlref_vector *v = NULL;
    dmlref_error err;
    char *written, *out = NULL, name[256];
    shape s;
    int attempt;

    *clamped = 0;
    if (!root || !shape_of(root, &s)) {
        json_decref(root);
        return NULL;
    }
    if (kind == KIND_BOUNDARY || kind == KIND_OUT_OF_RANGE) {
        gen_case c;
        int clamp = (int)pick(r, 2),
            made = s.op == DMLREF_OPERATOR_NONZERO_COORDINATES
                       ? make_specials(root, r)
                       : generator_case(text, &c) &&
                             make_boundary(root, &c, r, kind == KIND_OUT_OF_RANGE, clamp);
        if (made) {
            const char *base = json_string_value(json_object_get(root, "name"));
            snprintf(name, sizeof name, "%.150s_%s%s", base ? base : "fuzz",
                     s.op == DMLREF_OPERATOR_NONZERO_COORDINATES ? "specials"
                     : kind == KIND_OUT_OF_RANGE                 ? "out_of_range"
                                                                 : "boundary",
                     clamp && s.op != DMLREF_OPERATOR_NONZERO_COORDINATES ? "_clamp" : "");
            json_object_set_new(root, "name", json_string(name));
            *clamped = clamp && s.op != DMLREF_OPERATOR_NONZERO_COORDINATES;
            out = dump(root);
        }
        json_decref(root);
        return out;
    }
    /* an invalid descriptor: mutations of the complete case (outputs' sizes
       written out) until the library refuses one at validation */
    json_decref(root);
    if (parse_case(text, &v, &err) != DMLREF_OK ||
        dmlref_vector_write_with(v, DMLREF_VECTOR_WRITE_CASE, &written, NULL, &err) != DMLREF_OK) {
        dmlref_vector_free(v);
        return NULL;
    }
    dmlref_vector_free(v);
    complete = json_loads(written, 0, &jerr);
    free(written);
    for (attempt = 0; complete && attempt < MUTATION_TRIES && !out; ++attempt) {
        const mutation *m = &mutation_table[pick(r, (uint32_t)mutation_count)];
        json_t *c = json_deep_copy(complete);
        char *candidate;
        if (mutate(c, &s, m, r)) {
            const char *base = json_string_value(json_object_get(c, "name"));
            snprintf(name, sizeof name, "%.150s_error_%s", base ? base : "fuzz", m->name);
            json_object_set_new(c, "name", json_string(name));
            candidate = dump(c);
            v = NULL;
            if (is_validation_status(parse_case(candidate, &v, &err)))
                out = candidate;
            else
                free(candidate);
            dmlref_vector_free(v);
        }
        json_decref(c);
    }
    json_decref(complete);
    return out;
}

static void count_rule(tally *t, const dmlref_vector *v)
{
    dmlref_status status;
    const char *rule;
    size_t i;
    if (!dmlref_vector_expects_error(v, &status, &rule) ||
        status == DMLREF_ERROR_INDEX_OUT_OF_RANGE)
        return;
    for (i = 0; i < t->rule_count; ++i)
        if (strcmp(t->rules[i], rule) == 0)
            return;
    if (t->rule_count < 64)
        snprintf(t->rules[t->rule_count++], sizeof t->rules[0], "%s", rule);
}

static int compare_rules(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* ---- the command --------------------------------------------------------------- */

/* A run of dmlref fuzz: the backend, what was drawn, what came of it. */
typedef struct fuzz_state {
    const fuzz_options *o;
    fuzzer f;
    tally counts;
    unsigned long passed, failed, skipped, unwritten;
    int on_terminal;
} fuzz_state;

/* Case n: the suite's next random case, then what it becomes (its kind,
   from a stream of its own: the seed and n).  NULL when the suite draws no
   more. */
static char *draw_case(fuzz_state *st, uint64_t *state, unsigned long n, enum case_kind *kind)
{
    char *text, *made;
    size_t length;
    prng r;
    uint32_t roll;
    int clamped;
    if (!random_case(state, st->o->op, &text, &length))
        return NULL;
    r.state = st->o->seed ^ (0xD1B54A32D192ED03ull * (n + 1));
    roll = pick(&r, 100);
    *kind = roll < PERCENT_INVALID                                             ? KIND_INVALID
            : roll < PERCENT_INVALID + PERCENT_BOUNDARY                        ? KIND_BOUNDARY
            : roll < PERCENT_INVALID + PERCENT_BOUNDARY + PERCENT_OUT_OF_RANGE ? KIND_OUT_OF_RANGE
                                                                               : KIND_VALID;
    made = *kind == KIND_VALID ? NULL : make_kind(text, *kind, &r, &clamped);
    if (made) {
        free(text);
        text = made;
        st->counts.clamped += (unsigned long)clamped;
    } else {
        *kind = KIND_VALID;
    }
    ++st->counts.kinds[*kind];
    return text;
}

/* Writes the shrunk vector of case n to --out as case_<n>.json (its path
   into `path`); 1 when it was written, else 0 with the reason on stderr. */
static int write_shrunk(const fuzz_state *st, unsigned long n, const dmlref_vector *shrunk,
                        char *path, size_t capacity)
{
    const char *out_dir = st->o->out_dir;
    char *text;
    size_t length;
    int written = 0;
    if (snprintf(path, capacity, "%s/case_%lu.json", out_dir, n) >= (int)capacity)
        fprintf(stderr, "dmlref fuzz: %s: the path is too long\n", out_dir);
    else if (dmlref_vector_write(shrunk, &text, &length, NULL) != DMLREF_OK)
        fprintf(stderr, "dmlref fuzz: %s: cannot write the shrunk vector\n", path);
    else {
        written = write_file(path, text, length);
        free(text);
    }
    return written;
}

/* Case n failed (`outcome`, `message`): shrinks it, writes the smallest
   case that fails the same way, and reports both. */
static void shrink_failure(fuzz_state *st, unsigned long n, dmlref_vector *v, const char *judged,
                           case_result outcome, const char *message)
{
    char *small, path[4096], shrunk_message[DMLREF_ERROR_MESSAGE_CAPACITY + 256];
    char sizes[512] = "";
    dmlref_vector *shrunk = NULL;
    unsigned long runs_before = st->f.runs;
    int written = 0;
    if (st->on_terminal)
        fprintf(stderr, "\rdmlref fuzz: case %lu failed, shrinking...", n);
    small = shrink(&st->f, judged, outcome, message);
    if (small)
        small = rename_case(small, st->o->seed, n);
    if (small &&
        try_case(&st->f, small, &shrunk, NULL, shrunk_message, sizeof shrunk_message) == outcome &&
        shrunk) {
        written = write_shrunk(st, n, shrunk, path, sizeof path);
        st->unwritten += !written;
        describe_sizes(shrunk, sizes, sizeof sizes);
    }
    if (st->on_terminal)
        fputc('\n', stderr);
    printf("%s case %lu (%s): %s\n", outcome == CASE_FAIL ? "FAIL" : "ERROR", n,
           dmlref_vector_name(v), message);
    if (sizes[0] && written)
        printf("    shrunk in %lu runs to %s: %s: %s\n", st->f.runs - runs_before, path, sizes,
               shrunk_message);
    else if (sizes[0]) /* only files that exist are named */
        printf("    shrunk in %lu runs, not written (see the error): %s: %s\n",
               st->f.runs - runs_before, sizes, shrunk_message);
    else
        printf("    not shrunk: the smallest case did not fail again\n");
    dmlref_vector_free(shrunk);
    free(small);
}

/* Runs case n (its text, which it frees) and reports it. */
static void run_case(fuzz_state *st, unsigned long n, char *text, enum case_kind kind)
{
    char *judged = NULL, message[DMLREF_ERROR_MESSAGE_CAPACITY + 256] = "";
    dmlref_vector *v;
    case_result outcome = try_case(&st->f, text, &v, &judged, message, sizeof message);
    if (v && kind == KIND_INVALID)
        count_rule(&st->counts, v);
    if (!v) {
        ++st->skipped;
        printf("SKIP case %lu: the reference cannot run it: %s\n", n, message);
    } else if (outcome == CASE_PASS)
        ++st->passed;
    else if (outcome == CASE_SKIP)
        ++st->skipped;
    else if (st->failed >= st->o->shrink_limit) {
        ++st->failed;
        printf("%s case %lu (%s): %s\n", outcome == CASE_FAIL ? "FAIL" : "ERROR", n,
               dmlref_vector_name(v), message);
    } else {
        ++st->failed;
        shrink_failure(st, n, v, judged, outcome, message);
    }
    dmlref_vector_free(v);
    free(judged);
    free(text);
    fflush(stdout);
    if (st->on_terminal)
        fprintf(stderr, "\rdmlref fuzz: %lu cases, %lu passed, %lu failed, %lu skipped", n + 1,
                st->passed, st->failed, st->skipped);
}

/* The summary after `n` cases; the exit code. */
static int finish(fuzz_state *st, unsigned long n)
{
    tally *counts = &st->counts;
    size_t i;
    if (st->on_terminal)
        fputc('\n', stderr);
    if (st->f.b)
        backend_close(st->f.b);
    if (counts->rule_count > 1) /* qsort may not be given NULL, even for 0 */
        qsort(counts->rules, counts->rule_count, sizeof counts->rules[0], compare_rules);
    printf("cases: %lu valid, %lu with an invalid descriptor, %lu with boundary indices, "
           "%lu with out-of-range indices; %lu under \"oob\": \"clamp\"; rules broken:",
           counts->kinds[KIND_VALID], counts->kinds[KIND_INVALID], counts->kinds[KIND_BOUNDARY],
           counts->kinds[KIND_OUT_OF_RANGE], counts->clamped);
    for (i = 0; i < counts->rule_count; ++i)
        printf(" %s", counts->rules[i]);
    printf("%s\n", counts->rule_count ? "" : " none");
    printf("%lu passed, %lu failed, %lu skipped\n", st->passed, st->failed, st->skipped);
    if (st->unwritten) {
        fprintf(stderr, "dmlref fuzz: %lu shrunk %s could not be written to %s\n", st->unwritten,
                st->unwritten == 1 ? "vector" : "vectors", st->o->out_dir);
        return EXIT_BAD_INPUT;
    }
    if (st->failed)
        return EXIT_DIFFERENCE;
    if (!st->passed) {
        if (n == 0)
            fprintf(stderr, "dmlref fuzz: no case ran within --time %g s, so nothing was judged\n",
                    st->o->seconds);
        else
            fprintf(stderr, "dmlref fuzz: all %lu cases were skipped, so nothing was compared\n",
                    n);
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

int fuzz_run(const fuzz_options *o)
{
    uint64_t cases = o->cases, state = o->seed;
    double seconds = o->seconds, start;
    unsigned long n;
    fuzz_state st;

    if (o->cases_given && cases == 0) {
        fprintf(stderr, "dmlref fuzz: --cases 0 runs no case, so nothing would be judged\n");
        return EXIT_BAD_INPUT;
    }
    if (!o->cases_given && seconds == 0)
        cases = 1000;

    memset(&st, 0, sizeof st);
    st.o = o;
    st.on_terminal = is_terminal(stderr);
    start = clock_seconds(); /* --time counts the backend's start */
    if (!o->fast_kernels &&
        !(st.f.b = backend_open(o->library, o->command, o->options, o->timeout)))
        return EXIT_BAD_INPUT;
    printf("dmlref fuzz %s: %s, seed %llu\n", dmlref_version_string(),
           st.f.b ? backend_name(st.f.b)
                  : "the fast kernels against the reference kernels, in process",
           (unsigned long long)o->seed);
    for (n = 0;; ++n) {
        enum case_kind kind = KIND_VALID;
        char *text;
        if ((cases && n >= cases) || (seconds > 0 && clock_seconds() - start >= seconds))
            break;
        if (!(text = draw_case(&st, &state, n, &kind)))
            break;
        run_case(&st, n, text, kind);
    }
    return finish(&st, n);
}
