/*
 * fuzz_util.h - what the libFuzzer targets of tests/fuzz/ share: reading
 * typed values from the fuzz bytes, and the checks every dmlref error must
 * pass.  Header-only (static inline), C99.
 */
#ifndef DMLREF_FUZZ_UTIL_H
#define DMLREF_FUZZ_UTIL_H

#include "dmlref.h"
#include "dmlref/vector.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A violated property: trap, so libFuzzer saves the input as a crash. */
#define FUZZ_ASSERT(cond)                                                                          \
    do {                                                                                           \
        if (!(cond))                                                                               \
            __builtin_trap();                                                                      \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The fuzz bytes, consumed from the front; once they run out every read
 * gives 0, so any input, even empty, describes something. */
typedef struct fuzz_bytes {
    const uint8_t *data;
    size_t size;
} fuzz_bytes;

static inline uint8_t fb_u8(fuzz_bytes *b)
{
    if (b->size == 0)
        return 0;
    --b->size;
    return *b->data++;
}

static inline uint32_t fb_u32(fuzz_bytes *b) /* little-endian */
{
    uint32_t v = 0;
    int i;
    for (i = 0; i < 4; ++i)
        v |= (uint32_t)fb_u8(b) << (8 * i);
    return v;
}

static inline uint64_t fb_u64(fuzz_bytes *b)
{
    uint64_t lo = fb_u32(b);
    return lo | (uint64_t)fb_u32(b) << 32;
}

/* A 32-bit value biased towards what matters: mostly 0..7, sometimes an edge
 * (2^31 - 1, 2^31, 2^32 - 2, 2^32 - 1, 2^16 - 1, 2^16), rarely anything. */
static inline uint32_t fb_value32(fuzz_bytes *b)
{
    static const uint32_t edges[8] = {0u,          1u,          0x7FFFFFFFu, 0x80000000u,
                                      0xFFFFFFFEu, 0xFFFFFFFFu, 0xFFFFu,     0x10000u};
    uint8_t x = fb_u8(b);
    if (x < 0xC0)
        return x & 7u;
    if (x < 0xF0)
        return edges[x & 7u];
    return fb_u32(b);
}

/* Every DirectML feature level dmlref knows, and 0 (= the latest, D19). */
static const dmlref_feature_level fuzz_levels[16] = {
    (dmlref_feature_level)0,  DMLREF_FEATURE_LEVEL_1_0, DMLREF_FEATURE_LEVEL_2_0,
    DMLREF_FEATURE_LEVEL_2_1, DMLREF_FEATURE_LEVEL_3_0, DMLREF_FEATURE_LEVEL_3_1,
    DMLREF_FEATURE_LEVEL_4_0, DMLREF_FEATURE_LEVEL_4_1, DMLREF_FEATURE_LEVEL_5_0,
    DMLREF_FEATURE_LEVEL_5_1, DMLREF_FEATURE_LEVEL_5_2, DMLREF_FEATURE_LEVEL_6_0,
    DMLREF_FEATURE_LEVEL_6_1, DMLREF_FEATURE_LEVEL_6_2, DMLREF_FEATURE_LEVEL_6_3,
    DMLREF_FEATURE_LEVEL_6_4};

/* The five operator types, in DirectML's numbering. */
static const dmlref_operator_type fuzz_ops[5] = {
    DMLREF_OPERATOR_SCATTER_ELEMENTS, DMLREF_OPERATOR_GATHER_ELEMENTS, DMLREF_OPERATOR_GATHER_ND,
    DMLREF_OPERATOR_NONZERO_COORDINATES, DMLREF_OPERATOR_GATHER_ND1};

/* Every status is one dmlref names (include/dmlref.h pins the values). */
static inline void fuzz_check_status(dmlref_status status)
{
    FUZZ_ASSERT(strcmp(dmlref_status_name(status), "DMLREF_ERROR_UNKNOWN") != 0);
}

/* What dmlref.h promises of a failure's dmlref_error: the status it returned,
 * a NUL-terminated rule, and a non-empty, NUL-terminated, one-line message (no
 * control characters) that starts with `prefix` when that is not NULL.  The
 * caller fills err with garbage before the call, so an unterminated buffer
 * shows. */
static inline void fuzz_check_error(dmlref_status status, const dmlref_error *err,
                                    const char *prefix)
{
    const char *end = memchr(err->message, '\0', sizeof err->message);
    const char *c;
    fuzz_check_status(status);
    if (status == DMLREF_OK)
        return;
    FUZZ_ASSERT(err->status == status);
    FUZZ_ASSERT(memchr(err->rule, '\0', sizeof err->rule) != NULL);
    FUZZ_ASSERT(end != NULL && end != err->message);
    for (c = err->message; c < end; ++c)
        FUZZ_ASSERT((unsigned char)*c >= 0x20 && *c != 0x7F);
    if (prefix)
        FUZZ_ASSERT(strncmp(err->message, prefix, strlen(prefix)) == 0 &&
                    strncmp(err->message + strlen(prefix), ": ", 2) == 0);
}

#endif /* DMLREF_FUZZ_UTIL_H */
