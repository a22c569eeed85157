/*
 * nonzero_coordinates.c - computes reference/nonzero_coordinates.c
 * (DML_OPERATOR_NONZERO_COORDINATES; its semantics and policies are stated
 * there), bit for bit: the fast-versus-reference comparator
 * (src/core/kernels_compare.c), which dmlref fuzz, eval and verify
 * --kernels fast and tests/unit/test_random.c run, proves it.
 *
 * How it is fast, and on several threads: two passes over one static
 * split.  Pass 1 counts each chunk's non-zero elements over the input's
 * coalesced runs, with no branch (it vectorises); a prefix sum gives each
 * chunk its first row, where a serial walk would put it.  Pass 2 walks
 * lines along the last dimension longer than 1 and keeps only the moving
 * coordinate of each non-zero element, with no branch on the data, spelling
 * the rows out when it writes them.  Groups of zeros are skipped, which
 * makes sparse inputs cheap.  Rows past the count are never written.
 */
#include "kernels/kernels.h"

#include <stdlib.h>

/* Rows kept in the buffer before they are written out. */
#define ROW_BLOCK 256
/* Elements tested together for "all zero". */
#define ZERO_GROUP 64

/* The bits that make an element non-zero: all of an integer's; a float's
 * without its sign bit, so -0.0 is zero and every NaN is not (R-NZ-8, 9). */
static uint32_t value_bits(dmlref_tensor_data_type type)
{
    switch (type) {
    case DMLREF_TENSOR_DATA_TYPE_FLOAT32:
        return 0x7FFFFFFFu;
    case DMLREF_TENSOR_DATA_TYPE_FLOAT16:
        return 0x7FFFu;
    default:
        return 0xFFFFFFFFu; /* narrower integers use the low bits */
    }
}

/* The number of elements p[j * step], j < n, with some of `bits` set.  A
 * contiguous input goes in groups of a fixed ZERO_GROUP elements: a loop
 * whose trip count the compiler knows, which it turns into vector code. */
static uint64_t count_nonzero(const unsigned char *p, uint64_t step, uint64_t n,
                              uint32_t element_size, uint32_t bits)
{
    uint64_t count = 0, j = 0;
    FOR_ELEMENT_SIZE(element_size, {
        const T mask = (T)bits;
        if (step == 1)
            for (; j + ZERO_GROUP <= n; j += ZERO_GROUP) {
                uint32_t group = 0, i;
                for (i = 0; i < ZERO_GROUP; ++i) {
                    T v;
                    memcpy(&v, p + (j + i) * sizeof(T), sizeof(T));
                    group += (v & mask) != 0;
                }
                count += group;
            }
        for (; j < n; ++j) {
            T v;
            memcpy(&v, p + j * step * sizeof(T), sizeof(T));
            count += (v & mask) != 0;
        }
    })
    return count;
}

/* Pass 2's rows for one line of the input (a run along dimension
 * `moving`): every column but `moving` is the same for the whole line, so
 * the buffer keeps only the moving coordinate of each non-zero element and
 * the rows are spelled out when the buffer is written.  Only kept rows
 * leave the buffer, so rows at or past the count are never written. */
typedef struct row_writer {
    uint32_t line[MAX_RANK]; /* the line's row, its moving column aside */
    uint32_t columns, moving;
    uint32_t kept;
    uint32_t moving_values[ROW_BLOCK + 1]; /* +1: the write for a zero element */
    uint64_t next;                         /* the row the buffer starts at */
    unsigned char *coords;
    uint64_t row_stride, column_stride;
} row_writer;

static void flush_rows(row_writer *w)
{
    uint32_t i, c;
    for (i = 0; i < w->kept; ++i) {
        unsigned char *row = w->coords + (w->next + i) * w->row_stride * 4;
        w->line[w->moving] = w->moving_values[i];
        for (c = 0; c < w->columns; ++c)
            memcpy(row + c * w->column_stride * 4, &w->line[c], 4);
    }
    w->next += w->kept;
    w->kept = 0;
}

/* Keeps the rows of the non-zero elements among p[j * step], j < n, whose
 * moving coordinates are first, first + 1, ...  No branch on the data: each
 * element's coordinate is written, and the count of kept rows moves past it
 * only when the element is non-zero.  Groups that are all zero are
 * skipped. */
static void keep_nonzero_rows(row_writer *w, const unsigned char *p, uint64_t step, uint64_t n,
                              uint32_t first, uint32_t element_size, uint32_t bits)
{
    uint64_t group, j;
    uint32_t kept = w->kept;
    for (group = 0; group < n; group += ZERO_GROUP) {
        uint64_t end = n - group < ZERO_GROUP ? n : group + ZERO_GROUP;
        if (count_nonzero(p + group * step * element_size, step, end - group, element_size, bits) ==
            0)
            continue;
        FOR_ELEMENT_SIZE(element_size, {
            for (j = group; j < end; ++j) {
                T v;
                memcpy(&v, p + j * step * sizeof(T), sizeof(T));
                w->moving_values[kept] = first + (uint32_t)j;
                kept += (v & (T)bits) != 0;
                if (kept == ROW_BLOCK) {
                    w->kept = kept;
                    flush_rows(w);
                    kept = 0;
                }
            }
        })
    }
    w->kept = kept;
}

dmlref_status dmlref_fast_nonzero_coordinates(const kernel_context *ctx,
                                              const dmlref_nonzero_coordinates_desc *desc,
                                              const void *input, void *output_count,
                                              void *output_coordinates, dmlref_error *err)
{
    const unsigned char *in = input;
    layout in_l, co_l;
    uint64_t total, *chunk_rows, line_sizes[MAX_RANK];
    uint32_t D, N, moving, count, bits, es;
    walker flat_full, lines_full;
    runs flat;
    int team = team_size(ctx->num_threads), team_used = 1;

    layout_from_desc(desc->InputTensor, &in_l);
    layout_from_desc(desc->OutputCoordinatesTensor, &co_l);
    total = layout_element_count(&in_l);
    D = in_l.rank;
    N = (uint32_t)co_l.sizes[co_l.rank - 1];
    es = in_l.element_size;
    bits = value_bits(desc->InputTensor->DataType);
    if (total < PARALLEL_MIN_ELEMENTS)
        team = 1;

    /* Pass 1 walks coalesced runs; pass 2 walks lines along dimension
       `moving`, the last one longer than 1 (the ones after it are all 0,
       and column N-1-(D-1-moving) is the one that counts up). */
    walker_init(&flat_full, D, in_l.sizes);
    walker_add(&flat_full, in_l.strides);
    runs_init(&flat, &flat_full);
    for (moving = D - 1; moving > D - N && in_l.sizes[moving] == 1; --moving)
        ; /* (dimensions before D - N all have size 1: R-NZ-5) */
    memcpy(line_sizes, in_l.sizes, sizeof line_sizes);
    line_sizes[moving] = 1;
    walker_init(&lines_full, D, line_sizes);
    walker_add(&lines_full, in_l.strides);

    /* chunk_rows[t] = the first row of chunk t; the team may come out
       smaller than asked, never larger */
    chunk_rows = calloc((size_t)team + 1, sizeof *chunk_rows);
    if (!chunk_rows)
        return set_error(err, DMLREF_ERROR_OUT_OF_MEMORY, "",
                         "%s: out of memory for %d per-thread counts", ctx->op_name, team);

#pragma omp parallel num_threads(team)
    {
        int t = thread_index(), n = thread_total();
        uint64_t begin = chunk_begin(total, t, n), end = chunk_begin(total, t + 1, n);
        uint64_t e = begin, rows = 0, j, line_length = in_l.sizes[moving];
        runs my = flat;
        walker lines = lines_full;

        /* pass 1: count */
        j = runs_seek(&my, e);
        while (e < end) {
            uint64_t c = run_length(&my, j, end - e);
            rows += count_nonzero(in + (my.outer.offset[0] + j * my.step[0]) * es, my.step[0], c,
                                  es, bits);
            e += c;
            j = 0;
            walker_next(&my.outer);
        }
        chunk_rows[t + 1] = rows;
#pragma omp barrier
#pragma omp single
        {
            int i;
            for (i = 0; i < n; ++i) /* exclusive prefix sum */
                chunk_rows[i + 1] += chunk_rows[i];
            team_used = n;
        }
        /* (the implicit barrier of single publishes the sums) */

        /* pass 2: write the rows of the same chunk */
        if (chunk_rows[t + 1] > chunk_rows[t]) {
            row_writer writer; /* 1 KiB of stack per thread */
            uint32_t column;
            writer.columns = N;
            writer.moving = N - 1 - (D - 1 - moving);
            writer.kept = 0;
            writer.next = chunk_rows[t];
            writer.coords = output_coordinates;
            writer.row_stride = co_l.strides[co_l.rank - 2];
            writer.column_stride = co_l.strides[co_l.rank - 1];
            e = begin;
            walker_seek(&lines, e / line_length);
            j = e % line_length;
            while (e < end) {
                uint64_t c = line_length - j < end - e ? line_length - j : end - e;
                for (column = 0; column < N; ++column) /* right-aligned columns (D8) */
                    writer.line[column] = (uint32_t)lines.coord[D - N + column];
                keep_nonzero_rows(&writer, in + (lines.offset[0] + j * in_l.strides[moving]) * es,
                                  in_l.strides[moving], c, (uint32_t)j, es, bits);
                flush_rows(&writer); /* the next line has other columns */
                e += c;
                j = 0;
                walker_next(&lines);
            }
        }
    }
    count = (uint32_t)chunk_rows[team_used]; /* <= M <= 2^32 - 1 */
    memcpy(output_count, &count, 4);         /* every size is 1: offset 0 */
    free(chunk_rows);
    return DMLREF_OK;
}
