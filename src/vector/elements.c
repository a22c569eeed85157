/*
 * elements.c - one element's bits <-> its text in a vector (vectors/FORMAT.md,
 * "Elements"), float16 conversions, the generators and the digest.
 */
#include "vector/vector_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <xxhash.h>

/* ---- float16 -------------------------------------------------------------- */

double half_to_double(uint16_t h)
{
    int exponent = (h >> 10) & 0x1F;
    double magnitude, mantissa = (double)(h & 0x3FF);
    if (exponent == 0x1F)
        magnitude = (h & 0x3FF) ? NAN : INFINITY;
    else if (exponent == 0)
        magnitude = ldexp(mantissa, -24); /* subnormal */
    else
        magnitude = ldexp(mantissa + 1024.0, exponent - 25);
    return (h & 0x8000) ? -magnitude : magnitude;
}

int half_from_double_exact(double value, uint16_t *out)
{
    /* every finite half is m * 2^(e) with |m| < 2048 and -24 <= e <= 5:
       scale to an integer and check it survives the round trip */
    /* copysign, not signbit: mingw-w64's classification macros convert to float */
    uint16_t sign = copysign(1.0, value) < 0 ? 0x8000 : 0;
    double a = fabs(value);
    int e;
    uint16_t h;
    if (a == 0.0) {
        *out = sign;
        return 1;
    }
    if (!(a <= 65504.0))
        return 0;  /* too large (NaN and infinities are not numbers here) */
    frexp(a, &e);  /* a = f * 2^e, 0.5 <= f < 1 */
    if (e < -13) { /* subnormal range: multiples of 2^-24 */
        double m = ldexp(a, 24);
        if (m != floor(m))
            return 0;
        h = (uint16_t)m;
    } else {
        double m = ldexp(a, 11 - e); /* 1024 <= m < 2048 */
        if (m != floor(m))
            return 0;
        h = (uint16_t)(((uint16_t)(e + 14) << 10) | ((uint16_t)m - 1024));
    }
    *out = (uint16_t)(sign | h);
    return 1;
}

/* ---- decoding ------------------------------------------------------------- */

int is_float_type(dmlref_tensor_data_type type)
{
    return type == DMLREF_TENSOR_DATA_TYPE_FLOAT16 || type == DMLREF_TENSOR_DATA_TYPE_FLOAT32 ||
           type == DMLREF_TENSOR_DATA_TYPE_FLOAT64;
}

int is_signed_int_type(dmlref_tensor_data_type type)
{
    return type == DMLREF_TENSOR_DATA_TYPE_INT8 || type == DMLREF_TENSOR_DATA_TYPE_INT16 ||
           type == DMLREF_TENSOR_DATA_TYPE_INT32 || type == DMLREF_TENSOR_DATA_TYPE_INT64;
}

void int_type_range(dmlref_tensor_data_type type, int64_t *min, uint64_t *max)
{
    uint32_t bits = 8 * dmlref_data_type_size(type);
    if (is_signed_int_type(type)) {
        *max = (bits == 64) ? (uint64_t)INT64_MAX : ((uint64_t)1 << (bits - 1)) - 1;
        *min = -(int64_t)(*max) - 1;
    } else {
        *max = (bits == 64) ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
        *min = 0;
    }
}

int parse_decimal(const char *text, int *negative, uint64_t *magnitude)
{
    uint64_t v = 0;
    const char *p = text;
    *negative = 0;
    if (*p == '-') {
        *negative = 1;
        ++p;
    }
    if (!*p || (p[0] == '0' && p[1]))
        return 0; /* empty, or a leading zero */
    for (; *p; ++p) {
        unsigned digit;
        if (*p < '0' || *p > '9')
            return 0;
        digit = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - digit) / 10)
            return 0;
        v = v * 10 + digit;
    }
    if (*negative && v == 0)
        return 0; /* "-0" is not an integer spelling */
    *magnitude = v;
    return 1;
}

int integer_fits(dmlref_tensor_data_type type, int negative, uint64_t magnitude, uint64_t *bits)
{
    int64_t min;
    uint64_t max;
    int_type_range(type, &min, &max);
    if (negative) {
        if (min == 0 || magnitude > (uint64_t)INT64_MAX + 1 ||
            magnitude > (uint64_t)(-(min + 1)) + 1)
            return 0;
        *bits = (uint64_t)0 - magnitude; /* two's complement, in the type's width */
        if (dmlref_data_type_size(type) < 8)
            *bits &= ((uint64_t)1 << (8 * dmlref_data_type_size(type))) - 1;
    } else {
        if (magnitude > max)
            return 0;
        *bits = magnitude;
    }
    return 1;
}

static int hex_nan(const char *text, dmlref_tensor_data_type type, uint64_t *bits)
{
    uint32_t digits = 2 * dmlref_data_type_size(type), i;
    uint64_t v = 0;
    if (strncmp(text, "0x", 2) != 0 || strlen(text) != 2 + digits)
        return 0;
    for (i = 0; i < digits; ++i) {
        char c = text[2 + i];
        int d = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
        if (d < 0)
            return 0;
        v = (v << 4) | (uint64_t)d;
    }
    *bits = v;
    return 1;
}

/* Bits of a float type's canonical quiet NaN, infinity, and sign. */
static uint64_t float_bits_nan(dmlref_tensor_data_type type)
{
    return type == DMLREF_TENSOR_DATA_TYPE_FLOAT16   ? 0x7E00u
           : type == DMLREF_TENSOR_DATA_TYPE_FLOAT32 ? 0x7FC00000u
                                                     : 0x7FF8000000000000ull;
}

static uint64_t float_bits_inf(dmlref_tensor_data_type type)
{
    return type == DMLREF_TENSOR_DATA_TYPE_FLOAT16   ? 0x7C00u
           : type == DMLREF_TENSOR_DATA_TYPE_FLOAT32 ? 0x7F800000u
                                                     : 0x7FF0000000000000ull;
}

static uint64_t float_bits_sign(dmlref_tensor_data_type type)
{
    return (uint64_t)1 << (8 * dmlref_data_type_size(type) - 1);
}

/* 1 when the bits are a NaN of the type. */
static int float_bits_is_nan(dmlref_tensor_data_type type, uint64_t bits)
{
    uint64_t inf = float_bits_inf(type);
    return (bits & inf) == inf && (bits & (float_bits_sign(type) - 1) & ~inf) != 0;
}

const char *decode_element_text(dmlref_tensor_data_type type, const char *text, uint64_t *bits)
{
    if (is_float_type(type)) {
        if (strcmp(text, "nan") == 0)
            *bits = float_bits_nan(type);
        else if (strcmp(text, "inf") == 0)
            *bits = float_bits_inf(type);
        else if (strcmp(text, "-inf") == 0)
            *bits = float_bits_inf(type) | float_bits_sign(type);
        else if (hex_nan(text, type, bits)) {
            if (!float_bits_is_nan(type, *bits))
                return "a hex string must spell a NaN (use a number for other values)";
        } else
            return "must be a number, \"inf\", \"-inf\", \"nan\" or a hex NaN such as "
                   "\"0x7fc00001\"";
        return NULL;
    }
    if (dmlref_data_type_size(type) == 8) {
        int negative;
        uint64_t magnitude;
        if (!parse_decimal(text, &negative, &magnitude))
            return "must be a decimal integer string";
        if (!integer_fits(type, negative, magnitude, bits))
            return "is out of the type's range";
        return NULL;
    }
    return "must be a JSON integer (only 64-bit integers may be strings)";
}

const char *decode_element_number(dmlref_tensor_data_type type, int is_integer, long long integer,
                                  double real, uint64_t *bits)
{
    if (is_float_type(type)) {
        double v = real;
        if (is_integer) {
            v = (double)integer;
            if (v >= 9223372036854775807.0 || (long long)v != integer)
                return "is an integer a double cannot hold exactly";
        }
        switch (type) {
        case DMLREF_TENSOR_DATA_TYPE_FLOAT64:
            memcpy(bits, &v, 8);
            return NULL;
        case DMLREF_TENSOR_DATA_TYPE_FLOAT32: {
            float f = (float)v;
            uint32_t b;
            if ((double)f != v)
                return "is not exactly representable as FLOAT32";
            memcpy(&b, &f, 4);
            *bits = b;
            return NULL;
        }
        default: {
            uint16_t h;
            if (!half_from_double_exact(v, &h))
                return "is not exactly representable as FLOAT16";
            *bits = h;
            return NULL;
        }
        }
    }
    if (!is_integer)
        return "must be an integer";
    if (dmlref_data_type_size(type) == 8 &&
        (integer > 9007199254740992LL || integer < -9007199254740992LL))
        return "is a JSON integer beyond 2^53: write it as a decimal string";
    if (!integer_fits(type, integer < 0,
                      integer < 0 ? (uint64_t)0 - (uint64_t)integer : (uint64_t)integer, bits))
        return "is out of the type's range";
    return NULL;
}

/* ---- encoding ------------------------------------------------------------- */

static double float_value(dmlref_tensor_data_type type, uint64_t bits)
{
    if (type == DMLREF_TENSOR_DATA_TYPE_FLOAT16)
        return half_to_double((uint16_t)bits);
    if (type == DMLREF_TENSOR_DATA_TYPE_FLOAT32) {
        uint32_t b = (uint32_t)bits;
        float f;
        memcpy(&f, &b, 4);
        return f;
    } else {
        double d;
        memcpy(&d, &bits, 8);
        return d;
    }
}

/* Writes a decimal as printf's %.<precision>g would, from its digit string
   and decimal exponent (value = d.ddd x 10^exponent). */
static void render_g(const char *digits, int precision, int exponent, char *buf, size_t capacity)
{
    char d[24];
    size_t n, i, used = 0;
    snprintf(d, sizeof d, "%s", digits);
    for (n = strlen(d); n > 1 && d[n - 1] == '0'; --n)
        d[n - 1] = '\0'; /* %g drops trailing zeros */
    if (exponent < -4 || exponent >= precision) {
        used = (size_t)snprintf(buf, capacity, "%c", d[0]);
        if (n > 1)
            used += (size_t)snprintf(buf + used, capacity - used, ".%s", d + 1);
        snprintf(buf + used, capacity - used, "e%c%02d", exponent < 0 ? '-' : '+',
                 exponent < 0 ? -exponent : exponent);
    } else if (exponent >= 0) {
        for (i = 0; i <= (size_t)exponent; ++i)
            used += (size_t)snprintf(buf + used, capacity - used, "%c", i < n ? d[i] : '0');
        if (n > (size_t)exponent + 1)
            snprintf(buf + used, capacity - used, ".%s", d + exponent + 1);
    } else {
        used = (size_t)snprintf(buf, capacity, "0.");
        for (i = 0; i < (size_t)(-exponent - 1); ++i)
            used += (size_t)snprintf(buf + used, capacity - used, "0");
        snprintf(buf + used, capacity - used, "%s", d);
    }
}

/* A decimal of `digits` significant digits that a double parser reads back
   as v: printf's nearest one, or else its neighbour on the other side of v
   (the nearest may fall outside v's rounding interval when v sits at a
   power of two, where the interval is lopsided).  0 when neither does. */
static int decimal_with(double v, int digits, char *buf, size_t capacity)
{
    char e[40], mantissa[24];
    int exponent, i, length = 0;
    double nearest;
    snprintf(buf, capacity, "%.*g", digits, v);
    if (strtod(buf, NULL) == v)
        return 1;
    if (frexp(fabs(v), &exponent) != 0.5)
        return 0; /* a symmetric interval: the farther neighbour is out too */
    snprintf(e, sizeof e, "%.*e", digits - 1, fabs(v));
    nearest = strtod(e, NULL);
    for (i = 0; e[i] && e[i] != 'e'; ++i) /* the digits, without the point */
        if (e[i] != '.')
            mantissa[length++] = e[i];
    mantissa[length] = '\0';
    exponent = atoi(e + i + 1);
    /* step the last digit by one toward v, carrying */
    if (nearest < fabs(v)) {
        for (i = length - 1; i >= 0 && mantissa[i] == '9'; --i)
            mantissa[i] = '0';
        if (i < 0) { /* 99..9 -> 100..0 */
            memmove(mantissa + 1, mantissa, (size_t)length);
            mantissa[0] = '1';
            mantissa[length] = '\0';
            ++exponent;
        } else {
            ++mantissa[i];
        }
    } else {
        for (i = length - 1; i >= 0 && mantissa[i] == '0'; --i)
            mantissa[i] = '9';
        if (i < 0 || (i == 0 && mantissa[0] == '1' && length == 1))
            return 0;
        --mantissa[i];
        if (mantissa[0] == '0') { /* 10..0 -> 09..9: one digit fewer */
            memmove(mantissa, mantissa + 1, (size_t)length);
            --exponent;
        }
    }
    {
        char body[48];
        render_g(mantissa, digits, exponent, body, sizeof body);
        snprintf(buf, capacity, "%s%s", v < 0 ? "-" : "", body);
    }
    return strtod(buf, NULL) == v;
}

/* The fewest significant digits of a decimal that a double parser reads
   back as v.  The value as a double must come back, not merely as the
   narrower type: up to 17 digits for any of them.  Enough digits stay
   enough, so the count is bisected, after 16 and 15 are tried: a value
   drawn at random needs 16 or 17. */
static int fewest_digits(double v, char *buf, size_t capacity)
{
    int low = 1, high = 15;
    if (!decimal_with(v, 16, buf, capacity))
        return 17;
    if (!decimal_with(v, 15, buf, capacity))
        return 16;
    while (low < high) {
        int middle = (low + high) / 2;
        if (decimal_with(v, middle, buf, capacity))
            high = middle;
        else
            low = middle + 1;
    }
    return low;
}

void format_element(dmlref_tensor_data_type type, uint64_t bits, char *buf, size_t capacity)
{
    uint32_t size = dmlref_data_type_size(type);
    if (is_float_type(type)) {
        double v = float_value(type, bits);
        int precision;
        if (float_bits_is_nan(type, bits)) {
            if (bits == float_bits_nan(type))
                snprintf(buf, capacity, "\"nan\"");
            else
                snprintf(buf, capacity, "\"0x%0*llx\"", (int)(2 * size), (unsigned long long)bits);
        } else if (fabs(v) == HUGE_VAL) { /* an infinity (mingw-w64's isinf converts to float) */
            snprintf(buf, capacity, v < 0 ? "\"-inf\"" : "\"inf\"");
        } else if (v == 0.0) {
            snprintf(buf, capacity, copysign(1.0, v) < 0 ? "-0.0" : "0");
        } else if (v == floor(v) && fabs(v) < 9007199254740992.0) {
            snprintf(buf, capacity, "%.0f", v); /* an integer: "20", not "2e+01" */
        } else {
            /* the shortest decimal that a double parser reads back exactly;
               written with an exponent rather than as a long integer, which
               JSON readers would take for an integer */
            precision = fewest_digits(v, buf, capacity);
            decimal_with(v, precision, buf, capacity);
            if (strcspn(buf, ".e") == strlen(buf) && fabs(v) >= 9007199254740992.0)
                snprintf(buf, capacity, "%.*e", precision - 1, v);
        }
        return;
    }
    if (is_signed_int_type(type)) {
        int64_t v;
        /* sign-extend from the type's width */
        uint32_t shift = 64 - 8 * size;
        v = (int64_t)(bits << shift) >> shift;
        if (size == 8 && (v > 9007199254740992LL || v < -9007199254740992LL))
            snprintf(buf, capacity, "\"%lld\"", (long long)v);
        else
            snprintf(buf, capacity, "%lld", (long long)v);
        return;
    }
    if (size == 8 && bits > 9007199254740992ull)
        snprintf(buf, capacity, "\"%llu\"", (unsigned long long)bits);
    else
        snprintf(buf, capacity, "%llu", (unsigned long long)bits);
}

char *dmlref_format_element(dmlref_tensor_data_type type, uint64_t bits, char *buf, size_t capacity)
{
    if (!buf || !capacity)
        return buf;
    if (!dmlref_data_type_size(type))
        snprintf(buf, capacity, "null");
    else
        format_element(type, bits, buf, capacity);
    return buf;
}

void describe_element(dmlref_tensor_data_type type, uint64_t bits, char *buf, size_t capacity)
{
    char text[48];
    format_element(type, bits, text, sizeof text);
    snprintf(buf, capacity, "%s (0x%0*llx)", text, (int)(2 * dmlref_data_type_size(type)),
             (unsigned long long)bits);
}

/* Elements live in host buffers in the host's byte order (the kernels read
   indices as host integers); vectors and digests are little-endian. */
uint64_t load_bits(const unsigned char *p, uint32_t size)
{
    switch (size) {
    case 1:
        return p[0];
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    default: {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    }
}

void store_bits(unsigned char *p, uint32_t size, uint64_t bits)
{
    switch (size) {
    case 1:
        p[0] = (unsigned char)bits;
        break;
    case 2: {
        uint16_t v = (uint16_t)bits;
        memcpy(p, &v, 2);
        break;
    }
    case 4: {
        uint32_t v = (uint32_t)bits;
        memcpy(p, &v, 4);
        break;
    }
    default:
        memcpy(p, &bits, 8);
        break;
    }
}

/* ---- generators ------------------------------------------------------------ */

uint64_t splitmix64(uint64_t seed, uint64_t i)
{
    uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t one_bits(dmlref_tensor_data_type type)
{
    switch (type) {
    case DMLREF_TENSOR_DATA_TYPE_FLOAT16:
        return 0x3C00u;
    case DMLREF_TENSOR_DATA_TYPE_FLOAT32:
        return 0x3F800000u;
    case DMLREF_TENSOR_DATA_TYPE_FLOAT64:
        return 0x3FF0000000000000ull;
    default:
        return 1;
    }
}

uint64_t generate_element(const generator *g, dmlref_tensor_data_type type, uint64_t i)
{
    uint64_t r = splitmix64(g->seed, i);
    uint32_t size = dmlref_data_type_size(type);
    uint64_t mask = size == 8 ? UINT64_MAX : (((uint64_t)1 << (8 * size)) - 1);
    switch (g->kind) {
    case GENERATOR_BITS:
        return r & mask;
    case GENERATOR_INDEX: {
        uint32_t j = (uint32_t)(i % g->bound_count);
        uint64_t span = g->high[j] - g->low[j] + 1; /* modulo 2^64 */
        return (g->low[j] + (span ? r % span : r)) & mask;
    }
    default: /* GENERATOR_SPARSE */
        return (r % 1000000u < g->density) ? one_bits(type) : 0;
    }
}

/* ---- digests ---------------------------------------------------------------- */

/* Feeds `count` logical elements, starting at logical position `first`, of a
 * tensor stored with `l` at `data` to an XXH3 state, in chunks. */
static void digest_elements(XXH3_state_t *state, const layout *l, const unsigned char *data,
                            uint64_t first, uint64_t count)
{
    unsigned char chunk[4096];
    size_t used = 0;
    uint64_t n;
    walker w;
    walker_init(&w, l->rank, l->sizes);
    walker_add(&w, l->strides);
    walker_seek(&w, first);
    for (n = 0; n < count; ++n, walker_next(&w)) {
        uint64_t bits = load_bits(data + w.offset[0] * l->element_size, l->element_size);
        uint32_t b;
        for (b = 0; b < l->element_size; ++b) /* little-endian on any host */
            chunk[used + b] = (unsigned char)(bits >> (8 * b));
        used += l->element_size;
        if (used == sizeof chunk) {
            XXH3_64bits_update(state, chunk, used);
            used = 0;
        }
    }
    XXH3_64bits_update(state, chunk, used);
}

uint64_t digest_prefix(const layout *l, const void *data, uint64_t count)
{
    XXH3_state_t *state = XXH3_createState();
    uint64_t digest;
    if (!state)
        return 0;
    XXH3_64bits_reset(state);
    digest_elements(state, l, data, 0, count);
    digest = XXH3_64bits_digest(state);
    XXH3_freeState(state);
    return digest;
}

uint64_t dmlref_tensor_digest(const dmlref_tensor_desc *desc, const void *data)
{
    layout l;
    layout_from_desc(desc, &l);
    return digest_prefix(&l, data, layout_element_count(&l));
}
