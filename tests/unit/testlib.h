/*
 * testlib.h - what the unit tests share: tensors with host buffers laid out
 * through their strides and fenced by guard bytes, value conversion per data
 * type, and a small deterministic random generator.
 */
#ifndef DMLREF_TESTLIB_H
#define DMLREF_TESTLIB_H

#include "dmlref.h"
#include "dmlref/vector.h"

#include <stddef.h>
#include <stdint.h>

#define GUARD_BYTES 64
#define GUARD_FILL 0xA5u   /* around every buffer */
#define PADDING_FILL 0xCDu /* every byte of a buffer no element occupies */

/* A tensor under test: its descriptor and a buffer of exactly
 * TotalTensorSizeInBytes, with GUARD_BYTES of GUARD_FILL before and after. */
typedef struct test_tensor {
    dmlref_tensor_desc desc;
    uint32_t sizes[8];
    uint32_t strides[8];
    unsigned char *allocation;
    unsigned char *data; /* allocation + GUARD_BYTES */
} test_tensor;

/* strides NULL: packed.  TotalTensorSizeInBytes = DMLCalcBufferTensorSize,
 * plus `extra_bytes`. */
void tt_init(test_tensor *t, dmlref_tensor_data_type type, uint32_t rank, const uint32_t *sizes,
             const uint32_t *strides, uint64_t extra_bytes);
void tt_free(test_tensor *t);
uint64_t tt_count(const test_tensor *t); /* logical elements */
uint32_t tt_element_size(const test_tensor *t);

/* Element offset of logical (row-major) position pos. */
uint64_t tt_offset(const test_tensor *t, uint64_t pos);

/* Writes `count` logical elements (row-major, element_size bytes each) into
 * the buffer through the strides; the rest of the buffer is PADDING_FILL.
 * Under broadcast (stride 0) the later element wins the shared address. */
void tt_set_raw(test_tensor *t, const void *elements);
/* Reads the logical elements back out of the buffer. */
void tt_get_raw(const test_tensor *t, void *elements);
/* 1 when the guard bytes before and after the buffer are intact. */
int tt_guards_intact(const test_tensor *t);
/* 1 when every byte that no element occupies still holds PADDING_FILL. */
int tt_padding_intact(const test_tensor *t);

/* Encodes a small exact value in a data type (for FLOAT16 the value must be
 * representable; integers wrap as C conversions do). */
void encode_value(dmlref_tensor_data_type type, double value, void *dst);
/* An element of `size` bytes (1, 2, 4 or 8) in host byte order, as the
 * library's buffers hold it: its bits in the low bits of a uint64_t.  Byte
 * copies of a uint64_t would take the wrong end on a big-endian host. */
void store_host_bits(void *dst, uint32_t size, uint64_t bits);
uint64_t load_host_bits(const void *src, uint32_t size);

/* Encodes an index value in an index type. */
void encode_index(dmlref_tensor_data_type type, int64_t value, void *dst);
/* Sets tensor data from doubles / index values (logical order). */
void tt_set_values(test_tensor *t, const double *values);
void tt_set_indices(test_tensor *t, const int64_t *values);

/* Binding of a tensor's buffer. */
dmlref_binding tt_binding(const test_tensor *t);

/* Executes an operator on test tensors (inputs first, in descriptor order)
 * under the given policy, on OpenMP's default number of threads. */
dmlref_status tt_execute(dmlref_operator_type type, const void *desc, dmlref_feature_level level,
                         dmlref_oob_policy policy, test_tensor *const *inputs, size_t input_count,
                         test_tensor *const *outputs, size_t output_count, dmlref_error *err);
/* The same at the latest level and strict policy, on `threads` threads. */
dmlref_status tt_execute_threads(dmlref_operator_type type, const void *desc, uint32_t threads,
                                 test_tensor *const *inputs, size_t input_count,
                                 test_tensor *const *outputs, size_t output_count,
                                 dmlref_error *err);

/* 1 for INT32 and INT64, the index types that carry negative values. */
int is_signed_index_type(dmlref_tensor_data_type type);
/* 1 when any of the n values is negative. */
int any_negative(const int64_t *values, uint64_t n);

/* 1 when the tensor's logical elements equal `values` encoded in its type,
 * bit for bit; on a difference prints the first one to stderr. */
int tt_equals_values(const test_tensor *t, const double *values);

/* 1 when every byte of the buffer still holds PADDING_FILL (never written). */
int tt_untouched(const test_tensor *t);

/* Packed strides of sizes, each dimension padded by `pad` elements. */
const uint32_t *padded_strides(uint32_t rank, const uint32_t *sizes, uint32_t pad,
                               uint32_t *strides);
/* The strides of a table row's variant: the row's own when it gives some,
 * else padded ones (in `storage`) for the padded variant, else NULL. */
const uint32_t *variant_strides(const uint32_t *given, int padded, uint32_t rank,
                                const uint32_t *sizes, uint32_t pad, uint32_t *storage);

/* Runs a cmocka group: one test per table row (each row a struct whose first
 * member is its `const char *name`; the row is the test's state), then the
 * fixed tests.  Returns cmocka's result. */
struct CMUnitTest;
int run_table_tests(const char *group, const void *rows, size_t row_size, size_t row_count,
                    void (*run_row)(void **state), const struct CMUnitTest *fixed,
                    size_t fixed_count);

/* The eleven data types and the four index types, for loops. */
extern const dmlref_tensor_data_type k_all_data_types[11];
extern const dmlref_tensor_data_type k_all_index_types[4];

/* xorshift64*: deterministic across platforms. */
typedef struct rng {
    uint64_t state;
} rng;
void rng_seed(rng *r, uint64_t seed);
uint64_t rng_next(rng *r);
uint64_t rng_below(rng *r, uint64_t bound); /* [0, bound) */

#endif /* DMLREF_TESTLIB_H */
