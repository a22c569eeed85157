/*
 * test_explain.c - dmlref explain cannot drift from the reference kernels.
 *
 * Over every vector of the suite (vectors/MANIFEST), each output element's
 * trace (reference/trace.c, what explain words) must agree with what the
 * reference kernels wrote: a copied, counted or coordinate value bit for
 * bit; an undefined NonZero row exactly where the vector expects null; a
 * Scatter target with several updates exactly where it expects any_of, the
 * winner among its values.  Every element of an output of up to
 * ALL_ELEMENTS is traced; of a larger one, its first and last quarter of a
 * sample of SAMPLE, and the other half spread between (NonZero's: of
 * SAMPLE_NONZERO, since tracing one of its elements scans the input).
 * DMLREF_TEST_QUICK (the extra builds of make check, which verify, gen and
 * check the whole suite besides, emulated ones among them) takes every
 * QUICK_STRIDE-th vector of the MANIFEST, which still holds every operator.
 * explain_case must then word every vector, and a refused one by its rule.
 * The program ends with the line
 *   explain: N vectors, M elements traced, all as the reference kernels computed
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "reference/trace.h"
#include "teach/teach.h"

#define ALL_ELEMENTS 65536u
#define SAMPLE 4096u
#define SAMPLE_NONZERO 128u
#define QUICK_STRIDE 8u

static const char *vectors_dir(void)
{
    const char *dir = getenv("DMLREF_VECTORS_DIR");
    return dir ? dir : "vectors";
}

/* Calls visit(path) for every vector of the suite (every QUICK_STRIDE-th
   under DMLREF_TEST_QUICK); returns how many. */
static unsigned for_each_vector(void (*visit)(const char *path, void *context), void *context)
{
    char manifest[512], line[600], path[1200];
    unsigned count = 0, stride = getenv("DMLREF_TEST_QUICK") ? QUICK_STRIDE : 1u, k = 0;
    FILE *f;
    snprintf(manifest, sizeof manifest, "%s/MANIFEST", vectors_dir());
    f = fopen(manifest, "r");
    if (!f)
        fail_msg("%s: cannot open (run from the repository's root)", manifest);
    while (fgets(line, sizeof line, f)) {
        size_t length = strlen(line);
        if (length < 19 || k++ % stride != 0)
            continue;
        line[length - 1] = '\0';
        snprintf(path, sizeof path, "%s/%s", vectors_dir(), line + 18); /* "<16 hex>  <path>" */
        visit(path, context);
        ++count;
    }
    fclose(f);
    return count;
}

static dmlref_vector *load(const char *path)
{
    dmlref_vector *v;
    dmlref_error err;
    if (dmlref_vector_load(path, NULL, &v, &err) != DMLREF_OK)
        fail_msg("%s", err.message);
    return v;
}

/* The element at logical position p of a vector's output, as written. */
static uint64_t output_bits(const vtensor *out, uint64_t p)
{
    layout l;
    uint64_t c[MAX_RANK];
    layout_from_desc(&out->desc, &l);
    coordinates_of(p, l.rank, l.sizes, c);
    return load_bits(out->buffer + byte_offset(&l, c), l.element_size);
}

static int any_of_holds(const vtensor *out, uint64_t p, uint64_t bits)
{
    size_t k, j;
    for (k = 0; k < out->any_of_count; ++k) {
        const any_of_entry *e = &out->any_of[k];
        if (e->element != p)
            continue;
        for (j = 0; j < e->count; ++j)
            if (out->alternatives[e->first + j] == bits)
                return 1;
    }
    return 0;
}

/* Where element p of output k disagrees with its trace: NULL, or what. */
static const char *disagreement(const dmlref_vector *v, size_t k, uint64_t p)
{
    const vtensor *out = &v->tensors[v->input_count + k];
    const int kind = out->kinds ? out->kinds[p] : EXPECT_VALUE;
    uint64_t at[MAX_RANK], sizes[MAX_RANK];
    element_trace e;
    uint32_t i;
    for (i = 0; i < out->desc.DimensionCount; ++i)
        sizes[i] = out->desc.Sizes[i];
    coordinates_of(p, out->desc.DimensionCount, sizes, at);
    trace_element(&v->op, v->oob == DMLREF_OOB_CLAMP, v->inputs, (uint32_t)k, at, &e);
    if (e.kind == TRACE_REFUSED)
        return "traced as refused in a case the kernels ran";
    if (e.kind == TRACE_UNDEFINED)
        return kind == EXPECT_NULL ? NULL : "traced undefined where the vector expects a value";
    if (kind == EXPECT_NULL)
        return "traced a value where the vector expects null";
    if (e.bits != output_bits(out, p))
        return "the traced value differs from the kernels' output";
    if ((kind == EXPECT_ANY_OF) != (e.update_count > 1))
        return "several updates traced where the vector has no any_of, or the reverse";
    if (kind == EXPECT_ANY_OF && !any_of_holds(out, p, e.bits))
        return "the traced winner is not among the vector's any_of values";
    return NULL;
}

typedef struct tally {
    unsigned vectors;
    uint64_t elements;
} tally;

/* The i-th of the `count` traced elements of an output of `total`. */
static uint64_t traced_position(uint64_t total, uint64_t count, uint64_t i)
{
    if (total == count || i < count / 4)
        return i;
    if (i >= count / 4 * 3)
        return total - (count - i);
    return count / 4 + (i - count / 4) * ((total - count / 2) / (count / 2));
}

static void trace_vector(const char *path, void *context)
{
    tally *t = context;
    dmlref_vector *v = load(path);
    dmlref_error err;
    size_t k;
    if (dmlref_vector_expects_error(v, NULL, NULL)) {
        dmlref_vector_free(v);
        return;
    }
    if (dmlref_vector_eval(v, 0, &err) != DMLREF_OK)
        fail_msg("%s", err.message);
    for (k = 0; k < v->output_count; ++k) {
        const vtensor *out = &v->tensors[v->input_count + k];
        uint64_t total = 1, i, count;
        uint32_t d;
        for (d = 0; d < out->desc.DimensionCount; ++d)
            total *= out->desc.Sizes[d];
        count = total <= ALL_ELEMENTS                            ? total
                : v->type == DMLREF_OPERATOR_NONZERO_COORDINATES ? SAMPLE_NONZERO
                                                                 : SAMPLE;
        for (i = 0; i < count; ++i) {
            uint64_t p = traced_position(total, count, i);
            const char *why = disagreement(v, k, p);
            if (why)
                fail_msg("%s: %s element %llu: %s", path, out->name, (unsigned long long)p, why);
        }
        t->elements += count;
    }
    t->vectors += 1;
    dmlref_vector_free(v);
}

/* Ensure every traced element of every vector of the suite is what the
   reference kernels wrote. */
static void test_trace_agrees_with_the_kernels_over_the_suite(void **state)
{
    tally t = {0, 0};
    unsigned all;
    (void)state;
    all = for_each_vector(trace_vector, &t);
    assert_true(t.vectors > (getenv("DMLREF_TEST_QUICK") ? 2000 / QUICK_STRIDE : 2000));
    printf("explain: %u vectors, %llu elements traced, all as the reference kernels computed\n",
           all, (unsigned long long)t.elements);
}

/* Ensure the comparison can fail: one flipped output bit, a wrong null and
   a lost any_of are each caught. */
static void test_a_wrong_output_is_caught(void **state)
{
    dmlref_vector *v = load("vectors/scatter_elements/float32/1d/doc_example1_duplicate.json");
    dmlref_vector *nz = load("vectors/nonzero_coordinates/float32/1d/zeros_nan_infinity.json");
    vtensor *out;
    dmlref_error err;
    (void)state;
    assert_int_equal(dmlref_vector_eval(v, 1, &err), DMLREF_OK);
    assert_null(disagreement(v, 0, 3));
    out = &v->tensors[3];
    out->buffer[0] ^= 1; /* element 0 */
    assert_string_equal(disagreement(v, 0, 0), "the traced value differs from the kernels' output");
    out->kinds[3] = EXPECT_VALUE;
    assert_non_null(strstr(disagreement(v, 0, 3), "any_of"));
    assert_int_equal(dmlref_vector_eval(nz, 1, &err), DMLREF_OK);
    assert_null(disagreement(nz, 1, 6 * 1)); /* row 6: undefined, null */
    nz->tensors[2].kinds[6] = EXPECT_VALUE;
    assert_string_equal(disagreement(nz, 1, 6),
                        "traced undefined where the vector expects a value");
    dmlref_vector_free(v);
    dmlref_vector_free(nz);
}

static void explain_vector(const char *path, void *context)
{
    dmlref_vector_read_options options = {DMLREF_VECTOR_READ_CASE, 0};
    dmlref_vector *v;
    dmlref_error err;
    dmlref_status expected;
    const char *rule;
    char *text = NULL, line[64];
    size_t length;
    (void)context;
    if (dmlref_vector_load(path, &options, &v, &err) != DMLREF_OK)
        fail_msg("%s", err.message);
    if (explain_case(v, NULL, &text, &length, &err) != DMLREF_OK)
        fail_msg("%s: explain: %s", path, err.message);
    assert_int_equal(strlen(text), length);
    if (dmlref_vector_expects_error(v, &expected, &rule)) {
        snprintf(line, sizeof line, "refused: %s, rule %s ", dmlref_status_name(expected), rule);
        if (!strstr(text, line))
            fail_msg("%s: explain does not say \"%s\":\n%s", path, line, text);
    } else if (strstr(text, "refused")) {
        fail_msg("%s: explain calls a valid case refused:\n%s", path, text);
    }
    free(text);
    dmlref_vector_free(v);
}

/* Ensure explain words every vector of the suite, and each refused one by
   the status and rule the vector expects. */
static void test_explain_words_every_vector(void **state)
{
    (void)state;
    assert_true(for_each_vector(explain_vector, NULL) >
                (getenv("DMLREF_TEST_QUICK") ? 2000 / QUICK_STRIDE : 2000));
}

static const struct {
    const char *element, *message;
} k_bad_elements[] = {
    {"InputTensor[0, 0]", "name an output element, e.g. 'OutputTensor[0]'"},
    {"OutputTensor", "name an output element"},
    {"OutputTensor[1]", "OutputTensor has 2 dimensions, not 1"},
    {"OutputTensor[1, 3]", "coordinate 1 is 3, but OutputTensor.Sizes[1] = 3"},
    {"OutputTensor[1, -1]", "one decimal coordinate per dimension"},
    {"OutputTensor[1, 0", "one decimal coordinate per dimension"},
    {"OutputTensor[1, 0] ", "one decimal coordinate per dimension"},
    {"OutputTensor[1,,0]", "one decimal coordinate per dimension"},
};

/* Ensure --element accepts exactly an output's name and in-range
   coordinates, and says what is wrong otherwise. */
static void test_element_names_are_checked(void **state)
{
    dmlref_vector *v = load("vectors/gather_elements/float32/2d/doc_example.json");
    dmlref_error err;
    char *text;
    size_t length, i;
    (void)state;
    for (i = 0; i < sizeof k_bad_elements / sizeof k_bad_elements[0]; ++i) {
        assert_int_equal(explain_case(v, k_bad_elements[i].element, &text, &length, &err),
                         DMLREF_ERROR_INVALID_ARGUMENT);
        if (!strstr(err.message, k_bad_elements[i].message))
            fail_msg("--element '%s': %s", k_bad_elements[i].element, err.message);
    }
    assert_int_equal(explain_case(v, "OutputTensor[ 1 ,0]", &text, &length, &err), DMLREF_OK);
    assert_non_null(strstr(text,
                           "OutputTensor[1, 0] = 7\n"
                           "  IndicesTensor[1, 0] = 2, in range for InputTensor.Sizes[0] = 3\n"
                           "  InputTensor[2, 0] = 7\n"));
    free(text);
    dmlref_vector_free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trace_agrees_with_the_kernels_over_the_suite),
        cmocka_unit_test(test_a_wrong_output_is_caught),
        cmocka_unit_test(test_explain_words_every_vector),
        cmocka_unit_test(test_element_names_are_checked),
    };
    return cmocka_run_group_tests_name("explain", tests, NULL, NULL);
}
