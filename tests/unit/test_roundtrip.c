/*
 * test_roundtrip.c - bit-exactness of the element encoding (vectors/FORMAT.md,
 * "Elements"): every FLOAT16 bit pattern, a million random FLOAT32 and
 * FLOAT64 patterns (NaN payloads, both zeros, subnormals, infinities among
 * them) and the INT64/UINT64 extremes are written by dmlref into a vector
 * and read back by dmlref to the same bits.
 *
 * Each case is GATHER_ND of one whole row (input {1, n}, one tuple [0]), so
 * the vector carries the patterns twice: as input data, and as the expected
 * output that dmlref computed.  The vectors and the raw patterns
 * (little-endian .bin files) stay in ROUNDTRIP_DIR (default
 * build/roundtrip) for tests/cross/roundtrip.py and tests/cross/roundtrip.mjs, which read
 * them back with Python's json and JavaScript's JSON.parse.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testlib.h"

/* C99 makes no folder; Windows' C library (mingw-w64) has _mkdir, POSIX mkdir. */
#ifdef _WIN32
#include <direct.h>
#define make_directory(path) _mkdir(path)
#else
#include <sys/stat.h>
#define make_directory(path) mkdir(path, 0777)
#endif

#define MILLION 1000000u

/* DMLREF_TEST_QUICK (set for the extra builds of make check, which repeat
   what the main build proves at full size) trims the random patterns: a
   platform's own formatting or parsing goes wrong for a share of them, not
   for one in a million. */
static uint32_t random_count(void)
{
    return getenv("DMLREF_TEST_QUICK") ? 16384u : MILLION;
}

static const char *out_dir(void)
{
    const char *dir = getenv("ROUNDTRIP_DIR");
    return dir && *dir ? dir : "build/roundtrip";
}

static void append(char **text, size_t *length, size_t *capacity, const char *piece)
{
    size_t n = strlen(piece);
    if (*length + n + 1 > *capacity) {
        *capacity = 2 * (*capacity + n) + 1024;
        *text = realloc(*text, *capacity);
        assert_non_null(*text);
    }
    memcpy(*text + *length, piece, n + 1);
    *length += n;
}

/* Writes the patterns through a vector and reads them back; leaves
   DIR/NAME.json and DIR/NAME.bin. */
static void round_trip(const char *name, dmlref_tensor_data_type type, const uint64_t *patterns,
                       uint32_t n)
{
    uint32_t es = dmlref_data_type_size(type), i;
    size_t length = 0, capacity = 0, written_length;
    char *text = NULL, piece[512], path[512], *written;
    dmlref_vector_read_options as_case = {DMLREF_VECTOR_READ_CASE, 0};
    dmlref_vector *v, *back;
    dmlref_error err;
    unsigned char *raw = malloc((size_t)n * es + 1);
    const unsigned char *in;
    FILE *f;

    assert_non_null(raw);
    snprintf(piece, sizeof piece,
             "{\"format\": \"dmlref-vector-1\", \"name\": \"roundtrip/%s\", \"operator\": "
             "\"GATHER_ND\", \"attributes\": {\"InputDimensionCount\": 2, "
             "\"IndicesDimensionCount\": 1}, \"tensors\": {\"InputTensor\": {\"dtype\": \"%s\", "
             "\"sizes\": [1, %u], \"data\": [",
             name, dmlref_data_type_name(type), n);
    append(&text, &length, &capacity, piece);
    for (i = 0; i < n; ++i) {
        char element[48];
        uint32_t b;
        for (b = 0; b < es; ++b)
            raw[(size_t)i * es + b] = (unsigned char)(patterns[i] >> (8 * b));
        dmlref_format_element(type, patterns[i], element, sizeof element);
        append(&text, &length, &capacity, i ? ", " : "");
        append(&text, &length, &capacity, element);
    }
    append(&text, &length, &capacity,
           "]}, \"IndicesTensor\": {\"dtype\": \"UINT32\", \"sizes\": [1, 1], \"data\": [0]}, "
           "\"OutputTensor\": {\"dtype\": \"");
    append(&text, &length, &capacity, dmlref_data_type_name(type));
    append(&text, &length, &capacity, "\"}}}");

    /* dmlref writes the vector (the expected output computed by the kernel) */
    if (dmlref_vector_parse(text, length, name, &as_case, &v, &err) != DMLREF_OK)
        fail_msg("%s", err.message);
    assert_int_equal(dmlref_vector_eval(v, 0, &err), DMLREF_OK);
    assert_int_equal(dmlref_vector_write(v, &written, &written_length, &err), DMLREF_OK);
    dmlref_vector_free(v);
    free(text);

    /* ... and reads it back: the input holds the same bits, and verify
       recomputes the output and finds the expected bits equal */
    if (dmlref_vector_parse(written, written_length, name, NULL, &back, &err) != DMLREF_OK)
        fail_msg("%s", err.message);
    in = dmlref_vector_inputs(back)[0].data;
    for (i = 0; i < n; ++i) {
        uint64_t got = load_host_bits(in + (size_t)i * es, es);
        if (got != patterns[i])
            fail_msg("%s element %u: wrote 0x%llx, read 0x%llx", name, i,
                     (unsigned long long)patterns[i], (unsigned long long)got);
    }
    assert_int_equal(dmlref_vector_verify(back, 0, &err), DMLREF_OK);
    dmlref_vector_free(back);

    make_directory(out_dir());
    snprintf(path, sizeof path, "%s/%s.json", out_dir(), name);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(written, 1, written_length, f), written_length);
    fclose(f);
    snprintf(path, sizeof path, "%s/%s.bin", out_dir(), name);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(raw, 1, (size_t)n * es, f), (size_t)n * es);
    fclose(f);
    free(written);
    free(raw);
}

/* Random patterns with the interesting classes mixed in: both zeros, both
   infinities, quiet and signalling NaNs with payloads, subnormals, extremes. */
static uint64_t *float_patterns(uint32_t bits, uint32_t n, uint64_t seed)
{
    uint64_t *p = malloc((size_t)n * sizeof *p), sign = (uint64_t)1 << (bits - 1);
    uint64_t mask = bits == 64 ? UINT64_MAX : (((uint64_t)1 << bits) - 1);
    uint32_t mantissa_bits = bits == 64 ? 52 : 23, i;
    uint64_t exponent = (mask >> 1) & ~(((uint64_t)1 << mantissa_bits) - 1);
    rng r;
    assert_non_null(p);
    rng_seed(&r, seed);
    for (i = 0; i < n; ++i) {
        uint64_t x = rng_next(&r) & mask;
        switch (i % 8) {
        case 0:
            x &= sign | (((uint64_t)1 << mantissa_bits) - 1);
            break; /* subnormal or zero */
        case 1:
            x |= exponent;
            break; /* NaN or infinity */
        case 2:
            x = (i / 8) % 2 ? sign : 0;
            break; /* +0, -0 */
        default:
            break; /* anything */
        }
        p[i] = x;
    }
    return p;
}

/* Ensure every one of the 65,536 FLOAT16 bit patterns survives. */
static void test_roundtrip_every_float16_pattern(void **state)
{
    uint64_t *p = malloc(65536 * sizeof *p);
    uint32_t i;
    (void)state;
    assert_non_null(p);
    for (i = 0; i < 65536; ++i)
        p[i] = i;
    round_trip("float16_all", DMLREF_TENSOR_DATA_TYPE_FLOAT16, p, 65536);
    free(p);
}

/* Ensure a million FLOAT32 patterns survive. */
static void test_roundtrip_million_float32_patterns(void **state)
{
    uint64_t *p = float_patterns(32, random_count(), 32);
    (void)state;
    round_trip("float32_random", DMLREF_TENSOR_DATA_TYPE_FLOAT32, p, random_count());
    free(p);
}

/* Ensure a million FLOAT64 patterns survive. */
static void test_roundtrip_million_float64_patterns(void **state)
{
    uint64_t *p = float_patterns(64, random_count(), 64);
    (void)state;
    round_trip("float64_random", DMLREF_TENSOR_DATA_TYPE_FLOAT64, p, random_count());
    free(p);
}

/* Ensure the 64-bit integer extremes, both sides of 2^53 (where the encoding
   switches to strings), and random values survive. */
static void test_roundtrip_int64_and_uint64_extremes(void **state)
{
    static const uint64_t edges[] = {0,
                                     1,
                                     UINT64_MAX,
                                     (uint64_t)INT64_MAX,
                                     (uint64_t)INT64_MIN,
                                     (uint64_t)INT64_MIN + 1,
                                     9007199254740992ull,
                                     9007199254740993ull,
                                     9007199254740991ull,
                                     (uint64_t)-9007199254740992LL,
                                     (uint64_t)-9007199254740993LL,
                                     (uint64_t)-9007199254740991LL,
                                     UINT64_MAX - 1};
    enum { EDGES = sizeof edges / sizeof edges[0], N = EDGES + 1000 };
    uint64_t p[N];
    uint32_t i;
    rng r;
    (void)state;
    rng_seed(&r, 6464);
    for (i = 0; i < N; ++i)
        p[i] = i < EDGES ? edges[i] : rng_next(&r) >> (rng_next(&r) % 64);
    round_trip("int64_extremes", DMLREF_TENSOR_DATA_TYPE_INT64, p, N);
    round_trip("uint64_extremes", DMLREF_TENSOR_DATA_TYPE_UINT64, p, N);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_every_float16_pattern),
        cmocka_unit_test(test_roundtrip_million_float32_patterns),
        cmocka_unit_test(test_roundtrip_million_float64_patterns),
        cmocka_unit_test(test_roundtrip_int64_and_uint64_extremes),
    };
    return cmocka_run_group_tests_name("roundtrip", tests, NULL, NULL);
}
