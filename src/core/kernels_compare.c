/*
 * kernels_compare.c - the fast kernels against the reference kernels on one
 * case (kernels_compare.h): both runs, then the first difference between
 * them, in words.
 */
#include "core/kernels_compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The usual pattern changes along the buffer, so that no kernel matches it
   by writing a constant; another one (prefill != 0) mixes in bits drawn
   from its number, eight bytes at a time. */
static unsigned char usual_byte(uint64_t j)
{
    return (unsigned char)(0xA7u ^ (unsigned)((j * 0x9Du) & 0xFFu) ^ (unsigned)((j >> 8) & 0xFFu));
}

/* The bits mixed into bytes 8w to 8w+7 of the pattern `prefill` (SplitMix64's
   output function). */
static uint64_t drawn_bits(uint64_t prefill, uint64_t w)
{
    uint64_t z = prefill + 0x9E3779B97F4A7C15ull * (w + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

unsigned char kernels_prefill_byte(uint64_t prefill, uint64_t j)
{
    unsigned char b = usual_byte(j);
    return prefill
               ? (unsigned char)(b ^ (unsigned char)(drawn_bits(prefill, j >> 3) >> (8 * (j & 7))))
               : b;
}

/* p[j] = kernels_prefill_byte(prefill, j) for j in [0, n).  The usual
   pattern repeats every USUAL_PERIOD bytes: its first period is copied on. */
#define USUAL_PERIOD 65536u
static void fill_pattern(unsigned char *p, uint64_t n, uint64_t prefill)
{
    uint64_t j, w;
    for (j = 0; j < n && j < USUAL_PERIOD; ++j)
        p[j] = usual_byte(j);
    for (; j < n; j += USUAL_PERIOD)
        memcpy(p + j, p, (size_t)(n - j < USUAL_PERIOD ? n - j : USUAL_PERIOD));
    for (w = 0; prefill && 8 * w < n; ++w) {
        uint64_t bits = drawn_bits(prefill, w);
        for (j = 8 * w; j < 8 * w + 8 && j < n; ++j, bits >>= 8)
            p[j] ^= (unsigned char)bits;
    }
}

/* The name of the tensor at `binding` (binding order), or "a tensor". */
static const char *binding_name(const operator_info *row, size_t binding)
{
    return row && binding < row->input_count + row->output_count ? row->tensors[binding].name
                                                                 : "a tensor";
}

/* Where byte `byte` of a tensor's buffer lies: "element [1, 0]", "no element
   covers it", or "" for a tensor of more than 2^24 elements. */
static void byte_place(const dmlref_tensor_desc *t, uint64_t byte, char *out, size_t capacity)
{
    uint32_t es = t ? dmlref_data_type_size(t->DataType) : 0, rank = t ? t->DimensionCount : 0, d;
    uint64_t n = 1, e, c[DMLREF_TENSOR_DIMENSION_COUNT_MAX];
    out[0] = '\0';
    if (!t || !t->Sizes || rank < 1 || rank > DMLREF_TENSOR_DIMENSION_COUNT_MAX || !es)
        return;
    for (d = 0; d < rank && n <= (1u << 24); ++d)
        n *= t->Sizes[d];
    if (n > (1u << 24))
        return;
    for (e = 0; e < n; ++e) {
        uint64_t pos = e, offset = 0, packed = 1;
        for (d = rank; d-- > 0;) {
            c[d] = pos % t->Sizes[d];
            pos /= t->Sizes[d];
            offset += c[d] * (t->Strides ? t->Strides[d] : packed);
            packed *= t->Sizes[d];
        }
        if (byte >= offset * es && byte < offset * es + es) {
            size_t used = (size_t)snprintf(out, capacity, "element [");
            for (d = 0; d < rank && used < capacity; ++d)
                used += (size_t)snprintf(out + used, capacity - used, "%s%llu", d ? ", " : "",
                                         (unsigned long long)c[d]);
            if (used < capacity)
                snprintf(out + used, capacity - used, "]");
            return;
        }
    }
    snprintf(out, capacity, "no element covers it");
}

/* "returned DMLREF_OK" or "refused with DMLREF_ERROR_... (rule)". */
static void outcome_text(dmlref_status status, const dmlref_error *err, char *out, size_t capacity)
{
    if (status == DMLREF_OK)
        snprintf(out, capacity, "returned DMLREF_OK");
    else
        snprintf(out, capacity, "refused with %s (%s)", dmlref_status_name(status),
                 err->rule[0] ? err->rule : "no rule");
}

void kernels_comparison_free(kernels_comparison *k)
{
    size_t i;
    for (i = 0; i < 2 * OPERATOR_MAX_OUTPUTS; ++i) {
        free(k->blocks[i]);
        k->blocks[i] = NULL;
    }
}

/* A buffer of `size` bytes aligned to `alignment` (0: none), with the
   pattern in it and KERNELS_GUARD bytes of it on either side: copied from
   `like`, a buffer so made, or else written; NULL when memory runs out. */
static unsigned char *prefilled(uint64_t size, uint32_t alignment, uint64_t prefill,
                                const unsigned char *like, unsigned char **block)
{
    uint64_t a = alignment > 1 ? alignment : 1;
    unsigned char *data;
    if (size > SIZE_MAX - 2 * KERNELS_GUARD - a ||
        !(*block = malloc((size_t)(size + 2 * KERNELS_GUARD + a))))
        return NULL;
    data = *block + KERNELS_GUARD;
    data += (a - (uintptr_t)data % a) % a;
    if (like)
        memcpy(data - KERNELS_GUARD, like - KERNELS_GUARD, (size_t)(size + 2 * KERNELS_GUARD));
    else
        fill_pattern(data - KERNELS_GUARD, size + 2 * KERNELS_GUARD, prefill);
    return data;
}

/* The first guard byte of an output buffer that changed: 1 and *before (1:
   before the buffer, with *where bytes before it; 0: past it, *where from its
   start), or 0. */
static int guard_changed(const dmlref_binding *b, uint64_t prefill, int *before, uint64_t *where)
{
    const unsigned char *data = b->data;
    uint64_t j;
    if (!data)
        return 0;
    for (j = 0; j < KERNELS_GUARD; ++j) {
        if (data[(ptrdiff_t)j - KERNELS_GUARD] != kernels_prefill_byte(prefill, j)) {
            *before = 1, *where = KERNELS_GUARD - j;
            return 1;
        }
    }
    for (j = 0; j < KERNELS_GUARD; ++j) {
        if (data[b->size_in_bytes + j] !=
            kernels_prefill_byte(prefill, KERNELS_GUARD + b->size_in_bytes + j)) {
            *before = 0, *where = b->size_in_bytes + j;
            return 1;
        }
    }
    return 0;
}

/* What the comparison works with besides the case and its result. */
typedef struct comparing {
    const kernels_case *c;
    const operator_info *row; /* NULL for an operator dmlref does not implement */
    const dmlref_tensor_desc *tensors[OPERATOR_MAX_TENSORS]; /* binding order */
    unsigned char *snapshot[OPERATOR_MAX_INPUTS];            /* the inputs as they were */
} comparing;

static const dmlref_tensor_desc *output_desc(const comparing *x, size_t o)
{
    return x->row && o < x->row->output_count ? x->tensors[x->row->input_count + o] : NULL;
}

/* Both copies of the output buffers, prefilled, and a copy of each input;
   0 when memory runs out. */
static int prepare_buffers(comparing *x, kernels_comparison *k)
{
    const kernels_case *c = x->c;
    size_t i;
    for (i = 0; i < c->output_count; ++i) { /* an output the case has no buffer for stays NULL */
        const dmlref_tensor_desc *t = output_desc(x, i);
        uint32_t alignment = t ? t->GuaranteedBaseOffsetAlignment : 0;
        uint64_t size = c->outputs[i].size_in_bytes;
        unsigned char *reference;
        k->reference_outputs[i].size_in_bytes = k->outputs[i].size_in_bytes = size;
        if (!c->outputs[i].data)
            continue;
        reference = prefilled(size, alignment, c->prefill, NULL, &k->blocks[2 * i]);
        if (!reference)
            return 0;
        k->reference_outputs[i].data = reference;
        k->outputs[i].data =
            prefilled(size, alignment, c->prefill, reference, &k->blocks[2 * i + 1]);
        if (!k->outputs[i].data)
            return 0;
    }
    for (i = 0; i < c->input_count; ++i) {
        if (!c->inputs[i].data)
            continue;
        if (!(x->snapshot[i] = malloc((size_t)c->inputs[i].size_in_bytes + 1)))
            return 0;
        memcpy(x->snapshot[i], c->inputs[i].data, (size_t)c->inputs[i].size_in_bytes);
    }
    return 1;
}

/* Puts back every input a run wrote into; returns the first one, or -1. */
static long restore_inputs(const comparing *x)
{
    const kernels_case *c = x->c;
    long first = -1;
    size_t i;
    for (i = 0; i < c->input_count; ++i) {
        if (x->snapshot[i] &&
            memcmp(x->snapshot[i], c->inputs[i].data, (size_t)c->inputs[i].size_in_bytes) != 0) {
            memcpy(c->inputs[i].data, x->snapshot[i], (size_t)c->inputs[i].size_in_bytes);
            if (first < 0)
                first = (long)i;
        }
    }
    return first;
}

static dmlref_status run(const kernels_case *c, dmlref_kernels kernels, uint32_t threads,
                         const dmlref_binding *outputs, dmlref_error *err)
{
    dmlref_execute_options options;
    memset(&options, 0, sizeof options);
    options.oob_policy = c->oob_policy;
    options.num_threads = threads;
    options.kernels = kernels;
    memset(err, 0, sizeof *err);
    return dmlref_execute_with_options(c->op, c->level, &options, c->inputs, c->input_count,
                                       outputs, c->output_count, err);
}

/* The reference kernels' run. */
static void run_reference(comparing *x, kernels_comparison *k)
{
    long written;
    k->reference_status = run(x->c, DMLREF_KERNELS_REFERENCE, x->c->reference_threads,
                              k->reference_outputs, &k->reference_error);
    if ((written = restore_inputs(x)) >= 0)
        snprintf(k->difference, sizeof k->difference,
                 "the reference kernels wrote into the input %s",
                 binding_name(x->row, (size_t)written));
}

/* The fast kernels' run r (their buffers prefilled again after the first)
   and what it wrote outside its outputs. */
static void run_fast(comparing *x, kernels_comparison *k, size_t r)
{
    const kernels_case *c = x->c;
    long written;
    int before;
    uint64_t where;
    size_t i;

    k->fast_run = r;
    k->damage = KERNELS_DAMAGE_NONE, k->damaged_tensor = 0, k->damage_offset = 0;
    for (i = 0; i < c->output_count && r > 0; ++i)
        if (k->outputs[i].data)
            fill_pattern((unsigned char *)k->outputs[i].data - KERNELS_GUARD,
                         k->outputs[i].size_in_bytes + 2 * KERNELS_GUARD, c->prefill);
    k->fast_status = run(c, DMLREF_KERNELS_FAST, c->fast_threads[r], k->outputs, &k->fast_error);
    if ((written = restore_inputs(x)) >= 0)
        k->damage = KERNELS_DAMAGE_INPUT_WRITTEN, k->damaged_tensor = (size_t)written;
    for (i = 0; i < c->output_count && !k->damage; ++i) {
        if (guard_changed(&k->outputs[i], c->prefill, &before, &where)) {
            k->damage = before ? KERNELS_DAMAGE_BEFORE_START : KERNELS_DAMAGE_PAST_END;
            k->damaged_tensor = c->input_count + i;
            k->damage_offset = where;
        }
    }
}

/* The first byte of output o where the two runs differ, in words; or, when
   none differs, a guard the reference kernels wrote; or nothing. */
static void compare_output(const comparing *x, kernels_comparison *k, size_t o)
{
    const unsigned char *a = k->outputs[o].data, *b = k->reference_outputs[o].data;
    const char *name = binding_name(x->row, x->c->input_count + o);
    uint64_t size = k->outputs[o].size_in_bytes, j, first = 0, differ = 0, where;
    int before;
    char place[128];
    if (!a || !b)
        return;
    for (j = 0; j < size; ++j)
        if (a[j] != b[j] && !differ++)
            first = j;
    if (!differ) {
        if (guard_changed(&k->reference_outputs[o], x->c->prefill, &before, &where))
            snprintf(k->difference, sizeof k->difference, "the reference kernels wrote %s %s",
                     before ? "before the start of" : "past the end of", name);
        return;
    }
    byte_place(output_desc(x, o), first, place, sizeof place);
    snprintf(k->difference, sizeof k->difference,
             "$.tensors.%s.bytes[%llu]: the fast kernels leave 0x%02x, the reference "
             "kernels 0x%02x (%s%sprefilled 0x%02x); %llu of its %llu bytes differ",
             name, (unsigned long long)first, a[first], b[first], place, place[0] ? ", " : "",
             kernels_prefill_byte(x->c->prefill, KERNELS_GUARD + first), (unsigned long long)differ,
             (unsigned long long)size);
}

/* The first difference, in words, when the runs left none said yet. */
static void describe_difference(const comparing *x, kernels_comparison *k)
{
    const dmlref_error *fe = &k->fast_error, *re = &k->reference_error;
    char fast_text[96], ref_text[96];
    size_t i;

    outcome_text(k->fast_status, fe, fast_text, sizeof fast_text);
    outcome_text(k->reference_status, re, ref_text, sizeof ref_text);
    if (k->difference[0]) {
        /* the reference wrote into an input: said already */
    } else if (k->damage == KERNELS_DAMAGE_INPUT_WRITTEN) {
        snprintf(k->difference, sizeof k->difference, "wrote into the input %s",
                 binding_name(x->row, k->damaged_tensor));
    } else if (k->damage == KERNELS_DAMAGE_PAST_END) {
        snprintf(
            k->difference, sizeof k->difference,
            "wrote past the TotalTensorSizeInBytes of %s (byte %llu of its %llu)",
            binding_name(x->row, k->damaged_tensor), (unsigned long long)k->damage_offset,
            (unsigned long long)k->outputs[k->damaged_tensor - x->c->input_count].size_in_bytes);
    } else if (k->damage == KERNELS_DAMAGE_BEFORE_START) {
        snprintf(k->difference, sizeof k->difference,
                 "wrote before the start of %s (%llu bytes before)",
                 binding_name(x->row, k->damaged_tensor), (unsigned long long)k->damage_offset);
    } else if (k->fast_status != k->reference_status || strcmp(fe->rule, re->rule) != 0) {
        snprintf(k->difference, sizeof k->difference,
                 "the fast kernels %s, the reference kernels %s: fast: %s; reference: %s",
                 fast_text, ref_text, k->fast_status == DMLREF_OK ? "-" : fe->message,
                 k->reference_status == DMLREF_OK ? "-" : re->message);
    } else if (k->fast_status != DMLREF_OK && strcmp(fe->message, re->message) != 0) {
        snprintf(k->difference, sizeof k->difference,
                 "the fast kernels %s as the reference kernels do, with another message: "
                 "fast \"%s\", reference \"%s\"",
                 fast_text, fe->message, re->message);
    } else {
        for (i = 0; i < x->c->output_count && !k->difference[0]; ++i)
            compare_output(x, k, i);
    }
}

int kernels_compare(const kernels_case *c, kernels_comparison *k)
{
    comparing x;
    size_t i, r;

    memset(k, 0, sizeof *k);
    memset(&x, 0, sizeof x);
    x.c = c;
    k->output_count = c->output_count;
    if (c->input_count > OPERATOR_MAX_INPUTS || c->output_count > OPERATOR_MAX_OUTPUTS) {
        snprintf(k->difference, sizeof k->difference, "the case has %zu inputs and %zu outputs",
                 c->input_count, c->output_count);
        return 0;
    }
    if ((x.row = operator_find(c->op->Type)) != NULL)
        operator_desc_tensors(x.row, c->op->Desc, x.tensors);
    if (prepare_buffers(&x, k)) {
        run_reference(&x, k);
        for (r = 0; r < c->fast_runs; ++r) {
            run_fast(&x, k, r);
            describe_difference(&x, k);
            if (k->difference[0])
                break;
        }
        k->same = !k->difference[0];
    } else {
        kernels_comparison_free(k);
        memset(k->outputs, 0, sizeof k->outputs);
        memset(k->reference_outputs, 0, sizeof k->reference_outputs);
        k->out_of_memory = 1;
        snprintf(k->difference, sizeof k->difference, "out of memory for the case's buffers");
    }
    for (i = 0; i < c->input_count; ++i)
        free(x.snapshot[i]);
    return k->same;
}
