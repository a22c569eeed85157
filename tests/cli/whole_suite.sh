#!/bin/sh
# tests/cli/whole_suite.sh STEP DMLREF_BINARY [ARG...] - one step of a platform
# leg (make check-i686, check-s390x, check-mingw): a build of dmlref for
# another machine goes through the whole golden suite, vectors/, and the
# step fails unless every vector of vectors/MANIFEST was handled, so that a
# build that silently reads nothing cannot pass.
#
#   verify DMLREF            dmlref verify vectors: "N passed, 0 failed,
#                            0 skipped", N the vectors of the MANIFEST
#   gen DMLREF DIR           dmlref gen --out DIR (DIR is replaced) writes
#                            vectors/ byte for byte (FORMAT.md and
#                            schema.json are written by hand)
#   check DMLREF PLUGIN      dmlref check --backend PLUGIN vectors: no case
#                            fails, every one is judged, and none is skipped
#                            but the "oob": "clamp" cases, which a strict
#                            backend refuses
#
# DMLREF_BINARY is the program, or a script that runs it under an emulator.
# Runs from any directory; prints what dmlref printed, then one summary line;
# exits 1 when the step failed.
set -u

# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

if [ $# -lt 2 ]; then
    usage "verify|gen|check DMLREF_BINARY [DIR|PLUGIN]"
fi
step=$1
take_binary "$2"
shift 2
vectors=$root/vectors
total=$(wc -l <"$vectors/MANIFEST" | tr -d ' ')

# The last "N passed, N failed, N skipped" line of FILE, as "N N N".
counts() {
    grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$1" | tail -n 1 |
        sed 's/ passed, / /; s/ failed, / /; s/ skipped$//'
}

# run_dmlref ARG...: dmlref's output is printed and kept in $out; $rc is its status
out=$(mktemp) || exit 3
trap 'rm -f "$out"' EXIT
run_dmlref() {
    "$bin" "$@" >"$out" 2>&1
    rc=$?
    cat "$out"
}

case $step in
verify)
    [ $# -eq 0 ] || usage "verify DMLREF_BINARY"
    run_dmlref verify "$vectors"
    # shellcheck disable=SC2046 # the three counts, as words
    set -- $(counts "$out")
    if [ "$rc" -ne 0 ] || [ "${1:-}" != "$total" ] || [ "${2:-}" != 0 ] || [ "${3:-}" != 0 ]; then
        echo "whole_suite: FAILED: dmlref verify exited $rc and verified ${1:-no} vectors of" \
             "the $total of vectors/MANIFEST (${2:-?} failed, ${3:-?} skipped)"
        exit 1
    fi
    echo "$total passed, 0 failed, 0 skipped: every vector of vectors/MANIFEST"
    ;;
gen)
    [ $# -eq 1 ] || usage "gen DMLREF_BINARY DIR"
    dir=$1
    rm -rf "$dir"
    run_dmlref gen --out "$dir"
    if [ "$rc" -ne 0 ]; then
        echo "whole_suite: FAILED: dmlref gen exited $rc"
        exit 1
    fi
    if ! diff -r -q -x FORMAT.md -x schema.json "$vectors" "$dir" >"$out" 2>&1; then
        head -n 20 "$out"
        echo "whole_suite: FAILED: dmlref gen --out $dir differs from vectors/" \
             "($(wc -l <"$out" | tr -d ' ') files)"
        exit 1
    fi
    generated=$(find "$dir" -type f -name '*.json' | wc -l | tr -d ' ')
    if [ "$generated" != "$total" ]; then
        echo "whole_suite: FAILED: dmlref gen wrote $generated vectors, vectors/MANIFEST has $total"
        exit 1
    fi
    echo "$total vectors and their MANIFEST and README.md written byte for byte as vectors/"
    ;;
check)
    [ $# -eq 1 ] || usage "check DMLREF_BINARY PLUGIN"
    plugin=$1
    clamped=$(grep -rl --include='*.json' '"oob": "clamp"' "$vectors" | wc -l | tr -d ' ')
    run_dmlref check --backend "$plugin" --timeout 60 "$vectors"
    # shellcheck disable=SC2046 # the three counts, as words
    set -- $(counts "$out")
    if [ "$rc" -ne 0 ] || [ "${2:-1}" != 0 ] || [ $((${1:-0} + ${3:-0})) != "$total" ] ||
        [ "${3:-0}" -gt "$clamped" ]; then
        echo "whole_suite: FAILED: dmlref check exited $rc: ${1:-no} passed, ${2:-?} failed," \
             "${3:-?} skipped, of the $total vectors of vectors/MANIFEST (at most the $clamped" \
             "\"oob\": \"clamp\" ones may be skipped)"
        exit 1
    fi
    echo "$1 passed, 0 failed, $3 skipped (\"oob\": \"clamp\"): every vector of vectors/MANIFEST"
    ;;
*)
    usage "verify|gen|check DMLREF_BINARY [DIR|PLUGIN]"
    ;;
esac
