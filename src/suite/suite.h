/*
 * suite.h - the catalogue of golden cases: the suite dmlref gen writes and
 * the random cases dmlref fuzz draws.  Part of the command.
 */
#ifndef DMLREF_SUITE_H
#define DMLREF_SUITE_H

#include "command_base/command_base.h"
#include "suite/generate.h"

/* The 11 data types, in DirectML's order, as the suite sweeps them. */
#define suite_data_types gen_all_data_types

/* The suite's seeded generator (SplitMix64): the next value of *state. */
uint64_t random_next(uint64_t *state);

/* One random case (a case's JSON text, outputs without expected) drawn as
   the suite draws its sweeps (generate.h); op 0: any operator.  The caller
   frees *text. */
int random_case(uint64_t *state, dmlref_operator_type op, char **text, size_t *length);

/* dmlref gen: writes the suite of `profile` to out_dir; returns an exit code. */
int generate_suite(const char *out_dir, uint64_t seed, const char *profile, uint32_t threads);

#endif /* DMLREF_SUITE_H */
