/*
 * suite.c - dmlref gen: the catalogue of the golden suite.
 *
 * The suite has two parts, both handed to the library exactly as a user's
 * case would be: written (or read) as a case in the vector format, parsed,
 * evaluated by the reference (dmlref_vector_eval) and written in canonical
 * form.  The suite is the same bytes on every run and thread count.
 *
 *   - The sweeps, drawn by the case generator (generate.c) from one seeded
 *     stream: every operator x data type x index type x rank 1..8, with the
 *     axis, layout (packed, padded, permuted, broadcast input, strided
 *     output) and index classes (boundaries 0, s-1, -s, -1; random)
 *     rotating; NonZero over every input type and rank with densities 0 to
 *     1.  dmlref fuzz draws its random cases the same way (random_case).
 *   - The hand-written cases, data rather than code: one case file each under
 *     src/suite/cases/, in the order of its LIST (NonZero's special values,
 *     special bit patterns, the seeds' worked examples corrected (D20),
 *     feature levels, one expect_error case per validation rule, output
 *     layouts past the stride-order proof (D6), out-of-range and unsigned
 *     indices (D1, D2, R-IX-3), large cases in the generator form).  The
 *     build embeds them into the command (scripts/build/embed_cases.sh,
 *     case_files.h), so gen needs no source tree; each file's path must be
 *     its case's name.
 */
#include "base/printf_like.h"
#include "suite/suite.h"

#include "core/core.h"
#include "suite/case_files.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* ---- a string builder ------------------------------------------------------ */

typedef struct builder {
    char *data;
    size_t length, capacity;
} builder;

PRINTF_LIKE(2, 3)
static void put(builder *b, const char *format, ...)
{
    va_list args;
    int n;
    for (;;) {
        size_t room = b->capacity - b->length;
        va_start(args, format);
        n = vsnprintf(b->data ? b->data + b->length : NULL, room, format, args); /* no NULL + 0 */
        va_end(args);
        if (n >= 0 && (size_t)n < room) {
            b->length += (size_t)n;
            return;
        }
        b->capacity = 2 * b->capacity + (n > 0 ? (size_t)n : 0) + 64;
        b->data = realloc(b->data, b->capacity);
        if (!b->data) {
            fprintf(stderr, "dmlref gen: out of memory\n");
            exit(EXIT_BAD_INPUT);
        }
    }
}

/* ---- the suite's state ---------------------------------------------------- */

typedef struct manifest_entry {
    char *path;
    uint64_t digest;
} manifest_entry;

typedef struct suite {
    const char *out_dir;
    uint32_t threads;
    gen_rng r;
    manifest_entry *entries;
    size_t entry_count, entry_capacity;
    unsigned long failures;
    int write_failed; /* a file could not be written: the rest is not tried */
    /* coverage: positive cases per operator (the generator's order) and data
       type / index type / rank; error cases per status and rule */
    unsigned long by_type[GEN_MAX_OPERATORS][12], by_index[GEN_MAX_OPERATORS][12],
        by_rank[GEN_MAX_OPERATORS][9];
    unsigned long positive, errors, large;
    char error_rules[128][64];
    unsigned long error_counts[128];
    size_t error_kinds;
    /* dmlref fuzz: emit() keeps the case text here instead of evaluating it */
    int capture;
    char *captured;
    size_t captured_length;
} suite;

uint64_t random_next(uint64_t *state)
{
    gen_rng r;
    uint64_t value;
    r.state = *state;
    value = gen_next(&r);
    *state = r.state;
    return value;
}

static const char *lower(const char *s, char *buf, size_t capacity)
{
    size_t i;
    for (i = 0; s[i] && i + 1 < capacity; ++i)
        buf[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
    buf[i] = '\0';
    return buf;
}

static uint64_t element_count(const dmlref_tensor_desc *t)
{
    uint64_t n = 1;
    uint32_t d;
    for (d = 0; d < t->DimensionCount; ++d)
        n *= t->Sizes[d];
    return n;
}

/* Counts a case in the README's tables: a refusal by status and rule; a
   positive case by operator and its input's data type and rank, by its index
   type, and as large when an input has a million elements or more. */
static void count_case(suite *s, const dmlref_vector *v)
{
    const dmlref_operator_desc *op = dmlref_vector_operator(v);
    const operator_info *row = operator_find(op->Type);
    const dmlref_tensor_desc *tensors[GEN_TENSORS];
    dmlref_status status;
    const char *rule;
    size_t slot = gen_operator_index(op->Type), i;
    if (dmlref_vector_expects_error(v, &status, &rule)) {
        char key[64];
        snprintf(key, sizeof key, "%s %s", dmlref_status_name(status), rule);
        for (i = 0; i < s->error_kinds; ++i)
            if (strcmp(s->error_rules[i], key) == 0)
                break;
        if (i == s->error_kinds && s->error_kinds < 128)
            strcpy(s->error_rules[s->error_kinds++], key);
        if (i < 128)
            ++s->error_counts[i];
        ++s->errors;
        return;
    }
    if (!row || slot >= GEN_MAX_OPERATORS)
        return;
    operator_desc_tensors(row, op->Desc, tensors);
    ++s->positive;
    ++s->by_type[slot][tensors[0]->DataType];
    ++s->by_rank[slot][tensors[0]->DimensionCount];
    for (i = 0; i < row->input_count; ++i)
        if (row->tensors[i].flags & OPERATOR_SLOT_INDICES)
            ++s->by_index[slot][tensors[i]->DataType];
    for (i = 0; i < row->input_count; ++i)
        if (element_count(tensors[i]) >= 1000000u) {
            ++s->large;
            break;
        }
}

/* Evaluates a case (JSON text, outputs without expected) with the library
   and writes its vector, `relative` (e.g. "gather_nd/float32/2d/x.json"),
   into the suite.  `named`: the case's name must be `relative` without its
   ".json" (a case file's path is its name). */
static void emit_text(suite *s, const char *relative, const char *case_json, size_t case_length,
                      int named)
{
    dmlref_vector_read_options options = {DMLREF_VECTOR_READ_CASE, 0};
    dmlref_vector *v;
    dmlref_error err;
    char path[4096], *text;
    size_t length;
    dmlref_status status;

    if (s->write_failed) /* the rest would fail the same way: a full disk */
        return;
    if (snprintf(path, sizeof path, "%s/%s", s->out_dir, relative) >= (int)sizeof path) {
        fprintf(stderr, "dmlref gen: %s/%s: the path is too long\n", s->out_dir, relative);
        ++s->failures, s->write_failed = 1;
        return;
    }
    status = dmlref_vector_parse(case_json, case_length, relative, &options, &v, &err);
    if (status != DMLREF_OK) {
        fprintf(stderr, "dmlref gen: %s\n", err.message);
        ++s->failures;
        return;
    }
    if (named) {
        const char *name = dmlref_vector_name(v);
        size_t n = strlen(name);
        if (strncmp(name, relative, n) != 0 || strcmp(relative + n, ".json") != 0) {
            fprintf(stderr,
                    "dmlref gen: %s: $.name: \"%s\" is not the case file's path "
                    "without \".json\"\n",
                    relative, name);
            ++s->failures;
            dmlref_vector_free(v);
            return;
        }
    }
    status = dmlref_vector_eval_with(v, s->threads, DMLREF_VECTOR_EVAL_DIGESTS, &err);
    if (status == DMLREF_OK)
        status = dmlref_vector_write(v, &text, &length, &err);
    if (status != DMLREF_OK) {
        fprintf(stderr, "dmlref gen: %s\n", err.message);
        ++s->failures;
        dmlref_vector_free(v);
        return;
    }
    if (!write_file(path, text, length)) {
        ++s->failures, s->write_failed = 1;
        free(text);
        dmlref_vector_free(v);
        return;
    }
    if (s->entry_count == s->entry_capacity) {
        s->entry_capacity = s->entry_capacity ? 2 * s->entry_capacity : 1024;
        s->entries = realloc(s->entries, s->entry_capacity * sizeof *s->entries);
        if (!s->entries) {
            fprintf(stderr, "dmlref gen: out of memory\n");
            exit(EXIT_BAD_INPUT);
        }
    }
    s->entries[s->entry_count].path = malloc(strlen(relative) + 1);
    if (!s->entries[s->entry_count].path)
        exit(EXIT_BAD_INPUT);
    strcpy(s->entries[s->entry_count].path, relative);
    s->entries[s->entry_count++].digest = XXH3_64bits(text, length);
    free(text);
    count_case(s, v);
    dmlref_vector_free(v);
}

/* A drawn case, named `name`: its text to emit_text, or (dmlref fuzz) kept,
   with special float values among its inputs. */
static void emit(suite *s, gen_case *c, const char *name)
{
    char relative[256], *text;
    size_t length;
    if (s->capture)
        gen_sprinkle_specials(&s->r, c);
    if (!gen_case_text(c, name, &text, &length)) {
        fprintf(stderr, "dmlref gen: out of memory\n");
        exit(EXIT_BAD_INPUT);
    }
    if (s->capture) {
        free(s->captured);
        s->captured = text;
        s->captured_length = length;
    } else {
        snprintf(relative, sizeof relative, "%s.json", name);
        emit_text(s, relative, text, length, 0);
        free(text);
    }
    gen_free(c);
}

/* Draws the request's case from the suite's stream and emits it.  Names are
   lower case, `<operator>/<dtype>/<rank>d/<scenario>`; the scenario is
   `<parameters>_<index type>_<layout>`, for an operator without indices
   `density<per mille>_<parameters>_<layout>`, or `fuzz` (density < 0). */
static void draw_case(suite *s, const gen_request *q, int density)
{
    gen_case c;
    char name[200], op[32], type[16], index_type[16], params[64], scenario[128];
    if (!gen_make(&s->r, q, &c)) {
        fprintf(stderr, "dmlref gen: a %s case cannot be drawn\n", dmlref_operator_name(q->op));
        exit(EXIT_BAD_INPUT);
    }
    gen_params_text(&c, "", "_", params, sizeof params);
    if (gen_has_indices(q->op))
        snprintf(scenario, sizeof scenario, "%s_%s_%s", params,
                 lower(dmlref_data_type_name(q->index_type), index_type, sizeof index_type),
                 gen_layout_name(q->layout));
    else if (density >= 0)
        snprintf(scenario, sizeof scenario, "density%d_%s_%s", density, params,
                 gen_layout_name(q->layout));
    else
        snprintf(scenario, sizeof scenario, "fuzz");
    snprintf(name, sizeof name, "%s/%s/%ud/%s", lower(dmlref_operator_name(q->op), op, sizeof op),
             lower(dmlref_data_type_name(q->type), type, sizeof type), q->rank, scenario);
    emit(s, &c, name);
}

/* ---- the sweeps ------------------------------------------------------------------ */

/* One case of an operator with indices at sweep point (type ti, index type
   xi, rank), its `turn`-th there: the axis and the layout rotate. */
static void indexed_case(suite *s, dmlref_operator_type op, uint32_t ti, uint32_t xi, uint32_t rank,
                         uint32_t turn)
{
    const gen_sweep *w = gen_operator_sweep(op);
    size_t count;
    const dmlref_tensor_data_type *types = gen_data_types(op, &count);
    gen_request q;
    if (ti >= count)
        return;
    gen_request_init(&q, op, types[ti], gen_index_types[xi], rank);
    q.layout = (gen_layout)((ti + xi + rank + 2 * turn + w->layout_turn) % GEN_SUITE_LAYOUTS);
    if (w->axis_turn != GEN_DRAW)
        q.params[0] = (ti + xi * 3 + turn * 5 + w->axis_turn) % rank;
    draw_case(s, &q, -1);
}

/* The operators with indices over every data type, index type and rank
   (gen_sweep: those next to each other with as many cases a point take
   turns), then those without over their data types, ranks and densities
   of non-zero values 0, 1/4, 5/8 and 1. */
static void sweeps(suite *s)
{
    static const uint32_t eighths[4] = {0, 2, 5, 8};
    const size_t ops = gen_operator_count();
    size_t first, last, o, count;
    uint32_t ti, xi, rank, turn;
    for (ti = 0; ti < 11; ++ti)
        for (xi = 0; xi < 4; ++xi)
            for (rank = 1; rank <= 8; ++rank)
                for (first = 0; first < ops; first = last) {
                    const uint32_t cases = gen_operator_sweep(gen_operator_at(first))->cases;
                    for (last = first + 1;
                         last < ops && gen_operator_sweep(gen_operator_at(last))->cases == cases;
                         ++last)
                        ;
                    for (turn = 0; turn < cases; ++turn)
                        for (o = first; o < last; ++o)
                            if (gen_has_indices(gen_operator_at(o)))
                                indexed_case(s, gen_operator_at(o), ti, xi, rank, turn);
                }
    for (o = 0; o < ops; ++o) {
        const dmlref_operator_type op = gen_operator_at(o);
        const gen_sweep *w = gen_operator_sweep(op);
        const dmlref_tensor_data_type *types = gen_data_types(op, &count);
        if (gen_has_indices(op))
            continue;
        for (ti = 0; ti < count; ++ti)
            for (rank = 1; rank <= 8; ++rank)
                for (turn = 0; turn < w->cases; ++turn) {
                    gen_request q;
                    gen_request_init(&q, op, types[ti], gen_index_types[0], rank);
                    q.layout =
                        (gen_layout)((ti + rank + turn + w->layout_turn) % GEN_SUITE_LAYOUTS);
                    q.nonzero[0] = eighths[turn % 4];
                    q.nonzero[1] = 8;
                    draw_case(s, &q, (int)eighths[turn % 4] * 125);
                }
    }
}

/* ---- the hand-written cases ------------------------------------------------------ */

static void case_files(suite *s)
{
    size_t i;
    for (i = 0; i < suite_case_file_count; ++i)
        emit_text(s, suite_case_files[i].path, (const char *)suite_case_files[i].text,
                  suite_case_files[i].length, 1);
}

/* ---- the manifest and the coverage table ---------------------------------------- */

static int compare_entries(const void *a, const void *b)
{
    return strcmp(((const manifest_entry *)a)->path, ((const manifest_entry *)b)->path);
}

static int write_manifest(suite *s)
{
    builder b = {NULL, 0, 0};
    char path[4096];
    size_t i;
    int ok;
    if (s->entry_count > 1) /* qsort may not be given NULL, even for 0 */
        qsort(s->entries, s->entry_count, sizeof *s->entries, compare_entries);
    put(&b, "%s", "");
    for (i = 0; i < s->entry_count; ++i)
        put(&b, "%016llx  %s\n", (unsigned long long)s->entries[i].digest, s->entries[i].path);
    snprintf(path, sizeof path, "%s/MANIFEST", s->out_dir);
    ok = write_file(path, b.data, b.length);
    free(b.data);
    return ok;
}

static int write_readme(suite *s)
{
    builder b = {NULL, 0, 0};
    char path[4096];
    size_t op, t, r, ops = gen_operator_count();
    int ok;
    unsigned long total;
    put(&b,
        "# The golden suite\n\n"
        "Written by `dmlref gen` (`make vectors`); do not edit by hand. The format is\n"
        "[FORMAT.md](FORMAT.md); `MANIFEST` lists every vector with the XXH3-64 digest of\n"
        "its bytes; `dmlref verify vectors` recomputes them all.\n\n"
        "%lu vectors: %lu positive cases (%lu of them large, in the generator form) and\n"
        "%lu cases that must be refused (`expect_error`).\n\n",
        (unsigned long)s->entry_count, s->positive, s->large, s->errors);

    put(&b, "## Positive cases by operator and data type\n\n| operator |");
    for (t = 0; t < 11; ++t)
        put(&b, " %s |", dmlref_data_type_name(gen_all_data_types[t]));
    put(&b, " total |\n|---|");
    for (t = 0; t < 11; ++t)
        put(&b, "---|");
    put(&b, "---|\n");
    for (op = 0; op < ops; ++op) {
        total = 0;
        put(&b, "| %s |", dmlref_operator_name(gen_operator_at(op)));
        for (t = 0; t < 11; ++t) {
            put(&b, " %lu |", s->by_type[op][gen_all_data_types[t]]);
            total += s->by_type[op][gen_all_data_types[t]];
        }
        put(&b, " %lu |\n", total);
    }

    put(&b, "\n## Positive cases by operator and index type\n\n| operator |");
    for (t = 0; t < 4; ++t)
        put(&b, " %s |", dmlref_data_type_name(gen_index_types[t]));
    put(&b, "\n|---|---|---|---|---|\n");
    for (op = 0; op < ops; ++op) {
        if (!gen_has_indices(gen_operator_at(op)))
            continue;
        put(&b, "| %s |", dmlref_operator_name(gen_operator_at(op)));
        for (t = 0; t < 4; ++t)
            put(&b, " %lu |", s->by_index[op][gen_index_types[t]]);
        put(&b, "\n");
    }

    put(&b, "\n## Positive cases by operator and rank\n\n| operator |");
    for (r = 1; r <= 8; ++r)
        put(&b, " %zud |", r);
    put(&b, "\n|---|---|---|---|---|---|---|---|---|\n");
    for (op = 0; op < ops; ++op) {
        put(&b, "| %s |", dmlref_operator_name(gen_operator_at(op)));
        for (r = 1; r <= 8; ++r)
            put(&b, " %lu |", s->by_rank[op][r]);
        put(&b, "\n");
    }

    put(&b, "\n## Cases that must be refused, by status and rule\n\n| status | rule | cases |\n"
            "|---|---|---|\n");
    for (r = 0; r < s->error_kinds; ++r) {
        char status[64], *rule;
        snprintf(status, sizeof status, "%s", s->error_rules[r]);
        rule = strchr(status, ' ');
        *rule++ = '\0';
        put(&b, "| %s | %s | %lu |\n", status, rule, s->error_counts[r]);
    }
    snprintf(path, sizeof path, "%s/README.md", s->out_dir);
    ok = write_file(path, b.data, b.length);
    free(b.data);
    return ok;
}

/* The suite is built in a temporary folder beside out_dir and renamed into
   place complete: out_dir holds a whole suite or is left as it was (new or
   empty), even when the disk fills up or another gen writes there too. */
int generate_suite(const char *out_dir, uint64_t seed, const char *profile, uint32_t threads)
{
    suite *s;
    char *building;
    size_t i;
    int code;
    if (strcmp(profile, "default") != 0) {
        fprintf(stderr, "dmlref gen: \"%s\" is not a profile (default)\n", profile);
        return EXIT_USAGE;
    }
    s = calloc(1, sizeof *s);
    if (!s)
        return EXIT_BAD_INPUT;
    if (!(building = begin_new_folder(out_dir))) {
        free(s);
        return EXIT_BAD_INPUT;
    }
    s->out_dir = building;
    s->threads = threads;
    s->r.state = seed;
    sweeps(s);
    case_files(s);
    if (!s->write_failed && (!write_manifest(s) || !write_readme(s)))
        ++s->failures;
    if (!finish_new_folder(building, out_dir, s->failures == 0)) {
        s->failures += !s->failures; /* the rename failed */
        fprintf(stderr, "dmlref gen: %s: left as it was: no file of the suite was written\n",
                out_dir);
    }
    printf("%lu passed, %lu failed, 0 skipped\n", (unsigned long)s->entry_count, s->failures);
    code = s->failures ? EXIT_BAD_INPUT : EXIT_OK;
    for (i = 0; i < s->entry_count; ++i)
        free(s->entries[i].path);
    free(s->entries);
    free(s);
    return code;
}

/* ---- random cases for dmlref fuzz -------------------------------------------- */

int random_case(uint64_t *state, dmlref_operator_type op, char **text, size_t *length)
{
    suite *s = calloc(1, sizeof *s);
    gen_request q;
    uint32_t rank;
    size_t count;
    dmlref_tensor_data_type type, index_type;
    const dmlref_tensor_data_type *types;
    gen_layout kind;
    if (!s)
        return 0;
    s->capture = 1;
    s->r.state = *state;
    s->out_dir = ".";
    if (!op)
        op = gen_operator_at(gen_below(&s->r, (uint32_t)gen_operator_count()));
    rank = 1 + gen_below(&s->r, 8);
    type = gen_all_data_types[gen_below(&s->r, 11)];
    index_type = gen_index_types[gen_below(&s->r, 4)];
    kind = (gen_layout)gen_below(&s->r, GEN_SUITE_LAYOUTS);
    types = gen_data_types(op, &count);
    if (types != gen_all_data_types) /* an operator that takes fewer types draws again */
        type = types[gen_below(&s->r, (uint32_t)count)];
    gen_request_init(&q, op, type, index_type, rank);
    q.layout = kind;
    if (!gen_has_indices(op)) { /* a density drawn with the values */
        q.nonzero[0] = GEN_DRAW;
        q.nonzero[1] = 8;
    }
    draw_case(s, &q, -1);
    *state = s->r.state;
    *text = s->captured;
    *length = s->captured_length;
    free(s);
    return *text != NULL;
}
