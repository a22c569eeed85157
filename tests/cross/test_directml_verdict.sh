#!/bin/sh
# scripts/check/directml_verdict.py, the DirectML leg's verdict, on small doctored
# reports: it passes a run whose only failures are listed and whose skips it
# explains, and fails each run that deserves it, naming why:
#   - a failure, or an error, that conformance/backends/directml.differences
#     does not list;
#   - a skip for a reason the leg does not explain;
#   - a listed case that is not in the run;
#   - a differences file with a malformed line, or a case of an unknown class
#     (exit 2).
# A listed case that passed is reported and fails nothing.
#   test_directml_verdict.sh
set -u

# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/../cli/lib.sh"
[ $# -eq 0 ] || usage ""
make_tmp directml-verdict
cd "$root" || exit 1
verdict="/usr/bin/python3 $root/scripts/check/directml_verdict.py"

# A differences file with one class and the two listed cases below; a vector
# of the suite stands as the class's minimal vector.
mkdir -p "$tmp/conformance/backends" "$tmp/vectors"
cp vectors/gather_nd1/uint8/3d/out_of_range_clamped.json "$tmp/vectors/minimal.json"
differences=$tmp/conformance/backends/directml.differences
printf '# doctored\nclass\toffset\tvectors/minimal.json\tthe flattened offset\n%s\n%s\n' \
    "$(printf 'case\tlisted/a\toffset')" "$(printf 'case\tlisted/b\toffset')" >"$differences"

# report NAME RESULT... : a --json report of the cases "name:result[:message]"
report() {
    out=$tmp/$1.json
    shift
    {
        printf '{"tool": "dmlref check", "summary": {}, "results": ['
        sep=""
        for entry in "$@"; do
            name=${entry%%:*}
            rest=${entry#*:}
            result=${rest%%:*}
            message=""
            [ "$rest" = "$result" ] || message=${rest#*:}
            printf '%s\n {"name": "%s", "result": "%s", "message": "%s"}' "$sep" "$name" \
                "$result" "$message"
            sep=","
        done
        printf ']}\n'
    } >"$out"
}

# judge NAME WANT_STATUS TEXT: the verdict on report NAME exits WANT_STATUS
# and its output holds TEXT
judge() {
    run_command "$1" 60 $verdict "$tmp/$1.json" "$differences" || return
    cat "$tmp/$1.err" >>"$tmp/$1.out"
    expect_exit "$1" "$2" "$tmp/$1.out" && expect_output_contains "$1" "$tmp/$1.out" "$3"
}

below="unsupported: DirectML validates at its maximum feature level, 6_4, and cannot be asked to validate at 3_0"
report agreeing a/1:pass "listed/a:fail:got 3" listed/b:error:crashed "low:skip:$below" \
    "oob:skip:accepted out-of-range indices: undefined"
judge agreeing 0 "3 passed, 0 failed"
judge agreeing 0 "1 skipped, below 6_4"

report unlisted_failure a/1:pass listed/a:fail listed/b:fail "new/c:fail:expected 2, got 3"
judge unlisted_failure 1 "FAIL  new/c: a difference"
judge unlisted_failure 1 "3 passed, 1 failed"

report unlisted_error a/1:pass listed/a:fail listed/b:fail "new/d:error:exited (status 3)"
judge unlisted_error 1 "FAIL  new/d: a difference"

report unexplained_skip a/1:pass listed/a:fail listed/b:fail "odd:skip:unsupported: FLOAT64 is not implemented"
judge unexplained_skip 1 "FAIL  odd: a skip this leg does not explain"

report listed_missing a/1:pass listed/a:fail
judge listed_missing 1 "FAIL  listed/b: listed in"

report listed_passing a/1:pass listed/a:fail listed/b:pass
judge listed_passing 0 "a listed difference did not show: listed/b"

printf 'case\tlisted/a\tno-such-class\n' >"$tmp/unknown-class"
run_command unknown_class 60 $verdict "$tmp/agreeing.json" "$tmp/unknown-class" &&
    expect_exit unknown_class 2 "$tmp/unknown_class.err" &&
    expect_output_contains unknown_class "$tmp/unknown_class.err" "which no class line defines"

printf 'case listed/a offset\n' >"$tmp/malformed"
run_command malformed 60 $verdict "$tmp/agreeing.json" "$tmp/malformed" &&
    expect_exit malformed 2 "$tmp/malformed.err" &&
    expect_output_contains malformed "$tmp/malformed.err" "$tmp/malformed:1: not"

finish "the DirectML verdict"
