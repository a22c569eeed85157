/*
 * show.c - dmlref show: a vector made visible.
 *
 * Every tensor is a nested array with its shape, as numpy prints one: the
 * last dimension on one line, brackets nested, columns aligned, and a large
 * tensor summarised by its first and last elements along each dimension.
 * Where strides, padding or broadcast make memory differ from that logical
 * view, two more views follow: where each element lies (its element offset)
 * and the buffer as it lies in memory, slot by slot, '.' where no element
 * lies.  NonZero's count is a number and its coordinates a numbered matrix
 * whose columns name the input dimensions.  An output shows what a correct
 * implementation writes: '?' where any value passes, {a|b} where any one of
 * a few does.  The text depends on the vector alone, so that it can be
 * pasted into documents and compared byte for byte.
 */
#include "teach/teach.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Lines of elements are wrapped before this width. */
#define LINE_WIDTH 100
/* A tensor of more elements than this is summarised (numpy's threshold):
   EDGE_ITEMS from each end of a dimension, fewer where the cells shown
   would still be more than SHOWN_CELLS_LIMIT. */
#define SUMMARY_THRESHOLD 1000u
#define EDGE_ITEMS 3u
#define SHOWN_CELLS_LIMIT 1000u
/* NonZero's coordinate rows in use, when more than this many, are summarised
   by the first and last EDGE_ITEMS. */
#define ROWS_LIMIT 64u
/* The buffer is laid out slot by slot when it has at most this many element
   slots and its coordinates take at most this many steps to walk. */
#define MEMORY_SLOTS_LIMIT (1u << 20)
#define MEMORY_WALK_LIMIT (1u << 24)
/* The widest a line of the buffer gets, in slots. */
#define MEMORY_LINE_SLOTS 16u
/* An any_of cell lists this many values, then how many more there are. */
#define ANY_OF_SHOWN 4u
#define CELL_CAPACITY 256
/* The width of a header line's key. */
#define KEY_WIDTH 19

typedef struct shower {
    text_buffer out;
    const dmlref_vector *v;
} shower;

/* ---- text ------------------------------------------------------------------ */

static void spaces(shower *s, size_t count)
{
    text_put(&s->out, "%*s", (int)count, "");
}

/* A new line starting with `indent` spaces. */
static void newline(shower *s, size_t indent)
{
    text_put(&s->out, "\n");
    spaces(s, indent);
}

/* The column the text has reached on its last line. */
static size_t column(const shower *s)
{
    size_t i = s->out.length;
    if (s->out.failed)
        return 0;
    while (i > 0 && s->out.data[i - 1] != '\n')
        --i;
    return s->out.length - i;
}

/* "  key:           " */
static void key(shower *s, const char *name)
{
    text_put(&s->out, "  %-*s", KEY_WIDTH - 2, name);
}

/* Free text from the cursor on, wrapped before LINE_WIDTH, the lines after
   the first starting at column `indent`. */
static void wrapped(shower *s, const char *text, size_t indent)
{
    size_t at = column(s);
    int first = 1;
    while (*text) {
        size_t word = strcspn(text, " ");
        if (!first && at + 1 + word > LINE_WIDTH) {
            newline(s, indent);
            at = indent;
        } else if (!first) {
            text_put(&s->out, " ");
            ++at;
        }
        text_put(&s->out, "%.*s", (int)word, text);
        at += word;
        text += word;
        first = 0;
        while (*text == ' ')
            ++text;
    }
}

static void put_dims(shower *s, const uint32_t *dims, uint32_t count)
{
    uint32_t i;
    text_put(&s->out, "[");
    for (i = 0; i < count; ++i)
        text_put(&s->out, "%s%u", i ? ", " : "", dims[i]);
    text_put(&s->out, "]");
}

/* ---- cells ---------------------------------------------------------------- */

void bare_element(dmlref_tensor_data_type type, uint64_t bits, char *buf, size_t capacity)
{
    size_t n;
    format_element(type, bits, buf, capacity);
    n = strlen(buf);
    if (n >= 2 && buf[0] == '"') {
        memmove(buf, buf + 1, n - 2);
        buf[n - 2] = '\0';
    }
}

/* ---- text a vector gives ------------------------------------------------------ */

/* A code point a terminal would not show as itself: C1 controls, the line
   and paragraph separators, the zero-width and byte-order marks, and the
   bidirectional controls, which reorder the text around them. */
static int invisible(unsigned long c)
{
    return (c >= 0x80 && c <= 0x9f) || c == 0xad || (c >= 0x200b && c <= 0x200f) ||
           (c >= 0x2028 && c <= 0x202e) || (c >= 0x2060 && c <= 0x2069) || c == 0xfeff ||
           (c >= 0xfff9 && c <= 0xfffb);
}

/* The length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong
   form, no surrogate, nothing past U+10FFFF) and its code point, or 0. */
static size_t utf8_sequence(const unsigned char *p, unsigned long *code)
{
    size_t n, i;
    unsigned char low = 0x80, high = 0xbf;
    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        n = 2, *code = p[0] & 0x1fu;
    else if (p[0] >= 0xe0 && p[0] <= 0xef)
        n = 3, *code = p[0] & 0x0fu, low = p[0] == 0xe0 ? 0xa0 : 0x80,
        high = p[0] == 0xed ? 0x9f : 0xbf;
    else if (p[0] >= 0xf0 && p[0] <= 0xf4)
        n = 4, *code = p[0] & 0x07u, low = p[0] == 0xf0 ? 0x90 : 0x80,
        high = p[0] == 0xf4 ? 0x8f : 0xbf;
    else
        return 0;
    for (i = 1; i < n; ++i) {
        if (p[i] < (i == 1 ? low : 0x80) || p[i] > (i == 1 ? high : 0xbf))
            return 0;
        *code = (*code << 6) | (p[i] & 0x3fu);
    }
    return n;
}

/* The character at p as it is printed into unit (ESCAPE_UNIT_CAPACITY):
   itself, or an escape; returns the bytes of text it takes. */
#define ESCAPE_UNIT_CAPACITY 16
static size_t escape_unit(const unsigned char *p, int backslash, char *unit)
{
    unsigned long code;
    size_t n;
    if (*p == '\\' && backslash) {
        strcpy(unit, "\\\\");
        return 1;
    }
    if (*p == '\n' || *p == '\r' || *p == '\t') {
        sprintf(unit, "\\%c", *p == '\n' ? 'n' : *p == '\r' ? 'r' : 't');
        return 1;
    }
    if (*p >= 0x20 && *p < 0x7f) {
        unit[0] = (char)*p, unit[1] = '\0';
        return 1;
    }
    if (*p >= 0x80 && (n = utf8_sequence(p, &code)) != 0) {
        if (invisible(code))
            sprintf(unit, "\\u%04lx", code);
        else
            memcpy(unit, p, n), unit[n] = '\0';
        return n;
    }
    sprintf(unit, "\\x%02x", *p);
    return 1;
}

size_t escape_text(const char *text, int backslash, char *out, size_t capacity)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t length = 0;
    char unit[ESCAPE_UNIT_CAPACITY];
    if (capacity == 0)
        return 0;
    while (*p) {
        size_t taken = escape_unit(p, backslash, unit), n = strlen(unit);
        if (length + n + (p[taken] ? 3 : 0) >= capacity) {
            if (length + 3 < capacity)
                memcpy(out + length, "...", 3), length += 3;
            break;
        }
        memcpy(out + length, unit, n);
        length += n;
        p += taken;
    }
    out[length] = '\0';
    return length;
}

void text_put_escaped(text_buffer *t, const char *text)
{
    const unsigned char *p = (const unsigned char *)text;
    char unit[ESCAPE_UNIT_CAPACITY];
    while (*p) {
        p += escape_unit(p, 1, unit);
        text_put(t, "%s", unit);
    }
}

static const any_of_entry *any_of_at(const vtensor *x, uint64_t e)
{
    size_t low = 0, high = x->any_of_count;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (x->any_of[mid].element < e)
            low = mid + 1;
        else
            high = mid;
    }
    return low < x->any_of_count && x->any_of[low].element == e ? &x->any_of[low] : NULL;
}

/* 1 when output t holds the elements the vector gives (a case refused on
   reading says it has them, but they were not read). */
static int has_values(const vtensor *t)
{
    return t->has_expected && t->expected;
}

/* What output element e must hold: its value, '?' (any value) or {a|b}. */
static void expected_text(const vtensor *x, uint64_t e, char *buf)
{
    unsigned char kind = x->kinds ? x->kinds[e] : EXPECT_VALUE;
    const any_of_entry *entry;
    size_t j, n = 0;
    char value[ELEMENT_TEXT_CAPACITY];
    if (kind == EXPECT_NULL) {
        snprintf(buf, CELL_CAPACITY, "?");
        return;
    }
    if (kind != EXPECT_ANY_OF || !(entry = any_of_at(x, e))) {
        bare_element(x->desc.DataType, x->expected[e], buf, CELL_CAPACITY);
        return;
    }
    buf[n++] = '{';
    for (j = 0; j < entry->count && j < ANY_OF_SHOWN; ++j) {
        bare_element(x->desc.DataType, x->alternatives[entry->first + j], value, sizeof value);
        n += (size_t)snprintf(buf + n, CELL_CAPACITY - n, "%s%s", j ? "|" : "", value);
    }
    if (entry->count > ANY_OF_SHOWN)
        n += (size_t)snprintf(buf + n, CELL_CAPACITY - n, "|%llu more",
                              (unsigned long long)(entry->count - ANY_OF_SHOWN));
    snprintf(buf + n, CELL_CAPACITY - n, "}");
}

/* Where the cells of a view come from. */
enum {
    CELLS_BUFFER,   /* an input's buffer, through its strides */
    CELLS_ELEMENTS, /* an input that got no buffer: its elements as given */
    CELLS_EXPECTED, /* what an output must hold */
    CELLS_OFFSETS   /* where each element lies */
};

/* A tensor as shown: its shape, where its cells come from and, for a large
   one, how much of each dimension is shown. */
typedef struct tensor_view {
    const vtensor *t;      /* the descriptor (and buffer, elements) */
    const vtensor *expect; /* CELLS_EXPECTED: the expectations (the case's or a variant's) */
    int cells;
    uint32_t rank, element_size;
    uint64_t sizes[MAX_RANK], strides[MAX_RANK], packed[MAX_RANK];
    uint64_t count;          /* UINT64_MAX when the product does not fit */
    uint64_t edge[MAX_RANK]; /* 0: every index of the dimension; else this many from each end */
    int summarised;
} tensor_view;

/* The indices shown along dimension d. */
static uint64_t shown_count(const tensor_view *x, uint32_t d)
{
    return x->edge[d] ? 2 * x->edge[d] + 1 : x->sizes[d];
}

/* The k-th index shown along d, or UINT64_MAX for the "..." between the two ends. */
static uint64_t shown_index(const tensor_view *x, uint32_t d, uint64_t k)
{
    if (!x->edge[d] || k < x->edge[d])
        return k;
    if (k == x->edge[d])
        return UINT64_MAX;
    return x->sizes[d] - (2 * x->edge[d] + 1 - k);
}

/* Summarises a large view: EDGE_ITEMS from each end of every longer
   dimension, then fewer, a dimension at a time (the one showing the most,
   the outermost first), until at most SHOWN_CELLS_LIMIT cells are shown. */
static void summarise(tensor_view *x)
{
    uint32_t d;
    if (x->count <= SUMMARY_THRESHOLD)
        return;
    x->summarised = 1;
    for (d = 0; d < x->rank; ++d)
        if (x->sizes[d] > 2 * EDGE_ITEMS)
            x->edge[d] = EDGE_ITEMS;
    for (;;) {
        uint64_t cells = 1, most = 0, kept;
        uint32_t widest = 0;
        for (d = 0; d < x->rank; ++d) {
            uint64_t n = x->edge[d] ? 2 * x->edge[d] : x->sizes[d];
            cells = cells > UINT64_MAX / (n ? n : 1) ? UINT64_MAX : cells * n;
            if (n > most && (x->edge[d] ? x->edge[d] > 1 : n > 2)) {
                most = n;
                widest = d;
            }
        }
        if (cells <= SHOWN_CELLS_LIMIT || most == 0)
            return;
        kept = x->edge[widest] ? x->edge[widest] - 1 : (x->sizes[widest] - 1) / 2;
        x->edge[widest] = kept < EDGE_ITEMS ? kept : EDGE_ITEMS;
    }
}

static void view_init(tensor_view *x, const vtensor *t, int cells, const vtensor *expect)
{
    layout l;
    uint64_t stride = 1;
    uint32_t d;
    memset(x, 0, sizeof *x);
    layout_from_desc(&t->desc, &l);
    x->t = t;
    x->expect = expect;
    x->cells = cells;
    x->rank = l.rank;
    x->element_size = l.element_size;
    for (d = l.rank; d-- > 0;) {
        x->sizes[d] = l.sizes[d];
        x->strides[d] = l.strides[d];
        x->packed[d] = stride;
        stride *= l.sizes[d];
    }
    x->count = layout_element_count(&l);
    summarise(x);
}

/* The cell of the element at logical position e and element offset `offset`. */
static void cell_text(const tensor_view *x, uint64_t e, uint64_t offset, char *buf)
{
    dmlref_tensor_data_type type = x->t->desc.DataType;
    switch (x->cells) {
    case CELLS_BUFFER:
        bare_element(type, load_bits(x->t->buffer + offset * x->element_size, x->element_size), buf,
                     CELL_CAPACITY);
        break;
    case CELLS_ELEMENTS:
        bare_element(type, x->t->elements[e], buf, CELL_CAPACITY);
        break;
    case CELLS_EXPECTED:
        expected_text(x->expect, e, buf);
        break;
    default:
        snprintf(buf, CELL_CAPACITY, "%llu", (unsigned long long)offset);
        break;
    }
}

/* ---- nested arrays ----------------------------------------------------------- */

typedef struct nest {
    shower *s;
    const tensor_view *x;
    size_t indent; /* the column of the outermost '[' */
    size_t width;  /* of every cell, right-aligned */
    int measuring; /* the first pass: only the width is found */
} nest;

/* The sub-array along dimension d at logical position e, element offset
   `offset`. */
static void nested(nest *n, uint32_t d, uint64_t e, uint64_t offset)
{
    const tensor_view *x = n->x;
    uint64_t k, shown = shown_count(x, d);
    char cell[CELL_CAPACITY];
    if (!n->measuring)
        text_put(&n->s->out, "[");
    for (k = 0; k < shown; ++k) {
        uint64_t i = shown_index(x, d, k);
        if (d + 1 == x->rank) {
            if (i != UINT64_MAX)
                cell_text(x, e + i * x->packed[d], offset + i * x->strides[d], cell);
            if (n->measuring) {
                if (i != UINT64_MAX && strlen(cell) > n->width)
                    n->width = strlen(cell);
                continue;
            }
            if (k > 0) {
                text_put(&n->s->out, ",");
                if (column(n->s) + 1 + n->width + 2 > LINE_WIDTH)
                    newline(n->s, n->indent + d + 1);
                else
                    text_put(&n->s->out, " ");
            }
            if (i == UINT64_MAX)
                text_put(&n->s->out, "...");
            else
                text_put(&n->s->out, "%*s", (int)n->width, cell);
            continue;
        }
        if (!n->measuring && k > 0) {
            text_put(&n->s->out, ",");
            if (d + 2 < x->rank)
                text_put(&n->s->out, "\n"); /* a blank line between blocks */
            newline(n->s, n->indent + d + 1);
        }
        if (i == UINT64_MAX) {
            if (!n->measuring)
                text_put(&n->s->out, "...");
            continue;
        }
        nested(n, d + 1, e + i * x->packed[d], offset + i * x->strides[d]);
    }
    if (!n->measuring)
        text_put(&n->s->out, "]");
}

/* The view as a nested array, each line starting at column `indent`. */
static void put_nested(shower *s, const tensor_view *x, size_t indent)
{
    nest n;
    n.s = s;
    n.x = x;
    n.indent = indent;
    n.width = 0;
    spaces(s, indent);
    if (x->count == 0) {
        text_put(&s->out, "[]\n");
        return;
    }
    n.measuring = 1;
    nested(&n, 0, 0, 0);
    n.measuring = 0;
    nested(&n, 0, 0, 0);
    text_put(&s->out, "\n");
}

/* ---- layout -------------------------------------------------------------------- */

/* How a tensor lies in memory. */
typedef struct layout_facts {
    int strided;          /* the descriptor has strides */
    int as_packed;        /* every element lies where packed row-major puts it */
    uint64_t packed_size; /* DMLCalcBufferTensorSize without strides (0: beyond 64 bits) */
    uint64_t minimum;     /* ... with its strides */
    int memory_differs;   /* not as_packed, or TotalTensorSizeInBytes is not packed_size */
    int empty;            /* a size is 0 (a case that must be refused): no element */
} layout_facts;

static void layout_facts_of(const tensor_view *x, layout_facts *f)
{
    const dmlref_tensor_desc *desc = &x->t->desc;
    uint32_t d;
    f->strided = desc->Strides != NULL;
    f->as_packed = 1;
    for (d = 0; d < x->rank; ++d)
        if (x->sizes[d] > 1 && x->strides[d] != x->packed[d])
            f->as_packed = 0;
    f->packed_size =
        dmlref_calc_buffer_tensor_size(desc->DataType, desc->DimensionCount, x->t->sizes, NULL);
    f->minimum = dmlref_calc_buffer_tensor_size(desc->DataType, desc->DimensionCount, x->t->sizes,
                                                desc->Strides);
    f->memory_differs = !f->as_packed || desc->TotalTensorSizeInBytes != f->packed_size;
    f->empty = x->count == 0;
}

/* The buffer slot by slot: which coordinate lies on each. */
typedef struct memory_map {
    uint64_t slots;    /* whole elements the buffer holds */
    uint64_t extra;    /* bytes after the last whole element */
    uint64_t *owner;   /* per slot: 1 + the logical position of a coordinate on it, or 0 */
    uint64_t occupied; /* slots some coordinate lies on */
    uint64_t span;     /* 1 + the last slot a coordinate lies on */
    int too_large;     /* not mapped: the buffer or the walk is beyond the limits */
} memory_map;

/* Walks the coordinates of x onto its buffer's slots.  Dimensions of stride
   0 are walked once: every coordinate along one lies on the same slots.
   Returns 0, with nothing allocated, when x has no buffer or no element,
   or when the buffer is too large to lay out (m->too_large);
   DMLREF_ERROR_OUT_OF_MEMORY as a status in *status. */
static int map_memory(const tensor_view *x, memory_map *m, dmlref_status *status)
{
    uint64_t walk_sizes[MAX_RANK], steps = 1, step;
    uint32_t d;
    walker w;
    memset(m, 0, sizeof *m);
    *status = DMLREF_OK;
    if (!x->t->buffer || x->count == 0 || x->count == UINT64_MAX)
        return 0;
    m->slots = x->t->buffer_bytes / x->element_size;
    m->extra = x->t->buffer_bytes % x->element_size;
    for (d = 0; d < x->rank; ++d) {
        walk_sizes[d] = x->strides[d] ? x->sizes[d] : 1;
        steps *= walk_sizes[d];
        if (steps > MEMORY_WALK_LIMIT) {
            m->too_large = 1;
            return 0;
        }
    }
    if (m->slots == 0 || m->slots > MEMORY_SLOTS_LIMIT) {
        m->too_large = m->slots > 0;
        return 0;
    }
    m->owner = calloc((size_t)m->slots, sizeof *m->owner);
    if (!m->owner) {
        *status = DMLREF_ERROR_OUT_OF_MEMORY;
        return 0;
    }
    walker_init(&w, x->rank, walk_sizes);
    walker_add(&w, x->strides);
    walker_add(&w, x->packed);
    walker_seek(&w, 0);
    for (step = 0; step < steps; ++step, walker_next(&w)) {
        uint64_t slot = w.offset[0];
        if (slot < m->slots && m->owner[slot] == 0) {
            m->owner[slot] = w.offset[1] + 1;
            ++m->occupied;
            m->span = slot + 1 > m->span ? slot + 1 : m->span;
        }
    }
    return 1;
}

/* "dimension 0", "dimensions 0 and 2", "dimensions 0, 1 and 3" */
static void put_dimension_list(shower *s, const uint32_t *dims, uint32_t count)
{
    uint32_t i;
    text_put(&s->out, "dimension%s ", count > 1 ? "s" : "");
    for (i = 0; i < count; ++i)
        text_put(&s->out, "%s%u", i == 0 ? "" : i + 1 == count ? " and " : ", ", dims[i]);
}

/* "12" or "more than 2^64" (a size DMLCalcBufferTensorSize gives as 0). */
static void put_size(shower *s, uint64_t bytes)
{
    if (bytes)
        text_put(&s->out, "%llu", (unsigned long long)bytes);
    else
        text_put(&s->out, "more than 2^64");
}

/* TotalTensorSizeInBytes, where it is not what packed elements take. */
static void put_total_size(shower *s, uint64_t total, const layout_facts *f)
{
    uint64_t need = f->strided ? f->minimum : f->packed_size;
    const char *what = f->strided ? "strides" : "elements";
    if (f->empty) { /* DMLCalcBufferTensorSize has no answer */
        if (total)
            text_put(&s->out, "  TotalTensorSizeInBytes %llu, for no element\n",
                     (unsigned long long)total);
        return;
    }
    if (total == f->packed_size && total == need && need)
        return;
    text_put(&s->out, "  TotalTensorSizeInBytes %llu: ", (unsigned long long)total);
    if (!need)
        text_put(&s->out, "its %s need more than 2^64 bytes", what);
    else if (total == need)
        text_put(&s->out, "what its %s need", what);
    else if (total > need)
        text_put(&s->out, "%llu more than its %s need (%llu)", (unsigned long long)(total - need),
                 what, (unsigned long long)need);
    else
        text_put(&s->out, "too small (R-TD-9): its %s need %llu", what, (unsigned long long)need);
    if (f->strided && need != f->packed_size) {
        text_put(&s->out, "; packed it would be ");
        put_size(s, f->packed_size);
    }
    text_put(&s->out, "\n");
}

/* The heading of a tensor and what its layout means. */
static void put_heading(shower *s, const tensor_view *x, const layout_facts *f, const memory_map *m,
                        int mapped)
{
    const vtensor *t = x->t;
    const dmlref_tensor_desc *desc = &t->desc;
    uint32_t d, broadcast[MAX_RANK], broadcast_count = 0, order[MAX_RANK], order_count = 0, i;
    int permuted = 0;

    text_put(&s->out, "%s: %s ", t->name, dmlref_data_type_name(desc->DataType));
    put_dims(s, t->sizes, desc->DimensionCount);
    if (x->count == UINT64_MAX)
        text_put(&s->out, ", more than 2^64 elements");
    else
        text_put(&s->out, ", %llu element%s", (unsigned long long)x->count,
                 x->count == 1 ? "" : "s");
    if (!f->strided) {
        text_put(&s->out, ", packed\n");
    } else {
        text_put(&s->out, ", strides ");
        put_dims(s, t->strides, desc->DimensionCount);
        text_put(&s->out, f->as_packed ? " (as packed)\n" : "\n");
    }

    /* what the strides mean */
    for (d = 0; d < x->rank && f->strided; ++d) {
        if (x->sizes[d] > 1 && x->strides[d] == 0)
            broadcast[broadcast_count++] = d;
        else if (x->sizes[d] > 1)
            order[order_count++] = d;
    }
    for (i = 1; i < order_count; ++i) { /* by stride, largest first; stable */
        uint32_t j = i, moving = order[i];
        while (j > 0 && x->strides[order[j - 1]] < x->strides[moving]) {
            order[j] = order[j - 1];
            --j;
        }
        order[j] = moving;
        permuted |= j != i;
    }
    if (broadcast_count) {
        text_put(&s->out, "  broadcast: stride 0 along ");
        put_dimension_list(s, broadcast, broadcast_count);
        if (mapped)
            text_put(&s->out, "; its %llu coordinates read %llu element%s",
                     (unsigned long long)x->count, (unsigned long long)m->occupied,
                     m->occupied == 1 ? "" : "s");
        text_put(&s->out, "\n");
    } else if (mapped && m->occupied < x->count) {
        text_put(&s->out, "  overlapping: its %llu coordinates lie on %llu elements\n",
                 (unsigned long long)x->count, (unsigned long long)m->occupied);
    }
    if (permuted) {
        text_put(&s->out, "  permuted: in memory, from the outermost dimension to the innermost: ");
        for (i = 0; i < order_count; ++i)
            text_put(&s->out, "%s%u", i ? ", " : "", order[i]);
        text_put(&s->out, "\n");
    }
    if (mapped && m->occupied < m->span)
        text_put(&s->out, "  padding: %llu of the %llu element slots hold%s no element\n",
                 (unsigned long long)(m->span - m->occupied), (unsigned long long)m->span,
                 m->span - m->occupied == 1 ? "s" : "");
    if (mapped && m->span < m->slots)
        text_put(&s->out,
                 "  after the last element: %llu slot%s (the total size rounds up to 4 "
                 "bytes, R-TD-10, or is given larger)\n",
                 (unsigned long long)(m->slots - m->span), m->slots - m->span == 1 ? "" : "s");
    put_total_size(s, desc->TotalTensorSizeInBytes, f);
    if (desc->Flags)
        text_put(&s->out, "  flags 0x%x\n", desc->Flags);
    if (desc->GuaranteedBaseOffsetAlignment)
        text_put(&s->out, "  GuaranteedBaseOffsetAlignment %u\n",
                 desc->GuaranteedBaseOffsetAlignment);
}

/* The largest divisor of n up to `most`, when it is at least half of
   `most` (a line that wide or wider); else 0. */
static uint64_t wide_divisor(uint64_t n, uint64_t most)
{
    uint64_t part = most;
    while (part > 1 && n % part != 0)
        --part;
    return 2 * part >= most ? part : 0;
}

/* The slots a line of the buffer shows, at most `fit` and
   MEMORY_LINE_SLOTS, chosen so that the lines follow the strides: the
   largest stride that fits, so that a padded row or a permuted column lines
   up, or else a wide part of one that divides it evenly; otherwise as many
   as fit. */
static uint64_t memory_line_slots(const tensor_view *x, uint64_t slots, uint64_t fit)
{
    uint64_t most = fit < MEMORY_LINE_SLOTS ? fit : MEMORY_LINE_SLOTS, best = 0, above = 0;
    uint32_t d;
    most = most ? most : 1;
    for (d = 0; d < x->rank; ++d) {
        uint64_t stride = x->strides[d];
        if (x->sizes[d] < 2 || stride < 2)
            continue;
        if (stride <= most && stride > best)
            best = stride;
        else if (stride > most && (!above || stride < above))
            above = stride;
    }
    if (best)
        return best;
    if (above && wide_divisor(above, most))
        return wide_divisor(above, most);
    return slots < most ? slots : most;
}

/* The lines of the buffer shown, `per_line` slots each: all, or for a large
   buffer the first and last EDGE_ITEMS.  Line `line` is shown when this
   says so; *skip_to is where the "..." goes on to. */
static int line_shown(uint64_t slots, uint64_t lines, uint64_t line, uint64_t *skip_to)
{
    if (slots > SUMMARY_THRESHOLD && lines > 2 * EDGE_ITEMS && line == EDGE_ITEMS) {
        *skip_to = lines - EDGE_ITEMS;
        return 0;
    }
    return 1;
}

/* The text of slot `slot` of the buffer. */
static void slot_text(const tensor_view *x, const memory_map *m, uint64_t slot, char *cell)
{
    if (!m->owner[slot])
        snprintf(cell, CELL_CAPACITY, ".");
    else
        cell_text(x, m->owner[slot] - 1, slot, cell);
}

/* The widest cell of the lines shown, `per_line` slots a line. */
static size_t memory_width(const tensor_view *x, const memory_map *m, uint64_t per_line)
{
    uint64_t lines = (m->slots + per_line - 1) / per_line, line, slot, skip_to;
    size_t width = 1;
    char cell[CELL_CAPACITY];
    for (line = 0; line < lines; ++line) {
        if (!line_shown(m->slots, lines, line, &skip_to)) {
            line = skip_to - 1;
            continue;
        }
        for (slot = line * per_line; slot < (line + 1) * per_line && slot < m->slots; ++slot) {
            slot_text(x, m, slot, cell);
            width = strlen(cell) > width ? strlen(cell) : width;
        }
    }
    return width;
}

static size_t digits(uint64_t n)
{
    size_t count = 1;
    while (n >= 10) {
        n /= 10;
        ++count;
    }
    return count;
}

/* The buffer as it lies in memory, a line of slots at a time, each line
   labelled with its first element offset; a large one by its first and
   last lines. */
static void put_memory(shower *s, const tensor_view *x, const memory_map *m)
{
    uint64_t per_line = memory_line_slots(x, m->slots, MEMORY_LINE_SLOTS), lines, line, slot;
    uint64_t skip_to, fit;
    size_t width = memory_width(x, m, per_line), label = digits(m->slots);
    char cell[CELL_CAPACITY];

    fit = (LINE_WIDTH - 3 - label) / (width + 2);
    if (per_line > fit) {
        per_line = memory_line_slots(x, m->slots, fit);
        width = memory_width(x, m, per_line);
    }
    lines = (m->slots + per_line - 1) / per_line;
    label = digits((lines - 1) * per_line);
    text_put(&s->out, "  memory, %llu element slot%s of %u byte%s", (unsigned long long)m->slots,
             m->slots == 1 ? "" : "s", x->element_size, x->element_size == 1 ? "" : "s");
    if (m->extra)
        text_put(&s->out, " and %llu byte%s after them", (unsigned long long)m->extra,
                 m->extra == 1 ? "" : "s");
    text_put(&s->out, m->occupied < m->slots ? " ('.': no element there):\n" : ":\n");
    for (line = 0; line < lines; ++line) {
        if (!line_shown(m->slots, lines, line, &skip_to)) {
            text_put(&s->out, "  %*s\n", (int)label + 1, "...");
            line = skip_to - 1;
            continue;
        }
        text_put(&s->out, "  %*llu:", (int)label, (unsigned long long)(line * per_line));
        for (slot = line * per_line; slot < (line + 1) * per_line && slot < m->slots; ++slot) {
            slot_text(x, m, slot, cell);
            text_put(&s->out, "  %*s", (int)width, cell);
        }
        text_put(&s->out, "\n");
    }
}

/* ---- NonZero ------------------------------------------------------------------- */

/* 1 when output row r of the coordinates is undefined throughout. */
static int row_undefined(const vtensor *x, uint64_t r, uint64_t columns)
{
    uint64_t j;
    if (!x->kinds)
        return 0;
    for (j = 0; j < columns; ++j)
        if (x->kinds[r * columns + j] != EXPECT_NULL)
            return 0;
    return 1;
}

/* NonZero's coordinates {1, ..., 1, M, N} as a matrix: a row per line,
   numbered, the columns headed by the input dimension each one is (the
   last N of the input's D, R-NZ-13), a run of undefined rows on one line. */
static void put_coordinates(shower *s, const tensor_view *x, uint32_t input_rank)
{
    const vtensor *expect = x->expect;
    uint64_t rows = x->sizes[x->rank - 2], columns = x->sizes[x->rank - 1], r, j, end;
    uint32_t first = input_rank >= columns ? input_rank - (uint32_t)columns : 0;
    size_t width = 0, label = 0, n;
    char cell[CELL_CAPACITY], line[256];
    int pass, undefined_rows = 0;

    if (columns == 1)
        n = (size_t)snprintf(line, sizeof line, "column: input dimension %u", first);
    else
        n = (size_t)snprintf(line, sizeof line, "columns: input dimensions %u %s %llu", first,
                             columns == 2 ? "and" : "to",
                             (unsigned long long)(first + columns - 1));
    if (columns < input_rank)
        n += (size_t)snprintf(line + n, sizeof line - n, ", the last %llu of %u (R-NZ-13)",
                              (unsigned long long)columns, input_rank);
    snprintf(line + n, sizeof line - n,
             "; row r: the r-th non-zero input element, in row-major order (R-NZ-12)");
    text_put(&s->out, "  ");
    wrapped(s, line, 4);
    text_put(&s->out, "\n");
    for (j = 0; j < columns; ++j) {
        snprintf(cell, sizeof cell, "dim%llu", (unsigned long long)(first + j));
        width = strlen(cell) > width ? strlen(cell) : width;
    }
    /* pass 0 measures the cells and labels, pass 1 writes */
    for (pass = 0; pass < 2; ++pass) {
        if (pass) {
            spaces(s, 2 + label + 1);
            for (j = 0; j < columns; ++j) {
                snprintf(cell, sizeof cell, "dim%llu", (unsigned long long)(first + j));
                text_put(&s->out, "  %*s", (int)width, cell);
            }
            text_put(&s->out, "\n");
        }
        for (r = 0; r < rows; r = end) {
            int undefined = row_undefined(expect, r, columns);
            for (end = r + 1; end < rows && row_undefined(expect, end, columns) == undefined;)
                ++end;
            if (undefined) {
                if (end - r == 1)
                    snprintf(cell, sizeof cell, "%llu", (unsigned long long)r);
                else
                    snprintf(cell, sizeof cell, "%llu-%llu", (unsigned long long)r,
                             (unsigned long long)(end - 1));
                label = strlen(cell) > label ? strlen(cell) : label;
                undefined_rows = 1;
                if (pass) {
                    text_put(&s->out, "  %*s:", (int)label, cell);
                    for (j = 0; j < columns; ++j)
                        text_put(&s->out, "  %*s", (int)width, "?");
                    text_put(&s->out, "\n");
                }
                continue;
            }
            {
                uint64_t row;
                for (row = r; row < end; ++row) {
                    if (end - r > ROWS_LIMIT && row == r + EDGE_ITEMS) {
                        if (pass)
                            text_put(&s->out, "  %*s\n", (int)label + 1, "...");
                        row = end - EDGE_ITEMS - 1;
                        continue;
                    }
                    snprintf(cell, sizeof cell, "%llu", (unsigned long long)row);
                    label = strlen(cell) > label ? strlen(cell) : label;
                    if (pass)
                        text_put(&s->out, "  %*llu:", (int)label, (unsigned long long)row);
                    for (j = 0; j < columns; ++j) {
                        expected_text(expect, row * columns + j, cell);
                        width = strlen(cell) > width ? strlen(cell) : width;
                        if (pass)
                            text_put(&s->out, "  %*s", (int)width, cell);
                    }
                    if (pass)
                        text_put(&s->out, "\n");
                }
            }
        }
    }
    if (undefined_rows)
        text_put(&s->out, "  '?': undefined, any value passes: rows at or past the count "
                          "(R-NZ-14)\n");
}

/* 1 when output `o` (binding order among all tensors) is NonZero's
   coordinates in the {1, ..., 1, M, N} shape that a matrix shows. */
static int coordinates_matrix(const dmlref_vector *v, size_t o, const tensor_view *x)
{
    uint32_t d;
    if (v->type != DMLREF_OPERATOR_NONZERO_COORDINATES || o != OUTPUT_COORDINATES_TENSOR ||
        x->rank < 2)
        return 0;
    for (d = 0; d + 2 < x->rank; ++d)
        if (x->sizes[d] != 1)
            return 0;
    return 1;
}

/* ---- expected outputs ------------------------------------------------------------ */

/* What '?' and {a|b} mean in an output shown as a nested array, when it
   holds any. */
static void put_marks_legend(shower *s, const vtensor *x, uint64_t count)
{
    uint64_t e;
    int undefined = 0;
    if (!x->kinds)
        return;
    for (e = 0; e < count; ++e)
        undefined |= x->kinds[e] == EXPECT_NULL;
    if (undefined)
        text_put(&s->out, "  '?': undefined, any value passes\n");
    if (x->any_of_count) {
        text_put(&s->out, "  ");
        wrapped(s,
                s->v->type == DMLREF_OPERATOR_SCATTER_ELEMENTS
                    ? "{a|b}: any one of these values passes: several updates write the element, "
                      "and DirectML does not say which wins (D4)"
                    : "{a|b}: any one of these values passes",
                4);
        text_put(&s->out, "\n");
    }
}

/* The values of an output (the case's or a variant's expectations `expect`
   of tensor t): the count of NonZero as a number, its coordinates as a
   matrix, any other output as a nested array. */
static void put_expected_values(shower *s, size_t o, const vtensor *t, const vtensor *expect,
                                tensor_view *x)
{
    const dmlref_vector *v = s->v;
    view_init(x, t, CELLS_EXPECTED, expect);
    if (v->type == DMLREF_OPERATOR_NONZERO_COORDINATES && o == OUTPUT_COUNT_TENSOR &&
        x->count == 1) {
        char cell[CELL_CAPACITY];
        expected_text(expect, 0, cell);
        text_put(&s->out, "  count: %s\n", cell);
    } else if (coordinates_matrix(v, o, x)) {
        put_coordinates(s, x, v->tensors[0].desc.DimensionCount);
    } else {
        if (x->summarised)
            text_put(&s->out, "  summarised: the first and last elements along each dimension\n");
        put_nested(s, x, 2);
        put_marks_legend(s, expect, x->count);
    }
}

/* ---- a tensor ------------------------------------------------------------------- */

/* Tensor i of the case (binding order): its heading and layout, its
   values, and where memory differs, where its elements lie and its buffer. */
static dmlref_status put_tensor(shower *s, size_t i, int outputs_shown)
{
    const dmlref_vector *v = s->v;
    const vtensor *t = &v->tensors[i];
    tensor_view x;
    layout_facts f;
    memory_map m;
    dmlref_status status = DMLREF_OK;
    int cells = -1, mapped, offsets;

    memset(&m, 0, sizeof m);
    if (!t->is_output && t->buffer)
        cells = CELLS_BUFFER;
    else if (!t->is_output && t->elements)
        cells = CELLS_ELEMENTS;
    else if (t->is_output && outputs_shown && has_values(t))
        cells = CELLS_EXPECTED;
    view_init(&x, t, cells < 0 ? CELLS_OFFSETS : cells, t);
    layout_facts_of(&x, &f);
    mapped =
        f.memory_differs && cells >= 0 && cells != CELLS_ELEMENTS && map_memory(&x, &m, &status);
    if (!mapped && status != DMLREF_OK)
        return status;
    put_heading(s, &x, &f, &m, mapped);

    offsets = !f.as_packed && x.count != UINT64_MAX && cells >= 0;
    if (cells < 0) {
        if (!t->is_output)
            text_put(&s->out, "  no data\n");
    } else if (t->is_output) {
        if (offsets || mapped)
            text_put(&s->out, "  logical view:\n");
        put_expected_values(s, i, t, t, &x);
    } else {
        if (offsets || mapped)
            text_put(&s->out, "  logical view:\n");
        if (x.summarised)
            text_put(&s->out, "  summarised: the first and last elements along each dimension\n");
        put_nested(s, &x, 2);
    }
    if (offsets) {
        tensor_view where;
        view_init(&where, t, CELLS_OFFSETS, NULL);
        text_put(&s->out, "  element offsets, where each element lies:\n");
        put_nested(s, &where, 2);
    }
    if (!mapped && m.too_large)
        text_put(&s->out, "  memory: %llu element slots, too many to lay out here\n",
                 (unsigned long long)m.slots);
    if (mapped) {
        x.cells = cells; /* the memory shows values, not the view a matrix took */
        x.expect = t;
        put_memory(s, &x, &m);
        free(m.owner);
    }
    return DMLREF_OK;
}

/* ---- the case ---------------------------------------------------------------------- */

/* How the outputs came to be shown. */
typedef struct outputs_state {
    int computed;       /* dmlref evaluated the case */
    int refused;        /* ... and refused to execute it, or could not */
    int unread;         /* the vector gives values the reader did not keep: it
                           refused the case at the vector's own feature level */
    size_t digest_only; /* outputs the vector gave by their digest alone */
    int digests_differ; /* ... which the computed values do not match */
    int given_differ;   /* the values and digests given differ from what dmlref
                           computes (the mismatch in `differs`) */
    char digest_names[160];
    dmlref_error refusal, differs;
} outputs_state;

/* Judges the values and digests the vector gives as dmlref verify does:
   executes the case into its output buffers and compares.  A case that
   dmlref refuses is left to the header's validation line. */
static dmlref_status check_given(dmlref_vector *v, outputs_state *st)
{
    dmlref_execute_options options;
    dmlref_error why;
    dmlref_status status;
    size_t o;
    memset(&options, 0, sizeof options);
    options.oob_policy = v->oob;
    for (o = 0; o < v->output_count; ++o)
        memset(v->outputs[o].data, 0, (size_t)v->outputs[o].size_in_bytes);
    status = dmlref_execute_with_options(&v->op, v->level, &options, v->inputs, v->input_count,
                                         v->outputs, v->output_count, &why);
    if (status == DMLREF_ERROR_OUT_OF_MEMORY) {
        st->refusal = why;
        return status;
    }
    if (status == DMLREF_OK &&
        dmlref_vector_compare(v, v->outputs, v->output_count, NULL, &st->differs) != DMLREF_OK)
        st->given_differ = 1;
    return DMLREF_OK;
}

/* Evaluates the case when an output (or a variant's) lacks its values: a
   case without expectations, or a vector that gives a large output by its
   digest alone. */
static dmlref_status compute_outputs(dmlref_vector *v, outputs_state *st)
{
    int had_xxh3[OPERATOR_MAX_OUTPUTS], had_values[OPERATOR_MAX_OUTPUTS], needed = 0;
    uint64_t xxh3[OPERATOR_MAX_OUTPUTS];
    size_t o, k;
    dmlref_status status;

    memset(st, 0, sizeof *st);
    if (v->expects_error)
        return DMLREF_OK;
    for (o = 0; o < v->output_count; ++o) {
        const vtensor *t = &v->tensors[v->input_count + o];
        had_xxh3[o] = t->has_xxh3;
        had_values[o] = t->has_expected; /* given, whether read or not */
        xxh3[o] = t->xxh3;
        st->unread |= t->has_expected && !t->expected;
        needed |= !has_values(t);
        for (k = 0; k < v->variant_count; ++k)
            needed |= !has_values(&v->variants[k].outputs[o]);
    }
    if (!v->buffers_ready) {
        /* only a case that validation refuses lacks buffers: its inputs too
           large to place, or without data */
        if (!needed)
            return DMLREF_OK;
        st->refused = 1;
        if (dmlref_validate(&v->op, v->level, &st->refusal) == DMLREF_OK)
            set_error(&st->refusal, DMLREF_ERROR_VECTOR_SCHEMA, "",
                      "the case has no input data to execute");
        return DMLREF_OK;
    }
    if (!needed)
        return check_given(v, st);
    st->computed = 1;
    status = dmlref_vector_eval(v, 0, &st->refusal);
    if (status == DMLREF_ERROR_OUT_OF_MEMORY)
        return status;
    if (status != DMLREF_OK) {
        st->refused = 1;
        return DMLREF_OK;
    }
    for (o = 0; o < v->output_count; ++o) {
        const vtensor *t = &v->tensors[v->input_count + o];
        size_t n = strlen(st->digest_names);
        if (had_values[o] || !had_xxh3[o])
            continue;
        snprintf(st->digest_names + n, sizeof st->digest_names - n, "%s%s",
                 st->digest_only ? " and " : "", t->name);
        ++st->digest_only;
        st->digests_differ |= t->xxh3 != xxh3[o];
    }
    return DMLREF_OK;
}

/* A message without the "FILE: $: " it starts with. */
static const char *message_of(const dmlref_vector *v, const char *message)
{
    size_t n = strlen(v->source);
    if (strncmp(message, v->source, n) == 0 && strncmp(message + n, ": ", 2) == 0)
        message += n + 2;
    if (strncmp(message, "$: ", 3) == 0)
        message += 3;
    return message;
}

/* lead, then the message (without its file), wrapped as one text. */
static void wrapped_message(shower *s, const char *lead, const char *message)
{
    text_buffer line = {NULL, 0, 0, 0};
    text_put(&line, "%s %s", lead, message_of(s->v, message));
    s->out.failed |= line.failed;
    wrapped(s, line.data ? line.data : "", KEY_WIDTH);
    text_put(&s->out, "\n");
    free(line.data);
}

static void put_header(shower *s, const outputs_state *st)
{
    const dmlref_vector *v = s->v;
    operator_shape shape;
    dmlref_error why;
    size_t i;
    int any_data = 0;
    char line[400];

    text_put(&s->out, "%s\n", v->name);
    key(s, "operator:");
    text_put(&s->out, "%s\n", dmlref_operator_name(v->type));
    key(s, "feature level:");
    text_put(&s->out, "%s", dmlref_feature_level_name(v->level));
    if (v->has_min_level)
        text_put(&s->out, " (the case is valid from %s)", dmlref_feature_level_name(v->min_level));
    text_put(&s->out, "\n");
    operator_shape_of(v->row, &shape);
    if (shape.attribute_count) {
        key(s, "attributes:");
        for (i = 0; i < shape.attribute_count; ++i)
            text_put(&s->out, "%s%s = %u", i ? ", " : "", shape.attributes[i], v->attributes[i]);
        text_put(&s->out, "\n");
    }
    if (v->oob == DMLREF_OOB_CLAMP) {
        key(s, "out of range:");
        text_put(&s->out, "an index out of range is clamped into it (oob: clamp)\n");
    }
    if (v->notes) {
        text_buffer notes = {NULL, 0, 0, 0};
        text_put_escaped(&notes, v->notes);
        s->out.failed |= notes.failed;
        key(s, "notes:");
        wrapped(s, notes.data ? notes.data : "", KEY_WIDTH);
        text_put(&s->out, "\n");
        free(notes.data);
    }
    for (i = 0; i < v->input_count; ++i)
        any_data |= v->tensors[i].has_data;
    if (v->expects_error) {
        key(s, "must be refused:");
        text_put(&s->out, "%s (%s)\n", dmlref_status_name(v->error_status), v->error_rule);
        if (!any_data) {
            key(s, "data:");
            text_put(&s->out, "none: the case gives its descriptors only\n");
        }
        return;
    }
    key(s, "outputs:");
    if (st->refused) {
        wrapped_message(s,
                        st->unread ? "none shown: dmlref refuses the case, and does not read the "
                                     "expected values the vector gives:"
                                   : "none: dmlref refuses to execute the case:",
                        st->refusal.message);
    } else if (st->digest_only) {
        snprintf(line, sizeof line, "computed by dmlref: the vector gives %s by %s only, %s",
                 st->digest_names, st->digest_only > 1 ? "their digests" : "its digest",
                 st->digests_differ ? "which the computed values do NOT match"
                                    : "which the computed values match");
        wrapped(s, line, KEY_WIDTH);
        text_put(&s->out, "\n");
    } else if (st->computed) {
        text_put(&s->out, st->unread ? "computed by dmlref: it does not read the expected values "
                                       "of a case it refuses at the vector's feature level\n"
                                     : "computed by dmlref: the case gives no expected values\n");
    } else if (st->given_differ) {
        wrapped_message(s,
                        "the expected values the vector gives, which do NOT match what dmlref "
                        "computes:",
                        st->differs.message);
    } else {
        text_put(&s->out, "the expected values the vector gives\n");
        if (dmlref_validate(&v->op, v->level, &why) != DMLREF_OK) {
            key(s, "validation:");
            text_put(&s->out, "dmlref refuses the case at feature level %s: ",
                     dmlref_feature_level_name(v->level));
            wrapped(s, message_of(v, why.message), KEY_WIDTH);
            text_put(&s->out, "\n");
        }
    }
    if (v->variant_count) {
        key(s, "variants:");
        for (i = 0; i < v->variant_count; ++i)
            text_put(&s->out, "%s%s (%s)", i ? ", " : "", variant_kind_name(v->variants[i].kind),
                     variant_kind_rule(v->variants[i].kind));
        text_put(&s->out, ": another whole answer DirectML allows, shown last\n");
    }
}

/* The outputs of each permitted variant. */
static void put_variants(shower *s)
{
    const dmlref_vector *v = s->v;
    size_t k, o;
    for (k = 0; k < v->variant_count; ++k) {
        const variant *w = &v->variants[k];
        text_put(&s->out,
                 "\nvariant %s (%s): a conforming implementation may write these "
                 "outputs instead\n",
                 variant_kind_name(w->kind), variant_kind_rule(w->kind));
        for (o = 0; o < v->output_count; ++o) {
            const vtensor *t = &v->tensors[v->input_count + o];
            tensor_view x;
            text_put(&s->out, "%s:\n", t->name);
            if (has_values(&w->outputs[o]))
                put_expected_values(s, v->input_count + o, t, &w->outputs[o], &x);
            else
                text_put(&s->out, "  its digest only\n");
        }
    }
}

dmlref_status show_vector(dmlref_vector *v, char **text, size_t *length, dmlref_error *err)
{
    shower s;
    outputs_state st;
    dmlref_status status;
    size_t i;

    memset(&s, 0, sizeof s);
    s.v = v;
    status = compute_outputs(v, &st);
    if (status != DMLREF_OK) {
        *err = st.refusal;
        return status;
    }
    put_header(&s, &st);
    for (i = 0; i < v->input_count + v->output_count && status == DMLREF_OK; ++i) {
        text_put(&s.out, "\n");
        status = put_tensor(&s, i, !v->expects_error && !st.refused);
    }
    if (status == DMLREF_OK && !v->expects_error && !st.refused)
        put_variants(&s);
    if (status == DMLREF_OK && s.out.failed)
        status = DMLREF_ERROR_OUT_OF_MEMORY;
    if (status != DMLREF_OK) {
        free(s.out.data);
        return set_error(err, status, "", "%s: out of memory showing the case", v->source);
    }
    *text = s.out.data;
    if (length)
        *length = s.out.length;
    return DMLREF_OK;
}
