/*
 * scatter_elements.c - computes reference/scatter_elements.c
 * (DML_OPERATOR_SCATTER_ELEMENTS; its semantics and policies, the last of
 * duplicate updates winning (D4) among them, are stated there), bit for
 * bit: the fast-versus-reference comparator (src/core/kernels_compare.c),
 * which dmlref fuzz, eval and verify --kernels fast and
 * tests/unit/test_random.c run, proves it.
 *
 * How it is fast: an update at u lands on the output line through u along
 * the axis, and the updates' lines are the output's (R-SC-4, R-SC-6).  A
 * thread owns whole lines and applies each line's updates in ascending
 * axis order, their row-major order, so the last one wins for any thread
 * count, with no lock; an update that the next one overwrites is skipped
 * (runs.c).  Lines with a short trail (the dimensions after the axis) are
 * copied and then scattered into while in cache, or built in a buffer and
 * streamed out; lines with a long trail are walked along the trail, so
 * rows are read, not columns, after a copy of the whole output.
 */
#include "kernels/kernels.h"

#include <stdlib.h>

/* Lines with at least this many trail positions per lead are walked along
   the trail; shorter ones along the axis. */
#define TRAIL_RUN_MIN 64

/* A line along the axis of an output larger than the cache (at least
   STREAM_MIN_BYTES), packed along the axis and at most this many bytes, is
   built in a buffer of the thread's own, from the input and then the
   updates, and written out with streaming stores.  Built in place, every
   line of the output is first read into the cache (the stores' read for
   ownership) only to be overwritten: the output's bytes move twice, not
   once.  (The buffer comes from malloc, not the stack, which is small in
   some builds; without it, the lines are built in place.) */
#define STAGED_LINE_BYTES 32768u

/* The tensors of the line walks, in walker slot order; the walk along the
   trail has the first three (its copy goes by copy_over_runs). */
enum { UPD, IDX, OUT, IN };

/* What the walk along the trail needs, besides a lead's offsets.  The
   trail is not cut into cache-sized blocks of columns: the strided rows
   that would read cost more than the cache saves. */
typedef struct trail_walk {
    unsigned char *out;
    const unsigned char *upd, *idx;
    uint32_t element_size, index_size;
    const index_axis *selector;
    int request_updates;    /* scatter_indexed_run's */
    uint64_t axis_step[IN]; /* of UPD, IDX and OUT */
    runs trail;
} trail_walk;

/* Applies the updates of trail positions [from, to) at one axis position
   (base: each tensor's offset there). */
static void trail_pass(const trail_walk *w, const uint64_t *base, uint64_t from, uint64_t to)
{
    const uint32_t es = w->element_size;
    runs my = w->trail;
    uint64_t p = from, j;
    if (my.outer.rank == 0) /* the usual case, one run: no division to find it */
        j = from;
    else
        j = runs_seek(&my, p);
    while (p < to) {
        uint64_t count = run_length(&my, j, to - p), at[IN];
        int t;
        for (t = 0; t < IN; ++t)
            at[t] = base[t] + my.outer.offset[t] + j * my.step[t];
        scatter_indexed_run(w->out + at[OUT] * es, my.step[OUT], w->upd + at[UPD] * es,
                            my.step[UPD], w->idx + at[IDX] * w->index_size, my.step[IDX],
                            w->selector, count, es, w->request_updates, NULL);
        p += count;
        j = 0;
        walker_next(&my.outer);
    }
}

/* copy_run over positions [begin, end) of a walk whose tensors are, in
 * slot order, the output and the input: the copy of the lines walked along
 * the trail, which all come before any update lands: the output in
 * row-major order, a contiguous part per thread, and then a barrier.  Each
 * thread copying its own lines instead would read and write a short piece
 * of every row, which the prefetchers follow badly. */
static void copy_over_runs(const runs *shape, uint64_t begin, uint64_t end, unsigned char *out,
                           const unsigned char *in, uint32_t es)
{
    runs my = *shape;
    uint64_t j = runs_seek(&my, begin);
    while (begin < end) {
        uint64_t count = run_length(&my, j, end - begin);
        copy_run(out + (my.outer.offset[0] + j * my.step[0]) * es, my.step[0],
                 in + (my.outer.offset[1] + j * my.step[1]) * es, my.step[1], count, es);
        begin += count;
        j = 0;
        walker_next(&my.outer);
    }
}

dmlref_status dmlref_fast_scatter_elements(const kernel_context *ctx,
                                           const dmlref_scatter_elements_desc *desc,
                                           const void *input, const void *indices,
                                           const void *updates, void *output, dmlref_error *err)
{
    const unsigned char *in = input, *idx = indices, *upd = updates;
    unsigned char *out = output;
    layout in_l, idx_l, upd_l, out_l;
    uint64_t lead_count = 1, trail_count = 1, line_count, line_length, out_axis_length;
    uint64_t lead_sizes[MAX_RANK], trail_sizes[MAX_RANK], lead_strides[4][MAX_RANK],
        trail_strides[4][MAX_RANK], axis_step[4];
    uint32_t axis = desc->Axis, es, d, t, trail_rank;
    index_axis selector, packed_selector;
    walker lead_full, trail_full;
    int staged = 0;      /* lines built in a buffer of their own and streamed out */
    int request_updates; /* scatter_indexed_run's: an output not in a core's cache */
    runs lead, copy_runs;
    trail_walk walk;
    int team = team_size(ctx->num_threads);
    (void)team;

    layout_from_desc(desc->InputTensor, &in_l);
    layout_from_desc(desc->IndicesTensor, &idx_l);
    layout_from_desc(desc->UpdatesTensor, &upd_l);
    layout_from_desc(desc->OutputTensor, &out_l);
    es = out_l.element_size;
    selector.type = desc->IndicesTensor->DataType;
    selector.size = out_l.sizes[axis];
    selector.stride = out_l.strides[axis];

    if (!ctx->clamp) {
        uint64_t bad =
            find_out_of_range(&idx_l, idx, selector.type, &selector.size, 1, ctx->num_threads);
        if (bad != NO_INDEX)
            return report_out_of_range(err, ctx->op_name, &idx_l, idx, selector.type, bad,
                                       selector.size, "OutputTensor", axis, "D2");
    }

    /* Split the updates' shape into lead (before the axis), axis and trail
       (after it), with each tensor's strides; lines are (lead, trail). */
    {
        const layout *by_slot[4] = {&upd_l, &idx_l, &out_l, &in_l};
        for (t = 0; t < 4; ++t) {
            for (d = 0; d < axis; ++d)
                lead_strides[t][d] = by_slot[t]->strides[d];
            for (d = axis + 1; d < upd_l.rank; ++d)
                trail_strides[t][d - axis - 1] = by_slot[t]->strides[d];
            axis_step[t] = by_slot[t]->strides[axis];
        }
    }
    for (d = 0; d < axis; ++d) {
        lead_sizes[d] = upd_l.sizes[d];
        lead_count *= lead_sizes[d];
    }
    trail_rank = upd_l.rank - axis - 1;
    for (d = axis + 1; d < upd_l.rank; ++d) {
        trail_sizes[d - axis - 1] = upd_l.sizes[d];
        trail_count *= upd_l.sizes[d];
    }
    line_count = lead_count * trail_count;
    line_length = upd_l.sizes[axis];
    out_axis_length = out_l.sizes[axis];
    request_updates = layout_element_count(&out_l) * es >= REQUEST_MIN_BYTES;

    /* Lines walked along the trail: a walk over the lead dimensions, and
       runs over the trail.  Lines walked along the axis: runs over the
       (lead, trail) positions, one line at a time. */
    walker_init(&lead_full, axis, lead_sizes);
    walker_init(&trail_full, trail_rank, trail_sizes);
    for (t = 0; t < IN; ++t) {
        walker_add(&lead_full, lead_strides[t]);
        walker_add(&trail_full, trail_strides[t]);
    }
    if (trail_count >= TRAIL_RUN_MIN) {
        walker copy_full;
        walker_init(&copy_full, out_l.rank, out_l.sizes);
        walker_add(&copy_full, out_l.strides);
        walker_add(&copy_full, in_l.strides);
        runs_init(&copy_runs, &copy_full);
        walker_coalesce(&lead_full);
        runs_init(&walk.trail, &trail_full);
        walk.out = out;
        walk.upd = upd;
        walk.idx = idx;
        walk.element_size = es;
        walk.index_size = idx_l.element_size;
        walk.selector = &selector;
        walk.request_updates = request_updates;
        memcpy(walk.axis_step, axis_step, sizeof walk.axis_step);
    } else {
        walker lines_full; /* lead and trail dimensions together */
        uint64_t line_sizes[MAX_RANK];
        staged = STREAMED_BYTES && axis_step[OUT] == 1 &&
                 out_axis_length * es <= STAGED_LINE_BYTES &&
                 layout_element_count(&out_l) * es >= STREAM_MIN_BYTES;
        packed_selector = selector; /* the line, packed in the buffer */
        packed_selector.stride = 1;
        memcpy(line_sizes, upd_l.sizes, sizeof line_sizes);
        line_sizes[axis] = 1;
        walker_init(&lines_full, upd_l.rank, line_sizes);
        walker_add(&lines_full, upd_l.strides);
        walker_add(&lines_full, idx_l.strides);
        walker_add(&lines_full, out_l.strides);
        walker_add(&lines_full, in_l.strides);
        runs_init(&lead, &lines_full);
    }

#pragma omp parallel num_threads(team) if (line_count * out_axis_length >= PARALLEL_MIN_ELEMENTS)
    {
        int t_id = thread_index(), n = thread_total();
        uint32_t slot; /* a walker slot: UPD, IDX, OUT or IN */
        uint64_t line = chunk_begin(line_count, t_id, n),
                 end = chunk_begin(line_count, t_id + 1, n);

        if (trail_count >= TRAIL_RUN_MIN) {
            walker my_lead = lead_full;
            uint64_t l = line / trail_count, total = line_count * out_axis_length;
            /* output = input: every thread a part of the output in row-major
               order, and all of it before any update lands */
            copy_over_runs(&copy_runs, chunk_begin(total, t_id, n), chunk_begin(total, t_id + 1, n),
                           out, in, es);
#pragma omp barrier
            walker_seek(&my_lead, l);
            for (; line < end; ++l, walker_next(&my_lead)) {
                /* this lead's trail positions [first, last) */
                uint64_t first = line - l * trail_count;
                uint64_t last =
                    end - l * trail_count < trail_count ? end - l * trail_count : trail_count;
                uint64_t i, base[IN];
                for (i = 0; i < line_length; ++i) { /* ascending: the last update wins (D4) */
                    for (slot = 0; slot < IN; ++slot)
                        base[slot] =
                            my_lead.offset[slot] + (slot == OUT ? 0 : i * walk.axis_step[slot]);
                    trail_pass(&walk, base, first, last);
                }
                line = l * trail_count + last;
            }
        } else {
            runs my = lead;
            uint64_t j = runs_seek(&my, line);
            unsigned char *buffer = staged ? malloc(STAGED_LINE_BYTES) : NULL;
            for (; line < end; ++line) {
                uint64_t at[4];
                for (slot = 0; slot < 4; ++slot)
                    at[slot] = my.outer.offset[slot] + j * my.step[slot];
                if (buffer) { /* the line, built in the buffer, then streamed out */
                    /* the next line's input, requested while this one's
                       updates land, where it is packed (at the end of a
                       run, none) */
                    const unsigned char *next_line = axis_step[IN] == 1 && j + 1 < my.length
                                                         ? in + (at[IN] + my.step[IN]) * es
                                                         : NULL;
                    copy_run(buffer, 1, in + at[IN] * es, axis_step[IN], out_axis_length, es);
                    scatter_indexed_run(buffer, 0, upd + at[UPD] * es, axis_step[UPD],
                                        idx + at[IDX] * idx_l.element_size, axis_step[IDX],
                                        &packed_selector, line_length, es, request_updates,
                                        next_line);
                    stream_bytes(out + at[OUT] * es, buffer, (size_t)(out_axis_length * es));
                } else {
                    /* the line of the output = the input's */
                    copy_run(out + at[OUT] * es, axis_step[OUT], in + at[IN] * es, axis_step[IN],
                             out_axis_length, es);
                    scatter_indexed_run(out + at[OUT] * es, 0, upd + at[UPD] * es, axis_step[UPD],
                                        idx + at[IDX] * idx_l.element_size, axis_step[IDX],
                                        &selector, line_length, es, request_updates, NULL);
                }
                if (++j == my.length) {
                    j = 0;
                    walker_next(&my.outer);
                }
            }
            if (buffer)
                streamed_stores_done();
            free(buffer);
        }
    }
    return DMLREF_OK;
}
