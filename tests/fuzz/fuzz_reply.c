/*
 * fuzz_reply.c - libFuzzer target: the reply path of the process protocol
 * (docs/conformance.md, "The process interface"): the line framing of
 * conformance/line_reader.c and the reply parser dmlref_vector_read_reply().
 *
 * Input: a 6-byte header, then the bytes the process writes on its stdout.
 *   byte 0    bits 0..2 pick one of the eight built-in cases below; bits 3..4
 *             the output buffers: 0 and 3 as long as the case's bindings, 1
 *             as long as the output's TotalTensorSizeInBytes (shorter in the
 *             case whose total is below the minimum: elements past it are only
 *             checked), 2 NULL (every element only checked); bit 5: on
 *             LINE_TOO_LONG raise the limit (line_reader_limit, up to 64 KiB)
 *             instead of dropping what is held (line_reader_clear, as a
 *             restarted process starts a new stream)
 *   byte 1    the reader's max_line, 64..8192: (64 << (b & 7)) + (b >> 3)
 *   byte 2..5 chunk sizes, used in turn: 1..255 bytes, 0 all the room
 *             line_reader_space() offers; so lines cross chunk boundaries
 *             anywhere, and the reader's buffer fills, moves and grows
 * The seeds (tests/fuzz/seeds.sh) are reply lines with such a header.
 *
 * Checks, beyond "no crash, no UB, no leak" (ASan, UBSan, LSan):
 *   - the reader against an independent split of the same bytes at their
 *     newlines: every line it returns is the next one, whole, without its
 *     newline, NUL-terminated; LINE_TOO_LONG exactly when the line at hand
 *     (complete or not) passes the limit, LINE_PARTIAL otherwise;
 *     line_reader_held() is what was received after the last line;
 *     line_reader_space() offers room whenever the line at hand is within
 *     the limit;
 *   - each line, copied into a heap buffer of exactly its length (ASan sees
 *     a read past it), goes to dmlref_vector_read_reply() twice: with output
 *     buffers (filled with a pattern; sized by the mode) and with NULL ones.
 *     The status is DMLREF_OK, VECTOR_PARSE, VECTOR_SCHEMA or OUT_OF_MEMORY,
 *     the same both times; a failure's message is a non-empty,
 *     NUL-terminated line starting "reply: "; no byte of an output buffer
 *     outside its elements' places changes; on OK the reply's kind is one of
 *     the three, its message and rule are NUL-terminated, only an "error"
 *     reply names a refusal, and a named status is a known error status; an
 *     outputs reply reads the same with NULL buffers, and comparing what it
 *     placed with the case (dmlref_vector_compare) gives OK or MISMATCH.
 */
#include "fuzz_util.h"
#include "conformance/line_reader.h"

#include <stdlib.h>

#define FILL 0xA5        /* what output buffers hold before a reply is read */
#define HEADER 6         /* bytes before the stream */
#define MOST_LIMIT 65536 /* the limit is raised no further */

/* The built-in cases, golden vectors of vectors/ (the last one made for
 * here): each output data type the protocol encodes differently, strided and
 * packed outputs, two outputs, and a case that must be refused whose output
 * is shorter than its elements' extent (R-TD-9). */
static const char *const case_texts[8] = {
    /* FLOAT32, packed */
    "{\"format\": \"dmlref-vector-1\", \"name\": \"gather_elements/float32/2d/doc_example\", "
    "\"operator\": \"GATHER_ELEMENTS\", \"feature_level\": \"6_4\", \"attributes\": {\"Axis\": 0}, "
    "\"tensors\": {"
    "\"InputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [3, 3], \"data\": [1, 2, 3, 4, 5, 6, 7, "
    "8, 9]}, "
    "\"IndicesTensor\": {\"dtype\": \"UINT32\", \"sizes\": [2, 3], \"data\": [1, 2, 0, 2, 0, 0]}, "
    "\"OutputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [2, 3], \"expected\": [4, 8, 3, 7, 2, "
    "3]}}}",
    /* INT8, Scatter, strided output */
    "{\"format\": \"dmlref-vector-1\", \"name\": "
    "\"scatter_elements/int8/2d/axis0_int64_strided_output\", "
    "\"operator\": \"SCATTER_ELEMENTS\", \"feature_level\": \"6_4\", \"attributes\": {\"Axis\": "
    "0}, "
    "\"tensors\": {"
    "\"InputTensor\": {\"dtype\": \"INT8\", \"sizes\": [2, 1], \"data\": [1, -2]}, "
    "\"IndicesTensor\": {\"dtype\": \"INT64\", \"sizes\": [2, 1], \"data\": [0, 1]}, "
    "\"UpdatesTensor\": {\"dtype\": \"INT8\", \"sizes\": [2, 1], \"data\": [101, -102]}, "
    "\"OutputTensor\": {\"dtype\": \"INT8\", \"sizes\": [2, 1], \"strides\": [2, 2], "
    "\"expected\": [101, -102]}}}",
    /* NonZero: two UINT32 outputs, unspecified rows, strided */
    "{\"format\": \"dmlref-vector-1\", \"name\": "
    "\"nonzero_coordinates/float16/2d/density250_n2_strided_output\", "
    "\"operator\": \"NONZERO_COORDINATES\", \"feature_level\": \"6_4\", \"tensors\": {"
    "\"InputTensor\": {\"dtype\": \"FLOAT16\", \"sizes\": [3, 2], \"data\": [0, 0, 0, -2, 2.5, "
    "0]}, "
    "\"OutputCountTensor\": {\"dtype\": \"UINT32\", \"sizes\": [1], \"expected\": [2]}, "
    "\"OutputCoordinatesTensor\": {\"dtype\": \"UINT32\", \"sizes\": [6, 2], \"strides\": [4, 2], "
    "\"expected\": [1, 1, 2, 0, null, null, null, null, null, null, null, null]}}}",
    /* FLOAT16, strided output */
    "{\"format\": \"dmlref-vector-1\", \"name\": "
    "\"gather_nd/float16/2d/m2_q1_b0_k2_int32_strided_output\", "
    "\"operator\": \"GATHER_ND\", \"feature_level\": \"6_4\", "
    "\"attributes\": {\"InputDimensionCount\": 2, \"IndicesDimensionCount\": 1}, \"tensors\": {"
    "\"InputTensor\": {\"dtype\": \"FLOAT16\", \"sizes\": [2, 2], \"data\": [0.5, -1, 1.5, -2]}, "
    "\"IndicesTensor\": {\"dtype\": \"INT32\", \"sizes\": [1, 2], \"data\": [0, 1]}, "
    "\"OutputTensor\": {\"dtype\": \"FLOAT16\", \"sizes\": [1, 1], \"strides\": [2, 2], "
    "\"expected\": [-1]}}}",
    /* FLOAT64, packed */
    "{\"format\": \"dmlref-vector-1\", \"name\": "
    "\"gather_elements/float64/2d/axis0_int64_packed\", "
    "\"operator\": \"GATHER_ELEMENTS\", \"feature_level\": \"6_4\", \"attributes\": {\"Axis\": 0}, "
    "\"tensors\": {"
    "\"InputTensor\": {\"dtype\": \"FLOAT64\", \"sizes\": [3, 1], \"data\": [0.5, -1, 1.5]}, "
    "\"IndicesTensor\": {\"dtype\": \"INT64\", \"sizes\": [3, 1], \"data\": [0, 2, -3]}, "
    "\"OutputTensor\": {\"dtype\": \"FLOAT64\", \"sizes\": [3, 1], \"expected\": [0.5, 1.5, "
    "0.5]}}}",
    /* UINT64 beyond 2^53 (decimal strings), strided output */
    "{\"format\": \"dmlref-vector-1\", \"name\": "
    "\"gather_elements/uint64/2d/axis1_int32_strided_output\", "
    "\"operator\": \"GATHER_ELEMENTS\", \"feature_level\": \"6_4\", \"attributes\": {\"Axis\": 1}, "
    "\"tensors\": {"
    "\"InputTensor\": {\"dtype\": \"UINT64\", \"sizes\": [1, 3], \"data\": "
    "[\"11400714819323198485\", "
    "\"4354685564936845354\", \"15755400384260043839\"]}, "
    "\"IndicesTensor\": {\"dtype\": \"INT32\", \"sizes\": [1, 2], \"data\": [0, 2]}, "
    "\"OutputTensor\": {\"dtype\": \"UINT64\", \"sizes\": [1, 2], \"strides\": [4, 2], "
    "\"expected\": [\"11400714819323198485\", \"15755400384260043839\"]}}}",
    /* INT64, GatherND1 with a batch dimension */
    "{\"format\": \"dmlref-vector-1\", \"name\": \"gather_nd1/int64/2d/m2_q2_b1_k1_int32_packed\", "
    "\"operator\": \"GATHER_ND1\", \"feature_level\": \"6_4\", \"attributes\": "
    "{\"InputDimensionCount\": 2, \"IndicesDimensionCount\": 2, \"BatchDimensionCount\": 1}, "
    "\"tensors\": {"
    "\"InputTensor\": {\"dtype\": \"INT64\", \"sizes\": [1, 4], \"data\": [\"81985529216486895\", "
    "\"163971058432973790\", \"245956587649460685\", \"327942116865947580\"]}, "
    "\"IndicesTensor\": {\"dtype\": \"INT32\", \"sizes\": [1, 1], \"data\": [0]}, "
    "\"OutputTensor\": {\"dtype\": \"INT64\", \"sizes\": [1, 1], \"expected\": "
    "[\"81985529216486895\"]}}}",
    /* must be refused: the output's total size is below the minimum */
    "{\"format\": \"dmlref-vector-1\", \"name\": "
    "\"gather_elements/float32/2d/error_output_total_bytes_below_minimum\", "
    "\"operator\": \"GATHER_ELEMENTS\", \"feature_level\": \"6_4\", \"attributes\": {\"Axis\": 1}, "
    "\"expect_error\": {\"status\": \"DMLREF_ERROR_INVALID_TOTAL_SIZE\", \"rule\": \"R-TD-9\"}, "
    "\"tensors\": {"
    "\"InputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [2, 3], \"data\": [0.5, -1, 1.5, -2, "
    "2.5, -3]}, "
    "\"IndicesTensor\": {\"dtype\": \"INT64\", \"sizes\": [2, 3], \"data\": [1, 2, 0, 1, 2, 0]}, "
    "\"OutputTensor\": {\"dtype\": \"FLOAT32\", \"sizes\": [2, 3], \"total_bytes\": 20}}}",
};

#define CASES (sizeof case_texts / sizeof case_texts[0])
#define MOST_OUTPUTS 2

/* A case, and where its outputs' elements lie. */
typedef struct fuzz_case {
    dmlref_vector *v;
    size_t outputs;
    const dmlref_tensor_desc *desc[MOST_OUTPUTS];
    const dmlref_binding *binding; /* the vector's own, for their sizes */
} fuzz_case;

static fuzz_case cases[CASES];

static void load_cases(void)
{
    static int loaded;
    size_t i;
    if (loaded)
        return;
    for (i = 0; i < CASES; ++i) {
        fuzz_case *c = &cases[i];
        const dmlref_operator_desc *op;
        dmlref_error err;
        if (dmlref_vector_parse(case_texts[i], strlen(case_texts[i]), "built-in", NULL, &c->v,
                                &err) != DMLREF_OK)
            abort(); /* a built-in case the reader refuses: fix the text */
        op = dmlref_vector_operator(c->v);
        switch (op->Type) {
        case DMLREF_OPERATOR_GATHER_ELEMENTS:
            c->desc[0] = ((const dmlref_gather_elements_desc *)op->Desc)->OutputTensor;
            break;
        case DMLREF_OPERATOR_SCATTER_ELEMENTS:
            c->desc[0] = ((const dmlref_scatter_elements_desc *)op->Desc)->OutputTensor;
            break;
        case DMLREF_OPERATOR_GATHER_ND:
            c->desc[0] = ((const dmlref_gather_nd_desc *)op->Desc)->OutputTensor;
            break;
        case DMLREF_OPERATOR_GATHER_ND1:
            c->desc[0] = ((const dmlref_gather_nd1_desc *)op->Desc)->OutputTensor;
            break;
        case DMLREF_OPERATOR_NONZERO_COORDINATES:
            c->desc[0] = ((const dmlref_nonzero_coordinates_desc *)op->Desc)->OutputCountTensor;
            c->desc[1] =
                ((const dmlref_nonzero_coordinates_desc *)op->Desc)->OutputCoordinatesTensor;
            break;
        default:
            abort();
        }
        c->outputs = dmlref_vector_output_count(c->v);
        c->binding = dmlref_vector_outputs(c->v);
        if (c->outputs != (c->desc[1] ? 2u : 1u) || !dmlref_vector_has_data(c->v))
            abort();
    }
    loaded = 1;
}

/* Marks in `placed` (one flag a byte of a `bytes`-long buffer) the bytes of
 * every element of the tensor that lies wholly inside the buffer: the element
 * at coordinates c sits at sum(c[i] * strides[i]) elements, strides packed
 * row-major when NULL. */
static void mark_elements(const dmlref_tensor_desc *d, uint64_t bytes, unsigned char *placed)
{
    uint32_t n = d->DimensionCount, i, c[8] = {0}, packed[8];
    uint64_t size = dmlref_data_type_size(d->DataType), offset;
    FUZZ_ASSERT(n >= 1 && n <= 8 && size > 0);
    packed[n - 1] = 1;
    for (i = n - 1; i > 0; --i)
        packed[i - 1] = packed[i] * d->Sizes[i];
    for (;;) {
        offset = 0;
        for (i = 0; i < n; ++i)
            offset += (uint64_t)c[i] * (d->Strides ? d->Strides[i] : packed[i]);
        if ((offset + 1) * size <= bytes)
            memset(placed + offset * size, 1, (size_t)size);
        for (i = n; i > 0 && ++c[i - 1] == d->Sizes[i - 1]; --i) /* odometer */
            c[i - 1] = 0;
        if (i == 0)
            return;
    }
}

static dmlref_status read_reply(const fuzz_case *c, const char *line, size_t length,
                                const dmlref_binding *outputs, dmlref_reply *reply)
{
    dmlref_error err;
    dmlref_status status;
    memset(&err, 0xAA, sizeof err);
    memset(reply, 0xAA, sizeof *reply);
    status = dmlref_vector_read_reply(c->v, line, length, outputs, c->outputs, reply, &err);
    fuzz_check_error(status, &err, "reply");
    FUZZ_ASSERT(status == DMLREF_OK || status == DMLREF_ERROR_VECTOR_PARSE ||
                status == DMLREF_ERROR_VECTOR_SCHEMA || status == DMLREF_ERROR_OUT_OF_MEMORY);
    if (status != DMLREF_OK)
        return status;
    FUZZ_ASSERT(reply->kind == DMLREF_REPLY_OUTPUTS || reply->kind == DMLREF_REPLY_UNSUPPORTED ||
                reply->kind == DMLREF_REPLY_ERROR);
    FUZZ_ASSERT(memchr(reply->message, '\0', sizeof reply->message) != NULL);
    FUZZ_ASSERT(memchr(reply->refusal_rule, '\0', sizeof reply->refusal_rule) != NULL);
    if (reply->kind != DMLREF_REPLY_ERROR) /* only an "error" reply names a refusal */
        FUZZ_ASSERT(reply->refusal_status == DMLREF_OK && reply->refusal_rule[0] == '\0');
    else if (reply->refusal_status != DMLREF_OK)
        fuzz_check_status(reply->refusal_status);
    return status;
}

/* One whole line, as the protocol hands it over. */
static void check_line(const fuzz_case *c, unsigned mode, const char *line, size_t length)
{
    dmlref_binding outputs[MOST_OUTPUTS], none[MOST_OUTPUTS];
    unsigned char *placed[MOST_OUTPUTS] = {NULL, NULL};
    char *copy = malloc(length ? length : 1); /* exactly the line, no NUL */
    dmlref_reply reply, again;
    dmlref_status status;
    size_t o, i;

    FUZZ_ASSERT(copy != NULL);
    memcpy(copy, line, length);
    memset(outputs, 0, sizeof outputs);
    memset(none, 0, sizeof none);
    for (o = 0; o < c->outputs; ++o) {
        uint64_t bytes =
            mode == 1 ? c->desc[o]->TotalTensorSizeInBytes : c->binding[o].size_in_bytes;
        if (mode == 2)
            continue;
        outputs[o].data = malloc((size_t)bytes);
        outputs[o].size_in_bytes = bytes;
        placed[o] = calloc(1, (size_t)bytes);
        FUZZ_ASSERT(outputs[o].data && placed[o]);
        memset(outputs[o].data, FILL, (size_t)bytes);
        mark_elements(c->desc[o], bytes, placed[o]);
    }

    status = read_reply(c, copy, length, outputs, &reply);
    /* "leaving other bytes as they are", whatever the verdict */
    for (o = 0; o < c->outputs; ++o)
        for (i = 0; outputs[o].data && i < outputs[o].size_in_bytes; ++i)
            FUZZ_ASSERT(placed[o][i] || ((unsigned char *)outputs[o].data)[i] == FILL);
    /* only checked: the same verdict */
    FUZZ_ASSERT(read_reply(c, copy, length, none, &again) == status ||
                status == DMLREF_ERROR_OUT_OF_MEMORY);
    if (status == DMLREF_OK) {
        FUZZ_ASSERT(again.kind == reply.kind && again.refusal_status == reply.refusal_status &&
                    strcmp(again.refusal_rule, reply.refusal_rule) == 0 &&
                    strcmp(again.message, reply.message) == 0);
        if (reply.kind == DMLREF_REPLY_OUTPUTS && mode != 2 &&
            !dmlref_vector_expects_error(c->v, NULL, NULL)) {
            dmlref_error err;
            dmlref_status compared;
            memset(&err, 0xAA, sizeof err);
            compared = dmlref_vector_compare(c->v, outputs, c->outputs, NULL, &err);
            fuzz_check_error(compared, &err, NULL);
            FUZZ_ASSERT(compared == DMLREF_OK || compared == DMLREF_ERROR_MISMATCH);
        }
    }
    for (o = 0; o < c->outputs; ++o) {
        free(outputs[o].data);
        free(placed[o]);
    }
    free(copy);
}

/* The newlines of the stream, found here without the reader. */
static size_t *newlines_of(const uint8_t *s, size_t n, size_t *count)
{
    size_t *at = malloc((n + 1) * sizeof *at), i;
    FUZZ_ASSERT(at != NULL);
    *count = 0;
    for (i = 0; i < n; ++i)
        if (s[i] == '\n')
            at[(*count)++] = i;
    return at;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const fuzz_case *c;
    const uint8_t *s;
    uint8_t chunks[4], head[HEADER] = {0};
    unsigned mode, raise_limit;
    size_t n, max_line, fed = 0, pos = 0, next_nl = 0, nls, *nl, k = 0;
    line_reader r;

    load_cases();
    memcpy(head, data, size < HEADER ? size : HEADER);
    s = data + (size < HEADER ? size : HEADER);
    n = size - (size_t)(s - data);
    c = &cases[(head[0] & 7u) % CASES];
    mode = (head[0] >> 3) & 3u;
    raise_limit = (head[0] >> 5) & 1u;
    max_line = (64u << (head[1] & 7u)) + (head[1] >> 3);
    if (max_line > 8192)
        max_line = 8192;
    memcpy(chunks, head + 2, sizeof chunks);
    nl = newlines_of(s, n, &nls);

    line_reader_init(&r, max_line);
    for (;;) {
        char *space, *line = NULL;
        size_t room = 0, chunk, length = 0;
        line_result got;

        /* every line the bytes fed so far complete */
        for (;;) {
            /* the line at hand: s[pos, nl[next_nl]) when that newline came in */
            int whole = next_nl < nls && nl[next_nl] < fed;
            size_t at_hand = whole ? nl[next_nl] - pos : fed - pos;
            line_result want = at_hand > max_line ? LINE_TOO_LONG
                               : whole            ? LINE_READY
                                                  : LINE_PARTIAL;
            got = line_reader_next(&r, &line, &length);
            FUZZ_ASSERT(got == want);
            if (got == LINE_READY) {
                FUZZ_ASSERT(length == at_hand && memcmp(line, s + pos, length) == 0);
                FUZZ_ASSERT(line[length] == '\0' && memchr(line, '\n', length) == NULL);
                check_line(c, mode, line, length);
                pos = nl[next_nl++] + 1;
            } else if (got == LINE_TOO_LONG) {
                if (raise_limit && max_line < MOST_LIMIT) {
                    max_line *= 2;
                    line_reader_limit(&r, max_line);
                } else { /* what a restarted process does: a new stream */
                    line_reader_clear(&r);
                    pos = fed;
                    while (next_nl < nls && nl[next_nl] < fed)
                        ++next_nl;
                }
            }
            FUZZ_ASSERT(line_reader_held(&r) == fed - pos);
            if (got == LINE_PARTIAL)
                break;
        }
        if (fed == n)
            break;
        space = line_reader_space(&r, &room);
        FUZZ_ASSERT(space != NULL && room >= 1); /* the line at hand is within the limit */
        chunk = chunks[k++ % 4];
        if (chunk == 0 || chunk > room)
            chunk = room;
        if (chunk > n - fed)
            chunk = n - fed;
        memcpy(space, s + fed, chunk);
        line_reader_received(&r, chunk);
        fed += chunk;
    }
    line_reader_free(&r);
    free(nl);
    return 0;
}
