#!/bin/sh
# tests/fuzz/run_long.sh BUILD_DIR SECONDS [JOBS]
#
# A long libFuzzer run of the targets of tests/fuzz/, one after the other,
# each for SECONDS seconds on JOBS processes (libFuzzer's -fork=JOBS; default
# the number of processors).  Builds, seeds and grows the corpora as
# run_smoke.sh does (tests/fuzz/common.sh); unlike it, a crash, leak, timeout
# or out-of-memory input does not end the run (-ignore_crashes,
# -ignore_timeouts, -ignore_ooms): every one found is counted and kept.
#
# The one-hour run, the four targets 15 minutes each on 2 processes, from
# the repository (about 5 more minutes build the library and the targets):
#
#     nohup sh tests/fuzz/run_long.sh build/fuzz-long 900 2 \
#         > build/fuzz-long.out 2>&1 &
#     tail -f build/fuzz-long/fuzz/*.long.log      # progress, every few seconds
#     cat build/fuzz-long.out                      # the summary, at the end
#
# (an hour for each target: SECONDS 3600; one target alone: FUZZ_TARGETS=
# fuzz_reply).  BUILD_DIR build/sanitize (make fuzz-smoke's) starts from the
# corpora the smoke runs grew.  Memory: up to JOBS x 4 GiB (-rss_limit_mb each); disk: the
# corpora, a few MB.
#
# Prints one line per target: executions, coverage (cov: edges and ft:
# features, as libFuzzer's fork mode counts them), the corpus (inputs, and
# the files and bytes of BUILD_DIR/fuzz/corpus/TARGET/), and the crashes,
# timeouts and out-of-memory inputs found; then "N clean, N with findings".
# New inputs accumulate in BUILD_DIR/fuzz/corpus/TARGET/, findings land in
# BUILD_DIR/fuzz/artifacts/TARGET/ (crash-*, leak-*, timeout-*, oom-*), the
# log in BUILD_DIR/fuzz/TARGET.long.log.  Exits 1 if any target had a
# finding or stopped early, 2 on a usage or build error.
#
# Environment: as run_smoke.sh (FUZZ_TARGETS, FUZZ_TIMEOUT, FUZZ_SEED_EVERY,
# FUZZ_MAKE_JOBS, FUZZ_ARGS).
#
# To reproduce a finding: BUILD_DIR/fuzz/TARGET ARTIFACT; to minimize it:
# BUILD_DIR/fuzz/TARGET -minimize_crash=1 -runs=10000 ARTIFACT

set -u

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: $0 BUILD_DIR SECONDS [JOBS]" >&2
    exit 2
fi
workers=${3:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
case $workers in
'' | *[!0-9]* | 0) echo "$0: JOBS must be a positive integer" >&2; exit 2 ;;
esac
# shellcheck source=tests/fuzz/common.sh
. "$(dirname "$0")/common.sh" || exit 2
fuzz_setup "$1" "$2"
fuzz_build
fuzz_seeds
fuzz_environment

clean=0
found=0
stamp=$fuzz/.long-run-start
for target in $fuzz_targets; do
    fuzz_target_options "$target"
    log=$fuzz/$target.long.log
    : > "$stamp" || exit 2
    # shellcheck disable=SC2086 # FUZZ_ARGS is a list of flags
    "$fuzz/$target" -fork="$workers" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
        -max_total_time="$seconds" -max_len="$max_len" -timeout="$timeout" \
        -rss_limit_mb=4096 ${dict:+"$dict"} -artifact_prefix="$fuzz/artifacts/$target/" \
        ${FUZZ_ARGS:-} "$fuzz/corpus/$target" "$fuzz/seeds/$target" > "$log" 2>&1
    rc=$?
    # the fork mode's last status line:
    # "#N: cov: C ft: F corp: K exec/s E oom/timeout/crash: O/T/X time: Ss job: J ..."
    last=$(grep '^#[0-9]*: cov: ' "$log" | tail -n 1)
    execs=$(printf '%s\n' "$last" | sed -n 's/^#\([0-9]*\):.*/\1/p')
    cov=$(printf '%s\n' "$last" | grep -o 'cov: [0-9]* ft: [0-9]*')
    inputs=$(printf '%s\n' "$last" | sed -n 's/.* corp: \([0-9]*\) .*/\1/p')
    ooms=$(printf '%s\n' "$last" | sed -n 's|.*oom/timeout/crash: \([0-9]*\)/.*|\1|p')
    timeouts=$(printf '%s\n' "$last" | sed -n 's|.*oom/timeout/crash: [0-9]*/\([0-9]*\)/.*|\1|p')
    crashes=$(printf '%s\n' "$last" | sed -n 's|.*oom/timeout/crash: [0-9]*/[0-9]*/\([0-9]*\) .*|\1|p')
    files=$(find "$fuzz/corpus/$target" -type f | wc -l | tr -d ' ')
    bytes=$(cat "$fuzz/corpus/$target"/* 2>/dev/null | wc -c | tr -d ' ')
    kept=$(find "$fuzz/artifacts/$target" -type f -newer "$stamp" | wc -l | tr -d ' ')
    line="$target: ${execs:-?} executions in $seconds s on $workers jobs, ${cov:-no coverage line},"
    line="$line corpus ${inputs:-?} inputs (its folder: $files files, $bytes bytes),"
    line="$line crashes ${crashes:-?}, timeouts ${timeouts:-?}, ooms ${ooms:-?}"
    if [ "${crashes:-1}${timeouts:-1}${ooms:-1}" = 000 ] && [ "$kept" -eq 0 ] &&
        [ "$rc" -eq 0 ]; then
        clean=$((clean + 1))
        echo "$line"
    else
        found=$((found + 1))
        echo "$line; exit $rc, $kept inputs kept in $fuzz/artifacts/$target/; log: $log"
    fi
done
rm -f "$stamp"
echo "$clean clean, $found with findings"
[ "$found" -eq 0 ]
