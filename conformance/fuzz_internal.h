/*
 * fuzz_internal.h - what the pieces of dmlref fuzz share (not installed):
 * the seeded stream, a case's JSON (fuzz_case.c), the table of mutations
 * that break one rule (mutations.c), shrinking (shrink.c) and the case runs
 * that shrinking repeats (fuzz.c).
 */
#ifndef DMLREF_CONFORMANCE_FUZZ_INTERNAL_H
#define DMLREF_CONFORMANCE_FUZZ_INTERNAL_H

#include "conformance/conformance.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* ---- a seeded generator: the suite's (SplitMix64) ----------------------------- */

typedef struct prng {
    uint64_t state;
} prng;

static inline uint64_t draw(prng *r)
{
    return random_next(&r->state);
}

static inline uint32_t pick(prng *r, uint32_t n)
{
    return n ? (uint32_t)(draw(r) % n) : 0;
}

/* ---- the case's JSON (fuzz_case.c) ------------------------------------------ */

/* The operator of a case and its tensors' names in binding order. */
typedef struct shape {
    dmlref_operator_type op;
    size_t inputs, count;
    const char *names[4];
} shape;

/* 0 when the case names no operator dmlref knows. */
int shape_of(json_t *root, shape *s);
json_t *tensor_at(json_t *root, const char *name);
size_t rank_of(json_t *t);
uint64_t size_at(json_t *t, size_t d);
void set_size(json_t *t, size_t d, uint64_t size);
/* The product of the sizes, saturating at 2^64-1. */
uint64_t elements_of(json_t *t);
dmlref_tensor_data_type dtype_of(json_t *t);
int is_signed_type(dmlref_tensor_data_type type);
/* An integer element of `type` with these bits, encoded as FORMAT.md says
   (a string beyond 2^53 in magnitude). */
json_t *integer_element(dmlref_tensor_data_type type, uint64_t bits);
/* The case's compact JSON text (caller frees). */
char *dump(json_t *root);

/* ---- invalid descriptors: the table of mutations (mutations.c) ------------------ */

/* Where a mutation strikes: a tensor and one of its dimensions, drawn for
   every mutation before it runs (mutate()). */
typedef struct mutation_site {
    json_t *root, *attributes;
    const shape *s;
    prng *r;
    size_t which; /* the tensor drawn, in binding order */
    json_t *t;    /* ... itself */
    int is_input;
    uint32_t esize; /* its element size */
    size_t rank, d; /* its rank, and the dimension drawn */
} mutation_site;

/* A mutation breaks (usually) one rule of the case; 0 when it does not
   apply to this operator. */
typedef struct mutation {
    const char *name; /* the suffix of the mutated case's name: "_error_<name>" */
    int (*apply)(const mutation_site *m);
} mutation;

extern const mutation mutation_table[];
extern const size_t mutation_count;

/* Draws the site and applies m; m's result. */
int mutate(json_t *root, const shape *s, const mutation *m, prng *r);

/* ---- running a case, and shrinking a failing one (fuzz.c, shrink.c) ------------ */

typedef struct fuzzer {
    backend *b; /* NULL: the fast kernels, in this process (--kernels fast) */
    unsigned long runs, timeouts;
} fuzzer;

/* Decides a case with the oracle and runs it on the backend (or the fast
   kernels).  Returns the outcome; *vector gets the evaluated vector (caller
   frees), or NULL when the text is not a case (CASE_SKIP, `message` says
   why); *final_text (when not NULL) the case as judged, expect_error
   included (caller frees). */
case_result try_case(fuzzer *f, const char *text, dmlref_vector **vector, char **final_text,
                     char *message, size_t capacity);

/* Shrinks a failing case: passes over every move, each kept when the
   backend still fails the same way, until a pass keeps none or the budget is
   spent.  Returns the smallest case's text (caller frees), or NULL when the
   text is not a case. */
char *shrink(fuzzer *f, const char *text, case_result failing, const char *failing_message);

#endif /* DMLREF_CONFORMANCE_FUZZ_INTERNAL_H */
