#!/bin/sh
# tests/fuzz/run_smoke.sh BUILD_DIR SECONDS
#
# A bounded libFuzzer smoke run of the four targets of tests/fuzz/
# (fuzz_vector, fuzz_validate, fuzz_execute, fuzz_reply):
#   1. builds the library with ASan, UBSan and coverage instrumentation
#      (-fsanitize=fuzzer-no-link) into BUILD_DIR, with the Makefile;
#   2. builds the targets against it into BUILD_DIR/fuzz/, unless they are
#      newer than what they are built from (fuzz_reply with
#      conformance/line_reader.c);
#   3. writes the seeds (tests/fuzz/seeds.sh) into BUILD_DIR/fuzz/seeds/
#      (unless those there are up to date);
#      fuzz_vector and fuzz_reply also get a dictionary of their format's
#      tokens (tests/fuzz/TARGET.dict);
#   4. runs each target for SECONDS seconds; new inputs accumulate in
#      BUILD_DIR/fuzz/corpus/TARGET/, crash, leak and timeout inputs land in
#      BUILD_DIR/fuzz/artifacts/TARGET/, the log in BUILD_DIR/fuzz/TARGET.log.
# Steps 1 to 3 are tests/fuzz/common.sh's, shared with run_long.sh.
# Prints one line per target (executions, coverage) and last
# "N passed, N failed"; exits 1 if any target failed, 2 on a usage or build
# error.  BUILD_DIR is relative to the current directory; any cwd works.
#
# Environment: FUZZ_TARGETS (a list of targets, default all four),
# FUZZ_TIMEOUT (seconds one input may take, default 30),
# FUZZ_SEED_EVERY (the vector sample, default every 4th), FUZZ_MAKE_JOBS
# (parallel compiles, default the number of processors), FUZZ_ARGS (more
# libFuzzer flags for every target).
#
# To reproduce a crash: BUILD_DIR/fuzz/TARGET ARTIFACT; to minimize it:
# BUILD_DIR/fuzz/TARGET -minimize_crash=1 -runs=10000 ARTIFACT

set -u

if [ $# -ne 2 ]; then
    echo "usage: $0 BUILD_DIR SECONDS" >&2
    exit 2
fi
# shellcheck source=tests/fuzz/common.sh
. "$(dirname "$0")/common.sh" || exit 2
fuzz_setup "$1" "$2"
fuzz_build
fuzz_seeds
fuzz_environment

# 4. the runs
passed=0
failed=0
for target in $fuzz_targets; do
    fuzz_target_options "$target"
    log=$fuzz/$target.log
    # shellcheck disable=SC2086 # FUZZ_ARGS is a list of flags
    "$fuzz/$target" -max_total_time="$seconds" -max_len="$max_len" -timeout="$timeout" \
        -rss_limit_mb=4096 -print_final_stats=1 ${dict:+"$dict"} \
        -artifact_prefix="$fuzz/artifacts/$target/" ${FUZZ_ARGS:-} \
        "$fuzz/corpus/$target" "$fuzz/seeds/$target" > "$log" 2>&1
    rc=$?
    fuzz_log_stats "$log"
    if [ "$rc" -eq 0 ]; then
        passed=$((passed + 1))
        echo "$target: passed, ${execs:-?} executions in $seconds s," \
            "${cov:-no coverage line}, ${corpus:-corp: ?}"
    else
        failed=$((failed + 1))
        echo "$target: FAILED (exit $rc) after ${execs:-?} executions," \
            "${cov:-no coverage line}; input: ${artifact:-none written}; log: $log"
        fuzz_failure_report "$target" "$log"
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
