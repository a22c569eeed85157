/*
 * dmlref/vector.h - golden vectors: reading, evaluating, comparing and writing
 * the JSON cases of vectors/FORMAT.md.  It includes dmlref.h; the core
 * (validate, execute) needs only dmlref.h, and no JSON library.
 *
 * A dmlref_vector holds one case: its operator descriptor, host buffers laid
 * out exactly as the case's strides say (inputs filled, outputs sized), and
 * what the outputs must hold (element values, "any of" sets, unspecified
 * elements, digests) or the error the case must raise.
 *
 * Messages of this part start with the file name and the JSON path of the
 * offending value: "case.json: $.tensors.IndicesTensor.sizes[0]: ...".
 */
#ifndef DMLREF_VECTOR_H
#define DMLREF_VECTOR_H

#include "dmlref.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dmlref_vector dmlref_vector;

/* Flags for reading. */
/* A case for eval: outputs may lack expected, xxh3 and sizes. */
#define DMLREF_VECTOR_READ_CASE 0x1u
/* A case that dmlref_validate() refuses is read even without expect_error,
   as a case that must be refused is (to explain why it is refused):
   dmlref_vector_eval() of it then fails with the refusal. */
#define DMLREF_VECTOR_READ_REFUSED 0x2u

/* The most bytes one case may make the library allocate, unless the options
 * say otherwise: the file's text, the JSON parse tree (charged from the text
 * before parsing), the buffers with what aligning them takes, the elements
 * kept and expected, and what eval and dmlref_vector_read_reply() make for
 * the case.  Each is counted before it is allocated; past the cap a call
 * returns DMLREF_ERROR_OUT_OF_MEMORY with "FILE: PATH: the case needs more
 * than the memory cap of CAP bytes: ..." (vectors/FORMAT.md, "Files, memory
 * and alignment"). */
#define DMLREF_VECTOR_DEFAULT_MEMORY_CAP (4ull << 30)

typedef struct dmlref_vector_read_options {
    uint32_t flags;      /* DMLREF_VECTOR_READ_* */
    uint64_t memory_cap; /* 0: DMLREF_VECTOR_DEFAULT_MEMORY_CAP; kept by the
                            vector for eval, verify and replies */
} dmlref_vector_read_options;

/* Parses a vector from `length` bytes of JSON text; `source_name` names it in
 * messages; options may be NULL.  The reader is strict: see
 * vectors/FORMAT.md.  A case that dmlref_validate() refuses is an error
 * unless it carries expect_error.  On success *out owns every buffer of the
 * case; free it with dmlref_vector_free(). */
DMLREF_API dmlref_status dmlref_vector_parse(const char *text, size_t length,
                                             const char *source_name,
                                             const dmlref_vector_read_options *options,
                                             dmlref_vector **out, dmlref_error *err);

/* Reads and parses a file (at most DMLREF_VECTOR_MAX_FILE_BYTES; its text
 * counts against the memory cap).  Where POSIX is there, anything but a
 * regular file (a FIFO, a device, a directory) is refused at once with
 * DMLREF_ERROR_IO, "PATH: not a regular file (...)": the loader never blocks
 * on a FIFO nor reads a device. */
#define DMLREF_VECTOR_MAX_FILE_BYTES (1ull << 30)
DMLREF_API dmlref_status dmlref_vector_load(const char *path,
                                            const dmlref_vector_read_options *options,
                                            dmlref_vector **out, dmlref_error *err);

DMLREF_API void dmlref_vector_free(dmlref_vector *vector);

/* ---- what the case is ----------------------------------------------------- */

DMLREF_API const char *dmlref_vector_name(const dmlref_vector *vector);
DMLREF_API const dmlref_operator_desc *dmlref_vector_operator(const dmlref_vector *vector);
DMLREF_API dmlref_feature_level dmlref_vector_feature_level(const dmlref_vector *vector);
DMLREF_API dmlref_oob_policy dmlref_vector_oob_policy(const dmlref_vector *vector);
/* Runs (and writes) the case at another level, e.g. a backend's lower one;
 * 0 means the latest (D19), and a value that is no feature level is ignored. */
DMLREF_API void dmlref_vector_set_feature_level(dmlref_vector *vector, dmlref_feature_level level);

/* 1 when the case must be refused; then *status and *rule (when not NULL)
 * say how.  Such a case has buffers like a valid one wherever its elements
 * can be placed (vectors/FORMAT.md, "Buffers of a case that must be
 * refused"). */
DMLREF_API int dmlref_vector_expects_error(const dmlref_vector *vector, dmlref_status *status,
                                           const char **rule);
/* 1 when every tensor of the case has a buffer: each input holds its data and
 * each output is allocated.  0 for a case that must be refused and gives no
 * data, or whose shapes cannot all be placed in memory; its bindings without
 * a buffer are NULL, size 0. */
DMLREF_API int dmlref_vector_has_data(const dmlref_vector *vector);

/* The case's host buffers, in binding order (dmlref_execute()): inputs hold
 * the case's data, outputs are zero-filled, each binding
 * TotalTensorSizeInBytes long and starting at a multiple of its tensor's
 * GuaranteedBaseOffsetAlignment.  In a case that must be refused whose
 * TotalTensorSizeInBytes is below the minimum (R-TD-9), the buffer behind the
 * binding is DMLCalcBufferTensorSize bytes long, so that every element has
 * its place. */
DMLREF_API size_t dmlref_vector_input_count(const dmlref_vector *vector);
DMLREF_API size_t dmlref_vector_output_count(const dmlref_vector *vector);
DMLREF_API const dmlref_binding *dmlref_vector_inputs(const dmlref_vector *vector);
DMLREF_API const dmlref_binding *dmlref_vector_outputs(const dmlref_vector *vector);

/* ---- evaluating, comparing, verifying ------------------------------------ */

/* Computes the case with the reference: executes it at its feature level
 * under its out-of-range policy on `num_threads` threads (0: OpenMP's
 * default) into its output buffers, and sets what each output must hold: the
 * values, "any of" sets for Scatter targets written by several updates (D4),
 * unspecified NonZero rows at or past the count (R-NZ-14), and digests.
 * Sets min_feature_level.  For an expect_error case it checks instead that
 * dmlref refuses the case exactly so (DMLREF_ERROR_MISMATCH otherwise). */
DMLREF_API dmlref_status dmlref_vector_eval(dmlref_vector *vector, uint32_t num_threads,
                                            dmlref_error *err);

/* dmlref_vector_eval_with's flags. */
/* Of each output that dmlref_vector_write() writes by its digest alone (more
 * than 64 elements, in a case whose inputs come from generators; not
 * Scatter's output, whose targets may hold any of several values), keep only
 * the digest, not a copy of its elements: eval then holds no more than the
 * tensors themselves.  Comparing outputs with the vector afterwards compares
 * those outputs' digests, so a mismatch names no element.  For eval that
 * writes the vector out (`dmlref eval`, `dmlref gen`). */
#define DMLREF_VECTOR_EVAL_DIGESTS 0x1u

/* dmlref_vector_eval() with flags (0: the same). */
DMLREF_API dmlref_status dmlref_vector_eval_with(dmlref_vector *vector, uint32_t num_threads,
                                                 uint32_t flags, dmlref_error *err);

/* Where outputs first differ from what the case expects. */
typedef struct dmlref_mismatch {
    size_t output;    /* which output (binding order) */
    uint64_t element; /* logical row-major position */
    uint32_t rank;
    uint64_t coordinate[8];
    uint64_t expected_bits; /* the expected element (the first of an any_of) */
    uint64_t got_bits;
    uint64_t wrong_elements; /* in all outputs; 0 when only a digest differed */
} dmlref_mismatch;

/* Compares output buffers laid out as the case's outputs (e.g. written by
 * another implementation) with what the case expects, bit for bit, skipping
 * unspecified elements and output padding.  DMLREF_OK, or
 * DMLREF_ERROR_MISMATCH with *first (if not NULL) describing the first wrong
 * element and a message naming it. */
DMLREF_API dmlref_status dmlref_vector_compare(const dmlref_vector *vector,
                                               const dmlref_binding *outputs, size_t count,
                                               dmlref_mismatch *first, dmlref_error *err);

/* Recomputes the case with the reference and checks it against everything the
 * vector states: expected elements, digests, min_feature_level, or the
 * expected error, and its permitted variants: each one's outputs recomputed,
 * and exactly the variants eval would add present.  DMLREF_OK or
 * DMLREF_ERROR_MISMATCH. */
DMLREF_API dmlref_status dmlref_vector_verify(dmlref_vector *vector, uint32_t num_threads,
                                              dmlref_error *err);

/* ---- permitted variants ------------------------------------------------------
 * Where DirectML allows another whole answer than the golden one, a vector
 * states it as a variant (vectors/FORMAT.md, "Variants"; format
 * "dmlref-vector-2"): a name, the rule of docs/rules.md that allows it, and
 * what every output must hold instead.  Today there is one kind:
 * "subnormals_flushed" (R-NZ-10), NONZERO_COORDINATES computed as if every
 * subnormal input element were a zero of the same sign.  dmlref_vector_eval()
 * adds it when the case's float input holds a subnormal element and the
 * flushed answer differs from the golden one.  Variant k = 0, 1, ... */

/* The number of variants the vector states (0 for most). */
DMLREF_API size_t dmlref_vector_variant_count(const dmlref_vector *vector);
/* Variant k's name ("subnormals_flushed") and rule id ("R-NZ-10"); NULL when
 * k is not below dmlref_vector_variant_count(). */
DMLREF_API const char *dmlref_vector_variant_name(const dmlref_vector *vector, size_t k);
DMLREF_API const char *dmlref_vector_variant_rule(const dmlref_vector *vector, size_t k);

/* dmlref_vector_compare() against variant k's expectations instead of the
 * golden ones; messages name "$.variants[k].outputs.<Tensor>...".  An
 * implementation conforms when its outputs pass dmlref_vector_compare() or
 * this call for some k.  DMLREF_ERROR_INVALID_ARGUMENT for a k out of range. */
DMLREF_API dmlref_status dmlref_vector_compare_variant(const dmlref_vector *vector, size_t k,
                                                       const dmlref_binding *outputs, size_t count,
                                                       dmlref_mismatch *first, dmlref_error *err);

/* ---- writing --------------------------------------------------------------- */

/* The vector as JSON text in dmlref's canonical layout (byte-for-byte
 * reproducible), NUL-terminated, allocated with malloc.  Format
 * "dmlref-vector-1", or "dmlref-vector-2" when the vector has variants. */
DMLREF_API dmlref_status dmlref_vector_write(const dmlref_vector *vector, char **text,
                                             size_t *length, dmlref_error *err);

/* Flags of dmlref_vector_write_with(). */
#define DMLREF_VECTOR_WRITE_CASE                                                                   \
    0x1u                                  /* the case as a backend sees it: no expected,
                                             xxh3, min_feature_level, expect_error or
                                             variants (so always "dmlref-vector-1") */
#define DMLREF_VECTOR_WRITE_ONE_LINE 0x2u /* no newlines: one JSON Lines record */
DMLREF_API dmlref_status dmlref_vector_write_with(const dmlref_vector *vector, uint32_t flags,
                                                  char **text, size_t *length, dmlref_error *err);

/* 1 and the level when the vector states its min_feature_level (eval sets it). */
DMLREF_API int dmlref_vector_min_feature_level(const dmlref_vector *vector,
                                               dmlref_feature_level *level);

/* ---- the process protocol (dmlref check --exec) ---------------------------
 * A reply line of an implementation: {"name": N, "outputs": {"OutputTensor":
 * [elements...], ...}}, {"name": N, "status": "unsupported", "message": M}
 * or {"name": N, "status": "error", "message": M, "error": {"status": S,
 * "rule": R}}; elements are logical,
 * row-major, encoded as in vectors/FORMAT.md. */
typedef enum dmlref_reply_kind {
    DMLREF_REPLY_OUTPUTS = 0,
    DMLREF_REPLY_UNSUPPORTED = 1,
    DMLREF_REPLY_ERROR = 2
} dmlref_reply_kind;

/* What a reply says besides outputs. */
typedef struct dmlref_reply {
    dmlref_reply_kind kind;
    /* An error reply may name how it refuses the case:
     * "error": {"status": "DMLREF_ERROR_...", "rule": "R-GE-3"}, both optional. */
    dmlref_status refusal_status; /* DMLREF_OK when it names none */
    char refusal_rule[DMLREF_ERROR_RULE_CAPACITY];
    char message[DMLREF_ERROR_MESSAGE_CAPACITY]; /* the reply's "message", or "" */
} dmlref_reply;

/* Reads a reply to this vector's case into *reply; for outputs, places each
 * element in `outputs` (buffers laid out as the case's outputs, each at least
 * TotalTensorSizeInBytes long) through the strides, leaving other bytes as
 * they are and never writing past a binding's size_in_bytes (an element that
 * lies past it, in a case that must be refused, is checked only; a binding
 * with NULL data: every element is only checked).  A malformed reply (not
 * JSON, another case's name, missing or extra outputs, wrong element counts
 * or encodings, an unknown status name) is DMLREF_ERROR_VECTOR_SCHEMA or
 * DMLREF_ERROR_VECTOR_PARSE, with a message naming the JSON path.  The
 * reply's parse tree counts against the vector's memory cap, beside what the
 * vector holds: past it, DMLREF_ERROR_OUT_OF_MEMORY. */
DMLREF_API dmlref_status dmlref_vector_read_reply(const dmlref_vector *vector, const char *line,
                                                  size_t length, const dmlref_binding *outputs,
                                                  size_t count, dmlref_reply *reply,
                                                  dmlref_error *err);

/* One element's JSON text as vectors/FORMAT.md encodes it ("1.5", "-0.0",
 * "\"nan\"", "\"18446744073709551615\"", ...) from its bits (the low bytes of
 * `bits`); at most 48 bytes with the NUL.  Returns buf. */
DMLREF_API char *dmlref_format_element(dmlref_tensor_data_type type, uint64_t bits, char *buf,
                                       size_t capacity);

/* XXH3-64 (seed 0) of a tensor's logical elements, little-endian, row-major,
 * read through its strides from `data`. */
DMLREF_API uint64_t dmlref_tensor_digest(const dmlref_tensor_desc *desc, const void *data);

#ifdef __cplusplus
}
#endif

#endif /* DMLREF_VECTOR_H */
