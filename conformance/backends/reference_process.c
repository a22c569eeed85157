/*
 * reference_process.c - a `dmlref check --exec` process backend written in C:
 * dmlref's reference library behind the JSON Lines protocol of
 * docs/conformance.md ("The process interface").
 *
 *   reference_process                         answers every case right
 *   reference_process COUNTER BEHAVIOUR...    misbehaves, one way a case
 *   reference_process --only OPERATOR [...]   implements OPERATOR alone
 *
 * With --only (GATHER_ELEMENTS, ...) every case of another operator is
 * refused, before it is read, with "status": "error" naming
 * DMLREF_ERROR_UNSUPPORTED_OPERATOR: what the reference plug-in with
 * --backend-options only=OPERATOR answers from supports(), so that the two
 * interfaces can be held to the same verdicts; and, like that plug-in, which
 * is not told a case's "oob", it refuses every out-of-range index.
 *
 * It is two things.  For someone writing a process backend in C, a complete
 * one to read: a request line is read with libdmlref's vector reader, which
 * lays the inputs out in host buffers as the case's strides say; the case is
 * validated and run (here by dmlref itself, where a real backend calls its
 * own implementation); the reply lists each output's logical elements in
 * row-major order, encoded bit for bit by dmlref_format_element().  And for
 * dmlref's tests (tests/cli/test_process_backend.sh), a process backend that
 * runs natively wherever dmlref does, Windows included, and that can
 * misbehave toward the harness as tests/cli/hostile_process.py does.
 *
 * With COUNTER, the k-th case it is sent (counted in the file COUNTER, so
 * the count goes on across restarts) gets the k-th BEHAVIOUR; every case
 * past the list is answered right:
 *
 *   answer        the right reply
 *   unsupported   "status": "unsupported" (the case is skipped)
 *   refuse        "status": "error" for any case (a valid one fails)
 *   wrong         the right reply with the first output element's bits flipped
 *   garbage       a line that is not JSON
 *   other-name    a reply naming another case
 *   twice         the right reply, twice at once
 *   late          the right reply, and again 0.3 s later
 *   slow          the right reply, after 3 s
 *   hang          never replies (it waits for more input)
 *   close-stdout  closes its stdout and lives on
 *   close-stdin   closes its stdin and lives on, replying nothing
 *   endless       writes a line that never ends
 *   exit          exits with status 3 without replying
 *   crash         writes through a null pointer (a segmentation fault, an
 *                 access violation on Windows, which ends the process at
 *                 once: no debugger is started, as wine would)
 *
 * Portable C99 on libdmlref and jansson; the only system-specific lines,
 * under _WIN32, put stdin and stdout in binary mode, pause, and let a crash
 * end the process.
 *
 *   cc -std=c99 -Iinclude conformance/backends/reference_process.c \
 *      build/libdmlref.a -ljansson -lxxhash -lm -fopenmp -o reference_process
 *   build/dmlref check --exec ./reference_process vectors
 */
#ifndef _WIN32
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#endif
#include "dmlref.h"
#include "dmlref/vector.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#include <windows.h>
#else
#include <time.h>
#endif

/* ---- a text that grows ------------------------------------------------------ */

typedef struct text {
    char *bytes;
    size_t length, capacity;
} text;

static void append(text *t, const char *bytes, size_t length)
{
    if (t->length + length + 1 > t->capacity) {
        size_t capacity = t->capacity ? t->capacity : 4096;
        char *grown;
        while (t->length + length + 1 > capacity)
            capacity *= 2;
        if (!(grown = realloc(t->bytes, capacity))) {
            fputs("reference_process: out of memory\n", stderr);
            exit(1);
        }
        t->bytes = grown, t->capacity = capacity;
    }
    memcpy(t->bytes + t->length, bytes, length);
    t->length += length;
    t->bytes[t->length] = '\0';
}

static void append_text(text *t, const char *s)
{
    append(t, s, strlen(s));
}

/* s as a JSON string, quotes and escapes included. */
static void append_json_string(text *t, const char *s)
{
    json_t *string = json_string(s ? s : "");
    char *encoded = string ? json_dumps(string, JSON_ENCODE_ANY) : NULL;
    append_text(t, encoded ? encoded : "\"\"");
    free(encoded);
    json_decref(string);
}

/* ---- the outputs' elements ---------------------------------------------------- */

/* The output tensors in binding order, with their names in a reply. */
static size_t output_tensors(const dmlref_operator_desc *op, const dmlref_tensor_desc *descs[2],
                             const char *names[2])
{
    switch (op->Type) {
    case DMLREF_OPERATOR_GATHER_ELEMENTS:
        descs[0] = ((const dmlref_gather_elements_desc *)op->Desc)->OutputTensor;
        break;
    case DMLREF_OPERATOR_SCATTER_ELEMENTS:
        descs[0] = ((const dmlref_scatter_elements_desc *)op->Desc)->OutputTensor;
        break;
    case DMLREF_OPERATOR_GATHER_ND:
        descs[0] = ((const dmlref_gather_nd_desc *)op->Desc)->OutputTensor;
        break;
    case DMLREF_OPERATOR_GATHER_ND1:
        descs[0] = ((const dmlref_gather_nd1_desc *)op->Desc)->OutputTensor;
        break;
    case DMLREF_OPERATOR_NONZERO_COORDINATES:
        descs[0] = ((const dmlref_nonzero_coordinates_desc *)op->Desc)->OutputCountTensor;
        descs[1] = ((const dmlref_nonzero_coordinates_desc *)op->Desc)->OutputCoordinatesTensor;
        names[0] = "OutputCountTensor";
        names[1] = "OutputCoordinatesTensor";
        return 2;
    }
    names[0] = "OutputTensor";
    return 1;
}

/* The bits of the element at element offset `offset` of a buffer (elements
   are in the machine's byte order; a reply gives their values). */
static uint64_t element_bits(const unsigned char *data, uint64_t offset, uint32_t size)
{
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    data += offset * size;
    switch (size) {
    case 1:
        memcpy(&u8, data, 1);
        return u8;
    case 2:
        memcpy(&u16, data, 2);
        return u16;
    case 4:
        memcpy(&u32, data, 4);
        return u32;
    default:
        memcpy(&u64, data, 8);
        return u64;
    }
}

/* "[e0, e1, ...]": the tensor's logical elements in row-major order of its
   sizes, each found through its strides (none: packed), the first one's
   bits flipped when `wrong`. */
static void append_elements(text *t, const dmlref_tensor_desc *desc, const unsigned char *data,
                            int wrong)
{
    uint32_t coordinate[DMLREF_TENSOR_DIMENSION_COUNT_MAX] = {0};
    uint32_t strides[DMLREF_TENSOR_DIMENSION_COUNT_MAX];
    uint32_t size = dmlref_data_type_size(desc->DataType), d, rank = desc->DimensionCount;
    uint64_t count = 1, k, stride = 1;
    for (d = rank; d-- > 0;) { /* packed strides, unless the tensor gives its own */
        strides[d] = desc->Strides ? desc->Strides[d] : (uint32_t)stride;
        stride *= desc->Sizes[d];
        count *= desc->Sizes[d];
    }
    append_text(t, "[");
    for (k = 0; k < count; ++k) {
        uint64_t offset = 0, bits;
        char element[64];
        for (d = 0; d < rank; ++d)
            offset += (uint64_t)coordinate[d] * strides[d];
        bits = element_bits(data, offset, size);
        if (wrong && k == 0)
            bits = ~bits;
        if (k > 0)
            append_text(t, ", ");
        append_text(t, dmlref_format_element(desc->DataType, bits, element, sizeof element));
        for (d = rank; d-- > 0;) { /* the next coordinate, the last dimension fastest */
            if (++coordinate[d] < desc->Sizes[d])
                break;
            coordinate[d] = 0;
        }
    }
    append_text(t, "]");
}

/* ---- one case ------------------------------------------------------------------ */

/* --only: the one operator it implements. */
static int only;
static dmlref_operator_type only_operator;

/* The reply refusing or failing a case: its status and rule when known. */
static void append_refusal(text *t, const char *name, const char *message, dmlref_status status,
                           const char *rule)
{
    append_text(t, "{\"name\": ");
    append_json_string(t, name);
    append_text(t, ", \"status\": \"error\", \"message\": ");
    append_json_string(t, message);
    if (status != DMLREF_OK) {
        append_text(t, ", \"error\": {\"status\": ");
        append_json_string(t, dmlref_status_name(status));
        if (rule && rule[0]) {
            append_text(t, ", \"rule\": ");
            append_json_string(t, rule);
        }
        append_text(t, "}");
    }
    append_text(t, "}");
}

/* Reads the case.  A case that must be refused comes without input data
   when its shapes cannot hold any; the reader takes such a case only when
   it expects an error, so it is read again saying so (validation then
   finds the real reason). */
static dmlref_vector *read_case(json_t *request, const char *line, size_t length, dmlref_error *err)
{
    dmlref_vector_read_options options;
    dmlref_vector *v = NULL;
    json_t *expect;
    char *marked;
    options.flags = DMLREF_VECTOR_READ_CASE | DMLREF_VECTOR_READ_REFUSED;
    options.memory_cap = 0;
    if (dmlref_vector_parse(line, length, "request", &options, &v, err) == DMLREF_OK)
        return v;
    if (!json_is_object(request) || json_object_get(request, "expect_error"))
        return NULL;
    expect = json_pack("{s:s, s:s}", "status", "DMLREF_ERROR_INVALID_SIZES", "rule", "R-TD-2");
    json_object_set_new(request, "expect_error", expect);
    marked = json_dumps(request, JSON_COMPACT);
    if (marked &&
        dmlref_vector_parse(marked, strlen(marked), "request", &options, &v, NULL) != DMLREF_OK)
        v = NULL;
    free(marked);
    return v;
}

/* The reply to one request line: validated, then run at the case's feature
   level under its out-of-range policy. */
static void answer(const char *line, size_t length, int unsupported, int refuse, int wrong,
                   text *reply)
{
    json_t *request = json_loadb(line, length, 0, NULL);
    const char *name = json_string_value(json_object_get(request, "name"));
    dmlref_vector *v;
    dmlref_error err;
    dmlref_execute_options run;
    const dmlref_operator_desc *op;
    const dmlref_tensor_desc *descs[2];
    const char *names[2];
    size_t i, n;

    memset(&err, 0, sizeof err);
    if (only) {
        const char *op_name = json_string_value(json_object_get(request, "operator"));
        dmlref_operator_type type;
        if (!op_name || !dmlref_operator_from_name(op_name, &type) || type != only_operator) {
            append_refusal(reply, name, "reference_process: not the operator of --only",
                           DMLREF_ERROR_UNSUPPORTED_OPERATOR, NULL);
            json_decref(request);
            return;
        }
    }
    if (unsupported || refuse) {
        append_text(reply, "{\"name\": ");
        append_json_string(reply, name);
        append_text(reply, unsupported ? ", \"status\": \"unsupported\", \"message\": "
                                         "\"reference_process: told to support nothing\"}"
                                       : ", \"status\": \"error\", \"message\": "
                                         "\"reference_process: told to refuse every case\"}");
        json_decref(request);
        return;
    }
    if (!(v = read_case(request, line, length, &err))) {
        append_refusal(reply, name, err.message[0] ? err.message : "not a case", DMLREF_OK, NULL);
        json_decref(request);
        return;
    }
    op = dmlref_vector_operator(v);
    memset(&run, 0, sizeof run);
    /* a plug-in is not told a case's "oob": with --only, as the plug-in */
    run.oob_policy = only ? DMLREF_OOB_ERROR : dmlref_vector_oob_policy(v);
    /* A real backend calls its own implementation here. */
    if (dmlref_validate(op, dmlref_vector_feature_level(v), &err) != DMLREF_OK ||
        dmlref_execute_with_options(op, dmlref_vector_feature_level(v), &run,
                                    dmlref_vector_inputs(v), dmlref_vector_input_count(v),
                                    dmlref_vector_outputs(v), dmlref_vector_output_count(v),
                                    &err) != DMLREF_OK) {
        append_refusal(reply, name, err.message, err.status, err.rule);
    } else {
        append_text(reply, "{\"name\": ");
        append_json_string(reply, name);
        append_text(reply, ", \"outputs\": {");
        n = output_tensors(op, descs, names);
        for (i = 0; i < n; ++i) {
            append_text(reply, i ? ", \"" : "\"");
            append_text(reply, names[i]);
            append_text(reply, "\": ");
            append_elements(reply, descs[i], dmlref_vector_outputs(v)[i].data, wrong && i == 0);
        }
        append_text(reply, "}}");
    }
    dmlref_vector_free(v);
    json_decref(request);
}

/* ---- misbehaving -------------------------------------------------------------- */

static void pause_seconds(double seconds)
{
#ifdef _WIN32
    Sleep((DWORD)(seconds * 1000));
#else
    struct timespec t;
    t.tv_sec = (time_t)seconds;
    t.tv_nsec = (long)((seconds - (double)t.tv_sec) * 1e9);
    nanosleep(&t, NULL);
#endif
}

#ifdef _WIN32
static LONG WINAPI end_on_exception(EXCEPTION_POINTERS *exception)
{
    (void)exception;
    return EXCEPTION_EXECUTE_HANDLER;
}
#endif

/* Waits for ever, or until stdin ends (the harness ends the run): never
   replies. */
static void hang(void)
{
    while (getchar() != EOF)
        ;
    exit(0);
}

/* The number in the file COUNTER (0 when there is none), written back one
   higher. */
static unsigned long next_count(const char *counter)
{
    unsigned long k = 0;
    FILE *f = fopen(counter, "r");
    if (f) {
        if (fscanf(f, "%lu", &k) != 1)
            k = 0;
        fclose(f);
    }
    if (!(f = fopen(counter, "w")) || fprintf(f, "%lu\n", k + 1) < 0 || fclose(f) != 0) {
        fprintf(stderr, "reference_process: %s: cannot write the count\n", counter);
        exit(1);
    }
    return k;
}

static void say(const text *reply)
{
    fwrite(reply->bytes, 1, reply->length, stdout);
    fputc('\n', stdout);
    fflush(stdout); /* after every reply: the harness waits for it */
}

static void behave(const char *how, const char *line, size_t length)
{
    static int *volatile nowhere; /* a null pointer the compiler cannot see */
    text reply = {NULL, 0, 0};
    if (strcmp(how, "garbage") == 0) {
        fputs("this is not JSON\n", stdout);
        fflush(stdout);
    } else if (strcmp(how, "other-name") == 0) {
        fputs("{\"name\": \"some/other/case\", \"status\": \"unsupported\"}\n", stdout);
        fflush(stdout);
    } else if (strcmp(how, "hang") == 0) {
        hang();
    } else if (strcmp(how, "close-stdout") == 0) {
        fclose(stdout);
        hang();
    } else if (strcmp(how, "close-stdin") == 0) {
        fclose(stdin);
        for (;;)
            pause_seconds(1000);
    } else if (strcmp(how, "endless") == 0) {
        static char xs[65536];
        memset(xs, 'x', sizeof xs);
        while (fwrite(xs, 1, sizeof xs, stdout) == sizeof xs)
            ;
        exit(1); /* the harness closed the pipe */
    } else if (strcmp(how, "exit") == 0) {
        exit(3);
    } else if (strcmp(how, "crash") == 0) {
#ifdef _WIN32
        /* the process ends with the exception's code, as under Windows'
           quiet error mode, which wine does not honour: it would start its
           debugger, which writes to stdout */
        SetUnhandledExceptionFilter(end_on_exception);
#endif
        *nowhere = 1;
    } else {
        answer(line, length, strcmp(how, "unsupported") == 0, strcmp(how, "refuse") == 0,
               strcmp(how, "wrong") == 0, &reply);
        if (strcmp(how, "slow") == 0)
            pause_seconds(3);
        if (strcmp(how, "twice") == 0) { /* both lines in one write */
            char *one = malloc(reply.length + 1);
            if (one) {
                memcpy(one, reply.bytes, reply.length + 1);
                append_text(&reply, "\n");
                append_text(&reply, one);
                free(one);
            }
        }
        say(&reply);
        if (strcmp(how, "late") == 0) {
            pause_seconds(0.3);
            say(&reply);
        }
    }
    free(reply.bytes);
}

static const char *const k_behaviours[] = {"answer",  "unsupported", "refuse",       "wrong",
                                           "garbage", "other-name",  "twice",        "late",
                                           "slow",    "hang",        "close-stdout", "close-stdin",
                                           "endless", "exit",        "crash"};

static int known(const char *how)
{
    size_t i;
    for (i = 0; i < sizeof k_behaviours / sizeof *k_behaviours; ++i)
        if (strcmp(how, k_behaviours[i]) == 0)
            return 1;
    return 0;
}

/* ---- the loop ------------------------------------------------------------------- */

/* The next line of stdin without its newline (and a '\r' before it): 1, or
   0 at the end of input. */
static int read_line(text *line)
{
    char chunk[65536];
    line->length = 0;
    while (fgets(chunk, sizeof chunk, stdin)) {
        size_t n = strlen(chunk);
        append(line, chunk, n);
        if (n > 0 && chunk[n - 1] == '\n') {
            line->bytes[--line->length] = '\0';
            if (line->length > 0 && line->bytes[line->length - 1] == '\r')
                line->bytes[--line->length] = '\0';
            return 1;
        }
    }
    return line->length > 0;
}

int main(int argc, char **argv)
{
    text line = {NULL, 0, 0};
    int i;
#ifdef _WIN32
    _setmode(_fileno(stdin), _O_BINARY); /* "\n", never "\r\n" */
    _setmode(_fileno(stdout), _O_BINARY);
#endif
    if (argc > 2 && strcmp(argv[1], "--only") == 0) {
        if (!dmlref_operator_from_name(argv[2], &only_operator)) {
            fprintf(stderr, "reference_process: --only: unknown operator '%s'\n", argv[2]);
            return 3;
        }
        only = 1;
        argv[2] = argv[0];
        argc -= 2, argv += 2; /* the rest as without it */
    }
    for (i = 2; i < argc; ++i) {
        if (!known(argv[i])) {
            fprintf(stderr, "reference_process: unknown behaviour '%s'\n", argv[i]);
            return 3;
        }
    }
    while (read_line(&line)) {
        const char *how = "answer";
        if (line.length == 0)
            continue;
        if (argc > 1) {
            unsigned long k = next_count(argv[1]);
            if (k + 2 < (unsigned long)argc)
                how = argv[k + 2];
        }
        behave(how, line.bytes, line.length);
    }
    free(line.bytes);
    return 0;
}
