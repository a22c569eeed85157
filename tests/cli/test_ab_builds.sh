#!/bin/sh
# scripts/report/ab_builds.sh, the two builds side by side, on small cases:
#   - one library on both sides: every case and policy has a ratio near 1;
#   - HEAD built without optimisation after the library: the ratios well
#     above 1 (the ratio is after/before, and a slower build shows), at
#     least 13 of the 16 above 1.5: make check runs this beside other work,
#     which can slow one build's rounds of a case (3 of each, on 2 cores,
#     once left 1 of 16 at 1.5 or below), while a script that timed one
#     build twice or swapped them would leave none or few above it;
#   - --build-only links both programs, which run alone and whose outputs
#     --report reads (paths relative to the caller's folder);
#   - errors: a filter no case matches, an unknown revision, --report
#     without files, a program's bad arguments.
#   test_ab_builds.sh LIBDMLREF_A
set -u

# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || usage "LIBDMLREF_A"
lib=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
make_tmp ab-builds
cd "$tmp" || exit 3
ab="sh $root/scripts/report/ab_builds.sh --rounds 3 --size 64 64"
cases=20 # 10 cases, 2 policies

# $1: a report; prints how many of its ratios lie in [$2, $3]
ratios_within() {
    awk -v low="$2" -v high="$3" '{ sub(/.*after\/before /, ""); sub(/ .*/, "") }
        $0 + 0 >= low && $0 + 0 <= high { n++ } END { print n + 0 }' "$1"
}

run_command same 300 $ab "$lib" "$lib"
if expect_exit "the same library on both sides" 0 "$tmp/same.err"; then
    n=$(ratios_within "$tmp/same.out" 0.5 2)
    [ "$n" -eq "$cases" ] && ok "the same library: $n ratios near 1" ||
        bad "the same library: $n of $cases ratios in [0.5, 2]" "$tmp/same.out"
fi

run_command slower 600 env CFLAGS=-O0 $ab --size 512 512 --filter axis1 "$lib" HEAD
if expect_exit "HEAD at -O0 after the library" 0 "$tmp/slower.err"; then
    n=$(ratios_within "$tmp/slower.out" 1.5 1000)
    [ "$n" -ge 13 ] && ok "HEAD at -O0: $n of 16 ratios above 1.5" ||
        bad "HEAD at -O0: $n of 16 ratios above 1.5 (13 needed)" "$tmp/slower.out"
fi

run_command build_only 300 $ab --build-only programs "$lib" "$lib"
if expect_exit "--build-only" 0 "$tmp/build_only.err"; then
    for program in before_first after_first; do
        "$tmp/programs/$program" 1 3 "SC axis1 dup" 64 64 | sed "s/^/$program /" \
            >>"$tmp/runs.txt" || fail "$program did not run"
    done
    run_command report 60 sh "$root/scripts/report/ab_builds.sh" --report runs.txt
    expect_exit "--report" 0 "$tmp/report.err" &&
        expect_output_contains "--report's table" "$tmp/report.out" "SC axis1 dup f32 1T clamp"
    run_command bad_rounds 60 "$tmp/programs/before_first" 1 0
    expect_exit "a program with 0 rounds" 2 && expect_output_contains "its message" \
        "$tmp/bad_rounds.err" "usage: ab_builds THREADS ROUNDS"
fi

run_command no_case 120 $ab --filter no-such-case "$lib" "$lib"
expect_exit "a filter no case matches" 1 && expect_output_contains "its message" \
    "$tmp/no_case.err" "ab_builds: no case timed by both programs"
run_command no_revision 60 $ab "$lib" no-such-revision
expect_exit "an unknown revision" 2 && expect_output_contains "its message" \
    "$tmp/no_revision.err" "no-such-revision is neither a file nor a revision"
run_command no_files 60 sh "$root/scripts/report/ab_builds.sh" --report
expect_exit "--report without files" 2 && expect_output_contains "its message" \
    "$tmp/no_files.err" "--report needs the programs' outputs"

finish
