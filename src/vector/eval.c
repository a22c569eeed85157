/*
 * eval.c - running a golden vector's case on the reference, deciding
 * what each output must hold (values, "any of" sets, unspecified elements,
 * digests), and comparing outputs against a vector.
 */
#include "vector/vector_internal.h"

#include <stdio.h>
#include <stdlib.h>

/* Executes the case into its (zeroed) output buffers. */
static dmlref_status execute_case(dmlref_vector *v, dmlref_oob_policy policy, uint32_t num_threads,
                                  dmlref_error *err)
{
    dmlref_execute_options options;
    size_t o;
    memset(&options, 0, sizeof options); /* the defaults, the reference kernels included */
    options.oob_policy = policy;
    options.num_threads = num_threads;
    if (!v->buffers_ready)
        return set_error(err, DMLREF_ERROR_VECTOR_SCHEMA, "",
                         "%s: $.tensors: the case has no input data to execute", v->source);
    for (o = 0; o < v->output_count; ++o)
        memset(v->outputs[o].data, 0, (size_t)v->outputs[o].size_in_bytes);
    return dmlref_execute_with_options(&v->op, v->level, &options, v->inputs, v->input_count,
                                       v->outputs, v->output_count, err);
}

/* The lowest feature level at which dmlref_validate() accepts the case. */
static int lowest_valid_level(const dmlref_vector *v, dmlref_feature_level *level)
{
    size_t i;
    for (i = 0; i < FEATURE_LEVEL_COUNT; ++i) {
        if (dmlref_validate(&v->op, feature_levels[i], NULL) == DMLREF_OK) {
            *level = feature_levels[i];
            return 1;
        }
    }
    return 0;
}

/* For an expect_error case: does dmlref refuse it exactly as the case says? */
static dmlref_status check_expected_error(dmlref_vector *v, uint32_t num_threads, dmlref_error *err)
{
    dmlref_error got;
    dmlref_status status = dmlref_validate(&v->op, v->level, &got);
    if (status == DMLREF_OK) {
        if (v->error_status != DMLREF_ERROR_INDEX_OUT_OF_RANGE || !v->buffers_ready)
            return set_error(err, DMLREF_ERROR_MISMATCH, "",
                             "%s: $.expect_error: the case expects %s (%s), but dmlref finds it "
                             "valid at feature level %s",
                             v->source, dmlref_status_name(v->error_status), v->error_rule,
                             dmlref_feature_level_name(v->level));
        status = execute_case(v, DMLREF_OOB_ERROR, num_threads, &got);
        if (status == DMLREF_OK)
            return set_error(err, DMLREF_ERROR_MISMATCH, "",
                             "%s: $.expect_error: the case expects %s (%s), but dmlref executes "
                             "it",
                             v->source, dmlref_status_name(v->error_status), v->error_rule);
    }
    if (status != v->error_status || strcmp(got.rule, v->error_rule) != 0)
        return set_error(err, DMLREF_ERROR_MISMATCH, "",
                         "%s: $.expect_error: the case expects %s (%s), dmlref reports %s (%s): %s",
                         v->source, dmlref_status_name(v->error_status), v->error_rule,
                         dmlref_status_name(status), got.rule, got.message);
    return DMLREF_OK;
}

/* ---- what outputs must hold ------------------------------------------------- */

/* "$.tensors.<name>" for messages. */
#define TENSOR_PATH_CAPACITY 64
static const char *tensor_path(const vtensor *t, char *path)
{
    snprintf(path, TENSOR_PATH_CAPACITY, "$.tensors.%s", t->name);
    return path;
}

/* Sets t's expected elements (it has none yet) to those of `buffer`, laid
   out as t says. */
static dmlref_status read_back(vtensor *t, const unsigned char *buffer, memory_budget *b)
{
    layout l;
    walker w;
    uint64_t n, e;
    void *taken;
    char at[TENSOR_PATH_CAPACITY];
    layout_from_desc(&t->desc, &l);
    n = layout_element_count(&l); /* an output's elements have distinct addresses (D6) */
    CHECK(budget_allocate(b, (n ? n : 1) * sizeof *t->expected, 0, tensor_path(t, at),
                          "its expected elements", &taken));
    t->expected = taken;
    walker_init(&w, l.rank, l.sizes);
    walker_add(&w, l.strides);
    walker_seek(&w, 0);
    for (e = 0; e < n; ++e, walker_next(&w))
        t->expected[e] = load_bits(buffer + w.offset[0] * l.element_size, l.element_size);
    t->has_expected = 1;
    return DMLREF_OK;
}

/* NonZero: coordinate rows at or past the count are undefined (R-NZ-14).
   `outs`: the count's and the coordinates' expectations. */
static dmlref_status mark_nonzero_rows(vtensor *outs, memory_budget *b)
{
    vtensor *count_t = &outs[0], *co = &outs[1];
    uint64_t count = count_t->expected[0], n = 1, e;
    uint32_t N = co->sizes[co->desc.DimensionCount - 1], i;
    void *taken;
    char at[TENSOR_PATH_CAPACITY];
    for (i = 0; i < co->desc.DimensionCount; ++i)
        n *= co->sizes[i];
    if (count * N == n || !co->has_expected) /* a digest covers the rows before the count */
        return DMLREF_OK;
    CHECK(budget_allocate(b, n, 1, tensor_path(co, at), "the kinds of its expected elements",
                          &taken));
    co->kinds = taken;
    for (e = count * N; e < n; ++e)
        co->kinds[e] = EXPECT_NULL;
    return DMLREF_OK;
}

/* A value and where it came from, to sort by both. */
typedef struct value_at {
    uint64_t value, position;
} value_at;

static int by_value_then_position(const void *a, const void *b)
{
    const value_at *x = a, *y = b;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    return (x->position > y->position) - (x->position < y->position);
}

#define FEW_VALUES 16u

/* The first of each bit pattern among values[0..n), kept in order at the
   front: returns how many there are.  Sorting (value, position) pairs finds
   the repeats in n log n; a scan per value, as for a few, would be
   quadratic: 10^5 updates of one target, from a case of 600 bytes, would
   take 5 * 10^9 comparisons.  `scratch` holds n pairs when n > FEW_VALUES. */
static size_t keep_first_of_each(uint64_t *values, size_t n, value_at *scratch)
{
    size_t i, j, kept = 0;
    uint64_t previous = 0;
    if (n <= FEW_VALUES) {
        for (i = 0; i < n; ++i) {
            for (j = 0; j < kept && values[j] != values[i]; ++j)
                ;
            if (j == kept)
                values[kept++] = values[i];
        }
        return kept;
    }
    for (i = 0; i < n; ++i) {
        scratch[i].value = values[i];
        scratch[i].position = i;
    }
    qsort(scratch, n, sizeof *scratch, by_value_then_position);
    for (i = 0; i < n; ++i) { /* the first position of each value, into the front */
        if (i > 0 && scratch[i].value == previous)
            continue;
        previous = scratch[i].value;
        scratch[kept].value = scratch[i].position;
        scratch[kept].position = 0;
        ++kept;
    }
    qsort(scratch, kept, sizeof *scratch, by_value_then_position); /* positions, ascending */
    for (i = 0; i < kept; ++i) /* position >= i: read before written */
        values[i] = values[scratch[i].value];
    return kept;
}

/* Scatter's updates walked in row-major order, each with its target: the
 * logical (row-major) position of the output element it writes.  Where
 * both the indices and the updates have a stride of 0 along Axis, the
 * updates along it are one update repeated: the walk takes it once (its
 * first place) and counts it `repeat` times. */
typedef struct update_walk {
    const dmlref_scatter_elements_desc *d;
    const unsigned char *idx, *upd;
    layout idx_l, upd_l, out_l;
    uint64_t packed[MAX_RANK];     /* the output's logical (packed) strides */
    uint64_t walk_sizes[MAX_RANK]; /* the updates' sizes, Axis 1 where repeated */
    uint64_t n_out, n_upd, repeat; /* targets; updates walked; what each stands for */
    walker w;
    uint64_t u; /* the update walked, 0 to n_upd */
} update_walk;

static void update_walk_init(const dmlref_vector *v, update_walk *s)
{
    uint64_t stride = 1;
    uint32_t i, axis;
    s->d = v->op.Desc;
    axis = s->d->Axis;
    s->idx = v->tensors[1].buffer;
    s->upd = v->tensors[2].buffer;
    layout_from_desc(s->d->IndicesTensor, &s->idx_l);
    layout_from_desc(s->d->UpdatesTensor, &s->upd_l);
    layout_from_desc(s->d->OutputTensor, &s->out_l);
    for (i = s->out_l.rank; i-- > 0;) {
        s->packed[i] = stride;
        stride *= s->out_l.sizes[i];
    }
    s->n_out = stride;
    s->n_upd = layout_element_count(&s->upd_l);
    memcpy(s->walk_sizes, s->upd_l.sizes, sizeof s->walk_sizes);
    s->repeat = 1;
    if (s->idx_l.strides[axis] == 0 && s->upd_l.strides[axis] == 0 && s->n_upd > 0) {
        s->repeat = s->walk_sizes[axis];
        s->walk_sizes[axis] = 1;
        s->n_upd /= s->repeat;
    }
}

/* The walk from its first update: for (update_walk_start(s);
   s->u < s->n_upd; update_walk_next(s)). */
static void update_walk_start(update_walk *s)
{
    walker_init(&s->w, s->upd_l.rank, s->walk_sizes);
    walker_add(&s->w, s->idx_l.strides);
    walker_add(&s->w, s->upd_l.strides);
    walker_seek(&s->w, 0);
    s->u = 0;
}

static void update_walk_next(update_walk *s)
{
    ++s->u;
    walker_next(&s->w);
}

/* The target of the update walked. */
static uint64_t update_target(const update_walk *s)
{
    uint32_t axis = s->d->Axis, i;
    uint64_t index, t;
    normalize_index(
        read_index(s->idx + s->w.offset[0] * s->idx_l.element_size, s->d->IndicesTensor->DataType),
        s->out_l.sizes[axis], 1, &index);
    t = index * s->packed[axis];
    for (i = 0; i < s->out_l.rank; ++i)
        if (i != axis)
            t += s->w.coord[i] * s->packed[i];
    return t;
}

/* Most cases write each target once: a bit per target finds out before
   the counts of mark_scatter_duplicates take 12 bytes per target. */
static dmlref_status any_target_twice(update_walk *s, memory_budget *b, const char *at, int *twice)
{
    unsigned char *seen;
    void *taken;
    *twice = 0;
    CHECK(
        budget_allocate(b, s->n_out / 8 + 1, 1, at, "finding targets of several updates", &taken));
    seen = taken;
    for (update_walk_start(s); s->u < s->n_upd; update_walk_next(s)) {
        uint64_t t = update_target(s);
        if (seen[t / 8] & (1u << (t % 8))) {
            *twice = 1;
            break;
        }
        seen[t / 8] |= (unsigned char)(1u << (t % 8));
    }
    free(seen);
    budget_give_back(b, s->n_out / 8 + 1);
    return DMLREF_OK;
}

/* hits[t]: the updates of target t, repeats counted; first[t]: the places
   walked, each a value its list may need.  Returns the values the lists
   need; the walk stops as soon as they could not fit in `room`. */
static uint64_t count_updates(update_walk *s, uint32_t *hits, uint64_t *first, uint64_t room)
{
    uint64_t competing = 0;
    for (update_walk_start(s); s->u < s->n_upd; update_walk_next(s)) {
        uint64_t t = update_target(s);
        uint32_t before = hits[t];
        hits[t] = s->repeat > UINT32_MAX - before ? UINT32_MAX : before + (uint32_t)s->repeat;
        ++first[t];
        if (hits[t] > 1 && (competing += before > 1 ? 1 : first[t]) > room)
            break;
    }
    return competing;
}

/* The any_of entries of the targets of several updates, in element order,
   with room for `total` values; first[t] becomes the entry of target t. */
static dmlref_status make_any_of(vtensor *out, memory_budget *b, const char *at,
                                 const uint32_t *hits, uint64_t *first, uint64_t n_out,
                                 uint64_t entries, uint64_t total)
{
    void *taken;
    uint64_t t;
    CHECK(budget_allocate(b, n_out, 1, at, "the kinds of its expected elements", &taken));
    out->kinds = taken;
    CHECK(budget_allocate(b, entries * sizeof *out->any_of, 1, at, "its any_of entries", &taken));
    out->any_of = taken;
    CHECK(budget_allocate(b, total * sizeof *out->alternatives, 0, at,
                          "the values its any_of entries may take", &taken));
    out->alternatives = taken;
    out->alternatives_count = (size_t)total;
    for (t = 0; t < n_out; ++t) {
        if (hits[t] > 1) {
            any_of_entry *e = &out->any_of[out->any_of_count++];
            e->element = t;
            e->first = (size_t)first[t];
            e->count = 0;
            out->kinds[t] = EXPECT_ANY_OF;
            first[t] = out->any_of_count - 1;
        }
    }
    return DMLREF_OK;
}

/* Each entry's values, in the order of the updates; a list skips the value
   it ends with: a broadcast repeats one update. */
static void fill_any_of(update_walk *s, vtensor *out, const uint64_t *entry_of)
{
    for (update_walk_start(s); s->u < s->n_upd; update_walk_next(s)) {
        uint64_t t = update_target(s);
        if (out->kinds[t] == EXPECT_ANY_OF) {
            any_of_entry *e = &out->any_of[entry_of[t]];
            uint64_t bits =
                load_bits(s->upd + s->w.offset[1] * s->upd_l.element_size, s->upd_l.element_size);
            if (e->count == 0 || out->alternatives[e->first + e->count - 1] != bits)
                out->alternatives[e->first + e->count++] = bits;
        }
    }
}

/* Each entry's values, each bit pattern once; *scratch_bytes: what the
   sorting took from the budget (freed). */
static dmlref_status keep_distinct_values(vtensor *out, memory_budget *b, const char *at,
                                          uint64_t *scratch_bytes)
{
    value_at *scratch = NULL;
    uint64_t most = 0;
    size_t t;
    void *taken;
    for (t = 0; t < out->any_of_count; ++t)
        most = out->any_of[t].count > most ? out->any_of[t].count : most;
    if (most > FEW_VALUES) {
        CHECK(budget_allocate(b, most * sizeof *scratch, 0, at,
                              "sorting the values of an any_of entry", &taken));
        *scratch_bytes = most * sizeof *scratch;
        scratch = taken;
    }
    for (t = 0; t < out->any_of_count; ++t) {
        any_of_entry *e = &out->any_of[t];
        e->count = keep_first_of_each(out->alternatives + e->first, e->count, scratch);
    }
    free(scratch);
    return DMLREF_OK;
}

/* Scatter: a target written by several updates may hold any of them (D4:
 * dmlref applies the last; DirectML promises none).  Marks each such target
 * with every competing update, in row-major order of the updates, each bit
 * pattern once.  The updates are walked twice, and what the lists take is
 * counted against the memory cap before they are made.  Along an Axis of
 * up to 2^32-1 elements, as many updates of a few bytes may compete for one
 * target: where both the indices and the updates have a stride of 0
 * along Axis, the updates along it are one update repeated, and the walks
 * take it once (its first place, where its value first appears). */
static dmlref_status mark_scatter_duplicates(dmlref_vector *v, memory_budget *b)
{
    vtensor *out = &v->tensors[3];
    update_walk s;
    uint64_t entries = 0, total = 0, t, competing, room, scratch_bytes = 0;
    uint32_t *hits = NULL;
    uint64_t *first = NULL;
    void *taken;
    char at[TENSOR_PATH_CAPACITY];
    dmlref_status status = DMLREF_OK;

    tensor_path(out, at);
    update_walk_init(v, &s);
    if (s.repeat == 1) {
        int twice;
        CHECK(any_target_twice(&s, b, at, &twice));
        if (!twice)
            return DMLREF_OK;
    }
    CHECK(budget_allocate(b, s.n_out * sizeof *hits, 1, at, "counting the updates of its elements",
                          &taken));
    hits = taken;
    status = budget_allocate(b, s.n_out * sizeof *first, 1, at,
                             "counting the updates of its elements", &taken);
    if (status != DMLREF_OK)
        goto done;
    first = taken;

    room = b->used < b->cap ? (b->cap - b->used) / sizeof *out->alternatives : 0;
    competing = count_updates(&s, hits, first, room);
    if (competing > room) {
        status = budget_take(b, competing * sizeof *out->alternatives, at,
                             "the values its any_of entries may take");
        goto done;
    }
    for (t = 0; t < s.n_out; ++t) { /* first[t]: where the list of target t starts */
        if (hits[t] > 1) {
            uint64_t places = first[t];
            first[t] = total;
            total += places;
            ++entries;
        }
    }
    if (entries == 0)
        goto done;
    status = make_any_of(out, b, at, hits, first, s.n_out, entries, total);
    if (status != DMLREF_OK)
        goto done;
    fill_any_of(&s, out, first);
    status = keep_distinct_values(out, b, at, &scratch_bytes);
done:
    free(hits), free(first);
    budget_give_back(b, s.n_out * (sizeof *hits + (first ? sizeof *first : 0)) + scratch_bytes);
    return status;
}

/* The number of leading elements an output's digest covers: all, except
   NonZero's coordinates, where only the rows before the count are defined. */
static uint64_t digest_span(const dmlref_vector *v, size_t tensor, uint64_t count_value)
{
    const vtensor *t = &v->tensors[tensor];
    uint64_t n = 1;
    uint32_t i;
    for (i = 0; i < t->desc.DimensionCount; ++i)
        n *= t->sizes[i];
    if (v->type == DMLREF_OPERATOR_NONZERO_COORDINATES && tensor == OUTPUT_COORDINATES_TENSOR) {
        uint64_t rows = count_value * t->sizes[t->desc.DimensionCount - 1];
        return rows < n ? rows : n;
    }
    return n;
}

/* The digest of each output whose elements are all defined (all but
   NonZero's coordinates: the rows before the count). */
static void set_digests(const dmlref_vector *v, vtensor *outs, const unsigned char *const *buffers)
{
    size_t o;
    for (o = 0; o < v->output_count; ++o) {
        vtensor *t = &outs[o];
        layout l;
        uint64_t count_value =
            v->type == DMLREF_OPERATOR_NONZERO_COORDINATES ? outs[0].expected[0] : 0;
        layout_from_desc(&t->desc, &l);
        t->has_xxh3 = !t->any_of_count;
        if (t->has_xxh3)
            t->xxh3 =
                digest_prefix(&l, buffers[o], digest_span(v, v->input_count + o, count_value));
    }
}

static dmlref_status compare_with(const dmlref_vector *v, const vtensor *expect, const char *prefix,
                                  const dmlref_binding *outputs, size_t count,
                                  dmlref_mismatch *first, dmlref_error *err);

/* ---- the variant "subnormals_flushed" (R-NZ-10) ------------------------------ */

static int is_subnormal(dmlref_tensor_data_type type, uint64_t bits)
{
    switch (type) {
    case DMLREF_TENSOR_DATA_TYPE_FLOAT16:
        return (bits & 0x7C00u) == 0 && (bits & 0x03FFu) != 0;
    case DMLREF_TENSOR_DATA_TYPE_FLOAT32:
        return (bits & 0x7F800000u) == 0 && (bits & 0x007FFFFFu) != 0;
    case DMLREF_TENSOR_DATA_TYPE_FLOAT64:
        return (bits & 0x7FF0000000000000ull) == 0 && (bits & 0x000FFFFFFFFFFFFFull) != 0;
    default:
        return 0;
    }
}

/* The outputs of a NonZero case recomputed with its subnormal inputs
   flushed to zero (run_subnormals_flushed), in aligned buffers laid out as
   the case's outputs; the memory cap counts them until flushed_run_free. */
typedef struct flushed_run {
    int applies;
    unsigned char *outputs[2];
    void *blocks[2];
    uint64_t counted;
} flushed_run;

static void flushed_run_free(flushed_run *run, memory_budget *b)
{
    free(run->blocks[0]), free(run->blocks[1]);
    budget_give_back(b, run->counted);
    memset(run, 0, sizeof *run);
}

/* A zero-filled buffer for a binding of `t`, aligned as it promises, counted
   in `counted`. */
static dmlref_status scratch_binding(const vtensor *t, memory_budget *b, uint64_t *counted,
                                     unsigned char **data, void **block)
{
    static const char what[] = "a buffer of the case with subnormals flushed";
    uint64_t bytes =
        aligned_buffer_bytes(t->desc.TotalTensorSizeInBytes, t->desc.GuaranteedBaseOffsetAlignment);
    char at[TENSOR_PATH_CAPACITY];
    CHECK(budget_take(b, bytes, tensor_path(t, at), what));
    *counted += bytes;
    *data = aligned_buffer_new(t->desc.TotalTensorSizeInBytes,
                               t->desc.GuaranteedBaseOffsetAlignment, block);
    if (!*data)
        return budget_out_of_memory(b, bytes, at, what);
    return DMLREF_OK;
}

/* What a backend that flushes subnormals computes for a NonZero case with a
   float input: the reference run on the input with every subnormal element
   replaced by a zero of the same sign.  run->applies is 0 (and nothing is
   computed) when the case is not NonZero on a float input holding a
   subnormal element; else run->outputs hold the outputs (the caller frees
   them with flushed_run_free). */
static dmlref_status run_subnormals_flushed(const dmlref_vector *v, uint32_t num_threads,
                                            memory_budget *b, flushed_run *run, dmlref_error *err)
{
    const vtensor *in = &v->tensors[0];
    unsigned char *flushed = NULL;
    void *flushed_block = NULL;
    uint64_t flushed_bytes = 0;
    dmlref_binding input, outputs[2];
    dmlref_execute_options options;
    dmlref_status status = DMLREF_OK;
    layout l;
    walker w;
    uint64_t n, e;
    size_t o;

    memset(run, 0, sizeof *run);
    if (v->type != DMLREF_OPERATOR_NONZERO_COORDINATES || !is_float_type(in->desc.DataType) ||
        !v->buffers_ready)
        return DMLREF_OK;
    layout_from_desc(&in->desc, &l);
    n = layout_element_count(&l);
    walker_init(&w, l.rank, l.sizes);
    walker_add(&w, l.strides);
    walker_seek(&w, 0);
    for (e = 0; e < n; ++e, walker_next(&w)) {
        unsigned char *at;
        uint64_t bits = load_bits(in->buffer + w.offset[0] * l.element_size, l.element_size);
        if (!is_subnormal(in->desc.DataType, bits))
            continue;
        if (!flushed) {
            CHECK(scratch_binding(in, b, &flushed_bytes, &flushed, &flushed_block));
            memcpy(flushed, in->buffer, (size_t)in->desc.TotalTensorSizeInBytes);
        }
        at = flushed + w.offset[0] * l.element_size;
        store_bits(at, l.element_size, bits & (1ull << (8 * l.element_size - 1))); /* the sign */
    }
    if (!flushed)
        return DMLREF_OK;
    run->applies = 1;
    for (o = 0; o < 2 && status == DMLREF_OK; ++o) {
        const vtensor *t = &v->tensors[v->input_count + o];
        status = scratch_binding(t, b, &run->counted, &run->outputs[o], &run->blocks[o]);
        outputs[o].data = run->outputs[o];
        outputs[o].size_in_bytes = t->desc.TotalTensorSizeInBytes;
    }
    if (status == DMLREF_OK) {
        input.data = flushed;
        input.size_in_bytes = in->desc.TotalTensorSizeInBytes;
        memset(&options, 0, sizeof options);
        options.oob_policy = v->oob;
        options.num_threads = num_threads;
        status =
            dmlref_execute_with_options(&v->op, v->level, &options, &input, 1, outputs, 2, err);
        if (status != DMLREF_OK)
            prefix_error(err, v->source, "$");
    }
    free(flushed_block);
    budget_give_back(b, flushed_bytes);
    if (status != DMLREF_OK)
        flushed_run_free(run, b);
    return status;
}

/* The bindings of a flushed run's outputs. */
static void flushed_bindings(const dmlref_vector *v, const flushed_run *run,
                             dmlref_binding *outputs)
{
    size_t o;
    for (o = 0; o < 2; ++o) {
        outputs[o].data = run->outputs[o];
        outputs[o].size_in_bytes = v->tensors[v->input_count + o].desc.TotalTensorSizeInBytes;
    }
}

/* Adds the variant "subnormals_flushed" when it applies and its answer
   differs from the golden one (eval). */
static dmlref_status add_subnormals_flushed(dmlref_vector *v, uint32_t num_threads,
                                            memory_budget *b, dmlref_error *err)
{
    flushed_run run;
    dmlref_binding outputs[2];
    variant *x;
    size_t o;
    dmlref_status status = run_subnormals_flushed(v, num_threads, b, &run, err);
    if (status != DMLREF_OK || !run.applies)
        return status;
    flushed_bindings(v, &run, outputs);
    /* the golden expectation already passes the flushed answer: nothing to add */
    if (compare_with(v, &v->tensors[v->input_count], "$.tensors", outputs, 2, NULL, NULL) ==
        DMLREF_OK) {
        flushed_run_free(&run, b);
        return DMLREF_OK;
    }
    x = &v->variants[v->variant_count];
    x->kind = VARIANT_SUBNORMALS_FLUSHED;
    for (o = 0; o < 2 && status == DMLREF_OK; ++o) {
        variant_output_init(&x->outputs[o], &v->tensors[v->input_count + o]);
        status = read_back(&x->outputs[o], run.outputs[o], b);
    }
    ++v->variant_count; /* so that a failure below frees it */
    if (status == DMLREF_OK)
        status = mark_nonzero_rows(x->outputs, b);
    if (status == DMLREF_OK)
        set_digests(v, x->outputs, (const unsigned char *const *)run.outputs);
    flushed_run_free(&run, b);
    return status;
}

/* verify: the vector states the variant exactly when eval would add it, and
   its outputs are those recomputed. */
static dmlref_status verify_subnormals_flushed(dmlref_vector *v, uint32_t num_threads,
                                               dmlref_error *err)
{
    flushed_run run;
    dmlref_binding outputs[2];
    memory_budget b;
    size_t k;
    int differs = 0;
    dmlref_status status;
    vector_budget(v, 1, err, &b);
    status = run_subnormals_flushed(v, num_threads, &b, &run, err);
    if (status == DMLREF_ERROR_OUT_OF_MEMORY)
        return status; /* the cap's message, or out of memory: not a mismatch */
    if (status != DMLREF_OK) {
        if (err) {
            char message[DMLREF_ERROR_MESSAGE_CAPACITY];
            snprintf(message, sizeof message, "%s", err->message);
            set_error(err, DMLREF_ERROR_MISMATCH, "",
                      "%s: $: dmlref refuses the case with subnormals flushed: %s", v->source,
                      message);
        }
        return DMLREF_ERROR_MISMATCH;
    }
    for (k = 0; k < v->variant_count && v->variants[k].kind != VARIANT_SUBNORMALS_FLUSHED; ++k)
        ;
    if (run.applies) {
        flushed_bindings(v, &run, outputs);
        differs = compare_with(v, &v->tensors[v->input_count], "$.tensors", outputs, 2, NULL,
                               NULL) != DMLREF_OK;
    }
    if (k == v->variant_count && differs)
        status = set_error(err, DMLREF_ERROR_MISMATCH, "",
                           "%s: $.variants: the case needs the variant \"subnormals_flushed\" "
                           "(R-NZ-10): its input holds subnormal elements, and flushed to zero "
                           "they give another answer",
                           v->source);
    else if (k < v->variant_count && !differs)
        status = set_error(err, DMLREF_ERROR_MISMATCH, "",
                           "%s: $.variants[%zu]: the variant \"subnormals_flushed\" does not "
                           "apply: %s",
                           v->source, k,
                           run.applies ? "flushing the subnormal inputs to zero gives the golden "
                                         "answer"
                                       : "the input holds no subnormal element");
    else if (k < v->variant_count) {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "$.variants[%zu].outputs", k);
        status = compare_with(v, v->variants[k].outputs, prefix, outputs, 2, NULL, err);
    }
    flushed_run_free(&run, &b);
    return status;
}

dmlref_status dmlref_vector_eval(dmlref_vector *v, uint32_t num_threads, dmlref_error *err)
{
    return dmlref_vector_eval_with(v, num_threads, 0, err);
}

dmlref_status dmlref_vector_eval_with(dmlref_vector *v, uint32_t num_threads, uint32_t flags,
                                      dmlref_error *err)
{
    dmlref_status status;
    const unsigned char *buffers[OPERATOR_MAX_OUTPUTS];
    memory_budget b;
    size_t o;

    v->has_min_level = lowest_valid_level(v, &v->min_level);
    vector_clear_variants(v);
    if (v->expects_error)
        return check_expected_error(v, num_threads, err);
    status = execute_case(v, v->oob, num_threads, err);
    if (status != DMLREF_OK) {
        if (status != DMLREF_ERROR_VECTOR_SCHEMA)
            prefix_error(err, v->source, "$");
        return status;
    }
    /* what eval makes is counted beside what the case holds, under its cap,
       in place of the expectations it replaces */
    vector_budget(v, 1, err, &b);
    for (o = v->input_count; o < v->input_count + v->output_count; ++o) {
        budget_give_back(&b, vtensor_expectation_bytes(&v->tensors[o]));
        vtensor_clear_expectations(&v->tensors[o]);
    }
    if (v->type == DMLREF_OPERATOR_SCATTER_ELEMENTS)
        CHECK(mark_scatter_duplicates(v, &b));
    for (o = v->input_count; o < v->input_count + v->output_count; ++o) {
        vtensor *t = &v->tensors[o];
        /* an output with "any of" entries keeps its elements: no digest holds them */
        if (!(flags & DMLREF_VECTOR_EVAL_DIGESTS) || !vector_output_by_digest(v, t) ||
            t->any_of_count)
            CHECK(read_back(t, t->buffer, &b));
        buffers[o - v->input_count] = t->buffer;
    }
    if (v->type == DMLREF_OPERATOR_NONZERO_COORDINATES)
        CHECK(mark_nonzero_rows(&v->tensors[v->input_count], &b));
    set_digests(v, &v->tensors[v->input_count], buffers);
    return add_subnormals_flushed(v, num_threads, &b, err);
}

/* ---- comparing ---------------------------------------------------------------- */

static int matches(const vtensor *t, uint64_t e, uint64_t got, size_t *cursor)
{
    unsigned char kind = t->kinds ? t->kinds[e] : EXPECT_VALUE;
    if (kind == EXPECT_NULL)
        return 1;
    if (kind == EXPECT_ANY_OF) {
        const any_of_entry *entry;
        size_t j;
        while (*cursor < t->any_of_count && t->any_of[*cursor].element < e)
            ++*cursor;
        entry = &t->any_of[*cursor];
        for (j = 0; j < entry->count; ++j)
            if (t->alternatives[entry->first + j] == got)
                return 1;
        return 0;
    }
    return t->expected[e] == got;
}

/* Compares outputs with the expectations `expect` (the case's outputs, or a
   variant's); messages name `prefix`.<Tensor>. */
static dmlref_status compare_with(const dmlref_vector *v, const vtensor *expect, const char *prefix,
                                  const dmlref_binding *outputs, size_t count,
                                  dmlref_mismatch *first, dmlref_error *err)
{
    dmlref_mismatch m;
    int found = 0;
    size_t o;
    char where[160] = "", detail[256] = "";
    uint64_t count_value = 0;

    memset(&m, 0, sizeof m);
    if (count != v->output_count || !outputs)
        return set_error(err, DMLREF_ERROR_INVALID_ARGUMENT, "",
                         "%s: %zu output buffers given, the case has %zu", v->source, count,
                         v->output_count);
    for (o = 0; o < v->output_count; ++o) {
        const vtensor *t = &expect[o];
        const unsigned char *data = outputs[o].data;
        layout l;
        walker w;
        uint64_t n, e, wrong = 0;
        size_t cursor = 0;
        layout_from_desc(&t->desc, &l);
        n = layout_element_count(&l);
        if (!data || outputs[o].size_in_bytes < t->desc.TotalTensorSizeInBytes)
            return set_error(err, DMLREF_ERROR_BINDING_TOO_SMALL, "",
                             "%s: the output buffer of %s is missing or too small", v->source,
                             t->name);
        if (t->has_expected) {
            walker_init(&w, l.rank, l.sizes);
            walker_add(&w, l.strides);
            walker_seek(&w, 0);
            for (e = 0; e < n; ++e, walker_next(&w)) {
                uint64_t got = load_bits(data + w.offset[0] * l.element_size, l.element_size);
                if (matches(t, e, got, &cursor))
                    continue;
                if (!found++) {
                    char want_text[64], got_text[64], coord[96];
                    m.output = o;
                    m.element = e;
                    m.rank = l.rank;
                    memcpy(m.coordinate, w.coord, sizeof m.coordinate);
                    m.expected_bits = t->expected[e];
                    m.got_bits = got;
                    format_coordinates(w.coord, l.rank, coord, sizeof coord);
                    describe_element(t->desc.DataType, t->expected[e], want_text, sizeof want_text);
                    describe_element(t->desc.DataType, got, got_text, sizeof got_text);
                    snprintf(where, sizeof where, "%s.%s.expected[%llu]", prefix, t->name,
                             (unsigned long long)e);
                    if (snprintf(detail, sizeof detail, "%s%s: expected %s%s, got %s", t->name,
                                 coord, want_text,
                                 t->kinds && t->kinds[e] == EXPECT_ANY_OF
                                     ? " (or another of any_of)"
                                     : "",
                                 got_text) >= (int)sizeof detail)
                        detail[sizeof detail - 1] = '\0'; /* cut short */
                }
                ++wrong;
            }
            m.wrong_elements += wrong;
        }
        if (v->type == DMLREF_OPERATOR_NONZERO_COORDINATES && o == 0)
            count_value = t->has_expected                 ? t->expected[0]
                          : outputs[o].size_in_bytes >= 4 ? load_bits(data, 4)
                                                          : 0; /* a case that must be refused */
        if (t->has_xxh3 && !found) {
            uint64_t digest =
                digest_prefix(&l, data, digest_span(v, v->input_count + o, count_value));
            if (digest != t->xxh3) {
                found = 1;
                m.output = o;
                snprintf(where, sizeof where, "%s.%s.xxh3", prefix, t->name);
                snprintf(detail, sizeof detail, "%s: expected digest %016llx, got %016llx", t->name,
                         (unsigned long long)t->xxh3, (unsigned long long)digest);
            }
        }
    }
    if (first)
        *first = m;
    if (!found)
        return DMLREF_OK;
    if (m.wrong_elements > 1)
        return set_error(err, DMLREF_ERROR_MISMATCH, "", "%s: %s: %s; %llu elements differ",
                         v->source, where, detail, (unsigned long long)m.wrong_elements);
    return set_error(err, DMLREF_ERROR_MISMATCH, "", "%s: %s: %s", v->source, where, detail);
}

dmlref_status dmlref_vector_compare(const dmlref_vector *v, const dmlref_binding *outputs,
                                    size_t count, dmlref_mismatch *first, dmlref_error *err)
{
    return compare_with(v, &v->tensors[v->input_count], "$.tensors", outputs, count, first, err);
}

dmlref_status dmlref_vector_compare_variant(const dmlref_vector *v, size_t k,
                                            const dmlref_binding *outputs, size_t count,
                                            dmlref_mismatch *first, dmlref_error *err)
{
    char prefix[64];
    if (!v || k >= v->variant_count)
        return set_error(err, DMLREF_ERROR_INVALID_ARGUMENT, "",
                         "%s: variant %zu asked for; the case has %zu", v ? v->source : "(vector)",
                         k, v ? v->variant_count : 0);
    snprintf(prefix, sizeof prefix, "$.variants[%zu].outputs", k);
    return compare_with(v, v->variants[k].outputs, prefix, outputs, count, first, err);
}

dmlref_status dmlref_vector_verify(dmlref_vector *v, uint32_t num_threads, dmlref_error *err)
{
    dmlref_feature_level lowest;
    int valid_somewhere = lowest_valid_level(v, &lowest);
    dmlref_status status;

    if (v->has_min_level && (!valid_somewhere || lowest != v->min_level))
        return set_error(err, DMLREF_ERROR_MISMATCH, "",
                         "%s: $.min_feature_level: the case says %s, dmlref finds %s", v->source,
                         dmlref_feature_level_name(v->min_level),
                         valid_somewhere ? dmlref_feature_level_name(lowest) : "no valid level");
    if (v->expects_error)
        return check_expected_error(v, num_threads, err);
    status = execute_case(v, v->oob, num_threads, err);
    if (status != DMLREF_OK) {
        if (err && status != DMLREF_ERROR_VECTOR_SCHEMA) {
            char message[DMLREF_ERROR_MESSAGE_CAPACITY];
            snprintf(message, sizeof message, "%s", err->message);
            set_error(err, DMLREF_ERROR_MISMATCH, "", "%s: $: dmlref refuses the case: %s",
                      v->source, message);
            return DMLREF_ERROR_MISMATCH;
        }
        return status;
    }
    status = dmlref_vector_compare(v, v->outputs, v->output_count, NULL, err);
    if (status != DMLREF_OK)
        return status;
    return verify_subnormals_flushed(v, num_threads, err);
}
