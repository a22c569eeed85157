#!/bin/sh
# tests/fuzz/run_smoke.sh BUILD_DIR SECONDS
#
# A bounded libFuzzer smoke run of the three targets of tests/fuzz/:
#   1. builds the library with ASan, UBSan and coverage instrumentation
#      (-fsanitize=fuzzer-no-link) into BUILD_DIR, with the Makefile;
#   2. builds fuzz_vector, fuzz_validate and fuzz_execute against it into
#      BUILD_DIR/fuzz/;
#   3. writes the seeds (tests/fuzz/seeds.sh) into BUILD_DIR/fuzz/seeds/;
#      fuzz_vector also gets a dictionary of the format's tokens
#      (tests/fuzz/fuzz_vector.dict);
#   4. runs each target for SECONDS seconds; new inputs accumulate in
#      BUILD_DIR/fuzz/corpus/TARGET/, crash, leak and timeout inputs land in
#      BUILD_DIR/fuzz/artifacts/TARGET/, the log in BUILD_DIR/fuzz/TARGET.log.
# Prints one line per target (executions, coverage) and last
# "N passed, N failed"; exits 1 if any target failed, 2 on a usage or build
# error.  BUILD_DIR is relative to the current directory; any cwd works.
#
# Environment: FUZZ_TIMEOUT (seconds one input may take, default 30),
# FUZZ_SEED_EVERY (the vector sample, default every 4th), FUZZ_ARGS (more
# libFuzzer flags for every target).
#
# To reproduce a crash: BUILD_DIR/fuzz/TARGET ARTIFACT; to minimize it:
# BUILD_DIR/fuzz/TARGET -minimize_crash=1 -runs=10000 ARTIFACT

set -u

if [ $# -ne 2 ]; then
    echo "usage: $0 BUILD_DIR SECONDS" >&2
    exit 2
fi
case $2 in
'' | *[!0-9]*) echo "$0: SECONDS must be a positive integer" >&2; exit 2 ;;
esac
seconds=$2
timeout=${FUZZ_TIMEOUT:-30}
mkdir -p "$1" || exit 2
build=$(cd "$1" && pwd) || exit 2
repo=$(cd "$(dirname "$0")/../.." && pwd) || exit 2
fuzz=$build/fuzz
cd "$repo" || exit 2

# 1. the library, sanitized and instrumented for coverage
sanitize="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
sanitize="$sanitize -fsanitize=fuzzer-no-link"
force=
if [ -f "$build/libdmlref.a" ] &&
    ! nm "$build/libdmlref.a" 2>/dev/null | grep -q __sanitizer_cov_trace_cmp; then
    force=-B # built earlier without coverage instrumentation: rebuild
fi
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 4)
make --no-print-directory -j"$jobs" $force BUILD="$build" CC=clang OPT="-O1 -g" \
    SANITIZE="$sanitize" "$build/libdmlref.a" ||
    { echo "$0: building the library failed" >&2; exit 2; }

# 2. the targets
mkdir -p "$fuzz" || exit 2
libs=$(pkg-config --libs jansson libxxhash 2>/dev/null || echo -ljansson -lxxhash)
targets="fuzz_vector fuzz_validate fuzz_execute"
for target in $targets; do
    # shellcheck disable=SC2086 # $libs is a list of flags
    clang -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
        -g -O1 -std=c99 -pedantic -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
        -Wmissing-prototypes -Wvla -Wundef -Wpointer-arith -Wwrite-strings \
        -Iinclude -Isrc "tests/fuzz/$target.c" "$build/libdmlref.a" $libs -lm -fopenmp \
        -o "$fuzz/$target" || { echo "$0: building $target failed" >&2; exit 2; }
done

# 3. the seeds
sh "$repo/tests/fuzz/seeds.sh" "$fuzz/seeds" "${FUZZ_SEED_EVERY:-4}" 16384 || exit 2

# 4. the runs.  LLVM's OpenMP runtime keeps its thread buffers until exit:
# the project's suppression file tells LeakSanitizer.
LSAN_OPTIONS=suppressions=$repo/tests/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}
UBSAN_OPTIONS=print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}
export LSAN_OPTIONS UBSAN_OPTIONS

passed=0
failed=0
for target in $targets; do
    dict=
    case $target in
    fuzz_vector) max_len=16384 dict=-dict=$repo/tests/fuzz/fuzz_vector.dict ;;
    fuzz_validate) max_len=512 ;;
    *) max_len=4096 ;;
    esac
    mkdir -p "$fuzz/corpus/$target" "$fuzz/artifacts/$target" || exit 2
    log=$fuzz/$target.log
    # shellcheck disable=SC2086 # FUZZ_ARGS is a list of flags
    "$fuzz/$target" -max_total_time="$seconds" -max_len="$max_len" -timeout="$timeout" \
        -rss_limit_mb=4096 -print_final_stats=1 ${dict:+"$dict"} \
        -artifact_prefix="$fuzz/artifacts/$target/" ${FUZZ_ARGS:-} \
        "$fuzz/corpus/$target" "$fuzz/seeds/$target" > "$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    if [ -z "$execs" ]; then # no final stats after a crash: the last status line
        execs=$(sed -n 's/^#\([0-9][0-9]*\).*/\1/p' "$log" | tail -n 1)
    fi
    cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -n 1)
    corpus=$(grep -o 'corp: [0-9]*/[0-9]*[bKM]*' "$log" | tail -n 1)
    if [ "$rc" -eq 0 ]; then
        passed=$((passed + 1))
        echo "$target: passed, ${execs:-?} executions in $seconds s," \
            "${cov:-no coverage line}, ${corpus:-corp: ?}"
    else
        failed=$((failed + 1))
        artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
        echo "$target: FAILED (exit $rc) after ${execs:-?} executions," \
            "${cov:-no coverage line}; input: ${artifact:-none written}; log: $log"
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
