/*
 * fuzz_vector.c - libFuzzer target: the golden-vector reader, and everything
 * that runs on what it accepts (eval, verify, write).
 *
 * Input: byte 0 picks how to read, the rest is the JSON text (the seeds are
 * vectors with one such byte in front: '0' full vector, '1' eval case).
 *   bit 0     flags: DMLREF_VECTOR_READ_CASE (1) or 0
 *   bit 1     run the case at another feature level: bits 2..5 pick it
 *             (dmlref_vector_set_feature_level, as `dmlref check` does)
 *   bit 6     eval with DMLREF_VECTOR_EVAL_DIGESTS (as `dmlref eval` does)
 * The reader's memory cap is 64 MiB, so no case may allocate more.
 *
 * Checks, beyond "no crash, no UB, no leak" (ASan, UBSan, LSan):
 *   - every status is one dmlref names, every message one NUL-terminated line;
 *   - eval OK => verify OK (the reference agrees with itself, here on 2
 *     threads after eval on 1: results must not depend on the thread count);
 *   - the written text parses again (same flags) whenever the case is valid
 *     at its level or expects an error;
 *   - eval OK => write, parse, write gives the same bytes (the canonical
 *     layout is a fixed point), and the re-read vector verifies too;
 *   - a valid case written as a one-line case (WRITE_CASE | WRITE_ONE_LINE)
 *     has no newline and reads back as a case.
 */
#include "fuzz_util.h"

#include <stdlib.h>

#define MEMORY_CAP (64ull << 20)

static dmlref_vector *parse(const char *text, size_t length, uint32_t flags)
{
    dmlref_vector_read_options options = {flags, MEMORY_CAP};
    dmlref_vector *v = NULL;
    dmlref_error err;
    dmlref_status status;
    memset(&err, 0xAA, sizeof err);
    status = dmlref_vector_parse(text, length, "fuzz", &options, &v, &err);
    fuzz_check_error(status, &err, "fuzz"); /* messages start with the source name */
    FUZZ_ASSERT((status == DMLREF_OK) == (v != NULL));
    return v;
}

/* The vector's text (with the write flags), or NULL (then it must be OOM). */
static char *write_vector(const dmlref_vector *v, uint32_t flags, size_t *length)
{
    char *text = NULL;
    dmlref_error err;
    dmlref_status status;
    memset(&err, 0xAA, sizeof err);
    status = dmlref_vector_write_with(v, flags, &text, length, &err);
    fuzz_check_error(status, &err, NULL);
    FUZZ_ASSERT(status == DMLREF_OK || status == DMLREF_ERROR_OUT_OF_MEMORY);
    FUZZ_ASSERT(status != DMLREF_OK || (text && strlen(text) == *length));
    return status == DMLREF_OK ? text : NULL;
}

static dmlref_status run(dmlref_status (*fn)(dmlref_vector *, uint32_t, dmlref_error *),
                         dmlref_vector *v, uint32_t threads)
{
    dmlref_error err;
    dmlref_status status;
    memset(&err, 0xAA, sizeof err);
    status = fn(v, threads, &err);
    fuzz_check_error(status, &err, "fuzz"); /* "fuzz: $.path: ..." */
    return status;
}

static dmlref_status eval_digests(dmlref_vector *v, uint32_t threads, dmlref_error *err)
{
    return dmlref_vector_eval_with(v, threads, DMLREF_VECTOR_EVAL_DIGESTS, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint32_t flags;
    const char *json;
    dmlref_vector *v, *again;
    dmlref_status eval_status;
    char *text, *text2;
    size_t length = 0, length2 = 0;
    int valid;

    if (size < 1)
        return 0;
    flags = (data[0] & 1u) ? DMLREF_VECTOR_READ_CASE : 0;
    json = (const char *)data + 1;
    v = parse(json, size - 1, flags);
    if (!v)
        return 0;
    if (data[0] & 2u)
        dmlref_vector_set_feature_level(v, fuzz_levels[(data[0] >> 2) & 15u]);

    /* verify against what the file states: any verdict, but a known one */
    run(dmlref_vector_verify, v, 1);
    eval_status = run((data[0] & 64u) ? eval_digests : dmlref_vector_eval, v, 1);
    if (eval_status == DMLREF_OK)
        FUZZ_ASSERT(run(dmlref_vector_verify, v, 2) == DMLREF_OK);

    valid = dmlref_validate(dmlref_vector_operator(v), dmlref_vector_feature_level(v), NULL) ==
            DMLREF_OK;
    text = write_vector(v, 0, &length);
    if (text && (valid || dmlref_vector_expects_error(v, NULL, NULL))) {
        again = parse(text, length, flags);
        FUZZ_ASSERT(again != NULL);
        if (eval_status == DMLREF_OK) {
            text2 = write_vector(again, 0, &length2);
            FUZZ_ASSERT(text2 && length2 == length && memcmp(text, text2, length) == 0);
            FUZZ_ASSERT(run(dmlref_vector_verify, again, 1) == DMLREF_OK);
            free(text2);
        }
        dmlref_vector_free(again);
    }
    free(text);

    if (valid && dmlref_vector_has_data(v)) {
        text = write_vector(v, DMLREF_VECTOR_WRITE_CASE | DMLREF_VECTOR_WRITE_ONE_LINE, &length);
        if (text) {
            FUZZ_ASSERT(memchr(text, '\n', length) == NULL);
            again = parse(text, length, DMLREF_VECTOR_READ_CASE);
            FUZZ_ASSERT(again != NULL);
            dmlref_vector_free(again);
            free(text);
        }
    }
    dmlref_vector_free(v);
    return 0;
}
