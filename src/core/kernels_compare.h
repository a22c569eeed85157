/*
 * kernels_compare.h - the fast kernels (src/kernels/) against the reference
 * kernels (reference/) on one case: the proof that they agree.  Not installed.
 *
 * The case is executed on the same input buffers with kernels =
 * DMLREF_KERNELS_REFERENCE and with DMLREF_KERNELS_FAST, each into its own
 * copy of the output buffers, prefilled with one pattern and fenced by
 * KERNELS_GUARD bytes of it on either side.  The two agree when they return
 * the same status, rule and message and leave the same bytes in every
 * output buffer (bytes no element covers and NonZero's rows past the count
 * included), and neither writes outside its output buffers or into an
 * input.  dmlref fuzz, eval and verify --kernels fast
 * (conformance/fuzz.c) and tests/unit/test_random.c all compare through it.
 */
#ifndef DMLREF_CORE_KERNELS_COMPARE_H
#define DMLREF_CORE_KERNELS_COMPARE_H

#include "core/core.h"

#include <stddef.h>
#include <stdint.h>

#define kernels_compare dmlref__kernels_compare
#define kernels_comparison_free dmlref__kernels_comparison_free
#define kernels_prefill_byte dmlref__kernels_prefill_byte

#define KERNELS_GUARD 64 /* bytes of the pattern before and after every output buffer */

/* One case and how to run it. */
typedef struct kernels_case {
    const dmlref_operator_desc *op;
    dmlref_feature_level level;
    dmlref_oob_policy oob_policy;
    const dmlref_binding *inputs; /* read by both runs; an input a run writes is put back */
    size_t input_count;
    const dmlref_binding *outputs; /* only their sizes are used; one with no data gets none */
    size_t output_count;
    uint32_t reference_threads; /* 0: OpenMP's default */
    /* The fast kernels run once on each of these thread counts (0: OpenMP's
       default), each run on buffers prefilled afresh, against the one run
       of the reference kernels; the first run that differs ends it. */
    const uint32_t *fast_threads;
    size_t fast_runs; /* at least 1 */
    uint64_t prefill; /* the pattern: 0 the usual one, else one drawn from it */
} kernels_case;

enum kernels_damage {
    KERNELS_DAMAGE_NONE = 0,
    KERNELS_DAMAGE_PAST_END,
    KERNELS_DAMAGE_BEFORE_START,
    KERNELS_DAMAGE_INPUT_WRITTEN
};

typedef struct kernels_comparison {
    dmlref_status fast_status, reference_status;
    dmlref_error fast_error, reference_error;
    dmlref_binding outputs[OPERATOR_MAX_OUTPUTS];           /* the fast run's buffers */
    dmlref_binding reference_outputs[OPERATOR_MAX_OUTPUTS]; /* the reference kernels' */
    size_t output_count;
    size_t fast_run;        /* the fast run said below: the first that differs, or the last */
    int damage;             /* KERNELS_DAMAGE_*: the first write of the fast kernels outside */
    size_t damaged_tensor;  /* binding order */
    uint64_t damage_offset; /* past the end: from the buffer's start; before: bytes before it */
    int out_of_memory;      /* nothing ran: no memory for the buffers */
    int same;               /* they agree */
    char difference[2 * DMLREF_ERROR_MESSAGE_CAPACITY + 256]; /* the first difference:
                               "$.tensors.<Output>.bytes[B]: ...", the statuses, the damage */
    unsigned char *blocks[2 * OPERATOR_MAX_OUTPUTS];          /* the buffers, with their guards */
} kernels_comparison;

/* Runs the comparison.  Returns k->same; 0 as well, with k->out_of_memory
   and k->difference saying so, when memory runs out.  The case's output
   buffers are not touched.  kernels_comparison_free releases the buffers. */
int kernels_compare(const kernels_case *c, kernels_comparison *k);
void kernels_comparison_free(kernels_comparison *k);

/* Byte j of the pattern `prefill`: it fills the buffers from the first
   guard byte on, so an output's byte b holds byte KERNELS_GUARD + b. */
unsigned char kernels_prefill_byte(uint64_t prefill, uint64_t j);

#endif /* DMLREF_CORE_KERNELS_COMPARE_H */
